/* drape — scene definitions (SI units, y up).
 *
 * A scene is what a JSON scene file describes (docs/scenes.md lists every
 * key). Each struct is a plain definition with documented defaults, filled
 * either by drape_scene_load() from JSON or by code (tests, benchmarks)
 * starting from drape_*_def_default(). Building particles and constraints
 * from a definition is the solver's job (drape/cloth.h), not the parser's.
 * Only simulation lives here: the scene file's "camera" and "render" keys
 * and the objects' colours (presentation) fill a drape_render_def
 * (drape/render_def.h). */
#ifndef DRAPE_SCENE_H
#define DRAPE_SCENE_H

#include "drape/base.h"
#include "drape/collider.h"
#include "drape/limits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DRAPE_NAME_MAX 64

typedef enum { DRAPE_PLANE_XZ = 0, DRAPE_PLANE_XY = 1, DRAPE_PLANE_YZ = 2 } drape_plane;
typedef enum {
  DRAPE_SOLVER_XPBD = 0,     /* default: XPBD small steps                    */
  DRAPE_SOLVER_JAKOBSEN = 1, /* seeds 002/004: Verlet + full projections     */
  DRAPE_SOLVER_SPRINGS = 2,  /* seed 001: explicit mass-springs              */
  DRAPE_SOLVER_IMPLICIT = 3  /* seed 003: implicit cable (ropes only, CPU)   */
} drape_solver_kind;
typedef enum {
  DRAPE_SELF_VERTEX_TRIANGLE = 0, /* default for cloth                        */
  DRAPE_SELF_PARTICLE = 1         /* particle-particle only (faster)         */
} drape_self_mode;
/* Where a rope's nodes start (docs/scenes.md "Rope", start shape). */
typedef enum {
  DRAPE_ROPE_START_AUTO = 0,    /* default: a shape the rope can have, every
                                   link at its rest length (catenary, or
                                   straight at full length from the pin)    */
  DRAPE_ROPE_START_STRAIGHT = 1 /* evenly spaced from start to end, as given
                                   (links compressed when length > span:
                                   warned on stderr)                        */
} drape_rope_start;

/* A material in SI units (docs/scenes.md "Material"): what a fabric or a
 * cord is, independent of the mesh that discretises it. The solver turns
 * it into per-element compliances from the element geometry
 * (docs/solver.md "Materials"), so the same material behaves the same at
 * any spacing and on any triangulation. `set` = 0 (the default) means the
 * object uses its per-constraint compliance keys instead.
 * Cloth: warp runs along a grid's rows (+U, increasing col) or along the
 * mesh's UV u direction; a mesh without UVs is isotropic (warp = weft).
 * Rope: density kg/m, stretch[0] = EA in N, bend[0] = EI in N m^2. */
typedef struct drape_material_def {
  int set;                         /* 1: the object is built from this      */
  char preset[DRAPE_NAME_MAX];     /* preset it started from, "" for none   */
  double density;                  /* kg/m^2 (cloth), kg/m (rope), > 0      */
  double stretch[2];               /* cloth: N/m along warp, weft (> 0): the
                                      force per unit width per unit strain of
                                      a strip pulled along that direction;
                                      rope: EA in N in [0]                 */
  double shear;                    /* cloth: in-plane shear stiffness N/m   */
  double bend[2];                  /* cloth: N m bending rigidity per unit
                                      width, bending the warp, the weft;
                                      rope: EI in N m^2 in [0]            */
  double damping;                  /* 1/s velocity damping rate; < 0: the
                                      object's own damping key applies     */
} drape_material_def;

/* The named presets (docs/scenes.md "Material presets" cites each source):
 * a preset's material with set = 1, or NULL for an unknown name. */
const drape_material_def *drape_material_preset(const char *name);
/* Preset k (0 .. drape_material_preset_count() - 1), NULL past the end. */
const drape_material_def *drape_material_preset_at(int k);
int drape_material_preset_count(void);

/* A pin that follows a scripted path: keyframes (t, x, y, z), linearly
 * interpolated, held at the last one. */
