/* Self-collision, CPU reference (see selfcol.h). Each cpu_* function is the
 * kernel of the same name in kernels/selfcol.cl or kernels/hash.cl, one loop
 * iteration per work item, with the same single-precision arithmetic in the
 * same order (explicit component sums instead of dot(), no FMA contraction),
 * so tests can compare the OpenCL path with it. The counting sorts scatter
 * sequentially in index order, which is exactly the order the device gets
 * after the buckets' sorts (hash_sort_buckets, hash_sort_boxes). Also: the tables shared by both backends. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/selfcol.h"
#include "core/util.h"

/* ---- small float3 arithmetic, component by component like OpenCL C ---- */
typedef struct { float x, y, z; } v3;
static inline v3 V(float x, float y, float z) { return (v3){x, y, z}; }
static inline v3 X3(dr_float4 a) { return (v3){a.x, a.y, a.z}; }
static inline v3 add(v3 a, v3 b) { return V(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline v3 sub(v3 a, v3 b) { return V(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline v3 mul(v3 a, float k) { return V(a.x * k, a.y * k, a.z * k); }
static inline v3 dvs(v3 a, float k) { return V(a.x / k, a.y / k, a.z / k); }
static inline float dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline v3 cross(v3 a, v3 b) {
  return V(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline v3 vmin(v3 a, v3 b) { return V(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)); }
static inline v3 vmax(v3 a, v3 b) { return V(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z)); }
static inline float as_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t as_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* sc_fkey, sc_funkey: floats as uints in the same order */
static inline uint32_t fkey(float f) {
  uint32_t u = as_u(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static inline float funkey(uint32_t k) { return as_f((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }

/* NaN goes to the lowest cell (the comparisons are false for it), as in
 * kernels/selfcol.cl: a float -> int conversion of NaN is undefined. */
static inline int sc_coord(float v, float inv_cell) {
  float f = floorf(v * inv_cell);
  f = f >= -1.0e9f ? f : -1.0e9f;
  f = f <= 1.0e9f ? f : 1.0e9f;
  return (int)f;
}
static inline uint32_t sc_hash(int ix, int iy, int iz, uint32_t mask) {
  return ((uint32_t)ix + (uint32_t)iy * 19349663u + (uint32_t)iz * 83492791u) & mask;
}
static inline float sc_pair_thickness(float ti, float tj, int same) {
  return same ? ti : 0.5f * (ti + tj);
}

static int sc_closest(v3 q, v3 a, v3 b, v3 c, v3 *bary) {
  v3 ab = sub(b, a), ac = sub(c, a), aq = sub(q, a);
  float d1 = dot(ab, aq), d2 = dot(ac, aq);
  if (d1 <= 0.0f && d2 <= 0.0f) { *bary = V(1, 0, 0); return 0; }
  v3 bq = sub(q, b);
  float d3 = dot(ab, bq), d4 = dot(ac, bq);
  if (d3 >= 0.0f && d4 <= d3) { *bary = V(0, 1, 0); return 0; }
  float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
    float t = d1 / (d1 - d3);
    *bary = V(1.0f - t, t, 0.0f);
    return 0;
  }
  v3 cq = sub(q, c);
  float d5 = dot(ab, cq), d6 = dot(ac, cq);
  if (d6 >= 0.0f && d5 <= d6) { *bary = V(0, 0, 1); return 0; }
  float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
    float t = d2 / (d2 - d6);
    *bary = V(1.0f - t, 0.0f, t);
    return 0;
  }
  float va = d3 * d6 - d5 * d4;
  if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
    float t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    *bary = V(0.0f, 1.0f - t, t);
    return 0;
  }
  float den = va + vb + vc;
  if (!(den > 0.0f)) return -1;
  float v = vb / den, w = vc / den;
  *bary = V(1.0f - v - w, v, w);
  return 1;
}

static inline v3 sc_point(v3 a, v3 b, v3 c, v3 bary) {
  return add(add(mul(a, bary.x), mul(b, bary.y)), mul(c, bary.z));
}

/* sc_request in kernels/selfcol.cl: the part of r that D does not cover. */
static inline v3 sc_request(v3 D, v3 r) {
  float r2 = dot(r, r);
  if (r2 == 0.0f) return D;
  float have = dot(D, r) / r2;
  return have >= 1.0f ? D : add(D, mul(r, 1.0f - have)); /* NaN: D NaN */
}

/* sc_cap_hit in kernels/selfcol.cl. */
static inline void sc_cap_hit(uint32_t *caps, int o, int c, uint32_t cand) {
  uint32_t *k = caps + SELFCOL_CAPC_STRIDE * o + c;
  if (*k < 0x40000000u) (*k)++;
  if (k[1] < cand) k[1] = cand;
}

int selfcol_closest(const float q[3], const float a[3], const float b[3], const float c[3],
                    float bary[3]) {
  v3 bb = V(0.0f, 0.0f, 0.0f); /* sc_closest fills it; -O3 cannot see that */
  int r = sc_closest(V(q[0], q[1], q[2]), V(a[0], a[1], a[2]), V(b[0], b[1], b[2]),
                     V(c[0], c[1], c[2]), &bb);
  bary[0] = bb.x; bary[1] = bb.y; bary[2] = bb.z;
  return r;
}

uint32_t selfcol_hash_point(const float v[3], float inv_cell, uint32_t mask) {
  return sc_hash(sc_coord(v[0], inv_cell), sc_coord(v[1], inv_cell), sc_coord(v[2], inv_cell),
                 mask);
}

const char *selfcol_part_name(selfcol_part p) {
  static const char *const names[SELFCOL_T_COUNT] = {"clamp",          "hash_particles",
                                                     "particles",      "hash_triangles",
                                                     "vertex_triangle", "bound"};
  return (unsigned)p < SELFCOL_T_COUNT ? names[p] : "?";
}

/* ---- tables shared by both backends ---- */
static uint32_t pow2_at_least(uint64_t n) {
  uint32_t b = 64;
  while (b < n && b < (1u << 30)) b <<= 1;
  return b;
}

static int g_edge_off;
void selfcol_set_edge_off(int off) { g_edge_off = off; }
static int g_link_bounds_off;
void selfcol_set_link_bounds_off(int off) { g_link_bounds_off = off; }
static int g_particle_pass;
void selfcol_set_particle_pass(int on) { g_particle_pass = on; }
static int g_lists = -1;
static int g_wide_off;
void selfcol_set_wide_off(int off) { g_wide_off = off; }
void selfcol_set_lists(int mode) { g_lists = mode; }
static int g_list_affine_off;
void selfcol_set_list_affine_off(int off) { g_list_affine_off = off; }

/* Tests: the power of two (1 .. max) in environment variable `name`, else
 * 0 (bucket counts forced low, so that cells share buckets). */
static uint32_t env_pow2(const char *name, int max) {
  const char *v = getenv(name);
  const int k = v ? atoi(v) : 0;
  return k > 0 && k <= max && (k & (k - 1)) == 0 ? (uint32_t)k : 0u;
}

int selfcol_tables_build(const selfcol_desc *d, selfcol_tables *t, drape_err *e) {
  memset(t, 0, sizeof *t);
  if (d->n_particles < 0 || d->n_tris < 0 || d->n_objects < 1)
    return drape_fail(e, DRAPE_EINVAL, "self-collision: %d particles, %d triangles, %d objects",
                      d->n_particles, d->n_tris, d->n_objects);
  for (int o = 0; o < d->n_objects; o++) {
    const selfcol_object *ob = &d->objects[o];
    if (ob->enabled && !(ob->thickness > 0.0f)) {
      if (ob->spacing > 0.0f) /* filled by the solver: name the scene key */
        return drape_fail(e, DRAPE_EINVAL, "%s[%d].thickness = %s (as a float): must be > 0",
                          ob->rope ? "rope" : "cloth", ob->index, dr_num_f(ob->thickness));
      return drape_fail(e, DRAPE_EINVAL, "self-collision: object %d thickness = %.9g: must be > 0",
                        o, (double)ob->thickness);
    }
  }
  /* corner entries are slot*4 + corner in 32 bits, slot = particle*K + k */
  if ((int64_t)d->n_particles * SELFCOL_SLOTS * 4 >= ((int64_t)1 << 32))
    return drape_fail(e, DRAPE_EINVAL,
                      "self-collision: %d particles: at most %d can collide (32-bit contact slots)",
                      d->n_particles, (int)(((int64_t)1 << 32) / (SELFCOL_SLOTS * 4) - 1));
  t->n = d->n_particles;
  t->n_tris = d->n_tris;
  t->n_objects = d->n_objects;
  size_t n = (size_t)(t->n > 0 ? t->n : 1), nt = (size_t)(t->n_tris > 0 ? t->n_tris : 1);
  t->sobj = malloc(n * sizeof *t->sobj);
  t->tobj = malloc(nt * sizeof *t->tobj);
  t->objp = calloc((size_t)t->n_objects, sizeof *t->objp);
  t->objf = calloc((size_t)t->n_objects, sizeof *t->objf);
  t->rest = calloc(n, sizeof *t->rest);
  t->name = calloc((size_t)t->n_objects, sizeof *t->name);
  t->warned = calloc(2 * (size_t)t->n_objects, sizeof *t->warned);
  if (!t->sobj || !t->tobj || !t->objp || !t->objf || !t->rest || !t->name || !t->warned) {
    selfcol_tables_free(t);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision tables)");
  }
  int o_max = -1;
  for (int o = 0; o < t->n_objects; o++) {
    const selfcol_object *ob = &d->objects[o];
    t->objp[o] = (dr_float4){ob->thickness, ob->friction, 0.0f, 0.0f};
    t->objf[o] = ob->rope ? SELFCOL_F_ROPE : 0;
    if (ob->enabled && ob->vertex_triangle && !ob->rope && !ob->no_bound && !d->bound_off) {
      t->objf[o] |= SELFCOL_F_BOUND;
      t->bound = 1;
    }
    if (ob->enabled && ob->thickness > t->t_max) {
      t->t_max = ob->thickness;
      o_max = o;
    }
    if (ob->name)
      snprintf(t->name[o], sizeof t->name[o], "%s \"%s\"", ob->rope ? "rope" : "cloth", ob->name);
    else
      snprintf(t->name[o], sizeof t->name[o], "object %d", o);
  }
  /* The rest-spacing rules (selfcol.h, docs/selfcollision.md). */
  for (int o = 0; o < t->n_objects; o++) {
    const selfcol_object *ob = &d->objects[o];
    if (!ob->enabled || !(ob->spacing > 0.0f)) continue;
    const char *kind = ob->rope ? "rope" : "cloth";
    const char *sp = ob->rope ? "link rest length" : "grid spacing";
    if (!ob->rope && !(ob->thickness <= SELFCOL_MAX_OWN * ob->spacing)) {
      int rc = drape_fail(e, DRAPE_EINVAL,
                          "cloth[%d].thickness = %s: with self_collision at most %g x its grid "
                          "spacing %s m (closer, its own vertex-triangle pairs at rest touch): "
                          "allowed > 0 and <= %s",
                          ob->index, dr_num_f(ob->thickness), (double)SELFCOL_MAX_OWN,
                          dr_num_f(ob->spacing), dr_num_f(SELFCOL_MAX_OWN * ob->spacing));
      selfcol_tables_free(t);
      return rc;
    }
    const float ratio = ob->rope ? SELFCOL_MAX_CELL_ROPE : SELFCOL_MAX_CELL_CLOTH;
    if (t->t_max <= ratio * ob->spacing) continue;
    const selfcol_object *om = &d->objects[o_max];
    int rc = drape_fail(e, DRAPE_EINVAL,
                        "%s[%d].thickness = %s: the self-collision hash cell is 2 x the largest "
                        "thickness, which may be at most %g x the %s of every colliding %s "
                        "(%s[%d]: %s m): allowed > 0 and <= %s",
                        om->rope ? "rope" : "cloth", om->index, dr_num_f(om->thickness),
                        (double)ratio, sp, kind, kind, ob->index, dr_num_f(ob->spacing),
                        dr_num_f(ratio * ob->spacing));
    selfcol_tables_free(t);
    return rc;
  }
  t->cap_p = d->cap_p > 0 ? (uint32_t)d->cap_p : SELFCOL_CAP_P;
  t->cap_t = d->cap_t > 0 ? (uint32_t)d->cap_t : SELFCOL_CAP_T;
  t->cap_c = d->cap_c > 0 ? (uint32_t)d->cap_c : SELFCOL_CAP_C;
  /* half the triangles, at least a bucket's cap: the twist lists up to
   * 604 of its 4,802 (more than 512 at three substeps in four), a cloth
   * blown apart all of them (docs/selfcollision.md, "Limits") */
  const uint32_t half = (uint32_t)(t->n_tris / 2), bucket = SELFCOL_BOUND_CAP * t->cap_t;
  t->cap_big = d->cap_big > 0 ? (uint32_t)d->cap_big : half > bucket ? half : bucket;
  t->cap_n = SELFCOL_CAP_N;
  int np = 0, ntri = 0;
  for (int i = 0; i < t->n; i++) {
    int o = d->obj[i];
    if (o < 0 || o >= t->n_objects) {
      selfcol_tables_free(t);
      return drape_fail(e, DRAPE_EINVAL, "self-collision: particle %d has object %d (0..%d)", i,
                        o, t->n_objects - 1);
    }
    t->sobj[i] = d->objects[o].enabled ? o : -1;
    np += t->sobj[i] >= 0;
    t->rest[i] = d->rest[i];
  }
  for (int k = 0; k < t->n_tris; k++) {
    int o = d->obj[d->tris[3 * k]];
    const selfcol_object *ob = &d->objects[o];
    t->tobj[k] = ob->enabled && ob->vertex_triangle && !ob->rope ? o : -1;
    ntri += t->tobj[k] >= 0;
  }
  for (int o = 0; o < t->n_objects; o++) {
    const selfcol_object *ob = &d->objects[o];
    if (ob->enabled && ob->vertex_triangle && !ob->rope) t->objf[o] |= SELFCOL_F_TRIS;
  }
  t->any = np > 0;
  t->any_tris = np > 0 && ntri > 0;
  /* Cell = 2 t_max: a query of radius t_max >= every pair thickness
   * touches at most 2 cells per axis (kernels/selfcol.cl). */
  t->cell = 2.0f * t->t_max;
  t->bound_r = SELFCOL_BOUND_REACH * t->t_max;
  t->bound_floor = SELFCOL_BOUND_FLOOR * t->t_max;
  /* twice the widest grown box of a hashed triangle at rest (the bounds'
   * hash, and with the growth t_max the passes' hash: wide_limit) */
  float widest = 0.0f, widest0 = 0.0f;
  for (int k = 0; k < t->n_tris; k++) {
    if (t->tobj[k] < 0) continue;
    const dr_float4 *r0 = &t->rest[d->tris[3 * k]], *r1 = &t->rest[d->tris[3 * k + 1]],
                    *r2 = &t->rest[d->tris[3 * k + 2]];
    float sx = fmaxf(fmaxf(r0->x, r1->x), r2->x) - fminf(fminf(r0->x, r1->x), r2->x);
    float sy = fmaxf(fmaxf(r0->y, r1->y), r2->y) - fminf(fminf(r0->y, r1->y), r2->y);
    float sz = fmaxf(fmaxf(r0->z, r1->z), r2->z) - fminf(fminf(r0->z, r1->z), r2->z);
    float side = fmaxf(fmaxf(sx, sy), sz) + 2.0f * t->bound_r;
    if (side > widest) widest = side;
    widest0 = fmaxf(widest0, fmaxf(fmaxf(sx, sy), sz));
  }
  t->bound_limit = 2.0f * widest;
  t->wide_limit = g_wide_off ? HUGE_VALF : 2.0f * (widest0 + 2.0f * t->t_max);
  /* Edge-edge contacts (issue 18): for the bounded cloths, each
   * particle's triangles in the model's order (CSR), built once from the
   * desc's list; a run reads the current corners of these triangles. */
  t->edge = t->bound && !g_edge_off && ntri > 0;
  /* The kept contact lists (selfcol.h; kernels/selfcol.cl, kl_*): where
   * the vertex-triangle pass runs on the hash of x alone (no step bounds),
   * with the default caps (tests that lower them compare against the
   * per-substep queries' cut, which the lists do not make). */
  {
    const char *env = getenv("DRAPE_SELFCOL_LISTS");
    const int on = g_lists >= 0 ? g_lists : !(env && strcmp(env, "0") == 0);
    t->lists = on && t->any_tris && !t->bound && t->cap_t >= SELFCOL_CAP_T &&
               t->cap_c >= SELFCOL_CAP_C;
    t->list_affine = !g_list_affine_off;
    const char *ll = getenv("DRAPE_SELFCOL_LIST_LEN"); /* tests: lists that overflow */
    t->list_len = ll && atoi(ll) > 0 && atoi(ll) <= 255 ? atoi(ll) : SELFCOL_LIST_LEN;
    /* The margin M: as wide as it can be (fewer builds) while a flat rest
     * mesh lists nothing, i.e. the reach below its smallest triangle
     * altitude (a grid vertex is s/sqrt(2) from the far triangle of its
     * quad, the altitude of its own); within [MIN, MAX] x t_max. */
    double hmin = INFINITY;
    for (int k = 0; k < t->n_tris; k++) {
      if (t->tobj[k] < 0) continue;
      const dr_float4 *v[3] = {&t->rest[d->tris[3 * k]], &t->rest[d->tris[3 * k + 1]],
                               &t->rest[d->tris[3 * k + 2]]};
      double ed[3][3], l2[3];
      for (int j = 0; j < 3; j++) {
        const dr_float4 *a = v[j], *b = v[(j + 1) % 3];
        ed[j][0] = (double)b->x - a->x;
        ed[j][1] = (double)b->y - a->y;
        ed[j][2] = (double)b->z - a->z;
        l2[j] = ed[j][0] * ed[j][0] + ed[j][1] * ed[j][1] + ed[j][2] * ed[j][2];
      }
      const double cx = ed[0][1] * ed[1][2] - ed[0][2] * ed[1][1],
                   cy = ed[0][2] * ed[1][0] - ed[0][0] * ed[1][2],
                   cz = ed[0][0] * ed[1][1] - ed[0][1] * ed[1][0];
      const double area2 = sqrt(cx * cx + cy * cy + cz * cz); /* twice the area */
      for (int j = 0; j < 3; j++)
        if (l2[j] > 0.0) hmin = fmin(hmin, area2 / sqrt(l2[j]));
    }
    const float mfit = isfinite(hmin) ? 0.95f * (float)hmin - t->t_max : INFINITY;
    t->list_m = fminf(fmaxf(mfit, SELFCOL_LIST_MARGIN_MIN * t->t_max),
                      SELFCOL_LIST_MARGIN * t->t_max);
    t->list_reach = t->t_max + t->list_m;
    t->list_grow = 1.01f * t->list_reach;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < t->n; i++) {
      if (t->sobj[i] < 0) continue;
      const float r[3] = {t->rest[i].x, t->rest[i].y, t->rest[i].z};
      for (int a = 0; a < 3; a++) {
        lo[a] = fminf(lo[a], r[a]);
        hi[a] = fmaxf(hi[a], r[a]);
      }
    }
    float ext = 0.0f;
    for (int a = 0; a < 3; a++)
      if (hi[a] > lo[a]) ext = fmaxf(ext, hi[a] - lo[a]);
    const float wrest = widest - 2.0f * t->bound_r; /* the widest ungrown box */
    t->list_region = fmaxf(SELFCOL_LIST_REGION_REACH * t->list_reach +
                               SELFCOL_LIST_REGION_TRI * fmaxf(wrest, 0.0f),
                           ext / SELFCOL_LIST_REGION_SPLIT);
    t->list_near = SELFCOL_LIST_NEAR * t->list_region;
    /* Region buckets: at least one per 4 particles. Two cells sharing a
     * bucket are one region whose box and motion range span both, so the
     * check fails sooner; at one per 16 the main scene rebuilt its lists
     * 607 times in 190 frames, at one per 4 (or per particle) 515. */
    uint32_t nr = 64;
    while (nr < (uint32_t)(t->n / 4) && nr < (1u << 16)) nr <<= 1;
    /* tests: fewer buckets, so that cells share them (merged regions) */
    const uint32_t nb = env_pow2("DRAPE_SELFCOL_LIST_BUCKETS", 1 << 16);
    if (nb) nr = nb;
    t->list_nr = nr;
    t->list_capr = SELFCOL_LIST_CORNER * t->cap_c;
    const char *lt = getenv("DRAPE_SELFCOL_LIST_TOTAL"); /* tests: all lists too long */
    const uint32_t per = lt && atoi(lt) > 0 && atoi(lt) <= 64 ? (uint32_t)atoi(lt) : 16u;
    t->list_rcap = 3u * per * (uint32_t)(t->n > 0 ? t->n : 1);
  }
  t->cap_e = SELFCOL_CAP_E;
  /* Rope links in the step bounds (kernels/selfcol.cl, selfcol_bound_links):
   * every rope of a scene with a bounded cloth. */
  t->links = malloc(n * sizeof *t->links);
  if (!t->links) {
    selfcol_tables_free(t);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision tables)");
  }
  for (int o = 0; o < t->n_objects && t->bound && ntri > 0 && !g_link_bounds_off; o++)
    if (d->objects[o].enabled && d->objects[o].rope) t->objf[o] |= SELFCOL_F_LINKS;
  for (int i = 0; i + 1 < t->n; i++) {
    const int o = t->sobj[i];
    if (o >= 0 && (t->objf[o] & SELFCOL_F_LINKS) && t->sobj[i + 1] == o)
      t->links[t->n_links++] = (uint32_t)i;
  }
  t->adj_start = calloc(n + 1u, sizeof *t->adj_start);
  t->adj = calloc(3u * nt, sizeof *t->adj);
  if (!t->adj_start || !t->adj) {
    selfcol_tables_free(t);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision tables)");
  }
  for (int k = 0; k < t->n_tris; k++)
    for (int c = 0; c < 3; c++) {
      uint32_t v = d->tris[3 * k + c];
      if (v < (uint32_t)t->n) t->adj_start[v + 1u]++;
    }
  for (int i = 0; i < t->n; i++) t->adj_start[i + 1] += t->adj_start[i];
  {
    /* fill in order: a cursor per particle */
    uint32_t *cur = malloc(n * sizeof *cur);
    if (!cur) {
      selfcol_tables_free(t);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision tables)");
    }
    memcpy(cur, t->adj_start, (size_t)t->n * sizeof *cur);
    for (int k = 0; k < t->n_tris; k++) {
      const uint32_t a = d->tris[3 * k], b = d->tris[3 * k + 1], c = d->tris[3 * k + 2];
      const uint32_t v3i[3] = {a, b, c};
      for (int q = 0; q < 3; q++) {
        uint32_t v = v3i[q];
        if (v >= (uint32_t)t->n) continue;
        if ((q > 0 && v == a) || (q > 1 && v == b)) continue; /* a corner twice */
        t->adj[cur[v]++] = (uint32_t)k;
      }
    }
    /* a degenerate triangle listed a corner once, not twice: close gaps */
    uint32_t w = 0;
    for (int i = 0; i < t->n; i++) {
      uint32_t lo = t->adj_start[i];
      t->adj_start[i] = w;
      for (uint32_t m = lo; m < cur[i]; m++) t->adj[w++] = t->adj[m];
    }
    t->adj_start[t->n] = w;
    free(cur);
  }
  /* The particle pass only where the vertex-triangle pass does not cover
   * every pair. Two particles of cloths in vertex-triangle mode closer than
   * their pair thickness d are each within d of the other's triangles that
   * do not hold both (a grid or mesh vertex has more triangles than the two
   * on one edge), so the vertex-triangle pass, whose contact with a
   * triangle's corner pushes the vertex away from that corner with the
   * same rest-distance rule and friction, already separates them; running
   * both did the work twice (on the main scene the particle hash and pass
   * were a quarter of the stage, docs/selfcollision.md). A rope node, a cloth particle
   * in particle mode, or a cloth particle in no triangle has no triangles
   * to be met through: then it runs. Scenes with step bounds used to run it
   * too, its extra push keeping packed layers out of the range where the
   * bounds' float distances ran over the truth; the bounds' distances are
   * now lower bounds (vt_lower, seg_lower; docs/selfcollision.md, "Each
   * pair once, and distances that are lower bounds"). */
  t->particles = g_particle_pass;
  for (int o = 0; o < t->n_objects; o++)
    if (d->objects[o].enabled && (d->objects[o].rope || !d->objects[o].vertex_triangle))
      t->particles = 1;
  for (int i = 0; i < t->n && !t->particles; i++) /* in no triangle (the lists above) */
    if (t->sobj[i] >= 0 && t->adj_start[i + 1] == t->adj_start[i]) t->particles = 1;
  /* Each triangle edge's neighbour: the lowest-index other triangle that
   * holds both its ends (-1: none), from the lists above (ascending). The
   * step bounds take each edge-edge pair once, from the edges' owners
   * (kernels/selfcol.cl, selfcol_bound_owners). */
  t->tnb = calloc(3u * nt, sizeof *t->tnb);
  if (!t->tnb) {
    selfcol_tables_free(t);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision tables)");
  }
  for (int k = 0; k < t->n_tris; k++)
    for (int i = 0; i < 3; i++) {
      const uint32_t a = d->tris[3 * k + i], b = d->tris[3 * k + (i == 2 ? 0 : i + 1)];
      int32_t nb = -1;
      for (uint32_t m = a < (uint32_t)t->n ? t->adj_start[a] : 0u;
           a < (uint32_t)t->n && m < t->adj_start[a + 1u] && nb < 0; m++) {
        const uint32_t o = t->adj[m];
        if (o == (uint32_t)k) continue;
        const uint32_t *to = &d->tris[3 * o];
        if (to[0] == b || to[1] == b || to[2] == b) nb = (int32_t)o;
      }
      t->tnb[3 * k + i] = nb;
    }
  t->mask_p = pow2_at_least(2u * (uint64_t)np) - 1u;  /* ~2 buckets per particle */
  t->mask_t = pow2_at_least(4u * (uint64_t)ntri) - 1u; /* ~4-8 entries per triangle */
  /* tests: few triangle buckets, so that a triangle's cells share one (a
   * triangle twice in a bucket; kl_lists lists it once) */
  const uint32_t ntb = env_pow2("DRAPE_SELFCOL_TRI_BUCKETS", 1 << 20);
  if (ntb) t->mask_t = ntb - 1u;
  return DRAPE_OK;
}

