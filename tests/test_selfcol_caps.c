/* Self-collision: bounded work, rejected thicknesses, NaN (issue 13).
 *  - a 64 x 64 cloth crushed into one hash cell: every particle query reads
 *    at most cap_p hash entries and every vertex query at most cap_t (the
 *    per-particle counters), each capped query is counted for its object,
 *    the device's bucket fronts equal the CPU reference's entry for entry,
 *    the positions after the stage agree to the bit, and the stage is fast;
 *  - the warning comes once per object, names it and the count, on both
 *    backends; inside the solver too (a sheet with a corner dragged far
 *    away: its huge triangles make one huge cell), where it comes again
 *    each time the count has doubled, saying from what;
 *  - thicknesses the hash cannot handle are rejected at sim creation with
 *    the key, the value and the allowed range;
 *  - a NaN, an infinite and a 1e30 particle go through the stage without
 *    an out-of-bounds access (run under ASan in CI), NaN stays NaN, a NaN
 *    start position makes the clamp give NaN instead of keeping a finite
 *    value, and both backends agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfcol_fixture.h"
#include "drape/cloth.h"
#include "drape/scene.h"

static drape_cl g_cl;
static int setup(void **state) { (void)state; return sc_cl_setup(&g_cl); }
static int teardown(void **state) { (void)state; drape_cl_release(&g_cl); return 0; }

/* Warnings caught instead of printed. */
typedef struct {
  int calls;
  char last[640];
  unsigned count[16], from[16]; /* "met N", "up from M" of each (0: none) */
} caught;
static void catch_warn(const char *msg, void *ctx) {
  caught *c = ctx;
  if (c->calls < 16) {
    const char *m = strstr(msg, " met "), *u = strstr(msg, "up from ");
    c->count[c->calls] = m ? (unsigned)strtoul(m + 5, NULL, 10) : 0u;
    c->from[c->calls] = u ? (unsigned)strtoul(u + 8, NULL, 10) : 0u;
  }
  c->calls++;
  snprintf(c->last, sizeof c->last, "%s", msg);
}

/* An N x N grid cloth (object 0, vertex-triangle mode), rest spacing s,
 * thickness t; current positions = rest scaled by `squash` (1: flat, 1e-3:
 * the whole sheet inside one cell), start-of-substep positions a little
 * above (falling). */
static void make_sheet(sc_world *w, int N, float s, float t, float squash) {
  sc_world_alloc(w, N * N, 2 * (N - 1) * (N - 1));
  w->nobj = 1;
  w->objects[0] = sc_cloth(t, 0.2f, 1);
  w->objects[0].name = "sheet";
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      int i = r * N + c;
      w->rest[i] = (dr_float4){c * s, 0.0f, r * s, 0.0f};
      /* a little out of plane, so crushed triangles are not all degenerate */
      float y = 0.3f * s * (float)((r * 7 + c * 3) % 5) / 5.0f;
      w->x[i] = (dr_float4){0.1f + squash * c * s, 0.5f + squash * y, 0.1f + squash * r * s, 1.0f};
      w->p[i] = w->x[i];
      w->p[i].y += 0.2f * t;
    }
  int k = 0;
  for (int r = 0; r + 1 < N; r++)
    for (int c = 0; c + 1 < N; c++) {
      dr_uint a = (dr_uint)(r * N + c), b = a + 1, d = a + (dr_uint)N, e = d + 1;
      dr_uint tri[6] = {a, b, e, a, e, d};
      memcpy(&w->tris[3 * k], tri, sizeof tri);
      k += 2;
    }
}

static int same_bits_or_both_nan(const dr_float4 *a, const dr_float4 *b, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    const float *u = &a[i].x, *v = &b[i].x;
    for (int q = 0; q < 4; q++)
      if (!(isnan(u[q]) && isnan(v[q])) && memcmp(&u[q], &v[q], sizeof(float)) != 0) bad++;
  }
  return bad;
}

