/* Contacts: nothing inside the sphere or below the floor (radius + margin,
 * floor + margin, within 1e-3 m), Coulomb friction that stops a sliding
 * cloth at the distance v^2 / (2 mu g), and a moving sphere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "support.h"

/* Smallest |x - c| - r over free particles, and the lowest y. */
static void clearances(drape_sim *sim, const double c[3], double r, double *sphere, double *low) {
  const int n = drape_sim_mesh(sim)->n_particles;
  float *x = read_x(sim);
  *sphere = INFINITY;
  *low = INFINITY;
  for (int i = 0; i < n; i++) {
    if (x[4 * i + 3] == 0) continue;
    double d = sqrt(pow(x[4 * i] - c[0], 2) + pow(x[4 * i + 1] - c[1], 2) + pow(x[4 * i + 2] - c[2], 2));
    *sphere = fmin(*sphere, d - r);
    *low = fmin(*low, x[4 * i + 1]);
  }
  free(x);
}

/* The scene: a 64 x 64 cloth dropped from 1.2 m onto a sphere of
 * radius 0.4 at 0.5 m, draping onto the floor. Every frame, no particle is
 * closer to the centre than radius + thickness - 1e-3 m, and none is below
 * floor + thickness - 1e-3 m. */
static void test_sphere_and_floor_clearance(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 64, 1.2);
  const double margin = s.cloth[0].thickness, r = s.sphere[0].radius;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  double worst_sphere = INFINITY, worst_floor = INFINITY;
  for (int f = 0; f < 150; f++) {
    step_frames(sim, 1);
    double cs, low;
    clearances(sim, s.sphere[0].center, r, &cs, &low);
    worst_sphere = fmin(worst_sphere, cs);
    worst_floor = fmin(worst_floor, low);
    assert_true(cs >= margin - 1e-3);
    assert_true(low >= s.floor_height + margin - 1e-3);
  }
  /* the stats agree, and the cloth did lie on the sphere (it is too small
   * to reach the floor around it: test_floor_rest covers the floor) */
  drape_stats st = get_stats(sim);
  double cs_last, low_last;
  clearances(sim, s.sphere[0].center, r, &cs_last, &low_last);
  print_message("cloth on sphere, 2.5 s: lowest clearance to the sphere %.6f m (margin %.3f), "
                "lowest point %.6f m above the floor; stats now: %.6f, %.6f\n", worst_sphere, margin,
                worst_floor, st.min_sphere_clearance, st.min_floor_clearance);
  assert_near(st.min_sphere_clearance, cs_last, 1e-6);
  assert_near(st.min_floor_clearance, low_last, 1e-6);
  assert_true(worst_sphere < margin + 1e-4);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* A cloth dropped flat onto the floor comes to rest on it. */
static void test_floor_rest(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 32, 0.3);
  s.n_sphere = 0;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  const double c[3] = {0, 0, 0};
  for (int f = 0; f < 90; f++) {
    step_frames(sim, 1);
    double cs, low;
    clearances(sim, c, 0, &cs, &low);
    assert_true(low >= 0.01 - 1e-3);
  }
  float *x = read_x(sim);
  double hi = -INFINITY, lo = INFINITY;
  for (int i = 0; i < 32 * 32; i++) { hi = fmax(hi, x[4 * i + 1]); lo = fmin(lo, x[4 * i + 1]); }
  drape_stats st = get_stats(sim);
  print_message("cloth on the floor after 1.5 s: y in [%.6f, %.6f] m, KE %.2e J\n", lo, hi,
                st.kinetic_energy);
  assert_near(lo, 0.01, 1e-4);
  assert_near(hi, 0.01, 1e-3);
  assert_true(st.kinetic_energy < 1e-6);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* A cloth sliding on the floor at 2 m/s: the friction limit mu * depth per
 * substep, with depth = g h^2 for a resting particle, is a deceleration of
 * mu g, so it stops after v^2 / (2 mu g) = 0.408 m for mu = 0.5. Without
 * friction it keeps sliding. */
static double slide(double mu) {
  drape_scene s;
  scene_sphere_drop(&s, 16, 0.01);
  s.n_sphere = 0;
  s.floor_friction = mu;
  s.cloth[0].damping = 0;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  float *v = calloc(4 * 256, sizeof *v);
  for (int i = 0; i < 256; i++) v[4 * i] = 2.0f;
  drape_err e = {0};
  assert_int_equal(drape_sim_write_velocities(sim, v, &e), 0);
  float *x0 = read_x(sim);
  step_frames(sim, 60);
  float *x = read_x(sim);
  double dist = 0;
  for (int i = 0; i < 256; i++) dist += (x[4 * i] - x0[4 * i]) / 256.0;
  free(v); free(x0); free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
  return dist;
}

static void test_friction(void **state) {
  (void)state;
  double d05 = slide(0.5), d0 = slide(0.0);
  const double expect = 2.0 * 2.0 / (2 * 0.5 * 9.81);
  print_message("sliding at 2 m/s for 1 s: mu 0.5 -> %.4f m (Coulomb %.4f m), mu 0 -> %.4f m\n",
                d05, expect, d0);
  assert_near(d05, expect, 0.03 * expect);
  assert_near(d0, 2.0, 0.01);
}

/* A sphere moving at 1.5 m/s sweeps through a hanging curtain: it pushes
 * the cloth along and none gets inside it. */
static void test_moving_sphere(void **state) {
  (void)state;
  drape_scene s;
  scene_hanging_cloth(&s, 32, 0.03, 1);
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[0] = 0; sp.center[1] = 1.6; sp.center[2] = -0.5;
  sp.radius = 0.2;
  sp.velocity[2] = 1.5;
  drape_scene_add_sphere(&s, &sp);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  double worst = INFINITY, front = -INFINITY;
  for (int f = 1; f <= 40; f++) {
    step_frames(sim, 1);
    double c[3] = {0, 1.6, -0.5 + 1.5 * f * s.dt}, cs, low;
    clearances(sim, c, 0.2, &cs, &low);
    worst = fmin(worst, cs);
    assert_true(cs >= 0.01 - 1e-3);
  }
  float *x = read_x(sim);
  for (int i = 0; i < 32 * 32; i++) front = fmax(front, x[4 * i + 2]);
  print_message("moving sphere: lowest clearance %.6f m; cloth pushed to z = %.3f m\n", worst, front);
  assert_true(front > 0.3); /* the sphere carried the curtain along */
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sphere_and_floor_clearance),
      cmocka_unit_test(test_floor_rest),
      cmocka_unit_test(test_friction),
      cmocka_unit_test(test_moving_sphere),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
