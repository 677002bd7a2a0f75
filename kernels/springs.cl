/* springs.cl — explicit mass-spring cloth (seed 001), one substep of
 * symplectic Euler in two launches:
 *
 *   springs_forces   per particle i: p_i <- x_i and
 *                    vn_i <- damping * (v_i + h (w_i F_i + g))
 *   springs_advance  v_i <- vn_i, x_i <- x_i + h vn_i
 *
 * F_i is the sum over the springs of particle i (seed 001 §1, spring and
 * damping force of a distance constraint C = |x_i - x_j| - rest):
 *   n = (x_i - x_j) / |x_i - x_j|
 *   F_i += (-k C - mu ((v_i - v_j) . n)) n
 * GATHERED per particle: each work item walks its own adjacency list
 * (CSR, built once on the host in src/cloth/solver_variants.c, in the
 * constraint order), so every particle sums its forces in one fixed order:
 * no float atomics, the same bits on every run, and the CPU reference
 * (springs_cpu.c) does the same arithmetic. The rejected alternative, one
 * work item per spring scattering +F/-F, would need float atomics or a
 * colouring pass per substep. The GPU kernel form runs springs_forces_g
 * (gpu_springs.cl): the same sums over the same springs in the same order,
 * read from a slot-major copy of the lists so a warp's loads coalesce.
 *
 * Two launches because a particle's new velocity must not be seen by a
 * neighbour still gathering from the old one (vn is the second buffer).
 *
 * Divergence check (seed 001: "only conditionally stable"): a spring longer
 * than `blowup` times its rest length, or a non-finite length, position or
 * velocity, records the lowest such particle index in *diverged with an
 * integer atomic_min (integer atomics only; the result does not depend on
 * scheduling). The host reads it once per frame and stops with
 * DRAPE_EUNSTABLE before anything writes the frame out.
 * The shared layout (drape_types.h) is prepended by the host; no #include. */
__kernel void springs_forces(__global const float4 *x, __global float4 *p,
                             __global const float4 *v, __global float4 *vn,
                             __global const int *obj, __global const dr_object *objects,
                             __global const int *adj_off, __global const int *adj_j,
                             __global const float4 *adj_prm, __global int *diverged,
                             const dr_step_params sp, const float blowup) {
  const int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  const float4 xi = x[i], vi = v[i];
  p[i] = xi;
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  int bad = 0;
  const int q1 = adj_off[i + 1];
  for (int q = adj_off[i]; q < q1; q++) {
    const int j = adj_j[q];
    const float4 prm = adj_prm[q]; /* rest m, k N/m, mu N s/m, unused */
    const float4 xj = x[j], vj = v[j];
    const float dx = xi.x - xj.x;
    const float dy = xi.y - xj.y;
    const float dz = xi.z - xj.z;
    const float len2 = dx * dx + dy * dy + dz * dz;
    const float lim = prm.x * blowup;
    if (!(len2 <= lim * lim)) bad = 1; /* also true for NaN */
    if (!(len2 > 0.0f)) continue;
    const float len = sqrt(len2);
    const float inv = 1.0f / len;
    const float nx = dx * inv, ny = dy * inv, nz = dz * inv;
    const float c = len - prm.x;
    const float rv = (vi.x - vj.x) * nx + (vi.y - vj.y) * ny + (vi.z - vj.z) * nz;
    const float f = -prm.y * c - prm.z * rv;
    fx = fx + f * nx;
    fy = fy + f * ny;
    fz = fz + f * nz;
  }
  if (bad) atomic_min(diverged, i);
  float4 o = vi;
  if (xi.w != 0.0f) {
    const float d = objects[obj[i]].damping;
    o.x = (vi.x + sp.h * (fx * xi.w + sp.gravity.x)) * d;
    o.y = (vi.y + sp.h * (fy * xi.w + sp.gravity.y)) * d;
    o.z = (vi.z + sp.h * (fz * xi.w + sp.gravity.z)) * d;
  }
  o.w = 0.0f;
  vn[i] = o;
}

__kernel void springs_advance(__global float4 *x, __global float4 *v,
                              __global const float4 *vn, __global int *diverged,
                              const dr_step_params sp) {
  const int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  float4 xi = x[i];
  const float4 o = vn[i];
  if (xi.w != 0.0f) {
    xi.x = xi.x + sp.h * o.x;
    xi.y = xi.y + sp.h * o.y;
    xi.z = xi.z + sp.h * o.z;
    x[i] = xi;
  }
  v[i] = o;
  if (!(isfinite(xi.x) && isfinite(xi.y) && isfinite(xi.z) && isfinite(o.x) && isfinite(o.y) &&
        isfinite(o.z)))
    atomic_min(diverged, i);
}
