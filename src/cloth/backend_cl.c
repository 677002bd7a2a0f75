/* OpenCL backend: every stage is one kernel launch on one in-order queue.
 * All buffers are created once (or grown when a parameter asks for more,
 * e.g. wind needs the triangle forces); nothing is allocated or
 * copied per substep. Buffers, argument tables (checked against the
 * kernels' argument names), launches and their profile go through
 * cl/launch.h: with a profiling queue every launch carries an event tagged
 * with its stage (and colour, or self-collision part), summed into the
 * frame's drape_timings at the end of the frame. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cl/launch.h"
#include "core/colour.h"
#include "cloth/crossings.h"
#include "cloth/selfcol_cl.h"
#include "cloth/sim.h"

enum {
  K_WIND_TRI, K_WIND_GATHER, K_PREDICT, K_DRIVE, K_PROJECT, K_TETHERS, K_COLLIDE, K_UPDATE,
  K_FUSED, K_TEAR, K_TEAR_TRI, K_NORMALS, K_VERLET, K_SPRINGS_FORCES, K_SPRINGS_ADVANCE, K_BEND,
  K_MEMB, K_HINGE, K_WARM_BEND, K_WARM_HINGE, K_WARM_MEMB, K_WARM_DIST, K_ML_SNAP, K_ML_PROLONG,
  K_ML_LAMBDA, K_ROD_BEND, K_COUNT
};
static const char *const kernel_names[K_COUNT] = {
    "wind_triangles", "wind_gather", "predict", "drive_kinematic", "project_distance", "tethers",
    "collide", "update_velocities", "update_fused", "tear_constraints", "tear_triangles",
    "vertex_normals", "verlet_predict", "springs_forces", "springs_advance", "project_dihedral",
    "project_membrane_v", "project_hinge_v", "warm_dihedral", "warm_hinge", "warm_membrane",
    "warm_distance", "ml_snapshot", "ml_prolong", "ml_lambda", "project_rod_bend"};
/* The GPU form (docs/solver.md, "Two kernel forms"): one constraint or
 * particle per work item, same argument names (springs_forces_g: the
 * springs slot-major, adj_n and stride instead of adj_off); NULL keeps the
 * kernel above (predict, update_velocities and the rest are one item per
 * work item with coalesced loads in both forms; docs/solver.md has the
 * table). */
static const char *const gpu_kernel_names[K_COUNT] = {
    [K_PROJECT] = "project_distance_g", [K_TETHERS] = "tethers_g", [K_COLLIDE] = "collide_g",
    [K_FUSED] = "update_fused_g", [K_SPRINGS_FORCES] = "springs_forces_g",
    [K_BEND] = "project_dihedral_g", [K_HINGE] = "project_hinge", [K_MEMB] = "project_membrane"};

typedef struct cl_state {
  drape_cl *cl;
  drape_cl own;             /* used when the sim created the runtime      */
  int owns_cl;
  dr_cl_kern k[K_COUNT];
  int gpu;                  /* the GPU kernel form runs (s->kernel_form)  */
  size_t local[K_COUNT];    /* work-group size per kernel; 0: the default */
  size_t cons_pad;          /* entries past the constraints: the vector
                               form's DR_PROJECT_PAD, none in the GPU one */
  cl_mem x, p, v, n, obj, mat, ca, cb, crest, ccomp, lambda, sph, kin, tris, tri_edge, vt_off, vt_list,
      tri_force, tpin, trest, cpat, bad;
  cl_mem bend, bend_lambda; /* mesh cloths' edge units and their hinges' lambda */
  cl_mem memb, mlambda, mhinge, hlambda; /* material cloths (membrane.cl) */
  cl_mem ml_snap, ml_prolong, ml_up;     /* their coarse levels             */
  cl_mem rbend, rlambda;                 /* ropes' bending and its lambda   */
  /* the springs solver (springs_create): its lists (CSR in the vector
   * form; slot-major with sp_off = the count per particle in the GPU form),
   * the new velocities and the divergence flag (lowest diverged particle,
   * INT_MAX: none) */
  cl_mem sp_off, sp_j, sp_prm, sp_vn, sp_div;
  int *group_off;           /* first lane group of each colour (colour.c;
                               vector form only)                          */
  int cap_kin, has_lambda, has_tri_force;
  uint64_t bytes;           /* device memory held                         */
  size_t np_pad;            /* particles rounded up to DR_PARTICLE_LANES
                               (vector form), else n_particles            */
  int *stage_i;             /* host staging for constraint copies         */
  dr_cl_prof prof;       /* launch events with their stage and colour  */
  selfcol_cl sc;            /* self-collision stage (selfcol_cl.c)        */
  int has_sc;
  dr_crossings_cl *cross;   /* the crossing counter (crossings_cl.c), made
                               at the first drape_sim_count_crossings       */
} cl_state;

#define ST(s) ((cl_state *)(s)->bs)

static int mk(drape_sim *s, cl_mem *out, size_t bytes, const void *init, const char *what,
              drape_err *e) {
  cl_state *c = ST(s);
  return dr_cl_buffer(c->cl, bytes, init, what, &c->bytes, &s->tm.bytes_to_device, out, e);
}

/* Enqueues kernel k over n items; with profiling, the event is kept with
 * the stage being run (and the colour, for projections). */
static int launch(drape_sim *s, int k, size_t n, drape_err *e) {
  cl_state *c = ST(s);
  c->prof.stage = s->cur_stage;
  c->prof.colour = s->cur_stage == DRAPE_STAGE_PROJECT ? s->cur_colour : -1;
  c->prof.part = -1;
  return dr_cl_launch(c->cl, &c->k[k], n, c->local[k], &c->prof, e);
}

#define A(name, v) DRAPE_CL_ARG(name, v)
#define BIND(kn, first, ...)                                            \
  do {                                                                  \
    int rc_ = DRAPE_CL_BIND(&c->k[kn], (first), e, __VA_ARGS__);        \
    if (rc_) return rc_;                                                \
  } while (0)

/* Static kernel arguments; called after any buffer is (re)created. Each
 * table names the kernel's arguments in order (checked, cl/launch.h); the
 * ones left out are set per frame (cl_begin) or per launch. */
