/* Capsule and mesh collider defs (include/drape/collider.h): defaults,
 * the scene keys "capsule" and "collider" (called from scene.c's top
 * level), validation, mesh loading through the mesh cloth loader
 * (mesh_load.c, not a second one) and the rigid key motion. */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/collider_defs.h"
#include "core/util.h"
#include "core/validate.h"
#include "drape/limits.h"
#include "drape/scene.h"

#define DEG (3.14159265358979323846 / 180.0)

drape_capsule_def drape_capsule_def_default(void) {
  drape_capsule_def d;
  memset(&d, 0, sizeof d);
  d.radius = 0.1;
  d.friction = 0.3;
  return d;
}

drape_collider_def drape_collider_def_default(void) {
  drape_collider_def d;
  memset(&d, 0, sizeof d);
  d.scale = 1.0;
  d.friction = 0.3;
  d.thickness = 0.005;
  d.seq_fps = 30.0;
  d.seq_first = 1;
  return d;
}

void drape_capsule_def_free(drape_capsule_def *d) {
  if (!d) return;
  free(d->keys);
  d->keys = NULL, d->n_keys = 0;
}

void drape_collider_def_free(drape_collider_def *d) {
  if (!d) return;
  free(d->keys);
  free(d->file);
  free(d->vertices);
  free(d->tris);
  free(d->seq_files);
  free(d->seq_vertices);
  d->seq_files = NULL, d->seq_vertices = NULL, d->seq_n = 0;
  d->keys = NULL, d->n_keys = 0;
  d->file = NULL;
  d->vertices = NULL, d->n_vertices = 0;
  d->tris = NULL, d->n_tris = 0;
}

void dr_collider_scene_free(drape_scene *s) {
  for (int i = 0; i < s->n_capsule; i++) drape_capsule_def_free(&s->capsule[i]);
  for (int i = 0; i < s->n_collider; i++) drape_collider_def_free(&s->collider[i]);
  free(s->capsule);
  free(s->collider);
  s->capsule = NULL, s->n_capsule = 0;
  s->collider = NULL, s->n_collider = 0;
}

/* ---- validation ---------------------------------------------------------- */

static int keys_check(drape_err *e, const char *base, const double (*k)[7], int n) {
  char p[160];
  if (n > DRAPE_MAX_COLLIDER_KEYS)
    return drape_fail(e, DRAPE_EINVAL, "%s.keys: %d keys, more than %d (DRAPE_MAX_COLLIDER_KEYS)",
                      base, n, DRAPE_MAX_COLLIDER_KEYS);
  for (int i = 0; i < n; i++) {
    dr_pathf(p, sizeof p, "%s.keys[%d][0]", base, i);
    if (vd_range(e, p, k[i][0], 0, 1, DRAPE_MAX_KEY_TIME, 1)) return DRAPE_EINVAL;
    if (i > 0 && !(k[i][0] > k[i - 1][0]))
      return drape_fail(e, DRAPE_EINVAL, "%s = %s: key times must increase (keys[%d] is at t = %s)",
                        p, dr_num(k[i][0]), i - 1, dr_num(k[i - 1][0]));
    for (int q = 1; q < 7; q++) {
      dr_pathf(p, sizeof p, "%s.keys[%d][%d]", base, i, q);
      if (vd_range(e, p, k[i][q], -DRAPE_MAX_COORD, 1, DRAPE_MAX_COORD, 1)) return DRAPE_EINVAL;
    }
  }
  return 0;
}

