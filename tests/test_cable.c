/* The implicit cable of seed 003: the seed's sag, its integrator claims on
 * a single spring, and the Newton solver's invariants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "drape/cable.h"

/* Seed 003 §3's CableSim: 21 nodes over 4 m, pinned at both ends 4 m
 * apart, ym = 40, rho = 1, g = 9.8. */
static drape_cable *seed_cable(drape_cable_integrator integ, double h, double *x0) {
  enum { N = 21 };
  for (int i = 0; i < N; i++) {
    x0[2 * i] = 4.0 * i / (N - 1);
    x0[2 * i + 1] = 0.0;
  }
  static const int pins[2] = {0, N - 1};
  drape_cable_def d = drape_cable_def_default();
  d.nodes = N;
  d.x0 = x0;
  d.ym = 40.0;
  d.rho = 1.0;
  d.gravity[1] = -9.8;
  d.h = h;
  d.integrator = integ;
  d.n_pins = 2;
  d.pins = pins;
  drape_err e = {0};
  drape_cable *c = NULL;
  if (drape_cable_create(&d, &c, &e)) fprintf(stderr, "%s\n", e.msg);
  return c;
}

/* The seed prints "static: max sag = 0.883" (and |grad| ~ 4e-8). */
static void test_static_sag_matches_seed(void **state) {
  (void)state;
  double x0[42];
  drape_cable *c = seed_cable(DRAPE_CABLE_BACKWARD_EULER, 0.04, x0);
  assert_non_null(c);
  drape_err e = {0};
  int iters = 0;
  assert_int_equal(drape_cable_solve_static(c, 200, 1e-10, &iters, &e), 0);
  double sag = -drape_cable_sag(c);
  print_message("static sag %.6f m after %d Newton iterations\n", sag, iters);
  assert_near(sag, 0.883, 1e-3);
  /* Symmetric about the middle, and the pins did not move. */
  const double *x = drape_cable_positions(c);
  for (int i = 0; i < 21; i++) assert_near(x[2 * i + 1], x[2 * (20 - i) + 1], 1e-9);
  assert_near(x[0], 0.0, 0.0);
  assert_near(x[40], 4.0, 0.0);
  drape_cable_destroy(c);
}

/* The dynamic Backward Euler run from rest rings down to the same sag. */
static void test_dynamic_settles_to_static(void **state) {
  (void)state;
  double x0[42];
  drape_cable *c = seed_cable(DRAPE_CABLE_BACKWARD_EULER, 0.04, x0);
  drape_err e = {0};
  double max_sag = 0;
  for (int s = 0; s < 1500; s++) { /* 60 s */
    assert_int_equal(drape_cable_step(c, &e), 0);
    max_sag = fmax(max_sag, -drape_cable_sag(c));
  }
  double sag = -drape_cable_sag(c);
  drape_cable_energy en = drape_cable_energies(c);
  print_message("dynamic BE sag %.6f m, peak %.4f m, final KE %.3g J\n", sag, max_sag, en.kinetic);
  assert_near(sag, 0.883, 1e-3);
  assert_true(max_sag > sag + 0.01); /* it overshot, as the seed shows */
  assert_true(en.kinetic < 1e-6);
  drape_cable_destroy(c);
}

/* On the cable, BDF2's numerical damping is far smaller than Backward
 * Euler's (second vs first order): after 10 s from the same start it keeps
 * much more of the motion. (With no material damping the cable then keeps
 * swinging, so BDF2's sag is not compared with the static one here.) */
static void test_bdf2_damps_less_than_be(void **state) {
  (void)state;
  double x0[42], x1[42];
  drape_cable *be = seed_cable(DRAPE_CABLE_BACKWARD_EULER, 0.04, x0);
  drape_cable *bdf = seed_cable(DRAPE_CABLE_BDF2, 0.04, x1);
  drape_err e = {0};
  for (int s = 0; s < 250; s++) {
    assert_int_equal(drape_cable_step(be, &e), 0);
    assert_int_equal(drape_cable_step(bdf, &e), 0);
  }
  double ke_be = drape_cable_energies(be).kinetic, ke_bdf = drape_cable_energies(bdf).kinetic;
  print_message("after 10 s: KE BE %.3g J, BDF2 %.3g J\n", ke_be, ke_bdf);
  assert_true(ke_bdf > 10.0 * ke_be);
  drape_cable_destroy(be);
  drape_cable_destroy(bdf);
}

