/* Self-collision on the OpenCL device (see selfcol.h for the rules and
 * kernels/selfcol.cl for the physics). The wrapper owns every buffer of the
 * stage; they are created once by selfcol_cl_create, sized for the worst
 * case (8 hash entries per triangle, SELFCOL_SLOTS contacts per vertex), so
 * a substep allocates nothing and never reads anything back.
 *
 * Positions x (float4, w = inverse mass), the start-of-substep positions p
 * and the triangle list belong to the caller (the solver's buffers). */
#ifndef DRAPE_CLOTH_SELFCOL_CL_H
#define DRAPE_CLOTH_SELFCOL_CL_H

#include "cl/launch.h"
#include "cloth/selfcol.h"

enum {
  SK_SCAN_BLOCK, SK_SCAN_ADD, SK_SORT, SK_CLAMP, SK_COUNT_P, SK_SCATTER_P, SK_PARTICLES,
  SK_APPLY, SK_TRI_EXTENT, SK_COUNT_T, SK_SCATTER_T, SK_VT, SK_CORNER_COUNT,
  SK_CORNER_SCATTER, SK_VT_GATHER, SK_SCAN_CHUNKS, SK_SCAN_TOTALS, SK_SCAN_CHUNKS_ADD,
  SK_BOUND_INIT, SK_BOUND_PAIRS, SK_BOUND_CLAMP, SK_BOUND_EXTENT, SK_BOUND_OVERFLOW,
  SK_EDGE_EDGE, SK_BOUND_LINKS, SK_BOUND_OWNERS, SK_BOUND_VT,
  SK_KL_REGION_BOX, SK_KL_RANGE, SK_KL_CHECK, SK_KL_LISTS, SK_KL_REV_SCATTER, SK_KL_FIT, SK_KL_NEAR, SK_EDGE_FLAGS, SK_KL_ACTIVE, SK_KL_AFFINE,
  SK_BUCKET_MOTION, SK_SORT_BOXES, SK_COUNT
};

#define SELFCOL_SCAN_LEVELS 8

/* An exclusive scan of n uints in place, with its block-sum buffers. */
typedef struct selfcol_scan {
  int chunked;                         /* CPU device: the chunked scan      */
  cl_uint chunk, n_chunks;             /* chunked: elements per work item   */
  int levels;
  cl_uint n[SELFCOL_SCAN_LEVELS];      /* elements at each level            */
  size_t groups[SELFCOL_SCAN_LEVELS];  /* work-groups at each level         */
  cl_mem sums[SELFCOL_SCAN_LEVELS];    /* block totals of each level        */
} selfcol_scan;

