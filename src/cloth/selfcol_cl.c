/* Self-collision, OpenCL host side (selfcol_cl.h). Every launch goes on the
 * runtime's in-order queue; kernel arguments are set at each launch (host
 * only, cheap) because the position buffers belong to the caller. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/selfcol_cl.h"

static const char *const sk_names[SK_COUNT] = {
    "hash_scan_block",      "hash_scan_add",          "hash_sort_buckets",
    "selfcol_clamp",        "hash_count_particles",   "hash_scatter_particles",
    "selfcol_particles",    "selfcol_apply",          "hash_tri_extent",
    "hash_count_triangles", "hash_scatter_triangles", "selfcol_vertex_triangle",
    "selfcol_corner_count", "selfcol_corner_scatter", "selfcol_vt_gather",
    "hash_scan_chunks",     "hash_scan_totals",       "hash_scan_chunks_add",
    "selfcol_bound_init",   "selfcol_bound_pairs",    "selfcol_bound_clamp",
    "selfcol_bound_extent", "selfcol_bound_overflow", "selfcol_edge_edge",
    "selfcol_bound_links",
    "selfcol_bound_owners", "selfcol_bound_vt",     "kl_region_box",
    "kl_range",             "kl_check",               "kl_lists",
    "kl_rev_scatter",       "kl_fit",                 "kl_near",
    "selfcol_edge_flags",   "kl_active",              "kl_affine",
    "selfcol_bucket_motion", "hash_sort_boxes"};

#define A(name, v) DRAPE_CL_ARG(name, v)

/* n work items, local size `local` (0: the kernel's own, s->lk: from the
 * device in the GPU form, the runtime's default of 64 in the vector form). */
static int launch(selfcol_cl *s, int k, size_t n, size_t local, drape_err *e) {
  if (n == 0) return DRAPE_OK;
  if (!local) local = s->lk[k];
  int rc = dr_cl_launch(s->cl, &s->k[k], n, local, s->prof, e);
  if (!rc) s->launches++;
  return rc;
}

static int fill0(selfcol_cl *s, cl_mem m, size_t bytes, drape_err *e) {
  int rc = dr_cl_fill0(s->cl, m, bytes, s->prof, e);
  if (!rc) s->launches++;
  return rc;
}

static int mk(selfcol_cl *s, cl_mem *out, size_t bytes, const void *init, const char *what,
              drape_err *e) {
  char label[96];
  snprintf(label, sizeof label, "self-collision %s", what);
  return dr_cl_buffer(s->cl, bytes, init, label, &s->bytes, NULL, out, e);
}

static void rel(cl_mem *m) { dr_cl_buffer_release(m); }

/* Tags the launches that follow with their part. */
static void part(selfcol_cl *s, int p) { s->prof->part = p; }

/* ---- the scan ---- */
/* The chunked scan in the vector form (CPU devices; kernels/hash.cl says
 * why), the work-group scan in the GPU form, unless a test asked for one
 * scan (selfcol_cl_set_forms). */
