/* Capsule and mesh colliders (issue 17; docs/solver.md "Capsules and mesh
 * colliders", docs/testing.md "Colliders"):
 *  - the CPU reference and OpenCL in both kernel forms give the same bits
 *    (moving capsule and moving box, a cloth and a rope, 40 frames);
 *  - a capsule swept through a hanging cloth at 5 m/s with one substep a
 *    frame (83 mm a substep, more than the capsule's 50 mm diameter): no
 *    particle of the band the capsule sweeps ends a frame behind its axis;
 *  - friction: a cloth square on a box under gravity tilted by theta
 *    (the same as a box tilted by theta), mu = 0.5: it stays when
 *    tan theta < mu (20 deg) and slides when tan theta > mu (35 deg);
 *  - the main scene over the 4900-triangle mesh sphere and over the
 *    analytic sphere: where the cloth touches both, the distance from the
 *    centre agrees within 5 mm, half the particles within 5 mm in position,
 *    and at every frame no particle is deeper than half the thickness. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "drape/scene.h"

static char meshes_dir[1024];

static void load(const char *json, drape_scene *s) {
  drape_err e = {0};
  if (drape_scene_parse_in(json, "test", meshes_dir, s, &e)) {
    print_error("scene: %s\n", e.msg);
    fail();
  }
}

static int setup(void **state) {
  const char *src = getenv("DRAPE_SOURCE_DIR");
  snprintf(meshes_dir, sizeof meshes_dir, "%s/meshes", src ? src : ".");
  return 0;
}

static const char *SMALL =
    "{ \"dt\": 0.016666, \"substeps\": 4,"
    "  \"cloth\": [{ \"name\": \"sheet\", \"grid\": { \"cols\": 12, \"rows\": 12, \"spacing\": 0.05,"
    "     \"origin\": [-0.3, 0.8, -0.3], \"plane\": \"xz\" }, \"thickness\": 0.01 }],"
    "  \"rope\": [{ \"name\": \"r\", \"start\": [-0.3, 0.9, 0.1], \"end\": [0.3, 0.9, 0.1],"
    "     \"length\": 0.7, \"segments\": 14 }],"
    "  \"capsule\": [{ \"a\": [-0.5, 0.5, 0], \"b\": [0.5, 0.55, 0], \"radius\": 0.08,"
    "     \"friction\": 0.4, \"keys\": [[0, 0, 0, 0, 0, 0, 0], [0.5, 0, 0.1, 0.1, 0, 30, 0]] }],"
    "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"scale\": 0.3, \"translate\": [0.1, 0.2, 0] },"
    "     \"friction\": 0.5, \"thickness\": 0.005,"
    "     \"keys\": [[0, 0, 0, 0, 0, 0, 0], [1, 0, 0.2, 0, 0, 0, 20]] }],"
    "  \"floor\": { \"height\": 0 } }";

static void test_same_bits(void **state) {
  drape_scene s;
  load(SMALL, &s);
  const int frames = 40;
  drape_sim *ref = make_sim(&s, DRAPE_BACKEND_CPU);
  step_frames(ref, frames);
  float *xr = read_x(ref);
  const int n = drape_sim_mesh(ref)->n_particles;
  for (int k = 0; k < 2; k++) {
    test_kernel_form = test_form(k);
    drape_sim *cl = make_sim(&s, DRAPE_BACKEND_CL);
    step_frames(cl, frames);
    float *xc = read_x(cl);
    int differ = 0;
    for (int i = 0; i < 4 * n; i++) differ += memcmp(&xr[i], &xc[i], 4) != 0;
    print_message("colliders, %s form vs CPU reference: %d of %d floats differ\n",
                  test_form_name(k), differ, 4 * n);
    assert_int_equal(differ, 0);
    free(xc);
    drape_sim_destroy(cl);
  }
  test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
  /* and they did something: some particle rests on the box or the capsule */
  int above_floor = 0;
  for (int i = 0; i < n; i++) above_floor += xr[4 * i + 1] > 0.05f;
  assert_true(above_floor > 0);
  free(xr);
  drape_sim_destroy(ref);
  drape_scene_free(&s);
}

/* The capsule's axis z at time t (keys: from -0.29 at 5 m/s for 1/15 s). */
static double capsule_z(double t) { return -0.29 + 5.0 * (t < 1.0 / 15.0 ? t : 1.0 / 15.0); }