/* Seed 003 §2: one spring (k = m = 1, l0 = 1), node 0 pinned, node 1
 * displaced by u = 1 at rest, h = 0.1, three periods (188 steps). Forward
 * Euler gains energy, Backward Euler loses it, BDF2 holds it. The spring is
 * run through the cable solver itself (2 nodes, no gravity), so this checks
 * the production integrators, not a copy of the seed's 2x2 maps. */
static double spring_energy_after(drape_cable_integrator integ, double *e_min, double *e_max) {
  /* Rest length 10 and displacement 1 keep the link far from zero length,
   * so the 1-D spring is exactly the seed's linear oscillator. */
  double x0[4] = {0, 0, 11.0, 0};
  static const int pin[1] = {0};
  drape_cable_def d = drape_cable_def_default();
  d.nodes = 2;
  d.x0 = x0;
  d.rest_length = 10.0;
  d.ym = 100.0; /* k = ym / l0^2 = 1 N/m */
  d.rho = 0.2;  /* the free end gets rho * l0 / 2 = 1 kg */
  d.gravity[1] = 0;
  d.h = 0.1;
  d.integrator = integ;
  d.n_pins = 1;
  d.pins = pin;
  d.tol = 1e-13;
  drape_err e = {0};
  drape_cable *c = NULL;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_OK);
  assert_non_null(c);
  int steps = (int)lround(3 * 2 * 3.14159265358979323846 / 0.1);
  *e_min = INFINITY;
  *e_max = -INFINITY;
  double en = 0;
  for (int s = 0; s < steps; s++) {
    assert_int_equal(drape_cable_step(c, &e), 0);
    drape_cable_energy E = drape_cable_energies(c);
    en = E.kinetic + E.elastic;
    *e_min = fmin(*e_min, en);
    *e_max = fmax(*e_max, en);
    /* The motion stays on the line of the spring. */
    assert_near(drape_cable_positions(c)[3], 0.0, 1e-12);
  }
  drape_cable_destroy(c);
  return en;
}

static void test_single_spring_integrators(void **state) {
  (void)state;
  const double e0 = 0.5; /* 1/2 k u^2 */
  double lo, hi;
  double fe = spring_energy_after(DRAPE_CABLE_FORWARD_EULER, &lo, &hi);
  /* FE amplifies energy by (1 + h^2 k/m) per step: 1.01^188 = 6.5. */
  print_message("energy after 3 periods: FE %.4f", fe);
  assert_true(fe > 5.0 * e0);
  assert_near(fe, e0 * pow(1.01, 188), 1e-6 * fe);
  double be = spring_energy_after(DRAPE_CABLE_BACKWARD_EULER, &lo, &hi);
  print_message(", BE %.4f", be);
  assert_true(be < 0.2 * e0);
  assert_near(be, e0 / pow(1.01, 188), 1e-6);
  assert_true(hi <= e0 + 1e-12); /* never gains */
  double bdf = spring_energy_after(DRAPE_CABLE_BDF2, &lo, &hi);
  print_message(", BDF2 %.4f (range %.4f..%.4f)\n", bdf, lo, hi);
  /* Nearly constant: within 5% over three periods (FE: +550%, BE: -85%). */
  assert_true(fabs(bdf - e0) < 0.05 * e0);
  assert_true(lo > 0.9 * e0 && hi < 1.05 * e0);
}

/* A failed create leaves *out NULL even when it held something: callers
 * may destroy it unconditionally. */
static char stale_byte;
#define STALE ((drape_cable *)(void *)&stale_byte)

