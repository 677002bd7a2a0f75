/* The limits in one place (issue 14): docs/scenes.md "Limits" against
 * include/drape/limits.h against the validators, and the validators
 * against every entry point.
 *
 *  - every constant of limits.h has a row in the docs, and every number in
 *    the docs' table equals the constant the row names;
 *  - every key of the table passes at its documented bounds and fails just
 *    beyond them (the next double, or the next integer), with a message
 *    "key = value: ..." that shows the bound; so a limit changed in the
 *    header, the docs or a validator alone fails here;
 *  - the failing value is refused with the same message by the loader (a
 *    JSON scene), by drape_scene_validate, by the def's own validator, by
 *    drape_sim_create and by drape_world_create given the scene built in
 *    code (no loader involved); the presentation keys ("camera", "render")
 *    by the render def's validator and drape_render_def_parse instead,
 *    as the world never sees them;
 *  - drape_sim_set_params's validator has the scene's limits and messages. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "drape/drape.h"
#include "drape/world.h"
#include "drape/render_def.h"

/* ---- the constants, by name ----------------------------------------------- */

#define C(name) {#name, (double)(name)}
static const struct {
  const char *name;
  double value;
} CONSTS[] = {
    C(DRAPE_FLOAT_MIN), C(DRAPE_H_MIN), C(DRAPE_REL_SPACING_MIN), C(DRAPE_MAX_COORD),
    C(DRAPE_MAX_GRAVITY), C(DRAPE_MAX_DT), C(DRAPE_MAX_SUBSTEPS), C(DRAPE_MAX_ITERATIONS),
    C(DRAPE_MAX_WIND), C(DRAPE_MAX_WIND_DRAG), C(DRAPE_MAX_FRICTION), C(DRAPE_MAX_FRAMES),
    C(DRAPE_MIN_FOV_DEG), C(DRAPE_MAX_FOV_DEG), C(DRAPE_MIN_RENDER_SIZE), C(DRAPE_MAX_RENDER_SIZE),
    C(DRAPE_MAX_KEY_TIME), C(DRAPE_MAX_SCENE_FILE_BYTES), C(DRAPE_MIN_GRID), C(DRAPE_MAX_GRID),
    C(DRAPE_MAX_PARTICLES), C(DRAPE_MAX_SPACING), C(DRAPE_MAX_MASS_PER_AREA),
    C(DRAPE_MAX_PARTICLE_MASS), C(DRAPE_MAX_COMPLIANCE), C(DRAPE_MAX_DAMPING),
    C(DRAPE_MAX_THICKNESS), C(DRAPE_MAX_TEAR_RATIO), C(DRAPE_MAX_STIFFNESS),
    C(DRAPE_MAX_SPRING_DAMPING), C(DRAPE_SELFCOL_MAX_OWN), C(DRAPE_SELFCOL_MAX_CELL_CLOTH),
    C(DRAPE_SELFCOL_MAX_CELL_ROPE), C(DRAPE_MAX_ROPE_SEGMENTS), C(DRAPE_MAX_ROPE_LENGTH),
    C(DRAPE_MAX_MASS_PER_LENGTH), C(DRAPE_MAX_YM), C(DRAPE_MIN_STRING_NODES),
    C(DRAPE_MAX_STRING_NODES), C(DRAPE_MAX_STRING_LENGTH), C(DRAPE_MAX_STRING_MU),
    C(DRAPE_MAX_STRING_MODULUS), C(DRAPE_MAX_STRING_H), C(DRAPE_MAX_SPHERE_RADIUS),
    C(DRAPE_MAX_SPHERE_SPEED), C(DRAPE_MAX_CLOTH_SPEED), C(DRAPE_MAX_COLLIDER_TRIS), C(DRAPE_MAX_COLLIDER_KEYS),
    C(DRAPE_MAX_SEQUENCE_FRAMES), C(DRAPE_MAX_SEQUENCE_FPS), C(DRAPE_MAX_SEQUENCE_FIRST),
    C(DRAPE_MAX_MATERIAL_STIFFNESS), C(DRAPE_MAX_MATERIAL_BEND), C(DRAPE_MAX_ROPE_EA),
    C(DRAPE_MAX_ROPE_EI),
};
#undef C
#define N_CONSTS (sizeof CONSTS / sizeof CONSTS[0])

static int const_index(const char *name) {
  for (size_t i = 0; i < N_CONSTS; i++)
    if (strcmp(CONSTS[i].name, name) == 0) return (int)i;
  return -1;
}

/* ---- the keys: how to set each in JSON and in code ------------------------ */

typedef struct key_case {
  const char *key;  /* as the docs' table spells it                      */
  const char *path; /* as messages spell it                              */
  int is_int;
  const char *json; /* a scene with %s where the value goes              */
  void (*set)(drape_scene *s, double v);
  int per;          /* integer keys: a value is this many units (rows*cols) */
} key_case;

static drape_cloth_def *cloth0(drape_scene *s) {
  if (!s->n_cloth) {
    drape_cloth_def c = drape_cloth_def_default();
    drape_scene_add_cloth(s, &c);
  }
  return &s->cloth[0];
}
static drape_rope_def *rope0(drape_scene *s) {
  if (!s->n_rope) {
    drape_rope_def r = drape_rope_def_default();
    drape_scene_add_rope(s, &r);
  }
  return &s->rope[0];
}
static drape_string_def *string0(drape_scene *s) {
  if (!s->n_string) {
    drape_string_def d = drape_string_def_default();
    drape_scene_add_string(s, &d);
  }
  return &s->string[0];
}
static drape_sphere_def *sphere0(drape_scene *s) {
  if (!s->n_sphere) {
    drape_sphere_def d = drape_sphere_def_default();
    drape_scene_add_sphere(s, &d);
  }
  return &s->sphere[0];
}

/* A capsule from (0, 0, 0) to (0, 1, 0); a mesh collider, a tetrahedron
 * built in code (the JSON cases read meshes/box.obj). */
