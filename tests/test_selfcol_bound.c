/* Step bounds of the self-collision stage (issue 18; kernels/selfcol.cl,
 * selfcol_bound_pairs; docs/selfcollision.md "The guarantee"):
 *  - the segment distance against a double-precision search;
 *  - the bounds' distances are lower bounds of the exact ones (random,
 *    needle and cap triangles, nearly parallel segments, the twist's
 *    needle);
 *  - the guarantee: two wavy sheets 0.8 thickness apart (free of contact),
 *    every free particle asked to move up to 2 thicknesses per axis at
 *    random and some pinned ones moved 0.3 thickness: with the bounds no
 *    edge passes through a triangle at any of 17 points along the straight
 *    paths (counted exactly, dr_count_crossings), and no particle, pinned
 *    ones included, moved more than 0.4 r; without them the same moves
 *    make crossings;
 *  - OpenCL (both kernel forms) gives the CPU reference's r and positions
 *    to the bit, and the stage with the bounds is deterministic;
 *  - a crushed pair of sheets (buckets past the cap) holds still;
 *  - the list of stretched triangles: its cap's fail-safe, and rope links
 *    against it (read eight boxes at a time), OpenCL = CPU;
 *  - locks: sheets closer than the floor separate when asked to and hold
 *    when pressed together, the same bits on OpenCL. */
#include "cloth/crossings.h"
#include "selfcol_fixture.h"

static drape_cl g_cl;
static int setup(void **state) { (void)state; return sc_cl_setup(&g_cl); }
static int teardown(void **state) { (void)state; drape_cl_release(&g_cl); return 0; }

static const float T = 0.01f; /* thickness */

/* Distance between segments by a fine search plus the exact end cases
 * (double): an upper bound within (len/steps) of the truth. */
static double seg_dist_ref(const float *p1, const float *q1, const float *p2, const float *q2) {
  double best = 1e30;
  const int S = 400;
  for (int i = 0; i <= S; i++) {
    double s = (double)i / S, a[3];
    for (int k = 0; k < 3; k++) a[k] = p1[k] + s * ((double)q1[k] - p1[k]);
    /* closest point of segment 2 to a, exactly */
    double d2[3], r[3], e = 0, f = 0;
    for (int k = 0; k < 3; k++) {
      d2[k] = (double)q2[k] - p2[k];
      r[k] = a[k] - p2[k];
      e += d2[k] * d2[k];
      f += d2[k] * r[k];
    }
    double t = e > 0 ? f / e : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double dd = 0;
    for (int k = 0; k < 3; k++) {
      double w = a[k] - (p2[k] + t * d2[k]);
      dd += w * w;
    }
    if (sqrt(dd) < best) best = sqrt(dd);
  }
  return best;
}

static void test_segment_distance(void **state) {
  (void)state;
  unsigned seed = 7;
  double worst = 0;
  for (int c = 0; c < 3000; c++) {
    float v[4][3];
    for (int k = 0; k < 4; k++)
      for (int q = 0; q < 3; q++) v[k][q] = sc_rand(&seed) - 0.5f;
    if (c % 3 == 1) /* nearly parallel */
      for (int q = 0; q < 3; q++) v[3][q] = v[2][q] + (v[1][q] - v[0][q]) * 0.7f + 1e-4f * q;
    if (c % 7 == 2) /* a point */
      memcpy(v[1], v[0], sizeof v[0]);
    double ref = seg_dist_ref(v[0], v[1], v[2], v[3]);
    double got = selfcol_seg_dist(v[0], v[1], v[2], v[3]);
    /* never above the search (it is a distance of two points on them), and
     * below it by at most the search's step */
    assert_true(got <= ref + 1e-6);
    double under = ref - got;
    if (under > worst) worst = under;
    assert_true(under <= 2.0 * sqrt(3.0) / 400 + 1e-6);
  }
  /* known answers */
  const float a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0.5f, 0.25f, -1}, d[3] = {0.5f, 0.25f, 1};
  assert_float_equal(selfcol_seg_dist(a, b, c, d), 0.25f, 1e-7);
  const float e1[3] = {2, 0, 0}, e2[3] = {3, 0, 0};
  assert_float_equal(selfcol_seg_dist(a, b, e1, e2), 1.0f, 1e-7); /* collinear, apart */
  fprintf(stderr, "segment distance: largest shortfall under the search %.3g\n", worst);
}

