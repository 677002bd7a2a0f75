/* The OpenCL path (PoCL here) against the CPU reference backend, runs that
 * repeat bit for bit, reset, and the run-time API (parameters, grabs,
 * spheres, compliance). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "cloth_util.h"
#include "drape/drape_cl.h"
#include "support.h"

static double max_diff(const float *a, const float *b, int n) {
  double d = 0;
  for (int i = 0; i < n; i++)
    for (int q = 0; q < 3; q++) {
      double x = fabs((double)a[4 * i + q] - b[4 * i + q]);
      if (!(x <= d)) d = x; /* NaN propagates as a failure */
    }
  return d;
}

static void run_frames(drape_sim *sim, int frames, void (*between)(drape_sim *, int)) {
  for (int f = 0; f < frames; f++) {
    if (between) between(sim, f);
    step_frames(sim, 1);
  }
}

/* Runs `frames` frames of a scene on the CPU reference and on OpenCL with
 * each kernel form (docs/solver.md); returns the largest position
 * difference from the reference. The two forms must give the same bits,
 * and on a CPU device (PoCL), whose sqrt and division round like the
 * host's, the reference's bits too. */
static double compare_backends(const drape_scene *s, int frames, void (*between)(drape_sim *, int)) {
  drape_sim *b = make_sim(s, DRAPE_BACKEND_CPU);
  run_frames(b, frames, between);
  assert_string_equal(drape_sim_kernel_form(b), "cpu-reference");
  const int n = drape_sim_mesh(b)->n_particles;
  float *xb = read_x(b), *first = NULL;
  double worst = 0;
  for (int k = 0; k < 2; k++) {
    test_kernel_form = test_form(k);
    drape_sim *a = make_sim(s, DRAPE_BACKEND_CL);
    test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
    assert_string_equal(drape_sim_kernel_form(a), test_form_name(k));
    run_frames(a, frames, between);
    float *xa = read_x(a);
    for (int i = 0; i < 4 * n; i++) assert_true(isfinite(xa[i]));
    const double d = max_diff(xa, xb, n);
    print_message("  %s form: max |x_cl - x_cpu| = %.3g m\n", test_form_name(k), d);
    if (drape_sim_cl(a)->type & CL_DEVICE_TYPE_CPU) assert_memory_equal(xa, xb, sizeof(float) * 4 * n);
    if (d > worst || !(d == d)) worst = d;
    if (first) {
      assert_memory_equal(xa, first, sizeof(float) * 4 * n); /* gpu and vector forms */
      free(xa);
    } else {
      first = xa;
    }
    drape_sim_destroy(a);
  }
  free(first);
  free(xb);
  drape_sim_destroy(b);
  return worst;
}

/* The check: 200 substeps (10 frames x 20) of the sphere scene,
 * with the cloth starting low enough to be on the sphere by then. */
static void test_cl_matches_cpu_sphere(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 64, 0.95);
  /* the cloth does reach the sphere within the 200 substeps */
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  step_frames(sim, 10);
  drape_stats st = get_stats(sim);
  assert_true(st.min_sphere_clearance < s.cloth[0].thickness + 1e-4);
  drape_sim_destroy(sim);
  double d = compare_backends(&s, 10, NULL);
  print_message("sphere scene, 200 substeps: max |x_cl - x_cpu| = %.3g m\n", d);
  assert_true(d < 1e-4);
  drape_scene_free(&s);
}

/* Runs a scene with drape_sim_params.fuse_stages set to `fuse`; returns
 * positions followed by velocities (8 floats per particle). */
static float *run_fused(const drape_scene *s, drape_backend be, int fuse, int frames,
                        double *min_sphere, double *min_floor) {
  drape_sim *sim = make_sim(s, be);
  drape_sim_params p;
  drape_err e = {0};
  drape_sim_get_params(sim, &p);
  assert_int_equal(p.fuse_stages, 1); /* the default */
  p.fuse_stages = fuse;
  assert_int_equal(drape_sim_set_params(sim, &p, &e), 0);
  *min_sphere = *min_floor = 1e9;
  for (int f = 0; f < frames; f++) {
    step_frames(sim, 1);
    drape_stats st = get_stats(sim);
    *min_sphere = fmin(*min_sphere, st.min_sphere_clearance);
    *min_floor = fmin(*min_floor, st.min_floor_clearance);
  }
  drape_timings t;
  drape_sim_timings(sim, &t);
  /* 20 substeps: with fusion one update_fused launch each and one predict
   * a frame; without, predict, tethers, collide and update each substep */
  if (be == DRAPE_BACKEND_CL) assert_int_equal(t.launches, fuse ? 12 * 20 + 20 + 1 + 1 : 16 * 20 + 1);
  const int n = drape_sim_mesh(sim)->n_particles;
  float *out = malloc(sizeof(float) * 8 * (size_t)n);
  assert_int_equal(drape_sim_read_positions(sim, out, &e), 0);
  assert_int_equal(drape_sim_read_velocities(sim, out + 4 * n, &e), 0);
  drape_sim_destroy(sim);
  return out;
}

