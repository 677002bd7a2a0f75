/* OpenCL runtime on PoCL: the predict kernel against its CPU reference,
 * kernel arguments bound by name (cl/launch.h), error names, build-log
 * reporting, and device-index validation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "cl/launch.h"
#include "cloth/cpu_stages.h"

static drape_cl g_cl;

static int setup(void **state) {
  (void)state;
  drape_err e = {0};
  drape_cl_opts o = drape_cl_default_opts();
  if (drape_cl_init(&g_cl, &o, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drape_cl_release(&g_cl);
  return 0;
}

/* Deterministic pseudo-random numbers in [-1, 1). */
static float frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* 1000 particles, some pinned, 50 substeps of predict + update_velocities
 * (a substep without constraints or contacts) on the device and in
 * C. Both compute the same float expressions (no FMA contraction on either
 * side), so the results must agree to the bit; and free fall must match the
 * discrete symplectic Euler formula. */
static void test_predict_matches_cpu(void **state) {
  (void)state;
  enum { N = 1000, STEPS = 50 };
  dr_float4 *x = calloc(N, sizeof *x), *p = calloc(N, sizeof *p), *v = calloc(N, sizeof *v);
  dr_float4 *x0 = calloc(N, sizeof *x0), *v0 = calloc(N, sizeof *v0);
  dr_float4 *gx = calloc(N, sizeof *gx), *gv = calloc(N, sizeof *gv);
  unsigned s = 7;
  for (int i = 0; i < N; i++) {
    x[i] = (dr_float4){frand(&s), 1.0f + frand(&s), frand(&s), (i % 17 == 0) ? 0.0f : 2.0f};
    v[i] = (dr_float4){frand(&s), frand(&s), frand(&s), 0};
    x0[i] = x[i];
    v0[i] = v[i];
  }
  dr_step_params sp;
  memset(&sp, 0, sizeof sp);
  sp.gravity = (dr_float4){0, -9.81f, 0, 0};
  sp.h = 1.0f / 600.0f;
  sp.n_particles = N;
  dr_int *obj = calloc(N, sizeof *obj);
  dr_object mat = {.damping = 1.0f, .thickness = 0.01f};

  drape_err e = {0};
  cl_int rc;
  size_t bytes = N * sizeof(dr_float4);
  cl_mem bx = clCreateBuffer(g_cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, x, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  cl_mem bp = clCreateBuffer(g_cl.ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  cl_mem bv = clCreateBuffer(g_cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, v, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  cl_mem bo = clCreateBuffer(g_cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *obj,
                             obj, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  cl_mem bm = clCreateBuffer(g_cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof mat, &mat,
                             &rc);
  assert_int_equal(rc, CL_SUCCESS);
  dr_cl_kern k, ku;
  assert_int_equal(dr_cl_kern_create(&g_cl, "predict", &k, &e), 0);
  assert_int_equal(dr_cl_kern_create(&g_cl, "update_velocities", &ku, &e), 0);
  sp.inv_h = 1.0f / sp.h;
  /* with the finiteness check on: every state here is finite */
  const dr_int none = DR_NO_PARTICLE;
  const int check = 1;
  dr_int bad_cpu = DR_NO_PARTICLE, bad_cl = 0;
  cl_mem bbad = clCreateBuffer(g_cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof none,
                               (void *)&none, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  assert_int_equal(DRAPE_CL_BIND(&ku, 0, &e, DRAPE_CL_ARG("x", bx), DRAPE_CL_ARG("p", bp),
                                 DRAPE_CL_ARG("v", bv), DRAPE_CL_ARG("sp", sp),
                                 DRAPE_CL_ARG("bad", bbad), DRAPE_CL_ARG("check", check)),
                   0);
  assert_int_equal(DRAPE_CL_BIND(&k, 0, &e, DRAPE_CL_ARG("x", bx), DRAPE_CL_ARG("p", bp),
                                 DRAPE_CL_ARG("v", bv), DRAPE_CL_ARG("obj", bo),
                                 DRAPE_CL_ARG("objects", bm), DRAPE_CL_ARG("sp", sp)),
                   0);
  for (int t = 0; t < STEPS; t++) {
    assert_int_equal(dr_cl_launch(&g_cl, &k, N, 0, NULL, &e), 0);
    assert_int_equal(dr_cl_launch(&g_cl, &ku, N, 0, NULL, &e), 0);
    cpu_predict(x, p, v, obj, &mat, &sp);
    cpu_update_velocities(x, p, v, &sp, &bad_cpu);
  }
  assert_int_equal(clEnqueueReadBuffer(g_cl.queue, bbad, CL_TRUE, 0, sizeof bad_cl, &bad_cl, 0,
                                       NULL, NULL),
                   CL_SUCCESS);
  assert_int_equal(bad_cl, DR_NO_PARTICLE);
  assert_int_equal(bad_cpu, DR_NO_PARTICLE);
  clReleaseMemObject(bbad);
  assert_int_equal(clEnqueueReadBuffer(g_cl.queue, bx, CL_TRUE, 0, bytes, gx, 0, NULL, NULL),
                   CL_SUCCESS);
  assert_int_equal(clEnqueueReadBuffer(g_cl.queue, bv, CL_TRUE, 0, bytes, gv, 0, NULL, NULL),
                   CL_SUCCESS);
  for (int i = 0; i < N; i++) {
    assert_memory_equal(&gx[i], &x[i], sizeof(float) * 4);
    assert_memory_equal(&gv[i], &v[i], sizeof(float) * 3);
  }
  /* Symplectic Euler from rest offset: after n steps of h,
   *   x_n = x0 + n h v0 + h^2 g n(n+1)/2,  v_n = v0 + n h g
   * (the exact discrete sum; it exceeds x0+v0 t+g t^2/2 by g h t/2). The
   * velocity comes back from update_velocities as (x - p) / h, so it
   * carries the rounding of x divided by h. */
  for (int i = 0; i < N; i++) {
    double t = STEPS * (double)sp.h;
    if (x0[i].w == 0.0f) {
      assert_memory_equal(&gx[i], &x0[i], sizeof(float) * 3);
      continue;
    }
    double want_y = x0[i].y + t * v0[i].y - 9.81 * sp.h * sp.h * STEPS * (STEPS + 1) / 2.0;
    assert_near(gx[i].y, want_y, 2e-4); /* g h t / 2 = 6.8e-4: still told apart */
    /* each step adds at most ulp(x) / h = 2.4e-7 * 600 to v: 50 steps, 7.2e-3 */
    assert_near(gv[i].y, v0[i].y - 9.81 * t, 7.2e-3);
    assert_near(gx[i].x, x0[i].x + t * v0[i].x, 2e-4);
  }
  dr_cl_kern_release(&k);
  dr_cl_kern_release(&ku);
  clReleaseMemObject(bx);
  clReleaseMemObject(bp);
  clReleaseMemObject(bv);
  clReleaseMemObject(bo);
  clReleaseMemObject(bm);
  free(obj);
  free(x); free(p); free(v); free(x0); free(v0); free(gx); free(gv);
}

/* Arguments are bound through a table of (name, size, value), checked
 * against the kernel's own argument names (the program is built with
 * -cl-kernel-arg-info; PoCL keeps the names). Two buffers of one type
 * swapped would run and give wrong physics: the bind must refuse, naming
 * the kernel, the position and both names. */
static void test_bind_checks_names(void **state) {
  (void)state;
  drape_err e = {0};
  dr_cl_kern k;
  assert_int_equal(dr_cl_kern_create(&g_cl, "predict", &k, &e), 0);
  assert_int_equal(k.n_args, 6);
  assert_non_null(k.arg_names); /* PoCL answers CL_KERNEL_ARG_NAME */
  assert_string_equal(k.arg_names[0], "x");
  assert_string_equal(k.arg_names[5], "sp");
  cl_int rc;
  cl_mem a = clCreateBuffer(g_cl.ctx, CL_MEM_READ_WRITE, 64, NULL, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  cl_mem b = clCreateBuffer(g_cl.ctx, CL_MEM_READ_WRITE, 64, NULL, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  dr_step_params sp;
  memset(&sp, 0, sizeof sp);
  /* the table in the kernel's order binds */
  assert_int_equal(DRAPE_CL_BIND(&k, 0, &e, DRAPE_CL_ARG("x", a), DRAPE_CL_ARG("p", b),
                                 DRAPE_CL_ARG("v", a), DRAPE_CL_ARG("obj", b),
                                 DRAPE_CL_ARG("objects", a), DRAPE_CL_ARG("sp", sp)),
                   DRAPE_OK);
  /* so does a part of it from its position */
  assert_int_equal(DRAPE_CL_BIND(&k, 5, &e, DRAPE_CL_ARG("sp", sp)), DRAPE_OK);
  /* x and p swapped: refused at position 0 with both names */
  memset(&e, 0, sizeof e);
  assert_int_equal(DRAPE_CL_BIND(&k, 0, &e, DRAPE_CL_ARG("p", b), DRAPE_CL_ARG("x", a)), DRAPE_ECL);
  print_message("swapped: %s\n", e.msg);
  assert_non_null(strstr(e.msg, "kernel predict, argument 0"));
  assert_non_null(strstr(e.msg, "expects \"x\""));
  assert_non_null(strstr(e.msg, "gives \"p\""));
  /* swapped further in (obj and objects at 3 and 4): position 3 named */
  memset(&e, 0, sizeof e);
  assert_int_equal(DRAPE_CL_BIND(&k, 3, &e, DRAPE_CL_ARG("objects", a), DRAPE_CL_ARG("obj", b)),
                   DRAPE_ECL);
  assert_non_null(strstr(e.msg, "argument 3"));
  assert_non_null(strstr(e.msg, "\"obj\""));
  assert_non_null(strstr(e.msg, "\"objects\""));
  /* a table past the last argument */
  memset(&e, 0, sizeof e);
  assert_int_equal(DRAPE_CL_BIND(&k, 5, &e, DRAPE_CL_ARG("sp", sp), DRAPE_CL_ARG("extra", a)),
                   DRAPE_ECL);
  assert_non_null(strstr(e.msg, "takes 6 arguments"));
  /* Without names (a platform that keeps none) only the count is checked:
   * the swapped table then binds, the one past the end still fails. */
  for (cl_uint i = 0; i < k.n_args; i++) free(k.arg_names[i]);
  free(k.arg_names);
  k.arg_names = NULL;
  assert_int_equal(DRAPE_CL_BIND(&k, 0, &e, DRAPE_CL_ARG("p", b), DRAPE_CL_ARG("x", a)), DRAPE_OK);
  assert_int_equal(DRAPE_CL_BIND(&k, 5, &e, DRAPE_CL_ARG("sp", sp), DRAPE_CL_ARG("extra", a)),
                   DRAPE_ECL);
  dr_cl_kern_release(&k);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}

/* The launch profile: events tagged with stage, colour and part go to
 * drape_timings' three places; an untagged launch to none but the total. */
static void test_profile_tags(void **state) {
  (void)state;
  drape_err e = {0};
  drape_cl cl;
  drape_cl_opts o = drape_cl_default_opts();
  o.profiling = 1;
  assert_int_equal(drape_cl_init(&cl, &o, &e), 0);
  cl_mem a = NULL;
  uint64_t held = 0, up = 0;
  const float init[64] = {1};
  assert_int_equal(dr_cl_buffer(&cl, sizeof init, init, "test", &held, &up, &a, &e), 0);
  assert_int_equal(held, sizeof init);
  assert_int_equal(up, sizeof init);
  dr_cl_prof p;
  dr_cl_prof_init(&p);
  p.stage = DRAPE_STAGE_PROJECT;
  p.colour = 2;
  assert_int_equal(dr_cl_fill0(&cl, a, sizeof init, &p, &e), 0);
  p.stage = DRAPE_STAGE_SELF_COLLISION;
  p.colour = -1;
  p.part = DRAPE_SELFCOL_PARTICLES;
  assert_int_equal(dr_cl_fill0(&cl, a, sizeof init, &p, &e), 0);
  assert_int_equal(p.n, 2);
  assert_int_equal(clFinish(cl.queue), CL_SUCCESS);
  drape_timings tm;
  memset(&tm, 0, sizeof tm);
  double parts[DRAPE_SELFCOL_PART_COUNT] = {0}, total = -1;
  assert_int_equal(dr_cl_prof_collect(&p, &tm, parts, &total, &e), 0);
  assert_int_equal(p.n, 0);
  assert_true(tm.ms[DRAPE_STAGE_PROJECT] >= 0 && tm.colour_ms[2] == tm.ms[DRAPE_STAGE_PROJECT]);
  assert_true(tm.selfcol_ms[DRAPE_SELFCOL_PARTICLES] == tm.ms[DRAPE_STAGE_SELF_COLLISION]);
  assert_true(parts[DRAPE_SELFCOL_PARTICLES] == tm.selfcol_ms[DRAPE_SELFCOL_PARTICLES]);
  assert_true(total == tm.ms[DRAPE_STAGE_PROJECT] + tm.ms[DRAPE_STAGE_SELF_COLLISION]);
  dr_cl_prof_free(&p);
  dr_cl_buffer_release(&a);
  assert_null(a);
  drape_cl_release(&cl);
}

static void test_error_names(void **state) {
  (void)state;
  assert_string_equal(drape_cl_errstr(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
  assert_string_equal(drape_cl_errstr(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
  assert_string_equal(drape_cl_errstr(-12345), "CL_UNKNOWN_ERROR");
  drape_err e = {0};
  cl_kernel k;
  assert_int_equal(dr_cl_kernel(&g_cl, "no_such_kernel", &k, &e), DRAPE_ECL);
  assert_non_null(strstr(e.msg, "CL_INVALID_KERNEL_NAME"));
  assert_non_null(strstr(e.msg, "no_such_kernel"));
}

static void test_build_error_names_file(void **state) {
  (void)state;
  drape_err e = {0};
  cl_program prog = NULL;
  const char *src = "__kernel void broken(__global float *a) {\n  a[0] = undeclared_thing;\n}\n";
  int rc = dr_cl_build_source(&g_cl, "broken.cl", src, NULL, &prog, &e);
  assert_int_equal(rc, DRAPE_ECL);
  assert_null(prog);
  assert_non_null(strstr(e.msg, "broken.cl"));
  assert_non_null(strstr(e.msg, "CL_BUILD_PROGRAM_FAILURE"));
  assert_non_null(strstr(e.msg, "undeclared_thing"));
}

/* The kernels compile without a warning. PoCL's kernel cache is off for
 * this process (main), so the program is really compiled here and its log
 * is the compiler's; a #warning shows that a warning would reach the log. */
static int blank(const char *s) {
  for (; s && *s; s++)
    if (*s != ' ' && *s != '\n' && *s != '\t' && *s != '\r') return 0;
  return 1;
}
static void test_kernels_build_clean(void **state) {
  (void)state;
  print_message("build log of kernels/*.cl: %s\n", g_cl.build_log ? g_cl.build_log : "(none)");
  assert_true(blank(g_cl.build_log));
  /* built with correctly rounded division and sqrt exactly when the device
   * offers them (PoCL does: then the option is in the program's options) */
  cl_device_fp_config fp = 0;
  assert_int_equal(clGetDeviceInfo(g_cl.device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL),
                   CL_SUCCESS);
  char bopts[1024] = "";
  assert_int_equal(clGetProgramBuildInfo(g_cl.program, g_cl.device, CL_PROGRAM_BUILD_OPTIONS,
                                         sizeof bopts - 1, bopts, NULL),
                   CL_SUCCESS);
  const int want = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  print_message("build options: %s (correctly rounded divide/sqrt offered: %d)\n", bopts, want);
  assert_int_equal(g_cl.correct_div_sqrt, want);
  assert_int_equal(strstr(bopts, "-cl-fp32-correctly-rounded-divide-sqrt") != NULL, want);
  drape_err e = {0};
  cl_program prog = NULL;
  const char *src = "#warning a deliberate warning\n__kernel void w(__global int *a) { a[0] = 1; }\n";
  assert_int_equal(dr_cl_build_source(&g_cl, "warn.cl", src, NULL, &prog, &e), 0);
  char log[4096] = "";
  assert_int_equal(clGetProgramBuildInfo(prog, g_cl.device, CL_PROGRAM_BUILD_LOG, sizeof log - 1,
                                         log, NULL),
                   CL_SUCCESS);
  assert_non_null(strstr(log, "deliberate warning"));
  clReleaseProgram(prog);
}

static void test_bad_device_index(void **state) {
  (void)state;
  drape_err e = {0};
  drape_cl cl;
  drape_cl_opts o = drape_cl_default_opts();
  o.device_index = 99;
  assert_int_equal(drape_cl_init(&cl, &o, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "device 99"));
  assert_non_null(strstr(e.msg, "valid device indices are 0.."));
  assert_true(drape_cl_device_count() >= 1);
}

int main(void) {
  setenv("POCL_KERNEL_CACHE", "0", 1); /* before any OpenCL call: compile for real */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernels_build_clean),
      cmocka_unit_test(test_predict_matches_cpu),
      cmocka_unit_test(test_bind_checks_names),
      cmocka_unit_test(test_profile_tags),
      cmocka_unit_test(test_error_names),
      cmocka_unit_test(test_build_error_names_file),
      cmocka_unit_test(test_bad_device_index),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
