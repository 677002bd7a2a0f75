/* `drape compare SCENE`: one scene, every applicable solver, side by side
 * (docs/solver.md "Other solvers").
 *
 *   cloth scenes:  xpbd, jakobsen (seeds 002/004), springs (seed 001)
 *   rope scenes:   xpbd, jakobsen, implicit (seed 003 cable, CPU)
 *   both:          xpbd, jakobsen (one solver per sim; springs is cloth-only
 *                  and the implicit cable rope-only)
 *
 * Each solver runs the same frames at equal substeps (default) or at an
 * equal wall-clock budget per frame (--budget-ms: substeps chosen from a
 * short calibration run). Per solver: peak and time-mean strain, energy
 * drift, whether it stayed finite, ms per frame. Then the sweeps that put
 * numbers on seed 004's claim ("a spring stiff enough to feel inextensible
 * demands a tiny time step ... or explodes; constraints have no stiffness
 * to limit the step"): the substep h scaled 0.5x .. 8x, and the stiffness
 * scaled 1x .. 64x (springs k, XPBD compliance 1/k, implicit ym) at the
 * scene's h.
 *
 * Energy E = kinetic + gravity (-m g.x over free particles) + the elastic
 * energy of the two material models: springs k/2 C^2 and the cable's own.
 * The constraint solvers add none: a rigid constraint stores no energy,
 * and with one iteration per substep the C^2/(2 alpha) of a compliant XPBD
 * constraint measures the unconverged solve, not a material (measured on
 * seed 001's cloth: it swung by 1e5 J while the cloth itself moved a few
 * 1e3 J). Drift is E(end) - E(0);
 * "gain" is max over time of E(t) - E(0) (> 0: the integrator created
 * energy). Outputs: a table on stdout, DIR/compare.csv, DIR/sweep.csv,
 * DIR/series_<solver>.csv, DIR/compare.json and DIR/compare.png (gnuplot,
 * pngcairo), each written to a temporary name and renamed. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/app.h"
#include "io/io.h"
#include "drape/world.h"
#include "drape/drape_cl.h"
#include "drape/cloth.h"
#include "drape/render.h"
#include "drape/scene.h"

#define MAX_SOLVERS 3
#define MAX_ROWS 64

static const char *usage_text =
    "usage: drape [--device K] compare SCENE [--frames N] [--out DIR] [--budget-ms MS]\n"
    "                          [--solvers LIST] [--sweep dt,stiffness|none]\n"
    "                          [--sweep-time S] [--backend cl|cpu] [--device K] [--no-plot]\n";

static void help(void) {
  printf("%s", usage_text);
  printf(
      "\nRuns one scene with each applicable solver and reports, per solver: peak and\n"
      "time-mean strain, energy drift, whether it stayed finite, ms per frame.\n"
      "Cloth scenes: xpbd, jakobsen, springs; rope scenes: xpbd, jakobsen, implicit.\n\n"
      "  --frames N         frames per run (default: the scene's \"frames\")\n"
      "  --out DIR          output folder (default: compare); created\n"
      "  --budget-ms MS     equal wall-clock budget per frame: each solver's substeps\n"
      "                     are chosen from a 10-frame calibration run (default: equal\n"
      "                     substeps, the scene's)\n"
      "  --solvers LIST     a subset, e.g. xpbd,springs (default: all applicable)\n"
      "  --sweep LIST       dt (substep h x 0.5, 1, 2, 4, 8), stiffness (x 1, 4, 16, 64\n"
      "                     at the scene's h), both (default) or none\n"
      "  --sweep-time S     simulated seconds per sweep run (default: min(2, run time))\n"
      "  --backend cl|cpu   OpenCL kernels (default) or the CPU reference backend\n"
      "  --device K         OpenCL device index (see `drape devices`)\n"
      "  --no-plot          skip DIR/compare.png\n\n"
      "Writes DIR/compare.csv, DIR/sweep.csv, DIR/series_<solver>.csv, DIR/compare.json\n"
      "and DIR/compare.png (gnuplot). A solver that diverges is reported, not an error.\n"
      "Exit codes: 0 done, 2 bad input (flag, value or scene), 1 other failures.\n");
}

typedef struct cmp_opts {
  const char *scene_path, *out_dir;
  int frames, device, plot;
  drape_backend backend;
  double budget_ms;            /* 0: equal substeps */
  int sweep_dt, sweep_k;
  double sweep_time;           /* 0: default */
  int solvers[MAX_SOLVERS], n_solvers; /* asked for; 0 = all applicable */
} cmp_opts;