static int set_static_args(drape_sim *s, drape_err *e) {
  cl_state *c = ST(s);
  int np = s->m.n_particles, nt = s->m.n_tris, nc = s->m.n_cons, slots = s->m.tether_slots;
  int stride = (int)c->np_pad; /* slot-major tether arrays */
  cl_mem lam = c->lambda ? c->lambda : c->x; /* no constraints: never touched */
  cl_mem tf = c->tri_force ? c->tri_force : c->n;
  cl_mem te = c->tri_edge ? c->tri_edge : c->tris;
  BIND(K_PREDICT, 0, A("x", c->x), A("p", c->p), A("v", c->v), A("obj", c->obj),
       A("objects", c->mat));
  BIND(K_DRIVE, 0, A("x", c->x), A("kin", c->kin));
  cl_mem blam = c->bend_lambda ? c->bend_lambda : c->x; /* no edge units: never touched */
  if (c->bend)
    BIND(K_BEND, 0, A("x", c->x), A("bend", c->bend), A("crest", c->crest), A("ccomp", c->ccomp),
         A("blambda", blam), A("dlambda", lam));
  BIND(K_PROJECT, 0, A("x", c->x), A("ca", c->ca), A("cb", c->cb), A("crest", c->crest),
       A("ccomp", c->ccomp), A("lambda", lam));
  if (s->m.warm) {
    if (c->bend)
      BIND(K_WARM_BEND, 0, A("x", c->x), A("p", c->p), A("bend", c->bend), A("ccomp", c->ccomp),
           A("blambda", blam), A("dlambda", lam));
    BIND(K_WARM_DIST, 0, A("x", c->x), A("p", c->p), A("ca", c->ca), A("cb", c->cb),
         A("ccomp", c->ccomp), A("lambda", lam));
  }
  if (c->memb) {
    BIND(K_MEMB, 0, A("x", c->x), A("mem", c->memb), A("mlambda", c->mlambda));
    BIND(K_WARM_MEMB, 0, A("x", c->x), A("p", c->p), A("mem", c->memb), A("mlambda", c->mlambda));
  }
  if (c->ml_snap) {
    BIND(K_ML_SNAP, 0, A("x", c->x), A("snap", c->ml_snap), A("count", s->m.n_particles));
    BIND(K_ML_PROLONG, 0, A("x", c->x), A("snap", c->ml_snap), A("pr", c->ml_prolong));
    BIND(K_ML_LAMBDA, 0, A("mlambda", c->mlambda), A("up", c->ml_up));
  }
  if (c->rbend) BIND(K_ROD_BEND, 0, A("x", c->x), A("rb", c->rbend), A("rlambda", c->rlambda));
  if (c->mhinge) {
    BIND(K_HINGE, 0, A("x", c->x), A("hinge", c->mhinge), A("hlambda", c->hlambda));
    BIND(K_WARM_HINGE, 0, A("x", c->x), A("p", c->p), A("hinge", c->mhinge),
         A("hlambda", c->hlambda));
  }
  if (!c->gpu) BIND(K_PROJECT, 10, A("pattern", c->cpat));
  BIND(K_TETHERS, 0, A("x", c->x), A("pin", c->tpin), A("rest", c->trest), A("slots", slots),
       A("stride", stride), A("n", np));
  BIND(K_COLLIDE, 0, A("x", c->x), A("p", c->p), A("obj", c->obj), A("objects", c->mat),
       A("spheres", c->sph));
  BIND(K_UPDATE, 0, A("x", c->x), A("p", c->p), A("v", c->v));
  BIND(K_UPDATE, 4, A("bad", c->bad));
  BIND(K_FUSED, 0, A("x", c->x), A("p", c->p), A("v", c->v), A("obj", c->obj),
       A("objects", c->mat), A("spheres", c->sph), A("pin", c->tpin), A("rest", c->trest),
       A("slots", slots), A("stride", stride));
  BIND(K_FUSED, 13, A("bad", c->bad));
  BIND(K_WIND_TRI, 0, A("x", c->x), A("v", c->v), A("tri", c->tris), A("tri_force", tf));
  BIND(K_WIND_TRI, 5, A("n_tris", nt));
  BIND(K_WIND_GATHER, 0, A("x", c->x), A("v", c->v), A("tri_force", tf), A("vt_off", c->vt_off),
       A("vt_list", c->vt_list));
  BIND(K_NORMALS, 0, A("x", c->x), A("nrm", c->n), A("tri", c->tris), A("vt_off", c->vt_off),
       A("vt_list", c->vt_list), A("n", np));
  BIND(K_TEAR, 0, A("x", c->x), A("ca", c->ca), A("cb", c->cb), A("crest", c->crest),
       A("ccomp", c->ccomp), A("obj", c->obj), A("objects", c->mat), A("n_cons", nc));
  BIND(K_TEAR_TRI, 0, A("ccomp", c->ccomp), A("tri", c->tris), A("tri_edge", te),
       A("n_tris", nt));
  BIND(K_VERLET, 0, A("x", c->x), A("p", c->p), A("obj", c->obj), A("objects", c->mat));
  if (c->sp_div) {
    const float blowup = DRAPE_SPRINGS_BLOWUP;
    BIND(K_SPRINGS_FORCES, 0, A("x", c->x), A("p", c->p), A("v", c->v), A("vn", c->sp_vn),
         A("obj", c->obj), A("objects", c->mat));
    if (c->gpu) {
      BIND(K_SPRINGS_FORCES, 6, A("adj_n", c->sp_off), A("adj_j", c->sp_j),
           A("adj_prm", c->sp_prm), A("diverged", c->sp_div));
      BIND(K_SPRINGS_FORCES, 11, A("blowup", blowup), A("stride", np));
    } else {
      BIND(K_SPRINGS_FORCES, 6, A("adj_off", c->sp_off), A("adj_j", c->sp_j),
           A("adj_prm", c->sp_prm), A("diverged", c->sp_div));
      BIND(K_SPRINGS_FORCES, 11, A("blowup", blowup));
    }
    BIND(K_SPRINGS_ADVANCE, 0, A("x", c->x), A("v", c->v), A("vn", c->sp_vn),
         A("diverged", c->sp_div));
  }
  return DRAPE_OK;
}

static int cl_ensure(drape_sim *s, drape_err *e) {
  cl_state *c = ST(s);
  int rc, changed = 0;
  /* The multipliers always have a buffer: with one iteration the frame's
   * last substep still stores them (step.c), for the residual of
   * drape_sim_stats; 4 bytes per constraint. */
  if (!c->lambda && s->m.n_cons > 0) {
    if ((rc = mk(s, &c->lambda, sizeof(float) * ((size_t)s->m.n_cons + c->cons_pad), NULL,
                 "lambda", e)))
      return rc;
    changed = 1;
  }
  if (!c->bend_lambda && s->m.n_bend > 0) {
    if ((rc = mk(s, &c->bend_lambda, sizeof(float) * (size_t)s->m.n_bend, NULL, "bend lambda", e)))
      return rc;
    changed = 1;
  }
  if (s->params.wind_enabled && !c->tri_force && s->m.n_tris > 0) {
    if ((rc = mk(s, &c->tri_force, sizeof(dr_float4) * (size_t)s->m.n_tris, NULL, "tri_force", e)))
      return rc;
    changed = 1;
  }
  if (s->cap_kin > c->cap_kin) {
    if (c->kin) c->bytes -= sizeof(dr_kinematic) * (size_t)c->cap_kin;
    dr_cl_buffer_release(&c->kin);
    if ((rc = mk(s, &c->kin, sizeof(dr_kinematic) * (size_t)s->cap_kin, NULL, "kinematics", e)))
      return rc;
    c->cap_kin = s->cap_kin;
    changed = 1;
  }
  return changed ? set_static_args(s, e) : DRAPE_OK;
}