static drape_capsule_def *capsule0(drape_scene *s) {
  if (!s->n_capsule) {
    s->capsule = calloc(1, sizeof *s->capsule);
    assert_non_null(s->capsule);
    s->capsule[0] = drape_capsule_def_default();
    s->capsule[0].b[1] = 1;
    s->n_capsule = 1;
  }
  return &s->capsule[0];
}
static drape_collider_def *collider0(drape_scene *s) {
  if (!s->n_collider) {
    s->collider = calloc(1, sizeof *s->collider);
    assert_non_null(s->collider);
    drape_collider_def *d = &s->collider[0];
    *d = drape_collider_def_default();
    static const double v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const int t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    d->vertices = malloc(sizeof v);
    d->tris = malloc(sizeof t);
    assert_non_null(d->vertices);
    assert_non_null(d->tris);
    memcpy(d->vertices, v, sizeof v), memcpy(d->tris, t, sizeof t);
    d->n_vertices = d->n_tris = 4;
    d->closed = 1;
    s->n_collider = 1;
  }
  return &s->collider[0];
}
/* one key (t, tx, ty, tz, rx, ry, rz) with column c at v */
static void one_key(int *n, double (**keys)[7], int c, double v) {
  *keys = calloc(1, sizeof **keys);
  assert_non_null(*keys);
  *n = 1;
  (*keys)[0][c] = v;
}

#define SET(fn, stmt) \
  static void fn(drape_scene *s, double v) { stmt; }
SET(set_gravity, s->gravity[1] = v)
SET(set_dt, s->dt = v)
SET(set_substeps, s->substeps = (int)v)
SET(set_iterations, s->iterations = (int)v)
SET(set_wind, s->wind[0] = v)
SET(set_wind_drag, s->wind_drag = v)
SET(set_floor_height, (s->has_floor = 1, s->floor_height = v))
SET(set_floor_friction, (s->has_floor = 1, s->floor_friction = v))
SET(set_frames, s->frames = (int)v)
SET(set_cols, cloth0(s)->cols = (int)v)
SET(set_rows, cloth0(s)->rows = (int)v)
SET(set_rows_cols, (cloth0(s)->cols = 4096, cloth0(s)->rows = (int)(v / 4096)))
SET(set_spacing, cloth0(s)->spacing = v)
SET(set_origin, (cloth0(s)->spacing = 20, cloth0(s)->origin[0] = v))
SET(set_mpa, cloth0(s)->mass_per_area = v)
SET(set_pmass, cloth0(s)->particle_mass = v)
SET(set_c_stretch, cloth0(s)->compliance_stretch = v)
SET(set_c_shear, cloth0(s)->compliance_shear = v)
SET(set_c_bend, cloth0(s)->compliance_bend = v)
SET(set_c_damping, cloth0(s)->damping = v)
SET(set_c_thickness, cloth0(s)->thickness = v)
SET(set_self_friction, cloth0(s)->self_friction = v)
SET(set_cloth_velocity, cloth0(s)->velocity[0] = v)
SET(set_tear, cloth0(s)->tear_ratio = v)
SET(set_stiffness, cloth0(s)->stiffness = v)
SET(set_spring_damping, cloth0(s)->spring_damping = v)
SET(set_bend_stiffness, cloth0(s)->bend_stiffness = v)
/* a cloth or rope material, as the loader leaves it (density copied into
 * the mass key) */
static drape_cloth_def *cloth_mat(drape_scene *s) {
  drape_cloth_def *c = cloth0(s);
  c->material = *drape_material_preset("denim");
  c->mass_per_area = c->material.density;
  return c;
}
static drape_rope_def *rope_mat(drape_scene *s) {
  drape_rope_def *r = rope0(s);
  r->material.set = 1;
  r->material.density = r->mass_per_length = 0.05;
  r->material.stretch[0] = 2000;
  r->material.damping = -1;
  return r;
}
SET(set_m_density, (cloth_mat(s)->material.density = v, cloth0(s)->mass_per_area = v))
SET(set_m_stretch, cloth_mat(s)->material.stretch[0] = v)
SET(set_m_shear, cloth_mat(s)->material.shear = v)
SET(set_m_bend, cloth_mat(s)->material.bend[0] = v)
SET(set_m_damping, cloth_mat(s)->material.damping = v)
SET(set_rm_density, (rope_mat(s)->material.density = v, rope0(s)->mass_per_length = v))
SET(set_rm_stretch, rope_mat(s)->material.stretch[0] = v)
SET(set_rm_bend, rope_mat(s)->material.bend[0] = v)
SET(set_rm_damping, rope_mat(s)->material.damping = v)
SET(set_segments, (rope0(s)->segments = (int)v, rope0(s)->start[0] = rope0(s)->end[0] = 0,
                   rope0(s)->start[1] = rope0(s)->end[1] = 0))
SET(set_rope_start, (rope0(s)->length = 1000, rope0(s)->start[0] = v))
/* a one-link rope laid by its two points, the first at (v, 2, 0) */
static void rope_points(drape_rope_def *r, double v) {
  r->segments = 1;
  r->n_points = 2;
  r->points = calloc(2, sizeof *r->points);
  assert_non_null(r->points);
  r->points[0][0] = v, r->points[0][1] = 2, r->points[1][1] = 2;
}
SET(set_rope_point, rope_points(rope0(s), v))
SET(set_rope_length, rope0(s)->length = v)
SET(set_mpl, rope0(s)->mass_per_length = v)
SET(set_r_compliance, rope0(s)->compliance = v)
SET(set_r_damping, rope0(s)->damping = v)
SET(set_r_thickness, rope0(s)->thickness = v)
SET(set_ym, rope0(s)->ym = v)
SET(set_nodes, string0(s)->nodes = (int)v)
SET(set_s_length, string0(s)->length = v)
SET(set_mu, string0(s)->mu = v)
SET(set_EA, string0(s)->EA = v)
SET(set_etaA, string0(s)->etaA = v)
SET(set_B, string0(s)->B = v)
SET(set_D, string0(s)->D = v)
SET(set_h, string0(s)->h = v)
SET(set_anchor, string0(s)->anchor[0] = v)
SET(set_z, string0(s)->z = v)
SET(set_center, sphere0(s)->center[0] = v)
SET(set_radius, sphere0(s)->radius = v)
SET(set_velocity, sphere0(s)->velocity[0] = v)
SET(set_sph_friction, sphere0(s)->friction = v)
SET(set_cap_a, capsule0(s)->a[0] = v)
SET(set_cap_b, capsule0(s)->b[0] = v)
SET(set_cap_radius, capsule0(s)->radius = v)
SET(set_cap_friction, capsule0(s)->friction = v)
SET(set_cap_key_time, one_key(&capsule0(s)->n_keys, &capsule0(s)->keys, 0, v))
SET(set_cap_key_move, one_key(&capsule0(s)->n_keys, &capsule0(s)->keys, 2, v))
SET(set_col_friction, collider0(s)->friction = v)
SET(set_col_thickness, collider0(s)->thickness = v)
SET(set_col_key_time, one_key(&collider0(s)->n_keys, &collider0(s)->keys, 0, v))
SET(set_col_key_move, one_key(&collider0(s)->n_keys, &collider0(s)->keys, 2, v))
#undef SET
/* The presentation keys are the render def's (drape/render_def.h). */
#define SETV(fn, stmt) \
  static void fn(drape_render_def *d, double v) { stmt; }
