/* Self-collision, OpenCL host side (selfcol_cl.h). Every launch goes on the
 * runtime's in-order queue; kernel arguments are set at each launch (host
 * only, cheap) because the position buffers belong to the caller. */
#include <stdlib.h>
#include <string.h>

#include "cloth/selfcol_cl.h"

static const char *const sk_names[SK_COUNT] = {
    "hash_scan_block",      "hash_scan_add",          "hash_sort_buckets",
    "selfcol_clamp",        "hash_count_particles",   "hash_scatter_particles",
    "selfcol_particles",    "selfcol_apply",          "hash_tri_extent",
    "hash_count_triangles", "hash_scatter_triangles", "selfcol_vertex_triangle",
    "selfcol_corner_count", "selfcol_corner_scatter", "selfcol_vt_gather",
    "hash_scan_chunks",     "hash_scan_totals",       "hash_scan_chunks_add"};

#define A(v) sizeof(v), (const void *)&(v)

static int keep_event(selfcol_cl *s, cl_event ev, drape_err *e) {
  if (s->n_ev == s->cap_ev) {
    int cap = s->cap_ev ? 2 * s->cap_ev : 256;
    cl_event *ne = realloc(s->ev, sizeof *ne * (size_t)cap);
    if (ne) s->ev = ne;
    int *np = realloc(s->ev_part, sizeof *np * (size_t)cap);
    if (np) s->ev_part = np;
    if (!ne || !np) {
      clReleaseEvent(ev);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision profiling events)");
    }
    s->cap_ev = cap;
  }
  s->ev[s->n_ev] = ev;
  s->ev_part[s->n_ev++] = s->cur_part;
  return DRAPE_OK;
}

/* n work items, local size `local` (0: the runtime's default of 64). */
static int launch(selfcol_cl *s, int k, size_t n, size_t local, drape_err *e) {
  if (n == 0) return DRAPE_OK;
  cl_event ev = NULL;
  int prof = s->cl->profiling;
  if (!local) {
    local = 64;
    if (s->cl->max_wg && s->cl->max_wg < local) local = s->cl->max_wg;
  }
  size_t global = (n + local - 1) / local * local;
  cl_int rc = clEnqueueNDRangeKernel(s->cl->queue, s->k[k], 1, NULL, &global, &local, 0, NULL,
                                     prof ? &ev : NULL);
  if (rc != CL_SUCCESS)
    return drape_fail(e, DRAPE_ECL, "clEnqueueNDRangeKernel(%s, %zu items): %s", sk_names[k], n,
                      drape_cl_errstr(rc));
  s->launches++;
  return prof ? keep_event(s, ev, e) : DRAPE_OK;
}

static int fill0(selfcol_cl *s, cl_mem m, size_t bytes, drape_err *e) {
  const cl_uint zero = 0;
  cl_event ev = NULL;
  int prof = s->cl->profiling;
  DRAPE_CL_TRY(e, clEnqueueFillBuffer(s->cl->queue, m, &zero, sizeof zero, 0, bytes, 0, NULL,
                                      prof ? &ev : NULL));
  s->launches++;
  return prof ? keep_event(s, ev, e) : DRAPE_OK;
}

static int mk(selfcol_cl *s, cl_mem *out, size_t bytes, const void *init, const char *what,
              drape_err *e) {
  cl_int rc;
  if (bytes == 0) bytes = 16;
  *out = clCreateBuffer(s->cl->ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                        (void *)init, &rc);
  if (rc != CL_SUCCESS)
    return drape_fail(e, DRAPE_ECL, "clCreateBuffer(self-collision %s, %zu bytes): %s", what, bytes,
                      drape_cl_errstr(rc));
  s->bytes += bytes;
  return DRAPE_OK;
}

static void rel(cl_mem *m) {
  if (*m) clReleaseMemObject(*m);
  *m = NULL;
}

/* ---- the scan ---- */
/* The chunked scan on CPU devices (kernels/hash.cl says why), unless a
 * test asked for one form (selfcol_cl_set_forms). */
