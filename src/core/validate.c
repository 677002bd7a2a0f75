/* The validators: one per definition, every limit from drape/limits.h.
 *
 *   drape_cloth_def_validate    drape_cloth_def   (and cloth_check with h)
 *   drape_rope_def_validate     drape_rope_def    (and rope_check with h)
 *   drape_string_def_validate   drape_string_def
 *   drape_sphere_def_validate   drape_sphere_def
 *   scene_fields_check          drape_scene's own fields
 *   drape_scene_validate        all of the above, then what involves
 *                               several defs (alpha / h^2, the
 *                               self-collision cell, unique names)
 *   drape_sim_params_validate   drape_sim_params (drape_sim_set_params)
 *   drape_sim_opts_validate     drape_sim_opts
 *
 * Called by the loader (scene.c, after it has parsed the JSON: pass 2), by
 * drape_sim_create, drape_world_create and the model builder, and by the
 * sim's setters (vd_range, vd_compliance): a def built in code and the same
 * def read from a file get the same message. Messages name the key path as
 * the scene file spells it, print the value so that it reads back as
 * itself, and give the allowed range. docs/scenes.md "Limits" is the table
 * of these limits; tests/test_limits.c checks table, header and
 * validators against each other. No number here is a limit: they all come
 * from drape/limits.h. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collider_defs.h"
#include "core/util.h"
#include "core/validate.h"
#include "drape/cloth.h"
#include "drape/limits.h"
#include "drape/render_def.h"
#include "drape/scene.h"

#define VD_PI 3.14159265358979323846

/* ---- formatting ---------------------------------------------------------- */

static void fmt_num(char *buf, size_t cap, double v) { drape_fmt_double(buf, cap, v); }

/* "path = value: what is allowed" */
static int faild(drape_err *e, const char *path, double v, const char *fmt, ...) DRAPE_PRINTF(4, 5);
static int faild(drape_err *e, const char *path, double v, const char *fmt, ...) {
  char val[40], why[512];
  fmt_num(val, sizeof val, v);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return drape_fail(e, DRAPE_EINVAL, "%s = %s: %s", path, val, why);
}

/* ---- range checks ---------------------------------------------------------- */

/* Fails unless lo (<|<=) v (<|<=) hi. hi = INFINITY means no upper bound. */
static int chk(drape_err *e, const char *path, double v, double lo, int lo_incl, double hi,
               int hi_incl) {
  if (!isfinite(v)) return faild(e, path, v, "must be a finite number");
  int ok = (lo_incl ? v >= lo : v > lo) && (hi_incl ? v <= hi : v < hi);
  if (ok) return 0;
  char a[40], b[40];
  fmt_num(a, sizeof a, lo);
  fmt_num(b, sizeof b, hi);
  if (isinf(hi)) return faild(e, path, v, "must be %s %s", lo_incl ? ">=" : ">", a);
  return faild(e, path, v, "must be %s %s and %s %s", lo_incl ? ">=" : ">", a, hi_incl ? "<=" : "<",
               b);
}

static int chk_vec(drape_err *e, const char *path, const double *v, int n, double bound) {
  char p[256];
  for (int i = 0; i < n; i++) {
    dr_pathf(p, sizeof p, "%s[%d]", path, i);
    if (chk(e, p, v[i], -bound, 1, bound, 1)) return DRAPE_EINVAL;
  }
  return 0;
}

static int chk_color(drape_err *e, const char *path, const float *c) {
  char p[256];
  for (int i = 0; i < 3; i++) {
    dr_pathf(p, sizeof p, "%s[%d]", path, i);
    if (chk(e, p, c[i], 0, 1, 1, 1)) return DRAPE_EINVAL;
  }
  return 0;
}

static int chk_name(drape_err *e, const char *path, const char *name) {
  size_t n = strnlen(name, DRAPE_NAME_MAX);
  int ok = n > 0 && n < DRAPE_NAME_MAX;
  for (size_t i = 0; ok && i < n; i++) {
    char ch = name[i];
    ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '-' || ch == '.';
  }
  if (ok) return 0;
  /* Names become OBJ object names and may appear in file names. */
  return drape_fail(e, DRAPE_EINVAL,
                    "%s = \"%.*s\": must be 1..%d characters of letters, digits, '_', '-', '.'",
                    path, (int)(n < DRAPE_NAME_MAX - 1 ? n : DRAPE_NAME_MAX - 1), name, DRAPE_NAME_MAX - 1);
}

/* ---- float checks (pass 2, after the ranges) ---------------------------
 *
 * The ranges above are checked in double, but the solver uses float
 * (kernels/drape_types.h): positions, inverse masses, rest lengths,
 * compliances, h, 1/h, 1/h^2, thickness, sphere radii. A value such as
 * dt = 1e-40 or spacing = 1e-300 passes "> 0" and then converts to 0 or to a
 * subnormal, and a few steps later 0/0 makes the state NaN (issue 13). So
 * the values the solver actually uses, derived ones included, are checked
 * here as it computes them, and the message gives the smallest value of the
 * key that would pass (docs/scenes.md "Float limits"). */

/* x rounded up to a value printed with at most 5 significant digits, so the
 * "smallest allowed" in a message is a number one can copy and it passes. */
static double round_up_5(double x) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.4e", x);
  double r = strtod(buf, NULL);
  if (r < x) {
    /* bump the last printed digit */
    int ex = (int)floor(log10(fabs(x)));
    r += pow(10.0, ex - 4);
    snprintf(buf, sizeof buf, "%.4e", r);
    r = strtod(buf, NULL);
  }
  return r;
}

/* "key = v: why; the smallest value allowed is min[ (ctx)]" */
static int fail_small(drape_err *e, const char *path, double v, double min, const char *ctx,
                      const char *fmt, ...) DRAPE_PRINTF(6, 7);
static int fail_small(drape_err *e, const char *path, double v, double min, const char *ctx,
                      const char *fmt, ...) {
  char val[40], lo[40], why[400];
  fmt_num(val, sizeof val, v);
  fmt_num(lo, sizeof lo, min);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return drape_fail(e, DRAPE_EINVAL,
                    "%s = %s: %s (the solver computes in float); the smallest value allowed is %s%s%s%s",
                    path, val, why, lo, ctx && ctx[0] ? " (" : "", ctx ? ctx : "",
                    ctx && ctx[0] ? ")" : "");
}

/* v must convert to a normal float: > 0 values below FLT_MIN become 0 or
 * subnormal. `zero_ok`: 0 itself is allowed (it means "off"). */
static int chk_normal(drape_err *e, const char *path, double v, int zero_ok) {
  if (v >= DRAPE_FLOAT_MIN || (zero_ok && v == 0)) return 0;
  return fail_small(e, path, v, DRAPE_FLOAT_MIN, zero_ok ? "or exactly 0" : "",
                    "below the smallest normal float, it would underflow to %s",
                    (float)v == 0.0f ? "0" : "a subnormal");
}

/* Largest |coordinate| among n points of 3 (the object's start). */
static double max_abs3(const double (*pts)[3], int n) {
  double m = 0;
  for (int k = 0; k < n; k++)
    for (int q = 0; q < 3; q++) m = fmax(m, fabs(pts[k][q]));
  return m;
}

/* Compliance as the solver uses it: stored as a float, scaled by 1/h^2
 * (alpha~ = alpha / h^2, XPBD, Macklin et al. 2016 eq. 6) in float. */
static int chk_compliance(drape_err *e, const char *path, double c, double h) {
  if (chk_normal(e, path, c, 1)) return DRAPE_EINVAL;
  const float inv_h2 = (float)(1.0 / (h * h));
  if (isfinite((float)c * inv_h2)) return 0;
  char val[40], hs[40], mx[40];
  fmt_num(val, sizeof val, c);
  fmt_num(hs, sizeof hs, h);
  /* largest c with c / h^2 <= FLT_MAX, 5 digits, rounded down */
  double big = (double)FLT_MAX / (double)inv_h2;
  char buf[40];
  snprintf(buf, sizeof buf, "%.4e", big * (1 - 1e-4));
  fmt_num(mx, sizeof mx, strtod(buf, NULL));
  return drape_fail(e, DRAPE_EINVAL,
                    "%s = %s: compliance / h^2 overflows a float at the substep h = dt / substeps = "
                    "%s s; the largest value allowed with this dt and substeps is %s",
                    path, val, hs, mx);
}

