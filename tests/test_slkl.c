/* SLKL (paper 002) and exact KRR against brute-force oracles; the regression generators. */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "polka/kernel.h"
#include "polka/learner.h"
#include "polka/model.h"
#include "polka/regression.h"
#include "polka/slkl.h"
#include "test_util.h"

/* ------------------------------------------------------------------------------ helpers */

/* n samples of a regression stream into a fresh data set. */
static polka_dataset make_data(const polka_regression_params *params, uint64_t stream, size_t n) {
    polka_regression *gen = NULL;
    CHECK_OK(polka_regression_create(params, &gen));
    polka_dataset data;
    CHECK_OK(polka_dataset_alloc(&data, n, params->dim, 0));
    polka_regression_fill(gen, stream, 0, &data);
    polka_regression_free(&gen);
    assert_null(gen);
    return data;
}

static polka_dataset sinc_data(uint64_t stream, size_t n, uint64_t seed) {
    polka_regression_params params = polka_regression_defaults(POLKA_REGRESSION_SINC);
    params.seed = seed;
    params.power_samples = n;
    return make_data(&params, stream, n);
}

/* SLKL parameters for n training points with the paper's nλ = 1, ν = 0.01. */
static polka_slkl_params small_params(size_t n, size_t candidates) {
    polka_slkl_params params = polka_slkl_defaults();
    params.lambda = 1.0 / (double)n;
    params.candidates = candidates;
    return params;
}

/* -------------------------------------------------------------------------------- KRR */

static void test_krr_solution(void **state) {
    (void)state;
    enum { N = 80, P = 3 };
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 0.7};
    double *x = malloc(N * P * sizeof *x), *y = malloc(N * sizeof *y);
    double *k = malloc(N * N * sizeof *k), *a = malloc(N * N * sizeof *a);
    double *alpha = malloc(N * sizeof *alpha);
    fill_uniform(x, N * P, -1.0, 1.0, 5);
    fill_uniform(y, N, -1.0, 1.0, 6);
    polka_kernel_block_ref(&kernel, x, N, x, N, P, k);
    const double lambdas[] = {1e-1, 1e-3, 1e-6};
    for (size_t l = 0; l < sizeof lambdas / sizeof *lambdas; l++) {
        double lambda = lambdas[l];
        polka_model *model = NULL;
        CHECK_OK(polka_krr_fit(&kernel, x, y, N, P, lambda, &model));
        assert_int_equal(polka_model_order(model), N);
        const double *w = polka_model_weights(model);
        /* the residual of (K + nλI) α = y, relative to ‖K + nλI‖·‖α‖ + ‖y‖ */
        double worst = 0.0;
        for (size_t i = 0; i < N; i++) {
            double r = (double)N * lambda * w[i] - y[i], scale = fabs(y[i]);
            for (size_t j = 0; j < N; j++) {
                r += k[i * N + j] * w[j];
                scale += fabs(k[i * N + j] * w[j]);
            }
            worst = fmax(worst, fabs(r) / scale);
        }
        if (worst > 1e-10) fail_msg("lambda %g: relative residual %g", lambda, worst);
        /* against Gaussian elimination */
        memcpy(a, k, N * N * sizeof *a);
        for (size_t i = 0; i < N; i++) a[i * N + i] += (double)N * lambda;
        memcpy(alpha, y, N * sizeof *alpha);
        gauss_solve(a, alpha, N);
        double amax = 0.0;
        for (size_t i = 0; i < N; i++) amax = fmax(amax, fabs(alpha[i]));
        for (size_t i = 0; i < N; i++)
            if (fabs(w[i] - alpha[i]) > 1e-8 * amax)
                fail_msg("lambda %g: alpha[%zu] %.17g, brute force %.17g", lambda, i, w[i],
                         alpha[i]);
        /* the MSE helper against a direct evaluation at the training points */
        double mse = 0.0, direct = 0.0;
        CHECK_OK(polka_krr_mse(model, x, y, N, &mse));
        for (size_t i = 0; i < N; i++) {
            double f = 0.0;
            for (size_t j = 0; j < N; j++) f += k[i * N + j] * w[j];
            direct += (f - y[i]) * (f - y[i]) / N;
        }
        assert_true(close_rel(mse, direct, 1e-9));
        polka_model_free(&model);
        assert_null(model);
    }
    /* errors: λ ≤ 0 */
    assert_int_equal(polka_krr_solve(k, y, N, 0.0, alpha), POLKA_ERR_ARG);
    free(x);
    free(y);
    free(k);
    free(a);
    free(alpha);
}

