/* Implicit ropes ("solver": "implicit") of the world (world.c): each one is
 * the seed 003 cable (drape_cable, include/drape/cable.h, dim 3, Backward
 * Euler) stepped on the CPU in the same frame as the OpenCL cloth.
 *
 *   run_cables_prepare(scene)  -> the cables, and a view of the scene
 *                                 without them for drape_sim_create
 *   per frame: run_cables_step(substeps x h = dt / substeps)
 *   outputs:   run_cables_stats; positions through run_cables_cable */
#ifndef DRAPE_WORLD_CABLES_H
#define DRAPE_WORLD_CABLES_H

#include <stdio.h>

#include "drape/base.h"
#include "drape/cloth.h"
#include "drape/scene.h"

typedef struct run_cables run_cables;

/* Makes one cable per implicit rope of `sc` (none: *out gets an empty
 * set). *sim_scene becomes a shallow copy of sc whose rope list leaves the
 * implicit ropes out (its rope array is owned by *out; never pass it to
 * drape_scene_free). */
int run_cables_prepare(const drape_scene *sc, run_cables **out, drape_scene *sim_scene,
                       drape_err *e);
void run_cables_free(run_cables *c);
int run_cables_count(const run_cables *c);
const char *run_cables_name(const run_cables *c, int k);
int run_cables_nodes(const run_cables *c, int k);
struct drape_cable *run_cables_cable(run_cables *c, int k); /* the k-th cable itself */
int run_cables_scene_index(const run_cables *c, int k);      /* its rope[] index */

/* One frame of dt: `substeps` Backward Euler steps of h = dt / substeps.
 * Afterwards every node's position and velocity is checked; a non-finite
 * one (or a failed step) is DRAPE_EUNSTABLE with a message naming the rope,
 * the frame, its end time and the first bad node:
 *   rope "chain" (implicit cable, rope[0]) diverged at frame 12 (t = 0.2 s):
 *   node 7 position = (nan, 2, 0) after a backward Euler step */
int run_cables_step(run_cables *c, int frame, drape_err *e);
/* Back to the initial state. */
int run_cables_reset(run_cables *c, drape_err *e);

typedef struct run_cable_stats {
  double max_strain, mean_strain, mean_abs_strain, min_strain; /* as drape_object_stats */
  double sag;        /* m: lowest pin height minus lowest node height (> 0 = sagging) */
  double kinetic, elastic, gravity; /* J (gravity relative to y = 0)        */
  int newton;        /* Newton iterations of the last step                    */
} run_cable_stats;
void run_cables_stats(const run_cables *c, int k, run_cable_stats *out);


#endif