static int g_forms = -1;
void selfcol_cl_set_forms(int forms) { g_forms = forms; }
static int scan_chunked_for(const drape_cl *cl) {
  return g_forms >= 0 ? g_forms : (cl->type & CL_DEVICE_TYPE_CPU) != 0;
}

static int scan_plan_form(selfcol_cl *s, selfcol_scan *sc, size_t n, int chunked, drape_err *e) {
  memset(sc, 0, sizeof *sc);
  if (chunked) {
    /* a few chunks per compute unit, none shorter than 256 counts */
    size_t parts = 8 * (size_t)(s->cl->compute_units ? s->cl->compute_units : 1);
    size_t chunk = (n + parts - 1) / parts;
    if (chunk < 256) chunk = 256;
    sc->chunked = 1;
    sc->chunk = (cl_uint)chunk;
    sc->n_chunks = (cl_uint)((n + chunk - 1) / chunk);
    sc->n[0] = (cl_uint)n;
    return mk(s, &sc->sums[0], sc->n_chunks * sizeof(cl_uint), NULL, "scan chunk totals", e);
  }
  const size_t per = 2 * s->local;
  size_t m = n;
  for (int l = 0; l < SELFCOL_SCAN_LEVELS; l++) {
    sc->n[l] = (cl_uint)m;
    sc->groups[l] = (m + per - 1) / per;
    int rc = mk(s, &sc->sums[l], sc->groups[l] * sizeof(cl_uint), NULL, "scan block sums", e);
    if (rc) return rc;
    sc->levels = l + 1;
    if (sc->groups[l] <= 1) return DRAPE_OK;
    m = sc->groups[l];
  }
  return drape_fail(e, DRAPE_EINVAL, "self-collision: %zu elements are too many to scan", n);
}

static int scan_plan(selfcol_cl *s, selfcol_scan *sc, size_t n, drape_err *e) {
  return scan_plan_form(s, sc, n, s->cpu_forms, e);
}


static void scan_free(selfcol_scan *sc) {
  for (int l = 0; l < SELFCOL_SCAN_LEVELS; l++) rel(&sc->sums[l]);
  sc->levels = 0;
}

/* Exclusive scan of data[0, n) in place: block scans up the levels, then
 * the scanned block totals added back down. */
static int scan_run(selfcol_cl *s, const selfcol_scan *sc, cl_mem data, drape_err *e) {
  int rc;
  if (sc->chunked) {
    const cl_uint n = sc->n[0], chunk = sc->chunk, m = sc->n_chunks;
    if ((rc = drape_cl_set_args(s->k[SK_SCAN_CHUNKS], sk_names[SK_SCAN_CHUNKS], e, 4, A(data),
                                A(sc->sums[0]), A(n), A(chunk))) ||
        (rc = launch(s, SK_SCAN_CHUNKS, m, 0, e)) ||
        (rc = drape_cl_set_args(s->k[SK_SCAN_TOTALS], sk_names[SK_SCAN_TOTALS], e, 2,
                                A(sc->sums[0]), A(m))) ||
        (rc = launch(s, SK_SCAN_TOTALS, 1, 1, e)) ||
        (rc = drape_cl_set_args(s->k[SK_SCAN_CHUNKS_ADD], sk_names[SK_SCAN_CHUNKS_ADD], e, 4,
                                A(data), A(sc->sums[0]), A(n), A(chunk))))
      return rc;
    return launch(s, SK_SCAN_CHUNKS_ADD, m, 0, e);
  }
  for (int l = 0; l < sc->levels; l++) {
    cl_mem in = l == 0 ? data : sc->sums[l - 1];
    cl_uint n = sc->n[l];
    if ((rc = drape_cl_set_args(s->k[SK_SCAN_BLOCK], sk_names[SK_SCAN_BLOCK], e, 3, A(in),
                                A(sc->sums[l]), A(n))))
      return rc;
    DRAPE_CL_TRY(e, clSetKernelArg(s->k[SK_SCAN_BLOCK], 3, s->local * sizeof(cl_uint), NULL));
    if ((rc = launch(s, SK_SCAN_BLOCK, sc->groups[l] * s->local, s->local, e))) return rc;
  }
  for (int l = sc->levels - 2; l >= 0; l--) {
    cl_mem io = l == 0 ? data : sc->sums[l - 1];
    cl_uint n = sc->n[l];
    if ((rc = drape_cl_set_args(s->k[SK_SCAN_ADD], sk_names[SK_SCAN_ADD], e, 3, A(io),
                                A(sc->sums[l]), A(n))))
      return rc;
    if ((rc = launch(s, SK_SCAN_ADD, n, s->local, e))) return rc;
  }
  return DRAPE_OK;
}

