/* The constraint residual of drape_sim_stats (docs/solver.md "Residual"):
 * the RMS of XPBD's h(lambda) = C(x) + alpha~ lambda over an object's
 * stretch constraints after the frame's last substep, in strain units.
 * Checked against what it must be: 0 to rounding where one projection is
 * the whole solve (a single compliant link), the plain strain where the
 * compliance is 0 (no multiplier term), far smaller with many iterations
 * than with one on a material strip hanging at rest (membranes, with and
 * without the coarse levels) and on an elastic chain, and the same number
 * on OpenCL (both kernel forms) as on the CPU reference, whose bits the
 * kernels reproduce. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "support.h"

/* A rope hanging from its pinned start along -y: `segments` links of
 * 0.1 m, 0.1 kg/m, compliance alpha (m/N). It hangs near y = 0, where a
 * float position resolves 1e-8 m (1e-7 of a link). */
static void scene_rope(drape_scene *s, int segments, double alpha, int iterations) {
  drape_scene_init(s);
  s->substeps = 20;
  s->iterations = iterations;
  drape_rope_def r = drape_rope_def_default();
  snprintf(r.name, sizeof r.name, "rope");
  r.segments = segments;
  r.length = 0.1 * segments;
  r.start[1] = 0.1;
  r.end[1] = 0.1 - r.length;
  r.compliance = alpha;
  r.damping = 2.0;
  r.tension_only = 0;
  drape_scene_add_rope(s, &r);
}

/* The strip of test_material (10 cm x 1 m, 0.2 kg/m^2, stretch 100 N/m,
 * shear 10 N/m) at L/32, hanging from its top row. */
static void scene_strip(drape_scene *s, int iterations, int multilevel) {
  scene_material_strip(s, 32);
  s->substeps = 20;
  s->iterations = iterations;
  s->multilevel = multilevel;
}

/* Object 0's residual and max strain after `frames` frames on backend be
 * (kernel form `form` on OpenCL). */
static double run_residual(const drape_scene *s, drape_backend be, drape_kernel_form form,
                           int frames, double *max_strain) {
  drape_sim *sim = make_sim_form(s, be, form);
  step_frames(sim, frames);
  drape_stats st = get_stats(sim);
  const double r = st.objects[0].residual;
  if (max_strain) *max_strain = st.objects[0].max_strain;
  drape_sim_destroy(sim);
  return r;
}

/* One compliant link under a hanging node: its single projection per
 * substep solves h(lambda) = 0 exactly (dlambda = (-C - alpha~ lambda) /
 * (w + alpha~) makes h, linear along the link, vanish), so the residual
 * is rounding while the link is stretched by about m g alpha / rest = 1 %
 * (m = 5 g, the node's half of the link). */
static void test_single_link_exact(void **state) {
  (void)state;
  drape_scene s;
  scene_rope(&s, 1, 0.02, 1);
  for (int b = 0; b < 2; b++) {
    double strain;
    const double r = run_residual(&s, b ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU,
                                  DRAPE_KERNEL_FORM_AUTO, 60, &strain);
    print_message("single link (%s): residual %.3g, strain %.4g\n", b ? "cl" : "cpu", r, strain);
    assert_true(isfinite(r) && r >= 0);
    assert_true(strain > 5e-3);
    assert_true(r <= 1e-4 * strain);
  }
  drape_scene_free(&s);
}

/* Compliance 0: alpha~ lambda is 0, so the residual is the RMS of the
 * links' strain |x_a - x_b| / rest - 1, here computed from the positions. */
static void test_rigid_links_are_strain(void **state) {
  (void)state;
  drape_scene s;
  scene_rope(&s, 10, 0.0, 1);
  for (int b = 0; b < 2; b++) {
    drape_sim *sim = make_sim(&s, b ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU);
    step_frames(sim, 30);
    drape_stats st = get_stats(sim);
    float *x = read_x(sim);
    const double rest = (float)0.1; /* as the model stores it */
    double sum = 0;
    for (int i = 0; i < 10; i++) {
      const float *a = x + 4 * i, *c = x + 4 * (i + 1);
      const double dx = (double)a[0] - c[0], dy = (double)a[1] - c[1], dz = (double)a[2] - c[2];
      const double e = sqrt(dx * dx + dy * dy + dz * dz) / rest - 1.0;
      sum += e * e;
    }
    free(x);
    const double want = sqrt(sum / 10), got = st.objects[0].residual;
    print_message("rigid chain (%s): residual %.6g, RMS strain %.6g\n", b ? "cl" : "cpu", got, want);
    assert_true(want > 1e-4); /* one sweep leaves a stiff chain stretched */
    assert_true(fabs(got - want) <= 1e-9 * want);
    drape_sim_destroy(sim);
  }
  drape_scene_free(&s);
}

