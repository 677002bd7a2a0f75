/* The renderer shared by the viewer and the headless capture (render.h).
 *
 * One frame:
 *
 *   shadow pass   light's orthographic view of the scene bounds -> depth map
 *                 (cloth, tubes, spheres; polygon offset against acne)
 *   main pass     sky (full-screen triangle) ▸ floor (filtered checker)
 *                 ▸ spheres ▸ cloth surfaces (two-sided) ▸ tubes (capsules)
 *
 * Vertex data never goes through the CPU here: surfaces read the mesh's
 * float4 position and normal buffers as vertex attributes, tubes read the
 * same position buffer through a buffer texture, so whatever filled those
 * buffers (glBufferSubData from host memory, or OpenCL through
 * cl_khr_gl_sharing) is drawn as is. */
#include <stdlib.h>
#include <string.h>

#include "render/gl_util.h"
#include "render/render_internal.h"
#include "render/shaders.h"

struct drape_render_mesh {
  drape_renderer *r;
  int n_vertices, n_tris, n_lines, has_uv;
  GLuint pos_buf, nrm_buf, uv_buf, tri_buf, line_buf;
  GLuint vao_surface, vao_tube, pos_tex;
  drape_render_object *objects;
  int n_objects;
};

#define MAX_MESHES 32
#define CAPSULE_SLICES 14
#define CAPSULE_CAP_RINGS 4
#define SPHERE_SLICES 64
#define SPHERE_STACKS 32

struct drape_renderer {
  drape_render_opts opts;
  GLuint prog_surface, prog_tube, prog_sphere;       /* lit               */
  GLuint prog_surface_d, prog_tube_d, prog_sphere_d; /* shadow pass       */
  GLuint prog_floor, prog_sky, prog_text;
  GLuint vao_empty;
  GLuint capsule_vbo, capsule_ibo;
  int capsule_indices;
  GLuint sphere_vao, sphere_vbo, sphere_ibo;
  int sphere_indices;
  GLuint shadow_fbo, shadow_tex;
  drape_render_mesh *meshes[MAX_MESHES];
  int n_meshes;
  dr_text_batch text;
};

drape_render_opts drape_render_opts_default(void) {
  drape_render_opts o = {1, 0};
  return o;
}

/* ---- static meshes ---- */

/* Capsule rings: a hemisphere around end a (latitude -90..0 degrees), then
 * one around end b (0..90); the quad strip between the two equators is the
 * cylinder. Each vertex is (unit offset xyz in the segment frame, end). */
static int build_capsule(drape_renderer *r, drape_err *e) {
  const int S = CAPSULE_SLICES, C = CAPSULE_CAP_RINGS, rings = 2 * (C + 1);
  float *v = malloc(sizeof(float) * 4 * (size_t)(S * rings));
  uint16_t *ix = malloc(sizeof(uint16_t) * 6 * (size_t)(S * (rings - 1)));
  if (!v || !ix) {
    free(v);
    free(ix);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (tube mesh)");
  }
  int nv = 0, ni = 0;
  for (int ring = 0; ring < rings; ring++) {
    int end = ring > C;
    int j = end ? ring - (C + 1) : ring;
    float phi = (float)DR_PI * 0.5f * ((float)j / (float)C - (end ? 0.0f : 1.0f));
    for (int k = 0; k < S; k++) {
      float th = 2.0f * (float)DR_PI * (float)k / (float)S;
      v[nv * 4 + 0] = cosf(phi) * cosf(th);
      v[nv * 4 + 1] = cosf(phi) * sinf(th);
      v[nv * 4 + 2] = sinf(phi);
      v[nv * 4 + 3] = (float)end;
      nv++;
    }
  }
  for (int ring = 0; ring + 1 < rings; ring++)
    for (int k = 0; k < S; k++) {
      uint16_t a = (uint16_t)(ring * S + k), b = (uint16_t)(ring * S + (k + 1) % S);
      uint16_t c = (uint16_t)(a + S), d = (uint16_t)(b + S);
      ix[ni++] = a; ix[ni++] = b; ix[ni++] = d;
      ix[ni++] = a; ix[ni++] = d; ix[ni++] = c;
    }
  r->capsule_indices = ni;
  glGenBuffers(1, &r->capsule_vbo);
  glBindBuffer(GL_ARRAY_BUFFER, r->capsule_vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 4 * (size_t)nv), v, GL_STATIC_DRAW);
  glGenBuffers(1, &r->capsule_ibo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->capsule_ibo);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(sizeof(uint16_t) * (size_t)ni), ix,
               GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
  free(v);
  free(ix);
  return drape_gl_check(e, "creating the tube mesh");
}

