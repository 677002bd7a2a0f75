/* Benchmark of self-collision (issue 4): milliseconds per substep of the
 * spatial hash builds and each collision pass, at N x N particles, and
 * their share of the whole solver substep.
 *
 *   bench_selfcol [--sizes 64,128,256,512] [--substeps K] [--device N]
 *                 [--crushed] [--cap N]
 *                 [--no-cpu] [--no-sim] [--csv FILE] [--json FILE]
 *
 * Part 1, the stage alone (drape's self-collision on its own buffers):
 * The cloth: an N x N sheet of spacing 3 x thickness (thickness 0.01 m),
 * folded in half so its upper half lies one thickness above the lower one
 * (offset by half a cell), with start-of-substep positions a little above
 * (falling): every vertex of the fold has contacts, the worst steady case of
 * a folded cloth. Each measured substep starts from the same state (a device
 * copy, not timed), then runs the whole stage: clamp ▸ particle hash ▸
 * particle pass ▸ triangle hash ▸ vertex-triangle pass, with the step bounds
 * (issue 18: their hash on p and distances first, their clamp last; the
 * "bound" column).
 *
 * OpenCL: device time of each part from event profiling, mean over K
 * substeps after one warm-up. CPU reference: wall clock, one thread (3
 * substeps).
 *
 * Part 2, inside the solver (drape_sim, OpenCL, profiling queue): an N x N
 * sheet (spacing 2 cm, thickness 1 cm, self-collision on) falling onto a
 * sphere, one substep per frame of 1/1200 s, K frames after 5 of warm-up:
 * ms per substep of every stage, and the self-collision share of the sum.
 *
 * --crushed: the same sheet with every position scaled by 1e-3 (the whole
 * cloth inside one hash cell, issue 13): the bounded-work case, where each
 * query reads up to its cap. --cap N sets all four caps (selfcol.h) to N;
 * a large N (1000000) gives the unbounded stage as it was before the caps.
 *
 * Columns: ms per substep of each part, their total, and ns per particle
 * (flat when the cost grows linearly). Writes CSV (default
 * bench/results/bench_selfcol.csv, relative to the working directory) and
 * optionally JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "cloth/selfcol.h"
#include "cloth/selfcol_cl.h"
#include "cloth/sim.h" /* sc_part_ms: the per-part times inside the solver */
#include "drape/cloth.h"
#include "drape/scene.h"

typedef struct {
  int N, n;
  const char *backend;
  double ms[SELFCOL_T_COUNT];
  double total, ns_per_particle;
  long contacts;
  /* inside the solver (backend "sim"): every stage, ms per substep */
  double stage[DRAPE_STAGE_COUNT], substep, share;
  double device_mb;     /* OpenCL: memory the stage holds on the device */
} row;

typedef struct {
  int n, nt;
  dr_float4 *x, *p, *rest;
  int *obj;
  dr_uint *tris;
  selfcol_object ob;
} folded;

static int g_crushed, g_cap;

