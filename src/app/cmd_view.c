/* `drape view [SCENE]`: the interactive viewer (src/app/viewer.h explains
 * the parts; docs/rendering.md "Interactive viewer" the keys, mouse and scripts).
 *
 * One frame: events (GLFW, or the script's for this frame) ▸ the
 * simulated-time target moves on by the wall time since the last frame
 * (x1/4 in slow motion; exactly one dt in scripted runs) ▸ the solvers
 * chase it within the physics budget ▸ CL->GL transfer ▸ draw ▸ overlay
 * ▸ screenshot / print ▸ swap. Bad flags, a bad scene or script, an
 * unwritable screenshot path and a missing display exit with 2 before
 * anything is written. */
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "io/io.h"
#include "app/viewer.h"

/* PNG writing for screenshots: a private copy of stb_image_write (static
 * functions, so nothing clashes with the renderer's copy). */
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

static const char *usage_text =
    "usage: drape [--device K] view [SCENE] [--device K] [--backend cl|cpu]\n"
    "                  [--interop auto|copy|share] [--size WxH] [--samples N] [--no-vsync]\n"
    "                  [--budget MS] [--no-overlay] [--hidden]\n"
    "                  [--frames N] [--screenshot FILE.png] [--script FILE] [--realtime]\n"
    "                  [--quiet]\n";

static void help(void) {
  printf("%s", usage_text);
  printf(
      "\nOpens a window on a scene (default scenes/drape_sphere.json, looked up in the\n"
      "working directory, then the source tree): cloth and ropes on OpenCL, seed 000\n"
      "strings on the CPU. Keys and mouse: press F1 in the window, or\n"
      "docs/rendering.md \"Interactive viewer\".\n\n"
      "  --device K         OpenCL device (see `drape devices`; also DRAPE_DEVICE)\n"
      "  --backend cl|cpu   OpenCL kernels (default) or the CPU reference backend\n"
      "  --interop MODE     OpenCL->OpenGL transfer: auto (default: share where the device\n"
      "                     has cl_khr_gl_sharing, else copy), copy, share (or fail)\n"
      "  --size WxH         window size in screen coordinates, 64..8192 (default: the\n"
      "                     scene's render size, else 1280x720)\n"
      "  --samples N        multisampling 1..16 (default 4)\n"
      "  --no-vsync         do not wait for the display's refresh\n"
      "  --budget MS        wall time for physics per drawn frame, 0.5..1000 ms (default\n"
      "                     8, seed 000 7.13); what does not fit is dropped, so a slow\n"
      "                     machine runs behind real time instead of freezing\n"
      "  --no-overlay       no text on the picture\n"
      "  --hidden           do not show the window (scripted runs)\n"
      "\nScripted runs (tests, figures):\n"
      "  --frames N         run N frames (exactly one scene dt each, no budget: repeats\n"
      "                     bit for bit), then exit; vsync off\n"
      "  --screenshot F.png save the last frame's window contents\n"
      "  --script FILE      input events per frame (docs/rendering.md \"Interactive viewer\"):\n"
      "                       frame 10 mouse_down 640 360\n"
      "                       frame 20 mouse_move world 0.3 1.1 0.2\n"
      "                       frame 40 mouse_up\n"
      "                       frame 41 key SPACE\n"
      "                     state lines (view: ...) go to stdout\n"
      "  --realtime         pace a scripted run by the wall clock with the physics\n"
      "                     budget, as an interactive one (not reproducible)\n"
      "  --quiet            no state lines\n"
      "\nWithout a display (DISPLAY and WAYLAND_DISPLAY unset) render headless instead:\n"
      "`drape run SCENE --png-dir DIR` or `--video FILE.mp4`.\n"
      "Exit codes: 0 done, 2 bad input or no display, 1 other failures.\n");
}

static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape view: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}



