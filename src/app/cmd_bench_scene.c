/* drape bench --scene FILE (issue 17): one scene's cost per stage, and the
 * colliders' stage against the cloth solve (every other stage), e.g. for
 * the target "colliders <= 0.5x the cloth solve" (BENCHMARKS.md,
 * "Colliders"). Through the world like every command; OpenCL stage times
 * come from event profiling, the CPU reference's from the wall clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "drape/cloth.h"
#include "drape/world.h"
#include "io/io.h"

static const char *usage_text =
    "usage: drape [--device K] [--kernel-form F] bench --scene FILE [--frames N] [--warmup N]\n"
    "                                                  [--backend cl|cpu]\n";

static int bad(const char *flag, const char *value, const char *what) {
  fprintf(stderr, "drape bench: %s \"%s\": %s\n%s", flag, value ? value : "", what, usage_text);
  return 2;
}

int cmd_bench_scene(dr_app *app, int argc, char **argv) {
  const char *path = NULL;
  int frames = 30, warmup = 10;
  drape_world_def def = drape_world_def_default();
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("%s\nSteps the scene FILE for N timed frames after the warm-up ones and prints\n"
             "the mean ms per frame of each stage, then the colliders' stage (capsules\n"
             "and mesh colliders) against the cloth solve (every other stage).\n"
             "  --frames N   timed frames (1..100000, default 30)\n"
             "  --warmup N   untimed frames first (0..100000, default 10)\n"
             "  --backend    cl (default) or cpu (the CPU reference)\n", usage_text);
      return 0;
    } else if (!strcmp(a, "--scene")) {
      if (!val || !*val) return bad("--scene", val, "expected a scene file");
      path = val, i++;
    } else if (!strcmp(a, "--frames")) {
      if (!dr_parse_int(val, 1, 100000, &frames)) return bad("--frames", val, "expected 1..100000");
      i++;
    } else if (!strcmp(a, "--warmup")) {
      if (!dr_parse_int(val, 0, 100000, &warmup)) return bad("--warmup", val, "expected 0..100000");
      i++;
    } else if (!strcmp(a, "--backend")) {
      if (val && !strcmp(val, "cl")) def.backend = DRAPE_BACKEND_CL;
      else if (val && !strcmp(val, "cpu")) def.backend = DRAPE_BACKEND_CPU;
      else return bad("--backend", val, "expected cl or cpu");
      i++;
    } else {
      return bad(a, val, "unknown option with --scene (allowed: --frames, --warmup, --backend)");
    }
  }
  def.profiling = 1;
  def.kernel_form = (drape_kernel_form)app->kernel_form;
  if (app->device >= 0) def.use_device = 1, def.device_index = app->device;
  drape_world *w = NULL;
  drape_err e = {0};
  if (drape_world_load(path, &def, &w, &e)) return drape_app_report(&e);
  drape_sim *sim = drape_world_sim(w);
  double ms[DRAPE_STAGE_COUNT] = {0}, frame_ms = 0, part[DRAPE_SELFCOL_PART_COUNT] = {0};
  uint64_t lists0[3] = {0}, lists1[3] = {0}; /* builds, list passes, hash passes */
  int rc = 0;
  for (int f = 0; f < warmup + frames && !rc; f++) {
    rc = drape_world_step(w, &e);
    if (rc) continue;
    drape_timings tm;
    drape_sim_timings(sim, &tm);
    uint64_t *lc = f < warmup ? lists0 : lists1;
    lc[0] = tm.selfcol_list_builds;
    lc[1] = tm.selfcol_list_passes;
    lc[2] = tm.selfcol_hash_passes;
    if (f < warmup) continue;
    for (int s = 0; s < DRAPE_STAGE_COUNT; s++) ms[s] += tm.ms[s] / frames;
    for (int q = 0; q < DRAPE_SELFCOL_PART_COUNT; q++) part[q] += tm.selfcol_ms[q] / frames;
    frame_ms += tm.ms_frame / frames;
  }
  if (rc) {
    drape_world_destroy(w);
    return drape_app_report(&e);
  }
  int n_tris = 0;
  for (int k = 0; k < drape_sim_n_collider_meshes(sim); k++) {
    int nv, nt;
    drape_sim_collider_mesh(sim, k, &nv, &nt, NULL, NULL);
    n_tris += nt;
  }
  printf("scene %s: %d particles, %d collider triangles in %d meshes, %d capsules; %s%s%s;"
         " %d frames after %d\n", path, drape_sim_mesh(sim)->n_particles, n_tris,
         drape_sim_n_collider_meshes(sim), drape_sim_n_capsules(sim),
         def.backend == DRAPE_BACKEND_CPU ? "cpu-reference" : "opencl, ",
         def.backend == DRAPE_BACKEND_CPU ? "" : drape_sim_kernel_form(sim),
         def.backend == DRAPE_BACKEND_CPU ? "" : " form", frames, warmup);
  printf("%-16s %10s\n", "stage", "ms/frame");
  double solve = 0;
  for (int s = 0; s < DRAPE_STAGE_COUNT; s++) {
    if (ms[s] <= 0) continue;
    printf("%-16s %10.3f\n", drape_stage_name((drape_stage)s), ms[s]);
    if (s != DRAPE_STAGE_COLLIDERS) solve += ms[s];
  }
  printf("%-16s %10.3f\n", "frame", frame_ms);
  /* issue 18's measure: self-collision against the rest of the cloth solve */
  const double self = ms[DRAPE_STAGE_SELF_COLLISION];
  const double rest = solve - self;
  if (self > 0) {
    const double passes = (double)(lists1[1] - lists0[1]) + (double)(lists1[2] - lists0[2]);
    printf("self-collision %.3f ms/frame, the rest of the solve %.3f ms/frame: %.2fx;"
           " contact lists: %.2f builds a frame, %.0f%% of the passes on them\n",
           self, rest, rest > 0 ? self / rest : 0.0,
           (double)(lists1[0] - lists0[0]) / frames,
           passes > 0 ? 100.0 * (double)(lists1[1] - lists0[1]) / passes : 0.0);
    /* its parts (drape_timings.selfcol_ms; the step bounds apart) */
    printf("self-collision parts, ms/frame:");
    for (int q = 0; q < DRAPE_SELFCOL_PART_COUNT; q++)
      printf(" %s %.3f", drape_selfcol_part_name((drape_selfcol_part)q), part[q]);
    printf("\n");
  }
  const double col = ms[DRAPE_STAGE_COLLIDERS];
  printf("colliders %.3f ms/frame, cloth solve %.3f ms/frame: %.3fx\n", col, solve,
         solve > 0 ? col / solve : 0.0);
  drape_world_destroy(w);
  return 0;
}
