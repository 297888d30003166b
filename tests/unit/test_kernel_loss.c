/* Kernels (BLAS block vs reference loop) and loss gradients vs finite differences. */
#include <stdlib.h>
#include <string.h>

#include "polka/kernel.h"
#include "polka/loss.h"
#include "polka/model.h"
#include "core/exp_impl.h"
#include "core/thin_impl.h"
#include "test_util.h"

/*
 * |k̂ − k_ref| for two values of k(x, d), k_ref one of them, computed by any of the library's
 * paths (kernel.c's loop, or the block's inner products by dgemm or thin.c in any order and
 * ‖x‖² + ‖d‖² − 2x·d): each squared distance is within D = γ_{p+2}·S of s and each inner
 * product within γ_p·A of x·d, S = ‖x‖² + ‖d‖² + 2A, A = Σ|x_k d_k| [Higham02 §3.1].
 * Radial: the exponent z within Δ (its scale and product round: γ_3 of it; √ within
 * min(√D, D/√s) of √s), polka_exp within 2 ulp of the rounded e^z (exp_impl.h), 5u, so each
 * value within e = 3Δ + γ_6 of k relative (Δe^Δ ≤ 1.65Δ for Δ ≤ 1/2): 2e·k_ref/(1 − e).
 * Polynomial: t = x·d/σ² + c₀ within D_t, tⁿ by glibc's pow within 1 ulp (2u).
 */
static double kernel_gap(const polka_kernel *kernel, const double *x, const double *d, size_t p,
                         double k_ref) {
    double s = 0.0, a = 0.0, dot = 0.0, norms = 0.0;
    for (size_t k = 0; k < p; k++) {
        s += (x[k] - d[k]) * (x[k] - d[k]);
        dot += x[k] * d[k];
        a += fabs(x[k] * d[k]);
        norms += x[k] * x[k] + d[k] * d[k];
    }
    double big_d = test_gamma((double)p + 2) * (norms + 2 * a), delta = 0.0;
    switch (kernel->kind) {
    case POLKA_KERNEL_GAUSSIAN:
        delta = (big_d + test_gamma(3) * (s + big_d)) / (2 * kernel->sigma * kernel->sigma);
        break;
    case POLKA_KERNEL_LAPLACIAN: {
        double s_lo = s - big_d, root = sqrt(s + big_d);
        double dr = s_lo > 0 ? big_d / sqrt(s_lo) : sqrt(big_d);
        delta = (dr + test_gamma(3) * (root + dr)) / kernel->sigma;
        break;
    }
    case POLKA_KERNEL_POLYNOMIAL: {
        double s2 = kernel->sigma * kernel->sigma, n = (double)kernel->degree;
        double dt = (test_gamma((double)p) * a / s2 +
                     test_gamma(3) * (fabs(dot) / s2 + fabs(kernel->coef0))) *
                    (1 + test_gamma(2));
        double t = fabs(dot / s2 + kernel->coef0) + dt;
        return 2 * (n * pow(t, n - 1) * dt + 2 * TEST_UNIT * pow(t, n) * (1 + 2 * TEST_UNIT));
    }
    case POLKA_KERNEL_LINEAR:
        return 2 * test_gamma((double)p) * a;
    }
    assert_true(delta <= 0.5);
    double e = 3 * delta + test_gamma(6);
    return 2 * e * k_ref / (1 - e);
}

static void check_block(polka_kernel kernel) {
    enum { N = 37, M = 23, P = 5 };
    double x[N * P], d[M * P], fast[N * M], ref[N * M];
    fill_uniform(x, N * P, -2, 2, 1);
    fill_uniform(d, M * P, -2, 2, 2);
    CHECK_OK(polka_kernel_block(&kernel, x, N, d, NULL, M, P, fast));
    polka_kernel_block_ref(&kernel, x, N, d, M, P, ref);
    for (size_t k = 0; k < N * M; k++)
        assert_true(fabs(fast[k] - ref[k]) <=
                    kernel_gap(&kernel, x + k / M * P, d + k % M * P, P, ref[k]));
}

static void test_kernel_blocks_match_reference(void **state) {
    (void)state;
    check_block((polka_kernel){.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 0.7});
    check_block((polka_kernel){.kind = POLKA_KERNEL_LAPLACIAN, .sigma = 1.3});
    check_block(
        (polka_kernel){.kind = POLKA_KERNEL_POLYNOMIAL, .sigma = 1.0, .degree = 3, .coef0 = 1});
    check_block((polka_kernel){.kind = POLKA_KERNEL_LINEAR});
}

