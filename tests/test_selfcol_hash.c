/* Self-collision spatial hashes (issue 4): the parallel prefix sum, and that
 * every pair found by brute force within d is found through the hash —
 * random particle sets and triangle soups of several sizes, on the OpenCL
 * device (PoCL here) and in the CPU reference; the device's sorted buckets
 * equal the reference's entry for entry. */
#include "selfcol_fixture.h"

static drape_cl g_cl;
static int setup(void **state) { (void)state; return sc_cl_setup(&g_cl); }
static int teardown(void **state) { (void)state; drape_cl_release(&g_cl); return 0; }

/* ---- the scan ---- */
/* Both forms of the device scan (the work-group scan GPUs get and the
 * chunked one CPU devices get; kernels/hash.cl), whichever this device
 * would pick, against a serial prefix sum. */
static void test_scan_matches_serial(void **state) {
  (void)state;
  const size_t sizes[] = {1, 2, 255, 256, 257, 511, 512, 513, 1023, 1025, 70001, 300000};
  unsigned seed = 11;
  for (int form = 0; form < 2; form++)
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    uint32_t *d = malloc(n * sizeof *d), *ref = malloc(n * sizeof *ref);
    assert_non_null(d);
    assert_non_null(ref);
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
      d[i] = (uint32_t)(sc_rand(&seed) * 9.0f); /* 0..8, like bucket counts */
      ref[i] = acc;
      acc += d[i];
    }
    uint32_t total = 0;
    SC_OK(selfcol_cl_scan_host_form(&g_cl, d, n, &total, form, e));
    assert_int_equal(total, acc);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += d[i] != ref[i];
    if (bad) fprintf(stderr, "%s scan, n = %zu: %zu wrong prefix sums\n",
                     form ? "chunked" : "work-group", n, bad);
    assert_int_equal(bad, 0);
    free(d);
    free(ref);
  }
}

/* ---- particles ---- */

/* n particles of one cloth in a cube of side L (or a tight cluster); rest
 * positions far apart so that d = thickness for every pair. */
static void make_particles(sc_world *w, int n, float t, float L, unsigned seed, float off) {
  sc_world_alloc(w, n, 0);
  w->nobj = 1;
  w->objects[0] = sc_cloth(t, 0.0f, 0);
  for (int i = 0; i < n; i++) {
    w->x[i] = (dr_float4){off + L * sc_rand(&seed) - 0.3f, off + L * sc_rand(&seed) + 0.7f,
                          -off + L * sc_rand(&seed) - 0.5f * L, 1.0f};
    w->p[i] = w->x[i];
    w->rest[i] = (dr_float4){(float)i * 10.0f * t, 0.0f, 0.0f, 0.0f};
  }
}

/* Brute force: for each particle, the number of others closer than d (same
 * float expression as the pass, so the comparison is exact). */
static int *brute_pairs(const sc_world *w, float d, long *total) {
  int *c = calloc((size_t)w->n, sizeof *c);
  assert_non_null(c);
  *total = 0;
  for (int i = 0; i < w->n; i++)
    for (int j = 0; j < w->n; j++) {
      if (i == j) continue;
      float dx = w->x[i].x - w->x[j].x, dy = w->x[i].y - w->x[j].y, dz = w->x[i].z - w->x[j].z;
      float l2 = dx * dx + dy * dy + dz * dz;
      if (l2 < d * d && l2 != 0.0f) {
        c[i]++;
        (*total)++;
      }
    }
  return c;
}

