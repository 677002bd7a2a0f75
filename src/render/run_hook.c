/* The renderer's part of `drape run` (run_hook.h). */
#include "render/run_hook.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "io/io.h"
#include "drape/interop.h"

#define MAX_SPHERES 64

typedef struct run_string {
  int nodes;        /* N + 1 */
  int first;        /* first vertex in the strings mesh */
  int fed;          /* positions were set: drawn from then on */
  float z;
  float color[3];
} run_string;

struct dr_run_render {
  /* flags (defaults filled in) */
  const char *png_dir, *video;
  int every, width, height, samples, png_level, progress_on, digits;
  drape_interop_mode interop;
  /* scene and render def copies */
  double dt, fps;
  int total_frames, has_floor;
  float floor_y;
  drape_camera_def camera;
  drape_backend backend;
  int tearing;
  /* GL + capture */
  drape_gl *gl;
  drape_renderer *r;
  drape_render_target *t;
  drape_capture *cap;
  uint8_t *rgb;
  /* OpenCL runtime (owned when cl_ready) and the transfer */
  drape_cl cl;
  int cl_ready, shared;
  char why[1100];
  drape_interop *ip;
  /* solver mesh */
  drape_render_mesh *mesh;
  int n_particles, n_tris;
  float *host_pos, *host_nrm;
  uint32_t *tris;
  drape_render_object *objects;
  int n_objects;
  /* strings, then the implicit ropes (cables): tubes of one mesh */
  drape_render_mesh *smesh;
  run_string *strings;
  int n_strings, string_vertices;
  int n_lines;      /* entries of strings[]: the strings and the cables */
  float *spos;
  uint32_t *slines;
  drape_render_object *sobjs;
  int n_slines;
  /* per frame */
  drape_render_scene scene;
  drape_render_sphere spheres[MAX_SPHERES + 16];
  int n_sim_spheres;
  drape_progress prog;
  int rendered;
  double ms_xfer, ms_draw;
};

int dr_run_render_active(const dr_run_render *rr) { return rr != NULL; }

int dr_run_render_owns_progress(const dr_run_render *rr) {
  return dr_run_render_active(rr);
}

/* ---- set-up ---- */

