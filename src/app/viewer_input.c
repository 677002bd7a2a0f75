/* Keys and mouse for the viewer (viewer.h). GLFW callbacks and script
 * events both land here, so a scripted run exercises the same code as a
 * person at the window. Positions are window coordinates (what GLFW's
 * cursor callback reports; on a high-DPI screen the framebuffer has more
 * pixels than that, and only drawing uses framebuffer pixels). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/viewer.h"

/* How close (window units) the cursor must be to the string's end. */
#define END_PICK_RADIUS 24.0
/* Cursor tolerance (window units) for picking a rope node. */
#define ROPE_PICK_RADIUS 10.0

void vw_message(viewer *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->message, sizeof v->message, fmt, ap);
  va_end(ap);
  v->message_until = drape_now() + 4.0;
  if (v->frames > 0 && !v->quiet) printf("view: frame=%d note: %s\n", v->frame + 1, v->message);
}

void vw_window_size(const viewer *v, double *w, double *h) {
  int iw = 0, ih = 0;
  if (v->win) glfwGetWindowSize((GLFWwindow *)v->win, &iw, &ih);
  *w = iw > 0 ? iw : (v->width > 0 ? v->width : 1280);
  *h = ih > 0 ? ih : (v->height > 0 ? v->height : 720);
}

static void cursor_ray(const viewer *v, double o[3], double d[3]) {
  double w, h;
  vw_window_size(v, &w, &h);
  vw_camera_ray(&v->cam, w, h, v->mx, v->my, o, d);
}

/* ---------------------------------------------------------------- */
/* parameters                                                        */
/* ---------------------------------------------------------------- */

static const char *PARAM_NAMES[VW_P_COUNT] = {
    "substeps", "iterations", "stretch compliance", "shear compliance", "bend compliance",
    "damping", "gravity", "wind", "sphere radius"};

void vw_params_from_scene(viewer *v) {
  const drape_scene *s = &v->scene;
  v->compliance[0] = v->compliance[1] = v->compliance[2] = 0;
  v->damping = 0;
  if (s->n_cloth > 0) {
    v->compliance[0] = s->cloth[0].compliance_stretch;
    v->compliance[1] = s->cloth[0].compliance_shear;
    v->compliance[2] = s->cloth[0].compliance_bend;
    v->damping = s->cloth[0].damping;
  } else if (s->n_rope > 0) {
    v->compliance[0] = s->rope[0].compliance;
    v->damping = s->rope[0].damping;
  }
  /* a material: its stiffnesses in SI units instead of compliances */
  drape_material_def md;
  v->material_mode = v->sim && drape_sim_get_material(v->sim, 0, &md) == DRAPE_OK;
  if (v->material_mode) {
    v->compliance[0] = md.stretch[0];
    v->compliance[1] = md.shear;
    v->compliance[2] = md.bend[0];
  }
  double w = sqrt(s->wind[0] * s->wind[0] + s->wind[1] * s->wind[1] + s->wind[2] * s->wind[2]);
  if (w > 0) {
    v->wind_speed = w;
    for (int k = 0; k < 3; k++) v->wind_dir[k] = s->wind[k] / w;
  } else {
    /* No wind in the scene: W blows 3 m/s along +x, slightly towards +z. */
    v->wind_speed = 0;
    v->wind_dir[0] = 0.894427191;
    v->wind_dir[1] = 0;
    v->wind_dir[2] = 0.447213595;
  }
  v->wind_on = 0;
  v->tearing_on = 0;
  if (v->sim) {
    drape_sim_params p;
    drape_sim_get_params(v->sim, &p);
    v->wind_on = p.wind_enabled && w > 0;
    v->tearing_on = p.tearing_enabled;
  }
  if (v->sel_param < 0 || v->sel_param >= VW_P_COUNT || !vw_param_applies(v, v->sel_param))
    v->sel_param = 0;
}

int vw_param_applies(const viewer *v, int p) {
  if (!v->sim) return 0;
  if (p == VW_P_RADIUS) return v->n_sim_spheres > 0;
  if (p == VW_P_SHEAR || p == VW_P_BEND) return v->scene.n_cloth > 0;
  return 1;
}

static void fmt_num(char *buf, size_t cap, double x) {
  if (x == 0) snprintf(buf, cap, "0");
  else if (fabs(x) < 1e-3 || fabs(x) >= 1e5) snprintf(buf, cap, "%.3g", x);
  else snprintf(buf, cap, "%.4g", x);
}

