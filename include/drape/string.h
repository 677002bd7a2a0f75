/* drape — the seed 000 elastic string on the CPU (seed 000 §7.7–7.18).
 *
 * N links of rest length l0 = L0/N join N+1 nodes in a vertical plane (x
 * right, y up). Node 0 is fixed at the anchor; node N is either held by a
 * "hand" that chases a target (§7.15) or free. Each tick of length h solves
 * the semi-implicit Euler velocity equation with internal friction implicit
 * (§7.12–7.13: an active-set Newton on a banded system, banded Cholesky),
 * advances positions, and applies the contour projection (§7.12/§7.17). A
 * tick is split into adaptive substeps so that no node moves more than
 * 0.01 l0 per substep (§7.13).
 *
 *     drape_string_params p = drape_string_params_default();
 *     p.links = 80;                                  // ... any field
 *     drape_string *s = NULL;
 *     if (drape_string_create(&p, &s, &err)) ...;    // straight, at rest, held
 *     drape_string_release(s);                       // let go of the end
 *     for (int k = 0; k < 1000; k++) drape_string_tick(s, &err);
 *     const double *r = drape_string_positions(s);   // x0,y0, x1,y1, ...
 *     drape_string_destroy(s);
 *
 * Interactive use (viewer): drape_string_grab(), drape_string_set_target()
 * each frame, drape_string_release() at any time, and
 * drape_string_advance() with a wall-clock budget (§7.13: the demo gives
 * physics ~8 ms per frame and runs slower than real time rather than block).
 * Scripted use (scene runner): drape_string_advance_scripted() with the
 * hand keyframes and release time of a drape_string_def.
 *
 * Nothing is allocated after drape_string_create(); every function except
 * create/destroy is allocation-free. A drape_string is not thread-safe; use
 * one per thread. Double precision throughout. */
#ifndef DRAPE_STRING_H
#define DRAPE_STRING_H

#include "drape/base.h"
#include "drape/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Model parameters, SI units. Defaults are seed 000's (§7.16/§7.17). */
typedef struct drape_string_params {
  int links;              /* N links (>= 2), N+1 nodes; default 80                  */
  double length;          /* L0 m, manufactured length (> 0); default 4             */
  double mu;              /* kg/m, mass per original length (> 0); default 0.02     */
  double EA;              /* N, axial stiffness EA0 (>= 0); default 100             */
  double etaA;            /* N s, extension friction eta A0 (>= 0); default 30      */
  double B;               /* N m^2, bending rigidity (>= 0); default 1e-4           */
  double D;               /* N m^2 s, bending friction (>= 0); default 1e-5         */
  double h;               /* s, nominal tick (> 0); default 1e-4                    */
  double gravity[2];      /* m/s^2; default (0, -9.81)                              */
  double anchor[2];       /* m, the fixed end (node 0); default (-0.4 L0, 0.65 L0)
                             = (-1.6, 2.6). The string starts straight, of length
                             L0, to the right of the anchor, at rest.               */
  int pin_anchor;         /* 1 (default): node 0 fixed, as in the seed. 0: node 0
                             free too (used for §7.18's momentum check).            */
  /* The hand (§7.15). For L0 = 4 these are the seed's 4.6 m and 6 m/s.
   * (The seed's Python writes them as 1.15 L0 and 1.5 L0; drape keeps the
   * reach relative to the string and the speed an absolute hand speed.) */
  double hand_reach;      /* m, target limited to this distance from the anchor;
                             0 (default) = 1.15 L0                                  */
  double hand_speed;      /* m/s, speed cap of the held end (> 0); default 6         */
  double hand_response;   /* s, critically damped response time; default 0.015      */
  double hand_accel;      /* m/s^2, acceleration cap; default 100                   */
  /* Newton iterations of the velocity solve per substep before the tick
   * fails (DRAPE_EUNSTABLE); default 200. The seed's Python stops at 40;
   * wherever it converges within 40 the results are the same, and fine
   * strings (N in the thousands) need ~50 while the straight start sags. */
  int newton_max;
  /* Accepted substeps allowed in one tick before the tick fails
   * (DRAPE_EUNSTABLE, naming the stiffest parameter); default 100000, range
   * 1..1000000000. The movement limit (0.01 l0 per substep, §7.13) makes
   * stiff strings (huge EA or B for their l0, mu and h) take ever smaller
   * substeps as they gain speed; without a cap such a tick never ends. The
   * seed's runs take 1-3 substeps per tick. */
  long substep_max;
} drape_string_params;

