/* The viewer's scene objects (viewer.h): solvers, render meshes, the
 * CL->GL transfer, physics within a wall budget, and finding scenes. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/viewer.h"

/* Colours (linear RGB): neutral grey colliders, the seed's orange string
 * end (§7.6 "grab the orange end"), a dark anchor, white target markers. */
static const float SPHERE_DRAG_RGB[3] = {0.42f, 0.55f, 0.75f};
static const float END_RGB[3] = {1.00f, 0.40f, 0.02f};
static const float ANCHOR_RGB[3] = {0.08f, 0.08f, 0.09f};
static const float TARGET_RGB[3] = {0.95f, 0.95f, 0.90f};

/* ---------------------------------------------------------------- */
/* finding scene files                                               */
/* ---------------------------------------------------------------- */

static int is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Folders where the source tree's files may be, besides the working
 * directory: $DRAPE_SOURCE_DIR, then the executable's folder and the two
 * above it (build/drape, build/sub/drape). */
static int source_roots(char roots[4][4096]) {
  int n = 0;
  const char *sd = getenv("DRAPE_SOURCE_DIR");
  if (sd && *sd) snprintf(roots[n++], 4096, "%s", sd);
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    for (int up = 0; up < 3 && slash; up++) {
      *slash = 0;
      snprintf(roots[n++], 4096, "%s", exe[0] ? exe : "/");
      slash = strrchr(exe, '/');
    }
  }
  return n;
}

