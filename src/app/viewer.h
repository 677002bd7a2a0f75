/* `drape view`: the interactive viewer (docs/rendering.md "Interactive viewer").
 *
 * How the pieces fit:
 *
 *   cmd_view.c        flags, the frame loop (events ▸ physics within a wall
 *                     budget ▸ CL->GL transfer ▸ draw ▸ overlay ▸ swap),
 *                     screenshots, scripted runs
 *   viewer_scene.c    a scene's solver objects: the OpenCL (or CPU) cloth
 *                     and rope solver, the seed 000 CPU strings, their
 *                     render meshes and the CL->GL transfer; scene switching
 *   viewer_input.c    keys and mouse (GLFW callbacks and script events call
 *                     the same functions): camera, grabs, sphere moves,
 *                     the string's hand, parameters
 *   viewer_overlay.c  the stats panel, the parameter panel and the help
 *   viewer_camera.c   orbit camera, rays through pixels, projections, ray
 *                     tests (pure maths, unit-tested in tests/test_view.c)
 *   viewer_script.c   the event script of scripted runs (pure parsing)
 *
 * Physics and drawing are separate (seed 000 §7.6, §7.13): each drawn
 * frame moves a simulated-time target forward by the wall time since the
 * last frame (times 1/4 in slow motion), then the solvers chase it for at
 * most the physics budget (~8 ms); time that did not fit is dropped, so a
 * slow machine runs behind real time instead of freezing. Scripted runs
 * (--frames) advance the target by exactly one scene dt per frame and have
 * no budget, so they repeat bit for bit. */
#ifndef DRAPE_APP_VIEWER_H
#define DRAPE_APP_VIEWER_H

#include <stdint.h>

#include "drape/drape_cl.h"
#include "drape/cloth.h"
#include "drape/render.h"
#include "drape/render_def.h"
#include "drape/scene.h"
#include "drape/string.h"
#include "drape/world.h"
#include "drape/interop.h"
#include "drape/world_view.h"

/* ---------------------------------------------------------------- */
/* Camera and ray maths (viewer_camera.c)                            */
/* ---------------------------------------------------------------- */

/* An orbit camera: the eye sits `dist` metres from `target`, at azimuth
 * `yaw` (rad, 0 = on +z, growing towards +x) and elevation `pitch` (rad,
 * within ±89°). y is up. */
typedef struct vw_camera {
  double target[3];
  double yaw, pitch, dist;
  double fov_deg;          /* vertical field of view */
} vw_camera;

void vw_camera_from_eye(vw_camera *c, const double eye[3], const double target[3],
                        double fov_deg);
void vw_camera_eye(const vw_camera *c, double eye[3]);
/* Unit forward (eye -> target), right and up, as the renderer's look-at
 * builds them (right = forward x y, up = right x forward). */
void vw_camera_basis(const vw_camera *c, double fwd[3], double right[3], double up[3]);
void vw_camera_to_render(const vw_camera *c, drape_render_camera *out);
/* The ray through window point (x, y) (window coordinates, origin top
 * left) of a w x h window: origin at the eye, unit direction. */
void vw_camera_ray(const vw_camera *c, double w, double h, double x, double y, double origin[3],
                   double dir[3]);
/* Window point of world point p; returns 0 when p is behind the eye. */
int vw_camera_project(const vw_camera *c, double w, double h, const double p[3], double *x,
                      double *y);
/* Mouse moves in window units: orbit turns by 0.3° per unit; pan moves the
 * target so the point under the cursor at the target's depth follows it;
 * zoom scales the distance by 0.9 per wheel notch. */
void vw_camera_orbit(vw_camera *c, double dx, double dy);
void vw_camera_pan(vw_camera *c, double dx, double dy, double h);
void vw_camera_zoom(vw_camera *c, double notches);

/* Ray tests; t is the distance along the unit direction d. */
int vw_ray_plane(const double o[3], const double d[3], const double p0[3], const double n[3],
                 double *t);
/* Möller & Trumbore (1997), "Fast, minimum storage ray-triangle
 * intersection"; both faces count. */
int vw_ray_triangle(const double o[3], const double d[3], const double a[3], const double b[3],
                    const double c[3], double *t);
/* Nearest intersection in front of the origin (t >= 0). */
int vw_ray_sphere(const double o[3], const double d[3], const double center[3], double r,
                  double *t);
/* Distance from point p to the ray's line, and the ray parameter of the
 * closest point. */
double vw_ray_point_dist(const double o[3], const double d[3], const double p[3], double *t);
/* The mesh collider the ray (o, unit d) meets first, against its
 * triangles where they are now (drape_sim_collider_mesh, the user's move
 * included; exact ray-triangle tests, both faces): its index, the
 * distance *t and the point hit; -1 when it meets none (viewer_pick.c). */
int vw_pick_collider(const drape_sim *sim, const double o[3], const double d[3], double *t,
                     double hit[3]);

