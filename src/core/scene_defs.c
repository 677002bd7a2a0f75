/* Defaults for the scene definitions (include/drape/scene.h), the object
 * lists and the solvers' names. JSON parsing lives in scene.c, validation
 * in validate.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collider_defs.h"
#include "drape/render_def.h"
#include "drape/scene.h"
#include "drape/string.h"

const char *drape_solver_name(drape_solver_kind k) {
  switch (k) {
    case DRAPE_SOLVER_XPBD: return "xpbd";
    case DRAPE_SOLVER_JAKOBSEN: return "jakobsen";
    case DRAPE_SOLVER_SPRINGS: return "springs";
    case DRAPE_SOLVER_IMPLICIT: return "implicit";
  }
  return "?";
}

drape_cloth_def drape_cloth_def_default(void) {
  drape_cloth_def d;
  memset(&d, 0, sizeof d);
  d.cols = 32;
  d.rows = 32;
  d.spacing = 0.02;
  d.plane = DRAPE_PLANE_XZ;
  d.mass_per_area = 0.2;
  d.compliance_stretch = 0.0;
  d.compliance_shear = 1e-6;
  d.compliance_bend = 1e-3;
  d.damping = 0.01;
  d.thickness = 0.01;
  d.self_friction = 0.2;
  d.self_mode = DRAPE_SELF_VERTEX_TRIANGLE;
  d.tethers = 1;
  d.solver = DRAPE_SOLVER_XPBD;
  d.stiffness = 5000.0; /* seed 001's default spring stiffness */
  d.spring_damping = 10.0; /* seed 001's default damping */
  d.mesh.scale = 1.0;
  d.mesh.weld = 1e-6;
  return d;
}

drape_stitch_def drape_stitch_def_default(void) {
  drape_stitch_def d;
  memset(&d, 0, sizeof d);
  d.close_time = 0.5;
  return d;
}

drape_rope_def drape_rope_def_default(void) {
  drape_rope_def d;
  memset(&d, 0, sizeof d);
  d.segments = 40;
  d.start[0] = -1.0; d.start[1] = 2.0;
  d.end[0] = 1.0; d.end[1] = 2.0;
  d.length = 2.0;
  d.mass_per_length = 0.1;
  d.damping = 0.01;
  d.thickness = 0.01;
  d.pin_start = 1;
  d.start_shape = DRAPE_ROPE_START_AUTO;
  d.tension_only = 1; /* chains and cords push nothing (seed 000's string too) */
  d.solver = DRAPE_SOLVER_XPBD;
  d.ym = 40.0; /* seed 003's cable */
  return d;
}

drape_string_def drape_string_def_default(void) {
  /* The material, tick and anchor come from the string solver's own
   * defaults (seed 000 §7.16/§7.17), so the two cannot drift apart. */
  const drape_string_params p = drape_string_params_default();
  drape_string_def d;
  memset(&d, 0, sizeof d);
  d.nodes = p.links;
  d.length = p.length;
  d.mu = p.mu;
  d.EA = p.EA;
  d.etaA = p.etaA;
  d.B = p.B;
  d.D = p.D;
  d.h = p.h;
  d.anchor[0] = p.anchor[0];
  d.anchor[1] = p.anchor[1];
  d.release_at = -1.0;
  return d;
}

drape_sphere_def drape_sphere_def_default(void) {
  drape_sphere_def d;
  memset(&d, 0, sizeof d);
  d.center[1] = 0.5;
  d.radius = 0.4;
  d.friction = 0.3;
  return d;
}

void drape_scene_init(drape_scene *s) {
  memset(s, 0, sizeof *s);
  s->gravity[1] = -9.81;
  s->dt = 1.0 / 60.0;
  s->substeps = 20;
  s->multilevel = 1;
  s->iterations = 1;
  s->wind_drag = 1.2;
  s->floor_friction = 0.5;
}

drape_render_def drape_render_def_default(void) {
  drape_render_def d;
  memset(&d, 0, sizeof d);
  d.camera.fov_deg = 45.0;
  d.width = 1280;
  d.height = 720;
  return d;
}

#define GROW(arr, n, T)                                                 \
  do {                                                                  \
    T *grown_ = realloc((arr), (size_t)((n) + 1) * sizeof(T));          \
    if (!grown_) return NULL;                                           \
    (arr) = grown_;                                                     \
  } while (0)

drape_cloth_def *drape_scene_add_cloth(drape_scene *s, const drape_cloth_def *d) {
  GROW(s->cloth, s->n_cloth, drape_cloth_def);
  drape_cloth_def *c = &s->cloth[s->n_cloth++];
  *c = *d;
  if (!c->name[0]) snprintf(c->name, sizeof c->name, "cloth%d", s->n_cloth - 1);
  return c;
}

drape_rope_def *drape_scene_add_rope(drape_scene *s, const drape_rope_def *d) {
  GROW(s->rope, s->n_rope, drape_rope_def);
  drape_rope_def *r = &s->rope[s->n_rope++];
  *r = *d;
  if (!r->name[0]) snprintf(r->name, sizeof r->name, "rope%d", s->n_rope - 1);
  return r;
}

drape_string_def *drape_scene_add_string(drape_scene *s, const drape_string_def *d) {
  GROW(s->string, s->n_string, drape_string_def);
  drape_string_def *r = &s->string[s->n_string++];
  *r = *d;
  if (!r->name[0]) snprintf(r->name, sizeof r->name, "string%d", s->n_string - 1);
  return r;
}

drape_sphere_def *drape_scene_add_sphere(drape_scene *s, const drape_sphere_def *d) {
  GROW(s->sphere, s->n_sphere, drape_sphere_def);
  s->sphere[s->n_sphere] = *d;
  return &s->sphere[s->n_sphere++];
}

drape_stitch_def *drape_scene_add_stitch(drape_scene *s, const drape_stitch_def *d) {
  GROW(s->stitch, s->n_stitch, drape_stitch_def);
  s->stitch[s->n_stitch] = *d;
  return &s->stitch[s->n_stitch++];
}

void drape_cloth_def_free(drape_cloth_def *d) {
  if (!d) return;
  free(d->pins);
  for (int k = 0; k < d->n_pin_paths; k++) free(d->pin_paths[k].keys);
  free(d->pin_paths);
  free(d->mesh.file);
  free(d->mesh.vertices);
  free(d->mesh.uv);
  free(d->mesh.tris);
  free(d->mesh.tri_uv);
  free(d->pin_vertices);
  d->pins = NULL, d->n_pins = 0;
  d->pin_paths = NULL, d->n_pin_paths = 0;
  d->mesh.file = NULL;
  d->mesh.vertices = NULL, d->mesh.n_vertices = 0;
  d->mesh.uv = NULL;
  d->mesh.tris = NULL, d->mesh.n_tris = 0;
  d->mesh.tri_uv = NULL;
  d->pin_vertices = NULL, d->n_pin_vertices = 0;
}

void drape_scene_free(drape_scene *s) {
  if (!s) return;
  for (int i = 0; i < s->n_cloth; i++) drape_cloth_def_free(&s->cloth[i]);
  for (int i = 0; i < s->n_stitch; i++) {
    free(s->stitch[i].a_vertices);
    free(s->stitch[i].b_vertices);
  }
  free(s->stitch);
  for (int i = 0; i < s->n_string; i++) free(s->string[i].hand);
  for (int i = 0; i < s->n_rope; i++) free(s->rope[i].points);
  free(s->cloth);
  free(s->rope);
  free(s->string);
  free(s->sphere);
  dr_collider_scene_free(s);
  memset(s, 0, sizeof *s);
}
