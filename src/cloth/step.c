/* drape_sim_step — one frame of the cloth and rope solver, every stage in
 * order. XPBD (Macklin, Müller and Chentanez 2016) with small steps
 * (Macklin, Storey, Lu et al. 2019, Algorithm 1): many substeps of one
 * constraint iteration each by default; Lagrange multipliers live for one
 * substep (kept across its iterations, reset at the next substep).
 *
 *   per frame:   begin (parameters, kinematic targets, moving spheres)
 *   per substep: wind ▸ predict ▸ drive ▸
 *                iterations × (colour 0 … colour K-1 ▸ tethers) ▸
 *                self-collision ▸ collide ▸ update velocities ▸ tear
 *   per frame:   tear triangles ▸ normals ▸ end (wait, collect timings)
 *
 * The per-particle stages from the last tethers to the next substep's
 * predict run as one kernel, update_fused, where no other stage comes
 * between them (params.fuse_stages, on by default): same arithmetic per
 * particle, one trip through memory instead of four.
 *
 * The seeds' other solvers (solver_variants.h) have their own substep
 * functions below, substep_jakobsen and substep_springs, inside the same
 * frame bracket.
 *
 * Each stage is one kernel in kernels/<stage>.cl and one cpu_<kernel> in
 * cpu_stages.c; the backend (sim.h) runs one or the other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/colliders.h"
#include "cloth/sim.h"
#include "cloth/solver_variants.h"

/* Runs one stage call; on the CPU backend its wall time is added to the
 * stage. On OpenCL the backend tags the launch's event with cur_stage. */
#define STAGE(st, call)                                         \
  do {                                                          \
    s->cur_stage = (st);                                        \
    double t0_ = be->host_timed ? drape_now() : 0.0;            \
    int rc_ = (call);                                           \
    if (rc_) return rc_;                                        \
    if (be->host_timed) {                                       \
      s->last_stage_ms = 1e3 * (drape_now() - t0_);             \
      s->tm.ms[st] += s->last_stage_ms;                         \
    }                                                           \
    s->tm.launches++;                                           \
  } while (0)

/* Kinematic targets for this frame: scripted pin paths evaluated at the
 * frame's start and end (in double), then the grabs. */
static void path_at(const dr_model_path *p, double t, double out[3]) {
  const double(*k)[4] = (const double(*)[4])p->keys;
  int n = p->n_keys;
  if (t <= k[0][0]) { memcpy(out, &k[0][1], 3 * sizeof(double)); return; }
  if (t >= k[n - 1][0]) { memcpy(out, &k[n - 1][1], 3 * sizeof(double)); return; }
  int j = 1;
  while (k[j][0] < t) j++;
  double f = (t - k[j - 1][0]) / (k[j][0] - k[j - 1][0]);
  for (int q = 0; q < 3; q++) out[q] = k[j - 1][q + 1] + f * (k[j][q + 1] - k[j - 1][q + 1]);
}

