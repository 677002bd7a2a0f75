/* drape_world (include/drape/world.h): every object of a scene, stepped
 * as one.
 *
 *   frame k:  strings ──(worker thread)── advance to k dt ──┐
 *             sim (OpenCL or CPU reference) ── one frame ───┤ wait
 *             implicit cables ── substeps x h ──────────────┘
 *             any failure (DRAPE_EUNSTABLE: a finiteness check) stops the
 *             world before anything reads the frame
 *
 * The pieces live in cloth/ (the sim), world/strings.c (the worker) and
 * world/cables.c (seed 003 cables); this file only orders them, numbers
 * their objects and writes them out. */
#include "drape/world.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloth/sim.h"
#include "core/obj.h"
#include "drape/cable.h"
#include "drape/drape_cl.h"
#include "world/cables.h"
#include "world/strings.h"

struct drape_world {
  double dt;
  int frame;
  drape_sim *sim;          /* always made, empty when there is no cloth and
                              no explicit rope (it still owns the colliders) */
  run_cables *cables;
  run_strings *strings;
  int n_sim_objects;       /* objects of the sim (drape_mesh)                */
  drape_world_object *obj; /* every object, in world order                  */
  int n_obj;
  float *scratch;          /* n_particles x 4, for reads of the normals     */
  uint32_t *tris;          /* n_tris x 3, for reads of torn triangles        */
  drape_err stopped;       /* code != 0: a step failed; returned until reset */
  drape_world_object_stats *ostats; /* drape_world_get_stats              */
  int has_floor;
  double floor_height;     /* m                                             */
};

drape_world_def drape_world_def_default(void) {
  drape_world_def d;
  memset(&d, 0, sizeof d);
  return d;
}

int drape_world_count_crossings(drape_world *w, long *count, drape_err *e) {
  if (w->stopped.code) {
    if (e) *e = w->stopped;
    return w->stopped.code;
  }
  return drape_sim_count_crossings(w->sim, count, e);
}

int drape_world_floor(const drape_world *w, double *height) {
  if (height) *height = w->has_floor ? w->floor_height : 0.0;
  return w->has_floor;
}

void drape_world_destroy(drape_world *w) {
  if (!w) return;
  run_strings_free(w->strings); /* joins the worker first */
  drape_sim_destroy(w->sim);
  run_cables_free(w->cables);
  free(w->obj);
  free(w->scratch);
  free(w->tris);
  free(w->ostats);
  free(w);
}

