/* Crossings (issue 18): the exact orientation sign and the count of edges
 * through triangles that every self-collision check is measured with.
 *   - dr_orient3d against exact integer arithmetic (__int128) on points of
 *     a dyadic grid, most of them within one unit of coplanar, where the
 *     double evaluation alone would guess: every sign right, zeros too;
 *   - one segment through one triangle is 1; touching an edge, a corner or
 *     the plane, parallel, or sharing a point is 0;
 *   - the grid's count equals a brute-force count over every pair, on
 *     crumpled random meshes and on two sheets cutting through each other
 *     (where it is also the analytic number);
 *   - a flat cloth falling onto the sphere has 0 at every frame; its
 *     torn-free count is the same on OpenCL and the CPU reference. */
#include <math.h>
#include <stdint.h>

#include "cloth/crossings.h"
#include "cloth_util.h"
#include "crossing_fixture.h"
#include "core/exact.h"

/* ---- the predicate ---- */

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next_u64(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* det[b-a, c-a, d-a] exactly, coordinates integers below 2^30. */
static int orient_int(const int64_t a[3], const int64_t b[3], const int64_t c[3], const int64_t d[3]) {
  __int128 u[3], v[3], w[3];
  for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
  __int128 det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                 u[2] * (v[0] * w[1] - v[1] * w[0]);
  return det > 0 ? 1 : det < 0 ? -1 : 0;
}

static void test_orient_exact(void **state) {
  (void)state;
  const double unit = 0x1p-20; /* points on a grid of 2^-20 m, |x| < 1024 m */
  long zeros = 0, hard = 0;
  for (int n = 0; n < 200000; n++) {
    int64_t p[4][3];
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 3; k++) p[i][k] = (int64_t)(next_u64() % (1u << 30)) - (1 << 29);
    /* d near the plane through a, b, c: a + s (b - a) + t (c - a), rounded
     * to the grid, then moved by -1, 0 or +1 unit on one axis */
    double s = (double)(next_u64() % 1000) / 997.0, t = (double)(next_u64() % 1000) / 991.0;
    for (int k = 0; k < 3; k++)
      p[3][k] = p[0][k] + (int64_t)llround(s * (double)(p[1][k] - p[0][k]) + t * (double)(p[2][k] - p[0][k]));
    p[3][next_u64() % 3] += (int64_t)(next_u64() % 3) - 1;
    if (n % 10 == 0) /* exactly coplanar: d = a + (b - a) + (c - a) */
      for (int k = 0; k < 3; k++) p[3][k] = p[1][k] + p[2][k] - p[0][k];
    double q[4][3];
    for (int i = 0; i < 4; i++)
      for (int k = 0; k < 3; k++) q[i][k] = (double)p[i][k] * unit;
    const int want = orient_int(p[0], p[1], p[2], p[3]);
    const int got = dr_orient3d(q[0], q[1], q[2], q[3]);
    if (got != want) fail_msg("case %d: orient3d %d, exact %d", n, got, want);
    zeros += want == 0;
    /* how often plain double evaluation is not sure */
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++) u[k] = q[1][k] - q[0][k], v[k] = q[2][k] - q[0][k], w[k] = q[3][k] - q[0][k];
    const double det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                       u[2] * (v[0] * w[1] - v[1] * w[0]);
    hard += (det > 0 ? 1 : det < 0 ? -1 : 0) != want;
  }
  print_message("200000 near-coplanar cases: %ld exactly coplanar, %ld where plain double gets "
                "the sign wrong; all exact\n", zeros, hard);
  assert_true(zeros >= 20000);
  assert_true(hard > 0); /* the cases do need the exact stage */
  /* tiny against huge (differences not exact in double) */
  const double a[3] = {1e-30, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
  const double up[3] = {0.25, 0.25, 1e-300}, on[3] = {0.25, 0.25, 0}, down[3] = {0.25, 0.25, -1e-300};
  assert_int_equal(dr_orient3d(a, b, c, up), 1);
  assert_int_equal(dr_orient3d(a, b, c, on), 0);
  assert_int_equal(dr_orient3d(a, b, c, down), -1);
}

/* ---- small cases ---- */

static long count_pts(const float (*x)[3], int n, const uint32_t *tris, int nt,
                      const uint32_t *links, int nl) {
  (void)n;
  dr_crossing_mesh m = {&x[0][0], 3, n, tris, nt, links, nl};
  long c = -1;
  drape_err e = {0};
  assert_int_equal(dr_count_crossings(&m, &c, &e), 0);
  return c;
}

