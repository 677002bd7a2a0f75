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

int dr_colour_greedy(const dr_distance *c, int n, int n_particles, int *colour,
                        int *n_colours, drape_err *e) {
  return dr_colour_greedy_ordered(c, n, n_particles, NULL, colour, n_colours, e);
}

int dr_colour_greedy_ordered(const dr_distance *c, int n, int n_particles, const int *order,
                                int *colour, int *n_colours, drape_err *e) {
  uint64_t *used = calloc((size_t)(n_particles > 0 ? n_particles : 1), sizeof *used);
  if (!used) return drape_fail(e, DRAPE_ENOMEM, "out of memory colouring %d particles", n_particles);
  int max_colour = -1;
  for (int j = 0; j < n; j++) {
    const int i = order ? order[j] : j;
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

/* Why: a work item of project_distance otherwise fetches its 16 particles
 * one by one through 16 indices (PoCL: the index arithmetic and the
 * transposes cost more than the projection itself); for the patterns the
 * grid builder's order produces it can load them as whole vectors. */
static int group_pattern(const dr_distance *c) {
  static const int pairs[DR_PROJECT_LANES] = {0, 1, 4, 5, 8, 9, 12, 13};
  int contig = 1, evenodd = 1, pair = 1;
  const int a0 = c[0].a, b0 = c[0].b;
  for (int L = 0; L < DR_PROJECT_LANES; L++) {
    const int a = c[L].a, b = c[L].b;
    contig &= a == a0 + L && b == b0 + L;
    evenodd &= a == a0 + 2 * L && b == a + 1;
    pair &= a == a0 + pairs[L] && b == a + 2;
  }
  return contig ? DR_GROUP_CONTIG : evenodd ? DR_GROUP_EVENODD : pair ? DR_GROUP_PAIRS
                                                                     : DR_GROUP_GATHER;
}

int dr_colour_sort(dr_distance *c, int n, const int *colour, int n_colours, int *offsets,
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
   * neighbouring constraints stay neighbours in memory (and the grid's
   * rows give the vector patterns below) */
  for (int i = 0; i < n; i++) {
    int dst = offsets[colour[i]] + fill[colour[i]]++;
    tmp[dst] = c[i];
    if (new_index) new_index[i] = dst;
  }
  /* Inside each colour, runs of DR_PROJECT_LANES constraints that match a
   * vector pattern go first, in order, and the others after them: a grid
   * row whose count is not a multiple of 8 would otherwise shift every
   * later group off the pattern. Within a colour no two constraints share
   * a particle, so this order changes no result. */
  int *pos = malloc((size_t)(n > 0 ? n : 1) * sizeof *pos);
  int *left = malloc((size_t)(n > 0 ? n : 1) * sizeof *left);
  if (!pos || !left) {
    free(tmp); free(fill); free(pos); free(left);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory sorting %d constraints", n);
  }
  for (int k = 0; k < n_colours; k++) {
    const int lo = offsets[k], hi = offsets[k + 1];
    int out = lo, n_left = 0;
    for (int i = lo; i < hi;) {
      if (i + DR_PROJECT_LANES <= hi && group_pattern(tmp + i) != DR_GROUP_GATHER) {
        for (int L = 0; L < DR_PROJECT_LANES; L++) pos[i + L] = out++;
        i += DR_PROJECT_LANES;
      } else {
        left[n_left++] = i++;
      }
    }
    for (int j = 0; j < n_left; j++) pos[left[j]] = out++;
  }
  for (int i = 0; i < n; i++) c[pos[i]] = tmp[i];
  if (new_index)
    for (int i = 0; i < n; i++) new_index[i] = pos[new_index[i]];
  free(pos);
  free(left);
  free(tmp);
  free(fill);
  return DRAPE_OK;
}

int dr_colour_valid(const dr_distance *c, const int *offsets, int n_colours, int n_particles,
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

int dr_colour_n_groups(const int *offsets, int n_colours) {
  int g = 0;
  for (int k = 0; k < n_colours; k++)
    g += (offsets[k + 1] - offsets[k] + DR_PROJECT_LANES - 1) / DR_PROJECT_LANES;
  return g;
}

void dr_colour_lane_patterns(const dr_distance *c, const int *offsets, int n_colours,
                                unsigned char *pattern, int *group_off, long long counts[4]) {
  if (counts) memset(counts, 0, 4 * sizeof *counts);
  int g = 0;
  for (int k = 0; k < n_colours; k++) {
    group_off[k] = g;
    for (int q = offsets[k]; q < offsets[k + 1]; q += DR_PROJECT_LANES, g++) {
      const int p = q + DR_PROJECT_LANES <= offsets[k + 1] ? group_pattern(c + q) : DR_GROUP_GATHER;
      pattern[g] = (unsigned char)p;
      if (counts) counts[p]++;
    }
  }
  group_off[n_colours] = g;
}
