/* drape — the cloth and rope solver (XPBD with small steps on OpenCL, or
 * the CPU reference backend that runs the same stages in plain C).
 *
 *   drape_scene scene; drape_scene_load("scenes/drape.json", &scene, &e);
 *   drape_sim_opts o = drape_sim_opts_default();      // OpenCL, device -1
 *   drape_sim *sim;
 *   drape_sim_create(&scene, &o, &sim, &e);
 *   for (...) drape_sim_step(sim, &e);                // one frame of dt
 *   drape_sim_read_positions(sim, xyzw, &e);          // n_particles float4
 *   drape_sim_destroy(sim);
 *
 * The solver copies what it needs from the scene; the scene may be freed
 * after drape_sim_create.
 *
 * Model (docs/solver.md):
 *  - Cloth: a grid of rows x cols particles, `spacing` m apart. Particle
 *    (row r, col c) starts at origin + c*spacing*U + r*spacing*V where
 *      plane "xz": U = +x, V = +z (a horizontal sheet)
 *      plane "xy": U = +x, V = -y (a curtain: row 0 on top, rows go down)
 *      plane "yz": U = +z, V = -y
 *    and has index first_particle + r*cols + c. Constraints (seed 002):
 *    structural (r,c)-(r,c+1) and (r,c)-(r+1,c), shear along both cell
 *    diagonals, bending (r,c)-(r,c+2) and (r,c)-(r+2,c). Each cell's
 *    area is shared equally by its four corners: m = mass_per_area * share.
 *    Triangles: each cell (r,c) gives (r,c)(r+1,c)(r+1,c+1) and
 *    (r,c)(r+1,c+1)(r,c+1), counter-clockwise seen from +U x V.
 *  - Rope: segments+1 nodes evenly spaced from start to end, links of rest
 *    length length/segments, link mass mass_per_length*rest shared by its
 *    two nodes (so the end nodes carry half).
 *  - Substep (h = dt/substeps): wind, predict, kinematic pins/grabs,
 *    iterations x (every colour, tethers), self-collision
 *    (docs/selfcollision.md), collide, update velocities, tearing.
 *    After the substeps: normals.
 */
#ifndef DRAPE_CLOTH_H
#define DRAPE_CLOTH_H

#include <stdint.h>

#include "drape/base.h"
#include "drape/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drape_sim drape_sim;
struct drape_cl; /* an OpenCL context, queue and program (drape_cl.h) */

typedef enum { DRAPE_BACKEND_CL = 0, DRAPE_BACKEND_CPU = 1 } drape_backend;

/* The shape of the OpenCL kernels (docs/solver.md, "Two kernel forms"):
 * one constraint or particle per work item for GPUs, or 8 per work item in
 * float16 registers for CPU devices (PoCL). Both give the CPU reference's
 * bits. AUTO (0) takes DRAPE_KERNEL_FORM=auto|gpu|cpu from the environment
 * when set, else GPU for GPU and accelerator devices, CPU (the vector
 * form) for CPU devices. */
typedef enum {
  DRAPE_KERNEL_FORM_AUTO = 0,
  DRAPE_KERNEL_FORM_GPU = 1,
  DRAPE_KERNEL_FORM_CPU = 2
} drape_kernel_form;

typedef struct drape_sim_opts {
  drape_backend backend;  /* default DRAPE_BACKEND_CL                         */
  int device_index;       /* OpenCL device (see `drape devices`); -1 default  */
  int profiling;          /* OpenCL: per-stage times from event profiling     */
  struct drape_cl *cl;    /* optional: run on this runtime (not owned), e.g.
                             one made with GL-sharing context properties;
                             its queue decides whether profiling is possible */
  drape_kernel_form kernel_form; /* OpenCL kernel form; 0 = auto (above)    */
} drape_sim_opts;

drape_sim_opts drape_sim_opts_default(void);
/* backend one of drape_backend, device_index >= -1. */
int drape_sim_opts_validate(const drape_sim_opts *o, drape_err *e);