/* The object table: the sim's, then the cables, then the strings. */
static int build_objects(drape_world *w, const drape_scene *sc, drape_err *e) {
  const drape_mesh *m = drape_sim_mesh(w->sim);
  w->n_sim_objects = m->n_objects;
  const int nc = run_cables_count(w->cables), ns = run_strings_count(w->strings);
  w->n_obj = w->n_sim_objects + nc + ns;
  w->obj = calloc((size_t)w->n_obj + 1, sizeof *w->obj);
  if (!w->obj) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  int k = 0, rope = -1; /* the sim's ropes are the scene's ropes less the implicit ones */
  for (int i = 0; i < w->n_sim_objects; i++, k++) {
    const drape_object_info *inf = &m->objects[i];
    drape_world_object *o = &w->obj[k];
    if (inf->kind == DRAPE_OBJ_CLOTH) {
      o->scene_index = i;
      o->tears = sc->cloth[i].tear_ratio > 0;
    } else {
      do rope++;
      while (rope < sc->n_rope && sc->rope[rope].solver == DRAPE_SOLVER_IMPLICIT);
      o->scene_index = rope;
    }
    snprintf(o->name, sizeof o->name, "%s", inf->name);
    o->kind = inf->kind == DRAPE_OBJ_CLOTH ? DRAPE_WORLD_CLOTH : DRAPE_WORLD_ROPE;
    o->n_points = inf->n_particles;
    o->n_tris = inf->n_tris;
    o->n_links = inf->n_lines;
    o->thickness = inf->thickness;
  }
  for (int i = 0; i < nc; i++, k++) {
    const drape_rope_def *r = &sc->rope[run_cables_scene_index(w->cables, i)];
    drape_world_object *o = &w->obj[k];
    snprintf(o->name, sizeof o->name, "%s", run_cables_name(w->cables, i));
    o->kind = DRAPE_WORLD_CABLE;
    o->scene_index = run_cables_scene_index(w->cables, i);
    o->n_points = run_cables_nodes(w->cables, i);
    o->n_links = o->n_points - 1;
    o->thickness = r->thickness;
  }
  for (int i = 0; i < ns; i++, k++) {
    const drape_string_def *d = run_strings_def(w->strings, i);
    drape_world_object *o = &w->obj[k];
    snprintf(o->name, sizeof o->name, "%s", d->name[0] ? d->name : "string");
    o->kind = DRAPE_WORLD_STRING;
    o->scene_index = i;
    o->n_points = drape_string_node_count(run_strings_get(w->strings, i));
    o->n_links = o->n_points - 1;
    o->thickness = 0.01;
  }
  w->ostats = calloc((size_t)w->n_obj + 1, sizeof *w->ostats);
  w->scratch = malloc(sizeof(float) * 4 * ((size_t)m->n_particles + 1));
  w->tris = malloc(sizeof(uint32_t) * 3 * ((size_t)m->n_tris + 1));
  if (!w->scratch || !w->tris || !w->ostats) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  return DRAPE_OK;
}

int drape_world_create(const drape_scene *sc, const drape_world_def *def, drape_world **out,
                       drape_err *e) {
  *out = NULL;
  const drape_world_def d = def ? *def : drape_world_def_default();
  int rc = drape_scene_validate(sc, e);
  if (rc) return rc;
  drape_world *w = calloc(1, sizeof *w);
  if (!w) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  w->dt = sc->dt;
  w->has_floor = sc->has_floor;
  w->floor_height = sc->floor_height;
  drape_scene sim_scene; /* the scene less its implicit ropes (world/cables.h) */
  rc = run_cables_prepare(sc, &w->cables, &sim_scene, e);
  if (!rc) {
    drape_sim_opts o = drape_sim_opts_default();
    o.backend = d.backend;
    o.device_index = d.use_device ? d.device_index : -1;
    o.profiling = d.profiling;
    o.cl = d.cl;
    o.kernel_form = d.kernel_form;
    rc = drape_sim_create(&sim_scene, &o, &w->sim, e);
  }
  if (!rc) rc = run_strings_create(sc, &w->strings, e);
  if (!rc) rc = build_objects(w, sc, e);
  if (rc) {
    drape_world_destroy(w);
    return rc;
  }
  *out = w;
  return DRAPE_OK;
}

int drape_world_load(const char *path, const drape_world_def *def, drape_world **out,
                     drape_err *e) {
  *out = NULL;
  drape_scene sc;
  int rc = drape_scene_load(path, &sc, e);
  if (rc) return rc;
  rc = drape_world_create(&sc, def, out, e);
  drape_scene_free(&sc);
  return rc;
}

static int stop(drape_world *w, int rc, drape_err *e) {
  if (e) w->stopped = *e;
  w->stopped.code = rc;
  return rc;
}

int drape_world_step(drape_world *w, drape_err *e) {
  if (w->stopped.code) {
    if (e) *e = w->stopped;
    return w->stopped.code;
  }
  const int f = w->frame + 1;
  drape_err se = {0}, ce = {0};
  /* the strings on the worker while this thread steps the device */
  run_strings_start(w->strings, f * w->dt);
  int rc = w->sim ? drape_sim_step(w->sim, e) : DRAPE_OK;
  int src = run_strings_wait(w->strings, &se);
  if (!rc && src) {
    rc = src;
    if (e) *e = se;
  }
  if (!rc && (rc = run_cables_step(w->cables, f, &ce)) && e) *e = ce;
  if (rc) return stop(w, rc, e);
  w->frame = f;
  return DRAPE_OK;
}

