/* Moving a mesh collider by hand (issue 17: "the viewer lets you drag a
 * capsule or a mesh collider like the sphere"; docs/testing.md
 * "Colliders"):
 *  - drape_sim_move_collider moving a box 0.3 m up in one frame (18 m/s)
 *    carries the cloth lying on its top: no particle left below the new
 *    top, the box's vertices read back moved by exactly 0.3 m, and the
 *    cloth then rests there (the move is not repeated by later frames);
 *    the CPU reference and OpenCL in both kernel forms give the same bits;
 *  - refused: an offset that is NaN, infinite or beyond DRAPE_MAX_COORD,
 *    a collider that does not exist (the offset stays as it was);
 *  - the viewer's pick (src/app/viewer_pick.c, compiled in): the ray meets
 *    the right one of two boxes at the distance of its face, from either
 *    side, misses between them, and follows a moved box. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "drape/limits.h"
#include "drape/scene.h"

#include "app/viewer_camera.c"
#include "app/viewer_pick.c"

static char meshes_dir[1024];

static int setup(void **state) {
  (void)state;
  const char *src = getenv("DRAPE_SOURCE_DIR");
  snprintf(meshes_dir, sizeof meshes_dir, "%s/meshes", src ? src : ".");
  return 0;
}

static void load(const char *json, drape_scene *s) {
  drape_err e = {0};
  if (drape_scene_parse_in(json, "test", meshes_dir, s, &e)) {
    print_error("scene: %s\n", e.msg);
    fail();
  }
}

/* A 9 x 9 cloth (0.24 m) resting on a 0.3 m box whose top is at 0.65 m. */
static const char *ON_BOX =
    "{ \"dt\": 0.016666666666666666, \"substeps\": 20,"
    "  \"cloth\": [{ \"name\": \"sheet\", \"grid\": { \"cols\": 9, \"rows\": 9, \"spacing\": 0.03,"
    "     \"origin\": [-0.12, 0.665, -0.12] }, \"thickness\": 0.01 }],"
    "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"scale\": 0.3,"
    "     \"translate\": [0, 0.5, 0] }, \"friction\": 0.5, \"thickness\": 0.005 }] }";

/* The run of test_move_mesh on one backend: the positions after the frame
 * of the move (lift), and the top of the box then. */
static float *lift_run(drape_backend be, double *box_y) {
  drape_scene s;
  load(ON_BOX, &s);
  drape_sim *sim = make_sim(&s, be);
  step_frames(sim, 30); /* settled on the top */
  const double up[3] = {0, 0.3, 0};
  drape_err e = {0};
  int nv, nt;
  assert_int_equal(drape_sim_collider_mesh(sim, 0, &nv, &nt, NULL, NULL), 0);
  float *v0 = malloc(sizeof *v0 * 3 * (size_t)nv), *v1 = malloc(sizeof *v1 * 3 * (size_t)nv);
  assert_non_null(v0);
  assert_non_null(v1);
  drape_sim_collider_mesh(sim, 0, &nv, &nt, v0, NULL);
  assert_int_equal(drape_sim_move_collider(sim, 0, up, &e), 0);
  double off[3];
  assert_int_equal(drape_sim_collider_offset(sim, 0, off), 0);
  assert_true(off[0] == 0 && off[1] == 0.3 && off[2] == 0);
  step_frames(sim, 1);
  float *lift = read_x(sim);
  drape_sim_collider_mesh(sim, 0, &nv, &nt, v1, NULL);
  double worst = 0;
  for (int i = 0; i < nv; i++)
    for (int q = 0; q < 3; q++)
      worst = fmax(worst, fabs((double)v1[3 * i + q] - v0[3 * i + q] - (q == 1 ? 0.3 : 0.0)));
  assert_true(worst < 1e-6); /* moved by the offset, nothing else */
  *box_y = -1e9;
  for (int i = 0; i < nv; i++) *box_y = fmax(*box_y, v1[3 * i + 1]);
  free(v0), free(v1);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
  return lift;
}