void selfcol_tables_free(selfcol_tables *t) {
  free(t->links);
  free(t->adj_start);
  free(t->adj);
  free(t->tnb);
  free(t->name);
  free(t->warned);
  free(t->sobj);
  free(t->tobj);
  free(t->objp);
  free(t->objf);
  free(t->rest);
  memset(t, 0, sizeof *t);
}

/* ---- the cap warning ---- */
static selfcol_warn_fn g_warn;
static void *g_warn_ctx;
void selfcol_set_warn(selfcol_warn_fn fn, void *ctx) {
  g_warn = fn;
  g_warn_ctx = ctx;
}

int selfcol_caps_warn(selfcol_tables *t, const uint32_t *caps) {
  int warned = 0;
  for (int o = 0; o < t->n_objects; o++) {
    const uint32_t *c = caps + SELFCOL_CAPC_STRIDE * o;
    uint32_t *w = t->warned + 2 * o;
    if (!(c[SELFCOL_CAPC_P] || c[SELFCOL_CAPC_T] || c[SELFCOL_CAPC_C] || c[SELFCOL_CAPC_E]))
      continue;
    /* the kind of the first warning (particle, vertex-triangle, corner,
     * edge-edge: the first with a capped query), then again when its
     * count has doubled, so that a cloth that keeps crushing is not
     * described by its first, mild count (the twist: 131 entries at first,
     * 577 by frame 100) */
    int k = c[SELFCOL_CAPC_P] ? 0 : c[SELFCOL_CAPC_T] ? 1 : c[SELFCOL_CAPC_C] ? 2 : 3;
    if (w[0]) k = (int)w[0] - 1;
    const uint32_t most = c[SELFCOL_CAPC_P_MAX + 2 * k];
    if (w[0] && (uint64_t)most < 2u * (uint64_t)w[1]) continue;
    const uint32_t before = w[0] ? w[1] : 0u;
    w[0] = (uint32_t)k + 1u;
    w[1] = most;
    warned++;
    char msg[640];
    const unsigned cap = k == 0 ? t->cap_p : k == 2 ? t->cap_c : t->cap_t;
    char part[160], again[80] = "";
    if (k == 3)
      snprintf(part, sizeof part, "an edge-edge query met a bucket of %u hash entries (cap %u)",
               (unsigned)most, cap);
    else if (k == 0)
      snprintf(part, sizeof part, "a particle query met %u hash entries (caps: %u entries, %u "
               "contacts)", (unsigned)most, cap, (unsigned)t->cap_n);
    else
      snprintf(part, sizeof part, k == 1 ? "a vertex-triangle query met %u hash entries (cap %u)"
                                         : "a triangle corner had %u contact shares (cap %u)",
               (unsigned)most, cap);
    if (before) snprintf(again, sizeof again, ", up from %u at the last warning", (unsigned)before);
    snprintf(msg, sizeof msg,
             "self-collision of %s: %s%s; only the first ones, in index order, are used and "
             "contacts beyond them are missed (a crushed or overlapping cloth, or a huge "
             "triangle; docs/selfcollision.md)",
             t->name[o], part, again);
    if (g_warn)
      g_warn(msg, g_warn_ctx);
    else
      fprintf(stderr, "drape: warning: %s\n", msg);
  }
  return warned;
}

