/* The triangle hash kept across substeps (issue 18; kernels/selfcol.cl,
 * "the triangle hash, kept across substeps"; docs/selfcollision.md): built
 * at a frame's first substep with boxes grown by a margin, with per-particle
 * candidate lists, rebuilt only when the triangle corners' motion since the
 * build (less its common shift) exceeds the margin. Checked here, each
 * against the stage that rebuilds the hash every substep (selfcol_set_lazy(0)),
 * bit for bit after every substep:
 *  - a folded sheet (two 16x16 layers 0.6 thickness apart, the upper one
 *    sliding 0.1 thickness a substep and waving), two frames of 20 substeps:
 *    same bits and same contacts, on the CPU reference and on OpenCL in both
 *    kernel forms; the hash was kept for most substeps and rebuilt on some
 *    beyond the frames' starts, and most particles read their lists;
 *  - the same with lists of 2 triangles (DRAPE_SELFCOL_LIST=2): they
 *    overflow, those particles read their buckets, same bits;
 *  - a particle that jumps 3 margins within a frame, between two stages
 *    (farther than the hash allows; the stage's clamp limits only the motion
 *    it sees, |x - p|), into contact: the hash is rebuilt at that substep,
 *    the particle gets its contacts, same bits;
 *  - scenes/fold.json without step bounds (a sheet folded onto itself by
 *    moving pins), 100 frames on OpenCL: same bits every 10th frame as the
 *    per-substep hash, and the CPU reference gives OpenCL's bits over 12;
 *  - the auto mode's choice (pauses after frames that rebuilt too often),
 *    and its bits on fold.json (100 frames) equal the per-substep ones. */
#include <stdio.h>

#include "drape/cloth.h"
#include "drape/scene.h"
#include "cloth_util.h"
#include "selfcol_fixture.h"

static drape_cl g_cl;
static int setup(void **state) { (void)state; return sc_cl_setup(&g_cl); }
static int teardown(void **state) { (void)state; drape_cl_release(&g_cl); return 0; }

enum { N = 16, SUB = 20, FRAMES = 2 };
static const float T = 0.01f, S = 0.03f, H = 1.0f / 1200.0f;

/* Two layers, the upper 0.6 t above the lower, shifted by half a cell. */
static void make_fold(sc_world *w) {
  const int n = 2 * N * N, nt = 2 * 2 * (N - 1) * (N - 1);
  sc_world_alloc(w, n, nt);
  w->nobj = 1; /* one cloth folded: both layers are one object */
  w->objects[0] = sc_cloth(T, 0.3f, 1);
  unsigned seed = 11;
  for (int L = 0; L < 2; L++)
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) {
        const int i = L * N * N + r * N + c;
        const float y = L == 0 ? 0.0f : 0.6f * T + 0.05f * T * (sc_rand(&seed) - 0.5f);
        w->x[i] = (dr_float4){(float)c * S + (float)L * 0.5f * S, y,
                              (float)r * S + (float)L * 0.37f * S, 1.0f + (float)(i % 3)};
        w->p[i] = w->x[i];
        /* rest: the two layers far apart in the rest mesh (a fold) */
        w->rest[i] = (dr_float4){(float)c * S, (float)L, (float)r * S, 0};
        w->obj[i] = 0;
      }
  sc_grid_tris(w->tris, sc_grid_tris(w->tris, 0, 0, N), N * N, N);
}

/* The motion before substep k of the run (p = x, then x moved): the upper
 * layer slides 0.1 t along x and waves by up to 0.1 t in y; particle
 * `jumper` (or -1) jumps 3 margins along z before the run's substep
 * `jump`. */
static void move(dr_float4 *x, dr_float4 *p, int n, int k, int jumper, int jump) {
  for (int i = 0; i < n; i++) {
    p[i] = x[i];
    if (i >= N * N) {
      x[i].x += 0.1f * T;
      x[i].y += 0.1f * T * sinf(0.3f * (float)k + 0.05f * (float)i);
    }
  }
  if (jumper >= 0 && k == jump) { /* between two stages (a collider's push,
                                      a pin): the stage's clamp does not see it */
    x[jumper].z += 3.0f * SELFCOL_LAZY_MARGIN * T;
    p[jumper] = x[jumper];
  }
}

typedef struct run_out {
  dr_float4 *x[FRAMES * SUB]; /* after each substep */
  int *nvt[FRAMES * SUB];     /* contacts per vertex (CPU runs)         */
  uint64_t rebuilds;
  uint64_t rebuilt_at[FRAMES * SUB]; /* builds after each substep       */
  int listed;                 /* particles reading a list, last substep */
} run_out;

