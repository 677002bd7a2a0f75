/* Scene files: every ready scene loads; every key of DESIGN.md's example and
 * every documented extension key lands in its field with its value; the
 * defaults are the documented ones; bad input fails with DRAPE_EINVAL and a
 * message naming the key path and the value. */
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "support.h"
#include "core/model.h"
#include "drape/render_def.h"
#include "drape/scene.h"

/* ../shared/DESIGN.md "Scene files", verbatim. */
static const char DESIGN_EXAMPLE[] =
    "    {\n"
    "      \"gravity\": [0, -9.81, 0],\n"
    "      \"dt\": 0.016666, \"substeps\": 20, \"iterations\": 1,\n"
    "      \"cloth\": [{ \"name\": \"sheet\",\n"
    "                  \"grid\": { \"cols\": 64, \"rows\": 64, \"spacing\": 0.02,\n"
    "                            \"origin\": [-0.63, 1.2, -0.63], \"plane\": \"xz\" },\n"
    "                  \"mass_per_area\": 0.2,\n"
    "                  \"compliance\": { \"stretch\": 0, \"shear\": 1e-6, \"bend\": 1e-3 },\n"
    "                  \"damping\": 0.01, \"thickness\": 0.01,\n"
    "                  \"self_collision\": true, \"pins\": [[0, 0], [0, 63]] }],\n"
    "      \"rope\":  [{ \"name\": \"chain\", \"segments\": 80,\n"
    "                  \"start\": [-1.5, 2, 0], \"end\": [1.5, 2, 0], \"length\": 4.0,\n"
    "                  \"mass_per_length\": 1.0, \"compliance\": 0, \"damping\": 0.1,\n"
    "                  \"pin_start\": true, \"pin_end\": true }],\n"
    "      \"string\": [{ \"name\": \"cord\", \"nodes\": 80, \"length\": 4.0,\n"
    "                   \"anchor\": [-1.6, 2.6], \"z\": 0,\n"
    "                   \"hand\": [[0.0, 2.4, 2.6], [1.0, 1.0, 1.0]],\n"
    "                   \"release_at\": 2.0 }],\n"
    "      \"sphere\": [{ \"center\": [0, 0.6, 0], \"radius\": 0.4, \"friction\": 0.3 }],\n"
    "      \"floor\":  { \"height\": 0, \"friction\": 0.5 },\n"
    "      \"wind\":   [0, 0, 0]\n"
    "    }\n";

static void fvec_eq(const float *got, double x, double y, double z) {
  assert_near(got[0], (float)x, 0);
  assert_near(got[1], (float)y, 0);
  assert_near(got[2], (float)z, 0);
}

static void vec_eq(const double *got, double x, double y, double z) {
  assert_near(got[0], x, 0);
  assert_near(got[1], y, 0);
  assert_near(got[2], z, 0);
}

static int parse_ok(const char *json, drape_scene *s) {
  drape_err e = {0};
  int r = drape_scene_parse(json, "test", s, &e);
  if (r) fprintf(stderr, "unexpected error: %s\n", e.msg);
  return r;
}

static void test_design_example(void **state) {
  (void)state;
  drape_scene s;
  assert_int_equal(parse_ok(DESIGN_EXAMPLE, &s), 0);
  vec_eq(s.gravity, 0, -9.81, 0);
  assert_near(s.dt, 0.016666, 0);
  assert_int_equal(s.substeps, 20);
  assert_int_equal(s.iterations, 1);

  assert_int_equal(s.n_cloth, 1);
  const drape_cloth_def *c = &s.cloth[0];
  assert_string_equal(c->name, "sheet");
  assert_int_equal(c->cols, 64);
  assert_int_equal(c->rows, 64);
  assert_near(c->spacing, 0.02, 0);
  vec_eq(c->origin, -0.63, 1.2, -0.63);
  assert_int_equal(c->plane, DRAPE_PLANE_XZ);
  assert_near(c->mass_per_area, 0.2, 0);
  assert_near(c->compliance_stretch, 0, 0);
  assert_near(c->compliance_shear, 1e-6, 0);
  assert_near(c->compliance_bend, 1e-3, 0);
  assert_near(c->damping, 0.01, 0);
  assert_near(c->thickness, 0.01, 0);
  assert_int_equal(c->self_collision, 1);
  assert_int_equal(c->n_pins, 2);
  assert_int_equal(c->pins[0][0], 0);
  assert_int_equal(c->pins[0][1], 0);
  assert_int_equal(c->pins[1][0], 0);
  assert_int_equal(c->pins[1][1], 63);

  assert_int_equal(s.n_rope, 1);
  const drape_rope_def *r = &s.rope[0];
  assert_string_equal(r->name, "chain");
  assert_int_equal(r->segments, 80);
  vec_eq(r->start, -1.5, 2, 0);
  vec_eq(r->end, 1.5, 2, 0);
  assert_near(r->length, 4.0, 0);
  assert_near(r->mass_per_length, 1.0, 0);
  assert_near(r->compliance, 0, 0);
  assert_near(r->damping, 0.1, 0);
  assert_int_equal(r->pin_start, 1);
  assert_int_equal(r->pin_end, 1);

  assert_int_equal(s.n_string, 1);
  const drape_string_def *g = &s.string[0];
  assert_string_equal(g->name, "cord");
  assert_int_equal(g->nodes, 80);
  assert_near(g->length, 4.0, 0);
  assert_near(g->anchor[0], -1.6, 0);
  assert_near(g->anchor[1], 2.6, 0);
  assert_near(g->z, 0, 0);
  assert_int_equal(g->n_hand, 2);
  vec_eq(g->hand[0], 0.0, 2.4, 2.6);
  vec_eq(g->hand[1], 1.0, 1.0, 1.0);
  assert_near(g->release_at, 2.0, 0);
  /* Material keys not given take the seed's values (DESIGN.md). */
  assert_near(g->mu, 0.02, 0);
  assert_near(g->EA, 100, 0);
  assert_near(g->etaA, 30, 0);
  assert_near(g->B, 1e-4, 0);
  assert_near(g->D, 1e-5, 0);
  assert_near(g->h, 1e-4, 0);

  assert_int_equal(s.n_sphere, 1);
  vec_eq(s.sphere[0].center, 0, 0.6, 0);
  assert_near(s.sphere[0].radius, 0.4, 0);
  assert_near(s.sphere[0].friction, 0.3, 0);
  vec_eq(s.sphere[0].velocity, 0, 0, 0);

  assert_int_equal(s.has_floor, 1);
  assert_near(s.floor_height, 0, 0);
  assert_near(s.floor_friction, 0.5, 0);
  vec_eq(s.wind, 0, 0, 0);
  drape_scene_free(&s);
}

/* The example must stay the one in DESIGN.md: when the shared notes are
 * next to the checkout (the development layout), compare the text. */
static void test_design_example_is_verbatim(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/../shared/DESIGN.md", drape_test_source_dir());
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "note: %s not present; verbatim check skipped\n", path);
    skip();
  }
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  assert_non_null(strstr(text, DESIGN_EXAMPLE));
}

static void test_defaults(void **state) {
  (void)state;
  drape_scene s;
  assert_int_equal(parse_ok("{}", &s), 0);
  /* The documented defaults (docs/scenes.md). */
  vec_eq(s.gravity, 0, -9.81, 0);
  assert_near(s.dt, 1.0 / 60.0, 0);
  assert_int_equal(s.substeps, 20);
  assert_int_equal(s.iterations, 1);
  vec_eq(s.wind, 0, 0, 0);
  assert_near(s.wind_drag, 1.2, 0);
  assert_int_equal(s.has_floor, 0);
  assert_int_equal(s.n_cloth + s.n_rope + s.n_string + s.n_sphere, 0);
  assert_int_equal(s.frames, 0);
  drape_scene_free(&s);
  /* Presentation defaults: the render def's (drape/render_def.h). */
  drape_render_def v;
  drape_err e = {0};
  assert_int_equal(drape_render_def_parse("{}", "x", &v, &e), 0);
  assert_int_equal(v.camera.has_eye, 0);
  assert_int_equal(v.camera.has_target, 0);
  assert_near(v.camera.fov_deg, 45, 0);
  assert_int_equal(v.width, 1280);
  assert_int_equal(v.height, 720);
  drape_render_def d = drape_render_def_default();
  assert_memory_equal(&d, &v, sizeof d);
  assert_int_equal(drape_render_def_validate(&d, &e), 0);

  assert_int_equal(parse_ok("{\"cloth\": [{}, {}], \"rope\": [{}], \"string\": [{}],"
                            " \"sphere\": [{}], \"floor\": {}}",
                            &s),
                   0);
  assert_int_equal(s.n_cloth, 2);
  assert_string_equal(s.cloth[0].name, "cloth0");
  assert_string_equal(s.cloth[1].name, "cloth1");
  assert_string_equal(s.rope[0].name, "rope0");
  assert_string_equal(s.string[0].name, "string0");
  assert_int_equal(s.has_floor, 1);
  assert_near(s.floor_height, 0, 0);
  assert_near(s.floor_friction, 0.5, 0);

  const drape_cloth_def *c = &s.cloth[0];
  assert_int_equal(c->cols, 32);
  assert_int_equal(c->rows, 32);
  assert_near(c->spacing, 0.02, 0);
  vec_eq(c->origin, 0, 0, 0);
  assert_int_equal(c->plane, DRAPE_PLANE_XZ);
  assert_near(c->mass_per_area, 0.2, 0);
  assert_near(c->particle_mass, 0, 0);
  assert_near(c->compliance_stretch, 0, 0);
  assert_near(c->compliance_shear, 1e-6, 0);
  assert_near(c->compliance_bend, 1e-3, 0);
  assert_near(c->damping, 0.01, 0);
  assert_near(c->thickness, 0.01, 0);
  assert_int_equal(c->self_collision, 0);
  assert_near(c->self_friction, 0.2, 0);
  assert_int_equal(c->self_mode, DRAPE_SELF_VERTEX_TRIANGLE);
  assert_int_equal(c->tethers, 1);
  assert_near(c->tear_ratio, 0, 0);
  assert_near(c->drape_disk_radius, 0, 0);
  assert_int_equal(c->solver, DRAPE_SOLVER_XPBD);
  assert_near(c->stiffness, 5000, 0);
  assert_near(c->spring_damping, 10, 0);
  assert_near(c->bend_stiffness, 0, 0);
  assert_int_equal(c->n_pins, 0);
  assert_null(c->pins);
  assert_int_equal(c->n_pin_paths, 0);

  const drape_rope_def *r = &s.rope[0];
  assert_int_equal(r->segments, 40);
  vec_eq(r->start, -1, 2, 0);
  vec_eq(r->end, 1, 2, 0);
  assert_near(r->length, 2, 0);
  assert_near(r->mass_per_length, 0.1, 0);
  assert_near(r->compliance, 0, 0);
  assert_near(r->damping, 0.01, 0);
  assert_near(r->thickness, 0.01, 0);
  assert_int_equal(r->pin_start, 1);
  assert_int_equal(r->pin_end, 0);
  assert_int_equal(r->solver, DRAPE_SOLVER_XPBD);
  assert_near(r->ym, 40, 0);

  /* Seed 000 §7.17's values. */
  const drape_string_def *g = &s.string[0];
  assert_int_equal(g->nodes, 80);
  assert_near(g->length, 4, 0);
  assert_near(g->mu, 0.02, 0);
  assert_near(g->EA, 100, 0);
  assert_near(g->etaA, 30, 0);
  assert_near(g->B, 1e-4, 0);
  assert_near(g->D, 1e-5, 0);
  assert_near(g->h, 1e-4, 0);
  assert_near(g->anchor[0], -1.6, 1e-15);
  assert_near(g->anchor[1], 2.6, 1e-15);
  assert_int_equal(g->n_hand, 0);
  assert_true(g->release_at < 0);

  vec_eq(s.sphere[0].center, 0, 0.5, 0);
  assert_near(s.sphere[0].radius, 0.4, 0);
  assert_near(s.sphere[0].friction, 0.3, 0);
  drape_scene_free(&s);
}