int drape_capsule_def_validate(const drape_capsule_def *d, int i, drape_err *e) {
  char base[48], p[96];
  dr_pathf(base, sizeof base, "capsule[%d]", i);
  if (!d) return drape_fail(e, DRAPE_EINVAL, "%s: NULL", base);
  for (int q = 0; q < 3; q++) {
    dr_pathf(p, sizeof p, "%s.a[%d]", base, q);
    if (vd_range(e, p, d->a[q], -DRAPE_MAX_COORD, 1, DRAPE_MAX_COORD, 1)) return DRAPE_EINVAL;
    dr_pathf(p, sizeof p, "%s.b[%d]", base, q);
    if (vd_range(e, p, d->b[q], -DRAPE_MAX_COORD, 1, DRAPE_MAX_COORD, 1)) return DRAPE_EINVAL;
  }
  dr_pathf(p, sizeof p, "%s.radius", base);
  if (vd_range(e, p, d->radius, 0, 0, DRAPE_MAX_SPHERE_RADIUS, 1)) return DRAPE_EINVAL;
  dr_pathf(p, sizeof p, "%s.friction", base);
  if (vd_range(e, p, d->friction, 0, 1, DRAPE_MAX_FRICTION, 1)) return DRAPE_EINVAL;
  if (d->n_keys < 0 || (d->n_keys > 0 && !d->keys))
    return drape_fail(e, DRAPE_EINVAL, "%s.keys: %d keys without an array", base, d->n_keys);
  return keys_check(e, base, (const double(*)[7])d->keys, d->n_keys);
}

int drape_collider_def_validate(const drape_collider_def *d, int i, drape_err *e) {
  char base[48], p[96];
  dr_pathf(base, sizeof base, "collider[%d]", i);
  if (!d) return drape_fail(e, DRAPE_EINVAL, "%s: NULL", base);
  dr_pathf(p, sizeof p, "%s.friction", base);
  if (vd_range(e, p, d->friction, 0, 1, DRAPE_MAX_FRICTION, 1)) return DRAPE_EINVAL;
  dr_pathf(p, sizeof p, "%s.thickness", base);
  if (vd_range(e, p, d->thickness, 0, 1, DRAPE_MAX_THICKNESS, 1)) return DRAPE_EINVAL;
  if (d->n_tris <= 0 || !d->tris || d->n_vertices <= 0 || !d->vertices)
    return drape_fail(e, DRAPE_EINVAL, "%s.mesh: no triangles (give mesh.file, a triangle mesh)",
                      base);
  if (d->n_tris > DRAPE_MAX_COLLIDER_TRIS)
    return drape_fail(e, DRAPE_EINVAL, "%s.mesh: %d triangles, more than %d "
                      "(DRAPE_MAX_COLLIDER_TRIS)", base, d->n_tris, DRAPE_MAX_COLLIDER_TRIS);
  for (int t = 0; t < 3 * d->n_tris; t++)
    if (d->tris[t] < 0 || d->tris[t] >= d->n_vertices)
      return drape_fail(e, DRAPE_EINVAL, "%s.mesh: triangle %d names vertex %d of %d", base, t / 3,
                        d->tris[t], d->n_vertices);
  for (int v = 0; v < 3 * d->n_vertices; v++)
    if (!(fabs(d->vertices[v]) <= DRAPE_MAX_COORD))
      return drape_fail(e, DRAPE_EINVAL, "%s.mesh: vertex %d has coordinate %s (at most %s in "
                        "size after the transform)", base, v / 3, dr_num(d->vertices[v]),
                        dr_num(DRAPE_MAX_COORD));
  if (d->n_keys < 0 || (d->n_keys > 0 && !d->keys))
    return drape_fail(e, DRAPE_EINVAL, "%s.keys: %d keys without an array", base, d->n_keys);
  if (d->seq_files) {
    dr_pathf(p, sizeof p, "%s.sequence.fps", base);
    if (vd_range(e, p, d->seq_fps, 0, 0, DRAPE_MAX_SEQUENCE_FPS, 1)) return DRAPE_EINVAL;
    dr_pathf(p, sizeof p, "%s.sequence.first", base);
    if (vd_range(e, p, d->seq_first, 0, 1, DRAPE_MAX_SEQUENCE_FIRST, 1)) return DRAPE_EINVAL;
    if (d->seq_n < 1 || !d->seq_vertices)
      return drape_fail(e, DRAPE_EINVAL, "%s.sequence: no frames loaded", base);
    for (size_t v = 0; v < 3 * (size_t)d->n_vertices * (size_t)d->seq_n; v++)
      if (!(fabs(d->seq_vertices[v]) <= DRAPE_MAX_COORD))
        return drape_fail(e, DRAPE_EINVAL, "%s.sequence: frame %zu has a coordinate %s", base,
                          v / (3 * (size_t)d->n_vertices), dr_num(d->seq_vertices[v]));
  }
  return keys_check(e, base, (const double(*)[7])d->keys, d->n_keys);
}

