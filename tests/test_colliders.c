/* Capsule and mesh colliders (issue 17; docs/solver.md "Capsules and mesh
 * colliders", docs/testing.md "Colliders"):
 *  - the CPU reference and OpenCL in both kernel forms give the same bits
 *    (moving capsule and moving box, a cloth and a rope, 40 frames);
 *  - candidate lists: with the default K, with K = 4 (most particles near
 *    the box overflow and walk the tree) and with K = 0 (every particle
 *    walks the tree), a static and a moving box, CPU and both OpenCL forms:
 *    the same bits as the CPU reference walking the tree;
 *  - a capsule swept through a hanging cloth at 5 m/s with one substep a
 *    frame (83 mm a substep, more than the capsule's 50 mm diameter): no
 *    particle of the band the capsule sweeps ends a frame behind its axis;
 *  - friction: a cloth square on a box under gravity tilted by theta
 *    (the same as a box tilted by theta), mu = 0.5: it stays when
 *    tan theta < mu (20 deg) and slides when tan theta > mu (35 deg);
 *  - the main scene over the 4900-triangle mesh sphere and over the
 *    analytic sphere: where the cloth touches both, the distance from the
 *    centre agrees within 5 mm, half the particles within 5 mm in position,
 *    and at every frame no particle is deeper than half the thickness;
 *  - the sewn skirt settling on the mannequin (240 frames) and a cape on the
 *    walking, turning mannequin (180 frames): at every frame no particle
 *    inside the mesh (ray parity, in the body's own frame) and the smallest
 *    signed distance >= -0.5 x thickness; both touch the body;
 *  - a box corner under a coarse cloth (between its particles) stays under
 *    it at every frame (the vertex-triangle pass);
 *  - a deforming collider (an OBJ sequence of a growing box) lifts a cloth
 *    lying on it, no particle inside at any frame;
 *  - a cloth starting 0.1 m inside a closed box leaves through the nearest
 *    face at the first substep without gaining speed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A cloth dropped onto a static box (lists that last across frames). */
static const char *STATIC_BOX =
    "{ \"dt\": 0.016666, \"substeps\": 5,"
    "  \"cloth\": [{ \"name\": \"sheet\", \"grid\": { \"cols\": 16, \"rows\": 16, \"spacing\": 0.03,"
    "     \"origin\": [-0.2, 0.45, -0.25], \"plane\": \"xz\" }, \"thickness\": 0.01 }],"
    "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"scale\": 0.3, \"translate\": [0.1, 0.2, 0],"
    "     \"rotate_deg\": [10, 20, 5] }, \"friction\": 0.3, \"thickness\": 0.005 }],"
    "  \"floor\": { \"height\": 0 } }";

/* OpenCL (both kernel forms) against the CPU reference after 40 frames of
 * scene json, to the bit. */