typedef struct drape_pin_path {
  int row, col;          /* grid index of the pinned particle             */
  int vertex;            /* mesh cloths: the vertex instead (index after
                            welding, docs/scenes.md "Mesh cloth")         */
  int n_keys;
  double (*keys)[4];     /* n_keys x (t s, x m, y m, z m), owned          */
} drape_pin_path;

/* A cloth made from a triangle mesh file (docs/scenes.md "Mesh cloth"),
 * read through Assimp (OBJ, glTF 2.0, PLY, STL, FBX). The file's vertices
 * are rotated about x, then y, then z (rotate_deg), scaled, translated, and
 * welded: vertices at most `weld` m apart (after the transform) become one.
 * They are then numbered in the order the file's triangles first use them
 * (the file's own order for an OBJ written that way, as
 * scripts/make_meshes.py does), and that numbering is what pin_vertices,
 * pin_paths' "vertex", stitches and every output use. Triangles of zero
 * area are dropped (with a warning giving their count).
 * Texture coordinates belong to triangle corners, not to vertices: where
 * the file has a UV seam (one position with a different UV on each side)
 * welding joins the position, and each corner keeps its own UV (tri_uv),
 * which the OBJ writers give back (`f v/vt`).
 * drape_cloth_mesh_load() fills the arrays below from `file`; a def built in
 * code may fill them directly instead (file NULL). */
typedef struct drape_cloth_mesh {
  char *file;                      /* path as written in the scene, owned     */
  double scale;                    /* > 0, default 1                          */
  double translate[3];             /* m, default 0                            */
  double rotate_deg[3];            /* degrees about x, y, z, default 0        */
  double weld;                     /* m (>= 0), default 1e-6                  */
  /* the loaded mesh (owned): */
  int n_vertices;
  double *vertices;                /* 3 per vertex, m, transformed, welded    */
  float *uv;                       /* 2 per vertex, or NULL (no UVs): the UV
                                      of the vertex's first corner in the
                                      file (one side of a seam only)         */
  int n_tris;
  int *tris;                       /* 3 vertex indices per triangle           */
  float *tri_uv;                   /* 6 per triangle, or NULL: (u, v) of each
                                      corner as the file gives it; what the
                                      OBJ writers write. Without it (a def
                                      built in code) they write uv per corner */
} drape_cloth_mesh;

typedef struct drape_cloth_def {
  char name[DRAPE_NAME_MAX];       /* default "cloth<i>"                      */
  int cols, rows;                  /* grid size in particles (>= 2 each)      */
  double spacing;                  /* m between neighbours (> 0)              */
  double origin[3];                /* m, position of particle (row 0, col 0)  */
  drape_plane plane;               /* "xz" (default), "xy", "yz": particle
                                      (r, c) = origin + c*spacing*U + r*spacing*V
                                      with xz: U=+x V=+z; xy: U=+x V=-y;
                                      yz: U=+z V=-y (docs/scenes.md)        */
  double mass_per_area;            /* kg/m^2 (> 0), default 0.2               */
  double compliance_stretch;       /* m/N (>= 0), default 0                   */
  double compliance_shear;         /* m/N, default 1e-6                       */
  double compliance_bend;          /* m/N, default 1e-3                       */
  double damping;                  /* 1/s: v *= exp(-damping h), default 0.01 */
  double thickness;                /* m collision margin (> 0), default 0.01  */
  int self_collision;              /* default 0                               */
  double self_friction;            /* Coulomb mu between sheets, default 0.2  */
  drape_self_mode self_mode;       /* default vertex-triangle                 */
  double velocity[3];              /* m/s every free particle starts with
                                      (pins and paths: 0), default 0        */
  int self_collision_bounds;       /* issue 18's step bounds (vertex-triangle
                                      mode): no crossing can appear within a
                                      substep, at several times the stage's
                                      cost; default 0 (docs/selfcollision.md) */
  int tethers;                     /* long-range attachments, default 1       */
  double tear_ratio;               /* break above ratio*rest; 0 = off (default)*/
  drape_solver_kind solver;        /* xpbd (default), jakobsen, springs       */
  double stiffness;                /* springs solver: N/m, default 5000       */
  double spring_damping;           /* springs solver: N s/m, default 10       */
  double bend_stiffness;           /* springs solver: N/m of the bend springs;
                                      0 (default) = none, as in seed 001      */
  double particle_mass;            /* kg per particle; > 0 replaces the
                                      mass_per_area share (seed 001: 0.5);
                                      0 (default) = from mass_per_area        */
  int n_pins;
  int (*pins)[2];                  /* [row, col] pairs, owned                 */
  int n_pin_paths;
  drape_pin_path *pin_paths;       /* owned                                   */
  /* A mesh cloth (has_mesh = 1) instead of the grid: cols, rows, spacing,
   * origin, plane and pins do not apply; compliance_shear neither (a mesh
   * has no shear family: warned when a scene file gives it). */
  int has_mesh;
  drape_cloth_mesh mesh;
  int n_pin_vertices;
  int *pin_vertices;               /* vertex indices (after welding), owned   */
  int has_pin_box;
  double pin_box[2][3];            /* m: every vertex inside (bounds included)
                                      of the box [lo, hi] at the start is pinned */
  drape_material_def material;     /* material.set = 1: built from it (then
                                      mass_per_area = material.density and
                                      the compliance keys do not apply)      */
  double drape_disk_radius;        /* m: the cloth is the specimen of a Cusick
                                      drape test (ISO 9073-9) on a support
                                      disk of this radius, and its stats
                                      report the drape coefficient
                                      (drape_object_stats); 0 (default) = no
                                      test. Else > 0 and below the radius of
                                      a circle of the cloth's rest area     */
} drape_cloth_def;

