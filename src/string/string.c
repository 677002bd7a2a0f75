/* The seed 000 string: parameters, lifetime, hand, time stepping drivers,
 * energies. The tick itself is in string_step.c. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "string/string_internal.h"

drape_string_params drape_string_params_default(void) {
  /* Seed 000 §7.16/§7.17 values. */
  drape_string_params p;
  memset(&p, 0, sizeof p);
  p.links = 80;
  p.length = 4.0;
  p.mu = 0.02;
  p.EA = 100.0;
  p.etaA = 30.0;
  p.B = 1e-4;
  p.D = 1e-5;
  p.h = 1e-4;
  p.gravity[1] = -9.81;
  p.anchor[0] = -0.4 * p.length;
  p.anchor[1] = 0.65 * p.length;
  p.pin_anchor = 1;
  p.hand_reach = 0.0; /* 1.15 L0 */
  p.hand_speed = 6.0;
  p.hand_response = 0.015;
  p.hand_accel = 100.0;
  p.newton_max = 200;
  p.substep_max = 100000;
  return p;
}

/* The shortest %g text that reads back as v (1e+12, not 1000000000000). */
static const char *num_text(double v, char *buf, size_t cap) {
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

/* Field checks: every message names the field, the value and the range. */
static int check_num(const char *name, double v, double lo, int lo_strict, drape_err *e) {
  if (!isfinite(v) || (lo_strict ? !(v > lo) : !(v >= lo)))
    return drape_fail(e, DRAPE_EINVAL, "string %s = %g: must be a finite number %s %g", name, v,
                      lo_strict ? ">" : ">=", lo);
  return DRAPE_OK;
}

static int check_finite(const char *name, const double *v, int n, drape_err *e) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return drape_fail(e, DRAPE_EINVAL, "string %s[%d] = %g: must be a finite number", name, i,
                        v[i]);
  return DRAPE_OK;
}

int drape_string_params_validate(const drape_string_params *p, drape_err *e) {
  if (!p) return drape_fail(e, DRAPE_EINVAL, "string: no parameters given");
  /* N >= 2: the model needs at least one bend; the upper bound keeps 2(N+1)
   * band rows well inside int. */
  if (p->links < 2 || p->links > 10000000)
    return drape_fail(e, DRAPE_EINVAL, "string links (N) = %d: must be an integer in 2..10000000",
                      p->links);
  int rc;
  char v[40];
  if ((rc = check_num("length (L0, m)", p->length, 0.0, 1, e))) return rc;
  if (p->length > DRAPE_STRING_MAX_LENGTH)
    return drape_fail(e, DRAPE_EINVAL, "string length (L0, m) = %s: must be <= %g",
                      num_text(p->length, v, sizeof v), DRAPE_STRING_MAX_LENGTH);
  /* Below this the movement limit 0.01 L0/N and the squared link lengths of
   * the geometry (compared with 1e-24 m^2) lose their meaning; at 1e-300 m
   * they underflow and no substep can ever finish a tick. */
  if (!(p->length / p->links >= DRAPE_STRING_MIN_LINK))
    return drape_fail(e, DRAPE_EINVAL,
                      "string length (L0, m) = %s with links (N) = %d: the link length "
                      "L0/N = %.3g m must be >= %g m (a longer string or fewer links)",
                      num_text(p->length, v, sizeof v), p->links, p->length / p->links, DRAPE_STRING_MIN_LINK);
  /* A massless node would make the velocity system singular where no term
   * acts, and its inverse mass infinite in the contour projection. */
  if ((rc = check_num("mu (kg/m)", p->mu, 0.0, 1, e))) return rc;
  if ((rc = check_num("EA (N)", p->EA, 0.0, 0, e))) return rc;
  if ((rc = check_num("etaA (N s)", p->etaA, 0.0, 0, e))) return rc;
  if ((rc = check_num("B (N m^2)", p->B, 0.0, 0, e))) return rc;
  if ((rc = check_num("D (N m^2 s)", p->D, 0.0, 0, e))) return rc;
  if ((rc = check_num("h (s)", p->h, 0.0, 1, e))) return rc;
  if ((rc = check_finite("gravity", p->gravity, 2, e))) return rc;
  if ((rc = check_finite("anchor", p->anchor, 2, e))) return rc;
  /* Far from the origin, doubles no longer resolve the movement limit
   * 0.01 L0/N (at 1e300 every node has the same coordinates). */
  for (int i = 0; i < 2; i++)
    if (fabs(p->anchor[i]) > DRAPE_STRING_MAX_LENGTH)
      return drape_fail(e, DRAPE_EINVAL, "string anchor[%d] = %s: must be within +-%g m", i,
                        num_text(p->anchor[i], v, sizeof v), DRAPE_STRING_MAX_LENGTH);
  /* Node masses (mu L0/N, halved at the ends) and their inverses must be
   * normal, finite doubles (issue 13: validate what the solver uses). */
  const double m_end = 0.5 * p->mu * (p->length / p->links);
  if (!(m_end >= DBL_MIN) || !isfinite(p->mu * p->length) || !isfinite(1.0 / m_end))
    return drape_fail(e, DRAPE_EINVAL,
                      "string mu (kg/m) = %s with length %g m and links %d: the end node mass "
                      "mu L0/(2N) = %.3g kg must be a normal, finite double (>= %g)",
                      num_text(p->mu, v, sizeof v), p->length, p->links, m_end, DBL_MIN);
  if ((rc = check_num("hand_reach (m; 0 = 1.15 L0)", p->hand_reach, 0.0, 0, e))) return rc;
  if ((rc = check_num("hand_speed (m/s)", p->hand_speed, 0.0, 1, e))) return rc;
  if ((rc = check_num("hand_response (s)", p->hand_response, 0.0, 1, e))) return rc;
  if ((rc = check_num("hand_accel (m/s^2)", p->hand_accel, 0.0, 1, e))) return rc;
  if (p->newton_max < 1 || p->newton_max > 1000000)
    return drape_fail(e, DRAPE_EINVAL, "string newton_max = %d: must be an integer in 1..1000000",
                      p->newton_max);
  if (p->substep_max < 1 || p->substep_max > 1000000000L)
    return drape_fail(e, DRAPE_EINVAL,
                      "string substep_max = %ld: must be an integer in 1..1000000000",
                      p->substep_max);
  return DRAPE_OK;
}