/* ----------------------------------------------------------------------- Nyström rank 1 */

static void test_nystrom_rank1(void **state) {
    (void)state;
    enum { N = 30, P = 2 };
    const polka_kernel kernels[] = {{.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 0.8},
                                    {.kind = POLKA_KERNEL_LAPLACIAN, .sigma = 1.3}};
    double *x = malloc(N * P * sizeof *x), *g = malloc(N * N * sizeof *g);
    double *sum = calloc(N * N, sizeof *sum), eig[N];
    fill_uniform(x, N * P, -2.0, 2.0, 11);
    for (size_t kk = 0; kk < 2; kk++) {
        const polka_kernel *kernel = &kernels[kk];
        for (size_t m = 0; m < 5; m++) {
            const double *xi = x + 3 * m * P;
            double kii = polka_kernel_eval(kernel, xi, xi, P);
            for (size_t i = 0; i < N; i++)
                for (size_t j = 0; j < N; j++) {
                    double v = polka_nystrom_rank1(kernel, x + i * P, x + j * P, xi, P);
                    double expect = polka_kernel_eval(kernel, x + i * P, xi, P) *
                                    polka_kernel_eval(kernel, xi, x + j * P, P) / kii;
                    assert_true(close_rel(v, expect, 1e-14));
                    g[i * N + j] = v;
                    sum[i * N + j] += (double)(m + 1) * v; /* a conic combination (eq. 3) */
                }
            /* PSD of rank 1: one eigenvalue ‖c‖², the others 0 */
            assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', N, g, N, eig), 0);
            double top = eig[N - 1];
            assert_true(top > 0);
            for (size_t i = 0; i + 1 < N; i++) assert_true(fabs(eig[i]) <= 1e-12 * top);
        }
        assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', N, sum, N, eig), 0);
        for (size_t i = 0; i < N; i++) assert_true(eig[i] >= -1e-12 * eig[N - 1]);
        memset(sum, 0, N * N * sizeof *sum);
    }
    free(x);
    free(g);
    free(sum);
}

/* ------------------------------------------------------------------------ SLKL updates */

/*
 * Every update lowers F (or keeps it; a rebuild of G may move F by rounding, hence 1e-10),
 * μ ≥ 0, and the tracked F equals the dense oracle to tol.
 */
static void check_monotone(polka_slkl_step_rule rule, size_t refresh, double sigma, double nu,
                           double tol) {
    enum { N = 150 };
    polka_dataset data = sinc_data(POLKA_STREAM_TRAIN, N, 21);
    polka_slkl_params params = small_params(N, 100);
    params.step = rule;
    params.refresh = refresh;
    params.kernel.sigma = sigma;
    params.nu = nu;
    polka_slkl *slkl = NULL;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &slkl));
    size_t big_m = polka_slkl_candidates(slkl), changes = 0;
    assert_int_equal(big_m, 100);
    double f0 = 0.0;
    for (size_t i = 0; i < N; i++) f0 += data.y[i] * data.y[i];
    assert_true(close_rel(polka_slkl_objective(slkl), f0, 1e-14));
    for (size_t it = 0; it < 4000; it++) {
        polka_slkl_update u;
        CHECK_OK(polka_slkl_iterate(slkl, &u));
        if (u.f_new > u.f_old + 1e-10 * fabs(u.f_old))
            fail_msg("iteration %zu raised F: %.17g -> %.17g (mu %g -> %g)", it, u.f_old, u.f_new,
                     u.mu_old, u.mu_new);
        assert_true(u.mu_new >= 0.0);
        changes += u.mu_new != u.mu_old;
        if (it % 500 == 499) {
            const double *mu = polka_slkl_mu(slkl);
            size_t active = 0;
            for (size_t m = 0; m < big_m; m++) {
                assert_true(mu[m] >= 0.0);
                active += mu[m] > 0;
            }
            assert_int_equal(active, polka_slkl_active(slkl));
            double ref = 0.0;
            CHECK_OK(polka_slkl_objective_ref(slkl, mu, &ref));
            if (!close_rel(ref, polka_slkl_objective(slkl), tol))
                fail_msg("iteration %zu: tracked F %.17g, oracle %.17g", it,
                         polka_slkl_objective(slkl), ref);
        }
    }
    assert_true(changes > 50);
    assert_true(polka_slkl_active(slkl) > 5);
    assert_true(polka_slkl_objective(slkl) < 0.5 * f0);
    polka_slkl_free(&slkl);
    assert_null(slkl);
    polka_dataset_free(&data);
}

