/* The crossing count on the OpenCL device (issue 18; kernels/crossings.cl,
 * src/cloth/crossings_cl.c) against the host's exact reference
 * (dr_count_crossings), which it must equal in every state:
 *   - the small cases (through, touching, corner, edge, in the plane,
 *     sharing a point, torn) and two sheets cutting each other (4n - 5);
 *   - crumpled random sheets (12x12, 20 states; 64x64 at three amplitudes)
 *     with the double filter and with the float filter forced;
 *   - nearly coplanar, degenerate states (two sheets in the same oblique
 *     plane, one shifted by a fraction of a cell, a third through both,
 *     triangles with two equal corners): the filter must leave pairs to the
 *     host's exact test (unsure > 0) and the count is still the reference's;
 *   - fixed capacities too small (16 cell entries; 1 undecided pair): the
 *     device says so and the sim's count falls back to the host, equal;
 *   - the twist (scenes/twist.json) without the step bounds, the sim's own
 *     count (drape_sim_count_crossings on OpenCL: the device path, checked)
 *     against the reference on the read-back points every 10th frame to
 *     frame 90 (past 1,000 crossings), and DRAPE_CROSSINGS=host / bad values;
 *   - the time of one count, host and device, at 64^2 (and 256^2 with
 *     DRAPE_TEST_CROSSINGS_TIME=1), printed for docs/selfcollision.md. */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "cloth/crossings.h"
#include "cloth/sim.h"
#include "cloth_util.h"
#include "crossing_fixture.h"

static uint64_t rng = 0x13198A2E03707344ull;
static uint64_t next_u64(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double urand(void) { return (double)(next_u64() >> 11) * 0x1p-53; }

static drape_cl g_cl;
static dr_crossings_cl *g_k;

static int setup(void **state) {
  (void)state;
  drape_err e = {0};
  drape_cl_opts o = drape_cl_default_opts();
  if (drape_cl_init(&g_cl, &o, &e)) {
    print_error("drape_cl_init: %s\n", e.msg);
    return -1;
  }
  if (dr_crossings_cl_create(&g_cl, &g_k, &e)) {
    print_error("dr_crossings_cl_create: %s\n", e.msg);
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  dr_crossings_cl_destroy(g_k);
  drape_cl_release(&g_cl);
  return 0;
}

static long host_count(const dr_crossing_mesh *m) {
  long c = -1;
  drape_err e = {0};
  assert_int_equal(dr_count_crossings(m, &c, &e), 0);
  return c;
}

/* The device's count of m (must not fall back unless allowed) against the
 * host's; returns the count. */
static long check_mesh(const dr_crossing_mesh *m, dr_crossings_info *out) {
  long dev = -1;
  dr_crossings_info inf;
  drape_err e = {0};
  assert_int_equal(dr_crossings_cl_count(g_k, m, NULL, NULL, NULL, &dev, &inf, &e), 0);
  const long want = host_count(m);
  if (inf.device && dev != want)
    fail_msg("device %ld, host %ld (unsure %ld, pairs %ld, dbl %d)", dev, want, inf.unsure,
             inf.pairs, inf.dbl);
  if (out) *out = inf;
  else assert_int_equal(inf.device, 1);
  return want;
}

static void both_filters(const dr_crossing_mesh *m, long *count, long *unsure_d, long *unsure_f) {
  dr_crossings_info a, b;
  dr_crossings_cl_set_limits(g_k, -1, -1, 0);
  *count = check_mesh(m, &a);
  dr_crossings_cl_set_limits(g_k, -1, -1, 1);
  check_mesh(m, &b);
  dr_crossings_cl_set_limits(g_k, -1, -1, 0);
  assert_int_equal(a.device, 1);
  assert_int_equal(b.device, 1);
  assert_int_equal(b.dbl, 0);
  if (unsure_d) *unsure_d = a.unsure;
  if (unsure_f) *unsure_f = b.unsure;
}

/* ---- meshes ---- */


static void test_small_cases(void **state) {
  (void)state;
  float x[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.2f, 0.2f, -1}, {0.2f, 0.2f, 1}, {0, 0, 0}};
  const uint32_t tri[3] = {0, 1, 2}, seg[2] = {3, 4}, torn[3] = {1, 1, 1};
  dr_crossing_mesh m = {&x[0][0], 3, 5, tri, 1, seg, 1};
  long c, ud, uf;
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 1);
  x[3][2] = 0.5f; /* both ends above */
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 0);
  x[3][2] = 0; /* ending on the plane */
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 0);
  x[3][0] = x[4][0] = 0.5f, x[3][1] = x[4][1] = 0.5f, x[3][2] = -1; /* through an edge */
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 0);
  x[3][0] = x[4][0] = 0, x[3][1] = x[4][1] = 0; /* through a corner */
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 0);
  const float par[2][3] = {{0.1f, 0.1f, 0}, {0.3f, 0.3f, 0}}; /* in the plane */
  memcpy(x[3], par, sizeof par);
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 0);
  x[3][0] = x[4][0] = 0.2f, x[3][1] = x[4][1] = 0.2f, x[3][2] = -1, x[4][2] = 1;
  m.tris = torn; /* torn: nothing */
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 0);
  m.tris = tri;
  const uint32_t seg0[2] = {0, 4}; /* shares a point */
  m.links = seg0;
  both_filters(&m, &c, &ud, &uf);
  assert_int_equal(c, 0);
  m.links = seg;
  /* a non-finite point: the device flags it, the host refuses it */
  x[4][2] = NAN;
  dr_crossings_info inf;
  long dev;
  drape_err e = {0};
  assert_int_equal(dr_crossings_cl_count(g_k, &m, NULL, NULL, NULL, &dev, &inf, &e), 0);
  assert_int_equal(inf.device, 0);
  assert_true(inf.flags & 1);
  assert_int_equal(dr_count_crossings(&m, &dev, &e), DRAPE_EUNSTABLE);
}