/* The first min(size, cap) entries of every bucket agree. */
static long front_diff(const uint32_t *start, const uint32_t *a, const uint32_t *b, size_t B,
                       uint32_t cap) {
  long bad = 0;
  for (size_t h = 0; h < B; h++) {
    uint32_t m = start[h + 1] - start[h];
    if (m > cap) m = cap;
    for (uint32_t q = 0; q < m; q++) bad += a[start[h] + q] != b[start[h] + q];
  }
  return bad;
}

/* ---- a crushed cloth ---- */
static void crushed_cloth_is_bounded(void **state) {
  (void)state;
  const int N = 64, n = N * N;
  sc_world w;
  make_sheet(&w, N, 0.02f, 0.01f, 1e-3f);
  selfcol_desc d = sc_desc(&w);
  caught cw = {0};
  selfcol_set_warn(catch_warn, &cw);

  /* CPU reference: the whole stage, twice (the warning comes once) */
  dr_float4 *xc = malloc(sizeof *xc * (size_t)n);
  assert_non_null(xc);
  memcpy(xc, w.x, sizeof *xc * (size_t)n);
  selfcol_cpu cpu;
  SC_OK(selfcol_cpu_create(&d, &cpu, e));
  assert_int_equal(cpu.tb.cap_p, SELFCOL_CAP_P);
  assert_int_equal(cpu.tb.cap_t, SELFCOL_CAP_T);
  assert_int_equal(cpu.tb.cap_c, SELFCOL_CAP_C);
  double t0 = drape_now();
  selfcol_cpu_run(&cpu, xc, w.p, w.tris, NULL);
  double ms_cpu = 1e3 * (drape_now() - t0);
  uint32_t pmax = 0, vmax = 0;
  int nmax = 0;
  for (int i = 0; i < n; i++) {
    if (cpu.pexam[i] > pmax) pmax = cpu.pexam[i];
    if (cpu.vexam[i] > vmax) vmax = cpu.vexam[i];
    if (cpu.ncon[i] > nmax) nmax = cpu.ncon[i];
  }
  fprintf(stderr, "crushed %dx%d, CPU: stage %.1f ms; most entries read: particle query %u "
          "(cap %u; contacts %d, cap %u), vertex query %u (cap %u); capped: %u particle queries (most candidates "
          "%u), %u vertex queries (%u), %u corners (%u)\n",
          N, N, ms_cpu, pmax, cpu.tb.cap_p, nmax, cpu.tb.cap_n, vmax, cpu.tb.cap_t, cpu.caps[SELFCOL_CAPC_P],
          cpu.caps[SELFCOL_CAPC_P_MAX], cpu.caps[SELFCOL_CAPC_T], cpu.caps[SELFCOL_CAPC_T_MAX],
          cpu.caps[SELFCOL_CAPC_C], cpu.caps[SELFCOL_CAPC_C_MAX]);
  assert_true(pmax <= cpu.tb.cap_p);      /* never past the caps */
  assert_true(vmax <= cpu.tb.cap_t);
  assert_int_equal(nmax, (int)cpu.tb.cap_n); /* the contact cap was what stopped them */
  assert_int_equal(cpu.caps[SELFCOL_CAPC_P], n); /* every particle query was capped */
  assert_true(cpu.caps[SELFCOL_CAPC_P_MAX] >= (uint32_t)n); /* the whole sheet in its cells */
  assert_true(cpu.caps[SELFCOL_CAPC_C] > 0); /* corners shared by thousands of contacts */
  assert_true(cpu.caps[SELFCOL_CAPC_C_MAX] > cpu.tb.cap_c);
  assert_int_equal(cw.calls, 1);
  assert_non_null(strstr(cw.last, "cloth \"sheet\""));
  char want[64];
  snprintf(want, sizeof want, "met %u hash entries (caps: %u entries, %u contacts)",
           cpu.caps[SELFCOL_CAPC_P_MAX], cpu.tb.cap_p, cpu.tb.cap_n);
  assert_non_null(strstr(cw.last, want));
  /* uncapped, this took seconds (a particle query read all 4096) */
  assert_true(ms_cpu < 2000.0);
  /* and with the contact cap raised, the entry cap is what stops them */
  {
    selfcol_cpu c2;
    dr_float4 *x2 = malloc(sizeof *x2 * (size_t)n);
    assert_non_null(x2);
    memcpy(x2, w.x, sizeof *x2 * (size_t)n);
    SC_OK(selfcol_cpu_create(&d, &c2, e));
    c2.tb.cap_n = 1u << 20;
    cpu_selfcol_clamp(&c2, x2, w.p, NULL);
    cpu_hash_particles(&c2, x2);
    cpu_selfcol_particles(&c2, x2, w.p);
    uint32_t m2 = 0;
    for (int i = 0; i < n; i++)
      if (c2.pexam[i] > m2) m2 = c2.pexam[i];
    assert_int_equal(m2, c2.tb.cap_p);
    selfcol_cpu_destroy(&c2);
    free(x2);
  }

  /* OpenCL: the same stage on the same input */
  sc_dev dev;
  sc_dev_upload(&g_cl, &w, &dev);
  selfcol_cl g;
  SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
  sc_check_form(&g);
  SC_OK(selfcol_cl_clamp(&g, dev.x, dev.p, NULL, NULL, e));
  SC_OK(selfcol_cl_hash_particles(&g, dev.x, e));
  /* the bucket fronts the passes read equal the reference's */
  {
    selfcol_cpu ref;
    dr_float4 *xr = malloc(sizeof *xr * (size_t)n);
    assert_non_null(xr);
    memcpy(xr, w.x, sizeof *xr * (size_t)n);
    SC_OK(selfcol_cpu_create(&d, &ref, e));
    cpu_selfcol_clamp(&ref, xr, w.p, NULL);
    cpu_hash_particles(&ref, xr);
    size_t B = (size_t)ref.tb.mask_p + 1;
    uint32_t *start = calloc(B + 1, sizeof *start), *vals = calloc((size_t)n, sizeof *vals);
    assert_non_null(start);
    assert_non_null(vals);
    sc_read(&g_cl, g.pcount, start, (B + 1) * sizeof *start);
    sc_read(&g_cl, g.pvals, vals, (size_t)n * sizeof *vals);
    assert_memory_equal(start, ref.pstart, (B + 1) * sizeof *start);
    uint32_t biggest = 0;
    for (size_t h = 0; h < B; h++)
      if (start[h + 1] - start[h] > biggest) biggest = start[h + 1] - start[h];
    assert_true(biggest > ref.tb.cap_p); /* the partial sort was exercised */
    assert_int_equal(front_diff(start, vals, ref.pvals, B, ref.tb.cap_p), 0);
    free(start);
    free(vals);
    free(xr);
    selfcol_cpu_destroy(&ref);
  }
  SC_OK(selfcol_cl_particles(&g, dev.x, dev.p, e));
  SC_OK(selfcol_cl_hash_triangles(&g, dev.x, dev.tris, e));
  SC_OK(selfcol_cl_vertex_triangle(&g, dev.x, dev.p, dev.tris, e));
  clFinish(g_cl.queue);
  uint32_t *pe = calloc((size_t)n, sizeof *pe), *ve = calloc((size_t)n, sizeof *ve);
  uint32_t caps[SELFCOL_CAPC_STRIDE];
  dr_float4 *xg = malloc(sizeof *xg * (size_t)n);
  assert_non_null(pe);
  assert_non_null(ve);
  assert_non_null(xg);
  sc_read(&g_cl, g.pexam, pe, (size_t)n * sizeof *pe);
  sc_read(&g_cl, g.vexam, ve, (size_t)n * sizeof *ve);
  sc_read(&g_cl, dev.x, xg, (size_t)n * sizeof *xg);
  assert_memory_equal(pe, cpu.pexam, (size_t)n * sizeof *pe);
  assert_memory_equal(ve, cpu.vexam, (size_t)n * sizeof *ve);
  assert_int_equal(same_bits_or_both_nan(xg, xc, n), 0); /* the backends agree to the bit */
  cw.calls = 0;
  SC_OK(selfcol_cl_caps(&g, caps, e));
  assert_memory_equal(caps, cpu.caps, sizeof caps);
  assert_int_equal(cw.calls, 1); /* the device's counters warn once too */
  assert_non_null(strstr(cw.last, "cloth \"sheet\""));

  /* a second substep: still bounded, no second warning */
  cw.calls = 0;
  selfcol_cpu_run(&cpu, xc, w.p, w.tris, NULL);
  SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, NULL, NULL, e));
  SC_OK(selfcol_cl_caps(&g, caps, e));
  assert_int_equal(cw.calls, 0);
  sc_read(&g_cl, dev.x, xg, (size_t)n * sizeof *xg);
  assert_int_equal(same_bits_or_both_nan(xg, xc, n), 0);
  assert_memory_equal(caps, cpu.caps, sizeof caps);

  selfcol_set_warn(NULL, NULL);
  free(pe);
  free(ve);
  free(xg);
  free(xc);
  selfcol_cl_destroy(&g);
  sc_dev_free(&dev);
  selfcol_cpu_destroy(&cpu);
  sc_world_free(&w);
}

