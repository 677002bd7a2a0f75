/* Capsules and mesh colliders drawn as grey surfaces: see collider_view.h. */
#include "render/collider_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A capsule as a closed surface: SEG points round, CAP rings per end cap
 * (pole included), the two cap equators joined by the cylinder. */
#define SEG 24
#define CAP 6
#define CAP_VERTS (2 * (CAP * SEG) + 2) /* rings of both caps and the poles */

struct dr_collider_view {
  drape_sim *sim;
  drape_render_mesh *mesh;
  int n_caps, n_meshes, nv, nt;
  int *mesh_first;              /* first vertex of mesh collider k           */
  float *pos, *nrm, *xyz;       /* float4 per vertex; scratch float3         */
  uint32_t *tris;
  double last_time;             /* time of the uploaded positions            */
};

/* Vertices of capsule k (a to b, radius r) from vertex v0: the a cap's pole,
 * its rings from the pole to the equator, then the b cap's from its
 * equator to the pole, and b's pole. */
static void capsule_vertices(const double a[3], const double b[3], double r, float *pos) {
  double ax[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double len = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
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
  int n = 0;
#define PUT(P)                                                              \
  do {                                                                      \
    for (int q = 0; q < 3; q++) pos[4 * n + q] = (float)(P)[q];             \
    pos[4 * n + 3] = 1;                                                     \
    n++;                                                                    \
  } while (0)
  double p[3];
  for (int q = 0; q < 3; q++) p[q] = a[q] - r * ax[q];
  PUT(p);
  for (int end = 0; end < 2; end++)
    for (int i = 1; i <= CAP; i++) {
      /* a: from the pole (i = 1 near it) to the equator; b: the reverse */
      const int k = end == 0 ? i : CAP + 1 - i;
      const double th = 0.5 * 3.14159265358979323846 * k / CAP, s = sin(th), c = cos(th);
      const double *o = end == 0 ? a : b;
      const double sg = end == 0 ? -1 : 1;
      for (int j = 0; j < SEG; j++) {
        const double ph = 2 * 3.14159265358979323846 * j / SEG;
        for (int q = 0; q < 3; q++)
          p[q] = o[q] + r * (s * (cos(ph) * u[q] + sin(ph) * w[q]) + sg * c * ax[q]);
        PUT(p);
      }
    }
  for (int q = 0; q < 3; q++) p[q] = b[q] + r * ax[q];
  PUT(p);
#undef PUT
}

/* Triangles of a capsule whose vertices start at v0 (outward winding). */
static int capsule_tris(uint32_t v0, uint32_t *t) {
  int n = 0;
  const uint32_t south = v0, north = v0 + CAP_VERTS - 1;
  const int rings = 2 * CAP;
#define RING(i, j) (v0 + 1 + (uint32_t)((i) * SEG + ((j) % SEG)))
  for (int j = 0; j < SEG; j++) {
    t[3 * n] = south, t[3 * n + 1] = RING(0, j + 1), t[3 * n + 2] = RING(0, j), n++;
    t[3 * n] = north, t[3 * n + 1] = RING(rings - 1, j), t[3 * n + 2] = RING(rings - 1, j + 1), n++;
  }
  for (int i = 0; i + 1 < rings; i++)
    for (int j = 0; j < SEG; j++) {
      t[3 * n] = RING(i, j), t[3 * n + 1] = RING(i, j + 1), t[3 * n + 2] = RING(i + 1, j + 1), n++;
      t[3 * n] = RING(i, j), t[3 * n + 1] = RING(i + 1, j + 1), t[3 * n + 2] = RING(i + 1, j), n++;
    }
#undef RING
  return n;
}
#define CAP_TRIS (2 * SEG + 2 * (2 * CAP - 1) * SEG)

int dr_collider_view_create(drape_renderer *r, drape_sim *sim, const float rgb[3],
                            dr_collider_view **out, drape_err *e) {
  *out = NULL;
  const int nc = drape_sim_n_capsules(sim), nm = drape_sim_n_collider_meshes(sim);
  if (nc + nm == 0) return DRAPE_OK;
  dr_collider_view *v = calloc(1, sizeof *v);
  if (!v) return drape_fail(e, DRAPE_ENOMEM, "out of memory (collider view)");
  v->sim = sim, v->n_caps = nc, v->n_meshes = nm;
  v->mesh_first = calloc((size_t)nm + 1, sizeof *v->mesh_first);
  drape_render_object *objs = calloc((size_t)(nc + nm), sizeof *objs);
  int rc = DRAPE_OK;
  if (!v->mesh_first || !objs) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory (collider view)");
    goto done;
  }
  v->nv = nc * CAP_VERTS, v->nt = nc * CAP_TRIS;
  for (int k = 0; k < nm; k++) {
    int mv, mt;
    drape_sim_collider_mesh(sim, k, &mv, &mt, NULL, NULL);
    v->mesh_first[k] = v->nv;
    v->nv += mv, v->nt += mt;
  }
  v->pos = malloc(sizeof(float) * 4 * (size_t)v->nv);
  v->nrm = malloc(sizeof(float) * 4 * (size_t)v->nv);
  v->xyz = malloc(sizeof(float) * 3 * (size_t)v->nv);
  v->tris = malloc(sizeof(uint32_t) * 3 * (size_t)v->nt);
  if (!v->pos || !v->nrm || !v->xyz || !v->tris) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory (collider view: %d vertices)", v->nv);
    goto done;
  }
  int t = 0;
  for (int k = 0; k < nc; k++) {
    objs[k] = (drape_render_object){DRAPE_RO_SURFACE, t, CAP_TRIS, {0}, {0}, 0, 0, 0};
    t += capsule_tris((uint32_t)(k * CAP_VERTS), v->tris + 3 * t);
  }
  for (int k = 0; k < nm; k++) {
    int mv, mt;
    drape_sim_collider_mesh(sim, k, &mv, &mt, NULL, v->tris + 3 * t);
    for (int i = 0; i < 3 * mt; i++) v->tris[3 * t + i] += (uint32_t)v->mesh_first[k];
    objs[nc + k] = (drape_render_object){DRAPE_RO_SURFACE, t, mt, {0}, {0}, 0, 0, 0};
    t += mt;
  }
  for (int k = 0; k < nc + nm; k++) {
    memcpy(objs[k].color_front, rgb, 3 * sizeof(float));
    memcpy(objs[k].color_back, rgb, 3 * sizeof(float));
  }
  drape_render_mesh_desc md = {v->nv, v->tris, v->nt, NULL, 0, NULL, objs, nc + nm};
  if ((rc = drape_render_mesh_create(r, &md, &v->mesh, e))) goto done;
  v->last_time = -1;
  rc = dr_collider_view_update(v, e);
