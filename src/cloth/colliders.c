/* Capsule and mesh colliders in the solver: see colliders.h. The CPU
 * reference is kernels/colliders.cl itself, compiled here as C. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cl/launch.h"
#include "core/obj.h"
#include "cloth/colliders.h"
#include "core/collider_defs.h"
#include "cloth/sim.h"
#include "drape/limits.h"
#include "drape_types.h"

#include "colliders.cl" /* kernels/: the structs and the per-particle code */

/* The structs of kernels/colliders.cl are read by both sides: the rules
 * of drape_types.h (4-byte scalars and float4 only, float4 first, sizes a
 * multiple of 16) and these sizes and offsets keep the C view the same as
 * the OpenCL one (src/cl/layout_check.c does the same for drape_types.h). */
_Static_assert(sizeof(dr_capsule) == 64, "dr_capsule layout");
_Static_assert(sizeof(dr_bvh_node) == 48 && offsetof(dr_bvh_node, left) == 32, "dr_bvh_node layout");
_Static_assert(sizeof(dr_col_tri) == 16, "dr_col_tri layout");
_Static_assert(sizeof(dr_mesh_col) == 16 && offsetof(dr_mesh_col, flags) == 12, "dr_mesh_col layout");
_Static_assert(sizeof(dr_col_params) == 48 && offsetof(dr_col_params, n_tris) == 24 &&
                   offsetof(dr_col_params, max_thickness) == 32,
               "dr_col_params layout");
_Static_assert(sizeof(dr_vt_grid) == 64 && offsetof(dr_vt_grid, reach) == 44 &&
                   offsetof(dr_vt_grid, ext) == 48,
               "dr_vt_grid layout");

void dr_backend_cl_particles(const drape_sim *s, drape_cl **cl, cl_mem *x, cl_mem *p, cl_mem *obj,
                             cl_mem *mat, dr_cl_prof **prof, int *gpu);
void dr_backend_cl_tris(const drape_sim *s, cl_mem *tris, cl_mem *vt_off, cl_mem *vt_list);
const dr_uint *dr_backend_cpu_tris(drape_sim *s);

enum { CK_REFIT, CK_PARTICLES, CK_VT, CK_COUNT };

typedef struct col_mesh {
  int vfirst, nv;               /* its vertices in the shared arrays       */
  int seq_n;                    /* a deforming mesh's frames, or 0          */
  double seq_fps;
  double *seq;                  /* seq_n x nv x 3 (owned copy)             */
  double pivot[3];              /* keys turn about this                    */
  int n_keys;
  double (*keys)[7];            /* owned copy                              */
  double off0[3], off[3];       /* the user's move, as a capsule's
                                   (drape_sim_move_collider)              */
} col_mesh;

typedef struct col_capsule {
  double a[3], b[3], pivot[3];
  int n_keys;
  double (*keys)[7];            /* owned copy                              */
  double off0[3], off[3];       /* the user's move on top of the keys, at the
                                   frame start and at its end
                                   (drape_sim_move_capsule)               */
} col_capsule;

struct dr_colliders {
  int n_caps, n_meshes, n_nodes, n_tris, n_verts, n_levels;
  col_capsule *cdef;
  col_mesh *mdef;
  dr_capsule *caps;             /* this frame's, as uploaded               */
  dr_mesh_col *meshes;
  dr_bvh_node *nodes;           /* CPU reference: refitted in place        */
  dr_col_tri *tris;             /* in leaf order                           */
  double *rest;                 /* 3 per vertex: the placed mesh           */
  dr_float4 *v0, *v1;           /* this frame's start and end              */
  int *level_off;               /* nodes of level l: [off[l], off[l+1])    */
  int n_sharp;
  dr_int *sharp;                /* (vertex, mesh) of each sharp vertex     */
  dr_int *sorted;               /* the same, in grid cell order (per frame) */
  dr_int *cells;                /* cell starts into sorted, n_cells + 1     */
  dr_uint *vbits;               /* the cull's hashed cells (colliders.cl)   */
  dr_vt_grid grid;
  float tri_width;              /* twice the longest cloth triangle edge at
                                   rest (the vertex pass's cull)           */
  dr_float4 *corr;              /* CPU: per particle (vertex pass)         */
  dr_int *vstamp;               /* CPU: the substep its corr is of         */
  int *corr_scratch;            /* n_sharp ints (grid build)               */
  int any_keys;                 /* something moves: upload and refit each frame */
  int need_upload;              /* first frame after attach or reset       */
  int moved;                    /* a user's move this frame: pose the next
                                   one too (it starts where this one ends) */
  int flags_dirty;              /* meshes[].flags changed: upload them     */
  double frame_time;            /* the time v0 and caps' start are of      */
  dr_col_params cp;
  /* OpenCL */
  int on_cl, gpu;
  drape_cl *cl;
  dr_cl_kern k[CK_COUNT];
  size_t local[CK_COUNT];
  cl_mem bcaps, bmeshes, bnodes, btris, bv0, bv1, bsharp, bcorr, bcells, bvbits, bvstamp;
  uint64_t bytes;
  /* candidate lists (colliders.cl, drc_cand_update): per particle B (2
   * float4), the state (4 ints) and K slots; lists_stale: the poses moved,
   * rebuild every list at the next substep */
  int cand_k, cand_n, lists_stale;
  int planes;                   /* near particles get contact planes too    */
  dr_float4 *cbox;              /* CPU reference                           */
  dr_int *cinfo, *clist;
  dr_float4 *cball, *cplane;    /* CPU reference: the balls (colliders.cl)  */
  dr_int *csub;
  cl_mem bcbox, bcinfo, bclist, bcball, bcsub, bcplane;
};

/* ---- building ------------------------------------------------------------ */

typedef struct build_node {
  double lo[3], hi[3];
  int child;                    /* index of the first of two, -1: leaf      */
  int first, count;
} build_node;

typedef struct builder {
  build_node *n;
  int count, cap;
  int *order;                   /* triangle ids, permuted into leaf order   */
  const double *cen;            /* 3 per triangle                           */
} builder;

static int bnode(builder *b) {
  if (b->count == b->cap) {
    int cap = b->cap ? 2 * b->cap : 64;
    build_node *g = realloc(b->n, sizeof *g * (size_t)cap);
    if (!g) return -1;
    b->n = g, b->cap = cap;
  }
  return b->count++;
}

static int cmp_axis_;
static const double *cmp_cen_;
static int cmp_tri(const void *x, const void *y) {
  const int a = *(const int *)x, b = *(const int *)y;
  const double u = cmp_cen_[3 * a + cmp_axis_], v = cmp_cen_[3 * b + cmp_axis_];
  return u < v ? -1 : u > v ? 1 : (a > b) - (a < b); /* ties by id: same tree everywhere */
}

/* Median split on the widest axis of the centroids, down to DR_BVH_LEAF. */
static int build(builder *b, int first, int count) {
  int me = bnode(b);
  if (me < 0) return -1;
  b->n[me].first = first, b->n[me].count = count, b->n[me].child = -1;
  if (count <= DR_BVH_LEAF) return me;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = first; i < first + count; i++)
    for (int q = 0; q < 3; q++) {
      lo[q] = fmin(lo[q], b->cen[3 * b->order[i] + q]);
      hi[q] = fmax(hi[q], b->cen[3 * b->order[i] + q]);
    }
  int axis = 0;
  for (int q = 1; q < 3; q++)
    if (hi[q] - lo[q] > hi[axis] - lo[axis]) axis = q;
  cmp_axis_ = axis, cmp_cen_ = b->cen;
  qsort(b->order + first, (size_t)count, sizeof *b->order, cmp_tri);
  int half = count / 2;
  int l = build(b, first, half);
  int r = build(b, first + half, count - half);
  if (l < 0 || r < 0) return -1;
  b->n[me].child = l;
  b->n[me].count = r; /* build order: right child id kept in count until renumbering */
  return me;
}