int dr_run_render_prepare(const dr_run_render_flags *f, const drape_scene *scene,
                             const drape_render_def *view, int total_frames, drape_sim_opts *opts,
                             dr_run_render **out, drape_err *e) {
  *out = NULL;
  const drape_render_def view_default = drape_render_def_default();
  if (!view) view = &view_default;
  if (!f->png_dir && !f->video && !f->discard) {
    if (f->size_set || f->every_set || f->samples_set || f->interop_set)
      fprintf(stderr, "drape run: note: --size/--every/--samples/--interop only matter with "
              "--png-dir or --video\n");
    return DRAPE_OK;
  }
  dr_run_render *rr = calloc(1, sizeof *rr);
  if (!rr) return drape_fail(e, DRAPE_ENOMEM, "out of memory (renderer)");
  *out = rr;
  rr->png_dir = f->png_dir;
  rr->video = f->video;
  rr->every = f->every > 0 ? f->every : 1;
  rr->samples = f->samples > 0 ? f->samples : 4;
  rr->png_level = f->png_level > 0 ? f->png_level : 6;
  rr->progress_on = !f->no_progress;
  rr->digits = f->frame_digits >= 4 ? f->frame_digits : 4;
  rr->interop = (drape_interop_mode)f->interop;
  if (f->size_set) {
    rr->width = f->width;
    rr->height = f->height;
  } else {
    rr->width = view->width > 0 ? view->width : 1280;
    rr->height = view->height > 0 ? view->height : 720;
  }
  rr->dt = scene->dt > 0 ? scene->dt : 1.0 / 60.0;
  rr->total_frames = total_frames;
  rr->has_floor = scene->has_floor;
  rr->floor_y = (float)scene->floor_height;
  rr->camera = view->camera;
  rr->backend = opts->backend;
  for (int i = 0; i < scene->n_cloth; i++) rr->tearing |= scene->cloth[i].tear_ratio > 0;
  if (opts->backend == DRAPE_BACKEND_CPU && rr->interop == DRAPE_INTEROP_SHARE)
    return drape_fail(e, DRAPE_EINVAL, "--interop share: the CPU backend (--backend cpu) keeps "
                      "its particles in host memory, nothing to share; use --interop auto or copy");

  /* Outputs first: a bad folder or a missing ffmpeg fails before anything
   * heavy starts and before any file is made. */
  drape_capture_opts co = drape_capture_opts_default();
  co.png_dir = rr->png_dir;
  co.video_path = rr->video;
  co.width = rr->width;
  co.height = rr->height;
  co.png_level = rr->png_level;
  co.frame_digits = rr->digits;
  /* dt = 0.016666 means 60 fps: snap to a whole rate when that close, so
   * players see 30/1, not 75003/2500. */
  co.fps = 1.0 / (rr->dt * rr->every);
  if (fabs(co.fps - floor(co.fps + 0.5)) < 0.01) co.fps = floor(co.fps + 0.5);
  rr->fps = co.fps;
  if (co.fps > 1000) co.fps = 1000;
  if (co.fps < 0.01) co.fps = 0.01;
  /* Large frames: fewer queued copies (a 8192x8192 frame is 192 MiB). */
  size_t frame = (size_t)rr->width * (size_t)rr->height * 3;
  co.queue_frames = frame > ((size_t)64 << 20) ? 2 : 4;
  int rc = (rr->png_dir || rr->video) ? drape_capture_open(&co, &rr->cap, e) : DRAPE_OK;
  if (rc) return rc;

  if ((rc = drape_gl_open_headless(&rr->gl, e))) return rc;
  fprintf(stderr, "drape run: rendering %dx%d (%d samples) with %s\n", rr->width, rr->height,
          rr->samples, drape_gl_describe(rr->gl));
  if (opts->backend == DRAPE_BACKEND_CL) {
    drape_cl_opts clo = drape_cl_default_opts();
    clo.device_index = opts->device_index;
    clo.profiling = opts->profiling;
    rr->why[0] = 0;
    rc = drape_interop_cl_init(rr->gl, rr->interop, &clo, &rr->cl, &rr->shared, rr->why,
                               sizeof rr->why, e);
    if (rc) return rc;
    rr->cl_ready = 1;
    opts->cl = &rr->cl;
  }
  drape_render_opts ro = drape_render_opts_default();
  if ((rc = drape_renderer_create(&ro, &rr->r, e))) return rc;
  if ((rc = drape_render_target_create(rr->width, rr->height, rr->samples, &rr->t, e))) return rc;
  rr->rgb = malloc(frame);
  if (!rr->rgb) return drape_fail(e, DRAPE_ENOMEM, "out of memory (%dx%d frame)", rr->width,
                                  rr->height);
  rr->n_strings = scene->n_string;
  if (rr->n_strings > 16) rr->n_strings = 16;
  int n_cables = 0;
  for (int i = 0; i < scene->n_rope; i++) n_cables += scene->rope[i].solver == DRAPE_SOLVER_IMPLICIT;
  rr->n_lines = rr->n_strings + n_cables;
  if (rr->n_lines > 0) {
    rr->strings = calloc((size_t)rr->n_lines, sizeof *rr->strings);
    if (!rr->strings) return drape_fail(e, DRAPE_ENOMEM, "out of memory (strings)");
    /* the cables after the strings, first drawn once their positions are set */
    for (int i = 0, c = rr->n_strings; i < scene->n_rope; i++) {
      const drape_rope_def *d = &scene->rope[i];
      if (d->solver != DRAPE_SOLVER_IMPLICIT) continue;
      run_string *s = &rr->strings[c++];
      s->nodes = d->segments + 1;
      memcpy(s->color, d->color, sizeof s->color);
    }
    for (int k = 0; k < rr->n_strings; k++) {
      const drape_string_def *d = &scene->string[k];
      run_string *s = &rr->strings[k];
      s->nodes = d->nodes + 1;
      s->first = rr->string_vertices;
      s->z = (float)d->z;
      memcpy(s->color, d->color, sizeof s->color);
      rr->string_vertices += s->nodes;
    }
    for (int k = rr->n_strings; k < rr->n_lines; k++) {
      rr->strings[k].first = rr->string_vertices;
      rr->string_vertices += rr->strings[k].nodes;
    }
    rr->spos = calloc((size_t)rr->string_vertices, 16);
    if (!rr->spos) return drape_fail(e, DRAPE_ENOMEM, "out of memory (strings)");
    /* a cable starts straight from start to end (world/cables.c), which
     * is what frames the camera until its positions are set */
    for (int i = 0, c = rr->n_strings; i < scene->n_rope; i++) {
      const drape_rope_def *d = &scene->rope[i];
      if (d->solver != DRAPE_SOLVER_IMPLICIT) continue;
      const run_string *s = &rr->strings[c++];
      for (int j = 0; j < s->nodes; j++) {
        float *p = rr->spos + 4 * (s->first + j);
        for (int q = 0; q < 3; q++)
          p[q] = (float)(d->start[q] + (d->end[q] - d->start[q]) * j / (s->nodes - 1));
        p[3] = 1;
      }
    }
    /* Each string lies straight to the right of its anchor, as the solver
     * starts it (seed 000 §7.16); it is drawn once its positions are set. */
    for (int k = 0; k < rr->n_strings; k++) {
      const drape_string_def *d = &scene->string[k];
      run_string *s = &rr->strings[k];
      for (int i = 0; i < s->nodes; i++) {
        float *p = rr->spos + 4 * (s->first + i);
        p[0] = (float)(d->anchor[0] + d->length * i / d->nodes);
        p[1] = (float)d->anchor[1];
        p[2] = s->z;
        p[3] = 1;
      }
    }
  }
  return DRAPE_OK;
}

