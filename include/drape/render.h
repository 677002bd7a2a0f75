/* drape — OpenGL rendering shared by the viewer and the headless capture.
 *
 * Four parts, each usable alone:
 *
 *   drape_gl          a current OpenGL 3.3+ core context: headless through
 *                     EGL (Mesa surfaceless, or the EGL device platform on
 *                     NVIDIA), or a GLFW window for the viewer.
 *   drape_renderer    draws meshes (two-sided lit cloth, tubes for ropes and
 *                     strings), spheres, a checker floor with soft shadows
 *                     and a sky, into whatever framebuffer is bound; plus
 *                     overlay text for the viewer.
 *   drape_render_target   an offscreen framebuffer (multisampled) and its
 *                     read-back as top-down RGB8 rows.
 *   drape_capture     writes frames as PNG files (encoded on a worker thread)
 *                     and/or pipes them into ffmpeg for a video; with a
 *                     progress line on stderr.
 *
 * Geometry lives in GL buffer objects owned by a drape_render_mesh: one
 * float4 per vertex for positions (w ignored: the solver keeps the inverse
 * mass there) and one float4 per vertex for normals, so an OpenCL context
 * that shares GL objects (cl_khr_gl_sharing) can write straight into them
 * (src/render/interop.h); without sharing they are filled from host memory.
 *
 * All functions need the drape_gl context current on the calling thread
 * (drape_gl_open_* makes it current). Units are metres, y is up; colours are
 * linear RGB in 0..1 (the renderer converts to sRGB on output). Every GL and
 * EGL call is checked; failures come back as DRAPE_EGL with the call and the
 * error's name (e.g. "GL_INVALID_OPERATION", "EGL_BAD_MATCH"). */
#ifndef DRAPE_RENDER_H
#define DRAPE_RENDER_H

#include <stdint.h>
#include <stdio.h>

#include "drape/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* GL context                                                          */
/* ------------------------------------------------------------------ */

typedef struct drape_gl drape_gl;

typedef enum {
  DRAPE_GL_EGL_SURFACELESS = 1, /* Mesa's surfaceless platform (llvmpipe, DRM GPUs) */
  DRAPE_GL_EGL_DEVICE = 2,      /* EGL_EXT_platform_device (NVIDIA without X)       */
  DRAPE_GL_GLFW = 3             /* a GLFW window (X11/Wayland display needed)       */
} drape_gl_kind;

/* Opens a headless context with no display server. Which EGL platform:
 * a hardware EGL device (EGL_EXT_device_enumeration, not Mesa's software
 * device) when there is one, else Mesa's surfaceless platform, else any EGL
 * device. DRAPE_EGL_PLATFORM=surfaceless|device forces one. DISPLAY is not
 * used. The context is made current; it renders only into FBOs. */
int drape_gl_open_headless(drape_gl **out, drape_err *e);

typedef struct drape_gl_window_opts {
  int width, height;   /* window size in screen coordinates, default 1280x720 */
  const char *title;   /* default "drape"                                      */
  int visible;         /* default 1; 0 = hidden window (scripted screenshots)  */
  int vsync;           /* default 1                                            */
  int samples;         /* MSAA samples of the default framebuffer, default 4   */
} drape_gl_window_opts;

drape_gl_window_opts drape_gl_window_opts_default(void);

/* Opens a GLFW window with a 3.3 core context (4.x when offered), loaded
 * through libepoxy, and makes it current. Without a display (DISPLAY and
 * WAYLAND_DISPLAY unset, or the server refuses) it fails with DRAPE_EINVAL
 * and a message suggesting the headless `drape run --png-dir/--video`. */
int drape_gl_open_window(const drape_gl_window_opts *o, drape_gl **out, drape_err *e);

void drape_gl_close(drape_gl *gl);

drape_gl_kind drape_gl_kind_of(const drape_gl *gl);
/* e.g. "EGL surfaceless: llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core
 * Profile) Mesa 22.3.6". */
const char *drape_gl_describe(const drape_gl *gl);
/* GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)". */
const char *drape_gl_renderer_name(const drape_gl *gl);
/* The GLFWwindow* of a window context (NULL for headless). */
void *drape_gl_window(const drape_gl *gl);
/* Framebuffer size in pixels (high-DPI aware; 0x0 for headless). */
void drape_gl_framebuffer_size(const drape_gl *gl, int *w, int *h);
/* Makes the context current on the calling thread again. */
int drape_gl_make_current(drape_gl *gl, drape_err *e);

/* Context properties (key, value pairs, 0-terminated, at most 7 values
 * used) that let an OpenCL context share this GL context through
 * cl_khr_gl_sharing: CL_GL_CONTEXT_KHR plus CL_EGL_DISPLAY_KHR (EGL) or
 * CL_GLX_DISPLAY_KHR (GLFW on X11). Returns the number of pairs, 0 when the
 * context kind cannot be shared (e.g. Wayland). intptr_t is
 * cl_context_properties. */