/* ---------------------------------------------------------------- */
/* Event scripts (viewer_script.c)                                   */
/* ---------------------------------------------------------------- */

typedef enum {
  VW_EV_MOUSE_DOWN = 1,
  VW_EV_MOUSE_MOVE,
  VW_EV_MOUSE_UP,
  VW_EV_SCROLL,
  VW_EV_KEY,
  VW_EV_PRINT,
  VW_EV_SCREENSHOT,
  VW_EV_RESIZE
} vw_event_kind;

enum { VW_MOD_SHIFT = 1, VW_MOD_CTRL = 2 }; /* = GLFW_MOD_SHIFT, GLFW_MOD_CONTROL */

typedef struct vw_event {
  int frame;       /* applied before this frame's physics (1-based)      */
  int line;        /* in the script file, for messages                    */
  int kind;        /* vw_event_kind                                       */
  int button;      /* mouse: 0 left, 1 right, 2 middle (GLFW numbering)  */
  int mods;        /* VW_MOD_*                                            */
  int key;         /* GLFW key code                                       */
  int has_pos;     /* mouse_up may omit the position                      */
  int world;       /* the position is a world point (x, y, z) to project  */
  double x, y, z;  /* window coordinates, or a world point                */
  char path[1024]; /* screenshot                                          */
} vw_event;

typedef struct vw_script {
  vw_event *ev;
  int n;
  int last_frame;
} vw_script;

/* Parses a script (grammar in docs/rendering.md "Interactive viewer"). On error the
 * message names the label, the line and what is allowed (DRAPE_EINVAL). */
int vw_script_parse(const char *text, const char *label, vw_script *out, drape_err *e);
int vw_script_load(const char *path, vw_script *out, drape_err *e);
void vw_script_free(vw_script *s);
/* GLFW key code for a script key name ("SPACE", "F1", "LEFT", "A", "1",
 * "PLUS", ...), -1 if unknown; and back (for messages). */
int vw_key_from_name(const char *name);
const char *vw_key_name(int key);

/* ---------------------------------------------------------------- */
/* The viewer                                                        */
/* ---------------------------------------------------------------- */

#define VW_MAX_SPHERES 32
#define VW_MAX_STRINGS 8
#define VW_MAX_SCENES 9

typedef struct vw_string {
  drape_string *s;         /* the world's (drape_world_string)             */
  drape_string_def def;    /* copy; def.hand points into the world's copy */
  int first_vertex;        /* in the strings' render mesh                 */
  double max_speed_held;   /* m/s, fastest the held end moved since grab  */
  double grab_offset[2];   /* end - cursor point at a mouse grab          */
} vw_string;

typedef enum {
  VW_DRAG_NONE = 0,
  VW_DRAG_ORBIT,
  VW_DRAG_PAN,
  VW_DRAG_PARTICLE,
  VW_DRAG_SPHERE,
  VW_DRAG_STRING,
  VW_DRAG_CAPSULE,
  VW_DRAG_COLLIDER
} vw_drag;

/* Live parameters (seed 001's panel offers the same for its springs). */
enum {
  VW_P_SUBSTEPS = 0,
  VW_P_ITERATIONS,
  VW_P_STRETCH,
  VW_P_SHEAR,
  VW_P_BEND,
  VW_P_DAMPING,
  VW_P_GRAVITY,
  VW_P_WIND,
  VW_P_RADIUS,
  VW_P_COUNT
};