static void test_small_cases(void **state) {
  (void)state;
  /* triangle in z = 0: (0,0,0) (1,0,0) (0,1,0); points 3, 4 a segment */
  float x[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.2f, 0.2f, -1}, {0.2f, 0.2f, 1}, {0, 0, 0}};
  const uint32_t tri[3] = {0, 1, 2}, seg[2] = {3, 4};
  assert_int_equal(count_pts(x, 5, tri, 1, seg, 1), 1); /* through the interior */
  x[3][2] = 0.5f; /* both ends above */
  assert_int_equal(count_pts(x, 5, tri, 1, seg, 1), 0);
  x[3][2] = 0; /* one end on the plane, inside: touching */
  assert_int_equal(count_pts(x, 5, tri, 1, seg, 1), 0);
  x[3][0] = x[4][0] = 0.5f, x[3][1] = x[4][1] = 0.5f, x[3][2] = -1; /* through the edge (1,0)-(0,1) */
  assert_int_equal(count_pts(x, 5, tri, 1, seg, 1), 0);
  x[3][0] = x[4][0] = 0, x[3][1] = x[4][1] = 0; /* through the corner */
  assert_int_equal(count_pts(x, 5, tri, 1, seg, 1), 0);
  x[3][0] = x[4][0] = 2, x[3][1] = x[4][1] = 2; /* past the triangle */
  assert_int_equal(count_pts(x, 5, tri, 1, seg, 1), 0);
  const float par[2][3] = {{0.1f, 0.1f, 0}, {0.3f, 0.3f, 0}}; /* in the plane */
  memcpy(x[3], par, sizeof par);
  assert_int_equal(count_pts(x, 5, tri, 1, seg, 1), 0);
  /* a segment from a corner of the triangle through it: shares a point */
  float y[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3f, 0.3f, 1}};
  const uint32_t seg0[2] = {0, 3};
  assert_int_equal(count_pts(y, 4, tri, 1, seg0, 1), 0);
  /* a torn (degenerate) triangle counts for nothing */
  const uint32_t torn[3] = {1, 1, 1};
  x[3][0] = x[4][0] = 0.2f, x[3][1] = x[4][1] = 0.2f, x[3][2] = -1, x[4][2] = 1;
  assert_int_equal(count_pts(x, 5, torn, 1, seg, 1), 0);
  /* a non-finite point: refused */
  x[4][2] = NAN;
  dr_crossing_mesh m = {&x[0][0], 3, 5, tri, 1, seg, 1};
  long c;
  drape_err e = {0};
  assert_int_equal(dr_count_crossings(&m, &c, &e), DRAPE_EUNSTABLE);
  assert_non_null(strstr(e.msg, "point 4"));
}

/* ---- the grid against brute force ---- */

static long brute(const float *x, const uint32_t *tris, int nt) {
  long n = 0;
  for (int t = 0; t < nt; t++)
    for (int s = 0; s < nt; s++)
      for (int k = 0; k < 3; k++) {
        const uint32_t a = tris[3 * s + k], b = tris[3 * s + (k + 1) % 3];
        /* each edge once: from the triangle with the smallest index holding it */
        int first = 1;
        for (int r = 0; r < s && first; r++)
          for (int j = 0; j < 3; j++) {
            const uint32_t c = tris[3 * r + j], d = tris[3 * r + (j + 1) % 3];
            if ((c == a && d == b) || (c == b && d == a)) first = 0;
          }
        const uint32_t *v = tris + 3 * t;
        if (!first || v[0] == a || v[1] == a || v[2] == a || v[0] == b || v[1] == b || v[2] == b)
          continue;
        double p[3], q[3], A[3], B[3], C[3];
        for (int i = 0; i < 3; i++) {
          p[i] = x[3 * a + i], q[i] = x[3 * b + i];
          A[i] = x[3 * v[0] + i], B[i] = x[3 * v[1] + i], C[i] = x[3 * v[2] + i];
        }
        const int sp = dr_orient3d(A, B, C, p), sq = dr_orient3d(A, B, C, q);
        if (sp == 0 || sq == 0 || sp == sq) continue;
        const int s1 = dr_orient3d(p, q, A, B), s2 = dr_orient3d(p, q, B, C), s3 = dr_orient3d(p, q, C, A);
        n += s1 != 0 && s1 == s2 && s2 == s3;
      }
  return n;
}