/* cap: the most entries any reader takes from the front of a bucket. */
static int sort_buckets(selfcol_cl *s, cl_mem start, cl_mem vals, cl_uint n_buckets,
                        cl_uint cap, drape_err *e) {
  int rc = drape_cl_set_args(s->k[SK_SORT], sk_names[SK_SORT], e, 4, A(start), A(vals),
                             A(n_buckets), A(cap));
  return rc ? rc : launch(s, SK_SORT, n_buckets, 0, e);
}

static int pick_local(drape_cl *cl, cl_kernel k, size_t *out, drape_err *e) {
  size_t kwg = 0;
  DRAPE_CL_TRY(e, clGetKernelWorkGroupInfo(k, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg,
                                           &kwg, NULL));
  size_t lim = cl->max_wg ? cl->max_wg : 256;
  if (kwg && kwg < lim) lim = kwg;
  size_t L = 256;
  while (L > lim) L >>= 1;
  if (L < 1) L = 1;
  *out = L;
  return DRAPE_OK;
}

/* ---- create / destroy ---- */
int selfcol_cl_create(drape_cl *cl, const selfcol_desc *d, selfcol_cl *s, drape_err *e) {
  memset(s, 0, sizeof *s);
  s->cl = cl;
  s->cpu_forms = scan_chunked_for(cl);
  int rc = selfcol_tables_build(d, &s->tb, e);
  if (rc) return rc;
  for (int k = 0; k < SK_COUNT; k++)
    if ((rc = drape_cl_kernel(cl, sk_names[k], &s->k[k], e))) goto fail;
  if ((rc = pick_local(cl, s->k[SK_SCAN_BLOCK], &s->local, e))) goto fail;
  const selfcol_tables *t = &s->tb;
  size_t n = (size_t)(t->n > 0 ? t->n : 1), nt = (size_t)(t->n_tris > 0 ? t->n_tris : 1);
  size_t K = SELFCOL_SLOTS, Bp = (size_t)t->mask_p + 1, Bt = (size_t)t->mask_t + 1;
  size_t u = sizeof(cl_uint), f4 = sizeof(dr_float4);
  if ((rc = mk(s, &s->sobj, n * u, t->sobj, "particle objects", e)) ||
      (rc = mk(s, &s->tobj, nt * u, t->tobj, "triangle objects", e)) ||
      (rc = mk(s, &s->objp, (size_t)t->n_objects * f4, t->objp, "object parameters", e)) ||
      (rc = mk(s, &s->objf, (size_t)t->n_objects * u, t->objf, "object flags", e)) ||
      (rc = mk(s, &s->rest, n * f4, t->rest, "rest positions", e)) ||
      (rc = mk(s, &s->pkey, n * u, NULL, "particle keys", e)) ||
      (rc = mk(s, &s->prank, n * u, NULL, "particle ranks", e)) ||
      (rc = mk(s, &s->pcount, (Bp + 1) * u, NULL, "particle buckets", e)) ||
      (rc = mk(s, &s->pvals, n * u, NULL, "particle entries", e)) ||
      (rc = mk(s, &s->delta, n * f4, NULL, "particle corrections", e)) ||
      (rc = mk(s, &s->wsc, n * sizeof(float), NULL, "pass inverse masses", e)) ||
      (rc = mk(s, &s->ncon, n * u, NULL, "particle contact counts", e)) ||
      (rc = mk(s, &s->maxbits, u, NULL, "triangle extent", e)) ||
      (rc = mk(s, &s->tkey, 8 * nt * u, NULL, "triangle keys", e)) ||
      (rc = mk(s, &s->tbox, 2 * nt * f4, NULL, "triangle boxes", e)) ||
      (rc = mk(s, &s->trank, 8 * nt * u, NULL, "triangle ranks", e)) ||
      (rc = mk(s, &s->tcount, (Bt + 1) * u, NULL, "triangle buckets", e)) ||
      (rc = mk(s, &s->tvals, 8 * nt * u, NULL, "triangle entries", e)) ||
      (rc = mk(s, &s->rec_a, K * n * f4, NULL, "contact corrections", e)) ||
      (rc = mk(s, &s->rec_b, K * n * f4, NULL, "contact weights", e)) ||
      (rc = mk(s, &s->rec_t, K * n * u, NULL, "contact triangles", e)) ||
      (rc = mk(s, &s->nvt, n * u, NULL, "vertex contact counts", e)) ||
      (rc = mk(s, &s->ccount, (n + 1) * u, NULL, "corner buckets", e)) ||
      (rc = mk(s, &s->crank, 3 * K * n * u, NULL, "corner ranks", e)) ||
      (rc = mk(s, &s->cvals, 3 * K * n * u, NULL, "corner entries", e)) ||
      (rc = mk(s, &s->pexam, n * u, NULL, "particle query entries", e)) ||
      (rc = mk(s, &s->vexam, n * u, NULL, "vertex query entries", e)) ||
      (rc = mk(s, &s->caps, (size_t)t->n_objects * SELFCOL_CAPC_STRIDE * u, NULL, "cap counters",
               e)) ||
      (rc = scan_plan(s, &s->scan_p, Bp + 1, e)) || (rc = scan_plan(s, &s->scan_t, Bt + 1, e)) ||
      (rc = scan_plan(s, &s->scan_c, n + 1, e)))
    goto fail;
  s->caps_host = calloc((size_t)t->n_objects * SELFCOL_CAPC_STRIDE, sizeof *s->caps_host);
  if (!s->caps_host) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision cap counters)");
    goto fail;
  }
  /* A vertex-triangle pass may run before any particle pass wrote these. */
  if ((rc = fill0(s, s->nvt, n * u, e)) || (rc = fill0(s, s->ncon, n * u, e)) ||
      (rc = fill0(s, s->pexam, n * u, e)) || (rc = fill0(s, s->vexam, n * u, e)) ||
      (rc = fill0(s, s->caps, (size_t)t->n_objects * SELFCOL_CAPC_STRIDE * u, e)))
    goto fail;
  DRAPE_CL_TRY(e, clFinish(cl->queue));
  for (int i = 0; i < s->n_ev; i++) clReleaseEvent(s->ev[i]);
  s->n_ev = 0;
  return DRAPE_OK;
