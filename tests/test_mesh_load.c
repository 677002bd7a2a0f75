/* Mesh cloths, loading (issue 16; src/core/mesh_load.c, docs/scenes.md
 * "Mesh cloth"): the repo's meshes load with the counts the script wrote,
 * the transform is x, y, z rotation then scale then translate, welding
 * merges vertices within `weld` (and only those), vertices are numbered in
 * first-use order, zero-area triangles are dropped with their count, and
 * every rejection (unreadable file, no triangles, NaN, grid and mesh both,
 * pins of the wrong kind, bad indices, stitches) fails with a message that
 * names the key path; UVs stay per triangle corner through welding, the
 * Morton reorder, tearing and both OBJ writers (a cube with a UV seam at
 * every corner). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cloth/sim.h"
#include "support.h"
#include "drape/drape.h"
#include "drape/world.h"

static char g_dir[1024];

static const char *write_file(const char *name, const char *text) {
  static char path[2048];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* A scene with one mesh cloth around `mesh_json` (the "mesh" object and
 * any other cloth keys), parsed relative to g_dir. */
static int parse_cloth(const char *cloth_json, const char *extra, drape_scene *s, drape_err *e) {
  char text[20000];
  snprintf(text, sizeof text, "{\"cloth\": [{%s}]%s%s}", cloth_json, extra ? ", " : "",
           extra ? extra : "");
  return drape_scene_parse_in(text, NULL, g_dir, s, e);
}

static void expect_fail(const char *cloth_json, const char *extra, const char *needle) {
  drape_scene s;
  drape_err e = {0};
  int rc = parse_cloth(cloth_json, extra, &s, &e);
  if (rc == 0 || !strstr(e.msg, needle)) {
    fprintf(stderr, "expected a failure naming '%s', got rc %d: %s\n", needle, rc, e.msg);
    fail();
  }
  drape_scene_free(&s);
}

static void repo_meshes(void **state) {
  (void)state;
  static const struct { const char *file; int nv, nt; } M[] = {
      {"square_irregular.obj", 4096, 7938}, {"square_small.obj", 144, 242},
      {"disk.obj", 491, 905},               {"tube.obj", 288, 528},
      {"skirt_front.obj", 228, 396},        {"skirt_back.obj", 228, 396}};
  for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
    drape_cloth_def d = drape_cloth_def_default();
    d.has_mesh = 1;
    snprintf(d.name, sizeof d.name, "m");
    char path[2048];
    snprintf(path, sizeof path, "%s/meshes/%s", drape_test_source_dir(), M[i].file);
    d.mesh.file = strdup(path);
    drape_err e = {0};
    assert_int_equal(drape_cloth_mesh_load(&d, 0, NULL, &e), 0);
    assert_int_equal(d.mesh.n_vertices, M[i].nv);
    assert_int_equal(d.mesh.n_tris, M[i].nt);
    assert_non_null(d.mesh.uv);
    if (drape_cloth_def_validate(&d, 0, &e)) fprintf(stderr, "%s: %s\n", M[i].file, e.msg);
    assert_int_equal(drape_cloth_def_validate(&d, 0, &e), 0);
    /* first-use numbering: the first triangle is 0 1 2, and each new index
     * is one more than the largest before it */
    int top = -1;
    for (int t = 0; t < 3 * d.mesh.n_tris; t++) {
      assert_true(d.mesh.tris[t] <= top + 1);
      if (d.mesh.tris[t] > top) top = d.mesh.tris[t];
    }
    assert_int_equal(top, M[i].nv - 1);
    drape_cloth_def_free(&d);
  }
}

/* One triangle (0,0,0) (1,0,0) (0,0,1) and the transform. */
static void transform_order(void **state) {
  (void)state;
  write_file("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n");
  drape_scene s;
  drape_err e = {0};
  /* x by 90: (0,0,1) -> (0,-1,0); then y by 90: (1,0,0) -> (0,0,-1);
   * then z by 90: (0,-1,0) -> (1,0,0); scale 2, translate (10, 20, 30) */
  assert_int_equal(parse_cloth("\"mesh\": {\"file\": \"tri.obj\", \"rotate_deg\": [90, 90, 90], "
                               "\"scale\": 2, \"translate\": [10, 20, 30]}",
                               NULL, &s, &e), 0);
  const drape_cloth_mesh *m = &s.cloth[0].mesh;
  assert_int_equal(m->n_vertices, 3);
  const double want[3][3] = {{10, 20, 30}, {10, 20, 28}, {12, 20, 30}};
  for (int v = 0; v < 3; v++)
    for (int q = 0; q < 3; q++) assert_near(m->vertices[3 * v + q], want[v][q], 1e-12);
  assert_near(m->uv[2 * 1], 1.0, 0);
  assert_near(m->uv[2 * 2 + 1], 1.0, 0);
  drape_scene_free(&s);
}