static void same_bits(const char *json, const char *what) {
  drape_scene s;
  load(json, &s);
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
    print_message("colliders (%s), %s form vs CPU reference: %d of %d floats differ\n", what,
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

/* The moving box and capsule (exact tests every substep), and the static
 * box (balls, contact planes of touching and near particles, answered
 * eight at once by the vector form). */
static void test_same_bits(void **state) {
  same_bits(SMALL, "moving box, capsule");
  same_bits(STATIC_BOX, "static box");
}

/* Positions after `frames` with DRAPE_COLLIDER_SLOTS = slots ("" = the
 * default) on backend be (kernel form k on OpenCL). Near particles' contact
 * planes are made from the list's entries, which the tree walk does not
 * keep: they are off here (DRAPE_COLLIDER_PLANES=0), so every other part
 * of the lists and balls must give the walk's bits. */
static float *run_slots(const drape_scene *s, const char *slots, drape_backend be, int k,
                        int frames) {
  setenv("DRAPE_COLLIDER_PLANES", "0", 1);
  if (*slots) setenv("DRAPE_COLLIDER_SLOTS", slots, 1);
  else unsetenv("DRAPE_COLLIDER_SLOTS");
  test_kernel_form = be == DRAPE_BACKEND_CL ? test_form(k) : DRAPE_KERNEL_FORM_AUTO;
  drape_sim *sim = make_sim(s, be);
  step_frames(sim, frames);
  float *x = read_x(sim);
  drape_sim_destroy(sim);
  unsetenv("DRAPE_COLLIDER_SLOTS");
  unsetenv("DRAPE_COLLIDER_PLANES");
  test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
  return x;
}

static void test_candidate_lists(void **state) {
  const char *scenes[2] = {STATIC_BOX, SMALL};
  for (int sc = 0; sc < 2; sc++) {
    drape_scene s;
    load(scenes[sc], &s);
    const int frames = 40;
    float *walk = run_slots(&s, "0", DRAPE_BACKEND_CPU, 0, frames);
    drape_sim *probe = make_sim(&s, DRAPE_BACKEND_CPU);
    const int n = drape_sim_mesh(probe)->n_particles;
    drape_sim_destroy(probe);
    const char *slots[3] = {"", "4", "0"};
    for (int q = 0; q < 3; q++)
      for (int b = 0; b < 3; b++) {
        if (q == 2 && b == 0) continue; /* the reference itself */
        const drape_backend be = b == 0 ? DRAPE_BACKEND_CPU : DRAPE_BACKEND_CL;
        float *x = run_slots(&s, slots[q], be, b - 1, frames);
        int differ = 0;
        for (int i = 0; i < 4 * n; i++) differ += memcmp(&walk[i], &x[i], 4) != 0;
        print_message("scene %d, K %s, %s: %d of %d floats differ from the tree walk\n", sc,
                      *slots[q] ? slots[q] : "default", b == 0 ? "cpu" : test_form_name(b - 1),
                      differ, 4 * n);
        assert_int_equal(differ, 0);
        free(x);
      }
    /* the box held the cloth: some particle rests on it, above the floor */
    int on_box = 0;
    for (int i = 0; i < n; i++) on_box += walk[4 * i + 1] > 0.1f;
    assert_true(on_box > 0);
    free(walk);
    drape_scene_free(&s);
  }
  /* a bad K is refused, naming the variable */
  drape_scene s;
  load(STATIC_BOX, &s);
  setenv("DRAPE_COLLIDER_SLOTS", "-3", 1);
  drape_sim *bad = NULL;
  drape_err e = {0};
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = DRAPE_BACKEND_CPU;
  const int rc = drape_sim_create(&s, &o, &bad, &e);
  unsetenv("DRAPE_COLLIDER_SLOTS");
  assert_int_not_equal(rc, 0);
  assert_non_null(strstr(e.msg, "DRAPE_COLLIDER_SLOTS"));
  if (bad) drape_sim_destroy(bad);
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


/* A coarse cloth (10 cm between particles) dropped on a box standing on a
 * corner: the corner lies under a triangle's face, between particles. At
 * every frame the cloth above the corner stays at least half its thickness
 * above it, for the 40 frames before it slides off (without the
 * vertex-triangle pass the corner ends 7 cm above the cloth). */
static void test_corner_does_not_poke(void **state) {
  char json[1200];
  snprintf(json, sizeof json,
           "{ \"dt\": 0.016666666666666666, \"substeps\": 10,"
           "  \"cloth\": [{ \"name\": \"sheet\", \"grid\": { \"cols\": 6, \"rows\": 6, \"spacing\": 0.1,"
           "     \"origin\": [-0.26, 0.9, -0.24] }, \"thickness\": 0.01, \"compliance\": { \"bend\": 1e-2 } }],"
           "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"scale\": 0.4, \"translate\": [0, 0.4, 0],"
           "     \"rotate_deg\": [-45, 0, 35.26438968] }, \"friction\": 0.6, \"thickness\": 0.0 }],"
           "  \"floor\": { \"height\": 0 } }");
  drape_scene s;
  load(json, &s);
  const double top[3] = {0.0, 0.4 + 0.2 * sqrt(3.0), 0.0};
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  const drape_mesh *mesh = drape_sim_mesh(sim);
  uint32_t *tris = malloc(sizeof *tris * 3 * (size_t)mesh->n_tris);
  double worst = 1e9;
  int covered = 0;
  for (int f = 1; f <= 40; f++) { /* it slides off the corner after ~45 */
    step_frames(sim, 1);
    float *x = read_x(sim);
    drape_err e = {0};
    assert_int_equal(drape_sim_read_triangles(sim, tris, &e), 0);
    for (int t = 0; t < mesh->n_tris; t++) {
      const float *A = x + 4 * tris[3 * t], *B = x + 4 * tris[3 * t + 1], *C = x + 4 * tris[3 * t + 2];
      const double d = (B[2] - C[2]) * (A[0] - C[0]) + (C[0] - B[0]) * (A[2] - C[2]);
      if (d == 0) continue;
      const double l1 = ((B[2] - C[2]) * (top[0] - C[0]) + (C[0] - B[0]) * (top[2] - C[2])) / d;
      const double l2 = ((C[2] - A[2]) * (top[0] - C[0]) + (A[0] - C[0]) * (top[2] - C[2])) / d;
      const double l3 = 1 - l1 - l2;
      if (l1 < 0 || l2 < 0 || l3 < 0) continue;
      covered++;
      worst = fmin(worst, l1 * A[1] + l2 * B[1] + l3 * C[1] - top[1]);
    }
    free(x);
  }
  print_message("coarse cloth on a box corner, 40 frames: the cloth over the corner is at least "
                "%.4f m above it (thickness 0.01); covered at %d triangle-frames\n", worst, covered);
  assert_true(covered >= 40); /* the corner stays under the cloth */
  assert_true(worst >= 0.005);
  free(tris);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}


/* A deforming collider: a box growing from 0.3 m to 0.5 m over 1 s, as ten
 * OBJ frames (sequence, 10 fps) written here, centred at y = 0.25, with a
 * cloth lying on it: at every frame no particle inside the box as it is
 * then, and at the end the cloth lies on the grown top (y >= 0.5). */
static void test_sequence_lifts_cloth(void **state) {
  const char *bin = getenv("DRAPE_BINARY_DIR");
  char dir[1200], path[1400], box[1200];
  snprintf(dir, sizeof dir, "%s/test-tmp/colliders-seq-%d", bin ? bin : "/tmp", (int)getpid());
  snprintf(path, sizeof path, "mkdir -p '%s'", dir);
  assert_int_equal(system(path), 0);
  snprintf(box, sizeof box, "%s/box.obj", meshes_dir);
  for (int k = 1; k <= 11; k++) {
    const double size = 0.3 + 0.02 * (k - 1);
    FILE *in = fopen(box, "r");
    snprintf(path, sizeof path, "%s/grow_%02d.obj", dir, k);
    FILE *out = fopen(path, "w");
    assert_non_null(in);
    assert_non_null(out);
    char line[256];
    while (fgets(line, sizeof line, in)) {
      double x, y, z;
      if (sscanf(line, "v %lf %lf %lf", &x, &y, &z) == 3)
        fprintf(out, "v %.9g %.9g %.9g\n", x * size, y * size + 0.25, z * size);
      else
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
  }
  char json[2000];
  snprintf(json, sizeof json,
           "{ \"dt\": 0.016666666666666666, \"substeps\": 20,"
           "  \"cloth\": [{ \"name\": \"sheet\", \"grid\": { \"cols\": 8, \"rows\": 8, \"spacing\": 0.03,"
           "     \"origin\": [-0.105, 0.42, -0.105] }, \"thickness\": 0.01 }],"
           "  \"collider\": [{ \"sequence\": { \"files\": \"%s/grow_%%02d.obj\", \"fps\": 10 },"
           "     \"friction\": 0.5, \"thickness\": 0.0 }] }", dir);
  drape_scene s;
  load(json, &s);
  assert_int_equal(s.collider[0].seq_n, 11);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  const int n = drape_sim_mesh(sim)->n_particles;
  int inside = 0;
  double low = 1e9;
  for (int f = 1; f <= 90; f++) {
    step_frames(sim, 1);
    float *x = read_x(sim);
    const double t = f * s.dt, h = 0.5 * (0.3 + 0.2 * (t < 1 ? t : 1)) - 0.001;
    for (int i = 0; i < n; i++) {
      inside += fabs(x[4 * i]) < h && fabs(x[4 * i + 1] - 0.25) < h && fabs(x[4 * i + 2]) < h;
      if (f == 90) low = fmin(low, x[4 * i + 1]);
    }
    free(x);
  }
  print_message("cloth on a growing box (11 OBJ frames): %d particle-frames inside, lowest "
                "particle at the end %.4f m (top 0.5)\n", inside, low);
  assert_int_equal(inside, 0);
  assert_true(low >= 0.5 + 0.005);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
  snprintf(path, sizeof path, "rm -rf '%s'", dir);
  assert_int_equal(system(path), 0);
}


/* A small cloth that starts 0.1 m deep inside a closed box (far beyond the
 * contact distance) is found inside (ray parity) at the first substep and
 * leaves through the nearest face, the top, without gaining speed: on the
 * top after frame 1 and still resting there at frame 30; both OpenCL forms
 * give the reference's bits. */
static void test_deep_inside_rescue(void **state) {
  const char *json =
      "{ \"dt\": 0.016666666666666666, \"substeps\": 20,"
      "  \"cloth\": [{ \"name\": \"patch\", \"grid\": { \"cols\": 3, \"rows\": 3, \"spacing\": 0.02,"
      "     \"origin\": [-0.02, 0.9, -0.02] }, \"thickness\": 0.01 }],"
      "  \"collider\": [{ \"mesh\": { \"file\": \"box.obj\", \"translate\": [0, 0.5, 0] },"
      "     \"thickness\": 0.0 }] }";
  drape_scene s;
  load(json, &s);
  float *ref = NULL;
  for (int k = -1; k < 2; k++) {
    if (k >= 0) test_kernel_form = test_form(k);
    drape_sim *sim = make_sim(&s, k < 0 ? DRAPE_BACKEND_CPU : DRAPE_BACKEND_CL);
    const int n = drape_sim_mesh(sim)->n_particles;
    step_frames(sim, 1);
    float *x = read_x(sim);
    double lo1 = 1e9;
    for (int i = 0; i < n; i++) lo1 = fmin(lo1, x[4 * i + 1]);
    free(x);
    step_frames(sim, 29);
    x = read_x(sim);
    double lo = 1e9, hi = -1e9;
    for (int i = 0; i < n; i++) lo = fmin(lo, x[4 * i + 1]), hi = fmax(hi, x[4 * i + 1]);
    print_message("cloth 0.1 m inside a box (%s): lowest y %.4f after frame 1, %.4f..%.4f at "
                  "frame 30 (top 1.0, thickness 0.01)\n",
                  k < 0 ? "CPU" : test_form_name(k), lo1, lo, hi);
    assert_true(lo1 >= 1.005);
    assert_true(lo >= 1.005 && hi <= 1.02);
    if (k < 0) ref = x;
    else {
      assert_memory_equal(ref, x, sizeof(float) * 4 * (size_t)n);
      free(x);
    }
    drape_sim_destroy(sim);
  }
  test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
  free(ref);
  drape_scene_free(&s);
}


/* drape_sim_move_capsule (the viewer's Shift-drag): a capsule under a
 * resting cloth, moved up 0.3 m in one frame, carries the cloth up with it
 * (the move is swept: no particle is left below), and its ends read back
 * moved. */
static void test_move_capsule(void **state) {
  const char *json =
      "{ \"dt\": 0.016666666666666666, \"substeps\": 20,"
      "  \"cloth\": [{ \"name\": \"sheet\", \"grid\": { \"cols\": 9, \"rows\": 9, \"spacing\": 0.03,"
      "     \"origin\": [-0.12, 0.62, -0.12] }, \"thickness\": 0.01 }],"
      "  \"capsule\": [{ \"a\": [-0.5, 0.5, 0], \"b\": [0.5, 0.5, 0], \"radius\": 0.1 }] }";
  drape_scene s;
  load(json, &s);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  const int n = drape_sim_mesh(sim)->n_particles;
  step_frames(sim, 30); /* the cloth settles over the capsule */
  const double up[3] = {0, 0.3, 0};
  drape_err e = {0};
  assert_int_equal(drape_sim_move_capsule(sim, 0, up, &e), 0);
  step_frames(sim, 1);
  double a[3], b[3], r;
  assert_int_equal(drape_sim_get_capsule(sim, 0, a, b, &r), 0);
  float *x = read_x(sim);
  double lowest_mid = 1e9;
  for (int i = 0; i < n; i++)
    if (fabs(x[4 * i + 2]) < 0.02) lowest_mid = fmin(lowest_mid, x[4 * i + 1]);
  print_message("capsule moved up 0.3 m in one frame: axis at y %.4f; the cloth's middle row "
                "lowest at %.4f (the capsule's top 0.9 + 0.01)\n", a[1], lowest_mid);
  assert_near(a[1], 0.8, 1e-9);
  assert_true(lowest_mid > 0.8 + 0.1); /* above the axis: carried, not passed through */
  const double far[3] = {0, 2e6, 0};
  assert_int_equal(drape_sim_move_capsule(sim, 0, far, &e), DRAPE_EINVAL);
  assert_int_equal(drape_sim_move_capsule(sim, 1, up, &e), DRAPE_EINVAL);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
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
  /* the colliders are compared, not the self-contacts (20x the cost) */
  sa.cloth[0].self_collision = sm.cloth[0].self_collision = 0;
  drape_sim *a = make_sim(&sa, DRAPE_BACKEND_CL), *m = make_sim(&sm, DRAPE_BACKEND_CL);
  const int n = drape_sim_mesh(a)->n_particles, frames = 120;
  /* facets lie inside the sphere by at most 0.4 (1 - cos(pi / 50)) */
  const double r = 0.4, sag = 0.4 * (1 - cos(3.14159265358979323846 / 50)), th = 0.01;
  double deepest = 1e9, area_m = 0, area_a = 0;
  drape_stats st;
  for (int f = 0; f < frames; f++) {
    step_frames(m, 1);
    if (f == 29) { /* draped over the sphere, before the folds on the floor */
      assert_int_equal(drape_sim_stats(m, &st, &e), 0);
      area_m = st.objects[0].covered_area;
    }
    float *x = read_x(m);
    for (int i = 0; i < n; i++) {
      const double d = sqrt(x[4 * i] * x[4 * i] + (x[4 * i + 1] - 0.5) * (x[4 * i + 1] - 0.5) +
                            x[4 * i + 2] * x[4 * i + 2]) - (r - sag) - th;
      if (d < deepest) deepest = d;
    }
    free(x);
  }
  step_frames(a, 30);
  assert_int_equal(drape_sim_stats(a, &st, &e), 0);
  area_a = st.objects[0].covered_area;
  step_frames(a, frames - 30);
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
                "the centre within %.4f m, %d within 5 mm in position; footprint %.4f against "
                "%.4f m^2 at frame 30; deepest %.4f m below the offset facets (any frame)\n",
                frames, touch, worst_radial, close, area_m, area_a, deepest);
  /* the cloth rests on both at the same radius, and drapes over them to
   * the same footprint; where each particle lies later is chaotic in a
   * soft fabric's folds on the floor */
  assert_true(touch > 100);
  assert_true(worst_radial <= 0.005);
  assert_true(fabs(area_m / area_a - 1) < 0.03);
  assert_true(deepest >= -0.5 * th);
  free(xa), free(xm);
  drape_sim_destroy(a), drape_sim_destroy(m);
  drape_scene_free(&sa), drape_scene_free(&sm);
}


/* ---- signed distance to a closed triangle mesh, for the checks ------------
 * Inside by ray parity (+x ray against every triangle whose y-z box holds
 * the point, from a y-z grid), the distance to the nearest triangle within
 * `reach` (3-D grid); outside that reach the distance is reported as reach. */
typedef struct sdmesh {
  const double *v;
  const int *t;
  int nt;
  double lo[3], cell;
  int n[3];
  int *c3_off, *c3;   /* 3-D cells: triangles overlapping each      */
  int *c2_off, *c2;   /* y-z cells: triangles whose y-z box overlaps */
} sdmesh;

static void tri_box(const sdmesh *m, int t, double lo[3], double hi[3]) {
  for (int q = 0; q < 3; q++) lo[q] = 1e300, hi[q] = -1e300;
  for (int k = 0; k < 3; k++)
    for (int q = 0; q < 3; q++) {
      const double x = m->v[3 * m->t[3 * t + k] + q];
      lo[q] = fmin(lo[q], x), hi[q] = fmax(hi[q], x);
    }
}

static int cidx(const sdmesh *m, int q, double x) {
  int i = (int)floor((x - m->lo[q]) / m->cell);
  return i < 0 ? 0 : i >= m->n[q] ? m->n[q] - 1 : i;
}

static void sd_build(sdmesh *m, const drape_collider_def *d, double cell) {
  memset(m, 0, sizeof *m);
  m->v = d->vertices, m->t = d->tris, m->nt = d->n_tris, m->cell = cell;
  double hi[3] = {-1e300, -1e300, -1e300};
  for (int q = 0; q < 3; q++) m->lo[q] = 1e300;
  for (int i = 0; i < d->n_vertices; i++)
    for (int q = 0; q < 3; q++)
      m->lo[q] = fmin(m->lo[q], d->vertices[3 * i + q]), hi[q] = fmax(hi[q], d->vertices[3 * i + q]);
  for (int q = 0; q < 3; q++) m->n[q] = (int)((hi[q] - m->lo[q]) / cell) + 1;
  const int n3 = m->n[0] * m->n[1] * m->n[2], n2 = m->n[1] * m->n[2];
  m->c3_off = calloc((size_t)n3 + 1, sizeof(int));
  m->c2_off = calloc((size_t)n2 + 1, sizeof(int));
  for (int pass = 0; pass < 2; pass++) {
    for (int t = 0; t < m->nt; t++) {
      double lo[3], hb[3];
      tri_box(m, t, lo, hb);
      int a[3], b[3];
      for (int q = 0; q < 3; q++) a[q] = cidx(m, q, lo[q]), b[q] = cidx(m, q, hb[q]);
      for (int j = a[1]; j <= b[1]; j++)
        for (int k = a[2]; k <= b[2]; k++) {
          const int c2 = j * m->n[2] + k;
          if (pass == 0) m->c2_off[c2 + 1]++;
          else m->c2[m->c2_off[c2]++] = t;
          for (int i = a[0]; i <= b[0]; i++) {
            const int c3 = (i * m->n[1] + j) * m->n[2] + k;
            if (pass == 0) m->c3_off[c3 + 1]++;
            else m->c3[m->c3_off[c3]++] = t;
          }
        }
    }
    if (pass == 0) {
      for (int c = 0; c < n3; c++) m->c3_off[c + 1] += m->c3_off[c];
      for (int c = 0; c < n2; c++) m->c2_off[c + 1] += m->c2_off[c];
      m->c3 = malloc(sizeof(int) * (size_t)(m->c3_off[n3] + 1));
      m->c2 = malloc(sizeof(int) * (size_t)(m->c2_off[n2] + 1));
    } else { /* the fill advanced each start to the next cell's: shift back */
      for (int c = n3; c > 0; c--) m->c3_off[c] = m->c3_off[c - 1];
      for (int c = n2; c > 0; c--) m->c2_off[c] = m->c2_off[c - 1];
      m->c3_off[0] = m->c2_off[0] = 0;
    }
  }
}

static void sd_free(sdmesh *m) { free(m->c3_off), free(m->c3), free(m->c2_off), free(m->c2); }

/* Distance from q to triangle t (Ericson's closest point, in double). */
static double tri_dist(const sdmesh *m, int t, const double q[3]) {
  const double *A = m->v + 3 * m->t[3 * t], *B = m->v + 3 * m->t[3 * t + 1],
               *C = m->v + 3 * m->t[3 * t + 2];
  double ab[3], ac[3], ap[3], bp[3], cp[3], r[3];
  for (int k = 0; k < 3; k++)
    ab[k] = B[k] - A[k], ac[k] = C[k] - A[k], ap[k] = q[k] - A[k], bp[k] = q[k] - B[k],
    cp[k] = q[k] - C[k];
#define D3(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])
  const double d1 = D3(ab, ap), d2 = D3(ac, ap), d3 = D3(ab, bp), d4 = D3(ac, bp), d5 = D3(ab, cp),
               d6 = D3(ac, cp);
  const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  double v = 0, w = 0;
  if (d1 <= 0 && d2 <= 0) {
  } else if (d3 >= 0 && d4 <= d3) v = 1;
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) v = d1 / (d1 - d3);
  else if (d6 >= 0 && d5 <= d6) w = 1;
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) w = d2 / (d2 - d6);
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) w = (d4 - d3) / ((d4 - d3) + (d5 - d6)), v = 1 - w;
  else v = vb / (va + vb + vc), w = vc / (va + vb + vc);
  for (int k = 0; k < 3; k++) r[k] = q[k] - (A[k] + ab[k] * v + ac[k] * w);
  return sqrt(D3(r, r));
#undef D3
}