/* update_fused (kernels/update.cl) is the tethers, collide, update and
 * next-predict stages in one pass: the same bits as running them apart,
 * on the device and on the CPU reference, over a hanging cloth with
 * tethers that swings onto a sphere and the floor. */
static void test_fused_stages_same_bits(void **state) {
  (void)state;
  drape_scene s;
  scene_hanging_cloth(&s, 32, 0.03, 1);
  /* the sphere just beside the sheet (outside its thickness), which the
   * sheet swings into; the floor above its lower rows, which it lifts */
  scene_add_sphere_floor(&s, 1.6, 0.315, 0.3, 1.3);
  s.cloth[0].velocity[2] = 0.5;
  const int n = 32 * 32, frames = 30;
  double ms, mf, ms2, mf2;
  float *cpu_on = run_fused(&s, DRAPE_BACKEND_CPU, 1, frames, &ms2, &mf2);
  float *cpu_off = run_fused(&s, DRAPE_BACKEND_CPU, 0, frames, &ms2, &mf2);
  assert_memory_equal(cpu_on, cpu_off, sizeof(float) * 8 * n);
  float *cl_on = NULL;
  for (int k = 0; k < 2; k++) { /* both kernel forms (update_fused and update_fused_g) */
    test_kernel_form = test_form(k);
    float *on = run_fused(&s, DRAPE_BACKEND_CL, 1, frames, &ms, &mf);
    float *off = run_fused(&s, DRAPE_BACKEND_CL, 0, frames, &ms2, &mf2);
    test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
    assert_memory_equal(on, off, sizeof(float) * 8 * n);
    double d = max_diff(on, cpu_on, n);
    print_message("%s form: fused vs separate stages: identical bits on both backends; "
                  "max |x_cl - x_cpu| = %.3g m\n", test_form_name(k), d);
    assert_true(d < 1e-4);
    if (cl_on) {
      assert_memory_equal(on, cl_on, sizeof(float) * 8 * n); /* the two forms */
      free(on);
    } else {
      cl_on = on;
    }
    free(off);
  }
  /* the run did touch both colliders (clearance = the thickness margin) */
  print_message("least clearance over the run: sphere %.6f m, floor %.6f m (margin %.3f m)\n", ms,
                mf, s.cloth[0].thickness);
  assert_true(ms < s.cloth[0].thickness + 1e-4);
  assert_true(mf < s.cloth[0].thickness + 1e-4);
  free(cl_on); free(cpu_on); free(cpu_off);
  drape_scene_free(&s);
}

static void grab_script(drape_sim *sim, int f) {
  drape_err e = {0};
  static int id = -1;
  if (f == 2) {
    const double t[3] = {0.4, 1.6, 0.5};
    assert_int_equal(drape_sim_grab(sim, 20 * 24 + 12, t, &id, &e), 0);
  } else if (f > 2 && f < 7) {
    const double t[3] = {0.4 + 0.05 * f, 1.6 - 0.02 * f, 0.5 + 0.1 * f};
    assert_int_equal(drape_sim_grab_move(sim, id, t, &e), 0);
  } else if (f == 7) {
    assert_int_equal(drape_sim_grab_release(sim, id, &e), 0);
  }
}

/* Every stage at once: wind, tethers, a scripted pin, a grab, iterations
 * (Lagrange multipliers kept), tearing, a moving sphere, floor, a rope. */