/* A cloth's spacing and masses as the solver holds them. The smallest
 * spacing allowed is the largest of three bounds: the rest lengths
 * (spacing, spacing*sqrt(2), 2*spacing) are normal floats; float positions
 * resolve the spacing (no coordinate of the grid exceeds omax + spacing*(n-1),
 * so spacing >= k (omax + spacing (n-1)), the bound docs/scenes.md gives);
 * and, with masses from mass_per_area, the lightest particle (a corner, a
 * quarter cell: mass_per_area spacing^2 / 4) is a normal float. A mass >=
 * FLT_MIN has 1/mass <= 8.5e37, finite in float; the upper bounds keep every
 * mass below 1e8 kg. Which key is named: spacing if it fails on its own
 * (the first two bounds) or if no allowed mass_per_area would do;
 * otherwise mass_per_area. */
static int chk_cloth_float(drape_err *e, int i, const drape_cloth_def *c) {
  char p[96], ctx[96], a[40], b[40];
  const double k = DRAPE_REL_SPACING_MIN;
  const int n = c->cols > c->rows ? c->cols : c->rows;
  const double omax = fmax(fabs(c->origin[0]), fmax(fabs(c->origin[1]), fabs(c->origin[2])));
  const double reach = omax + c->spacing * (n - 1);
  const int by_area = !(c->particle_mass > 0);
  double lo = DRAPE_FLOAT_MIN, res = k * omax / (1 - k * (n - 1));
  const char *lo_ctx = "";
  if (res > lo) lo = res, lo_ctx = "with this origin and grid size";
  if (by_area && sqrt(4 * DRAPE_FLOAT_MIN / c->mass_per_area) > lo) {
    lo = sqrt(4 * DRAPE_FLOAT_MIN / c->mass_per_area);
    fmt_num(a, sizeof a, c->mass_per_area);
    dr_pathf(ctx, sizeof ctx, "with mass_per_area = %s", a);
    lo_ctx = ctx;
  }
  if (lo > DRAPE_FLOAT_MIN) lo = round_up_5(lo); /* FLT_MIN itself is printed exactly */
  dr_pathf(p, sizeof p, "cloth[%d].grid.spacing", i);
  if (!(c->spacing >= DRAPE_FLOAT_MIN))
    return fail_small(e, p, c->spacing, lo, lo_ctx,
                      "below the smallest normal float, it would underflow to %s",
                      (float)c->spacing == 0.0f ? "0" : "a subnormal");
  if (c->spacing < k * reach) {
    fmt_num(a, sizeof a, reach);
    return fail_small(e, p, c->spacing, lo, lo_ctx,
                      "below %g of the largest coordinate the grid reaches (|origin| + spacing x "
                      "(max(rows, cols) - 1) = %s m), so float positions cannot resolve it",
                      k, a);
  }
  if (!by_area) {
    dr_pathf(p, sizeof p, "cloth[%d].particle_mass", i);
    return chk_normal(e, p, c->particle_mass, 1);
  }
  const double corner = c->mass_per_area * c->spacing * c->spacing / 4;
  if (corner >= DRAPE_FLOAT_MIN) return 0;
  const double need = round_up_5(4 * DRAPE_FLOAT_MIN / (c->spacing * c->spacing));
  fmt_num(a, sizeof a, corner);
  if (need > DRAPE_MAX_MASS_PER_AREA) /* no mass_per_area would do: the spacing is too small */
    return fail_small(e, p, c->spacing, lo, lo_ctx,
                      "a corner particle's mass, mass_per_area x spacing^2 / 4 = %s kg, would "
                      "underflow, and no mass_per_area <= %s avoids that (or give particle_mass)",
                      a, dr_num(DRAPE_MAX_MASS_PER_AREA));
  fmt_num(b, sizeof b, c->spacing);
  dr_pathf(ctx, sizeof ctx, "with grid.spacing = %s", b);
  dr_pathf(p, sizeof p, "cloth[%d].mass_per_area", i);
  return fail_small(e, p, c->mass_per_area, need, ctx,
                    "a corner particle's mass, mass_per_area x spacing^2 / 4 = %s kg, would underflow",
                    a);
}

/* A rope's link rest length (length / segments) and node masses, the
 * same way: the rest length is a normal float and float positions along
 * the rope resolve it (rest >= k * the largest start or end coordinate);
 * the lightest node (an end, half a link: mass_per_length rest / 2) is a
 * normal float. The same bounds hold for implicit ropes (seed 003's cable,
 * solved in double): a value that underflows in float is no rope. */
static int chk_rope_float(drape_err *e, int i, const drape_rope_def *r) {
  char p[96], ctx[128], a[40], b[40];
  const double k = DRAPE_REL_SPACING_MIN, seg = r->segments;
  const double rest = r->length / seg;
  const double ends[2][3] = {{r->start[0], r->start[1], r->start[2]},
                             {r->end[0], r->end[1], r->end[2]}};
  const double cmax = max_abs3(ends, 2);
  double lo = DRAPE_FLOAT_MIN * seg;
  const char *lo_ctx;
  dr_pathf(ctx, sizeof ctx, "with segments = %d", r->segments);
  if (k * cmax * seg > lo) {
    lo = k * cmax * seg;
    dr_pathf(ctx, sizeof ctx, "with segments = %d and this start and end", r->segments);
  }
  if (2 * DRAPE_FLOAT_MIN / r->mass_per_length * seg > lo) {
    lo = 2 * DRAPE_FLOAT_MIN / r->mass_per_length * seg;
    fmt_num(a, sizeof a, r->mass_per_length);
    dr_pathf(ctx, sizeof ctx, "with segments = %d and mass_per_length = %s", r->segments, a);
  }
  lo_ctx = ctx;
  lo = round_up_5(lo);
  dr_pathf(p, sizeof p, "rope[%d].length", i);
  fmt_num(a, sizeof a, rest);
  if (!(rest >= DRAPE_FLOAT_MIN))
    return fail_small(e, p, r->length, lo, lo_ctx,
                      "the link rest length length / segments = %s m would underflow", a);
  if (rest < k * cmax) {
    fmt_num(b, sizeof b, cmax);
    return fail_small(e, p, r->length, lo, lo_ctx,
                      "the link rest length length / segments = %s m is below %g of the largest "
                      "start or end coordinate (%s m), so float positions cannot resolve it",
                      a, k, b);
  }
  const double end_mass = r->mass_per_length * rest / 2;
  if (end_mass >= DRAPE_FLOAT_MIN) return 0;
  const double need = round_up_5(2 * DRAPE_FLOAT_MIN / rest);
  fmt_num(b, sizeof b, end_mass);
  if (need > DRAPE_MAX_MASS_PER_LENGTH) /* no mass_per_length would do: the links are too short */
    return fail_small(e, p, r->length, lo, lo_ctx,
                      "an end node's mass, mass_per_length x length / segments / 2 = %s kg, would "
                      "underflow, and no mass_per_length <= %s avoids that",
                      b, dr_num(DRAPE_MAX_MASS_PER_LENGTH));
  dr_pathf(ctx, sizeof ctx, "with links of length / segments = %s m", a);
  dr_pathf(p, sizeof p, "rope[%d].mass_per_length", i);
  return fail_small(e, p, r->mass_per_length, need, ctx,
                    "an end node's mass, mass_per_length x length / segments / 2 = %s kg, would "
                    "underflow",
                    b);
}

/* ---- shared by the scene and drape_sim_params ------------------------------ */

static int chk_substeps(drape_err *e, int n) {
  if (n < 1 || n > DRAPE_MAX_SUBSTEPS)
    return drape_fail(e, DRAPE_EINVAL, "substeps = %d: must be >= 1 and <= %d", n,
                      DRAPE_MAX_SUBSTEPS);
  return 0;
}

static int chk_iterations(drape_err *e, int n) {
  if (n < 1 || n > DRAPE_MAX_ITERATIONS)
    return drape_fail(e, DRAPE_EINVAL, "iterations = %d: must be >= 1 and <= %d", n,
                      DRAPE_MAX_ITERATIONS);
  return 0;
}

static int chk_air(drape_err *e, const double gravity[3], const double wind[3], double wind_drag) {
  if (chk_vec(e, "gravity", gravity, 3, DRAPE_MAX_GRAVITY)) return DRAPE_EINVAL;
  if (chk_vec(e, "wind", wind, 3, DRAPE_MAX_WIND)) return DRAPE_EINVAL;
  return chk(e, "wind_drag", wind_drag, 0, 1, DRAPE_MAX_WIND_DRAG, 1);
}

int vd_range(drape_err *e, const char *path, double v, double lo, int lo_incl, double hi,
             int hi_incl) {
  return chk(e, path, v, lo, lo_incl, hi, hi_incl);
}