static void test_two_sheets(void **state) {
  (void)state;
  const int n = 9;
  const double z0 = 3.37, h = 2.0;
  float *x;
  uint32_t *t;
  dr_crossing_mesh m = two_sheets(n, z0, h, &x, &t);
  long c;
  both_filters(&m, &c, NULL, NULL);
  assert_int_equal(c, 4 * n - 5);
  free(x), free(t);
}

/* An n x n sheet in the xz plane, spacing 1, each point moved by up to amp. */
static void crumple(float *x, int n, double amp) {
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      float *p = x + 3 * (r * n + c);
      p[0] = (float)(c + amp * (2 * urand() - 1));
      p[1] = (float)(amp * (2 * urand() - 1));
      p[2] = (float)(r + amp * (2 * urand() - 1));
    }
}

static void test_crumpled(void **state) {
  (void)state;
  int n = 12, nt;
  float *x = malloc(sizeof(float) * 3 * 64 * 64);
  uint32_t *tris = grid_tris(n, 0, &nt);
  for (int trial = 0; trial < 20; trial++) {
    crumple(x, n, trial < 10 ? 0.6 : 3.0);
    dr_crossing_mesh m = {x, 3, n * n, tris, nt, NULL, 0};
    long c;
    both_filters(&m, &c, NULL, NULL);
    if (trial >= 10) assert_true(c > 0);
  }
  free(tris);
  n = 64;
  tris = grid_tris(n, 0, &nt);
  const double amps[3] = {0.3, 1.0, 4.0};
  for (int i = 0; i < 3; i++) {
    crumple(x, n, amps[i]);
    dr_crossing_mesh m = {x, 3, n * n, tris, nt, NULL, 0};
    long c, ud, uf;
    both_filters(&m, &c, &ud, &uf);
    print_message("64x64 crumpled, amplitude %.1f spacings: %ld crossings; undecided pairs: "
                  "%ld (double filter), %ld (float filter)\n", amps[i], c, ud, uf);
    if (i > 0) assert_true(c > 1000);
  }
  free(x);
  free(tris);
}

