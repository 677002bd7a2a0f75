/* The crossing count on an OpenCL device (cloth/crossings.h; the kernels:
 * kernels/crossings.cl, which says how the pairs are found and why the
 * filter's signs are right).
 *
 * Per count: seven launches, one read of the header (8 words) and, when the
 * filter left pairs, one read of that list; the pairs are decided here with
 * the exact signs (core/exact.h) on the host's copy of the points. Any flag
 * (a non-finite point, the entries or the unsure list past capacity, the
 * 32-bit count wrapped) makes the caller's host count the answer for that
 * call: the result is always the reference's.
 *
 * The edges (the triangles' unique edges, then the links, as the reference
 * takes them) are built here, on the host, and uploaded when the triangles
 * or links change (tearing); nothing is allocated per count otherwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl/launch.h"
#include "cloth/crossings.h"
#include "core/exact.h"

/* header words and flags: as in kernels/crossings.cl */
enum { H_COUNT, H_UNSURE, H_FLAGS, H_ENTRIES, H_BIG, H_ALL, H_PAIRS, H_WORDS = 8 };
enum { F_NONFINITE = 1, F_ENTRIES = 2, F_UNSURE = 4, F_COUNT = 8 };
#define CR_GROUP 64      /* crossings_cell / crossings_scan: one group of this */
#define DEFAULT_UNSURE 4096
#define MAX_CELLS 64     /* a triangle in more cells is in the big list */

enum { K_POINTS, K_BOXES, K_CELL, K_COUNT, K_SCAN, K_FILL, K_EDGES, K_N };
static const char *const knames[K_N] = {"crossings_points", "crossings_boxes", "crossings_cell",
                                        "crossings_count",  "crossings_scan",  "crossings_fill",
                                        "crossings_edges"};

struct dr_crossings_cl {
  drape_cl *cl;
  dr_cl_kern k[K_N];
  int has_fp64;
  /* limits: entries (0: 8 per triangle, grown on overflow up to MAX_CELLS
   * per triangle, the most there can be), unsure list, forced float */
  long entries_fixed;
  int unsure_cap;
  int force_float;
  long entries_cap;
  /* the mesh the buffers hold (compared at every count) */
  uint32_t *tris, *links;
  int n_tris, n_links, n_points, n_edges;
  uint32_t *edges; /* 2 per edge */
  uint32_t n_buckets;
  cl_mem pts, dtris, dedges, tlo, thi, ext, cell, bcount, start, fill, entries, big, hdr, unsure;
  int32_t *hunsure; /* host copy of the unsure list */
  int cap_pts;
  dr_crossings_last last; /* how the sim's last count went */
};

dr_crossings_last *dr_crossings_cl_last(dr_crossings_cl *k) { return &k->last; }

static int buf(dr_crossings_cl *k, cl_mem *m, size_t bytes, const void *init, const char *what,
               drape_err *e) {
  dr_cl_buffer_release(m);
  return dr_cl_buffer(k->cl, bytes, init, what, NULL, NULL, m, e);
}

static long env_long(const char *name, long lo, long hi, long *out, drape_err *e) {
  const char *v = getenv(name);
  *out = 0;
  if (!v || !*v) return DRAPE_OK;
  char *end;
  long x = strtol(v, &end, 10);
  if (*end || x < lo || x > hi)
    return drape_fail(e, DRAPE_EINVAL, "%s = %s: must be an integer in %ld..%ld", name, v, lo, hi);
  *out = x;
  return DRAPE_OK;
}