/* Two triangles whose shared corners are 1e-7 apart in the file (no
 * shared indices): welded into 4 vertices with weld 1e-6, left as 6 with
 * weld 1e-8. Vertices are numbered by first use, not file order. */
static void weld_and_first_use(void **state) {
  (void)state;
  write_file("two.obj", "v 5 0 5\nv 0 0 0\nv 1 0 0\nv 0 0 1\n"
                        "v 1 0 1\nv 0.0000001 0 1\nv 1 0 0.0000001\n"
                        "f 2 3 4\nf 5 6 7\nf 1 2 3\n");
  drape_scene s;
  drape_err e = {0};
  assert_int_equal(parse_cloth("\"mesh\": {\"file\": \"two.obj\"}", NULL, &s, &e), 0);
  assert_int_equal(s.cloth[0].mesh.n_vertices, 5);
  assert_int_equal(s.cloth[0].mesh.n_tris, 3);
  const int want[9] = {0, 1, 2, 3, 2, 1, 4, 0, 1};
  for (int i = 0; i < 9; i++) assert_int_equal(s.cloth[0].mesh.tris[i], want[i]);
  assert_null(s.cloth[0].mesh.uv); /* the file has none */
  drape_scene_free(&s);
  assert_int_equal(parse_cloth("\"mesh\": {\"file\": \"two.obj\", \"weld\": 1e-8}", NULL, &s, &e), 0);
  assert_int_equal(s.cloth[0].mesh.n_vertices, 7);
  drape_scene_free(&s);
}

static void zero_area_dropped(void **state) {
  (void)state;
  /* the second triangle is collinear, the third uses a vertex twice */
  write_file("zero.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 2 0 0\nf 1 2 3\nf 1 2 4\nf 1 3 3\n");
  drape_scene s;
  drape_err e = {0};
  char out[4096];
  assert_int_equal(parse_cloth("\"mesh\": {\"file\": \"zero.obj\"}", NULL, &s, &e), 0);
  assert_int_equal(s.cloth[0].mesh.n_tris, 1);
  assert_int_equal(s.cloth[0].mesh.n_vertices, 3); /* vertex 4 only served the dropped one */
  drape_scene_free(&s);
  /* the warning, with the count, from the command */
  write_file("zero.json", "{\"cloth\": [{\"mesh\": {\"file\": \"zero.obj\"}}], \"frames\": 1}");
  int rc = drape_test_sh(out, sizeof out, "'%s' run '%s/zero.json' --backend cpu --frames 1 2>&1",
                         drape_test_exe(), g_dir);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "cloth[0].mesh.file = \"zero.obj\": 2 zero-area triangles dropped (of 3)"));
}