static int begin_frame(drape_sim *s, drape_err *e) {
  memset(&s->tm, 0, sizeof s->tm);
  if (s->need_h_update) {
    sim_fill_materials(s);
    int rc = s->be->write(s, SIM_BUF_MAT, 0, sizeof(dr_object) * (size_t)s->m.n_objects, s->mat, e);
    if (rc) return rc;
    s->need_h_update = 0;
  }
  sim_fill_step_params(s);
  /* kinematics */
  int n = 0;
  for (int i = 0; i < s->m.n_paths; i++) {
    double a[3], b[3];
    path_at(&s->m.paths[i], s->time, a);
    path_at(&s->m.paths[i], s->time + s->dt, b);
    dr_kinematic *k = &s->kin[n++];
    memset(k, 0, sizeof *k);
    k->particle = s->m.paths[i].particle;
    k->from = (dr_float4){(float)a[0], (float)a[1], (float)a[2], 0};
    k->to = (dr_float4){(float)b[0], (float)b[1], (float)b[2], 0};
  }
  for (int g = 0; g < s->n_grabs; g++) {
    sim_grab *gr = &s->grabs[g];
    if (!gr->active) continue;
    dr_kinematic *k = &s->kin[n++];
    memset(k, 0, sizeof *k);
    k->particle = gr->particle;
    k->from = (dr_float4){(float)gr->from[0], (float)gr->from[1], (float)gr->from[2], 0};
    k->to = (dr_float4){(float)gr->to[0], (float)gr->to[1], (float)gr->to[2], 0};
    memcpy(gr->from, gr->to, sizeof gr->from); /* next frame starts here */
  }
  s->n_kin = n;
  int rc;
  if (n > 0 && (rc = s->be->write(s, SIM_BUF_KIN, 0, sizeof(dr_kinematic) * (size_t)n, s->kin, e)))
    return rc;
  /* spheres: centre at the frame start; only uploaded when they move */
  int moving = 0;
  for (int k = 0; k < s->n_spheres; k++) {
    const drape_sphere_def *d = &s->spheres[k];
    moving |= d->velocity[0] != 0 || d->velocity[1] != 0 || d->velocity[2] != 0;
    s->sph[k].center_radius = (dr_float4){(float)d->center[0], (float)d->center[1],
                                          (float)d->center[2], (float)d->radius};
    s->sph[k].velocity_friction = (dr_float4){(float)d->velocity[0], (float)d->velocity[1],
                                              (float)d->velocity[2], (float)d->friction};
  }
  if ((moving || s->spheres_dirty) && s->n_spheres > 0) {
    rc = s->be->write(s, SIM_BUF_SPHERES, 0, sizeof(dr_sphere) * (size_t)s->n_spheres, s->sph, e);
    if (rc) return rc;
    s->spheres_dirty = 0;
  }
  if ((rc = dr_colliders_begin(s, e))) return rc; /* poses, refit (colliders.c) */
  return s->be->begin_frame(s, e);
}

/* Stops the sim at the frame whose check found particle i non-finite: the
 * message names the object, the frame, the time and the particle, and is
 * kept, so every later step returns it until drape_sim_reset. */
static int sim_diverged(drape_sim *s, int i, drape_err *e) {
  const dr_model *m = &s->m;
  const int ob = i < m->n_particles ? m->obj[i] : 0;
  const drape_object_info *inf = &m->info[ob];
  const int li = i - inf->first_particle;
  float xv[8] = {0};
  drape_err ignore = {0}; /* the message below is the one that matters */
  s->be->read(s, SIM_BUF_X, (size_t)i * sizeof(dr_float4), sizeof(dr_float4), xv, &ignore);
  s->be->read(s, SIM_BUF_V, (size_t)i * sizeof(dr_float4), sizeof(dr_float4), xv + 4, &ignore);
  for (int q = 0; q < 8; q++) /* "nan", never "-nan": the sign of a NaN means nothing */
    if (isnan(xv[q])) xv[q] = fabsf(xv[q]);
  char where[96];
  if (inf->kind == DRAPE_OBJ_CLOTH && inf->cols > 0)
    snprintf(where, sizeof where, "particle %d (row %d, col %d)", li, li / inf->cols,
             li % inf->cols);
  else
    snprintf(where, sizeof where, "node %d", li);
  int finite = 1;
  for (int q = 0; q < 8; q++) finite &= isfinite(xv[q]) != 0;
  if (finite) /* finite, so beyond the world's range (drape_types.h) */
    drape_fail(&s->diverged, DRAPE_EUNSTABLE,
               "%s \"%s\" diverged at frame %d (t = %.9g s): %s has position (%g, %g, %g), "
               "beyond the +-%g m a scene holds, and velocity (%g, %g, %g); the run is stopped "
               "before this frame is written. A collider keyed that far in a frame carries the "
               "cloth with it: key it within the scene's range",
               inf->kind == DRAPE_OBJ_CLOTH ? "cloth" : "rope", inf->name, s->frame + 1,
               (s->frame + 1) * s->dt, where, xv[0], xv[1], xv[2], (double)DR_MAX_COORD, xv[4],
               xv[5], xv[6]);
  else
    drape_fail(&s->diverged, DRAPE_EUNSTABLE,
               "%s \"%s\" diverged at frame %d (t = %.9g s): %s has position (%g, %g, %g) and "
               "velocity (%g, %g, %g); the run is stopped before this frame is written. Reduce dt "
               "or raise substeps, lower wind or raise mass, or make the constraints softer",
               inf->kind == DRAPE_OBJ_CLOTH ? "cloth" : "rope", inf->name, s->frame + 1,
               (s->frame + 1) * s->dt, where, xv[0], xv[1], xv[2], xv[4], xv[5], xv[6]);
  if (e) *e = s->diverged;
  return DRAPE_EUNSTABLE;
}

