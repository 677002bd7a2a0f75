/* drape_world_view (drape/world_view.h): a world's render meshes.
 *
 * Two meshes: the sim's particles as they are on the device (cloth
 * triangles and rope links; float4 positions and normals, so interop can
 * copy the solver's buffers straight into them), and one line mesh for the
 * objects stepped on the host (implicit cables, then seed 000 strings),
 * filled from drape_world_read_points. */
#include "drape/world_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drape/interop.h"
#include "render/collider_view.h"

static const float SPHERE_RGB[3] = {0.50f, 0.52f, 0.56f}; /* neutral grey colliders */

typedef struct line_obj {
  int object;       /* world object index */
  int first, nodes; /* vertices in the line mesh */
} line_obj;

struct drape_world_view {
  drape_renderer *r;
  drape_world *w;
  drape_sim *sim;               /* NULL: no cloth or rope */
  drape_render_def look;        /* colours and camera (a copy, owned) */
  /* the sim's mesh */
  drape_render_mesh *mesh;
  drape_interop *ip;
  int n_particles, n_tris, tearing;
  float *host_pos, *host_nrm;
  uint32_t *tris;
  drape_render_object *objects;
  int n_objects;
  /* cables and strings */
  drape_render_mesh *lmesh;
  line_obj *lobj;
  int n_lobj, l_vertices;
  float *lpos, *xyz;            /* float4 per vertex; scratch float3 */
  /* what else is drawn */
  float bmin[3], bmax[3];
  struct dr_collider_view *cv;  /* capsules and mesh colliders, or NULL */
  int has_floor;
  float floor_y;
  double ms;
};

static void grow(float bmin[3], float bmax[3], const float p[3], float pad) {
  for (int k = 0; k < 3; k++) {
    if (p[k] - pad < bmin[k]) bmin[k] = p[k] - pad;
    if (p[k] + pad > bmax[k]) bmax[k] = p[k] + pad;
  }
}

void drape_world_view_color(const drape_world_view *v, const drape_world_object *o,
                            float front[3], float back[3]) {
  const drape_look_kind k = o->kind == DRAPE_WORLD_CLOTH    ? DRAPE_LOOK_CLOTH
                            : o->kind == DRAPE_WORLD_STRING ? DRAPE_LOOK_STRING
                                                            : DRAPE_LOOK_ROPE;
  drape_render_def_color(&v->look, k, o->scene_index, front, back);
}

/* A mesh cloth's check: uv in metres on the plane of the two longest
 * sides of its starting bounding box (the mesh's own UVs are for the
 * user's textures, in units the renderer cannot know). */
static void mesh_uv(const float *x4, const drape_object_info *oi, float *uv) {
  float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
  for (int i = oi->first_particle; i < oi->first_particle + oi->n_particles; i++)
    for (int q = 0; q < 3; q++) {
      lo[q] = fminf(lo[q], x4[4 * i + q]);
      hi[q] = fmaxf(hi[q], x4[4 * i + q]);
    }
  int thin = 0; /* the axis the box is thinnest along is dropped */
  for (int q = 1; q < 3; q++)
    if (hi[q] - lo[q] < hi[thin] - lo[thin]) thin = q;
  const int a = thin == 0 ? 1 : 0, b = thin == 2 ? 1 : 2;
  for (int i = oi->first_particle; i < oi->first_particle + oi->n_particles; i++) {
    uv[2 * i] = x4[4 * i + a] - lo[a];
    uv[2 * i + 1] = x4[4 * i + b] - lo[b];
  }
}

/* Cloths as two-sided surfaces with a woven check of 10 cm squares (uv in
 * metres along the grid, from the spacing of the first two particles of
 * the first row); ropes as tubes as thick as their collision margin. */
