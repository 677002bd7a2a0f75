/* update.cl — the last stage of a substep (Macklin et al. 2019,
 * Algorithm 1, line 12): v <- (x - p) / h, as a multiplication by 1/h.
 * Kinematic particles get the velocity of their target this way; pinned
 * ones get 0. */
__kernel void update_velocities(__global const float4 *x, __global const float4 *p,
                                __global float4 *v, const dr_step_params sp) {
  int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  float4 xi = x[i], pi = p[i];
  float4 vi;
  vi.x = (xi.x - pi.x) * sp.inv_h;
  vi.y = (xi.y - pi.y) * sp.inv_h;
  vi.z = (xi.z - pi.z) * sp.inv_h;
  vi.w = 0.0f;
  v[i] = vi;
}