static void grow(float bmin[3], float bmax[3], const float p[3], float pad) {
  for (int k = 0; k < 3; k++) {
    if (p[k] - pad < bmin[k]) bmin[k] = p[k] - pad;
    if (p[k] + pad > bmax[k]) bmax[k] = p[k] + pad;
  }
}

/* Strings as tubes; a string's object draws nothing until its positions
 * were set (count 0), see strings_topology(). */
static int build_strings_mesh(dr_run_render *rr, drape_err *e) {
  if (rr->n_lines == 0) return DRAPE_OK;
  int nl = rr->string_vertices - rr->n_lines;
  rr->slines = malloc(sizeof(uint32_t) * 2 * (size_t)nl);
  rr->sobjs = calloc((size_t)rr->n_lines, sizeof *rr->sobjs);
  if (!rr->slines || !rr->sobjs) return drape_fail(e, DRAPE_ENOMEM, "out of memory (strings)");
  int l = 0;
  for (int k = 0; k < rr->n_lines; k++) {
    run_string *s = &rr->strings[k];
    drape_render_object *o = &rr->sobjs[k];
    o->kind = DRAPE_RO_TUBE;
    o->first = l;
    o->count = 0;
    memcpy(o->color_front, s->color, sizeof s->color);
    memcpy(o->color_back, s->color, sizeof s->color);
    o->radius = 0.012f;
    for (int i = 0; i + 1 < s->nodes; i++) {
      rr->slines[2 * l] = (uint32_t)(s->first + i);
      rr->slines[2 * l + 1] = (uint32_t)(s->first + i + 1);
      l++;
    }
  }
  rr->n_slines = nl;
  drape_render_mesh_desc d = {rr->string_vertices, NULL, 0, rr->slines, nl, NULL, rr->sobjs,
                              rr->n_lines};
  int rc = drape_render_mesh_create(rr->r, &d, &rr->smesh, e);
  if (!rc) rc = drape_render_mesh_upload(rr->smesh, rr->spos, NULL, 0, rr->string_vertices, e);
  return rc;
}

/* Shows the strings whose positions have been set. */
static int strings_topology(dr_run_render *rr, drape_err *e) {
  int changed = 0;
  for (int k = 0; k < rr->n_lines; k++) {
    int want = rr->strings[k].fed ? rr->strings[k].nodes - 1 : 0;
    changed |= rr->sobjs[k].count != want;
    rr->sobjs[k].count = want;
  }
  if (!changed) return DRAPE_OK;
  drape_render_mesh_desc d = {rr->string_vertices, NULL, 0, rr->slines, rr->n_slines, NULL,
                              rr->sobjs, rr->n_lines};
  return drape_render_mesh_set_topology(rr->smesh, &d, e);
}

