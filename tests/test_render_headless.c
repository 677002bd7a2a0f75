/* Headless rendering on llvmpipe through EGL with no display: the context,
 * the synthetic cloth-over-sphere scene written as PNG (size, cloth and
 * sphere pixel shares, both cloth faces), shadows darkening the floor, the
 * overlay text, camera framing, and the renderer's input checks. */
#include <unistd.h>

#include "render/gl_util.h"
#include "test_render_util.h"

static drape_gl *g_gl;
static drape_renderer *g_r;

static int setup(void **state) {
  (void)state;
  g_gl = rt_open_headless();
  if (!g_gl) return -1;
  drape_err e = {0};
  drape_render_opts o = drape_render_opts_default();
  o.shadow_size = 1024; /* small frames: a small map keeps the test fast */
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

static void test_context_is_headless(void **state) {
  (void)state;
  assert_null(getenv("DISPLAY"));
  drape_gl_kind k = drape_gl_kind_of(g_gl);
  assert_true(k == DRAPE_GL_EGL_SURFACELESS || k == DRAPE_GL_EGL_DEVICE);
  assert_true(strlen(drape_gl_renderer_name(g_gl)) > 0);
  assert_non_null(strstr(drape_gl_describe(g_gl), "EGL"));
  assert_true(epoxy_gl_version() >= 33);
  assert_null(drape_gl_window(g_gl));
  /* An EGL context can be offered to OpenCL for sharing. */
  intptr_t props[7];
  assert_int_equal(drape_gl_cl_share_props(g_gl, props), 2);
  assert_int_equal(props[0], 0x2008); /* CL_GL_CONTEXT_KHR */
  assert_true(props[1] != 0);
  assert_int_equal(props[2], 0x2009); /* CL_EGL_DISPLAY_KHR */
  assert_int_equal(props[4], 0);
}

/* The synthetic drape through the whole headless path: render, read back,
 * write a PNG with the capture module, decode it again. */
static void test_synthetic_drape_png(void **state) {
  (void)state;
  const int W = 192, H = 144;
  drape_err e = {0};
  uint8_t *rgb = rt_render_synth(g_r, W, H, 4, 32, 1.0f, NULL, &e);
  if (!rgb) fail_msg("%s", e.msg);
  const char *dir = drape_test_tmpdir("render-headless");
  assert_non_null(dir);
  drape_capture_opts co = drape_capture_opts_default();
  co.png_dir = dir;
  co.width = W;
  co.height = H;
  drape_capture *c = NULL;
  if (drape_capture_open(&co, &c, &e)) fail_msg("%s", e.msg);
  assert_int_equal(drape_capture_frame(c, 1, rgb, &e), 0);
  assert_int_equal(drape_capture_close(c, 1, &e), 0);
  char path[1200];
  snprintf(path, sizeof path, "%s/frame_0001.png", dir);
  int w = 0, h = 0;
  uint8_t *png = rt_load_png(path, &w, &h);
  assert_non_null(png);
  assert_int_equal(w, W);
  assert_int_equal(h, H);
  assert_memory_equal(png, rgb, (size_t)W * H * 3); /* lossless round trip */
  /* The cloth is the main subject: a fair share of the frame, not all of it. */
  double orange = RT_ORANGE(png, W, H);
  print_message("orange (cloth front) share %.3f\n", orange);
  assert_true(orange > 0.03 && orange < 0.6);
  /* The ribbon's twist shows the back face too. */
  double blue = RT_BLUE(png, W, H);
  print_message("blue (cloth back) share %.4f\n", blue);
  assert_true(blue > 0.002);
  /* The top rows are sky or distant floor: not cloth. */
  assert_true(rt_share(png, W, H / 8, 12, 45, 0.45, 0.25) < 0.01);
  free(png);
  free(rgb);
}

/* A sphere coloured a hue nothing else has is seen under the sinking cloth. */
static void test_sphere_visible(void **state) {
  (void)state;
  const int W = 160, H = 120;
  const float green[3] = {0.08f, 0.6f, 0.1f};
  drape_err e = {0};
  uint8_t *rgb = rt_render_synth(g_r, W, H, 1, 24, 0.35f, green, &e);
  if (!rgb) fail_msg("%s", e.msg);
  double g = rt_share(rgb, W, H, 95, 145, 0.4, 0.15);
  print_message("sphere (green) share %.3f\n", g);
  assert_true(g > 0.01 && g < 0.5);
  free(rgb);
  /* The same scene with the sphere grey has no green at all: the count
   * above measures the sphere, not something else. */
  rgb = rt_render_synth(g_r, W, H, 1, 24, 0.35f, NULL, &e);
  if (!rgb) fail_msg("%s", e.msg);
  assert_true(rt_share(rgb, W, H, 95, 145, 0.4, 0.15) < 1e-4);
  free(rgb);
}

static double mean_luma(const uint8_t *rgb, int w, int h) {
  double s = 0;
  for (long i = 0; i < (long)w * h; i++)
    s += 0.2126 * rgb[3 * i] + 0.7152 * rgb[3 * i + 1] + 0.0722 * rgb[3 * i + 2];
  return s / ((double)w * h);
}

/* Shadows darken the frame (the floor under the cloth), and only there:
 * with shadows off the cloth share is unchanged. */
static void test_shadows_darken(void **state) {
  (void)state;
  const int W = 160, H = 120;
  drape_err e = {0};
  drape_render_opts o = drape_render_opts_default();
  o.shadows = 0;
  drape_renderer *flat = NULL;
  if (drape_renderer_create(&o, &flat, &e)) fail_msg("%s", e.msg);
  uint8_t *lit = rt_render_synth(flat, W, H, 1, 24, 1.0f, NULL, &e);
  uint8_t *sh = rt_render_synth(g_r, W, H, 1, 24, 1.0f, NULL, &e);
  drape_renderer_destroy(flat);
  if (!lit || !sh) fail_msg("%s", e.msg);
  double l0 = mean_luma(lit, W, H), l1 = mean_luma(sh, W, H);
  print_message("mean luma without shadows %.2f, with %.2f\n", l0, l1);
  assert_true(l1 < l0 - 1.0);
  /* Shadowed pixels are darker, never brighter. */
  long brighter = 0;
  for (long i = 0; i < (long)W * H * 3; i++) brighter += sh[i] > lit[i] + 2;
  assert_true(brighter < (long)W * H / 200);
  free(lit);
  free(sh);
}

static void test_overlay_text(void **state) {
  (void)state;
  const int W = 200, H = 100;
  drape_err e = {0};
  drape_render_target *t = NULL;
  if (drape_render_target_create(W, H, 1, &t, &e)) fail_msg("%s", e.msg);
  drape_render_scene sc;
  memset(&sc, 0, sizeof sc);
  float bmin[3] = {-1, 0, -1}, bmax[3] = {1, 1, 1};
  memcpy(sc.bounds_min, bmin, sizeof bmin);
  memcpy(sc.bounds_max, bmax, sizeof bmax);
  drape_camera_frame_box(bmin, bmax, 45, 2.0f, &sc.camera);
  assert_int_equal(drape_render_target_bind(t, &e), 0);
  assert_int_equal(drape_render_draw(g_r, &sc, W, H, &e), 0);
  float tw, th;
  drape_render_text_size("fps 60.0\nN step", 2, &tw, &th);
  assert_true(tw > 40 && tw < 200);
  assert_true(th >= 24 && th < 60);
  drape_render_text_panel(g_r, 10, 10, 2, "fps 60.0\nN step");
  assert_int_equal(drape_render_overlay(g_r, W, H, &e), 0);
  uint8_t *rgb = malloc((size_t)W * H * 3);
  assert_int_equal(drape_render_target_read(t, rgb, &e), 0);
  /* Inside the panel: dark background and near-white glyph pixels; outside
   * it none of either (the sky is mid-bright). */
  long white_in = 0, white_out = 0, dark_in = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const uint8_t *p = rgb + 3 * (y * W + x);
      int in = x >= 10 && x < 10 + tw && y >= 10 && y < 10 + th;
      int white = p[0] > 230 && p[1] > 230 && p[2] > 230;
      if (white && in) white_in++;
      if (white && !in) white_out++;
      if (in && p[0] < 80 && p[1] < 80 && p[2] < 80) dark_in++;
    }
  print_message("glyph pixels %ld, panel pixels %ld\n", white_in, dark_in);
  assert_true(white_in > 100);
  assert_true(dark_in > 200);
  assert_int_equal(white_out, 0);
  /* The queue is drawn once: the next overlay draws nothing new. */
  assert_int_equal(drape_render_overlay(g_r, W, H, &e), 0);
  free(rgb);
  drape_render_target_destroy(t);
}

