/* Seed 000 §7.18's checks on the string solver, one test each:
 * rest, momentum, energy, contour, bending, refinement. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "drape/string.h"

static drape_string *make(const drape_string_params *p) {
  drape_string *s = NULL;
  drape_err e = {0};
  if (drape_string_create(p, &s, &e)) fail_msg("%s", e.msg);
  return s;
}

static void ticks(drape_string *s, int n) {
  drape_err e = {0};
  for (int k = 0; k < n; k++)
    if (drape_string_tick(s, &e)) fail_msg("tick %d: %s", k, e.msg);
}

static double mechanical(const drape_string *s) {
  drape_string_energy en;
  drape_string_energies(s, &en);
  return en.total;
}

/* Gravity off, zero velocity, a straight string stretched 1% between fixed
 * supports: neighbouring tensions cancel and nothing moves. Tilted, so the
 * cancellation is not helped by zero components. */
static void test_stretched_string_stays_at_rest(void **state) {
  (void)state;
  drape_string_params p = drape_string_params_default();
  p.gravity[0] = p.gravity[1] = 0;
  drape_string *s = make(&p);
  const int n1 = p.links + 1;
  double *r = calloc(2 * (size_t)n1, sizeof *r), *r0 = calloc(2 * (size_t)n1, sizeof *r0);
  const double ux = 0.6, uy = 0.8, span = 1.01 * p.length;
  for (int i = 0; i < n1; i++) {
    r[2 * i] = 0.3 + span * ux * i / p.links;
    r[2 * i + 1] = -0.2 + span * uy * i / p.links;
  }
  drape_err e = {0};
  assert_int_equal(drape_string_set_state(s, r, NULL, &e), 0);
  drape_string_grab(s, r[2 * p.links], r[2 * p.links + 1]);
  memcpy(r0, r, sizeof(double) * 2 * (size_t)n1);
  drape_string_energy en0;
  drape_string_energies(s, &en0);
  ticks(s, 2000); /* 0.2 s */
  const double *rr = drape_string_positions(s), *v = drape_string_velocities(s);
  double dr = 0, vm = 0;
  for (int k = 0; k < 2 * n1; k++) {
    dr = fmax(dr, fabs(rr[k] - r0[k]));
    vm = fmax(vm, fabs(v[k]));
  }
  print_message("stretched at rest: elastic %.6g J, max drift %.3g m, max |v| %.3g m/s\n",
                en0.elastic, dr, vm);
  assert_true(en0.elastic > 0.01); /* it really is under tension */
  assert_true(dr < 1e-12);
  assert_true(vm < 1e-10);
  drape_string_destroy(s);
  free(r);
  free(r0);
}

/* Free ends, no gravity: internal forces and contour impulses are equal and
 * opposite, so total momentum is constant to round-off. A wavy, partly
 * stretched, partly slack string with random velocities exercises tension,
 * its active set, bending and the contour projection. */
static void test_free_string_conserves_momentum(void **state) {
  (void)state;
  drape_string_params p = drape_string_params_default();
  p.links = 40;
  p.length = 2.0;
  p.gravity[0] = p.gravity[1] = 0;
  p.pin_anchor = 0;
  drape_string *s = make(&p);
  drape_string_release(s);
  const int n1 = p.links + 1;
  double r[82], v[82];
  unsigned seed = 12345;
  for (int i = 0; i < n1; i++) {
    r[2 * i] = 0.98 * p.length * i / p.links;
    r[2 * i + 1] = 0.08 * sin(6.0 * i / p.links);
    for (int c = 0; c < 2; c++) {
      seed = seed * 1664525u + 1013904223u;
      v[2 * i + c] = ((double)(seed >> 8) / 16777216.0 - 0.5) * 2.0;
    }
  }
  drape_err e = {0};
  assert_int_equal(drape_string_set_state(s, r, v, &e), 0);
  const double m = p.mu * p.length / p.links;
  double P0[2] = {0, 0};
  for (int i = 0; i < n1; i++)
    for (int c = 0; c < 2; c++) P0[c] += (i == 0 || i == p.links ? 0.5 : 1.0) * m * v[2 * i + c];
  ticks(s, 500); /* 0.05 s */
  const double *vv = drape_string_velocities(s);
  double P[2] = {0, 0};
  for (int i = 0; i < n1; i++)
    for (int c = 0; c < 2; c++) P[c] += (i == 0 || i == p.links ? 0.5 : 1.0) * m * vv[2 * i + c];
  drape_string_stats st;
  drape_string_get_stats(s, &st);
  print_message("momentum: P0 = (%.17g, %.17g), P = (%.17g, %.17g) kg m/s; %ld substeps, "
                "%ld line searches\n",
                P0[0], P0[1], P[0], P[1], st.substeps, st.line_searches);
  double moved = 0;
  for (int k = 0; k < 2 * n1; k++) moved = fmax(moved, fabs(vv[k] - v[k]));
  assert_true(moved > 0.1); /* the internal forces did act */
  assert_near(P[0], P0[0], 1e-14);
  assert_near(P[1], P0[1], 1e-14);
  drape_string_destroy(s);
}

