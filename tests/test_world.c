/* drape_world (include/drape/world.h): one object stepping every kind of
 * object of a scene. The world's cloth and string match the solvers run
 * alone, bit for bit; objects come in the documented order with their
 * counts; the OBJ holds every object with one `l a b` per link; a
 * divergence stops the whole world until a reset; a zeroed def means the
 * defaults; the scene may be freed right after create. */
#include <math.h>
#include <unistd.h>

#include "cloth_util.h"
#include "drape/world.h"

/* A 10 x 10 cloth over a sphere, an XPBD rope, an implicit (seed 003)
 * rope and a seed 000 string with a hand keyframe list (owned by the
 * scene: the world must copy it). */
static void scene_everything(drape_scene *s) {
  scene_sphere_drop(s, 10, 0.95);
  drape_rope_def r = drape_rope_def_default();
  snprintf(r.name, sizeof r.name, "chain");
  r.segments = 12;
  drape_scene_add_rope(s, &r);
  drape_rope_def c = drape_rope_def_default();
  snprintf(c.name, sizeof c.name, "cable");
  c.solver = DRAPE_SOLVER_IMPLICIT;
  c.segments = 10;
  c.start[0] = 0, c.start[1] = 1, c.start[2] = 0;
  c.end[0] = 2, c.end[1] = 1, c.end[2] = 0;
  c.length = 2;
  c.mass_per_length = 1;
  c.ym = 40;
  c.pin_start = c.pin_end = 1;
  drape_scene_add_rope(s, &c);
  drape_string_def st = drape_string_def_default();
  snprintf(st.name, sizeof st.name, "cord");
  st.nodes = 20;
  st.n_hand = 2;
  st.hand = malloc(2 * sizeof *st.hand);
  const double hand[2][3] = {{0.0, 2.4, 2.6}, {0.5, 2.0, 2.0}};
  memcpy(st.hand, hand, sizeof hand);
  st.release_at = 0.3;
  drape_scene_add_string(s, &st);
}

static drape_world *make_world(const drape_scene *s, drape_backend be) {
  drape_world_def d = drape_world_def_default();
  d.backend = be;
  drape_world *w = NULL;
  drape_err e = {0};
  if (drape_world_create(s, &d, &w, &e)) {
    print_error("drape_world_create: %s\n", e.msg);
    fail();
  }
  return w;
}