static void test_slkl_monotone(void **state) {
    (void)state;
    check_monotone(POLKA_SLKL_NEWTON, 0, 1.0, 0.01, 1e-9); /* eqs. 24–27 only */
    check_monotone(POLKA_SLKL_NEWTON, 7, 1.0, 0.01, 1e-9); /* frequent rebuilds */
    check_monotone(POLKA_SLKL_EXACT, 500, 1.0, 0.01, 1e-9);
    /* wide kernels, weak penalty: nearly collinear columns and μ in the thousands; the
     * rank-1 updates of G then lose digits (1e-7 to 1.2e-6 in F without rebuilds, with the
     * kernel entries' last bits: the exponential's fmas moved it from one to the other),
     * rebuilds help */
    check_monotone(POLKA_SLKL_NEWTON, 0, 4.0, 1e-5, 1e-5);
    check_monotone(POLKA_SLKL_NEWTON, 1, 4.0, 1e-5, 1e-9);
    check_monotone(POLKA_SLKL_NEWTON, 500, 2.8, 1e-4, 1e-9);
}

/*
 * The quadratic model of eq. 18 bounds F from above only when μ_m grows (∂³F/∂μ_m³ ≤ 0):
 * a Newton step that lowers μ_m can raise F. Those steps are caught (F along the coordinate
 * is known in closed form) and replaced by the exact coordinate minimiser; check that each
 * caught step would indeed have raised F, by the dense oracle.
 */
static void test_slkl_safeguard(void **state) {
    (void)state;
    enum { N = 150 };
    polka_dataset data = sinc_data(POLKA_STREAM_TRAIN, N, 21);
    polka_slkl_params params = small_params(N, 100);
    params.nu = 1e-5;
    polka_slkl *slkl = NULL;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &slkl));
    size_t big_m = polka_slkl_candidates(slkl), caught = 0;
    double *before = malloc(big_m * sizeof *before);
    for (size_t it = 0; it < 3000; it++) {
        memcpy(before, polka_slkl_mu(slkl), big_m * sizeof *before);
        polka_slkl_update u;
        CHECK_OK(polka_slkl_iterate(slkl, &u));
        assert_true(u.f_new <= u.f_old + 1e-12 * u.f_old);
        if (!u.safeguarded) continue;
        caught++;
        assert_true(u.d1 > 0); /* only steps that lower μ_m */
        double f_before, f_newton;
        CHECK_OK(polka_slkl_objective_ref(slkl, before, &f_before));
        before[u.coord] = fmax(0.0, u.mu_old - u.d1 / u.d2);
        CHECK_OK(polka_slkl_objective_ref(slkl, before, &f_newton));
        if (!(f_newton > f_before))
            fail_msg("iteration %zu: the Newton step was caught but F %.17g -> %.17g", it, f_before,
                     f_newton);
        assert_true(u.f_new < f_before);
    }
    assert_true(caught > 0);
    free(before);
    polka_slkl_free(&slkl);
    polka_dataset_free(&data);
}