/*
 * A few rows take the thin path (thin.c): each row's values match the reference and are the
 * same bits whether the row is evaluated alone or with others, at a dimension with a tail.
 */
static void test_thin_rows_are_independent_of_the_block(void **state) {
    (void)state;
    enum { N = 6, M = 29, P = 37 };
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 2.5};
    double x[N * P], d[M * P], block[N * M], alone[M], ref[N * M];
    fill_uniform(x, N * P, -1, 1, 3);
    fill_uniform(d, M * P, -1, 1, 4);
    CHECK_OK(polka_kernel_block(&kernel, x, N, d, NULL, M, P, block));
    polka_kernel_block_ref(&kernel, x, N, d, M, P, ref);
    for (size_t i = 0; i < N; i++) {
        CHECK_OK(polka_kernel_block(&kernel, x + i * P, 1, d, NULL, M, P, alone));
        assert_memory_equal(alone, block + i * M, sizeof alone);
        for (size_t j = 0; j < M; j++)
            assert_true(fabs(alone[j] - ref[i * M + j]) <=
                        kernel_gap(&kernel, x + i * P, d + j * P, P, ref[i * M + j]));
    }
}

/* Units in the last place between a and a correctly rounded b (libm's exp: within 1 ulp). */
static double ulps_apart(double a, double b) {
    return fabs(a - b) / (nextafter(b, INFINITY) - b);
}

/*
 * polka_exp against libm over its whole range and densely where the kernels call it (x ≤ 0,
 * small |x|): within 2 ulp; 0 below POLKA_EXP_LOW, +inf above POLKA_EXP_HIGH, NaN for NaN.
 */
static void test_exp_matches_libm(void **state) {
    (void)state;
    enum { STEPS = 400000 };
    double worst = 0.0;
    for (int i = 0; i <= STEPS; i++) {
        double wide =
            fmin(POLKA_EXP_LOW + (POLKA_EXP_HIGH - POLKA_EXP_LOW) * i / STEPS, POLKA_EXP_HIGH);
        double near = -40.0 * i / STEPS + 1e-3 * i / STEPS;
        worst = fmax(worst, ulps_apart(polka_exp(wide), exp(wide)));
        worst = fmax(worst, ulps_apart(polka_exp(near), exp(near)));
    }
    assert_true(worst <= 2.0);
    assert_true(polka_exp(0.0) == 1.0);
    assert_true(polka_exp(-1e-300) == 1.0);
    assert_true(polka_exp(POLKA_EXP_LOW - 1e-9) == 0.0);
    assert_true(polka_exp(-INFINITY) == 0.0);
    assert_true(isinf(polka_exp(POLKA_EXP_HIGH + 1e-9)));
    assert_true(isnan(polka_exp(NAN)));
}

/*
 * The vectorised rows (thin.c, compiled for the widest instruction set the machine has) are
 * the bits of the scalar kernels (kernel.c's polka_exp), tails and NaN included.
 */
static void test_radial_rows_round_as_scalar(void **state) {
    (void)state;
    enum { M = 37 };
    double dots[M], dn[M], row[M];
    fill_uniform(dots, M, -3, 3, 5);
    fill_uniform(dn, M, 0, 9, 6);
    dn[7] = NAN;
    double xn = 4.0, sigma = 0.9;
    for (int laplacian = 0; laplacian <= 1; laplacian++) {
        memcpy(row, dots, sizeof row);
        polka_thin_radial(row, M, xn, dn, laplacian, sigma);
        for (size_t j = 0; j < M; j++) {
            double s = fmax(xn + dn[j] - 2.0 * dots[j], 0.0);
            if (isnan(dn[j])) s = NAN;
            double want = laplacian ? polka_exp(sqrt(s) * polka_laplacian_scale(sigma))
                                    : polka_exp(s * polka_gaussian_scale(sigma));
            if (isnan(want)) {
                assert_true(isnan(row[j]));
                continue;
            }
            assert_memory_equal(&row[j], &want, sizeof want);
        }
    }
}

