/* The seeds' other solvers inside drape_sim: Jakobsen PBD (seeds 002/004)
 * and explicit mass-springs (seed 001). See solver_variants.h for the
 * stage order; kernels/springs.cl and kernels/verlet.cl for the physics. */
#include "cloth/solver_variants.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "cloth/sim.h"

/* Accessors of the backends' particle arrays (backend_cpu.c, backend_cl.c). */
void drape_backend_cpu_arrays(drape_sim *s, dr_float4 **x, dr_float4 **p, dr_float4 **v,
                              dr_object **mat);
void drape_backend_cl_arrays(const drape_sim *s, cl_mem *x, cl_mem *p, cl_mem *v, cl_mem *obj,
                             cl_mem *mat);
struct drape_cl *drape_backend_cl_runtime(const drape_sim *s);

enum { VK_FORCES, VK_ADVANCE, VK_VERLET, VK_COUNT };
static const char *const vk_names[VK_COUNT] = {"springs_forces", "springs_advance",
                                               "verlet_predict"};

struct sim_variant {
  drape_solver_kind solver;
  int n_adj;
  dr_int *adj_off, *adj_j;  /* CSR: the springs of each particle, in constraint order */
  dr_float4 *adj_prm;       /* rest m, k N/m, mu N s/m, 0                              */
  double h_limit;           /* undamped stability estimate (springs)                   */
  int limit_obj;            /* object whose particle sets h_limit                      */
  int stable_reported;      /* divergence already reported                             */
  /* CPU backend */
  dr_float4 *vn;
  dr_int diverged;          /* lowest diverged particle, INT_MAX when none             */
  /* OpenCL backend */
  drape_cl *cl;
  cl_kernel k[VK_COUNT];
  cl_mem b_off, b_j, b_prm, b_vn, b_div;
  cl_event *ev;
  int *ev_stage, n_ev, cap_ev;
};

drape_solver_kind drape_sim_solver(const drape_sim *s) {
  return s->var ? s->var->solver : DRAPE_SOLVER_XPBD;
}
double drape_sim_springs_h_limit(const drape_sim *s) {
  return s->var && s->var->solver == DRAPE_SOLVER_SPRINGS ? s->var->h_limit : 0.0;
}

void sim_variant_destroy(drape_sim *s) {
  sim_variant *v = s->var;
  if (!v) return;
  if (v->cl && v->cl->queue) clFinish(v->cl->queue);
  for (int i = 0; i < v->n_ev; i++) clReleaseEvent(v->ev[i]);
  for (int k = 0; k < VK_COUNT; k++)
    if (v->k[k]) clReleaseKernel(v->k[k]);
  cl_mem *all[] = {&v->b_off, &v->b_j, &v->b_prm, &v->b_vn, &v->b_div};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (*all[i]) clReleaseMemObject(*all[i]);
  free(v->ev); free(v->ev_stage);
  free(v->adj_off); free(v->adj_j); free(v->adj_prm); free(v->vn);
  free(v);
  s->var = NULL;
}

/* The springs of every particle (seed 001: one spring per distance
 * constraint; structural and shear with `stiffness`, bending only when
 * bend_stiffness > 0), gathered into a CSR list in constraint order. */
