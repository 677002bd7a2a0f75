/* `drape bench`: the large-cloth ladder (BENCHMARKS.md).
 *
 * Every case is one square cloth of n x n particles, 1.26 m on a side,
 * pinned at the two corners of row 0 and falling onto a sphere, at a fixed
 * dt of 1/60 s, run on each selected backend (every OpenCL device and the
 * CPU reference) and solver setting (substeps x iterations), with
 * self-collision off and on. A warm-up (untimed) lets the cloth reach the
 * sphere first; then each timed frame is measured on the wall clock
 * (drape_sim_step blocks until the device is done). Per-stage device times
 * come from OpenCL event profiling, which the benchmark switches on.
 *
 * Physics is checked as well as timed: a case whose positions are not
 * finite, or whose mean strain exceeds --max-mean-strain, is marked FAIL,
 * so a fast but wrong solver cannot look good.
 *
 * --mesh FILE (issue 16) replaces the size ladder by one pair of cases per
 * setting, self-collision mode and backend: a cloth from the mesh FILE and
 * the grid with as many particles (n = the rounded square root of its
 * vertex count), both in the same place, pinned and draped the same way,
 * so a mesh's cost (its colouring, its gathered constraints, its dihedral
 * bending) is read against the grid's in the same run.
 *
 * --material NAME builds the cloth from that preset (membranes, hinges,
 * coarse levels; docs/solver.md "Materials"). Each of its cases is then
 * also timed with the cloth the ladder runs without it, the per-constraint
 * cloth of the same size, setting and backend, right after the material
 * case's timed pass and on the same warm-up and frame counts, so that the
 * material's cost is read as a ratio to it from one run on one machine
 * state (a ratio across runs would mix in the machine's load). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "drape/world.h"
#include "io/io.h"
#include "drape/drape_cl.h"
#include "drape/cloth.h"
#include "drape/render.h"
#include "drape/scene.h"
#include "peer.h"

#define MAX_SIZES 16
#define MAX_SETTINGS 8
#define MAX_BACKENDS 17 /* 16 OpenCL devices + the CPU reference */

typedef struct { int substeps, iterations; } setting;
typedef struct { int cpu; int device; char name[160]; } backend_sel;
/* --kernel-form (drape main.c), for every OpenCL case: 0 = auto. */
static int bench_kernel_form;

typedef struct bench_opts {
  int sizes[MAX_SIZES], n_sizes;
  setting settings[MAX_SETTINGS];
  int n_settings;
  int self_modes[2], n_self;        /* 0 = off, 1 = on */
  backend_sel backends[MAX_BACKENDS];
  int n_backends;
  int frames, warmup;
  int peer;                         /* time Bullet too (when built in) */
  int fuse;                         /* drape_sim_params.fuse_stages */
  double max_mean_strain;
  const drape_material_def *material; /* --material: the cloth's preset  */
  const char *out_dir;
  /* --mesh: the cloth as the cases use it (loaded, placed, pinned) */
  const char *mesh_path;
  drape_cloth_def mesh;
  int mesh_n;                       /* the grid beside it: mesh_n^2 particles */
} bench_opts;

typedef struct bench_row {
  char backend[160];
  int mesh;             /* 1: the --mesh cloth; 0: a grid of n x n */
  char kernel_form[16]; /* drape_sim_kernel_form: gpu, vector, cpu-reference */
  int n, substeps, iterations, self;
  int particles, constraints, colours;
  int colour_min, colour_max;   /* fewest and most constraints in a colour */
  int bend_constraints, bend_colours; /* mesh cloths' dihedral bending  */
  int bend_colour_min, bend_colour_max; /* and their edge units' colours */
  double ms_median, ms_p10, ms_p90, ms_substep;
  double stage_ms[DRAPE_STAGE_COUNT];
  double colour_ms[DRAPE_TIMING_COLOURS];       /* project, per colour  */
  double selfcol_ms[DRAPE_SELFCOL_PART_COUNT];  /* self-collision parts */
  int stage_valid;
  double launches, projections_per_s, particles_per_s;
  double max_strain, mean_strain;
  double residual;  /* drape_object_stats.residual at the end (NAN: none) */
  /* --material: the per-constraint cloth of the same case, timed in the
   * same run (NAN: no reference, or it failed), and ms_median over it */
  double ref_ms, cost_ratio;
  int ref_failed;   /* the reference was run and did not finish          */
  long crossings;  /* edges through triangles after the last frame (-1: not counted) */
  double device_mb, bytes_per_frame;
  /* the contact lists kept across substeps (OpenCL, docs/selfcollision.md),
   * over the timed frames: builds a frame, and the share of the
   * vertex-triangle passes that ran on them (-1: no pass) */
  double list_builds, list_share;
  int finite, ok;
  int diverged;   /* the finiteness check stopped the case (no timings) */
  /* peer */
  int has_peer;
  double peer_ms, peer_max_strain, peer_mean_strain, speedup;
} bench_row;

static const char *usage_text =
    "usage: drape bench [--sizes 64,128,256,512,1024] [--settings 20x1,5x4]\n"
    "                   [--self off,on] [--devices all|cpu|K,K,...] [--frames N]\n"
    "                   [--warmup N] [--peer on|off] [--fuse on|off]\n"
    "                   [--max-mean-strain S] [--mesh FILE] [--material NAME]\n"
    "                   [--out DIR]\n"
    "       drape bench --scene FILE [--frames N] [--warmup N] [--backend cl|cpu]\n"
    "                   (one scene's stages; colliders against the cloth solve)\n";

static void help(void) {
  printf("%s", usage_text);
  printf("\nRuns the large-cloth ladder: an n x n cloth (1.26 m square) pinned at two\n"
         "corners and draped over a sphere, dt 1/60 s, for each size, substeps x\n"
         "iterations setting, self-collision mode and backend, in one run.\n\n"
         "  --sizes LIST       particles per side (default 64,128,256,512,1024)\n"
         "  --settings LIST    SUBSTEPSxITERATIONS (default 20x1,5x4)\n"
         "  --self LIST        self-collision off, on or both (default off,on)\n"
         "  --devices LIST     'all' (every OpenCL device and the CPU reference; default),\n"
         "                     'cpu' (the CPU reference), 'cl' (every OpenCL device),\n"
         "                     or device indices from `drape devices`, e.g. 0,cpu\n"
         "  --frames N         timed frames per case (default 20)\n"
         "  --warmup N         untimed frames first (default 10)\n"
         "  --peer on|off      also time Bullet's soft-body cloth on the same cloth\n"
         "                     (20 passes a frame for 20x1; built when libbullet-dev is\n"
         "                     installed; default on)\n"
         "  --fuse on|off      run tethers, collide, update and the next predict as one\n"
         "                     kernel (default on; off times each stage on its own,\n"
         "                     with the same results bit for bit)\n"
         "  --max-mean-strain S  a case whose final mean strain exceeds S fails (0.05)\n"
         "  --mesh FILE        instead of the sizes: a cloth from the triangle mesh FILE\n"
         "                     (OBJ, glTF, PLY, STL, FBX; scaled to 1.26 m, pinned at the\n"
         "                     two vertices nearest the grid's pinned corners) beside the\n"
         "                     grid of the same particle count, for each setting,\n"
         "                     self-collision mode and backend\n"
         "  --material NAME    the cloth is made of this preset (docs/scenes.md\n"
         "                     \"Material presets\"; default cotton_shirting, 'none':\n"
         "                     the per-constraint compliances); each case is then also timed\n"
         "                     with the per-constraint cloth, in the same run: its\n"
         "                     ms/frame ('ref ms', ref_ms_frame) and the material's over\n"
         "                     it ('ratio', cost_ratio)\n"
         "  --out DIR          bench.csv, bench.json and bench.png go here\n"
         "                     (default bench/results/latest)\n"
         "\nEach case also reports its constraint residual at the end ('resid', residual:\n"
         "the RMS of C + alpha/h^2 lambda over the cloth's stretch constraints, strain;\n"
         "docs/solver.md \"Residual\").\n"
         "\nTable on stdout; exit 1 when a case fails its physics check or the plot\n"
         "(gnuplot) fails, 2 on bad input (checked before any case runs), 130/143 when\n"
         "interrupted by SIGINT/SIGTERM (then nothing is written).\n");
}

