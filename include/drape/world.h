/* drape — the world: one object that owns every object of a scene and
 * steps them as one (the only thing a command or an embedder needs).
 *
 *   drape_world_def def = drape_world_def_default();   // zero = defaults
 *   drape_world *w = NULL;
 *   if (drape_world_load("scenes/drape_sphere.json", &def, &w, &e)) ...;
 *   for (int f = 0; f < 120; f++)
 *     if (drape_world_step(w, &e)) ...;                   // one frame of dt
 *   drape_world_write_obj(w, "frame.obj", &e);
 *   drape_world_destroy(w);
 *
 * What it owns (README.md, "What drape is"):
 *   - cloths and ropes of any solver ("xpbd", "jakobsen", "springs") in one
 *     drape_sim (cloth.h) on OpenCL or the CPU reference;
 *   - implicit ropes ("solver": "implicit", the seed 003 cable, cable.h),
 *     stepped on the CPU with the scene's substeps;
 *   - seed 000 strings (string.h), advanced on a worker thread while the
 *     calling thread steps the device;
 *   - the colliders (spheres, floor) of the scene.
 * Every frame ends with the finiteness check of every object (cloth.h,
 * "Divergence"): a non-finite state stops the world with DRAPE_EUNSTABLE
 * and a message naming the object, the frame, the time and the particle or
 * node, before anything can read that state; every later step returns the
 * same error until drape_world_reset.
 *
 * Objects are numbered in this order: the drape_sim's cloths and ropes (as
 * in drape_mesh), then the implicit ropes, then the strings. */
#ifndef DRAPE_WORLD_H
#define DRAPE_WORLD_H

#include <stdint.h>
#include <stdio.h>

#include "drape/base.h"
#include "drape/cloth.h"
#include "drape/scene.h"
#include "drape/string.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drape_world drape_world;

/* How to run a world. A zeroed def means the defaults. */
typedef struct drape_world_def {
  drape_backend backend;  /* DRAPE_BACKEND_CL (0, default) or _CPU            */
  int use_device;         /* 0 (default): DRAPE_DEVICE, else the first device;
                             1: device_index                                   */
  int device_index;       /* OpenCL device (see `drape devices`)               */
  int profiling;          /* OpenCL: per-stage device times (drape_timings)    */
  struct drape_cl *cl;    /* optional: an OpenCL runtime to run on, not owned
                             (drape_cl.h; e.g. one sharing a GL context)       */
  drape_kernel_form kernel_form; /* 0: auto (cloth.h, DRAPE_KERNEL_FORM)       */
} drape_world_def;

drape_world_def drape_world_def_default(void);

/* Validates the scene (drape_scene_validate) and builds every object. The
 * world copies what it needs; the scene may be freed afterwards. */
int drape_world_create(const drape_scene *scene, const drape_world_def *def, drape_world **out,
                       drape_err *e);
/* drape_scene_load + drape_world_create. */
int drape_world_load(const char *path, const drape_world_def *def, drape_world **out,
                     drape_err *e);
void drape_world_destroy(drape_world *w); /* NULL is fine */

/* One frame of dt for every object. */
int drape_world_step(drape_world *w, drape_err *e);
/* Back to the state after create (time 0; grabs released; a divergence
 * cleared). Parameters edited on the sim keep their values. */
int drape_world_reset(drape_world *w, drape_err *e);

int drape_world_frame(const drape_world *w);    /* frames stepped since reset */
double drape_world_time(const drape_world *w);  /* s                           */
double drape_world_dt(const drape_world *w);    /* s per frame                 */

/* ---- interactive stepping (a viewer) ----
 * drape_world_step is for fixed frames (files, videos, tests). A viewer
 * chases the wall clock instead: drape_world_advance moves every object
 * towards target_time within a wall-clock budget (seed 000 §7.13: physics
 * gets a share of each drawn frame and falls behind rather than block):
 *   - the sim and the implicit cables by whole frames of dt while their
 *     time + dt/2 <= target_time; a frame always finishes, the budget is
 *     looked at between frames; before_frame (may be NULL) runs before each
 *     (e.g. to move a collider the user drags);
 *   - each string by its own ticks up to target_time with what is left of
 *     the budget, its hand following the scene's keyframes (release_at
 *     included) unless the caller has taken it (drape_world_string_take:
 *     then drape_string_grab / set_target / release on drape_world_string
 *     drive it).
 * The strings are advanced on the calling thread here. A failure stops the
 * world as drape_world_step does. */
