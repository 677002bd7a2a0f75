/* normals.cl — vertex normals for rendering, once per frame: each particle
 * sums the (area-weighted) cross products of the triangles around it, in
 * the fixed order of its vertex->triangle list, and normalises. Particles
 * in no triangle (ropes) get 0. Gather, not scatter: no atomics. */
__kernel void vertex_normals(__global const float4 *x, __global float4 *nrm,
                             __global const uint *tri, __global const int *vt_off,
                             __global const int *vt_list, const int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float sx = 0.0f, sy = 0.0f, sz = 0.0f;
  for (int k = vt_off[i]; k < vt_off[i + 1]; k++) {
    int t = vt_list[k];
    float4 x0 = x[tri[3 * t]], x1 = x[tri[3 * t + 1]], x2 = x[tri[3 * t + 2]];
    float ax = x1.x - x0.x, ay = x1.y - x0.y, az = x1.z - x0.z;
    float bx = x2.x - x0.x, by = x2.y - x0.y, bz = x2.z - x0.z;
    sx += ay * bz - az * by;
    sy += az * bx - ax * bz;
    sz += ax * by - ay * bx;
  }
  float len = sqrt(sx * sx + sy * sy + sz * sz);
  float4 r = (float4)(0.0f);
  if (len > 0.0f) { r.x = sx / len; r.y = sy / len; r.z = sz / len; }
  nrm[i] = r;
}
