/* drape_sim: creation, parameters, grabs, spheres, read-back, statistics
 * and OBJ output. The step itself is in step.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloth/colliders.h"
#include "drape/collider.h"
#include "cloth/footprint.h"
#include "cloth/sim.h"
#include "cloth/solver_variants.h"
#include "core/obj.h"
#include "core/util.h"
#include "core/validate.h"

#define SIM_PI 3.14159265358979323846

int dr_backend_cpu_init(drape_sim *s, drape_err *e);
int dr_backend_cl_init(drape_sim *s, const drape_sim_opts *o, drape_err *e);
uint64_t dr_backend_cl_bytes(const drape_sim *s);
void dr_backend_cl_lists(const drape_sim *s, drape_timings *out);
struct drape_cl *dr_backend_cl_runtime(const drape_sim *s);
int dr_backend_cl_buffers(const drape_sim *s, drape_sim_buffers *out);

static const char *const stage_names[DRAPE_STAGE_COUNT] = {
    "wind", "predict", "drive", "self_collision", "project",
    "tethers", "collide", "update", "fused", "tear", "normals",
    "verlet", "springs_forces", "springs_advance", "colliders", "warm_start", "multilevel"};

_Static_assert((int)SELFCOL_T_COUNT == (int)DRAPE_SELFCOL_PART_COUNT &&
                   (int)SELFCOL_T_HASH_TRIANGLES == (int)DRAPE_SELFCOL_HASH_TRIANGLES,
               "drape_selfcol_part follows selfcol_part");
const char *drape_selfcol_part_name(drape_selfcol_part p) {
  return selfcol_part_name((selfcol_part)p);
}

const char *drape_stage_name(drape_stage st) {
  return (st >= 0 && st < DRAPE_STAGE_COUNT) ? stage_names[st] : "?";
}

drape_sim_opts drape_sim_opts_default(void) {
  drape_sim_opts o;
  memset(&o, 0, sizeof o);
  o.backend = DRAPE_BACKEND_CL;
  o.device_index = -1;
  return o;
}

const char *drape_sim_kernel_form(const drape_sim *s) {
  if (!s || s->be != &dr_backend_cl) return "cpu-reference";
  return s->kernel_form == DRAPE_KERNEL_FORM_GPU ? "gpu" : "vector";
}

void sim_fill_step_params(drape_sim *s) {
  dr_step_params *sp = &s->sp;
  const double h = s->dt / s->params.substeps;
  memset(sp, 0, sizeof *sp);
  sp->gravity = (dr_float4){(float)s->params.gravity[0], (float)s->params.gravity[1],
                            (float)s->params.gravity[2], 0};
  sp->wind = (dr_float4){(float)s->params.wind[0], (float)s->params.wind[1],
                         (float)s->params.wind[2], (float)s->params.wind_drag};
  sp->h = (float)h;
  sp->inv_h = (float)(1.0 / h);
  sp->inv_h2 = (float)(1.0 / (h * h));
  sp->floor_y = (float)s->floor_y;
  sp->floor_friction = (float)s->floor_friction;
  sp->has_floor = s->has_floor;
  sp->n_particles = s->m.n_particles;
  sp->n_spheres = s->n_spheres;
}

void sim_fill_materials(drape_sim *s) {
  const double h = s->dt / s->params.substeps;
  for (int o = 0; o < s->m.n_objects; o++) {
    s->mat[o] = s->m.mat[o];
    s->mat[o].damping = (float)exp(-s->m.damping_rate[o] * h);
  }
}

static int check_vec(const double v[3], const char *what, drape_err *e) {
  for (int q = 0; q < 3; q++)
    if (!isfinite(v[q]))
      return drape_fail(e, DRAPE_EINVAL, "%s[%d] = %g: expected a finite number", what, q, v[q]);
  return DRAPE_OK;
}

void drape_sim_destroy(drape_sim *s) {
  if (!s) return;
  sim_variant_destroy(s); /* before the backend: it may own the OpenCL context */
  dr_colliders_destroy(s->col); /* so may this */
  if (s->be && s->bs) s->be->destroy(s);
  dr_model_free(&s->m);
  free(s->mat); free(s->compliance); free(s->spheres); free(s->spheres0); free(s->sph);
  free(s->v0);
  free(s->kin); free(s->grabs); free(s->hx); free(s->hv); free(s->ostats); free(s->hcons);
  free(s->drape_test);
  free(s->htris); free(s->hlambda); free(s->hmlambda); free(s->res_sum);
  free(s->corner_uv), free(s->obj_corner_uv);
  free(s->sc_objects);
  free(s);
}

/* The texture coordinates of the mesh cloths' triangle corners, in the
 * model's triangle order (a mesh cloth's triangles keep the def's order,
 * the Morton reorder renumbers only vertices): tri_uv as loaded, or, for a
 * def built in code with only per-vertex uv, each corner's vertex's. */
static int corner_uvs(drape_sim *s, const drape_scene *sc, drape_err *e) {
  const dr_model *m = &s->m;
  for (int k = 0; k < sc->n_cloth && k < m->n_objects; k++) { /* cloths are objects 0.. */
    const drape_cloth_mesh *me = &sc->cloth[k].mesh;
    if (!sc->cloth[k].has_mesh || (!me->tri_uv && !me->uv) || m->info[k].n_tris != me->n_tris)
      continue;
    if (!s->corner_uv && (!(s->corner_uv = calloc(6 * (size_t)m->n_tris + 1, sizeof *s->corner_uv)) ||
                          !(s->obj_corner_uv = calloc((size_t)m->n_objects, 1))))
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    float *cu = s->corner_uv + 6 * (size_t)m->info[k].first_tri;
    if (me->tri_uv)
      memcpy(cu, me->tri_uv, sizeof *cu * 6 * (size_t)me->n_tris);
    else
      for (int c = 0; c < 3 * me->n_tris; c++)
        cu[2 * c] = me->uv[2 * me->tris[c]], cu[2 * c + 1] = me->uv[2 * me->tris[c] + 1];
    s->obj_corner_uv[k] = 1;
  }
  return DRAPE_OK;
}

/* The starting velocities (cloth[].velocity): every free particle of a
 * cloth moves at its cloth's velocity; pinned and path-driven particles
 * (inverse mass 0) start still. s->v0 stays NULL when no cloth moves, so
 * a scene without the key resets exactly as before. */
static int initial_velocities(drape_sim *s, const drape_scene *sc, drape_err *e) {
  const dr_model *m = &s->m;
  int any = 0;
  for (int k = 0; k < sc->n_cloth; k++)
    for (int q = 0; q < 3; q++) any |= sc->cloth[k].velocity[q] != 0;
  if (!any) return DRAPE_OK;
  s->v0 = calloc(4 * (size_t)m->n_particles + 4, sizeof *s->v0);
  if (!s->v0) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (int i = 0; i < m->n_particles; i++) {
    const int k = m->obj[i]; /* cloths are objects 0 .. n_cloth - 1 */
    if (k < 0 || k >= sc->n_cloth || m->x0[i].w == 0) continue;
    for (int q = 0; q < 3; q++) s->v0[4 * i + q] = (float)sc->cloth[k].velocity[q];
  }
  return DRAPE_OK;
}

