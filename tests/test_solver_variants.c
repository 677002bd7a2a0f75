/* The seeds' other solvers inside drape_sim: explicit mass-springs (seed
 * 001) and Jakobsen PBD (seeds 002/004). Physics (stability at the seed's
 * step, divergence detected at 4x, symplectic energy, Verlet free fall,
 * the catenary) and OpenCL against the CPU reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth/solver_variants.h"
#include "drape/drape_cl.h"
#include "cloth_util.h"
#include "support.h"

static void load_scene(const char *name, drape_scene *s) {
  char path[2048];
  snprintf(path, sizeof path, "%s/scenes/%s", drape_test_source_dir(), name);
  drape_err e = {0};
  if (drape_scene_load(path, s, &e)) fail_msg("%s", e.msg);
}

static double max_diff(const float *a, const float *b, int n) {
  double d = 0;
  for (int i = 0; i < n; i++)
    for (int q = 0; q < 3; q++) {
      double x = fabs((double)a[4 * i + q] - b[4 * i + q]);
      if (!(x <= d)) d = x;
    }
  return d;
}

/* Seed 001 at its defaults (40 x 30, 0.5 kg, k 5000, mu 10, dt 0.005,
 * two pinned corners): 10 s of simulated time stay finite and bounded. */
static void test_springs_seed001_stays_finite_10s(void **state) {
  (void)state;
  drape_scene s;
  load_scene("springs_seed001.json", &s);
  assert_int_equal(s.cloth[0].solver, DRAPE_SOLVER_SPRINGS);
  assert_near(s.dt * s.frames, 10.0, 1e-9);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  assert_int_equal(dr_sim_solver(sim), DRAPE_SOLVER_SPRINGS);
  /* Gershgorin estimate sqrt(2 m / sum k): 8 springs of 5000 N/m on 0.5 kg */
  assert_near(dr_sim_springs_h_limit(sim), sqrt(2 * 0.5 / 40000.0), 1e-9);
  double peak = 0, peak_ke = 0;
  for (int f = 0; f < s.frames; f += 100) {
    step_frames(sim, 100);
    drape_stats st = get_stats(sim); /* fails on a non-finite position */
    peak = fmax(peak, st.objects[0].max_strain);
    peak_ke = fmax(peak_ke, st.kinetic_energy);
  }
  float *x = read_x(sim);
  double lowest = INFINITY;
  for (int i = 0; i < 1200; i++) {
    for (int q = 0; q < 4; q++) assert_true(isfinite(x[4 * i + q]));
    lowest = fmin(lowest, x[4 * i + 1]);
  }
  /* pins held; the cloth hangs below its flat length (29 x 0.2 m) */
  assert_near(x[1], 0.0, 0.0);
  assert_near(x[4 * 39], 7.8, 1e-6);
  print_message("seed 001, 10 s: peak max strain %.3f, peak KE %.0f J, lowest y %.2f m\n", peak,
                peak_ke, lowest);
  assert_true(lowest < -5.8);
  /* bounded: the seed's soft springs stretch (strain ~2 near the pins) but
   * the energy stays below what the 600 kg cloth can release falling from
   * its pins to the lowest point seen */
  assert_true(peak < 5.0);
  assert_true(peak_ke < 600 * 9.81 * -lowest);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* A mesh cloth's particle is named by its vertex in the message (a mesh has
 * no rows and columns): stiff springs on the irregular square at a large
 * step diverge. */