static int g_forms = -1;
void selfcol_cl_set_forms(int forms) { g_forms = forms; }
static int form_of(const drape_cl *cl, int kernel_form) {
  return kernel_form ? kernel_form : drape_cl_kernel_form_auto(cl->type);
}
static int scan_chunked_for(const drape_cl *cl, int kernel_form) {
  return g_forms >= 0 ? g_forms : form_of(cl, kernel_form) != DRAPE_KERNEL_FORM_GPU;
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

#define BIND(kn, ...) DRAPE_CL_BIND(&s->k[kn], 0, e, __VA_ARGS__)

/* Exclusive scan of data[0, n) in place: block scans up the levels, then
 * the scanned block totals added back down. */
static int scan_run(selfcol_cl *s, const selfcol_scan *sc, cl_mem data, drape_err *e) {
  int rc;
  if (sc->chunked) {
    const cl_uint n = sc->n[0], chunk = sc->chunk, m = sc->n_chunks;
    if ((rc = BIND(SK_SCAN_CHUNKS, A("data", data), A("totals", sc->sums[0]), A("n", n),
                   A("chunk", chunk))) ||
        (rc = launch(s, SK_SCAN_CHUNKS, m, 0, e)) ||
        (rc = BIND(SK_SCAN_TOTALS, A("totals", sc->sums[0]), A("m", m))) ||
        (rc = launch(s, SK_SCAN_TOTALS, 1, 1, e)) ||
        (rc = BIND(SK_SCAN_CHUNKS_ADD, A("data", data), A("totals", sc->sums[0]), A("n", n),
                   A("chunk", chunk))))
      return rc;
    return launch(s, SK_SCAN_CHUNKS_ADD, m, 0, e);
  }
  for (int l = 0; l < sc->levels; l++) {
    cl_mem in = l == 0 ? data : sc->sums[l - 1];
    cl_uint n = sc->n[l];
    if ((rc = BIND(SK_SCAN_BLOCK, A("data", in), A("block_sums", sc->sums[l]), A("n", n),
                   DRAPE_CL_LOCAL("tmp", s->local * sizeof(cl_uint)))) ||
        (rc = launch(s, SK_SCAN_BLOCK, sc->groups[l] * s->local, s->local, e)))
      return rc;
  }
  for (int l = sc->levels - 2; l >= 0; l--) {
    cl_mem io = l == 0 ? data : sc->sums[l - 1];
    cl_uint n = sc->n[l];
    if ((rc = BIND(SK_SCAN_ADD, A("data", io), A("block_offsets", sc->sums[l]), A("n", n))) ||
        (rc = launch(s, SK_SCAN_ADD, n, s->local, e)))
      return rc;
  }
  return DRAPE_OK;
}

/* cap: the most entries any reader takes from the front of a bucket;
 * nothing when gate is closed (hash.cl). */
static int sort_buckets(selfcol_cl *s, cl_mem start, cl_mem vals, cl_uint n_buckets,
                        cl_uint cap, cl_mem gate, drape_err *e) {
  int rc = BIND(SK_SORT, A("start", start), A("vals", vals), A("n_buckets", n_buckets),
                A("cap", cap), A("gate", gate));
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
/* The kept contact lists' buffers (tb.lists; none otherwise). */
static int kl_alloc(selfcol_cl *s, drape_err *e) {
  const selfcol_tables *t = &s->tb;
  if (!t->lists) return DRAPE_OK;
  const size_t n = (size_t)t->n, L = (size_t)t->list_len, nr = t->list_nr;
  const size_t u = sizeof(cl_uint), f4 = sizeof(dr_float4);
  int rc;
  if ((rc = mk(s, &s->kl_rkey, n * u, NULL, "list region keys", e)) ||
      (rc = mk(s, &s->kl_rrank, n * u, NULL, "list region ranks", e)) ||
      (rc = mk(s, &s->kl_rcount, (nr + 1) * u, NULL, "list regions", e)) ||
      (rc = mk(s, &s->kl_rvals, n * u, NULL, "list region particles", e)) ||
      (rc = mk(s, &s->kl_rbox, 2 * nr * f4, NULL, "list region boxes", e)) ||
      (rc = mk(s, &s->kl_rbad, nr * u, NULL, "list regions off the ranges", e)) ||
      (rc = mk(s, &s->kl_rrng, 2 * nr * f4, NULL, "list region motion", e)) ||
      (rc = mk(s, &s->kl_raff, 3 * nr * f4, NULL, "list region frames", e)) ||
      (rc = mk(s, &s->kl_rfit, 4 * nr * f4, NULL, "list region fits", e)) ||
      (rc = mk(s, &s->kl_rocc, nr * u, NULL, "list regions occupied", e)) ||
      (rc = mk(s, &s->kl_flag, 5 * u, NULL, "list flags", e)) ||
      (rc = mk(s, &s->kl_rind, nr * u, NULL, "list region indices", e)) ||
      (rc = mk(s, &s->kl_mlist, nr * u, NULL, "list merged regions", e)) ||
      (rc = mk(s, &s->kl_lst, n * L * u, NULL, "contact lists", e)) ||
      (rc = mk(s, &s->kl_lstn, n * u, NULL, "contact list lengths", e)) ||
      (rc = mk(s, &s->kl_cmap, n * L, NULL, "contact list slots", e)) ||
      (rc = mk(s, &s->kl_ccount, (n + 1) * u, NULL, "corner lists", e)) ||
      (rc = mk(s, &s->kl_ccur, (n + 1) * u, NULL, "corner list cursors", e)) ||
      (rc = mk(s, &s->kl_cvals, (size_t)t->list_rcap * u, NULL, "corner list entries", e)) ||
      (rc = mk(s, &s->kl_xb, n * f4, NULL, "list build positions", e)) ||
      (rc = mk(s, &s->kl_gate, f4, NULL, "corner list sort gate", e)) ||
      (rc = mk(s, &s->kl_near, nr * SELFCOL_LIST_NEAR_CAP * u, NULL, "list near regions", e)) ||
      (rc = mk(s, &s->kl_nearn, nr * u, NULL, "list near region counts", e)) ||
      (rc = mk(s, &s->kl_gr, 12 * u, NULL, "list motion range", e)) ||
      (rc = mk(s, &s->kl_act, n * u, NULL, "list active particles", e)))
    return rc;
  return scan_plan(s, &s->scan_r, nr + 1, e);
}

int selfcol_cl_create(drape_cl *cl, const selfcol_desc *d, selfcol_cl *s, drape_err *e) {
  memset(s, 0, sizeof *s);
  s->cl = cl;
  dr_cl_prof_init(&s->own);
  s->own.stage = DRAPE_STAGE_SELF_COLLISION;
  s->prof = &s->own;
  s->gpu = form_of(cl, d->kernel_form) == DRAPE_KERNEL_FORM_GPU;
  s->cpu_forms = scan_chunked_for(cl, d->kernel_form);
  int rc = selfcol_tables_build(d, &s->tb, e);
  if (rc) return rc;
  /* Every kernel here is one particle, triangle or bucket per work item in
   * both forms (docs/solver.md "Two kernel forms" says why none needs a
   * second body); the GPU form takes its work-group sizes from the device
   * like the solver's GPU-form kernels. */
  for (int k = 0; k < SK_COUNT; k++) {
    if ((rc = dr_cl_kern_create(cl, sk_names[k], &s->k[k], e))) goto fail;
    if (s->gpu) s->lk[k] = dr_cl_kern_local(cl, &s->k[k]);
  }
  if ((rc = pick_local(cl, s->k[SK_SCAN_BLOCK].k, &s->local, e))) goto fail;
  const selfcol_tables *t = &s->tb;
  size_t n = (size_t)(t->n > 0 ? t->n : 1), nt = (size_t)(t->n_tris > 0 ? t->n_tris : 1);
  size_t K = SELFCOL_SLOTS, Bp = (size_t)t->mask_p + 1, Bt = (size_t)t->mask_t + 1;
  s->ebox_plane = (cl_uint)(8 * nt + 8);
  s->bplane = (cl_uint)(nt + 8);
  size_t u = sizeof(cl_uint), f4 = sizeof(dr_float4);
  const dr_float4 gate1 = {0.0f, 0.0f, 0.0f, 1.0f};
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
      (rc = mk(s, &s->tcount, (Bt + 2) * u, NULL, "triangle buckets", e)) ||
      (rc = mk(s, &s->tvals, 8 * nt * u, NULL, "triangle entries", e)) ||
      /* the queries read eight entries at a time, up to 7 past the last */
      (rc = mk(s, &s->ebox, 6 * (8 * nt + 8) * sizeof(float), NULL, "triangle entry boxes", e)) ||
      (rc = mk(s, &s->rec_a, K * n * f4, NULL, "contact corrections", e)) ||
      (rc = mk(s, &s->rec_b, K * n * f4, NULL, "contact weights", e)) ||
      (rc = mk(s, &s->rec_t, K * n * u, NULL, "contact triangles", e)) ||
      (rc = mk(s, &s->nvt, n * u, NULL, "vertex contact counts", e)) ||
      (rc = mk(s, &s->ccount, (n + 1) * u, NULL, "corner buckets", e)) ||
      (rc = mk(s, &s->crank, 3 * K * n * u, NULL, "corner ranks", e)) ||
      (rc = mk(s, &s->cvals, 3 * K * n * u, NULL, "corner entries", e)) ||
      (rc = mk(s, &s->pexam, n * u, NULL, "particle query entries", e)) ||
      (rc = mk(s, &s->vexam, n * u, NULL, "vertex query entries", e)) ||
      (rc = mk(s, &s->rb, n * u, NULL, "step bounds", e)) ||
      (rc = mk(s, &s->lock, 8 * n * u, NULL, "locks", e)) ||
      (rc = mk(s, &s->links, (t->n_links ? (size_t)t->n_links : 1u) * u,
               t->n_links ? t->links : NULL, "rope links", e)) ||
      (rc = mk(s, &s->big, nt * u, NULL, "wide triangles", e)) ||
      /* read eight at a time, up to 7 past the last */
      (rc = mk(s, &s->bigb, 6 * (nt + 8) * sizeof(float), NULL, "wide triangle boxes", e)) ||
      (rc = mk(s, &s->tnb, 3 * nt * u, t->tnb, "triangle edge neighbours", e)) ||
      (rc = mk(s, &s->town, nt * u, NULL, "owned triangle edges", e)) ||
      (rc = mk(s, &s->nbig, 8 * u, NULL, "wide triangle count and box", e)) ||
      (rc = mk(s, &s->adj_start, (n + 1) * u, t->adj_start, "particle triangles start", e)) ||
      (rc = mk(s, &s->adj, 3 * nt * u, t->adj, "particle triangles", e)) ||
      (rc = mk(s, &s->eflag, 3 * nt * u, NULL, "edge query flags", e)) ||
      (rc = mk(s, &s->bmot, Bt * u, NULL, "triangle bucket motions", e)) ||
      (rc = mk(s, &s->gate_on, f4, &gate1, "open gate", e)) ||
      (rc = kl_alloc(s, e)) ||
      (rc = mk(s, &s->caps, (size_t)t->n_objects * SELFCOL_CAPC_STRIDE * u, NULL, "cap counters",
               e)) ||
      (rc = scan_plan(s, &s->scan_p, Bp + 1, e)) || (rc = scan_plan(s, &s->scan_t, Bt + 2, e)) ||
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
      (rc = fill0(s, s->bigb, 6 * (nt + 8) * sizeof(float), e)) ||
      (rc = fill0(s, s->caps, (size_t)t->n_objects * SELFCOL_CAPC_STRIDE * u, e)))
    goto fail;
  DRAPE_CL_TRY(e, clFinish(cl->queue));
  dr_cl_prof_free(&s->own); /* the fills above are set-up, not a part */
  return DRAPE_OK;
fail:
  selfcol_cl_destroy(s);
  return rc;
}

void selfcol_cl_destroy(selfcol_cl *s) {
  if (s->cl && s->cl->queue && (s->own.n || s->caps_ev)) clFinish(s->cl->queue);
  if (s->caps_ev) clReleaseEvent(s->caps_ev);
  free(s->caps_host);
  dr_cl_prof_free(&s->own);
  for (int k = 0; k < SK_COUNT; k++) dr_cl_kern_release(&s->k[k]);
  cl_mem *all[] = {&s->sobj,   &s->tobj,  &s->objp,  &s->objf,    &s->rest,  &s->pkey,
                   &s->prank,  &s->pcount, &s->pvals, &s->delta, &s->wsc,  &s->ncon,  &s->maxbits,
                   &s->tkey, &s->tbox, &s->trank, &s->tcount, &s->tvals,   &s->ebox,  &s->rec_a, &s->rec_b,
                   &s->rec_t,  &s->nvt,   &s->ccount, &s->crank,   &s->cvals,
                   &s->pexam,  &s->vexam, &s->caps,   &s->rb,    &s->lock,  &s->links,
                   &s->big,    &s->bigb,  &s->nbig,  &s->tnb,   &s->town,
                   &s->adj_start, &s->adj, &s->gate_on, &s->eflag, &s->bmot};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) rel(all[i]);
  scan_free(&s->scan_p);
  scan_free(&s->scan_t);
  scan_free(&s->scan_c);
  scan_free(&s->scan_r);
  cl_mem *kl[] = {&s->kl_rkey, &s->kl_rrank, &s->kl_rcount, &s->kl_rvals, &s->kl_rbox,
                  &s->kl_rrng, &s->kl_rocc,  &s->kl_flag,   &s->kl_lst,   &s->kl_lstn,
                  &s->kl_cmap, &s->kl_ccount, &s->kl_ccur,  &s->kl_cvals, &s->kl_xb, &s->kl_gate,
                  &s->kl_near, &s->kl_nearn, &s->kl_gr, &s->kl_act, &s->kl_raff, &s->kl_rfit,
                  &s->kl_rind, &s->kl_mlist, &s->kl_rbad};
  for (size_t i = 0; i < sizeof kl / sizeof kl[0]; i++) rel(kl[i]);
  selfcol_tables_free(&s->tb);
  memset(s, 0, sizeof *s);
}