int drape_gl_cl_share_props(const drape_gl *gl, intptr_t props[7]);

/* Names of GL and EGL error codes ("GL_INVALID_OPERATION", "EGL_BAD_MATCH"). */
const char *drape_gl_errstr(unsigned code);
const char *drape_egl_errstr(int code);

/* Checks glGetError(); on an error fills e with `what` and the error name
 * and returns DRAPE_EGL. */
int drape_gl_check(drape_err *e, const char *what);

/* Reads the bound read framebuffer (w x h from the origin) as RGB8 rows,
 * top row first (GL's origin is bottom-left: rows are flipped here). */
int drape_gl_read_rgb(int w, int h, uint8_t *rgb, drape_err *e);

/* ------------------------------------------------------------------ */
/* Renderer                                                            */
/* ------------------------------------------------------------------ */

typedef struct drape_renderer drape_renderer;
typedef struct drape_render_mesh drape_render_mesh;

typedef struct drape_render_opts {
  int shadows;         /* soft shadow map from the key light, default 1     */
  int shadow_size;     /* shadow map texels per side; 0 (default): 2048 on
                          a GPU, 1024 on a software rasteriser (llvmpipe) */
} drape_render_opts;

drape_render_opts drape_render_opts_default(void);

int drape_renderer_create(const drape_render_opts *o, drape_renderer **out, drape_err *e);
void drape_renderer_destroy(drape_renderer *r);

typedef enum {
  DRAPE_RO_SURFACE = 0, /* triangles [first, first+count) of the mesh's list */
  DRAPE_RO_TUBE = 1     /* line segments [first, first+count), drawn as round tubes */
} drape_render_object_kind;

/* One drawable part of a mesh: a cloth (surface) or a rope/string (tube). */
typedef struct drape_render_object {
  int kind;                /* drape_render_object_kind                        */
  int first, count;        /* range in triangles (surface) or segments (tube) */
  float color_front[3];    /* linear RGB; the side the normals point to       */
  float color_back[3];     /* surfaces: the other side                        */
  float radius;            /* tubes: radius in m (default 0.01 when <= 0)     */
  int checker;             /* surfaces with uv: woven checker pattern         */
  float checker_cells;     /* checker squares per uv unit, default 8          */
} drape_render_object;

typedef struct drape_render_mesh_desc {
  int n_vertices;                       /* float4 positions (and normals)  */
  const uint32_t *tris;                 /* 3 vertex indices per triangle   */
  int n_tris;
  const uint32_t *lines;                /* 2 vertex indices per segment    */
  int n_lines;
  const float *uv;                      /* optional, 2 per vertex          */
  const drape_render_object *objects;
  int n_objects;
} drape_render_mesh_desc;

/* Creates GL buffers for a mesh; the renderer draws every mesh it owns.
 * Index ranges are validated (an index >= n_vertices is DRAPE_EINVAL). */
int drape_render_mesh_create(drape_renderer *r, const drape_render_mesh_desc *d,
                             drape_render_mesh **out, drape_err *e);
void drape_render_mesh_destroy(drape_render_mesh *m);
/* Replaces the index lists and objects (tearing); n_vertices must match. */
int drape_render_mesh_set_topology(drape_render_mesh *m, const drape_render_mesh_desc *d,
                                   drape_err *e);
/* GL buffer names of the float4 positions / normals (for CL-GL sharing). */
unsigned drape_render_mesh_positions_gl(const drape_render_mesh *m);
unsigned drape_render_mesh_normals_gl(const drape_render_mesh *m);
int drape_render_mesh_vertex_count(const drape_render_mesh *m);
/* Uploads vertices [first, first+count) from host float4 arrays (normals
 * may be NULL to keep the current ones). */
int drape_render_mesh_upload(drape_render_mesh *m, const float *pos4, const float *nrm4,
                             int first, int count, drape_err *e);
/* Smooth per-vertex normals from the mesh's triangles (area weighted) for
 * host data; the OpenCL solver computes them with its normals kernel. */
void drape_render_compute_normals(const float *pos4, int n_vertices, const uint32_t *tris,
                                  int n_tris, float *nrm4);

typedef struct drape_render_camera {
  float eye[3], target[3];
  float up[3];             /* default (0,1,0) when zero                       */
  float fov_deg;           /* vertical, default 45 when <= 0                  */
} drape_render_camera;

typedef struct drape_render_sphere {
  float center[3];
  float radius;
  float color[3];
} drape_render_sphere;

typedef struct drape_render_scene {
  drape_render_camera camera;
  int has_floor;
  float floor_y;
  float floor_cell;        /* checker square size in m, default 0.25           */
  const drape_render_sphere *spheres;
  int n_spheres;
  /* The region the action happens in (shadow map extent; floor and fog scale).
   * The camera helper below frames it too. */
  float bounds_min[3], bounds_max[3];
} drape_render_scene;