int dr_collider_scene_validate(const drape_scene *s, drape_err *e) {
  if (s->n_capsule < 0 || s->n_collider < 0 || (s->n_capsule && !s->capsule) ||
      (s->n_collider && !s->collider))
    return drape_fail(e, DRAPE_EINVAL, "scene: capsule or collider counts without arrays");
  for (int i = 0; i < s->n_capsule; i++)
    if (drape_capsule_def_validate(&s->capsule[i], i, e)) return DRAPE_EINVAL;
  for (int i = 0; i < s->n_collider; i++)
    if (drape_collider_def_validate(&s->collider[i], i, e)) return DRAPE_EINVAL;
  return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

/* "path = value: why", the value as JSON text (scene.c's failv, shorter) */
static int failj(drape_err *e, const char *path, const cJSON *v, const char *why) {
  char *txt = v ? cJSON_PrintUnformatted(v) : NULL;
  char val[96];
  dr_pathf(val, sizeof val, "%s", txt ? txt : "?");
  if (txt && strlen(txt) >= sizeof val) memcpy(val + sizeof val - 4, "...", 4);
  cJSON_free(txt);
  return drape_fail(e, DRAPE_EINVAL, "%s = %s: %s", path, val, why);
}

static int num(drape_err *e, const char *path, const cJSON *v, double *out) {
  if (!cJSON_IsNumber(v)) return failj(e, path, v, "expected a number");
  if (!isfinite(v->valuedouble)) return failj(e, path, v, "must be a finite number");
  *out = v->valuedouble;
  return 0;
}

static int vec(drape_err *e, const char *path, const cJSON *v, double *out, int n,
               const char *what) {
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) {
    char why[96];
    dr_pathf(why, sizeof why, "expected an array of %d numbers %s", n, what);
    return failj(e, path, v, why);
  }
  int i = 0;
  char p[192];
  for (const cJSON *c = v->child; c; c = c->next, i++) {
    dr_pathf(p, sizeof p, "%s[%d]", path, i);
    if (num(e, p, c, &out[i])) return DRAPE_EINVAL;
  }
  return 0;
}

static int keys_parse(drape_err *e, const char *path, const cJSON *v, double (**out)[7], int *n) {
  if (!cJSON_IsArray(v))
    return failj(e, path, v, "expected an array of keys [t, tx, ty, tz, rx, ry, rz]");
  const int m = cJSON_GetArraySize(v);
  if (m == 0) return 0;
  *out = calloc((size_t)m, sizeof **out);
  if (!*out) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", path);
  *n = m;
  int i = 0;
  char p[192];
  for (const cJSON *c = v->child; c; c = c->next, i++) {
    dr_pathf(p, sizeof p, "%s[%d]", path, i);
    if (vec(e, p, c, (*out)[i], 7, "[t, tx, ty, tz, rx, ry, rz]")) return DRAPE_EINVAL;
  }
  return 0;
}

/* Unknown and duplicate keys, with the allowed list. */
static int keys_known(drape_err *e, const char *path, const cJSON *o, const char *const *allowed) {
  if (!cJSON_IsObject(o)) return failj(e, path, o, "expected an object {...}");
  for (const cJSON *c = o->child; c; c = c->next) {
    int known = 0;
    for (int i = 0; allowed[i]; i++) known |= strcmp(c->string, allowed[i]) == 0;
    if (!known) {
      char list[256] = "";
      for (int i = 0; allowed[i]; i++) {
        if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, allowed[i], sizeof list - strlen(list) - 1);
      }
      return drape_fail(e, DRAPE_EINVAL, "%s.%s: unknown key (allowed: %s)", path, c->string, list);
    }
    for (const cJSON *d = o->child; d != c; d = d->next)
      if (strcmp(d->string, c->string) == 0)
        return drape_fail(e, DRAPE_EINVAL, "%s.%s: duplicate key (each key may appear once)", path,
                          c->string);
  }
  return 0;
}

