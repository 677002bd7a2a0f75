/* Mesh builders: cloth grids and ropes into particles, constraints,
 * triangles, lines and tethers; then the graph colouring (colour.c).
 * The model is what both solver backends upload. */
#include "core/model.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/colour.h"
#include "core/model_mesh.h"
#include "core/util.h"

#include "dihedral.cl" /* kernels/: dr_dihedral_angle, the kernel's own */

/* ---- constraint generators ---- */

static void put(dr_distance *out, unsigned char *type, int *n, int a, int b, double rest,
                double compliance, int t) {
  if (out) {
    out[*n].a = a;
    out[*n].b = b;
    out[*n].rest = (float)rest;
    out[*n].compliance = (float)compliance;
  }
  if (type) type[*n] = (unsigned char)t;
  (*n)++;
}

int dr_grid_constraints(int rows, int cols, double spacing, int first, dr_grid_order order,
                           const double compliance[3], dr_distance *out, unsigned char *type) {
  int n = 0;
  const double s = spacing, d = spacing * sqrt(2.0), b2 = 2.0 * spacing;
  const double cs = compliance[0], csh = compliance[1], cb = compliance[2];
#define ID(r, c) (first + (r) * cols + (c))
  if (order == DRAPE_GRID_BY_FAMILY) {
    /* Keep this order in step with tri_edge_index() below. */
    for (int r = 0; r < rows; r++)
      for (int c = 0; c + 1 < cols; c++) put(out, type, &n, ID(r, c), ID(r, c + 1), s, cs, DR_C_STRETCH);
    for (int r = 0; r + 1 < rows; r++)
      for (int c = 0; c < cols; c++) put(out, type, &n, ID(r, c), ID(r + 1, c), s, cs, DR_C_STRETCH);
    for (int r = 0; r + 1 < rows; r++)
      for (int c = 0; c + 1 < cols; c++) put(out, type, &n, ID(r, c), ID(r + 1, c + 1), d, csh, DR_C_SHEAR);
    for (int r = 0; r + 1 < rows; r++)
      for (int c = 0; c + 1 < cols; c++) put(out, type, &n, ID(r, c + 1), ID(r + 1, c), d, csh, DR_C_SHEAR);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c + 2 < cols; c++) put(out, type, &n, ID(r, c), ID(r, c + 2), b2, cb, DR_C_BEND);
    for (int r = 0; r + 2 < rows; r++)
      for (int c = 0; c < cols; c++) put(out, type, &n, ID(r, c), ID(r + 2, c), b2, cb, DR_C_BEND);
  } else {
    /* seed 002 §7, class Cloth: all constraints of particle (r, c) in turn */
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) {
        if (c < cols - 1) put(out, type, &n, ID(r, c), ID(r, c + 1), s, cs, DR_C_STRETCH);
        if (r < rows - 1) put(out, type, &n, ID(r, c), ID(r + 1, c), s, cs, DR_C_STRETCH);
        if (c < cols - 1 && r < rows - 1) {
          put(out, type, &n, ID(r, c), ID(r + 1, c + 1), d, csh, DR_C_SHEAR);
          put(out, type, &n, ID(r, c + 1), ID(r + 1, c), d, csh, DR_C_SHEAR);
        }
        if (c < cols - 2) put(out, type, &n, ID(r, c), ID(r, c + 2), b2, cb, DR_C_BEND);
        if (r < rows - 2) put(out, type, &n, ID(r, c), ID(r + 2, c), b2, cb, DR_C_BEND);
      }
  }
#undef ID
  return n;
}

/* Index (in DRAPE_GRID_BY_FAMILY order, relative to the cloth's first
 * constraint) of the structural or diagonal link of cell (r, c). */
typedef enum { EDGE_H, EDGE_V, EDGE_D } edge_kind;
static int tri_edge_index(int rows, int cols, edge_kind k, int r, int c) {
  int nh = rows * (cols - 1), nv = (rows - 1) * cols;
  switch (k) {
    case EDGE_H: return r * (cols - 1) + c;
    case EDGE_V: return nh + r * cols + c;
    default: return nh + nv + r * (cols - 1) + c;
  }
}

int dr_rope_constraints(int segments, double rest, double compliance, int first,
                           dr_distance *out, unsigned char *type) {
  int n = 0;
  for (int i = 0; i < segments; i++)
    put(out, type, &n, first + i, first + i + 1, rest, compliance, DR_C_ROPE);
  return n;
}

/* ---- where a rope starts (docs/scenes.md "Rope", start shape) ---- */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Evenly spaced from a to b: today's placement, and "straight". */
static void lay_line(double *xyz, int segments, const double a[3], const double b[3]) {
  for (int j = 0; j <= segments; j++) {
    const double f = (double)j / segments;
    for (int q = 0; q < 3; q++) xyz[3 * j + q] = a[q] + f * (b[q] - a[q]);
  }
}

/* sinh(u) / u for u >= 0, accurate near 0 (the slightly slack rope). */
static double sinhc(double u) { return u < 1e-4 ? 1.0 + u * u / 6.0 : sinh(u) / u; }

/* The continuous catenary y = a cosh((x - x0) / a) + const through (0, 0)
 * and (h, v) with arc length L > sqrt(h^2 + v^2): sqrt(L^2 - v^2) =
 * 2 a sinh(h / 2a), i.e. sinh(u) / u = sqrt(L^2 - v^2) / h with u = h / 2a,
 * increasing in u (bisection); the lowest point is at x0 = h/2 - a
 * atanh(v / L), arc length a sinh(x0 / a) from the start. */
static void catenary(double L, double h, double v, double *a, double *x0) {
  const double want = sqrt(L * L - v * v) / h;
  double lo = 0, hi = 1;
  while (sinhc(hi) < want && hi < 700) hi *= 2;
  for (int i = 0; i < 200; i++) {
    const double mid = 0.5 * (lo + hi);
    if (sinhc(mid) < want) lo = mid;
    else hi = mid;
  }
  *a = h / (lo + hi);
  *x0 = 0.5 * h - *a * atanh(v / L);
}

/* Phi(k, c) = sum_j sqrt(k^2 + (j - c)^2) - k h/rest + c v/rest is convex
 * (a sum of norms plus a linear part) and grows without bound when the rope
 * is slack, and its gradient is (links across - h/rest, -(links up -
 * v/rest)): its minimum is the resting chain. Sums phi, the gradient and
 * the Hessian. */
typedef struct { double phi, gk, gc, hkk, hkc, hcc; } cat_eval;
static cat_eval cat_at(int n, double k, double c, double th, double tv) {
  cat_eval r = {-k * th + c * tv, -th, tv, 0, 0, 0};
  for (int j = 0; j < n; j++) {
    const double t = j - c, r2 = k * k + t * t, q = sqrt(r2), q3 = r2 * q;
    r.phi += q;
    r.gk += k / q;   /* cos theta_j */
    r.gc -= t / q;   /* -sin theta_j */
    r.hkk += t * t / q3;
    r.hkc += k * t / q3;
    r.hcc += k * k / q3;
  }
  return r;
}

/* For a given k: c where the links up add up to tv (Illinois on the
 * decreasing sum), and the links across less th at that c in *g. */
static int across_at(int n, double k, double th, double tv, double *c, double *g) {
  double lo = -1, hi = n, flo, fhi;
  for (int i = 0; (flo = cat_at(n, k, lo, th, tv).gc) > 0 && i < 80; i++) lo = 2 * lo - n;
  for (int i = 0; (fhi = cat_at(n, k, hi, th, tv).gc) < 0 && i < 80; i++) hi = 2 * hi + 1;
  /* gc = tv - (links up): rises with c */
  if (!(flo <= 0 && fhi >= 0)) return -1;
  int side = 0;
  cat_eval f = {0};
  double x = lo;
  for (int it = 0; it < 300; it++) {
    x = fhi == flo ? 0.5 * (lo + hi) : (lo * fhi - hi * flo) / (fhi - flo);
    f = cat_at(n, k, x, th, tv);
    if (fabs(f.gc) <= 1e-13 * (n + 1) || hi - lo <= 1e-15 * (fabs(lo) + fabs(hi))) break;
    if (f.gc < 0) {
      lo = x, flo = f.gc;
      if (side == -1) fhi *= 0.5;
      side = -1;
    } else {
      hi = x, fhi = f.gc;
      if (side == 1) flo *= 0.5;
      side = 1;
    }
  }
  *c = x;
  *g = f.gk;
  return 0;
}

/* The discrete catenary: the resting shape of a chain of `n` links of
 * length `rest` with equal node masses, its ends `h` apart across and `v`
 * apart up (v > 0: the last node is higher). The horizontal tension is the
 * same in every link and the vertical one grows by one node's weight from
 * link to link, so link j leaves at the angle theta_j above the horizontal
 * with tan theta_j = (j - c) / k: k is the horizontal tension in node
 * weights and c where the chain runs level. Two unknowns, two conditions
 * (the links add up to h across and v up), solved by Newton from the
 * continuous catenary's values (or, where Newton loses its way, two nested
 * monotone 1-D roots). Why the discrete shape and not nodes at
 * equal arc length on the continuous curve: its chords are shorter than
 * the arcs by (ds / a)^2 / 24 (8e-5 on scenes/hanging_rope.json, 1000 float
 * roundings), and it is the chain's own equilibrium, so the rope starts at
 * rest. Writes the unit link directions (across, up) into dir[2 n];
 * returns 0, or -1 when there is no such chain (every link leaning
 * forwards, cos theta_j > 0, which can fail to exist when the ends are less
 * than a link apart across: dr_rope_start_shape then lays a fold) or no
 * root was found. */
static int discrete_catenary(int n, double rest, double h, double v, double *dir) {
  double a, x0;
  catenary(n * rest, h, v, &a, &x0);
  /* the continuous catenary's values: k = H / (weight of a link) = a /
   * rest; level where the arc reaches the lowest point, less half a link */
  double k = a / rest, c = a * sinh(x0 / a) / rest - 0.5;
  const double th = h / rest, tv = v / rest, tol = 1e-10 * (n + 1);
  cat_eval f = cat_at(n, k, c, th, tv);
  for (int it = 0; it < 200 && !(fabs(f.gk) + fabs(f.gc) <= tol); it++) {
    /* Newton on the convex Phi, halving the step until Phi drops enough
     * (Armijo) or the gradient shrinks (near the minimum Phi's change is
     * below its rounding); the Hessian is positive definite (Cauchy-Schwarz) */
    const double det = f.hkk * f.hcc - f.hkc * f.hkc;
    const double dk = -(f.hcc * f.gk - f.hkc * f.gc) / det, dc = -(f.hkk * f.gc - f.hkc * f.gk) / det;
    const double slope = f.gk * dk + f.gc * dc; /* < 0 */
    double step = 1;
    cat_eval g = f;
    for (int b = 0; b < 60; b++, step *= 0.5) {
      g = cat_at(n, k + step * dk, c + step * dc, th, tv);
      if (g.phi <= f.phi + 1e-4 * step * slope || fabs(g.gk) + fabs(g.gc) < fabs(f.gk) + fabs(f.gc))
        break;
    }
    k += step * dk;
    c += step * dc;
    f = g;
  }
  if (!(fabs(f.gk) + fabs(f.gc) <= tol) || !(k > 0)) {
    /* Newton lost its way where the chain hangs nearly straight down
     * (k tiny: the Hessian is all but singular). The links up, less v,
     * fall as c grows; for c(k) where they match, the links across, less
     * h, grow with k (derivative det / Hessian_cc > 0): two monotone 1-D
     * roots, each by regula falsi (Illinois). No root in k: the resting
     * chain needs a link leaning back (few links, steep ends) */
    double ulo = log(1e-12), uhi = log(1e6 * (n + 1.0)), glo, ghi;
    if (across_at(n, exp(ulo), th, tv, &c, &glo) || across_at(n, exp(uhi), th, tv, &c, &ghi) ||
        !(glo < 0 && ghi > 0))
      return -1;
    int side = 0;
    for (int it = 0; it < 300; it++) {
      const double u = (ulo * ghi - uhi * glo) / (ghi - glo);
      double gu;
      if (across_at(n, exp(u), th, tv, &c, &gu)) return -1;
      k = exp(u);
      if (fabs(gu) <= 0.5 * tol || uhi - ulo < 1e-15) break;
      if (gu < 0) {
        ulo = u, glo = gu;
        if (side == -1) ghi *= 0.5;
        side = -1;
      } else {
        uhi = u, ghi = gu;
        if (side == 1) glo *= 0.5;
        side = 1;
      }
    }
    f = cat_at(n, k, c, th, tv);
    if (!(fabs(f.gk) + fabs(f.gc) <= tol)) return -1;
  }
  for (int j = 0; j < n; j++) {
    const double t = j - c, r = sqrt(k * k + t * t);
    dir[2 * j] = k / r;
    dir[2 * j + 1] = t / r;
  }
  return 0;
}

