/* The contact lists kept across substeps (issue 18, cost; kernels/selfcol.cl,
 * "contact lists kept across substeps"; docs/selfcollision.md): on OpenCL
 * the vertex-triangle pass reads each vertex's list of the triangles within
 * reach at the last build, and each corner its list of the entries naming
 * its triangles, until the motion since could bring an unlisted pair into
 * contact. They are an exact acceleration: checked here against the stage
 * that rebuilds the triangle hash every substep (selfcol_set_lists(0)) and
 * against the CPU reference, bit for bit after every substep:
 *  - a folded sheet (two 16x16 layers 0.6 thickness apart, the upper one
 *    sliding 0.02 thickness a substep and waving), two frames of 20
 *    substeps, in both kernel forms: same bits and contacts; built a few
 *    times, read at most substeps; after every build each list strictly
 *    increasing, and the same on 32 triangle buckets, where many triangles
 *    have two cells in one bucket (listed once);
 *  - a particle that jumps 3 margins between two stages into contact: the
 *    lists are rebuilt at that substep (the check reads the motion, not a
 *    bound on it), same bits;
 *  - a layer farther than the check's near gap dropped whole onto the
 *    other (a rigid motion only the far pairs' test sees): rebuilt at that
 *    substep, same bits, in both kernel forms;
 *  - a layer just beyond the lists' reach dropped by 0.95 and 1.05 times
 *    the margin: kept, then rebuilt (99 % of the margin, kl_lim), same
 *    bits, in both kernel forms;
 *  - at every substep on the lists the pass runs on exactly the particles
 *    with a list or a corner list (kl_active), and two sheets far apart
 *    run it on none, same bits; a flat sheet as thick as half its spacing
 *    (the ladder's) lists nothing; the upper layer, in contact, lifted 0.6 m
 *    whole: rebuilt there, no particle named, every contact count 0;
 *  - the check's affine fits: the folded sheet turned whole (a rigid turn:
 *    kept on the fits, too short-lived on the ranges alone) and a sheet
 *    closing about a hinge (the halves' fits must not hide the closing
 *    gap): same bits as the CPU reference on both checks;
 *  - the folded sheet lying on a floor (support), where the clamp runs in
 *    the check on the lists: same bits;
 *  - lists of one entry (DRAPE_SELFCOL_LIST_LEN=1), and corner lists whose
 *    total exceeds their buffer (DRAPE_SELFCOL_LIST_TOTAL=1): the build
 *    overflows, the stage falls back to the per-substep hash, same bits;
 *  - at every build, the check's near lists against every pair of regions
 *    tested on the host (check_near), also on a waved 64 x 64 sheet with
 *    few region buckets, so that regions merge (test_near_regions);
 *  - scenes/fold.json without step bounds (a sheet folded onto itself by
 *    moving pins), 100 frames, and the main scene (drape_sphere.json), 90
 *    frames: same bits every 10th frame as the per-substep hash, the CPU
 *    reference over 12 frames, and the lists in use at most substeps (on
 *    the main scene, whose lists name few particles, at all but 1/20);
 *  - after every check that keeps the lists on the regions' maps, in
 *    every case, the certificates replayed on the host (check_certs): each
 *    region on the ranges for all its near pairs or on its own map for
 *    all of them, never mixed (both scenes keep lists on the maps). */
#include <stdio.h>

#include "drape/cloth.h"
#include "drape/scene.h"
#include "cloth_util.h"
#include "selfcol_fixture.h"

static drape_cl g_cl;
static void check_certs(selfcol_cl *g, cl_mem xd, int maps, void *ctx);
static int setup(void **state) {
  (void)state;
  selfcol_cl_set_check_hook(check_certs, NULL); /* every kept check, every test */
  return sc_cl_setup(&g_cl);
}
static int teardown(void **state) {
  (void)state;
  selfcol_cl_set_check_hook(NULL, NULL);
  drape_cl_release(&g_cl);
  return 0;
}

enum { N = 16, SUB = 20, FRAMES = 2, STEPS = FRAMES * SUB };
static const float T = 0.01f, S = 0.03f, H = 1.0f / 1200.0f;

/* The upper layer starts g_lift higher (test_far_drop); g_floor: a floor
 * one thickness below the lower layer, which then lies on it (support:
 * it weighs nothing in the passes; test_supported). */
static float g_lift;
static int g_floor;
/* move()'s motion: 0 the upper layer slides and waves; 1 the whole world
 * turns about the vertical axis through its middle (test_spin); 2 the
 * rows past HINGE turn about the hinge line toward the others
 * (test_hinge); 3 nothing moves but the jumper (test_near_limit). */
static int g_motion;
enum { HINGE = N / 2 - 1 };
static const float SPIN = 0.008f, CLOSE = 0.0105f, OPEN0 = 0.45f; /* rad */

/* Two layers of one cloth, the upper 0.6 t above the lower, shifted. */
static void make_fold(sc_world *w) {
  const int n = 2 * N * N, nt = 2 * 2 * (N - 1) * (N - 1);
  sc_world_alloc(w, n, nt);
  w->nobj = 1;
  w->objects[0] = sc_cloth(T, 0.3f, 1);
  unsigned seed = 7;
  for (int L = 0; L < 2; L++)
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) {
        const int i = L * N * N + r * N + c;
        const float y =
            L == 0 ? 0.0f : g_lift + 0.6f * T + 0.05f * T * (sc_rand(&seed) - 0.5f);
        w->x[i] = (dr_float4){(float)c * S + (float)L * 0.5f * S, y,
                              (float)r * S + (float)L * 0.37f * S, 1.0f + (float)(i % 3)};
        w->p[i] = w->x[i];
        w->rest[i] = (dr_float4){(float)c * S, (float)L, (float)r * S, 0};
        w->obj[i] = 0;
      }
  sc_grid_tris(w->tris, sc_grid_tris(w->tris, 0, 0, N), N * N, N);
}

/* Before substep k: p = x, then the upper layer slides 0.02 t along x and
 * waves by up to 0.02 t (about 0.24 m/s at 1200 substeps/s); particle `jumper` (or -1) jumps `dz` along z before substep `jump`
 * (between two stages: the stage's own clamp does not see it). */
static void move(dr_float4 *x, dr_float4 *p, int n, int k, int jumper, int jump, float dz) {
  const float cx = 0.5f * (float)(N - 1) * S, cz = cx, zh = (float)HINGE * S;
  const float a = g_motion == 1 ? SPIN : CLOSE, ca = cosf(a), sa = sinf(a);
  for (int i = 0; i < n; i++) {
    p[i] = x[i];
    if (g_motion == 1) { /* a rigid turn about y: the regions' spread grows */
      const float u = x[i].x - cx, v = x[i].z - cz;
      x[i].x = cx + ca * u - sa * v;
      x[i].z = cz + sa * u + ca * v;
    } else if (g_motion == 2) {
      if (i / N > HINGE) { /* the far half closes over the near one */
        const float v = x[i].z - zh, y = x[i].y;
        x[i].z = zh + ca * v - sa * y;
        x[i].y = sa * v + ca * y;
      }
    } else if (g_motion == 3) {
      continue;
    } else if (i >= N * N) {
      x[i].x += 0.02f * T;
      x[i].y += 0.02f * T * sinf(0.3f * (float)k + 0.05f * (float)i);
    }
  }
  if (jumper >= 0 && k == jump) {
    x[jumper].z += dz;
    p[jumper] = x[jumper];
  }
  if (jumper == -2 && k == jump) /* the upper layer drops by g_lift, all at once */
    for (int i = N * N; i < n; i++) {
      x[i].y -= g_lift;
      p[i] = x[i];
    }
}