static void test_bad_input(void **state) {
  (void)state;
  double x0[4] = {0, 0, 1, 0};
  drape_cable_def d = drape_cable_def_default();
  drape_err e = {0};
  drape_cable *c = STALE;
  d.nodes = 1;
  d.x0 = x0;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_null(c);
  assert_non_null(strstr(e.msg, "nodes = 1"));
  d.nodes = 2;
  d.ym = -3;
  c = STALE;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_null(c);
  assert_non_null(strstr(e.msg, "ym = -3"));
  d.ym = 40;
  /* Negative values are refused, not taken as "default" (only 0 is). */
  d.max_newton = -1;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "max_newton = -1"));
  d.max_newton = 20;
  d.rest_length = -1;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rest_length = -1"));
  d.rest_length = 0;
  d.n_pins = 1; /* and no array */
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "n_pins = 1"));
  d.n_pins = 0;
  x0[2] = NAN;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_null(c);
  assert_non_null(strstr(e.msg, "NaN"));
  assert_int_equal(drape_cable_create(NULL, &c, &e), DRAPE_EINVAL);
  assert_int_equal(drape_cable_create(&d, NULL, &e), DRAPE_EINVAL);
  drape_cable_destroy(NULL); /* a no-op, as every destroy */
}

/* A zeroed def means the defaults (include/drape/cable.h): only nodes and
 * x0 are required, and each is named when missing; gravity is taken as
 * given. The zeroed def plus the seed's gravity steps bit for bit like
 * drape_cable_def_default() with the same nodes, x0 and pins. */