/* ---- CPU reference ---- */
int selfcol_cpu_create(const selfcol_desc *d, selfcol_cpu *s, drape_err *e) {
  memset(s, 0, sizeof *s);
  int rc = selfcol_tables_build(d, &s->tb, e);
  if (rc) return rc;
  size_t n = (size_t)(s->tb.n > 0 ? s->tb.n : 1), nt = (size_t)(s->tb.n_tris > 0 ? s->tb.n_tris : 1);
  size_t K = SELFCOL_SLOTS;
  s->pkey = malloc(n * sizeof *s->pkey);
  s->pstart = calloc((size_t)s->tb.mask_p + 2u, sizeof *s->pstart);
  s->pvals = malloc(n * sizeof *s->pvals);
  s->delta = calloc(n, sizeof *s->delta);
  s->ncon = calloc(n, sizeof *s->ncon);
  s->wsc = calloc(n, sizeof *s->wsc);
  s->tstart = calloc((size_t)s->tb.mask_t + 3u, sizeof *s->tstart); /* + the wide bucket */
  s->tvals = malloc(8u * nt * sizeof *s->tvals);
  s->tbox = malloc(2u * nt * sizeof *s->tbox);
  s->rec_a = malloc(K * n * sizeof *s->rec_a);
  s->rec_b = malloc(K * n * sizeof *s->rec_b);
  s->rec_t = malloc(K * n * sizeof *s->rec_t);
  s->nvt = calloc(n, sizeof *s->nvt);
  s->cstart = calloc(n + 1u, sizeof *s->cstart);
  s->cvals = malloc(3u * K * n * sizeof *s->cvals);
  s->pexam = calloc(n, sizeof *s->pexam);
  s->vexam = calloc(n, sizeof *s->vexam);
  s->caps = calloc((size_t)s->tb.n_objects * SELFCOL_CAPC_STRIDE, sizeof *s->caps);
  s->rb = calloc(n, sizeof *s->rb);
  s->lk = calloc(8 * n, sizeof *s->lk);
  s->big = calloc(nt, sizeof *s->big);
  s->town = calloc(nt, sizeof *s->town);
  if (!s->rb || !s->lk || !s->big || !s->town || !s->pexam || !s->vexam || !s->caps || !s->pkey || !s->pstart || !s->pvals || !s->delta || !s->ncon || !s->wsc || !s->tstart || !s->tvals || !s->tbox ||
      !s->rec_a || !s->rec_b || !s->rec_t || !s->nvt || !s->cstart || !s->cvals) {
    selfcol_cpu_destroy(s);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (self-collision, %d particles)", s->tb.n);
  }
  return DRAPE_OK;
}

void selfcol_cpu_destroy(selfcol_cpu *s) {
  selfcol_tables_free(&s->tb);
  free(s->pkey); free(s->pstart); free(s->pvals); free(s->delta); free(s->ncon); free(s->wsc);
  free(s->tstart); free(s->tvals); free(s->tbox);
  free(s->rec_a); free(s->rec_b); free(s->rec_t); free(s->nvt);
  free(s->cstart); free(s->cvals);
  free(s->pexam); free(s->vexam); free(s->caps); free(s->rb); free(s->lk); free(s->big); free(s->town);
  memset(s, 0, sizeof *s);
}

/* Exclusive scan of start[0, n) in place; start[n] gets the total
 * (hash_scan_block + hash_scan_add on the device). */
static void exclusive_scan(uint32_t *start, size_t n) {
  uint32_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = start[i];
    start[i] = acc;
    acc += c;
  }
  start[n] = acc;
}

void cpu_selfcol_clamp(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p,
                       const selfcol_colliders *col) {
  const selfcol_tables *t = &s->tb;
  const float band = SELFCOL_SUPPORT;
  for (int i = 0; i < t->n; i++) {
    int o = t->sobj[i];
    dr_float4 xi = x[i];
    s->wsc[i] = xi.w;
    if (o < 0 || xi.w == 0.0f) continue;
    v3 pi = X3(p[i]);
    v3 d = sub(X3(xi), pi);
    float l2 = dot(d, d);
    float th = t->objp[o].x;
    float lim = SELFCOL_CLAMP * th;
    if (!(l2 <= lim * lim)) { /* NaN: clamped to NaN, not left as it was */
      float k = lim / sqrtf(l2);
      v3 nx = add(pi, mul(d, k));
      xi = (dr_float4){nx.x, nx.y, nx.z, xi.w};
      x[i] = xi;
    }
    if (!col) continue;
    int held = col->has_floor && xi.y < col->floor_y + th + band * th;
    for (int k = 0; k < col->n_spheres && !held; k++) {
      const dr_sphere *sp = &col->spheres[k];
      v3 c = add(X3(sp->center_radius), mul(X3(sp->velocity_friction), col->t_end));
      float r = sp->center_radius.w + th + band * th;
      v3 dc = sub(X3(xi), c);
      held = dot(dc, dc) < r * r;
    }
    if (held) s->wsc[i] = 0.0f;
  }
}

void cpu_hash_particles(selfcol_cpu *s, const dr_float4 *x) {
  const selfcol_tables *t = &s->tb;
  const float inv = 1.0f / t->cell;
  const size_t B = (size_t)t->mask_p + 1u;
  memset(s->pstart, 0, (B + 1u) * sizeof *s->pstart);
  for (int i = 0; i < t->n; i++) { /* hash_count_particles */
    if (t->sobj[i] < 0) continue;
    uint32_t h = sc_hash(sc_coord(x[i].x, inv), sc_coord(x[i].y, inv), sc_coord(x[i].z, inv),
                         t->mask_p);
    s->pkey[i] = h;
    s->pstart[h]++;
  }
  exclusive_scan(s->pstart, B);
  for (int i = 0; i < t->n; i++) { /* hash_scatter_particles (+ sort) */
    if (t->sobj[i] < 0) continue;
    uint32_t h = s->pkey[i];
    s->pvals[s->pstart[h]++] = (uint32_t)i; /* start[h] as the cursor */
  }
  /* each cursor ran start[h] up to the end of bucket h: shift by one */
  memmove(s->pstart + 1, s->pstart, B * sizeof *s->pstart);
  s->pstart[0] = 0;
}

void cpu_selfcol_particles(selfcol_cpu *s, const dr_float4 *x, const dr_float4 *p) {
  const selfcol_tables *t = &s->tb;
  const float inv = 1.0f / t->cell;
  for (int i = 0; i < t->n; i++) {
    int oi = t->sobj[i];
    if (oi < 0) {
      s->delta[i] = (dr_float4){0, 0, 0, 0};
      s->ncon[i] = 0;
      s->pexam[i] = 0;
      continue;
    }
    dr_float4 xi = x[i];
    v3 xi3 = X3(xi), pi = X3(p[i]), ri = X3(t->rest[i]);
    float ti = t->objp[oi].x, mui = t->objp[oi].y;
    int rope_i = t->objf[oi] & SELFCOL_F_ROPE;
    const float reach = t->t_max;
    int c0[3] = {sc_coord(xi.x - reach, inv), sc_coord(xi.y - reach, inv), sc_coord(xi.z - reach, inv)};
    int c1[3] = {sc_coord(xi.x + reach, inv), sc_coord(xi.y + reach, inv), sc_coord(xi.z + reach, inv)};
    v3 D = V(0, 0, 0);
    int cnt = 0;
    uint32_t left = t->cap_p, cand = 0;
    for (int qz = c0[2]; qz <= c1[2]; qz++)
      for (int qy = c0[1]; qy <= c1[1]; qy++)
        for (int qx = c0[0]; qx <= c1[0]; qx++) {
          uint32_t h = sc_hash(qx, qy, qz, t->mask_p);
          uint32_t lo = s->pstart[h], hi = s->pstart[h + 1u];
          cand += hi - lo;
          if (hi - lo > left) hi = lo + left;
          uint32_t e = lo;
          for (; e < hi && cnt < (int)t->cap_n; e++) {
            int j = (int)s->pvals[e];
            if (j == i) continue;
            dr_float4 xj = x[j];
            if (sc_coord(xj.x, inv) != qx || sc_coord(xj.y, inv) != qy || sc_coord(xj.z, inv) != qz)
              continue;
            int oj = t->sobj[j];
            if (rope_i && (t->objf[oj] & SELFCOL_F_ROPE)) continue;
            int same = oi == oj;
            float d = sc_pair_thickness(ti, t->objp[oj].x, same);
            v3 dv = sub(xi3, X3(xj));
            float l2 = dot(dv, dv);
            if (!(l2 < d * d) || l2 == 0.0f) continue;
            if (same) {
              v3 dr = sub(ri, X3(t->rest[j]));
              float r2 = dot(dr, dr);
              if (!(l2 < r2)) continue;
              d = fminf(d, sqrtf(r2));
            }
            float wi = s->wsc[i], wj = s->wsc[j];
            if (wi + wj == 0.0f) {
              wi = xi.w;
              wj = xj.w;
            }
            if (wi == 0.0f) continue;
            float ws = wi + wj;
            float len = sqrtf(l2);
            v3 nrm = dvs(dv, len);
            float depth = d - len;
            v3 rel = sub(sub(xi3, pi), sub(X3(xj), X3(p[j])));
            float rn = dot(rel, nrm);
            v3 rt = sub(rel, mul(nrm, rn));
            float lt = sqrtf(dot(rt, rt));
            float lim = fmaxf(mui, t->objp[oj].y) * depth;
            float f = lt <= lim ? 1.0f : lim / lt;
            float share = wi / ws;
            D = sc_request(D, mul(sub(mul(nrm, depth), mul(rt, f)), share));
            cnt++;
          }
          left -= e - lo;
        }
    s->delta[i] = (dr_float4){D.x, D.y, D.z, 0.0f};
    s->ncon[i] = cnt;
    s->pexam[i] = t->cap_p - left;
    if (t->cap_p - left < cand) sc_cap_hit(s->caps, oi, SELFCOL_CAPC_P, cand);
  }
}

