/* The Cusick drape test (ISO 9073-9, BS 5058; Cusick 1968; docs/solver.md
 * "The Cusick drape test"): scenes/cusick.json's 30 cm specimen, clamped
 * on the 18 cm support disk, drapes under gravity and the stats report
 * its drape coefficient DC = (A_s - A_d) / (A_0 - A_d).
 *
 *  - the statistic: 1 for the flat specimen, NAN for a cloth without
 *    drape_disk_radius, the world's equal to the sim's, the key refused
 *    beyond the specimen's radius;
 *  - every material preset at two mesh sizes (meshes/specimen_30cm_r20.obj
 *    and _r30.obj, 7.5 and 5 mm between rings): DC in (0, 1), the two
 *    meshes within 2 % of each other for the stiff presets (overhang at
 *    most two bending lengths: canvas, leather) and within 20 % for the
 *    others, whose fold pattern is one of several (the figures are
 *    printed; measured 0.6 to 4.6 %), and DC ordered by the bending
 *    length c = (B / w)^(1/3) wherever two presets' c differ by more
 *    than 10 %. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_util.h"
#include "drape/world.h"
#include "support.h"

#define PI 3.14159265358979323846
#define DISK_R 0.09   /* m: the support disk's radius, ISO 9073-9 */
#define COARSE "specimen_30cm_r20.obj"
#define FINE "specimen_30cm_r30.obj"

static char *read_source(const char *rel) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", drape_test_source_dir(), rel);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  const long n = ftell(f);
  assert_true(n > 0);
  assert_int_equal(fseek(f, 0, SEEK_SET), 0);
  char *t = malloc((size_t)n + 1);
  assert_non_null(t);
  assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
  t[n] = 0;
  fclose(f);
  return t;
}

/* The vertices of a specimen mesh within the disk's radius of its axis:
 * the part the clamp holds (as make_meshes.py lists them). */
static int clamp_vertices(const drape_cloth_mesh *m, int *out) {
  int n = 0;
  for (int v = 0; v < m->n_vertices; v++)
    if (hypot(m->vertices[3 * v], m->vertices[3 * v + 2]) <= DISK_R + 1e-6) {
      if (out) out[n] = v;
      n++;
    }
  return n;
}

/* scenes/cusick.json with the specimen from `mesh` (clamped within the
 * disk's radius), made of `mat` when not NULL. */
static void cusick_scene(const char *text, const char *mesh, const drape_material_def *mat,
                         drape_scene *s) {
  const char *at = strstr(text, COARSE);
  assert_non_null(at);
  const size_t pre = (size_t)(at - text);
  char *t = malloc(strlen(text) + strlen(mesh) + 1);
  assert_non_null(t);
  memcpy(t, text, pre);
  strcpy(t + pre, mesh);
  strcat(t, at + strlen(COARSE));
  char dir[2048];
  snprintf(dir, sizeof dir, "%s/scenes", drape_test_source_dir());
  drape_err e = {0};
  if (drape_scene_parse_in(t, "scenes/cusick.json", dir, s, &e)) {
    print_error("%s\n", e.msg);
    fail();
  }
  free(t);
  drape_cloth_def *c = &s->cloth[0];
  const int n = clamp_vertices(&c->mesh, NULL);
  free(c->pin_vertices);
  c->pin_vertices = malloc(sizeof *c->pin_vertices * (size_t)n);
  assert_non_null(c->pin_vertices);
  c->n_pin_vertices = clamp_vertices(&c->mesh, c->pin_vertices);
  if (mat) {
    c->material = *mat;
    c->mass_per_area = mat->density;
  }
}

/* The scene file's pins are the clamp of its mesh; its flat specimen has
 * DC 1 (the footprint's rasterisation within 0.5 %), the world reports the
 * sim's DC, a cloth without the key has none, and the key is refused at
 * and beyond the specimen's radius. */
static void test_statistic(void **state) {
  (void)state;
  drape_scene s;
  scene_from_source("scenes/cusick.json", &s);
  drape_cloth_def *c = &s.cloth[0];
  assert_true(c->drape_disk_radius == DISK_R);
  int *clamp = malloc(sizeof *clamp * (size_t)c->mesh.n_vertices);
  assert_non_null(clamp);
  const int n = clamp_vertices(&c->mesh, clamp);
  assert_int_equal(c->n_pin_vertices, n);
  assert_memory_equal(c->pin_vertices, clamp, sizeof *clamp * (size_t)n);
  free(clamp);

  drape_sim *sim = make_sim(&s, DRAPE_BACKEND_CL);
  drape_stats st = get_stats(sim);
  print_message("flat specimen: covered %.6f m^2, DC %.5f\n", st.objects[0].covered_area,
                st.objects[0].drape_coefficient);
  assert_true(fabs(st.objects[0].drape_coefficient - 1) < 0.005);
  step_frames(sim, 10);
  st = get_stats(sim);
  const double As = st.objects[0].covered_area, dc = st.objects[0].drape_coefficient;
  assert_true(dc > 0 && dc < 1);
  drape_sim_destroy(sim);

  /* the world mirrors it (the same scene, stepped alike) */
  drape_world *w = NULL;
  drape_world_def wo = drape_world_def_default();
  drape_err e = {0};
  assert_int_equal(drape_world_create(&s, &wo, &w, &e), 0);
  for (int f = 0; f < 10; f++) assert_int_equal(drape_world_step(w, &e), 0);
  drape_world_stats ws;
  assert_int_equal(drape_world_get_stats(w, &ws, &e), 0);
  assert_true(ws.objects[0].covered_area == As && ws.objects[0].drape_coefficient == dc);
  drape_world_destroy(w);

  c->drape_disk_radius = 0;
  sim = make_sim(&s, DRAPE_BACKEND_CL);
  st = get_stats(sim);
  assert_true(isnan(st.objects[0].drape_coefficient));
  drape_sim_destroy(sim);

  /* A_0 is the inscribed 126-gon's, so the bound is a little below 0.15 m */
  const double bad[] = {0.15, 0.2, -0.09, NAN, INFINITY};
  for (int k = 0; k < 5; k++) {
    c->drape_disk_radius = bad[k];
    assert_int_equal(drape_cloth_def_validate(c, 0, &e), DRAPE_EINVAL);
    assert_non_null(strstr(e.msg, "cloth[0].drape_disk_radius = "));
    assert_non_null(strstr(e.msg, "must be 0 (no drape test) or > 0 and < 0.149969 m"));
  }
  c->drape_disk_radius = 0.1499;
  assert_int_equal(drape_cloth_def_validate(c, 0, &e), 0);
  drape_scene_free(&s);
}

