/* Scene files: JSON -> drape_scene (include/drape/scene.h), and the checks
 * every scene gets, from a file or built in code.
 *
 * Two passes, so that one set of range checks serves both entry points:
 *   1. drape_scene_parse() walks the JSON. It owns what only the JSON can
 *      get wrong: syntax (with line and column; strict JSON, which cJSON
 *      alone is not: see strict_json_scan), unknown and duplicate keys,
 *      types, integer-ness, enum spellings, array lengths, non-finite
 *      numbers (cJSON turns 1e999 into inf).
 *   2. drape_scene_validate() (validate.c) checks the values: ranges from
 *      drape/limits.h, the float limits of the values the solver uses
 *      (docs/scenes.md "Float limits"), pins inside the grid, keyframe
 *      order, unique names. drape_sim_create and drape_world_create run
 *      the same function, so a def built in code gets the same message.
 * Both name the offending value by its JSON key path (cloth[0].grid.spacing),
 * print the value and say what is allowed. Every key is listed in
 * docs/scenes.md; keep that page, the tables of allowed keys below and the
 * validators (validate.c, limits from drape/limits.h) in step. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/collider_defs.h"
#include "core/util.h"
#include "drape/render_def.h"
#include "drape/scene.h"

/* ---- value formatting ------------------------------------------------- */

/* Shortest of %.15g / %.17g that reads back as the same double, so a
 * message shows the number the user wrote (-0.1, not -0.10000000000000001)
 * and never rounds it onto a limit (1.0000001, not 1). */
void drape_fmt_double(char *buf, size_t cap, double v) {
  if (isnan(v)) {
    snprintf(buf, cap, "nan");
    return;
  }
  if (isinf(v)) {
    snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    return;
  }
  snprintf(buf, cap, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, cap, "%.17g", v);
}

static void fmt_num(char *buf, size_t cap, double v) { drape_fmt_double(buf, cap, v); }

typedef struct sbuf {
  char *p;
  size_t cap, len;
} sbuf;

static void sb_add(sbuf *b, const char *s) {
  while (*s && b->len + 1 < b->cap) b->p[b->len++] = *s++;
  b->p[b->len] = '\0';
}

/* A JSON value as the user would recognise it, shortened to fit. */
static void sb_value(sbuf *b, const cJSON *v, int depth) {
  char num[40];
  if (!v) {
    sb_add(b, "(missing)");
  } else if (cJSON_IsNumber(v)) {
    fmt_num(num, sizeof num, v->valuedouble);
    sb_add(b, num);
  } else if (cJSON_IsString(v)) {
    sb_add(b, "\"");
    if (strlen(v->valuestring) > 40) {
      char cut[41];
      memcpy(cut, v->valuestring, 40);
      cut[40] = '\0';
      sb_add(b, cut);
      sb_add(b, "...");
    } else {
      sb_add(b, v->valuestring);
    }
    sb_add(b, "\"");
  } else if (cJSON_IsTrue(v)) {
    sb_add(b, "true");
  } else if (cJSON_IsFalse(v)) {
    sb_add(b, "false");
  } else if (cJSON_IsNull(v)) {
    sb_add(b, "null");
  } else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
    int obj = cJSON_IsObject(v);
    sb_add(b, obj ? "{" : "[");
    if (depth >= 2) {
      if (v->child) sb_add(b, "...");
    } else {
      int i = 0;
      for (const cJSON *c = v->child; c; c = c->next, i++) {
        if (i) sb_add(b, ", ");
        if (i >= 6) {
          sb_add(b, "...");
          break;
        }
        if (obj) {
          sb_add(b, "\"");
          sb_add(b, c->string ? c->string : "");
          sb_add(b, "\": ");
        }
        sb_value(b, c, depth + 1);
      }
    }
    sb_add(b, obj ? "}" : "]");
  } else {
    sb_add(b, "?");
  }
}

/* "path = value: what is allowed" */
static int failv(drape_err *e, const char *path, const cJSON *v, const char *fmt, ...)
    DRAPE_PRINTF(4, 5);
static int failv(drape_err *e, const char *path, const cJSON *v, const char *fmt, ...) {
  char val[160], why[512];
  sbuf b = {val, sizeof val, 0};
  val[0] = '\0';
  sb_value(&b, v, 0);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return drape_fail(e, DRAPE_EINVAL, "%s = %s: %s", path, val, why);
}

/* ---- typed getters (pass 1) ------------------------------------------- */

static int get_num(drape_err *e, const char *path, const cJSON *v, double *out) {
  if (!cJSON_IsNumber(v)) return failv(e, path, v, "expected a number");
  if (!isfinite(v->valuedouble)) return failv(e, path, v, "must be a finite number");
  *out = v->valuedouble;
  return 0;
}

static int get_int(drape_err *e, const char *path, const cJSON *v, int *out) {
  if (!cJSON_IsNumber(v)) return failv(e, path, v, "expected an integer");
  double d = v->valuedouble;
  if (!isfinite(d) || d != floor(d) || d < (double)INT_MIN || d > (double)INT_MAX)
    return failv(e, path, v, "expected an integer (a whole number within +-%d)", INT_MAX);
  *out = (int)d;
  return 0;
}

static int get_bool(drape_err *e, const char *path, const cJSON *v, int *out) {
  if (!cJSON_IsBool(v)) return failv(e, path, v, "expected true or false");
  *out = cJSON_IsTrue(v) ? 1 : 0;
  return 0;
}

/* An array of exactly n finite numbers; `what` describes it ("[x, y, z]"). */
static int get_vec(drape_err *e, const char *path, const cJSON *v, double *out, int n,
                   const char *what) {
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
    return failv(e, path, v, "expected an array of %d numbers %s", n, what);
  int i = 0;
  for (const cJSON *c = v->child; c; c = c->next, i++) {
    char p[256];
    dr_pathf(p, sizeof p, "%s[%d]", path, i);
    if (get_num(e, p, c, &out[i])) return DRAPE_EINVAL;
  }
  return 0;
}

static int get_vec3(drape_err *e, const char *path, const cJSON *v, double out[3]) {
  return get_vec(e, path, v, out, 3, "[x, y, z]");
}

static int get_color(drape_err *e, const char *path, const cJSON *v, float out[3]) {
  double d[3];
  if (get_vec(e, path, v, d, 3, "[r, g, b] (linear RGB, 0..1)")) return DRAPE_EINVAL;
  for (int i = 0; i < 3; i++) out[i] = (float)d[i];
  return 0;
}

/* An [row, col] pair of integers. */
static int get_cell(drape_err *e, const char *path, const cJSON *v, int out[2]) {
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
    return failv(e, path, v, "expected [row, col] (two integers)");
  char p[256];
  dr_pathf(p, sizeof p, "%s[0]", path);
  if (get_int(e, p, v->child, &out[0])) return DRAPE_EINVAL;
  dr_pathf(p, sizeof p, "%s[1]", path);
  return get_int(e, p, v->child->next, &out[1]);
}

static int get_name(drape_err *e, const char *path, const cJSON *v, char out[DRAPE_NAME_MAX]) {
  if (!cJSON_IsString(v)) return failv(e, path, v, "expected a string");
  size_t n = strlen(v->valuestring);
  if (n >= DRAPE_NAME_MAX)
    return failv(e, path, v, "too long (%zu characters, at most %d)", n, DRAPE_NAME_MAX - 1);
  memcpy(out, v->valuestring, n + 1);
  return 0; /* the character set is checked by drape_scene_validate() */
}

