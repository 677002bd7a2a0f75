/* `drape run` with rendering, end to end through the command (OpenCL on
 * PoCL, EGL on llvmpipe, DISPLAY removed): the sphere scene's PNG frames
 * exist at the asked size, the cloth covers a plausible share of them and
 * moves between frame 1 and frame 60; the sphere is visible where it
 * projects; a video is written through ffmpeg; bad input exits with 2, a
 * message naming the flag, and no output left behind. */
#include <sys/stat.h>

#include "drape/world_view.h"
#include "test_render_util.h"

static char g_out[16384];

/* Runs drape with DISPLAY unset; returns its exit status. */
static int drape(const char *fmt, ...) DRAPE_PRINTF(1, 2);
static int drape(const char *fmt, ...) {
  char args[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  int rc = drape_test_sh(g_out, sizeof g_out, "env -u DISPLAY -u WAYLAND_DISPLAY '%s' %s",
                         drape_test_exe(), args);
  print_message("drape %s -> %d\n%s", args, rc, g_out);
  return rc;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static uint8_t *load(const char *dir, int frame, int *w, int *h) {
  char path[1300];
  snprintf(path, sizeof path, "%s/frame_%04d.png", dir, frame);
  return rt_load_png(path, w, h);
}

/* Share of cloth pixels: the drape scene's orange front or blue back. */
static double cloth_share(const uint8_t *rgb, int w, int h) {
  return RT_ORANGE(rgb, w, h) + RT_BLUE(rgb, w, h);
}

static void test_sphere_scene_moves(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("run-sphere");
  char scene[1200];
  snprintf(scene, sizeof scene, "%s/scenes/drape_sphere.json", drape_test_source_dir());
  assert_int_equal(drape("run '%s' --frames 60 --every 59 --size 160x90 --png-dir '%s/png'",
                         scene, dir),
                   0);
  assert_non_null(strstr(g_out, "CL->GL transfer"));
  char pdir[1200];
  snprintf(pdir, sizeof pdir, "%s/png", dir);
  int w1, h1, w60, h60;
  uint8_t *f1 = load(pdir, 1, &w1, &h1), *f60 = load(pdir, 60, &w60, &h60);
  assert_non_null(f1);
  assert_non_null(f60);
  assert_int_equal(w1, 160);
  assert_int_equal(h1, 90);
  assert_int_equal(w60, 160);
  assert_int_equal(h60, 90);
  /* --every 59: frames 1 and 60 only. */
  char path[1300];
  snprintf(path, sizeof path, "%s/frame_0002.png", pdir);
  assert_false(exists(path));
  double c1 = cloth_share(f1, 160, 90), c60 = cloth_share(f60, 160, 90);
  print_message("cloth share: frame 1 %.3f, frame 60 %.3f\n", c1, c60);
  /* Flat and seen almost edge-on at first, then draped: visible in both,
   * never the whole frame. */
  assert_true(c1 > 0.01 && c1 < 0.5);
  assert_true(c60 > 0.03 && c60 < 0.5);
  long changed = 0;
  for (long i = 0; i < 160L * 90; i++)
    for (int k = 0; k < 3; k++)
      if (abs((int)f1[3 * i + k] - (int)f60[3 * i + k]) > 24) {
        changed++;
        break;
      }
  print_message("pixels changed between frame 1 and 60: %ld\n", changed);
  assert_true(changed > 160 * 90 / 20); /* the cloth moved */
  free(f1);
  free(f60);
}

/* A small scene written by the test, with and without its sphere: frame 1
 * (the cloth has barely moved) differs inside the sphere's projected disk
 * and hardly anywhere else but its shadow. */
static const char *scene_fmt =
    "{\"dt\": 0.016666, \"substeps\": 4, \"frames\": 1,\n"
    " \"cloth\": [{\"grid\": {\"cols\": 16, \"rows\": 16, \"spacing\": 0.05,\n"
    "   \"origin\": [-0.375, 1.4, -0.375], \"plane\": \"xz\"}}],\n"
    " %s\n"
    " \"floor\": {\"height\": 0},\n"
    " \"camera\": {\"eye\": [0, 0.5, 3], \"target\": [0, 0.5, 0], \"fov_deg\": 40}}\n";

static void project(const float eye[3], const float target[3], float fov, int w, int h,
                    const float p[3], float *px, float *py) {
  float f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
  float lf = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  for (int k = 0; k < 3; k++) f[k] /= lf;
  /* Camera looks along -z here (eye on +z): right = +x, up = +y. */
  float d[3] = {p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]};
  float z = d[0] * f[0] + d[1] * f[1] + d[2] * f[2];
  float t = tanf(fov * 3.14159265f / 360.0f);
  *px = (0.5f + 0.5f * (d[0] / z) / (t * w / h)) * w;
  *py = (0.5f - 0.5f * (d[1] / z) / t) * h;
}

static void test_sphere_visible(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("run-sphere-visible");
  char with[1300], without[1300];
  snprintf(with, sizeof with, "%s/with.json", dir);
  snprintf(without, sizeof without, "%s/without.json", dir);
  FILE *f = fopen(with, "w");
  fprintf(f, scene_fmt, "\"sphere\": [{\"center\": [0, 0.5, 0], \"radius\": 0.4}],");
  fclose(f);
  f = fopen(without, "w");
  fprintf(f, scene_fmt, "");
  fclose(f);
  assert_int_equal(drape("run '%s' --size 120x90 --png-dir '%s/a' --no-progress", with, dir), 0);
  assert_int_equal(drape("run '%s' --size 120x90 --png-dir '%s/b' --no-progress", without, dir),
                   0);
  char a[1300], b[1300];
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  int w, h;
  uint8_t *fa = load(a, 1, &w, &h), *fb = load(b, 1, &w, &h);
  assert_non_null(fa);
  assert_non_null(fb);
  const float eye[3] = {0, 0.5f, 3}, target[3] = {0, 0.5f, 0}, c[3] = {0, 0.5f, 0};
  float cx, cy, ex, ey;
  project(eye, target, 40, 120, 90, c, &cx, &cy);
  const float edge[3] = {0.4f, 0.5f, 0};
  project(eye, target, 40, 120, 90, edge, &ex, &ey);
  float r = ex - cx; /* projected radius in px (about, for a sphere this far) */
  long in = 0, in_diff = 0;
  for (int y = 0; y < 90; y++)
    for (int x = 0; x < 120; x++) {
      float dx = x + 0.5f - cx, dy = y + 0.5f - cy;
      if (dx * dx + dy * dy > 0.8f * 0.8f * r * r) continue;
      in++;
      long i = (long)y * 120 + x;
      int d = 0;
      for (int k = 0; k < 3; k++) d += abs((int)fa[3 * i + k] - (int)fb[3 * i + k]);
      in_diff += d > 30;
    }
  print_message("sphere disk at (%.1f, %.1f) r %.1f px: %ld of %ld pixels differ\n", cx, cy, r,
                in_diff, in);
  assert_true(in > 100);
  assert_true(in_diff > in * 9 / 10);
  free(fa);
  free(fb);
}

static void test_video(void **state) {
  (void)state;
  char ff[1024];
  if (!drape_find_on_path("ffmpeg", ff, sizeof ff) || !drape_find_on_path("ffprobe", ff, sizeof ff))
    skip();
  const char *dir = drape_test_tmpdir("run-video");
  char scene[1200];
  snprintf(scene, sizeof scene, "%s/scenes/drape_sphere.json", drape_test_source_dir());
  assert_int_equal(drape("run '%s' --frames 12 --every 2 --size 96x64 --video '%s/clip.mp4'",
                         scene, dir),
                   0);
  assert_non_null(strstr(g_out, "clip.mp4"));
  char out[256];
  assert_int_equal(drape_test_sh(out, sizeof out,
                                 "ffprobe -v error -count_frames -select_streams v:0 "
                                 "-show_entries stream=nb_read_frames,width,height,r_frame_rate "
                                 "-of csv=p=0 '%s/clip.mp4'", dir),
                   0);
  /* 12 frames every 2nd: 6 frames, played at 1/(2 dt) = 30 fps. */
  print_message("ffprobe: %s", out);
  assert_non_null(strstr(out, "96,64,"));
  assert_non_null(strstr(out, ",6\n"));
  assert_non_null(strstr(out, ",30/1,"));
  assert_int_equal(drape_test_sh(out, sizeof out, "ls -A '%s' | grep -c partial", dir), 1);
  assert_int_equal(atoi(out), 0);
}

static void test_bad_input(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("run-bad");
  char scene[1200];
  snprintf(scene, sizeof scene, "%s/scenes/drape_sphere.json", drape_test_source_dir());
  char file[1300];
  snprintf(file, sizeof file, "%s/plain-file", dir);
  FILE *f = fopen(file, "w");
  fclose(f);

  assert_int_equal(drape("run '%s' --frames 2 --size 0x0 --png-dir '%s/p'", scene, dir), 2);
  assert_non_null(strstr(g_out, "--size \"0x0\""));
  assert_non_null(strstr(g_out, "16..8192"));
  assert_int_equal(drape("run '%s' --frames 2 --size 100000x100000 --png-dir '%s/p'", scene, dir),
                   2);
  assert_non_null(strstr(g_out, "--size"));
  assert_int_equal(drape("run '%s' --frames 2 --size 640 --png-dir '%s/p'", scene, dir), 2);
  assert_int_equal(drape("run '%s' --frames 2 --every 0 --png-dir '%s/p'", scene, dir), 2);
  assert_non_null(strstr(g_out, "--every"));
  assert_int_equal(drape("run '%s' --frames 2 --interop fast --png-dir '%s/p'", scene, dir), 2);
  assert_non_null(strstr(g_out, "--interop"));
  assert_int_equal(drape("run '%s' --frames 2 --png-dir", scene), 2);
  /* Unwritable folder: below a regular file. */
  assert_int_equal(drape("run '%s' --frames 2 --png-dir '%s/sub'", scene, file), 2);
  assert_non_null(strstr(g_out, "--png-dir"));
  assert_non_null(strstr(g_out, "cannot create"));
  /* --video without ffmpeg on PATH (drape itself is run by its full path). */
  assert_int_equal(drape_test_sh(g_out, sizeof g_out,
                                 "env -u DISPLAY PATH='%s' '%s' run '%s' --frames 2 --video "
                                 "'%s/out.mp4'",
                                 dir, drape_test_exe(), scene, dir),
                   2);
  print_message("%s", g_out);
  assert_non_null(strstr(g_out, "ffmpeg was not found on PATH"));
  /* No output of any refused run exists: only the plain file. */
  char out[256];
  drape_test_sh(out, sizeof out, "ls -A '%s' | wc -l", dir);
  assert_int_equal(atoi(out), 1);
  /* --interop share where the device has no cl_khr_gl_sharing (PoCL). */
  int rc = drape("run '%s' --frames 2 --interop share --png-dir '%s/share'", scene, dir);
  if (rc != 0) { /* succeeds only on a device that shares (a GPU) */
    assert_int_equal(rc, 2);
    assert_non_null(strstr(g_out, "--interop share"));
    assert_non_null(strstr(g_out, "cl_khr_gl_sharing"));
    assert_non_null(strstr(g_out, "--interop copy"));
  }
  /* --interop share with the CPU backend: nothing to share. */
  assert_int_equal(drape("run '%s' --frames 2 --backend cpu --interop share --png-dir '%s/x'",
                         scene, dir),
                   2);
  assert_non_null(strstr(g_out, "CPU backend"));
}


/* Implicit ropes (seed 003 cables, stepped by the world) are in the
 * frames: the cable scene's frame differs from the same camera over an
 * empty scene along a thin curve. */
static void test_cables_drawn(void **state) {
  (void)state;
  const char *dir = drape_test_tmpdir("run-cables");
  char with[1200], none[1200], scene_none[1200];
  snprintf(with, sizeof with, "%s/with", dir);
  snprintf(none, sizeof none, "%s/none", dir);
  snprintf(scene_none, sizeof scene_none, "%s/none.json", dir);
  FILE *f = fopen(scene_none, "w");
  assert_non_null(f);
  fputs("{\"gravity\": [0, -9.8, 0], \"dt\": 0.04, \"substeps\": 1,\n"
        " \"camera\": {\"eye\": [2, -0.6, 6], \"target\": [2, -0.5, 0], \"fov_deg\": 45}}\n", f);
  fclose(f);
  assert_int_equal(drape("run '%s/scenes/cable_seed003.json' --frames 20 --backend cpu --size 320x180 "
                         "--png-dir '%s'", drape_test_source_dir(), with), 0);
  assert_int_equal(drape("run '%s' --frames 20 --backend cpu --size 320x180 --png-dir '%s'",
                         scene_none, none), 0);
  int w, h, w2, h2;
  uint8_t *a = load(with, 20, &w, &h), *b = load(none, 20, &w2, &h2);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(w, w2);
  const long differ = rt_count_differing(a, b, w, h, 40);
  print_message("cable pixels in frame 20: %ld of %d\n", differ, w * h);
  assert_true(differ > 60 && differ < w * h / 20); /* a thin curve */
  free(a);
  free(b);
}

/* In-process through the public drape_frames API (drape/world_view.h): a
 * world with a seed 000 string beside a small cloth, rendered for 2 frames;
 * the same world without the string, same camera. The string is drawn, in
 * the colour the scene gives it (green), along a thin curve where it is. */
static int render_world(drape_scene *sc, const drape_render_def *look, const char *png,
                        drape_err *e) {
  drape_frames_def fd = drape_frames_def_default();
  fd.png_dir = png;
  fd.width = 240;
  fd.height = 180;
  fd.samples = 1;
  drape_world_def wd = drape_world_def_default();
  drape_frames *f = NULL;
  drape_world *w = NULL;
  int rc = drape_frames_open(&fd, sc, look, &wd, &f, e);
  if (!rc) rc = drape_world_create(sc, &wd, &w, e);
  if (!rc) rc = drape_frames_attach(f, w, e);
  for (int k = 0; !rc && k < 2; k++)
    if (!(rc = drape_world_step(w, e))) rc = drape_frames_add(f, e);
  if (!rc) rc = drape_frames_finish(f, e);
  int frames;
  double a, b;
  drape_frames_timings(f, &frames, &a, &b);
  if (!rc && frames != 2) rc = drape_fail(e, DRAPE_EINVAL, "rendered %d frames, not 2", frames);
  drape_world_destroy(w);
  drape_frames_destroy(f);
  return rc;
}

static void test_strings_drawn(void **state) {
  (void)state;
  unsetenv("DISPLAY");
  const char *dir = drape_test_tmpdir("run-strings");
  drape_scene sc;
  drape_scene_init(&sc);
  drape_cloth_def c = drape_cloth_def_default();
  c.cols = c.rows = 6;
  c.spacing = 0.05;
  c.origin[1] = 1.0;
  drape_scene_add_cloth(&sc, &c);
  sc.has_floor = 1;
  /* The string starts straight to the right of its anchor (-1.6, 2.6) and
   * has fallen by about 1 cm after 2 frames: frame it from 6 m. */
  drape_render_def look = drape_render_def_default();
  look.camera.eye[0] = look.camera.target[0] = 0.4;
  look.camera.eye[1] = look.camera.target[1] = 2.4;
  look.camera.eye[2] = 6.0;
  look.camera.has_eye = look.camera.has_target = 1;
  look.camera.fov_deg = 45;
  char none[1200], with[1200];
  snprintf(none, sizeof none, "%s/none", dir);
  snprintf(with, sizeof with, "%s/with", dir);
  drape_err e = {0};
  int rc = render_world(&sc, &look, none, &e);
  drape_string_def sd = drape_string_def_default();
  sd.nodes = 40;
  drape_scene_add_string(&sc, &sd);
  /* its colour is presentation: the render def's, not the scene's */
  const float green[3] = {0.05f, 0.7f, 0.1f};
  if (!rc) rc = drape_render_def_set_color(&look, DRAPE_LOOK_STRING, 0, green, NULL, &e);
  if (!rc) rc = render_world(&sc, &look, with, &e);
  drape_scene_free(&sc);
  drape_render_def_free(&look);
  if (rc) fail_msg("rc %d: %s", rc, e.msg);
  int w, h, w2, h2;
  uint8_t *a = load(with, 2, &w, &h), *b = load(none, 2, &w2, &h2);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(w, 240);
  assert_int_equal(w2, w);
  /* Green pixels: how many, and how far they reach across the frame (the
   * 4 m string spans about 145 px at this distance). */
  long n_green = 0, n_green0 = 0;
  int x0 = w, x1 = -1;
  for (int i = 0; i < w * h; i++) {
    double hu, sa, va;
    rt_hue_sat(b + 3 * i, &hu, &sa, &va);
    n_green0 += hu >= 95 && hu <= 145 && sa >= 0.5 && va >= 0.15;
    rt_hue_sat(a + 3 * i, &hu, &sa, &va);
    if (!(hu >= 95 && hu <= 145 && sa >= 0.5 && va >= 0.15)) continue;
    n_green++;
    if (i % w < x0) x0 = i % w;
    if (i % w > x1) x1 = i % w;
  }
  print_message("string: %ld green pixels of %d, x %d..%d (without the string: %ld)\n", n_green,
                w * h, x0, x1, n_green0);
  assert_int_equal(n_green0, 0);
  assert_true(n_green > 100 && n_green < w * h / 20); /* a thin curve */
  assert_true(x1 - x0 > 120);
  free(a);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sphere_scene_moves),
      cmocka_unit_test(test_sphere_visible),
      cmocka_unit_test(test_video),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_strings_drawn), cmocka_unit_test(test_cables_drawn),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