static void test_springs_mesh_unstable_names_vertex(void **state) {
  (void)state;
  drape_scene s;
  load_scene("tablecloth_mesh.json", &s);
  s.cloth[0].material.set = 0; /* the springs take stiffness, not a material */
  s.cloth[0].mass_per_area = 0.2;
  s.cloth[0].solver = DRAPE_SOLVER_SPRINGS;
  s.cloth[0].stiffness = 1e6;
  s.cloth[0].self_collision = 0;
  s.substeps = 1;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  drape_err e = {0};
  int rc = 0, f = 0;
  for (; f < 50 && !rc; f++) rc = drape_sim_step(sim, &e);
  print_message("mesh springs: rc %d after %d frames: %s\n", rc, f, e.msg);
  assert_int_equal(rc, DRAPE_EUNSTABLE);
  assert_non_null(strstr(e.msg, "cloth \"sheet\""));
  const char *v = strstr(e.msg, "(vertex ");
  assert_non_null(v);
  assert_null(strstr(e.msg, "row "));
  const int vertex = atoi(v + 8);
  assert_true(vertex >= 0 && vertex < s.cloth[0].mesh.n_vertices);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* At 4x the seed's step the explicit integration diverges, and the solver
 * says so (object, frame, step, hint) instead of returning NaN positions. */
static void test_springs_4x_dt_reported_unstable(void **state) {
  (void)state;
  drape_scene s;
  load_scene("springs_seed001.json", &s);
  s.dt *= 4;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  drape_err e = {0};
  int rc = 0, f = 0;
  for (; f < 500 && !rc; f++) rc = drape_sim_step(sim, &e); /* up to 10 s */
  print_message("4x dt: rc %d after %d frames: %s\n", rc, f, e.msg);
  assert_int_equal(rc, DRAPE_EUNSTABLE);
  assert_true(f < 50); /* within a second of simulated time */
  assert_non_null(strstr(e.msg, "unstable"));
  assert_non_null(strstr(e.msg, "cloth \"springs\""));
  assert_non_null(strstr(e.msg, "h = dt/substeps = 0.02 s"));
  assert_non_null(strstr(e.msg, "reduce dt"));
  char want[64];
  snprintf(want, sizeof want, "in frame %d ", f);
  assert_non_null(strstr(e.msg, want));
  /* it stays reported: the next step does not carry on silently */
  drape_err e2 = {0};
  assert_int_equal(drape_sim_step(sim, &e2), DRAPE_EUNSTABLE);
  /* reset starts over cleanly */
  assert_int_equal(drape_sim_reset(sim, &e2), 0);
  assert_int_equal(drape_sim_step(sim, &e2), 0);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* Symplectic Euler (seed 001 §2) does not drift: a free 2 x 2 sheet with
 * no gravity and no damping, set spinning and stretching, keeps its energy
 * within a small oscillation over many periods at h well below the limit. */
static void test_springs_symplectic_energy(void **state) {
  (void)state;
  drape_scene s;
  drape_scene_init(&s);
  s.gravity[1] = 0;
  s.dt = 0.001;
  s.substeps = 1;
  drape_cloth_def c = drape_cloth_def_default();
  c.rows = c.cols = 2;
  c.spacing = 0.5;
  c.solver = DRAPE_SOLVER_SPRINGS;
  c.stiffness = 100;
  c.spring_damping = 0;
  c.particle_mass = 0.1;
  c.damping = 0;
  c.tethers = 0;
  drape_scene_add_cloth(&s, &c);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  const double hl = dr_sim_springs_h_limit(sim);
  assert_true(s.dt < 0.2 * hl);
  float v[16] = {1, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, -0.5f, 0, -1, 0, 0, 0};
  drape_err e = {0};
  assert_int_equal(drape_sim_write_velocities(sim, v, &e), 0);
  static const int links[6][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}, {0, 3}, {1, 2}};
  const double rest[6] = {0.5, 0.5, 0.5, 0.5, 0.5 * sqrt(2), 0.5 * sqrt(2)};
  double e0 = 0, lo = INFINITY, hi = -INFINITY, last = 0;
  for (int f = 0; f <= 5000; f++) { /* 5 s, ~16 periods of sqrt(k/m) */
    if (f) step_frames(sim, 1);
    float *x = read_x(sim);
    float vv[16];
    assert_int_equal(drape_sim_read_velocities(sim, vv, &e), 0);
    double en = 0;
    for (int i = 0; i < 4; i++)
      en += 0.5 * 0.1 * (vv[4 * i] * vv[4 * i] + vv[4 * i + 1] * vv[4 * i + 1] +
                         vv[4 * i + 2] * vv[4 * i + 2]);
    double es = 0;
    for (int k = 0; k < 6; k++) {
      const float *a = x + 4 * links[k][0], *b = x + 4 * links[k][1];
      double d = hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]) - rest[k];
      es += 0.5 * 100 * d * d;
    }
    en += es;
    free(x);
    if (f % 500 == 250) { /* the solver's own figure for the springs' energy */
      drape_stats st = get_stats(sim);
      assert_near(st.objects[0].elastic_energy, es, 1e-6 * e0 + 1e-12);
    }
    if (f == 0) e0 = en;
    lo = fmin(lo, en);
    hi = fmax(hi, en);
    last = en;
  }
  print_message("symplectic Euler: E0 %.6f J, range %.6f .. %.6f, end %.6f\n", e0, lo, hi, last);
  assert_true(e0 > 0.1);
  assert_true((hi - lo) < 0.05 * e0); /* bounded oscillation */
  assert_near(last, e0, 0.05 * e0);   /* and no drift */
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* The check: the OpenCL path and the CPU reference agree (same
 * arithmetic in the same order; bit for bit on PoCL). The second scene
 * adds bending springs, damping, pins, a sphere and the floor. */