void vw_param_text(const viewer *v, int p, char *buf, size_t cap) {
  char n[64];
  drape_sim_params sp;
  memset(&sp, 0, sizeof sp);
  if (v->sim) drape_sim_get_params(v->sim, &sp);
  switch (p) {
  case VW_P_SUBSTEPS: snprintf(buf, cap, "%-18s %d", PARAM_NAMES[p], sp.substeps); return;
  case VW_P_ITERATIONS: snprintf(buf, cap, "%-18s %d", PARAM_NAMES[p], sp.iterations); return;
  case VW_P_STRETCH:
  case VW_P_SHEAR:
  case VW_P_BEND:
    fmt_num(n, sizeof n, v->compliance[p - VW_P_STRETCH]);
    if (v->material_mode) {
      static const char *const names[3] = {"stretch (warp)", "shear", "bend (warp)"};
      static const char *const units[3] = {"N/m", "N/m", "N m"};
      snprintf(buf, cap, "%-18s %s %s", names[p - VW_P_STRETCH], n, units[p - VW_P_STRETCH]);
    } else {
      snprintf(buf, cap, "%-18s %s m/N", PARAM_NAMES[p], n);
    }
    return;
  case VW_P_DAMPING:
    fmt_num(n, sizeof n, v->damping);
    snprintf(buf, cap, "%-18s %s 1/s", PARAM_NAMES[p], n);
    return;
  case VW_P_GRAVITY:
    fmt_num(n, sizeof n, sp.gravity[1]);
    snprintf(buf, cap, "%-18s %s m/s^2", PARAM_NAMES[p], n);
    return;
  case VW_P_WIND:
    fmt_num(n, sizeof n, v->wind_speed);
    snprintf(buf, cap, "%-18s %s m/s (%s)", PARAM_NAMES[p], n, v->wind_on ? "on" : "off");
    return;
  case VW_P_RADIUS: {
    drape_sphere_def sd;
    memset(&sd, 0, sizeof sd);
    if (v->n_sim_spheres > 0) drape_sim_get_sphere(v->sim, 0, &sd);
    fmt_num(n, sizeof n, sd.radius);
    snprintf(buf, cap, "%-18s %s m", PARAM_NAMES[p], n);
    return;
  }
  default: snprintf(buf, cap, "?");
  }
}

static int apply_wind(viewer *v, drape_err *e) {
  drape_sim_params p;
  drape_sim_get_params(v->sim, &p);
  for (int k = 0; k < 3; k++) p.wind[k] = v->wind_dir[k] * v->wind_speed;
  p.wind_enabled = v->wind_on && v->wind_speed > 0;
  return drape_sim_set_params(v->sim, &p, e);
}

/* Compliance and damping step by decades (x10 / x2), through 0 at the
 * bottom, since their useful values span many orders of magnitude. */
static double step_log(double x, int dir, double factor, double smallest) {
  if (dir > 0) return x < smallest ? smallest : x * factor;
  if (x <= smallest * 1.000001) return 0;
  return x / factor;
}