typedef struct enum_name {
  const char *name;
  int value;
} enum_name;

static int get_enum(drape_err *e, const char *path, const cJSON *v, const enum_name *names,
                    int *out) {
  char allowed[256] = "";
  for (int i = 0; names[i].name; i++) {
    if (cJSON_IsString(v) && strcmp(v->valuestring, names[i].name) == 0) {
      *out = names[i].value;
      return 0;
    }
    if (i) strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
    strncat(allowed, "\"", sizeof allowed - strlen(allowed) - 1);
    strncat(allowed, names[i].name, sizeof allowed - strlen(allowed) - 1);
    strncat(allowed, "\"", sizeof allowed - strlen(allowed) - 1);
  }
  if (!cJSON_IsString(v)) return failv(e, path, v, "expected a string, one of %s", allowed);
  return failv(e, path, v, "unknown value (allowed: %s)", allowed);
}

/* Every member of an object: no duplicates (cJSON keeps both, and which one
 * wins would be an accident of the lookup), only known keys. `allowed` is a
 * NULL-terminated list, printed in the message. */
static int check_keys(drape_err *e, const char *path, const cJSON *obj, const char *const *allowed) {
  if (!cJSON_IsObject(obj)) return failv(e, path[0] ? path : "scene", obj, "expected an object {...}");
  for (const cJSON *c = obj->child; c; c = c->next) {
    char p[256];
    dr_pathf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", c->string);
    int known = 0;
    for (int i = 0; allowed[i]; i++)
      if (strcmp(c->string, allowed[i]) == 0) known = 1;
    if (!known) {
      char list[768] = "";
      for (int i = 0; allowed[i]; i++) {
        if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, allowed[i], sizeof list - strlen(list) - 1);
      }
      return drape_fail(e, DRAPE_EINVAL, "%s: unknown key (allowed: %s)", p, list);
    }
    for (const cJSON *d = obj->child; d != c; d = d->next)
      if (strcmp(d->string, c->string) == 0)
        return drape_fail(e, DRAPE_EINVAL, "%s: duplicate key (each key may appear once)", p);
  }
  return 0;
}

#define KEY(name) (strcmp(k->string, (name)) == 0)
#define SUB(p, parent, key) dr_pathf((p), sizeof(p), "%s.%s", (parent), (key))

/* ---- objects (pass 1) --------------------------------------------------- */

static const enum_name PLANES[] = {{"xz", DRAPE_PLANE_XZ}, {"xy", DRAPE_PLANE_XY},
                                   {"yz", DRAPE_PLANE_YZ}, {NULL, 0}};
static const enum_name CLOTH_SOLVERS[] = {{"xpbd", DRAPE_SOLVER_XPBD},
                                          {"jakobsen", DRAPE_SOLVER_JAKOBSEN},
                                          {"springs", DRAPE_SOLVER_SPRINGS},
                                          {NULL, 0}};
static const enum_name ROPE_SOLVERS[] = {{"xpbd", DRAPE_SOLVER_XPBD},
                                         {"jakobsen", DRAPE_SOLVER_JAKOBSEN},
                                         {"implicit", DRAPE_SOLVER_IMPLICIT},
                                         {NULL, 0}};
static const enum_name SELF_MODES[] = {{"vertex-triangle", DRAPE_SELF_VERTEX_TRIANGLE},
                                       {"particle", DRAPE_SELF_PARTICLE},
                                       {NULL, 0}};

static const char *const GRID_KEYS[] = {"cols", "rows", "spacing", "origin", "plane", NULL};
static const char *const COMPLIANCE_KEYS[] = {"stretch", "shear", "bend", NULL};
static const char *const PIN_PATH_KEYS[] = {"pin", "vertex", "keys", NULL};
static const char *const MESH_KEYS[] = {"file", "scale", "translate", "rotate_deg", "weld", NULL};
static const char *const CLOTH_KEYS[] = {
    "name", "grid", "mesh", "mass_per_area", "particle_mass", "compliance", "damping",
    "thickness", "self_collision", "self_friction", "self_collision_mode", "self_collision_bounds", "tethers",
    "tear_ratio", "solver", "stiffness", "spring_damping", "bend_stiffness", "pins",
    "pin_vertices", "pin_box", "pin_paths", "velocity", "material", "drape_disk_radius",
    "color_front", "color_back", NULL};
static const char *const CLOTH_MATERIAL_KEYS[] = {"preset", "density", "stretch", "shear", "bend",
                                                  "damping", NULL};
static const char *const ROPE_MATERIAL_KEYS[] = {"density", "stretch", "bend", "damping", NULL};

/* "a", "b", ... of every preset, for messages. */
static void preset_names(char *buf, size_t cap) {
  buf[0] = '\0';
  for (int k = 0; k < drape_material_preset_count(); k++) {
    if (k) strncat(buf, ", ", cap - strlen(buf) - 1);
    strncat(buf, "\"", cap - strlen(buf) - 1);
    strncat(buf, drape_material_preset_at(k)->preset, cap - strlen(buf) - 1);
    strncat(buf, "\"", cap - strlen(buf) - 1);
  }
}

static int get_preset(drape_err *e, const char *path, const cJSON *v, drape_material_def *m) {
  char names[512];
  preset_names(names, sizeof names);
  if (!cJSON_IsString(v)) return failv(e, path, v, "expected a preset name, one of %s", names);
  const drape_material_def *p = drape_material_preset(v->valuestring);
  if (!p) return failv(e, path, v, "unknown material preset (allowed: %s)", names);
  *m = *p;
  return 0;
}

/* A cloth's stretch or bend: one number (warp and weft alike) or
 * [warp, weft]. */
static int get_pair(drape_err *e, const char *path, const cJSON *v, double out[2], const char *unit) {
  if (cJSON_IsNumber(v)) {
    if (get_num(e, path, v, &out[0])) return DRAPE_EINVAL;
    out[1] = out[0];
    return 0;
  }
  char what[96];
  dr_pathf(what, sizeof what, "[warp, weft] in %s (or one number for both)", unit);
  return get_vec(e, path, v, out, 2, what);
}

/* "material" of a cloth or a rope (docs/scenes.md "Material"): a preset
 * name, or an object that starts from "preset" and overrides some fields,
 * or gives them all. Ranges are drape_*_def_validate's (pass 2); here only
 * the shape of the JSON. Presets are cloth materials (kg/m^2, N/m), so a
 * rope has none: its fields are in other units. */
