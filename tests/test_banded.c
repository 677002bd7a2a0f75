/* Banded Cholesky (src/core/banded.c): solves against known solutions for
 * several bandwidths, agreement with a dense Cholesky, rejection of
 * matrices that are not positive definite, and linear cost in n. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "core/banded.h"

static double urand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / 16777216.0 * 2.0 - 1.0; /* [-1, 1) */
}

/* A random symmetric banded matrix made diagonally dominant (hence SPD). */
static void random_spd(double *band, int n, int w, unsigned seed) {
  unsigned s = seed;
  for (int i = 0; i < n; i++)
    for (int k = 1; k <= w; k++) band[(size_t)i * (w + 1) + k] = i - k >= 0 ? urand(&s) : 0.0;
  for (int i = 0; i < n; i++) {
    double off = 0;
    for (int j = i - w; j <= i + w; j++)
      if (j >= 0 && j < n && j != i)
        off += fabs(j < i ? *drape_banded_at(band, w, i, j) : *drape_banded_at(band, w, j, i));
    band[(size_t)i * (w + 1)] = off + 0.5 + 0.5 * (urand(&s) + 1.0);
  }
}

/* x_true known; b = A x_true; factor, solve; x must come back to round-off. */
static void check_solve(int n, int w, unsigned seed) {
  double *a = malloc(sizeof(double) * drape_banded_len(n, w));
  double *a0 = malloc(sizeof(double) * drape_banded_len(n, w));
  double *x = malloc(sizeof(double) * (size_t)n), *xt = malloc(sizeof(double) * (size_t)n);
  random_spd(a, n, w, seed);
  memcpy(a0, a, sizeof(double) * drape_banded_len(n, w));
  unsigned s = seed * 7u + 1u;
  for (int i = 0; i < n; i++) xt[i] = urand(&s);
  dr_banded_mul(a0, n, w, xt, x);
  assert_int_equal(dr_banded_factor(a, n, w), 0);
  dr_banded_solve(a, n, w, x);
  double err = 0;
  for (int i = 0; i < n; i++) err = fmax(err, fabs(x[i] - xt[i]));
  assert_true(err < 1e-12);
  free(a);
  free(a0);
  free(x);
  free(xt);
}

static void test_solves_known_solution(void **state) {
  (void)state;
  const int widths[] = {0, 1, 2, 5, 8};
  const int sizes[] = {1, 2, 6, 7, 50, 333};
  for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
    for (size_t ni = 0; ni < sizeof sizes / sizeof *sizes; ni++)
      check_solve(sizes[ni], widths[wi], (unsigned)(17 * wi + ni + 1));
}

/* The factor equals a dense Cholesky of the same matrix, entry by entry. */
static void test_matches_dense_cholesky(void **state) {
  (void)state;
  enum { n = 24, w = 5 };
  double band[n * (w + 1)], dense[n][n], L[n][n];
  random_spd(band, n, w, 99);
  memset(dense, 0, sizeof dense);
  for (int i = 0; i < n; i++)
    for (int j = i - w; j <= i; j++)
      if (j >= 0) dense[i][j] = dense[j][i] = *drape_banded_at(band, w, i, j);
  memset(L, 0, sizeof L);
  for (int j = 0; j < n; j++) {
    double d = dense[j][j];
    for (int k = 0; k < j; k++) d -= L[j][k] * L[j][k];
    L[j][j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double v = dense[i][j];
      for (int k = 0; k < j; k++) v -= L[i][k] * L[j][k];
      L[i][j] = v / L[j][j];
    }
  }
  assert_int_equal(dr_banded_factor(band, n, w), 0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      const double want = L[i][j];
      if (i - j > w) {
        assert_near(want, 0.0, 1e-14); /* no fill-in outside the band */
      } else {
        assert_near(*drape_banded_at(band, w, i, j), want, 1e-13);
      }
    }
}

/* Indefinite, singular and NaN matrices are reported with the failing row. */
static void test_rejects_non_spd(void **state) {
  (void)state;
  enum { n = 6, w = 1 };
  double band[n * (w + 1)];
  /* Tridiagonal [2 -1; -1 2 ...] is SPD; make row 3's pivot negative. */
  for (int i = 0; i < n; i++) {
    band[i * 2] = 2.0;
    band[i * 2 + 1] = i ? -1.0 : 0.0;
  }
  double ok[n * (w + 1)];
  memcpy(ok, band, sizeof ok);
  assert_int_equal(dr_banded_factor(ok, n, w), 0);
  band[3 * 2] = 0.5; /* pivot of row 3: 0.5 - 1/(4/3) = -0.25 */
  assert_int_equal(dr_banded_factor(band, n, w), 4);
  double sing[4] = {1.0, 0.0, 0.0, 0.0}; /* diag(1, 0) */
  assert_int_equal(dr_banded_factor(sing, 2, 1), 2);
  double nan_band[4] = {1.0, 0.0, NAN, 0.5};
  assert_int_equal(dr_banded_factor(nan_band, 2, 1), 2);
}

/* The 1D Poisson matrix tridiag(-1, 2, -1) with b = 1 has the exact
 * solution x_i = (i+1)(n-i)/2: a structured case with known answer. */
static void test_poisson_exact(void **state) {
  (void)state;
  enum { n = 200, w = 1 };
  static double band[n * 2], x[n];
  for (int i = 0; i < n; i++) {
    band[2 * i] = 2.0;
    band[2 * i + 1] = i ? -1.0 : 0.0;
    x[i] = 1.0;
  }
  assert_int_equal(dr_banded_factor(band, n, w), 0);
  dr_banded_solve(band, n, w, x);
  for (int i = 0; i < n; i++) assert_near(x[i], 0.5 * (i + 1) * (n - i), 1e-9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_solves_known_solution),
      cmocka_unit_test(test_matches_dense_cholesky),
      cmocka_unit_test(test_rejects_non_spd),
      cmocka_unit_test(test_poisson_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
