/* crossings.cl — the crossing count on the device (issue 18): how many
 * (edge, triangle) pairs sharing no point have the edge through the
 * triangle's interior. The host's reference is src/cloth/crossings.c; this
 * is the same count, and the host wrapper (src/cloth/crossings_cl.c) makes
 * it equal that reference exactly, always:
 *
 *   crossings_points   every point finite (else: flag, the host counts and
 *                      reports the point, as the reference does)
 *   crossings_boxes    each triangle's box and extent (dead = torn: none)
 *   crossings_cell     the cell size: the mean triangle extent (one group)
 *   crossings_count    triangles into cells: a box spanning more than
 *                      CR_MAX_CELLS cells goes to the "big" list (tested by
 *                      every edge), the others count one entry per cell
 *   crossings_scan     bucket starts (exclusive prefix sum, one group)
 *   crossings_fill     the entries (cell, triangle) by bucket
 *   crossings_edges    per edge: its cells' entries of the same cell, the
 *                      big list, or (its own box spanning more than
 *                      CR_MAX_CELLS cells) every triangle; a pair is tested
 *                      once, in the first cell both boxes share; the five
 *                      orientation signs through a filter with a rigorous
 *                      error bound; pairs the filter cannot decide go to
 *                      the "unsure" list, decided exactly on the host.
 *
 * Bounded memory: entries and unsure pairs have fixed capacities; past
 * either, a flag tells the host to count that frame itself. The count is a
 * sum of integers, so the order the atomics run in changes nothing.
 *
 * The filter. Each sign is that of det[a-d, b-d, c-d] evaluated as in
 * Shewchuk's orient3d (J. R. Shewchuk, "Adaptive Precision Floating-Point
 * Arithmetic and Fast Robust Geometric Predicates", 1997, section 4.3):
 * |computed - exact| <= (7 + 56 eps) eps * permanent, where the permanent is
 * the same expression with absolute values, provided every operation is
 * rounded to nearest and nothing underflows or overflows. Both hold:
 * OpenCL C rounds +, -, * correctly (spec 1.2, 7.4) and contraction into
 * fma is off for the whole program (drape_types.h).
 *  - double (cl_khr_fp64, eps = 2^-53): the inputs are finite floats, so a
 *    non-zero difference is at least 2^-149 and below 2^129; products of up
 *    to three of them and their sums (each a multiple of a power of two no
 *    smaller than 2^-551) stay between 2^-1022 and the largest double: no
 *    underflow, no overflow, for every finite float input.
 *  - float (eps = 2^-24; also forced for tests): underflow is possible, and
 *    a device may flush denormals. A pair is decided only when every
 *    coordinate is 0 or at least 2^-100 in magnitude (then a difference is
 *    0 or a normal number no smaller than 2^-123: never flushed) and every
 *    difference is 0 or between 2^-40 and 2^40 (products of three stay
 *    between 2^-121 and 2^121: the permanent neither underflows nor
 *    overflows). Only det's later steps may then underflow; each such
 *    step adds at most 2^-126 (flushed), at most five of them, carried
 *    through at most two sums: 2^-120 added to the bound covers them. */

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CR_MAX_CELLS 64
/* header words (crossings_cl.c reads them back) */
#define CR_H_COUNT 0     /* crossings decided here                       */
#define CR_H_UNSURE 1    /* pairs the filter left (may exceed capacity)  */
#define CR_H_FLAGS 2     /* CR_F_*                                       */
#define CR_H_ENTRIES 3   /* cell entries wanted                          */
#define CR_H_BIG 4       /* triangles in the big list                    */
#define CR_H_ALL 5       /* edges tested against every triangle          */
#define CR_H_PAIRS 6     /* pairs tested (saturates)                     */
#define CR_F_NONFINITE 1u
#define CR_F_ENTRIES 2u  /* entry capacity exceeded                      */
#define CR_F_UNSURE 4u   /* unsure capacity exceeded                     */
#define CR_F_COUNT 8u    /* the 32-bit count wrapped                     */

/* ---- cells ---- */

/* Monotone in v (a rounded product, floor, clamp): what the range logic
 * needs; any cell size gives the same count. */
