/* Edge-edge contacts of the self-collision stage (issue 18;
 * kernels/selfcol.cl, selfcol_edge_edge; docs/selfcollision.md):
 *  - two crossed strips (one quad each, two cloths, thickness T) whose
 *    vertices lie far outside the other strip, so only their edges can
 *    meet, pressed together by 0.1 T per substep each for 200 substeps:
 *    with the edge-edge pass their edges end >= 0.9 T apart; without it
 *    (the stage before, selfcol_set_edge_off) the step bounds only let them
 *    creep together, far closer than T, and the pass never lets an edge
 *    through the other strip (0 crossings);
 *  - a kinematic strip (w = 0) driven 20 T into a free one: the free one
 *    takes the whole correction and is carried on top, 0.9..1.1 T apart;
 *    without the pass the driven strip goes through it (> 10 T beyond);
 *  - OpenCL (both kernel forms) gives the CPU reference's positions to the
 *    bit after every substep, and the pass is deterministic;
 *  - the edge flags' skip (an edge whose ends' step-bound distances, less
 *    its own motion and its buckets' largest, each against the bucket's
 *    reference, exceed T needs no scan of its cells) keeps every contact:
 *    wide crossed strips 1.2 T apart at the substep's start and pressed
 *    0.11-0.19 T each, so that their edges touch only because both moved
 *    (the skip without either motion term misses them), give the CPU
 *    reference's bits. */
#include "cloth/crossings.h"
#include "selfcol_fixture.h"

static drape_cl g_cl;
/* The strips are one quad each with no constraints: the particle pass (the
 * rest-distance rule) is what keeps a strip's two long edges apart, and
 * on a quad two particles of one edge have no other triangles for the
 * vertex-triangle pass to cover them, so it runs here as it does for
 * scenes that need it (selfcol_tables.particles). */
static int setup(void **state) {
  (void)state;
  selfcol_set_particle_pass(1);
  return sc_cl_setup(&g_cl);
}
static int teardown(void **state) {
  (void)state;
  selfcol_set_edge_off(0);
  selfcol_set_particle_pass(0);
  drape_cl_release(&g_cl);
  return 0;
}

static const float T = 0.01f;
static const float A = 0.03f;  /* half length of a strip */
static const float W = 0.004f; /* width: the vertices of one strip are 0.028 m
                                  from the other strip, far beyond T */

/* Strip 0 along x at y = 0, strip 1 along z at y = gap; w0, w1 the inverse
 * masses of their particles. */
static void make_cross(sc_world *w, float gap, float w0, float w1) {
  sc_world_alloc(w, 8, 4);
  w->nobj = 2;
  w->objects[0] = sc_cloth(T, 0.0f, 1);
  w->objects[1] = sc_cloth(T, 0.0f, 1);
  const float h = 0.5f * W;
  const float q0[4][3] = {{-A, 0, -h}, {A, 0, -h}, {A, 0, h}, {-A, 0, h}};
  const float q1[4][3] = {{-h, gap, -A}, {h, gap, -A}, {h, gap, A}, {-h, gap, A}};
  for (int i = 0; i < 4; i++) {
    w->x[i] = (dr_float4){q0[i][0], q0[i][1], q0[i][2], w0};
    w->x[4 + i] = (dr_float4){q1[i][0], q1[i][1], q1[i][2], w1};
    w->obj[i] = 0;
    w->obj[4 + i] = 1;
  }
  for (int i = 0; i < 8; i++) {
    w->rest[i] = w->x[i];
    w->p[i] = w->x[i];
  }
  const dr_uint tr[12] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
  memcpy(w->tris, tr, sizeof tr);
}

/* make_cross's strips 3 T wide at height Y, above a third strip (object 0,
 * particles and triangles first) like strip 0, 4 T under it: it shares
 * their hash cells, and its first corner, which stays still, is the
 * reference motion of those buckets (selfcol_bucket_motion). */
static const float Y = 0.3f;
static void make_three(sc_world *w, float gap) {
  sc_world_alloc(w, 12, 6);
  w->nobj = 3;
  for (int o = 0; o < 3; o++) w->objects[o] = sc_cloth(T, 0.0f, 1);
  const float h = 1.5f * T, y1 = Y + gap;
  const float q[12][3] = {{-A, Y - 4.0f * T, -h}, {A, Y - 4.0f * T, -h}, {A, Y - 4.0f * T, h},
                          {-A, Y - 4.0f * T, h},  {-A, Y, -h},           {A, Y, -h},
                          {A, Y, h},              {-A, Y, h},            {-h, y1, -A},
                          {h, y1, -A},            {h, y1, A},            {-h, y1, A}};
  for (int i = 0; i < 12; i++) {
    w->x[i] = (dr_float4){q[i][0], q[i][1], q[i][2], 1.0f};
    w->obj[i] = i / 4;
    w->rest[i] = w->x[i];
    w->p[i] = w->x[i];
  }
  const dr_uint tr[18] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 8, 9, 10, 8, 10, 11};
  memcpy(w->tris, tr, sizeof tr);
}

