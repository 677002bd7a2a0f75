/* The implicit elastic cable of seed 003 (see include/drape/cable.h).
 *
 * Unknowns are all node coordinates, ordered node by node (x0 y0 [z0] x1 ...),
 * so a link couples two consecutive nodes and the Hessian has bandwidth
 * 2*dim - 1. Pinned coordinates are eliminated by replacing their rows and
 * columns with the identity and their gradient entries with zero: Newton
 * then never moves them. Seed 003 uses a 1e8 penalty spring for its pins;
 * elimination holds them exactly and keeps the matrix well conditioned. */
#include "drape/cable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/banded.h"

/* Keeps nodes * dim and the band's indices (ndof * 2 dim, banded.h) far
 * inside int: 10M nodes in 3D are 180M band entries, past any real use. */
#define DRAPE_CABLE_MAX_NODES 10000000

struct drape_cable {
  int n, dim, ndof, w;
  double k, l0, h;
  double g[3];
  drape_cable_integrator integ;
  int max_newton;
  double tol;
  double *x, *v, *x_prev, *v_prev; /* state now and one step back (BDF2)   */
  int have_prev;                   /* BDF2 bootstraps with one BE step      */
  double *m;                       /* lumped mass per node                  */
  unsigned char *pinned;           /* per dof                               */
  /* Newton workspace, allocated once. */
  double *target, *grad, *dir, *trial, *band;
  int last_iters;
};

drape_cable_def drape_cable_def_default(void) {
  drape_cable_def d;
  memset(&d, 0, sizeof d);
  d.dim = 2;
  d.ym = 40.0;
  d.rho = 1.0;
  d.gravity[1] = -9.8;
  d.h = 0.04;
  d.integrator = DRAPE_CABLE_BACKWARD_EULER;
  d.max_newton = 20;
  d.tol = 1e-9;
  return d;
}

static int finite_all(const double *a, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(a[i])) return 0;
  return 1;
}

/* DRAPE_EUNSTABLE naming the first node whose position (or else velocity)
 * is not finite, e.g. "cable diverged: node 7 position = (nan, 2, 0) after
 * a backward Euler step" (`when` = "after a backward Euler step");
 * DRAPE_OK when the whole state is finite. */
static int check_state(const drape_cable *c, const char *when, drape_err *e) {
  for (int pass = 0; pass < 2; pass++) {
    const double *a = pass ? c->v : c->x;
    for (int i = 0; i < c->n; i++) {
      const double *q = a + i * c->dim;
      if (finite_all(q, c->dim)) continue;
      if (c->dim == 3)
        return drape_fail(e, DRAPE_EUNSTABLE,
                          "cable diverged: node %d %s = (%g, %g, %g) %s", i,
                          pass ? "velocity" : "position", q[0], q[1], q[2], when);
      return drape_fail(e, DRAPE_EUNSTABLE, "cable diverged: node %d %s = (%g, %g) %s", i,
                        pass ? "velocity" : "position", q[0], q[1], when);
    }
  }
  return DRAPE_OK;
}

/* The def with every zero field that has a default replaced by it (see
 * include/drape/cable.h: zero means the default; nodes, x0 and gravity have
 * none). Only an exact 0 is replaced: a negative value is refused below. */
static drape_cable_def with_defaults(const drape_cable_def *in) {
  const drape_cable_def dd = drape_cable_def_default();
  drape_cable_def d = *in;
  if (d.dim == 0) d.dim = dd.dim;
  if (d.ym == 0) d.ym = dd.ym;
  if (d.rho == 0) d.rho = dd.rho;
  if (d.h == 0) d.h = dd.h;
  if (d.max_newton == 0) d.max_newton = dd.max_newton;
  if (d.tol == 0) d.tol = dd.tol;
  return d;
}