int vw_param_step(viewer *v, int p, int dir, int big, drape_err *e) {
  if (!vw_param_applies(v, p)) return DRAPE_OK;
  drape_sim_params sp;
  drape_sim_get_params(v->sim, &sp);
  int rc = DRAPE_OK;
  switch (p) {
  case VW_P_SUBSTEPS: {
    int s = sp.substeps + dir * (big ? 10 : 1);
    sp.substeps = s < 1 ? 1 : s > 1000 ? 1000 : s;
    rc = drape_sim_set_params(v->sim, &sp, e);
    break;
  }
  case VW_P_ITERATIONS: {
    int s = sp.iterations + dir * (big ? 5 : 1);
    sp.iterations = s < 1 ? 1 : s > 100 ? 100 : s;
    rc = drape_sim_set_params(v->sim, &sp, e);
    break;
  }
  case VW_P_STRETCH:
  case VW_P_SHEAR:
  case VW_P_BEND: {
    int k = p - VW_P_STRETCH;
    if (v->material_mode) { /* every material object, scaled alike */
      const double f = dir > 0 ? (big ? 10.0 : 2.0) : (big ? 0.1 : 0.5);
      const drape_mesh *mesh = drape_sim_mesh(v->sim);
      for (int ob = 0; ob < mesh->n_objects && !rc; ob++) {
        drape_material_def md;
        if (drape_sim_get_material(v->sim, ob, &md)) continue;
        if (k == 0) md.stretch[0] *= f, md.stretch[1] *= f;
        else if (k == 1) md.shear *= f;
        else md.bend[0] *= f, md.bend[1] *= f;
        rc = drape_sim_set_material(v->sim, ob, &md, e);
      }
      drape_material_def md0;
      if (!drape_sim_get_material(v->sim, 0, &md0))
        v->compliance[k] = k == 0 ? md0.stretch[0] : k == 1 ? md0.shear : md0.bend[0];
      break;
    }
    double c = step_log(v->compliance[k], dir, big ? 100 : 10, 1e-10);
    if (c > 1) c = 1;
    rc = drape_sim_set_compliance(v->sim, -1, (drape_compliance_kind)k, c, e);
    if (!rc) v->compliance[k] = c;
    break;
  }
  case VW_P_DAMPING: {
    double d = step_log(v->damping, dir, big ? 10 : 2, 0.005);
    if (d > 100) d = 100;
    rc = drape_sim_set_damping(v->sim, -1, d, e);
    if (!rc) v->damping = d;
    break;
  }
  case VW_P_GRAVITY:
    sp.gravity[1] += dir * (big ? 2.5 : 0.5);
    if (fabs(sp.gravity[1]) < 1e-9) sp.gravity[1] = 0;
    if (sp.gravity[1] > 50) sp.gravity[1] = 50;
    if (sp.gravity[1] < -50) sp.gravity[1] = -50;
    rc = drape_sim_set_params(v->sim, &sp, e);
    break;
  case VW_P_WIND:
    v->wind_speed += dir * (big ? 2.5 : 0.5);
    if (v->wind_speed < 1e-9) v->wind_speed = 0;
    if (v->wind_speed > 50) v->wind_speed = 50;
    v->wind_on = v->wind_speed > 0;
    rc = apply_wind(v, e);
    break;
  case VW_P_RADIUS: {
    drape_sphere_def sd;
    drape_sim_get_sphere(v->sim, 0, &sd);
    double r = sd.radius + dir * (big ? 0.1 : 0.02);
    if (r < 0.02) r = 0.02;
    if (r > 10) r = 10;
    rc = drape_sim_set_sphere(v->sim, 0, NULL, &r, NULL, e);
    break;
  }
  }
  if (!rc) {
    char t[160];
    vw_param_text(v, p, t, sizeof t);
    vw_message(v, "%s", t);
  }
  return rc;
}

/* ---------------------------------------------------------------- */
/* grabs                                                             */
/* ---------------------------------------------------------------- */

int vw_release_all(viewer *v) {
  int any = 0;
  drape_err e = {0};
  if (v->drag == VW_DRAG_PARTICLE && v->grab_id >= 0) {
    if (drape_sim_grab_release(v->sim, v->grab_id, &e)) vw_message(v, "%s", e.msg);
    any = 1;
  }
  if (v->drag == VW_DRAG_SPHERE) any = 1;
  v->grab_id = -1;
  if (v->drag == VW_DRAG_PARTICLE || v->drag == VW_DRAG_SPHERE || v->drag == VW_DRAG_STRING)
    v->drag = VW_DRAG_NONE;
  for (int k = 0; k < v->n_strings; k++) {
    vw_string *st = &v->strings[k];
    if (drape_string_is_held(st->s)) {
      drape_string_release(st->s);
      any = 1;
    }
    drape_world_string_take(v->world, k); /* the person has taken over the hand */
  }
  return any;
}

/* The front-most cloth triangle or rope node under the cursor ray, unless
 * a sphere is in front of it; returns the particle nearest the hit. */
