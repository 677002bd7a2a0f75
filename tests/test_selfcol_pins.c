/* Driven particles under the step bounds (issue 18; kernels/selfcol.cl,
 * selfcol_bound_clamp; docs/selfcollision.md "The guarantee"):
 *  - a pinned strip (w = 0, slightly tilted) driven up 0.1 T a substep,
 *    12 T in all, into three free sheets packed against it and each other
 *    (0.05 T apart, closer than the strip's move) and pressed down 0.02 T a
 *    substep (no cloth constraints: the sheets drape over the strip's edges
 *    and wedge against it). The strip is bounded like the sheets, so it
 *    goes only as far as its bound allows: no crossing after any substep,
 *    and the strip lags behind where it was driven. With the bounds off the
 *    strip goes through the sheets (the check can fail);
 *  - the lag is made up once the way is clear: the sheets taken away after
 *    60 substeps, the strip is back on its drive, to the bit, within 40
 *    more; driven with nothing in its way it never lags;
 *  - OpenCL (both kernel forms) gives the CPU reference's positions and
 *    bounds to the bit after every substep, and a repeat run gives the same
 *    bits. */
#include "cloth/crossings.h"
#include "selfcol_fixture.h"

static drape_cl g_cl;
static int setup(void **state) { (void)state; return sc_cl_setup(&g_cl); }
static int teardown(void **state) { (void)state; drape_cl_release(&g_cl); return 0; }

static const float T = 0.01f;   /* thickness */
enum { NS = 12, SC = 14, SR = 3, LAYERS = 3 };
static const float S = 0.02f;   /* grid spacing, 2 T */
static const float GAP = 0.05f * 0.01f; /* the sheets' spacing: 0.05 T */
static const float MOVE = 0.1f * 0.01f; /* the strip's move a substep */
static const float PRESS = 0.02f * 0.01f; /* the sheets' push down a substep */
static const float TILT = 0.2f * 0.01f; /* the strip's rise from one row to the next */

/* Object 0: the strip, SC x SR particles along x, centred, tilted about x
 * (row r at y = r TILT: a strip going through a sheet pierces its
 * triangles, which the crossing count sees; flat through flat it would
 * not); objects 1..3: NS x NS sheets at y = 2 TILT + k GAP, each shifted in
 * x and z so no vertex lies over another. */
static void make_world(sc_world *w) {
  const int n = SC * SR + LAYERS * NS * NS;
  const int nt = 2 * (SC - 1) * (SR - 1) + LAYERS * 2 * (NS - 1) * (NS - 1);
  sc_world_alloc(w, n, nt);
  w->nobj = 1 + LAYERS;
  for (int o = 0; o <= LAYERS; o++) w->objects[o] = sc_cloth(T, 0.2f, 1);
  int i = 0, tk = 0;
  const float half = 0.5f * (float)(NS - 1) * S;
  for (int o = 0; o <= LAYERS; o++) {
    const int cols = o ? NS : SC, rows = o ? NS : SR, base = i;
    const float x0 = o ? -half + 0.27f * S * (float)o : -0.5f * (float)(SC - 1) * S + 0.31f * S;
    const float z0 = o ? -half + 0.19f * S * (float)o : -0.5f * (float)(SR - 1) * S + 0.13f * S;
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++, i++) {
        const float y = o ? TILT * (float)(SR - 1) + (float)o * GAP : TILT * (float)r;
        w->x[i] = (dr_float4){x0 + (float)c * S, y, z0 + (float)r * S, o ? 1.0f : 0.0f};
        w->rest[i] = w->x[i];
        w->obj[i] = o;
      }
    for (int r = 0; r + 1 < rows; r++)
      for (int c = 0; c + 1 < cols; c++) {
        dr_uint a = (dr_uint)(base + r * cols + c), b = a + 1, cc = a + (dr_uint)cols, d = cc + 1;
        w->tris[3 * tk] = a; w->tris[3 * tk + 1] = cc; w->tris[3 * tk + 2] = b; tk++;
        w->tris[3 * tk] = b; w->tris[3 * tk + 1] = cc; w->tris[3 * tk + 2] = d; tk++;
      }
  }
  assert_int_equal(i, n);
  assert_int_equal(tk, nt);
  memcpy(w->p, w->x, sizeof *w->x * (size_t)n);
}

