/* Self-collision passes (issue 4): the physics of one pass on small
 * configurations with known answers (separation to d, inverse-mass
 * weighting, the rest-distance rule, rope rules, friction, the velocity
 * clamp, vertex-triangle push-out to the side the vertex came from with the
 * correction shared by barycentric weights and momentum conserved), the
 * OpenCL stage against the CPU reference on a crumpled two-layer cloth, and
 * determinism (two runs give the same bits). */
#include "selfcol_fixture.h"

static drape_cl g_cl;
static int setup(void **state) { (void)state; return sc_cl_setup(&g_cl); }
static int teardown(void **state) { (void)state; drape_cl_release(&g_cl); return 0; }

static double dist3(dr_float4 a, dr_float4 b) {
  double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
  return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Runs the whole stage once on the CPU and on the device (colliders col,
 * may be NULL); returns the CPU result in w->x and checks the device result
 * agrees within tol. */
static void run_both_col(sc_world *w, double tol, const selfcol_colliders *col) {
  selfcol_desc d = sc_desc(w);
  sc_dev dev;
  sc_dev_upload(&g_cl, w, &dev);
  cl_mem sph = col && col->n_spheres
                   ? sc_buf(&g_cl, col->spheres, sizeof(dr_sphere) * (size_t)col->n_spheres)
                   : NULL;
  selfcol_cl g;
  SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
  SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, col, sph, e));
  if (sph) clReleaseMemObject(sph);
  dr_float4 *gx = calloc((size_t)w->n, sizeof *gx);
  sc_read(&g_cl, dev.x, gx, (size_t)w->n * sizeof *gx);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  selfcol_cpu_run(&c, w->x, w->p, w->tris, col);
  for (int i = 0; i < w->n; i++) assert_true(dist3(gx[i], w->x[i]) <= tol);
  free(gx);
  selfcol_cpu_destroy(&c);
  selfcol_cl_destroy(&g);
  sc_dev_free(&dev);
}

static void run_both(sc_world *w, double tol) { run_both_col(w, tol, NULL); }

/* Two particles of one cloth, 0.4 t apart, rest far apart: pushed to t,
 * each by its inverse-mass share, centre of mass kept. */
static void test_particle_pair_separates(void **state) {
  (void)state;
  const float t = 0.01f;
  const float ws[2][2] = {{1.0f, 1.0f}, {1.0f, 3.0f}};
  for (int k = 0; k < 2; k++) {
    sc_world w;
    sc_world_alloc(&w, 2, 0);
    w.nobj = 1;
    w.objects[0] = sc_cloth(t, 0.0f, 1);
    w.x[0] = (dr_float4){0.1f, 0.5f, 0.2f, ws[k][0]};
    w.x[1] = (dr_float4){0.1f + 0.4f * t, 0.5f, 0.2f, ws[k][1]};
    w.rest[1] = (dr_float4){1.0f, 0, 0, 0};
    memcpy(w.p, w.x, 2 * sizeof *w.x);
    dr_float4 x0 = w.x[0], x1 = w.x[1];
    run_both(&w, 1e-7);
    assert_near(dist3(w.x[0], w.x[1]), t, 1e-6);
    /* displacements in the ratio of inverse masses, opposite */
    double d0 = w.x[0].x - x0.x, d1 = w.x[1].x - x1.x;
    assert_near(d0 / ws[k][0], -d1 / ws[k][1], 1e-7);
    assert_true(d0 < 0 && d1 > 0);
    assert_near(w.x[0].y, 0.5, 1e-7);
    sc_world_free(&w);
  }
}

/* Rest rule: particles of one object closer than t at rest only keep their
 * rest distance; farther than at rest: untouched. */