/* A camera that looks at the box from the front, slightly above and to the
 * side, far enough that the whole box fits the view at the given aspect. */
void drape_camera_frame_box(const float bmin[3], const float bmax[3], float fov_deg,
                            float aspect, drape_render_camera *out);

/* Draws the scene into the bound draw framebuffer (size fb_w x fb_h). */
int drape_render_draw(drape_renderer *r, const drape_render_scene *s, int fb_w, int fb_h,
                      drape_err *e);

/* Overlay text (viewer stats and help): queued, drawn by
 * drape_render_overlay() on top of the frame, then the queue is cleared.
 * x, y in framebuffer pixels from the top-left corner; the glyphs are
 * 7 * scale pixels high, lines 12 * scale pixels apart; '\n' breaks lines.
 * rgba NULL = white. A panel draws a translucent dark box behind the text. */
void drape_render_text(drape_renderer *r, float x, float y, float scale, const float rgba[4],
                       const char *text);
void drape_render_text_panel(drape_renderer *r, float x, float y, float scale,
                             const char *text);
/* Width and height in pixels that the text takes at that scale. */
void drape_render_text_size(const char *text, float scale, float *w, float *h);
int drape_render_overlay(drape_renderer *r, int fb_w, int fb_h, drape_err *e);

/* ------------------------------------------------------------------ */
/* Offscreen target                                                    */
/* ------------------------------------------------------------------ */

typedef struct drape_render_target drape_render_target;

/* samples: MSAA sample count (1 = none; clamped to what GL offers). Sizes
 * 1..16384 per side (and within GL_MAX_RENDERBUFFER_SIZE). */
int drape_render_target_create(int w, int h, int samples, drape_render_target **out,
                               drape_err *e);
void drape_render_target_destroy(drape_render_target *t);
/* Binds it for drawing, with the viewport set to its size. */
int drape_render_target_bind(drape_render_target *t, drape_err *e);
/* Resolves the samples and reads w*h*3 bytes of RGB, top row first. */
int drape_render_target_read(drape_render_target *t, uint8_t *rgb, drape_err *e);

/* ------------------------------------------------------------------ */
/* Frame capture: PNG files and video                                  */
/* ------------------------------------------------------------------ */

typedef struct drape_capture drape_capture;

typedef struct drape_capture_opts {
  const char *png_dir;     /* write DIR/frame_0001.png ... (NULL: none)       */
  const char *video_path;  /* pipe into ffmpeg (NULL: none)                    */
  int width, height;       /* frame size in px                                 */
  double fps;              /* video frame rate, default 60                     */
  int png_level;           /* zlib level for PNGs 1..9, default 6              */
  int queue_frames;        /* frames waiting for the encoders, default 4       */
  int encoders;            /* encoder threads; 0 (default): one per CPU but
                              one for PNGs (1..8), one for a video alone       */
  int frame_digits;        /* digits of the PNG frame number, 4..9; 0: 4      */
} drape_capture_opts;

drape_capture_opts drape_capture_opts_default(void);

/* Checks everything before any frame is rendered: the PNG folder (created
 * if missing, must be writable), the video's folder, that `ffmpeg` is on
 * PATH (else a clear DRAPE_EINVAL naming --video), and starts ffmpeg and
 * the PNG worker thread. Bad input is DRAPE_EINVAL with nothing written. */
int drape_capture_open(const drape_capture_opts *o, drape_capture **out, drape_err *e);
/* Hands over one frame (width*height*3 RGB bytes, top row first; copied).
 * `number` names the PNG (frame_%04d.png; frame_digits digits). PNG encoding happens on the
 * encoder threads; this blocks only while the queue is full. */
int drape_capture_frame(drape_capture *c, int number, const uint8_t *rgb, drape_err *e);
/* Finishes: waits for the encoder, closes ffmpeg. With ok = 0 (the run
 * failed) or on any error the video's partial file is removed. PNGs are
 * written to a temporary name and renamed, so a file named frame_*.png is
 * always complete. Frees c. Returns the first error met. */
int drape_capture_close(drape_capture *c, int ok, drape_err *e);
/* Frames written so far (PNG files / video frames). */
int drape_capture_png_count(const drape_capture *c);
int drape_capture_video_count(const drape_capture *c);

/* Looks for an executable on PATH; returns 1 and its path when found. */
int drape_find_on_path(const char *name, char *path, size_t cap);

/* Progress line "frame i/N  12.3 fps  ETA 0:42" on a stream: redrawn in
 * place on a terminal, one line per ~10% otherwise (logs stay short). */
typedef struct drape_progress {
  FILE *out;
  int total, last_pct, tty, enabled;
  double t0, last_draw;
} drape_progress;

void drape_progress_start(drape_progress *p, int total, FILE *out, int enabled);
void drape_progress_update(drape_progress *p, int done);
void drape_progress_end(drape_progress *p);

#ifdef __cplusplus
}
#endif
#endif
