/* Capsule and triangle-mesh colliders of a scene (docs/scenes.md,
 * "Capsules" and "Mesh colliders"; docs/solver.md has the contact rule).
 * Part of drape_scene (drape/scene.h): capsule[] and collider[].
 *
 * Both can move rigidly by keys: each key is (t s, tx, ty, tz m, rx, ry,
 * rz degrees): the collider turned by the rotation (about x, then y, then
 * z) about its pivot, then moved by the translation. Between keys the
 * translation is blended linearly and the rotation by slerp; before the
 * first key the first holds, after the last the last. The pivot is a
 * capsule's midpoint, or the centre of a mesh's bounding box as placed by
 * its mesh transform. */
#ifndef DRAPE_COLLIDER_H
#define DRAPE_COLLIDER_H

#include "drape/base.h"
#include "drape/limits.h" /* DRAPE_MAX_COLLIDER_TRIS, _KEYS, DRAPE_MAX_SEQUENCE_* */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drape_capsule_def {
  double a[3], b[3];               /* m, the ends of the axis                 */
  double radius;                   /* m (> 0)                                 */
  double friction;                 /* Coulomb mu (>= 0), default 0.3          */
  int n_keys;
  double (*keys)[7];               /* (t, tx, ty, tz, rx, ry, rz), owned      */
} drape_capsule_def;

typedef struct drape_collider_def {
  char name[64];                   /* default "collider<i>"                   */
  char *file;                      /* mesh.file as written, owned             */
  double scale;                    /* mesh.scale (> 0), default 1             */
  double translate[3];             /* mesh.translate m, default 0             */
  double rotate_deg[3];            /* mesh.rotate_deg, about x, y, z          */
  double friction;                 /* Coulomb mu (>= 0), default 0.3          */
  double thickness;                /* m (>= 0), default 0.005                 */
  int n_keys;
  double (*keys)[7];               /* as the capsule's, owned                 */
  /* the loaded mesh (owned): vertices welded, transformed by the mesh keys */
  int n_vertices;
  double *vertices;                /* 3 per vertex, m                         */
  int n_tris;
  int *tris;                       /* 3 per triangle                          */
  int closed;                      /* every edge has exactly two triangles    */
  /* A deforming collider: one mesh file per frame, the same triangles in
   * each (vertices blended linearly between frames, the last held). */
  char *seq_files;                 /* sequence.files: a pattern with one %d
                                      (e.g. "walk_%04d.obj"), or NULL; owned */
  double seq_fps;                  /* sequence.fps (> 0), default 30          */
  int seq_first;                   /* sequence.first: the first number, 1     */
  int seq_n;                       /* frames loaded                           */
  double *seq_vertices;            /* seq_n x n_vertices x 3, m, owned        */
} drape_collider_def;

drape_capsule_def drape_capsule_def_default(void);

drape_collider_def drape_collider_def_default(void);
void drape_capsule_def_free(drape_capsule_def *d);
void drape_collider_def_free(drape_collider_def *d);
/* Checks one def (index i names it in messages: "capsule[i].radius"). */
int drape_capsule_def_validate(const drape_capsule_def *d, int i, drape_err *e);
int drape_collider_def_validate(const drape_collider_def *d, int i, drape_err *e);
/* Reads collider i's mesh file (relative to base_dir unless absolute)
 * through the mesh cloth loader: welded, zero-area triangles dropped, the
 * mesh transform applied. */
int drape_collider_mesh_load(drape_collider_def *d, int i, const char *base_dir, drape_err *e);
/* The rigid motion of keys at time t: out = pivot + R (in - pivot) + T. */
void drape_collider_keys_apply(const double (*keys)[7], int n_keys, double t,
                               const double pivot[3], const double in[3], double out[3]);

#ifdef __cplusplus
}
#endif

#endif