static int pick_particle(viewer *v, const double o[3], const double d[3], int *particle,
                         double hit[3]) {
  *particle = -1;
  drape_err e = {0};
  if (vw_read_positions(v, &e)) {
    vw_message(v, "%s", e.msg);
    return 0;
  }
  const drape_mesh *m = drape_sim_mesh(v->sim);
  const float *x = v->host_pos;
  double best = INFINITY;
  int best_tri = -1, best_node = -1;
  for (int t = 0; t < v->n_tris; t++) {
    double a[3], b[3], c[3];
    const uint32_t *ix = v->tris + 3 * t;
    for (int q = 0; q < 3; q++) {
      a[q] = x[4 * ix[0] + q];
      b[q] = x[4 * ix[1] + q];
      c[q] = x[4 * ix[2] + q];
    }
    double tt;
    if (vw_ray_triangle(o, d, a, b, c, &tt) && tt < best) {
      best = tt;
      best_tri = t;
    }
  }
  double w, h;
  vw_window_size(v, &w, &h);
  double per_unit = 2.0 * tan(v->cam.fov_deg * 3.14159265358979323846 / 360.0) / h;
  for (int ob = 0; ob < m->n_objects; ob++) {
    const drape_object_info *oi = &m->objects[ob];
    if (oi->kind != DRAPE_OBJ_ROPE) continue;
    for (int i = oi->first_particle; i < oi->first_particle + oi->n_particles; i++) {
      double p[3] = {x[4 * i], x[4 * i + 1], x[4 * i + 2]}, tt;
      double dist = vw_ray_point_dist(o, d, p, &tt);
      if (tt <= 0) continue;
      double tol = fmax(2 * oi->thickness, ROPE_PICK_RADIUS * per_unit * tt);
      if (dist <= tol && tt < best) {
        best = tt;
        best_node = i;
        best_tri = -1;
      }
    }
  }
  if (!isfinite(best)) return 0;
  for (int k = 0; k < v->n_sim_spheres; k++) {
    drape_sphere_def sd;
    double ts;
    drape_sim_get_sphere(v->sim, k, &sd);
    if (vw_ray_sphere(o, d, sd.center, sd.radius, &ts) && ts < best) return 0;
  }
  for (int q = 0; q < 3; q++) hit[q] = o[q] + best * d[q];
  if (best_node >= 0) {
    *particle = best_node;
    return 1;
  }
  double dmin = INFINITY;
  for (int c = 0; c < 3; c++) {
    int i = (int)v->tris[3 * best_tri + c];
    double dd = 0;
    for (int q = 0; q < 3; q++) dd += (x[4 * i + q] - hit[q]) * (x[4 * i + q] - hit[q]);
    if (dd < dmin) {
      dmin = dd;
      *particle = i;
    }
  }
  return 1;
}

static int start_particle_grab(viewer *v, const double o[3], const double d[3]) {
  int particle;
  double hit[3];
  if (!v->sim || !pick_particle(v, o, d, &particle, &hit[0])) return 0;
  double pos[3] = {v->host_pos[4 * particle], v->host_pos[4 * particle + 1],
                   v->host_pos[4 * particle + 2]};
  drape_err e = {0};
  int id;
  if (drape_sim_grab(v->sim, particle, pos, &id, &e)) {
    vw_message(v, "%s", e.msg);
    return 1; /* something was under the cursor: no orbit either */
  }
  /* Drag on the plane through the particle facing the camera. */
  double f[3], r[3], u[3], t;
  vw_camera_basis(&v->cam, f, r, u);
  memcpy(v->grab_point, pos, sizeof pos);
  memcpy(v->grab_normal, f, sizeof f);
  double on[3];
  if (vw_ray_plane(o, d, pos, f, &t))
    for (int q = 0; q < 3; q++) on[q] = o[q] + t * d[q];
  else memcpy(on, pos, sizeof on);
  for (int q = 0; q < 3; q++) v->grab_offset[q] = pos[q] - on[q];
  memcpy(v->grab_target, pos, sizeof pos);
  v->grab_id = id;
  v->grab_particle = particle;
  v->drag = VW_DRAG_PARTICLE;
  if (v->frames > 0 && !v->quiet) {
    double w, h, sx = 0, sy = 0;
    vw_window_size(v, &w, &h);
    vw_camera_project(&v->cam, w, h, pos, &sx, &sy);
    printf("view: frame=%d pick particle=%d pos=%.6f,%.6f,%.6f hit=%.6f,%.6f,%.6f "
           "screen=%.2f,%.2f mouse=%.2f,%.2f\n", v->frame + 1, particle, pos[0], pos[1], pos[2],
           hit[0], hit[1], hit[2], sx, sy, v->mx, v->my);
  }
  return 1;
}

static void drag_particle(viewer *v, const double o[3], const double d[3]) {
  double t;
  if (!vw_ray_plane(o, d, v->grab_point, v->grab_normal, &t)) return;
  double tg[3];
  for (int q = 0; q < 3; q++) tg[q] = o[q] + t * d[q] + v->grab_offset[q];
  drape_err e = {0};
  if (drape_sim_grab_move(v->sim, v->grab_id, tg, &e)) {
    vw_message(v, "%s", e.msg);
    return;
  }
  memcpy(v->grab_target, tg, sizeof tg);
}

/* The string's plane z = def.z; seen edge-on, the camera-facing plane
 * through the end instead (then only x and y are used). */
