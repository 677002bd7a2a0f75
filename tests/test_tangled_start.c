/* Issue 18, recovery: a scene that starts with crossings. Two sheets are
 * placed through each other (a vertical one through a horizontal one) and
 * fall onto a sphere and the floor with self-collision and its step
 * bounds on. The bounds keep apart what is apart at the start, so no new
 * crossing may appear; what the scene starts with cannot untangle (an
 * edge leaves a triangle only through a contact the bounds prevent), so
 * the count never grows (docs/selfcollision.md, "Recovery"). Counted
 * exactly every frame, on the CPU reference and on OpenCL (same bits). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "support.h"

static const char *scene_json =
    "{ \"gravity\": [0, -9.81, 0], \"dt\": 0.016666, \"substeps\": 20,"
    "  \"cloth\": ["
    "   { \"name\": \"flat\", \"grid\": { \"cols\": 16, \"rows\": 16, \"spacing\": 0.06,"
    "       \"origin\": [-0.45, 1.0, -0.45], \"plane\": \"xz\" },"
    "     \"mass_per_area\": 0.2, \"thickness\": 0.01, \"self_collision\": true,"
    "     \"self_collision_bounds\": true },"
    "   { \"name\": \"upright\", \"grid\": { \"cols\": 16, \"rows\": 8, \"spacing\": 0.06,"
    "       \"origin\": [-0.44, 1.22, 0.013], \"plane\": \"xy\" },"
    "     \"mass_per_area\": 0.2, \"thickness\": 0.01, \"self_collision\": true,"
    "     \"self_collision_bounds\": true } ],"
    "  \"sphere\": [{ \"center\": [0, 0.5, 0], \"radius\": 0.3, \"friction\": 0.3 }],"
    "  \"floor\": { \"height\": 0, \"friction\": 0.5 } }";

static long crossings(drape_sim *sim) {
  long n = -1;
  drape_err e = {0};
  if (drape_sim_count_crossings(sim, &n, &e)) fail_msg("%s", e.msg);
  return n;
}

static void tangled_start_never_worse(void **state) {
  (void)state;
  drape_scene s;
  drape_err e = {0};
  if (drape_scene_parse(scene_json, "tangled", &s, &e)) fail_msg("%s", e.msg);
  drape_sim *cpu = make_sim(&s, DRAPE_BACKEND_CPU), *cl = make_sim(&s, DRAPE_BACKEND_CL);
  const long start = crossings(cpu);
  print_message("  crossings at the start: %ld\n", start);
  /* the upright sheet's vertical edges pierce the flat one along a line */
  assert_true(start > 0);
  assert_int_equal(crossings(cl), start);
  long most = start, last = start;
  const int n = drape_sim_mesh(cpu)->n_particles;
  float y0 = 0;
  for (int f = 1; f <= 30; f++) {
    step_frames(cpu, 1);
    step_frames(cl, 1);
    last = crossings(cpu);
    assert_int_equal(crossings(cl), last);
    if (last > most) most = last;
    if (f == 1) {
      float *x = read_x(cpu);
      y0 = x[1];
      free(x);
    }
  }
  float *xa = read_x(cpu), *xb = read_x(cl);
  assert_memory_equal(xa, xb, sizeof(float) * 4 * (size_t)n);
  int finite = 1;
  for (int i = 0; i < 4 * n; i++) finite &= isfinite(xa[i]);
  print_message("  after 30 frames: %ld crossings (most %ld); flat sheet's corner fell %.3f m\n", last,
                most, y0 - xa[1]);
  assert_true(finite);
  assert_true(most <= start);    /* never worse */
  assert_true(y0 - xa[1] > 0.1); /* the sheets did move: free where not tangled */
  free(xa), free(xb);
  drape_sim_destroy(cpu), drape_sim_destroy(cl);
  drape_scene_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(tangled_start_never_worse)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
