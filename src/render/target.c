/* Offscreen render target: a multisampled colour+depth framebuffer that is
 * resolved into a single-sample one for glReadPixels (render.h). */
#include <stdlib.h>

#include "render/gl_util.h"

struct drape_render_target {
  int w, h, samples;
  GLuint fbo, color, depth;   /* drawn into (multisampled when samples > 1) */
  GLuint rfbo, rcolor;        /* resolve target (samples > 1 only)          */
};

static int make_fbo(int w, int h, int samples, int with_depth, GLuint *fbo, GLuint *color,
                    GLuint *depth, drape_err *e) {
  DRAPE_GL_TRY(e, glGenFramebuffers(1, fbo));
  DRAPE_GL_TRY(e, glBindFramebuffer(GL_FRAMEBUFFER, *fbo));
  DRAPE_GL_TRY(e, glGenRenderbuffers(1, color));
  DRAPE_GL_TRY(e, glBindRenderbuffer(GL_RENDERBUFFER, *color));
  DRAPE_GL_TRY(e, glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples > 1 ? samples : 0,
                                                   GL_RGBA8, w, h));
  DRAPE_GL_TRY(e, glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                                            GL_RENDERBUFFER, *color));
  if (with_depth) {
    DRAPE_GL_TRY(e, glGenRenderbuffers(1, depth));
    DRAPE_GL_TRY(e, glBindRenderbuffer(GL_RENDERBUFFER, *depth));
    DRAPE_GL_TRY(e, glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples > 1 ? samples : 0,
                                                     GL_DEPTH_COMPONENT24, w, h));
    DRAPE_GL_TRY(e, glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT,
                                              GL_RENDERBUFFER, *depth));
  }
  GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (st != GL_FRAMEBUFFER_COMPLETE)
    return drape_fail(e, DRAPE_EGL, "offscreen framebuffer %dx%d (%d samples) incomplete: 0x%x",
                      w, h, samples, st);
  return DRAPE_OK;
}

int drape_render_target_create(int w, int h, int samples, drape_render_target **out,
                               drape_err *e) {
  *out = NULL;
  glGetError();
  GLint max_rb = 0, max_samples = 1, max_vp[2] = {0, 0};
  DRAPE_GL_TRY(e, glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb));
  DRAPE_GL_TRY(e, glGetIntegerv(GL_MAX_SAMPLES, &max_samples));
  DRAPE_GL_TRY(e, glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_vp));
  int lim = max_rb;
  if (max_vp[0] < lim) lim = max_vp[0];
  if (max_vp[1] < lim) lim = max_vp[1];
  if (lim > 16384) lim = 16384;
  if (w < 1 || h < 1 || w > lim || h > lim)
    return drape_fail(e, DRAPE_EINVAL, "render size %dx%d: expected 1..%d pixels per side", w, h,
                      lim);
  if (samples < 1) samples = 1;
  if (samples > max_samples) samples = max_samples;
  drape_render_target *t = calloc(1, sizeof *t);
  if (!t) return drape_fail(e, DRAPE_ENOMEM, "out of memory (render target)");
  t->w = w;
  t->h = h;
  t->samples = samples;
  GLint prev = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &prev);
  int rc = make_fbo(w, h, samples, 1, &t->fbo, &t->color, &t->depth, e);
  if (!rc && samples > 1) rc = make_fbo(w, h, 1, 0, &t->rfbo, &t->rcolor, NULL, e);
  glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)prev);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  if (rc) {
    drape_render_target_destroy(t);
    return rc;
  }
  *out = t;
  return DRAPE_OK;
}

void drape_render_target_destroy(drape_render_target *t) {
  if (!t) return;
  GLuint fbos[2] = {t->fbo, t->rfbo};
  GLuint rbs[3] = {t->color, t->depth, t->rcolor};
  glDeleteFramebuffers(2, fbos);
  glDeleteRenderbuffers(3, rbs);
  glGetError();
  free(t);
}

int drape_render_target_bind(drape_render_target *t, drape_err *e) {
  DRAPE_GL_TRY(e, glBindFramebuffer(GL_FRAMEBUFFER, t->fbo));
  DRAPE_GL_TRY(e, glViewport(0, 0, t->w, t->h));
  return DRAPE_OK;
}

int drape_render_target_read(drape_render_target *t, uint8_t *rgb, drape_err *e) {
  if (t->samples > 1) {
    DRAPE_GL_TRY(e, glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo));
    DRAPE_GL_TRY(e, glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->rfbo));
    DRAPE_GL_TRY(e, glBlitFramebuffer(0, 0, t->w, t->h, 0, 0, t->w, t->h, GL_COLOR_BUFFER_BIT,
                                      GL_NEAREST));
    DRAPE_GL_TRY(e, glBindFramebuffer(GL_READ_FRAMEBUFFER, t->rfbo));
  } else {
    DRAPE_GL_TRY(e, glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo));
  }
  DRAPE_GL_TRY(e, glReadBuffer(GL_COLOR_ATTACHMENT0));
  int rc = drape_gl_read_rgb(t->w, t->h, rgb, e);
  glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
  return rc;
}