/* One run's result. */
typedef struct cmp_result {
  drape_solver_kind solver;
  int substeps, frames, frames_done;
  double h, stiffness_factor, dt_factor;
  int sweep_kind;              /* sweeps: 1 dt, 2 stiffness                 */
  int finite;
  int diverged_frame;          /* 0 when finite                            */
  char message[1024];
  double max_strain, mean_strain, final_max_strain;
  double e0, e_end, drift, gain;
  double ms_per_frame;
  /* time series (main runs only) */
  int n_series;
  double (*series)[5];         /* t, max strain, mean strain, E - E0, KE  */
} cmp_result;


static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape compare: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}

static int parse_solver(const char *t, size_t n, int *out) {
  static const drape_solver_kind all[] = {DRAPE_SOLVER_XPBD, DRAPE_SOLVER_JAKOBSEN,
                                          DRAPE_SOLVER_SPRINGS, DRAPE_SOLVER_IMPLICIT};
  for (size_t i = 0; i < 4; i++)
    if (strlen(drape_solver_name(all[i])) == n && !strncmp(t, drape_solver_name(all[i]), n)) {
      *out = (int)all[i];
      return 1;
    }
  return 0;
}

static int parse_args(cmp_opts *o, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return -1;
    } else if (!strcmp(a, "--frames")) {
      long v = val ? strtol(val, &end, 10) : 0;
      if (!val || !*val || *end || v < 1 || v > 10000000)
        return bad("--frames", val, "expected a whole number of frames, 1..10000000");
      o->frames = (int)v;
      i++;
    } else if (!strcmp(a, "--out")) {
      if (!val || !*val) return bad("--out", val, "expected a directory");
      o->out_dir = val;
      i++;
    } else if (!strcmp(a, "--budget-ms")) {
      double v = val ? strtod(val, &end) : 0;
      if (!val || !*val || *end || !(v > 0) || !isfinite(v) || v > 1e7)
        return bad("--budget-ms", val, "expected milliseconds per frame > 0");
      o->budget_ms = v;
      i++;
    } else if (!strcmp(a, "--sweep-time")) {
      double v = val ? strtod(val, &end) : 0;
      if (!val || !*val || *end || !(v > 0) || !isfinite(v) || v > 1e5)
        return bad("--sweep-time", val, "expected simulated seconds > 0");
      o->sweep_time = v;
      i++;
    } else if (!strcmp(a, "--sweep")) {
      if (!val || !*val) return bad("--sweep", val, "expected dt, stiffness, both or none");
      o->sweep_dt = o->sweep_k = 0;
      if (!strcmp(val, "none")) {
      } else if (!strcmp(val, "both")) {
        o->sweep_dt = o->sweep_k = 1;
      } else {
        for (const char *p = val; *p;) {
          size_t n = strcspn(p, ",");
          if (n == 2 && !strncmp(p, "dt", 2)) o->sweep_dt = 1;
          else if (n == 9 && !strncmp(p, "stiffness", 9)) o->sweep_k = 1;
          else return bad("--sweep", val, "expected dt, stiffness (comma-separated), both or none");
          p += n + (p[n] == ',');
        }
      }
      i++;
    } else if (!strcmp(a, "--solvers")) {
      if (!val || !*val) return bad("--solvers", val, "expected e.g. xpbd,jakobsen,springs");
      o->n_solvers = 0;
      for (const char *p = val; *p;) {
        size_t n = strcspn(p, ",");
        int s;
        if (!parse_solver(p, n, &s))
          return bad("--solvers", val, "expected names from xpbd, jakobsen, springs, implicit");
        if (o->n_solvers == MAX_SOLVERS)
          return bad("--solvers", val, "at most 3 solvers per scene");
        o->solvers[o->n_solvers++] = s;
        p += n + (p[n] == ',');
      }
      i++;
    } else if (!strcmp(a, "--backend")) {
      if (val && !strcmp(val, "cl")) o->backend = DRAPE_BACKEND_CL;
      else if (val && !strcmp(val, "cpu")) o->backend = DRAPE_BACKEND_CPU;
      else return bad("--backend", val, "expected cl (OpenCL kernels) or cpu (CPU reference)");
      i++;
    } else if (!strcmp(a, "--device")) {
      drape_err e = {0};
      if (drape_app_parse_device(val, &o->device, &e))
        return bad("--device", val, "expected a device index (0, 1, ...; see `drape devices`)");
      i++;
    } else if (!strcmp(a, "--no-plot")) {
      o->plot = 0;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "drape compare: unknown option '%s'\n%s", a, usage_text);
      return 2;
    } else if (!o->scene_path) {
      o->scene_path = a;
    } else {
      fprintf(stderr, "drape compare: unexpected argument '%s' (one scene file only)\n%s", a,
              usage_text);
      return 2;
    }
  }
  if (!o->scene_path) {
    fprintf(stderr, "drape compare: missing SCENE (e.g. scenes/springs_seed001.json)\n%s",
            usage_text);
    return 2;
  }
  return 0;
}