fail:
  selfcol_cl_destroy(s);
  return rc;
}

void selfcol_cl_destroy(selfcol_cl *s) {
  if (s->cl && s->cl->queue && (s->n_ev || s->caps_ev)) clFinish(s->cl->queue);
  if (s->caps_ev) clReleaseEvent(s->caps_ev);
  free(s->caps_host);
  for (int i = 0; i < s->n_ev; i++) clReleaseEvent(s->ev[i]);
  free(s->ev);
  free(s->ev_part);
  for (int k = 0; k < SK_COUNT; k++)
    if (s->k[k]) clReleaseKernel(s->k[k]);
  cl_mem *all[] = {&s->sobj,   &s->tobj,  &s->objp,  &s->objf,    &s->rest,  &s->pkey,
                   &s->prank,  &s->pcount, &s->pvals, &s->delta, &s->wsc,  &s->ncon,  &s->maxbits,
                   &s->tkey, &s->tbox, &s->trank, &s->tcount, &s->tvals,   &s->rec_a, &s->rec_b,
                   &s->rec_t,  &s->nvt,   &s->ccount, &s->crank,   &s->cvals,
                   &s->pexam,  &s->vexam, &s->caps};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) rel(all[i]);
  scan_free(&s->scan_p);
  scan_free(&s->scan_t);
  scan_free(&s->scan_c);
  selfcol_tables_free(&s->tb);
  memset(s, 0, sizeof *s);
}