int vd_compliance(drape_err *e, const char *path, double c, double h) {
  if (chk(e, path, c, 0, 1, DRAPE_MAX_COMPLIANCE, 1)) return DRAPE_EINVAL;
  return chk_compliance(e, path, c, h);
}

/* A compliance the solver uses: a normal float (or 0) and, where the
 * substep h is known (h > 0: drape_scene_validate), alpha / h^2 finite. */
static int chk_alpha(drape_err *e, const char *path, double c, double h) {
  return h > 0 ? chk_compliance(e, path, c, h) : chk_normal(e, path, c, 1);
}

/* ---- drape_cloth_def ---------------------------------------------------- */

#define P(...) (dr_pathf(p, sizeof p, __VA_ARGS__), p)
#define CHK(path, v, lo, loi, hi, hii) \
  do {                                 \
    if (chk(e, path, v, lo, loi, hi, hii)) return DRAPE_EINVAL; \
  } while (0)

double dr_cloth_spacing(const drape_cloth_def *c) {
  if (!c->has_mesh) return c->spacing;
  const drape_cloth_mesh *m = &c->mesh;
  double best = INFINITY;
  for (int t = 0; t < m->n_tris; t++)
    for (int q = 0; q < 3; q++) {
      const int a = m->tris[3 * t + q], b = m->tris[3 * t + (q + 1) % 3];
      if (a < 0 || b < 0 || a >= m->n_vertices || b >= m->n_vertices) continue;
      const double *x = m->vertices + 3 * a, *y = m->vertices + 3 * b;
      const double d = sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                            (x[2] - y[2]) * (x[2] - y[2]));
      if (d < best) best = d;
    }
  return isfinite(best) ? best : 0;
}

double dr_cloth_rest_area(const drape_cloth_def *c) {
  if (!c->has_mesh) return (double)(c->rows - 1) * (c->cols - 1) * c->spacing * c->spacing;
  const drape_cloth_mesh *m = &c->mesh;
  double area = 0;
  for (int t = 0; t < m->n_tris; t++) {
    const int *q = m->tris + 3 * t;
    if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= m->n_vertices || q[1] >= m->n_vertices ||
        q[2] >= m->n_vertices)
      continue;
    const double *a = m->vertices + 3 * q[0], *b = m->vertices + 3 * q[1],
                 *d = m->vertices + 3 * q[2];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  }
  return area;
}

/* A mesh cloth (docs/scenes.md "Mesh cloth"): the transform keys, the
 * loaded arrays (a def built in code may fill them itself), the pins. The
 * loader refuses NaN, too many vertices and no triangles with the file's
 * name; these checks catch the same in arrays built in code, and edges too
 * short for float positions. */
static int mesh_check(const drape_cloth_def *c, int i, drape_err *e) {
  char p[256];
  const drape_cloth_mesh *m = &c->mesh;
  CHK(P("cloth[%d].mesh.scale", i), m->scale, 0, 0, DRAPE_MAX_COORD, 1);
  CHK(P("cloth[%d].mesh.weld", i), m->weld, 0, 1, DRAPE_MAX_SPACING, 1);
  if (chk_vec(e, P("cloth[%d].mesh.translate", i), m->translate, 3, DRAPE_MAX_COORD) ||
      chk_vec(e, P("cloth[%d].mesh.rotate_deg", i), m->rotate_deg, 3, DRAPE_MAX_COORD))
    return DRAPE_EINVAL;
  if (m->n_vertices < 3 || !m->vertices || m->n_tris < 1 || !m->tris)
    return drape_fail(e, DRAPE_EINVAL,
                      "cloth[%d].mesh: %d vertices, %d triangles: not loaded (drape_cloth_mesh_load "
                      "reads mesh.file; or fill vertices and tris)", i, m->n_vertices, m->n_tris);
  if (m->n_vertices > DRAPE_MAX_PARTICLES)
    return drape_fail(e, DRAPE_EINVAL, "cloth[%d].mesh: %d vertices, at most %d per cloth", i,
                      m->n_vertices, DRAPE_MAX_PARTICLES);
  double omax = 0;
  for (int v = 0; v < m->n_vertices; v++)
    for (int q = 0; q < 3; q++) {
      const double x = m->vertices[3 * v + q];
      if (!(fabs(x) <= DRAPE_MAX_COORD))
        return drape_fail(e, DRAPE_EINVAL,
                          "cloth[%d].mesh vertex %d = (%s, %s, %s): every coordinate must be "
                          "finite and within +-%s m (after the transform)", i, v,
                          dr_num(m->vertices[3 * v]), dr_num(m->vertices[3 * v + 1]),
                          dr_num(m->vertices[3 * v + 2]), dr_num(DRAPE_MAX_COORD));
      omax = fmax(omax, fabs(x));
    }
  for (int t = 0; t < m->n_tris; t++)
    for (int q = 0; q < 3; q++) {
      const int a = m->tris[3 * t + q], b = m->tris[3 * t + (q + 1) % 3];
      if (a < 0 || a >= m->n_vertices || a == b)
        return drape_fail(e, DRAPE_EINVAL,
                          "cloth[%d].mesh triangle %d = (%d, %d, %d): needs three different "
                          "vertices in 0..%d", i, t, m->tris[3 * t], m->tris[3 * t + 1],
                          m->tris[3 * t + 2], m->n_vertices - 1);
    }
  const double shortest = dr_cloth_spacing(c);
  if (!(shortest >= DRAPE_FLOAT_MIN) || shortest < DRAPE_REL_SPACING_MIN * omax)
    return drape_fail(e, DRAPE_EINVAL,
                      "cloth[%d].mesh: its shortest edge, %s m, is below %g of the largest "
                      "coordinate (%s m): float positions cannot resolve it (raise mesh.scale or "
                      "mesh.weld)", i, dr_num(shortest), DRAPE_REL_SPACING_MIN, dr_num(omax));
  if (c->n_pins > 0)
    return drape_fail(e, DRAPE_EINVAL, "cloth[%d].pins: [row, col] pins are for grid cloths (a "
                      "mesh cloth uses pin_vertices or pin_box)", i);
  if (c->n_pin_vertices < 0 || (c->n_pin_vertices && !c->pin_vertices))
    return drape_fail(e, DRAPE_EINVAL, "cloth[%d].pin_vertices: count and array disagree", i);
  for (int k = 0; k < c->n_pin_vertices; k++)
    if (c->pin_vertices[k] < 0 || c->pin_vertices[k] >= m->n_vertices)
      return drape_fail(e, DRAPE_EINVAL, "cloth[%d].pin_vertices[%d] = %d: the mesh has vertices "
                        "0..%d", i, k, c->pin_vertices[k], m->n_vertices - 1);
  if (c->has_pin_box) {
    for (int q = 0; q < 2; q++)
      if (chk_vec(e, P("cloth[%d].pin_box[%d]", i, q), c->pin_box[q], 3, DRAPE_MAX_COORD))
        return DRAPE_EINVAL;
    for (int q = 0; q < 3; q++)
      if (!(c->pin_box[0][q] <= c->pin_box[1][q]))
        return faild(e, P("cloth[%d].pin_box[1][%d]", i, q), c->pin_box[1][q],
                     "must be >= pin_box[0][%d] = %s (the box is [[x0, y0, z0], [x1, y1, z1]], "
                     "lower corner first)", q, dr_num(c->pin_box[0][q]));
  }
  return 0;
}

/* An object's material (docs/scenes.md "Material"), set = 1: its fields
 * against drape/limits.h, and what it cannot go with. `obj` is "cloth" or
 * "rope"; a rope uses density, stretch[0] (EA), bend[0] (EI), damping. The
 * solver turns the material into per-element compliances, which only the
 * xpbd solver has; the other solvers' stiffness keys are per constraint
 * or per spring. */