static void check_particle_set(int n, float L, unsigned seed, float off) {
  const float t = 0.01f;
  sc_world w;
  make_particles(&w, n, t, L, seed, off);
  long total = 0;
  int *bf = brute_pairs(&w, t, &total);
  selfcol_desc d = sc_desc(&w);
  d.cap_p = 1 << 20; /* every pair: the caps have their own tests (test_selfcol_caps) */

  /* CPU reference */
  selfcol_cpu cpu;
  SC_OK(selfcol_cpu_create(&d, &cpu, e));
  cpu.tb.cap_n = 1u << 20; /* and every contact */
  cpu_selfcol_clamp(&cpu, w.x, w.p, NULL); /* p = x: fills the pass masses only */
  cpu_hash_particles(&cpu, w.x);
  cpu_selfcol_particles(&cpu, w.x, w.p);
  long missed = 0;
  for (int i = 0; i < n; i++) missed += labs((long)(bf[i] - cpu.ncon[i]));
  if (missed) fprintf(stderr, "CPU: n=%d: %ld of %ld pairs differ\n", n, missed, total);
  assert_int_equal(missed, 0);

  /* OpenCL */
  selfcol_cl g;
  sc_dev dev;
  sc_dev_upload(&g_cl, &w, &dev);
  SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
  sc_check_form(&g);
  g.tb.cap_n = 1u << 20;
  SC_OK(selfcol_cl_clamp(&g, dev.x, dev.p, NULL, NULL, e));
  SC_OK(selfcol_cl_hash_particles(&g, dev.x, e));
  SC_OK(selfcol_cl_particles(&g, dev.x, dev.p, e));
  int *ncon = calloc((size_t)n, sizeof *ncon);
  size_t B = (size_t)cpu.tb.mask_p + 1;
  uint32_t *start = calloc(B + 1, sizeof *start), *vals = calloc((size_t)n, sizeof *vals);
  sc_read(&g_cl, g.ncon, ncon, (size_t)n * sizeof *ncon);
  sc_read(&g_cl, g.pcount, start, (B + 1) * sizeof *start);
  sc_read(&g_cl, g.pvals, vals, (size_t)n * sizeof *vals);
  missed = 0;
  for (int i = 0; i < n; i++) missed += labs((long)(bf[i] - ncon[i]));
  if (missed) fprintf(stderr, "OpenCL: n=%d: %ld of %ld pairs differ\n", n, missed, total);
  assert_int_equal(missed, 0);
  /* the device's counting sort (atomics + scan + scatter + bucket sort)
   * equals the sequential one entry for entry */
  assert_memory_equal(start, cpu.pstart, (B + 1) * sizeof *start);
  assert_memory_equal(vals, cpu.pvals, (size_t)n * sizeof *vals);
  assert_int_equal(start[B], n);
  if (n >= 1000) assert_true(total > n / 4); /* the set has contacts to find */

  free(ncon);
  free(start);
  free(vals);
  free(bf);
  selfcol_cl_destroy(&g);
  sc_dev_free(&dev);
  selfcol_cpu_destroy(&cpu);
  sc_world_free(&w);
}

/* In both kernel forms (the GPU form's work-group scan and device-sized
 * groups, the vector form's chunked scan): the same entries, in the same
 * order, as the reference. */
static void test_particle_hash_finds_every_pair(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    sc_kernel_form = sc_form(k);
    /* side chosen for ~1-2 neighbours within t per particle */
    check_particle_set(10, 0.02f, 1, 0.0f);
    check_particle_set(300, 0.08f, 2, 0.0f);
    check_particle_set(3000, 0.17f, 3, 0.0f);
    check_particle_set(6000, 0.2f, 4, 0.0f);
    /* a tight cluster: large buckets, hundreds of neighbours each */
    check_particle_set(800, 0.025f, 5, 0.0f);
    /* far from the origin (negative cells, big coordinates) */
    check_particle_set(500, 0.1f, 6, -137.5f);
  }
  sc_kernel_form = 0;
}

/* ---- triangles ---- */

/* nt random triangles (object 1, their own three corners each, edges up to
 * ~3t) and nv free vertices (object 0) in a cube of side L. */
static void make_soup(sc_world *w, int nt, int nv, float t, float L, unsigned seed) {
  sc_world_alloc(w, nv + 3 * nt, nt);
  w->nobj = 2;
  w->objects[0] = sc_cloth(t, 0.0f, 1);
  w->objects[1] = sc_cloth(t, 0.0f, 1);
  for (int i = 0; i < nv; i++) {
    w->x[i] = (dr_float4){L * sc_rand(&seed), L * sc_rand(&seed), L * sc_rand(&seed), 1.0f};
    w->obj[i] = 0;
  }
  for (int k = 0; k < nt; k++) {
    float cx = L * sc_rand(&seed), cy = L * sc_rand(&seed), cz = L * sc_rand(&seed);
    for (int c = 0; c < 3; c++) {
      int i = nv + 3 * k + c;
      w->x[i] = (dr_float4){cx + 3.0f * t * (sc_rand(&seed) - 0.5f),
                            cy + 3.0f * t * (sc_rand(&seed) - 0.5f),
                            cz + 3.0f * t * (sc_rand(&seed) - 0.5f), 1.0f};
      w->obj[i] = 1;
      w->tris[3 * k + c] = (dr_uint)i;
    }
  }
  for (int i = 0; i < w->n; i++) {
    w->p[i] = w->x[i];
    /* object 0: rest far apart; object 1: rest = now, so its own vertices
     * never count as closer than at rest (the rest rule) */
    w->rest[i] = w->obj[i] == 0 ? (dr_float4){(float)i * 10.0f * t, -5.0f, 0.0f, 0.0f} : w->x[i];
  }
}

