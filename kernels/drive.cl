/* drive.cl — kinematic particles: pins that follow a scripted path and
 * particles held by a grab (inverse mass 0). Each moves linearly from its
 * frame-start to its frame-end target; `alpha` = (substep + 1) / substeps.
 * Written as (1-alpha) from + alpha to so alpha = 1 lands exactly on `to`.
 * update_velocities then gives the particle the target's velocity, so a
 * released grab keeps the hand's motion. */
__kernel void drive_kinematic(__global float4 *x, __global const dr_kinematic *kin,
                              const int n_kin, const float alpha) {
  int k = get_global_id(0);
  if (k >= n_kin) return;
  dr_kinematic km = kin[k];
  float4 xi = x[km.particle];
  float beta = 1.0f - alpha;
  xi.xyz = beta * km.from.xyz + alpha * km.to.xyz;
  x[km.particle] = xi;
}