/* Builds every mesh's tree and lays all of them out breadth first. */
static int build_trees(dr_colliders *c, const drape_scene *sc) {
  double *cen = malloc(sizeof *cen * 3 * (size_t)(c->n_tris ? c->n_tris : 1));
  builder b = {0};
  b.order = malloc(sizeof *b.order * (size_t)(c->n_tris ? c->n_tris : 1));
  int *roots = malloc(sizeof *roots * (size_t)c->n_meshes);
  dr_col_tri *raw = malloc(sizeof *raw * (size_t)(c->n_tris ? c->n_tris : 1));
  int rc = DRAPE_ENOMEM;
  if (!cen || !b.order || !roots || !raw) goto out;
  int t0 = 0;
  for (int m = 0; m < c->n_meshes; m++) {
    const drape_collider_def *d = &sc->collider[m];
    for (int t = 0; t < d->n_tris; t++) {
      const int g = t0 + t;
      raw[g] = (dr_col_tri){c->mdef[m].vfirst + d->tris[3 * t], c->mdef[m].vfirst + d->tris[3 * t + 1],
                            c->mdef[m].vfirst + d->tris[3 * t + 2], m};
      for (int q = 0; q < 3; q++)
        cen[3 * g + q] = (d->vertices[3 * d->tris[3 * t] + q] + d->vertices[3 * d->tris[3 * t + 1] + q] +
                          d->vertices[3 * d->tris[3 * t + 2] + q]) / 3.0;
      b.order[g] = g;
    }
    b.cen = cen;
    roots[m] = build(&b, t0, d->n_tris);
    if (roots[m] < 0) goto out;
    t0 += d->n_tris;
  }
  /* breadth first: the roots, then each level's children in pairs */
  int *newid = malloc(sizeof *newid * (size_t)b.count);
  int *queue = malloc(sizeof *queue * (size_t)b.count);
  c->nodes = calloc((size_t)b.count, sizeof *c->nodes);
  c->level_off = malloc(sizeof *c->level_off * (size_t)(b.count + 2));
  if (!newid || !queue || !c->nodes || !c->level_off) {
    free(newid), free(queue);
    goto out;
  }
  int head = 0, tail = 0, lv = 0;
  for (int m = 0; m < c->n_meshes; m++) newid[roots[m]] = tail, queue[tail++] = roots[m];
  c->level_off[0] = 0;
  int level_end = tail;
  while (head < tail) {
    const int o = queue[head];
    const build_node *nd = &b.n[o];
    if (nd->child >= 0) {
      const int l = nd->child, r = nd->count;
      newid[l] = tail, queue[tail++] = l;
      newid[r] = tail, queue[tail++] = r;
    }
    head++;
    if (head == level_end) {
      c->level_off[++lv] = level_end;
      level_end = tail;
    }
  }
  c->n_levels = lv;
  c->n_nodes = b.count;
  for (int i = 0; i < b.count; i++) {
    const build_node *nd = &b.n[queue[i]];
    dr_bvh_node *o = &c->nodes[i];
    o->left = nd->child >= 0 ? newid[nd->child] : -1;
    o->first = nd->child >= 0 ? 0 : nd->first;
    o->count = nd->child >= 0 ? 0 : nd->count;
  }
  for (int m = 0; m < c->n_meshes; m++) c->meshes[m].root = newid[roots[m]];
  for (int i = 0; i < c->n_tris; i++) c->tris[i] = raw[b.order[i]];
  free(newid), free(queue);
  rc = DRAPE_OK;
out:
  free(cen), free(b.order), free(b.n), free(roots), free(raw);
  return rc;
}

static void poses(dr_colliders *c, double t0, double t1);

/* Cells of the sharp-vertex grid at most: 32 per side and one more. */
#define VT_SIDE 32
#define VT_CELLS ((VT_SIDE + 1) * (VT_SIDE + 1) * (VT_SIDE + 1))
#define VT_WORDS ((1u << DR_VT_BITS_LOG2) / 32u)

/* The sharp vertices of this frame into the grid (dr_vt_grid in
 * colliders.cl): cells of at least 5 cm, at most VT_SIDE + 1 a side, by
 * their frame-start position; reach = the largest contact distance plus
 * the largest motion of a sharp vertex over the frame. A counting sort,
 * vertices in their list order within a cell. Then the cull's bits
 * (vt_particle1): every cell of size ext (ext = reach + tri_width)
 * that meets a vertex's box grown by ext (and a thousandth, for the
 * rounding of q +- ext); the cell of a point is the kernels' own product
 * (x - o) * inv, monotonic in x, so a particle within ext of a vertex on
 * every axis finds its bit set. */