/* The folder of a file to be written must exist and be writable. */
static int check_out_file(const char *flag, const char *path) {
  size_t n = strlen(path);
  if (n < 5 || strcasecmp(path + n - 4, ".png"))
    return bad(flag, path, "expected a file name ending in .png");
  char dir[4096];
  if (n >= sizeof dir) return bad(flag, path, "path too long");
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) dir[1] = 0;
  else if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  if (access(dir, W_OK) != 0) {
    char what[4300];
    snprintf(what, sizeof what, "cannot write into folder %s: %s", dir, strerror(errno));
    return bad(flag, path, what);
  }
  /* Never a folder, device, FIFO or link: the PNG is renamed into place
   * (core/outpath.c, issue 13 item 6). */
  drape_err oe = {0};
  if (dr_out_file_check(path, flag, NULL, 0, &oe)) {
    fprintf(stderr, "drape view: %s\n", oe.msg);
    return 2;
  }
  return 0;
}

typedef struct view_args {
  const char *scene;
  int size_set;
} view_args;

static int parse_args(viewer *v, view_args *a, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    long n;
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      help();
      return -1;
    } else if (!strcmp(s, "--device")) {
      if (!dr_parse_long(val, 0, 1000000, &n))
        return bad(s, val, "expected a device index (0, 1, ...; see `drape devices`)");
      v->device = (int)n;
      i++;
    } else if (!strcmp(s, "--backend")) {
      if (val && !strcmp(val, "cl")) v->backend = DRAPE_BACKEND_CL;
      else if (val && !strcmp(val, "cpu")) v->backend = DRAPE_BACKEND_CPU;
      else return bad(s, val, "expected cl (OpenCL kernels) or cpu (CPU reference)");
      i++;
    } else if (!strcmp(s, "--interop")) {
      drape_err e = {0};
      if (drape_interop_parse_mode(val, &v->interop, &e)) {
        fprintf(stderr, "drape view: %s\n%s", e.msg, usage_text);
        return 2;
      }
      i++;
    } else if (!strcmp(s, "--size")) {
      if (!dr_parse_size(val, 64, 8192, &v->width, &v->height))
        return bad(s, val, "expected WIDTHxHEIGHT in screen coordinates, each 64..8192");
      a->size_set = 1;
      i++;
    } else if (!strcmp(s, "--samples")) {
      if (!dr_parse_long(val, 1, 16, &n)) return bad(s, val, "expected 1..16 (1 = off)");
      v->samples = (int)n;
      i++;
    } else if (!strcmp(s, "--budget")) {
      char *end = NULL;
      double ms = val ? strtod(val, &end) : NAN;
      if (!val || !*val || *end || !(ms >= 0.5 && ms <= 1000))
        return bad(s, val, "expected milliseconds of physics per frame, 0.5..1000");
      v->budget_s = ms * 1e-3;
      i++;
    } else if (!strcmp(s, "--frames")) {
      if (!dr_parse_long(val, 1, 10000000, &n))
        return bad(s, val, "expected a whole number of frames, 1..10000000");
      v->frames = (int)n;
      i++;
    } else if (!strcmp(s, "--screenshot")) {
      if (!val || !*val) return bad(s, val, "expected a file name (FILE.png)");
      int rc = check_out_file(s, val);
      if (rc) return rc;
      v->screenshot = val;
      i++;
    } else if (!strcmp(s, "--script")) {
      if (!val || !*val) return bad(s, val, "expected an event script file");
      v->script_path = val;
      i++;
    } else if (!strcmp(s, "--no-vsync")) {
      v->vsync = 0;
    } else if (!strcmp(s, "--no-overlay")) {
      v->overlay = 0;
    } else if (!strcmp(s, "--hidden")) {
      v->hidden = 1;
    } else if (!strcmp(s, "--realtime")) {
      v->realtime = 1;
    } else if (!strcmp(s, "--quiet")) {
      v->quiet = 1;
    } else if (s[0] == '-' && s[1] != 0) {
      fprintf(stderr, "drape view: unknown option '%s'\n%s", s, usage_text);
      return 2;
    } else if (!a->scene) {
      a->scene = s;
    } else {
      fprintf(stderr, "drape view: unexpected argument '%s' (one scene file only)\n%s", s,
              usage_text);
      return 2;
    }
  }
  if (v->realtime && !v->frames)
    return bad("--realtime", "", "only for scripted runs (with --frames N)");
  if (v->script_path && !v->frames)
    return bad("--script", v->script_path, "needs --frames N (scripted runs have a fixed length)");
  return 0;
}

