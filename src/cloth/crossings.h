/* Counting edges through triangles, exactly (internal; issue 18): the
 * measure of whether self-collision holds. */
#ifndef DRAPE_CLOTH_CROSSINGS_H
#define DRAPE_CLOTH_CROSSINGS_H

#include <stdint.h>

#include "drape/base.h"

typedef struct dr_crossing_mesh {
  const float *x;          /* point i at x + stride * i (x, y, z)           */
  int stride, n_points;
  const uint32_t *tris;    /* triangles; three equal corners (torn): none   */
  int n_tris;
  const uint32_t *links;   /* segments besides the triangles' edges (ropes) */
  int n_links;
} dr_crossing_mesh;

/* Pairs (edge, triangle) with no shared point where the edge passes
 * through the triangle's interior: its ends strictly on either side of the
 * triangle's plane and the line through them strictly inside the three
 * edges, every sign exact (core/exact.h). The edges are the triangles'
 * unique edges and the links. Touching (a sign of 0) is not a crossing. */
int dr_count_crossings(const dr_crossing_mesh *m, long *count, drape_err *e);

#endif