/* Exact references in double (Ericson, "Real-Time Collision Detection",
 * 5.1.5 and 5.1.9): the inputs are floats, so double leaves ~1e-16 of
 * relative error where float left ~1e-7 (times the same conditioning). */
static double d3dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double seg_dist_exact(const float *P1, const float *Q1, const float *P2, const float *Q2) {
  double d1[3], d2[3], r[3];
  for (int k = 0; k < 3; k++) {
    d1[k] = (double)Q1[k] - P1[k];
    d2[k] = (double)Q2[k] - P2[k];
    r[k] = (double)P1[k] - P2[k];
  }
  const double a = d3dot(d1, d1), e = d3dot(d2, d2), f = d3dot(d2, r);
  double s = 0, t = 0;
  if (a <= 0 && e <= 0) {
    s = t = 0;
  } else if (a <= 0) {
    t = f / e;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
  } else {
    const double c = d3dot(d1, r);
    if (e <= 0) {
      s = -c / a;
      s = s < 0 ? 0 : s > 1 ? 1 : s;
    } else {
      const double b = d3dot(d1, d2), den = a * e - b * b;
      s = den > 0 ? (b * f - c * e) / den : 0;
      s = s < 0 ? 0 : s > 1 ? 1 : s;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = -c / a;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
      } else if (t > 1) {
        t = 1;
        s = (b - c) / a;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
      }
    }
  }
  double w[3];
  for (int k = 0; k < 3; k++) w[k] = r[k] + s * d1[k] - t * d2[k];
  return sqrt(d3dot(w, w));
}
static double tri_dist_exact(const float *Q, const float *A, const float *B, const float *C) {
  double ab[3], ac[3], ap[3], bp[3], cp[3], x[3];
  for (int k = 0; k < 3; k++) {
    ab[k] = (double)B[k] - A[k];
    ac[k] = (double)C[k] - A[k];
    ap[k] = (double)Q[k] - A[k];
    bp[k] = (double)Q[k] - B[k];
    cp[k] = (double)Q[k] - C[k];
  }
  const double d1 = d3dot(ab, ap), d2 = d3dot(ac, ap), d3 = d3dot(ab, bp), d4 = d3dot(ac, bp);
  const double d5 = d3dot(ab, cp), d6 = d3dot(ac, cp);
  const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  double v = 0, w = 0;
  if (d1 <= 0 && d2 <= 0) v = w = 0;
  else if (d3 >= 0 && d4 <= d3) v = 1, w = 0;
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) v = d1 / (d1 - d3), w = 0;
  else if (d6 >= 0 && d5 <= d6) v = 0, w = 1;
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) v = 0, w = d2 / (d2 - d6);
  else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    v = 1 - w;
  } else {
    const double den = 1 / (va + vb + vc);
    v = vb * den, w = vc * den;
  }
  for (int k = 0; k < 3; k++) x[k] = ap[k] - v * ab[k] - w * ac[k];
  return sqrt(d3dot(x, x));
}

/* The bounds' distances are lower bounds (sc_vt_lower, sc_seg_lower): never
 * above the exact distance (beyond float rounding of the coordinates,
 * which the bounds' margin covers), and close to it on well-shaped input.
 * The case that made them: in the twist a vertex 0.48 um from a needle
 * triangle (edges 0.16, 0.0013, 0.16 m) was computed 19.6 um from it by
 * the contact pass's closest-point routine, was not held, and went
 * through (coordinates as they were). */