/* Signed distance of q (negative inside). */
static double sd_query(const sdmesh *m, const double q[3], double reach) {
  /* parity of the +x ray */
  const int j = cidx(m, 1, q[1]), k = cidx(m, 2, q[2]), c2 = j * m->n[2] + k;
  int crossings = 0;
  for (int e = m->c2_off[c2]; e < m->c2_off[c2 + 1]; e++) {
    const int t = m->c2[e];
    const double *A = m->v + 3 * m->t[3 * t], *B = m->v + 3 * m->t[3 * t + 1],
                 *C = m->v + 3 * m->t[3 * t + 2];
    /* the point in the triangle's y-z projection (half-open edges) */
    const double o1 = (B[1] - A[1]) * (q[2] - A[2]) - (B[2] - A[2]) * (q[1] - A[1]);
    const double o2 = (C[1] - B[1]) * (q[2] - B[2]) - (C[2] - B[2]) * (q[1] - B[1]);
    const double o3 = (A[1] - C[1]) * (q[2] - C[2]) - (A[2] - C[2]) * (q[1] - C[1]);
    if (!((o1 > 0 && o2 > 0 && o3 > 0) || (o1 < 0 && o2 < 0 && o3 < 0))) continue;
    const double s = o1 + o2 + o3; /* barycentric weights o2/s (A), o3/s (B), o1/s (C) */
    const double x = (o2 * A[0] + o3 * B[0] + o1 * C[0]) / s;
    crossings += x > q[0];
  }
  double best = reach;
  int a[3], b[3];
  for (int d = 0; d < 3; d++) a[d] = cidx(m, d, q[d] - reach), b[d] = cidx(m, d, q[d] + reach);
  for (int x = a[0]; x <= b[0]; x++)
    for (int y = a[1]; y <= b[1]; y++)
      for (int z = a[2]; z <= b[2]; z++) {
        const int c3 = (x * m->n[1] + y) * m->n[2] + z;
        for (int e = m->c3_off[c3]; e < m->c3_off[c3 + 1]; e++)
          best = fmin(best, tri_dist(m, m->c3[e], q));
      }
  return crossings % 2 ? -best : best;
}

