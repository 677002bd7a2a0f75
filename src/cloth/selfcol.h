/* Self-collision and cloth–cloth / cloth–rope collision (issue 4).
 *
 * One stage of a substep, run after the constraint projections:
 *
 *   clamp ▸ particle hash ▸ particle pass ▸ triangle hash ▸ vertex-triangle pass
 *
 * kernels/hash.cl + kernels/selfcol.cl hold the kernels and explain the
 * physics and the determinism scheme; selfcol_cpu.c is the CPU reference
 * (one function per kernel, same arithmetic in the same order);
 * selfcol_cl.c is the OpenCL host side (buffers allocated once, nothing
 * allocated per substep).
 *
 * Rules (docs/selfcollision.md):
 *  - a particle takes part when its object does: a cloth with
 *    self_collision on; a rope when any cloth of the scene has it on.
 *    Ropes collide with cloth, not with ropes.
 *  - thickness d of a pair: the object's thickness within one object (but
 *    at most the rest distance, so rest-mesh neighbours are left alone), the
 *    mean of the two thicknesses between objects.
 *  - particle hash cell = 2 · the largest thickness (queries visit 2x2x2
 *    cells); triangle hash cell = 1.01 · the largest triangle box (grown by
 *    the largest thickness; a vertex looks in its own cell only).
 *  - velocity clamp: |x - p| <= SELFCOL_CLAMP · thickness per substep.
 *  - mode "vertex-triangle" (default for cloth): both passes; "particle":
 *    the cloth's triangles are not hashed (its vertices still meet other
 *    cloths' triangles).
 *  - bounded work (issue 13): a particle query reads at most cap_p hash
 *    entries (its 8 cells in z, y, x order, each bucket from its start), a
 *    vertex query at most cap_t, a corner combines at most cap_c triangle
 *    shares; buckets are sorted by index, so "the first cap entries" is the
 *    same set in the same order on both backends. A capped query is
 *    counted per object (selfcol_caps) and warned about once per object,
 *    and again each time the count warned about has doubled.
 *  - thickness against rest spacing (SELFCOL_MAX_*), else create fails
 *    (DRAPE_EINVAL naming cloth[i].thickness / rope[i].thickness): beyond
 *    it a cloth fights its own rest mesh, or the hash cell holds so many
 *    rest-mesh particles that the caps would cut contacts a sane scene
 *    needs.
 */
#ifndef DRAPE_CLOTH_SELFCOL_H
#define DRAPE_CLOTH_SELFCOL_H

#include <stdint.h>

#include "drape/base.h"
#include "drape/limits.h"
#include "drape_types.h"

/* Velocity clamp: fraction of the thickness a particle may move per substep
 * (kernels/selfcol.cl, selfcol_clamp, explains the bound). */
#define SELFCOL_CLAMP 0.5f
/* Support band: a particle within this fraction of its thickness of its
 * resting place on the floor or a sphere is held by it in the passes
 * (kernels/selfcol.cl, selfcol_clamp). */
#define SELFCOL_SUPPORT 0.5f
/* Contact slots per vertex in the vertex-triangle pass (6 triangles around
 * a vertex of the other layer, plus room for a second layer). */
#define SELFCOL_SLOTS 8
/* Edge-edge contacts a particle combines per substep (its ~6 edges against
 * the edges of a layer on either side). */
#define SELFCOL_CAP_E 32
/* Object flags (objf). */
#define SELFCOL_F_ROPE 1
#define SELFCOL_F_BOUND 2 /* its particles get the step bound (below) */
#define SELFCOL_F_TRIS 4  /* its triangles are hashed (vertex-triangle mode) */
#define SELFCOL_F_LINKS 8 /* a rope whose links get the step bound: every rope
                             in a scene with a bounded cloth */
/* A rope link whose box spans more triangle cells than this on some axis
 * meets every triangle in the bounds' pass instead of its cells'. */
