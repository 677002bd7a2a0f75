/* Shared helpers of the self-collision tests (test_selfcol_*.c): a small
 * "world" of particles, triangles and objects in host arrays, and its copy
 * on the OpenCL device. Header-only: each test is its own executable. */
#ifndef DRAPE_TEST_SELFCOL_FIXTURE_H
#define DRAPE_TEST_SELFCOL_FIXTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "cl/runtime.h"
#include "cloth/selfcol.h"
#include "cloth/selfcol_cl.h"

typedef struct sc_world {
  int n, nt, nobj;
  dr_float4 *x, *p, *rest;
  int *obj;
  dr_uint *tris;
  selfcol_object objects[4];
} sc_world;

static inline void sc_world_alloc(sc_world *w, int n, int nt) {
  memset(w, 0, sizeof *w);
  w->n = n;
  w->nt = nt;
  w->x = calloc((size_t)n + 1, sizeof *w->x);
  w->p = calloc((size_t)n + 1, sizeof *w->p);
  w->rest = calloc((size_t)n + 1, sizeof *w->rest);
  w->obj = calloc((size_t)n + 1, sizeof *w->obj);
  w->tris = calloc(3 * (size_t)nt + 3, sizeof *w->tris);
  assert_non_null(w->x);
  assert_non_null(w->p);
  assert_non_null(w->rest);
  assert_non_null(w->obj);
  assert_non_null(w->tris);
}

static inline void sc_world_free(sc_world *w) {
  free(w->x);
  free(w->p);
  free(w->rest);
  free(w->obj);
  free(w->tris);
  memset(w, 0, sizeof *w);
}

/* The triangles of an N x N grid of particles numbered from `first`, row
 * by row, two per cell (a, a+N, a+N+1; a, a+N+1, a+1), written from
 * tris[3 tk]; returns the next tk. */
static inline int sc_grid_tris(dr_uint *tris, int tk, int first, int N) {
  for (int r = 0; r + 1 < N; r++)
    for (int c = 0; c + 1 < N; c++) {
      const dr_uint a = (dr_uint)(first + r * N + c);
      const dr_uint v[6] = {a, a + (dr_uint)N, a + (dr_uint)N + 1u, a, a + (dr_uint)N + 1u, a + 1u};
      memcpy(&tris[3 * tk], v, sizeof v);
      tk += 2;
    }
  return tk;
}

static inline selfcol_object sc_cloth(float thickness, float friction, int vt) {
  selfcol_object o = {thickness, friction, 0, 1, vt, 0.0f, 0, NULL, 0}; /* bounded */
  return o;
}

/* One flat N x N cloth in the plane y = 0, spacing s, at rest as laid out
 * (unit inverse masses, p = x), thickness t, in vertex-triangle mode. */
static inline void sc_flat_sheet(sc_world *w, int N, float s, float t, float friction) {
  sc_world_alloc(w, N * N, 2 * (N - 1) * (N - 1));
  w->nobj = 1;
  w->objects[0] = sc_cloth(t, friction, 1);
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      const int i = r * N + c;
      w->x[i] = (dr_float4){(float)c * s, 0.0f, (float)r * s, 1.0f};
      w->p[i] = w->x[i];
      w->rest[i] = (dr_float4){(float)c * s, 0.0f, (float)r * s, 0.0f};
      w->obj[i] = 0;
    }
  sc_grid_tris(w->tris, 0, 0, N);
}

/* The kernel form the next sc_desc asks for (0: by the device type); the
 * tests that compare OpenCL with the CPU reference run both
 * (sc_form(k): k = 0 the GPU form, 1 the vector form). */
static int sc_kernel_form = 0;
/* 1: stages made by sc_desc run without the step bounds (issue 18), for the
 * tests of one pass's own arithmetic or of the passes' caps. */
static int sc_bound_off = 0;
static inline int sc_form(int k) { return k == 0 ? DRAPE_KERNEL_FORM_GPU : DRAPE_KERNEL_FORM_CPU; }
static inline const char *sc_form_name(int k) { return k == 0 ? "gpu" : "vector"; }

/* A stage created with sc_kernel_form set runs that form: the GPU form
 * with the work-group scan and the device's work-group sizes, the vector
 * form with the chunked scan and the launcher's default groups. */
