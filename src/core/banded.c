/* Banded Cholesky (see banded.h). The loops mirror seed 000 §7.17 solve_band
 * (same operations in the same order, divisions kept as divisions) so the
 * string solver reproduces the seed's Python to round-off.
 *
 * Speed: each kernel is written once as an always-inline function of the
 * bandwidth and instantiated for the small widths in use (1..6) with w a
 * compile-time constant, so the compiler unrolls the inner loops; any other
 * width runs the same code with w as a variable. Rejected: multiplying by
 * stored reciprocals instead of dividing: no measurable gain for w = 5 here,
 * and it changes the last bit relative to the seed's reference, which
 * matters because the string's active set is decided at round-off level. */
#include "core/banded.h"

#include <math.h>

#if defined(__GNUC__)
#define BANDED_INLINE static inline __attribute__((always_inline))
#else
#define BANDED_INLINE static inline
#endif

BANDED_INLINE int factor_impl(double *band, int n, const int w) {
  const size_t s = (size_t)w + 1;
  for (int i = 0; i < n; i++) {
    const int lo = i - w > 0 ? i - w : 0;
    double *row_i = band + (size_t)i * s;
    for (int j = lo; j <= i; j++) {
      const double *row_j = band + (size_t)j * s;
      double value = row_i[i - j];
      /* L(i,k) L(j,k) for the columns k both rows share (k >= i-w >= j-w). */
      for (int k = lo; k < j; k++) value -= row_i[i - k] * row_j[j - k];
      if (i == j) {
        /* !(value > 0) also catches NaN. */
        if (!(value > 0.0) || !isfinite(value)) return i + 1;
        row_i[0] = sqrt(value);
      } else {
        row_i[i - j] = value / row_j[0];
      }
    }
  }
  return 0;
}

BANDED_INLINE void solve_impl(const double *band, int n, const int w, double *x) {
  const size_t s = (size_t)w + 1;
  /* Forward: L y = b. */
  for (int i = 0; i < n; i++) {
    const double *row_i = band + (size_t)i * s;
    const int lo = i - w > 0 ? i - w : 0;
    double xi = x[i];
    for (int j = lo; j < i; j++) xi -= row_i[i - j] * x[j];
    x[i] = xi / row_i[0];
  }
  /* Backward: L^T x = y; column i of L^T is row i of L read down the band. */
  for (int i = n - 1; i >= 0; i--) {
    const int hi = i + w + 1 < n ? i + w + 1 : n;
    double xi = x[i];
    for (int j = i + 1; j < hi; j++) xi -= band[(size_t)j * s + (size_t)(j - i)] * x[j];
    x[i] = xi / band[(size_t)i * s];
  }
}

int dr_banded_factor(double *band, int n, int w) {
  switch (w) {
    case 0: return factor_impl(band, n, 0);
    case 1: return factor_impl(band, n, 1);
    case 2: return factor_impl(band, n, 2);
    case 3: return factor_impl(band, n, 3);
    case 4: return factor_impl(band, n, 4);
    case 5: return factor_impl(band, n, 5);
    case 6: return factor_impl(band, n, 6);
    default: return factor_impl(band, n, w);
  }
}

void dr_banded_solve(const double *band, int n, int w, double *x) {
  switch (w) {
    case 0: solve_impl(band, n, 0, x); break;
    case 1: solve_impl(band, n, 1, x); break;
    case 2: solve_impl(band, n, 2, x); break;
    case 3: solve_impl(band, n, 3, x); break;
    case 4: solve_impl(band, n, 4, x); break;
    case 5: solve_impl(band, n, 5, x); break;
    case 6: solve_impl(band, n, 6, x); break;
    default: solve_impl(band, n, w, x); break;
  }
}

void dr_banded_mul(const double *band, int n, int w, const double *x, double *y) {
  const size_t s = (size_t)w + 1;
  for (int i = 0; i < n; i++) y[i] = 0.0;
  for (int i = 0; i < n; i++) {
    const double *row_i = band + (size_t)i * s;
    y[i] += row_i[0] * x[i];
    const int lo = i - w > 0 ? i - w : 0;
    for (int j = lo; j < i; j++) {
      y[i] += row_i[i - j] * x[j];
      y[j] += row_i[i - j] * x[i];
    }
  }
}
