/* predict.cl — the first stage of an XPBD substep (Macklin et al. 2019,
 * "Small Steps in Physics Simulation", Algorithm 1, lines 3-5):
 *   v <- damping * (v + h * g)          (free particles only)
 *   p <- x                              (remember the start of the substep)
 *   x <- x + h * v
 * Wind has already been added to v by wind_gather (wind.cl). `damping` is
 * the object's exp(-rate h). Pinned and kinematic particles (inverse mass 0)
 * keep their position here; drive_kinematic (drive.cl) moves
 * the latter. The new v is not stored: nothing reads it before
 * update_velocities replaces it with (x - p) / h, and the store would cost
 * a sixth of this stage's memory traffic. One particle per work item: this
 * stage only streams memory, and the 8-lane form of collide.cl measured
 * slower here (BENCHMARKS.md).
 * The shared layout (drape_types.h) is prepended by the host; no #include. */
__kernel void predict(__global float4 *x, __global float4 *p, __global const float4 *v,
                      __global const int *obj, __global const dr_object *objects,
                      const dr_step_params sp) {
  int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  float4 xi = x[i];
  float4 vi = v[i];
  p[i] = xi;
  if (xi.w == 0.0f) return;
  float d = objects[obj[i]].damping;
  vi.xyz = (vi.xyz + sp.h * sp.gravity.xyz) * d;
  xi.xyz = xi.xyz + sp.h * vi.xyz;
  x[i] = xi;
}