static int build_sphere(drape_renderer *r, drape_err *e) {
  const int S = SPHERE_SLICES, T = SPHERE_STACKS;
  int nv = (S + 1) * (T + 1);
  float *v = malloc(sizeof(float) * 3 * (size_t)nv);
  uint32_t *ix = malloc(sizeof(uint32_t) * 6 * (size_t)(S * T));
  if (!v || !ix) {
    free(v);
    free(ix);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (sphere mesh)");
  }
  int k = 0, ni = 0;
  for (int t = 0; t <= T; t++) {
    float phi = (float)DR_PI * (float)t / (float)T;
    for (int s = 0; s <= S; s++) {
      float th = 2.0f * (float)DR_PI * (float)s / (float)S;
      v[k++] = sinf(phi) * cosf(th);
      v[k++] = cosf(phi);
      v[k++] = sinf(phi) * sinf(th);
    }
  }
  for (int t = 0; t < T; t++)
    for (int s = 0; s < S; s++) {
      uint32_t a = (uint32_t)(t * (S + 1) + s), b = a + 1, c = a + (uint32_t)(S + 1), d = c + 1;
      ix[ni++] = a; ix[ni++] = c; ix[ni++] = b;
      ix[ni++] = b; ix[ni++] = c; ix[ni++] = d;
    }
  r->sphere_indices = ni;
  glGenVertexArrays(1, &r->sphere_vao);
  glBindVertexArray(r->sphere_vao);
  glGenBuffers(1, &r->sphere_vbo);
  glBindBuffer(GL_ARRAY_BUFFER, r->sphere_vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 3 * (size_t)nv), v, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 12, (void *)0);
  glGenBuffers(1, &r->sphere_ibo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->sphere_ibo);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(sizeof(uint32_t) * (size_t)ni), ix,
               GL_STATIC_DRAW);
  glBindVertexArray(0);
  free(v);
  free(ix);
  return drape_gl_check(e, "creating the sphere mesh");
}

static int build_shadow_map(drape_renderer *r, drape_err *e) {
  int n = r->opts.shadow_size;
  glGenTextures(1, &r->shadow_tex);
  glBindTexture(GL_TEXTURE_2D, r->shadow_tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, n, n, 0, GL_DEPTH_COMPONENT,
               GL_UNSIGNED_INT, NULL);
  /* Hardware depth comparison with linear filtering = 2x2 PCF per tap. */
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
  glBindTexture(GL_TEXTURE_2D, 0);
  if (drape_gl_check(e, "creating the shadow map texture")) return DRAPE_EGL;
  GLint prev = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev);
  glGenFramebuffers(1, &r->shadow_fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, r->shadow_tex, 0);
  glDrawBuffer(GL_NONE);
  glReadBuffer(GL_NONE);
  GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)prev);
  if (drape_gl_check(e, "creating the shadow framebuffer")) return DRAPE_EGL;
  if (st != GL_FRAMEBUFFER_COMPLETE)
    return drape_fail(e, DRAPE_EGL, "shadow framebuffer incomplete (status 0x%x)", st);
  return DRAPE_OK;
}

int drape_renderer_create(const drape_render_opts *o, drape_renderer **out, drape_err *e) {
  *out = NULL;
  drape_renderer *r = calloc(1, sizeof *r);
  if (!r) return drape_fail(e, DRAPE_ENOMEM, "out of memory (renderer)");
  r->opts = o ? *o : drape_render_opts_default();
  if (r->opts.shadow_size <= 0) {
    /* Software rasterisers pay per texel for clearing and drawing the map;
     * with the soft filter 1024 looks the same at video sizes. */
    const char *name = (const char *)glGetString(GL_RENDERER);
    int soft = name && (strstr(name, "llvmpipe") || strstr(name, "softpipe"));
    r->opts.shadow_size = soft ? 1024 : 2048;
  }
  if (r->opts.shadow_size > 8192) r->opts.shadow_size = 8192;
  glGetError(); /* clear any error left by the context's creator */
  int rc;
  if ((rc = dr_gl_program("surface", dr_glsl_surface_vs, dr_glsl_lit_fs,
                             &r->prog_surface, e)) ||
      (rc = dr_gl_program("tube", dr_glsl_tube_vs, dr_glsl_lit_fs, &r->prog_tube, e)) ||
      (rc = dr_gl_program("sphere", dr_glsl_sphere_vs, dr_glsl_lit_fs, &r->prog_sphere,
                             e)) ||
      (rc = dr_gl_program("surface shadow", dr_glsl_surface_vs, dr_glsl_depth_fs,
                             &r->prog_surface_d, e)) ||
      (rc = dr_gl_program("tube shadow", dr_glsl_tube_vs, dr_glsl_depth_fs,
                             &r->prog_tube_d, e)) ||
      (rc = dr_gl_program("sphere shadow", dr_glsl_sphere_vs, dr_glsl_depth_fs,
                             &r->prog_sphere_d, e)) ||
      (rc = dr_gl_program("floor", dr_glsl_floor_vs, dr_glsl_floor_fs, &r->prog_floor,
                             e)) ||
      (rc = dr_gl_program("sky", dr_glsl_sky_vs, dr_glsl_sky_fs, &r->prog_sky, e)) ||
      (rc = dr_gl_program("text", dr_glsl_text_vs, dr_glsl_text_fs, &r->prog_text, e)) ||
      (rc = build_capsule(r, e)) || (rc = build_sphere(r, e)) ||
      (r->opts.shadows && (rc = build_shadow_map(r, e))) ||
      (rc = dr_text_init(&r->text, e))) {
    drape_renderer_destroy(r);
    return rc;
  }
  glGenVertexArrays(1, &r->vao_empty);
  if ((rc = drape_gl_check(e, "glGenVertexArrays"))) {
    drape_renderer_destroy(r);
    return rc;
  }
  *out = r;
  return DRAPE_OK;
}