done:
  free(objs);
  if (rc) dr_collider_view_destroy(v);
  else *out = v;
  return rc;
}

void dr_collider_view_destroy(dr_collider_view *v) {
  if (!v) return;
  drape_render_mesh_destroy(v->mesh);
  free(v->mesh_first), free(v->pos), free(v->nrm), free(v->xyz), free(v->tris);
  free(v);
}

int dr_collider_view_update(dr_collider_view *v, drape_err *e) {
  const double t = drape_sim_time(v->sim);
  if (t == v->last_time) return DRAPE_OK;
  for (int k = 0; k < v->n_caps; k++) {
    double a[3], b[3], r;
    drape_sim_get_capsule(v->sim, k, a, b, &r);
    capsule_vertices(a, b, r, v->pos + 4 * (size_t)k * CAP_VERTS);
  }
  for (int k = 0; k < v->n_meshes; k++) {
    int mv, mt;
    drape_sim_collider_mesh(v->sim, k, &mv, &mt, v->xyz, NULL);
    float *p = v->pos + 4 * (size_t)v->mesh_first[k];
    for (int i = 0; i < mv; i++) {
      memcpy(p + 4 * i, v->xyz + 3 * i, 3 * sizeof(float));
      p[4 * i + 3] = 1;
    }
  }
  drape_render_compute_normals(v->pos, v->nv, v->tris, v->nt, v->nrm);
  int rc = drape_render_mesh_upload(v->mesh, v->pos, v->nrm, 0, v->nv, e);
  if (!rc) v->last_time = t;
  return rc;
}

void dr_collider_view_bounds(const dr_collider_view *v, float bmin[3], float bmax[3]) {
  for (int i = 0; i < v->nv; i++)
    for (int q = 0; q < 3; q++) {
      bmin[q] = fminf(bmin[q], v->pos[4 * i + q]);
      bmax[q] = fmaxf(bmax[q], v->pos[4 * i + q]);
    }
}