/* ∂F/∂μ_m and 2Λa²b (eq. 21) against central differences of the dense objective. */
static void test_slkl_curvature(void **state) {
    (void)state;
    enum { N = 120 };
    polka_dataset data = sinc_data(POLKA_STREAM_TRAIN, N, 31);
    polka_slkl_params params = small_params(N, 60);
    polka_slkl *slkl = NULL;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &slkl));
    for (size_t it = 0; it < 300; it++) CHECK_OK(polka_slkl_iterate(slkl, NULL));
    size_t big_m = polka_slkl_candidates(slkl), checked = 0, active_checked = 0;
    double *mu = malloc(big_m * sizeof *mu);
    for (size_t m = 0; m < big_m; m++) {
        memcpy(mu, polka_slkl_mu(slkl), big_m * sizeof *mu);
        double d1, d2, fm, f0, fp;
        CHECK_OK(polka_slkl_derivatives(slkl, m, &d1, &d2));
        double la2 = params.nu - d1; /* Λa² */
        if (!(la2 > 1e-6 && d2 > 0)) continue;
        double b = d2 / (2.0 * la2), h = 1e-3 / b, mu0 = mu[m];
        mu[m] = mu0 - h;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &fm));
        mu[m] = mu0;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &f0));
        mu[m] = mu0 + h;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &fp));
        double fd1 = (fp - fm) / (2.0 * h), fd2 = (fp - 2.0 * f0 + fm) / (h * h);
        if (fabs(fd1 - d1) > 1e-5 * fmax(fabs(d1), la2))
            fail_msg("coordinate %zu: d1 %.12g, finite difference %.12g", m, d1, fd1);
        if (fabs(fd2 - d2) > 1e-4 * d2)
            fail_msg("coordinate %zu: d2 = 2*Lambda*a^2*b = %.12g, finite difference %.12g", m, d2,
                     fd2);
        /* the curvature Algorithm 2 prints, Λa²b, is half of it */
        assert_true(fabs(fd2 - 0.5 * d2) > 0.4 * d2);
        checked++;
        active_checked += mu0 > 0;
    }
    assert_true(checked > 20);
    assert_true(active_checked > 2);
    free(mu);
    polka_slkl_free(&slkl);
    polka_dataset_free(&data);
}

/* The model of eqs. 16–17 against dense KRR with K̃(μ) built from polka_nystrom_rank1. */
static void test_slkl_model_is_krr(void **state) {
    (void)state;
    enum { N = 90, T = 25, P = 2 };
    polka_dataset data = sinc_data(POLKA_STREAM_TRAIN, N, 41);
    polka_dataset test = sinc_data(POLKA_STREAM_TEST, T, 41);
    polka_slkl_params params = small_params(N, 40);
    params.kernel.sigma = 1.2;
    polka_slkl *slkl = NULL;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, P, &slkl));
    polka_slkl_stats stats;
    CHECK_OK(polka_slkl_run(slkl, &stats));
    assert_int_equal(stats.active, polka_slkl_active(slkl));
    polka_model *model = NULL;
    CHECK_OK(polka_slkl_model(slkl, &model));
    assert_int_equal(polka_model_order(model), stats.active);
    const double *mu = polka_slkl_mu(slkl);
    const size_t *cand = polka_slkl_candidate_index(slkl);
    double *kt = calloc(N * N, sizeof *kt), *alpha = malloc(N * sizeof *alpha);
    double f[T];
    for (size_t m = 0; m < polka_slkl_candidates(slkl); m++) {
        if (mu[m] == 0.0) continue;
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++)
                kt[i * N + j] +=
                    mu[m] * polka_nystrom_rank1(&params.kernel, data.x + i * P, data.x + j * P,
                                                data.x + cand[m] * P, P);
    }
    for (size_t i = 0; i < N; i++) kt[i * N + i] += N * params.lambda;
    memcpy(alpha, data.y, N * sizeof *alpha);
    gauss_solve(kt, alpha, N);
    CHECK_OK(polka_model_eval(model, test.x, T, f));
    for (size_t t = 0; t < T; t++) {
        double expect = 0.0;
        for (size_t m = 0; m < polka_slkl_candidates(slkl); m++) {
            if (mu[m] == 0.0) continue;
            const double *xm = data.x + cand[m] * P;
            for (size_t i = 0; i < N; i++)
                expect +=
                    alpha[i] * mu[m] *
                    polka_nystrom_rank1(&params.kernel, test.x + t * P, data.x + i * P, xm, P);
        }
        if (fabs(f[t] - expect) > 1e-8 * fmax(1.0, fabs(expect)))
            fail_msg("test point %zu: SLKL model %.15g, dense KRR with K(mu) %.15g", t, f[t],
                     expect);
    }
    free(kt);
    free(alpha);
    polka_model_free(&model);
    polka_slkl_free(&slkl);
    polka_dataset_free(&data);
    polka_dataset_free(&test);
}