static int cl_write(drape_sim *s, sim_buf b, size_t off, size_t bytes, const void *src,
                    drape_err *e);

static int cl_reset(drape_sim *s, drape_err *e) {
  cl_state *c = ST(s);
  int rc;
  size_t np = (size_t)s->m.n_particles;
  const float zero = 0.0f;
  if (c->np_pad > 0) { /* a scene may have no cloth or rope at all */
    /* padding particles: pinned (w = 0) at the origin, referenced by nothing */
    DRAPE_CL_TRY(e, clEnqueueFillBuffer(c->cl->queue, c->x, &zero, sizeof zero, 0,
                                        c->np_pad * sizeof(dr_float4), 0, NULL, NULL));
    if ((rc = cl_write(s, SIM_BUF_X, 0, np * sizeof(dr_float4), s->m.x0, e))) return rc;
    DRAPE_CL_TRY(e, clEnqueueFillBuffer(c->cl->queue, c->v, &zero, sizeof zero, 0,
                                        c->np_pad * sizeof(dr_float4), 0, NULL, NULL));
    DRAPE_CL_TRY(e, clEnqueueFillBuffer(c->cl->queue, c->n, &zero, sizeof zero, 0,
                                        c->np_pad * sizeof(dr_float4), 0, NULL, NULL));
    DRAPE_CL_TRY(e, clEnqueueCopyBuffer(c->cl->queue, c->x, c->p, 0, 0,
                                        c->np_pad * sizeof(dr_float4), 0, NULL, NULL));
  }
  if ((rc = cl_write(s, SIM_BUF_CONS, 0, (size_t)s->m.n_cons * sizeof(dr_distance), s->m.cons, e)))
    return rc;
  if (c->cons_pad) {
    /* padding read by the last lanes of project_distance: torn, particle 0 */
    const int zero_i[DR_PROJECT_PAD] = {0};
    float zero_f[DR_PROJECT_PAD] = {0}, torn[DR_PROJECT_PAD];
    for (int i = 0; i < DR_PROJECT_PAD; i++) torn[i] = -1.0f;
    const size_t off = (size_t)s->m.n_cons * 4, pad = DR_PROJECT_PAD * 4;
    DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, c->ca, CL_TRUE, off, pad, zero_i, 0, NULL, NULL));
    DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, c->cb, CL_TRUE, off, pad, zero_i, 0, NULL, NULL));
    DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, c->crest, CL_TRUE, off, pad, zero_f, 0, NULL, NULL));
    DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, c->ccomp, CL_TRUE, off, pad, torn, 0, NULL, NULL));
    sim_count_h2d(s, 4 * pad);
  }
  if ((rc = cl_write(s, SIM_BUF_TRIS, 0, (size_t)s->m.n_tris * 3 * sizeof(dr_uint), s->m.tris, e)))
    return rc;
  if ((rc = cl_write(s, SIM_BUF_MAT, 0, (size_t)s->m.n_objects * sizeof(dr_object), s->mat, e)))
    return rc;
  if ((rc = cl_write(s, SIM_BUF_SPHERES, 0, (size_t)s->n_spheres * sizeof(dr_sphere), s->sph, e)))
    return rc;
  if ((rc = cl_ensure(s, e))) return rc;
  /* the multipliers kept across substeps start from nothing */
  {
    cl_mem lams[4] = {c->lambda, c->bend_lambda, c->mlambda, c->hlambda};
    size_t sizes[4] = {sizeof(float) * ((size_t)s->m.n_cons + c->cons_pad),
                       sizeof(float) * (size_t)s->m.n_bend, sizeof(dr_float4) * (size_t)s->m.n_memb,
                       sizeof(float) * (size_t)s->m.n_mhinge};
    for (int k = 0; k < 4; k++)
      if (lams[k] && sizes[k])
        DRAPE_CL_TRY(e, clEnqueueFillBuffer(c->cl->queue, lams[k], &zero, sizeof zero, 0, sizes[k],
                                            0, NULL, NULL));
  }
  /* the finiteness check's status word (drape_types.h) */
  const dr_int none = DR_NO_PARTICLE;
  DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, c->bad, CL_TRUE, 0, sizeof none, &none, 0,
                                       NULL, NULL));
  if (c->sp_div) { /* the springs' divergence flag */
    const dr_int clear = INT_MAX;
    DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, c->sp_div, CL_TRUE, 0, sizeof clear, &clear,
                                         0, NULL, NULL));
  }
  DRAPE_CL_TRY(e, clFinish(c->cl->queue));
  return cl_ensure(s, e);
}

/* The per-frame arguments: this frame's parameters and kinematic count. */
static int cl_begin(drape_sim *s, drape_err *e) {
  cl_state *c = ST(s);
  const dr_step_params sp = s->sp;
  const int nk = s->n_kin;
  BIND(K_PREDICT, 5, A("sp", sp));
  BIND(K_COLLIDE, 5, A("sp", sp));
  BIND(K_UPDATE, 3, A("sp", sp));
  BIND(K_FUSED, 10, A("sp", sp));
  BIND(K_WIND_TRI, 4, A("sp", sp));
  BIND(K_WIND_GATHER, 5, A("sp", sp));
  BIND(K_PROJECT, 8, A("inv_h2", sp.inv_h2));
  if (c->bend) BIND(K_BEND, 8, A("inv_h2", sp.inv_h2));
  if (c->memb) BIND(K_MEMB, 5, A("inv_h2", sp.inv_h2));
  if (c->mhinge) BIND(K_HINGE, 5, A("inv_h2", sp.inv_h2));
  if (c->rbend) BIND(K_ROD_BEND, 5, A("inv_h2", sp.inv_h2));
  BIND(K_DRIVE, 2, A("n_kin", nk));
  BIND(K_VERLET, 4, A("sp", sp));
  if (c->sp_div) {
    BIND(K_SPRINGS_FORCES, 10, A("sp", sp));
    BIND(K_SPRINGS_ADVANCE, 4, A("sp", sp));
  }
  return DRAPE_OK;
}

