/* The seed 000 string tick: adaptive substeps, hand controller, implicit
 * velocity solve, contour projection. A faithful port of seed 000 §7.17
 * (substep, solve_material_velocity, project_contour, tick); expressions keep
 * the Python's order of operations where that is cheap, so results agree
 * with the seed's reference to round-off (tests/test_string.c).
 *
 * The one structural change from the Python: bending terms are assembled
 * once per substep into their own band and right-hand side and added to each
 * Newton iterate's matrix, as the seed's JavaScript does (§7.13); only the
 * tensile terms change with the active set. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/banded.h"
#include "string/string_internal.h"

/* ---- material terms (§7.9, §7.10; Python material_terms) ---- */
static void material_terms(drape_string *s) {
  const int N = s->N;
  const double ell0 = s->ell0, EA = s->p.EA, B = s->p.B;
  const double *r = s->r;
  for (int i = 0; i < N; i++) {
    const double dx = r[2 * i + 2] - r[2 * i], dy = r[2 * i + 3] - r[2 * i + 1];
    const double length = sqrt(dx * dx + dy * dy);
    /* Tension only in stretched links; a link at or below l0 (including one
     * of exactly zero length) has no term and no division by its length. */
    s->link_on[i] = length > ell0;
    if (s->link_on[i]) {
      s->link_n[2 * i] = dx / length;
      s->link_n[2 * i + 1] = dy / length;
      s->link_e[i] = EA * (length - ell0) / ell0;
    }
  }
  for (int i = 1; i < N; i++) {
    const double ax = r[2 * i] - r[2 * i - 2], ay = r[2 * i + 1] - r[2 * i - 1];
    const double bx = r[2 * i + 2] - r[2 * i], by = r[2 * i + 3] - r[2 * i + 1];
    const double aa = ax * ax + ay * ay, bb = bx * bx + by * by;
    unsigned char on = !((aa < bb ? aa : bb) < 1e-24); /* no direction at zero length */
    s->bend_on[i - 1] = on;
    if (!on) continue;
    const double theta = atan2(ax * by - ay * bx, ax * bx + ay * by);
    /* p(d) = (-d_y, d_x)/|d|^2, the gradient of a link's direction angle;
     * G = (p(a), -p(a) - p(b), p(b)) (§7.10). */
    const double pax = -ay / aa, pay = ax / aa;
    const double pbx = -by / bb, pby = bx / bb;
    double *g = s->bend_g + 6 * (i - 1);
    g[0] = pax;
    g[1] = pay;
    g[2] = -pax - pbx;
    g[3] = -pay - pby;
    g[4] = pbx;
    g[5] = pby;
    s->bend_e[i - 1] = B * theta / ell0;
  }
}

/* Rate of a link term: G . v with G = (-n, n) over nodes i, i+1. */
static inline double link_rate(const drape_string *s, int i, const double *v) {
  const double nx = s->link_n[2 * i], ny = s->link_n[2 * i + 1];
  const double *w = v + 2 * i;
  return -nx * w[0] + -ny * w[1] + nx * w[2] + ny * w[3];
}

static inline double bend_rate(const drape_string *s, int i, const double *v) {
  const double *g = s->bend_g + 6 * (i - 1);
  const double *w = v + 2 * (i - 1);
  return g[0] * w[0] + g[1] * w[1] + g[2] * w[2] + g[3] * w[3] + g[4] * w[4] + g[5] * w[5];
}

/* Python active(): a tensile term is active when its total tension at the
 * given velocities is positive (always, without extension friction). */
static inline int link_active(const drape_string *s, int i, const double *v, double c) {
  return c == 0.0 || s->link_e[i] + c * link_rate(s, i, v) > 0.0;
}

/* The seed's objective, whose minimiser over velocities is the Euler step
 * with friction implicit and tension one-sided (Python objective()). */
static double objective(const drape_string *s, const double *v, double h) {
  const double *old = s->old, *m = s->masses, *g = s->p.gravity;
  const double cl = s->p.etaA / s->ell0, cb = s->p.D / s->ell0;
  double value = 0.0;
  for (int k = 0; k < s->size; k++) {
    const double d = v[k] - old[k];
    value += 0.5 * m[k] * (d * d) - h * m[k] * g[k & 1] * v[k];
  }
  for (int i = 0; i < s->N; i++) {
    if (!s->link_on[i]) continue;
    const double speed = link_rate(s, i, v), e = s->link_e[i];
    if (cl > 0.0) {
      const double t = e + cl * speed > 0.0 ? e + cl * speed : 0.0;
      value += h * (t * t / (2 * cl));
    } else {
      value += h * (e * speed + 0.5 * cl * (speed * speed));
    }
  }
  for (int i = 1; i < s->N; i++) {
    if (!s->bend_on[i - 1]) continue;
    const double speed = bend_rate(s, i, v);
    value += h * (s->bend_e[i - 1] * speed + 0.5 * cb * (speed * speed));
  }
  return value;
}

