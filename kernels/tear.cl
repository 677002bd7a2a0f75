/* tear.cl — tearing (seed 002 §3, `torn`): a constraint stretched beyond
 * tear_ratio times its rest length breaks for good (its compliance is set
 * to -1, which project_distance skips). Constraints are the four arrays
 * a, b, rest, compliance of project.cl. tear_constraints runs per
 * constraint after each substep; tear_triangles, once per frame, turns a
 * triangle with a torn edge into a degenerate one (i0, i0, i0) so that
 * renderers drawing the index buffer, the OBJ writer and wind skip it. */
__kernel void tear_constraints(__global const float4 *x, __global const int *ca,
                               __global const int *cb, __global const float *crest,
                               __global float *ccomp, __global const int *obj,
                               __global const dr_object *objects, const int n_cons) {
  int k = get_global_id(0);
  if (k >= n_cons) return;
  if (ccomp[k] < 0.0f) return;
  int a = ca[k], b = cb[k];
  float ratio = objects[obj[a]].tear_ratio;
  if (ratio <= 0.0f) return;
  float4 xa = x[a], xb = x[b];
  float dx = xa.x - xb.x, dy = xa.y - xb.y, dz = xa.z - xb.z;
  float lim = ratio * crest[k];
  if (dx * dx + dy * dy + dz * dz > lim * lim) ccomp[k] = -1.0f;
}

__kernel void tear_triangles(__global const float *ccomp, __global uint *tri,
                             __global const int *tri_edge, const int n_tris) {
  int t = get_global_id(0);
  if (t >= n_tris) return;
  int e0 = tri_edge[3 * t], e1 = tri_edge[3 * t + 1], e2 = tri_edge[3 * t + 2];
  if (ccomp[e0] < 0.0f || ccomp[e1] < 0.0f || ccomp[e2] < 0.0f) {
    uint i0 = tri[3 * t];
    tri[3 * t + 1] = i0;
    tri[3 * t + 2] = i0;
  }
}