static void test_particle_rest_rule(void **state) {
  (void)state;
  const float t = 0.01f;
  sc_world w;
  sc_world_alloc(&w, 4, 0);
  w.nobj = 1;
  w.objects[0] = sc_cloth(t, 0.0f, 1);
  /* pair A: rest 0.4t, now 0.2t -> pushed to 0.4t */
  w.x[0] = (dr_float4){0, 0, 0, 1};
  w.x[1] = (dr_float4){0.2f * t, 0, 0, 1};
  w.rest[0] = (dr_float4){0, 0, 0, 0};
  w.rest[1] = (dr_float4){0.4f * t, 0, 0, 0};
  /* pair B (far away): rest 0.4t, now 0.5t -> untouched */
  w.x[2] = (dr_float4){1, 0, 0, 1};
  w.x[3] = (dr_float4){1 + 0.5f * t, 0, 0, 1};
  w.rest[2] = (dr_float4){1, 0, 0, 0};
  w.rest[3] = (dr_float4){1 + 0.4f * t, 0, 0, 0};
  memcpy(w.p, w.x, 4 * sizeof *w.x);
  run_both(&w, 1e-7);
  assert_near(dist3(w.x[0], w.x[1]), 0.4 * t, 1e-6);
  assert_near(dist3(w.x[2], w.x[3]), 0.5 * t, 1e-7);
  assert_near(w.x[2].x, 1.0, 0.0);
  sc_world_free(&w);
}

/* Ropes meet cloth (at the mean thickness) but not other ropes. */
static void test_rope_rules(void **state) {
  (void)state;
  const float tc = 0.01f, tr = 0.02f;
  sc_world w;
  sc_world_alloc(&w, 4, 0);
  w.nobj = 3;
  w.objects[0] = sc_cloth(tc, 0.0f, 1);
  w.objects[1] = (selfcol_object){tr, 0.0f, 1, 1, 0, 0.0f, 0, NULL, 1};
  w.objects[2] = (selfcol_object){tr, 0.0f, 1, 1, 0, 0.0f, 0, NULL, 1};
  /* rope 1 node vs rope 2 node, 0.5 tr apart: untouched */
  w.x[0] = (dr_float4){0, 0, 0, 1}; w.obj[0] = 1;
  w.x[1] = (dr_float4){0.5f * tr, 0, 0, 1}; w.obj[1] = 2;
  /* cloth particle vs rope node, 0.3 tc apart: pushed to (tc + tr) / 2 */
  w.x[2] = (dr_float4){2, 0, 0, 1}; w.obj[2] = 0;
  w.x[3] = (dr_float4){2, 0.3f * tc, 0, 1}; w.obj[3] = 1;
  for (int i = 0; i < 4; i++) w.rest[i] = (dr_float4){(float)i * 10, 0, 0, 0};
  memcpy(w.p, w.x, 4 * sizeof *w.x);
  run_both(&w, 1e-7);
  assert_near(dist3(w.x[0], w.x[1]), 0.5 * tr, 1e-7);
  assert_near(dist3(w.x[2], w.x[3]), 0.5 * (tc + tr), 1e-6);
  sc_world_free(&w);
}

/* Friction: two particles in contact sliding past each other by less than
 * mu·depth in this substep stick (relative tangential motion removed);
 * with mu = 0 they keep sliding. */
static void test_particle_friction(void **state) {
  (void)state;
  const float t = 0.01f;
  for (int k = 0; k < 2; k++) {
    float mu = k == 0 ? 5.0f : 0.0f;
    sc_world w;
    sc_world_alloc(&w, 2, 0);
    w.nobj = 1;
    w.objects[0] = sc_cloth(t, mu, 1);
    w.x[0] = (dr_float4){0, 0, 0, 1};
    w.x[1] = (dr_float4){0, 0.8f * t, 0, 1};
    w.p[0] = (dr_float4){-0.05f * t, 0, 0, 1}; /* moved +x by 0.05 t */
    w.p[1] = (dr_float4){0.05f * t, 0.8f * t, 0, 1}; /* moved -x by 0.05 t */
    w.rest[1] = (dr_float4){5, 0, 0, 0};
    run_both(&w, 1e-7);
    double rel = ((double)w.x[0].x - w.p[0].x) - ((double)w.x[1].x - w.p[1].x);
    if (k == 0) assert_near(rel, 0.0, 1e-8);
    else assert_near(rel, 0.1 * t, 1e-8);
    assert_near(w.x[1].y - w.x[0].y, t, 1e-6); /* normal part: separated to t */
    sc_world_free(&w);
  }
}

/* Velocity clamp: a colliding particle that moved 3t in a substep is
 * brought back to SELFCOL_CLAMP·t along the same direction; pinned ones and
 * ones that take no part are left alone. */