static const char *const CAPSULE_KEYS[] = {"a", "b", "radius", "friction", "keys", NULL};
static const char *const COLLIDER_KEYS[] = {"name", "mesh", "friction", "thickness", "keys",
                                            "sequence", NULL};
static const char *const MESH_KEYS[] = {"file", "scale", "translate", "rotate_deg", NULL};
static const char *const SEQUENCE_KEYS[] = {"files", "fps", "first", NULL};

/* A file name pattern with exactly one integer conversion (%d, %4d, %04d)
 * and otherwise only "%%": it goes to snprintf. */
static int pattern_ok(const char *s) {
  int conv = 0;
  for (const char *c = s; *c; c++) {
    if (*c != '%') continue;
    if (c[1] == '%') { c++; continue; }
    c++;
    while (*c >= '0' && *c <= '9') c++;
    if (*c != 'd') return 0;
    conv++;
  }
  return conv == 1;
}

static int parse_capsule(drape_err *e, const char *path, const cJSON *o, drape_capsule_def *d) {
  if (keys_known(e, path, o, CAPSULE_KEYS)) return DRAPE_EINVAL;
  static const char *const need[] = {"a", "b", "radius"};
  char p[192];
  for (int i = 0; i < 3; i++)
    if (!cJSON_GetObjectItemCaseSensitive(o, need[i]))
      return drape_fail(e, DRAPE_EINVAL, "%s.%s: missing (a capsule needs \"a\", \"b\" and "
                        "\"radius\")", path, need[i]);
  int r = 0;
  for (const cJSON *k = o->child; k && !r; k = k->next) {
    dr_pathf(p, sizeof p, "%s.%s", path, k->string);
    if (!strcmp(k->string, "a")) r = vec(e, p, k, d->a, 3, "[x, y, z]");
    else if (!strcmp(k->string, "b")) r = vec(e, p, k, d->b, 3, "[x, y, z]");
    else if (!strcmp(k->string, "radius")) r = num(e, p, k, &d->radius);
    else if (!strcmp(k->string, "friction")) r = num(e, p, k, &d->friction);
    else r = keys_parse(e, p, k, &d->keys, &d->n_keys);
  }
  return r;
}