#define SC_BOUND_LINK_CELLS 8
/* The lists' build hash (grown by the reach) has wider cells than the
 * per-substep one: a vertex's build query reads up to SELFCOL_LIST_CAP x
 * cap_t entries of its cell, and a fuller bucket makes the build overflow
 * (the per-substep hash then runs). */
#define SELFCOL_LIST_CAP 4u
/* Contact lists kept across substeps (issue 18, cost; kernels/selfcol.cl,
 * "contact lists kept across substeps"): each vertex lists the triangles
 * within t_max + M at a build, M = 0.95 x the smallest triangle altitude
 * at rest less t_max (a flat sheet then lists nothing), within
 * [SELFCOL_LIST_MARGIN_MIN, SELFCOL_LIST_MARGIN] x t_max; at most
 * SELFCOL_LIST_LEN; each corner lists the entries naming its triangles, at
 * most SELFCOL_LIST_CORNER x cap_c. Kept while the motion since the build
 * cannot have brought an unlisted pair into contact, checked per pair of
 * regions (cells of side SELFCOL_LIST_REGION_REACH x the reach +
 * SELFCOL_LIST_REGION_TRI x the widest triangle at rest, at least the
 * rest mesh's extent / SELFCOL_LIST_REGION_SPLIT). On by default where the
 * vertex-triangle pass runs without step bounds;
 * DRAPE_SELFCOL_LISTS=0 (or selfcol_set_lists(0)) runs the per-substep
 * hash instead. Same contacts and bits either way. Cloths with step bounds
 * keep the per-substep hash: the bounds and the edge-edge pass use its
 * buffers on other positions. */
#define SELFCOL_LIST_MARGIN 2.0f
/* The floor lets a sheet as thick as half its spacing (the bench ladder:
 * M = 0.17 s = 0.34 t) list nothing when flat; at 0.5 t its reach took in
 * every quad's far triangle (tests/test_selfcol_lists.c, test_thick_sheet). */
#define SELFCOL_LIST_MARGIN_MIN 0.25f
/* Lists rebuilt after fewer passes than this cost more than the
 * per-substep hash: the stage runs that instead for the rest of the frame
 * and pauses the lists for 1, 2, 4, ... SELFCOL_LIST_PAUSE frames
 * (selfcol_cl.c, kl_vertex_triangle; the bits are the same either way).
 * The pass on the lists runs on the particles they name only (kl_active):
 * where the last build named at most 1/SELFCOL_LIST_FEW of the particles
 * (a draped sheet: a few), a pass on them is next to free and
 * SELFCOL_LIST_MIN_AGE_FEW passes pay for a build; where they name many (a
 * sheet landing flat on another), a pass on them costs half a hash pass
 * and it takes SELFCOL_LIST_MIN_AGE (measured: docs/selfcollision.md). */
#define SELFCOL_LIST_MIN_AGE 4
#define SELFCOL_LIST_MIN_AGE_FEW 2
#define SELFCOL_LIST_FEW 4u
#define SELFCOL_LIST_PAUSE 16
#define SELFCOL_LIST_LEN 32
#define SELFCOL_LIST_CORNER 4u
/* The region side (measured: docs/selfcollision.md, "Region size"). It
 * was 4 reaches + 2 triangles, at least extent / 16: the 64² ladder's
 * check then ran its O(regions²) full test at 70 % of its substeps over
 * about 150 regions, and the 256² ladder's side was the extent's
 * sixteenth. 6 + 3, at least extent / 32, is faster on the main scene and
 * both ladders; 8 + 4 made regions so big that a turning fold's affine
 * fits failed within 3 substeps (test_selfcol_lists, test_spin). */
#define SELFCOL_LIST_REGION_REACH 6.0f
#define SELFCOL_LIST_REGION_TRI 3.0f
#define SELFCOL_LIST_REGION_SPLIT 32.0f
/* The check tests each region against the regions within
 * SELFCOL_LIST_NEAR x the region side (at most SELFCOL_LIST_NEAR_CAP of
 * them from it on) while the motion's range over all regions is small
 * enough for the farther pairs; every pair otherwise (kl_check). */