static int cl_wind(drape_sim *s, drape_err *e) {
  int rc = launch(s, K_WIND_TRI, (size_t)s->m.n_tris, e);
  return rc ? rc : launch(s, K_WIND_GATHER, (size_t)s->m.n_particles, e);
}
/* Work items of tethers, collide and update_fused: DR_PARTICLE_LANES
 * particles each in the vector form, one in the GPU form. */
static size_t particle_groups(const drape_sim *s) {
  if (ST(s)->gpu) return (size_t)s->m.n_particles;
  return ((size_t)s->m.n_particles + DR_PARTICLE_LANES - 1) / DR_PARTICLE_LANES;
}

static int cl_predict(drape_sim *s, drape_err *e) {
  return launch(s, K_PREDICT, (size_t)s->m.n_particles, e);
}
static int cl_drive(drape_sim *s, float alpha, drape_err *e) {
  cl_state *c = ST(s);
  BIND(K_DRIVE, 3, A("alpha", alpha));
  return launch(s, K_DRIVE, (size_t)s->n_kin, e);
}
static int cl_project(drape_sim *s, int colour, int mode, drape_err *e) {
  cl_state *c = ST(s);
  int first = s->m.colour_off[colour], count = s->m.colour_off[colour + 1] - first;
  BIND(K_PROJECT, 6, A("first", first), A("count", count));
  BIND(K_PROJECT, 9, A("lambda_mode", mode));
  if (c->gpu) return launch(s, K_PROJECT, (size_t)count, e);
  BIND(K_PROJECT, 11, A("group0", c->group_off[colour]));
  return launch(s, K_PROJECT, ((size_t)count + DR_PROJECT_LANES - 1) / DR_PROJECT_LANES, e);
}
/* One item per constraint in the GPU form, DR_BEND_LANES in the vector form
 * (kernels/dihedral.cl says why). */
static int cl_project_bend(drape_sim *s, int colour, int mode, drape_err *e) {
  cl_state *c = ST(s);
  int first = s->m.bend_colour_off[colour], count = s->m.bend_colour_off[colour + 1] - first;
  BIND(K_BEND, 6, A("first", first), A("count", count));
  BIND(K_BEND, 9, A("lambda_mode", mode));
  return launch(s, K_BEND,
                c->gpu ? (size_t)count : ((size_t)count + DR_BEND_LANES - 1) / DR_BEND_LANES, e);
}
/* A colour of a material family (membranes K_MEMB, hinges K_HINGE): one
 * item per work item in the GPU form, DR_BEND_LANES in the vector form. */
static int cl_project_family(drape_sim *s, int k, const int *off, int colour, int mode,
                             drape_err *e) {
  cl_state *c = ST(s);
  int first = off[colour], count = off[colour + 1] - first;
  BIND(k, 3, A("first", first), A("count", count));
  BIND(k, 6, A("lambda_mode", mode));
  return launch(s, k, c->gpu ? (size_t)count : ((size_t)count + DR_BEND_LANES - 1) / DR_BEND_LANES, e);
}
static int cl_project_membrane(drape_sim *s, int colour, int mode, drape_err *e) {
  return cl_project_family(s, K_MEMB, s->m.memb_colour_off, colour, mode, e);
}
static int cl_project_hinge(drape_sim *s, int colour, int mode, drape_err *e) {
  return cl_project_family(s, K_HINGE, s->m.mhinge_colour_off, colour, mode, e);
}
/* A colour of the ropes' bending: one node per work item in both forms
 * (a rope has a few hundred). */
static int cl_project_rod_bend(drape_sim *s, int colour, int mode, drape_err *e) {
  cl_state *c = ST(s);
  int first = s->m.rbend_colour_off[colour], count = s->m.rbend_colour_off[colour + 1] - first;
  BIND(K_ROD_BEND, 3, A("first", first), A("count", count));
  BIND(K_ROD_BEND, 6, A("lambda_mode", mode));
  return launch(s, K_ROD_BEND, (size_t)count, e);
}
/* kernels/membrane.cl, "Warm start": one launch per colour of each family
 * (edge units, hinges, membranes, distance constraints), in the CPU
 * reference's order. */
static int cl_warm_range(drape_sim *s, int k, int at, const int *off, int n_colours, drape_err *e) {
  cl_state *c = ST(s);
  for (int col = 0; col < n_colours; col++) {
    int first = off[col], count = off[col + 1] - first, rc;
    if (count == 0) continue;
    BIND(k, at, A("first", first), A("count", count));
    if ((rc = launch(s, k, (size_t)count, e))) return rc;
  }
  return DRAPE_OK;
}
static int cl_warm_start(drape_sim *s, drape_err *e) {
  const dr_model *m = &s->m;
  int rc;
  if ((m->n_bend > 0 && (rc = cl_warm_range(s, K_WARM_BEND, 6, m->bend_colour_off, m->n_bend_colours, e))) ||
      (m->n_mhinge > 0 &&
       (rc = cl_warm_range(s, K_WARM_HINGE, 4, m->mhinge_colour_off, m->n_mhinge_colours, e))) ||
      (m->n_memb > 0 && (rc = cl_warm_range(s, K_WARM_MEMB, 4, m->memb_colour_off, m->n_memb_colours, e))) ||
      (m->n_colours > 0 && (rc = cl_warm_range(s, K_WARM_DIST, 6, m->colour_off, m->n_colours, e))))
    return rc;
  return DRAPE_OK;
}
static int cl_ml_snapshot(drape_sim *s, drape_err *e) {
  return launch(s, K_ML_SNAP, (size_t)s->m.n_particles, e);
}
static int cl_ml_prolong(drape_sim *s, int level, drape_err *e) {
  cl_state *c = ST(s);
  const int first = s->m.prolong_off[level - 1], count = s->m.prolong_off[level] - first;
  if (count == 0) return DRAPE_OK;
  BIND(K_ML_PROLONG, 3, A("first", first), A("count", count));
  return launch(s, K_ML_PROLONG, (size_t)count, e);
}
static int cl_ml_lambda(drape_sim *s, int level, drape_err *e) {
  cl_state *c = ST(s);
  int first, count;
  dr_model_level_membranes(&s->m, level, &first, &count);
  if (count == 0) return DRAPE_OK;
  BIND(K_ML_LAMBDA, 2, A("first", first), A("count", count));
  return launch(s, K_ML_LAMBDA, (size_t)count, e);
}
static int cl_tethers(drape_sim *s, drape_err *e) {
  return launch(s, K_TETHERS, particle_groups(s), e);
}
/* One STAGE call, ~30 launches (hashes, scans, passes): the orchestrator
 * counts one, the rest are added here. */