void cpu_selfcol_apply(selfcol_cpu *s, dr_float4 *x) {
  for (int i = 0; i < s->tb.n; i++) {
    dr_float4 d = s->delta[i];
    if (d.x != 0.0f || d.y != 0.0f || d.z != 0.0f) {
      x[i].x = x[i].x + d.x;
      x[i].y = x[i].y + d.y;
      x[i].z = x[i].z + d.z;
    }
  }
}

static int tri_ok(const selfcol_tables *t, const dr_uint *tris, int k, uint32_t v[3]) {
  if (t->tobj[k] < 0) return 0;
  v[0] = tris[3 * k]; v[1] = tris[3 * k + 1]; v[2] = tris[3 * k + 2];
  return !(v[0] == v[1] || v[1] == v[2] || v[0] == v[2]);
}

static void tri_box(const dr_float4 *x, const uint32_t v[3], float grow, v3 *lo, v3 *hi) {
  v3 a = X3(x[v[0]]), b = X3(x[v[1]]), c = X3(x[v[2]]);
  v3 g = V(grow, grow, grow);
  *lo = sub(vmin(vmin(a, b), c), g);
  *hi = add(vmax(vmax(a, b), c), g);
}

static float tri_inv_cell(uint32_t maxbits) {
  float side = as_f(maxbits);
  return side > 0.0f ? 1.0f / (side * 1.01f) : 0.0f;
}

static void tri_cells(const dr_float4 *tbox, int k, float inv, int c0[3], int c1[3]) {
  v3 lo = X3(tbox[2 * k]), hi = X3(tbox[2 * k + 1]);
  c0[0] = sc_coord(lo.x, inv); c0[1] = sc_coord(lo.y, inv); c0[2] = sc_coord(lo.z, inv);
  c1[0] = sc_coord(hi.x, inv); c1[1] = sc_coord(hi.y, inv); c1[2] = sc_coord(hi.z, inv);
  for (int a = 0; a < 3; a++)
    if (c1[a] > c0[a] + 1) c1[a] = c0[a] + 1;
}

/* bound: selfcol_bound_extent instead of hash_tri_extent (triangles wider
 * than bound_limit listed in big[], in index order, not hashed); else
 * those wider than wide_limit go to the wide bucket B (hash_count_triangles) */
static void hash_triangles_grown(selfcol_cpu *s, const dr_float4 *x, const dr_uint *tris,
                                 float grow, int bound, float wide_limit) {
  const selfcol_tables *t = &s->tb;
  const size_t B = (size_t)t->mask_t + 1u;
  uint32_t v[3];
  s->maxbits = 0; /* hash_tri_extent */
  s->nbig = 0;
  for (int k = 0; k < 6; k++) s->bigbox[k] = 0u;
  for (int k = 0; k < t->n_tris; k++) {
    if (!tri_ok(t, tris, k, v)) continue;
    if (bound) { /* selfcol_bound_extent */
      v3 lo, hi;
      tri_box(x, v, grow, &lo, &hi);
      v3 sd = sub(hi, lo);
      float side = fmaxf(fmaxf(sd.x, sd.y), sd.z);
      v3 a = X3(x[v[0]]), b = X3(x[v[1]]), c = X3(x[v[2]]);
      float chk = (a.x + a.y + a.z) + (b.x + b.y + b.z) + (c.x + c.y + c.z);
      int ok = chk - chk == 0.0f;
      int is_big = ok && !(side <= t->bound_limit);
      s->tbox[2 * k] = (dr_float4){lo.x, lo.y, lo.z, ok && !is_big ? 1.0f : 0.0f};
      s->tbox[2 * k + 1] = (dr_float4){hi.x, hi.y, hi.z, is_big ? 1.0f : 0.0f};
      if (is_big) {
        s->big[s->nbig++] = (uint32_t)k;
        const float bc[6] = {lo.x, lo.y, lo.z, hi.x, hi.y, hi.z};
        for (int j = 0; j < 6; j++) { /* selfcol_bound_extent's big box */
          const uint32_t key = j < 3 ? ~fkey(bc[j]) : fkey(bc[j]);
          if (key > s->bigbox[j]) s->bigbox[j] = key;
        }
      } else if (ok && as_u(side) > s->maxbits) {
        s->maxbits = as_u(side);
      }
      continue;
    }
    v3 lo, hi;
    tri_box(x, v, grow, &lo, &hi);
    v3 sd = sub(hi, lo);
    float side = fmaxf(fmaxf(sd.x, sd.y), sd.z);
    v3 a = X3(x[v[0]]), b = X3(x[v[1]]), c = X3(x[v[2]]);
    float chk = (a.x + a.y + a.z) + (b.x + b.y + b.z) + (c.x + c.y + c.z);
    const int ok = chk - chk == 0.0f;
    const int wide = ok && !(side <= wide_limit);
    s->tbox[2 * k] = (dr_float4){lo.x, lo.y, lo.z, ok && !wide ? 1.0f : 0.0f};
    s->tbox[2 * k + 1] = (dr_float4){hi.x, hi.y, hi.z, wide ? 1.0f : 0.0f};
    if (!(side < 1.0e30f)) side = 1.0e30f;
    if (ok && !wide && as_u(side) > s->maxbits) s->maxbits = as_u(side);
  }
  const float inv = tri_inv_cell(s->maxbits);
  memset(s->tstart, 0, (B + 2u) * sizeof *s->tstart);
  int c0[3], c1[3];
  for (int k = 0; k < t->n_tris; k++) { /* hash_count_triangles */
    if (!tri_ok(t, tris, k, v)) continue;
    if (s->tbox[2 * k].w == 0.0f) {
      if (s->tbox[2 * k + 1].w != 0.0f) s->tstart[B]++; /* the wide bucket */
      continue;
    }
    tri_cells(s->tbox, k, inv, c0, c1);
    for (int z = c0[2]; z <= c1[2]; z++)
      for (int y = c0[1]; y <= c1[1]; y++)
        for (int xx = c0[0]; xx <= c1[0]; xx++) s->tstart[sc_hash(xx, y, z, t->mask_t)]++;
  }
  exclusive_scan(s->tstart, B + 1u);
  for (int k = 0; k < t->n_tris; k++) { /* hash_scatter_triangles (+ sort) */
    if (!tri_ok(t, tris, k, v)) continue;
    if (s->tbox[2 * k].w == 0.0f) {
      if (s->tbox[2 * k + 1].w != 0.0f) s->tvals[s->tstart[B]++] = (uint32_t)k;
      continue;
    }
    tri_cells(s->tbox, k, inv, c0, c1);
    for (int z = c0[2]; z <= c1[2]; z++)
      for (int y = c0[1]; y <= c1[1]; y++)
        for (int xx = c0[0]; xx <= c1[0]; xx++)
          s->tvals[s->tstart[sc_hash(xx, y, z, t->mask_t)]++] = (uint32_t)k;
  }
  memmove(s->tstart + 1, s->tstart, (B + 1u) * sizeof *s->tstart);
  s->tstart[0] = 0;
}

void cpu_hash_triangles(selfcol_cpu *s, const dr_float4 *x, const dr_uint *tris) {
  hash_triangles_grown(s, x, tris, s->tb.t_max, 0, s->tb.wide_limit);
}

void cpu_selfcol_vertex_triangle(selfcol_cpu *s, const dr_float4 *x, const dr_float4 *p,
                                 const dr_uint *tris) {
  const selfcol_tables *t = &s->tb;
  const int K = SELFCOL_SLOTS;
  const float inv = tri_inv_cell(s->maxbits);
  for (int q = 0; q < t->n; q++) {
    int oq = t->sobj[q];
    int k = 0;
    uint32_t seen = 0;
    if (oq >= 0 && inv > 0.0f) {
      dr_float4 xq4 = x[q];
      v3 xq = X3(xq4), pq = X3(p[q]);
      float tq = t->objp[oq].x, muq = t->objp[oq].y;
      const uint32_t *src = s->tvals;
      const uint32_t h = sc_hash(sc_coord(xq.x, inv), sc_coord(xq.y, inv), sc_coord(xq.z, inv),
                                 t->mask_t);
      const uint32_t lo = s->tstart[h], full = s->tstart[h + 1u];
      const uint32_t wlo = s->tstart[t->mask_t + 1u], wfull = s->tstart[t->mask_t + 2u];
      uint32_t prev = 0xffffffffu;
      const uint32_t cap = t->cap_t;
      const uint32_t hi = full - lo > cap ? lo + cap : full;
      const uint32_t whi = wfull - wlo > cap ? wlo + cap : wfull;
      uint32_t e = lo, w = wlo;
      while (k < K) { /* the bucket and the wide bucket merged by index */
        uint32_t tr;
        if (e < hi && (w >= whi || src[e] <= src[w])) tr = src[e++];
        else if (w < whi) tr = src[w++];
        else break;
        if (tr == prev) continue;
        prev = tr;
        const float gm = 0.01f * t->t_max;
        v3 blo = sub(X3(s->tbox[2 * tr]), V(gm, gm, gm)), bhi = add(X3(s->tbox[2 * tr + 1]), V(gm, gm, gm));
        if (!(xq.x >= blo.x && xq.y >= blo.y && xq.z >= blo.z) ||
            !(xq.x <= bhi.x && xq.y <= bhi.y && xq.z <= bhi.z))
          continue; /* NaN: outside */
        uint32_t ia = tris[3 * tr], ib = tris[3 * tr + 1], ic = tris[3 * tr + 2];
        if (ia == (uint32_t)q || ib == (uint32_t)q || ic == (uint32_t)q) continue;
        int ot = t->tobj[tr];
        int same = ot == oq;
        float d = sc_pair_thickness(tq, t->objp[ot].x, same);
        dr_float4 xa = x[ia], xb = x[ib], xc = x[ic];
        v3 bary;
        int face = sc_closest(xq, X3(xa), X3(xb), X3(xc), &bary);
        if (face < 0) continue;
        v3 ev = sub(xq, sc_point(X3(xa), X3(xb), X3(xc), bary));
        float l2 = dot(ev, ev);
        if (!(l2 < d * d)) continue;
        if (same) {
          v3 rb;
          v3 rq = X3(t->rest[q]), ra = X3(t->rest[ia]), rbb = X3(t->rest[ib]), rc = X3(t->rest[ic]);
          if (sc_closest(rq, ra, rbb, rc, &rb) < 0) continue;
          v3 er = sub(rq, sc_point(ra, rbb, rc, rb));
          float r2 = dot(er, er);
          if (!(l2 < r2)) continue;
          d = fminf(d, sqrtf(r2));
        }
        v3 pa = X3(p[ia]), pb = X3(p[ib]), pc = X3(p[ic]);
        v3 n0 = cross(sub(pb, pa), sub(pc, pa));
        float side = dot(n0, sub(pq, pa)) >= 0.0f ? 1.0f : -1.0f;
        v3 nc = cross(sub(X3(xb), X3(xa)), sub(X3(xc), X3(xa)));
        float nl = sqrtf(dot(nc, nc));
        if (!(nl > 0.0f)) continue;
        v3 nrm = mul(nc, side / nl);
        float hgt = dot(nrm, ev);
        v3 dir;
        float depth;
        if (face > 0 || hgt < 0.0f || l2 == 0.0f) {
          dir = nrm;
          depth = d - hgt;
        } else {
          float len = sqrtf(l2);
          dir = dvs(ev, len);
          depth = d - len;
        }
        if (!(depth > 0.0f)) continue;
        float wq = s->wsc[q], wa = s->wsc[ia], wb = s->wsc[ib], wc = s->wsc[ic], mode = 0.0f;
        float sden = wq + bary.x * bary.x * wa + bary.y * bary.y * wb + bary.z * bary.z * wc;
        if (sden == 0.0f) {
          mode = 1.0f;
          sden = xq4.w + bary.x * bary.x * xa.w + bary.y * bary.y * xb.w + bary.z * bary.z * xc.w;
        }
        if (!(sden > 0.0f)) continue;
        v3 rel = sub(sub(xq, pq), sc_point(sub(X3(xa), pa), sub(X3(xb), pb), sub(X3(xc), pc), bary));
        float rn = dot(rel, dir);
        v3 rt = sub(rel, mul(dir, rn));
        float lt = sqrtf(dot(rt, rt));
        float lim = fmaxf(muq, t->objp[ot].y) * depth;
        float f = lt <= lim ? 1.0f : lim / lt;
        v3 J = dvs(sub(mul(dir, depth), mul(rt, f)), sden);
        int slot = q * K + k;
        s->rec_a[slot] = (dr_float4){J.x, J.y, J.z, mode};
        s->rec_b[slot] = (dr_float4){bary.x, bary.y, bary.z, sden};
        s->rec_t[slot] = tr;
        k++;
      }
      seen = (e - lo) + (w - wlo);
      if (k < K && ((e == hi && hi < full) || (w == whi && whi < wfull)))
        sc_cap_hit(s->caps, oq, SELFCOL_CAPC_T,
                   full - lo > wfull - wlo ? full - lo : wfull - wlo);
    }
    s->nvt[q] = k;
    s->vexam[q] = seen;
  }
}