typedef struct selfcol_cl {
  drape_cl *cl;                 /* not owned                                  */
  int gpu;                      /* the GPU kernel form (selfcol_desc)        */
  int cpu_forms;                /* the chunked scan: the vector form's
                                   (kernels/hash.cl says why)                 */
  selfcol_tables tb;
  size_t local;                 /* work-group size of the scan (power of 2)  */
  dr_cl_kern k[SK_COUNT];
  size_t lk[SK_COUNT];          /* work-group size of each kernel: from the
                                   device in the GPU form (dr_cl_kern_local),
                                   0 (the launcher's 64) in the vector form  */
  cl_mem sobj, tobj, objp, objf, rest;
  /* particle hash: pcount is scanned in place into the bucket starts;
   * key and rank (in its bucket) of each entry */
  cl_mem pkey, prank, pcount, pvals, delta, ncon;
  cl_mem wsc;                   /* inverse masses of the passes (0: supported) */
  /* triangle hash: up to 8 (key, rank) slots per triangle */
  cl_mem maxbits, tkey, tbox, trank, tcount, tvals;
  /* the grown boxes of the entries, in entry order, one plane of
   * ebox_plane floats per coordinate (hash_sort_boxes) */
  cl_mem ebox;
  cl_uint ebox_plane;
  /* vertex-triangle contacts and their corner regrouping */
  cl_mem rec_a, rec_b, rec_t, nvt, ccount, crank, cvals;
  /* bounded work: entries each particle / vertex query read last pass, and
   * the per-object cap counters (n_objects x SELFCOL_CAPC_STRIDE, never
   * reset), copied to caps_host by a non-blocking read at most once in
   * flight, checked (and warned about) at the next run */
  cl_mem pexam, vexam, caps;
  cl_mem rb;                    /* step bounds: bits of r per particle       */
  cl_mem lock;                  /* locks: 8 uints per particle (sc_lock1)     */
  cl_mem links;                 /* the bounded rope links' lower nodes (tb.links) */
  cl_mem big, nbig;             /* triangles too wide for the bounds' hash   */
  cl_mem bigb;                  /* their grown boxes, bplane floats per      */
  cl_uint bplane;               /* coordinate (selfcol_bound_extent)         */
  cl_mem tnb, town;             /* edge neighbours (tb.tnb), owned edges      */
  cl_mem adj_start, adj;        /* edge-edge: each particle's triangles (CSR) */
  cl_mem eflag;                 /* edge-edge: per edge slot, whether a pair may touch */
  cl_mem bmot;                  /* per triangle bucket, its largest motion against its reference */
  /* gate_on is (0, 0, 0, 1): the buckets' sort's gate (kernels/hash.cl),
   * open; kl_gate (below) is the corner lists' */
  cl_mem gate_on;
  float fr_t;                   /* t_end of the last run (a smaller or equal
                                   one starts a frame)                      */
  int fr_runs;                  /* runs so far                              */
  /* the kept contact lists (tb.lists; kernels/selfcol.cl, kl_*): regions
   * of the check (keys, ranks, scanned counts, particles, boxes at the
   * build, motion ranges, occupied list), the flags (stale, overflow,
   * occupied regions, active particles, merged regions), the vertex lists
   * and their contact map, the corner lists (scanned counts, cursors,
   * entries), the check's near lists (and lengths), the motion's range
   * over all regions (two slots) and the active particles (those with a list or a corner list, kl_active: the
   * only ones the pass on the lists can touch; kl_nact of them) */
  cl_mem kl_rkey, kl_rrank, kl_rcount, kl_rvals, kl_rbox, kl_rrng, kl_rocc, kl_flag;
  cl_mem kl_rbad; /* regions with a pair that failed the ranges (kl_check) */
  cl_mem kl_lst, kl_lstn, kl_cmap, kl_ccount, kl_ccur, kl_cvals, kl_xb, kl_gate;
  cl_mem kl_raff, kl_rfit; /* the check's affine fits per region */
  cl_mem kl_near, kl_nearn, kl_gr, kl_act;
  cl_mem kl_rind, kl_mlist; /* region bucket -> occupied index; merged regions */
  cl_uint kl_nact;
  cl_uint kl_nocc; /* occupied regions at the build (kl_range, kl_check) */
  int kl_par;                   /* the slot of kl_gr this substep's check uses */
  selfcol_scan scan_r;
  int kl_ok;                    /* the lists are built and exact             */
  int kl_off;                   /* a build overflowed: the per-substep hash
                                   until the next frame                      */
  int vt_kl;                    /* the vertex-triangle pass reads the lists  */
  int kl_age;                   /* passes run on the lists since the build  */
  int kl_pause, kl_backoff;     /* frames left without the lists, next pause */
  int kl_failed;                /* lists of this frame did not last          */
  uint64_t kl_builds, kl_runs;  /* builds and passes on the lists, fallbacks */
  uint64_t kl_fallbacks;
  uint32_t *caps_host;
  cl_event caps_ev;
  selfcol_scan scan_p, scan_t, scan_c;
  uint64_t bytes;               /* device memory held                        */
  uint64_t launches;            /* kernel launches and fills enqueued         */
  /* profiling (when the queue has it): events tagged with their part, in
   * the stage's own profile or, inside the solver, in the solver's one
   * (selfcol_cl_share_profile) */
  dr_cl_prof own;
  dr_cl_prof *prof;
  double ms[SELFCOL_T_COUNT];   /* per part, summed since create: by
                                   selfcol_cl_collect, or by the solver's
                                   collect when the profile is shared       */
} selfcol_cl;

int selfcol_cl_create(drape_cl *cl, const selfcol_desc *d, selfcol_cl *s, drape_err *e);
void selfcol_cl_destroy(selfcol_cl *s);
/* From now on the stage's launches go to prof (the solver's), tagged with
 * prof's stage and their part; the solver collects them. */
