/* drape_frames (drape/world_view.h): a world's frames, headless, to PNG
 * files and video. The capture is opened first, so a bad folder or a
 * missing ffmpeg fails before anything heavy starts; the OpenCL runtime is
 * made here, before the world, because sharing GL buffers needs a CL
 * context created with the GL context's properties. */
#include "drape/world_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drape/interop.h"

#define MAX_SPHERES 256

struct drape_frames {
  drape_frames_def d;             /* defaults filled in */
  const char *label;
  int talk;                       /* d.progress: lines on stderr */
  double fps;
  drape_render_def look;
  drape_backend backend;
  /* GL, capture, OpenCL */
  drape_gl *gl;
  drape_renderer *r;
  drape_render_target *t;
  drape_capture *cap;
  uint8_t *rgb;
  drape_cl cl;
  int cl_ready, shared;
  char why[1100];
  /* the world */
  drape_world *w;
  drape_world_view *view;
  drape_render_scene scene;
  drape_render_sphere spheres[MAX_SPHERES];
  drape_progress prog;
  int rendered;
  double ms_xfer, ms_draw;
};

drape_frames_def drape_frames_def_default(void) {
  drape_frames_def d;
  memset(&d, 0, sizeof d);
  return d;
}

int drape_frames_open(const drape_frames_def *d, const drape_scene *scene,
                      const drape_render_def *look, drape_world_def *wd, drape_frames **out,
                      drape_err *e) {
  *out = NULL;
  drape_frames *f = calloc(1, sizeof *f);
  if (!f) return drape_fail(e, DRAPE_ENOMEM, "out of memory (frames)");
  *out = f;
  f->d = *d;
  f->label = d->label ? d->label : "drape";
  f->talk = d->progress;
  f->look = drape_render_def_default();
  int rc = look ? drape_render_def_copy(&f->look, look, e) : DRAPE_OK;
  if (rc) return rc;
  if (f->d.every <= 0) f->d.every = 1;
  if (f->d.samples <= 0) f->d.samples = 4;
  if (f->d.png_level <= 0) f->d.png_level = 6;
  if (f->d.frame_digits < 4) f->d.frame_digits = 4;
  if (f->d.width <= 0 || f->d.height <= 0) {
    f->d.width = f->look.width > 0 ? f->look.width : 1280;
    f->d.height = f->look.height > 0 ? f->look.height : 720;
  }
  f->backend = wd->backend;
  if (wd->backend == DRAPE_BACKEND_CPU && d->interop == DRAPE_INTEROP_SHARE)
    return drape_fail(e, DRAPE_EINVAL, "--interop share: the CPU backend (--backend cpu) keeps "
                      "its particles in host memory, nothing to share; use --interop auto or copy");

  drape_capture_opts co = drape_capture_opts_default();
  co.png_dir = d->png_dir;
  co.video_path = d->video;
  co.width = f->d.width;
  co.height = f->d.height;
  co.png_level = f->d.png_level;
  co.frame_digits = f->d.frame_digits;
  /* dt = 0.016666 means 60 fps: snap to a whole rate when that close, so
   * players see 30/1, not 75003/2500. */
  const double dt = scene->dt > 0 ? scene->dt : 1.0 / 60.0;
  co.fps = 1.0 / (dt * f->d.every);
  if (fabs(co.fps - floor(co.fps + 0.5)) < 0.01) co.fps = floor(co.fps + 0.5);
  if (co.fps > 1000) co.fps = 1000;
  if (co.fps < 0.01) co.fps = 0.01;
  f->fps = co.fps;
  /* Large frames: fewer queued copies (a 8192x8192 frame is 192 MiB). */
  size_t frame = (size_t)f->d.width * (size_t)f->d.height * 3;
  co.queue_frames = frame > ((size_t)64 << 20) ? 2 : 4;
  rc = (d->png_dir || d->video) ? drape_capture_open(&co, &f->cap, e) : DRAPE_OK;
  if (rc) return rc;

  if ((rc = drape_gl_open_headless(&f->gl, e))) return rc;
  if (d->progress)
    fprintf(stderr, "%s: rendering %dx%d (%d samples) with %s\n", f->label, f->d.width,
            f->d.height, f->d.samples, drape_gl_describe(f->gl));
  if (wd->backend == DRAPE_BACKEND_CL && !wd->cl) {
    drape_cl_opts clo = drape_cl_default_opts();
    clo.device_index = wd->use_device ? wd->device_index : -1;
    clo.profiling = wd->profiling;
    f->why[0] = 0;
    rc = drape_interop_cl_init(f->gl, (drape_interop_mode)d->interop, &clo, &f->cl, &f->shared,
                               f->why, sizeof f->why, e);
    if (rc) return rc;
    f->cl_ready = 1;
    wd->cl = &f->cl;
  }
  drape_render_opts ro = drape_render_opts_default();
  if ((rc = drape_renderer_create(&ro, &f->r, e))) return rc;
  if ((rc = drape_render_target_create(f->d.width, f->d.height, f->d.samples, &f->t, e)))
    return rc;
  f->rgb = malloc(frame);
  if (!f->rgb)
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (%dx%d frame)", f->d.width, f->d.height);
  return DRAPE_OK;
}