static int string_plane_point(const viewer *v, int k, const double o[3], const double d[3],
                              double xy[2]) {
  const vw_string *st = &v->strings[k];
  double p0[3] = {0, 0, st->def.z}, n[3] = {0, 0, 1}, t;
  double f[3], r[3], u[3];
  vw_camera_basis(&v->cam, f, r, u);
  if (fabs(f[2]) < 0.05) {
    vw_string_end(v, k, p0);
    memcpy(n, f, sizeof n);
  }
  if (!vw_ray_plane(o, d, p0, n, &t)) return 0;
  xy[0] = o[0] + t * d[0];
  xy[1] = o[1] + t * d[1];
  return 1;
}

static int start_string_grab(viewer *v, const double o[3], const double d[3]) {
  double w, h;
  vw_window_size(v, &w, &h);
  int best = -1;
  double bd = END_PICK_RADIUS;
  for (int k = 0; k < v->n_strings; k++) {
    double end[3], sx, sy;
    vw_string_end(v, k, end);
    if (!vw_camera_project(&v->cam, w, h, end, &sx, &sy)) continue;
    double dist = hypot(sx - v->mx, sy - v->my);
    if (dist <= bd) {
      bd = dist;
      best = k;
    }
  }
  if (best < 0) return 0;
  vw_string *st = &v->strings[best];
  double xy[2], end[3];
  if (!string_plane_point(v, best, o, d, xy)) return 0;
  vw_string_end(v, best, end);
  st->grab_offset[0] = end[0] - xy[0];
  st->grab_offset[1] = end[1] - xy[1];
  drape_world_string_take(v->world, best);
  st->max_speed_held = 0;
  /* §7.15: the hand takes the end where it is and chases the cursor. */
  if (drape_string_is_held(st->s)) drape_string_set_target(st->s, end[0], end[1]);
  else drape_string_grab(st->s, end[0], end[1]);
  v->drag = VW_DRAG_STRING;
  v->drag_string = best;
  if (v->frames > 0 && !v->quiet)
    printf("view: frame=%d string_grab string=%d end=%.6f,%.6f mouse=%.2f,%.2f\n", v->frame + 1,
           best, end[0], end[1], v->mx, v->my);
  return 1;
}

static void drag_string(viewer *v, const double o[3], const double d[3]) {
  vw_string *st = &v->strings[v->drag_string];
  double xy[2];
  if (!string_plane_point(v, v->drag_string, o, d, xy)) return;
  drape_string_set_target(st->s, xy[0] + st->grab_offset[0], xy[1] + st->grab_offset[1]);
}

static int start_sphere_drag(viewer *v, const double o[3], const double d[3]) {
  int best = -1;
  double bt = INFINITY;
  for (int k = 0; k < v->n_sim_spheres; k++) {
    drape_sphere_def sd;
    double t;
    drape_sim_get_sphere(v->sim, k, &sd);
    if (vw_ray_sphere(o, d, sd.center, sd.radius, &t) && t < bt) {
      bt = t;
      best = k;
    }
  }
  if (best < 0) return 0;
  drape_sphere_def sd;
  drape_sim_get_sphere(v->sim, best, &sd);
  double f[3], r[3], u[3], t;
  vw_camera_basis(&v->cam, f, r, u);
  memcpy(v->grab_point, sd.center, sizeof v->grab_point);
  memcpy(v->grab_normal, f, sizeof f);
  double on[3];
  if (vw_ray_plane(o, d, sd.center, f, &t))
    for (int q = 0; q < 3; q++) on[q] = o[q] + t * d[q];
  else memcpy(on, sd.center, sizeof on);
  for (int q = 0; q < 3; q++) v->drag_offset[q] = sd.center[q] - on[q];
  v->drag_sphere = best;
  v->drag = VW_DRAG_SPHERE;
  return 1;
}

/* Shift-drag of a capsule: the one whose axis passes nearest the ray within
 * its radius; it follows the cursor in the plane through the grabbed axis
 * point facing the camera (vw_apply_sphere_goals moves it). */