int drape_string_params_from_def(const drape_string_def *def, const double gravity[3],
                                 drape_string_params *p, drape_err *e) {
  if (!def || !p) return drape_fail(e, DRAPE_EINVAL, "string: no definition given");
  *p = drape_string_params_default();
  p->links = def->nodes;
  p->length = def->length;
  p->mu = def->mu;
  p->EA = def->EA;
  p->etaA = def->etaA;
  p->B = def->B;
  p->D = def->D;
  p->h = def->h;
  p->anchor[0] = def->anchor[0];
  p->anchor[1] = def->anchor[1];
  if (gravity) {
    p->gravity[0] = gravity[0];
    p->gravity[1] = gravity[1];
  }
  int rc = drape_string_params_validate(p, e);
  if (rc && e) {
    /* Prefix the object's name so a scene error points at the right entry. */
    char tmp[sizeof e->msg];
    memcpy(tmp, e->msg, sizeof tmp);
    drape_fail(e, rc, "%s: %s", def->name[0] ? def->name : "string", tmp);
  }
  return rc;
}

static void initial_state(drape_string *s) {
  /* §7.16: straight, unstretched, along +x from the anchor, at rest. */
  const int N = s->N;
  for (int i = 0; i <= N; i++) {
    s->r[2 * i] = s->p.anchor[0] + s->p.length * (double)i / (double)N;
    s->r[2 * i + 1] = s->p.anchor[1];
    s->v[2 * i] = s->v[2 * i + 1] = 0.0;
  }
  s->init_end[0] = s->r[2 * N];
  s->init_end[1] = s->r[2 * N + 1];
}

void drape_string_reset(drape_string *s) {
  initial_state(s);
  s->held = 1;
  s->target[0] = s->init_end[0];
  s->target[1] = s->init_end[1];
  s->ticks = 0;
  s->tick_left = 0.0;
  s->tick_substeps = 0;
  s->script_released = 0;
  memset(&s->stats, 0, sizeof s->stats);
  dr_string_energy_baseline(s);
}