static int parse_collider(drape_err *e, const char *path, const cJSON *o, drape_collider_def *d,
                          int i) {
  if (keys_known(e, path, o, COLLIDER_KEYS)) return DRAPE_EINVAL;
  char p[192], q[224];
  dr_pathf(d->name, sizeof d->name, "collider%d", i);
  const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(o, "mesh");
  if (!mesh && !cJSON_GetObjectItemCaseSensitive(o, "sequence"))
    return drape_fail(e, DRAPE_EINVAL, "%s.mesh: missing (a collider needs a mesh: {\"file\": "
                      "...}, or a sequence)", path);
  int r = 0;
  for (const cJSON *k = o->child; k && !r; k = k->next) {
    dr_pathf(p, sizeof p, "%s.%s", path, k->string);
    if (!strcmp(k->string, "name")) {
      if (!cJSON_IsString(k)) r = failj(e, p, k, "expected a string");
      else if (strlen(k->valuestring) >= sizeof d->name || !k->valuestring[0])
        r = failj(e, p, k, "expected 1 to 63 characters");
      else dr_pathf(d->name, sizeof d->name, "%s", k->valuestring);
    } else if (!strcmp(k->string, "friction")) r = num(e, p, k, &d->friction);
    else if (!strcmp(k->string, "thickness")) r = num(e, p, k, &d->thickness);
    else if (!strcmp(k->string, "keys")) r = keys_parse(e, p, k, &d->keys, &d->n_keys);
    else if (!strcmp(k->string, "sequence")) {
      if ((r = keys_known(e, p, k, SEQUENCE_KEYS))) break;
      for (const cJSON *g = k->child; g && !r; g = g->next) {
        dr_pathf(q, sizeof q, "%s.%s", p, g->string);
        if (!strcmp(g->string, "files")) {
          if (!cJSON_IsString(g) || !pattern_ok(g->valuestring)) {
            r = failj(e, q, g, "expected a file name pattern with one %d (e.g. \"walk_%04d.obj\")");
          } else {
            free(d->seq_files);
            d->seq_files = strdup(g->valuestring);
            if (!d->seq_files) r = drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", q);
          }
        } else if (!strcmp(g->string, "fps")) {
          r = num(e, q, g, &d->seq_fps);
          if (!r && !(d->seq_fps > 0 && d->seq_fps <= DRAPE_MAX_SEQUENCE_FPS)) {
            char why[128];
            dr_pathf(why, sizeof why, "must be > 0 and <= %s (frames of the sequence per second)",
                     dr_num(DRAPE_MAX_SEQUENCE_FPS));
            r = failj(e, q, g, why);
          }
        } else {
          double f = 0; /* num sets it whenever r is 0 */
          r = num(e, q, g, &f);
          if (!r && !(f >= 0 && f <= DRAPE_MAX_SEQUENCE_FIRST && f == floor(f))) {
            char why[128];
            dr_pathf(why, sizeof why, "expected a whole number >= 0 and <= %d (the first file's "
                     "number)", DRAPE_MAX_SEQUENCE_FIRST);
            r = failj(e, q, g, why);
          }
          if (!r) d->seq_first = (int)f;
        }
      }
      if (!r && !d->seq_files)
        r = drape_fail(e, DRAPE_EINVAL, "%s.files: missing (a pattern such as \"walk_%%04d.obj\")", p);
    } else {
      if ((r = keys_known(e, p, k, MESH_KEYS))) break;
      for (const cJSON *g = k->child; g && !r; g = g->next) {
        dr_pathf(q, sizeof q, "%s.%s", p, g->string);
        if (!strcmp(g->string, "file")) {
          if (!cJSON_IsString(g) || !g->valuestring[0]) {
            r = failj(e, q, g, "expected the path of a triangle mesh (OBJ, glTF, PLY, STL, FBX)");
          } else {
            free(d->file);
            d->file = strdup(g->valuestring);
            if (!d->file) r = drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", q);
          }
        } else if (!strcmp(g->string, "scale")) r = num(e, q, g, &d->scale);
        else if (!strcmp(g->string, "translate")) r = vec(e, q, g, d->translate, 3, "[x, y, z]");
        else r = vec(e, q, g, d->rotate_deg, 3, "[x, y, z] degrees");
      }
      if (!r && !d->file && !cJSON_GetObjectItemCaseSensitive(o, "sequence"))
        r = drape_fail(e, DRAPE_EINVAL, "%s.file: missing (the path of a triangle mesh)", p);
    }
  }
  return r;
}

#define GROW1(arr, n, T)                                                 \
  do {                                                                   \
    T *g_ = realloc((arr), sizeof(T) * ((size_t)(n) + 1));               \
    if (!g_) return drape_fail(e, DRAPE_ENOMEM, "%s: out of memory", key); \
    (arr) = g_;                                                          \
  } while (0)

int dr_collider_parse(drape_err *e, const char *key, const cJSON *arr, drape_scene *s) {
  if (!cJSON_IsArray(arr)) return failj(e, key, arr, "expected an array of objects [{...}, ...]");
  char p[96];
  int i = 0, r = 0;
  for (const cJSON *g = arr->child; g && !r; g = g->next, i++) {
    dr_pathf(p, sizeof p, "%s[%d]", key, i);
    if (!strcmp(key, "capsule")) {
      GROW1(s->capsule, s->n_capsule, drape_capsule_def);
      s->capsule[s->n_capsule] = drape_capsule_def_default();
      r = parse_capsule(e, p, g, &s->capsule[s->n_capsule++]);
    } else {
      GROW1(s->collider, s->n_collider, drape_collider_def);
      s->collider[s->n_collider] = drape_collider_def_default();
      r = parse_collider(e, p, g, &s->collider[s->n_collider++], i);
    }
  }
  return r;
}

/* ---- mesh loading ---------------------------------------------------------- */

