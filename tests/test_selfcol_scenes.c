/* Self-collision in the solver (issue 4): whole scenes on both backends.
 *  - a strip folded onto itself by a pin path (a smaller strip_fold.json,
 *    built here so the test runs in seconds): after it settles no vertex is
 *    closer than 0.9 thickness to a triangle it does not belong to; with
 *    self-collision off the layers do come closer (they pass through);
 *  - two sheets (mesh spacing 3 x thickness), the upper one dropped onto the
 *    lower over a sphere: at every frame no vertex of one sheet is closer
 *    than 0.9 thickness to a triangle of the other, and no edge of one
 *    pierces a triangle of the other;
 *  - OpenCL and the CPU reference agree on the fold scene (tolerance below),
 *    and two OpenCL runs agree to the bit, one with each form of the
 *    hashes' prefix scan;
 *  - a rope dropped across a sheet lying on the floor stays above it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/selfcol_cl.h"
#include "drape/cloth.h"
#include "drape/scene.h"
#include "support.h"

static const double T = 0.01; /* thickness of every cloth here, m */

/* The kernel form make asks for on OpenCL (0: auto). */
static int g_form = 0;
static drape_sim *make(const drape_scene *s, drape_backend be) {
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = be;
  o.kernel_form = (drape_kernel_form)g_form;
  drape_sim *sim = NULL;
  drape_err e = {0};
  if (drape_sim_create(s, &o, &sim, &e)) {
    print_error("drape_sim_create: %s\n", e.msg);
    fail();
  }
  return sim;
}

static void step(drape_sim *sim, int frames) {
  drape_err e = {0};
  for (int i = 0; i < frames; i++)
    if (drape_sim_step(sim, &e)) {
      print_error("drape_sim_step: %s\n", e.msg);
      fail();
    }
}

static void read_x(drape_sim *sim, float *x) {
  drape_err e = {0};
  if (drape_sim_read_positions(sim, x, &e)) {
    print_error("read positions: %s\n", e.msg);
    fail();
  }
}

/* Distance from q to triangle (a, b, c), double precision (Ericson's
 * Voronoi-region closest point, written out again here so the check does
 * not share code with the solver). */
static double point_tri(const double q[3], const double a[3], const double b[3],
                        const double c[3]) {
  double ab[3], ac[3], aq[3], bq[3], cq[3], p[3];
  for (int k = 0; k < 3; k++) {
    ab[k] = b[k] - a[k]; ac[k] = c[k] - a[k]; aq[k] = q[k] - a[k];
    bq[k] = q[k] - b[k]; cq[k] = q[k] - c[k];
  }
#define DOT(u, v) (u[0] * v[0] + u[1] * v[1] + u[2] * v[2])
  double d1 = DOT(ab, aq), d2 = DOT(ac, aq), d3 = DOT(ab, bq), d4 = DOT(ac, bq);
  double d5 = DOT(ab, cq), d6 = DOT(ac, cq);
#undef DOT
  double u, v, w;
  double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (d1 <= 0 && d2 <= 0) { u = 1; v = 0; w = 0; }
  else if (d3 >= 0 && d4 <= d3) { u = 0; v = 1; w = 0; }
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) { v = d1 / (d1 - d3); u = 1 - v; w = 0; }
  else if (d6 >= 0 && d5 <= d6) { u = 0; v = 0; w = 1; }
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) { w = d2 / (d2 - d6); u = 1 - w; v = 0; }
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    w = (d4 - d3) / ((d4 - d3) + (d5 - d6)); u = 0; v = 1 - w;
  } else {
    double den = va + vb + vc;
    v = vb / den; w = vc / den; u = 1 - v - w;
  }
  double dd = 0;
  for (int k = 0; k < 3; k++) {
    p[k] = u * a[k] + v * b[k] + w * c[k];
    dd += (q[k] - p[k]) * (q[k] - p[k]);
  }
  return sqrt(dd);
}

/* Positions in double and triangle boxes, once per check. */
typedef struct geo {
  int n, nt;
  double (*p)[3];
  double (*lo)[3], (*hi)[3];
} geo;