void cpu_selfcol_vt_gather(selfcol_cpu *s, dr_float4 *x, const dr_uint *tris) {
  const selfcol_tables *t = &s->tb;
  const int K = SELFCOL_SLOTS;
  const size_t n = (size_t)t->n;
  /* selfcol_corner_count ▸ scan ▸ selfcol_corner_scatter (+ sort) */
  memset(s->cstart, 0, (n + 1u) * sizeof *s->cstart);
  for (int q = 0; q < t->n; q++)
    for (int k = 0; k < s->nvt[q]; k++) {
      uint32_t tr = s->rec_t[q * K + k];
      for (int c = 0; c < 3; c++) s->cstart[tris[3 * tr + c]]++;
    }
  exclusive_scan(s->cstart, n);
  for (int q = 0; q < t->n; q++)
    for (int k = 0; k < s->nvt[q]; k++) {
      uint32_t slot = (uint32_t)(q * K + k);
      uint32_t tr = s->rec_t[slot];
      for (int c = 0; c < 3; c++) s->cvals[s->cstart[tris[3 * tr + c]]++] = slot * 4u + (uint32_t)c;
    }
  memmove(s->cstart + 1, s->cstart, n * sizeof *s->cstart);
  s->cstart[0] = 0;
  /* selfcol_vt_gather */
  for (int j = 0; j < t->n; j++) {
    dr_float4 xj = x[j];
    if (xj.w == 0.0f) continue;
    int m = s->nvt[j];
    uint32_t lo = s->cstart[j], hi = s->cstart[j + 1];
    if (m == 0 && lo == hi) continue;
    if (hi - lo > t->cap_c) {
      if (t->sobj[j] >= 0) sc_cap_hit(s->caps, t->sobj[j], SELFCOL_CAPC_C, hi - lo);
      hi = lo + t->cap_c;
    }
    float ws = s->wsc[j];
    v3 D = V(0, 0, 0);
    for (int k = 0; k < m; k++) {
      dr_float4 a = s->rec_a[j * K + k];
      float w = a.w != 0.0f ? xj.w : ws;
      if (w == 0.0f) continue;
      D = sc_request(D, mul(X3(a), w));
    }
    for (uint32_t e = lo; e < hi; e++) {
      uint32_t v = s->cvals[e];
      uint32_t slot = v >> 2, c = v & 3u;
      dr_float4 a = s->rec_a[slot];
      float w = a.w != 0.0f ? xj.w : ws;
      if (w == 0.0f) continue;
      dr_float4 b = s->rec_b[slot];
      float bk = c == 0u ? b.x : c == 1u ? b.y : b.z;
      D = sc_request(D, mul(X3(a), -fminf(bk * w, b.w))); /* selfcol.cl: at most J s */
    }
    v3 nx = add(X3(xj), D);
    x[j] = (dr_float4){nx.x, nx.y, nx.z, xj.w};
  }
}

/* ---- step bounds (kernels/selfcol.cl, selfcol_bound_pairs) ---- */
static inline float clampf01(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }

/* sc_pt_seg_dir: distance from q to segment (p, p + d), dd = d·d, and the
 * vector from its closest point to q; sc_pt_seg: the distance alone. */
static inline float pt_seg_dir(v3 q, v3 p, v3 d, float dd, v3 *w) {
  const float t = dd > 0.0f ? clampf01(dot(sub(q, p), d) / dd) : 0.0f;
  *w = sub(q, add(p, mul(d, t)));
  return sqrtf(dot(*w, *w));
}
static inline float pt_seg(v3 q, v3 p, v3 d, float dd) {
  v3 w;
  return pt_seg_dir(q, p, d, dd, &w);
}

static float seg_dist(v3 p1, v3 q1, v3 p2, v3 q2) {
  v3 d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
  float a = dot(d1, d1), e = dot(d2, d2);
  float best = fminf(fminf(pt_seg(p1, p2, d2, e), pt_seg(q1, p2, d2, e)),
                     fminf(pt_seg(p2, p1, d1, a), pt_seg(q2, p1, d1, a)));
  float b = dot(d1, d2), c = dot(d1, r), f = dot(d2, r);
  float den = a * e - b * b;
  if (den > 0.0f) {
    float s = (b * f - c * e) / den, t = (a * f - b * c) / den;
    if (s >= 0.0f && s <= 1.0f && t >= 0.0f && t <= 1.0f) {
      v3 w = sub(add(p1, mul(d1, s)), add(p2, mul(d2, t)));
      best = fminf(best, sqrtf(dot(w, w)));
    }
  }
  return best;
}

float selfcol_seg_dist(const float p1[3], const float q1[3], const float p2[3],
                       const float q2[3]) {
  return seg_dist(V(p1[0], p1[1], p1[2]), V(q1[0], q1[1], q1[2]), V(p2[0], p2[1], p2[2]),
                  V(q2[0], q2[1], q2[2]));
}

/* sc_one_side, sc_seg_lower (why: kernels/selfcol.cl) */
static inline int one_side(v3 a, v3 b, v3 p, v3 m, float mm, float delta) {
  const v3 ap = sub(a, p), bp = sub(b, p);
  const float sa = dot(ap, m) / mm, sb = dot(bp, m) / mm;
  const float ea = 2.0f * delta * sqrtf(dot(ap, ap)), eb = 2.0f * delta * sqrtf(dot(bp, bp));
  return (sa > ea && sb > eb) || (sa < -ea && sb < -eb);
}
static float seg_lower(v3 p1, v3 q1, v3 p2, v3 q2, v3 *dir, float R) {
  const v3 d1 = sub(q1, p1), d2 = sub(q2, p2);
  const float a = dot(d1, d1), e = dot(d2, d2);
  const v3 n = cross(d1, d2), r = sub(p1, p2);
  const float nn = sqrtf(dot(n, n));
  const float delta = nn > 0.0f ? SELFCOL_NORMAL_ERR * (sqrtf(a) * sqrtf(e) / nn) : 0.0f;
  const float sd = nn > 0.0f ? dot(r, n) / nn : 0.0f;
  const float hr = fmaxf(fabsf(sd) - delta * sqrtf(dot(r, r)), 0.0f);
  if (hr >= R) return hr;
  v3 w;
  float de = pt_seg_dir(p1, p2, d2, e, dir), l = pt_seg_dir(q1, p2, d2, e, &w);
  if (l < de) {
    de = l;
    *dir = w;
  }
  l = pt_seg_dir(p2, p1, d1, a, &w);
  if (l < de) {
    de = l;
    *dir = mul(w, -1.0f);
  }
  l = pt_seg_dir(q2, p1, d1, a, &w);
  if (l < de) {
    de = l;
    *dir = mul(w, -1.0f);
  }
  if (!(nn > 0.0f)) return de;
  const v3 m2 = cross(d2, n), m1 = cross(d1, n);
  if (one_side(p1, q1, p2, m2, sqrtf(dot(m2, m2)), delta) ||
      one_side(p2, q2, p1, m1, sqrtf(dot(m1, m1)), delta))
    return de;
  const float hl = fminf(de, hr);
  const float pl = de - 0.7854f * fminf(sqrtf(a), sqrtf(e)) * (nn / (sqrtf(a) * sqrtf(e)));
  if (pl > hl) return pl;
  *dir = sd >= 0.0f ? n : mul(n, -1.0f);
  return hl;
}
float selfcol_seg_lower(const float p1[3], const float q1[3], const float p2[3],
                        const float q2[3]) {
  v3 w;
  return seg_lower(V(p1[0], p1[1], p1[2]), V(q1[0], q1[1], q1[2]), V(p2[0], p2[1], p2[2]),
                   V(q2[0], q2[1], q2[2]), &w, INFINITY);
}

static inline void bound4(uint32_t *rb, uint32_t a, uint32_t b, uint32_t c, uint32_t d,
                          float dist) {
  uint32_t u = as_u(dist);
  if (u < rb[a]) rb[a] = u;
  if (u < rb[b]) rb[b] = u;
  if (u < rb[c]) rb[c] = u;
  if (u < rb[d]) rb[d] = u;
}

/* sc_lock1 */
static inline void lock1(selfcol_cpu *s, uint32_t i, v3 n, float dd) {
  uint32_t *l = s->lk + 8u * i;
  const uint32_t k[3] = {fkey(n.x), fkey(n.y), fkey(n.z)};
  for (int c = 0; c < 3; c++) {
    if (k[c] < l[c]) l[c] = k[c];
    if (k[c] > l[4 + c]) l[4 + c] = k[c];
  }
  if (as_u(dd) < l[3]) l[3] = as_u(dd);
  l[7]++;
}
static inline v3 unit_div(v3 w, float l) { return V(w.x / l, w.y / l, w.z / l); }

/* sc_bound_margin: SELFCOL_BOUND_ULPS float epsilons of the largest
 * coordinate magnitude of the pair's points (why: kernels/selfcol.cl). */
static inline float amax3(v3 a) { return fmaxf(fmaxf(fabsf(a.x), fabsf(a.y)), fabsf(a.z)); }
static inline float bound_margin(v3 a, v3 b, v3 c, v3 d) {
  return fmaxf(fmaxf(amax3(a), amax3(b)), fmaxf(amax3(c), amax3(d))) *
         ((float)SELFCOL_BOUND_ULPS * FLT_EPSILON);
}

/* sc_bound_seg4: segment a-b (A, B: side 1) against c-d (C, D: side 2) */
static void bound_seg4(selfcol_cpu *s, uint32_t a, uint32_t b, uint32_t c, uint32_t d, v3 A,
                       v3 B, v3 C, v3 D, float R, float fl) {
  v3 w;
  const float dd = seg_lower(A, B, C, D, &w, R);
  if (!(dd < R)) return;
  const float dm = dd - bound_margin(A, B, C, D);
  if (dm >= fl) {
    bound4(s->rb, a, b, c, d, dm);
  } else if (dm >= SELFCOL_LOCK_HOLD * fl) {
    const v3 n = unit_div(w, sqrtf(dot(w, w))), m = mul(n, -1.0f);
    lock1(s, a, n, dm);
    lock1(s, b, n, dm);
    lock1(s, c, m, dm);
    lock1(s, d, m, dm);
  } else {
    bound4(s->rb, a, b, c, d, 0.0f);
  }
}

static inline int in_box(v3 q, v3 lo, v3 hi) {
  return q.x >= lo.x && q.y >= lo.y && q.z >= lo.z && q.x <= hi.x && q.y <= hi.y && q.z <= hi.z;
}

/* sc_vt_lower: a lower bound of the distance from q to triangle (a, b, c)
 * (why and how: kernels/selfcol.cl) */
static float vt_lower(v3 q, v3 a, v3 b, v3 c, v3 *dir, float R) {
  const v3 Vx[3] = {a, b, c};
  const v3 e[3] = {sub(b, a), sub(c, b), sub(a, c)};
  const float L2[3] = {dot(e[0], e[0]), dot(e[1], e[1]), dot(e[2], e[2])};
  const int k = L2[1] > L2[0] ? (L2[2] > L2[1] ? 2 : 1) : (L2[2] > L2[0] ? 2 : 0);
  const int k1 = k == 2 ? 0 : k + 1, k2 = k1 == 2 ? 0 : k1 + 1;
  const v3 o = Vx[k2], n = cross(sub(Vx[k], o), sub(Vx[k1], o));
  const float nn = sqrtf(dot(n, n));
  int out = 1, in = 0;
  float hl = 0.0f;
  if (nn > 0.0f) {
    const float delta = SELFCOL_NORMAL_ERR * (sqrtf(L2[k1]) * sqrtf(L2[k2]) / nn);
    const v3 qo = sub(q, o);
    const float sd = dot(qo, n) / nn;
    hl = fmaxf(fabsf(sd) - delta * sqrtf(dot(qo, qo)), 0.0f);
    *dir = sd >= 0.0f ? n : mul(n, -1.0f);
    if (hl >= R) return hl;
    out = 0;
    in = 1;
    for (int i = 0; i < 3; i++) {
      const v3 qv = sub(q, Vx[i]);
      const float sig = dot(qv, cross(e[i], n)) / (sqrtf(L2[i]) * nn);
      const float err = 2.0f * delta * sqrtf(dot(qv, qv));
      if (sig - err >= R) return sig - err; /* past R on this edge's outer side */
      if (sig > err) out = 1;
      if (!(sig < -err)) in = 0;
    }
    if (in) return hl;
  }
  float de = INFINITY;
  v3 wb = V(0, 0, 0);
  for (int i = 0; i < 3; i++) {
    v3 w;
    const float l = pt_seg_dir(q, Vx[i], e[i], L2[i], &w);
    if (l < de) {
      de = l;
      wb = w;
    }
  }
  if (out) {
    *dir = wb;
    return de;
  }
  return fminf(de, hl);
}

float selfcol_vt_lower(const float q[3], const float a[3], const float b[3], const float c[3]) {
  v3 w;
  return vt_lower(V(q[0], q[1], q[2]), V(a[0], a[1], a[2]), V(b[0], b[1], b[2]),
                  V(c[0], c[1], c[2]), &w, INFINITY);
}