int drape_frames_attach(drape_frames *f, drape_world *w, drape_err *e) {
  if (f->w) return drape_fail(e, DRAPE_EINVAL, "drape_frames_attach: a world is attached already");
  drape_world_view_def vd = {&f->look, f->shared, 0};
  int rc = drape_gl_make_current(f->gl, e);
  if (!rc) rc = drape_world_view_create(f->r, w, &vd, &f->view, e);
  if (rc) return rc;
  f->w = w;
  if (f->d.progress) {
    const char *path = drape_world_view_transfer(f->view);
    if (!strcmp(path, "none"))
      fprintf(stderr, "%s: no cloth or rope to transfer; strings and cables come from the CPU\n",
              f->label);
    else if (!strcmp(path, "host"))
      fprintf(stderr, "%s: CPU backend: vertices uploaded from host memory\n", f->label);
    else
      fprintf(stderr, "%s: CL->GL transfer: %s%s%s%s\n", f->label, path,
              !strcmp(path, "share")     ? " (cl_khr_gl_sharing, device copy)"
              : !strcmp(path, "hostptr") ? " (CL copies into GL's persistently mapped memory)"
                                         : " (map + glBufferSubData)",
              f->why[0] ? "; sharing off: " : "", f->why);
  }
  drape_world_view_scene(f->view, (float)f->d.width / (float)f->d.height, f->spheres,
                         MAX_SPHERES, &f->scene);
  drape_progress_start(&f->prog, f->d.total_frames, stderr, f->d.progress);
  return DRAPE_OK;
}

int drape_frames_add(drape_frames *f, drape_err *e) {
  if (!f->w)
    return drape_fail(e, DRAPE_EINVAL, "drape_frames_add: no world (drape_frames_attach first)");
  const int frame = drape_world_frame(f->w);
  if ((frame - 1) % f->d.every != 0) {
    drape_progress_update(&f->prog, frame);
    return DRAPE_OK;
  }
  double t0 = drape_now();
  int rc = drape_world_view_update(f->view, e);
  if (rc) return rc;
  double t1 = drape_now();
  /* The colliders where they are now, and each string's end as a ball of
   * the string's colour (where the hand holds it). */
  int ns = drape_world_view_scene(f->view, (float)f->d.width / (float)f->d.height, f->spheres,
                                  MAX_SPHERES, &f->scene);
  for (int k = 0; k < drape_world_object_count(f->w) && ns < MAX_SPHERES; k++) {
    drape_world_object o;
    drape_world_get_object(f->w, k, &o, NULL);
    if (o.kind != DRAPE_WORLD_STRING) continue;
    const drape_string *st = drape_world_string(f->w, o.scene_index);
    const double *r = drape_string_positions(st);
    const int n = drape_string_node_count(st);
    drape_render_sphere *s = &f->spheres[ns++];
    s->center[0] = (float)r[2 * (n - 1)];
    s->center[1] = (float)r[2 * (n - 1) + 1];
    s->center[2] = (float)drape_world_string_z(f->w, o.scene_index);
    s->radius = 0.035f;
    float back[3];
    drape_world_view_color(f->view, &o, s->color, back);
  }
  f->scene.n_spheres = ns;
  if ((rc = drape_render_target_bind(f->t, e)) ||
      (rc = drape_render_draw(f->r, &f->scene, f->d.width, f->d.height, e)) ||
      (rc = drape_render_target_read(f->t, f->rgb, e)) ||
      (f->cap && (rc = drape_capture_frame(f->cap, frame, f->rgb, e))))
    return rc;
  double t2 = drape_now();
  f->ms_xfer += (t1 - t0) * 1e3;
  f->ms_draw += (t2 - t1) * 1e3;
  f->rendered++;
  drape_progress_update(&f->prog, frame);
  return DRAPE_OK;
}

int drape_frames_finish(drape_frames *f, drape_err *e) {
  drape_progress_end(&f->prog); /* once: it ends only an enabled line */
  drape_capture *c = f->cap;
  f->cap = NULL;
  int rc = c ? drape_capture_close(c, 1, e) : DRAPE_OK;
  if (rc || !f->talk) return rc;
  if (f->rendered > 0)
    fprintf(stderr, "%s: rendered %d frames, %.2f ms transfer + %.1f ms draw/read per frame\n",
            f->label, f->rendered, f->ms_xfer / f->rendered, f->ms_draw / f->rendered);
  if (f->d.png_dir)
    fprintf(stderr, "%s: wrote %d PNG frames (%dx%d) to %s/frame_%.*s.png\n", f->label,
            f->rendered, f->d.width, f->d.height, f->d.png_dir, f->d.frame_digits, "NNNNNNNNN");
  if (f->d.video && f->rendered > 0) /* no frame: capture_close wrote no file */
    fprintf(stderr, "%s: wrote %s (%d frames, %dx%d, %.3g fps)\n", f->label, f->d.video,
            f->rendered, f->d.width, f->d.height, f->fps);
  return DRAPE_OK;
}

int drape_frames_abort(drape_frames *f) {
  if (!f) return 0;
  drape_progress_end(&f->prog);
  if (!f->cap) return 0;
  drape_capture_close(f->cap, 0, NULL);
  f->cap = NULL;
  return 1;
}

void drape_frames_destroy(drape_frames *f) {
  if (!f) return;
  drape_frames_abort(f);
  if (f->gl) drape_gl_make_current(f->gl, NULL);
  drape_world_view_destroy(f->view);
  drape_render_target_destroy(f->t);
  drape_renderer_destroy(f->r);
  if (f->cl_ready) drape_cl_release(&f->cl);
  drape_gl_close(f->gl);
  free(f->rgb);
  drape_render_def_free(&f->look);
  free(f);
}

void drape_frames_timings(const drape_frames *f, int *frames, double *ms_transfer,
                          double *ms_draw) {
  int n = f ? f->rendered : 0;
  *frames = n;
  *ms_transfer = n ? f->ms_xfer / n : 0;
  *ms_draw = n ? f->ms_draw / n : 0;
}