static void test_lower_bounds(void **state) {
  (void)state;
  const float nq[3] = {-0x1.5a5544p-3f, -0x1.ce3dcp-4f, -0x1.4d1d2ep-4f};
  const float na[3] = {-0x1.62a6bep-3f, -0x1.a752b0p-4f, -0x1.d0bfa2p-4f};
  const float nb[3] = {-0x1.3a86b0p-3f, -0x1.30d622p-3f, 0x1.4b176ap-5f};
  const float nc[3] = {-0x1.3cc89cp-3f, -0x1.307c26p-3f, 0x1.45ed8ep-5f};
  const double nx = tri_dist_exact(nq, na, nb, nc);
  const float nl = selfcol_vt_lower(nq, na, nb, nc);
  fprintf(stderr, "twist needle: exact %.3g m, lower bound %.3g m\n", nx, (double)nl);
  assert_true(nx > 4e-7 && nx < 6e-7);
  assert_true(nl <= nx);
  const double slack = 2e-7; /* a few ulps of the coordinates (<= 1 m) */
  unsigned seed = 11;
  double worst_t = 0, worst_s = 0;
  int needles = 0;
  for (int c = 0; c < 6000; c++) {
    float v[4][3];
    for (int k = 0; k < 4; k++)
      for (int q = 0; q < 3; q++) v[k][q] = sc_rand(&seed) - 0.5f;
    const int kind = c % 4; /* 0 random, 1 needle, 2 cap, 3 point near the face */
    if (kind == 1 || kind == 2) {
      const float f = kind == 1 ? 1e-3f * sc_rand(&seed) : 0.5f;
      for (int q = 0; q < 3; q++) /* c near b (needle), or near the middle of ab (cap) */
        v[2][q] = (kind == 1 ? v[1][q] : 0.5f * (v[0][q] + v[1][q])) +
                  f * (kind == 1 ? 1.0f : 2e-3f) * (sc_rand(&seed) - 0.5f);
      needles++;
    }
    if (kind == 3 || kind == 1) { /* q just off the face at a random inside point */
      const float u = sc_rand(&seed), w = (1 - u) * sc_rand(&seed);
      float n[3], e1[3], e2[3];
      for (int q = 0; q < 3; q++) e1[q] = v[1][q] - v[0][q], e2[q] = v[2][q] - v[0][q];
      n[0] = e1[1] * e2[2] - e1[2] * e2[1];
      n[1] = e1[2] * e2[0] - e1[0] * e2[2];
      n[2] = e1[0] * e2[1] - e1[1] * e2[0];
      const float nn = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      const float h = 1e-6f * (float)(1 + c % 50);
      for (int q = 0; q < 3; q++)
        v[3][q] = v[0][q] + u * e1[q] + w * e2[q] + (nn > 0 ? h * n[q] / nn : 0.0f);
    }
    const double x = tri_dist_exact(v[3], v[0], v[1], v[2]);
    const double l = selfcol_vt_lower(v[3], v[0], v[1], v[2]);
    assert_true(l <= x + slack);
    if (kind == 0 && x - l > worst_t) worst_t = x - l;
    /* segments: v0 v1 against v2 v3; every third nearly parallel */
    if (c % 3 == 1)
      for (int q = 0; q < 3; q++) v[3][q] = v[2][q] + (v[1][q] - v[0][q]) * 0.7f + 1e-5f * (float)q;
    const double xs = seg_dist_exact(v[0], v[1], v[2], v[3]);
    const double ls = selfcol_seg_lower(v[0], v[1], v[2], v[3]);
    assert_true(ls <= xs + slack);
    if (c % 3 == 0 && xs - ls > worst_s) worst_s = xs - ls;
  }
  fprintf(stderr, "lower bounds: never above the exact distance in 6000 cases (%d needles "
          "and caps); largest shortfall on general input: point-triangle %.3g, segments %.3g\n",
          needles, worst_t, worst_s);
  /* conservative by a few um at most on shapes of 0.5 m (the error
   * bounds of the normals); a lower bound that is too small only slows
   * particles down */
  assert_true(worst_t < 1e-5);
  assert_true(worst_s < 1e-3);
}

/* Two N x N sheets (objects 0 and 1) of spacing 3 T, the upper offset by
 * half a cell and 0.8 T above the lower, both waved by the same height
 * function (so they stay 1.5 T apart vertically and free of contact). */
enum { N = 14 };
static const float GAP = 0.8f * T; /* closer than R = 1.25 T: every pair counts */
static void make_sheets(sc_world *w, int stretch) {
  const int n = 2 * N * N, nt = 2 * 2 * (N - 1) * (N - 1);
  sc_world_alloc(w, n, nt);
  w->nobj = 2;
  w->objects[0] = sc_cloth(T, 0.2f, 1);
  w->objects[1] = sc_cloth(T, 0.2f, 1);
  const float S = 3 * T;
  int tk = 0;
  for (int o = 0; o < 2; o++) {
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) {
        int i = o * N * N + r * N + c;
        float x = c * S + (o ? 0.5f * S : 0), z = r * S + (o ? 0.5f * S : 0);
        float y = 0.3f * T * sinf(9.0f * x) * cosf(7.0f * z) + (o ? GAP : 0);
        /* stretch: the upper sheet's first row drawn 0.6 m along x, so
         * its triangles are far wider than at rest (the bounds list them
         * apart from the hash) */
        w->x[i] = (dr_float4){x + (stretch && o == 1 && r == 0 ? 0.6f : 0.0f), y, z, 1.0f};
        w->rest[i] = (dr_float4){x, (o ? GAP : 0), z, 0};
        w->obj[i] = o;
      }
    for (int r = 0; r + 1 < N; r++)
      for (int c = 0; c + 1 < N; c++) {
        dr_uint a = (dr_uint)(o * N * N + r * N + c), b = a + 1, cc = a + N, d = cc + 1;
        w->tris[3 * tk] = a; w->tris[3 * tk + 1] = cc; w->tris[3 * tk + 2] = b; tk++;
        w->tris[3 * tk] = b; w->tris[3 * tk + 1] = cc; w->tris[3 * tk + 2] = d; tk++;
      }
  }
  memcpy(w->p, w->x, sizeof *w->x * (size_t)n);
}

