/* Internals of drape_sim (include/drape/cloth.h).
 *
 * How the work is split:
 *
 *   sim.c      create/destroy, parameters, grabs, spheres, stats, OBJ
 *   step.c     drape_sim_step: THE orchestrating function; every stage of a
 *              substep in order, each one call into the backend
 *              (one substep function per solver: xpbd, jakobsen, springs)
 *   backend_cl.c   each stage = one kernel launch (kernels/<stage>.cl),
 *                  through cl/launch.h (buffers, argument tables checked
 *                  by name, launches, the one profile)
 *   backend_cpu.c  each stage = one cpu_<kernel> call (cpu_stages.c)
 *   solver_variants.c  what only jakobsen / springs have: the choice of
 *                  solver, the spring lists, the stability estimate, the
 *                  divergence message
 *
 *          step.c ──▶ sim_backend ops ──┬──▶ OpenCL: clEnqueueNDRangeKernel
 *                                       └──▶ CPU:    cpu_predict(...) ...
 *
 * The host never touches particle data between substeps. Once per frame
 * it sets the kernel parameters and uploads the few kinematic targets and
 * moving spheres (counted in drape_timings.bytes_to_device).
 */
#ifndef DRAPE_CLOTH_SIM_H
#define DRAPE_CLOTH_SIM_H

#include "cloth/selfcol.h"
#include "core/model.h"
#include "drape/cloth.h"
#include "drape/drape_cl.h"
#include "drape_types.h"

typedef enum {
  SIM_BUF_X,      /* positions  (float4 x n_particles) */
  SIM_BUF_V,      /* velocities */
  SIM_BUF_N,      /* normals    */
  SIM_BUF_CONS,   /* dr_distance x n_cons */
  SIM_BUF_TRIS,   /* uint x 3 n_tris */
  SIM_BUF_MAT,    /* dr_object x n_objects */
  SIM_BUF_SPHERES,/* dr_sphere x n_spheres */
  SIM_BUF_KIN,    /* dr_kinematic x n_kin */
  SIM_BUF_BEND,   /* dr_dihedral x n_bend (edge units; writes only) */
  SIM_BUF_MEMB,   /* dr_membrane x n_memb (writes only)            */
  SIM_BUF_MHINGE, /* dr_dihedral x n_mhinge (writes only)          */
  SIM_BUF_RBEND,  /* dr_rod_bend x n_rbend (writes only)           */
  /* The multipliers as the last projection left them (reads only; the
   * residual of drape_sim_stats): the distance constraints' (float x
   * n_cons, the mesh cloths' edge links included) and the membranes'
   * (dr_float4 x n_memb: warp, weft, shear, 0) */
  SIM_BUF_LAMBDA,
  SIM_BUF_MLAMBDA
} sim_buf;

/* The springs of the "springs" solver, per particle in CSR form (built by
 * solver_variants.c): particle i's springs are q in [off[i], off[i+1]),
 * to particle j[q], with prm[q] = (rest m, k N/m, damping N s/m, 0). */
typedef struct sim_springs {
  int n_adj;                /* entries: twice the springs                 */
  const dr_int *off, *j;
  const dr_float4 *prm;
} sim_springs;

/* A spring longer than this many rest lengths means the explicit
 * integration has diverged (no cloth stretches 100-fold; past the
 * stability limit the error grows geometrically, so the check fires a few
 * steps after the blow-up starts, long before the numbers overflow). */
#define DRAPE_SPRINGS_BLOWUP 100.0f

