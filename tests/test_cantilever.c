/* The heavy cantilever (Peirce 1930; the bending-length test of ASTM
 * D1388): a strip clamped horizontally at one end sags under its own weight
 * w (N/m^2) against its bending rigidity B (N m). Its shape solves the
 * inextensible heavy elastica
 *   B theta''(s) = -w (L - s) cos theta(s),  theta(0) = 0, theta'(L) = 0
 * (theta the slope below horizontal at arc length s, L the overhang), solved
 * here by shooting on theta'(0). The only length is the bending length
 * c = (B / w)^(1/3); at L = 2 c the chord from clamp to tip makes 41.5
 * degrees with the horizontal, the angle of the standard's incline.
 *
 * The model is checked against it: a cotton strip as a grid and as an
 * irregular mesh, clamped by pinning its particles at x <= 0. Bending
 * statics converge only as the substep shrinks (docs/solver.md "Bending
 * statics": 16 elements hang +40 % at 20 substeps, +7 to +16 % at 800), and
 * float positions bound the substep (at 1,600 substeps h^2 g falls below a
 * position's rounding), so the check is at 800 substeps near the origin,
 * within 20 %: a wrong rigidity (a factor of 2 moves the tip by about a
 * third at this overhang) or a lost hinge fails it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "support.h"

/* The elastica of overhang L: tip drop and chord angle (degrees). */
static void elastica(double B, double w, double L, double *drop, double *chord) {
  double lo = 0, hi = 10 * w * L * L / B; /* theta'(0) */
  const int N = 20000;
  const double ds = L / N;
  for (int it = 0; it < 100; it++) {
    const double k = 0.5 * (lo + hi);
    double th = 0, dth = k, x = 0, y = 0;
    for (int i = 0; i < N; i++) { /* midpoint rule */
      const double s = i * ds;
      const double a1 = -w * (L - s) * cos(th) / B;
      const double thm = th + 0.5 * ds * dth, dthm = dth + 0.5 * ds * a1;
      const double a2 = -w * (L - s - 0.5 * ds) * cos(thm) / B;
      x += ds * cos(thm), y += ds * sin(thm);
      th += ds * dthm, dth += ds * a2;
    }
    if (dth > 0) hi = k; /* theta'(L) > 0: started too steep */
    else lo = k;
    *drop = y, *chord = atan2(y, x) * 180 / 3.14159265358979323846;
  }
}

static void test_elastica_angle(void **state) {
  (void)state;
  /* any B, w: the shape depends on L / c only */
  const double B = 1e-5, w = 1.2, c = cbrt(B / w);
  double drop, chord;
  elastica(B, w, 2 * c, &drop, &chord);
  print_message("elastica at L = 2c: chord %.3f deg (Peirce: 41.5), tip drop %.4f c\n", chord,
                drop / c);
  assert_true(fabs(chord - 41.5) < 0.1);
  elastica(B, w, 1e-3 * c, &drop, &chord); /* short: the linear beam, w L^4 / (8 B) */
  const double L = 1e-3 * c;
  assert_true(fabs(drop / (w * L * L * L * L / (8 * B)) - 1) < 1e-3);
}

/* The strip: overhang L along +x from the clamp at x = 0, segs elements
 * along it, 4 across, 2 elements of clamp behind x = 0; as a grid, or
 * (mesh) as an irregular triangulation of the same points, interior ones
 * moved by up to a quarter spacing and each cell split on a random
 * diagonal. */
