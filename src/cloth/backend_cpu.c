/* CPU reference backend: the same stages as the OpenCL kernels, as plain C
 * loops over host arrays (cpu_stages.c), single-threaded. Tests compare it
 * with the OpenCL path; the benchmark measures both. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/cpu_stages.h"
#include "cloth/selfcol.h"
#include "cloth/sim.h"

typedef struct cpu_state {
  dr_float4 *x, *p, *v, *n, *tri_force;
  dr_distance *cons;
  float *lambda;
  float *bend_lambda;   /* the edge units' hinges'                        */
  dr_float4 *mlambda;   /* material cloths: membranes' (3 each), hinges'  */
  dr_float4 *snap;      /* multilevel: positions at the cascade's start    */
  dr_float4 *rlambda;   /* ropes' bending                                  */
  float *hlambda;
  dr_uint *tris;
  dr_object *mat;
  dr_sphere *sph;
  dr_kinematic *kin;
  int cap_kin, cap_lambda, has_tri_force;
  selfcol_cpu sc;  /* self-collision reference (selfcol_cpu.c)           */
  int has_sc;
  dr_int bad;      /* finiteness check: lowest bad particle, or
                      DR_NO_PARTICLE (drape_types.h)                     */
  /* the springs solver (springs_create): its lists, the new velocities,
   * the lowest diverged particle (INT_MAX: none) */
  dr_int *sp_off, *sp_j;
  dr_float4 *sp_prm, *vn;
  dr_int sp_div;
} cpu_state;

#define ST(s) ((cpu_state *)(s)->bs)

static int cpu_ensure(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  /* The multipliers always have a buffer: with one iteration the frame's
   * last substep still stores them (step.c), for the residual of
   * drape_sim_stats; 4 bytes per constraint. */
  if (!c->lambda && s->m.n_cons > 0) {
    c->lambda = calloc((size_t)s->m.n_cons, sizeof *c->lambda);
    if (!c->lambda) return drape_fail(e, DRAPE_ENOMEM, "out of memory (lambda)");
  }
  if (!c->bend_lambda && s->m.n_bend > 0) {
    c->bend_lambda = calloc((size_t)s->m.n_bend, sizeof *c->bend_lambda);
    if (!c->bend_lambda) return drape_fail(e, DRAPE_ENOMEM, "out of memory (lambda)");
  }
  if (!c->mlambda && s->m.n_memb > 0) {
    c->mlambda = calloc((size_t)s->m.n_memb, sizeof *c->mlambda);
    if (!c->mlambda) return drape_fail(e, DRAPE_ENOMEM, "out of memory (lambda)");
  }
  if (!c->rlambda && s->m.n_rbend > 0) {
    c->rlambda = calloc((size_t)s->m.n_rbend, sizeof *c->rlambda);
    if (!c->rlambda) return drape_fail(e, DRAPE_ENOMEM, "out of memory (lambda)");
  }
  if (!c->snap && s->m.n_levels > 0) {
    c->snap = calloc((size_t)s->m.n_particles, sizeof *c->snap);
    if (!c->snap) return drape_fail(e, DRAPE_ENOMEM, "out of memory (multilevel)");
  }
  if (!c->hlambda && s->m.n_mhinge > 0) {
    c->hlambda = calloc((size_t)s->m.n_mhinge, sizeof *c->hlambda);
    if (!c->hlambda) return drape_fail(e, DRAPE_ENOMEM, "out of memory (lambda)");
  }
  if (s->params.wind_enabled && !c->tri_force && s->m.n_tris > 0) {
    c->tri_force = calloc((size_t)s->m.n_tris, sizeof *c->tri_force);
    if (!c->tri_force) return drape_fail(e, DRAPE_ENOMEM, "out of memory (wind)");
  }
  if (s->cap_kin > c->cap_kin) {
    dr_kinematic *k = realloc(c->kin, sizeof *k * (size_t)s->cap_kin);
    if (!k) return drape_fail(e, DRAPE_ENOMEM, "out of memory (kinematics)");
    c->kin = k;
    c->cap_kin = s->cap_kin;
  }
  return DRAPE_OK;
}