SETV(set_eye, (d->camera.has_eye = 1, d->camera.eye[2] = v))
SETV(set_fov, d->camera.fov_deg = v)
SETV(set_width, d->width = (int)v)
SETV(set_height, d->height = (int)v)
#undef SETV
/* key_case.set is NULL for these: they are not the scene's. */
static void (*view_setter(const char *key))(drape_render_def *, double) {
  if (!strcmp(key, "camera.eye[i]")) return set_eye;
  if (!strcmp(key, "camera.fov_deg")) return set_fov;
  if (!strcmp(key, "render.width")) return set_width;
  if (!strcmp(key, "render.height")) return set_height;
  return NULL;
}

/* Lists a def owns, built in code as the loader builds them. */
static void set_key_time(drape_scene *s, double v) {
  drape_cloth_def *c = cloth0(s);
  c->pin_paths = calloc(1, sizeof *c->pin_paths);
  assert_non_null(c->pin_paths);
  c->n_pin_paths = 1;
  c->pin_paths[0].keys = calloc(1, sizeof *c->pin_paths[0].keys);
  assert_non_null(c->pin_paths[0].keys);
  c->pin_paths[0].n_keys = 1;
  c->pin_paths[0].keys[0][0] = v;
}
static void set_hand_time(drape_scene *s, double v) {
  drape_string_def *d = string0(s);
  d->hand = calloc(1, sizeof *d->hand);
  assert_non_null(d->hand);
  d->n_hand = 1;
  d->hand[0][0] = v;
}

static char g_col_json[4][1400];