/* sc_bound_vt */
static void bound_vt(selfcol_cpu *s, uint32_t q, v3 P, const uint32_t *Vt, const v3 *T, v3 blo,
                     v3 bhi, float R, float fl) {
  if (q == Vt[0] || q == Vt[1] || q == Vt[2]) return;
  if (!in_box(P, blo, bhi)) return;
  v3 ev;
  const float dd = vt_lower(P, T[0], T[1], T[2], &ev, R);
  if (!(dd < R)) return;
  const float dm = dd - bound_margin(P, T[0], T[1], T[2]);
  if (dm >= fl) {
    bound4(s->rb, q, Vt[0], Vt[1], Vt[2], dm);
  } else if (dm >= SELFCOL_LOCK_HOLD * fl) { /* a lock: q on side 1 */
    const v3 n = unit_div(ev, sqrtf(dot(ev, ev))), m = mul(n, -1.0f);
    lock1(s, q, n, dm);
    for (int k = 0; k < 3; k++) lock1(s, Vt[k], m, dm);
  } else {
    bound4(s->rb, q, Vt[0], Vt[1], Vt[2], 0.0f);
  }
}

static inline int box_overlap(v3 lo, v3 hi, v3 blo, v3 bhi) {
  return lo.x <= bhi.x && lo.y <= bhi.y && lo.z <= bhi.z && hi.x >= blo.x && hi.y >= blo.y &&
         hi.z >= blo.z;
}

/* sc_big_box, sc_bound_in_big (kernels/selfcol.cl) */
static void big_box(const selfcol_cpu *s, v3 *lo, v3 *hi) {
  *lo = V(funkey(~s->bigbox[0]), funkey(~s->bigbox[1]), funkey(~s->bigbox[2]));
  *hi = V(funkey(s->bigbox[3]), funkey(s->bigbox[4]), funkey(s->bigbox[5]));
}
static int in_big(const selfcol_cpu *s, v3 P) {
  v3 lo, hi;
  big_box(s, &lo, &hi);
  const float S = as_f(s->maxbits);
  const float pad = S + (fmaxf(amax3(lo), amax3(hi)) + S) * 0x1p-18f;
  return box_overlap(P, P, sub(lo, V(pad, pad, pad)), add(hi, V(pad, pad, pad)));
}

/* sc_bound_live: a triangle the bounds' hash took (finite corners). */
static inline int tri_live(const selfcol_cpu *s, int k) {
  return s->tbox[2 * k].w != 0.0f || s->tbox[2 * k + 1].w != 0.0f;
}

/* sc_bound_vt_tri: particle q (at P) against triangle t2 (grown box in
 * tbox). */
static void bound_vt_tri(selfcol_cpu *s, const dr_float4 *p, const dr_uint *tris, uint32_t q,
                         v3 P, uint32_t t2, float R, float fl) {
  const uint32_t V2[3] = {tris[3 * t2], tris[3 * t2 + 1], tris[3 * t2 + 2]};
  if (q == V2[0] || q == V2[1] || q == V2[2]) return;
  const v3 blo = X3(s->tbox[2 * t2]), bhi = X3(s->tbox[2 * t2 + 1]);
  if (!in_box(P, blo, bhi)) return;
  const v3 P2[3] = {X3(p[V2[0]]), X3(p[V2[1]]), X3(p[V2[2]])};
  bound_vt(s, q, P, V2, P2, blo, bhi, R, fl);
}

/* sc_bound_edges: the owned edges of triangle t1 (V1, P1, mask own1)
 * against those of t2 (mask own2). */
static void bound_edges(selfcol_cpu *s, const dr_float4 *p, const dr_uint *tris,
                        const uint32_t *V1, const v3 *P1, uint32_t own1, uint32_t t2,
                        uint32_t own2, float R, float fl) {
  const v3 RR = V(R, R, R);
  uint32_t V2[3] = {tris[3 * t2], tris[3 * t2 + 1], tris[3 * t2 + 2]};
  v3 P2[3] = {X3(p[V2[0]]), X3(p[V2[1]]), X3(p[V2[2]])};
  for (int i = 0; i < 3; i++) {
    if (!(own1 >> i & 1u)) continue;
    const int i1 = i == 2 ? 0 : i + 1;
    uint32_t a = V1[i], b = V1[i1];
    v3 alo = sub(vmin(P1[i], P1[i1]), RR), ahi = add(vmax(P1[i], P1[i1]), RR);
    for (int j = 0; j < 3; j++) {
      if (!(own2 >> j & 1u)) continue;
      const int j1 = j == 2 ? 0 : j + 1;
      uint32_t c = V2[j], d = V2[j1];
      if (a == c || a == d || b == c || b == d) continue;
      if (!box_overlap(vmin(P2[j], P2[j1]), vmax(P2[j], P2[j1]), alo, ahi)) continue;
      bound_seg4(s, a, b, c, d, P1[i], P1[i1], P2[j], P2[j1], R, fl);
    }
  }
}

/* sc_bound_link_tri: link a-b (A, B; box grown by R alo..ahi) against
 * triangle t2 (grown box in tbox). */
static void bound_link_tri(selfcol_cpu *s, const dr_float4 *p, const dr_uint *tris, uint32_t t2,
                           uint32_t a, uint32_t b, v3 A, v3 B, v3 alo, v3 ahi, float R,
                           float fl) {
  const uint32_t Vt[3] = {tris[3 * t2], tris[3 * t2 + 1], tris[3 * t2 + 2]};
  const v3 P[3] = {X3(p[Vt[0]]), X3(p[Vt[1]]), X3(p[Vt[2]])};
  const v3 blo = X3(s->tbox[2 * t2]), bhi = X3(s->tbox[2 * t2 + 1]);
  bound_vt(s, a, A, Vt, P, blo, bhi, R, fl);
  bound_vt(s, b, B, Vt, P, blo, bhi, R, fl);
  for (int j = 0; j < 3; j++) {
    const int j1 = j == 2 ? 0 : j + 1;
    if (!box_overlap(vmin(P[j], P[j1]), vmax(P[j], P[j1]), alo, ahi)) continue;
    bound_seg4(s, a, b, Vt[j], Vt[j1], A, B, P[j], P[j1], R, fl);
  }
}

/* selfcol_bound_links: each rope link against the links of higher index
 * and the triangles (bounds' hash on p, its cells; every triangle for a
 * link longer than SC_BOUND_LINK_CELLS cells; the wide ones' list). */
static void bound_links(selfcol_cpu *s, const dr_float4 *p, const dr_uint *tris, float inv,
                        uint32_t capb) {
  const selfcol_tables *t = &s->tb;
  const float R = t->bound_r, fl = t->bound_floor;
  const v3 RR = V(R, R, R);
  for (int l = 0; l < t->n_links; l++) {
    const uint32_t a = t->links[l], b = a + 1u;
    const v3 A = X3(p[a]), B = X3(p[b]);
    const v3 lo = vmin(A, B), hi = vmax(A, B), alo = sub(lo, RR), ahi = add(hi, RR);
    for (int l2 = l + 1; l2 < t->n_links; l2++) {
      const uint32_t c = t->links[l2], d = c + 1u;
      if (c == b) continue;
      const v3 C = X3(p[c]), D = X3(p[d]);
      if (!box_overlap(vmin(C, D), vmax(C, D), alo, ahi)) continue;
      bound_seg4(s, a, b, c, d, A, B, C, D, R, fl);
    }
    if (inv > 0.0f) {
      int c0[3] = {sc_coord(lo.x, inv), sc_coord(lo.y, inv), sc_coord(lo.z, inv)};
      int c1[3] = {sc_coord(hi.x, inv), sc_coord(hi.y, inv), sc_coord(hi.z, inv)};
      if (c1[0] - c0[0] >= SC_BOUND_LINK_CELLS || c1[1] - c0[1] >= SC_BOUND_LINK_CELLS ||
          c1[2] - c0[2] >= SC_BOUND_LINK_CELLS) {
        for (int t2 = 0; t2 < t->n_tris; t2++) {
          uint32_t U[3];
          if (!tri_ok(t, tris, t2, U) || s->tbox[2 * t2].w == 0.0f) continue;
          if (!box_overlap(lo, hi, X3(s->tbox[2 * t2]), X3(s->tbox[2 * t2 + 1]))) continue;
          bound_link_tri(s, p, tris, (uint32_t)t2, a, b, A, B, alo, ahi, R, fl);
        }
      } else {
        for (int z = c0[2]; z <= c1[2]; z++)
          for (int y = c0[1]; y <= c1[1]; y++)
            for (int xx = c0[0]; xx <= c1[0]; xx++) {
              const uint32_t h = sc_hash(xx, y, z, t->mask_t);
              const uint32_t elo = s->tstart[h], ehi = s->tstart[h + 1u];
              if (ehi - elo > capb) { /* its triangles are held: so is the link */
                s->rb[a] = 0u;
                s->rb[b] = 0u;
                continue;
              }
              for (uint32_t en = elo; en < ehi; en++) {
                const uint32_t t2 = s->tvals[en];
                const v3 blo = X3(s->tbox[2 * t2]), bhi = X3(s->tbox[2 * t2 + 1]);
                if (!box_overlap(lo, hi, blo, bhi)) continue;
                int d0[3] = {sc_coord(blo.x, inv), sc_coord(blo.y, inv), sc_coord(blo.z, inv)};
                if ((c0[0] > d0[0] ? c0[0] : d0[0]) != xx ||
                    (c0[1] > d0[1] ? c0[1] : d0[1]) != y || (c0[2] > d0[2] ? c0[2] : d0[2]) != z)
                  continue;
                bound_link_tri(s, p, tris, t2, a, b, A, B, alo, ahi, R, fl);
              }
            }
      }
    }
    if (s->nbig > t->cap_big) { /* a link that meets the big box holds still */
      v3 blo, bhi;
      big_box(s, &blo, &bhi);
      if (box_overlap(lo, hi, blo, bhi)) s->rb[a] = s->rb[b] = 0u;
      continue;
    }
    for (uint32_t k = 0; k < s->nbig; k++) {
      const uint32_t t2 = s->big[k];
      if (!box_overlap(lo, hi, X3(s->tbox[2 * t2]), X3(s->tbox[2 * t2 + 1]))) continue;
      bound_link_tri(s, p, tris, t2, a, b, A, B, alo, ahi, R, fl);
    }
  }
}

void cpu_selfcol_bound(selfcol_cpu *s, const dr_float4 *p, const dr_uint *tris) {
  const selfcol_tables *t = &s->tb;
  const float R = t->bound_r, fl = t->bound_floor;
  hash_triangles_grown(s, p, tris, R, 1, 0.0f);
  const int held = s->nbig > t->cap_big; /* the big list is not read */
  for (int i = 0; i < t->n; i++) { /* selfcol_bound_init */
    s->rb[i] = held && in_big(s, X3(p[i])) ? 0u : as_u(R);
    uint32_t *l = s->lk + 8 * i;
    l[0] = l[1] = l[2] = 0xffffffffu;
    l[3] = 0x7f800000u; /* +inf */
    l[4] = l[5] = l[6] = l[7] = 0u;
  }
  const uint32_t capb = SELFCOL_BOUND_CAP * t->cap_t, B = t->mask_t + 1u;
  for (uint32_t h = 0; h < B; h++) { /* selfcol_bound_overflow */
    const uint32_t lo = s->tstart[h], hi = s->tstart[h + 1u];
    if (hi - lo <= capb) continue;
    for (uint32_t e = lo; e < hi; e++)
      for (int c = 0; c < 3; c++) s->rb[tris[3 * s->tvals[e] + c]] = 0u;
  }
  const float inv = tri_inv_cell(s->maxbits);
  for (int k = 0; k < t->n_tris; k++) { /* selfcol_bound_owners */
    uint32_t V1[3], Vn[3], m = 0u;
    if (tri_ok(t, tris, k, V1) && tri_live(s, k))
      for (int i = 0; i < 3; i++) {
        const int32_t nb = t->tnb[3 * k + i];
        if (nb < 0 || nb > k || !tri_ok(t, tris, nb, Vn) || !tri_live(s, nb)) m |= 1u << i;
      }
    s->town[k] = m;
  }
  for (int q = 0; q < t->n; q++) { /* selfcol_bound_vt */
    if (t->sobj[q] < 0) continue;
    int live = 0;
    for (uint32_t m = t->adj_start[q]; m < t->adj_start[q + 1] && !live; m++) {
      uint32_t Vq[3];
      const int k = (int)t->adj[m];
      live = tri_ok(t, tris, k, Vq) && tri_live(s, k);
    }
    if (!live) continue; /* in no live triangle: no edge to cross with */
    const v3 P = X3(p[q]);
    if (inv > 0.0f) {
      const uint32_t h = sc_hash(sc_coord(P.x, inv), sc_coord(P.y, inv), sc_coord(P.z, inv),
                                 t->mask_t);
      const uint32_t elo = s->tstart[h], ehi = s->tstart[h + 1u];
      if (ehi - elo > capb) {
        s->rb[q] = 0u; /* its bucket is not searched: held, as its triangles are */
      } else {
        uint32_t prev = 0xffffffffu;
        for (uint32_t e = elo; e < ehi; e++) {
          const uint32_t t2 = s->tvals[e];
          if (t2 == prev) continue;
          prev = t2;
          bound_vt_tri(s, p, tris, q, P, t2, R, fl);
        }
      }
    }
    for (uint32_t k = 0; k < s->nbig && !held; k++) bound_vt_tri(s, p, tris, q, P, s->big[k], R, fl);
  }
  for (int t1 = 0; t1 < t->n_tris; t1++) { /* selfcol_bound_pairs: edge-edge */
    uint32_t V1[3];
    if (!tri_ok(t, tris, t1, V1)) continue;
    const uint32_t own1 = s->town[t1];
    if (own1 == 0u) continue; /* owns no edge (or not live) */
    const int big1 = s->tbox[2 * t1 + 1].w != 0.0f;
    v3 P1[3] = {X3(p[V1[0]]), X3(p[V1[1]]), X3(p[V1[2]])};
    v3 lo = vmin(vmin(P1[0], P1[1]), P1[2]), hi = vmax(vmax(P1[0], P1[1]), P1[2]);
    if (!big1 && inv > 0.0f) {
      int c0[3] = {sc_coord(lo.x, inv), sc_coord(lo.y, inv), sc_coord(lo.z, inv)};
      int c1[3] = {sc_coord(hi.x, inv), sc_coord(hi.y, inv), sc_coord(hi.z, inv)};
      for (int a = 0; a < 3; a++)
        if (c1[a] > c0[a] + 1) c1[a] = c0[a] + 1;
      for (int z = c0[2]; z <= c1[2]; z++)
        for (int y = c0[1]; y <= c1[1]; y++)
          for (int xx = c0[0]; xx <= c1[0]; xx++) {
            uint32_t h = sc_hash(xx, y, z, t->mask_t);
            const uint32_t elo = s->tstart[h], ehi = s->tstart[h + 1u];
            if (ehi - elo > capb) continue; /* held still above */
            for (uint32_t e = elo; e < ehi; e++) {
              uint32_t t2 = s->tvals[e];
              if (t2 <= (uint32_t)t1) continue;
              const uint32_t own2 = s->town[t2];
              if (own2 == 0u) continue;
              v3 blo = X3(s->tbox[2 * t2]), bhi = X3(s->tbox[2 * t2 + 1]);
              if (!box_overlap(lo, hi, blo, bhi)) continue;
              int d0[3] = {sc_coord(blo.x, inv), sc_coord(blo.y, inv), sc_coord(blo.z, inv)};
              if ((c0[0] > d0[0] ? c0[0] : d0[0]) != xx ||
                  (c0[1] > d0[1] ? c0[1] : d0[1]) != y || (c0[2] > d0[2] ? c0[2] : d0[2]) != z)
                continue;
              bound_edges(s, p, tris, V1, P1, own1, t2, own2, R, fl);
            }
          }
    }
    for (uint32_t k = 0; k < s->nbig && !held; k++) { /* the big triangles */
      uint32_t t2 = s->big[k];
      if (big1 && t2 <= (uint32_t)t1) continue;
      const uint32_t own2 = s->town[t2];
      if (own2 == 0u) continue;
      v3 blo = X3(s->tbox[2 * t2]), bhi = X3(s->tbox[2 * t2 + 1]);
      if (!box_overlap(lo, hi, blo, bhi)) continue;
      bound_edges(s, p, tris, V1, P1, own1, t2, own2, R, fl);
    }
  }
  bound_links(s, p, tris, inv, capb);
}