static void test_kernel_values(void **state) {
    (void)state;
    /* the exponents −25/8 and −√25/2 are exact; polka_exp is within 2.5 ulp of e^z and libm's
     * exp within 1: 3.5 ulp, an ulp of e^z at most ε·e^z ≤ ε|want|(1 + ε): within 4ε|want| */
    polka_kernel gauss = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 2.0};
    double a[2] = {0, 0}, b[2] = {3, 4}, want = exp(-25.0 / 8.0);
    assert_true(fabs(polka_kernel_eval(&gauss, a, b, 2) - want) <= 4 * DBL_EPSILON * want);
    polka_kernel lap = {.kind = POLKA_KERNEL_LAPLACIAN, .sigma = 2.0};
    want = exp(-2.5);
    assert_true(fabs(polka_kernel_eval(&lap, a, b, 2) - want) <= 4 * DBL_EPSILON * want);
    polka_kernel bad = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 0.0};
    assert_non_null(polka_kernel_check(&bad));
    polka_kernel_kind kind;
    assert_int_equal(polka_kernel_kind_parse("cosine", &kind), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "cosine"));
}

static void test_model_eval_matches_sum(void **state) {
    (void)state;
    enum { M = 11, N = 300, P = 3, C = 4 };
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 0.9};
    double d[M * P], w[M * C], x[N * P], f[N * C];
    fill_uniform(d, M * P, -1, 1, 3);
    fill_uniform(w, M * C, -1, 1, 4);
    fill_uniform(x, N * P, -1, 1, 5);
    polka_model *model = NULL;
    CHECK_OK(polka_model_create(&kernel, P, C, &model));
    CHECK_OK(polka_model_append(model, d, M, w));
    polka_model_scale(model, 0.5);
    CHECK_OK(polka_model_eval(model, x, N, f));
    /* 0.5·w is exact; the model's dgemm and this loop each sum M products within γ_M of
     * Σ|terms|, on kernel values within kernel_gap of each other */
    for (size_t i = 0; i < N; i++)
        for (size_t c = 0; c < C; c++) {
            double sum = 0.0, terms = 0.0, gaps = 0.0;
            for (size_t m = 0; m < M; m++) {
                double k = polka_kernel_eval(&kernel, x + i * P, d + m * P, P);
                sum += 0.5 * w[m * C + c] * k;
                terms += fabs(0.5 * w[m * C + c] * k);
                gaps += fabs(0.5 * w[m * C + c]) * kernel_gap(&kernel, x + i * P, d + m * P, P, k);
            }
            assert_true(fabs(f[i * C + c] - sum) <= 2 * test_gamma(M) * terms + gaps);
        }
    polka_model_free(&model);
    assert_null(model);
    polka_model_free(&model); /* NULL-safe */
}

/*
 * What the finite differences of a loss need: bounds on |∂ℓ|, |∂²ℓ|, |∂³ℓ| along a coordinate
 * (away from kinks), whether it has kinks, and the absolute error of polka_loss_eval and of
 * the gradient at outputs |f_k| ≤ big (loss.c, each function's roundings; exp, log and log1p
 * within 1 ulp, 2u). Logistic: ∂²softplus = σ(1 − σ) ≤ 1/4, |∂³| = |σ(1 − σ)(1 − 2σ)| ≤
 * 1/(6√3), the same along a coordinate of log Σ e^{f_c} (p_c for σ).
 */
typedef struct {
    double d1, d2, d3, noise, grad_err;
    int kinked;
} loss_bounds;

static loss_bounds bounds_of(const polka_loss *loss, size_t c, double y, double big) {
    const double logistic_d3 = 1.0 / (6.0 * sqrt(3.0));
    switch (loss->kind) {
    case POLKA_LOSS_MULTI_HINGE: /* 1 + f_r − f_y */
        return (loss_bounds){1, 0, 0, test_gamma(2) * (1 + 2 * big), 0, 1};
    case POLKA_LOSS_MULTI_LOGISTIC: { /* Σ e^{f_k − top} within θ, its log, two additions */
        double theta = test_gamma((double)c + 1) + TEST_UNIT * 2 * big;
        return (loss_bounds){1,
                             0.25,
                             logistic_d3,
                             theta / (1 - theta) + test_gamma(3) * (2 * big + log((double)c)),
                             theta / (1 - theta) + test_gamma(2),
                             0};
    }
    case POLKA_LOSS_HINGE: /* 1 − y f, y = ±1 */
        return (loss_bounds){1, 0, 0, TEST_UNIT * (1 + big), 0, 1};
    case POLKA_LOSS_LOGISTIC: /* z + log1p(e^{−z}) or log1p(e^z); −y/(1 + e^{yf}) */
        return (loss_bounds){1, 0.25, logistic_d3, test_gamma(4) * (1 + big), test_gamma(4), 0};
    case POLKA_LOSS_SQUARE: /* r²/2, r = f − y; the gradient r */
        return (loss_bounds){big + fabs(y),
                             1,
                             0,
                             test_gamma(4) * 0.5 * pow(big + fabs(y), 2),
                             TEST_UNIT * (big + fabs(y)),
                             0};
    case POLKA_LOSS_ABSOLUTE: /* |f − y| */
        return (loss_bounds){1, 0, 0, TEST_UNIT * (big + fabs(y)), 0, 1};
    case POLKA_LOSS_EPS_INSENSITIVE: /* |f − y| − ε */
        return (loss_bounds){1, 0, 0, test_gamma(2) * (big + fabs(y) + loss->epsilon), 0, 1};
    default:
        fail_msg("no bounds for the loss %s", polka_loss_kind_name(loss->kind));
    }
    return (loss_bounds){0};
}