static void out_free(run_out *o) {
  for (int k = 0; k < FRAMES * SUB; k++) {
    free(o->x[k]);
    free(o->nvt[k]);
  }
}

/* backend 0: CPU reference, 1: OpenCL GPU form, 2: OpenCL vector form. */
static void run(const sc_world *w0, int lazy, int backend, int jumper, int jump, run_out *o) {
  memset(o, 0, sizeof *o);
  sc_world w = *w0;
  const size_t bytes = (size_t)w.n * sizeof(dr_float4);
  dr_float4 *x = malloc(bytes), *p = malloc(bytes);
  memcpy(x, w0->x, bytes);
  memcpy(p, w0->p, bytes);
  selfcol_set_lazy(lazy);
  sc_kernel_form = backend == 0 ? 0 : sc_form(backend - 1);
  sc_bound_off = 1; /* bounded cloths keep the per-substep hash */
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  selfcol_cl g;
  sc_dev dev = {0};
  if (backend == 0) {
    SC_OK(selfcol_cpu_create(&d, &c, e));
    assert_int_equal(c.tb.lazy, lazy);
  } else {
    sc_dev_upload(&g_cl, &w, &dev);
    SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
    sc_check_form(&g);
    assert_int_equal(g.tb.lazy, lazy);
  }
  int step = 0;
  for (int f = 0; f < FRAMES; f++)
    for (int k = 0; k < SUB; k++, step++) {
      move(x, p, w.n, step, jumper, jump);
      const selfcol_colliders col = {0, 0.0f, 0, NULL, (float)(k + 1) * H};
      o->x[step] = malloc(bytes);
      if (backend == 0) {
        selfcol_cpu_run(&c, x, p, w.tris, &col);
        o->nvt[step] = malloc((size_t)w.n * sizeof(int));
        memcpy(o->nvt[step], c.nvt, (size_t)w.n * sizeof(int));
        o->rebuilt_at[step] = c.rebuilds;
      } else {
        cl_int rc = clEnqueueWriteBuffer(g_cl.queue, dev.x, CL_TRUE, 0, bytes, x, 0, NULL, NULL);
        rc |= clEnqueueWriteBuffer(g_cl.queue, dev.p, CL_TRUE, 0, bytes, p, 0, NULL, NULL);
        assert_int_equal(rc, CL_SUCCESS);
        SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, &col, NULL, e));
        sc_read(&g_cl, dev.x, x, bytes);
        if (lazy) SC_OK(selfcol_cl_rebuilds(&g, &o->rebuilt_at[step], e));
      }
      memcpy(o->x[step], x, bytes);
    }
  if (backend == 0) {
    o->rebuilds = c.rebuilds;
    for (int i = 0; i < w.n; i++) o->listed += lazy && c.lstn[i] >= 0;
    selfcol_cpu_destroy(&c);
  } else {
    if (lazy) SC_OK(selfcol_cl_rebuilds(&g, &o->rebuilds, e));
    selfcol_cl_destroy(&g);
    sc_dev_free(&dev);
  }
  selfcol_set_lazy(-1);
  sc_kernel_form = 0;
  sc_bound_off = 0;
  free(x);
  free(p);
}

static void same_bits(const run_out *a, const run_out *b, int n, const char *what) {
  for (int k = 0; k < FRAMES * SUB; k++) {
    if (memcmp(a->x[k], b->x[k], (size_t)n * sizeof(dr_float4))) {
      fprintf(stderr, "%s: positions differ after substep %d\n", what, k);
      fail();
    }
    if (a->nvt[k] && b->nvt[k] && memcmp(a->nvt[k], b->nvt[k], (size_t)n * sizeof(int))) {
      fprintf(stderr, "%s: contacts differ at substep %d\n", what, k);
      fail();
    }
  }
}

static long contacts(const run_out *o, int n) {
  long s = 0;
  for (int k = 0; k < FRAMES * SUB; k++)
    for (int i = 0; i < n; i++) s += o->nvt[k][i];
  return s;
}