static int tri_hits(const sc_world *w, int q, float t, uint32_t *list) {
  int m = 0;
  float xq[3] = {w->x[q].x, w->x[q].y, w->x[q].z};
  for (int k = 0; k < w->nt; k++) {
    float a[3], b[3], c[3], bary[3];
    const dr_float4 *A = &w->x[w->tris[3 * k]], *B = &w->x[w->tris[3 * k + 1]],
                    *C = &w->x[w->tris[3 * k + 2]];
    a[0] = A->x; a[1] = A->y; a[2] = A->z;
    b[0] = B->x; b[1] = B->y; b[2] = B->z;
    c[0] = C->x; c[1] = C->y; c[2] = C->z;
    if (selfcol_closest(xq, a, b, c, bary) < 0) continue;
    float px = a[0] * bary[0] + b[0] * bary[1] + c[0] * bary[2];
    float py = a[1] * bary[0] + b[1] * bary[1] + c[1] * bary[2];
    float pz = a[2] * bary[0] + b[2] * bary[1] + c[2] * bary[2];
    float ex = xq[0] - px, ey = xq[1] - py, ez = xq[2] - pz;
    if (ex * ex + ey * ey + ez * ez < t * t) list[m++] = (uint32_t)k;
  }
  return m;
}

/* The k-th of `stretch` stretched triangles: the first ones, or with
 * `spread` spread over the index range, so that the wide bucket's
 * triangles fall between the cells' in the pass's merge by triangle index
 * (a contact list may end on one of them). */
static int soup_stretched(int k, int nt, int stretch, int spread) {
  return spread ? k * (nt / stretch) + nt / (2 * stretch) : k;
}

/* The soup's vertices against its triangles through the hash, on the CPU
 * reference and OpenCL (the same hash, the same contacts), against the
 * brute-force pairs; returns how many contacts were wrong (0 asserted when
 * `exact`). stretch: that many triangles (0, 1, ...) get one corner moved
 * across the cube after the rest shape was taken (wide: the wide bucket);
 * full_caps: every bucket read whole (else the default caps). */