static const key_case KEYS[] = {
    {"gravity[i]", "gravity[1]", 0, "{\"gravity\": [0, %s, 0]}", set_gravity, 0},
    {"dt", "dt", 0, "{\"dt\": %s}", set_dt, 0},
    {"substeps", "substeps", 1, "{\"substeps\": %s}", set_substeps, 0},
    {"iterations", "iterations", 1, "{\"iterations\": %s}", set_iterations, 0},
    {"wind[i]", "wind[0]", 0, "{\"wind\": [%s, 0, 0]}", set_wind, 0},
    {"wind_drag", "wind_drag", 0, "{\"wind_drag\": %s}", set_wind_drag, 0},
    {"floor.height", "floor.height", 0, "{\"floor\": {\"height\": %s}}", set_floor_height, 0},
    {"floor.friction", "floor.friction", 0, "{\"floor\": {\"friction\": %s}}", set_floor_friction, 0},
    {"camera.eye[i]", "camera.eye[2]", 0, "{\"camera\": {\"eye\": [0, 0, %s]}}", NULL, 0},
    {"camera.fov_deg", "camera.fov_deg", 0, "{\"camera\": {\"fov_deg\": %s}}", NULL, 0},
    {"render.width", "render.width", 1, "{\"render\": {\"width\": %s}}", NULL, 0},
    {"render.height", "render.height", 1, "{\"render\": {\"height\": %s}}", NULL, 0},
    {"frames", "frames", 1, "{\"frames\": %s}", set_frames, 0},
    {"cloth[].grid.cols", "cloth[0].grid.cols", 1, "{\"cloth\": [{\"grid\": {\"cols\": %s}}]}", set_cols, 0},
    {"cloth[].grid.rows", "cloth[0].grid.rows", 1, "{\"cloth\": [{\"grid\": {\"rows\": %s}}]}", set_rows, 0},
    {"cloth[].grid.rows*cols", "cloth[0].grid", 1,
     "{\"cloth\": [{\"grid\": {\"cols\": 4096, \"rows\": %s}}]}", set_rows_cols, 4096},
    {"cloth[].grid.spacing", "cloth[0].grid.spacing", 0, "{\"cloth\": [{\"grid\": {\"spacing\": %s}}]}", set_spacing, 0},
    {"cloth[].grid.origin[i]", "cloth[0].grid.origin[0]", 0,
     "{\"cloth\": [{\"grid\": {\"spacing\": 20, \"origin\": [%s, 0, 0]}}]}", set_origin, 0},
    {"cloth[].mass_per_area", "cloth[0].mass_per_area", 0, "{\"cloth\": [{\"mass_per_area\": %s}]}", set_mpa, 0},
    {"cloth[].particle_mass", "cloth[0].particle_mass", 0, "{\"cloth\": [{\"particle_mass\": %s}]}", set_pmass, 0},
    {"cloth[].compliance.stretch", "cloth[0].compliance.stretch", 0,
     "{\"cloth\": [{\"compliance\": {\"stretch\": %s}}]}", set_c_stretch, 0},
    {"cloth[].compliance.shear", "cloth[0].compliance.shear", 0,
     "{\"cloth\": [{\"compliance\": {\"shear\": %s}}]}", set_c_shear, 0},
    {"cloth[].compliance.bend", "cloth[0].compliance.bend", 0,
     "{\"cloth\": [{\"compliance\": {\"bend\": %s}}]}", set_c_bend, 0},
    {"cloth[].damping", "cloth[0].damping", 0, "{\"cloth\": [{\"damping\": %s}]}", set_c_damping, 0},
    {"cloth[].thickness", "cloth[0].thickness", 0, "{\"cloth\": [{\"thickness\": %s}]}", set_c_thickness, 0},
    {"cloth[].self_friction", "cloth[0].self_friction", 0, "{\"cloth\": [{\"self_friction\": %s}]}", set_self_friction, 0},
    {"cloth[].velocity[i]", "cloth[0].velocity[0]", 0, "{\"cloth\": [{\"velocity\": [%s, 0, 0]}]}", set_cloth_velocity, 0},
    {"cloth[].tear_ratio", "cloth[0].tear_ratio", 0, "{\"cloth\": [{\"tear_ratio\": %s}]}", set_tear, 0},
    {"cloth[].stiffness", "cloth[0].stiffness", 0, "{\"cloth\": [{\"stiffness\": %s}]}", set_stiffness, 0},
    {"cloth[].spring_damping", "cloth[0].spring_damping", 0, "{\"cloth\": [{\"spring_damping\": %s}]}", set_spring_damping, 0},
    {"cloth[].bend_stiffness", "cloth[0].bend_stiffness", 0, "{\"cloth\": [{\"bend_stiffness\": %s}]}", set_bend_stiffness, 0},
    {"cloth[].material.density", "cloth[0].material.density", 0,
     "{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"density\": %s}}]}", set_m_density, 0},
    {"cloth[].material.stretch[i]", "cloth[0].material.stretch[0]", 0,
     "{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"stretch\": [%s, 8890.3]}}]}", set_m_stretch, 0},
    {"cloth[].material.shear", "cloth[0].material.shear", 0,
     "{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"shear\": %s}}]}", set_m_shear, 0},
    {"cloth[].material.bend[i]", "cloth[0].material.bend[0]", 0,
     "{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"bend\": [%s, 1.6867e-05]}}]}", set_m_bend, 0},
    {"cloth[].material.damping", "cloth[0].material.damping", 0,
     "{\"cloth\": [{\"material\": {\"preset\": \"denim\", \"damping\": %s}}]}", set_m_damping, 0},
    {"cloth[].pin_paths[].keys[i][0]", "cloth[0].pin_paths[0].keys[0][0]", 0,
     "{\"cloth\": [{\"pin_paths\": [{\"pin\": [0, 0], \"keys\": [[%s, 0, 0, 0]]}]}]}", set_key_time, 0},
    {"rope[].segments", "rope[0].segments", 1,
     "{\"rope\": [{\"segments\": %s, \"start\": [0, 0, 0], \"end\": [0, 0, 0]}]}", set_segments, 0},
    {"rope[].start[i]", "rope[0].start[0]", 0, "{\"rope\": [{\"length\": 1000, \"start\": [%s, 2, 0]}]}", set_rope_start, 0},
    {"rope[].points[i][j]", "rope[0].points[0][0]", 0,
     "{\"rope\": [{\"segments\": 1, \"points\": [[%s, 2, 0], [0, 2, 0]]}]}", set_rope_point, 0},
    {"rope[].length", "rope[0].length", 0, "{\"rope\": [{\"length\": %s}]}", set_rope_length, 0},
    {"rope[].mass_per_length", "rope[0].mass_per_length", 0, "{\"rope\": [{\"mass_per_length\": %s}]}", set_mpl, 0},
    {"rope[].compliance", "rope[0].compliance", 0, "{\"rope\": [{\"compliance\": %s}]}", set_r_compliance, 0},
    {"rope[].damping", "rope[0].damping", 0, "{\"rope\": [{\"damping\": %s}]}", set_r_damping, 0},
    {"rope[].thickness", "rope[0].thickness", 0, "{\"rope\": [{\"thickness\": %s}]}", set_r_thickness, 0},
    {"rope[].material.density", "rope[0].material.density", 0,
     "{\"rope\": [{\"material\": {\"density\": %s, \"stretch\": 2000}}]}", set_rm_density, 0},
    {"rope[].material.stretch", "rope[0].material.stretch", 0,
     "{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": %s}}]}", set_rm_stretch, 0},
    {"rope[].material.bend", "rope[0].material.bend", 0,
     "{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": 2000, \"bend\": %s}}]}", set_rm_bend, 0},
    {"rope[].material.damping", "rope[0].material.damping", 0,
     "{\"rope\": [{\"material\": {\"density\": 0.05, \"stretch\": 2000, \"damping\": %s}}]}",
     set_rm_damping, 0},
    {"rope[].ym", "rope[0].ym", 0, "{\"rope\": [{\"ym\": %s}]}", set_ym, 0},
    {"string[].nodes", "string[0].nodes", 1, "{\"string\": [{\"nodes\": %s}]}", set_nodes, 0},
    {"string[].length", "string[0].length", 0, "{\"string\": [{\"length\": %s}]}", set_s_length, 0},
    {"string[].mu", "string[0].mu", 0, "{\"string\": [{\"mu\": %s}]}", set_mu, 0},
    {"string[].EA", "string[0].EA", 0, "{\"string\": [{\"EA\": %s}]}", set_EA, 0},
    {"string[].etaA", "string[0].etaA", 0, "{\"string\": [{\"etaA\": %s}]}", set_etaA, 0},
    {"string[].B", "string[0].B", 0, "{\"string\": [{\"B\": %s}]}", set_B, 0},
    {"string[].D", "string[0].D", 0, "{\"string\": [{\"D\": %s}]}", set_D, 0},
    {"string[].h", "string[0].h", 0, "{\"string\": [{\"h\": %s}]}", set_h, 0},
    {"string[].anchor[i]", "string[0].anchor[0]", 0, "{\"string\": [{\"anchor\": [%s, 2.6]}]}", set_anchor, 0},
    {"string[].z", "string[0].z", 0, "{\"string\": [{\"z\": %s}]}", set_z, 0},
    {"string[].hand[i][0]", "string[0].hand[0][0]", 0, "{\"string\": [{\"hand\": [[%s, 0, 0]]}]}", set_hand_time, 0},
    {"sphere[].center[i]", "sphere[0].center[0]", 0, "{\"sphere\": [{\"center\": [%s, 0, 0]}]}", set_center, 0},
    {"sphere[].radius", "sphere[0].radius", 0, "{\"sphere\": [{\"radius\": %s}]}", set_radius, 0},
    {"sphere[].velocity[i]", "sphere[0].velocity[0]", 0, "{\"sphere\": [{\"velocity\": [%s, 0, 0]}]}", set_velocity, 0},
    {"sphere[].friction", "sphere[0].friction", 0, "{\"sphere\": [{\"friction\": %s}]}", set_sph_friction, 0},
    {"capsule[].a[i]", "capsule[0].a[0]", 0,
     "{\"capsule\": [{\"a\": [%s, 0, 0], \"b\": [0, 1, 0], \"radius\": 0.1}]}", set_cap_a, 0},
    {"capsule[].b[i]", "capsule[0].b[0]", 0,
     "{\"capsule\": [{\"a\": [0, 0, 0], \"b\": [%s, 1, 0], \"radius\": 0.1}]}", set_cap_b, 0},
    {"capsule[].radius", "capsule[0].radius", 0,
     "{\"capsule\": [{\"a\": [0, 0, 0], \"b\": [0, 1, 0], \"radius\": %s}]}", set_cap_radius, 0},
    {"capsule[].friction", "capsule[0].friction", 0,
     "{\"capsule\": [{\"a\": [0, 0, 0], \"b\": [0, 1, 0], \"radius\": 0.1, \"friction\": %s}]}",
     set_cap_friction, 0},
    {"capsule[].keys[i][0]", "capsule[0].keys[0][0]", 0,
     "{\"capsule\": [{\"a\": [0, 0, 0], \"b\": [0, 1, 0], \"radius\": 0.1,"
     " \"keys\": [[%s, 0, 0, 0, 0, 0, 0]]}]}", set_cap_key_time, 0},
    {"capsule[].keys[i][1..6]", "capsule[0].keys[0][2]", 0,
     "{\"capsule\": [{\"a\": [0, 0, 0], \"b\": [0, 1, 0], \"radius\": 0.1,"
     " \"keys\": [[0, 0, %s, 0, 0, 0, 0]]}]}", set_cap_key_move, 0},
    /* the collider cases' JSON names meshes/box.obj by its full path:
     * filled in by main() */
    {"collider[].friction", "collider[0].friction", 0, g_col_json[0], set_col_friction, 0},
    {"collider[].thickness", "collider[0].thickness", 0, g_col_json[1], set_col_thickness, 0},
    {"collider[].keys[i][0]", "collider[0].keys[0][0]", 0, g_col_json[2], set_col_key_time, 0},
    {"collider[].keys[i][1..6]", "collider[0].keys[0][2]", 0, g_col_json[3], set_col_key_move, 0},
};
#define N_KEYS (sizeof KEYS / sizeof KEYS[0])

