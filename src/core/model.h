/* The solver's model: particles, constraints sorted by colour, triangles,
 * rope lines, tethers and per-object data, built from a scene (model.c).
 * Both backends upload or copy exactly these arrays. */
#ifndef DRAPE_CORE_MODEL_H
#define DRAPE_CORE_MODEL_H

#include "drape/cloth.h"
#include "drape/scene.h"
#include "drape_types.h"

/* A stitch (drape_stitch_def): a distance constraint whose rest length
 * the sim shrinks each frame (sim.c). Host only: to the kernels it is a
 * tension-only link (negative rest, drape_types.h). */
#define DR_C_STITCH 5
/* The edges of a material cloth: measured (strain, tearing off), never
 * projected; its membrane triangles carry the stretch. */
#define DR_C_MEASURE 6

/* Most pins one particle is tethered to (the nearest ones along the cloth). */
#define DRAPE_TETHER_MAX_SLOTS 4

/* A pinned particle that follows keyframes (t, x, y, z), linear between
 * them, held before the first and after the last. */
typedef struct dr_model_path {
  int particle;
  int n_keys;
  double (*keys)[4];
} dr_model_path;

typedef struct dr_model {
  int n_particles;
  dr_float4 *x0;            /* initial position, inverse mass (0 = pinned)  */
  float *mass;              /* kg, also for pinned particles                */
  int *obj;                 /* object of each particle                      */

  int n_cons;
  dr_distance *cons;        /* sorted by colour                             */
  unsigned char *cons_type; /* DR_C_* of each (sorted) constraint            */
  int *cons_obj;            /* object of each (sorted) constraint            */
  int n_colours;
  int *colour_off;          /* n_colours + 2: colour k is [off[k], off[k+1]);
                               [off[n_colours], n_cons) are the edges of
                               mesh cloths, projected by their edge units  */

  int n_bend;               /* edge units of mesh cloths: each edge's stretch
                               link and, on an edge of two triangles, its
                               dihedral hinge (c >= 0)                      */
  int n_hinges;             /* units with a hinge: bending constraints      */
  dr_dihedral *bend;        /* sorted by colour (kernels/dihedral.cl)        */
  int *bend_obj;            /* object of each (sorted) one                   */
  int n_bend_colours;
  int *bend_colour_off;     /* n_bend_colours + 1                            */

  /* Material cloths (docs/solver.md "Materials"): membrane triangles and
   * hinges of their own, each family coloured apart (no two items of a
   * colour share a particle), projected with multipliers kept across
   * substeps and warm-started (kernels/membrane.cl). */
  int n_memb;
  dr_membrane *memb;        /* sorted by colour                             */
  int *memb_obj;
  int n_memb_colours;
  int *memb_colour_off;     /* n_memb_colours + 1                           */
  int n_mhinge;
  dr_dihedral *mhinge;      /* sorted by colour; edge -1 (no link)          */
  int *mhinge_obj;
  int n_mhinge_colours;
  int *mhinge_colour_off;   /* n_mhinge_colours + 1                         */
  /* Ropes with a material bend (kernels/membrane.cl, "Rope bending"):
   * one item per interior node, coloured (no two of a colour share a
   * node). */
  int n_rbend;
  dr_rod_bend *rbend;       /* sorted by colour                             */
  int *rbend_obj;
  int n_rbend_colours;
  int *rbend_colour_off;    /* n_rbend_colours + 1                          */
  unsigned char *obj_material; /* per object: 1 when built from a material */
  drape_material_def *obj_mat;  /* per object: that material               */
  /* What an edit of the material needs (drape_sim_set_material), in build
   * order (a membrane's pad and a material hinge's edge hold its slot): a
   * membrane's rest area (m^2), a hinge's K = B_warp kw + B_weft kf. */
  double *memb_area, *mhinge_kw, *mhinge_kf;
  /* Multilevel material grids (src/core/multilevel.c, docs/solver.md
   * "Multilevel"): levels 1..n_levels, each a coarser triangulation of the
   * same fabric over a subset of the particles. Level l's membranes are
   * the colours [level_colour[l - 1], level_colour[l]) of memb_colour_off
   * (level_colour[0] = n_memb_colours: the fine ones come first); its
   * prolongation (to the particles of level l - 1 that are not in level l)
   * is prolong[prolong_off[l - 1] .. prolong_off[l]). memb_up[k]: where
   * membrane k's multipliers start, a share of its parent's one level up
   * (parent -1: none, they start at 0). */
  int n_levels;
  int *level_colour;        /* n_levels + 1                                 */
  int n_prolong;
  dr_prolong *prolong;
  int *prolong_off;         /* n_levels + 1                                 */
  dr_memb_up *memb_up;      /* n_memb (NULL without levels)                 */
  int warm;                 /* 1: every multiplier is kept across substeps
                               and warm-started (drape_scene.warm_start)   */
  double warm_k;            /* the stiffest element's sum_i w_i |g_i|^2 /
                               alpha (1/s^2): warm start is stable while
                               warm_k h^2 <= DRAPE_WARM_START_MAX_RATIO   */
  int warm_k_obj;           /* its object, for messages                     */

  int n_tris;
  dr_uint *tris;            /* 3 per triangle                               */
  int *tri_edge;            /* 3 sorted-constraint indices per triangle     */
  int *vt_off, *vt_list;    /* vertex -> triangles (n_particles + 1, 3 n_tris) */
  int n_lines;
  dr_uint *lines;           /* 2 per rope link                              */

  int tether_slots;         /* K pins per particle (0: no tethers)          */
  int *tether_pin;          /* n_particles * K, -1 = unused                 */
  float *tether_rest;       /* m, rest distance along the cloth             */
  int n_tethers;            /* used slots                                   */

  int n_objects;
  drape_object_info *info;
  dr_object *mat;           /* damping is filled by the sim (depends on h)  */
  double *damping_rate;     /* 1/s per object                               */
  int *strain_off;          /* n_objects + 1 ranges into strain_idx         */
  int *strain_idx;          /* sorted indices of stretch/rope links         */

  int n_paths;
  dr_model_path *paths;

  int n_stitch;             /* stitch constraints (all seams)               */
  int *stitch_con;          /* their (sorted) constraint indices            */
  float *stitch_rest0;      /* m, starting distance                          */
  double *stitch_close;     /* s, close_time of each                          */

  /* Mesh cloths may sit in the arrays above in another order than the
   * loader's numbering (model.c, "vertex order"): perm[u] is the particle
   * of user slot u = first_particle + the loader's vertex number, iperm
   * its inverse; both NULL when every particle is in its user slot. */
  int *perm, *iperm;
} dr_model;