/* "cloth[0].mesh..." in the loader's messages becomes "collider[i].mesh...". */
static void rename_key(drape_err *e, int i) {
  if (!e) return;
  char from[48], to[48], tmp[sizeof e->msg];
  dr_pathf(from, sizeof from, "cloth[%d].mesh", 0);
  dr_pathf(to, sizeof to, "collider[%d].mesh", i);
  char *at = strstr(e->msg, from);
  if (!at) return;
  dr_pathf(tmp, sizeof tmp, "%.*s%s%s", (int)(at - e->msg), e->msg, to, at + strlen(from));
  memcpy(e->msg, tmp, sizeof tmp);
}

static int cmp_edge(const void *a, const void *b) {
  const long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

/* Closed: every undirected edge is used by exactly two triangles. */
static int mesh_closed(const int *tris, int n_tris, int *closed) {
  long long *ed = malloc(sizeof *ed * 3 * (size_t)n_tris);
  if (!ed) return DRAPE_ENOMEM;
  for (int t = 0; t < n_tris; t++)
    for (int q = 0; q < 3; q++) {
      long long a = tris[3 * t + q], b = tris[3 * t + (q + 1) % 3];
      ed[3 * t + q] = a < b ? (a << 32) | b : (b << 32) | a;
    }
  qsort(ed, 3 * (size_t)n_tris, sizeof *ed, cmp_edge);
  int ok = 1;
  for (size_t k = 0; k < 3 * (size_t)n_tris && ok;) {
    size_t m = k;
    while (m < 3 * (size_t)n_tris && ed[m] == ed[k]) m++;
    ok = m - k == 2;
    k = m;
  }
  free(ed);
  *closed = ok;
  return 0;
}

/* One mesh file through the mesh cloth loader, with d's transform. */
static int load_one(drape_collider_def *d, int i, const char *file, const char *base_dir,
                    drape_cloth_def *c, drape_err *e) {
  *c = drape_cloth_def_default();
  c->has_mesh = 1;
  c->mesh.file = (char *)file;
  c->mesh.scale = d->scale;
  memcpy(c->mesh.translate, d->translate, sizeof c->mesh.translate);
  memcpy(c->mesh.rotate_deg, d->rotate_deg, sizeof c->mesh.rotate_deg);
  int rc = drape_cloth_mesh_load(c, 0, base_dir, e);
  c->mesh.file = NULL; /* the caller's */
  if (rc) rename_key(e, i);
  return rc;
}

/* Whether the sequence goes on to `name`: anything there ends the probe
 * only by being absent. It is looked at with stat, never opened: opening
 * a FIFO would block until a writer came; what is there and not a regular
 * file is then refused by the mesh loader with its kind named. */
static int file_exists(const char *name, const char *base_dir) {
  char path[4096];
  if (name[0] == '/' || !base_dir || !base_dir[0]) dr_pathf(path, sizeof path, "%s", name);
  else dr_pathf(path, sizeof path, "%s/%s", base_dir, name);
  struct stat st;
  return stat(path, &st) == 0;
}

/* The frames of a sequence: files first, first + 1, ... while they exist;
 * each must have the first one's vertex count and triangles. */
static int load_sequence(drape_collider_def *d, int i, const char *base_dir, drape_err *e) {
  char name[1024];
  int n = 0;
  while (n < DRAPE_MAX_SEQUENCE_FRAMES) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(name, sizeof name, d->seq_files, d->seq_first + n); /* pattern_ok: one %d */
#pragma GCC diagnostic pop
    if (!file_exists(name, base_dir)) break;
    drape_cloth_def c;
    int rc = load_one(d, i, name, base_dir, &c, e);
    if (rc) {
      drape_cloth_def_free(&c);
      return rc;
    }
    if (n == 0 && !d->vertices) { /* no mesh.file: the first frame is the mesh */
      const size_t bytes = sizeof *d->vertices * 3 * (size_t)c.mesh.n_vertices;
      d->vertices = malloc(bytes);
      if (!d->vertices) {
        drape_cloth_def_free(&c);
        return drape_fail(e, DRAPE_ENOMEM, "collider[%d].sequence: out of memory", i);
      }
      memcpy(d->vertices, c.mesh.vertices, bytes);
      d->n_vertices = c.mesh.n_vertices;
      d->tris = c.mesh.tris, d->n_tris = c.mesh.n_tris;
      c.mesh.tris = NULL; /* d's now; the frame is the mesh, so the same */
    }
    const int same = c.mesh.n_vertices == d->n_vertices &&
                     (!c.mesh.tris ||
                      (c.mesh.n_tris == d->n_tris &&
                       !memcmp(c.mesh.tris, d->tris, sizeof *d->tris * 3 * (size_t)d->n_tris)));
    if (!same) {
      const int nv = c.mesh.n_vertices, nt = c.mesh.n_tris;
      drape_cloth_def_free(&c);
      return drape_fail(e, DRAPE_EINVAL, "collider[%d].sequence.files: '%s' (frame %d) has %d "
                        "vertices and %d triangles after welding, the mesh %d and %d: every frame "
                        "needs the same mesh, only moved", i, name, n, nv, nt, d->n_vertices,
                        d->n_tris);
    }
    double *g = realloc(d->seq_vertices, sizeof *g * 3 * (size_t)d->n_vertices * (size_t)(n + 1));
    if (!g) {
      drape_cloth_def_free(&c);
      return drape_fail(e, DRAPE_ENOMEM, "collider[%d].sequence: out of memory", i);
    }
    d->seq_vertices = g;
    memcpy(g + 3 * (size_t)d->n_vertices * (size_t)n,
           c.mesh.vertices ? c.mesh.vertices : d->vertices, sizeof *g * 3 * (size_t)d->n_vertices);
    drape_cloth_def_free(&c);
    n++;
  }
  if (n == 0) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(name, sizeof name, d->seq_files, d->seq_first);
#pragma GCC diagnostic pop
    return drape_fail(e, DRAPE_EINVAL, "collider[%d].sequence.files = \"%s\": no file '%s' (the "
                      "first frame, number sequence.first = %d)", i, d->seq_files, name,
                      d->seq_first);
  }
  d->seq_n = n;
  return 0;
}