/* Two sheets in the plane x = z (exactly: x and z equal floats), the
 * second shifted along the plane by a third of a cell, a third sheet
 * through both, and triangles with two equal corners. */
static void degenerate_mesh(float **xo, uint32_t **to, int *npo, int *nto, int n) {
  const int np = 3 * n * n;
  float *x = malloc(sizeof(float) * 3 * (size_t)np);
  for (int s = 0; s < 3; s++)
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        float *p = x + 3 * (s * n * n + r * n + c);
        const float u = 0.1f * (float)c + (s == 1 ? 0.0333f : 0.0f), v = 0.1f * (float)r;
        if (s < 2) {
          p[0] = u, p[1] = v + (s == 1 ? 0.0417f : 0.0f), p[2] = u; /* x == z */
        } else { /* across: the plane x = -z + 0.45 */
          p[0] = 0.45f - u + 0.2f, p[1] = v + 0.013f, p[2] = u - 0.2f;
        }
      }
  int nt1;
  uint32_t *t1 = grid_tris(n, 0, &nt1);
  uint32_t *t = malloc(sizeof *t * 3 * (size_t)(3 * nt1 + 8));
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < 3 * nt1; i++) t[3 * nt1 * s + i] = t1[i] + (uint32_t)(s * n * n);
  int nt = 3 * nt1;
  for (int i = 0; i < 4; i++) { /* two equal corners: live, degenerate */
    const uint32_t a = (uint32_t)(n * n + i * (n + 1)), b = a + 1;
    t[3 * nt] = a, t[3 * nt + 1] = a, t[3 * nt + 2] = b;
    nt++;
  }
  free(t1);
  *xo = x, *to = t, *npo = np, *nto = nt;
}

static void test_near_coplanar(void **state) {
  (void)state;
  float *x;
  uint32_t *t;
  int np, nt;
  degenerate_mesh(&x, &t, &np, &nt, 10);
  dr_crossing_mesh m = {x, 3, np, t, nt, NULL, 0};
  long c, ud, uf;
  both_filters(&m, &c, &ud, &uf);
  print_message("coplanar sheets: %ld crossings, undecided %ld (double) %ld (float)\n", c, ud, uf);
  assert_true(c > 0);   /* the third sheet goes through */
  assert_true(ud > 0);  /* the exact stage is needed and used */
  assert_true(uf >= ud);
  /* one ulp off the plane for every other point of the second sheet */
  for (int i = 0; i < 100; i += 2) {
    float *p = x + 3 * (100 + i);
    p[2] = nextafterf(p[2], (i & 2) ? 1.0f : -1.0f);
  }
  long c2;
  both_filters(&m, &c2, &ud, &uf);
  print_message("one ulp off: %ld crossings, undecided %ld (double) %ld (float)\n", c2, ud, uf);
  free(x);
  free(t);
}

static void test_capacity_fallback(void **state) {
  (void)state;
  int n = 24, nt;
  float *x = malloc(sizeof(float) * 3 * (size_t)(n * n));
  uint32_t *tris = grid_tris(n, 0, &nt);
  crumple(x, n, 1.5);
  dr_crossing_mesh m = {x, 3, n * n, tris, nt, NULL, 0};
  dr_crossings_info inf;
  dr_crossings_cl_set_limits(g_k, 16, -1, -1);
  check_mesh(&m, &inf);
  assert_int_equal(inf.device, 0);
  assert_true(inf.flags & 2);
  assert_true(inf.entries > 16);
  dr_crossings_cl_set_limits(g_k, 0, -1, -1); /* default, grows */
  check_mesh(&m, &inf);
  assert_int_equal(inf.device, 1);
  free(x);
  free(tris);
  /* one undecided pair at most: the coplanar sheets overflow it */
  uint32_t *t;
  int np;
  degenerate_mesh(&x, &t, &np, &nt, 10);
  dr_crossing_mesh d = {x, 3, np, t, nt, NULL, 0};
  dr_crossings_cl_set_limits(g_k, -1, 1, -1);
  check_mesh(&d, &inf);
  assert_int_equal(inf.device, 0);
  assert_true(inf.flags & 4);
  dr_crossings_cl_set_limits(g_k, -1, 4096, -1);
  check_mesh(&d, &inf);
  assert_int_equal(inf.device, 1);
  free(x);
  free(t);
}