static void test_folded_sheet(void **state) {
  (void)state;
  sc_world w;
  make_fold(&w);
  run_out ref, lz, cl[2];
  run(&w, 0, 0, -1, -1, &ref);
  run(&w, 1, 0, -1, -1, &lz);
  same_bits(&lz, &ref, w.n, "CPU, kept hash vs rebuilt every substep");
  const long nc = contacts(&ref, w.n);
  fprintf(stderr, "folded sheet, %d substeps: %ld vertex-triangle contacts, hash built %llu "
          "times (per-substep: %llu), %d of %d particles on lists\n",
          FRAMES * SUB, nc, (unsigned long long)lz.rebuilds, (unsigned long long)ref.rebuilds,
          lz.listed, w.n);
  assert_true(nc > 1000);                      /* the layers touch */
  assert_int_equal(ref.rebuilds, FRAMES * SUB); /* the old stage: every substep */
  assert_true(lz.rebuilds > FRAMES);            /* more than the frames' starts... */
  assert_true(lz.rebuilds <= FRAMES * SUB / 2); /* ...and kept for most substeps */
  assert_true(lz.listed > w.n / 2);
  for (int b = 0; b < 2; b++) {
    run(&w, 1, 1 + b, -1, -1, &cl[b]);
    same_bits(&cl[b], &lz, w.n, b == 0 ? "OpenCL GPU form vs CPU" : "OpenCL vector form vs CPU");
    for (int k = 0; k < FRAMES * SUB; k++) assert_int_equal(cl[b].rebuilt_at[k], lz.rebuilt_at[k]);
    out_free(&cl[b]);
  }
  out_free(&ref);
  out_free(&lz);
  sc_world_free(&w);
}

static void test_lists_overflow(void **state) {
  (void)state;
  sc_world w;
  make_fold(&w);
  setenv("DRAPE_SELFCOL_LIST", "2", 1);
  run_out ref, lz, cl;
  run(&w, 0, 0, -1, -1, &ref);
  run(&w, 1, 0, -1, -1, &lz);
  run(&w, 1, 2, -1, -1, &cl);
  unsetenv("DRAPE_SELFCOL_LIST");
  fprintf(stderr, "lists of 2: %d of %d particles on lists, the rest read their buckets\n",
          lz.listed, w.n);
  assert_true(lz.listed < w.n / 4); /* most overflowed */
  same_bits(&lz, &ref, w.n, "CPU, overflowing lists vs rebuilt every substep");
  same_bits(&cl, &lz, w.n, "OpenCL vs CPU, overflowing lists");
  out_free(&ref);
  out_free(&lz);
  out_free(&cl);
  sc_world_free(&w);
}

static void test_jump_beyond_margin(void **state) {
  (void)state;
  sc_world w;
  make_fold(&w);
  /* an upper-layer particle inside the sheet jumps at the first substep
   * (after the third) where the hash is kept without the jump */
  const int jumper = N * N + 7 * N + 7;
  run_out calm;
  run(&w, 1, 0, -1, -1, &calm);
  int jump = 3;
  while (jump < SUB && calm.rebuilt_at[jump] != calm.rebuilt_at[jump - 1]) jump++;
  assert_true(jump < SUB);
  out_free(&calm);
  run_out ref, lz, cl;
  run(&w, 0, 0, jumper, jump, &ref);
  run(&w, 1, 0, jumper, jump, &lz);
  run(&w, 1, 2, jumper, jump, &cl);
  assert_true(ref.nvt[jump][jumper] > 0); /* it lands in contact */
  same_bits(&lz, &ref, w.n, "CPU, a jump beyond the margin");
  assert_int_equal(lz.rebuilt_at[jump], lz.rebuilt_at[jump - 1] + 1); /* rebuilt at it */
  fprintf(stderr, "jump of 3 margins at substep %d: hash rebuilt there, %d contacts of the "
          "jumper, same bits\n", jump, lz.nvt[jump][jumper]);
  same_bits(&cl, &lz, w.n, "OpenCL vs CPU, a jump beyond the margin");
  out_free(&ref);
  out_free(&lz);
  out_free(&cl);
  sc_world_free(&w);
}

/* ---- the solver: scenes/fold.json without the step bounds ---- */
static drape_sim *make_lazy(const drape_scene *s, drape_backend be, int lazy) {
  selfcol_set_lazy(lazy);
  drape_sim *sim = make_sim_form(s, be, DRAPE_KERNEL_FORM_CPU);
  selfcol_set_lazy(-1);
  return sim;
}

/* Steps both sims `frames` frames, then their positions (into xa, xb,
 * `bytes` each) must be the same bits. */
static void step_same_bits(drape_sim *a, drape_sim *b, int frames, float *xa, float *xb,
                           size_t bytes) {
  drape_err e = {0};
  for (int f = 0; f < frames; f++) {
    assert_int_equal(drape_sim_step(a, &e), 0);
    assert_int_equal(drape_sim_step(b, &e), 0);
  }
  assert_int_equal(drape_sim_read_positions(a, xa, &e), 0);
  assert_int_equal(drape_sim_read_positions(b, xb, &e), 0);
  assert_memory_equal(xa, xb, bytes);
}