static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape bench: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}


/* --mesh: loads FILE as cloth[0] would be, then places it where the
 * benchmark grid lies: its largest extent scaled to the grid's 1.26 m,
 * centred on x = z = 0 with its lowest point at the grid's height (1.2 m),
 * pinned at the two vertices nearest the grid's pinned corners (the low-x
 * and high-x corners of the low-z side of its top), bending 1.5e3 1/(N m)
 * (scenes/tablecloth_mesh.json's calibration: the grid's drape), thickness
 * as the grid's: min(1 cm, half the shortest edge). */
static int prepare_mesh(bench_opts *o) {
  drape_cloth_def *c = &o->mesh;
  *c = drape_cloth_def_default();
  snprintf(c->name, sizeof c->name, "mesh");
  c->has_mesh = 1;
  c->mesh.file = strdup(o->mesh_path);
  drape_err e = {0};
  if (!c->mesh.file) return bad("--mesh", o->mesh_path, "out of memory");
  if (drape_cloth_mesh_load(c, 0, NULL, &e)) {
    /* the loader names cloth[0].mesh.file; here it is the flag */
    fprintf(stderr, "drape bench: --mesh \"%s\": %s\n%s", o->mesh_path, e.msg, usage_text);
    drape_cloth_def_free(c);
    return 2;
  }
  drape_cloth_mesh *m = &c->mesh;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < m->n_vertices; i++)
    for (int q = 0; q < 3; q++)
      lo[q] = fmin(lo[q], m->vertices[3 * i + q]), hi[q] = fmax(hi[q], m->vertices[3 * i + q]);
  const double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (!(ext > 0)) {
    drape_cloth_def_free(c);
    return bad("--mesh", o->mesh_path, "the mesh has no extent");
  }
  const double k = 1.26 / ext, mid[3] = {0.5 * (lo[0] + hi[0]), lo[1], 0.5 * (lo[2] + hi[2])};
  const double to[3] = {0, 1.2, 0};
  for (int i = 0; i < m->n_vertices; i++)
    for (int q = 0; q < 3; q++)
      m->vertices[3 * i + q] = to[q] + k * (m->vertices[3 * i + q] - mid[q]);
  const double corner[2][3] = {{-0.63 * (hi[0] - lo[0]) / ext, 1.2 + k * (hi[1] - lo[1]),
                                -0.63 * (hi[2] - lo[2]) / ext},
                               {0.63 * (hi[0] - lo[0]) / ext, 1.2 + k * (hi[1] - lo[1]),
                                -0.63 * (hi[2] - lo[2]) / ext}};
  int pin[2] = {0, 0};
  for (int p = 0; p < 2; p++) {
    double best = INFINITY;
    for (int i = 0; i < m->n_vertices; i++) {
      double d = 0;
      for (int q = 0; q < 3; q++) d += pow(m->vertices[3 * i + q] - corner[p][q], 2);
      if (d < best) best = d, pin[p] = i;
    }
  }
  c->n_pin_vertices = pin[1] != pin[0] ? 2 : 1;
  c->pin_vertices = malloc(sizeof *c->pin_vertices * 2);
  if (!c->pin_vertices) {
    drape_cloth_def_free(c);
    return bad("--mesh", o->mesh_path, "out of memory");
  }
  c->pin_vertices[0] = pin[0], c->pin_vertices[1] = pin[1];
  double shortest = INFINITY;
  for (int t = 0; t < m->n_tris; t++)
    for (int q = 0; q < 3; q++) {
      const double *a = m->vertices + 3 * m->tris[3 * t + q];
      const double *b = m->vertices + 3 * m->tris[3 * t + (q + 1) % 3];
      shortest = fmin(shortest, sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2)));
    }
  /* a hair under half: the validator compares in float */
  c->thickness = fmin(0.01, 0.5 * (1 - 1e-6) * shortest);
  c->compliance_bend = 1.5e3;
  o->mesh_n = (int)lround(sqrt((double)m->n_vertices));
  if (o->mesh_n < 4) o->mesh_n = 4;
  return 0;
}