/* The cloth dropped from 1.0 m onto the box, 60 frames: the box moved
 * 0.3 m up before the first frame (moved = 1), or placed there by the
 * scene (translate 0.8). The move is swept over frame 1 only: were it
 * swept again each frame, the box would rise through 0.3 m every frame
 * and throw the cloth. */
static float *drop_run(drape_backend be, int moved) {
  char json[1200];
  snprintf(json, sizeof json,
           "{ \"dt\": 0.016666666666666666, \"substeps\": 20,"
           "  \"cloth\": [{ \"name\": \"sheet\", \"grid\": { \"cols\": 9, \"rows\": 9, \"spacing\": 0.03,"
           "     \"origin\": [-0.12, 1.0, -0.12] }, \"thickness\": 0.01 }],"
           "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"scale\": 0.3,"
           "     \"translate\": [0, %s, 0] }, \"friction\": 0.5, \"thickness\": 0.005 }] }",
           moved ? "0.5" : "0.8");
  drape_scene s;
  load(json, &s);
  drape_sim *sim = make_sim(&s, be);
  const double up[3] = {0, 0.3, 0};
  drape_err e = {0};
  if (moved) assert_int_equal(drape_sim_move_collider(sim, 0, up, &e), 0);
  step_frames(sim, 60);
  float *x = read_x(sim);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
  return x;
}

static void test_move_mesh(void **state) {
  (void)state;
  double top;
  float *lift = lift_run(DRAPE_BACKEND_CPU, &top);
  float *moved = drop_run(DRAPE_BACKEND_CPU, 1), *placed = drop_run(DRAPE_BACKEND_CPU, 0);
  const int n = 81;
  double low_lift = 1e9, low = 1e9, high = -1e9, diff = 0;
  for (int i = 0; i < n; i++) {
    low_lift = fmin(low_lift, lift[4 * i + 1]);
    low = fmin(low, moved[4 * i + 1]);
    high = fmax(high, moved[4 * i + 1]);
    for (int q = 0; q < 3; q++) diff = fmax(diff, fabs(moved[4 * i + q] - placed[4 * i + q]));
  }
  print_message("box moved up 0.3 m in one frame under a resting cloth: top at %.4f m, the "
                "cloth's lowest point %.4f after the frame (contact at top + 0.01)\n",
                top, low_lift);
  print_message("cloth dropped on the box moved up before frame 1: %.4f..%.4f m at frame 60, "
                "%.2e m from the box placed there by the scene\n", low, high, diff);
  assert_near(top, 0.95, 1e-6);
  assert_true(low_lift > top);       /* carried: none left in or below the top */
  assert_true(low > top + 0.005);    /* resting on the moved box...              */
  assert_true(high < top + 0.015);   /* ...not thrown by a repeated sweep        */
  assert_true(diff < 1e-4);          /* where the scene's own box leaves it      */
  /* the same bits on OpenCL, both kernel forms */
  for (int k = 0; k < 2; k++) {
    test_kernel_form = test_form(k);
    double t2;
    float *l2 = lift_run(DRAPE_BACKEND_CL, &t2), *m2 = drop_run(DRAPE_BACKEND_CL, 1);
    int differ = 0;
    for (int i = 0; i < 4 * n; i++)
      differ += memcmp(&lift[i], &l2[i], 4) != 0, differ += memcmp(&moved[i], &m2[i], 4) != 0;
    print_message("moved box, %s form vs CPU reference: %d of %d floats differ\n",
                  test_form_name(k), differ, 8 * n);
    assert_int_equal(differ, 0);
    free(l2), free(m2);
  }
  test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
  free(lift), free(moved), free(placed);
}