int dr_model_build(const drape_scene *s, dr_model *m, drape_err *e);
/* The particle in user slot u (first_particle + the loader's vertex
 * number for a mesh cloth, the index itself for anything else), and the
 * user slot of particle p. */
/* A hinge's compliance from a cloth's compliance.bend (1/(N m)) and the
 * hinge's weight (dr_dihedral.weight): the builder and a later edit
 * (drape_sim_set_compliance) compute it alike. */
static inline float dr_hinge_compliance(double compliance_bend, float weight) {
  return (float)(compliance_bend * (double)weight);
}
static inline int dr_model_particle(const dr_model *m, int u) { return m->perm ? m->perm[u] : u; }
static inline int dr_model_slot(const dr_model *m, int p) { return m->iperm ? m->iperm[p] : p; }
void dr_model_free(dr_model *m);
/* warm_start (docs/solver.md "Warm start") is stable while every element's
 * w h^2 / alpha (its inverse mass over compliance, times the substep
 * squared) is at most this; measured on a hanging chain: stable at 1.07,
 * diverging at 1.42, and the check takes the stiffest element (a corner's,
 * whose particles carry the least mass), which is on the safe side. */
#define DRAPE_WARM_START_MAX_RATIO 1.5
/* Sets m->warm_k and m->warm_k_obj from the compliances as they are now. */
void dr_model_warm_stiffness(dr_model *m);
/* DRAPE_EINVAL naming the stiffest element's object and the substeps it
 * needs when a warm-started model is not stable with substep h (s). */
int dr_model_check_warm(const dr_model *m, double h, drape_err *e);

/* The membranes of level l (0: the fine ones), [*first, *first + *count);
 * without coarse levels level 0 is every membrane. */
static inline void dr_model_level_membranes(const dr_model *m, int l, int *first, int *count) {
  if (m->n_levels == 0) {
    *first = 0, *count = l == 0 ? m->n_memb : 0;
    return;
  }
  const int a = l == 0 ? 0 : m->memb_colour_off[m->level_colour[l - 1]];
  const int b = m->memb_colour_off[m->level_colour[l]];
  *first = a, *count = b - a;
}