static int cpu_reset(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  size_t np = (size_t)s->m.n_particles;
  memcpy(c->x, s->m.x0, np * sizeof *c->x);
  memcpy(c->p, s->m.x0, np * sizeof *c->p);
  memset(c->v, 0, np * sizeof *c->v);
  memset(c->n, 0, np * sizeof *c->n);
  memcpy(c->cons, s->m.cons, (size_t)s->m.n_cons * sizeof *c->cons);
  memcpy(c->tris, s->m.tris, (size_t)s->m.n_tris * 3 * sizeof *c->tris);
  memcpy(c->mat, s->mat, (size_t)s->m.n_objects * sizeof *c->mat);
  memcpy(c->sph, s->sph, (size_t)s->n_spheres * sizeof *c->sph);
  c->bad = DR_NO_PARTICLE;
  c->sp_div = INT_MAX;
  int rc = cpu_ensure(s, e);
  if (rc) return rc;
  /* the multipliers kept across substeps start from nothing */
  if (c->lambda) memset(c->lambda, 0, sizeof *c->lambda * (size_t)s->m.n_cons);
  if (c->bend_lambda) memset(c->bend_lambda, 0, sizeof *c->bend_lambda * (size_t)s->m.n_bend);
  if (c->mlambda) memset(c->mlambda, 0, sizeof *c->mlambda * (size_t)s->m.n_memb);
  if (c->hlambda) memset(c->hlambda, 0, sizeof *c->hlambda * (size_t)s->m.n_mhinge);
  return DRAPE_OK;
}

static int cpu_wind(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_wind_triangles(c->x, c->v, c->tris, c->tri_force, &s->sp, s->m.n_tris);
  cpu_wind_gather(c->x, c->v, c->tri_force, s->m.vt_off, s->m.vt_list, &s->sp);
  return DRAPE_OK;
}
static int cpu_predict_stage(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_predict(c->x, c->p, c->v, s->m.obj, c->mat, &s->sp);
  return DRAPE_OK;
}
static int cpu_drive(drape_sim *s, float alpha, drape_err *e) {
  cpu_drive_kinematic(ST(s)->x, ST(s)->kin, s->n_kin, alpha);
  return DRAPE_OK;
}
static int cpu_project(drape_sim *s, int colour, int mode, drape_err *e) {
  cpu_state *c = ST(s);
  int first = s->m.colour_off[colour], count = s->m.colour_off[colour + 1] - first;
  cpu_project_distance(c->x, c->cons, c->lambda, first, count, s->sp.inv_h2, mode);
  return DRAPE_OK;
}
static int cpu_project_bend(drape_sim *s, int colour, int mode, drape_err *e) {
  cpu_state *c = ST(s);
  int first = s->m.bend_colour_off[colour], count = s->m.bend_colour_off[colour + 1] - first;
  cpu_project_dihedral(c->x, s->m.bend, c->cons, c->bend_lambda, c->lambda, first, count,
                       s->sp.inv_h2, mode);
  return DRAPE_OK;
}
static int cpu_project_membrane(drape_sim *s, int colour, int mode, drape_err *e) {
  cpu_state *c = ST(s);
  int first = s->m.memb_colour_off[colour], count = s->m.memb_colour_off[colour + 1] - first;
  project_membrane(c->x, s->m.memb, c->mlambda, first, count, s->sp.inv_h2, mode);
  return DRAPE_OK;
}
static int cpu_project_hinge(drape_sim *s, int colour, int mode, drape_err *e) {
  cpu_state *c = ST(s);
  int first = s->m.mhinge_colour_off[colour], count = s->m.mhinge_colour_off[colour + 1] - first;
  project_hinge(c->x, s->m.mhinge, c->hlambda, first, count, s->sp.inv_h2, mode);
  return DRAPE_OK;
}
static int cpu_project_rod_bend(drape_sim *s, int colour, int mode, drape_err *e) {
  cpu_state *c = ST(s);
  int first = s->m.rbend_colour_off[colour], count = s->m.rbend_colour_off[colour + 1] - first;
  project_rod_bend(c->x, s->m.rbend, c->rlambda, first, count, s->sp.inv_h2, mode);
  return DRAPE_OK;
}
static int cpu_ml_snapshot(drape_sim *s, drape_err *e) {
  ml_snapshot(ST(s)->x, ST(s)->snap, s->m.n_particles);
  return DRAPE_OK;
}
static int cpu_ml_prolong(drape_sim *s, int level, drape_err *e) {
  const int first = s->m.prolong_off[level - 1];
  ml_prolong(ST(s)->x, ST(s)->snap, s->m.prolong, first, s->m.prolong_off[level] - first);
  return DRAPE_OK;
}
static int cpu_ml_lambda(drape_sim *s, int level, drape_err *e) {
  int first, count;
  dr_model_level_membranes(&s->m, level, &first, &count);
  ml_lambda(ST(s)->mlambda, s->m.memb_up, first, count);
  return DRAPE_OK;
}
/* kernels/membrane.cl's warm_* in the order the OpenCL backend launches
 * them: edge units, hinges, membranes, distance colours. The edge units
 * and links are the kernels' loop bodies over the host's dr_distance
 * records (the device holds them as four arrays). */
