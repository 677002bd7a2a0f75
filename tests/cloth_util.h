/* Scenes built in code and small helpers shared by tests/test_cloth_*.c
 * (header-only: every test file is its own executable). */
#ifndef DRAPE_TEST_CLOTH_UTIL_H
#define DRAPE_TEST_CLOTH_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drape/cloth.h"
#include "drape/scene.h"
#include "support.h"

/* A scene file of the source tree (rel: e.g. "scenes/twist.json"); a load
 * error fails the test with the loader's message. */
static inline void scene_from_source(const char *rel, drape_scene *s) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", drape_test_source_dir(), rel);
  drape_err e = {0};
  if (drape_scene_load(path, s, &e)) {
    print_error("%s: %s\n", path, e.msg);
    fail();
  }
}

/* n x n cloth in the xy plane, hanging from its two top corners. */
static inline void scene_hanging_cloth(drape_scene *s, int n, double spacing, int tethers) {
  drape_scene_init(s);
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "hanging");
  c.rows = c.cols = n;
  c.spacing = spacing;
  c.plane = DRAPE_PLANE_XY;
  c.origin[0] = -0.5 * spacing * (n - 1);
  c.origin[1] = 2.0;
  c.tethers = tethers;
  c.damping = 0.5;
  c.n_pins = 2;
  c.pins = malloc(2 * sizeof *c.pins);
  c.pins[0][0] = 0; c.pins[0][1] = 0;
  c.pins[1][0] = 0; c.pins[1][1] = n - 1;
  drape_scene_add_cloth(s, &c);
}

/* The hanging strip of the materials tests: 10 cm x 1 m, density 0.2
 * kg/m^2, stretch 100 N/m, shear 10 N/m, in the xy plane (rows go down)
 * hanging from its top row, segs rows of elements; the scene's solver
 * settings are left to the caller. */
static inline void scene_material_strip(drape_scene *s, int segs) {
  const double L = 1.0, W = 0.1, sp = L / segs;
  drape_scene_init(s);
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "strip");
  c.rows = segs + 1;
  c.cols = (int)lround(W / sp) + 1;
  c.spacing = sp;
  c.plane = DRAPE_PLANE_XY;
  c.origin[1] = 2.0;
  c.tethers = 0;
  c.damping = 2.0;
  c.material.set = 1;
  c.material.density = 0.2;
  c.mass_per_area = 0.2;
  c.material.stretch[0] = c.material.stretch[1] = 100;
  c.material.shear = 10;
  c.material.bend[0] = c.material.bend[1] = 1e-6;
  c.material.damping = -1;
  c.n_pins = c.cols;
  c.pins = malloc(sizeof *c.pins * (size_t)c.cols);
  for (int k = 0; k < c.cols; k++) c.pins[k][0] = 0, c.pins[k][1] = k;
  drape_scene_add_cloth(s, &c);
}

/* The sphere scene: a 64 x 64 cloth, 2 cm spacing, falling flat
 * onto a sphere of radius 0.4 and onto the floor; `y0` is its height. */
static inline void scene_sphere_drop(drape_scene *s, int n, double y0) {
  drape_scene_init(s);
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "sheet");
  c.rows = c.cols = n;
  c.spacing = 0.02;
  c.origin[0] = -0.01 * (n - 1);
  c.origin[1] = y0;
  c.origin[2] = -0.01 * (n - 1);
  drape_scene_add_cloth(s, &c);
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[1] = 0.5;
  sp.radius = 0.4;
  drape_scene_add_sphere(s, &sp);
  s->has_floor = 1;
  s->floor_height = 0;
  s->floor_friction = 0.5;
}

/* A sphere of radius r at (0, cy, cz) and a floor at height fy. */
static inline void scene_add_sphere_floor(drape_scene *s, double cy, double cz, double r,
                                          double fy) {
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[1] = cy;
  sp.center[2] = cz;
  sp.radius = r;
  drape_scene_add_sphere(s, &sp);
  s->has_floor = 1;
  s->floor_height = fy;
}

/* The OpenCL kernel form make_sim asks for (0: auto). The comparisons of
 * OpenCL with the CPU reference set it to run with both forms. */
static drape_kernel_form test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
/* Form k of the two (0: GPU, 1: vector), and what drape_sim_kernel_form
 * calls it. */
static inline drape_kernel_form test_form(int k) {
  return k == 0 ? DRAPE_KERNEL_FORM_GPU : DRAPE_KERNEL_FORM_CPU;
}
static inline const char *test_form_name(int k) { return k == 0 ? "gpu" : "vector"; }

/* A sim of s on backend be in kernel form form (OpenCL; the CPU reference
 * has one); a failure fails the test with the message. */
static inline drape_sim *make_sim_form(const drape_scene *s, drape_backend be,
                                       drape_kernel_form form) {
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = be;
  o.kernel_form = form;
  drape_sim *sim = NULL;
  drape_err e = {0};
  if (drape_sim_create(s, &o, &sim, &e)) {
    print_error("drape_sim_create: %s\n", e.msg);
    fail();
  }
  return sim;
}

static inline drape_sim *make_sim(const drape_scene *s, drape_backend be) {
  return make_sim_form(s, be, test_kernel_form);
}

static inline void step_frames(drape_sim *sim, int n) {
  drape_err e = {0};
  for (int i = 0; i < n; i++)
    if (drape_sim_step(sim, &e)) {
      print_error("drape_sim_step: %s\n", e.msg);
      fail();
    }
}

static inline float *read_x(drape_sim *sim) {
  int n = drape_sim_mesh(sim)->n_particles;
  float *x = malloc(sizeof(float) * 4 * (size_t)n);
  drape_err e = {0};
  if (!x || drape_sim_read_positions(sim, x, &e)) {
    print_error("read positions: %s\n", e.msg);
    fail();
  }
  return x;
}

static inline drape_stats get_stats(drape_sim *sim) {
  drape_stats st;
  drape_err e = {0};
  if (drape_sim_stats(sim, &st, &e)) {
    print_error("drape_sim_stats: %s\n", e.msg);
    fail();
  }
  return st;
}

#endif
