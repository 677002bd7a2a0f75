/* The coarse levels of material grid cloths (docs/solver.md,
 * "Multilevel"; the kernels and the method are in kernels/membrane.cl).
 *
 * Level l of a grid of R x C particles keeps the rows 0, sr, 2 sr, ... and
 * the last, and the columns likewise with sc; an axis is coarsened (its
 * stride doubled) while it still has at least ML_MIN_CELLS cells, so a
 * long strip keeps coarsening along its length after its width is done.
 * Each level is triangulated as the grid is (each cell split on the
 * diagonal from (r0, c0) to (r1, c1)) and built from the material as the
 * fine membranes are (dr_membrane_make), so it is the same fabric,
 * coarser. Its particles carry the fine masses; the mass a coarse particle
 * stands for is, on average over the cloth, scale_l = the cloth's mass /
 * the mass of level l's particles, and XPBD with masses scaled by s is
 * XPBD with compliances scaled by s (the multipliers scaled by 1/s), so a
 * level's compliances are those of area A / scale_l. A finer triangle's
 * multipliers start at f = (scale_l / scale_(l-1)) (A_fine / A_coarse)
 * times those of the coarse triangle holding its centroid: a uniform
 * stress, shared by area. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"

/* An axis is coarsened while it has at least this many cells, so the
 * coarsest level keeps 16 to 31 cells along each coarsened axis. Coarser
 * levels do not help: the hanging strip of tests/test_material.c hangs
 * within 0.2 % of its elongation with this floor and within 1.7 % with a
 * floor of 8, and a 1024 x 1024 ladder cloth tears at its corner pins
 * with 8 or 16 (a level of 8 x 8 cells moves a thousand fine cells as one). */
#define ML_MIN_CELLS 32
#define ML_MAX_LEVELS 16

/* One axis of one level: its points (indices of the fine axis, rising) and,
 * for each fine index, the cell (pair of consecutive points) holding it. */
typedef struct ml_axis {
  int n;      /* points */
  int *pt;    /* n */
  int *cell;  /* the fine axis's length; the last index is in the last cell */
} ml_axis;

typedef struct ml_grid {
  int k, obj, first, rows, cols, levels; /* cloth, object, first particle */
  int memb0;                             /* slot of its first fine membrane */
  ml_axis r[ML_MAX_LEVELS + 1], c[ML_MAX_LEVELS + 1];
  double scale[ML_MAX_LEVELS + 1];
  int slot[ML_MAX_LEVELS + 1];           /* first membrane slot of each level */
  double U[3], V[3], origin[3], spacing;
  int plane_ok;
} ml_grid;

static int axis_make(ml_axis *a, int len, int stride) { /* len >= 2 */
  a->n = 0;
  a->pt = malloc(sizeof *a->pt * (size_t)(len + 1));
  a->cell = malloc(sizeof *a->cell * (size_t)(len + 1));
  if (!a->pt || !a->cell) return DRAPE_ENOMEM;
  for (int i = 0; i < len; i += stride) a->pt[a->n++] = i;
  if (a->n == 0 || a->pt[a->n - 1] != len - 1) a->pt[a->n++] = len - 1;
  for (int j = 0; j + 1 < a->n; j++)
    for (int i = a->pt[j]; i < a->pt[j + 1]; i++) a->cell[i] = j;
  a->cell[len - 1] = a->n - 2;
  return DRAPE_OK;
}

static int on_axis(int i, int len, int stride) { return i % stride == 0 || i == len - 1; }

static void grid_point(const ml_grid *g, int r, int c, double *x) {
  for (int q = 0; q < 3; q++) x[q] = g->origin[q] + c * g->spacing * g->U[q] + r * g->spacing * g->V[q];
}

/* Corners (grid indices) of triangle t of cell (a, b) at level l: t = 0 is
 * (r0, c0), (r1, c0), (r1, c1), t = 1 is (r0, c0), (r1, c1), (r0, c1), as
 * the fine grid's (model.c, grid_as_mesh). */
static void cell_tri(const ml_grid *g, int l, int a, int b, int t, int rc[3][2]) {
  const int r0 = g->r[l].pt[a], r1 = g->r[l].pt[a + 1], c0 = g->c[l].pt[b], c1 = g->c[l].pt[b + 1];
  const int lo[3][2] = {{r0, c0}, {r1, c0}, {r1, c1}}, up[3][2] = {{r0, c0}, {r1, c1}, {r0, c1}};
  memcpy(rc, t ? up : lo, sizeof up);
}