/* An n x n grid (two triangles a cell), points from f(r, c). */

static void test_grid_matches_brute_force(void **state) {
  (void)state;
  const int n = 12, np = n * n;
  float *x = malloc(sizeof(float) * 3 * (size_t)np);
  int nt;
  uint32_t *tris = grid_tris(n, 0, &nt);
  for (int trial = 0; trial < 20; trial++) {
    /* a crumpled sheet: each point moved by up to `amp` spacings */
    const double amp = trial < 10 ? 0.6 : 3.0;
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) {
        float *p = x + 3 * (r * n + c);
        p[0] = (float)(c + amp * ((double)(next_u64() % 2001) / 1000.0 - 1));
        p[1] = (float)(amp * ((double)(next_u64() % 2001) / 1000.0 - 1));
        p[2] = (float)(r + amp * ((double)(next_u64() % 2001) / 1000.0 - 1));
      }
    dr_crossing_mesh m = {x, 3, np, tris, nt, NULL, 0};
    long got = -1, want = brute(x, tris, nt);
    drape_err e = {0};
    assert_int_equal(dr_count_crossings(&m, &got, &e), 0);
    if (trial % 5 == 0) print_message("crumpled sheet %d (amp %.1f): %ld crossings\n", trial, amp, got);
    assert_int_equal(got, want);
    if (amp > 1) assert_true(got > 0);
  }
  free(x);
  free(tris);
}

/* Two sheets cutting through each other: A in y = 0 (x, z in 0..n-1), B in
 * z = z0 (x in 0..n-1, y from -h to +h), rows of B straddling y = 0. The
 * count is analytic: each edge of B across y = 0 (a vertical and a
 * diagonal per cell of B's straddling row) pierces A once, and each edge of
 * A across z = z0 (one along z and one diagonal per column of A's
 * straddling row) pierces B once. */
static void test_two_sheets(void **state) {
  (void)state;
  const int n = 9;
  const double z0 = 3.37, h = 2.0;
  float *x;
  uint32_t *t;
  dr_crossing_mesh m = two_sheets(n, z0, h, &x, &t);
  long got = -1;
  drape_err e = {0};
  assert_int_equal(dr_count_crossings(&m, &got, &e), 0);
  /* B's row band 3-4 straddles y = 0 (y = -0.377 .. 0.123): its n vertical
   * edges pierce y = 0 at x = c + 0.31, inside A for c <= n-2 (n-1 of them);
   * its diagonals (r, c)-(r+1, c+1) at x = c + 1.064, inside for c <= n-3
   * (n-2). A's row band 3-4 straddles z = z0: its edges along z pierce B's
   * plane at x = c, inside B (x >= 0.31) for c >= 1 (n-1), its diagonals
   * at x = c + 0.37, all inside (n-1). No pierce point is on an edge of the
   * other sheet. Total 4n - 5. */
  long want_brute = brute(x, t, m.n_tris);
  print_message("two sheets: %ld crossings (brute force %ld)\n", got, want_brute);
  assert_int_equal(got, want_brute);
  assert_int_equal(got, (long)(4 * n - 5));
  free(x);
  free(t);
}

/* ---- a sim ---- */

static void test_sim_drape_has_none(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 24, 0.9);
  drape_sim *cpu = make_sim(&s, DRAPE_BACKEND_CPU), *cl = make_sim(&s, DRAPE_BACKEND_CL);
  drape_err e = {0};
  for (int f = 1; f <= 90; f++) {
    step_frames(cpu, 1);
    step_frames(cl, 1);
    if (f % 15) continue;
    long a = -1, b = -1;
    assert_int_equal(drape_sim_count_crossings(cpu, &a, &e), 0);
    assert_int_equal(drape_sim_count_crossings(cl, &b, &e), 0);
    assert_int_equal(a, 0);
    assert_int_equal(b, 0);
  }
  drape_sim_destroy(cpu);
  drape_sim_destroy(cl);
  drape_scene_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_orient_exact),
      cmocka_unit_test(test_small_cases),
      cmocka_unit_test(test_grid_matches_brute_force),
      cmocka_unit_test(test_two_sheets),
      cmocka_unit_test(test_sim_drape_has_none),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