/* Random targets: every free particle up to 2 T per axis away; every 17th
 * particle pinned (w = 0) and moved 0.3 T. */
static void random_targets(sc_world *w, unsigned seed, int pins) {
  for (int i = 0; i < w->n; i++) {
    dr_float4 q = w->p[i];
    if (pins && i % 17 == 0) {
      q.w = 0.0f;
      w->p[i].w = 0.0f;
      float u = sc_rand(&seed), v = sc_rand(&seed);
      q.x += 0.3f * T * cosf(6.2831853f * u) * sinf(3.14159265f * v);
      q.y += 0.3f * T * cosf(3.14159265f * v);
      q.z += 0.3f * T * sinf(6.2831853f * u) * sinf(3.14159265f * v);
    } else {
      q.x += 4 * T * (sc_rand(&seed) - 0.5f);
      q.y += 4 * T * (sc_rand(&seed) - 0.5f);
      q.z += 4 * T * (sc_rand(&seed) - 0.5f);
    }
    w->x[i] = q;
  }
}

/* Crossings at 17 points of the straight paths from p to x (the most at
 * any of them), the segments links[2k], links[2k + 1] (rope links) as
 * edges too. */
static long crossings_along_links(const sc_world *w, const dr_float4 *x, const uint32_t *links,
                                  int n_links) {
  long most = 0;
  float *pts = malloc(sizeof(float) * 3 * (size_t)w->n);
  assert_non_null(pts);
  for (int k = 0; k <= 16; k++) {
    float s = (float)k / 16.0f;
    for (int i = 0; i < w->n; i++) {
      pts[3 * i] = w->p[i].x + s * (x[i].x - w->p[i].x);
      pts[3 * i + 1] = w->p[i].y + s * (x[i].y - w->p[i].y);
      pts[3 * i + 2] = w->p[i].z + s * (x[i].z - w->p[i].z);
    }
    dr_crossing_mesh m = {pts, 3, w->n, w->tris, w->nt, links, n_links};
    long c = 0;
    drape_err e = {0};
    assert_int_equal(dr_count_crossings(&m, &c, &e), 0);
    if (c > most) most = c;
  }
  free(pts);
  return most;
}

static long crossings_along(const sc_world *w, const dr_float4 *x) {
  return crossings_along_links(w, x, NULL, 0);
}

static void test_guarantee(void **state) {
  (void)state;
  long without_total = 0;
  int clamped_total = 0;
  for (unsigned seed = 1; seed <= 8; seed++) {
    sc_world w;
    make_sheets(&w, seed > 6);
    assert_int_equal(crossings_along(&w, w.p), 0); /* starts free */
    random_targets(&w, seed, 1);
    const size_t bytes = sizeof(dr_float4) * (size_t)w.n;
    dr_float4 *want = malloc(bytes);
    memcpy(want, w.x, bytes);
    without_total += crossings_along(&w, w.x);

    selfcol_desc d = sc_desc(&w);
    selfcol_cpu c;
    SC_OK(selfcol_cpu_create(&d, &c, e));
    cpu_selfcol_bound(&c, w.p, w.tris);
    cpu_selfcol_bound_clamp(&c, w.x, w.p);
    if (seed > 6) assert_true(c.nbig >= N - 1); /* the stretched row's triangles */
    else assert_int_equal(c.nbig, 0);
    int clamped = 0;
    for (int i = 0; i < w.n; i++) {
      float r;
      memcpy(&r, &c.rb[i], sizeof r);
      assert_true(r >= 0.0f && r <= c.tb.bound_r);
      double dx = (double)w.x[i].x - w.p[i].x, dy = (double)w.x[i].y - w.p[i].y,
             dz = (double)w.x[i].z - w.p[i].z;
      double moved = sqrt(dx * dx + dy * dy + dz * dz);
      /* (to the rounding of p + d k: 1e-7 m at these coordinates) */
      /* driven particles (w = 0) too: they lag instead of crossing */
      assert_true(moved <= SELFCOL_BOUND_GAMMA * r + 1e-7);
      clamped += memcmp(&w.x[i], &want[i], sizeof want[i]) != 0;
    }
    long with = crossings_along(&w, w.x);
    fprintf(stderr, "seed %u: %d of %d particles bounded, %u wide triangles, crossings along the "
            "paths %ld\n", seed, clamped, w.n, (unsigned)c.nbig, with);
    assert_int_equal(with, 0);
    clamped_total += clamped;
    selfcol_cpu_destroy(&c);
    free(want);
    sc_world_free(&w);
  }
  fprintf(stderr, "without the bounds: %ld crossings (most along each path, summed)\n",
          without_total);
  assert_true(without_total > 100); /* the moves do cross without the bounds */
  assert_true(clamped_total > 1000);
}