static void geo_fill(geo *g, const float *x, int n, const uint32_t *tris, int nt) {
  g->n = n;
  g->nt = nt;
  g->p = realloc(g->p, sizeof *g->p * (size_t)n);
  g->lo = realloc(g->lo, sizeof *g->lo * (size_t)nt);
  g->hi = realloc(g->hi, sizeof *g->hi * (size_t)nt);
  assert_non_null(g->p);
  assert_non_null(g->lo);
  assert_non_null(g->hi);
  for (int i = 0; i < n; i++)
    for (int q = 0; q < 3; q++) g->p[i][q] = x[4 * i + q];
  for (int k = 0; k < nt; k++)
    for (int q = 0; q < 3; q++) {
      double a = g->p[tris[3 * k]][q], b = g->p[tris[3 * k + 1]][q], c = g->p[tris[3 * k + 2]][q];
      g->lo[k][q] = fmin(fmin(a, b), c);
      g->hi[k][q] = fmax(fmax(a, b), c);
    }
}

static void geo_free(geo *g) {
  free(g->p);
  free(g->lo);
  free(g->hi);
}

/* Smallest distance from a vertex to a triangle it does not belong to
 * (obj_of: only pairs of different objects; NULL: every pair). Pairs whose
 * box test shows they are farther than `limit` are skipped. */
static double min_vertex_triangle(const geo *g, const uint32_t *tris, const int *obj_of,
                                  double limit) {
  double best = INFINITY;
  for (int k = 0; k < g->nt; k++) {
    const uint32_t *t = &tris[3 * k];
    if (t[0] == t[1]) continue;
    for (int i = 0; i < g->n; i++) {
      const double *q = g->p[i];
      if (q[0] < g->lo[k][0] - limit || q[0] > g->hi[k][0] + limit || q[1] < g->lo[k][1] - limit ||
          q[1] > g->hi[k][1] + limit || q[2] < g->lo[k][2] - limit || q[2] > g->hi[k][2] + limit)
        continue;
      if ((uint32_t)i == t[0] || (uint32_t)i == t[1] || (uint32_t)i == t[2]) continue;
      if (obj_of && obj_of[i] == obj_of[t[0]]) continue;
      double d = point_tri(q, g->p[t[0]], g->p[t[1]], g->p[t[2]]);
      if (d < best) best = d;
    }
  }
  return best;
}

/* Does segment p0-p1 cross triangle (a, b, c)? (Möller–Trumbore, double) */
static int seg_tri(const double p0[3], const double p1[3], const double a[3], const double b[3],
                   const double c[3]) {
  double d[3], e1[3], e2[3], s[3], h[3], qv[3];
  for (int k = 0; k < 3; k++) {
    d[k] = p1[k] - p0[k]; e1[k] = b[k] - a[k]; e2[k] = c[k] - a[k]; s[k] = p0[k] - a[k];
  }
  h[0] = d[1] * e2[2] - d[2] * e2[1]; h[1] = d[2] * e2[0] - d[0] * e2[2];
  h[2] = d[0] * e2[1] - d[1] * e2[0];
  double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
  if (fabs(det) < 1e-18) return 0;
  double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
  if (u < 0 || u > 1) return 0;
  qv[0] = s[1] * e1[2] - s[2] * e1[1]; qv[1] = s[2] * e1[0] - s[0] * e1[2];
  qv[2] = s[0] * e1[1] - s[1] * e1[0];
  double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) / det;
  if (v < 0 || u + v > 1) return 0;
  double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
  return t >= 0 && t <= 1;
}

/* Edges of one object's triangles that pierce a triangle of another. */
static int count_piercings(const geo *g, const uint32_t *tris, const int *obj_of) {
  int hits = 0;
  for (int k = 0; k < g->nt; k++) {
    const uint32_t *t = &tris[3 * k];
    for (int j = 0; j < g->nt; j++) {
      if (obj_of[tris[3 * j]] == obj_of[t[0]]) continue;
      if (g->hi[j][0] < g->lo[k][0] || g->lo[j][0] > g->hi[k][0] || g->hi[j][1] < g->lo[k][1] ||
          g->lo[j][1] > g->hi[k][1] || g->hi[j][2] < g->lo[k][2] || g->lo[j][2] > g->hi[k][2])
        continue;
      const uint32_t *u = &tris[3 * j];
      for (int m = 0; m < 3; m++)
        hits += seg_tri(g->p[u[m]], g->p[u[(m + 1) % 3]], g->p[t[0]], g->p[t[1]], g->p[t[2]]);
    }
  }
  return hits;
}

