/* The viewer's overlay (viewer.h): live statistics (top left), the
 * parameter panel (top right, seed 001 offers the same knobs for its mass
 * springs), a key line or the full help (bottom), and messages. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/viewer.h"

static const float YELLOW[4] = {1.0f, 0.85f, 0.30f, 1.0f};
static const float GREY[4] = {0.80f, 0.82f, 0.86f, 1.0f};
static const float ORANGE[4] = {1.0f, 0.62f, 0.25f, 1.0f};

/* Appends to buf (bounded, always terminated). */
static void cat(char *buf, size_t cap, const char *fmt, ...) DRAPE_PRINTF(3, 4);
static void cat(char *buf, size_t cap, const char *fmt, ...) {
  size_t n = strlen(buf);
  if (n + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + n, cap - n, fmt, ap);
  va_end(ap);
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Max strain and torn links: needs a read-back, so at most 4 times a
 * second (and whenever forced, e.g. for a scripted print). */
void vw_update_stats(viewer *v, int force) {
  double now = drape_now();
  if (!v->sim || (!force && now - v->stats_t < 0.25)) return;
  v->stats_t = now;
  drape_stats st;
  drape_err e = {0};
  if (drape_sim_stats(v->sim, &st, &e)) return;
  double m = 0;
  int torn = 0;
  for (int i = 0; i < st.n_objects; i++) {
    if (st.objects[i].max_strain > m) m = st.objects[i].max_strain;
    torn += st.objects[i].torn;
  }
  v->max_strain = m;
  v->torn = torn;
  /* Crossings (edges through triangles, exact; issue 18) with the stats,
   * 4 times a second: a few ms at 64², more for big cloths, not per frame. */
  long c;
  v->crossings = drape_world_count_crossings(v->world, &c, &e) ? -1 : c;
}

static void stats_text(viewer *v, char *b, size_t cap, int param_line) {
  b[0] = 0;
  double t = vw_clock(v);
  cat(b, cap, "%s   %.1f fps   t %.2f s   %s%s\n", base_name(v->scene_path), v->fps, t,
      v->paused ? "PAUSED" : v->speed < 1 ? "slow motion x1/4" : "real time",
      v->behind && !v->paused ? " (behind: budget full)" : "");
  if (v->frames > 0 && !v->realtime)
    cat(b, cap, "physics %.1f ms/frame (scripted: no budget)", v->phys_ms);
  else
    cat(b, cap, "physics %.1f ms/frame (budget %.0f ms)", v->phys_ms, v->budget_s * 1e3);
  cat(b, cap, "\nto GL %.2f ms   draw %.1f ms\n", v->xfer_ms, v->draw_ms);
  if (v->sim) {
    const drape_mesh *m = drape_sim_mesh(v->sim);
    drape_sim_params p;
    drape_sim_get_params(v->sim, &p);
    if (v->backend == DRAPE_BACKEND_CL && v->cl_ready) {
      cat(b, cap, "OpenCL %.50s   kernel form: %s\n", v->cl.device_name,
          drape_sim_kernel_form(v->sim));
      const char *xp = vw_transfer(v);
      if (strcmp(xp, "host") && strcmp(xp, "none"))
        cat(b, cap, "CL->GL interop: %s%s\n", xp,
            !strcmp(xp, "share")     ? " (cl_khr_gl_sharing)"
            : !strcmp(xp, "hostptr") ? " (copy to mapped GL memory)"
                                     : " (copy: map + upload)");
    } else {
      cat(b, cap, "CPU reference backend   interop: host upload\n");
    }
    cat(b, cap, "%d particles   %d constraints   %d colours   max strain %.2f %%", m->n_particles,
        m->n_constraints, m->n_colours, 100 * v->max_strain);
    if (v->torn) cat(b, cap, "   torn %d", v->torn);
    if (v->crossings >= 0) cat(b, cap, "   crossings %ld", v->crossings);
    cat(b, cap, "\nstep %.2f ms/frame: %d substeps x %d iterations\n", v->frame_ms, p.substeps,
        p.iterations);
    if (v->stage_valid) {
      /* ms per substep for each stage that ran (normals: once a frame). */
      int col = 0;
      cat(b, cap, "ms/substep:");
      for (int s = 0; s < DRAPE_STAGE_COUNT; s++) {
        if (v->stage_ms[s] <= 0) continue;
        double per = s == DRAPE_STAGE_NORMALS ? v->stage_ms[s] : v->stage_ms[s] / p.substeps;
        cat(b, cap, "%s%s %.3f%s", col == 4 ? "\n    " : "  ", drape_stage_name((drape_stage)s),
            per, s == DRAPE_STAGE_NORMALS ? "/frame" : "");
        col++;
      }
      cat(b, cap, "\n");
    }
  }
  for (int k = 0; k < v->n_strings; k++) {
    const vw_string *st = &v->strings[k];
    double end[3];
    vw_string_end(v, k, end);
    int held = drape_string_is_held(st->s);
    cat(b, cap, "string %.20s (CPU): %d links, %.3g m; end (%.2f, %.2f) %s\n", st->def.name,
        st->def.nodes, st->def.length, end[0], end[1],
        held ? (drape_world_string_scripted(v->world, k) ? "held by the scene's hand" : "held") : "free");
  }
  if (param_line && v->sim) {
    char pt[160];
    vw_param_text(v, v->sel_param, pt, sizeof pt);
    cat(b, cap, "parameter: %s   (Tab, +/-)\n", pt);
  }
  cat(b, cap, "GL %.60s", drape_gl_renderer_name(v->gl));
}

/* Small windows: two lines, so the picture stays visible. */
static void compact_text(viewer *v, char *b, size_t cap) {
  b[0] = 0;
  double t = vw_clock(v);
  cat(b, cap, "%.30s  %.1f fps  t %.2f s%s\n", base_name(v->scene_path), v->fps, t,
      v->paused ? "  PAUSED" : v->speed < 1 ? "  slow x1/4" : "");
  if (v->sim)
    cat(b, cap, "%d particles  strain %.1f %%  crossings %ld  %s",
        drape_sim_mesh(v->sim)->n_particles, 100 * v->max_strain, v->crossings, vw_transfer(v));
  for (int k = 0; k < v->n_strings && k < 1; k++) {
    double end[3];
    vw_string_end(v, k, end);
    cat(b, cap, "%send (%.2f, %.2f) %s", v->sim ? "  " : "", end[0], end[1],
        drape_string_is_held(v->strings[k].s) ? "held" : "free");
  }
}

static void params_text(const viewer *v, char *b, size_t cap, int *sel_line) {
  b[0] = 0;
  *sel_line = -1;
  if (!v->sim) {
    cat(b, cap, "parameters: only for cloth and rope\n(the string keeps seed 000's)");
    return;
  }
  cat(b, cap, "parameters (Tab, +/-, Shift: x10)\n");
  int line = 1;
  for (int p = 0; p < VW_P_COUNT; p++) {
    if (!vw_param_applies(v, p)) continue;
    char t[160];
    vw_param_text(v, p, t, sizeof t);
    if (p == v->sel_param) *sel_line = line;
    cat(b, cap, "%s %s\n", p == v->sel_param ? ">" : " ", t);
    line++;
  }
  cat(b, cap, "  tearing (T)        %s%s", v->tearing_on ? "on" : "off",
      v->tear_possible ? "" : " (no tear_ratio)");
}

static const char *HELP =
    "mouse   left drag: grab cloth / the string's orange end, else orbit\n"
    "        Shift+left drag: move a sphere, capsule or mesh   right/middle drag: pan   wheel: zoom\n"
    "Space   pause/run (string scenes: grab/release the string's end)    P  pause/run\n"
    "N       single step      R  reset        W  wind on/off     T  tearing on/off\n"
    "S       slow motion (quarter speed)      C/Home  reset view\n"
    "arrows  move the held string end, else the sphere   PgUp/PgDn  sphere up/down\n"
    "Tab     next parameter   +/-  change it (Shift: bigger steps)\n"
    "1-9     load scenes/ (below)   F1/H  this help   F2  hide/show the panels\n"
    "Esc     release what is held; quit when nothing is held     Q  quit\n";

void vw_overlay(viewer *v, int fb_w, int fb_h) {
  if (!v->overlay) return;
  /* 7 px glyphs at 480 px height, 1.5x at 720, 2x at 960 and so on
   * (high-DPI framebuffers get bigger text with their pixel count). */
  float s = (float)(floor(fb_h / 240.0) * 0.5);
  if (s < 1) s = 1;
  if (s > 5) s = 5;
  float line = 12 * s, pad = 8 * s;
  char buf[4096], pbuf[2048];
  int sel;
  float w, h, sw, sh;
  if (fb_w < 900 || fb_h < 500) {
    if (!v->hide_panels && !v->show_help) {
      compact_text(v, buf, sizeof buf);
      drape_render_text_panel(v->r, pad * 0.5f, pad * 0.5f, s, buf);
    }
    if (v->show_help) {
      drape_render_text_size(HELP, s, &w, &h);
      drape_render_text_panel(v->r, pad * 0.5f, pad * 0.5f, s, HELP);
    }
    if (v->message[0] && drape_now() < v->message_until)
      drape_render_text(v->r, pad * 0.5f, (float)fb_h - line - pad * 0.5f, s, ORANGE,
                        v->message);
    return;
  }
  params_text(v, pbuf, sizeof pbuf, &sel);
  drape_render_text_size(pbuf, s, &w, &h);
  /* The parameter panel goes top right when it fits beside the stats;
   * in a small window the selected parameter joins the stats instead. */
  stats_text(v, buf, sizeof buf, 0);
  drape_render_text_size(buf, s, &sw, &sh);
  float px = (float)fb_w - w - pad;
  int beside = px > sw + 3 * pad;
  if (!beside) stats_text(v, buf, sizeof buf, 1);
  if (!v->hide_panels) drape_render_text_panel(v->r, pad, pad, s, buf);
  if (beside && !v->hide_panels) {
    drape_render_text_panel(v->r, px, pad, s, pbuf);
    if (sel >= 0) {
      /* Redraw the selected line in yellow over the white one. */
      const char *p = pbuf;
      for (int i = 0; i < sel && p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
      }
      if (p) {
        char one[200];
        size_t n = strcspn(p, "\n");
        if (n >= sizeof one) n = sizeof one - 1;
        memcpy(one, p, n);
        one[n] = 0;
        drape_render_text(v->r, px, pad + sel * line, s, YELLOW, one);
      }
    }
  }

  if (v->show_help) {
    char help[3000];
    snprintf(help, sizeof help, "%s", HELP);
    if (v->n_scene_files > 0) {
      cat(help, sizeof help, "scenes:");
      for (int i = 0; i < v->n_scene_files; i++)
        cat(help, sizeof help, "%s %d %s", i == 5 ? "\n       " : "", i + 1, v->scene_files[i]);
    }
    drape_render_text_size(help, s, &w, &h);
    drape_render_text_panel(v->r, pad, (float)fb_h - h - pad, s, help);
  } else {
    const char *keys = v->n_strings > 0
                           ? "F1 help  drag the orange end  Space grab/release  arrows move it  "
                             "S slow  R reset  Esc release/quit"
                           : "F1 help  drag cloth  Shift+drag sphere  Space pause  N step  "
                             "R reset  W wind  T tear  S slow  1-9 scenes  Esc quit";
    drape_render_text_size(keys, s, &w, &h);
    if (w > (float)fb_w - 2 * pad) {
      keys = "F1 help";
      drape_render_text_size(keys, s, &w, &h);
    }
    drape_render_text(v->r, pad, (float)fb_h - h - pad, s, GREY, keys);
  }
  if (v->message[0] && drape_now() < v->message_until) {
    drape_render_text_size(v->message, s, &w, &h);
    float y = (float)fb_h - h - pad - (v->show_help ? 0 : 2 * line);
    if (v->show_help) y = (float)fb_h * 0.5f;
    drape_render_text_panel(v->r, 0.5f * ((float)fb_w - w), y, s, v->message);
    drape_render_text(v->r, 0.5f * ((float)fb_w - w), y, s, ORANGE, v->message);
  }
}

/* The title bar carries the essentials too (fps, particles, path). */
void vw_title(viewer *v) {
  if (!v->win) return;
  char t[512];
  int np = v->sim ? drape_sim_mesh(v->sim)->n_particles : 0;
  snprintf(t, sizeof t, "drape view - %.200s - %.0f fps - %d particles%s%s", base_name(v->scene_path),
           v->fps, np, vw_interop(v) ? " - interop " : "", vw_interop(v) ? vw_transfer(v) : "");
  glfwSetWindowTitle((GLFWwindow *)v->win, t);
}