int drape_world_advance(drape_world *w, const drape_world_advance_opts *o,
                        drape_world_progress *out, drape_err *e) {
  drape_world_progress pr = {o->target_time, 1, 0};
  if (w->stopped.code) {
    if (e) *e = w->stopped;
    return w->stopped.code;
  }
  const double t0 = drape_now(), budget = o->wall_budget_s;
  int rc = DRAPE_OK;
  const int ns = run_strings_count(w->strings);
  if (w->n_obj > ns) { /* frames of the sim and the cables */
    while (drape_world_time(w) + 0.5 * w->dt <= o->target_time) {
      if (budget > 0 && pr.frames > 0 && drape_now() - t0 >= budget) {
        pr.reached = 0;
        break;
      }
      if (o->before_frame && (rc = o->before_frame(o->user, e))) return rc;
      const int f = w->frame + 1;
      if ((rc = drape_sim_step(w->sim, e)) || (rc = run_cables_step(w->cables, f, e)))
        return stop(w, rc, e);
      w->frame = f;
      pr.frames++;
    }
    if (drape_world_time(w) < pr.time) pr.time = drape_world_time(w);
  }
  for (int k = 0; k < ns; k++) {
    drape_string *s = run_strings_at(w->strings, k);
    run_strings_script_hand(w->strings, k, drape_string_time(s));
    const double left = budget > 0 ? fmax(budget - (drape_now() - t0), 5e-4) : 0;
    drape_string_progress sp;
    if ((rc = drape_string_advance(s, o->target_time, left, &sp, e))) return stop(w, rc, e);
    if (!sp.reached && budget > 0) pr.reached = 0;
    if (sp.time < pr.time) pr.time = sp.time;
  }
  if (out) *out = pr;
  return DRAPE_OK;
}

void drape_world_string_take(drape_world *w, int k) { run_strings_take(w->strings, k); }
int drape_world_string_scripted(const drape_world *w, int k) {
  return run_strings_def(w->strings, k)->n_hand > 0 && !run_strings_taken(w->strings, k);
}
const drape_string_def *drape_world_string_def(const drape_world *w, int k) {
  return run_strings_def(w->strings, k);
}

int drape_world_reset(drape_world *w, drape_err *e) {
  int rc = w->sim ? drape_sim_reset(w->sim, e) : DRAPE_OK;
  if (!rc) rc = run_cables_reset(w->cables, e);
  if (rc) return rc;
  run_strings_reset(w->strings);
  memset(&w->stopped, 0, sizeof w->stopped);
  w->frame = 0;
  return DRAPE_OK;
}

int drape_world_frame(const drape_world *w) { return w->frame; }
double drape_world_time(const drape_world *w) { return w->frame * w->dt; }
double drape_world_dt(const drape_world *w) { return w->dt; }
int drape_world_object_count(const drape_world *w) { return w->n_obj; }
drape_sim *drape_world_sim(drape_world *w) { return w->sim; }
int drape_world_string_count(const drape_world *w) { return run_strings_count(w->strings); }
drape_string *drape_world_string(drape_world *w, int k) { return run_strings_at(w->strings, k); }
double drape_world_string_z(const drape_world *w, int k) { return run_strings_z(w->strings, k); }

const char *drape_world_device_name(drape_world *w) {
  const struct drape_cl *cl = drape_sim_cl(w->sim);
  return cl ? cl->device_name : "CPU reference (1 thread)";
}

int drape_world_check_frames(const drape_world *w, long frames, drape_err *e) {
  return run_strings_check_duration(w->strings, (double)frames * w->dt, e);
}

