/* The scene's capsules and mesh colliders as one render mesh (grey
 * surfaces like the spheres), read through the solver's public API
 * (drape_sim_get_capsule, drape_sim_collider_mesh) and updated each frame
 * when they move. Used by drape_world_view (world_view.c). */
#ifndef DRAPE_RENDER_COLLIDER_VIEW_H
#define DRAPE_RENDER_COLLIDER_VIEW_H

#include "drape/cloth.h"
#include "drape/render.h"

typedef struct dr_collider_view dr_collider_view;

/* *out NULL (and DRAPE_OK) when the sim has no capsule or mesh collider. */
int dr_collider_view_create(drape_renderer *r, drape_sim *sim, const float rgb[3],
                            dr_collider_view **out, drape_err *e);
void dr_collider_view_destroy(dr_collider_view *v);
/* Positions and normals at the sim's current time (skipped when nothing
 * moves and they are uploaded). */
int dr_collider_view_update(dr_collider_view *v, drape_err *e);
/* Grows the box [bmin, bmax] by the colliders as last updated. */
void dr_collider_view_bounds(const dr_collider_view *v, float bmin[3], float bmax[3]);

#endif