typedef struct drape_world_advance_opts {
  double target_time;                        /* s                          */
  double wall_budget_s;                      /* 0: no budget (exact)       */
  int (*before_frame)(void *user, drape_err *e);
  void *user;
} drape_world_advance_opts;

typedef struct drape_world_progress {
  double time;      /* s every object has reached (the slowest)            */
  int reached;      /* 1 when that is target_time (within dt/2 for frames) */
  int frames;       /* sim frames stepped                                  */
} drape_world_progress;

int drape_world_advance(drape_world *w, const drape_world_advance_opts *o,
                        drape_world_progress *out, drape_err *e);
void drape_world_string_take(drape_world *w, int k);
/* 1 while string k's hand follows the scene's keyframes (it has some and
 * the caller has not taken it). */
int drape_world_string_scripted(const drape_world *w, int k);
/* String k as the scene gave it (name, z, hand keyframes, ...). */
const drape_string_def *drape_world_string_def(const drape_world *w, int k);

/* ---- objects ---- */
typedef enum {
  DRAPE_WORLD_CLOTH = 0,   /* triangles                                    */
  DRAPE_WORLD_ROPE = 1,    /* links; solver xpbd, jakobsen or springs       */
  DRAPE_WORLD_CABLE = 2,   /* links; an implicit rope (seed 003)            */
  DRAPE_WORLD_STRING = 3   /* links; a seed 000 string, in the plane z     */
} drape_world_kind;

typedef struct drape_world_object {
  char name[DRAPE_NAME_MAX];
  drape_world_kind kind;
  int n_points;            /* particles or nodes                            */
  int n_tris;              /* cloth triangles (0 otherwise)                 */
  int n_links;             /* rope, cable and string links (0 for cloth)    */
  double thickness;        /* m                                             */
  int scene_index;         /* its place in the scene's cloth, rope (ropes
                              and cables) or string array: what a render
                              def's colours are keyed by (render_def.h;
                              the world holds no presentation)            */
  int tears;               /* a cloth with tear_ratio > 0: triangles can go
                              (drape_world_read_tris)                     */
} drape_world_object;

int drape_world_object_count(const drape_world *w);
/* DRAPE_EINVAL for k out of range. */
int drape_world_get_object(const drape_world *w, int k, drape_world_object *out, drape_err *e);
/* Object k's points as n_points x 3 floats (m). Blocking on OpenCL. */
int drape_world_read_points(drape_world *w, int k, float *xyz, drape_err *e);
/* Object k's unit normals as n_points x 3 floats: a cloth's per-vertex
 * normals from the frame's normals pass; zeros for ropes, cables, strings. */
int drape_world_read_normals(drape_world *w, int k, float *xyz, drape_err *e);
/* Object k's links (n_links x 2) or triangles (n_tris x 3), as indices
 * into its own points; torn cloth triangles are left out, so the count
 * written (returned through *count, may be NULL) can be below n_tris. */
int drape_world_read_links(drape_world *w, int k, uint32_t *ab, drape_err *e);
int drape_world_read_tris(drape_world *w, int k, uint32_t *abc, int *count, drape_err *e);

/* 1 when the scene has a floor, its height (m) in *height (may be NULL). */
int drape_world_floor(const drape_world *w, double *height);

/* The cloth and rope solver (parameters, spheres, grabs, timings, stats;
 * cloth.h). Never NULL: without cloths and explicit ropes it is empty and
 * still holds the colliders. */
drape_sim *drape_world_sim(drape_world *w);
/* The device the world runs on: the OpenCL device's name, or
 * "CPU reference (1 thread)". */
const char *drape_world_device_name(drape_world *w);
/* DRAPE_EINVAL, naming the object, when `frames` frames of dt would pass a
 * solver's limit (a string's DRAPE_STRING_MAX_TICKS ticks): check before a
 * long run rather than fail at its end. */
int drape_world_check_frames(const drape_world *w, long frames, drape_err *e);
/* The last frame's profile (cloth.h: ms per stage and per colour, the
 * self-collision parts, bytes moved, launches): the sim's; the CPU
 * strings and cables run beside it and are in ms_frame only through
 * drape_world_step's wall time, not here. */
