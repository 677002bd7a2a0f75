/* Mesh cloths, what a user sees of their vertices (issue 16; docs/scenes.md
 * "Mesh cloth", docs/solver.md "Mesh cloths"):
 *  - OBJ frames keep the loader's vertex numbering, the file's triangles
 *    and its texture coordinates: one `vt` per vertex equal to the file's
 *    (after welding), faces `f a/a b/b c/c`, objects without UVs (grids)
 *    unchanged, from both writers (drape_world_write_obj and
 *    drape_sim_write_obj), with several objects before and after. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/drape.h"
#include "drape/world.h"
#include "support.h"

/* One `o` of an OBJ file as written by drape: its v, vt and f lines. */
typedef struct {
  char name[64];
  int nv, nvt, nf;
  float *v, *vt;
  int *fv, *ft; /* 3 per face, 0-based into this object's v / vt; ft -1: none */
} obj_object;

typedef struct {
  int n;
  obj_object o[8];
} obj_file;

static void obj_free(obj_file *f) {
  for (int i = 0; i < f->n; i++)
    free(f->o[i].v), free(f->o[i].vt), free(f->o[i].fv), free(f->o[i].ft);
  memset(f, 0, sizeof *f);
}

/* Reads PATH by the OBJ rules: indices are global, 1-based, v and vt
 * counted apart. */
static void obj_read(const char *path, obj_file *out) {
  memset(out, 0, sizeof *out);
  FILE *fp = fopen(path, "r");
  assert_non_null(fp);
  char line[512];
  int gv = 0, gvt = 0, base_v = 0, base_vt = 0;
  obj_object *o = NULL;
  while (fgets(line, sizeof line, fp)) {
    if (line[0] == 'o' && line[1] == ' ') {
      assert_true(out->n < 8);
      o = &out->o[out->n++];
      sscanf(line + 2, "%63s", o->name);
      base_v = gv, base_vt = gvt;
    } else if (line[0] == 'v' && line[1] == ' ') {
      assert_non_null(o);
      o->v = realloc(o->v, sizeof(float) * 3 * (size_t)(o->nv + 1));
      assert_int_equal(sscanf(line + 2, "%f %f %f", &o->v[3 * o->nv], &o->v[3 * o->nv + 1],
                              &o->v[3 * o->nv + 2]), 3);
      o->nv++, gv++;
    } else if (line[0] == 'v' && line[1] == 't') {
      assert_non_null(o);
      o->vt = realloc(o->vt, sizeof(float) * 2 * (size_t)(o->nvt + 1));
      assert_int_equal(sscanf(line + 3, "%f %f", &o->vt[2 * o->nvt], &o->vt[2 * o->nvt + 1]), 2);
      o->nvt++, gvt++;
    } else if (line[0] == 'f' && line[1] == ' ') {
      assert_non_null(o);
      o->fv = realloc(o->fv, sizeof(int) * 3 * (size_t)(o->nf + 1));
      o->ft = realloc(o->ft, sizeof(int) * 3 * (size_t)(o->nf + 1));
      char *s = line + 2;
      for (int q = 0; q < 3; q++) {
        char *end;
        const long a = strtol(s, &end, 10);
        assert_true(end != s);
        long t = 0;
        if (*end == '/') t = strtol(end + 1, &end, 10);
        o->fv[3 * o->nf + q] = (int)a - 1 - base_v;
        o->ft[3 * o->nf + q] = t ? (int)t - 1 - base_vt : -1;
        s = end;
      }
      o->nf++;
    }
  }
  fclose(fp);
}

/* The `vt` lines of a mesh file as written by scripts/make_meshes.py (one
 * per `v`, in the order the triangles first use them, so the loader's
 * numbering is the file's). */
static int file_vt(const char *path, float **uv) {
  FILE *fp = fopen(path, "r");
  assert_non_null(fp);
  char line[512];
  int n = 0;
  *uv = NULL;
  while (fgets(line, sizeof line, fp)) {
    if (line[0] != 'v' || line[1] != 't') continue;
    *uv = realloc(*uv, sizeof(float) * 2 * (size_t)(n + 1));
    assert_int_equal(sscanf(line + 3, "%f %f", &(*uv)[2 * n], &(*uv)[2 * n + 1]), 2);
    n++;
  }
  fclose(fp);
  return n;
}

/* A grid (no UVs) between two mesh cloths with UVs and one after: vt
 * numbering must skip the grid. */
static const char *k_scene =
    "{ \"dt\": 0.016666, \"substeps\": 4, \"gravity\": [0, -9.81, 0],"
    "  \"cloth\": ["
    "   { \"name\": \"square\", \"mesh\": { \"file\": \"../meshes/square_small.obj\","
    "     \"translate\": [0, 1, 0] }, \"mass_per_area\": 0.2, \"pin_vertices\": [0, 5] },"
    "   { \"name\": \"grid\", \"grid\": { \"rows\": 5, \"cols\": 4, \"spacing\": 0.05,"
    "     \"origin\": [2, 1, 0] }, \"mass_per_area\": 0.2 },"
    "   { \"name\": \"front\", \"mesh\": { \"file\": \"../meshes/skirt_front.obj\","
    "     \"translate\": [-2, 1, 0] }, \"mass_per_area\": 0.2 },"
    "   { \"name\": \"tube\", \"mesh\": { \"file\": \"../meshes/tube.obj\","
    "     \"translate\": [4, 1, 0] }, \"mass_per_area\": 0.2 } ] }";