static void test_cl_matches_cpu_all_stages(void **state) {
  (void)state;
  drape_scene s;
  scene_hanging_cloth(&s, 24, 0.04, 1);
  s.iterations = 3;
  s.substeps = 10;
  s.wind[0] = 2; s.wind[2] = 6;
  drape_cloth_def *c = &s.cloth[0];
  c->tear_ratio = 1.25;
  c->n_pin_paths = 1;
  c->pin_paths = calloc(1, sizeof *c->pin_paths);
  c->pin_paths[0].row = 0; c->pin_paths[0].col = 12;
  c->pin_paths[0].n_keys = 2;
  c->pin_paths[0].keys = malloc(2 * sizeof *c->pin_paths[0].keys);
  const double k0[4] = {0.0, 0.0, 2.0, 0.0}, k1[4] = {0.3, 0.0, 2.3, 0.4};
  memcpy(c->pin_paths[0].keys[0], k0, sizeof k0);
  memcpy(c->pin_paths[0].keys[1], k1, sizeof k1);
  drape_rope_def r = drape_rope_def_default();
  r.segments = 30; r.start[0] = -0.6; r.start[1] = 2.2; r.end[0] = 0.9; r.end[1] = 2.2;
  r.start[2] = r.end[2] = 0.2; r.length = 1.6; r.compliance = 1e-5;
  drape_scene_add_rope(&s, &r);
  drape_sphere_def sp = drape_sphere_def_default();
  sp.center[0] = -0.8; sp.center[1] = 1.5; sp.center[2] = 0.0; sp.radius = 0.3;
  sp.velocity[0] = 1.5;
  drape_scene_add_sphere(&s, &sp);
  s.has_floor = 1;
  s.floor_height = 1.2;
  double d = compare_backends(&s, 20, grab_script);
  print_message("all stages, 200 substeps x 3 iterations: max |x_cl - x_cpu| = %.3g m\n", d);
  assert_true(d < 1e-4);
  /* tearing did happen in this run (the grab pulls hard) */
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  for (int f = 0; f < 20; f++) { grab_script(sim, f); step_frames(sim, 1); }
  drape_stats st = get_stats(sim);
  print_message("torn constraints: %d\n", st.objects[0].torn);
  assert_true(st.objects[0].torn > 0);
  uint32_t *tris = malloc(sizeof *tris * 3 * (size_t)drape_sim_mesh(sim)->n_tris);
  drape_err e = {0};
  assert_int_equal(drape_sim_read_triangles(sim, tris, &e), 0);
  int degenerate = 0;
  for (int t = 0; t < drape_sim_mesh(sim)->n_tris; t++)
    degenerate += tris[3 * t] == tris[3 * t + 1] && tris[3 * t + 1] == tris[3 * t + 2];
  assert_true(degenerate > 0);
  free(tris);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

static void read_file(const char *path, char **buf, long *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  *buf = malloc((size_t)*len + 1);
  assert_int_equal(fread(*buf, 1, (size_t)*len, f), (size_t)*len);
  (*buf)[*len] = '\0'; /* the line count below reads it as a string */
  fclose(f);
}

/* Same scene, same device, same bits: two runs write identical OBJ bytes;
 * a reset run repeats the first. */
static void test_runs_repeat_bit_for_bit(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 48, 0.95);
  const char *dir = drape_test_tmpdir("cloth-det");
  assert_non_null(dir);
  char p1[1200], p2[1200], p3[1200];
  snprintf(p1, sizeof p1, "%s/a.obj", dir);
  snprintf(p2, sizeof p2, "%s/b.obj", dir);
  snprintf(p3, sizeof p3, "%s/c.obj", dir);
  drape_err e = {0};
  drape_sim *a = make_sim(&s, DRAPE_BACKEND_CL);
  step_frames(a, 30);
  assert_int_equal(drape_sim_write_obj(a, p1, &e), 0);
  assert_int_equal(drape_sim_reset(a, &e), 0);
  step_frames(a, 30);
  assert_int_equal(drape_sim_write_obj(a, p3, &e), 0);
  drape_sim *b = make_sim(&s, DRAPE_BACKEND_CL);
  step_frames(b, 30);
  assert_int_equal(drape_sim_write_obj(b, p2, &e), 0);
  char *b1, *b2, *b3;
  long l1, l2, l3;
  read_file(p1, &b1, &l1);
  read_file(p2, &b2, &l2);
  read_file(p3, &b3, &l3);
  assert_true(l1 > 48 * 48 * 10);
  assert_int_equal(l1, l2);
  assert_memory_equal(b1, b2, (size_t)l1);
  assert_int_equal(l1, l3);
  assert_memory_equal(b1, b3, (size_t)l1);
  /* the OBJ has one object, 48*48 v lines, 2*47*47 f lines */
  int nv = 0, nf = 0, no = 0;
  for (char *ln = strtok(b1, "\n"); ln; ln = strtok(NULL, "\n")) {
    nv += ln[0] == 'v' && ln[1] == ' ';
    nf += ln[0] == 'f' && ln[1] == ' ';
    no += ln[0] == 'o' && ln[1] == ' ';
  }
  assert_int_equal(no, 1);
  assert_int_equal(nv, 48 * 48);
  assert_int_equal(nf, 2 * 47 * 47);
  free(b1); free(b2); free(b3);
  drape_sim_destroy(a);
  drape_sim_destroy(b);
  drape_scene_free(&s);
}

