/* Issue 18's "rope dropped in coils onto a cloth" (scenes/rope_coils.json:
 * a rope laid node by node ("points") in three coils of a helix, 141 links
 * of 2 cm = 2 thicknesses, dropped onto a 32x32 cloth that falls onto a
 * sphere; the cloth has self-collision and its step bounds on, so the rope
 * collides with it). The crossing count includes the rope links: a link
 * through a cloth triangle counts (docs/selfcollision.md "Counting
 * crossings"). Counted exactly:
 *  - the rope starts where its points say;
 *  - zero crossings at every 3rd frame of F (default 60: the rope lands on
 *    the draped cloth and settles; DRAPE_TEST_ROPE_FRAMES=180 runs the
 *    scene's length), every frame finite, strain bounded;
 *  - the check can fail: with self-collision off the rope falls through
 *    the cloth, its links through the cloth's triangles;
 *  - same bits: the CPU reference, OpenCL twice (vector form) and the GPU
 *    form over 10 frames. The link contacts: test_selfcol_rope_links.c. */
#include "selfcol_cases.h"

static int frames_wanted(void) {
  const char *v = getenv("DRAPE_TEST_ROPE_FRAMES");
  const int f = v && *v ? atoi(v) : 60;
  return f > 0 ? f : 60;
}

static void test_rope_points(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/rope_coils.json", &sc);
  assert_int_equal(sc.n_rope, 1);
  const drape_rope_def *r = &sc.rope[0];
  assert_int_equal(r->n_points, r->segments + 1);
  drape_sim *sim = make_sim_form(&sc, DRAPE_BACKEND_CPU, DRAPE_KERNEL_FORM_AUTO);
  float *x = read_x(sim);
  const int first = sc.cloth[0].rows * sc.cloth[0].cols; /* the rope follows the cloth */
  for (int j = 0; j <= r->segments; j++)
    for (int q = 0; q < 3; q++)
      assert_float_equal(x[4 * (first + j) + q], (float)r->points[j][q], 0);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&sc);
}

static void test_rope_no_crossings(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/rope_coils.json", &sc);
  assert_true(sc.cloth[0].self_collision && sc.cloth[0].self_collision_bounds);
  const case_run r = case_run_counting(&sc, frames_wanted(), 3, "rope coils, bounds on");
  assert_int_equal(r.most, 0);
  assert_true(r.strain < 1.0); /* measured 0.034 over 180 frames */
  drape_scene_free(&sc);
}

/* The check can fail: without self-collision the rope falls through. */
static void test_rope_without_selfcol_crosses(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/rope_coils.json", &sc);
  sc.cloth[0].self_collision = sc.cloth[0].self_collision_bounds = 0;
  const case_run r = case_run_counting(&sc, 24, 2, "rope coils, self-collision off");
  assert_true(r.most > 0);
  drape_scene_free(&sc);
}

static void test_rope_bits(void **state) {
  (void)state;
  drape_scene sc;
  scene_from_source("scenes/rope_coils.json", &sc);
  case_same_bits(&sc, 10, "rope coils");
  drape_scene_free(&sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rope_points),
      cmocka_unit_test(test_rope_bits),
      cmocka_unit_test(test_rope_no_crossings),
      cmocka_unit_test(test_rope_without_selfcol_crosses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