dr_rope_layout dr_rope_start_shape(const drape_rope_def *r, const double gravity[3], double *xyz,
                                   double *strain) {
  const int n = r->segments;
  const double L = r->length, rest = L / n;
  double chord[3], span;
  for (int q = 0; q < 3; q++) chord[q] = r->end[q] - r->start[q];
  span = sqrt(dot3(chord, chord));
  *strain = span / L - 1;
  /* down: along gravity; without gravity, -y (any shape rests then) */
  double down[3] = {0, -1, 0};
  const double g = sqrt(dot3(gravity, gravity));
  if (g > 0)
    for (int q = 0; q < 3; q++) down[q] = gravity[q] / g;
  const int slack = L > span * (1 + 1e-7); /* below that, a float rounding */
  if (r->start_shape == DRAPE_ROPE_START_STRAIGHT || (!r->pin_start && !r->pin_end) ||
      (r->pin_start && r->pin_end && (!slack || n < 2))) {
    lay_line(xyz, n, r->start, r->end);
    return DR_ROPE_LAID_STRAIGHT;
  }
  *strain = 0;
  if (!(r->pin_start && r->pin_end)) {
    /* one pin: straight from it towards the other end, at full length
     * (downwards when the two ends coincide) */
    const double *from = r->pin_start ? r->start : r->end;
    double u[3];
    for (int q = 0; q < 3; q++) u[q] = span > 0 ? (r->pin_start ? chord[q] : -chord[q]) / span : down[q];
    for (int j = 0; j <= n; j++) {
      const double s = r->pin_start ? rest * j : rest * (n - j); /* arc length from the pin */
      for (int q = 0; q < 3; q++) xyz[3 * j + q] = from[q] + s * u[q];
    }
    return r->pin_start ? DR_ROPE_LAID_FROM_START : DR_ROPE_LAID_FROM_END;
  }
  /* both pinned and slack: the vertical plane through the ends */
  const double v = -dot3(chord, down); /* end above start */
  double across[3];
  for (int q = 0; q < 3; q++) across[q] = chord[q] + v * down[q];
  const double h = sqrt(dot3(across, across));
  if (h > 1e-6 * L) {
    double *dir = malloc(sizeof *dir * 2 * (size_t)n);
    const int found = dir && discrete_catenary(n, rest, h, v, dir) == 0;
    if (found) {
      double p[3] = {r->start[0], r->start[1], r->start[2]};
      for (int j = 0; j < n; j++) {
        for (int q = 0; q < 3; q++) xyz[3 * j + q] = p[q];
        for (int q = 0; q < 3; q++)
          p[q] += rest * (dir[2 * j] * across[q] / h - dir[2 * j + 1] * down[q]);
      }
      /* the links land within ~1e-10 n links of the end: share that out
       * (1e-10 of a link each) rather than put it all into the last one */
      for (int j = 1; j <= n; j++)
        for (int q = 0; q < 3; q++)
          xyz[3 * j + q] = j == n ? r->end[q] : xyz[3 * j + q] + (r->end[q] - p[q]) * j / n;
    }
    free(dir);
    if (found) return DR_ROPE_LAID_CATENARY;
    if (h >= rest) {
      /* Not reached in the tests (test_rope_start: with h >= rest the
       * resting chain exists and is found); out of memory: nodes at equal
       * arc length on the continuous curve, links short by (ds / a)^2 / 24. */
      double a, x0;
      catenary(L, h, v, &a, &x0);
      const double s0 = sinh(x0 / a), c0 = cosh(x0 / a);
      for (int j = 0; j < n; j++) {
        const double t = rest * j / a - s0; /* sinh((x - x0) / a) */
        const double x = x0 + a * asinh(t), y = a * (sqrt(1 + t * t) - c0);
        for (int q = 0; q < 3; q++) xyz[3 * j + q] = r->start[q] + x * across[q] / h - y * down[q];
      }
      for (int q = 0; q < 3; q++) xyz[3 * n + q] = r->end[q];
      return DR_ROPE_LAID_CATENARY;
    }
  }
  /* The ends less than a link apart across, where a resting chain with
   * every link leaning forwards does not exist (two links between steep
   * ends, or the ends one above the other): the rope hangs as a fold, n1
   * links straight down from the start, n2 straight down from the end, and
   * a V of two links between their lower ends, below them in the vertical
   * plane through the ends (bulging sideways along x, or z when gravity is
   * along x, when the ends are one above the other); every link keeps its
   * rest length. */
  double e[3] = {1, 0, 0};
  if (h > 1e-12 * L) {
    for (int q = 0; q < 3; q++) e[q] = across[q] / h;
  } else {
    if (fabs(down[0]) > 0.9) e[0] = 0, e[2] = 1;
    const double ed = dot3(e, down);
    for (int q = 0; q < 3; q++) e[q] -= ed * down[q];
    const double el = sqrt(dot3(e, e));
    for (int q = 0; q < 3; q++) e[q] /= el;
  }
  const double hx = h > 1e-12 * L ? h : 0;
  long n1 = lround((n - 2 - v / rest) / 2);
  if (n1 < 0) n1 = 0;
  if (n1 > n - 2) n1 = n - 2;
  const long n2 = n - 2 - n1;
  /* in-plane (across, depth below the start): bottoms (0, P) and (hx, Q);
   * the V node is rest from both, on the side of larger depth */
  const double P = n1 * rest, Q = n2 * rest - v;
  const double bx = hx, by = Q - P, d = sqrt(bx * bx + by * by);
  const double w2 = rest * rest - 0.25 * d * d, w = w2 > 0 ? sqrt(w2) : 0;
  const double ux = d > 0 ? -by / d : 1, uy = d > 0 ? bx / d : 0; /* uy >= 0: deeper */
  for (long j = 0; j <= n; j++) {
    double x = 0, depth;
    if (j <= n1) depth = j * rest;
    else if (j == n1 + 1) x = 0.5 * hx + w * ux, depth = 0.5 * (P + Q) + w * uy;
    else x = hx, depth = (n - j) * rest - v;
    for (int q = 0; q < 3; q++) xyz[3 * j + q] = r->start[q] + x * e[q] + depth * down[q];
  }
  for (int q = 0; q < 3; q++) xyz[3 * n + q] = r->end[q];
  return DR_ROPE_LAID_FOLD;
}

int dr_rope_start(const drape_rope_def *r, int index, const double gravity[3], double *xyz) {
  if (r->points && r->n_points == r->segments + 1) { /* laid by the scene, node by node */
    memcpy(xyz, r->points, sizeof(double) * 3 * (size_t)r->n_points);
    return 0;
  }
  double strain = 0;
  const dr_rope_layout how = dr_rope_start_shape(r, gravity, xyz, &strain);
  if (how == DR_ROPE_LAID_STRAIGHT && fabs(strain) > 1e-6) {
    const double span = r->length * (1 + strain);
    /* the implicit cable's springs push back whatever tension_only says */
    const int pushes = !r->tension_only || r->solver == DRAPE_SOLVER_IMPLICIT;
    if (strain < 0)
      fprintf(stderr,
              "drape: warning: rope[%d] (\"%s\"): its links start compressed by %.3g%% (%s m of "
              "rope laid straight on %s m%s); %s (docs/scenes.md \"Rope\")\n",
              index, r->name, -100 * strain, dr_num(r->length), dr_num(span),
              r->start_shape == DRAPE_ROPE_START_STRAIGHT
                  ? ", start_shape \"straight\"; \"auto\" starts every link at its rest length"
                  : ", no end pinned; put start and end a rope's length apart",
              pushes ? "they push apart in the first substep, giving the rope energy it never had"
                     : "they start slack (tension_only) and the rope falls until they pull tight");
    else if (r->pin_start && r->pin_end)
      fprintf(stderr,
              "drape: warning: rope[%d] (\"%s\"): its links start stretched by %.3g%%: the pins "
              "are %s m apart, the rope is %s m long\n",
              index, r->name, 100 * strain, dr_num(span), dr_num(r->length));
  }
  return how;
}

/* ---- validation of what the builder relies on ---- */

/* Messages print numbers so that they read back as the value used
 * (dr_num, core/util.h): a tear_ratio of 1.0000001 is not shown as 1. */

/* x rounded up to 5 significant digits: a "smallest value allowed" that
 * one can copy and that passes. */
static double up5(double x) {
  char b[40];
  snprintf(b, sizeof b, "%.4e", x * 1.0001);
  return strtod(b, NULL);
}

/* The scene's values are checked by drape_scene_validate (validate.c, the
 * loader's checks; limits in drape/limits.h) before anything is built. What
 * is left here is what only this builder cannot do, and a last look at
 * each particle's mass as it is stored. */
static int check_supported(const drape_scene *s, drape_err *e) {
  for (int i = 0; i < s->n_rope; i++)
    if (s->rope[i].solver == DRAPE_SOLVER_IMPLICIT)
      return drape_fail(e, DRAPE_EINVAL,
                        "rope[%d].solver = \"%s\": implicit ropes are the seed 003 cable, solved on "
                        "the CPU by drape_cable (include/drape/cable.h; drape_world does this for "
                        "scenes); the cloth and rope solver runs \"xpbd\" and \"jakobsen\" ropes",
                        i, drape_solver_name(s->rope[i].solver));
  return DRAPE_OK;
}

/* A particle's mass and inverse mass as the solver holds them (float):
 * both must be normal and finite (mass >= FLT_MIN gives 1/mass <= 8.5e37). */
static int mass_ok(double mass) {
  return (float)mass >= DRAPE_FLOAT_MIN && isfinite((float)mass) && isfinite((float)(1.0 / mass));
}

/* ---- the builder ---- */

void dr_model_free(dr_model *m) {
  if (!m) return;
  free(m->x0); free(m->mass); free(m->obj);
  free(m->cons); free(m->cons_type); free(m->cons_obj); free(m->colour_off);
  free(m->tris); free(m->tri_edge); free(m->vt_off); free(m->vt_list); free(m->lines);
  free(m->tether_pin); free(m->tether_rest);
  free(m->stitch_con); free(m->stitch_rest0); free(m->stitch_close);
  free(m->bend); free(m->bend_obj); free(m->bend_colour_off);
  free(m->memb); free(m->memb_obj); free(m->memb_colour_off); free(m->obj_material);
  free(m->obj_mat); free(m->memb_area); free(m->mhinge_kw); free(m->mhinge_kf);
  free(m->mhinge); free(m->mhinge_obj); free(m->mhinge_colour_off);
  free(m->rbend); free(m->rbend_obj); free(m->rbend_colour_off);
  free(m->level_colour); free(m->prolong); free(m->prolong_off); free(m->memb_up);
  free(m->info); free(m->mat); free(m->damping_rate); free(m->strain_off); free(m->strain_idx);
  free(m->perm); free(m->iperm);
  for (int i = 0; i < m->n_paths; i++) free(m->paths[i].keys);
  free(m->paths);
  memset(m, 0, sizeof *m);
}

void dr_grid_axes(drape_plane plane, double U[3], double V[3]) {
  memset(U, 0, 3 * sizeof *U);
  memset(V, 0, 3 * sizeof *V);
  switch (plane) {
    case DRAPE_PLANE_XY: U[0] = 1; V[1] = -1; break;
    case DRAPE_PLANE_YZ: U[2] = 1; V[1] = -1; break;
    default: U[0] = 1; V[2] = 1; break;
  }
}

typedef struct { double d; int pin; } pin_dist;
static int cmp_pin_dist(const void *a, const void *b) {
  const pin_dist *x = a, *y = b;
  if (x->d != y->d) return x->d < y->d ? -1 : 1;
  return x->pin - y->pin;
}

#define ALLOC(p, n) ((p) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof *(p)))

/* The order greedy colouring visits the constraints in: per object, each
 * grid family and direction split into its two natural classes (even and
 * odd rows, columns, or pairs of them for bends; even and odd links for
 * ropes), one class after the other. Why: inside a class no two
 * constraints share a particle, so greedy gives nearly a whole class one
 * colour. Visited row by row instead, an edge constraint that takes an
 * unusual colour pushes its neighbour in the next row off too, and on the
 * diagonal families a wedge growing from the edge ends up alternating by
 * column: half of those colours then lose the runs of consecutive
 * particles that project_distance loads as vectors (colour.c). */
static int *colour_order(const dr_model *m) {
  const int n = m->n_cons, buckets = 16 * (m->n_objects > 0 ? m->n_objects : 1);
  int *order = malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
  int *key = malloc(sizeof *key * (size_t)(n > 0 ? n : 1));
  int *start = calloc((size_t)buckets + 1, sizeof *start);
  if (!order || !key || !start) { free(order); free(key); free(start); return NULL; }
  for (int i = 0; i < n; i++) {
    const drape_object_info *inf = &m->info[m->cons_obj[i]];
    const int a = m->cons[i].a - inf->first_particle, b = m->cons[i].b - inf->first_particle;
    int k = 12;
    if (m->cons_type[i] == DR_C_STITCH) {
      /* seams first: the lowest colours, so after the reversal below they
       * are projected last in each sweep and end it closed (measured on
       * scenes/skirt_sewn.json: gap 4 mm when projected first) */
      k = 0;
    } else if (inf->kind == DRAPE_OBJ_ROPE) {
      k = (a < b ? a : b) & 1;
    } else if (inf->cols == 0) {
      k = 1; /* a mesh cloth's edges: its edge units colour them (colour_bends) */
    } else {
      const int ra = a / inf->cols, ca = a % inf->cols, rb = b / inf->cols, cb = b % inf->cols;
      const int r0 = ra < rb ? ra : rb, c0 = ca < cb ? ca : cb;
      const int dr = abs(rb - ra), dc = (rb - ra) * (cb - ca) < 0 ? -abs(cb - ca) : abs(cb - ca);
      if (dr == 0 && dc == 1) k = 0 + (c0 & 1);
      else if (dr == 1 && dc == 0) k = 2 + (r0 & 1);
      else if (dr == 1 && dc == 1) k = 4 + (r0 & 1);
      else if (dr == 1 && dc == -1) k = 6 + (r0 & 1);
      else if (dr == 0 && dc == 2) k = 8 + ((c0 >> 1) & 1);
      else if (dr == 2 && dc == 0) k = 10 + ((r0 >> 1) & 1);
    }
    key[i] = 16 * m->cons_obj[i] + k;
    start[key[i] + 1]++;
  }
  for (int k = 0; k < buckets; k++) start[k + 1] += start[k];
  for (int i = 0; i < n; i++) order[start[key[i]]++] = i;
  free(key);
  free(start);
  return order;
}

/* ---- fewer unit colours: tabu search (Hertz and de Werra 1987) ---- */