int dr_crossings_cl_create(drape_cl *cl, dr_crossings_cl **out, drape_err *e) {
  *out = NULL;
  dr_crossings_cl *k = calloc(1, sizeof *k);
  if (!k) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  k->cl = cl;
  int rc = DRAPE_OK;
  long v;
  if ((rc = env_long("DRAPE_CROSSINGS_ENTRIES", 1, 1L << 30, &v, e))) goto fail;
  k->entries_fixed = v;
  if ((rc = env_long("DRAPE_CROSSINGS_UNSURE", 1, 1L << 24, &v, e))) goto fail;
  k->unsure_cap = v ? (int)v : DEFAULT_UNSURE;
  const char *fp = getenv("DRAPE_CROSSINGS_FP");
  if (fp && *fp && strcmp(fp, "float") && strcmp(fp, "auto")) {
    rc = drape_fail(e, DRAPE_EINVAL, "DRAPE_CROSSINGS_FP = %s: must be float or auto", fp);
    goto fail;
  }
  k->force_float = fp && !strcmp(fp, "float");
  cl_device_fp_config dcfg = 0;
  if (clGetDeviceInfo(cl->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dcfg, &dcfg, NULL) !=
      CL_SUCCESS)
    dcfg = 0;
  k->has_fp64 = dcfg != 0;
  for (int i = 0; i < K_N; i++)
    if ((rc = dr_cl_kern_create(cl, knames[i], &k->k[i], e))) goto fail;
  if ((rc = buf(k, &k->hdr, sizeof(uint32_t) * H_WORDS, NULL, "crossings header", e)) ||
      (rc = buf(k, &k->cell, sizeof(float) * 4, NULL, "crossings cell", e)))
    goto fail;
  *out = k;
  return DRAPE_OK;
fail:
  dr_crossings_cl_destroy(k);
  return rc;
}

void dr_crossings_cl_destroy(dr_crossings_cl *k) {
  if (!k) return;
  for (int i = 0; i < K_N; i++) dr_cl_kern_release(&k->k[i]);
  cl_mem *all[] = {&k->pts, &k->dtris, &k->dedges, &k->tlo, &k->thi,     &k->ext,    &k->cell,
                   &k->bcount, &k->start, &k->fill,  &k->entries, &k->big, &k->hdr, &k->unsure};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dr_cl_buffer_release(all[i]);
  free(k->tris);
  free(k->links);
  free(k->edges);
  free(k->hunsure);
  free(k);
}

void dr_crossings_cl_set_limits(dr_crossings_cl *k, long entries, int unsure, int force_float) {
  if (entries >= 0) {
    k->entries_fixed = entries;
    k->entries_cap = 0; /* reallocated at the next count */
    dr_cl_buffer_release(&k->entries);
  }
  if (unsure > 0 && unsure != k->unsure_cap) {
    k->unsure_cap = unsure;
    dr_cl_buffer_release(&k->unsure);
  }
  if (force_float >= 0) k->force_float = force_float;
}

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The edges as the reference takes them: each live triangle's three, once
 * each (sorted), then the links whose ends differ. */
static int build_edges(dr_crossings_cl *k, drape_err *e) {
  const int nt = k->n_tris;
  uint64_t *ed = malloc(sizeof *ed * (3 * (size_t)nt + 1));
  if (!ed) return drape_fail(e, DRAPE_ENOMEM, "crossings: out of memory (%d triangles)", nt);
  int ne = 0;
  for (int t = 0; t < nt; t++) {
    const uint32_t *v = k->tris + 3 * (size_t)t;
    if (v[0] == v[1] && v[1] == v[2]) continue;
    for (int q = 0; q < 3; q++) {
      uint32_t a = v[q], b = v[(q + 1) % 3];
      if (a > b) { uint32_t s = a; a = b; b = s; }
      ed[ne++] = (uint64_t)a << 32 | b;
    }
  }
  qsort(ed, (size_t)ne, sizeof *ed, cmp_u64);
  free(k->edges);
  k->edges = malloc(sizeof *k->edges * 2 * ((size_t)ne + (size_t)k->n_links + 1));
  if (!k->edges) {
    free(ed);
    return drape_fail(e, DRAPE_ENOMEM, "crossings: out of memory (%d edges)", ne);
  }
  int nu = 0;
  for (int i = 0; i < ne; i++)
    if (i == 0 || ed[i] != ed[i - 1]) {
      k->edges[2 * nu] = (uint32_t)(ed[i] >> 32);
      k->edges[2 * nu + 1] = (uint32_t)ed[i];
      nu++;
    }
  free(ed);
  for (int l = 0; l < k->n_links; l++) {
    const uint32_t a = k->links[2 * (size_t)l], b = k->links[2 * (size_t)l + 1];
    if (a == b) continue;
    k->edges[2 * nu] = a;
    k->edges[2 * nu + 1] = b;
    nu++;
  }
  k->n_edges = nu;
  return DRAPE_OK;
}