void drape_renderer_destroy(drape_renderer *r) {
  if (!r) return;
  while (r->n_meshes > 0) drape_render_mesh_destroy(r->meshes[r->n_meshes - 1]);
  GLuint progs[] = {r->prog_surface, r->prog_tube, r->prog_sphere, r->prog_surface_d,
                    r->prog_tube_d, r->prog_sphere_d, r->prog_floor, r->prog_sky, r->prog_text};
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
    if (progs[i]) glDeleteProgram(progs[i]);
  GLuint bufs[] = {r->capsule_vbo, r->capsule_ibo, r->sphere_vbo, r->sphere_ibo};
  glDeleteBuffers(4, bufs);
  GLuint vaos[] = {r->vao_empty, r->sphere_vao};
  glDeleteVertexArrays(2, vaos);
  if (r->shadow_fbo) glDeleteFramebuffers(1, &r->shadow_fbo);
  if (r->shadow_tex) glDeleteTextures(1, &r->shadow_tex);
  dr_text_free(&r->text);
  glGetError(); /* tear-down: nothing useful to report */
  free(r);
}

/* ---- meshes ---- */

static int check_desc(const drape_render_mesh_desc *d, drape_err *e) {
  if (d->n_vertices <= 0)
    return drape_fail(e, DRAPE_EINVAL, "render mesh: n_vertices = %d, expected > 0",
                      d->n_vertices);
  if (d->n_tris < 0 || d->n_lines < 0 || (d->n_tris > 0 && !d->tris) ||
      (d->n_lines > 0 && !d->lines))
    return drape_fail(e, DRAPE_EINVAL, "render mesh: %d triangles, %d lines without index data",
                      d->n_tris, d->n_lines);
  for (int i = 0; i < 3 * d->n_tris; i++)
    if (d->tris[i] >= (uint32_t)d->n_vertices)
      return drape_fail(e, DRAPE_EINVAL,
                        "render mesh: triangle %d uses vertex %u, expected < %d vertices", i / 3,
                        d->tris[i], d->n_vertices);
  for (int i = 0; i < 2 * d->n_lines; i++)
    if (d->lines[i] >= (uint32_t)d->n_vertices)
      return drape_fail(e, DRAPE_EINVAL,
                        "render mesh: segment %d uses vertex %u, expected < %d vertices", i / 2,
                        d->lines[i], d->n_vertices);
  for (int i = 0; i < d->n_objects; i++) {
    const drape_render_object *o = &d->objects[i];
    int lim = o->kind == DRAPE_RO_SURFACE ? d->n_tris : d->n_lines;
    if ((o->kind != DRAPE_RO_SURFACE && o->kind != DRAPE_RO_TUBE) || o->first < 0 ||
        o->count < 0 || o->first + o->count > lim)
      return drape_fail(e, DRAPE_EINVAL,
                        "render mesh: object %d (kind %d) covers [%d, %d), expected a range "
                        "within the %d %s",
                        i, o->kind, o->first, o->first + o->count, lim,
                        o->kind == DRAPE_RO_SURFACE ? "triangles" : "segments");
  }
  return DRAPE_OK;
}

static int upload_topology(drape_render_mesh *m, const drape_render_mesh_desc *d, drape_err *e) {
  drape_render_object *objs = NULL;
  if (d->n_objects > 0) {
    objs = malloc(sizeof *objs * (size_t)d->n_objects);
    if (!objs) return drape_fail(e, DRAPE_ENOMEM, "out of memory (render objects)");
    memcpy(objs, d->objects, sizeof *objs * (size_t)d->n_objects);
  }
  free(m->objects);
  m->objects = objs;
  m->n_objects = d->n_objects;
  m->n_tris = d->n_tris;
  m->n_lines = d->n_lines;
  /* The element buffer is part of the VAO's state. */
  DRAPE_GL_TRY(e, glBindVertexArray(m->vao_surface));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m->tri_buf));
  DRAPE_GL_TRY(e, glBufferData(GL_ELEMENT_ARRAY_BUFFER,
                               (GLsizeiptr)(sizeof(uint32_t) * 3 * (size_t)(d->n_tris ? d->n_tris : 1)),
                               d->n_tris ? d->tris : NULL, GL_STATIC_DRAW));
  DRAPE_GL_TRY(e, glBindVertexArray(0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->line_buf));
  DRAPE_GL_TRY(e, glBufferData(GL_ARRAY_BUFFER,
                               (GLsizeiptr)(sizeof(uint32_t) * 2 * (size_t)(d->n_lines ? d->n_lines : 1)),
                               d->n_lines ? d->lines : NULL, GL_STATIC_DRAW));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, 0));
  return DRAPE_OK;
}