void selfcol_cl_share_profile(selfcol_cl *s, dr_cl_prof *prof) {
  s->prof = prof;
  prof->part = -1;
}

/* ---- the parts ---- */
/* What the velocity clamp reads of the colliders (sc_clamp1: support). */
typedef struct clamp_env {
  cl_int has_floor, n_sph;
  float floor_y, t_end;
  cl_mem sph;
} clamp_env;

static clamp_env clamp_env_of(const selfcol_cl *s, const selfcol_colliders *col,
                              cl_mem spheres) {
  clamp_env c;
  c.has_floor = col ? col->has_floor : 0;
  c.n_sph = col && spheres ? col->n_spheres : 0;
  c.floor_y = col ? col->floor_y : 0.0f;
  c.t_end = col ? col->t_end : 0.0f;
  c.sph = c.n_sph > 0 ? spheres : s->objp; /* never read when there are none */
  return c;
}

int selfcol_cl_clamp(selfcol_cl *s, cl_mem x, cl_mem p, const selfcol_colliders *col,
                     cl_mem spheres, drape_err *e) {
  part(s, SELFCOL_T_CLAMP);
  const float frac = SELFCOL_CLAMP, band = SELFCOL_SUPPORT;
  const cl_int n = s->tb.n;
  const clamp_env c = clamp_env_of(s, col, spheres);
  int rc = BIND(SK_CLAMP, A("x", x), A("p", p), A("sobj", s->sobj), A("objp", s->objp),
                A("wsc", s->wsc), A("frac", frac), A("band", band),
                A("has_floor", c.has_floor), A("floor_y", c.floor_y), A("spheres", c.sph),
                A("n_spheres", c.n_sph), A("t_end", c.t_end), A("n", n));
  return rc ? rc : launch(s, SK_CLAMP, (size_t)n, 0, e);
}

int selfcol_cl_hash_particles(selfcol_cl *s, cl_mem x, drape_err *e) {
  part(s, SELFCOL_T_HASH_PARTICLES);
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n;
  const float inv = 1.0f / t->cell;
  const cl_uint mask = t->mask_p, B = t->mask_p + 1;
  int rc;
  if ((rc = fill0(s, s->pcount, (B + 1) * sizeof(cl_uint), e)) ||
      (rc = BIND(SK_COUNT_P, A("x", x), A("sobj", s->sobj), A("key", s->pkey),
                 A("rank", s->prank), A("count", s->pcount), A("n", n), A("inv_cell", inv),
                 A("mask", mask))) ||
      (rc = launch(s, SK_COUNT_P, (size_t)n, 0, e)) ||
      (rc = scan_run(s, &s->scan_p, s->pcount, e)) ||
      (rc = BIND(SK_SCATTER_P, A("sobj", s->sobj), A("key", s->pkey), A("rank", s->prank),
                 A("start", s->pcount), A("vals", s->pvals), A("n", n))) ||
      (rc = launch(s, SK_SCATTER_P, (size_t)n, 0, e)))
    return rc;
  return sort_buckets(s, s->pcount, s->pvals, B, t->cap_p, s->gate_on, e);
}