/* Makes the buffers hold m's triangles and links (uploaded when they
 * changed) and room for its points. */
static int prepare(dr_crossings_cl *k, const dr_crossing_mesh *m, drape_err *e) {
  int rc;
  const size_t tb = sizeof(uint32_t) * 3 * (size_t)m->n_tris;
  const size_t lb = sizeof(uint32_t) * 2 * (size_t)m->n_links;
  const int same = k->tris && k->n_tris == m->n_tris && k->n_links == m->n_links &&
                   k->n_points == m->n_points && !memcmp(k->tris, m->tris, tb) &&
                   (!lb || !memcmp(k->links, m->links, lb));
  if (!same) {
    const int resize = !k->tris || k->n_tris != m->n_tris || k->n_links != m->n_links ||
                       k->n_points != m->n_points;
    free(k->tris);
    free(k->links);
    k->tris = malloc(tb + 4);
    k->links = malloc(lb + 4);
    if (!k->tris || !k->links) return drape_fail(e, DRAPE_ENOMEM, "crossings: out of memory");
    if (tb) memcpy(k->tris, m->tris, tb);
    if (lb) memcpy(k->links, m->links, lb);
    k->n_tris = m->n_tris;
    k->n_links = m->n_links;
    k->n_points = m->n_points;
    if ((rc = build_edges(k, e))) return rc;
    const size_t nt = (size_t)m->n_tris;
    if (resize) {
      uint32_t nb = 1024;
      while (nb < 2 * nt && nb < (1u << 30)) nb <<= 1;
      k->n_buckets = nb;
      if ((rc = buf(k, &k->dtris, tb, NULL, "crossings triangles", e)) ||
          (rc = buf(k, &k->tlo, sizeof(float) * 4 * nt, NULL, "crossings boxes", e)) ||
          (rc = buf(k, &k->thi, sizeof(float) * 4 * nt, NULL, "crossings boxes", e)) ||
          (rc = buf(k, &k->ext, sizeof(float) * nt, NULL, "crossings extents", e)) ||
          (rc = buf(k, &k->big, sizeof(int32_t) * nt, NULL, "crossings big list", e)) ||
          (rc = buf(k, &k->bcount, sizeof(uint32_t) * nb, NULL, "crossings buckets", e)) ||
          (rc = buf(k, &k->start, sizeof(uint32_t) * (nb + 1), NULL, "crossings buckets", e)) ||
          (rc = buf(k, &k->fill, sizeof(uint32_t) * nb, NULL, "crossings buckets", e)))
        return rc;
      k->entries_cap = 0;
      dr_cl_buffer_release(&k->entries);
    }
    if (tb)
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(k->cl->queue, k->dtris, CL_FALSE, 0, tb, k->tris, 0,
                                           NULL, NULL));
    if ((rc = buf(k, &k->dedges, sizeof(uint32_t) * 2 * (size_t)k->n_edges, k->edges,
                  "crossings edges", e)))
      return rc;
  }
  if (!k->entries) {
    long cap = k->entries_fixed ? k->entries_fixed
                                : (k->entries_cap ? k->entries_cap : 8L * m->n_tris + 1024);
    k->entries_cap = cap;
    if ((rc = buf(k, &k->entries, sizeof(int32_t) * 4 * (size_t)cap, NULL, "crossings entries",
                  e)))
      return rc;
  }
  if (!k->unsure) {
    free(k->hunsure);
    k->hunsure = malloc(sizeof(int32_t) * 2 * (size_t)k->unsure_cap);
    if (!k->hunsure) return drape_fail(e, DRAPE_ENOMEM, "crossings: out of memory");
    if ((rc = buf(k, &k->unsure, sizeof(int32_t) * 2 * (size_t)k->unsure_cap, NULL,
                  "crossings unsure pairs", e)))
      return rc;
  }
  return DRAPE_OK;
}