/* The default camera sees every corner of the box, and the box fills a
 * good part of the view (not a speck in the middle). */
static void test_camera_frames_box(void **state) {
  (void)state;
  const float boxes[3][2][3] = {{{-0.64f, 0, -0.64f}, {0.64f, 1.2f, 0.64f}},
                                {{-3, 0, -0.1f}, {3, 0.2f, 0.1f}},
                                {{-0.1f, 0, -0.1f}, {0.1f, 4, 0.1f}}};
  const float aspects[3] = {16.0f / 9.0f, 1.0f, 0.5f};
  for (int b = 0; b < 3; b++)
    for (int a = 0; a < 3; a++) {
      drape_render_camera cam;
      drape_camera_frame_box(boxes[b][0], boxes[b][1], 45.0f, aspects[a], &cam);
      dr_mat4 vp = dr_mat4_mul(dr_perspective(45.0f * (float)DR_PI / 180, aspects[a], 0.01f, 100),
                               dr_look_at(cam.eye, cam.target, cam.up));
      float extent = 0;
      for (int k = 0; k < 8; k++) {
        float p[3] = {boxes[b][k & 1][0], boxes[b][(k >> 1) & 1][1], boxes[b][(k >> 2) & 1][2]};
        float cx = 0, cy = 0, cw = 0;
        for (int j = 0; j < 3; j++) {
          cx += vp.m[j * 4 + 0] * p[j];
          cy += vp.m[j * 4 + 1] * p[j];
          cw += vp.m[j * 4 + 3] * p[j];
        }
        cx += vp.m[12];
        cy += vp.m[13];
        cw += vp.m[15];
        assert_true(cw > 0);
        float nx = fabsf(cx / cw), ny = fabsf(cy / cw);
        assert_true(nx <= 1.0f && ny <= 1.0f);
        extent = fmaxf(extent, fmaxf(nx, ny));
      }
      assert_true(extent > 0.45f);
    }
}