/* Validates the scene (drape_scene_validate, every def's validator) and the
 * options, then builds particles and constraints, colours them, uploads
 * once. A bad def gives the loader's message. */
int drape_sim_create(const drape_scene *scene, const drape_sim_opts *opts, drape_sim **out,
                     drape_err *e);
void drape_sim_destroy(drape_sim *sim);

/* One frame of dt: substeps x (stages), then normals. Blocks until done.
 * DRAPE_EUNSTABLE if positions are no longer finite (checked only when
 * positions are read back, e.g. by stats). */
int drape_sim_step(drape_sim *sim, drape_err *e);
/* Back to the state right after create (time 0, no grabs, nothing torn,
 * spheres at their scene positions). Parameters keep their current values. */
int drape_sim_reset(drape_sim *sim, drape_err *e);

/* Which kernels run: "gpu" (one item per work item), "vector" (8 per work
 * item, for CPU devices) or "cpu-reference" (the CPU backend). */
const char *drape_sim_kernel_form(const drape_sim *sim);

double drape_sim_time(const drape_sim *sim); /* s simulated since reset    */
int drape_sim_frame(const drape_sim *sim);   /* frames stepped since reset */

/* ---- the mesh: what a renderer or exporter draws ---- */
typedef enum { DRAPE_OBJ_CLOTH = 0, DRAPE_OBJ_ROPE = 1 } drape_obj_kind;

typedef struct drape_object_info {
  char name[DRAPE_NAME_MAX];
  drape_obj_kind kind;
  int first_particle, n_particles;
  int first_tri, n_tris;     /* into drape_mesh.tris (cloth; 0 for ropes)    */
  int first_line, n_lines;   /* into drape_mesh.lines (ropes; 0 for cloth)   */
  int rows, cols;            /* cloth grid size; rope: 1 x (segments+1)      */
  double thickness;          /* m                                            */
} drape_object_info;

typedef struct drape_mesh {
  int n_particles;
  int n_tris;                /* triangles, 3 global particle indices each    */
  const uint32_t *tris;      /* as built; torn ones: see read_triangles      */
  int n_lines;               /* rope links, 2 global particle indices each   */
  const uint32_t *lines;
  int n_objects;
  const drape_object_info *objects;
  int n_constraints, n_colours, tether_slots;
  /* Colour balance: the fewest and the most distance constraints one
   * colour has (a mesh cloth's edges are not among them: see below); the
   * mesh cloths' dihedral bending constraints (0 without mesh cloths),
   * and the colours of their edge units (each edge's stretch link with
   * the hinge across it, projected together), with their fewest and most
   * units. */
  int colour_min, colour_max;
  int n_bend_constraints, n_bend_colours, bend_colour_min, bend_colour_max;
} drape_mesh;

const drape_mesh *drape_sim_mesh(const drape_sim *sim);

/* ---- reading state (host arrays; blocking copies on OpenCL) ----
 * positions: n_particles x 4 floats (x, y, z m, inverse mass 1/kg);
 * normals: n_particles x 4 floats (unit normal, 0; 0 for rope nodes);
 * velocities: n_particles x 4 floats (m/s, 0). */
int drape_sim_read_positions(drape_sim *sim, float *xyzw, drape_err *e);
int drape_sim_read_normals(drape_sim *sim, float *xyz0, drape_err *e);
int drape_sim_read_velocities(drape_sim *sim, float *v, drape_err *e);
/* Current triangle list (torn triangles are degenerate: i0 i0 i0). */
int drape_sim_read_triangles(drape_sim *sim, uint32_t *tris, drape_err *e);
/* Overwrites velocities (tests, viewer tools); w is ignored. */
int drape_sim_write_velocities(drape_sim *sim, const float *v, drape_err *e);

/* Device buffers and the OpenCL runtime: <drape/drape_cl.h> (opt-in, so
 * that this header needs no OpenCL headers). */