int drape_world_get_stats(drape_world *w, drape_world_stats *out, drape_err *e) {
  drape_stats st;
  int rc = drape_sim_stats(w->sim, &st, e);
  if (rc) return rc;
  memset(out, 0, sizeof *out);
  out->frame = w->frame;
  out->time = drape_world_time(w);
  out->kinetic_energy = st.kinetic_energy;
  out->min_sphere_clearance = st.min_sphere_clearance;
  out->min_floor_clearance = st.min_floor_clearance;
  out->max_drive_lag = st.max_drive_lag;
  out->n_objects = w->n_obj;
  out->objects = w->ostats;
  for (int k = 0; k < w->n_obj; k++) {
    drape_world_object_stats *o = &w->ostats[k];
    memset(o, 0, sizeof *o);
    o->sag = o->kinetic_energy = o->gravity_energy = o->lowest = o->residual = NAN;
    o->drape_coefficient = NAN;
    if (k < w->n_sim_objects) {
      const drape_object_stats *so = &st.objects[k];
      o->lowest = so->lowest;
      o->covered_area = so->covered_area;
      o->drape_coefficient = so->drape_coefficient;
      o->max_strain = so->max_strain;
      o->mean_strain = so->mean_strain;
      o->mean_abs_strain = so->mean_abs_strain;
      o->min_strain = so->min_strain;
      o->torn = so->torn;
      o->elastic_energy = so->elastic_energy;
      o->residual = so->residual;
    } else if (k < w->n_sim_objects + run_cables_count(w->cables)) {
      run_cable_stats cs;
      run_cables_stats(w->cables, k - w->n_sim_objects, &cs);
      o->max_strain = cs.max_strain;
      o->mean_strain = cs.mean_strain;
      o->mean_abs_strain = cs.mean_abs_strain;
      o->min_strain = cs.min_strain;
      o->sag = cs.sag;
      o->kinetic_energy = cs.kinetic;
      o->elastic_energy = cs.elastic;
      o->gravity_energy = cs.gravity;
      o->newton_iterations = cs.newton;
    }
  }
  return DRAPE_OK;
}

static int check_index(const drape_world *w, int k, drape_err *e) {
  if (k < 0 || k >= w->n_obj)
    return drape_fail(e, DRAPE_EINVAL, "object %d: the world has objects 0..%d", k, w->n_obj - 1);
  return DRAPE_OK;
}

int drape_world_get_object(const drape_world *w, int k, drape_world_object *out, drape_err *e) {
  int rc = check_index(w, k, e);
  if (!rc) *out = w->obj[k];
  return rc;
}

int drape_world_read_points(drape_world *w, int k, float *xyz, drape_err *e) {
  int rc = check_index(w, k, e);
  if (rc) return rc;
  const int n = w->obj[k].n_points;
  if (k < w->n_sim_objects) {
    /* one read-back a frame, however many objects are read (cloth/sim.h) */
    drape_err re = {0};
    const float *x4 = dr_sim_positions(w->sim, &re);
    if (!x4) {
      if (e) *e = re;
      return re.code;
    }
    /* in the loader's vertex order (a mesh cloth's particles may not be) */
    const dr_model *md = &w->sim->m;
    const int first = md->info[k].first_particle;
    for (int i = 0; i < n; i++)
      for (int q = 0; q < 3; q++) xyz[3 * i + q] = x4[4 * dr_model_particle(md, first + i) + q];
    return DRAPE_OK;
  }
  k -= w->n_sim_objects;
  if (k < run_cables_count(w->cables)) {
    const double *x = drape_cable_positions(run_cables_cable(w->cables, k));
    for (int i = 0; i < 3 * n; i++) xyz[i] = (float)x[i];
    return DRAPE_OK;
  }
  k -= run_cables_count(w->cables);
  const double *r = drape_string_positions(run_strings_get(w->strings, k));
  const float z = (float)run_strings_z(w->strings, k);
  for (int i = 0; i < n; i++) {
    xyz[3 * i] = (float)r[2 * i];
    xyz[3 * i + 1] = (float)r[2 * i + 1];
    xyz[3 * i + 2] = z;
  }
  return DRAPE_OK;
}