int selfcol_cl_particles(selfcol_cl *s, cl_mem x, cl_mem p, drape_err *e) {
  part(s, SELFCOL_T_PARTICLES);
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n;
  const float inv = 1.0f / t->cell;
  const cl_uint mask = t->mask_p;
  const float reach = t->t_max;
  const cl_uint cap = t->cap_p;
  const cl_int cap_n = (cl_int)t->cap_n;
  int rc;
  if ((rc = BIND(SK_PARTICLES, A("x", x), A("p", p), A("wsc", s->wsc), A("rest", s->rest),
                 A("sobj", s->sobj), A("objf", s->objf), A("objp", s->objp),
                 A("start", s->pcount), A("vals", s->pvals), A("delta", s->delta),
                 A("ncon", s->ncon), A("n", n), A("inv_cell", inv), A("reach", reach),
                 A("mask", mask), A("cap", cap), A("cap_n", cap_n), A("exam", s->pexam),
                 A("caps", s->caps))) ||
      (rc = launch(s, SK_PARTICLES, (size_t)n, 0, e)) ||
      (rc = BIND(SK_APPLY, A("x", x), A("delta", s->delta), A("n", n))))
    return rc;
  return launch(s, SK_APPLY, (size_t)n, 0, e);
}

/* bound: the bounds' extent kernel (wide triangles listed, not hashed);
 * else triangles whose grown box is wider than `limit` go to the wide
 * bucket (mask_t + 1, after the cells'); cap: the most entries a reader
 * takes from a bucket (the sort orders those, and hash_sort_boxes copies
 * every entry's box beside it for the readers' scans). */
static int hash_triangles_grown(selfcol_cl *s, cl_mem x, cl_mem tris, float grow, int bound,
                                float wide_limit, cl_uint cap, drape_err *e) {
  const selfcol_tables *t = &s->tb;
  const cl_int nt = t->n_tris;
  const cl_uint mask = t->mask_t, B = t->mask_t + 1;
  const float limit = t->bound_limit;
  int rc;
  if ((rc = fill0(s, s->maxbits, sizeof(cl_uint), e)) ||
      (rc = fill0(s, s->tcount, (B + 2) * sizeof(cl_uint), e)))
    return rc;
  if (bound) {
    if ((rc = fill0(s, s->nbig, 8 * sizeof(cl_uint), e)) ||
        (rc = BIND(SK_BOUND_EXTENT, A("x", x), A("tris", tris), A("tobj", s->tobj),
                   A("n_tris", nt), A("grow", grow), A("limit", limit),
                   A("maxbits", s->maxbits), A("tbox", s->tbox), A("big", s->big),
                   A("nbig", s->nbig), A("bigb", s->bigb), A("bplane", s->bplane))) ||
        (rc = launch(s, SK_BOUND_EXTENT, (size_t)nt, 0, e)))
      return rc;
  } else if ((rc = BIND(SK_TRI_EXTENT, A("x", x), A("tris", tris), A("tobj", s->tobj),
                        A("n_tris", nt), A("grow", grow), A("limit", wide_limit),
                        A("maxbits", s->maxbits), A("tbox", s->tbox))) ||
             (rc = launch(s, SK_TRI_EXTENT, (size_t)nt, 0, e)))
    return rc;
  if ((rc = BIND(SK_COUNT_T, A("tbox", s->tbox), A("tris", tris), A("tobj", s->tobj),
                 A("maxbits", s->maxbits), A("key", s->tkey), A("rank", s->trank),
                 A("count", s->tcount), A("n_tris", nt), A("mask", mask))) ||
      (rc = launch(s, SK_COUNT_T, (size_t)nt, 0, e)) ||
      (rc = scan_run(s, &s->scan_t, s->tcount, e)) ||
      (rc = BIND(SK_SCATTER_T, A("key", s->tkey), A("rank", s->trank), A("start", s->tcount),
                 A("vals", s->tvals), A("n_tris", nt))) ||
      (rc = launch(s, SK_SCATTER_T, (size_t)nt, 0, e)))
    return rc;
  const cl_uint nb = B + 1; /* the cells' buckets and the wide one */
  if ((rc = BIND(SK_SORT_BOXES, A("start", s->tcount), A("vals", s->tvals),
                 A("n_buckets", nb), A("cap", cap), A("tbox", s->tbox), A("eb", s->ebox),
                 A("plane", s->ebox_plane))))
    return rc;
  return launch(s, SK_SORT_BOXES, nb, 0, e);
}

int selfcol_cl_hash_triangles(selfcol_cl *s, cl_mem x, cl_mem tris, drape_err *e) {
  part(s, SELFCOL_T_HASH_TRIANGLES);
  return hash_triangles_grown(s, x, tris, s->tb.t_max, 0, s->tb.wide_limit, s->tb.cap_t, e);
}

int selfcol_cl_bound(selfcol_cl *s, cl_mem p, cl_mem tris, drape_err *e) {
  part(s, SELFCOL_T_BOUND);
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n, nt = t->n_tris;
  const float R = t->bound_r;
  const cl_uint mask = t->mask_t, B = t->mask_t + 1, capb = SELFCOL_BOUND_CAP * t->cap_t;
  int rc;
  if ((rc = hash_triangles_grown(s, p, tris, R, 1, 0.0f, t->cap_t, e)) ||
      (rc = BIND(SK_BOUND_INIT, A("rb", s->rb), A("lk", s->lock), A("R", R), A("n", n),
                 A("p", p), A("nbig", s->nbig), A("maxbits", s->maxbits),
                 A("capg", t->cap_big))) ||
      (rc = launch(s, SK_BOUND_INIT, (size_t)n, 0, e)) ||
      (rc = BIND(SK_BOUND_OVERFLOW, A("start", s->tcount), A("vals", s->tvals), A("tris", tris),
                 A("rb", s->rb), A("n_buckets", B), A("capb", capb))) ||
      (rc = launch(s, SK_BOUND_OVERFLOW, (size_t)B, 0, e)) ||
      (rc = BIND(SK_BOUND_OWNERS, A("tris", tris), A("tobj", s->tobj), A("tbox", s->tbox),
                 A("tnb", s->tnb), A("town", s->town), A("n_tris", nt))) ||
      (rc = launch(s, SK_BOUND_OWNERS, (size_t)nt, 0, e)) ||
      (rc = BIND(SK_BOUND_VT, A("p", p), A("lk", s->lock), A("sobj", s->sobj),
                 A("adj_start", s->adj_start), A("adj", s->adj), A("tobj", s->tobj),
                 A("tris", tris), A("tbox", s->tbox), A("maxbits", s->maxbits),
                 A("start", s->tcount), A("vals", s->tvals), A("big", s->big),
                 A("nbig", s->nbig), A("rb", s->rb), A("n", n), A("mask", mask), A("R", R),
                 A("fl", t->bound_floor), A("capb", capb), A("eb", s->ebox),
                 A("plane", s->ebox_plane), A("capg", t->cap_big), A("bigb", s->bigb),
                 A("bplane", s->bplane))) ||
      (rc = launch(s, SK_BOUND_VT, (size_t)n, 0, e)) ||
      (rc = BIND(SK_BOUND_PAIRS, A("p", p), A("lk", s->lock), A("tris", tris), A("tobj", s->tobj),
                 A("tbox", s->tbox), A("maxbits", s->maxbits), A("start", s->tcount),
                 A("vals", s->tvals), A("big", s->big), A("nbig", s->nbig),
                 A("town", s->town), A("rb", s->rb), A("n_tris", nt), A("mask", mask),
                 A("R", R), A("fl", t->bound_floor), A("capb", capb), A("eb", s->ebox),
                 A("plane", s->ebox_plane), A("caps", t->cap_t), A("capg", t->cap_big),
                 A("bigb", s->bigb), A("bplane", s->bplane))) ||
      (rc = launch(s, SK_BOUND_PAIRS, (size_t)nt, 0, e)))
    return rc;
  if (t->n_links == 0) return DRAPE_OK;
  const cl_int nl = t->n_links;
  if ((rc = BIND(SK_BOUND_LINKS, A("p", p), A("lk", s->lock), A("links", s->links), A("tris", tris),
                 A("tobj", s->tobj), A("tbox", s->tbox), A("maxbits", s->maxbits),
                 A("start", s->tcount), A("vals", s->tvals), A("big", s->big),
                 A("nbig", s->nbig), A("rb", s->rb), A("n_links", nl), A("n_tris", nt),
                 A("mask", mask), A("R", R), A("fl", t->bound_floor), A("capb", capb),
                 A("capg", t->cap_big), A("bigb", s->bigb), A("bplane", s->bplane))))
    return rc;
  return launch(s, SK_BOUND_LINKS, (size_t)nl, 0, e);
}