typedef struct run_out {
  dr_float4 *x[STEPS];
  int *nvt[STEPS];
  uint64_t builds[STEPS], runs_at[STEPS], runs, fallbacks;
  int active[STEPS]; /* particles the pass on the lists ran on (-1: not on them) */
  float near; /* the check's near gap (tb.list_near) */
  float m;    /* the lists' margin M (tb.list_m) */
} run_out;

/* At a substep on the lists: the pass ran on exactly the particles with a
 * list or a corner list (kl_active), each once, and every other particle
 * has no contact; returns how many. */
static int check_active(selfcol_cl *g, int n) {
  const size_t u = sizeof(cl_uint);
  cl_int *lstn = malloc((size_t)n * u), *nvt = malloc((size_t)n * u);
  cl_uint *cc = malloc(((size_t)n + 1) * u), *act = malloc((size_t)n * u);
  char *seen = calloc((size_t)n, 1);
  assert_true(lstn && nvt && cc && act && seen);
  const int nact = (int)g->kl_nact;
  assert_true(nact >= 0 && nact <= n);
  sc_read(&g_cl, g->kl_lstn, lstn, (size_t)n * u);
  sc_read(&g_cl, g->kl_ccount, cc, ((size_t)n + 1) * u);
  sc_read(&g_cl, g->nvt, nvt, (size_t)n * u);
  if (nact > 0) sc_read(&g_cl, g->kl_act, act, (size_t)nact * u);
  for (int i = 0; i < nact; i++) {
    assert_true(act[i] < (cl_uint)n);
    assert_int_equal(seen[act[i]], 0); /* once */
    seen[act[i]] = 1;
  }
  int want = 0;
  for (int j = 0; j < n; j++) {
    const int a = lstn[j] > 0 || cc[j + 1] > cc[j];
    want += a;
    assert_int_equal(seen[j], a);
    if (!a) assert_int_equal(nvt[j], 0);
  }
  assert_int_equal(want, nact);
  free(lstn);
  free(nvt);
  free(cc);
  free(act);
  free(seen);
  return nact;
}

/* The check's near lists after a build (kl_near, which reads the cells
 * around a region and the merged regions' list) against every pair of
 * occupied regions tested on the host with kl_gap's arithmetic: for each
 * region j, the regions k >= j (occupied order) with a gap of at most the
 * near gap, each once, or -1 when more than the cap are. g_near counts
 * what was checked. */
static struct {
  long builds, near, far, merged, single;
} g_near;
static float box_gap(const dr_float4 *box, cl_uint a, cl_uint b) {
  const dr_float4 la = box[2 * a], ha = box[2 * a + 1], lb = box[2 * b], hb = box[2 * b + 1];
  return fmaxf(fmaxf(fmaxf(lb.x - ha.x, la.x - hb.x), fmaxf(lb.y - ha.y, la.y - hb.y)),
               fmaxf(lb.z - ha.z, la.z - hb.z));
}
static void check_near(selfcol_cl *g) {
  const size_t u = sizeof(cl_uint), nr = g->tb.list_nr, cap = SELFCOL_LIST_NEAR_CAP;
  const float rn = g->tb.list_near;
  cl_uint fl[5];
  dr_float4 *box = malloc(2 * nr * sizeof(dr_float4));
  cl_uint *occ = malloc(nr * u), *near = malloc(nr * cap * u), *idx = malloc(nr * u);
  cl_int *nn = malloc(nr * u);
  assert_true(box && occ && near && idx && nn);
  sc_read(&g_cl, g->kl_flag, fl, 5 * u);
  const cl_uint no = fl[2];
  assert_true(no >= 1 && no <= nr);
  sc_read(&g_cl, g->kl_rbox, box, 2 * nr * sizeof(dr_float4));
  sc_read(&g_cl, g->kl_rocc, occ, no * u);
  sc_read(&g_cl, g->kl_near, near, nr * cap * u);
  sc_read(&g_cl, g->kl_nearn, nn, no * u);
  for (size_t b = 0; b < nr; b++) idx[b] = 0xffffffffu;
  cl_uint merged = 0;
  for (cl_uint j = 0; j < no; j++) {
    assert_true(occ[j] < nr && idx[occ[j]] == 0xffffffffu);
    idx[occ[j]] = j;
    merged += box[2 * occ[j]].w != 0.0f;
  }
  assert_int_equal(merged, fl[4]); /* the merged regions' list has them all */
  for (cl_uint j = 0; j < no; j++) {
    const cl_uint a = occ[j];
    long want = 0;
    for (cl_uint k = j; k < no; k++) {
      if (box_gap(box, a, occ[k]) <= rn) want++;
      else g_near.far++;
    }
    assert_true(want >= 1); /* itself */
    if (want > (long)cap) {
      assert_int_equal(nn[j], -1);
      continue;
    }
    assert_int_equal(nn[j], want);
    for (long i = 0; i < want; i++) {
      const cl_uint b = near[j * cap + (size_t)i];
      assert_true(b < nr && idx[b] != 0xffffffffu && idx[b] >= j);
      assert_true(box_gap(box, a, b) <= rn);
      for (long i2 = 0; i2 < i; i2++) assert_true(near[j * cap + (size_t)i2] != b); /* once */
    }
    g_near.near += want;
  }
  g_near.builds++;
  g_near.merged += merged;
  g_near.single += no - merged;
  free(box);
  free(occ);
  free(near);
  free(idx);
  free(nn);
}

/* After a build that did not overflow: every vertex's list in strictly
 * increasing triangle order (the pass's order; a triangle twice in its
 * bucket listed once), and, in the build's buckets, how many entries
 * repeat a triangle already in their bucket (g_lchk.dups). */
