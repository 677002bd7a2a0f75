/* update.cl — the last stage of a substep (Macklin et al. 2019,
 * Algorithm 1, line 12): v <- (x - p) / h, as a multiplication by 1/h.
 * Kinematic particles get the velocity of their target this way; pinned
 * ones get 0. */
__kernel void update_velocities(__global const float4 *x, __global const float4 *p,
                                __global float4 *v, const dr_step_params sp,
                                __global int *bad, const int check) {
  int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  float4 xi = x[i], pi = p[i];
  float4 vi;
  vi.x = (xi.x - pi.x) * sp.inv_h;
  vi.y = (xi.y - pi.y) * sp.inv_h;
  vi.z = (xi.z - pi.z) * sp.inv_h;
  vi.w = 0.0f;
  v[i] = vi;
  /* finiteness check (drape_types.h): x and v of this particle */
  if (check && !(all(isfinite(xi)) && all(isfinite(vi)) && all(fabs(xi.xyz) <= DR_MAX_COORD)))
    atomic_min(bad, i);
}

/* The per-particle stages between the last constraint launch of substep k
 * and the first of substep k+1, in one pass over the particles:
 *   [tethers] ▸ [collide] ▸ update velocities ▸ [predict of substep k+1]
 * (Macklin et al. 2019, Algorithm 1, lines 12 and 3-5; `flags` is a sum of
 * DR_FUSE_*). Why: each of these stages reads and writes every particle
 * while doing little arithmetic, so run one after another they cost four
 * trips through memory and four launches per substep; here the particle
 * stays in registers. Each lane does exactly what the separate stages
 * (and their cpu_* twins) do to its particle, in the same order, so the
 * result is bit for bit that of the unfused sequence. The step orchestrator
 * (src/cloth/step.c) fuses the predict only when nothing between two
 * substeps reads the positions (no wind, no tearing).
 * Eight particles per work item as float4s in two float16 (drape_types.h);
 * the contacts need x, y, z columns (collide8), so they are transposed
 * only for the groups where a particle is inside a collider.
 * Pinned particles (inverse mass 0) are stored back unchanged; other work
 * items may read them as tether pins at the same time and see the same
 * bits. */

__kernel void update_fused(__global float4 *x, __global float4 *p, __global float4 *v,
                           __global const int *obj, __global const dr_object *objects,
                           __global const dr_sphere *spheres, __global const int *pin,
                           __global const float *rest, const int slots, const int stride,
                           const dr_step_params sp, const float t_end, const int flags,
                           __global int *bad) {
  const int i0 = get_global_id(0) * DR_PARTICLE_LANES;
  if (i0 >= sp.n_particles) return;
  __global float *xf = (__global float *)(x + i0), *pf = (__global float *)(p + i0);
  __global float *vf = (__global float *)(v + i0);
  float16 X0 = vload16(0, xf), X1 = vload16(1, xf);
  const float16 P0 = vload16(0, pf), P1 = vload16(1, pf);
  const float8 w = (float8)(X0.s37bf, X1.s37bf);
  const int8 free_ = w != 0.0f;
  const int8 o = vload8(0, obj + i0);
  if ((flags & DR_FUSE_TETHERS) && any(free_))
    tethers8(x, pin, rest, slots, stride, i0, free_, &X0, &X1);
  if ((flags & DR_FUSE_COLLIDE) && any(free_)) {
    /* the test collide8 starts with, on the float4s: is any particle of
     * the eight inside a sphere or below the floor? */
    const float8 margin = DR_OBJECT_FIELD8(o, objects, thickness);
    int8 in = (int8)(0);
    for (int s = 0; s < sp.n_spheres; s++) {
      const dr_sphere sph = spheres[s];
      const float4 c = (float4)(sph.center_radius.x + sph.velocity_friction.x * t_end,
                                sph.center_radius.y + sph.velocity_friction.y * t_end,
                                sph.center_radius.z + sph.velocity_friction.z * t_end, 0.0f);
      const float16 C = (float16)(c, c, c, c);
      const float16 d0 = X0 - C, d1 = X1 - C;
      const float16 e0 = d0 * d0, e1 = d1 * d1;
      const float16 t0 = DR_SUM3(e0), t1 = DR_SUM3(e1);
      const float8 r = sph.center_radius.w + margin;
      in |= (float8)(t0.s048c, t1.s048c) < r * r;
    }
    if (sp.has_floor) in |= (float8)(X0.s159d, X1.s159d) < sp.floor_y + margin;
    if (any(in & free_)) {
      float8 xx = (float8)(X0.s048c, X1.s048c), xy = (float8)(X0.s159d, X1.s159d);
      float8 xz = (float8)(X0.s26ae, X1.s26ae);
      const float8 px = (float8)(P0.s048c, P1.s048c), py = (float8)(P0.s159d, P1.s159d);
      const float8 pz = (float8)(P0.s26ae, P1.s26ae);
      collide8(&xx, &xy, &xz, px, py, pz, free_, margin, spheres, sp, t_end);
      DR_COLUMNS_TO_AOS(xx, xy, xz, w, X0, X1);
    }
  }
  /* update_velocities: v = (x - p) / h as a product, w = 0 */
  float16 V0 = as_float16(as_int16((X0 - P0) * sp.inv_h) & DR_XYZ_MASK);
  float16 V1 = as_float16(as_int16((X1 - P1) * sp.inv_h) & DR_XYZ_MASK);
  vstore16(V0, 0, vf);
  vstore16(V1, 1, vf);
  if (flags & DR_FUSE_PREDICT) {
    /* predict (predict.cl): p <- x; free: v <- (v + h g) d, x <- x + h v */
    vstore16(X0, 0, pf);
    vstore16(X1, 1, pf);
    const float8 d = DR_OBJECT_FIELD8(o, objects, damping);
    const float4 hg4 = (float4)(sp.h * sp.gravity.x, sp.h * sp.gravity.y, sp.h * sp.gravity.z, 0.0f);
    const float16 hg = (float16)(hg4, hg4, hg4, hg4);
    V0 = (V0 + hg) * DR_SPREAD_LO(d);
    V1 = (V1 + hg) * DR_SPREAD_HI(d);
    X0 = select(X0, X0 + sp.h * V0, DR_SPREAD_LO(free_) & DR_XYZ_MASK);
    X1 = select(X1, X1 + sp.h * V1, DR_SPREAD_HI(free_) & DR_XYZ_MASK);
  }
  vstore16(X0, 0, xf);
  vstore16(X1, 1, xf);
  /* finiteness check (drape_types.h) of the frame's last substep, on the
   * registers just stored; the rare failing group finds its first bad
   * particle from what it wrote (no other work item writes these). */
  const float16 Q0 = as_float16(as_int16(X0) & DR_XYZ_MASK), Q1 = as_float16(as_int16(X1) & DR_XYZ_MASK);
  if ((flags & DR_FUSE_CHECK) &&
      !(all(isfinite(X0)) && all(isfinite(X1)) && all(isfinite(V0)) && all(isfinite(V1)) &&
        all(fabs(Q0) <= DR_MAX_COORD) && all(fabs(Q1) <= DR_MAX_COORD))) {
    for (int k = 0; k < DR_PARTICLE_LANES && i0 + k < sp.n_particles; k++)
      if (!(all(isfinite(x[i0 + k])) && all(isfinite(v[i0 + k])) &&
            all(fabs(x[i0 + k].xyz) <= DR_MAX_COORD))) {
        atomic_min(bad, i0 + k);
        break;
      }
  }
}
