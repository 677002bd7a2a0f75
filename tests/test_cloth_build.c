/* Building the model: graph colouring (valid, colour counts), constraints
 * sorted by colour, masses, ropes, tethers and triangles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "core/colour.h"
#include "core/model.h"
#include "support.h"

/* Largest number of constraints at one particle: a lower bound on the
 * colours any valid colouring needs. */
static int max_degree(const dr_distance *c, int n, int np) {
  int *deg = calloc((size_t)np, sizeof *deg), mx = 0;
  for (int i = 0; i < n; i++) {
    if (++deg[c[i].a] > mx) mx = deg[c[i].a];
    if (++deg[c[i].b] > mx) mx = deg[c[i].b];
  }
  free(deg);
  return mx;
}

static int colour_list(dr_distance *c, int n, int np, int *n_colours) {
  int *col = malloc(sizeof *col * (size_t)(n + 1));
  int *off = malloc(sizeof *off * (DRAPE_MAX_COLOURS + 1));
  drape_err e = {0};
  assert_int_equal(dr_colour_greedy(c, n, np, col, n_colours, &e), 0);
  assert_int_equal(dr_colour_sort(c, n, col, *n_colours, off, NULL, &e), 0);
  /* offsets cover the list in order */
  assert_int_equal(off[0], 0);
  assert_int_equal(off[*n_colours], n);
  for (int k = 0; k < *n_colours; k++) assert_true(off[k + 1] > off[k]);
  int bad = -1, ok = dr_colour_valid(c, off, *n_colours, np, &bad);
  free(col);
  free(off);
  return ok;
}

static void test_grid_colouring(void **state) {
  (void)state;
  const int sizes[][2] = {{2, 2}, {3, 5}, {5, 5}, {8, 8}, {17, 31}, {64, 64}, {128, 37}, {256, 256}};
  const double comp[3] = {0, 1e-6, 1e-3};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int r = sizes[t][0], c = sizes[t][1], np = r * c;
    for (int order = 0; order < 2; order++) {
      int n = dr_grid_constraints(r, c, 0.01, 0, (dr_grid_order)order, comp, NULL, NULL);
      /* seed 002: structural, shear on both diagonals, bending two apart */
      assert_int_equal(n, r * (c - 1) + (r - 1) * c + 2 * (r - 1) * (c - 1) + r * (c - 2 > 0 ? c - 2 : 0) +
                              (r - 2 > 0 ? r - 2 : 0) * c);
      dr_distance *cons = malloc(sizeof *cons * (size_t)n);
      dr_grid_constraints(r, c, 0.01, 0, (dr_grid_order)order, comp, cons, NULL);
      int deg = max_degree(cons, n, np), k = 0;
      assert_true(colour_list(cons, n, np, &k));
      assert_true(k >= deg);       /* no colouring can do better */
      assert_true(k <= deg + 1);   /* the greedy bound */
      if (order == DRAPE_GRID_BY_FAMILY) assert_int_equal(k, deg); /* optimal */
      if (r >= 5 && c >= 5) assert_int_equal(deg, 12);
      print_message("grid %3d x %3d: %6d constraints, max degree %2d, %s order: %d colours\n", r, c,
                    n, deg, order ? "per-particle (seed 002)" : "by family", k);
      free(cons);
    }
  }
}

static void test_rope_colouring(void **state) {
  (void)state;
  const int segs[] = {1, 2, 3, 7, 80, 1000};
  for (size_t t = 0; t < sizeof segs / sizeof segs[0]; t++) {
    int n = segs[t], k = 0;
    dr_distance *cons = malloc(sizeof *cons * (size_t)n);
    assert_int_equal(dr_rope_constraints(n, 0.05, 0, 0, cons, NULL), n);
    assert_true(colour_list(cons, n, n + 1, &k));
    assert_int_equal(k, n == 1 ? 1 : 2);
    free(cons);
  }
}

/* The vector load patterns of project_distance (colour.c): every group
 * tagged with a pattern really has it, lies inside one colour and is
 * full; on a built grid nearly all groups get one (why: the colouring
 * order in model.c and the run-first sort in dr_colour_sort). */