/* As the solver's drive stage does (absolute targets, drive.cl): the
 * strip's particles set to where substep s puts them, MOVE a substep from
 * their start (rest) height, however far the bounds held them back. */
static void predict_driven(sc_world *w, int s) {
  memcpy(w->p, w->x, sizeof(dr_float4) * (size_t)w->n);
  for (int i = 0; i < w->n; i++)
    if (w->x[i].w == 0.0f) w->x[i].y = w->rest[i].y + (float)(s + 1) * MOVE;
    else w->x[i].y -= PRESS;
}

static long crossings(const sc_world *w) {
  dr_crossing_mesh m = {&w->x[0].x, 4, w->n, w->tris, w->nt, NULL, 0};
  long k = 0;
  drape_err e = {0};
  assert_int_equal(dr_count_crossings(&m, &k, &e), 0);
  return k;
}

/* Lowest height over the strip (a plane, rising along z) of a sheet
 * particle inside the strip's footprint. */
static float lowest_above(const sc_world *w) {
  const float y0 = w->x[0].y, slope = (w->x[SC].y - y0) / (w->x[SC].z - w->x[0].z);
  float lo = 1e30f, xa = w->x[0].x, xb = w->x[SC - 1].x, za = w->x[0].z,
        zb = w->x[SC * SR - 1].z;
  for (int i = SC * SR; i < w->n; i++) {
    const float h = w->x[i].y - (y0 + (w->x[i].z - za) * slope);
    if (w->x[i].x > xa && w->x[i].x < xb && w->x[i].z > za && w->x[i].z < zb && h < lo) lo = h;
  }
  return lo;
}

/* The strip's largest distance below where it was driven after `steps`
 * substeps. */
static float strip_lag(const sc_world *w, int steps) {
  float lag = 0.0f;
  for (int i = 0; i < SC * SR; i++) {
    const float d = w->rest[i].y + (float)steps * MOVE - w->x[i].y;
    if (d > lag) lag = d;
  }
  return lag;
}

/* Drives the strip `steps` substeps on the CPU reference, the sheets in
 * its way for the first `sheets` substeps (then moved 1 m up, out of its
 * reach); returns the most crossings after any substep, *above the lowest
 * sheet particle over the strip and *lag the strip's lag, both at the end,
 * and *most_lag the largest lag after any substep. */
static long drive(int bound_off, int sheets, int steps, float *above, float *lag,
                  float *most_lag) {
  sc_world w;
  make_world(&w);
  assert_int_equal(crossings(&w), 0); /* starts free */
  sc_bound_off = bound_off;
  selfcol_desc d = sc_desc(&w);
  sc_bound_off = 0;
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  long most = 0;
  *most_lag = 0.0f;
  for (int s = 0; s < steps; s++) {
    if (s == sheets)
      for (int i = SC * SR; i < w.n; i++) w.x[i].y += 1.0f;
    predict_driven(&w, s);
    selfcol_cpu_run(&c, w.x, w.p, w.tris, NULL);
    long k = crossings(&w);
    if (k > most) most = k;
    *most_lag = fmaxf(*most_lag, strip_lag(&w, s + 1));
  }
  *above = lowest_above(&w);
  *lag = strip_lag(&w, steps);
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
  return most;
}

