/* Capsules and mesh colliders drawn as grey surfaces: see collider_view.h. */
#include "render/collider_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Capsules drawn with 24 points round and 6 rings per cap
 * (drape_capsule_surface, the OBJ writer's shape at a finer step). */
#define SEG 24
#define CAP 6
#define CAP_VERTS DRAPE_CAPSULE_VERTICES(SEG, CAP)
#define CAP_TRIS DRAPE_CAPSULE_TRIS(SEG, CAP)

struct dr_collider_view {
  drape_sim *sim;
  drape_render_mesh *mesh;
  int n_caps, n_meshes, nv, nt;
  int *mesh_first;              /* first vertex of mesh collider k           */
  float *pos, *nrm, *xyz;       /* float4 per vertex; scratch float3         */
  uint32_t *tris;
  double last_time;             /* time of the uploaded positions            */
};

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
    drape_capsule_surface(NULL, NULL, 0, SEG, CAP, NULL, 0, v->tris + 3 * t, (uint32_t)(k * CAP_VERTS));
    t += CAP_TRIS;
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
    float *p = v->pos + 4 * (size_t)k * CAP_VERTS;
    drape_capsule_surface(a, b, r, SEG, CAP, p, 4, NULL, 0);
    for (int i = 0; i < CAP_VERTS; i++) p[4 * i + 3] = 1;
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
