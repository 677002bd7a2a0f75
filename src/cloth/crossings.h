/* Counting edges through triangles, exactly (internal; issue 18): the
 * measure of whether self-collision holds. */
#ifndef DRAPE_CLOTH_CROSSINGS_H
#define DRAPE_CLOTH_CROSSINGS_H

#include <stdint.h>

#include <CL/cl.h>

#include "drape/base.h"
#include "drape/drape_cl.h"

typedef struct dr_crossing_mesh {
  const float *x;          /* point i at x + stride * i (x, y, z)           */
  int stride, n_points;
  const uint32_t *tris;    /* triangles; three equal corners (torn): none   */
  int n_tris;
  const uint32_t *links;   /* segments besides the triangles' edges (ropes) */
  int n_links;
} dr_crossing_mesh;

/* Pairs (edge, triangle) with no shared point where the edge passes
 * through the triangle's interior: its ends strictly on either side of the
 * triangle's plane and the line through them strictly inside the three
 * edges, every sign exact (core/exact.h). The edges are the triangles'
 * unique edges and the links. Touching (a sign of 0) is not a crossing. */
int dr_count_crossings(const dr_crossing_mesh *m, long *count, drape_err *e);

/* ---- the same count on an OpenCL device (crossings_cl.c,
 * kernels/crossings.cl) ----
 * Equal to dr_count_crossings always: pairs are found on the device and
 * their signs evaluated with a filter whose error bound is rigorous (double
 * where the device has cl_khr_fp64, else float); the pairs it cannot settle
 * are decided here exactly, and when a fixed capacity is exceeded (cell
 * entries, undecided pairs) or a point is not finite the caller is told to
 * count on the host (info.device = 0). drape_sim_count_crossings takes this
 * path on the OpenCL backend. */
typedef struct dr_crossings_cl dr_crossings_cl;

typedef struct dr_crossings_info {
  int device;     /* 1: the device's count (with the host's exact pairs);
                     0: a flag below sent the count to the host           */
  int dbl;        /* the filter ran in double                             */
  int flags;      /* 1 a point not finite, 2 entries past capacity, 4
                     undecided pairs past capacity, 8 the count wrapped    */
  long unsure;    /* pairs the filter left (decided exactly here)         */
  long pairs;     /* pairs tested on the device (32-bit, may wrap)        */
  long entries;   /* cell entries the state wanted                        */
  long big;       /* triangles tested by every edge                       */
  long all;       /* edges tested against every triangle                  */
  long edges;
} dr_crossings_info;

/* The host copy of the points (float4 each), asked for only when the
 * device left pairs undecided and m->x is NULL. */
typedef const float *(*dr_crossings_host_x)(void *ctx, drape_err *e);

/* The counter's kernels and buffers on runtime cl. Limits from the
 * environment: DRAPE_CROSSINGS_ENTRIES (cell entries; default 8 per
 * triangle, grown after an overflow up to 64 per triangle, the most there
 * can be; set: fixed), DRAPE_CROSSINGS_UNSURE (undecided pairs, default
 * 4096), DRAPE_CROSSINGS_FP=float (the float filter even with fp64); bad
 * values are refused naming the variable. */
int dr_crossings_cl_create(drape_cl *cl, dr_crossings_cl **out, drape_err *e);
void dr_crossings_cl_destroy(dr_crossings_cl *k);
/* Tests: entries (>= 0: fixed capacity, 0 back to the default), unsure
 * (> 0), force_float (0/1); a negative value keeps the current one. */
void dr_crossings_cl_set_limits(dr_crossings_cl *k, long entries, int unsure, int force_float);
/* Counts m's crossings on the device. x_dev holds m's points as float4
 * (NULL: m->x is uploaded); m->x may be NULL when x_dev is given, then
 * host_x(ctx) is asked for the points if pairs need the exact test. When
 * info->device is 0 on return, *count is not the answer: count on the host. */
int dr_crossings_cl_count(dr_crossings_cl *k, const dr_crossing_mesh *m, cl_mem x_dev,
                          dr_crossings_host_x host_x, void *ctx, long *count,
                          dr_crossings_info *info, drape_err *e);

/* The OpenCL backend's counter (created on first use, freed with the sim)
 * and its positions buffer (backend_cl.c). */
struct drape_sim;
int dr_backend_cl_crossings(struct drape_sim *s, dr_crossings_cl **k, cl_mem *x, drape_err *e);

/* How the sim's last drape_sim_count_crossings went (tests, bench):
 * info.device 1 on the device path; host 1 when the host counted (the CPU
 * backend, DRAPE_CROSSINGS=host, or a device flag). */
typedef struct dr_crossings_last {
  int host;
  dr_crossings_info info;
} dr_crossings_last;
int dr_sim_crossings_last(struct drape_sim *s, dr_crossings_last *out, drape_err *e);
/* The record drape_sim_count_crossings keeps in the counter. */
dr_crossings_last *dr_crossings_cl_last(dr_crossings_cl *k);

#endif