static int write_initial_velocities(drape_sim *s, drape_err *e) {
  if (!s->v0) return DRAPE_OK;
  return s->be->write(s, SIM_BUF_V, 0, (size_t)s->m.n_particles * sizeof(dr_float4), s->v0, e);
}

/* A particle that starts inside a sphere or a capsule would be thrown out
 * at its depth over one substep (a 10 cm overlap at h = 1/1200 s is
 * 120 m/s): it is put on the collider's surface, outside its margin (the
 * object's thickness, as the contact stage uses), before anything moves,
 * and each object and collider concerned is named in a warning. The
 * cloth's rest shape stays as built, so its links pull it back into shape
 * from there. Capsules are posed at t = 0 by their keys. Mesh colliders
 * need nothing: their contact stage rests such a particle on the surface. */
static void start_outside(dr_model *m, const drape_scene *sc) {
  for (int k = 0; k < sc->n_sphere + sc->n_capsule; k++) {
    const int cap = k >= sc->n_sphere;
    double a[3], b[3], r;
    if (!cap) {
      const drape_sphere_def *d = &sc->sphere[k];
      memcpy(a, d->center, sizeof a), memcpy(b, d->center, sizeof b);
      r = d->radius;
    } else {
      const drape_capsule_def *d = &sc->capsule[k - sc->n_sphere];
      double pivot[3];
      for (int q = 0; q < 3; q++) pivot[q] = 0.5 * (d->a[q] + d->b[q]);
      drape_collider_keys_apply((const double(*)[7])d->keys, d->n_keys, 0, pivot, d->a, a);
      drape_collider_keys_apply((const double(*)[7])d->keys, d->n_keys, 0, pivot, d->b, b);
      r = d->radius;
    }
    for (int ob = 0; ob < m->n_objects; ob++) {
      const drape_object_info *inf = &m->info[ob];
      const double out = (r + inf->thickness) * (1 + 1e-5);
      int moved = 0;
      for (int i = inf->first_particle; i < inf->first_particle + inf->n_particles; i++) {
        dr_float4 *x = &m->x0[i];
        if (x->w == 0) continue; /* pinned: where the scene puts it */
        const double p[3] = {x->x, x->y, x->z}, ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
        double t = l2 > 0 ? ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1] + (p[2] - a[2]) * ab[2]) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double d[3], c[3];
        for (int q = 0; q < 3; q++) c[q] = a[q] + t * ab[q], d[q] = p[q] - c[q];
        double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (dist >= out) continue;
        if (!(dist > 0)) d[0] = 0, d[1] = 1, d[2] = 0, dist = 1; /* on the axis: up */
        x->x = (float)(c[0] + d[0] / dist * out);
        x->y = (float)(c[1] + d[1] / dist * out);
        x->z = (float)(c[2] + d[2] / dist * out);
        moved++;
      }
      if (moved)
        fprintf(stderr,
                "drape: warning: %s \"%s\": %d of its particles start inside %s[%d] (or within "
                "its thickness of it); they start on its surface instead, at rest\n",
                inf->kind == DRAPE_OBJ_CLOTH ? "cloth" : "rope", inf->name, moved,
                cap ? "capsule" : "sphere", cap ? k - sc->n_sphere : k);
    }
  }
}

