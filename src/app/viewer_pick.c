/* Picking a mesh collider with the cursor's ray (viewer.h): the viewer's
 * Shift-drag. Kept apart from the input handling so tests/test_view.c and
 * tests/test_collider_drag.c can compile it in. */
#include <math.h>
#include <stdlib.h>

#include "app/viewer.h"

int vw_pick_collider(const drape_sim *sim, const double o[3], const double d[3], double *t,
                     double hit[3]) {
  int best = -1;
  double bt = INFINITY;
  for (int k = 0; k < drape_sim_n_collider_meshes(sim); k++) {
    int nv, nt;
    if (drape_sim_collider_mesh(sim, k, &nv, &nt, NULL, NULL) || nv <= 0 || nt <= 0) continue;
    float *xyz = malloc(sizeof *xyz * 3 * (size_t)nv);
    uint32_t *tri = malloc(sizeof *tri * 3 * (size_t)nt);
    if (xyz && tri && !drape_sim_collider_mesh(sim, k, &nv, &nt, xyz, tri))
      for (int i = 0; i < nt; i++) {
        double p[3][3], tt;
        for (int c = 0; c < 3; c++)
          for (int q = 0; q < 3; q++) p[c][q] = xyz[3 * (size_t)tri[3 * i + c] + q];
        if (vw_ray_triangle(o, d, p[0], p[1], p[2], &tt) && tt < bt) bt = tt, best = k;
      }
    free(xyz), free(tri);
  }
  if (best < 0) return -1;
  *t = bt;
  for (int q = 0; q < 3; q++) hit[q] = o[q] + bt * d[q];
  return best;
}