static int mesh_gl_setup(drape_render_mesh *m, const drape_render_mesh_desc *d, drape_err *e) {
  drape_renderer *r = m->r;
  size_t n = (size_t)d->n_vertices;
  DRAPE_GL_TRY(e, glGenBuffers(1, &m->pos_buf));
  DRAPE_GL_TRY(e, glGenBuffers(1, &m->nrm_buf));
  DRAPE_GL_TRY(e, glGenBuffers(1, &m->uv_buf));
  DRAPE_GL_TRY(e, glGenBuffers(1, &m->tri_buf));
  DRAPE_GL_TRY(e, glGenBuffers(1, &m->line_buf));
  /* DYNAMIC_DRAW: rewritten every frame, by glBufferSubData or by OpenCL. */
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->pos_buf));
  DRAPE_GL_TRY(e, glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(16 * n), NULL, GL_DYNAMIC_DRAW));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->nrm_buf));
  DRAPE_GL_TRY(e, glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(16 * n), NULL, GL_DYNAMIC_DRAW));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->uv_buf));
  DRAPE_GL_TRY(e, glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(8 * n), d->uv, GL_STATIC_DRAW));
  m->has_uv = d->uv != NULL;

  DRAPE_GL_TRY(e, glGenVertexArrays(1, &m->vao_surface));
  DRAPE_GL_TRY(e, glBindVertexArray(m->vao_surface));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->pos_buf));
  DRAPE_GL_TRY(e, glEnableVertexAttribArray(0));
  DRAPE_GL_TRY(e, glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, (void *)0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->nrm_buf));
  DRAPE_GL_TRY(e, glEnableVertexAttribArray(1));
  DRAPE_GL_TRY(e, glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 16, (void *)0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->uv_buf));
  DRAPE_GL_TRY(e, glEnableVertexAttribArray(2));
  DRAPE_GL_TRY(e, glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 8, (void *)0));

  DRAPE_GL_TRY(e, glGenVertexArrays(1, &m->vao_tube));
  DRAPE_GL_TRY(e, glBindVertexArray(m->vao_tube));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, r->capsule_vbo));
  DRAPE_GL_TRY(e, glEnableVertexAttribArray(0));
  DRAPE_GL_TRY(e, glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, (void *)0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->line_buf));
  DRAPE_GL_TRY(e, glEnableVertexAttribArray(1));
  DRAPE_GL_TRY(e, glVertexAttribIPointer(1, 2, GL_UNSIGNED_INT, 8, (void *)0));
  DRAPE_GL_TRY(e, glVertexAttribDivisor(1, 1));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->capsule_ibo));
  DRAPE_GL_TRY(e, glBindVertexArray(0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, 0));

  DRAPE_GL_TRY(e, glGenTextures(1, &m->pos_tex));
  DRAPE_GL_TRY(e, glBindTexture(GL_TEXTURE_BUFFER, m->pos_tex));
  DRAPE_GL_TRY(e, glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, m->pos_buf));
  DRAPE_GL_TRY(e, glBindTexture(GL_TEXTURE_BUFFER, 0));
  return upload_topology(m, d, e);
}

int drape_render_mesh_create(drape_renderer *r, const drape_render_mesh_desc *d,
                             drape_render_mesh **out, drape_err *e) {
  *out = NULL;
  int rc = check_desc(d, e);
  if (rc) return rc;
  if (r->n_meshes >= MAX_MESHES)
    return drape_fail(e, DRAPE_EINVAL, "render mesh: at most %d meshes per renderer",
                      MAX_MESHES);
  drape_render_mesh *m = calloc(1, sizeof *m);
  if (!m) return drape_fail(e, DRAPE_ENOMEM, "out of memory (render mesh)");
  m->r = r;
  m->n_vertices = d->n_vertices;
  r->meshes[r->n_meshes++] = m;
  if ((rc = mesh_gl_setup(m, d, e))) {
    drape_render_mesh_destroy(m);
    return rc;
  }
  *out = m;
  return DRAPE_OK;
}

void drape_render_mesh_destroy(drape_render_mesh *m) {
  if (!m) return;
  drape_renderer *r = m->r;
  for (int i = 0; i < r->n_meshes; i++)
    if (r->meshes[i] == m) {
      memmove(&r->meshes[i], &r->meshes[i + 1], sizeof m * (size_t)(r->n_meshes - i - 1));
      r->n_meshes--;
      break;
    }
  GLuint bufs[] = {m->pos_buf, m->nrm_buf, m->uv_buf, m->tri_buf, m->line_buf};
  glDeleteBuffers(5, bufs);
  GLuint vaos[] = {m->vao_surface, m->vao_tube};
  glDeleteVertexArrays(2, vaos);
  if (m->pos_tex) glDeleteTextures(1, &m->pos_tex);
  glGetError();
  free(m->objects);
  free(m);
}

int drape_render_mesh_set_topology(drape_render_mesh *m, const drape_render_mesh_desc *d,
                                   drape_err *e) {
  if (d->n_vertices != m->n_vertices)
    return drape_fail(e, DRAPE_EINVAL,
                      "render mesh topology: %d vertices, the mesh has %d (create a new mesh)",
                      d->n_vertices, m->n_vertices);
  int rc = check_desc(d, e);
  return rc ? rc : upload_topology(m, d, e);
}