void dr_run_render_objects(const drape_mesh *m, const float *pos4, drape_render_object *objs,
                              float *uv) {
  for (int i = 0; i < m->n_objects; i++) {
    const drape_object_info *o = &m->objects[i];
    drape_render_object *ro = &objs[i];
    memcpy(ro->color_front, o->color_front, sizeof ro->color_front);
    memcpy(ro->color_back, o->color_back, sizeof ro->color_back);
    if (o->kind == DRAPE_OBJ_CLOTH) {
      /* A woven check of 10 cm squares: uv in metres along the grid, from
       * the spacing of the first two particles of the first row. */
      ro->kind = DRAPE_RO_SURFACE;
      ro->first = o->first_tri;
      ro->count = o->n_tris;
      ro->checker = 1;
      ro->checker_cells = 10.0f;
      float sp = 0.0f;
      if (o->cols >= 2) {
        const float *a = pos4 + 4 * o->first_particle, *b = a + 4;
        sp = sqrtf((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                   (b[2] - a[2]) * (b[2] - a[2]));
      }
      for (int r = 0; r < o->rows; r++)
        for (int c = 0; c < o->cols; c++) {
          int v = o->first_particle + r * o->cols + c;
          if (v >= m->n_particles) continue;
          uv[2 * v] = (float)c * sp;
          uv[2 * v + 1] = (float)r * sp;
        }
    } else {
      ro->kind = DRAPE_RO_TUBE;
      ro->first = o->first_line;
      ro->count = o->n_lines;
      /* Drawn as thick as the collision margin, never hair-thin. */
      ro->radius = (float)fmax(o->thickness, 0.006);
    }
  }
}

int dr_run_render_begin(dr_run_render *rr, drape_sim *sim, drape_err *e) {
  if (!dr_run_render_active(rr)) return DRAPE_OK;
  const drape_mesh *m = drape_sim_mesh(sim);
  rr->n_particles = m->n_particles;
  rr->n_tris = m->n_tris;
  /* +1: a scene of strings only has no particles, and malloc(0) may be NULL. */
  rr->host_pos = malloc((size_t)m->n_particles * 16 + 16);
  rr->host_nrm = malloc((size_t)m->n_particles * 16 + 16);
  float *uv = calloc((size_t)m->n_particles + 1, 8);
  rr->objects = calloc((size_t)(m->n_objects ? m->n_objects : 1), sizeof *rr->objects);
  if (rr->tearing) rr->tris = malloc(sizeof(uint32_t) * 3 * (size_t)(m->n_tris ? m->n_tris : 1));
  if (!rr->host_pos || !rr->host_nrm || !uv || !rr->objects || (rr->tearing && !rr->tris)) {
    free(uv);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory (render mesh, %d particles)",
                      m->n_particles);
  }
  int rc = drape_sim_read_positions(sim, rr->host_pos, e);
  if (rc) {
    free(uv);
    return rc;
  }
  rr->n_objects = m->n_objects;
  dr_run_render_objects(m, rr->host_pos, rr->objects, uv);
  drape_render_mesh_desc d = {m->n_particles, m->tris, m->n_tris, m->lines, m->n_lines,
                              uv, rr->objects, rr->n_objects};
  /* No cloth or rope (a string-only scene): no solver mesh to draw. */
  rc = m->n_particles > 0 ? drape_render_mesh_create(rr->r, &d, &rr->mesh, e) : DRAPE_OK;
  free(uv);
  if (rc) return rc;
  if ((rc = build_strings_mesh(rr, e))) return rc;

  if (!rr->mesh) {
    fprintf(stderr, "drape run: no cloth or rope to transfer; strings come from the CPU\n");
  } else if (rr->backend == DRAPE_BACKEND_CL) {
    if ((rc = drape_interop_create(&rr->cl, rr->shared, rr->mesh, 0, &rr->ip, e))) return rc;
    drape_xfer_path p = drape_interop_path(rr->ip);
    fprintf(stderr, "drape run: CL->GL transfer: %s%s%s%s\n", drape_xfer_path_name(p),
            p == DRAPE_XFER_SHARE     ? " (cl_khr_gl_sharing, device copy)"
            : p == DRAPE_XFER_HOSTPTR ? " (CL copies into GL's persistently mapped memory)"
                                      : " (map + glBufferSubData)",
            rr->why[0] ? "; sharing off: " : "", rr->why);
  } else {
    fprintf(stderr, "drape run: CPU backend: vertices uploaded from host memory\n");
  }

  /* Bounds for the shadow map and the default camera: the particles now,
   * the spheres, the strings' reach, down to the floor. */
  float bmin[3] = {1e30f, 1e30f, 1e30f}, bmax[3] = {-1e30f, -1e30f, -1e30f};
  for (int i = 0; i < m->n_particles; i++) grow(bmin, bmax, rr->host_pos + 4 * i, 0);
  rr->n_sim_spheres = drape_sim_n_spheres(sim);
  if (rr->n_sim_spheres > MAX_SPHERES) rr->n_sim_spheres = MAX_SPHERES;
  for (int k = 0; k < rr->n_sim_spheres; k++) {
    drape_sphere_def sd;
    drape_sim_get_sphere(sim, k, &sd);
    float c[3] = {(float)sd.center[0], (float)sd.center[1], (float)sd.center[2]};
    grow(bmin, bmax, c, (float)sd.radius);
  }
  for (int k = 0; k < rr->n_strings; k++) {
    const run_string *s = &rr->strings[k];
    const float *a = rr->spos + 4 * s->first, *b = rr->spos + 4 * (s->first + s->nodes - 1);
    float len = fabsf(b[0] - a[0]);
    grow(bmin, bmax, a, len); /* it swings within its length of the anchor */
  }
  for (int k = rr->n_strings; k < rr->n_lines; k++) { /* cables: their start */
    const run_string *s = &rr->strings[k];
    for (int j = 0; j < s->nodes; j++) grow(bmin, bmax, rr->spos + 4 * (s->first + j), 0.0f);
  }
  if (bmin[0] > bmax[0]) { /* nothing at all: a unit box */
    for (int k = 0; k < 3; k++) { bmin[k] = -0.5f; bmax[k] = 0.5f; }
  }
  if (rr->has_floor) {
    if (rr->floor_y < bmin[1]) bmin[1] = rr->floor_y;
    if (bmax[1] < rr->floor_y + 0.1f) bmax[1] = rr->floor_y + 0.1f;
  }
  drape_render_scene *sc = &rr->scene;
  memset(sc, 0, sizeof *sc);
  memcpy(sc->bounds_min, bmin, sizeof bmin);
  memcpy(sc->bounds_max, bmax, sizeof bmax);
  sc->has_floor = rr->has_floor;
  sc->floor_y = rr->floor_y;
  float extent = fmaxf(bmax[0] - bmin[0], bmax[2] - bmin[2]);
  sc->floor_cell = extent > 8 ? 1.0f : extent > 3 ? 0.5f : 0.25f;
  float aspect = (float)rr->width / (float)rr->height;
  float fov = rr->camera.fov_deg > 0 ? (float)rr->camera.fov_deg : 45.0f;
  drape_camera_frame_box(bmin, bmax, fov, aspect, &sc->camera);
  if (rr->camera.has_target)
    for (int k = 0; k < 3; k++) sc->camera.target[k] = (float)rr->camera.target[k];
  if (rr->camera.has_eye)
    for (int k = 0; k < 3; k++) sc->camera.eye[k] = (float)rr->camera.eye[k];
  sc->spheres = rr->spheres;
  drape_progress_start(&rr->prog, rr->total_frames, stderr, rr->progress_on);
  return DRAPE_OK;
}

