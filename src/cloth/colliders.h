/* Capsule and mesh colliders in the solver (kernels/colliders.cl has the
 * contact rule; docs/solver.md "Capsules and mesh colliders").
 *
 * Built once from the scene at sim creation: the capsules, every mesh
 * collider's triangles and vertices (rest pose) and one bounding volume
 * hierarchy per mesh, all trees in one node array in breadth-first order
 * (every level contiguous, the two children of a node adjacent), so a
 * refit is one launch per level, deepest first.
 *
 * Per frame (dr_colliders_begin, from the frame's begin): the poses at the
 * frame start and end from the keys (in double on the host), uploaded when
 * something moves, and the trees refitted over the frame's motion. Per
 * substep (dr_colliders_run): the sharp vertices' pass over the particles
 * near them, then one pass over all particles (balls, contact planes,
 * candidate lists), on the device (both kernel forms) or in the CPU
 * reference, from the same source. */
#ifndef DRAPE_CLOTH_COLLIDERS_H
#define DRAPE_CLOTH_COLLIDERS_H

#include "drape/scene.h"
#include "drape_types.h"

struct drape_sim;
typedef struct dr_colliders dr_colliders;

/* NULL in *out (and DRAPE_OK) when the scene has no capsule or collider. */
int dr_colliders_create(const drape_scene *sc, dr_colliders **out, drape_err *e);
void dr_colliders_destroy(dr_colliders *c);
/* After the backend is made (and again after a reset): device buffers and
 * kernels on OpenCL; marks the poses to be uploaded at the next frame. */
int dr_colliders_attach(struct drape_sim *s, drape_err *e);
/* Frame start: poses at s->time and s->time + dt, upload, refit. */
int dr_colliders_begin(struct drape_sim *s, drape_err *e);
/* One substep ending at t_end (s from the frame start). */
int dr_colliders_run(struct drape_sim *s, float t_end, drape_err *e);
/* Device memory held (bytes). */
uint64_t dr_colliders_bytes(const dr_colliders *c);

/* Reading them: drape_sim_n_capsules and the rest (drape/cloth.h),
 * implemented in colliders.c. */

/* Backends (accessors for this stage only). */
void dr_backend_cpu_particles(struct drape_sim *s, dr_float4 **x, dr_float4 **p,
                              const dr_object **mat);

#endif