/* ---- the fold ---- */
static const char *FOLD =
    "{ \"gravity\": [0, -9.81, 0], \"dt\": 0.016666, \"substeps\": 20,"
    "  \"cloth\": [{ \"name\": \"strip\","
    "    \"grid\": { \"cols\": 6, \"rows\": 44, \"spacing\": 0.03,"
    "              \"origin\": [-0.075, 0.011, -0.6], \"plane\": \"xz\" },"
    "    \"mass_per_area\": 0.2, \"damping\": 0.5, \"thickness\": 0.01,"
    "    \"compliance\": { \"stretch\": 0, \"shear\": 1e-6, \"bend\": 1e-3 },"
    "    \"self_collision\": %s, \"self_friction\": 0.2, \"self_collision_mode\": \"%s\","
    "    \"pin_paths\": ["
    "      { \"pin\": [43, 0], \"keys\": [[0.0, -0.075, 0.011, 0.69], [0.5, -0.075, 0.45, 0.35],"
    "                                   [1.0, -0.075, 0.3, -0.1], [1.5, -0.075, 0.06, -0.45]] },"
    "      { \"pin\": [43, 5], \"keys\": [[0.0, 0.075, 0.011, 0.69], [0.5, 0.075, 0.45, 0.35],"
    "                                   [1.0, 0.075, 0.3, -0.1], [1.5, 0.075, 0.06, -0.45]] }] }],"
    "  \"floor\": { \"height\": 0, \"friction\": 0.5 } }";

/* self_collision: 0 off, 1 vertex-triangle (default mode), 2 particle. */
static void fold_scene(drape_scene *s, int self_collision) {
  char text[4096];
  snprintf(text, sizeof text, FOLD, self_collision ? "true" : "false",
           self_collision == 2 ? "particle" : "vertex-triangle");
  drape_err e = {0};
  if (drape_scene_parse(text, "fold", s, &e)) {
    print_error("%s\n", e.msg);
    fail();
  }
}

enum { FOLD_FRAMES = 140 };

static double run_fold(int self_collision, drape_backend be, float *x_out) {
  drape_scene s;
  fold_scene(&s, self_collision);
  drape_sim *sim = make(&s, be);
  drape_scene_free(&s);
  const drape_mesh *m = drape_sim_mesh(sim);
  step(sim, FOLD_FRAMES);
  float *x = malloc(sizeof(float) * 4 * (size_t)m->n_particles);
  read_x(sim, x);
  geo g = {0};
  geo_fill(&g, x, m->n_particles, m->tris, m->n_tris);
  double d = min_vertex_triangle(&g, m->tris, NULL, T);
  geo_free(&g);
  if (x_out) memcpy(x_out, x, sizeof(float) * 4 * (size_t)m->n_particles);
  /* the strip is folded: its far end lies over its near half */
  double zfar = x[4 * (43 * 6 + 2) + 2], znear = x[4 * 2 + 2];
  assert_true(zfar < znear + 0.8);
  free(x);
  drape_sim_destroy(sim);
  return d;
}

static void test_fold_keeps_thickness(void **state) {
  (void)state;
  double on = run_fold(1, DRAPE_BACKEND_CPU, NULL);
  double off = run_fold(0, DRAPE_BACKEND_CPU, NULL);
  double part = run_fold(2, DRAPE_BACKEND_CPU, NULL);
  fprintf(stderr,
          "fold: closest vertex-triangle %.3f t with self-collision, %.3f t without, %.3f t in "
          "particle mode\n",
          on / T, off / T, part / T);
  assert_true(on >= 0.9 * T);
  assert_true(off < 0.5 * T); /* the feature matters: without it the layers meet */
  /* particle mode keeps particles apart only: with spacing 3 t the vertices
   * of one layer sink between those of the other */
  assert_true(part < 0.9 * T);
}

/* Also: OpenCL runs in lockstep give the same bits in both kernel forms
 * (solver and self-collision stage alike) and with either form of the
 * hashes' prefix scan: b the vector form (its chunked scan), b2 the GPU
 * form (its work-group scan), b3 the vector form with the work-group scan
 * and b4 the GPU form with the chunked scan (selfcol_cl_set_forms). */