/* A flat sheet at the largest thickness allowed meets no cap, and the
 * caps leave room above what it reads. */
static void test_flat_sheet_is_not_capped(void **state) {
  (void)state;
  const int N = 48, n = N * N;
  sc_world w;
  make_sheet(&w, N, 0.02f, 0.01f, 1.0f);
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu cpu;
  SC_OK(selfcol_cpu_create(&d, &cpu, e));
  selfcol_cpu_run(&cpu, w.x, w.p, w.tris, NULL);
  uint32_t pmax = 0, vmax = 0;
  for (int i = 0; i < n; i++) {
    if (cpu.pexam[i] > pmax) pmax = cpu.pexam[i];
    if (cpu.vexam[i] > vmax) vmax = cpu.vexam[i];
  }
  fprintf(stderr, "flat %dx%d, thickness 0.5 x spacing: most entries read %u (particle), %u "
          "(vertex)\n", N, N, pmax, vmax);
  for (int c = 0; c < SELFCOL_CAPC_STRIDE; c++) assert_int_equal(cpu.caps[c], 0);
  assert_true(4 * pmax <= cpu.tb.cap_p);
  assert_true(2 * vmax <= cpu.tb.cap_t);
  selfcol_cpu_destroy(&cpu);
  sc_world_free(&w);
}

