/* The seed 000 string: parameters, lifetime, hand, time stepping drivers,
 * energies. The tick itself is in string_step.c. */
#include <math.h>
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
  return p;
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
  if ((rc = check_num("length (L0, m)", p->length, 0.0, 1, e))) return rc;
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
  if ((rc = check_num("hand_reach (m; 0 = 1.15 L0)", p->hand_reach, 0.0, 0, e))) return rc;
  if ((rc = check_num("hand_speed (m/s)", p->hand_speed, 0.0, 1, e))) return rc;
  if ((rc = check_num("hand_response (s)", p->hand_response, 0.0, 1, e))) return rc;
  if ((rc = check_num("hand_accel (m/s^2)", p->hand_accel, 0.0, 1, e))) return rc;
  if (p->newton_max < 1 || p->newton_max > 1000000)
    return drape_fail(e, DRAPE_EINVAL, "string newton_max = %d: must be an integer in 1..1000000",
                      p->newton_max);
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
  s->script_released = 0;
  memset(&s->stats, 0, sizeof s->stats);
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

int drape_string_set_state(drape_string *s, const double *r, const double *v, drape_err *e) {
  for (int k = 0; k < s->size; k++)
    if (!isfinite(r[k]) || (v && !isfinite(v[k])))
      return drape_fail(e, DRAPE_EINVAL, "string state: coordinate %d (node %d) is not finite",
                        k, k / 2);
  memcpy(s->r, r, sizeof(double) * (size_t)s->size);
  if (v)
    memcpy(s->v, v, sizeof(double) * (size_t)s->size);
  else
    memset(s->v, 0, sizeof(double) * (size_t)s->size);
  if (s->p.pin_anchor) {
    /* The anchor is node 0's prescribed position. */
    s->p.anchor[0] = r[0];
    s->p.anchor[1] = r[1];
    s->v[0] = s->v[1] = 0.0;
  }
  s->tick_left = 0.0;
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
    int rc = drape__string_substep(s, &done, e);
    if (rc) return rc;
  }
  return DRAPE_OK;
}

/* Ticks needed to reach t_end from time 0, to the nearest tick. */
static long ticks_for(const drape_string *s, double t_end) {
  const double n = floor(t_end / s->p.h + 0.5);
  return n > 0 ? (long)n : 0;
}

int drape_string_advance(drape_string *s, double t_end, double wall_budget_s,
                         drape_string_progress *progress, drape_err *e) {
  const double t0 = drape_now();
  const long goal = ticks_for(s, t_end);
  const long ticks0 = s->ticks, sub0 = s->stats.substeps;
  int rc = DRAPE_OK, reached = 1;
  /* A tick left unfinished by an earlier budget stop is completed first. */
  while (s->ticks < goal || s->tick_left > 0.0) {
    int done = 0;
    rc = drape__string_substep(s, &done, e);
    if (rc) break;
    /* The budget is checked after each accepted substep (§7.13). */
    if (wall_budget_s > 0 && drape_now() - t0 >= wall_budget_s &&
        (s->ticks < goal || s->tick_left > 0.0)) {
      reached = 0;
      break;
    }
  }
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
  const long goal = ticks_for(s, t_end);
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
  return DRAPE_OK;
}

int drape_string_node_count(const drape_string *s) { return s->N + 1; }
const double *drape_string_positions(const drape_string *s) { return s->r; }
const double *drape_string_velocities(const drape_string *s) { return s->v; }
const drape_string_params *drape_string_get_params(const drape_string *s) { return &s->p; }

double drape_string_time(const drape_string *s) {
  const double h = s->p.h;
  return (double)s->ticks * h + (s->tick_left > 0.0 ? h - s->tick_left : 0.0);
}

double drape_string_turning_angle(const drape_string *s, int i) {
  if (i < 1 || i >= s->N) return 0.0;
  const double *r = s->r;
  const double ax = r[2 * i] - r[2 * i - 2], ay = r[2 * i + 1] - r[2 * i - 1];
  const double bx = r[2 * i + 2] - r[2 * i], by = r[2 * i + 3] - r[2 * i + 1];
  const double aa = ax * ax + ay * ay, bb = bx * bx + by * by;
  if ((aa < bb ? aa : bb) < 1e-24) return 0.0;
  return atan2(ax * by - ay * bx, ax * bx + ay * by);
}

void drape_string_energies(const drape_string *s, drape_string_energy *out) {
  const int N = s->N;
  const double ell0 = s->ell0, *r = s->r, *v = s->v, *g = s->p.gravity;
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
    const double th = drape_string_turning_angle(s, i);
    en.bending += 0.5 * (s->p.B / ell0) * th * th;
  }
  en.total = en.kinetic + en.elastic + en.bending + en.gravitational;
  *out = en;
}

void drape_string_get_stats(const drape_string *s, drape_string_stats *out) { *out = s->stats; }
