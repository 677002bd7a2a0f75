/* Internals of the seed 000 string solver (include/drape/string.h).
 *
 * One tick (string_step.c), as in seed 000 §7.12–7.13 and §7.17 tick():
 *
 *   tick ──▶ while time is left in the tick:
 *              part = min(left, 0.9 (0.01 l0) / v_max)            §7.13
 *              repeat up to 21 times:
 *                substep(part):
 *                  hand controller sets v_N (if held)              §7.15
 *                  terms from old positions (links, bends)         §7.9–7.10
 *                  velocity solve: active-set Newton,              §7.13
 *                    banded Cholesky (w = 5), line search
 *                  r* = r0 + part v*                               §7.12
 *                  contour projection, two sweeps                  §7.17
 *                accept if no node moved more than 0.01 l0,
 *                else part /= 2
 *
 * Every array is allocated once in drape_string_create(); a tick allocates
 * nothing. Coordinates are interleaved: index 2i is node i's x, 2i+1 its y. */
#ifndef DRAPE_STRING_INTERNAL_H
#define DRAPE_STRING_INTERNAL_H

#include "drape/string.h"

/* Band of the velocity system: two coordinates per node and terms over three
 * consecutive nodes give five sub-diagonals (§7.13). */
#define STRING_BAND_W 5
#define STRING_BAND_S (STRING_BAND_W + 1)

struct drape_string {
  drape_string_params p;
  int N;            /* links                                        */
  int size;         /* 2 (N + 1) coordinates                        */
  double ell0;      /* rest length of one link, m                   */
  double reach, speed_cap; /* hand limits after defaults            */

  double *mass;     /* N+1 node masses (ends halved), kg            */
  double *masses;   /* size: mass per coordinate                    */
  double *inv_mass; /* N+1 (pinned anchor 0; held end set per call) */
  double *r, *v;    /* accepted state                               */
  double *pr, *pv;  /* substep prediction                           */

  /* Material terms from the old positions (§7.13 "frozen" gradients). */
  double *link_n;   /* 2N unit directions of stretched links        */
  double *link_e;   /* N elastic terms EA (l - l0)/l0               */
  unsigned char *link_on;   /* N: link stretched (a tension term)   */
  unsigned char *link_act;  /* N: active at the current iterate     */
  double *bend_g;   /* 6(N-1) angle gradients G_{i,i-1..i+1}        */
  double *bend_e;   /* N-1 elastic terms B theta / l0               */
  unsigned char *bend_on;   /* N-1: both links of nonzero length    */

  /* Velocity solve workspace, all size or size * STRING_BAND_S. */
  double *band, *bend_band;
  double *rhs, *bend_rhs;
  double *old, *cur, *cand, *trial;
  unsigned char *known;

  int held;
  double target[2];
  double init_end[2];

  long ticks;       /* completed ticks                              */
  double tick_left; /* s left in the tick in progress; 0 = none     */
  long tick_substeps; /* substeps accepted in the tick in progress  */
  int script_released;
  drape_string_stats stats;

  /* Energy balance (include/drape/string.h, DRAPE_STRING_ENERGY_FACTOR). */
  double energy0;   /* J, total energy at create/reset/set_state     */
  double scale0;    /* J, the fixed part of the energy scale S       */
  double hand_work; /* J, work done by the hand since then           */
  double hand_work_abs; /* J, sum of |work| per substep              */
  int since_check;  /* accepted substeps since the last energy check */
};

/* One accepted substep of the current tick (starting a tick when none is in
 * progress). *tick_done = 1 when that finished the tick. */
int dr_string_substep(drape_string *s, int *tick_done, drape_err *e);

/* Takes the current state as the energy baseline (E0, S; W = 0). */
void dr_string_energy_baseline(drape_string *s);
/* The energy balance check; DRAPE_EUNSTABLE on a blow-up. */
int dr_string_check_energy(drape_string *s, drape_err *e);
/* The same for the candidate state (s->pr, s->pv) of a substep whose hand
 * work is `work`, before it is accepted. */
int dr_string_check_candidate(drape_string *s, double work, drape_err *e);
/* Writes "EA = 1e+12 N (...)" etc.: the parameter whose time scale is the
 * shortest against h, for divergence messages. */
void dr_string_stiffest(const drape_string *s, char *buf, size_t cap);

#endif