static int make_folded(int N, folded *f) {
  const float t = 0.01f, S = 3.0f * t;
  memset(f, 0, sizeof *f);
  f->n = N * N;
  f->nt = 2 * (N - 1) * (N - 1);
  f->x = calloc((size_t)f->n, sizeof *f->x);
  f->p = calloc((size_t)f->n, sizeof *f->p);
  f->rest = calloc((size_t)f->n, sizeof *f->rest);
  f->obj = calloc((size_t)f->n, sizeof *f->obj);
  f->tris = calloc(3 * (size_t)f->nt, sizeof *f->tris);
  if (!f->x || !f->p || !f->rest || !f->obj || !f->tris) return 1;
  f->ob = (selfcol_object){t, 0.2f, 0, 1, 1, 0.0f, 0, NULL, 0}; /* bounded */
  const int half = N / 2;
  int k = 0;
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      int i = r * N + c;
      float x = (float)c * S, z, y;
      if (r < half) {
        z = (float)r * S;
        y = 0.0f;
      } else { /* folded back over the lower half, one thickness above */
        z = (float)(2 * half - 1 - r) * S + 0.5f * S;
        y = 0.95f * t;
        x += 0.5f * S;
      }
      f->x[i] = (dr_float4){x, y, z, 1.0f};
      f->p[i] = (dr_float4){x, y + (r < half ? 0.0f : 0.3f * t), z, 1.0f};
      f->rest[i] = (dr_float4){(float)c * S, 0.0f, (float)r * S, 0.0f};
      if (g_crushed) {
        f->x[i] = (dr_float4){1e-3f * x, 1e-3f * y, 1e-3f * z, 1.0f};
        f->p[i] = (dr_float4){1e-3f * x, 1e-3f * y + (r < half ? 0.0f : 0.3f * t), 1e-3f * z, 1.0f};
      }
      if (r + 1 < N && c + 1 < N) {
        dr_uint a = (dr_uint)i, b = (dr_uint)(i + N), cc = (dr_uint)(i + N + 1), d = (dr_uint)(i + 1);
        f->tris[3 * k] = a; f->tris[3 * k + 1] = b; f->tris[3 * k + 2] = cc; k++;
        f->tris[3 * k] = a; f->tris[3 * k + 1] = cc; f->tris[3 * k + 2] = d; k++;
      }
    }
  return 0;
}

static void free_folded(folded *f) {
  free(f->x); free(f->p); free(f->rest); free(f->obj); free(f->tris);
}

static cl_mem buf(drape_cl *cl, const void *src, size_t bytes, drape_err *e) {
  cl_int rc;
  cl_mem m = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)src, &rc);
  if (rc != CL_SUCCESS) drape_fail(e, DRAPE_ECL, "clCreateBuffer: %s", drape_cl_errstr(rc));
  return rc == CL_SUCCESS ? m : NULL;
}

static int run_cl(drape_cl *cl, int N, int K, row *out, drape_err *e) {
  folded f;
  if (make_folded(N, &f)) return drape_fail(e, DRAPE_ENOMEM, "out of memory (N = %d)", N);
  selfcol_desc d = {f.n, f.rest, f.obj, f.nt, f.tris, 1, &f.ob, g_cap, g_cap, g_cap, 0, 0, 0};
  size_t xb = (size_t)f.n * sizeof(dr_float4);
  cl_mem x0 = buf(cl, f.x, xb, e), x = buf(cl, f.x, xb, e), p = buf(cl, f.p, xb, e),
         tris = buf(cl, f.tris, 3 * (size_t)f.nt * sizeof(dr_uint), e);
  selfcol_cl s;
  memset(&s, 0, sizeof s);
  int rc = (!x0 || !x || !p || !tris) ? DRAPE_ECL : selfcol_cl_create(cl, &d, &s, e);
  if (!rc && g_cap) s.tb.cap_n = (uint32_t)g_cap; /* the contact cap too */
  for (int k = 0; !rc && k <= K; k++) {
    cl_int r = clEnqueueCopyBuffer(cl->queue, x0, x, 0, 0, xb, 0, NULL, NULL);
    if (r != CL_SUCCESS) rc = drape_fail(e, DRAPE_ECL, "clEnqueueCopyBuffer: %s", drape_cl_errstr(r));
    if (!rc) rc = selfcol_cl_run(&s, x, p, tris, NULL, NULL, e);
    if (!rc && (r = clFinish(cl->queue)) != CL_SUCCESS)
      rc = drape_fail(e, DRAPE_ECL, "clFinish: %s", drape_cl_errstr(r));
    if (!rc && k == 0) { /* warm-up: drop its times */
      rc = selfcol_cl_collect(&s, NULL, e);
      memset(s.ms, 0, sizeof s.ms);
    }
  }
  if (!rc) rc = selfcol_cl_collect(&s, NULL, e);
  if (!rc) {
    out->N = N;
    out->n = f.n;
    out->backend = "opencl";
    out->total = 0;
    for (int q = 0; q < SELFCOL_T_COUNT; q++) {
      out->ms[q] = s.ms[q] / K;
      out->total += out->ms[q];
    }
    out->ns_per_particle = 1e6 * out->total / f.n;
    out->device_mb = (double)s.bytes / (1024.0 * 1024.0);
    int *nvt = malloc((size_t)f.n * sizeof *nvt);
    out->contacts = 0;
    if (nvt && clEnqueueReadBuffer(cl->queue, s.nvt, CL_TRUE, 0, (size_t)f.n * sizeof *nvt, nvt, 0,
                                   NULL, NULL) == CL_SUCCESS)
      for (int i = 0; i < f.n; i++) out->contacts += nvt[i];
    free(nvt);
  }
  if (s.cl) selfcol_cl_destroy(&s);
  cl_mem all[] = {x0, x, p, tris};
  for (int i = 0; i < 4; i++)
    if (all[i]) clReleaseMemObject(all[i]);
  free_folded(&f);
  return rc;
}

