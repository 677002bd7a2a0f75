/* Synthetic drape geometry for renderer tests and benchmarks (synth.h). */
#include "render/synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPHERE_Y 0.6f
#define SPHERE_R 0.4f
#define CLOTH_HALF 0.64f
#define CLOTH_Y0 1.2f
#define ROPE_SEGS 40
#define RIBBON_N 24

static int grid_n(const dr_synth *s) { return (int)lroundf(sqrtf((float)s->cloth_vertices)); }

/* Height of the draped sheet over (x, z): resting on the cap of the sphere
 * inside the contact radius, then falling away along the tangent, with
 * radial folds that deepen with the distance from the contact, stopped by
 * the floor. */
static void drape_point(float x, float z, float phase, float out[3]) {
  const float th = 0.01f, r0 = 0.7f * SPHERE_R;
  float r = sqrtf(x * x + z * z), ang = atan2f(z, x);
  float y;
  float cap0 = sqrtf(SPHERE_R * SPHERE_R - r0 * r0);
  if (r <= r0) {
    y = SPHERE_Y + sqrtf(SPHERE_R * SPHERE_R - r * r) + th;
  } else {
    float slope = r0 / cap0;
    y = SPHERE_Y + cap0 + th - (r - r0) * slope;
    y += 0.05f * (r - r0) * sinf(7.0f * ang);
  }
  /* Hanging cloth keeps its length: pull the edge inwards as it falls. */
  float pull = r > r0 ? 0.35f * (r - r0) : 0.0f;
  float k = r > 1e-6f ? (r - pull * phase) / r : 1.0f;
  if (y < th) y = th;
  float flat = CLOTH_Y0;
  out[0] = x * k;
  out[1] = flat + (y - flat) * phase;
  out[2] = z * k;
}

void dr_synth_pose(dr_synth *s, float phase) {
  int n = grid_n(s);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float x = -CLOTH_HALF + 2 * CLOTH_HALF * (float)j / (float)(n - 1);
      float z = -CLOTH_HALF + 2 * CLOTH_HALF * (float)i / (float)(n - 1);
      float *p = s->pos + 4 * (i * n + j);
      drape_point(x, z, phase, p);
      p[3] = 1.0f;
    }
  /* Rope: a sagging curve beside the sphere, swinging with the phase. */
  float *rp = s->pos + 4 * s->cloth_vertices;
  for (int k = 0; k <= ROPE_SEGS; k++) {
    float t = (float)k / ROPE_SEGS;
    float x = -0.9f + 1.8f * t;
    float sag = 0.45f * (1.0f - (2 * t - 1) * (2 * t - 1));
    rp[4 * k + 0] = x;
    rp[4 * k + 1] = 1.55f - sag;
    rp[4 * k + 2] = -0.75f + 0.15f * sinf(3.14159f * t) * phase;
    rp[4 * k + 3] = 1.0f;
  }
  /* Ribbon: a strip twisted by 180 degrees over its height, in front of
   * the sphere, so both of its faces are seen. */
  float *bp = rp + 4 * (ROPE_SEGS + 1);
  for (int k = 0; k < RIBBON_N; k++) {
    float t = (float)k / (float)(RIBBON_N - 1);
    float a = 3.14159f * t + 0.6f * phase;
    for (int side = 0; side < 2; side++) {
      float w = side ? 0.09f : -0.09f;
      float *p = bp + 4 * (2 * k + side);
      p[0] = 0.78f + w * cosf(a);
      p[1] = 0.05f + 0.8f * t;
      p[2] = 0.45f + w * sinf(a);
      p[3] = 1.0f;
    }
  }
  drape_render_compute_normals(s->pos, s->n_vertices, s->tris, s->n_tris, s->nrm);
}