static void test_fold_cl_matches_cpu(void **state) {
  (void)state;
  drape_scene s;
  fold_scene(&s, 1);
  drape_sim *a = make(&s, DRAPE_BACKEND_CPU);
  g_form = DRAPE_KERNEL_FORM_CPU;
  drape_sim *b = make(&s, DRAPE_BACKEND_CL);
  selfcol_cl_set_forms(0);
  drape_sim *b3 = make(&s, DRAPE_BACKEND_CL);
  g_form = DRAPE_KERNEL_FORM_GPU;
  selfcol_cl_set_forms(-1);
  drape_sim *b2 = make(&s, DRAPE_BACKEND_CL);
  selfcol_cl_set_forms(1);
  drape_sim *b4 = make(&s, DRAPE_BACKEND_CL);
  selfcol_cl_set_forms(-1);
  g_form = 0;
  drape_scene_free(&s);
  assert_string_equal(drape_sim_kernel_form(b), "vector");
  assert_string_equal(drape_sim_kernel_form(b2), "gpu");
  int n = drape_sim_mesh(a)->n_particles;
  size_t bytes = sizeof(float) * 4 * (size_t)n;
  float *xa = malloc(bytes), *xb = malloc(bytes), *xb2 = malloc(bytes), *xo = malloc(bytes);
  double worst = 0;
  for (int f = 0; f < FOLD_FRAMES; f += 10) {
    step(a, 10);
    step(b, 10);
    step(b2, 10);
    step(b3, 10);
    step(b4, 10);
    read_x(a, xa);
    read_x(b, xb);
    read_x(b2, xb2);
    assert_memory_equal(xb, xb2, bytes);
    read_x(b3, xo);
    assert_memory_equal(xb, xo, bytes);
    read_x(b4, xo);
    assert_memory_equal(xb, xo, bytes);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < 3; k++) worst = fmax(worst, fabs((double)xa[4 * i + k] - xb[4 * i + k]));
  }
  geo g = {0};
  geo_fill(&g, xb, n, drape_sim_mesh(b)->tris, drape_sim_mesh(b)->n_tris);
  double d = min_vertex_triangle(&g, drape_sim_mesh(b)->tris, NULL, T);
  geo_free(&g);
  fprintf(stderr, "fold: OpenCL vs CPU largest difference %.3g m; OpenCL closest %.3f t\n", worst,
          d / T);
  assert_true(d >= 0.9 * T);
  assert_true(worst == 0.0); /* the same bits: same expressions, same order */
  free(xa);
  free(xb);
  free(xb2);
  free(xo);
  drape_sim_destroy(a);
  drape_sim_destroy(b);
  drape_sim_destroy(b2);
  drape_sim_destroy(b3);
  drape_sim_destroy(b4);
}

/* ---- two sheets over a sphere ---- */
static void two_sheets(drape_scene *s, int N) {
  drape_scene_init(s);
  for (int k = 0; k < 2; k++) {
    drape_cloth_def c = drape_cloth_def_default();
    snprintf(c.name, sizeof c.name, k ? "upper" : "lower");
    c.rows = c.cols = N;
    c.spacing = 3 * T;
    c.thickness = T;
    c.self_collision = 1;
    c.damping = 0.1;
    double half = 0.5 * c.spacing * (N - 1);
    c.origin[0] = -half + (k ? 0.5 * c.spacing : 0);
    c.origin[1] = k ? 0.62 : 0.45;
    c.origin[2] = -half + (k ? 0.37 * c.spacing : 0);
    drape_scene_add_cloth(s, &c);
  }
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[1] = 0.25;
  sp.radius = 0.15;
  drape_scene_add_sphere(s, &sp);
  s->has_floor = 1;
}