static int run_cpu(int N, int K, row *out, drape_err *e) {
  folded f;
  if (make_folded(N, &f)) return drape_fail(e, DRAPE_ENOMEM, "out of memory (N = %d)", N);
  selfcol_desc d = {f.n, f.rest, f.obj, f.nt, f.tris, 1, &f.ob, g_cap, g_cap, g_cap, 0, 0, 0};
  selfcol_cpu s;
  int rc = selfcol_cpu_create(&d, &s, e);
  if (!rc && g_cap) s.tb.cap_n = (uint32_t)g_cap;
  dr_float4 *x = malloc((size_t)f.n * sizeof *x);
  if (!rc && !x) rc = drape_fail(e, DRAPE_ENOMEM, "out of memory");
  for (int k = 0; !rc && k <= K; k++) {
    memcpy(x, f.x, (size_t)f.n * sizeof *x);
    selfcol_cpu_run(&s, x, f.p, f.tris, NULL);
    if (k == 0) memset(s.ms, 0, sizeof s.ms);
  }
  if (!rc) {
    out->N = N;
    out->n = f.n;
    out->backend = "cpu";
    out->total = 0;
    for (int q = 0; q < SELFCOL_T_COUNT; q++) {
      out->ms[q] = s.ms[q] / K;
      out->total += out->ms[q];
    }
    out->ns_per_particle = 1e6 * out->total / f.n;
    out->contacts = 0;
    for (int i = 0; i < f.n; i++) out->contacts += s.nvt[i];
    selfcol_cpu_destroy(&s);
  }
  free(x);
  free_folded(&f);
  return rc;
}

/* Part 2: the stage inside drape_sim. */
static int run_sim(drape_cl *cl, int N, int K, row *out, drape_err *e) {
  drape_scene sc;
  drape_scene_init(&sc);
  sc.dt = 1.0 / 1200.0;
  sc.substeps = 1;
  drape_cloth_def c = drape_cloth_def_default();
  c.rows = c.cols = N;
  c.spacing = 0.02;
  c.thickness = 0.01;
  c.self_collision = 1;
  c.origin[0] = c.origin[2] = -0.01 * (N - 1);
  c.origin[1] = 0.62;
  drape_scene_add_cloth(&sc, &c);
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[1] = 0.3;
  sp.radius = 0.3;
  drape_scene_add_sphere(&sc, &sp);
  sc.has_floor = 1;
  drape_sim_opts o = drape_sim_opts_default();
  o.cl = cl;
  drape_sim *sim = NULL;
  int rc = drape_sim_create(&sc, &o, &sim, e);
  drape_scene_free(&sc);
  if (rc) return rc;
  memset(out, 0, sizeof *out);
  for (int f = 0; f < 5 + K && !rc; f++) {
    rc = drape_sim_step(sim, e);
    if (rc || f < 5) continue; /* 5 frames of warm-up */
    drape_timings tm;
    drape_sim_timings(sim, &tm);
    for (int st = 0; st < DRAPE_STAGE_COUNT; st++) out->stage[st] += tm.ms[st] / K;
    for (int q = 0; q < SELFCOL_T_COUNT; q++) out->ms[q] += tm.selfcol_ms[q] / K;
  }
  if (!rc) {
    out->N = N;
    out->n = N * N;
    out->backend = "sim";
    for (int q = 0; q < SELFCOL_T_COUNT; q++) out->total += out->ms[q];
    for (int st = 0; st < DRAPE_STAGE_COUNT; st++) out->substep += out->stage[st];
    out->share = out->substep > 0 ? out->stage[DRAPE_STAGE_SELF_COLLISION] / out->substep : 0;
    out->ns_per_particle = 1e6 * out->total / out->n;
  }
  drape_sim_destroy(sim);
  return rc;
}