static int parse_material(drape_err *e, const char *path, const cJSON *k, int rope,
                          drape_material_def *m) {
  char q[256];
  if (cJSON_IsString(k)) {
    if (rope)
      return failv(e, path, k, "a rope's material is an object {\"density\": kg/m, \"stretch\": "
                   "EA N, \"bend\": EI N m^2, \"damping\": 1/s} (the presets are cloth materials)");
    return get_preset(e, path, k, m);
  }
  if (!cJSON_IsObject(k))
    return failv(e, path, k, rope ? "expected an object {\"density\": kg/m, \"stretch\": EA N, ...}"
                                  : "expected a preset name or an object {\"preset\": name, ...} or "
                                    "{\"density\", \"stretch\", \"shear\", \"bend\"}");
  if (rope) {
    /* Named here rather than as an unknown key: they are cloth keys. */
    static const char *const cloth_only[] = {"shear", "preset"};
    for (int i = 0; i < 2; i++) {
      const cJSON *g = cJSON_GetObjectItemCaseSensitive(k, cloth_only[i]);
      if (!g) continue;
      SUB(q, path, cloth_only[i]);
      return failv(e, q, g, i == 0 ? "a rope has no shear (its keys: density kg/m, stretch EA N, bend "
                                     "EI N m^2, damping 1/s)"
                                   : "the presets are cloth materials (kg/m^2, N/m); a rope gives "
                                     "density kg/m, stretch EA N, bend EI N m^2");
    }
  }
  if (check_keys(e, path, k, rope ? ROPE_MATERIAL_KEYS : CLOTH_MATERIAL_KEYS)) return DRAPE_EINVAL;
  const cJSON *preset = cJSON_GetObjectItemCaseSensitive(k, "preset");
  if (preset) {
    SUB(q, path, "preset");
    if (get_preset(e, q, preset, m)) return DRAPE_EINVAL;
  } else {
    memset(m, 0, sizeof *m);
    m->set = 1;
    m->damping = -1;
  }
  int r = 0;
  for (const cJSON *g = k->child; g && !r; g = g->next) {
    SUB(q, path, g->string);
    if (strcmp(g->string, "density") == 0) r = get_num(e, q, g, &m->density);
    else if (strcmp(g->string, "shear") == 0) r = get_num(e, q, g, &m->shear);
    else if (strcmp(g->string, "damping") == 0) r = get_num(e, q, g, &m->damping);
    else if (strcmp(g->string, "stretch") == 0 || strcmp(g->string, "bend") == 0) {
      const int bend = g->string[0] == 'b';
      double *out = bend ? m->bend : m->stretch;
      if (rope) {
        if (cJSON_IsArray(g))
          return failv(e, q, g, "expected one number in %s (a rope has no warp and weft)",
                       bend ? "N m^2 (EI)" : "N (EA)");
        r = get_num(e, q, g, &out[0]);
      } else {
        r = get_pair(e, q, g, out, bend ? "N m" : "N/m");
      }
    }
  }
  if (r || preset) return r;
  /* Without a preset nothing would say what a missing field is. */
  static const char *const need_cloth[] = {"density", "stretch", "shear", "bend", NULL};
  static const char *const need_rope[] = {"density", "stretch", NULL};
  const char *const *need = rope ? need_rope : need_cloth;
  for (int i = 0; need[i]; i++)
    if (!cJSON_GetObjectItemCaseSensitive(k, need[i])) {
      SUB(q, path, need[i]);
      if (rope)
        return drape_fail(e, DRAPE_EINVAL, "%s: missing (a rope's material gives density kg/m and "
                          "stretch EA N; bend EI N m^2 defaults to 0)", q);
      return drape_fail(e, DRAPE_EINVAL, "%s: missing (a material without \"preset\" gives density "
                        "kg/m^2, stretch N/m, shear N/m and bend N m)", q);
    }
  return 0;
}

/* A material says what the object's mass and stiffness are, so the
 * per-constraint keys would say it a second time, differently. `keys`:
 * NULL-terminated. */
static int material_conflict(drape_err *e, const char *path, const cJSON *o,
                             const char *const *keys, const char *why) {
  char p[256];
  for (int i = 0; keys[i]; i++) {
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
    if (!g) continue;
    SUB(p, path, keys[i]);
    return failv(e, p, g, "not with %s.material: %s", path, why);
  }
  return 0;
}

/* An array of integers (may be empty) into *out (malloc'd, NULL when
 * empty) and *n; `what` says what they are. */
static int get_int_array(drape_err *e, const char *path, const cJSON *v, int **out, int *n,
                         const char *what) {
  if (!cJSON_IsArray(v)) return failv(e, path, v, "expected an array of %s", what);
  const int count = cJSON_GetArraySize(v);
  *out = NULL;
  *n = 0;
  if (count == 0) return 0;
  *out = calloc((size_t)count, sizeof **out);
  if (!*out) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", path);
  *n = count;
  int i = 0;
  for (const cJSON *c = v->child; c; c = c->next, i++) {
    char p[256];
    dr_pathf(p, sizeof p, "%s[%d]", path, i);
    if (get_int(e, p, c, &(*out)[i])) return DRAPE_EINVAL;
  }
  return 0;
}

static int parse_pin_path(drape_err *e, const char *path, const cJSON *o, drape_pin_path *pp) {
  if (check_keys(e, path, o, PIN_PATH_KEYS)) return DRAPE_EINVAL;
  char p[256];
  const cJSON *pin = cJSON_GetObjectItemCaseSensitive(o, "pin");
  const cJSON *vertex = cJSON_GetObjectItemCaseSensitive(o, "vertex");
  const cJSON *keys = cJSON_GetObjectItemCaseSensitive(o, "keys");
  SUB(p, path, "pin");
  pp->row = pp->col = pp->vertex = -1;
  if (pin && vertex)
    return failv(e, p, pin, "give \"pin\" ([row, col], grid cloths) or \"vertex\" (mesh "
                 "cloths), not both");
  if (!pin && !vertex)
    return drape_fail(e, DRAPE_EINVAL, "%s: missing (the [row, col] that follows the path; "
                      "\"vertex\": i on a mesh cloth)", p);
  if (pin) {
    int cell[2];
    if (get_cell(e, p, pin, cell)) return DRAPE_EINVAL;
    pp->row = cell[0];
    pp->col = cell[1];
  } else {
    SUB(p, path, "vertex");
    if (get_int(e, p, vertex, &pp->vertex)) return DRAPE_EINVAL;
  }
  SUB(p, path, "keys");
  if (!keys) return drape_fail(e, DRAPE_EINVAL, "%s: missing (a list of [t, x, y, z])", p);
  if (!cJSON_IsArray(keys) || cJSON_GetArraySize(keys) < 1)
    return failv(e, p, keys, "expected a non-empty array of [t, x, y, z] keyframes");
  int n = cJSON_GetArraySize(keys);
  pp->keys = calloc((size_t)n, sizeof *pp->keys);
  if (!pp->keys) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
  pp->n_keys = n;
  int i = 0;
  for (const cJSON *c = keys->child; c; c = c->next, i++) {
    char q[256];
    dr_pathf(q, sizeof q, "%s[%d]", p, i);
    if (get_vec(e, q, c, pp->keys[i], 4, "[t, x, y, z]")) return DRAPE_EINVAL;
  }
  return 0;
}

static int parse_mesh(drape_err *e, const char *path, const cJSON *k, drape_cloth_mesh *m) {
  char q[256];
  int r = check_keys(e, path, k, MESH_KEYS);
  for (const cJSON *g = k->child; g && !r; g = g->next) {
    SUB(q, path, g->string);
    if (strcmp(g->string, "file") == 0) {
      if (!cJSON_IsString(g) || !g->valuestring[0])
        return failv(e, q, g, "expected the path of a mesh file (a non-empty string)");
      free(m->file);
      if (!(m->file = strdup(g->valuestring))) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", q);
    } else if (strcmp(g->string, "scale") == 0) {
      r = get_num(e, q, g, &m->scale);
    } else if (strcmp(g->string, "translate") == 0) {
      r = get_vec3(e, q, g, m->translate);
    } else if (strcmp(g->string, "rotate_deg") == 0) {
      r = get_vec(e, q, g, m->rotate_deg, 3, "[rx, ry, rz] (degrees, applied x then y then z)");
    } else {
      r = get_num(e, q, g, &m->weld);
    }
  }
  if (!r && !m->file)
    return drape_fail(e, DRAPE_EINVAL, "%s.file: missing (the path of a triangle mesh: OBJ, glTF, "
                      "PLY, STL, FBX, relative to the scene file)", path);
  return r;
}