int drape_sim_create(const drape_scene *sc, const drape_sim_opts *opts, drape_sim **out,
                     drape_err *e) {
  *out = NULL;
  drape_sim_opts o = opts ? *opts : drape_sim_opts_default();
  /* every def's validator (validate.c): a scene built in code gets the
   * loader's checks and messages */
  int rc = drape_sim_opts_validate(&o, e);
  if (rc || (rc = drape_scene_validate(sc, e))) return rc;
  drape_sim_params p;
  memset(&p, 0, sizeof p);
  p.substeps = sc->substeps;
  p.iterations = sc->iterations;
  memcpy(p.gravity, sc->gravity, sizeof p.gravity);
  memcpy(p.wind, sc->wind, sizeof p.wind);
  p.wind_drag = sc->wind_drag;
  p.wind_enabled = sc->wind[0] != 0 || sc->wind[1] != 0 || sc->wind[2] != 0;
  p.tearing_enabled = 1;
  p.tethers_enabled = 1;
  p.normals_enabled = 1;
  p.fuse_stages = 1;

  drape_sim *s = calloc(1, sizeof *s);
  if (!s) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  if ((rc = dr_model_build(sc, &s->m, e))) { free(s); return rc; }
  if ((rc = dr_model_check_warm(&s->m, sc->dt / sc->substeps, e))) {
    dr_model_free(&s->m);
    free(s);
    return rc;
  }
  start_outside(&s->m, sc);
  if ((rc = dr_colliders_create(sc, &s->col, e))) { /* colliders.c */
    dr_model_free(&s->m);
    free(s);
    return rc;
  }
  s->params = p;
  s->dt = sc->dt;
  s->wind_in_scene = p.wind_enabled;
  s->has_floor = sc->has_floor;
  s->floor_y = sc->floor_height;
  s->floor_friction = sc->floor_friction;
  s->n_spheres = sc->n_sphere;
  const dr_model *m = &s->m;
  for (int ob = 0; ob < m->n_objects; ob++) s->any_tear |= m->mat[ob].tear_ratio > 0;
  s->cap_kin = m->n_paths + 8;
  size_t np = (size_t)(m->n_particles > 0 ? m->n_particles : 1);
  size_t nob = (size_t)m->n_objects + 1;
  s->mat = calloc(nob, sizeof *s->mat);
  s->compliance = calloc(nob, sizeof *s->compliance);
  s->spheres = calloc((size_t)s->n_spheres + 1, sizeof *s->spheres);
  s->spheres0 = calloc((size_t)s->n_spheres + 1, sizeof *s->spheres0);
  s->sph = calloc((size_t)s->n_spheres + 1, sizeof *s->sph);
  s->kin = calloc((size_t)s->cap_kin, sizeof *s->kin);
  s->hx = calloc(np * 4, sizeof *s->hx);
  s->hv = calloc(np * 4, sizeof *s->hv);
  s->ostats = calloc(nob, sizeof *s->ostats);
  s->drape_test = calloc(nob, sizeof *s->drape_test);
  if (!s->mat || !s->compliance || !s->spheres || !s->spheres0 || !s->sph || !s->kin || !s->hx ||
      !s->hv || !s->ostats || !s->drape_test) {
    drape_sim_destroy(s);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  if (s->n_spheres) {
    memcpy(s->spheres, sc->sphere, sizeof *s->spheres * (size_t)s->n_spheres);
    memcpy(s->spheres0, sc->sphere, sizeof *s->spheres0 * (size_t)s->n_spheres);
  }
  for (int k = 0; k < sc->n_cloth; k++) {
    s->compliance[k][0] = sc->cloth[k].compliance_stretch;
    s->compliance[k][1] = sc->cloth[k].compliance_shear;
    s->compliance[k][2] = sc->cloth[k].compliance_bend;
  }
  for (int k = 0; k < sc->n_rope; k++) s->compliance[sc->n_cloth + k][0] = sc->rope[k].compliance;
  /* the flat area from the def as validated: the rest shape the model
   * was built from (cloths are objects 0 .. n_cloth - 1) */
  for (int k = 0; k < sc->n_cloth; k++)
    if (sc->cloth[k].drape_disk_radius > 0) {
      const double r = sc->cloth[k].drape_disk_radius;
      s->drape_test[k][0] = SIM_PI * r * r;
      s->drape_test[k][1] = dr_cloth_rest_area(&sc->cloth[k]);
    }
  sim_fill_materials(s);
  sim_fill_step_params(s);
  for (int k = 0; k < s->n_spheres; k++) {
    const drape_sphere_def *d = &s->spheres[k];
    s->sph[k].center_radius = (dr_float4){(float)d->center[0], (float)d->center[1],
                                          (float)d->center[2], (float)d->radius};
    s->sph[k].velocity_friction = (dr_float4){(float)d->velocity[0], (float)d->velocity[1],
                                              (float)d->velocity[2], (float)d->friction};
  }

  s->mesh.n_particles = m->n_particles;
  s->mesh.n_tris = m->n_tris;
  s->mesh.tris = m->tris;
  s->mesh.n_lines = m->n_lines;
  s->mesh.lines = m->lines;
  s->mesh.n_objects = m->n_objects;
  s->mesh.objects = m->info;
  s->mesh.n_constraints = m->n_cons;
  s->mesh.n_colours = m->n_colours;
  s->mesh.n_bend_constraints = m->n_hinges;
  s->mesh.n_bend_colours = m->n_bend_colours;
  for (int k = 0; k < m->n_colours; k++) {
    const int n = m->colour_off[k + 1] - m->colour_off[k];
    if (k == 0 || n < s->mesh.colour_min) s->mesh.colour_min = n;
    if (k == 0 || n > s->mesh.colour_max) s->mesh.colour_max = n;
  }
  for (int k = 0; k < m->n_bend_colours; k++) {
    const int n = m->bend_colour_off[k + 1] - m->bend_colour_off[k];
    if (k == 0 || n < s->mesh.bend_colour_min) s->mesh.bend_colour_min = n;
    if (k == 0 || n > s->mesh.bend_colour_max) s->mesh.bend_colour_max = n;
  }
  s->mesh.tether_slots = m->tether_slots;

  /* Self-collision (docs/selfcollision.md): cloths with self_collision
   * on take part, and every rope as soon as one cloth does. */
  s->sc_objects = calloc(nob, sizeof *s->sc_objects);
  if (!s->sc_objects) {
    drape_sim_destroy(s);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  for (int k = 0; k < sc->n_cloth; k++) s->self_collision |= sc->cloth[k].self_collision;
  for (int k = 0; k < sc->n_cloth; k++) {
    const drape_cloth_def *c = &sc->cloth[k];
    s->sc_objects[k] = (selfcol_object){(float)c->thickness, (float)c->self_friction, 0,
                                        c->self_collision, c->self_mode == DRAPE_SELF_VERTEX_TRIANGLE,
                                        (float)dr_cloth_spacing(c), k, c->name,
                                        !c->self_collision_bounds};
  }
  for (int k = 0; k < sc->n_rope; k++) {
    const drape_rope_def *r = &sc->rope[k];
    s->sc_objects[sc->n_cloth + k] =
        (selfcol_object){(float)r->thickness, 0.0f, 1, s->self_collision, 0,
                         (float)(r->length / r->segments), k, r->name, 1};
  }
  s->sc_desc = (selfcol_desc){m->n_particles, m->x0,      m->obj,       m->n_tris,
                              m->tris,        m->n_objects, s->sc_objects, 0, 0, 0, 0, 0, 0};
  if ((rc = corner_uvs(s, sc, e))) {
    drape_sim_destroy(s);
    return rc;
  }

  if (o.backend == DRAPE_BACKEND_CPU) {
    s->be = &dr_backend_cpu;
    rc = dr_backend_cpu_init(s, e);
  } else {
    s->be = &dr_backend_cl;
    rc = dr_backend_cl_init(s, &o, e);
  }
  if (rc || (rc = initial_velocities(s, sc, e)) || (rc = s->be->reset(s, e)) ||
      (rc = write_initial_velocities(s, e)) || (rc = dr_colliders_attach(s, e)) ||
      (rc = sim_variant_create(s, sc, e))) {
    drape_sim_destroy(s);
    return rc;
  }
  memset(&s->tm, 0, sizeof s->tm);
  *out = s;
  return DRAPE_OK;
}

int drape_sim_reset(drape_sim *s, drape_err *e) {
  /* keep the current radius and friction of each sphere (viewer edits) */
  for (int k = 0; k < s->n_spheres; k++) {
    double r = s->spheres[k].radius, mu = s->spheres[k].friction;
    s->spheres[k] = s->spheres0[k];
    s->spheres[k].radius = r;
    s->spheres[k].friction = mu;
    s->sph[k].center_radius = (dr_float4){(float)s->spheres[k].center[0],
                                          (float)s->spheres[k].center[1],
                                          (float)s->spheres[k].center[2], (float)r};
  }
  s->spheres_dirty = 1;
  for (int g = 0; g < s->n_grabs; g++) s->grabs[g].active = 0;
  s->n_grabs = 0;
  s->n_kin = 0;
  s->time = 0;
  s->frame = 0;
  s->hx_valid = 0;
  memset(&s->diverged, 0, sizeof s->diverged); /* a reset clears a divergence */
  sim_fill_materials(s);
  s->need_h_update = 0;
  int rc = s->be->reset(s, e);
  if (!rc) rc = write_initial_velocities(s, e);
  return rc ? rc : dr_colliders_attach(s, e);
}

double drape_sim_time(const drape_sim *s) { return s->time; }
int drape_sim_frame(const drape_sim *s) { return s->frame; }
const drape_mesh *drape_sim_mesh(const drape_sim *s) { return &s->mesh; }

/* ---- read-back ---- */

int drape_sim_read_positions(drape_sim *s, float *xyzw, drape_err *e) {
  size_t bytes = (size_t)s->m.n_particles * sizeof(dr_float4);
  if (xyzw == s->hx && s->hx_valid) return DRAPE_OK;
  int rc = s->be->read(s, SIM_BUF_X, 0, bytes, xyzw, e);
  if (!rc && xyzw != s->hx) memcpy(s->hx, xyzw, bytes);
  if (!rc) s->hx_valid = 1;
  return rc;
}
int drape_sim_read_normals(drape_sim *s, float *n, drape_err *e) {
  return s->be->read(s, SIM_BUF_N, 0, (size_t)s->m.n_particles * sizeof(dr_float4), n, e);
}
int drape_sim_read_velocities(drape_sim *s, float *v, drape_err *e) {
  return s->be->read(s, SIM_BUF_V, 0, (size_t)s->m.n_particles * sizeof(dr_float4), v, e);
}
int drape_sim_read_triangles(drape_sim *s, uint32_t *t, drape_err *e) {
  if (!s->any_tear) {
    memcpy(t, s->m.tris, (size_t)s->m.n_tris * 3 * sizeof *t);
    return DRAPE_OK;
  }
  return s->be->read(s, SIM_BUF_TRIS, 0, (size_t)s->m.n_tris * 3 * sizeof *t, t, e);
}
int drape_sim_write_velocities(drape_sim *s, const float *v, drape_err *e) {
  size_t n = (size_t)s->m.n_particles;
  dr_float4 *tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!tmp) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    for (int q = 0; q < 3; q++)
      if (!isfinite(v[4 * i + q])) {
        free(tmp);
        return drape_fail(e, DRAPE_EINVAL, "velocity of particle %zu is not finite", i);
      }
    tmp[i] = (dr_float4){v[4 * i], v[4 * i + 1], v[4 * i + 2], 0};
  }
  int rc = s->be->write(s, SIM_BUF_V, 0, n * sizeof *tmp, tmp, e);
  free(tmp);
  return rc;
}