void cpu_selfcol_bound_clamp(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p) {
  const selfcol_tables *t = &s->tb;
  for (int i = 0; i < t->n; i++) {
    int o = t->sobj[i];
    if (o < 0 || !(t->objf[o] & (SELFCOL_F_BOUND | SELFCOL_F_LINKS))) continue;
    dr_float4 xi = x[i];
    v3 pi = X3(p[i]);
    v3 d = sub(X3(xi), pi);
    const uint32_t *l = s->lk + 8 * i;
    if (l[7] != 0u) { /* locks: along their common direction only */
      const v3 lo = V(funkey(l[0]), funkey(l[1]), funkey(l[2]));
      const v3 hi = V(funkey(l[4]), funkey(l[5]), funkey(l[6]));
      const v3 mid = mul(add(lo, hi), 0.5f), hv = mul(sub(hi, lo), 0.5f);
      const float h = sqrtf(dot(hv, hv)), ml = sqrtf(dot(mid, mid));
      if (!(h < SELFCOL_LOCK_SPREAD) || !(ml > 0.0f)) { /* they disagree: held still */
        x[i] = (dr_float4){pi.x, pi.y, pi.z, xi.w};
        continue;
      }
      const v3 m = unit_div(mid, ml);
      float sd = dot(d, m);
      const float cap = SELFCOL_BOUND_GAMMA * as_f(l[3]) / (2.0f * h); /* inf for h = 0 */
      if (sd > cap) sd = cap;
      if (sd > 0.0f) d = mul(m, sd);
      else if (sd <= 0.0f) d = V(0, 0, 0); /* (NaN stays NaN) */
      v3 nx = add(pi, d);
      x[i] = xi = (dr_float4){nx.x, nx.y, nx.z, xi.w};
    }
    float l2 = dot(d, d);
    float lim = SELFCOL_BOUND_GAMMA * as_f(s->rb[i]);
    if (!(l2 <= lim * lim)) {
      float k = lim / sqrtf(l2);
      v3 nx = add(pi, mul(d, k));
      x[i] = (dr_float4){nx.x, nx.y, nx.z, xi.w};
    }
  }
}

/* ---- edge-edge contacts (kernels/selfcol.cl, selfcol_edge_edge) ---- */
/* sc_seg_closest */
static void seg_closest(v3 p1, v3 q1, v3 p2, v3 q2, float *ps, float *pt) {
  v3 d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
  float a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
  float s = 0.0f, t = 0.0f;
  if (a > 0.0f || e > 0.0f) {
    if (!(a > 0.0f)) {
      t = clampf01(f / e);
    } else {
      float c = dot(d1, r);
      if (!(e > 0.0f)) {
        s = clampf01(-c / a);
      } else {
        float b = dot(d1, d2);
        float den = a * e - b * b;
        s = den > 0.0f ? clampf01((b * f - c * e) / den) : 0.0f;
        t = (b * s + f) / e;
        if (t < 0.0f) {
          t = 0.0f;
          s = clampf01(-c / a);
        } else if (t > 1.0f) {
          t = 1.0f;
          s = clampf01((b - c) / a);
        }
      }
    }
  }
  *ps = s;
  *pt = t;
}

/* sc_edge_pair: edges (f0, f1) and (e0, e1) as one pair in a fixed order,
 * their closest points and, when touching, the normal and the depth; the
 * same arithmetic as the kernel. */
static int edge_pair(const selfcol_tables *t, const dr_float4 *x, const dr_float4 *p, uint32_t f0,
                     uint32_t f1, uint32_t e0, uint32_t e1, float d, int same, uint32_t *id,
                     float *s_, float *tt_, v3 *nrm_, float *depth_) {
  const int sw = f0 < e0;
  id[0] = sw ? f0 : e0;
  id[1] = sw ? f1 : e1;
  id[2] = sw ? e0 : f0;
  id[3] = sw ? e1 : f1;
  const v3 xa = X3(x[id[0]]), xb = X3(x[id[1]]), xc = X3(x[id[2]]), xd = X3(x[id[3]]);
  float sp, tt;
  seg_closest(xa, xb, xc, xd, &sp, &tt);
  const v3 P1 = add(xa, mul(sub(xb, xa), sp));
  const v3 P2 = add(xc, mul(sub(xd, xc), tt));
  const v3 ev = sub(P1, P2);
  const float l2 = dot(ev, ev);
  if (!(l2 < d * d)) return 0;
  if (same) {
    const float rr = seg_dist(X3(t->rest[id[0]]), X3(t->rest[id[1]]), X3(t->rest[id[2]]),
                              X3(t->rest[id[3]]));
    if (!(l2 < rr * rr)) return 0;
    d = fminf(d, rr);
  }
  const v3 pa = X3(p[id[0]]), pc = X3(p[id[2]]);
  const v3 Q1 = add(pa, mul(sub(X3(p[id[1]]), pa), sp));
  const v3 Q2 = add(pc, mul(sub(X3(p[id[3]]), pc), tt));
  const v3 ep = sub(Q1, Q2);
  const float len = sqrtf(l2);
  v3 nrm;
  float depth;
  if (len > 0.0f) {
    const float side = dot(ep, ev);
    nrm = mul(ev, (side >= 0.0f ? 1.0f : -1.0f) / len);
    depth = side >= 0.0f ? d - len : d + len;
  } else {
    const float lp = sqrtf(dot(ep, ep));
    if (!(lp > 0.0f)) return 0;
    nrm = dvs(ep, lp);
    depth = d;
  }
  if (!(depth > 0.0f)) return 0;
  *s_ = sp, *tt_ = tt, *nrm_ = nrm, *depth_ = depth;
  return 1;
}

static inline int has_corner(const dr_uint *tris, uint32_t t, uint32_t v) {
  return tris[3 * t] == v || tris[3 * t + 1] == v || tris[3 * t + 2] == v;
}

/* sc_ee_cells (kernels/selfcol.cl): the box of the edge x0-x1 and the
 * cells it spans, at most SC_EE_CELLS per axis. */
#define SC_EE_CELLS 4
static inline void ee_cells(dr_float4 a, dr_float4 b, float inv, v3 *elo, v3 *ehi, int c0[3],
                            int c1[3]) {
  const v3 x0 = X3(a), x1 = X3(b);
  *elo = vmin(x0, x1);
  *ehi = vmax(x0, x1);
  c0[0] = sc_coord(elo->x, inv), c0[1] = sc_coord(elo->y, inv), c0[2] = sc_coord(elo->z, inv);
  c1[0] = sc_coord(ehi->x, inv), c1[1] = sc_coord(ehi->y, inv), c1[2] = sc_coord(ehi->z, inv);
  for (int k = 0; k < 3; k++)
    if (c1[k] > c0[k] + (SC_EE_CELLS - 1)) c1[k] = c0[k] + (SC_EE_CELLS - 1);
}

/* sc_ee_count, sc_ee_bucket: an edge's scan reads the cells c0..c1 (x
 * fastest, then y, then z), then the wide bucket. */
static inline int ee_count(const int c0[3], const int c1[3]) {
  return (c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1) + 1;
}
static inline uint32_t ee_bucket(const int c0[3], const int c1[3], int i, int nb, uint32_t mask,
                                 int c[3], int *wide) {
  *wide = i == nb - 1;
  if (*wide) return mask + 1u;
  const int sx = c1[0] - c0[0] + 1, sy = c1[1] - c0[1] + 1;
  c[0] = c0[0] + i % sx;
  c[1] = c0[1] + (i / sx) % sy;
  c[2] = c0[2] + i / (sx * sy);
  return sc_hash(c[0], c[1], c[2], mask);
}

/* sc_ee_entry: entry t2 of cell c (or of the wide bucket) is a bounded
 * cloth's triangle whose box meets the edge's, met here first. */
static int ee_entry(const selfcol_cpu *s, const dr_uint *tris, uint32_t t2, v3 elo, v3 ehi,
                    const int c0[3], const int c[3], int wide, float inv, uint32_t U[3]) {
  const selfcol_tables *t = &s->tb;
  const int ot = t->tobj[t2];
  if (ot < 0 || !(t->objf[ot] & SELFCOL_F_BOUND)) return 0;
  const dr_float4 b0 = s->tbox[2 * t2], b1 = s->tbox[2 * t2 + 1];
  if ((wide ? b1.w : b0.w) == 0.0f) return 0;
  if (!box_overlap(elo, ehi, X3(b0), X3(b1))) return 0;
  if (!wide) {
    int d0[3] = {sc_coord(b0.x, inv), sc_coord(b0.y, inv), sc_coord(b0.z, inv)};
    for (int a = 0; a < 3; a++)
      if ((c0[a] > d0[a] ? c0[a] : d0[a]) != c[a]) return 0;
  }
  return tri_ok(t, tris, (int)t2, U);
}

/* sc_rope_link_edges: rope q's links against the bounded cloths' triangle
 * edges; the link's ends take the whole correction. */