static void scene_cantilever(drape_scene *s, const drape_material_def *mt, double L, int segs, int mesh) {
  drape_scene_init(s);
  s->substeps = 800; /* see the top */
  drape_cloth_def c = drape_cloth_def_default();
  snprintf(c.name, sizeof c.name, "strip");
  c.material = *mt;
  c.mass_per_area = mt->density;
  c.tethers = 0;
  c.damping = 10.0; /* settled in 4 s (its slow sway decays) */
  const double sp = L / segs;
  const int rows = 5, cols = segs + 3;
  if (!mesh) {
    c.rows = rows, c.cols = cols, c.spacing = sp, c.plane = DRAPE_PLANE_XZ;
    c.origin[0] = -2 * sp;
    c.n_pins = 3 * rows;
    c.pins = malloc(sizeof *c.pins * (size_t)c.n_pins);
    for (int r = 0, k = 0; r < rows; r++)
      for (int q = 0; q < 3; q++, k++) c.pins[k][0] = r, c.pins[k][1] = q;
  } else {
    drape_cloth_mesh *me = &c.mesh;
    memset(me, 0, sizeof *me);
    me->scale = 1;
    me->n_vertices = rows * cols, me->n_tris = 2 * (rows - 1) * (cols - 1);
    me->vertices = malloc(sizeof(double) * 3 * (size_t)me->n_vertices);
    me->uv = malloc(sizeof(float) * 2 * (size_t)me->n_vertices);
    me->tris = malloc(sizeof(int) * 3 * (size_t)me->n_tris);
    unsigned seed = 2024;
    for (int r = 0; r < rows; r++)
      for (int q = 0; q < cols; q++) {
        const int i = r * cols + q;
        double dx = 0, dz = 0;
        if (r > 0 && r < rows - 1 && q > 2 && q < cols - 1) {
          seed = seed * 1103515245u + 12345u, dx = ((seed >> 16) % 1000 / 1000.0 - 0.5) * 0.5;
          seed = seed * 1103515245u + 12345u, dz = ((seed >> 16) % 1000 / 1000.0 - 0.5) * 0.5;
        }
        me->vertices[3 * i] = (q - 2 + dx) * sp, me->vertices[3 * i + 1] = 0;
        me->vertices[3 * i + 2] = (r + dz) * sp;
        me->uv[2 * i] = (float)(me->vertices[3 * i] / sp), me->uv[2 * i + 1] = (float)(me->vertices[3 * i + 2] / sp);
      }
    int t = 0;
    for (int r = 0; r + 1 < rows; r++)
      for (int q = 0; q + 1 < cols; q++) {
        const int i = r * cols + q, w = cols;
        seed = seed * 1103515245u + 12345u;
        const int a[6] = {i, i + w, i + w + 1, i, i + w + 1, i + 1};
        const int b[6] = {i, i + w, i + 1, i + 1, i + w, i + w + 1};
        memcpy(me->tris + 3 * t, (seed >> 16) & 1 ? a : b, sizeof a);
        t += 2;
      }
    c.has_mesh = 1;
    c.n_pin_vertices = 3 * rows;
    c.pin_vertices = malloc(sizeof(int) * (size_t)c.n_pin_vertices);
    for (int r = 0, k = 0; r < rows; r++)
      for (int q = 0; q < 3; q++, k++) c.pin_vertices[k] = r * cols + q;
  }
  drape_scene_add_cloth(s, &c);
}

/* The mean drop of the free end's particles after `seconds`. */
static double tip_drop(const drape_scene *s, int segs, double seconds) {
  drape_sim *sim = make_sim(s, DRAPE_BACKEND_CPU);
  step_frames(sim, (int)lround(seconds * 60));
  float *x = read_x(sim);
  const int rows = 5, cols = segs + 3;
  double y = 0;
  for (int r = 0; r < rows; r++) y += x[4 * (r * cols + cols - 1) + 1] / rows;
  free(x);
  drape_sim_destroy(sim);
  return -y;
}

static void test_cantilever(void **state) {
  (void)state;
  const drape_material_def *mt = drape_material_preset("cotton_shirting");
  assert_non_null(mt);
  const double w = mt->density * 9.81, B = mt->bend[0], c = cbrt(B / w), L = 2 * c;
  double want, chord;
  elastica(B, w, L, &want, &chord);
  for (int mesh = 0; mesh < 2; mesh++) {
    drape_scene s;
    scene_cantilever(&s, mt, L, 16, mesh);
    const double got = tip_drop(&s, 16, 4.0);
    print_message("cantilever, %s, 16 elements, L = 2c = %.1f mm: tip drop %.3f mm (elastica "
                  "%.3f mm, %+.1f %%)\n", mesh ? "irregular mesh" : "grid", 1e3 * L, 1e3 * got,
                  1e3 * want, 100 * (got / want - 1));
    assert_true(fabs(got / want - 1) < 0.20);
    drape_scene_free(&s);
  }
}

