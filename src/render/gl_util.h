/* Internal helpers for the renderer: the checked-call macro, shader
 * programs, small 4x4 matrix maths (column-major, as GL expects). */
#ifndef DRAPE_RENDER_GL_UTIL_H
#define DRAPE_RENDER_GL_UTIL_H

#include <epoxy/gl.h>
#include <math.h>

#include "drape/render.h"

/* Runs one GL call, then glGetError(): on an error returns DRAPE_EGL from
 * the enclosing function with the call's text and the error's name. The
 * check is cheap in Mesa (a field read, no pipeline flush). */
#define DRAPE_GL_TRY(e, call)                                                   \
  do {                                                                          \
    call;                                                                       \
    GLenum drape_gl_rc_ = glGetError();                                         \
    if (drape_gl_rc_ != GL_NO_ERROR)                                            \
      return drape_fail((e), DRAPE_EGL, "%s failed: %s (%s:%d)", #call,         \
                        drape_gl_errstr(drape_gl_rc_), __FILE__, __LINE__);     \
  } while (0)

/* Compiles and links a program from a vertex and a fragment shader (the
 * shared GLSL prelude is prepended to both); the compiler's log and the
 * shader's name are in the message on failure. */
int dr_gl_program(const char *name, const char *vs, const char *fs, GLuint *out,
                     drape_err *e);

/* Uniform location that may be -1 (optimised out): setting -1 is a no-op
 * in GL, so that is not an error. */
#define DRAPE_U(prog, name) glGetUniformLocation((prog), (name))

/* ---- maths ---- */
#define DR_PI 3.14159265358979323846
typedef struct { float m[16]; } dr_mat4; /* column-major: m[col*4 + row] */

static inline void dr_v3_sub(const float a[3], const float b[3], float o[3]) {
  o[0] = a[0] - b[0]; o[1] = a[1] - b[1]; o[2] = a[2] - b[2];
}
static inline float dr_v3_dot(const float a[3], const float b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void dr_v3_cross(const float a[3], const float b[3], float o[3]) {
  float x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
        z = a[0] * b[1] - a[1] * b[0];
  o[0] = x; o[1] = y; o[2] = z;
}
static inline float dr_v3_norm(float a[3]) {
  float l = sqrtf(dr_v3_dot(a, a));
  if (l > 0) { a[0] /= l; a[1] /= l; a[2] /= l; }
  return l;
}

static inline dr_mat4 dr_mat4_mul(dr_mat4 a, dr_mat4 b) {
  dr_mat4 o;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      float s = 0;
      for (int k = 0; k < 4; k++) s += a.m[k * 4 + r] * b.m[c * 4 + k];
      o.m[c * 4 + r] = s;
    }
  return o;
}

/* Right-handed view matrix (gluLookAt). */
static inline dr_mat4 dr_look_at(const float eye[3], const float target[3], const float up_in[3]) {
  float f[3], s[3], u[3], up[3] = {up_in[0], up_in[1], up_in[2]};
  dr_v3_sub(target, eye, f);
  if (dr_v3_norm(f) == 0) { f[0] = 0; f[1] = 0; f[2] = -1; }
  dr_v3_cross(f, up, s);
  if (dr_v3_norm(s) < 1e-6f) { /* looking along up: pick another up */
    float alt[3] = {0, 0, 1};
    dr_v3_cross(f, alt, s);
    dr_v3_norm(s);
  }
  dr_v3_cross(s, f, u);
  dr_mat4 o = {{s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
                -dr_v3_dot(s, eye), -dr_v3_dot(u, eye), dr_v3_dot(f, eye), 1}};
  return o;
}

static inline dr_mat4 dr_perspective(float fov_y_rad, float aspect, float zn, float zf) {
  float t = 1.0f / tanf(fov_y_rad * 0.5f);
  dr_mat4 o = {{t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (zf + zn) / (zn - zf), -1, 0, 0,
                2 * zf * zn / (zn - zf), 0}};
  return o;
}

static inline dr_mat4 dr_ortho(float l, float r, float b, float t, float n, float f) {
  dr_mat4 o = {{2 / (r - l), 0, 0, 0, 0, 2 / (t - b), 0, 0, 0, 0, -2 / (f - n), 0,
                -(r + l) / (r - l), -(t + b) / (t - b), -(f + n) / (f - n), 1}};
  return o;
}

/* General inverse (cofactors); returns identity-scaled garbage only for a
 * singular matrix, which view-projections never are. */
dr_mat4 dr_mat4_inverse(dr_mat4 a);

#endif