static void test_velocity_clamp(void **state) {
  (void)state;
  const float t = 0.01f;
  sc_world w;
  sc_world_alloc(&w, 3, 0);
  w.nobj = 2;
  w.objects[0] = sc_cloth(t, 0.0f, 1);
  w.objects[1] = sc_cloth(t, 0.0f, 1);
  w.objects[1].enabled = 0;
  for (int i = 0; i < 3; i++) {
    w.p[i] = (dr_float4){(float)i, 1, 0, 1};
    w.x[i] = (dr_float4){(float)i + 1.8f * t, 1 - 2.4f * t, 0, 1}; /* |d| = 3t */
    w.rest[i] = (dr_float4){(float)i * 3, 0, 0, 0};
  }
  w.x[1].w = w.p[1].w = 0.0f; /* pinned */
  w.obj[2] = 1;               /* no self-collision */
  run_both(&w, 0.0);
  assert_near(dist3(w.x[0], w.p[0]), SELFCOL_CLAMP * t, 1e-7);
  assert_near((w.x[0].x - w.p[0].x) / (w.p[0].y - w.x[0].y), 0.75, 1e-5); /* direction kept */
  assert_near(dist3(w.x[1], w.p[1]), 3 * t, 1e-6);
  assert_near(dist3(w.x[2], w.p[2]), 3 * t, 1e-6);
  sc_world_free(&w);
}

/* One triangle (object 0) in the plane y = 0 and one vertex (object 1)
 * that started 0.2 t above it (came from above), now 0.25 t below it (a
 * move of 0.45 t, under the clamp), over
 * the barycentric point (0.2, 0.3, 0.5). After the pass the vertex is on
 * its own side at distance t, the corners moved opposite by their weights
 * and the momentum sum (1/w)·Δx is zero. With the start below, the vertex
 * goes back below. */
static void test_vertex_triangle_pushes_back(void **state) {
  (void)state;
  const float t = 0.01f;
  /* the pass's own push (with the step bounds the vertex, 0.2 t off the
   * triangle at the start, may move 0.08 t: test_selfcol_bound) */
  sc_bound_off = 1;
  for (int from_above = 1; from_above >= 0; from_above--) {
    sc_world w;
    sc_world_alloc(&w, 4, 1);
    w.nobj = 2;
    w.objects[0] = sc_cloth(t, 0.0f, 1);
    w.objects[1] = sc_cloth(t, 0.0f, 1);
    const float S = 0.03f; /* 3 t, like the coarse test cloths */
    w.x[0] = (dr_float4){0, 0, 0, 1.0f};
    w.x[1] = (dr_float4){S, 0, 0, 2.0f};
    w.x[2] = (dr_float4){0, 0, S, 0.5f};
    w.tris[0] = 0; w.tris[1] = 2; w.tris[2] = 1; /* normal +y */
    const float b[3] = {0.2f, 0.3f, 0.5f};
    float qx = b[2] * S, qz = b[1] * S; /* x: weight of particle 1, z: of 2 */
    float y1 = from_above ? -0.25f * t : 0.25f * t, y0 = from_above ? 0.2f * t : -0.2f * t;
    w.x[3] = (dr_float4){qx, y1, qz, 1.5f};
    w.obj[3] = 1;
    memcpy(w.p, w.x, 4 * sizeof *w.x);
    w.p[3].y = y0;
    for (int i = 0; i < 4; i++) w.rest[i] = w.x[i];
    w.rest[3].x = 7.0f;
    dr_float4 x0[4];
    memcpy(x0, w.x, sizeof x0);
    run_both(&w, 1e-7);
    /* all moves are along y: the gap between the vertex and the moved
     * triangle at the same barycentric point is the thickness */
    double ytri = b[0] * (double)w.x[0].y + b[1] * (double)w.x[2].y + b[2] * (double)w.x[1].y;
    assert_near(w.x[3].y - ytri, from_above ? t : -t, 1e-6);
    for (int i = 0; i < 4; i++) {
      assert_near(w.x[i].x, x0[i].x, 0.0);
      assert_near(w.x[i].z, x0[i].z, 0.0);
    }
    /* momentum: sum of m Δx = 0 */
    for (int k = 0; k < 3; k++) {
      double mom = 0;
      for (int i = 0; i < 4; i++) {
        const float *xi = &w.x[i].x, *x0i = &x0[i].x;
        mom += ((double)xi[k] - x0i[k]) / x0[i].w;
      }
      assert_near(mom, 0.0, 1e-9);
    }
    /* corner k moved by -b_k w_k J: displacement / (b_k w_k) equal for all */
    const int corner_of[3] = {0, 2, 1}; /* triangle (0, 2, 1): weights b0, b1, b2 */
    double ref = 0;
    for (int k = 0; k < 3; k++) {
      int i = corner_of[k];
      double dy = (double)w.x[i].y - x0[i].y;
      double r = dy / ((double)b[k] * x0[i].w);
      if (k == 0) ref = r;
      else assert_near(r, ref, 1e-4 * fabs(ref));
      assert_true(from_above ? dy < 0 : dy > 0);
    }
    sc_world_free(&w);
  }
  sc_bound_off = 0;
}