/* On a small sinc, SLKL comes within a factor 1.5 of exact KRR with the same σ and λ. */
static void test_slkl_vs_krr(void **state) {
    (void)state;
    enum { N = 400, T = 400, P = 2 };
    double worst = 0.0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        polka_dataset train = sinc_data(POLKA_STREAM_TRAIN, N, seed);
        polka_dataset test = sinc_data(POLKA_STREAM_TEST, T, seed);
        polka_slkl_params params = small_params(N, 0);
        params.seed = seed;
        polka_model *krr = NULL, *model = NULL;
        CHECK_OK(polka_krr_fit(&params.kernel, train.x, train.y, N, P, params.lambda, &krr));
        polka_slkl *slkl = NULL;
        polka_slkl_stats stats;
        CHECK_OK(polka_slkl_create(&params, train.x, train.y, N, P, &slkl));
        CHECK_OK(polka_slkl_run(slkl, &stats));
        CHECK_OK(polka_slkl_model(slkl, &model));
        double mse_krr, mse_slkl;
        CHECK_OK(polka_krr_mse(krr, test.x, test.y, T, &mse_krr));
        CHECK_OK(polka_krr_mse(model, test.x, test.y, T, &mse_slkl));
        assert_true(stats.converged);
        assert_true(stats.active > 10 && stats.active < N / 2);
        assert_true(mse_krr < 0.02);
        worst = fmax(worst, mse_slkl / mse_krr);
        polka_model_free(&krr);
        polka_model_free(&model);
        polka_slkl_free(&slkl);
        polka_dataset_free(&train);
        polka_dataset_free(&test);
    }
    if (worst > 1.5) fail_msg("SLKL test MSE up to %.3g × KRR's", worst);
}

/* ---------------------------------------------------------------------------- stopping */

static void test_slkl_stopping(void **state) {
    (void)state;
    /* relative decrease: a halving is progress, 1e-6 is not; the printed test
     * F(μ^k) − F(μ^{k−M}) < εF(μ^{k−M}) holds for both */
    assert_false(polka_slkl_converged(1.0, 0.5, 1e-4));
    assert_true(polka_slkl_converged(1.0, 1.0 - 1e-6, 1e-4));
    assert_false(polka_slkl_converged(1.0, 1.0 - 2e-4, 1e-4));
    assert_true(0.5 - 1.0 < 1e-4 * 1.0);
    assert_false(polka_slkl_converged(1.0, 1.0, 0.0)); /* ε = 0 never stops */

    enum { N = 200, W = 150 };
    polka_dataset data = sinc_data(POLKA_STREAM_TRAIN, N, 51);
    polka_slkl_params params = small_params(N, 100);
    params.window = W;
    params.max_iter = 200000;
    polka_slkl *a = NULL, *b = NULL;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &a));
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &b));
    polka_slkl_stats stats;
    CHECK_OK(polka_slkl_run(a, &stats));
    assert_true(stats.converged);
    assert_true(stats.iterations > 2 * W);
    assert_true(stats.iterations < params.max_iter);
    /* replay the same draws by hand: the run stops at the first k ≥ W with
     * F(μ^{k−W}) − F(μ^k) < ε F(μ^{k−W}) */
    double *f = malloc((stats.iterations + 1) * sizeof *f);
    f[0] = polka_slkl_objective(b);
    size_t stop = 0;
    for (size_t k = 1; k <= stats.iterations && stop == 0; k++) {
        CHECK_OK(polka_slkl_iterate(b, NULL));
        f[k] = polka_slkl_objective(b);
        if (k >= W && f[k - W] - f[k] < params.tol * f[k - W]) stop = k;
    }
    assert_int_equal(stop, stats.iterations);
    assert_true(close_rel(polka_slkl_objective(a), polka_slkl_objective(b), 1e-12));
    free(f);
    polka_slkl_free(&a);
    polka_slkl_free(&b);
    /* ε = 0: runs to max_iter */
    params.tol = 0.0;
    params.max_iter = 3000;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &a));
    CHECK_OK(polka_slkl_run(a, &stats));
    assert_false(stats.converged);
    assert_int_equal(stats.iterations, 3000);
    polka_slkl_free(&a);
    polka_dataset_free(&data);
}

