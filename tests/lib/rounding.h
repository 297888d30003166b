/* The rounding terms the tests' tolerances are derived from (docs/design.md, "Tests"), apart
 * from cmocka: the unit tests have them through test_util.h, the MPI tests include this. */
#ifndef POLKA_TEST_ROUNDING_H
#define POLKA_TEST_ROUNDING_H

#include <float.h>

/* u, the unit roundoff. */
#define TEST_UNIT (DBL_EPSILON / 2)

/* γ_n = n·u / (1 − n·u) [Higham02, §3.1]: a sum or dot product of n terms, computed in any
 * order (any BLAS kernel or blocking), is within γ_{n−1}·Σ|terms| of the exact one, and a
 * product of n roundings is within γ_n relative. */
static inline double test_gamma(double n) {
    double nu = n * TEST_UNIT;
    return nu / (1 - nu);
}

/* Error bound of the central difference (f(x+h) − f(x−h)) / 2h of a function computed with
 * absolute error at most noise: truncation h²·max|f'''| / 6 plus rounding noise / h. */
static inline double test_fd1_bound(double h, double d3_bound, double noise) {
    return h * h * d3_bound / 6 + noise / h;
}

/* Error bound of the second central difference (f(x+h) − 2f(x) + f(x−h)) / h²: truncation
 * h²·max|f''''| / 12 plus rounding 4·noise / h² (the coefficients' absolute sum is 4). */
static inline double test_fd2_bound(double h, double d4_bound, double noise) {
    return h * h * d4_bound / 12 + 4 * noise / (h * h);
}

#endif