/* Adds one term's h c G G^T to the band and -h e G to the rhs; G covers n
 * consecutive coordinates from `start`. */
static inline void add_term(double *band, double *rhs, int start, const double *G, int n,
                            double he, double hc) {
  for (int a = 0; a < n; a++) {
    const int i = start + a;
    double *row = band + (size_t)i * STRING_BAND_S;
    rhs[i] -= he * G[a];
    const double hcg = hc * G[a];
    for (int b = 0; b <= a; b++) row[a - b] += hcg * G[b];
  }
}

/* Solve v* = v0 + h a(r0, v*) (§7.13; Python solve_material_velocity).
 * Input: s->pv holds the start velocities (hand already applied). Output:
 * the solved velocities in s->pv. */
static int solve_velocity(drape_string *s, double h, drape_err *e) {
  const int size = s->size, N = s->N;
  const double *g = s->p.gravity;
  const double cl = s->p.etaA / s->ell0, cb = s->p.D / s->ell0;
  double *old = s->old, *band = s->band, *rhs = s->rhs;

  memcpy(old, s->pv, sizeof(double) * (size_t)size);
  memset(s->known, 0, (size_t)size);
  if (s->p.pin_anchor) {
    old[0] = old[1] = 0.0;
    s->known[0] = s->known[1] = 1;
  }
  if (s->held) s->known[size - 2] = s->known[size - 1] = 1;

  /* Bending: active in both directions, so assembled once (§7.13). */
  memset(s->bend_band, 0, sizeof(double) * (size_t)size * STRING_BAND_S);
  memset(s->bend_rhs, 0, sizeof(double) * (size_t)size);
  for (int i = 1; i < N; i++)
    if (s->bend_on[i - 1])
      add_term(s->bend_band, s->bend_rhs, 2 * (i - 1), s->bend_g + 6 * (i - 1), 6,
               h * s->bend_e[i - 1], h * cb);

  memcpy(s->cur, old, sizeof(double) * (size_t)size);
  int iters = 0;
  for (int it = 0; it < s->p.newton_max; it++) {
    iters++;
    s->stats.newton_iters++;
    const double *cur = s->cur;
    for (int k = 0; k < size; k++) {
      double *row = band + (size_t)k * STRING_BAND_S;
      row[0] = s->masses[k];
      for (int b = 1; b < STRING_BAND_S; b++) row[b] = 0.0;
      rhs[k] = s->masses[k] * (old[k] + h * g[k & 1]);
    }
    for (int i = 0; i < N; i++) {
      s->link_act[i] = s->link_on[i] && link_active(s, i, cur, cl);
      if (!s->link_act[i]) continue;
      const double nx = s->link_n[2 * i], ny = s->link_n[2 * i + 1];
      const double G[4] = {-nx, -ny, nx, ny};
      add_term(band, rhs, 2 * i, G, 4, h * s->link_e[i], h * cl);
    }
    for (int k = 0; k < size * STRING_BAND_S; k++) band[k] += s->bend_band[k];
    for (int k = 0; k < size; k++) rhs[k] += s->bend_rhs[k];

    /* Prescribed coordinates (anchor, held end): move their columns to the
     * right-hand side and make their rows identity rows (Python, verbatim). */
    for (int i = 0; i < size; i++) {
      /* Known coordinates sit only at the two ends: skip the rows between
       * that cannot touch them (same operations, same order). */
      if (i == STRING_BAND_W + 2 && size - STRING_BAND_W - 2 > i) i = size - STRING_BAND_W - 2;
      double *row = band + (size_t)i * STRING_BAND_S;
      for (int j = i - STRING_BAND_W > 0 ? i - STRING_BAND_W : 0; j < i; j++) {
        if (s->known[i]) {
          rhs[j] -= row[i - j] * old[i];
          row[i - j] = 0.0;
        } else if (s->known[j]) {
          rhs[i] -= row[i - j] * old[j];
          row[i - j] = 0.0;
        }
      }
    }
    for (int i = 0; i < size; i++)
      if (s->known[i]) {
        band[(size_t)i * STRING_BAND_S] = 1.0;
        rhs[i] = old[i];
      }

    const int bad = dr_banded_factor(band, size, STRING_BAND_W);
    if (bad) {
      /* In exact arithmetic the matrix is positive definite (mass plus
       * positive semi-definite friction terms); it fails when the implicit
       * friction outweighs a node's mass by ~1e16 (tiny links or mass), and
       * the factor loses every digit of the mass. Name the larger ratio. */
      const double m = s->p.mu * s->ell0, l0 = s->ell0, hh = s->p.h;
      const double r_eta = hh * s->p.etaA / (m * l0), r_d = hh * s->p.D / (m * l0 * l0 * l0);
      char why[400];
      if (r_eta > 1e12 || r_d > 1e12)
        snprintf(why, sizeof why,
                 "the implicit friction outweighs a node's mass mu L0/N = %.3g kg by %.3g: %s",
                 m, r_eta > r_d ? r_eta : r_d,
                 r_eta > r_d ? "etaA (h etaA / (mu (L0/N)^2))" : "D (h D / (mu (L0/N)^4))");
      else
        dr_string_stiffest(s, why, sizeof why);
      return drape_fail(e, DRAPE_EUNSTABLE,
                        "string: velocity system not positive definite at row %d (node %d, "
                        "t = %.6g s); %s",
                        bad - 1, (bad - 1) / 2, drape_string_time(s), why);
    }
    memcpy(s->cand, rhs, sizeof(double) * (size_t)size);
    dr_banded_solve(band, size, STRING_BAND_W, s->cand);

    int same = 1;
    for (int i = 0; i < N && same; i++)
      if (s->link_on[i] && s->link_act[i] != link_active(s, i, s->cand, cl)) same = 0;
    if (same) {
      memcpy(s->pv, s->cand, sizeof(double) * (size_t)size);
      goto done;
    }
    /* The active set changed: backtrack on the objective from the current
     * iterate towards the candidate (§7.13). */
    s->stats.line_searches++;
    const double cost = objective(s, cur, h);
    double fraction = 1.0;
    for (int ls = 0; ls < 24; ls++) {
      for (int k = 0; k < size; k++) s->trial[k] = cur[k] + fraction * (s->cand[k] - cur[k]);
      if (objective(s, s->trial, h) <= cost + 1e-15) break;
      fraction *= 0.5;
    }
    double change = 0.0;
    for (int k = 0; k < size; k++) {
      const double d = fabs(s->trial[k] - cur[k]);
      if (d > change) change = d;
    }
    if (change < 1e-10) {
      memcpy(s->pv, s->trial, sizeof(double) * (size_t)size);
      goto done;
    }
    double *t = s->cur;
    s->cur = s->trial;
    s->trial = t;
  }
  return drape_fail(e, DRAPE_EUNSTABLE,
                    "string: internal friction solve did not converge in %d Newton "
                    "iterations (newton_max; t = %g s)",
                    s->p.newton_max, (double)s->ticks * s->p.h);
done:
  if (iters > s->stats.max_newton) s->stats.max_newton = iters;
  return DRAPE_OK;
}