/* Many of DESIGN.md's values equal the defaults, so the example alone
 * cannot show a key landing in the wrong field: the same keys again, each
 * with a value that differs from its default and from its neighbours. */
static void test_design_keys_nondefault(void **state) {
  (void)state;
  static const char json[] =
      "{ \"gravity\": [0.1, -9.7, 0.2], \"dt\": 0.01, \"substeps\": 7, \"iterations\": 3,\n"
      "  \"cloth\": [{ \"name\": \"c\", \"grid\": { \"cols\": 9, \"rows\": 11, \"spacing\": 0.05,\n"
      "       \"origin\": [1, 2, 3], \"plane\": \"xy\" }, \"mass_per_area\": 0.3,\n"
      "       \"compliance\": { \"stretch\": 1e-7, \"shear\": 2e-6, \"bend\": 3e-3 },\n"
      "       \"damping\": 0.02, \"thickness\": 0.006, \"self_collision\": false,\n"
      "       \"pins\": [[10, 8], [3, 0], [0, 5]] }],\n"
      "  \"rope\": [{ \"name\": \"r\", \"segments\": 12, \"start\": [4, 5, 6], \"end\": [7, 8, 9],\n"
      "       \"length\": 6.5, \"mass_per_length\": 0.7, \"compliance\": 1e-4, \"damping\": 0.3,\n"
      "       \"pin_start\": false, \"pin_end\": true }],\n"
      "  \"string\": [{ \"name\": \"s\", \"nodes\": 40, \"length\": 2.5, \"anchor\": [0.5, 1.5],\n"
      "       \"z\": -0.4, \"hand\": [[0.25, 1.9, 1.4], [0.75, 1.1, 0.6], [1.5, 0.8, 0.2]],\n"
      "       \"release_at\": 1.75 }],\n"
      "  \"sphere\": [{ \"center\": [0.2, 0.3, 0.4], \"radius\": 0.55, \"friction\": 0.15 }],\n"
      "  \"floor\": { \"height\": -0.25, \"friction\": 0.35 },\n"
      "  \"wind\": [0.5, -0.25, 2] }";
  drape_scene s;
  assert_int_equal(parse_ok(json, &s), 0);
  vec_eq(s.gravity, 0.1, -9.7, 0.2);
  assert_near(s.dt, 0.01, 0);
  assert_int_equal(s.substeps, 7);
  assert_int_equal(s.iterations, 3);
  const drape_cloth_def *c = &s.cloth[0];
  assert_string_equal(c->name, "c");
  assert_int_equal(c->cols, 9);
  assert_int_equal(c->rows, 11);
  assert_near(c->spacing, 0.05, 0);
  vec_eq(c->origin, 1, 2, 3);
  assert_int_equal(c->plane, DRAPE_PLANE_XY);
  assert_near(c->mass_per_area, 0.3, 0);
  assert_near(c->compliance_stretch, 1e-7, 0);
  assert_near(c->compliance_shear, 2e-6, 0);
  assert_near(c->compliance_bend, 3e-3, 0);
  assert_near(c->damping, 0.02, 0);
  assert_near(c->thickness, 0.006, 0);
  assert_int_equal(c->self_collision, 0);
  assert_int_equal(c->n_pins, 3);
  assert_int_equal(c->pins[0][0], 10); /* [row, col] */
  assert_int_equal(c->pins[0][1], 8);
  assert_int_equal(c->pins[1][0], 3);
  assert_int_equal(c->pins[1][1], 0);
  assert_int_equal(c->pins[2][1], 5);
  const drape_rope_def *r = &s.rope[0];
  assert_string_equal(r->name, "r");
  assert_int_equal(r->segments, 12);
  vec_eq(r->start, 4, 5, 6);
  vec_eq(r->end, 7, 8, 9);
  assert_near(r->length, 6.5, 0);
  assert_near(r->mass_per_length, 0.7, 0);
  assert_near(r->compliance, 1e-4, 0);
  assert_near(r->damping, 0.3, 0);
  assert_int_equal(r->pin_start, 0);
  assert_int_equal(r->pin_end, 1);
  const drape_string_def *g = &s.string[0];
  assert_string_equal(g->name, "s");
  assert_int_equal(g->nodes, 40);
  assert_near(g->length, 2.5, 0);
  assert_near(g->anchor[0], 0.5, 0);
  assert_near(g->anchor[1], 1.5, 0);
  assert_near(g->z, -0.4, 0);
  assert_int_equal(g->n_hand, 3);
  vec_eq(g->hand[0], 0.25, 1.9, 1.4);
  vec_eq(g->hand[2], 1.5, 0.8, 0.2);
  assert_near(g->release_at, 1.75, 0);
  vec_eq(s.sphere[0].center, 0.2, 0.3, 0.4);
  assert_near(s.sphere[0].radius, 0.55, 0);
  assert_near(s.sphere[0].friction, 0.15, 0);
  assert_int_equal(s.has_floor, 1);
  assert_near(s.floor_height, -0.25, 0);
  assert_near(s.floor_friction, 0.35, 0);
  vec_eq(s.wind, 0.5, -0.25, 2);
  drape_scene_free(&s);
}

/* Every key beyond DESIGN.md's example, each set to a non-default value. */
static void test_extension_keys(void **state) {
  (void)state;
  static const char json[] =
      "{ \"description\": \"all keys\", \"wind_drag\": 0.7, \"frames\": 123,\n"
      "  \"camera\": {\"eye\": [1, 2, 3], \"target\": [0, 0.5, 0], \"fov_deg\": 60},\n"
      "  \"render\": {\"width\": 640, \"height\": 480},\n"
      "  \"wind\": [1, 0, -2],\n"
      "  \"cloth\": [{\"grid\": {\"cols\": 8, \"rows\": 5, \"plane\": \"yz\"},\n"
      "     \"tethers\": false, \"solver\": \"springs\",\n"
      "     \"stiffness\": 2500, \"spring_damping\": 3.5, \"bend_stiffness\": 100,\n"
      "     \"particle_mass\": 0.25, \"self_collision\": true, \"self_friction\": 0.6,\n"
      "     \"self_collision_mode\": \"particle\", \"thickness\": 0.004,\n"
      "     \"pin_paths\": [{\"pin\": [4, 7], \"keys\": [[0, 1, 2, 3], [0.5, 1, 2.5, 3]]}],\n"
      "     \"color_front\": [1, 0, 0], \"color_back\": [0, 0.5, 1]},\n"
      "   {\"grid\": {\"plane\": \"xy\"}, \"solver\": \"jakobsen\", \"tear_ratio\": 1.5,\n"
      "    \"drape_disk_radius\": 0.09}],\n"
      "  \"rope\": [{\"solver\": \"implicit\", \"ym\": 160, \"thickness\": 0.03,\n"
      "            \"color\": [0.1, 0.2, 0.3], \"pin_end\": true, \"pin_start\": false},\n"
      "           {\"solver\": \"jakobsen\"}, {\"solver\": \"xpbd\"}],\n"
      "  \"string\": [{\"mu\": 0.05, \"EA\": 200, \"etaA\": 10, \"B\": 2e-4, \"D\": 3e-5,\n"
      "              \"h\": 5e-5, \"z\": 0.25, \"color\": [0, 1, 0]}],\n"
      "  \"sphere\": [{\"velocity\": [0.5, 0, -1]}, {\"center\": [1, 1, 1], \"radius\": 0.1}]\n"
      "}";
  drape_scene s;
  assert_int_equal(parse_ok(json, &s), 0);
  assert_near(s.wind_drag, 0.7, 0);
  assert_int_equal(s.frames, 123);
  /* camera and render: the render def read from the same text */
  drape_render_def v;
  drape_err ev = {0};
  assert_int_equal(drape_render_def_parse(json, "x", &v, &ev), 0);
  assert_int_equal(v.camera.has_eye, 1);
  assert_int_equal(v.camera.has_target, 1);
  vec_eq(v.camera.eye, 1, 2, 3);
  vec_eq(v.camera.target, 0, 0.5, 0);
  assert_near(v.camera.fov_deg, 60, 0);
  assert_int_equal(v.width, 640);
  assert_int_equal(v.height, 480);
  vec_eq(s.wind, 1, 0, -2);
  assert_int_equal(s.has_floor, 0);

  const drape_cloth_def *c = &s.cloth[0];
  assert_int_equal(c->cols, 8);
  assert_int_equal(c->rows, 5);
  assert_int_equal(c->plane, DRAPE_PLANE_YZ);
  assert_int_equal(c->tethers, 0);
  assert_near(s.cloth[1].tear_ratio, 1.5, 0); /* the springs solver does not tear */
  assert_near(s.cloth[1].drape_disk_radius, 0.09, 0);
  assert_int_equal(c->solver, DRAPE_SOLVER_SPRINGS);
  assert_near(c->stiffness, 2500, 0);
  assert_near(c->spring_damping, 3.5, 0);
  assert_near(c->bend_stiffness, 100, 0);
  assert_near(c->particle_mass, 0.25, 0);
  assert_int_equal(c->self_collision, 1);
  assert_near(c->self_friction, 0.6, 0);
  assert_int_equal(c->self_mode, DRAPE_SELF_PARTICLE);
  assert_near(c->thickness, 0.004, 0);
  assert_int_equal(c->n_pin_paths, 1);
  assert_int_equal(c->pin_paths[0].row, 4);
  assert_int_equal(c->pin_paths[0].col, 7);
  assert_int_equal(c->pin_paths[0].n_keys, 2);
  assert_near(c->pin_paths[0].keys[0][0], 0, 0);
  assert_near(c->pin_paths[0].keys[0][3], 3, 0);
  assert_near(c->pin_paths[0].keys[1][0], 0.5, 0);
  assert_near(c->pin_paths[0].keys[1][2], 2.5, 0);
  /* colours: presentation, in the render def, keyed by the scene index */
  float fr[3], bk[3];
  assert_int_equal(v.n_looks, 3);
  drape_render_def_color(&v, DRAPE_LOOK_CLOTH, 0, fr, bk);
  fvec_eq(fr, 1, 0, 0);
  fvec_eq(bk, 0, 0.5, 1);
  drape_render_def_color(&v, DRAPE_LOOK_CLOTH, 1, fr, bk); /* none given: the defaults */
  fvec_eq(fr, 0.90f, 0.45f, 0.15f);
  fvec_eq(bk, 0.20f, 0.40f, 0.85f);
  drape_render_def_color(&v, DRAPE_LOOK_ROPE, 0, fr, bk);
  fvec_eq(fr, 0.1f, 0.2f, 0.3f);
  fvec_eq(bk, 0.1f, 0.2f, 0.3f);
  drape_render_def_color(&v, DRAPE_LOOK_STRING, 0, fr, bk);
  fvec_eq(fr, 0, 1, 0);
  drape_render_def_free(&v);
  assert_int_equal(s.cloth[1].plane, DRAPE_PLANE_XY);
  assert_int_equal(s.cloth[1].solver, DRAPE_SOLVER_JAKOBSEN);

  assert_int_equal(s.rope[0].solver, DRAPE_SOLVER_IMPLICIT);
  assert_near(s.rope[0].ym, 160, 0);
  assert_near(s.rope[0].thickness, 0.03, 0);
  assert_int_equal(s.rope[0].pin_start, 0);
  assert_int_equal(s.rope[0].pin_end, 1);
  assert_int_equal(s.rope[1].solver, DRAPE_SOLVER_JAKOBSEN);
  assert_int_equal(s.rope[2].solver, DRAPE_SOLVER_XPBD);

  const drape_string_def *g = &s.string[0];
  assert_near(g->mu, 0.05, 0);
  assert_near(g->EA, 200, 0);
  assert_near(g->etaA, 10, 0);
  assert_near(g->B, 2e-4, 0);
  assert_near(g->D, 3e-5, 0);
  assert_near(g->h, 5e-5, 0);
  assert_near(g->z, 0.25, 0);

  vec_eq(s.sphere[0].velocity, 0.5, 0, -1);
  vec_eq(s.sphere[1].center, 1, 1, 1);
  assert_near(s.sphere[1].radius, 0.1, 0);
  drape_scene_free(&s);
}