/* ---- the parts ---- */
int selfcol_cl_clamp(selfcol_cl *s, cl_mem x, cl_mem p, const selfcol_colliders *col,
                     cl_mem spheres, drape_err *e) {
  s->cur_part = SELFCOL_T_CLAMP;
  const float frac = SELFCOL_CLAMP, band = SELFCOL_SUPPORT;
  const cl_int n = s->tb.n;
  const cl_int has_floor = col ? col->has_floor : 0;
  const cl_int n_sph = col && spheres ? col->n_spheres : 0;
  const float floor_y = col ? col->floor_y : 0.0f, t_end = col ? col->t_end : 0.0f;
  cl_mem sph = n_sph > 0 ? spheres : s->objp; /* never read when there are none */
  int rc = drape_cl_set_args(s->k[SK_CLAMP], sk_names[SK_CLAMP], e, 13, A(x), A(p), A(s->sobj),
                             A(s->objp), A(s->wsc), A(frac), A(band), A(has_floor), A(floor_y),
                             A(sph), A(n_sph), A(t_end), A(n));
  return rc ? rc : launch(s, SK_CLAMP, (size_t)n, 0, e);
}

int selfcol_cl_hash_particles(selfcol_cl *s, cl_mem x, drape_err *e) {
  s->cur_part = SELFCOL_T_HASH_PARTICLES;
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n;
  const float inv = 1.0f / t->cell;
  const cl_uint mask = t->mask_p, B = t->mask_p + 1;
  int rc;
  if ((rc = fill0(s, s->pcount, (B + 1) * sizeof(cl_uint), e)) ||
      (rc = drape_cl_set_args(s->k[SK_COUNT_P], sk_names[SK_COUNT_P], e, 8, A(x), A(s->sobj),
                              A(s->pkey), A(s->prank), A(s->pcount), A(n), A(inv), A(mask))) ||
      (rc = launch(s, SK_COUNT_P, (size_t)n, 0, e)) ||
      (rc = scan_run(s, &s->scan_p, s->pcount, e)) ||
      (rc = drape_cl_set_args(s->k[SK_SCATTER_P], sk_names[SK_SCATTER_P], e, 6, A(s->sobj),
                              A(s->pkey), A(s->prank), A(s->pcount), A(s->pvals), A(n))) ||
      (rc = launch(s, SK_SCATTER_P, (size_t)n, 0, e)))
    return rc;
  return sort_buckets(s, s->pcount, s->pvals, B, t->cap_p, e);
}

int selfcol_cl_particles(selfcol_cl *s, cl_mem x, cl_mem p, drape_err *e) {
  s->cur_part = SELFCOL_T_PARTICLES;
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n;
  const float inv = 1.0f / t->cell;
  const cl_uint mask = t->mask_p;
  const float reach = t->t_max;
  const cl_uint cap = t->cap_p;
  const cl_int cap_n = (cl_int)t->cap_n;
  int rc;
  if ((rc = drape_cl_set_args(s->k[SK_PARTICLES], sk_names[SK_PARTICLES], e, 19, A(x), A(p),
                              A(s->wsc), A(s->rest), A(s->sobj), A(s->objf), A(s->objp), A(s->pcount),
                              A(s->pvals), A(s->delta), A(s->ncon), A(n), A(inv), A(reach),
                              A(mask), A(cap), A(cap_n), A(s->pexam), A(s->caps))) ||
      (rc = launch(s, SK_PARTICLES, (size_t)n, 0, e)) ||
      (rc = drape_cl_set_args(s->k[SK_APPLY], sk_names[SK_APPLY], e, 3, A(x), A(s->delta), A(n))))
    return rc;
  return launch(s, SK_APPLY, (size_t)n, 0, e);
}

