/* The footprint of a cloth: the area of its shadow on the horizontal
 * plane (x, z), the quantity a drape test measures (the covered area of
 * a drape over a sphere, the Cusick drape coefficient of ISO 9073-9).
 * Rasterised: each triangle marks the cells of a grid over the cloth's
 * bounding box whose centres it covers, so overlapping folds count once;
 * 1024 cells along the longer side keep the error near 0.1 % for a
 * drape's outline. */
#include "cloth/footprint.h"

#include <math.h>
#include <stdlib.h>

#define FOOTPRINT_CELLS 1024

double dr_footprint_area(const float *x, const uint32_t *tris, int t0, int nt) {
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (int t = t0; t < t0 + nt; t++)
    for (int q = 0; q < 3; q++) {
      const float *p = x + 4 * tris[3 * t + q];
      lo[0] = fmin(lo[0], p[0]), hi[0] = fmax(hi[0], p[0]);
      lo[1] = fmin(lo[1], p[2]), hi[1] = fmax(hi[1], p[2]);
    }
  const double span = fmax(hi[0] - lo[0], hi[1] - lo[1]);
  if (!(span > 0) || !isfinite(span)) return 0;
  const double cell = span / FOOTPRINT_CELLS;
  const int nx = (int)ceil((hi[0] - lo[0]) / cell) + 1, nz = (int)ceil((hi[1] - lo[1]) / cell) + 1;
  unsigned char *hit = calloc((size_t)nx * (size_t)nz, 1);
  if (!hit) return NAN;
  for (int t = t0; t < t0 + nt; t++) {
    const float *a = x + 4 * tris[3 * t], *b = x + 4 * tris[3 * t + 1], *c = x + 4 * tris[3 * t + 2];
    const double ax = a[0], az = a[2], bx = b[0], bz = b[2], cx = c[0], cz = c[2];
    const double det = (bx - ax) * (cz - az) - (cx - ax) * (bz - az);
    if (det == 0) continue; /* seen edge-on (or torn): no area */
    const int i0 = (int)floor((fmin(ax, fmin(bx, cx)) - lo[0]) / cell);
    const int i1 = (int)ceil((fmax(ax, fmax(bx, cx)) - lo[0]) / cell);
    const int j0 = (int)floor((fmin(az, fmin(bz, cz)) - lo[1]) / cell);
    const int j1 = (int)ceil((fmax(az, fmax(bz, cz)) - lo[1]) / cell);
    for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < nx; i++)
      for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < nz; j++) {
        const double px = lo[0] + (i + 0.5) * cell, pz = lo[1] + (j + 0.5) * cell;
        const double u = ((px - ax) * (cz - az) - (cx - ax) * (pz - az)) / det;
        const double v = ((bx - ax) * (pz - az) - (px - ax) * (bz - az)) / det;
        if (u >= 0 && v >= 0 && u + v <= 1) hit[(size_t)i * nz + j] = 1;
      }
  }
  long k = 0;
  for (size_t i = 0; i < (size_t)nx * nz; i++) k += hit[i];
  free(hit);
  return k * cell * cell;
}