static void test_move_refused(void **state) {
  (void)state;
  drape_scene s;
  load(ON_BOX, &s);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  const double good[3] = {0.1, 0.2, 0.3};
  drape_err e = {0};
  assert_int_equal(drape_sim_move_collider(sim, 0, good, &e), 0);
  const double bad[][3] = {{NAN, 0, 0}, {0, INFINITY, 0}, {0, 0, -INFINITY},
                           {0, 2 * DRAPE_MAX_COORD, 0}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    memset(&e, 0, sizeof e);
    assert_int_equal(drape_sim_move_collider(sim, 0, bad[k], &e), DRAPE_EINVAL);
    print_message("refused: %s\n", e.msg);
    assert_non_null(strstr(e.msg, "mesh collider 0: offset["));
  }
  assert_int_equal(drape_sim_move_collider(sim, 1, good, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "mesh collider 1 does not exist: the scene has 1"));
  assert_int_equal(drape_sim_move_collider(sim, -1, good, &e), DRAPE_EINVAL);
  double off[3];
  assert_int_equal(drape_sim_collider_offset(sim, 1, off), DRAPE_EINVAL);
  assert_int_equal(drape_sim_collider_offset(sim, 0, off), 0);
  assert_true(off[0] == 0.1 && off[1] == 0.2 && off[2] == 0.3); /* the last good one */
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* Two boxes: 0.3 m at (0, 0.5, 0), 0.2 m at (1, 0.5, 0). */
static void test_pick(void **state) {
  (void)state;
  const char *json =
      "{ \"dt\": 0.016666666666666666, \"substeps\": 4,"
      "  \"cloth\": [{ \"name\": \"far\", \"grid\": { \"cols\": 3, \"rows\": 3, \"spacing\": 0.03,"
      "     \"origin\": [5, 3, 5] } }],"
      "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"scale\": 0.3, \"translate\": [0, 0.5, 0] } },"
      "                 { \"mesh\": { \"file\": \"box.obj\", \"scale\": 0.2, \"translate\": [1, 0.5, 0] } }] }";
  drape_scene s;
  load(json, &s);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  static const struct {
    double o[3], d[3];
    int want;
    double t;
  } rays[] = {
      {{0.02, 0.51, 3}, {0, 0, -1}, 0, 2.85}, /* front face of the big box       */
      {{1.02, 0.45, 3}, {0, 0, -1}, 1, 2.9}, /* the small one                   */
      {{0.5, 0.5, 3}, {0, 0, -1}, -1, 0},    /* between them                     */
      {{-3, 0.5, 0.01}, {1, 0, 0}, 0, 2.85}, /* along x: the big one is first    */
      {{4, 0.52, 0.03}, {-1, 0, 0}, 1, 2.9}, /* from the other side: the small  */
      {{0.02, 3, 0.03}, {0, -1, 0}, 0, 2.35}, /* from above: its top at 0.65     */
      {{0, 0.5, 3}, {0, 0, 1}, -1, 0},       /* looking away                     */
  };
  for (size_t k = 0; k < sizeof rays / sizeof rays[0]; k++) {
    double t = -1, hit[3];
    const int got = vw_pick_collider(sim, rays[k].o, rays[k].d, &t, hit);
    print_message("ray %zu: collider %d at %.6f m (want %d at %.6f)\n", k, got, got < 0 ? 0 : t,
                  rays[k].want, rays[k].t);
    assert_int_equal(got, rays[k].want);
    if (got >= 0) {
      assert_near(t, rays[k].t, 1e-6);
      for (int q = 0; q < 3; q++) assert_near(hit[q], rays[k].o[q] + t * rays[k].d[q], 1e-12);
    }
  }
  /* the big box moved 0.5 m towards the eye: the ray meets it 0.5 m sooner */
  const double towards[3] = {0, 0, 0.5};
  drape_err e = {0};
  assert_int_equal(drape_sim_move_collider(sim, 0, towards, &e), 0);
  step_frames(sim, 1);
  double t, hit[3];
  assert_int_equal(vw_pick_collider(sim, rays[0].o, rays[0].d, &t, hit), 0);
  print_message("after the move: collider 0 at %.6f m\n", t);
  assert_near(t, 2.35, 1e-6);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_move_mesh, setup),
      cmocka_unit_test_setup(test_move_refused, setup),
      cmocka_unit_test_setup(test_pick, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