static void load(drape_scene *s) {
  char dir[2048];
  snprintf(dir, sizeof dir, "%s/scenes", drape_test_source_dir());
  drape_err e = {0};
  if (drape_scene_parse_in(k_scene, "test", dir, s, &e)) fail_msg("%s", e.msg);
}

/* Checks one written OBJ against the scene: the mesh cloths' points (at
 * frame 0: their starting positions, in the loader's order; later: x),
 * vt = the loader's UVs = the file's, faces = the loader's triangles with
 * matching v/vt; the grid without vt. */
static void check_obj(const char *path, const drape_scene *s, const float *const *x) {
  obj_file f;
  obj_read(path, &f);
  assert_int_equal(f.n, s->n_cloth);
  for (int k = 0; k < s->n_cloth; k++) {
    const drape_cloth_def *c = &s->cloth[k];
    const obj_object *o = &f.o[k];
    assert_string_equal(o->name, c->name);
    if (!c->has_mesh) {
      assert_int_equal(o->nvt, 0);
      for (int i = 0; i < 3 * o->nf; i++) assert_int_equal(o->ft[i], -1);
      continue;
    }
    const drape_cloth_mesh *m = &c->mesh;
    assert_non_null(m->uv);
    assert_int_equal(o->nv, m->n_vertices);
    assert_int_equal(o->nvt, m->n_vertices);
    assert_int_equal(o->nf, m->n_tris);
    for (int i = 0; i < m->n_vertices; i++)
      for (int q = 0; q < 3; q++) {
        const float want = x ? x[k][3 * i + q] : (float)m->vertices[3 * i + q];
        if (o->v[3 * i + q] != want)
          fail_msg("%s %s: v %d[%d] = %.9g, want %.9g", path, c->name, i, q,
                   (double)o->v[3 * i + q], (double)want);
      }
    for (int i = 0; i < 2 * m->n_vertices; i++) assert_true(o->vt[i] == m->uv[i]);
    for (int t = 0; t < 3 * m->n_tris; t++) {
      assert_int_equal(o->fv[t], m->tris[t]);
      assert_int_equal(o->ft[t], m->tris[t]);
    }
    /* the loader's UVs are the file's own vt lines (independently read) */
    char mp[2048];
    snprintf(mp, sizeof mp, "%s/scenes/%s", drape_test_source_dir(), m->file);
    float *fuv;
    const int nfuv = file_vt(mp, &fuv);
    assert_int_equal(nfuv, m->n_vertices);
    for (int i = 0; i < 2 * nfuv; i++) assert_true(fuv[i] == o->vt[i]);
    free(fuv);
  }
  obj_free(&f);
}

static void uv_in_obj(void **state) {
  (void)state;
  drape_scene s;
  load(&s);
  drape_world_def wd = drape_world_def_default();
  wd.backend = DRAPE_BACKEND_CPU;
  drape_world *w = NULL;
  drape_err e = {0};
  if (drape_world_create(&s, &wd, &w, &e)) fail_msg("%s", e.msg);
  const char *dir = drape_test_tmpdir("mesh_order_uv");
  char p0[2048], p1[2048], p2[2048];
  snprintf(p0, sizeof p0, "%s/world0.obj", dir);
  snprintf(p1, sizeof p1, "%s/world3.obj", dir);
  snprintf(p2, sizeof p2, "%s/sim3.obj", dir);
  if (drape_world_write_obj(w, p0, &e)) fail_msg("%s", e.msg);
  check_obj(p0, &s, NULL);
  for (int i = 0; i < 3; i++)
    if (drape_world_step(w, &e)) fail_msg("%s", e.msg);
  if (drape_world_write_obj(w, p1, &e) || drape_sim_write_obj(drape_world_sim(w), p2, &e))
    fail_msg("%s", e.msg);
  float *x[4] = {0};
  for (int k = 0; k < s.n_cloth; k++) {
    drape_world_object o;
    if (drape_world_get_object(w, k, &o, &e)) fail_msg("%s", e.msg);
    x[k] = malloc(sizeof(float) * 3 * (size_t)o.n_points);
    if (drape_world_read_points(w, k, x[k], &e)) fail_msg("%s", e.msg);
  }
  /* it moved (the check is not of the start again) */
  assert_true(x[0][3 * 100 + 1] < (float)s.cloth[0].mesh.vertices[3 * 100 + 1]);
  check_obj(p1, &s, (const float *const *)x);
  check_obj(p2, &s, (const float *const *)x);
  for (int k = 0; k < 4; k++) free(x[k]);
  drape_world_destroy(w);
  drape_scene_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(uv_in_obj),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