/* The triangle of level l holding point (r, c) of the fine grid's index
 * space (fractional): its slot, and the barycentric weights of its corners
 * (cell_tri's order). */
static int locate(const ml_grid *g, int l, double r, double c, double w[3], int rc[3][2]) {
  const int ir = (int)floor(r), ic = (int)floor(c);
  const int a = g->r[l].cell[ir < g->rows - 1 ? ir : g->rows - 1];
  const int b = g->c[l].cell[ic < g->cols - 1 ? ic : g->cols - 1];
  const double r0 = g->r[l].pt[a], r1 = g->r[l].pt[a + 1], c0 = g->c[l].pt[b], c1 = g->c[l].pt[b + 1];
  const double u = (r - r0) / (r1 - r0), v = (c - c0) / (c1 - c0);
  const int t = v <= u ? 0 : 1;
  if (t == 0) w[0] = 1 - u, w[1] = u - v, w[2] = v;
  else w[0] = 1 - v, w[1] = u, w[2] = v - u;
  cell_tri(g, l, a, b, t, rc);
  return g->slot[l] + 2 * (a * (g->c[l].n - 1) + b) + t;
}

static void grid_free(ml_grid *g) {
  for (int l = 0; l <= ML_MAX_LEVELS; l++) free(g->r[l].pt), free(g->r[l].cell), free(g->c[l].pt), free(g->c[l].cell);
}

/* A coarse membrane on grid points x[0..2] with grid texture coordinates
 * uv (col, row), its compliances those of area A / scale; returns A. */
static double coarse_membrane(dr_membrane *q, const double (*x)[3], const float (*uv)[2],
                              const drape_material_def *mt, double scale) {
  double v[9];
  int tri[3] = {0, 1, 2};
  float tuv[6];
  for (int k = 0; k < 3; k++) {
    memcpy(v + 3 * k, x[k], sizeof x[k]);
    tuv[2 * k] = uv[k][0], tuv[2 * k + 1] = uv[k][1];
  }
  drape_cloth_mesh me;
  memset(&me, 0, sizeof me);
  me.n_vertices = 3, me.n_tris = 1, me.vertices = v, me.tris = tri, me.uv = tuv;
  double du[3], dv[3];
  const double A = dr_fabric_frame(&me, 0, du, dv);
  if (!(A > 0)) {
    q->comp_u = q->comp_v = q->comp_s = -1.0f;
    return 0;
  }
  dr_membrane_frame(q, x[0], x[1], x[2], du, dv, A / scale, mt);
  /* coarse triangles see a fold or a bend of the finer cloth as a shorter
   * chord: they hold against tension only (membrane.cl, "Multilevel") */
  q->tension_only = 1.0f;
  return A;
}