static int parse_cloth(drape_err *e, const char *path, const cJSON *o, drape_cloth_def *c) {
  if (check_keys(e, path, o, CLOTH_KEYS)) return DRAPE_EINVAL;
  char p[256], q[256];
  int r = 0, tmp;
  const cJSON *grid = cJSON_GetObjectItemCaseSensitive(o, "grid");
  const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(o, "mesh");
  if (grid && mesh) {
    SUB(p, path, "mesh");
    return failv(e, p, mesh, "a cloth has either \"grid\" or \"mesh\", not both");
  }
  c->has_mesh = mesh != NULL;
  for (const cJSON *k = o->child; k && !r; k = k->next) {
    SUB(p, path, k->string);
    if (KEY("name")) {
      r = get_name(e, p, k, c->name);
    } else if (KEY("mesh")) {
      r = parse_mesh(e, p, k, &c->mesh);
    } else if (KEY("pin_vertices")) {
      if (!mesh) return failv(e, p, k, "only for mesh cloths (a grid cloth uses \"pins\": [[row, col], ...])");
      r = get_int_array(e, p, k, &c->pin_vertices, &c->n_pin_vertices, "vertex indices");
    } else if (KEY("pin_box")) {
      if (!mesh) return failv(e, p, k, "only for mesh cloths (a grid cloth uses \"pins\": [[row, col], ...])");
      if (!cJSON_IsArray(k) || cJSON_GetArraySize(k) != 2)
        return failv(e, p, k, "expected [[x0, y0, z0], [x1, y1, z1]] (two corners)");
      c->has_pin_box = 1;
      dr_pathf(q, sizeof q, "%s[0]", p);
      if ((r = get_vec3(e, q, k->child, c->pin_box[0]))) break;
      dr_pathf(q, sizeof q, "%s[1]", p);
      r = get_vec3(e, q, k->child->next, c->pin_box[1]);
    } else if (KEY("grid")) {
      if ((r = check_keys(e, p, k, GRID_KEYS))) break;
      for (const cJSON *g = k->child; g && !r; g = g->next) {
        SUB(q, p, g->string);
        if (strcmp(g->string, "cols") == 0) r = get_int(e, q, g, &c->cols);
        else if (strcmp(g->string, "rows") == 0) r = get_int(e, q, g, &c->rows);
        else if (strcmp(g->string, "spacing") == 0) r = get_num(e, q, g, &c->spacing);
        else if (strcmp(g->string, "origin") == 0) r = get_vec3(e, q, g, c->origin);
        else if (!(r = get_enum(e, q, g, PLANES, &tmp))) c->plane = (drape_plane)tmp;
      }
    } else if (KEY("mass_per_area")) {
      r = get_num(e, p, k, &c->mass_per_area);
    } else if (KEY("particle_mass")) {
      r = get_num(e, p, k, &c->particle_mass);
    } else if (KEY("compliance")) {
      if (cJSON_IsNumber(k))
        return failv(e, p, k,
                     "expected an object {\"stretch\": m/N, \"shear\": m/N, \"bend\": m/N} "
                     "(a single number is the rope form)");
      if ((r = check_keys(e, p, k, COMPLIANCE_KEYS))) break;
      for (const cJSON *g = k->child; g && !r; g = g->next) {
        SUB(q, p, g->string);
        if (strcmp(g->string, "stretch") == 0) r = get_num(e, q, g, &c->compliance_stretch);
        else if (strcmp(g->string, "shear") == 0) {
          r = get_num(e, q, g, &c->compliance_shear);
          if (!r && mesh)
            fprintf(stderr, "drape: warning: %s: a mesh cloth has no shear links (its edges are "
                    "stretch links, its bending is across edges): ignored\n", q);
        } else r = get_num(e, q, g, &c->compliance_bend);
      }
    } else if (KEY("damping")) {
      r = get_num(e, p, k, &c->damping);
    } else if (KEY("thickness")) {
      r = get_num(e, p, k, &c->thickness);
    } else if (KEY("self_collision")) {
      r = get_bool(e, p, k, &c->self_collision);
    } else if (KEY("self_friction")) {
      r = get_num(e, p, k, &c->self_friction);
    } else if (KEY("self_collision_mode")) {
      if (!(r = get_enum(e, p, k, SELF_MODES, &tmp))) c->self_mode = (drape_self_mode)tmp;
    } else if (KEY("self_collision_bounds")) {
      r = get_bool(e, p, k, &c->self_collision_bounds);
    } else if (KEY("velocity")) {
      r = get_vec3(e, p, k, c->velocity);
    } else if (KEY("material")) {
      r = parse_material(e, p, k, 0, &c->material);
    } else if (KEY("tethers")) {
      r = get_bool(e, p, k, &c->tethers);
    } else if (KEY("tear_ratio")) {
      r = get_num(e, p, k, &c->tear_ratio);
    } else if (KEY("drape_disk_radius")) {
      r = get_num(e, p, k, &c->drape_disk_radius);
    } else if (KEY("solver")) {
      if (cJSON_IsString(k) && strcmp(k->valuestring, "implicit") == 0)
        return failv(e, p, k,
                     "the implicit solver is for ropes only (cloth allows \"xpbd\", "
                     "\"jakobsen\", \"springs\")");
      if (!(r = get_enum(e, p, k, CLOTH_SOLVERS, &tmp))) c->solver = (drape_solver_kind)tmp;
    } else if (KEY("stiffness")) {
      r = get_num(e, p, k, &c->stiffness);
    } else if (KEY("spring_damping")) {
      r = get_num(e, p, k, &c->spring_damping);
    } else if (KEY("bend_stiffness")) {
      r = get_num(e, p, k, &c->bend_stiffness);
    } else if (KEY("pins")) {
      if (mesh) return failv(e, p, k, "[row, col] pins are for grid cloths (a mesh cloth uses \"pin_vertices\" or \"pin_box\")");
      if (!cJSON_IsArray(k)) return failv(e, p, k, "expected an array of [row, col] pairs");
      int n = cJSON_GetArraySize(k);
      if (n == 0) continue;
      c->pins = calloc((size_t)n, sizeof *c->pins);
      if (!c->pins) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
      c->n_pins = n;
      int i = 0;
      for (const cJSON *g = k->child; g && !r; g = g->next, i++) {
        dr_pathf(q, sizeof q, "%s[%d]", p, i);
        r = get_cell(e, q, g, c->pins[i]);
      }
    } else if (KEY("pin_paths")) {
      if (!cJSON_IsArray(k))
        return failv(e, p, k, "expected an array of {\"pin\": [row, col], \"keys\": [[t, x, y, z], ...]}");
      int n = cJSON_GetArraySize(k);
      if (n == 0) continue;
      c->pin_paths = calloc((size_t)n, sizeof *c->pin_paths);
      if (!c->pin_paths) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
      c->n_pin_paths = n;
      int i = 0;
      for (const cJSON *g = k->child; g && !r; g = g->next, i++) {
        dr_pathf(q, sizeof q, "%s[%d]", p, i);
        r = parse_pin_path(e, q, g, &c->pin_paths[i]);
        const drape_pin_path *pp = &c->pin_paths[i];
        if (!r && mesh && pp->vertex < 0)
          r = failv(e, q, cJSON_GetObjectItemCaseSensitive(g, "pin"),
                    "a mesh cloth's path follows a vertex: {\"vertex\": i, \"keys\": ...}");
        else if (!r && !mesh && pp->vertex >= 0)
          r = failv(e, q, cJSON_GetObjectItemCaseSensitive(g, "vertex"),
                    "\"vertex\" is for mesh cloths (a grid cloth's path follows \"pin\": [row, col])");
      }
    }
    /* color_front, color_back: presentation, read by parse_looks */
  }
  if (!r && cJSON_GetObjectItemCaseSensitive(o, "material")) {
    static const char *const clash[] = {"compliance", "mass_per_area", "particle_mass", NULL};
    r = material_conflict(e, path, o, clash,
                          "the material gives the cloth's mass (density) and stiffness in SI "
                          "units for any spacing; give one or the other");
    /* code reading mass_per_area (the float checks, tools) sees the
     * material's mass */
    if (!r) c->mass_per_area = c->material.density;
  }
  return r;
}