static void test_slkl_errors(void **state) {
    (void)state;
    polka_slkl_params params = polka_slkl_defaults();
    assert_null(polka_slkl_check(&params));
    params.nu = 0.0;
    assert_non_null(polka_slkl_check(&params));
    params = polka_slkl_defaults();
    params.lambda = -1.0;
    assert_non_null(polka_slkl_check(&params));
    params = polka_slkl_defaults();
    params.candidates = 11;
    double x[10 * 2] = {0}, y[10] = {0};
    polka_slkl *slkl = NULL;
    assert_int_equal(polka_slkl_create(&params, x, y, 10, 2, &slkl), POLKA_ERR_ARG);
    assert_null(slkl);
    assert_true(strlen(polka_error_message()) > 0);
    polka_slkl_free(&slkl); /* NULL-safe */
    polka_slkl_free(NULL);
}

/* ------------------------------------------------------------- the table's batch entries */

typedef struct {
    size_t logs, last_done, progress;
    size_t order;    /* of the last model logged */
    double *weights; /* a copy of its weights */
} fit_calls;

static polka_status count_log(void *context, const polka_model *model, size_t done) {
    fit_calls *calls = context;
    calls->logs++;
    assert_true(done > calls->last_done);
    calls->last_done = done;
    calls->order = polka_model_order(model);
    free(calls->weights);
    calls->weights = malloc((calls->order + 1) * sizeof *calls->weights);
    POLKA_CHECK_ALLOC(calls->weights);
    memcpy(calls->weights, polka_model_weights(model), calls->order * sizeof *calls->weights);
    return POLKA_OK;
}

static void count_progress(void *context, size_t done, size_t cap) {
    fit_calls *calls = context;
    calls->progress++;
    assert_int_equal(done, calls->last_done);
    assert_true(done <= cap);
}

static void assert_same_weights(const polka_model *a, const polka_model *b) {
    assert_int_equal(polka_model_order(a), polka_model_order(b));
    size_t m = polka_model_order(a);
    assert_memory_equal(polka_model_weights(a), polka_model_weights(b), m * sizeof(double));
}

static void assert_logged(const fit_calls *calls, const polka_model *model) {
    assert_int_equal(calls->order, polka_model_order(model));
    assert_memory_equal(calls->weights, polka_model_weights(model), calls->order * sizeof(double));
}

/* polka_batch_fit runs the control table's batch learner: krr is polka_krr_fit with one log
 * call; slkl is SLKL logged every log_every updates; an online control is refused. */
