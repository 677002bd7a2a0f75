/* selfcol.cl — self-collision and cloth–cloth / cloth–rope collision
 * (issue 4; seed 002 §6 "spatial hashing" and "limit the per-step motion to a
 * fraction of the particle diameter"; Müller, Ten Minute Physics lesson 15:
 * hash with the thickness as cell size, substeps instead of continuous
 * collision detection, velocity clamp). One work item per particle or
 * triangle; every kernel has a CPU twin of the same name in
 * src/cloth/selfcol_cpu.c with the same arithmetic in the same order.
 *
 * A substep's self-collision stage (run by src/cloth/selfcol_cl.c):
 *
 *   selfcol_clamp                      |x - p| <= SELFCOL_CLAMP · thickness;
 *                                      supported particles (on a collider)
 *   hash_count_particles ▸ scan ▸ hash_scatter_particles ▸ hash_sort_buckets
 *   selfcol_particles ▸ selfcol_apply  particle–particle separation
 *   hash_tri_extent ▸ hash_count_triangles ▸ scan ▸ hash_scatter_triangles
 *     ▸ hash_sort_boxes                triangles by grown bounding boxes (the
 *                                      boxes copied beside the entries)
 *   selfcol_vertex_triangle            contacts, vertex side, per-vertex slots
 *   selfcol_corner_count ▸ scan ▸ selfcol_corner_scatter ▸ hash_sort_buckets
 *   selfcol_vt_gather                  each particle combines its own requests
 *
 * Determinism (no float atomics anywhere): integer atomics only count (and
 * so hand out each entry's rank in its bucket, where the scatter puts it);
 * hash_sort_buckets (hash_sort_boxes for the triangles) then puts every
 * bucket in index order, so each
 * particle visits its candidates in a fixed order (cells in z, y, x order,
 * entries by index). Each work item writes only its own particle (Jacobi
 * style): the particle pass writes a correction per particle, applied by a
 * second kernel; the vertex-triangle pass writes each contact into a slot
 * owned by the vertex (q*K + k, in candidate order), and the triangle
 * corners' shares are regrouped per corner by a counting sort of (corner,
 * slot) keys and combined by the corner itself in slot order.
 *
 * Combining several requests on one particle (sc_request): summing them
 * overshoots (a vertex over a vertex of the other layer touches six
 * triangles that all ask for the same move); averaging them (Macklin et al.
 * 2014, "Unified Particle Physics", §4.2) undershoots when they differ in
 * size (the neighbours of the deepest contact ask for less) and left two
 * pressing sheets 0.15 thickness too close. Each request r is instead read
 * as the half-space {D : D·r >= r·r} ("move at least this far this way") and
 * D is projected onto the half-spaces one after the other, in the fixed
 * order: equal parallel requests give one of them, different parallel ones
 * the largest, orthogonal ones their sum.
 *
 * Layout of the small tables (built by the host, see selfcol.h):
 *   sobj[i]  object of particle i, or -1 if it takes no part
 *   tobj[t]  object of triangle t, or -1 if it is not hashed (particle mode)
 *   objp[o]  (thickness m, friction mu, 0, 0)
 *   objf[o]  SELFCOL_F_* flags (rope) */

#define SELFCOL_F_ROPE 1

inline float sc_dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline float3 sc_cross(float3 a, float3 b) {
  return (float3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/* Cell coordinate of v for a cell size 1/inv_cell: floor(v inv_cell),
 * clamped to ±1e9 so that a runaway position still gives a valid integer,
 * and NaN (whose conversion to int is undefined) explicitly sent to the
 * lowest cell: the comparisons are false for NaN, so it takes the first
 * branch. selfcol_cpu.c takes floorf first and clamps after; the same
 * integer, since the bounds are integers and floor is monotone. Here the
 * floor is a truncation toward zero, one less where that rounded a
 * negative value up: exact, because |f| <= 1e9 fits an int and (float)i is
 * f itself wherever f is an integer (every float from 2^23 on is), and
 * PoCL's floor() was a branchy software routine, a fifth of the triangle
 * count's time (test_selfcol_hash checks this against floorf). */
inline int sc_coord(float v, float inv_cell) {
  float f = v * inv_cell;
  f = f >= -1.0e9f ? f : -1.0e9f;
  f = f <= 1.0e9f ? f : 1.0e9f;
  const int i = (int)f;
  return f < (float)i ? i - 1 : i;
}

/* Hash of an integer cell into a power-of-2 table: ix + P1 iy + P2 iz with
 * two of Teschner et al.'s large primes (2003, "Optimized Spatial Hashing for
 * Collision Detection of Deformable Objects"). Their XOR of three products
 * scatters neighbouring cells over the whole table; this sum keeps cells
 * that are neighbours along x in neighbouring buckets, so a sheet's rows
 * (and the 2 cells per axis of a query) share cache lines: measured 1.5x
 * faster for the whole stage at 512x512 (bench_selfcol), same collisions
 * otherwise. A bucket may hold several cells; the passes check the cell. */
inline uint sc_hash(int ix, int iy, int iz, uint mask) {
  return ((uint)ix + (uint)iy * 19349663u + (uint)iz * 83492791u) & mask;
}

/* Thickness kept between two colliding objects: within one object its
 * thickness, between two the mean (each layer owns half of its thickness). */
inline float sc_pair_thickness(float ti, float tj, int same) {
  return same ? ti : 0.5f * (ti + tj);
}

/* Closest point of triangle (a, b, c) to q, as barycentric weights (u, v, w)
 * of a, b, c, by the Voronoi regions of the triangle (Ericson, "Real-Time
 * Collision Detection", §5.1.5). Returns 1 when the closest point lies
 * inside the face, 0 on an edge or corner, -1 for a degenerate triangle. */
inline int sc_closest(float3 q, float3 a, float3 b, float3 c, float3 *bary) {
  float3 ab = b - a, ac = c - a, aq = q - a;
  float d1 = sc_dot(ab, aq), d2 = sc_dot(ac, aq);
  if (d1 <= 0.0f && d2 <= 0.0f) { *bary = (float3)(1.0f, 0.0f, 0.0f); return 0; }
  float3 bq = q - b;
  float d3 = sc_dot(ab, bq), d4 = sc_dot(ac, bq);
  if (d3 >= 0.0f && d4 <= d3) { *bary = (float3)(0.0f, 1.0f, 0.0f); return 0; }
  float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
    float t = d1 / (d1 - d3);
    *bary = (float3)(1.0f - t, t, 0.0f);
    return 0;
  }
  float3 cq = q - c;
  float d5 = sc_dot(ab, cq), d6 = sc_dot(ac, cq);
  if (d6 >= 0.0f && d5 <= d6) { *bary = (float3)(0.0f, 0.0f, 1.0f); return 0; }
  float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
    float t = d2 / (d2 - d6);
    *bary = (float3)(1.0f - t, 0.0f, t);
    return 0;
  }
  float va = d3 * d6 - d5 * d4;
  if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
    float t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    *bary = (float3)(0.0f, 1.0f - t, t);
    return 0;
  }
  float den = va + vb + vc;
  if (!(den > 0.0f)) return -1;
  float v = vb / den, w = vc / den;
  *bary = (float3)(1.0f - v - w, v, w);
  return 1;
}

inline float3 sc_point(float3 a, float3 b, float3 c, float3 bary) {
  return a * bary.x + b * bary.y + c * bary.z;
}

/* Adds the part of request r that D does not yet cover (see the top). A
 * NaN request makes D NaN (issue 13: never hide a NaN; the solver's
 * finiteness check then stops the run). */
inline float3 sc_request(float3 D, float3 r) {
  float r2 = sc_dot(r, r);
  if (r2 == 0.0f) return D;
  float have = sc_dot(D, r) / r2;
  return have >= 1.0f ? D : D + r * (1.0f - have);
}

/* Records a query that hit its cap: counter c of object o (saturating, so
 * it never wraps back to "never capped") and the most candidates seen. */
inline void sc_cap_hit(__global uint *caps, int o, int c, uint cand) {
  __global uint *k = caps + 8 * o + c;
  if (*k < 0x40000000u) atomic_inc(k);
  atomic_max(k + 1, cand);
}

/* ---- velocity clamp and support ------------------------------------------
 * Seed 002 §6 ("limit the per-step change of position to a fraction of the
 * particle diameter") and Müller's lesson 15: with the motion of every
 * colliding particle in one substep limited to frac·thickness (frac = 0.5),
 * two surfaces approach each other by at most one thickness per substep, so
 * a vertex that started on one side of a triangle cannot reach the far side
 * beyond the detection band (distance < thickness) unseen. Pinned and
 * kinematic particles (w = 0) are driven, not clamped.
 *
 * Support: a particle resting on the floor or a sphere (within `band` of
 * the surface inflated by its thickness; the sphere's centre at the end of
 * the substep, as collide.cl puts it) gets inverse mass 0 in the passes of
 * this substep (wsc), so a sheet lying on a collider is not pushed into it
 * by the layer above — the sphere/floor stage would push it straight back
 * into that layer — and the layer above takes the whole correction: mass
 * scaling for stacks, Macklin et al. 2014, "Unified Particle Physics", §5.2.
 * A pair in which every particle is supported falls back to true masses. */
inline float4 sc_clamp1(const int i, __global float4 *x, __global const float4 *p,
                        __global const int *sobj, __global const float4 *objp,
                        __global float *wsc, const float frac, const float band,
                        const int has_floor, const float floor_y,
                        __global const dr_sphere *spheres, const int n_spheres,
                        const float t_end) {
  int o = sobj[i];
  float4 xi = x[i];
  wsc[i] = xi.w;
  if (o < 0 || xi.w == 0.0f) return xi;
  float4 pi = p[i];
  float3 d = xi.xyz - pi.xyz;
  float l2 = sc_dot(d, d);
  float th = objp[o].x;
  float lim = frac * th;
  if (!(l2 <= lim * lim)) { /* NaN: clamped to NaN, not left as it was */
    float k = lim / sqrt(l2);
    xi.xyz = pi.xyz + d * k;
    x[i] = xi;
  }
  int held = has_floor && xi.y < floor_y + th + band * th;
  for (int k = 0; k < n_spheres && !held; k++) {
    dr_sphere sp = spheres[k];
    float3 c = sp.center_radius.xyz + sp.velocity_friction.xyz * t_end;
    float r = sp.center_radius.w + th + band * th;
    float3 dc = xi.xyz - c;
    held = sc_dot(dc, dc) < r * r;
  }
  if (held) wsc[i] = 0.0f;
  return xi;
}

__kernel void selfcol_clamp(__global float4 *x, __global const float4 *p,
                            __global const int *sobj, __global const float4 *objp,
                            __global float *wsc, const float frac, const float band,
                            const int has_floor, const float floor_y,
                            __global const dr_sphere *spheres, const int n_spheres,
                            const float t_end, const int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  sc_clamp1(i, x, p, sobj, objp, wsc, frac, band, has_floor, floor_y, spheres, n_spheres, t_end);
}

/* ---- particle hash: cell size = 2 · the largest thickness -------------- */
/* The count's atomic_inc returns the particle's rank in its bucket, kept so
 * the scatter needs no second atomic (the order is fixed by the sort). */
__kernel void hash_count_particles(__global const float4 *x, __global const int *sobj,
                                   __global uint *key, __global uint *rank, __global uint *count,
                                   const int n, const float inv_cell, const uint mask) {
  int i = get_global_id(0);
  if (i >= n) return;
  if (sobj[i] < 0) return;
  float4 xi = x[i];
  uint h = sc_hash(sc_coord(xi.x, inv_cell), sc_coord(xi.y, inv_cell), sc_coord(xi.z, inv_cell),
                   mask);
  key[i] = h;
  rank[i] = atomic_inc(&count[h]);
}

__kernel void hash_scatter_particles(__global const int *sobj, __global const uint *key,
                                     __global const uint *rank, __global const uint *start,
                                     __global uint *vals, const int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  if (sobj[i] < 0) return;
  vals[start[key[i]] + rank[i]] = (uint)i;
}

/* ---- particle–particle separation ---------------------------------------
 * Pairs closer than d are pushed apart to d, weighted by inverse mass
 * (PBD, Müller et al. 2007; lesson 15). d is the pair's thickness, and for
 * two particles of one object d = min(thickness, rest distance): particles
 * that are closer than the thickness in the rest mesh (neighbours of a fine
 * mesh) only keep their rest distance, so the pass never fights the
 * cloth's own constraints. Rope nodes collide with cloth, not with ropes.
 * Friction (Macklin et al. 2014, §6.1): the relative tangential motion of the
 * pair in this substep is removed when it is below mu·depth, else reduced
 * by mu·depth. Cells are 2·t_max wide (t_max >= every d) and the query
 * visits the cells from floor((x - t_max)/cell) to floor((x + t_max)/cell)
 * on each axis: 2 per axis, 8 in all (27 with cells of t_max cost more in
 * bucket lookups than they save in candidates; measured with
 * bench_selfcol). Rounding is monotonic, so a point within t_max of x is in
 * that range. A candidate counts only in the cell it was hashed from, so
 * each pair is seen once even when two cells share a bucket. */
__kernel void selfcol_particles(__global const float4 *x, __global const float4 *p,
                                __global const float *wsc,
                                __global const float4 *rest, __global const int *sobj,
                                __global const int *objf, __global const float4 *objp,
                                __global const uint *start, __global const uint *vals,
                                __global float4 *delta, __global int *ncon, const int n,
                                const float inv_cell, const float reach, const uint mask,
                                const uint cap, const int cap_n, __global uint *exam,
                                __global uint *caps) {
  int i = get_global_id(0);
  if (i >= n) return;
  int oi = sobj[i];
  if (oi < 0) {
    delta[i] = (float4)(0.0f);
    ncon[i] = 0;
    exam[i] = 0u;
    return;
  }
  float4 xi = x[i];
  float3 pi = p[i].xyz;
  float3 ri = rest[i].xyz;
  float ti = objp[oi].x, mui = objp[oi].y;
  int rope_i = objf[oi] & SELFCOL_F_ROPE;
  int3 c0 = (int3)(sc_coord(xi.x - reach, inv_cell), sc_coord(xi.y - reach, inv_cell),
                   sc_coord(xi.z - reach, inv_cell));
  int3 c1 = (int3)(sc_coord(xi.x + reach, inv_cell), sc_coord(xi.y + reach, inv_cell),
                   sc_coord(xi.z + reach, inv_cell));
  float3 D = (float3)(0.0f);
  int cnt = 0;
  uint left = cap, cand = 0u; /* entries this query may still read; all it had */
  for (int qz = c0.z; qz <= c1.z; qz++)
    for (int qy = c0.y; qy <= c1.y; qy++)
      for (int qx = c0.x; qx <= c1.x; qx++) {
        uint h = sc_hash(qx, qy, qz, mask);
        uint lo = start[h], hi = start[h + 1u];
        cand += hi - lo;
        if (hi - lo > left) hi = lo + left; /* the first `left`, by index */
        uint e = lo;
        for (; e < hi && cnt < cap_n; e++) {
          int j = (int)vals[e];
          if (j == i) continue;
          float4 xj = x[j];
          /* another cell that shares this bucket: it is visited on its own */
          if (sc_coord(xj.x, inv_cell) != qx || sc_coord(xj.y, inv_cell) != qy ||
              sc_coord(xj.z, inv_cell) != qz)
            continue;
          int oj = sobj[j];
          if (rope_i && (objf[oj] & SELFCOL_F_ROPE)) continue;
          int same = oi == oj;
          float d = sc_pair_thickness(ti, objp[oj].x, same);
          float3 dv = xi.xyz - xj.xyz;
          float l2 = sc_dot(dv, dv);
          /* written so that NaN fails them: no contact from a NaN (issue 13) */
          if (!(l2 < d * d) || l2 == 0.0f) continue;
          if (same) {
            float3 dr = ri - rest[j].xyz;
            float r2 = sc_dot(dr, dr);
            if (!(l2 < r2)) continue; /* not closer than in the rest mesh */
            d = fmin(d, sqrt(r2));
          }
          float wi = wsc[i], wj = wsc[j];
          if (wi + wj == 0.0f) { /* both supported: true masses */
            wi = xi.w;
            wj = xj.w;
          }
          if (wi == 0.0f) continue; /* this particle does not move */
          float ws = wi + wj;
          float len = sqrt(l2);
          float3 nrm = dv / len;
          float depth = d - len;
          float3 rel = (xi.xyz - pi) - (xj.xyz - p[j].xyz);
          float rn = sc_dot(rel, nrm);
          float3 rt = rel - nrm * rn;
          float lt = sqrt(sc_dot(rt, rt));
          float lim = fmax(mui, objp[oj].y) * depth;
          float f = lt <= lim ? 1.0f : lim / lt;
          float share = wi / ws;
          D = sc_request(D, (nrm * depth - rt * f) * share);
          cnt++;
        }
        left -= e - lo;
      }
  delta[i] = (float4)(D, 0.0f);
  ncon[i] = cnt;
  exam[i] = cap - left;
  if (cap - left < cand) sc_cap_hit(caps, oi, 0, cand); /* entries left unread */
}

__kernel void selfcol_apply(__global float4 *x, __global const float4 *delta, const int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float4 d = delta[i];
  if (d.x != 0.0f || d.y != 0.0f || d.z != 0.0f) {
    float4 xi = x[i];
    xi.xyz = xi.xyz + d.xyz;
    x[i] = xi;
  }
}

/* ---- triangle hash --------------------------------------------------------
 * Each triangle goes into every cell its bounding box, grown by `grow` (the
 * largest thickness), overlaps, so a vertex closer than the thickness to a
 * triangle lies inside that box and finds the triangle by looking in its own
 * cell only. The cell size is the largest grown box side this substep
 * (times 1.01 against rounding): every box then spans at most 2 cells per
 * axis, at most 8 entries per triangle, which bounds the entry buffer
 * (allocated once). The maximum is taken with atomic_max on the float's bits
 * (positive floats order like their bit patterns), exact and order-free. */
inline int sc_tri_ok(__global const uint *tris, __global const int *tobj, int t, uint3 *v) {
  if (tobj[t] < 0) return 0;
  uint a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
  if (a == b || b == c || a == c) return 0; /* torn (degenerate) */
  *v = (uint3)(a, b, c);
  return 1;
}

inline void sc_tri_box(__global const float4 *x, uint3 v, float grow, float3 *lo, float3 *hi) {
  float3 a = x[v.x].xyz, b = x[v.y].xyz, c = x[v.z].xyz;
  *lo = fmin(fmin(a, b), c) - (float3)(grow);
  *hi = fmax(fmax(a, b), c) + (float3)(grow);
}

inline float sc_tri_inv_cell(__global const uint *maxbits) {
  float side = as_float(maxbits[0]);
  return side > 0.0f ? 1.0f / (side * 1.01f) : 0.0f;
}

/* Also keeps each box (tbox[2t], tbox[2t+1]): the count reads it, and the
 * vertex-triangle pass rejects most candidates with it before loading the
 * three corners. */
/* The largest side goes through a local maximum first, one global
 * atomic_max per work-group. Why: every triangle hitting one global word
 * made the cores fight over its cache line (PoCL: this kernel took as long
 * as counting the triangles into the hash). The maximum of non-negative
 * floats compared as uints is exact, so the result is the same. */
__kernel void hash_tri_extent(__global const float4 *x, __global const uint *tris,
                              __global const int *tobj, const int n_tris, const float grow,
                              const float limit, __global uint *maxbits,
                              __global float4 *tbox) {
  __local uint group_max;
  const int t = get_global_id(0);
  if (get_local_id(0) == 0) group_max = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint3 v;
  if (t < n_tris && sc_tri_ok(tris, tobj, t, &v)) {
    float3 lo, hi;
    sc_tri_box(x, v, grow, &lo, &hi);
    float3 s = hi - lo;
    float side = fmax(fmax(s.x, s.y), s.z);
    /* A corner that is NaN or infinite (fmin/fmax would skip a NaN) leaves
     * the triangle out of the hash (w = 0): it cannot be closest to
     * anything, and must not size the cells. */
    float3 a = x[v.x].xyz, b = x[v.y].xyz, c = x[v.z].xyz;
    float chk = (a.x + a.y + a.z) + (b.x + b.y + b.z) + (c.x + c.y + c.z);
    const int ok = chk - chk == 0.0f;
    /* wider than `limit`: the wide bucket (hash_count_triangles), not the
     * cells, and it does not size them */
    const int wide = ok && !(side <= limit);
    tbox[2 * t] = (float4)(lo, ok && !wide ? 1.0f : 0.0f);
    tbox[2 * t + 1] = (float4)(hi, wide ? 1.0f : 0.0f);
    if (!(side < 1.0e30f)) side = 1.0e30f; /* a blown-up mesh: one huge cell */
    if (ok && !wide) atomic_max(&group_max, as_uint(side));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0 && group_max != 0u) atomic_max(maxbits, group_max);
}