/* ---------------------------------------------------------------- */
/* GLFW callbacks: live input only (a scripted run ignores the mouse) */
/* ---------------------------------------------------------------- */

static viewer *from(GLFWwindow *w) { return (viewer *)glfwGetWindowUserPointer(w); }

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
  (void)scancode;
  viewer *v = from(w);
  if (v->frames > 0) return;
  int repeatable = key == GLFW_KEY_LEFT || key == GLFW_KEY_RIGHT || key == GLFW_KEY_UP ||
                   key == GLFW_KEY_DOWN || key == GLFW_KEY_PAGE_UP || key == GLFW_KEY_PAGE_DOWN ||
                   key == GLFW_KEY_EQUAL || key == GLFW_KEY_MINUS || key == GLFW_KEY_KP_ADD ||
                   key == GLFW_KEY_KP_SUBTRACT;
  if (action == GLFW_PRESS || (action == GLFW_REPEAT && repeatable)) vw_key(v, key, mods);
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
  viewer *v = from(w);
  if (v->frames > 0) return;
  double x, y;
  glfwGetCursorPos(w, &x, &y);
  v->mx = x;
  v->my = y;
  vw_mouse_button(v, button, action == GLFW_PRESS, mods);
}

static void on_cursor(GLFWwindow *w, double x, double y) {
  viewer *v = from(w);
  if (v->frames > 0) return;
  vw_cursor(v, x, y);
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
  (void)dx;
  viewer *v = from(w);
  if (v->frames > 0) return;
  vw_scroll(v, dy);
}

/* ---------------------------------------------------------------- */
/* scripted runs                                                     */
/* ---------------------------------------------------------------- */

static void fmt3(char *b, size_t cap, const double p[3]) {
  snprintf(b, cap, "%.6f,%.6f,%.6f", p[0], p[1], p[2]);
}

/* Machine-readable state (one line per thing) for tests and figures. */
static void print_state(viewer *v, const char *what) {
  if (v->quiet) return;
  double t = vw_clock(v);
  printf("view: %s frame=%d time=%.9f cloth_steps=%ld speed=%g paused=%d scene=%s\n", what,
         v->frame, t, v->cloth_steps, v->speed, v->paused, v->scene_path);
  if (v->realtime)
    printf("view: %s realtime wall=%.3f behind_frames=%d phys_ms_max=%.2f budget_ms=%.2f\n",
           what, drape_now() - v->wall_t0, v->behind_frames, v->phys_ms_max, v->budget_s * 1e3);
  if (v->sim) {
    vw_update_stats(v, 1);
    const drape_mesh *m = drape_sim_mesh(v->sim);
    drape_sim_params p;
    drape_sim_get_params(v->sim, &p);
    printf("view: %s cloth particles=%d constraints=%d colours=%d max_strain=%.6g crossings=%ld\n",
           what, m->n_particles, m->n_constraints, m->n_colours, v->max_strain, v->crossings);
    printf("view: %s params substeps=%d iterations=%d stretch=%.9g shear=%.9g bend=%.9g "
           "damping=%.9g gravity=%.9g wind=%.9g wind_on=%d tearing=%d\n", what, p.substeps,
           p.iterations, v->compliance[0], v->compliance[1], v->compliance[2], v->damping,
           p.gravity[1], v->wind_speed, p.wind_enabled, p.tearing_enabled);
  }
  if (v->sim && v->grab_particle >= 0) {
    drape_err e = {0};
    if (!vw_read_positions(v, &e)) {
      const float *x = v->host_pos + 4 * v->grab_particle;
      double pos[3] = {x[0], x[1], x[2]}, err = 0;
      for (int q = 0; q < 3; q++) err += (pos[q] - v->grab_target[q]) * (pos[q] - v->grab_target[q]);
      char a[100], b[100];
      fmt3(a, sizeof a, v->grab_target);
      fmt3(b, sizeof b, pos);
      double w, h, sx = 0, sy = 0;
      vw_window_size(v, &w, &h);
      vw_camera_project(&v->cam, w, h, v->grab_target, &sx, &sy);
      printf("view: %s grab particle=%d active=%d target=%s pos=%s err=%.3g "
             "target_screen=%.2f,%.2f mouse=%.2f,%.2f\n", what, v->grab_particle,
             v->drag == VW_DRAG_PARTICLE && v->grab_id >= 0, a, b, sqrt(err), sx, sy, v->mx,
             v->my);
    }
  }
  for (int k = 0; k < v->n_sim_spheres; k++) {
    drape_sphere_def sd;
    drape_sim_get_sphere(v->sim, k, &sd);
    char a[100];
    fmt3(a, sizeof a, sd.center);
    printf("view: %s sphere=%d center=%s radius=%.6f\n", what, k, a, sd.radius);
  }
  for (int k = 0; k < v->n_strings; k++) {
    const vw_string *st = &v->strings[k];
    const drape_string_params *p = drape_string_get_params(st->s);
    double end[3], tg[2];
    vw_string_end(v, k, end);
    drape_string_target(st->s, tg);
    /* §7.15: the hand's target is kept within the reach of the anchor. */
    double reach = p->hand_reach > 0 ? p->hand_reach : 1.15 * p->length;
    double dx = tg[0] - p->anchor[0], dy = tg[1] - p->anchor[1], dl = hypot(dx, dy);
    double cl[2] = {tg[0], tg[1]};
    if (dl > reach) {
      cl[0] = p->anchor[0] + dx * reach / dl;
      cl[1] = p->anchor[1] + dy * reach / dl;
    }
    double from_anchor = hypot(end[0] - p->anchor[0], end[1] - p->anchor[1]);
    printf("view: %s string=%d held=%d scripted=%d end=%.6f,%.6f target=%.6f,%.6f "
           "clamped=%.6f,%.6f err=%.3g from_anchor=%.6f reach=%.6f max_speed=%.6f time=%.9f\n",
           what, k, drape_string_is_held(st->s), drape_world_string_scripted(v->world, k), end[0], end[1], tg[0], tg[1], cl[0],
           cl[1], hypot(end[0] - cl[0], end[1] - cl[1]), from_anchor, reach, st->max_speed_held,
           drape_string_time(st->s));
  }
  fflush(stdout);
}