static void test_fold_scene(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/scenes/fold.json", drape_test_source_dir());
  drape_scene sc;
  drape_err e = {0};
  if (drape_scene_load(path, &sc, &e)) {
    print_error("%s: %s\n", path, e.msg);
    fail();
  }
  sc.cloth[0].self_collision_bounds = 0; /* bounded cloths keep the per-substep hash */
  const int n = sc.cloth[0].rows * sc.cloth[0].cols;
  const size_t bytes = sizeof(float) * 4 * (size_t)n;
  float *a = malloc(bytes), *b = malloc(bytes);
  /* OpenCL, kept vs per-substep hash, 100 frames (the fold lands by 90) */
  drape_sim *kept = make_lazy(&sc, DRAPE_BACKEND_CL, 1), *every = make_lazy(&sc, DRAPE_BACKEND_CL, 0);
  for (int f = 1; f <= 100; f++) {
    assert_int_equal(drape_sim_step(kept, &e), 0);
    assert_int_equal(drape_sim_step(every, &e), 0);
    if (f % 10) continue;
    assert_int_equal(drape_sim_read_positions(kept, a, &e), 0);
    assert_int_equal(drape_sim_read_positions(every, b, &e), 0);
    if (memcmp(a, b, bytes)) {
      fprintf(stderr, "fold.json: kept and per-substep hash differ at frame %d\n", f);
      fail();
    }
  }
  drape_sim_destroy(kept);
  drape_sim_destroy(every);
  /* the CPU reference gives OpenCL's bits with the kept hash */
  drape_sim *cpu = make_lazy(&sc, DRAPE_BACKEND_CPU, 1), *cl = make_lazy(&sc, DRAPE_BACKEND_CL, 1);
  step_same_bits(cpu, cl, 12, a, b, bytes);
  fprintf(stderr, "fold.json without bounds: kept hash = per-substep hash at every 10th of 100 "
          "frames (OpenCL), CPU = OpenCL over 12 frames\n");
  drape_sim_destroy(cpu);
  drape_sim_destroy(cl);
  free(a);
  free(b);
  drape_scene_free(&sc);
}

/* The auto mode's choice (selfcol_lazy_choose): kept frames that rebuilt
 * at more than a tenth of their substeps pause it for 8 frames, then 16
 * after a second failed try; a good try resets the pause. Mode 1 always
 * keeps. And the auto mode on fold.json gives the per-substep bits. */
static void test_auto_mode(void **state) {
  (void)state;
  selfcol_lazy_policy p = {0};
  assert_int_equal(selfcol_lazy_choose(&p, 1, 100, 100), 1);
  uint32_t b = 0, r = 0;
  assert_int_equal(selfcol_lazy_choose(&p, 2, b, r), 1); /* nothing measured */
  b += 1; r += 20; /* 5 %: keep */
  assert_int_equal(selfcol_lazy_choose(&p, 2, b, r), 1);
  b += 5; r += 20; /* 25 %: pause 8 frames, then try */
  int off = 0;
  while (!selfcol_lazy_choose(&p, 2, b, r)) off++;
  assert_int_equal(off, 8);
  b += 6; r += 20; /* the try fails again: 16 */
  off = 0;
  while (!selfcol_lazy_choose(&p, 2, b, r)) off++;
  assert_int_equal(off, 16);
  b += 1; r += 20; /* a good try: keep, and the next failure pauses 8 */
  assert_int_equal(selfcol_lazy_choose(&p, 2, b, r), 1);
  b += 9; r += 20;
  off = 0;
  while (!selfcol_lazy_choose(&p, 2, b, r)) off++;
  assert_int_equal(off, 8);

  char path[1024];
  snprintf(path, sizeof path, "%s/scenes/fold.json", drape_test_source_dir());
  drape_scene sc;
  drape_err e = {0};
  assert_int_equal(drape_scene_load(path, &sc, &e), 0);
  sc.cloth[0].self_collision_bounds = 0;
  const int n = sc.cloth[0].rows * sc.cloth[0].cols;
  const size_t bytes = sizeof(float) * 4 * (size_t)n;
  float *x0 = malloc(bytes), *x1 = malloc(bytes);
  drape_sim *a = make_lazy(&sc, DRAPE_BACKEND_CL, 2), *c = make_lazy(&sc, DRAPE_BACKEND_CL, 0);
  step_same_bits(a, c, 100, x0, x1, bytes);
  fprintf(stderr, "auto mode: pauses 8, 16, then 8 after a good try; fold.json 100 frames: "
          "per-substep bits\n");
  drape_sim_destroy(a);
  drape_sim_destroy(c);
  free(x0);
  free(x1);
  drape_scene_free(&sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_auto_mode),
      cmocka_unit_test(test_folded_sheet),
      cmocka_unit_test(test_lists_overflow),
      cmocka_unit_test(test_jump_beyond_margin),
      cmocka_unit_test(test_fold_scene),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
