/* Meshes shared by the crossing-count tests (test_crossings: the host
 * reference; test_crossings_device: the OpenCL count against it). */
#ifndef DRAPE_TEST_CROSSING_FIXTURE_H
#define DRAPE_TEST_CROSSING_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/crossings.h"

/* The triangles of an n x n grid of points numbered from first, row by
 * row, two per cell; *nt gets their count. */
static inline uint32_t *grid_tris(int n, int first, int *nt) {
  uint32_t *t = malloc(sizeof *t * 6 * (size_t)(n - 1) * (n - 1));
  int k = 0;
  for (int r = 0; r + 1 < n; r++)
    for (int c = 0; c + 1 < n; c++) {
      const uint32_t a = (uint32_t)(first + r * n + c), b = a + 1, d = a + (uint32_t)n, e = d + 1;
      t[k++] = a, t[k++] = b, t[k++] = e, t[k++] = a, t[k++] = e, t[k++] = d;
    }
  *nt = k / 3;
  return t;
}

/* Two n x n sheets cutting through each other: A in y = 0 (x, z in
 * 0..n-1), B in z = z0 (x in 0..n-1, y from -h to +h), rows of B
 * straddling y = 0; 4n - 5 crossings (test_crossings derives it). The
 * caller frees *x and *t. */
static inline dr_crossing_mesh two_sheets(int n, double z0, double h, float **x, uint32_t **t) {
  *x = malloc(sizeof(float) * 3 * 2 * (size_t)(n * n));
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      float *a = *x + 3 * (r * n + c), *b = *x + 3 * (n * n + r * n + c);
      a[0] = (float)c, a[1] = 0, a[2] = (float)r;
      b[0] = (float)c + 0.31f, b[1] = (float)(-h + 2 * h * r / (n - 1) + 0.123), b[2] = (float)z0;
    }
  int nta, ntb;
  uint32_t *ta = grid_tris(n, 0, &nta), *tb = grid_tris(n, n * n, &ntb);
  *t = malloc(sizeof **t * 3 * (size_t)(nta + ntb));
  memcpy(*t, ta, sizeof **t * 3 * (size_t)nta);
  memcpy(*t + 3 * nta, tb, sizeof **t * 3 * (size_t)ntb);
  free(ta), free(tb);
  return (dr_crossing_mesh){*x, 3, 2 * n * n, *t, nta + ntb, NULL, 0};
}

#endif