static void build_vt_grid(dr_colliders *c, float max_cloth_thickness) {
  if (c->n_sharp == 0) return;
  float lo[3] = {3e38f, 3e38f, 3e38f}, hi[3] = {-3e38f, -3e38f, -3e38f}, motion = 0.0f, tcol = 0.0f;
  for (int k = 0; k < c->n_sharp; k++) {
    const dr_float4 a = c->v0[c->sharp[2 * k]], b = c->v1[c->sharp[2 * k]];
    const float pa[3] = {a.x, a.y, a.z}, d[3] = {b.x - a.x, b.y - a.y, b.z - a.z};
    for (int q = 0; q < 3; q++) lo[q] = fminf(lo[q], pa[q]), hi[q] = fmaxf(hi[q], pa[q]);
    motion = fmaxf(motion, sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    tcol = fmaxf(tcol, c->meshes[c->sharp[2 * k + 1]].thickness);
  }
  float ext = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
  const float cell = fmaxf(0.05f, ext / VT_SIDE);
  int n[3];
  for (int q = 0; q < 3; q++) {
    n[q] = (int)((hi[q] - lo[q]) / cell) + 1;
    if (n[q] > VT_SIDE + 1) n[q] = VT_SIDE + 1;
  }
  c->grid.origin = (dr_float4){lo[0], lo[1], lo[2], cell};
  c->grid.inv_cell = 1.0f / cell;
  c->grid.top = (dr_float4){hi[0], hi[1], hi[2], 0.0f};
  c->grid.nx = n[0], c->grid.ny = n[1], c->grid.nz = n[2];
  c->grid.reach = motion + fmaxf(tcol, max_cloth_thickness) * 1.01f;
  c->grid.ext = c->grid.reach + c->tri_width;
  const int nc = n[0] * n[1] * n[2];
  memset(c->cells, 0, sizeof *c->cells * (size_t)(nc + 1));
  int *cell_of = (int *)c->corr_scratch;
  for (int k = 0; k < c->n_sharp; k++) {
    const dr_float4 a = c->v0[c->sharp[2 * k]];
    const int ix = drc_cell(a.x, lo[0], c->grid.inv_cell, n[0]),
              iy = drc_cell(a.y, lo[1], c->grid.inv_cell, n[1]),
              iz = drc_cell(a.z, lo[2], c->grid.inv_cell, n[2]);
    cell_of[k] = (iz * n[1] + iy) * n[0] + ix;
    c->cells[cell_of[k] + 1]++;
  }
  for (int i = 0; i < nc; i++) c->cells[i + 1] += c->cells[i];
  for (int k = 0; k < c->n_sharp; k++) { /* stable: a running start per cell */
    const int at = c->cells[cell_of[k]]++;
    c->sorted[2 * at] = c->sharp[2 * k];
    c->sorted[2 * at + 1] = c->sharp[2 * k + 1];
  }
  for (int i = nc; i > 0; i--) c->cells[i] = c->cells[i - 1];
  c->cells[0] = 0;
  memset(c->vbits, 0, sizeof *c->vbits * VT_WORDS);
  const float inv = 1.0f / c->grid.ext, g = 1.001f * c->grid.ext;
  c->grid.inv_fine = inv;
  for (int k = 0; k < c->n_sharp; k++) {
    const dr_float4 a = c->v0[c->sharp[2 * k]];
    const float pa[3] = {a.x, a.y, a.z};
    int r0[3], r1[3];
    for (int q = 0; q < 3; q++) {
      r0[q] = drc_vt_fine(pa[q] - g, lo[q], inv);
      r1[q] = drc_vt_fine(pa[q] + g, lo[q], inv);
    }
    for (int z = r0[2]; z <= r1[2]; z++)
      for (int y = r0[1]; y <= r1[1]; y++)
        for (int x = r0[0]; x <= r1[0]; x++) {
          const dr_uint h = drc_vt_hash(x, y, z);
          c->vbits[h >> 5] |= 1u << (h & 31u);
        }
  }
}

/* Sharp vertices: two of the faces round it meet at more than 60 degrees
 * (their unit normals' dot product below 0.5): a box's corners and edges,
 * none on a smooth body. */
static int find_sharp(dr_colliders *c, const drape_scene *sc) {
  c->sharp = malloc(sizeof *c->sharp * 2 * (size_t)(c->n_verts + 1));
  if (!c->sharp) return DRAPE_ENOMEM;
  for (int m = 0; m < c->n_meshes; m++) {
    const drape_collider_def *d = &sc->collider[m];
    double *nmin = malloc(sizeof *nmin * 4 * (size_t)d->n_vertices); /* first normal, min dot */
    if (!nmin) return DRAPE_ENOMEM;
    for (int v = 0; v < d->n_vertices; v++) nmin[4 * v + 3] = 2.0;
    for (int t = 0; t < d->n_tris; t++) {
      const double *a = d->vertices + 3 * d->tris[3 * t], *b = d->vertices + 3 * d->tris[3 * t + 1],
                   *cc = d->vertices + 3 * d->tris[3 * t + 2];
      double u[3], w[3], n[3];
      for (int q = 0; q < 3; q++) u[q] = b[q] - a[q], w[q] = cc[q] - a[q];
      n[0] = u[1] * w[2] - u[2] * w[1], n[1] = u[2] * w[0] - u[0] * w[2], n[2] = u[0] * w[1] - u[1] * w[0];
      const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      if (!(l > 0)) continue;
      for (int q = 0; q < 3; q++) n[q] /= l;
      for (int k = 0; k < 3; k++) {
        double *o = nmin + 4 * d->tris[3 * t + k];
        if (o[3] > 1.5) { /* the first face: its normal is the reference */
          memcpy(o, n, sizeof n);
          o[3] = 1.0;
        } else {
          const double dd = o[0] * n[0] + o[1] * n[1] + o[2] * n[2];
          if (dd < o[3]) o[3] = dd;
        }
      }
    }
    for (int v = 0; v < d->n_vertices; v++)
      if (nmin[4 * v + 3] < 0.5) {
        c->sharp[2 * c->n_sharp] = c->mdef[m].vfirst + v;
        c->sharp[2 * c->n_sharp + 1] = m;
        c->n_sharp++;
      }
    free(nmin);
  }
  return DRAPE_OK;
}

static double (*keys_copy(const double (*k)[7], int n))[7] {
  if (n <= 0) return NULL;
  double(*o)[7] = malloc(sizeof *o * (size_t)n);
  if (o) memcpy(o, k, sizeof *o * (size_t)n);
  return o;
}

int dr_colliders_create(const drape_scene *sc, dr_colliders **out, drape_err *e) {
  *out = NULL;
  if (sc->n_capsule == 0 && sc->n_collider == 0) return DRAPE_OK;
  dr_colliders *c = calloc(1, sizeof *c);
  if (!c) return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  c->n_caps = sc->n_capsule;
  c->n_meshes = sc->n_collider;
  for (int m = 0; m < c->n_meshes; m++) {
    c->n_tris += sc->collider[m].n_tris;
    c->n_verts += sc->collider[m].n_vertices;
  }
  const size_t nv = (size_t)(c->n_verts ? c->n_verts : 1);
  c->cdef = calloc((size_t)c->n_caps + 1, sizeof *c->cdef);
  c->mdef = calloc((size_t)c->n_meshes + 1, sizeof *c->mdef);
  c->caps = calloc((size_t)c->n_caps + 1, sizeof *c->caps);
  c->meshes = calloc((size_t)c->n_meshes + 1, sizeof *c->meshes);
  c->tris = calloc((size_t)c->n_tris + 1, sizeof *c->tris);
  c->rest = calloc(3 * nv, sizeof *c->rest);
  c->v0 = calloc(nv, sizeof *c->v0);
  c->v1 = calloc(nv, sizeof *c->v1);
  if (!c->cdef || !c->mdef || !c->caps || !c->meshes || !c->tris || !c->rest || !c->v0 || !c->v1) {
    dr_colliders_destroy(c);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory for the colliders");
  }
  for (int k = 0; k < c->n_caps; k++) {
    const drape_capsule_def *d = &sc->capsule[k];
    col_capsule *o = &c->cdef[k];
    memcpy(o->a, d->a, sizeof o->a);
    memcpy(o->b, d->b, sizeof o->b);
    for (int q = 0; q < 3; q++) o->pivot[q] = 0.5 * (d->a[q] + d->b[q]);
    o->n_keys = d->n_keys;
    o->keys = keys_copy((const double(*)[7])d->keys, d->n_keys);
    if (d->n_keys && !o->keys) {
      dr_colliders_destroy(c);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    }
    c->any_keys |= d->n_keys > 0;
    c->caps[k].a0.w = (float)d->radius;
    c->caps[k].b0.w = (float)d->friction;
  }
  int vf = 0;
  for (int m = 0; m < c->n_meshes; m++) {
    const drape_collider_def *d = &sc->collider[m];
    col_mesh *o = &c->mdef[m];
    o->vfirst = vf, o->nv = d->n_vertices;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int v = 0; v < d->n_vertices; v++)
      for (int q = 0; q < 3; q++) {
        const double x = d->vertices[3 * v + q];
        c->rest[3 * (size_t)(vf + v) + q] = x;
        lo[q] = fmin(lo[q], x), hi[q] = fmax(hi[q], x);
      }
    for (int q = 0; q < 3; q++) o->pivot[q] = 0.5 * (lo[q] + hi[q]);
    o->n_keys = d->n_keys;
    o->keys = keys_copy((const double(*)[7])d->keys, d->n_keys);
    if (d->seq_n > 0) {
      const size_t bytes = sizeof *o->seq * 3 * (size_t)d->n_vertices * (size_t)d->seq_n;
      o->seq = malloc(bytes);
      if (o->seq) memcpy(o->seq, d->seq_vertices, bytes);
      o->seq_n = d->seq_n;
      o->seq_fps = d->seq_fps;
    }
    if ((d->n_keys && !o->keys) || (d->seq_n && !o->seq)) {
      dr_colliders_destroy(c);
      return drape_fail(e, DRAPE_ENOMEM, "out of memory");
    }
    c->any_keys |= d->n_keys > 0 || d->seq_n > 1;
    c->meshes[m] = (dr_mesh_col){(float)d->friction, (float)d->thickness, 0,
                                 (d->closed ? DR_MESH_CLOSED : 0) |
                                     (d->n_keys > 1 || d->seq_n > 1 ? DR_MESH_MOVING : 0)};
    vf += d->n_vertices;
  }
  if (c->n_meshes > 0 && build_trees(c, sc)) {
    dr_colliders_destroy(c);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory for the collider trees");
  }
  if (c->n_meshes > 0 && find_sharp(c, sc)) {
    dr_colliders_destroy(c);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory for the collider vertices");
  }
  c->sorted = malloc(sizeof *c->sorted * 2 * (size_t)(c->n_sharp + 1));
  c->cells = calloc(VT_CELLS + 1, sizeof *c->cells);
  c->vbits = calloc(VT_WORDS, sizeof *c->vbits);
  c->corr_scratch = malloc(sizeof *c->corr_scratch * (size_t)(c->n_sharp + 1));
  if (!c->sorted || !c->cells || !c->vbits || !c->corr_scratch) {
    dr_colliders_destroy(c);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory for the collider vertices");
  }
  c->cp.n_capsules = c->n_caps;
  c->cp.n_meshes = c->n_meshes;
  c->cp.n_sharp = c->n_sharp;
  /* the poses of the first frame, so the geometry reads right before it */
  poses(c, 0.0, sc->dt);
  float tcloth = 0.0f;
  for (int i = 0; i < sc->n_cloth; i++) tcloth = fmaxf(tcloth, (float)sc->cloth[i].thickness);
  for (int i = 0; i < sc->n_rope; i++) tcloth = fmaxf(tcloth, (float)sc->rope[i].thickness);
  build_vt_grid(c, tcloth);
  for (int l = c->n_levels - 1; l >= 0; l--)
    for (int i = c->level_off[l]; i < c->level_off[l + 1]; i++)
      bvh_refit1(c->nodes, c->tris, c->v0, c->v1, i);
  c->need_upload = 1;
  c->frame_time = -1.0;
  *out = c;
  return DRAPE_OK;
}