static int material_check(const drape_material_def *m, const char *obj, int i,
                          drape_solver_kind solver, drape_err *e) {
  char p[256];
  const int rope = obj[0] == 'r';
  if (solver != DRAPE_SOLVER_XPBD)
    return drape_fail(e, DRAPE_EINVAL,
                      "%s[%d].solver = \"%s\": not with %s[%d].material, which is for the \"xpbd\" "
                      "solver (the %s solver takes per-constraint keys: drop \"material\" or use "
                      "\"xpbd\")", obj, i, drape_solver_name(solver), obj, i, drape_solver_name(solver));
  CHK(P("%s[%d].material.density", obj, i), m->density, 0, 0,
      rope ? DRAPE_MAX_MASS_PER_LENGTH : DRAPE_MAX_MASS_PER_AREA, 1);
  if (rope) {
    CHK(P("rope[%d].material.stretch", i), m->stretch[0], 0, 0, DRAPE_MAX_ROPE_EA, 1);
    CHK(P("rope[%d].material.bend", i), m->bend[0], 0, 1, DRAPE_MAX_ROPE_EI, 1);
  } else {
    for (int k = 0; k < 2; k++)
      CHK(P("cloth[%d].material.stretch[%d]", i, k), m->stretch[k], 0, 0,
          DRAPE_MAX_MATERIAL_STIFFNESS, 1);
    CHK(P("cloth[%d].material.shear", i), m->shear, 0, 1, DRAPE_MAX_MATERIAL_STIFFNESS, 1);
    for (int k = 0; k < 2; k++)
      CHK(P("cloth[%d].material.bend[%d]", i, k), m->bend[k], 0, 1, DRAPE_MAX_MATERIAL_BEND, 1);
  }
  /* < 0 means "the object's damping key applies" */
  if (!isfinite(m->damping) || m->damping > DRAPE_MAX_DAMPING)
    return faild(e, P("%s[%d].material.damping", obj, i), m->damping,
                 "must be < 0 (the %s's own damping applies) or >= 0 and <= %s (1/s)", obj,
                 dr_num(DRAPE_MAX_DAMPING));
  return 0;
}

int vd_material(const drape_material_def *m, const char *obj, int index, drape_err *e) {
  return material_check(m, obj, index, DRAPE_SOLVER_XPBD, e);
}

/* h > 0: also compliance / h^2 (drape_scene_validate knows h). */
static int cloth_check(const drape_cloth_def *c, int i, double h, drape_err *e) {
  char p[256];
  if (!c) return drape_fail(e, DRAPE_EINVAL, "cloth[%d]: NULL", i);
  if (chk_name(e, P("cloth[%d].name", i), c->name)) return DRAPE_EINVAL;
  if (c->has_mesh) {
    if (mesh_check(c, i, e)) return DRAPE_EINVAL;
  } else {
    if (c->cols < DRAPE_MIN_GRID || c->cols > DRAPE_MAX_GRID)
      return drape_fail(e, DRAPE_EINVAL, "cloth[%d].grid.cols = %d: must be >= %d and <= %d", i,
                        c->cols, DRAPE_MIN_GRID, DRAPE_MAX_GRID);
    if (c->rows < DRAPE_MIN_GRID || c->rows > DRAPE_MAX_GRID)
      return drape_fail(e, DRAPE_EINVAL, "cloth[%d].grid.rows = %d: must be >= %d and <= %d", i,
                        c->rows, DRAPE_MIN_GRID, DRAPE_MAX_GRID);
    if ((long long)c->cols * c->rows > DRAPE_MAX_PARTICLES)
      return drape_fail(e, DRAPE_EINVAL,
                        "cloth[%d].grid = %d rows x %d cols: %lld particles, at most %d per cloth", i,
                        c->rows, c->cols, (long long)c->cols * c->rows, DRAPE_MAX_PARTICLES);
    CHK(P("cloth[%d].grid.spacing", i), c->spacing, 0, 0, DRAPE_MAX_SPACING, 1);
    if (chk_vec(e, P("cloth[%d].grid.origin", i), c->origin, 3, DRAPE_MAX_COORD)) return DRAPE_EINVAL;
    if (c->plane != DRAPE_PLANE_XZ && c->plane != DRAPE_PLANE_XY && c->plane != DRAPE_PLANE_YZ)
      return drape_fail(e, DRAPE_EINVAL, "cloth[%d].grid.plane = %d: not a drape_plane", i, (int)c->plane);
  }
  if (chk_vec(e, P("cloth[%d].velocity", i), c->velocity, 3, DRAPE_MAX_CLOTH_SPEED))
    return DRAPE_EINVAL;
  /* The material first: the loader copies its density into mass_per_area,
   * and a bad density is to be named as the key the file gave. */
  if (c->material.set && material_check(&c->material, "cloth", i, c->solver, e))
    return DRAPE_EINVAL;
  CHK(P("cloth[%d].mass_per_area", i), c->mass_per_area, 0, 0, DRAPE_MAX_MASS_PER_AREA, 1);
  CHK(P("cloth[%d].particle_mass", i), c->particle_mass, 0, 1, DRAPE_MAX_PARTICLE_MASS, 1);
  /* With a material its density is the mass the solver uses, so the float
   * checks below look at it (a def built in code may have left
   * mass_per_area at its default). */
  drape_cloth_def mass_view;
  if (c->material.set) {
    if (c->particle_mass > 0)
      return faild(e, P("cloth[%d].particle_mass", i), c->particle_mass,
                   "not with cloth[%d].material, whose density gives the mass (set 0)", i);
    if (c->tear_ratio != 0)
      return faild(e, P("cloth[%d].tear_ratio", i), c->tear_ratio,
                   "not with cloth[%d].material: tearing breaks per-constraint links, a material "
                   "cloth has per-element ones (set 0, or drop \"material\")", i);
    mass_view = *c; /* shallow: only read */
    mass_view.mass_per_area = c->material.density;
    c = &mass_view;
  }
  if (c->has_mesh) {
    if (c->particle_mass > 0 && chk_normal(e, P("cloth[%d].particle_mass", i), c->particle_mass, 1))
      return DRAPE_EINVAL;
  } else if (chk_cloth_float(e, i, c)) {
    return DRAPE_EINVAL;
  }
  CHK(P("cloth[%d].compliance.stretch", i), c->compliance_stretch, 0, 1, DRAPE_MAX_COMPLIANCE, 1);
  CHK(P("cloth[%d].compliance.shear", i), c->compliance_shear, 0, 1, DRAPE_MAX_COMPLIANCE, 1);
  CHK(P("cloth[%d].compliance.bend", i), c->compliance_bend, 0, 1, DRAPE_MAX_COMPLIANCE, 1);
  if (c->solver != DRAPE_SOLVER_JAKOBSEN) { /* jakobsen ignores (zeroes) them */
    if (chk_alpha(e, P("cloth[%d].compliance.stretch", i), c->compliance_stretch, h) ||
        chk_alpha(e, P("cloth[%d].compliance.shear", i), c->compliance_shear, h) ||
        chk_alpha(e, P("cloth[%d].compliance.bend", i), c->compliance_bend, h))
      return DRAPE_EINVAL;
  }
  /* The damping factor exp(-damping h) lies in [0, 1] for every allowed
   * damping and h: nothing to check after conversion. */
  CHK(P("cloth[%d].damping", i), c->damping, 0, 1, DRAPE_MAX_DAMPING, 1);
  CHK(P("cloth[%d].thickness", i), c->thickness, 0, 0, DRAPE_MAX_THICKNESS, 1);
  /* collision margin and self-collision cell size are floats */
  if (chk_normal(e, P("cloth[%d].thickness", i), c->thickness, 0)) return DRAPE_EINVAL;
  if (c->self_collision) {
    /* its own rest mesh: compared in float, as the solver does */
    const float t = (float)c->thickness, sp = (float)dr_cloth_spacing(c);
    const float most = (float)DRAPE_SELFCOL_MAX_OWN * sp;
    if (!(t <= most))
      return drape_fail(e, DRAPE_EINVAL,
                        "cloth[%d].thickness = %s: with self_collision at most %g x its %s "
                        "%s m (closer, its own vertex-triangle pairs at rest touch): "
                        "allowed > 0 and <= %s",
                        i, dr_num(c->thickness), DRAPE_SELFCOL_MAX_OWN,
                        c->has_mesh ? "shortest mesh edge" : "grid spacing", dr_num_f(sp), dr_num_f(most));
  }
  CHK(P("cloth[%d].self_friction", i), c->self_friction, 0, 1, DRAPE_MAX_FRICTION, 1);
  if (c->self_mode != DRAPE_SELF_VERTEX_TRIANGLE && c->self_mode != DRAPE_SELF_PARTICLE)
    return drape_fail(e, DRAPE_EINVAL, "cloth[%d].self_collision_mode = %d: not a drape_self_mode", i,
                      (int)c->self_mode);
  if (!isfinite(c->tear_ratio) ||
      (c->tear_ratio != 0 && !(c->tear_ratio > 1 && c->tear_ratio <= DRAPE_MAX_TEAR_RATIO)))
    return faild(e, P("cloth[%d].tear_ratio", i), c->tear_ratio,
                 "must be 0 (no tearing) or > 1 and <= %s (a stretch ratio)", dr_num(DRAPE_MAX_TEAR_RATIO));
  /* the kernels compare against (float)tear_ratio * rest: 1.00000001
   * would become 1 and tear every link at the first stretch */
  if (c->tear_ratio != 0 && !((float)c->tear_ratio > 1.0f))
    return fail_small(e, P("cloth[%d].tear_ratio", i), c->tear_ratio,
                      (double)nextafterf(1.0f, 2.0f), "or exactly 0",
                      "it becomes 1 in float, which would tear every link at the first stretch");
  /* The Cusick drape test's support disk lies under the specimen, so its
   * area must be below the specimen's flat area: the drape coefficient
   * (A_s - A_d) / (A_0 - A_d) then has a positive denominator. For a
   * circular specimen the bound is its radius. */
  if (c->drape_disk_radius != 0) {
    const double r_max = sqrt(dr_cloth_rest_area(c) / VD_PI);
    if (!isfinite(c->drape_disk_radius) || !(c->drape_disk_radius > 0) ||
        !(c->drape_disk_radius < r_max))
      return faild(e, P("cloth[%d].drape_disk_radius", i), c->drape_disk_radius,
                   "must be 0 (no drape test) or > 0 and < %.6g m, the radius of a circle of "
                   "the cloth's rest area %.6g m^2 (the support disk lies under the specimen)",
                   r_max, r_max * r_max * VD_PI);
  }
  if (c->tear_ratio != 0 && c->solver == DRAPE_SOLVER_SPRINGS)
    return faild(e, P("cloth[%d].tear_ratio", i), c->tear_ratio,
                 "the springs solver does not tear (set 0, or use \"xpbd\" or \"jakobsen\")");
  if (c->solver != DRAPE_SOLVER_XPBD && c->solver != DRAPE_SOLVER_JAKOBSEN &&
      c->solver != DRAPE_SOLVER_SPRINGS)
    return drape_fail(e, DRAPE_EINVAL,
                      "cloth[%d].solver = %d: cloth allows \"xpbd\", \"jakobsen\", \"springs\"", i,
                      (int)c->solver);
  CHK(P("cloth[%d].stiffness", i), c->stiffness, 0, 0, DRAPE_MAX_STIFFNESS, 1);
  CHK(P("cloth[%d].spring_damping", i), c->spring_damping, 0, 1, DRAPE_MAX_SPRING_DAMPING, 1);
  CHK(P("cloth[%d].bend_stiffness", i), c->bend_stiffness, 0, 1, DRAPE_MAX_STIFFNESS, 1);
  if (c->n_pins < 0 || (c->n_pins && !c->pins))
    return drape_fail(e, DRAPE_EINVAL, "cloth[%d].pins: count and array disagree", i);
  for (int k = 0; k < c->n_pins; k++) {
    int rr = c->pins[k][0], cc = c->pins[k][1];
    if (rr < 0 || rr >= c->rows || cc < 0 || cc >= c->cols)
      return drape_fail(e, DRAPE_EINVAL,
                        "cloth[%d].pins[%d] = [%d, %d]: outside the %dx%d grid (rows 0..%d, cols 0..%d)",
                        i, k, rr, cc, c->rows, c->cols, c->rows - 1, c->cols - 1);
  }
  if (c->n_pin_paths < 0 || (c->n_pin_paths && !c->pin_paths))
    return drape_fail(e, DRAPE_EINVAL, "cloth[%d].pin_paths: count and array disagree", i);
  for (int k = 0; k < c->n_pin_paths; k++) {
    const drape_pin_path *pp = &c->pin_paths[k];
    if (c->has_mesh && (pp->vertex < 0 || pp->vertex >= c->mesh.n_vertices))
      return drape_fail(e, DRAPE_EINVAL,
                        "cloth[%d].pin_paths[%d].vertex = %d: the mesh has vertices 0..%d", i, k,
                        pp->vertex, c->mesh.n_vertices - 1);
    if (!c->has_mesh && (pp->row < 0 || pp->row >= c->rows || pp->col < 0 || pp->col >= c->cols))
      return drape_fail(e, DRAPE_EINVAL,
                        "cloth[%d].pin_paths[%d].pin = [%d, %d]: outside the %dx%d grid (rows 0..%d, "
                        "cols 0..%d)",
                        i, k, pp->row, pp->col, c->rows, c->cols, c->rows - 1, c->cols - 1);
    if (pp->n_keys < 1 || !pp->keys)
      return drape_fail(e, DRAPE_EINVAL, "cloth[%d].pin_paths[%d].keys: needs at least one [t, x, y, z]",
                        i, k);
    for (int j = 0; j < pp->n_keys; j++) {
      CHK(P("cloth[%d].pin_paths[%d].keys[%d][0]", i, k, j), pp->keys[j][0], 0, 1, DRAPE_MAX_KEY_TIME, 1);
      if (j > 0 && !(pp->keys[j][0] > pp->keys[j - 1][0]))
        return faild(e, P("cloth[%d].pin_paths[%d].keys[%d][0]", i, k, j), pp->keys[j][0],
                     "key times must increase (previous key is at t = %.17g s)", pp->keys[j - 1][0]);
      if (chk_vec(e, P("cloth[%d].pin_paths[%d].keys[%d]", i, k, j), pp->keys[j] + 1, 3, DRAPE_MAX_COORD))
        return DRAPE_EINVAL;
    }
  }
  return 0;
}