/* ---- one run ---- */

typedef struct run_setup {
  const drape_scene *scene;    /* with solvers, dt and materials set        */
  drape_cl *cl;                /* shared runtime (NULL on the CPU backend)  */
  drape_backend backend;
  int frames;
  int keep_series;
  int kernel_form;             /* --kernel-form (drape_kernel_form, 0 auto) */
} run_setup;

/* Runs one configuration; a divergence is a result, not an error. */
static int run_one(const run_setup *su, drape_solver_kind solver, cmp_result *res, drape_err *e) {
  const drape_scene *sc = su->scene;
  memset(res, 0, sizeof *res);
  res->solver = solver;
  res->substeps = sc->substeps;
  res->h = sc->dt / sc->substeps;
  res->frames = su->frames;
  res->finite = 1;
  drape_world *world = NULL;
  drape_sim *sim = NULL;
  float *x = NULL;
  int rc;
  drape_world_def wd = drape_world_def_default();
  wd.backend = su->backend;
  wd.cl = su->cl;
  wd.kernel_form = su->kernel_form;
  if ((rc = drape_world_create(sc, &wd, &world, e))) goto done;
  sim = drape_world_sim(world);
  const int np = drape_sim_mesh(sim)->n_particles;
  const drape_mesh *mesh = drape_sim_mesh(sim);
  if (!(x = malloc(sizeof *x * 4 * (size_t)(np + 1)))) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
    goto done;
  }
  if (su->keep_series && !(res->series = calloc((size_t)su->frames + 1, sizeof *res->series))) {
    rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
    goto done;
  }
  double ms_sum = 0, mean_sum = 0;
  res->max_strain = -INFINITY;
  for (int f = 0; f <= su->frames; f++) {
    drape_err se = {0};
    int src = 0;
    if (dr_interrupted()) {
      rc = drape_fail(e, DRAPE_EIO, "interrupted");
      goto done;
    }
    if (f > 0) {
      double t0 = drape_now();
      src = drape_world_step(world, &se);
      ms_sum += 1e3 * (drape_now() - t0);
    }
    drape_world_stats st;
    if (!src) src = drape_world_get_stats(world, &st, &se);
    if (!src) src = drape_sim_read_positions(sim, x, &se);
    if (src == DRAPE_EUNSTABLE) {
      res->finite = 0;
      res->diverged_frame = f;
      snprintf(res->message, sizeof res->message, "%s", se.msg);
      break;
    }
    if (src) { /* a real failure (OpenCL, memory) */
      *e = se;
      rc = src;
      goto done;
    }
    /* energy and strain of this frame */
    double ke = st.kinetic_energy, ug = 0, ue = 0, mx = -INFINITY, mean = 0;
    int nobj = 0;
    for (int i = 0; i < np; i++) {
      float w = x[4 * i + 3];
      if (w == 0) continue;
      ug -= (1.0 / w) * (sc->gravity[0] * x[4 * i] + sc->gravity[1] * x[4 * i + 1] +
                         sc->gravity[2] * x[4 * i + 2]);
    }
    /* the springs' stored energy (springs solver; 0 for constraints) */
    for (int k = 0; k < mesh->n_objects; k++) ue += st.objects[k].elastic_energy;
    for (int k = 0; k < mesh->n_objects; k++, nobj++) {
      mx = fmax(mx, st.objects[k].max_strain);
      mean += st.objects[k].mean_strain;
    }
    for (int k = mesh->n_objects; k < st.n_objects; k++) { /* the cables */
      drape_world_object wo;
      drape_world_get_object(world, k, &wo, NULL);
      if (wo.kind != DRAPE_WORLD_CABLE) continue;
      nobj++;
      const drape_world_object_stats *cs = &st.objects[k];
      ke += cs->kinetic_energy;
      ug += cs->gravity_energy;
      ue += cs->elastic_energy;
      mx = fmax(mx, cs->max_strain);
      mean += cs->mean_strain;
    }
    mean = nobj ? mean / nobj : 0;
    double E = ke + ug + ue;
    if (!isfinite(E)) {
      res->finite = 0;
      res->diverged_frame = f;
      snprintf(res->message, sizeof res->message, "energy is not finite in frame %d", f);
      break;
    }
    if (f == 0) res->e0 = E;
    res->e_end = E;
    res->drift = E - res->e0;
    res->gain = fmax(res->gain, E - res->e0);
    res->final_max_strain = mx;
    if (f > 0) {
      res->max_strain = fmax(res->max_strain, mx);
      mean_sum += mean;
      res->frames_done = f;
    }
    if (res->series) {
      double *row = res->series[res->n_series++];
      row[0] = f * sc->dt;
      row[1] = mx;
      row[2] = mean;
      row[3] = E - res->e0;
      row[4] = ke;
    }
  }
  if (res->frames_done > 0) {
    res->ms_per_frame = ms_sum / res->frames_done;
    res->mean_strain = mean_sum / res->frames_done;
  } else {
    res->max_strain = NAN;
  }