typedef struct sim_backend {
  const char *name;
  int host_timed; /* the orchestrator times each stage with the wall clock */
  /* x <- x0, v <- 0, constraints and triangles as built, materials. */
  int (*reset)(drape_sim *s, drape_err *e);
  /* Stages (one kernel each; see kernels/). XPBD: */
  int (*wind)(drape_sim *s, drape_err *e);
  int (*predict)(drape_sim *s, drape_err *e);
  int (*drive)(drape_sim *s, float alpha, drape_err *e);
  int (*project)(drape_sim *s, int colour, int lambda_mode, drape_err *e);
  /* One colour of the mesh cloths' edge units (kernels/dihedral.cl). */
  int (*project_bend)(drape_sim *s, int colour, int lambda_mode, drape_err *e);
  /* Material cloths (kernels/membrane.cl): one colour of membrane
   * triangles, of hinges; and the warm start of every family's
   * multipliers (all colours, before a substep's iterations). */
  int (*project_membrane)(drape_sim *s, int colour, int lambda_mode, drape_err *e);
  int (*project_hinge)(drape_sim *s, int colour, int lambda_mode, drape_err *e);
  /* a colour of the ropes' bending (kernels/membrane.cl, "Rope bending") */
  int (*project_rod_bend)(drape_sim *s, int colour, int lambda_mode, drape_err *e);
  int (*warm_start)(drape_sim *s, drape_err *e);
  /* Multilevel material grids (kernels/membrane.cl, "Multilevel"): the
   * positions at the start of the cascade; level l's prolongation onto
   * the particles of level l - 1; the starting multipliers of level l's
   * membranes from their parents' (level 0: the fine ones). */
  int (*ml_snapshot)(drape_sim *s, drape_err *e);
  int (*ml_prolong)(drape_sim *s, int level, drape_err *e);
  int (*ml_lambda)(drape_sim *s, int level, drape_err *e);
  int (*tethers)(drape_sim *s, drape_err *e);
  /* Self-collision (selfcol.h): clamp, hashes, particle and vertex-triangle
   * passes on x, with p the start of the substep; t_end as for collide. */
  int (*self_collision)(drape_sim *s, float t_end, drape_err *e);
  int (*collide)(drape_sim *s, float t_end, drape_err *e);
  /* check: this is the frame's last update, run the finiteness check
   * (drape_types.h, DR_NO_PARTICLE) */
  int (*update_velocities)(drape_sim *s, int check, drape_err *e);
  /* The DR_FUSE_* stages, then update_velocities, as one pass (the CPU
   * reference runs the separate stages in order; kernels/update.cl). */
  int (*update_fused)(drape_sim *s, int flags, float t_end, drape_err *e);
  int (*tear)(drape_sim *s, drape_err *e);
  int (*tear_triangles)(drape_sim *s, drape_err *e);
  int (*normals)(drape_sim *s, drape_err *e);
  /* The seeds' other solvers (solver_variants.h), stages of their own:
   * Jakobsen's position Verlet step (kernels/verlet.cl) and the explicit
   * mass-springs' force gather and advance (kernels/springs.cl). The
   * springs stages need springs_create first. */
  int (*verlet_predict)(drape_sim *s, drape_err *e);
  int (*springs_forces)(drape_sim *s, drape_err *e);
  int (*springs_advance)(drape_sim *s, drape_err *e);
  /* Copies the spring lists to the backend; its divergence flag starts
   * clear, and reset clears it again. */
  int (*springs_create)(drape_sim *s, const sim_springs *sp, drape_err *e);
  /* After end_frame: the lowest particle whose spring passed the blow-up
   * length or whose state is not finite, since create or reset; -1 if none. */
  int (*springs_diverged)(drape_sim *s, int *particle, drape_err *e);
  /* Frame bracket: begin sets per-frame kernel arguments; end waits for the
   * device and collects per-stage times. */
  int (*begin_frame)(drape_sim *s, drape_err *e);
  int (*end_frame)(drape_sim *s, drape_err *e);
  /* After end_frame: the lowest particle the frame's finiteness check
   * found with a NaN or infinite position or velocity, or -1. */
  int (*first_nonfinite)(drape_sim *s, int *particle, drape_err *e);
  /* Buffer copies (bytes from offset; counted on OpenCL). */
  int (*read)(drape_sim *s, sim_buf b, size_t offset, size_t bytes, void *dst, drape_err *e);
  int (*write)(drape_sim *s, sim_buf b, size_t offset, size_t bytes, const void *src,
               drape_err *e);
  /* (Re)allocates buffers whose size depends on parameters: the triangle
   * forces (wind), kinematic slots. */
  int (*ensure)(drape_sim *s, drape_err *e);
  void (*destroy)(drape_sim *s);
} sim_backend;

extern const sim_backend dr_backend_cpu;
extern const sim_backend dr_backend_cl;

typedef struct sim_grab {
  int active;
  int particle;
  float saved_w;        /* inverse mass to restore on release          */
  double from[3], to[3];/* target at the start / end of the next frame */
} sim_grab;