int selfcol_cl_bound_clamp(selfcol_cl *s, cl_mem x, cl_mem p, drape_err *e) {
  part(s, SELFCOL_T_BOUND);
  const cl_int n = s->tb.n;
  const float gamma = SELFCOL_BOUND_GAMMA;
  int rc = BIND(SK_BOUND_CLAMP, A("x", x), A("p", p), A("sobj", s->sobj), A("objf", s->objf),
                A("rb", s->rb), A("lk", s->lock), A("gamma", gamma),
                A("n", n));
  return rc ? rc : launch(s, SK_BOUND_CLAMP, (size_t)n, 0, e);
}

int selfcol_cl_edge_edge(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris, drape_err *e) {
  part(s, SELFCOL_T_VERTEX_TRIANGLE);
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n, cap_n = (cl_int)t->cap_e;
  const cl_uint mask = t->mask_t, cap = t->cap_t;
  /* rope links against rope links: the particle hash (selfcol_cpu.c,
   * cpu_selfcol_edge_edge, the same numbers) */
  const float inv_p = 1.0f / t->cell, reach_l = 3.0f * t->t_max;
  const cl_uint mask_p = t->mask_p, cap_p = t->cap_p;
  const cl_int nt = t->n_tris;
  const float tm = t->t_max;
  int rc;
  /* each bucket's largest motion since p, for the flags' skip */
  if ((rc = fill0(s, s->bmot, ((size_t)mask + 1) * sizeof(cl_uint), e)) ||
      (rc = BIND(SK_BUCKET_MOTION, A("x", x), A("p", p), A("tris", tris), A("key", s->tkey),
                 A("start", s->tcount), A("vals", s->tvals), A("bm", s->bmot),
                 A("n_tris", nt), A("mask", mask))) ||
      (rc = launch(s, SK_BUCKET_MOTION, (size_t)nt, 0, e)) ||
      (rc = BIND(SK_EDGE_FLAGS, A("x", x), A("p", p), A("rest", s->rest), A("sobj", s->sobj),
                 A("objf", s->objf), A("objp", s->objp), A("tris", tris), A("tobj", s->tobj),
                 A("tbox", s->tbox), A("maxbits", s->maxbits), A("start", s->tcount),
                 A("vals", s->tvals), A("adj_start", s->adj_start), A("adj", s->adj),
                 A("eflag", s->eflag), A("n_tris", nt), A("mask", mask), A("cap", cap),
                 A("rb", s->rb), A("lk", s->lock), A("bm", s->bmot), A("tm", tm),
                 A("eb", s->ebox), A("plane", s->ebox_plane))) ||
      (rc = launch(s, SK_EDGE_FLAGS, 3 * (size_t)nt, 0, e)) ||
      (rc = BIND(SK_EDGE_EDGE, A("x", x), A("p", p), A("wsc", s->wsc), A("rest", s->rest),
                 A("sobj", s->sobj), A("objf", s->objf), A("objp", s->objp), A("tris", tris),
                 A("tobj", s->tobj), A("tbox", s->tbox), A("maxbits", s->maxbits),
                 A("start", s->tcount), A("vals", s->tvals), A("adj_start", s->adj_start),
                 A("adj", s->adj), A("delta", s->delta), A("n", n), A("mask", mask),
                 A("cap", cap), A("cap_n", cap_n), A("caps", s->caps), A("pstart", s->pcount),
                 A("pvals", s->pvals), A("inv_p", inv_p), A("mask_p", mask_p),
                 A("cap_p", cap_p), A("reach_l", reach_l), A("eflag", s->eflag),
                 A("eb", s->ebox), A("plane", s->ebox_plane))) ||
      (rc = launch(s, SK_EDGE_EDGE, (size_t)n, 0, e)) ||
      (rc = BIND(SK_APPLY, A("x", x), A("delta", s->delta), A("n", n))))
    return rc;
  return launch(s, SK_APPLY, (size_t)n, 0, e);
}