done:
  free(x);
  drape_world_destroy(world);
  return rc;
}

/* Sets the solver of every cloth and rope (mutates the loaded scene; each
 * run builds its own solver from it). */
static void set_solver(drape_scene *s, drape_solver_kind k) {
  for (int i = 0; i < s->n_cloth; i++) s->cloth[i].solver = k;
  for (int i = 0; i < s->n_rope; i++) s->rope[i].solver = k;
}

/* The stiffness sweep's material: springs k x f, XPBD compliance 1/(k f)
 * for the stretch and shear links (alpha = 1/k, DESIGN.md), the cable's
 * ym x f and rope compliance l0^2 / (ym f) (k = ym / l0^2, seed 003). */
static void set_stiffness(drape_scene *s, const drape_scene *orig, double f) {
  for (int i = 0; i < s->n_cloth; i++) {
    const drape_cloth_def *o = &orig->cloth[i];
    s->cloth[i].stiffness = o->stiffness * f;
    s->cloth[i].bend_stiffness = o->bend_stiffness * f;
    s->cloth[i].compliance_stretch = 1.0 / (o->stiffness * f);
    s->cloth[i].compliance_shear = 1.0 / (o->stiffness * f);
  }
  for (int i = 0; i < s->n_rope; i++) {
    const drape_rope_def *o = &orig->rope[i];
    double l0 = o->length / o->segments;
    s->rope[i].ym = o->ym * f;
    s->rope[i].compliance = l0 * l0 / (o->ym * f);
  }
}

static void restore_materials(drape_scene *s, const drape_scene *orig) {
  for (int i = 0; i < s->n_cloth; i++) {
    s->cloth[i].stiffness = orig->cloth[i].stiffness;
    s->cloth[i].bend_stiffness = orig->cloth[i].bend_stiffness;
    s->cloth[i].compliance_stretch = orig->cloth[i].compliance_stretch;
    s->cloth[i].compliance_shear = orig->cloth[i].compliance_shear;
  }
  for (int i = 0; i < s->n_rope; i++) {
    s->rope[i].ym = orig->rope[i].ym;
    s->rope[i].compliance = orig->rope[i].compliance;
  }
}

/* ---- outputs ---- */

typedef struct out_file {
  FILE *f;
  char path[4200], tmp[4300];
} out_file;

static int out_open(out_file *o, const char *dir, const char *name, drape_err *e) {
  snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp%ld", o->path, (long)getpid());
  if (!(o->f = fopen(o->tmp, "w")))
    return drape_fail(e, DRAPE_EIO, "cannot write %s: %s", o->tmp, strerror(errno));
  return DRAPE_OK;
}

static int out_close(out_file *o, drape_err *e) {
  int bad_io = ferror(o->f);
  if (fclose(o->f) != 0 || bad_io) {
    remove(o->tmp);
    return drape_fail(e, DRAPE_EIO, "writing %s failed: %s", o->tmp, strerror(errno));
  }
  return dr_out_commit(o->tmp, o->path, "--out", e);
}