static long soup_run(int nt, int nv, float L, unsigned seed, int stretch, int spread,
                     int full_caps, int exact) {
  const float t = 0.01f;
  const int K = SELFCOL_SLOTS;
  sc_world w;
  make_soup(&w, nt, nv, t, L, seed);
  for (int k = 0; k < stretch; k++) { /* rest stays the small triangle */
    dr_float4 *c = &w.x[w.tris[3 * soup_stretched(k, nt, stretch, spread)]];
    const float D = L > 0.2f ? L : 0.2f; /* wide even in a small, dense soup */
    c->x += k % 2 ? -D : D;
    c->y += 0.5f * D;
    w.p[w.tris[3 * soup_stretched(k, nt, stretch, spread)]] = *c;
  }
  selfcol_desc d = sc_desc(&w);
  if (full_caps) d.cap_t = d.cap_c = 1 << 20; /* every pair (caps: test_selfcol_caps) */
  selfcol_cpu cpu;
  SC_OK(selfcol_cpu_create(&d, &cpu, e));
  cpu_selfcol_clamp(&cpu, w.x, w.p, NULL);
  cpu_hash_triangles(&cpu, w.x, w.tris);
  cpu_selfcol_vertex_triangle(&cpu, w.x, w.p, w.tris);

  selfcol_cl g;
  sc_dev dev;
  sc_dev_upload(&g_cl, &w, &dev);
  SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
  sc_check_form(&g);
  SC_OK(selfcol_cl_clamp(&g, dev.x, dev.p, NULL, NULL, e));
  SC_OK(selfcol_cl_hash_triangles(&g, dev.x, dev.tris, e));
  SC_OK(selfcol_cl_vertex_triangle(&g, dev.x, dev.p, dev.tris, e));
  int *nvt = calloc((size_t)w.n, sizeof *nvt);
  uint32_t *rec_t = calloc((size_t)w.n * K, sizeof *rec_t), maxbits = 0;
  size_t B = (size_t)cpu.tb.mask_t + 1;
  /* the cells' buckets, then the wide bucket B */
  uint32_t *start = calloc(B + 2, sizeof *start), *vals = calloc(8 * (size_t)nt, sizeof *vals);
  sc_read(&g_cl, g.nvt, nvt, (size_t)w.n * sizeof *nvt);
  sc_read(&g_cl, g.rec_t, rec_t, (size_t)w.n * K * sizeof *rec_t);
  sc_read(&g_cl, g.maxbits, &maxbits, sizeof maxbits);
  /* the entries each vertex read (the bounded work's measure): the
   * kernel's scan eight entries at a time skips entries, never what
   * counts as read */
  uint32_t *vexam = calloc((size_t)w.n, sizeof *vexam);
  sc_read(&g_cl, g.vexam, vexam, (size_t)w.n * sizeof *vexam);
  assert_memory_equal(vexam, cpu.vexam, (size_t)w.n * sizeof *vexam);
  free(vexam);
  sc_read(&g_cl, g.tcount, start, (B + 2) * sizeof *start);
  assert_int_equal(maxbits, cpu.maxbits);
  assert_memory_equal(start, cpu.tstart, (B + 2) * sizeof *start);
  sc_read(&g_cl, g.tvals, vals, start[B + 1] * sizeof *vals);
  /* each bucket's front as far as the passes read it: a bucket over the
   * cap has only its cap smallest entries sorted (hash_sort_boxes), the
   * rest in the atomics' order (the soup with the wide bucket off has such
   * buckets) */
  for (size_t b = 0; b <= B; b++) {
    const uint32_t m = start[b + 1] - start[b], front = m < cpu.tb.cap_t ? m : cpu.tb.cap_t;
    assert_memory_equal(vals + start[b], cpu.tvals + start[b], front * sizeof *vals);
  }
  assert_true(start[B + 1] <= 8u * (uint32_t)nt);
  /* the wide bucket holds exactly the stretched triangles, in index order
   * (a soup triangle's box at rest is at most 3t + 2t wide, the limit
   * twice the widest, and the stretched ones span the cube), and none of
   * them sizes the cells */
  if (cpu.tb.wide_limit < 1.0e30f) {
    assert_int_equal(start[B + 1] - start[B], stretch);
    for (int k = 0; k < stretch; k++)
      assert_int_equal(vals[start[B] + (uint32_t)k], soup_stretched(k, nt, stretch, spread));
    float side;
    memcpy(&side, &maxbits, sizeof side);
    assert_true(side <= cpu.tb.wide_limit);
  } else {
    assert_int_equal(start[B + 1], start[B]);
  }

  uint32_t *list = calloc((size_t)nt, sizeof *list);
  long pairs = 0, wrong = 0, wide_pairs = 0, last_wide = 0;
  for (int q = 0; q < nv; q++) {
    int m = tri_hits(&w, q, t, list);
    pairs += m;
    for (int k = 0; k < m && k < K; k++)
      for (int j = 0; j < stretch; j++) {
        const int wide = list[k] == (uint32_t)soup_stretched(j, nt, stretch, spread);
        wide_pairs += wide;
        last_wide += wide && k == K - 1;
      }
    int want = m < K ? m : K; /* the first K in triangle order */
    if (cpu.nvt[q] != want || nvt[q] != want) {
      wrong++;
      continue;
    }
    for (int k = 0; k < want; k++)
      if (cpu.rec_t[q * K + k] != list[k] || rec_t[q * K + k] != list[k]) wrong++;
  }
  if (wrong && exact)
    fprintf(stderr, "soup %d tris / %d vertices: %ld wrong of %ld pairs\n", nt, nv, wrong, pairs);
  if (exact) assert_int_equal(wrong, 0);
  if (stretch > 0) assert_true(wide_pairs > 0); /* the stretched ones have contacts */
  /* spread: some vertex's K slots fill up on a stretched triangle (the
   * case where the entries read depend on the merge with the wide bucket) */
  if (spread) assert_true(last_wide > 0);
  if (nt >= 1000) assert_true(pairs > nv / 4);

  free(list);
  free(nvt);
  free(rec_t);
  free(start);
  free(vals);
  selfcol_cl_destroy(&g);
  sc_dev_free(&dev);
  selfcol_cpu_destroy(&cpu);
  sc_world_free(&w);
  return wrong;
}