int dr_render_mesh_persistent(drape_render_mesh *m, float **pos, float **nrm, drape_err *e) {
  *pos = *nrm = NULL;
  if (!(epoxy_gl_version() >= 44 || epoxy_has_gl_extension("GL_ARB_buffer_storage")))
    return drape_fail(e, DRAPE_EGL, "persistent buffer mapping needs OpenGL 4.4 or "
                      "GL_ARB_buffer_storage (this GL is %d.%d)", epoxy_gl_version() / 10,
                      epoxy_gl_version() % 10);
  GLsizeiptr size = (GLsizeiptr)m->n_vertices * 16;
  GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  GLuint bufs[2];
  void *ptr[2];
  DRAPE_GL_TRY(e, glGenBuffers(2, bufs));
  for (int k = 0; k < 2; k++) {
    DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, bufs[k]));
    DRAPE_GL_TRY(e, glBufferStorage(GL_ARRAY_BUFFER, size, NULL, flags | GL_DYNAMIC_STORAGE_BIT));
    ptr[k] = glMapBufferRange(GL_ARRAY_BUFFER, 0, size, flags);
    if (!ptr[k]) {
      GLenum err = glGetError();
      glDeleteBuffers(2, bufs);
      return drape_fail(e, DRAPE_EGL, "glMapBufferRange(persistent) failed: %s",
                        drape_gl_errstr(err));
    }
    memset(ptr[k], 0, (size_t)size);
  }
  /* Point the surface attributes and the tubes' buffer texture at the new
   * buffers, then drop the old ones. */
  DRAPE_GL_TRY(e, glBindVertexArray(m->vao_surface));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, bufs[0]));
  DRAPE_GL_TRY(e, glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, (void *)0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, bufs[1]));
  DRAPE_GL_TRY(e, glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 16, (void *)0));
  DRAPE_GL_TRY(e, glBindVertexArray(0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, 0));
  DRAPE_GL_TRY(e, glBindTexture(GL_TEXTURE_BUFFER, m->pos_tex));
  DRAPE_GL_TRY(e, glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, bufs[0]));
  DRAPE_GL_TRY(e, glBindTexture(GL_TEXTURE_BUFFER, 0));
  GLuint old[2] = {m->pos_buf, m->nrm_buf};
  DRAPE_GL_TRY(e, glDeleteBuffers(2, old));
  m->pos_buf = bufs[0];
  m->nrm_buf = bufs[1];
  *pos = ptr[0];
  *nrm = ptr[1];
  return DRAPE_OK;
}

unsigned drape_render_mesh_positions_gl(const drape_render_mesh *m) { return m->pos_buf; }
unsigned drape_render_mesh_normals_gl(const drape_render_mesh *m) { return m->nrm_buf; }
int drape_render_mesh_vertex_count(const drape_render_mesh *m) { return m->n_vertices; }

int drape_render_mesh_upload(drape_render_mesh *m, const float *pos4, const float *nrm4,
                             int first, int count, drape_err *e) {
  if (first < 0 || count < 0 || first + count > m->n_vertices)
    return drape_fail(e, DRAPE_EINVAL, "render mesh upload: vertices [%d, %d), mesh has %d",
                      first, first + count, m->n_vertices);
  if (count == 0) return DRAPE_OK;
  GLintptr off = (GLintptr)first * 16;
  GLsizeiptr len = (GLsizeiptr)count * 16;
  if (pos4) {
    DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->pos_buf));
    DRAPE_GL_TRY(e, glBufferSubData(GL_ARRAY_BUFFER, off, len, pos4));
  }
  if (nrm4) {
    DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, m->nrm_buf));
    DRAPE_GL_TRY(e, glBufferSubData(GL_ARRAY_BUFFER, off, len, nrm4));
  }
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, 0));
  return DRAPE_OK;
}

void drape_render_compute_normals(const float *p, int n_vertices, const uint32_t *tris,
                                  int n_tris, float *nrm) {
  memset(nrm, 0, sizeof(float) * 4 * (size_t)n_vertices);
  /* The cross product's length is twice the triangle's area, so summing
   * unnormalised face normals weights each face by its area. */
  for (int t = 0; t < n_tris; t++) {
    uint32_t a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
    float u[3], v[3], f[3];
    dr_v3_sub(p + 4 * b, p + 4 * a, u);
    dr_v3_sub(p + 4 * c, p + 4 * a, v);
    dr_v3_cross(u, v, f);
    for (int k = 0; k < 3; k++) {
      nrm[4 * a + k] += f[k];
      nrm[4 * b + k] += f[k];
      nrm[4 * c + k] += f[k];
    }
  }
  for (int i = 0; i < n_vertices; i++) dr_v3_norm(nrm + 4 * i);
}

/* ---- camera ---- */

void drape_camera_frame_box(const float bmin[3], const float bmax[3], float fov_deg,
                            float aspect, drape_render_camera *out) {
  memset(out, 0, sizeof *out);
  float fov = fov_deg > 0 ? fov_deg : 45.0f;
  if (aspect <= 0) aspect = 16.0f / 9.0f;
  float c[3], h[3];
  for (int k = 0; k < 3; k++) {
    c[k] = 0.5f * (bmin[k] + bmax[k]);
    h[k] = 0.5f * fabsf(bmax[k] - bmin[k]);
  }
  /* From the front, a little to the right and above: the classic
   * three-quarter view that shows both the top and the side of a drape. */
  float dir[3] = {0.45f, 0.36f, 1.0f};
  dr_v3_norm(dir);
  float wup[3] = {0, 1, 0}, right[3], upc[3];
  dr_v3_cross(wup, dir, right);
  dr_v3_norm(right);
  dr_v3_cross(dir, right, upc);
  float tan_v = tanf(fov * (float)DR_PI / 360.0f), tan_h = tan_v * aspect;
  /* The camera sits at c + dir * D looking at c. A corner q (relative to
   * c) is in view when |q.right| <= tan_h (D - q.dir) and likewise for up:
   * the smallest D that keeps all eight corners in view, plus a margin. */
  float dist = 0;
  for (int k = 0; k < 8; k++) {
    float q[3] = {(k & 1) ? h[0] : -h[0], (k & 2) ? h[1] : -h[1], (k & 4) ? h[2] : -h[2]};
    float depth = dr_v3_dot(q, dir);
    float dx = depth + fabsf(dr_v3_dot(q, right)) / tan_h;
    float dy = depth + fabsf(dr_v3_dot(q, upc)) / tan_v;
    dist = fmaxf(dist, fmaxf(dx, dy));
  }
  if (dist < 1e-3f) dist = 1.0f;
  dist *= 1.03f;
  for (int k = 0; k < 3; k++) {
    out->target[k] = c[k];
    out->eye[k] = c[k] + dir[k] * dist;
  }
  out->up[1] = 1.0f;
  out->fov_deg = fov;
}

