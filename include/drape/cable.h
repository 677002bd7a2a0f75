/* drape — the implicit elastic cable of seed 003 (CPU, double precision).
 *
 * A chain of springs with energy psi = 1/2 k (l - l0)^2 per link and
 * k = ym / l0^2 (seed 003 §1: dividing by l0^2 makes the energy independent
 * of the mesh), lumped masses rho * l0 (half at the ends), gravity, and
 * pinned nodes. Time integrators (seed 003 §2):
 *   - Forward Euler   y+ = (I + hA) y            (explicit; gains energy)
 *   - Backward Euler  minimise Phi(x) + |x - x~|_M^2 / (2 h^2)
 *   - BDF2            the same minimisation with h' = 2h/3 and the BDF2
 *                     momentum target (bootstrapped by one BE step)
 * and a quasi-static solve (minimise Phi alone, seed 003 §3). The implicit
 * steps are Newton iterations with a backtracking line search on the banded
 * Hessian, factored by the banded Cholesky of src/core/banded.h. */
#ifndef DRAPE_CABLE_H
#define DRAPE_CABLE_H

#include "drape/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  DRAPE_CABLE_BACKWARD_EULER = 0, /* default */
  DRAPE_CABLE_BDF2 = 1,
  DRAPE_CABLE_FORWARD_EULER = 2
} drape_cable_integrator;

/* A zeroed def means the defaults, except for what has none: `nodes` and
 * `x0` are required (create refuses 0 / NULL naming the field) and
 * `gravity` is taken as given, since (0, 0, 0) is a valid choice (no
 * gravity); drape_cable_def_default() sets (0, -9.8, 0). Exactly zero means
 * the default for dim, ym, rho, h, max_newton and tol (zero is not a valid
 * value for any of them), for rest_length (from x0), integrator (backward
 * Euler), v0 (at rest) and n_pins (none). Negative or non-finite values are
 * refused with DRAPE_EINVAL naming the field. */
typedef struct drape_cable_def {
  int nodes;             /* >= 2 (required)                                   */
  int dim;               /* 2 or 3 coordinates per node, default 2            */
  const double *x0;      /* nodes*dim initial positions in m (required)       */
  const double *v0;      /* nodes*dim initial velocities in m/s, NULL = rest  */
  double rest_length;    /* m per link; 0: mean |x0[i+1]-x0[i]| of the links  */
  double ym;             /* N m: k = ym / l0^2 (seed 003), default 40         */
  double rho;            /* kg/m mass per length, default 1                   */
  double gravity[3];     /* m/s^2; not defaulted (see above): (0, -9.8, 0) in
                            drape_cable_def_default()                          */
  double h;              /* s time step, default 0.04 (seed 003)              */
  drape_cable_integrator integrator;
  int n_pins;
  const int *pins;       /* pinned node indices (held at x0)                  */
  int max_newton;        /* Newton iterations per step, default 20            */
  double tol;            /* Newton stops when |grad|_inf < tol, default 1e-9  */
} drape_cable_def;

typedef struct drape_cable drape_cable;

drape_cable_def drape_cable_def_default(void);
/* The library's one creation style (as drape_world_create, drape_sim_create,
 * drape_string_create): 0 and *out set, or a DRAPE_E* code with *out = NULL
 * and e naming the field. DRAPE_EINVAL on bad input, including values the
 * solve cannot represent: stiffness ym/l0^2, node mass rho*l0/2 and m/h^2
 * must come out finite and > 0 (a rest length of 1e-300 m fails here). */
int drape_cable_create(const drape_cable_def *def, drape_cable **out, drape_err *e);
void drape_cable_destroy(drape_cable *c); /* NULL is fine */

/* One time step of length def.h with the chosen integrator. Returns
 * DRAPE_EUNSTABLE when a position or velocity becomes non-finite, naming
 * the first such node: "cable diverged: node 7 position = (nan, 2, 0) after
 * a backward Euler step". */
int drape_cable_step(drape_cable *c, drape_err *e);
/* Quasi-static: minimise the potential (no inertia) from the current
 * positions; velocities are set to zero. *iterations (may be NULL) gets the
 * Newton iterations used. */
int drape_cable_solve_static(drape_cable *c, int max_iter, double tol, int *iterations,
                             drape_err *e);

int drape_cable_nodes(const drape_cable *c);
const double *drape_cable_positions(const drape_cable *c); /* nodes*dim */
const double *drape_cable_velocities(const drape_cable *c);
/* Moves a pinned node (a scripted support); ignored for free nodes. */
void drape_cable_set_pin(drape_cable *c, int node, const double *pos);

typedef struct drape_cable_energy {
  double kinetic, elastic, gravity; /* J; gravity relative to y = 0 */
} drape_cable_energy;
drape_cable_energy drape_cable_energies(const drape_cable *c);
/* Lowest node height minus the lowest pin height (negative = sag), m. */
double drape_cable_sag(const drape_cable *c);
/* Newton iterations of the last step (for reports). */
int drape_cable_last_iterations(const drape_cable *c);

#ifdef __cplusplus
}
#endif
#endif