static int parse_args(int argc, char **argv, bench_opts *o) {
  const int defsizes[] = {64, 128, 256, 512, 1024};
  memset(o, 0, sizeof *o);
  for (int i = 0; i < 5; i++) o->sizes[o->n_sizes++] = defsizes[i];
  o->settings[0] = (setting){20, 1};
  o->settings[1] = (setting){5, 4};
  o->n_settings = 2;
  o->self_modes[0] = 0;
  o->self_modes[1] = 1;
  o->n_self = 2;
  o->frames = 20;
  o->warmup = 10;
  o->peer = 1;
  o->fuse = 1;
  o->max_mean_strain = 0.05;
  o->material = drape_material_preset("cotton_shirting"); /* the ladder's fabric */
  o->out_dir = "bench/results/latest";
  const char *devices = "all";
  int sizes_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(); return -1; }
    if (!v) return bad(a, "", "needs a value (or unknown flag)");
    char buf[512];
    snprintf(buf, sizeof buf, "%s", v);
    if (!strcmp(a, "--sizes")) {
      sizes_given = 1;
      o->n_sizes = 0;
      for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
        if (o->n_sizes >= MAX_SIZES || !dr_parse_int(s, 4, 4096, &o->sizes[o->n_sizes]))
          return bad(a, v, "expected sizes 4..4096 separated by commas (at most 16)");
        o->n_sizes++;
      }
    } else if (!strcmp(a, "--settings")) {
      /* Whole integers only, every character checked: sscanf("%d%c%d")
       * read 20x1.5 as 20x1 and ran a case nobody asked for. */
      o->n_settings = 0;
      const char *p = v;
      for (;;) {
        long ss = 0, it = 0;
        int nd = 0;
        while (*p >= '0' && *p <= '9' && nd < 5) ss = 10 * ss + (*p++ - '0'), nd++;
        int ok = nd > 0 && *p == 'x';
        if (ok) {
          p++;
          nd = 0;
          while (*p >= '0' && *p <= '9' && nd < 5) it = 10 * it + (*p++ - '0'), nd++;
          ok = nd > 0 && (*p == ',' || *p == '\0');
        }
        if (!ok || o->n_settings >= MAX_SETTINGS || ss < 1 || ss > 1000 || it < 1 || it > 1000)
          return bad(a, v,
                     "expected SUBSTEPSxITERATIONS, whole numbers 1..1000 each, at most 8 "
                     "separated by commas, e.g. 20x1,5x4");
        o->settings[o->n_settings++] = (setting){(int)ss, (int)it};
        if (*p == '\0') break;
        p++; /* the comma; an empty entry after it fails above */
      }
    } else if (!strcmp(a, "--material")) {
      if (strcmp(v, "none") && !(o->material = drape_material_preset(v)))
        return bad(a, v, "expected a preset name (docs/scenes.md \"Material presets\") or none");
      if (!strcmp(v, "none")) o->material = NULL;
    } else if (!strcmp(a, "--self")) {
      o->n_self = 0;
      for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
        if (o->n_self >= 2) return bad(a, v, "expected off, on or off,on");
        if (!strcmp(s, "off")) o->self_modes[o->n_self++] = 0;
        else if (!strcmp(s, "on")) o->self_modes[o->n_self++] = 1;
        else return bad(a, v, "expected off, on or off,on");
      }
    } else if (!strcmp(a, "--devices")) {
      devices = v;
    } else if (!strcmp(a, "--frames")) {
      if (!dr_parse_int(v, 1, 100000, &o->frames)) return bad(a, v, "expected 1..100000");
    } else if (!strcmp(a, "--warmup")) {
      if (!dr_parse_int(v, 0, 100000, &o->warmup)) return bad(a, v, "expected 0..100000");
    } else if (!strcmp(a, "--peer")) {
      if (!strcmp(v, "on")) o->peer = 1;
      else if (!strcmp(v, "off")) o->peer = 0;
      else return bad(a, v, "expected on or off");
    } else if (!strcmp(a, "--fuse")) {
      if (!strcmp(v, "on")) o->fuse = 1;
      else if (!strcmp(v, "off")) o->fuse = 0;
      else return bad(a, v, "expected on or off");
    } else if (!strcmp(a, "--max-mean-strain")) {
      char *end = NULL;
      o->max_mean_strain = strtod(v, &end);
      if (end == v || *end || !(o->max_mean_strain > 0) || !isfinite(o->max_mean_strain))
        return bad(a, v, "expected a number > 0");
    } else if (!strcmp(a, "--out")) {
      if (!*v) return bad(a, v, "expected a folder");
      o->out_dir = v;
    } else if (!strcmp(a, "--mesh")) {
      if (!*v) return bad(a, v, "expected a triangle mesh file");
      o->mesh_path = v;
    } else {
      return bad(a, v, "unknown flag");
    }
    i++;
  }
  /* Backends. */
  int n_cl = drape_cl_device_count();
  char buf[512];
  snprintf(buf, sizeof buf, "%s", devices);
  for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
    if (!strcmp(s, "all") || !strcmp(s, "cl")) {
      for (int d = 0; d < n_cl && o->n_backends < MAX_BACKENDS - 1; d++)
        o->backends[o->n_backends++] = (backend_sel){0, d, ""};
      if (!strcmp(s, "all")) o->backends[o->n_backends++] = (backend_sel){1, -1, ""};
    } else if (!strcmp(s, "cpu")) {
      o->backends[o->n_backends++] = (backend_sel){1, -1, ""};
    } else {
      int d;
      if (!dr_parse_int(s, 0, 1000, &d))
        return bad("--devices", devices, "expected all, cl, cpu or device indices");
      if (d >= n_cl) {
        char what[128];
        snprintf(what, sizeof what, "device %d does not exist: valid device indices are 0..%d",
                 d, n_cl - 1);
        return bad("--devices", devices, what);
      }
      o->backends[o->n_backends++] = (backend_sel){0, d, ""};
    }
    if (o->n_backends >= MAX_BACKENDS) break;
  }
  if (o->n_backends == 0) return bad("--devices", devices, "selects no backend");
  if (o->mesh_path) {
    if (sizes_given)
      return bad("--sizes", "", "not with --mesh: the grid beside the mesh has its vertex count");
    int rc = prepare_mesh(o);
    if (rc) return rc;
    o->sizes[0] = o->mesh_n;
    o->n_sizes = 1;
  }
  return 0;
}

/* A copy of the prepared --mesh cloth that the scene owns (its free
 * releases the arrays). 0, or DRAPE_ENOMEM. */