/* Cell range of a triangle's grown box, at most 2 cells per axis. */
inline void sc_tri_cells(__global const float4 *tbox, int t, float inv, int3 *c0, int3 *c1) {
  float3 lo = tbox[2 * t].xyz, hi = tbox[2 * t + 1].xyz;
  *c0 = (int3)(sc_coord(lo.x, inv), sc_coord(lo.y, inv), sc_coord(lo.z, inv));
  *c1 = (int3)(sc_coord(hi.x, inv), sc_coord(hi.y, inv), sc_coord(hi.z, inv));
  *c1 = min(*c1, *c0 + (int3)(1));
}

/* Up to 8 (bucket, rank) pairs per triangle in slots 8t..8t+7; unused
 * slots get the bucket 0xffffffff. A wide triangle (tbox[2t + 1].w != 0,
 * hash_tri_extent) gets the one bucket mask + 1, after the cells': the
 * wide bucket, which every query reads besides its cells. */
__kernel void hash_count_triangles(__global const float4 *tbox, __global const uint *tris,
                                   __global const int *tobj, __global const uint *maxbits,
                                   __global uint *key, __global uint *rank, __global uint *count,
                                   const int n_tris, const uint mask) {
  int t = get_global_id(0);
  if (t >= n_tris) return;
  int m = 0;
  uint3 v;
  const int ok = sc_tri_ok(tris, tobj, t, &v);
  if (ok && tbox[2 * t].w != 0.0f) {
    float inv = sc_tri_inv_cell(maxbits);
    int3 c0, c1;
    sc_tri_cells(tbox, t, inv, &c0, &c1);
    for (int z = c0.z; z <= c1.z; z++)
      for (int y = c0.y; y <= c1.y; y++)
        for (int xx = c0.x; xx <= c1.x; xx++) {
          uint h = sc_hash(xx, y, z, mask);
          key[8 * t + m] = h;
          rank[8 * t + m] = atomic_inc(&count[h]);
          m++;
        }
  } else if (ok && tbox[2 * t + 1].w != 0.0f) {
    key[8 * t] = mask + 1u;
    rank[8 * t] = atomic_inc(&count[mask + 1u]);
    m = 1;
  }
  for (; m < 8; m++) key[8 * t + m] = 0xffffffffu;
}

__kernel void hash_scatter_triangles(__global const uint *key, __global const uint *rank,
                                     __global const uint *start, __global uint *vals,
                                     const int n_tris) {
  int t = get_global_id(0);
  if (t >= n_tris) return;
  for (int m = 0; m < 8; m++) {
    uint h = key[8 * t + m];
    if (h == 0xffffffffu) break;
    vals[start[h] + rank[8 * t + m]] = (uint)t;
  }
}

/* Box lo..hi as entry e of the planes (eb[k * plane + e], k: lo x, y, z,
 * hi x, y, z) that sc_box_hits reads eight at a time. */
inline void sc_put_box(__global float *eb, const uint plane, const uint e, const float3 lo,
                       const float3 hi) {
  eb[e] = lo.x;
  eb[plane + e] = lo.y;
  eb[2u * plane + e] = lo.z;
  eb[3u * plane + e] = hi.x;
  eb[4u * plane + e] = hi.y;
  eb[5u * plane + e] = hi.z;
}

/* The triangle hash's sort (hash_sort_range), then the grown boxes of all
 * of each bucket's entries copied beside them, one plane per coordinate
 * (eb[k * plane + e], k: lo x, y, z, hi x, y, z). Why: every reader of
 * the hash tests its entries' boxes first, and most fail; reading a
 * bucket's boxes in entry order, eight at a time (sc_box_hits), replaces
 * a random load of tbox[vals[e]] and a scalar test per entry. On the main
 * scene that loop was most of kl_lists, the largest kernel of a list
 * build; on the twist, most of the bounds' and the edge passes' time went
 * to it. The copies are the same floats as tbox, so every test on them is
 * the test on tbox. All entries: the bounds' readers take a bucket whole
 * up to their own cap. */
__kernel void hash_sort_boxes(__global const uint *start, __global uint *vals,
                              const uint n_buckets, const uint cap,
                              __global const float4 *tbox, __global float *eb,
                              const uint plane) {
  const uint b = get_global_id(0);
  if (b >= n_buckets) return;
  const uint lo = start[b], hi = start[b + 1u];
  hash_sort_range(vals, lo, hi, cap);
  for (uint e = lo; e < hi; e++) {
    const uint t = vals[e];
    sc_put_box(eb, plane, e, tbox[2u * t].xyz, tbox[2u * t + 1u].xyz);
  }
}

/* Which of the entries e0 .. e0 + 7 (those below hi) have a box that,
 * widened by pad, meets the query box qlo..qhi (bit k: entry e0 + k);
 * with r2 >= 0 (kl_lists: a point query, qlo = qhi) also whose box shrunk
 * back by grow is within sqrt(r2) of the point. Each lane makes the
 * comparisons the scalar tests on tbox make (l - pad <= qhi, qlo <= h +
 * pad; NaN fails), so the readers visit only the entries that pass and
 * keep their own per-entry tests. */
inline uint sc_box_hits(__global const float *eb, const uint plane, const uint e0,
                        const uint hi, const float3 qlo, const float3 qhi, const float pad,
                        const float grow, const float r2) {
  const float8 lx = vload8(0, eb + e0), ly = vload8(0, eb + plane + e0),
               lz = vload8(0, eb + 2u * plane + e0);
  const float8 hx = vload8(0, eb + 3u * plane + e0), hy = vload8(0, eb + 4u * plane + e0),
               hz = vload8(0, eb + 5u * plane + e0);
  const float8 pd = (float8)(pad);
  const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
  int8 in = (lane < (int8)((int)(hi - e0))) & ((float8)(qhi.x) >= lx - pd) &
            ((float8)(qlo.x) <= hx + pd) & ((float8)(qhi.y) >= ly - pd) &
            ((float8)(qlo.y) <= hy + pd) & ((float8)(qhi.z) >= lz - pd) &
            ((float8)(qlo.z) <= hz + pd);
  if (!any(in)) return 0u;
  if (r2 >= 0.0f) {
    const float8 g = (float8)(grow), z = (float8)(0.0f);
    const float8 qx = (float8)(qlo.x), qy = (float8)(qlo.y), qz = (float8)(qlo.z);
    const float8 ex = fmax(fmax(lx + g - qx, qx - (hx - g)), z);
    const float8 ey = fmax(fmax(ly + g - qy, qy - (hy - g)), z);
    const float8 ez = fmax(fmax(lz + g - qz, qz - (hz - g)), z);
    in &= (ex * ex + ey * ey + ez * ez) <= (float8)(r2);
  }
  const int8 bit = in & (int8)(1, 2, 4, 8, 16, 32, 64, 128);
  const int4 b4 = bit.lo | bit.hi;
  const int2 b2 = b4.lo | b4.hi;
  return (uint)(b2.x | b2.y);
}

/* The lowest bit set of m (m != 0): the next entry of a scan's chunk. */
inline uint sc_low_bit(const uint m) { return 31u - clz(m & (0u - m)); }

/* ---- vertex–triangle proximity --------------------------------------------
 * A vertex q closer than d to a triangle (a, b, c) it does not belong to is
 * pushed out to distance d; the constraint C = n·(q - (u a + v b + w c)) - d
 * >= 0 (Bridson et al. 2002 style proximity, projected as a PBD inequality,
 * Müller et al. 2007) gives q the share w_q/s and corner k the share
 * -b_k w_k/s of the correction, s = w_q + u² w_a + v² w_b + w² w_c. The
 * normal n is the triangle's, oriented to the side q was on at the start of
 * the substep (positions p), so a vertex that crossed inside the detection
 * band goes back where it came from. When the closest point is on an edge
 * or corner and q is still on its side, q is pushed away from that point
 * instead (a push along n would throw it sideways off the border).
 * d: the pair thickness, for one object min(thickness, rest distance of q
 * to the triangle) as in the particle pass. Friction as in the particle
 * pass, on q's motion relative to the triangle point. Up to K contacts per
 * vertex, the first K in triangle-index order. Slot record:
 *   rec_a = (J xyz, 1 if true masses else 0), rec_b = (u, v, w, the weight
 *   sum s of J = correction / s),
 *   rec_t = triangle index
 * with q moving by w_q J and corner k by -b_k w_k J (w: wsc or true). */
__kernel void selfcol_vertex_triangle(__global const float4 *x, __global const float4 *p,
                                      __global const float *wsc,
                                      __global const float4 *rest, __global const int *sobj,
                                      __global const int *objf, __global const float4 *objp,
                                      __global const uint *tris, __global const int *tobj,
                                      __global const float4 *tbox, const float grow,
                                      __global const uint *maxbits, __global const uint *start,
                                      __global const uint *vals, __global float4 *rec_a,
                                      __global float4 *rec_b, __global uint *rec_t,
                                      __global int *nvt, const int n,
                                      const int K, const uint mask, const uint cap,
                                      __global uint *exam, __global uint *caps,
                                      __global const int *lstn, __global const uint *lst,
                                      const int L, __global uchar *cmap,
                                      __global const uint *act, const int nact,
                                      __global const float *eb, const uint plane) {
  int q = get_global_id(0);
  if (nact >= 0) { /* on the lists: the active particles only (kl_active) */
    if (q >= nact) return;
    q = (int)act[q];
  }
  if (q >= n) return;
  int oq = sobj[q];
  int k = 0;
  uint seen = 0u;
  float inv = sc_tri_inv_cell(maxbits);
  if (oq >= 0 && inv > 0.0f) {
    float4 xq4 = x[q];
    float3 xq = xq4.xyz, pq = p[q].xyz;
    float tq = objp[oq].x, muq = objp[oq].y;
    /* its kept contact list (L > 0: kl_lists), or else its bucket */
    const int exact = L > 0;
    __global const uint *src = vals;
    uint lo, full, wlo = 0u, wfull = 0u;
    if (exact) {
      src = lst + (size_t)q * (size_t)L;
      lo = 0u;
      full = (uint)lstn[q];
    } else {
      uint h = sc_hash(sc_coord(xq.x, inv), sc_coord(xq.y, inv), sc_coord(xq.z, inv), mask);
      lo = start[h];
      full = start[h + 1u];
      wlo = start[mask + 1u]; /* the wide bucket (hash_count_triangles) */
      wfull = start[mask + 2u];
    }
    uint prev = 0xffffffffu;
    /* the first `cap` entries of the bucket and of the wide bucket, merged
     * by triangle index (a triangle is in one of them): the order of one
     * bucket holding both, which the kept lists give too */
    const uint hi = full - lo > cap ? lo + cap : full;
    const uint whi = wfull - wlo > cap ? wlo + cap : wfull;
    uint e = lo, w = wlo;
    /* on the hash, the bucket's entries whose box holds xq, eight at a
     * time (sc_box_hits: the box test below, which the others would
     * fail): hm, those of the chunk at cb not yet taken. Only while the
     * wide bucket is empty: merged with it, the count of entries read
     * (exam, and whether the cap was hit) would depend on where the
     * skipped entries fall between its triangles */
    const int skim = !exact && whi == wlo;
    const float pad = 0.01f * grow;
    uint cb = lo, ec = lo, hm = 0u;
    while (k < K) {
      if (skim) {
        while (hm == 0u && ec < hi) {
          cb = ec;
          hm = sc_box_hits(eb, plane, cb, hi, xq, xq, pad, 0.0f, -1.0f);
          ec += 8u;
        }
        e = hm != 0u ? cb + sc_low_bit(hm) : hi;
      }
      uint t;
      const uint at = e;
      if (e < hi && (w >= whi || src[e] <= vals[w])) {
        t = src[e++];
        hm &= hm - 1u;
      } else if (w < whi) {
        t = vals[w++];
      } else {
        break;
      }
      if (t == prev) continue; /* two of its cells share this bucket */
      prev = t;
      if (exact) {
        /* the kept contact lists (kl_lists): entry `at` is triangle t; it
         * is no contact unless the slot is written below */
        cmap[(size_t)q * (size_t)L + at] = 0xff;
        uint3 v;
        if (!sc_tri_ok(tris, tobj, (int)t, &v)) continue; /* torn since */
      } else {
        /* cheap reject: outside the triangle's box (grown by grow >= d, and
         * 1% more against the rounding of the closest point) */
        float3 blo = tbox[2 * t].xyz - (float3)(pad);
        float3 bhi = tbox[2 * t + 1].xyz + (float3)(pad);
        if (!all(xq >= blo) || !all(xq <= bhi)) continue; /* NaN: outside */
      }
      uint ia = tris[3 * t], ib = tris[3 * t + 1], ic = tris[3 * t + 2];
      if (ia == (uint)q || ib == (uint)q || ic == (uint)q) continue;
      int ot = tobj[t];
      int same = ot == oq;
      float d = sc_pair_thickness(tq, objp[ot].x, same);
      float4 xa = x[ia], xb = x[ib], xc = x[ic];
      float3 bary;
      int face = sc_closest(xq, xa.xyz, xb.xyz, xc.xyz, &bary);
      if (face < 0) continue;
      float3 ev = xq - sc_point(xa.xyz, xb.xyz, xc.xyz, bary);
      float l2 = sc_dot(ev, ev);
      if (!(l2 < d * d)) continue;
      if (same) {
        float3 rb;
        float3 rq = rest[q].xyz, ra = rest[ia].xyz, rbb = rest[ib].xyz, rc = rest[ic].xyz;
        if (sc_closest(rq, ra, rbb, rc, &rb) < 0) continue;
        float3 er = rq - sc_point(ra, rbb, rc, rb);
        float r2 = sc_dot(er, er);
        if (!(l2 < r2)) continue; /* not closer than in the rest mesh */
        d = fmin(d, sqrt(r2));
      }
      float3 pa = p[ia].xyz, pb = p[ib].xyz, pc = p[ic].xyz;
      float3 n0 = sc_cross(pb - pa, pc - pa);
      float side = sc_dot(n0, pq - pa) >= 0.0f ? 1.0f : -1.0f;
      float3 nc = sc_cross(xb.xyz - xa.xyz, xc.xyz - xa.xyz);
      float nl = sqrt(sc_dot(nc, nc));
      if (!(nl > 0.0f)) continue;
      float3 nrm = nc * (side / nl);
      float hgt = sc_dot(nrm, ev);
      float3 dir;
      float depth;
      if (face > 0 || hgt < 0.0f || l2 == 0.0f) {
        dir = nrm;
        depth = d - hgt;
      } else {
        float len = sqrt(l2);
        dir = ev / len;
        depth = d - len;
      }
      if (!(depth > 0.0f)) continue;
      /* supported particles weigh nothing (see selfcol_clamp), unless all
       * four are: then the true masses; rec_a.w records which */
      float wq = wsc[q], wa = wsc[ia], wb = wsc[ib], wc = wsc[ic], mode = 0.0f;
      float s = wq + bary.x * bary.x * wa + bary.y * bary.y * wb + bary.z * bary.z * wc;
      if (s == 0.0f) {
        mode = 1.0f;
        s = xq4.w + bary.x * bary.x * xa.w + bary.y * bary.y * xb.w + bary.z * bary.z * xc.w;
      }
      if (!(s > 0.0f)) continue;
      float3 rel = (xq - pq) - sc_point(xa.xyz - pa, xb.xyz - pb, xc.xyz - pc, bary);
      float rn = sc_dot(rel, dir);
      float3 rt = rel - dir * rn;
      float lt = sqrt(sc_dot(rt, rt));
      float lim = fmax(muq, objp[ot].y) * depth;
      float f = lt <= lim ? 1.0f : lim / lt;
      float3 J = (dir * depth - rt * f) / s;
      int slot = q * K + k;
      rec_a[slot] = (float4)(J, mode);
      rec_b[slot] = (float4)(bary, s);
      rec_t[slot] = t;
      if (exact) cmap[(size_t)q * (size_t)L + at] = (uchar)k;
      k++;
    }
    /* entries after the K-th contact are no contacts either */
    if (exact)
      for (uint r = e; r < full; r++) cmap[(size_t)q * (size_t)L + r] = 0xff;
    seen = (e - lo) + (w - wlo);
    /* capped: it read a bucket up to the cap (not stopped by the K slots)
     * and the bucket had more */
    if (k < K && ((e == hi && hi < full) || (w == whi && whi < wfull)))
      sc_cap_hit(caps, oq, 2, max(full - lo, wfull - wlo));
  }
  nvt[q] = k;
  exam[q] = seen;
}

/* Regroup the triangle side of the contacts by corner particle: key = the
 * corner, value = slot*4 + corner index (0..2); rank[slot*3 + corner]. */
__kernel void selfcol_corner_count(__global const uint *tris, __global const uint *rec_t,
                                   __global const int *nvt, __global uint *count,
                                   __global uint *rank, const int n, const int K) {
  int q = get_global_id(0);
  if (q >= n) return;
  int m = nvt[q];
  for (int k = 0; k < m; k++) {
    uint slot = (uint)(q * K + k);
    uint t = rec_t[slot];
    for (int c = 0; c < 3; c++) rank[3u * slot + (uint)c] = atomic_inc(&count[tris[3 * t + c]]);
  }
}

__kernel void selfcol_corner_scatter(__global const uint *tris, __global const uint *rec_t,
                                     __global const int *nvt, __global const uint *start,
                                     __global const uint *rank, __global uint *vals, const int n,
                                     const int K) {
  int q = get_global_id(0);
  if (q >= n) return;
  int m = nvt[q];
  for (int k = 0; k < m; k++) {
    uint slot = (uint)(q * K + k);
    uint t = rec_t[slot];
    for (int c = 0; c < 3; c++)
      vals[start[tris[3 * t + c]] + rank[3u * slot + (uint)c]] = slot * 4u + (uint)c;
  }
}

/* Each particle combines its own requests (sc_request): first its contacts
 * as a vertex (slot order), then as a triangle corner (sorted slot order;
 * L > 0: through the kept corner lists). Reads only the contact records,
 * so it may write x directly. */
__kernel void selfcol_vt_gather(__global float4 *x, __global const float *wsc,
                                __global const float4 *rec_a, __global const float4 *rec_b,
                                __global const int *nvt, __global const uint *start,
                                __global const uint *vals, const int n, const int K,
                                __global const int *sobj, const uint cap,
                                __global uint *caps, __global const uchar *cmap,
                                const int L, __global const uint *act, const int nact) {
  int j = get_global_id(0);
  if (nact >= 0) { /* on the lists: the active particles only (kl_active) */
    if (j >= nact) return;
    j = (int)act[j];
  }
  if (j >= n) return;
  float4 xj = x[j];
  if (xj.w == 0.0f) return;
  int m = nvt[j];
  uint lo = start[j], hi = start[j + 1];
  if (m == 0 && lo == hi) return;
  /* at most `cap` shares as a corner: the first by slot. Without the kept
   * lists every entry is a contact and the sort ordered the first `cap`;
   * with them (kl_rev_scatter) the entries are every (vertex, list entry)
   * naming one of j's triangles, at most the build's capr, in the same
   * (vertex, triangle) order, and the contacts among them are the shares. */
  const int exact = L > 0;
  uint total = hi - lo;
  if (!exact && hi - lo > cap) hi = lo + cap;
  if (exact) total = 0u;
  float ws = wsc[j];
  float3 D = (float3)(0.0f);
  for (int k = 0; k < m; k++) {
    float4 a = rec_a[j * K + k];
    float w = a.w != 0.0f ? xj.w : ws;
    if (w == 0.0f) continue;
    D = sc_request(D, a.xyz * w);
  }
  for (uint e = lo; e < hi; e++) {
    uint v = vals[e];
    uint slot = v >> 2;
    uint c = v & 3u;
    if (exact) {
      const uint kk = cmap[slot];
      if (kk == 0xffu) continue; /* no contact this substep */
      if (total++ >= cap) continue;
      slot = slot / (uint)L * (uint)K + kk;
    }
    float4 a = rec_a[slot];
    float w = a.w != 0.0f ? xj.w : ws;
    if (w == 0.0f) continue;
    float4 b = rec_b[slot];
    float bk = c == 0u ? b.x : c == 1u ? b.y : b.z;
    /* a corner moves at most the contact's whole correction (J s): the
     * projection would move a corner of small barycentric weight that
     * alone is free by depth / weight, without bound (a light boundary
     * particle can be thrown metres in one substep without it) */
    D = sc_request(D, a.xyz * (-fmin(bk * w, b.w)));
  }
  if (total > cap && sobj[j] >= 0) sc_cap_hit(caps, sobj[j], 4, total);
  xj.xyz = xj.xyz + D;
  x[j] = xj;
}