static void springs_cl_matches_cpu(void) {
  drape_scene s;
  load_scene("springs_seed001.json", &s);
  drape_sim *a = make_sim(&s, DRAPE_BACKEND_CL), *b = make_sim(&s, DRAPE_BACKEND_CPU);
  assert_string_equal(drape_sim_kernel_form(a), drape_cl_kernel_form_name(test_kernel_form));
  step_frames(a, 200);
  step_frames(b, 200);
  float *xa = read_x(a), *xb = read_x(b);
  double d1 = max_diff(xa, xb, 1200);
  free(xa); free(xb);
  drape_sim_destroy(a); drape_sim_destroy(b);
  drape_scene_free(&s);

  scene_hanging_cloth(&s, 16, 0.05, 0);
  s.cloth[0].solver = DRAPE_SOLVER_SPRINGS;
  s.cloth[0].stiffness = 2000;
  s.cloth[0].bend_stiffness = 200;
  s.cloth[0].spring_damping = 0.5;
  s.cloth[0].particle_mass = 0.02;
  s.substeps = 20; /* h = 0.83 ms, under the estimate sqrt(2 m / sum k) = 1.5 ms */
  /* the sphere just beside the sheet (outside its thickness), the floor
   * above its lower rows */
  scene_add_sphere_floor(&s, 1.3, 0.365, 0.35, 1.5);
  s.cloth[0].velocity[2] = 0.5; /* towards the sphere */
  a = make_sim(&s, DRAPE_BACKEND_CL);
  b = make_sim(&s, DRAPE_BACKEND_CPU);
  step_frames(a, 60);
  step_frames(b, 60);
  drape_stats st = get_stats(a);
  xa = read_x(a);
  xb = read_x(b);
  double d2 = max_diff(xa, xb, 256);
  print_message("springs (%s form): max |x_cl - x_cpu| = %.3g m (seed 001, 200 frames), %.3g m "
                "(bend, sphere, floor, 1200 substeps); floor clearance %.3g m\n",
                drape_cl_kernel_form_name(test_kernel_form), d1, d2, st.min_floor_clearance);
  assert_true(st.min_floor_clearance < 0.02); /* the contacts did act */
  /* the same bits: the same sums in the same order (and PoCL rounds
   * division and sqrt as C does) */
  assert_true(d1 == 0.0);
  assert_true(d2 == 0.0);
  free(xa); free(xb);
  drape_sim_destroy(a); drape_sim_destroy(b);
  drape_scene_free(&s);
}

