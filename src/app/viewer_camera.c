/* Orbit camera, rays through pixels and ray tests for the viewer
 * (viewer.h). Double precision: picking a 2 cm cloth cell from 3 m away
 * must not depend on float round-off. The conventions match the
 * renderer's look-at and perspective (src/render/gl_util.h), so a ray
 * through a pixel passes through what the renderer drew there. */
#include <math.h>
#include <string.h>

#include "app/viewer.h"

#define VW_PI 3.14159265358979323846
#define PITCH_MAX (89.0 * VW_PI / 180.0)

static double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double a[3], const double b[3], double o[3]) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
         z = a[0] * b[1] - a[1] * b[0];
  o[0] = x;
  o[1] = y;
  o[2] = z;
}
static double norm3(double a[3]) {
  double l = sqrt(dot3(a, a));
  if (l > 0)
    for (int k = 0; k < 3; k++) a[k] /= l;
  return l;
}

void vw_camera_from_eye(vw_camera *c, const double eye[3], const double target[3],
                        double fov_deg) {
  double d[3] = {eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]};
  double len = norm3(d);
  memcpy(c->target, target, sizeof c->target);
  c->fov_deg = fov_deg > 1 && fov_deg < 170 ? fov_deg : 45;
  if (!(len > 1e-6)) { /* eye on the target: back off along +z */
    d[0] = 0, d[1] = 0, d[2] = 1;
    len = 1;
  }
  c->dist = len;
  c->pitch = asin(fmax(-1.0, fmin(1.0, d[1])));
  if (c->pitch > PITCH_MAX) c->pitch = PITCH_MAX;
  if (c->pitch < -PITCH_MAX) c->pitch = -PITCH_MAX;
  c->yaw = (fabs(d[0]) + fabs(d[2]) > 1e-12) ? atan2(d[0], d[2]) : 0.0;
}

void vw_camera_eye(const vw_camera *c, double eye[3]) {
  double cp = cos(c->pitch);
  eye[0] = c->target[0] + c->dist * cp * sin(c->yaw);
  eye[1] = c->target[1] + c->dist * sin(c->pitch);
  eye[2] = c->target[2] + c->dist * cp * cos(c->yaw);
}

void vw_camera_basis(const vw_camera *c, double fwd[3], double right[3], double up[3]) {
  double eye[3];
  vw_camera_eye(c, eye);
  for (int k = 0; k < 3; k++) fwd[k] = c->target[k] - eye[k];
  norm3(fwd);
  const double y[3] = {0, 1, 0};
  cross3(fwd, y, right);
  norm3(right); /* pitch stays within ±89°, so fwd is never along y */
  cross3(right, fwd, up);
}

void vw_camera_to_render(const vw_camera *c, drape_render_camera *out) {
  double eye[3];
  vw_camera_eye(c, eye);
  memset(out, 0, sizeof *out);
  for (int k = 0; k < 3; k++) {
    out->eye[k] = (float)eye[k];
    out->target[k] = (float)c->target[k];
  }
  out->up[1] = 1;
  out->fov_deg = (float)c->fov_deg;
}

void vw_camera_ray(const vw_camera *c, double w, double h, double x, double y, double origin[3],
                   double dir[3]) {
  double f[3], r[3], u[3];
  vw_camera_basis(c, f, r, u);
  vw_camera_eye(c, origin);
  double t = tan(c->fov_deg * VW_PI / 360.0);
  double aspect = h > 0 ? w / h : 1;
  double nx = 2.0 * x / (w > 0 ? w : 1) - 1.0, ny = 1.0 - 2.0 * y / (h > 0 ? h : 1);
  for (int k = 0; k < 3; k++) dir[k] = f[k] + nx * t * aspect * r[k] + ny * t * u[k];
  norm3(dir);
}

int vw_camera_project(const vw_camera *c, double w, double h, const double p[3], double *x,
                      double *y) {
  double f[3], r[3], u[3], eye[3];
  vw_camera_basis(c, f, r, u);
  vw_camera_eye(c, eye);
  double d[3] = {p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]};
  double z = dot3(d, f);
  if (!(z > 1e-9)) return 0;
  double t = tan(c->fov_deg * VW_PI / 360.0);
  double aspect = h > 0 ? w / h : 1;
  double nx = dot3(d, r) / z / (t * aspect), ny = dot3(d, u) / z / t;
  *x = (nx + 1.0) * 0.5 * w;
  *y = (1.0 - ny) * 0.5 * h;
  return 1;
}

void vw_camera_orbit(vw_camera *c, double dx, double dy) {
  const double k = 0.3 * VW_PI / 180.0;
  c->yaw -= dx * k;
  c->pitch += dy * k;
  if (c->pitch > PITCH_MAX) c->pitch = PITCH_MAX;
  if (c->pitch < -PITCH_MAX) c->pitch = -PITCH_MAX;
  c->yaw = remainder(c->yaw, 2 * VW_PI);
}

void vw_camera_pan(vw_camera *c, double dx, double dy, double h) {
  double f[3], r[3], u[3];
  vw_camera_basis(c, f, r, u);
  /* metres per window unit at the target's depth */
  double m = 2.0 * c->dist * tan(c->fov_deg * VW_PI / 360.0) / (h > 0 ? h : 1);
  for (int k = 0; k < 3; k++) c->target[k] += (-dx * r[k] + dy * u[k]) * m;
}

void vw_camera_zoom(vw_camera *c, double notches) {
  c->dist *= pow(0.9, notches);
  if (c->dist < 0.05) c->dist = 0.05;
  if (c->dist > 1e4) c->dist = 1e4;
}

int vw_ray_plane(const double o[3], const double d[3], const double p0[3], const double n[3],
                 double *t) {
  double den = dot3(d, n);
  if (fabs(den) < 1e-9) return 0;
  double w[3] = {p0[0] - o[0], p0[1] - o[1], p0[2] - o[2]};
  *t = dot3(w, n) / den;
  return *t >= 0;
}

int vw_ray_triangle(const double o[3], const double d[3], const double a[3], const double b[3],
                    const double c[3], double *t) {
  double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double p[3], q[3], s[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]};
  cross3(d, e2, p);
  double det = dot3(e1, p);
  /* Degenerate (torn: i0 i0 i0) or edge-on triangles. */
  if (fabs(det) < 1e-14) return 0;
  double inv = 1.0 / det;
  double u = dot3(s, p) * inv;
  if (u < 0 || u > 1) return 0;
  cross3(s, e1, q);
  double v = dot3(d, q) * inv;
  if (v < 0 || u + v > 1) return 0;
  double tt = dot3(e2, q) * inv;
  if (tt < 0) return 0;
  *t = tt;
  return 1;
}

int vw_ray_sphere(const double o[3], const double d[3], const double center[3], double r,
                  double *t) {
  double m[3] = {o[0] - center[0], o[1] - center[1], o[2] - center[2]};
  double b = dot3(m, d), cc = dot3(m, m) - r * r;
  double disc = b * b - cc;
  if (disc < 0) return 0;
  double sq = sqrt(disc);
  double t0 = -b - sq, t1 = -b + sq;
  if (t1 < 0) return 0;
  *t = t0 >= 0 ? t0 : 0; /* origin inside: hit at once */
  return 1;
}

double vw_ray_point_dist(const double o[3], const double d[3], const double p[3], double *t) {
  double w[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
  double tt = dot3(w, d);
  double q[3] = {w[0] - tt * d[0], w[1] - tt * d[1], w[2] - tt * d[2]};
  if (t) *t = tt;
  return sqrt(dot3(q, q));
}