/* The particles of edge unit u: 2 or 4. */
static int unit_particles(const dr_dihedral *d, int p[4]) {
  p[0] = d->a, p[1] = d->b;
  if (d->c < 0) return 2;
  p[2] = d->c, p[3] = d->d;
  return 4;
}

/* Counts, per colour, unit u's neighbours (units sharing a particle; one
 * sharing two counts twice, which changes no zero) into cnt[0..K). */
static void unit_colour_counts(const dr_dihedral *bend, const int *off, const int *list,
                               const int *col, int u, int K, int *cnt) {
  int p[4];
  const int np = unit_particles(&bend[u], p);
  for (int k = 0; k < K; k++) cnt[k] = 0;
  for (int q = 0; q < np; q++)
    for (int j = off[p[q]]; j < off[p[q] + 1]; j++)
      if (list[j] != u) cnt[col[list[j]]]++;
}

/* Tries to colour the units with K colours, starting from col (greedy,
 * maybe more colours: those are folded into [0, K) first): the tabu
 * search of Hertz and de Werra ("Using tabu search techniques for graph
 * coloring", Computing 39, 1987) on the conflicts, a unit at a time, with
 * a fixed-seed generator so that the model, and so the bits, are the
 * same every run. Why: greedy leaves a mesh of valence up to 8 at 18
 * colours where 16 (the units meeting at its busiest particle) suffice,
 * and each colour is a launch per iteration. same[u] counts u's
 * neighbours (by shared particle) of its own colour, kept up to date at
 * each move; conf holds the units with same > 0. Returns 1 and leaves
 * the colouring in col when it succeeds within `budget` moves; else col
 * is unspecified (the caller keeps a copy). */
static int tabu_colour(const dr_dihedral *bend, int n, const int *off, const int *list, int K,
                       long long budget, int *col) {
  int *conf = malloc(sizeof *conf * (size_t)n), *pos = malloc(sizeof *pos * (size_t)n);
  int *same = calloc((size_t)n, sizeof *same);
  long long *tabu = calloc((size_t)n * (size_t)K, sizeof *tabu);
  int cnt[DRAPE_MAX_COLOURS];
  int ok = 0, nconf = 0;
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  if (!conf || !pos || !same || !tabu) goto out;
  for (int u = 0; u < n; u++)
    if (col[u] >= K) col[u] = (int)(dr_splitmix64(&rng) % (uint64_t)K);
  for (int u = 0; u < n; u++) {
    unit_colour_counts(bend, off, list, col, u, K, cnt);
    same[u] = cnt[col[u]];
    pos[u] = -1;
    if (same[u] > 0) pos[u] = nconf, conf[nconf++] = u;
  }
  for (long long it = 1; nconf > 0 && it <= budget; it++) {
    const int u = conf[dr_splitmix64(&rng) % (uint64_t)nconf];
    unit_colour_counts(bend, off, list, col, u, K, cnt);
    int best = -1;
    for (int k = 0; k < K; k++) {
      if (k == col[u] || (tabu[(size_t)u * K + k] > it && cnt[k] > 0)) continue;
      if (best < 0 || cnt[k] < cnt[best]) best = k;
    }
    if (best < 0) continue;
    const int from = col[u];
    tabu[(size_t)u * K + from] = it + 10 + (long long)(dr_splitmix64(&rng) % 10);
    col[u] = best;
    same[u] = cnt[best];
    int p[4];
    const int np = unit_particles(&bend[u], p);
    for (int q = 0; q < np; q++)
      for (int j = off[p[q]]; j < off[p[q] + 1]; j++) {
        const int v = list[j];
        if (v == u || (col[v] != from && col[v] != best)) continue;
        same[v] += col[v] == best ? 1 : -1;
        if (same[v] > 0 && pos[v] < 0) {
          pos[v] = nconf, conf[nconf++] = v;
        } else if (same[v] == 0 && pos[v] >= 0) {
          const int last = conf[--nconf];
          conf[pos[v]] = last, pos[last] = pos[v], pos[v] = -1;
        }
      }
    if (same[u] > 0 && pos[u] < 0) {
      pos[u] = nconf, conf[nconf++] = u;
    } else if (same[u] == 0 && pos[u] >= 0) {
      const int last = conf[--nconf];
      conf[pos[u]] = last, pos[last] = pos[u], pos[u] = -1;
    }
  }
  ok = nconf == 0;
out:
  free(conf), free(pos), free(same), free(tabu);
  return ok;
}

/* Lowers the units' colour count *nk from greedy's towards the bound no
 * colouring can beat, the most units at one particle: tries that bound,
 * then one more, ... (each within a budget of moves), keeps the first
 * that works. */
static void fewer_unit_colours(const dr_model *m, int *col, int *nk) {
  const int n = m->n_bend, np = m->n_particles;
  int *off = calloc((size_t)np + 1, sizeof *off), *list = malloc(sizeof *list * (size_t)(4 * (size_t)n + 1));
  int *fill = calloc((size_t)np + 1, sizeof *fill), *trial = malloc(sizeof *trial * (size_t)n);
  if (!off || !list || !fill || !trial) goto out;
  for (int u = 0; u < n; u++) {
    int p[4];
    const int k = unit_particles(&m->bend[u], p);
    for (int q = 0; q < k; q++) off[p[q] + 1]++;
  }
  int bound = 0;
  for (int i = 0; i < np; i++) {
    if (off[i + 1] > bound) bound = off[i + 1];
    off[i + 1] += off[i];
  }
  for (int u = 0; u < n; u++) {
    int p[4];
    const int k = unit_particles(&m->bend[u], p);
    for (int q = 0; q < k; q++) list[off[p[q]] + fill[p[q]]++] = u;
  }
  /* about 25k moves take the 65k-vertex square from 18 to 16 colours */
  const long long budget = 200000 + 2LL * n;
  /* the search's per-colour counts hold DRAPE_MAX_COLOURS: a mesh that
   * needs more keeps greedy's colouring */
  for (int K = bound; K < *nk && K <= DRAPE_MAX_COLOURS; K++) {
    memcpy(trial, col, sizeof *trial * (size_t)n);
    if (tabu_colour(m->bend, n, off, list, K, budget, trial)) {
      memcpy(col, trial, sizeof *col * (size_t)n);
      *nk = K;
      break;
    }
  }
out:
  free(off), free(list), free(fill), free(trial);
}

/* Colours the edge units may take: a vertex of valence v is in up to 2v
 * units, so 256 holds any vertex of up to 128 edges (a circle filled as a
 * fan of 128 triangles); the distance constraints' 64 would refuse a
 * 65-triangle fan. */
#define UNIT_MAX_COLOURS 256
/* The most edges at one vertex of a mesh cloth (docs/scenes.md): its 2v
 * edge units fit UNIT_MAX_COLOURS whatever the greedy order. */
#define MESH_MAX_VALENCE (UNIT_MAX_COLOURS / 2)
#define UNIT_WORDS (UNIT_MAX_COLOURS / 64)

/* The edge units' own colouring: greedy, each takes the lowest colour none
 * of the units already coloured at any of its two or four particles has,
 * visited in the order they were built (edge by edge, which follows the
 * vertex order), then fewer colours by tabu search where it can
 * (fewer_unit_colours); then a stable sort by colour. Apart from the
 * distance constraints' colours: they are launched as their own kernel
 * (kernels/dihedral.cl), before the distance colours of each iteration
 * (step.c). */
static int colour_bends(dr_model *m, drape_err *e) {
  const int n = m->n_bend;
  uint64_t *used = calloc((size_t)(m->n_particles > 0 ? m->n_particles : 1) * UNIT_WORDS, sizeof *used);
  int *col = malloc(sizeof *col * (size_t)(n > 0 ? n : 1));
  dr_dihedral *sorted = malloc(sizeof *sorted * (size_t)(n > 0 ? n : 1));
  int *sorted_obj = malloc(sizeof *sorted_obj * (size_t)(n > 0 ? n : 1));
  int rc = DRAPE_OK, nk = 0;
  if (!used || !col || !sorted || !sorted_obj) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory colouring %d bending constraints", n);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    int p[4];
    const int np = unit_particles(&m->bend[i], p);
    int k = UNIT_MAX_COLOURS;
    for (int w = 0; w < UNIT_WORDS && k == UNIT_MAX_COLOURS; w++) {
      uint64_t busy = 0;
      for (int q = 0; q < np; q++) busy |= used[(size_t)p[q] * UNIT_WORDS + w];
      if (busy != UINT64_MAX) {
        int b = 0;
        while (busy >> b & 1ULL) b++;
        k = 64 * w + b;
      }
    }
    if (k == UNIT_MAX_COLOURS) {
      rc = drape_fail(e, DRAPE_EINVAL,
                      "cloth \"%s\": its edges need more than %d colours: a vertex has more "
                      "than %d edges (allowed: up to %d edges at a vertex)",
                      m->info[m->bend_obj[i]].name, UNIT_MAX_COLOURS, UNIT_MAX_COLOURS / 2,
                      UNIT_MAX_COLOURS / 2);
      goto done;
    }
    col[i] = k;
    if (k + 1 > nk) nk = k + 1;
    for (int q = 0; q < np; q++) used[(size_t)p[q] * UNIT_WORDS + k / 64] |= 1ULL << (k % 64);
  }
  fewer_unit_colours(m, col, &nk);
  m->n_bend_colours = nk;
  if (!ALLOC(m->bend_colour_off, nk + 1)) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) m->bend_colour_off[col[i] + 1]++;
  for (int k = 0; k < nk; k++) m->bend_colour_off[k + 1] += m->bend_colour_off[k];
  {
    int *fill = calloc((size_t)nk + 1, sizeof *fill);
    if (!fill) {
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      goto done;
    }
    for (int i = 0; i < n; i++) {
      const int at = m->bend_colour_off[col[i]] + fill[col[i]]++;
      sorted[at] = m->bend[i];
      sorted_obj[at] = m->bend_obj[i];
    }
    free(fill);
    memcpy(m->bend, sorted, sizeof *sorted * (size_t)n);
    memcpy(m->bend_obj, sorted_obj, sizeof *sorted_obj * (size_t)n);
  }
done:
  free(used), free(col), free(sorted), free(sorted_obj);
  return rc;
}

/* m->warm_k: the largest sum_i w_i |g_i|^2 / alpha over the projected
 * links and membrane components (a rigid one, alpha 0, is infinite);
 * hinges are left out (bending is orders of magnitude softer). */
void dr_model_warm_stiffness(dr_model *m) {
  double k = 0;
  int ob = 0;
  for (int i = 0; i < m->colour_off[m->n_colours]; i++) {
    const dr_distance *d = &m->cons[i];
    if (!(d->compliance >= 0)) continue;
    const double w = (double)m->x0[d->a].w + m->x0[d->b].w;
    if (w == 0) continue;
    const double r = d->compliance > 0 ? w / d->compliance : INFINITY;
    if (r > k) k = r, ob = m->cons_obj[i];
  }
  for (int i = 0; i < m->n_memb; i++) {
    const dr_membrane *q = &m->memb[i];
    const double wa = m->x0[q->a].w, wb = m->x0[q->b].w, wc = m->x0[q->c].w;
    const double cu[3] = {-(q->cub + q->cuc), q->cub, q->cuc}, cv[3] = {-(q->cvb + q->cvc), q->cvb, q->cvc};
    const double su = wa * cu[0] * cu[0] + wb * cu[1] * cu[1] + wc * cu[2] * cu[2];
    const double sv = wa * cv[0] * cv[0] + wb * cv[1] * cv[1] + wc * cv[2] * cv[2];
    if (q->comp_u > 0 && su / q->comp_u > k) k = su / q->comp_u, ob = m->memb_obj[i];
    if (q->comp_v > 0 && sv / q->comp_v > k) k = sv / q->comp_v, ob = m->memb_obj[i];
  }
  m->warm_k = k, m->warm_k_obj = ob;
}

int dr_model_check_warm(const dr_model *m, double h, drape_err *e) {
  if (!m->warm || m->warm_k * h * h <= DRAPE_WARM_START_MAX_RATIO) return DRAPE_OK;
  const char *name = m->n_objects > 0 ? m->info[m->warm_k_obj].name : "?";
  if (!isfinite(m->warm_k))
    return drape_fail(e, DRAPE_EINVAL,
                      "warm_start = true: \"%s\" has a rigid constraint (compliance 0), which a warm "
                      "start cannot keep stable; give it a material or a compliance > 0",
                      name);
  const double h_max = sqrt(DRAPE_WARM_START_MAX_RATIO / m->warm_k);
  return drape_fail(e, DRAPE_EINVAL,
                    "warm_start = true: \"%s\" is too stiff for the substep h = %s s (w h^2 / alpha "
                    "= %s, allowed at most %s): it needs h <= %s s, that is dt / substeps with more "
                    "substeps, a softer material or a coarser mesh",
                    name, dr_num(h), dr_num(m->warm_k * h * h), dr_num(DRAPE_WARM_START_MAX_RATIO),
                    dr_num(h_max));
}

/* Links whose strain the statistics report. */
static int is_strain_link(int type) {
  return type == DR_C_STRETCH || type == DR_C_ROPE || type == DR_C_MEASURE;
}

/* Greedy colouring of n items of k particles each (parts[k i + j]): each
 * takes the lowest colour none of the items already coloured at any of
 * its particles has, in the order built (which follows the vertex order,
 * so it is the same every run). */