int drape_world_read_normals(drape_world *w, int k, float *xyz, drape_err *e) {
  int rc = check_index(w, k, e);
  if (rc) return rc;
  const int n = w->obj[k].n_points;
  if (k >= w->n_sim_objects) {
    memset(xyz, 0, sizeof(float) * 3 * (size_t)n);
    return DRAPE_OK;
  }
  if ((rc = drape_sim_read_normals(w->sim, w->scratch, e))) return rc;
  const dr_model *md = &w->sim->m;
  const int first = md->info[k].first_particle;
  for (int i = 0; i < n; i++)
    for (int q = 0; q < 3; q++) xyz[3 * i + q] = w->scratch[4 * dr_model_particle(md, first + i) + q];
  return DRAPE_OK;
}

void drape_world_get_timings(drape_world *w, drape_timings *out) { drape_sim_timings(w->sim, out); }

int drape_world_read_links(drape_world *w, int k, uint32_t *ab, drape_err *e) {
  int rc = check_index(w, k, e);
  if (rc) return rc;
  const drape_world_object *o = &w->obj[k];
  if (k < w->n_sim_objects) {
    const drape_mesh *m = drape_sim_mesh(w->sim);
    const drape_object_info *inf = &m->objects[k];
    for (int l = 0; l < inf->n_lines; l++)
      for (int q = 0; q < 2; q++)
        ab[2 * l + q] = m->lines[2 * (inf->first_line + l) + q] - (uint32_t)inf->first_particle;
    return DRAPE_OK;
  }
  for (int l = 0; l < o->n_links; l++) { /* cables and strings: a chain */
    ab[2 * l] = (uint32_t)l;
    ab[2 * l + 1] = (uint32_t)l + 1;
  }
  return DRAPE_OK;
}

int drape_world_read_tris(drape_world *w, int k, uint32_t *abc, int *count, drape_err *e) {
  int rc = check_index(w, k, e);
  if (rc) return rc;
  int n = 0;
  if (k < w->n_sim_objects && w->obj[k].n_tris > 0) {
    if ((rc = drape_sim_read_triangles(w->sim, w->tris, e))) return rc;
    const drape_object_info *inf = &drape_sim_mesh(w->sim)->objects[k];
    for (int t = inf->first_tri; t < inf->first_tri + inf->n_tris; t++) {
      const uint32_t *q = w->tris + 3 * t;
      if (q[0] == q[1] && q[1] == q[2]) continue; /* torn */
      for (int j = 0; j < 3; j++)
        abc[3 * n + j] = (uint32_t)dr_model_slot(&w->sim->m, (int)q[j]) - (uint32_t)inf->first_particle;
      n++;
    }
  }
  if (count) *count = n;
  return DRAPE_OK;
}

/* ---- picking, grabbing, colliders ---- */

int drape_world_pick(drape_world *w, const double origin[3], const double dir[3], double max_dist,
                     int *object, int *point, drape_err *e) {
  *object = *point = -1;
  int particle = -1;
  int rc = drape_sim_pick(w->sim, origin, dir, max_dist, &particle, e);
  if (rc || particle < 0) return rc;
  particle = dr_model_slot(&w->sim->m, particle); /* the point as read out */
  const drape_mesh *m = drape_sim_mesh(w->sim);
  for (int k = 0; k < m->n_objects; k++) {
    const drape_object_info *inf = &m->objects[k];
    if (particle >= inf->first_particle && particle < inf->first_particle + inf->n_particles) {
      *object = k;
      *point = particle - inf->first_particle;
    }
  }
  return DRAPE_OK;
}