static int build_adjacency(drape_sim *s, const drape_scene *sc, drape_err *e) {
  sim_variant *v = s->var;
  const drape_model *m = &s->m;
  const int np = m->n_particles;
  v->adj_off = calloc((size_t)np + 1, sizeof *v->adj_off);
  double *ksum = calloc((size_t)np + 1, sizeof *ksum);
  if (!v->adj_off || !ksum) { free(ksum); return drape_fail(e, DRAPE_ENOMEM, "out of memory"); }
  /* objects 0 .. n_cloth-1 are the cloths (model.c builds them first) */
#define SPRING_K(i) (m->cons_type[i] == DR_C_BEND ? sc->cloth[m->cons_obj[i]].bend_stiffness \
                                                 : sc->cloth[m->cons_obj[i]].stiffness)
  for (int i = 0; i < m->n_cons; i++) {
    if (m->cons_obj[i] >= sc->n_cloth || !(SPRING_K(i) > 0)) continue;
    v->adj_off[m->cons[i].a + 1]++;
    v->adj_off[m->cons[i].b + 1]++;
  }
  for (int i = 0; i < np; i++) v->adj_off[i + 1] += v->adj_off[i];
  v->n_adj = v->adj_off[np];
  v->adj_j = malloc(((size_t)v->n_adj + 1) * sizeof *v->adj_j);
  v->adj_prm = malloc(((size_t)v->n_adj + 1) * sizeof *v->adj_prm);
  int *fill = calloc((size_t)np + 1, sizeof *fill);
  if (!v->adj_j || !v->adj_prm || !fill) {
    free(fill); free(ksum);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (%d springs)", v->n_adj / 2);
  }
  for (int i = 0; i < m->n_cons; i++) {
    if (m->cons_obj[i] >= sc->n_cloth || !(SPRING_K(i) > 0)) continue;
    const drape_cloth_def *c = &sc->cloth[m->cons_obj[i]];
    const double k = SPRING_K(i);
    const dr_float4 prm = {m->cons[i].rest, (float)k, (float)c->spring_damping, 0.0f};
    const int a = m->cons[i].a, b = m->cons[i].b;
    v->adj_j[v->adj_off[a] + fill[a]] = b;
    v->adj_prm[v->adj_off[a] + fill[a]++] = prm;
    v->adj_j[v->adj_off[b] + fill[b]] = a;
    v->adj_prm[v->adj_off[b] + fill[b]++] = prm;
    ksum[a] += k;
    ksum[b] += k;
  }
#undef SPRING_K
  v->h_limit = INFINITY;
  v->limit_obj = 0;
  for (int i = 0; i < np; i++)
    if (m->x0[i].w != 0 && ksum[i] > 0) {
      double hl = sqrt(2.0 * m->mass[i] / ksum[i]);
      if (hl < v->h_limit) { v->h_limit = hl; v->limit_obj = m->obj[i]; }
    }
  free(fill);
  free(ksum);
  return DRAPE_OK;
}

static int make_buf(sim_variant *v, cl_mem *out, size_t bytes, void *init, const char *what,
                    drape_err *e) {
  cl_int rc;
  if (bytes == 0) { bytes = 16; init = NULL; }
  *out = clCreateBuffer(v->cl->ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                        init, &rc);
  if (rc != CL_SUCCESS)
    return drape_fail(e, DRAPE_ECL, "clCreateBuffer(%s, %zu bytes): %s", what, bytes,
                      drape_cl_errstr(rc));
  return DRAPE_OK;
}

