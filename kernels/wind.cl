/* wind.cl — aerodynamic force on each cloth triangle (seed 002 §8): along
 * the triangle's normal, proportional to the normal component of the wind
 * relative to the triangle's mean velocity and to its area:
 *   F = drag * area * ((w - v_tri) . n) n,   a third to each corner.
 * Two passes instead of float atomics: wind_triangles writes one force per
 * triangle, wind_gather sums, per particle, the forces of the triangles
 * around it (vertex->triangle lists built once) in a fixed order and adds
 * h * w_i * F to its velocity. Runs before predict. */
__kernel void wind_triangles(__global const float4 *x, __global const float4 *v,
                             __global const uint *tri, __global float4 *tri_force,
                             const dr_step_params sp, const int n_tris) {
  int t = get_global_id(0);
  if (t >= n_tris) return;
  uint i0 = tri[3 * t], i1 = tri[3 * t + 1], i2 = tri[3 * t + 2];
  float4 x0 = x[i0], x1 = x[i1], x2 = x[i2];
  float ax = x1.x - x0.x, ay = x1.y - x0.y, az = x1.z - x0.z;
  float bx = x2.x - x0.x, by = x2.y - x0.y, bz = x2.z - x0.z;
  float cx = ay * bz - az * by;
  float cy = az * bx - ax * bz;
  float cz = ax * by - ay * bx;
  float len = sqrt(cx * cx + cy * cy + cz * cz);
  float4 f = (float4)(0.0f);
  if (len > 0.0f) {
    float4 v0 = v[i0], v1 = v[i1], v2 = v[i2];
    float third = 1.0f / 3.0f;
    float rx = sp.wind.x - (v0.x + v1.x + v2.x) * third;
    float ry = sp.wind.y - (v0.y + v1.y + v2.y) * third;
    float rz = sp.wind.z - (v0.z + v1.z + v2.z) * third;
    float nx = cx / len, ny = cy / len, nz = cz / len;
    float vn = rx * nx + ry * ny + rz * nz;
    /* area = len / 2; a third of the force to each corner */
    float s = sp.wind.w * (0.5f * len) * vn * third;
    f.x = s * nx; f.y = s * ny; f.z = s * nz;
  }
  tri_force[t] = f;
}

__kernel void wind_gather(__global const float4 *x, __global float4 *v,
                          __global const float4 *tri_force, __global const int *vt_off,
                          __global const int *vt_list, const dr_step_params sp) {
  int i = get_global_id(0);
  if (i >= sp.n_particles) return;
  int b = vt_off[i], e = vt_off[i + 1];
  float w = x[i].w;
  if (b == e || w == 0.0f) return;
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  for (int k = b; k < e; k++) {
    float4 f = tri_force[vt_list[k]];
    fx += f.x; fy += f.y; fz += f.z;
  }
  float s = sp.h * w;
  float4 vi = v[i];
  vi.x = vi.x + s * fx;
  vi.y = vi.y + s * fy;
  vi.z = vi.z + s * fz;
  v[i] = vi;
}