static void rejections(void **state) {
  (void)state;
  write_file("points.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nl 1 2\nl 2 3\n");
  write_file("nan.obj", "v 0 0 0\nv nan 0 0\nv 0 0 1\nf 1 2 3\n");
  write_file("junk.obj", "this is not a mesh\n\x01\x02\x03");
  write_file("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
  write_file("ok.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n");
  expect_fail("\"mesh\": {\"file\": \"missing.obj\"}", NULL,
              "cloth[0].mesh.file = \"missing.obj\": cannot read");
  expect_fail("\"mesh\": {\"file\": \"points.obj\"}", NULL,
              "cloth[0].mesh.file = \"points.obj\"");
  expect_fail("\"mesh\": {\"file\": \"nan.obj\"}", NULL,
              "cloth[0].mesh.file = \"nan.obj\": vertex");
  expect_fail("\"mesh\": {\"file\": \"flat.obj\"}", NULL,
              "cloth[0].mesh.file = \"flat.obj\": no triangles left: all 1 have zero area");
  expect_fail("\"mesh\": {\"file\": \"junk.obj\"}", NULL, "cloth[0].mesh.file = \"junk.obj\"");
  expect_fail("\"mesh\": {}", NULL, "cloth[0].mesh.file: missing");
  /* face indices the file's vertex list does not hold, one past its end
   * and far past it: refused before any read (PLY hands them through) */
  static const char ply_head[] =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
  char ply[512];
  snprintf(ply, sizeof ply, "%s0 0 0\n1 0 0\n0 0 1\n3 0 1 3\n", ply_head);
  write_file("past.ply", ply);
  snprintf(ply, sizeof ply, "%s0 0 0\n1 0 0\n0 0 1\n3 0 1 100000000\n", ply_head);
  write_file("far.ply", ply);
  snprintf(ply, sizeof ply, "%s0 0 0\n1e30 0 0\n0 0 1\n3 0 1 2\n", ply_head);
  write_file("huge.ply", ply);
  expect_fail("\"mesh\": {\"file\": \"past.ply\"}", NULL,
              "past.ply\": face 0 of mesh 0 uses vertex 3, but the mesh has 3 vertices");
  expect_fail("\"mesh\": {\"file\": \"far.ply\"}", NULL,
              "far.ply\": face 0 of mesh 0 uses vertex 100000000, but the mesh has 3 vertices");
  /* a header that declares more than the file holds: refused at once,
   * before Assimp allocates 2e9 vertices (text) or asserts on the missing
   * data (binary) */
  snprintf(ply, sizeof ply,
           "ply\nformat ascii 1.0\nelement vertex 2000000000\nproperty float x\nproperty float y\n"
           "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
           "0 0 0\n");
  write_file("liar.ply", ply);
  expect_fail("\"mesh\": {\"file\": \"liar.ply\"}", NULL,
              "liar.ply' is not a valid PLY file: its header declares elements that need at least "
              "12000000002 bytes, but the file has 6 after its header");
  snprintf(ply, sizeof ply,
           "ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\n"
           "property float y\nproperty float z\nelement face 1\n"
           "property list uchar int vertex_indices\nend_header\n0123456789ab");
  write_file("short.ply", ply);
  expect_fail("\"mesh\": {\"file\": \"short.ply\"}", NULL,
              "its header declares elements that need at least 1201 bytes, but the file has 12 after");
  /* nesting 200,000 deep: Assimp's recursive parser runs on a thread with
   * a large stack, so the file is refused, not a stack overflow */
  {
    const int depth = 200000;
    char *deep = malloc((size_t)2 * depth + 64);
    assert_non_null(deep);
    int n = snprintf(deep, 64, "{\"asset\": {\"version\": \"2.0\"}, \"x\": ");
    memset(deep + n, '[', (size_t)depth), n += depth;
    memset(deep + n, ']', (size_t)depth), n += depth;
    snprintf(deep + n, 4, "}\n");
    write_file("deep.gltf", deep);
    free(deep);
    expect_fail("\"mesh\": {\"file\": \"deep.gltf\"}", NULL,
                "cloth[0].mesh.file = \"deep.gltf\": cannot read '");
  }
  /* an OBJ whose material library is a FIFO: Assimp opens it through our
   * file system, which opens regular files only and never blocks; the
   * mesh loads without its materials (alarm: a hang fails the test) */
  {
    char fifo[2100];
    snprintf(fifo, sizeof fifo, "%s/fifo.mtl", g_dir);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    write_file("mtl_fifo.obj", "mtllib fifo.mtl\nv 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n");
    alarm(60);
    drape_scene fs;
    drape_err fe = {0};
    assert_int_equal(parse_cloth("\"mesh\": {\"file\": \"mtl_fifo.obj\"}", NULL, &fs, &fe), 0);
    alarm(0);
    assert_int_equal(fs.cloth[0].mesh.n_tris, 1);
    drape_scene_free(&fs);
  }
  /* one OBJ polygon of 1,025 corners: refused before Assimp triangulates
   * it (its time grows faster than the square of the corners) */
  {
    const int nc = 1025;
    char *obj = malloc((size_t)nc * 48 + 64);
    assert_non_null(obj);
    int n = 0;
    for (int k = 0; k < nc; k++)
      n += sprintf(obj + n, "v %.6f 0 %.6f\n", cos(2 * 3.14159265358979 * k / nc),
                   sin(2 * 3.14159265358979 * k / nc));
    n += sprintf(obj + n, "f");
    for (int k = 0; k < nc; k++) n += sprintf(obj + n, " %d", k + 1);
    sprintf(obj + n, "\n");
    write_file("polygon.obj", obj);
    free(obj);
    expect_fail("\"mesh\": {\"file\": \"polygon.obj\"}", NULL,
                "\"polygon.obj\": line 1026 has a face of 1025 corners; allowed up to 1024");
  }
  /* a vertex beyond the coordinate range is refused, not dropped as a
   * zero-area triangle */
  expect_fail("\"mesh\": {\"file\": \"huge.ply\"}", NULL,
              "huge.ply\": vertex 1 of mesh 0 is at (1.0000000150474662e+30, 0, 0) m after the "
              "transform; coordinates must be within +-1000000 m");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\"}, \"grid\": {\"cols\": 4}", NULL,
              "cloth[0].mesh = {\"file\": \"ok.obj\"}: a cloth has either \"grid\" or \"mesh\", not both");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\", \"scale\": 0}", NULL, "cloth[0].mesh.scale = 0: must be > 0");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\", \"weld\": -1}", NULL, "cloth[0].mesh.weld = -1: must be >= 0");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\"}, \"pins\": [[0, 0]]", NULL,
              "cloth[0].pins = [[0, 0]]: [row, col] pins are for grid cloths");
  expect_fail("\"grid\": {\"cols\": 4}, \"pin_vertices\": [0]", NULL,
              "cloth[0].pin_vertices = [0]: only for mesh cloths");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\"}, \"pin_vertices\": [0, 3]", NULL,
              "cloth[0].pin_vertices[1] = 3: the mesh has vertices 0..2");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\"}, \"pin_box\": [[0, 0, 0], [1, -1, 1]]", NULL,
              "cloth[0].pin_box[1][1] = -1: must be >= pin_box[0][1] = 0");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\"}, \"pin_paths\": [{\"vertex\": 5, \"keys\": [[0, 0, 0, 0]]}]",
              NULL, "cloth[0].pin_paths[0].vertex = 5: the mesh has vertices 0..2");
  expect_fail("\"mesh\": {\"file\": \"ok.obj\"}, \"pin_paths\": [{\"pin\": [0, 0], \"keys\": [[0, 0, 0, 0]]}]",
              NULL, "cloth[0].pin_paths[0] = [0, 0]: a mesh cloth's path follows a vertex");
  expect_fail("\"grid\": {\"cols\": 4}, \"pin_paths\": [{\"vertex\": 0, \"keys\": [[0, 0, 0, 0]]}]",
              NULL, "cloth[0].pin_paths[0] = 0: \"vertex\" is for mesh cloths");
  /* stitches */
  const char *two = "\"name\": \"a\", \"mesh\": {\"file\": \"ok.obj\"}";
  expect_fail(two, "\"stitch\": [{\"a\": \"a\", \"b\": \"zz\", \"a_vertices\": [0], \"b_vertices\": [1]}]",
              "stitch[0].b = \"zz\": no cloth has that name");
  expect_fail(two, "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0, 1], \"b_vertices\": [1]}]",
              "stitch[0].b_vertices = [1]: has 1 entries, a_vertices 2");
  expect_fail(two, "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0], \"b_vertices\": [3]}]",
              "stitch[0].b_vertices[0] = 3: cloth[0] (\"a\") has vertices 0..2");
  expect_fail(two, "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0], \"b_vertices\": [1], "
                   "\"close_time\": -1}]",
              "stitch[0].close_time = -1: must be >= 0");
  expect_fail(two, "\"stitch\": [{\"a\": \"a\", \"a_vertices\": [0], \"b_vertices\": [1]}]",
              "stitch[0].b: missing");
  expect_fail("\"name\": \"a\", \"mesh\": {\"file\": \"ok.obj\"}, \"tear_ratio\": 2",
              "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0], \"b_vertices\": [1]}]",
              "stitch[0].a = \"a\": that cloth tears (tear_ratio = 2)");
  expect_fail("\"name\": \"a\", \"mesh\": {\"file\": \"ok.obj\"}, \"solver\": \"springs\"",
              "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0], \"b_vertices\": [1]}]",
              "stitch[0].a = \"a\": that cloth uses the \"springs\" solver");
  expect_fail(two, "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [1], \"b_vertices\": [1]}]",
              "stitch[0].b_vertices[0] = 1: the same vertex as a_vertices[0]");
  /* a pair given twice, and one vertex sewn 1,000 times (over the 32
   * allowed): refused in the scene's own numbering */
  expect_fail(two, "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0, 2, 0], "
                   "\"b_vertices\": [1, 1, 1]}]",
              "stitch[0]: pair 2 (a_vertices[2] = 0, b_vertices[2] = 1) repeats pair 0");
  {
    static char many[16384];
    int n = snprintf(many, sizeof many, "\"stitch\": [");
    for (int k = 0; k < 1000 / 20; k++)
      n += snprintf(many + n, sizeof many - (size_t)n,
                    "%s{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0], \"b_vertices\": [1]}",
                    k ? ", " : "");
    snprintf(many + n, sizeof many - (size_t)n, "]");
    expect_fail(two, many,
                "stitch[32].a_vertices[0] = 0: vertex 0 of \"a\" is sewn more than 32 times over "
                "all stitches (allowed: up to 32)");
  }
  /* and what passes */
  drape_scene s;
  drape_err e = {0};
  assert_int_equal(parse_cloth(two, "\"stitch\": [{\"a\": \"a\", \"b\": \"a\", \"a_vertices\": [0], "
                                    "\"b_vertices\": [1], \"close_time\": 0.25}]",
                               &s, &e), 0);
  assert_int_equal(s.n_stitch, 1);
  assert_int_equal(s.stitch[0].n, 1);
  assert_near(s.stitch[0].close_time, 0.25, 0);
  drape_scene_free(&s);
}