/* Runs frames of a scene file with one mesh collider (index 0) and checks
 * every particle at every frame: how many inside, the smallest signed
 * distance, and the cloth's lowest point at the end. */
static void body_check(const char *scene, int frames, int *inside, double *min_sd, double *low_y,
                       double *thickness) {
  const char *src = getenv("DRAPE_SOURCE_DIR");
  char path[1200];
  snprintf(path, sizeof path, "%s/scenes/%s", src ? src : ".", scene);
  drape_scene s;
  drape_err e = {0};
  if (drape_scene_load(path, &s, &e)) {
    print_error("%s\n", e.msg);
    fail();
  }
  assert_true(s.n_collider >= 1);
  assert_true(s.collider[0].closed);
  *thickness = s.cloth[0].thickness;
  sdmesh m;
  sd_build(&m, &s.collider[0], 0.03);
  const drape_collider_def *cd = &s.collider[0];
  /* the checker itself: the torso's middle is inside, a point in front not */
  const double in_pt[3] = {0.0013, 1.2007, 0.0011}, out_pt[3] = {0.0013, 1.2007, 0.3};
  assert_true(sd_query(&m, in_pt, 0.05) < -0.04);
  assert_true(sd_query(&m, out_pt, 0.05) > 0.04);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  const int n = drape_sim_mesh(sim)->n_particles;
  *inside = 0, *min_sd = 1e9, *low_y = 1e9;
  double pivot[3] = {0, 0, 0}, lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (int i = 0; i < cd->n_vertices; i++)
    for (int q = 0; q < 3; q++)
      lo[q] = fmin(lo[q], cd->vertices[3 * i + q]), hi[q] = fmax(hi[q], cd->vertices[3 * i + q]);
  for (int q = 0; q < 3; q++) pivot[q] = 0.5 * (lo[q] + hi[q]);
  for (int f = 1; f <= frames; f++) {
    step_frames(sim, 1);
    float *x = read_x(sim);
    /* the body at this frame's end: its keys' inverse applied to the particle
     * would need the rotation; instead move the particle by the inverse of
     * the rigid motion numerically: find q with keys(q) = x (the motion is
     * rigid, so three reference points give it) */
    double o[3], ex[3], ey[3], ez[3];
    const double O[3] = {pivot[0], pivot[1], pivot[2]};
    const double X[3] = {pivot[0] + 1, pivot[1], pivot[2]}, Y[3] = {pivot[0], pivot[1] + 1, pivot[2]},
                 Z[3] = {pivot[0], pivot[1], pivot[2] + 1};
    const double t = f * s.dt;
    drape_collider_keys_apply((const double(*)[7])cd->keys, cd->n_keys, t, pivot, O, o);
    drape_collider_keys_apply((const double(*)[7])cd->keys, cd->n_keys, t, pivot, X, ex);
    drape_collider_keys_apply((const double(*)[7])cd->keys, cd->n_keys, t, pivot, Y, ey);
    drape_collider_keys_apply((const double(*)[7])cd->keys, cd->n_keys, t, pivot, Z, ez);
    for (int q = 0; q < 3; q++) ex[q] -= o[q], ey[q] -= o[q], ez[q] -= o[q];
    for (int i = 0; i < n; i++) {
      const double r[3] = {x[4 * i] - o[0], x[4 * i + 1] - o[1], x[4 * i + 2] - o[2]};
      /* rest position: pivot + R^T r */
      const double q[3] = {pivot[0] + r[0] * ex[0] + r[1] * ex[1] + r[2] * ex[2],
                           pivot[1] + r[0] * ey[0] + r[1] * ey[1] + r[2] * ey[2],
                           pivot[2] + r[0] * ez[0] + r[1] * ez[1] + r[2] * ez[2]};
      const double d = sd_query(&m, q, 0.05);
      if (d < 0 && *inside < 3)
        print_message("inside: frame %d particle %d at (%.4f %.4f %.4f), rest (%.4f %.4f %.4f), sd %.4f\n",
                      f, i, x[4 * i], x[4 * i + 1], x[4 * i + 2], q[0], q[1], q[2], d);
      *inside += d < 0;
      *min_sd = fmin(*min_sd, d);
      if (f == frames) *low_y = fmin(*low_y, x[4 * i + 1]);
    }
    free(x);
  }
  drape_sim_destroy(sim);
  sd_free(&m);
  drape_scene_free(&s);
}