/* ---- drawing ---- */

typedef struct frame_state {
  dr_mat4 vp, inv_vp, light_vp;
  float eye[3];
  float light_dir[3], fill_dir[3];
  float fog[2];
  float shadow_soft, shadow_bias, normal_bias;
  int use_shadow;
} frame_state;

static const float LIGHT_COL[3] = {1.05f, 1.00f, 0.93f};
static const float FILL_COL[3] = {0.10f, 0.11f, 0.13f};
static const float SKY_AMB[3] = {0.20f, 0.23f, 0.28f};
static const float GROUND_AMB[3] = {0.12f, 0.11f, 0.10f};
static const float HORIZON[3] = {0.62f, 0.64f, 0.68f};
static const float ZENITH[3] = {0.22f, 0.30f, 0.45f};
static const float NADIR[3] = {0.32f, 0.32f, 0.33f};
static const float TILE_A[3] = {0.35f, 0.34f, 0.32f};
static const float TILE_B[3] = {0.30f, 0.29f, 0.28f};

static void set_common(GLuint p, const frame_state *f, GLuint shadow_tex) {
  glUseProgram(p);
  glUniformMatrix4fv(DRAPE_U(p, "u_vp"), 1, GL_FALSE, f->vp.m);
  glUniform3fv(DRAPE_U(p, "u_eye"), 1, f->eye);
  glUniform3fv(DRAPE_U(p, "u_light_dir"), 1, f->light_dir);
  glUniform3fv(DRAPE_U(p, "u_light_col"), 1, LIGHT_COL);
  glUniform3fv(DRAPE_U(p, "u_fill_dir"), 1, f->fill_dir);
  glUniform3fv(DRAPE_U(p, "u_fill_col"), 1, FILL_COL);
  glUniform3fv(DRAPE_U(p, "u_sky_amb"), 1, SKY_AMB);
  glUniform3fv(DRAPE_U(p, "u_ground_amb"), 1, GROUND_AMB);
  glUniform3fv(DRAPE_U(p, "u_horizon"), 1, HORIZON);
  glUniform2fv(DRAPE_U(p, "u_fog"), 1, f->fog);
  glUniform1i(DRAPE_U(p, "u_use_shadow"), f->use_shadow);
  glUniformMatrix4fv(DRAPE_U(p, "u_light_vp"), 1, GL_FALSE, f->light_vp.m);
  glUniform1f(DRAPE_U(p, "u_shadow_soft"), f->shadow_soft);
  glUniform1f(DRAPE_U(p, "u_shadow_bias"), f->shadow_bias);
  glUniform1f(DRAPE_U(p, "u_normal_bias"), f->normal_bias);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, shadow_tex);
  glUniform1i(DRAPE_U(p, "u_shadow"), 0);
  glUniform1i(DRAPE_U(p, "u_positions"), 1);
}

static void set_material(GLuint p, const float front[3], const float back[3], int two_sided,
                         float spec, float shin, float transl) {
  glUniform3fv(DRAPE_U(p, "u_front"), 1, front);
  glUniform3fv(DRAPE_U(p, "u_back"), 1, back);
  glUniform1i(DRAPE_U(p, "u_two_sided"), two_sided);
  glUniform1f(DRAPE_U(p, "u_spec"), spec);
  glUniform1f(DRAPE_U(p, "u_shin"), shin);
  glUniform1f(DRAPE_U(p, "u_transl"), transl);
  glUniform1i(DRAPE_U(p, "u_checker"), 0);
}

/* Draws every mesh's surfaces and tubes with the given programs (lit or
 * depth-only). */