#define SELFCOL_LIST_NEAR 1.0f
#define SELFCOL_LIST_NEAR_CAP 64
/* Conservative step bounds (issue 18; Chen et al. 2025, "Offset Geometric
 * Contact"; kernels/selfcol.cl, selfcol_bound_pairs, states the guarantee):
 * after the passes every particle of a cloth in vertex-triangle mode (and
 * every rope node in a scene with one) is kept within SELFCOL_BOUND_GAMMA
 * x r of its start-of-substep position, driven ones (pin paths, grabs)
 * included,
 * r its distance then to the nearest vertex-triangle / edge-edge partner
 * sharing no vertex, at most SELFCOL_BOUND_REACH x the largest thickness
 * (so a particle with nothing near keeps the clamp's half thickness). */
#define SELFCOL_BOUND_GAMMA 0.4f
/* A pair closer than the floor (below) is a lock: its particles may only
 * separate it (kernels/selfcol.cl, sc_lock1), and hold still where their
 * locks' directions spread over SELFCOL_LOCK_SPREAD or the pair is closer
 * than SELFCOL_LOCK_HOLD x the floor. */
#define SELFCOL_LOCK_HOLD 0.1f
/* Every bound distance (a lower bound: kernels/selfcol.cl, sc_vt_lower and
 * sc_seg_lower) is reduced by SELFCOL_BOUND_ULPS float epsilons of the
 * largest coordinate magnitude of the pair's points before it bounds or
 * locks (sc_bound_margin; docs/selfcollision.md). */
#define SELFCOL_BOUND_ULPS 8
/* The bounds' plane normals are taken good to SELFCOL_NORMAL_ERR (16 float
 * epsilons) over the sine of the triangle's largest angle (sc_vt_lower). */
#define SELFCOL_NORMAL_ERR 0x1p-19f
#define SELFCOL_LOCK_SPREAD 0.25f
#define SELFCOL_BOUND_REACH (SELFCOL_CLAMP / SELFCOL_BOUND_GAMMA)
/* A pair closer than SELFCOL_BOUND_FLOOR x the largest thickness is a
 * lock (SELFCOL_LOCK_*): its particles may only separate it. Bounded by
 * gamma D like the others, two edges with nothing pushing them apart
 * creep together by a factor 1 - 2 gamma per substep down to where float
 * rounding of the positions (~1e-7 m at 1 m) exceeds the bound. */
#define SELFCOL_BOUND_FLOOR 1e-3f
/* A bucket of the bounds' hash with more than SELFCOL_BOUND_CAP x cap_t
 * entries is not searched; its triangles hold still (selfcol_bound_overflow):
 * the bounded work's fail-safe. */
#define SELFCOL_BOUND_CAP 4u
/* Rest-spacing rules (see the top; checked when the solver gives the
 * spacings): a cloth's thickness <= SELFCOL_MAX_OWN x its grid spacing (at
 * 0.7 x a flat falling 48^2 sheet already tore itself apart: a grid vertex
 * is s/sqrt(2) from the nearest triangle it is not a corner of, and
 * vertex-triangle contacts inside the rest mesh push it off the plane); the
 * largest thickness (the cell is 2 t_max) <= SELFCOL_MAX_CELL_CLOTH x every
 * colliding cloth's spacing and <= SELFCOL_MAX_CELL_ROPE x every colliding
 * rope's link rest length (nodes on a line fill a cell more slowly). */
/* The values live in drape/limits.h, where the scene checks
 * (drape_scene_validate) take them from, so a scene is refused at load
 * already; these checks at create stay for descs built by hand (tests). */