/* ---- in the solver: a warning naming the cloth, again only when its
 * count has doubled ---- */
static const char *DRAGGED =
    "{ \"gravity\": [0, -9.81, 0], \"dt\": 0.016666, \"substeps\": 10,"
    "  \"cloth\": [{ \"name\": \"dragged\","
    "    \"grid\": { \"cols\": 24, \"rows\": 24, \"spacing\": 0.02, \"origin\": [-0.23, 1, -0.23] },"
    "    \"thickness\": 0.01, \"self_collision\": true,"
    "    \"compliance\": { \"stretch\": 1, \"shear\": 1, \"bend\": 1 },"
    "    \"pin_paths\": [{ \"pin\": [0, 0], \"keys\": [[0, -0.23, 1, -0.23], [0.05, -20, 1, -20]] }] }] }";

/* The dragged sheet for 8 frames on backend b (0: the CPU reference; 1,
 * 2: OpenCL in the GPU and the vector form), its warnings caught in cw;
 * returns the sim, still open. */
static drape_sim *run_dragged(const drape_scene *s, int b, caught *cw) {
  drape_err e = {0};
  selfcol_set_warn(catch_warn, cw);
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = b ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU;
  if (b) o.kernel_form = sc_form(b - 1);
  drape_sim *sim = NULL;
  if (drape_sim_create(s, &o, &sim, &e)) fprintf(stderr, "%s\n", e.msg);
  assert_non_null(sim);
  for (int f = 0; f < 8; f++) assert_int_equal(drape_sim_step(sim, &e), 0);
  return sim;
}