/* ---- the sim ---- */

/* The sim's count (device path) against the reference on its points. */
static long sim_check(drape_sim *sim, int want_device) {
  long dev = -1, ref = -1;
  drape_err e = {0};
  assert_int_equal(drape_sim_count_crossings(sim, &dev, &e), 0);
  dr_crossings_last last;
  assert_int_equal(dr_sim_crossings_last(sim, &last, &e), 0);
  if (want_device >= 0) assert_int_equal(last.host, !want_device);
  const int np = sim->m.n_particles;
  float *x = malloc(sizeof(float) * 4 * (size_t)np);
  uint32_t *t = malloc(sizeof(uint32_t) * 3 * (size_t)sim->m.n_tris + 4);
  assert_int_equal(drape_sim_read_positions(sim, x, &e), 0);
  assert_int_equal(drape_sim_read_triangles(sim, t, &e), 0);
  dr_crossing_mesh m = {x, 4, np, t, sim->m.n_tris, sim->m.lines, sim->m.n_lines};
  assert_int_equal(dr_count_crossings(&m, &ref, &e), 0);
  free(x);
  free(t);
  if (dev != ref) fail_msg("sim count %ld, reference %ld", dev, ref);
  return dev;
}

static void test_twist_unbounded(void **state) {
  (void)state;
  drape_scene sc;
  char path[1024];
  snprintf(path, sizeof path, "%s/scenes/twist.json", drape_test_source_dir());
  drape_err e = {0};
  if (drape_scene_load(path, &sc, &e)) fail_msg("%s: %s", path, e.msg);
  sc.cloth[0].self_collision_bounds = 0;
  drape_sim *sim = make_sim_form(&sc, DRAPE_BACKEND_CL, DRAPE_KERNEL_FORM_AUTO);
  long most = 0;
  for (int f = 1; f <= 90; f++) {
    if (drape_sim_step(sim, &e)) fail_msg("frame %d: %s", f, e.msg);
    if (f % 10) continue;
    const long c = sim_check(sim, 1);
    dr_crossings_last last;
    assert_int_equal(dr_sim_crossings_last(sim, &last, &e), 0);
    if (f % 30 == 0)
      print_message("twist without bounds, frame %d: %ld crossings (device; %ld pairs tested, "
                    "%ld undecided)\n", f, c, last.info.pairs, last.info.unsure);
    if (c > most) most = c;
  }
  assert_true(most > 1000);
  /* forced to the host: the same; a bad value refused naming the variable */
  setenv("DRAPE_CROSSINGS", "host", 1);
  sim_check(sim, 0);
  setenv("DRAPE_CROSSINGS", "gpu", 1);
  long c;
  assert_int_equal(drape_sim_count_crossings(sim, &c, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "DRAPE_CROSSINGS"));
  unsetenv("DRAPE_CROSSINGS");
  /* the sim's counter past a tiny capacity falls back to the host: equal */
  dr_crossings_cl *k;
  cl_mem xd;
  assert_int_equal(dr_backend_cl_crossings(sim, &k, &xd, &e), 0);
  dr_crossings_cl_set_limits(k, 16, -1, -1);
  sim_check(sim, 0);
  dr_crossings_last last;
  assert_int_equal(dr_sim_crossings_last(sim, &last, &e), 0);
  assert_true(last.info.flags & 2);
  dr_crossings_cl_set_limits(k, 0, -1, 1); /* default capacity, float filter */
  sim_check(sim, 1);
  drape_sim_destroy(sim);
  /* bad limits in the environment are refused at the counter's creation */
  setenv("DRAPE_CROSSINGS_ENTRIES", "-5", 1);
  dr_crossings_cl *bad = NULL;
  assert_int_equal(dr_crossings_cl_create(&g_cl, &bad, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "DRAPE_CROSSINGS_ENTRIES"));
  unsetenv("DRAPE_CROSSINGS_ENTRIES");
  setenv("DRAPE_CROSSINGS_FP", "half", 1);
  assert_int_equal(dr_crossings_cl_create(&g_cl, &bad, &e), DRAPE_EINVAL);
  unsetenv("DRAPE_CROSSINGS_FP");
  drape_scene_free(&sc);
}