static v3 rope_link_edges(selfcol_cpu *s, const dr_float4 *x, const dr_float4 *p,
                          const dr_uint *tris, float inv, int q, int oq, uint32_t *most) {
  const selfcol_tables *t = &s->tb;
  const int cap_n = (int)t->cap_e, n = t->n;
  const uint32_t cap = t->cap_t;
  v3 D = V(0, 0, 0);
  int cnt = 0;
  const float tq = t->objp[oq].x;
  for (int side = 0; side < 2 && cnt < cap_n; side++) {
    const int o = side == 0 ? q - 1 : q + 1;
    if (o < 0 || o >= n || t->sobj[o] != oq) continue;
    const uint32_t e0 = (uint32_t)(q < o ? q : o), e1 = (uint32_t)(q < o ? o : q);
    v3 elo, ehi;
    int c0[3], c1[3];
    ee_cells(x[e0], x[e1], inv, &elo, &ehi, c0, c1);
    const int nb = ee_count(c0, c1);
    for (int ib = 0; ib < nb && cnt < cap_n; ib++) {
          int c[3], wide;
          const uint32_t h = ee_bucket(c0, c1, ib, nb, t->mask_t, c, &wide);
          const uint32_t lo = s->tstart[h], full = s->tstart[h + 1u];
          const uint32_t hi = full - lo > cap ? lo + cap : full;
          if (full - lo > cap && full - lo > *most) *most = full - lo;
          for (uint32_t en = lo; en < hi && cnt < cap_n; en++) {
            const uint32_t t2 = s->tvals[en];
            const int ot = t->tobj[t2];
            uint32_t U[3];
            if (!ee_entry(s, tris, t2, elo, ehi, c0, c, wide, inv, U)) continue;
            for (int j = 0; j < 3 && cnt < cap_n; j++) {
              const uint32_t ua = U[j], ub = U[j == 2 ? 0 : j + 1];
              const uint32_t f0 = ua < ub ? ua : ub, f1 = ua < ub ? ub : ua;
              uint32_t id[4];
              float sp, tt, depth;
              v3 nrm;
              if (!edge_pair(t, x, p, f0, f1, e0, e1, sc_pair_thickness(tq, t->objp[ot].x, 0), 0,
                             id, &sp, &tt, &nrm, &depth))
                continue;
              const float bs[4] = {1.0f - sp, sp, 1.0f - tt, tt};
              const int k0 = id[0] != e0 ? 2 : 0; /* the link's ends */
              float S = 0.0f, Sm = 0.0f;
              for (int k = k0; k < k0 + 2; k++) {
                S = S + bs[k] * bs[k] * s->wsc[id[k]];
                Sm = Sm + bs[k] * bs[k] * x[id[k]].w;
              }
              const int mine = id[k0] == (uint32_t)q ? k0 : k0 + 1;
              float wq = s->wsc[q];
              if (S == 0.0f) {
                S = Sm;
                wq = x[q].w;
              }
              if (!(S > 0.0f) || wq == 0.0f) continue;
              const float sg = mine < 2 ? bs[mine] : -bs[mine];
              /* at most the depth per contact (kernels/selfcol.cl, the same) */
              float f = sg * wq / S;
              f = f > 1.0f ? 1.0f : (f < -1.0f ? -1.0f : f);
              D = sc_request(D, mul(nrm, f * depth));
              cnt++;
            }
          }
        }
  }
  return D;
}

/* sc_rope_link_links: rope q's links against every rope's links through
 * the particle hash, shared by the four nodes' masses. */
#define SC_ROPE_CELLS 5
static v3 rope_link_links(selfcol_cpu *s, v3 D, int *cnt, const dr_float4 *x, const dr_float4 *p,
                          int q, int oq) {
  const selfcol_tables *t = &s->tb;
  const int cap_n = (int)t->cap_e, n = t->n;
  const float inv_p = 1.0f / t->cell, reach = 3.0f * t->t_max;
  const uint32_t mask_p = t->mask_p, cap_p = t->cap_p;
  const float tq = t->objp[oq].x;
  for (int side = 0; side < 2 && *cnt < cap_n; side++) {
    const int o = side == 0 ? q - 1 : q + 1;
    if (o < 0 || o >= n || t->sobj[o] != oq) continue;
    const uint32_t e0 = (uint32_t)(q < o ? q : o), e1 = (uint32_t)(q < o ? o : q);
    const v3 x0 = X3(x[e0]), x1 = X3(x[e1]);
    const v3 R = V(reach, reach, reach);
    const v3 elo = sub(vmin(x0, x1), R), ehi = add(vmax(x0, x1), R);
    int c0[3] = {sc_coord(elo.x, inv_p), sc_coord(elo.y, inv_p), sc_coord(elo.z, inv_p)};
    int c1[3] = {sc_coord(ehi.x, inv_p), sc_coord(ehi.y, inv_p), sc_coord(ehi.z, inv_p)};
    for (int k = 0; k < 3; k++)
      if (c1[k] > c0[k] + (SC_ROPE_CELLS - 1)) c1[k] = c0[k] + (SC_ROPE_CELLS - 1);
    for (int z = c0[2]; z <= c1[2] && *cnt < cap_n; z++)
      for (int y = c0[1]; y <= c1[1] && *cnt < cap_n; y++)
        for (int xx = c0[0]; xx <= c1[0] && *cnt < cap_n; xx++) {
          const uint32_t h = sc_hash(xx, y, z, mask_p);
          int seen = 0;
          for (int z2 = c0[2]; z2 <= z && !seen; z2++)
            for (int y2 = c0[1]; y2 <= c1[1] && !seen; y2++)
              for (int x2 = c0[0]; x2 <= c1[0] && !seen; x2++) {
                if (z2 == z && (y2 > y || (y2 == y && x2 >= xx))) continue;
                seen = sc_hash(x2, y2, z2, mask_p) == h;
              }
          if (seen) continue;
          const uint32_t lo = s->pstart[h], full = s->pstart[h + 1u];
          const uint32_t hi = full - lo > cap_p ? lo + cap_p : full;
          for (uint32_t en = lo; en < hi && *cnt < cap_n; en++) {
            const uint32_t r = s->pvals[en];
            const int orr = t->sobj[r];
            if (orr < 0 || !(t->objf[orr] & SELFCOL_F_ROPE)) continue;
            if (r + 1u >= (uint32_t)n || t->sobj[r + 1u] != orr) continue;
            const uint32_t f0 = r, f1 = r + 1u;
            if (f0 == e0 || f0 == e1 || f1 == e0 || f1 == e1) continue;
            const int same = orr == oq;
            uint32_t id[4];
            float sp, tt, depth;
            v3 nrm;
            if (!edge_pair(t, x, p, f0, f1, e0, e1, sc_pair_thickness(tq, t->objp[orr].x, same),
                           same, id, &sp, &tt, &nrm, &depth))
              continue;
            const float bs[4] = {1.0f - sp, sp, 1.0f - tt, tt};
            float S = 0.0f, Sm = 0.0f, wq = 0.0f, wmq = 0.0f;
            int mine = 0;
            for (int k = 0; k < 4; k++) {
              const float wk = s->wsc[id[k]], wm = x[id[k]].w;
              S = S + bs[k] * bs[k] * wk;
              Sm = Sm + bs[k] * bs[k] * wm;
              if (id[k] == (uint32_t)q) {
                mine = k;
                wq = wk;
                wmq = wm;
              }
            }
            if (S == 0.0f) {
              S = Sm;
              wq = wmq;
            }
            if (!(S > 0.0f) || wq == 0.0f) continue;
            const float sg = mine < 2 ? bs[mine] : -bs[mine];
            /* at most the depth per contact (kernels/selfcol.cl, the same) */
            float f = sg * wq / S;
            f = f > 1.0f ? 1.0f : (f < -1.0f ? -1.0f : f);
            D = sc_request(D, mul(nrm, f * depth));
            (*cnt)++;
          }
        }
  }
  return D;
}

void cpu_selfcol_edge_edge(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p, const dr_uint *tris) {
  const selfcol_tables *t = &s->tb;
  const float inv = tri_inv_cell(s->maxbits);
  const int cap_n = (int)t->cap_e;
  const uint32_t cap = t->cap_t;
  for (int q = 0; q < t->n; q++) {
    v3 D = V(0, 0, 0);
    const int oq = t->sobj[q];
    const dr_float4 xq4 = x[q];
    int cnt = 0;
    uint32_t most = 0;
    if (oq >= 0 && (t->objf[oq] & SELFCOL_F_BOUND) && inv > 0.0f && xq4.w != 0.0f) {
      const float tq = t->objp[oq].x;
      const uint32_t a0 = t->adj_start[q], a1 = t->adj_start[q + 1];
      for (uint32_t ia = a0; ia < a1 && cnt < cap_n; ia++) {
        const uint32_t tr = t->adj[ia];
        uint32_t v[3];
        if (!tri_ok(t, tris, (int)tr, v) || !has_corner(tris, tr, (uint32_t)q)) continue;
        for (int c = 0; c < 3 && cnt < cap_n; c++) {
          const uint32_t o = v[c];
          if (o == (uint32_t)q) continue;
          int dup = 0;
          for (uint32_t ib = a0; ib < ia && !dup; ib++) {
            uint32_t w[3];
            dup = tri_ok(t, tris, (int)t->adj[ib], w) && has_corner(tris, t->adj[ib], (uint32_t)q) &&
                  has_corner(tris, t->adj[ib], o);
          }
          if (dup) continue;
          const uint32_t e0 = (uint32_t)q < o ? (uint32_t)q : o, e1 = (uint32_t)q < o ? o : (uint32_t)q;
          v3 elo, ehi;
          int c0[3], c1[3];
          ee_cells(x[e0], x[e1], inv, &elo, &ehi, c0, c1);
          const int nb = ee_count(c0, c1);
          for (int ib = 0; ib < nb && cnt < cap_n; ib++) {
                int cc[3], wide;
                const uint32_t h = ee_bucket(c0, c1, ib, nb, t->mask_t, cc, &wide);
                const uint32_t lo = s->tstart[h], full = s->tstart[h + 1u];
                const uint32_t hi = full - lo > cap ? lo + cap : full;
                if (full - lo > cap && full - lo > most) most = full - lo;
                for (uint32_t en = lo; en < hi && cnt < cap_n; en++) {
                  const uint32_t t2 = s->tvals[en];
                  const int ot = t->tobj[t2];
                  uint32_t U[3];
                  if (!ee_entry(s, tris, t2, elo, ehi, c0, cc, wide, inv, U)) continue;
                  const int same = ot == oq;
                  for (int j = 0; j < 3 && cnt < cap_n; j++) {
                    const uint32_t ua = U[j], ub = U[j == 2 ? 0 : j + 1];
                    const uint32_t f0 = ua < ub ? ua : ub, f1 = ua < ub ? ub : ua;
                    if (f0 == e0 || f0 == e1 || f1 == e0 || f1 == e1) continue;
                    uint32_t id[4];
                    float sp, tt, depth;
                    v3 nrm;
                    if (!edge_pair(t, x, p, f0, f1, e0, e1,
                                   sc_pair_thickness(tq, t->objp[ot].x, same), same, id, &sp, &tt,
                                   &nrm, &depth))
                      continue;
                    const float bs[4] = {1.0f - sp, sp, 1.0f - tt, tt};
                    float S = 0.0f, Sm = 0.0f, wk[4], wm[4];
                    int mine = 0;
                    for (int k = 0; k < 4; k++) {
                      wk[k] = s->wsc[id[k]];
                      wm[k] = x[id[k]].w;
                      S = S + bs[k] * bs[k] * wk[k];
                      Sm = Sm + bs[k] * bs[k] * wm[k];
                      if (id[k] == (uint32_t)q) mine = k;
                    }
                    float wq = wk[mine];
                    if (S == 0.0f) {
                      S = Sm;
                      wq = wm[mine];
                    }
                    if (!(S > 0.0f) || wq == 0.0f) continue;
                    const float sg = mine < 2 ? bs[mine] : -bs[mine];
                    D = sc_request(D, mul(nrm, sg * wq * depth / S));
                    cnt++;
                  }
                }
              }
        }
      }
    }
    if (oq >= 0 && (t->objf[oq] & SELFCOL_F_ROPE) && inv > 0.0f && xq4.w != 0.0f) {
      D = rope_link_edges(s, x, p, tris, inv, q, oq, &most);
      int cr = 0;
      D = rope_link_links(s, D, &cr, x, p, q, oq);
    }
    if (most > 0u && oq >= 0) sc_cap_hit(s->caps, oq, SELFCOL_CAPC_E, most);
    s->delta[q] = (dr_float4){D.x, D.y, D.z, 0.0f};
  }
  cpu_selfcol_apply(s, x);
}

void selfcol_cpu_run(selfcol_cpu *s, dr_float4 *x, const dr_float4 *p, const dr_uint *tris,
                     const selfcol_colliders *col) {
  if (!s->tb.any) return;
  const int bound = s->tb.any_tris && s->tb.bound;
  double tb0 = drape_now();
  if (bound) cpu_selfcol_bound(s, p, tris);
  double t0 = drape_now();
  s->ms[SELFCOL_T_BOUND] += 1e3 * (t0 - tb0);
  cpu_selfcol_clamp(s, x, p, col);
  double t1 = drape_now(), t2 = t1;
  if (s->tb.particles) {
    cpu_hash_particles(s, x);
    t2 = drape_now();
    cpu_selfcol_particles(s, x, p);
    cpu_selfcol_apply(s, x);
  }
  double t3 = drape_now();
  s->ms[SELFCOL_T_CLAMP] += 1e3 * (t1 - t0);
  s->ms[SELFCOL_T_HASH_PARTICLES] += 1e3 * (t2 - t1);
  s->ms[SELFCOL_T_PARTICLES] += 1e3 * (t3 - t2);
  if (!s->tb.any_tris) {
    selfcol_caps_warn(&s->tb, s->caps);
    return;
  }
  cpu_hash_triangles(s, x, tris);
  double t4 = drape_now();
  cpu_selfcol_vertex_triangle(s, x, p, tris);
  cpu_selfcol_vt_gather(s, x, tris);
  if (s->tb.edge) cpu_selfcol_edge_edge(s, x, p, tris);
  double t5 = drape_now();
  s->ms[SELFCOL_T_HASH_TRIANGLES] += 1e3 * (t4 - t3);
  s->ms[SELFCOL_T_VERTEX_TRIANGLE] += 1e3 * (t5 - t4);
  if (bound) {
    cpu_selfcol_bound_clamp(s, x, p);
    s->ms[SELFCOL_T_BOUND] += 1e3 * (drape_now() - t5);
  }
  selfcol_caps_warn(&s->tb, s->caps);
}