static int cr_cell(float v, float inv) {
  float c = fmin(fmax(v * inv, -1.0e9f), 1.0e9f);
  const int i = (int)c; /* floor by truncation (sc_coord in selfcol.cl says why) */
  return c < (float)i ? i - 1 : i;
}

static uint cr_hash(int i, int j, int k, uint mask) {
  return ((uint)i * 73856093u ^ (uint)j * 19349663u ^ (uint)k * 83492791u) & mask;
}

/* Cells spanned by [lo, hi], up to CR_MAX_CELLS + 1 (more: "too many"). */
static int cr_range(float4 lo, float4 hi, float inv, int4 *clo, int4 *chi) {
  *clo = (int4)(cr_cell(lo.x, inv), cr_cell(lo.y, inv), cr_cell(lo.z, inv), 0);
  *chi = (int4)(cr_cell(hi.x, inv), cr_cell(hi.y, inv), cr_cell(hi.z, inv), 0);
  long n = (long)(chi->x - clo->x + 1);
  if (n > CR_MAX_CELLS) return CR_MAX_CELLS + 1;
  n *= (long)(chi->y - clo->y + 1);
  if (n > CR_MAX_CELLS) return CR_MAX_CELLS + 1;
  n *= (long)(chi->z - clo->z + 1);
  return n > CR_MAX_CELLS ? CR_MAX_CELLS + 1 : (int)n;
}

__kernel void crossings_points(__global const float4 *pts, const int n_points,
                               __global uint *hdr) {
  const int i = get_global_id(0);
  if (i >= n_points) return;
  const float4 q = pts[i];
  if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z))) atomic_or(&hdr[CR_H_FLAGS], CR_F_NONFINITE);
}

/* tlo.w: 1 for a dead (torn: three equal corners) triangle, else 0;
 * ext: the box's largest side, -1 for a dead one. */
__kernel void crossings_boxes(__global const float4 *pts, __global const uint *tris,
                              const int n_tris, __global float4 *tlo, __global float4 *thi,
                              __global float *ext) {
  const int t = get_global_id(0);
  if (t >= n_tris) return;
  const uint a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
  const float4 pa = pts[a], pb = pts[b], pc = pts[c];
  float4 lo = fmin(pa, fmin(pb, pc)), hi = fmax(pa, fmax(pb, pc));
  const int dead = a == b && b == c;
  lo.w = dead ? 1.0f : 0.0f;
  hi.w = 0.0f;
  tlo[t] = lo;
  thi[t] = hi;
  ext[t] = dead ? -1.0f : fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
}

/* One work-group of CR_GROUP items: cell = (h, 1/h) with h the mean extent
 * of the live triangles (1 when there is none or it is 0). */
#define CR_GROUP 64
__kernel void crossings_cell(__global const float *ext, const int n_tris, __global float *cell) {
  __local float sum[CR_GROUP];
  __local int cnt[CR_GROUP];
  const int l = get_local_id(0);
  float s = 0.0f;
  int c = 0;
  for (int t = l; t < n_tris; t += CR_GROUP) {
    const float x = ext[t];
    if (x >= 0.0f && isfinite(x)) s += x, c++;
  }
  sum[l] = s;
  cnt[l] = c;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    float ts = 0.0f;
    int tc = 0;
    for (int k = 0; k < CR_GROUP; k++) ts += sum[k], tc += cnt[k];
    float h = tc > 0 && ts > 0.0f && isfinite(ts) ? ts / (float)tc : 1.0f;
    if (!(h > 1e-30f)) h = 1e-30f;
    cell[0] = h;
    cell[1] = 1.0f / h;
  }
}

__kernel void crossings_count(__global const float4 *tlo, __global const float4 *thi,
                              const int n_tris, __global const float *cell,
                              __global uint *bcount, const uint mask, __global int *big,
                              __global uint *hdr) {
  const int t = get_global_id(0);
  if (t >= n_tris) return;
  const float4 lo = tlo[t];
  if (lo.w != 0.0f) return;
  int4 a, b;
  const int n = cr_range(lo, thi[t], cell[1], &a, &b);
  if (n > CR_MAX_CELLS) {
    big[atomic_inc(&hdr[CR_H_BIG])] = t; /* at most n_tris: the list's size */
    return;
  }
  atomic_add(&hdr[CR_H_ENTRIES], (uint)n);
  for (int i = a.x; i <= b.x; i++)
    for (int j = a.y; j <= b.y; j++)
      for (int k = a.z; k <= b.z; k++) atomic_inc(&bcount[cr_hash(i, j, k, mask)]);
}

