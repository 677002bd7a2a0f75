/* drape — the render def: how a scene is presented (camera, image size,
 * the colours of its objects).
 *
 * Simulation and presentation are split (issue 14): drape_scene and
 * drape_world hold only what changes the simulated bits; the camera and
 * the render size live here and only the viewer, the headless renderer and
 * `drape run --png-dir/--video` read them. A scene file carries both: its
 * "camera" and "render" keys fill this def (docs/scenes.md), every other
 * key fills the drape_scene. drape_scene_load still checks these two keys
 * (same messages), so a scene file with a bad camera is refused by both.
 *
 * Solver library (no GL or OpenCL header here): a server that never draws
 * can still read and check a scene's camera. */
#ifndef DRAPE_RENDER_DEF_H
#define DRAPE_RENDER_DEF_H

#include "drape/base.h"
#include "drape/limits.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drape_camera_def {
  double eye[3], target[3];        /* m; defaults frame the scene (has_eye=0) */
  double fov_deg;                  /* vertical field of view, default 45      */
  int has_eye, has_target;
} drape_camera_def;

/* The look of one object of the scene, named by its place in the scene's
 * arrays: the scene keys cloth[i].color_front / color_back, rope[i].color
 * and string[i].color fill these (a rope's or string's back = front). */
typedef enum {
  DRAPE_LOOK_CLOTH = 0,            /* drape_scene.cloth[index]                */
  DRAPE_LOOK_ROPE = 1,             /* drape_scene.rope[index] (cables too)    */
  DRAPE_LOOK_STRING = 2            /* drape_scene.string[index]               */
} drape_look_kind;

typedef struct drape_object_look {
  drape_look_kind kind;
  int index;
  float color_front[3];            /* linear RGB 0..1                         */
  float color_back[3];             /* cloth: the other side                   */
} drape_object_look;

typedef struct drape_render_def {
  drape_camera_def camera;         /* scene key "camera"                      */
  int width, height;               /* scene key "render": px, default 1280x720*/
  int n_looks;                     /* objects given a colour; the others get
                                      their kind's default                   */
  drape_object_look *looks;        /* owned: drape_render_def_free            */
} drape_render_def;

/* fov 45 degrees, no eye or target (the renderer frames the scene's
 * bounds), 1280x720, no colours given (every object has its kind's
 * default: cloth orange in front, blue behind; ropes sand; strings amber). */
drape_render_def drape_render_def_default(void);
/* Frees the looks and resets *d to the defaults. A render def owns its
 * looks: copy one with drape_render_def_copy, not by assignment, when
 * both copies are freed. */
void drape_render_def_free(drape_render_def *d);
int drape_render_def_copy(drape_render_def *dst, const drape_render_def *src, drape_err *e);
/* Gives scene object (kind, index) its colours (back NULL: the same as
 * front), replacing an earlier entry. DRAPE_EINVAL for a negative index;
 * the values are checked by drape_render_def_validate. */
int drape_render_def_set_color(drape_render_def *d, drape_look_kind kind, int index,
                               const float front[3], const float back[3], drape_err *e);
/* The colours of scene object (kind, index): its entry, else the kind's
 * default. d may be NULL (the defaults). */
void drape_render_def_color(const drape_render_def *d, drape_look_kind kind, int index,
                            float front[3], float back[3]);

/* Checks every field against drape/limits.h; 0 or DRAPE_EINVAL with a
 * message naming the key path as a scene file spells it ("camera.fov_deg",
 * "render.width", "cloth[2].color_back[0]"), the value and the allowed
 * range (colour components 0..1). */
int drape_render_def_validate(const drape_render_def *d, drape_err *e);

/* Reads the "camera" and "render" keys and the objects' colour keys of a
 * JSON scene (text or file) into *out, starting from
 * drape_render_def_default(), and validates them. The text must be a
 * strict JSON object with only scene keys (the same syntax and key checks
 * as drape_scene_parse, the same messages, `label` and the file prefix
 * included); the simulation keys are not parsed here. On error *out holds
 * the defaults. Free *out with drape_render_def_free. */
int drape_render_def_parse(const char *json_text, const char *label, drape_render_def *out,
                           drape_err *e);
int drape_render_def_load(const char *scene_path, drape_render_def *out, drape_err *e);

#ifdef __cplusplus
}
#endif
#endif