void drape_world_get_timings(drape_world *w, drape_timings *out);

/* ---- statistics of the last frame ---- */
typedef struct drape_world_object_stats {
  /* stretch links, e = |x_a - x_b| / rest - 1 (cloth.h); strings: 0 */
  double max_strain, mean_strain, mean_abs_strain, min_strain;
  int torn;                /* constraints torn so far (cloth)               */
  double lowest;           /* m: lowest y of its particles (cloth, rope;
                              NAN for strings and cables)                   */
  double covered_area;     /* m^2: a cloth's shadow on the x-z plane
                              (drape_object_stats.covered_area); 0 else      */
  double drape_coefficient; /* a cloth with drape_disk_radius: the Cusick
                              drape coefficient (drape_object_stats); NAN
                              for every other object                       */
  double elastic_energy;   /* J stored in springs (springs solver) or in a
                              cable; 0 where constraints hold the shape    */
  double residual;         /* the solver's constraint residual, strain
                              (drape_object_stats.residual); NAN for
                              strings, cables and the springs solver       */
  /* cables only (NAN otherwise): */
  double sag;              /* m: lowest pin height minus lowest node height */
  double kinetic_energy;   /* J                                             */
  double gravity_energy;   /* J, relative to y = 0                          */
  int newton_iterations;   /* of the last step                              */
} drape_world_object_stats;

typedef struct drape_world_stats {
  int frame;
  double time;                  /* s                                        */
  double kinetic_energy;        /* J, the sim's free particles (cloth.h)    */
  double min_sphere_clearance;  /* m (INFINITY without spheres)             */
  double min_floor_clearance;   /* m (INFINITY without floor)               */
  int n_objects;                /* as drape_world_object_count             */
  const drape_world_object_stats *objects; /* owned by the world; valid
                                   until the next call                      */
  double max_drive_lag;         /* m, as drape_stats.max_drive_lag (cloth.h) */
} drape_world_stats;

/* Reads the state back (blocking on OpenCL) and computes every object's
 * statistics in double precision. DRAPE_EUNSTABLE on a non-finite state. */
int drape_world_get_stats(drape_world *w, drape_world_stats *out, drape_err *e);
/* Crossings of the cloths and ropes (cloth.h, drape_sim_count_crossings):
 * (edge, triangle) pairs with the edge through the triangle, counted
 * exactly; 0 while no cloth passes through itself or another. */
int drape_world_count_crossings(drape_world *w, long *count, drape_err *e);

/* Seed 000 string k (0-based among the strings), e.g. to hold its end. */
drape_string *drape_world_string(drape_world *w, int k);
int drape_world_string_count(const drape_world *w);
double drape_world_string_z(const drape_world *w, int k);

/* ---- picking, grabbing, moving colliders ----
 * Points are named by (object, point) as drape_world_read_points numbers
 * them. Grabs hold a cloth or rope point at a target the caller moves
 * (cloth.h, drape_sim_grab: linear over the substeps of each frame; on
 * release the point keeps the last frame's velocity). Cables and strings
 * are not grabbed here (a string's end: drape_world_string_take). */
/* The cloth or rope point nearest a ray (origin, unit dir) within
 * max_dist of it; *object = -1 when none. */
int drape_world_pick(drape_world *w, const double origin[3], const double dir[3], double max_dist,
                     int *object, int *point, drape_err *e);
int drape_world_grab(drape_world *w, int object, int point, const double target[3], int *grab_id,
                     drape_err *e);
int drape_world_grab_move(drape_world *w, int grab_id, const double target[3], drape_err *e);
int drape_world_grab_release(drape_world *w, int grab_id, drape_err *e);
/* Sphere collider k: centre (m) and velocity (m/s, carried for friction);
 * NULL leaves a field as it is. */
int drape_world_move_sphere(drape_world *w, int k, const double center[3], const double velocity[3],
                            drape_err *e);

/* ---- output ---- */
/* The whole world as one OBJ file: an `o` per object, `v` lines (m), `f`
 * for cloth triangles (torn ones left out), one `l a b` per link (so that
 * Blender, whose importer reads two vertices of an `l` line, gets every
 * link). Written to a temporary name and renamed: never half-written. */
int drape_world_write_obj(drape_world *w, const char *path, drape_err *e);

#ifdef __cplusplus
}
#endif
#endif