static const key_case *key_case_of(const char *key) {
  for (size_t i = 0; i < N_KEYS; i++)
    if (strcmp(KEYS[i].key, key) == 0) return &KEYS[i];
  return NULL;
}

/* ---- reading the docs and the header ---------------------------------------- */

static char *read_text(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", drape_test_source_dir(), rel);
  FILE *f = fopen(path, "rb");
  if (!f) fprintf(stderr, "cannot open %s\n", path);
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = malloc((size_t)n + 1);
  assert_non_null(t);
  assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
  t[n] = '\0';
  fclose(f);
  return t;
}

/* Table cells of one markdown row "| a | b | c |", trimmed, backticks
 * removed; returns the count. */
static int split_row(const char *line, size_t len, char cells[][256], int max) {
  int n = 0;
  const char *p = line, *end = line + len;
  if (p >= end || *p != '|') return 0;
  p++;
  while (p < end && n < max) {
    const char *q = memchr(p, '|', (size_t)(end - p));
    if (!q) break;
    size_t k = 0;
    for (const char *c = p; c < q && k + 1 < sizeof cells[0]; c++)
      if (*c != '`') cells[n][k++] = *c;
    cells[n][k] = '\0';
    char *a = cells[n];
    while (*a == ' ') a++;
    memmove(cells[n], a, strlen(a) + 1);
    for (size_t L = strlen(cells[n]); L > 0 && cells[n][L - 1] == ' '; L--) cells[n][L - 1] = '\0';
    n++;
    p = q + 1;
  }
  return n;
}

typedef struct limit_row {
  char key[256];
  int has_lo, lo_incl;
  double lo, hi;
  char consts[256];
} limit_row;

#define MAX_ROWS 128
static limit_row g_rows[MAX_ROWS];
static int g_n_rows;
static char g_const_rows[64][256];
static double g_const_vals[64];
static int g_n_const_rows;

/* The "## Limits" section of docs/scenes.md: key rows (4 cells) and
 * constant rows (3 cells). */
static void read_docs(void) {
  char *t = read_text("docs/scenes.md");
  char *sec = strstr(t, "\n## Limits\n");
  assert_non_null(sec);
  char *stop = strstr(sec + 10, "\n## ");
  assert_non_null(stop);
  g_n_rows = g_n_const_rows = 0;
  for (char *line = sec + 1; line < stop;) {
    char *nl = strchr(line, '\n');
    size_t len = (size_t)(nl - line);
    char cells[6][256];
    int n = split_row(line, len, cells, 6);
    if (n >= 3 && strncmp(line, "| `", 3) == 0) {
      char *end;
      if (n == 4) {
        assert_true(g_n_rows < MAX_ROWS);
        limit_row *r = &g_rows[g_n_rows++];
        snprintf(r->key, sizeof r->key, "%s", cells[0]);
        if (strcmp(cells[1], "—") == 0) {
          r->has_lo = 0;
        } else {
          r->has_lo = 1;
          r->lo_incl = strncmp(cells[1], ">=", 2) == 0;
          if (!r->lo_incl) assert_true(cells[1][0] == '>');
          r->lo = strtod(cells[1] + (r->lo_incl ? 2 : 1), &end);
          assert_true(*end == '\0');
        }
        assert_true(strncmp(cells[2], "<=", 2) == 0);
        r->hi = strtod(cells[2] + 2, &end);
        if (*end) fprintf(stderr, "docs: %s: upper \"%s\" is not \"<= NUMBER\"\n", r->key, cells[2]);
        assert_true(*end == '\0');
        snprintf(r->consts, sizeof r->consts, "%s", cells[3]);
      } else if (n == 3) {
        assert_true(g_n_const_rows < 64);
        snprintf(g_const_rows[g_n_const_rows], sizeof g_const_rows[0], "%s", cells[0]);
        g_const_vals[g_n_const_rows] = strtod(cells[1], &end);
        if (*end) fprintf(stderr, "docs: %s: value \"%s\" is not a number\n", cells[0], cells[1]);
        assert_true(*end == '\0');
        g_n_const_rows++;
      }
    }
    line = nl + 1;
  }
  free(t);
  assert_true(g_n_rows >= 50);
}