static struct {
  long builds, listed, dups;
} g_lchk;
static void check_lists(selfcol_cl *g) {
  if (!g->kl_ok) return;
  const int n = g->tb.n, L = g->tb.list_len, nt = g->tb.n_tris;
  const size_t u = sizeof(cl_uint), nb = (size_t)g->tb.mask_t + 3u;
  cl_int *lstn = malloc((size_t)n * u);
  cl_uint *lst = malloc((size_t)n * (size_t)L * u), *start = malloc(nb * u);
  assert_true(lstn && lst && start);
  sc_read(&g_cl, g->kl_lstn, lstn, (size_t)n * u);
  sc_read(&g_cl, g->kl_lst, lst, (size_t)n * (size_t)L * u);
  for (int q = 0; q < n; q++) {
    assert_true(lstn[q] >= 0 && lstn[q] <= L);
    for (int i = 0; i < lstn[q]; i++) {
      const cl_uint t = lst[(size_t)q * (size_t)L + (size_t)i];
      assert_true(t < (cl_uint)nt);
      if (i > 0) assert_true(lst[(size_t)q * (size_t)L + (size_t)i - 1] < t);
    }
    g_lchk.listed += lstn[q];
  }
  sc_read(&g_cl, g->tcount, start, nb * u);
  const cl_uint total = start[nb - 1];
  cl_uint *vals = malloc((total ? total : 1) * u);
  assert_true(vals);
  if (total) sc_read(&g_cl, g->tvals, vals, total * u);
  for (size_t b = 0; b + 1 < nb; b++)
    for (cl_uint e = start[b]; e < start[b + 1]; e++)
      for (cl_uint f = start[b]; f < e; f++)
        if (vals[f] == vals[e]) {
          g_lchk.dups++;
          break;
        }
  g_lchk.builds++;
  free(lstn);
  free(lst);
  free(start);
  free(vals);
}

/* The check's certificates replayed on the host (kernels/selfcol.cl,
 * kl_check, kl_pair_maps; the stage's check hook), after every check that
 * kept the lists on the regions' maps (the ranges had failed): every
 * region must have all its near pairs within the ranges' limit or all of
 * them on its own map (its side of kl_side_affine, per particle, which
 * passes whatever the kernel's cheaper bounds pass). A region whose
 * vertices got the ranges for one pair and the maps for another is
 * covered by neither argument. g_cert counts the checks replayed; only
 * failures by more than 1e-6 m count (the host's floats are not the
 * device's). */