int drape_cloth_def_validate(const drape_cloth_def *d, int index, drape_err *e) {
  return cloth_check(d, index, 0, e);
}

/* ---- drape_rope_def ----------------------------------------------------- */

static int rope_check(const drape_rope_def *r, int i, double h, drape_err *e) {
  char p[256];
  if (!r) return drape_fail(e, DRAPE_EINVAL, "rope[%d]: NULL", i);
  if (chk_name(e, P("rope[%d].name", i), r->name)) return DRAPE_EINVAL;
  if (r->segments < 1 || r->segments > DRAPE_MAX_ROPE_SEGMENTS)
    return drape_fail(e, DRAPE_EINVAL, "rope[%d].segments = %d: must be >= 1 and <= %d", i,
                      r->segments, DRAPE_MAX_ROPE_SEGMENTS);
  if (chk_vec(e, P("rope[%d].start", i), r->start, 3, DRAPE_MAX_COORD)) return DRAPE_EINVAL;
  if (chk_vec(e, P("rope[%d].end", i), r->end, 3, DRAPE_MAX_COORD)) return DRAPE_EINVAL;
  if (r->n_points || r->points) {
    if (!r->points || r->n_points != r->segments + 1)
      return drape_fail(e, DRAPE_EINVAL,
                        "rope[%d].points: %d points for %d segments: expected segments + 1 = %d "
                        "(one per node)", i, r->n_points, r->segments, r->segments + 1);
    for (int j = 0; j < r->n_points; j++)
      if (chk_vec(e, P("rope[%d].points[%d]", i, j), r->points[j], 3, DRAPE_MAX_COORD))
        return DRAPE_EINVAL;
  }
  CHK(P("rope[%d].length", i), r->length, 0, 0, DRAPE_MAX_ROPE_LENGTH, 1);
  /* as for cloth: the material first, and its density is the mass the
   * float checks see */
  if (r->material.set && material_check(&r->material, "rope", i, r->solver, e))
    return DRAPE_EINVAL;
  CHK(P("rope[%d].mass_per_length", i), r->mass_per_length, 0, 0, DRAPE_MAX_MASS_PER_LENGTH, 1);
  drape_rope_def mass_view;
  if (r->material.set) {
    mass_view = *r; /* shallow: only read */
    mass_view.mass_per_length = r->material.density;
    r = &mass_view;
  }
  if (chk_rope_float(e, i, r)) return DRAPE_EINVAL;
  CHK(P("rope[%d].compliance", i), r->compliance, 0, 1, DRAPE_MAX_COMPLIANCE, 1);
  if (r->solver == DRAPE_SOLVER_XPBD) { /* jakobsen zeroes it; implicit has none */
    if (chk_alpha(e, P("rope[%d].compliance", i), r->compliance, h)) return DRAPE_EINVAL;
  }
  CHK(P("rope[%d].damping", i), r->damping, 0, 1, DRAPE_MAX_DAMPING, 1);
  CHK(P("rope[%d].thickness", i), r->thickness, 0, 0, DRAPE_MAX_THICKNESS, 1);
  if (chk_normal(e, P("rope[%d].thickness", i), r->thickness, 0)) return DRAPE_EINVAL;
  if (r->solver != DRAPE_SOLVER_XPBD && r->solver != DRAPE_SOLVER_JAKOBSEN &&
      r->solver != DRAPE_SOLVER_IMPLICIT)
    return drape_fail(e, DRAPE_EINVAL,
                      "rope[%d].solver = %d: a rope allows \"xpbd\", \"jakobsen\", \"implicit\"", i,
                      (int)r->solver);
  if (r->start_shape != DRAPE_ROPE_START_AUTO && r->start_shape != DRAPE_ROPE_START_STRAIGHT)
    return drape_fail(e, DRAPE_EINVAL,
                      "rope[%d].start_shape = %d: a rope allows \"auto\" (%d), \"straight\" (%d)",
                      i, (int)r->start_shape, DRAPE_ROPE_START_AUTO, DRAPE_ROPE_START_STRAIGHT);
  CHK(P("rope[%d].ym", i), r->ym, 0, 0, DRAPE_MAX_YM, 1);
  return 0;
}