int vw_resolve_scene(viewer *v, const char *arg, drape_err *e) {
  const char *want = arg ? arg : "scenes/drape_sphere.json";
  struct stat st;
  if (stat(want, &st) == 0 && !S_ISREG(st.st_mode)) /* never open a FIFO or a device */
    return drape_fail(e, DRAPE_EINVAL, "SCENE \"%s\": not a regular file (%s); a scene is a JSON "
                      "file, e.g. scenes/drape_sphere.json", want,
                      S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                      : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a file");
  if (arg && arg[0] == '/') {
    if (!is_file(arg))
      return drape_fail(e, DRAPE_EINVAL, "SCENE \"%s\": no such file (a JSON scene file, e.g. "
                        "scenes/drape_sphere.json)", arg);
    snprintf(v->scene_path, sizeof v->scene_path, "%s", arg);
    return DRAPE_OK;
  }
  if (is_file(want)) {
    snprintf(v->scene_path, sizeof v->scene_path, "%s", want);
    return DRAPE_OK;
  }
  char roots[4][4096];
  int nr = source_roots(roots);
  for (int i = 0; i < nr; i++) {
    char p[8400];
    snprintf(p, sizeof p, "%.4000s/%.4000s", roots[i], want);
    size_t n = strlen(p);
    if (is_file(p) && n < sizeof v->scene_path) {
      memcpy(v->scene_path, p, n + 1);
      return DRAPE_OK;
    }
  }
  return drape_fail(e, DRAPE_EINVAL, "SCENE \"%s\": no such file in the working directory or "
                    "the source tree (a JSON scene file, e.g. scenes/drape_sphere.json)", want);
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

void vw_find_scenes(viewer *v) {
  char cand[6][4096];
  int nc = 0;
  snprintf(cand[nc++], 4096, "scenes");
  char roots[4][4096];
  int nr = source_roots(roots);
  for (int i = 0; i < nr && nc < 5; i++) {
    if (strlen(roots[i]) > 4000) continue;
    snprintf(cand[nc++], 4096, "%.4000s/scenes", roots[i]);
  }
  /* Last resort: the folder of the scene being shown. */
  snprintf(cand[nc], 4096, "%s", v->scene_path);
  char *slash = strrchr(cand[nc], '/');
  if (slash) *slash = 0;
  else snprintf(cand[nc], 4096, ".");
  nc++;
  v->n_scene_files = 0;
  v->scenes_dir[0] = 0;
  for (int i = 0; i < nc; i++) {
    char probe[8300];
    snprintf(probe, sizeof probe, "%s/drape_sphere.json", cand[i]);
    if (i + 1 < nc && !is_file(probe)) continue;
    DIR *d = opendir(cand[i]);
    if (!d) continue;
    char names[64][512];
    int n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL && n < 64;) {
      size_t len = strlen(de->d_name);
      if (len > 5 && len < 500 && !strcmp(de->d_name + len - 5, ".json"))
        snprintf(names[n++], 512, "%s", de->d_name);
    }
    closedir(d);
    if (n == 0) continue;
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    snprintf(v->scenes_dir, sizeof v->scenes_dir, "%s", cand[i]);
    for (int k = 0; k < n && k < VW_MAX_SCENES; k++)
      snprintf(v->scene_files[v->n_scene_files++], 512, "%.500s", names[k]);
    return;
  }
}

/* ---------------------------------------------------------------- */
/* opening and closing a scene                                       */
/* ---------------------------------------------------------------- */

void vw_scene_close(viewer *v) {
  drape_world_view_destroy(v->wv); /* before the world it draws */
  v->wv = NULL;
  drape_world_destroy(v->world); /* the sim, the cables and the strings */
  v->world = NULL;
  v->sim = NULL;
  memset(v->strings, 0, sizeof v->strings);
  v->n_strings = 0;
  v->n_cables = 0;
  free(v->host_pos);
  free(v->tris);
  v->host_pos = NULL;
  v->tris = NULL;
  v->n_particles = v->n_tris = 0;
  if (v->scene_loaded) {
    drape_scene_free(&v->scene);
    drape_render_def_free(&v->view);
  }
  v->scene_loaded = 0;
  v->drag = VW_DRAG_NONE;
  v->grab_id = -1;
  v->grab_particle = -1;
}

/* The picking copy of the sim's particles and triangles. */
static int alloc_pick(viewer *v, drape_err *e) {
  const drape_mesh *m = drape_sim_mesh(v->sim);
  v->n_particles = m->n_particles;
  v->n_tris = m->n_tris;
  v->host_pos = malloc((size_t)(m->n_particles ? m->n_particles : 1) * 16);
  v->tris = malloc(sizeof(uint32_t) * 3 * (size_t)(m->n_tris ? m->n_tris : 1));
  if (!v->host_pos || !v->tris)
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (%d particles)", m->n_particles);
  if (m->n_tris) memcpy(v->tris, m->tris, sizeof(uint32_t) * 3 * (size_t)m->n_tris);
  return drape_sim_read_positions(v->sim, v->host_pos, e);
}

/* The home camera: the world view's framing of the scene (bounds, the
 * scene file's camera), as an orbit camera. */
static void frame_camera(viewer *v) {
  double w, h;
  vw_window_size(v, &w, &h);
  drape_render_camera rc;
  drape_world_view_camera(v->wv, (float)(w / h), &rc);
  double eye[3], target[3];
  for (int k = 0; k < 3; k++) {
    eye[k] = rc.eye[k];
    target[k] = rc.target[k];
  }
  const float fov = v->view.camera.fov_deg > 0 ? (float)v->view.camera.fov_deg : 45.0f;
  vw_camera_from_eye(&v->cam_home, eye, target, fov);
  v->cam = v->cam_home;
}

int vw_scene_open(viewer *v, const char *path, drape_err *e) {
  /* Everything that can refuse the new scene happens before the current
   * one is closed, so a scene the solvers reject leaves the view as it was. */
  drape_scene sc;
  int rc = drape_scene_load(path, &sc, e);
  if (rc) return rc;
  /* Presentation (camera, colours) from the same file; the scene loader
   * has checked these keys already. */
  drape_render_def view;
  if ((rc = drape_render_def_load(path, &view, e))) {
    drape_scene_free(&sc);
    return rc;
  }
  if (sc.n_string > VW_MAX_STRINGS)
    rc = drape_fail(e, DRAPE_EINVAL, "scene file '%s': %d strings; the viewer shows at most %d",
                    path, sc.n_string, VW_MAX_STRINGS);
  drape_world *world = NULL;
  if (!rc) {
    drape_world_def d = drape_world_def_default();
    d.backend = v->backend;
    d.use_device = v->device >= 0;
    d.device_index = v->device;
    d.kernel_form = v->kernel_form;
    d.profiling = 1; /* ms per stage in the overlay */
    d.cl = v->cl_ready ? &v->cl : NULL;
    rc = drape_world_create(&sc, &d, &world, e);
  }
  if (rc) {
    drape_scene_free(&sc);
    drape_render_def_free(&view);
    return rc;
  }
  vw_scene_close(v);
  v->scene = sc;
  v->view = view; /* owned: freed by vw_scene_close */
  v->scene_loaded = 1;
  v->world = world;
  drape_sim *sim = drape_world_sim(world);
  v->sim = drape_sim_mesh(sim)->n_particles > 0 ? sim : NULL; /* else: strings, cables only */
  v->n_cables = 0;
  v->tear_possible = 0;
  for (int k = 0; k < drape_world_object_count(world); k++) {
    drape_world_object o;
    drape_world_get_object(world, k, &o, NULL);
    v->n_cables += o.kind == DRAPE_WORLD_CABLE;
  }
  v->diverged = 0;
  if (path != v->scene_path) snprintf(v->scene_path, sizeof v->scene_path, "%s", path);
  v->dt = sc.dt > 0 ? sc.dt : 1.0 / 60.0;
  for (int k = 0; k < drape_world_object_count(world) && v->n_strings < VW_MAX_STRINGS; k++) {
    drape_world_object o;
    drape_world_get_object(world, k, &o, NULL);
    v->tear_possible |= o.tears;
    if (o.kind != DRAPE_WORLD_STRING) continue;
    vw_string *st = &v->strings[v->n_strings++];
    st->s = drape_world_string(world, o.scene_index);
    st->def = *drape_world_string_def(world, o.scene_index);
  }
  if (v->sim && (rc = alloc_pick(v, e))) goto fail;
  drape_world_view_def vd = {&view, v->shared, 0};
  if ((rc = drape_world_view_create(v->r, world, &vd, &v->wv, e))) goto fail;
  v->n_sim_spheres = v->sim ? drape_sim_n_spheres(v->sim) : 0;
  if (v->n_sim_spheres > VW_MAX_SPHERES) v->n_sim_spheres = VW_MAX_SPHERES;
  memset(v->sphere_goal_on, 0, sizeof v->sphere_goal_on);
  frame_camera(v);
  vw_params_from_scene(v);
  v->target_time = 0;
  v->cloth_steps = 0;
  v->max_strain = 0;
  v->torn = 0;
  v->stage_valid = 0;
  v->stats_t = 0;
  /* the scene's hands at t = 0 (drape_world_advance to 0 sets them) */
  drape_world_advance_opts ao = {0, 0, NULL, NULL};
  if ((rc = drape_world_advance(v->world, &ao, NULL, e))) goto fail;
  return vw_sync_render(v, e);
fail:
  vw_scene_close(v);
  return rc;
}

int vw_scene_reset(viewer *v, drape_err *e) {
  vw_release_all(v);
  int rc = drape_world_reset(v->world, e); /* sim, cables, strings, hands */
  if (rc) return rc;
  for (int k = 0; k < v->n_strings; k++) v->strings[k].max_speed_held = 0;
  drape_world_advance_opts ao = {0, 0, NULL, NULL};
  if ((rc = drape_world_advance(v->world, &ao, NULL, e))) return rc;
  memset(v->sphere_goal_on, 0, sizeof v->sphere_goal_on);
  v->target_time = 0;
  v->cloth_steps = 0;
  v->diverged = 0;
  return vw_sync_render(v, e);
}

/* ---------------------------------------------------------------- */
/* physics                                                           */
/* ---------------------------------------------------------------- */

/* A sphere the user moves travels to its goal during the next frame at a
 * velocity the collision kernel sees (so friction carries the cloth along),
 * at most 4 m/s so a jump of the cursor cannot tunnel through the cloth. */
int vw_apply_sphere_goals(viewer *v, drape_err *e) {
  for (int k = 0; k < v->n_sim_spheres; k++) {
    if (!v->sphere_goal_on[k]) continue;
    drape_sphere_def sd;
    drape_sim_get_sphere(v->sim, k, &sd);
    double d[3], len = 0;
    for (int q = 0; q < 3; q++) {
      d[q] = v->sphere_goal[k][q] - sd.center[q];
      len += d[q] * d[q];
    }
    len = sqrt(len);
    double vel[3] = {0, 0, 0};
    if (len > 1e-7) {
      double s = fmin(1.0 / v->dt, 4.0 / len);
      for (int q = 0; q < 3; q++) vel[q] = d[q] * s;
    }
    int rc = drape_sim_set_sphere(v->sim, k, NULL, NULL, vel, e);
    if (rc) return rc;
    if (len <= 1e-7) v->sphere_goal_on[k] = 0;
  }
  if (v->capsule_goal_on) { /* a dragged capsule: the same speed limit */
    double off[3], d[3], len = 0;
    drape_sim_capsule_offset(v->sim, v->drag_capsule, off);
    for (int q = 0; q < 3; q++) d[q] = v->capsule_goal[q] - off[q], len += d[q] * d[q];
    len = sqrt(len);
    const double s = len > 4.0 * v->dt ? 4.0 * v->dt / len : 1.0;
    for (int q = 0; q < 3; q++) off[q] += d[q] * s;
    int rc = drape_sim_move_capsule(v->sim, v->drag_capsule, off, e);
    if (rc) return rc;
    if (len <= 1e-7) v->capsule_goal_on = 0;
  }
  if (v->collider_goal_on) { /* a dragged mesh collider: the same */
    double off[3], d[3], len = 0;
    drape_sim_collider_offset(v->sim, v->drag_collider, off);
    for (int q = 0; q < 3; q++) d[q] = v->collider_goal[q] - off[q], len += d[q] * d[q];
    len = sqrt(len);
    const double s = len > 4.0 * v->dt ? 4.0 * v->dt / len : 1.0;
    for (int q = 0; q < 3; q++) off[q] += d[q] * s;
    int rc = drape_sim_move_collider(v->sim, v->drag_collider, off, e);
    if (rc) return rc;
    if (len <= 1e-7) v->collider_goal_on = 0;
  }
  return DRAPE_OK;
}

void vw_string_end(const viewer *v, int k, double out[3]) {
  const vw_string *st = &v->strings[k];
  const double *r = drape_string_positions(st->s);
  int n = drape_string_node_count(st->s);
  out[0] = r[2 * (n - 1)];
  out[1] = r[2 * (n - 1) + 1];
  out[2] = st->def.z;
}

double vw_clock(const viewer *v) {
  if (v->sim || v->n_cables) return drape_world_time(v->world);
  return v->n_strings ? drape_string_time(v->strings[0].s) : 0.0;
}

static int before_frame(void *user, drape_err *e) {
  return vw_apply_sphere_goals((viewer *)user, e);
}

/* The world chases the wall clock (world.h, drape_world_advance): frames
 * of the sim and the cables, then the strings, within the frame's budget. */
int vw_physics(viewer *v, drape_err *e) {
  const double t0 = drape_now();
  const double budget = v->budget_s;
  v->behind = 0;
  drape_world_advance_opts o = {v->target_time, budget, v->sim ? before_frame : NULL, v};
  drape_world_progress pr;
  int rc = drape_world_advance(v->world, &o, &pr, e);
  if (rc) return rc;
  v->cloth_steps += pr.frames;
  v->behind = !pr.reached && budget > 0;
  if (pr.frames > 0 && v->sim) {
    drape_timings tm;
    drape_sim_timings(v->sim, &tm);
    v->frame_ms = tm.ms_frame;
    v->stage_valid = tm.stage_times_valid;
    for (int s = 0; s < DRAPE_STAGE_COUNT; s++) v->stage_ms[s] = tm.ms[s];
  }
  for (int k = 0; k < v->n_strings; k++) { /* how fast the held end moved */
    vw_string *st = &v->strings[k];
    if (!drape_string_is_held(st->s)) continue;
    const double *vel = drape_string_velocities(st->s);
    int n = drape_string_node_count(st->s);
    double sp = hypot(vel[2 * (n - 1)], vel[2 * (n - 1) + 1]);
    if (sp > st->max_speed_held) st->max_speed_held = sp;
  }
  /* §7.13: overdue wall time is dropped, not made up later. */
  if (v->behind) v->target_time = pr.time;
  v->phys_ms = (drape_now() - t0) * 1e3;
  if (v->phys_ms > v->phys_ms_max) v->phys_ms_max = v->phys_ms;
  v->behind_frames += v->behind;
  return DRAPE_OK;
}

/* ---------------------------------------------------------------- */
/* getting ready to draw                                             */
/* ---------------------------------------------------------------- */

int vw_read_positions(viewer *v, drape_err *e) {
  if (!v->sim) return DRAPE_OK;
  int rc = drape_sim_read_positions(v->sim, v->host_pos, e);
  if (!rc && v->tear_possible) rc = drape_sim_read_triangles(v->sim, v->tris, e);
  return rc;
}

const char *vw_transfer(const viewer *v) {
  return v->wv ? drape_world_view_transfer(v->wv) : "none";
}

int vw_interop(const viewer *v) {
  const char *t = vw_transfer(v);
  return strcmp(t, "host") && strcmp(t, "none");
}

int vw_sync_render(viewer *v, drape_err *e) {
  int rc = drape_world_view_update(v->wv, e);
  if (rc) return rc;
  v->xfer_ms = drape_world_view_transfer_ms(v->wv);
  double w, h;
  vw_window_size(v, &w, &h);
  const int cap = (int)(sizeof v->spheres / sizeof v->spheres[0]);
  int ns = drape_world_view_scene(v->wv, (float)(w / h), v->spheres, cap, &v->rs);
  /* Spheres: the colliders (the one dragged tinted), then markers: each
   * string's anchor, its orange end and, while held, the hand's target;
   * the cloth grab's target. */
  if (v->drag == VW_DRAG_SPHERE && v->drag_sphere >= 0 && v->drag_sphere < ns)
    memcpy(v->spheres[v->drag_sphere].color, SPHERE_DRAG_RGB, sizeof SPHERE_DRAG_RGB);
  for (int k = 0; k < v->n_strings; k++) {
    const vw_string *st = &v->strings[k];
    float rad = (float)fmax(0.004, 0.004 * st->def.length);
    double end[3];
    vw_string_end(v, k, end);
    drape_render_sphere *a = &v->spheres[ns++];
    a->center[0] = (float)st->def.anchor[0];
    a->center[1] = (float)st->def.anchor[1];
    a->center[2] = (float)st->def.z;
    a->radius = 2.5f * rad;
    memcpy(a->color, ANCHOR_RGB, sizeof a->color);
    drape_render_sphere *b = &v->spheres[ns++];
    for (int q = 0; q < 3; q++) b->center[q] = (float)end[q];
    b->radius = 4.0f * rad;
    memcpy(b->color, END_RGB, sizeof b->color);
    if (drape_string_is_held(st->s) && ns < (int)(sizeof v->spheres / sizeof v->spheres[0])) {
      double t[2];
      drape_string_target(st->s, t);
      drape_render_sphere *m = &v->spheres[ns++];
      m->center[0] = (float)t[0];
      m->center[1] = (float)t[1];
      m->center[2] = (float)st->def.z;
      m->radius = 1.5f * rad;
      memcpy(m->color, TARGET_RGB, sizeof m->color);
    }
  }
  if (v->drag == VW_DRAG_PARTICLE && ns < (int)(sizeof v->spheres / sizeof v->spheres[0])) {
    drape_render_sphere *m = &v->spheres[ns++];
    for (int q = 0; q < 3; q++) m->center[q] = (float)v->grab_target[q];
    m->radius = 0.012f;
    memcpy(m->color, TARGET_RGB, sizeof m->color);
  }
  v->rs.n_spheres = ns;
  vw_camera_to_render(&v->cam, &v->rs.camera);
  return DRAPE_OK;
}
