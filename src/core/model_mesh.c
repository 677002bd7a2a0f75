/* Mesh cloths in the model: edges and their triangles, geodesic tethers
 * (model.c builds the particles and constraints from these). */
#include "core/model_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { long long key; int tri, q; } corner_edge;

static int cmp_corner(const void *x, const void *y) {
  const corner_edge *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  if (a->tri != b->tri) return a->tri < b->tri ? -1 : 1;
  return a->q - b->q;
}

void dr_mesh_topo_free(dr_mesh_topo *t) {
  if (!t) return;
  free(t->edge), free(t->edge_tri), free(t->edge_n_tris), free(t->tri_edge);
  memset(t, 0, sizeof *t);
}

int dr_mesh_topo_build(const drape_cloth_mesh *m, dr_mesh_topo *t, drape_err *e) {
  memset(t, 0, sizeof *t);
  const long long nc = 3LL * m->n_tris, nv = m->n_vertices;
  corner_edge *ce = malloc(sizeof *ce * (size_t)(nc > 0 ? nc : 1));
  t->tri_edge = malloc(sizeof *t->tri_edge * (size_t)(nc > 0 ? nc : 1));
  if (!ce || !t->tri_edge) {
    free(ce);
    dr_mesh_topo_free(t);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory for %d triangles", m->n_tris);
  }
  for (long long i = 0; i < nc; i++) {
    const int tri = (int)(i / 3), q = (int)(i % 3);
    int a = m->tris[3 * tri + q], b = m->tris[3 * tri + (q + 1) % 3];
    if (a > b) { const int s = a; a = b; b = s; }
    ce[i] = (corner_edge){(long long)a * nv + b, tri, q};
  }
  qsort(ce, (size_t)nc, sizeof *ce, cmp_corner);
  int n = 0;
  for (long long i = 0; i < nc; i++) n += i == 0 || ce[i].key != ce[i - 1].key;
  t->edge = malloc(sizeof *t->edge * (size_t)(n > 0 ? n : 1));
  t->edge_tri = malloc(sizeof *t->edge_tri * (size_t)(n > 0 ? n : 1));
  t->edge_n_tris = calloc((size_t)(n > 0 ? n : 1), sizeof *t->edge_n_tris);
  if (!t->edge || !t->edge_tri || !t->edge_n_tris) {
    free(ce);
    dr_mesh_topo_free(t);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory for %d edges", n);
  }
  int k = -1;
  for (long long i = 0; i < nc; i++) {
    if (i == 0 || ce[i].key != ce[i - 1].key) {
      k++;
      t->edge[k][0] = (int)(ce[i].key / nv);
      t->edge[k][1] = (int)(ce[i].key % nv);
      t->edge_tri[k][0] = t->edge_tri[k][1] = -1;
    }
    if (t->edge_n_tris[k] < 2) t->edge_tri[k][t->edge_n_tris[k]] = ce[i].tri;
    t->edge_n_tris[k]++;
    t->tri_edge[3 * ce[i].tri + ce[i].q] = k;
  }
  t->n_edges = n;
  for (int i = 0; i < n; i++) t->n_bend += t->edge_n_tris[i] == 2;
  free(ce);
  return DRAPE_OK;
}

int dr_mesh_opposite(const int *tris, int tri, int a, int b) {
  for (int q = 0; q < 3; q++) {
    const int v = tris[3 * tri + q];
    if (v != a && v != b) return v;
  }
  return -1;
}

/* ---- geodesic tethers ---- */

typedef struct { double d; int v, src; } heap_item;
typedef struct { heap_item *a; long long n, cap; } heap;

static int less(const heap_item *x, const heap_item *y) {
  if (x->d != y->d) return x->d < y->d;
  if (x->src != y->src) return x->src < y->src;
  return x->v < y->v;
}

static int heap_push(heap *h, heap_item it) {
  if (h->n == h->cap) {
    const long long cap = h->cap ? 2 * h->cap : 1024;
    heap_item *g = realloc(h->a, sizeof *g * (size_t)cap);
    if (!g) return -1;
    h->a = g, h->cap = cap;
  }
  long long i = h->n++;
  while (i > 0 && less(&it, &h->a[(i - 1) / 2])) h->a[i] = h->a[(i - 1) / 2], i = (i - 1) / 2;
  h->a[i] = it;
  return 0;
}

static heap_item heap_pop(heap *h) {
  heap_item top = h->a[0], last = h->a[--h->n];
  long long i = 0;
  for (;;) {
    long long c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && less(&h->a[c + 1], &h->a[c])) c++;
    if (!less(&h->a[c], &last)) break;
    h->a[i] = h->a[c], i = c;
  }
  h->a[i] = last;
  return top;
}

int dr_mesh_geodesic_pins(const drape_cloth_mesh *m, const dr_mesh_topo *t, const int *pins,
                          int n_pins, int slots, int *pin, double *dist, drape_err *e) {
  const int nv = m->n_vertices;
  /* vertex -> neighbours (CSR) */
  int *off = calloc((size_t)nv + 1, sizeof *off);
  int *nb = malloc(sizeof *nb * 2 * (size_t)(t->n_edges > 0 ? t->n_edges : 1));
  int *fill = calloc((size_t)nv + 1, sizeof *fill);
  int *have = calloc((size_t)nv, sizeof *have);
  heap h = {0};
  int rc = DRAPE_OK;
  if (!off || !nb || !fill || !have) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory for tethers");
    goto done;
  }
  for (int i = 0; i < t->n_edges; i++) off[t->edge[i][0] + 1]++, off[t->edge[i][1] + 1]++;
  for (int v = 0; v < nv; v++) off[v + 1] += off[v];
  for (int i = 0; i < t->n_edges; i++) {
    const int a = t->edge[i][0], b = t->edge[i][1];
    nb[off[a] + fill[a]++] = b;
    nb[off[b] + fill[b]++] = a;
  }
  for (long long i = 0; i < (long long)nv * slots; i++) pin[i] = -1, dist[i] = 0;
  for (int p = 0; p < n_pins; p++)
    if (heap_push(&h, (heap_item){0.0, pins[p], pins[p]})) {
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory for tethers");
      goto done;
    }
  /* Each vertex settles at most `slots` sources, nearest first: a label
   * (v, src) popped once v has that source or is full is stale. */
  while (h.n > 0) {
    const heap_item it = heap_pop(&h);
    const int v = it.v;
    if (have[v] >= slots) continue;
    int dup = 0;
    for (int k = 0; k < have[v]; k++) dup |= pin[(long long)v * slots + k] == it.src;
    if (dup) continue;
    pin[(long long)v * slots + have[v]] = it.src;
    dist[(long long)v * slots + have[v]] = it.d;
    have[v]++;
    const double *x = m->vertices + 3 * v;
    for (int j = off[v]; j < off[v + 1]; j++) {
      const int u = nb[j];
      if (have[u] >= slots) continue;
      const double *y = m->vertices + 3 * u;
      const double d = sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                            (x[2] - y[2]) * (x[2] - y[2]));
      if (heap_push(&h, (heap_item){it.d + d, u, it.src})) {
        rc = drape_fail(e, DRAPE_ENOMEM, "out of memory for tethers");
        goto done;
      }
    }
  }
done:
  free(off), free(nb), free(fill), free(have), free(h.a);
  return rc;
}