/* Support: a triangle resting on the floor (or on a sphere) does not give
 * way to a vertex that sank into it from above; the vertex alone goes back
 * to one thickness above it. Without colliders both move. */
static void test_support_by_colliders(void **state) {
  (void)state;
  const float t = 0.01f, S = 0.03f;
  for (int mode = 0; mode < 3; mode++) { /* floor, sphere, none */
    sc_world w;
    sc_world_alloc(&w, 4, 1);
    w.nobj = 2;
    w.objects[0] = sc_cloth(t, 0.0f, 1);
    w.objects[1] = sc_cloth(t, 0.0f, 1);
    const float y0 = t; /* resting on the floor at y = 0 with its margin */
    w.x[0] = (dr_float4){0, y0, 0, 1};
    w.x[1] = (dr_float4){S, y0, 0, 1};
    w.x[2] = (dr_float4){0, y0, S, 1};
    w.tris[0] = 0; w.tris[1] = 2; w.tris[2] = 1;
    w.x[3] = (dr_float4){0.3f * S, y0 + 0.6f * t, 0.3f * S, 1}; w.obj[3] = 1;
    memcpy(w.p, w.x, sizeof(dr_float4) * 4);
    w.p[3].y = y0 + 1.0f * t;
    for (int i = 0; i < 4; i++) w.rest[i] = (dr_float4){(float)i, 5, 0, 0};
    /* a big sphere whose top is the floor's plane y = 0 at the triangle */
    dr_sphere sph = {{0.01f, -10.0f, 0.01f, 10.0f}, {0, 0, 0, 0.3f}};
    selfcol_colliders col = {mode == 0, 0.0f, mode == 1, &sph, 0.0f};
    dr_float4 x0[4];
    memcpy(x0, w.x, sizeof x0);
    run_both_col(&w, 1e-7, mode < 2 ? &col : NULL);
    if (mode < 2) {
      for (int i = 0; i < 3; i++) assert_memory_equal(&w.x[i], &x0[i], sizeof x0[i]);
      assert_near(w.x[3].y - y0, t, 1e-6);
    } else {
      assert_true(w.x[0].y < y0);
      assert_true(w.x[3].y - y0 < t);
    }
    sc_world_free(&w);
  }
}

/* Particle mode and torn triangles: a vertex 0.5 t over the middle of a
 * triangle whose cloth is in particle mode, or over a torn (degenerate)
 * triangle, gets no vertex-triangle contact (and is far from the corners,
 * so the particle pass leaves it too); the same triangle in the default
 * mode pushes it to t. */