int drape_sim_cl_buffers(const drape_sim *s, drape_sim_buffers *out) {
  memset(out, 0, sizeof *out);
  if (s->be != &dr_backend_cl) return DRAPE_EINVAL;
  return dr_backend_cl_buffers(s, out);
}
struct drape_cl *drape_sim_cl(const drape_sim *s) {
  return s->be == &dr_backend_cl ? dr_backend_cl_runtime(s) : NULL;
}

/* ---- parameters ---- */

void drape_sim_get_params(const drape_sim *s, drape_sim_params *out) { *out = s->params; }

int drape_sim_set_params(drape_sim *s, const drape_sim_params *p, drape_err *e) {
  int rc = drape_sim_params_validate(p, s->dt, e);
  if (rc || (rc = dr_model_check_warm(&s->m, s->dt / p->substeps, e))) return rc;
  if (p->substeps != s->params.substeps) s->need_h_update = 1;
  s->params = *p;
  return s->be->ensure(s, e);
}

/* Stitches (docs/scenes.md "Stitches"): each frame, before it is stepped,
 * the rest length of every stitch constraint becomes its starting distance
 * times max(0, 1 - t / close_time) at the frame's end t, so a seam closes
 * linearly over close_time. Written through the whole constraint list
 * (read back first, so torn links elsewhere stay torn), only while a seam
 * is still closing: afterwards the rests stay 0 and nothing is copied.
 * Why per frame and not per substep: the rest changes by rest0 dt /
 * close_time per frame (2 cm for a 0.6 m seam over 0.5 s), which the 20
 * substeps take up as a short pull; a per-substep update would need a
 * device-side kernel for a few dozen constraints. */
int dr_sim_stitches(drape_sim *s, drape_err *e) {
  const dr_model *m = &s->m;
  if (m->n_stitch == 0) return DRAPE_OK;
  const double t = (s->frame + 1) * s->dt, t_prev = s->frame * s->dt;
  int closing = 0;
  for (int i = 0; i < m->n_stitch && !closing; i++) closing = t_prev < m->stitch_close[i] || s->frame == 0;
  if (!closing) return DRAPE_OK;
  size_t bytes = (size_t)m->n_cons * sizeof(dr_distance);
  if (!s->hcons && !(s->hcons = malloc(bytes ? bytes : 1)))
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  int rc = s->be->read(s, SIM_BUF_CONS, 0, bytes, s->hcons, e);
  if (rc) return rc;
  for (int i = 0; i < m->n_stitch; i++) {
    const double close = m->stitch_close[i];
    const double f = close > 0 ? fmax(0.0, 1.0 - t / close) : 0.0;
    /* tension-only (negative); -0 at the end is rest 0, pull only */
    s->hcons[m->stitch_con[i]].rest = -(float)(m->stitch_rest0[i] * f);
  }
  return s->be->write(s, SIM_BUF_CONS, 0, bytes, s->hcons, e);
}

static int check_object(const drape_sim *s, int object, drape_err *e) {
  if (object >= s->m.n_objects)
    return drape_fail(e, DRAPE_EINVAL, "object %d does not exist: expected -1 (all) or 0..%d",
                      object, s->m.n_objects - 1);
  return DRAPE_OK;
}

int drape_sim_get_material(const drape_sim *s, int object, drape_material_def *out) {
  if (object < 0 || object >= s->m.n_objects || !s->m.obj_material[object]) return DRAPE_EINVAL;
  *out = s->m.obj_mat[object];
  return DRAPE_OK;
}