int drape_string_create(const drape_string_params *p, drape_string **out, drape_err *e) {
  if (!out) return drape_fail(e, DRAPE_EINVAL, "string: no output handle given");
  *out = NULL;
  int rc = drape_string_params_validate(p, e);
  if (rc) return rc;
  drape_string *s = calloc(1, sizeof *s);
  if (!s) return drape_fail(e, DRAPE_ENOMEM, "string: out of memory");
  s->p = *p;
  s->N = p->links;
  s->size = 2 * (p->links + 1);
  s->ell0 = p->length / p->links;
  s->reach = p->hand_reach > 0 ? p->hand_reach : 1.15 * p->length;
  s->speed_cap = p->hand_speed;
  const size_t N = (size_t)s->N, n1 = N + 1, size = (size_t)s->size;
  const size_t bands = size * STRING_BAND_S;
  /* One block for every double array, one for the flags: nothing is
   * allocated after this. */
  const size_t nd = n1 * 2 + size * 11 + N * 3 + (N - 1) * 7 + bands * 2;
  double *d = calloc(nd, sizeof *d);
  unsigned char *f = calloc(N * 2 + (N - 1) + size, 1);
  if (!d || !f) {
    free(d);
    free(f);
    free(s);
    return drape_fail(e, DRAPE_ENOMEM, "string: out of memory for %d links", p->links);
  }
  double *q = d;
#define TAKE(ptr, count) (ptr = q, q += (count))
  TAKE(s->mass, n1);
  TAKE(s->inv_mass, n1);
  TAKE(s->masses, size);
  TAKE(s->r, size);
  TAKE(s->v, size);
  TAKE(s->pr, size);
  TAKE(s->pv, size);
  TAKE(s->rhs, size);
  TAKE(s->bend_rhs, size);
  TAKE(s->old, size);
  TAKE(s->cur, size);
  TAKE(s->cand, size);
  TAKE(s->trial, size);
  TAKE(s->link_n, 2 * N);
  TAKE(s->link_e, N);
  TAKE(s->bend_g, 6 * (N - 1));
  TAKE(s->bend_e, N - 1);
  TAKE(s->band, bands);
  TAKE(s->bend_band, bands);
#undef TAKE
  s->link_on = f;
  s->link_act = f + N;
  s->bend_on = f + 2 * N;
  s->known = f + 2 * N + (N - 1);
  /* §7.9: each link's mass is shared by its two nodes; ends get one half. */
  for (size_t i = 0; i < n1; i++) s->mass[i] = p->mu * s->ell0;
  s->mass[0] *= 0.5;
  s->mass[N] *= 0.5;
  for (size_t i = 0; i < n1; i++) s->inv_mass[i] = 1 / s->mass[i];
  for (size_t k = 0; k < size; k++) s->masses[k] = s->mass[k / 2];
  drape_string_reset(s);
  *out = s;
  return DRAPE_OK;
}

void drape_string_destroy(drape_string *s) {
  if (!s) return;
  free(s->mass); /* the start of the double block */
  free(s->link_on);
  free(s);
}

static void energies_of(const drape_string *s, const double *r, const double *v,
                        drape_string_energy *out);

int drape_string_set_state(drape_string *s, const double *r, const double *v, drape_err *e) {
  for (int k = 0; k < s->size; k++)
    if (!isfinite(r[k]) || (v && !isfinite(v[k])))
      return drape_fail(e, DRAPE_EINVAL, "string state: coordinate %d (node %d) is not finite",
                        k, k / 2);
  {
    /* Energies of the new state must be finite: the energy balance (and
     * the solver's squares) need them. Checked on the candidate arrays. */
    drape_string_energy en;
    memcpy(s->pr, r, sizeof(double) * (size_t)s->size);
    if (v)
      memcpy(s->pv, v, sizeof(double) * (size_t)s->size);
    else
      memset(s->pv, 0, sizeof(double) * (size_t)s->size);
    if (s->p.pin_anchor) s->pv[0] = s->pv[1] = 0.0;
    energies_of(s, s->pr, s->pv, &en);
    if (!isfinite(en.total))
      return drape_fail(e, DRAPE_EINVAL,
                        "string state: its energy is not finite (kinetic %g J, elastic %g J, "
                        "bending %g J, gravitational %g J)",
                        en.kinetic, en.elastic, en.bending, en.gravitational);
  }
  memcpy(s->r, s->pr, sizeof(double) * (size_t)s->size);
  memcpy(s->v, s->pv, sizeof(double) * (size_t)s->size);
  if (s->p.pin_anchor) {
    /* The anchor is node 0's prescribed position. */
    s->p.anchor[0] = r[0];
    s->p.anchor[1] = r[1];
  }
  s->tick_left = 0.0;
  s->tick_substeps = 0;
  dr_string_energy_baseline(s);
  return DRAPE_OK;
}

void drape_string_grab(drape_string *s, double x, double y) {
  s->held = 1;
  s->target[0] = x;
  s->target[1] = y;
}