/* Applies the script's events for frame f (1-based); *next walks the list. */
static int apply_script(viewer *v, const vw_script *s, int f, int *next, drape_err *e) {
  for (; *next < s->n && s->ev[*next].frame == f; (*next)++) {
    const vw_event *ev = &s->ev[*next];
    if (ev->kind == VW_EV_PRINT || ev->kind == VW_EV_SCREENSHOT) continue; /* after drawing */
    double x = ev->x, y = ev->y;
    if (ev->has_pos && ev->world) {
      double w, h, p[3] = {ev->x, ev->y, ev->z};
      vw_window_size(v, &w, &h);
      if (!vw_camera_project(&v->cam, w, h, p, &x, &y))
        return drape_fail(e, DRAPE_EINVAL, "--script %s line %d: world point (%g, %g, %g) is "
                          "behind the camera", v->script_path, ev->line, p[0], p[1], p[2]);
    }
    switch (ev->kind) {
    case VW_EV_MOUSE_DOWN:
      vw_cursor(v, x, y);
      vw_mouse_button(v, ev->button, 1, ev->mods);
      break;
    case VW_EV_MOUSE_MOVE: vw_cursor(v, x, y); break;
    case VW_EV_MOUSE_UP:
      if (ev->has_pos) vw_cursor(v, x, y);
      vw_mouse_button(v, ev->button, 0, ev->mods);
      break;
    case VW_EV_SCROLL: vw_scroll(v, ev->y); break;
    case VW_EV_KEY: vw_key(v, ev->key, ev->mods); break;
    case VW_EV_RESIZE:
      glfwSetWindowSize((GLFWwindow *)v->win, (int)ev->x, (int)ev->y);
      /* X11 resizes asynchronously: wait (briefly) until it shows. */
      for (int i = 0; i < 100; i++) {
        int iw, ih;
        glfwPollEvents();
        glfwGetWindowSize((GLFWwindow *)v->win, &iw, &ih);
        if (iw == (int)ev->x && ih == (int)ev->y) break;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
      }
      break;
    default: break;
    }
  }
  return DRAPE_OK;
}