/* drape_scene_load reads mesh files next to the scene file, from any
 * working directory. */
static void relative_to_scene(void **state) {
  (void)state;
  char out[4096];
  int rc = drape_test_sh(out, sizeof out, "cd / && '%s' run '%s/scenes/tablecloth_mesh.json' --backend cpu "
                         "--frames 1 2>&1", drape_test_exe(), drape_test_source_dir());
  if (rc != 0) fprintf(stderr, "%s\n", out);
  assert_int_equal(rc, 0);
}

/* ---- UV seams ---- */

/* A 0.2 m cube around (0, 1, 0): 8 positions, 6 faces of 2 triangles,
 * each face with its own 4 texture coordinates (an atlas: face f at
 * u = f/8 + 1/32 or 3/32, v = 17/32 or 19/32, all exact in binary), so
 * every position has three UVs: a seam at each corner. want_uv: 6 per
 * triangle, in file order. */
static const char *write_seam_cube(float want_uv[12 * 6]) {
  static const int quad[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                 {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  static const int tri_corner[2][3] = {{0, 1, 2}, {0, 2, 3}};
  char text[4096];
  int at = 0;
  for (int i = 0; i < 8; i++)
    at += snprintf(text + at, sizeof text - (size_t)at, "v %g %g %g\n", i & 1 ? 0.1 : -0.1,
                   i & 2 ? 1.1 : 0.9, i & 4 ? 0.1 : -0.1);
  float vt[24][2];
  for (int f = 0; f < 6; f++)
    for (int k = 0; k < 4; k++) {
      vt[4 * f + k][0] = (float)f / 8 + (k == 1 || k == 2 ? 3.0f : 1.0f) / 32;
      vt[4 * f + k][1] = (k >= 2 ? 19.0f : 17.0f) / 32;
      at += snprintf(text + at, sizeof text - (size_t)at, "vt %.9g %.9g\n", (double)vt[4 * f + k][0],
                     (double)vt[4 * f + k][1]);
    }
  for (int f = 0; f < 6; f++)
    for (int h = 0; h < 2; h++) {
      at += snprintf(text + at, sizeof text - (size_t)at, "f");
      for (int q = 0; q < 3; q++) {
        const int k = tri_corner[h][q];
        at += snprintf(text + at, sizeof text - (size_t)at, " %d/%d", quad[f][k] + 1, 4 * f + k + 1);
        want_uv[6 * (2 * f + h) + 2 * q] = vt[4 * f + k][0];
        want_uv[6 * (2 * f + h) + 2 * q + 1] = vt[4 * f + k][1];
      }
      at += snprintf(text + at, sizeof text - (size_t)at, "\n");
    }
  return write_file("seam_cube.obj", text);
}

/* One object of an OBJ file: v, vt and faces (v and vt indices from 0). */
typedef struct {
  int nv, nvt, nf;
  float v[64][3], vt[64][2];
  int fv[16][3], ft[16][3];
} small_obj;

static void read_small_obj(const char *path, small_obj *o) {
  memset(o, 0, sizeof *o);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256];
  int objects = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == 'o' && line[1] == ' ') objects++;
    if (line[0] == 'v' && line[1] == ' ') {
      assert_true(o->nv < 64);
      assert_int_equal(sscanf(line + 2, "%f %f %f", &o->v[o->nv][0], &o->v[o->nv][1], &o->v[o->nv][2]), 3);
      o->nv++;
    } else if (line[0] == 'v' && line[1] == 't') {
      assert_true(o->nvt < 64);
      assert_int_equal(sscanf(line + 3, "%f %f", &o->vt[o->nvt][0], &o->vt[o->nvt][1]), 2);
      o->nvt++;
    } else if (line[0] == 'f' && line[1] == ' ') {
      assert_true(o->nf < 16);
      int *a = o->fv[o->nf], *t = o->ft[o->nf];
      assert_int_equal(sscanf(line + 2, "%d/%d %d/%d %d/%d", &a[0], &t[0], &a[1], &t[1], &a[2], &t[2]), 6);
      for (int q = 0; q < 3; q++) a[q]--, t[q]--;
      o->nf++;
    }
  }
  fclose(f);
  assert_int_equal(objects, 1);
}