int drape_sim_set_material(drape_sim *s, int object, const drape_material_def *mat,
                           drape_err *e) {
  int rc = check_object(s, object, e);
  if (rc) return rc;
  const dr_model *m = &s->m;
  if (object < 0 || !m->obj_material[object])
    return drape_fail(e, DRAPE_EINVAL, "object %d (\"%s\") was not built from a material", object,
                      object >= 0 ? m->info[object].name : "?");
  const int rope = m->info[object].kind == DRAPE_OBJ_ROPE;
  int n_cloth = 0;
  for (int ob = 0; ob < m->n_objects; ob++) n_cloth += m->info[ob].kind == DRAPE_OBJ_CLOTH;
  const int index = rope ? object - n_cloth : object; /* the scene's key path */
  drape_material_def nm = *mat;
  nm.set = 1;
  if ((rc = vd_material(&nm, rope ? "rope" : "cloth", index, e))) return rc;
  const drape_material_def *old = &m->obj_mat[object];
  if (nm.density != old->density)
    return drape_fail(e, DRAPE_EINVAL,
                      "\"%s\": material.density = %s: an edit keeps the masses, so it must stay %s",
                      m->info[object].name, dr_num(nm.density), dr_num(old->density));
  int has_hinge = 0;
  for (int k = 0; k < m->n_mhinge; k++) has_hinge |= m->mhinge_obj[k] == object;
  if (!rope && !has_hinge && (nm.bend[0] > 0 || nm.bend[1] > 0))
    return drape_fail(e, DRAPE_EINVAL,
                      "\"%s\": material.bend: the cloth was built with bend 0, so it has no hinges "
                      "to stiffen (build it with a bend > 0)", m->info[object].name);
  if (!rope && has_hinge && !(nm.bend[0] > 0 && nm.bend[1] > 0))
    return drape_fail(e, DRAPE_EINVAL,
                      "\"%s\": material.bend must stay > 0 in both directions (its hinges were "
                      "built for a bending fabric)", m->info[object].name);
  int has_rbend = 0;
  for (int k = 0; k < m->n_rbend; k++) has_rbend |= m->rbend_obj[k] == object;
  if (rope && has_rbend != (nm.bend[0] > 0))
    return drape_fail(e, DRAPE_EINVAL,
                      "\"%s\": material.bend = %s: the rope was built %s bending, so it must stay %s",
                      m->info[object].name, dr_num(nm.bend[0]), has_rbend ? "with" : "without",
                      has_rbend ? "> 0" : "0");
  if (rope) {
    for (int k = 0; k < m->n_rbend; k++) {
      dr_rod_bend *q = &s->m.rbend[k];
      if (m->rbend_obj[k] == object)
        q->compliance = (float)(0.5 * (1.0 / q->il0 + 1.0 / q->il1) / nm.bend[0]);
    }
    if (m->n_rbend && (rc = s->be->write(s, SIM_BUF_RBEND, 0, sizeof(dr_rod_bend) * (size_t)m->n_rbend,
                                         s->m.rbend, e)))
      return rc;
    size_t bytes = (size_t)m->n_cons * sizeof(dr_distance);
    if (!s->hcons && !(s->hcons = malloc(bytes ? bytes : 1)))
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    if ((rc = s->be->read(s, SIM_BUF_CONS, 0, bytes, s->hcons, e))) return rc;
    for (int i = 0; i < m->n_cons; i++) {
      if (m->cons_obj[i] != object || m->cons_type[i] != DR_C_ROPE) continue;
      const float c = (float)(fabs((double)m->cons[i].rest) / nm.stretch[0]);
      s->m.cons[i].compliance = c;
      if (s->hcons[i].compliance >= 0) s->hcons[i].compliance = c;
    }
    if ((rc = s->be->write(s, SIM_BUF_CONS, 0, bytes, s->hcons, e))) return rc;
  } else {
    for (int k = 0; k < m->n_memb; k++) {
      dr_membrane *q = &s->m.memb[k];
      const double A = m->memb_area[q->pad];
      if (m->memb_obj[k] != object || !(A > 0)) continue;
      q->comp_u = (float)(1.0 / (A * nm.stretch[0]));
      q->comp_v = (float)(1.0 / (A * nm.stretch[1]));
      q->comp_s = nm.shear > 0 ? (float)(1.0 / (A * nm.shear)) : -1.0f;
    }
    for (int k = 0; k < m->n_mhinge; k++) {
      dr_dihedral *d = &s->m.mhinge[k];
      if (m->mhinge_obj[k] != object) continue;
      d->compliance = (float)(1.0 / (nm.bend[0] * m->mhinge_kw[d->edge] + nm.bend[1] * m->mhinge_kf[d->edge]));
    }
    if ((m->n_memb && (rc = s->be->write(s, SIM_BUF_MEMB, 0, sizeof(dr_membrane) * (size_t)m->n_memb,
                                         s->m.memb, e))) ||
        (m->n_mhinge && (rc = s->be->write(s, SIM_BUF_MHINGE, 0,
                                           sizeof(dr_dihedral) * (size_t)m->n_mhinge, s->m.mhinge, e))))
      return rc;
  }
  const drape_material_def before = *old;
  s->m.obj_mat[object] = nm;
  /* a stiffer material may need a shorter substep under warm_start: then
   * the edit is undone, with the check's message */
  dr_model_warm_stiffness(&s->m);
  if ((rc = dr_model_check_warm(&s->m, s->dt / s->params.substeps, e))) {
    drape_err ignore = {0};
    drape_sim_set_material(s, object, &before, &ignore);
    return rc;
  }
  if (nm.damping >= 0 && (rc = drape_sim_set_damping(s, object, nm.damping, e))) return rc;
  return DRAPE_OK;
}

int drape_sim_set_compliance(drape_sim *s, int object, drape_compliance_kind kind,
                             double compliance, drape_err *e) {
  int rc = check_object(s, object, e);
  if (rc) return rc;
  if (kind < DRAPE_COMPLIANCE_STRETCH || kind > DRAPE_COMPLIANCE_BEND)
    return drape_fail(e, DRAPE_EINVAL, "compliance kind %d: expected stretch, shear or bend",
                      (int)kind);
  if ((rc = vd_compliance(e, "compliance", compliance, s->dt / s->params.substeps))) return rc;
  /* a material object's compliances are its material's, per element */
  for (int ob = 0; ob < s->m.n_objects; ob++)
    if ((object < 0 || ob == object) && s->m.obj_material[ob])
      return drape_fail(e, DRAPE_EINVAL,
                        "\"%s\" is made of a material: its compliances follow from the material "
                        "and each element's size, not from one per-constraint value",
                        s->m.info[ob].name);
  size_t bytes = (size_t)s->m.n_cons * sizeof(dr_distance);
  if (!s->hcons && !(s->hcons = malloc(bytes ? bytes : 1)))
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  /* start from the device copy so torn constraints stay torn */
  if ((rc = s->be->read(s, SIM_BUF_CONS, 0, bytes, s->hcons, e))) return rc;
  for (int i = 0; i < s->m.n_cons; i++) {
    int ob = s->m.cons_obj[i], t = s->m.cons_type[i];
    if (object >= 0 && ob != object) continue;
    if (t == DR_C_STITCH) continue; /* a seam keeps its own compliance */
    int k = (t == DR_C_STRETCH || t == DR_C_ROPE) ? 0 : t == DR_C_SHEAR ? 1 : 2;
    if (k != (int)kind) continue;
    s->m.cons[i].compliance = (float)compliance;
    if (s->hcons[i].compliance >= 0) s->hcons[i].compliance = (float)compliance;
  }
  for (int ob = 0; ob < s->m.n_objects; ob++)
    if (object < 0 || ob == object) s->compliance[ob][kind] = compliance;
  if ((rc = s->be->write(s, SIM_BUF_CONS, 0, bytes, s->hcons, e))) return rc;
  if (kind != DRAPE_COMPLIANCE_BEND || s->m.n_hinges == 0) return DRAPE_OK;
  /* mesh cloths bend by their hinges: each takes its share of the new
   * compliance.bend, as the builder gave it (dr_hinge_compliance) */
  for (int k = 0; k < s->m.n_bend; k++) {
    dr_dihedral *d = &s->m.bend[k];
    if (d->c < 0 || (object >= 0 && s->m.bend_obj[k] != object)) continue;
    d->compliance = dr_hinge_compliance(compliance, d->weight);
  }
  return s->be->write(s, SIM_BUF_BEND, 0, sizeof(dr_dihedral) * (size_t)s->m.n_bend, s->m.bend, e);
}