int drape_rope_def_validate(const drape_rope_def *d, int index, drape_err *e) {
  return rope_check(d, index, 0, e);
}

/* ---- drape_string_def --------------------------------------------------- */

int drape_string_def_validate(const drape_string_def *d, int i, drape_err *e) {
  char p[256];
  if (!d) return drape_fail(e, DRAPE_EINVAL, "string[%d]: NULL", i);
  if (chk_name(e, P("string[%d].name", i), d->name)) return DRAPE_EINVAL;
  if (d->nodes < DRAPE_MIN_STRING_NODES || d->nodes > DRAPE_MAX_STRING_NODES)
    return drape_fail(e, DRAPE_EINVAL, "string[%d].nodes = %d: must be >= %d and <= %d (links)", i,
                      d->nodes, DRAPE_MIN_STRING_NODES, DRAPE_MAX_STRING_NODES);
  CHK(P("string[%d].length", i), d->length, 0, 0, DRAPE_MAX_STRING_LENGTH, 1);
  CHK(P("string[%d].mu", i), d->mu, 0, 0, DRAPE_MAX_STRING_MU, 1);
  CHK(P("string[%d].EA", i), d->EA, 0, 0, DRAPE_MAX_STRING_MODULUS, 1);
  CHK(P("string[%d].etaA", i), d->etaA, 0, 1, DRAPE_MAX_STRING_MODULUS, 1);
  CHK(P("string[%d].B", i), d->B, 0, 1, DRAPE_MAX_STRING_MODULUS, 1);
  CHK(P("string[%d].D", i), d->D, 0, 1, DRAPE_MAX_STRING_MODULUS, 1);
  CHK(P("string[%d].h", i), d->h, 0, 0, DRAPE_MAX_STRING_H, 1);
  if (chk_vec(e, P("string[%d].anchor", i), d->anchor, 2, DRAPE_MAX_COORD)) return DRAPE_EINVAL;
  CHK(P("string[%d].z", i), d->z, -DRAPE_MAX_COORD, 1, DRAPE_MAX_COORD, 1);
  if (d->n_hand < 0 || (d->n_hand && !d->hand))
    return drape_fail(e, DRAPE_EINVAL, "string[%d].hand: count and array disagree", i);
  for (int j = 0; j < d->n_hand; j++) {
    CHK(P("string[%d].hand[%d][0]", i, j), d->hand[j][0], 0, 1, DRAPE_MAX_KEY_TIME, 1);
    if (j > 0 && !(d->hand[j][0] > d->hand[j - 1][0]))
      return faild(e, P("string[%d].hand[%d][0]", i, j), d->hand[j][0],
                   "hand times must increase (previous target is at t = %.17g s)", d->hand[j - 1][0]);
    if (chk_vec(e, P("string[%d].hand[%d]", i, j), d->hand[j] + 1, 2, DRAPE_MAX_COORD))
      return DRAPE_EINVAL;
  }
  if (!isfinite(d->release_at) || d->release_at > DRAPE_MAX_KEY_TIME)
    return faild(e, P("string[%d].release_at", i), d->release_at,
                 "must be a finite time in s, at most %s (< 0 = never released)",
                 dr_num(DRAPE_MAX_KEY_TIME));
  if (d->release_at >= 0 && d->n_hand == 0)
    return faild(e, P("string[%d].release_at", i), d->release_at,
                 "nothing is held: give a \"hand\" list, or leave release_at out");
  if (d->release_at >= 0 && d->release_at < d->hand[0][0])
    return faild(e, P("string[%d].release_at", i), d->release_at,
                 "must be >= the first hand time %.17g s (the hand holds from then on)", d->hand[0][0]);
  return 0;
}

/* ---- drape_sphere_def --------------------------------------------------- */

int drape_sphere_def_validate(const drape_sphere_def *d, int i, drape_err *e) {
  char p[256];
  if (!d) return drape_fail(e, DRAPE_EINVAL, "sphere[%d]: NULL", i);
  if (chk_vec(e, P("sphere[%d].center", i), d->center, 3, DRAPE_MAX_COORD)) return DRAPE_EINVAL;
  CHK(P("sphere[%d].radius", i), d->radius, 0, 0, DRAPE_MAX_SPHERE_RADIUS, 1);
  if (chk_normal(e, P("sphere[%d].radius", i), d->radius, 0)) return DRAPE_EINVAL;
  if (chk_vec(e, P("sphere[%d].velocity", i), d->velocity, 3, DRAPE_MAX_SPHERE_SPEED))
    return DRAPE_EINVAL;
  CHK(P("sphere[%d].friction", i), d->friction, 0, 1, DRAPE_MAX_FRICTION, 1);
  return 0;
}

/* ---- drape_render_def (presentation: not part of the scene) ------------- */

int drape_render_def_validate(const drape_render_def *d, drape_err *e) {
  char p[256];
  if (!d) return drape_fail(e, DRAPE_EINVAL, "render def: NULL");
  if (d->camera.has_eye && chk_vec(e, "camera.eye", d->camera.eye, 3, DRAPE_MAX_COORD))
    return DRAPE_EINVAL;
  if (d->camera.has_target && chk_vec(e, "camera.target", d->camera.target, 3, DRAPE_MAX_COORD))
    return DRAPE_EINVAL;
  if (d->camera.has_eye && d->camera.has_target && d->camera.eye[0] == d->camera.target[0] &&
      d->camera.eye[1] == d->camera.target[1] && d->camera.eye[2] == d->camera.target[2])
    return drape_fail(e, DRAPE_EINVAL, "camera.eye = camera.target: the camera needs a direction to look in");
  CHK("camera.fov_deg", d->camera.fov_deg, DRAPE_MIN_FOV_DEG, 1, DRAPE_MAX_FOV_DEG, 1);
  if (d->width < DRAPE_MIN_RENDER_SIZE || d->width > DRAPE_MAX_RENDER_SIZE)
    return drape_fail(e, DRAPE_EINVAL, "render.width = %d: must be >= %d and <= %d (pixels)",
                      d->width, DRAPE_MIN_RENDER_SIZE, DRAPE_MAX_RENDER_SIZE);
  if (d->height < DRAPE_MIN_RENDER_SIZE || d->height > DRAPE_MAX_RENDER_SIZE)
    return drape_fail(e, DRAPE_EINVAL, "render.height = %d: must be >= %d and <= %d (pixels)",
                      d->height, DRAPE_MIN_RENDER_SIZE, DRAPE_MAX_RENDER_SIZE);
  if (d->n_looks < 0 || (d->n_looks > 0 && !d->looks))
    return drape_fail(e, DRAPE_EINVAL, "render def: %d looks at %p", d->n_looks, (void *)d->looks);
  for (int k = 0; k < d->n_looks; k++) {
    const drape_object_look *l = &d->looks[k];
    static const char *const arr[] = {"cloth", "rope", "string"};
    if ((int)l->kind < 0 || l->kind > DRAPE_LOOK_STRING || l->index < 0)
      return drape_fail(e, DRAPE_EINVAL, "render def look %d: object kind %d index %d (kind: "
                        "cloth, rope or string; index >= 0)", k, (int)l->kind, l->index);
    const char *a = arr[l->kind];
    if (chk_color(e, P("%s[%d].%s", a, l->index, l->kind == DRAPE_LOOK_CLOTH ? "color_front" : "color"),
                  l->color_front) ||
        (l->kind == DRAPE_LOOK_CLOTH && chk_color(e, P("%s[%d].color_back", a, l->index), l->color_back)))
      return DRAPE_EINVAL;
  }
  return 0;
}

/* ---- the scene's own fields --------------------------------------------- */