static void check_soup(int nt, int nv, float L, unsigned seed) {
  soup_run(nt, nv, L, seed, 0, 0, 1, 1);
}

/* A few stretched triangles must not coarsen the hash for all (issue 18,
 * cost and contacts): each spans the cube, and with every triangle in
 * cells the cell would be as wide as they are, so the cube's 1,500
 * triangles would share a few buckets and the default cap of 128 entries
 * would drop most contacts. With the wide bucket the cells stay sized by
 * the others and every contact is found with the default caps, the
 * stretched triangles' too, in triangle order, the same on both backends.
 * Without it (selfcol_set_wide_off) the same soup loses contacts: the
 * check can fail. */
static void test_wide_triangles(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    sc_kernel_form = sc_form(k);
    assert_int_equal(soup_run(1500, 1500, 0.3f, 31, 3, 0, 0, 1), 0);
    assert_int_equal(soup_run(1500, 1500, 0.3f, 32, 1, 0, 0, 1), 0);
    /* dense, the stretched triangles spread over the index range: contact
     * lists fill their K slots, some ending on a wide triangle, and the
     * entries each vertex read must still be the CPU reference's (the
     * pass's scan eight entries at a time is off there: it failed this) */
    assert_int_equal(soup_run(600, 400, 0.05f, 24, 6, 1, 1, 1), 0);
    assert_int_equal(soup_run(1500, 600, 0.1f, 24, 9, 1, 1, 1), 0);
  }
  sc_kernel_form = 0;
  selfcol_set_wide_off(1);
  long lost = soup_run(1500, 1500, 0.3f, 31, 3, 0, 0, 0);
  selfcol_set_wide_off(0);
  fprintf(stderr, "without the wide bucket: %ld contacts wrong\n", lost);
  assert_true(lost > 100);
}

static void test_triangle_hash_finds_every_pair(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) { /* both kernel forms, as above */
    sc_kernel_form = sc_form(k);
    check_soup(20, 50, 0.05f, 21);
    check_soup(500, 1000, 0.2f, 22);
    check_soup(3000, 3000, 0.3f, 23);
    /* dense: vertices touch many triangles (the K-slot cap is exercised) */
    check_soup(600, 400, 0.05f, 24);
  }
  sc_kernel_form = 0;
}

/* The closest-point function against dense sampling of the triangle in
 * double precision: the sampled minimum is never below the returned
 * distance (minus float rounding) and is close to it. */
static void test_closest_point_brute_force(void **state) {
  (void)state;
  unsigned s = 99;
  for (int it = 0; it < 300; it++) {
    float a[3], b[3], c[3], q[3], bary[3];
    for (int k = 0; k < 3; k++) {
      a[k] = sc_rand(&s) - 0.5f;
      b[k] = sc_rand(&s) - 0.5f;
      c[k] = sc_rand(&s) - 0.5f;
      q[k] = 2.0f * (sc_rand(&s) - 0.5f);
    }
    int r = selfcol_closest(q, a, b, c, bary);
    assert_true(r >= 0);
    assert_near(bary[0] + bary[1] + bary[2], 1.0, 1e-5);
    for (int k = 0; k < 3; k++) assert_true(bary[k] >= -1e-6f);
    double got = 0;
    for (int k = 0; k < 3; k++) {
      double pk = a[k] * (double)bary[0] + b[k] * (double)bary[1] + c[k] * (double)bary[2];
      got += (q[k] - pk) * (q[k] - pk);
    }
    got = sqrt(got);
    double best = 1e30;
    const int S = 120;
    for (int i = 0; i <= S; i++)
      for (int j = 0; i + j <= S; j++) {
        double u = (double)i / S, v = (double)j / S, w = 1.0 - u - v, dd = 0;
        for (int k = 0; k < 3; k++) {
          double pk = a[k] * u + b[k] * v + c[k] * w;
          dd += (q[k] - pk) * (q[k] - pk);
        }
        if (dd < best) best = dd;
      }
    best = sqrt(best);
    assert_true(got <= best + 1e-5);
    assert_near(got, best, 0.02); /* sampling step ~1/120 of the triangle */
  }
}