int selfcol_cl_vertex_triangle(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris, drape_err *e) {
  part(s, SELFCOL_T_VERTEX_TRIANGLE);
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n, K = SELFCOL_SLOTS;
  const cl_uint mask = t->mask_t, cap_t = t->cap_t, cap_c = t->cap_c;
  int rc;
  const float grow = t->t_max;
  /* the kept lists (L > 0), or the hash (L = 0: the lists' buffers are
   * not read; any buffer binds) */
  const cl_int kl = s->vt_kl;
  const cl_int L = kl ? t->list_len : 0;
  cl_mem lstn = kl ? s->kl_lstn : s->nvt, lst = kl ? s->kl_lst : s->nvt;
  cl_mem cmap = kl ? s->kl_cmap : s->nvt;
  /* on the lists only the active particles (kl_active; none: nothing to
   * do), else every particle */
  const cl_int nact = kl ? (cl_int)s->kl_nact : -1;
  const size_t items = kl ? (size_t)s->kl_nact : (size_t)n;
  cl_mem act = kl ? s->kl_act : s->nvt;
  if (kl && nact == 0) return DRAPE_OK;
  if ((rc = BIND(SK_VT, A("x", x), A("p", p), A("wsc", s->wsc), A("rest", s->rest),
                 A("sobj", s->sobj), A("objf", s->objf), A("objp", s->objp), A("tris", tris),
                 A("tobj", s->tobj), A("tbox", s->tbox), A("grow", grow),
                 A("maxbits", s->maxbits), A("start", s->tcount), A("vals", s->tvals),
                 A("rec_a", s->rec_a), A("rec_b", s->rec_b), A("rec_t", s->rec_t),
                 A("nvt", s->nvt), A("n", n), A("K", K), A("mask", mask), A("cap", cap_t),
                 A("exam", s->vexam), A("caps", s->caps),
                 A("lstn", lstn), A("lst", lst), A("L", L), A("cmap", cmap), A("act", act),
                 A("nact", nact), A("eb", s->ebox), A("plane", s->ebox_plane))) ||
      (rc = launch(s, SK_VT, items, 0, e)))
    return rc;
  /* the corners' shares regrouped by corner (without the lists; with them
   * the corners' lists were made at the build) */
  if (!kl &&
      ((rc = fill0(s, s->ccount, ((size_t)n + 1) * sizeof(cl_uint), e)) ||
       (rc = BIND(SK_CORNER_COUNT, A("tris", tris), A("rec_t", s->rec_t), A("nvt", s->nvt),
                  A("count", s->ccount), A("rank", s->crank), A("n", n), A("K", K))) ||
       (rc = launch(s, SK_CORNER_COUNT, (size_t)n, 0, e)) ||
       (rc = scan_run(s, &s->scan_c, s->ccount, e)) ||
       (rc = BIND(SK_CORNER_SCATTER, A("tris", tris), A("rec_t", s->rec_t), A("nvt", s->nvt),
                  A("start", s->ccount), A("rank", s->crank), A("vals", s->cvals), A("n", n),
                  A("K", K))) ||
       (rc = launch(s, SK_CORNER_SCATTER, (size_t)n, 0, e)) ||
       (rc = sort_buckets(s, s->ccount, s->cvals, (cl_uint)n, cap_c, s->gate_on, e))))
    return rc;
  cl_mem cstart = kl ? s->kl_ccount : s->ccount, cvals = kl ? s->kl_cvals : s->cvals;
  if ((rc = BIND(SK_VT_GATHER, A("x", x), A("wsc", s->wsc), A("rec_a", s->rec_a),
                 A("rec_b", s->rec_b), A("nvt", s->nvt), A("start", cstart),
                 A("vals", cvals), A("n", n), A("K", K), A("sobj", s->sobj), A("cap", cap_c),
                 A("caps", s->caps), A("cmap", cmap), A("L", L), A("act", act),
                 A("nact", nact))))
    return rc;
  return launch(s, SK_VT_GATHER, items, 0, e);
}

/* ---- the kept contact lists (tb.lists; kernels/selfcol.cl, kl_*) ---- */
/* The flags (stale, overflow, occupied regions, active particles): one
 * blocking read. */
static int kl_read_flags(selfcol_cl *s, cl_uint out[4], drape_err *e) {
  DRAPE_CL_TRY(e, clEnqueueReadBuffer(s->cl->queue, s->kl_flag, CL_TRUE, 0, 4 * sizeof(cl_uint),
                                      out, 0, NULL, NULL));
  return DRAPE_OK;
}

/* A build on x: the regions of the check, the triangle hash with boxes
 * grown by the reach, every vertex's list and every corner's; *ok = 0 when
 * it overflowed (the lists are then not exact and must not be used). */
static int kl_build(selfcol_cl *s, cl_mem x, cl_mem tris, int *ok, drape_err *e) {
  part(s, SELFCOL_T_HASH_TRIANGLES);
  const selfcol_tables *t = &s->tb;
  const cl_int n = t->n, L = t->list_len;
  const cl_uint nr = t->list_nr, mask_r = nr - 1u, mask = t->mask_t;
  const cl_uint capq = SELFCOL_LIST_CAP * t->cap_t, capr = t->list_capr, rcap = t->list_rcap;
  const float inv_r = 1.0f / t->list_region, reach = t->list_reach;
  const cl_int near_cap = SELFCOL_LIST_NEAR_CAP;
  const size_t u = sizeof(cl_uint), np1 = (size_t)n + 1;
  cl_uint fl[4];
  int rc;
  if ((rc = fill0(s, s->kl_flag, 5 * u, e)) ||
      (rc = fill0(s, s->kl_rcount, (nr + 1) * u, e)) ||
      (rc = BIND(SK_COUNT_P, A("x", x), A("sobj", s->sobj), A("key", s->kl_rkey),
                 A("rank", s->kl_rrank), A("count", s->kl_rcount), A("n", n),
                 A("inv_cell", inv_r), A("mask", mask_r))) ||
      (rc = launch(s, SK_COUNT_P, (size_t)n, 0, e)) ||
      (rc = scan_run(s, &s->scan_r, s->kl_rcount, e)) ||
      (rc = BIND(SK_SCATTER_P, A("sobj", s->sobj), A("key", s->kl_rkey), A("rank", s->kl_rrank),
                 A("start", s->kl_rcount), A("vals", s->kl_rvals), A("n", n))) ||
      (rc = launch(s, SK_SCATTER_P, (size_t)n, 0, e)) ||
      (rc = BIND(SK_KL_REGION_BOX, A("x", x), A("xb", s->kl_xb), A("rstart", s->kl_rcount),
                 A("rvals", s->kl_rvals), A("rbox", s->kl_rbox), A("rocc", s->kl_rocc),
                 A("flag", s->kl_flag), A("raff", s->kl_raff), A("nb", nr),
                 A("rind", s->kl_rind), A("mlist", s->kl_mlist), A("inv_cell", inv_r))) ||
      (rc = launch(s, SK_KL_REGION_BOX, nr, 0, e)) ||
      (rc = BIND(SK_KL_NEAR, A("rbox", s->kl_rbox), A("rocc", s->kl_rocc),
                 A("flag", s->kl_flag), A("near", s->kl_near), A("nearn", s->kl_nearn),
                 A("gr", s->kl_gr), A("rn", t->list_near), A("cap", near_cap),
                 A("rstart", s->kl_rcount), A("rind", s->kl_rind), A("mlist", s->kl_mlist),
                 A("inv_cell", inv_r), A("mask", mask_r))) ||
      (rc = launch(s, SK_KL_NEAR, nr, 0, e)) ||
      (rc = hash_triangles_grown(s, x, tris, t->list_grow, 0, HUGE_VALF, capq, e)) ||
      (rc = fill0(s, s->kl_ccount, np1 * u, e)) ||
      (rc = BIND(SK_KL_LISTS, A("x", x), A("sobj", s->sobj), A("tris", tris),
                 A("tobj", s->tobj), A("tbox", s->tbox), A("maxbits", s->maxbits),
                 A("start", s->tcount), A("vals", s->tvals), A("lst", s->kl_lst),
                 A("lstn", s->kl_lstn), A("rcnt", s->kl_ccount), A("flag", s->kl_flag),
                 A("n", n), A("mask", mask), A("cap", capq), A("L", L), A("reach", reach),
                 A("grow", t->list_grow), A("eb", s->ebox), A("plane", s->ebox_plane))) ||
      (rc = launch(s, SK_KL_LISTS, (size_t)n, 0, e)) ||
      (rc = scan_run(s, &s->scan_c, s->kl_ccount, e)) ||
      /* all corners' lists must fit their buffer before anything is
       * sorted in it (kl_fit: else overflow, and the sort's gate closed;
       * kl_rev_scatter writes nothing past the buffer) */
      (rc = BIND(SK_KL_FIT, A("rstart", s->kl_ccount), A("flag", s->kl_flag),
                 A("gate", s->kl_gate), A("n", n), A("rcap", rcap))) ||
      (rc = launch(s, SK_KL_FIT, 1, 1, e)) ||
      (rc = fill0(s, s->kl_ccur, np1 * u, e)) ||
      (rc = BIND(SK_KL_REV_SCATTER, A("tris", tris), A("lst", s->kl_lst),
                 A("lstn", s->kl_lstn), A("rstart", s->kl_ccount), A("rcur", s->kl_ccur),
                 A("rvals", s->kl_cvals), A("flag", s->kl_flag), A("n", n), A("L", L),
                 A("capr", capr), A("rcap", rcap))) ||
      (rc = launch(s, SK_KL_REV_SCATTER, (size_t)n, 0, e)) ||
      (rc = sort_buckets(s, s->kl_ccount, s->kl_cvals, (cl_uint)n, capr, s->kl_gate, e)) ||
      /* the active particles; every contact count zeroed (the others' stay
       * 0 while the pass runs on the active ones only) */
      (rc = BIND(SK_KL_ACTIVE, A("lstn", s->kl_lstn), A("rstart", s->kl_ccount),
                 A("flag", s->kl_flag), A("act", s->kl_act), A("nvt", s->nvt),
                 A("exam", s->vexam), A("n", n))) ||
      (rc = launch(s, SK_KL_ACTIVE, (size_t)n, 0, e)) ||
      (rc = kl_read_flags(s, fl, e)))
    return rc;
  s->kl_builds++;
  s->kl_nact = fl[3];
  s->kl_nocc = fl[2];
  *ok = fl[1] == 0u;
  return DRAPE_OK;
}

