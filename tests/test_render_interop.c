/* OpenCL -> OpenGL transfer on PoCL + llvmpipe (no cl_khr_gl_sharing):
 * `--interop share` is refused with a clear message, auto and copy fall
 * back and say why, and both copy paths (map + glBufferSubData, and the
 * persistent GL mapping wrapped as a host-pointer CL buffer) deliver the
 * solver's bytes exactly, so frames drawn from them equal frames drawn
 * from host uploads. */
#include <epoxy/gl.h>

#include "drape/interop.h"
#include "test_render_util.h"

static drape_gl *g_gl;
static drape_renderer *g_r;

static int setup(void **state) {
  (void)state;
  g_gl = rt_open_headless();
  if (!g_gl) return -1;
  drape_err e = {0};
  drape_render_opts o = drape_render_opts_default();
  o.shadow_size = 512;
  if (drape_renderer_create(&o, &g_r, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drape_renderer_destroy(g_r);
  drape_gl_close(g_gl);
  return 0;
}

static void test_modes_parse(void **state) {
  (void)state;
  drape_interop_mode m;
  drape_err e = {0};
  assert_int_equal(drape_interop_parse_mode("share", &m, &e), 0);
  assert_int_equal(m, DRAPE_INTEROP_SHARE);
  assert_int_equal(drape_interop_parse_mode("copy", &m, &e), 0);
  assert_int_equal(m, DRAPE_INTEROP_COPY);
  assert_int_equal(drape_interop_parse_mode("auto", &m, &e), 0);
  assert_int_equal(drape_interop_parse_mode("fast", &m, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "--interop \"fast\""));
  assert_non_null(strstr(e.msg, "auto, copy or share"));
}

static void test_share_refused_without_extension(void **state) {
  (void)state;
  drape_cl cl;
  drape_err e = {0};
  drape_cl_opts o = drape_cl_default_opts();
  assert_int_equal(drape_cl_init(&cl, &o, &e), 0);
  int has = cl.has_gl_sharing;
  drape_cl_release(&cl);
  if (has) skip(); /* a device with sharing: nothing to refuse here */
  int shared = 1;
  char why[1100] = "";
  assert_int_equal(drape_interop_cl_init(g_gl, DRAPE_INTEROP_SHARE, &o, &cl, &shared, why,
                                         sizeof why, &e),
                   DRAPE_EINVAL);
  print_message("%s\n", e.msg);
  assert_non_null(strstr(e.msg, "--interop share"));
  assert_non_null(strstr(e.msg, "cl_khr_gl_sharing"));
  assert_non_null(strstr(e.msg, "--interop copy"));
  /* auto: falls back and says why; copy: says it was asked for. */
  assert_int_equal(drape_interop_cl_init(g_gl, DRAPE_INTEROP_AUTO, &o, &cl, &shared, why,
                                         sizeof why, &e),
                   0);
  assert_int_equal(shared, 0);
  assert_non_null(strstr(why, "cl_khr_gl_sharing"));
  drape_cl_release(&cl);
  assert_int_equal(drape_interop_cl_init(g_gl, DRAPE_INTEROP_COPY, &o, &cl, &shared, why,
                                         sizeof why, &e),
                   0);
  assert_int_equal(shared, 0);
  assert_non_null(strstr(why, "--interop copy"));
  drape_cl_release(&cl);
}

/* Positions/normals with every float distinct, as the solver would hold. */
static void fill(float *p, float *n, int count) {
  for (int i = 0; i < count; i++) {
    p[4 * i + 0] = 0.001f * (float)i;
    p[4 * i + 1] = 1.0f + 0.5f * sinf((float)i);
    p[4 * i + 2] = -0.25f * (float)(i % 17);
    p[4 * i + 3] = 1.0f / (1.0f + (float)i); /* inverse mass: the renderer ignores it */
    n[4 * i + 0] = cosf((float)i);
    n[4 * i + 1] = sinf((float)i);
    n[4 * i + 2] = 0;
    n[4 * i + 3] = 0;
  }
}

static void test_copy_paths_exact(void **state) {
  (void)state;
  const int N = 5000;
  drape_err e = {0};
  drape_cl cl;
  int shared = 0;
  drape_cl_opts o = drape_cl_default_opts();
  assert_int_equal(drape_interop_cl_init(g_gl, DRAPE_INTEROP_COPY, &o, &cl, &shared, NULL, 0, &e),
                   0);
  float *p = malloc((size_t)N * 16), *n = malloc((size_t)N * 16), *back = malloc((size_t)N * 16);
  fill(p, n, N);
  cl_int rc;
  cl_mem bp = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (size_t)N * 16, p, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  cl_mem bn = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (size_t)N * 16, n, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  drape_xfer_path paths[2] = {DRAPE_XFER_MAP, DRAPE_XFER_HOSTPTR};
  for (int k = 0; k < 2; k++) {
    drape_render_object obj = {DRAPE_RO_SURFACE, 0, 0, {1, 1, 1}, {1, 1, 1}, 0, 0, 0};
    drape_render_mesh_desc d = {N, NULL, 0, NULL, 0, NULL, &obj, 1};
    drape_render_mesh *m = NULL;
    assert_int_equal(drape_render_mesh_create(g_r, &d, &m, &e), 0);
    drape_interop *ip = NULL;
    if (drape_interop_create(&cl, 0, m, paths[k], &ip, &e)) fail_msg("%s", e.msg);
    assert_int_equal(drape_interop_path(ip), paths[k]);
    assert_int_equal(drape_interop_update(ip, bp, bn, &e), 0);
    assert_true(drape_interop_last_ms(ip) >= 0);
    /* Read GL's buffers back: the bytes the solver had, exactly. */
    glBindBuffer(GL_ARRAY_BUFFER, drape_render_mesh_positions_gl(m));
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)N * 16, back);
    assert_memory_equal(back, p, (size_t)N * 16);
    glBindBuffer(GL_ARRAY_BUFFER, drape_render_mesh_normals_gl(m));
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)N * 16, back);
    assert_memory_equal(back, n, (size_t)N * 16);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    assert_int_equal(glGetError(), GL_NO_ERROR);
    /* A second frame with new data replaces the first. */
    for (int i = 0; i < 4 * N; i++) p[i] += 1.0f;
    assert_int_equal(clEnqueueWriteBuffer(cl.queue, bp, CL_TRUE, 0, (size_t)N * 16, p, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(drape_interop_update(ip, bp, NULL, &e), 0);
    glBindBuffer(GL_ARRAY_BUFFER, drape_render_mesh_positions_gl(m));
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)N * 16, back);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    assert_memory_equal(back, p, (size_t)N * 16);
    drape_interop_destroy(ip);
    drape_render_mesh_destroy(m);
  }
  /* The share path is refused on a context made without sharing. */
  drape_render_object obj = {DRAPE_RO_SURFACE, 0, 0, {1, 1, 1}, {1, 1, 1}, 0, 0, 0};
  drape_render_mesh_desc d = {N, NULL, 0, NULL, 0, NULL, &obj, 1};
  drape_render_mesh *m = NULL;
  assert_int_equal(drape_render_mesh_create(g_r, &d, &m, &e), 0);
  drape_interop *ip = NULL;
  assert_int_equal(drape_interop_create(&cl, 0, m, DRAPE_XFER_SHARE, &ip, &e), DRAPE_EINVAL);
  /* Chosen automatically on a CPU device with llvmpipe: the host pointer path. */
  assert_int_equal(drape_interop_create(&cl, 0, m, 0, &ip, &e), 0);
  print_message("automatic copy path: %s\n", drape_xfer_path_name(drape_interop_path(ip)));
  if (cl.type & CL_DEVICE_TYPE_CPU)
    assert_int_equal(drape_interop_path(ip), DRAPE_XFER_HOSTPTR);
  drape_interop_destroy(ip);
  drape_render_mesh_destroy(m);
  clReleaseMemObject(bp);
  clReleaseMemObject(bn);
  drape_cl_release(&cl);
  free(p);
  free(n);
  free(back);
}

