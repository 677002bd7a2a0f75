/* The seeds' other cloth and rope solvers, beside the default XPBD
 * (docs/solver.md "Other solvers"):
 *
 *   "jakobsen" (seeds 002, 004)  per substep: verlet ▸ drive ▸
 *                                iterations × (every colour, compliance 0)
 *                                ▸ collide ▸ update_velocities ▸ tear
 *   "springs"  (seed 001)        per substep: [wind] ▸ springs_forces ▸
 *                                springs_advance ▸ drive ▸ [collide ▸
 *                                update_velocities when there are contacts
 *                                or kinematic particles]
 *
 * One solver per sim: every cloth and (non-implicit) rope of a scene uses
 * the same one; "implicit" ropes are the seed 003 cable, run on the CPU
 * (src/world/cables.c), not by drape_sim. The substeps are in step.c, one
 * function per solver; their stages are sim_backend ops (sim.h), one kernel
 * each (kernels/verlet.cl, kernels/springs.cl and the XPBD ones reused) and
 * one cpu_<kernel> function of the same arithmetic (springs_cpu.c). What
 * is left here is what only these solvers have: the choice of solver, the
 * spring lists, the stability estimate and the divergence message.
 * Tethers, wind (jakobsen) and self-collision are XPBD stages the variants
 * skip. */
#ifndef DRAPE_CLOTH_SOLVER_VARIANTS_H
#define DRAPE_CLOTH_SOLVER_VARIANTS_H

#include "drape/cloth.h"
#include "drape/scene.h"
#include "drape_types.h"

typedef struct sim_variant sim_variant;

/* After the backend exists: checks that the scene's objects share one
 * solver, builds the springs' lists and hands them to the backend
 * (springs_create). Leaves s->var NULL for XPBD. */
int sim_variant_create(drape_sim *s, const drape_scene *sc, drape_err *e);
void sim_variant_destroy(drape_sim *s);

/* The solver a sim runs (DRAPE_SOLVER_XPBD, _JAKOBSEN or _SPRINGS). */
drape_solver_kind dr_sim_solver(const drape_sim *s);
/* Springs in the springs solver's lists (0 for the other solvers). */
int sim_variant_n_springs(const drape_sim *s);
/* Adds each spring's stored energy k/2 (|x_a - x_b| - rest)^2 (J, double
 * precision from the float4 positions x4) to per_object[its object]. */
void sim_variant_elastic_energy(const drape_sim *s, const float *x4, double *per_object);
/* Springs, after the frame's end_frame: the backend's divergence flag.
 * DRAPE_EUNSTABLE with the message naming the object, the frame, the
 * particle and the stability estimate (step.c keeps it until reset, as it
 * keeps the finiteness check's); DRAPE_OK otherwise and for the other
 * solvers. */
int sim_variant_check_after(drape_sim *s, drape_err *e);
/* Springs: the undamped stability estimate of symplectic Euler, h below
 * sqrt(2 m_i / sum_j k_ij) for every particle (Gershgorin bound on the
 * largest eigenvalue of M^-1 K: omega^2 <= 2 sum k / m, stable for
 * h omega < 2). 0 for the other solvers. */
double dr_sim_springs_h_limit(const drape_sim *s);

#endif