static int copy_mesh_def(const drape_cloth_def *from, drape_cloth_def *to, drape_err *e) {
  *to = *from;
  const drape_cloth_mesh *m = &from->mesh;
  to->mesh.file = NULL; /* filled in code: the arrays are the mesh */
  to->mesh.vertices = malloc(sizeof(double) * 3 * (size_t)m->n_vertices);
  to->mesh.tris = malloc(sizeof(int) * 3 * (size_t)m->n_tris);
  to->mesh.uv = m->uv ? malloc(sizeof(float) * 2 * (size_t)m->n_vertices) : NULL;
  to->mesh.tri_uv = m->tri_uv ? malloc(sizeof(float) * 6 * (size_t)m->n_tris) : NULL;
  to->pin_vertices = malloc(sizeof(int) * (size_t)(from->n_pin_vertices + 1));
  if (!to->mesh.vertices || !to->mesh.tris || (m->uv && !to->mesh.uv) ||
      (m->tri_uv && !to->mesh.tri_uv) || !to->pin_vertices) {
    drape_cloth_def_free(to);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  memcpy(to->mesh.vertices, m->vertices, sizeof(double) * 3 * (size_t)m->n_vertices);
  memcpy(to->mesh.tris, m->tris, sizeof(int) * 3 * (size_t)m->n_tris);
  if (m->uv) memcpy(to->mesh.uv, m->uv, sizeof(float) * 2 * (size_t)m->n_vertices);
  if (m->tri_uv) memcpy(to->mesh.tri_uv, m->tri_uv, sizeof(float) * 6 * (size_t)m->n_tris);
  memcpy(to->pin_vertices, from->pin_vertices, sizeof(int) * (size_t)from->n_pin_vertices);
  return DRAPE_OK;
}

/* The benchmark cloth: n x n, 1.26 m square, horizontal at y = 1.2 m,
 * pinned at (0, 0) and (0, n-1), above a sphere of radius 0.4 m; or, with
 * `mesh`, that cloth (prepare_mesh) in the grid's place. */
static int bench_scene(drape_scene *s, int n, setting st, int self, const drape_cloth_def *mesh,
                       const drape_material_def *material, drape_err *e) {
  drape_scene_init(s);
  s->dt = 1.0 / 60.0;
  s->substeps = st.substeps;
  s->iterations = st.iterations;
  drape_cloth_def c = drape_cloth_def_default();
  if (mesh && copy_mesh_def(mesh, &c, e)) return e->code;
  if (material) {
    c.material = *material;
    c.mass_per_area = material->density;
  }
  if (mesh) {
    c.self_collision = self;
    drape_scene_add_cloth(s, &c);
  } else {
    snprintf(c.name, sizeof c.name, "cloth%d", n);
    c.rows = c.cols = n;
    c.spacing = 1.26 / (n - 1);
    c.origin[0] = -0.63;
    c.origin[1] = 1.2;
    c.origin[2] = -0.63;
    c.self_collision = self;
    c.thickness = fmin(0.01, 0.5 * c.spacing);
    static int pins[2][2];
    pins[0][0] = 0; pins[0][1] = 0;
    pins[1][0] = 0; pins[1][1] = n - 1;
    c.n_pins = 2;
    c.pins = malloc(sizeof(int[2][2]));
    memcpy(c.pins, pins, sizeof pins);
    drape_scene_add_cloth(s, &c);
  }
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[0] = 0;
  sp.center[1] = 0.6;
  sp.center[2] = 0.2;
  sp.radius = 0.4;
  drape_scene_add_sphere(s, &sp);
  return DRAPE_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Steps a fresh sim of one case: `warmup` untimed frames, then `frames`
 * frames whose wall-clock ms, per-stage ms and counters are recorded. */
typedef struct case_pass {
  double *ms;                            /* frames entries                 */
  double stage_sum[DRAPE_STAGE_COUNT];
  double colour_sum[DRAPE_TIMING_COLOURS];
  double selfcol_sum[DRAPE_SELFCOL_PART_COUNT];
  int stage_valid;
  double launches, projections, bytes;
  uint64_t device_bytes;
  uint64_t list0[3], list1[3]; /* list counters at the warm-up's end, at the end */
} case_pass;

/* material: --material's preset, or NULL for the per-constraint cloth. */
static int simulate(const backend_sel *b, int n, setting st, int self, const drape_cloth_def *md,
                    const drape_material_def *material, int fuse, int profiling, int warmup,
                    int frames, case_pass *p, bench_row *row, drape_err *e) {
  drape_scene scene;
  if (bench_scene(&scene, n, st, self, md, material, e)) {
    drape_scene_free(&scene);
    return e->code;
  }
  drape_world_def wd = drape_world_def_default();
  wd.backend = b->cpu ? DRAPE_BACKEND_CPU : DRAPE_BACKEND_CL;
  wd.use_device = b->device >= 0;
  wd.device_index = b->device;
  wd.profiling = profiling;
  wd.kernel_form = bench_kernel_form;
  drape_world *world = NULL;
  int rc = drape_world_create(&scene, &wd, &world, e);
  drape_scene_free(&scene);
  if (rc) return rc;
  drape_sim *sim = drape_world_sim(world); /* parameters and timings */
  snprintf(row->kernel_form, sizeof row->kernel_form, "%s", drape_sim_kernel_form(sim));
  drape_sim_params sprm;
  drape_sim_get_params(sim, &sprm);
  sprm.fuse_stages = fuse;
  if ((rc = drape_sim_set_params(sim, &sprm, e))) {
    drape_world_destroy(world);
    return rc;
  }
  const drape_mesh *mesh = drape_sim_mesh(sim);
  row->particles = mesh->n_particles;
  row->constraints = mesh->n_constraints;
  row->colours = mesh->n_colours;
  row->colour_min = mesh->colour_min;
  row->colour_max = mesh->colour_max;
  row->bend_constraints = mesh->n_bend_constraints;
  row->bend_colours = mesh->n_bend_colours;
  row->bend_colour_min = mesh->bend_colour_min;
  row->bend_colour_max = mesh->bend_colour_max;
  p->stage_valid = 1;
  for (int f = 0; f < warmup + frames && rc == 0; f++) {
    /* SIGINT/SIGTERM: stop at this frame boundary (cmd_bench reports it). */
    if (dr_interrupted()) {
      rc = drape_fail(e, DRAPE_EIO, "interrupted");
      break;
    }
    if ((rc = drape_world_step(world, e))) break;
    drape_timings t;
    drape_sim_timings(sim, &t);
    uint64_t *lc = f < warmup ? p->list0 : p->list1;
    lc[0] = t.selfcol_list_builds;
    lc[1] = t.selfcol_list_passes;
    lc[2] = t.selfcol_hash_passes;
    if (f < warmup) continue;
    p->ms[f - warmup] = t.ms_frame;
    for (int s = 0; s < DRAPE_STAGE_COUNT; s++) p->stage_sum[s] += t.ms[s];
    for (int c = 0; c < DRAPE_TIMING_COLOURS; c++) p->colour_sum[c] += t.colour_ms[c];
    for (int q = 0; q < DRAPE_SELFCOL_PART_COUNT; q++) p->selfcol_sum[q] += t.selfcol_ms[q];
    p->stage_valid &= t.stage_times_valid;
    p->launches += (double)t.launches;
    p->projections += (double)t.projections;
    p->bytes += (double)(t.bytes_to_device + t.bytes_from_device);
    if (t.device_bytes > p->device_bytes) p->device_bytes = t.device_bytes;
  }
  if (rc == 0) {
    drape_world_stats stats;
    drape_err se = {0};
    int src = drape_world_get_stats(world, &stats, &se);
    row->finite = src == 0;
    row->max_strain = src == 0 ? stats.objects[0].max_strain : NAN;
    row->mean_strain = src == 0 ? stats.objects[0].mean_strain : NAN;
    row->residual = src == 0 ? stats.objects[0].residual : NAN;
    long c = -1;
    row->crossings = src == 0 && drape_world_count_crossings(world, &c, &se) == 0 ? c : -1;
  }
  drape_world_destroy(world);
  return rc;
}

/* One case. The timed pass runs without OpenCL event profiling (on PoCL
 * profiling adds a cost to each of the ~300 launches a frame); per-stage
 * device times come from a second, profiled pass of the same case over
 * the same warm-up and a few frames. On the CPU backend the stage times
 * are wall-clock times of the timed pass itself. */
static int run_case(const bench_opts *o, const backend_sel *b, int n, setting st, int self,
                    int mesh, bench_row *row, drape_err *e) {
  memset(row, 0, sizeof *row);
  row->residual = row->ref_ms = row->cost_ratio = NAN;
  snprintf(row->backend, sizeof row->backend, "%s", b->name);
  row->n = n;
  row->mesh = mesh;
  const drape_cloth_def *md = mesh ? &o->mesh : NULL;
  row->substeps = st.substeps;
  row->iterations = st.iterations;
  row->self = self;
  case_pass t = {0}, prof = {0};
  t.ms = calloc((size_t)o->frames, sizeof(double));
  prof.ms = calloc(3, sizeof(double));
  if (!t.ms || !prof.ms) {
    free(t.ms);
    free(prof.ms);
    return drape_fail(e, DRAPE_ENOMEM, "out of memory");
  }
  int rc = simulate(b, n, st, self, md, o->material, o->fuse, 0, o->warmup, o->frames, &t, row, e);
  if (rc == 0 && o->material) {
    /* the per-constraint reference, timed like the case (its own figures
     * stay in scratch: the row is the material's) */
    case_pass ref = {0};
    bench_row scratch = *row;
    drape_err re = {0};
    if (!(ref.ms = calloc((size_t)o->frames, sizeof(double)))) {
      rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
    } else if (simulate(b, n, st, self, md, NULL, o->fuse, 0, o->warmup, o->frames, &ref,
                        &scratch, &re) == 0) {
      qsort(ref.ms, (size_t)o->frames, sizeof(double), cmp_double);
      row->ref_ms = ref.ms[o->frames / 2];
    } else if (dr_interrupted()) {
      rc = drape_fail(e, DRAPE_EIO, "interrupted");
    } else {
      fprintf(stderr, "drape bench: %s %s n=%d %dx%d: the per-constraint reference: %s\n",
              b->name, mesh ? "mesh" : "grid", n, st.substeps, st.iterations, re.msg);
      row->ref_failed = 1;
    }
    free(ref.ms);
  }
  const case_pass *stages = &t;
  int stage_frames = o->frames;
  if (rc == 0 && !b->cpu) {
    bench_row scratch = *row;
    stage_frames = o->frames < 3 ? o->frames : 3;
    rc = simulate(b, n, st, self, md, o->material, o->fuse, 1, o->warmup, stage_frames, &prof,
                  &scratch, e);
    stages = &prof;
  }
  if (rc == 0) {
    qsort(t.ms, (size_t)o->frames, sizeof(double), cmp_double);
    row->ms_median = t.ms[o->frames / 2];
    row->ms_p10 = t.ms[(o->frames - 1) / 10];
    row->ms_p90 = t.ms[(o->frames - 1) * 9 / 10];
    row->ms_substep = row->ms_median / st.substeps;
    if (isfinite(row->ref_ms) && row->ref_ms > 0) row->cost_ratio = row->ms_median / row->ref_ms;
    for (int s = 0; s < DRAPE_STAGE_COUNT; s++) row->stage_ms[s] = stages->stage_sum[s] / stage_frames;
    for (int c = 0; c < DRAPE_TIMING_COLOURS; c++) row->colour_ms[c] = stages->colour_sum[c] / stage_frames;
    for (int q = 0; q < DRAPE_SELFCOL_PART_COUNT; q++)
      row->selfcol_ms[q] = stages->selfcol_sum[q] / stage_frames;
    row->stage_valid = stages->stage_valid;
    row->launches = t.launches / o->frames;
    row->projections_per_s = t.projections / o->frames / (row->ms_median * 1e-3);
    row->particles_per_s = (double)row->particles * st.substeps / (row->ms_median * 1e-3);
    row->bytes_per_frame = t.bytes / o->frames;
    row->device_mb = (double)t.device_bytes / (1024.0 * 1024.0);
    const double lp = (double)(t.list1[1] - t.list0[1]), hp = (double)(t.list1[2] - t.list0[2]);
    row->list_builds = (double)(t.list1[0] - t.list0[0]) / o->frames;
    row->list_share = lp + hp > 0 ? lp / (lp + hp) : -1.0;
    row->ok = row->finite && row->mean_strain <= o->max_mean_strain;
  }
  free(t.ms);
  free(prof.ms);
  return rc;
}

/* ref ms and ratio: the per-constraint cloth's ms/frame in the same run
 * and the case's over it (--material; "-" without) */
static void print_header(void) {
  printf("%-28s %-6s %5s %6s %4s %9s %9s %9s %8s %6s %8s %7s %7s %9s %9s %8s %8s %8s %7s %8s %4s\n",
         "backend", "form", "n", "steps", "self", "particles", "ms/frame", "p10-p90", "ref ms", "ratio",
         "ms/sub", "colours", "balance", "launch/f", "Mproj/s", "maxstr", "meanstr", "resid", "cross",
         "devMB", "ok");
}

static void print_row(const bench_row *r) {
  char set[16], spread[32];
  snprintf(set, sizeof set, "%dx%d", r->substeps, r->iterations);
  snprintf(spread, sizeof spread, "%.1f-%.1f", r->ms_p10, r->ms_p90);
  /* colours: the launches of one iteration, the distance colours and the
   * mesh cloths' edge-unit colours; balance: the most constraints (or
   * units) in one of them over the fewest */
  const int colours = r->colours + r->bend_colours;
  int cmin = r->colours > 0 ? r->colour_min : r->bend_colour_min;
  int cmax = r->colours > 0 ? r->colour_max : r->bend_colour_max;
  if (r->colours > 0 && r->bend_colours > 0) {
    if (r->bend_colour_min < cmin) cmin = r->bend_colour_min;
    if (r->bend_colour_max > cmax) cmax = r->bend_colour_max;
  }
  char n[16], ref[16], ratio[16], resid[16];
  snprintf(n, sizeof n, r->mesh ? "mesh" : "%d", r->n); /* the mesh: its particles say its size */
  snprintf(ref, sizeof ref, isfinite(r->ref_ms) ? "%.2f" : "-", r->ref_ms);
  snprintf(ratio, sizeof ratio, isfinite(r->cost_ratio) ? "%.2f" : "-", r->cost_ratio);
  snprintf(resid, sizeof resid, isfinite(r->residual) ? "%.2e" : "-", r->residual);
  printf("%-28.28s %-6.6s %5s %6s %4s %9d %9.2f %9s %8s %6s %8.3f %7d %7.2f %9.0f %9.1f %8.4f %8.5f "
         "%8s %7ld %8.1f %4s\n",
         r->backend, r->kernel_form[0] == 'c' ? "-" : r->kernel_form, n, set, r->self ? "on" : "off",
         r->particles, r->ms_median, spread, ref, ratio, r->ms_substep, colours,
         cmin > 0 ? (double)cmax / cmin : 0.0, r->launches, r->projections_per_s * 1e-6,
         r->max_strain, r->mean_strain, resid, r->crossings, r->device_mb,
         r->ok ? "yes" : r->diverged ? "DIVERGED" : "FAIL");
  if (r->has_peer)
    printf("%-28.28s %-6s %5d %6s %4s %9d %9.2f %9s %8s %6s %8s %7s %7s %9s %9s %8.4f %8.5f %8s %7s "
           "%8s %4s  drape is %.1fx faster\n",
           "  peer: bullet soft body", "", r->n, set, "off", r->particles, r->peer_ms, "", "", "", "",
           "", "", "", "", r->peer_max_strain, r->peer_mean_strain, "", "", "", "", r->speedup);
  fflush(stdout);
}

/* The second table: where each case's frame goes, ms per frame from the
 * profiled pass (OpenCL event profiling; CPU: wall clock per stage). */
static void print_stages(const bench_row *rows, int n_rows) {
  printf("\nper stage, ms per frame (OpenCL: event profiling in a second pass; CPU: wall clock)\n");
  printf("%-28s %5s %6s %4s %8s %8s %-15s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s %9s %9s "
         "%12s\n",
         "backend", "n", "steps", "self", "predict", "project", "  per colour", "tethers", "collide",
         "update", "fused", "hash p.", "particle", "hash t.", "vert-tri", "bound", "normals",
         "selfcol", "rest", "self/rest", "lists b/f %");
  for (int i = 0; i < n_rows; i++) {
    const bench_row *r = &rows[i];
    if (!r->stage_valid) continue;
    char set[16], col[32];
    snprintf(set, sizeof set, "%dx%d", r->substeps, r->iterations);
    double lo = 1e300, hi = 0;
    for (int c = 0; c < r->colours && c < DRAPE_TIMING_COLOURS; c++) {
      lo = fmin(lo, r->colour_ms[c]);
      hi = fmax(hi, r->colour_ms[c]);
    }
    snprintf(col, sizeof col, "  %.2f-%.2f", r->colours ? lo : 0.0, hi);
    const double *st = r->stage_ms, *sc = r->selfcol_ms;
    char n[16];
    snprintf(n, sizeof n, r->mesh ? "mesh" : "%d", r->n);
    /* issue 18's measure: the self-collision stage against the rest of
     * the step (every other stage) */
    double rest = 0;
    for (int k = 0; k < DRAPE_STAGE_COUNT; k++)
      if (k != DRAPE_STAGE_SELF_COLLISION) rest += st[k];
    const double self_ms = st[DRAPE_STAGE_SELF_COLLISION];
    char ratio[16], lists[32];
    snprintf(ratio, sizeof ratio, rest > 0 && r->self ? "%.2f" : "-", self_ms / rest);
    /* the kept contact lists: builds a frame and the share of the passes
     * that ran on them (timed frames) */
    if (r->list_share >= 0)
      snprintf(lists, sizeof lists, "%.2f %3.0f%%", r->list_builds, 100.0 * r->list_share);
    else
      snprintf(lists, sizeof lists, "-");
    printf("%-28.28s %5s %6s %4s %8.2f %8.2f %-15s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f "
           "%8.2f %8.2f %9.2f %9.2f %9s %12s\n",
           r->backend, n, set, r->self ? "on" : "off", st[DRAPE_STAGE_PREDICT],
           st[DRAPE_STAGE_PROJECT], col, st[DRAPE_STAGE_TETHERS], st[DRAPE_STAGE_COLLIDE],
           st[DRAPE_STAGE_UPDATE], st[DRAPE_STAGE_FUSED], sc[DRAPE_SELFCOL_HASH_PARTICLES],
           sc[DRAPE_SELFCOL_PARTICLES], sc[DRAPE_SELFCOL_HASH_TRIANGLES],
           sc[DRAPE_SELFCOL_VERTEX_TRIANGLE], sc[DRAPE_SELFCOL_BOUND], st[DRAPE_STAGE_NORMALS],
           self_ms, rest, ratio, lists);
  }
  fflush(stdout);
}

static void machine_info(char *cpu, size_t cap) {
  snprintf(cpu, cap, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');
      if (c) {
        c += 2;
        c[strcspn(c, "\n")] = 0;
        snprintf(cpu, cap, "%s, %ld cores", c, sysconf(_SC_NPROCESSORS_ONLN));
      }
      break;
    }
  fclose(f);
}

/* The commit of the source tree the binary was built from (read at run
 * time with git describe, so a dirty tree says so).
 * DRAPE_SOURCE_DIR is set by CMake; "unknown" without git. */
static void source_commit(char *out, size_t cap) {
  snprintf(out, cap, "unknown");
#ifdef DRAPE_SOURCE_DIR
  /* git with an argument vector (core/spawn.c): no shell parses the path. */
  int fds[2];
  if (pipe(fds) != 0) return;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  const char *argv[] = {"git", "-C", DRAPE_SOURCE_DIR, "describe", "--always", "--dirty", NULL};
  dr_spawn_opts so = dr_spawn_opts_default();
  so.stdout_fd = fds[1];
  so.stderr_null = 1;
  pid_t pid;
  int rc = dr_spawn(argv, &so, &pid, NULL);
  close(fds[1]);
  if (rc) {
    close(fds[0]);
    return;
  }
  char line[128];
  size_t n = 0;
  ssize_t k;
  while (n < sizeof line - 1 && (k = read(fds[0], line + n, sizeof line - 1 - n)) != 0) {
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) break;
    n += (size_t)k;
  }
  close(fds[0]);
  line[n] = 0;
  int st = dr_spawn_wait(pid);
  line[strcspn(line, "\n")] = 0;
  if (st == 0 && line[0]) snprintf(out, cap, "%s", line);
#endif
}

/* The files `drape bench` writes into --out DIR. */
static const char *const bench_files[] = {"bench.csv", "bench.json", "bench.png", "bench.gp",
                                          "bench_plot.dat"};

/* --out before any case runs: the folder exists or can be created, and
 * none of its files is a folder, device, FIFO or link (exit 2 at once
 * instead of after the whole ladder). */
static int check_out(const bench_opts *o, drape_err *e) {
  int rc = dr_out_dir_check(o->out_dir, "--out", e);
  struct stat st;
  if (rc || stat(o->out_dir, &st) != 0) return rc;
  for (size_t i = 0; i < sizeof bench_files / sizeof bench_files[0]; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", o->out_dir, bench_files[i]);
    if ((rc = dr_out_file_check(path, "--out", NULL, 0, e))) return rc;
  }
  return DRAPE_OK;
}

/* Opens DIR/NAME.tmpPID for writing. */
static FILE *open_tmp(const char *dir, const char *name, char *path, size_t pcap, char *tmp,
                      size_t tcap) {
  snprintf(path, pcap, "%s/%s", dir, name);
  snprintf(tmp, tcap, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) fprintf(stderr, "drape bench: cannot write %s: %s\n", tmp, strerror(errno));
  return f;
}

/* Closes and renames into place (never over anything but a regular file). */
static int close_commit(FILE *f, const char *tmp, const char *path) {
  int bad_io = ferror(f);
  if (fclose(f) != 0 || bad_io) {
    unlink(tmp);
    fprintf(stderr, "drape bench: cannot write %s\n", path);
    return 1;
  }
  drape_err e = {0};
  if (dr_out_commit(tmp, path, "--out", &e)) {
    fprintf(stderr, "drape bench: %s\n", e.msg);
    return 1;
  }
  return 0;
}

static int write_outputs(const bench_opts *o, const bench_row *rows, int n_rows) {
  drape_err me = {0};
  if (dr_make_dirs(o->out_dir, "--out", &me)) {
    fprintf(stderr, "drape bench: %s\n", me.msg);
    return 1;
  }
  char path[4200], tmp[4300];
  char cpu[256], date[64];
  char commit[128];
  machine_info(cpu, sizeof cpu);
  source_commit(commit, sizeof commit);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  /* CSV */
  FILE *f = open_tmp(o->out_dir, "bench.csv", path, sizeof path, tmp, sizeof tmp);
  if (!f) return 1;
  fprintf(f, "backend,n,particles,constraints,colours,substeps,iterations,self_collision,"
             "ms_frame_median,ms_frame_p10,ms_frame_p90,ms_substep,launches_per_frame,"
             "projections_per_s,particles_per_s,max_strain,mean_strain,device_mb,"
             "bytes_per_frame,ok,peer_ms_frame,peer_max_strain,peer_mean_strain,speedup");
  for (int s = 0; s < DRAPE_STAGE_COUNT; s++) fprintf(f, ",ms_%s", drape_stage_name((drape_stage)s));
  for (int q = 0; q < DRAPE_SELFCOL_PART_COUNT; q++)
    fprintf(f, ",ms_selfcol_%s", drape_selfcol_part_name((drape_selfcol_part)q));
  fprintf(f, ",ms_project_per_colour,kernel_form,crossings,colour_min,colour_max,bend_constraints,"
             "bend_colours,cloth,list_builds_per_frame,list_pass_share,residual,material,ref_ms_frame,"
             "cost_ratio\n");
  for (int i = 0; i < n_rows; i++) {
    const bench_row *r = &rows[i];
    fprintf(f, "\"%s\",%d,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.5f,%.1f,%.6g,%.6g,%.6g,%.6g,%.2f,%.0f,%d",
            r->backend, r->n, r->particles, r->constraints, r->colours, r->substeps,
            r->iterations, r->self, r->ms_median, r->ms_p10, r->ms_p90, r->ms_substep,
            r->launches, r->projections_per_s, r->particles_per_s, r->max_strain,
            r->mean_strain, r->device_mb, r->bytes_per_frame, r->ok);
    if (r->has_peer)
      fprintf(f, ",%.4f,%.6g,%.6g,%.3f", r->peer_ms, r->peer_max_strain, r->peer_mean_strain,
              r->speedup);
    else
      fprintf(f, ",,,,");
    for (int s = 0; s < DRAPE_STAGE_COUNT; s++)
      fprintf(f, r->stage_valid ? ",%.5f" : ",", r->stage_ms[s]);
    for (int q = 0; q < DRAPE_SELFCOL_PART_COUNT; q++)
      fprintf(f, r->stage_valid ? ",%.5f" : ",", r->selfcol_ms[q]);
    fprintf(f, ",\"");
    for (int c = 0; r->stage_valid && c < r->colours && c < DRAPE_TIMING_COLOURS; c++)
      fprintf(f, "%s%.5f", c ? ";" : "", r->colour_ms[c]);
    fprintf(f, "\",%s,%ld,%d,%d,%d,%d,%s,%.3f,%.4f", r->kernel_form, r->crossings,
            r->colour_min, r->colour_max, r->bend_constraints, r->bend_colours,
            r->mesh ? "mesh" : "grid", r->list_builds, r->list_share);
    /* empty where there is no figure: no residual (a diverged case), no
     * reference (no --material, or it failed) */
    fprintf(f, isfinite(r->residual) ? ",%.6g" : ",", r->residual);
    fprintf(f, ",%s", o->material ? o->material->preset : "");
    fprintf(f, isfinite(r->ref_ms) ? ",%.4f" : ",", r->ref_ms);
    fprintf(f, isfinite(r->cost_ratio) ? ",%.4f\n" : ",\n", r->cost_ratio);
  }
  if (close_commit(f, tmp, path)) return 1;
  /* JSON */
  f = open_tmp(o->out_dir, "bench.json", path, sizeof path, tmp, sizeof tmp);
  if (!f) return 1;
  fprintf(f, "{\n  \"date\": \"%s\",\n  \"machine\": \"%s\",\n  \"drape\": \"%s\",\n"
             "  \"commit\": \"%s\",\n"
             "  \"frames\": %d, \"warmup\": %d, \"dt\": %.9g,\n",
          date, cpu, drape_version(), commit, o->frames, o->warmup, 1.0 / 60.0);
  if (o->mesh_path) {
    fprintf(f, "  \"mesh\": ");
    dr_json_str(f, o->mesh_path);
    fprintf(f, ",\n");
  }
  fprintf(f, "  \"material\": ");
  if (o->material) dr_json_str(f, o->material->preset);
  else fprintf(f, "null");
  fprintf(f, ",\n");
  fprintf(f, "  \"cases\": [\n");
  for (int i = 0; i < n_rows; i++) {
    const bench_row *r = &rows[i];
    fprintf(f, "    {\"backend\": \"%s\", \"cloth\": \"%s\", \"kernel_form\": \"%s\", \"n\": %d, "
               "\"particles\": %d, "
               "\"constraints\": %d, "
               "\"colours\": %d, \"colour_sizes\": [%d, %d], \"bend_constraints\": %d, "
               "\"bend_colours\": %d, \"substeps\": %d, \"iterations\": %d, \"self_collision\": %s, "
               "\"ms_frame\": {\"median\": %.4f, \"p10\": %.4f, \"p90\": %.4f}, "
               "\"ms_substep\": %.5f, \"launches_per_frame\": %.1f, "
               "\"projections_per_s\": %.6g, \"particles_per_s\": %.6g, "
               "\"max_strain\": %.6g, \"mean_strain\": %.6g, \"device_mb\": %.2f, "
               "\"bytes_per_frame\": %.0f, \"ok\": %s, \"status\": \"%s\", \"crossings\": %ld, "
               "\"stage_ms\": {",
            r->backend, r->mesh ? "mesh" : "grid", r->kernel_form, r->n, r->particles, r->constraints,
            r->colours,
            r->colour_min, r->colour_max, r->bend_constraints, r->bend_colours, r->substeps,
            r->iterations, r->self ? "true" : "false", r->ms_median, r->ms_p10, r->ms_p90,
            r->ms_substep, r->launches, r->projections_per_s, r->particles_per_s,
            isfinite(r->max_strain) ? r->max_strain : -1, isfinite(r->mean_strain) ? r->mean_strain : -1,
            r->device_mb, r->bytes_per_frame, r->ok ? "true" : "false",
            r->ok ? "ok" : r->diverged ? "diverged" : "failed", r->crossings);
    for (int s = 0; s < DRAPE_STAGE_COUNT; s++)
      fprintf(f, "%s\"%s\": %.5f", s ? ", " : "", drape_stage_name((drape_stage)s),
              r->stage_valid ? r->stage_ms[s] : -1.0);
    fprintf(f, "}, \"self_collision_ms\": {");
    for (int q = 0; q < DRAPE_SELFCOL_PART_COUNT; q++)
      fprintf(f, "%s\"%s\": %.5f", q ? ", " : "", drape_selfcol_part_name((drape_selfcol_part)q),
              r->stage_valid ? r->selfcol_ms[q] : -1.0);
    fprintf(f, "}, \"project_ms_per_colour\": [");
    for (int c = 0; r->stage_valid && c < r->colours && c < DRAPE_TIMING_COLOURS; c++)
      fprintf(f, "%s%.5f", c ? ", " : "", r->colour_ms[c]);
    fprintf(f, "], \"list_builds_per_frame\": %.3f, \"list_pass_share\": %.4f", r->list_builds,
            r->list_share);
    /* null where there is no figure (dr_json_num) */
    fprintf(f, ", \"residual\": ");
    dr_json_num(f, r->residual);
    fprintf(f, ", \"ref_ms_frame\": ");
    dr_json_num(f, r->ref_ms);
    fprintf(f, ", \"cost_ratio\": ");
    dr_json_num(f, r->cost_ratio);
    if (r->has_peer)
      fprintf(f, ", \"peer\": {\"name\": \"bullet\", \"ms_frame\": %.4f, \"max_strain\": %.6g, "
                 "\"mean_strain\": %.6g, \"speedup\": %.3f}",
              r->peer_ms, r->peer_max_strain, r->peer_mean_strain, r->speedup);
    fprintf(f, "}%s\n", i + 1 < n_rows ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  if (close_commit(f, tmp, path)) return 1;
  printf("\nwrote %s/bench.csv and %s/bench.json\n", o->out_dir, o->out_dir);
  /* Plot with gnuplot: ms per frame against particle count, one series per
   * backend, setting and self-collision mode (blocks of bench_plot.dat),
   * plus the peer. */
  char gp[1200];
  if (!drape_find_on_path("gnuplot", gp, sizeof gp)) {
    printf("gnuplot not found (apt-get install gnuplot-nox): no plot\n");
    return 0;
  }
  /* gnuplot runs inside DIR and the script names only fixed files there,
   * so no folder name is ever parsed, by a shell or by gnuplot. */
  char dpath[4200], dtmp[4300], ppath[4200], ptmp[4300];
  FILE *dat = open_tmp(o->out_dir, "bench_plot.dat", dpath, sizeof dpath, dtmp, sizeof dtmp);
  f = open_tmp(o->out_dir, "bench.gp", path, sizeof path, tmp, sizeof tmp);
  if (!f || !dat) {
    if (f) { fclose(f); unlink(tmp); }
    if (dat) { fclose(dat); unlink(dtmp); }
    return 1;
  }
  snprintf(ppath, sizeof ppath, "%s/bench.png", o->out_dir);
  char png_tmp[64], title[400];
  snprintf(png_tmp, sizeof png_tmp, "bench.png.tmp%ld", (long)getpid());
  snprintf(ptmp, sizeof ptmp, "%s/%s", o->out_dir, png_tmp);
  fprintf(f, "set terminal pngcairo size 1100,700 noenhanced\nset output ");
  dr_gp_str(f, png_tmp);
  fprintf(f, "\nset logscale xy\nset grid\nset key left top\n"
             "set xlabel 'particles'\nset ylabel 'ms per frame (dt = 1/60 s)'\n"
             "set title ");
  snprintf(title, sizeof title,
           "drape bench: n x n cloth pinned at two corners over a sphere (%s)", date);
  dr_gp_str(f, title);
  fprintf(f, "\nplot ");
  int series = 0;
  for (int i = 0; i < n_rows; i++) {
    int seen = rows[i].diverged; /* diverged cases have no time to plot */
    for (int j = 0; j < i; j++)
      if (!rows[j].diverged && !strcmp(rows[j].backend, rows[i].backend) && rows[j].substeps == rows[i].substeps &&
          rows[j].iterations == rows[i].iterations && rows[j].self == rows[i].self &&
          rows[j].mesh == rows[i].mesh)
        seen = 1;
    if (seen) continue;
    for (int j = i; j < n_rows; j++)
      if (!rows[j].diverged && !strcmp(rows[j].backend, rows[i].backend) && rows[j].substeps == rows[i].substeps &&
          rows[j].iterations == rows[i].iterations && rows[j].self == rows[i].self &&
          rows[j].mesh == rows[i].mesh)
        fprintf(dat, "%d %.5f\n", rows[j].particles, rows[j].ms_median);
    fprintf(dat, "\n\n");
    snprintf(title, sizeof title, "%.40s %dx%d self %s%s", rows[i].backend, rows[i].substeps,
             rows[i].iterations, rows[i].self ? "on" : "off", rows[i].mesh ? " mesh" : "");
    fprintf(f, "%s'bench_plot.dat' index %d with linespoints title ", series ? ", \\\n     " : "",
            series);
    dr_gp_str(f, title);
    series++;
  }
  int any_peer = 0;
  for (int i = 0; i < n_rows; i++)
    if (rows[i].has_peer) {
      int seen = 0;
      for (int j = 0; j < i; j++)
        if (rows[j].has_peer && rows[j].n == rows[i].n && rows[j].substeps == rows[i].substeps &&
            rows[j].iterations == rows[i].iterations)
          seen = 1;
      if (!seen) {
        fprintf(dat, "%d %.5f\n", rows[i].particles, rows[i].peer_ms);
        any_peer = 1;
      }
    }
  if (any_peer)
    fprintf(f, ", \\\n     'bench_plot.dat' index %d with points pt 7 ps 1.5 "
               "title 'Bullet soft body, same cloth'", series);
  fprintf(f, "\n");
  if (close_commit(dat, dtmp, dpath) | close_commit(f, tmp, path)) return 1;
  if (series == 0 && !any_peer) { /* every case diverged: nothing to draw */
    unlink(ptmp);
    printf("no plot: no case has a time (every case diverged)\n");
    return 0;
  }
  const char *argv[] = {gp, "bench.gp", NULL};
  dr_spawn_opts so = dr_spawn_opts_default();
  so.cwd = o->out_dir;
  drape_err ge = {0};
  if (dr_spawn_run(argv, &so, "bench.png", &ge) ||
      dr_out_commit(ptmp, ppath, "--out", &ge)) {
    unlink(ptmp);
    fprintf(stderr, "drape bench: %s; no plot (bench.csv and bench.json are complete)\n", ge.msg);
    return 1;
  }
  printf("wrote %s/bench.png\n", o->out_dir);
  return 0;
}

int cmd_bench(dr_app *app, int argc, char **argv) {
  for (int i = 1; i < argc; i++) /* one scene's stages instead of the ladder */
    if (!strcmp(argv[i], "--scene")) return cmd_bench_scene(app, argc, argv);
  bench_opts o;
  int prc = parse_args(argc, argv, &o);
  if (prc < 0) return 0;
  if (prc) return prc;
  bench_kernel_form = app->kernel_form;
  {
    drape_err e = {0};
    if (check_out(&o, &e)) return drape_app_report(&e);
  }
  /* SIGINT/SIGTERM end the ladder at the next frame; nothing is written
   * then, so the folder keeps its last complete results. */
  dr_interrupt_install();
  for (int b = 0; b < o.n_backends; b++) {
    if (o.backends[b].cpu) {
      snprintf(o.backends[b].name, sizeof o.backends[b].name, "cpu-reference");
    } else {
      drape_cl cl;
      drape_err e = {0};
      drape_cl_opts co = drape_cl_default_opts();
      co.device_index = o.backends[b].device;
      if (drape_cl_init(&cl, &co, &e)) return drape_app_report(&e);
      snprintf(o.backends[b].name, sizeof o.backends[b].name, "cl%d:%.100s", o.backends[b].device,
               cl.device_name);
      drape_cl_release(&cl);
    }
  }
  const int kinds = o.mesh_path ? 2 : 1; /* --mesh: the grid, then the mesh */
  int cap = o.n_backends * o.n_sizes * o.n_settings * o.n_self * kinds;
  bench_row *rows = calloc((size_t)cap, sizeof *rows);
  int n_rows = 0, failed = 0;
  print_header();
  for (int si = 0; si < o.n_sizes; si++)
    for (int st = 0; st < o.n_settings; st++)
      for (int sc = 0; sc < o.n_self; sc++) {
        drape_peer_result peer;
        int have_peer = 0;
        for (int bk = 0; bk < o.n_backends * kinds; bk++) {
          const int b = bk / kinds, mesh = bk % kinds;
          drape_err e = {0};
          bench_row *r = &rows[n_rows];
          if (dr_interrupted()) break;
          if (run_case(&o, &o.backends[b], o.sizes[si], o.settings[st], o.self_modes[sc], mesh, r,
                       &e)) {
            if (dr_interrupted()) break;
            fprintf(stderr, "drape bench: %s %s n=%d %dx%d: %s\n", o.backends[b].name,
                    mesh ? "mesh" : "grid", o.sizes[si], o.settings[st].substeps,
                    o.settings[st].iterations, e.msg);
            failed = 1;
            if (e.code != DRAPE_EUNSTABLE) continue;
            /* a diverged case stays in the table and the files, failed */
            r->diverged = 1;
            r->finite = r->ok = 0;
            r->max_strain = r->mean_strain = NAN;
            r->crossings = -1;
            print_row(r);
            n_rows++;
            continue;
          }
          /* The peer runs the same cloth once per size and setting, without
           * self-collision (Bullet's cloth has its own, not comparable). */
          if (o.peer && !mesh && o.self_modes[sc] == 0 && !o.backends[b].cpu &&
              drape_peer_bullet_available()) {
            if (!have_peer) {
              drape_peer_case pc = {o.sizes[si], 1.26 / (o.sizes[si] - 1), {-0.63, 1.2, -0.63},
                                    0.2, {0, 0.6, 0.2}, 0.4, 1.0 / 60.0,
                                    o.settings[st].substeps * o.settings[st].iterations,
                                    o.warmup, o.frames};
              have_peer = drape_peer_bullet_run(&pc, &peer) == 0;
            }
            if (have_peer) {
              r->has_peer = 1;
              r->peer_ms = peer.ms_median;
              r->peer_max_strain = peer.max_strain;
              r->peer_mean_strain = peer.mean_strain;
              r->speedup = peer.ms_median / r->ms_median;
            }
          }
          print_row(r);
          failed |= !r->ok || r->ref_failed;
          n_rows++;
        }
      }
  int sig = dr_interrupted();
  if (sig) {
    free(rows);
    if (o.mesh_path) drape_cloth_def_free(&o.mesh);
    fprintf(stderr, "drape bench: interrupted by %s after %d cases; nothing written to %s\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", n_rows, o.out_dir);
    return dr_interrupt_exit_code(sig);
  }
  print_stages(rows, n_rows);
  int wrc = write_outputs(&o, rows, n_rows);
  free(rows);
  if (o.mesh_path) drape_cloth_def_free(&o.mesh);
  if (wrc) return wrc;
  return failed ? 1 : 0;
}