int dr_colour_items(const int *parts, int k, int n, int np, int *col, int *nk, drape_err *e) {
  uint64_t *used = calloc((size_t)(np > 0 ? np : 1) * UNIT_WORDS, sizeof *used);
  if (!used) return drape_fail(e, DRAPE_ENOMEM, "out of memory colouring %d constraints", n);
  *nk = 0;
  for (int i = 0; i < n; i++) {
    const int *p = parts + (size_t)k * i;
    int c = UNIT_MAX_COLOURS;
    for (int w = 0; w < UNIT_WORDS && c == UNIT_MAX_COLOURS; w++) {
      uint64_t busy = 0;
      for (int q = 0; q < k; q++) busy |= used[(size_t)p[q] * UNIT_WORDS + w];
      if (busy != UINT64_MAX) {
        int b = 0;
        while (busy >> b & 1ULL) b++;
        c = 64 * w + b;
      }
    }
    if (c == UNIT_MAX_COLOURS) {
      free(used);
      return drape_fail(e, DRAPE_EINVAL,
                        "a material cloth's triangles need more than %d colours: a vertex has "
                        "more than %d triangles (allowed: up to %d)",
                        UNIT_MAX_COLOURS, UNIT_MAX_COLOURS / 2, UNIT_MAX_COLOURS / 2);
    }
    col[i] = c;
    if (c + 1 > *nk) *nk = c + 1;
    for (int q = 0; q < k; q++) used[(size_t)p[q] * UNIT_WORDS + c / 64] |= 1ULL << (c % 64);
  }
  free(used);
  return DRAPE_OK;
}

/* Sorts n records of `size` bytes (and their objects) by colour, stable;
 * fills off[0 .. nk]. */
int dr_sort_by_colour(void *rec, int *obj, size_t size, int n, const int *col, int nk,
                          int **off, drape_err *e) {
  *off = calloc((size_t)nk + 1, sizeof **off);
  char *tmp = malloc(size * (size_t)(n > 0 ? n : 1));
  int *tobj = malloc(sizeof *tobj * (size_t)(n > 0 ? n : 1));
  int *fill = calloc((size_t)nk + 1, sizeof *fill);
  if (!*off || !tmp || !tobj || !fill) {
    free(tmp), free(tobj), free(fill);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  for (int i = 0; i < n; i++) (*off)[col[i] + 1]++;
  for (int c = 0; c < nk; c++) (*off)[c + 1] += (*off)[c];
  for (int i = 0; i < n; i++) {
    const int at = (*off)[col[i]] + fill[col[i]]++;
    memcpy(tmp + size * (size_t)at, (char *)rec + size * (size_t)i, size);
    tobj[at] = obj[i];
  }
  memcpy(rec, tmp, size * (size_t)n);
  memcpy(obj, tobj, sizeof *obj * (size_t)n);
  free(tmp), free(tobj), free(fill);
  return DRAPE_OK;
}

/* The material cloths' membranes and hinges and the ropes' bending, each
 * family coloured apart. */
static int colour_material(dr_model *m, drape_err *e) {
  const int n = m->n_memb > m->n_mhinge ? m->n_memb : m->n_mhinge;
  int *parts = malloc(sizeof *parts * 4 * (size_t)(n > 0 ? n : 1));
  int *col = malloc(sizeof *col * (size_t)(n > 0 ? n : 1));
  int rc = DRAPE_OK;
  if (!parts || !col) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
    goto out;
  }
  for (int i = 0; i < m->n_memb; i++)
    parts[3 * i] = m->memb[i].a, parts[3 * i + 1] = m->memb[i].b, parts[3 * i + 2] = m->memb[i].c;
  if ((rc = dr_colour_items(parts, 3, m->n_memb, m->n_particles, col, &m->n_memb_colours, e)) ||
      (rc = dr_sort_by_colour(m->memb, m->memb_obj, sizeof *m->memb, m->n_memb, col,
                           m->n_memb_colours, &m->memb_colour_off, e)))
    goto out;
  for (int i = 0; i < m->n_mhinge; i++) {
    const dr_dihedral *d = &m->mhinge[i];
    parts[4 * i] = d->a, parts[4 * i + 1] = d->b, parts[4 * i + 2] = d->c, parts[4 * i + 3] = d->d;
  }
  if ((rc = dr_colour_items(parts, 4, m->n_mhinge, m->n_particles, col, &m->n_mhinge_colours, e)) ||
      (rc = dr_sort_by_colour(m->mhinge, m->mhinge_obj, sizeof *m->mhinge, m->n_mhinge, col,
                           m->n_mhinge_colours, &m->mhinge_colour_off, e)))
    goto out;
  if (m->n_rbend > 0) {
    int *rp = realloc(parts, sizeof *rp * 3 * (size_t)m->n_rbend), *rcol = realloc(col, sizeof *rcol * (size_t)m->n_rbend);
    if (rp) parts = rp;
    if (rcol) col = rcol;
    if (!rp || !rcol) {
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      goto out;
    }
    for (int i = 0; i < m->n_rbend; i++)
      parts[3 * i] = m->rbend[i].a, parts[3 * i + 1] = m->rbend[i].b, parts[3 * i + 2] = m->rbend[i].c;
    if ((rc = dr_colour_items(parts, 3, m->n_rbend, m->n_particles, col, &m->n_rbend_colours, e)) ||
        (rc = dr_sort_by_colour(m->rbend, m->rbend_obj, sizeof *m->rbend, m->n_rbend, col,
                                m->n_rbend_colours, &m->rbend_colour_off, e)))
      goto out;
  }
out:
  free(parts), free(col);
  return rc;
}

/* ---- mesh cloths (docs/solver.md "Mesh cloths") ---- */