#define SELFCOL_MAX_OWN ((float)DRAPE_SELFCOL_MAX_OWN)
#define SELFCOL_MAX_CELL_CLOTH ((float)DRAPE_SELFCOL_MAX_CELL_CLOTH)
#define SELFCOL_MAX_CELL_ROPE ((float)DRAPE_SELFCOL_MAX_CELL_ROPE)
/* Caps per query (see the top). Measured most in sane scenes (48^2 sheet
 * draped on a sphere, thickness 0.1..0.5 x spacing, CPU reference): 30
 * particle entries, 106 triangle entries, 12 corner shares; scenes/ at most
 * 28, 115, 17; at most 1 particle contact anywhere). */
#define SELFCOL_CAP_P 128
#define SELFCOL_CAP_N 16  /* contacts a particle query keeps (tb.cap_n)  */
#define SELFCOL_CAP_T 128
#define SELFCOL_CAP_C 64
/* Counters per object in selfcol_caps (uint32 each). */
enum {
  SELFCOL_CAPC_P = 0,    /* particle queries that hit cap_p (saturating) */
  SELFCOL_CAPC_P_MAX,    /* most candidates such a query had             */
  SELFCOL_CAPC_T,        /* vertex queries that hit cap_t                */
  SELFCOL_CAPC_T_MAX,
  SELFCOL_CAPC_C,        /* corners that hit cap_c                       */
  SELFCOL_CAPC_C_MAX,
  SELFCOL_CAPC_E,        /* edge-edge queries that met a bucket over cap_t */
  SELFCOL_CAPC_E_MAX,
  SELFCOL_CAPC_STRIDE = 8
};

/* One object as self-collision sees it. */
typedef struct selfcol_object {
  float thickness;     /* m (> 0)                                        */
  float friction;      /* Coulomb mu between sheets (ropes: 0, the cloth's
                          value is used for cloth–rope pairs)             */
  int rope;            /* 1 for a rope (no triangles, no rope–rope pairs) */
  int enabled;         /* takes part                                      */
  int vertex_triangle; /* its triangles are hashed (mode vertex-triangle) */
  /* For the checks and the warning (0 / NULL: not checked, "object <o>"): */
  float spacing;       /* rest spacing, m: cloth grid spacing, rope link
                          rest length                                     */
  int index;           /* its index in the scene's cloth[] or rope[]      */
  const char *name;    /* copied at create                                */
  int no_bound;        /* 1: no step bounds for it (a cloth without
                          self_collision_bounds); 0: bounded             */
} selfcol_object;

/* What the stage needs to know about the model; copied at create. */
typedef struct selfcol_desc {
  int n_particles;
  const dr_float4 *rest; /* rest positions (xyz; w ignored)            */
  const int *obj;        /* object of each particle                     */
  int n_tris;
  const dr_uint *tris;   /* 3 per triangle (the stage reads the current
                            list each substep; torn ones are degenerate) */
  int n_objects;
  const selfcol_object *objects;
  /* Caps (0: the defaults of selfcol_tables_build; tests raise them). */
  int cap_p, cap_t, cap_c;
  /* OpenCL kernel form (docs/solver.md "Two kernel forms"):
   * DRAPE_KERNEL_FORM_GPU or _CPU (the vector form), as the solver chose
   * it; 0 (auto): by the device type. Decides the hashes' prefix scan and
   * the work-group sizes (selfcol_cl.c); the CPU reference ignores it. */
  int kernel_form;
  /* 1: no step bounds (the scheme before issue 18; tests and measurements
   * compare with it). */
  int bound_off;
  /* The most big triangles the step bounds read (0: half the triangles,
   * at least SELFCOL_BOUND_CAP x cap_t; tests lower it): past it, they and
   * every particle near them hold still for the substep
   * (kernels/selfcol.cl, selfcol_bound_init). */
  int cap_big;
} selfcol_desc;