int dr_model_build_levels(dr_model *m, const drape_scene *s, const unsigned char *grid, drape_err *e) {
  if (m->warm || !s->multilevel || m->n_memb == 0) return DRAPE_OK;
  ml_grid *gs = calloc((size_t)(s->n_cloth > 0 ? s->n_cloth : 1), sizeof *gs);
  if (!gs) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  int ng = 0, L = 0, rc = DRAPE_OK, memb0 = 0;
  /* the grids and their levels */
  for (int k = 0; k < s->n_cloth && !rc; k++) {
    const drape_cloth_def *c = &s->cloth[k];
    const int nfine = c->has_mesh ? c->mesh.n_tris : 2 * (c->rows - 1) * (c->cols - 1);
    if (!c->material.set) continue;
    const int here = memb0;
    memb0 += nfine;
    if (!grid[k] || c->rows < 2 || c->cols < 2) continue;
    ml_grid *g = &gs[ng];
    g->k = k, g->obj = k, g->first = m->info[k].first_particle, g->rows = c->rows, g->cols = c->cols;
    g->memb0 = here;
    dr_grid_axes(c->plane, g->U, g->V);
    memcpy(g->origin, c->origin, sizeof g->origin);
    g->spacing = c->spacing;
    int sr = 1, sc = 1;
    if (axis_make(&g->r[0], g->rows, 1) || axis_make(&g->c[0], g->cols, 1)) rc = DRAPE_ENOMEM;
    g->scale[0] = 1;
    while (!rc && g->levels < ML_MAX_LEVELS) {
      const int nr = g->r[g->levels].n - 1 >= ML_MIN_CELLS ? 2 * sr : sr;
      const int nc = g->c[g->levels].n - 1 >= ML_MIN_CELLS ? 2 * sc : sc;
      if (nr == sr && nc == sc) break;
      sr = nr, sc = nc;
      const int l = ++g->levels;
      if (axis_make(&g->r[l], g->rows, sr) || axis_make(&g->c[l], g->cols, sc)) {
        rc = DRAPE_ENOMEM;
        break;
      }
      double all = 0, in = 0;
      for (int r = 0; r < g->rows; r++)
        for (int q = 0; q < g->cols; q++) {
          const double mass = m->mass[g->first + r * g->cols + q];
          all += mass;
          if (on_axis(r, g->rows, sr) && on_axis(q, g->cols, sc)) in += mass;
        }
      g->scale[l] = all / in;
    }
    if (g->levels > L) L = g->levels;
    ng++;
  }
  if (rc || L == 0) {
    for (int i = 0; i < ng; i++) grid_free(&gs[i]);
    free(gs);
    return rc ? drape_fail(e, DRAPE_ENOMEM, "out of memory building the coarse levels") : DRAPE_OK;
  }
  /* sizes: membranes and prolongations of each level over all grids */
  long long nmemb = m->n_memb, nprol = 0;
  for (int l = 1; l <= L; l++)
    for (int i = 0; i < ng; i++) {
      ml_grid *g = &gs[i];
      if (l > g->levels) continue;
      g->slot[l] = (int)nmemb;
      nmemb += 2LL * (g->r[l].n - 1) * (g->c[l].n - 1);
      nprol += (long long)g->r[l - 1].n * g->c[l - 1].n - (long long)g->r[l].n * g->c[l].n;
    }
  for (int i = 0; i < ng; i++) gs[i].slot[0] = gs[i].memb0;
  const int n0 = m->n_memb, nall = (int)nmemb;
  dr_membrane *memb = realloc(m->memb, sizeof *memb * (size_t)nall);
  if (memb) m->memb = memb;
  int *mobj = realloc(m->memb_obj, sizeof *mobj * (size_t)nall);
  if (mobj) m->memb_obj = mobj;
  double *marea = realloc(m->memb_area, sizeof *marea * (size_t)nall);
  if (marea) m->memb_area = marea;
  int *lcol = calloc((size_t)L + 1, sizeof *lcol), *poff = calloc((size_t)L + 1, sizeof *poff);
  dr_prolong *pr = malloc(sizeof *pr * (size_t)(nprol > 0 ? nprol : 1));
  int *up_slot = malloc(sizeof *up_slot * (size_t)nall), *pos = malloc(sizeof *pos * (size_t)nall);
  float *up_f = malloc(sizeof *up_f * (size_t)nall);
  dr_memb_up *up = malloc(sizeof *up * (size_t)nall);
  int *parts = malloc(sizeof *parts * 3 * (size_t)nall), *col = malloc(sizeof *col * (size_t)nall);
  if (!memb || !mobj || !marea || !lcol || !poff || !pr || !up_slot || !pos || !up_f || !up || !parts || !col) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory building the coarse levels");
    goto out;
  }
  for (int j = 0; j < nall; j++) up_slot[j] = -1, up_f[j] = 0;
  /* each level: its membranes (coloured apart from the other levels), the
   * prolongation onto the level below, and the parents of that level's
   * membranes */
  int n = n0, np = 0, *off = m->memb_colour_off, ncol = m->n_memb_colours;
  lcol[0] = ncol;
  for (int l = 1; l <= L; l++) {
    const int start = n;
    for (int i = 0; i < ng; i++) {
      const ml_grid *g = &gs[i];
      if (l > g->levels) continue;
      const drape_material_def *mt = &s->cloth[g->k].material;
      for (int a = 0; a + 1 < g->r[l].n; a++)
        for (int b = 0; b + 1 < g->c[l].n; b++)
          for (int t = 0; t < 2; t++) {
            int rcn[3][2];
            double x[3][3];
            float uv[3][2];
            cell_tri(g, l, a, b, t, rcn);
            for (int q = 0; q < 3; q++) {
              grid_point(g, rcn[q][0], rcn[q][1], x[q]);
              uv[q][0] = (float)rcn[q][1], uv[q][1] = (float)rcn[q][0];
            }
            dr_membrane *mq = &m->memb[n];
            memset(mq, 0, sizeof *mq);
            mq->a = g->first + rcn[0][0] * g->cols + rcn[0][1];
            mq->b = g->first + rcn[1][0] * g->cols + rcn[1][1];
            mq->c = g->first + rcn[2][0] * g->cols + rcn[2][1];
            mq->pad = n; /* its slot (model.h) */
            const double A = coarse_membrane(mq, (const double(*)[3])x, (const float(*)[2])uv, mt, g->scale[l]);
            m->memb_area[n] = A / g->scale[l];
            m->memb_obj[n] = g->obj;
            n++;
          }
      /* the particles of level l - 1 that level l does not hold */
      for (int a = 0; a < g->r[l - 1].n; a++)
        for (int b = 0; b < g->c[l - 1].n; b++) {
          const int r = g->r[l - 1].pt[a], q = g->c[l - 1].pt[b];
          const int sr = g->r[l].n > 1 ? g->r[l].pt[1] : 1, sc = g->c[l].n > 1 ? g->c[l].pt[1] : 1;
          if (on_axis(r, g->rows, sr) && on_axis(q, g->cols, sc)) continue;
          double w[3];
          int rcn[3][2];
          locate(g, l, r, q, w, rcn);
          dr_prolong *p = &pr[np++];
          memset(p, 0, sizeof *p);
          p->i = g->first + r * g->cols + q;
          p->a = g->first + rcn[0][0] * g->cols + rcn[0][1];
          p->b = g->first + rcn[1][0] * g->cols + rcn[1][1];
          p->c = g->first + rcn[2][0] * g->cols + rcn[2][1];
          p->wa = (float)w[0], p->wb = (float)w[1], p->wc = (float)w[2];
        }
      /* level l - 1's membranes: the coarse triangle holding each centroid */
      for (int a = 0; a + 1 < g->r[l - 1].n; a++)
        for (int b = 0; b + 1 < g->c[l - 1].n; b++)
          for (int t = 0; t < 2; t++) {
            int rcn[3][2], prc[3][2];
            cell_tri(g, l - 1, a, b, t, rcn);
            const double cr = (rcn[0][0] + rcn[1][0] + rcn[2][0]) / 3.0;
            const double cc = (rcn[0][1] + rcn[1][1] + rcn[2][1]) / 3.0;
            double w[3];
            const int parent = locate(g, l, cr, cc, w, prc);
            const int child = g->slot[l - 1] + 2 * (a * (g->c[l - 1].n - 1) + b) + t;
            const double Af = m->memb_area[child] * g->scale[l - 1];
            const double Ac = m->memb_area[parent] * g->scale[l];
            up_slot[child] = parent;
            up_f[child] = Ac > 0 ? (float)(g->scale[l] / g->scale[l - 1] * Af / Ac) : 0.0f;
          }
    }
    poff[l] = np;
    /* colour this level apart and sort it */
    const int cnt = n - start;
    int nk = 0, *loff = NULL;
    for (int j = 0; j < cnt; j++) {
      const dr_membrane *q = &m->memb[start + j];
      parts[3 * j] = q->a, parts[3 * j + 1] = q->b, parts[3 * j + 2] = q->c;
    }
    if ((rc = dr_colour_items(parts, 3, cnt, m->n_particles, col, &nk, e)) ||
        (rc = dr_sort_by_colour(m->memb + start, m->memb_obj + start, sizeof *m->memb, cnt, col, nk, &loff, e)))
      goto out;
    int *noff = realloc(off, sizeof *noff * (size_t)(ncol + nk + 1));
    if (!noff) {
      free(loff);
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
      goto out;
    }
    off = m->memb_colour_off = noff;
    for (int c = 1; c <= nk; c++) off[ncol + c] = start + loff[c];
    ncol += nk;
    lcol[l] = ncol;
    free(loff);
  }
  m->n_memb = n;
  /* parents as sorted positions (a membrane's pad is its slot) */
  for (int k = 0; k < n; k++) pos[m->memb[k].pad] = k;
  for (int k = 0; k < n; k++) {
    const int sl = m->memb[k].pad;
    up[k].parent = up_slot[sl] >= 0 ? pos[up_slot[sl]] : -1;
    up[k].f = up_f[sl];
  }
  m->n_levels = L;
  m->level_colour = lcol, lcol = NULL;
  m->n_prolong = np;
  m->prolong = pr, pr = NULL;
  m->prolong_off = poff, poff = NULL;
  m->memb_up = up, up = NULL;
out:
  for (int i = 0; i < ng; i++) grid_free(&gs[i]);
  free(gs), free(lcol), free(poff), free(pr), free(up_slot), free(pos), free(up_f), free(up);
  free(parts), free(col);
  return rc;
}