typedef struct viewer {
  /* ---- options ---- */
  char scene_path[4096];
  int frames;               /* scripted: frames to run, 0 = interactive */
  const char *screenshot;
  const char *script_path;
  int width, height, vsync, hidden, samples, overlay;
  drape_backend backend;
  int device;               /* requested OpenCL device, -1 default */
  int kernel_form;          /* --kernel-form (drape_kernel_form, 0 auto) */
  drape_interop_mode interop;
  double budget_s;          /* physics wall budget per frame, 0 = none */
  int quiet;
  int realtime;             /* scripted run paced by the wall clock */

  /* ---- platform ---- */
  drape_gl *gl;
  void *win;                /* GLFWwindow* */
  drape_renderer *r;
  drape_cl cl;
  int cl_ready, shared;
  char why[1100];           /* why GL sharing is off */

  /* ---- the scene (viewer_scene.c) ---- */
  drape_scene scene;
  drape_render_def view;    /* the scene file's camera and render size  */
  int scene_loaded;
  drape_world *world;       /* every object of the scene (world.h)      */
  drape_sim *sim;           /* the world's cloth and rope solver; NULL
                               when it has no particles                 */
  int n_cables;             /* implicit ropes (world objects after the
                               sim's)                                   */
  drape_world_view *wv;     /* the world's render meshes (world_view.h) */
  float *host_pos;          /* the sim's positions read back (picking)   */
  uint32_t *tris;           /* current triangles (tearing, picking)      */
  int n_particles, n_tris, tear_possible;
  vw_string strings[VW_MAX_STRINGS];
  int n_strings;
  drape_render_scene rs;
  drape_render_sphere spheres[VW_MAX_SPHERES + 2 * VW_MAX_STRINGS + 4];
  int n_sim_spheres;
  double sphere_goal[VW_MAX_SPHERES][3];
  int sphere_goal_on[VW_MAX_SPHERES];
  vw_camera cam, cam_home;
  double dt;

  /* ---- time ---- */
  double target_time;       /* s of simulated time the solvers chase */
  double speed;             /* 1, or 0.25 in slow motion */
  int paused, step_once;
  int diverged;             /* a solver stopped on a non-finite state: paused
                               on the last good picture until reset (R)   */
  char diverged_msg[1024];
  long cloth_steps;         /* this scene */
  double phys_ms;           /* wall ms of the last frame's physics */
  int behind;               /* the last frame ran out of budget */
  int behind_frames;        /* frames that did */
  double phys_ms_max;       /* the longest frame's physics */
  double wall_t0;           /* when the frame loop started */

  /* ---- input ---- */
  double mx, my;            /* cursor, window coordinates */
  int drag;                 /* vw_drag */
  int drag_button;
  int grab_id, grab_particle;
  double grab_point[3], grab_normal[3], grab_offset[3], grab_target[3];
  int drag_sphere;
  double drag_offset[3];
  int drag_capsule;          /* Shift-drag of a capsule (drape_sim_move_capsule) */
  double capsule_goal[3];    /* its offset goal, reached at <= 4 m/s      */
  int capsule_goal_on;
  int drag_collider;         /* Shift-drag of a mesh collider
                                (drape_sim_move_collider)               */
  double collider_goal[3];   /* its offset goal, reached at <= 4 m/s      */
  int collider_goal_on;
  int drag_string;
  int mods;

  /* ---- parameters ---- */
  int sel_param;
  double compliance[3], damping, wind_speed, wind_dir[3];
  int material_mode;        /* the first object is made of a material: the
                               stretch, shear and bend parameters are its
                               stiffnesses (N/m, N/m, N m) in compliance[] */
  int wind_on, tearing_on;

  /* ---- overlay ---- */
  int show_help;
  int hide_panels;           /* F2 */
  char message[600];
  double message_until;
  double fps, fps_t0;
  int fps_frames;
  double stage_ms[DRAPE_STAGE_COUNT];
  double frame_ms, xfer_ms, draw_ms;
  int stage_valid;
  double max_strain, stats_t;
  long crossings;           /* edges through triangles at the last stats (-1: unknown) */
  int torn;

  /* ---- scenes for keys 1-9 ---- */
  char scenes_dir[4096];
  char scene_files[VW_MAX_SCENES][512];
  int n_scene_files;

  int frame;                /* frames drawn */
  int quit;
  double last_wall;
} viewer;

/* viewer_scene.c */
int vw_scene_open(viewer *v, const char *path, drape_err *e); /* replaces the current one */
void vw_scene_close(viewer *v);
int vw_scene_reset(viewer *v, drape_err *e);
/* Advances the solvers towards v->target_time within the budget. */
int vw_physics(viewer *v, drape_err *e);
/* CL->GL transfer, topology (tearing), strings, spheres: ready to draw. */
int vw_sync_render(viewer *v, drape_err *e);
int vw_read_positions(viewer *v, drape_err *e);
/* How the world view reaches GL: "share", "hostptr", "map", "host", "none";
 * vw_interop: 1 for the first three (an OpenCL copy, no host round trip). */
const char *vw_transfer(const viewer *v);
int vw_interop(const viewer *v);
void vw_string_end(const viewer *v, int k, double out[3]);
int vw_apply_sphere_goals(viewer *v, drape_err *e);
/* Finds the scenes folder and lists its first nine scenes. */
void vw_find_scenes(viewer *v);
int vw_resolve_scene(viewer *v, const char *arg, drape_err *e);

/* viewer_input.c */
void vw_key(viewer *v, int key, int mods);
void vw_mouse_button(viewer *v, int button, int press, int mods);
void vw_cursor(viewer *v, double x, double y);
void vw_scroll(viewer *v, double dy);
void vw_window_size(const viewer *v, double *w, double *h);
int vw_release_all(viewer *v); /* returns 1 when something was held */
void vw_message(viewer *v, const char *fmt, ...) DRAPE_PRINTF(2, 3);
/* Simulated time shown and printed: the world's frames when it has
 * cloth, ropes or cables, else the first string's clock. */
double vw_clock(const viewer *v);
int vw_param_step(viewer *v, int p, int dir, int big, drape_err *e);
void vw_param_text(const viewer *v, int p, char *buf, size_t cap);
int vw_param_applies(const viewer *v, int p);
void vw_params_from_scene(viewer *v);

/* viewer_overlay.c */
void vw_overlay(viewer *v, int fb_w, int fb_h);
void vw_title(viewer *v);
void vw_update_stats(viewer *v, int force);

#endif