/* Stages created from now on: 1 keep contact lists across substeps where
 * they can (tb.lists), 0 rebuild the triangle hash every substep, -1 (the
 * default) by the environment: DRAPE_SELFCOL_LISTS=0 turns them off. */
void selfcol_set_lists(int mode);
/* 1: the lists' check of stages created from now on uses the motion's
 * ranges only (the check before the affine fits; tests compare with it);
 * 0, the default: a pair of regions that fails the ranges' test may still
 * pass on their affine fits (kernels/selfcol.cl, kl_pair_affine). */
void selfcol_set_list_affine_off(int off);
/* Stages created from now on: 1 puts every triangle of the passes' hash
 * in cells however wide (the scheme before the wide bucket; tests and
 * measurements compare with it), 0 (the default) the wide bucket. */
void selfcol_set_wide_off(int off);

/* 1: stages created from now on run without the edge-edge contacts (the
 * stage before them; tests and measurements compare with it); 0, the
 * default: they run for the bounded cloths. */
void selfcol_set_edge_off(int off);
/* 1: stages created from now on leave rope links out of the step bounds
 * (rope nodes keep the half-thickness clamp only, the stage before them;
 * tests compare with it); 0, the default: ropes in a scene with a bounded
 * cloth are bounded. */
void selfcol_set_link_bounds_off(int off);
/* 1: stages created from now on run the particle pass even where the
 * vertex-triangle pass covers every pair (tests compare with it); 0, the
 * default: it runs only for scenes with a rope, a cloth in particle mode,
 * or a colliding particle in no triangle (selfcol_tables.particles). */
void selfcol_set_particle_pass(int on);

/* The static colliders, for the support rule (the solver's floor and
 * spheres; a sphere's centre at the end of the substep is
 * center + velocity * t_end, as in kernels/collide.cl). */
typedef struct selfcol_colliders {
  int has_floor;
  float floor_y;             /* m                                            */
  int n_spheres;
  const dr_sphere *spheres;  /* CPU reference only (OpenCL: a cl_mem)        */
  float t_end;               /* s from the frame start to the substep's end  */
} selfcol_colliders;

/* Timed parts of the stage (ms per substep in the benchmark). */
typedef enum {
  SELFCOL_T_CLAMP = 0,
  SELFCOL_T_HASH_PARTICLES,
  SELFCOL_T_PARTICLES,
  SELFCOL_T_HASH_TRIANGLES,
  SELFCOL_T_VERTEX_TRIANGLE, /* and the edge-edge contacts (issue 18)    */
  SELFCOL_T_BOUND,       /* step bounds: hash on p, pairs, final clamp    */
  SELFCOL_T_COUNT
} selfcol_part;

const char *selfcol_part_name(selfcol_part p);

