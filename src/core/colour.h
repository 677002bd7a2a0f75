/* Graph colouring of distance constraints (see colour.c). */
#ifndef DRAPE_CORE_COLOUR_H
#define DRAPE_CORE_COLOUR_H

#include "drape/base.h"
#include "drape_types.h"

/* The most colours the greedy colouring may use (a particle's set of used
 * colours is one 64-bit mask). A grid needs 12, a rope 2. */
#define DRAPE_MAX_COLOURS 64

/* Greedy colouring in the given order: each constraint takes the lowest
 * colour that none of the constraints already coloured at either of its
 * particles uses. Writes colour[i] for each constraint and *n_colours. */
int drape_colour_greedy(const dr_distance *c, int n, int n_particles, int *colour,
                        int *n_colours, drape_err *e);

/* Stable sort of c[] by colour. offsets[0..n_colours] gives each colour's
 * range; new_index[old] the new position of each constraint (may be NULL). */
int drape_colour_sort(dr_distance *c, int n, const int *colour, int n_colours, int *offsets,
                      int *new_index, drape_err *e);

/* Checks a coloured, sorted list: within each colour range no particle
 * appears twice. Returns 1 if valid; on failure *bad_colour names the first
 * colour that shares a particle (may be NULL). */
int drape_colour_valid(const dr_distance *c, const int *offsets, int n_colours, int n_particles,
                       int *bad_colour);

#endif