/* The synthetic scene drawn from OpenCL buffers through each path is the
 * same picture as drawn from a host upload. */
static void test_frames_equal_host_upload(void **state) {
  (void)state;
  const int W = 128, H = 96;
  drape_err e = {0};
  uint8_t *ref = rt_render_synth(g_r, W, H, 1, 20, 1.0f, NULL, &e);
  if (!ref) fail_msg("%s", e.msg);
  drape_cl cl;
  int shared = 0;
  drape_cl_opts o = drape_cl_default_opts();
  assert_int_equal(drape_interop_cl_init(g_gl, DRAPE_INTEROP_AUTO, &o, &cl, &shared, NULL, 0, &e),
                   0);
  dr_synth s;
  assert_int_equal(dr_synth_build(&s, 20, 1.0f, &e), 0);
  cl_int rc;
  cl_mem bp = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             (size_t)s.n_vertices * 16, s.pos, &rc);
  cl_mem bn = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             (size_t)s.n_vertices * 16, s.nrm, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  drape_render_mesh_desc d = dr_synth_desc(&s);
  drape_render_scene sc = dr_synth_scene(&s, (float)W / H);
  drape_render_target *t = NULL;
  assert_int_equal(drape_render_target_create(W, H, 1, &t, &e), 0);
  uint8_t *rgb = malloc((size_t)W * H * 3);
  drape_xfer_path paths[2] = {DRAPE_XFER_MAP, DRAPE_XFER_HOSTPTR};
  for (int k = 0; k < 2; k++) {
    drape_render_mesh *m = NULL;
    drape_interop *ip = NULL;
    assert_int_equal(drape_render_mesh_create(g_r, &d, &m, &e), 0);
    if (drape_interop_create(&cl, shared, m, paths[k], &ip, &e)) fail_msg("%s", e.msg);
    assert_int_equal(drape_interop_update(ip, bp, bn, &e), 0);
    assert_int_equal(drape_render_target_bind(t, &e), 0);
    assert_int_equal(drape_render_draw(g_r, &sc, W, H, &e), 0);
    assert_int_equal(drape_render_target_read(t, rgb, &e), 0);
    assert_memory_equal(rgb, ref, (size_t)W * H * 3);
    drape_interop_destroy(ip);
    drape_render_mesh_destroy(m);
  }
  free(rgb);
  free(ref);
  drape_render_target_destroy(t);
  clReleaseMemObject(bp);
  clReleaseMemObject(bn);
  dr_synth_free(&s);
  drape_cl_release(&cl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_modes_parse),
      cmocka_unit_test(test_share_refused_without_extension),
      cmocka_unit_test(test_copy_paths_exact),
      cmocka_unit_test(test_frames_equal_host_upload),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