static void test_skirt_on_mannequin(void **state) {
  int inside;
  double min_sd, low_y, th;
  body_check("skirt_mannequin.json", 240, &inside, &min_sd, &low_y, &th);
  print_message("skirt on the mannequin, 240 frames: %d particle-frames inside, smallest signed "
                "distance %.4f m (thickness %.3f), lowest point %.3f m at the end\n",
                inside, min_sd, th, low_y);
  assert_int_equal(inside, 0);
  assert_true(min_sd >= -0.5 * th);
  assert_true(min_sd < th + 0.002); /* it does lie on the body */
  assert_true(low_y > 0.2);         /* on the hips, not on the floor */
}

static void test_cape_on_walking_body(void **state) {
  int inside;
  double min_sd, low_y, th;
  body_check("cape_walk.json", 180, &inside, &min_sd, &low_y, &th);
  print_message("cape on the walking mannequin, 180 frames: %d particle-frames inside, smallest "
                "signed distance %.4f m (thickness %.3f), lowest point %.3f m at the end\n",
                inside, min_sd, th, low_y);
  assert_int_equal(inside, 0);
  assert_true(min_sd >= -0.5 * th);
  assert_true(min_sd < th + 0.002); /* it did lie against the body */
  assert_true(low_y > 0.5);         /* hanging from the shoulders, not on the floor */
}

