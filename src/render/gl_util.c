/* Shader programs and matrix inverse for the renderer (gl_util.h). */
#include "render/gl_util.h"

#include <stdlib.h>
#include <string.h>

static int compile(const char *name, GLenum type, const char *src, GLuint *out, drape_err *e) {
  GLuint sh = glCreateShader(type);
  if (!sh) {
    GLenum err = glGetError();
    return drape_fail(e, DRAPE_EGL, "glCreateShader(%s) failed: %s", name, drape_gl_errstr(err));
  }
  const char *parts[2] = {"#version 330 core\n", src};
  DRAPE_GL_TRY(e, glShaderSource(sh, 2, parts, NULL));
  DRAPE_GL_TRY(e, glCompileShader(sh));
  GLint ok = 0;
  DRAPE_GL_TRY(e, glGetShaderiv(sh, GL_COMPILE_STATUS, &ok));
  if (!ok) {
    char log[2048] = "";
    glGetShaderInfoLog(sh, sizeof log, NULL, log);
    glDeleteShader(sh);
    return drape_fail(e, DRAPE_EGL, "compiling the %s %s shader failed:\n%s", name,
                      type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
  }
  *out = sh;
  return DRAPE_OK;
}

int dr_gl_program(const char *name, const char *vs, const char *fs, GLuint *out,
                     drape_err *e) {
  GLuint v = 0, f = 0;
  int rc = compile(name, GL_VERTEX_SHADER, vs, &v, e);
  if (rc) return rc;
  rc = compile(name, GL_FRAGMENT_SHADER, fs, &f, e);
  if (rc) {
    glDeleteShader(v);
    return rc;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, v);
  glAttachShader(p, f);
  glLinkProgram(p);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (drape_gl_check(e, "glLinkProgram")) {
    glDeleteProgram(p);
    return DRAPE_EGL;
  }
  if (!ok) {
    char log[2048] = "";
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    glDeleteProgram(p);
    return drape_fail(e, DRAPE_EGL, "linking the %s shader program failed:\n%s", name, log);
  }
  *out = p;
  return DRAPE_OK;
}

dr_mat4 dr_mat4_inverse(dr_mat4 a) {
  const float *m = a.m;
  float inv[16];
  inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] +
           m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
  inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] -
           m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
  inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] +
           m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
  inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] -
            m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
  inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] -
           m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
  inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] +
           m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
  inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] -
           m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
  inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] +
            m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
  inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] +
           m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
  inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] -
           m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
  inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] +
            m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
  inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] -
            m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
  inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] -
           m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
  inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] +
           m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
  inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] -
            m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
  inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] +
            m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
  float det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
  dr_mat4 o;
  float s = det != 0 ? 1.0f / det : 0.0f;
  for (int i = 0; i < 16; i++) o.m[i] = inv[i] * s;
  return o;
}
