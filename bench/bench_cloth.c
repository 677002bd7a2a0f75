/* bench_cloth — speed and strain of the cloth solver (issue 7, "Speed").
 *
 *  1. Ladder: an n x n cloth (1 cm spacing) pinned at two corners of one
 *     edge, 20 substeps x 1 iteration, tethers on, for n = 64 ... 1024, on
 *     the OpenCL device and on the CPU reference backend in one run: ms per
 *     frame and per substep, constraint projections per second, kernel
 *     launches, host<->device bytes per frame, device memory.
 *  2. The target scene: the 256 x 256 cloth pinned at two corners over a
 *     sphere (scenes/large_cloth.json, built here in code), 20 x 1, tethers
 *     on and off: ms per 1/60 s frame on OpenCL and the CPU reference,
 *     per-stage device times (event profiling), and max / mean strain.
 *
 * Prints a table and writes PREFIX.csv and PREFIX.json (machine, device,
 * date). Usage:
 *   bench_cloth [--out PREFIX] [--sizes 64,128,...] [--frames N] [--quick] [--scene-only]
 * (--scene-only skips the ladder: part 2 alone, e.g. to repeat it when the
 * shared machine is quiet).
 * Default PREFIX: bench/results/cloth-HOST-DATE (relative to the current
 * directory; run it from the repository root). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cl/runtime.h"
#include "drape/cloth.h"
#include "drape/scene.h"

#define MAX_SIZES 8

typedef struct ladder_row {
  int n;
  const char *backend;
  int particles, constraints, colours, frames;
  double ms_frame, ms_substep, mproj_s; /* from the median frame        */
  double ms_min;                       /* fastest frame                 */
  double h2d, d2h, launches;
  double device_mb;
  double mean_strain, max_strain;
  int skipped;
} ladder_row;

typedef struct scene_row {
  const char *label;
  const char *backend;
  int tethers, frames;
  double ms_frame;              /* median over the timed frames          */
  double ms_frame_min;
  double ms_frame_mean;
  double mean_strain_end, max_strain_end, mean_abs_end;
  double mean_strain_peak, max_strain_peak; /* over the frames after 2 s */
  double ms_stage[DRAPE_STAGE_COUNT];
  int has_stages;
} scene_row;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void die(const drape_err *e) {
  fprintf(stderr, "bench_cloth: %s\n", e->msg);
  exit(1);
}

/* The ladder cloth: n x n, 1 cm, pinned at (0,0) and (0,n-1), horizontal
 * at 1 m + n cm so it never reaches a floor (there is none). */
static void ladder_scene(drape_scene *s, int n) {
  drape_scene_init(s);
  s->substeps = 20;
  s->iterations = 1;
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "cloth%d", n);
  c.rows = c.cols = n;
  c.spacing = 0.01;
  c.origin[0] = c.origin[2] = -0.005 * (n - 1);
  c.origin[1] = 1.0 + 0.01 * n;
  c.tethers = 1;
  c.n_pins = 2;
  c.pins = malloc(2 * sizeof *c.pins);
  c.pins[0][0] = 0; c.pins[0][1] = 0; c.pins[1][0] = 0; c.pins[1][1] = n - 1;
  drape_scene_add_cloth(s, &c);
}

/* scenes/large_cloth.json */
static void large_scene(drape_scene *s, int tethers) {
  drape_scene_init(s);
  s->dt = 0.016666;
  s->substeps = 20;
  s->iterations = 1;
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "large");
  c.rows = c.cols = 256;
  c.spacing = 0.01;
  c.origin[0] = -1.275; c.origin[1] = 1.6; c.origin[2] = -1.275;
  c.mass_per_area = 0.2;
  c.compliance_stretch = 0; c.compliance_shear = 1e-6; c.compliance_bend = 1e-3;
  c.damping = 0.01;
  c.thickness = 0.01;
  c.tethers = tethers;
  c.n_pins = 2;
  c.pins = malloc(2 * sizeof *c.pins);
  c.pins[0][0] = 0; c.pins[0][1] = 0; c.pins[1][0] = 0; c.pins[1][1] = 255;
  drape_scene_add_cloth(s, &c);
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[1] = 0.8;
  sp.radius = 0.5;
  sp.friction = 0.3;
  drape_scene_add_sphere(s, &sp);
  s->has_floor = 1;
  s->floor_height = 0;
  s->floor_friction = 0.5;
}