/* ---- parameters a viewer edits live ---- */
typedef struct drape_sim_params {
  int substeps;              /* >= 1                                          */
  int iterations;            /* >= 1                                          */
  double gravity[3];         /* m/s^2                                         */
  double wind[3];            /* m/s air velocity                              */
  double wind_drag;          /* N s/m^3 (>= 0)                                */
  int wind_enabled;          /* 1 when the scene has wind; toggled freely     */
  int tearing_enabled;       /* objects with tear_ratio > 0 tear when 1       */
  int tethers_enabled;       /* long-range attachments of cloths that have them */
  int normals_enabled;       /* vertex normals after each frame (default 1)   */
  int fuse_stages;           /* 1 (default): tethers, collide, update and the
                                next predict run as one pass over the
                                particles where nothing in between needs
                                them apart; same bits either way, 0 times
                                each stage on its own (drape bench --fuse) */
} drape_sim_params;

void drape_sim_get_params(const drape_sim *sim, drape_sim_params *out);
/* The scene's limits (drape/limits.h): substeps, iterations, gravity, wind,
 * wind_drag as drape_scene_validate checks them, and the substep
 * h = dt / substeps >= DRAPE_H_MIN for the frame time dt (s). */
int drape_sim_params_validate(const drape_sim_params *p, double dt, drape_err *e);
/* Checks every field with drape_sim_params_validate (message names it, its
 * value and the allowed range). */
int drape_sim_set_params(drape_sim *sim, const drape_sim_params *p, drape_err *e);

typedef enum {
  DRAPE_COMPLIANCE_STRETCH = 0, /* cloth structural links, rope links       */
  DRAPE_COMPLIANCE_SHEAR = 1,
  DRAPE_COMPLIANCE_BEND = 2
} drape_compliance_kind;
/* object < 0: every object. Compliance in m/N: 0 or DRAPE_FLOAT_MIN ..
 * DRAPE_MAX_COMPLIANCE, with compliance / h^2 finite in float (as in a
 * scene). Torn stays torn. DRAPE_COMPLIANCE_BEND reaches a mesh cloth's
 * dihedral hinges too, in its unit 1/(N m) (compliance.bend of a mesh,
 * docs/scenes.md), each hinge taking its share as the builder gave it. */
int drape_sim_set_compliance(drape_sim *sim, int object, drape_compliance_kind kind,
                             double compliance, drape_err *e);
/* The material of an object built from one (docs/scenes.md "Material"):
 * drape_sim_get_material reads the one in use (DRAPE_EINVAL for an object
 * without a material); drape_sim_set_material replaces it, checked as the
 * scene's "material" key is, and derives every element's compliance again
 * from its rest geometry, as the builder does. The masses stay: density
 * must be the object's own. A cloth built with bend 0 has no hinges to
 * stiffen, and damping < 0 keeps the object's damping. */
int drape_sim_get_material(const drape_sim *sim, int object, drape_material_def *out);
int drape_sim_set_material(drape_sim *sim, int object, const drape_material_def *mat,
                           drape_err *e);
/* Damping rate in 1/s (0..DRAPE_MAX_DAMPING): v *= exp(-rate h) each substep. */
int drape_sim_set_damping(drape_sim *sim, int object, double rate, drape_err *e);

/* Spheres: move (centre m), resize (radius m, > 0), velocity (m/s).
 * NULL pointers leave a field unchanged; the result must pass
 * drape_sphere_def_validate. */
int drape_sim_n_spheres(const drape_sim *sim);
int drape_sim_get_sphere(const drape_sim *sim, int k, drape_sphere_def *out);
int drape_sim_set_sphere(drape_sim *sim, int k, const double center[3], const double *radius,
                         const double velocity[3], drape_err *e);

/* ---- grabs: hold a particle at a target the caller moves ----
 * The particle gets inverse mass 0 and follows the target linearly over
 * the substeps of each frame; on release it gets its mass back and keeps
 * the velocity of the last frame's motion. Returns a grab id >= 0. */