/* A written cube: 8 points (the welded count), no two `vt` lines alike,
 * and each face a loaded triangle (the same corners, in the loader's
 * numbering) whose every corner has the file's UV for that corner, the
 * numbers compared. Returns the number of faces. */
static int check_seam_obj(const char *path, const drape_cloth_mesh *m, const float *want_uv) {
  small_obj o;
  read_small_obj(path, &o);
  assert_int_equal(o.nv, 8);
  for (int i = 0; i < o.nvt; i++)
    for (int j = 0; j < i; j++)
      assert_false(o.vt[i][0] == o.vt[j][0] && o.vt[i][1] == o.vt[j][1]);
  int used[64] = {0};
  for (int f = 0; f < o.nf; f++) {
    int t = -1;
    for (int u = 0; u < m->n_tris; u++)
      if (m->tris[3 * u] == o.fv[f][0] && m->tris[3 * u + 1] == o.fv[f][1] &&
          m->tris[3 * u + 2] == o.fv[f][2])
        t = u;
    if (t < 0) fail_msg("%s: face %d (%d %d %d) is none of the loaded triangles", path, f,
                        o.fv[f][0], o.fv[f][1], o.fv[f][2]);
    for (int q = 0; q < 3; q++) {
      const int k = o.ft[f][q];
      assert_true(k >= 0 && k < o.nvt);
      used[k] = 1;
      if (o.vt[k][0] != want_uv[6 * t + 2 * q] || o.vt[k][1] != want_uv[6 * t + 2 * q + 1])
        fail_msg("%s: face %d corner %d: vt (%.9g, %.9g), the file has (%.9g, %.9g)", path, f, q,
                 (double)o.vt[k][0], (double)o.vt[k][1], (double)want_uv[6 * t + 2 * q],
                 (double)want_uv[6 * t + 2 * q + 1]);
    }
  }
  for (int k = 0; k < o.nvt; k++) assert_true(used[k]); /* no vt of a torn face */
  return o.nf;
}