/* ---- conservative step bounds (issue 18) ----------------------------------
 * Offset Geometric Contact (A. H. Chen, J. Hsu, Z. Liu, M. Macklin, Y. Yang,
 * C. Yuksel, "Offset Geometric Contact", ACM Trans. Graph. 44(4), 2025),
 * §5 "conservative bounds": each vertex's motion in a substep is limited to
 * gamma · r_v, r_v the distance at the start of the substep (positions p)
 * from v to the nearest primitive of every vertex-triangle and edge-edge
 * pair that v belongs to (as the vertex, a corner, or an edge's end) and
 * that shares no vertex. For such a pair at distance D every point of either
 * primitive moves at most gamma·D (a point of a triangle or edge moves by
 * a convex combination of its corners' moves), so the two approach by at
 * most 2·gamma·D < D: no pair touches within the substep, hence no edge can
 * enter or leave a triangle (each such event is a vertex-triangle or an
 * edge-edge contact). Kinematic particles (pins, paths, grabs; w = 0) are
 * bounded too: a driven particle goes as far towards its target as its
 * bound allows and lags behind it while something is closer than its move
 * (the drive sets absolute targets, so it catches up once that clears).
 * Otherwise nothing is left to give way when a pin drives cloth into
 * layers packed closer than its move: held by their own bounds, the pin
 * went through them (see docs/selfcollision.md, "The guarantee"). Pairs farther than R are not
 * looked at; they cannot close either, since every bound is <= gamma·R.
 *
 * Broad phase: the triangle hash built on p with boxes grown by R. Each
 * vertex meets the triangles of its own cell (selfcol_bound_vt); a
 * triangle T1 visits the cells of its own (ungrown) box (<= 2 per axis),
 * meets every T2 whose grown box overlaps it, and handles the pair in the
 * first cell the two share only, and only from the lower of the two
 * indices: the edge pairs of the edges each owns (selfcol_bound_pairs;
 * each edge pair once), each first tested against the other's box grown
 * by R. The distances are lower bounds (sc_vt_lower, sc_seg_lower) less a
 * margin (sc_bound_margin). The minimum per vertex is an atomic_min on the float bits
 * (non-negative floats order like their bit patterns): exact and
 * independent of order, so the bits do not depend on the schedule. */
#define SELFCOL_F_BOUND 2

/* Distance from q to segment (p, p + d), dd = d·d, and the vector from
 * its closest point to q (sc_pt_seg_dir); the distance alone (sc_pt_seg). */
inline float sc_pt_seg_dir(float3 q, float3 p, float3 d, float dd, float3 *w) {
  const float t = dd > 0.0f ? clamp(sc_dot(q - p, d) / dd, 0.0f, 1.0f) : 0.0f;
  *w = q - (p + d * t);
  return sqrt(sc_dot(*w, *w));
}
inline float sc_pt_seg(float3 q, float3 p, float3 d, float dd) {
  float3 w;
  return sc_pt_seg_dir(q, p, d, dd, &w);
}

/* Distance between segments p1q1 and p2q2: the smallest of the four
 * end-to-segment distances and, when the lines' closest points lie on both
 * segments, the distance between those (Ericson, "Real-Time Collision
 * Detection", §5.1.9, for the interior solution). Every candidate is the
 * distance of two points on the segments, so rounding can only make it
 * larger than the truth by the rounding of that one candidate; the
 * end-point candidates keep nearly parallel segments (whose interior
 * solution the cancellation in a e - b² spoils) exact to rounding. Same
 * operations in selfcol_cpu.c. */
inline float sc_seg_dist(float3 p1, float3 q1, float3 p2, float3 q2) {
  float3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  float a = sc_dot(d1, d1), e = sc_dot(d2, d2);
  float best = fmin(fmin(sc_pt_seg(p1, p2, d2, e), sc_pt_seg(q1, p2, d2, e)),
                    fmin(sc_pt_seg(p2, p1, d1, a), sc_pt_seg(q2, p1, d1, a)));
  float b = sc_dot(d1, d2), c = sc_dot(d1, r), f = sc_dot(d2, r);
  float den = a * e - b * b;
  if (den > 0.0f) {
    float s = (b * f - c * e) / den, t = (a * f - b * c) / den;
    if (s >= 0.0f && s <= 1.0f && t >= 0.0f && t <= 1.0f) {
      float3 w = (p1 + d1 * s) - (p2 + d2 * t);
      best = fmin(best, sqrt(sc_dot(w, w)));
    }
  }
  return best;
}

/* A lower bound of the distance between segments p1q1 and p2q2, for the
 * bounds (issue 18), and a separating direction from segment 2 to
 * segment 1 with a gap of at least the bound (for a lock). sc_seg_dist's
 * interior candidate comes from parameters that lose about 1/sin^2 of
 * precision between nearly parallel lines, and a distance of two points
 * that are not the closest runs over the truth. Here instead:
 *  - d_e, the four end-to-segment distances (each exact up to rounding);
 *  - the lines' distance h = |(p1 - p2)·n|/|n|, n = d1 x d2, whose
 *    direction is good to delta = 16 eps |d1||d2|/|n|;
 *  - the closest points of the lines lie certainly outside segment 1 when
 *    both its ends are on one side, by more than their error bound, of the
 *    plane through line 2 spanned by d2 and n (and likewise for segment 2).
 * When a line's closest point is outside its segment, the segments'
 * closest pair has an end point in it: their distance is d_e. Otherwise
 * the distance is at least h (the lines' distance) or d_e, so min(d_e,
 * h - error) bounds it from below. Direction: from the closest end pair
 * in the first case, else the common normal, along which every point of
 * segment 1 is h from every point of segment 2. Parallel lines (n = 0)
 * have their closest pair at an end. selfcol_cpu.c has the same
 * arithmetic. */
#define SC_NORMAL_ERR 0x1p-19f /* 16 float epsilons; selfcol.h: SELFCOL_NORMAL_ERR */
/* Whether the ends a, b are certainly on one side of the plane through p
 * with normal m (|m| = mm), and not within their error bound of it. */
inline int sc_one_side(float3 a, float3 b, float3 p, float3 m, float mm, float delta) {
  const float3 ap = a - p, bp = b - p;
  const float sa = sc_dot(ap, m) / mm, sb = sc_dot(bp, m) / mm;
  const float ea = 2.0f * delta * sqrt(sc_dot(ap, ap)), eb = 2.0f * delta * sqrt(sc_dot(bp, bp));
  return (sa > ea && sb > eb) || (sa < -ea && sb < -eb);
}
inline float sc_seg_lower(float3 p1, float3 q1, float3 p2, float3 q2, float3 *dir, float R) {
  const float3 d1 = q1 - p1, d2 = q2 - p2;
  const float a = sc_dot(d1, d1), e = sc_dot(d2, d2);
  const float3 n = sc_cross(d1, d2), r = p1 - p2;
  const float nn = sqrt(sc_dot(n, n));
  const float delta = nn > 0.0f ? SC_NORMAL_ERR * (sqrt(a) * sqrt(e) / nn) : 0.0f;
  const float sd = nn > 0.0f ? sc_dot(r, n) / nn : 0.0f;
  const float hr = fmax(fabs(sd) - delta * sqrt(sc_dot(r, r)), 0.0f);
  if (hr >= R) return hr; /* the lines are farther apart than R: no bound */
  float3 w;
  float de = sc_pt_seg_dir(p1, p2, d2, e, dir), l = sc_pt_seg_dir(q1, p2, d2, e, &w);
  if (l < de) { de = l; *dir = w; }
  l = sc_pt_seg_dir(p2, p1, d1, a, &w);
  if (l < de) { de = l; *dir = -w; }
  l = sc_pt_seg_dir(q2, p1, d1, a, &w);
  if (l < de) { de = l; *dir = -w; }
  if (!(nn > 0.0f)) return de;
  const float3 m2 = sc_cross(d2, n), m1 = sc_cross(d1, n);
  if (sc_one_side(p1, q1, p2, m2, sqrt(sc_dot(m2, m2)), delta) ||
      sc_one_side(p2, q2, p1, m1, sqrt(sc_dot(m1, m1)), delta))
    return de;
  const float hl = fmin(de, hr);
  /* nearly parallel: sliding the closest pair along the two segments to
   * the nearer end changes its distance by at most half the shorter
   * length times the angle (<= pi/2 sin) */
  const float pl = de - 0.7854f * fmin(sqrt(a), sqrt(e)) * (nn / (sqrt(a) * sqrt(e)));
  if (pl > hl) return pl; /* *dir: the closest end pair's */
  *dir = sd >= 0.0f ? n : -n;
  return hl;
}

/* atomic_min / atomic_max, skipped when a plain read shows the word
 * already at or past v. Within a launch these words only move one way
 * (each is reset by an earlier launch), so a word read at or past v ends
 * there too: the result is the atomic's. Why: most calls cannot change
 * the word (a particle's step bound is set by its nearest pair, a
 * region's range by its extreme particle), and the atomic is a locked
 * read-modify-write every time (PoCL: a compare-and-swap loop; 25 % of
 * kl_range's samples went to its six global ones). */
inline void sc_amin(volatile __global uint *w, const uint v) {
  if (v < *w) atomic_min(w, v);
}
inline void sc_amax(volatile __global uint *w, const uint v) {
  if (v > *w) atomic_max(w, v);
}

inline void sc_bound4(__global uint *rb, uint a, uint b, uint c, uint d, float dist) {
  uint u = as_uint(dist);
  sc_amin(&rb[a], u);
  sc_amin(&rb[b], u);
  sc_amin(&rb[c], u);
  sc_amin(&rb[d], u);
}

/* Locks (pairs closer than the floor fl, issue 18). Such a pair gives no
 * bound r: each of its particles may move along the pair's separating
 * direction n (from side 2's closest point to side 1's), side 1 along +n,
 * side 2 along -n. The two primitives are convex, so (y1 - y2)·n >= D for
 * every two of their points; a move whose part along n is >= 0 on either
 * side and whose part across n is at most gamma·D keeps (y1' - y2')·n >=
 * D: the pair can only separate. Holding all its particles still (r = 0,
 * as before) locked it for good, and a pin pressing on it stopped there.
 * A particle may be in several locks (a vertex over a triangle and its
 * edges over that triangle's edges, layers packed on each side): each lock
 * adds its direction to the particle's box of directions (componentwise
 * min and max of order-preserving integer keys: atomic, exact, in any
 * order) and its distance to the smallest; selfcol_bound_clamp moves the
 * particle along m, the box's normalised midpoint, by s >= 0 with
 * 2 h s <= gamma·D_min (h the box's half diagonal: |m - n_k| <= 2 h for
 * every lock k, so its move across each n_k is at most gamma·D_k), and
 * holds it still when the directions disagree (h >= SC_LOCK_SPREAD). A
 * pair closer than SC_LOCK_HOLD fl (float rounding of the positions
 * within reach) holds its particles still, as before. lk: 8 uints per
 * particle, the keys of the box's low corner, the bits of D_min, the keys
 * of its high corner, the number of locks. */