/* Fault injection for the tests of everything downstream of the check
 * (drape run's outputs, the viewer, bench, compare; docs/testing.md):
 * DRAPE_FAULT_NAN=F[:P] puts a NaN into particle P (default 0) at the
 * start of frame F. Read at each step, so it needs no API. */
static int inject_fault(drape_sim *s, drape_err *e) {
  const char *env = getenv("DRAPE_FAULT_NAN");
  if (!env || !*env || s->m.n_particles == 0) return DRAPE_OK;
  char *end;
  long f = strtol(env, &end, 10), i = 0;
  if (*end == ':') i = strtol(end + 1, &end, 10);
  if (f != s->frame + 1 || i < 0 || i >= s->m.n_particles) return DRAPE_OK;
  float xi[4];
  int rc = s->be->read(s, SIM_BUF_X, (size_t)i * sizeof xi, sizeof xi, xi, e);
  xi[1] = NAN;
  return rc ? rc : s->be->write(s, SIM_BUF_X, (size_t)i * sizeof xi, sizeof xi, xi, e);
}

/* What a frame's substeps run, fixed for the frame. */
typedef struct frame_plan {
  int S, I;           /* substeps, iterations                           */
  int wind, tethers, contacts, tear, drive;
  int fuse;           /* DR_FUSE_* stages that join update_fused          */
  int fuse_predict;   /* the next substep's predict joins it too          */
  int predicted;      /* this substep's predict already ran (fused)       */
  uint64_t per_iteration; /* projections per constraint iteration        */
} frame_plan;

static float substep_end(const drape_sim *s, int k) { return (float)((k + 1) * s->sp.h); }

