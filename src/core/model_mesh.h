/* Mesh cloths in the model (model_mesh.c): the edges of a triangle mesh,
 * which triangles share each, and geodesic tether distances. */
#ifndef DRAPE_CORE_MODEL_MESH_H
#define DRAPE_CORE_MODEL_MESH_H

#include "drape/base.h"
#include "drape/scene.h"

typedef struct dr_mesh_topo {
  int n_edges;
  int (*edge)[2];     /* a < b, sorted by (a, b)                          */
  int (*edge_tri)[2]; /* the first two triangles with the edge, -1: none  */
  int *edge_n_tris;   /* how many triangles have it (1 boundary, 2 inner,
                         3+ a non-manifold seam)                          */
  int *tri_edge;      /* 3 per triangle: edge of corners (q, q+1 mod 3)   */
  int n_bend;         /* edges with exactly two triangles                 */
} dr_mesh_topo;

int dr_mesh_topo_build(const drape_cloth_mesh *m, dr_mesh_topo *t, drape_err *e);
void dr_mesh_topo_free(dr_mesh_topo *t);

/* The corner of triangle `tri` that is not on edge (a, b). */
int dr_mesh_opposite(const int *tris, int tri, int a, int b);

/* Tethers along the mesh: for each vertex, the `slots` nearest of the
 * n_pins pinned vertices by shortest path along the edges (Dijkstra from
 * all pins at once, each vertex keeping its first `slots` distinct pins).
 * Writes pin[v * slots + k] (vertex index, -1 unused) and dist[...] in m,
 * nearest first (ties by pin index). */
int dr_mesh_geodesic_pins(const drape_cloth_mesh *m, const dr_mesh_topo *t, const int *pins,
                          int n_pins, int slots, int *pin, double *dist, drape_err *e);

#endif