/* Fixed supports with internal friction: the string released from straight
 * sags and its oscillations die out; mechanical energy falls overall. The
 * time step is then halved to show the remaining loss is the friction's,
 * not the integrator's. Returns the energies at 0 and 1 s. */
static void sag_energy(double h, double *e0, double *e_end, double *max_rise) {
  drape_string_params p = drape_string_params_default();
  p.h = h;
  drape_string *s = make(&p); /* held at its initial position */
  *e0 = mechanical(s);
  const int per = (int)lround(0.05 / h);
  double prev = *e0;
  *max_rise = 0;
  for (int k = 0; k < 20; k++) {
    ticks(s, per);
    const double e = mechanical(s);
    *max_rise = fmax(*max_rise, e - prev);
    prev = e;
  }
  *e_end = prev;
  drape_string_destroy(s);
}

static void test_friction_dissipates_energy(void **state) {
  (void)state;
  double e0, e1, rise, e0b, e1b, riseb;
  sag_energy(1e-4, &e0, &e1, &rise);
  sag_energy(5e-5, &e0b, &e1b, &riseb);
  print_message("energy h=1e-4: E(0) %.9f J, E(1 s) %.9f J, largest rise over 0.05 s %.3g J\n", e0,
                e1, rise);
  print_message("energy h=5e-5: E(0) %.9f J, E(1 s) %.9f J, largest rise over 0.05 s %.3g J\n",
                e0b, e1b, riseb);
  assert_true(e1 < e0 - 0.05);    /* the sag released potential energy and friction took it */
  assert_true(rise <= 1e-9);      /* never gains energy over a 0.05 s window */
  assert_true(riseb <= 1e-9);
  /* The loss is physical: the refined step loses about as much. */
  assert_true(fabs((e0b - e1b) - (e0 - e1)) < 0.05 * (e0 - e1));
}

/* Supports brought closer: the hand walks the end from L0 to 0.55 L0 from
 * the anchor at 0.5 m/s (quasi-statically), then the string settles. No link may shorten
 * (contour projection), and as the bottom rounds out the turning spreads
 * over many bends instead of folding at a few. */
static void test_supports_closer_keep_contour(void **state) {
  (void)state;
  drape_string_params p = drape_string_params_default();
  drape_string *s = make(&p);
  const double ell0 = p.length / p.links;
  ticks(s, 3000); /* sag first, supports L0 apart */
  double turn0 = 0, max0 = 0;
  for (int i = 1; i < p.links; i++) {
    turn0 += fabs(drape_string_turning_angle(s, i));
    max0 = fmax(max0, fabs(drape_string_turning_angle(s, i)));
  }
  const double x0 = p.anchor[0] + p.length, x1 = p.anchor[0] + 0.55 * p.length;
  double shortest = INFINITY;
  for (int k = 0; k < 40000; k++) { /* 3.6 s walking, 0.4 s settling */
    const double t = k * p.h, x = t < 3.6 ? x0 + (x1 - x0) * t / 3.6 : x1;
    drape_string_set_target(s, x, p.anchor[1]);
    ticks(s, 1);
    const double *r = drape_string_positions(s);
    for (int i = 0; i < p.links; i++)
      shortest = fmin(shortest, hypot(r[2 * i + 2] - r[2 * i], r[2 * i + 3] - r[2 * i + 1]));
  }
  double turn = 0, maxt = 0;
  int spread = 0;
  for (int i = 1; i < p.links; i++) maxt = fmax(maxt, fabs(drape_string_turning_angle(s, i)));
  for (int i = 1; i < p.links; i++) {
    turn += fabs(drape_string_turning_angle(s, i));
    spread += fabs(drape_string_turning_angle(s, i)) > 0.25 * maxt;
  }
  const double *r = drape_string_positions(s);
  print_message("closer: shortest link %.9f l0; total turning %.4f -> %.4f rad, largest bend "
                "%.4f -> %.4f rad, %d bends above 1/4 of the largest; end at (%.4f, %.4f)\n",
                shortest / ell0, turn0, turn, max0, maxt, spread, r[2 * p.links],
                r[2 * p.links + 1]);
  assert_true(shortest >= ell0 * (1 - 1e-6));
  assert_near(r[2 * p.links], x1, 1e-3); /* the hand got there */
  assert_true(turn > turn0 + 1.0);      /* the bottom rounded out: much more total turning */
  assert_true(maxt < 0.3);              /* ... without a kink */
  assert_true(spread >= 20);            /* ... spread over many bends */
  drape_string_destroy(s);

  /* Pushed fast (the hand at its 6 m/s cap) the links near the end are
   * compressed within a substep faster than two projection sweeps repair
   * (each sweep shares a correction with a neighbour that was already
   * fixed), so a transient shortening remains: measured and bounded here. */
  s = make(&p);
  ticks(s, 3000);
  drape_string_set_target(s, x1, p.anchor[1]);
  shortest = INFINITY;
  for (int k = 0; k < 6000; k++) {
    ticks(s, 1);
    const double *q = drape_string_positions(s);
    for (int i = 0; i < p.links; i++)
      shortest = fmin(shortest, hypot(q[2 * i + 2] - q[2 * i], q[2 * i + 3] - q[2 * i + 1]));
  }
  print_message("closer, fast push: shortest link %.6f l0\n", shortest / ell0);
  assert_true(shortest >= 0.98 * ell0);
  drape_string_destroy(s);
}

