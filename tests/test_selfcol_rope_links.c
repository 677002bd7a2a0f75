/* Issue 18's rope links (kernels/selfcol.cl, sc_rope_link_edges and
 * sc_rope_link_links) on the coils of scenes/rope_coils.json (a rope laid
 * by "points" in three coils of a helix, dropped onto a 32x32 cloth that
 * falls onto a sphere; self-collision and step bounds on the cloth):
 *  - rope links against cloth edges: the coils laid with 28 links of 10 cm
 *    (10 thicknesses, over three cloth spacings). Met only at its nodes,
 *    the links cut through the cloth draped on the sphere (chords of a
 *    convex surface: 8 crossings at most, from frame 14, with the
 *    edge-edge pass off, selfcol_set_edge_off, and the links out of the
 *    step bounds, selfcol_set_link_bounds_off); with the link contacts
 *    zero at every one of 30 frames (exact count), and with the links'
 *    step bounds alone (edge-edge pass off) zero as well;
 *  - rope links against rope links: the coils (2 cm links) pile on each
 *    other as they land; the closest two links sharing no node (double
 *    precision, every pair) stay above 0.8 thickness at every 3rd frame
 *    of 36 (0.992), where with the edge-edge pass off the upper turns sink
 *    into the lower ones (0.000);
 *  - same bits: CPU reference = OpenCL vector form twice = GPU form over
 *    the first 18 frames of the scene (the rope lands on the cloth and its
 *    turns on each other: closest links within 1.05 thickness by then). */
#include <math.h>

#include "cloth/selfcol.h"
#include "selfcol_cases.h"

/* Relays rope 0 of sc on the helix of scenes/rope_coils.json (three turns
 * of radius 0.15 m rising 4 cm a turn from y = 0.95) with `segments`
 * links, its length the polyline's. */
static void relay_coils(drape_scene *sc, int segments) {
  drape_rope_def *r = &sc->rope[0];
  free(r->points);
  r->segments = segments;
  r->n_points = segments + 1;
  r->points = calloc((size_t)r->n_points, sizeof *r->points);
  assert_non_null(r->points);
  const double R = 0.15, pitch = 0.04, turns = 3, y0 = 0.95, pi = 3.14159265358979323846;
  r->length = 0;
  for (int j = 0; j <= segments; j++) {
    const double a = 2 * pi * turns * j / segments;
    r->points[j][0] = R * cos(a);
    r->points[j][1] = y0 + pitch * turns * j / segments;
    r->points[j][2] = R * sin(a);
    if (j) {
      const double *u = r->points[j - 1], *v = r->points[j];
      r->length += sqrt((v[0] - u[0]) * (v[0] - u[0]) + (v[1] - u[1]) * (v[1] - u[1]) +
                        (v[2] - u[2]) * (v[2] - u[2]));
    }
  }
}

/* Closest points of two segments in double (Ericson §5.1.9, written out
 * again so the check does not share code with the solver): distance. */
static double seg_seg(const double *p1, const double *q1, const double *p2, const double *q2) {
  double d1[3], d2[3], r[3];
  for (int k = 0; k < 3; k++) d1[k] = q1[k] - p1[k], d2[k] = q2[k] - p2[k], r[k] = p1[k] - p2[k];
#define DOT3(u, v) (u[0] * v[0] + u[1] * v[1] + u[2] * v[2])
  const double a = DOT3(d1, d1), e = DOT3(d2, d2), f = DOT3(d2, r), c = DOT3(d1, r),
               b = DOT3(d1, d2);
#undef DOT3
  double s = 0, t = 0;
  const double den = a * e - b * b;
  s = den > 0 ? fmin(fmax((b * f - c * e) / den, 0), 1) : 0;
  t = (b * s + f) / e;
  if (t < 0) t = 0, s = fmin(fmax(-c / a, 0), 1);
  else if (t > 1) t = 1, s = fmin(fmax((b - c) / a, 0), 1);
  double dd = 0;
  for (int k = 0; k < 3; k++) {
    const double u = p1[k] + s * d1[k] - p2[k] - t * d2[k];
    dd += u * u;
  }
  return sqrt(dd);
}