static int save_png(const char *path, int w, int h, drape_err *e) {
  uint8_t *rgb = malloc((size_t)w * (size_t)h * 3);
  if (!rgb) return drape_fail(e, DRAPE_ENOMEM, "out of memory (screenshot %dx%d)", w, h);
  glGetError(); /* every earlier call was checked where it was made */
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  int rc = drape_gl_check(e, "glBindFramebuffer(0) + glReadBuffer(GL_BACK)");
  if (!rc) rc = drape_gl_read_rgb(w, h, rgb, e);
  if (rc) {
    free(rgb);
    return rc;
  }
  /* A temporary name, renamed when complete: never a half-written file. */
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  int ok = stbi_write_png(tmp, w, h, 3, rgb, w * 3);
  free(rgb);
  if (!ok) {
    remove(tmp);
    return drape_fail(e, DRAPE_EIO, "--screenshot \"%s\": writing %s failed", path, tmp);
  }
  /* Only over a regular file (or none): never replaces a device or FIFO. */
  return dr_out_commit(tmp, path, "--screenshot", e);
}

/* ---------------------------------------------------------------- */
/* the frame loop                                                    */
/* ---------------------------------------------------------------- */

static double sim_clock(const viewer *v) {
  return v->sim || v->n_cables || v->n_strings ? vw_clock(v) : v->target_time;
}

static int draw(viewer *v, int *fb_w, int *fb_h, drape_err *e) {
  drape_gl_framebuffer_size(v->gl, fb_w, fb_h);
  if (*fb_w <= 0 || *fb_h <= 0) return DRAPE_OK; /* minimised */
  glGetError(); /* every earlier call was checked where it was made */
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  int rc = drape_gl_check(e, "glBindFramebuffer(0)");
  if (!rc) rc = drape_render_draw(v->r, &v->rs, *fb_w, *fb_h, e);
  if (!rc) {
    vw_overlay(v, *fb_w, *fb_h);
    rc = drape_render_overlay(v->r, *fb_w, *fb_h, e);
  }
  return rc;
}

static int run_frame(viewer *v, const vw_script *script, int *next_ev, drape_err *e) {
  int rc;
  const int f = v->frame + 1;
  if (v->frames > 0 && (rc = apply_script(v, script, f, next_ev, e))) return rc;
  if (v->quit) return DRAPE_OK;
  double now = drape_now();
  const int fixed = v->frames > 0 && !v->realtime;
  double wall = fixed ? v->dt : fmin(fmax(now - v->last_wall, 0.0), 0.1);
  v->last_wall = now;
  double keep_budget = v->budget_s;
  if (fixed) v->budget_s = 0; /* scripted: deterministic */
  if (!v->paused) {
    v->target_time += wall * v->speed;
  } else if (v->step_once) {
    v->target_time = sim_clock(v) + v->dt;
    v->budget_s = 0;
    v->step_once = 0;
  }
  rc = v->diverged ? DRAPE_OK : vw_physics(v, e);
  v->budget_s = keep_budget;
  if (rc == DRAPE_EUNSTABLE) {
    /* A solver's finiteness check stopped it: pause on the last picture
     * drawn (the buffers are not synced again) and keep the reason on
     * screen until a reset; a scripted run goes on drawing and exits 1. */
    v->diverged = 1;
    v->paused = 1;
    snprintf(v->diverged_msg, sizeof v->diverged_msg, "%s", e->msg);
    fprintf(stderr, "view: paused: %s\n", e->msg);
    char shown[300];
    snprintf(shown, sizeof shown, "%.*s", (int)strcspn(e->msg, ";"), e->msg);
    vw_message(v, "PAUSED: %s (R resets)", shown);
    v->message_until = INFINITY;
    rc = DRAPE_OK;
  }
  if (rc) return rc;
  if (!v->diverged && (rc = vw_sync_render(v, e))) return rc;
  vw_update_stats(v, 0);
  int fb_w, fb_h;
  double t0 = drape_now();
  if ((rc = draw(v, &fb_w, &fb_h, e))) return rc;
  v->draw_ms = (drape_now() - t0) * 1e3;
  v->frame = f;
  /* After drawing: the script's prints and screenshots for this frame. */
  for (int i = 0; script && i < script->n; i++) {
    const vw_event *ev = &script->ev[i];
    if (ev->frame != f) continue;
    if (ev->kind == VW_EV_PRINT) print_state(v, "print");
    if (ev->kind == VW_EV_SCREENSHOT && fb_w > 0) {
      if ((rc = save_png(ev->path, fb_w, fb_h, e))) return rc;
      if (!v->quiet) printf("view: screenshot frame=%d file=%s size=%dx%d\n", f, ev->path, fb_w,
                            fb_h);
    }
  }
  if (v->screenshot && v->frames > 0 && f == v->frames && fb_w > 0) {
    if ((rc = save_png(v->screenshot, fb_w, fb_h, e))) return rc;
    if (!v->quiet) printf("view: screenshot frame=%d file=%s size=%dx%d\n", f, v->screenshot,
                          fb_w, fb_h);
  }
  glfwSwapBuffers((GLFWwindow *)v->win);
  /* fps over half-second windows */
  v->fps_frames++;
  double el = drape_now() - v->fps_t0;
  if (el >= 0.5) {
    v->fps = v->fps_frames / el;
    v->fps_frames = 0;
    v->fps_t0 = drape_now();
    vw_title(v);
  }
  return DRAPE_OK;
}