/*
 * Central finite differences of the loss against its gradient. Each value is within η: the
 * loss's noise, the steps f_k ± h rounded (u·big, times |∂ℓ|) and the difference's own
 * rounding. Smooth: h balances truncation and rounding (h³ = 3η/∂³ℓ; a quadratic has no
 * truncation, h = 2⁻¹⁰), test_fd1_bound. Kinked (piecewise linear and convex): a kink within h
 * shows as one-sided slopes that differ by more than a smooth point's h·∂²ℓ + 4η/h and their
 * own rounding (skipped); one that does not moves the central difference by at most half of
 * the exact slopes' difference (convexity), itself within twice that threshold: the
 * threshold, plus η/h.
 */
static void check_gradient(polka_loss loss, size_t c, double y, uint64_t seed) {
    double f[8], grad[8], plus[8], minus[8];
    size_t checked = 0, total = 0;
    for (int trial = 0; trial < 50; trial++) {
        fill_uniform(f, c, -2, 2, seed + (uint64_t)trial);
        polka_loss_eval(&loss, f, c, y, grad);
        loss_bounds lb = bounds_of(&loss, c, y, 2.0);
        double h = lb.d3 > 0 ? cbrt(3 * lb.noise / lb.d3) : 0x1p-10, big = 2.0 + h;
        lb = bounds_of(&loss, c, y, big);
        double eta = lb.noise + lb.d1 * TEST_UNIT * big;
        for (size_t k = 0; k < c; k++) {
            memcpy(plus, f, c * sizeof *f);
            memcpy(minus, f, c * sizeof *f);
            plus[k] += h;
            minus[k] -= h;
            double lp = polka_loss_eval(&loss, plus, c, y, NULL);
            double lm = polka_loss_eval(&loss, minus, c, y, NULL);
            double l0 = polka_loss_eval(&loss, f, c, y, NULL);
            double right = (lp - l0) / h, left = (l0 - lm) / h, fd = (lp - lm) / (2 * h);
            double sums = TEST_UNIT * (fabs(lp) + 2 * fabs(l0) + fabs(lm));
            double kink = h * lb.d2 + (4 * eta + sums) / h + TEST_UNIT * (fabs(right) + fabs(left));
            total++;
            /* Skip a kink: there the one-sided slopes differ. */
            if (fabs(right - left) > kink) {
                if (!lb.kinked) fail_msg("%s has no kink", polka_loss_kind_name(loss.kind));
                continue;
            }
            double noise = eta + TEST_UNIT * (fabs(lp) + fabs(lm)) / 2;
            double tol = (lb.kinked ? kink + noise / h : test_fd1_bound(h, lb.d3, noise)) +
                         test_gamma(2) * fabs(fd) + lb.grad_err;
            if (fabs(fd - grad[k]) > tol)
                fail_msg("%s: d/df%zu = %g, finite difference %g (bound %g)",
                         polka_loss_kind_name(loss.kind), k, grad[k], fd, tol);
            checked++;
        }
    }
    assert_true(checked >= total - total / 10); /* kinks within h are rare */
}