/* Keys are found by a binary search: with 100,000 keys at irregular
 * times, every time (before, between, on and after the keys) gives the
 * pose of the linear search it replaced, to the bit; the pose is linear
 * in the neighbouring keys, so a point on a key takes that key's. */
static void test_many_keys(void **state) {
  (void)state;
  const int n = 100000;
  double (*k)[7] = malloc(sizeof *k * (size_t)n);
  assert_non_null(k);
  double t = 0;
  for (int i = 0; i < n; i++) {
    t += 0.001 + 0.002 * ((i * 7919) % 13) / 13.0;
    k[i][0] = t;
    for (int c = 1; c < 7; c++) k[i][c] = sin(0.37 * i + c) * (c < 4 ? 2.0 : 40.0);
  }
  const double pivot[3] = {0.1, 0.2, 0.3}, in[3] = {1, -2, 0.5};
  for (int s = 0; s < 2000; s++) {
    const double ts = -0.5 + (t + 1) * (s / 1999.0);
    double got[3], want[3];
    drape_collider_keys_apply((const double(*)[7])k, n, ts, pivot, in, got);
    /* the reference: the key pair by a linear walk, through a two-key list */
    int j = 1;
    while (j < n - 1 && k[j][0] < ts) j++;
    if (ts <= k[0][0]) drape_collider_keys_apply((const double(*)[7])k, 1, ts, pivot, in, want);
    else if (ts >= k[n - 1][0]) drape_collider_keys_apply((const double(*)[7])(k + n - 1), 1, ts, pivot, in, want);
    else drape_collider_keys_apply((const double(*)[7])(k + j - 1), 2, ts, pivot, in, want);
    assert_memory_equal(got, want, sizeof got);
  }
  free(k);
}