/* The smallest distance between two links of rope 0 that share no node. */
static double rope_gap(drape_sim *sim, const drape_scene *sc) {
  const int first = sc->cloth[0].rows * sc->cloth[0].cols, m = sc->rope[0].segments;
  float *x = read_x(sim);
  double best = INFINITY;
  for (int i = 0; i < m; i++)
    for (int j = i + 2; j < m; j++) {
      double a[3], b[3], c[3], d[3];
      for (int k = 0; k < 3; k++) {
        a[k] = x[4 * (first + i) + k], b[k] = x[4 * (first + i + 1) + k];
        c[k] = x[4 * (first + j) + k], d[k] = x[4 * (first + j + 1) + k];
      }
      best = fmin(best, seg_seg(a, b, c, d));
    }
  free(x);
  return best;
}

static double coils_closest(const drape_scene *sc, int frames) {
  drape_sim *sim = make_sim_form(sc, DRAPE_BACKEND_CL, DRAPE_KERNEL_FORM_AUTO);
  double least = INFINITY;
  for (int f = 1; f <= frames; f++) {
    step_frames(sim, 1);
    if (f % 3) continue;
    const double g = rope_gap(sim, sc);
    if (g < least) least = g;
    if (f % 12 == 0) fprintf(stderr, "  frame %d: closest links %.4f m\n", f, g);
  }
  drape_sim_destroy(sim);
  return least;
}

static void test_rope_on_rope(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/rope_coils.json", &sc);
  const double t = sc.rope[0].thickness;
  const double on = coils_closest(&sc, 36);
  selfcol_set_edge_off(1);
  const double off = coils_closest(&sc, 36);
  selfcol_set_edge_off(0);
  print_message("  coils: closest links %.3f t with the link contacts, %.3f t without\n", on / t,
                off / t);
  assert_true(on > 0.8 * t);
  assert_true(off < 0.5 * t);
  drape_scene_free(&sc);
}

/* Long links: the link contacts keep them out of the cloth, and so do the
 * links' step bounds alone (edge-edge pass off, selfcol_set_edge_off);
 * with neither (the links out of the bounds too,
 * selfcol_set_link_bounds_off) they cut through it. */
static void test_rope_long_links(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/rope_coils.json", &sc);
  relay_coils(&sc, 28);
  const case_run on = case_run_counting(&sc, 30, 1, "coils of 10 cm links, link contacts");
  selfcol_set_edge_off(1);
  const case_run bounds = case_run_counting(&sc, 30, 1, "coils of 10 cm links, bounds only");
  selfcol_set_link_bounds_off(1);
  const case_run off = case_run_counting(&sc, 30, 1, "coils of 10 cm links, nodes only");
  selfcol_set_link_bounds_off(0);
  selfcol_set_edge_off(0);
  assert_int_equal(on.most, 0);
  assert_int_equal(bounds.most, 0);
  assert_true(off.most > 0);
  drape_scene_free(&sc);
}

static void test_rope_links_bits(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/rope_coils.json", &sc);
  case_same_bits(&sc, 18, "rope coils, landing");
  /* the window holds link contacts with the rope's own links: its turns
   * lie on each other one thickness apart by frame 15 */
  drape_sim *sim = make_sim_form(&sc, DRAPE_BACKEND_CL, DRAPE_KERNEL_FORM_AUTO);
  step_frames(sim, 18);
  const double g = rope_gap(sim, &sc);
  print_message("  closest links after 18 frames: %.3f t\n", g / sc.rope[0].thickness);
  assert_true(g < 1.05 * sc.rope[0].thickness);
  drape_sim_destroy(sim);
  drape_scene_free(&sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rope_links_bits),
      cmocka_unit_test(test_rope_long_links),
      cmocka_unit_test(test_rope_on_rope),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