static int cl_self_collision(drape_sim *s, float t_end, drape_err *e) {
  cl_state *c = ST(s);
  if (!c->has_sc) return DRAPE_OK;
  selfcol_colliders col = {s->sp.has_floor, s->sp.floor_y, s->n_spheres, NULL, t_end};
  uint64_t before = c->sc.launches;
  c->prof.stage = s->cur_stage; /* the parts tag themselves (selfcol_cl.c) */
  c->prof.colour = -1;
  int rc = selfcol_cl_run(&c->sc, c->x, c->p, c->tris, &col, c->sph, e);
  c->prof.part = -1;
  if (c->sc.launches > before) s->tm.launches += c->sc.launches - before - 1;
  return rc;
}
static int cl_collide(drape_sim *s, float t_end, drape_err *e) {
  cl_state *c = ST(s);
  BIND(K_COLLIDE, 6, A("t_end", t_end));
  return launch(s, K_COLLIDE, particle_groups(s), e);
}
static int cl_update(drape_sim *s, int check, drape_err *e) {
  cl_state *c = ST(s);
  BIND(K_UPDATE, 5, A("check", check));
  return launch(s, K_UPDATE, (size_t)s->m.n_particles, e);
}
static int cl_update_fused(drape_sim *s, int flags, float t_end, drape_err *e) {
  cl_state *c = ST(s);
  BIND(K_FUSED, 11, A("t_end", t_end), A("flags", flags));
  return launch(s, K_FUSED, particle_groups(s), e);
}
static int cl_tear(drape_sim *s, drape_err *e) {
  return launch(s, K_TEAR, (size_t)s->m.n_cons, e);
}
static int cl_tear_tris(drape_sim *s, drape_err *e) {
  return launch(s, K_TEAR_TRI, (size_t)s->m.n_tris, e);
}
static int cl_normals(drape_sim *s, drape_err *e) {
  return launch(s, K_NORMALS, (size_t)s->m.n_particles, e);
}

static int cl_verlet(drape_sim *s, drape_err *e) {
  return launch(s, K_VERLET, (size_t)s->m.n_particles, e);
}
static int cl_springs_forces(drape_sim *s, drape_err *e) {
  return launch(s, K_SPRINGS_FORCES, (size_t)s->m.n_particles, e);
}
static int cl_springs_advance(drape_sim *s, drape_err *e) {
  return launch(s, K_SPRINGS_ADVANCE, (size_t)s->m.n_particles, e);
}

/* The GPU form's springs, slot-major (kernels/gpu_springs.cl): slot q of
 * particle i at q * n + i, the CSR list's order kept; n_of[i] springs. */
static int springs_slot_major(const sim_springs *sp, size_t n, int **n_of, int **j,
                              dr_float4 **prm, size_t *slots) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if ((size_t)(sp->off[i + 1] - sp->off[i]) > m) m = (size_t)(sp->off[i + 1] - sp->off[i]);
  *slots = m;
  const size_t cells = m * n > 0 ? m * n : 1;
  *n_of = malloc((n ? n : 1) * sizeof **n_of);
  *j = calloc(cells, sizeof **j);
  *prm = calloc(cells, sizeof **prm);
  if (!*n_of || !*j || !*prm) return DRAPE_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    (*n_of)[i] = sp->off[i + 1] - sp->off[i];
    for (int q = 0; q < (*n_of)[i]; q++) {
      (*j)[(size_t)q * n + i] = sp->j[sp->off[i] + q];
      (*prm)[(size_t)q * n + i] = sp->prm[sp->off[i] + q];
    }
  }
  return DRAPE_OK;
}

static int cl_springs_create(drape_sim *s, const sim_springs *sp, drape_err *e) {
  cl_state *c = ST(s);
  const size_t np = (size_t)(s->m.n_particles > 0 ? s->m.n_particles : 1);
  const dr_int clear = INT_MAX;
  int rc;
  if (c->gpu) {
    const size_t n = (size_t)s->m.n_particles;
    int *n_of = NULL, *j = NULL;
    dr_float4 *prm = NULL;
    size_t slots = 0;
    if (springs_slot_major(sp, n, &n_of, &j, &prm, &slots)) {
      free(n_of); free(j); free(prm);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory (%d springs)", sp->n_adj / 2);
    }
    rc = mk(s, &c->sp_off, n * sizeof(dr_int), n_of, "springs per particle", e);
    if (!rc) rc = mk(s, &c->sp_j, slots * n * sizeof(dr_int), j, "spring ends", e);
    if (!rc) rc = mk(s, &c->sp_prm, slots * n * sizeof(dr_float4), prm, "spring parameters", e);
    free(n_of); free(j); free(prm);
    if (rc) return rc;
  } else if ((rc = mk(s, &c->sp_off, ((size_t)s->m.n_particles + 1) * sizeof(dr_int), sp->off,
                      "spring offsets", e)) ||
             (rc = mk(s, &c->sp_j, (size_t)sp->n_adj * sizeof(dr_int), sp->j, "spring ends", e)) ||
             (rc = mk(s, &c->sp_prm, (size_t)sp->n_adj * sizeof(dr_float4), sp->prm,
                      "spring parameters", e))) {
    return rc;
  }
  if ((rc = mk(s, &c->sp_vn, np * sizeof(dr_float4), NULL, "new velocities", e)) ||
      (rc = mk(s, &c->sp_div, sizeof(dr_int), &clear, "divergence flag", e)))
    return rc;
  /* the per-frame parameters are bound at the next begin_frame */
  return set_static_args(s, e);
}

/* Four bytes, read after end_frame's clFinish (counted). */
static int cl_springs_diverged(drape_sim *s, int *particle, drape_err *e) {
  cl_state *c = ST(s);
  dr_int d = INT_MAX;
  if (c->sp_div) {
    DRAPE_CL_TRY(e, clEnqueueReadBuffer(c->cl->queue, c->sp_div, CL_TRUE, 0, sizeof d, &d, 0, NULL,
                                        NULL));
    sim_count_d2h(s, sizeof d);
  }
  *particle = d == INT_MAX ? -1 : d;
  return DRAPE_OK;
}

/* Waits for the frame and adds every launch's device time (solver stages
 * and self-collision parts alike) to the frame's one profile. */
static int cl_end(drape_sim *s, drape_err *e) {
  cl_state *c = ST(s);
  DRAPE_CL_TRY(e, clFinish(c->cl->queue));
  if (!c->cl->profiling) return DRAPE_OK;
  int rc = dr_cl_prof_collect(&c->prof, &s->tm, c->has_sc ? c->sc.ms : NULL, NULL, e);
  if (!rc) s->tm.stage_times_valid = 1;
  return rc;
}