static int build_sim_mesh(drape_world_view *v, const drape_world_view_def *d, drape_err *e) {
  const drape_mesh *m = drape_sim_mesh(v->sim);
  v->n_particles = m->n_particles;
  v->n_tris = m->n_tris;
  v->n_objects = m->n_objects;
  size_t np = (size_t)m->n_particles;
  v->host_pos = malloc(np * 16);
  v->host_nrm = malloc(np * 16);
  v->objects = calloc((size_t)m->n_objects, sizeof *v->objects);
  float *uv = calloc(np, 8);
  if (v->tearing) v->tris = malloc(sizeof(uint32_t) * 3 * ((size_t)m->n_tris + 1));
  if (!v->host_pos || !v->host_nrm || !v->objects || !uv || (v->tearing && !v->tris)) {
    free(uv);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (render mesh, %d particles)",
                      m->n_particles);
  }
  int rc = drape_sim_read_positions(v->sim, v->host_pos, e);
  for (int i = 0; !rc && i < m->n_objects; i++) {
    const drape_object_info *oi = &m->objects[i];
    drape_render_object *ro = &v->objects[i];
    drape_world_object o;
    if ((rc = drape_world_get_object(v->w, i, &o, e))) break;
    drape_world_view_color(v, &o, ro->color_front, ro->color_back);
    if (oi->kind == DRAPE_OBJ_CLOTH) {
      ro->kind = DRAPE_RO_SURFACE;
      ro->first = oi->first_tri;
      ro->count = oi->n_tris;
      ro->checker = 1;
      ro->checker_cells = 10.0f;
      float sp = 0.0f;
      if (oi->cols >= 2) {
        const float *a = v->host_pos + 4 * oi->first_particle, *b = a + 4;
        sp = sqrtf((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                   (b[2] - a[2]) * (b[2] - a[2]));
      }
      for (int r = 0; r < oi->rows; r++)
        for (int c = 0; c < oi->cols; c++) {
          int p = oi->first_particle + r * oi->cols + c;
          uv[2 * p] = (float)c * sp;
          uv[2 * p + 1] = (float)r * sp;
        }
      if (oi->cols == 0) mesh_uv(v->host_pos, oi, uv); /* a mesh cloth: no grid */
    } else {
      ro->kind = DRAPE_RO_TUBE;
      ro->first = oi->first_line;
      ro->count = oi->n_lines;
      /* Drawn as thick as the collision margin, never hair-thin. */
      ro->radius = (float)fmax(oi->thickness, 0.006);
    }
  }
  drape_render_mesh_desc md = {m->n_particles, m->tris, m->n_tris, m->lines, m->n_lines,
                               uv, v->objects, v->n_objects};
  if (!rc) rc = drape_render_mesh_create(v->r, &md, &v->mesh, e);
  free(uv);
  if (rc) return rc;
  struct drape_cl *cl = drape_sim_cl(v->sim);
  if (cl) rc = drape_interop_create(cl, d->cl_shares_gl, v->mesh, d->force_transfer, &v->ip, e);
  return rc;
}

/* Cables and strings as tubes of one mesh. */
static int build_line_mesh(drape_world_view *v, drape_err *e) {
  const int n = drape_world_object_count(v->w);
  v->lobj = calloc((size_t)n + 1, sizeof *v->lobj);
  if (!v->lobj) return drape_fail(e, DRAPE_ENOMEM, "out of memory (render mesh)");
  int nv = 0, nl = 0;
  for (int k = 0; k < n; k++) {
    drape_world_object o;
    drape_world_get_object(v->w, k, &o, NULL);
    if (o.kind != DRAPE_WORLD_CABLE && o.kind != DRAPE_WORLD_STRING) continue;
    v->lobj[v->n_lobj++] = (line_obj){k, nv, o.n_points};
    nv += o.n_points;
    nl += o.n_links;
  }
  v->l_vertices = nv;
  if (nv == 0) return DRAPE_OK;
  v->lpos = calloc((size_t)nv, 16);
  v->xyz = malloc(sizeof(float) * 3 * (size_t)nv);
  uint32_t *lines = malloc(sizeof(uint32_t) * 2 * (size_t)nl);
  drape_render_object *objs = calloc((size_t)v->n_lobj, sizeof *objs);
  int rc = DRAPE_OK;
  if (!v->lpos || !v->xyz || !lines || !objs) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory (render mesh)");
    goto done;
  }
  for (int i = 0, l = 0; i < v->n_lobj; i++) {
    const line_obj *lo = &v->lobj[i];
    drape_world_object o;
    drape_world_get_object(v->w, lo->object, &o, NULL);
    drape_render_object *ro = &objs[i];
    ro->kind = DRAPE_RO_TUBE;
    ro->first = l;
    ro->count = o.n_links;
    drape_world_view_color(v, &o, ro->color_front, ro->color_back);
    if (o.kind == DRAPE_WORLD_STRING) {
      /* ~1 % of the length: visible from where the whole string fits. */
      const drape_string_def *sd = drape_world_string_def(v->w, o.scene_index);
      ro->radius = (float)fmax(0.004, 0.004 * sd->length);
    } else {
      ro->radius = (float)fmax(0.004, o.thickness);
    }
    for (int j = 0; j < o.n_links; j++, l++) {
      lines[2 * l] = (uint32_t)(lo->first + j);
      lines[2 * l + 1] = (uint32_t)(lo->first + j + 1);
    }
  }
  drape_render_mesh_desc md = {nv, NULL, 0, lines, nl, NULL, objs, v->n_lobj};
  rc = drape_render_mesh_create(v->r, &md, &v->lmesh, e);