static drape_sim *create(const drape_scene *s, drape_backend be, int profiling) {
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = be;
  o.profiling = profiling;
  drape_sim *sim = NULL;
  drape_err e = {0};
  if (drape_sim_create(s, &o, &sim, &e)) die(&e);
  return sim;
}

static void step(drape_sim *sim) {
  drape_err e = {0};
  if (drape_sim_step(sim, &e)) die(&e);
}

static void run_ladder(int n, drape_backend be, double budget_s, ladder_row *r) {
  drape_scene s;
  ladder_scene(&s, n);
  memset(r, 0, sizeof *r);
  r->n = n;
  r->backend = be == DRAPE_BACKEND_CL ? "opencl" : "cpu";
  drape_sim *sim = create(&s, be, 0);
  const drape_mesh *m = drape_sim_mesh(sim);
  r->particles = m->n_particles;
  r->constraints = m->n_constraints;
  r->colours = m->n_colours;
  step(sim); /* warm-up: first launches, page faults */
  double t0 = drape_now();
  drape_timings tm;
  uint64_t h2d = 0, d2h = 0, launches = 0, proj = 0;
  double ms[400];
  int frames = 0;
  do {
    step(sim);
    drape_sim_timings(sim, &tm);
    ms[frames] = tm.ms_frame;
    h2d += tm.bytes_to_device;
    d2h += tm.bytes_from_device;
    launches += tm.launches;
    proj += tm.projections;
    frames++;
  } while ((drape_now() - t0 < budget_s || frames < 3) && frames < 400);
  qsort(ms, (size_t)frames, sizeof ms[0], cmp_double);
  r->frames = frames;
  r->ms_frame = ms[frames / 2];
  r->ms_min = ms[0];
  r->ms_substep = r->ms_frame / s.substeps;
  r->mproj_s = (double)proj / frames / (r->ms_frame * 1e-3) * 1e-6;
  r->h2d = (double)h2d / frames;
  r->d2h = (double)d2h / frames;
  r->launches = (double)launches / frames;
  r->device_mb = (double)tm.device_bytes / (1024.0 * 1024.0);
  drape_stats st;
  drape_err e = {0};
  if (drape_sim_stats(sim, &st, &e)) die(&e);
  r->mean_strain = st.objects[0].mean_strain;
  r->max_strain = st.objects[0].max_strain;
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* The target scene for `frames` frames; strain peaks are taken over the
 * frames after the cloth has met the sphere (t >= 2 s). */
static void run_large(drape_backend be, int tethers, int frames, int profile_frames, scene_row *r) {
  drape_scene s;
  large_scene(&s, tethers);
  memset(r, 0, sizeof *r);
  r->label = "256x256 over sphere";
  r->backend = be == DRAPE_BACKEND_CL ? "opencl" : "cpu";
  r->tethers = tethers;
  drape_sim *sim = create(&s, be, 0);
  double *ms = malloc(sizeof *ms * (size_t)frames), sum = 0;
  drape_err e = {0};
  for (int f = 1; f <= frames; f++) {
    step(sim);
    drape_timings tm;
    drape_sim_timings(sim, &tm);
    ms[f - 1] = tm.ms_frame;
    sum += tm.ms_frame;
    if (f * s.dt >= 2.0 || f == frames) {
      drape_stats st;
      if (drape_sim_stats(sim, &st, &e)) die(&e);
      r->mean_strain_end = st.objects[0].mean_strain;
      r->max_strain_end = st.objects[0].max_strain;
      r->mean_abs_end = st.objects[0].mean_abs_strain;
      if (st.objects[0].mean_strain > r->mean_strain_peak) r->mean_strain_peak = st.objects[0].mean_strain;
      if (st.objects[0].max_strain > r->max_strain_peak) r->max_strain_peak = st.objects[0].max_strain;
    }
  }
  qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
  r->frames = frames;
  r->ms_frame = ms[frames / 2];
  r->ms_frame_min = ms[0];
  r->ms_frame_mean = sum / frames;
  free(ms);
  drape_sim_destroy(sim);
  if (profile_frames > 0) {
    /* per-stage times: a separate profiled run (events add a little time) */
    sim = create(&s, be, 1);
    for (int f = 0; f < 2; f++) step(sim);
    for (int f = 0; f < profile_frames; f++) {
      step(sim);
      drape_timings tm;
      drape_sim_timings(sim, &tm);
      for (int k = 0; k < DRAPE_STAGE_COUNT; k++) r->ms_stage[k] += tm.ms[k] / profile_frames;
      r->has_stages = tm.stage_times_valid;
    }
    drape_sim_destroy(sim);
  }
  drape_scene_free(&s);
}

/* The 1-minute load average: the machine is shared, so every result file
 * says how busy it was. */
static double loadavg(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

static void cpu_model(char *out, size_t cap) {
  snprintf(out, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10)) {
      char *p = strchr(line, ':');
      if (p) {
        p += 2;
        p[strcspn(p, "\n")] = 0;
        snprintf(out, cap, "%s", p);
      }
      break;
    }
  fclose(f);
}

int main(int argc, char **argv) {
  int sizes[MAX_SIZES] = {64, 128, 256, 512, 1024}, n_sizes = 5;
  int frames = 300, quick = 0, scene_only = 0;
  const char *prefix = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) prefix = argv[++i];
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--scene-only")) scene_only = 1;
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      n_sizes = 0;
      for (char *t = strtok(argv[++i], ","); t && n_sizes < MAX_SIZES; t = strtok(NULL, ","))
        sizes[n_sizes++] = atoi(t);
    } else {
      fprintf(stderr, "usage: bench_cloth [--out PREFIX] [--sizes 64,128,...] [--frames N] "
                      "[--quick] [--scene-only]\n");
      return 2;
    }
  }
  if (frames < 1) frames = 1;
  if (quick) frames = frames < 120 ? frames : 120;

  char host[256] = "host", date[64], cpu[256];
  gethostname(host, sizeof host);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
  cpu_model(cpu, sizeof cpu);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  char dev[600] = "?";
  {
    drape_cl cl;
    drape_err e = {0};
    drape_cl_opts co = drape_cl_default_opts();
    if (drape_cl_init(&cl, &co, &e)) die(&e);
    snprintf(dev, sizeof dev, "%s (%s, %u compute units)", cl.device_name, cl.platform_name,
             cl.compute_units);
    drape_cl_release(&cl);
  }
  char def_prefix[600];
  if (!prefix) {
    snprintf(def_prefix, sizeof def_prefix, "bench/results/cloth-%s-%s", host, date);
    prefix = def_prefix;
  }
  const double load0 = loadavg();
  printf("bench_cloth: %s, %ld CPUs (%s); OpenCL device: %s; %s; load average %.2f\n\n", host,
         ncpu, cpu, dev, date, load0);

  /* ---- 1. ladder ---- */
  ladder_row lad[2 * MAX_SIZES];
  int nl = 0;
  printf("1. n x n cloth, 1 cm, two corners pinned, 20 substeps x 1 iteration, tethers on\n");
  printf("(ms/frame: median frame; min: fastest frame; Mproj/s from the median)\n");
  printf("%6s %-7s %9s %11s %4s %9s %8s %9s %9s %8s %8s %8s %9s\n", "n", "backend", "particles",
         "constraints", "col", "ms/frame", "min", "ms/subst", "Mproj/s", "launch/f", "h2d B/f",
         "d2h B/f", "device MB");
  if (scene_only) n_sizes = 0;
  for (int k = 0; k < n_sizes; k++)
    for (int b = 0; b < 2; b++) {
      ladder_row *r = &lad[nl++];
      drape_backend be = b ? DRAPE_BACKEND_CPU : DRAPE_BACKEND_CL;
      double budget = quick ? 0.5 : 2.0;
      run_ladder(sizes[k], be, budget, r);
      printf("%6d %-7s %9d %11d %4d %9.2f %8.2f %9.3f %9.1f %8.0f %8.0f %8.0f %9.1f\n", r->n,
             r->backend, r->particles, r->constraints, r->colours, r->ms_frame, r->ms_min,
             r->ms_substep, r->mproj_s, r->launches, r->h2d, r->d2h, b ? 0.0 : r->device_mb);
      fflush(stdout);
    }
  printf("(speed-up of OpenCL over the CPU reference:");
  for (int k = 0; k + 1 < nl; k += 2) printf(" %d^2 %.2fx", lad[k].n, lad[k + 1].ms_frame / lad[k].ms_frame);
  printf(")\n\n");

  /* ---- 2. the target scene ---- */
  scene_row sc[3];
  printf("2. 256 x 256 cloth pinned at two corners over a sphere (scenes/large_cloth.json), "
         "20 x 1, %d frames (%.1f s)\n", frames, frames * 0.016666);
  run_large(DRAPE_BACKEND_CL, 1, frames, quick ? 10 : 30, &sc[0]);
  run_large(DRAPE_BACKEND_CL, 0, frames, 0, &sc[1]);
  run_large(DRAPE_BACKEND_CPU, 1, quick ? 10 : 30, 0, &sc[2]);
  printf("%-7s %-8s %6s %9s %9s %9s %12s %12s %12s %12s\n", "backend", "tethers", "frames",
         "ms/frame", "min ms", "mean ms", "mean strain", "max strain", "peak mean", "peak max");
  for (int i = 0; i < 3; i++) {
    scene_row *r = &sc[i];
    printf("%-7s %-8s %6d %9.2f %9.2f %9.2f %12.5f %12.4f %12.5f %12.4f\n", r->backend,
           r->tethers ? "on" : "off", r->frames, r->ms_frame, r->ms_frame_min, r->ms_frame_mean,
           r->mean_strain_end, r->max_strain_end, r->mean_strain_peak, r->max_strain_peak);
  }
  printf("(strain: at the last frame; peaks over t >= 2 s; mean = mean stretch of structural "
         "links, compression not counted; mean |strain| at the end: %.5f with tethers, %.5f "
         "without. CPU run: %d frames, timing only)\n", sc[0].mean_abs_end, sc[1].mean_abs_end,
         sc[2].frames);
  printf("OpenCL per stage (ms per frame, event profiling):");
  for (int k = 0; k < DRAPE_STAGE_COUNT; k++)
    if (sc[0].ms_stage[k] > 0) printf(" %s %.2f", drape_stage_name((drape_stage)k), sc[0].ms_stage[k]);
  printf("\nspeed-up over the CPU reference on this scene: %.2fx (median frames), %.2fx (fastest)\n",
         sc[2].ms_frame / sc[0].ms_frame, sc[2].ms_frame_min / sc[0].ms_frame_min);

  const double load1 = loadavg();
  printf("load average at the start %.2f, at the end %.2f (other processes share the %ld CPUs)\n",
         load0, load1, ncpu);

  /* ---- files ---- */
  char path[700];
  snprintf(path, sizeof path, "%s.csv", prefix);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "bench_cloth: cannot write %s: %s\n", path, strerror(errno));
    return 1;
  }
  fprintf(f, "# bench_cloth %s on %s (%ld CPUs, %s), OpenCL device %s, load average %.2f -> %.2f\n",
          date, host, ncpu, cpu, dev, load0, load1);
  fprintf(f, "part,n,backend,tethers,particles,constraints,colours,frames,ms_frame,ms_substep,"
             "mproj_per_s,launches_per_frame,h2d_bytes_per_frame,d2h_bytes_per_frame,device_mb,"
             "mean_strain,max_strain,peak_mean_strain,peak_max_strain\n");
  for (int i = 0; i < nl; i++) {
    ladder_row *r = &lad[i];
    fprintf(f, "ladder,%d,%s,1,%d,%d,%d,%d,%.4f,%.4f,%.5f,%.2f,%.0f,%.0f,%.0f,%.2f,%.6f,%.6f,,\n", r->n,
            r->backend, r->particles, r->constraints, r->colours, r->frames, r->ms_frame,
            r->ms_min, r->ms_substep, r->mproj_s, r->launches, r->h2d, r->d2h,
            strcmp(r->backend, "cpu") ? r->device_mb : 0.0, r->mean_strain, r->max_strain);
  }
  for (int i = 0; i < 3; i++) {
    scene_row *r = &sc[i];
    fprintf(f, "large_sphere,256,%s,%d,65536,,,%d,%.4f,%.4f,%.5f,,,,,,%.6f,%.6f,%.6f,%.6f\n", r->backend,
            r->tethers, r->frames, r->ms_frame, r->ms_frame_min, r->ms_frame / 20, r->mean_strain_end,
            r->max_strain_end, r->mean_strain_peak, r->max_strain_peak);
  }
  fclose(f);
  printf("\nwrote %s", path);
  snprintf(path, sizeof path, "%s.json", prefix);
  f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "\nbench_cloth: cannot write %s: %s\n", path, strerror(errno));
    return 1;
  }
  fprintf(f, "{\n  \"benchmark\": \"bench_cloth\", \"date\": \"%s\", \"host\": \"%s\", \"cpus\": %ld,\n"
             "  \"cpu\": \"%s\", \"opencl_device\": \"%s\", \"load_average\": [%.2f, %.2f],\n"
             "  \"ladder\": [\n", date, host, ncpu, cpu, dev, load0, load1);
  for (int i = 0; i < nl; i++) {
    ladder_row *r = &lad[i];
    fprintf(f, "    {\"n\": %d, \"backend\": \"%s\", \"particles\": %d, \"constraints\": %d, "
               "\"colours\": %d, \"frames\": %d, \"ms_frame\": %.4f, \"ms_frame_min\": %.4f, \"ms_substep\": %.5f, "
               "\"mproj_per_s\": %.2f, \"launches_per_frame\": %.0f, \"h2d_bytes_per_frame\": %.0f, "
               "\"d2h_bytes_per_frame\": %.0f, \"device_mb\": %.2f}%s\n", r->n, r->backend,
            r->particles, r->constraints, r->colours, r->frames, r->ms_frame, r->ms_min, r->ms_substep,
            r->mproj_s, r->launches, r->h2d, r->d2h, strcmp(r->backend, "cpu") ? r->device_mb : 0.0,
            i + 1 < nl ? "," : "");
  }
  fprintf(f, "  ],\n  \"large_sphere\": [\n");
  for (int i = 0; i < 3; i++) {
    scene_row *r = &sc[i];
    fprintf(f, "    {\"backend\": \"%s\", \"tethers\": %s, \"frames\": %d, \"ms_frame\": %.4f, "
               "\"ms_frame_min\": %.4f, \"ms_frame_mean\": %.4f, \"mean_strain\": %.6f, \"max_strain\": %.6f, "
               "\"mean_abs_strain\": %.6f, \"peak_mean_strain\": %.6f, \"peak_max_strain\": %.6f",
            r->backend, r->tethers ? "true" : "false", r->frames, r->ms_frame, r->ms_frame_min,
            r->ms_frame_mean, r->mean_strain_end, r->max_strain_end, r->mean_abs_end, r->mean_strain_peak,
            r->max_strain_peak);
    if (r->has_stages) {
      fprintf(f, ", \"ms_stage\": {");
      for (int k = 0; k < DRAPE_STAGE_COUNT; k++)
        fprintf(f, "%s\"%s\": %.4f", k ? ", " : "", drape_stage_name((drape_stage)k), r->ms_stage[k]);
      fprintf(f, "}");
    }
    fprintf(f, "}%s\n", i < 2 ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  fclose(f);
  printf(" and %s\n", path);
  return 0;
}