/* XPBD, one substep k of S (docs/solver.md). */
static int substep_xpbd(drape_sim *s, frame_plan *f, int k, drape_err *e) {
  const sim_backend *be = s->be;
  const int S = f->S, I = f->I;
  if (f->wind) STAGE(DRAPE_STAGE_WIND, be->wind(s, e));
  if (!f->predicted) STAGE(DRAPE_STAGE_PREDICT, be->predict(s, e));
  f->predicted = 0;
  if (f->drive) STAGE(DRAPE_STAGE_DRIVE, be->drive(s, (float)(k + 1) / (float)S, e));
  /* A scene with a material keeps every multiplier across substeps and
   * applies it first (kernels/membrane.cl, "Warm start"); the iterations
   * then solve for the change. */
  if (s->m.warm) STAGE(DRAPE_STAGE_WARM_START, be->warm_start(s, e));
  /* Material grids: the same fabric on coarser levels first, coarsest
   * first, one sweep each; each level hands its displacements and its
   * multipliers to the next finer one (kernels/membrane.cl, "Multilevel"),
   * and the fine membranes start from theirs. */
  const int ml = s->m.n_levels > 0;
  if (ml) {
    STAGE(DRAPE_STAGE_MULTILEVEL, be->ml_snapshot(s, e));
    for (int l = s->m.n_levels; l >= 1; l--) {
      STAGE(DRAPE_STAGE_MULTILEVEL, be->ml_lambda(s, l, e));
      for (int c = s->m.level_colour[l - 1]; c < s->m.level_colour[l]; c++)
        STAGE(DRAPE_STAGE_MULTILEVEL, be->project_membrane(s, c, DR_LAMBDA_KEEP, e));
      STAGE(DRAPE_STAGE_MULTILEVEL, be->ml_prolong(s, l, e));
    }
    STAGE(DRAPE_STAGE_MULTILEVEL, be->ml_lambda(s, 0, e));
  }
  /* With one iteration the multipliers are needed by no later projection,
   * but the frame's last substep stores them for the residual of
   * drape_sim_stats (docs/solver.md, "Residual"). FIRST projects as NONE
   * does (lambda starts at 0 in both) and only adds the store, so the
   * positions keep their bits; once a frame, its cost is one write per
   * constraint. */
  const int one = k + 1 == S ? DR_LAMBDA_FIRST : DR_LAMBDA_NONE;
  for (int it = 0; it < I; it++) {
    const int mode = s->m.warm ? DR_LAMBDA_KEEP
                     : I == 1  ? one
                     : it == 0 ? DR_LAMBDA_FIRST
                               : DR_LAMBDA_KEEP;
    /* material cloths: hinges, then the membranes that carry the load */
    for (int c = 0; c < s->m.n_mhinge_colours; c++)
      STAGE(DRAPE_STAGE_PROJECT, be->project_hinge(s, c, mode, e));
    for (int c = 0; c < s->m.n_memb_colours; c++)
      STAGE(DRAPE_STAGE_PROJECT, be->project_membrane(s, c, ml ? DR_LAMBDA_KEEP : mode, e));
    /* the mesh cloths' edge units (each edge's hinge, then its link)
     * first, then the distance colours (grids, ropes, stitches), so the
     * sweep ends with the links that carry the load */
    for (int c = 0; c < s->m.n_bend_colours; c++)
      STAGE(DRAPE_STAGE_PROJECT, be->project_bend(s, c, mode, e));
    /* the ropes' bending, before their links; its multipliers are not
     * warm-started (it projects as plain XPBD under warm_start) */
    for (int c = 0; c < s->m.n_rbend_colours; c++)
      STAGE(DRAPE_STAGE_PROJECT, be->project_rod_bend(s, c, I == 1 ? DR_LAMBDA_NONE : it == 0 ? DR_LAMBDA_FIRST : DR_LAMBDA_KEEP, e));
    for (int c = 0; c < s->m.n_colours; c++) {
      s->cur_colour = c; /* OpenCL: the launch's event carries it */
      STAGE(DRAPE_STAGE_PROJECT, be->project(s, c, mode, e));
      if (be->host_timed && c < DRAPE_TIMING_COLOURS) s->tm.colour_ms[c] += s->last_stage_ms;
    }
    s->cur_colour = -1;
    if (f->tethers && !(it == I - 1 && (f->fuse & DR_FUSE_TETHERS)))
      STAGE(DRAPE_STAGE_TETHERS, be->tethers(s, e));
    s->tm.projections += f->per_iteration;
  }
  /* Self-collision after the constraints, so that its separation is the
   * last word before the sphere/floor contacts and the velocity update
   * (the constraints would otherwise pull the layers back into each other
   * within the substep); the spatial hashes are rebuilt every substep on
   * the positions the passes correct (kernels/selfcol.cl,
   * docs/selfcollision.md). */
  if (s->self_collision)
    STAGE(DRAPE_STAGE_SELF_COLLISION, be->self_collision(s, substep_end(s, k), e));
  const float t_end = substep_end(s, k);
  /* capsules and mesh colliders, before the spheres and the floor */
  if (s->col) STAGE(DRAPE_STAGE_COLLIDERS, dr_colliders_run(s, t_end, e));
  if (s->params.fuse_stages) {
    /* One pass over the particles (kernels/update.cl); the predict of
     * the next substep joins it unless this is the frame's last. */
    int flags = f->fuse | (f->fuse_predict && k + 1 < S ? DR_FUSE_PREDICT : 0) |
                (k + 1 == S ? DR_FUSE_CHECK : 0);
    STAGE(DRAPE_STAGE_FUSED, be->update_fused(s, flags, t_end, e));
    f->predicted = (flags & DR_FUSE_PREDICT) != 0;
  } else {
    if (f->contacts) STAGE(DRAPE_STAGE_COLLIDE, be->collide(s, t_end, e));
    STAGE(DRAPE_STAGE_UPDATE, be->update_velocities(s, k + 1 == S, e));
  }
  if (f->tear) STAGE(DRAPE_STAGE_TEAR, be->tear(s, e));
  return DRAPE_OK;
}