int main(int argc, char **argv) {
  int sizes[16] = {64, 128, 256, 512}, n_sizes = 4, K = 10, device = -1, cpu = 1, sim = 1;
  const char *csv = "bench/results/bench_selfcol.csv", *json = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      n_sizes = 0;
      for (char *tok = strtok(argv[++i], ","); tok && n_sizes < 16; tok = strtok(NULL, ",")) {
        int v = atoi(tok);
        if (v < 4 || v > 2048) {
          fprintf(stderr, "bench_selfcol: --sizes: %s is not a grid side in 4..2048\n", tok);
          return 2;
        }
        sizes[n_sizes++] = v;
      }
    } else if (!strcmp(argv[i], "--substeps") && i + 1 < argc) {
      K = atoi(argv[++i]);
      if (K < 1 || K > 100000) {
        fprintf(stderr, "bench_selfcol: --substeps %d: allowed 1..100000\n", K);
        return 2;
      }
    } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
      device = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--crushed")) {
      g_crushed = 1;
    } else if (!strcmp(argv[i], "--cap") && i + 1 < argc) {
      g_cap = atoi(argv[++i]);
      if (g_cap < 1) {
        fprintf(stderr, "bench_selfcol: --cap %s: allowed >= 1\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--no-cpu")) {
      cpu = 0;
    } else if (!strcmp(argv[i], "--no-sim")) {
      sim = 0;
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
      json = argv[++i];
    } else {
      fprintf(stderr,
              "usage: bench_selfcol [--sizes 64,128,256,512] [--substeps K] [--device N] "
              "[--crushed] [--cap N] [--no-cpu] [--no-sim] [--csv FILE] [--json FILE]\n");
      return 2;
    }
  }
  drape_err e = {0};
  drape_cl cl;
  drape_cl_opts o = drape_cl_default_opts();
  o.profiling = 1;
  if (drape_cl_requested_device(device, &o.device_index, &e) || drape_cl_init(&cl, &o, &e)) {
    fprintf(stderr, "bench_selfcol: %s\n", e.msg);
    return e.code == DRAPE_EINVAL ? 2 : 1;
  }
  printf("device: %s (%s)\n", cl.device_name, cl.platform_name);
  row rows[64];
  int nr = 0;
  for (int k = 0; k < n_sizes; k++) {
    for (int b = 0; b < 3; b++) {
      if ((b == 1 && !cpu) || (b == 2 && !sim)) continue;
      row r;
      memset(&r, 0, sizeof r);
      int rc = b == 0   ? run_cl(&cl, sizes[k], K, &r, &e)
               : b == 1 ? run_cpu(sizes[k], K < 3 ? K : 3, &r, &e)
                        : run_sim(&cl, sizes[k], K < 5 ? K : 5, &r, &e);
      if (rc) {
        fprintf(stderr, "bench_selfcol: N=%d: %s\n", sizes[k], e.msg);
        drape_cl_release(&cl);
        return 1;
      }
      rows[nr++] = r;
    }
  }
  printf("\nms per substep of the self-collision stage (opencl, cpu: the stage alone on a "
         "%s sheet; sim: inside the solver)\n", g_crushed ? "folded and crushed (x 1e-3)" : "folded");
  printf("%-7s %-9s %9s %8s %8s %8s %8s %8s %8s %8s %9s %9s %8s\n", "backend", "N",
         "particles", "clamp", "hash_p", "particle", "hash_t", "vert_tri", "bound", "total",
         "ns/part", "contacts", "dev_MB");
  for (int i = 0; i < nr; i++) {
    row *r = &rows[i];
    printf("%-7s %4dx%-4d %9d %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.1f %9ld %8.1f\n",
           r->backend, r->N, r->N, r->n, r->ms[0], r->ms[1], r->ms[2], r->ms[3], r->ms[4],
           r->ms[SELFCOL_T_BOUND], r->total, r->ns_per_particle, r->contacts, r->device_mb);
  }
  if (sim) {
    printf("\ninside the solver (OpenCL): ms per substep of every stage, self-collision share\n");
    printf("%-9s", "N");
    for (int st = 0; st < DRAPE_STAGE_COUNT; st++) printf(" %8.8s", drape_stage_name((drape_stage)st));
    printf(" %8s %6s\n", "substep", "share");
    for (int i = 0; i < nr; i++) {
      row *r = &rows[i];
      if (strcmp(r->backend, "sim")) continue;
      printf("%4dx%-4d", r->N, r->N);
      for (int st = 0; st < DRAPE_STAGE_COUNT; st++) printf(" %8.3f", r->stage[st]);
      printf(" %8.3f %5.1f%%\n", r->substep, 100 * r->share);
    }
  }
  FILE *f = fopen(csv, "w");
  if (!f) {
    fprintf(stderr, "bench_selfcol: cannot write %s\n", csv);
    drape_cl_release(&cl);
    return 1;
  }
  fprintf(f, "device,backend,N,particles,clamp_ms,hash_particles_ms,particles_ms,hash_triangles_ms,"
             "vertex_triangle_ms,bound_ms,total_ms,ns_per_particle,vertex_contacts,substep_ms,share,device_mb\n");
  for (int i = 0; i < nr; i++) {
    row *r = &rows[i];
    fprintf(f, "\"%s\",%s,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.2f,%ld,%.4f,%.4f,%.1f\n",
            cl.device_name, r->backend, r->N, r->n, r->ms[0], r->ms[1], r->ms[2], r->ms[3],
            r->ms[4], r->ms[SELFCOL_T_BOUND], r->total, r->ns_per_particle, r->contacts, r->substep, r->share,
            r->device_mb);
  }
  fclose(f);
  printf("wrote %s\n", csv);
  if (json) {
    f = fopen(json, "w");
    if (!f) {
      fprintf(stderr, "bench_selfcol: cannot write %s\n", json);
      drape_cl_release(&cl);
      return 1;
    }
    fprintf(f, "{\n  \"device\": \"%s\",\n  \"substeps\": %d,\n  \"rows\": [\n", cl.device_name, K);
    for (int i = 0; i < nr; i++) {
      row *r = &rows[i];
      fprintf(f,
              "    {\"backend\": \"%s\", \"N\": %d, \"particles\": %d, \"ms\": {\"clamp\": %.4f, "
              "\"hash_particles\": %.4f, \"particles\": %.4f, \"hash_triangles\": %.4f, "
              "\"vertex_triangle\": %.4f, \"bound\": %.4f, \"total\": %.4f}, \"ns_per_particle\": %.2f, "
              "\"vertex_contacts\": %ld, \"substep_ms\": %.4f, \"share\": %.4f, \"device_mb\": %.1f}%s\n",
              r->backend, r->N, r->n, r->ms[0], r->ms[1], r->ms[2], r->ms[3], r->ms[4],
              r->ms[SELFCOL_T_BOUND], r->total,
              r->ns_per_particle, r->contacts, r->substep, r->share, r->device_mb,
              i + 1 < nr ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
    printf("wrote %s\n", json);
  }
  drape_cl_release(&cl);
  return 0;
}