int drape_sim_grab(drape_sim *sim, int particle, const double target[3], int *grab_id,
                   drape_err *e);
int drape_sim_grab_move(drape_sim *sim, int grab_id, const double target[3], drape_err *e);
int drape_sim_grab_release(drape_sim *sim, int grab_id, drape_err *e);
/* The particle nearest to a ray (origin, unit dir) within max_dist of it,
 * from the last positions read back or stepped; -1 if none. */
int drape_sim_pick(drape_sim *sim, const double origin[3], const double dir[3], double max_dist,
                   int *particle, drape_err *e);

/* ---- capsules and mesh colliders (drape/collider.h) ----
 * Their geometry at the sim's current time (drape_sim_time), keys applied:
 * a capsule's ends and radius; a mesh collider's vertex and triangle counts
 * and, where the arrays are not NULL, its vertices (3 floats each, m) and
 * triangles (3 vertex indices each, outward for a closed mesh). A bad index
 * is DRAPE_EINVAL. */
int drape_sim_n_capsules(const drape_sim *sim);
int drape_sim_get_capsule(const drape_sim *sim, int k, double a[3], double b[3], double *radius);
int drape_sim_n_collider_meshes(const drape_sim *sim);
int drape_sim_collider_mesh(const drape_sim *sim, int k, int *n_vertices, int *n_tris, float *v,
                            uint32_t *tris);
/* A capsule (axis a to b, radius r) as a closed triangle surface: `seg`
 * points round (>= 3), `cap` rings per end cap (>= 1), two poles; the OBJ
 * writer below and the renderer draw capsules with it. Writes
 * DRAPE_CAPSULE_VERTICES(seg, cap) points to xyz, `stride` floats apart
 * (NULL: none), and DRAPE_CAPSULE_TRIS(seg, cap) triangles to tris as
 * indices from v0, wound outward (NULL: none). */
#define DRAPE_CAPSULE_VERTICES(seg, cap) (2 * (cap) * (seg) + 2)
#define DRAPE_CAPSULE_TRIS(seg, cap) (2 * (seg) + 2 * (2 * (cap) - 1) * (seg))
void drape_capsule_surface(const double a[3], const double b[3], double r, int seg, int cap,
                           float *xyz, int stride, uint32_t *tris, uint32_t v0);
/* Writes them as an OBJ file (temporary name, then renamed): one `o` per
 * capsule ("capsule<k>", a closed triangulated surface) and per mesh
 * collider ("collider<k>"), at the sim's time. */
int drape_sim_write_colliders_obj(drape_sim *sim, const char *path, drape_err *e);
/* Moves capsule k by `offset` (m, from where its keys put it): the capsule
 * goes there over the next frame, swept (the continuous test sees the
 * motion, so a drag cannot jump over the cloth); the viewer's Shift-drag.
 * drape_sim_capsule_offset reads the offset set last. */
int drape_sim_move_capsule(drape_sim *sim, int k, const double offset[3], drape_err *e);
int drape_sim_capsule_offset(const drape_sim *sim, int k, double offset[3]);
/* The same for mesh collider k: `offset` (m) on top of its keys and
 * sequence, reached over the next frame and swept (a static mesh is then
 * tested as a moving one); drape_sim_collider_mesh reads it moved. Refused
 * (DRAPE_EINVAL): no such collider, a component not finite or beyond
 * DRAPE_MAX_COORD. drape_sim_collider_offset reads the offset set last. */
int drape_sim_move_collider(drape_sim *sim, int k, const double offset[3], drape_err *e);
int drape_sim_collider_offset(const drape_sim *sim, int k, double offset[3]);