static void test_modes_and_torn(void **state) {
  (void)state;
  const float t = 0.01f, S = 0.03f;
  for (int c = 0; c < 3; c++) { /* vertex-triangle, particle mode, torn */
    sc_world w;
    sc_world_alloc(&w, 4, 1);
    w.nobj = 2;
    w.objects[0] = sc_cloth(t, 0.0f, c != 1);
    w.objects[1] = sc_cloth(t, 0.0f, 1);
    w.x[0] = (dr_float4){0, 0, 0, 1};
    w.x[1] = (dr_float4){S, 0, 0, 1};
    w.x[2] = (dr_float4){0, 0, S, 1};
    if (c == 2) { w.tris[0] = w.tris[1] = w.tris[2] = 0; }
    else { w.tris[0] = 0; w.tris[1] = 2; w.tris[2] = 1; }
    w.x[3] = (dr_float4){S / 3, 0.5f * t, S / 3, 1}; w.obj[3] = 1;
    memcpy(w.p, w.x, sizeof(dr_float4) * 4);
    for (int i = 0; i < 4; i++) w.rest[i] = (dr_float4){(float)i, 5, 0, 0};
    dr_float4 x0[4];
    memcpy(x0, w.x, sizeof x0);
    run_both(&w, 1e-7);
    if (c == 0) {
      double ytri = (w.x[0].y + w.x[1].y + w.x[2].y) / 3.0;
      assert_near(w.x[3].y - ytri, t, 1e-6);
    } else {
      assert_memory_equal(w.x, x0, sizeof x0);
    }
    sc_world_free(&w);
  }
}

/* A vertex of the triangle itself, and a vertex of the same cloth that is
 * as close as at rest, get no contact. */
static void test_vertex_triangle_skips_own(void **state) {
  (void)state;
  const float t = 0.01f;
  sc_world w;
  sc_world_alloc(&w, 4, 1);
  w.nobj = 1;
  w.objects[0] = sc_cloth(t, 0.0f, 1);
  w.x[0] = (dr_float4){0, 0, 0, 1};
  w.x[1] = (dr_float4){0.03f, 0, 0, 1};
  w.x[2] = (dr_float4){0, 0, 0.03f, 1};
  w.x[3] = (dr_float4){0.01f, 0.5f * t, 0.01f, 1};
  w.tris[0] = 0; w.tris[1] = 2; w.tris[2] = 1;
  memcpy(w.p, w.x, sizeof(dr_float4) * 4);
  memcpy(w.rest, w.x, sizeof(dr_float4) * 4); /* as close as at rest */
  dr_float4 x0[4];
  memcpy(x0, w.x, sizeof x0);
  run_both(&w, 0.0);
  assert_memory_equal(w.x, x0, sizeof x0);
  sc_world_free(&w);
}

/* Two 16x16 sheets (spacing 3t), the upper one crumpled into the lower
 * one: interpenetrating within the detection band, moving. */
static void make_layers(sc_world *w, int N, unsigned seed) {
  const float t = 0.01f, S = 0.03f;
  int n = 2 * N * N, nt = 2 * 2 * (N - 1) * (N - 1);
  sc_world_alloc(w, n, nt);
  w->nobj = 2;
  w->objects[0] = sc_cloth(t, 0.3f, 1);
  w->objects[1] = sc_cloth(t, 0.3f, 1);
  for (int L = 0; L < 2; L++)
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) {
        int i = L * N * N + r * N + c;
        float jitter = 0.9f * t * (sc_rand(&seed) - 0.5f);
        float y = L == 0 ? 0.0f : 0.4f * t * sinf(0.7f * (float)r) + jitter;
        w->x[i] = (dr_float4){(float)c * S + (float)L * 0.5f * S, y, (float)r * S + (float)L * 0.37f * S,
                              r == 0 && c == 0 ? 0.0f : 1.0f + (float)(i % 3)};
        w->p[i] = w->x[i];
        /* the lower layer came from below, the upper from above both */
        w->p[i].y = L == 0 ? -0.2f * t * sc_rand(&seed) : 0.5f * t + 0.3f * t * sc_rand(&seed);
        w->p[i].x += 0.1f * t * (sc_rand(&seed) - 0.5f);
        w->rest[i] = (dr_float4){(float)c * S, 0, (float)r * S, 0};
        w->obj[i] = L;
      }
  sc_grid_tris(w->tris, sc_grid_tris(w->tris, 0, 0, N), N * N, N);
}

/* OpenCL vs CPU reference over 10 stages in a row (each starting where the
 * last ended, p = the previous x), and two device runs bit for bit, in
 * each kernel form (runs 0, 1: GPU form; 2, 3: vector form): all four
 * equal. */