int sim_variant_create(drape_sim *s, const drape_scene *sc, drape_err *e) {
  /* one solver per sim: the first cloth or non-implicit rope sets it */
  drape_solver_kind kind = DRAPE_SOLVER_XPBD;
  char first[64] = "";
  for (int i = 0; i < sc->n_cloth + sc->n_rope; i++) {
    int is_cloth = i < sc->n_cloth, k = is_cloth ? i : i - sc->n_cloth;
    drape_solver_kind sk = is_cloth ? sc->cloth[k].solver : sc->rope[k].solver;
    if (!is_cloth && sk == DRAPE_SOLVER_IMPLICIT) continue; /* model.c rejects these */
    if (!first[0]) {
      kind = sk;
      snprintf(first, sizeof first, "%s[%d]", is_cloth ? "cloth" : "rope", k);
    } else if (sk != kind) {
      return drape_fail(e, DRAPE_EINVAL,
                        "%s[%d].solver = \"%s\" but %s.solver = \"%s\": the cloths and ropes of one "
                        "scene share one solver (\"implicit\" ropes excepted); use one of \"xpbd\", "
                        "\"jakobsen\" or \"springs\" (cloth only) for all of them",
                        is_cloth ? "cloth" : "rope", k, drape_solver_name(sk), first,
                        drape_solver_name(kind));
    }
  }
  s->var = NULL;
  if (kind == DRAPE_SOLVER_XPBD) return DRAPE_OK;
  if (kind == DRAPE_SOLVER_SPRINGS)
    for (int i = 0; i < sc->n_cloth; i++)
      if (sc->cloth[i].tear_ratio > 0)
        return drape_fail(e, DRAPE_EINVAL,
                          "cloth[%d].tear_ratio = %g: the springs solver does not tear (set 0, or "
                          "use \"xpbd\" or \"jakobsen\")", i, sc->cloth[i].tear_ratio);
  sim_variant *v = calloc(1, sizeof *v);
  if (!v) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  s->var = v;
  v->solver = kind;
  v->diverged = INT_MAX;
  int rc = DRAPE_OK;
  if (kind == DRAPE_SOLVER_SPRINGS && (rc = build_adjacency(s, sc, e))) goto fail;
  const size_t np = (size_t)(s->m.n_particles > 0 ? s->m.n_particles : 1);
  if (s->be == &drape_backend_cpu) {
    if (kind == DRAPE_SOLVER_SPRINGS && !(v->vn = calloc(np, sizeof *v->vn))) {
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      goto fail;
    }
    return DRAPE_OK;
  }
  v->cl = drape_backend_cl_runtime(s);
  for (int k = 0; k < VK_COUNT; k++)
    if ((rc = drape_cl_kernel(v->cl, vk_names[k], &v->k[k], e))) goto fail;
  if (kind == DRAPE_SOLVER_SPRINGS) {
    int init = INT_MAX;
    if ((rc = make_buf(v, &v->b_off, (np + 1) * sizeof(dr_int), v->adj_off, "spring offsets", e)) ||
        (rc = make_buf(v, &v->b_j, (size_t)v->n_adj * sizeof(dr_int), v->adj_j, "spring ends", e)) ||
        (rc = make_buf(v, &v->b_prm, (size_t)v->n_adj * sizeof(dr_float4), v->adj_prm,
                       "spring parameters", e)) ||
        (rc = make_buf(v, &v->b_vn, np * sizeof(dr_float4), NULL, "new velocities", e)) ||
        (rc = make_buf(v, &v->b_div, sizeof(dr_int), &init, "divergence flag", e)))
      goto fail;
    sim_count_h2d(s, (np + 1) * 4 + (size_t)v->n_adj * 20 + 4);
  }
  return DRAPE_OK;
fail:
  sim_variant_destroy(s);
  return rc;
}

int sim_variant_reset(drape_sim *s, drape_err *e) {
  sim_variant *v = s->var;
  if (!v) return DRAPE_OK;
  v->diverged = INT_MAX;
  v->stable_reported = 0;
  if (v->b_div) {
    const int init = INT_MAX;
    DRAPE_CL_TRY(e, clEnqueueWriteBuffer(v->cl->queue, v->b_div, CL_TRUE, 0, sizeof init, &init, 0,
                                         NULL, NULL));
  }
  return DRAPE_OK;
}

/* ---- OpenCL launches (events kept when the queue profiles) ---- */

static int vlaunch(drape_sim *s, int k, drape_err *e) {
  sim_variant *v = s->var;
  cl_event ev = NULL;
  int prof = v->cl->profiling;
  int rc = drape_cl_run1d(v->cl, v->k[k], vk_names[k], (size_t)s->m.n_particles, prof ? &ev : NULL,
                          e);
  if (rc || !prof) return rc;
  if (v->n_ev == v->cap_ev) {
    int cap = v->cap_ev ? 2 * v->cap_ev : 256;
    cl_event *ne = realloc(v->ev, sizeof *ne * (size_t)cap);
    if (ne) v->ev = ne;
    int *ns = realloc(v->ev_stage, sizeof *ns * (size_t)cap);
    if (ns) v->ev_stage = ns;
    if (!ne || !ns) {
      clReleaseEvent(ev);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory (profiling events)");
    }
    v->cap_ev = cap;
  }
  v->ev[v->n_ev] = ev;
  v->ev_stage[v->n_ev++] = s->cur_stage;
  return DRAPE_OK;
}

static int collect_events(drape_sim *s, drape_err *e) {
  sim_variant *v = s->var;
  if (!v->cl || !v->n_ev) return DRAPE_OK;
  DRAPE_CL_TRY(e, clFinish(v->cl->queue));
  int rc = DRAPE_OK;
  for (int i = 0; i < v->n_ev; i++) {
    double ms;
    drape_err later = {0}; /* the first failure's message is the one kept */
    if (drape_cl_event_ms(v->ev[i], "solver variant", &ms, rc ? &later : e)) rc = DRAPE_ECL;
    else s->tm.ms[v->ev_stage[i]] += ms;
    clReleaseEvent(v->ev[i]);
  }
  v->n_ev = 0;
  return rc;
}