static void check_patterns(const dr_model *m, double min_fast, const char *what) {
  const int ng = dr_colour_n_groups(m->colour_off, m->n_colours);
  unsigned char *pat = malloc((size_t)ng + 1);
  int *goff = malloc(sizeof *goff * ((size_t)m->n_colours + 1));
  long long cnt[4];
  dr_colour_lane_patterns(m->cons, m->colour_off, m->n_colours, pat, goff, cnt);
  assert_int_equal(goff[m->n_colours], ng);
  assert_int_equal(cnt[0] + cnt[1] + cnt[2] + cnt[3], ng);
  static const int pairs[8] = {0, 1, 4, 5, 8, 9, 12, 13};
  for (int k = 0; k < m->n_colours; k++)
    for (int g = goff[k]; g < goff[k + 1]; g++) {
      const int q = m->colour_off[k] + (g - goff[k]) * DR_PROJECT_LANES;
      if (pat[g] == DR_GROUP_GATHER) continue;
      assert_true(q + DR_PROJECT_LANES <= m->colour_off[k + 1]);
      const dr_distance *c = m->cons + q;
      for (int L = 0; L < DR_PROJECT_LANES; L++) {
        if (pat[g] == DR_GROUP_CONTIG) {
          assert_int_equal(c[L].a, c[0].a + L);
          assert_int_equal(c[L].b, c[0].b + L);
        } else if (pat[g] == DR_GROUP_EVENODD) {
          assert_int_equal(c[L].a, c[0].a + 2 * L);
          assert_int_equal(c[L].b, c[L].a + 1);
        } else {
          assert_int_equal(pat[g], DR_GROUP_PAIRS);
          assert_int_equal(c[L].a, c[0].a + pairs[L]);
          assert_int_equal(c[L].b, c[L].a + 2);
        }
      }
    }
  const double fast = ng ? (double)(cnt[1] + cnt[2] + cnt[3]) / ng : 1.0;
  print_message("%s: %d groups, gather %lld, contiguous %lld, even/odd %lld, pairs %lld "
                "(%.1f%% vector loads)\n", what, ng, cnt[0], cnt[1], cnt[2], cnt[3], 100 * fast);
  assert_true(fast >= min_fast);
  free(pat);
  free(goff);
}

static void test_lane_patterns(void **state) {
  (void)state;
  const int sizes[][2] = {{5, 7}, {33, 40}, {64, 64}, {256, 256}};
  const double min_fast[] = {0.0, 0.8, 0.85, 0.95};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    drape_scene s;
    drape_scene_init(&s);
    drape_cloth_def c = drape_cloth_def_default();
    c.rows = sizes[t][0];
    c.cols = sizes[t][1];
    drape_scene_add_cloth(&s, &c);
    drape_rope_def r = drape_rope_def_default();
    r.segments = 37;
    drape_scene_add_rope(&s, &r);
    dr_model m;
    drape_err e = {0};
    assert_int_equal(dr_model_build(&s, &m, &e), 0);
    /* the grid-aware colouring order keeps the optimum */
    assert_int_equal(m.n_colours, sizes[t][0] >= 5 && sizes[t][1] >= 5 ? 12 : m.n_colours);
    assert_true(dr_colour_valid(m.cons, m.colour_off, m.n_colours, m.n_particles, NULL));
    char what[64];
    snprintf(what, sizeof what, "grid %d x %d + rope", sizes[t][0], sizes[t][1]);
    check_patterns(&m, min_fast[t], what);
    dr_model_free(&m);
    drape_scene_free(&s);
  }
}

/* Moving the pattern runs ahead inside a colour keeps the bookkeeping:
 * new_index is a permutation that says where each constraint went. */
static void test_sort_new_index(void **state) {
  (void)state;
  const int r = 19, cc = 23, np = r * cc;
  const double comp[3] = {0, 1e-6, 1e-3};
  const int n = dr_grid_constraints(r, cc, 0.01, 0, DRAPE_GRID_BY_FAMILY, comp, NULL, NULL);
  dr_distance *orig = malloc(sizeof *orig * (size_t)n), *cons = malloc(sizeof *cons * (size_t)n);
  dr_grid_constraints(r, cc, 0.01, 0, DRAPE_GRID_BY_FAMILY, comp, orig, NULL);
  memcpy(cons, orig, sizeof *cons * (size_t)n);
  int *col = malloc(sizeof *col * (size_t)n), *ni = malloc(sizeof *ni * (size_t)n);
  int *seen = calloc((size_t)n, sizeof *seen), off[DRAPE_MAX_COLOURS + 1], k = 0;
  drape_err e = {0};
  assert_int_equal(dr_colour_greedy(cons, n, np, col, &k, &e), 0);
  assert_int_equal(dr_colour_sort(cons, n, col, k, off, ni, &e), 0);
  for (int i = 0; i < n; i++) {
    assert_true(ni[i] >= 0 && ni[i] < n);
    assert_int_equal(seen[ni[i]]++, 0);
    assert_int_equal(cons[ni[i]].a, orig[i].a);
    assert_int_equal(cons[ni[i]].b, orig[i].b);
    assert_true(ni[i] >= off[col[i]] && ni[i] < off[col[i] + 1]);
  }
  free(orig); free(cons); free(col); free(ni); free(seen);
}