static void test_cl_matches_cpu_and_repeats(void **state) {
  (void)state;
  sc_world w;
  make_layers(&w, 16, 5);
  const size_t bytes = (size_t)w.n * sizeof(dr_float4);
  dr_float4 *xs[4];
  for (int run = 0; run < 4; run++) {
    sc_kernel_form = sc_form(run / 2);
    selfcol_desc d = sc_desc(&w);
    sc_dev dev;
    sc_dev_upload(&g_cl, &w, &dev);
    selfcol_cl g;
    SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
    sc_check_form(&g);
    for (int k = 0; k < 10; k++) {
      if (k > 0) {
        cl_int rc = clEnqueueCopyBuffer(g_cl.queue, dev.x, dev.p, 0, 0, bytes, 0, NULL, NULL);
        assert_int_equal(rc, CL_SUCCESS);
      }
      SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, NULL, NULL, e));
      if (k == 0) { /* the layers start interpenetrating: many contacts */
        int contacts = 0;
        int *nvt = calloc((size_t)w.n, sizeof *nvt);
        sc_read(&g_cl, g.nvt, nvt, (size_t)w.n * sizeof *nvt);
        for (int i = 0; i < w.n; i++) contacts += nvt[i];
        assert_true(contacts > w.n / 4);
        free(nvt);
      }
    }
    xs[run] = malloc(bytes);
    sc_read(&g_cl, dev.x, xs[run], bytes);
    selfcol_cl_destroy(&g);
    sc_dev_free(&dev);
  }
  sc_kernel_form = 0;
  assert_memory_equal(xs[0], xs[1], bytes);
  assert_memory_equal(xs[2], xs[3], bytes);
  assert_memory_equal(xs[0], xs[2], bytes); /* GPU form = vector form */

  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  dr_float4 *x = malloc(bytes), *p = malloc(bytes), *x2 = malloc(bytes);
  for (int run = 0; run < 2; run++) {
    memcpy(x, w.x, bytes);
    memcpy(p, w.p, bytes);
    for (int k = 0; k < 10; k++) {
      if (k > 0) memcpy(p, x, bytes);
      selfcol_cpu_run(&c, x, p, w.tris, NULL);
    }
    if (run == 0) memcpy(x2, x, bytes);
  }
  assert_memory_equal(x, x2, bytes);
  /* Device vs reference: same expressions in the same order, and division
   * and sqrt rounded as in C (PoCL; -cl-fp32-correctly-rounded-divide-sqrt
   * where a device offers it): the same bits. */
  double worst = 0, moved = 0;
  for (int i = 0; i < w.n; i++) {
    double dd = dist3(xs[0][i], x[i]);
    if (dd > worst) worst = dd;
    double m = dist3(x[i], w.x[i]);
    if (m > moved) moved = m;
  }
  fprintf(stderr, "10 stages: largest move %.3g m, OpenCL - CPU %.3g m\n", moved, worst);
  assert_true(moved > 1e-3);  /* the stage did act */
  assert_true(worst == 0.0);
  free(x); free(p); free(x2);
  for (int run = 0; run < 4; run++) free(xs[run]);
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
}

/* After enough stages the two layers of make_layers are separated: no
 * vertex of one is closer than 0.9 t to a triangle of the other. */
static void test_layers_separate(void **state) {
  (void)state;
  const float t = 0.01f;
  sc_world w;
  make_layers(&w, 12, 9);
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  size_t bytes = (size_t)w.n * sizeof(dr_float4);
  for (int k = 0; k < 60; k++) {
    if (k > 0) memcpy(w.p, w.x, bytes);
    selfcol_cpu_run(&c, w.x, w.p, w.tris, NULL);
  }
  double best = 1e9;
  for (int q = 0; q < w.n; q++)
    for (int k = 0; k < w.nt; k++) {
      const dr_uint *tr = &w.tris[3 * k];
      if (w.obj[tr[0]] == w.obj[q]) continue;
      float a[3] = {w.x[tr[0]].x, w.x[tr[0]].y, w.x[tr[0]].z};
      float b[3] = {w.x[tr[1]].x, w.x[tr[1]].y, w.x[tr[1]].z};
      float cc[3] = {w.x[tr[2]].x, w.x[tr[2]].y, w.x[tr[2]].z};
      float qq[3] = {w.x[q].x, w.x[q].y, w.x[q].z}, bary[3];
      selfcol_closest(qq, a, b, cc, bary);
      double dd = 0;
      for (int m = 0; m < 3; m++) {
        double pm = a[m] * (double)bary[0] + b[m] * (double)bary[1] + cc[m] * (double)bary[2];
        dd += (qq[m] - pm) * (qq[m] - pm);
      }
      if (sqrt(dd) < best) best = sqrt(dd);
    }
  fprintf(stderr, "layers after 60 stages: closest vertex-triangle %.4g t\n", best / t);
  assert_true(best >= 0.9 * t);
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
}