static inline void sc_check_form(const selfcol_cl *g) {
  if (!sc_kernel_form) return;
  const int gpu = sc_kernel_form == DRAPE_KERNEL_FORM_GPU;
  assert_int_equal(g->gpu, gpu);
  assert_int_equal(g->cpu_forms, !gpu);
  for (int k = 0; k < SK_COUNT; k++)
    if (gpu) assert_true(g->lk[k] >= 1);
    else assert_int_equal(g->lk[k], 0);
}

static inline selfcol_desc sc_desc(const sc_world *w) {
  selfcol_desc d = {w->n,       w->rest, w->obj, w->nt, w->tris, w->nobj, w->objects, 0, 0, 0,
                    sc_kernel_form, sc_bound_off, 0};
  return d;
}

/* Deterministic pseudo-random numbers in [0, 1). */
static inline float sc_rand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)(*s >> 8) / 16777216.0f;
}

typedef struct sc_dev {
  cl_mem x, p, tris;
} sc_dev;

static inline cl_mem sc_buf(drape_cl *cl, const void *src, size_t bytes) {
  cl_int rc;
  cl_mem m = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes ? bytes : 16,
                            (void *)src, &rc);
  if (rc != CL_SUCCESS) fprintf(stderr, "clCreateBuffer: %s\n", drape_cl_errstr(rc));
  assert_int_equal(rc, CL_SUCCESS);
  return m;
}

static inline void sc_dev_upload(drape_cl *cl, const sc_world *w, sc_dev *d) {
  d->x = sc_buf(cl, w->x, sizeof(dr_float4) * ((size_t)w->n + 1));
  d->p = sc_buf(cl, w->p, sizeof(dr_float4) * ((size_t)w->n + 1));
  d->tris = sc_buf(cl, w->tris, sizeof(dr_uint) * (3 * (size_t)w->nt + 3));
}

static inline void sc_dev_free(sc_dev *d) {
  if (d->x) clReleaseMemObject(d->x);
  if (d->p) clReleaseMemObject(d->p);
  if (d->tris) clReleaseMemObject(d->tris);
  memset(d, 0, sizeof *d);
}

static inline void sc_read(drape_cl *cl, cl_mem m, void *dst, size_t bytes) {
  cl_int rc = clEnqueueReadBuffer(cl->queue, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
  if (rc != CL_SUCCESS) fprintf(stderr, "clEnqueueReadBuffer: %s\n", drape_cl_errstr(rc));
  assert_int_equal(rc, CL_SUCCESS);
}

/* Fails the test with the message of a drape_err. */
#define SC_OK(call)                                            \
  do {                                                         \
    drape_err e_ = {0};                                        \
    drape_err *e = &e_;                                        \
    int rc_ = (call);                                          \
    if (rc_) fprintf(stderr, "%s: %s\n", #call, e_.msg);       \
    assert_int_equal(rc_, 0);                                  \
  } while (0)

/* The CPU reference and the OpenCL stage (in sc_kernel_form) of one world. */
static inline void sc_pair_create(drape_cl *cl, const sc_world *w, selfcol_cpu *c,
                                  selfcol_cl *g) {
  const selfcol_desc d = sc_desc(w);
  SC_OK(selfcol_cpu_create(&d, c, e));
  SC_OK(selfcol_cl_create(cl, &d, g, e));
  sc_check_form(g);
}

/* One stage on w.x (from w.p) on both: the OpenCL result into xg, the
 * CPU reference's into w->x. */
static inline void sc_pair_run(drape_cl *cl, selfcol_cl *g, selfcol_cpu *c, sc_world *w,
                               dr_float4 *xg) {
  sc_dev dev;
  sc_dev_upload(cl, w, &dev);
  SC_OK(selfcol_cl_run(g, dev.x, dev.p, dev.tris, NULL, NULL, e));
  sc_read(cl, dev.x, xg, sizeof(dr_float4) * (size_t)w->n);
  sc_dev_free(&dev);
  selfcol_cpu_run(c, w->x, w->p, w->tris, NULL);
}

static inline int sc_cl_setup(drape_cl *cl) {
  drape_err e = {0};
  drape_cl_opts o = drape_cl_default_opts();
  if (drape_cl_init(cl, &o, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return -1;
  }
  return 0;
}

#endif