static int scene_fields_check(const drape_scene *s, drape_err *e) {
  if (chk_vec(e, "gravity", s->gravity, 3, DRAPE_MAX_GRAVITY)) return DRAPE_EINVAL;
  CHK("dt", s->dt, 0, 0, DRAPE_MAX_DT, 1);
  if (chk_substeps(e, s->substeps) || chk_iterations(e, s->iterations)) return DRAPE_EINVAL;
  /* The substep h = dt / substeps goes to the solver as float h, 1/h and
   * 1/h^2 (sim.c); h >= DRAPE_H_MIN keeps 1/h^2 below FLT_MAX. */
  const double h = s->dt / s->substeps;
  if (!(h >= DRAPE_H_MIN)) {
    char ctx[64], hs[40];
    dr_pathf(ctx, sizeof ctx, "with substeps = %d", s->substeps);
    fmt_num(hs, sizeof hs, h);
    return fail_small(e, "dt", s->dt, round_up_5(DRAPE_H_MIN * s->substeps), ctx,
                      "the substep h = dt / substeps = %s s is below %g s, where 1/h^2 no longer "
                      "fits in a float",
                      hs, DRAPE_H_MIN);
  }
  if (chk_air(e, s->gravity, s->wind, s->wind_drag)) return DRAPE_EINVAL;
  if (s->has_floor) {
    CHK("floor.height", s->floor_height, -DRAPE_MAX_COORD, 1, DRAPE_MAX_COORD, 1);
    CHK("floor.friction", s->floor_friction, 0, 1, DRAPE_MAX_FRICTION, 1);
  }
  if (s->frames < 0 || s->frames > DRAPE_MAX_FRAMES)
    return drape_fail(e, DRAPE_EINVAL, "frames = %d: must be >= 0 (0 = unset) and <= %d", s->frames,
                      DRAPE_MAX_FRAMES);
  if (s->n_cloth < 0 || s->n_rope < 0 || s->n_string < 0 || s->n_sphere < 0 ||
      (s->n_cloth && !s->cloth) || (s->n_rope && !s->rope) || (s->n_string && !s->string) ||
      (s->n_sphere && !s->sphere))
    return drape_fail(e, DRAPE_EINVAL, "scene: object counts and arrays disagree");
  return 0;
}

/* The self-collision hash cell against every colliding object's spacing
 * (drape/limits.h; the rules of src/cloth/selfcol.h, in the same order and
 * in float). Cloths with self_collision on take part, and every rope the
 * cloth solver runs (not "implicit" ones) as soon as one cloth does. */
static int selfcol_cell_check(const drape_scene *s, drape_err *e) {
  int any = 0;
  for (int i = 0; i < s->n_cloth; i++) any |= s->cloth[i].self_collision != 0;
  if (!any) return 0;
  float t_max = 0;
  int max_rope = 0, max_i = -1;
  for (int o = 0; o < s->n_cloth + s->n_rope; o++) {
    const int rope = o >= s->n_cloth, i = rope ? o - s->n_cloth : o;
    if (rope ? s->rope[i].solver == DRAPE_SOLVER_IMPLICIT : !s->cloth[i].self_collision) continue;
    const float t = (float)(rope ? s->rope[i].thickness : s->cloth[i].thickness);
    if (t > t_max) t_max = t, max_rope = rope, max_i = i;
  }
  for (int o = 0; o < s->n_cloth + s->n_rope; o++) {
    const int rope = o >= s->n_cloth, i = rope ? o - s->n_cloth : o;
    if (rope ? s->rope[i].solver == DRAPE_SOLVER_IMPLICIT : !s->cloth[i].self_collision) continue;
    const float sp = rope ? (float)(s->rope[i].length / s->rope[i].segments) : (float)dr_cloth_spacing(&s->cloth[i]);
    const float ratio = (float)(rope ? DRAPE_SELFCOL_MAX_CELL_ROPE : DRAPE_SELFCOL_MAX_CELL_CLOTH);
    if (!(sp > 0.0f) || t_max <= ratio * sp) continue;
    const char *kind = rope ? "rope" : "cloth";
    return drape_fail(e, DRAPE_EINVAL,
                      "%s[%d].thickness = %s: the self-collision hash cell is 2 x the largest "
                      "thickness, which may be at most %g x the %s of every colliding %s "
                      "(%s[%d]: %s m): allowed > 0 and <= %s",
                      max_rope ? "rope" : "cloth", max_i,
                      dr_num(max_rope ? s->rope[max_i].thickness : s->cloth[max_i].thickness),
                      (double)ratio, rope ? "link rest length" : s->cloth[i].has_mesh ? "shortest mesh edge" : "grid spacing", kind, kind, i,
                      dr_num_f(sp), dr_num_f(ratio * sp));
  }
  return 0;
}

/* ---- drape_stitch_def ----------------------------------------------------- */

static int stitch_check(const drape_stitch_def *d, int i, double h, drape_err *e) {
  char p[256];
  if (!d) return drape_fail(e, DRAPE_EINVAL, "stitch[%d]: NULL", i);
  if (d->n < 1 || !d->a_vertices || !d->b_vertices)
    return drape_fail(e, DRAPE_EINVAL, "stitch[%d]: %d pairs: needs a_vertices and b_vertices of "
                      "the same length, at least one", i, d->n);
  CHK(P("stitch[%d].compliance", i), d->compliance, 0, 1, DRAPE_MAX_COMPLIANCE, 1);
  if (chk_alpha(e, P("stitch[%d].compliance", i), d->compliance, h)) return DRAPE_EINVAL;
  CHK(P("stitch[%d].close_time", i), d->close_time, 0, 1, DRAPE_MAX_KEY_TIME, 1);
  for (int k = 0; k < d->n; k++) {
    if (d->a_vertices[k] < 0)
      return drape_fail(e, DRAPE_EINVAL, "stitch[%d].a_vertices[%d] = %d: must be >= 0", i, k,
                        d->a_vertices[k]);
    if (d->b_vertices[k] < 0)
      return drape_fail(e, DRAPE_EINVAL, "stitch[%d].b_vertices[%d] = %d: must be >= 0", i, k,
                        d->b_vertices[k]);
  }
  return 0;
}

int drape_stitch_def_validate(const drape_stitch_def *d, int index, drape_err *e) {
  return stitch_check(d, index, 0, e);
}

/* The most stitch pairs one vertex may be in, over all stitches: a seam
 * vertex is in one or two, a corner where seams meet in a few; each pair
 * is a distance constraint on it, and a particle's constraints share
 * DRAPE_MAX_COLOURS colours with its own links (docs/scenes.md "Stitches"). */
#define DRAPE_MAX_STITCHES_AT_VERTEX 32

