/* The scene's capsule and collider lists (collider_defs.c), for scene.c,
 * scene_defs.c and validate.c: each a one-line hook there. */
#ifndef DRAPE_CORE_COLLIDER_DEFS_H
#define DRAPE_CORE_COLLIDER_DEFS_H

#include "drape/scene.h"

struct cJSON;
/* key is "capsule" or "collider"; arr the scene's array for it. */
int dr_collider_parse(drape_err *e, const char *key, const struct cJSON *arr, drape_scene *s);
/* Every collider's mesh file (after the whole text has parsed). */
int dr_collider_scene_load(drape_scene *s, const char *base_dir, drape_err *e);
int dr_collider_scene_validate(const drape_scene *s, drape_err *e);
void dr_collider_scene_free(drape_scene *s);
/* drape_collider_keys_apply in two parts, so that a mesh's vertices share
 * one pose: the keys' rotation (w, x, y, z) and translation at t, and a
 * point under it. */
void dr_keys_pose(const double (*keys)[7], int n_keys, double t, double q[4], double tr[3]);
void dr_pose_apply(const double q[4], const double tr[3], const double pivot[3], const double in[3],
                   double out[3]);

#endif
