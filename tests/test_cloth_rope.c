/* Ropes: the catenary of an inextensible chain (seed 004) and an elastic
 * cable whose sag follows its compliance, not the step count (XPBD,
 * Macklin et al. 2016 §4; seed 003's cable as the reference). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "drape/cable.h"
#include "support.h"

/* Lowest node height of object 0. */
static double lowest_y(drape_sim *sim) {
  const drape_object_info *o = &drape_sim_mesh(sim)->objects[0];
  float *x = read_x(sim);
  double lo = INFINITY;
  for (int i = o->first_particle; i < o->first_particle + o->n_particles; i++)
    if (x[4 * i + 1] < lo) lo = x[4 * i + 1];
  free(x);
  return lo;
}

/* Catenary y = a cosh(x/a) through two pins at equal height `span` apart
 * with arc length L: 2 a sinh(span / 2a) = L (solved by bisection). */
static double catenary_a(double span, double L) {
  double lo = 1e-3, hi = 1e3;
  for (int i = 0; i < 200; i++) {
    double a = 0.5 * (lo + hi);
    if (2 * a * sinh(span / (2 * a)) > L) lo = a;
    else hi = a;
  }
  return 0.5 * (lo + hi);
}

/* The ready scene scenes/hanging_rope.json: a chain of 80 links, 4 m long,
 * pinned at both ends 3 m apart, compliance 0. It settles into the
 * catenary; its sag must be within 1% of the analytic one. More substeps
 * than the scene's 20 (40: a max link stretch of 0.3% instead of 1.2%) and
 * more damping (to settle within the test's 10 s) change neither the
 * model nor the static shape. */
static void test_catenary(void **state) {
  (void)state;
  char path[2048];
  snprintf(path, sizeof path, "%s/scenes/hanging_rope.json", drape_test_source_dir());
  drape_scene s;
  drape_err e = {0};
  if (drape_scene_load(path, &s, &e)) fail_msg("%s", e.msg);
  assert_int_equal(s.n_rope, 1);
  drape_rope_def *r = &s.rope[0];
  assert_true(r->compliance == 0 && r->pin_start && r->pin_end);
  assert_near(r->start[1], r->end[1], 0);
  s.substeps = 40;
  r->damping = 3.0;
  const double span = fabs(r->end[0] - r->start[0]), a = catenary_a(span, r->length);
  const double sag_exact = a * cosh(span / (2 * a)) - a;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  step_frames(sim, 600);
  drape_stats st = get_stats(sim);
  const double sag = r->start[1] - lowest_y(sim);
  print_message("catenary: a = %.5f m, sag %.5f m (analytic %.5f m, %+.2f%%), max link strain "
                "%.2e, KE %.2e J\n", a, sag, sag_exact, 100 * (sag / sag_exact - 1),
                st.objects[0].max_strain, st.kinetic_energy);
  assert_near(sag, sag_exact, 0.01 * sag_exact);
  assert_true(st.kinetic_energy < 1e-3); /* settled */
  /* the whole shape: node i sits at arc length s_i from the lowest point */
  float *x = read_x(sim);
  const int n = r->segments;
  const double mid_x = 0.5 * (r->start[0] + r->end[0]), y0 = r->start[1] - sag_exact;
  double worst = 0;
  for (int i = 0; i <= n; i++) {
    double si = r->length * ((double)i / n - 0.5);
    double cx = mid_x + a * asinh(si / a), cy = y0 + a * (sqrt(1 + (si / a) * (si / a)) - 1);
    double d = hypot(x[4 * i] - cx, x[4 * i + 1] - cy);
    if (d > worst) worst = d;
  }
  print_message("catenary: largest node distance from the analytic curve %.4f m\n", worst);
  assert_true(worst < 0.02 * sag_exact);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* Seed 003's cable: 20 links over 4 m, both ends pinned 4 m apart, k =
 * ym/l0^2 = 1000 N/m per link, so XPBD compliance alpha = 1/k = 1e-3 m/N;
 * rho = 1 kg/m, g = 9.8. */
static void cable_scene(drape_scene *s, int substeps, int iterations, double compliance) {
  drape_scene_init(s);
  s->gravity[1] = -9.8;
  s->substeps = substeps;
  s->iterations = iterations;
  drape_rope_def r = drape_rope_def_default();
  r.segments = 20;
  r.start[0] = 0; r.start[1] = 0;
  r.end[0] = 4; r.end[1] = 0;
  r.length = 4;
  r.mass_per_length = 1;
  r.compliance = compliance;
  r.damping = 3.0; /* settles in seconds; the static sag does not depend on it */
  r.pin_start = r.pin_end = 1;
  drape_scene_add_rope(s, &r);
}

static double cable_sag(int substeps, int iterations, double compliance) {
  drape_scene s;
  cable_scene(&s, substeps, iterations, compliance);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  step_frames(sim, 600);
  double sag = -lowest_y(sim);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
  return sag;
}

/* The static sag of the same cable from the implicit seed 003 solver
 * (double precision Newton on the spring energy, include/drape/cable.h). */
static double cable_static_sag(double ym) {
  double x0[42];
  for (int i = 0; i <= 20; i++) { x0[2 * i] = 0.2 * i; x0[2 * i + 1] = 0; }
  int pins[2] = {0, 20};
  drape_cable_def d = drape_cable_def_default();
  d.nodes = 21; d.dim = 2; d.x0 = x0; d.ym = ym; d.rho = 1;
  d.gravity[0] = 0; d.gravity[1] = -9.8; d.gravity[2] = 0;
  d.n_pins = 2; d.pins = pins;
  drape_err e = {0};
  drape_cable *c = NULL;
  if (drape_cable_create(&d, &c, &e)) fail_msg("%s", e.msg);
  int it = 0;
  if (drape_cable_solve_static(c, 200, 1e-12, &it, &e)) fail_msg("%s", e.msg);
  double sag = -drape_cable_sag(c);
  drape_cable_destroy(c);
  return sag;
}

/* Stiffness follows compliance, not the iteration count: the elastic
 * cable sags the same at 10 and at 40 substeps (and at 4 iterations), and
 * as much as the implicit elastic solution; four times the compliance
 * sags visibly more. */
static void test_compliance_not_iterations(void **state) {
  (void)state;
  const double alpha = 1e-3; /* = l0^2 / ym for ym = 40, l0 = 0.2 */
  double ref = cable_static_sag(40.0);
  double s10 = cable_sag(10, 1, alpha), s40 = cable_sag(40, 1, alpha);
  double s10x4 = cable_sag(10, 4, alpha), soft = cable_sag(10, 1, 4 * alpha);
  double ref_soft = cable_static_sag(10.0);
  print_message("elastic cable sag: static (seed 003 solver) %.4f m; XPBD 10 substeps %.4f, "
                "40 substeps %.4f, 10 x 4 iterations %.4f; 4x compliance %.4f (static %.4f)\n",
                ref, s10, s40, s10x4, soft, ref_soft);
  assert_near(ref, 0.883, 0.0015); /* the seed's printed value */
  assert_near(s10, s40, 0.02 * s40);
  assert_near(s10x4, s40, 0.02 * s40);
  assert_near(s40, ref, 0.02 * ref);
  assert_near(soft, ref_soft, 0.02 * ref_soft);
  assert_true(soft > 1.1 * s10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_catenary),
      cmocka_unit_test(test_compliance_not_iterations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
