/* Graph colouring of distance constraints: constraints of one colour share
 * no particle, so one kernel launch per colour projects them all in
 * parallel without races (a Gauss-Seidel sweep over colours, Jacobi within
 * a colour, which for disjoint constraints is the same thing).
 *
 * Greedy colouring uses at most (max constraints at one particle) + 1
 * colours. A grid particle touches 12 constraints (4 structural, 4 shear,
 * 4 bending), so 12 is the lower bound and 13 the greedy bound. The mesh
 * builder (model.c) emits constraints by family and direction (horizontal
 * structural, vertical structural, one diagonal, the other, horizontal
 * bend, vertical bend), row by row; greedy then gives every family two
 * alternating colours and reaches the lower bound of 12. Emitting them per
 * particle instead (seed 002's loop order) mixes the families and costs
 * more colours (tests/test_cloth_colour.c measures both).
 * Alternative rejected: a fixed analytic colouring of the grid pattern; the
 * greedy one works for any constraint list (ropes, future meshes). */
#include "core/colour.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int drape_colour_greedy(const dr_distance *c, int n, int n_particles, int *colour,
                        int *n_colours, drape_err *e) {
  uint64_t *used = calloc((size_t)(n_particles > 0 ? n_particles : 1), sizeof *used);
  if (!used) return drape_fail(e, DRAPE_ENOMEM, "out of memory colouring %d particles", n_particles);
  int max_colour = -1;
  for (int i = 0; i < n; i++) {
    int a = c[i].a, b = c[i].b;
    if (a < 0 || b < 0 || a >= n_particles || b >= n_particles || a == b) {
      free(used);
      return drape_fail(e, DRAPE_EINVAL, "constraint %d joins particles %d and %d: expected two "
                        "different indices in 0..%d", i, a, b, n_particles - 1);
    }
    uint64_t taken = used[a] | used[b];
    if (taken == UINT64_MAX) {
      free(used);
      return drape_fail(e, DRAPE_EINVAL, "constraint %d (particles %d, %d) needs more than %d "
                        "colours", i, a, b, DRAPE_MAX_COLOURS);
    }
    int k = 0;
    while (taken & ((uint64_t)1 << k)) k++;
    colour[i] = k;
    used[a] |= (uint64_t)1 << k;
    used[b] |= (uint64_t)1 << k;
    if (k > max_colour) max_colour = k;
  }
  free(used);
  *n_colours = max_colour + 1;
  return DRAPE_OK;
}

int drape_colour_sort(dr_distance *c, int n, const int *colour, int n_colours, int *offsets,
                      int *new_index, drape_err *e) {
  dr_distance *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
  int *fill = calloc((size_t)n_colours + 1, sizeof *fill);
  if (!tmp || !fill) {
    free(tmp);
    free(fill);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory sorting %d constraints", n);
  }
  memset(offsets, 0, sizeof(int) * ((size_t)n_colours + 1));
  for (int i = 0; i < n; i++) offsets[colour[i] + 1]++;
  for (int k = 0; k < n_colours; k++) offsets[k + 1] += offsets[k];
  /* counting sort keeps the input order inside each colour, so spatially
   * neighbouring constraints stay neighbours in memory */
  for (int i = 0; i < n; i++) {
    int dst = offsets[colour[i]] + fill[colour[i]]++;
    tmp[dst] = c[i];
    if (new_index) new_index[i] = dst;
  }
  memcpy(c, tmp, (size_t)n * sizeof *c);
  free(tmp);
  free(fill);
  return DRAPE_OK;
}

int drape_colour_valid(const dr_distance *c, const int *offsets, int n_colours, int n_particles,
                       int *bad_colour) {
  int *stamp = malloc((size_t)(n_particles > 0 ? n_particles : 1) * sizeof *stamp);
  if (!stamp) return 0;
  for (int i = 0; i < n_particles; i++) stamp[i] = -1;
  int ok = 1;
  for (int k = 0; k < n_colours && ok; k++) {
    for (int i = offsets[k]; i < offsets[k + 1]; i++) {
      int a = c[i].a, b = c[i].b;
      if (a < 0 || b < 0 || a >= n_particles || b >= n_particles || a == b || stamp[a] == k ||
          stamp[b] == k) {
        ok = 0;
        if (bad_colour) *bad_colour = k;
        break;
      }
      stamp[a] = k;
      stamp[b] = k;
    }
  }
  free(stamp);
  return ok;
}