int drape_cable_create(const drape_cable_def *def, drape_cable **out, drape_err *e) {
  if (!out) return drape_fail(e, DRAPE_EINVAL, "cable: out is NULL");
  *out = NULL;
  if (!def) return drape_fail(e, DRAPE_EINVAL, "cable: no def given");
  const drape_cable_def dz = with_defaults(def);
  const drape_cable_def *d = &dz;
  if (d->nodes < 2 || d->nodes > DRAPE_CABLE_MAX_NODES)
    return drape_fail(e, DRAPE_EINVAL, "cable nodes = %d: must be in 2..%d (required)", d->nodes,
                      DRAPE_CABLE_MAX_NODES);
  if (d->dim != 2 && d->dim != 3)
    return drape_fail(e, DRAPE_EINVAL, "cable dim = %d: must be 2 or 3 (0: 2)", d->dim);
  if (!d->x0)
    return drape_fail(e, DRAPE_EINVAL, "cable x0 = NULL: initial positions are required");
  if (!(d->ym > 0) || !isfinite(d->ym))
    return drape_fail(e, DRAPE_EINVAL, "cable ym = %g: must be > 0 and finite (0: 40)", d->ym);
  if (!(d->rho > 0) || !isfinite(d->rho))
    return drape_fail(e, DRAPE_EINVAL, "cable rho = %g: must be > 0 and finite (0: 1)", d->rho);
  if (!(d->h > 0) || !isfinite(d->h))
    return drape_fail(e, DRAPE_EINVAL, "cable h = %g: must be > 0 and finite (0: 0.04)", d->h);
  if (d->integrator < 0 || d->integrator > DRAPE_CABLE_FORWARD_EULER)
    return drape_fail(e, DRAPE_EINVAL, "cable integrator = %d: unknown (0: backward Euler)",
                      (int)d->integrator);
  if (d->max_newton < 1)
    return drape_fail(e, DRAPE_EINVAL, "cable max_newton = %d: must be >= 1 (0: 20)",
                      d->max_newton);
  if (!(d->tol > 0) || !isfinite(d->tol))
    return drape_fail(e, DRAPE_EINVAL, "cable tol = %g: must be > 0 and finite (0: 1e-9)", d->tol);
  if (!(d->rest_length >= 0) || !isfinite(d->rest_length))
    return drape_fail(e, DRAPE_EINVAL,
                      "cable rest_length = %g: must be >= 0 and finite (0: from x0)",
                      d->rest_length);
  if (d->n_pins < 0 || (d->n_pins > 0 && !d->pins))
    return drape_fail(e, DRAPE_EINVAL, "cable n_pins = %d, pins = %s: must be >= 0, with an array",
                      d->n_pins, d->pins ? "set" : "NULL");
  int ndof = d->nodes * d->dim;
  if (!finite_all(d->x0, ndof) || (d->v0 && !finite_all(d->v0, ndof)) ||
      !finite_all(d->gravity, 3))
    return drape_fail(e, DRAPE_EINVAL, "cable x0/v0/gravity: contains NaN or infinity");
  for (int i = 0; i < d->n_pins; i++)
    if (d->pins[i] < 0 || d->pins[i] >= d->nodes)
      return drape_fail(e, DRAPE_EINVAL, "cable pins[%d] = %d: must be a node index 0..%d", i,
                        d->pins[i], d->nodes - 1);
  drape_cable *c = calloc(1, sizeof *c);
  if (!c) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  c->n = d->nodes;
  c->dim = d->dim;
  c->ndof = ndof;
  c->w = 2 * d->dim - 1;
  c->h = d->h;
  c->integ = d->integrator;
  c->max_newton = d->max_newton;
  c->tol = d->tol;
  memcpy(c->g, d->gravity, sizeof c->g);
  size_t nd = (size_t)ndof;
  c->x = calloc(nd, sizeof(double));
  c->v = calloc(nd, sizeof(double));
  c->x_prev = calloc(nd, sizeof(double));
  c->v_prev = calloc(nd, sizeof(double));
  c->target = calloc(nd, sizeof(double));
  c->grad = calloc(nd, sizeof(double));
  c->dir = calloc(nd, sizeof(double));
  c->trial = calloc(nd, sizeof(double));
  c->band = calloc(drape_banded_len(ndof, c->w), sizeof(double));
  c->m = calloc((size_t)c->n, sizeof(double));
  c->pinned = calloc(nd, 1);
  if (!c->x || !c->v || !c->x_prev || !c->v_prev || !c->target || !c->grad || !c->dir ||
      !c->trial || !c->band || !c->m || !c->pinned) {
    drape_cable_destroy(c);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  memcpy(c->x, d->x0, nd * sizeof(double));
  if (d->v0) memcpy(c->v, d->v0, nd * sizeof(double));
  /* One rest length for all links (the seed's cable is uniform). */
  double l0 = d->rest_length;
  if (!(l0 > 0)) {
    double sum = 0;
    for (int i = 0; i + 1 < c->n; i++) {
      double s = 0;
      for (int a = 0; a < c->dim; a++) {
        double dd = d->x0[(i + 1) * c->dim + a] - d->x0[i * c->dim + a];
        s += dd * dd;
      }
      sum += sqrt(s);
    }
    l0 = sum / (c->n - 1);
  }
  if (!(l0 > 0)) {
    drape_cable_destroy(c);
    return drape_fail(e, DRAPE_EINVAL, "cable rest length = %g: must be > 0 (nodes coincide)", l0);
  }
  c->l0 = l0;
  c->k = d->ym / (l0 * l0);
  /* Lumped mass: half of each link's rho*l0 to each of its nodes. */
  for (int i = 0; i + 1 < c->n; i++) {
    c->m[i] += 0.5 * d->rho * l0;
    c->m[i + 1] += 0.5 * d->rho * l0;
  }
  /* What the solve will use must be representable (issue 13): k = ym/l0^2
   * overflows for tiny links (l0 = 1e-300), a node mass rho*l0/2 can
   * underflow to 0, and the inertia term m/h^2 overflows for a tiny h. */
  const double m_end = 0.5 * d->rho * l0;
  if (!isfinite(c->k) || !(c->k > 0) || !(m_end > 0) || !isfinite(m_end) ||
      !isfinite(m_end / (d->h * d->h)) || !isfinite(c->k * l0)) {
    int rc = drape_fail(e, DRAPE_EINVAL,
               "cable rest length = %g m, ym = %g N m, rho = %g kg/m, h = %g s: the spring "
               "stiffness ym/l0^2 = %g N/m, end node mass rho*l0/2 = %g kg and m/h^2 = %g must be "
               "finite and > 0 (a longer link, or values nearer 1)",
               l0, d->ym, d->rho, d->h, c->k, m_end, m_end / (d->h * d->h));
    drape_cable_destroy(c); /* after the message: it reads c->k */
    return rc;
  }
  for (int i = 0; i < d->n_pins; i++)
    for (int a = 0; a < c->dim; a++) c->pinned[d->pins[i] * c->dim + a] = 1;
  for (int i = 0; i < ndof; i++)
    if (c->pinned[i]) c->v[i] = 0;
  *out = c;
  return DRAPE_OK;
}

void drape_cable_destroy(drape_cable *c) {
  if (!c) return;
  free(c->x); free(c->v); free(c->x_prev); free(c->v_prev);
  free(c->target); free(c->grad); free(c->dir); free(c->trial);
  free(c->band); free(c->m); free(c->pinned);
  free(c);
}

int drape_cable_nodes(const drape_cable *c) { return c->n; }
const double *drape_cable_positions(const drape_cable *c) { return c->x; }
const double *drape_cable_velocities(const drape_cable *c) { return c->v; }
int drape_cable_last_iterations(const drape_cable *c) { return c->last_iters; }

void drape_cable_set_pin(drape_cable *c, int node, const double *pos) {
  if (node < 0 || node >= c->n || !c->pinned[node * c->dim]) return;
  for (int a = 0; a < c->dim; a++) c->x[node * c->dim + a] = pos[a];
}

/* Potential Phi(x) = springs + gravity (seed 003 §3), in J. */
static double potential(const drape_cable *c, const double *x, double *elastic, double *grav) {
  double el = 0, gr = 0;
  for (int i = 0; i + 1 < c->n; i++) {
    double s = 0;
    for (int a = 0; a < c->dim; a++) {
      double dd = x[(i + 1) * c->dim + a] - x[i * c->dim + a];
      s += dd * dd;
    }
    double st = sqrt(s) - c->l0;
    el += 0.5 * c->k * st * st;
  }
  for (int i = 0; i < c->n; i++)
    for (int a = 0; a < c->dim; a++) gr -= c->m[i] * c->g[a] * x[i * c->dim + a];
  if (elastic) *elastic = el;
  if (grav) *grav = gr;
  return el + gr;
}

/* Objective of one implicit solve: Phi(x) + |x - target|_M^2 / (2 hh^2);
 * hh = 0 means quasi-static (no inertia term). */
static double objective(const drape_cable *c, const double *x, double hh) {
  double f = potential(c, x, NULL, NULL);
  if (hh > 0) {
    double inertia = 0;
    for (int i = 0; i < c->ndof; i++) {
      double dd = x[i] - c->target[i];
      inertia += c->m[i / c->dim] * dd * dd;
    }
    f += inertia / (2 * hh * hh);
  }
  return f;
}

/* Gradient into c->grad and the banded Hessian into c->band (pinned rows
 * and columns replaced by the identity). The spring Hessian
 *   k [ n n^T + (1 - l0/l)(I - n n^T) ]
 * is made positive semi-definite by clamping (1 - l0/l) at zero for
 * compressed links, the usual projection for Newton on mass-spring energies
 * (otherwise a slack link's negative transverse stiffness could make the
 * Newton direction point uphill). `reg` adds reg * M to the diagonal. */
static void assemble(drape_cable *c, const double *x, double hh, double reg) {
  const int dim = c->dim, w = c->w, nd = c->ndof;
  memset(c->grad, 0, (size_t)nd * sizeof(double));
  memset(c->band, 0, drape_banded_len(nd, w) * sizeof(double));
  for (int i = 0; i < c->n; i++)
    for (int a = 0; a < dim; a++) {
      int r = i * dim + a;
      double diag = reg * c->m[i];
      c->grad[r] -= c->m[i] * c->g[a];
      if (hh > 0) {
        c->grad[r] += c->m[i] * (x[r] - c->target[r]) / (hh * hh);
        diag += c->m[i] / (hh * hh);
      }
      *drape_banded_at(c->band, w, r, r) += diag;
    }
  for (int i = 0; i + 1 < c->n; i++) {
    double d[3] = {0, 0, 0}, s = 0;
    for (int a = 0; a < dim; a++) {
      d[a] = x[(i + 1) * dim + a] - x[i * dim + a];
      s += d[a] * d[a];
    }
    double l = sqrt(s);
    if (l <= 0) continue; /* coincident nodes: no direction, no force */
    double n[3] = {d[0] / l, d[1] / l, d[2] / l};
    double fmag = c->k * (l - c->l0); /* dpsi/dl */
    for (int a = 0; a < dim; a++) {
      c->grad[i * dim + a] -= fmag * n[a];
      c->grad[(i + 1) * dim + a] += fmag * n[a];
    }
    double t = 1.0 - c->l0 / l;
    if (t < 0) t = 0;
    /* Link block K (dim x dim); the 2dim x 2dim Hessian is [K -K; -K K]. */
    for (int a = 0; a < dim; a++)
      for (int b = 0; b < dim; b++) {
        double kab = c->k * (n[a] * n[b] + t * ((a == b ? 1.0 : 0.0) - n[a] * n[b]));
        int ra = i * dim + a, rb = (i + 1) * dim + a;
        int ca = i * dim + b, cb = (i + 1) * dim + b;
        if (ca <= ra) *drape_banded_at(c->band, w, ra, ca) += kab;  /* (i,i)     */
        if (cb <= rb) *drape_banded_at(c->band, w, rb, cb) += kab;  /* (i+1,i+1) */
        *drape_banded_at(c->band, w, rb, ca) -= kab;                 /* (i+1,i)   */
      }
  }
  /* Eliminate pinned coordinates. */
  for (int r = 0; r < nd; r++) {
    if (!c->pinned[r]) continue;
    c->grad[r] = 0;
    for (int k = 1; k <= w && r - k >= 0; k++) *drape_banded_at(c->band, w, r, r - k) = 0;
    for (int k = 1; k <= w && r + k < nd; k++) *drape_banded_at(c->band, w, r + k, r) = 0;
    *drape_banded_at(c->band, w, r, r) = 1.0;
  }
}

static double inf_norm(const double *a, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

/* Newton with backtracking (Armijo) line search on the objective. When the
 * Hessian is not positive definite (quasi-static start from a straight
 * cable at rest length has no transverse stiffness), a multiple of the mass
 * matrix is added until the factor succeeds (Levenberg-Marquardt style). */
static int newton(drape_cable *c, double hh, int max_iter, double tol, int *iters, drape_err *e) {
  const int nd = c->ndof;
  int it = 0;
  for (; it < max_iter; it++) {
    assemble(c, c->x, hh, 0.0);
    if (inf_norm(c->grad, nd) < tol) break;
    double reg = 0.0;
    int ok = 0;
    for (int tries = 0; tries < 30; tries++) {
      if (dr_banded_factor(c->band, nd, c->w) == 0) { ok = 1; break; }
      reg = reg == 0.0 ? 1e-6 * c->k / c->m[1 % c->n] : reg * 10.0;
      assemble(c, c->x, hh, reg);
    }
    if (!ok)
      return drape_fail(e, DRAPE_EUNSTABLE, "cable Newton: Hessian not positive definite");
    for (int i = 0; i < nd; i++) c->dir[i] = -c->grad[i];
    dr_banded_solve(c->band, nd, c->w, c->dir);
    double slope = 0;
    for (int i = 0; i < nd; i++) slope += c->grad[i] * c->dir[i];
    double f0 = objective(c, c->x, hh), alpha = 1.0;
    int accepted = 0;
    for (int ls = 0; ls < 40; ls++) {
      for (int i = 0; i < nd; i++) c->trial[i] = c->x[i] + alpha * c->dir[i];
      double f1 = objective(c, c->trial, hh);
      if (isfinite(f1) && f1 <= f0 + 1e-4 * alpha * slope) { accepted = 1; break; }
      alpha *= 0.5;
    }
    if (!accepted) break; /* no descent left at round-off level: converged */
    memcpy(c->x, c->trial, (size_t)nd * sizeof(double));
    if (alpha * inf_norm(c->dir, nd) < 1e-14 * (1.0 + inf_norm(c->x, nd))) { it++; break; }
  }
  if (iters) *iters = it;
  if (!finite_all(c->x, nd))
    return check_state(c, hh > 0 ? "after an implicit step" : "after the static solve", e);
  return DRAPE_OK;
}

int drape_cable_solve_static(drape_cable *c, int max_iter, double tol, int *iterations,
                             drape_err *e) {
  int rc = check_state(c, "before the static solve (set from outside?)", e);
  if (rc) return rc;
  rc = newton(c, 0.0, max_iter, tol, iterations, e);
  memset(c->v, 0, (size_t)c->ndof * sizeof(double));
  c->have_prev = 0;
  return rc;
}

int drape_cable_step(drape_cable *c, drape_err *e) {
  const int nd = c->ndof;
  const double h = c->h;
  /* A state made non-finite from outside (drape_cable_set_pin) is named as
   * such, not as the Newton failure it would cause. */
  int rc0 = check_state(c, "before the step (set from outside?)", e);
  if (rc0) return rc0;
  if (c->integ == DRAPE_CABLE_FORWARD_EULER) {
    /* y+ = (I + hA) y: positions move with the old velocity, velocities
     * with the force at the old positions (seed 003 §2 table). */
    assemble(c, c->x, 0.0, 0.0); /* grad = -force */
    for (int i = 0; i < nd; i++) {
      if (c->pinned[i]) continue;
      double vi = c->v[i];
      c->v[i] = vi - h * c->grad[i] / c->m[i / c->dim];
      c->x[i] += h * vi;
    }
    c->last_iters = 0;
    return check_state(c, "after a forward Euler step", e);
  }
  int bdf2 = c->integ == DRAPE_CABLE_BDF2 && c->have_prev;
  double hh = bdf2 ? 2.0 * h / 3.0 : h;
  /* Momentum target x~: BE x_n + h v_n; BDF2 (seed 003 §2:
   * (3I - 2hA) y+ = 4 y_n - y_{n-1}) eliminates v+ to
   * x~ = (4 x_n - x_{n-1})/3 + (2h/9)(4 v_n - v_{n-1}). */
  for (int i = 0; i < nd; i++) {
    if (bdf2)
      c->target[i] = (4.0 * c->x[i] - c->x_prev[i]) / 3.0 +
                     (2.0 * h / 9.0) * (4.0 * c->v[i] - c->v_prev[i]);
    else
      c->target[i] = c->x[i] + h * c->v[i];
    if (c->pinned[i]) c->target[i] = c->x[i];
  }
  /* x_prev takes x_n; the Newton start is the target. */
  for (int i = 0; i < nd; i++) {
    double tmp = c->x_prev[i];
    c->x_prev[i] = c->x[i];
    c->dir[i] = tmp; /* x_{n-1} */
    if (!c->pinned[i]) c->x[i] = c->target[i];
  }
  /* dir holds x_{n-1} only until newton() overwrites it; keep a copy in
   * v_prev's place after we have used v_prev for the target above. */
  for (int i = 0; i < nd; i++) c->v_prev[i] = c->dir[i];
  int rc = newton(c, hh, c->max_newton, c->tol, &c->last_iters, e);
  for (int i = 0; i < nd; i++) {
    double xm1 = c->v_prev[i]; /* x_{n-1} */
    double vn = c->v[i];
    if (bdf2)
      c->v[i] = (3.0 * c->x[i] - 4.0 * c->x_prev[i] + xm1) / (2.0 * h);
    else
      c->v[i] = (c->x[i] - c->x_prev[i]) / h;
    c->v_prev[i] = vn;
  }
  c->have_prev = 1;
  /* Velocities too: (x+ - x)/h can overflow where x+ is finite. */
  if (!rc) rc = check_state(c, bdf2 ? "after a BDF2 step" : "after a backward Euler step", e);
  return rc;
}

drape_cable_energy drape_cable_energies(const drape_cable *c) {
  drape_cable_energy en = {0, 0, 0};
  potential(c, c->x, &en.elastic, &en.gravity);
  for (int i = 0; i < c->ndof; i++) en.kinetic += 0.5 * c->m[i / c->dim] * c->v[i] * c->v[i];
  return en;
}

double drape_cable_sag(const drape_cable *c) {
  const int up = 1; /* y is up */
  double lowest = INFINITY, pin_low = INFINITY;
  for (int i = 0; i < c->n; i++) {
    double y = c->x[i * c->dim + up];
    if (y < lowest) lowest = y;
    if (c->pinned[i * c->dim] && y < pin_low) pin_low = y;
  }
  if (!isfinite(pin_low)) pin_low = 0;
  return lowest - pin_low;
}