/* The bounds and their clamp alone on OpenCL (the kernel form of
 * sc_kernel_form, the big list's cap cap_big, 0: the default), for w's x
 * and p: the positions after, into out, and r into rb (unless NULL). */
static void cl_bound_clamp_r(const sc_world *w, int cap_big, dr_float4 *out, uint32_t *rb) {
  selfcol_desc d = sc_desc(w);
  d.cap_big = cap_big;
  sc_dev dev;
  sc_dev_upload(&g_cl, w, &dev);
  selfcol_cl g;
  SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
  SC_OK(selfcol_cl_bound(&g, dev.p, dev.tris, e));
  if (rb) sc_read(&g_cl, g.rb, rb, sizeof(uint32_t) * (size_t)w->n);
  SC_OK(selfcol_cl_bound_clamp(&g, dev.x, dev.p, e));
  sc_read(&g_cl, dev.x, out, sizeof(dr_float4) * (size_t)w->n);
  selfcol_cl_destroy(&g);
  sc_dev_free(&dev);
}

static void cl_bound_clamp(const sc_world *w, dr_float4 *out) { cl_bound_clamp_r(w, 0, out, NULL); }

/* OpenCL in both kernel forms gives the CPU reference's r (rb) and
 * positions after the clamp (xc) to the bit. */
static void assert_cl_bound_same(const sc_world *w, int cap_big, const uint32_t *rb,
                                 const dr_float4 *xc) {
  const size_t bytes = sizeof(dr_float4) * (size_t)w->n, rbytes = sizeof(uint32_t) * (size_t)w->n;
  dr_float4 *xg = malloc(bytes);
  uint32_t *rg = malloc(rbytes);
  assert_non_null(xg);
  assert_non_null(rg);
  for (int form = 0; form < 2; form++) {
    sc_kernel_form = sc_form(form);
    cl_bound_clamp_r(w, cap_big, xg, rg);
    assert_memory_equal(rg, rb, rbytes);
    assert_memory_equal(xg, xc, bytes);
  }
  sc_kernel_form = 0;
  free(xg);
  free(rg);
}

/* The fail-safe of bounded work: the two sheets crushed by 1e-3 (all in a
 * few cells, buckets of thousands of entries): no pair is searched, every
 * free particle holds still (x = p to the bit) at a cost of one pass over
 * the entries; OpenCL agrees. */
static void test_crushed_holds_still(void **state) {
  (void)state;
  sc_world w;
  make_sheets(&w, 0);
  for (int i = 0; i < w.n; i++) {
    w.p[i].x *= 1e-3f; w.p[i].y *= 1e-3f; w.p[i].z *= 1e-3f;
  }
  random_targets(&w, 5, 0);
  const size_t bytes = sizeof(dr_float4) * (size_t)w.n;
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  dr_float4 *xc = malloc(bytes), *xg = malloc(bytes);
  memcpy(xc, w.x, bytes);
  cpu_selfcol_bound(&c, w.p, w.tris);
  cpu_selfcol_bound_clamp(&c, xc, w.p);
  assert_memory_equal(xc, w.p, bytes);
  cl_bound_clamp(&w, xg);
  assert_memory_equal(xg, w.p, bytes);
  fprintf(stderr, "crushed x 1e-3: all %d particles held still on both backends\n", w.n);
  free(xc); free(xg);
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
}