static void test_strip_through_packed_sheets(void **state) {
  (void)state;
  float above = 0.0f, lag = 0.0f, most_lag = 0.0f, above_off = 0.0f, lag_off = 0.0f;
  const long on = drive(0, 120, 120, &above, &lag, &most_lag);
  const long off = drive(1, 120, 120, &above_off, &lag_off, &most_lag);
  fprintf(stderr, "pinned strip driven 12 T into 3 sheets packed 0.05 T apart: with the bounds "
          "%ld crossings at most, strip %.3f T behind its drive, lowest sheet particle over "
          "it %.3f T above; without: %ld crossings, lag %.3f T, lowest %.3f T above\n", on,
          (double)(lag / T), (double)(above / T), off, (double)(lag_off / T),
          (double)(above_off / T));
  assert_int_equal(on, 0);
  assert_true(lag > 0.0f);        /* the bounds held the strip back */
  assert_true(off > 0);           /* without them it goes through */
  assert_true(above_off < 0.0f);
  assert_true(lag_off == 0.0f);
}

/* The lag is made up once the way is clear, and never taken without a
 * reason: to the bit where the drive puts the strip. */
static void test_strip_catches_up(void **state) {
  (void)state;
  float above = 0.0f, lag = 1.0f, most_lag = 0.0f;
  assert_int_equal(drive(0, 60, 100, &above, &lag, &most_lag), 0);
  fprintf(stderr, "sheets taken away after 60 substeps: lag %.3f T at most, %.3f T after 40 "
          "more\n", (double)(most_lag / T), (double)(lag / T));
  assert_true(most_lag > 1.0f * T);
  assert_true(lag == 0.0f);
  assert_int_equal(drive(0, 0, 120, &above, &lag, &most_lag), 0);
  assert_true(most_lag == 0.0f);
}

static void test_cl_matches_cpu(void **state) {
  (void)state;
  uint64_t hash[2] = {0, 0};
  for (int run = 0; run < 3; run++) { /* gpu form, vector form, CPU again */
    sc_world w;
    make_world(&w);
    const size_t bytes = sizeof(dr_float4) * (size_t)w.n, ub = sizeof(uint32_t) * (size_t)w.n;
    sc_kernel_form = sc_form(run % 2);
    selfcol_desc d = sc_desc(&w);
    selfcol_cpu c;
    SC_OK(selfcol_cpu_create(&d, &c, e));
    selfcol_cl g;
    SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
    sc_check_form(&g);
    dr_float4 *xg = malloc(bytes);
    uint32_t *ug = malloc(ub);
    assert_non_null(xg);
    assert_non_null(ug);
    int held = 0;
    uint64_t h = 1469598103934665603ull;
    for (int s = 0; s < 60; s++) {
      predict_driven(&w, s);
      sc_dev dev;
      sc_dev_upload(&g_cl, &w, &dev);
      SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, NULL, NULL, e));
      sc_read(&g_cl, dev.x, xg, bytes);
      selfcol_cpu_run(&c, w.x, w.p, w.tris, NULL);
      assert_memory_equal(xg, w.x, bytes);
      sc_read(&g_cl, g.rb, ug, ub);
      assert_memory_equal(ug, c.rb, ub);
      sc_dev_free(&dev);
      held += strip_lag(&w, s + 1) > 0.0f;
      const unsigned char *b = (const unsigned char *)w.x;
      for (size_t k = 0; k < bytes; k++) h = (h ^ b[k]) * 1099511628211ull;
    }
    assert_true(held > 30); /* the bounds held the strip back */
    if (run < 2) hash[run] = h;
    else assert_true(h == hash[0] && h == hash[1]); /* the same bits run to run */
    fprintf(stderr, "OpenCL (%s form) = CPU over 60 substeps (strip held back at %d)\n",
            sc_form_name(run % 2), held);
    free(xg);
    free(ug);
    selfcol_cl_destroy(&g);
    selfcol_cpu_destroy(&c);
    sc_world_free(&w);
  }
  sc_kernel_form = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strip_through_packed_sheets),
      cmocka_unit_test(test_strip_catches_up),
      cmocka_unit_test(test_cl_matches_cpu),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
