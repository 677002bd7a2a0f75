/* Self-collision cases of issue 18 in the solver, counted with
 * drape_sim_count_crossings (exact; docs/selfcollision.md "Counting
 * crossings"), with the step bounds on (the default):
 *  - the cloth-twist benchmark (scenes/twist.json: 50x50, 1 m, no gravity,
 *    edges turned at pi/3 rad/s in opposite directions, stretch and shear
 *    compliance 1e-3): zero crossings at every 10th frame up to frame F
 *    (default 96, 1.6 s, past the first 1,603 crossings the scheme without
 *    bounds has at frame 90; the 10 s: test_selfcol_twist_10s),
 *    max strain below 25 (the neck the soft cloth forms has 20.3 with
 *    and without the bounds), every frame finite;
 *  - the same with stretch compliance 0;
 *  - with self_collision_bounds off the same twist does cross (the check can
 *    fail);
 *  - the twist twice on OpenCL gives the same bits, and the CPU reference
 *    gives OpenCL's bits (5 frames, both kernel forms). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "drape/cloth.h"
#include "drape/scene.h"
#include "selfcol_cases.h"
#include "support.h"

static int frames_wanted(void) {
  const char *v = getenv("DRAPE_TEST_TWIST_FRAMES");
  int f = v && *v ? atoi(v) : 96;
  return f > 0 ? f : 96;
}

/* Steps `frames` frames; every 10th and the last: crossings (returned: the
 * largest count seen) and the max strain (in *strain). */
static long run_twist(drape_scene *sc, int frames, double *strain) {
  drape_sim *sim = make_sim_form(sc, DRAPE_BACKEND_CL, DRAPE_KERNEL_FORM_AUTO);
  long most = 0;
  *strain = 0;
  drape_err e = {0};
  for (int f = 1; f <= frames; f++) {
    if (drape_sim_step(sim, &e)) {
      print_error("frame %d: %s\n", f, e.msg);
      fail();
    }
    if (f % 10 && f != frames) continue;
    long c = -1;
    drape_stats st;
    assert_int_equal(drape_sim_count_crossings(sim, &c, &e), 0);
    assert_int_equal(drape_sim_stats(sim, &st, &e), 0);
    assert_true(isfinite(st.objects[0].max_strain));
    if (st.objects[0].max_strain > *strain) *strain = st.objects[0].max_strain;
    if (c > most) most = c;
    if (f % 30 == 0 || f == frames)
      fprintf(stderr, "  frame %d: %ld crossings, max strain %.3g\n", f, c,
              st.objects[0].max_strain);
  }
  drape_sim_destroy(sim);
  return most;
}

static void test_twist(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/twist.json", &sc);
  const int F = frames_wanted();
  for (int inext = 0; inext < 2; inext++) {
    if (inext) sc.cloth[0].compliance_stretch = 0.0;
    fprintf(stderr, "twist, stretch compliance %g, %d frames:\n", sc.cloth[0].compliance_stretch,
            F);
    double strain = 0;
    long most = run_twist(&sc, F, &strain);
    assert_int_equal(most, 0);
    assert_true(strain < 25.0);
  }
  drape_scene_free(&sc);
}

/* The check can fail: without the bounds the twist crosses by frame 90. */
static void test_twist_without_bounds_crosses(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/twist.json", &sc);
  assert_int_equal(sc.cloth[0].self_collision_bounds, 1); /* the scene asks for them */
  sc.cloth[0].self_collision_bounds = 0;
  double strain = 0;
  long most = run_twist(&sc, 90, &strain);
  fprintf(stderr, "without the bounds: %ld crossings\n", most);
  assert_true(most > 100);
  drape_scene_free(&sc);
}

static float *positions(drape_sim *sim, int n) {
  float *x = malloc(sizeof(float) * 4 * (size_t)n);
  assert_non_null(x);
  drape_err e = {0};
  assert_int_equal(drape_sim_read_positions(sim, x, &e), 0);
  return x;
}

static void test_twist_bits(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/twist.json", &sc);
  const int n = sc.cloth[0].rows * sc.cloth[0].cols, F = 5;
  const size_t bytes = sizeof(float) * 4 * (size_t)n;
  drape_err e = {0};
  float *ref = NULL;
  const drape_backend be[4] = {DRAPE_BACKEND_CPU, DRAPE_BACKEND_CL, DRAPE_BACKEND_CL,
                               DRAPE_BACKEND_CL};
  const drape_kernel_form form[4] = {DRAPE_KERNEL_FORM_AUTO, DRAPE_KERNEL_FORM_CPU,
                                     DRAPE_KERNEL_FORM_CPU, DRAPE_KERNEL_FORM_GPU};
  for (int run = 0; run < 4; run++) {
    drape_sim *sim = make_sim_form(&sc, be[run], form[run]);
    for (int f = 0; f < F; f++) assert_int_equal(drape_sim_step(sim, &e), 0);
    float *x = positions(sim, n);
    if (!ref) ref = x;
    else {
      assert_memory_equal(x, ref, bytes); /* CPU = OpenCL vector = again = GPU form */
      free(x);
    }
    drape_sim_destroy(sim);
  }
  fprintf(stderr, "twist, %d frames: CPU reference, OpenCL twice (vector form), GPU form: "
          "same bits\n", F);
  free(ref);
  drape_scene_free(&sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_twist_bits),
      cmocka_unit_test(test_twist),
      cmocka_unit_test(test_twist_without_bounds_crosses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