/* Four bytes a frame, read after end_frame's clFinish: the only read-back
 * a frame needs (counted in bytes_from_device). */
static int cl_first_nonfinite(drape_sim *s, int *particle, drape_err *e) {
  cl_state *c = ST(s);
  dr_int bad = DR_NO_PARTICLE;
  if (s->m.n_particles > 0) {
    DRAPE_CL_TRY(e, clEnqueueReadBuffer(c->cl->queue, c->bad, CL_TRUE, 0, sizeof bad, &bad, 0,
                                        NULL, NULL));
    sim_count_d2h(s, sizeof bad);
  }
  *particle = bad == DR_NO_PARTICLE ? -1 : bad;
  return DRAPE_OK;
}

static cl_mem buf_of(cl_state *c, sim_buf b) {
  switch (b) {
    case SIM_BUF_X: return c->x;
    case SIM_BUF_V: return c->v;
    case SIM_BUF_N: return c->n;
    case SIM_BUF_CONS: return NULL; /* four arrays: see cons_read / cons_write */
    case SIM_BUF_TRIS: return c->tris;
    case SIM_BUF_MAT: return c->mat;
    case SIM_BUF_SPHERES: return c->sph;
    case SIM_BUF_KIN: return c->kin;
    case SIM_BUF_BEND: return c->bend;
    case SIM_BUF_MEMB: return c->memb;
    case SIM_BUF_MHINGE: return c->mhinge;
    case SIM_BUF_RBEND: return c->rbend;
    case SIM_BUF_LAMBDA: return c->lambda;
    case SIM_BUF_MLAMBDA: return c->mlambda;
  }
  return NULL;
}

/* Constraints live on the device as four arrays (a, b, rest, compliance);
 * the host sees dr_distance records. Whole-list copies only. */
static int cons_read(drape_sim *s, dr_distance *dst, drape_err *e) {
  cl_state *c = ST(s);
  size_t n = (size_t)s->m.n_cons;
  cl_mem bufs[4] = {c->ca, c->cb, c->crest, c->ccomp};
  for (int k = 0; k < 4; k++) {
    DRAPE_CL_TRY(e, clEnqueueReadBuffer(c->cl->queue, bufs[k], CL_TRUE, 0, 4 * n, c->stage_i, 0,
                                        NULL, NULL));
    for (size_t i = 0; i < n; i++) {
      if (k == 0) dst[i].a = c->stage_i[i];
      else if (k == 1) dst[i].b = c->stage_i[i];
      else if (k == 2) memcpy(&dst[i].rest, &c->stage_i[i], 4);
      else memcpy(&dst[i].compliance, &c->stage_i[i], 4);
    }
  }
  sim_count_d2h(s, 16 * n);
  return DRAPE_OK;
}

static int cons_write(drape_sim *s, const dr_distance *src, drape_err *e) {
  cl_state *c = ST(s);
  size_t n = (size_t)s->m.n_cons;
  cl_mem bufs[4] = {c->ca, c->cb, c->crest, c->ccomp};
  for (int k = 0; k < 4; k++) {
    for (size_t i = 0; i < n; i++) {
      if (k == 0) c->stage_i[i] = src[i].a;
      else if (k == 1) c->stage_i[i] = src[i].b;
      else if (k == 2) memcpy(&c->stage_i[i], &src[i].rest, 4);
      else memcpy(&c->stage_i[i], &src[i].compliance, 4);
    }
    DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, bufs[k], CL_TRUE, 0, 4 * n, c->stage_i, 0,
                                         NULL, NULL));
  }
  sim_count_h2d(s, 16 * n);
  return DRAPE_OK;
}

static int cl_read(drape_sim *s, sim_buf b, size_t off, size_t bytes, void *dst, drape_err *e) {
  if (!bytes) return DRAPE_OK;
  cl_state *c = ST(s);
  if (b == SIM_BUF_CONS) {
    if (off != 0 || bytes != (size_t)s->m.n_cons * sizeof(dr_distance))
      return drape_fail(e, DRAPE_EINVAL, "constraints are copied as a whole list");
    return cons_read(s, dst, e);
  }
  DRAPE_CL_TRY(e, clEnqueueReadBuffer(c->cl->queue, buf_of(c, b), CL_TRUE, off, bytes, dst, 0,
                                      NULL, NULL));
  sim_count_d2h(s, bytes);
  return DRAPE_OK;
}

/* Blocking writes: the source may be a host array the caller reuses at
 * once. They happen once per frame at most (kinematics, moving spheres)
 * or on user edits, never per substep. */
static int cl_write(drape_sim *s, sim_buf b, size_t off, size_t bytes, const void *src,
                    drape_err *e) {
  if (!bytes) return DRAPE_OK;
  cl_state *c = ST(s);
  if (b == SIM_BUF_CONS) {
    if (off != 0 || bytes != (size_t)s->m.n_cons * sizeof(dr_distance))
      return drape_fail(e, DRAPE_EINVAL, "constraints are copied as a whole list");
    return cons_write(s, src, e);
  }
  DRAPE_CL_TRY(e, clEnqueueWriteBuffer(c->cl->queue, buf_of(c, b), CL_TRUE, off, bytes, src, 0,
                                       NULL, NULL));
  sim_count_h2d(s, bytes);
  return DRAPE_OK;
}

static void cl_destroy(drape_sim *s) {
  cl_state *c = ST(s);
  if (!c) return;
  if (c->cl && c->cl->queue) clFinish(c->cl->queue);
  if (c->has_sc) selfcol_cl_destroy(&c->sc);
  dr_crossings_cl_destroy(c->cross);
  dr_cl_prof_free(&c->prof);
  free(c->stage_i);
  for (int k = 0; k < K_COUNT; k++) dr_cl_kern_release(&c->k[k]);
  cl_mem *all[] = {&c->x, &c->p, &c->v, &c->n, &c->obj, &c->mat, &c->ca, &c->cb, &c->crest,
                   &c->ccomp, &c->lambda, &c->sph,
                   &c->kin, &c->tris, &c->tri_edge, &c->vt_off, &c->vt_list, &c->tri_force,
                   &c->tpin, &c->trest, &c->cpat, &c->bad, &c->bend, &c->bend_lambda,
                   &c->memb, &c->mlambda, &c->mhinge, &c->hlambda, &c->ml_snap, &c->ml_prolong, &c->ml_up, &c->rbend, &c->rlambda,
                   &c->sp_off, &c->sp_j, &c->sp_prm, &c->sp_vn, &c->sp_div};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dr_cl_buffer_release(all[i]);
  free(c->group_off);
  if (c->owns_cl) drape_cl_release(&c->own);
  free(c);
  s->bs = NULL;
}

