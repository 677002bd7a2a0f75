/* Frame capture: PNG files written whole (temporary name, then rename) in
 * order by the worker thread, a video through ffmpeg with the frame count
 * and size asked, and the failures: unwritable folder, bad sizes, no
 * ffmpeg on PATH, ffmpeg dying mid-run (no partial file left), and the
 * progress line. No GL needed: frames are synthetic pixel patterns. */
#include <sys/stat.h>
#include <unistd.h>

#include "test_render_util.h"

/* A frame whose pixels encode (x, y, frame number): decoding tells
 * whether the right frame landed in the right file. */
static void pattern(uint8_t *rgb, int w, int h, int k) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t *p = rgb + 3 * (y * w + x);
      p[0] = (uint8_t)(x * 7 + k);
      p[1] = (uint8_t)(y * 5 + 3 * k);
      p[2] = (uint8_t)(k * 16); /* distinct and ordered for k = 1..15 */
    }
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Counts entries of dir whose name contains `part`. */
static int count_named(const char *dir, const char *part) {
  char out[4096];
  drape_test_sh(out, sizeof out, "ls -A '%s' | grep -c -- '%s'", dir, part);
  return atoi(out);
}

static void png_frames(int encoders) {
  const char *base = drape_test_tmpdir("capture-png");
  char dir[1200];
  snprintf(dir, sizeof dir, "%s/a/b", base); /* created, parents too */
  const int W = 37, H = 23, N = 12;          /* odd sizes on purpose */
  drape_capture_opts o = drape_capture_opts_default();
  o.png_dir = dir;
  o.width = W;
  o.height = H;
  o.queue_frames = 2; /* a small ring: the producer must wait for the encoders */
  o.png_level = 1;
  o.encoders = encoders;
  drape_capture *c = NULL;
  drape_err e = {0};
  if (drape_capture_open(&o, &c, &e)) fail_msg("%s", e.msg);
  uint8_t *rgb = malloc((size_t)W * H * 3);
  for (int k = 1; k <= N; k++) {
    pattern(rgb, W, H, k);
    assert_int_equal(drape_capture_frame(c, 10 * k, rgb, &e), 0);
  }
  assert_int_equal(drape_capture_close(c, 1, &e), 0);
  for (int k = 1; k <= N; k++) {
    char path[1300];
    snprintf(path, sizeof path, "%s/frame_%04d.png", dir, 10 * k);
    int w, h;
    uint8_t *png = rt_load_png(path, &w, &h);
    assert_non_null(png);
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    pattern(rgb, W, H, k);
    assert_memory_equal(png, rgb, (size_t)W * H * 3);
    free(png);
  }
  assert_int_equal(count_named(dir, "frame_"), N);
  assert_int_equal(count_named(dir, "tmp"), 0); /* no temporary left */
  assert_int_equal(count_named(dir, "probe"), 0);
  free(rgb);
}

static void test_png_frames(void **state) {
  (void)state;
  png_frames(1);
  png_frames(3); /* frames finish out of order; each file still holds its own */
}

static void test_bad_outputs(void **state) {
  (void)state;
  const char *base = drape_test_tmpdir("capture-bad");
  char file[1200], dir[1300];
  snprintf(file, sizeof file, "%s/plain-file", base);
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  drape_capture_opts o = drape_capture_opts_default();
  o.width = 64;
  o.height = 48;
  drape_capture *c = NULL;
  drape_err e = {0};
  /* A folder below a regular file cannot be made (even by root). */
  snprintf(dir, sizeof dir, "%s/frames", file);
  o.png_dir = dir;
  assert_int_equal(drape_capture_open(&o, &c, &e), DRAPE_EINVAL);
  assert_null(c);
  assert_non_null(strstr(e.msg, "--png-dir"));
  assert_non_null(strstr(e.msg, dir));
  /* The path is a file, not a folder. */
  o.png_dir = file;
  assert_int_equal(drape_capture_open(&o, &c, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "not a folder"));
  /* Sizes. */
  o.png_dir = base;
  o.width = 0;
  assert_int_equal(drape_capture_open(&o, &c, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "--size 0x48"));
  o.width = 100000;
  assert_int_equal(drape_capture_open(&o, &c, &e), DRAPE_EINVAL);
  o.width = 64;
  /* Video: unknown container, missing folder, folder instead of file. */
  o.png_dir = NULL;
  o.video_path = "out.xyz";
  assert_int_equal(drape_capture_open(&o, &c, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, ".mp4"));
  snprintf(dir, sizeof dir, "%s/missing/out.mp4", base);
  o.video_path = dir;
  char ff[1024];
  if (drape_find_on_path("ffmpeg", ff, sizeof ff)) {
    assert_int_equal(drape_capture_open(&o, &c, &e), DRAPE_EINVAL);
    assert_non_null(strstr(e.msg, "does not exist"));
  }
  o.video_path = NULL;
  assert_int_equal(drape_capture_open(&o, &c, &e), DRAPE_EINVAL); /* nothing to capture */
  /* Nothing was written by any of the refused captures. */
  assert_int_equal(count_named(base, ""), 1);
}