void drape_string_set_target(drape_string *s, double x, double y) {
  if (!s->held) return;
  s->target[0] = x;
  s->target[1] = y;
}

void drape_string_release(drape_string *s) {
  if (!s->held) return;
  /* §7.15: release stops only the end; the rest keeps its motion. */
  s->held = 0;
  s->v[2 * s->N] = 0.0;
  s->v[2 * s->N + 1] = 0.0;
}

int drape_string_is_held(const drape_string *s) { return s->held; }

void drape_string_target(const drape_string *s, double out[2]) {
  out[0] = s->target[0];
  out[1] = s->target[1];
}

int drape_string_tick(drape_string *s, drape_err *e) {
  int done = 0;
  while (!done) {
    int rc = dr_string_substep(s, &done, e);
    if (rc) return rc;
  }
  return DRAPE_OK;
}

/* Ticks needed to reach t_end from time 0, to the nearest tick. A t_end
 * past DRAPE_STRING_MAX_TICKS ticks is refused: (long)floor(t/h + 0.5)
 * overflows long long before 1e19 and double counts ticks exactly only up
 * to 2^53, and a billion ticks is already days of CPU time. */
static int ticks_for(const drape_string *s, double t_end, long *goal, drape_err *e) {
  const double q = t_end / s->p.h;
  char a[40], b[40];
  if (!isfinite(t_end) || !(q <= DRAPE_STRING_MAX_TICKS))
    return drape_fail(e, DRAPE_EINVAL,
                      "string: t_end = %s s with h = %s s is %.3g ticks: at most %.0e ticks "
                      "(t_end / h <= %.0e; a larger h or a shorter run)",
                      num_text(t_end, a, sizeof a), num_text(s->p.h, b, sizeof b), q, DRAPE_STRING_MAX_TICKS, DRAPE_STRING_MAX_TICKS);
  const double n = floor(q + 0.5);
  *goal = n > 0 ? (long)n : 0;
  return DRAPE_OK;
}

int drape_string_advance(drape_string *s, double t_end, double wall_budget_s,
                         drape_string_progress *progress, drape_err *e) {
  const double t0 = drape_now();
  long goal = 0;
  int rc = ticks_for(s, t_end, &goal, e);
  if (rc) return rc;
  const long ticks0 = s->ticks, sub0 = s->stats.substeps;
  int reached = 1;
  /* A tick left unfinished by an earlier budget stop is completed first. */
  while (s->ticks < goal || s->tick_left > 0.0) {
    int done = 0;
    rc = dr_string_substep(s, &done, e);
    if (rc) break;
    /* The budget is checked after each accepted substep (§7.13). */
    if (wall_budget_s > 0 && drape_now() - t0 >= wall_budget_s &&
        (s->ticks < goal || s->tick_left > 0.0)) {
      reached = 0;
      break;
    }
  }
  /* The energy balance once more at the end (a frame boundary). */
  if (!rc) rc = dr_string_check_energy(s, e);
  if (progress) {
    progress->time = drape_string_time(s);
    progress->reached = rc == DRAPE_OK && reached;
    progress->ticks = s->ticks - ticks0;
    progress->substeps = s->stats.substeps - sub0;
    progress->wall_s = drape_now() - t0;
  }
  return rc;
}

int drape_string_advance_scripted(drape_string *s, const drape_string_def *def, double t_end,
                                  drape_err *e) {
  long goal = 0;
  int rc0 = ticks_for(s, t_end, &goal, e);
  if (rc0) return rc0;
  const double h = s->p.h;
  if (s->tick_left > 0.0) {
    int rc = drape_string_tick(s, e);
    if (rc) return rc;
  }
  while (s->ticks < goal) {
    const double t = (double)s->ticks * h;
    const int n = def->n_hand;
    const double(*k)[3] = (const double(*)[3])def->hand;
    /* "ticks after T are free": a tick starting at or after release_at runs
     * free; the tolerance absorbs k*h round-off. */
    if (!s->script_released && def->release_at >= 0 && t >= def->release_at - 1e-6 * h)
      s->script_released = 1;
    if (s->script_released || n == 0 || t < k[0][0] - 1e-6 * h) {
      /* Free: after release_at, without a hand, or before its first time. */
      drape_string_release(s);
    } else {
      double x, y;
      if (t >= k[n - 1][0]) {
        x = k[n - 1][1];
        y = k[n - 1][2];
      } else {
        int j = 0;
        while (j + 1 < n && k[j + 1][0] <= t) j++;
        const double span = k[j + 1][0] - k[j][0];
        const double a = span > 0 ? (t - k[j][0]) / span : 1.0;
        x = k[j][1] + a * (k[j + 1][1] - k[j][1]);
        y = k[j][2] + a * (k[j + 1][2] - k[j][2]);
        if (t <= k[0][0]) {
          x = k[0][1];
          y = k[0][2];
        }
      }
      drape_string_grab(s, x, y);
    }
    int rc = drape_string_tick(s, e);
    if (rc) return rc;
  }
  return dr_string_check_energy(s, e);
}