/* Jakobsen (2001) position-based dynamics, seeds 002/004: a position
 * Verlet step, then `iterations` sweeps of full-strength projections
 * (compliance 0, so no multipliers are kept). */
static int substep_jakobsen(drape_sim *s, frame_plan *f, int k, drape_err *e) {
  const sim_backend *be = s->be;
  STAGE(DRAPE_STAGE_VERLET, be->verlet_predict(s, e));
  if (f->drive) STAGE(DRAPE_STAGE_DRIVE, be->drive(s, (float)(k + 1) / (float)f->S, e));
  for (int it = 0; it < f->I; it++) {
    for (int c = 0; c < s->m.n_bend_colours; c++)
      STAGE(DRAPE_STAGE_PROJECT, be->project_bend(s, c, DR_LAMBDA_NONE, e));
    for (int c = 0; c < s->m.n_colours; c++) {
      s->cur_colour = c;
      STAGE(DRAPE_STAGE_PROJECT, be->project(s, c, DR_LAMBDA_NONE, e));
      if (be->host_timed && c < DRAPE_TIMING_COLOURS) s->tm.colour_ms[c] += s->last_stage_ms;
    }
    s->cur_colour = -1;
    s->tm.projections += (uint64_t)s->m.n_cons + (uint64_t)s->m.n_hinges;
  }
  if (s->col) STAGE(DRAPE_STAGE_COLLIDERS, dr_colliders_run(s, substep_end(s, k), e));
  if (f->contacts) STAGE(DRAPE_STAGE_COLLIDE, be->collide(s, substep_end(s, k), e));
  STAGE(DRAPE_STAGE_UPDATE, be->update_velocities(s, k == f->S - 1, e));
  if (f->tear) STAGE(DRAPE_STAGE_TEAR, be->tear(s, e));
  return DRAPE_OK;
}

/* Explicit mass-springs with symplectic Euler, seed 001: forces and the
 * new velocities from the substep's start, then the positions. */
static int substep_springs(drape_sim *s, frame_plan *f, int k, drape_err *e) {
  const sim_backend *be = s->be;
  if (f->wind) STAGE(DRAPE_STAGE_WIND, be->wind(s, e));
  STAGE(DRAPE_STAGE_SPRINGS_FORCES, be->springs_forces(s, e));
  STAGE(DRAPE_STAGE_SPRINGS_ADVANCE, be->springs_advance(s, e));
  if (f->drive) STAGE(DRAPE_STAGE_DRIVE, be->drive(s, (float)(k + 1) / (float)f->S, e));
  if (s->col) STAGE(DRAPE_STAGE_COLLIDERS, dr_colliders_run(s, substep_end(s, k), e));
  if (f->contacts) STAGE(DRAPE_STAGE_COLLIDE, be->collide(s, substep_end(s, k), e));
  /* a contact or a kinematic particle moved x: v follows it */
  if (f->contacts || f->drive || s->col)
    STAGE(DRAPE_STAGE_UPDATE, be->update_velocities(s, k == f->S - 1, e));
  s->tm.projections += (uint64_t)sim_variant_n_springs(s);
  return DRAPE_OK;
}