/* At rest, more sweeps per substep solve each implicit step better: the
 * residual of 30 iterations is at least 10 times below that of one, for
 * the material strip (the fine membranes, with and without its coarse
 * levels) and for an elastic chain of 20 links. */
static void test_iterations_reduce_residual(void **state) {
  (void)state;
  for (int k = 0; k < 3; k++) {
    double r[2];
    const int its[2] = {1, 30};
    for (int i = 0; i < 2; i++) {
      drape_scene s;
      if (k < 2) scene_strip(&s, its[i], k);
      else scene_rope(&s, 20, 1e-3, its[i]);
      r[i] = run_residual(&s, DRAPE_BACKEND_CPU, DRAPE_KERNEL_FORM_AUTO, 180, NULL);
      drape_scene_free(&s);
      assert_true(isfinite(r[i]) && r[i] >= 0);
    }
    const char *what[3] = {"strip", "strip, multilevel", "elastic chain"};
    print_message("%s at rest: residual %.3g with 1 iteration, %.3g with 30 (%.0fx)\n", what[k],
                  r[0], r[1], r[0] / r[1]);
    assert_true(r[0] > 0);
    assert_true(r[1] * 10 <= r[0]);
  }
}

/* The irregular square of meshes/square_small.obj (0.5 m, 144 vertices)
 * falling onto the sphere of scene_sphere_drop: a mesh cloth, whose edges'
 * multipliers its edge units keep, with stretch compliance 1e-4 m/N. */
static void scene_mesh_drop(drape_scene *s) {
  drape_scene_init(s);
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "square");
  c.has_mesh = 1;
  c.compliance_stretch = 1e-4;
  char path[2048];
  snprintf(path, sizeof path, "%s/meshes/square_small.obj", drape_test_source_dir());
  c.mesh.file = strdup(path);
  c.mesh.translate[1] = 0.95;
  drape_err e = {0};
  if (drape_cloth_mesh_load(&c, 0, NULL, &e)) fail_msg("%s", e.msg);
  drape_scene_add_cloth(s, &c);
  scene_add_sphere_floor(s, 0.5, 0, 0.4, 0);
}

/* The same run gives the same residual on OpenCL, in both kernel forms,
 * as on the CPU reference: the membranes with one iteration (their
 * multipliers stored by the last substep only) and several, with and
 * without coarse levels, a per-constraint cloth on the sphere with one
 * iteration and with three, and a mesh cloth. */
static void test_cl_equals_cpu(void **state) {
  (void)state;
  for (int k = 0; k < 7; k++) {
    drape_scene s;
    if (k < 4) {
      scene_strip(&s, k % 2 ? 4 : 1, k / 2);
    } else if (k < 6) {
      scene_sphere_drop(&s, 16, 0.95);
      s.iterations = k == 4 ? 1 : 3;
    } else {
      scene_mesh_drop(&s);
    }
    const double ref = run_residual(&s, DRAPE_BACKEND_CPU, DRAPE_KERNEL_FORM_AUTO, 40, NULL);
    assert_true(isfinite(ref) && ref > 0);
    for (int f = 0; f < 2; f++) {
      const double r = run_residual(&s, DRAPE_BACKEND_CL, test_form(f), 40, NULL);
      if (r != ref) {
        print_error("case %d, %s form: residual %.17g on OpenCL, %.17g on the CPU reference\n", k,
                    test_form_name(f), r, ref);
        fail();
      }
    }
    print_message("case %d: residual %.6g on the CPU reference and both OpenCL forms\n", k, ref);
    drape_scene_free(&s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_single_link_exact),
      cmocka_unit_test(test_rigid_links_are_strain),
      cmocka_unit_test(test_iterations_reduce_residual),
      cmocka_unit_test(test_cl_equals_cpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
