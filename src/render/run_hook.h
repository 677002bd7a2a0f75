/* The renderer's part of `drape run`: flags, headless GL + OpenCL set-up,
 * and one hook per frame that draws the solver's buffers and hands the
 * frame to the capture (PNG files, video). src/app/cmd_run.c calls these;
 * everything else lives in src/render.
 *
 *   parse_args:          cmd_run.c fills a dr_run_render_flags from the
 *                        render flags (allocates nothing)
 *   before the solver:   dr_run_render_prepare()  (validates the outputs,
 *                        opens EGL, creates the OpenCL runtime with GL
 *                        sharing per --interop, sets opts->cl)
 *   hooks[]:             begin / frame / end / abort
 *   after the solver:    dr_run_render_free()
 */
#ifndef DRAPE_RENDER_RUN_HOOK_H
#define DRAPE_RENDER_RUN_HOOK_H

#include "drape/cloth.h"
#include "drape/drape_cl.h"
#include "drape/world.h"
#include "drape/render.h"
#include "drape/render_def.h"
#include "drape/scene.h"

typedef struct dr_run_render dr_run_render;

/* The render flags of `drape run`; all zero = defaults (nothing rendered,
 * every frame, the render def's size, 4 samples, interop auto, PNG level 6). */
typedef struct dr_run_render_flags {
  const char *png_dir, *video;
  int every, width, height, samples, png_level, no_progress;
  int interop; /* drape_interop_mode */
  int discard;  /* render and read back, write nothing (benchmarks; no flag) */
  int frame_digits; /* PNG frame number digits (dr_frame_digits); 0: 4 */
  int size_set, every_set, samples_set, interop_set;
} dr_run_render_flags;




/* 1 when frames are to be rendered (--png-dir or --video given). */
int dr_run_render_active(const dr_run_render *rr);
/* 1 when the render hook prints the progress line (so the caller's own
 * progress line should stay quiet). */
int dr_run_render_owns_progress(const dr_run_render *rr);

/* Before drape_sim_create: checks the outputs (folder writable, ffmpeg on
 * PATH) and starts the capture, opens the headless GL context, and, for
 * the OpenCL backend, creates the OpenCL runtime (GL sharing per
 * --interop) and points opts->cl at it. *out stays NULL when nothing is
 * to be rendered; otherwise it is set even on failure (free it with
 * dr_run_render_free after drape_sim_destroy). The scene gives what is
 * simulated (objects, dt, floor); `view` (the scene file's render def,
 * drape_render_def_load; NULL = drape_render_def_default()) gives the
 * camera and the frame size, which --size overrides. */
int dr_run_render_prepare(const dr_run_render_flags *f, const drape_scene *scene,
                             const drape_render_def *view, int total_frames, drape_sim_opts *opts,
                             dr_run_render **out, drape_err *e);
int dr_run_render_begin(dr_run_render *rr, drape_sim *sim, drape_err *e);
/* After each step: renders when frame % every hits, hands the frame over. */
int dr_run_render_frame(dr_run_render *rr, drape_sim *sim, int frame, drape_err *e);
/* After the last frame: waits for the encoder, finishes the video, prints
 * where the frames went. */
int dr_run_render_end(dr_run_render *rr, drape_err *e);
/* On failure: stops the capture and removes the partial video. Returns 1
 * when a capture was still open (so a partial video, if any, was removed). */
int dr_run_render_abort(dr_run_render *rr);
/* After drape_sim_destroy: GL, OpenCL runtime, memory. NULL is fine. */
void dr_run_render_free(dr_run_render *rr);

/* Frames rendered so far and the mean ms per rendered frame spent in the
 * CL->GL transfer and in drawing + read-back (+ handing to the capture). */
void dr_run_render_timings(const dr_run_render *rr, int *frames, double *ms_transfer,
                              double *ms_draw);

/* Render objects for the solver's objects (m->n_objects entries): cloth as
 * two-sided surfaces with a 10 cm woven check (uv: 2 floats per particle,
 * in metres along the grid, from pos4), ropes as tubes as thick as their
 * collision margin. Shared by `drape run` and the viewer. */
void dr_run_render_objects(const drape_mesh *m, const float *pos4, drape_render_object *objs,
                              float *uv);

/* Host-simulated strings (the CPU string solver): positions of string k as
 * x,y pairs in the plane z, n_nodes of them; drawn as tubes with an end
 * marker from the next rendered frame on. k must be < the scene's
 * string count. */
int dr_run_render_set_string(dr_run_render *rr, int k, const double *xy, int n_nodes,
                                double z, drape_err *e);
/* Implicit ropes (seed 003 cables, stepped by the world on the CPU):
 * positions of the c-th implicit rope of the scene as x,y,z floats, drawn
 * as a tube (after the strings, in the same mesh). */
int dr_run_render_set_cable(dr_run_render *rr, int c, const float *xyz, int n_nodes,
                               drape_err *e);
/* A frame of a world: its strings and implicit ropes are fed in
 * (set_string, set_cable), then dr_run_render_frame draws it with the
 * world's sim. What `drape run` calls after each drape_world_step. */
int dr_run_render_world_frame(dr_run_render *rr, drape_world *w, int frame, drape_err *e);

#endif