#define A(name, v) DRAPE_CL_ARG(name, v)
#define BIND(kn, ...)                                                  \
  do {                                                                 \
    int rc_ = DRAPE_CL_BIND(&k->k[kn], 0, e, __VA_ARGS__);             \
    if (rc_) return rc_;                                               \
  } while (0)

static int launch(dr_crossings_cl *k, int kn, size_t n, size_t local, drape_err *e) {
  return dr_cl_launch(k->cl, &k->k[kn], n, local, NULL, e);
}

static void pt(const float *x, int stride, uint32_t i, double p[3]) {
  const float *q = x + (size_t)stride * i;
  p[0] = q[0], p[1] = q[1], p[2] = q[2];
}

/* The reference's test (crossings.c), exact. */
static int crosses_exact(const double p[3], const double q[3], const double a[3],
                         const double b[3], const double c[3]) {
  const int sp = dr_orient3d(a, b, c, p), sq = dr_orient3d(a, b, c, q);
  if (sp == 0 || sq == 0 || sp == sq) return 0;
  const int s1 = dr_orient3d(p, q, a, b), s2 = dr_orient3d(p, q, b, c), s3 = dr_orient3d(p, q, c, a);
  return s1 != 0 && s1 == s2 && s2 == s3;
}

int dr_crossings_cl_count(dr_crossings_cl *k, const dr_crossing_mesh *m, cl_mem x_dev,
                          dr_crossings_host_x host_x, void *ctx, long *count,
                          dr_crossings_info *info, drape_err *e) {
  dr_crossings_info inf;
  memset(&inf, 0, sizeof inf);
  *count = 0;
  int rc;
  if ((rc = prepare(k, m, e))) return rc;
  inf.dbl = k->has_fp64 && !k->force_float;
  const cl_command_queue q = k->cl->queue;
  cl_mem pts = x_dev;
  if (!pts) { /* the caller's points, as float4 */
    const size_t np = (size_t)m->n_points;
    float *x4 = malloc(sizeof(float) * 4 * (np + 1));
    if (!x4) return drape_fail(e, DRAPE_ENOMEM, "crossings: out of memory");
    for (size_t i = 0; i < np; i++) {
      memcpy(x4 + 4 * i, m->x + (size_t)m->stride * i, 3 * sizeof(float));
      x4[4 * i + 3] = 0.0f;
    }
    if (!k->pts || k->cap_pts < m->n_points) {
      if ((rc = buf(k, &k->pts, sizeof(float) * 4 * (np + 1), NULL, "crossings points", e))) {
        free(x4);
        return rc;
      }
      k->cap_pts = m->n_points;
    }
    cl_int wrc = np ? clEnqueueWriteBuffer(q, k->pts, CL_TRUE, 0, sizeof(float) * 4 * np, x4, 0,
                                           NULL, NULL)
                    : CL_SUCCESS;
    free(x4);
    if (wrc != CL_SUCCESS)
      return drape_fail(e, DRAPE_ECL, "clEnqueueWriteBuffer(crossings points): %s",
                        drape_cl_errstr(wrc));
    pts = k->pts;
  }
  const int np = m->n_points, nt = m->n_tris, ne = k->n_edges;
  const uint32_t mask = k->n_buckets - 1, nb = k->n_buckets, cap = (uint32_t)k->entries_cap,
                 ucap = (uint32_t)k->unsure_cap;
  const int dbl = inf.dbl;
  if ((rc = dr_cl_fill0(k->cl, k->hdr, sizeof(uint32_t) * H_WORDS, NULL, e))) return rc;
  if (nt > 0 && (rc = dr_cl_fill0(k->cl, k->bcount, sizeof(uint32_t) * nb, NULL, e))) return rc;
  BIND(K_POINTS, A("pts", pts), A("n_points", np), A("hdr", k->hdr));
  if ((rc = launch(k, K_POINTS, (size_t)np, 0, e))) return rc;
  if (nt > 0) {
    BIND(K_BOXES, A("pts", pts), A("tris", k->dtris), A("n_tris", nt), A("tlo", k->tlo),
         A("thi", k->thi), A("ext", k->ext));
    BIND(K_CELL, A("ext", k->ext), A("n_tris", nt), A("cell", k->cell));
    BIND(K_COUNT, A("tlo", k->tlo), A("thi", k->thi), A("n_tris", nt), A("cell", k->cell),
         A("bcount", k->bcount), A("mask", mask), A("big", k->big), A("hdr", k->hdr));
    BIND(K_SCAN, A("bcount", k->bcount), A("n", nb), A("start", k->start), A("fill", k->fill),
         A("hdr", k->hdr), A("cap", cap));
    BIND(K_FILL, A("tlo", k->tlo), A("thi", k->thi), A("n_tris", nt), A("cell", k->cell),
         A("fill", k->fill), A("mask", mask), A("entries", k->entries), A("hdr", k->hdr));
    BIND(K_EDGES, A("pts", pts), A("tris", k->dtris), A("edges", k->dedges), A("n_edges", ne),
         A("tlo", k->tlo), A("thi", k->thi), A("n_tris", nt), A("cell", k->cell),
         A("start", k->start), A("mask", mask), A("entries", k->entries), A("big", k->big),
         A("hdr", k->hdr), A("unsure", k->unsure), A("ucap", ucap), A("dbl", dbl));
    if ((rc = launch(k, K_BOXES, (size_t)nt, 0, e)) ||
        (rc = launch(k, K_CELL, CR_GROUP, CR_GROUP, e)) ||
        (rc = launch(k, K_COUNT, (size_t)nt, 0, e)) ||
        (rc = launch(k, K_SCAN, CR_GROUP, CR_GROUP, e)) ||
        (rc = launch(k, K_FILL, (size_t)nt, 0, e)) ||
        (rc = launch(k, K_EDGES, (size_t)ne, 0, e)))
      return rc;
  }
  uint32_t h[H_WORDS];
  DRAPE_CL_TRY(e, clEnqueueReadBuffer(q, k->hdr, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL));
  inf.flags = (int)h[H_FLAGS];
  inf.unsure = h[H_UNSURE];
  inf.entries = h[H_ENTRIES];
  inf.big = h[H_BIG];
  inf.all = h[H_ALL];
  inf.pairs = h[H_PAIRS];
  inf.edges = ne;
  if (h[H_FLAGS] & F_ENTRIES) {
    /* next time room for what this state wanted (a quarter more), never
     * more than the most there can be; a fixed capacity stays */
    const long most = (long)MAX_CELLS * nt + 1024;
    long want = (long)h[H_ENTRIES] + (long)h[H_ENTRIES] / 4;
    if (!k->entries_fixed && want > k->entries_cap) {
      k->entries_cap = want < most ? want : most;
      dr_cl_buffer_release(&k->entries);
    }
  }
  if (h[H_FLAGS]) { /* the host counts this one */
    inf.device = 0;
    if (info) *info = inf;
    return DRAPE_OK;
  }
  long found = h[H_COUNT];
  if (h[H_UNSURE] > 0) {
    const size_t nu = h[H_UNSURE];
    DRAPE_CL_TRY(e, clEnqueueReadBuffer(q, k->unsure, CL_TRUE, 0, sizeof(int32_t) * 2 * nu,
                                        k->hunsure, 0, NULL, NULL));
    const float *x = m->x;
    int stride = m->stride;
    if (!x) {
      if (!(x = host_x(ctx, e))) return e ? e->code : DRAPE_EIO;
      stride = 4;
    }
    for (size_t i = 0; i < nu; i++) {
      const int ed = k->hunsure[2 * i], t = k->hunsure[2 * i + 1];
      const uint32_t a = k->edges[2 * ed], b = k->edges[2 * ed + 1];
      const uint32_t *v = m->tris + 3 * (size_t)t;
      double p[3], qq[3], x0[3], x1[3], x2[3];
      pt(x, stride, a, p), pt(x, stride, b, qq);
      pt(x, stride, v[0], x0), pt(x, stride, v[1], x1), pt(x, stride, v[2], x2);
      found += crosses_exact(p, qq, x0, x1, x2);
    }
  }
  inf.device = 1;
  *count = found;
  if (info) *info = inf;
  return DRAPE_OK;
}