static int cmp_ll(const void *a, const void *b) {
  const long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

/* The cloth a stitch names, or -1. */
static int cloth_named(const drape_scene *s, const char *name) {
  for (int i = 0; i < s->n_cloth; i++)
    if (strcmp(s->cloth[i].name, name) == 0) return i;
  return -1;
}

static int stitch_scene_check(const drape_scene *s, int i, double h, drape_err *e) {
  const drape_stitch_def *d = &s->stitch[i];
  if (stitch_check(d, i, h, e)) return DRAPE_EINVAL;
  for (int side = 0; side < 2; side++) {
    const char *name = side ? d->b : d->a;
    const int k = cloth_named(s, name);
    if (k < 0)
      return drape_fail(e, DRAPE_EINVAL, "stitch[%d].%s = \"%.*s\": no cloth has that name", i,
                        side ? "b" : "a", DRAPE_NAME_MAX - 1, name);
    const drape_cloth_def *c = &s->cloth[k];
    const int nv = c->has_mesh ? c->mesh.n_vertices : c->rows * c->cols;
    const int *v = side ? d->b_vertices : d->a_vertices;
    if (c->solver == DRAPE_SOLVER_SPRINGS)
      return drape_fail(e, DRAPE_EINVAL, "stitch[%d].%s = \"%s\": that cloth uses the \"springs\" "
                        "solver, which has no stitches (use \"xpbd\" or \"jakobsen\")", i,
                        side ? "b" : "a", c->name);
    if (c->tear_ratio != 0)
      return drape_fail(e, DRAPE_EINVAL, "stitch[%d].%s = \"%s\": that cloth tears (tear_ratio = "
                        "%s), and a seam closing to length 0 would tear at once; stitched cloths "
                        "need tear_ratio 0", i, side ? "b" : "a", c->name, dr_num(c->tear_ratio));
    for (int q = 0; q < d->n; q++)
      if (v[q] >= nv)
        return drape_fail(e, DRAPE_EINVAL, "stitch[%d].%s_vertices[%d] = %d: cloth[%d] (\"%s\") "
                          "has vertices 0..%d", i, side ? "b" : "a", q, v[q], k, c->name, nv - 1);
  }
  if (!strcmp(d->a, d->b))
    for (int q = 0; q < d->n; q++)
      if (d->a_vertices[q] == d->b_vertices[q])
        return drape_fail(e, DRAPE_EINVAL, "stitch[%d].b_vertices[%d] = %d: the same vertex as "
                          "a_vertices[%d] of the same cloth (nothing to sew)", i, q,
                          d->b_vertices[q], q);
  return 0;
}

/* Seams over all stitches: a vertex sewn more than DRAPE_MAX_STITCHES_AT_VERTEX
 * times, or one pair given twice (the second sews nothing new), is refused
 * here in the scene's words; it would otherwise surface as a colouring
 * failure in the solver's own numbering. */
static int stitch_counts_check(const drape_scene *s, drape_err *e) {
  if (s->n_stitch == 0) return 0;
  int **count = calloc((size_t)s->n_cloth + 1, sizeof *count);
  int rc = 0;
  if (!count) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (int k = 0; k < s->n_cloth && !rc; k++) {
    const drape_cloth_def *c = &s->cloth[k];
    const int nv = c->has_mesh ? c->mesh.n_vertices : c->rows * c->cols;
    if (!(count[k] = calloc((size_t)nv + 1, sizeof **count))) rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  for (int i = 0; i < s->n_stitch && !rc; i++) {
    const drape_stitch_def *d = &s->stitch[i];
    const int ka = cloth_named(s, d->a), kb = cloth_named(s, d->b);
    for (int q = 0; q < d->n && !rc; q++)
      for (int side = 0; side < 2 && !rc; side++) {
        const int k = side ? kb : ka, v = side ? d->b_vertices[q] : d->a_vertices[q];
        if (++count[k][v] > DRAPE_MAX_STITCHES_AT_VERTEX)
          rc = drape_fail(e, DRAPE_EINVAL,
                          "stitch[%d].%s_vertices[%d] = %d: vertex %d of \"%s\" is sewn more than "
                          "%d times over all stitches (allowed: up to %d)", i, side ? "b" : "a", q,
                          v, v, s->cloth[k].name, DRAPE_MAX_STITCHES_AT_VERTEX,
                          DRAPE_MAX_STITCHES_AT_VERTEX);
      }
    /* a repeated pair within the stitch: pairs sorted, neighbours compared */
    if (!rc && d->n > 1) {
      long long *key = malloc(sizeof *key * (size_t)d->n);
      if (!key) {
        rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
        break;
      }
      for (int q = 0; q < d->n; q++) key[q] = ((long long)d->a_vertices[q] << 32) | (unsigned)d->b_vertices[q];
      qsort(key, (size_t)d->n, sizeof *key, cmp_ll);
      for (int q = 1; q < d->n && !rc; q++)
        if (key[q] == key[q - 1]) {
          const int va = (int)(key[q] >> 32), vb = (int)(key[q] & 0xffffffff);
          int first = -1, again = -1;
          for (int r = 0; r < d->n && again < 0; r++)
            if (d->a_vertices[r] == va && d->b_vertices[r] == vb) {
              if (first < 0) first = r;
              else again = r;
            }
          rc = drape_fail(e, DRAPE_EINVAL,
                          "stitch[%d]: pair %d (a_vertices[%d] = %d, b_vertices[%d] = %d) repeats "
                          "pair %d: each pair may be sewn once", i, again, again, va, again, vb, first);
        }
      free(key);
    }
  }
  for (int k = 0; k < s->n_cloth; k++) free(count[k]);
  free(count);
  return rc;
}

int drape_scene_validate(const drape_scene *s, drape_err *e) {
  if (!s) return drape_fail(e, DRAPE_EINVAL, "scene: NULL");
  if (scene_fields_check(s, e)) return DRAPE_EINVAL;
  const double h = s->dt / s->substeps;
  for (int i = 0; i < s->n_cloth; i++)
    if (cloth_check(&s->cloth[i], i, h, e)) return DRAPE_EINVAL;
  for (int i = 0; i < s->n_rope; i++)
    if (rope_check(&s->rope[i], i, h, e)) return DRAPE_EINVAL;
  for (int i = 0; i < s->n_string; i++)
    if (drape_string_def_validate(&s->string[i], i, e)) return DRAPE_EINVAL;
  for (int i = 0; i < s->n_sphere; i++)
    if (drape_sphere_def_validate(&s->sphere[i], i, e)) return DRAPE_EINVAL;
  if (s->n_stitch < 0 || (s->n_stitch && !s->stitch))
    return drape_fail(e, DRAPE_EINVAL, "scene: stitch count and array disagree");
  for (int i = 0; i < s->n_stitch; i++)
    if (stitch_scene_check(s, i, h, e)) return DRAPE_EINVAL;
  if (stitch_counts_check(s, e)) return DRAPE_EINVAL;
  if (dr_collider_scene_validate(s, e)) return DRAPE_EINVAL; /* collider_defs.c */
  if (selfcol_cell_check(s, e)) return DRAPE_EINVAL;

  /* Names must be unique: they become OBJ object names and stats keys. */
  const int total = s->n_cloth + s->n_rope + s->n_string;
  for (int a = 0; a < total; a++) {
    const char *na, *ka, *nb, *kb;
    int ia, ib;
#define OBJ_AT(idx, nm, kind, ix)                                                        \
  do {                                                                                   \
    int j_ = (idx);                                                                      \
    if (j_ < s->n_cloth) { nm = s->cloth[j_].name; kind = "cloth"; ix = j_; }             \
    else if ((j_ -= s->n_cloth) < s->n_rope) { nm = s->rope[j_].name; kind = "rope"; ix = j_; } \
    else { j_ -= s->n_rope; nm = s->string[j_].name; kind = "string"; ix = j_; }          \
  } while (0)
    OBJ_AT(a, na, ka, ia);
    for (int b = 0; b < a; b++) {
      OBJ_AT(b, nb, kb, ib);
      if (strcmp(na, nb) == 0)
        return drape_fail(e, DRAPE_EINVAL,
                          "%s[%d].name = \"%s\": already used by %s[%d] (names must be unique)", ka,
                          ia, na, kb, ib);
    }
#undef OBJ_AT
  }
  return 0;
}

/* ---- drape_sim_params and drape_sim_opts -------------------------------- */

int drape_sim_params_validate(const drape_sim_params *p, double dt, drape_err *e) {
  if (!p) return drape_fail(e, DRAPE_EINVAL, "drape_sim_params: NULL");
  if (chk_substeps(e, p->substeps) || chk_iterations(e, p->iterations)) return DRAPE_EINVAL;
  /* dt is the scene's, already checked: here substeps decides h */
  if (dt > 0 && !(dt / p->substeps >= DRAPE_H_MIN)) {
    char hs[40];
    fmt_num(hs, sizeof hs, dt / p->substeps);
    /* the largest n with dt / n >= DRAPE_H_MIN, as the check computes it */
    double n = floor(dt / DRAPE_H_MIN);
    while (n > 1 && !(dt / n >= DRAPE_H_MIN)) n--;
    while (dt / (n + 1) >= DRAPE_H_MIN) n++;
    return drape_fail(e, DRAPE_EINVAL,
                      "substeps = %d: the substep h = dt / substeps = %s s is below %g s, where "
                      "1/h^2 no longer fits in a float (the solver computes in float); the largest "
                      "value allowed with dt = %s s is %.0f",
                      p->substeps, hs, DRAPE_H_MIN, dr_num(dt), n);
  }
  return chk_air(e, p->gravity, p->wind, p->wind_drag);
}

int drape_sim_opts_validate(const drape_sim_opts *o, drape_err *e) {
  if (!o) return 0; /* NULL means the defaults */
  if (o->backend != DRAPE_BACKEND_CL && o->backend != DRAPE_BACKEND_CPU)
    return drape_fail(e, DRAPE_EINVAL, "backend = %d: expected DRAPE_BACKEND_CL (%d) or DRAPE_BACKEND_CPU (%d)",
                      (int)o->backend, (int)DRAPE_BACKEND_CL, (int)DRAPE_BACKEND_CPU);
  if (o->device_index < -1)
    return drape_fail(e, DRAPE_EINVAL,
                      "device_index = %d: expected -1 (the default device) or an index >= 0 (drape devices)",
                      o->device_index);
  if (o->kernel_form != DRAPE_KERNEL_FORM_AUTO && o->kernel_form != DRAPE_KERNEL_FORM_GPU &&
      o->kernel_form != DRAPE_KERNEL_FORM_CPU)
    return drape_fail(e, DRAPE_EINVAL,
                      "kernel_form = %d: expected DRAPE_KERNEL_FORM_AUTO (0), _GPU (1) or _CPU (2)",
                      (int)o->kernel_form);
  return 0;
}
#undef CHK
#undef P
