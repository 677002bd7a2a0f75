/* The seeds' other solvers inside drape_sim: Jakobsen PBD (seeds 002/004)
 * and explicit mass-springs (seed 001). See solver_variants.h for the
 * stage order; step.c for the substeps; kernels/springs.cl and
 * kernels/verlet.cl for the physics. */
#include "cloth/solver_variants.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cloth/sim.h"

struct sim_variant {
  drape_solver_kind solver;
  int n_adj;
  dr_int *adj_off, *adj_j;  /* CSR: the springs of each particle, in constraint order */
  dr_float4 *adj_prm;       /* rest m, k N/m, mu N s/m, 0                              */
  double h_limit;           /* undamped stability estimate (springs)                   */
  int limit_obj;            /* object whose particle sets h_limit                      */
};

drape_solver_kind dr_sim_solver(const drape_sim *s) {
  return s->var ? s->var->solver : DRAPE_SOLVER_XPBD;
}
int sim_variant_n_springs(const drape_sim *s) { return s->var ? s->var->n_adj / 2 : 0; }

void sim_variant_elastic_energy(const drape_sim *s, const float *x4, double *per_object) {
  const sim_variant *v = s->var;
  if (!v || !v->adj_off) return;
  for (int a = 0; a < s->m.n_particles; a++)
    for (int q = v->adj_off[a]; q < v->adj_off[a + 1]; q++) {
      const int b = v->adj_j[q];
      if (b < a) continue; /* each spring is listed at both ends: count it once */
      const float *xa = x4 + 4 * a, *xb = x4 + 4 * b;
      const double dx = (double)xa[0] - xb[0], dy = (double)xa[1] - xb[1], dz = (double)xa[2] - xb[2];
      const double c = sqrt(dx * dx + dy * dy + dz * dz) - v->adj_prm[q].x;
      per_object[s->m.obj[a]] += 0.5 * (double)v->adj_prm[q].y * c * c;
    }
}
double dr_sim_springs_h_limit(const drape_sim *s) {
  return s->var && s->var->solver == DRAPE_SOLVER_SPRINGS ? s->var->h_limit : 0.0;
}

void sim_variant_destroy(drape_sim *s) {
  sim_variant *v = s->var;
  if (!v) return;
  free(v->adj_off); free(v->adj_j); free(v->adj_prm);
  free(v);
  s->var = NULL;
}

/* The springs of every particle (seed 001: one spring per distance
 * constraint; structural and shear with `stiffness`, bending only when
 * bend_stiffness > 0), gathered into a CSR list in constraint order. */
static int build_adjacency(drape_sim *s, const drape_scene *sc, drape_err *e) {
  sim_variant *v = s->var;
  const dr_model *m = &s->m;
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
  int rc = DRAPE_OK;
  if (kind == DRAPE_SOLVER_SPRINGS) {
    if ((rc = build_adjacency(s, sc, e))) goto fail;
    const sim_springs sp = {v->n_adj, v->adj_off, v->adj_j, v->adj_prm};
    if ((rc = s->be->springs_create(s, &sp, e))) goto fail;
  }
  return DRAPE_OK;
fail:
  sim_variant_destroy(s);
  return rc;
}


/* The divergence message: which object, which frame, the step and a hint. */
static int report_unstable(drape_sim *s, int i, drape_err *e) {
  sim_variant *v = s->var;
  const dr_model *m = &s->m;
  const int ob = i >= 0 && i < m->n_particles ? m->obj[i] : 0;
  const drape_object_info *inf = &m->info[ob];
  const int li = i - inf->first_particle;
  const double h = s->dt / s->params.substeps;
  char where[64]; /* a grid's particles have a row and a column, a mesh's a vertex */
  if (inf->kind == DRAPE_OBJ_CLOTH && inf->cols > 0)
    snprintf(where, sizeof where, "particle %d (row %d, col %d)", i, li / inf->cols, li % inf->cols);
  else if (inf->kind == DRAPE_OBJ_CLOTH)
    snprintf(where, sizeof where, "particle %d (vertex %d)", i, dr_model_slot(m, i) - inf->first_particle);
  else
    snprintf(where, sizeof where, "particle %d (node %d)", i, li);
  return drape_fail(
      e, DRAPE_EUNSTABLE,
      "unstable: %s \"%s\" (object %d) diverged in frame %d (t = %.4g s): %s "
      "has a spring stretched past %.0fx its rest length or a non-finite position or velocity. "
      "Explicit mass-springs (symplectic Euler, seed 001) are only conditionally stable and the "
      "substep h = dt/substeps = %.4g s is past the limit (undamped estimate h < %.3g s from "
      "stiffness and particle mass): reduce dt, raise substeps or lower the stiffness, or use "
      "\"solver\": \"xpbd\"",
      inf->kind == DRAPE_OBJ_CLOTH ? "cloth" : "rope", inf->name, ob, s->frame + 1,
      (s->frame + 1) * s->dt, where, (double)DRAPE_SPRINGS_BLOWUP, h, v->h_limit);
}


int sim_variant_check_after(drape_sim *s, drape_err *e) {
  sim_variant *v = s->var;
  if (!v || v->solver != DRAPE_SOLVER_SPRINGS) return DRAPE_OK;
  int i = -1;
  int rc = s->be->springs_diverged(s, &i, e);
  return rc ? rc : i >= 0 ? report_unstable(s, i, e) : DRAPE_OK;
}
