/* Counting edges through triangles (cloth/crossings.h).
 *
 * Broad phase: a uniform grid with cells about as large as the triangles;
 * each triangle is listed in the cells its box overlaps, each edge looks in
 * the cells its box overlaps, and a pair is tested only in the first cell
 * the two boxes share (so once). A triangle or edge whose box spans more
 * than MAX_CELLS cells (a blown-up mesh) is tested against everything
 * instead, so the count stays exact whatever the state. Narrow phase: the
 * five orientation signs of the segment-triangle test (core/exact.h).
 *
 * This is the reference. On the OpenCL backend drape_sim_count_crossings
 * counts on the device (crossings_cl.c, kernels/crossings.cl) and comes
 * here only when the device flags a state it cannot count within its
 * fixed buffers (or DRAPE_CROSSINGS=host asks). */
#include "cloth/crossings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/sim.h"
#include "core/exact.h"

#define MAX_CELLS 64

typedef struct box {
  double lo[3], hi[3];
} box;

typedef struct cell_entry {
  uint64_t key;
  int tri;
} cell_entry;

typedef struct grid {
  double h, inv;
  cell_entry *e;
  int n;
} grid;

static void pt(const dr_crossing_mesh *m, uint32_t i, double p[3]) {
  const float *q = m->x + (size_t)m->stride * i;
  p[0] = q[0];
  p[1] = q[1];
  p[2] = q[2];
}

static int64_t cell_of(const grid *g, double v) {
  double c = floor(v * g->inv);
  if (c < -1e9) c = -1e9; /* far points share the border cells: still exact */
  if (c > 1e9) c = 1e9;
  return (int64_t)c;
}

static uint64_t key_of(int64_t i, int64_t j, int64_t k) {
  /* 21 bits each after the clamp's offset would collide for far cells;
   * mix instead (a collision only costs tests, never a wrong count: pairs
   * are confirmed by their boxes and the exact test). */
  uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)j * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= (uint64_t)k * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  return h;
}

static long cells_of(const grid *g, const box *b, int64_t lo[3], int64_t hi[3]) {
  long n = 1;
  for (int q = 0; q < 3; q++) {
    lo[q] = cell_of(g, b->lo[q]);
    hi[q] = cell_of(g, b->hi[q]);
    n *= (long)(hi[q] - lo[q] + 1);
    if (n > MAX_CELLS) return n;
  }
  return n;
}

static int cmp_entry(const void *a, const void *b) {
  const cell_entry *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->tri - y->tri;
}

static int overlap(const box *a, const box *b) {
  for (int q = 0; q < 3; q++)
    if (a->hi[q] < b->lo[q] || b->hi[q] < a->lo[q]) return 0;
  return 1;
}

static int shares(const uint32_t *t, uint32_t a, uint32_t b) {
  return t[0] == a || t[1] == a || t[2] == a || t[0] == b || t[1] == b || t[2] == b;
}