int selfcol_cl_hash_triangles(selfcol_cl *s, cl_mem x, cl_mem tris, drape_err *e) {
  s->cur_part = SELFCOL_T_HASH_TRIANGLES;
  const selfcol_tables *t = &s->tb;
  const cl_int nt = t->n_tris;
  const float grow = t->t_max;
  const cl_uint mask = t->mask_t, B = t->mask_t + 1;
  int rc;
  if ((rc = fill0(s, s->maxbits, sizeof(cl_uint), e)) ||
      (rc = fill0(s, s->tcount, (B + 1) * sizeof(cl_uint), e)) ||
      (rc = drape_cl_set_args(s->k[SK_TRI_EXTENT], sk_names[SK_TRI_EXTENT], e, 7, A(x), A(tris),
                              A(s->tobj), A(nt), A(grow), A(s->maxbits), A(s->tbox))) ||
      (rc = launch(s, SK_TRI_EXTENT, (size_t)nt, 0, e)) ||
      (rc = drape_cl_set_args(s->k[SK_COUNT_T], sk_names[SK_COUNT_T], e, 9, A(s->tbox), A(tris),
                              A(s->tobj), A(s->maxbits), A(s->tkey), A(s->trank), A(s->tcount),
                              A(nt), A(mask))) ||
      (rc = launch(s, SK_COUNT_T, (size_t)nt, 0, e)) ||
      (rc = scan_run(s, &s->scan_t, s->tcount, e)) ||
      (rc = drape_cl_set_args(s->k[SK_SCATTER_T], sk_names[SK_SCATTER_T], e, 5, A(s->tkey),
                              A(s->trank), A(s->tcount), A(s->tvals), A(nt))) ||
      (rc = launch(s, SK_SCATTER_T, (size_t)nt, 0, e)))
    return rc;
  return sort_buckets(s, s->tcount, s->tvals, B, t->cap_t, e);
}

int selfcol_cl_vertex_triangle(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris, drape_err *e) {
  s->cur_part = SELFCOL_T_VERTEX_TRIANGLE;
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n, K = SELFCOL_SLOTS;
  const cl_uint mask = t->mask_t, cap_t = t->cap_t, cap_c = t->cap_c;
  int rc;
  const float grow = t->t_max;
  if ((rc = drape_cl_set_args(s->k[SK_VT], sk_names[SK_VT], e, 24, A(x), A(p), A(s->wsc), A(s->rest),
                              A(s->sobj), A(s->objf), A(s->objp), A(tris), A(s->tobj),
                              A(s->tbox), A(grow), A(s->maxbits), A(s->tcount), A(s->tvals), A(s->rec_a),
                              A(s->rec_b), A(s->rec_t), A(s->nvt), A(n), A(K), A(mask), A(cap_t),
                              A(s->vexam), A(s->caps))) ||
      (rc = launch(s, SK_VT, (size_t)n, 0, e)) ||
      (rc = fill0(s, s->ccount, ((size_t)n + 1) * sizeof(cl_uint), e)) ||
      (rc = drape_cl_set_args(s->k[SK_CORNER_COUNT], sk_names[SK_CORNER_COUNT], e, 7, A(tris),
                              A(s->rec_t), A(s->nvt), A(s->ccount), A(s->crank), A(n), A(K))) ||
      (rc = launch(s, SK_CORNER_COUNT, (size_t)n, 0, e)) ||
      (rc = scan_run(s, &s->scan_c, s->ccount, e)) ||
      (rc = drape_cl_set_args(s->k[SK_CORNER_SCATTER], sk_names[SK_CORNER_SCATTER], e, 8, A(tris),
                              A(s->rec_t), A(s->nvt), A(s->ccount), A(s->crank), A(s->cvals),
                              A(n), A(K))) ||
      (rc = launch(s, SK_CORNER_SCATTER, (size_t)n, 0, e)) ||
      (rc = sort_buckets(s, s->ccount, s->cvals, (cl_uint)n, cap_c, e)) ||
      (rc = drape_cl_set_args(s->k[SK_VT_GATHER], sk_names[SK_VT_GATHER], e, 12, A(x), A(s->wsc), A(s->rec_a),
                              A(s->rec_b), A(s->nvt), A(s->ccount), A(s->cvals), A(n), A(K),
                              A(s->sobj), A(cap_c), A(s->caps))))
    return rc;
  return launch(s, SK_VT_GATHER, (size_t)n, 0, e);
}