/* Particles whose path over a frame, seen from the capsule (which only
 * translates along z), passes within 0.9 of its radius of the axis: they
 * went through it, not round it. The axis is along x and longer than the
 * cloth, so the distance is in (y, z). */
static void sweep(drape_backend be, int *crossed, int *touched) {
  const char *json =
      "{ \"dt\": 0.016666666666666666, \"substeps\": 1,"
      "  \"cloth\": [{ \"name\": \"curtain\", \"grid\": { \"cols\": 21, \"rows\": 21, \"spacing\": 0.03,"
      "     \"origin\": [-0.3, 1.0, 0], \"plane\": \"xy\" }, \"thickness\": 0.005,"
      "     \"pins\": [[0,0],[0,2],[0,4],[0,6],[0,8],[0,10],[0,12],[0,14],[0,16],[0,18],[0,20]] }],"
      "  \"capsule\": [{ \"a\": [-0.6, 0.55, -0.29], \"b\": [0.6, 0.55, -0.29], \"radius\": 0.03,"
      "     \"friction\": 0.2, \"keys\": [[0, 0, 0, 0, 0, 0, 0],"
      "     [0.066666666666666666, 0, 0, 0.33333333333333333, 0, 0, 0]] }] }";
  drape_scene s;
  load(json, &s);
  drape_sim *sim = make_sim(&s, be);
  const int n = drape_sim_mesh(sim)->n_particles;
  const double r = 0.03, yc = 0.55;
  float *prev = read_x(sim);
  *crossed = 0, *touched = 0;
  for (int f = 1; f <= 12; f++) {
    step_frames(sim, 1);
    float *x = read_x(sim);
    const double z0 = capsule_z((f - 1) * s.dt), z1 = capsule_z(f * s.dt);
    for (int i = 0; i < n; i++) {
      const double ay = prev[4 * i + 1] - yc, az = prev[4 * i + 2] - z0;
      const double by = x[4 * i + 1] - yc, bz = x[4 * i + 2] - z1;
      const double dy = by - ay, dz = bz - az, l2 = dy * dy + dz * dz;
      double t = l2 > 0 ? -(ay * dy + az * dz) / l2 : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const double cy = ay + t * dy, cz = az + t * dz;
      if (sqrt(cy * cy + cz * cz) < 0.9 * r) (*crossed)++;
      if (sqrt(by * by + bz * bz) < r + 0.02) (*touched)++;
    }
    free(prev);
    prev = x;
  }
  free(prev);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

static void test_capsule_sweep(void **state) {
  int crossed, touched;
  /* without the continuous test this crosses 21 particles (the middle
   * row: the capsule's frame-end positions skip over it) */
  sweep(DRAPE_BACKEND_CPU, &crossed, &touched);
  print_message("capsule at 5 m/s, 83 mm a substep (diameter 70 mm with the margin): %d "
                "particle paths through it, %d particle-frames near it\n", crossed, touched);
  assert_true(touched > 100); /* it did push the cloth */
  assert_int_equal(crossed, 0);
}

/* A 9 x 9 cloth on the top of a box under gravity tilted by theta about z. */
static double slide(double theta_deg) {
  char json[2048];
  const double th = theta_deg * 3.14159265358979323846 / 180.0;
  snprintf(json, sizeof json,
           "{ \"dt\": 0.016666666666666666, \"substeps\": 20, \"gravity\": [%.17g, %.17g, 0],"
           "  \"cloth\": [{ \"name\": \"patch\", \"grid\": { \"cols\": 9, \"rows\": 9, \"spacing\": 0.03,"
           "     \"origin\": [-0.12, 0.5105, -0.12], \"plane\": \"xz\" }, \"thickness\": 0.01 }],"
           "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\" }, \"friction\": 0.5,"
           "     \"thickness\": 0.005 }] }",
           9.81 * sin(th), -9.81 * cos(th));
  drape_scene s;
  load(json, &s);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  float *x0 = read_x(sim);
  step_frames(sim, 60);
  float *x = read_x(sim);
  const int n = drape_sim_mesh(sim)->n_particles;
  double dx = 0, miny = 1e9;
  for (int i = 0; i < n; i++) {
    dx += (x[4 * i] - x0[4 * i]) / n;
    if (x[4 * i + 1] < miny) miny = x[4 * i + 1];
  }
  print_message("theta %.0f deg (tan %.3f, mu 0.5): mean slide %.4f m in 1 s, lowest y %.4f\n",
                theta_deg, tan(th), dx, miny);
  if (theta_deg < 30) assert_true(miny > 0.5 + 0.005); /* on the box, not in it */
  free(x0), free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
  return dx;
}

static void test_friction_threshold(void **state) {
  const double stay = slide(20.0), go = slide(35.0);
  assert_true(fabs(stay) < 0.005);  /* tan 20 = 0.36 < 0.5: static     */
  /* tan 35 = 0.70 > 0.5: kinetic, a = g (sin - mu cos) = 1.61 m/s^2: 0.8 m in 1 s
   * if it stayed on; it leaves the 1 m box (0.5 m to the edge) */
  assert_true(go > 0.3);
}

static void test_mesh_sphere(void **state) {
  const char *src = getenv("DRAPE_SOURCE_DIR");
  char path[1200], dir[1100];
  snprintf(dir, sizeof dir, "%s/scenes", src ? src : ".");
  drape_scene sa, sm;
  drape_err e = {0};
  snprintf(path, sizeof path, "%s/drape_sphere.json", dir);
  assert_int_equal(drape_scene_load(path, &sa, &e), 0);
  snprintf(path, sizeof path, "%s/mesh_sphere.json", dir);
  if (drape_scene_load(path, &sm, &e)) {
    print_error("%s\n", e.msg);
    fail();
  }
  assert_int_equal(sm.n_collider, 1);
  assert_int_equal(sm.collider[0].n_tris, 4900);
  assert_true(sm.collider[0].closed);
  drape_sim *a = make_sim(&sa, DRAPE_BACKEND_CL), *m = make_sim(&sm, DRAPE_BACKEND_CL);
  const int n = drape_sim_mesh(a)->n_particles, frames = 120;
  /* facets lie inside the sphere by at most 0.4 (1 - cos(pi / 50)) */
  const double r = 0.4, sag = 0.4 * (1 - cos(3.14159265358979323846 / 50)), th = 0.01;
  double deepest = 1e9;
  for (int f = 0; f < frames; f++) {
    step_frames(m, 1);
    float *x = read_x(m);
    for (int i = 0; i < n; i++) {
      const double d = sqrt(x[4 * i] * x[4 * i] + (x[4 * i + 1] - 0.5) * (x[4 * i + 1] - 0.5) +
                            x[4 * i + 2] * x[4 * i + 2]) - (r - sag) - th;
      if (d < deepest) deepest = d;
    }
    free(x);
  }
  step_frames(a, frames);
  float *xa = read_x(a), *xm = read_x(m);
  int touch = 0, close = 0;
  double worst_radial = 0;
  for (int i = 0; i < n; i++) {
    const float *p = xa + 4 * i, *q = xm + 4 * i;
    const double ra = sqrt(p[0] * p[0] + (p[1] - 0.5) * (p[1] - 0.5) + p[2] * p[2]);
    const double rm = sqrt(q[0] * q[0] + (q[1] - 0.5) * (q[1] - 0.5) + q[2] * q[2]);
    if (ra > r + th + 0.002 || rm > r + th + 0.002) continue;
    touch++;
    worst_radial = fmax(worst_radial, fabs(ra - rm));
    const double dd = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                           (p[2] - q[2]) * (p[2] - q[2]));
    close += dd <= 0.005;
  }
  print_message("mesh sphere vs sphere after %d frames: %d particles touch both, distance from "
                "the centre within %.4f m, %d within 5 mm in position; deepest %.4f m below the "
                "offset facets (any frame)\n",
                frames, touch, worst_radial, close, deepest);
  assert_true(touch > 100);
  assert_true(worst_radial <= 0.005);
  assert_true(2 * close >= touch);
  assert_true(deepest >= -0.5 * th);
  free(xa), free(xm);
  drape_sim_destroy(a), drape_sim_destroy(m);
  drape_scene_free(&sa), drape_scene_free(&sm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_same_bits, setup),
      cmocka_unit_test_setup(test_capsule_sweep, setup),
      cmocka_unit_test_setup(test_friction_threshold, setup),
      cmocka_unit_test_setup(test_mesh_sphere, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
