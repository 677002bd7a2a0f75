/* Overlay text for the viewer: stb_easy_font (Debian's libstb-dev) turns
 * ASCII into small quads, no texture or font file needed. The quads are
 * scaled and queued here as triangles and drawn with alpha blending on top
 * of the frame. */
#include <stdlib.h>
#include <string.h>

#include "render/gl_util.h"
#include "render/render_internal.h"

/* stb's header is not warning-clean under -Wextra; it is not our code. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

int dr_text_init(dr_text_batch *b, drape_err *e) {
  memset(b, 0, sizeof *b);
  stb_easy_font_spacing(0.0f);
  DRAPE_GL_TRY(e, glGenVertexArrays(1, &b->vao));
  DRAPE_GL_TRY(e, glGenBuffers(1, &b->vbo));
  DRAPE_GL_TRY(e, glBindVertexArray(b->vao));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, b->vbo));
  DRAPE_GL_TRY(e, glEnableVertexAttribArray(0));
  DRAPE_GL_TRY(e, glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(dr_text_vertex),
                                        (void *)0));
  DRAPE_GL_TRY(e, glEnableVertexAttribArray(1));
  DRAPE_GL_TRY(e, glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE,
                                        sizeof(dr_text_vertex),
                                        (void *)offsetof(dr_text_vertex, rgba)));
  DRAPE_GL_TRY(e, glBindVertexArray(0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, 0));
  return DRAPE_OK;
}

void dr_text_free(dr_text_batch *b) {
  if (b->vbo) glDeleteBuffers(1, &b->vbo);
  if (b->vao) glDeleteVertexArrays(1, &b->vao);
  free(b->v);
  memset(b, 0, sizeof *b);
}

static int reserve(dr_text_batch *b, int more) {
  if (b->n + more <= b->cap) return 1;
  int cap = b->cap ? b->cap : 4096;
  while (cap < b->n + more) cap *= 2;
  dr_text_vertex *v = realloc(b->v, sizeof *v * (size_t)cap);
  if (!v) return 0; /* text is decoration: drop it rather than fail a frame */
  b->v = v;
  b->cap = cap;
  return 1;
}

static void quad(dr_text_batch *b, float x0, float y0, float x1, float y1,
                 const uint8_t c[4]) {
  if (!reserve(b, 6)) return;
  float xs[6] = {x0, x1, x1, x0, x1, x0}, ys[6] = {y0, y0, y1, y0, y1, y1};
  for (int i = 0; i < 6; i++) {
    dr_text_vertex *v = &b->v[b->n++];
    v->x = xs[i];
    v->y = ys[i];
    memcpy(v->rgba, c, 4);
  }
}

/* stb_easy_font writes 4 vertices (x, y, z, rgba) of 16 bytes per quad. */
typedef struct { float x, y, z; uint8_t c[4]; } easy_vertex;

static void glyphs(dr_text_batch *b, float x, float y, float scale, const uint8_t c[4],
                   char *text) {
  size_t len = strlen(text);
  size_t cap = 300 * (len + 1); /* ~270 bytes per character, per stb's notes */
  easy_vertex *tmp = malloc(cap);
  if (!tmp) return;
  int quads = stb_easy_font_print(0, 0, text, (unsigned char *)c, tmp, (int)cap);
  for (int q = 0; q < quads; q++) {
    const easy_vertex *v = &tmp[4 * q];
    /* Quads are axis-aligned: corners 0 and 2 span them. */
    quad(b, x + v[0].x * scale, y + v[0].y * scale, x + v[2].x * scale, y + v[2].y * scale, c);
  }
  free(tmp);
}

void drape_render_text_size(const char *text, float scale, float *w, float *h) {
  size_t len = strlen(text);
  char *t = malloc(len + 1);
  *w = *h = 0;
  if (!t) return;
  memcpy(t, text, len + 1);
  *w = (float)stb_easy_font_width(t) * scale;
  *h = (float)stb_easy_font_height(t) * scale;
  free(t);
}

void dr_text_add(dr_text_batch *b, float x, float y, float scale, const float rgba[4],
                    const char *text, int panel) {
  if (!text || !*text) return;
  if (scale <= 0) scale = 1;
  size_t len = strlen(text);
  char *t = malloc(len + 1);
  if (!t) return;
  memcpy(t, text, len + 1);
  uint8_t c[4] = {255, 255, 255, 255};
  if (rgba)
    for (int k = 0; k < 4; k++) {
      float v = rgba[k] < 0 ? 0 : rgba[k] > 1 ? 1 : rgba[k];
      c[k] = (uint8_t)(v * 255.0f + 0.5f);
    }
  if (panel) {
    float pad = 5.0f * scale;
    float w = (float)stb_easy_font_width(t) * scale, h = (float)stb_easy_font_height(t) * scale;
    const uint8_t bg[4] = {12, 14, 18, 170};
    quad(b, x - pad, y - pad, x + w + pad, y + h + pad * 0.5f, bg);
  }
  const uint8_t shadow[4] = {0, 0, 0, (uint8_t)(c[3] * 0.7f)};
  float off = scale >= 2 ? scale * 0.5f : 1.0f;
  glyphs(b, x + off, y + off, scale, shadow, t);
  glyphs(b, x, y, scale, c, t);
  free(t);
}

int dr_text_draw(dr_text_batch *b, GLuint prog, int fb_w, int fb_h, drape_err *e) {
  if (b->n == 0) return DRAPE_OK;
  int n = b->n;
  b->n = 0;
  GLint prev_vp[4];
  DRAPE_GL_TRY(e, glGetIntegerv(GL_VIEWPORT, prev_vp));
  DRAPE_GL_TRY(e, glViewport(0, 0, fb_w, fb_h));
  DRAPE_GL_TRY(e, glDisable(GL_DEPTH_TEST));
  DRAPE_GL_TRY(e, glEnable(GL_BLEND));
  DRAPE_GL_TRY(e, glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
  DRAPE_GL_TRY(e, glUseProgram(prog));
  float fb[2] = {(float)fb_w, (float)fb_h};
  DRAPE_GL_TRY(e, glUniform2fv(glGetUniformLocation(prog, "u_fb"), 1, fb));
  DRAPE_GL_TRY(e, glBindVertexArray(b->vao));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, b->vbo));
  /* Orphan and refill: the batch changes every frame. */
  DRAPE_GL_TRY(e, glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(dr_text_vertex) * (size_t)n),
                               b->v, GL_STREAM_DRAW));
  DRAPE_GL_TRY(e, glDrawArrays(GL_TRIANGLES, 0, n));
  DRAPE_GL_TRY(e, glBindVertexArray(0));
  DRAPE_GL_TRY(e, glBindBuffer(GL_ARRAY_BUFFER, 0));
  DRAPE_GL_TRY(e, glDisable(GL_BLEND));
  DRAPE_GL_TRY(e, glEnable(GL_DEPTH_TEST));
  DRAPE_GL_TRY(e, glViewport(prev_vp[0], prev_vp[1], prev_vp[2], prev_vp[3]));
  return DRAPE_OK;
}