static const enum_name ROPE_STARTS[] = {{"auto", DRAPE_ROPE_START_AUTO},
                                        {"straight", DRAPE_ROPE_START_STRAIGHT},
                                        {NULL, 0}};

static const char *const ROPE_KEYS[] = {
    "name", "segments", "start", "end", "length", "mass_per_length", "compliance", "damping",
    "thickness", "pin_start", "pin_end", "start_shape", "tension_only", "solver", "ym", "points",
    "material", "color", NULL};

static int parse_rope(drape_err *e, const char *path, const cJSON *o, drape_rope_def *d) {
  if (check_keys(e, path, o, ROPE_KEYS)) return DRAPE_EINVAL;
  char p[256];
  int r = 0, tmp;
  for (const cJSON *k = o->child; k && !r; k = k->next) {
    SUB(p, path, k->string);
    if (KEY("name")) r = get_name(e, p, k, d->name);
    else if (KEY("segments")) r = get_int(e, p, k, &d->segments);
    else if (KEY("start")) r = get_vec3(e, p, k, d->start);
    else if (KEY("end")) r = get_vec3(e, p, k, d->end);
    else if (KEY("length")) r = get_num(e, p, k, &d->length);
    else if (KEY("mass_per_length")) r = get_num(e, p, k, &d->mass_per_length);
    else if (KEY("compliance")) {
      if (cJSON_IsObject(k))
        return failv(e, p, k, "expected a number in m/N (a rope has one compliance; the "
                              "{stretch, shear, bend} object is the cloth form)");
      r = get_num(e, p, k, &d->compliance);
    } else if (KEY("damping")) r = get_num(e, p, k, &d->damping);
    else if (KEY("thickness")) r = get_num(e, p, k, &d->thickness);
    else if (KEY("pin_start")) r = get_bool(e, p, k, &d->pin_start);
    else if (KEY("pin_end")) r = get_bool(e, p, k, &d->pin_end);
    else if (KEY("start_shape")) {
      if (!(r = get_enum(e, p, k, ROPE_STARTS, &tmp))) d->start_shape = (drape_rope_start)tmp;
    } else if (KEY("tension_only")) r = get_bool(e, p, k, &d->tension_only);
    else if (KEY("solver")) {
      if (cJSON_IsString(k) && strcmp(k->valuestring, "springs") == 0)
        return failv(e, p, k,
                     "the springs solver is for cloth only (a rope allows \"xpbd\", "
                     "\"jakobsen\", \"implicit\")");
      if (!(r = get_enum(e, p, k, ROPE_SOLVERS, &tmp))) d->solver = (drape_solver_kind)tmp;
    } else if (KEY("ym")) r = get_num(e, p, k, &d->ym);
    else if (KEY("material")) r = parse_material(e, p, k, 1, &d->material);
    else if (KEY("points")) {
      if (!cJSON_IsArray(k) || cJSON_GetArraySize(k) < 2)
        return failv(e, p, k, "expected an array of segments + 1 (at least 2) [x, y, z] points");
      const int n = cJSON_GetArraySize(k);
      free(d->points);
      d->points = calloc((size_t)n, sizeof *d->points);
      if (!d->points) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
      d->n_points = n;
      int i = 0;
      for (const cJSON *g = k->child; g && !r; g = g->next, i++) {
        char q[256];
        dr_pathf(q, sizeof q, "%s[%d]", p, i);
        r = get_vec3(e, q, g, d->points[i]);
      }
    }
    /* color: presentation, read by parse_looks */
  }
  if (!r && cJSON_GetObjectItemCaseSensitive(o, "material")) {
    static const char *const clash[] = {"compliance", "mass_per_length", NULL};
    r = material_conflict(e, path, o, clash,
                          "the material gives the rope's mass (density) and stiffness (EA, EI) in "
                          "SI units for any segment count; give one or the other");
    if (!r) d->mass_per_length = d->material.density;
  }
  return r;
}

static const char *const STRING_KEYS[] = {
    "name", "nodes", "length", "mu", "EA", "etaA", "B", "D", "h", "anchor", "z", "hand",
    "release_at", "color", NULL};

static int parse_string(drape_err *e, const char *path, const cJSON *o, drape_string_def *d) {
  if (check_keys(e, path, o, STRING_KEYS)) return DRAPE_EINVAL;
  char p[256], q[256];
  int r = 0;
  for (const cJSON *k = o->child; k && !r; k = k->next) {
    SUB(p, path, k->string);
    if (KEY("name")) r = get_name(e, p, k, d->name);
    else if (KEY("nodes")) r = get_int(e, p, k, &d->nodes);
    else if (KEY("length")) r = get_num(e, p, k, &d->length);
    else if (KEY("mu")) r = get_num(e, p, k, &d->mu);
    else if (KEY("EA")) r = get_num(e, p, k, &d->EA);
    else if (KEY("etaA")) r = get_num(e, p, k, &d->etaA);
    else if (KEY("B")) r = get_num(e, p, k, &d->B);
    else if (KEY("D")) r = get_num(e, p, k, &d->D);
    else if (KEY("h")) r = get_num(e, p, k, &d->h);
    else if (KEY("anchor")) r = get_vec(e, p, k, d->anchor, 2, "[x, y]");
    else if (KEY("z")) r = get_num(e, p, k, &d->z);
    else if (KEY("release_at")) r = get_num(e, p, k, &d->release_at);
    else if (KEY("hand")) {
      if (!cJSON_IsArray(k)) return failv(e, p, k, "expected an array of [t, x, y] targets");
      int n = cJSON_GetArraySize(k);
      if (n == 0) continue;
      d->hand = calloc((size_t)n, sizeof *d->hand);
      if (!d->hand) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
      d->n_hand = n;
      int i = 0;
      for (const cJSON *g = k->child; g && !r; g = g->next, i++) {
        dr_pathf(q, sizeof q, "%s[%d]", p, i);
        r = get_vec(e, q, g, d->hand[i], 3, "[t, x, y]");
      }
    }
    /* color: presentation, read by parse_looks */
  }
  return r;
}

static const char *const SPHERE_KEYS[] = {"center", "radius", "velocity", "friction", NULL};