int drape_sim_step(drape_sim *s, drape_err *e) {
  const sim_backend *be = s->be;
  if (s->diverged.code) { /* stopped: see sim_diverged */
    if (e) *e = s->diverged;
    return s->diverged.code;
  }
  const double t_start = drape_now();
  int rc = inject_fault(s, e);
  if (rc) return rc;
  if ((rc = dr_sim_stitches(s, e))) return rc;
  rc = begin_frame(s, e);
  if (rc) return rc;
  s->tm.n_colours = s->m.n_colours;
  s->cur_colour = -1;
  const drape_sim_params *pr = &s->params;
  const drape_solver_kind solver = dr_sim_solver(s);
  frame_plan f;
  memset(&f, 0, sizeof f);
  f.S = pr->substeps;
  f.I = pr->iterations;
  /* jakobsen has no wind stage; springs and xpbd do */
  f.wind = pr->wind_enabled && s->m.n_tris > 0 && solver != DRAPE_SOLVER_JAKOBSEN;
  f.tethers = pr->tethers_enabled && s->m.tether_slots > 0;
  f.contacts = s->n_spheres > 0 || s->has_floor;
  f.tear = pr->tearing_enabled && s->any_tear;
  f.drive = s->n_kin > 0;
  f.per_iteration = (uint64_t)s->m.n_cons + (uint64_t)s->m.n_hinges + (f.tethers ? (uint64_t)s->m.n_tethers : 0) +
                    3 * (uint64_t)s->m.n_memb + (uint64_t)s->m.n_mhinge;
  /* Which per-particle stages join update_fused (pr->fuse_stages): the
   * last iteration's tethers unless self-collision or the colliders' stage
   * runs between them, the
   * contacts, and the next substep's predict unless wind (it reads the
   * updated positions and velocities before predict) or tearing (it
   * reads the positions after the update) comes between. */
  f.fuse = !pr->fuse_stages ? 0
           : (f.tethers && !s->self_collision && !s->col ? DR_FUSE_TETHERS : 0) |
                 (f.contacts ? DR_FUSE_COLLIDE : 0);
  f.fuse_predict = pr->fuse_stages && !f.wind && !f.tear;

  for (int k = 0; k < f.S; k++) {
    switch (solver) {
      case DRAPE_SOLVER_JAKOBSEN: rc = substep_jakobsen(s, &f, k, e); break;
      case DRAPE_SOLVER_SPRINGS: rc = substep_springs(s, &f, k, e); break;
      default: rc = substep_xpbd(s, &f, k, e); break;
    }
    if (rc) return rc;
  }
  if (f.tear) STAGE(DRAPE_STAGE_TEAR, be->tear_triangles(s, e));
  if (pr->normals_enabled && s->m.n_tris > 0) STAGE(DRAPE_STAGE_NORMALS, be->normals(s, e));
  if ((rc = be->end_frame(s, e))) return rc;
  /* The springs' own check (a spring past DRAPE_SPRINGS_BLOWUP rest
   * lengths), then the frame's finiteness check (drape_types.h), before
   * anything can read this state: a diverged frame is never shown or
   * written. A divergence is kept in s->diverged like the finiteness
   * check's, so the sim stays stopped until reset. */
  drape_err ve = {0};
  if ((rc = sim_variant_check_after(s, &ve))) {
    if (rc == DRAPE_EUNSTABLE) s->diverged = ve;
    if (e) *e = ve;
    return rc;
  }
  int bad = -1;
  if ((rc = be->first_nonfinite(s, &bad, e))) return rc;
  if (bad >= 0) return sim_diverged(s, bad, e);

  /* advance the clock and the moving spheres (kept in double on the host) */
  for (int k = 0; k < s->n_spheres; k++)
    for (int q = 0; q < 3; q++) s->spheres[k].center[q] += s->spheres[k].velocity[q] * s->dt;
  s->frame++;
  s->time = s->frame * s->dt;
  s->hx_valid = 0;
  s->tm.ms_frame = 1e3 * (drape_now() - t_start);
  return DRAPE_OK;
}