static void num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.9g", v);
  else fputs("null", f);
}
static void csvnum(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.9g", v);
  else fputs("nan", f);
}
static void jstr(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void json_result(FILE *f, const cmp_result *r) {
  fprintf(f, "{\"solver\": \"%s\", \"substeps\": %d, \"h\": %.9g, \"frames\": %d, "
             "\"frames_done\": %d, \"finite\": %s, \"diverged_frame\": %d, \"message\": ",
          drape_solver_name(r->solver), r->substeps, r->h, r->frames, r->frames_done,
          r->finite ? "true" : "false", r->diverged_frame);
  jstr(f, r->message);
  fputs(", \"max_strain\": ", f); num(f, r->max_strain);
  fputs(", \"mean_strain\": ", f); num(f, r->mean_strain);
  fputs(", \"final_max_strain\": ", f); num(f, r->final_max_strain);
  fputs(", \"energy_start\": ", f); num(f, r->e0);
  fputs(", \"energy_end\": ", f); num(f, r->e_end);
  fputs(", \"energy_drift\": ", f); num(f, r->drift);
  fputs(", \"energy_max_gain\": ", f); num(f, r->gain);
  fputs(", \"ms_per_frame\": ", f); num(f, r->ms_per_frame);
  fputs(", \"dt_factor\": ", f); num(f, r->dt_factor);
  fputs(", \"stiffness_factor\": ", f); num(f, r->stiffness_factor);
  if (r->sweep_kind) fprintf(f, ", \"sweep\": \"%s\"", r->sweep_kind == 1 ? "dt" : "stiffness");
  fputc('}', f);
}

static int write_outputs(const cmp_opts *o, const char *device, const cmp_result *main_r, int n_main,
                         const cmp_result *sw, int n_sw, drape_err *e) {
  out_file of;
  int rc;
  /* compare.csv */
  if ((rc = out_open(&of, o->out_dir, "compare.csv", e))) return rc;
  fputs("solver,substeps,h_s,frames,frames_done,finite,diverged_frame,max_strain,mean_strain,"
        "final_max_strain,energy_start_J,energy_end_J,energy_drift_J,energy_max_gain_J,"
        "ms_per_frame\n", of.f);
  for (int i = 0; i < n_main; i++) {
    const cmp_result *r = &main_r[i];
    fprintf(of.f, "%s,%d,%.9g,%d,%d,%d,%d,", drape_solver_name(r->solver), r->substeps, r->h, r->frames,
            r->frames_done, r->finite, r->diverged_frame);
    const double v[] = {r->max_strain, r->mean_strain, r->final_max_strain, r->e0, r->e_end,
                        r->drift, r->gain, r->ms_per_frame};
    for (int k = 0; k < 8; k++) {
      csvnum(of.f, v[k]);
      fputc(k < 7 ? ',' : '\n', of.f);
    }
  }
  if ((rc = out_close(&of, e))) return rc;
  /* sweep.csv */
  if ((rc = out_open(&of, o->out_dir, "sweep.csv", e))) return rc;
  fputs("sweep,factor,solver,h_s,frames,finite,diverged_frame,diverged_time_s,max_strain,"
        "energy_max_gain_J\n", of.f);
  for (int i = 0; i < n_sw; i++) {
    const cmp_result *r = &sw[i];
    int is_dt = r->sweep_kind == 1;
    fprintf(of.f, "%s,%g,%s,%.9g,%d,%d,%d,", is_dt ? "dt" : "stiffness",
            is_dt ? r->dt_factor : r->stiffness_factor, drape_solver_name(r->solver), r->h, r->frames,
            r->finite, r->diverged_frame);
    csvnum(of.f, r->finite ? NAN : r->diverged_frame * r->h * r->substeps);
    fputc(',', of.f);
    csvnum(of.f, r->max_strain);
    fputc(',', of.f);
    csvnum(of.f, r->gain);
    fputc('\n', of.f);
  }
  if ((rc = out_close(&of, e))) return rc;
  /* series_<solver>.csv */
  for (int i = 0; i < n_main; i++) {
    char name[64];
    snprintf(name, sizeof name, "series_%s.csv", drape_solver_name(main_r[i].solver));
    if ((rc = out_open(&of, o->out_dir, name, e))) return rc;
    fputs("time_s,max_strain,mean_strain,energy_minus_start_J,kinetic_J\n", of.f);
    for (int k = 0; k < main_r[i].n_series; k++)
      fprintf(of.f, "%.9g,%.9g,%.9g,%.9g,%.9g\n", main_r[i].series[k][0], main_r[i].series[k][1],
              main_r[i].series[k][2], main_r[i].series[k][3], main_r[i].series[k][4]);
    if ((rc = out_close(&of, e))) return rc;
  }
  /* compare.json */
  if ((rc = out_open(&of, o->out_dir, "compare.json", e))) return rc;
  FILE *f = of.f;
  fputs("{\n  \"scene\": ", f);
  jstr(f, o->scene_path);
  fprintf(f, ",\n  \"mode\": \"%s\", \"budget_ms\": ", o->budget_ms > 0 ? "equal-budget" : "equal-substeps");
  num(f, o->budget_ms > 0 ? o->budget_ms : NAN);
  fprintf(f, ",\n  \"backend\": \"%s\", \"device\": ", o->backend == DRAPE_BACKEND_CPU ? "cpu" : "cl");
  jstr(f, device);
  fputs(",\n  \"results\": [\n", f);
  for (int i = 0; i < n_main; i++) {
    fputs("    ", f);
    json_result(f, &main_r[i]);
    fputs(i + 1 < n_main ? ",\n" : "\n", f);
  }
  fputs("  ],\n  \"sweeps\": [\n", f);
  for (int i = 0; i < n_sw; i++) {
    fputs("    ", f);
    json_result(f, &sw[i]);
    fputs(i + 1 < n_sw ? ",\n" : "\n", f);
  }
  fputs("  ],\n  \"series_columns\": [\"time_s\", \"max_strain\", \"mean_strain\", "
        "\"energy_minus_start_J\", \"kinetic_J\"],\n  \"series\": {", f);
  for (int i = 0; i < n_main; i++) {
    fprintf(f, "%s\n    \"%s\": [", i ? "," : "", drape_solver_name(main_r[i].solver));
    for (int k = 0; k < main_r[i].n_series; k++) {
      fputs(k ? ", [" : "[", f);
      for (int q = 0; q < 5; q++) {
        num(f, main_r[i].series[k][q]);
        if (q < 4) fputs(", ", f);
      }
      fputc(']', f);
    }
    fputc(']', f);
  }
  fputs("\n  }\n}\n", f);
  return out_close(&of, e);
}

/* compare.png: strain and energy over time, one line per solver. */
static int plot(const cmp_opts *o, const cmp_result *r, int n, drape_err *e) {
  char gp[4096];
  if (!drape_find_on_path("gnuplot", gp, sizeof gp)) {
    printf("gnuplot not found (apt-get install gnuplot-nox): no plot\n");
    return DRAPE_OK;
  }
  out_file of;
  int rc = out_open(&of, o->out_dir, "compare.gp", e);
  if (rc) return rc;
  FILE *f = of.f;
  /* gnuplot runs inside DIR (core/spawn.c, no shell) and the script names
   * only fixed files there; the scene path in the title is a gnuplot string
   * with its quotes doubled. No name is ever parsed as a command. */
  char png[64];
  snprintf(png, sizeof png, "compare.png.tmp%ld", (long)getpid());
  fputs("set terminal pngcairo size 1200,900 font ',11'\nset output ", f);
  dr_gp_str(f, png);
  fputs("\nset datafile separator ','\nset key outside right\nset grid\n"
        "set multiplot layout 2,1 title ", f);
  char title[4200];
  snprintf(title, sizeof title, "drape compare: %s", o->scene_path);
  dr_gp_str(f, title);
  fputs(" noenhanced\n", f);
  fputs("set ylabel 'max link strain'\nset logscale y\nset format y '%g'\n"
        "set yrange [1e-4:*]\nplot ", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s'series_%s.csv' every ::1 using 1:($2 > 1e-6 ? $2 : 1e-6) with lines lw 2 "
               "title '%s'", i ? ", " : "", drape_solver_name(r[i].solver), drape_solver_name(r[i].solver));
  fputs("\nunset logscale y\nset yrange [*:*]\nset xlabel 'time (s)'\n"
        "set ylabel 'E(t) - E(0) (J)'\nplot ", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s'series_%s.csv' every ::1 using 1:4 with lines lw 2 title '%s'",
            i ? ", " : "", drape_solver_name(r[i].solver), drape_solver_name(r[i].solver));
  fputs("\nunset multiplot\n", f);
  if ((rc = out_close(&of, e))) return rc;
  const char *argv[] = {gp, "compare.gp", NULL};
  dr_spawn_opts so = dr_spawn_opts_default();
  so.cwd = o->out_dir;
  char tmp_png[4300], final_png[4300];
  snprintf(tmp_png, sizeof tmp_png, "%s/%s", o->out_dir, png);
  snprintf(final_png, sizeof final_png, "%s/compare.png", o->out_dir);
  drape_err ge = {0};
  if (dr_spawn_run(argv, &so, "compare.png", &ge) ||
      dr_out_commit(tmp_png, final_png, "--out", &ge)) {
    unlink(tmp_png);
    return drape_fail(e, DRAPE_EIO, "%s; no plot (the CSV and JSON files are complete; "
                      "--no-plot skips it)", ge.msg);
  }
  return DRAPE_OK;
}

/* --out before anything runs: the folder exists or can be created, and
 * none of the files written there is a folder, device, FIFO, link or the
 * scene itself (exit 2 at once, not after every solver ran). */
static int check_out(const cmp_opts *o, const drape_solver_kind *solvers, int n, drape_err *e) {
  int rc = dr_out_dir_check(o->out_dir, "--out", e);
  struct stat st;
  if (rc || stat(o->out_dir, &st) != 0) return rc;
  const char *inputs[1] = {o->scene_path};
  const char *fixed[] = {"compare.csv", "sweep.csv", "compare.json", "compare.gp", "compare.png"};
  char path[4300];
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", o->out_dir, fixed[i]);
    if ((rc = dr_out_file_check(path, "--out", inputs, 1, e))) return rc;
  }
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/series_%s.csv", o->out_dir, drape_solver_name(solvers[i]));
    if ((rc = dr_out_file_check(path, "--out", inputs, 1, e))) return rc;
  }
  return DRAPE_OK;
}