static void test_batch_fit_entries(void **state) {
    (void)state;
    enum { N = 120, P = 2 };
    polka_dataset train = sinc_data(POLKA_STREAM_TRAIN, N, 7);
    polka_slkl_params reference = small_params(N, 0);
    polka_learner_params params = polka_learner_defaults();
    params.kernel = reference.kernel;
    params.loss.kind = POLKA_LOSS_SQUARE;
    params.lambda = reference.lambda;
    params.nu = reference.nu;
    params.control = POLKA_CONTROL_KRR;
    fit_calls calls = {0};
    polka_batch_job job = {.params = &params,
                           .settings = {.tol = reference.tol},
                           .seed = reference.seed,
                           .x = train.x,
                           .y = train.y,
                           .n = N,
                           .p = P,
                           .log_every = 50,
                           .log = count_log,
                           .progress = count_progress,
                           .context = &calls};
    polka_model *model = NULL, *krr = NULL;
    size_t rounds = 0;
    CHECK_OK(polka_batch_fit(&job, &model, &rounds));
    CHECK_OK(polka_krr_fit(&params.kernel, train.x, train.y, N, P, params.lambda, &krr));
    assert_same_weights(model, krr);
    assert_int_equal(rounds, 1);
    assert_int_equal(calls.logs, 1);
    assert_int_equal(calls.progress, 0);
    assert_logged(&calls, model);
    polka_model_free(&model);

    params.control = POLKA_CONTROL_SLKL;
    free(calls.weights);
    calls = (fit_calls){0};
    CHECK_OK(polka_batch_fit(&job, &model, &rounds));
    assert_int_equal(calls.logs, (rounds + 49) / 50);
    assert_int_equal(calls.progress, calls.logs);
    assert_int_equal(calls.last_done, rounds);
    assert_logged(&calls, model);
    assert_non_null(strstr(job.note, "slkl: "));
    polka_slkl *slkl = NULL;
    polka_slkl_stats stats;
    polka_model *direct = NULL;
    reference.candidates = 0;
    CHECK_OK(polka_slkl_create(&reference, train.x, train.y, N, P, &slkl));
    CHECK_OK(polka_slkl_run_for(slkl, rounds, &stats));
    CHECK_OK(polka_slkl_model(slkl, &direct));
    assert_same_weights(model, direct);

    params.control = POLKA_CONTROL_NORMA;
    assert_int_equal(polka_batch_fit(&job, &model, &rounds), POLKA_ERR_ARG);
    polka_batch_settings settings = {.tol = 1.5};
    params.control = POLKA_CONTROL_SLKL;
    assert_non_null(polka_batch_check(&params, &settings)); /* tol must be in [0, 1) */
    polka_slkl_free(&slkl);
    polka_model_free(&direct);
    polka_model_free(&model);
    polka_model_free(&krr);
    free(calls.weights);
    polka_dataset_free(&train);
}

/* -------------------------------------------------------------------------- generators */

static void test_generators_deterministic(void **state) {
    (void)state;
    enum { N = 300 };
    polka_regression_params kinds[3] = {polka_regression_defaults(POLKA_REGRESSION_SINC),
                                        polka_regression_defaults(POLKA_REGRESSION_FRIEDMAN1),
                                        polka_regression_defaults(POLKA_REGRESSION_SINC)};
    kinds[2].dim = 6; /* sinc in p dimensions */
    for (size_t k = 0; k < 3; k++) {
        polka_regression_params params = kinds[k];
        params.seed = 77;
        polka_dataset a = make_data(&params, POLKA_STREAM_TRAIN, N);
        polka_dataset b = make_data(&params, POLKA_STREAM_TRAIN, N);
        assert_int_equal(a.classes, 0);
        assert_memory_equal(a.x, b.x, N * params.dim * sizeof(double));
        assert_memory_equal(a.y, b.y, N * sizeof(double));
        params.seed = 78;
        polka_dataset c = make_data(&params, POLKA_STREAM_TRAIN, N);
        assert_true(memcmp(a.x, c.x, N * params.dim * sizeof(double)) != 0);
        params.seed = 77;
        polka_regression *gen = NULL;
        CHECK_OK(polka_regression_create(&params, &gen));
        double lo = params.kind == POLKA_REGRESSION_SINC ? -5.0 : 0.0;
        double hi = params.kind == POLKA_REGRESSION_SINC ? 5.0 : 1.0;
        for (size_t i = 0; i < N; i++) {
            double x[16], y, clean;
            polka_regression_sample(gen, POLKA_STREAM_TRAIN, i, x, &y, &clean);
            assert_memory_equal(x, a.x + i * params.dim, params.dim * sizeof(double));
            assert_true(y == a.y[i] && y != clean); /* noisy training targets */
            for (size_t d = 0; d < params.dim; d++) assert_true(x[d] >= lo && x[d] <= hi);
            assert_true(clean == polka_regression_clean(gen, x));
            polka_regression_sample(gen, POLKA_STREAM_TEST, i, x, &y, &clean);
            assert_true(y == clean); /* noise-free test targets */
        }
        polka_regression_free(&gen);
        polka_dataset_free(&a);
        polka_dataset_free(&b);
        polka_dataset_free(&c);
    }
    /* the formulas */
    polka_regression_params params = polka_regression_defaults(POLKA_REGRESSION_FRIEDMAN1);
    polka_regression *gen = NULL;
    CHECK_OK(polka_regression_create(&params, &gen));
    double x[10] = {0.5, 0.5, 0.2, 0.3, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1};
    assert_true(close_rel(polka_regression_clean(gen, x),
                          10 * sin(3.14159265358979323846 * 0.25) + 20 * 0.09 + 3.0 + 4.5, 1e-14));
    polka_regression_free(&gen);
    params = polka_regression_defaults(POLKA_REGRESSION_SINC);
    CHECK_OK(polka_regression_create(&params, &gen));
    double origin[2] = {0, 0}, point[2] = {3, 4};
    assert_true(polka_regression_clean(gen, origin) == 1.0);
    assert_true(close_rel(polka_regression_clean(gen, point), sin(5.0) / 5.0, 1e-15));
    polka_regression_free(&gen);
    params.dim = 0;
    assert_non_null(polka_regression_check(&params));
    params = polka_regression_defaults(POLKA_REGRESSION_FRIEDMAN1);
    params.dim = 4;
    assert_int_equal(polka_regression_create(&params, &gen), POLKA_ERR_ARG);
    assert_null(gen);
}