int dr_synth_build(dr_synth *s, int n, float phase, drape_err *e) {
  memset(s, 0, sizeof *s);
  if (n < 2 || n > 4096)
    return drape_fail(e, DRAPE_EINVAL, "synthetic cloth: %d particles per side, expected 2..4096",
                      n);
  s->cloth_vertices = n * n;
  int rope_v = ROPE_SEGS + 1, rib_v = 2 * RIBBON_N;
  s->n_vertices = s->cloth_vertices + rope_v + rib_v;
  int cloth_tris = 2 * (n - 1) * (n - 1), rib_tris = 2 * (RIBBON_N - 1);
  s->n_tris = cloth_tris + rib_tris;
  s->n_lines = ROPE_SEGS;
  s->pos = calloc((size_t)s->n_vertices, 16);
  s->nrm = calloc((size_t)s->n_vertices, 16);
  s->uv = calloc((size_t)s->n_vertices, 8);
  s->tris = malloc(sizeof(uint32_t) * 3 * (size_t)s->n_tris);
  s->lines = malloc(sizeof(uint32_t) * 2 * (size_t)s->n_lines);
  if (!s->pos || !s->nrm || !s->uv || !s->tris || !s->lines) {
    dr_synth_free(s);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (synthetic cloth %dx%d)", n, n);
  }
  uint32_t *t = s->tris;
  /* Counter-clockwise seen from +y, so the normals of the flat sheet point
   * up: the front (orange) side faces the sky. */
  for (int i = 0; i + 1 < n; i++)
    for (int j = 0; j + 1 < n; j++) {
      uint32_t a = (uint32_t)(i * n + j), b = a + 1, c = a + (uint32_t)n, d = c + 1;
      *t++ = a; *t++ = c; *t++ = b;
      *t++ = b; *t++ = c; *t++ = d;
    }
  uint32_t rib0 = (uint32_t)(s->cloth_vertices + rope_v);
  for (int k = 0; k + 1 < RIBBON_N; k++) {
    uint32_t a = rib0 + (uint32_t)(2 * k), b = a + 1, c = a + 2, d = a + 3;
    *t++ = a; *t++ = b; *t++ = d;
    *t++ = a; *t++ = d; *t++ = c;
  }
  for (int k = 0; k < ROPE_SEGS; k++) {
    s->lines[2 * k] = (uint32_t)(s->cloth_vertices + k);
    s->lines[2 * k + 1] = (uint32_t)(s->cloth_vertices + k + 1);
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s->uv[2 * (i * n + j)] = (float)j / (float)(n - 1);
      s->uv[2 * (i * n + j) + 1] = (float)i / (float)(n - 1);
    }
  drape_render_object cloth = {DRAPE_RO_SURFACE, 0, cloth_tris, {0.90f, 0.38f, 0.08f},
                               {0.10f, 0.30f, 0.75f}, 0, 1, 8};
  drape_render_object rope = {DRAPE_RO_TUBE, 0, ROPE_SEGS, {0.55f, 0.08f, 0.06f},
                              {0.55f, 0.08f, 0.06f}, 0.014f, 0, 0};
  drape_render_object ribbon = {DRAPE_RO_SURFACE, cloth_tris, rib_tris, {0.90f, 0.38f, 0.08f},
                                {0.10f, 0.30f, 0.75f}, 0, 0, 0};
  s->objects[0] = cloth;
  s->objects[1] = rope;
  s->objects[2] = ribbon;
  s->n_objects = 3;
  drape_render_sphere sp = {{0, SPHERE_Y, 0}, SPHERE_R * 0.985f, {0.62f, 0.64f, 0.68f}};
  s->sphere = sp;
  s->floor_y = 0;
  float bmin[3] = {-0.95f, 0.0f, -0.8f}, bmax[3] = {0.95f, 1.6f, 0.7f};
  memcpy(s->bmin, bmin, sizeof bmin);
  memcpy(s->bmax, bmax, sizeof bmax);
  dr_synth_pose(s, phase);
  return DRAPE_OK;
}

void dr_synth_free(dr_synth *s) {
  free(s->pos);
  free(s->nrm);
  free(s->uv);
  free(s->tris);
  free(s->lines);
  memset(s, 0, sizeof *s);
}

drape_render_mesh_desc dr_synth_desc(const dr_synth *s) {
  drape_render_mesh_desc d = {s->n_vertices, s->tris,    s->n_tris,  s->lines,
                              s->n_lines,    s->uv,      s->objects, s->n_objects};
  return d;
}

drape_render_scene dr_synth_scene(const dr_synth *s, float aspect) {
  drape_render_scene sc;
  memset(&sc, 0, sizeof sc);
  sc.has_floor = 1;
  sc.floor_y = s->floor_y;
  sc.floor_cell = 0.25f;
  sc.spheres = &s->sphere;
  sc.n_spheres = 1;
  memcpy(sc.bounds_min, s->bmin, sizeof s->bmin);
  memcpy(sc.bounds_max, s->bmax, sizeof s->bmax);
  drape_camera_frame_box(s->bmin, s->bmax, 40.0f, aspect, &sc.camera);
  return sc;
}