static void test_video_without_ffmpeg(void **state) {
  (void)state;
  const char *base = drape_test_tmpdir("capture-noffmpeg");
  char *old = strdup(getenv("PATH") ? getenv("PATH") : "");
  char path[1200], png[1300];
  snprintf(path, sizeof path, "%s/out.mp4", base);
  snprintf(png, sizeof png, "%s/png", base);
  setenv("PATH", base, 1); /* an empty folder: no ffmpeg anywhere */
  drape_capture_opts o = drape_capture_opts_default();
  o.width = 64;
  o.height = 48;
  o.video_path = path;
  o.png_dir = png;
  drape_capture *c = NULL;
  drape_err e = {0};
  int rc = drape_capture_open(&o, &c, &e);
  setenv("PATH", old, 1);
  free(old);
  assert_int_equal(rc, DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "ffmpeg was not found on PATH"));
  assert_non_null(strstr(e.msg, "--png-dir"));
  /* Neither the video nor the PNG folder exists. */
  assert_int_equal(count_named(base, ""), 0);
}

static void test_video_frames(void **state) {
  (void)state;
  char ff[1024];
  if (!drape_find_on_path("ffmpeg", ff, sizeof ff) || !drape_find_on_path("ffprobe", ff, sizeof ff))
    skip();
  const char *base = drape_test_tmpdir("capture-video");
  char path[1200];
  snprintf(path, sizeof path, "%s/clip.mp4", base);
  const int W = 63, H = 41, N = 15; /* odd: padded to even for yuv420p */
  char png[1300];
  snprintf(png, sizeof png, "%s/png", base);
  drape_capture_opts o = drape_capture_opts_default();
  o.video_path = path;
  o.png_dir = png;
  o.encoders = 3; /* PNGs in parallel; the video must still be in order */
  o.width = W;
  o.height = H;
  o.fps = 30;
  drape_capture *c = NULL;
  drape_err e = {0};
  if (drape_capture_open(&o, &c, &e)) fail_msg("%s", e.msg);
  uint8_t *rgb = malloc((size_t)W * H * 3);
  for (int k = 1; k <= N; k++) {
    pattern(rgb, W, H, k);
    assert_int_equal(drape_capture_frame(c, k, rgb, &e), 0);
  }
  /* While running, only the hidden partial file exists. */
  assert_false(exists(path));
  assert_int_equal(drape_capture_close(c, 1, &e), 0);
  free(rgb);
  assert_true(exists(path));
  assert_int_equal(count_named(base, "partial"), 0);
  char out[256];
  int rc = drape_test_sh(out, sizeof out,
                         "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                         "stream=nb_read_frames,width,height,r_frame_rate -of csv=p=0 '%s'",
                         path);
  assert_int_equal(rc, 0);
  print_message("ffprobe: %s", out);
  assert_string_equal(out, "64,42,30/1,15\n");
  /* Decode the video: each decoded frame is nearest (mean absolute
   * difference, despite H.264's losses) to the pattern of its own number,
   * so the encoders kept the order. */
  char raw[1300];
  snprintf(raw, sizeof raw, "%s/clip.rgb", base);
  assert_int_equal(drape_test_sh(NULL, 0, "ffmpeg -v error -i '%s' -f rawvideo -pix_fmt rgb24 "
                                 "-vf format=rgb24,crop=%d:%d:0:0 '%s'", path, W, H, raw), 0);
  FILE *f = fopen(raw, "rb");
  assert_non_null(f);
  uint8_t *fr = malloc((size_t)W * H * 3), *pat = malloc((size_t)W * H * 3);
  for (int k = 1; k <= N; k++) {
    assert_int_equal(fread(fr, 1, (size_t)W * H * 3, f), (size_t)W * H * 3);
    int best = 0;
    double best_d = 1e30;
    for (int j = 1; j <= N; j++) {
      pattern(pat, W, H, j);
      double d = 0;
      for (long i = 0; i < (long)W * H * 3; i++) d += abs((int)fr[i] - (int)pat[i]);
      if (d < best_d) {
        best_d = d;
        best = j;
      }
    }
    assert_int_equal(best, k);
  }
  free(pat);
  fclose(f);
  free(fr);
}