static int draw_meshes(drape_renderer *r, GLuint ps, GLuint pt, int lit, const frame_state *f,
                       drape_err *e) {
  for (int mi = 0; mi < r->n_meshes; mi++) {
    drape_render_mesh *m = r->meshes[mi];
    for (int oi = 0; oi < m->n_objects; oi++) {
      const drape_render_object *o = &m->objects[oi];
      if (o->count <= 0) continue;
      if (o->kind == DRAPE_RO_SURFACE) {
        set_common(ps, f, r->shadow_tex);
        if (lit) {
          /* Cloth: matte with a faint sheen, some light through it. */
          set_material(ps, o->color_front, o->color_back, 1, 0.06f, 24.0f, 0.22f);
          glUniform1i(DRAPE_U(ps, "u_checker"), o->checker && m->has_uv);
          glUniform1f(DRAPE_U(ps, "u_cells"), o->checker_cells > 0 ? o->checker_cells : 8.0f);
        }
        glBindVertexArray(m->vao_surface);
        glDrawElements(GL_TRIANGLES, 3 * o->count, GL_UNSIGNED_INT,
                       (void *)(sizeof(uint32_t) * 3 * (size_t)o->first));
      } else {
        set_common(pt, f, r->shadow_tex);
        if (lit) set_material(pt, o->color_front, o->color_front, 0, 0.25f, 40.0f, 0.0f);
        glUniform1f(DRAPE_U(pt, "u_radius"), o->radius > 0 ? o->radius : 0.01f);
        glActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_BUFFER, m->pos_tex);
        glBindVertexArray(m->vao_tube);
        /* Per-instance segment indices start at the object's first segment. */
        glBindBuffer(GL_ARRAY_BUFFER, m->line_buf);
        glVertexAttribIPointer(1, 2, GL_UNSIGNED_INT, 8,
                               (void *)(sizeof(uint32_t) * 2 * (size_t)o->first));
        glDrawElementsInstanced(GL_TRIANGLES, r->capsule_indices, GL_UNSIGNED_SHORT, (void *)0,
                                o->count);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        glActiveTexture(GL_TEXTURE0);
      }
      if (drape_gl_check(e, o->kind == DRAPE_RO_SURFACE ? "drawing a cloth surface"
                                                        : "drawing a tube"))
        return DRAPE_EGL;
    }
  }
  glBindVertexArray(0);
  return DRAPE_OK;
}

static int draw_spheres(drape_renderer *r, GLuint p, int lit, const drape_render_scene *s,
                        const frame_state *f, drape_err *e) {
  if (s->n_spheres <= 0 || !s->spheres) return DRAPE_OK;
  set_common(p, f, r->shadow_tex);
  glBindVertexArray(r->sphere_vao);
  for (int i = 0; i < s->n_spheres; i++) {
    const drape_render_sphere *sp = &s->spheres[i];
    float c4[4] = {sp->center[0], sp->center[1], sp->center[2], sp->radius};
    glUniform4fv(DRAPE_U(p, "u_sphere"), 1, c4);
    if (lit) set_material(p, sp->color, sp->color, 0, 0.35f, 60.0f, 0.0f);
    glDrawElements(GL_TRIANGLES, r->sphere_indices, GL_UNSIGNED_INT, (void *)0);
  }
  glBindVertexArray(0);
  return drape_gl_check(e, "drawing spheres");
}