static void cl_free(dr_colliders *c) {
  for (int k = 0; k < CK_COUNT; k++) dr_cl_kern_release(&c->k[k]);
  cl_mem *all[] = {&c->bcaps, &c->bmeshes, &c->bnodes, &c->btris, &c->bv0, &c->bv1, &c->bsharp,
                   &c->bcorr, &c->bcells, &c->bvbits, &c->bvstamp, &c->bcbox, &c->bcinfo,
                   &c->bclist, &c->bcball, &c->bcsub, &c->bcplane};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dr_cl_buffer_release(all[i]);
  c->bytes = 0;
  c->on_cl = 0;
}

void dr_colliders_destroy(dr_colliders *c) {
  if (!c) return;
  cl_free(c);
  for (int k = 0; k < c->n_caps; k++) free(c->cdef[k].keys);
  for (int m = 0; m < c->n_meshes; m++) free(c->mdef[m].keys), free(c->mdef[m].seq);
  free(c->cdef), free(c->mdef), free(c->caps), free(c->meshes), free(c->nodes), free(c->tris);
  free(c->rest), free(c->v0), free(c->v1), free(c->level_off), free(c->sharp), free(c->corr);
  free(c->sorted), free(c->cells), free(c->vbits), free(c->corr_scratch), free(c->vstamp);
  free(c->cbox), free(c->cinfo), free(c->clist), free(c->cball), free(c->csub);
  free(c->cplane);
  free(c);
}

uint64_t dr_colliders_bytes(const dr_colliders *c) { return c ? c->bytes : 0; }

/* ---- per frame ------------------------------------------------------------- */

static void pose(const double (*keys)[7], int n, double t, const double pivot[3],
                 const double in[3], dr_float4 *out) {
  double o[3];
  drape_collider_keys_apply(keys, n, t, pivot, in, o);
  out->x = (float)o[0], out->y = (float)o[1], out->z = (float)o[2];
}

/* Vertex v (of mesh d) at time t: the sequence's frames blended (the last
 * held), then the keys' rigid motion. */
static void mesh_point(const dr_colliders *c, const col_mesh *d, int v, double t, const double rot[4],
                       const double tr[3], double out[3]) {
  double r[3];
  const double *at = c->rest + 3 * (size_t)(d->vfirst + v);
  if (d->seq_n > 0) {
    double f = t * d->seq_fps;
    f = f < 0 ? 0 : f > d->seq_n - 1 ? d->seq_n - 1 : f;
    const int i0 = (int)f, i1 = i0 + 1 < d->seq_n ? i0 + 1 : i0;
    const double a = f - i0;
    const double *p0 = d->seq + 3 * ((size_t)i0 * (size_t)d->nv + (size_t)v);
    const double *p1 = d->seq + 3 * ((size_t)i1 * (size_t)d->nv + (size_t)v);
    for (int q = 0; q < 3; q++) r[q] = p0[q] + a * (p1[q] - p0[q]);
    at = r;
  }
  if (d->n_keys <= 0) memcpy(out, at, 3 * sizeof *out);
  else dr_pose_apply(rot, tr, d->pivot, at, out);
}

/* Poses at t0 (frame start) and t1 (end) into caps, v0 and v1. */
static void poses(dr_colliders *c, double t0, double t1) {
  for (int k = 0; k < c->n_caps; k++) {
    const col_capsule *d = &c->cdef[k];
    dr_capsule *o = &c->caps[k];
    const float r = o->a0.w, mu = o->b0.w;
    pose((const double(*)[7])d->keys, d->n_keys, t0, d->pivot, d->a, &o->a0);
    pose((const double(*)[7])d->keys, d->n_keys, t0, d->pivot, d->b, &o->b0);
    pose((const double(*)[7])d->keys, d->n_keys, t1, d->pivot, d->a, &o->a1);
    pose((const double(*)[7])d->keys, d->n_keys, t1, d->pivot, d->b, &o->b1);
    o->a0.x += (float)d->off0[0], o->a0.y += (float)d->off0[1], o->a0.z += (float)d->off0[2];
    o->b0.x += (float)d->off0[0], o->b0.y += (float)d->off0[1], o->b0.z += (float)d->off0[2];
    o->a1.x += (float)d->off[0], o->a1.y += (float)d->off[1], o->a1.z += (float)d->off[2];
    o->b1.x += (float)d->off[0], o->b1.y += (float)d->off[1], o->b1.z += (float)d->off[2];
    o->a0.w = r, o->b0.w = mu, o->a1.w = 0, o->b1.w = 0;
  }
  for (int m = 0; m < c->n_meshes; m++) {
    const col_mesh *d = &c->mdef[m];
    double q0[4], tr0[3], q1[4], tr1[3]; /* the keys' pose, once a mesh */
    dr_keys_pose((const double(*)[7])d->keys, d->n_keys, t0, q0, tr0);
    dr_keys_pose((const double(*)[7])d->keys, d->n_keys, t1, q1, tr1);
    for (int v = 0; v < d->nv; v++) {
      double a[3], b[3];
      mesh_point(c, d, v, t0, q0, tr0, a);
      mesh_point(c, d, v, t1, q1, tr1, b);
      for (int q = 0; q < 3; q++) a[q] += d->off0[q], b[q] += d->off[q];
      dr_float4 *o0 = &c->v0[d->vfirst + v], *o1 = &c->v1[d->vfirst + v];
      o0->x = (float)a[0], o0->y = (float)a[1], o0->z = (float)a[2], o0->w = 0.0f;
      o1->x = (float)b[0], o1->y = (float)b[1], o1->z = (float)b[2], o1->w = 0.0f;
    }
  }
}