/* Parameters: validation names the field; changes take effect. */
static void test_params_api(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 16, 1.5);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  drape_err e = {0};
  drape_sim_params p;
  drape_sim_get_params(sim, &p);
  assert_int_equal(p.substeps, 20);
  p.substeps = 0;
  assert_int_equal(drape_sim_set_params(sim, &p, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "substeps = 0"));
  p.substeps = 5;
  p.iterations = 4;
  p.gravity[1] = NAN;
  assert_int_equal(drape_sim_set_params(sim, &p, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "gravity[1]"));
  p.gravity[1] = 0; /* no gravity: the sheet must not move from rest */
  assert_int_equal(drape_sim_set_params(sim, &p, &e), 0);
  float *x0 = read_x(sim);
  step_frames(sim, 5);
  float *x1 = read_x(sim);
  assert_true(max_diff(x0, x1, 256) < 1e-6);
  p.gravity[1] = -9.81;
  assert_int_equal(drape_sim_set_params(sim, &p, &e), 0);
  step_frames(sim, 5);
  free(x1);
  x1 = read_x(sim);
  assert_true(x1[1] < x0[1] - 0.02); /* it falls now (free fall: 3.4 cm) */
  free(x0);
  free(x1);
  drape_sim_destroy(sim);
  drape_scene_free(&s);

  /* compliance and damping on a hanging cloth without tethers */
  scene_hanging_cloth(&s, 16, 0.05, 0);
  sim = make_sim(&s, DRAPE_BACKEND_CL);
  assert_int_equal(drape_sim_set_compliance(sim, 3, DRAPE_COMPLIANCE_BEND, 1e-3, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "object 3"));
  assert_int_equal(drape_sim_set_compliance(sim, -1, DRAPE_COMPLIANCE_STRETCH, -1, &e), DRAPE_EINVAL);
  assert_int_equal(drape_sim_set_damping(sim, 0, -1, &e), DRAPE_EINVAL);
  assert_int_equal(drape_sim_set_damping(sim, 0, 2.0, &e), 0);
  step_frames(sim, 30);
  double stiff = get_stats(sim).objects[0].max_strain;
  /* soften the links that carry the weight: structural and bending */
  assert_int_equal(drape_sim_set_compliance(sim, 0, DRAPE_COMPLIANCE_STRETCH, 0.5, &e), 0);
  assert_int_equal(drape_sim_set_compliance(sim, -1, DRAPE_COMPLIANCE_BEND, 0.5, &e), 0);
  step_frames(sim, 30);
  double soft = get_stats(sim).objects[0].max_strain;
  print_message("max strain: stretch/bend compliance 0/1e-3 %.4f, 0.5/0.5 m/N %.4f\n", stiff, soft);
  assert_true(soft > 0.05);
  assert_true(soft > 3 * stiff);
  drape_sim_destroy(sim);
  drape_scene_free(&s);

  /* wind switched on at run time in a scene without wind (the triangle
   * force buffer is made then), on both backends alike */
  scene_hanging_cloth(&s, 12, 0.05, 1);
  drape_sim *w[2] = {make_sim(&s, DRAPE_BACKEND_CL), make_sim(&s, DRAPE_BACKEND_CPU)};
  float *xw[2];
  for (int k = 0; k < 2; k++) {
    drape_sim_get_params(w[k], &p);
    assert_int_equal(p.wind_enabled, 0);
    p.wind_enabled = 1;
    p.wind[2] = 4.0;
    assert_int_equal(drape_sim_set_params(w[k], &p, &e), 0);
    step_frames(w[k], 20);
    xw[k] = read_x(w[k]);
  }
  double z = 0;
  for (int i = 0; i < 144; i++) z += xw[0][4 * i + 2] / 144.0;
  assert_true(z > 0.05);
  assert_memory_equal(xw[0], xw[1], sizeof(float) * 4 * 144);
  free(xw[0]);
  free(xw[1]);
  drape_sim_destroy(w[0]);
  drape_sim_destroy(w[1]);
  drape_scene_free(&s);
}

