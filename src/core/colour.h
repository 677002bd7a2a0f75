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
int dr_colour_greedy(const dr_distance *c, int n, int n_particles, int *colour,
                        int *n_colours, drape_err *e);
/* The same, visiting the constraints in order[0..n-1] (NULL: 0..n-1);
 * colour[] is still indexed by constraint. */
int dr_colour_greedy_ordered(const dr_distance *c, int n, int n_particles, const int *order,
                                int *colour, int *n_colours, drape_err *e);

/* Sort of c[] by colour, stable except that inside a colour the groups of
 * DR_PROJECT_LANES consecutive constraints that match a vector pattern
 * (dr_colour_lane_patterns) are moved ahead of the rest.
 * offsets[0..n_colours] gives each colour's range; new_index[old] the new
 * position of each constraint (may be NULL). */
int dr_colour_sort(dr_distance *c, int n, const int *colour, int n_colours, int *offsets,
                      int *new_index, drape_err *e);

/* Checks a coloured, sorted list: within each colour range no particle
 * appears twice. Returns 1 if valid; on failure *bad_colour names the first
 * colour that shares a particle (may be NULL). */
int dr_colour_valid(const dr_distance *c, const int *offsets, int n_colours, int n_particles,
                       int *bad_colour);

/* Memory pattern of each group of DR_PROJECT_LANES consecutive constraints
 * of a colour (the constraints one project_distance work item takes):
 * DR_GROUP_CONTIG when a and b each run over 8 consecutive particles,
 * DR_GROUP_EVENODD / DR_GROUP_PAIRS when the 16 ends are 16 consecutive
 * particles in one of the two orders the grid's horizontal families take,
 * DR_GROUP_GATHER otherwise (and for a colour's last, partial group).
 * Group g of colour k is pattern[group_off[k] + g]; group_off has
 * n_colours + 1 entries. Counts per pattern go to counts[4] (may be NULL). */
void dr_colour_lane_patterns(const dr_distance *c, const int *offsets, int n_colours,
                                unsigned char *pattern, int *group_off, long long counts[4]);
/* Groups in all colours: the length of the pattern array. */
int dr_colour_n_groups(const int *offsets, int n_colours);

#endif