/* ---- the cap counters ----
 * The device counts capped queries per object (sc_cap_hit); the host
 * learns of them without waiting: a run starts by looking whether the read
 * it left in flight has completed (then warns, selfcol_caps_warn) and ends
 * by enqueueing a new one if none is in flight. The solver's frame ends
 * with a clFinish, so a capped query is warned about by the next frame at
 * the latest; a sane scene pays one 32-byte read per object and frame or
 * so, and no wait. */
static int caps_poll(selfcol_cl *s, int wait, drape_err *e) {
  if (!s->caps_ev) return DRAPE_OK;
  if (wait) DRAPE_CL_TRY(e, clWaitForEvents(1, &s->caps_ev));
  cl_int st = CL_QUEUED;
  DRAPE_CL_TRY(e, clGetEventInfo(s->caps_ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                                 NULL));
  if (st < 0)
    return drape_fail(e, DRAPE_ECL, "self-collision: reading the cap counters failed: %s",
                      drape_cl_errstr(st));
  if (st != CL_COMPLETE) return DRAPE_OK;
  clReleaseEvent(s->caps_ev);
  s->caps_ev = NULL;
  selfcol_caps_warn(&s->tb, s->caps_host);
  return DRAPE_OK;
}

static int caps_read(selfcol_cl *s, drape_err *e) {
  if (s->caps_ev) return DRAPE_OK;
  const size_t bytes = (size_t)s->tb.n_objects * SELFCOL_CAPC_STRIDE * sizeof(cl_uint);
  DRAPE_CL_TRY(e, clEnqueueReadBuffer(s->cl->queue, s->caps, CL_FALSE, 0, bytes, s->caps_host, 0,
                                      NULL, &s->caps_ev));
  return DRAPE_OK;
}

int selfcol_cl_caps(selfcol_cl *s, uint32_t *out, drape_err *e) {
  int rc;
  if ((rc = caps_poll(s, 1, e)) || (rc = caps_read(s, e)) || (rc = caps_poll(s, 1, e))) return rc;
  if (out)
    memcpy(out, s->caps_host, (size_t)s->tb.n_objects * SELFCOL_CAPC_STRIDE * sizeof *out);
  return DRAPE_OK;
}

int selfcol_cl_run(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris, const selfcol_colliders *col,
                   cl_mem spheres, drape_err *e) {
  if (!s->tb.any) return DRAPE_OK;
  int rc;
  if ((rc = caps_poll(s, 0, e))) return rc;
  if ((rc = selfcol_cl_clamp(s, x, p, col, spheres, e)) || (rc = selfcol_cl_hash_particles(s, x, e)) ||
      (rc = selfcol_cl_particles(s, x, p, e)))
    return rc;
  if (s->tb.any_tris && ((rc = selfcol_cl_hash_triangles(s, x, tris, e)) ||
                         (rc = selfcol_cl_vertex_triangle(s, x, p, tris, e))))
    return rc;
  return caps_read(s, e);
}

