/* drape — drawing a world (the render library, libdrape_render).
 *
 * Two layers over drape/render.h, both fed only by the public world API:
 *
 *   drape_world_view  the render meshes of a drape_world: each cloth as a
 *                     two-sided surface with a woven 10 cm check, each rope,
 *                     implicit cable and seed 000 string as a tube; kept up
 *                     to date once per drawn frame (the solver's buffers go
 *                     to GL through CL/GL interop when the world runs on an
 *                     OpenCL runtime made for it, else through host memory),
 *                     the scene's floor and spheres, and a camera that frames
 *                     what is simulated. The viewer, `drape run` and
 *                     examples/embed_glfw.c draw worlds with it.
 *   drape_frames      a world's frames, headless (EGL, no display), to PNG
 *                     files and/or a video through ffmpeg: what
 *                     `drape run --png-dir/--video` is made of.
 *
 *   drape_world_def wd = drape_world_def_default();
 *   drape_frames_def fd = drape_frames_def_default();
 *   fd.video = "out.mp4";
 *   drape_frames *f = NULL;
 *   drape_frames_open(&fd, &scene, &look, &wd, &f, &e);  // sets wd.cl
 *   drape_world_create(&scene, &wd, &w, &e);
 *   drape_frames_attach(f, w, &e);
 *   for (...) { drape_world_step(w, &e); drape_frames_add(f, &e); }
 *   drape_frames_finish(f, &e);
 *   drape_world_destroy(w);
 *   drape_frames_destroy(f);      // after the world: it owns wd.cl
 *
 * Presentation (colours, camera, frame size) comes from a drape_render_def
 * (drape/render_def.h), never from the world. Every function needs the GL
 * context current (drape_frames makes its own). No OpenCL or GL header is
 * included here. */
#ifndef DRAPE_WORLD_VIEW_H
#define DRAPE_WORLD_VIEW_H

#include "drape/base.h"
#include "drape/render.h"
#include "drape/render_def.h"
#include "drape/scene.h"
#include "drape/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* A world's render meshes                                             */
/* ------------------------------------------------------------------ */

typedef struct drape_world_view drape_world_view;

typedef struct drape_world_view_def {
  const drape_render_def *look; /* colours and camera; NULL: the defaults
                                   (copied: may be freed after create)    */
  int cl_shares_gl;             /* the world's OpenCL runtime was made by
                                   drape_interop_cl_init with sharing on
                                   (interop.h): copy on the device        */
  int force_transfer;           /* 0: choose; else a drape_xfer_path
                                   (interop.h; tests and benchmarks)      */
} drape_world_view_def;

/* Builds the meshes of every object of w with renderer r (which then draws
 * them) and reads the world's state into them once. The view keeps w:
 * destroy the view before the world. */
int drape_world_view_create(drape_renderer *r, drape_world *w, const drape_world_view_def *d,
                            drape_world_view **out, drape_err *e);
void drape_world_view_destroy(drape_world_view *v); /* NULL is fine */

/* Copies the world's current state into the meshes (positions, normals,
 * torn triangles, strings and cables). Call after stepping, before
 * drawing. */
int drape_world_view_update(drape_world_view *v, drape_err *e);

/* What is to be drawn besides the meshes: the floor, the region of the
 * action (bounds_min/max: the objects at create, the spheres, each string's
 * reach, down to the floor) and the sphere colliders where they are now, as
 * grey balls in spheres[0 .. cap). Returns the number of spheres written
 * (s->n_spheres is set to it; the caller may append markers). The camera
 * frames the bounds at `aspect` (width / height), with the look's eye,
 * target and field of view where it gives them. */
int drape_world_view_scene(drape_world_view *v, float aspect, drape_render_sphere *spheres,
                           int cap, drape_render_scene *s);
/* Only the camera of drape_world_view_scene. */
void drape_world_view_camera(const drape_world_view *v, float aspect, drape_render_camera *out);

/* How the last update reached GL: "share", "hostptr", "map" (interop.h),
 * "host" (read back and uploaded) or "none" (no cloth or rope), and its
 * wall time in ms. */
const char *drape_world_view_transfer(const drape_world_view *v);
double drape_world_view_transfer_ms(const drape_world_view *v);

/* The colour of world object o: the look's entry for its scene object, or
 * the default of its kind (drape_render_def_color). */
void drape_world_view_color(const drape_world_view *v, const drape_world_object *o,
                            float front[3], float back[3]);

/* ------------------------------------------------------------------ */
/* A world's frames, headless: PNG files and video                     */
/* ------------------------------------------------------------------ */

typedef struct drape_frames drape_frames;

/* A zeroed def means the defaults. */
typedef struct drape_frames_def {
  const char *png_dir;  /* DIR/frame_NNNN.png (NULL: none)                  */
  const char *video;    /* a video through ffmpeg (NULL: none)              */
  int every;            /* render frames 1, 1 + every, ...; 0: every frame  */
  int width, height;    /* px; 0: the look's size (render def)              */
  int samples;          /* MSAA samples; 0: 4                               */
  int png_level;        /* zlib level 1..9; 0: 6                            */
  int frame_digits;     /* digits of the PNG frame number; 0: 4             */
  int interop;          /* drape_interop_mode (interop.h): 0 auto           */
  int total_frames;     /* for the progress line                            */
  int progress;         /* 1: a progress line and a summary on stderr       */
  int discard;          /* render and read back, write nothing (benchmarks) */
  const char *label;    /* prefix of what is printed; NULL: "drape"         */
} drape_frames_def;

drape_frames_def drape_frames_def_default(void);

/* Before drape_world_create. Checks the outputs (PNG folder writable,
 * ffmpeg on PATH for a video) and starts the capture, opens a headless GL
 * context and, when wd runs on OpenCL (backend CL, wd->cl NULL), makes
 * the OpenCL runtime on wd's device that shares that context (per
 * `interop`) and points wd->cl at it. The scene gives the frame time (the
 * video's rate is 1 / (dt every)), the look the camera and the size. *out
 * is set even on failure: drape_frames_destroy it. */
int drape_frames_open(const drape_frames_def *d, const drape_scene *scene,
                      const drape_render_def *look, drape_world_def *wd, drape_frames **out,
                      drape_err *e);
/* After drape_world_create: builds the world's view. */
int drape_frames_attach(drape_frames *f, drape_world *w, drape_err *e);
/* After each drape_world_step: renders the world's frame when its number
 * is 1, 1 + every, ... and hands it to the capture (PNG frame_<frame>). */
int drape_frames_add(drape_frames *f, drape_err *e);
/* Waits for the encoders and finishes the PNGs and the video. */
int drape_frames_finish(drape_frames *f, drape_err *e);
/* On failure instead of finish: stops the capture and removes a partial
 * video. Returns 1 when a capture was still open. */
int drape_frames_abort(drape_frames *f);
/* After drape_world_destroy (it may own the world's OpenCL runtime).
 * Aborts what was not finished. NULL is fine. */
void drape_frames_destroy(drape_frames *f);
/* Frames rendered so far and the mean ms per rendered frame spent in the
 * transfer to GL and in drawing + read-back (+ handing to the capture). */
void drape_frames_timings(const drape_frames *f, int *frames, double *ms_transfer,
                          double *ms_draw);

#ifdef __cplusplus
}
#endif
#endif
