/* The world's seed 000 strings (world.c): for drape_world_step the CPU
 * string solver advances every string to the frame's end time on a worker
 * thread while the calling thread steps the cloth solver (the host works
 * while the OpenCL device computes); for drape_world_advance they are
 * advanced on the calling thread within a wall-clock budget. */
#ifndef DRAPE_WORLD_STRINGS_H
#define DRAPE_WORLD_STRINGS_H

#include <stdio.h>

#include "drape/scene.h"
#include "drape/string.h"

typedef struct run_strings run_strings;

/* NULL *out (and 0) when the scene has no strings. */
int run_strings_create(const drape_scene *scene, run_strings **out, drape_err *e);
/* Before the run: DRAPE_EINVAL, naming the string, its h and t_end, when a
 * run to t_end would be more than DRAPE_STRING_MAX_TICKS (1e9) ticks of a
 * string (include/drape/string.h). OK for NULL. */
int run_strings_check_duration(const run_strings *rs, double t_end, drape_err *e);
/* Starts advancing every string to t_end (s) on the worker thread; the
 * k-th call is frame k (for messages). */
void run_strings_start(run_strings *rs, double t_end);
/* Waits for the worker; returns its first error. After each frame every
 * string's state is checked to be finite; a failure (DRAPE_EUNSTABLE from
 * the solver or a non-finite node) names the string, the frame and time:
 *   string "cord" diverged at frame 12 (t = 0.2 s): node 7 position = ...
 * A frame that failed leaves the strings at their last good state; the
 * caller must not write it out. */
int run_strings_wait(run_strings *rs, drape_err *e);
int run_strings_count(const run_strings *rs);
const drape_string *run_strings_get(const run_strings *rs, int k);
double run_strings_z(const run_strings *rs, int k);
const drape_string_def *run_strings_def(const run_strings *rs, int k); /* as in the scene */
drape_string *run_strings_at(run_strings *rs, int k);                 /* mutable: grabs */
/* Every string back to its start (after run_strings_wait), errors cleared,
 * hands back to the scene's keyframes. */
void run_strings_reset(run_strings *rs);
/* Interactive use (drape_world_advance; not with the worker's frames). The
 * scene's hand of string k at its time t: free before the first keyframe
 * and from release_at on, else held with the keyframes interpolated
 * linearly; nothing once the caller has taken the hand (run_strings_take). */
void run_strings_script_hand(run_strings *rs, int k, double t);
void run_strings_take(run_strings *rs, int k);
int run_strings_taken(const run_strings *rs, int k);
void run_strings_free(run_strings *rs);

#endif
