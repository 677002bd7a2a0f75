/* Benchmark of the seed 000 string solver (CPU, one thread).
 *
 *   bench_string [--budget S] [--repeat K] [--csv FILE] [--json FILE]
 *
 * 1. The seed's example (§7.17: defaults, released at once, 0.1 s): best and
 *    median wall time of K runs (the seed's Python takes ~6-8 s).
 * 2. The held, sagging string of §7.16 for 1 s of simulated time at N = 80,
 *    800 and 8000 links (h = 1e-4): simulated seconds per wall second,
 *    substeps per simulated second, wall time per substep and per substep
 *    and node. Each run stops after --budget seconds of wall time (default
 *    20) through drape_string_advance()'s budget, and reports how far it got;
 *    the per-substep cost is what shows the O(N) banded solve.
 * Prints a table; writes CSV (default bench_string.csv) and optionally JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/string.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  int links;
  double sim_s, wall_s, ticks, substeps, solves;
  int reached;
} row;

static int run_held(int links, double seconds, double budget, row *out) {
  drape_string_params p = drape_string_params_default();
  p.links = links;
  drape_string *s = NULL;
  drape_err e = {0};
  if (drape_string_create(&p, &s, &e)) {
    fprintf(stderr, "bench_string: %s\n", e.msg);
    return 1;
  }
  drape_string_progress pr;
  if (drape_string_advance(s, seconds, budget, &pr, &e)) {
    fprintf(stderr, "bench_string: N=%d: %s\n", links, e.msg);
    drape_string_destroy(s);
    return 1;
  }
  drape_string_stats st;
  drape_string_get_stats(s, &st);
  out->links = links;
  out->sim_s = pr.time;
  out->wall_s = pr.wall_s;
  out->ticks = (double)st.ticks;
  out->substeps = (double)st.substeps;
  out->solves = (double)st.newton_iters;
  out->reached = pr.reached;
  drape_string_destroy(s);
  return 0;
}

int main(int argc, char **argv) {
  double budget = 20.0;
  int repeat = 20;
  const char *csv = "bench_string.csv", *json = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--budget") && i + 1 < argc) {
      budget = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
      json = argv[++i];
    } else {
      fprintf(stderr, "usage: bench_string [--budget S] [--repeat K] [--csv FILE] [--json FILE]\n");
      return 2;
    }
  }
  if (repeat < 1 || repeat > 100000 || !(budget > 0)) {
    fprintf(stderr, "bench_string: --repeat must be 1..100000 and --budget > 0\n");
    return 2;
  }

  /* 1. The seed's example. */
  double *ms = malloc(sizeof(double) * (size_t)repeat);
  double endx = 0, endy = 0;
  long substeps = 0;
  for (int k = 0; k < repeat; k++) {
    drape_string_params p = drape_string_params_default();
    drape_string *s = NULL;
    drape_err e = {0};
    if (drape_string_create(&p, &s, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
    drape_string_release(s);
    const double t0 = drape_now();
    if (drape_string_advance(s, 0.1, 0, NULL, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
    ms[k] = 1e3 * (drape_now() - t0);
    endx = drape_string_positions(s)[160];
    endy = drape_string_positions(s)[161];
    drape_string_stats st;
    drape_string_get_stats(s, &st);
    substeps = st.substeps;
    drape_string_destroy(s);
  }
  qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
  printf("seed example (N=80, h=1e-4, released, 0.1 s), %d runs:\n", repeat);
  printf("  best %.3f ms, median %.3f ms, %ld substeps; endpoint (%.8f, %.8f)\n\n", ms[0],
         ms[repeat / 2], substeps, endx, endy);

  /* 2. Held, sagging string, 1 s, N = 80, 800, 8000. */
  const int sizes[] = {80, 800, 8000};
  row rows[3];
  printf("held sagging string, h = 1e-4, 1 s simulated (wall budget %.0f s per run)\n", budget);
  printf("%7s %9s %9s %10s %11s %10s %11s %12s %10s\n", "N", "sim s", "wall s", "sim/wall",
         "substeps/s", "solves/sub", "us/substep", "ns/sub/node", "us/solve");
  for (int k = 0; k < 3; k++) {
    if (run_held(sizes[k], 1.0, budget, &rows[k])) return 1;
    const row *r = &rows[k];
    printf("%7d %9.4f %9.3f %10.3f %11.0f %10.3f %11.2f %12.2f %10.2f%s\n", r->links, r->sim_s,
           r->wall_s, r->sim_s / r->wall_s, r->substeps / r->sim_s, r->solves / r->substeps,
           1e6 * r->wall_s / r->substeps, 1e9 * r->wall_s / r->substeps / (r->links + 1),
           1e6 * r->wall_s / r->solves, r->reached ? "" : "  (budget hit)");
  }
  const double c80 = rows[0].wall_s / rows[0].substeps, c8000 = rows[2].wall_s / rows[2].substeps;
  const double s80 = rows[0].wall_s / rows[0].solves, s8000 = rows[2].wall_s / rows[2].solves;
  printf("\nN=8000 / N=80 (N ratio 100x): cost per substep %.1fx, per velocity solve %.1fx\n",
         c8000 / c80, s8000 / s80);

  FILE *f = fopen(csv, "w");
  if (!f) {
    fprintf(stderr, "bench_string: cannot write %s\n", csv);
    return 1;
  }
  fprintf(f, "case,links,sim_s,wall_s,substeps,solves,sim_per_wall,us_per_substep,reached\n");
  fprintf(f, "seed_example_best,80,0.1,%.6f,%ld,,%.3f,%.4f,1\n", ms[0] / 1e3, substeps,
          0.1 / (ms[0] / 1e3), 1e3 * ms[0] / (double)substeps);
  for (int k = 0; k < 3; k++) {
    const row *r = &rows[k];
    fprintf(f, "held_sag,%d,%.6f,%.6f,%.0f,%.0f,%.4f,%.4f,%d\n", r->links, r->sim_s, r->wall_s,
            r->substeps, r->solves, r->sim_s / r->wall_s, 1e6 * r->wall_s / r->substeps,
            r->reached);
  }
  fclose(f);
  printf("wrote %s\n", csv);
  if (json) {
    f = fopen(json, "w");
    if (!f) {
      fprintf(stderr, "bench_string: cannot write %s\n", json);
      return 1;
    }
    fprintf(f, "{\n  \"seed_example\": {\"best_ms\": %.4f, \"median_ms\": %.4f, \"substeps\": %ld},\n",
            ms[0], ms[repeat / 2], substeps);
    fprintf(f, "  \"held_sag\": [\n");
    for (int k = 0; k < 3; k++) {
      const row *r = &rows[k];
      fprintf(f,
              "    {\"links\": %d, \"sim_s\": %.6f, \"wall_s\": %.6f, \"substeps\": %.0f, "
              "\"solves\": %.0f, \"sim_per_wall\": %.4f, \"us_per_substep\": %.4f, "
              "\"reached\": %s}%s\n",
              r->links, r->sim_s, r->wall_s, r->substeps, r->solves, r->sim_s / r->wall_s,
              1e6 * r->wall_s / r->substeps, r->reached ? "true" : "false", k < 2 ? "," : "");
    }
    fprintf(f,
            "  ],\n  \"substep_cost_ratio_8000_over_80\": %.3f,\n"
            "  \"solve_cost_ratio_8000_over_80\": %.3f\n}\n",
            c8000 / c80, s8000 / s80);
    fclose(f);
    printf("wrote %s\n", json);
  }
  free(ms);
  return 0;
}