/* DC of one specimen, settled: the mean of the scene's last frames (a
 * residual sway of a few 0.1 % in the last digits averages out). */
static double drape(drape_scene *s) {
  drape_sim *sim = make_sim(s, DRAPE_BACKEND_CL);
  const int frames = s->frames;
  double dc = 0;
  int n = 0;
  for (int f = 1; f <= frames; f++) {
    step_frames(sim, 1);
    if (f > frames - 10 && f % 2 == 0) {
      dc += get_stats(sim).objects[0].drape_coefficient;
      n++;
    }
  }
  drape_sim_destroy(sim);
  return dc / n;
}

static void test_presets(void **state) {
  (void)state;
  char *text = read_source("scenes/cusick.json");
  const int np = drape_material_preset_count();
  double c[16], dc[16][2];
  assert_true(np <= 16);
  const double t0 = drape_now();
  print_message("%-17s %7s %8s %8s %7s\n", "preset", "c (cm)", "DC 7.5mm", "DC 5mm", "diff");
  for (int k = 0; k < np; k++) {
    const drape_material_def *m = drape_material_preset_at(k);
    /* bending length (Peirce 1930) of the overall rigidity, the geometric
     * mean of warp and weft (BS 3356) */
    c[k] = cbrt(sqrt(m->bend[0] * m->bend[1]) / (m->density * 9.81));
    for (int r = 0; r < 2; r++) {
      drape_scene s;
      cusick_scene(text, r ? FINE : COARSE, m, &s);
      /* XPBD's effective in-plane stiffness with a few iterations goes as
       * the element's mass over h^2, so the substep shrinks with the
       * spacing (h ~ dx) for both meshes to solve the same fabric */
      if (r) s.substeps = s.substeps * 30 / 20;
      dc[k][r] = drape(&s);
      drape_scene_free(&s);
    }
    const double diff = (dc[k][0] - dc[k][1]) / dc[k][1];
    print_message("%-17s %7.2f %8.4f %8.4f %+6.2f%%\n", m->preset, 100 * c[k], dc[k][0], dc[k][1],
                  100 * diff);
  }
  print_message("%d presets x 2 meshes in %.0f s\n", np, drape_now() - t0);
  int soft = 0, stiff = 0;
  for (int k = 0; k < np; k++) {
    for (int r = 0; r < 2; r++) assert_true(dc[k][r] > 0 && dc[k][r] < 1);
    /* A specimen whose overhang (6 cm) is at most two bending lengths
     * droops into one shape, the same to 4 digits from a start 1 mm
     * higher. A softer one folds into one of several node patterns, and
     * a change at the level of rounding picks which: that start moved DC
     * by up to 11 % on one mesh, and the two meshes came 14 % apart
     * (docs/solver.md "The Cusick drape test"). Those are held to 20 %, a
     * check against a broken drape, not a convergence test. */
    const double tol = 0.15 - DISK_R <= 2 * c[k] ? 0.02 : 0.20;
    if (!(fabs(dc[k][0] - dc[k][1]) / dc[k][1] < tol))
      fail_msg("%s: DC %.4f (7.5 mm) vs %.4f (5 mm): beyond %.0f %%",
               drape_material_preset_at(k)->preset, dc[k][0], dc[k][1], 100 * tol);
    if (c[k] < c[soft]) soft = k;
    if (c[k] > c[stiff]) stiff = k;
  }
  for (int r = 0; r < 2; r++) {
    assert_true(dc[stiff][r] > dc[soft][r]);
    for (int i = 0; i < np; i++)
      for (int j = 0; j < np; j++)
        if (c[i] > 1.1 * c[j] && !(dc[i][r] > dc[j][r]))
          fail_msg("%s (c %.2f cm) drapes with DC %.4f, below %s's %.4f (c %.2f cm)",
                   drape_material_preset_at(i)->preset, 100 * c[i], dc[i][r],
                   drape_material_preset_at(j)->preset, dc[j][r], 100 * c[j]);
  }
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_statistic),
      cmocka_unit_test(test_presets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