done:
  free(lines);
  free(objs);
  return rc;
}

static int read_lines(drape_world_view *v, drape_err *e) {
  for (int i = 0; i < v->n_lobj; i++) {
    const line_obj *lo = &v->lobj[i];
    int rc = drape_world_read_points(v->w, lo->object, v->xyz, e);
    if (rc) return rc;
    for (int j = 0; j < lo->nodes; j++) {
      float *p = v->lpos + 4 * (lo->first + j);
      memcpy(p, v->xyz + 3 * j, 3 * sizeof(float));
      p[3] = 1;
    }
  }
  return DRAPE_OK;
}

/* The region of the action: the particles and cables now, the spheres,
 * each string's reach (seed 000 §7.15: the hand moves the end up to 1.15 L
 * from the anchor), down to the floor. */
static void bounds(drape_world_view *v) {
  float *bmin = v->bmin, *bmax = v->bmax;
  for (int k = 0; k < 3; k++) bmin[k] = 1e30f, bmax[k] = -1e30f;
  for (int i = 0; i < v->n_particles; i++) grow(bmin, bmax, v->host_pos + 4 * i, 0);
  drape_sim *sim = drape_world_sim(v->w);
  for (int k = 0; k < drape_sim_n_spheres(sim); k++) {
    drape_sphere_def sd;
    drape_sim_get_sphere(sim, k, &sd);
    float c[3] = {(float)sd.center[0], (float)sd.center[1], (float)sd.center[2]};
    grow(bmin, bmax, c, (float)sd.radius);
  }
  for (int i = 0; i < v->n_lobj; i++) {
    drape_world_object o;
    drape_world_get_object(v->w, v->lobj[i].object, &o, NULL);
    if (o.kind == DRAPE_WORLD_STRING) {
      const drape_string_def *d = drape_world_string_def(v->w, o.scene_index);
      float reach = (float)(1.15 * d->length);
      float lo[3] = {(float)d->anchor[0] - reach, (float)d->anchor[1] - reach, (float)d->z};
      float hi[3] = {(float)d->anchor[0] + reach, (float)d->anchor[1] + 0.3f, (float)d->z};
      grow(bmin, bmax, lo, 0);
      grow(bmin, bmax, hi, 0);
    } else {
      for (int j = 0; j < v->lobj[i].nodes; j++)
        grow(bmin, bmax, v->lpos + 4 * (v->lobj[i].first + j), 0);
    }
  }
  if (v->cv) dr_collider_view_bounds(v->cv, bmin, bmax);
  if (bmin[0] > bmax[0]) /* nothing at all: a unit box */
    for (int k = 0; k < 3; k++) bmin[k] = -0.5f, bmax[k] = 0.5f;
  if (v->has_floor) {
    if (v->floor_y < bmin[1]) bmin[1] = v->floor_y;
    if (bmax[1] < v->floor_y + 0.1f) bmax[1] = v->floor_y + 0.1f;
  }
}

int drape_world_view_create(drape_renderer *r, drape_world *w, const drape_world_view_def *d,
                            drape_world_view **out, drape_err *e) {
  *out = NULL;
  const drape_world_view_def zero = {0};
  if (!d) d = &zero;
  drape_world_view *v = calloc(1, sizeof *v);
  if (!v) return drape_fail(e, DRAPE_ENOMEM, "out of memory (world view)");
  v->r = r;
  v->w = w;
  v->look = drape_render_def_default();
  int rc = d->look ? drape_render_def_copy(&v->look, d->look, e) : DRAPE_OK;
  if (rc) {
    free(v);
    return rc;
  }
  double fy = 0;
  v->has_floor = drape_world_floor(w, &fy);
  v->floor_y = (float)fy;
  drape_sim *sim = drape_world_sim(w);
  v->sim = drape_sim_mesh(sim)->n_particles > 0 ? sim : NULL;
  for (int k = 0; k < drape_world_object_count(w); k++) {
    drape_world_object o;
    drape_world_get_object(w, k, &o, NULL);
    v->tearing |= o.tears;
  }
  rc = v->sim ? build_sim_mesh(v, d, e) : DRAPE_OK;
  if (!rc) rc = build_line_mesh(v, e);
  if (!rc) rc = read_lines(v, e);
  if (!rc) rc = dr_collider_view_create(r, sim, SPHERE_RGB, &v->cv, e); /* collider_view.c */
  if (!rc) bounds(v);
  if (!rc) rc = drape_world_view_update(v, e);
  if (rc) {
    drape_world_view_destroy(v);
    return rc;
  }
  *out = v;
  return DRAPE_OK;
}