static void test_zero_def_means_defaults(void **state) {
  (void)state;
  enum { N = 21 };
  double x0[2 * N];
  for (int i = 0; i < N; i++) x0[2 * i] = 4.0 * i / (N - 1), x0[2 * i + 1] = 0;
  static const int pins[2] = {0, N - 1};
  drape_cable_def z;
  memset(&z, 0, sizeof z);
  drape_err e = {0};
  drape_cable *a = STALE, *b = NULL;
  assert_int_equal(drape_cable_create(&z, &a, &e), DRAPE_EINVAL);
  assert_null(a);
  assert_non_null(strstr(e.msg, "cable nodes = 0"));
  z.nodes = N;
  assert_int_equal(drape_cable_create(&z, &a, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cable x0 = NULL"));
  z.x0 = x0;
  z.n_pins = 2;
  z.pins = pins;
  z.gravity[1] = -9.8;
  drape_cable_def d = drape_cable_def_default();
  d.nodes = N;
  d.x0 = x0;
  d.n_pins = 2;
  d.pins = pins;
  assert_int_equal(drape_cable_create(&z, &a, &e), DRAPE_OK);
  assert_int_equal(drape_cable_create(&d, &b, &e), DRAPE_OK);
  assert_int_equal(drape_cable_nodes(a), N);
  for (int s = 0; s < 25; s++) { /* 1 s at the default h = 0.04 s */
    assert_int_equal(drape_cable_step(a, &e), DRAPE_OK);
    assert_int_equal(drape_cable_step(b, &e), DRAPE_OK);
  }
  assert_memory_equal(drape_cable_positions(a), drape_cable_positions(b), sizeof x0);
  /* It moved: the default ym/rho/h took effect (a 0 ym or h cannot step). */
  print_message("zeroed def after 1 s: sag %.6f m, %d Newton iterations\n",
                drape_cable_sag(a), drape_cable_last_iterations(a));
  assert_true(drape_cable_sag(a) < -0.5);
  drape_cable_destroy(a);
  drape_cable_destroy(b);
  /* Gravity is not defaulted: zeroed, a cable at rest stays put. */
  z.gravity[1] = 0;
  assert_int_equal(drape_cable_create(&z, &a, &e), DRAPE_OK);
  assert_int_equal(drape_cable_step(a, &e), DRAPE_OK);
  assert_memory_equal(drape_cable_positions(a), x0, sizeof x0);
  drape_cable_destroy(a);
}

/* Issue 13: what the solve cannot represent is refused at create (a rest
 * length of 1e-300 m made k = ym/l0^2 infinite), and a non-finite state is
 * named by its first node. */
static void test_unrepresentable_refused(void **state) {
  (void)state;
  double x0[6] = {0, 0, 1, 0, 2, 0};
  drape_cable_def d = drape_cable_def_default();
  d.nodes = 3;
  d.x0 = x0;
  d.rest_length = 1e-300;
  drape_err e = {0};
  drape_cable *c = STALE;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_null(c);
  assert_int_equal(e.code, DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rest length = 1e-300 m"));
  assert_non_null(strstr(e.msg, "stiffness ym/l0^2 = inf"));
  d.rest_length = 0;
  d.h = 1e-300;
  assert_int_equal(drape_cable_create(&d, &c, &e), DRAPE_EINVAL);
  assert_null(c);
  assert_non_null(strstr(e.msg, "m/h^2 = inf"));
}

static void test_nonfinite_names_the_node(void **state) {
  (void)state;
  double x0[42];
  /* Backward Euler: a support moved to NaN from outside. */
  drape_cable *c = seed_cable(DRAPE_CABLE_BACKWARD_EULER, 0.04, x0);
  drape_err e = {0};
  assert_int_equal(drape_cable_step(c, &e), DRAPE_OK);
  const double bad[2] = {NAN, 0.0};
  drape_cable_set_pin(c, 20, bad);
  assert_int_equal(drape_cable_step(c, &e), DRAPE_EUNSTABLE);
  print_message("%s\n", e.msg);
  assert_non_null(strstr(e.msg, "node 20 position = (nan, 0)"));
  drape_cable_destroy(c);
  /* Forward Euler at 10x its stable step overflows: named by node too. */
  c = seed_cable(DRAPE_CABLE_FORWARD_EULER, 0.4, x0);
  int rc = DRAPE_OK, steps = 0;
  while (!rc && steps < 100000) rc = drape_cable_step(c, &e), steps++;
  print_message("forward Euler, h = 0.4 s: step %d: %s\n", steps, e.msg);
  assert_int_equal(rc, DRAPE_EUNSTABLE);
  assert_non_null(strstr(e.msg, "cable diverged: node "));
  assert_non_null(strstr(e.msg, "after a forward Euler step"));
  drape_cable_destroy(c);
}

/* The frame loop's cables (src/world/cables.c, in the library):
 * a non-finite state stops the frame with the rope's name, the frame, its
 * time and the node, as `drape run` reports every divergence. */
#include "world/cables.h"

static void test_run_cables_names_rope_frame_node(void **state) {
  (void)state;
  drape_scene sc;
  drape_scene_init(&sc);
  sc.dt = 0.02;
  sc.substeps = 2;
  drape_rope_def r = drape_rope_def_default();
  snprintf(r.name, sizeof r.name, "chain");
  r.solver = DRAPE_SOLVER_IMPLICIT;
  r.segments = 10;
  r.start[0] = -1, r.start[1] = 2;
  r.end[0] = 1, r.end[1] = 2;
  r.length = 2;
  r.mass_per_length = 1;
  r.ym = 40;
  r.pin_start = 1;
  r.pin_end = 1;
  sc.rope = &r;
  sc.n_rope = 1;
  run_cables *rc = NULL;
  drape_scene view;
  drape_err e = {0};
  assert_int_equal(run_cables_prepare(&sc, &rc, &view, &e), DRAPE_OK);
  assert_int_equal(run_cables_count(rc), 1);
  assert_int_equal(run_cables_step(rc, 1, &e), DRAPE_OK);
  const double bad[3] = {1.0, INFINITY, 0.0};
  drape_cable_set_pin(run_cables_cable(rc, 0), 10, bad);
  assert_int_equal(run_cables_step(rc, 2, &e), DRAPE_EUNSTABLE);
  print_message("%s\n", e.msg);
  assert_non_null(strstr(e.msg, "rope \"chain\" (implicit cable, rope[0]) diverged at frame 2 "
                                "(t = 0.04 s): node 10 position = (1, inf, 0)"));
  run_cables_free(rc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unrepresentable_refused),
      cmocka_unit_test(test_nonfinite_names_the_node),
      cmocka_unit_test(test_run_cables_names_rope_frame_node),
      cmocka_unit_test(test_static_sag_matches_seed),
      cmocka_unit_test(test_dynamic_settles_to_static),
      cmocka_unit_test(test_bdf2_damps_less_than_be),
      cmocka_unit_test(test_single_spring_integrators),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_zero_def_means_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