/* Contour projection (§7.12; Python project_contour): links shorter than l0
 * are restored to l0 with inverse-mass weights, fixed ends excluded, and
 * their closing velocity is cancelled without rebound. Two sweeps, right to
 * left then left to right. */
static void project_contour(drape_string *s) {
  const int N = s->N;
  const double ell0 = s->ell0;
  double *r = s->pr, *v = s->pv, *w = s->inv_mass;
  w[0] = s->p.pin_anchor ? 0.0 : 1.0 / s->mass[0];
  w[N] = s->held ? 0.0 : 1.0 / s->mass[N];
  for (int sweep = 0; sweep < 2; sweep++) {
    for (int step = 0; step < N; step++) {
      const int i = sweep == 0 ? N - 1 - step : step;
      const double dx = r[2 * i + 2] - r[2 * i], dy = r[2 * i + 3] - r[2 * i + 1];
      const double length = sqrt(dx * dx + dy * dy);
      if (length > ell0 * (1 + 1e-6)) continue;
      const double wi = w[i], wj = w[i + 1];
      if (wi + wj == 0) continue;
      double nx = 1.0, ny = 0.0;
      if (length > 1e-12) {
        nx = dx / length;
        ny = dy / length;
      }
      const double correction = (ell0 - length > 0.0 ? ell0 - length : 0.0) / (wi + wj);
      const double left = -wi * correction, right = wj * correction;
      r[2 * i] += left * nx;
      r[2 * i + 1] += left * ny;
      r[2 * i + 2] += right * nx;
      r[2 * i + 3] += right * ny;
      /* Cancel closing motion; position repair supplies no rebound. */
      const double closing = (v[2 * i + 2] - v[2 * i]) * nx + (v[2 * i + 3] - v[2 * i + 1]) * ny;
      const double impulse = (-closing > 0.0 ? -closing : 0.0) / (wi + wj);
      v[2 * i] -= wi * impulse * nx;
      v[2 * i + 1] -= wi * impulse * ny;
      v[2 * i + 2] += wj * impulse * nx;
      v[2 * i + 3] += wj * impulse * ny;
    }
  }
}

