/* drape — the render def: how a scene is presented (camera, image size).
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

typedef struct drape_render_def {
  drape_camera_def camera;         /* scene key "camera"                      */
  int width, height;               /* scene key "render": px, default 1280x720*/
} drape_render_def;

/* fov 45 degrees, no eye or target (the renderer frames the scene's
 * bounds), 1280x720. */
drape_render_def drape_render_def_default(void);

/* Checks every field against drape/limits.h; 0 or DRAPE_EINVAL with a
 * message naming the key path as a scene file spells it ("camera.fov_deg",
 * "render.width"), the value and the allowed range. */
int drape_render_def_validate(const drape_render_def *d, drape_err *e);

/* Reads the "camera" and "render" keys of a JSON scene (text or file) into
 * *out, starting from drape_render_def_default(), and validates them. The
 * text must be a strict JSON object with only scene keys (the same syntax
 * and key checks as drape_scene_parse, the same messages, `label` and the
 * file prefix included); the simulation keys are not parsed here. On error
 * *out holds the defaults. */
int drape_render_def_parse(const char *json_text, const char *label, drape_render_def *out,
                           drape_err *e);
int drape_render_def_load(const char *scene_path, drape_render_def *out, drape_err *e);

#ifdef __cplusplus
}
#endif
#endif