int drape_collider_mesh_load(drape_collider_def *d, int i, const char *base_dir, drape_err *e) {
  if (!d->file) {
    if (!d->seq_files) return drape_fail(e, DRAPE_EINVAL, "collider[%d].mesh.file: missing", i);
    int rc = load_sequence(d, i, base_dir, e);
    if (!rc && mesh_closed(d->tris, d->n_tris, &d->closed))
      rc = drape_fail(e, DRAPE_ENOMEM, "collider[%d].mesh: out of memory", i);
    return rc;
  }
  drape_cloth_def c = drape_cloth_def_default();
  c.has_mesh = 1;
  c.mesh.file = d->file;
  c.mesh.scale = d->scale;
  memcpy(c.mesh.translate, d->translate, sizeof c.mesh.translate);
  memcpy(c.mesh.rotate_deg, d->rotate_deg, sizeof c.mesh.rotate_deg);
  int rc = drape_cloth_mesh_load(&c, 0, base_dir, e);
  c.mesh.file = NULL; /* still d's */
  if (rc) {
    rename_key(e, i);
    drape_cloth_def_free(&c);
    return rc;
  }
  free(d->vertices);
  free(d->tris);
  d->vertices = c.mesh.vertices, d->n_vertices = c.mesh.n_vertices;
  d->tris = c.mesh.tris, d->n_tris = c.mesh.n_tris;
  c.mesh.vertices = NULL, c.mesh.tris = NULL;
  drape_cloth_def_free(&c);
  if (mesh_closed(d->tris, d->n_tris, &d->closed))
    return drape_fail(e, DRAPE_ENOMEM, "collider[%d].mesh: out of memory", i);
  return d->seq_files ? load_sequence(d, i, base_dir, e) : 0;
}

int dr_collider_scene_load(drape_scene *s, const char *base_dir, drape_err *e) {
  for (int i = 0; i < s->n_collider; i++)
    if (drape_collider_mesh_load(&s->collider[i], i, base_dir, e)) return DRAPE_EINVAL;
  return 0;
}

/* ---- rigid keys ------------------------------------------------------------ */