static double dist3(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---- material cloths (docs/solver.md "Materials") ---- */

static void sub3(const double *a, const double *b, double *o) {
  o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}
static void cross3(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* The fabric's frame on triangle tri: unit warp du and weft dv in its
 * plane. Warp is the direction in which the texture coordinate u grows
 * (a grid's UVs are (col, row), so warp runs along its rows); without UVs,
 * or where they are degenerate, the world x axis projected into the
 * triangle (z where x is nearly normal to it). Returns the area (m^2). */
static double fabric_frame_at(const double *xa, const double *xb, const double *xc,
                              const float (*uv)[2], double du[3], double dv[3]) {
  double e1[3], e2[3], n[3];
  sub3(xb, xa, e1), sub3(xc, xa, e2), cross3(e1, e2, n);
  const double n2 = norm3(n);
  if (!(n2 > 0)) return 0;
  for (int k = 0; k < 3; k++) n[k] /= n2;
  double tu[3] = {0, 0, 0}, tv[3] = {0, 0, 0};
  int have = 0;
  if (uv) {
    const double u1 = uv[1][0] - uv[0][0], v1 = uv[1][1] - uv[0][1];
    const double u2 = uv[2][0] - uv[0][0], v2 = uv[2][1] - uv[0][1];
    const double det = u1 * v2 - u2 * v1;
    if (fabs(det) > 1e-12 * (fabs(u1 * v2) + fabs(u2 * v1) + 1e-30)) {
      /* [e1 e2] = [T_u T_v] [[u1 u2] [v1 v2]]: the tangents of u and v */
      for (int k = 0; k < 3; k++) tu[k] = (e1[k] * v2 - e2[k] * v1) / det, tv[k] = (e2[k] * u1 - e1[k] * u2) / det;
      have = 1;
    }
  }
  if (!have) {
    const double X[3] = {1, 0, 0}, Z[3] = {0, 0, 1};
    const double *w = fabs(n[0]) < 0.9 ? X : Z;
    for (int k = 0; k < 3; k++) tu[k] = w[k];
  }
  const double tn = tu[0] * n[0] + tu[1] * n[1] + tu[2] * n[2];
  for (int k = 0; k < 3; k++) du[k] = tu[k] - tn * n[k];
  const double l = norm3(du);
  for (int k = 0; k < 3; k++) du[k] /= l;
  cross3(n, du, dv);
  if (have && dv[0] * tv[0] + dv[1] * tv[1] + dv[2] * tv[2] < 0)
    for (int k = 0; k < 3; k++) dv[k] = -dv[k];
  return 0.5 * n2;
}

double dr_fabric_frame(const drape_cloth_mesh *me, int tri, double du[3], double dv[3]) {
  const int *v = me->tris + 3 * tri;
  float uv[3][2];
  const int have = me->tri_uv || me->uv;
  for (int q = 0; have && q < 3; q++)
    for (int j = 0; j < 2; j++) uv[q][j] = me->tri_uv ? me->tri_uv[6 * tri + 2 * q + j] : me->uv[2 * v[q] + j];
  return fabric_frame_at(me->vertices + 3 * v[0], me->vertices + 3 * v[1], me->vertices + 3 * v[2],
                         have ? (const float(*)[2])uv : NULL, du, dv);
}

/* Membrane q's shape coefficients and compliances from its rest corners
 * xa, xb, xc, its fabric frame (du, dv) and the area A (m^2) its
 * compliances are for; off (comp < 0) where A is not > 0. */
void dr_membrane_frame(dr_membrane *q, const double *xa, const double *xb,
                                const double *xc, const double *du, const double *dv, double A,
                                const drape_material_def *mt) {
  q->comp_u = q->comp_v = q->comp_s = -1.0f; /* off */
  if (!(A > 0)) return;
  double eb[3], ec[3];
  sub3(xb, xa, eb), sub3(xc, xa, ec);
  const double bu = eb[0] * du[0] + eb[1] * du[1] + eb[2] * du[2], bv = eb[0] * dv[0] + eb[1] * dv[1] + eb[2] * dv[2];
  const double cu = ec[0] * du[0] + ec[1] * du[1] + ec[2] * du[2], cv = ec[0] * dv[0] + ec[1] * dv[1] + ec[2] * dv[2];
  const double det = bu * cv - cu * bv;
  /* F e_u and F e_v from the rest shape's inverse in the fabric frame */
  q->cub = (float)(cv / det), q->cuc = (float)(-bv / det);
  q->cvb = (float)(-cu / det), q->cvc = (float)(bu / det);
  q->comp_u = (float)(1.0 / (A * mt->stretch[0]));
  q->comp_v = (float)(1.0 / (A * mt->stretch[1]));
  q->comp_s = mt->shear > 0 ? (float)(1.0 / (A * mt->shear)) : -1.0f;
}

/* What a material cloth is built of (the particles are already made):
 * each edge as a measured link (strain statistics; never projected), a
 * membrane triangle per triangle and a hinge per edge of two triangles.
 * Membrane: compliance 1/(A k) per strain component (membrane.cl).
 * Bending: discrete shells (Grinspun, Hirani, Desbrun and Schröder 2003),
 * the hinge energy B_e |e|^2 / (A_1 + A_2) theta^2 / 2 with A_1, A_2 the two
 * triangles' areas, which is the plate's B kappa^2 / 2 per area when a
 * regular grid bends about its rows or columns (theta = kappa x the distance
 * across the hinge); B_e is the rigidity for curvature across the edge,
 * B_warp t_v^2 + B_weft t_u^2 for the edge's unit direction (t_u, t_v) in
 * the fabric frame. The rest angle is 0: a fabric is flat at rest, whatever
 * shape its mesh starts in. */
static int build_material_cloth(const drape_cloth_def *c, int oi, const dr_mesh_topo *t,
                                dr_model *m, int first, int *pi, int *ci, int *ti, drape_err *e) {
  const drape_cloth_mesh *me = &c->mesh;
  const drape_material_def *mt = &c->material;
  const int first_c = *ci;
  /* each triangle's fabric frame (warp, weft) and area, once: the
   * membranes and the hinges on either side of an edge read them */
  double *frame = malloc(sizeof *frame * 7 * (size_t)(me->n_tris > 0 ? me->n_tris : 1));
  if (!frame) return drape_fail(e, DRAPE_ENOMEM, "out of memory for %d triangles", me->n_tris);
  for (int tri = 0; tri < me->n_tris; tri++)
    frame[7 * tri + 6] = dr_fabric_frame(me, tri, frame + 7 * tri, frame + 7 * tri + 3);
  int n = 0;
  for (int ed = 0; ed < t->n_edges; ed++) {
    const int a = t->edge[ed][0], b = t->edge[ed][1];
    put(m->cons + first_c, m->cons_type + first_c, &n, first + a, first + b,
        dist3(me->vertices + 3 * a, me->vertices + 3 * b), 0.0, DR_C_MEASURE);
  }
  for (int j = 0; j < n; j++) m->cons_obj[first_c + j] = oi;
  for (int tri = 0; tri < me->n_tris; tri++) {
    const int *v = me->tris + 3 * tri;
    const double *du = frame + 7 * tri, *dv = du + 3, A = du[6];
    dr_membrane *q = &m->memb[m->n_memb];
    memset(q, 0, sizeof *q);
    q->a = first + v[0], q->b = first + v[1], q->c = first + v[2];
    q->pad = m->n_memb;
    m->memb_area[m->n_memb] = A > 0 ? A : 0;
    m->memb_obj[m->n_memb++] = oi;
    dr_membrane_frame(q, me->vertices + 3 * v[0], me->vertices + 3 * v[1], me->vertices + 3 * v[2],
                        du, dv, A, mt);
  }
  for (int ed = 0; ed < t->n_edges; ed++) {
    if (t->edge_n_tris[ed] != 2) continue;
    const int t0 = t->edge_tri[ed][0], t1 = t->edge_tri[ed][1];
    int a = t->edge[ed][0], b = t->edge[ed][1];
    for (int q = 0; q < 3; q++)
      if (me->tris[3 * t0 + q] == b && me->tris[3 * t0 + (q + 1) % 3] == a) { a = b, b = t->edge[ed][0]; break; }
    const int p = dr_mesh_opposite(me->tris, t0, a, b), r = dr_mesh_opposite(me->tris, t1, a, b);
    if (p == r) continue; /* a doubled face: nothing to bend */
    const double *du = frame + 7 * t0, *dv = du + 3, A0 = du[6], A1 = frame[7 * t1 + 6];
    double ev[3];
    sub3(me->vertices + 3 * b, me->vertices + 3 * a, ev);
    const double el = norm3(ev);
    if (!(el > 0) || !(A0 + A1 > 0)) continue;
    const double tu = (ev[0] * du[0] + ev[1] * du[1] + ev[2] * du[2]) / el;
    const double tv = (ev[0] * dv[0] + ev[1] * dv[1] + ev[2] * dv[2]) / el;
    const double B = mt->bend[0] * tv * tv + mt->bend[1] * tu * tu;
    if (!(B > 0)) continue;
    dr_dihedral *d = &m->mhinge[m->n_mhinge];
    d->a = first + a, d->b = first + b, d->c = first + p, d->d = first + r;
    d->rest = 0.0f;
    d->compliance = (float)((A0 + A1) / (B * el * el));
    d->edge = m->n_mhinge; /* its slot; a material hinge has no link */
    d->weight = 0.0f;
    m->mhinge_kw[m->n_mhinge] = tv * tv * el * el / (A0 + A1);
    m->mhinge_kf[m->n_mhinge] = tu * tu * el * el / (A0 + A1);
    m->mhinge_obj[m->n_mhinge++] = oi;
  }
  free(frame);
  *ci += n;
  for (int tri = 0; tri < me->n_tris; tri++)
    for (int q = 0; q < 3; q++) {
      m->tris[3 * (*ti + tri) + q] = (dr_uint)(first + me->tris[3 * tri + q]);
      m->tri_edge[3 * (*ti + tri) + q] = first_c + t->tri_edge[3 * tri + q];
    }
  *ti += me->n_tris;
  *pi += me->n_vertices;
  return DRAPE_OK;
}

/* One mesh cloth: particles (mass lumped a third of each triangle's area
 * per vertex, or particle_mass), pins (pin_vertices, pin_box, paths), a
 * stretch link per unique edge, a dihedral bending constraint per edge
 * shared by exactly two triangles (kernels/dihedral.cl), and its
 * triangles. Edges with one triangle (borders) or more than two (seams of
 * non-manifold meshes) get no bending constraint and are otherwise
 * ordinary edges. *bi: the next free slot of m->bend. */
static int build_mesh_cloth(const drape_cloth_def *c, int k, int oi, const dr_mesh_topo *t,
                            const int *rank, dr_model *m, int *pi, int *ci, int *ti, int *pathi,
                            int *bi, drape_err *e) {
  const drape_cloth_mesh *me = &c->mesh;
  drape_object_info *inf = &m->info[oi];
  const int first = *pi, nv = me->n_vertices;
  inf->first_particle = first;
  inf->n_particles = nv;
  inf->first_tri = *ti;
  inf->n_tris = me->n_tris;
  inf->rows = inf->cols = 0; /* no grid */
  inf->thickness = c->thickness;
  m->mat[oi].thickness = (float)c->thickness;
  m->mat[oi].tear_ratio = (float)c->tear_ratio;
  m->mat[oi].kind = DR_OBJ_CLOTH;
  const drape_material_def *mt = c->material.set ? &c->material : NULL;
  m->damping_rate[oi] = mt && mt->damping >= 0 ? mt->damping : c->damping;
  const double mass_per_area = mt ? mt->density : c->mass_per_area;
  double *area = calloc((size_t)nv, sizeof *area);
  if (!area) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (int tri = 0; tri < me->n_tris; tri++) {
    const int *v = me->tris + 3 * tri;
    const double *a = me->vertices + 3 * v[0], *b = me->vertices + 3 * v[1], *q = me->vertices + 3 * v[2];
    double u[3], w[3];
    for (int j = 0; j < 3; j++) u[j] = b[j] - a[j], w[j] = q[j] - a[j];
    const double nx = u[1] * w[2] - u[2] * w[1], ny = u[2] * w[0] - u[0] * w[2], nz = u[0] * w[1] - u[1] * w[0];
    const double A = 0.5 * sqrt(nx * nx + ny * ny + nz * nz);
    for (int j = 0; j < 3; j++) area[v[j]] += A / 3.0;
  }
  for (int v = 0; v < nv; v++) {
    const int i = first + v;
    const double mass = c->particle_mass > 0 ? c->particle_mass : mass_per_area * area[v];
    if (!mass_ok(mass)) {
      const int by_pm = c->particle_mass > 0;
      const double av = area[v];
      int fv = v; /* the loader's number of particle v, as the user knows it */
      for (int u = 0; rank && u < nv; u++)
        if (rank[u] == v) fv = u;
      free(area);
      if (by_pm)
        return drape_fail(e, DRAPE_EINVAL,
                          "cloth[%d].particle_mass = %s: not a normal float, its inverse would not "
                          "be finite (the solver computes in float); the smallest value allowed is %s",
                          k, dr_num(c->particle_mass), dr_num(DRAPE_FLOAT_MIN));
      return drape_fail(e, DRAPE_EINVAL,
                        "cloth[%d].mass_per_area = %s: mesh vertex %d gets %s kg (a third of its "
                        "triangles' area, %s m^2), which would underflow (the solver computes in "
                        "float); give a larger mass_per_area or particle_mass",
                        k, dr_num(c->mass_per_area), fv, dr_num(mass), dr_num(av));
    }
    m->mass[i] = (float)mass;
    const double *x = me->vertices + 3 * v;
    m->x0[i] = (dr_float4){(float)x[0], (float)x[1], (float)x[2], (float)(1.0 / mass)};
    m->obj[i] = oi;
  }
  free(area);
  for (int q = 0; q < c->n_pin_vertices; q++) m->x0[first + c->pin_vertices[q]].w = 0;
  if (c->has_pin_box)
    for (int v = 0; v < nv; v++) {
      const double *x = me->vertices + 3 * v;
      int in = 1;
      for (int j = 0; j < 3; j++) in &= x[j] >= c->pin_box[0][j] && x[j] <= c->pin_box[1][j];
      if (in) m->x0[first + v].w = 0;
    }
  for (int q = 0; q < c->n_pin_paths; q++) {
    const drape_pin_path *pp = &c->pin_paths[q];
    dr_model_path *mp = &m->paths[(*pathi)++];
    mp->particle = first + pp->vertex;
    mp->n_keys = pp->n_keys;
    mp->keys = malloc((size_t)pp->n_keys * sizeof *mp->keys);
    if (!mp->keys) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    memcpy(mp->keys, pp->keys, (size_t)pp->n_keys * sizeof *mp->keys);
    m->x0[mp->particle].w = 0;
  }
  if (mt) return build_material_cloth(c, oi, t, m, first, pi, ci, ti, e);
  /* Jakobsen (seeds 002/004): full-strength projections, no compliance */
  const int jak = c->solver == DRAPE_SOLVER_JAKOBSEN;
  const double cs = jak ? 0 : c->compliance_stretch, cb = jak ? 0 : c->compliance_bend;
  const int first_c = *ci;
  int n = 0;
  for (int ed = 0; ed < t->n_edges; ed++) {
    const int a = t->edge[ed][0], b = t->edge[ed][1];
    put(m->cons + first_c, m->cons_type + first_c, &n, first + a, first + b,
        dist3(me->vertices + 3 * a, me->vertices + 3 * b), cs, DR_C_STRETCH);
  }
  /* Dihedral bending (kernels/dihedral.cl): corners a, b of the edge in
   * the order of the first triangle's corners (so (a, b, p) is that
   * triangle as wound), p and q opposite it; the rest angle measured with
   * the kernel's own function on the starting positions as the solver
   * holds them (float), so a mesh at rest starts with C = 0 exactly. The
   * compliance is scaled per edge as discrete shells weight their hinge
   * energy (Grinspun et al. 2003: stiffness ~ |e|^2 / (area of the two
   * triangles / 3)), so that compliance.bend is one material's inverse
   * bending stiffness, not a per-edge one: refining a mesh keeps its
   * stiffness. */
  for (int ed = 0; ed < t->n_edges; ed++) {
    dr_dihedral *d = &m->bend[*bi];
    d->edge = first_c + ed; /* mapped to the sorted index after colouring */
    d->weight = 0;
    m->bend_obj[*bi] = oi;
    (*bi)++;
    if (t->edge_n_tris[ed] != 2) { /* a border or seam edge: its stretch link only */
      d->a = first + t->edge[ed][0], d->b = first + t->edge[ed][1], d->c = d->d = -1;
      d->rest = 0, d->compliance = 0;
      continue;
    }
    const int t0 = t->edge_tri[ed][0], t1 = t->edge_tri[ed][1];
    int a = t->edge[ed][0], b = t->edge[ed][1];
    for (int q = 0; q < 3; q++)
      if (me->tris[3 * t0 + q] == b && me->tris[3 * t0 + (q + 1) % 3] == a) { a = b, b = t->edge[ed][0]; break; }
    const int p = dr_mesh_opposite(me->tris, t0, a, b);
    const int q = dr_mesh_opposite(me->tris, t1, a, b);
    const double *xa = me->vertices + 3 * a, *xb = me->vertices + 3 * b;
    const double *xp = me->vertices + 3 * p, *xq = me->vertices + 3 * q;
    const double el = dist3(xa, xb);
    double area2 = 0;
    for (int side = 0; side < 2; side++) {
      const double *o = side ? xq : xp;
      double u[3], w[3];
      for (int j = 0; j < 3; j++) u[j] = xa[j] - o[j], w[j] = xb[j] - o[j];
      const double nx = u[1] * w[2] - u[2] * w[1], ny = u[2] * w[0] - u[0] * w[2], nz = u[0] * w[1] - u[1] * w[0];
      area2 += 0.5 * sqrt(nx * nx + ny * ny + nz * nz);
    }
    d->a = first + a, d->b = first + b, d->c = first + p, d->d = first + q;
    /* a doubled face (p == q) or a zero-length edge: nothing to bend;
     * the kernel skips it (zero normal) */
    d->rest = dr_dihedral_angle(m->x0[d->a], m->x0[d->b], m->x0[d->c], m->x0[d->d]);
    d->weight = el > 0 ? (float)(area2 / (3.0 * el * el)) : 0.0f;
    d->compliance = dr_hinge_compliance(cb, d->weight);
    m->n_hinges++;
  }
  for (int j = 0; j < n; j++) m->cons_obj[first_c + j] = oi;
  *ci += n;
  for (int tri = 0; tri < me->n_tris; tri++) {
    for (int q = 0; q < 3; q++) {
      m->tris[3 * (*ti + tri) + q] = (dr_uint)(first + me->tris[3 * tri + q]);
      m->tri_edge[3 * (*ti + tri) + q] = first_c + t->tri_edge[3 * tri + q];
    }
  }
  *ti += me->n_tris;
  *pi += nv;
  return DRAPE_OK;
}

/* Tethers of a mesh cloth: each free vertex to its nearest pinned
 * vertices, rest = shortest path along the edges (the mesh need not start
 * flat, so the straight distance is no rest length along the cloth). */
static int mesh_tethers(const drape_cloth_def *c, const drape_object_info *inf, const dr_mesh_topo *t,
                        dr_model *m, drape_err *e) {
  const int nv = inf->n_particles, first = inf->first_particle, slots = m->tether_slots;
  int npins = 0;
  for (int v = 0; v < nv; v++) npins += m->x0[first + v].w == 0;
  if (npins == 0 || slots == 0) return DRAPE_OK;
  int *pins = malloc(sizeof *pins * (size_t)npins);
  int *pin = malloc(sizeof *pin * (size_t)nv * (size_t)slots);
  double *dist = malloc(sizeof *dist * (size_t)nv * (size_t)slots);
  int rc = DRAPE_OK;
  if (!pins || !pin || !dist) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory for tethers");
  } else {
    npins = 0;
    for (int v = 0; v < nv; v++)
      if (m->x0[first + v].w == 0) pins[npins++] = v;
    const int want = npins < slots ? npins : slots;
    rc = dr_mesh_geodesic_pins(&c->mesh, t, pins, npins, want, pin, dist, e);
    for (int v = 0; v < nv && !rc; v++) {
      if (m->x0[first + v].w == 0) continue;
      for (int q = 0; q < want; q++) {
        if (pin[(long long)v * want + q] < 0) continue; /* not connected to a pin */
        m->tether_pin[(long long)(first + v) * slots + q] = first + pin[(long long)v * want + q];
        m->tether_rest[(long long)(first + v) * slots + q] = (float)dist[(long long)v * want + q];
        m->n_tethers++;
      }
    }
  }
  free(pins), free(pin), free(dist);
  return rc;
}

/* ---- vertex order of mesh cloths (docs/solver.md "Mesh cloths") ----
 *
 * A mesh's particles sit in the solver's arrays in an order of our
 * choosing: the loader's numbering (first use by the triangles) when it is
 * already local, else the Morton order of the starting positions, so that
 * a constraint's particles, a triangle's corners and a vertex's
 * neighbours lie close in memory whatever order the file lists its faces
 * in. Measured on PoCL (BENCHMARKS.md "Mesh cloths"): a 262k-vertex
 * irregular square whose faces and vertices are shuffled costs 20 % more
 * per frame than the same mesh in scan order; the files of meshes/ are in
 * scan order already. Users never see this order: the world's reads, both
 * OBJ writers, pins, pin paths and stitches are in the loader's numbering
 * (dr_model.perm). */

typedef struct { uint32_t key; int v; } morton_key;

static int cmp_morton(const void *a, const void *b) {
  const morton_key *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->v - y->v;
}

/* 10 bits of each coordinate over the mesh's box, interleaved x, y, z. */
static uint32_t morton3(const double *p, const double lo[3], const double scale[3]) {
  uint32_t k = 0;
  for (int q = 0; q < 3; q++) {
    double c = (p[q] - lo[q]) * scale[q];
    uint32_t u = c <= 0 ? 0 : c >= 1023 ? 1023 : (uint32_t)c;
    for (int b = 0; b < 10; b++) k |= ((u >> b) & 1u) << (3 * b + q);
  }
  return k;
}

/* Mean index distance along the triangles' sides under rank (NULL: the
 * loader's numbering). */
static double mean_side_span(const drape_cloth_mesh *me, const int *rank) {
  double sum = 0;
  for (int t = 0; t < me->n_tris; t++)
    for (int q = 0; q < 3; q++) {
      int a = me->tris[3 * t + q], b = me->tris[3 * t + (q + 1) % 3];
      if (rank) a = rank[a], b = rank[b];
      sum += abs(a - b);
    }
  return me->n_tris > 0 ? sum / (3.0 * me->n_tris) : 0;
}

/* The solver's order for one mesh cloth: rank[file vertex] = its place,
 * or NULL (keep the loader's numbering; also on out of memory, which
 * costs only speed). DRAPE_MESH_ORDER=file keeps it always, =morton
 * reorders always (for measuring and tests); by default the Morton order
 * is taken when it shortens the mean index span of the triangles' sides
 * by more than 4x: a file in scan order keeps its own (and its bits). */
static int *mesh_order(const drape_cloth_mesh *me) {
  const char *env = getenv("DRAPE_MESH_ORDER");
  const int force = env && !strcmp(env, "morton");
  if (env && !strcmp(env, "file")) return NULL;
  const int n = me->n_vertices;
  morton_key *k = malloc(sizeof *k * (size_t)(n > 0 ? n : 1));
  int *rank = malloc(sizeof *rank * (size_t)(n > 0 ? n : 1));
  if (!k || !rank) {
    free(k), free(rank);
    return NULL;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < n; i++)
    for (int q = 0; q < 3; q++)
      lo[q] = fmin(lo[q], me->vertices[3 * i + q]), hi[q] = fmax(hi[q], me->vertices[3 * i + q]);
  double scale[3];
  for (int q = 0; q < 3; q++) scale[q] = hi[q] > lo[q] ? 1024.0 / (hi[q] - lo[q]) : 0;
  for (int i = 0; i < n; i++) k[i] = (morton_key){morton3(me->vertices + 3 * i, lo, scale), i};
  qsort(k, (size_t)n, sizeof *k, cmp_morton);
  int identity = 1;
  for (int j = 0; j < n; j++) rank[k[j].v] = j, identity &= k[j].v == j;
  free(k);
  if (identity || (!force && !(mean_side_span(me, NULL) > 4 * mean_side_span(me, rank)))) {
    free(rank);
    return NULL;
  }
  return rank;
}

/* The builder's view of a mesh cloth in the solver's order: vertices and
 * triangle corners renumbered by rank (the triangles keep their order),
 * pin_vertices and pin paths' vertices too. The texture coordinates, per
 * triangle corner, follow the triangles (src/cloth/sim.c). Only the arrays made here
 * are freed (reordered_free); the rest is the scene's. */
static int reordered_cloth(const drape_cloth_def *c, const int *rank, drape_cloth_def *out) {
  *out = *c;
  const drape_cloth_mesh *me = &c->mesh;
  const int n = me->n_vertices;
  out->mesh.vertices = malloc(sizeof(double) * 3 * (size_t)n);
  out->mesh.tris = malloc(sizeof(int) * 3 * (size_t)(me->n_tris > 0 ? me->n_tris : 1));
  out->pin_vertices = malloc(sizeof(int) * (size_t)(c->n_pin_vertices + 1));
  out->pin_paths = malloc(sizeof *out->pin_paths * (size_t)(c->n_pin_paths + 1));
  if (!out->mesh.vertices || !out->mesh.tris || !out->pin_vertices || !out->pin_paths)
    return DRAPE_ENOMEM;
  for (int i = 0; i < n; i++) memcpy(out->mesh.vertices + 3 * rank[i], me->vertices + 3 * i, 3 * sizeof(double));
  for (int t = 0; t < 3 * me->n_tris; t++) out->mesh.tris[t] = rank[me->tris[t]];
  for (int q = 0; q < c->n_pin_vertices; q++) out->pin_vertices[q] = rank[c->pin_vertices[q]];
  for (int q = 0; q < c->n_pin_paths; q++) {
    out->pin_paths[q] = c->pin_paths[q];
    out->pin_paths[q].vertex = rank[c->pin_paths[q].vertex];
  }
  return DRAPE_OK;
}

static void reordered_free(drape_cloth_def *c) {
  free(c->mesh.vertices), free(c->mesh.tris), free(c->pin_vertices), free(c->pin_paths);
}

/* A grid cloth with a material as the mesh it is (docs/solver.md
 * "Materials"): particle (row r, col c) is vertex r cols + c, the grid's
 * triangles, texture coordinates (c, r) so that warp runs along the rows,
 * and the grid's pins and pin paths on those vertices. */
static int grid_as_mesh(const drape_cloth_def *c, drape_cloth_def *out) {
  *out = *c;
  const int nv = c->rows * c->cols, nt = 2 * (c->rows - 1) * (c->cols - 1);
  drape_cloth_mesh *me = &out->mesh;
  memset(me, 0, sizeof *me);
  me->scale = 1;
  me->n_vertices = nv, me->n_tris = nt;
  me->vertices = malloc(sizeof(double) * 3 * (size_t)nv);
  me->uv = malloc(sizeof(float) * 2 * (size_t)nv);
  me->tris = malloc(sizeof(int) * 3 * (size_t)(nt > 0 ? nt : 1));
  out->pin_vertices = malloc(sizeof(int) * (size_t)(c->n_pins + 1));
  out->pin_paths = malloc(sizeof *out->pin_paths * (size_t)(c->n_pin_paths + 1));
  if (!me->vertices || !me->uv || !me->tris || !out->pin_vertices || !out->pin_paths) return DRAPE_ENOMEM;
  double U[3], V[3];
  dr_grid_axes(c->plane, U, V);
  for (int r = 0; r < c->rows; r++)
    for (int col = 0; col < c->cols; col++) {
      const int i = r * c->cols + col;
      for (int q = 0; q < 3; q++) me->vertices[3 * i + q] = c->origin[q] + col * c->spacing * U[q] + r * c->spacing * V[q];
      me->uv[2 * i] = (float)col, me->uv[2 * i + 1] = (float)r;
    }
  int t = 0;
  for (int r = 0; r + 1 < c->rows; r++)
    for (int col = 0; col + 1 < c->cols; col++) {
      const int i = r * c->cols + col, w = c->cols;
      const int tri[6] = {i, i + w, i + w + 1, i, i + w + 1, i + 1};
      memcpy(me->tris + 3 * t, tri, sizeof tri);
      t += 2;
    }
  out->has_mesh = 1;
  out->n_pin_vertices = c->n_pins;
  for (int q = 0; q < c->n_pins; q++) out->pin_vertices[q] = c->pins[q][0] * c->cols + c->pins[q][1];
  out->n_pins = 0, out->pins = NULL;
  for (int q = 0; q < c->n_pin_paths; q++) {
    out->pin_paths[q] = c->pin_paths[q];
    out->pin_paths[q].vertex = c->pin_paths[q].row * c->cols + c->pin_paths[q].col;
  }
  out->has_pin_box = 0;
  return DRAPE_OK;
}

static void grid_mesh_free(drape_cloth_def *c) {
  free(c->mesh.vertices), free(c->mesh.uv), free(c->mesh.tris), free(c->pin_vertices), free(c->pin_paths);
}

static int build(const drape_scene *s, int *const *rank, dr_model *m, drape_err *e);

int dr_model_build(const drape_scene *s, dr_model *m, drape_err *e) {
  memset(m, 0, sizeof *m);
  int rc = drape_scene_validate(s, e);
  if (rc || (rc = check_supported(s, e))) return rc;
  int **rank = calloc((size_t)(s->n_cloth > 0 ? s->n_cloth : 1), sizeof *rank);
  drape_cloth_def *cl = calloc((size_t)(s->n_cloth > 0 ? s->n_cloth : 1), sizeof *cl);
  if (!rank || !cl) {
    free(rank), free(cl);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  int any = 0;
  unsigned char *gridmesh = calloc((size_t)(s->n_cloth > 0 ? s->n_cloth : 1), 1);
  if (!gridmesh) rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (int k = 0; k < s->n_cloth && !rc; k++) {
    cl[k] = s->cloth[k];
    if (!s->cloth[k].has_mesh && s->cloth[k].material.set) {
      if (grid_as_mesh(&s->cloth[k], &cl[k]))
        rc = drape_fail(e, DRAPE_ENOMEM, "out of memory making cloth[%d]'s triangles", k);
      gridmesh[k] = 1;
      continue;
    }
    if (!s->cloth[k].has_mesh || !(rank[k] = mesh_order(&s->cloth[k].mesh))) continue;
    any = 1;
    if (reordered_cloth(&s->cloth[k], rank[k], &cl[k]))
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory reordering cloth[%d]'s vertices", k);
  }
  if (!rc) {
    drape_scene s2 = *s;
    s2.cloth = cl;
    rc = build(&s2, rank, m, e);
  }
  for (int k = 0; !rc && k < s->n_cloth; k++) /* still a grid to its users */
    if (gridmesh[k]) m->info[k].rows = s->cloth[k].rows, m->info[k].cols = s->cloth[k].cols;
  if (!rc && (rc = dr_model_build_levels(m, s, gridmesh, e))) dr_model_free(m);
  /* perm: user slot (first particle + the loader's number) -> particle */
  if (!rc && any) {
    m->perm = malloc(sizeof *m->perm * (size_t)(m->n_particles > 0 ? m->n_particles : 1));
    m->iperm = malloc(sizeof *m->iperm * (size_t)(m->n_particles > 0 ? m->n_particles : 1));
    if (!m->perm || !m->iperm) {
      dr_model_free(m);
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
    } else {
      for (int i = 0; i < m->n_particles; i++) m->perm[i] = i;
      for (int k = 0; k < s->n_cloth; k++) {
        if (!rank[k]) continue;
        const int first = m->info[k].first_particle; /* cloths are objects 0.. */
        for (int v = 0; v < m->info[k].n_particles; v++) m->perm[first + v] = first + rank[k][v];
      }
      for (int i = 0; i < m->n_particles; i++) m->iperm[m->perm[i]] = i;
    }
  }
  for (int k = 0; k < s->n_cloth; k++) {
    if (rank[k]) reordered_free(&cl[k]), free(rank[k]);
    if (gridmesh && gridmesh[k]) grid_mesh_free(&cl[k]);
  }
  free(rank), free(cl), free(gridmesh);
  return rc;
}

/* dr_model_build on a scene whose mesh cloths are in the solver's order;
 * rank[k] (or NULL) maps cloth k's loader numbers to it, for the stitches
 * and messages, which speak the loader's numbers. */
static int build(const drape_scene *s, int *const *rank, dr_model *m, drape_err *e) {
  memset(m, 0, sizeof *m);
  int rc = drape_scene_validate(s, e);
  if (rc || (rc = check_supported(s, e))) return rc;

  /* sizes (and the edges of mesh cloths) */
  long long np = 0, nc = 0, nt = 0, nl = 0, npaths = 0, nbend = 0, nmemb = 0, nmhinge = 0;
  dr_mesh_topo *topo = calloc((size_t)(s->n_cloth > 0 ? s->n_cloth : 1), sizeof *topo);
  if (!topo) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (int i = 0; i < s->n_cloth; i++) {
    const drape_cloth_def *c = &s->cloth[i];
    double comp[3] = {0, 0, 0};
    if (c->has_mesh) {
      if ((rc = dr_mesh_topo_build(&c->mesh, &topo[i], e))) {
        for (int j = 0; j < i; j++) dr_mesh_topo_free(&topo[j]);
        free(topo);
        return rc;
      }
      /* The edge units' and membranes' colouring holds a vertex of up to
       * MESH_MAX_VALENCE edges (a circle filled as a fan of that many
       * triangles): said here, the same for every mesh, rather than found
       * by the colouring where its greedy order happens to run out. */
      {
        int *val = calloc((size_t)c->mesh.n_vertices + 1, sizeof *val), worst = -1;
        if (!val) rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
        for (int ed = 0; val && ed < topo[i].n_edges; ed++) val[topo[i].edge[ed][0]]++, val[topo[i].edge[ed][1]]++;
        for (int v = 0; val && v < c->mesh.n_vertices; v++)
          if (val[v] > MESH_MAX_VALENCE && (worst < 0 || val[v] > val[worst])) worst = v;
        if (worst >= 0) {
          int fv = worst; /* the loader's number of it, as the user knows it */
          for (int u = 0; rank && rank[i] && u < c->mesh.n_vertices; u++)
            if (rank[i][u] == worst) fv = u;
          rc = drape_fail(e, DRAPE_EINVAL,
                          "cloth \"%s\" (cloth[%d]): vertex %d has %d edges; allowed: up to %d "
                          "edges at a vertex (split the fan, or refine around it)",
                          c->name[0] ? c->name : "?", i, fv, val[worst], MESH_MAX_VALENCE);
        }
        free(val);
        if (rc) {
          for (int j = 0; j <= i; j++) dr_mesh_topo_free(&topo[j]);
          free(topo);
          return rc;
        }
      }
      np += c->mesh.n_vertices;
      nc += topo[i].n_edges;
      if (c->material.set) { /* membranes and hinges instead of edge units */
        nmemb += c->mesh.n_tris;
        nmhinge += topo[i].n_edges;
      } else {
        nbend += topo[i].n_edges; /* an edge unit per edge (colour_bends) */
      }
      nt += c->mesh.n_tris;
      npaths += c->n_pin_paths;
      continue;
    }
    np += (long long)c->rows * c->cols;
    nc += dr_grid_constraints(c->rows, c->cols, c->spacing, 0, DRAPE_GRID_BY_FAMILY, comp, NULL, NULL);
    nt += 2LL * (c->rows - 1) * (c->cols - 1);
    npaths += c->n_pin_paths;
  }
  long long nrb = 0;
  for (int i = 0; i < s->n_rope; i++) {
    np += s->rope[i].segments + 1;
    nc += s->rope[i].segments;
    nl += s->rope[i].segments;
    if (s->rope[i].material.set && s->rope[i].material.bend[0] > 0) nrb += s->rope[i].segments - 1;
  }
  long long nst = 0;
  for (int i = 0; i < s->n_stitch; i++) nst += s->stitch[i].n;
  nc += nst;
  if (np > 0x7fffffff / 4 || nc > 0x7fffffff / 2 || nt > 0x7fffffff / 4 || nbend > 0x7fffffff / 4) {
    for (int j = 0; j < s->n_cloth; j++) dr_mesh_topo_free(&topo[j]);
    free(topo);
    return drape_fail(e, DRAPE_EINVAL, "scene too large: %lld particles, %lld constraints", np, nc);
  }
  m->n_particles = (int)np;
  m->n_cons = (int)nc;
  m->n_tris = (int)nt;
  m->n_lines = (int)nl;
  m->n_objects = s->n_cloth + s->n_rope;
  m->n_paths = (int)npaths;
  ALLOC(m->x0, np); ALLOC(m->mass, np); ALLOC(m->obj, np);
  ALLOC(m->cons, nc); ALLOC(m->cons_type, nc); ALLOC(m->cons_obj, nc);
  ALLOC(m->tris, 3 * nt); ALLOC(m->tri_edge, 3 * nt); ALLOC(m->lines, 2 * nl);
  ALLOC(m->vt_off, np + 1); ALLOC(m->vt_list, 3 * nt);
  ALLOC(m->info, m->n_objects); ALLOC(m->mat, m->n_objects); ALLOC(m->damping_rate, m->n_objects);
  ALLOC(m->strain_off, m->n_objects + 1); ALLOC(m->paths, npaths);
  m->n_bend = (int)nbend;
  ALLOC(m->bend, nbend); ALLOC(m->bend_obj, nbend);
  ALLOC(m->memb, nmemb); ALLOC(m->memb_obj, nmemb);
  ALLOC(m->mhinge, nmhinge); ALLOC(m->mhinge_obj, nmhinge);
  ALLOC(m->rbend, nrb); ALLOC(m->rbend_obj, nrb);
  m->warm = s->warm_start;
  ALLOC(m->obj_material, m->n_objects);
  ALLOC(m->obj_mat, m->n_objects);
  ALLOC(m->memb_area, nmemb); ALLOC(m->mhinge_kw, nmhinge); ALLOC(m->mhinge_kf, nmhinge);
  for (int i = 0; m->obj_mat && i < s->n_cloth; i++) m->obj_mat[i] = s->cloth[i].material;
  for (int i = 0; m->obj_mat && i < s->n_rope; i++) m->obj_mat[s->n_cloth + i] = s->rope[i].material;
  for (int i = 0; m->obj_material && i < s->n_cloth; i++) m->obj_material[i] = (unsigned char)s->cloth[i].material.set;
  for (int i = 0; m->obj_material && i < s->n_rope; i++)
    m->obj_material[s->n_cloth + i] = (unsigned char)s->rope[i].material.set;
  m->n_stitch = (int)nst;
  ALLOC(m->stitch_con, nst); ALLOC(m->stitch_rest0, nst); ALLOC(m->stitch_close, nst);
  int *new_index = NULL, *colour = NULL;
  ALLOC(new_index, nc);
  ALLOC(colour, nc);
  if (!m->x0 || !m->mass || !m->obj || !m->cons || !m->cons_type || !m->cons_obj || !m->tris ||
      !m->tri_edge || !m->lines || !m->vt_off || !m->vt_list || !m->info || !m->mat ||
      !m->damping_rate || !m->strain_off || !m->paths || !new_index || !colour ||
      !m->stitch_con || !m->stitch_rest0 || !m->stitch_close || !m->bend || !m->bend_obj ||
      !m->memb || !m->memb_obj || !m->mhinge || !m->mhinge_obj || !m->obj_material ||
      !m->obj_mat || !m->memb_area || !m->mhinge_kw || !m->mhinge_kf) {
    free(new_index); free(colour);
    for (int j = 0; j < s->n_cloth; j++) dr_mesh_topo_free(&topo[j]);
    free(topo);
    dr_model_free(m);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory building %lld particles", np);
  }

  int pi = 0, ci = 0, ti = 0, li = 0, oi = 0, pathi = 0, bi = 0;
  for (int k = 0; k < s->n_cloth; k++, oi++) {
    const drape_cloth_def *c = &s->cloth[k];
    drape_object_info *inf = &m->info[oi];
    if (c->name[0]) snprintf(inf->name, sizeof inf->name, "%s", c->name);
    else snprintf(inf->name, sizeof inf->name, "cloth%d", k);
    inf->kind = DRAPE_OBJ_CLOTH;
    if (c->has_mesh) {
      if ((rc = build_mesh_cloth(c, k, oi, &topo[k], rank[k], m, &pi, &ci, &ti, &pathi, &bi, e))) goto fail;
      continue;
    }
    inf->first_particle = pi;
    inf->n_particles = c->rows * c->cols;
    inf->first_tri = ti;
    inf->n_tris = 2 * (c->rows - 1) * (c->cols - 1);
    inf->rows = c->rows;
    inf->cols = c->cols;
    inf->thickness = c->thickness;
    m->mat[oi].thickness = (float)c->thickness;
    m->mat[oi].tear_ratio = (float)c->tear_ratio;
    m->mat[oi].kind = DR_OBJ_CLOTH;
    m->damping_rate[oi] = c->damping;
    double U[3], V[3];
    dr_grid_axes(c->plane, U, V);
    const double cell_mass = c->mass_per_area * c->spacing * c->spacing;
    for (int r = 0; r < c->rows; r++)
      for (int col = 0; col < c->cols; col++) {
        int i = pi + r * c->cols + col;
        double x[3];
        for (int q = 0; q < 3; q++)
          x[q] = c->origin[q] + col * c->spacing * U[q] + r * c->spacing * V[q];
        /* number of cells touching this particle: 1 corner, 2 edge, 4 inside */
        int cells = (r > 0 && r < c->rows - 1 ? 2 : 1) * (col > 0 && col < c->cols - 1 ? 2 : 1);
        double mass = c->particle_mass > 0 ? c->particle_mass : cell_mass * cells / 4.0;
        if (!mass_ok(mass)) {
          if (c->particle_mass > 0)
            rc = drape_fail(e, DRAPE_EINVAL,
                            "cloth[%d].particle_mass = %s: not a normal float, its inverse would "
                            "not be finite (the solver computes in float); the smallest value "
                            "allowed is %s (or 0 for mass_per_area)",
                            k, dr_num(c->particle_mass), dr_num(DRAPE_FLOAT_MIN));
          else
            rc = drape_fail(e, DRAPE_EINVAL,
                            "cloth[%d].mass_per_area = %s: particle (row %d, col %d) gets %s kg, "
                            "which would underflow (the solver computes in float); the smallest "
                            "value allowed is %s (with grid.spacing = %s)",
                            k, dr_num(c->mass_per_area), r, col, dr_num(mass),
                            dr_num(up5(4 * DRAPE_FLOAT_MIN / (c->spacing * c->spacing))), dr_num(c->spacing));
          goto fail;
        }
        m->mass[i] = (float)mass;
        m->x0[i] = (dr_float4){(float)x[0], (float)x[1], (float)x[2], (float)(1.0 / mass)};
        m->obj[i] = oi;
      }
    for (int q = 0; q < c->n_pins; q++) m->x0[pi + c->pins[q][0] * c->cols + c->pins[q][1]].w = 0;
    for (int q = 0; q < c->n_pin_paths; q++) {
      const drape_pin_path *pp = &c->pin_paths[q];
      dr_model_path *mp = &m->paths[pathi++];
      mp->particle = pi + pp->row * c->cols + pp->col;
      mp->n_keys = pp->n_keys;
      mp->keys = malloc((size_t)pp->n_keys * sizeof *mp->keys);
      if (!mp->keys) {
        free(new_index); free(colour);
        dr_model_free(m);
        return drape_fail(e, DRAPE_ENOMEM, "out of memory");
      }
      memcpy(mp->keys, pp->keys, (size_t)pp->n_keys * sizeof *mp->keys);
      m->x0[mp->particle].w = 0;
    }
    double comp[3] = {c->compliance_stretch, c->compliance_shear, c->compliance_bend};
    /* Jakobsen (seeds 002/004): full-strength projections, no compliance */
    if (c->solver == DRAPE_SOLVER_JAKOBSEN) comp[0] = comp[1] = comp[2] = 0;
    int first_c = ci;
    int made = dr_grid_constraints(c->rows, c->cols, c->spacing, pi, DRAPE_GRID_BY_FAMILY, comp,
                                      m->cons + ci, m->cons_type + ci);
    for (int q = 0; q < made; q++) m->cons_obj[ci + q] = oi;
    ci += made;
    for (int r = 0; r + 1 < c->rows; r++)
      for (int col = 0; col + 1 < c->cols; col++) {
        dr_uint i00 = (dr_uint)(pi + r * c->cols + col), i01 = i00 + 1;
        dr_uint i10 = i00 + (dr_uint)c->cols, i11 = i10 + 1;
        dr_uint *t = m->tris + 3 * ti;
        int *te = m->tri_edge + 3 * ti;
        t[0] = i00; t[1] = i10; t[2] = i11;
        te[0] = first_c + tri_edge_index(c->rows, c->cols, EDGE_V, r, col);
        te[1] = first_c + tri_edge_index(c->rows, c->cols, EDGE_H, r + 1, col);
        te[2] = first_c + tri_edge_index(c->rows, c->cols, EDGE_D, r, col);
        t[3] = i00; t[4] = i11; t[5] = i01;
        te[3] = te[2];
        te[4] = first_c + tri_edge_index(c->rows, c->cols, EDGE_V, r, col + 1);
        te[5] = first_c + tri_edge_index(c->rows, c->cols, EDGE_H, r, col);
        ti += 2;
      }
    pi += c->rows * c->cols;
  }
  for (int k = 0; k < s->n_rope; k++, oi++) {
    const drape_rope_def *r = &s->rope[k];
    drape_object_info *inf = &m->info[oi];
    if (r->name[0]) snprintf(inf->name, sizeof inf->name, "%s", r->name);
    else snprintf(inf->name, sizeof inf->name, "rope%d", k);
    inf->kind = DRAPE_OBJ_ROPE;
    inf->first_particle = pi;
    inf->n_particles = r->segments + 1;
    inf->first_line = li;
    inf->n_lines = r->segments;
    inf->rows = 1;
    inf->cols = r->segments + 1;
    inf->thickness = r->thickness;
    m->mat[oi].thickness = (float)r->thickness;
    m->mat[oi].kind = DR_OBJ_ROPE;
    const drape_material_def *rm = r->material.set ? &r->material : NULL;
    m->damping_rate[oi] = rm && rm->damping >= 0 ? rm->damping : r->damping;
    const double rest = r->length / r->segments;
    const double link_mass = (rm ? rm->density : r->mass_per_length) * rest;
    double *start = malloc(sizeof *start * 3 * ((size_t)r->segments + 1));
    if (!start) { rc = drape_fail(e, DRAPE_ENOMEM, "out of memory"); goto fail; }
    dr_rope_start(r, k, s->gravity, start);
    for (int j = 0; j <= r->segments; j++) {
      int i = pi + j;
      double mass = link_mass * ((j == 0 || j == r->segments) ? 0.5 : 1.0);
      if (!mass_ok(mass)) {
        rc = drape_fail(e, DRAPE_EINVAL,
                        "rope[%d].mass_per_length = %s: node %d gets %s kg, which would underflow "
                        "(the solver computes in float); the smallest value allowed is %s (with "
                        "links of length / segments = %s m)",
                        k, dr_num(r->mass_per_length), j, dr_num(mass), dr_num(up5(2 * DRAPE_FLOAT_MIN / rest)),
                        dr_num(rest));
        free(start);
        goto fail;
      }
      m->mass[i] = (float)mass;
      m->x0[i] = (dr_float4){(float)start[3 * j], (float)start[3 * j + 1], (float)start[3 * j + 2],
                             (float)(1.0 / mass)};
      m->obj[i] = oi;
    }
    free(start);
    if (r->pin_start) m->x0[pi].w = 0;
    if (r->pin_end) m->x0[pi + r->segments].w = 0;
    /* a rope's material: a link of rest length l is a spring EA / l */
    const double rcomp = r->solver == DRAPE_SOLVER_JAKOBSEN ? 0.0
                         : rm                              ? rest / rm->stretch[0]
                                                           : r->compliance;
    int made = dr_rope_constraints(r->segments, rest, rcomp, pi, m->cons + ci,
                                      m->cons_type + ci);
    for (int q = 0; q < made; q++) m->cons_obj[ci + q] = oi;
    /* tension-only links carry a negative rest length (drape_types.h) */
    if (r->tension_only)
      for (int q = 0; q < made; q++) m->cons[ci + q].rest = -m->cons[ci + q].rest;
    ci += made;
    /* its bending (kernels/membrane.cl, "Rope bending"): the node's length
     * of rope over EI */
    if (rm && rm->bend[0] > 0)
      for (int j = 1; j < r->segments; j++) {
        dr_rod_bend *q = &m->rbend[m->n_rbend];
        memset(q, 0, sizeof *q);
        q->a = pi + j - 1, q->b = pi + j, q->c = pi + j + 1;
        q->il0 = q->il1 = (float)(1.0 / rest);
        q->compliance = (float)(0.5 * (1.0 / q->il0 + 1.0 / q->il1) / rm->bend[0]); /* l / EI */
        m->rbend_obj[m->n_rbend++] = oi;
      }
    for (int j = 0; j < r->segments; j++) {
      m->lines[2 * li] = (dr_uint)(pi + j);
      m->lines[2 * li + 1] = (dr_uint)(pi + j + 1);
      li++;
    }
    pi += r->segments + 1;
  }

  /* stitches: from each pair's starting distance (the sim shrinks it) */
  for (int k = 0, si = 0; k < s->n_stitch; k++) {
    const drape_stitch_def *d = &s->stitch[k];
    int oa = 0, ob = 0;
    for (int j = 0; j < s->n_cloth; j++) {
      if (!strcmp(s->cloth[j].name, d->a)) oa = j;
      if (!strcmp(s->cloth[j].name, d->b)) ob = j;
    }
    const double comp = s->cloth[oa].solver == DRAPE_SOLVER_JAKOBSEN ? 0.0 : d->compliance;
    for (int q = 0; q < d->n; q++, si++) {
      const int pa = m->info[oa].first_particle + (rank[oa] ? rank[oa][d->a_vertices[q]] : d->a_vertices[q]);
      const int pb = m->info[ob].first_particle + (rank[ob] ? rank[ob][d->b_vertices[q]] : d->b_vertices[q]);
      const dr_float4 xa = m->x0[pa], xb = m->x0[pb];
      const double rest = sqrt(((double)xa.x - xb.x) * ((double)xa.x - xb.x) +
                               ((double)xa.y - xb.y) * ((double)xa.y - xb.y) +
                               ((double)xa.z - xb.z) * ((double)xa.z - xb.z));
      if (pa == pb) {
        rc = drape_fail(e, DRAPE_EINVAL, "stitch[%d]: pair %d sews vertex %d of \"%s\" to itself",
                        k, q, d->a_vertices[q], d->a);
        goto fail;
      }
      m->stitch_con[si] = ci;
      m->stitch_rest0[si] = (float)rest;
      m->stitch_close[si] = d->close_time;
      int n1 = 0;
      /* tension-only (negative rest): a seam pulls, never pushes */
      put(m->cons + ci, m->cons_type + ci, &n1, pa, pb, -rest, comp, DR_C_STITCH);
      m->cons_obj[ci] = oa;
      ci++;
    }
  }

  /* colour, then sort constraints (and their per-constraint tags) */
  {
    /* A mesh cloth's edges are projected by their edge units (colour_bends,
     * kernels/dihedral.cl) with the hinge across them, so they take no
     * distance colour: they go to one trailing bucket that no launch
     * covers (colour_off[n_colours] .. n_cons), where tearing, strain and
     * the springs solver still find them. */
    int *order = colour_order(m);
    unsigned char *owned = calloc((size_t)(m->n_cons > 0 ? m->n_cons : 1), 1);
    if (!order || !owned) {
      free(order), free(owned);
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      goto fail;
    }
    for (int i = 0; i < m->n_bend; i++) owned[m->bend[i].edge] = 1;
    for (int i = 0; i < m->n_cons; i++) owned[i] |= m->cons_type[i] == DR_C_MEASURE;
    int n_free = 0;
    for (int j = 0; j < m->n_cons; j++)
      if (!owned[order[j]]) order[n_free++] = order[j];
    rc = dr_colour_greedy_ordered(m->cons, n_free, m->n_particles, order, colour, &m->n_colours, e);
    for (int i = 0; i < m->n_cons; i++)
      if (owned[i]) colour[i] = -1;
    free(order), free(owned);
    if (rc) goto fail;
  }
  /* Launch order: greedy gave the structural links (emitted first) the
   * lowest colours. Reversing the colours projects bending, then shear,
   * then the structural links last in each sweep, so a substep ends with
   * the links that carry the load just projected: on the 256^2 hanging
   * cloth (20 x 1) this lowers the mean stretch by about a third
   * (docs/solver.md). Alternating the direction every
   * substep was measured too: it pumps energy into the cloth. */
  for (int i = 0; i < m->n_cons; i++)
    colour[i] = colour[i] < 0 ? m->n_colours : m->n_colours - 1 - colour[i];
  if (!ALLOC(m->colour_off, m->n_colours + 2)) { rc = drape_fail(e, DRAPE_ENOMEM, "out of memory"); goto fail; }
  if ((rc = dr_colour_sort(m->cons, m->n_cons, colour, m->n_colours + 1, m->colour_off, new_index, e)))
    goto fail;
  {
    unsigned char *tt = malloc((size_t)(nc > 0 ? nc : 1));
    int *to = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *to);
    if (!tt || !to) { free(tt); free(to); rc = drape_fail(e, DRAPE_ENOMEM, "out of memory"); goto fail; }
    for (int i = 0; i < m->n_cons; i++) {
      tt[new_index[i]] = m->cons_type[i];
      to[new_index[i]] = m->cons_obj[i];
    }
    memcpy(m->cons_type, tt, (size_t)m->n_cons);
    memcpy(m->cons_obj, to, (size_t)m->n_cons * sizeof *to);
    free(tt);
    free(to);
  }
  for (int i = 0; i < 3 * m->n_tris; i++) m->tri_edge[i] = new_index[m->tri_edge[i]];
  for (int i = 0; i < m->n_stitch; i++) m->stitch_con[i] = new_index[m->stitch_con[i]];
  for (int i = 0; i < m->n_bend; i++) m->bend[i].edge = new_index[m->bend[i].edge];
  if ((rc = colour_bends(m, e))) goto fail;
  if ((rc = colour_material(m, e))) goto fail;
  dr_model_warm_stiffness(m);
  /* The edges' trailing bucket in the units' order: unit k's link at
   * colour_off[n_colours] + k, so that a launch of one unit colour reads
   * the links' rest lengths, compliances and multipliers as runs, not
   * scattered over the whole bucket (on the 65k-vertex mesh the scattered
   * reads doubled the kernel's time on PoCL). */
  if (m->n_bend > 0 && m->n_cons > m->colour_off[m->n_colours]) {
    const int off = m->colour_off[m->n_colours];
    dr_distance *tc = malloc(sizeof *tc * (size_t)m->n_bend);
    unsigned char *tt = malloc((size_t)m->n_bend);
    int *to = malloc(sizeof *to * (size_t)m->n_bend);
    int *moved = malloc(sizeof *moved * (size_t)m->n_cons);
    if (!tc || !tt || !to || !moved) {
      free(tc), free(tt), free(to), free(moved);
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      goto fail;
    }
    /* the bucket also holds the material cloths' measured edges, which
     * no unit owns: they follow the units' links in their own order */
    const int nb = m->n_cons - off;
    free(tc), free(tt), free(to);
    tc = malloc(sizeof *tc * (size_t)nb), tt = malloc((size_t)nb), to = malloc(sizeof *to * (size_t)nb);
    unsigned char *unit_link = calloc((size_t)nb, 1);
    if (!tc || !tt || !to || !unit_link) {
      free(tc), free(tt), free(to), free(moved), free(unit_link);
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      goto fail;
    }
    for (int i = 0; i < m->n_cons; i++) moved[i] = i;
    for (int k = 0; k < m->n_bend; k++) {
      const int old = m->bend[k].edge;
      tc[k] = m->cons[old], tt[k] = m->cons_type[old], to[k] = m->cons_obj[old];
      unit_link[old - off] = 1;
      moved[old] = off + k;
      m->bend[k].edge = off + k;
    }
    for (int j = 0, k = m->n_bend; j < nb; j++) {
      if (unit_link[j]) continue;
      tc[k] = m->cons[off + j], tt[k] = m->cons_type[off + j], to[k] = m->cons_obj[off + j];
      moved[off + j] = off + k++;
    }
    free(unit_link);
    memcpy(m->cons + off, tc, sizeof *tc * (size_t)nb);
    memcpy(m->cons_type + off, tt, (size_t)nb);
    memcpy(m->cons_obj + off, to, sizeof *to * (size_t)nb);
    for (int i = 0; i < 3 * m->n_tris; i++) m->tri_edge[i] = moved[m->tri_edge[i]];
    for (int i = 0; i < m->n_stitch; i++) m->stitch_con[i] = moved[m->stitch_con[i]];
    free(tc), free(tt), free(to), free(moved);
  }

  /* stretch links per object, for strain statistics */
  {
    int n_str = 0;
    for (int i = 0; i < m->n_cons; i++)
      if (is_strain_link(m->cons_type[i])) m->strain_off[m->cons_obj[i] + 1]++, n_str++;
    for (int o = 0; o < m->n_objects; o++) m->strain_off[o + 1] += m->strain_off[o];
    int *fill = calloc((size_t)m->n_objects + 1, sizeof *fill);
    if (!ALLOC(m->strain_idx, n_str) || !fill) { free(fill); rc = drape_fail(e, DRAPE_ENOMEM, "out of memory"); goto fail; }
    for (int i = 0; i < m->n_cons; i++)
      if (is_strain_link(m->cons_type[i])) {
        int o = m->cons_obj[i];
        m->strain_idx[m->strain_off[o] + fill[o]++] = i;
      }
    free(fill);
  }

  /* vertex -> triangle lists, in triangle order (a fixed gather order) */
  for (int t = 0; t < 3 * m->n_tris; t++) m->vt_off[m->tris[t] + 1]++;
  for (int i = 0; i < m->n_particles; i++) m->vt_off[i + 1] += m->vt_off[i];
  {
    int *fill = calloc((size_t)m->n_particles + 1, sizeof *fill);
    if (!fill) { rc = drape_fail(e, DRAPE_ENOMEM, "out of memory"); goto fail; }
    for (int t = 0; t < m->n_tris; t++)
      for (int q = 0; q < 3; q++) {
        int v = (int)m->tris[3 * t + q];
        m->vt_list[m->vt_off[v] + fill[v]++] = t;
      }
    free(fill);
  }

  /* Tethers (Kim et al. 2012): each free cloth particle to its nearest
   * pins, rest = distance along the cloth. The grid starts flat, so the
   * distance along the cloth (geodesic) is the straight rest distance. */
  {
    int slots = 0;
    for (int k = 0; k < s->n_cloth; k++) {
      const drape_cloth_def *c = &s->cloth[k];
      int npins = c->n_pins + c->n_pin_paths;
      if (c->has_mesh) { /* every pinned vertex: pin_vertices, pin_box, paths */
        npins = 0;
        for (int v = 0; v < m->info[k].n_particles; v++) npins += m->x0[m->info[k].first_particle + v].w == 0;
      }
      if (c->tethers && npins > 0) {
        int want = npins < DRAPE_TETHER_MAX_SLOTS ? npins : DRAPE_TETHER_MAX_SLOTS;
        if (want > slots) slots = want;
      }
    }
    m->tether_slots = slots;
    if (slots > 0) {
      if (!ALLOC(m->tether_pin, (long long)np * slots) || !ALLOC(m->tether_rest, (long long)np * slots)) {
        rc = drape_fail(e, DRAPE_ENOMEM, "out of memory for tethers");
        goto fail;
      }
      for (long long i = 0; i < np * slots; i++) m->tether_pin[i] = -1;
      for (int k = 0; k < s->n_cloth; k++) {
        const drape_cloth_def *c = &s->cloth[k];
        const drape_object_info *inf = &m->info[k];
        if (c->has_mesh) {
          if (c->tethers && (rc = mesh_tethers(c, inf, &topo[k], m, e))) goto fail;
          continue;
        }
        int npins = c->n_pins + c->n_pin_paths;
        if (!c->tethers || npins == 0) continue;
        int *pins = malloc((size_t)npins * sizeof *pins);
        pin_dist *pd = malloc((size_t)npins * sizeof *pd);
        if (!pins || !pd) { free(pins); free(pd); rc = drape_fail(e, DRAPE_ENOMEM, "out of memory"); goto fail; }
        int nu = 0;
        for (int q = 0; q < npins; q++) {
          int r = q < c->n_pins ? c->pins[q][0] : c->pin_paths[q - c->n_pins].row;
          int col = q < c->n_pins ? c->pins[q][1] : c->pin_paths[q - c->n_pins].col;
          int id = inf->first_particle + r * c->cols + col, dup = 0;
          for (int u = 0; u < nu; u++) dup |= pins[u] == id;
          if (!dup) pins[nu++] = id;
        }
        int want = nu < slots ? nu : slots;
        for (int r = 0; r < c->rows; r++)
          for (int col = 0; col < c->cols; col++) {
            int i = inf->first_particle + r * c->cols + col;
            if (m->x0[i].w == 0) continue;
            for (int u = 0; u < nu; u++) {
              int pr = (pins[u] - inf->first_particle) / c->cols;
              int pc = (pins[u] - inf->first_particle) % c->cols;
              pd[u].d = c->spacing * hypot((double)(r - pr), (double)(col - pc));
              pd[u].pin = pins[u];
            }
            qsort(pd, (size_t)nu, sizeof *pd, cmp_pin_dist);
            for (int q = 0; q < want; q++) {
              m->tether_pin[(long long)i * slots + q] = pd[q].pin;
              m->tether_rest[(long long)i * slots + q] = (float)pd[q].d;
              m->n_tethers++;
            }
          }
        free(pins);
        free(pd);
      }
    }
  }
  free(new_index);
  free(colour);
  for (int j = 0; j < s->n_cloth; j++) dr_mesh_topo_free(&topo[j]);
  free(topo);
  return DRAPE_OK;
fail:
  free(new_index);
  free(colour);
  for (int j = 0; j < s->n_cloth; j++) dr_mesh_topo_free(&topo[j]);
  free(topo);
  dr_model_free(m);
  return rc;
}