static selfcol_cl_check_fn g_check_hook;
static void *g_check_ctx;
void selfcol_cl_set_check_hook(selfcol_cl_check_fn fn, void *ctx) {
  g_check_hook = fn;
  g_check_ctx = ctx;
}

/* kl_check (aff: also on the regions' affine fits), then its flags. */
static int kl_check_run(selfcol_cl *s, cl_mem x, cl_int par, cl_int aff, size_t nocc,
                        size_t lr, cl_uint fl[4], drape_err *e) {
  const selfcol_tables *t = &s->tb;
  const float grow = t->list_grow, tm = t->t_max, M = t->list_m;
  const cl_int near_cap = SELFCOL_LIST_NEAR_CAP;
  int rc;
  if ((rc = BIND(SK_KL_CHECK, A("rrng", s->kl_rrng), A("rbox", s->kl_rbox),
                 A("rocc", s->kl_rocc), A("flag", s->kl_flag), A("maxbits", s->maxbits),
                 A("grow", grow), A("tm", tm), A("M", M), A("near", s->kl_near),
                 A("nearn", s->kl_nearn), A("gr", s->kl_gr), A("par", par),
                 A("rn", t->list_near), A("cap", near_cap), A("rfit", s->kl_rfit),
                 A("raff", s->kl_raff), A("x", x), A("xb", s->kl_xb),
                 A("rstart", s->kl_rcount), A("rvals", s->kl_rvals), A("aff", aff),
                 A("rbad", s->kl_rbad))) ||
      (rc = launch(s, SK_KL_CHECK, nocc, lr, e)))
    return rc;
  return kl_read_flags(s, fl, e);
}

/* Whether the motion since the build may have brought an unlisted pair
 * into contact (kl_range, kl_check; one read, and where the ranges fail
 * kl_affine, kl_check again and a second read). With cenv, kl_range first
 * clamps every colliding particle (the stage's clamp, fused). */
static int kl_stale(selfcol_cl *s, cl_mem x, cl_mem p, const clamp_env *cenv, int *stale,
                    drape_err *e) {
  part(s, SELFCOL_T_HASH_TRIANGLES);
  const selfcol_tables *t = &s->tb;
  /* one work item per occupied region of the build (its flags' read gave
   * their count; kl_check's first also resets a slot of the motion range,
   * so at least one) */
  const size_t nocc = s->kl_nocc > 0u ? s->kl_nocc : 1u;
  /* a region is a loop over its particles: on a CPU device work-groups of
   * 16 spread the main scene's regions over the cores (64, the runtime's
   * default, left a core idle: kl_range 15 % slower on this 2-core VM) */
  const size_t lr = s->gpu ? 0 : 16;
  const cl_int par = s->kl_par;
  const float frac = SELFCOL_CLAMP, band = SELFCOL_SUPPORT;
  const clamp_env none = clamp_env_of(s, NULL, NULL), *c = cenv ? cenv : &none;
  const cl_int clamp = cenv != NULL;
  cl_int aff = 0;
  cl_uint fl[4];
  int rc;
  s->kl_par ^= 1; /* kl_check resets the other slot for the next substep */
  if ((rc = BIND(SK_KL_RANGE, A("x", x), A("xb", s->kl_xb), A("rstart", s->kl_rcount),
                 A("rvals", s->kl_rvals), A("rocc", s->kl_rocc), A("flag", s->kl_flag),
                 A("rrng", s->kl_rrng), A("gr", s->kl_gr), A("par", par), A("clamp1", clamp),
                 A("p", p), A("sobj", s->sobj), A("objp", s->objp), A("wsc", s->wsc),
                 A("frac", frac), A("band", band), A("has_floor", c->has_floor),
                 A("floor_y", c->floor_y), A("spheres", c->sph), A("n_spheres", c->n_sph),
                 A("t_end", c->t_end), A("rbad", s->kl_rbad))) ||
      (rc = launch(s, SK_KL_RANGE, nocc, lr, e)) ||
      (rc = kl_check_run(s, x, par, aff, nocc, lr, fl, e)))
    return rc;
  /* The ranges failed: the regions' affine fits, and the check again with
   * them (kl_pair_maps). Only at such substeps: the fits cost about as
   * much as the ranges, and every substep they saved fewer builds than
   * they cost on the main scene. */
  if (fl[0] != 0u && t->list_affine) {
    aff = 1;
    if ((rc = BIND(SK_KL_AFFINE, A("x", x), A("xb", s->kl_xb), A("rstart", s->kl_rcount),
                   A("rvals", s->kl_rvals), A("rocc", s->kl_rocc), A("flag", s->kl_flag),
                   A("raff", s->kl_raff), A("rfit", s->kl_rfit))) ||
        (rc = launch(s, SK_KL_AFFINE, nocc, lr, e)) ||
        (rc = kl_check_run(s, x, par, aff, nocc, lr, fl, e)))
      return rc;
  }
  *stale = fl[0] != 0u;
  if (!*stale && g_check_hook) g_check_hook(s, x, aff, g_check_ctx);
  return DRAPE_OK;
}