int dr_run_render_set_string(dr_run_render *rr, int k, const double *xy, int n_nodes,
                                double z, drape_err *e) {
  if (!dr_run_render_active(rr)) return DRAPE_OK;
  if (k < 0 || k >= rr->n_strings || n_nodes != rr->strings[k].nodes)
    return drape_fail(e, DRAPE_EINVAL, "render: string %d with %d nodes, expected one of %d "
                      "strings with its node count", k, n_nodes, rr->n_strings);
  run_string *s = &rr->strings[k];
  s->fed = 1;
  for (int i = 0; i < n_nodes; i++) {
    float *p = rr->spos + 4 * (s->first + i);
    p[0] = (float)xy[2 * i];
    p[1] = (float)xy[2 * i + 1];
    p[2] = (float)z;
    p[3] = 1;
  }
  return DRAPE_OK;
}

int dr_run_render_set_cable(dr_run_render *rr, int c, const float *xyz, int n_nodes,
                               drape_err *e) {
  if (!dr_run_render_active(rr)) return DRAPE_OK;
  const int k = rr->n_strings + c;
  if (c < 0 || k >= rr->n_lines || n_nodes != rr->strings[k].nodes)
    return drape_fail(e, DRAPE_EINVAL, "render: cable %d with %d nodes, expected one of %d "
                      "implicit ropes with its node count", c, n_nodes, rr->n_lines - rr->n_strings);
  run_string *s = &rr->strings[k];
  s->fed = 1;
  for (int i = 0; i < n_nodes; i++) {
    float *p = rr->spos + 4 * (s->first + i);
    memcpy(p, xyz + 3 * i, 3 * sizeof(float));
    p[3] = 1;
  }
  return DRAPE_OK;
}