static int cpu_warm_start(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  const dr_model *m = &s->m;
  cpu_warm_dihedral(c->x, c->p, m->bend, c->cons, c->bend_lambda, c->lambda, 0, m->n_bend);
  for (int col = 0; col < m->n_mhinge_colours; col++) {
    const int first = m->mhinge_colour_off[col];
    warm_hinge(c->x, c->p, m->mhinge, c->hlambda, first, m->mhinge_colour_off[col + 1] - first);
  }
  for (int col = 0; col < m->n_memb_colours; col++) {
    const int first = m->memb_colour_off[col];
    warm_membrane(c->x, c->p, m->memb, c->mlambda, first, m->memb_colour_off[col + 1] - first);
  }
  cpu_warm_distance(c->x, c->p, c->cons, c->lambda, 0, m->colour_off[m->n_colours]);
  return DRAPE_OK;
}
static int cpu_tethers_stage(drape_sim *s, drape_err *e) {
  cpu_tethers(ST(s)->x, s->m.tether_pin, s->m.tether_rest, s->m.tether_slots, s->m.n_particles);
  return DRAPE_OK;
}
static int cpu_self_collision(drape_sim *s, float t_end, drape_err *e) {
  cpu_state *c = ST(s);
  if (!c->has_sc) return DRAPE_OK;
  selfcol_colliders col = {s->sp.has_floor, s->sp.floor_y, s->n_spheres, c->sph, t_end};
  double before[SELFCOL_T_COUNT];
  memcpy(before, c->sc.ms, sizeof before);
  selfcol_cpu_run(&c->sc, c->x, c->p, c->tris, &col);
  /* the parts' wall times, into the frame's one profile */
  for (int q = 0; q < SELFCOL_T_COUNT; q++) s->tm.selfcol_ms[q] += c->sc.ms[q] - before[q];
  return DRAPE_OK;
}
static int cpu_collide_stage(drape_sim *s, float t_end, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_collide(c->x, c->p, s->m.obj, c->mat, c->sph, &s->sp, t_end);
  return DRAPE_OK;
}
static int cpu_update(drape_sim *s, int check, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_update_velocities(c->x, c->p, c->v, &s->sp, check ? &c->bad : NULL);
  return DRAPE_OK;
}
/* The reference keeps the stages separate: each is a loop over the
 * particles, and per particle the order is that of update_fused. */