int drape_sim_set_damping(drape_sim *s, int object, double rate, drape_err *e) {
  int rc = check_object(s, object, e);
  if (rc) return rc;
  if ((rc = vd_range(e, "damping", rate, 0, 1, DRAPE_MAX_DAMPING, 1))) return rc;
  for (int ob = 0; ob < s->m.n_objects; ob++)
    if (object < 0 || ob == object) s->m.damping_rate[ob] = rate;
  s->need_h_update = 1;
  return DRAPE_OK;
}

/* ---- spheres ---- */

int drape_sim_n_spheres(const drape_sim *s) { return s->n_spheres; }

int drape_sim_get_sphere(const drape_sim *s, int k, drape_sphere_def *out) {
  if (k < 0 || k >= s->n_spheres) return DRAPE_EINVAL;
  *out = s->spheres[k];
  return DRAPE_OK;
}

int drape_sim_set_sphere(drape_sim *s, int k, const double center[3], const double *radius,
                         const double velocity[3], drape_err *e) {
  if (k < 0 || k >= s->n_spheres)
    return drape_fail(e, DRAPE_EINVAL, "sphere %d does not exist: the scene has %d", k,
                      s->n_spheres);
  drape_sphere_def d = s->spheres[k];
  if (center) memcpy(d.center, center, sizeof d.center);
  if (radius) d.radius = *radius;
  if (velocity) memcpy(d.velocity, velocity, sizeof d.velocity);
  int rc = drape_sphere_def_validate(&d, k, e);
  if (rc) return rc;
  s->spheres[k] = d;
  s->spheres_dirty = 1;
  return DRAPE_OK;
}

/* ---- grabs ---- */

static int grow_kin(drape_sim *s, drape_err *e) {
  int active = 0;
  for (int g = 0; g < s->n_grabs; g++) active += s->grabs[g].active;
  int need = s->m.n_paths + active;
  if (need <= s->cap_kin) return DRAPE_OK;
  int cap = 2 * need;
  dr_kinematic *k = realloc(s->kin, sizeof *k * (size_t)cap);
  if (!k) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  s->kin = k;
  s->cap_kin = cap;
  return s->be->ensure(s, e);
}

int drape_sim_grab(drape_sim *s, int particle, const double target[3], int *grab_id,
                   drape_err *e) {
  if (particle < 0 || particle >= s->m.n_particles)
    return drape_fail(e, DRAPE_EINVAL, "grab: particle %d does not exist: expected 0..%d",
                      particle, s->m.n_particles - 1);
  int rc = check_vec(target, "grab target", e);
  if (rc) return rc;
  for (int g = 0; g < s->n_grabs; g++)
    if (s->grabs[g].active && s->grabs[g].particle == particle)
      return drape_fail(e, DRAPE_EINVAL, "grab: particle %d is already held by grab %d", particle,
                        g);
  for (int i = 0; i < s->m.n_paths; i++)
    if (s->m.paths[i].particle == particle)
      return drape_fail(e, DRAPE_EINVAL, "grab: particle %d follows a scripted pin path", particle);
  int id = -1;
  for (int g = 0; g < s->n_grabs; g++)
    if (!s->grabs[g].active) { id = g; break; }
  if (id < 0) {
    sim_grab *ng = realloc(s->grabs, sizeof *ng * (size_t)(s->n_grabs + 1));
    if (!ng) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    s->grabs = ng;
    id = s->n_grabs++;
  }
  dr_float4 x;
  if ((rc = s->be->read(s, SIM_BUF_X, (size_t)particle * sizeof x, sizeof x, &x, e))) return rc;
  sim_grab *g = &s->grabs[id];
  g->active = 1;
  g->particle = particle;
  g->saved_w = x.w;
  g->from[0] = x.x; g->from[1] = x.y; g->from[2] = x.z;
  memcpy(g->to, target, sizeof g->to);
  const float zero = 0.0f;
  if ((rc = s->be->write(s, SIM_BUF_X, (size_t)particle * sizeof x + 12, sizeof zero, &zero, e)))
    return rc;
  if ((rc = grow_kin(s, e))) return rc;
  *grab_id = id;
  return DRAPE_OK;
}

static int check_grab(const drape_sim *s, int id, drape_err *e) {
  if (id < 0 || id >= s->n_grabs || !s->grabs[id].active)
    return drape_fail(e, DRAPE_EINVAL, "grab %d is not active", id);
  return DRAPE_OK;
}

int drape_sim_grab_move(drape_sim *s, int id, const double target[3], drape_err *e) {
  int rc = check_grab(s, id, e);
  if (rc || (rc = check_vec(target, "grab target", e))) return rc;
  memcpy(s->grabs[id].to, target, sizeof s->grabs[id].to);
  return DRAPE_OK;
}

int drape_sim_grab_release(drape_sim *s, int id, drape_err *e) {
  int rc = check_grab(s, id, e);
  if (rc) return rc;
  sim_grab *g = &s->grabs[id];
  g->active = 0;
  return s->be->write(s, SIM_BUF_X, (size_t)g->particle * sizeof(dr_float4) + 12, sizeof(float),
                      &g->saved_w, e);
}

static int ensure_hx(drape_sim *s, drape_err *e) {
  if (s->hx_valid) return DRAPE_OK;
  return drape_sim_read_positions(s, s->hx, e);
}

const float *dr_sim_positions(drape_sim *s, drape_err *e) {
  return ensure_hx(s, e) ? NULL : s->hx;
}

const uint32_t *dr_sim_triangles(drape_sim *s, drape_err *e) {
  const dr_model *m = &s->m;
  if (!s->any_tear) return m->tris; /* nothing can tear: the model's list */
  if (!s->htris && !(s->htris = malloc((size_t)m->n_tris * 3 * sizeof *s->htris + 4))) {
    drape_fail(e, DRAPE_ENOMEM, "out of memory");
    return NULL;
  }
  return drape_sim_read_triangles(s, s->htris, e) ? NULL : s->htris;
}

const float *dr_sim_uv(const drape_sim *s, int ob) {
  if (ob < 0 || ob >= s->m.n_objects || !s->corner_uv || !s->obj_corner_uv[ob]) return NULL;
  return s->corner_uv + 6 * (size_t)s->m.info[ob].first_tri;
}

int drape_sim_pick(drape_sim *s, const double o[3], const double d[3], double max_dist,
                   int *particle, drape_err *e) {
  *particle = -1;
  int rc = ensure_hx(s, e);
  if (rc) return rc;
  double best = max_dist;
  for (int i = 0; i < s->m.n_particles; i++) {
    double r[3] = {s->hx[4 * i] - o[0], s->hx[4 * i + 1] - o[1], s->hx[4 * i + 2] - o[2]};
    double t = r[0] * d[0] + r[1] * d[1] + r[2] * d[2];
    if (t < 0) continue;
    double q[3] = {r[0] - t * d[0], r[1] - t * d[1], r[2] - t * d[2]};
    double dist = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    if (dist <= best) { best = dist; *particle = i; }
  }
  return DRAPE_OK;
}