static int start_capsule_drag(viewer *v, const double o[3], const double d[3]) {
  int best = -1;
  double bt = INFINITY, bp[3] = {0, 0, 0};
  for (int k = 0; k < drape_sim_n_capsules(v->sim); k++) {
    double a[3], b[3], r;
    drape_sim_get_capsule(v->sim, k, a, b, &r);
    for (int i = 0; i <= 64; i++) { /* samples along the axis: enough to pick */
      double p[3], t;
      for (int q = 0; q < 3; q++) p[q] = a[q] + (b[q] - a[q]) * i / 64.0;
      if (vw_ray_point_dist(o, d, p, &t) <= r && t > 0 && t < bt) {
        bt = t, best = k;
        memcpy(bp, p, sizeof bp);
      }
    }
  }
  if (best < 0) return 0;
  double f[3], r[3], u[3], t, off[3];
  vw_camera_basis(&v->cam, f, r, u);
  memcpy(v->grab_point, bp, sizeof v->grab_point);
  memcpy(v->grab_normal, f, sizeof f);
  drape_sim_capsule_offset(v->sim, best, off);
  double on[3];
  if (vw_ray_plane(o, d, bp, f, &t))
    for (int q = 0; q < 3; q++) on[q] = o[q] + t * d[q];
  else memcpy(on, bp, sizeof on);
  for (int q = 0; q < 3; q++) v->drag_offset[q] = off[q] - on[q];
  v->drag_capsule = best;
  v->drag = VW_DRAG_CAPSULE;
  return 1;
}

static void drag_capsule(viewer *v, const double o[3], const double d[3]) {
  double t;
  if (!vw_ray_plane(o, d, v->grab_point, v->grab_normal, &t)) return;
  for (int q = 0; q < 3; q++) v->capsule_goal[q] = o[q] + t * d[q] + v->drag_offset[q];
  v->capsule_goal_on = 1;
}

/* Shift-drag of a mesh collider: the one whose triangles the ray meets
 * first; it follows the cursor in the plane through the point hit facing
 * the camera (vw_apply_sphere_goals moves it, swept, at <= 4 m/s). */
static int start_collider_drag(viewer *v, const double o[3], const double d[3]) {
  double t, hit[3], f[3], r[3], u[3], off[3];
  const int k = vw_pick_collider(v->sim, o, d, &t, hit);
  if (k < 0) return 0;
  vw_camera_basis(&v->cam, f, r, u);
  memcpy(v->grab_point, hit, sizeof v->grab_point);
  memcpy(v->grab_normal, f, sizeof f);
  drape_sim_collider_offset(v->sim, k, off);
  /* the ray meets the plane at the point hit: the offset follows it */
  for (int q = 0; q < 3; q++) v->drag_offset[q] = off[q] - hit[q];
  v->drag_collider = k;
  v->drag = VW_DRAG_COLLIDER;
  return 1;
}

static void drag_collider(viewer *v, const double o[3], const double d[3]) {
  double t;
  if (!vw_ray_plane(o, d, v->grab_point, v->grab_normal, &t)) return;
  for (int q = 0; q < 3; q++) v->collider_goal[q] = o[q] + t * d[q] + v->drag_offset[q];
  v->collider_goal_on = 1;
}

static void drag_sphere(viewer *v, const double o[3], const double d[3]) {
  double t;
  if (!vw_ray_plane(o, d, v->grab_point, v->grab_normal, &t)) return;
  int k = v->drag_sphere;
  for (int q = 0; q < 3; q++) v->sphere_goal[k][q] = o[q] + t * d[q] + v->drag_offset[q];
  v->sphere_goal_on[k] = 1;
}

/* ---------------------------------------------------------------- */
/* mouse                                                             */
/* ---------------------------------------------------------------- */

void vw_mouse_button(viewer *v, int button, int press, int mods) {
  double o[3], d[3];
  cursor_ray(v, o, d);
  if (!press) {
    if (button != v->drag_button) return;
    drape_err e = {0};
    if (v->drag == VW_DRAG_PARTICLE && v->grab_id >= 0) {
      if (drape_sim_grab_release(v->sim, v->grab_id, &e)) vw_message(v, "%s", e.msg);
      v->grab_id = -1;
    } else if (v->drag == VW_DRAG_STRING) {
      /* §7.6: letting go of the end lets the string fall and swing. */
      drape_string_release(v->strings[v->drag_string].s);
    }
    v->drag = VW_DRAG_NONE;
    return;
  }
  if (v->drag != VW_DRAG_NONE) return; /* one drag at a time */
  v->drag_button = button;
  if (button == GLFW_MOUSE_BUTTON_LEFT) {
    if ((mods & GLFW_MOD_SHIFT) && v->sim && start_sphere_drag(v, o, d)) return;
    if ((mods & GLFW_MOD_SHIFT) && v->sim && start_capsule_drag(v, o, d)) return;
    if ((mods & GLFW_MOD_SHIFT) && v->sim && start_collider_drag(v, o, d)) return;
    if (start_string_grab(v, o, d)) return;
    if (start_particle_grab(v, o, d)) return;
    v->drag = VW_DRAG_ORBIT;
  } else {
    v->drag = VW_DRAG_PAN;
  }
}

