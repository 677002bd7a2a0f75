/* Exact orientation sign (core/exact.h).
 *
 * A fast double-precision evaluation decides whenever its error bound
 * allows, which is almost always; otherwise the determinant is evaluated
 * exactly as a floating-point expansion (a sum of non-overlapping doubles)
 * with error-free transformations: the sum and difference of two doubles
 * as a rounded result plus its exact error (Knuth's TwoSum), the product
 * through fma (exact error of a product). This is the scheme of J. R.
 * Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
 * Geometric Predicates", Discrete Comput. Geom. 18 (1997), with its
 * orient3d error bound; the code is ours and keeps only the two stages
 * (filter, exact), not the paper's intermediate adaptive ones: counting
 * crossings calls it rarely past the filter. Needs round-to-nearest double
 * arithmetic without extended precision (x86-64 SSE2; the build does not
 * use -ffast-math). */
#include "core/exact.h"

#include <math.h>

/* x + y = a + b exactly, x = fl(a + b). */
static void two_sum(double a, double b, double *x, double *y) {
  const double s = a + b, bv = s - a, av = s - bv;
  *x = s;
  *y = (a - av) + (b - bv);
}

static void two_diff(double a, double b, double *x, double *y) { two_sum(a, -b, x, y); }

/* x + y = a * b exactly (fma gives the product's rounding error). */
static void two_product(double a, double b, double *x, double *y) {
  const double p = a * b;
  *x = p;
  *y = fma(a, b, -p);
}

/* h = e + f for expansions e (ne terms) and f (nf terms), each ordered by
 * increasing magnitude and non-overlapping; zero terms are dropped. Returns
 * the length of h (at most ne + nf). */
static int expansion_sum(const double *e, int ne, const double *f, int nf, double *h) {
  /* Grow e by each term of f in turn (Shewchuk's EXPANSION-SUM). */
  double buf[2][512];
  int n = 0;
  const double *cur = e;
  int ncur = ne;
  for (int j = 0; j < nf; j++) {
    double *out = j + 1 == nf ? h : buf[j & 1];
    double q = f[j];
    n = 0;
    for (int i = 0; i < ncur; i++) {
      double s, err;
      two_sum(q, cur[i], &s, &err);
      if (err != 0.0) out[n++] = err;
      q = s;
    }
    if (q != 0.0 || n == 0) out[n++] = q;
    cur = out;
    ncur = n;
  }
  if (nf == 0) {
    for (int i = 0; i < ne; i++) h[i] = e[i];
    n = ne;
  }
  return n;
}

/* h = e * b for an expansion e and a double b (SCALE-EXPANSION). */
static int scale_expansion(const double *e, int ne, double b, double *h) {
  int n = 0;
  double q, err;
  two_product(e[0], b, &q, &err);
  if (err != 0.0) h[n++] = err;
  for (int i = 1; i < ne; i++) {
    double p, perr, s, serr;
    two_product(e[i], b, &p, &perr);
    two_sum(q, perr, &s, &serr);
    if (serr != 0.0) h[n++] = serr;
    two_sum(p, s, &q, &err);
    if (err != 0.0) h[n++] = err;
  }
  if (q != 0.0 || n == 0) h[n++] = q;
  return n;
}

/* h = e * f for expansions (sum of e scaled by each term of f). */
static int expansion_product(const double *e, int ne, const double *f, int nf, double *h) {
  double acc[512], part[64], tmp[512];
  int n = 1;
  acc[0] = 0.0;
  for (int j = 0; j < nf; j++) {
    int np = scale_expansion(e, ne, f[j], part);
    n = expansion_sum(acc, n, part, np, tmp);
    for (int i = 0; i < n; i++) acc[i] = tmp[i];
  }
  for (int i = 0; i < n; i++) h[i] = acc[i];
  return n;
}

static int expansion_sign(const double *e, int n) {
  for (int i = n - 1; i >= 0; i--)
    if (e[i] != 0.0) return e[i] > 0 ? 1 : -1;
  return 0;
}

/* The exact stage: every difference as a two-term expansion, then the
 * cofactor expansion along the first column, all exact. */
static int orient3d_exact(const double a[3], const double b[3], const double c[3],
                          const double d[3]) {
  double ad[3][2], bd[3][2], cd[3][2]; /* [coordinate][small, large] */
  for (int k = 0; k < 3; k++) {
    two_diff(a[k], d[k], &ad[k][1], &ad[k][0]);
    two_diff(b[k], d[k], &bd[k][1], &bd[k][0]);
    two_diff(c[k], d[k], &cd[k][1], &cd[k][0]);
  }
  /* det = adx (bdy cdz - bdz cdy) + bdx (cdy adz - cdz ady) + cdx (ady bdz - adz bdy) */
  const double(*rows[3])[2] = {ad, bd, cd};
  double total[512];
  int nt = 1;
  total[0] = 0.0;
  for (int r = 0; r < 3; r++) {
    const double(*u)[2] = rows[r], (*v)[2] = rows[(r + 1) % 3], (*w)[2] = rows[(r + 2) % 3];
    double p1[16], p2[16], minor[32], term[256], tmp[512];
    int n1 = expansion_product(v[1], 2, w[2], 2, p1);
    int n2 = expansion_product(v[2], 2, w[1], 2, p2);
    for (int i = 0; i < n2; i++) p2[i] = -p2[i];
    int nm = expansion_sum(p1, n1, p2, n2, minor);
    int ntm = expansion_product(minor, nm, u[0], 2, term);
    nt = expansion_sum(total, nt, term, ntm, tmp);
    for (int i = 0; i < nt; i++) total[i] = tmp[i];
  }
  return -expansion_sign(total, nt); /* det[a-d, b-d, c-d] = -det[b-a, c-a, d-a] */
}

int dr_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]) {
  const double adx = a[0] - d[0], ady = a[1] - d[1], adz = a[2] - d[2];
  const double bdx = b[0] - d[0], bdy = b[1] - d[1], bdz = b[2] - d[2];
  const double cdx = c[0] - d[0], cdy = c[1] - d[1], cdz = c[2] - d[2];
  const double bc = bdy * cdz - bdz * cdy, ca = cdy * adz - cdz * ady, ab = ady * bdz - adz * bdy;
  const double det = adx * bc + bdx * ca + cdx * ab;
  const double perm = fabs(adx) * (fabs(bdy * cdz) + fabs(bdz * cdy)) +
                      fabs(bdx) * (fabs(cdy * adz) + fabs(cdz * ady)) +
                      fabs(cdx) * (fabs(ady * bdz) + fabs(adz * bdy));
  /* Shewchuk's bound for this evaluation, differences included:
   * (7 + 56 eps) eps with eps = 2^-53. */
  const double eps = 0x1p-53, bound = (7.0 + 56.0 * eps) * eps * perm;
  /* det is det[a-d, b-d, c-d] = -det[b-a, c-a, d-a]: the sign flips */
  if (det > bound) return -1;
  if (-det > bound) return 1;
  if (perm == 0.0) return 0; /* every difference product is 0: exactly 0 */
  return orient3d_exact(a, b, c, d);
}
