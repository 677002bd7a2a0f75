/* tethers.cl — long-range attachments (Kim, Chentanez and Müller 2012,
 * "Long Range Attachments"): particle i may be no farther from pin j than
 * its rest distance along the cloth. Unilateral: only a particle outside
 * the ball is moved, onto its surface; the pin (inverse mass 0) never moves.
 * One work item per particle loops over its `slots` pins (slot pin < 0 =
 * unused), so each work item writes only its own particle and reads only
 * pins, which nobody writes: no race, no colouring needed. */
__kernel void tethers(__global float4 *x, __global const int *pin, __global const float *rest,
                      const int slots, const int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float4 xi = x[i];
  if (xi.w == 0.0f) return;
  int changed = 0;
  for (int s = 0; s < slots; s++) {
    int j = pin[i * slots + s];
    if (j < 0) break;
    float r = rest[i * slots + s];
    float4 xp = x[j];
    float dx = xi.x - xp.x;
    float dy = xi.y - xp.y;
    float dz = xi.z - xp.z;
    float len2 = dx * dx + dy * dy + dz * dz;
    if (len2 > r * r) {
      float scale = r / sqrt(len2);
      xi.x = xp.x + dx * scale;
      xi.y = xp.y + dy * scale;
      xi.z = xp.z + dz * scale;
      changed = 1;
    }
  }
  if (changed) x[i] = xi;
}