struct drape_sim {
  dr_model m;
  const sim_backend *be;
  void *bs;                     /* backend state                       */
  int kernel_form;              /* OpenCL: DRAPE_KERNEL_FORM_GPU or _CPU
                                   (set by the backend); 0 on the CPU one */

  drape_sim_params params;
  double dt;
  int has_floor;
  double floor_y, floor_friction;
  int any_tear;                 /* an object has tear_ratio > 0         */
  int self_collision;           /* a cloth has self_collision on        */
  selfcol_object *sc_objects;   /* per object, from the scene           */
  selfcol_desc sc_desc;         /* what the backends build the stage from */
  int wind_in_scene;

  /* host copies of the small per-frame data */
  dr_step_params sp;            /* this frame's kernel parameters       */
  dr_object *mat;               /* per object (damping factor for h)    */
  double (*compliance)[3];      /* per object: stretch, shear, bend      */
  int n_spheres;
  drape_sphere_def *spheres;    /* current, in double (centre at `time`) */
  drape_sphere_def *spheres0;   /* as in the scene                        */
  dr_sphere *sph;               /* uploaded each frame when moving        */
  int spheres_dirty;
  int n_kin, cap_kin;
  dr_kinematic *kin;
  int n_grabs;
  sim_grab *grabs;

  double time;
  int frame;
  int cur_stage;                /* drape_stage being enqueued              */
  int cur_colour;               /* colour being projected, else -1         */
  double last_stage_ms;         /* CPU backend: wall time of the last stage */
  drape_timings tm;             /* last frame                              */
  drape_err diverged;           /* code != 0: a frame's finiteness check
                                   failed; steps return this until reset   */
  int need_h_update;            /* h changed: recompute damping factors    */

  float *v0;                    /* 4 per particle: the cloths' starting
                                   velocities (cloth[].velocity), written
                                   after every reset; NULL when all are 0 */

  /* scratch for stats / pick / OBJ */
  float *hx, *hv;
  int hx_valid;                 /* hx holds the current positions          */
  drape_object_stats *ostats;
  double (*drape_test)[2];      /* per object: the Cusick test's disk area
                                   pi r^2 and the cloth's flat area (m^2),
                                   {0, 0} without drape_disk_radius       */
  dr_distance *hcons;
  float *hlambda;               /* the residual's multipliers (sim.c):   */
  dr_float4 *hmlambda;          /* distance constraints', fine membranes' */
  double *res_sum;              /* and its sums, 2 per object             */
  uint32_t *htris;
  float *corner_uv;             /* 6 per triangle (mesh cloths' UVs per
                                   corner, corner_uvs in sim.c), or NULL    */
  unsigned char *obj_corner_uv; /* per object: 1 when corner_uv has its UVs */

  drape_mesh mesh;
  struct dr_colliders *col;      /* capsules and mesh colliders
                                   (colliders.h); NULL: none              */
  struct sim_variant *var;       /* jakobsen / springs (solver_variants.c);
                                   NULL: XPBD                               */
};

/* Counters the backends update. */
static inline void sim_count_h2d(drape_sim *s, size_t bytes) { s->tm.bytes_to_device += bytes; }
static inline void sim_count_d2h(drape_sim *s, size_t bytes) { s->tm.bytes_from_device += bytes; }

/* The positions (float4 per particle) as of the last step, read back once
 * and kept until the next step or reset (the copy stats, pick and the OBJ
 * writer share); NULL with e set when the read fails. */
const float *dr_sim_positions(drape_sim *s, drape_err *e);
/* The current triangle list (torn triangles degenerate, i0 i0 i0): the
 * model's own when nothing can tear, else read back into s->htris. NULL on
 * failure (e set). */
const uint32_t *dr_sim_triangles(drape_sim *s, drape_err *e);
/* Object ob's texture coordinates per triangle corner (6 floats per
 * triangle, in the order of its triangles in dr_sim_triangles, torn ones
 * included), or NULL: only mesh cloths whose file has UVs. */
const float *dr_sim_uv(const drape_sim *s, int ob);
/* Before a frame: the stitches' rest lengths for the frame's end (sim.c). */
int dr_sim_stitches(drape_sim *s, drape_err *e);

/* Fills s->sp from the parameters (h, gravity, wind, floor, counts). */
void sim_fill_step_params(drape_sim *s);
/* Recomputes the per-object damping factors exp(-rate h). */
void sim_fill_materials(drape_sim *s);

#endif