static struct {
  long checked;
} g_cert;
static float h_lim(float G, float E, float tm, float M) {
  return 0.99f * fmaxf(M, G - E - tm) - 0x1p-20f * (E + tm + M);
}
static float h_alim(float D, float E, float tm, float M) {
  return 0.99f * (D - tm) - 0x1p-20f * (E + tm + M);
}
static float h_len(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
/* region a's affine map at y, less the motion d (its residual's length) */
static float h_res(const dr_float4 *rfit, const dr_float4 *raff, cl_uint a, dr_float4 y,
                   const float d[3]) {
  const float u[3] = {y.x - raff[3 * a].x, y.y - raff[3 * a].y, y.z - raff[3 * a].z};
  const dr_float4 c = rfit[4 * a], *J = &rfit[4 * a + 1];
  const float m[3] = {c.x + J[0].x * u[0] + J[0].y * u[1] + J[0].z * u[2],
                      c.y + J[1].x * u[0] + J[1].y * u[1] + J[1].z * u[2],
                      c.z + J[2].x * u[0] + J[2].y * u[1] + J[2].z * u[2]};
  return h_len(d[0] - m[0], d[1] - m[1], d[2] - m[2]);
}
static void check_certs(selfcol_cl *g, cl_mem xd, int maps, void *ctx) {
  (void)ctx;
  if (!maps) return; /* every pair passed the ranges */
  const selfcol_tables *t = &g->tb;
  const int n = t->n;
  const float tm = t->t_max, M = t->list_m, rn = t->list_near, tol = 1e-6f;
  const size_t u = sizeof(cl_uint), nr = t->list_nr;
  dr_float4 *x = malloc((size_t)n * sizeof *x);
  assert_true(x);
  sc_read(g->cl, xd, x, (size_t)n * sizeof *x);
  cl_uint fl[5], mb;
  sc_read(g->cl, g->kl_flag, fl, 5 * u);
  sc_read(g->cl, g->maxbits, &mb, u);
  const cl_uint no = fl[2];
  dr_float4 *rng = malloc(2 * nr * sizeof *rng), *box = malloc(2 * nr * sizeof *box),
            *fit = malloc(4 * nr * sizeof *fit), *aff = malloc(3 * nr * sizeof *aff),
            *xb = malloc((size_t)n * sizeof *xb);
  cl_uint *occ = malloc(nr * u), *rs = malloc((nr + 1) * u), *rv = malloc((size_t)n * u);
  char *rbad = calloc(nr, 1), *abad = calloc(nr, 1);
  assert_true(rng && box && fit && aff && xb && occ && rs && rv && rbad && abad);
  sc_read(g->cl, g->kl_rrng, rng, 2 * nr * sizeof *rng);
  sc_read(g->cl, g->kl_rbox, box, 2 * nr * sizeof *box);
  sc_read(g->cl, g->kl_rfit, fit, 4 * nr * sizeof *fit);
  sc_read(g->cl, g->kl_raff, aff, 3 * nr * sizeof *aff);
  sc_read(g->cl, g->kl_xb, xb, (size_t)n * sizeof *xb);
  sc_read(g->cl, g->kl_rocc, occ, no * u);
  sc_read(g->cl, g->kl_rcount, rs, (nr + 1) * u);
  sc_read(g->cl, g->kl_rvals, rv, (size_t)n * u);
  float E;
  memcpy(&E, &mb, sizeof E);
  E -= 2.0f * t->list_grow;
  for (cl_uint i = 0; i < no; i++)
    for (cl_uint j = i; j < no; j++) {
      const cl_uint a = occ[i], b = occ[j];
      const float G = box_gap(box, a, b);
      if (!(G <= rn)) continue;
      const dr_float4 *A = &rng[2 * a], *B = &rng[2 * b];
      const float dv = h_len(fmaxf(A[1].x - B[0].x, B[1].x - A[0].x),
                             fmaxf(A[1].y - B[0].y, B[1].y - A[0].y),
                             fmaxf(A[1].z - B[0].z, B[1].z - A[0].z));
      if (dv > h_lim(G, E, tm, M) + tol) rbad[a] = rbad[b] = 1; /* clearly over */
      /* each side on its own map, per particle of the other (the
       * kernel's cheap bounds only ever pass what this passes) */
      for (int side = 0; side < (a == b ? 1 : 2); side++) {
        const cl_uint v = side ? b : a, c = side ? a : b;
        const float ja = fit[4 * v + 1].w, ra = fit[4 * v].w;
        for (cl_uint e = rs[c]; e < rs[c + 1]; e++) {
          const dr_float4 y = xb[rv[e]], xk = x[rv[e]];
          const dr_float4 lo = box[2 * v], hi = box[2 * v + 1];
          const float gk = fmaxf(fmaxf(fmaxf(lo.x - y.x, y.x - hi.x), fmaxf(lo.y - y.y, y.y - hi.y)),
                                 fmaxf(lo.z - y.z, y.z - hi.z));
          const float Dk = fmaxf(tm + M, gk - E);
          const float d[3] = {xk.x - y.x, xk.y - y.y, xk.z - y.z};
          const float rho = h_res(fit, aff, v, y, d);
          if (ja * Dk + ra + rho > h_alim(Dk, E, tm, M) + tol) abad[v] = 1;
        }
      }
    }
  g_cert.checked++;
  int mixed = 0;
  for (cl_uint i = 0; i < no; i++)
    if (rbad[occ[i]] && abad[occ[i]]) {
      fprintf(stderr, "region %u kept on mixed certificates (ranges and maps)\n", occ[i]);
      mixed++;
    }
  assert_int_equal(mixed, 0);
  free(rng);
  free(box);
  free(fit);
  free(aff);
  free(xb);
  free(occ);
  free(rs);
  free(rv);
  free(rbad);
  free(abad);
  free(x);
}

static void out_free(run_out *o) {
  for (int k = 0; k < STEPS; k++) {
    free(o->x[k]);
    free(o->nvt[k]);
  }
}

/* backend 0: the CPU reference; 1, 2: OpenCL in the GPU and vector forms;
 * lists: 1 on, 0 the per-substep hash. */
static int g_affine_off; /* run(): the check on the ranges only */
static void run(const sc_world *w0, int backend, int lists, int jumper, int jump, float dz,
                run_out *o) {
  memset(o, 0, sizeof *o);
  sc_world w = *w0;
  const size_t bytes = (size_t)w.n * sizeof(dr_float4);
  dr_float4 *x = malloc(bytes), *p = malloc(bytes);
  memcpy(x, w0->x, bytes);
  memcpy(p, w0->p, bytes);
  selfcol_set_lists(lists);
  selfcol_set_list_affine_off(g_affine_off);
  sc_kernel_form = backend == 0 ? 0 : sc_form(backend - 1);
  sc_bound_off = 1; /* the lists serve the vertex-triangle pass without bounds */
  selfcol_desc d = sc_desc(&w);
  selfcol_cpu c;
  selfcol_cl g;
  sc_dev dev = {0};
  if (backend == 0) {
    SC_OK(selfcol_cpu_create(&d, &c, e));
  } else {
    sc_dev_upload(&g_cl, &w, &dev);
    SC_OK(selfcol_cl_create(&g_cl, &d, &g, e));
    sc_check_form(&g);
    assert_int_equal(g.tb.lists, lists);
    o->near = g.tb.list_near;
    o->m = g.tb.list_m;
  }
  for (int k = 0; k < STEPS; k++) {
    move(x, p, w.n, k, jumper, jump, dz);
    const selfcol_colliders col = {g_floor, -T, 0, NULL, (float)(k % SUB + 1) * H};
    o->x[k] = malloc(bytes);
    if (backend == 0) {
      selfcol_cpu_run(&c, x, p, w.tris, &col);
      o->nvt[k] = malloc((size_t)w.n * sizeof(int));
      memcpy(o->nvt[k], c.nvt, (size_t)w.n * sizeof(int));
    } else {
      cl_int rc = clEnqueueWriteBuffer(g_cl.queue, dev.x, CL_TRUE, 0, bytes, x, 0, NULL, NULL);
      rc |= clEnqueueWriteBuffer(g_cl.queue, dev.p, CL_TRUE, 0, bytes, p, 0, NULL, NULL);
      assert_int_equal(rc, CL_SUCCESS);
      SC_OK(selfcol_cl_run(&g, dev.x, dev.p, dev.tris, &col, NULL, e));
      sc_read(&g_cl, dev.x, x, bytes);
      selfcol_cl_list_stats(&g, &o->builds[k], &o->runs_at[k], NULL);
      if (lists && o->builds[k] > (k ? o->builds[k - 1] : 0)) {
        check_near(&g);
        check_lists(&g);
      }
      o->active[k] = o->runs_at[k] > (k ? o->runs_at[k - 1] : 0) ? check_active(&g, w.n) : -1;
    }
    memcpy(o->x[k], x, bytes);
  }
  if (backend == 0) {
    selfcol_cpu_destroy(&c);
  } else {
    selfcol_cl_list_stats(&g, NULL, &o->runs, &o->fallbacks);
    selfcol_cl_destroy(&g);
    sc_dev_free(&dev);
  }
  selfcol_set_lists(-1);
  selfcol_set_list_affine_off(0);
  sc_kernel_form = 0;
  sc_bound_off = 0;
  free(x);
  free(p);
}

static void same_bits(const run_out *a, const run_out *b, int n, const char *what) {
  for (int k = 0; k < STEPS; k++)
    if (memcmp(a->x[k], b->x[k], (size_t)n * sizeof(dr_float4))) {
      fprintf(stderr, "%s: positions differ after substep %d\n", what, k);
      fail();
    }
}

static long contacts(const run_out *o, int n) {
  long s = 0;
  for (int k = 0; k < STEPS; k++)
    for (int i = 0; i < n; i++) s += o->nvt[k][i];
  return s;
}

/* A substep at which the lists are kept and were kept for the
 * SELFCOL_LIST_MIN_AGE before (so that a rebuild there is a build, not the
 * switch to the per-substep hash that short-lived lists get). */
static int kept_substep(const run_out *calm) {
  int k = SELFCOL_LIST_MIN_AGE + 1;
  while (k < STEPS && (calm->builds[k] != calm->builds[k - 1 - SELFCOL_LIST_MIN_AGE] ||
                       calm->runs_at[k] != calm->runs_at[k - 1] + 1))
    k++;
  assert_true(k < STEPS);
  return k;
}

static void test_folded_sheet(void **state) {
  (void)state;
  g_lift = 0.0f; /* test_far_drop's, were it to fail */
  sc_world w;
  make_fold(&w);
  run_out ref, off, on[2];
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  const long nc = contacts(&ref, w.n);
  assert_true(nc > 1000); /* the layers touch */
  for (int b = 0; b < 2; b++) {
    run(&w, 1 + b, 1, -1, -1, 0.0f, &on[b]);
    same_bits(&on[b], &ref, w.n, b == 0 ? "lists, GPU form vs CPU" : "lists, vector form vs CPU");
    fprintf(stderr, "folded sheet, %s form: %ld contacts over %d substeps; lists built %llu "
            "times, read at %llu substeps, per-substep hash at %llu\n",
            sc_form_name(b), nc, STEPS, (unsigned long long)on[b].builds[STEPS - 1],
            (unsigned long long)on[b].runs, (unsigned long long)on[b].fallbacks);
    assert_true(on[b].builds[STEPS - 1] >= 2);           /* rebuilt as the layers slide */
    assert_true(on[b].builds[STEPS - 1] <= STEPS / 4);   /* and kept for most substeps */
    assert_true(on[b].runs >= (uint64_t)(STEPS * 3 / 4));
    int most = 0;
    for (int k = 0; k < STEPS; k++)
      if (on[b].active[k] > most) most = on[b].active[k];
    assert_true(most > 0); /* the pass ran on the layers in contact */
  }
  run(&w, 2, 0, -1, -1, 0.0f, &off);
  same_bits(&off, &ref, w.n, "per-substep hash, vector form vs CPU");
  assert_int_equal(off.runs, 0);
  out_free(&ref);
  out_free(&off);
  out_free(&on[0]);
  out_free(&on[1]);
  sc_world_free(&w);
}

/* A triangle twice in a bucket (two of its cells hashed alike: kl_lists
 * meets it as two adjacent entries of the sorted bucket): with 32
 * triangle buckets for the folded sheet's 900 triangles (sc_hash's y step
 * is -1 modulo 32, so a box over two cells in x and in y, as the boxes
 * about y = 0 are, has two cells in one bucket) each triangle is still
 * listed once, in order, with the CPU reference's bits (default buckets),
 * in both kernel forms. */
static int unset_tri_buckets(void **state) { /* also when the test fails */
  (void)state;
  unsetenv("DRAPE_SELFCOL_TRI_BUCKETS");
  return 0;
}
static void test_bucket_collisions(void **state) {
  (void)state;
  g_lift = 0.0f;
  sc_world w;
  make_fold(&w);
  run_out ref;
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  for (int b = 0; b < 2; b++) {
    memset(&g_lchk, 0, sizeof g_lchk);
    setenv("DRAPE_SELFCOL_TRI_BUCKETS", "32", 1);
    run_out on;
    run(&w, 1 + b, 1, -1, -1, 0.0f, &on);
    unsetenv("DRAPE_SELFCOL_TRI_BUCKETS");
    same_bits(&on, &ref, w.n, "lists on 32 triangle buckets vs CPU");
    fprintf(stderr, "folded sheet on 32 triangle buckets, %s form: %ld builds checked, %ld "
            "entries listed, %ld bucket entries repeating a triangle\n",
            sc_form_name(b), g_lchk.builds, g_lchk.listed, g_lchk.dups);
    assert_true(g_lchk.builds >= 2);
    assert_true(g_lchk.listed > 100);
    assert_true(g_lchk.dups > 100);
    assert_true(on.runs >= (uint64_t)(STEPS * 3 / 4));
    out_free(&on);
  }
  out_free(&ref);
  sc_world_free(&w);
}

static void test_jump(void **state) {
  (void)state;
  g_lift = 0.0f; /* test_far_drop's, were it to fail */
  sc_world w;
  make_fold(&w);
  const int jumper = N * N + 7 * N + 7; /* upper layer, inside */
  run_out calm;
  run(&w, 2, 1, -1, -1, 0.0f, &calm);
  const int jump = kept_substep(&calm);
  out_free(&calm);
  /* 3 margins down through the 0.6 t gap would cross: instead 3 margins
   * along z, landing on other triangles of the lower layer */
  const float dz = 3.0f * SELFCOL_LIST_MARGIN * T;
  run_out ref, on;
  run(&w, 0, 0, jumper, jump, dz, &ref);
  run(&w, 2, 1, jumper, jump, dz, &on);
  assert_true(ref.nvt[jump][jumper] > 0); /* it lands in contact */
  same_bits(&on, &ref, w.n, "lists, a jump of 3 margins");
  assert_int_equal(on.builds[jump], on.builds[jump - 1] + 1); /* rebuilt there */
  fprintf(stderr, "jump of 3 margins at substep %d: lists rebuilt there, %d contacts of the "
          "jumper, same bits\n", jump, ref.nvt[jump][jumper]);
  out_free(&ref);
  out_free(&on);
  sc_world_free(&w);
}

/* The folded sheet whose upper layer starts `start` higher and moves by
 * -`drop` along y, whole, between two stages (move()'s jumper -2) at a
 * substep where the lists were kept: the CPU reference, then OpenCL in
 * both forms on the lists, which must give its bits and rebuild at that
 * substep. Returns the substep, the reference's contacts before and at it,
 * the check's near gap, and per form the particles the pass ran on. */
typedef struct layer_move {
  int jump;
  long before, after;
  float near;
  int active[2][2]; /* form, before / at the substep */
} layer_move;

static layer_move move_layer(float start, float drop, const char *what) {
  layer_move r = {0};
  g_lift = start;
  sc_world w;
  make_fold(&w);
  g_lift = drop;
  run_out calm;
  run(&w, 2, 1, -1, -1, 0.0f, &calm);
  r.near = calm.near;
  r.jump = kept_substep(&calm);
  out_free(&calm);
  const int jump = r.jump;
  run_out ref, on;
  run(&w, 0, 0, -2, jump, 0.0f, &ref);
  for (int i = 0; i < w.n; i++) {
    r.before += ref.nvt[jump - 1][i];
    r.after += ref.nvt[jump][i];
  }
  for (int b = 0; b < 2; b++) {
    run(&w, 1 + b, 1, -2, jump, 0.0f, &on);
    same_bits(&on, &ref, w.n, what);
    assert_int_equal(on.builds[jump], on.builds[jump - 1] + 1); /* rebuilt there */
    r.active[b][0] = on.active[jump - 1];
    r.active[b][1] = on.active[jump];
    out_free(&on);
  }
  g_lift = 0.0f;
  out_free(&ref);
  sc_world_free(&w);
  return r;
}

/* The upper layer starts 0.6 m higher, farther than the check's near gap
 * from the lower, and drops onto it whole between two stages: a rigid
 * motion, so no region moves against its near ones; only the test of the
 * far pairs (the global range of the motion against the far bound, then
 * every pair) sees it. The lists are rebuilt at that substep, same bits
 * as the CPU reference. */
static void test_far_drop(void **state) {
  (void)state;
  const layer_move r = move_layer(0.6f, 0.6f, "lists, a far layer dropped whole");
  assert_true(0.6f > 2.0f * r.near); /* the layers are far pairs */
  assert_int_equal(r.before, 0);
  assert_true(r.after > 100); /* it lands in contact */
  fprintf(stderr, "a far layer dropped 0.60 m at substep %d (near gap %.3f m): lists rebuilt "
          "there, %ld contacts, same bits\n", r.jump, (double)r.near, r.after);
}

/* The check's limit for near regions: 99 % of the margin M, less a
 * rounding term (kl_lim in selfcol.cl; it was 90 %). The folded sheet held
 * still, its upper layer 1.02 M farther from the lower than the reach t +
 * M (each vertex ±0.025 t about that), so that the lists hold nothing
 * between the layers; then the upper layer drops whole between two
 * stages, at a substep where the lists were kept:
 *  - by 0.95 M: no pair comes within t, and the lists are kept at that
 *    substep (90 % would have rebuilt them), same bits as the CPU
 *    reference;
 *  - by 1.05 M: unlisted pairs come within t, so the lists must be rebuilt
 *    there: same bits and contacts as the CPU reference, in both kernel
 *    forms (a limit of 110 % keeps them, misses the contacts and fails). */
static void near_drop(float frac, int rebuilt, long *contacts_at) {
  g_lift = 0.0f;
  sc_world w0;
  make_fold(&w0);
  run_out probe;
  g_motion = 3;
  run(&w0, 2, 1, -1, -1, 0.0f, &probe);
  const float M = probe.m;
  out_free(&probe);
  sc_world_free(&w0);
  g_lift = 0.4f * T + 1.02f * M; /* the layers 0.6 t + this apart */
  sc_world w;
  make_fold(&w);
  g_lift = frac * M; /* move()'s drop */
  run_out calm;
  run(&w, 2, 1, -1, -1, 0.0f, &calm);
  const int jump = kept_substep(&calm);
  out_free(&calm);
  run_out ref, on;
  run(&w, 0, 0, -2, jump, 0.0f, &ref);
  long before = 0, after = 0;
  for (int i = 0; i < w.n; i++) {
    before += ref.nvt[jump - 1][i];
    after += ref.nvt[jump][i];
  }
  assert_int_equal(before, 0);
  for (int b = 0; b < 2; b++) {
    run(&w, 1 + b, 1, -2, jump, 0.0f, &on);
    same_bits(&on, &ref, w.n, rebuilt ? "lists, a near layer dropped 1.05 M"
                                       : "lists, a near layer dropped 0.95 M");
    assert_int_equal(on.builds[jump], on.builds[jump - 1] + (rebuilt ? 1 : 0));
    assert_int_equal(on.runs_at[jump], on.runs_at[jump - 1] + 1); /* the pass on them */
    out_free(&on);
  }
  fprintf(stderr, "a near layer (M = %.4f m) dropped %.2f M at substep %d: lists %s there, "
          "%ld contacts, same bits\n", (double)M, (double)frac, jump,
          rebuilt ? "rebuilt" : "kept", after);
  *contacts_at = after;
  g_motion = 0;
  g_lift = 0.0f;
  out_free(&ref);
  sc_world_free(&w);
}

static void test_near_limit(void **state) {
  (void)state;
  long kept = -1, rebuilt = -1;
  near_drop(0.95f, 0, &kept);
  assert_int_equal(kept, 0);
  near_drop(1.05f, 1, &rebuilt);
  assert_true(rebuilt > 50); /* unlisted pairs came into contact */
}

/* Two sheets 0.6 m apart, the upper one sliding and waving: nothing is
 * within reach, the lists are empty, the pass on them runs on no particle
 * (kl_active), and the positions are still the CPU reference's, bit for
 * bit. */
static void test_no_contact(void **state) {
  (void)state;
  g_lift = 0.6f;
  sc_world w;
  make_fold(&w);
  run_out ref, on[2];
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  assert_int_equal(contacts(&ref, w.n), 0);
  for (int b = 0; b < 2; b++) {
    run(&w, 1 + b, 1, -1, -1, 0.0f, &on[b]);
    same_bits(&on[b], &ref, w.n, "lists with no contact vs CPU");
    assert_true(on[b].runs >= (uint64_t)(STEPS * 3 / 4));
    for (int k = 0; k < STEPS; k++) assert_true(on[b].active[k] <= 0);
    out_free(&on[b]);
  }
  fprintf(stderr, "two sheets 0.6 m apart: lists read at %llu of %d substeps, the pass on no "
          "particle, same bits\n", (unsigned long long)on[1].runs, STEPS);
  g_lift = 0.0f;
  out_free(&ref);
  sc_world_free(&w);
}

/* A flat sheet as thick as half its spacing (the bench ladder's rule,
 * thickness = spacing / 2): its smallest altitude, s / sqrt(2), leaves a
 * margin of 0.95 s / sqrt(2) - s / 2 = 0.17 s = 0.34 t, under the old floor
 * of 0.5 t; M takes it (the floor is 0.25 t), so the sheet lists nothing
 * and the pass runs on no particle while the lists are read, same bits as
 * the CPU reference. At the old floor the reach (1.5 t = 0.75 s) took in
 * the far triangle of every quad: every particle on the lists, and lists
 * that lasted too few substeps to be kept (the ladder ran them at 4 % of
 * its substeps). */
static void test_thick_sheet(void **state) {
  (void)state;
  sc_world w;
  sc_flat_sheet(&w, N, 2.0f * T, T, 0.3f);
  run_out ref, on;
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  assert_int_equal(contacts(&ref, w.n), 0);
  run(&w, 1, 1, -1, -1, 0.0f, &on);
  same_bits(&on, &ref, w.n, "a thick flat sheet on the lists vs CPU");
  assert_true(on.runs >= (uint64_t)(STEPS * 3 / 4));
  for (int k = 0; k < STEPS; k++) assert_true(on.active[k] <= 0);
  fprintf(stderr, "flat sheet, thickness half its spacing: lists read at %llu of %d substeps, "
          "the pass on no particle\n", (unsigned long long)on.runs, STEPS);
  out_free(&on);
  out_free(&ref);
  sc_world_free(&w);
}

/* A sheet folded by HINGE's row with its far half 0.45 rad open,
 * closing 0.0105 rad a substep, so that after 40 substeps its far edge is
 * 0.7 t above the near half. */
static void make_hinge(sc_world *w) {
  sc_flat_sheet(w, N, S, T, 0.3f);
  const float zh = (float)HINGE * S, phi = 3.14159265f - OPEN0;
  for (int i = 0; i < w->n; i++)
    if (i / N > HINGE) {
      const float d = w->x[i].z - zh;
      w->x[i].z = zh + d * cosf(phi);
      w->x[i].y = d * sinf(phi);
      w->p[i] = w->x[i];
    }
}

/* The check's affine fits: the folded sheet (two layers in contact) turned
 * whole, 0.008 rad a substep about the vertical axis, spreads each
 * region's motion by the turn times its side (the ranges' test fails
 * within a few substeps) while no distance changes (a rigid turn is
 * affine: the fits' residuals stay near 0). On the fits the lists are read
 * at 3/4 of the substeps or more; on the ranges alone they last too few
 * substeps and the stage turns them off (read at 1/4 or fewer). Both give
 * the CPU reference's bits at every substep, in both kernel forms. */
static void test_spin(void **state) {
  (void)state;
  g_lift = 0.0f;
  sc_world w;
  make_fold(&w);
  g_motion = 1;
  run_out ref, on[2], rng;
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  assert_true(contacts(&ref, w.n) > 500); /* the layers touch */
  for (int b = 0; b < 2; b++) {
    run(&w, 1 + b, 1, -1, -1, 0.0f, &on[b]);
    same_bits(&on[b], &ref, w.n, "lists on the affine fits, a turning fold vs CPU");
  }
  g_affine_off = 1;
  run(&w, 2, 1, -1, -1, 0.0f, &rng);
  g_affine_off = 0;
  g_motion = 0;
  same_bits(&rng, &ref, w.n, "lists on the ranges, a turning fold vs CPU");
  const uint64_t bf = on[1].builds[STEPS - 1], br = rng.builds[STEPS - 1];
  fprintf(stderr, "a fold turning whole, %d substeps: lists built %llu times on the affine fits "
          "(%llu in the GPU form), %llu on the ranges alone; read at %llu and %llu substeps; "
          "same bits\n", STEPS,
          (unsigned long long)bf, (unsigned long long)on[0].builds[STEPS - 1],
          (unsigned long long)br, (unsigned long long)on[1].runs, (unsigned long long)rng.runs);
  assert_int_equal(on[0].builds[STEPS - 1], bf);
  assert_true(on[0].runs >= (uint64_t)(STEPS * 3 / 4)); /* kept on the fits */
  assert_true(on[1].runs >= (uint64_t)(STEPS * 3 / 4));
  assert_true(rng.runs <= (uint64_t)(STEPS / 4)); /* too short-lived on the ranges */
  out_free(&ref);
  out_free(&on[0]);
  out_free(&on[1]);
  out_free(&rng);
  sc_world_free(&w);
}

/* A sheet closing about a hinge like a book: each half moves rigidly, so
 * their regions' fits are near exact and pass the check, but the far
 * half's triangles come into reach of the near half's vertices, which had
 * not listed them: the check must see that across the two halves' fits
 * (their maps differ by the turn) and rebuild. Contacts form as the gap
 * closes; same bits as the CPU reference at every substep, on the fits and
 * on the ranges alone. */
static void test_hinge(void **state) {
  (void)state;
  sc_world w;
  make_hinge(&w);
  g_motion = 2;
  run_out ref, on, rng;
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  long late = 0; /* contacts of far-half vertices in the last 5 substeps */
  for (int k = STEPS - 5; k < STEPS; k++)
    for (int i = (HINGE + 3) * N; i < w.n; i++) late += ref.nvt[k][i];
  run(&w, 2, 1, -1, -1, 0.0f, &on);
  same_bits(&on, &ref, w.n, "lists on the affine fits, a closing hinge vs CPU");
  g_affine_off = 1;
  run(&w, 2, 1, -1, -1, 0.0f, &rng);
  g_affine_off = 0;
  g_motion = 0;
  same_bits(&rng, &ref, w.n, "lists on the ranges, a closing hinge vs CPU");
  fprintf(stderr, "a closing hinge, %d substeps: %ld late contacts away from the hinge; lists "
          "built %llu times on the affine fits, %llu on the ranges alone; same bits\n", STEPS,
          late, (unsigned long long)on.builds[STEPS - 1],
          (unsigned long long)rng.builds[STEPS - 1]);
  assert_true(late > 0);
  assert_true(on.builds[STEPS - 1] >= 2); /* rebuilt as the gap closed */
  assert_true(on.runs >= (uint64_t)(STEPS / 2));
  out_free(&ref);
  out_free(&on);
  out_free(&rng);
  sc_world_free(&w);
}

/* The folded sheet's upper layer, in contact, lifted 0.6 m whole between
 * two stages: the lists are rebuilt at that substep and name no particle,
 * so the pass runs on none, and every particle's contact count is 0 again
 * (the build zeroes them: the pass no longer writes them), same bits as
 * the CPU reference. */
static void test_contact_ends(void **state) {
  (void)state;
  const layer_move r = move_layer(0.0f, -0.6f, "lists, the upper layer lifted away");
  fprintf(stderr, "upper layer lifted 0.6 m at substep %d: %ld contacts before, %ld after\n",
          r.jump, r.before, r.after);
  assert_true(r.before > 0);
  assert_int_equal(r.after, 0);
  for (int b = 0; b < 2; b++) {
    assert_true(r.active[b][0] > 0);
    assert_int_equal(r.active[b][1], 0); /* and check_active: no contact left */
  }
}

/* The folded sheet with its lower layer lying on a floor: the clamp marks
 * it supported, so the upper layer takes the whole of each correction. On
 * the lists the clamp runs inside the check (kl_range); same bits as the
 * CPU reference, and not those of the sheet without the floor. */
static void test_supported(void **state) {
  (void)state;
  g_lift = 0.0f;
  sc_world w;
  make_fold(&w);
  run_out free_ref, ref, on[2];
  run(&w, 0, 0, -1, -1, 0.0f, &free_ref);
  g_floor = 1;
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  const size_t bytes = (size_t)w.n * sizeof(dr_float4);
  assert_true(memcmp(ref.x[STEPS - 1], free_ref.x[STEPS - 1], bytes) != 0);
  for (int b = 0; b < 2; b++) {
    run(&w, 1 + b, 1, -1, -1, 0.0f, &on[b]);
    same_bits(&on[b], &ref, w.n, "lists, lower layer on a floor, vs CPU");
    assert_true(on[b].runs >= (uint64_t)(STEPS * 3 / 4));
    out_free(&on[b]);
  }
  g_floor = 0;
  out_free(&free_ref);
  out_free(&ref);
  sc_world_free(&w);
}

static void test_overflow(void **state) {
  (void)state;
  g_lift = 0.0f; /* test_far_drop's, were it to fail */
  sc_world w;
  make_fold(&w);
  setenv("DRAPE_SELFCOL_LIST_LEN", "1", 1);
  run_out ref, on;
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  run(&w, 2, 1, -1, -1, 0.0f, &on);
  unsetenv("DRAPE_SELFCOL_LIST_LEN");
  fprintf(stderr, "lists of one entry: %llu builds, %llu passes on lists, %llu on the "
          "per-substep hash\n", (unsigned long long)on.builds[STEPS - 1],
          (unsigned long long)on.runs, (unsigned long long)on.fallbacks);
  assert_int_equal(on.runs, 0); /* every build overflowed */
  assert_int_equal(on.fallbacks, STEPS);
  assert_int_equal(on.builds[STEPS - 1], FRAMES); /* tried again at each frame's start */
  same_bits(&on, &ref, w.n, "overflowing lists vs CPU");
  out_free(&on);
  /* every list fits, all of them together do not (3 entries per particle
   * for the corners' lists): overflow too, nothing written past the buffer
   * (the sanitized build's run of this test watches the host side; the
   * sort's gate keeps the device's) */
  setenv("DRAPE_SELFCOL_LIST_TOTAL", "1", 1);
  run(&w, 2, 1, -1, -1, 0.0f, &on);
  unsetenv("DRAPE_SELFCOL_LIST_TOTAL");
  assert_int_equal(on.runs, 0);
  assert_int_equal(on.fallbacks, STEPS);
  same_bits(&on, &ref, w.n, "corner lists over their buffer vs CPU");
  out_free(&ref);
  out_free(&on);
  sc_world_free(&w);
}

/* ---- scenes ---- */
static drape_sim *make_lists(const drape_scene *s, drape_backend be, int lists) {
  selfcol_set_lists(lists);
  drape_sim *sim = make_sim_form(s, be, DRAPE_KERNEL_FORM_CPU);
  selfcol_set_lists(-1);
  return sim;
}

static void scene_bits(const char *name, int frames, uint64_t *runs_out, uint64_t *falls_out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/scenes/%s", drape_test_source_dir(), name);
  drape_scene sc;
  drape_err e = {0};
  if (drape_scene_load(path, &sc, &e)) {
    print_error("%s: %s\n", path, e.msg);
    fail();
  }
  int n = 0;
  for (int c = 0; c < sc.n_cloth; c++) {
    sc.cloth[c].self_collision_bounds = 0; /* the lists serve cloths without bounds */
    if (sc.cloth[c].material.set) {
      /* the per-constraint sheet these lists are measured on: a fabric as
       * soft as the main scene's cotton folds into creases that keep the
       * lists rebuilding, which is the bounds' case (the scene sets them) */
      sc.cloth[c].material.set = 0;
      sc.cloth[c].mass_per_area = 0.2;
      sc.cloth[c].compliance_stretch = 0, sc.cloth[c].compliance_shear = 1e-6;
      sc.cloth[c].compliance_bend = 1e-3;
    }
    n += sc.cloth[c].rows * sc.cloth[c].cols;
  }
  const size_t bytes = sizeof(float) * 4 * (size_t)n;
  float *a = malloc(bytes), *b = malloc(bytes);
  drape_sim *on = make_lists(&sc, DRAPE_BACKEND_CL, 1), *off = make_lists(&sc, DRAPE_BACKEND_CL, 0);
  for (int f = 1; f <= frames; f++) {
    assert_int_equal(drape_sim_step(on, &e), 0);
    assert_int_equal(drape_sim_step(off, &e), 0);
    if (f % 10) continue;
    assert_int_equal(drape_sim_read_positions(on, a, &e), 0);
    assert_int_equal(drape_sim_read_positions(off, b, &e), 0);
    if (memcmp(a, b, bytes)) {
      fprintf(stderr, "%s: lists and per-substep hash differ at frame %d\n", name, f);
      fail();
    }
  }
  drape_timings tm;
  drape_sim_timings(on, &tm);
  const uint64_t builds = tm.selfcol_list_builds, runs = tm.selfcol_list_passes,
                 falls = tm.selfcol_hash_passes;
  fprintf(stderr, "%s, %d frames: same bits as the per-substep hash every 10th frame; lists "
          "built %llu times, read at %llu substeps, per-substep hash at %llu\n", name, frames,
          (unsigned long long)builds, (unsigned long long)runs, (unsigned long long)falls);
  assert_true(runs > falls);
  assert_true(builds < runs / 3);
  *runs_out = runs;
  *falls_out = falls;
  drape_sim_destroy(on);
  drape_sim_destroy(off);
  /* the CPU reference gives OpenCL's bits with the lists */
  drape_sim *cpu = make_lists(&sc, DRAPE_BACKEND_CPU, 1), *cl = make_lists(&sc, DRAPE_BACKEND_CL, 1);
  for (int f = 0; f < 12; f++) {
    assert_int_equal(drape_sim_step(cpu, &e), 0);
    assert_int_equal(drape_sim_step(cl, &e), 0);
  }
  assert_int_equal(drape_sim_read_positions(cpu, a, &e), 0);
  assert_int_equal(drape_sim_read_positions(cl, b, &e), 0);
  assert_memory_equal(a, b, bytes);
  drape_sim_destroy(cpu);
  drape_sim_destroy(cl);
  free(a);
  free(b);
  drape_scene_free(&sc);
}

static void test_fold_scene(void **state) {
  (void)state;
  uint64_t runs, falls;
  const long c0 = g_cert.checked;
  scene_bits("fold.json", 100, &runs, &falls);
  fprintf(stderr, "fold.json: lists kept on the regions' maps at %ld checks, each region on "
          "one certificate\n", g_cert.checked - c0);
  assert_true(g_cert.checked > c0);
}

/* The draped sheet's lists name a few particles (the pass on them is next
 * to free), so lists that last 2 passes are kept (SELFCOL_LIST_MIN_AGE_FEW):
 * the stage stays on them (with 4 for all, 622 of 4,800 substeps of the
 * 240 frames fell back to the per-substep hash). */
static void test_main_scene(void **state) {
  (void)state;
  uint64_t runs, falls;
  const long c0 = g_cert.checked;
  scene_bits("drape_sphere.json", 90, &runs, &falls);
  assert_true(falls * 20 < runs);
  fprintf(stderr, "drape_sphere.json: lists kept on the regions' maps at %ld checks, each region "
          "on one certificate\n", g_cert.checked - c0);
  assert_true(g_cert.checked > c0);
}

/* The near lists on a 64 x 64 sheet bent into a wave (several region
 * layers, most region pairs far apart), with the default region buckets,
 * with 256 (some cells share a bucket: merged regions, found through
 * their list) and with 16 (all merged: they test every region):
 * at every build the near lists are those of the host's test of every
 * pair (check_near), and the bits are the CPU reference's. */
static void test_near_regions(void **state) {
  (void)state;
  enum { NS = 64 };
  sc_world w;
  sc_flat_sheet(&w, NS, 0.03f, T, 0.3f);
  for (int i = 0; i < w.n; i++) {
    const float u = w.x[i].x, v = w.x[i].z;
    w.x[i].y = 0.25f * sinf(4.0f * u) * cosf(3.0f * v);
    w.p[i] = w.x[i];
  }
  run_out ref;
  run(&w, 0, 0, -1, -1, 0.0f, &ref);
  const char *buckets[] = {NULL, "256", "16"};
  for (int c = 0; c < 3; c++) {
    if (buckets[c]) setenv("DRAPE_SELFCOL_LIST_BUCKETS", buckets[c], 1);
    memset(&g_near, 0, sizeof g_near);
    run_out on;
    run(&w, 2, 1, -1, -1, 0.0f, &on);
    unsetenv("DRAPE_SELFCOL_LIST_BUCKETS");
    same_bits(&on, &ref, w.n, "near lists on a waved sheet vs CPU");
    fprintf(stderr, "waved 64 x 64 sheet, %s region buckets: %ld builds checked, %ld near and "
            "%ld far region pairs, %ld merged and %ld single-cell regions\n",
            buckets[c] ? buckets[c] : "default", g_near.builds, g_near.near, g_near.far,
            g_near.merged, g_near.single);
    assert_true(g_near.builds >= 1);
    /* most pairs are far, and the cells find the near ones */
    if (c < 2) assert_true(g_near.far > 4 * g_near.near && g_near.single > 0);
    if (c == 1) assert_true(g_near.merged > 0);
    if (c == 2) assert_true(g_near.merged > g_near.single);
    out_free(&on);
  }
  out_free(&ref);
  sc_world_free(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_folded_sheet),
      cmocka_unit_test_teardown(test_bucket_collisions, unset_tri_buckets),
      cmocka_unit_test(test_jump),
      cmocka_unit_test(test_far_drop),
      cmocka_unit_test(test_near_limit),
      cmocka_unit_test(test_no_contact),
      cmocka_unit_test(test_near_regions),
      cmocka_unit_test(test_thick_sheet),
      cmocka_unit_test(test_supported),
      cmocka_unit_test(test_contact_ends),
      cmocka_unit_test(test_overflow),
      cmocka_unit_test(test_spin),
      cmocka_unit_test(test_hinge),
      cmocka_unit_test(test_fold_scene),
      cmocka_unit_test(test_main_scene),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