int drape_string_run(drape_string *s, const drape_string_def *def, const double *times, int n,
                     drape_string_visit at, void *user, int *done, drape_err *e) {
  int rc = DRAPE_OK, k = 0;
  for (; k < n && !rc; k++) {
    if ((rc = drape_string_advance_scripted(s, def, times[k], e))) break;
    char bad[200];
    if (drape_string_find_nonfinite(s, bad, sizeof bad) >= 0) {
      rc = drape_fail(e, DRAPE_EUNSTABLE, "string: %s", bad);
      break;
    }
    if (at && (rc = at(user, k, s))) break;
  }
  if (done) *done = k;
  return rc;
}

int drape_string_node_count(const drape_string *s) { return s->N + 1; }
const double *drape_string_positions(const drape_string *s) { return s->r; }
const double *drape_string_velocities(const drape_string *s) { return s->v; }
const drape_string_params *drape_string_get_params(const drape_string *s) { return &s->p; }

double drape_string_time(const drape_string *s) {
  const double h = s->p.h;
  return (double)s->ticks * h + (s->tick_left > 0.0 ? h - s->tick_left : 0.0);
}

/* Turning angle at node i of the positions r (§7.10). */
static double turning(const drape_string *s, const double *r, int i) {
  const double ax = r[2 * i] - r[2 * i - 2], ay = r[2 * i + 1] - r[2 * i - 1];
  const double bx = r[2 * i + 2] - r[2 * i], by = r[2 * i + 3] - r[2 * i + 1];
  const double aa = ax * ax + ay * ay, bb = bx * bx + by * by;
  (void)s;
  if ((aa < bb ? aa : bb) < 1e-24) return 0.0;
  return atan2(ax * by - ay * bx, ax * bx + ay * by);
}

double drape_string_turning_angle(const drape_string *s, int i) {
  if (i < 1 || i >= s->N) return 0.0;
  return turning(s, s->r, i);
}

/* The energies of the state (r, v): the accepted one or a candidate. */
static void energies_of(const drape_string *s, const double *r, const double *v,
                        drape_string_energy *out) {
  const int N = s->N;
  const double ell0 = s->ell0, *g = s->p.gravity;
  drape_string_energy en = {0};
  for (int i = 0; i <= N; i++) {
    const double m = s->mass[i];
    en.kinetic += 0.5 * m * (v[2 * i] * v[2 * i] + v[2 * i + 1] * v[2 * i + 1]);
    en.gravitational -= m * (g[0] * r[2 * i] + g[1] * r[2 * i + 1]);
  }
  for (int i = 0; i < N; i++) {
    const double dx = r[2 * i + 2] - r[2 * i], dy = r[2 * i + 3] - r[2 * i + 1];
    const double ext = sqrt(dx * dx + dy * dy) - ell0;
    if (ext > 0) en.elastic += 0.5 * (s->p.EA / ell0) * ext * ext;
  }
  for (int i = 1; i < N; i++) {
    const double th = turning(s, r, i);
    en.bending += 0.5 * (s->p.B / ell0) * th * th;
  }
  en.total = en.kinetic + en.elastic + en.bending + en.gravitational;
  *out = en;
}

void drape_string_energies(const drape_string *s, drape_string_energy *out) {
  energies_of(s, s->r, s->v, out);
}

/* ---- divergence (include/drape/string.h, DRAPE_STRING_ENERGY_FACTOR) ---- */

void dr_string_energy_baseline(drape_string *s) {
  drape_string_energy en;
  energies_of(s, s->r, s->v, &en);
  const double M = s->p.mu * s->p.length;
  const double g = hypot(s->p.gravity[0], s->p.gravity[1]);
  s->energy0 = en.total;
  /* The energy scale: what the string holds at the start, what lifting it
   * by its own length costs, and its whole mass at the hand's speed cap.
   * The last term keeps S > 0 (hand_speed > 0) without gravity or motion. */
  s->scale0 = en.kinetic + en.elastic + en.bending + M * g * s->p.length +
              0.5 * M * s->speed_cap * s->speed_cap;
  s->hand_work = 0.0;
  s->hand_work_abs = 0.0;
  s->since_check = 0;
}