static int cpu_update_fused(drape_sim *s, int flags, float t_end, drape_err *e) {
  cpu_state *c = ST(s);
  if (flags & DR_FUSE_TETHERS)
    cpu_tethers(c->x, s->m.tether_pin, s->m.tether_rest, s->m.tether_slots, s->m.n_particles);
  if (flags & DR_FUSE_COLLIDE) cpu_collide(c->x, c->p, s->m.obj, c->mat, c->sph, &s->sp, t_end);
  cpu_update_velocities(c->x, c->p, c->v, &s->sp, (flags & DR_FUSE_CHECK) ? &c->bad : NULL);
  if (flags & DR_FUSE_PREDICT) cpu_predict(c->x, c->p, c->v, s->m.obj, c->mat, &s->sp);
  return DRAPE_OK;
}
static int cpu_tear(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_tear_constraints(c->x, c->cons, s->m.obj, c->mat, s->m.n_cons);
  return DRAPE_OK;
}
static int cpu_tear_tris(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_tear_triangles(c->cons, c->tris, s->m.tri_edge, s->m.n_tris);
  return DRAPE_OK;
}
static int cpu_normals(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_vertex_normals(c->x, c->n, c->tris, s->m.vt_off, s->m.vt_list, s->m.n_particles);
  return DRAPE_OK;
}
static int cpu_verlet(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_verlet_predict(c->x, c->p, s->m.obj, c->mat, &s->sp);
  return DRAPE_OK;
}
static int cpu_springs_forces_stage(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_springs_forces(c->x, c->p, c->v, c->vn, s->m.obj, c->mat, c->sp_off, c->sp_j, c->sp_prm,
                     &c->sp_div, &s->sp, DRAPE_SPRINGS_BLOWUP);
  return DRAPE_OK;
}
static int cpu_springs_advance_stage(drape_sim *s, drape_err *e) {
  cpu_state *c = ST(s);
  cpu_springs_advance(c->x, c->v, c->vn, &c->sp_div, &s->sp);
  return DRAPE_OK;
}
static int cpu_springs_create(drape_sim *s, const sim_springs *sp, drape_err *e) {
  cpu_state *c = ST(s);
  const size_t np = (size_t)s->m.n_particles, na = (size_t)sp->n_adj;
  c->sp_off = malloc((np + 1) * sizeof *c->sp_off);
  c->sp_j = malloc((na + 1) * sizeof *c->sp_j);
  c->sp_prm = malloc((na + 1) * sizeof *c->sp_prm);
  c->vn = calloc(np + 1, sizeof *c->vn);
  if (!c->sp_off || !c->sp_j || !c->sp_prm || !c->vn)
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (%d springs)", sp->n_adj / 2);
  memcpy(c->sp_off, sp->off, (np + 1) * sizeof *c->sp_off);
  memcpy(c->sp_j, sp->j, na * sizeof *c->sp_j);
  memcpy(c->sp_prm, sp->prm, na * sizeof *c->sp_prm);
  c->sp_div = INT_MAX;
  return DRAPE_OK;
}
static int cpu_springs_diverged(drape_sim *s, int *particle, drape_err *e) {
  *particle = ST(s)->sp_div == INT_MAX ? -1 : ST(s)->sp_div;
  return DRAPE_OK;
}

static int cpu_begin(drape_sim *s, drape_err *e) { return DRAPE_OK; }
static int cpu_end(drape_sim *s, drape_err *e) {
  s->tm.stage_times_valid = 1;
  return DRAPE_OK;
}

static int cpu_first_nonfinite(drape_sim *s, int *particle, drape_err *e) {
  *particle = ST(s)->bad == DR_NO_PARTICLE ? -1 : ST(s)->bad;
  return DRAPE_OK;
}

static void *buf_ptr(cpu_state *c, sim_buf b) {
  switch (b) {
    case SIM_BUF_X: return c->x;
    case SIM_BUF_V: return c->v;
    case SIM_BUF_N: return c->n;
    case SIM_BUF_CONS: return c->cons;
    case SIM_BUF_TRIS: return c->tris;
    case SIM_BUF_MAT: return c->mat;
    case SIM_BUF_SPHERES: return c->sph;
    case SIM_BUF_KIN: return c->kin;
    case SIM_BUF_LAMBDA: return c->lambda;
    case SIM_BUF_MLAMBDA: return c->mlambda;
    case SIM_BUF_BEND:
    case SIM_BUF_MEMB:
    case SIM_BUF_MHINGE:
    case SIM_BUF_RBEND: return NULL; /* the model's own: see below */
  }
  return NULL;
}

/* The edge units are read from the model itself (s->m.bend), which is
 * what the sim edits, so a write of them from there has nothing to copy. */
static void *buf_at(drape_sim *s, sim_buf b) {
  return b == SIM_BUF_BEND     ? (void *)s->m.bend
         : b == SIM_BUF_MEMB   ? (void *)s->m.memb
         : b == SIM_BUF_MHINGE ? (void *)s->m.mhinge
         : b == SIM_BUF_RBEND  ? (void *)s->m.rbend
                               : buf_ptr(ST(s), b);
}
static int cpu_read(drape_sim *s, sim_buf b, size_t off, size_t bytes, void *dst, drape_err *e) {
  if (bytes) memmove(dst, (char *)buf_at(s, b) + off, bytes);
  return DRAPE_OK;
}
static int cpu_write(drape_sim *s, sim_buf b, size_t off, size_t bytes, const void *src,
                     drape_err *e) {
  if (bytes) memmove((char *)buf_at(s, b) + off, src, bytes);
  return DRAPE_OK;
}