/* Every scene in scenes/ loads, validates, and holds what its name
 * promises (the seeds' parameters where a scene reproduces a seed). */
static void test_ready_scenes(void **state) {
  (void)state;
  char dir[1024], path[1400];
  snprintf(dir, sizeof dir, "%s/scenes", drape_test_source_dir());
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *ent;
  while ((ent = readdir(d))) {
    size_t len = strlen(ent->d_name);
    if (len < 5 || strcmp(ent->d_name + len - 5, ".json") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    drape_scene s;
    drape_err e = {0};
    int r = drape_scene_load(path, &s, &e);
    if (r) fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(r, 0);
    assert_int_equal(drape_scene_validate(&s, &e), 0);
    assert_true(s.n_cloth + s.n_rope + s.n_string > 0);
    assert_true(s.frames > 0);
    drape_scene_free(&s);
    drape_render_def v;
    r = drape_render_def_load(path, &v, &e);
    if (r) fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(r, 0);
    assert_int_equal(v.camera.has_eye, 1); /* every ready scene frames itself */
    drape_render_def_free(&v);
    n++;
  }
  closedir(d);
  assert_true(n >= 9);
}

static void load_scene(const char *name, drape_scene *s) {
  char path[1200];
  snprintf(path, sizeof path, "%s/scenes/%s", drape_test_source_dir(), name);
  drape_err e = {0};
  int r = drape_scene_load(path, s, &e);
  if (r) fprintf(stderr, "%s\n", e.msg);
  assert_int_equal(r, 0);
}

static void test_ready_scene_contents(void **state) {
  (void)state;
  drape_scene s;

  load_scene("drape_sphere.json", &s);
  assert_int_equal(s.n_cloth, 1);
  assert_int_equal(s.cloth[0].cols, 64);
  assert_int_equal(s.cloth[0].n_pins, 0); /* it falls freely */
  assert_int_equal(s.n_sphere, 1);
  assert_int_equal(s.has_floor, 1);
  /* The cloth starts above the sphere and covers it. */
  assert_true(s.cloth[0].origin[1] > s.sphere[0].center[1] + s.sphere[0].radius);
  assert_true(s.cloth[0].spacing * (s.cloth[0].cols - 1) > 2 * s.sphere[0].radius);
  drape_scene_free(&s);

  load_scene("hanging_rope.json", &s);
  assert_int_equal(s.n_rope, 1);
  assert_true(s.rope[0].pin_start && s.rope[0].pin_end);
  {
    double dx = s.rope[0].end[0] - s.rope[0].start[0], dy = s.rope[0].end[1] - s.rope[0].start[1];
    assert_true(s.rope[0].length > sqrt(dx * dx + dy * dy)); /* slack */
  }
  drape_scene_free(&s);

  load_scene("wind_cloth.json", &s);
  assert_int_equal(s.cloth[0].n_pins, 2);
  assert_int_equal(s.cloth[0].pins[1][1], s.cloth[0].cols - 1);
  assert_true(fabs(s.wind[2]) > 0);
  drape_scene_free(&s);

  load_scene("large_cloth.json", &s);
  assert_int_equal(s.cloth[0].cols, 256);
  assert_int_equal(s.cloth[0].rows, 256);
  assert_int_equal(s.cloth[0].n_pins, 2);
  assert_int_equal(s.cloth[0].tethers, 1);
  assert_int_equal(s.substeps, 20);
  assert_int_equal(s.iterations, 1);
  assert_int_equal(s.n_sphere, 1);
  drape_scene_free(&s);

  /* Seed 000 §7.16/§7.17: anchor (-0.4 L0, 0.65 L0), the hand starts where
   * the straight string ends, within the 4.6 m reach (§7.15). */
  load_scene("string_hand.json", &s);
  assert_int_equal(s.n_string, 1);
  {
    const drape_string_def *g = &s.string[0];
    assert_int_equal(g->nodes, 80);
    assert_near(g->anchor[0], -1.6, 0);
    assert_near(g->anchor[1], 2.6, 0);
    assert_near(g->hand[0][1], g->anchor[0] + g->length, 1e-12);
    assert_near(g->hand[0][2], g->anchor[1], 0);
    for (int i = 0; i < g->n_hand; i++)
      assert_true(hypot(g->hand[i][1] - g->anchor[0], g->hand[i][2] - g->anchor[1]) <= 4.6);
    assert_true(g->release_at > g->hand[g->n_hand - 1][0]);
    assert_true(g->release_at < s.frames * s.dt);
  }
  drape_scene_free(&s);

  load_scene("strip_fold.json", &s);
  assert_int_equal(s.cloth[0].self_collision, 1);
  assert_near(s.cloth[0].thickness, 0.01, 0);
  assert_near(s.cloth[0].spacing, 0.03, 0);
  assert_true(s.cloth[0].rows >= 5 * s.cloth[0].cols); /* a long strip */
  drape_scene_free(&s);

  load_scene("two_sheets.json", &s);
  assert_int_equal(s.n_cloth, 2);
  for (int i = 0; i < 2; i++) assert_near(s.cloth[i].spacing, 3 * s.cloth[i].thickness, 1e-15);
  assert_true(s.cloth[1].origin[1] > s.cloth[0].origin[1]);
  assert_int_equal(s.n_sphere, 1);
  drape_scene_free(&s);

  /* Seed 001's defaults. */
  load_scene("springs_seed001.json", &s);
  assert_int_equal(s.cloth[0].solver, DRAPE_SOLVER_SPRINGS);
  assert_int_equal(s.cloth[0].cols, 40);
  assert_int_equal(s.cloth[0].rows, 30);
  assert_near(s.cloth[0].spacing, 0.2, 0);
  assert_near(s.cloth[0].stiffness, 5000, 0);
  assert_near(s.cloth[0].spring_damping, 10, 0);
  assert_near(s.cloth[0].particle_mass, 0.5, 0);
  assert_near(s.cloth[0].mass_per_area * s.cloth[0].spacing * s.cloth[0].spacing, 0.5, 1e-12);
  assert_near(s.cloth[0].bend_stiffness, 0, 0);
  assert_near(s.dt, 0.005, 0);
  assert_int_equal(s.substeps, 1);
  assert_near(s.gravity[1], -9.81, 0);
  assert_int_equal(s.cloth[0].n_pins, 2);
  drape_scene_free(&s);

  /* Seed 003's cable. */
  load_scene("cable_seed003.json", &s);
  assert_int_equal(s.rope[0].solver, DRAPE_SOLVER_IMPLICIT);
  assert_int_equal(s.rope[0].segments + 1, 21);
  assert_near(s.rope[0].length, 4, 0);
  assert_near(s.rope[0].end[0] - s.rope[0].start[0], 4, 0);
  assert_near(s.rope[0].ym, 40, 0);
  assert_near(s.rope[0].mass_per_length, 1, 0);
  assert_near(s.gravity[1], -9.8, 0);
  assert_true(s.rope[0].pin_start && s.rope[0].pin_end);
  drape_scene_free(&s);
}

/* ---- bad input ---------------------------------------------------------- */

typedef struct bad_case {
  const char *json;
  const char *want[3]; /* substrings the message must contain */
} bad_case;

static const bad_case BAD[] = {
    /* ranges */
    {"{\"cloth\": [{\"grid\": {\"spacing\": -0.1}}]}", {"cloth[0].grid.spacing = -0.1", "must be > 0"}},
    {"{\"cloth\": [{\"grid\": {\"spacing\": 0}}]}", {"cloth[0].grid.spacing = 0", "must be > 0"}},
    {"{\"cloth\": [{\"mass_per_area\": -1}]}", {"cloth[0].mass_per_area = -1", "must be > 0"}},
    {"{\"cloth\": [{\"grid\": {\"cols\": 64, \"rows\": 64}, \"pins\": [[0, 0], [70, 3]]}]}",
     {"cloth[0].pins[1] = [70, 3]", "outside the 64x64 grid (rows 0..63, cols 0..63)"}},
    {"{\"cloth\": [{\"grid\": {\"cols\": 10, \"rows\": 4}, \"pins\": [[0, -1]]}]}",
     {"cloth[0].pins[0] = [0, -1]", "4x10 grid (rows 0..3, cols 0..9)"}},
    {"{\"cloth\": [{}, {\"pin_paths\": [{\"pin\": [0, 32], \"keys\": [[0, 0, 0, 0]]}]}]}",
     {"cloth[1].pin_paths[0].pin = [0, 32]", "outside"}},
    {"{\"cloth\": [{\"pin_paths\": [{\"pin\": [0, 0], \"keys\": [[1, 0, 0, 0], [0.5, 0, 0, 0]]}]}]}",
     {"cloth[0].pin_paths[0].keys[1][0] = 0.5", "must increase"}},
    {"{\"cloth\": [{\"pin_paths\": [{\"pin\": [0, 0]}]}]}", {"cloth[0].pin_paths[0].keys", "missing"}},
    {"{\"cloth\": [{\"pin_paths\": [{\"pin\": [0, 0], \"keys\": [[0, 1, 2]]}]}]}",
     {"cloth[0].pin_paths[0].keys[0] = [0, 1, 2]", "4 numbers [t, x, y, z]"}},
    {"{\"cloth\": [{\"grid\": {\"cols\": 1}}]}", {"cloth[0].grid.cols = 1", ">= 2"}},
    {"{\"cloth\": [{\"grid\": {\"cols\": 64.5}}]}", {"cloth[0].grid.cols = 64.5", "expected an integer"}},
    {"{\"cloth\": [{\"grid\": {\"rows\": 1e10}}]}", {"cloth[0].grid.rows = 10000000000", "expected an integer"}},
    {"{\"cloth\": [{\"grid\": {\"cols\": 8192, \"rows\": 8192}}]}", {"cloth[0].grid = 8192 rows x 8192 cols", "at most"}},
    {"{\"cloth\": [{\"grid\": {\"plane\": \"xw\"}}]}", {"cloth[0].grid.plane = \"xw\"", "\"xz\", \"xy\", \"yz\""}},
    {"{\"cloth\": [{\"compliance\": {\"stretch\": -1e-6}}]}", {"cloth[0].compliance.stretch = -1e-06", ">= 0"}},
    {"{\"cloth\": [{\"compliance\": 0.001}]}", {"cloth[0].compliance = 0.001", "expected an object"}},
    {"{\"cloth\": [{\"compliance\": {\"twist\": 1}}]}", {"cloth[0].compliance.twist", "unknown key (allowed: stretch, shear, bend)"}},
    {"{\"cloth\": [{\"thickness\": 0}]}", {"cloth[0].thickness = 0", "must be > 0"}},
    {"{\"cloth\": [{\"damping\": -0.5}]}", {"cloth[0].damping = -0.5", ">= 0"}},
    {"{\"cloth\": [{\"tear_ratio\": 0.5}]}", {"cloth[0].tear_ratio = 0.5", "0 (no tearing) or > 1"}},
    /* the default 32 x 32 grid, 2 cm: rest area 0.3844 m^2, radius 0.349798 m */
    {"{\"cloth\": [{\"drape_disk_radius\": 0.5}]}",
     {"cloth[0].drape_disk_radius = 0.5", "must be 0 (no drape test) or > 0 and < 0.349798 m",
      "rest area 0.3844 m^2"}},
    {"{\"cloth\": [{}, {\"drape_disk_radius\": -0.09}]}",
     {"cloth[1].drape_disk_radius = -0.09", "or > 0 and < 0.349798 m"}},
    {"{\"cloth\": [{\"drape_disk_radius\": 1e999}]}",
     {"cloth[0].drape_disk_radius = inf", "must be a finite number"}},
    {"{\"cloth\": [{\"drape_disk_radius\": \"0.09\"}]}",
     {"cloth[0].drape_disk_radius = \"0.09\"", "expected a number"}},
    {"{\"cloth\": [{\"solver\": \"implicit\"}]}", {"cloth[0].solver = \"implicit\"", "ropes only"}},
    {"{\"cloth\": [{\"solver\": \"verlet\"}]}", {"cloth[0].solver = \"verlet\"", "\"xpbd\", \"jakobsen\", \"springs\""}},
    {"{\"cloth\": [{\"self_collision_mode\": \"edges\"}]}", {"cloth[0].self_collision_mode = \"edges\"", "\"vertex-triangle\", \"particle\""}},
    {"{\"cloth\": [{\"self_collision\": 1}]}", {"cloth[0].self_collision = 1", "expected true or false"}},
    {"{\"cloth\": [{\"stiffness\": 0}]}", {"cloth[0].stiffness = 0", "must be > 0"}},
    {"{\"cloth\": [{\"particle_mass\": -0.5}]}", {"cloth[0].particle_mass = -0.5", ">= 0"}},
    {"{\"cloth\": [{\"color_front\": [1, 2, 0]}]}", {"cloth[0].color_front[1] = 2", "<= 1"}},
    {"{\"cloth\": [{\"color_back\": [1, 0]}]}", {"cloth[0].color_back = [1, 0]", "3 numbers"}},
    {"{\"cloth\": [{\"pins\": [[0, 0, 0]]}]}", {"cloth[0].pins[0] = [0, 0, 0]", "[row, col]"}},
    {"{\"cloth\": [{\"pins\": [0, 0]}]}", {"cloth[0].pins[0] = 0", "[row, col]"}},
    {"{\"cloth\": [{\"pins\": {\"a\": 1}}]}", {"cloth[0].pins = {\"a\": 1}", "array of [row, col]"}},
    {"{\"cloth\": [{\"grid\": {\"origin\": [0, 1]}}]}", {"cloth[0].grid.origin = [0, 1]", "3 numbers [x, y, z]"}},
    {"{\"cloth\": [{\"grid\": {\"origin\": [0, \"up\", 0]}}]}", {"cloth[0].grid.origin[1] = \"up\"", "expected a number"}},
    {"{\"cloth\": [{\"name\": \"my sheet\"}]}", {"cloth[0].name = \"my sheet\"", "letters, digits"}},
    {"{\"cloth\": [{\"name\": 5}]}", {"cloth[0].name = 5", "expected a string"}},
    {"{\"cloth\": [{\"name\": \"a\"}], \"rope\": [{\"name\": \"a\"}]}", {"rope[0].name = \"a\"", "already used by cloth[0]"}},
    {"{\"cloth\": {\"name\": \"a\"}}", {"cloth = {\"name\": \"a\"}", "expected an array of objects"}},
    {"{\"cloth\": [5]}", {"cloth[0] = 5", "expected an object"}},
    /* rope */
    {"{\"rope\": [{\"colour\": [1, 0, 0]}]}", {"rope[0].colour", "unknown key (allowed: name, segments,", "color"}},
    {"{\"rope\": [{\"compliance\": {\"stretch\": 0}}]}", {"rope[0].compliance = {\"stretch\": 0}", "expected a number"}},
    {"{\"rope\": [{\"segments\": 0}]}", {"rope[0].segments = 0", ">= 1"}},
    {"{\"rope\": [{\"length\": -4}]}", {"rope[0].length = -4", "must be > 0"}},
    {"{\"rope\": [{\"mass_per_length\": 0}]}", {"rope[0].mass_per_length = 0", "must be > 0"}},
    {"{\"rope\": [{\"solver\": \"springs\"}]}", {"rope[0].solver = \"springs\"", "cloth only"}},
    {"{\"rope\": [{\"ym\": -40}]}", {"rope[0].ym = -40", "must be > 0"}},
    {"{\"rope\": [{\"pin_end\": \"yes\"}]}", {"rope[0].pin_end = \"yes\"", "expected true or false"}},
    {"{\"rope\": [{\"start\": [0, 1e999, 0]}]}", {"rope[0].start[1] = inf", "finite"}},
    /* string */
    {"{\"string\": [{\"hand\": [[0, 1, 1], [0, 2, 2]]}]}", {"string[0].hand[1][0] = 0", "must increase"}},
    {"{\"string\": [{\"hand\": [[0, 1]]}]}", {"string[0].hand[0] = [0, 1]", "3 numbers [t, x, y]"}},
    {"{\"string\": [{\"release_at\": 2}]}", {"string[0].release_at = 2", "nothing is held"}},
    {"{\"string\": [{\"hand\": [[1, 1, 1]], \"release_at\": 0.5}]}", {"string[0].release_at = 0.5", "first hand time"}},
    {"{\"string\": [{\"nodes\": 1}]}", {"string[0].nodes = 1", ">= 2"}},
    {"{\"string\": [{\"EA\": 0}]}", {"string[0].EA = 0", "must be > 0"}},
    {"{\"string\": [{\"h\": 0.5}]}", {"string[0].h = 0.5", "<= 0.01"}},
    {"{\"string\": [{\"anchor\": [1, 2, 3]}]}", {"string[0].anchor = [1, 2, 3]", "2 numbers [x, y]"}},
    {"{\"string\": [{\"Ea\": 100}]}", {"string[0].Ea", "unknown key", "EA"}},
    /* sphere, floor, camera, render */
    {"{\"sphere\": [{\"radius\": -0.4}]}", {"sphere[0].radius = -0.4", "must be > 0"}},
    {"{\"sphere\": [{}, {\"friction\": -1}]}", {"sphere[1].friction = -1", ">= 0"}},
    {"{\"sphere\": [{\"velocity\": \"fast\"}]}", {"sphere[0].velocity = \"fast\"", "3 numbers"}},
    {"{\"sphere\": {\"radius\": 1}}", {"sphere = {\"radius\": 1}", "expected an array"}},
    {"{\"floor\": {\"friction\": -0.5}}", {"floor.friction = -0.5", ">= 0"}},
    {"{\"floor\": {\"level\": 0}}", {"floor.level", "unknown key (allowed: height, friction)"}},
    {"{\"floor\": true}", {"floor = true", "expected an object"}},
    {"{\"camera\": {\"fov_deg\": 0}}", {"camera.fov_deg = 0", ">= 1"}},
    {"{\"camera\": {\"eye\": [1, 1, 1], \"target\": [1, 1, 1]}}", {"camera.eye = camera.target"}},
    {"{\"render\": {\"width\": 8}}", {"render.width = 8", ">= 16 and <= 8192"}},
    {"{\"render\": {\"height\": 100000}}", {"render.height = 100000", "<= 8192"}},
    /* top level */
    {"{\"dt\": \"fast\"}", {"dt = \"fast\"", "expected a number"}},
    {"{\"dt\": 0}", {"dt = 0", "must be > 0"}},
    {"{\"dt\": -0.01}", {"dt = -0.01", "must be > 0"}},
    {"{\"dt\": 1e999}", {"dt = inf", "finite"}},
    {"{\"dt\": -1e999}", {"dt = -inf", "finite"}},
    {"{\"substeps\": 0}", {"substeps = 0", ">= 1"}},
    {"{\"substeps\": 1000000}", {"substeps = 1000000", "<= 10000"}},
    {"{\"iterations\": -3}", {"iterations = -3", ">= 1"}},
    {"{\"iterations\": 2.5}", {"iterations = 2.5", "expected an integer"}},
    {"{\"frames\": -1}", {"frames = -1", ">= 0"}},
    {"{\"gravity\": [0, -9.81]}", {"gravity = [0, -9.81]", "3 numbers"}},
    {"{\"gravity\": [0, -9810, 0]}", {"gravity[1] = -9810", ">= -1000"}},
    {"{\"wind\": null}", {"wind = null", "3 numbers"}},
    {"{\"wind_drag\": -1}", {"wind_drag = -1", ">= 0"}},
    {"{\"substep\": 20}", {"substep: unknown key", "substeps"}},
    {"{\"dt\": 0.01, \"dt\": 0.02}", {"dt: duplicate key"}},
    {"{\"cloth\": [{\"grid\": {\"cols\": 4, \"cols\": 5}}]}", {"cloth[0].grid.cols: duplicate key"}},
    {"[1, 2]", {"scene = [1, 2]", "JSON object"}},
    {"42", {"scene = 42", "JSON object"}},
    /* material (docs/scenes.md "Material") */
    {"{\"cloth\": [{\"material\": \"densim\"}]}",
     {"cloth[0].material = \"densim\"", "unknown material preset", "\"denim\", \"silk\""}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"velvet\"}}]}",
     {"cloth[0].material.preset = \"velvet\"", "unknown material preset", "\"cotton_shirting\""}},
    {"{\"cloth\": [{\"material\": 5}]}", {"cloth[0].material = 5", "expected a preset name or an object"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"twist\": 1}}]}",
     {"cloth[0].material.twist", "unknown key (allowed: preset, density, stretch, shear, bend, damping)"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"preset\": \"silk\"}}]}",
     {"cloth[0].material.preset: duplicate key"}},
    {"{\"cloth\": [{\"material\": {\"density\": 0.2, \"stretch\": 5000, \"bend\": 1e-5}}]}",
     {"cloth[0].material.shear: missing", "without \"preset\""}},
    {"{\"cloth\": [{\"material\": {\"stretch\": 5000, \"shear\": 50, \"bend\": 1e-5}}]}",
     {"cloth[0].material.density: missing"}},
    {"{\"cloth\": [{\"material\": {\"density\": 0.2, \"shear\": 50, \"bend\": 1e-5}}]}",
     {"cloth[0].material.stretch: missing"}},
    {"{\"cloth\": [{\"material\": {\"density\": 0.2, \"stretch\": 5000, \"shear\": 50}}]}",
     {"cloth[0].material.bend: missing"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"stretch\": [5000, 6000, 7000]}}]}",
     {"cloth[0].material.stretch = [5000, 6000, 7000]", "[warp, weft] in N/m"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"bend\": \"stiff\"}}]}",
     {"cloth[0].material.bend = \"stiff\"", "[warp, weft] in N m"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"density\": -0.3}}]}",
     {"cloth[0].material.density = -0.3", "must be > 0 and <= 10000"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"density\": 2e4}}]}",
     {"cloth[0].material.density = 20000", "<= 10000"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"stretch\": [5000, -1]}}]}",
     {"cloth[0].material.stretch[1] = -1", "must be > 0 and <= 1000000000"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"stretch\": 0}}]}",
     {"cloth[0].material.stretch[0] = 0", "must be > 0"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"stretch\": 1e999}}]}",
     {"cloth[0].material.stretch = inf", "finite"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"stretch\": [1, -1e999]}}]}",
     {"cloth[0].material.stretch[1] = -inf", "finite"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"shear\": -5}}]}",
     {"cloth[0].material.shear = -5", "must be >= 0 and <= 1000000000"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"bend\": [1e-5, -1e-6]}}]}",
     {"cloth[0].material.bend[1] = -1e-06", "must be >= 0 and <= 1000"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"bend\": 5000}}]}",
     {"cloth[0].material.bend[0] = 5000", "<= 1000"}},
    {"{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"damping\": 2e6}}]}",
     {"cloth[0].material.damping = 2000000", "must be < 0", "<= 1000000"}},
    {"{\"cloth\": [{\"material\": \"denim\", \"compliance\": {\"bend\": 1e-3}}]}",
     {"cloth[0].compliance = {\"bend\": 0.001}", "not with cloth[0].material"}},
    {"{\"cloth\": [{\"compliance\": {\"bend\": 1e-3}, \"material\": \"denim\"}]}",
     {"cloth[0].compliance", "not with cloth[0].material"}},
    {"{\"cloth\": [{\"material\": \"denim\", \"mass_per_area\": 0.3}]}",
     {"cloth[0].mass_per_area = 0.3", "not with cloth[0].material"}},
    {"{\"cloth\": [{\"material\": \"denim\", \"particle_mass\": 0.5}]}",
     {"cloth[0].particle_mass = 0.5", "not with cloth[0].material"}},
    {"{\"cloth\": [{\"material\": \"denim\", \"solver\": \"jakobsen\"}]}",
     {"cloth[0].solver = \"jakobsen\"", "not with cloth[0].material", "\"xpbd\""}},
    {"{\"cloth\": [{\"solver\": \"springs\", \"material\": \"silk\"}]}",
     {"cloth[0].solver = \"springs\"", "not with cloth[0].material"}},
    {"{\"cloth\": [{\"material\": \"denim\", \"tear_ratio\": 1.5}]}",
     {"cloth[0].tear_ratio = 1.5", "not with cloth[0].material"}},
    {"{\"cloth\": [{}, {}, {\"material\": {\"preset\": \"silk\", \"stretch\": [3000, -2]}}]}",
     {"cloth[2].material.stretch[1] = -2", "must be > 0"}},
    {"{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": 2000, \"shear\": 3}}]}",
     {"rope[0].material.shear = 3", "a rope has no shear"}},
    {"{\"rope\": [{\"material\": \"denim\"}]}", {"rope[0].material = \"denim\"", "cloth materials"}},
    {"{\"rope\": [{\"material\": {\"preset\": \"denim\"}}]}",
     {"rope[0].material.preset = \"denim\"", "cloth materials"}},
    {"{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": [1, 2]}}]}",
     {"rope[0].material.stretch = [1, 2]", "one number", "no warp and weft"}},
    {"{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": 10, \"bend\": [1, 2]}}]}",
     {"rope[0].material.bend = [1, 2]", "one number"}},
    {"{\"rope\": [{\"material\": {\"density\": 0.05}}]}",
     {"rope[0].material.stretch: missing", "EA"}},
    {"{\"rope\": [{\"material\": {\"stretch\": 10}}]}", {"rope[0].material.density: missing"}},
    {"{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": 10, \"twist\": 1}}]}",
     {"rope[0].material.twist", "unknown key (allowed: density, stretch, bend, damping)"}},
    {"{\"rope\": [{\"material\": {\"density\": -1, \"stretch\": 10}}]}",
     {"rope[0].material.density = -1", "must be > 0 and <= 1000000"}},
    {"{\"rope\": [{\"material\": {\"density\": 1, \"stretch\": 0}}]}",
     {"rope[0].material.stretch = 0", "must be > 0 and <= 10000000000"}},
    {"{\"rope\": [{\"material\": {\"density\": 1, \"stretch\": 10, \"bend\": -1}}]}",
     {"rope[0].material.bend = -1", "must be >= 0 and <= 10000000"}},
    {"{\"rope\": [{\"material\": {\"density\": 1, \"stretch\": 10}, \"compliance\": 0}]}",
     {"rope[0].compliance = 0", "not with rope[0].material"}},
    {"{\"rope\": [{\"mass_per_length\": 1, \"material\": {\"density\": 1, \"stretch\": 10}}]}",
     {"rope[0].mass_per_length = 1", "not with rope[0].material"}},
    {"{\"rope\": [{\"material\": {\"density\": 1, \"stretch\": 10}, \"solver\": \"implicit\"}]}",
     {"rope[0].solver = \"implicit\"", "not with rope[0].material"}},
    {"{\"rope\": [{\"material\": {\"density\": 1, \"stretch\": 10}, \"solver\": \"jakobsen\"}]}",
     {"rope[0].solver = \"jakobsen\"", "not with rope[0].material"}},
};

static void test_bad_inputs(void **state) {
  (void)state;
  int failures = 0;
  for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
    drape_scene s;
    drape_err e = {0};
    int r = drape_scene_parse(BAD[i].json, "bad.json", &s, &e);
    int ok = r == DRAPE_EINVAL && e.code == DRAPE_EINVAL && strncmp(e.msg, "bad.json: ", 10) == 0;
    for (int k = 0; k < 3 && BAD[i].want[k]; k++)
      if (!strstr(e.msg, BAD[i].want[k])) ok = 0;
    /* A failed parse leaves an empty scene (nothing to free, nothing half-built). */
    if (s.n_cloth || s.n_rope || s.n_string || s.n_sphere || s.cloth || s.rope) ok = 0;
    if (!ok) {
      fprintf(stderr, "case %zu: %s\n  r=%d msg: %s\n  wanted: %s | %s | %s\n", i, BAD[i].json, r,
              e.msg, BAD[i].want[0], BAD[i].want[1] ? BAD[i].want[1] : "",
              BAD[i].want[2] ? BAD[i].want[2] : "");
      failures++;
    }
    drape_scene_free(&s); /* harmless on the empty scene */
  }
  assert_int_equal(failures, 0);
}

/* An error deep in the second object, after the first has allocated pins,
 * pin paths and hand keys: nothing may leak (the ASan build checks). */
static void test_error_after_allocations(void **state) {
  (void)state;
  static const char json[] =
      "{\"cloth\": [{\"pins\": [[0, 0], [0, 31]],"
      "  \"pin_paths\": [{\"pin\": [1, 1], \"keys\": [[0, 0, 0, 0], [1, 1, 1, 1]]}]},"
      "  {\"pin_paths\": [{\"pin\": [1, 1], \"keys\": [[0, 0, 0, 0], [1, 1, 1]]}]}],"
      " \"string\": [{\"hand\": [[0, 1, 1]]}]}";
  drape_scene s;
  drape_err e = {0};
  assert_int_equal(drape_scene_parse(json, "x", &s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[1].pin_paths[0].keys[1] = [1, 1, 1]"));
  static const char json2[] =
      "{\"string\": [{\"hand\": [[0, 1, 1], [1, 2, 2]]}], \"cloth\": [{\"pins\": [[0, 0]]}],"
      " \"sphere\": [{\"radius\": 0}]}";
  assert_int_equal(drape_scene_parse(json2, "x", &s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "sphere[0].radius = 0"));
  assert_int_equal(s.n_string, 0);
}

static void test_syntax_errors(void **state) {
  (void)state;
  static const struct {
    const char *json, *want;
  } cases[] = {
      {"{\n  \"dt\": NaN\n}", "line 2, column 9 near 'NaN'"},
      {"{\n  \"dt\": 0.01,\n  \"wind\": [0, 0, Infinity]\n}", "line 3, column 18 near 'Infinity]'"},
      {"{\"dt\": 0.01,}", "line 1, column"}, /* cJSON places this one at the end */
      {"{\"dt\": 0.01} {\"dt\": 0.02}", "line 1, column 14"},
      {"{\"dt\": 0.01", "JSON syntax error"},
      {"", "JSON syntax error"},
      {"// comment\n{}", "line 1, column 1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    drape_scene s;
    drape_err e = {0};
    int r = drape_scene_parse(cases[i].json, "syntax.json", &s, &e);
    if (r != DRAPE_EINVAL || !strstr(e.msg, cases[i].want) || !strstr(e.msg, "syntax.json: JSON syntax error"))
      fprintf(stderr, "case %zu: msg: %s (wanted %s)\n", i, e.msg, cases[i].want);
    assert_int_equal(r, DRAPE_EINVAL);
    assert_non_null(strstr(e.msg, cases[i].want));
    assert_non_null(strstr(e.msg, "syntax.json: JSON syntax error"));
  }
}

static void test_files(void **state) {
  (void)state;
  drape_scene s;
  drape_err e = {0};
  assert_int_equal(drape_scene_load("no/such/x.json", &s, &e), DRAPE_EINVAL);
  assert_string_equal(e.msg, "scene file 'no/such/x.json': No such file or directory");

  const char *dir = drape_test_tmpdir("scene_files");
  char path[1200];
  snprintf(path, sizeof path, "%s/bad.json", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs("{\n  \"cloth\": [{\n    \"grid\": {\"spacing\": -0.1}\n  }]\n}\n", f);
  fclose(f);
  assert_int_equal(drape_scene_load(path, &s, &e), DRAPE_EINVAL);
  char want[1400];
  snprintf(want, sizeof want, "scene file '%s': cloth[0].grid.spacing = -0.1: must be > 0 and <= 100", path);
  assert_string_equal(e.msg, want);

  f = fopen(path, "wb");
  assert_non_null(f);
  fputs("{\n  \"dt\": 0.01,\n  \"substeps\": 20,,\n}\n", f);
  fclose(f);
  assert_int_equal(drape_scene_load(path, &s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "line 3, column")); /* cJSON stops at or just after the 2nd comma */

  /* A folder is not a scene. */
  assert_int_equal(drape_scene_load(dir, &s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, dir));

  /* The good file round trip through load. */
  f = fopen(path, "wb");
  assert_non_null(f);
  fputs("{\"dt\": 0.005, \"cloth\": [{\"pins\": [[31, 31]]}]}", f);
  fclose(f);
  assert_int_equal(drape_scene_load(path, &s, &e), 0);
  assert_near(s.dt, 0.005, 0);
  assert_int_equal(s.cloth[0].pins[0][0], 31);
  drape_scene_free(&s);
}

/* Scenes built in code get the same checks, with the same key paths. */
static void test_validate_in_code(void **state) {
  (void)state;
  drape_scene s;
  drape_err e = {0};
  drape_scene_init(&s);
  assert_int_equal(drape_scene_validate(&s, &e), 0);
  drape_cloth_def c = drape_cloth_def_default();
  c.spacing = NAN;
  assert_non_null(drape_scene_add_cloth(&s, &c));
  assert_int_equal(drape_scene_validate(&s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[0].grid.spacing = nan: must be a finite number"));
  s.cloth[0].spacing = 0.02;
  assert_int_equal(drape_scene_validate(&s, &e), 0);

  drape_rope_def r = drape_rope_def_default();
  r.length = INFINITY;
  assert_non_null(drape_scene_add_rope(&s, &r));
  assert_int_equal(drape_scene_validate(&s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rope[0].length = inf"));
  s.rope[0].length = 2;

  s.substeps = 0;
  assert_int_equal(drape_scene_validate(&s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "substeps = 0"));
  s.substeps = 20;

  s.cloth[0].pins = malloc(sizeof *s.cloth[0].pins);
  s.cloth[0].n_pins = 1;
  s.cloth[0].pins[0][0] = 32;
  s.cloth[0].pins[0][1] = 0;
  assert_int_equal(drape_scene_validate(&s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[0].pins[0] = [32, 0]: outside the 32x32 grid (rows 0..31, cols 0..31)"));
  s.cloth[0].pins[0][0] = 31;
  assert_int_equal(drape_scene_validate(&s, &e), 0);

  s.dt = NAN;
  assert_int_equal(drape_scene_validate(&s, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "dt = nan"));
  drape_scene_free(&s);
}

/* ---- issue 13: float limits, strict JSON, non-regular files ---- */

/* Every value below passes the double range check ("> 0") but underflows
 * when the solver converts it (or a value derived from it) to float. Each
 * must fail naming the key path and the value and give the smallest value
 * allowed; that smallest value, put in its place, must then pass. */
static void test_float_limits(void **state) {
  (void)state;
  static const struct {
    const char *tmpl; /* %s = the value */
    const char *key;
  } cases[] = {
      {"{\"dt\": %s}", "dt"},
      {"{\"dt\": %s, \"substeps\": 1}", "dt"},
      {"{\"cloth\": [{\"grid\": {\"spacing\": %s}}]}", "cloth[0].grid.spacing"},
      {"{\"cloth\": [{\"mass_per_area\": %s}]}", "cloth[0].mass_per_area"},
      {"{\"cloth\": [{\"particle_mass\": %s}]}", "cloth[0].particle_mass"},
      {"{\"rope\": [{\"length\": %s, \"start\": [0, 0, 0], \"end\": [0, 0, 0]}]}", "rope[0].length"},
      {"{\"rope\": [{\"mass_per_length\": %s}]}", "rope[0].mass_per_length"},
      {"{\"cloth\": [{\"thickness\": %s}]}", "cloth[0].thickness"},
      {"{\"rope\": [{\"thickness\": %s}]}", "rope[0].thickness"},
      {"{\"sphere\": [{\"radius\": %s}]}", "sphere[0].radius"},
      {"{\"cloth\": [{\"compliance\": {\"bend\": %s}}]}", "cloth[0].compliance.bend"},
      {"{\"rope\": [{\"compliance\": %s}]}", "rope[0].compliance"},
  };
  static const char *const values[] = {"1e-300", "1e-40"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int v = 0; v < 2; v++) {
      char json[512], want[128];
      snprintf(json, sizeof json, cases[i].tmpl, values[v]);
      snprintf(want, sizeof want, "f.json: %s = %s: ", cases[i].key, values[v]);
      drape_scene s;
      drape_err e = {0};
      int r = drape_scene_parse(json, "f.json", &s, &e);
      const char *at = strstr(e.msg, "the smallest value allowed is ");
      if (r != DRAPE_EINVAL || !strstr(e.msg, want) || !at)
        fprintf(stderr, "%s\n  -> %d: %s\n", json, r, e.msg);
      assert_int_equal(r, DRAPE_EINVAL);
      assert_non_null(strstr(e.msg, want));
      assert_non_null(at);
      /* the smallest value allowed passes */
      char lo[64];
      assert_int_equal(sscanf(at + strlen("the smallest value allowed is "), "%63[-0-9.e+]", lo), 1);
      snprintf(json, sizeof json, cases[i].tmpl, lo);
      r = drape_scene_parse(json, "f.json", &s, &e);
      if (r) fprintf(stderr, "%s\n  -> %d: %s\n", json, r, e.msg);
      assert_int_equal(r, 0);
      drape_scene_free(&s);
    }
}

/* The exact messages: key path, the value as written, the smallest value. */
static void test_float_limit_messages(void **state) {
  (void)state;
  static const struct {
    const char *json, *want;
  } cases[] = {
      {"{\"dt\": 1e-40}",
       "dt = 1e-40: the substep h = dt / substeps = 4.9999999999999994e-42 s is below 1e-19 s, where "
       "1/h^2 no longer fits in a float (the solver computes in float); the smallest value allowed is "
       "2e-18 (with substeps = 20)"},
      {"{\"cloth\": [{\"grid\": {\"spacing\": 1e-300}}]}",
       "cloth[0].grid.spacing = 1e-300: below the smallest normal float, it would underflow to 0 (the "
       "solver computes in float); the smallest value allowed is 4.8487e-19 (with mass_per_area = "
       "0.2)"},
      /* a particle mass: the rest lengths alone bound the spacing */
      {"{\"cloth\": [{\"grid\": {\"spacing\": 1e-40}, \"particle_mass\": 1}]}",
       "cloth[0].grid.spacing = 1e-40: below the smallest normal float, it would underflow to a "
       "subnormal (the solver computes in float); the smallest value allowed is "
       "1.1754943508222875e-38"},
      {"{\"cloth\": [{\"mass_per_area\": 1e-40}]}",
       "cloth[0].mass_per_area = 1e-40: a corner particle's mass, mass_per_area x spacing^2 / 4 = "
       "1e-44 kg, would underflow (the solver computes in float); the smallest value allowed is "
       "1.1755e-34 (with grid.spacing = 0.02)"},
      {"{\"rope\": [{\"length\": 1e-300}]}",
       "rope[0].length = 1e-300: the link rest length length / segments = 2.5e-302 m would underflow "
       "(the solver computes in float); the smallest value allowed is 0.0008 (with segments = 40 and "
       "this start and end)"},
      {"{\"rope\": [{\"length\": 1e-40, \"start\": [0, 0, 0], \"end\": [0, 0, 0], \"mass_per_length\": 1e6}]}",
       "rope[0].length = 1e-40: the link rest length length / segments = 2.4999999999999997e-42 m "
       "would underflow (the solver computes in float); the smallest value allowed is 4.702e-37 (with "
       "segments = 40)"},
      {"{\"rope\": [{\"mass_per_length\": 1e-300}]}",
       "rope[0].mass_per_length = 1e-300: an end node's mass, mass_per_length x length / segments / "
       "2 = 2.5e-302 kg, would underflow (the solver computes in float); the smallest value allowed "
       "is 4.702e-37 (with links of length / segments = 0.05 m)"},
      /* the self-collision message named "object 0" and showed 0 */
      {"{\"cloth\": [{\"thickness\": 1e-300, \"self_collision\": true}]}",
       "cloth[0].thickness = 1e-300: below the smallest normal float, it would underflow to 0"},
      /* float positions cannot resolve 1e-6 m a metre from the origin */
      {"{\"cloth\": [{\"grid\": {\"cols\": 4, \"rows\": 4, \"spacing\": 1e-6, \"origin\": [1, 1, 1]}}]}",
       "cloth[0].grid.spacing = 1e-06: below 1e-05 of the largest coordinate the grid reaches "
       "(|origin| + spacing x (max(rows, cols) - 1) = 1.000003 m), so float positions cannot resolve "
       "it (the solver computes in float); the smallest value allowed is 1.0001e-05 (with this "
       "origin and grid size)"},
      {"{\"rope\": [{\"length\": 1e-6}]}",
       "rope[0].length = 1e-06: the link rest length length / segments = 2.5e-08 m is below 1e-05 of "
       "the largest start or end coordinate (2 m)"},
      /* 1.00000001 is 1 in float: every link would tear */
      {"{\"cloth\": [{\"tear_ratio\": 1.00000001}]}",
       "cloth[0].tear_ratio = 1.00000001: it becomes 1 in float, which would tear every link at the "
       "first stretch (the solver computes in float); the smallest value allowed is "
       "1.0000001192092896 (or exactly 0)"},
      /* printed as 1 before: numbers in messages round-trip */
      {"{\"cloth\": [{\"tear_ratio\": 1.0000001, \"solver\": \"springs\"}]}",
       "cloth[0].tear_ratio = 1.0000001: the springs solver does not tear"},
      {"{\"dt\": 1e-15, \"cloth\": [{\"compliance\": {\"shear\": 1e6}}]}",
       "cloth[0].compliance.shear = 1000000: compliance / h^2 overflows a float at the substep h = "
       "dt / substeps = 5.0000000000000005e-17 s; the largest value allowed with this dt and "
       "substeps is 850620"},
      {"{\"cloth\": [{\"mass_per_area\": 0.2, \"grid\": {\"spacing\": 1e-22}}]}",
       "cloth[0].grid.spacing = 1e-22: a corner particle's mass, mass_per_area x spacing^2 / 4 = "
       "5.0000000000000007e-46 kg, would underflow, and no mass_per_area <= 10000 avoids that (or "
       "give particle_mass) (the solver computes in float); the smallest value allowed is 4.8487e-19 "
       "(with mass_per_area = 0.2)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    drape_scene s;
    drape_err e = {0};
    int r = drape_scene_parse(cases[i].json, "m.json", &s, &e);
    if (r != DRAPE_EINVAL || !strstr(e.msg, cases[i].want))
      fprintf(stderr, "case %zu: %s\n  got:  %s\n  want: %s\n", i, cases[i].json, e.msg, cases[i].want);
    assert_int_equal(r, DRAPE_EINVAL);
    assert_non_null(strstr(e.msg, cases[i].want));
  }
  /* Just above the limits passes; 0 stays "off" where it means off. */
  static const char *const ok[] = {
      "{\"dt\": 2e-18}",
      "{\"cloth\": [{\"tear_ratio\": 1.0000002}]}",
      "{\"cloth\": [{\"particle_mass\": 0, \"compliance\": {\"stretch\": 0, \"shear\": 0, \"bend\": 0}}]}",
      "{\"cloth\": [{\"grid\": {\"cols\": 8192, \"rows\": 2, \"spacing\": 1e-3}}]}",
      "{\"rope\": [{\"start\": [0, 0, 0], \"end\": [0, 0, 0], \"length\": 1e-30, \"mass_per_length\": 1e6}]}",
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    drape_scene s;
    drape_err e = {0};
    int r = drape_scene_parse(ok[i], "ok.json", &s, &e);
    if (r) fprintf(stderr, "%s: %s\n", ok[i], e.msg);
    assert_int_equal(r, 0);
    drape_scene_free(&s);
  }
}

/* Scenes built in code get the loader's checks wherever they enter: the
 * model builder and drape_sim_create run drape_scene_validate (one
 * validator per def, limits from drape/limits.h) before building, and
 * refuse the float underflows by key path, with round-trip numbers, never
 * handing the solver a zero mass or rest length. Until issue 14 the builder
 * had its own copies of these checks with other limits and messages
 * ("particle (row 0, col 0) gets 1e-44 kg", thickness 0 allowed without
 * self-collision, tear_ratio "expected 0 (off) or > 1"); the cases now
 * expect the loader's messages. */
static void test_model_float_checks(void **state) {
  (void)state;
  static const struct {
    int what;
    double v;
    const char *want;
  } cases[] = {
      {0, 1e-40, "cloth[0].grid.spacing = 1e-40: below the smallest normal float"},
      {1, 1e-40, "cloth[0].mass_per_area = 1e-40: a corner particle's mass, mass_per_area x spacing^2 / 4 = 1e-44 kg, would underflow"},
      {2, 1e-300, "cloth[0].particle_mass = 1e-300: below the smallest normal float"},
      {3, 1.00000001, "cloth[0].tear_ratio = 1.00000001: it becomes 1 in float"},
      {4, 1e-300, "cloth[0].thickness = 1e-300: below the smallest normal float"},
      {5, 0, "cloth[0].thickness = 0: must be > 0 and <= 1"},
      {11, 0, "cloth[0].thickness = 0: must be > 0 and <= 1"},
      {6, 1e-300, "rope[0].length = 1e-300: the link rest length length / segments = 2.5e-302 m would underflow"},
      {7, 1e-300, "rope[0].mass_per_length = 1e-300: an end node's mass, mass_per_length x length / segments / 2 = 2.5e-302 kg, would underflow"},
      {8, 1e6, "cloth[0].compliance.bend = 1000000: compliance / h^2 overflows a float"},
      {9, 1e-40, "rope[0].compliance = 1e-40: below the smallest normal float"},
      {10, 0.5, "cloth[0].tear_ratio = 0.5: must be 0 (no tearing) or > 1 and <= 100"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    drape_scene s;
    drape_scene_init(&s);
    drape_cloth_def c = drape_cloth_def_default();
    c.cols = c.rows = 4;
    drape_rope_def rp = drape_rope_def_default();
    const double v = cases[i].v;
    switch (cases[i].what) {
      case 0: c.spacing = v; break;
      case 1: c.mass_per_area = v; break;
      case 2: c.particle_mass = v; break;
      case 3: case 10: c.tear_ratio = v; break;
      case 4: c.thickness = v; break;
      case 5: c.thickness = v; c.self_collision = 1; break;
      case 11: c.thickness = v; break; /* was allowed without self-collision */
      case 6: rp.length = v; break;
      case 7: rp.mass_per_length = v; break;
      case 8: c.compliance_bend = v; s.dt = 1e-15; s.substeps = 20; break;
      case 9: rp.compliance = v; break;
    }
    assert_non_null(drape_scene_add_cloth(&s, &c));
    assert_non_null(drape_scene_add_rope(&s, &rp));
    dr_model m;
    drape_err e = {0};
    int r = dr_model_build(&s, &m, &e);
    if (r != DRAPE_EINVAL || !strstr(e.msg, cases[i].want))
      fprintf(stderr, "case %zu: got %d: %s\n  want: %s\n", i, r, e.msg, cases[i].want);
    assert_int_equal(r, DRAPE_EINVAL);
    assert_non_null(strstr(e.msg, cases[i].want));
    /* the same message from drape_sim_create, before any device is touched */
    drape_sim_opts o = drape_sim_opts_default();
    o.backend = DRAPE_BACKEND_CPU;
    drape_sim *sim = (drape_sim *)&s; /* must be reset to NULL */
    drape_err e2 = {0};
    assert_int_equal(drape_sim_create(&s, &o, &sim, &e2), DRAPE_EINVAL);
    assert_null(sim);
    assert_string_equal(e2.msg, e.msg);
    drape_scene_free(&s);
  }
  /* the defaults build, every mass and rest length a normal float */
  drape_scene s;
  drape_scene_init(&s);
  drape_cloth_def c = drape_cloth_def_default();
  drape_rope_def rp = drape_rope_def_default();
  drape_scene_add_cloth(&s, &c);
  drape_scene_add_rope(&s, &rp);
  dr_model m;
  drape_err e = {0};
  assert_int_equal(dr_model_build(&s, &m, &e), 0);
  for (int i = 0; i < m.n_particles; i++) {
    assert_true(m.mass[i] >= FLT_MIN);
    assert_true(isfinite(m.x0[i].w));
  }
  for (int i = 0; i < m.n_cons; i++) assert_true(fabsf(m.cons[i].rest) >= FLT_MIN); /* < 0: tension-only */
  dr_model_free(&m);
  drape_scene_free(&s);
}

/* docs/scenes.md promises strict JSON (RFC 8259); cJSON alone takes a BOM,
 * leading zeros, "1." and control characters. */
static void test_strict_json(void **state) {
  (void)state;
  static const struct {
    const char *json, *want;
  } bad[] = {
      {"\xEF\xBB\xBF{}", "line 1, column 1: the text starts with a UTF-8 byte order mark"},
      {"{\"substeps\": 01}", "line 1, column 14: number '01': leading zeros are not allowed"},
      {"{\n  \"gravity\": [0, -01, 0]\n}", "line 2, column 18: number '-01': leading zeros"},
      {"{\"dt\": 00.5}", "number '00.5': leading zeros"},
      {"{\"cloth\": [{\"mesh\": {\"file\": \"m.obj\\u0000.png\"}}]}",
       "line 1, column 36: \\u0000 inside a string: a NUL character would cut the string short"},
      {"{\"dt\": 1.}", "number '1.': a '.' must be followed by digits"},
      {"{\"dt\": -.5}", "number '-.5': a number needs a digit"},
      {"{\"dt\": 1.e-3}", "number '1.e-3': a '.' must be followed by digits"},
      {"{\"dt\": 1e}", "number '1e': an exponent needs digits"},
      {"{\"dt\": 1e+}", "number '1e+': an exponent needs digits"},
      {"{\"dt\": 0.01-2}", "number '0.01-2': not a JSON number"},
      {"{\"description\": \"a\tb\"}", "line 1, column 19: control character U+0009 inside a string"},
      {"{\"description\": \"a\nb\"}", "control character U+000A inside a string"},
      {"{\"dt\":\f0.01}", "line 1, column 7: control character U+000C (white space is only"},
      {"{\"description\": \"\xff\"}", "byte 0xFF is not valid UTF-8"},
      {"{\"description\": \"\xC0\xAF\"}", "byte 0xC0 is not valid UTF-8"},      /* overlong '/' */
      {"{\"description\": \"\xED\xA0\x80\"}", "byte 0xED is not valid UTF-8"}, /* surrogate */
      {"{\"dt\": 0.01}\xC3\xA9", "byte 0xC3 outside a string"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    drape_scene s;
    drape_err e = {0};
    int r = drape_scene_parse(bad[i].json, "j.json", &s, &e);
    if (r != DRAPE_EINVAL || !strstr(e.msg, bad[i].want) || strncmp(e.msg, "j.json: JSON syntax error", 25))
      fprintf(stderr, "case %zu: got %d: %s\n  want: %s\n", i, r, e.msg, bad[i].want);
    assert_int_equal(r, DRAPE_EINVAL);
    assert_non_null(strstr(e.msg, bad[i].want));
    assert_non_null(strstr(e.msg, "(scene files are strict JSON)"));
  }
  /* what strict JSON does allow */
  static const char *const good[] = {
      "{\"dt\": 0.01, \"substeps\": 10, \"wind\": [-0, 0.0, -0.0e-0], \"gravity\": [0, -9.81E+0, 1e-3]}",
      "{\"description\": \"caf\xC3\xA9 \\u00e9 \\\"q\\\" \\\\ \\n \xF0\x9F\x98\x80\"}",
      " \t\r\n{ \"frames\" : 100 } \n",
      "{\"description\": \"01 and 1. and \\t in a string are text\"}",
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    drape_scene s;
    drape_err e = {0};
    int r = drape_scene_parse(good[i], "g.json", &s, &e);
    if (r) fprintf(stderr, "good %zu: %s\n", i, e.msg);
    assert_int_equal(r, 0);
    drape_scene_free(&s);
  }
}

/* Only regular files are read: a FIFO used to block forever in fopen(). */
static void test_non_regular_files(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("scene_nonreg");
  char fifo[1200];
  snprintf(fifo, sizeof fifo, "%s/pipe.json", dir);
  unlink(fifo);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  drape_scene s;
  drape_err e = {0};
  double t0 = drape_now();
  assert_int_equal(drape_scene_load(fifo, &s, &e), DRAPE_EINVAL);
  assert_true(drape_now() - t0 < 2.0);
  char want[1400];
  snprintf(want, sizeof want, "scene file '%s': not a regular file (it is a FIFO (named pipe))", fifo);
  assert_string_equal(e.msg, want);
  unlink(fifo);

  assert_int_equal(drape_scene_load("/dev/zero", &s, &e), DRAPE_EINVAL);
  assert_string_equal(e.msg, "scene file '/dev/zero': not a regular file (it is a character device)");
  assert_int_equal(drape_scene_load(dir, &s, &e), DRAPE_EINVAL);
  snprintf(want, sizeof want, "scene file '%s': not a regular file (it is a directory)", dir);
  assert_string_equal(e.msg, want);

  /* a BOM in a file: named by file, line and column */
  char path[1200];
  snprintf(path, sizeof path, "%s/bom.json", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs("\xEF\xBB\xBF{\"dt\": 0.01}\n", f);
  fclose(f);
  assert_int_equal(drape_scene_load(path, &s, &e), DRAPE_EINVAL);
  snprintf(want, sizeof want, "scene file '%s': JSON syntax error at line 1, column 1: the text starts with a UTF-8 byte order mark", path);
  assert_non_null(strstr(e.msg, want));
}

/* The render def (presentation, drape/render_def.h): the scene file's
 * "camera" and "render" keys, read apart from the simulation. */
static void test_render_def(void **state) {
  (void)state;
  drape_err e = {0}, es = {0};
  drape_render_def v;
  drape_scene s;
  /* Only the presentation keys are read: a simulation value the scene
   * refuses does not stop the render def (it is the scene loader's). */
  static const char sim_bad[] =
      "{\"dt\": 0, \"camera\": {\"eye\": [0, 1, 4], \"fov_deg\": 30}, \"render\": {\"height\": 360}}";
  assert_int_equal(drape_render_def_parse(sim_bad, "x", &v, &e), 0);
  assert_int_equal(v.camera.has_eye, 1);
  assert_int_equal(v.camera.has_target, 0);
  vec_eq(v.camera.eye, 0, 1, 4);
  assert_near(v.camera.fov_deg, 30, 0);
  assert_int_equal(v.width, 1280);
  assert_int_equal(v.height, 360);
  assert_int_equal(drape_scene_parse(sim_bad, "x", &s, &es), DRAPE_EINVAL);
  assert_non_null(strstr(es.msg, "x: dt = 0"));
  /* A bad presentation key: the same message from both loaders, and the
   * render def is left at its defaults. */
  static const char *const bad[] = {
      "{\"camera\": {\"fov_deg\": 0}}",
      "{\"camera\": {\"fov_deg\": 179.5}}",
      "{\"camera\": {\"eye\": [1, 1, 1], \"target\": [1, 1, 1]}}",
      "{\"camera\": {\"target\": [0, 1e9, 0]}}",
      "{\"camera\": {\"eye\": \"front\"}}",
      "{\"camera\": {\"zoom\": 2}}",
      "{\"render\": {\"width\": 8}}",
      "{\"render\": {\"height\": 100000}}",
      "{\"render\": {\"width\": 640.5}}",
      "{\"render\": [640, 480]}",
      "{\"dt\": 0.01, \"cameras\": {}}",
      "{\"camera\": {}, \"camera\": {}}",
      "[1]",
      "{\"camera\": {\"fov_deg\": 40},}",
  };
  const drape_render_def d = drape_render_def_default();
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&e, 0, sizeof e);
    memset(&es, 0, sizeof es);
    int rv = drape_render_def_parse(bad[i], "b.json", &v, &e);
    int rs = drape_scene_parse(bad[i], "b.json", &s, &es);
    if (rv != DRAPE_EINVAL || rs != DRAPE_EINVAL || strcmp(e.msg, es.msg) != 0)
      fprintf(stderr, "%s: render def %d \"%s\", scene %d \"%s\"\n", bad[i], rv, e.msg, rs, es.msg);
    assert_int_equal(rv, DRAPE_EINVAL);
    assert_int_equal(rs, DRAPE_EINVAL);
    assert_string_equal(e.msg, es.msg);
    assert_memory_equal(&v, &d, sizeof d);
  }
  /* Built in code: the validator gives the loader's message. */
  v = drape_render_def_default();
  v.width = 8193;
  assert_int_equal(drape_render_def_validate(&v, &e), DRAPE_EINVAL);
  assert_string_equal(e.msg, "render.width = 8193: must be >= 16 and <= 8192 (pixels)");
  v = drape_render_def_default();
  v.camera.has_eye = v.camera.has_target = 1;
  assert_int_equal(drape_render_def_validate(&v, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "camera.eye = camera.target"));
  v.camera.has_target = 0; /* an eye alone looks at the framed scene */
  assert_int_equal(drape_render_def_validate(&v, &e), 0);
  /* The scene itself never refuses a render def it does not hold: a scene
   * built in code validates whatever the render def is. */
  drape_scene_init(&s);
  assert_int_equal(drape_scene_validate(&s, &e), 0);
  drape_scene_free(&s);
  /* From a file: the ready scene's camera; a missing file is named. */
  char path[1200];
  snprintf(path, sizeof path, "%s/scenes/drape_sphere.json", drape_test_source_dir());
  assert_int_equal(drape_render_def_load(path, &v, &e), 0);
  assert_int_equal(v.camera.has_eye, 1);
  drape_render_def_free(&v);
  snprintf(path, sizeof path, "%s/no_such_scene.json", drape_test_tmpdir("render-def"));
  assert_int_equal(drape_render_def_load(path, &v, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "scene file '"));
  assert_non_null(strstr(e.msg, "No such file"));
  assert_memory_equal(&v, &d, sizeof d);
}

/* ---- materials ------------------------------------------------------------ */

static const drape_material_def *preset_or_fail(const char *name) {
  const drape_material_def *m = drape_material_preset(name);
  if (!m) fprintf(stderr, "no preset \"%s\"\n", name);
  assert_non_null(m);
  return m;
}

/* The loaded material of cloth[0] equals `want` field by field. */
static void material_eq(const drape_material_def *got, const drape_material_def *want) {
  assert_int_equal(got->set, 1);
  assert_string_equal(got->preset, want->preset);
  assert_near(got->density, want->density, 0);
  assert_near(got->stretch[0], want->stretch[0], 0);
  assert_near(got->stretch[1], want->stretch[1], 0);
  assert_near(got->shear, want->shear, 0);
  assert_near(got->bend[0], want->bend[0], 0);
  assert_near(got->bend[1], want->bend[1], 0);
  assert_near(got->damping, want->damping, 0);
}

typedef struct material_case {
  const char *json;              /* the value of cloth[0].material         */
  const char *preset;            /* starts from this preset (NULL: none)   */
  double density, stretch[2], shear, bend[2], damping; /* else these, or NAN = the preset's */
} material_case;

#define KEEP NAN
static const material_case MATERIALS[] = {
    {"\"denim\"", "denim", KEEP, {KEEP, KEEP}, KEEP, {KEEP, KEEP}, KEEP},
    {"\"silk\"", "silk", KEEP, {KEEP, KEEP}, KEEP, {KEEP, KEEP}, KEEP},
    {"{\"preset\": \"denim\"}", "denim", KEEP, {KEEP, KEEP}, KEEP, {KEEP, KEEP}, KEEP},
    {"{\"preset\": \"denim\", \"bend\": 2e-5}", "denim", KEEP, {KEEP, KEEP}, KEEP, {2e-5, 2e-5}, KEEP},
    {"{\"bend\": [2e-5, 1e-5], \"preset\": \"wool_suiting\"}", "wool_suiting", KEEP, {KEEP, KEEP}, KEEP,
     {2e-5, 1e-5}, KEEP},
    {"{\"preset\": \"canvas\", \"density\": 0.5, \"stretch\": [20000, 15000], \"shear\": 0,"
     " \"damping\": 0.3}", "canvas", 0.5, {20000, 15000}, 0, {KEEP, KEEP}, 0.3},
    {"{\"preset\": \"chiffon\", \"stretch\": 4000}", "chiffon", KEEP, {4000, 4000}, KEEP, {KEEP, KEEP},
     KEEP},
    {"{\"density\": 0.25, \"stretch\": 12000, \"shear\": 40, \"bend\": 8e-6}", NULL, 0.25,
     {12000, 12000}, 40, {8e-6, 8e-6}, -1},
    {"{\"density\": 0.15, \"stretch\": [2500, 1200], \"shear\": 17, \"bend\": [3e-6, 2e-6],"
     " \"damping\": 0}", NULL, 0.15, {2500, 1200}, 17, {3e-6, 2e-6}, 0},
};

static double pick(double v, double preset) { return isnan(v) ? preset : v; }

static void test_material_keys(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof MATERIALS / sizeof MATERIALS[0]; i++) {
    const material_case *mc = &MATERIALS[i];
    char json[1024];
    snprintf(json, sizeof json,
             "{\"cloth\": [{\"grid\": {\"cols\": 8, \"rows\": 8, \"spacing\": 0.05}, \"material\": %s}]}",
             mc->json);
    drape_scene s;
    if (parse_ok(json, &s)) fprintf(stderr, "case %zu: %s\n", i, json);
    assert_int_equal(s.n_cloth, 1);
    drape_material_def want = {0};
    if (mc->preset) want = *preset_or_fail(mc->preset);
    want.set = 1;
    if (!mc->preset) want.damping = -1;
    want.density = pick(mc->density, want.density);
    for (int k = 0; k < 2; k++) {
      want.stretch[k] = pick(mc->stretch[k], want.stretch[k]);
      want.bend[k] = pick(mc->bend[k], want.bend[k]);
    }
    want.shear = pick(mc->shear, want.shear);
    want.damping = pick(mc->damping, want.damping);
    material_eq(&s.cloth[0].material, &want);
    /* the mass every reader of mass_per_area sees */
    assert_near(s.cloth[0].mass_per_area, want.density, 0);
    drape_scene_free(&s);
  }

  /* a rope: density kg/m, EA, EI; bend defaults to 0 */
  drape_scene s;
  assert_int_equal(parse_ok("{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": 2000,"
                            " \"bend\": 1e-4, \"damping\": 0.2}},"
                            " {\"material\": {\"stretch\": 500, \"density\": 0.02}}]}",
                            &s),
                   0);
  const drape_material_def *m = &s.rope[0].material;
  assert_int_equal(m->set, 1);
  assert_string_equal(m->preset, "");
  assert_near(m->density, 0.05, 0);
  assert_near(m->stretch[0], 2000, 0);
  assert_near(m->bend[0], 1e-4, 0);
  assert_near(m->damping, 0.2, 0);
  assert_near(s.rope[0].mass_per_length, 0.05, 0);
  m = &s.rope[1].material;
  assert_near(m->density, 0.02, 0);
  assert_near(m->stretch[0], 500, 0);
  assert_near(m->bend[0], 0, 0);
  assert_near(m->damping, -1, 0);
  assert_near(s.rope[1].mass_per_length, 0.02, 0);
  drape_scene_free(&s);

  /* without "material" nothing is set: the per-constraint keys apply */
  assert_int_equal(parse_ok("{\"cloth\": [{}], \"rope\": [{}]}", &s), 0);
  assert_int_equal(s.cloth[0].material.set, 0);
  assert_int_equal(s.rope[0].material.set, 0);
  drape_scene_free(&s);
}

/* Every preset: listed once, named, in the documented ranges (the
 * validator passes it), stiffness as the header promises, damping left to
 * the object. */
static void test_material_presets(void **state) {
  (void)state;
  const int n = drape_material_preset_count();
  assert_true(n >= 8);
  assert_null(drape_material_preset_at(-1));
  assert_null(drape_material_preset_at(n));
  assert_null(drape_material_preset("no_such_fabric"));
  assert_null(drape_material_preset(NULL));
  static const char *const required[] = {"cotton_shirting", "denim", "silk", "wool_suiting",
                                         "polyester_jersey", "canvas", "chiffon", "leather"};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) preset_or_fail(required[i]);
  for (int k = 0; k < n; k++) {
    const drape_material_def *m = drape_material_preset_at(k);
    assert_non_null(m);
    assert_int_equal(m->set, 1);
    assert_true(m->preset[0] != '\0');
    assert_ptr_equal(drape_material_preset(m->preset), m);
    for (int j = 0; j < k; j++) assert_string_not_equal(drape_material_preset_at(j)->preset, m->preset);
    /* the magnitudes of published woven and knitted fabrics: a preset
     * outside them is a unit slip */
    assert_true(m->density >= 0.02 && m->density <= 1.2);
    for (int d = 0; d < 2; d++) {
      assert_true(m->stretch[d] >= 500 && m->stretch[d] <= 30000);
      assert_true(m->bend[d] >= 1e-7 && m->bend[d] <= 1e-3);
    }
    assert_true(m->shear >= 5 && m->shear <= 500);
    assert_true(m->damping < 0);

    /* as a cloth's and through the scene's validator */
    drape_cloth_def c = drape_cloth_def_default();
    snprintf(c.name, sizeof c.name, "%s", m->preset);
    c.material = *m;
    c.mass_per_area = m->density;
    drape_err e = {0};
    if (drape_cloth_def_validate(&c, 0, &e)) fprintf(stderr, "%s: %s\n", m->preset, e.msg);
    assert_int_equal(drape_cloth_def_validate(&c, 0, &e), 0);
    drape_scene s;
    drape_scene_init(&s);
    assert_non_null(drape_scene_add_cloth(&s, &c));
    assert_int_equal(drape_scene_validate(&s, &e), 0);
    drape_scene_free(&s);
    /* and by name from a scene file */
    char json[256];
    snprintf(json, sizeof json, "{\"cloth\": [{\"material\": \"%s\"}]}", m->preset);
    assert_int_equal(parse_ok(json, &s), 0);
    material_eq(&s.cloth[0].material, m);
    drape_scene_free(&s);
  }
}

/* Defs built in code get the loader's checks: the solver, tearing,
 * particle_mass, the ranges, with the key path. */
static void test_material_in_code(void **state) {
  (void)state;
  drape_err e = {0};
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "jeans");
  c.material = *preset_or_fail("denim");
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), 0);
  /* mass_per_area left at its default: the float checks use the density */
  c.solver = DRAPE_SOLVER_JAKOBSEN;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].solver = \"jakobsen\": not with cloth[3].material"));
  c.solver = DRAPE_SOLVER_SPRINGS;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].solver = \"springs\""));
  c.solver = DRAPE_SOLVER_XPBD;
  c.tear_ratio = 2;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].tear_ratio = 2: not with cloth[3].material"));
  c.tear_ratio = 0;
  c.particle_mass = 0.5;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].particle_mass = 0.5: not with cloth[3].material"));
  c.particle_mass = 0;
  c.material.stretch[1] = NAN;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].material.stretch[1] = nan: must be a finite number"));
  c.material.stretch[1] = 1e10;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].material.stretch[1] = 10000000000: must be > 0 and <= 1000000000"));
  c.material.stretch[1] = 5000;
  c.material.bend[0] = -INFINITY;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].material.bend[0] = -inf"));
  c.material.bend[0] = 1e-5;
  c.material.damping = INFINITY;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].material.damping = inf"));
  c.material.damping = -5; /* any negative: the cloth's own damping */
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), 0);
  c.material.density = 0;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[3].material.density = 0: must be > 0"));
  /* set = 0: the material is not looked at */
  c.material.set = 0;
  assert_int_equal(drape_cloth_def_validate(&c, 3, &e), 0);

  drape_rope_def r = drape_rope_def_default();
  snprintf(r.name, sizeof r.name, "cord");
  r.material.set = 1;
  r.material.density = 0.05;
  r.material.stretch[0] = 2000;
  assert_int_equal(drape_rope_def_validate(&r, 1, &e), 0);
  r.solver = DRAPE_SOLVER_IMPLICIT;
  assert_int_equal(drape_rope_def_validate(&r, 1, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rope[1].solver = \"implicit\": not with rope[1].material"));
  r.solver = DRAPE_SOLVER_JAKOBSEN;
  assert_int_equal(drape_rope_def_validate(&r, 1, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rope[1].solver = \"jakobsen\""));
  r.solver = DRAPE_SOLVER_XPBD;
  r.material.stretch[0] = -3;
  assert_int_equal(drape_rope_def_validate(&r, 1, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rope[1].material.stretch = -3: must be > 0"));
  r.material.stretch[0] = 3;
  r.material.bend[0] = NAN;
  assert_int_equal(drape_rope_def_validate(&r, 1, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rope[1].material.bend = nan"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_design_example),
      cmocka_unit_test(test_design_example_is_verbatim),
      cmocka_unit_test(test_design_keys_nondefault),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_extension_keys),
      cmocka_unit_test(test_ready_scenes),
      cmocka_unit_test(test_ready_scene_contents),
      cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_error_after_allocations),
      cmocka_unit_test(test_syntax_errors),
      cmocka_unit_test(test_files),
      cmocka_unit_test(test_validate_in_code),
      cmocka_unit_test(test_float_limits),
      cmocka_unit_test(test_float_limit_messages),
      cmocka_unit_test(test_model_float_checks),
      cmocka_unit_test(test_strict_json),
      cmocka_unit_test(test_non_regular_files),
      cmocka_unit_test(test_render_def),
      cmocka_unit_test(test_material_keys),
      cmocka_unit_test(test_material_presets),
      cmocka_unit_test(test_material_in_code),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