/* The loader keeps each corner's UV (one UV per vertex would keep one
 * side of each seam), and both OBJ writers give them back: at frame 0 (12
 * faces, 24 vt), and after vertex 0, the others pinned, is yanked 2 m
 * away and tears out with its 6 triangles (the torn faces and their vt
 * left out); in the file's vertex order and, again, with the vertices in
 * Morton order. (pin_vertices and the path's vertex are the loader's
 * numbers; its vertex 0 is the file's first `v`, the first face's first
 * corner.) */
static void uv_seams(void **state) {
  (void)state;
  float want_uv[12 * 6];
  write_seam_cube(want_uv);
  for (int morton = 0; morton < 2; morton++) {
    if (morton) setenv("DRAPE_MESH_ORDER", "morton", 1);
    drape_scene s;
    drape_err e = {0};
    assert_int_equal(parse_cloth("\"name\": \"cube\", \"mesh\": {\"file\": \"seam_cube.obj\"}, "
                                 "\"tear_ratio\": 1.5, \"pin_vertices\": [1, 2, 3, 4, 5, 6, 7], \"pin_paths\": "
                                 "[{\"vertex\": 0, \"keys\": [[0, -0.1, 0.9, -0.1], "
                                 "[0.05, -2.1, 0.9, -0.1]]}]",
                                 NULL, &s, &e), 0);
    const drape_cloth_mesh *m = &s.cloth[0].mesh;
    assert_int_equal(m->n_vertices, 8); /* welded: 24 corners with distinct UVs */
    assert_int_equal(m->n_tris, 12);
    assert_non_null(m->tri_uv);
    for (int i = 0; i < 12 * 6; i++) assert_true(m->tri_uv[i] == want_uv[i]);
    drape_world_def wd = drape_world_def_default();
    wd.backend = DRAPE_BACKEND_CPU;
    drape_world *w = NULL;
    if (drape_world_create(&s, &wd, &w, &e)) fail_msg("%s", e.msg);
    if (morton) {
      assert_non_null(drape_world_sim(w)->m.perm);
      int moved = 0;
      for (int i = 0; i < 8; i++) moved += drape_world_sim(w)->m.perm[i] != i;
      assert_true(moved > 0);
    } else {
      assert_null(drape_world_sim(w)->m.perm);
    }
    char pw[2048], ps[2048];
    snprintf(pw, sizeof pw, "%s/seam_world.obj", g_dir);
    snprintf(ps, sizeof ps, "%s/seam_sim.obj", g_dir);
    if (drape_world_write_obj(w, pw, &e) || drape_sim_write_obj(drape_world_sim(w), ps, &e))
      fail_msg("%s", e.msg);
    assert_int_equal(check_seam_obj(pw, m, want_uv), 12);
    assert_int_equal(check_seam_obj(ps, m, want_uv), 12);
    for (int i = 0; i < 10; i++)
      if (drape_world_step(w, &e)) fail_msg("%s", e.msg);
    if (drape_world_write_obj(w, pw, &e) || drape_sim_write_obj(drape_world_sim(w), ps, &e))
      fail_msg("%s", e.msg);
    const int nw = check_seam_obj(pw, m, want_uv), ns = check_seam_obj(ps, m, want_uv);
    print_message("  %s order: %d of 12 faces left after the tear\n", morton ? "Morton" : "file", nw);
    assert_int_equal(nw, ns);
    assert_int_equal(nw, 6);
    drape_world_destroy(w);
    drape_scene_free(&s);
    unsetenv("DRAPE_MESH_ORDER");
  }
}