typedef struct { double w, x, y, z; } quat;

static quat q_mul(quat a, quat b) {
  return (quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

/* about x, then y, then z (mesh_load.c's order): q = qz qy qx */
static quat q_euler(const double *deg) {
  const double hx = 0.5 * deg[0] * DEG, hy = 0.5 * deg[1] * DEG, hz = 0.5 * deg[2] * DEG;
  quat qx = {cos(hx), sin(hx), 0, 0}, qy = {cos(hy), 0, sin(hy), 0}, qz = {cos(hz), 0, 0, sin(hz)};
  return q_mul(qz, q_mul(qy, qx));
}

static quat q_slerp(quat a, quat b, double f) {
  double d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
  if (d < 0) { /* the shorter way round */
    b = (quat){-b.w, -b.x, -b.y, -b.z};
    d = -d;
  }
  double wa = 1 - f, wb = f;
  if (d < 0.9999995) {
    const double th = acos(d), sn = sin(th);
    wa = sin((1 - f) * th) / sn;
    wb = sin(f * th) / sn;
  }
  quat r = {wa * a.w + wb * b.w, wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z};
  const double n = sqrt(r.w * r.w + r.x * r.x + r.y * r.y + r.z * r.z);
  return (quat){r.w / n, r.x / n, r.y / n, r.z / n};
}

static void q_rotate(quat q, const double v[3], double out[3]) {
  const quat p = {0, v[0], v[1], v[2]};
  const quat r = q_mul(q_mul(q, p), (quat){q.w, -q.x, -q.y, -q.z});
  out[0] = r.x, out[1] = r.y, out[2] = r.z;
}

/* The keys' pose at t: a rotation (quaternion w, x, y, z) and a
 * translation, the keys interpolated (held before the first and after the
 * last); the key pair around t by binary search, so a collider with a
 * million keys costs one search a time, not one a vertex. */
void dr_keys_pose(const double (*k)[7], int n, double t, double q4[4], double tr[3]) {
  quat q;
  if (n <= 0) {
    q = (quat){1, 0, 0, 0};
    tr[0] = tr[1] = tr[2] = 0;
  } else if (t <= k[0][0] || n == 1) {
    q = q_euler(&k[0][4]);
    memcpy(tr, &k[0][1], 3 * sizeof *tr);
  } else if (t >= k[n - 1][0]) {
    q = q_euler(&k[n - 1][4]);
    memcpy(tr, &k[n - 1][1], 3 * sizeof *tr);
  } else {
    int lo = 1, hi = n - 1; /* the first j >= 1 with k[j][0] >= t */
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (k[mid][0] < t) lo = mid + 1;
      else hi = mid;
    }
    const int j = lo;
    const double f = (t - k[j - 1][0]) / (k[j][0] - k[j - 1][0]);
    q = q_slerp(q_euler(&k[j - 1][4]), q_euler(&k[j][4]), f);
    for (int c = 0; c < 3; c++) tr[c] = k[j - 1][1 + c] + f * (k[j][1 + c] - k[j - 1][1 + c]);
  }
  q4[0] = q.w, q4[1] = q.x, q4[2] = q.y, q4[3] = q.z;
}

/* A point under a pose from dr_keys_pose: rotated about the pivot, then
 * moved. */
void dr_pose_apply(const double q4[4], const double tr[3], const double pivot[3], const double in[3],
                   double out[3]) {
  const quat q = {q4[0], q4[1], q4[2], q4[3]};
  const double rel[3] = {in[0] - pivot[0], in[1] - pivot[1], in[2] - pivot[2]};
  double r[3];
  q_rotate(q, rel, r);
  for (int c = 0; c < 3; c++) out[c] = pivot[c] + r[c] + tr[c];
}

void drape_collider_keys_apply(const double (*k)[7], int n, double t, const double pivot[3],
                               const double in[3], double out[3]) {
  if (n <= 0) {
    memcpy(out, in, 3 * sizeof *out);
    return;
  }
  double q[4], tr[3];
  dr_keys_pose(k, n, t, q, tr);
  dr_pose_apply(q, tr, pivot, in, out);
}