void selfcol_cl_share_profile(selfcol_cl *s, dr_cl_prof *prof);

/* The whole stage (enqueued; nothing waits). col may be NULL (no floor, no
 * spheres); spheres: the dr_sphere buffer of col->n_spheres (or NULL). */
int selfcol_cl_run(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris, const selfcol_colliders *col,
                   cl_mem spheres, drape_err *e);
/* Its parts, in this order (tests run them one by one; the clamp also
 * fills wsc, which the passes read). */
int selfcol_cl_clamp(selfcol_cl *s, cl_mem x, cl_mem p, const selfcol_colliders *col,
                     cl_mem spheres, drape_err *e);
int selfcol_cl_hash_particles(selfcol_cl *s, cl_mem x, drape_err *e);
int selfcol_cl_particles(selfcol_cl *s, cl_mem x, cl_mem p, drape_err *e); /* + apply */
int selfcol_cl_hash_triangles(selfcol_cl *s, cl_mem x, cl_mem tris, drape_err *e);
/* Tests: fn(s, x, maps, ctx) after every check that keeps the lists, x as
 * the check read it (clamped, before the pass), maps = 1 where the
 * ranges failed and the regions' maps decided (kl_check's second run);
 * NULL (the default) calls nothing. */
typedef void (*selfcol_cl_check_fn)(selfcol_cl *s, cl_mem x, int maps, void *ctx);
void selfcol_cl_set_check_hook(selfcol_cl_check_fn fn, void *ctx);
/* The kept contact lists' builds, passes run on them, and passes that
 * fell back to the per-substep hash (tb.lists), for tests and the bench. */
void selfcol_cl_list_stats(const selfcol_cl *s, uint64_t *builds, uint64_t *runs,
                           uint64_t *fallbacks);
/* contacts + corner regrouping + gather */
int selfcol_cl_vertex_triangle(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris, drape_err *e);
/* Step bounds (run first; reuses the triangle hash's buffers): the hash on
 * p grown by bound_r, then r per particle; and the final clamp (run last). */
int selfcol_cl_bound(selfcol_cl *s, cl_mem p, cl_mem tris, drape_err *e);
int selfcol_cl_bound_clamp(selfcol_cl *s, cl_mem x, cl_mem p, drape_err *e);
/* Edge-edge contacts of bounded cloths (after the vertex-triangle pass, on
 * its triangle hash): selfcol_edge_edge + selfcol_apply. */
int selfcol_cl_edge_edge(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris, drape_err *e);

/* The cap counters (n_objects x SELFCOL_CAPC_STRIDE) after the queue has
 * run everything enqueued so far (blocking), warning once per capped
 * object like a run does; out may be NULL. */
int selfcol_cl_caps(selfcol_cl *s, uint32_t *out, drape_err *e);

/* After the queue is finished: adds the profiled time of every enqueued
 * part to s->ms (nothing when the queue has no profiling) and returns the
 * sum added in *total_ms (may be NULL). For the stage on its own (tests,
 * bench_selfcol); inside the solver the solver's profile collects. */
int selfcol_cl_collect(selfcol_cl *s, double *total_ms, drape_err *e);

/* Which scan the next selfcol_cl_create picks: -1 by the kernel form (the
 * default: the work-group scan in the GPU form, the chunked scan in the
 * vector form), 0 the work-group scan, 1 the chunked scan. Both give the
 * same bits; tests use this to pair a scan with the other form. */
void selfcol_cl_set_forms(int forms);

/* Exclusive scan of host data on the device with the project's kernels
 * (tests): data[0, n) in place, returns the total in *total. */
int selfcol_cl_scan_host(drape_cl *cl, uint32_t *data, size_t n, uint32_t *total, drape_err *e);
/* The same with the form chosen: 0 the work-group (GPU form) scan, 1 the
 * chunked (vector form) scan, -1 what the device's auto form gets. */
int selfcol_cl_scan_host_form(drape_cl *cl, uint32_t *data, size_t n, uint32_t *total, int form,
                              drape_err *e);

#endif
