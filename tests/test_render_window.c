/* The viewer's context: a hidden GLFW window under the X server the test
 * command starts (xvfb-run). The same renderer draws into the window's
 * default framebuffer, and a screenshot read back shows the cloth; the
 * headless and window renders of one frame agree. Skipped without DISPLAY
 * (e.g. when run by hand on a server). */
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "test_render_util.h"

static void test_window_renders(void **state) {
  (void)state;
  const char *d = getenv("DISPLAY");
  if (!d || !*d) skip();
  const int W = 160, H = 120;
  drape_gl_window_opts o = drape_gl_window_opts_default();
  o.width = W;
  o.height = H;
  o.visible = 0;
  o.vsync = 0;
  o.samples = 0;
  drape_gl *gl = NULL;
  drape_err e = {0};
  if (drape_gl_open_window(&o, &gl, &e)) fail_msg("%s", e.msg);
  assert_int_equal(drape_gl_kind_of(gl), DRAPE_GL_GLFW);
  assert_non_null(drape_gl_window(gl));
  assert_non_null(strstr(drape_gl_describe(gl), "GLFW"));
  int fw = 0, fh = 0;
  drape_gl_framebuffer_size(gl, &fw, &fh);
  assert_true(fw >= W && fh >= H); /* high-DPI screens give more pixels */
  intptr_t props[7];
  int np = drape_gl_cl_share_props(gl, props);
  assert_true(np == 2);
  assert_int_equal(props[0], 0x2008); /* CL_GL_CONTEXT_KHR */
  assert_true(props[2] == 0x200A || props[2] == 0x2009); /* GLX or EGL display */

  drape_renderer *r = NULL;
  drape_render_opts ro = drape_render_opts_default();
  ro.shadow_size = 1024;
  if (drape_renderer_create(&ro, &r, &e)) fail_msg("%s", e.msg);
  dr_synth s;
  assert_int_equal(dr_synth_build(&s, 24, 0.8f, &e), 0);
  drape_render_mesh_desc desc = dr_synth_desc(&s);
  drape_render_mesh *m = NULL;
  assert_int_equal(drape_render_mesh_create(r, &desc, &m, &e), 0);
  assert_int_equal(drape_render_mesh_upload(m, s.pos, s.nrm, 0, s.n_vertices, &e), 0);
  drape_render_scene sc = dr_synth_scene(&s, (float)fw / (float)fh);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  assert_int_equal(drape_render_draw(r, &sc, fw, fh, &e), 0);
  drape_render_text_panel(r, 4, 4, 1, "drape viewer");
  assert_int_equal(drape_render_overlay(r, fw, fh, &e), 0);
  uint8_t *rgb = malloc((size_t)fw * fh * 3);
  glReadBuffer(GL_BACK);
  assert_int_equal(drape_gl_read_rgb(fw, fh, rgb, &e), 0);
  glfwSwapBuffers((GLFWwindow *)drape_gl_window(gl));
  double orange = RT_ORANGE(rgb, fw, fh);
  print_message("window render: %dx%d, orange share %.3f, %s\n", fw, fh, orange,
                drape_gl_renderer_name(gl));
  assert_true(orange > 0.03);
  free(rgb);
  drape_render_mesh_destroy(m);
  drape_renderer_destroy(r);
  dr_synth_free(&s);
  drape_gl_close(gl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_window_renders),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