/* ---- timings and statistics ---- */
typedef enum {
  DRAPE_STAGE_WIND = 0,
  DRAPE_STAGE_PREDICT,
  DRAPE_STAGE_DRIVE,
  DRAPE_STAGE_SELF_COLLISION, /* spatial hashes + collision passes (runs
                                 after the projections; docs/solver.md) */
  DRAPE_STAGE_PROJECT,
  DRAPE_STAGE_TETHERS,
  DRAPE_STAGE_COLLIDE,
  DRAPE_STAGE_UPDATE,
  DRAPE_STAGE_FUSED,          /* tethers ▸ collide ▸ update ▸ next predict in
                                 one pass (drape_sim_params.fuse_stages)  */
  DRAPE_STAGE_TEAR,
  DRAPE_STAGE_NORMALS,
  /* the seeds' other solvers (drape_solver_kind), each stage by what it does */
  DRAPE_STAGE_VERLET,         /* jakobsen: position Verlet step (its predict) */
  DRAPE_STAGE_SPRINGS_FORCES, /* springs: spring and damping forces, new v   */
  DRAPE_STAGE_SPRINGS_ADVANCE,/* springs: x += h v (symplectic Euler)        */
  DRAPE_STAGE_COLLIDERS,      /* capsules and mesh colliders (drape/collider.h),
                                 with the refit of their trees             */
  DRAPE_STAGE_WARM_START,     /* scenes with a material: the multipliers of
                                 the last substep applied first (its
                                 projections count under project)          */
  DRAPE_STAGE_MULTILEVEL,     /* material grids: the coarse levels' sweeps,
                                 prolongations and multipliers           */
  DRAPE_STAGE_COUNT
} drape_stage;

const char *drape_stage_name(drape_stage s); /* "predict", "project", ... */

/* Parts of the self-collision stage, timed separately (drape_timings). */
typedef enum {
  DRAPE_SELFCOL_CLAMP = 0,        /* velocity clamp                         */
  DRAPE_SELFCOL_HASH_PARTICLES,   /* particle hash (count, scan, scatter, sort) */
  DRAPE_SELFCOL_PARTICLES,        /* particle-particle pass                 */
  DRAPE_SELFCOL_HASH_TRIANGLES,   /* triangle hash                          */
  DRAPE_SELFCOL_VERTEX_TRIANGLE,  /* vertex-triangle pass and its gather    */
  DRAPE_SELFCOL_BOUND,            /* step bounds (hash on the substep's start,
                                     distances, final clamp; issue 18)     */
  DRAPE_SELFCOL_PART_COUNT
} drape_selfcol_part;
const char *drape_selfcol_part_name(drape_selfcol_part p); /* "hash_particles", ... */

/* Colours whose projection time drape_timings keeps apart. */
#define DRAPE_TIMING_COLOURS 64

typedef struct drape_timings {
  double ms[DRAPE_STAGE_COUNT]; /* last frame; OpenCL: device time from event
                                   profiling (0 when profiling is off);
                                   CPU: wall clock per stage               */
  double ms_frame;              /* wall clock of the last drape_sim_step    */
  int stage_times_valid;        /* 1 when ms[] was measured                 */
  uint64_t bytes_to_device;     /* host->device bytes in the last frame     */
  uint64_t bytes_from_device;   /* device->host bytes in the last frame      */
  uint64_t launches;            /* kernel launches (or CPU stage calls) in it */
  uint64_t projections;         /* constraint projections in it             */
  uint64_t device_bytes;        /* memory held in device buffers            */
  int n_colours;                /* colours of the model                     */
  double colour_ms[DRAPE_TIMING_COLOURS]; /* project time per colour in the
                                   last frame (summed over substeps and
                                   iterations; same source as ms[])         */
  double selfcol_ms[DRAPE_SELFCOL_PART_COUNT]; /* the self-collision stage
                                   by part, last frame (same source)        */
  /* The vertex-triangle pass since the sim was made (OpenCL; 0 on the CPU
   * backend, which rebuilds the hash every substep): builds of the contact
   * lists kept across substeps, passes run on them, passes run on the
   * per-substep hash (docs/selfcollision.md, "Contact lists"). */
  uint64_t selfcol_list_builds, selfcol_list_passes, selfcol_hash_passes;
} drape_timings;