/* Verlet (seeds 002/004) from rest with no damping: after n substeps a
 * free particle has fallen g h^2 n (n + 1) / 2 (the position-difference
 * recursion x_{k+1} = 2 x_k - x_{k-1} + g h^2 with x_{-1} = x_0), not the
 * exact g (n h)^2 / 2: the seeds' start from rest adds half a step of
 * velocity. Large steps near the origin: Verlet's rounding error grows
 * with n^2 (measured: 7e-4 m after 100 steps of 2 ms at y = 10 m). */
static void test_jakobsen_verlet_free_fall(void **state) {
  (void)state;
  drape_scene s;
  drape_scene_init(&s);
  s.gravity[1] = -9.81;
  s.dt = 0.05;
  s.substeps = 1;
  drape_rope_def r = drape_rope_def_default();
  r.segments = 1;
  r.start[0] = r.start[1] = r.start[2] = 0;
  r.end[0] = 1;
  r.end[1] = r.end[2] = 0;
  r.length = 1;
  r.pin_start = r.pin_end = 0;
  r.damping = 0;
  r.solver = DRAPE_SOLVER_JAKOBSEN;
  drape_scene_add_rope(&s, &r);
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  step_frames(sim, 20);
  float *x = read_x(sim);
  const double h = 0.05, n = 20;
  const double want = -9.81 * h * h * n * (n + 1) / 2;
  print_message("Verlet free fall: y %.6f m, recursion %.6f m, exact %.6f m\n", x[1], want,
                -0.5 * 9.81 * 1.0 * 1.0);
  assert_near(x[1], want, 1e-5);
  assert_near(x[5], want, 1e-5);
  assert_near(x[4] - x[0], 1.0, 1e-6); /* the link kept its length */
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

static double catenary_a(double span, double L) {
  double lo = 1e-3, hi = 1e3;
  for (int i = 0; i < 200; i++) {
    double a = 0.5 * (lo + hi);
    if (2 * a * sinh(span / (2 * a)) > L) lo = a;
    else hi = a;
  }
  return 0.5 * (lo + hi);
}

/* Seed 004: a chain pinned at both ends, solved by Verlet + Jakobsen
 * relaxation, hangs as the catenary y = a cosh(x/a) (nobody codes cosh). */
static void test_jakobsen_catenary(void **state) {
  (void)state;
  drape_scene s;
  load_scene("rope_jakobsen_seed004.json", &s);
  drape_rope_def *r = &s.rope[0];
  assert_int_equal(r->solver, DRAPE_SOLVER_JAKOBSEN);
  assert_true(r->pin_start && r->pin_end && r->start[1] == r->end[1]);
  r->damping = 3.0; /* settle within the test's time; the shape is static */
  const double span = fabs(r->end[0] - r->start[0]), a = catenary_a(span, r->length);
  const double sag_exact = a * cosh(span / (2 * a)) - a;
  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CPU);
  step_frames(sim, 600);
  drape_stats st = get_stats(sim);
  float *x = read_x(sim);
  const int n = r->segments;
  double lowest = INFINITY, worst = 0;
  for (int i = 0; i <= n; i++) lowest = fmin(lowest, x[4 * i + 1]);
  const double sag = r->start[1] - lowest;
  const double mid_x = 0.5 * (r->start[0] + r->end[0]), y0 = r->start[1] - sag_exact;
  for (int i = 0; i <= n; i++) {
    double si = r->length * ((double)i / n - 0.5);
    double cx = mid_x + a * asinh(si / a), cy = y0 + a * (sqrt(1 + (si / a) * (si / a)) - 1);
    worst = fmax(worst, hypot(x[4 * i] - cx, x[4 * i + 1] - cy));
  }
  print_message("Jakobsen catenary: a %.4f m, sag %.4f m (analytic %.4f, %+.2f%%), worst node "
                "%.4f m, max link strain %.2e, KE %.2e J\n", a, sag, sag_exact,
                100 * (sag / sag_exact - 1), worst, st.objects[0].max_strain, st.kinetic_energy);
  assert_near(sag, sag_exact, 0.01 * sag_exact);
  assert_true(worst < 0.02 * sag_exact);
  assert_true(st.kinetic_energy < 1e-3);
  free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

/* Jakobsen on OpenCL and on the CPU reference: the seed 002 cloth
 * (several full-strength passes, sphere) and the seed 004 rope. */
static void jakobsen_cl_matches_cpu(void) {
  const char *scenes[2] = {"jakobsen_cloth_seed002.json", "rope_jakobsen_seed004.json"};
  for (int k = 0; k < 2; k++) {
    drape_scene s;
    load_scene(scenes[k], &s);
    drape_sim *a = make_sim(&s, DRAPE_BACKEND_CL), *b = make_sim(&s, DRAPE_BACKEND_CPU);
    assert_int_equal(dr_sim_solver(a), DRAPE_SOLVER_JAKOBSEN);
    step_frames(a, 60);
    step_frames(b, 60);
    int n = drape_sim_mesh(a)->n_particles;
    float *xa = read_x(a), *xb = read_x(b);
    for (int i = 0; i < 4 * n; i++) assert_true(isfinite(xa[i]));
    double d = max_diff(xa, xb, n);
    drape_stats st = get_stats(a);
    print_message("%s (%s form), 60 frames: max |x_cl - x_cpu| = %.3g m, max strain %.4f\n",
                  scenes[k], drape_sim_kernel_form(a), d, st.objects[0].max_strain);
    assert_true(d == 0.0); /* the same bits, as for the XPBD solver */
    if (k == 0) assert_true(st.min_sphere_clearance > -1e-3); /* nothing inside the sphere */
    free(xa); free(xb);
    drape_sim_destroy(a); drape_sim_destroy(b);
    drape_scene_free(&s);
  }
}

/* Both comparisons in both kernel forms (docs/solver.md "Two kernel
 * forms"): the GPU form's springs_forces_g reads the springs slot-major,
 * the vector form's springs_forces a CSR list; Jakobsen's projections are
 * project_distance_g or project_distance. */
static void test_springs_cl_matches_cpu(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    test_kernel_form = test_form(k);
    springs_cl_matches_cpu();
  }
  test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
}
static void test_jakobsen_cl_matches_cpu(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    test_kernel_form = test_form(k);
    jakobsen_cl_matches_cpu();
  }
  test_kernel_form = DRAPE_KERNEL_FORM_AUTO;
}