/* ---- the cell coordinate ---- */
/* The kernels' cell coordinates (sc_coord in selfcol.cl, cr_cell in
 * crossings.cl) floor by truncation and a fix-up, not with floor() (PoCL's
 * floor was a fifth of the triangle count's time); every hash is the CPU
 * reference's bits only if they give floorf's integer, clamped to ±1e9 and
 * NaN at -1e9, for every float. The kernels' own functions, compiled with
 * all kernel sources as the runtime does and a probe kernel after them,
 * against that rule on the values where a floor goes wrong: integers,
 * either side of them, below 2^23 and above, negative zero, the clamp's
 * edges, infinities, NaN, and random coordinates at several cell sizes. */
typedef struct { const char *name; const char *source; } drape_kernel_source;
extern const drape_kernel_source dr_kernel_sources[];
extern const size_t dr_kernel_source_count;

static int host_coord(float v, float inv) {
  float f = floorf(v * inv);
  f = f >= -1.0e9f ? f : -1.0e9f;
  f = f <= 1.0e9f ? f : 1.0e9f;
  return (int)f;
}

/* Every embedded kernel source, then a probe kernel of the test's own that
 * calls their inline functions (freed by the caller). */
static char *probe_source(const char *probe) {
  size_t len = strlen(probe) + 1;
  for (size_t i = 0; i < dr_kernel_source_count; i++)
    len += strlen(dr_kernel_sources[i].source) + 2;
  char *src = malloc(len);
  assert_non_null(src);
  size_t off = 0;
  for (size_t i = 0; i < dr_kernel_source_count; i++) {
    const size_t m = strlen(dr_kernel_sources[i].source);
    memcpy(src + off, dr_kernel_sources[i].source, m);
    off += m;
    src[off++] = '\n';
  }
  memcpy(src + off, probe, strlen(probe) + 1);
  return src;
}

/* Kernel `name` of the probe source (probe_source), with its argument
 * names for DRAPE_CL_BIND; *prog to release after the kernel. */
static void probe_kernel(const char *probe, const char *name, cl_program *prog,
                         dr_cl_kern *k) {
  char *src = probe_source(probe);
  SC_OK(dr_cl_build_source(&g_cl, name, src, NULL, prog, e));
  free(src);
  cl_int rc;
  cl_kernel ck = clCreateKernel(*prog, name, &rc);
  assert_int_equal(rc, CL_SUCCESS);
  SC_OK(dr_cl_kern_wrap(ck, name, k, e));
}

