/* Helpers for the renderer tests: a headless context with DISPLAY removed
 * (the test command runs under xvfb-run, and these tests must prove they
 * need no display), PNG decoding, and pixel classification by hue.
 * Include once per test executable (it defines stb_image). */
#ifndef DRAPE_TEST_RENDER_UTIL_H
#define DRAPE_TEST_RENDER_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/render.h"
#include "render/synth.h"
#include "support.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

/* Opens the headless context with no DISPLAY in the environment. */
static inline drape_gl *rt_open_headless(void) {
  unsetenv("DISPLAY");
  unsetenv("WAYLAND_DISPLAY");
  drape_gl *gl = NULL;
  drape_err e = {0};
  if (drape_gl_open_headless(&gl, &e)) {
    print_error("headless GL: %s\n", e.msg);
    return NULL;
  }
  return gl;
}

/* Decodes a PNG as RGB8; NULL on failure. */
static inline uint8_t *rt_load_png(const char *path, int *w, int *h) {
  int n = 0;
  return stbi_load(path, w, h, &n, 3);
}

/* Hue in degrees [0, 360) and saturation (HSV) of an sRGB pixel. */
static inline void rt_hue_sat(const uint8_t *p, double *hue, double *sat, double *val) {
  double r = p[0] / 255.0, g = p[1] / 255.0, b = p[2] / 255.0;
  double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), d = mx - mn;
  *val = mx;
  *sat = mx > 0 ? d / mx : 0;
  double h = 0;
  if (d > 1e-9) {
    if (mx == r) h = fmod((g - b) / d, 6.0);
    else if (mx == g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
  }
  h *= 60;
  if (h < 0) h += 360;
  *hue = h;
}

/* Share of pixels whose hue lies in [h0, h1] with saturation >= smin and
 * value >= vmin. */
static inline double rt_share(const uint8_t *rgb, int w, int h, double h0, double h1, double smin,
                              double vmin) {
  long hit = 0;
  for (long i = 0; i < (long)w * h; i++) {
    double hu, s, v;
    rt_hue_sat(rgb + 3 * i, &hu, &s, &v);
    if (hu >= h0 && hu <= h1 && s >= smin && v >= vmin) hit++;
  }
  return (double)hit / ((double)w * h);
}

/* The cloth colours of the synthetic scene: orange front (hue ~20-40),
 * blue back (hue ~205-235). */
/* Pixels of two same-size RGB8 images whose channel differences add up to
 * more than `thresh`. */
static inline long rt_count_differing(const uint8_t *a, const uint8_t *b, int w, int h, int thresh) {
  long n = 0;
  for (long i = 0; i < (long)w * h; i++) {
    int d = 0;
    for (int k = 0; k < 3; k++) d += abs((int)a[3 * i + k] - (int)b[3 * i + k]);
    n += d > thresh;
  }
  return n;
}

#define RT_ORANGE(rgb, w, h) rt_share(rgb, w, h, 12, 45, 0.45, 0.25)
#define RT_BLUE(rgb, w, h) rt_share(rgb, w, h, 200, 240, 0.45, 0.2)

/* Renders the synthetic scene (n x n cloth at phase) into a w x h RGB
 * buffer (caller frees). sphere_rgb recolours the sphere when non-NULL. */
static inline uint8_t *rt_render_synth(drape_renderer *r, int w, int h, int samples, int n,
                                       float phase, const float *sphere_rgb, drape_err *e) {
  dr_synth s;
  drape_render_target *t = NULL;
  drape_render_mesh *m = NULL;
  uint8_t *rgb = NULL;
  if (dr_synth_build(&s, n, phase, e)) return NULL;
  if (sphere_rgb) memcpy(s.sphere.color, sphere_rgb, sizeof s.sphere.color);
  drape_render_mesh_desc d = dr_synth_desc(&s);
  drape_render_scene sc = dr_synth_scene(&s, (float)w / (float)h);
  if (drape_render_target_create(w, h, samples, &t, e)) goto done;
  if (drape_render_mesh_create(r, &d, &m, e)) goto done;
  if (drape_render_mesh_upload(m, s.pos, s.nrm, 0, s.n_vertices, e)) goto done;
  if (drape_render_target_bind(t, e)) goto done;
  if (drape_render_draw(r, &sc, w, h, e)) goto done;
  rgb = malloc((size_t)w * h * 3);
  if (rgb && drape_render_target_read(t, rgb, e)) {
    free(rgb);
    rgb = NULL;
  }
done:
  drape_render_mesh_destroy(m);
  drape_render_target_destroy(t);
  dr_synth_free(&s);
  return rgb;
}

#endif
