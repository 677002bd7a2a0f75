/* Symmetric positive definite banded matrices: Cholesky factor and solve.
 *
 * Storage ("lower band", as in seed 000 §7.17 solve_band): an n x n symmetric
 * matrix A with bandwidth w (A(i,j) = 0 when |i-j| > w) is kept as n rows of
 * w+1 doubles, row-major:
 *
 *     band[i*(w+1) + k] = A(i, i-k),   k = 0..w   (k = 0 is the diagonal)
 *
 * Entries with i-k < 0 (top-left corner) are unused and ignored. Only the
 * lower triangle is stored; the upper one is implied by symmetry.
 *
 *     row 0:  A00  .    .          <- k = 0, 1, 2 for w = 2
 *     row 1:  A11  A10  .
 *     row 2:  A22  A21  A20
 *     row 3:  A33  A32  A31
 *
 * dr_banded_factor() overwrites the band with the Cholesky factor L
 * (A = L L^T, L lower triangular with the same bandwidth), in place;
 * dr_banded_solve() then solves A x = b in place. Neither allocates: the
 * caller owns the band array (drape_banded_len() doubles) and the vector, so
 * a solver can preallocate everything once and factor every step.
 * Cost: factor O(n w^2), solve O(n w) — linear in n for a fixed bandwidth.
 *
 * Users: the seed 000 string (w = 5: two coordinates per node, terms that
 * couple three consecutive nodes) and the seed 003 implicit cable (Newton on
 * a banded Hessian). The arithmetic follows seed 000's solve_band statement
 * for statement, so results agree with the seed's Python to round-off. */
#ifndef DRAPE_CORE_BANDED_H
#define DRAPE_CORE_BANDED_H

#include <stddef.h>

/* Number of doubles in the band storage of an n x n matrix of bandwidth w. */
static inline size_t drape_banded_len(int n, int w) { return (size_t)n * (size_t)(w + 1); }

/* Pointer to A(i, j) for j <= i, i - j <= w (lower band). */
static inline double *drape_banded_at(double *band, int w, int i, int j) {
  return band + (size_t)i * (size_t)(w + 1) + (size_t)(i - j);
}

/* Factors A = L L^T in place. Returns 0 on success, or row+1 of the first
 * pivot that is not positive and finite (A not positive definite, or NaN in
 * the input); the band is then partly overwritten. n >= 0, w >= 0. */
int dr_banded_factor(double *band, int n, int w);

/* Solves L L^T x = b in place (x holds b on entry), with L from
 * dr_banded_factor(). */
void dr_banded_solve(const double *band, int n, int w, double *x);

/* y = A x for the symmetric matrix in band storage (before factoring); for
 * residual checks and Newton's method. x and y must not overlap. */
void dr_banded_mul(const double *band, int n, int w, const double *x, double *y);

#endif