/* ---- 1: docs <-> limits.h ------------------------------------------------------ */

static void test_docs_match_header(void **state) {
  (void)state;
  read_docs();
  int fails = 0;
  int *named = calloc(N_CONSTS, sizeof *named);
  assert_non_null(named);
  for (int i = 0; i < g_n_rows; i++) {
    const limit_row *r = &g_rows[i];
    /* the constants the row names: the upper bound is the last one; the
     * lower bound is a named DRAPE_MIN_*, or -(the upper), or 0 / 1 */
    char list[256];
    snprintf(list, sizeof list, "%s", r->consts);
    double lo_c = NAN, hi_c = NAN;
    for (char *tok = strtok(list, ", "); tok; tok = strtok(NULL, ", ")) {
      int k = const_index(tok);
      if (k < 0) {
        fprintf(stderr, "docs: %s names %s, which is not in drape/limits.h (or not here)\n", r->key, tok);
        fails++;
        continue;
      }
      named[k] = 1;
      if (strncmp(tok, "DRAPE_MIN_", 10) == 0) lo_c = CONSTS[k].value;
      else hi_c = CONSTS[k].value;
    }
    if (!(r->hi == hi_c)) {
      fprintf(stderr, "docs: %s: upper %.17g but %s = %.17g\n", r->key, r->hi, r->consts, hi_c);
      fails++;
    }
    if (r->has_lo) {
      int ok = isnan(lo_c) ? (r->lo == -hi_c || r->lo == 0 || r->lo == 1) : r->lo == lo_c;
      if (!ok) {
        fprintf(stderr, "docs: %s: lower %.17g matches no constant of %s\n", r->key, r->lo, r->consts);
        fails++;
      }
    }
    if (!key_case_of(r->key)) {
      fprintf(stderr, "docs: key %s has no case in tests/test_limits.c\n", r->key);
      fails++;
    }
  }
  for (int i = 0; i < g_n_const_rows; i++) {
    int k = const_index(g_const_rows[i]);
    if (k < 0) {
      fprintf(stderr, "docs: %s is not in drape/limits.h (or not here)\n", g_const_rows[i]);
      fails++;
      continue;
    }
    named[k] = 1;
    if (!(g_const_vals[i] == CONSTS[k].value)) {
      fprintf(stderr, "docs: %s = %.17g but limits.h has %.17g\n", g_const_rows[i], g_const_vals[i],
              CONSTS[k].value);
      fails++;
    }
  }
  for (size_t k = 0; k < N_CONSTS; k++)
    if (!named[k]) {
      fprintf(stderr, "docs: %s has no row in docs/scenes.md \"Limits\"\n", CONSTS[k].name);
      fails++;
    }
  for (size_t k = 0; k < N_KEYS; k++) {
    int found = 0;
    for (int i = 0; i < g_n_rows; i++) found |= strcmp(g_rows[i].key, KEYS[k].key) == 0;
    if (!found) {
      fprintf(stderr, "docs: key %s (tested here) has no row\n", KEYS[k].key);
      fails++;
    }
  }
  /* every #define of limits.h is known here (so it is checked above) */
  char *h = read_text("include/drape/limits.h");
  for (char *p = strstr(h, "#define DRAPE_"); p; p = strstr(p + 1, "#define DRAPE_")) {
    char name[64];
    if (sscanf(p, "#define %63[A-Z0-9_]", name) != 1) continue;
    if (strcmp(name, "DRAPE_LIMITS_H") == 0) continue;
    if (const_index(name) < 0) {
      fprintf(stderr, "limits.h: %s is not checked by tests/test_limits.c\n", name);
      fails++;
    }
  }
  free(h);
  free(named);
  assert_int_equal(fails, 0);
}

/* ---- 2: validators at the documented bounds ------------------------------------ */

static void fmt_value(char *buf, size_t cap, double v, int is_int) {
  if (is_int) snprintf(buf, cap, "%.0f", v);
  else drape_fmt_double(buf, cap, v);
}

/* The loader's message for the JSON scene, without its "label: " prefix;
 * 0 if it loads. */
static int load_msg(const key_case *kc, double v, char *msg, size_t cap) {
  char num[64], json[2048];
  fmt_value(num, sizeof num, kc->per ? v / kc->per : v, kc->is_int);
  snprintf(json, sizeof json, kc->json, num);
  drape_scene s;
  drape_err e = {0};
  int rc = drape_scene_parse(json, "L", &s, &e);
  drape_scene_free(&s);
  if (!rc) return 0;
  assert_int_equal(rc, DRAPE_EINVAL);
  assert_true(strncmp(e.msg, "L: ", 3) == 0);
  snprintf(msg, cap, "%s", e.msg + 3);
  return rc;
}

/* Every entry point given the scene built in code. All refuse with the
 * loader's message `want`, or all accept (want NULL). */