static int parse_sphere(drape_err *e, const char *path, const cJSON *o, drape_sphere_def *d) {
  if (check_keys(e, path, o, SPHERE_KEYS)) return DRAPE_EINVAL;
  char p[256];
  int r = 0;
  for (const cJSON *k = o->child; k && !r; k = k->next) {
    SUB(p, path, k->string);
    if (KEY("center")) r = get_vec3(e, p, k, d->center);
    else if (KEY("radius")) r = get_num(e, p, k, &d->radius);
    else if (KEY("velocity")) r = get_vec3(e, p, k, d->velocity);
    else r = get_num(e, p, k, &d->friction);
  }
  return r;
}

static const char *const TOP_KEYS[] = {
    "description", "gravity", "dt", "substeps", "iterations", "wind", "wind_drag", "cloth",
    "rope", "string", "sphere", "stitch", "floor", "camera", "render", "frames", "capsule",
    "collider", "warm_start", "multilevel", NULL};
static const char *const STITCH_KEYS[] = {"a", "b", "a_vertices", "b_vertices", "compliance",
                                          "close_time", NULL};

static int parse_stitch(drape_err *e, const char *path, const cJSON *o, drape_stitch_def *d) {
  if (check_keys(e, path, o, STITCH_KEYS)) return DRAPE_EINVAL;
  char p[256];
  int r = 0, na = -1, nb = -1;
  static const char *const need[] = {"a", "b", "a_vertices", "b_vertices"};
  for (int i = 0; i < 4; i++)
    if (!cJSON_GetObjectItemCaseSensitive(o, need[i])) {
      SUB(p, path, need[i]);
      return drape_fail(e, DRAPE_EINVAL, "%s: missing (a stitch needs \"a\", \"b\" (cloth "
                        "names), \"a_vertices\", \"b_vertices\")", p);
    }
  for (const cJSON *k = o->child; k && !r; k = k->next) {
    SUB(p, path, k->string);
    if (KEY("a")) r = get_name(e, p, k, d->a);
    else if (KEY("b")) r = get_name(e, p, k, d->b);
    else if (KEY("a_vertices")) r = get_int_array(e, p, k, &d->a_vertices, &na, "vertex indices");
    else if (KEY("b_vertices")) r = get_int_array(e, p, k, &d->b_vertices, &nb, "vertex indices");
    else if (KEY("compliance")) r = get_num(e, p, k, &d->compliance);
    else r = get_num(e, p, k, &d->close_time);
  }
  if (r) return r;
  if (na != nb) {
    SUB(p, path, "b_vertices");
    return failv(e, p, cJSON_GetObjectItemCaseSensitive(o, "b_vertices"),
                 "has %d entries, a_vertices %d: vertex i of a is sewn to vertex i of b, so the "
                 "counts must match", nb, na);
  }
  if (na == 0) {
    SUB(p, path, "a_vertices");
    return failv(e, p, cJSON_GetObjectItemCaseSensitive(o, "a_vertices"), "expected at least one vertex");
  }
  d->n = na;
  return 0;
}
static const char *const FLOOR_KEYS[] = {"height", "friction", NULL};
static const char *const CAMERA_KEYS[] = {"eye", "target", "fov_deg", NULL};
static const char *const RENDER_KEYS[] = {"width", "height", NULL};

/* The colour keys of the objects of array `key` (cloth, rope, string):
 * presentation, into the render def's looks. Only objects are looked at;
 * what else the array holds is the scene loader's to refuse. */
static int parse_looks(drape_err *e, const char *key, const cJSON *arr, drape_render_def *v) {
  if (!cJSON_IsArray(arr) || !strcmp(key, "sphere") || !strcmp(key, "stitch")) return 0;
  const drape_look_kind kind = !strcmp(key, "cloth") ? DRAPE_LOOK_CLOTH
                               : !strcmp(key, "rope") ? DRAPE_LOOK_ROPE : DRAPE_LOOK_STRING;
  char p[256];
  int i = 0, r = 0;
  for (const cJSON *g = arr->child; g && !r; g = g->next, i++) {
    if (!cJSON_IsObject(g)) continue;
    float front[3], back[3];
    int has_front = 0, has_back = 0;
    drape_render_def_color(NULL, kind, i, front, back);
    for (const cJSON *m = g->child; m && !r; m = m->next) {
      int is_back = strcmp(m->string, "color_back") == 0;
      if (strcmp(m->string, kind == DRAPE_LOOK_CLOTH ? "color_front" : "color") && !is_back)
        continue;
      if (is_back && kind != DRAPE_LOOK_CLOTH) continue; /* not a key of ropes: check_keys */
      dr_pathf(p, sizeof p, "%s[%d].%s", key, i, m->string);
      r = get_color(e, p, m, is_back ? back : front);
      has_back |= is_back;
      has_front |= !is_back;
    }
    if (!r && (has_front || has_back))
      r = drape_render_def_set_color(v, kind, i, front, kind == DRAPE_LOOK_CLOTH ? back : NULL, e);
  }
  return r;
}

/* The top-level object: presentation keys ("camera", "render") into *v,
 * everything else into *s. s = NULL (drape_render_def_parse) reads only
 * the presentation keys, after the same top-level key check. */