void drape_world_view_destroy(drape_world_view *v) {
  if (!v) return;
  drape_interop_destroy(v->ip);
  drape_render_mesh_destroy(v->mesh);
  drape_render_mesh_destroy(v->lmesh);
  dr_collider_view_destroy(v->cv);
  free(v->host_pos);
  free(v->host_nrm);
  free(v->tris);
  free(v->objects);
  free(v->lobj);
  free(v->lpos);
  free(v->xyz);
  drape_render_def_free(&v->look);
  free(v);
}

int drape_world_view_update(drape_world_view *v, drape_err *e) {
  const double t0 = drape_now();
  int rc = DRAPE_OK;
  if (v->ip) {
    drape_sim_buffers b;
    if (drape_sim_cl_buffers(v->sim, &b))
      return drape_fail(e, DRAPE_ECL, "world view: the solver has no OpenCL buffers");
    rc = drape_interop_update(v->ip, b.positions, b.normals, e);
  } else if (v->sim) {
    if (!(rc = drape_sim_read_positions(v->sim, v->host_pos, e)) &&
        !(rc = drape_sim_read_normals(v->sim, v->host_nrm, e)))
      rc = drape_render_mesh_upload(v->mesh, v->host_pos, v->host_nrm, 0, v->n_particles, e);
  }
  if (!rc && v->tearing) {
    /* Torn triangles come back degenerate (i0 i0 i0) and draw nothing. */
    const drape_mesh *m = drape_sim_mesh(v->sim);
    drape_render_mesh_desc d = {v->n_particles, v->tris, v->n_tris, m->lines, m->n_lines,
                                NULL, v->objects, v->n_objects};
    if (!(rc = drape_sim_read_triangles(v->sim, v->tris, e)))
      rc = drape_render_mesh_set_topology(v->mesh, &d, e);
  }
  if (!rc && v->lmesh && !(rc = read_lines(v, e)))
    rc = drape_render_mesh_upload(v->lmesh, v->lpos, NULL, 0, v->l_vertices, e);
  if (!rc && v->cv) rc = dr_collider_view_update(v->cv, e); /* moving colliders */
  v->ms = (drape_now() - t0) * 1e3;
  return rc;
}

void drape_world_view_camera(const drape_world_view *v, float aspect, drape_render_camera *out) {
  const drape_camera_def *c = &v->look.camera;
  float fov = c->fov_deg > 0 ? (float)c->fov_deg : 45.0f;
  drape_camera_frame_box(v->bmin, v->bmax, fov, aspect, out);
  for (int k = 0; k < 3; k++) {
    if (c->has_target) out->target[k] = (float)c->target[k];
    if (c->has_eye) out->eye[k] = (float)c->eye[k];
  }
}

int drape_world_view_scene(drape_world_view *v, float aspect, drape_render_sphere *spheres,
                           int cap, drape_render_scene *s) {
  memset(s, 0, sizeof *s);
  memcpy(s->bounds_min, v->bmin, sizeof v->bmin);
  memcpy(s->bounds_max, v->bmax, sizeof v->bmax);
  s->has_floor = v->has_floor;
  s->floor_y = v->floor_y;
  float extent = fmaxf(v->bmax[0] - v->bmin[0], v->bmax[2] - v->bmin[2]);
  s->floor_cell = extent > 8 ? 1.0f : extent > 3 ? 0.5f : 0.25f;
  drape_world_view_camera(v, aspect, &s->camera);
  /* Spheres can move (scripted velocity, a viewer's drag): read each time. */
  drape_sim *sim = drape_world_sim(v->w);
  int ns = 0;
  for (int k = 0; k < drape_sim_n_spheres(sim) && ns < cap; k++) {
    drape_sphere_def sd;
    if (drape_sim_get_sphere(sim, k, &sd)) continue;
    drape_render_sphere *p = &spheres[ns++];
    for (int q = 0; q < 3; q++) p->center[q] = (float)sd.center[q];
    p->radius = (float)sd.radius;
    memcpy(p->color, SPHERE_RGB, sizeof p->color);
  }
  s->spheres = spheres;
  s->n_spheres = ns;
  return ns;
}

const char *drape_world_view_transfer(const drape_world_view *v) {
  if (v->ip) return drape_xfer_path_name(drape_interop_path(v->ip));
  return v->sim ? "host" : "none";
}

double drape_world_view_transfer_ms(const drape_world_view *v) { return v->ms; }