static int cl_refit(drape_sim *s, dr_colliders *c, dr_cl_prof *prof, drape_err *e) {
  for (int l = c->n_levels - 1; l >= 0; l--) {
    const int first = c->level_off[l], count = c->level_off[l + 1] - first;
    int rc = DRAPE_CL_BIND(&c->k[CK_REFIT], 4, e, DRAPE_CL_ARG("first", first),
                           DRAPE_CL_ARG("count", count));
    if (rc || (rc = dr_cl_launch(c->cl, &c->k[CK_REFIT], (size_t)count, c->local[CK_REFIT], prof, e)))
      return rc;
    s->tm.launches++;
  }
  return DRAPE_OK;
}

int dr_colliders_begin(drape_sim *s, drape_err *e) {
  dr_colliders *c = s->col;
  if (!c) return DRAPE_OK;
  if (!c->need_upload && !c->any_keys) return DRAPE_OK; /* static: as uploaded */
  const double t0_ = drape_now();
  poses(c, s->time, s->time + s->dt);
  float tcloth = 0.0f;
  for (int ob = 0; ob < s->m.n_objects; ob++) tcloth = fmaxf(tcloth, s->mat[ob].thickness);
  build_vt_grid(c, tcloth);
  const int refit = c->n_meshes > 0;
  c->lists_stale |= refit; /* the trees' bounds change: every list is rebuilt */
  if (!c->on_cl) {
    if (refit)
      for (int l = c->n_levels - 1; l >= 0; l--)
        for (int i = c->level_off[l]; i < c->level_off[l + 1]; i++)
          bvh_refit1(c->nodes, c->tris, c->v0, c->v1, i);
    s->tm.ms[DRAPE_STAGE_COLLIDERS] += 1e3 * (drape_now() - t0_);
  } else {
    drape_cl *cl = c->cl;
    const size_t f4 = sizeof(dr_float4);
    if (c->n_sharp > 0) {
      const int nc = c->grid.nx * c->grid.ny * c->grid.nz;
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(cl->queue, c->bsharp, CL_TRUE, 0,
                                           2 * sizeof(dr_int) * (size_t)c->n_sharp, c->sorted, 0,
                                           NULL, NULL));
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(cl->queue, c->bcells, CL_TRUE, 0,
                                           sizeof(dr_int) * (size_t)(nc + 1), c->cells, 0, NULL,
                                           NULL));
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(cl->queue, c->bvbits, CL_TRUE, 0,
                                           sizeof(dr_uint) * VT_WORDS, c->vbits, 0, NULL, NULL));
      s->tm.bytes_to_device +=
          2 * sizeof(dr_int) * (size_t)c->n_sharp + 4 * (size_t)(nc + 1) + 4 * VT_WORDS;
    }
    if (c->flags_dirty) {
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(cl->queue, c->bmeshes, CL_TRUE, 0,
                                           sizeof(dr_mesh_col) * (size_t)c->n_meshes, c->meshes,
                                           0, NULL, NULL));
      s->tm.bytes_to_device += sizeof(dr_mesh_col) * (size_t)c->n_meshes;
    }
    if (c->n_caps > 0) {
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(cl->queue, c->bcaps, CL_TRUE, 0,
                                           sizeof(dr_capsule) * (size_t)c->n_caps, c->caps, 0,
                                           NULL, NULL));
      s->tm.bytes_to_device += sizeof(dr_capsule) * (size_t)c->n_caps;
    }
    if (refit) {
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(cl->queue, c->bv0, CL_TRUE, 0, f4 * (size_t)c->n_verts,
                                           c->v0, 0, NULL, NULL));
      DRAPE_CL_TRY(e, clEnqueueWriteBuffer(cl->queue, c->bv1, CL_TRUE, 0, f4 * (size_t)c->n_verts,
                                           c->v1, 0, NULL, NULL));
      s->tm.bytes_to_device += 2 * f4 * (size_t)c->n_verts;
      drape_cl *ignored;
      cl_mem x, p, obj, mat;
      dr_cl_prof *prof;
      int gpu;
      dr_backend_cl_particles(s, &ignored, &x, &p, &obj, &mat, &prof, &gpu);
      prof->stage = DRAPE_STAGE_COLLIDERS, prof->colour = -1, prof->part = -1;
      int rc = cl_refit(s, c, prof, e);
      if (rc) return rc;
    }
  }
  /* after a user's move, the next frame is posed again (from the new place
   * to it), else a static collider would repeat this frame's sweep */
  c->need_upload = c->moved;
  c->moved = c->flags_dirty = 0;
  c->frame_time = s->time;
  for (int k = 0; k < c->n_caps; k++) /* the next frame starts where this one ends */
    memcpy(c->cdef[k].off0, c->cdef[k].off, sizeof c->cdef[k].off0);
  for (int m = 0; m < c->n_meshes; m++)
    memcpy(c->mdef[m].off0, c->mdef[m].off, sizeof c->mdef[m].off0);
  return DRAPE_OK;
}