/* The sinc noise is 10 dB: power of the clean targets / power of the noise, on many samples. */
static void test_generators_snr(void **state) {
    (void)state;
    enum { N = 100000 };
    for (uint64_t seed = 1; seed <= 3; seed++) {
        polka_regression_params params = polka_regression_defaults(POLKA_REGRESSION_SINC);
        params.seed = seed;
        params.power_samples = N;
        polka_regression *gen = NULL;
        CHECK_OK(polka_regression_create(&params, &gen));
        double signal = 0.0, noise = 0.0, x[2], y, clean;
        for (size_t i = 0; i < N; i++) {
            polka_regression_sample(gen, POLKA_STREAM_TRAIN, i, x, &y, &clean);
            signal += clean * clean;
            noise += (y - clean) * (y - clean);
        }
        assert_true(close_rel(signal / N, polka_regression_signal_power(gen), 1e-12));
        double snr = 10.0 * log10(signal / noise);
        if (fabs(snr - 10.0) > 0.5)
            fail_msg("seed %llu: SNR %.3f dB", (unsigned long long)seed, snr);
        polka_regression_free(&gen);
        /* with the paper's 1000 training points setting the power, still 10 ± 0.5 dB */
        params.power_samples = 1000;
        CHECK_OK(polka_regression_create(&params, &gen));
        double sigma2 = polka_regression_noise_std(gen) * polka_regression_noise_std(gen);
        snr = 10.0 * log10(signal / N / sigma2);
        if (fabs(snr - 10.0) > 0.5)
            fail_msg("seed %llu: SNR %.3f dB with 1000 samples", (unsigned long long)seed, snr);
        polka_regression_free(&gen);
    }
    /* Friedman #1: the noise's variance is σ² */
    polka_regression_params params = polka_regression_defaults(POLKA_REGRESSION_FRIEDMAN1);
    params.noise_std = 0.5;
    polka_regression *gen = NULL;
    CHECK_OK(polka_regression_create(&params, &gen));
    double noise = 0.0, x[10], y, clean;
    for (size_t i = 0; i < N; i++) {
        polka_regression_sample(gen, POLKA_STREAM_TRAIN, i, x, &y, &clean);
        noise += (y - clean) * (y - clean);
    }
    assert_true(fabs(noise / N / 0.25 - 1.0) < 0.02);
    polka_regression_free(&gen);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_krr_solution),   cmocka_unit_test(test_nystrom_rank1),
        cmocka_unit_test(test_slkl_monotone),  cmocka_unit_test(test_slkl_safeguard),
        cmocka_unit_test(test_slkl_curvature), cmocka_unit_test(test_slkl_model_is_krr),
        cmocka_unit_test(test_slkl_vs_krr),    cmocka_unit_test(test_slkl_stopping),
        cmocka_unit_test(test_slkl_errors),    cmocka_unit_test(test_generators_deterministic),
        cmocka_unit_test(test_generators_snr), cmocka_unit_test(test_batch_fit_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
