/* collide.cl — sphere colliders and the floor plane, with the object's
 * thickness as a margin and Coulomb-style friction applied to the
 * substep's tangential displacement (Macklin et al. 2014, "Unified Particle
 * Physics", §6.1): relative tangential motion dt smaller than mu times the
 * penetration depth is removed (static friction), larger motion is reduced
 * by mu times the depth (kinetic). The particle is then put on the surface
 * of the inflated collider, so after this stage no particle lies inside.
 * Spheres move linearly: centre at the end of this substep = c + v t_end.
 * Each work item does DR_PARTICLE_LANES consecutive particles; every lane
 * computes what cpu_collide computes for its particle, and lanes that do
 * not touch a collider keep their position (select). */

/* Lanes xx, xy, xz of particles i0 .. i0+7 with start-of-substep positions
 * px, py, pz; `free_` marks the lanes with inverse mass != 0, `margin` is
 * each lane's object thickness. Returns the lanes that touched a collider.
 * Used by the collide kernel below and by update_fused (update.cl). */
static inline __attribute__((always_inline)) int8 collide8(
    float8 *xx_, float8 *xy_, float8 *xz_, const float8 px, const float8 py, const float8 pz,
    const int8 free_, const float8 margin, __global const dr_sphere *spheres,
    const dr_step_params sp, const float t_end) {
  float8 xx = *xx_, xy = *xy_, xz = *xz_;
  const float8 zero = (float8)(0.0f), one = (float8)(1.0f);
  int8 hit = (int8)(0);
  for (int s = 0; s < sp.n_spheres; s++) {
    const dr_sphere sph = spheres[s];
    const float cx = sph.center_radius.x + sph.velocity_friction.x * t_end;
    const float cy = sph.center_radius.y + sph.velocity_friction.y * t_end;
    const float cz = sph.center_radius.z + sph.velocity_friction.z * t_end;
    const float8 r = sph.center_radius.w + margin;
    float8 dx = xx - cx, dy = xy - cy, dz = xz - cz;
    float8 len2 = dx * dx + dy * dy + dz * dz;
    const int8 in = free_ & (len2 < r * r);
    if (!any(in)) continue;
    const float8 len = sqrt(len2);
    const int8 pos = len > 0.0f;
    const float8 nx = select(zero, dx / len, pos), ny = select(one, dy / len, pos),
                 nz = select(zero, dz / len, pos);
    const float8 depth = r - len;
    /* displacement this substep relative to the sphere surface */
    const float8 mx = xx - px - sph.velocity_friction.x * sp.h;
    const float8 my = xy - py - sph.velocity_friction.y * sp.h;
    const float8 mz = xz - pz - sph.velocity_friction.z * sp.h;
    const float8 mn = mx * nx + my * ny + mz * nz;
    const float8 tx = mx - mn * nx, ty = my - mn * ny, tz = mz - mn * nz;
    const float8 tl = sqrt(tx * tx + ty * ty + tz * tz);
    const float8 lim = sph.velocity_friction.w * depth;
    const float8 f = select(lim / tl, one, tl <= lim);
    float8 ux = xx - tx * f, uy = xy - ty * f, uz = xz - tz * f;
    /* onto the inflated surface */
    dx = ux - cx; dy = uy - cy; dz = uz - cz;
    len2 = dx * dx + dy * dy + dz * dz;
    /* "not zero" rather than "> 0": a NaN distance must stay NaN, not put
     * the particle on top of the sphere (cpu_collide does the same) */
    const int8 away = len2 != 0.0f;
    const float8 k = r / sqrt(len2);
    ux = select((float8)(cx), cx + dx * k, away);
    uy = select(cy + r, cy + dy * k, away);
    uz = select((float8)(cz), cz + dz * k, away);
    xx = select(xx, ux, in);
    xy = select(xy, uy, in);
    xz = select(xz, uz, in);
    hit |= in;
  }
  if (sp.has_floor) {
    const float8 fy = sp.floor_y + margin;
    const int8 in = free_ & (xy < fy);
    if (any(in)) {
      const float8 depth = fy - xy;
      const float8 tx = xx - px, tz = xz - pz;
      const float8 tl = sqrt(tx * tx + tz * tz);
      const float8 lim = sp.floor_friction * depth;
      const float8 f = select(lim / tl, one, tl <= lim);
      xx = select(xx, xx - tx * f, in);
      xz = select(xz, xz - tz * f, in);
      xy = select(xy, fy, in);
      hit |= in;
    }
  }
  *xx_ = xx;
  *xy_ = xy;
  *xz_ = xz;
  return hit;
}

__kernel void collide(__global float4 *x, __global const float4 *p, __global const int *obj,
                      __global const dr_object *objects, __global const dr_sphere *spheres,
                      const dr_step_params sp, const float t_end) {
  const int i0 = get_global_id(0) * DR_PARTICLE_LANES;
  if (i0 >= sp.n_particles) return;
  float8 xx, xy, xz, xw, px, py, pz, pw;
  DR_LOAD8(x, i0, xx, xy, xz, xw);
  const int8 free_ = xw != 0.0f;
  if (!any(free_)) return;
  DR_LOAD8(p, i0, px, py, pz, pw);
  const int8 o = vload8(0, obj + i0);
  const float8 margin = DR_OBJECT_FIELD8(o, objects, thickness);
  const int8 hit = collide8(&xx, &xy, &xz, px, py, pz, free_, margin, spheres, sp, t_end);
  if (any(hit)) DR_STORE8(x, i0, xx, xy, xz, xw);
}