/* A grab holds its particle at the target; on release the particle keeps
 * moving with the hand's last velocity and has its mass back. */
static void test_grab(void **state) {
  (void)state;
  drape_scene s;
  scene_hanging_cloth(&s, 16, 0.05, 0);
  s.cloth[0].damping = 0;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  drape_err e = {0};
  int id = -1, p = 15 * 16 + 8; /* bottom row, middle */
  const double t0[3] = {0.0, 1.5, 0.3};
  assert_int_equal(drape_sim_grab(sim, -1, t0, &id, &e), DRAPE_EINVAL);
  assert_int_equal(drape_sim_grab(sim, p, t0, &id, &e), 0);
  assert_int_equal(drape_sim_grab(sim, p, t0, &id, &e), DRAPE_EINVAL); /* already held */
  step_frames(sim, 1);
  float *x = read_x(sim);
  assert_near(x[4 * p + 0], 0.0, 1e-6);
  assert_near(x[4 * p + 1], 1.5, 1e-6);
  assert_near(x[4 * p + 2], 0.3, 1e-6);
  assert_true(x[4 * p + 3] == 0.0f);
  free(x);
  /* move the hand at 1.2 m/s along +x for 3 frames, then let go */
  double t[3] = {0.0, 1.5, 0.3};
  for (int f = 0; f < 3; f++) {
    t[0] += 1.2 * s.dt;
    assert_int_equal(drape_sim_grab_move(sim, id, t, &e), 0);
    step_frames(sim, 1);
  }
  float *v = malloc(sizeof(float) * 4 * 256);
  assert_int_equal(drape_sim_read_velocities(sim, v, &e), 0);
  assert_near(v[4 * p + 0], 1.2, 1e-3);
  assert_int_equal(drape_sim_grab_release(sim, id, &e), 0);
  assert_int_equal(drape_sim_grab_release(sim, id, &e), DRAPE_EINVAL);
  x = read_x(sim);
  assert_true(x[4 * p + 3] > 0.0f);
  free(x);
  free(v);
  /* picking: the particle nearest a ray */
  int picked = -1;
  x = read_x(sim);
  const double o[3] = {x[4 * 3], x[4 * 3 + 1], 5.0}, d[3] = {0, 0, -1};
  assert_int_equal(drape_sim_pick(sim, o, d, 0.01, &picked, &e), 0);
  assert_int_equal(picked, 3);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* Moving a sphere at run time pushes the cloth resting on it. */
static void test_sphere_api(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 24, 0.95);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  drape_err e = {0};
  assert_int_equal(drape_sim_n_spheres(sim), 1);
  double r = -1;
  assert_int_equal(drape_sim_set_sphere(sim, 0, NULL, &r, NULL, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "sphere[0].radius = -1"));
  assert_int_equal(drape_sim_set_sphere(sim, 1, NULL, NULL, NULL, &e), DRAPE_EINVAL);
  step_frames(sim, 20);
  drape_stats st = get_stats(sim);
  assert_true(st.min_sphere_clearance < 0.0101);
  const double c[3] = {0, 0.45, 0}; /* lower it 5 cm and grow it 10 cm */
  r = 0.5;
  assert_int_equal(drape_sim_set_sphere(sim, 0, c, &r, NULL, &e), 0);
  step_frames(sim, 1);
  st = get_stats(sim);
  assert_true(st.min_sphere_clearance >= 0.01 - 1e-3);
  drape_sphere_def d;
  assert_int_equal(drape_sim_get_sphere(sim, 0, &d), 0);
  assert_near(d.radius, 0.5, 0);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* Buffers handed to a renderer: the cl_mem holds what read_positions gives. */
static void test_shared_buffers(void **state) {
  (void)state;
  drape_scene s;
  scene_sphere_drop(&s, 16, 0.95);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  step_frames(sim, 3);
  drape_sim_buffers b;
  assert_int_equal(drape_sim_cl_buffers(sim, &b), 0);
  assert_non_null(b.positions);
  assert_non_null(b.normals);
  float *x = read_x(sim), *y = malloc(sizeof(float) * 4 * 256), *n = malloc(sizeof(float) * 4 * 256);
  assert_int_equal(clEnqueueReadBuffer(b.queue, b.positions, CL_TRUE, 0, sizeof(float) * 4 * 256, y,
                                       0, NULL, NULL), CL_SUCCESS);
  assert_memory_equal(x, y, sizeof(float) * 4 * 256);
  drape_err e = {0};
  assert_int_equal(drape_sim_read_normals(sim, n, &e), 0);
  for (int i = 0; i < 256; i++) {
    double len = sqrt(n[4 * i] * n[4 * i] + n[4 * i + 1] * n[4 * i + 1] + n[4 * i + 2] * n[4 * i + 2]);
    assert_near(len, 1.0, 1e-5);
    assert_true(n[4 * i + 1] > 0.99); /* a flat falling sheet faces up */
  }
  drape_sim_destroy(sim);
  drape_sim *cpu = make_sim(&s, DRAPE_BACKEND_CPU);
  assert_int_equal(drape_sim_cl_buffers(cpu, &b), DRAPE_EINVAL);
  assert_null(drape_sim_cl(cpu));
  drape_sim_destroy(cpu);
  free(x); free(y); free(n);
  drape_scene_free(&s);
}

/* A solver on a runtime the caller made (e.g. with GL-sharing context
 * properties): it uses that context and queue and does not release them. */
static void test_existing_runtime(void **state) {
  (void)state;
  drape_cl cl;
  drape_err e = {0};
  drape_cl_opts co = drape_cl_default_opts();
  co.profiling = 1;
  assert_int_equal(drape_cl_init(&cl, &co, &e), 0);
  drape_scene s;
  scene_sphere_drop(&s, 16, 0.95);
  drape_sim_opts o = drape_sim_opts_default();
  o.cl = &cl;
  for (int round = 0; round < 2; round++) {
    drape_sim *sim = NULL;
    assert_int_equal(drape_sim_create(&s, &o, &sim, &e), 0);
    assert_ptr_equal(drape_sim_cl(sim), &cl);
    drape_sim_buffers b;
    assert_int_equal(drape_sim_cl_buffers(sim, &b), 0);
    assert_ptr_equal(b.queue, cl.queue);
    assert_ptr_equal(b.context, cl.ctx);
    step_frames(sim, 2);
    drape_timings t;
    drape_sim_timings(sim, &t);
    assert_true(t.stage_times_valid); /* the caller's queue profiles */
    assert_true(t.ms[DRAPE_STAGE_PROJECT] > 0);
    assert_true(t.device_bytes > 0);
    assert_int_equal(t.bytes_to_device, 0); /* nothing uploaded per frame */
    /* the only read-back of a frame: the finiteness check's status word */
    assert_int_equal(t.bytes_from_device, sizeof(int32_t));
    drape_sim_destroy(sim); /* the runtime must survive for the next round */
  }
  drape_cl_release(&cl);
  drape_scene_free(&s);
}

/* A scene with no cloth or rope (strings only, or nothing) steps, reports
 * and writes an OBJ with no objects, on both backends. */
static void test_empty_scene(void **state) {
  (void)state;
  drape_scene s;
  drape_scene_init(&s);
  drape_sphere_def sp = drape_sphere_def_default();
  drape_scene_add_sphere(&s, &sp);
  s.has_floor = 1;
  const char *dir = drape_test_tmpdir("cloth-empty");
  char path[1200];
  snprintf(path, sizeof path, "%s/empty.obj", dir);
  for (int b = 0; b < 2; b++) {
    drape_sim *sim = make_sim(&s, b ? DRAPE_BACKEND_CPU : DRAPE_BACKEND_CL);
    assert_int_equal(drape_sim_mesh(sim)->n_particles, 0);
    step_frames(sim, 3);
    drape_stats st = get_stats(sim);
    assert_int_equal(st.n_objects, 0);
    assert_true(isinf(st.min_sphere_clearance));
    drape_err e = {0};
    assert_int_equal(drape_sim_write_obj(sim, path, &e), 0);
    assert_int_equal(drape_sim_reset(sim, &e), 0);
    drape_sim_destroy(sim);
  }
  drape_scene_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cl_matches_cpu_sphere),
      cmocka_unit_test(test_cl_matches_cpu_all_stages),
      cmocka_unit_test(test_fused_stages_same_bits),
      cmocka_unit_test(test_runs_repeat_bit_for_bit),
      cmocka_unit_test(test_params_api),
      cmocka_unit_test(test_grab),
      cmocka_unit_test(test_sphere_api),
      cmocka_unit_test(test_shared_buffers),
      cmocka_unit_test(test_existing_runtime),
      cmocka_unit_test(test_empty_scene),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