int drape_render_draw(drape_renderer *r, const drape_render_scene *s, int fb_w, int fb_h,
                      drape_err *e) {
  if (fb_w <= 0 || fb_h <= 0)
    return drape_fail(e, DRAPE_EINVAL, "render: framebuffer size %dx%d, expected > 0", fb_w,
                      fb_h);
  glGetError();
  GLint prev_fb = 0;
  DRAPE_GL_TRY(e, glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev_fb));

  frame_state f;
  memset(&f, 0, sizeof f);
  float c[3], h[3];
  for (int k = 0; k < 3; k++) {
    c[k] = 0.5f * (s->bounds_min[k] + s->bounds_max[k]);
    h[k] = 0.5f * fabsf(s->bounds_max[k] - s->bounds_min[k]);
  }
  float radius = sqrtf(dr_v3_dot(h, h));
  if (!(radius > 1e-3f)) radius = 1.0f;

  const drape_render_camera *cam = &s->camera;
  float up[3] = {cam->up[0], cam->up[1], cam->up[2]};
  if (up[0] == 0 && up[1] == 0 && up[2] == 0) up[1] = 1;
  float fov = cam->fov_deg > 0 ? cam->fov_deg : 45.0f;
  memcpy(f.eye, cam->eye, sizeof f.eye);
  float to_c[3];
  dr_v3_sub(c, f.eye, to_c);
  float dist = sqrtf(dr_v3_dot(to_c, to_c));
  /* Near plane close enough for a camera inside the action, far plane past
   * the fogged floor edge. */
  float zn = fmaxf(0.01f, 0.02f * fminf(dist, radius * 4.0f));
  float zf = dist + radius * 60.0f;
  dr_mat4 view = dr_look_at(cam->eye, cam->target, up);
  dr_mat4 proj = dr_perspective(fov * (float)DR_PI / 180.0f, (float)fb_w / (float)fb_h, zn, zf);
  f.vp = dr_mat4_mul(proj, view);
  f.inv_vp = dr_mat4_inverse(f.vp);
  f.fog[0] = dist + radius * 3.0f;
  f.fog[1] = dist + radius * 22.0f;

  /* Key light from the upper left front: its shadows fall to the right and
   * back, where a camera in front sees them. */
  float ld[3] = {-0.45f, 1.0f, 0.38f};
  dr_v3_norm(ld);
  memcpy(f.light_dir, ld, sizeof ld);
  float fd[3];
  dr_v3_sub(cam->eye, cam->target, fd);
  dr_v3_norm(fd);
  fd[1] += 0.5f;
  dr_v3_norm(fd);
  memcpy(f.fill_dir, fd, sizeof fd);

  /* The shadow map covers the bounds' sphere, a little enlarged so that
   * cloth hanging over the edge still casts. */
  float lr = radius * 1.25f;
  float leye[3] = {c[0] + ld[0] * 3 * lr, c[1] + ld[1] * 3 * lr, c[2] + ld[2] * 3 * lr};
  float lup[3] = {0, 1, 0};
  f.light_vp = dr_mat4_mul(dr_ortho(-lr, lr, -lr, lr, 0.1f * lr, 6.0f * lr),
                           dr_look_at(leye, c, lup));
  f.use_shadow = r->opts.shadows && r->shadow_fbo;
  float texel = 2.0f * lr / (float)r->opts.shadow_size;
  f.normal_bias = 1.5f * texel;
  f.shadow_bias = 0.0015f;
  /* Penumbra about 1.2 % of the scene's size in world units. */
  f.shadow_soft = (0.012f * radius) / (2.0f * lr);

  if (f.use_shadow) {
    DRAPE_GL_TRY(e, glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo));
    DRAPE_GL_TRY(e, glViewport(0, 0, r->opts.shadow_size, r->opts.shadow_size));
    DRAPE_GL_TRY(e, glEnable(GL_DEPTH_TEST));
    DRAPE_GL_TRY(e, glDepthMask(GL_TRUE));
    DRAPE_GL_TRY(e, glClear(GL_DEPTH_BUFFER_BIT));
    DRAPE_GL_TRY(e, glEnable(GL_POLYGON_OFFSET_FILL));
    DRAPE_GL_TRY(e, glPolygonOffset(1.5f, 2.0f));
    frame_state lf = f;
    lf.vp = f.light_vp;
    lf.use_shadow = 0;
    int rc = draw_meshes(r, r->prog_surface_d, r->prog_tube_d, 0, &lf, e);
    if (!rc) rc = draw_spheres(r, r->prog_sphere_d, 0, s, &lf, e);
    glDisable(GL_POLYGON_OFFSET_FILL);
    if (rc) return rc;
    DRAPE_GL_TRY(e, glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)prev_fb));
  }

  DRAPE_GL_TRY(e, glViewport(0, 0, fb_w, fb_h));
  DRAPE_GL_TRY(e, glDisable(GL_BLEND));
  DRAPE_GL_TRY(e, glDisable(GL_CULL_FACE));
  DRAPE_GL_TRY(e, glDepthMask(GL_TRUE));
  DRAPE_GL_TRY(e, glClear(GL_DEPTH_BUFFER_BIT));

  /* Front to back, so early depth tests skip shading what is hidden: the
   * objects, then the floor, then the sky in what is left (it sits at the
   * far plane and passes only where the depth buffer is still clear). On a
   * software rasteriser that saves the sky's shading on two thirds of the
   * screen. */
  DRAPE_GL_TRY(e, glEnable(GL_DEPTH_TEST));
  DRAPE_GL_TRY(e, glDepthFunc(GL_LESS));
  int rc = draw_spheres(r, r->prog_sphere, 1, s, &f, e);
  if (!rc) rc = draw_meshes(r, r->prog_surface, r->prog_tube, 1, &f, e);
  if (rc) return rc;
  if (s->has_floor) {
    set_common(r->prog_floor, &f, r->shadow_tex);
    float fl[4] = {c[0], s->floor_y, radius * 40.0f, c[2]};
    GLuint p = r->prog_floor;
    glUniform4fv(DRAPE_U(p, "u_floor"), 1, fl);
    glUniform1f(DRAPE_U(p, "u_cell"), s->floor_cell > 0 ? s->floor_cell : 0.25f);
    glUniform3fv(DRAPE_U(p, "u_tile_a"), 1, TILE_A);
    glUniform3fv(DRAPE_U(p, "u_tile_b"), 1, TILE_B);
    glBindVertexArray(r->vao_empty);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    if (drape_gl_check(e, "drawing the floor")) return DRAPE_EGL;
  }
  DRAPE_GL_TRY(e, glDepthFunc(GL_LEQUAL));
  DRAPE_GL_TRY(e, glDepthMask(GL_FALSE));
  glUseProgram(r->prog_sky);
  glUniformMatrix4fv(DRAPE_U(r->prog_sky, "u_inv_vp"), 1, GL_FALSE, f.inv_vp.m);
  glUniform3fv(DRAPE_U(r->prog_sky, "u_eye"), 1, f.eye);
  glUniform3fv(DRAPE_U(r->prog_sky, "u_horizon"), 1, HORIZON);
  glUniform3fv(DRAPE_U(r->prog_sky, "u_zenith"), 1, ZENITH);
  /* With a floor, what lies below the horizon past the floor's edge is
   * fogged floor: the horizon colour, so no seam shows. */
  glUniform3fv(DRAPE_U(r->prog_sky, "u_nadir"), 1, s->has_floor ? HORIZON : NADIR);
  glBindVertexArray(r->vao_empty);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  if (drape_gl_check(e, "drawing the sky")) return DRAPE_EGL;
  DRAPE_GL_TRY(e, glDepthMask(GL_TRUE));
  DRAPE_GL_TRY(e, glDepthFunc(GL_LESS));
  glBindVertexArray(0);
  glUseProgram(0);
  return rc;
}

/* ---- overlay text (text.c keeps the glyph batch) ---- */

void drape_render_text(drape_renderer *r, float x, float y, float scale, const float rgba[4],
                       const char *text) {
  dr_text_add(&r->text, x, y, scale, rgba, text, 0);
}

void drape_render_text_panel(drape_renderer *r, float x, float y, float scale,
                             const char *text) {
  dr_text_add(&r->text, x, y, scale, NULL, text, 1);
}

int drape_render_overlay(drape_renderer *r, int fb_w, int fb_h, drape_err *e) {
  return dr_text_draw(&r->text, r->prog_text, fb_w, fb_h, e);
}