static void cell(char *buf, size_t cap, const cmp_result *r) {
  if (r->finite) snprintf(buf, cap, "ok  strain %.3g", r->max_strain);
  else snprintf(buf, cap, "DIVERGED t=%.3gs", r->diverged_frame * r->h * r->substeps);
}

int cmd_compare(dr_app *app, int argc, char **argv) {
  cmp_opts o;
  memset(&o, 0, sizeof o);
  o.out_dir = "compare";
  o.device = -1;
  o.plot = 1;
  o.sweep_dt = o.sweep_k = 1;
  o.backend = DRAPE_BACKEND_CL;
  int prc = parse_args(&o, argc, argv);
  if (prc) return prc < 0 ? 0 : prc;
  drape_err e = {0};
  if (o.device < 0) o.device = app->device;
  drape_scene sc, orig;
  if (drape_scene_load(o.scene_path, &sc, &e)) return drape_app_report(&e);
  if (drape_scene_load(o.scene_path, &orig, &e)) {
    drape_scene_free(&sc);
    return drape_app_report(&e);
  }
  int code = 0;
  drape_cl cl;
  int have_cl = 0;
  cmp_result main_r[MAX_SOLVERS], *sw = calloc(MAX_ROWS, sizeof *sw);
  memset(main_r, 0, sizeof main_r);
  int n_main = 0, n_sw = 0;
  if (!sw) { code = drape_app_report(&(drape_err){DRAPE_ENOMEM, "out of memory"}); goto out; }
  if (!o.frames) o.frames = sc.frames;
  if (o.frames <= 0) {
    code = bad("--frames", "", "missing: the scene has no \"frames\" key, so give --frames N");
    goto out;
  }
  /* applicable solvers */
  drape_solver_kind app_s[MAX_SOLVERS];
  int n_app = 0;
  if (sc.n_cloth == 0 && sc.n_rope == 0) {
    drape_fail(&e, DRAPE_EINVAL, "%s: no cloth or rope to compare (strings run with `drape string`)",
               o.scene_path);
    code = drape_app_report(&e);
    goto out;
  }
  app_s[n_app++] = DRAPE_SOLVER_XPBD;
  app_s[n_app++] = DRAPE_SOLVER_JAKOBSEN;
  if (sc.n_rope == 0) app_s[n_app++] = DRAPE_SOLVER_SPRINGS;
  else if (sc.n_cloth == 0) app_s[n_app++] = DRAPE_SOLVER_IMPLICIT;
  else
    printf("note: the scene has cloth and rope: springs (cloth only) and implicit (rope only) "
           "are left out\n");
  drape_solver_kind run_s[MAX_SOLVERS];
  int n_run = 0;
  if (o.n_solvers) {
    for (int i = 0; i < o.n_solvers; i++) {
      int ok = 0;
      for (int k = 0; k < n_app; k++) ok |= (int)app_s[k] == o.solvers[i];
      if (!ok) {
        drape_fail(&e, DRAPE_EINVAL, "--solvers: \"%s\" does not apply to %s (it has %d cloth and "
                   "%d rope objects; springs is for cloth-only scenes, implicit for rope-only ones)",
                   drape_solver_name((drape_solver_kind)o.solvers[i]), o.scene_path, sc.n_cloth, sc.n_rope);
        code = drape_app_report(&e);
        goto out;
      }
      run_s[n_run++] = (drape_solver_kind)o.solvers[i];
    }
  } else {
    memcpy(run_s, app_s, sizeof run_s);
    n_run = n_app;
  }
  /* every solver's scene must be valid before anything runs */
  for (int i = 0; i < n_run; i++) {
    set_solver(&sc, run_s[i]);
    if (drape_scene_validate(&sc, &e)) { code = drape_app_report(&e); goto out; }
  }
  if (check_out(&o, run_s, n_run, &e) || dr_make_dirs(o.out_dir, "--out", &e)) {
    code = drape_app_report(&e);
    goto out;
  }
  /* SIGINT/SIGTERM end the runs at the next frame; nothing is written
   * then, so the folder keeps its last complete results. */
  dr_interrupt_install();
  const char *device = "CPU reference (1 thread)";
  if (o.backend == DRAPE_BACKEND_CL) {
    int want = -1;
    drape_cl_opts co = drape_cl_default_opts();
    if (drape_cl_requested_device(o.device, &want, &e)) { code = drape_app_report(&e); goto out; }
    co.device_index = want;
    if (drape_cl_init(&cl, &co, &e)) { code = drape_app_report(&e); goto out; }
    have_cl = 1;
    device = cl.device_name;
  }
  run_setup su = {&sc, have_cl ? &cl : NULL, o.backend, o.frames, 1, app->kernel_form};
  printf("drape compare %s: %d frames of %.6g s, %s, on %s\n", o.scene_path, o.frames, sc.dt,
         o.budget_ms > 0 ? "equal wall-clock budget per frame" : "equal substeps", device);
  printf("%-9s %8s %10s %7s %11s %11s %12s %12s %9s\n", "solver", "substeps", "h (s)", "finite",
         "max strain", "mean strain", "E drift (J)", "E gain (J)", "ms/frame");
  for (int i = 0; i < n_run; i++) {
    set_solver(&sc, run_s[i]);
    sc.substeps = orig.substeps;
    if (o.budget_ms > 0) {
      /* calibrate: ms per substep from a short run at the scene's substeps */
      run_setup cal = su;
      cal.frames = o.frames < 10 ? o.frames : 10;
      cal.keep_series = 0;
      cmp_result cr;
      if (run_one(&cal, run_s[i], &cr, &e)) { code = drape_app_report(&e); goto out; }
      double per_sub = cr.frames_done ? cr.ms_per_frame / orig.substeps : 0;
      long s = per_sub > 0 ? (long)floor(o.budget_ms / per_sub) : orig.substeps;
      sc.substeps = (int)(s < 1 ? 1 : s > 100000 ? 100000 : s);
    }
    if (run_one(&su, run_s[i], &main_r[n_main], &e)) { code = drape_app_report(&e); goto out; }
    const cmp_result *r = &main_r[n_main++];
    printf("%-9s %8d %10.4g %7s %11.4g %11.4g %12.4g %12.4g %9.3f\n", drape_solver_name(r->solver),
           r->substeps, r->h, r->finite ? "yes" : "NO", r->max_strain, r->mean_strain, r->drift,
           r->gain, r->ms_per_frame);
    if (!r->finite) printf("          %s\n", r->message);
  }
  sc.substeps = orig.substeps;
  /* sweeps (equal substeps, the scene's frame count scaled to sweep_time) */
  double T = o.sweep_time > 0 ? o.sweep_time : fmin(2.0, o.frames * orig.dt);
  static const double dt_f[] = {0.5, 1, 2, 4, 8}, k_f[] = {1, 4, 16, 64};
  char c1[64];
  for (int pass = 0; pass < 2; pass++) {
    if ((pass == 0 && !o.sweep_dt) || (pass == 1 && !o.sweep_k)) continue;
    const double *fs = pass == 0 ? dt_f : k_f;
    int nf = pass == 0 ? 5 : 4;
    if (pass == 0)
      printf("\ndt sweep: substep h = factor x %.4g s (same substeps), %.3g s simulated\n",
             orig.dt / orig.substeps, T);
    else
      printf("\nstiffness sweep at h = %.4g s, %.3g s simulated: springs k x factor, xpbd "
             "compliance 1/(k x factor), implicit ym x factor, jakobsen rigid\n",
             orig.dt / orig.substeps, T);
    printf("%-8s %10s", "factor", "h (s)");
    for (int i = 0; i < n_run; i++) printf("  %-20s", drape_solver_name(run_s[i]));
    printf("\n");
    for (int q = 0; q < nf; q++) {
      sc.dt = pass == 0 ? orig.dt * fs[q] : orig.dt;
      if (pass == 1) set_stiffness(&sc, &orig, fs[q]);
      run_setup ss = su;
      ss.keep_series = 0;
      ss.frames = (int)ceil(T / sc.dt - 1e-9);
      if (ss.frames < 1) ss.frames = 1;
      printf("%-8g %10.4g", fs[q], sc.dt / sc.substeps);
      for (int i = 0; i < n_run && n_sw < MAX_ROWS; i++) {
        set_solver(&sc, run_s[i]);
        cmp_result *r = &sw[n_sw];
        if (drape_scene_validate(&sc, &e) || run_one(&ss, run_s[i], r, &e)) {
          printf("\n");
          code = drape_app_report(&e);
          goto out;
        }
        n_sw++;
        r->sweep_kind = pass + 1;
        r->dt_factor = pass == 0 ? fs[q] : 1;
        r->stiffness_factor = pass == 1 ? fs[q] : 1;
        cell(c1, sizeof c1, r);
        printf("  %-20s", c1);
        fflush(stdout);
      }
      printf("\n");
      restore_materials(&sc, &orig);
    }
    sc.dt = orig.dt;
  }
  if (write_outputs(&o, device, main_r, n_main, sw, n_sw, &e)) { code = drape_app_report(&e); goto out; }
  if (o.plot && plot(&o, main_r, n_main, &e)) { code = drape_app_report(&e); goto out; }
  printf("\nwrote %s/compare.csv, sweep.csv, series_*.csv, compare.json%s\n", o.out_dir,
         o.plot ? ", compare.png" : "");
out:
  if (dr_interrupted()) {
    int sig = dr_interrupted();
    fprintf(stderr, "drape compare: interrupted by %s; %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
            code ? "nothing written" : "the outputs were complete");
    if (code) code = dr_interrupt_exit_code(sig);
  }
  for (int i = 0; i < n_main; i++) free(main_r[i].series);
  free(sw);
  if (have_cl) drape_cl_release(&cl);
  drape_scene_free(&sc);
  drape_scene_free(&orig);
  return code;
}