/* A frame starts: the lists again, unless paused. */
static void kl_frame(selfcol_cl *s) {
  s->kl_off = s->kl_pause > 0;
  if (s->kl_pause > 0) s->kl_pause--;
  else if (!s->kl_failed) s->kl_backoff = 0; /* the last frame kept its lists */
  s->kl_failed = 0;
}

/* The vertex-triangle pass on the kept lists: checked, rebuilt when stale,
 * and where a build overflowed the per-substep hash until the next frame.
 * Same contacts and bits either way. cenv: the stage's clamp is left to
 * the check (the lists are built and on: the check runs). */
static int kl_vertex_triangle(selfcol_cl *s, cl_mem x, cl_mem p, cl_mem tris,
                              const clamp_env *cenv, drape_err *e) {
  int rc;
  if (!s->kl_off) {
    int stale = 1;
    if (s->kl_ok && (rc = kl_stale(s, x, p, cenv, &stale, e))) return rc;
    if (stale) {
      /* lists that lasted fewer than SELFCOL_LIST_MIN_AGE substeps cost more
       * than the per-substep hash (fewer than SELFCOL_LIST_MIN_AGE_FEW where
       * they named few particles): that for the rest of the frame, and for
       * 1, 2, 4, ... SELFCOL_LIST_PAUSE frames after each such frame in a row */
      const int few = s->kl_nact * SELFCOL_LIST_FEW <= (cl_uint)s->tb.n;
      const int min_age = few ? SELFCOL_LIST_MIN_AGE_FEW : SELFCOL_LIST_MIN_AGE;
      if (s->kl_ok && s->kl_age < min_age) {
        s->kl_off = 1;
        s->kl_failed = 1;
        s->kl_pause = s->kl_backoff ? s->kl_backoff : 1;
        s->kl_backoff = s->kl_pause * 2 > SELFCOL_LIST_PAUSE ? SELFCOL_LIST_PAUSE : s->kl_pause * 2;
        s->kl_ok = 0;
      } else {
        if ((rc = kl_build(s, x, tris, &s->kl_ok, e))) return rc;
        s->kl_age = 0;
        s->kl_off = !s->kl_ok;
      }
    }
  }
  const int use = !s->kl_off && s->kl_ok;
  if (use) {
    s->kl_runs++;
    s->kl_age++;
  } else {
    s->kl_fallbacks++;
    s->kl_ok = 0; /* the per-substep hash overwrites the build's */
  }
  if (!use && (rc = selfcol_cl_hash_triangles(s, x, tris, e))) return rc;
  s->vt_kl = use;
  rc = selfcol_cl_vertex_triangle(s, x, p, tris, e);
  s->vt_kl = 0;
  return rc;
}

void selfcol_cl_list_stats(const selfcol_cl *s, uint64_t *builds, uint64_t *runs,
                           uint64_t *fallbacks) {
  if (builds) *builds = s->kl_builds;
  if (runs) *runs = s->kl_runs;
  if (fallbacks) *fallbacks = s->kl_fallbacks;
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
  const int bound = s->tb.any_tris && s->tb.bound;
  if (bound && (rc = selfcol_cl_bound(s, p, tris, e))) return rc;
  /* a frame starts when t_end does not grow (selfcol_cpu_run, the same) */
  const float te = col ? col->t_end : 0.0f;
  const int force = !col || s->fr_runs == 0 || !(te > s->fr_t);
  s->fr_t = te;
  s->fr_runs = 1;
  const int lists = s->tb.any_tris && s->tb.lists;
  if (lists && force) kl_frame(s);
  /* On lists that are built and on, the check's first kernel (kl_range)
   * clamps, unless the particle pass must see clamped positions first:
   * one launch fewer a substep, the same arithmetic and bits. */
  const int fused = lists && !bound && !s->tb.particles && !s->kl_off && s->kl_ok;
  const clamp_env cenv = clamp_env_of(s, col, spheres);
  if (!fused && (rc = selfcol_cl_clamp(s, x, p, col, spheres, e))) return rc;
  if (s->tb.particles && ((rc = selfcol_cl_hash_particles(s, x, e)) ||
                          (rc = selfcol_cl_particles(s, x, p, e))))
    return rc;
  if (lists) {
    if ((rc = kl_vertex_triangle(s, x, p, tris, fused ? &cenv : NULL, e))) return rc;
  } else if (s->tb.any_tris && ((rc = selfcol_cl_hash_triangles(s, x, tris, e)) ||
                                (rc = selfcol_cl_vertex_triangle(s, x, p, tris, e)))) {
    return rc;
  }
  if (s->tb.edge && (rc = selfcol_cl_edge_edge(s, x, p, tris, e))) return rc;
  if (bound && (rc = selfcol_cl_bound_clamp(s, x, p, e))) return rc;
  return caps_read(s, e);
}

int selfcol_cl_collect(selfcol_cl *s, double *total_ms, drape_err *e) {
  return dr_cl_prof_collect(s->prof, NULL, s->ms, total_ms, e);
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
  dr_cl_prof_init(&s.own);
  s.prof = &s.own;
  cl_mem buf = NULL;
  int rc;
  const int chunked = form < 0 ? scan_chunked_for(cl, 0) : form;
  static const int scan_kernels[] = {SK_SCAN_BLOCK, SK_SCAN_ADD, SK_SCAN_CHUNKS, SK_SCAN_TOTALS,
                                     SK_SCAN_CHUNKS_ADD};
  for (size_t q = 0; q < sizeof scan_kernels / sizeof scan_kernels[0]; q++)
    if ((rc = dr_cl_kern_create(cl, sk_names[scan_kernels[q]], &s.k[scan_kernels[q]], e)))
      goto done;
  if ((rc = pick_local(cl, s.k[SK_SCAN_BLOCK].k, &s.local, e)) ||
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
  dr_cl_prof_free(&s.own);
  rel(&buf);
  scan_free(&s.scan_c);
  for (int k = 0; k < SK_COUNT; k++) dr_cl_kern_release(&s.k[k]);
  return rc;
}