static int parse_top(drape_err *e, const cJSON *root, drape_scene *s, drape_render_def *v) {
  if (!cJSON_IsObject(root))
    return failv(e, "scene", root, "expected a JSON object {...} at the top level");
  if (check_keys(e, "", root, TOP_KEYS)) return DRAPE_EINVAL;
  char p[256];
  int r = 0;
  for (const cJSON *k = root->child; k && !r; k = k->next) {
    const char *key = k->string;
    if (!s && !KEY("camera") && !KEY("render")) {
      r = parse_looks(e, key, k, v);
      continue;
    }
    if (KEY("description")) {
      if (!cJSON_IsString(k)) r = failv(e, key, k, "expected a string");
    } else if (KEY("gravity")) r = get_vec3(e, key, k, s->gravity);
    else if (KEY("dt")) r = get_num(e, key, k, &s->dt);
    else if (KEY("substeps")) r = get_int(e, key, k, &s->substeps);
    else if (KEY("iterations")) r = get_int(e, key, k, &s->iterations);
    else if (KEY("warm_start")) r = get_bool(e, key, k, &s->warm_start);
    else if (KEY("multilevel")) r = get_bool(e, key, k, &s->multilevel);
    else if (KEY("wind")) r = get_vec3(e, key, k, s->wind);
    else if (KEY("wind_drag")) r = get_num(e, key, k, &s->wind_drag);
    else if (KEY("frames")) r = get_int(e, key, k, &s->frames);
    else if (KEY("floor")) {
      if ((r = check_keys(e, key, k, FLOOR_KEYS))) break;
      s->has_floor = 1;
      for (const cJSON *g = k->child; g && !r; g = g->next) {
        SUB(p, key, g->string);
        if (strcmp(g->string, "height") == 0) r = get_num(e, p, g, &s->floor_height);
        else r = get_num(e, p, g, &s->floor_friction);
      }
    } else if (KEY("camera")) {
      if ((r = check_keys(e, key, k, CAMERA_KEYS))) break;
      for (const cJSON *g = k->child; g && !r; g = g->next) {
        SUB(p, key, g->string);
        if (strcmp(g->string, "eye") == 0) {
          r = get_vec3(e, p, g, v->camera.eye);
          v->camera.has_eye = 1;
        } else if (strcmp(g->string, "target") == 0) {
          r = get_vec3(e, p, g, v->camera.target);
          v->camera.has_target = 1;
        } else {
          r = get_num(e, p, g, &v->camera.fov_deg);
        }
      }
    } else if (KEY("capsule") || KEY("collider")) {
      r = dr_collider_parse(e, key, k, s); /* collider_defs.c */
    } else if (KEY("render")) {
      if ((r = check_keys(e, key, k, RENDER_KEYS))) break;
      for (const cJSON *g = k->child; g && !r; g = g->next) {
        SUB(p, key, g->string);
        r = get_int(e, p, g, strcmp(g->string, "width") == 0 ? &v->width : &v->height);
      }
    } else {
      /* cloth, rope, string, sphere: arrays of objects. Each def is added
       * to the scene before it is filled, so whatever it owns is freed by
       * drape_scene_free() if a later key fails. */
      if (!cJSON_IsArray(k)) {
        r = failv(e, key, k, "expected an array of objects [{...}, ...]");
        break;
      }
      int i = 0;
      for (const cJSON *g = k->child; g && !r; g = g->next, i++) {
        dr_pathf(p, sizeof p, "%s[%d]", key, i);
        if (KEY("cloth")) {
          drape_cloth_def d = drape_cloth_def_default();
          drape_cloth_def *c = drape_scene_add_cloth(s, &d);
          r = c ? parse_cloth(e, p, g, c) : drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
        } else if (KEY("rope")) {
          drape_rope_def d = drape_rope_def_default();
          drape_rope_def *c = drape_scene_add_rope(s, &d);
          r = c ? parse_rope(e, p, g, c) : drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
        } else if (KEY("stitch")) {
          drape_stitch_def d = drape_stitch_def_default();
          drape_stitch_def *c = drape_scene_add_stitch(s, &d);
          r = c ? parse_stitch(e, p, g, c) : drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
        } else if (KEY("string")) {
          drape_string_def d = drape_string_def_default();
          drape_string_def *c = drape_scene_add_string(s, &d);
          r = c ? parse_string(e, p, g, c) : drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
        } else {
          drape_sphere_def d = drape_sphere_def_default();
          drape_sphere_def *c = drape_scene_add_sphere(s, &d);
          r = c ? parse_sphere(e, p, g, c) : drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", p);
        }
      }
      if (!r) r = parse_looks(e, key, k, v);
    }
  }
  return r;
}