static void test_bad_input(void **state) {
  (void)state;
  drape_err e = {0};
  drape_render_target *t = NULL;
  assert_int_equal(drape_render_target_create(0, 10, 1, &t, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "0x10"));
  assert_int_equal(drape_render_target_create(100000, 10, 1, &t, &e), DRAPE_EINVAL);
  assert_null(t);
  uint32_t tris[3] = {0, 1, 7};
  drape_render_object o = {DRAPE_RO_SURFACE, 0, 1, {1, 0, 0}, {0, 0, 1}, 0, 0, 0};
  drape_render_mesh_desc d = {4, tris, 1, NULL, 0, NULL, &o, 1};
  drape_render_mesh *m = NULL;
  assert_int_equal(drape_render_mesh_create(g_r, &d, &m, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "vertex 7"));
  tris[2] = 3;
  o.count = 2; /* one triangle more than the list has */
  assert_int_equal(drape_render_mesh_create(g_r, &d, &m, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "object 0"));
  o.count = 1;
  assert_int_equal(drape_render_mesh_create(g_r, &d, &m, &e), 0);
  float p[16] = {0};
  assert_int_equal(drape_render_mesh_upload(m, p, NULL, 2, 4, &e), DRAPE_EINVAL);
  d.n_vertices = 5;
  assert_int_equal(drape_render_mesh_set_topology(m, &d, &e), DRAPE_EINVAL);
  drape_render_mesh_destroy(m);
  assert_int_equal(drape_render_draw(g_r, NULL, 0, 0, &e), DRAPE_EINVAL);
  /* Error names. */
  assert_string_equal(drape_gl_errstr(0x0502), "GL_INVALID_OPERATION");
  assert_string_equal(drape_egl_errstr(0x3009), "EGL_BAD_MATCH");
  /* A bad forced platform is named. */
  setenv("DRAPE_EGL_PLATFORM", "x11", 1);
  drape_gl *gl = NULL;
  assert_int_equal(drape_gl_open_headless(&gl, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "DRAPE_EGL_PLATFORM"));
  unsetenv("DRAPE_EGL_PLATFORM");
  assert_int_equal(drape_gl_make_current(g_gl, &e), 0);
  /* No display: a window is refused with a hint at the headless path. */
  drape_gl_window_opts wo = drape_gl_window_opts_default();
  assert_int_equal(drape_gl_open_window(&wo, &gl, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "--png-dir"));
  assert_int_equal(drape_gl_make_current(g_gl, &e), 0);
}

/* Host-computed normals: unit length, area weighted, pointing to the side
 * the triangles wind counter-clockwise towards. */
static void test_compute_normals(void **state) {
  (void)state;
  float p[4 * 4] = {0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1};
  uint32_t t[6] = {0, 2, 1, 1, 2, 3}; /* ccw seen from +y */
  float n[16];
  drape_render_compute_normals(p, 4, t, 2, n);
  for (int i = 0; i < 4; i++) {
    assert_near(n[4 * i + 0], 0, 1e-6);
    assert_near(n[4 * i + 1], 1, 1e-6);
    assert_near(n[4 * i + 2], 0, 1e-6);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_context_is_headless), cmocka_unit_test(test_synthetic_drape_png),
      cmocka_unit_test(test_sphere_visible),      cmocka_unit_test(test_shadows_darken),
      cmocka_unit_test(test_overlay_text),        cmocka_unit_test(test_camera_frames_box),
      cmocka_unit_test(test_bad_input),           cmocka_unit_test(test_compute_normals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