/* The dragged corner's triangles are stretched far past the others. With
 * every triangle in cells (selfcol_set_wide_off: the scheme before the
 * wide bucket) they size the cells, the whole sheet shares a few buckets
 * and the queries meet more and more entries: what a crushed cloth does
 * to its cells, here in a sheet small enough for a test. */
static void test_warning_in_the_solver(void **state) {
  (void)state;
  drape_scene s;
  drape_err e = {0};
  assert_int_equal(drape_scene_parse(DRAGGED, "dragged", &s, &e), 0);
  selfcol_set_wide_off(1);
  for (int b = 0; b < 3; b++) { /* CPU; OpenCL in the GPU and the vector form */
    caught cw = {0};
    drape_sim *sim = run_dragged(&s, b, &cw);
    fprintf(stderr, "%s: %d warning(s), the last: %s\n", b ? "OpenCL" : "CPU", cw.calls, cw.last);
    /* the dragged corner's triangles grow: the vertex-triangle queries
     * meet more and more entries, and each warning after the first says
     * so, at twice the count of the one before or more */
    assert_true(cw.calls >= 1 && cw.calls <= 16);
    /* the CPU reference warns as it counts: its queries grew from 338 to
     * 722 entries here, so it warned twice (OpenCL reads its counters a
     * frame or so late, and may first see a larger count) */
    if (b == 0) assert_true(cw.calls >= 2);
    assert_true(cw.count[0] > SELFCOL_CAP_T);
    assert_int_equal(cw.from[0], 0);
    for (int i = 1; i < cw.calls; i++) {
      assert_int_equal(cw.from[i], cw.count[i - 1]);
      assert_true(cw.count[i] >= 2u * cw.from[i]);
    }
    assert_non_null(strstr(cw.last, "cloth \"dragged\""));
    assert_non_null(strstr(cw.last, "(cap "));
    drape_sim_destroy(sim);
    selfcol_set_warn(NULL, NULL);
  }
  selfcol_set_wide_off(0);
  drape_scene_free(&s);
}

/* The same drag with the wide bucket (the default): the stretched
 * triangles go to the wide bucket, the cells stay sized by the rest of
 * the sheet, and no query meets a cap on either backend. */
static void test_dragged_not_capped(void **state) {
  (void)state;
  drape_scene s;
  drape_err e = {0};
  assert_int_equal(drape_scene_parse(DRAGGED, "dragged", &s, &e), 0);
  for (int b = 0; b < 3; b++) {
    caught cw = {0};
    drape_sim *sim = run_dragged(&s, b, &cw);
    fprintf(stderr, "wide bucket, %s: %d warning(s)\n", b ? "OpenCL" : "CPU", cw.calls);
    assert_int_equal(cw.calls, 0);
    drape_sim_destroy(sim);
    selfcol_set_warn(NULL, NULL);
  }
  drape_scene_free(&s);
}