/* The particle pass runs only where the vertex-triangle pass does not
 * cover every pair (selfcol_tables.particles): cloths in vertex-triangle
 * mode skip it, with or without step bounds; a cloth in particle mode, a
 * rope or a particle in no triangle brings it back. Without it, a vertex laid 0.2 t over another
 * vertex of its own sheet (two rows away, coming from above) is still
 * pushed out to the thickness in one stage, by that vertex's triangles. */
static float pressed_vertex_gap(int particle_pass, int *ran) {
  const float t = 0.01f, S = 0.03f;
  const int N = 6, q = 2 * N + 2, k = 4 * N + 2;
  sc_world w;
  sc_flat_sheet(&w, N, S, t, 0.0f);
  w.x[q] = (dr_float4){w.x[k].x, 0.2f * t, w.x[k].z, 1.0f};
  memcpy(w.p, w.x, (size_t)w.n * sizeof *w.x);
  w.p[q].y = 0.6f * t; /* it came from above */
  selfcol_set_particle_pass(particle_pass);
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  SC_OK(selfcol_cpu_create(&d, &c, e));
  selfcol_set_particle_pass(0);
  *ran = c.tb.particles;
  selfcol_cpu_run(&c, w.x, w.p, w.tris, NULL);
  const float gap = (float)dist3(w.x[q], w.x[k]);
  assert_true(w.x[q].y > w.x[k].y); /* still above */
  selfcol_cpu_destroy(&c);
  sc_world_free(&w);
  return gap;
}

static void test_particle_pass_when_needed(void **state) {
  (void)state;
  const float t = 0.01f;
  int ran = -1;
  sc_bound_off = 1; /* free motion: the step bounds would hold the vertex near its start */
  const float skip = pressed_vertex_gap(0, &ran);
  assert_int_equal(ran, 0);
  const float both = pressed_vertex_gap(1, &ran);
  assert_int_equal(ran, 1);
  fprintf(stderr, "vertex pressed 0.2 t onto its sheet: %.3f t apart after the stage without the "
          "particle pass, %.3f t with it\n", (double)(skip / t), (double)(both / t));
  /* from 0.2 t to the thickness in one stage (with both passes it goes
   * beyond: each pushes it out) */
  assert_true(skip >= 0.95f * t && skip <= 1.05f * t);
  assert_true(both >= 0.95f * t);
  /* which scenes need it */
  for (int k = 0; k < 5; k++) {
    sc_world w;
    make_layers(&w, 6, 3);
    sc_bound_off = k != 4; /* k = 4: with the step bounds, which no longer need it */
    if (k == 1) w.objects[1] = sc_cloth(t, 0.3f, 0); /* particle mode */
    if (k == 2) w.objects[1].rope = 1;
    if (k == 3) w.nt -= 2; /* the last quad gone: its far corner is in no triangle */
    selfcol_desc d = sc_desc(&w);
    selfcol_tables tb;
    SC_OK(selfcol_tables_build(&d, &tb, e));
    assert_int_equal(tb.particles, k != 0 && k != 4);
    selfcol_tables_free(&tb);
    sc_world_free(&w);
  }
  sc_bound_off = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_particle_pass_when_needed),
      cmocka_unit_test(test_particle_pair_separates),
      cmocka_unit_test(test_particle_rest_rule),
      cmocka_unit_test(test_rope_rules),
      cmocka_unit_test(test_particle_friction),
      cmocka_unit_test(test_velocity_clamp),
      cmocka_unit_test(test_vertex_triangle_pushes_back),
      cmocka_unit_test(test_vertex_triangle_skips_own),
      cmocka_unit_test(test_support_by_colliders),
      cmocka_unit_test(test_modes_and_torn),
      cmocka_unit_test(test_cl_matches_cpu_and_repeats),
      cmocka_unit_test(test_layers_separate),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