static void test_cell_coordinate_is_floor(void **state) {
  (void)state;
  static const char probe[] =
      "__kernel void coord_probe(__global const float *v, __global const float *inv,\n"
      "                          __global int *sc, __global int *cr, const int n) {\n"
      "  const int i = get_global_id(0);\n"
      "  if (i >= n) return;\n"
      "  sc[i] = sc_coord(v[i], inv[i]);\n"
      "  cr[i] = cr_cell(v[i], inv[i]);\n"
      "}\n";
  enum { N = 4096 };
  float *v = malloc(N * sizeof *v), *inv = malloc(N * sizeof *inv);
  int *sc = calloc(N, sizeof *sc), *cr = calloc(N, sizeof *cr);
  assert_true(v && inv && sc && cr);
  int n = 0;
  static const float invs[] = {1.0f, 1.0f / 0.0137f, 1.0f / 0.25f, 73.1f};
  static const float edges[] = {0.0f,      1.0f,      2.5f,      8388607.0f, 8388608.0f,
                                8388609.0f, 16777216.0f, 1.0e9f,  1.00000006e9f, 2.0e9f,
                                1.0e-30f,   0.49999997f, 123456.5f, 3.0e38f};
  for (int k = 0; k < (int)(sizeof invs / sizeof *invs); k++)
    for (int j = 0; j < (int)(sizeof edges / sizeof *edges); j++)
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        const float e0 = (float)sgn * edges[j] / invs[k], e1 = (float)sgn * edges[j];
        const float c[6] = {e0, nextafterf(e0, INFINITY), nextafterf(e0, -INFINITY),
                            e1, nextafterf(e1, INFINITY), nextafterf(e1, -INFINITY)};
        for (int m = 0; m < 6; m++) {
          v[n] = c[m];
          inv[n++] = invs[k];
        }
      }
  const float special[] = {-0.0f, INFINITY, -INFINITY, NAN};
  for (int j = 0; j < 4; j++) {
    v[n] = special[j];
    inv[n++] = 1.0f;
  }
  unsigned seed = 5;
  while (n < N) {
    v[n] = 4.0f * (sc_rand(&seed) - 0.5f);
    inv[n] = invs[n % 4];
    n++;
  }

  cl_program prog = NULL;
  dr_cl_kern k;
  probe_kernel(probe, "coord_probe", &prog, &k);
  cl_mem bv = sc_buf(&g_cl, v, N * sizeof *v), bi = sc_buf(&g_cl, inv, N * sizeof *inv);
  cl_mem bs = sc_buf(&g_cl, sc, N * sizeof *sc), bc = sc_buf(&g_cl, cr, N * sizeof *cr);
  const cl_int nn = N;
  SC_OK(DRAPE_CL_BIND(&k, 0, e, DRAPE_CL_ARG("v", bv), DRAPE_CL_ARG("inv", bi),
                      DRAPE_CL_ARG("sc", bs), DRAPE_CL_ARG("cr", bc), DRAPE_CL_ARG("n", nn)));
  SC_OK(dr_cl_launch(&g_cl, &k, N, 0, NULL, e));
  sc_read(&g_cl, bs, sc, N * sizeof *sc);
  sc_read(&g_cl, bc, cr, N * sizeof *cr);
  int bad = 0, negint = 0;
  for (int i = 0; i < N; i++) {
    const int want = host_coord(v[i], inv[i]);
    const float f = v[i] * inv[i];
    negint += f < 0.0f && f > -1.0e9f && floorf(f) == f;
    if (sc[i] != want || cr[i] != want) {
      if (bad++ < 10)
        print_message("v %.9g inv %.9g: sc_coord %d, cr_cell %d, floor rule %d\n", (double)v[i],
                      (double)inv[i], sc[i], cr[i], want);
    }
  }
  print_message("%d values, %d of them negative integers after the scale\n", N, negint);
  assert_true(negint >= 20); /* the case a truncation without fix-up gets wrong */
  assert_int_equal(bad, 0);
  clReleaseMemObject(bv);
  clReleaseMemObject(bi);
  clReleaseMemObject(bs);
  clReleaseMemObject(bc);
  dr_cl_kern_release(&k);
  clReleaseProgram(prog);
  free(v);
  free(inv);
  free(sc);
  free(cr);
}

/* Where the bounds' pairs start a bucket's scan (sc_sorted_after,
 * kernels/selfcol.cl): buckets of 0 to 3 caps entries (duplicates, as a
 * triangle in two cells hashed alike leaves) sorted on the device by the
 * hash's own sort (hash_sort_range: only the first cap entries in order),
 * then every threshold t from below the smallest entry to above the
 * largest. The start must skip no entry above t (the scan wants them all),
 * and where the sorted prefix holds one it must be the first such entry
 * (skipping every entry <= t there is the point); otherwise the prefix's
 * end. */