void vw_cursor(viewer *v, double x, double y) {
  double dx = x - v->mx, dy = y - v->my;
  v->mx = x;
  v->my = y;
  double o[3], d[3];
  switch (v->drag) {
  case VW_DRAG_ORBIT: vw_camera_orbit(&v->cam, dx, dy); break;
  case VW_DRAG_PAN: {
    double w, h;
    vw_window_size(v, &w, &h);
    vw_camera_pan(&v->cam, dx, dy, h);
    break;
  }
  case VW_DRAG_PARTICLE:
    cursor_ray(v, o, d);
    drag_particle(v, o, d);
    break;
  case VW_DRAG_SPHERE:
    cursor_ray(v, o, d);
    drag_sphere(v, o, d);
    break;
  case VW_DRAG_CAPSULE:
    cursor_ray(v, o, d);
    drag_capsule(v, o, d);
    break;
  case VW_DRAG_COLLIDER:
    cursor_ray(v, o, d);
    drag_collider(v, o, d);
    break;
  case VW_DRAG_STRING:
    cursor_ray(v, o, d);
    drag_string(v, o, d);
    break;
  default: break;
  }
}

void vw_scroll(viewer *v, double dy) { vw_camera_zoom(&v->cam, dy); }

/* ---------------------------------------------------------------- */
/* keys                                                              */
/* ---------------------------------------------------------------- */

static int held_string(const viewer *v) {
  if (v->drag == VW_DRAG_STRING) return v->drag_string;
  for (int k = 0; k < v->n_strings; k++)
    if (drape_string_is_held(v->strings[k].s)) return k;
  return -1;
}

static void move_sphere_key(viewer *v, int key, int big) {
  if (!v->sim || v->n_sim_spheres == 0) return;
  int k = v->drag == VW_DRAG_SPHERE ? v->drag_sphere : 0;
  drape_sphere_def sd;
  drape_sim_get_sphere(v->sim, k, &sd);
  double *g = v->sphere_goal[k];
  if (!v->sphere_goal_on[k]) memcpy(g, sd.center, sizeof sd.center);
  /* Arrows move along the ground as the camera sees it. */
  double f[3], r[3], u[3];
  vw_camera_basis(&v->cam, f, r, u);
  double fl = hypot(f[0], f[2]), rl = hypot(r[0], r[2]);
  double step = big ? 0.2 : 0.05;
  switch (key) {
  case GLFW_KEY_LEFT: g[0] -= step * r[0] / rl, g[2] -= step * r[2] / rl; break;
  case GLFW_KEY_RIGHT: g[0] += step * r[0] / rl, g[2] += step * r[2] / rl; break;
  case GLFW_KEY_UP: g[0] += step * f[0] / fl, g[2] += step * f[2] / fl; break;
  case GLFW_KEY_DOWN: g[0] -= step * f[0] / fl, g[2] -= step * f[2] / fl; break;
  case GLFW_KEY_PAGE_UP: g[1] += step; break;
  case GLFW_KEY_PAGE_DOWN: g[1] -= step; break;
  default: return;
  }
  v->sphere_goal_on[k] = 1;
}

static void load_scene_key(viewer *v, int n) {
  if (n >= v->n_scene_files) {
    vw_message(v, "no scene %d (%d scene files in %s)", n + 1, v->n_scene_files,
               v->scenes_dir[0] ? v->scenes_dir : "scenes/");
    return;
  }
  char path[8400], old[4096];
  snprintf(path, sizeof path, "%s/%s", v->scenes_dir, v->scene_files[n]);
  snprintf(old, sizeof old, "%s", v->scene_path);
  drape_err e = {0};
  if (vw_scene_open(v, path, &e)) {
    char msg[1100];
    snprintf(msg, sizeof msg, "%s", e.msg);
    drape_err e2 = {0};
    if (!v->scene_loaded && vw_scene_open(v, old, &e2)) {
      fprintf(stderr, "drape view: %s\ndrape view: reopening %s failed: %s\n", msg, old, e2.msg);
      v->quit = 2;
      return;
    }
    vw_message(v, "%s", msg);
    return;
  }
  vw_message(v, "scene %d: %s", n + 1, v->scene_files[n]);
}