int dr_colliders_run(drape_sim *s, float t_end, drape_err *e) {
  dr_colliders *c = s->col;
  if (!c) return DRAPE_OK;
  c->cp.inv_dt = (float)(1.0 / s->dt);
  c->cp.h = s->sp.h;
  c->cp.n_particles = s->m.n_particles;
  c->cp.n_tris = s->m.n_tris;
  c->cp.rebuild = c->lists_stale;
  c->cp.max_thickness = 0.0f;
  for (int m = 0; m < c->n_meshes; m++)
    c->cp.max_thickness = fmaxf(c->cp.max_thickness, c->meshes[m].thickness);
  c->cp.stamp = c->cp.stamp < 0x7fffffff ? c->cp.stamp + 1 : 1;
  c->cp.planes = c->planes;
  c->lists_stale = 0;
  const int vt = c->cp.n_sharp > 0 && c->cp.n_tris > 0;
  if (!c->on_cl) {
    dr_float4 *x, *p;
    const dr_object *mat;
    dr_backend_cpu_particles(s, &x, &p, &mat);
    if (vt) { /* the vertex pass first, on the positions as they are */
      const dr_uint *tri = dr_backend_cpu_tris(s);
      for (int i = 0; i < s->m.n_particles; i++)
        vt_particle1(x, p, tri, s->m.vt_off, s->m.vt_list, s->m.obj, mat, c->meshes, c->sorted,
                     c->cells, c->vbits, c->grid, c->v0, c->v1, c->cp, t_end, i, c->corr, c->vstamp);
    }
    for (int i = 0; i < s->m.n_particles; i++) {
      dr_float4 xi = x[i], pi = p[i];
      if (xi.w == 0.0f) { /* as the kernels: a pinned particle drops its list */
        if (c->cp.rebuild) c->cinfo[4 * i] = DR_CAND_NONE, c->cinfo[4 * i + 3] = DR_BALL_NONE;
        continue;
      }
      const int moved = drc_vt_add(&xi, c->corr, c->vstamp, c->cp, i);
      const drc_cand cd = {c->cbox + 2 * i, c->cinfo + 4 * i, c->clist + (size_t)i * (size_t)c->cand_k,
                           c->cand_k, c->cball + i, c->csub + (size_t)DR_BALL_SLOTS * (size_t)i,
                           c->cplane + i};
      const int hit = colliders1(&xi, &pi, mat[s->m.obj[i]].thickness, c->cp, c->caps, c->meshes,
                                 c->nodes, c->tris, c->v0, c->v1, t_end, cd);
      if (hit || moved) x[i] = xi;
      if (hit & 2) p[i] = pi;
    }
    return DRAPE_OK;
  }
  drape_cl *cl;
  cl_mem x, p, obj, mat;
  dr_cl_prof *prof;
  int gpu, rc;
  dr_backend_cl_particles(s, &cl, &x, &p, &obj, &mat, &prof, &gpu);
  prof->stage = s->cur_stage, prof->colour = -1, prof->part = -1;
  const size_t n = (size_t)s->m.n_particles;
  const size_t items = gpu ? n : (n + DR_PARTICLE_LANES - 1) / DR_PARTICLE_LANES;
  if (vt) { /* the vertex pass: a correction per particle near a sharp vertex */
    cl_mem tri, vt_off, vt_list;
    dr_backend_cl_tris(s, &tri, &vt_off, &vt_list);
    if ((rc = DRAPE_CL_BIND(&c->k[CK_VT], 0, e, DRAPE_CL_ARG("x", x), DRAPE_CL_ARG("p", p),
                            DRAPE_CL_ARG("tri", tri), DRAPE_CL_ARG("vt_off", vt_off),
                            DRAPE_CL_ARG("vt_list", vt_list), DRAPE_CL_ARG("obj", obj),
                            DRAPE_CL_ARG("objects", mat), DRAPE_CL_ARG("meshes", c->bmeshes),
                            DRAPE_CL_ARG("sharp", c->bsharp), DRAPE_CL_ARG("cells", c->bcells),
                            DRAPE_CL_ARG("vbits", c->bvbits), DRAPE_CL_ARG("grid", c->grid),
                            DRAPE_CL_ARG("v0", c->bv0), DRAPE_CL_ARG("v1", c->bv1),
                            DRAPE_CL_ARG("cp", c->cp), DRAPE_CL_ARG("t_end", t_end),
                            DRAPE_CL_ARG("corr", c->bcorr), DRAPE_CL_ARG("vstamp", c->bvstamp))) ||
        (rc = dr_cl_launch(c->cl, &c->k[CK_VT], items, c->local[CK_VT], prof, e)))
      return rc;
    s->tm.launches++;
  }
  rc = DRAPE_CL_BIND(&c->k[CK_PARTICLES], 0, e, DRAPE_CL_ARG("x", x), DRAPE_CL_ARG("p", p),
                     DRAPE_CL_ARG("obj", obj), DRAPE_CL_ARG("objects", mat),
                     DRAPE_CL_ARG("caps", c->bcaps), DRAPE_CL_ARG("meshes", c->bmeshes),
                     DRAPE_CL_ARG("nodes", c->bnodes), DRAPE_CL_ARG("tris", c->btris),
                     DRAPE_CL_ARG("v0", c->bv0), DRAPE_CL_ARG("v1", c->bv1),
                     DRAPE_CL_ARG("cp", c->cp), DRAPE_CL_ARG("t_end", t_end),
                     DRAPE_CL_ARG("cbox", c->bcbox), DRAPE_CL_ARG("cinfo", c->bcinfo),
                     DRAPE_CL_ARG("clist", c->bclist), DRAPE_CL_ARG("k", c->cand_k),
                     DRAPE_CL_ARG("corr", c->bcorr), DRAPE_CL_ARG("vstamp", c->bvstamp),
                     DRAPE_CL_ARG("cball", c->bcball), DRAPE_CL_ARG("csub", c->bcsub),
                     DRAPE_CL_ARG("cplane", c->bcplane));
  if (rc) return rc;
  return dr_cl_launch(c->cl, &c->k[CK_PARTICLES], items, c->local[CK_PARTICLES], prof, e);
}

/* ---- set-up on a backend ------------------------------------------------------ */

/* The candidate lists' host side: K (DRAPE_COLLIDER_SLOTS, a tuning and
 * testing switch: 0 sends every particle through the tree walk), every
 * state "no list", and on the CPU reference the boxes and slots. */
static int cand_alloc(const drape_sim *s, dr_colliders *c, drape_err *e) {
  int k = DR_CAND_SLOTS;
  const char *env = getenv("DRAPE_COLLIDER_SLOTS");
  if (env && *env) {
    char *end;
    const long v = strtol(env, &end, 10);
    if (*end || v < 0 || v > DR_CAND_MAX_SLOTS)
      return drape_fail(e, DRAPE_EINVAL, "DRAPE_COLLIDER_SLOTS = %s: must be an integer in 0..%d",
                        env, DR_CAND_MAX_SLOTS);
    k = (int)v;
  }
  /* the states and balls padded to whole groups: the vector kernel reads
   * eight at once */
  const char *pe = getenv("DRAPE_COLLIDER_PLANES");
  if (pe && *pe && strcmp(pe, "0") != 0 && strcmp(pe, "1") != 0)
    return drape_fail(e, DRAPE_EINVAL, "DRAPE_COLLIDER_PLANES = %s: must be 0 or 1", pe);
  c->planes = !(pe && strcmp(pe, "0") == 0);
  const int n = c->n_meshes > 0 ? (s->m.n_particles + DR_PARTICLE_LANES - 1) & ~(DR_PARTICLE_LANES - 1)
                                : 0;
  free(c->cbox), free(c->cinfo), free(c->clist), free(c->cball), free(c->csub), free(c->cplane);
  c->cbox = NULL, c->cinfo = NULL, c->clist = NULL, c->cball = NULL, c->csub = NULL;
  c->cplane = NULL;
  c->cand_k = k, c->cand_n = n;
  c->cinfo = malloc(4 * sizeof *c->cinfo * (size_t)(n + 1));
  if (!c->cinfo) return drape_fail(e, DRAPE_ENOMEM, "out of memory (collider candidate lists)");
  for (int i = 0; i < 4 * (n + 1); i++)
    c->cinfo[i] = i % 4 == 0 ? DR_CAND_NONE : i % 4 == 3 ? DR_BALL_NONE : 0;
  if (s->be == &dr_backend_cl) return DRAPE_OK;
  c->cbox = calloc(2 * (size_t)(n + 1), sizeof *c->cbox);
  c->clist = malloc(sizeof *c->clist * ((size_t)n * (size_t)k + 1));
  c->cball = calloc((size_t)n + 1, sizeof *c->cball);
  c->cplane = calloc((size_t)n + 1, sizeof *c->cplane);
  c->csub = malloc(sizeof *c->csub * (DR_BALL_SLOTS * (size_t)n + 1));
  if (!c->cbox || !c->clist || !c->cball || !c->cplane || !c->csub)
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (collider candidate lists)");
  return DRAPE_OK;
}