/* ---- rejected thicknesses ---- */
static void expect_rejected(const char *json, const char *const *parts) {
  drape_scene s;
  drape_err e = {0};
  if (drape_scene_parse(json, "t", &s, &e)) {
    /* the limits are the scene's (drape/limits.h): the loader refuses it
     * with the message drape_sim_create gives a scene built in code
     * (tests/test_limits.c checks that they are the same) */
    fprintf(stderr, "rejected by the loader: %s\n", e.msg);
    assert_non_null(parts);
    for (const char *const *p = parts; *p; p++) {
      if (!strstr(e.msg, *p)) fprintf(stderr, "missing \"%s\"\n", *p);
      assert_non_null(strstr(e.msg, *p));
    }
    return;
  }
  for (int b = 0; b < 2; b++) {
    drape_sim_opts o = drape_sim_opts_default();
    o.backend = b ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU;
    drape_sim *sim = NULL;
    memset(&e, 0, sizeof e);
    int rc = drape_sim_create(&s, &o, &sim, &e);
    if (!parts) {
      if (rc) fprintf(stderr, "unexpected: %s\n", e.msg);
      assert_int_equal(rc, 0);
      drape_sim_destroy(sim);
      continue;
    }
    fprintf(stderr, "rejected: %s\n", e.msg);
    assert_int_equal(rc, DRAPE_EINVAL);
    assert_null(sim);
    for (const char *const *p = parts; *p; p++) {
      if (!strstr(e.msg, *p)) fprintf(stderr, "missing \"%s\"\n", *p);
      assert_non_null(strstr(e.msg, *p));
    }
  }
  drape_scene_free(&s);
}

static void test_thickness_limits(void **state) {
  (void)state;
  /* its own spacing: at most 0.5 x (the 1 m on a 2 cm grid) */
  static const char *const own[] = {"cloth[0].thickness = 1:", "allowed > 0 and <= 0.01", NULL};
  expect_rejected("{\"cloth\": [{\"grid\": {\"spacing\": 0.02}, \"thickness\": 1,"
                  " \"self_collision\": true}]}", own);
  static const char *const own2[] = {"cloth[0].thickness = 0.0101:", "<= 0.01", NULL};
  expect_rejected("{\"cloth\": [{\"grid\": {\"spacing\": 0.02}, \"thickness\": 0.0101,"
                  " \"self_collision\": true}]}", own2);
  /* exactly 0.5 x passes; without self-collision anything does */
  expect_rejected("{\"cloth\": [{\"grid\": {\"spacing\": 0.02}, \"thickness\": 0.01,"
                  " \"self_collision\": true}]}", NULL);
  expect_rejected("{\"cloth\": [{\"grid\": {\"spacing\": 0.02}, \"thickness\": 1}]}", NULL);
  /* the cell (2 x the largest thickness) against another cloth's spacing */
  static const char *const cell[] = {"cloth[1].thickness = 0.03:", "cloth[0]: 0.02 m",
                                     "allowed > 0 and <= 0.02", NULL};
  expect_rejected("{\"cloth\": [{\"grid\": {\"spacing\": 0.02}, \"thickness\": 0.005,"
                  " \"self_collision\": true},"
                  " {\"grid\": {\"spacing\": 0.1, \"origin\": [0, 1, 0]}, \"thickness\": 0.03,"
                  " \"self_collision\": true}]}", cell);
  /* a rope's links: at most 4 x */
  static const char *const rope[] = {"rope[0].thickness = 0.05:", "link rest length",
                                     "rope[0]: 0.01 m", "allowed > 0 and <= 0.04", NULL};
  expect_rejected("{\"cloth\": [{\"grid\": {\"spacing\": 0.2}, \"thickness\": 0.01,"
                  " \"self_collision\": true}],"
                  " \"rope\": [{\"segments\": 100, \"length\": 1, \"start\": [0, 1, 0],"
                  " \"end\": [1, 1, 0], \"thickness\": 0.05}]}", rope);
}