static void test_two_sheets(void **state) {
  (void)state;
  const drape_backend bes[2] = {DRAPE_BACKEND_CPU, DRAPE_BACKEND_CL};
  for (int b = 0; b < 2; b++) {
    drape_scene s;
    two_sheets(&s, 14);
    drape_sim *sim = make(&s, bes[b]);
    drape_scene_free(&s);
    const drape_mesh *m = drape_sim_mesh(sim);
    int n = m->n_particles;
    int *obj = malloc(sizeof(int) * (size_t)n);
    for (int o = 0; o < m->n_objects; o++)
      for (int i = 0; i < m->objects[o].n_particles; i++) obj[m->objects[o].first_particle + i] = o;
    float *x = malloc(sizeof(float) * 4 * (size_t)n);
    geo g = {0};
    double closest = INFINITY, lowest_upper = INFINITY;
    int pierced = 0;
    for (int f = 0; f < 80; f++) {
      step(sim, 1);
      read_x(sim, x);
      geo_fill(&g, x, n, m->tris, m->n_tris);
      double cf = min_vertex_triangle(&g, m->tris, obj, T);
      closest = fmin(closest, cf);
      pierced += count_piercings(&g, m->tris, obj);
    }
    /* the upper sheet came down onto the lower one over the sphere */
    const drape_object_info *up = &m->objects[1];
    int centre = up->first_particle + (up->rows / 2) * up->cols + up->cols / 2;
    lowest_upper = x[4 * centre + 1];
    fprintf(stderr, "two sheets (%s): closest %.3f t, piercing edges %d, upper centre y %.3f m\n",
            b ? "OpenCL" : "CPU", closest / T, pierced, lowest_upper);
    assert_true(closest < 1.5 * T); /* the sheets did meet */
    assert_true(closest >= 0.9 * T);
    assert_int_equal(pierced, 0);
    free(x);
    free(obj);
    geo_free(&g);
    drape_sim_destroy(sim);
  }
}

/* ---- a rope on a sheet ---- */
static void rope_on_sheet(drape_scene *s, int self_collision) {
  drape_scene_init(s);
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "sheet");
  c.rows = c.cols = 12;
  c.spacing = 3 * T;
  c.thickness = T;
  c.self_collision = self_collision;
  c.origin[0] = c.origin[2] = -0.5 * c.spacing * 11;
  c.origin[1] = T;
  drape_scene_add_cloth(s, &c);
  drape_rope_def r = drape_rope_def_default();
  snprintf(r.name, sizeof r.name, "cord");
  r.segments = 20;
  r.start[0] = -0.14; r.start[1] = 0.08; r.start[2] = 0.004;
  r.end[0] = 0.14; r.end[1] = 0.08; r.end[2] = -0.006;
  r.length = 0.28;
  r.thickness = T;
  r.pin_start = r.pin_end = 0;
  drape_scene_add_rope(s, &r);
  s->has_floor = 1;
}

/* Cloth–rope: a rope dropped across a sheet lying on the floor stays on
 * top of it (nodes at least 0.9 thickness from every cloth triangle, at
 * every frame); without self-collision it falls through to the floor. */
static void test_rope_on_sheet(void **state) {
  (void)state;
  for (int on = 1; on >= 0; on--) {
    drape_scene s;
    rope_on_sheet(&s, on);
    drape_sim *sim = make(&s, DRAPE_BACKEND_CPU);
    drape_scene_free(&s);
    const drape_mesh *m = drape_sim_mesh(sim);
    int n = m->n_particles;
    int *obj = malloc(sizeof(int) * (size_t)n);
    for (int o = 0; o < m->n_objects; o++)
      for (int i = 0; i < m->objects[o].n_particles; i++) obj[m->objects[o].first_particle + i] = o;
    float *x = malloc(sizeof(float) * 4 * (size_t)n);
    geo g = {0};
    double closest = INFINITY;
    for (int f = 0; f < 40; f++) {
      step(sim, 1);
      read_x(sim, x);
      geo_fill(&g, x, n, m->tris, m->n_tris);
      closest = fmin(closest, min_vertex_triangle(&g, m->tris, obj, T));
    }
    const drape_object_info *rope = &m->objects[1];
    double ymid = x[4 * (rope->first_particle + rope->n_particles / 2) + 1];
    fprintf(stderr, "rope on sheet (self-collision %s): closest %.3f t, rope middle y %.4f m\n",
            on ? "on" : "off", closest / T, ymid);
    if (on) {
      assert_true(closest >= 0.9 * T);
      assert_true(ymid > 1.9 * T); /* resting on the sheet (y = T) */
    } else {
      assert_true(ymid < 1.1 * T); /* on the floor, through the sheet */
    }
    free(x);
    free(obj);
    geo_free(&g);
    drape_sim_destroy(sim);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_keeps_thickness),
      cmocka_unit_test(test_fold_cl_matches_cpu),
      cmocka_unit_test(test_two_sheets),
      cmocka_unit_test(test_rope_on_sheet),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