void drape_sim_timings(const drape_sim *sim, drape_timings *out);

/* Strain of a stretch link (cloth structural link, rope link) is
 * e = |x_a - x_b| / rest - 1: positive when stretched, negative when
 * compressed (a buckled cloth shortens its links). */
typedef struct drape_object_stats {
  double max_strain;      /* max e over the object's stretch links          */
  double mean_strain;     /* mean of max(e, 0): the mean stretch            */
  double mean_abs_strain; /* mean of |e|: stretch and compression           */
  double min_strain;      /* min e (the most compressed link)               */
  int torn;               /* constraints of this object torn so far         */
  double lowest;          /* m: the lowest y of its particles               */
  double covered_area;    /* m^2: its shadow on the horizontal (x-z) plane,
                             folds counted once (cloths; 0 for ropes): the
                             footprint of a drape                         */
  double drape_coefficient; /* a cloth with drape_disk_radius r (scene.h):
                             the Cusick drape coefficient of ISO 9073-9,
                             (A_s - A_d) / (A_0 - A_d) with A_s its
                             covered_area, A_d = pi r^2 the support disk's
                             area and A_0 its flat (rest) area; 1 for a
                             specimen that stays flat, towards 0 for one
                             that hangs straight down from the disk's rim
                             (docs/solver.md "The Cusick drape test").
                             NAN for other objects                        */
  double elastic_energy;  /* J stored in its springs, sum of k/2 (|x_a - x_b|
                             - rest)^2 (the springs solver, seed 001); 0
                             where constraints, not springs, hold it      */
  double residual;        /* strain: RMS of XPBD's constraint residual
                             C(x) + alpha/h^2 lambda over its stretch
                             constraints (membranes' warp and weft,
                             stretch and rope links over rest) after the
                             frame's last substep; 0 when that substep's
                             last sweep solved the implicit step exactly
                             (docs/solver.md "Residual"); NAN for the
                             springs solver, which solves no constraint  */
} drape_object_stats;

typedef struct drape_stats {
  int frame;
  double time;                  /* s                                        */
  double kinetic_energy;        /* J, free particles                        */
  double min_sphere_clearance;  /* m: min |x-c| - radius over particles and
                                   spheres (INFINITY without spheres)       */
  double min_floor_clearance;   /* m: min y - floor (INFINITY without floor) */
  int n_objects;
  drape_object_stats *objects;  /* owned by the sim, valid until the next call */
  double max_drive_lag;         /* m: the largest distance of a driven
                                   particle (pin path, grab) from where it is
                                   driven at the frame's end; > 0 only where
                                   self-collision step bounds held it back
                                   (docs/selfcollision.md); 0 without any  */
} drape_stats;

/* Reads positions, velocities and the constraints' multipliers back
 * (counted as device->host bytes) and computes the statistics in double
 * precision. DRAPE_EUNSTABLE when a position is not finite. */
int drape_sim_stats(drape_sim *sim, drape_stats *out, drape_err *e);

/* Crossings (issue 18, docs/selfcollision.md): how many (edge, triangle)
 * pairs of the cloths and ropes, sharing no particle, have the edge
 * passing through the triangle's interior, counted exactly (exact
 * orientation signs; touching is not a crossing). Edges are the cloth
 * triangles' edges and the rope links; triangles of every cloth, so one
 * cloth through another counts too. A cloth that starts flat and never
 * intersects itself has 0. Reads the positions back (once a frame, shared
 * with stats). DRAPE_EUNSTABLE on a non-finite position. */
int drape_sim_count_crossings(drape_sim *sim, long *count, drape_err *e);

/* Writes an OBJ file: one `o` per object, `v` lines (m, %.9g), `f` for
 * cloth triangles (torn ones left out), one `l a b` per rope link. The file
 * is written to a temporary name and renamed, so it is never half-written. */
int drape_sim_write_obj(drape_sim *sim, const char *path, drape_err *e);

#ifdef __cplusplus
}
#endif
#endif
