/* Friction on a tilted box, literally (issue 17's check: "a cloth square
 * on a box collider tilted by angle theta stays put when tan theta < mu
 * and slides when tan theta > mu"; docs/testing.md "Colliders"): the box
 * (meshes/box.obj, 2 m) turned by rotate_deg theta about z, a 9 x 9 cloth
 * (a mesh cloth written here, turned the same way) lying on its tilted
 * top face, gravity straight down, mu = 0.5 (tan theta = mu at 26.57 deg):
 *  - 22 deg (tan 0.40): the cloth moves less than 1 mm along the slope in
 *    1 s;
 *  - 31 deg (tan 0.60): it slides, within 5 % of the analytic distance
 *    a t^2 / 2 with a = g (sin theta - mu cos theta) (0.424 m in 1 s), and
 *    stays on the face (no particle below it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "drape/scene.h"

#define PI 3.14159265358979323846

static char meshes_dir[1024], square_obj[1200];

/* the cloth: 9 x 9 points 3 cm apart in the xz plane, centred at 0 */
static int setup(void **state) {
  (void)state;
  const char *src = getenv("DRAPE_SOURCE_DIR"), *bin = getenv("DRAPE_BINARY_DIR");
  snprintf(meshes_dir, sizeof meshes_dir, "%s/meshes", src ? src : ".");
  snprintf(square_obj, sizeof square_obj, "%s/friction_square.obj", bin ? bin : ".");
  FILE *f = fopen(square_obj, "w");
  assert_non_null(f);
  for (int i = 0; i < 9; i++)
    for (int j = 0; j < 9; j++) fprintf(f, "v %.17g 0 %.17g\n", 0.03 * (j - 4), 0.03 * (i - 4));
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      const int a = 1 + 9 * i + j, b = a + 1, c = a + 9, d = c + 1;
      fprintf(f, "f %d %d %d\nf %d %d %d\n", a, c, b, b, c, d);
    }
  assert_int_equal(fclose(f), 0);
  return 0;
}

/* Mean move along the slope (downhill positive) in 1 s at tilt theta, and
 * the lowest signed height above the top face. */
static void tilted(double theta_deg, double *slide, double *lowest) {
  const double th = theta_deg * PI / 180.0;
  /* the top face's normal and downhill direction after the turn about z */
  const double n[3] = {-sin(th), cos(th), 0}, down[3] = {-cos(th), -sin(th), 0};
  const double lift = 1.0 + 0.0105; /* half the box + the contact distance + 0.5 mm */
  char json[3000];
  snprintf(json, sizeof json,
           "{ \"dt\": 0.016666666666666666, \"substeps\": 20, \"gravity\": [0, -9.81, 0],"
           "  \"cloth\": [{ \"name\": \"patch\", \"mesh\": { \"file\": \"%s\","
           "     \"rotate_deg\": [0, 0, %.17g], \"translate\": [%.17g, %.17g, 0] },"
           "     \"thickness\": 0.01 }],"
           "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"scale\": 2,"
           "     \"rotate_deg\": [0, 0, %.17g] }, \"friction\": 0.5, \"thickness\": 0.005 }] }",
           square_obj, theta_deg, lift * n[0], lift * n[1], theta_deg);
  drape_scene s;
  drape_err e = {0};
  if (drape_scene_parse_in(json, "test", meshes_dir, &s, &e)) {
    print_error("scene: %s\n", e.msg);
    fail();
  }
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  const int np = drape_sim_mesh(sim)->n_particles;
  float *x0 = read_x(sim);
  step_frames(sim, 60);
  float *x = read_x(sim);
  *slide = 0, *lowest = 1e9;
  for (int i = 0; i < np; i++) {
    double dd = 0, h = 0;
    for (int q = 0; q < 3; q++) {
      dd += (x[4 * i + q] - x0[4 * i + q]) * down[q];
      h += x[4 * i + q] * n[q];
    }
    *slide += dd / np;
    *lowest = fmin(*lowest, h - 1.0);
  }
  free(x0), free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

static void test_tilted_box(void **state) {
  (void)state;
  const double mu = 0.5, g = 9.81;
  double stay, stay_low, go, go_low;
  tilted(22.0, &stay, &stay_low);
  tilted(31.0, &go, &go_low);
  const double th = 31.0 * PI / 180.0, a = g * (sin(th) - mu * cos(th)), want = 0.5 * a;
  print_message("box tilted 22 deg (tan %.3f < mu %.1f): %.5f m along the slope in 1 s, lowest "
                "%.4f m above the face\n", tan(22.0 * PI / 180.0), mu, stay, stay_low);
  print_message("box tilted 31 deg (tan %.3f > mu): %.4f m in 1 s, analytic a t^2/2 = %.4f m "
                "(a = %.3f m/s^2), lowest %.4f m above the face\n",
                tan(th), go, want, a, go_low);
  assert_true(fabs(stay) < 0.001);
  assert_true(stay_low > 0.005); /* on the face (contact at 0.01), not in it */
  assert_true(fabs(go - want) < 0.05 * want);
  assert_true(go_low > 0.005);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_tilted_box, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