/* Segment pq through triangle abc, strictly (exact signs). */
static int crosses(const double p[3], const double q[3], const double a[3], const double b[3],
                   const double c[3]) {
  const int sp = dr_orient3d(a, b, c, p), sq = dr_orient3d(a, b, c, q);
  if (sp == 0 || sq == 0 || sp == sq) return 0;
  const int s1 = dr_orient3d(p, q, a, b), s2 = dr_orient3d(p, q, b, c), s3 = dr_orient3d(p, q, c, a);
  return s1 != 0 && s1 == s2 && s2 == s3;
}

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int dr_count_crossings(const dr_crossing_mesh *m, long *count, drape_err *e) {
  *count = 0;
  const int nt = m->n_tris;
  /* the edges: each triangle's three, once each, then the links */
  uint64_t *ed = malloc(sizeof *ed * (3 * (size_t)nt + (size_t)m->n_links + 1));
  box *tb = malloc(sizeof *tb * ((size_t)nt + 1));
  char *live = malloc((size_t)nt + 1);
  int *big = malloc(sizeof *big * ((size_t)nt + 1));
  grid g = {0, 0, NULL, 0};
  int rc = DRAPE_OK;
  if (!ed || !tb || !live || !big) {
    rc = drape_fail(e, DRAPE_ENOMEM, "crossings: out of memory (%d triangles)", nt);
    goto done;
  }
  for (int i = 0; i < m->n_points; i++) {
    const float *q = m->x + (size_t)m->stride * i;
    if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) {
      rc = drape_fail(e, DRAPE_EUNSTABLE, "crossings: point %d is not finite", i);
      goto done;
    }
  }
  int ne = 0, nbig = 0;
  double size = 0;
  int nsize = 0;
  for (int t = 0; t < nt; t++) {
    const uint32_t *v = m->tris + 3 * (size_t)t;
    live[t] = !(v[0] == v[1] && v[1] == v[2]);
    if (!live[t]) continue;
    for (int k = 0; k < 3; k++) {
      uint32_t a = v[k], b = v[(k + 1) % 3];
      if (a > b) { uint32_t s = a; a = b; b = s; }
      ed[ne++] = (uint64_t)a << 32 | b;
    }
    double p[3];
    pt(m, v[0], p);
    for (int q = 0; q < 3; q++) tb[t].lo[q] = tb[t].hi[q] = p[q];
    for (int k = 1; k < 3; k++) {
      pt(m, v[k], p);
      for (int q = 0; q < 3; q++) {
        tb[t].lo[q] = fmin(tb[t].lo[q], p[q]);
        tb[t].hi[q] = fmax(tb[t].hi[q], p[q]);
      }
    }
    double ext = fmax(tb[t].hi[0] - tb[t].lo[0], fmax(tb[t].hi[1] - tb[t].lo[1], tb[t].hi[2] - tb[t].lo[2]));
    if (isfinite(ext)) size += ext, nsize++;
  }
  qsort(ed, (size_t)ne, sizeof *ed, cmp_u64);
  int nu = 0;
  for (int i = 0; i < ne; i++)
    if (nu == 0 || ed[i] != ed[nu - 1]) ed[nu++] = ed[i];
  for (int l = 0; l < m->n_links; l++) {
    uint32_t a = m->links[2 * (size_t)l], b = m->links[2 * (size_t)l + 1];
    if (a != b) ed[nu++] = (uint64_t)a << 32 | b;
  }
  /* cells about as large as a triangle (the mean box extent) */
  g.h = nsize && size > 0 ? size / nsize : 1.0;
  g.inv = 1.0 / g.h;
  long cap = 0;
  for (int t = 0; t < nt; t++) {
    if (!live[t]) continue;
    int64_t lo[3], hi[3];
    long c = cells_of(&g, &tb[t], lo, hi);
    if (c > MAX_CELLS) big[nbig++] = t;
    else cap += c;
  }
  g.e = malloc(sizeof *g.e * ((size_t)cap + 1));
  if (!g.e) {
    rc = drape_fail(e, DRAPE_ENOMEM, "crossings: out of memory (%ld cell entries)", cap);
    goto done;
  }
  for (int t = 0, bi = 0; t < nt; t++) {
    if (!live[t]) continue;
    if (bi < nbig && big[bi] == t) {
      bi++;
      continue;
    }
    int64_t lo[3], hi[3];
    cells_of(&g, &tb[t], lo, hi);
    for (int64_t i = lo[0]; i <= hi[0]; i++)
      for (int64_t j = lo[1]; j <= hi[1]; j++)
        for (int64_t k = lo[2]; k <= hi[2]; k++) g.e[g.n++] = (cell_entry){key_of(i, j, k), t};
  }
  qsort(g.e, (size_t)g.n, sizeof *g.e, cmp_entry);

  long found = 0;
  for (int i = 0; i < nu; i++) {
    const uint32_t a = (uint32_t)(ed[i] >> 32), b = (uint32_t)ed[i];
    double p[3], q[3];
    pt(m, a, p);
    pt(m, b, q);
    box eb;
    for (int c = 0; c < 3; c++) {
      eb.lo[c] = fmin(p[c], q[c]);
      eb.hi[c] = fmax(p[c], q[c]);
    }
    int64_t lo[3], hi[3];
    const int all = cells_of(&g, &eb, lo, hi) > MAX_CELLS;
    /* against every triangle (a long edge), or the grid's and the big ones */
    for (int t = 0; all && t < nt; t++) {
      const uint32_t *v = m->tris + 3 * (size_t)t;
      if (!live[t] || shares(v, a, b) || !overlap(&eb, &tb[t])) continue;
      double x0[3], x1[3], x2[3];
      pt(m, v[0], x0), pt(m, v[1], x1), pt(m, v[2], x2);
      found += crosses(p, q, x0, x1, x2);
    }
    if (all) continue;
    for (int bi = 0; bi < nbig; bi++) {
      const int t = big[bi];
      const uint32_t *v = m->tris + 3 * (size_t)t;
      if (shares(v, a, b) || !overlap(&eb, &tb[t])) continue;
      double x0[3], x1[3], x2[3];
      pt(m, v[0], x0), pt(m, v[1], x1), pt(m, v[2], x2);
      found += crosses(p, q, x0, x1, x2);
    }
    for (int64_t ci = lo[0]; ci <= hi[0]; ci++)
      for (int64_t cj = lo[1]; cj <= hi[1]; cj++)
        for (int64_t ck = lo[2]; ck <= hi[2]; ck++) {
          const uint64_t key = key_of(ci, cj, ck);
          int l0 = 0, l1 = g.n; /* first entry with this key */
          while (l0 < l1) {
            int mid = l0 + (l1 - l0) / 2;
            if (g.e[mid].key < key) l0 = mid + 1;
            else l1 = mid;
          }
          for (int s = l0; s < g.n && g.e[s].key == key; s++) {
            const int t = g.e[s].tri;
            if (s > l0 && g.e[s - 1].tri == t) continue; /* two of its cells hashed alike */
            const uint32_t *v = m->tris + 3 * (size_t)t;
            if (shares(v, a, b) || !overlap(&eb, &tb[t])) continue;
            /* once per pair: in the first cell both boxes share */
            if (cell_of(&g, fmax(eb.lo[0], tb[t].lo[0])) != ci ||
                cell_of(&g, fmax(eb.lo[1], tb[t].lo[1])) != cj ||
                cell_of(&g, fmax(eb.lo[2], tb[t].lo[2])) != ck)
              continue;
            double x0[3], x1[3], x2[3];
            pt(m, v[0], x0), pt(m, v[1], x1), pt(m, v[2], x2);
            found += crosses(p, q, x0, x1, x2);
          }
        }
  }
  *count = found;