/* A rope with a material bend EI (membrane.cl, "Rope bending") is the same
 * heavy elastica with B = EI and w its weight per length: clamped by its
 * first node (pinned) and the next two (held by grabs), 16 links over the
 * overhang, it sags to the elastica within 20 % at 200 substeps (+9.5 %;
 * 8 links give +15 %); with bend
 * 0 it hangs straight down from the clamp's edge (no bending at all), and
 * OpenCL in both kernel forms gives the CPU reference's bits. */
static void rope_cantilever(drape_backend be, drape_kernel_form form, double EI, double *drop,
                            float **xout) {
  const int segs = 16 + 2;
  const double w = 0.05 * 9.81, L = 2 * cbrt(1e-4 / w), sp = L / 16;
  drape_scene s;
  drape_scene_init(&s);
  s.substeps = 200; /* the rope's positions are ~0.1 m: 800 would lose h^2 g to rounding */
  drape_rope_def r = drape_rope_def_default();
  snprintf(r.name, sizeof r.name, "rod");
  r.segments = segs;
  r.start[0] = -2 * sp, r.end[0] = L;
  r.length = L + 2 * sp;
  r.material.set = 1, r.material.density = 0.05, r.material.stretch[0] = 1e4;
  r.material.bend[0] = EI, r.material.damping = -1;
  r.mass_per_length = 0.05;
  r.damping = 10.0;
  r.pin_start = 1, r.pin_end = 0;
  drape_scene_add_rope(&s, &r);
  drape_sim_opts o = drape_sim_opts_default();
  o.backend = be, o.kernel_form = form;
  drape_sim *sim = NULL;
  drape_err e = {0};
  if (drape_sim_create(&s, &o, &sim, &e)) fail_msg("%s", e.msg);
  int gid;
  for (int j = 1; j <= 2; j++) {
    const double at[3] = {-2 * sp + j * sp, 0, 0};
    assert_int_equal(drape_sim_grab(sim, j, at, &gid, &e), 0);
  }
  step_frames(sim, 240);
  float *x = read_x(sim);
  *drop = -x[4 * segs + 1];
  if (xout) *xout = x;
  else free(x);
  drape_sim_destroy(sim);
  drape_scene_free(&s);
}

static void test_rope_cantilever(void **state) {
  (void)state;
  const double EI = 1e-4, w = 0.05 * 9.81, L = 2 * cbrt(EI / w);
  double want, chord, got, straight;
  elastica(EI, w, L, &want, &chord);
  float *ref = NULL, *x = NULL;
  rope_cantilever(DRAPE_BACKEND_CPU, DRAPE_KERNEL_FORM_CPU, EI, &got, &ref);
  print_message("rope cantilever, 16 links, L = 2c = %.1f mm: tip drop %.3f mm (elastica %.3f mm, "
                "%+.1f %%)\n", 1e3 * L, 1e3 * got, 1e3 * want, 100 * (got / want - 1));
  assert_true(fabs(got / want - 1) < 0.20);
  for (int form = 0; form < 2; form++) {
    double d;
    rope_cantilever(DRAPE_BACKEND_CL, form ? DRAPE_KERNEL_FORM_GPU : DRAPE_KERNEL_FORM_CPU, EI, &d, &x);
    assert_memory_equal(ref, x, sizeof *x * 4 * 19);
    free(x);
  }
  free(ref);
  rope_cantilever(DRAPE_BACKEND_CPU, DRAPE_KERNEL_FORM_CPU, 0, &straight, NULL);
  print_message("the same rope without bending: tip %.1f mm below the clamp (the overhang %.1f mm)\n",
                1e3 * straight, 1e3 * L);
  assert_true(straight > 0.95 * L);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elastica_angle),
      cmocka_unit_test(test_cantilever),
      cmocka_unit_test(test_rope_cantilever),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