static void teardown(viewer *v) {
  if (v->gl) drape_gl_make_current(v->gl, NULL);
  vw_scene_close(v);
  drape_renderer_destroy(v->r);
  v->r = NULL;
  if (v->cl_ready) drape_cl_release(&v->cl);
  v->cl_ready = 0;
  drape_gl_close(v->gl);
  v->gl = NULL;
}

int cmd_view(dr_app *app, int argc, char **argv) {
  viewer *v = calloc(1, sizeof *v);
  if (!v) {
    fprintf(stderr, "drape view: out of memory\n");
    return 1;
  }
  v->device = -1;
  v->backend = DRAPE_BACKEND_CL;
  v->interop = DRAPE_INTEROP_AUTO;
  v->vsync = 1;
  v->overlay = 1;
  v->samples = 4;
  v->budget_s = 0.008; /* seed 000 §7.13: ~8 ms of physics per frame */
  v->speed = 1.0;
  v->grab_id = -1;
  v->grab_particle = -1;
  view_args a = {0};
  vw_script script = {0};
  drape_err e = {0};
  int rc = parse_args(v, &a, argc, argv);
  if (rc) {
    free(v);
    return rc < 0 ? 0 : rc;
  }
  if (v->frames > 0) v->vsync = 0;
  if (v->device < 0) v->device = app->device;
  v->kernel_form = app->kernel_form;
  int want = -1;
  /* Everything that can be checked without a window first. */
  if ((rc = vw_resolve_scene(v, a.scene, &e))) goto done;
  {
    /* The whole file is checked now, before a window opens; the window
     * size is the render def's unless --size gave one. */
    drape_scene probe;
    if ((rc = drape_scene_load(v->scene_path, &probe, &e))) goto done;
    drape_scene_free(&probe);
    drape_render_def view;
    if ((rc = drape_render_def_load(v->scene_path, &view, &e))) goto done;
    if (!a.size_set) {
      v->width = view.width > 0 ? view.width : 1280;
      v->height = view.height > 0 ? view.height : 720;
    }
    drape_render_def_free(&view);
  }
  if (v->script_path) {
    if ((rc = vw_script_load(v->script_path, &script, &e))) goto done;
    if (script.last_frame > v->frames) {
      rc = drape_fail(&e, DRAPE_EINVAL, "--script %s: events at frame %d, after the last frame "
                      "(--frames %d)", v->script_path, script.last_frame, v->frames);
      goto done;
    }
  }
  if (v->backend == DRAPE_BACKEND_CL && (rc = drape_cl_requested_device(v->device, &want, &e)))
    goto done;
  if (v->backend == DRAPE_BACKEND_CPU && v->interop == DRAPE_INTEROP_SHARE) {
    rc = drape_fail(&e, DRAPE_EINVAL, "--interop share: the CPU backend (--backend cpu) keeps "
                    "its particles in host memory, nothing to share; use --interop auto or copy");
    goto done;
  }

  drape_gl_window_opts wo = drape_gl_window_opts_default();
  wo.width = v->width;
  wo.height = v->height;
  wo.title = "drape view";
  wo.visible = !v->hidden;
  wo.vsync = v->vsync;
  wo.samples = v->samples;
  if ((rc = drape_gl_open_window(&wo, &v->gl, &e))) goto done;
  v->win = drape_gl_window(v->gl);
  GLFWwindow *win = (GLFWwindow *)v->win;
  glfwSetWindowUserPointer(win, v);
  glfwSetKeyCallback(win, on_key);
  glfwSetMouseButtonCallback(win, on_button);
  glfwSetCursorPosCallback(win, on_cursor);
  glfwSetScrollCallback(win, on_scroll);
  {
    drape_render_opts ro = drape_render_opts_default();
    if ((rc = drape_renderer_create(&ro, &v->r, &e))) goto done;
  }
  if (v->backend == DRAPE_BACKEND_CL) {
    drape_cl_opts clo = drape_cl_default_opts();
    clo.device_index = want;
    clo.profiling = 1; /* ms per stage in the overlay */
    if ((rc = drape_interop_cl_init(v->gl, v->interop, &clo, &v->cl, &v->shared, v->why,
                                    sizeof v->why, &e)))
      goto done;
    v->cl_ready = 1;
    v->device = v->cl.device_index;
  }
  vw_find_scenes(v);
  if ((rc = vw_scene_open(v, v->scene_path, &e))) goto done;

  {
    int fw, fh;
    double ww, wh;
    drape_gl_framebuffer_size(v->gl, &fw, &fh);
    vw_window_size(v, &ww, &wh);
    if (!v->quiet) {
      fprintf(stderr, "drape view: %s, window %.0fx%.0f (framebuffer %dx%d), vsync %s\n",
              drape_gl_describe(v->gl), ww, wh, fw, fh, v->vsync ? "on" : "off");
      if (v->cl_ready)
        fprintf(stderr, "drape view: OpenCL device %d: %s (%s)\n", v->cl.device_index,
                v->cl.device_name, v->cl.platform_name);
      if (vw_interop(v))
        fprintf(stderr, "drape view: CL->GL transfer: %s%s%s\n", vw_transfer(v),
                v->why[0] ? "; sharing off: " : "", v->why);
    }
    if (v->frames > 0 && !v->quiet) {
      const drape_mesh *m = v->sim ? drape_sim_mesh(v->sim) : NULL;
      printf("view: start scene=%s window=%.0fx%.0f framebuffer=%dx%d particles=%d "
             "strings=%d device=\"%s\" interop=%s\n",
             v->scene_path, ww, wh, fw, fh, m ? m->n_particles : 0, v->n_strings,
             v->cl_ready ? v->cl.device_name : "cpu",
             vw_interop(v) ? vw_transfer(v) : "host");
    }
  }

  v->last_wall = v->fps_t0 = v->wall_t0 = drape_now();
  int next_ev = 0;
  while (!v->quit) {
    if (v->frames > 0 && v->frame >= v->frames) break;
    glfwPollEvents();
    if (glfwWindowShouldClose(win)) break;
    if ((rc = run_frame(v, &script, &next_ev, &e))) goto done;
  }
  if (v->quit == 2) { /* a scene switch failed and the old scene did not come back */
    rc = drape_fail(&e, DRAPE_EIO, "view: no scene left to show (see above)");
    goto done;
  }
  /* Interactive runs: the screenshot is the picture when the viewer closed. */
  if (v->screenshot && v->frames == 0) {
    int fb_w, fb_h;
    if ((rc = draw(v, &fb_w, &fb_h, &e))) goto done;
    if (fb_w > 0 && (rc = save_png(v->screenshot, fb_w, fb_h, &e))) goto done;
  }
  if (v->frames > 0) print_state(v, "result");
  rc = 0;
  if (v->frames > 0 && v->diverged) /* scripted: the run did not complete */
    rc = drape_fail(&e, DRAPE_EUNSTABLE, "%s", v->diverged_msg);
done:
  teardown(v);
  vw_script_free(&script);
  free(v);
  return rc ? drape_app_report(&e) : 0;
}