int dr_colliders_attach(drape_sim *s, drape_err *e) {
  dr_colliders *c = s->col;
  if (!c) return DRAPE_OK;
  c->need_upload = 1;
  const int rc_cand = cand_alloc(s, c, e);
  if (rc_cand) return rc_cand;
  /* the vertex pass's cull allows cloth triangles twice as wide as the
   * widest at rest (its longest edge) */
  c->tri_width = 0.0f;
  for (int t = 0; t < s->m.n_tris; t++)
    for (int q = 0; q < 3; q++) {
      const dr_float4 a = s->m.x0[s->m.tris[3 * t + q]], b = s->m.x0[s->m.tris[3 * t + (q + 1) % 3]];
      const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
      c->tri_width = fmaxf(c->tri_width, 2.0f * sqrtf(dx * dx + dy * dy + dz * dz));
    }
  if (s->be != &dr_backend_cl && c->n_sharp > 0 && !c->corr) {
    c->corr = calloc((size_t)s->m.n_particles + 1, sizeof *c->corr);
    c->vstamp = calloc((size_t)s->m.n_particles + 1, sizeof *c->vstamp);
    if (!c->corr || !c->vstamp)
      return drape_fail(e, DRAPE_ENOMEM, "out of memory (vertex-triangle pass)");
  }
  if (s->be != &dr_backend_cl || c->on_cl) return DRAPE_OK;
  drape_cl *cl;
  cl_mem x, p, obj, mat;
  dr_cl_prof *prof;
  int gpu, rc;
  dr_backend_cl_particles(s, &cl, &x, &p, &obj, &mat, &prof, &gpu);
  c->cl = cl;
  c->gpu = gpu;
  const char *names[CK_COUNT] = {"bvh_refit", gpu ? "colliders_g" : "colliders",
                                 gpu ? "collider_vt_g" : "collider_vt"};
  for (int k = 0; k < CK_COUNT; k++) {
    if ((rc = dr_cl_kern_create(cl, names[k], &c->k[k], e))) return rc;
    if (gpu) c->local[k] = dr_cl_kern_local(cl, &c->k[k]);
  }
  c->on_cl = 1;
  uint64_t up = 0;
  const size_t f4 = sizeof(dr_float4);
  if ((rc = dr_cl_buffer(cl, sizeof(dr_capsule) * (size_t)c->n_caps, c->caps, "capsules",
                         &c->bytes, &up, &c->bcaps, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_mesh_col) * (size_t)c->n_meshes, c->meshes,
                         "mesh colliders", &c->bytes, &up, &c->bmeshes, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_bvh_node) * (size_t)c->n_nodes, c->nodes,
                         "collider trees", &c->bytes, &up, &c->bnodes, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_col_tri) * (size_t)c->n_tris, c->tris,
                         "collider triangles", &c->bytes, &up, &c->btris, e)) ||
      (rc = dr_cl_buffer(cl, f4 * (size_t)c->n_verts, c->v0, "collider vertices (start)",
                         &c->bytes, &up, &c->bv0, e)) ||
      (rc = dr_cl_buffer(cl, f4 * (size_t)c->n_verts, c->v1, "collider vertices (end)", &c->bytes,
                         &up, &c->bv1, e)) ||
      (rc = dr_cl_buffer(cl, 2 * sizeof(dr_int) * (size_t)c->n_sharp, c->sorted,
                         "sharp collider vertices", &c->bytes, &up, &c->bsharp, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_int) * (c->n_sharp ? VT_CELLS + 1 : 0), c->cells,
                         "sharp vertex grid", &c->bytes, &up, &c->bcells, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_uint) * (c->n_sharp ? VT_WORDS : 0), c->vbits,
                         "sharp vertex cull", &c->bytes, &up, &c->bvbits, e)) ||
      (rc = dr_cl_buffer(cl, f4 * (size_t)(c->n_sharp ? s->m.n_particles : 0), NULL,
                         "vertex-triangle corrections", &c->bytes, &up, &c->bcorr, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_int) * (size_t)(c->n_sharp ? c->cand_n + 8 : 0), NULL,
                         "vertex-triangle stamps", &c->bytes, &up, &c->bvstamp, e)) ||
      (rc = dr_cl_buffer(cl, 2 * f4 * (size_t)c->cand_n, NULL, "collider candidate boxes",
                         &c->bytes, &up, &c->bcbox, e)) ||
      (rc = dr_cl_buffer(cl, 4 * sizeof(dr_int) * (size_t)c->cand_n, c->cinfo,
                         "collider candidate states", &c->bytes, &up, &c->bcinfo, e)) ||
      (rc = dr_cl_buffer(cl, f4 * (size_t)c->cand_n, NULL, "collider balls", &c->bytes, &up,
                         &c->bcball, e)) ||
      (rc = dr_cl_buffer(cl, f4 * (size_t)c->cand_n, NULL, "collider contact planes", &c->bytes,
                         &up, &c->bcplane, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_int) * DR_BALL_SLOTS * (size_t)c->cand_n, NULL,
                         "collider ball entries", &c->bytes, &up, &c->bcsub, e)) ||
      (rc = dr_cl_buffer(cl, sizeof(dr_int) * (size_t)c->cand_n * (size_t)c->cand_k, NULL,
                         "collider candidate lists", &c->bytes, &up, &c->bclist, e)))
    return rc;
  s->tm.bytes_to_device += up;
  /* no stamp matches before the first substep writes one (stamps start at 1) */
  if (c->n_sharp > 0 &&
      (rc = dr_cl_fill0(cl, c->bvstamp, sizeof(dr_int) * (size_t)(c->cand_n + 8), NULL, e)))
    return rc;
  return DRAPE_CL_BIND(&c->k[CK_REFIT], 0, e, DRAPE_CL_ARG("nodes", c->bnodes),
                       DRAPE_CL_ARG("tris", c->btris), DRAPE_CL_ARG("v0", c->bv0),
                       DRAPE_CL_ARG("v1", c->bv1));
}

/* ---- reading (drape/cloth.h) ------------------------------------------------ */

int drape_sim_n_capsules(const drape_sim *s) { return s->col ? s->col->n_caps : 0; }
int drape_sim_n_collider_meshes(const drape_sim *s) { return s->col ? s->col->n_meshes : 0; }

int drape_sim_get_capsule(const drape_sim *s, int k, double a[3], double b[3], double *radius) {
  if (k < 0 || k >= drape_sim_n_capsules(s)) return DRAPE_EINVAL;
  const col_capsule *d = &s->col->cdef[k];
  drape_collider_keys_apply((const double(*)[7])d->keys, d->n_keys, s->time, d->pivot, d->a, a);
  drape_collider_keys_apply((const double(*)[7])d->keys, d->n_keys, s->time, d->pivot, d->b, b);
  for (int q = 0; q < 3; q++) a[q] += d->off0[q], b[q] += d->off0[q];
  *radius = s->col->caps[k].a0.w;
  return DRAPE_OK;
}

int drape_sim_move_capsule(drape_sim *s, int k, const double offset[3], drape_err *e) {
  if (k < 0 || k >= drape_sim_n_capsules(s))
    return drape_fail(e, DRAPE_EINVAL, "capsule %d does not exist: the scene has %d", k,
                      drape_sim_n_capsules(s));
  for (int q = 0; q < 3; q++)
    if (!(fabs(offset[q]) <= DRAPE_MAX_COORD))
      return drape_fail(e, DRAPE_EINVAL, "capsule %d: offset[%d] = %g: must be within +-%g m", k,
                        q, offset[q], DRAPE_MAX_COORD);
  memcpy(s->col->cdef[k].off, offset, sizeof s->col->cdef[k].off);
  s->col->need_upload = s->col->moved = 1; /* this frame's poses move (swept from off0) */
  return DRAPE_OK;
}

int drape_sim_capsule_offset(const drape_sim *s, int k, double offset[3]) {
  if (k < 0 || k >= drape_sim_n_capsules(s)) return DRAPE_EINVAL;
  memcpy(offset, s->col->cdef[k].off, 3 * sizeof *offset);
  return DRAPE_OK;
}

int drape_sim_move_collider(drape_sim *s, int k, const double offset[3], drape_err *e) {
  if (k < 0 || k >= drape_sim_n_collider_meshes(s))
    return drape_fail(e, DRAPE_EINVAL, "mesh collider %d does not exist: the scene has %d", k,
                      drape_sim_n_collider_meshes(s));
  for (int q = 0; q < 3; q++)
    if (!(fabs(offset[q]) <= DRAPE_MAX_COORD))
      return drape_fail(e, DRAPE_EINVAL, "mesh collider %d: offset[%d] = %g: must be within +-%g m",
                        k, q, offset[q], DRAPE_MAX_COORD);
  dr_colliders *c = s->col;
  memcpy(c->mdef[k].off, offset, sizeof c->mdef[k].off);
  c->need_upload = c->moved = 1;
  /* a static mesh is tested at its end pose only: once moved, the kernels
   * read both poses (the sweep; the same bits while it stands still) */
  if (!(c->meshes[k].flags & DR_MESH_MOVING)) c->meshes[k].flags |= DR_MESH_MOVING, c->flags_dirty = 1;
  return DRAPE_OK;
}