int dr_run_render_world_frame(dr_run_render *rr, drape_world *w, int frame, drape_err *e) {
  if (!dr_run_render_active(rr)) return DRAPE_OK;
  int rc = DRAPE_OK;
  for (int k = 0; !rc && k < drape_world_string_count(w); k++) {
    const drape_string *st = drape_world_string(w, k);
    rc = dr_run_render_set_string(rr, k, drape_string_positions(st), drape_string_node_count(st),
                                  drape_world_string_z(w, k), e);
  }
  for (int k = 0, c = 0; !rc && k < drape_world_object_count(w); k++) {
    drape_world_object o;
    drape_world_get_object(w, k, &o, NULL);
    if (o.kind != DRAPE_WORLD_CABLE) continue;
    float *xyz = malloc(sizeof(float) * 3 * (size_t)o.n_points);
    rc = xyz ? drape_world_read_points(w, k, xyz, e) : drape_fail(e, DRAPE_ENOMEM, "out of memory");
    if (!rc) rc = dr_run_render_set_cable(rr, c++, xyz, o.n_points, e);
    free(xyz);
  }
  return rc ? rc : dr_run_render_frame(rr, drape_world_sim(w), frame, e);
}

int dr_run_render_frame(dr_run_render *rr, drape_sim *sim, int frame, drape_err *e) {
  if (!dr_run_render_active(rr)) return DRAPE_OK;
  if ((frame - 1) % rr->every != 0) {
    drape_progress_update(&rr->prog, frame);
    return DRAPE_OK;
  }
  double t0 = drape_now();
  int rc;
  if (!rr->mesh) {
    /* strings only: nothing from the solver */
  } else if (rr->ip) {
    drape_sim_buffers b;
    if ((rc = drape_sim_cl_buffers(sim, &b)))
      return drape_fail(e, DRAPE_ECL, "render: the solver has no OpenCL buffers");
    if ((rc = drape_interop_update(rr->ip, b.positions, b.normals, e))) return rc;
  } else {
    if ((rc = drape_sim_read_positions(sim, rr->host_pos, e)) ||
        (rc = drape_sim_read_normals(sim, rr->host_nrm, e)) ||
        (rc = drape_render_mesh_upload(rr->mesh, rr->host_pos, rr->host_nrm, 0, rr->n_particles,
                                       e)))
      return rc;
  }
  if (rr->tearing && rr->mesh) {
    /* Torn triangles come back degenerate (i0 i0 i0) and draw nothing. */
    drape_render_mesh_desc d = {rr->n_particles, rr->tris, rr->n_tris, NULL, 0, NULL,
                                rr->objects, rr->n_objects};
    const drape_mesh *m = drape_sim_mesh(sim);
    d.lines = m->lines;
    d.n_lines = m->n_lines;
    if ((rc = drape_sim_read_triangles(sim, rr->tris, e)) ||
        (rc = drape_render_mesh_set_topology(rr->mesh, &d, e)))
      return rc;
  }
  if (rr->smesh &&
      ((rc = strings_topology(rr, e)) ||
       (rc = drape_render_mesh_upload(rr->smesh, rr->spos, NULL, 0, rr->string_vertices, e))))
    return rc;
  double t1 = drape_now();
  /* Spheres can move (scripted velocity, viewer): read them every frame.
   * Colliders are drawn a neutral grey, the strings' held ends as balls of
   * the string's colour. */
  int ns = 0;
  for (int k = 0; k < rr->n_sim_spheres; k++) {
    drape_sphere_def sd;
    if (drape_sim_get_sphere(sim, k, &sd)) continue;
    drape_render_sphere *s = &rr->spheres[ns++];
    for (int j = 0; j < 3; j++) s->center[j] = (float)sd.center[j];
    s->radius = (float)sd.radius;
    s->color[0] = 0.50f;
    s->color[1] = 0.52f;
    s->color[2] = 0.56f;
  }
  for (int k = 0; k < rr->n_strings; k++) {
    const run_string *st = &rr->strings[k];
    if (!st->fed) continue;
    drape_render_sphere *s = &rr->spheres[ns++];
    memcpy(s->center, rr->spos + 4 * (st->first + st->nodes - 1), sizeof s->center);
    s->radius = 0.035f;
    memcpy(s->color, st->color, sizeof s->color);
  }
  rr->scene.n_spheres = ns;
  if ((rc = drape_render_target_bind(rr->t, e)) ||
      (rc = drape_render_draw(rr->r, &rr->scene, rr->width, rr->height, e)) ||
      (rc = drape_render_target_read(rr->t, rr->rgb, e)) ||
      (rr->cap && (rc = drape_capture_frame(rr->cap, frame, rr->rgb, e))))
    return rc;
  double t2 = drape_now();
  rr->ms_xfer += (t1 - t0) * 1e3;
  rr->ms_draw += (t2 - t1) * 1e3;
  rr->rendered++;
  drape_progress_update(&rr->prog, frame);
  return DRAPE_OK;
}