/* Sews two cloths (or one cloth to itself) along matching vertex lists:
 * vertex a_vertices[i] of cloth `a` to b_vertices[i] of cloth `b` by an XPBD
 * distance constraint whose rest length shrinks linearly from the starting
 * distance to 0 over close_time seconds (docs/scenes.md "Stitches"). Indices
 * are mesh vertices (after welding) or, for grid cloths, row * cols + col. */
typedef struct drape_stitch_def {
  char a[DRAPE_NAME_MAX], b[DRAPE_NAME_MAX]; /* cloth names                  */
  int n;                           /* pairs                                   */
  int *a_vertices, *b_vertices;    /* n each, owned                           */
  double compliance;               /* m/N (>= 0), default 0                   */
  double close_time;               /* s (>= 0), default 0.5                   */
} drape_stitch_def;

typedef struct drape_rope_def {
  char name[DRAPE_NAME_MAX];
  int segments;                    /* links (>= 1), default 40                */
  double start[3], end[3];         /* m, the ends (start_shape says how the
                                      nodes are laid between them)            */
  double length;                   /* m rest length of the whole rope (> 0)   */
  double mass_per_length;          /* kg/m (> 0), default 0.1                 */
  double compliance;               /* m/N (>= 0), default 0                   */
  double damping;                  /* 1/s, default 0.01                       */
  double thickness;                /* m, default 0.01                         */
  int pin_start, pin_end;          /* default 1, 0                            */
  drape_rope_start start_shape;    /* default auto                            */
  int n_points;                    /* 0, or segments + 1: points gives where
                                      every node starts (start, end and
                                      start_shape then lay nothing)         */
  double (*points)[3];             /* m, owned                                */
  int tension_only;                /* default 1: a link shorter than its rest
                                      length pushes nothing (xpbd, jakobsen;
                                      implicit ropes ignore it)               */
  drape_solver_kind solver;        /* xpbd (default), jakobsen, implicit      */
  double ym;                       /* implicit solver: k = ym/l0^2 (seed 003) */
  drape_material_def material;     /* material.set = 1: built from it (then
                                      mass_per_length = material.density)   */
} drape_rope_def;