static inline double clamp_scale(double limit, double norm) {
  /* min(1, limit / max(norm, 1e-12)): leaves a zero vector at zero (§7.15). */
  const double q = limit / (norm > 1e-12 ? norm : 1e-12);
  return q < 1.0 ? q : 1.0;
}

/* Work the hand does on the held end over one substep (for the energy
 * balance, include/drape/string.h): the velocity change it imposes,
 * m (|v'|^2 - |v|^2)/2, plus the force that keeps the end at v' during the
 * substep times its motion, F = -(f_N + m g) with f_N the string's force on
 * node N at the solved velocities (link N-1's tension and the last bend's
 * moment, as the objective's gradient gives them; §7.9-7.10, §7.13), so
 * F . v' part. Reads s->v (before) and s->pv (solved). */
static double hand_work(const drape_string *s, double part) {
  const int N = s->N;
  const double m = s->mass[N], *g = s->p.gravity;
  const double cl = s->p.etaA / s->ell0, cb = s->p.D / s->ell0;
  const double vx = s->pv[2 * N], vy = s->pv[2 * N + 1];
  const double ux = s->v[2 * N], uy = s->v[2 * N + 1];
  double fx = 0.0, fy = 0.0;
  const int l = N - 1;
  if (s->link_on[l] && link_active(s, l, s->pv, cl)) {
    const double t = s->link_e[l] + cl * link_rate(s, l, s->pv);
    fx -= t * s->link_n[2 * l];
    fy -= t * s->link_n[2 * l + 1];
  }
  if (s->bend_on[N - 2]) {
    const double *G = s->bend_g + 6 * (N - 2);
    const double q = s->bend_e[N - 2] + cb * bend_rate(s, N - 1, s->pv);
    fx -= q * G[4];
    fy -= q * G[5];
  }
  const double Fx = -(fx + m * g[0]), Fy = -(fy + m * g[1]);
  return 0.5 * m * ((vx * vx + vy * vy) - (ux * ux + uy * uy)) + part * (Fx * vx + Fy * vy);
}

/* Python substep(): the prediction from the accepted state (s->r, s->v)
 * over `part` seconds, into s->pr, s->pv; *work gets the hand's work. */
static int substep(drape_string *s, double part, double *work, drape_err *e) {
  const int size = s->size, N = s->N;
  *work = 0.0;
  memcpy(s->pr, s->r, sizeof(double) * (size_t)size);
  memcpy(s->pv, s->v, sizeof(double) * (size_t)size);
  if (s->held) {
    /* The hand (§7.15): bounded target, critically damped approach,
     * acceleration and speed caps; Euler update of the prescribed velocity. */
    const double *a = s->p.anchor;
    double ox = s->target[0] - a[0], oy = s->target[1] - a[1];
    const double q = clamp_scale(s->reach, sqrt(ox * ox + oy * oy));
    const double px = a[0] + ox * q, py = a[1] + oy * q;
    const double dx = px - s->r[2 * N], dy = py - s->r[2 * N + 1];
    const double omega = 1 / s->p.hand_response;
    double ax = omega * omega * dx - 2 * omega * s->v[2 * N];
    double ay = omega * omega * dy - 2 * omega * s->v[2 * N + 1];
    const double qa = clamp_scale(s->p.hand_accel, sqrt(ax * ax + ay * ay));
    ax *= qa;
    ay *= qa;
    const double vx = s->v[2 * N] + part * ax, vy = s->v[2 * N + 1] + part * ay;
    const double qv = clamp_scale(s->speed_cap, sqrt(vx * vx + vy * vy));
    s->pv[2 * N] = vx * qv;
    s->pv[2 * N + 1] = vy * qv;
  }
  material_terms(s);
  int rc = solve_velocity(s, part, e);
  if (rc) return rc;
  if (s->held) *work = hand_work(s, part);
  for (int k = 0; k < size; k++) s->pr[k] += part * s->pv[k];
  project_contour(s);
  return DRAPE_OK;
}

/* First node of the candidate (pr, pv) with a non-finite coordinate, -1
 * when none; *what gets which vector. */