/* Limits of what the solver can simulate (checked by
 * drape_string_params_validate() and the advance functions):
 *  - the link length L0/N is at least DRAPE_STRING_MIN_LINK (1e-6 m): the
 *    movement limit per substep is 0.01 L0/N, and the geometry tests square
 *    link lengths against 1e-24 m^2 (bends of links shorter than 1e-12 m are
 *    skipped), so shorter links leave no margin and tinier ones (1e-300)
 *    underflow; L0 is at most DRAPE_STRING_MAX_LENGTH (1e6 m), and so is
 *    each anchor coordinate's magnitude (further out doubles no longer
 *    resolve 0.01 L0/N); the end node mass mu L0/(2N) is a normal double;
 *  - one run (drape_string_advance*, t_end from time 0) is at most
 *    DRAPE_STRING_MAX_TICKS (1e9) ticks: t_end / h <= 1e9. */
#define DRAPE_STRING_MIN_LINK 1e-6
#define DRAPE_STRING_MAX_LENGTH 1e6
#define DRAPE_STRING_MAX_TICKS 1e9

/* Divergence (DRAPE_EUNSTABLE from the stepping functions), checked every
 * DRAPE_STRING_ENERGY_EVERY accepted substeps and at the end of each
 * drape_string_advance*() call, besides the velocity solve's own failures:
 *  - a non-finite position or velocity is never accepted: the substep is
 *    halved and retried, and after 20 halvings the tick fails naming the
 *    first bad node ("node 7 position = nan");
 *  - energy blow-up: E - E0 - W > DRAPE_STRING_ENERGY_FACTOR * S, where E is
 *    the total energy (drape_string_energies), E0 its value at create, reset
 *    or set_state, W the work the hand has done since (the held end's
 *    velocity changes plus the force holding it times its motion), and S an
 *    energy scale: the initial kinetic, elastic and bending energies + the
 *    weight of the string lifted by its length (M |g| L0) + its mass at the
 *    hand's speed cap (M v_max^2 / 2) + the sum of |work| the hand has done.
 *    Friction and the contour projection only remove energy, so E - E0 - W
 *    stays <= 0 up to the scheme's error (measured: <= 0 on the seed's free
 *    and held runs and scenes/string_hand.json; 0.02 S held without any
 *    friction, etaA = D = 0); a blow-up grows it exponentially (EA or B =
 *    1e12 pass 100 S within the first 3 ticks);
 *  - more than substep_max substeps in one tick.
 * The messages name the stiffest parameter (EA, B or the link length) with
 * its time scale against h. */
#define DRAPE_STRING_ENERGY_EVERY 32
#define DRAPE_STRING_ENERGY_FACTOR 100.0

drape_string_params drape_string_params_default(void);

/* Checks every field; on error e->msg names the field, its value and the
 * allowed range (DRAPE_EINVAL). NaN and infinities are rejected everywhere. */
int drape_string_params_validate(const drape_string_params *p, drape_err *e);

/* Fills p from a scene's string definition (def->nodes is the link count N)
 * and the scene gravity (x, y components; the string lives in the plane
 * z = def->z). Validates the result. */
int drape_string_params_from_def(const drape_string_def *def, const double gravity[3],
                                 drape_string_params *p, drape_err *e);

typedef struct drape_string drape_string;

/* Creates a string in the initial state of §7.16: straight along +x from the
 * anchor, at rest, right end held with its target at its own position. */
int drape_string_create(const drape_string_params *p, drape_string **out, drape_err *e);
void drape_string_destroy(drape_string *s);

/* Back to the initial state (time 0, counters 0, held). */
void drape_string_reset(drape_string *s);

/* Replaces positions and velocities (2(N+1) doubles each, x0,y0,x1,y1,...;
 * v may be NULL for rest). A pinned anchor is moved to r[0] and its velocity
 * zeroed. Ends any tick in progress; the new state is the energy balance's
 * baseline. Rejects non-finite values and states whose energy overflows
 * (DRAPE_EINVAL), leaving the old state. */
int drape_string_set_state(drape_string *s, const double *r, const double *v, drape_err *e);

/* ---- the hand ---- */
/* Holds the right end (node N) with target (x, y) (clamped to hand_reach
 * from the anchor when used). Grabbing a free end keeps its velocity; the
 * hand controller then moves it smoothly towards the target. */
void drape_string_grab(drape_string *s, double x, double y);
/* Moves the target; ignored while the end is free. */
void drape_string_set_target(drape_string *s, double x, double y);
/* Lets go: sets only the end's velocity to zero (§7.15). No-op when free. */
void drape_string_release(drape_string *s);
int drape_string_is_held(const drape_string *s);
/* The current target (the unclamped value given), for drawing. */
void drape_string_target(const drape_string *s, double out[2]);

/* ---- time stepping ---- */
/* One tick of length h (finishes a tick left unfinished by an interrupted
 * drape_string_advance() instead). Errors: DRAPE_EUNSTABLE when the velocity
 * solve does not converge, a substep cannot be made small enough, the state
 * would become non-finite, the tick needs more than substep_max substeps, or
 * the energy blows up (see DRAPE_STRING_ENERGY_FACTOR above); the state is
 * then that of the last good substep, always finite. */
int drape_string_tick(drape_string *s, drape_err *e);