int dr_backend_cl_crossings(drape_sim *s, dr_crossings_cl **k, cl_mem *x, drape_err *e) {
  cl_state *c = ST(s);
  int rc;
  if (!c->cross && (rc = dr_crossings_cl_create(c->cl, &c->cross, e))) return rc;
  *k = c->cross;
  *x = c->x;
  return DRAPE_OK;
}

int dr_backend_cl_init(drape_sim *s, const drape_sim_opts *o, drape_err *e);
int dr_backend_cl_init(drape_sim *s, const drape_sim_opts *o, drape_err *e) {
  cl_state *c = calloc(1, sizeof *c);
  if (!c) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  s->bs = c;
  dr_cl_prof_init(&c->prof);
  int rc;
  if (o->cl) {
    c->cl = o->cl;
  } else {
    drape_cl_opts co = drape_cl_default_opts();
    co.device_index = o->device_index;
    co.profiling = o->profiling;
    if ((rc = drape_cl_init(&c->own, &co, e))) { cl_destroy(s); return rc; }
    c->owns_cl = 1;
    c->cl = &c->own;
  }
  int form;
  if ((rc = drape_cl_kernel_form_choose(o->kernel_form, c->cl->type, &form, e))) {
    cl_destroy(s);
    return rc;
  }
  s->kernel_form = form;
  c->gpu = form == DRAPE_KERNEL_FORM_GPU;
  c->cons_pad = c->gpu ? 0 : DR_PROJECT_PAD;
  for (int k = 0; k < K_COUNT; k++) {
    const char *name = c->gpu && gpu_kernel_names[k] ? gpu_kernel_names[k] : kernel_names[k];
    if ((rc = dr_cl_kern_create(c->cl, name, &c->k[k], e))) {
      cl_destroy(s);
      return rc;
    }
    /* the vector form keeps the launcher's default groups (measured on PoCL) */
    if (c->gpu) c->local[k] = dr_cl_kern_local(c->cl, &c->k[k]);
  }
  c->stage_i = malloc(4 * ((size_t)s->m.n_cons + 1));
  if (!c->stage_i) { cl_destroy(s); return drape_fail(e, DRAPE_ENOMEM, "out of memory"); }
  const dr_model *m = &s->m;
  size_t f4 = sizeof(dr_float4);
  size_t slots = (size_t)m->tether_slots;
  /* vector form: particle arrays padded to whole groups of DR_PARTICLE_LANES */
  size_t np = (size_t)m->n_particles;
  if (!c->gpu) np = (np + DR_PARTICLE_LANES - 1) / DR_PARTICLE_LANES * DR_PARTICLE_LANES;
  c->np_pad = np;
  int *obj_pad = calloc(np ? np : 1, sizeof *obj_pad);
  int *tpin_pad = slots ? malloc(np * slots * sizeof *tpin_pad) : NULL;
  float *trest_pad = slots ? calloc(np * slots, sizeof *trest_pad) : NULL;
  if (!obj_pad || (slots && (!tpin_pad || !trest_pad))) {
    free(obj_pad); free(tpin_pad); free(trest_pad);
    cl_destroy(s);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  memcpy(obj_pad, m->obj, sizeof *obj_pad * (size_t)m->n_particles);
  if (slots) { /* slot-major on the device: one vload8 per slot (tethers.cl),
                  and coalesced reads in the GPU form */
    for (size_t i = 0; i < np * slots; i++) tpin_pad[i] = -1;
    for (size_t i = 0; i < (size_t)m->n_particles; i++)
      for (size_t q = 0; q < slots; q++) {
        tpin_pad[q * np + i] = m->tether_pin[i * slots + q];
        trest_pad[q * np + i] = m->tether_rest[i * slots + q];
      }
  }
  if ((rc = mk(s, &c->x, np * f4, NULL, "positions", e)) ||
      (rc = mk(s, &c->p, np * f4, NULL, "previous positions", e)) ||
      (rc = mk(s, &c->v, np * f4, NULL, "velocities", e)) ||
      (rc = mk(s, &c->n, np * f4, NULL, "normals", e)) ||
      (rc = mk(s, &c->obj, np * sizeof(dr_int), obj_pad, "object ids", e)) ||
      (rc = mk(s, &c->mat, (size_t)m->n_objects * sizeof(dr_object), NULL, "materials", e)) ||
      (rc = mk(s, &c->ca, ((size_t)m->n_cons + c->cons_pad) * 4, NULL, "constraint a", e)) ||
      (rc = mk(s, &c->cb, ((size_t)m->n_cons + c->cons_pad) * 4, NULL, "constraint b", e)) ||
      (rc = mk(s, &c->crest, ((size_t)m->n_cons + c->cons_pad) * 4, NULL, "rest lengths", e)) ||
      (rc = mk(s, &c->ccomp, ((size_t)m->n_cons + c->cons_pad) * 4, NULL, "compliances", e)) ||
      (rc = mk(s, &c->sph, (size_t)s->n_spheres * sizeof(dr_sphere), NULL, "spheres", e)) ||
      (rc = mk(s, &c->bad, sizeof(dr_int), NULL, "finiteness status", e)) ||
      (rc = mk(s, &c->tris, (size_t)m->n_tris * 3 * sizeof(dr_uint), NULL, "triangles", e)) ||
      (rc = mk(s, &c->vt_off, ((size_t)m->n_particles + 1) * sizeof(dr_int), m->vt_off,
               "vertex-triangle offsets", e)) ||
      (rc = mk(s, &c->vt_list, (size_t)m->n_tris * 3 * sizeof(dr_int), m->vt_list,
               "vertex-triangle lists", e)) ||
      (s->any_tear && (rc = mk(s, &c->tri_edge, (size_t)m->n_tris * 3 * sizeof(dr_int), m->tri_edge,
                               "triangle edges", e))) ||
      (slots && (rc = mk(s, &c->tpin, np * slots * sizeof(dr_int), tpin_pad, "tether pins", e))) ||
      (slots && (rc = mk(s, &c->trest, np * slots * sizeof(float), trest_pad, "tether rests", e))) ||
      (m->n_bend > 0 && (rc = mk(s, &c->bend, (size_t)m->n_bend * sizeof(dr_dihedral), m->bend,
                                 "bending constraints", e))) ||
      (m->n_memb > 0 && (rc = mk(s, &c->memb, (size_t)m->n_memb * sizeof(dr_membrane), m->memb,
                                 "membrane triangles", e))) ||
      (m->n_memb > 0 && (rc = mk(s, &c->mlambda, (size_t)m->n_memb * sizeof(dr_float4), NULL,
                                 "membrane lambda", e))) ||
      (m->n_levels > 0 && (rc = mk(s, &c->ml_snap, np * f4, NULL, "multilevel positions", e))) ||
      (m->n_levels > 0 && (rc = mk(s, &c->ml_prolong, (size_t)m->n_prolong * sizeof(dr_prolong),
                                   m->prolong, "multilevel prolongation", e))) ||
      (m->n_levels > 0 && (rc = mk(s, &c->ml_up, (size_t)m->n_memb * sizeof(dr_memb_up), m->memb_up,
                                   "multilevel parents", e))) ||
      (m->n_rbend > 0 && (rc = mk(s, &c->rbend, (size_t)m->n_rbend * sizeof(dr_rod_bend), m->rbend,
                                  "rope bending", e))) ||
      (m->n_rbend > 0 && (rc = mk(s, &c->rlambda, (size_t)m->n_rbend * sizeof(dr_float4), NULL,
                                  "rope bending lambda", e))) ||
      (m->n_mhinge > 0 && (rc = mk(s, &c->mhinge, (size_t)m->n_mhinge * sizeof(dr_dihedral),
                                   m->mhinge, "material hinges", e))) ||
      (m->n_mhinge > 0 && (rc = mk(s, &c->hlambda, (size_t)m->n_mhinge * sizeof(float), NULL,
                                   "hinge lambda", e)))) {
    free(obj_pad); free(tpin_pad); free(trest_pad);
    cl_destroy(s);
    return rc;
  }
  free(obj_pad); free(tpin_pad); free(trest_pad);
  if (!c->gpu) { /* memory pattern of each lane group of project_distance */
    int n_groups = dr_colour_n_groups(m->colour_off, m->n_colours);
    unsigned char *pat = malloc((size_t)n_groups + 1);
    c->group_off = malloc(sizeof *c->group_off * ((size_t)m->n_colours + 1));
    if (!pat || !c->group_off) {
      free(pat);
      cl_destroy(s);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    }
    dr_colour_lane_patterns(m->cons, m->colour_off, m->n_colours, pat, c->group_off, NULL);
    rc = mk(s, &c->cpat, (size_t)n_groups, pat, "constraint group patterns", e);
    free(pat);
    if (rc) { cl_destroy(s); return rc; }
  }
  if ((rc = cl_ensure(s, e)) || (rc = set_static_args(s, e))) { cl_destroy(s); return rc; }
  if (s->self_collision) {
    selfcol_desc d = s->sc_desc;
    d.kernel_form = form; /* the same form as the solver's kernels */
    if ((rc = selfcol_cl_create(c->cl, &d, &c->sc, e))) { cl_destroy(s); return rc; }
    c->has_sc = 1;
    selfcol_cl_share_profile(&c->sc, &c->prof); /* one profile for every launch */
  }
  return DRAPE_OK;
}

/* The particle buffers and the profile, for the colliders' stage (colliders.c). */
void dr_backend_cl_particles(const drape_sim *s, drape_cl **cl, cl_mem *x, cl_mem *p, cl_mem *obj,
                             cl_mem *mat, dr_cl_prof **prof, int *gpu);
void dr_backend_cl_particles(const drape_sim *s, drape_cl **cl, cl_mem *x, cl_mem *p, cl_mem *obj,
                             cl_mem *mat, dr_cl_prof **prof, int *gpu) {
  cl_state *c = ST(s);
  *cl = c->cl, *x = c->x, *p = c->p, *obj = c->obj, *mat = c->mat, *prof = &c->prof, *gpu = c->gpu;
}
/* The cloth triangles and the vertex-triangle lists (colliders.c). */
void dr_backend_cl_tris(const drape_sim *s, cl_mem *tris, cl_mem *vt_off, cl_mem *vt_list);
void dr_backend_cl_tris(const drape_sim *s, cl_mem *tris, cl_mem *vt_off, cl_mem *vt_list) {
  cl_state *c = ST(s);
  *tris = c->tris, *vt_off = c->vt_off, *vt_list = c->vt_list;
}

uint64_t dr_backend_cl_bytes(const drape_sim *s);
uint64_t dr_backend_cl_bytes(const drape_sim *s) { return ST(s)->bytes + ST(s)->sc.bytes; }

void dr_backend_cl_lists(const drape_sim *s, drape_timings *out);
void dr_backend_cl_lists(const drape_sim *s, drape_timings *out) {
  const cl_state *c = ST(s);
  if (!c->has_sc) return;
  selfcol_cl_list_stats(&c->sc, &out->selfcol_list_builds, &out->selfcol_list_passes,
                        &out->selfcol_hash_passes);
}

struct drape_cl *dr_backend_cl_runtime(const drape_sim *s);
struct drape_cl *dr_backend_cl_runtime(const drape_sim *s) { return ST(s)->cl; }

int dr_backend_cl_buffers(const drape_sim *s, drape_sim_buffers *out);
int dr_backend_cl_buffers(const drape_sim *s, drape_sim_buffers *out) {
  cl_state *c = ST(s);
  out->positions = c->x;
  out->normals = c->n;
  out->tris = c->tris;
  out->queue = c->cl->queue;
  out->context = c->cl->ctx;
  return DRAPE_OK;
}

const sim_backend dr_backend_cl = {
    .name = "cl",
    .host_timed = 0,
    .reset = cl_reset,
    .wind = cl_wind,
    .predict = cl_predict,
    .drive = cl_drive,
    .project = cl_project,
    .project_bend = cl_project_bend,
    .project_membrane = cl_project_membrane,
    .project_hinge = cl_project_hinge,
    .project_rod_bend = cl_project_rod_bend,
    .warm_start = cl_warm_start,
    .ml_snapshot = cl_ml_snapshot,
    .ml_prolong = cl_ml_prolong,
    .ml_lambda = cl_ml_lambda,
    .tethers = cl_tethers,
    .self_collision = cl_self_collision,
    .collide = cl_collide,
    .update_velocities = cl_update,
    .update_fused = cl_update_fused,
    .tear = cl_tear,
    .tear_triangles = cl_tear_tris,
    .normals = cl_normals,
    .verlet_predict = cl_verlet,
    .springs_forces = cl_springs_forces,
    .springs_advance = cl_springs_advance,
    .springs_create = cl_springs_create,
    .springs_diverged = cl_springs_diverged,
    .begin_frame = cl_begin,
    .end_frame = cl_end,
    .first_nonfinite = cl_first_nonfinite,
    .read = cl_read,
    .write = cl_write,
    .ensure = cl_ensure,
    .destroy = cl_destroy,
};
