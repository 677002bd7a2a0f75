/* gpu_springs.cl — the GPU form of springs_forces (springs.cl has the
 * physics, seed 001): one particle per work item in both forms, but the
 * springs of the particles are stored slot-major here.
 *
 * Why: springs_forces walks each particle's springs in a CSR list, so work
 * item i reads its own run adj_j[off_i .. off_{i+1}) and the 16-byte
 * parameters beside them: on a GPU the 32 work items of a warp then read 32
 * runs some 200 bytes apart at every step of the loop, one memory
 * transaction each. Here slot q of particle i is entry q * stride + i
 * (stride = the number of particles, like the tethers' pins): at step q
 * neighbouring work items read neighbouring entries (coalesced 4- and
 * 16-byte loads), as GPU solvers lay out per-particle lists (ELL). adj_n[i]
 * is the number of springs of particle i; the slots past it are never
 * read.
 *
 * The slots hold the springs in the order of the CSR list (constraint
 * order), and the loop body is springs_forces's line by line (the CPU
 * reference, springs_cpu.c), so both forms and the CPU reference sum the
 * same forces in the same order and give the same bits. springs_advance is
 * shared by both forms (one particle, coalesced float4s). */
__kernel void springs_forces_g(__global const float4 *x, __global float4 *p,
                               __global const float4 *v, __global float4 *vn,
                               __global const int *obj, __global const dr_object *objects,
                               __global const int *adj_n, __global const int *adj_j,
                               __global const float4 *adj_prm, __global int *diverged,
                               const dr_step_params sp, const float blowup, const int stride) {
  const int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  const float4 xi = x[i], vi = v[i];
  p[i] = xi;
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  int bad = 0;
  const int m = adj_n[i];
  for (int q = 0; q < m; q++) {
    const int j = adj_j[q * stride + i];
    const float4 prm = adj_prm[q * stride + i]; /* rest m, k N/m, mu N s/m, unused */
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