void vw_key(viewer *v, int key, int mods) {
  const int big = (mods & GLFW_MOD_SHIFT) != 0;
  drape_err e = {0};
  int rc = DRAPE_OK;
  int hs = held_string(v);
  switch (key) {
  case GLFW_KEY_ESCAPE:
    /* §7.6: Escape releases the held end; with nothing held it quits. */
    if (vw_release_all(v)) vw_message(v, "released (Esc again quits)");
    else v->quit = 1;
    break;
  case GLFW_KEY_Q: v->quit = 1; break;
  case GLFW_KEY_SPACE:
    if (v->n_strings > 0) {
      /* §7.6: Space grabs or releases the string's end. */
      int k = hs >= 0 ? hs : 0;
      vw_string *st = &v->strings[k];
      drape_world_string_take(v->world, k);
      if (drape_string_is_held(st->s)) {
        drape_string_release(st->s);
        if (v->drag == VW_DRAG_STRING) v->drag = VW_DRAG_NONE;
        vw_message(v, "string end released");
      } else {
        double end[3];
        vw_string_end(v, k, end);
        st->max_speed_held = 0;
        drape_string_grab(st->s, end[0], end[1]);
        vw_message(v, "string end held (arrows move it)");
      }
    } else {
      v->paused = !v->paused;
    }
    break;
  case GLFW_KEY_P: v->paused = !v->paused; break;
  case GLFW_KEY_N:
    v->paused = 1;
    v->step_once = 1;
    break;
  case GLFW_KEY_R:
    rc = vw_scene_reset(v, &e);
    if (!rc) vw_message(v, "reset");
    break;
  case GLFW_KEY_W:
    if (!v->sim) break;
    v->wind_on = !v->wind_on;
    if (v->wind_on && v->wind_speed <= 0) v->wind_speed = 3.0;
    rc = apply_wind(v, &e);
    if (!rc) vw_message(v, "wind %s (%.3g m/s)", v->wind_on ? "on" : "off", v->wind_speed);
    break;
  case GLFW_KEY_T:
    if (!v->sim) break;
    {
      drape_sim_params p;
      drape_sim_get_params(v->sim, &p);
      p.tearing_enabled = !p.tearing_enabled;
      rc = drape_sim_set_params(v->sim, &p, &e);
      if (!rc) {
        v->tearing_on = p.tearing_enabled;
        vw_message(v, "tearing %s%s", v->tearing_on ? "on" : "off",
                   v->tear_possible ? "" : " (no cloth in this scene has a tear_ratio)");
      }
    }
    break;
  case GLFW_KEY_S:
    v->speed = v->speed < 1 ? 1.0 : 0.25;
    vw_message(v, "%s", v->speed < 1 ? "slow motion: quarter speed" : "normal speed");
    break;
  case GLFW_KEY_F1:
  case GLFW_KEY_H: v->show_help = !v->show_help; break;
  case GLFW_KEY_F2: v->hide_panels = !v->hide_panels; break;
  case GLFW_KEY_C:
  case GLFW_KEY_HOME: v->cam = v->cam_home; break;
  case GLFW_KEY_TAB: {
    int n = VW_P_COUNT, p = v->sel_param;
    for (int i = 0; i < n; i++) {
      p = (p + (big ? n - 1 : 1)) % n;
      if (vw_param_applies(v, p)) break;
    }
    v->sel_param = p;
    break;
  }
  case GLFW_KEY_EQUAL:
  case GLFW_KEY_KP_ADD: rc = vw_param_step(v, v->sel_param, +1, big, &e); break;
  case GLFW_KEY_MINUS:
  case GLFW_KEY_KP_SUBTRACT: rc = vw_param_step(v, v->sel_param, -1, big, &e); break;
  case GLFW_KEY_LEFT:
  case GLFW_KEY_RIGHT:
  case GLFW_KEY_UP:
  case GLFW_KEY_DOWN:
    if (hs >= 0) {
      /* §7.6: arrow keys move the held end (its target, 10 cm a press). */
      vw_string *st = &v->strings[hs];
      double t[2], s = big ? 0.5 : 0.1;
      drape_string_target(st->s, t);
      t[0] += key == GLFW_KEY_LEFT ? -s : key == GLFW_KEY_RIGHT ? s : 0;
      t[1] += key == GLFW_KEY_DOWN ? -s : key == GLFW_KEY_UP ? s : 0;
      drape_world_string_take(v->world, hs);
      drape_string_set_target(st->s, t[0], t[1]);
      break;
    }
    move_sphere_key(v, key, big);
    break;
  case GLFW_KEY_PAGE_UP:
  case GLFW_KEY_PAGE_DOWN: move_sphere_key(v, key, big); break;
  default:
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) load_scene_key(v, key - GLFW_KEY_1);
    break;
  }
  if (rc) vw_message(v, "%s", e.msg);
}
