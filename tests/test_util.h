/* Helpers shared by the unit tests. */
#ifndef POLKA_TEST_UTIL_H
#define POLKA_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polka/error.h"
#include "polka/rng.h"

/* Fails the test with the library's message when a call does not return POLKA_OK. */
#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        polka_status check_status_ = (expr);                                                       \
        if (check_status_ != POLKA_OK) fail_msg("%s: %s", #expr, polka_error_message());           \
    } while (0)

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

#endif