static int first_nonfinite(const drape_string *s, const char **what) {
  for (int i = 0; i <= s->N; i++) {
    if (!isfinite(s->pr[2 * i]) || !isfinite(s->pr[2 * i + 1])) {
      *what = "position";
      return i;
    }
    if (!isfinite(s->pv[2 * i]) || !isfinite(s->pv[2 * i + 1])) {
      *what = "velocity";
      return i;
    }
  }
  return -1;
}

int dr_string_substep(drape_string *s, int *tick_done, drape_err *e) {
  const int n1 = s->N + 1, size = s->size;
  const double h = s->p.h, limit = 0.01 * s->ell0;
  *tick_done = 0;
  if (!(s->tick_left > 0.0)) {
    s->tick_left = h;
    s->tick_substeps = 0;
  }
  /* The substep cap (include/drape/string.h, substep_max): a stiff string
   * gains speed and its substeps shrink with 1/speed, so a tick would
   * otherwise never end. */
  if (s->tick_substeps >= s->p.substep_max) {
    char why[400];
    dr_string_stiffest(s, why, sizeof why);
    return drape_fail(e, DRAPE_EUNSTABLE,
                      "string: more than %ld substeps (substep_max) in the tick from t = %.6g s "
                      "(h = %g s, %.3g s of it left): the motion is too stiff to resolve; %s",
                      s->p.substep_max, (double)s->ticks * h, h, s->tick_left, why);
  }
  double speed = 0.0;
  for (int i = 0; i < n1; i++) {
    const double vx = s->v[2 * i], vy = s->v[2 * i + 1];
    const double sp = sqrt(vx * vx + vy * vy);
    if (sp > speed) speed = sp;
  }
  /* Propose at most 0.9 (0.01 l0)/v_max, leaving room for acceleration and
   * the contour correction (§7.13). */
  double part = 0.9 * limit / (speed > 1e-12 ? speed : 1e-12);
  if (s->tick_left < part) part = s->tick_left;
  int ok = 0, bad = -1;
  const char *bad_what = "position";
  double work = 0.0;
  for (int attempt = 0; attempt < 21; attempt++) {
    int rc = substep(s, part, &work, e);
    if (rc) return rc;
    double movement = 0.0;
    for (int i = 0; i < n1; i++) {
      const double dx = s->pr[2 * i] - s->r[2 * i], dy = s->pr[2 * i + 1] - s->r[2 * i + 1];
      const double m = sqrt(dx * dx + dy * dy);
      if (m > movement || m != m) movement = m;
    }
    /* A non-finite position or velocity is never accepted (issue 13): it
     * is treated as too much movement, halved and retried. */
    bad = first_nonfinite(s, &bad_what);
    if (bad < 0 && movement <= limit * (1 + 1e-6)) {
      ok = 1;
      break;
    }
    s->stats.retries++;
    part *= 0.5;
  }
  if (!ok) {
    char why[400];
    dr_string_stiffest(s, why, sizeof why);
    if (bad >= 0)
      return drape_fail(e, DRAPE_EUNSTABLE,
                        "string: node %d %s = (%g, %g) after 20 halvings of the substep "
                        "(t = %.6g s); %s",
                        bad, bad_what, strcmp(bad_what, "position") ? s->pv[2 * bad] : s->pr[2 * bad],
                        strcmp(bad_what, "position") ? s->pv[2 * bad + 1] : s->pr[2 * bad + 1],
                        drape_string_time(s), why);
    return drape_fail(e, DRAPE_EUNSTABLE,
                      "string: could not resolve the motion (a node still moved more than "
                      "0.01 l0 = %g m after 20 halvings, t = %.6g s); %s",
                      limit, drape_string_time(s), why);
  }
  /* The energy balance every DRAPE_STRING_ENERGY_EVERY substeps, on the
   * candidate, so a blow-up leaves the last accepted state in place. */
  if (s->since_check + 1 >= DRAPE_STRING_ENERGY_EVERY) {
    int rc = dr_string_check_candidate(s, work, e);
    if (rc) return rc;
  } else {
    s->since_check++;
  }
  memcpy(s->r, s->pr, sizeof(double) * (size_t)size);
  memcpy(s->v, s->pv, sizeof(double) * (size_t)size);
  s->hand_work += work;
  s->hand_work_abs += fabs(work);
  s->stats.substeps++;
  s->tick_substeps++;
  if (s->tick_substeps > s->stats.max_tick_substeps) s->stats.max_tick_substeps = s->tick_substeps;
  s->tick_left -= part;
  if (!(s->tick_left > h * 1e-12)) {
    s->tick_left = 0.0;
    s->ticks++;
    s->stats.ticks++;
    *tick_done = 1;
  }
  return DRAPE_OK;
}