/* The builder's shared pieces (model.c), for multilevel.c. */
/* Greedy colouring of n items of k particles each (parts[k i + j]). */
int dr_colour_items(const int *parts, int k, int n, int np, int *col, int *nk, drape_err *e);
/* Sorts n records of `size` bytes (and their objects) by colour, stable;
 * allocates and fills off[0 .. nk]. */
int dr_sort_by_colour(void *rec, int *obj, size_t size, int n, const int *col, int nk, int **off,
                      drape_err *e);
/* A grid's axes: particle (r, c) sits at origin + c spacing U + r spacing V. */
void dr_grid_axes(drape_plane plane, double U[3], double V[3]);
/* The fabric frame (unit warp du, weft dv) of triangle tri of a mesh;
 * returns its area (m^2), 0 when degenerate (du, dv then unset). */
double dr_fabric_frame(const drape_cloth_mesh *me, int tri, double du[3], double dv[3]);
/* Membrane q's shape coefficients and compliances (corners not set) for
 * the rest triangle xa, xb, xc in the frame (du, dv), its compliances
 * those of area A (m^2) of material mt; off where A is not > 0. */
void dr_membrane_frame(dr_membrane *q, const double *xa, const double *xb, const double *xc,
                       const double *du, const double *dv, double A, const drape_material_def *mt);
/* Adds the coarse levels of every grid cloth with a material (grid[k]
 * nonzero for cloth k of s) to a built model; none under warm_start or
 * with multilevel off. */
int dr_model_build_levels(dr_model *m, const drape_scene *s, const unsigned char *grid, drape_err *e);

/* Grid constraints of one cloth (seed 002): structural, shear, bending.
 * DRAPE_GRID_BY_FAMILY emits each family and direction in turn, row by
 * row (the builder's order: 12 colours); DRAPE_GRID_PER_PARTICLE emits
 * them particle by particle as seed 002's loop does. out/type may be NULL
 * to count. Returns the number of constraints. */
typedef enum { DRAPE_GRID_BY_FAMILY = 0, DRAPE_GRID_PER_PARTICLE = 1 } dr_grid_order;
int dr_grid_constraints(int rows, int cols, double spacing, int first, dr_grid_order order,
                           const double compliance[3], dr_distance *out, unsigned char *type);
/* Where a rope's segments + 1 nodes start (docs/scenes.md "Rope", start
 * shape): writes xyz[3 (segments + 1)]; the one rule for the cloth and rope
 * solver (dr_model_build) and the implicit cable (src/world/cables.c).
 *  - "straight", no end pinned, or both pinned and the rope not longer than
 *    the span: evenly spaced from start to end, as given;
 *  - one end pinned: straight from that end towards the other, at the
 *    rope's full length (downwards when start = end);
 *  - both pinned, the rope longer than the span: the chain's resting shape
 *    (a discrete catenary) in the vertical plane through the ends, "down"
 *    being along `gravity` (-y without gravity); a hanging fold when the
 *    ends are one above the other.
 * Every link starts at its rest length except on the first line. *strain:
 * span / length - 1 of a straight layout (< 0: compressed), else 0. */
typedef enum {
  DR_ROPE_LAID_STRAIGHT = 0,
  DR_ROPE_LAID_FROM_START = 1,
  DR_ROPE_LAID_FROM_END = 2,
  DR_ROPE_LAID_CATENARY = 3,
  DR_ROPE_LAID_FOLD = 4
} dr_rope_layout;
dr_rope_layout dr_rope_start_shape(const drape_rope_def *r, const double gravity[3], double *xyz,
                                   double *strain);
/* dr_rope_start_shape, then a warning on stderr when the links of rope[index]
 * start compressed or stretched ("drape: warning: ..."). Returns the layout. */
/* A rope with "points" (n_points = segments + 1) starts on them as given. */
int dr_rope_start(const drape_rope_def *r, int index, const double gravity[3], double *xyz);
/* Rope links i-(i+1) of `segments` links, first particle `first`. */
int dr_rope_constraints(int segments, double rest, double compliance, int first,
                           dr_distance *out, unsigned char *type);

#endif