void dr_string_stiffest(const drape_string *s, char *buf, size_t cap) {
  /* Time scales of the stiff terms on one link, against the tick h: an
   * axial wave (speed sqrt(EA/mu)) crosses a link in l0 sqrt(mu/EA); the
   * shortest bending wave (wavelength ~ l0) has the time scale
   * l0^2 sqrt(mu/B). The elastic forces are explicit in the velocity solve
   * (§7.13: only friction is implicit), so a scale far below h makes the
   * substeps shrink without end. When neither is below h, the link length
   * itself (the movement limit 0.01 l0 per substep) is what needs the
   * substeps. */
  const double l0 = s->ell0, mu = s->p.mu, h = s->p.h;
  const double t_ea = s->p.EA > 0 ? l0 * sqrt(mu / s->p.EA) : INFINITY;
  const double t_b = s->p.B > 0 ? l0 * l0 * sqrt(mu / s->p.B) : INFINITY;
  char v[40];
  if (t_ea < h && t_ea <= t_b)
    snprintf(buf, cap,
             "stiffest parameter: EA = %s N (an axial wave crosses one link of L0/N = %.3g m "
             "at mu = %.3g kg/m in %.3g s, h/%.3g)",
             num_text(s->p.EA, v, sizeof v), l0, mu, t_ea, h / t_ea);
  else if (t_b < h)
    snprintf(buf, cap,
             "stiffest parameter: B = %s N m^2 (bending time scale (L0/N)^2 sqrt(mu/B) = "
             "%.3g s at L0/N = %.3g m, mu = %.3g kg/m, h/%.3g)",
             num_text(s->p.B, v, sizeof v), t_b, l0, mu, h / t_b);
  else
    snprintf(buf, cap,
             "stiffest parameter: length: links of L0/N = %.3g m (L0 = %s m, N = %d) let a "
             "substep move a node at most 0.01 L0/N = %.3g m",
             l0, num_text(s->p.length, v, sizeof v), s->N, 0.01 * l0);
}

/* E - E0 - W against the scale, for the state (r, v) with `work` the
 * hand's work of the substep that produced it (0 for the accepted state). */
static int check_energy_of(drape_string *s, const double *r, const double *v, double work,
                           drape_err *e) {
  drape_string_energy en;
  energies_of(s, r, v, &en);
  const double w = s->hand_work + work;
  const double scale = s->scale0 + s->hand_work_abs + fabs(work);
  const double excess = en.total - s->energy0 - w;
  if (excess <= DRAPE_STRING_ENERGY_FACTOR * scale) return DRAPE_OK;
  char why[400];
  dr_string_stiffest(s, why, sizeof why);
  return drape_fail(e, DRAPE_EUNSTABLE,
                    "string: energy blow-up at t = %.6g s: total energy %.4g J (kinetic %.3g) "
                    "exceeds the initial %.4g J plus the hand's work %.4g J by %.3g J, more "
                    "than %g x the energy scale %.3g J; %s",
                    drape_string_time(s), en.total, en.kinetic, s->energy0, w, excess,
                    DRAPE_STRING_ENERGY_FACTOR, scale, why);
}

int dr_string_check_energy(drape_string *s, drape_err *e) {
  s->since_check = 0;
  return check_energy_of(s, s->r, s->v, 0.0, e);
}

int dr_string_check_candidate(drape_string *s, double work, drape_err *e) {
  s->since_check = 0;
  return check_energy_of(s, s->pr, s->pv, work, e);
}

int drape_string_find_nonfinite(const drape_string *s, char *desc, size_t cap) {
  for (int i = 0; i <= s->N; i++) {
    const double *r = s->r + 2 * i, *v = s->v + 2 * i;
    const int bad_r = !isfinite(r[0]) || !isfinite(r[1]);
    if (bad_r || !isfinite(v[0]) || !isfinite(v[1])) {
      if (desc && cap)
        snprintf(desc, cap, "node %d %s = (%g, %g)", i, bad_r ? "position" : "velocity",
                 bad_r ? r[0] : v[0], bad_r ? r[1] : v[1]);
      return i;
    }
  }
  if (desc && cap) desc[0] = 0;
  return -1;
}

void drape_string_get_stats(const drape_string *s, drape_string_stats *out) {
  *out = s->stats;
  out->hand_work = s->hand_work;
}