/* ---- NaN ---- */
static void nan_particle(void **state) {
  (void)state;
  const int N = 16, n = N * N;
  sc_world w;
  make_sheet(&w, N, 0.02f, 0.01f, 1.0f);
  /* fold the upper half onto the lower one, a little less than a
   * thickness above, so there are contacts to make */
  for (int r = N / 2; r < N; r++)
    for (int c = 0; c < N; c++) {
      int i = r * N + c;
      w.x[i] = w.x[(N - 1 - r) * N + c];
      w.x[i].y += 0.007f;
      w.x[i].x += 0.004f;
      w.p[i] = w.x[i];
      w.p[i].y += 0.002f;
    }
  const int bad = 5 * N + 7, inf = 3 * N + 2, huge = 12 * N + 9, pnan = 9 * N + 4;
  w.x[bad].x = w.x[bad].y = w.x[bad].z = NAN;
  w.p[bad] = w.x[bad];
  w.x[inf].y = INFINITY;
  w.x[huge].x = 1e30f;
  w.p[pnan].z = NAN; /* a NaN start position (a NaN velocity before it) */
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu cpu;
  SC_OK(selfcol_cpu_create(&d, &cpu, e));
  dr_float4 *xc = malloc(sizeof *xc * (size_t)n), *xg = malloc(sizeof *xg * (size_t)n);
  assert_non_null(xc);
  assert_non_null(xg);
  memcpy(xc, w.x, sizeof *xc * (size_t)n);
  sc_dev dev;
  sc_dev_upload(&g_cl, &w, &dev);
  selfcol_cl g;
  SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
  sc_check_form(&g);
  long contacts = 0;
  for (int it = 0; it < 3; it++) {
    selfcol_cpu_run(&cpu, xc, w.p, w.tris, NULL);
    for (int i = 0; i < n; i++) contacts += cpu.ncon[i] + cpu.nvt[i];
    SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, NULL, NULL, e));
  }
  sc_read(&g_cl, dev.x, xg, sizeof *xg * (size_t)n);
  assert_true(contacts > 0);
  /* NaN stays NaN in every coordinate, on both backends */
  assert_true(isnan(xc[bad].x) && isnan(xc[bad].y) && isnan(xc[bad].z));
  assert_true(isnan(xg[bad].x) && isnan(xg[bad].y) && isnan(xg[bad].z));
  /* the infinite one is not made finite; the NaN start position makes the
   * clamp give NaN (it used to keep the finite value) */
  assert_false(isfinite(xc[inf].y));
  assert_true(isnan(xc[pnan].x) && isnan(xc[pnan].y) && isnan(xc[pnan].z));
  /* the 1e30 one is a finite runaway: the clamp brings it back near p */
  assert_true(isfinite(xc[huge].x) && fabsf(xc[huge].x - w.p[huge].x) <= 0.5f * 0.01f + 1e-6f);
  /* the others stay finite: a NaN does not spread through the stage */
  int nonfinite = 0;
  for (int i = 0; i < n; i++)
    if (i != bad && i != inf && i != pnan)
      nonfinite += !(isfinite(xc[i].x) && isfinite(xc[i].y) && isfinite(xc[i].z));
  assert_int_equal(nonfinite, 0);
  assert_int_equal(same_bits_or_both_nan(xg, xc, n), 0);
  selfcol_cl_destroy(&g);
  sc_dev_free(&dev);
  selfcol_cpu_destroy(&cpu);
  free(xc);
  free(xg);
  sc_world_free(&w);
}

/* The two device comparisons above run in both kernel forms. */
static void test_crushed_cloth_is_bounded(void **state) {
  sc_bound_off = 1; /* the passes' caps, part by part (test_selfcol_bound: the bounds') */
  selfcol_set_particle_pass(1); /* the particle query's cap too */
  for (int k = 0; k < 2; k++) {
    sc_kernel_form = sc_form(k);
    fprintf(stderr, "kernel form %s:\n", sc_form_name(k));
    crushed_cloth_is_bounded(state);
  }
  sc_kernel_form = 0;
  sc_bound_off = 0;
  selfcol_set_particle_pass(0);
}
static void test_nan_particle(void **state) {
  for (int k = 0; k < 2; k++) {
    sc_kernel_form = sc_form(k);
    fprintf(stderr, "kernel form %s:\n", sc_form_name(k));
    nan_particle(state);
  }
  sc_kernel_form = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crushed_cloth_is_bounded),
      cmocka_unit_test(test_flat_sheet_is_not_capped),
      cmocka_unit_test(test_warning_in_the_solver),
      cmocka_unit_test(test_dragged_not_capped),
      cmocka_unit_test(test_thickness_limits),
      cmocka_unit_test(test_nan_particle),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