/* The seed 000 string, simulated on the CPU in the plane z = z. */
typedef struct drape_string_def {
  char name[DRAPE_NAME_MAX];
  int nodes;                       /* links N (>= 2), default 80              */
  double length;                   /* L0 m, default 4                         */
  double mu;                       /* kg/m, default 0.02                      */
  double EA;                       /* N, default 100                          */
  double etaA;                     /* N s, default 30                         */
  double B;                        /* N m^2, default 1e-4                     */
  double D;                        /* N m^2 s, default 1e-5                   */
  double h;                        /* s nominal tick, default 1e-4            */
  double anchor[2];                /* m fixed end, default (-1.6, 2.6)        */
  double z;                        /* m plane, default 0                      */
  int n_hand;
  double (*hand)[3];               /* (t s, x m, y m) targets, owned          */
  double release_at;               /* s; < 0 never, default -1 (or from hand) */
} drape_string_def;

typedef struct drape_sphere_def {
  double center[3];                /* m                                       */
  double radius;                   /* m (> 0)                                 */
  double velocity[3];              /* m/s, default 0 (static)                 */
  double friction;                 /* Coulomb mu (>= 0), default 0.3          */
} drape_sphere_def;

typedef struct drape_scene {
  double gravity[3];               /* m/s^2, default (0, -9.81, 0)            */
  double dt;                       /* s per frame (> 0), default 1/60         */
  int substeps;                    /* >= 1, default 20                        */
  int iterations;                  /* >= 1, default 1                         */
  int warm_start;                  /* 1: constraint multipliers are kept across
                                      substeps and applied first each substep
                                      (docs/solver.md "Warm start"): exact
                                      static equilibrium at any size, stable
                                      while every element's w h^2 / alpha is at
                                      most 1.5 (checked at create);      
                                      default 0                               */
  int multilevel;                  /* 1: material grid cloths are solved on
                                      coarser levels first each substep
                                      (docs/solver.md "Multilevel"); no
                                      effect under warm_start; default 1    */
  double wind[3];                  /* m/s air velocity, default 0             */
  double wind_drag;                /* N s/m^3 per area (air density-ish), 1.2 */
  int has_floor;
  double floor_height, floor_friction; /* m, mu; defaults 0, 0.5            */
  int n_cloth, n_rope, n_string, n_sphere;
  drape_cloth_def *cloth;
  drape_rope_def *rope;
  drape_string_def *string;
  drape_sphere_def *sphere;
  int n_stitch;
  drape_stitch_def *stitch;
  int frames;                      /* default frame count for run, 0 = unset  */
  int n_capsule, n_collider;       /* drape/collider.h                        */
  drape_capsule_def *capsule;      /* owned                                   */
  drape_collider_def *collider;    /* owned, meshes loaded                    */
} drape_scene;

drape_cloth_def drape_cloth_def_default(void);
drape_rope_def drape_rope_def_default(void);
drape_string_def drape_string_def_default(void);
drape_sphere_def drape_sphere_def_default(void);
drape_stitch_def drape_stitch_def_default(void);
void drape_scene_init(drape_scene *s); /* defaults, no objects */

/* Limits: every range and float limit the checks below apply is a named
 * constant of drape/limits.h (docs/scenes.md "Limits" lists them). The
 * solver keeps its state in float (kernels/drape_types.h), so the checks
 * also hold the values it derives, after conversion, to the float limits
 * there (docs/scenes.md "Float limits", issue 13). */

/* Loads and validates a JSON scene. On error, e->msg names the key path
 * (e.g. "cloth[0].grid.spacing"), the value and what is allowed, and the
 * code is DRAPE_EINVAL (also for a missing file). `out` is initialised
 * here (previous content is not freed); on error it is left empty, so
 * drape_scene_free() is needed only after success (and harmless after an
 * error). `label` (may be NULL) prefixes messages, e.g. the file name.
 * The text must be strict JSON (RFC 8259: no BOM, no leading zeros, ...);
 * the loader reads regular files only and never blocks on a FIFO. The
 * "camera" and "render" keys are checked as drape_render_def_parse checks
 * them (a bad camera fails here too) but not kept in `out`. */