/* "springs" on a mesh cloth: no bending at all (its springs are the
 * edges; the dihedral constraints are XPBD's and Jakobsen's), so the load
 * warns, naming the key; "xpbd" does not. */
static void springs_warns(void **state) {
  (void)state;
  char out[8192];
  for (int springs = 0; springs < 2; springs++) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"dt\": 0.002, \"substeps\": 10, \"cloth\": [{\"mesh\": {\"file\": "
             "\"%s/meshes/square_small.obj\"}, \"solver\": \"%s\", \"stiffness\": 10, "
             "\"spring_damping\": 0.01, \"bend_stiffness\": 5, \"pin_vertices\": [0]}], "
             "\"frames\": 2}",
             drape_test_source_dir(), springs ? "springs" : "xpbd");
    write_file("springs.json", text);
    const int rc = drape_test_sh(out, sizeof out, "'%s' run '%s/springs.json' --backend cpu 2>&1",
                                 drape_test_exe(), g_dir);
    if (rc != 0) fail_msg("drape run: rc %d: %s", rc, out);
    const char *w = strstr(out, "warning: cloth[0].solver = \"springs\": a mesh cloth has no bend "
                                "springs (its bending is the dihedral-angle constraint, which needs "
                                "\"xpbd\" or \"jakobsen\")");
    if (springs ? !w || !strstr(out, "bend_stiffness = 5 and compliance.bend are not used") : !!w)
      fail_msg("solver %s: %s", springs ? "springs" : "xpbd", out);
  }
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "%s", drape_test_tmpdir("mesh_load"));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(repo_meshes),       cmocka_unit_test(transform_order),
      cmocka_unit_test(weld_and_first_use), cmocka_unit_test(zero_area_dropped),
      cmocka_unit_test(rejections),        cmocka_unit_test(relative_to_scene),
      cmocka_unit_test(uv_seams),          cmocka_unit_test(springs_warns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