typedef struct drape_string_progress {
  double time;        /* s, simulated time reached                              */
  int reached;        /* 1 when t_end was reached, 0 when the budget ran out    */
  long ticks;         /* ticks completed by this call                           */
  long substeps;      /* substeps accepted by this call                         */
  double wall_s;      /* s, wall time this call took                            */
} drape_string_progress;

/* Runs ticks until the simulated time reaches t_end (to the nearest whole
 * tick, so time = round(t_end/h) h), with the current hold/target. A t_end
 * that is not finite or is more than DRAPE_STRING_MAX_TICKS ticks is
 * DRAPE_EINVAL (message naming t_end and h), before any tick. With
 * wall_budget_s > 0 it stops after the first accepted substep at which that
 * much wall time has passed, possibly in the middle of a tick (an ongoing
 * solve always finishes first, §7.13); the next call continues exactly where
 * it stopped, so interrupted and uninterrupted runs give identical bits.
 * wall_budget_s <= 0: no budget. progress may be NULL. */
int drape_string_advance(drape_string *s, double t_end, double wall_budget_s,
                         drape_string_progress *progress, drape_err *e);

/* Scene-runner stepping: runs whole ticks until time reaches t_end (nearest
 * tick), driving the hand from def as docs/scenes.md describes (only
 * def->hand, def->n_hand and def->release_at are read). Before each tick,
 * starting at time t:
 *  - the end is free when def has no hand keyframes, when t is before the
 *    first keyframe's time, or when release_at >= 0 and t >= release_at
 *    (from then on it stays free; release zeroes the end's velocity once);
 *  - otherwise it is held with the target given by the keyframes (t, x, y)
 *    interpolated linearly at t (the last one after the last time).
 * release_at = 0 releases before the first tick. Call once per frame with
 * t_end = the frame's end time. Errors as drape_string_advance(). */
int drape_string_advance_scripted(drape_string *s, const drape_string_def *def, double t_end,
                                  drape_err *e);

/* A scripted run through a list of times (what `drape string` and the
 * world's string worker do): for each times[k] in turn (s, increasing,
 * whole ticks), drape_string_advance_scripted to it, then the finiteness
 * check (drape_string_find_nonfinite; a bad state is DRAPE_EUNSTABLE,
 * "string: node 7 position = (nan, 2.6)"), then at(user, k, s) when `at`
 * is given (a non-zero return stops the run with that code). *done (may be
 * NULL) gets the number of times reached with a checked state, so a
 * caller knows which outputs are good when the run fails. */
typedef int (*drape_string_visit)(void *user, int k, const drape_string *s);
int drape_string_run(drape_string *s, const drape_string_def *def, const double *times, int n,
                     drape_string_visit at, void *user, int *done, drape_err *e);

/* ---- reading the state ---- */
int drape_string_node_count(const drape_string *s);      /* N + 1 */
const double *drape_string_positions(const drape_string *s);  /* 2(N+1): x,y pairs, m */
const double *drape_string_velocities(const drape_string *s); /* 2(N+1), m/s */
double drape_string_time(const drape_string *s);         /* s of simulated time */
const drape_string_params *drape_string_get_params(const drape_string *s);

typedef struct drape_string_energy {
  double kinetic;       /* J, sum 1/2 m |v|^2                                         */
  double elastic;       /* J, sum over stretched links 1/2 (EA/l0)(l - l0)^2           */
  double bending;       /* J, sum over bends 1/2 (B/l0) theta^2 (§7.10)                */
  double gravitational; /* J, -sum m g.r (zero at y = 0 for the default gravity)       */
  double total;         /* J, the sum of the four                                      */
} drape_string_energy;
void drape_string_energies(const drape_string *s, drape_string_energy *out);

typedef struct drape_string_stats {
  long ticks;           /* completed ticks                                            */
  long substeps;        /* accepted substeps                                          */
  long retries;         /* substeps rejected by the 0.01 l0 movement limit and halved  */
  long newton_iters;    /* velocity solves (banded factorizations)                     */
  int max_newton;       /* most solves one substep needed                              */
  long line_searches;   /* Newton iterations that changed the active set               */
  double hand_work;     /* J, work the hand did since create/reset/set_state (the W of
                           the energy balance above)                                  */
  long max_tick_substeps; /* most substeps one tick took (against substep_max)        */
} drape_string_stats;
void drape_string_get_stats(const drape_string *s, drape_string_stats *out);

/* -1 when every node's position and velocity is finite; otherwise the first
 * node that is not, and desc (may be NULL) gets e.g.
 * "node 7 position = (nan, 2.6)". The stepping functions never accept a
 * non-finite state; callers check before output all the same (issue 13). */
int drape_string_find_nonfinite(const drape_string *s, char *desc, size_t cap);

/* Turning angle theta_i (rad) between links i-1 and i, i = 1..N-1 (§7.10);
 * 0 when either link has zero length. */
double drape_string_turning_angle(const drape_string *s, int i);

#ifdef __cplusplus
}
#endif
#endif