int dr_run_render_end(dr_run_render *rr, drape_err *e) {
  if (!dr_run_render_active(rr)) return DRAPE_OK;
  drape_progress_end(&rr->prog);
  drape_capture *c = rr->cap;
  rr->cap = NULL;
  int rc = c ? drape_capture_close(c, 1, e) : DRAPE_OK;
  if (rc) return rc;
  if (rr->rendered > 0)
    fprintf(stderr, "drape run: rendered %d frames, %.2f ms transfer + %.1f ms draw/read per "
            "frame\n", rr->rendered, rr->ms_xfer / rr->rendered, rr->ms_draw / rr->rendered);
  if (rr->png_dir)
    fprintf(stderr, "drape run: wrote %d PNG frames (%dx%d) to %s/frame_%.*s.png\n",
            rr->rendered, rr->width, rr->height, rr->png_dir, rr->digits, "NNNNNNNNN");
  if (rr->video && rr->rendered > 0) /* no frame: capture_close wrote no file */
    fprintf(stderr, "drape run: wrote %s (%d frames, %dx%d, %.3g fps)\n", rr->video,
            rr->rendered, rr->width, rr->height, rr->fps);
  return DRAPE_OK;
}

void dr_run_render_timings(const dr_run_render *rr, int *frames, double *ms_transfer,
                              double *ms_draw) {
  int n = rr ? rr->rendered : 0;
  *frames = n;
  *ms_transfer = n ? rr->ms_xfer / n : 0;
  *ms_draw = n ? rr->ms_draw / n : 0;
}

int dr_run_render_abort(dr_run_render *rr) {
  if (!rr) return 0;
  if (rr->prog.enabled) drape_progress_end(&rr->prog);
  if (!rr->cap) return 0;
  drape_capture_close(rr->cap, 0, NULL);
  rr->cap = NULL;
  return 1;
}

void dr_run_render_free(dr_run_render *rr) {
  if (!rr) return;
  dr_run_render_abort(rr);
  drape_interop_destroy(rr->ip);
  if (rr->gl) drape_gl_make_current(rr->gl, NULL);
  drape_render_mesh_destroy(rr->mesh);
  drape_render_mesh_destroy(rr->smesh);
  drape_render_target_destroy(rr->t);
  drape_renderer_destroy(rr->r);
  if (rr->cl_ready) drape_cl_release(&rr->cl);
  drape_gl_close(rr->gl);
  free(rr->rgb);
  free(rr->host_pos);
  free(rr->host_nrm);
  free(rr->tris);
  free(rr->objects);
  free(rr->strings);
  free(rr->spos);
  free(rr->slines);
  free(rr->sobjs);
  free(rr);
}