/* Locks: the two sheets flat, the upper one half the floor above the
 * lower (every vertex-triangle and edge-edge pair between them below the
 * floor, all with nearly the same direction: float rounding of the closest
 * points tilts it by ~1e-2 at this distance). Sent up 0.5 T, every particle
 * of the upper sheet goes up (before the locks they were held still for
 * good: r = 0), by at most gamma D / (2 h) where the directions spread
 * by h; sent down and sideways into the lower one, they stay exactly where
 * they were. The lower sheet, asked to stay, stays. No crossing along the
 * paths; OpenCL (both forms) gives the CPU reference's positions to the
 * bit. Sent up substep after substep, the upper sheet is free of the lower
 * one (every pair past the floor) within 5 substeps. */
static void test_locks_release(void **state) {
  (void)state;
  const float gap = 0.5f * SELFCOL_BOUND_FLOOR * T;
  for (int down = 0; down < 2; down++) {
    sc_world w;
    make_sheets(&w, 0);
    for (int i = 0; i < w.n; i++) w.p[i].y = w.x[i].y = i < N * N ? 0.0f : gap;
    for (int i = N * N; i < w.n; i++) {
      w.x[i].y += down ? -0.5f * T : 0.5f * T;
      if (down) w.x[i].x += 0.3f * T;
    }
    const size_t bytes = sizeof(dr_float4) * (size_t)w.n;
    dr_float4 *xc = malloc(bytes), *xg = malloc(bytes);
    assert_non_null(xc);
    assert_non_null(xg);
    memcpy(xc, w.x, bytes);
    selfcol_desc d = sc_desc(&w);
    selfcol_cpu c;
    SC_OK(selfcol_cpu_create(&d, &c, e));
    cpu_selfcol_bound(&c, w.p, w.tris);
    int locked = 0, moved = 0;
    for (int i = 0; i < w.n; i++) locked += c.lk[8 * i + 7] > 0u;
    cpu_selfcol_bound_clamp(&c, xc, w.p);
    for (int i = 0; i < N * N; i++) assert_memory_equal(&xc[i], &w.p[i], sizeof xc[i]);
    for (int i = N * N; i < w.n; i++) {
      const float up = xc[i].y - w.p[i].y;
      if (down) {
        assert_memory_equal(&xc[i], &w.p[i], sizeof xc[i]);
      } else {
        assert_true(up >= 0.0f);
        moved += up > 0.0f;
      }
    }
    assert_int_equal(crossings_along(&w, xc), 0);
    fprintf(stderr, "sheets %.1e T apart (locked: %d of %d particles), sent %s: %d of %d upper "
            "particles moved up\n", (double)(gap / T), locked, w.n,
            down ? "down and sideways" : "up", moved, N * N);
    assert_true(locked >= N * N);
    if (!down) assert_int_equal(moved, N * N);
    for (int form = 0; form < 2; form++) {
      sc_kernel_form = sc_form(form);
      cl_bound_clamp(&w, xg);
      assert_memory_equal(xg, xc, bytes);
    }
    sc_kernel_form = 0;
    if (!down) { /* on, substep after substep, until no particle is locked */
      int k = 1, any = 1;
      for (; k < 20 && any; k++) {
        memcpy(w.p, xc, bytes);
        for (int i = N * N; i < w.n; i++) xc[i].y += 0.5f * T;
        cpu_selfcol_bound(&c, w.p, w.tris);
        any = 0;
        for (int i = 0; i < w.n; i++) any |= c.lk[8 * i + 7] > 0u;
        cpu_selfcol_bound_clamp(&c, xc, w.p);
        assert_int_equal(crossings_along(&w, xc), 0);
      }
      float lo = 1.0f;
      for (int i = N * N; i < w.n; i++) lo = fminf(lo, xc[i].y);
      fprintf(stderr, "  sent up: no lock left at substep %d, the upper sheet %.3f T up\n", k,
              (double)(lo / T));
      assert_true(k <= 5);
    }
    free(xc);
    free(xg);
    selfcol_cpu_destroy(&c);
    sc_world_free(&w);
  }
}

/* OpenCL (each kernel form) against the CPU reference: r of every particle
 * and the positions after the whole stage, bit for bit, twice. */