/* The tables both backends build from a desc (in selfcol_cpu.c). */
typedef struct selfcol_tables {
  int n, n_tris, n_objects;
  int *sobj;             /* n: object, or -1                               */
  int *tobj;             /* n_tris: object, or -1 (not hashed)             */
  dr_float4 *objp;       /* n_objects: (thickness, friction, 0, 0)         */
  int *objf;             /* n_objects: SELFCOL_F_*                          */
  dr_float4 *rest;       /* n                                              */
  int any;               /* some particle takes part                       */
  int any_tris;          /* some triangle is hashed                        */
  float t_max;           /* largest thickness of a taking-part object      */
  float cell;            /* particle hash cell, 2 t_max                    */
  int bound;             /* some object gets the step bounds               */
  float bound_r;         /* their reach R = SELFCOL_BOUND_REACH t_max      */
  float bound_floor;     /* SELFCOL_BOUND_FLOOR t_max                       */
  float bound_limit;     /* widest grown box hashed by the bounds (twice the
                            widest at rest); wider ones go to a list       */
  float wide_limit;      /* widest box (grown by t_max) the passes' hash puts
                            in cells, twice the widest at rest; wider ones
                            go to its wide bucket (infinite: none, tests)  */
  uint32_t mask_p;       /* particle table buckets - 1 (power of 2)        */
  uint32_t mask_t;       /* triangle table buckets - 1                     */
  uint32_t cap_p, cap_t, cap_c; /* the caps (see the top)                  */
  uint32_t cap_big;      /* most big triangles the bounds read (past it they
                            and all near them hold still: selfcol_bound_init) */
  uint32_t cap_n;        /* contacts a particle query keeps (tests may
                            raise it after create)                        */
  int edge;              /* edge-edge contacts run (bounded cloths)        */
  int particles;         /* the particle hash and pass run: some colliding
                            particle is a rope node, in a cloth in particle
                            mode or in no triangle                        */
  uint32_t cap_e;        /* edge-edge contacts a particle keeps            */
  int lists;             /* the kept contact lists (SELFCOL_LIST_*) run    */
  int list_affine;       /* the check also tries the regions' affine fits  */
  int list_len;          /* entries per vertex list (SELFCOL_LIST_LEN)      */
  float list_reach;      /* t_max + the margin: a vertex lists the triangles
                            whose distance is at most this                 */
  float list_m;          /* the margin M                                    */
  float list_grow;       /* box growth of the lists' triangle hash         */
  float list_region;     /* side of the check's regions, m                 */
  float list_near;       /* gap within which regions are near, m           */
  uint32_t list_nr;      /* region buckets (power of 2)                     */
  uint32_t list_capr;    /* entries a corner's list may hold               */
  uint32_t list_rcap;    /* entries all corner lists may hold together     */
  uint32_t *links;       /* n_links: the lower node of each link of the ropes
                            with SELFCOL_F_LINKS, ascending               */
  int n_links;
  uint32_t *adj_start;   /* n + 1: each particle's triangles (CSR) ...     */
  uint32_t *adj;         /* ... in the model's triangle order              */
  int32_t *tnb;          /* 3 n_tris: the lowest-index other triangle on
                            each edge (corners i, i+1), or -1             */
  char (*name)[64];      /* n_objects: names for the warning               */
  uint32_t *warned;      /* 2 per object: the kind of the last cap warning
                            + 1 (0: none yet) and the count it named        */
} selfcol_tables;

int selfcol_tables_build(const selfcol_desc *d, selfcol_tables *t, drape_err *e);
void selfcol_tables_free(selfcol_tables *t);

/* The warning of a capped query: called with the message (no newline) the
 * first time an object's counters show a capped query, and again each time
 * the count that warning named (the most entries a query of that kind met)
 * has at least doubled since the last one. The default writes "drape:
 * warning: <msg>" to stderr; tests install their own (NULL restores the
 * default). */
typedef void (*selfcol_warn_fn)(const char *msg, void *ctx);
void selfcol_set_warn(selfcol_warn_fn fn, void *ctx);
/* Warns about each object whose counters (n_objects x SELFCOL_CAPC_STRIDE)
 * show a capped query for the first time, or a count twice the one last
 * warned about; returns the number of objects warned about now. */
int selfcol_caps_warn(selfcol_tables *t, const uint32_t *caps);