/* ---- timings and statistics ---- */

void drape_sim_timings(const drape_sim *s, drape_timings *out) {
  *out = s->tm;
  out->device_bytes =
      s->be == &dr_backend_cl ? dr_backend_cl_bytes(s) + dr_colliders_bytes(s->col) : 0;
  if (s->be == &dr_backend_cl) dr_backend_cl_lists(s, out);
}

/* The residual of each object (cloth.h, drape_object_stats.residual;
 * docs/solver.md "Residual"): the RMS over its stretch constraints of
 * XPBD's h(x, lambda) = C(x) + alpha~ lambda (Macklin, Müller and
 * Chentanez 2016, section 3: the implicit step's constraint equation, of
 * which eq. 18's dlambda is one Newton step), alpha~ = alpha / h^2,
 * in strain units, at the positions x and the multipliers of the frame's
 * last substep (step.c stores them even with one iteration). Membranes
 * (the fine ones; the coarse levels are a means to solve them): warp and
 * weft, C = |f| - 1 with their multipliers. Distance constraints (the
 * stretch links of grids, mesh cloths' edges, rope links): h / rest, with
 * C = |x_a - x_b| - rest. Left out: torn constraints and components off
 * (compliance < 0), a membrane component with a tangent of length 0 (the
 * kernels skip it), the measured edges of material cloths (nothing projects
 * them) and, as the kernels do, a tension-only link while it is slack
 * (its inequality holds). res_sum is 2 per object: sum of h^2, count. */
static int residuals(drape_sim *s, const float *x, const dr_distance *cons, drape_err *e) {
  const dr_model *m = &s->m;
  const double inv_h2 = s->sp.inv_h2; /* the frame's, as the kernels used it */
  int rc;
  if (!s->res_sum && !(s->res_sum = malloc(sizeof *s->res_sum * 2 * ((size_t)m->n_objects + 1))))
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  double *acc = s->res_sum;
  memset(acc, 0, sizeof *acc * 2 * (size_t)m->n_objects);
  if (m->n_cons > 0) {
    if (!s->hlambda && !(s->hlambda = malloc(sizeof *s->hlambda * (size_t)m->n_cons)))
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    if ((rc = s->be->read(s, SIM_BUF_LAMBDA, 0, sizeof *s->hlambda * (size_t)m->n_cons,
                          s->hlambda, e)))
      return rc;
    for (int ob = 0; ob < m->n_objects; ob++)
      for (int k = m->strain_off[ob]; k < m->strain_off[ob + 1]; k++) {
        const int i = m->strain_idx[k];
        const dr_distance *c = &cons[i];
        if (m->cons_type[i] == DR_C_MEASURE || c->compliance < 0) continue;
        const float *a = x + 4 * c->a, *b = x + 4 * c->b;
        const double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
        const double rest = fabs(c->rest); /* rest < 0: tension-only */
        const double C = sqrt(dx * dx + dy * dy + dz * dz) - rest;
        const double h = c->rest < 0 && C < 0 ? 0.0
                                              : (C + c->compliance * inv_h2 * s->hlambda[i]) / rest;
        acc[2 * ob] += h * h;
        acc[2 * ob + 1] += 1;
      }
  }
  int first, count;
  dr_model_level_membranes(m, 0, &first, &count);
  if (count > 0) {
    if (!s->hmlambda && !(s->hmlambda = malloc(sizeof *s->hmlambda * (size_t)count)))
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    if ((rc = s->be->read(s, SIM_BUF_MLAMBDA, sizeof *s->hmlambda * (size_t)first,
                          sizeof *s->hmlambda * (size_t)count, s->hmlambda, e)))
      return rc;
    for (int k = 0; k < count; k++) {
      const dr_membrane *q = &m->memb[first + k];
      const float *xa = x + 4 * q->a, *xb = x + 4 * q->b, *xc = x + 4 * q->c;
      const double lam[2] = {s->hmlambda[k].x, s->hmlambda[k].y};
      const double comp[2] = {q->comp_u, q->comp_v};
      const double cb[2] = {q->cub, q->cvb}, cc[2] = {q->cuc, q->cvc};
      const int ob = m->memb_obj[first + k];
      for (int d = 0; d < 2; d++) { /* f = cb (x_b - x_a) + cc (x_c - x_a) */
        double f2 = 0;
        for (int j = 0; j < 3; j++) {
          const double f = cb[d] * ((double)xb[j] - xa[j]) + cc[d] * ((double)xc[j] - xa[j]);
          f2 += f * f;
        }
        if (comp[d] < 0 || !(f2 > 0)) continue;
        const double h = (sqrt(f2) - 1.0) + comp[d] * inv_h2 * lam[d];
        acc[2 * ob] += h * h;
        acc[2 * ob + 1] += 1;
      }
    }
  }
  for (int ob = 0; ob < m->n_objects; ob++)
    s->ostats[ob].residual = acc[2 * ob + 1] > 0 ? sqrt(acc[2 * ob] / acc[2 * ob + 1]) : 0.0;
  return DRAPE_OK;
}