#define KARG(kn, i, val) DRAPE_CL_TRY(e, clSetKernelArg(v->k[kn], (i), sizeof(val), &(val)))

static int set_args(drape_sim *s, drape_err *e) {
  sim_variant *v = s->var;
  cl_mem x, p, vel, obj, mat;
  drape_backend_cl_arrays(s, &x, &p, &vel, &obj, &mat);
  const dr_step_params sp = s->sp;
  if (v->solver == DRAPE_SOLVER_SPRINGS) {
    const float blow = DRAPE_SPRINGS_BLOWUP;
    KARG(VK_FORCES, 0, x); KARG(VK_FORCES, 1, p); KARG(VK_FORCES, 2, vel);
    KARG(VK_FORCES, 3, v->b_vn); KARG(VK_FORCES, 4, obj); KARG(VK_FORCES, 5, mat);
    KARG(VK_FORCES, 6, v->b_off); KARG(VK_FORCES, 7, v->b_j); KARG(VK_FORCES, 8, v->b_prm);
    KARG(VK_FORCES, 9, v->b_div); KARG(VK_FORCES, 10, sp); KARG(VK_FORCES, 11, blow);
    KARG(VK_ADVANCE, 0, x); KARG(VK_ADVANCE, 1, vel); KARG(VK_ADVANCE, 2, v->b_vn);
    KARG(VK_ADVANCE, 3, v->b_div); KARG(VK_ADVANCE, 4, sp);
  } else {
    KARG(VK_VERLET, 0, x); KARG(VK_VERLET, 1, p); KARG(VK_VERLET, 2, obj);
    KARG(VK_VERLET, 3, mat); KARG(VK_VERLET, 4, sp);
  }
  return DRAPE_OK;
}

/* ---- the stages ---- */

static int st_forces(drape_sim *s, drape_err *e) {
  sim_variant *v = s->var;
  if (!v->cl) {
    dr_float4 *x, *p, *vel;
    dr_object *mat;
    drape_backend_cpu_arrays(s, &x, &p, &vel, &mat);
    cpu_springs_forces(x, p, vel, v->vn, s->m.obj, mat, v->adj_off, v->adj_j, v->adj_prm,
                       &v->diverged, &s->sp, DRAPE_SPRINGS_BLOWUP);
    return DRAPE_OK;
  }
  return vlaunch(s, VK_FORCES, e);
}
static int st_advance(drape_sim *s, drape_err *e) {
  sim_variant *v = s->var;
  if (!v->cl) {
    dr_float4 *x, *p, *vel;
    dr_object *mat;
    drape_backend_cpu_arrays(s, &x, &p, &vel, &mat);
    cpu_springs_advance(x, vel, v->vn, &v->diverged, &s->sp);
    return DRAPE_OK;
  }
  return vlaunch(s, VK_ADVANCE, e);
}
static int st_verlet(drape_sim *s, drape_err *e) {
  sim_variant *v = s->var;
  if (!v->cl) {
    dr_float4 *x, *p, *vel;
    dr_object *mat;
    drape_backend_cpu_arrays(s, &x, &p, &vel, &mat);
    cpu_verlet_predict(x, p, s->m.obj, mat, &s->sp);
    return DRAPE_OK;
  }
  return vlaunch(s, VK_VERLET, e);
}

/* One stage: wall time on the CPU backend, an event tag on OpenCL (as
 * step.c's STAGE does). */
#define STAGE(st, call)                                            \
  do {                                                             \
    s->cur_stage = (st);                                           \
    double t0_ = be->host_timed ? drape_now() : 0.0;               \
    int rc_ = (call);                                              \
    if (rc_) return rc_;                                           \
    if (be->host_timed) s->tm.ms[st] += 1e3 * (drape_now() - t0_); \
    s->tm.launches++;                                              \
  } while (0)