static void test_cl_matches_cpu(void **state) {
  (void)state;
  for (int stretch = 0; stretch < 2; stretch++) { /* without and with wide triangles */
  sc_world w;
  make_sheets(&w, stretch);
  random_targets(&w, 3, 1);
  const size_t bytes = sizeof(dr_float4) * (size_t)w.n, rbytes = sizeof(uint32_t) * (size_t)w.n;
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  dr_float4 *xc = malloc(bytes), *xg = malloc(bytes);
  uint32_t *rg = malloc(rbytes);
  memcpy(xc, w.x, bytes);
  cpu_selfcol_bound(&c, w.p, w.tris);
  const unsigned wide = (unsigned)c.nbig;
  if (stretch) assert_true(wide > 0);
  uint32_t *rc = malloc(rbytes);
  memcpy(rc, c.rb, rbytes);
  int small = 0;
  for (int i = 0; i < w.n; i++) {
    float r;
    memcpy(&r, &rc[i], sizeof r);
    small += r < c.tb.bound_r;
  }
  assert_true(small > w.n / 2); /* most particles have a partner within R */
  memcpy(xc, w.x, bytes);
  selfcol_cpu_run(&c, xc, w.p, w.tris, NULL);
  for (int run = 0; run < 4; run++) {
    sc_kernel_form = sc_form(run / 2);
    selfcol_desc dg = sc_desc(&w);
    sc_dev dev;
    sc_dev_upload(&g_cl, &w, &dev);
    selfcol_cl g;
    SC_OK(selfcol_cl_create(&g_cl, &dg, &g, e));
    sc_check_form(&g);
    SC_OK(selfcol_cl_bound(&g, dev.p, dev.tris, e));
    sc_read(&g_cl, g.rb, rg, rbytes);
    assert_memory_equal(rg, rc, rbytes);
    sc_dev_free(&dev);
    sc_dev_upload(&g_cl, &w, &dev);
    SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, NULL, NULL, e));
    sc_read(&g_cl, dev.x, xg, bytes);
    assert_memory_equal(xg, xc, bytes);
    selfcol_cl_destroy(&g);
    sc_dev_free(&dev);
  }
  sc_kernel_form = 0;
  fprintf(stderr, "OpenCL = CPU: r of %d particles (%d within R, %u wide triangles), positions "
          "after the stage\n", w.n, small, wide);
  free(xc); free(xg); free(rg); free(rc);
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
  }
}

/* The fail-safe of the big list: the upper sheet's first row drawn 0.6 m
 * along x (26 triangles past the bounds' hash limit) with the list's cap
 * lowered to 8. The list is not read; every particle within R of a big
 * triangle holds still (r = 0, and x = p to the bit after the clamp), and
 * so does every particle in their box widened by the cell side, which
 * leaves most of the sheets free (r > 0); no crossing along the paths;
 * OpenCL (both forms) gives the CPU reference's r and positions to the
 * bit. With the cap at 32 (over the list) the same scene reads the list
 * and holds fewer particles. */
static void test_big_list_capped(void **state) {
  (void)state;
  sc_world w;
  make_sheets(&w, 1);
  random_targets(&w, 7, 1);
  const size_t bytes = sizeof(dr_float4) * (size_t)w.n;
  int held_at[2] = {0, 0};
  for (int capped = 0; capped < 2; capped++) {
    selfcol_desc d = sc_desc(&w);
    d.cap_big = capped ? 8 : 32;
    selfcol_cpu c;
    SC_OK(selfcol_cpu_create(&d, &c, e));
    assert_int_equal(c.tb.cap_big, (uint32_t)d.cap_big);
    dr_float4 *xc = malloc(bytes);
    assert_non_null(xc);
    memcpy(xc, w.x, bytes);
    cpu_selfcol_bound(&c, w.p, w.tris);
    assert_true(c.nbig > 8 && c.nbig <= 32);
    int held = 0, near_big = 0;
    for (int i = 0; i < w.n; i++) {
      held += c.rb[i] == 0u;
      /* within R of a big triangle's grown box: held when capped */
      int near = 0;
      for (uint32_t k = 0; k < c.nbig && !near; k++) {
        const dr_float4 lo = c.tbox[2 * c.big[k]], hi = c.tbox[2 * c.big[k] + 1];
        near = w.p[i].x >= lo.x && w.p[i].y >= lo.y && w.p[i].z >= lo.z && w.p[i].x <= hi.x &&
               w.p[i].y <= hi.y && w.p[i].z <= hi.z;
      }
      near_big += near;
      if (capped && near) assert_int_equal(c.rb[i], 0u);
    }
    cpu_selfcol_bound_clamp(&c, xc, w.p);
    for (int i = 0; i < w.n; i++)
      if (c.rb[i] == 0u) assert_memory_equal(&xc[i], &w.p[i], sizeof xc[i]);
    assert_int_equal(crossings_along(&w, xc), 0);
    assert_cl_bound_same(&w, d.cap_big, c.rb, xc);
    fprintf(stderr, "big list of %u, cap %d: %d of %d particles held (%d within a big "
            "triangle's grown box), no crossing, OpenCL = CPU\n", (unsigned)c.nbig, d.cap_big,
            held, w.n, near_big);
    assert_true(near_big > 0);
    held_at[capped] = held;
    if (capped) assert_true(held < w.n / 2); /* a local hold, not the whole cloth */
    free(xc);
    selfcol_cpu_destroy(&c);
  }
  assert_true(held_at[1] > held_at[0]);
  sc_world_free(&w);
}