int drape_world_grab(drape_world *w, int object, int point, const double target[3], int *grab_id,
                     drape_err *e) {
  int rc = check_index(w, object, e);
  if (rc) return rc;
  if (object >= w->n_sim_objects)
    return drape_fail(e, DRAPE_EINVAL, "object %d (\"%s\"): only cloths and ropes are grabbed here",
                      object, w->obj[object].name);
  if (point < 0 || point >= w->obj[object].n_points)
    return drape_fail(e, DRAPE_EINVAL, "object %d (\"%s\") point %d: it has points 0..%d", object,
                      w->obj[object].name, point, w->obj[object].n_points - 1);
  const int first = drape_sim_mesh(w->sim)->objects[object].first_particle;
  return drape_sim_grab(w->sim, dr_model_particle(&w->sim->m, first + point), target, grab_id, e);
}

int drape_world_grab_move(drape_world *w, int grab_id, const double target[3], drape_err *e) {
  return drape_sim_grab_move(w->sim, grab_id, target, e);
}

int drape_world_grab_release(drape_world *w, int grab_id, drape_err *e) {
  return drape_sim_grab_release(w->sim, grab_id, e);
}

int drape_world_move_sphere(drape_world *w, int k, const double center[3], const double velocity[3],
                            drape_err *e) {
  return drape_sim_set_sphere(w->sim, k, center, NULL, velocity, e);
}

/* ---- OBJ ---- */

static const char *kind_name(drape_world_kind k) {
  return k == DRAPE_WORLD_CLOTH ? "cloth" : k == DRAPE_WORLD_ROPE ? "rope"
         : k == DRAPE_WORLD_CABLE ? "cable" : "string";
}

int drape_world_write_obj(drape_world *w, const char *path, drape_err *e) {
  dr_obj obj;
  int rc = dr_obj_open(&obj, path, w->frame, drape_world_time(w), e);
  for (int k = 0; k < w->n_obj && !rc; k++) {
    const drape_world_object *o = &w->obj[k];
    const size_t ni = (size_t)(o->n_tris > o->n_links ? 3 * o->n_tris : 2 * o->n_links) + 1;
    float *x = malloc(sizeof(float) * 3 * ((size_t)o->n_points + 1));
    uint32_t *idx = malloc(sizeof(uint32_t) * ni);
    const float *uv = k < w->n_sim_objects ? dr_sim_uv(w->sim, k) : NULL;
    float *tuv = uv ? malloc(sizeof(float) * 6 * ((size_t)o->n_tris + 1)) : NULL;
    int nt = 0;
    rc = !x || !idx || (uv && !tuv) ? drape_fail(e, DRAPE_ENOMEM, "out of memory") : DRAPE_OK;
    if (!rc) rc = drape_world_read_points(w, k, x, e);
    if (!rc && o->n_tris > 0) rc = drape_world_read_tris(w, k, idx, &nt, e);
    if (!rc && o->n_links > 0) rc = drape_world_read_links(w, k, idx, e);
    if (!rc && tuv) { /* the corners' UVs of the triangles read_tris kept (w->tris: all) */
      const drape_object_info *inf = &drape_sim_mesh(w->sim)->objects[k];
      int kept = 0;
      for (int t = 0; t < inf->n_tris; t++) {
        const uint32_t *q = w->tris + 3 * ((size_t)inf->first_tri + (size_t)t);
        if (q[0] == q[1] && q[1] == q[2]) continue; /* torn */
        memcpy(tuv + 6 * (size_t)kept++, uv + 6 * (size_t)t, 6 * sizeof *tuv);
      }
    }
    if (!rc)
      rc = dr_obj_object(&obj, kind_name(o->kind), o->name, x, 3, o->n_points, tuv, idx, nt, idx,
                         o->n_tris > 0 ? 0 : o->n_links, e);
    free(x);
    free(idx);
    free(tuv);
  }
  const int crc = dr_obj_close(&obj, rc == DRAPE_OK, e);
  return rc ? rc : crc;
}
