/* The seeds' other cloth and rope solvers, beside the default XPBD
 * (README "Other solvers and `drape compare`"):
 *
 *   "jakobsen" (seeds 002, 004)  per substep: verlet_predict ▸ drive ▸
 *                                iterations × (every colour, compliance 0)
 *                                ▸ collide ▸ update_velocities ▸ tear
 *   "springs"  (seed 001)        per substep: [wind] ▸ springs_forces ▸
 *                                springs_advance ▸ drive ▸ [collide ▸
 *                                update_velocities when there are contacts
 *                                or kinematic particles]
 *
 * One solver per sim: every cloth and (non-implicit) rope of a scene uses
 * the same one; "implicit" ropes are the seed 003 cable, run on the CPU by
 * `drape run` (src/app/run_cables.c), not by drape_sim. step.c calls
 * sim_variant_substeps() in place of its XPBD substep loop when s->var is
 * set; the frame bracket (kinematics, spheres, normals, timings) is shared.
 * Each stage is one kernel (kernels/springs.cl, kernels/verlet.cl, and the
 * XPBD ones reused) and one cpu_<kernel> function of the same arithmetic
 * (springs_cpu.c). Tethers, wind (jakobsen) and self-collision are XPBD
 * stages the variants skip. */
#ifndef DRAPE_CLOTH_SOLVER_VARIANTS_H
#define DRAPE_CLOTH_SOLVER_VARIANTS_H

#include "drape/cloth.h"
#include "drape/scene.h"
#include "drape_types.h"

/* A spring longer than this many rest lengths means the explicit
 * integration has diverged (no cloth stretches 100-fold; past the
 * stability limit the error grows geometrically, so the check fires a few
 * steps after the blow-up starts, long before the numbers overflow). */
#define DRAPE_SPRINGS_BLOWUP 100.0f

typedef struct sim_variant sim_variant;

/* After the backend exists: checks that the scene's objects share one
 * solver, builds the springs' adjacency, creates the variant's buffers and
 * kernels. Leaves s->var NULL for XPBD. */
int sim_variant_create(drape_sim *s, const drape_scene *sc, drape_err *e);
void sim_variant_destroy(drape_sim *s);
/* After the backend's reset: clears the divergence flag. */
int sim_variant_reset(drape_sim *s, drape_err *e);
/* The frame's substeps of the variant (between begin_frame and normals). */
int sim_variant_substeps(drape_sim *s, drape_err *e);

/* The solver a sim runs (DRAPE_SOLVER_XPBD, _JAKOBSEN or _SPRINGS). */
drape_solver_kind drape_sim_solver(const drape_sim *s);
/* Springs: the undamped stability estimate of symplectic Euler, h below
 * sqrt(2 m_i / sum_j k_ij) for every particle (Gershgorin bound on the
 * largest eigenvalue of M^-1 K: omega^2 <= 2 sum k / m, stable for
 * h omega < 2). 0 for the other solvers. */
double drape_sim_springs_h_limit(const drape_sim *s);

/* CPU reference stages (springs_cpu.c): the arithmetic of the kernels of
 * the same name, in the same order. Each loop body is one work item. */
void cpu_springs_forces(const dr_float4 *x, dr_float4 *p, const dr_float4 *v, dr_float4 *vn,
                        const dr_int *obj, const dr_object *objects, const dr_int *adj_off,
                        const dr_int *adj_j, const dr_float4 *adj_prm, dr_int *diverged,
                        const dr_step_params *sp, float blowup);
void cpu_springs_advance(dr_float4 *x, dr_float4 *v, const dr_float4 *vn, dr_int *diverged,
                         const dr_step_params *sp);
void cpu_verlet_predict(dr_float4 *x, dr_float4 *p, const dr_int *obj, const dr_object *objects,
                        const dr_step_params *sp);

#endif