/* The divergence message: which object, which frame, the step and a hint. */
static int report_unstable(drape_sim *s, int i, drape_err *e) {
  sim_variant *v = s->var;
  const drape_model *m = &s->m;
  const int ob = i >= 0 && i < m->n_particles ? m->obj[i] : 0;
  const drape_object_info *inf = &m->info[ob];
  const int li = i - inf->first_particle;
  const double h = s->dt / s->params.substeps;
  v->stable_reported = 1;
  return drape_fail(
      e, DRAPE_EUNSTABLE,
      "unstable: %s \"%s\" (object %d) diverged in frame %d (t = %.4g s): particle %d (row %d, col "
      "%d) has a spring stretched past %.0fx its rest length or a non-finite position or velocity. "
      "Explicit mass-springs (symplectic Euler, seed 001) are only conditionally stable and the "
      "substep h = dt/substeps = %.4g s is past the limit (undamped estimate h < %.3g s from "
      "stiffness and particle mass): reduce dt, raise substeps or lower the stiffness, or use "
      "\"solver\": \"xpbd\"",
      inf->kind == DRAPE_OBJ_CLOTH ? "cloth" : "rope", inf->name, ob, s->frame + 1,
      (s->frame + 1) * s->dt, i, inf->cols > 0 ? li / inf->cols : 0, inf->cols > 0 ? li % inf->cols : li,
      (double)DRAPE_SPRINGS_BLOWUP, h, v->h_limit);
}

int sim_variant_substeps(drape_sim *s, drape_err *e) {
  const sim_backend *be = s->be;
  sim_variant *v = s->var;
  const drape_sim_params *pr = &s->params;
  const int S = pr->substeps, I = pr->iterations;
  const int contacts = s->n_spheres > 0 || s->has_floor;
  const int tear = pr->tearing_enabled && s->any_tear;
  const int drive = s->n_kin > 0;
  int rc;
  if (v->solver == DRAPE_SOLVER_SPRINGS && v->stable_reported)
    return report_unstable(s, v->diverged, e);
  if (v->cl && (rc = set_args(s, e))) return rc;
  if (v->solver == DRAPE_SOLVER_SPRINGS) {
    const int wind = pr->wind_enabled && s->m.n_tris > 0;
    for (int k = 0; k < S; k++) {
      if (wind) STAGE(DRAPE_STAGE_WIND, be->wind(s, e));
      STAGE(DRAPE_STAGE_PROJECT, st_forces(s, e)); /* the force gather: the constraint stage */
      STAGE(DRAPE_STAGE_PREDICT, st_advance(s, e));
      if (drive) STAGE(DRAPE_STAGE_DRIVE, be->drive(s, (float)(k + 1) / (float)S, e));
      if (contacts) STAGE(DRAPE_STAGE_COLLIDE, be->collide(s, (float)((k + 1) * s->sp.h), e));
      /* a contact or a kinematic particle moved x: v follows it */
      if (contacts || drive) STAGE(DRAPE_STAGE_UPDATE, be->update_velocities(s, k == S - 1, e));
      s->tm.projections += (uint64_t)v->n_adj / 2;
    }
  } else {
    for (int k = 0; k < S; k++) {
      STAGE(DRAPE_STAGE_PREDICT, st_verlet(s, e));
      if (drive) STAGE(DRAPE_STAGE_DRIVE, be->drive(s, (float)(k + 1) / (float)S, e));
      /* Jakobsen relaxation: `iterations` sweeps of full-strength
       * projections (compliance 0, so no multipliers are kept) */
      for (int it = 0; it < I; it++) {
        for (int c = 0; c < s->m.n_colours; c++)
          STAGE(DRAPE_STAGE_PROJECT, be->project(s, c, DR_LAMBDA_NONE, e));
        s->tm.projections += (uint64_t)s->m.n_cons;
      }
      if (contacts) STAGE(DRAPE_STAGE_COLLIDE, be->collide(s, (float)((k + 1) * s->sp.h), e));
      STAGE(DRAPE_STAGE_UPDATE, be->update_velocities(s, k == S - 1, e));
      if (tear) STAGE(DRAPE_STAGE_TEAR, be->tear(s, e));
    }
  }
  if (v->cl && (rc = collect_events(s, e))) return rc;
  if (v->solver == DRAPE_SOLVER_SPRINGS) {
    if (v->cl) {
      DRAPE_CL_TRY(e, clEnqueueReadBuffer(v->cl->queue, v->b_div, CL_TRUE, 0, sizeof v->diverged,
                                          &v->diverged, 0, NULL, NULL));
      sim_count_d2h(s, sizeof v->diverged);
    }
    if (v->diverged != INT_MAX) return report_unstable(s, v->diverged, e);
  }
  return DRAPE_OK;
}