/* ---- CPU reference ---- */
typedef struct selfcol_cpu {
  selfcol_tables tb;
  /* particle hash: start[mask_p + 2] (exclusive scan, last = total), vals */
  uint32_t *pkey, *pstart, *pvals;
  dr_float4 *delta;
  int *ncon;             /* contacts that moved each particle, last pass    */
  float *wsc;            /* inverse masses of the passes (0: supported)     */
  /* triangle hash */
  uint32_t maxbits;      /* bits of the largest grown box side              */
  uint32_t *tstart, *tvals;
  dr_float4 *tbox;       /* grown box of each triangle (lo, hi)             */
  /* vertex-triangle contacts */
  dr_float4 *rec_a, *rec_b;
  uint32_t *rec_t;
  int *nvt;
  uint32_t *cstart, *cvals;
  /* bounded work: entries each particle / vertex query read last pass,
   * and the per-object cap counters (never reset) */
  uint32_t *pexam, *vexam;
  uint32_t *caps;
  uint32_t *rb;          /* step bounds: bits of r per particle            */
  uint32_t *lk;          /* 8 per particle: its locks (kernels/selfcol.cl,
                            sc_lock1)                                     */
  uint32_t *big, nbig;   /* triangles too wide for the bounds' hash         */
  uint32_t bigbox[6];    /* their grown boxes' box: ~key of the lows, key of
                            the highs (kernels/selfcol.cl, sc_fkey)       */
  uint32_t *town;        /* per triangle: the edges it owns (bits 0..2)     */
  double ms[SELFCOL_T_COUNT]; /* accumulated wall time per part            */
} selfcol_cpu;

int selfcol_cpu_create(const selfcol_desc *d, selfcol_cpu *s, drape_err *e);
void selfcol_cpu_destroy(selfcol_cpu *s);
/* The whole stage on host arrays (x in/out, p = positions at the start of
 * the substep, tris = current triangle list, col may be NULL). */
void selfcol_cpu_run(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p, const dr_uint *tris,
                     const selfcol_colliders *col);
/* The parts, one per kernel group (tests call them one by one; the clamp
 * also fills wsc, which the passes read). */
void cpu_selfcol_clamp(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p,
                       const selfcol_colliders *col);
void cpu_hash_particles(selfcol_cpu *s, const dr_float4 *x);
void cpu_selfcol_particles(selfcol_cpu *s, const dr_float4 *x, const dr_float4 *p);
void cpu_selfcol_apply(selfcol_cpu *s, dr_float4 *x);
void cpu_hash_triangles(selfcol_cpu *s, const dr_float4 *x, const dr_uint *tris);
void cpu_selfcol_vertex_triangle(selfcol_cpu *s, const dr_float4 *x, const dr_float4 *p,
                                 const dr_uint *tris);
void cpu_selfcol_vt_gather(selfcol_cpu *s, dr_float4 *x, const dr_uint *tris);
/* Step bounds: the triangle hash on p (boxes grown by bound_r), then r of
 * every particle (selfcol_bound_init + selfcol_bound_pairs); and the final
 * clamp to SELFCOL_BOUND_GAMMA r (selfcol_bound_clamp). */
void cpu_selfcol_bound(selfcol_cpu *s, const dr_float4 *p, const dr_uint *tris);
void cpu_selfcol_bound_clamp(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p);
/* Edge-edge contacts of bounded cloths (selfcol_edge_edge + selfcol_apply),
 * on the triangle hash of cpu_hash_triangles. */
void cpu_selfcol_edge_edge(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p, const dr_uint *tris);
/* Distance between segments (same arithmetic as sc_seg_dist), for tests. */
float selfcol_seg_dist(const float p1[3], const float q1[3], const float p2[3], const float q2[3]);
/* The step bounds' lower bounds of the distance between two segments and
 * between a point and a triangle (sc_seg_lower, sc_vt_lower in selfcol.cl:
 * never above the true distance, exact to rounding where the closest
 * points are decided), for tests. */
float selfcol_seg_lower(const float p1[3], const float q1[3], const float p2[3], const float q2[3]);
float selfcol_vt_lower(const float q[3], const float a[3], const float b[3], const float c[3]);

/* Closest point of triangle (a, b, c) to q as barycentric weights (same
 * arithmetic as sc_closest in selfcol.cl): 1 inside the face, 0 on an edge
 * or corner, -1 degenerate. Exposed for tests. */
int selfcol_closest(const float q[3], const float a[3], const float b[3], const float c[3],
                    float bary[3]);
/* The hash of the cell holding v (same as the kernels'). */
uint32_t selfcol_hash_point(const float v[3], float inv_cell, uint32_t mask);

#endif
