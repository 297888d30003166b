/* Helpers shared by the unit tests. */
#ifndef POLKA_TEST_UTIL_H
#define POLKA_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polka/config.h"
#include "polka/error.h"
#include "polka/plan.h"
#include "polka/rng.h"

/* Fails the test with the library's message when a call does not return POLKA_OK. */
#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        polka_status check_status_ = (expr);                                                       \
        if (check_status_ != POLKA_OK) fail_msg("%s: %s", #expr, polka_error_message());           \
    } while (0)

/* The plan of the default settings with these overrides (NULL-terminated) into *plan; the
 * settings stay in a static config, which the next call overwrites. */
static inline const polka_plan *test_plan_with(polka_plan *plan, const char *const *settings) {
    static polka_config config;
    polka_config_defaults(&config);
    for (; *settings; settings++) CHECK_OK(polka_config_override(&config, *settings));
    CHECK_OK(polka_plan_build(&config, plan));
    return plan;
}

/* Fills n numbers uniform on [lo, hi) from a counter-based stream. */
static inline void fill_uniform(double *out, size_t n, double lo, double hi, uint64_t seed) {
    polka_rng rng = polka_rng_start(seed, 99, 0);
    for (size_t k = 0; k < n; k++) out[k] = lo + (hi - lo) * polka_rng_uniform(&rng);
}

/* |a − b| ≤ tol·max(1, |a|, |b|) */
static inline int close_rel(double a, double b, double tol) {
    double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
    return fabs(a - b) <= tol * scale;
}

/* Solves a x = b (n×n, row-major; both overwritten, x in b) by Gaussian elimination with
 * partial pivoting, in plain loops: the oracle for the LAPACKE solves. */
static inline void gauss_solve(double *a, double *b, size_t n) {
    for (size_t col = 0; col < n; col++) {
        size_t piv = col;
        for (size_t r = col + 1; r < n; r++)
            if (fabs(a[r * n + col]) > fabs(a[piv * n + col])) piv = r;
        for (size_t k = 0; k < n && piv != col; k++) {
            double t = a[col * n + k];
            a[col * n + k] = a[piv * n + k];
            a[piv * n + k] = t;
        }
        double t = b[col];
        b[col] = b[piv];
        b[piv] = t;
        for (size_t r = col + 1; r < n; r++) {
            double factor = a[r * n + col] / a[col * n + col];
            for (size_t k = col; k < n; k++) a[r * n + k] -= factor * a[col * n + k];
            b[r] -= factor * b[col];
        }
    }
    for (size_t r = n; r-- > 0;) {
        double sum = b[r];
        for (size_t k = r + 1; k < n; k++) sum -= a[r * n + k] * b[k];
        b[r] = sum / a[r * n + r];
    }
}

#endif