int drape_sim_collider_offset(const drape_sim *s, int k, double offset[3]) {
  if (k < 0 || k >= drape_sim_n_collider_meshes(s)) return DRAPE_EINVAL;
  memcpy(offset, s->col->mdef[k].off, 3 * sizeof *offset);
  return DRAPE_OK;
}

int drape_sim_collider_mesh(const drape_sim *s, int k, int *n_vertices, int *n_tris, float *v,
                            uint32_t *tris) {
  if (k < 0 || k >= drape_sim_n_collider_meshes(s)) return DRAPE_EINVAL;
  const dr_colliders *c = s->col;
  const col_mesh *d = &c->mdef[k];
  *n_vertices = d->nv;
  int nt = 0;
  for (int i = 0; i < c->n_tris; i++) {
    if (c->tris[i].mesh != k) continue;
    if (tris) {
      tris[3 * nt] = (uint32_t)(c->tris[i].a - d->vfirst);
      tris[3 * nt + 1] = (uint32_t)(c->tris[i].b - d->vfirst);
      tris[3 * nt + 2] = (uint32_t)(c->tris[i].c - d->vfirst);
    }
    nt++;
  }
  *n_tris = nt;
  if (v) {
    double rot[4], tr[3];
    dr_keys_pose((const double(*)[7])d->keys, d->n_keys, s->time, rot, tr);
    for (int i = 0; i < d->nv; i++) {
      double o[3];
      mesh_point(c, d, i, s->time, rot, tr, o);
      for (int q = 0; q < 3; q++) v[3 * i + q] = (float)(o[q] + d->off0[q]);
    }
  }
  return DRAPE_OK;
}

/* ---- OBJ (drape/cloth.h) --------------------------------------------------- */

/* A capsule as a closed surface (cloth.h): the a cap's pole, its rings
 * from the pole to the equator, the b cap's from its equator to the pole,
 * b's pole; the two caps' equators joined by the cylinder. */
void drape_capsule_surface(const double a[3], const double b[3], double r, int seg, int cap,
                           float *xyz, int stride, uint32_t *t, uint32_t v0) {
  if (xyz) { /* a, b and r are read only for the points */
    double ax[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double len = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    if (len > 0) for (int q = 0; q < 3; q++) ax[q] /= len;
    else ax[0] = 0, ax[1] = 1, ax[2] = 0;
    /* two unit vectors across the axis */
    double u[3] = {0, 0, 0};
    u[fabs(ax[0]) < 0.9 ? 0 : 1] = 1;
    double d = u[0] * ax[0] + u[1] * ax[1] + u[2] * ax[2];
    for (int q = 0; q < 3; q++) u[q] -= d * ax[q];
    d = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int q = 0; q < 3; q++) u[q] /= d;
    const double w[3] = {ax[1] * u[2] - ax[2] * u[1], ax[2] * u[0] - ax[0] * u[2],
                         ax[0] * u[1] - ax[1] * u[0]};
    float *v = xyz;
    for (int q = 0; q < 3; q++) v[q] = (float)(a[q] - r * ax[q]);
    v += stride;
    for (int end = 0; end < 2; end++)
      for (int i = 1; i <= cap; i++) {
        /* a: from the pole (i = 1 near it) to the equator; b: the reverse */
        const int k = end == 0 ? i : cap + 1 - i;
        const double th = 0.5 * 3.14159265358979323846 * k / cap, sn = sin(th), cs = cos(th);
        const double *o = end == 0 ? a : b, sg = end == 0 ? -1 : 1;
        for (int j = 0; j < seg; j++, v += stride) {
          const double ph = 2 * 3.14159265358979323846 * j / seg;
          for (int q = 0; q < 3; q++)
            v[q] = (float)(o[q] + r * (sn * (cos(ph) * u[q] + sin(ph) * w[q]) + sg * cs * ax[q]));
        }
      }
    for (int q = 0; q < 3; q++) v[q] = (float)(b[q] + r * ax[q]);
  }
  if (!t) return;
  const uint32_t south = v0, north = v0 + (uint32_t)DRAPE_CAPSULE_VERTICES(seg, cap) - 1;
  const int rings = 2 * cap;
  int m = 0;
#define RING(i, j) (v0 + 1u + (uint32_t)((i) * seg + ((j) % seg)))
  for (int j = 0; j < seg; j++) {
    t[3 * m] = south, t[3 * m + 1] = RING(0, j + 1), t[3 * m + 2] = RING(0, j), m++;
    t[3 * m] = north, t[3 * m + 1] = RING(rings - 1, j), t[3 * m + 2] = RING(rings - 1, j + 1), m++;
  }
  for (int i = 0; i + 1 < rings; i++)
    for (int j = 0; j < seg; j++) {
      t[3 * m] = RING(i, j), t[3 * m + 1] = RING(i, j + 1), t[3 * m + 2] = RING(i + 1, j + 1), m++;
      t[3 * m] = RING(i, j), t[3 * m + 1] = RING(i + 1, j + 1), t[3 * m + 2] = RING(i + 1, j), m++;
    }
#undef RING
}

/* The OBJ's capsules: 16 points round, 4 rings per cap. */
#define OBJ_SEG 16
#define OBJ_CAP 4
#define OBJ_CAP_V DRAPE_CAPSULE_VERTICES(OBJ_SEG, OBJ_CAP)
#define OBJ_CAP_T DRAPE_CAPSULE_TRIS(OBJ_SEG, OBJ_CAP)

int drape_sim_write_colliders_obj(drape_sim *s, const char *path, drape_err *e) {
  dr_obj o;
  int rc = dr_obj_open(&o, path, s->frame, s->time, e);
  if (rc) return rc;
  float *v = NULL;
  uint32_t *t = NULL;
  char name[80];
  for (int k = 0; k < drape_sim_n_capsules(s) && !rc; k++) {
    double a[3], b[3], r;
    float cv[3 * OBJ_CAP_V];
    uint32_t ct[3 * OBJ_CAP_T];
    drape_sim_get_capsule(s, k, a, b, &r);
    drape_capsule_surface(a, b, r, OBJ_SEG, OBJ_CAP, cv, 3, ct, 0);
    snprintf(name, sizeof name, "capsule%d", k);
    rc = dr_obj_object(&o, "capsule", name, cv, 3, OBJ_CAP_V, NULL, ct, OBJ_CAP_T, NULL, 0, e);
  }
  for (int k = 0; k < drape_sim_n_collider_meshes(s) && !rc; k++) {
    int nv, nt;
    drape_sim_collider_mesh(s, k, &nv, &nt, NULL, NULL);
    float *gv = realloc(v, sizeof *v * 3 * (size_t)nv);
    uint32_t *gt = realloc(t, sizeof *t * 3 * (size_t)nt);
    if (gv) v = gv;
    if (gt) t = gt;
    if (!gv || !gt) {
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory writing %s", path);
      break;
    }
    drape_sim_collider_mesh(s, k, &nv, &nt, v, t);
    snprintf(name, sizeof name, "collider%d", k);
    rc = dr_obj_object(&o, "collider", name, v, 3, nv, NULL, t, nt, NULL, 0, e);
  }
  free(v), free(t);
  int rc2 = dr_obj_close(&o, rc == 0, e);
  return rc ? rc : rc2;
}