/* Smallest distance between an edge of strip 0 and one of strip 1 (the
 * strips' first particles at x and x + 4). */
static float edge_gap(const dr_float4 *x) {
  static const int E[5][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}};
  float best = 1e30f;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      const dr_float4 *a = &x[E[i][0]], *b = &x[E[i][1]], *c = &x[4 + E[j][0]],
                      *d = &x[4 + E[j][1]];
      float p1[3] = {a->x, a->y, a->z}, q1[3] = {b->x, b->y, b->z};
      float p2[3] = {c->x, c->y, c->z}, q2[3] = {d->x, d->y, d->z};
      float g = selfcol_seg_dist(p1, q1, p2, q2);
      if (g < best) best = g;
    }
  return best;
}

/* The vertices' smallest distance to the other strip's triangles' plane
 * region is 0.028 m: only edges meet. Presses the strips together for
 * `steps` substeps (strip 0 up, strip 1 down by 0.1 T each) and returns
 * the edge gap after the last one; *crossings the most crossings seen
 * after any substep, *above strip 1's height over strip 0 at the end
 * (negative: one went through the other). NULL: not wanted. */
static float press(int edge_off, float w0, float w1, int steps, long *crossings, float *above) {
  sc_world w;
  make_cross(&w, 0.8f * T, w0, w1);
  selfcol_set_edge_off(edge_off);
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  assert_int_equal(c.tb.edge, !edge_off);
  const float push = 0.1f * T;
  long most = 0;
  for (int s = 0; s < steps; s++) {
    memcpy(w.p, w.x, sizeof(dr_float4) * 8);
    for (int i = 0; i < 8; i++) w.x[i].y += i < 4 ? push : -push;
    selfcol_cpu_run(&c, w.x, w.p, w.tris, NULL);
    dr_crossing_mesh m = {&w.x[0].x, 4, 8, w.tris, 4, NULL, 0};
    long k = 0;
    drape_err er = {0};
    assert_int_equal(dr_count_crossings(&m, &k, &er), 0);
    if (k > most) most = k;
  }
  float g = edge_gap(w.x);
  if (above) { /* strip 1's height over strip 0 (mean of the corners) */
    float y0 = 0.0f, y1 = 0.0f;
    for (int i = 0; i < 4; i++) {
      y0 += 0.25f * w.x[i].y;
      y1 += 0.25f * w.x[4 + i].y;
    }
    *above = y1 - y0;
  }
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
  selfcol_set_edge_off(0);
  if (crossings) *crossings = most;
  return g;
}

static void test_crossed_strips(void **state) {
  (void)state;
  long k_on = -1, k_off = -1;
  const float on = press(0, 1.0f, 1.0f, 200, &k_on, NULL);
  const float off = press(1, 1.0f, 1.0f, 200, &k_off, NULL);
  fprintf(stderr, "crossed strips pressed 200 substeps: edge gap %.3f T with edge-edge, %.3f T "
          "without; crossings %ld / %ld\n", (double)(on / T), (double)(off / T), k_on, k_off);
  assert_true(on >= 0.9f * T);
  assert_true(on <= 1.05f * T);
  assert_true(off < 0.5f * T);
  assert_int_equal(k_on, 0);
  assert_int_equal(k_off, 0); /* the bounds alone already stop the crossing */
}

static void test_kinematic_carries(void **state) {
  (void)state;
  /* strip 0 kinematic (w = 0), driven up 0.1 T a substep into the free
   * strip 1, which is itself pressed down 0.1 T a substep: 200 substeps
   * drive strip 0 20 T up. With edge-edge contacts strip 1 is carried on
   * top, T apart; without them nothing pushes strip 1 out of the way: the
   * bounds hold both where they meet (the driven strip too: it lags behind
   * its drive, docs/selfcollision.md "The guarantee") and neither passes
   * through the other. */
  long k = -1, k_off = -1;
  float up_on = 0.0f, up_off = 0.0f;
  const float on = press(0, 0.0f, 1.0f, 200, &k, &up_on);
  (void)press(1, 0.0f, 1.0f, 200, &k_off, &up_off);
  fprintf(stderr, "kinematic strip driven 20 T into a free one: edge gap %.3f T, strip 1 %.3f T "
          "above with edge-edge; %.3f T above without; crossings %ld / %ld\n", (double)(on / T),
          (double)(up_on / T), (double)(up_off / T), k, k_off);
  assert_true(on >= 0.9f * T);
  assert_true(up_on > 0.9f * T && up_on < 1.1f * T);
  assert_true(up_off > -0.5f * T); /* not driven through */
  assert_int_equal(k, 0);
  assert_int_equal(k_off, 0);
}