/* The checker itself must catch a colour that shares a particle. */
static void test_colour_check_rejects_conflict(void **state) {
  (void)state;
  dr_distance c[3] = {{0, 1, 1, 0}, {1, 2, 1, 0}, {3, 4, 1, 0}};
  int off[2] = {0, 3}, bad = -1;
  assert_false(dr_colour_valid(c, off, 1, 5, &bad));
  assert_int_equal(bad, 0);
  int off2[3] = {0, 1, 3};
  assert_true(dr_colour_valid(c, off2, 2, 5, NULL));
}

/* Scene with two cloths and a rope: colours, masses, pins, tethers, tris. */
static void test_model_build(void **state) {
  (void)state;
  drape_scene s;
  drape_scene_init(&s);
  drape_cloth_def c = drape_cloth_def_default();
  c.rows = 20; c.cols = 30; c.spacing = 0.05; c.mass_per_area = 0.3;
  c.n_pins = 2;
  c.pins = malloc(2 * sizeof *c.pins);
  c.pins[0][0] = 0; c.pins[0][1] = 0; c.pins[1][0] = 0; c.pins[1][1] = 29;
  drape_scene_add_cloth(&s, &c);
  drape_cloth_def c2 = drape_cloth_def_default();
  c2.rows = 7; c2.cols = 9; c2.tear_ratio = 1.5;
  drape_scene_add_cloth(&s, &c2);
  drape_rope_def r = drape_rope_def_default();
  r.segments = 40; r.length = 2.0; r.mass_per_length = 0.5; r.pin_start = 1; r.pin_end = 1;
  drape_scene_add_rope(&s, &r);

  dr_model m;
  drape_err e = {0};
  assert_int_equal(dr_model_build(&s, &m, &e), 0);
  assert_int_equal(m.n_particles, 600 + 63 + 41);
  assert_int_equal(m.n_colours, 12);
  int bad = -1;
  assert_true(dr_colour_valid(m.cons, m.colour_off, m.n_colours, m.n_particles, &bad));
  /* masses: each cloth's total = mass_per_area * area; rope = mu * length */
  double mc = 0, mr = 0;
  for (int i = 0; i < 600; i++) mc += m.mass[i];
  for (int i = 663; i < 704; i++) mr += m.mass[i];
  assert_near(mc, 0.3 * (19 * 0.05) * (29 * 0.05), 1e-6);
  assert_near(mr, 0.5 * 2.0, 1e-6);
  assert_near(m.mass[663], 0.5 * m.mass[664], 1e-9); /* rope end: half */
  assert_near(m.mass[0], 0.25 * m.mass[31], 1e-9);   /* cloth corner: a quarter */
  /* pins */
  assert_true(m.x0[0].w == 0 && m.x0[29].w == 0 && m.x0[663].w == 0 && m.x0[703].w == 0);
  assert_true(m.x0[1].w > 0);
  /* tethers: 2 slots, nearest pin first, rest = distance in the flat grid */
  assert_int_equal(m.tether_slots, 2);
  int i = 5 * 30 + 3; /* row 5, col 3 */
  assert_int_equal(m.tether_pin[2 * i], 0);
  assert_int_equal(m.tether_pin[2 * i + 1], 29);
  assert_near(m.tether_rest[2 * i], 0.05 * hypot(5, 3), 1e-6);
  assert_near(m.tether_rest[2 * i + 1], 0.05 * hypot(5, 26), 1e-6);
  assert_int_equal(m.tether_pin[2 * 610], -1); /* second cloth has no pins */
  assert_int_equal(m.n_tethers, 2 * 598);
  /* triangles and their edges: the edges are constraints of that triangle */
  assert_int_equal(m.n_tris, 2 * 19 * 29 + 2 * 6 * 8);
  for (int t = 0; t < m.n_tris; t++)
    for (int q = 0; q < 3; q++) {
      const dr_distance *d = &m.cons[m.tri_edge[3 * t + q]];
      int hits = 0;
      for (int v = 0; v < 3; v++) hits += (int)m.tris[3 * t + v] == d->a || (int)m.tris[3 * t + v] == d->b;
      assert_int_equal(hits, 2);
    }
  /* vertex->triangle lists: interior particle has 6 triangles */
  assert_int_equal(m.vt_off[31 + 1] - m.vt_off[31], 6);
  /* rope lines */
  assert_int_equal(m.n_lines, 40);
  assert_int_equal(m.lines[0], 663);
  assert_int_equal(m.lines[79], 703);
  dr_model_free(&m);
  drape_scene_free(&s);
}

