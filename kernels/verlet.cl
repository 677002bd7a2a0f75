/* verlet.cl — the position Verlet step of the Jakobsen solver (seeds 002
 * §2 and 004, "newPos = pos + (pos - oldPos) * damping + a dt^2"):
 *
 *   x_new = x + damping * (x - x_prev) + g h^2,   x_prev <- x
 *
 * No velocity is read: the position difference is the velocity (seed 004,
 * "position remembers velocity for free"). x_prev is p, the position at the
 * start of the previous substep, which update_velocities (update.cl) left
 * untouched; after this stage p holds the start of this substep, as the
 * XPBD predict leaves it, so collide and update_velocities work unchanged.
 * `damping` is the object's exp(-rate h) (seed 002 uses a factor 0.99 per
 * step; a rate keeps the damping per second independent of h).
 * Pinned and kinematic particles (w == 0) stay; drive_kinematic moves the
 * latter. The projections that follow are project_distance with
 * compliance 0 (Jakobsen's full-strength relaxation).
 * The shared layout (drape_types.h) is prepended by the host; no #include. */
__kernel void verlet_predict(__global float4 *x, __global float4 *p, __global const int *obj,
                             __global const dr_object *objects, const dr_step_params sp) {
  const int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  float4 xi = x[i];
  const float4 xp = p[i];
  p[i] = xi;
  if (xi.w == 0.0f) return;
  const float d = objects[obj[i]].damping;
  const float h2 = sp.h * sp.h;
  xi.x = xi.x + (xi.x - xp.x) * d + sp.gravity.x * h2;
  xi.y = xi.y + (xi.y - xp.y) * d + sp.gravity.y * h2;
  xi.z = xi.z + (xi.z - xp.z) * d + sp.gravity.z * h2;
  x[i] = xi;
}