done:
  free(ed);
  free(tb);
  free(live);
  free(big);
  free(g.e);
  return rc;
}

/* ---- the sim's cloths and ropes ---- */

static const float *sim_host_x(void *ctx, drape_err *e) { return dr_sim_positions(ctx, e); }

/* DRAPE_CROSSINGS=host counts on the host on every backend (comparisons,
 * timing); "device" or unset: the device where the backend is OpenCL. */
static int host_forced(int *forced, drape_err *e) {
  const char *v = getenv("DRAPE_CROSSINGS");
  *forced = 0;
  if (!v || !*v || !strcmp(v, "device")) return DRAPE_OK;
  if (!strcmp(v, "host")) {
    *forced = 1;
    return DRAPE_OK;
  }
  return drape_fail(e, DRAPE_EINVAL, "DRAPE_CROSSINGS = %s: must be host or device", v);
}

int drape_sim_count_crossings(drape_sim *s, long *count, drape_err *e) {
  *count = 0;
  const dr_model *m = &s->m;
  int forced, rc;
  if ((rc = host_forced(&forced, e))) return rc;
  dr_crossings_last *last = NULL;
  if (s->be == &dr_backend_cl) {
    dr_crossings_cl *k;
    cl_mem xd;
    if ((rc = dr_backend_cl_crossings(s, &k, &xd, e))) return rc;
    last = dr_crossings_cl_last(k);
    memset(last, 0, sizeof *last);
    last->host = 1;
    if (!forced) {
      const uint32_t *tris = dr_sim_triangles(s, e); /* torn ones degenerate */
      if (!tris) return e ? e->code : DRAPE_EIO;
      const dr_crossing_mesh cm = {NULL, 4, m->n_particles, tris, m->n_tris, m->lines, m->n_lines};
      if ((rc = dr_crossings_cl_count(k, &cm, xd, sim_host_x, s, count, &last->info, e)))
        return rc;
      if (last->info.device) {
        last->host = 0;
        return DRAPE_OK;
      }
      *count = 0; /* a flag: the host's count is the answer */
    }
  }
  const float *x = dr_sim_positions(s, e); /* the frame's one read-back */
  if (!x) return e ? e->code : DRAPE_EIO;
  const uint32_t *tris = dr_sim_triangles(s, e); /* torn ones degenerate */
  if (!tris) return e ? e->code : DRAPE_EIO;
  const dr_crossing_mesh cm = {x, 4, m->n_particles, tris, m->n_tris, m->lines, m->n_lines};
  return dr_count_crossings(&cm, count, e);
}

int dr_sim_crossings_last(drape_sim *s, dr_crossings_last *out, drape_err *e) {
  memset(out, 0, sizeof *out);
  out->host = 1;
  if (s->be != &dr_backend_cl) return DRAPE_OK;
  dr_crossings_cl *k;
  cl_mem xd;
  int rc = dr_backend_cl_crossings(s, &k, &xd, e);
  if (!rc) *out = *dr_crossings_cl_last(k);
  return rc;
}