int drape_scene_load(const char *path, drape_scene *out, drape_err *e);
/* Mesh files ("mesh": {"file": ...}) are read relative to the scene file's
 * folder by drape_scene_load, and relative to the working directory by
 * drape_scene_parse (the text has no folder; absolute paths work in both).
 * drape_scene_parse_in reads them relative to `base_dir` (NULL: the working
 * directory). */
int drape_scene_parse(const char *json_text, const char *label, drape_scene *out, drape_err *e);
int drape_scene_parse_in(const char *json_text, const char *label, const char *base_dir,
                         drape_scene *out, drape_err *e);
/* Reads d->mesh.file (relative to base_dir unless absolute; base_dir NULL:
 * the working directory) through Assimp, transforms and welds it, drops
 * zero-area triangles (warning on stderr with their count) and fills
 * d->mesh's arrays (freeing previous ones). Errors (DRAPE_EINVAL) name
 * cloth[index].mesh.file: unreadable file, no triangles, a coordinate that
 * is NaN or infinite, more vertices than DRAPE_MAX_PARTICLES. */
int drape_cloth_mesh_load(drape_cloth_def *d, int index, const char *base_dir, drape_err *e);
/* Frees what a cloth def owns (pins, paths, mesh) and zeroes those fields. */
void drape_cloth_def_free(drape_cloth_def *d);
/* Validates a scene built in code: the same checks the loader makes, the
 * ones drape_sim_create and drape_world_create make. It runs the validator
 * of each def below (with `index` its position in the scene's array), then
 * checks what involves several of them: compliance against the substep
 * h = dt / substeps (alpha / h^2 must fit in a float), the self-collision
 * hash cell against every colliding object's spacing, unique names. */
int drape_scene_validate(const drape_scene *s, drape_err *e);

/* One validator per def, for defs built in code. Each checks every field
 * against drape/limits.h and returns 0 or DRAPE_EINVAL with a message that
 * names the key path as a scene file spells it ("cloth[3].thickness"; the
 * index is only used in the path), the value (printed so that it reads
 * back as itself) and the allowed range, the same text the loader gives. */
int drape_cloth_def_validate(const drape_cloth_def *d, int index, drape_err *e);
int drape_rope_def_validate(const drape_rope_def *d, int index, drape_err *e);
int drape_string_def_validate(const drape_string_def *d, int index, drape_err *e);
int drape_sphere_def_validate(const drape_sphere_def *d, int index, drape_err *e);
/* A stitch on its own (counts, indices >= 0, compliance, close_time); the
 * cloth names and index ranges are checked by drape_scene_validate. */
int drape_stitch_def_validate(const drape_stitch_def *d, int index, drape_err *e);

/* "xpbd", "jakobsen", "springs", "implicit" (the scene file's spelling);
 * "?" for a value that is not a drape_solver_kind. */
const char *drape_solver_name(drape_solver_kind k);
/* The shortest of %.15g / %.17g that reads back as v ("nan", "inf" too):
 * messages print numbers so that the value shown is the value used. */
void drape_fmt_double(char *buf, size_t cap, double v);

/* Adds objects (the arrays grow; the def is copied, owned arrays moved). */
drape_cloth_def *drape_scene_add_cloth(drape_scene *s, const drape_cloth_def *d);
drape_rope_def *drape_scene_add_rope(drape_scene *s, const drape_rope_def *d);
drape_string_def *drape_scene_add_string(drape_scene *s, const drape_string_def *d);
drape_sphere_def *drape_scene_add_sphere(drape_scene *s, const drape_sphere_def *d);
drape_stitch_def *drape_scene_add_stitch(drape_scene *s, const drape_stitch_def *d);

/* Frees the arrays a scene owns (its objects and their keyframes) and
 * zeroes it. Named _free, not _destroy, on purpose: a drape_scene is a
 * plain struct the caller owns (on the stack, or inside another struct),
 * not an object made by a create, so nothing frees `s` itself. Every object
 * follows drape_X_create(def, &out, e) / drape_X_destroy(x). NULL is fine. */
void drape_scene_free(drape_scene *s);

#ifdef __cplusplus
}
#endif
#endif