static void cpu_destroy(drape_sim *s) {
  cpu_state *c = ST(s);
  if (!c) return;
  free(c->x); free(c->p); free(c->v); free(c->n); free(c->tri_force);
  free(c->cons); free(c->lambda); free(c->bend_lambda); free(c->mlambda); free(c->snap); free(c->rlambda); free(c->hlambda); free(c->tris); free(c->mat); free(c->sph); free(c->kin);
  free(c->sp_off); free(c->sp_j); free(c->sp_prm); free(c->vn);
  if (c->has_sc) selfcol_cpu_destroy(&c->sc);
  free(c);
  s->bs = NULL;
}

int dr_backend_cpu_init(drape_sim *s, drape_err *e);
int dr_backend_cpu_init(drape_sim *s, drape_err *e) {
  cpu_state *c = calloc(1, sizeof *c);
  if (!c) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  s->bs = c;
  size_t np = (size_t)(s->m.n_particles > 0 ? s->m.n_particles : 1);
  c->x = calloc(np, sizeof *c->x);
  c->p = calloc(np, sizeof *c->p);
  c->v = calloc(np, sizeof *c->v);
  c->n = calloc(np, sizeof *c->n);
  c->cons = calloc((size_t)s->m.n_cons + 1, sizeof *c->cons);
  c->tris = calloc((size_t)s->m.n_tris * 3 + 1, sizeof *c->tris);
  c->mat = calloc((size_t)s->m.n_objects + 1, sizeof *c->mat);
  c->sph = calloc((size_t)s->n_spheres + 1, sizeof *c->sph);
  if (!c->x || !c->p || !c->v || !c->n || !c->cons || !c->tris || !c->mat || !c->sph) {
    cpu_destroy(s);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory for %d particles", s->m.n_particles);
  }
  if (s->self_collision) {
    int rc = selfcol_cpu_create(&s->sc_desc, &c->sc, e);
    if (rc) {
      cpu_destroy(s);
      return rc;
    }
    c->has_sc = 1;
  }
  return DRAPE_OK;
}

const sim_backend dr_backend_cpu = {
    .name = "cpu",
    .host_timed = 1,
    .reset = cpu_reset,
    .wind = cpu_wind,
    .predict = cpu_predict_stage,
    .drive = cpu_drive,
    .project = cpu_project,
    .project_bend = cpu_project_bend,
    .project_membrane = cpu_project_membrane,
    .project_hinge = cpu_project_hinge,
    .project_rod_bend = cpu_project_rod_bend,
    .warm_start = cpu_warm_start,
    .ml_snapshot = cpu_ml_snapshot,
    .ml_prolong = cpu_ml_prolong,
    .ml_lambda = cpu_ml_lambda,
    .tethers = cpu_tethers_stage,
    .self_collision = cpu_self_collision,
    .collide = cpu_collide_stage,
    .update_velocities = cpu_update,
    .update_fused = cpu_update_fused,
    .tear = cpu_tear,
    .tear_triangles = cpu_tear_tris,
    .normals = cpu_normals,
    .verlet_predict = cpu_verlet,
    .springs_forces = cpu_springs_forces_stage,
    .springs_advance = cpu_springs_advance_stage,
    .springs_create = cpu_springs_create,
    .springs_diverged = cpu_springs_diverged,
    .begin_frame = cpu_begin,
    .end_frame = cpu_end,
    .first_nonfinite = cpu_first_nonfinite,
    .read = cpu_read,
    .write = cpu_write,
    .ensure = cpu_ensure,
    .destroy = cpu_destroy,
};

/* The particle arrays, for the colliders' stage (colliders.c). */
void dr_backend_cpu_particles(drape_sim *s, dr_float4 **x, dr_float4 **p, const dr_object **mat);
void dr_backend_cpu_particles(drape_sim *s, dr_float4 **x, dr_float4 **p, const dr_object **mat) {
  cpu_state *c = ST(s);
  *x = c->x;
  *p = c->p;
  *mat = c->mat;
}

/* The cloth triangles as the backend holds them (torn ones degenerate). */
const dr_uint *dr_backend_cpu_tris(drape_sim *s);
const dr_uint *dr_backend_cpu_tris(drape_sim *s) { return ST(s)->tris; }