static int code_paths(const key_case *kc, double v, const char *want) {
  if (!kc->set) { /* presentation: the render def's validator and loader */
    void (*set_view)(drape_render_def *, double) = view_setter(kc->key);
    assert_non_null(set_view);
    drape_render_def d = drape_render_def_default();
    set_view(&d, v);
    drape_err e = {0};
    int fails = 0;
    int rc = drape_render_def_validate(&d, &e);
    if (want ? (rc != DRAPE_EINVAL || strcmp(e.msg, want) != 0) : rc != 0) {
      fprintf(stderr, "%s = %.17g: drape_render_def_validate gave %d \"%s\", the loader \"%s\"\n",
              kc->key, v, rc, rc ? e.msg : "", want ? want : "(loads)");
      fails++;
    }
    char num[64], json[512];
    fmt_value(num, sizeof num, v, kc->is_int);
    snprintf(json, sizeof json, kc->json, num);
    memset(&e, 0, sizeof e);
    rc = drape_render_def_parse(json, "L", &d, &e);
    if (want ? (rc != DRAPE_EINVAL || strncmp(e.msg, "L: ", 3) != 0 || strcmp(e.msg + 3, want) != 0)
             : rc != 0) {
      fprintf(stderr, "%s = %.17g: drape_render_def_parse gave %d \"%s\", the scene loader \"%s\"\n",
              kc->key, v, rc, rc ? e.msg : "", want ? want : "(loads)");
      fails++;
    }
    return fails;
  }
  drape_scene s;
  drape_scene_init(&s);
  kc->set(&s, v);
  int fails = 0;
  drape_err e = {0};
  int rc = drape_scene_validate(&s, &e);
  if (want ? (rc != DRAPE_EINVAL || strcmp(e.msg, want) != 0) : rc != 0) {
    fprintf(stderr, "%s = %.17g: drape_scene_validate gave %d \"%s\", the loader \"%s\"\n", kc->key,
            v, rc, rc ? e.msg : "", want ? want : "(loads)");
    fails++;
  }
  /* the def's own validator, where the key is a def's */
  memset(&e, 0, sizeof e);
  rc = -1;
  if (!strncmp(kc->path, "cloth[", 6)) rc = drape_cloth_def_validate(&s.cloth[0], 0, &e);
  if (!strncmp(kc->path, "rope[", 5)) rc = drape_rope_def_validate(&s.rope[0], 0, &e);
  if (!strncmp(kc->path, "string[", 7)) rc = drape_string_def_validate(&s.string[0], 0, &e);
  if (!strncmp(kc->path, "sphere[", 7)) rc = drape_sphere_def_validate(&s.sphere[0], 0, &e);
  if (!strncmp(kc->path, "capsule[", 8)) rc = drape_capsule_def_validate(&s.capsule[0], 0, &e);
  if (!strncmp(kc->path, "collider[", 9)) rc = drape_collider_def_validate(&s.collider[0], 0, &e);
  if (rc != -1 && (want ? (rc != DRAPE_EINVAL || strcmp(e.msg, want) != 0) : rc != 0)) {
    fprintf(stderr, "%s = %.17g: the def's validator gave %d \"%s\", the loader \"%s\"\n", kc->key, v,
            rc, rc ? e.msg : "", want ? want : "(loads)");
    fails++;
  }
  if (want) { /* create is refused before anything is built */
    drape_sim_opts o = drape_sim_opts_default();
    o.backend = DRAPE_BACKEND_CPU;
    drape_sim *sim = (drape_sim *)&s;
    memset(&e, 0, sizeof e);
    rc = drape_sim_create(&s, &o, &sim, &e);
    if (rc != DRAPE_EINVAL || strcmp(e.msg, want) != 0 || sim) {
      fprintf(stderr, "%s = %.17g: drape_sim_create gave %d \"%s\", the loader \"%s\"\n", kc->key, v,
              rc, e.msg, want);
      fails++;
    }
    drape_world_def wd = drape_world_def_default();
    wd.backend = DRAPE_BACKEND_CPU;
    drape_world *w = (drape_world *)&s;
    memset(&e, 0, sizeof e);
    rc = drape_world_create(&s, &wd, &w, &e);
    if (rc != DRAPE_EINVAL || strcmp(e.msg, want) != 0 || w) {
      fprintf(stderr, "%s = %.17g: drape_world_create gave %d \"%s\", the loader \"%s\"\n", kc->key, v,
              rc, e.msg, want);
      fails++;
    }
  }
  drape_scene_free(&s);
  return fails;
}

/* v must load (and validate in code) when `ok`, else be refused everywhere
 * with "path = v: ..." naming `bound`. */
static int probe(const key_case *kc, double v, int ok, double bound) {
  char msg[1024];
  int rc = load_msg(kc, v, msg, sizeof msg);
  int fails = 0;
  if (ok) {
    if (rc) {
      fprintf(stderr, "%s = %.17g: within the documented range but refused: %s\n", kc->key, v, msg);
      fails++;
    }
    return fails + code_paths(kc, v, NULL);
  }
  if (!rc) {
    fprintf(stderr, "%s = %.17g: beyond the documented bound %.17g but accepted\n", kc->key, v, bound);
    return 1;
  }
  char head[256], val[64], b[64];
  fmt_value(val, sizeof val, kc->per ? v / kc->per : v, kc->is_int);
  if (kc->per) snprintf(head, sizeof head, "%s = %s rows", kc->path, val);
  else snprintf(head, sizeof head, "%s = %s: ", kc->path, val);
  fmt_value(b, sizeof b, bound, kc->is_int);
  if (strncmp(msg, head, strlen(head)) != 0 || !strstr(msg + strlen(head), b)) {
    fprintf(stderr, "%s = %.17g: message should start \"%s\" and show the bound %s: %s\n", kc->key, v,
            head, b, msg);
    fails++;
  }
  return fails + code_paths(kc, v, msg);
}

static void test_validators_at_bounds(void **state) {
  (void)state;
  read_docs();
  int fails = 0, probes = 0;
  for (int i = 0; i < g_n_rows; i++) {
    const limit_row *r = &g_rows[i];
    const key_case *kc = key_case_of(r->key);
    if (!kc) continue; /* reported by test_docs_match_header */
    const double step = kc->per ? kc->per : 1;
    fails += probe(kc, r->hi, 1, r->hi);
    fails += probe(kc, kc->is_int ? r->hi + step : nextafter(r->hi, INFINITY), 0, r->hi);
    probes += 2;
    if (r->has_lo) {
      if (r->lo_incl) {
        fails += probe(kc, r->lo, 1, r->lo);
        fails += probe(kc, kc->is_int ? r->lo - 1 : nextafter(r->lo, -INFINITY), 0, r->lo);
        probes += 2;
      } else {
        fails += probe(kc, r->lo, 0, r->lo);
        probes++;
      }
    }
  }
  fprintf(stderr, "%d keys, %d values probed, %d failures\n", g_n_rows, probes, fails);
  assert_int_equal(fails, 0);
}

/* ---- 3: drape_sim_params has the scene's limits and messages --------------------- */