static void test_loss_gradients_match_finite_differences(void **state) {
    (void)state;
    for (double y = 0; y < 5; y++) {
        check_gradient((polka_loss){.kind = POLKA_LOSS_MULTI_HINGE}, 5, y, 10);
        check_gradient((polka_loss){.kind = POLKA_LOSS_MULTI_LOGISTIC}, 5, y, 20);
    }
    for (double y = 0; y < 2; y++) {
        check_gradient((polka_loss){.kind = POLKA_LOSS_HINGE}, 1, y, 30);
        check_gradient((polka_loss){.kind = POLKA_LOSS_LOGISTIC}, 1, y, 40);
    }
    check_gradient((polka_loss){.kind = POLKA_LOSS_SQUARE}, 1, 0.3, 50);
    check_gradient((polka_loss){.kind = POLKA_LOSS_ABSOLUTE}, 1, -0.4, 60);
    check_gradient((polka_loss){.kind = POLKA_LOSS_EPS_INSENSITIVE, .epsilon = 0.5}, 1, 0.2, 70);
}

static void test_loss_values(void **state) {
    (void)state;
    polka_loss hinge = {.kind = POLKA_LOSS_MULTI_HINGE};
    double f[3] = {0.5, 0.2, -1.0}, g[3];
    /* y = 1: r = 0, 1 + 0.5 − 0.2 */
    /* 1.5 − fl(0.2) rounded, against fl(1.3): 2.8u of 1.3, within γ_3 */
    assert_true(close_rel(polka_loss_eval(&hinge, f, 3, 1, g), 1.3, test_gamma(3)));
    assert_true(g[0] == 1.0 && g[1] == -1.0 && g[2] == 0.0);
    /* y = 0 with a margin above 1: no loss, no gradient */
    double sure[3] = {3.0, 0.2, -1.0};
    assert_true(polka_loss_eval(&hinge, sure, 3, 0, g) == 0.0);
    assert_true(g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0);
    polka_loss logistic = {.kind = POLKA_LOSS_MULTI_LOGISTIC};
    double big[3] = {800, 0, 0};
    assert_true(isfinite(polka_loss_eval(&logistic, big, 3, 1, g))); /* no overflow */
    /* 800 + log(1 + 2e⁻⁸⁰⁰): two additions and a log of a sum in [1, 3], γ_3 of 800 */
    assert_true(close_rel(polka_loss_eval(&logistic, big, 3, 1, g), 800.0, test_gamma(3)));
    assert_int_equal((int)polka_loss_predict(&logistic, f, 3), 0);
    polka_loss binary = {.kind = POLKA_LOSS_LOGISTIC};
    double z = -1000;
    /* 1000 + log1p(e⁻¹⁰⁰⁰): one addition, γ_2 of 1000 */
    assert_true(close_rel(polka_loss_eval(&binary, &z, 1, 1, g), 1000.0, test_gamma(2)));
    assert_non_null(polka_loss_check(&binary, 5));
    assert_null(polka_loss_check(&hinge, 5));
}

/* Every name table parses its own names back and lists them all when a name is unknown. */
static void test_names_round_trip(void **state) {
    (void)state;
    for (int k = 0; k <= (int)POLKA_LOSS_HUBER; k++) {
        polka_loss_kind kind;
        CHECK_OK(polka_loss_kind_parse(polka_loss_kind_name((polka_loss_kind)k), &kind));
        assert_int_equal((int)kind, k);
    }
    polka_kernel_kind kernel;
    assert_int_equal(polka_kernel_kind_parse("gausian", &kernel), POLKA_ERR_ARG);
    assert_string_equal(polka_error_message(),
                        "unknown kernel 'gausian' (gaussian, laplacian, polynomial, linear)");
    static const char *const names[] = {"a", "bb"};
    int index = -1;
    CHECK_OK(polka_name_find("bb", names, POLKA_COUNT(names), "x", &index));
    assert_int_equal(index, 1);
    assert_string_equal(polka_name_at(names, POLKA_COUNT(names), 2), "?");
    assert_string_equal(polka_name_at(names, POLKA_COUNT(names), -1), "?");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_blocks_match_reference),
        cmocka_unit_test(test_thin_rows_are_independent_of_the_block),
        cmocka_unit_test(test_exp_matches_libm),
        cmocka_unit_test(test_radial_rows_round_as_scalar),
        cmocka_unit_test(test_kernel_values),
        cmocka_unit_test(test_model_eval_matches_sum),
        cmocka_unit_test(test_loss_gradients_match_finite_differences),
        cmocka_unit_test(test_loss_values),
        cmocka_unit_test(test_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