/* Each variant stage is timed under its own name (the profile once booked
 * springs forces as `project` and springs advance and Verlet as
 * `predict`): on the CPU reference (wall clock) and on OpenCL (event
 * profiling), the stages that ran have time, the ones that did not have
 * none, and Jakobsen's projections add up per colour. */
static void test_variant_stage_timings(void **state) {
  (void)state;
  assert_string_equal(drape_stage_name(DRAPE_STAGE_VERLET), "verlet");
  assert_string_equal(drape_stage_name(DRAPE_STAGE_SPRINGS_FORCES), "springs_forces");
  assert_string_equal(drape_stage_name(DRAPE_STAGE_SPRINGS_ADVANCE), "springs_advance");
  const char *scenes[2] = {"springs_seed001.json", "jakobsen_cloth_seed002.json"};
  for (int k = 0; k < 2; k++)
    for (int be = 0; be < 2; be++) {
      drape_scene s;
      load_scene(scenes[k], &s);
      drape_sim_opts o = drape_sim_opts_default();
      o.backend = be ? DRAPE_BACKEND_CPU : DRAPE_BACKEND_CL;
      o.profiling = 1;
      drape_sim *sim = NULL;
      drape_err e = {0};
      if (drape_sim_create(&s, &o, &sim, &e)) fail_msg("%s", e.msg);
      step_frames(sim, 3);
      drape_timings t;
      drape_sim_timings(sim, &t);
      assert_true(t.stage_times_valid);
      const double *ms = t.ms;
      print_message("%s on %s: verlet %.4f, springs_forces %.4f, springs_advance %.4f, predict "
                    "%.4f, project %.4f ms\n", scenes[k], be ? "cpu" : "cl",
                    ms[DRAPE_STAGE_VERLET], ms[DRAPE_STAGE_SPRINGS_FORCES],
                    ms[DRAPE_STAGE_SPRINGS_ADVANCE], ms[DRAPE_STAGE_PREDICT],
                    ms[DRAPE_STAGE_PROJECT]);
      assert_true(ms[DRAPE_STAGE_PREDICT] == 0 && ms[DRAPE_STAGE_FUSED] == 0);
      if (k == 0) {
        assert_true(ms[DRAPE_STAGE_SPRINGS_FORCES] > 0 && ms[DRAPE_STAGE_SPRINGS_ADVANCE] > 0);
        assert_true(ms[DRAPE_STAGE_PROJECT] == 0 && ms[DRAPE_STAGE_VERLET] == 0);
        /* one projection per spring and substep: 40 x 30 grid, structural
         * and shear springs (seed 001: no bending) */
        const uint64_t springs = 39 * 30 + 40 * 29 + 2 * 39 * 29;
        assert_int_equal(t.projections, springs * (uint64_t)s.substeps);
      } else {
        assert_true(ms[DRAPE_STAGE_VERLET] > 0 && ms[DRAPE_STAGE_PROJECT] > 0);
        assert_true(ms[DRAPE_STAGE_SPRINGS_FORCES] == 0 && ms[DRAPE_STAGE_SPRINGS_ADVANCE] == 0);
        double sum = 0;
        for (int c = 0; c < t.n_colours; c++) sum += t.colour_ms[c];
        assert_true(t.n_colours > 0);
        assert_near(sum, ms[DRAPE_STAGE_PROJECT], 1e-9 + 1e-9 * ms[DRAPE_STAGE_PROJECT]);
      }
      drape_sim_destroy(sim);
      drape_scene_free(&s);
    }
}