/* Line and column (1-based) of byte offset `at` in text. */
static void line_col(const char *text, size_t at, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < at && text[i]; i++) {
    if (text[i] == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

/* Prefixes e->msg with "label: " so a message names the file. */
static int with_label(drape_err *e, const char *label, int code) {
  if (e && label && label[0]) {
    char tmp[sizeof e->msg];
    memcpy(tmp, e->msg, sizeof tmp);
    dr_pathf(e->msg, sizeof e->msg, "%s: %s", label, tmp);
  }
  return code;
}

/* ---- strict JSON (RFC 8259) on top of cJSON ------------------------------
 *
 * cJSON is lenient where docs/scenes.md promises strict JSON: it skips a
 * UTF-8 byte order mark, reads numbers with strtod (so 01, -01, 1. and -.5
 * pass), treats every control character as white space and takes raw
 * control characters and malformed UTF-8 inside strings. This scan runs
 * before cJSON and rejects exactly those, naming line and column; cJSON
 * then checks the structure. It is lexical only: it walks strings (with
 * their escapes) and the runs of number characters between them. */

/* Length of the UTF-8 sequence at p (1..4), or 0 if it is not well formed
 * (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
static int utf8_len(const unsigned char *p) {
  unsigned c = p[0];
  if (c < 0x80) return 1;
  int n;
  unsigned min, cp;
  if (c >= 0xc2 && c <= 0xdf) { n = 2; min = 0x80; cp = c & 0x1f; }
  else if (c >= 0xe0 && c <= 0xef) { n = 3; min = 0x800; cp = c & 0x0f; }
  else if (c >= 0xf0 && c <= 0xf4) { n = 4; min = 0x10000; cp = c & 0x07; }
  else return 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

/* A JSON number, exactly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * Returns NULL if tok[0..n) is one, else what is wrong with it. */
static const char *json_number_error(const char *tok, size_t n) {
  size_t i = 0;
  if (i < n && tok[i] == '-') i++;
  if (i >= n || tok[i] < '0' || tok[i] > '9') return "a number needs a digit before any '.' or 'e'";
  if (tok[i] == '0' && i + 1 < n && tok[i + 1] >= '0' && tok[i + 1] <= '9')
    return "leading zeros are not allowed (write 1, not 01)";
  while (i < n && tok[i] >= '0' && tok[i] <= '9') i++;
  if (i < n && tok[i] == '.') {
    size_t d = ++i;
    while (i < n && tok[i] >= '0' && tok[i] <= '9') i++;
    if (i == d) return "a '.' must be followed by digits (write 1.0 or 1, not 1.)";
  }
  if (i < n && (tok[i] == 'e' || tok[i] == 'E')) {
    i++;
    if (i < n && (tok[i] == '+' || tok[i] == '-')) i++;
    size_t d = i;
    while (i < n && tok[i] >= '0' && tok[i] <= '9') i++;
    if (i == d) return "an exponent needs digits (write 1e5, not 1e)";
  }
  if (i != n) return "not a JSON number";
  return NULL;
}

static int strict_fail(drape_err *e, const char *text, size_t at, const char *fmt, ...)
    DRAPE_PRINTF(4, 5);
static int strict_fail(drape_err *e, const char *text, size_t at, const char *fmt, ...) {
  int line, col;
  line_col(text, at, &line, &col);
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return drape_fail(e, DRAPE_EINVAL, "JSON syntax error at line %d, column %d: %s (scene files are strict JSON)",
                    line, col, why);
}

static int strict_json_scan(const char *text, drape_err *e) {
  const unsigned char *t = (const unsigned char *)text;
  if (t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf)
    return strict_fail(e, text, 0,
                       "the text starts with a UTF-8 byte order mark (EF BB BF); save the file as "
                       "UTF-8 without a BOM");
  size_t i = 0;
  while (t[i]) {
    unsigned c = t[i];
    if (c == '"') {
      i++;
      while (t[i] && t[i] != '"') {
        if (t[i] < 0x20)
          return strict_fail(e, text, i,
                             "control character U+%04X inside a string (write it as an escape, "
                             "e.g. \\n or \\t)", t[i]);
        if (t[i] == '\\') {
          /* \u0000 would end the C string cJSON hands on: "m.obj\u0000.png"
           * would read as "m.obj" */
          if (t[i + 1] == 'u' && t[i + 2] == '0' && t[i + 3] == '0' && t[i + 4] == '0' &&
              t[i + 5] == '0')
            return strict_fail(e, text, i,
                               "\\u0000 inside a string: a NUL character would cut the string "
                               "short, so no string may hold one");
          /* skip the escaped character if it is ASCII (cJSON checks the
           * escape); a non-ASCII byte is checked as UTF-8 next round */
          i += t[i + 1] && t[i + 1] < 0x80 ? 2 : 1;
          continue;
        }
        int n = utf8_len(t + i);
        if (!n) return strict_fail(e, text, i, "byte 0x%02X is not valid UTF-8", t[i]);
        i += (size_t)n;
      }
      if (!t[i]) return 0; /* unterminated: cJSON reports it */
      i++;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      /* the run cJSON hands to strtod */
      size_t n = 0;
      while (t[i + n] && strchr("0123456789+-.eE", t[i + n])) n++;
      char tok[48];
      size_t show = n < sizeof tok - 1 ? n : sizeof tok - 1;
      memcpy(tok, text + i, show);
      tok[show] = '\0';
      const char *why = json_number_error(text + i, n);
      if (why) return strict_fail(e, text, i, "number '%s%s': %s", tok, show < n ? "..." : "", why);
      i += n;
    } else if (c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      return strict_fail(e, text, i,
                         "control character U+%04X (white space is only space, tab, CR and LF)", c);
    } else if (c >= 0x80) {
      return strict_fail(e, text, i, "byte 0x%02X outside a string", c);
    } else {
      i++;
    }
  }
  return 0;
}

/* Strict JSON text -> cJSON tree (shared by the scene and the render def,
 * so both give the same syntax messages). */
static int parse_json(const char *json_text, const char *label, cJSON **root, drape_err *e) {
  *root = NULL;
  if (!json_text) return drape_fail(e, DRAPE_EINVAL, "%s: no scene text", label ? label : "scene");
  if (strict_json_scan(json_text, e)) return with_label(e, label, DRAPE_EINVAL);
  const char *end = NULL;
  /* require_null_terminated: trailing text after the top-level value is
   * an error too (two objects pasted into one file). */
  *root = cJSON_ParseWithOpts(json_text, &end, 1);
  if (!*root) {
    size_t at = end ? (size_t)(end - json_text) : 0;
    int line, col;
    line_col(json_text, at, &line, &col);
    char near[32];
    size_t n = 0;
    if (end)
      while (n + 1 < sizeof near && end[n] && end[n] != '\n' && end[n] != '\r') {
        near[n] = end[n];
        n++;
      }
    near[n] = '\0';
    drape_fail(e, DRAPE_EINVAL,
               "JSON syntax error at line %d, column %d%s%s%s (scene files are strict JSON: "
               "no comments, no trailing commas, no NaN or Infinity)",
               line, col,
               n ? " near '" : (end && *end) ? " (at the end of the line)" : " (at the end of the text)",
               near, n ? "'" : "");
    return with_label(e, label, DRAPE_EINVAL);
  }
  return 0;
}

int drape_scene_parse(const char *json_text, const char *label, drape_scene *out, drape_err *e) {
  return drape_scene_parse_in(json_text, label, NULL, out, e);
}

int drape_scene_parse_in(const char *json_text, const char *label, const char *base_dir,
                         drape_scene *out, drape_err *e) {
  drape_scene_init(out);
  cJSON *root;
  if (parse_json(json_text, label, &root, e)) return DRAPE_EINVAL;
  /* The presentation keys are read and checked here too, so a scene file
   * is valid or not as a whole, whoever loads it; they are then dropped. */
  drape_render_def view = drape_render_def_default();
  int r = parse_top(e, root, out, &view);
  cJSON_Delete(root);
  /* mesh files, once the whole text has parsed (a syntax error further on
   * is reported without reading any file) */
  for (int i = 0; i < out->n_cloth && !r; i++)
    if (out->cloth[i].has_mesh) r = drape_cloth_mesh_load(&out->cloth[i], i, base_dir, e);
  if (!r) r = dr_collider_scene_load(out, base_dir, e);
  if (!r) r = drape_scene_validate(out, e);
  if (!r) r = drape_render_def_validate(&view, e);
  drape_render_def_free(&view);
  if (r) {
    drape_scene_free(out);
    drape_scene_init(out);
    return with_label(e, label, r);
  }
  return 0;
}

int drape_render_def_parse(const char *json_text, const char *label, drape_render_def *out,
                           drape_err *e) {
  *out = drape_render_def_default();
  cJSON *root;
  if (parse_json(json_text, label, &root, e)) return DRAPE_EINVAL;
  int r = parse_top(e, root, NULL, out);
  cJSON_Delete(root);
  if (!r) r = drape_render_def_validate(out, e);
  if (r) {
    drape_render_def_free(out);
    return with_label(e, label, r);
  }
  return 0;
}

/* What a path that is not a regular file is, for the message. */
static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "neither a file nor a directory";
}

/* Reads a scene file whole into *text (malloc'd, NUL-terminated). */
static int read_scene_text(const char *path, char **out_text, drape_err *e) {
  *out_text = NULL;
  if (!path || !path[0]) return drape_fail(e, DRAPE_EINVAL, "scene file: no path given");
  /* O_NONBLOCK: opening a FIFO for reading blocks until a writer comes
   * (fopen() hung forever on `drape run FIFO`); with it, open() returns at
   * once and fstat() tells what the path is. Only regular files are read,
   * so no device, pipe or directory is ever read from. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return drape_fail(e, DRAPE_EINVAL, "scene file '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return drape_fail(e, DRAPE_EINVAL, "scene file '%s': %s", path, strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return drape_fail(e, DRAPE_EINVAL, "scene file '%s': not a regular file (it is %s)", path,
                      file_kind(st.st_mode));
  }
  /* Scene files are small; 64 MiB is far beyond any hand-written scene and
   * keeps a wrong path (a video) from being read whole. */
  const long long max_bytes = DRAPE_MAX_SCENE_FILE_BYTES;
  long long n = (long long)st.st_size;
  if (n > max_bytes) {
    close(fd);
    return drape_fail(e, DRAPE_EINVAL, "scene file '%s': %lld bytes, more than the %lld allowed",
                      path, n, max_bytes);
  }
  char *text = malloc((size_t)n + 1);
  if (!text) {
    close(fd);
    return drape_fail(e, DRAPE_ENOMEM, "scene file '%s': out of memory", path);
  }
  size_t got = 0;
  int rerr = 0;
  while (got < (size_t)n) {
    ssize_t k = read(fd, text + got, (size_t)n - got);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) rerr = errno;
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd);
  if (got != (size_t)n) {
    free(text);
    return drape_fail(e, DRAPE_EINVAL, "scene file '%s': read error (%s)", path,
                      rerr ? strerror(rerr) : "the file shrank while it was read");
  }
  text[n] = '\0';
  if (strlen(text) != (size_t)n) {
    free(text);
    return drape_fail(e, DRAPE_EINVAL, "scene file '%s': contains a NUL byte (not a JSON text file)",
                      path);
  }
  *out_text = text;
  return 0;
}

int drape_scene_load(const char *path, drape_scene *out, drape_err *e) {
  drape_scene_init(out);
  char *text;
  int r = read_scene_text(path, &text, e);
  if (r) return r;
  char label[512], dir[4096];
  dr_pathf(label, sizeof label, "scene file '%s'", path);
  /* mesh files are relative to the scene file's folder */
  dr_pathf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
  else dir[0] = '\0';
  r = drape_scene_parse_in(text, label, dir[0] ? dir : NULL, out, e);
  free(text);
  return r;
}

int drape_render_def_load(const char *scene_path, drape_render_def *out, drape_err *e) {
  *out = drape_render_def_default();
  char *text;
  int r = read_scene_text(scene_path, &text, e);
  if (r) return r;
  char label[512];
  dr_pathf(label, sizeof label, "scene file '%s'", scene_path);
  r = drape_render_def_parse(text, label, out, e);
  free(text);
  return r;
}