/* The CPU backend keeps the host path. */
static void test_cpu_backend_host(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 16, 0.9);
  drape_sim *sim = make_sim_form(&s, DRAPE_BACKEND_CPU, DRAPE_KERNEL_FORM_AUTO);
  step_frames(sim, 3);
  sim_check(sim, 0);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* ms per count, median of 7, for a sim whose points are set to `x`. */
static double time_count(drape_sim *sim, int host) {
  double t[7];
  drape_err e = {0};
  if (host) setenv("DRAPE_CROSSINGS", "host", 1);
  long c;
  assert_int_equal(drape_sim_count_crossings(sim, &c, &e), 0); /* warm */
  for (int i = 0; i < 7; i++) {
    sim->hx_valid = 0; /* as after a step: the host path reads the points back */
    const double t0 = now_ms();
    assert_int_equal(drape_sim_count_crossings(sim, &c, &e), 0);
    t[i] = now_ms() - t0;
  }
  unsetenv("DRAPE_CROSSINGS");
  for (int i = 1; i < 7; i++)
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      double s = t[j]; t[j] = t[j - 1]; t[j - 1] = s;
    }
  return t[3];
}

static void time_size(int n) {
  drape_scene s;
  scene_sphere_drop(&s, n, 0.9);
  drape_sim *sim = make_sim_form(&s, DRAPE_BACKEND_CL, DRAPE_KERNEL_FORM_AUTO);
  drape_err e = {0};
  const double amps[2] = {0.0, 1.0};
  for (int i = 0; i < 2; i++) {
    /* the flat sheet as built, then crumpled by up to a spacing */
    const int np = sim->m.n_particles;
    float *x = malloc(sizeof(float) * 4 * (size_t)np);
    assert_int_equal(drape_sim_read_positions(sim, x, &e), 0);
    for (int p = 0; p < np; p++)
      for (int q = 0; q < 3; q++) x[4 * p + q] += (float)(0.02 * amps[i] * (2 * urand() - 1));
    assert_int_equal(sim->be->write(sim, SIM_BUF_X, 0, sizeof(float) * 4 * (size_t)np, x, &e), 0);
    sim->hx_valid = 0;
    free(x);
    const long c = sim_check(sim, 1);
    const double th = time_count(sim, 1), td = time_count(sim, 0);
    print_message("%dx%d %s: %ld crossings, host %.2f ms, device %.2f ms per count (%s)\n", n, n,
                  i ? "crumpled" : "flat", c, th, td, g_cl.device_name);
  }
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

static void test_timing(void **state) {
  (void)state;
  time_size(64);
  const char *v = getenv("DRAPE_TEST_CROSSINGS_TIME");
  if (v && *v == '1') time_size(256);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_cases),     cmocka_unit_test(test_two_sheets),
      cmocka_unit_test(test_crumpled),        cmocka_unit_test(test_near_coplanar),
      cmocka_unit_test(test_capacity_fallback), cmocka_unit_test(test_twist_unbounded),
      cmocka_unit_test(test_cpu_backend_host), cmocka_unit_test(test_timing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