/* Bad combinations are refused with a message naming the field. */
static void test_variant_errors(void **state) {
  (void)state;
  drape_scene s;
  scene_hanging_cloth(&s, 4, 0.1, 0);
  drape_rope_def r = drape_rope_def_default();
  r.length = 1;
  r.end[0] = 1;
  r.solver = DRAPE_SOLVER_JAKOBSEN;
  drape_scene_add_rope(&s, &r);
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = DRAPE_BACKEND_CPU;
  drape_sim *sim = NULL;
  drape_err e = {0};
  assert_int_equal(drape_sim_create(&s, &o, &sim, &e), DRAPE_EINVAL);
  assert_null(sim);
  assert_non_null(strstr(e.msg, "rope[0].solver = \"jakobsen\" but cloth[0].solver = \"xpbd\""));
  s.rope[0].solver = DRAPE_SOLVER_IMPLICIT;
  assert_int_equal(drape_sim_create(&s, &o, &sim, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "rope[0].solver = \"implicit\""));
  assert_non_null(strstr(e.msg, "drape_cable"));
  s.n_rope = 0;
  s.cloth[0].solver = DRAPE_SOLVER_SPRINGS;
  s.cloth[0].tear_ratio = 1.5;
  assert_int_equal(drape_sim_create(&s, &o, &sim, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "cloth[0].tear_ratio"));
  s.n_rope = 1;
  drape_scene_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_springs_seed001_stays_finite_10s),
      cmocka_unit_test(test_springs_4x_dt_reported_unstable),
      cmocka_unit_test(test_springs_mesh_unstable_names_vertex),
      cmocka_unit_test(test_springs_symplectic_energy),
      cmocka_unit_test(test_springs_cl_matches_cpu),
      cmocka_unit_test(test_jakobsen_verlet_free_fall),
      cmocka_unit_test(test_jakobsen_catenary),
      cmocka_unit_test(test_jakobsen_cl_matches_cpu),
      cmocka_unit_test(test_variant_stage_timings),
      cmocka_unit_test(test_variant_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