/* A stand-in "ffmpeg" that reads a little and dies: the run's frames are
 * refused with a clear message and no file with the video's name, nor the
 * partial one, is left. */
static void test_ffmpeg_failure_removes_partial(void **state) {
  (void)state;
  const char *base = drape_test_tmpdir("capture-ffmpeg-dies");
  char bin[1200], fake[1300], path[1300];
  snprintf(bin, sizeof bin, "%s/bin", base);
  mkdir(bin, 0755);
  snprintf(fake, sizeof fake, "%s/ffmpeg", bin);
  FILE *f = fopen(fake, "w");
  assert_non_null(f);
  /* Writes a partial output (its last argument), then fails. */
  fprintf(f, "#!/bin/sh\nfor a; do out=$a; done\nhead -c 1000 > \"$out\"\necho 'fake ffmpeg: "
             "encoder exploded' >&2\nexit 1\n");
  fclose(f);
  chmod(fake, 0755);
  snprintf(path, sizeof path, "%s/clip.mp4", base);
  char *old = strdup(getenv("PATH") ? getenv("PATH") : "");
  char newpath[4096];
  snprintf(newpath, sizeof newpath, "%s:%s", bin, old);
  setenv("PATH", newpath, 1);
  drape_capture_opts o = drape_capture_opts_default();
  o.video_path = path;
  o.width = 320;
  o.height = 240;
  drape_capture *c = NULL;
  drape_err e = {0};
  int rc = drape_capture_open(&o, &c, &e);
  setenv("PATH", old, 1);
  free(old);
  if (rc) fail_msg("%s", e.msg);
  uint8_t *rgb = calloc(320 * 240 * 3, 1);
  int frc = 0;
  for (int k = 1; k <= 50 && !frc; k++) frc = drape_capture_frame(c, k, rgb, &e);
  rc = drape_capture_close(c, frc == 0, &e);
  free(rgb);
  assert_true(frc != 0 || rc != 0);
  assert_non_null(strstr(e.msg, "ffmpeg"));
  assert_false(exists(path));
  assert_int_equal(count_named(base, "clip"), 0);
}

static void test_find_on_path(void **state) {
  (void)state;
  char p[1024];
  assert_true(drape_find_on_path("sh", p, sizeof p));
  assert_non_null(strstr(p, "/sh"));
  assert_false(drape_find_on_path("drape-no-such-tool-xyz", p, sizeof p));
}

static void test_progress_lines(void **state) {
  (void)state;
  FILE *f = tmpfile();
  assert_non_null(f);
  drape_progress p;
  drape_progress_start(&p, 40, f, 1);
  for (int i = 1; i <= 40; i++) drape_progress_update(&p, i);
  drape_progress_end(&p);
  rewind(f);
  char line[256];
  int lines = 0, last_ok = 0;
  while (fgets(line, sizeof line, f)) {
    lines++;
    assert_non_null(strstr(line, "fps"));
    assert_non_null(strstr(line, "ETA"));
    last_ok = strstr(line, "frame 40/40") != NULL;
  }
  fclose(f);
  /* Not a terminal: one line per 10 %, the last one says 40/40. */
  assert_int_equal(lines, 10);
  assert_true(last_ok);
  /* Disabled: silent. */
  f = tmpfile();
  drape_progress_start(&p, 40, f, 0);
  drape_progress_update(&p, 40);
  drape_progress_end(&p);
  assert_int_equal(ftell(f), 0);
  fclose(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_png_frames),
      cmocka_unit_test(test_bad_outputs),
      cmocka_unit_test(test_video_without_ffmpeg),
      cmocka_unit_test(test_video_frames),
      cmocka_unit_test(test_ffmpeg_failure_removes_partial),
      cmocka_unit_test(test_find_on_path),
      cmocka_unit_test(test_progress_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