#define SC_LOCK_HOLD 0.1f /* selfcol.h: SELFCOL_LOCK_HOLD */
#define SC_LOCK_SPREAD 0.25f /* SELFCOL_LOCK_SPREAD */
inline uint sc_fkey(float f) {
  uint u = as_uint(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
inline float sc_funkey(uint k) { return as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }
inline void sc_lock1(__global uint *lk, uint i, float3 n, float dd) {
  __global uint *l = lk + 8u * i;
  const uint kx = sc_fkey(n.x), ky = sc_fkey(n.y), kz = sc_fkey(n.z);
  sc_amin(&l[0], kx);
  sc_amin(&l[1], ky);
  sc_amin(&l[2], kz);
  sc_amin(&l[3], as_uint(dd));
  sc_amax(&l[4], kx);
  sc_amax(&l[5], ky);
  sc_amax(&l[6], kz);
  atomic_inc(&l[7]);
}
/* The bounds' distances are lower bounds of the true distances of the
 * float points (sc_vt_lower, sc_seg_lower), each reduced by a margin
 * before it bounds or locks anything: SELFCOL_BOUND_ULPS (8) float
 * epsilons (2^-23) of the largest coordinate magnitude M of the pair's
 * points (0.48 um at 0.5 m), for the rounding of the positions and of
 * their differences. The scale is exact (a power of two), so the CPU
 * reference gets the same bits. */
#define SC_BOUND_MARGIN_SCALE 0x1p-20f /* SELFCOL_BOUND_ULPS (8) x 2^-23 */
inline float sc_amax3(float3 a) { return fmax(fmax(fabs(a.x), fabs(a.y)), fabs(a.z)); }

/* The box of the big triangles' grown boxes, which selfcol_bound_extent
 * keeps in nbig[1..6]: the complements of the lows' keys and the highs'
 * keys, all maxima, so that the zeroed words are the empty box. */
inline void sc_big_box(__global const uint *nbig, float3 *lo, float3 *hi) {
  *lo = (float3)(sc_funkey(~nbig[1]), sc_funkey(~nbig[2]), sc_funkey(~nbig[3]));
  *hi = (float3)(sc_funkey(nbig[4]), sc_funkey(nbig[5]), sc_funkey(nbig[6]));
}

/* P in the big box widened by the cell side S (the widest hashed grown
 * box) and 2^-18 of its coordinates (far above the rounding of the sums):
 * a hashed triangle whose grown box meets the big box has every corner in
 * it. */
inline int sc_bound_in_big(__global const uint *nbig, __global const uint *maxbits, float3 P) {
  float3 lo, hi;
  sc_big_box(nbig, &lo, &hi);
  const float S = as_float(maxbits[0]);
  const float pad = S + (fmax(sc_amax3(lo), sc_amax3(hi)) + S) * 0x1p-18f;
  return all(P >= lo - (float3)(pad)) && all(P <= hi + (float3)(pad));
}

/* r = R and no lock for every particle; past capg big triangles (their
 * list is then not read: selfcol_bound_vt, _pairs, _links), r = 0 for
 * every particle in their widened box (sc_bound_in_big). Why that is
 * exact: a pair with a big triangle is then either still at both ends or
 * farther than R apart (outside the box of the grown boxes), and nothing
 * moves by more than gamma R < R in a substep. */
__kernel void selfcol_bound_init(__global uint *rb, __global uint *lk, const float R,
                                 const int n, __global const float4 *p,
                                 __global const uint *nbig, __global const uint *maxbits,
                                 const uint capg) {
  int i = get_global_id(0);
  if (i >= n) return;
  rb[i] = nbig[0] > capg && sc_bound_in_big(nbig, maxbits, p[i].xyz) ? 0u : as_uint(R);
  __global uint *l = lk + 8 * i;
  l[0] = l[1] = l[2] = 0xffffffffu;
  l[3] = 0x7f800000u; /* +inf */
  l[4] = l[5] = l[6] = l[7] = 0u;
}

inline float sc_bound_margin(float3 a, float3 b, float3 c, float3 d) {
  return fmax(fmax(sc_amax3(a), sc_amax3(b)), fmax(sc_amax3(c), sc_amax3(d))) *
         SC_BOUND_MARGIN_SCALE;
}

/* Segment a-b (positions A, B: side 1) against segment c-d (C, D: side 2),
 * already known to share no particle: a bound, a lock or a hold from the
 * lower bound of their distance less the margin (sc_seg_lower). */
inline void sc_bound_seg4(__global uint *rb, __global uint *lk, uint a, uint b, uint c, uint d,
                          float3 A, float3 B, float3 C, float3 D, float R, float fl) {
  float3 w;
  const float dd = sc_seg_lower(A, B, C, D, &w, R);
  if (!(dd < R)) return;
  const float dm = dd - sc_bound_margin(A, B, C, D);
  if (dm >= fl) {
    sc_bound4(rb, a, b, c, d, dm);
  } else if (dm >= SC_LOCK_HOLD * fl) {
    const float3 n = w / sqrt(sc_dot(w, w));
    sc_lock1(lk, a, n, dm);
    sc_lock1(lk, b, n, dm);
    sc_lock1(lk, c, -n, dm);
    sc_lock1(lk, d, -n, dm);
  } else {
    sc_bound4(rb, a, b, c, d, 0.0f);
  }
}

/* A lower bound of the distance from q to triangle (a, b, c), for the
 * bounds (issue 18). The closest-point routine of the contact pass
 * (sc_closest: barycentric weights from 2x2 determinants of dot products)
 * loses about kappa^2 of precision on a needle triangle; in the twist a
 * vertex 0.48 um from a needle (edges 0.16, 0.0013, 0.16 m) was computed
 * 19.6 um from it, got no hold, and went through. Here instead:
 *  - the boundary distance d_e: the smallest point-edge distance (each a
 *    distance to a point of the edge, exact up to rounding);
 *  - the plane distance h = |(q - o)·n|/|n|, n the cross product of the two
 *    shortest edges (at o, the corner opposite the longest edge), whose
 *    direction is good to delta = 16 eps |e1||e2|/|n| (a relative error of
 *    16 eps over 1/sin of the triangle's largest angle, >= 60 degrees
 *    except for a flat, cap-like triangle);
 *  - the foot of q is certainly outside when its in-plane distance to some
 *    edge's line, sigma, exceeds its error bound, certainly inside when
 *    every sigma is below minus its bound.
 * The closest point of the triangle is on its boundary when the foot is
 * outside (distance d_e) and is the foot when it is inside (distance h <=
 * d_e), so min(d_e, h - error) is a lower bound in every case, exact (to
 * rounding) outside and inside. *dir, for a lock, is a separating
 * direction with a gap of at least the bound: outside, from the closest
 * boundary point to q (the triangle is convex); otherwise the plane
 * normal towards q, along which every point of the triangle is h from q
 * wherever the foot lies. A triangle with n = 0 is a segment or a point:
 * its edges are all of it. Past R (the callers' cut-off) any lower bound of
 * at least R will do: the plane distance, or an edge line's in-plane
 * distance, ends the work early. selfcol_cpu.c has the same arithmetic. */
inline float sc_vt_lower(float3 q, float3 a, float3 b, float3 c, float3 *dir, float R) {
  const float3 V[3] = {a, b, c};
  const float3 e[3] = {b - a, c - b, a - c};
  const float L2[3] = {sc_dot(e[0], e[0]), sc_dot(e[1], e[1]), sc_dot(e[2], e[2])};
  const int k = L2[1] > L2[0] ? (L2[2] > L2[1] ? 2 : 1) : (L2[2] > L2[0] ? 2 : 0);
  const int k1 = k == 2 ? 0 : k + 1, k2 = k1 == 2 ? 0 : k1 + 1; /* o = V[k2] */
  const float3 o = V[k2], n = sc_cross(V[k] - o, V[k1] - o);
  const float nn = sqrt(sc_dot(n, n));
  int out = 1, in = 0;
  float hl = 0.0f;
  if (nn > 0.0f) { /* else a segment or a point: its edges are all of it */
    const float delta = SC_NORMAL_ERR * (sqrt(L2[k1]) * sqrt(L2[k2]) / nn);
    const float3 qo = q - o;
    const float sd = sc_dot(qo, n) / nn;
    hl = fmax(fabs(sd) - delta * sqrt(sc_dot(qo, qo)), 0.0f);
    *dir = sd >= 0.0f ? n : -n;
    if (hl >= R) return hl; /* farther than R from the plane: no bound */
    out = 0;
    in = 1;
    for (int i = 0; i < 3; i++) {
      const float3 qv = q - V[i];
      const float sig = sc_dot(qv, sc_cross(e[i], n)) / (sqrt(L2[i]) * nn);
      const float err = 2.0f * delta * sqrt(sc_dot(qv, qv));
      /* every point of the triangle is on the inner side of this edge's
       * line, so at least sig - err from q: past R, that is enough (most
       * of a contact list's candidates, a sheet's near neighbours in its
       * plane, end here without their edge distances) */
      if (sig - err >= R) return sig - err;
      if (sig > err) out = 1; /* certainly outside: the boundary is closest */
      if (!(sig < -err)) in = 0;
    }
    if (in) return hl; /* the foot is inside: the plane distance */
  }
  float de = INFINITY;
  float3 wb = (float3)(0.0f);
  for (int i = 0; i < 3; i++) {
    float3 w;
    const float l = sc_pt_seg_dir(q, V[i], e[i], L2[i], &w);
    if (l < de) { de = l; wb = w; }
  }
  if (out) {
    *dir = wb;
    return de;
  }
  return fmin(de, hl); /* unsure: *dir stays the plane normal */
}

/* Corner q (position P) against triangle V (positions T, grown box
 * blo..bhi): a bound, a lock or a hold from the lower bound of their
 * distance less the margin (sc_vt_lower, sc_bound_margin). */
inline void sc_bound_vt(__global uint *rb, __global uint *lk, uint q,
                        float3 P, const uint *V, const float3 *T, float3 blo, float3 bhi, float R,
                        float fl) {
  if (q == V[0] || q == V[1] || q == V[2]) return;
  if (!all(P >= blo) || !all(P <= bhi)) return; /* farther than R */
  float3 ev;
  const float dd = sc_vt_lower(P, T[0], T[1], T[2], &ev, R);
  if (!(dd < R)) return;
  const float dm = dd - sc_bound_margin(P, T[0], T[1], T[2]);
  if (dm >= fl) {
    sc_bound4(rb, q, V[0], V[1], V[2], dm);
  } else if (dm >= SC_LOCK_HOLD * fl) { /* a lock: q on side 1 */
    const float3 n = ev / sqrt(sc_dot(ev, ev));
    sc_lock1(lk, q, n, dm);
    for (int k = 0; k < 3; k++) sc_lock1(lk, V[k], -n, dm);
  } else {
    sc_bound4(rb, q, V[0], V[1], V[2], 0.0f);
  }
}

/* The boxes (grown by R) of the triangles at p and the cell size for the
 * bounds' hash, like hash_tri_extent, except that a triangle whose grown box
 * is wider than `limit` (twice the widest in the rest mesh: stretched far
 * beyond any sane strain) is not hashed but listed in big[] (tbox[2t].w = 0,
 * tbox[2t+1].w = 1): one such triangle would otherwise make the cell as wide
 * as itself and every bucket hold most of the cloth (the pairs' queries are
 * not capped, so that would be all pairs). Every triangle meets the big ones
 * through the list.
 * The list's order depends on the schedule; the minimum taken over it does
 * not. */
__kernel void selfcol_bound_extent(__global const float4 *x, __global const uint *tris,
                                   __global const int *tobj, const int n_tris, const float grow,
                                   const float limit, __global uint *maxbits,
                                   __global float4 *tbox, __global uint *big,
                                   __global uint *nbig, __global float *bigb,
                                   const uint bplane) {
  __local uint group_max;
  const int t = get_global_id(0);
  if (get_local_id(0) == 0) group_max = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint3 v;
  if (t < n_tris && sc_tri_ok(tris, tobj, t, &v)) {
    float3 lo, hi;
    sc_tri_box(x, v, grow, &lo, &hi);
    float3 s = hi - lo;
    float side = fmax(fmax(s.x, s.y), s.z);
    float3 a = x[v.x].xyz, b = x[v.y].xyz, c = x[v.z].xyz;
    float chk = (a.x + a.y + a.z) + (b.x + b.y + b.z) + (c.x + c.y + c.z);
    int ok = chk - chk == 0.0f;
    int is_big = ok && !(side <= limit);
    tbox[2 * t] = (float4)(lo, ok && !is_big ? 1.0f : 0.0f);
    tbox[2 * t + 1] = (float4)(hi, is_big ? 1.0f : 0.0f);
    if (is_big) {
      const uint k = atomic_inc(nbig);
      big[k] = (uint)t;
      /* its box beside it, for the readers' scans eight at a time
       * (sc_box_hits), as hash_sort_boxes does for the buckets */
      sc_put_box(bigb, bplane, k, lo, hi);
      /* the big box (sc_big_box) */
      sc_amax(&nbig[1], ~sc_fkey(lo.x));
      sc_amax(&nbig[2], ~sc_fkey(lo.y));
      sc_amax(&nbig[3], ~sc_fkey(lo.z));
      sc_amax(&nbig[4], sc_fkey(hi.x));
      sc_amax(&nbig[5], sc_fkey(hi.y));
      sc_amax(&nbig[6], sc_fkey(hi.z));
    } else if (ok) {
      atomic_max(&group_max, as_uint(side));
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0 && group_max != 0u) atomic_max(maxbits, group_max);
}

/* Fail-safe of the bounded work: a bucket holding more than `capb` entries
 * (a crushed cloth, many layers in one cell) is not searched pair by pair
 * (selfcol_bound_pairs skips it); every triangle in it holds its corners
 * still instead (r = 0), which no pair through that bucket can then cross.
 * One work item per bucket, O(entries) in all. */
__kernel void selfcol_bound_overflow(__global const uint *start, __global const uint *vals,
                                     __global const uint *tris, __global uint *rb,
                                     const uint n_buckets, const uint capb) {
  uint b = get_global_id(0);
  if (b >= n_buckets) return;
  const uint lo = start[b], hi = start[b + 1u];
  if (hi - lo <= capb) return;
  for (uint e = lo; e < hi; e++) {
    uint t = vals[e];
    atomic_min(&rb[tris[3 * t]], 0u);
    atomic_min(&rb[tris[3 * t + 1]], 0u);
    atomic_min(&rb[tris[3 * t + 2]], 0u);
  }
}

/* Each pair once (issue 18, cost). The bounds' pairs were found per
 * triangle pair, six vertex-triangle and nine edge-edge pairs each, so a
 * vertex-triangle pair was met once for every triangle of its vertex (six
 * on a grid) and an edge-edge pair once for every two triangles of its
 * edges (four); the minima were the same, the work five times larger
 * (twist.json wound: 340 ms a frame in selfcol_bound_pairs on PoCL). Now
 * selfcol_bound_vt takes each vertex against the triangles of its own
 * cell (the cell is at least the widest grown box, so every triangle
 * whose grown box holds the vertex is there) and selfcol_bound_pairs
 * takes each pair of triangle edges from their owners only: an edge's
 * owner is the lowest-index live triangle holding it
 * (selfcol_bound_owners; tnb[3t + i], the lowest-index other triangle on
 * edge i of t, is static; a torn or non-finite one is not live, and the
 * next takes the edge). A non-manifold edge can be owned twice when its
 * lowest triangle is not live: a pair met twice gives the same minima. */
inline int sc_bound_live(__global const float4 *tbox, int t) {
  return tbox[2 * t].w != 0.0f || tbox[2 * t + 1].w != 0.0f;
}

__kernel void selfcol_bound_owners(__global const uint *tris, __global const int *tobj,
                                   __global const float4 *tbox, __global const int *tnb,
                                   __global uint *town, const int n_tris) {
  const int t = get_global_id(0);
  if (t >= n_tris) return;
  uint3 v, w;
  uint m = 0u;
  if (sc_tri_ok(tris, tobj, t, &v) && sc_bound_live(tbox, t))
    for (int i = 0; i < 3; i++) {
      const int nb = tnb[3 * t + i];
      if (nb < 0 || nb > t || !sc_tri_ok(tris, tobj, nb, &w) || !sc_bound_live(tbox, nb))
        m |= 1u << i;
    }
  town[t] = m;
}

/* Particle q (at P) against triangle t (grown box in tbox). */
inline void sc_bound_vt_tri(__global const float4 *p, __global const uint *tris,
                            __global const float4 *tbox, __global uint *rb, __global uint *lk,
                            uint q, float3 P, uint t, float R, float fl) {
  const uint V[3] = {tris[3 * t], tris[3 * t + 1], tris[3 * t + 2]};
  if (q == V[0] || q == V[1] || q == V[2]) return;
  const float3 blo = tbox[2 * t].xyz, bhi = tbox[2 * t + 1].xyz;
  if (!all(P >= blo) || !all(P <= bhi)) return;
  const float3 T[3] = {p[V[0]].xyz, p[V[1]].xyz, p[V[2]].xyz};
  sc_bound_vt(rb, lk, q, P, V, T, blo, bhi, R, fl);
}

/* One work item per particle that is a corner of a live triangle (the
 * vertices the pair form met; a particle in no such triangle has no edge
 * to cross with): its vertex-triangle pairs, through the triangles of its
 * own cell and the list of wide ones. A bucket past the cap is not
 * searched: the particle holds still (its own triangles are in that
 * bucket and held already, selfcol_bound_overflow, unless all are wide). */
__kernel void selfcol_bound_vt(__global const float4 *p, __global uint *lk,
                               __global const int *sobj, __global const uint *adj_start,
                               __global const uint *adj, __global const int *tobj,
                               __global const uint *tris, __global const float4 *tbox,
                               __global const uint *maxbits, __global const uint *start,
                               __global const uint *vals, __global const uint *big,
                               __global const uint *nbig, __global uint *rb, const int n,
                               const uint mask, const float R, const float fl, const uint capb,
                               __global const float *eb, const uint plane, const uint capg,
                               __global const float *bigb, const uint bplane) {
  const int q = get_global_id(0);
  if (q >= n) return;
  if (sobj[q] < 0) return;
  int live = 0;
  for (uint m = adj_start[q]; m < adj_start[q + 1] && !live; m++) {
    uint3 w;
    const int t = (int)adj[m];
    live = sc_tri_ok(tris, tobj, t, &w) && sc_bound_live(tbox, t);
  }
  if (!live) return;
  const float3 P = p[q].xyz;
  const float inv = sc_tri_inv_cell(maxbits);
  if (inv > 0.0f) {
    const uint h = sc_hash(sc_coord(P.x, inv), sc_coord(P.y, inv), sc_coord(P.z, inv), mask);
    const uint elo = start[h], ehi = start[h + 1u];
    if (ehi - elo > capb) {
      atomic_min(&rb[q], 0u);
    } else {
      uint prev = 0xffffffffu;
      /* the entries whose box holds P, eight at a time (sc_box_hits: the
       * box test of sc_bound_vt_tri, which the others would fail) */
      for (uint ec = elo; ec < ehi; ec += 8u)
        for (uint hm = sc_box_hits(eb, plane, ec, ehi, P, P, 0.0f, 0.0f, -1.0f); hm != 0u;
             hm &= hm - 1u) {
          const uint t = vals[ec + sc_low_bit(hm)];
          if (t == prev) continue; /* two of its cells share this bucket */
          prev = t;
          sc_bound_vt_tri(p, tris, tbox, rb, lk, (uint)q, P, t, R, fl);
        }
    }
  }
  const uint nb = nbig[0];
  if (nb > capg) return; /* past the cap: selfcol_bound_init held them */
  /* the wide triangles whose box holds P, eight at a time, in list order */
  for (uint kc = 0; kc < nb; kc += 8u)
    for (uint hm = sc_box_hits(bigb, bplane, kc, nb, P, P, 0.0f, 0.0f, -1.0f); hm != 0u;
         hm &= hm - 1u)
      sc_bound_vt_tri(p, tris, tbox, rb, lk, (uint)q, P, big[kc + sc_low_bit(hm)], R, fl);
}

/* The edge-edge pairs of the edges triangle t1 owns (V1, P1, mask own1)
 * and those t2 owns. */
inline void sc_bound_edges(__global uint *rb, __global uint *lk, const uint *V1,
                           const float3 *P1, uint own1, const uint *V2, const float3 *P2,
                           uint own2, float R, float fl) {
  for (int i = 0; i < 3; i++) {
    if (!((own1 >> i) & 1u)) continue;
    const int i1 = i == 2 ? 0 : i + 1;
    uint a = V1[i], b = V1[i1];
    float3 alo = fmin(P1[i], P1[i1]) - (float3)(R), ahi = fmax(P1[i], P1[i1]) + (float3)(R);
    for (int j = 0; j < 3; j++) {
      if (!((own2 >> j) & 1u)) continue;
      const int j1 = j == 2 ? 0 : j + 1;
      uint c = V2[j], d = V2[j1];
      if (a == c || a == d || b == c || b == d) continue;
      if (!all(fmin(P2[j], P2[j1]) <= ahi) || !all(fmax(P2[j], P2[j1]) >= alo)) continue;
      sc_bound_seg4(rb, lk, a, b, c, d, P1[i], P1[i1], P2[j], P2[j1], R, fl);
    }
  }
}

/* Where a scan of bucket lo..hi that wants only the triangles above t may
 * start. hash_sort_range leaves the bucket's first min(hi - lo, caps)
 * entries sorted, the smallest of the bucket, so every entry past them is
 * at least their last: a binary search over that prefix for the first
 * entry above t skips only entries <= t (the scan's own test would skip
 * them one by one; on the twist about half of what the bounds' pairs
 * read). Where every prefix entry is <= t, the unsorted rest is scanned
 * whole. The same pairs in the same order: the same bits. */
inline uint sc_sorted_after(__global const uint *vals, const uint lo, const uint hi,
                            const uint caps, const uint t) {
  uint a = lo, b = hi - lo > caps ? lo + caps : hi; /* the answer is in [a, b] */
  while (a < b) {
    const uint m = a + (b - a) / 2u;
    if (vals[m] > t) b = m;
    else a = m + 1u;
  }
  return a;
}

__kernel void selfcol_bound_pairs(__global const float4 *p, __global uint *lk,
                                  __global const uint *tris, __global const int *tobj,
                                  __global const float4 *tbox, __global const uint *maxbits,
                                  __global const uint *start, __global const uint *vals,
                                  __global const uint *big, __global const uint *nbig,
                                  __global const uint *town, __global uint *rb,
                                  const int n_tris, const uint mask, const float R,
                                  const float fl, const uint capb, __global const float *eb,
                                  const uint plane, const uint caps, const uint capg,
                                  __global const float *bigb, const uint bplane) {
  int t1 = get_global_id(0);
  if (t1 >= n_tris) return;
  uint3 v;
  if (!sc_tri_ok(tris, tobj, t1, &v)) return;
  const uint own1 = town[t1];
  if (own1 == 0u) return; /* owns no edge, or not live (selfcol_bound_owners) */
  const int big1 = tbox[2 * t1 + 1].w != 0.0f;
  uint V1[3] = {v.x, v.y, v.z};
  float3 P1[3] = {p[v.x].xyz, p[v.y].xyz, p[v.z].xyz};
  float3 lo = fmin(fmin(P1[0], P1[1]), P1[2]), hi = fmax(fmax(P1[0], P1[1]), P1[2]);
  float inv = sc_tri_inv_cell(maxbits);
  if (!big1 && inv > 0.0f) {
    int3 c0 = (int3)(sc_coord(lo.x, inv), sc_coord(lo.y, inv), sc_coord(lo.z, inv));
    int3 c1 = (int3)(sc_coord(hi.x, inv), sc_coord(hi.y, inv), sc_coord(hi.z, inv));
    c1 = min(c1, c0 + (int3)(1));
    for (int z = c0.z; z <= c1.z; z++)
      for (int y = c0.y; y <= c1.y; y++)
        for (int xx = c0.x; xx <= c1.x; xx++) {
          /* every entry of the bucket (a pair left out would void the
           * guarantee), or none when it holds more than capb: then
           * selfcol_bound_overflow holds all its triangles still */
          uint h = sc_hash(xx, y, z, mask);
          const uint elo = start[h], ehi = start[h + 1u];
          if (ehi - elo > capb) continue;
          /* the entries whose box meets t1's, eight at a time (sc_box_hits:
           * the box test below, which the others would fail), from the
           * first of higher index (sc_sorted_after) */
          for (uint ec = sc_sorted_after(vals, elo, ehi, caps, (uint)t1); ec < ehi; ec += 8u)
           for (uint hm = sc_box_hits(eb, plane, ec, ehi, lo, hi, 0.0f, 0.0f, -1.0f); hm != 0u;
                hm &= hm - 1u) {
            uint t2 = vals[ec + sc_low_bit(hm)];
            if (t2 <= (uint)t1) continue; /* each pair from its lower triangle */
            const uint own2 = town[t2];
            if (own2 == 0u) continue;
            float3 blo = tbox[2 * t2].xyz, bhi = tbox[2 * t2 + 1].xyz;
            if (!all(lo <= bhi) || !all(hi >= blo)) continue;
            int3 d0 = (int3)(sc_coord(blo.x, inv), sc_coord(blo.y, inv), sc_coord(blo.z, inv));
            int3 first = max(c0, d0);
            if (first.x != xx || first.y != y || first.z != z) continue;
            uint V2[3] = {tris[3 * t2], tris[3 * t2 + 1], tris[3 * t2 + 2]};
            float3 P2[3] = {p[V2[0]].xyz, p[V2[1]].xyz, p[V2[2]].xyz};
            sc_bound_edges(rb, lk, V1, P1, own1, V2, P2, own2, R, fl);
           }
        }
  }
  /* the big triangles: a hashed one meets each of them here, a big one
   * those of higher index (past the cap, none: selfcol_bound_init) */
  const uint nb = nbig[0];
  if (nb > capg) return;
  /* those whose grown box meets t1's box, eight at a time on the list's
   * copied boxes (the same floats as tbox, the same test) */
  for (uint kc = 0; kc < nb; kc += 8u)
   for (uint hm = sc_box_hits(bigb, bplane, kc, nb, lo, hi, 0.0f, 0.0f, -1.0f); hm != 0u;
        hm &= hm - 1u) {
    uint t2 = big[kc + sc_low_bit(hm)];
    if (big1 && t2 <= (uint)t1) continue;
    const uint own2 = town[t2];
    if (own2 == 0u) continue;
    uint V2[3] = {tris[3 * t2], tris[3 * t2 + 1], tris[3 * t2 + 2]};
    float3 P2[3] = {p[V2[0]].xyz, p[V2[1]].xyz, p[V2[2]].xyz};
    sc_bound_edges(rb, lk, V1, P1, own1, V2, P2, own2, R, fl);
  }
}

/* Rope links in the step bounds (issue 18). In a scene with a bounded
 * cloth, every link (a, a + 1) of a rope gets the pairs it can cross or be
 * crossed by: each of its nodes against every triangle (vertex-triangle),
 * the link against every triangle edge (edge-edge), and the link against
 * every link that shares no node with it (edge-edge). A link passes
 * through a triangle, or a triangle's edge through a link's segment, only
 * through one of these contacts, so with every node within gamma · r the
 * guarantee above covers rope against cloth and rope against rope.
 * One work item per link (links[]: each link's lower node, ascending).
 * Triangles come from the bounds' hash on p (boxes grown by R): the cells
 * of the link's own box, a pair handled in the first cell both share; a
 * link spanning more than SC_BOUND_LINK_CELLS cells on an axis tests every
 * triangle instead (O(triangles), exact), a bucket past the cap holds the
 * link still as it holds its triangles (selfcol_bound_overflow). Links
 * meet links of higher index by a box test over the table (O(links²)/2
 * box tests a substep: ropes are short lists next to cloth meshes). */
#define SC_BOUND_LINK_CELLS 8
#define SELFCOL_F_LINKS 8

/* Link a-b (positions A, B; box grown by R alo..ahi) against triangle V
 * (corners P, grown box blo..bhi). */
inline void sc_bound_link_tri(__global uint *rb, __global uint *lk, uint a,
                              uint b, float3 A, float3 B, float3 alo, float3 ahi, const uint *V,
                              const float3 *P, float3 blo, float3 bhi, float R, float fl) {
  sc_bound_vt(rb, lk, a, A, V, P, blo, bhi, R, fl);
  sc_bound_vt(rb, lk, b, B, V, P, blo, bhi, R, fl);
  for (int j = 0; j < 3; j++) {
    const int j1 = j == 2 ? 0 : j + 1;
    if (!all(fmin(P[j], P[j1]) <= ahi) || !all(fmax(P[j], P[j1]) >= alo)) continue;
    sc_bound_seg4(rb, lk, a, b, V[j], V[j1], A, B, P[j], P[j1], R, fl);
  }
}

inline void sc_bound_link_t2(__global const float4 *p, __global const uint *tris, uint t2,
                             __global const float4 *tbox, __global uint *rb, __global uint *lk,
                             uint a, uint b, float3 A, float3 B,
                             float3 alo, float3 ahi, float R, float fl) {
  uint V2[3] = {tris[3 * t2], tris[3 * t2 + 1], tris[3 * t2 + 2]};
  float3 P2[3] = {p[V2[0]].xyz, p[V2[1]].xyz, p[V2[2]].xyz};
  sc_bound_link_tri(rb, lk, a, b, A, B, alo, ahi, V2, P2, tbox[2 * t2].xyz,
                    tbox[2 * t2 + 1].xyz, R, fl);
}

__kernel void selfcol_bound_links(__global const float4 *p, __global uint *lk,
                                  __global const uint *links,
                                  __global const uint *tris, __global const int *tobj,
                                  __global const float4 *tbox, __global const uint *maxbits,
                                  __global const uint *start, __global const uint *vals,
                                  __global const uint *big, __global const uint *nbig,
                                  __global uint *rb, const int n_links, const int n_tris,
                                  const uint mask, const float R, const float fl,
                                  const uint capb, const uint capg,
                                  __global const float *bigb, const uint bplane) {
  const int l = get_global_id(0);
  if (l >= n_links) return;
  const uint a = links[l], b = a + 1u;
  const float3 A = p[a].xyz, B = p[b].xyz;
  const float3 lo = fmin(A, B), hi = fmax(A, B);
  const float3 alo = lo - (float3)(R), ahi = hi + (float3)(R);
  for (int l2 = l + 1; l2 < n_links; l2++) { /* each link pair from its lower link */
    const uint c = links[l2], d = c + 1u;
    if (c == b) continue; /* the next link: they share b */
    const float3 C = p[c].xyz, D = p[d].xyz;
    if (!all(fmin(C, D) <= ahi) || !all(fmax(C, D) >= alo)) continue;
    sc_bound_seg4(rb, lk, a, b, c, d, A, B, C, D, R, fl);
  }
  const float inv = sc_tri_inv_cell(maxbits);
  if (inv > 0.0f) {
    int3 c0 = (int3)(sc_coord(lo.x, inv), sc_coord(lo.y, inv), sc_coord(lo.z, inv));
    int3 c1 = (int3)(sc_coord(hi.x, inv), sc_coord(hi.y, inv), sc_coord(hi.z, inv));
    if (any(c1 - c0 >= (int3)(SC_BOUND_LINK_CELLS))) {
      for (int t2 = 0; t2 < n_tris; t2++) { /* a long link: every hashed triangle */
        uint3 v;
        if (!sc_tri_ok(tris, tobj, t2, &v) || tbox[2 * t2].w == 0.0f) continue;
        if (!all(lo <= tbox[2 * t2 + 1].xyz) || !all(hi >= tbox[2 * t2].xyz)) continue;
        sc_bound_link_t2(p, tris, (uint)t2, tbox, rb, lk, a, b, A, B, alo, ahi, R, fl);
      }
    } else {
      for (int z = c0.z; z <= c1.z; z++)
        for (int y = c0.y; y <= c1.y; y++)
          for (int xx = c0.x; xx <= c1.x; xx++) {
            uint h = sc_hash(xx, y, z, mask);
            const uint elo = start[h], ehi = start[h + 1u];
            if (ehi - elo > capb) { /* its triangles are held: so is the link */
              atomic_min(&rb[a], 0u);
              atomic_min(&rb[b], 0u);
              continue;
            }
            for (uint e = elo; e < ehi; e++) {
              uint t2 = vals[e];
              float3 blo = tbox[2 * t2].xyz, bhi = tbox[2 * t2 + 1].xyz;
              if (!all(lo <= bhi) || !all(hi >= blo)) continue;
              int3 d0 = (int3)(sc_coord(blo.x, inv), sc_coord(blo.y, inv), sc_coord(blo.z, inv));
              int3 first = max(c0, d0);
              if (first.x != xx || first.y != y || first.z != z) continue;
              sc_bound_link_t2(p, tris, t2, tbox, rb, lk, a, b, A, B, alo, ahi, R, fl);
            }
          }
    }
  }
  const uint nb = nbig[0];
  if (nb > capg) { /* past the cap: a link that meets the big box holds still */
    float3 blo, bhi;
    sc_big_box(nbig, &blo, &bhi);
    if (all(lo <= bhi) && all(hi >= blo)) {
      atomic_min(&rb[a], 0u);
      atomic_min(&rb[b], 0u);
    }
    return;
  }
  /* the wide triangles whose box meets the link's, eight at a time */
  for (uint kc = 0; kc < nb; kc += 8u)
    for (uint hm = sc_box_hits(bigb, bplane, kc, nb, lo, hi, 0.0f, 0.0f, -1.0f); hm != 0u;
         hm &= hm - 1u)
      sc_bound_link_t2(p, tris, big[kc + sc_low_bit(hm)], tbox, rb, lk, a, b, A, B, alo, ahi,
                       R, fl);
}

/* Each particle of a bounded object (a cloth in vertex-triangle mode, a
 * rope in a scene with one) back within gamma · r of where it started the
 * substep, after the passes: the last word of the stage on its motion.
 * Driven particles (w = 0) too: they lag rather than cross. (A smaller
 * bound for them, gamma · r · (r / R), so that a pin pressing on layers
 * closes the gap slower than they may flee, was measured on the twist and
 * not kept: the layers in front of the pin locked sooner, at frame 390
 * instead of 432.) */
__kernel void selfcol_bound_clamp(__global float4 *x, __global const float4 *p,
                                  __global const int *sobj, __global const int *objf,
                                  __global const uint *rb, __global const uint *lk,
                                  const float gamma,
                                  const int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int o = sobj[i];
  if (o < 0 || !(objf[o] & (SELFCOL_F_BOUND | SELFCOL_F_LINKS))) return;
  float4 xi = x[i];
  float3 pi = p[i].xyz;
  float3 d = xi.xyz - pi;
  __global const uint *l = lk + 8 * i;
  if (l[7] != 0u) { /* locks: along their common direction only */
    const float3 lo = (float3)(sc_funkey(l[0]), sc_funkey(l[1]), sc_funkey(l[2]));
    const float3 hi = (float3)(sc_funkey(l[4]), sc_funkey(l[5]), sc_funkey(l[6]));
    const float3 mid = (lo + hi) * 0.5f, hv = (hi - lo) * 0.5f;
    const float h = sqrt(sc_dot(hv, hv)), ml = sqrt(sc_dot(mid, mid));
    if (!(h < SC_LOCK_SPREAD) || !(ml > 0.0f)) { /* they disagree: held still */
      xi.xyz = pi;
      x[i] = xi;
      return;
    }
    const float3 m = mid / ml;
    float s = sc_dot(d, m);
    const float cap = gamma * as_float(l[3]) / (2.0f * h); /* inf for h = 0 */
    if (s > cap) s = cap;
    if (s > 0.0f) d = m * s;
    else if (s <= 0.0f) d = (float3)(0.0f); /* (NaN stays NaN) */
    xi.xyz = pi + d;
    x[i] = xi;
  }
  float l2 = sc_dot(d, d);
  float lim = gamma * as_float(rb[i]);
  if (!(l2 <= lim * lim)) { /* NaN: clamped to NaN, as in selfcol_clamp */
    float k = lim / sqrt(l2);
    xi.xyz = pi + d * k;
    x[i] = xi;
  }
}

/* ---- edge-edge contacts (issue 18) ----------------------------------------
 * Two edges of bounded cloths (self_collision_bounds) that share no particle
 * and are closer than the pair thickness d are pushed apart to d along the
 * line between their closest points: Bridson, Fedkiw and Anderson, "Robust
 * treatment of collisions, contact and friction for cloth animation"
 * (SIGGRAPH 2002), §7.1 (the edge-edge proximity: closest points
 * x1 + s (x2 - x1), x3 + t (x4 - x3), their normal, and the impulse shared
 * by the weights 1-s, s, 1-t, t), projected as a PBD inequality (Müller et
 * al. 2007): C = n·(P1 - P2) - d >= 0, P1 = (1-s) x_a + s x_b,
 * P2 = (1-t) x_c + t x_d, so end k of an edge with weight b_k moves by
 * ±b_k w_k (d - n·(P1 - P2)) / S, S = Σ b_k² w_k. The normal is oriented to
 * the side the closest points were on at the start of the substep (p), so
 * two edges that crossed inside the band go back the way they came, like
 * the vertex-triangle pass. Without it two edges only stopped crossing
 * (the step bounds) and crept together until they held each other still.
 *
 * Jacobi and deterministic like the particle pass: one work item per
 * particle q finds every contact of the edges at q (from its triangles,
 * adj[adj_start[q] .. adj_start[q+1]), in the order the model lists them;
 * an edge seen in an earlier triangle of that list is skipped) and combines
 * its own share of each (sc_request) into delta[q]; selfcol_apply adds it.
 * Each of the four particles of a pair computes the same contact from the
 * same numbers: both edges are taken with their ends in index order and
 * the pair with the edge of the lower first end first, so the four shares
 * are those of one constraint. The other edge is an edge of
 * a triangle met in the triangle hash (the vertex-triangle pass's, boxes
 * grown by the largest thickness) in the cells of q's edge's box (at most
 * 2 per axis), once per triangle (in the first cell the two share); an
 * edge of two such triangles gives the same request twice, which
 * sc_request takes once. Bounded work: the first `cap` entries of each
 * bucket (their index order), at most `cap_n` contacts per particle.
 * Supported particles weigh nothing (selfcol_clamp) unless all four are,
 * then the true masses; kinematic ones (w = 0) never move, their partners
 * take the whole correction. No friction on edge-edge contacts. */

/* Closest points of segments p1q1, p2q2: P1 = p1 + s (q1 - p1),
 * P2 = p2 + t (q2 - p2) (Ericson, "Real-Time Collision Detection", §5.1.9;
 * same operations in selfcol_cpu.c). */
inline void sc_seg_closest(float3 p1, float3 q1, float3 p2, float3 q2, float *ps, float *pt) {
  float3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  float a = sc_dot(d1, d1), e = sc_dot(d2, d2), f = sc_dot(d2, r);
  float s = 0.0f, t = 0.0f;
  if (a > 0.0f || e > 0.0f) {
    if (!(a > 0.0f)) {
      t = clamp(f / e, 0.0f, 1.0f);
    } else {
      float c = sc_dot(d1, r);
      if (!(e > 0.0f)) {
        s = clamp(-c / a, 0.0f, 1.0f);
      } else {
        float b = sc_dot(d1, d2);
        float den = a * e - b * b;
        s = den > 0.0f ? clamp((b * f - c * e) / den, 0.0f, 1.0f) : 0.0f;
        t = (b * s + f) / e;
        if (t < 0.0f) {
          t = 0.0f;
          s = clamp(-c / a, 0.0f, 1.0f);
        } else if (t > 1.0f) {
          t = 1.0f;
          s = clamp((b - c) / a, 0.0f, 1.0f);
        }
      }
    }
  }
  *ps = s;
  *pt = t;
}

/* 1 when triangle t (current list) has corner v. */
inline int sc_has(__global const uint *tris, uint t, uint v) {
  return tris[3 * t] == v || tris[3 * t + 1] == v || tris[3 * t + 2] == v;
}

/* Edges (f0, f1) and (e0, e1), sharing no particle, as one pair in a fixed
 * order (the edge with the lower first end is A, so every particle of it
 * computes the same numbers; id: A's ends, then B's): their closest points
 * (parameters s, tt) and, when closer than the pair's thickness d (within
 * one object no closer than in the rest shape), the normal from the side
 * they were on at the substep's start and the depth (Bridson, Fedkiw and
 * Anderson 2002, §7.1). Returns 0 when they do not touch. The cloth's
 * edges and the rope links both take their contacts from it. */
static inline int sc_edge_pair(__global const float4 *x, __global const float4 *p,
                               __global const float4 *rest, const uint f0, const uint f1,
                               const uint e0, const uint e1, float d, const int same, uint *id,
                               float *s_, float *tt_, float3 *nrm_, float *depth_) {
  const int sw = f0 < e0;
  id[0] = sw ? f0 : e0;
  id[1] = sw ? f1 : e1;
  id[2] = sw ? e0 : f0;
  id[3] = sw ? e1 : f1;
  const float4 xa = x[id[0]], xb = x[id[1]], xc = x[id[2]], xd = x[id[3]];
  /* Segments whose boxes lie farther apart than d along an axis are
   * farther apart than d: rejected before the closest points (most of an
   * edge's candidates in a flat sheet). The slack, 2^-18 of the
   * coordinates and of d, is far above the rounding of the closest
   * points' difference along that axis, so this rejects only pairs the
   * test below rejects too (same contacts and bits; NaN: not rejected). */
  {
    const float3 gap = fmax(fmin(xc.xyz, xd.xyz) - fmax(xa.xyz, xb.xyz),
                            fmin(xa.xyz, xb.xyz) - fmax(xc.xyz, xd.xyz));
    const float lim = d + (fmax(fmax(sc_amax3(xa.xyz), sc_amax3(xb.xyz)),
                                fmax(sc_amax3(xc.xyz), sc_amax3(xd.xyz))) + d) * 0x1p-18f;
    if (gap.x > lim || gap.y > lim || gap.z > lim) return 0;
  }
  float s, tt;
  sc_seg_closest(xa.xyz, xb.xyz, xc.xyz, xd.xyz, &s, &tt);
  const float3 P1 = xa.xyz + (xb.xyz - xa.xyz) * s;
  const float3 P2 = xc.xyz + (xd.xyz - xc.xyz) * tt;
  const float3 ev = P1 - P2;
  const float l2 = sc_dot(ev, ev);
  if (!(l2 < d * d)) return 0;
  if (same) {
    const float rr = sc_seg_dist(rest[id[0]].xyz, rest[id[1]].xyz, rest[id[2]].xyz,
                                 rest[id[3]].xyz);
    if (!(l2 < rr * rr)) return 0;
    d = fmin(d, rr);
  }
  const float3 pa = p[id[0]].xyz, pc = p[id[2]].xyz;
  const float3 Q1 = pa + (p[id[1]].xyz - pa) * s;
  const float3 Q2 = pc + (p[id[3]].xyz - pc) * tt;
  const float3 ep = Q1 - Q2;
  const float len = sqrt(l2);
  float3 nrm;
  float depth;
  if (len > 0.0f) {
    const float side = sc_dot(ep, ev);
    nrm = ev * ((side >= 0.0f ? 1.0f : -1.0f) / len);
    depth = side >= 0.0f ? d - len : d + len;
  } else {
    const float lp = sqrt(sc_dot(ep, ep));
    if (!(lp > 0.0f)) return 0;
    nrm = ep / lp;
    depth = d;
  }
  if (!(depth > 0.0f)) return 0;
  *s_ = s, *tt_ = tt, *nrm_ = nrm, *depth_ = depth;
  return 1;
}

/* The box of the edge x0-x1 and the cells it spans, at most SC_EE_CELLS
 * per axis: what both ends' scan and selfcol_edge_flags read. An edge of
 * a hashed triangle spans at most 2 (the cell is wider than the
 * triangle's box); only an edge whose triangles are all wide (stretched
 * past the wide limit) can span more, and one longer than SC_EE_CELLS
 * cells meets only the triangles of the first ones. */
#define SC_EE_CELLS 4
inline void sc_ee_cells(const float4 x0, const float4 x1, const float inv, float3 *elo,
                        float3 *ehi, int3 *c0, int3 *c1) {
  *elo = fmin(x0.xyz, x1.xyz);
  *ehi = fmax(x0.xyz, x1.xyz);
  *c0 = (int3)(sc_coord(elo->x, inv), sc_coord(elo->y, inv), sc_coord(elo->z, inv));
  *c1 = min((int3)(sc_coord(ehi->x, inv), sc_coord(ehi->y, inv), sc_coord(ehi->z, inv)),
            *c0 + (int3)(SC_EE_CELLS - 1));
}

/* The buckets an edge's scan reads, in order: the cells c0..c1 (x
 * fastest, then y, then z; number i of sc_ee_count - 1 before the last),
 * then the wide bucket mask + 1 (the last, *wide = 1). c: the cell. */
inline int sc_ee_count(const int3 c0, const int3 c1) {
  const int3 sp = c1 - c0 + (int3)(1);
  return sp.x * sp.y * sp.z + 1;
}
inline uint sc_ee_bucket(const int3 c0, const int3 c1, const int i, const int nb,
                         const uint mask, int3 *c, int *wide) {
  *wide = i == nb - 1;
  if (*wide) return mask + 1u;
  const int3 sp = c1 - c0 + (int3)(1);
  *c = c0 + (int3)(i % sp.x, (i / sp.x) % sp.y, i / (sp.x * sp.y));
  return sc_hash(c->x, c->y, c->z, mask);
}

/* Whether bucket entry t2, met in cell c of an edge's scan (box elo-ehi,
 * first cell c0), is a triangle of a bounded cloth whose box meets the
 * edge's, met here first (the first cell both boxes share); in the wide
 * bucket (wide != 0) a wide triangle whose box meets the edge's; u: its
 * corners. */
inline int sc_ee_entry(__global const uint *tris, __global const int *tobj,
                       __global const int *objf, __global const float4 *tbox, const uint t2,
                       const float3 elo, const float3 ehi, const int3 c0, const int3 c,
                       const int wide, const float inv, uint3 *u) {
  /* the box first: it rejects most entries, before the object's loads */
  const float4 b0 = tbox[2 * t2], b1 = tbox[2 * t2 + 1];
  if ((wide ? b1.w : b0.w) == 0.0f) return 0;
  if (!all(elo <= b1.xyz) || !all(ehi >= b0.xyz)) return 0; /* NaN: skipped */
  const int ot = tobj[t2];
  if (ot < 0 || !(objf[ot] & SELFCOL_F_BOUND)) return 0;
  if (!wide) {
    const int3 d0 = (int3)(sc_coord(b0.x, inv), sc_coord(b0.y, inv), sc_coord(b0.z, inv));
    const int3 first = max(c0, d0);
    if (first.x != c.x || first.y != c.y || first.z != c.z) return 0;
  }
  return sc_tri_ok(tris, tobj, (int)t2, u);
}

/* Rope links against cloth edges (issue 18): the edge-edge proximity above
 * (Bridson, Fedkiw and Anderson 2002, §7.1) between a link (q, q ± 1) of
 * a rope and an edge of a triangle of a bounded cloth. A rope has no
 * triangles, so the cloth side cannot find its links; the link's two
 * nodes find the pair (each from the same numbers: the link with its ends
 * in index order, the pair ordered as above) and take the whole correction
 * (the cloth's ends weigh 0 in the pair, as a kinematic edge's do). The
 * cloth still feels the rope through its nodes (particle and
 * vertex-triangle passes). Why this suffices against crossings: a link
 * can only come to pierce a triangle through its ends (a node through the
 * face: the vertex-triangle pass) or through the triangle's boundary (the
 * link across an edge: here). Cells: the link's box, at most
 * SC_EE_CELLS per axis (sc_ee_cells: a link longer than that many triangle
 * cells misses contacts beyond them), then the wide bucket; each triangle
 * once, in the first cell it shares with the link's box; the first `cap`
 * entries of each bucket; at most cap_n contacts per particle (with its
 * other link). */
inline float3 sc_rope_link_edges(__global const float4 *x, __global const float4 *p,
                                 __global const float *wsc, __global const float4 *rest,
                                 __global const int *sobj,
                                 __global const int *objf, __global const float4 *objp,
                                 __global const uint *tris, __global const int *tobj,
                                 __global const float4 *tbox, float inv,
                                 __global const uint *start, __global const uint *vals,
                                 const int n, const uint mask, const uint cap, const int cap_n,
                                 const int q, const int oq, uint *most,
                                 __global const float *eb, const uint plane) {
  float3 D = (float3)(0.0f);
  int cnt = 0;
  const float tq = objp[oq].x;
  for (int side = 0; side < 2 && cnt < cap_n; side++) {
    const int o = side == 0 ? q - 1 : q + 1; /* a rope's nodes are consecutive */
    if (o < 0 || o >= n || sobj[o] != oq) continue;
    const uint e0 = (uint)min(q, o), e1 = (uint)max(q, o);
    float3 elo, ehi;
    int3 c0, c1;
    sc_ee_cells(x[e0], x[e1], inv, &elo, &ehi, &c0, &c1);
    const int nb = sc_ee_count(c0, c1); /* the cells, then the wide bucket */
    for (int ib = 0; ib < nb && cnt < cap_n; ib++) {
          int3 c = c0;
          int wide;
          const uint h = sc_ee_bucket(c0, c1, ib, nb, mask, &c, &wide);
          const uint lo = start[h], full = start[h + 1u];
          const uint hi = full - lo > cap ? lo + cap : full;
          if (full - lo > cap) *most = max(*most, full - lo);
          for (uint ec = lo; ec < hi && cnt < cap_n; ec += 8u)
           for (uint hm = sc_box_hits(eb, plane, ec, hi, elo, ehi, 0.0f, 0.0f, -1.0f);
                hm != 0u && cnt < cap_n; hm &= hm - 1u) {
            const uint en = ec + sc_low_bit(hm);
            const uint t2 = vals[en];
            const int ot = tobj[t2];
            uint3 u;
            if (!sc_ee_entry(tris, tobj, objf, tbox, t2, elo, ehi, c0, c, wide, inv, &u))
              continue;
            const uint U[3] = {u.x, u.y, u.z};
            for (int j = 0; j < 3 && cnt < cap_n; j++) {
              const uint ua = U[j], ub = U[j == 2 ? 0 : j + 1];
              const uint f0 = min(ua, ub), f1 = max(ua, ub);
              uint id[4];
              float s, tt, depth;
              float3 nrm;
              if (!sc_edge_pair(x, p, rest, f0, f1, e0, e1, sc_pair_thickness(tq, objp[ot].x, 0),
                                0, id, &s, &tt, &nrm, &depth))
                continue;
              /* the link's ends only: k = 0, 1 when the link is A, else 2, 3 */
              const int sw = id[0] != e0;
              const float bs[4] = {1.0f - s, s, 1.0f - tt, tt};
              const int k0 = sw ? 2 : 0;
              float S = 0.0f, Sm = 0.0f;
              for (int k = k0; k < k0 + 2; k++) {
                S = S + bs[k] * bs[k] * wsc[id[k]];
                Sm = Sm + bs[k] * bs[k] * x[id[k]].w;
              }
              const int mine = id[k0] == (uint)q ? k0 : k0 + 1;
              float wq = wsc[q];
              if (S == 0.0f) {
                S = Sm;
                wq = x[q].w;
              }
              if (!(S > 0.0f) || wq == 0.0f) continue;
              const float sg = mine < 2 ? bs[mine] : -bs[mine];
              /* a node moves at most the depth for one contact: with its partners
               * held (supported, kinematic, or the cloth side) and the closest point
               * next to the other end, depth / b would throw it */
              float f = sg * wq / S;
              f = f > 1.0f ? 1.0f : (f < -1.0f ? -1.0f : f);
              D = sc_request(D, nrm * (f * depth));
              cnt++;
            }
          }
        }
  }
  return D;
}

/* Rope links against rope links (issue 18): the same proximity and
 * projection between a link (q, q ± 1) and a link of any rope (this one
 * included) that shares no node with it, shared by all four nodes' masses
 * like two cloth edges (each node finds the pair from the same numbers and
 * applies its own share). Within one rope the pair thickness is at most
 * the links' distance in the rest shape (so coils laid closer than the
 * thickness keep their spacing). Candidates come from the particle hash
 * (cells 2 t_max, built on this substep's clamped positions): the nodes in
 * the cells of the link's box grown by `reach` (3 t_max; at most
 * SC_ROPE_CELLS cells per axis), a bucket that two visited cells share
 * read once, the first cap_p entries of each; a candidate link (r, r + 1)
 * is taken from its lower node r, so once. A link within the pair
 * thickness d <= t_max of ours has both nodes within d + its length of
 * our link: found whenever links are at most 2 t_max long (the node
 * spacing the Limits ask for) and the nodes moved less than the rest of
 * the reach since the hash; longer links may miss contacts. */
#define SC_ROPE_CELLS 5
inline float3 sc_rope_link_links(float3 D, int *cnt, __global const float4 *x,
                                 __global const float4 *p, __global const float *wsc,
                                 __global const float4 *rest, __global const int *sobj,
                                 __global const int *objf, __global const float4 *objp,
                                 __global const uint *pstart, __global const uint *pvals,
                                 const int n, const float inv_p, const uint mask_p,
                                 const uint cap_p, const float reach, const int cap_n,
                                 const int q, const int oq) {
  const float tq = objp[oq].x;
  for (int side = 0; side < 2 && *cnt < cap_n; side++) {
    const int o = side == 0 ? q - 1 : q + 1;
    if (o < 0 || o >= n || sobj[o] != oq) continue;
    const uint e0 = (uint)min(q, o), e1 = (uint)max(q, o);
    const float4 x0 = x[e0], x1 = x[e1];
    const float3 elo = fmin(x0.xyz, x1.xyz) - (float3)(reach),
                 ehi = fmax(x0.xyz, x1.xyz) + (float3)(reach);
    int3 c0 = (int3)(sc_coord(elo.x, inv_p), sc_coord(elo.y, inv_p), sc_coord(elo.z, inv_p));
    int3 c1 = (int3)(sc_coord(ehi.x, inv_p), sc_coord(ehi.y, inv_p), sc_coord(ehi.z, inv_p));
    c1 = min(c1, c0 + (int3)(SC_ROPE_CELLS - 1));
    for (int z = c0.z; z <= c1.z && *cnt < cap_n; z++)
      for (int y = c0.y; y <= c1.y && *cnt < cap_n; y++)
        for (int xx = c0.x; xx <= c1.x && *cnt < cap_n; xx++) {
          const uint h = sc_hash(xx, y, z, mask_p);
          int seen = 0; /* an earlier visited cell with the same bucket */
          for (int z2 = c0.z; z2 <= z && !seen; z2++)
            for (int y2 = c0.y; y2 <= c1.y && !seen; y2++)
              for (int x2 = c0.x; x2 <= c1.x && !seen; x2++) {
                if (z2 == z && (y2 > y || (y2 == y && x2 >= xx))) continue;
                seen = sc_hash(x2, y2, z2, mask_p) == h;
              }
          if (seen) continue;
          const uint lo = pstart[h], full = pstart[h + 1u];
          const uint hi = full - lo > cap_p ? lo + cap_p : full;
          for (uint en = lo; en < hi && *cnt < cap_n; en++) {
            const uint r = pvals[en];
            const int orr = sobj[r];
            if (orr < 0 || !(objf[orr] & SELFCOL_F_ROPE)) continue;
            if (r + 1u >= (uint)n || sobj[r + 1u] != orr) continue; /* its link (r, r + 1) */
            const uint f0 = r, f1 = r + 1u;
            if (f0 == e0 || f0 == e1 || f1 == e0 || f1 == e1) continue;
            const int same = orr == oq;
            uint id[4];
            float s, tt, depth;
            float3 nrm;
            if (!sc_edge_pair(x, p, rest, f0, f1, e0, e1,
                              sc_pair_thickness(tq, objp[orr].x, same), same, id, &s, &tt, &nrm,
                              &depth))
              continue;
            const float bs[4] = {1.0f - s, s, 1.0f - tt, tt};
            float S = 0.0f, Sm = 0.0f, wq = 0.0f, wmq = 0.0f;
            int mine = 0;
            for (int k = 0; k < 4; k++) {
              const float wk = wsc[id[k]], wm = x[id[k]].w;
              S = S + bs[k] * bs[k] * wk;
              Sm = Sm + bs[k] * bs[k] * wm;
              if (id[k] == (uint)q) {
                mine = k;
                wq = wk;
                wmq = wm;
              }
            }
            if (S == 0.0f) {
              S = Sm;
              wq = wmq;
            }
            if (!(S > 0.0f) || wq == 0.0f) continue;
            const float sg = mine < 2 ? bs[mine] : -bs[mine];
            /* a node moves at most the depth for one contact: with its partners
             * held (supported, kinematic, or the cloth side) and the closest point
             * next to the other end, depth / b would throw it */
            float f = sg * wq / S;
            f = f > 1.0f ? 1.0f : (f < -1.0f ? -1.0f : f);
            D = sc_request(D, nrm * (f * depth));
            (*cnt)++;
          }
        }
  }
  return D;
}


/* The first live triangle of particle a's list (adj) that holds a and b,
 * or 0xffffffff: where selfcol_edge_edge meets the edge (a, b) from a. */
inline uint sc_edge_first(__global const uint *tris, __global const int *tobj,
                          __global const uint *adj_start, __global const uint *adj, const uint a,
                          const uint b) {
  for (uint i = adj_start[a]; i < adj_start[a + 1u]; i++) {
    uint3 w;
    if (sc_tri_ok(tris, tobj, (int)adj[i], &w) && sc_has(tris, adj[i], a) && sc_has(tris, adj[i], b))
      return adj[i];
  }
  return 0xffffffffu;
}

/* Edge slot k of triangle t: its corners k and k + 1 (mod 3). */
inline uint sc_edge_k(const uint3 v, const uint a, const uint b) {
  const int ab = (v.x == a || v.x == b) + 2 * (v.y == a || v.y == b);
  return ab == 3 ? 0u : ab == 2 ? 1u : 2u; /* (x, y), (y, z), (z, x) */
}

/* What selfcol_edge_flags allows for the motion of the other edge of a
 * pair: for every non-empty bucket h of the passes' triangle hash, a
 * reference motion c_h, the motion δ = x - p of the first corner of its
 * first entry (sc_bucket_ref: the bucket is sorted, so the same particle
 * whoever asks), and bm[h], the largest |δ_k - c_h| over the corners k of
 * its triangles (selfcol_bucket_motion, one work item per triangle, an
 * atomic_max on the bits per cell entry; bm zeroed before). Non-negative
 * floats order like their bits, so bm is exact and independent of order;
 * a NaN's bits lie above every number's and stay, and its NaN fails every
 * test made with it. */
inline float3 sc_bucket_ref(__global const float4 *x, __global const float4 *p,
                            __global const uint *tris, __global const uint *start,
                            __global const uint *vals, const uint h) {
  const uint v = tris[3u * vals[start[h]]];
  return x[v].xyz - p[v].xyz;
}

__kernel void selfcol_bucket_motion(__global const float4 *x, __global const float4 *p,
                                    __global const uint *tris, __global const uint *key,
                                    __global const uint *start, __global const uint *vals,
                                    __global uint *bm, const int n_tris, const uint mask) {
  const int t = get_global_id(0);
  if (t >= n_tris || key[8 * t] == 0xffffffffu) return;
  const uint v[3] = {tris[3 * t], tris[3 * t + 1], tris[3 * t + 2]};
  float3 d[3];
  for (int k = 0; k < 3; k++) d[k] = x[v[k]].xyz - p[v[k]].xyz;
  for (int j = 0; j < 8; j++) {
    const uint h = key[8 * t + j];
    if (h > mask) break; /* none left, or the wide bucket (not read) */
    const float3 c = sc_bucket_ref(x, p, tris, start, vals, h);
    uint mb = 0u;
    for (int k = 0; k < 3; k++) {
      const float3 dc = d[k] - c;
      mb = max(mb, as_uint(sqrt(sc_dot(dc, dc)))); /* the bits: a NaN stays */
    }
    sc_amax(&bm[h], mb);
  }
}

/* Each edge's query once (issue 18, cost). selfcol_edge_edge lets both
 * ends of an edge scan the cells of its box for the edges they meet (each
 * combines its own share); on the twist about 96 % of those scans find
 * nothing. One work item per edge slot 3t + k: where t is the edge's
 * first live triangle seen from both ends (the slot both read), the same
 * scan as theirs (the same cells, entries, caps and tests; thickness and
 * rest rule of the ends' object) and eflag = 0 when no pair touches;
 * otherwise 1 + (b << 16 | i), the place of the scan's first contact
 * (its b-th bucket, entry i of it, at most 0xffff), and 1 (the start) for
 * every slot the ends do not both meet the edge at. An end reads its slot
 * and skips a 0 edge's scan, reading only its buckets' sizes for the cap
 * counter, and starts a flagged edge's scan at its first contact (the
 * buckets before it: their sizes only; every entry before it met nothing):
 * the same contacts, counters and bits, with about half the scans, and
 * the contact edges' scans shorter by what the flags had read already.
 *
 * Most edges need no scan at all: the step bounds (selfcol_bound_vt,
 * selfcol_bound_pairs) gave each particle i, on the substep's start
 * positions p, a lower bound L_i = min(r_i, its lock distance) of the
 * distance of every vertex-triangle and edge-edge pair it is in (a pair
 * they did not meet lies in a bucket over their cap, whose triangles got
 * r = 0). An edge-edge pair (e, f) of bounded cloths was thus at least
 * max(L_e0, L_e1) apart at p, and since then each point of an edge moved
 * by a convex combination of its ends' motions δ = x - p, so the two
 * closest points came nearer by at most max |δ_i - δ_j| <= |δ_i - c| +
 * |δ_j - c| over an end i of e and an end j of f, for any c. The scan
 * meets f only in e's buckets, and in cell bucket h every corner has
 * |δ_j - c_h| <= bm[h] (selfcol_bucket_motion). When, for each of e's
 * cells, max(L_e0, L_e1) - max_i |δ_i - c_h| - bm[h] exceeds tm, the
 * largest pair thickness, no pair the scan could meet there touches: the
 * cells are not scanned, only the wide bucket (its stretched triangles lie
 * all over the cloth, so one reference would not bound their motions).
 * Local and relative: a sheet that falls as a whole moves little
 * against its own bucket's reference, and a fast flap elsewhere does not
 * stop the skip. The slack, 2^-16 of the coordinates, of the motions and
 * of tm, covers the rounding of the motions and of the closest points'
 * distance; a NaN fails the test (the scan runs). A flat sheet far from
 * other layers has L = R = 1.25 tm and its parts move nearly alike in a
 * substep: its edges skip. */
__kernel void selfcol_edge_flags(__global const float4 *x, __global const float4 *p,
                                 __global const float4 *rest, __global const int *sobj,
                                 __global const int *objf, __global const float4 *objp,
                                 __global const uint *tris, __global const int *tobj,
                                 __global const float4 *tbox, __global const uint *maxbits,
                                 __global const uint *start, __global const uint *vals,
                                 __global const uint *adj_start, __global const uint *adj,
                                 __global uint *eflag, const int n_tris, const uint mask,
                                 const uint cap, __global const uint *rb,
                                 __global const uint *lk, __global const uint *bm,
                                 const float tm, __global const float *eb, const uint plane) {
  const int g = get_global_id(0);
  if (g >= 3 * n_tris) return;
  const uint t = (uint)g / 3u, k = (uint)g % 3u;
  uint3 v;
  uint any = 1u;
  const float inv = sc_tri_inv_cell(maxbits);
  if (sc_tri_ok(tris, tobj, (int)t, &v) && inv > 0.0f) {
    const uint a = k == 0u ? v.x : k == 1u ? v.y : v.z, b = k == 0u ? v.y : k == 1u ? v.z : v.x;
    const uint e0 = min(a, b), e1 = max(a, b);
    const int oq = sobj[e0];
    if (oq >= 0 && sobj[e1] == oq && (objf[oq] & SELFCOL_F_BOUND) && e0 != e1 &&
        sc_edge_first(tris, tobj, adj_start, adj, e0, e1) == t &&
        sc_edge_first(tris, tobj, adj_start, adj, e1, e0) == t) {
      any = 0u;
      const float tq = objp[oq].x;
      const float4 x0 = x[e0], x1 = x[e1];
      float3 elo, ehi;
      int3 c0, c1;
      sc_ee_cells(x0, x1, inv, &elo, &ehi, &c0, &c1);
      const int nb = sc_ee_count(c0, c1);
      const float3 d0 = x0.xyz - p[e0].xyz, d1 = x1.xyz - p[e1].xyz;
      const float le = fmax(fmin(as_float(rb[e0]), as_float(lk[8u * e0 + 3u])),
                            fmin(as_float(rb[e1]), as_float(lk[8u * e1 + 3u])));
      const float lim = tm + (fmax(sc_amax3(x0.xyz), sc_amax3(x1.xyz)) + tm) * 0x1p-16f;
      int skip = le > lim;
      for (int ib = 0; ib < nb - 1 && skip; ib++) { /* the cells */
        int3 cc = c0;
        int wide;
        const uint h = sc_ee_bucket(c0, c1, ib, nb, mask, &cc, &wide);
        if (start[h + 1u] == start[h]) continue; /* nothing to meet there */
        const float3 c = sc_bucket_ref(x, p, tris, start, vals, h);
        const float3 a0 = d0 - c, a1 = d1 - c;
        const float mv = fmax(sqrt(sc_dot(a0, a0)), sqrt(sc_dot(a1, a1))) + as_float(bm[h]);
        skip = le - mv > lim + (sc_amax3(c) + mv) * 0x1p-16f; /* NaN: no skip */
      }
      /* no pair in the cells touches: only the wide bucket (the last, its
       * triangles spread over the cloth) is scanned */
      const int first = skip ? nb - 1 : 0;
      for (int ib = first; ib < nb && !any; ib++) {
            int3 c = c0;
            int wide;
            const uint h = sc_ee_bucket(c0, c1, ib, nb, mask, &c, &wide);
            const uint lo = start[h], full = start[h + 1u];
            const uint hi = full - lo > cap ? lo + cap : full;
            for (uint ec = lo; ec < hi && !any; ec += 8u)
             for (uint hm = sc_box_hits(eb, plane, ec, hi, elo, ehi, 0.0f, 0.0f, -1.0f);
                  hm != 0u && !any; hm &= hm - 1u) {
              const uint en = ec + sc_low_bit(hm);
              const uint t2 = vals[en];
              uint3 u;
              if (!sc_ee_entry(tris, tobj, objf, tbox, t2, elo, ehi, c0, c, wide, inv, &u))
                continue;
              const int ot = tobj[t2];
              const uint U[3] = {u.x, u.y, u.z};
              const int same = ot == oq;
              for (int j = 0; j < 3 && !any; j++) {
                const uint ua = U[j], ub = U[j == 2 ? 0 : j + 1];
                const uint f0 = min(ua, ub), f1 = max(ua, ub);
                if (f0 == e0 || f0 == e1 || f1 == e0 || f1 == e1) continue;
                uint id[4];
                float s, tt, depth;
                float3 nrm;
                /* where the ends' scans meet their first contact: bucket
                 * ib, entry en - lo (at most 0xffff: a start before it) */
                any = sc_edge_pair(x, p, rest, f0, f1, e0, e1,
                                   sc_pair_thickness(tq, objp[ot].x, same), same, id, &s, &tt,
                                   &nrm, &depth)
                          ? 1u + (((uint)ib << 16) | min(en - lo, 0xffffu))
                          : 0u;
              }
            }
          }
    }
  }
  eflag[g] = any;
}

__kernel void selfcol_edge_edge(__global const float4 *x, __global const float4 *p,
                                __global const float *wsc, __global const float4 *rest,
                                __global const int *sobj, __global const int *objf,
                                __global const float4 *objp, __global const uint *tris,
                                __global const int *tobj, __global const float4 *tbox,
                                __global const uint *maxbits, __global const uint *start,
                                __global const uint *vals, __global const uint *adj_start,
                                __global const uint *adj, __global float4 *delta, const int n,
                                const uint mask, const uint cap, const int cap_n,
                                __global uint *caps, __global const uint *pstart,
                                __global const uint *pvals, const float inv_p,
                                const uint mask_p, const uint cap_p, const float reach_l,
                                __global const uint *eflag, __global const float *eb,
                                const uint plane) {
  const int q = get_global_id(0);
  if (q >= n) return;
  float3 D = (float3)(0.0f);
  const int oq = sobj[q];
  const float inv = sc_tri_inv_cell(maxbits);
  const float4 xq4 = x[q];
  int cnt = 0;
  uint most = 0u;
  if (oq >= 0 && (objf[oq] & SELFCOL_F_BOUND) && inv > 0.0f && xq4.w != 0.0f) {
    const float tq = objp[oq].x;
    const uint a0 = adj_start[q], a1 = adj_start[q + 1];
    for (uint ia = a0; ia < a1 && cnt < cap_n; ia++) {
      const uint t = adj[ia];
      uint3 v;
      if (!sc_tri_ok(tris, tobj, (int)t, &v) || !sc_has(tris, t, (uint)q)) continue;
      for (int c = 0; c < 3 && cnt < cap_n; c++) {
        const uint o = c == 0 ? v.x : c == 1 ? v.y : v.z;
        if (o == (uint)q) continue;
        /* the edge (q, o) once: at its first live triangle in q's list
         * (the adjacency holds each triangle once) */
        if (sc_edge_first(tris, tobj, adj_start, adj, (uint)q, o) != t) continue;
        /* the edge with its ends in index order */
        const uint e0 = min((uint)q, o), e1 = max((uint)q, o);
        float3 elo, ehi;
        int3 c0, c1;
        sc_ee_cells(x[e0], x[e1], inv, &elo, &ehi, &c0, &c1);
        const int nb = sc_ee_count(c0, c1);
        const uint fl = eflag[3u * t + sc_edge_k(v, (uint)q, o)];
        /* no pair of it touches (selfcol_edge_flags): the scan would add
         * nothing but its buckets' sizes to the cap counter (cnt does not
         * move, so it would read every bucket); else it meets nothing
         * before the flags' first contact, bucket ib0, entry en0 of it */
        const int ib0 = fl == 0u ? nb : (int)((fl - 1u) >> 16);
        const uint en0 = fl == 0u ? 0u : (fl - 1u) & 0xffffu;
        for (int ib = 0; ib < ib0 && ib < nb; ib++) {
          int3 cc = c0;
          int wide;
          const uint h = sc_ee_bucket(c0, c1, ib, nb, mask, &cc, &wide);
          const uint sz = start[h + 1u] - start[h];
          if (sz > cap) most = max(most, sz);
        }
        for (int ib = ib0; ib < nb && cnt < cap_n; ib++) {
              int3 cc = c0;
              int wide;
              const uint h = sc_ee_bucket(c0, c1, ib, nb, mask, &cc, &wide);
              const uint lo = start[h], full = start[h + 1u];
              const uint hi = full - lo > cap ? lo + cap : full;
              if (full - lo > cap) most = max(most, full - lo);
              for (uint ec = ib == ib0 ? lo + en0 : lo; ec < hi && cnt < cap_n; ec += 8u)
               for (uint hm = sc_box_hits(eb, plane, ec, hi, elo, ehi, 0.0f, 0.0f, -1.0f);
                    hm != 0u && cnt < cap_n; hm &= hm - 1u) {
                const uint en = ec + sc_low_bit(hm);
                const uint t2 = vals[en];
                uint3 u;
                if (!sc_ee_entry(tris, tobj, objf, tbox, t2, elo, ehi, c0, cc, wide, inv, &u))
                  continue;
                const int ot = tobj[t2];
                const uint U[3] = {u.x, u.y, u.z};
                const int same = ot == oq;
                for (int j = 0; j < 3 && cnt < cap_n; j++) {
                  const uint ua = U[j], ub = U[j == 2 ? 0 : j + 1];
                  const uint f0 = min(ua, ub), f1 = max(ua, ub);
                  if (f0 == e0 || f0 == e1 || f1 == e0 || f1 == e1) continue;
                  uint id[4];
                  float s, tt, depth;
                  float3 nrm;
                  if (!sc_edge_pair(x, p, rest, f0, f1, e0, e1,
                                    sc_pair_thickness(tq, objp[ot].x, same), same, id, &s, &tt,
                                    &nrm, &depth))
                    continue;
                  const float bs[4] = {1.0f - s, s, 1.0f - tt, tt};
                  float S = 0.0f, Sm = 0.0f;
                  float wk[4], wm[4];
                  int mine = 0;
                  for (int k = 0; k < 4; k++) {
                    wk[k] = wsc[id[k]];
                    wm[k] = x[id[k]].w;
                    S = S + bs[k] * bs[k] * wk[k];
                    Sm = Sm + bs[k] * bs[k] * wm[k];
                    if (id[k] == (uint)q) mine = k;
                  }
                  float wq = wk[mine];
                  if (S == 0.0f) {
                    S = Sm;
                    wq = wm[mine];
                  }
                  if (!(S > 0.0f) || wq == 0.0f) continue;
                  const float sg = mine < 2 ? bs[mine] : -bs[mine];
                  D = sc_request(D, nrm * (sg * wq * depth / S));
                  cnt++;
                }
              }
            }
      }
    }
  }
  if (oq >= 0 && (objf[oq] & SELFCOL_F_ROPE) && inv > 0.0f && xq4.w != 0.0f) {
    D = sc_rope_link_edges(x, p, wsc, rest, sobj, objf, objp, tris, tobj, tbox, inv, start, vals, n,
                           mask, cap, cap_n, q, oq, &most, eb, plane);
    int cr = 0;
    D = sc_rope_link_links(D, &cr, x, p, wsc, rest, sobj, objf, objp, pstart, pvals, n, inv_p,
                           mask_p, cap_p, reach_l, cap_n, q, oq);
  }
  if (most > 0u && oq >= 0) sc_cap_hit(caps, oq, 6, most);
  delta[q] = (float4)(D, 0.0f);
}

/* ---- contact lists kept across substeps (issue 18, cost) -------------------
 * Rebuilding the triangle hash and querying its cells at every substep was
 * most of the stage (the main scene, 64², PoCL: the hash 15 ms and the
 * vertex-triangle pass 14 ms of a 32 ms frame, 20 substeps). Instead, at a
 * build every vertex gets the list of triangles whose distance is below
 * the reach t_max + M (M = SELFCOL_LIST_MARGIN x t_max), and every corner the
 * list of (vertex, entry) pairs naming its triangles; the lists are kept
 * until the motion since the build could have brought an unlisted pair
 * within t_max. Every substep runs the vertex-triangle pass on the lists
 * only and the corners gather their shares through theirs: no hash, no
 * per-substep regrouping.
 *
 * When a list is still exact (the check). Let δ_i = x_i - xb_i be particle
 * i's motion since the build. A pair (q, T) that is not listed was farther
 * than t_max + M at the build; its distance has since shrunk by at most
 * |δ_q - Σ b_k δ_k| <= max_k |δ_q - δ_k| (a point of T moves by a convex
 * combination of its corners' motion). Particles are grouped by the cell of
 * side rg they were in at the build (regions, hashed; two cells sharing a
 * bucket are one region, which only makes the test stricter). For regions
 * A and B, Δ(A, B) >= |δ_q - δ_k| for every q in A and k in B is taken
 * from the per-axis ranges of δ in each (kl_range), and G(A, B), the gap
 * between the boxes of their particles at the build (largest axis gap),
 * gives every triangle with a corner in B a distance at the build of at
 * least G - E from every vertex in A (E: the widest triangle box then).
 * Then the lists stay exact while, for every pair of regions,
 *     Δ(A, B) <= 0.99 max(M, G(A, B) - E - t_max), less a rounding term
 * (kl_lim, kl_check): an unlisted pair at build distance D > t_max + M,
 * D >= G - E, is still farther than D - 0.99 (D - t_max) > t_max. The 1 %
 * left covers rounding. Near regions must not move against each other by M; far ones
 * by their gap, so a sheet whose far parts swing while its folds lie still
 * keeps its lists. Otherwise (or with a non-finite motion) the host
 * rebuilds them at this substep: it reads the check's flag, one word, each
 * substep. Nothing assumes how far anything moved.
 *
 * Same contacts, same bits. A contact is closer than its pair thickness
 * d <= t_max, so it is on its vertex's list, and the list is in triangle
 * order like a bucket: the pass meets the contacts the per-substep hash
 * gives in the same order, keeps the same first SELFCOL_SLOTS, and each
 * corner combines its shares in the same (vertex, triangle) order. A
 * build that cannot be exact (a list over its length, a bucket over its
 * cap, a corner's list over its cap, a non-finite position) raises the
 * overflow flag, and the host runs the per-substep hash until the next
 * frame. The lists are distances, not boxes: a flat sheet lists only the
 * other triangle of each of its quads (s/√2 away), so the pass reads a few
 * entries where a cell held tens.
 *
 * Rotation and bending (the affine fits). The ranges above treat a
 * region's motion as a spread of translations: a patch that turns by θ
 * spreads its δ by θ times its side, and fails the test while no distance
 * in it has changed. So each region also carries an affine map of its
 * motion, δ_i = c + J u_i + r_i with u_i = xb_i - o (o: the region's
 * centroid at the build) and |r_i| <= r, and a pair that fails the ranges'
 * test may still pass on the maps (kl_pair_maps). For q in A and a
 * triangle T whose corners k lie in regions B_k, write δ_k = a_A(xb_k) +
 * ρ_k (ρ_k: k's residual under A's map). Since a_A is affine,
 *     x_q - x_T(b) = (I + J_A)(xb_q - xb_T(b)) + r_q - Σ b_k ρ_k,
 * so the distance now is at least s_A D - r_A - max_k |ρ_k|, with D the
 * build distance and s_A = min(1, σ_min(I + J_A)) (kl_shrink gives 1 - s_A:
 * a turn or a stretch costs nothing, a squeeze its ratio). D is at least
 * D_k = max(t_max + M, g_k - E), g_k the largest axis gap from A's box to
 * xb_k, for every corner; the lists stay exact for (A, B) while every k in
 * B has (1 - s_A) D_k + r_A + |ρ_k| <= 0.99 (D_k - t_max) less the rounding
 * term (kl_alim; then the corner with the largest |ρ_k| alone gives
 * distance > t_max). That is A's side of the pair; a region whose pairs
 * did not all pass the ranges needs its side of every pair on its own map
 * (one certificate per region's vertices, kl_pair_maps). Cheaper sufficient forms come first: for A = B, ρ_k = r_k;
 * otherwise |ρ_k| <= r_B + the largest |a_B - a_A| over the corners of B's
 * box (an affine difference peaks at a corner); only when those fail are
 * B's particles read one by one. J can be any matrix (r and ρ are measured
 * against it): kl_affine fits J by least squares, J = S C⁻¹ (S = Σ δ_i
 * u_iᵀ, C = Σ u_i u_iᵀ + λ I, λ = KL_FIT_REG trace C so that a flat
 * region's normal direction stays defined), then measures r against it in
 * a second pass over the region. A rigid turn is affine (r = 0; with λ,
 * the fit keeps about 1/(1 + 2 KL_FIT_REG) of a flat region's turn, and r
 * holds the rest). The fits
 * cost about what kl_range does, so they run only at a substep whose
 * ranges failed (the host reads the flag, then runs kl_affine and
 * kl_check again on the maps): run at every substep they cost the main
 * scene more than the builds they saved. */

/* 10 % (it was 1 %): a region's thin direction (a sheet's normal, a
 * fold's two layers 0.6 thickness apart) has C's smallest eigenvalue far
 * below λ, so J's column there is S's over λ: at 1 % it took the layers'
 * own small relative motion as a squeeze of up to 30-50 % (1 - s_A, which
 * multiplies the build distance in every map test), at 10 % a few %. The
 * main scene built 1.61 times a frame at 1 %, 1.50 at 10 % (1.49 at 30 %,
 * 1.56 at 3 %, 1.65 at 0.1 %), the 256² ladder 1.40 and 1.35; a rigid
 * turn of the folded sheet (test_spin) 3 and 4 builds in 40 substeps. */
#define KL_FIT_REG 1e-1f
/* One work item per region bucket of the build: the box of its particles
 * (at the build, x), xb = x for them, and its index in the occupied list;
 * raff: the frame of its affine fits (centroid o, (C + λI)⁻¹). A
 * non-finite position raises the overflow flag (the per-substep path
 * keeps its NaN rules). */
__kernel void kl_region_box(__global const float4 *x, __global float4 *xb,
                            __global const uint *rstart, __global const uint *rvals,
                            __global float4 *rbox, __global uint *rocc, __global uint *flag,
                            __global float4 *raff, const uint nb, __global uint *rind,
                            __global uint *mlist, const float inv_cell) {
  const uint b = get_global_id(0);
  if (b >= nb) return;
  const uint lo = rstart[b], hi = rstart[b + 1u];
  if (lo == hi) return;
  float3 mn = (float3)(INFINITY), mx = (float3)(-INFINITY), sm = (float3)(0.0f);
  int bad = 0;
  for (uint e = lo; e < hi; e++) {
    const uint i = rvals[e];
    const float4 xi = x[i];
    const float chk = xi.x + xi.y + xi.z;
    if (!(chk - chk == 0.0f)) bad = 1;
    mn = fmin(mn, xi.xyz);
    mx = fmax(mx, xi.xyz);
    sm += xi.xyz;
    xb[i] = xi;
  }
  if (bad) atomic_or(&flag[1], 1u);
  /* merged: the region's particles lie in more than one cell (cells that
   * share a bucket are one region); kl_near finds such regions through
   * their list (mlist, flag[4] of them), the others through their cell */
  const int merged =
      sc_coord(mn.x, inv_cell) != sc_coord(mx.x, inv_cell) ||
      sc_coord(mn.y, inv_cell) != sc_coord(mx.y, inv_cell) ||
      sc_coord(mn.z, inv_cell) != sc_coord(mx.z, inv_cell);
  rbox[2u * b] = (float4)(mn, merged ? 1.0f : 0.0f);
  rbox[2u * b + 1u] = (float4)(mx, 0.0f);
  const uint j = atomic_inc(&flag[2]); /* flag[2]: occupied regions */
  rocc[j] = b;
  rind[b] = j;
  if (merged) mlist[atomic_inc(&flag[4])] = j;
  /* the affine fits' frame (raff: 3 float4 a bucket: o; (C + λI)⁻¹ as
   * xx, xy, xz, yy | yz, zz), inverted by its adjugate (symmetric,
   * positive definite by λ) */
  const float3 o = sm / (float)(hi - lo);
  float cxx = 0.0f, cxy = 0.0f, cxz = 0.0f, cyy = 0.0f, cyz = 0.0f, czz = 0.0f;
  for (uint e = lo; e < hi; e++) {
    const float3 u = x[rvals[e]].xyz - o;
    cxx += u.x * u.x; cxy += u.x * u.y; cxz += u.x * u.z;
    cyy += u.y * u.y; cyz += u.y * u.z; czz += u.z * u.z;
  }
  const float lam = KL_FIT_REG * (cxx + cyy + czz) + 1e-30f;
  cxx += lam; cyy += lam; czz += lam;
  const float a00 = cyy * czz - cyz * cyz, a01 = cxz * cyz - cxy * czz, a02 = cxy * cyz - cxz * cyy;
  const float a11 = cxx * czz - cxz * cxz, a12 = cxy * cxz - cxx * cyz, a22 = cxx * cyy - cxy * cxy;
  const float det = cxx * a00 + cxy * a01 + cxz * a02;
  const float id = det > 0.0f ? 1.0f / det : 0.0f;
  raff[3u * b] = (float4)(o, 0.0f);
  raff[3u * b + 1u] = (float4)(a00, a01, a02, a11) * id;
  raff[3u * b + 2u] = (float4)(a12, a22, 0.0f, 0.0f) * id;
}

/* A float as a uint whose unsigned order is the float's order (finite
 * values; the sign bit flipped for positives, all bits for negatives), so
 * atomic_min / atomic_max take the extremes of floats. */
inline uint kl_key(const float f) {
  const uint u = as_uint(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

inline float kl_unkey(const uint k) {
  return as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

/* An empty slot of the global motion range (kl_range): the maxima at the
 * smallest key, the minima at the largest. */
inline void kl_range_reset(__global uint *slot) {
  for (int i = 0; i < 6; i++) slot[i] = i < 3 ? 0u : 0xffffffffu;
}

/* 1 - min(1, σ_min(I + J)), J given by its rows, less nothing it could
 * round away: I + J maps a build distance D to at least (1 - this) D. The
 * smallest eigenvalue of S = (I + J)ᵀ(I + J) by the trigonometric form of
 * a symmetric 3x3's eigenvalues (Smith, "Eigenvalues of a symmetric 3x3
 * matrix", CACM 4(4), 1961); its rounding, about 1e-6 of S's scale, is
 * covered by the 1e-4 added. */
inline float kl_shrink(const float3 j0, const float3 j1, const float3 j2) {
  const float3 m0 = (float3)(1.0f + j0.x, j1.x, j2.x), m1 = (float3)(j0.y, 1.0f + j1.y, j2.y),
               m2 = (float3)(j0.z, j1.z, 1.0f + j2.z);
  const float a = sc_dot(m0, m0), b = sc_dot(m1, m1), c = sc_dot(m2, m2);
  const float d = sc_dot(m0, m1), e = sc_dot(m0, m2), f = sc_dot(m1, m2);
  const float q = (a + b + c) / 3.0f;
  const float p2 = (a - q) * (a - q) + (b - q) * (b - q) + (c - q) * (c - q) +
                   2.0f * (d * d + e * e + f * f);
  float lmin = q;
  if (p2 > 0.0f) {
    const float p = sqrt(p2 / 6.0f), ip = 1.0f / p;
    const float ba = (a - q) * ip, bb = (b - q) * ip, bc = (c - q) * ip;
    const float bd = d * ip, be = e * ip, bf = f * ip;
    const float det =
        ba * (bb * bc - bf * bf) - bd * (bd * bc - bf * be) + be * (bd * bf - bb * be);
    const float phi = acos(clamp(0.5f * det, -1.0f, 1.0f)) / 3.0f;
    lmin = q + 2.0f * p * cos(phi + 2.0943951f);
  }
  return 1.0f - fmin(1.0f, sqrt(fmax(lmin, 0.0f))) + 1e-4f;
}

/* Every substep, one work item per occupied region: the range of its
 * particles' motion since the build per axis (NaN when non-finite: the
 * check's comparisons then fail, and the flag is raised here too), and
 * the range over all regions, into slot `par` of gr (6 keys: max x, y, z,
 * then min x, y, z; kl_near and kl_check reset the slots).
 *
 * clamp1 != 0: first the velocity clamp of selfcol_clamp on each of the
 * region's particles (the same function): the regions hold every
 * colliding particle, and the clamp writes only its own particle, so this
 * is the clamp kernel's work with one launch fewer a substep (the other
 * particles' wsc is never read on the lists: no pass of theirs runs). */
__kernel void kl_range(__global float4 *x, __global const float4 *xb,
                       __global const uint *rstart, __global const uint *rvals,
                       __global const uint *rocc, __global uint *flag,
                       __global float4 *rrng, __global uint *gr, const int par,
                       const int clamp1, __global const float4 *p, __global const int *sobj,
                       __global const float4 *objp, __global float *wsc, const float frac,
                       const float band, const int has_floor, const float floor_y,
                       __global const dr_sphere *spheres, const int n_spheres,
                       const float t_end, __global uint *rbad) {
  const uint j = get_global_id(0);
  if (j >= flag[2]) return;
  const uint b = rocc[j];
  rbad[b] = 0u; /* kl_check's ranges run marks the regions of failed pairs */
  const uint lo = rstart[b], hi = rstart[b + 1u];
  float3 mn = (float3)(INFINITY), mx = (float3)(-INFINITY);
  float bad = 0.0f;
  for (uint e = lo; e < hi; e++) {
    const uint i = rvals[e];
    const float4 xi = clamp1 ? sc_clamp1((int)i, x, p, sobj, objp, wsc, frac, band, has_floor,
                                        floor_y, spheres, n_spheres, t_end)
                            : x[i];
    const float3 d = xi.xyz - xb[i].xyz;
    const float chk = d.x + d.y + d.z;
    if (!(chk - chk == 0.0f)) bad = NAN;
    mn = fmin(mn, d);
    mx = fmax(mx, d);
  }
  rrng[2u * b] = (float4)(mn + (float3)(bad), 0.0f);
  rrng[2u * b + 1u] = (float4)(mx + (float3)(bad), 0.0f);
  if (bad != 0.0f) {
    atomic_or(&flag[0], 1u);
    return;
  }
  __global uint *g = gr + 6 * par;
  sc_amax(&g[0], kl_key(mx.x));
  sc_amax(&g[1], kl_key(mx.y));
  sc_amax(&g[2], kl_key(mx.z));
  sc_amin(&g[3], kl_key(mn.x));
  sc_amin(&g[4], kl_key(mn.y));
  sc_amin(&g[5], kl_key(mn.z));
}

/* Where the ranges' test failed (kl_check, then the host), one work item
 * per occupied region: its affine map of the motion (rfit, 4 float4 a
 * bucket: c and r; J's rows, the first with kl_shrink in w), and flag[0]
 * cleared for kl_check to run again on the maps. Two passes over the
 * region's particles (x as kl_range left it, clamped): J = S C⁻¹ by least
 * squares (S = Σ δ_i u_iᵀ), then the range of δ - J u, whose middle is c
 * and half diagonal r. A non-finite motion gives NaN, which fails. */
__kernel void kl_affine(__global const float4 *x, __global const float4 *xb,
                        __global const uint *rstart, __global const uint *rvals,
                        __global const uint *rocc, __global uint *flag,
                        __global const float4 *raff, __global float4 *rfit) {
  const uint j = get_global_id(0);
  const uint no = flag[2];
  if (j == 0u) flag[0] = 0u;
  if (j >= no) return;
  const uint b = rocc[j];
  const uint lo = rstart[b], hi = rstart[b + 1u];
  const float3 o = raff[3u * b].xyz;
  float3 s0 = (float3)(0.0f), s1 = (float3)(0.0f), s2 = (float3)(0.0f);
  float bad = 0.0f;
  for (uint e = lo; e < hi; e++) {
    const uint i = rvals[e];
    const float3 xbi = xb[i].xyz;
    const float3 d = x[i].xyz - xbi, u = xbi - o;
    const float chk = d.x + d.y + d.z;
    if (!(chk - chk == 0.0f)) bad = NAN;
    s0 += d.x * u;
    s1 += d.y * u;
    s2 += d.z * u;
  }
  const float4 c1 = raff[3u * b + 1u], c2 = raff[3u * b + 2u];
  const float3 q0 = (float3)(c1.x, c1.y, c1.z), q1 = (float3)(c1.y, c1.w, c2.x),
               q2 = (float3)(c1.z, c2.x, c2.y);
  const float3 j0 = (float3)(sc_dot(s0, q0), sc_dot(s0, q1), sc_dot(s0, q2));
  const float3 j1 = (float3)(sc_dot(s1, q0), sc_dot(s1, q1), sc_dot(s1, q2));
  const float3 j2 = (float3)(sc_dot(s2, q0), sc_dot(s2, q1), sc_dot(s2, q2));
  float3 wmn = (float3)(INFINITY), wmx = (float3)(-INFINITY);
  for (uint e = lo; e < hi; e++) {
    const uint i = rvals[e];
    const float3 xbi = xb[i].xyz, u = xbi - o;
    const float3 w = (x[i].xyz - xbi) - (float3)(sc_dot(j0, u), sc_dot(j1, u), sc_dot(j2, u));
    wmn = fmin(wmn, w);
    wmx = fmax(wmx, w);
  }
  const float3 hw = 0.5f * (wmx - wmn);
  rfit[4u * b] = (float4)(0.5f * (wmx + wmn), sqrt(sc_dot(hw, hw)) + bad);
  rfit[4u * b + 1u] = (float4)(j0, kl_shrink(j0, j1, j2) + bad);
  rfit[4u * b + 2u] = (float4)(j1, 0.0f);
  rfit[4u * b + 3u] = (float4)(j2, 0.0f);
}

/* The gap between the boxes of regions a and b at the build (the largest
 * axis gap; negative when they overlap): one expression for kl_near and
 * kl_check, symmetric in a and b. */
inline float kl_gap(__global const float4 *rbox, const uint a, const uint b) {
  const float3 g3 = fmax(rbox[2u * b].xyz - rbox[2u * a + 1u].xyz,
                         rbox[2u * a].xyz - rbox[2u * b + 1u].xyz);
  return fmax(fmax(g3.x, g3.y), g3.z);
}

/* Adds region b to j's near list out (m entries so far) unless it is
 * there already; m = -1 once more than cap are near (the caller stops). */
inline int kl_near_add(__global uint *out, int m, const int cap, const uint b) {
  for (int i = 0; i < m; i++)
    if (out[i] == b) return m;
  if (m == cap) return -1;
  out[m] = b;
  return m + 1;
}

/* At a build, one work item per occupied region (index j in rocc): the
 * occupied regions k >= j whose gap is at most rn, at most cap of them
 * (near; nearn = -1 when there are more). Work item 0 resets both slots of
 * the global motion range.
 *
 * It reads the cells (of side 1 / inv_cell, the particles' hash) that
 * region a's box grown by rn meets, and the merged regions' list
 * (kl_region_box): O(1) a region, where
 * testing every k >= j was O(regions²) a build (the 256² ladder's 1,024
 * regions: about 2 ms of a 21-23 ms build on PoCL). Why no near region is
 * missed: a region b that is not merged has its box in its one cell c_b,
 * and G(a, b) <= rn puts lo_b <= hi_a + rn and hi_b >= lo_a - rn on each
 * axis, so c_b = sc_coord(lo_b) = sc_coord(hi_b) lies between the cells of
 * lo_a - rn and hi_a + rn (sc_coord is monotone), padded by 2^-18 of the
 * coordinates against the rounding of those sums and of the gap. (This
 * needs b, not a, in one cell.) A merged b is tested from the list, and
 * an a whose grown box spans more than 4 cells on an axis (a merged one,
 * or rn over a cell) tests every k >= j as before. The list is the same set in another order, which kl_check
 * does not see (it fails if any pair fails). */
__kernel void kl_near(__global const float4 *rbox, __global const uint *rocc,
                      __global const uint *flag, __global uint *near, __global int *nearn,
                      __global uint *gr, const float rn, const int cap,
                      __global const uint *rstart, __global const uint *rind,
                      __global const uint *mlist, const float inv_cell, const uint mask) {
  const uint j = get_global_id(0);
  if (j == 0u) {
    kl_range_reset(gr);
    kl_range_reset(gr + 6);
  }
  const uint no = flag[2];
  if (j >= no) return;
  const uint a = rocc[j];
  __global uint *out = near + (size_t)j * (size_t)cap;
  const float3 lo = rbox[2u * a].xyz, hi = rbox[2u * a + 1u].xyz;
  const float pad = (fmax(sc_amax3(lo), sc_amax3(hi)) + rn) * 0x1p-18f;
  const float3 glo = lo - (float3)(rn + pad), ghi = hi + (float3)(rn + pad);
  const int3 c0 = (int3)(sc_coord(glo.x, inv_cell), sc_coord(glo.y, inv_cell),
                         sc_coord(glo.z, inv_cell));
  const int3 c1 = (int3)(sc_coord(ghi.x, inv_cell), sc_coord(ghi.y, inv_cell),
                         sc_coord(ghi.z, inv_cell));
  int m = 0;
  if (c1.x - c0.x > 3 || c1.y - c0.y > 3 || c1.z - c0.z > 3) {
    for (uint k = j; k < no && m >= 0; k++) {
      const uint b = rocc[k];
      if (kl_gap(rbox, a, b) <= rn) m = kl_near_add(out, m, cap, b);
    }
    nearn[j] = m;
    return;
  }
  for (int z = c0.z; z <= c1.z && m >= 0; z++)
    for (int y = c0.y; y <= c1.y && m >= 0; y++)
      for (int xx = c0.x; xx <= c1.x && m >= 0; xx++) {
        const uint h = sc_hash(xx, y, z, mask);
        if (rstart[h] == rstart[h + 1u]) continue; /* empty bucket */
        if (rind[h] < j || rbox[2u * h].w != 0.0f) continue; /* before j; merged */
        if (!(kl_gap(rbox, a, h) <= rn)) continue;
        m = kl_near_add(out, m, cap, h);
      }
  for (uint i = 0; i < flag[4] && m >= 0; i++) {
    const uint k = mlist[i];
    if (k < j) continue;
    const uint b = rocc[k];
    if (kl_gap(rbox, a, b) <= rn) m = kl_near_add(out, m, cap, b);
  }
  nearn[j] = m;
}

/* Region a's affine map of the motion at a build position y (above). */
inline float3 kl_aff(__global const float4 *rfit, __global const float4 *raff, const uint a,
                     const float3 y) {
  const float3 u = y - raff[3u * a].xyz;
  return rfit[4u * a].xyz + (float3)(sc_dot(rfit[4u * a + 1u].xyz, u),
                                     sc_dot(rfit[4u * a + 2u].xyz, u),
                                     sc_dot(rfit[4u * a + 3u].xyz, u));
}

/* The largest |a_a(y) - a_b(y)| over the corners y of region b's box (an
 * affine difference: its largest norm over the box is at a corner). */
inline float kl_aff_gap(__global const float4 *rbox, __global const float4 *rfit,
                        __global const float4 *raff, const uint a, const uint b) {
  const float3 lo = rbox[2u * b].xyz, hi = rbox[2u * b + 1u].xyz;
  float dm = 0.0f;
  for (int c = 0; c < 8; c++) {
    const float3 y = (float3)((c & 1) ? hi.x : lo.x, (c & 2) ? hi.y : lo.y, (c & 4) ? hi.z : lo.z);
    const float3 dd = kl_aff(rfit, raff, a, y) - kl_aff(rfit, raff, b, y);
    dm = fmax(dm, sqrt(sc_dot(dd, dd)));
  }
  return dm;
}

/* The ranges' limit for two regions whose boxes were G apart at the build
 * (kl_pair_ranges; K in kl_check): an unlisted pair was then D >= max(t_max +
 * M, G - E) apart, and after motions that differ by at most Δ it is still
 * D - Δ apart, so any limit below max(M, G - E - t_max) keeps it farther
 * than t_max. The check may use 99 % of that. The rest covers the
 * rounding of Δ (its motions are differences of floats rounded once: 2^-24
 * of the motion since the build), and 2^-20 (E + t_max + M) that of G and
 * E: where G is at most 2 (E + t_max + M) their errors are below 2^-22 of
 * that, and beyond, 1 % of G - E - t_max (over G / 2) is far above their
 * 2^-23 G. The same term for every G keeps the limit monotone in G, in
 * floats too, which K needs. It was 0.9 max(M, G - E - t_max), without the term: the
 * main scene built its lists 1.57 times a frame then, 1.42 now (with
 * kl_alim below). */
#define KL_USE 0.99f
inline float kl_lim(const float G, const float E, const float tm, const float M) {
  return KL_USE * fmax(M, G - E - tm) - 0x1p-20f * (E + tm + M);
}

/* The maps' limit for a corner at build distance at least Dk from A
 * (kl_pair_side; Dmin in kl_side_affine): the test holds at Dk, and its
 * two sides' difference grows with the distance (slope s_A >= 0), so it
 * holds for every pair farther. The same 99 % and rounding term as
 * kl_lim (the 10^-4 in kl_shrink covers s_A's own rounding); it was 90 %,
 * without the term. */
inline float kl_alim(const float Dk, const float E, const float tm, const float M) {
  return KL_USE * (Dk - tm) - 0x1p-20f * (E + tm + M);
}

/* The pairs with q in a and a corner k in b, one particle k at a time
 * (the condition above with ρ_k measured). */
inline int kl_pair_side(__global const float4 *x, __global const float4 *xb,
                        __global const uint *rstart, __global const uint *rvals,
                        __global const float4 *rbox, __global const float4 *rfit,
                        __global const float4 *raff, const uint a, const uint b, const float E,
                        const float tm, const float M) {
  const float ja = rfit[4u * a + 1u].w, ra = rfit[4u * a].w;
  const float3 lo = rbox[2u * a].xyz, hi = rbox[2u * a + 1u].xyz;
  const uint e0 = rstart[b], e1 = rstart[b + 1u];
  for (uint e = e0; e < e1; e++) {
    const uint k = rvals[e];
    const float3 y = xb[k].xyz;
    const float3 g3 = fmax(lo - y, y - hi);
    const float Dk = fmax(tm + M, fmax(fmax(g3.x, g3.y), g3.z) - E);
    const float3 rho = (x[k].xyz - y) - kl_aff(rfit, raff, a, y);
    if (!(ja * Dk + ra + sqrt(sc_dot(rho, rho)) <= kl_alim(Dk, E, tm, M))) return 0;
  }
  return 1;
}

/* Region a's side of the pair (a, b) on a's affine map (above): the
 * vertices of a against the corners in b, the cheap bound first (|ρ_k| <=
 * r_b + the largest |a_b - a_a| over b's box, kl_aff_gap; for a = b, r_a). */
inline int kl_side_affine(__global const float4 *x, __global const float4 *xb,
                          __global const uint *rstart, __global const uint *rvals,
                          __global const float4 *rbox, __global const float4 *rfit,
                          __global const float4 *raff, const uint a, const uint b,
                          const float G, const float E, const float tm, const float M) {
  const float ja = rfit[4u * a + 1u].w;
  const float eps = rfit[4u * a].w + rfit[4u * b].w;
  const float Dmin = fmax(tm + M, G - E);
  const float lim = kl_alim(Dmin, E, tm, M);
  if (a == b) return ja * Dmin + eps <= lim; /* eps = 2 r_A */
  if (ja * Dmin + eps + kl_aff_gap(rbox, rfit, raff, a, b) <= lim) return 1;
  return kl_pair_side(x, xb, rstart, rvals, rbox, rfit, raff, a, b, E, tm, M);
}

/* The ranges' test for regions a and b (Δ(A, B) <= kl_lim(G)). */
inline int kl_pair_ranges(__global const float4 *rrng, __global const float4 *rbox,
                          const uint a, const uint b, const float E, const float tm,
                          const float M) {
  const float3 amn = rrng[2u * a].xyz, amx = rrng[2u * a + 1u].xyz;
  const float3 bmn = rrng[2u * b].xyz, bmx = rrng[2u * b + 1u].xyz;
  const float3 dv = fmax(amx - bmn, bmx - amn); /* >= |δ_q - δ_k| per axis */
  const float dl = sqrt(sc_dot(dv, dv));
  return dl <= kl_lim(kl_gap(rbox, a, b), E, tm, M); /* NaN: fails */
}

/* On the maps (aff), the pair (a, b): each region whose vertices are not
 * covered by the ranges (rbad: one of its pairs failed them) must have
 * its side on its own map. One certificate per region's vertices, not
 * one per pair: a triangle with a corner in a region that passed the
 * ranges and one in a region that passed the maps is covered by neither
 * argument (each bounds the motion of all the triangle's corners its own
 * way; mixed, a turn J of the vertices' region adds up to |J| times the
 * pair's distance that neither bound counts). */
inline int kl_pair_maps(__global const float4 *rbox, __global const float4 *rfit,
                        __global const float4 *raff, __global const float4 *x,
                        __global const float4 *xb, __global const uint *rstart,
                        __global const uint *rvals, __global const uint *rbad, const uint a,
                        const uint b, const float E, const float tm, const float M) {
  const int ba = rbad[a] != 0u, bb = rbad[b] != 0u;
  if (!ba && !bb) return 1; /* (a, b) passed the ranges: rbad would be set on both */
  const float G = kl_gap(rbox, a, b);
  if (ba && !kl_side_affine(x, xb, rstart, rvals, rbox, rfit, raff, a, b, G, E, tm, M))
    return 0;
  return !bb || a == b || kl_side_affine(x, xb, rstart, rvals, rbox, rfit, raff, b, a, G, E, tm, M);
}

/* One work item per occupied region A: the condition above against every
 * occupied B from A on (the pairs are symmetric); a failure sets flag[0].
 * E: the widest grown triangle box of the build (maxbits) less 2 grow.
 * Two runs (the host's kl_stale): aff = 0 the ranges, marking the regions
 * of every pair over its limit (rbad); where one was, kl_affine fits the
 * maps and aff = 1 asks each marked region's side on its own map of all
 * its pairs (kl_pair_maps).
 *
 * The pairs farther apart than rn (the near lists' reach, kl_near) need no
 * test of their own while the motion's range over all regions, D (slot
 * par of gr, from kl_range), is at most K = kl_lim(rn): a pair's
 * Δ(A, B) <= D (its per-axis terms are differences of values within the
 * global range) and its limit, kl_lim(G) with G > rn, is at least K
 * (every step is monotone in G, in floats too). A
 * region then tests only its near list: O(regions) a substep instead of
 * O(regions²). When D > K, or its near list overflowed, it tests every
 * pair from A on. Work item 0 resets the other slot for the next substep. */
__kernel void kl_check(__global const float4 *rrng, __global const float4 *rbox,
                       __global const uint *rocc, __global uint *flag,
                       __global const uint *maxbits, const float grow, const float tm,
                       const float M, __global const uint *near, __global const int *nearn,
                       __global uint *gr, const int par, const float rn, const int cap,
                       __global const float4 *rfit, __global const float4 *raff,
                       __global const float4 *x, __global const float4 *xb,
                       __global const uint *rstart, __global const uint *rvals,
                       const int aff, __global uint *rbad) {
  const uint j = get_global_id(0);
  const uint no = flag[2];
  if (j == 0u) kl_range_reset(gr + 6 * (1 - par));
  if (j >= no) return;
  const float E = as_float(maxbits[0]) - 2.0f * grow;
  __global const uint *g = gr + 6 * par;
  const float3 gd = (float3)(kl_unkey(g[0]), kl_unkey(g[1]), kl_unkey(g[2])) -
                    (float3)(kl_unkey(g[3]), kl_unkey(g[4]), kl_unkey(g[5]));
  const float D = sqrt(sc_dot(gd, gd));
  const float K = kl_lim(rn, E, tm, M);
  const uint a = rocc[j];
  const int m = nearn[j];
  const int nearonly = D <= K && m >= 0; /* NaN: the full test */
  int ok = 1;
  /* The ranges (aff = 0): every pair, each failure marking both regions
   * (rbad, cleared by kl_range) for the maps' run. The maps (aff = 1): one
   * certificate per region's vertices (kl_pair_maps), up to the first
   * failure. While D <= K a triangle with a corner in a region farther
   * than rn needs neither: the global range bounds the motion of all its
   * corners against the vertex by D <= K <= 0.99 (its build distance -
   * t_max), the ranges' argument for the whole triangle (that corner alone
   * puts it at least rn - E away). */
  const uint cnt = nearonly ? (uint)m : no - j;
  for (uint i = 0; i < cnt && (ok || !aff); i++) {
    const uint b = nearonly ? near[(size_t)j * (size_t)cap + (size_t)i] : rocc[j + i];
    if (aff) {
      ok = kl_pair_maps(rbox, rfit, raff, x, xb, rstart, rvals, rbad, a, b, E, tm, M);
    } else if (!kl_pair_ranges(rrng, rbox, a, b, E, tm, M)) {
      ok = 0;
      rbad[a] = 1u;
      rbad[b] = 1u;
    }
  }
  if (!ok) atomic_or(&flag[0], 1u);
}

/* One work item per colliding particle q, on the triangle hash of the build
 * (boxes grown by `grow` >= reach, so every triangle within reach of q is in
 * q's own cell): the triangles of that bucket whose distance lower bound
 * (sc_vt_lower less sc_bound_margin: never above the true distance) is at
 * most reach, in triangle order (the bucket is sorted), at most L; each
 * listed triangle's corners are counted for their own lists (rcnt). A
 * bucket over `cap` or a list over L raises the overflow flag. */
__kernel void kl_lists(__global const float4 *x, __global const int *sobj,
                       __global const uint *tris, __global const int *tobj,
                       __global const float4 *tbox, __global const uint *maxbits,
                       __global const uint *start, __global const uint *vals,
                       __global uint *lst, __global int *lstn, __global uint *rcnt,
                       __global uint *flag, const int n, const uint mask, const uint cap,
                       const int L, const float reach, const float grow,
                       __global const float *eb, const uint plane) {
  const int q = get_global_id(0);
  if (q >= n) return;
  int cnt = 0;
  const float inv = sc_tri_inv_cell(maxbits);
  if (sobj[q] >= 0 && inv > 0.0f) {
    const float3 xq = x[q].xyz;
    const uint h = sc_hash(sc_coord(xq.x, inv), sc_coord(xq.y, inv), sc_coord(xq.z, inv), mask);
    const uint lo = start[h], hi = start[h + 1u];
    int over = hi - lo > cap;
    /* 2^-18 of the coordinates and of the growth: far above the rounding
     * of lo - g + g and of the differences */
    const float slack = (sc_amax3(xq) + 2.0f * grow) * 0x1p-18f;
    __global uint *out = lst + (size_t)q * (size_t)L;
    uint prev = 0xffffffffu;
    /* the box test, and the distance to the corners' own box (the grown
     * one shrunk back), a lower bound of the distance to the triangle,
     * which rejects most of the box's candidates before the exact lower
     * bound (`slack` covers the rounding of the growth), eight entries at
     * a time on the bucket's copied boxes (hash_sort_boxes) */
    const float r2 = (reach + slack) * (reach + slack);
    for (uint ec = lo; ec < hi && !over; ec += 8u) {
     uint hm = sc_box_hits(eb, plane, ec, hi, xq, xq, 0.0f, grow, r2);
     for (; hm != 0u && !over; hm &= hm - 1u) {
      const uint e = ec + sc_low_bit(hm);
      const uint t = vals[e];
      /* a triangle twice in a bucket (two of its cells hashed alike) is
       * two adjacent entries with one box: count it once */
      if (t == prev) continue;
      prev = t;
      uint3 v;
      if (!sc_tri_ok(tris, tobj, (int)t, &v) || tbox[2 * t].w == 0.0f) continue;
      if (v.x == (uint)q || v.y == (uint)q || v.z == (uint)q) continue;
      const float3 a = x[v.x].xyz, b = x[v.y].xyz, c = x[v.z].xyz;
      float3 dir;
      const float mg = sc_bound_margin(xq, a, b, c);
      const float dl = sc_vt_lower(xq, a, b, c, &dir, reach + mg);
      if (!(dl - mg <= reach)) continue;
      if (cnt == L) {
        over = 1;
        break;
      }
      out[cnt++] = t;
      atomic_inc(&rcnt[v.x]);
      atomic_inc(&rcnt[v.y]);
      atomic_inc(&rcnt[v.z]);
     }
    }
    if (over) atomic_or(&flag[1], 1u);
  }
  lstn[q] = cnt;
}

/* One work item, after the corner counts' scan (rstart[n]: the total): a
 * total over the buffer (rcap) raises the overflow flag and closes the gate
 * of the corner lists' sort, which would run past the buffer
 * (kl_rev_scatter writes nothing past it); the build is then not used. */
__kernel void kl_fit(__global const uint *rstart, __global uint *flag, __global float4 *gate,
                     const int n, const uint rcap) {
  if (get_global_id(0) != 0) return;
  const int fits = rstart[n] <= rcap;
  if (!fits) atomic_or(&flag[1], 1u);
  gate[0] = (float4)(0.0f, 0.0f, 0.0f, fits ? 1.0f : 0.0f);
}

/* One work item per vertex q: its entries into its triangles' corners'
 * lists (rstart: the scanned counts), as (q L + i) 4 + corner, in any
 * order (the buckets' sort puts them in (vertex, entry) order, which is
 * the per-substep pass's slot order). A corner list over capr raises the
 * overflow flag; nothing is written past rcap entries (kl_fit has flagged
 * a total over it). */
__kernel void kl_rev_scatter(__global const uint *tris, __global const uint *lst,
                             __global const int *lstn, __global const uint *rstart,
                             __global uint *rcur, __global uint *rvals, __global uint *flag,
                             const int n, const int L, const uint capr, const uint rcap) {
  const int q = get_global_id(0);
  if (q >= n) return;
  const int m = lstn[q];
  for (int i = 0; i < m; i++) {
    const uint t = lst[(size_t)q * (size_t)L + (size_t)i];
    for (uint c = 0; c < 3u; c++) {
      const uint j = tris[3u * t + c];
      const uint lo = rstart[j];
      if (rstart[j + 1u] - lo > capr) atomic_or(&flag[1], 1u);
      const uint at = lo + atomic_inc(&rcur[j]);
      if (at < rcap) rvals[at] = (((uint)q * (uint)L + (uint)i) << 2) | c;
    }
  }
}

/* One work item per particle, at a build: the particles the pass on the
 * lists can touch, those with a list of their own or a corner list, into
 * act (flag[3]: how many). Every other particle has no contact while the
 * lists hold (its contacts are on its list, its shares as a corner on its
 * corner list), so the pass and the corners' gather run on these only: a
 * draped sheet with no fold lists none, and the pass costs nothing. The
 * order in act is the atomics' and does not matter: each work item of
 * both kernels writes only its own particle's slots and position. A
 * work-group counts its own in local memory and takes its range of act
 * with one global atomic (a sheet in contact everywhere has every particle
 * active: one global counter for all of them was 1 ms a build at 256² on
 * PoCL). It also zeroes every particle's contact count and entries read
 * (nvt, exam): the pass writes the active ones' only. */
__kernel void kl_active(__global const int *lstn, __global const uint *rstart,
                        __global uint *flag, __global uint *act, __global int *nvt,
                        __global uint *exam, const int n) {
  __local uint count, base;
  const int j = get_global_id(0);
  if (j < n) {
    nvt[j] = 0;
    exam[j] = 0u;
  }
  if (get_local_id(0) == 0) count = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  const int on = j < n && (lstn[j] > 0 || rstart[j + 1] > rstart[j]);
  const uint r = on ? atomic_inc(&count) : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) base = count ? atomic_add(&flag[3], count) : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (on) act[base + r] = (uint)j;
}
