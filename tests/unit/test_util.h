/* Helpers shared by the unit tests. */
#ifndef POLKA_TEST_UTIL_H
#define POLKA_TEST_UTIL_H

#include <float.h>
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
#include "rounding.h"

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

/*
 * The relative error e of a Gaussian value k(x, d) computed by any of the library's paths
 * (kernel.c's loop, the block's ‖x‖² + ‖d‖² − 2x·d in any order): each squared distance is
 * within γ_{p+2}·S of s, S = ‖x‖² + ‖d‖² + 2Σ|x_k d_k| [Higham02 §3.1], so the exponent
 * −s/2σ² within Δ = γ_{p+5}(S + s)/2σ² (the scale's two roundings, the product's one), and
 * polka_exp is within 2 ulp of the rounded e^z (exp_impl.h), 5u: |k̂ − k| ≤ e·k̂ with
 * e = 3Δ + γ_6 (Δe^Δ ≤ 1.65Δ for Δ ≤ 1/2).
 */
static inline double test_gauss_rel(double sigma, const double *x, const double *d, size_t p) {
    double s = 0.0, big = 0.0;
    for (size_t k = 0; k < p; k++) {
        s += (x[k] - d[k]) * (x[k] - d[k]);
        big += x[k] * x[k] + d[k] * d[k] + 2 * fabs(x[k] * d[k]);
    }
    double delta = test_gamma((double)p + 5) * (big + s) / (2 * sigma * sigma);
    assert_true(delta <= 0.5);
    return 3 * delta + test_gamma(6);
}

/* |k̂ − k_ref| between two such values, k_ref one of them: within e of k each, so within
 * 2e·k_ref/(1 − e) of each other. */
static inline double test_gauss_gap(double sigma, const double *x, const double *d, size_t p,
                                    double k_ref) {
    double e = test_gauss_rel(sigma, x, d, p);
    return 2 * e * k_ref / (1 - e);
}

/* A bound on ‖A x − b‖₂ for A = a + shift·I (n×n, row-major): each computed residual plus the
 * rounding of its n + 2 terms, γ_{n+2}·Σ|terms| [Higham02 §3.1]; the oracle's own residual. */
static inline double test_residual_bound(const double *a, double shift, const double *x,
                                         const double *b, size_t n) {
    double sq = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = shift * x[i] - b[i], scale = fabs(shift * x[i]) + fabs(b[i]);
        for (size_t j = 0; j < n; j++) {
            r += a[i * n + j] * x[j];
            scale += fabs(a[i * n + j] * x[j]);
        }
        r = fabs(r) + test_gamma((double)n + 2) * scale;
        sq += r * r;
    }
    return sqrt(sq);
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