/* Exclusive prefix sum of bcount[0, n) into start and fill (start[n]: the
 * total), one work-group of CR_GROUP items, each a run of consecutive
 * buckets (a CPU device sums a run in order at memory speed; on a GPU the
 * runs are short enough). Past the entry capacity: flag, no fill. */
__kernel void crossings_scan(__global const uint *bcount, const uint n, __global uint *start,
                             __global uint *fill, __global uint *hdr, const uint cap) {
  __local uint part[CR_GROUP + 1];
  const uint l = get_local_id(0);
  const uint run = (n + CR_GROUP - 1) / CR_GROUP;
  const uint b0 = min(n, l * run), b1 = min(n, b0 + run);
  uint s = 0;
  for (uint b = b0; b < b1; b++) s += bcount[b];
  part[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    uint acc = 0;
    for (uint k = 0; k < CR_GROUP; k++) {
      const uint v = part[k];
      part[k] = acc;
      acc += v;
    }
    part[CR_GROUP] = acc;
    start[n] = acc;
    if (hdr[CR_H_ENTRIES] > cap) atomic_or(&hdr[CR_H_FLAGS], CR_F_ENTRIES);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint acc = part[l];
  for (uint b = b0; b < b1; b++) {
    start[b] = acc;
    fill[b] = acc;
    acc += bcount[b];
  }
}

__kernel void crossings_fill(__global const float4 *tlo, __global const float4 *thi,
                             const int n_tris, __global const float *cell, __global uint *fill,
                             const uint mask, __global int4 *entries, __global const uint *hdr) {
  const int t = get_global_id(0);
  if (t >= n_tris || (hdr[CR_H_FLAGS] & (CR_F_ENTRIES | CR_F_NONFINITE))) return;
  const float4 lo = tlo[t];
  if (lo.w != 0.0f) return;
  int4 a, b;
  if (cr_range(lo, thi[t], cell[1], &a, &b) > CR_MAX_CELLS) return;
  for (int i = a.x; i <= b.x; i++)
    for (int j = a.y; j <= b.y; j++)
      for (int k = a.z; k <= b.z; k++)
        entries[atomic_inc(&fill[cr_hash(i, j, k, mask)])] = (int4)(i, j, k, t);
}

/* ---- the signs ---- */

/* Sign of det[a-d, b-d, c-d] when the filter is sure (-1, 0, +1), else 2. */
#ifdef cl_khr_fp64
static int cr_orient_d(float4 fa, float4 fb, float4 fc, float4 fd) {
  const double adx = (double)fa.x - (double)fd.x, ady = (double)fa.y - (double)fd.y,
               adz = (double)fa.z - (double)fd.z;
  const double bdx = (double)fb.x - (double)fd.x, bdy = (double)fb.y - (double)fd.y,
               bdz = (double)fb.z - (double)fd.z;
  const double cdx = (double)fc.x - (double)fd.x, cdy = (double)fc.y - (double)fd.y,
               cdz = (double)fc.z - (double)fd.z;
  const double bc = bdy * cdz - bdz * cdy, ca = cdy * adz - cdz * ady, ab = ady * bdz - adz * bdy;
  const double det = adx * bc + bdx * ca + cdx * ab;
  const double perm = fabs(adx) * (fabs(bdy * cdz) + fabs(bdz * cdy)) +
                      fabs(bdx) * (fabs(cdy * adz) + fabs(cdz * ady)) +
                      fabs(cdx) * (fabs(ady * bdz) + fabs(adz * bdy));
  const double eps = 0x1p-53, bound = (7.0 + 56.0 * eps) * eps * perm;
  if (det > bound) return 1;
  if (-det > bound) return -1;
  if (perm == 0.0) return 0; /* every product 0: the determinant is exactly 0 */
  return 2;
}
#endif

static int cr_coord_ok(float v) { return v == 0.0f || fabs(v) >= 0x1p-100f; }
static int cr_diff_ok(float d) { return d == 0.0f || (fabs(d) >= 0x1p-40f && fabs(d) <= 0x1p40f); }

static int cr_orient_f(float4 fa, float4 fb, float4 fc, float4 fd) {
  if (!(cr_coord_ok(fa.x) && cr_coord_ok(fa.y) && cr_coord_ok(fa.z) && cr_coord_ok(fb.x) &&
        cr_coord_ok(fb.y) && cr_coord_ok(fb.z) && cr_coord_ok(fc.x) && cr_coord_ok(fc.y) &&
        cr_coord_ok(fc.z) && cr_coord_ok(fd.x) && cr_coord_ok(fd.y) && cr_coord_ok(fd.z)))
    return 2;
  const float adx = fa.x - fd.x, ady = fa.y - fd.y, adz = fa.z - fd.z;
  const float bdx = fb.x - fd.x, bdy = fb.y - fd.y, bdz = fb.z - fd.z;
  const float cdx = fc.x - fd.x, cdy = fc.y - fd.y, cdz = fc.z - fd.z;
  if (!(cr_diff_ok(adx) && cr_diff_ok(ady) && cr_diff_ok(adz) && cr_diff_ok(bdx) &&
        cr_diff_ok(bdy) && cr_diff_ok(bdz) && cr_diff_ok(cdx) && cr_diff_ok(cdy) &&
        cr_diff_ok(cdz)))
    return 2;
  const float bc = bdy * cdz - bdz * cdy, ca = cdy * adz - cdz * ady, ab = ady * bdz - adz * bdy;
  const float det = adx * bc + bdx * ca + cdx * ab;
  const float perm = fabs(adx) * (fabs(bdy * cdz) + fabs(bdz * cdy)) +
                     fabs(bdx) * (fabs(cdy * adz) + fabs(cdz * ady)) +
                     fabs(cdx) * (fabs(ady * bdz) + fabs(adz * bdy));
  const float eps = 0x1p-24f, bound = (7.0f + 56.0f * eps) * eps * perm + 0x1p-120f;
  if (det > bound) return 1;
  if (-det > bound) return -1;
  if (perm == 0.0f) return 0;
  return 2;
}

/* The reference's orient (core/exact.h) is det[b-a, c-a, d-a] =
 * -det[a-d, b-d, c-d]; only equality and zero of signs matter below, so
 * the sign's direction does not. */
static int cr_orient(float4 a, float4 b, float4 c, float4 d, int dbl) {
  (void)dbl;
#ifdef cl_khr_fp64
  if (dbl) return cr_orient_d(a, b, c, d);
#endif
  return cr_orient_f(a, b, c, d);
}

/* 1: pq crosses abc, 0: it does not, 2: the filter cannot tell (the same
 * logic as the reference's crosses(); a sign the filter settles can end
 * the test whatever the others are). */
static int cr_cross(float4 p, float4 q, float4 a, float4 b, float4 c, int dbl) {
  const int sp = cr_orient(a, b, c, p, dbl), sq = cr_orient(a, b, c, q, dbl);
  if (sp == 0 || sq == 0) return 0;
  if (sp != 2 && sq != 2 && sp == sq) return 0;
  const int s1 = cr_orient(p, q, a, b, dbl), s2 = cr_orient(p, q, b, c, dbl),
            s3 = cr_orient(p, q, c, a, dbl);
  if (s1 == 0 || s2 == 0 || s3 == 0) return 0;
  /* two settled signs that differ: outside an edge */
  if ((s1 != 2 && s2 != 2 && s1 != s2) || (s2 != 2 && s3 != 2 && s2 != s3) ||
      (s1 != 2 && s3 != 2 && s1 != s3))
    return 0;
  if (sp == 2 || sq == 2 || s1 == 2 || s2 == 2 || s3 == 2) return 2;
  return 1;
}

static int cr_overlap(float4 alo, float4 ahi, float4 blo, float4 bhi) {
  return !(ahi.x < blo.x || bhi.x < alo.x || ahi.y < blo.y || bhi.y < alo.y || ahi.z < blo.z ||
           bhi.z < alo.z);
}

/* Tests edge e = (ia, ib) against triangle t; returns the crossings found
 * (0 or 1), an unsure pair going to the list. */
static uint cr_pair(__global const float4 *pts, __global const uint *tris, uint ia, uint ib,
                    float4 p, float4 q, int e, int t, int dbl, __global uint *hdr,
                    __global int2 *unsure, uint ucap) {
  const uint v0 = tris[3 * t], v1 = tris[3 * t + 1], v2 = tris[3 * t + 2];
  if (v0 == ia || v1 == ia || v2 == ia || v0 == ib || v1 == ib || v2 == ib) return 0;
  const int r = cr_cross(p, q, pts[v0], pts[v1], pts[v2], dbl);
  if (r == 2) {
    const uint slot = atomic_inc(&hdr[CR_H_UNSURE]);
    if (slot < ucap) unsure[slot] = (int2)(e, t);
    else atomic_or(&hdr[CR_H_FLAGS], CR_F_UNSURE);
    return 0;
  }
  return (uint)r;
}

__kernel void crossings_edges(__global const float4 *pts, __global const uint *tris,
                              __global const uint2 *edges, const int n_edges,
                              __global const float4 *tlo, __global const float4 *thi,
                              const int n_tris, __global const float *cell,
                              __global const uint *start, const uint mask,
                              __global const int4 *entries, __global const int *big,
                              __global uint *hdr, __global int2 *unsure, const uint ucap,
                              const int dbl) {
  const int e = get_global_id(0);
  if (e >= n_edges || (hdr[CR_H_FLAGS] & (CR_F_ENTRIES | CR_F_NONFINITE))) return;
  const uint2 ed = edges[e];
  const float4 p = pts[ed.x], q = pts[ed.y];
  const float4 lo = fmin(p, q), hi = fmax(p, q);
  const float inv = cell[1];
  int4 a, b;
  uint found = 0, tested = 0;
  if (cr_range(lo, hi, inv, &a, &b) > CR_MAX_CELLS) {
    atomic_inc(&hdr[CR_H_ALL]);
    for (int t = 0; t < n_tris; t++) {
      const float4 tl = tlo[t];
      if (tl.w != 0.0f || !cr_overlap(lo, hi, tl, thi[t])) continue;
      tested++;
      found += cr_pair(pts, tris, ed.x, ed.y, p, q, e, t, dbl, hdr, unsure, ucap);
    }
  } else {
    const uint nbig = hdr[CR_H_BIG];
    for (uint k = 0; k < nbig; k++) {
      const int t = big[k];
      if (!cr_overlap(lo, hi, tlo[t], thi[t])) continue;
      tested++;
      found += cr_pair(pts, tris, ed.x, ed.y, p, q, e, t, dbl, hdr, unsure, ucap);
    }
    for (int i = a.x; i <= b.x; i++)
      for (int j = a.y; j <= b.y; j++)
        for (int k = a.z; k <= b.z; k++) {
          const uint h = cr_hash(i, j, k, mask), s1 = start[h + 1];
          for (uint s = start[h]; s < s1; s++) {
            const int4 en = entries[s];
            if (en.x != i || en.y != j || en.z != k) continue; /* another cell, same bucket */
            const int t = en.w;
            const float4 tl = tlo[t], th = thi[t];
            if (!cr_overlap(lo, hi, tl, th)) continue;
            /* once per pair: in the first cell both boxes share */
            if (cr_cell(fmax(lo.x, tl.x), inv) != i || cr_cell(fmax(lo.y, tl.y), inv) != j ||
                cr_cell(fmax(lo.z, tl.z), inv) != k)
              continue;
            tested++;
            found += cr_pair(pts, tris, ed.x, ed.y, p, q, e, t, dbl, hdr, unsure, ucap);
          }
        }
  }
  if (tested) atomic_add(&hdr[CR_H_PAIRS], tested); /* informative: may wrap */
  if (found) {
    const uint old = atomic_add(&hdr[CR_H_COUNT], found);
    if (old + found < old) atomic_or(&hdr[CR_H_FLAGS], CR_F_COUNT);
  }
}

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : disable
#endif