static void test_sim_params(void **state) {
  (void)state;
  drape_scene s;
  drape_scene_init(&s);
  drape_sim_params p = {0};
  p.substeps = DRAPE_MAX_SUBSTEPS;
  p.iterations = DRAPE_MAX_ITERATIONS;
  p.gravity[1] = -DRAPE_MAX_GRAVITY;
  p.wind[2] = DRAPE_MAX_WIND;
  p.wind_drag = DRAPE_MAX_WIND_DRAG;
  drape_err e = {0}, es = {0};
  assert_int_equal(drape_sim_params_validate(&p, s.dt, &e), 0);
  /* one beyond each: the same message as the scene's */
  static const int which[] = {0, 1, 2, 3, 4};
  for (size_t k = 0; k < sizeof which / sizeof which[0]; k++) {
    drape_sim_params q = p;
    drape_scene t = s;
    switch (which[k]) {
      case 0: q.substeps = t.substeps = DRAPE_MAX_SUBSTEPS + 1; break;
      case 1: q.iterations = t.iterations = DRAPE_MAX_ITERATIONS + 1; break;
      case 2: q.gravity[1] = t.gravity[1] = nextafter(-DRAPE_MAX_GRAVITY, -INFINITY); break;
      case 3: q.wind[2] = t.wind[2] = nextafter(DRAPE_MAX_WIND, INFINITY); break;
      case 4: q.wind_drag = t.wind_drag = nextafter(DRAPE_MAX_WIND_DRAG, INFINITY); break;
    }
    assert_int_equal(drape_sim_params_validate(&q, t.dt, &e), DRAPE_EINVAL);
    assert_int_equal(drape_scene_validate(&t, &es), DRAPE_EINVAL);
    fprintf(stderr, "params: %s\n", e.msg);
    assert_string_equal(e.msg, es.msg);
  }
  /* the substep h = dt / substeps >= DRAPE_H_MIN, naming substeps */
  p.substeps = 10000;
  assert_int_equal(drape_sim_params_validate(&p, 1e-16, &e), DRAPE_EINVAL);
  fprintf(stderr, "params: %s\n", e.msg);
  assert_non_null(strstr(e.msg, "substeps = 10000: the substep h = dt / substeps = 1e-20 s is below 1e-19 s"));
  const char *at = strstr(e.msg, "the largest value allowed with dt = 1e-16 s is ");
  assert_non_null(at);
  p.substeps = atoi(at + strlen("the largest value allowed with dt = 1e-16 s is "));
  assert_true(p.substeps >= 999 && p.substeps <= 1000);
  assert_int_equal(drape_sim_params_validate(&p, 1e-16, &e), 0); /* it is allowed */
  p.substeps++;
  assert_int_equal(drape_sim_params_validate(&p, 1e-16, &e), DRAPE_EINVAL); /* the largest */
  /* and drape_sim_set_params uses it */
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = DRAPE_BACKEND_CPU;
  drape_cloth_def c = drape_cloth_def_default();
  c.rows = c.cols = 4;
  drape_scene_add_cloth(&s, &c);
  drape_sim *sim = NULL;
  assert_int_equal(drape_sim_create(&s, &o, &sim, &e), 0);
  drape_sim_params q;
  drape_sim_get_params(sim, &q);
  q.substeps = DRAPE_MAX_SUBSTEPS + 1;
  assert_int_equal(drape_sim_set_params(sim, &q, &e), DRAPE_EINVAL);
  assert_string_equal(e.msg, "substeps = 10001: must be >= 1 and <= 10000");
  q.substeps = DRAPE_MAX_SUBSTEPS;
  assert_int_equal(drape_sim_set_params(sim, &q, &e), 0);
  /* the setters: the def's limits */
  assert_int_equal(drape_sim_set_damping(sim, -1, nextafter(DRAPE_MAX_DAMPING, INFINITY), &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "damping = 1000000.0000000001: must be >= 0 and <= 1000000"));
  assert_int_equal(drape_sim_set_compliance(sim, -1, DRAPE_COMPLIANCE_BEND, 1e-40, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "compliance = 1e-40: below the smallest normal float"));
  assert_int_equal(drape_sim_set_compliance(sim, -1, DRAPE_COMPLIANCE_BEND, 2e6, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "compliance = 2000000: must be >= 0 and <= 1000000"));
  drape_sim_destroy(sim);
  /* options */
  o.device_index = -2;
  assert_int_equal(drape_sim_create(&s, &o, &sim, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "device_index = -2"));
  o.device_index = -1;
  o.backend = (drape_backend)7;
  assert_int_equal(drape_sim_create(&s, &o, &sim, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "backend = 7"));
  drape_scene_free(&s);
}

/* ---- 4: one solver name ---------------------------------------------------------- */

static void test_solver_name(void **state) {
  (void)state;
  assert_string_equal(drape_solver_name(DRAPE_SOLVER_XPBD), "xpbd");
  assert_string_equal(drape_solver_name(DRAPE_SOLVER_JAKOBSEN), "jakobsen");
  assert_string_equal(drape_solver_name(DRAPE_SOLVER_SPRINGS), "springs");
  assert_string_equal(drape_solver_name(DRAPE_SOLVER_IMPLICIT), "implicit");
  assert_string_equal(drape_solver_name((drape_solver_kind)9), "?");
  /* the loader reads back what it names */
  static const drape_solver_kind rope[] = {DRAPE_SOLVER_XPBD, DRAPE_SOLVER_JAKOBSEN,
                                           DRAPE_SOLVER_IMPLICIT};
  for (size_t k = 0; k < 3; k++) {
    char json[128];
    snprintf(json, sizeof json, "{\"rope\": [{\"solver\": \"%s\"}]}", drape_solver_name(rope[k]));
    drape_scene s;
    drape_err e = {0};
    assert_int_equal(drape_scene_parse(json, "s", &s, &e), 0);
    assert_int_equal(s.rope[0].solver, rope[k]);
    drape_scene_free(&s);
  }
}

int main(void) {
  /* "%s" here is copied into the JSON as text: the value's place */
  static const char *const col[4] = {"\"friction\": %s", "\"thickness\": %s",
                                     "\"keys\": [[%s, 0, 0, 0, 0, 0, 0]]",
                                     "\"keys\": [[0, 0, %s, 0, 0, 0, 0]]"};
  for (int k = 0; k < 4; k++)
    snprintf(g_col_json[k], sizeof g_col_json[k],
             "{\"collider\": [{\"mesh\": {\"file\": \"%s/meshes/box.obj\"}, %s}]}",
             drape_test_source_dir(), col[k]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_docs_match_header),
      cmocka_unit_test(test_validators_at_bounds),
      cmocka_unit_test(test_sim_params),
      cmocka_unit_test(test_solver_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