int selfcol_cl_collect(selfcol_cl *s, double *total_ms, drape_err *e) {
  double total = 0.0;
  int rc = DRAPE_OK;
  for (int i = 0; i < s->n_ev; i++) {
    double ms;
    drape_err later = {0}; /* the first failure's message is the one kept */
    if (drape_cl_event_ms(s->ev[i], "self-collision", &ms, rc ? &later : e)) {
      rc = DRAPE_ECL;
    } else {
      s->ms[s->ev_part[i]] += ms;
      total += ms;
    }
    clReleaseEvent(s->ev[i]);
  }
  s->n_ev = 0;
  if (total_ms) *total_ms = total;
  return rc;
}

int selfcol_cl_scan_host(drape_cl *cl, uint32_t *data, size_t n, uint32_t *total, drape_err *e) {
  return selfcol_cl_scan_host_form(cl, data, n, total, -1, e);
}

int selfcol_cl_scan_host_form(drape_cl *cl, uint32_t *data, size_t n, uint32_t *total, int form,
                              drape_err *e) {
  /* A minimal wrapper: only the scan kernels and one buffer of n + 1. */
  selfcol_cl s;
  memset(&s, 0, sizeof s);
  s.cl = cl;
  cl_mem buf = NULL;
  int rc;
  const int chunked = form < 0 ? scan_chunked_for(cl) : form;
  static const int scan_kernels[] = {SK_SCAN_BLOCK, SK_SCAN_ADD, SK_SCAN_CHUNKS, SK_SCAN_TOTALS,
                                     SK_SCAN_CHUNKS_ADD};
  for (size_t q = 0; q < sizeof scan_kernels / sizeof scan_kernels[0]; q++)
    if ((rc = drape_cl_kernel(cl, sk_names[scan_kernels[q]], &s.k[scan_kernels[q]], e))) goto done;
  if ((rc = pick_local(cl, s.k[SK_SCAN_BLOCK], &s.local, e)) ||
      (rc = scan_plan_form(&s, &s.scan_c, n + 1, chunked, e)) ||
      (rc = mk(&s, &buf, (n + 1) * sizeof(cl_uint), NULL, "scan test data", e)))
    goto done;
  const cl_uint zero = 0;
  cl_int cr;
  if ((cr = clEnqueueWriteBuffer(cl->queue, buf, CL_TRUE, 0, n * sizeof(cl_uint), data, 0, NULL,
                                 NULL)) != CL_SUCCESS ||
      (cr = clEnqueueWriteBuffer(cl->queue, buf, CL_TRUE, n * sizeof(cl_uint), sizeof zero, &zero,
                                 0, NULL, NULL)) != CL_SUCCESS) {
    rc = drape_fail(e, DRAPE_ECL, "clEnqueueWriteBuffer(scan test): %s", drape_cl_errstr(cr));
    goto done;
  }
  if ((rc = scan_run(&s, &s.scan_c, buf, e))) goto done;
  if ((cr = clEnqueueReadBuffer(cl->queue, buf, CL_TRUE, 0, n * sizeof(cl_uint), data, 0, NULL,
                                NULL)) != CL_SUCCESS ||
      (cr = clEnqueueReadBuffer(cl->queue, buf, CL_TRUE, n * sizeof(cl_uint), sizeof(cl_uint),
                                total, 0, NULL, NULL)) != CL_SUCCESS)
    rc = drape_fail(e, DRAPE_ECL, "clEnqueueReadBuffer(scan test): %s", drape_cl_errstr(cr));
done:
  if (cl->queue) clFinish(cl->queue);
  for (int i = 0; i < s.n_ev; i++) clReleaseEvent(s.ev[i]);
  free(s.ev);
  free(s.ev_part);
  rel(&buf);
  scan_free(&s.scan_c);
  for (int k = 0; k < SK_COUNT; k++)
    if (s.k[k]) clReleaseKernel(s.k[k]);
  return rc;
}