static void test_cl_matches_cpu(void **state) {
  (void)state;
  const size_t bytes = sizeof(dr_float4) * 8;
  for (int run = 0; run < 2; run++) {
    sc_world w;
    make_cross(&w, 0.8f * T, 1.0f, 1.0f);
    sc_kernel_form = sc_form(run);
    selfcol_cpu c;
    selfcol_cl g;
    sc_pair_create(&g_cl, &w, &c, &g);
    assert_true(g.tb.edge);
    dr_float4 xg[8], xr[8];
    int moved = 0;
    for (int s = 0; s < 40; s++) {
      memcpy(w.p, w.x, bytes);
      for (int i = 0; i < 8; i++) w.x[i].y += i < 4 ? 0.1f * T : -0.1f * T;
      memcpy(xr, w.x, bytes);
      sc_pair_run(&g_cl, &g, &c, &w, xg);
      for (int i = 0; i < 8; i++) moved += memcmp(&xr[i], &w.x[i], sizeof xr[i]) != 0;
      assert_memory_equal(xg, w.x, bytes);
    }
    assert_true(moved > 0); /* the stage did move particles */
    fprintf(stderr, "OpenCL (%s form) = CPU over 40 pressed substeps (%d particle moves)\n",
            sc_form_name(run), moved);
    selfcol_cl_destroy(&g);
    selfcol_cpu_destroy(&c);
    sc_world_free(&w);
  }
  sc_kernel_form = 0;
  /* deterministic: the same run twice gives the same bits */
  long k;
  float a = press(0, 1.0f, 1.0f, 60, &k, NULL), b = press(0, 1.0f, 1.0f, 60, &k, NULL);
  assert_memory_equal(&a, &b, sizeof a);
}

/* The flags' skip (kernels/selfcol.cl, selfcol_edge_flags). Strips 3 T
 * wide (make_three): within a strip nothing is nearer than 3 T, the
 * vertices lie far outside the other strip and the still strip is 4 T
 * away, so each particle's step bound is its crossing edges' distance at
 * the substep's start p (capped at 1.25 T). A substep starts 1.2 T apart
 * (p) and each crossing strip moves 0.15 T (0.11, 0.19) towards the
 * other: the edges are 0.9 T (0.98, 0.82) apart at x, in contact. Their
 * buckets' reference motion is the still strip's (0), so each edge's own
 * motion and its bucket's largest each count 0.15 T, and the skip must
 * add both (1.2 - 2 x 0.15 < 1; without either term 1.05 > 1 and the
 * contacts would be skipped). Then a substep moving 0.01 T each, which
 * the skip takes (no contact: the same bits either way), and the first
 * again with the crossing strips also drifting alike. */
static void test_flags_skip(void **state) {
  (void)state;
  const size_t bytes = sizeof(dr_float4) * 12;
  for (int run = 0; run < 2; run++) {
    sc_kernel_form = sc_form(run);
    int moved = 0;
    for (int s = 0; s < 5; s++) {
      static const float steps[5] = {0.15f, 0.11f, 0.19f, 0.01f, 0.15f};
      const float step = steps[s] * T;
      /* the last: both crossing strips also drift 0.2, 0.25, 0.1 T */
      const float drift[3] = {s == 4 ? 0.2f * T : 0.0f, s == 4 ? 0.25f * T : 0.0f,
                              s == 4 ? 0.1f * T : 0.0f};
      sc_world w;
      make_three(&w, 1.2f * T);
      selfcol_cpu c;
      selfcol_cl g;
      sc_pair_create(&g_cl, &w, &c, &g);
      assert_true(g.tb.edge);
      const float g0 = edge_gap(w.x + 4);
      memcpy(w.p, w.x, bytes);
      for (int i = 4; i < 12; i++) {
        w.x[i].x += drift[0];
        w.x[i].y += (i < 8 ? step : -step) + drift[1];
        w.x[i].z += drift[2];
      }
      const float g1 = edge_gap(w.x + 4);
      dr_float4 xg[12], xr[12];
      memcpy(xr, w.x, bytes);
      sc_pair_run(&g_cl, &g, &c, &w, xg);
      const float g2 = edge_gap(w.x + 4);
      int m = 0;
      for (int i = 0; i < 12; i++) m += memcmp(&xr[i], &w.x[i], sizeof xr[i]) != 0;
      if (s != 3) {
        assert_true(g0 >= 1.19f * T && g1 < T); /* in contact only after both moved */
        assert_true(m > 0 && g2 > g1);          /* the edge-edge pass pushed them apart */
      } else {
        assert_true(g1 > T && m == 0); /* no contact */
      }
      for (int i = 0; i < 4; i++) assert_memory_equal(&xr[i], &w.x[i], sizeof xr[i]); /* still */
      moved += m;
      assert_memory_equal(xg, w.x, bytes);
      selfcol_cl_destroy(&g);
      selfcol_cpu_destroy(&c);
      sc_world_free(&w);
    }
    fprintf(stderr, "flags' skip (%s form): OpenCL = CPU with contacts made only by both "
            "strips' motion (%d particle moves)\n", sc_form_name(run), moved);
  }
  sc_kernel_form = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crossed_strips),
      cmocka_unit_test(test_kinematic_carries),
      cmocka_unit_test(test_cl_matches_cpu),
      cmocka_unit_test(test_flags_skip),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