/* A sheet that starts half inside a sphere and a capsule is put on their
 * surfaces at rest, not thrown out at its depth over one substep (depth
 * / h: 8 cm at 1/1200 s is 96 m/s): after 10 frames nothing is inside and
 * the fastest particle, pulled back by its stretched links, is under
 * 10 m/s. A capsule keyed 1e6 m away in one frame
 * carries the cloth beyond the scene's range: the run stops as a
 * divergence that says so. */
static void test_start_inside(void **state) {
  (void)state;
  const char *text =
      "{\"cloth\": [{\"name\": \"sheet\", \"grid\": {\"cols\": 21, \"rows\": 21, \"spacing\": 0.02, "
      "\"origin\": [-0.2, 0.5, -0.2]}}],"
      " \"sphere\": [{\"center\": [-0.1, 0.5, 0], \"radius\": 0.08}],"
      " \"capsule\": [{\"a\": [0.1, 0.5, -0.2], \"b\": [0.1, 0.5, 0.2], \"radius\": 0.05}]}";
  drape_scene sc;
  drape_err e = {0};
  assert_int_equal(drape_scene_parse(text, "inside", &sc, &e), 0);
  for (int be = 0; be < 2; be++) {
    drape_sim *sim = make_sim(&sc, be ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU);
    step_frames(sim, 10);
    const int n = 21 * 21;
    float *x = read_x(sim), *v = malloc(sizeof *v * 4 * n);
    assert_int_equal(drape_sim_read_velocities(sim, v, &e), 0);
    double vmax = 0, inside = 0;
    for (int i = 0; i < n; i++) {
      vmax = fmax(vmax, sqrt(v[4 * i] * v[4 * i] + v[4 * i + 1] * v[4 * i + 1] + v[4 * i + 2] * v[4 * i + 2]));
      const double dx = x[4 * i] + 0.1, dy = x[4 * i + 1] - 0.5, dz = x[4 * i + 2];
      if (sqrt(dx * dx + dy * dy + dz * dz) < 0.08) inside++;
      const double cx = x[4 * i] - 0.1, cy = x[4 * i + 1] - 0.5;
      if (fabs(x[4 * i + 2]) <= 0.2 && sqrt(cx * cx + cy * cy) < 0.05) inside++;
    }
    print_message("start inside (%s): max speed %.3f m/s after 10 frames, %g particles inside\n",
                  be ? "cl" : "cpu", vmax, inside);
    assert_true(vmax < 10.0); /* thrown out at depth / h: 96 m/s and more */
    assert_true(inside == 0);
    free(x), free(v);
    drape_sim_destroy(sim);
  }
  drape_scene_free(&sc);
  const char *far =
      "{\"cloth\": [{\"name\": \"sheet\", \"grid\": {\"cols\": 8, \"rows\": 8, \"spacing\": 0.02, "
      "\"origin\": [-0.07, 0.6, -0.07]}}],"
      " \"capsule\": [{\"a\": [0, 0.5, -0.5], \"b\": [0, 0.5, 0.5], \"radius\": 0.1,"
      " \"keys\": [[0, 0, 0, 0, 0, 0, 0], [0.02, 0, 1000000, 0, 0, 0, 0]]}]}";
  assert_int_equal(drape_scene_parse(far, "far", &sc, &e), 0);
  drape_sim *sim = make_sim(&sc, DRAPE_BACKEND_CPU);
  int rc = 0;
  for (int f = 0; f < 5 && !rc; f++) rc = drape_sim_step(sim, &e);
  assert_int_equal(rc, DRAPE_EUNSTABLE);
  print_message("keyed away: %s\n", e.msg);
  assert_non_null(strstr(e.msg, "beyond the +-1e+06 m a scene holds"));
  drape_sim_destroy(sim);
  drape_scene_free(&sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_same_bits, setup),
      cmocka_unit_test_setup(test_candidate_lists, setup),
      cmocka_unit_test_setup(test_capsule_sweep, setup),
      cmocka_unit_test_setup(test_friction_threshold, setup),
      cmocka_unit_test_setup(test_corner_does_not_poke, setup),
      cmocka_unit_test_setup(test_sequence_lifts_cloth, setup),
      cmocka_unit_test_setup(test_deep_inside_rescue, setup),
      cmocka_unit_test_setup(test_move_capsule, setup),
      cmocka_unit_test_setup(test_mesh_sphere, setup),
      cmocka_unit_test_setup(test_skirt_on_mannequin, setup),
      cmocka_unit_test_setup(test_cape_on_walking_body, setup),
      cmocka_unit_test(test_many_keys),
      cmocka_unit_test(test_start_inside),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