static void test_bad_definitions(void **state) {
  (void)state;
  drape_scene s;
  drape_scene_init(&s);
  drape_cloth_def c = drape_cloth_def_default();
  c.spacing = -0.1;
  drape_scene_add_cloth(&s, &c);
  dr_model m;
  drape_err e = {0};
  assert_int_equal(dr_model_build(&s, &m, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[0].grid.spacing = -0.1"));
  s.cloth[0].spacing = 0.02;
  s.cloth[0].n_pins = 1;
  s.cloth[0].pins = malloc(sizeof *s.cloth[0].pins);
  s.cloth[0].pins[0][0] = 32; s.cloth[0].pins[0][1] = 0;
  assert_int_equal(dr_model_build(&s, &m, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[0].pins[0] = [32, 0]: outside the 32x32 grid"));
  s.cloth[0].pins[0][0] = 31;
  s.cloth[0].mass_per_area = NAN;
  assert_int_equal(dr_model_build(&s, &m, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[0].mass_per_area"));
  drape_scene_free(&s);
}

/* The edge units' colouring is valid: no particle twice in one colour,
 * and the colours cover every unit. */
static void assert_units_coloured(const dr_model *m) {
  int *seen = calloc((size_t)m->n_particles, sizeof *seen);
  for (int k = 0; k < m->n_bend_colours; k++)
    for (int u = m->bend_colour_off[k]; u < m->bend_colour_off[k + 1]; u++) {
      const dr_dihedral *d = &m->bend[u];
      const int p[4] = {d->a, d->b, d->c, d->d};
      for (int q = 0; q < (d->c >= 0 ? 4 : 2); q++) {
        assert_int_not_equal(seen[p[q]], k + 1);
        seen[p[q]] = k + 1;
      }
    }
  assert_int_equal(m->bend_colour_off[m->n_bend_colours], m->n_bend);
  free(seen);
}

/* A mesh cloth's edge units (kernels/dihedral.cl, model.c): every edge
 * once, with its hinge when it has two triangles; the links in the
 * trailing bucket of the distance constraints in the units' order; a
 * valid colouring with as few colours as the busiest particle allows (the
 * tabu search reaches that bound, 16, where greedy gave 18); the same
 * model on a second build. */
static void test_mesh_units(void **state) {
  (void)state;
  char path[2048];
  snprintf(path, sizeof path, "%s/scenes/tablecloth_mesh.json", drape_test_source_dir());
  drape_scene s;
  drape_err e = {0};
  if (drape_scene_load(path, &s, &e)) fail_msg("%s", e.msg);
  /* its sheet with the per-constraint keys: edge units (a material cloth
   * has membranes and hinges instead, test_material) */
  s.cloth[0].material.set = 0;
  s.cloth[0].mass_per_area = 0.2;
  s.cloth[0].compliance_stretch = 0, s.cloth[0].compliance_bend = 1.5e3;
  dr_model m, m2;
  assert_int_equal(dr_model_build(&s, &m, &e), 0);
  assert_int_equal(dr_model_build(&s, &m2, &e), 0);
  const int off = m.colour_off[m.n_colours], np = m.n_particles;
  /* the sheet has no other constraints: every link is an edge of a unit */
  assert_int_equal(off + m.n_bend, m.n_cons);
  int hinges = 0, bound = 0;
  int *deg = calloc((size_t)np, sizeof *deg);
  for (int k = 0; k < m.n_bend; k++) {
    const dr_dihedral *d = &m.bend[k];
    assert_int_equal(d->edge, off + k);
    const dr_distance *c = &m.cons[d->edge];
    assert_true((c->a == d->a && c->b == d->b) || (c->a == d->b && c->b == d->a));
    hinges += d->c >= 0;
    const int p[4] = {d->a, d->b, d->c, d->d};
    for (int q = 0; q < (d->c >= 0 ? 4 : 2); q++)
      if (++deg[p[q]] > bound) bound = deg[p[q]];
  }
  assert_int_equal(hinges, m.n_hinges);
  assert_true(hinges > m.n_bend / 2 && hinges < m.n_bend);
  /* the edges: V + F - 1 for a disk (Euler), so with F triangles */
  assert_int_equal(m.n_bend, np + m.n_tris - 1);
  print_message("  %d units (%d hinges), %d colours, bound %d\n", m.n_bend, hinges, m.n_bend_colours,
                bound);
  assert_int_equal(m.n_bend_colours, bound);
  assert_units_coloured(&m);
  assert_int_equal(m.bend_colour_off[m.n_bend_colours], m.n_bend);
  /* reproducible: the search's generator has a fixed seed */
  assert_int_equal(m2.n_bend, m.n_bend);
  assert_memory_equal(m2.bend, m.bend, sizeof *m.bend * (size_t)m.n_bend);
  assert_memory_equal(m2.cons, m.cons, sizeof *m.cons * (size_t)m.n_cons);
  free(deg);
  dr_model_free(&m), dr_model_free(&m2);
  drape_scene_free(&s);
}

/* A disk filled as a fan of n triangles round one centre vertex, radius
 * 0.5 m: the centre is in n edge units. */
static void fan_scene(drape_scene *s, int n) {
  drape_scene_init(s);
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "fan");
  c.has_mesh = 1;
  c.mesh.n_vertices = n + 1;
  c.mesh.vertices = calloc(3 * (size_t)(n + 1), sizeof(double));
  c.mesh.n_tris = n;
  c.mesh.tris = malloc(sizeof(int) * 3 * (size_t)n);
  for (int k = 0; k < n; k++) {
    const double a = 2 * 3.14159265358979323846 * k / n;
    c.mesh.vertices[3 * (k + 1)] = 0.5 * cos(a), c.mesh.vertices[3 * (k + 1) + 2] = 0.5 * sin(a);
    c.mesh.tris[3 * k] = 0, c.mesh.tris[3 * k + 1] = 1 + k, c.mesh.tris[3 * k + 2] = 1 + (k + 1) % n;
  }
  drape_scene_add_cloth(s, &c);
}

/* A vertex of high valence (a circle filled as a triangle fan, as modelling
 * tools do) is no reason to refuse a mesh: 100 triangles round the centre
 * take 100 unit colours, valid; past 128 edges at a vertex the refusal
 * names the limit. */
static void test_mesh_fan(void **state) {
  (void)state;
  drape_scene s;
  fan_scene(&s, 100);
  dr_model m;
  drape_err e = {0};
  if (dr_model_build(&s, &m, &e)) fail_msg("%s", e.msg);
  assert_int_equal(m.n_bend, 200); /* 100 spokes, 100 rim edges */
  assert_int_equal(m.n_hinges, 100);
  assert_int_equal(m.n_bend_colours, 100);
  assert_units_coloured(&m);
  dr_model_free(&m);
  drape_scene_free(&s);
  /* the limit the docs and the message give is the one that holds: 128
   * spokes build, 129 do not, whatever the colouring could have fitted */
  fan_scene(&s, 128);
  if (dr_model_build(&s, &m, &e)) fail_msg("%s", e.msg);
  assert_units_coloured(&m);
  dr_model_free(&m);
  drape_scene_free(&s);
  const int over[2] = {129, 300};
  for (int k = 0; k < 2; k++) {
    fan_scene(&s, over[k]);
    assert_int_equal(dr_model_build(&s, &m, &e), DRAPE_EINVAL);
    print_message("  %d-triangle fan: %s\n", over[k], e.msg);
    char want[96];
    snprintf(want, sizeof want, "vertex 0 has %d edges; allowed: up to 128 edges at a vertex", over[k]);
    assert_non_null(strstr(e.msg, "cloth \"fan\""));
    assert_non_null(strstr(e.msg, want));
    drape_scene_free(&s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_grid_colouring),
      cmocka_unit_test(test_rope_colouring),
      cmocka_unit_test(test_lane_patterns),
      cmocka_unit_test(test_sort_new_index),
      cmocka_unit_test(test_colour_check_rejects_conflict),
      cmocka_unit_test(test_model_build),
      cmocka_unit_test(test_bad_definitions),
      cmocka_unit_test(test_mesh_units),
      cmocka_unit_test(test_mesh_fan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