int drape_sim_stats(drape_sim *s, drape_stats *out, drape_err *e) {
  memset(out, 0, sizeof *out);
  const dr_model *m = &s->m;
  int rc = ensure_hx(s, e);
  if (rc || (rc = drape_sim_read_velocities(s, s->hv, e))) return rc;
  const dr_distance *cons = m->cons;
  if (s->any_tear) {
    size_t bytes = (size_t)m->n_cons * sizeof(dr_distance);
    if (!s->hcons && !(s->hcons = malloc(bytes ? bytes : 1)))
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    if ((rc = s->be->read(s, SIM_BUF_CONS, 0, bytes, s->hcons, e))) return rc;
    cons = s->hcons;
  }
  const float *x = s->hx, *v = s->hv;
  for (int i = 0; i < m->n_particles; i++)
    if (!isfinite(x[4 * i]) || !isfinite(x[4 * i + 1]) || !isfinite(x[4 * i + 2]))
      return drape_fail(e, DRAPE_EUNSTABLE,
                        "the simulation diverged: particle %d has position (%g, %g, %g) at frame %d",
                        i, x[4 * i], x[4 * i + 1], x[4 * i + 2], s->frame);
  out->frame = s->frame;
  out->time = s->time;
  out->n_objects = m->n_objects;
  out->objects = s->ostats;
  for (int ob = 0; ob < m->n_objects; ob++) {
    drape_object_stats *os = &s->ostats[ob];
    memset(os, 0, sizeof *os);
    double sum = 0, sum_abs = 0, mx = -INFINITY, mn = INFINITY;
    int n = 0;
    for (int k = m->strain_off[ob]; k < m->strain_off[ob + 1]; k++) {
      const dr_distance *c = &cons[m->strain_idx[k]];
      if (c->compliance < 0) continue;
      const float *a = x + 4 * c->a, *b = x + 4 * c->b;
      double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
      double strain = sqrt(dx * dx + dy * dy + dz * dz) / fabs(c->rest) - 1.0; /* < 0: tension-only */
      if (strain > mx) mx = strain;
      if (strain < mn) mn = strain;
      sum += strain > 0 ? strain : 0;
      sum_abs += fabs(strain);
      n++;
    }
    os->max_strain = n ? mx : 0;
    os->min_strain = n ? mn : 0;
    os->mean_strain = n ? sum / n : 0;
    os->mean_abs_strain = n ? sum_abs / n : 0;
    const drape_object_info *inf = &m->info[ob];
    os->lowest = INFINITY;
    for (int i = inf->first_particle; i < inf->first_particle + inf->n_particles; i++)
      os->lowest = fmin(os->lowest, x[4 * i + 1]);
    if (inf->kind == DRAPE_OBJ_CLOTH && inf->n_tris > 0) {
      /* the current triangles: torn ones are degenerate and cover nothing */
      const uint32_t *tris = dr_sim_triangles(s, e);
      if (!tris) return e ? e->code : DRAPE_ENOMEM;
      os->covered_area = dr_footprint_area(x, tris, inf->first_tri, inf->n_tris);
    }
    /* Cusick 1968, ISO 9073-9: the share of the annulus outside the
     * support disk that the specimen's shadow still covers. */
    const double Ad = s->drape_test[ob][0], A0 = s->drape_test[ob][1];
    os->drape_coefficient = Ad > 0 ? (os->covered_area - Ad) / (A0 - Ad) : NAN;
    if (s->any_tear)
      for (int i = 0; i < m->n_cons; i++) os->torn += m->cons_obj[i] == ob && cons[i].compliance < 0;
  }
  if (dr_sim_solver(s) == DRAPE_SOLVER_SPRINGS) { /* no constraint is solved */
    for (int ob = 0; ob < m->n_objects; ob++) s->ostats[ob].residual = NAN;
  } else if ((rc = residuals(s, x, cons, e))) {
    return rc;
  }
  if (s->var) { /* the springs' stored energy, per object */
    double *el = calloc((size_t)m->n_objects + 1, sizeof *el);
    if (!el) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    sim_variant_elastic_energy(s, x, el);
    for (int ob = 0; ob < m->n_objects; ob++) s->ostats[ob].elastic_energy = el[ob];
    free(el);
  }
  double ke = 0, clear = INFINITY, fclear = INFINITY;
  for (int i = 0; i < m->n_particles; i++) {
    const float *xi = x + 4 * i, *vi = v + 4 * i;
    if (xi[3] == 0) continue;
    ke += 0.5 * m->mass[i] * ((double)vi[0] * vi[0] + (double)vi[1] * vi[1] + (double)vi[2] * vi[2]);
    for (int k = 0; k < s->n_spheres; k++) {
      const double *c = s->spheres[k].center;
      double dx = xi[0] - c[0], dy = xi[1] - c[1], dz = xi[2] - c[2];
      double d = sqrt(dx * dx + dy * dy + dz * dz) - s->spheres[k].radius;
      if (d < clear) clear = d;
    }
    if (s->has_floor && xi[1] - s->floor_y < fclear) fclear = xi[1] - s->floor_y;
  }
  out->kinetic_energy = ke;
  out->min_sphere_clearance = clear;
  out->min_floor_clearance = fclear;
  /* s->kin holds the last frame's targets; alpha = 1 put each driven
   * particle exactly on `to` unless the step bounds held it back. */
  double lag = 0;
  for (int k = 0; k < s->n_kin; k++) {
    const dr_kinematic *km = &s->kin[k];
    const float *xi = x + 4 * km->particle;
    double dx = (double)xi[0] - km->to.x, dy = (double)xi[1] - km->to.y,
           dz = (double)xi[2] - km->to.z;
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    if (d > lag) lag = d;
  }
  out->max_drive_lag = lag;
  return DRAPE_OK;
}

/* ---- OBJ ---- */

int drape_sim_write_obj(drape_sim *s, const char *path, drape_err *e) {
  const dr_model *m = &s->m;
  int rc = ensure_hx(s, e);
  if (rc) return rc;
  const uint32_t *tris = dr_sim_triangles(s, e);
  if (!tris) return e ? e->code : DRAPE_EIO;
  /* The writer takes each object's own indices: the model's are global;
   * and the loader's vertex order (dr_model.perm): points gathered, the
   * triangles' corners renumbered. */
  size_t most = 0, most_p = 0;
  for (int ob = 0; ob < m->n_objects; ob++) {
    size_t k = (size_t)(3 * m->info[ob].n_tris + 2 * m->info[ob].n_lines);
    if (k > most) most = k;
    if ((size_t)m->info[ob].n_particles > most_p) most_p = (size_t)m->info[ob].n_particles;
  }
  uint32_t *idx = malloc(sizeof *idx * (most + 1));
  float *gx = m->perm ? malloc(sizeof *gx * 3 * (most_p + 1)) : NULL;
  dr_obj obj;
  const int obj_open = idx && (gx || !m->perm);
  rc = obj_open ? dr_obj_open(&obj, path, s->frame, s->time, e)
                : drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (int ob = 0; ob < m->n_objects && !rc; ob++) {
    const drape_object_info *inf = &m->info[ob];
    const uint32_t first = (uint32_t)inf->first_particle;
    const uint32_t *t = tris + 3 * (size_t)inf->first_tri, *l = m->lines + 2 * (size_t)inf->first_line;
    for (int i = 0; i < 3 * inf->n_tris; i++) idx[i] = (uint32_t)dr_model_slot(m, (int)t[i]) - first;
    for (int i = 0; i < 2 * inf->n_lines; i++) idx[3 * inf->n_tris + i] = l[i] - first;
    const float *x = s->hx + 4 * (size_t)inf->first_particle;
    int stride = 4;
    if (gx) {
      for (int i = 0; i < inf->n_particles; i++)
        memcpy(gx + 3 * (size_t)i, s->hx + 4 * (size_t)dr_model_particle(m, inf->first_particle + i),
               3 * sizeof *gx);
      x = gx, stride = 3;
    }
    rc = dr_obj_object(&obj, inf->kind == DRAPE_OBJ_CLOTH ? "cloth" : "rope", inf->name, x, stride,
                       inf->n_particles, dr_sim_uv(s, ob), idx, inf->n_tris,
                       idx + 3 * inf->n_tris, inf->n_lines, e);
  }
  free(idx);
  free(gx);
  const int crc = obj_open ? dr_obj_close(&obj, rc == DRAPE_OK, e) : DRAPE_OK;
  return rc ? rc : crc;
}