/* The rope links against the list of stretched triangles
 * (selfcol_bound_links reads it eight boxes at a time): the two sheets with
 * the upper one's first row drawn 0.6 m along x, and a rope of 12 nodes
 * 2 cm apart laid 0.5 T above that row's stretched strip, where no hashed
 * triangle is (x from 0.44 m; the sheets end at 0.41 m): its nodes' r
 * comes from listed triangles only (rope nodes are not corners, so only
 * the links' kernel sees them), and is below R there. Everything is then
 * asked to move at random: no link or edge passes through a triangle
 * along the paths, and OpenCL (both kernel forms) gives the CPU's r and
 * positions to the bit. */
static void test_big_list_links(void **state) {
  (void)state;
  enum { M = 12 };
  sc_world sh, w;
  make_sheets(&sh, 1);
  const int ns = sh.n; /* the sheets' particles; the rope's follow */
  sc_world_alloc(&w, ns + M, sh.nt);
  memcpy(w.tris, sh.tris, 3 * sizeof *sh.tris * (size_t)sh.nt);
  w.nobj = 3;
  w.objects[0] = sh.objects[0];
  w.objects[1] = sh.objects[1];
  w.objects[2] = sc_cloth(T, 0.0f, 0);
  w.objects[2].rope = 1;
  for (int i = 0; i < sh.n; i++) {
    w.x[i] = sh.x[i];
    w.p[i] = sh.p[i];
    w.rest[i] = sh.rest[i];
    w.obj[i] = sh.obj[i];
  }
  for (int k = 0; k < M; k++) {
    const int i = ns + k;
    w.p[i] = (dr_float4){0.44f + 0.02f * (float)k, GAP + 0.5f * T, 1.5f * 3 * T, 1.0f};
    w.rest[i] = (dr_float4){0.02f * (float)k, 0, 0, 0};
    w.obj[i] = 2;
  }
  memcpy(w.x, w.p, sizeof *w.p * (size_t)w.n);
  sc_world_free(&sh);
  random_targets(&w, 11, 0);
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  assert_int_equal(c.tb.n_links, M - 1);
  const size_t bytes = sizeof(dr_float4) * (size_t)w.n;
  dr_float4 *xc = malloc(bytes);
  assert_non_null(xc);
  memcpy(xc, w.x, bytes);
  cpu_selfcol_bound(&c, w.p, w.tris);
  assert_true(c.nbig >= N - 1 && c.nbig <= c.tb.cap_big);
  int near = 0;
  for (int k = 0; k < M; k++) {
    float r;
    memcpy(&r, &c.rb[ns + k], sizeof r);
    near += r < 0.9f * c.tb.bound_r;
  }
  cpu_selfcol_bound_clamp(&c, xc, w.p);
  /* the crossings along the paths, rope links included */
  uint32_t links[2 * M];
  for (int k = 0; k + 1 < M; k++) {
    links[2 * k] = (uint32_t)(ns + k);
    links[2 * k + 1] = (uint32_t)(ns + k + 1);
  }
  const long most = crossings_along_links(&w, xc, links, M - 1);
  assert_cl_bound_same(&w, 0, c.rb, xc);
  fprintf(stderr, "rope over %u stretched triangles: %d of %d nodes within 0.9 R of them, "
          "crossings along the paths %ld, OpenCL = CPU\n", (unsigned)c.nbig, near, M, most);
  assert_true(near >= M / 2);
  assert_int_equal(most, 0);
  free(xc);
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_segment_distance),
      cmocka_unit_test(test_lower_bounds),
      cmocka_unit_test(test_guarantee),
      cmocka_unit_test(test_cl_matches_cpu),
      cmocka_unit_test(test_crushed_holds_still),
      cmocka_unit_test(test_big_list_capped),
      cmocka_unit_test(test_big_list_links),
      cmocka_unit_test(test_locks_release),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