/* Gravity off, a bent string (a circular arc, every link at its rest
 * length) at rest, anchor fixed, end free: with B > 0 it straightens
 * (bending energy falls, motion appears); with B = D = 0 there is no
 * restoring force and nothing moves. */
static double bent_run(double B, double D, double *moved, double *bend0) {
  drape_string_params p = drape_string_params_default();
  p.links = 40;
  p.length = 2.0;
  p.gravity[0] = p.gravity[1] = 0;
  p.B = B;
  p.D = D;
  drape_string *s = make(&p);
  drape_string_release(s);
  const double ell0 = p.length / p.links, turn = 0.06;
  double r[82], x = 0, y = 0, dir = 0;
  for (int i = 0; i <= p.links; i++) {
    r[2 * i] = x;
    r[2 * i + 1] = y;
    x += ell0 * cos(dir);
    y += ell0 * sin(dir);
    dir += turn;
  }
  drape_err e = {0};
  assert_int_equal(drape_string_set_state(s, r, NULL, &e), 0);
  drape_string_energy en;
  drape_string_energies(s, &en);
  *bend0 = en.bending;
  ticks(s, 1000); /* 0.1 s */
  const double *rr = drape_string_positions(s);
  *moved = 0;
  for (int k = 0; k < 82; k++) *moved = fmax(*moved, fabs(rr[k] - r[k]));
  drape_string_energies(s, &en);
  drape_string_destroy(s);
  return en.bending;
}

static void test_bending_restores_shape(void **state) {
  (void)state;
  double moved, bend0, moved0, bend00;
  const double bend = bent_run(1e-4, 1e-5, &moved, &bend0);
  const double bend_off = bent_run(0, 0, &moved0, &bend00);
  print_message("bending: B>0 bending energy %.6g -> %.6g J, max move %.4g m; B=D=0 max move "
                "%.3g m\n",
                bend0, bend, moved, moved0);
  /* Analytic start: 39 bends of 0.06 rad, (1/2)(B/l0) theta^2 each. */
  assert_near(bend0, 39 * 0.5 * (1e-4 / 0.05) * 0.06 * 0.06, 1e-12);
  assert_true(moved > 1e-3);
  assert_true(bend < 0.97 * bend0);
  assert_true(moved0 < 1e-12);
  assert_near(bend_off, 0, 0); /* B = 0: no bending energy at all */
}

/* §7.9/§7.18 refinement: sag at 1 s of the held string for (N, h), (N, h/2)
 * and (2N, h/2) with the segment constants rescaled (EA/l0, etaA/l0, B/l0,
 * D/l0 follow from l0 = L0/N). Reported, and required to be small. */
static double sag_at_1s(int links, double h) {
  drape_string_params p = drape_string_params_default();
  p.links = links;
  p.h = h;
  drape_string *s = make(&p);
  drape_err e = {0};
  drape_string_progress pr;
  assert_int_equal(drape_string_advance(s, 1.0, 0, &pr, &e), 0);
  const double *r = drape_string_positions(s);
  double ymin = INFINITY;
  for (int i = 0; i <= links; i++) ymin = fmin(ymin, r[2 * i + 1]);
  drape_string_destroy(s);
  return p.anchor[1] - ymin;
}

static void test_refinement_changes_sag_little(void **state) {
  (void)state;
  const double a = sag_at_1s(80, 1e-4), b = sag_at_1s(80, 5e-5), c = sag_at_1s(160, 5e-5);
  print_message("sag at 1 s: N=80 h=1e-4 %.6f m; N=80 h=5e-5 %.6f m (%+.3g%%); N=160 h=5e-5 "
                "%.6f m (%+.3g%%)\n",
                a, b, 100 * (b - a) / a, c, 100 * (c - a) / a);
  assert_true(a > 0.2);
  assert_true(fabs(b - a) < 0.01 * a);
  assert_true(fabs(c - a) < 0.02 * a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stretched_string_stays_at_rest),
      cmocka_unit_test(test_free_string_conserves_momentum),
      cmocka_unit_test(test_friction_dissipates_energy),
      cmocka_unit_test(test_supports_closer_keep_contour),
      cmocka_unit_test(test_bending_restores_shape),
      cmocka_unit_test(test_refinement_changes_sag_little),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