static void test_objects_and_obj(void **state) {
  (void)state;
  drape_scene s;
  scene_everything(&s);
  for (int b = 0; b < 2; b++) {
    drape_world *w = make_world(&s, b ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU);
    drape_err e = {0};
    for (int f = 0; f < 10; f++) assert_int_equal(drape_world_step(w, &e), 0);
    assert_int_equal(drape_world_frame(w), 10);
    assert_near(drape_world_time(w), 10 * s.dt, 1e-12);
    assert_int_equal(drape_world_object_count(w), 4);
    const struct { const char *name; drape_world_kind kind; int points, tris, links; } want[4] = {
        {"sheet", DRAPE_WORLD_CLOTH, 100, 2 * 81, 0},
        {"chain", DRAPE_WORLD_ROPE, 13, 0, 12},
        {"cable", DRAPE_WORLD_CABLE, 11, 0, 10},
        {"cord", DRAPE_WORLD_STRING, 21, 0, 20}};
    int total_v = 0, total_l = 0;
    for (int k = 0; k < 4; k++) {
      drape_world_object o;
      assert_int_equal(drape_world_get_object(w, k, &o, &e), 0);
      assert_string_equal(o.name, want[k].name);
      assert_int_equal(o.kind, want[k].kind);
      assert_int_equal(o.n_points, want[k].points);
      assert_int_equal(o.n_tris, want[k].tris);
      assert_int_equal(o.n_links, want[k].links);
      float *x = malloc(sizeof(float) * 3 * (size_t)o.n_points);
      assert_int_equal(drape_world_read_points(w, k, x, &e), 0);
      for (int i = 0; i < 3 * o.n_points; i++) assert_true(isfinite(x[i]));
      free(x);
      total_v += o.n_points;
      total_l += o.n_links;
    }
    /* normals: unit length on the cloth, zero on the rest */
    float nrm[3 * 100];
    assert_int_equal(drape_world_read_normals(w, 0, nrm, &e), 0);
    for (int i = 0; i < 100; i++)
      assert_near(sqrt(nrm[3 * i] * nrm[3 * i] + nrm[3 * i + 1] * nrm[3 * i + 1] +
                       nrm[3 * i + 2] * nrm[3 * i + 2]), 1.0, 1e-5);
    float rn[3 * 13];
    assert_int_equal(drape_world_read_normals(w, 1, rn, &e), 0);
    for (int i = 0; i < 3 * 13; i++) assert_true(rn[i] == 0.0f);
    drape_timings tm;
    drape_world_get_timings(w, &tm);
    assert_true(tm.ms_frame > 0);
    assert_true(tm.projections > 0);
    drape_world_object o;
    assert_int_equal(drape_world_get_object(w, 4, &o, &e), DRAPE_EINVAL);
    assert_non_null(strstr(e.msg, "objects 0..3"));
    /* the OBJ: every object, every vertex, every triangle, one l per link */
    char path[4096];
    snprintf(path, sizeof path, "%s/world.obj", drape_test_tmpdir("world-obj"));
    assert_int_equal(drape_world_write_obj(w, path, &e), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    int no = 0, nv = 0, nf = 0, nl = 0, max_idx = 0;
    while (fgets(line, sizeof line, f)) {
      if (!strncmp(line, "o ", 2)) no++;
      if (!strncmp(line, "v ", 2)) nv++;
      if (!strncmp(line, "f ", 2)) nf++;
      if (!strncmp(line, "l ", 2)) {
        unsigned a, c2;
        char extra[8];
        assert_int_equal(sscanf(line, "l %u %u %7s", &a, &c2, extra), 2); /* two vertices */
        assert_int_equal(c2, a + 1);
        if ((int)c2 > max_idx) max_idx = (int)c2;
        nl++;
      }
    }
    fclose(f);
    assert_int_equal(no, 4);
    assert_int_equal(nv, total_v);
    assert_int_equal(nf, 2 * 81);
    assert_int_equal(nl, total_l);
    assert_int_equal(max_idx, total_v); /* the string's last node is the file's last vertex */
    drape_world_destroy(w);
  }
  drape_scene_free(&s);
}

/* The world adds nothing to the physics: its cloth is the sim's alone and
 * its string the string solver's alone, bit for bit. The scene is freed
 * right after the world is made (ASan would see a use of it). */
static void test_same_bits_as_alone(void **state) {
  (void)state;
  drape_scene s;
  scene_everything(&s);
  drape_world *w = make_world(&s, DRAPE_BACKEND_CPU);
  drape_scene s2; /* the solvers alone, from a second copy of the scene */
  scene_everything(&s2);
  drape_scene_free(&s);
  drape_scene cloth_only = s2;
  cloth_only.n_rope = 1; /* the explicit rope only; the implicit one is the world's */
  cloth_only.n_string = 0;
  drape_sim *sim = make_sim(&cloth_only, DRAPE_BACKEND_CPU);
  drape_string_params p;
  drape_string *str = NULL;
  drape_err e = {0};
  assert_int_equal(drape_string_params_from_def(&s2.string[0], s2.gravity, &p, &e), 0);
  assert_int_equal(drape_string_create(&p, &str, &e), 0);
  for (int f = 1; f <= 30; f++) {
    assert_int_equal(drape_world_step(w, &e), 0);
    assert_int_equal(drape_sim_step(sim, &e), 0);
    assert_int_equal(drape_string_advance_scripted(str, &s2.string[0], f * s2.dt, &e), 0);
  }
  float *a = malloc(sizeof(float) * 3 * 100), *x = read_x(sim);
  assert_int_equal(drape_world_read_points(w, 0, a, &e), 0);
  for (int i = 0; i < 100; i++)
    for (int q = 0; q < 3; q++) assert_memory_equal(&a[3 * i + q], &x[4 * i + q], sizeof(float));
  float b[3 * 21];
  assert_int_equal(drape_world_read_points(w, 3, b, &e), 0);
  const double *r = drape_string_positions(str);
  for (int i = 0; i < 21; i++) {
    assert_true((float)r[2 * i] == b[3 * i]);
    assert_true((float)r[2 * i + 1] == b[3 * i + 1]);
  }
  assert_ptr_equal(drape_world_string(w, 0) != NULL, 1);
  assert_int_equal(drape_world_string_count(w), 1);
  free(a);
  free(x);
  drape_string_destroy(str);
  drape_sim_destroy(sim);
  drape_world_destroy(w);
  drape_scene_free(&s2);
}

/* A divergence stops every object at the last good frame; the OBJ of it
 * is refused; a reset clears it and the world runs again. */
static void test_divergence_stops_world(void **state) {
  (void)state;
  drape_scene s;
  scene_everything(&s);
  setenv("DRAPE_FAULT_NAN", "4", 1);
  for (int b = 0; b < 2; b++) {
    drape_world *w = make_world(&s, b ? DRAPE_BACKEND_CL : DRAPE_BACKEND_CPU);
    drape_err e = {0};
    for (int f = 1; f <= 3; f++) assert_int_equal(drape_world_step(w, &e), 0);
    assert_int_equal(drape_world_step(w, &e), DRAPE_EUNSTABLE);
    assert_non_null(strstr(e.msg, "cloth \"sheet\" diverged at frame 4"));
    assert_int_equal(drape_world_frame(w), 3);
    drape_err e2 = {0};
    assert_int_equal(drape_world_step(w, &e2), DRAPE_EUNSTABLE);
    assert_string_equal(e2.msg, e.msg);
    char path[4096];
    snprintf(path, sizeof path, "%s/nan.obj", drape_test_tmpdir("world-nan"));
    assert_int_equal(drape_world_write_obj(w, path, &e2), DRAPE_EUNSTABLE);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(drape_world_reset(w, &e2), 0);
    assert_int_equal(drape_world_frame(w), 0);
    assert_int_equal(drape_world_step(w, &e2), 0);
    drape_world_destroy(w);
  }
  unsetenv("DRAPE_FAULT_NAN");
  drape_scene_free(&s);
}

/* Pick, grab and move through the world's (object, point) numbering. */
static void test_pick_grab_move(void **state) {
  (void)state;
  drape_scene s;
  scene_everything(&s);
  drape_world *w = make_world(&s, DRAPE_BACKEND_CPU);
  drape_scene_free(&s);
  drape_err e = {0};
  assert_int_equal(drape_world_step(w, &e), 0);
  /* a ray straight down onto a sheet node (the sheet's nodes lie at odd
   * multiples of 1 cm; the rope runs along z = 0 at y = 2, 5 cm away) */
  const double o[3] = {0.01, 3.0, 0.05}, d[3] = {0.0, -1.0, 0.0};
  int ob = -2, pt = -2;
  assert_int_equal(drape_world_pick(w, o, d, 0.03, &ob, &pt, &e), 0);
  assert_int_equal(ob, 0);
  assert_int_equal(pt, 7 * 10 + 5); /* row 7 (z = 0.05), col 5 (x = 0.01) */
  const double o2[3] = {0.0, 3.0, 0.0};
  assert_int_equal(drape_world_pick(w, o2, d, 0.001, &ob, &pt, &e), 0);
  assert_int_equal(ob, 1); /* the rope's middle node, right under it */
  assert_int_equal(pt, 6);
  const double far[3] = {5.0, 3.0, 5.0};
  assert_int_equal(drape_world_pick(w, far, d, 0.05, &ob, &pt, &e), 0);
  assert_int_equal(ob, -1);
  /* hold the sheet's corner point 0 at a target 10 cm above where it is */
  float x[3 * 100];
  assert_int_equal(drape_world_read_points(w, 0, x, &e), 0);
  const double target[3] = {x[0], x[1] + 0.1, x[2]};
  int gid = -1;
  assert_int_equal(drape_world_grab(w, 0, 0, target, &gid, &e), 0);
  for (int f = 0; f < 3; f++) assert_int_equal(drape_world_step(w, &e), 0);
  assert_int_equal(drape_world_read_points(w, 0, x, &e), 0);
  for (int q = 0; q < 3; q++) assert_near(x[q], target[q], 1e-6);
  assert_int_equal(drape_world_grab_release(w, gid, &e), 0);
  /* the cable and bad points are refused by name */
  assert_int_equal(drape_world_grab(w, 2, 0, target, &gid, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "\"cable\""));
  assert_int_equal(drape_world_grab(w, 0, 100, target, &gid, &e), DRAPE_EINVAL);
  assert_non_null(strstr(e.msg, "points 0..99"));
  /* a moved sphere is where it was put */
  const double c[3] = {0.3, 0.2, -0.1}, v[3] = {0, 0, 0};
  assert_int_equal(drape_world_move_sphere(w, 0, c, v, &e), 0);
  drape_sphere_def sd;
  assert_int_equal(drape_sim_get_sphere(drape_world_sim(w), 0, &sd), 0);
  for (int q = 0; q < 3; q++) assert_near(sd.center[q], c[q], 0);
  drape_world_destroy(w);
}

/* Zero means default; a bad scene is refused by the one validator. */
static void test_def_and_validation(void **state) {
  (void)state;
  drape_world_def zero;
  memset(&zero, 0, sizeof zero);
  drape_world_def d = drape_world_def_default();
  assert_memory_equal(&zero, &d, sizeof d);
  drape_scene s;
  scene_sphere_drop(&s, 8, 0.95);
  s.cloth[0].mass_per_area = -1;
  drape_world *w = NULL;
  drape_err e = {0};
  assert_int_equal(drape_world_create(&s, NULL, &w, &e), DRAPE_EINVAL);
  assert_null(w);
  assert_non_null(strstr(e.msg, "mass_per_area"));
  drape_scene_free(&s);
  assert_int_equal(drape_world_load("/no/such/scene.json", NULL, &w, &e), DRAPE_EINVAL);
  assert_null(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_objects_and_obj),
      cmocka_unit_test(test_same_bits_as_alone),
      cmocka_unit_test(test_divergence_stops_world),
      cmocka_unit_test(test_pick_grab_move),
      cmocka_unit_test(test_def_and_validation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