static void test_sorted_after(void **state) {
  (void)state;
  static const char probe[] =
      "__kernel void after_probe(__global uint *vals, __global const uint *lo,\n"
      "                          __global const uint *cap, __global uint *out, const int nb,\n"
      "                          const int nt) {\n"
      "  const int b = get_global_id(0);\n"
      "  if (b >= nb) return;\n"
      "  hash_sort_range(vals, lo[b], lo[b + 1], cap[b]);\n"
      "  for (int t = 0; t < nt; t++)\n"
      "    out[b * nt + t] = sc_sorted_after(vals, lo[b], lo[b + 1], cap[b], (uint)t);\n"
      "}\n";
  enum { NB = 600, NT = 70 };
  static const unsigned caps[] = {1, 2, 5, 16, 17};
  cl_uint *lo = malloc((NB + 1) * sizeof *lo), *cap = malloc(NB * sizeof *cap);
  assert_true(lo && cap);
  unsigned seed = 21;
  lo[0] = 0;
  for (int b = 0; b < NB; b++) {
    cap[b] = caps[b % 5];
    lo[b + 1] = lo[b] + (cl_uint)(sc_rand(&seed) * (float)(3u * cap[b] + 1u)) % (3u * cap[b] + 1u);
  }
  const size_t nv = lo[NB] + 8; /* the scans' eight-entry reads run past a bucket */
  cl_uint *vals = malloc(nv * sizeof *vals), *out = calloc((size_t)NB * NT, sizeof *out);
  assert_true(vals && out);
  for (size_t i = 0; i < nv; i++) /* 0..63 with duplicates; thresholds 0..69 pass all */
    vals[i] = (cl_uint)(sc_rand(&seed) * 64.0f) & 63u;

  cl_program prog = NULL;
  dr_cl_kern k;
  probe_kernel(probe, "after_probe", &prog, &k);
  cl_mem bv = sc_buf(&g_cl, vals, nv * sizeof *vals), bl = sc_buf(&g_cl, lo, (NB + 1) * sizeof *lo);
  cl_mem bc = sc_buf(&g_cl, cap, NB * sizeof *cap);
  cl_mem bo = sc_buf(&g_cl, out, (size_t)NB * NT * sizeof *out);
  const cl_int nb = NB, nt = NT;
  SC_OK(DRAPE_CL_BIND(&k, 0, e, DRAPE_CL_ARG("vals", bv), DRAPE_CL_ARG("lo", bl),
                      DRAPE_CL_ARG("cap", bc), DRAPE_CL_ARG("out", bo), DRAPE_CL_ARG("nb", nb),
                      DRAPE_CL_ARG("nt", nt)));
  SC_OK(dr_cl_launch(&g_cl, &k, NB, 0, NULL, e));
  sc_read(&g_cl, bv, vals, nv * sizeof *vals);
  sc_read(&g_cl, bo, out, (size_t)NB * NT * sizeof *out);
  int bad = 0, over = 0, unsorted_rest = 0;
  long skipped = 0;
  for (int b = 0; b < NB; b++) {
    const cl_uint l = lo[b], h = lo[b + 1], m = h - l > cap[b] ? l + cap[b] : h;
    over += h - l > cap[b];
    for (cl_uint i = m; i + 1 < h; i++) unsorted_rest += vals[i] > vals[i + 1];
    for (int t = 0; t < NT; t++) {
      const cl_uint s = out[b * NT + t];
      cl_uint want = m; /* the first prefix entry above t, else the prefix's end */
      for (cl_uint i = l; i < m; i++)
        if (vals[i] > (cl_uint)t) {
          want = i;
          break;
        }
      int ok = s == want && s >= l && s <= h;
      for (cl_uint i = l; i < s && i < h; i++) ok &= vals[i] <= (cl_uint)t;
      if (!ok && bad++ < 10)
        print_message("bucket %d (%u entries, cap %u), t %d: start %u, want %u\n", b, h - l,
                      cap[b], t, s - l, want - l);
      skipped += ok ? (long)(s - l) : 0;
    }
  }
  print_message("%d buckets (%d over their cap, %d out of order past it), %ld entries skipped\n",
                NB, over, unsorted_rest, skipped);
  assert_true(over >= 100 && unsorted_rest > 0); /* the partly sorted case is exercised */
  assert_int_equal(bad, 0);
  clReleaseMemObject(bv);
  clReleaseMemObject(bl);
  clReleaseMemObject(bc);
  clReleaseMemObject(bo);
  dr_cl_kern_release(&k);
  clReleaseProgram(prog);
  free(lo);
  free(cap);
  free(vals);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cell_coordinate_is_floor),
      cmocka_unit_test(test_sorted_after),
      cmocka_unit_test(test_scan_matches_serial),
      cmocka_unit_test(test_particle_hash_finds_every_pair),
      cmocka_unit_test(test_triangle_hash_finds_every_pair),
      cmocka_unit_test(test_wide_triangles),
      cmocka_unit_test(test_closest_point_brute_force),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
