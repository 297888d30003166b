/* SLKL ([MPARG11]) and exact KRR against brute-force oracles; the regression generators. */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "polka/kernel.h"
#include "polka/learner.h"
#include "polka/model.h"
#include "polka/regression.h"
#include "polka/slkl.h"
#include "slkl_bounds.h"
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
    double *alpha = malloc(N * sizeof *alpha), *gap = malloc(N * N * sizeof *gap);
    double sd[N];
    fill_uniform(x, N * P, -1.0, 1.0, 5);
    fill_uniform(y, N, -1.0, 1.0, 6);
    polka_kernel_block_ref(&kernel, x, N, x, N, P, k);
    /* the library's Gram (polka_kernel_block) against this one, entry by entry */
    double gap_f = 0.0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            gap[i * N + j] = test_gauss_gap(kernel.sigma, x + i * P, x + j * P, P, k[i * N + j]);
            gap_f += gap[i * N + j] * gap[i * N + j];
        }
    gap_f = sqrt(gap_f);
    const double lambdas[] = {1e-1, 1e-3, 1e-6};
    for (size_t l = 0; l < sizeof lambdas / sizeof *lambdas; l++) {
        double lambda = lambdas[l], shift = (double)N * lambda; /* polka_krr_solve's Λ, bitwise */
        polka_model *model = NULL;
        CHECK_OK(polka_krr_fit(&kernel, x, y, N, P, lambda, &model));
        assert_int_equal(polka_model_order(model), N);
        const double *w = polka_model_weights(model);
        /*
         * The residual of (K + ΛI)w = y: dposv's w solves (K̂ + ΛI + ΔA)w = y with
         * |ΔA_ij| ≤ γ_{3n+1}(|R̂ᵀ||R̂|)_ij ≤ γ_{3n+1}√(Â_ii Â_jj)/(1 − γ_{n+1}) [Higham02
         * Thms 10.3–10.4, Cauchy–Schwarz on R̂'s columns], plus the shift's rounding u·Â_ii and
         * K̂ − K (test_gauss_gap); this loop's own rounding γ_{n+2} of Σ|terms| [§3.1].
         */
        double g_chol = test_gamma(3 * N + 1) / (1 - test_gamma(N + 1)), sdw = 0.0, trace = 0.0;
        for (size_t i = 0; i < N; i++) {
            double aii = (k[i * N + i] + gap[i * N + i] + shift) * (1 + TEST_UNIT);
            sd[i] = sqrt(aii);
            sdw += sd[i] * fabs(w[i]);
            trace += aii;
        }
        for (size_t i = 0; i < N; i++) {
            double r = shift * w[i] - y[i], scale = fabs(shift * w[i]) + fabs(y[i]), kw = 0.0;
            for (size_t j = 0; j < N; j++) {
                r += k[i * N + j] * w[j];
                scale += fabs(k[i * N + j] * w[j]);
                kw += gap[i * N + j] * fabs(w[j]);
            }
            double bound = g_chol * sd[i] * sdw + TEST_UNIT * sd[i] * sd[i] * fabs(w[i]) + kw +
                           test_gamma(N + 2) * scale;
            if (fabs(r) > bound)
                fail_msg("lambda %g: residual %g at %zu, bound %g", lambda, r, i, bound);
        }
        /*
         * Against Gaussian elimination, both to the exact α* of (K + ΛI)α* = y with this K:
         * w − α* = −A⁻¹Ew with ‖E‖₂ ≤ ‖gap‖_F + γ_chol·tr Â + u·max Â_ii (the residual's
         * terms in norm: |R̂ᵀ||R̂| is a PSD Gram matrix), α̂ − α* = A⁻¹r* with r* this residual
         * bounded with its rounding; λ_min(A) ≥ Λ − ‖gap‖_F (the exact K is PSD).
         */
        memcpy(a, k, N * N * sizeof *a);
        for (size_t i = 0; i < N; i++) a[i * N + i] += shift;
        memcpy(alpha, y, N * sizeof *alpha);
        gauss_solve(a, alpha, N);
        double w_norm = 0.0, res_norm = test_residual_bound(k, shift, alpha, y, N);
        for (size_t i = 0; i < N; i++) w_norm += w[i] * w[i];
        double lam_lo = shift - gap_f;
        assert_true(lam_lo > 0);
        double e_norm = gap_f + g_chol * trace + TEST_UNIT * (1 + shift + gap_f);
        double bound = (e_norm * sqrt(w_norm) + res_norm) / lam_lo;
        for (size_t i = 0; i < N; i++)
            if (fabs(w[i] - alpha[i]) > bound)
                fail_msg("lambda %g: alpha[%zu] %.17g, brute force %.17g (bound %g)", lambda, i,
                         w[i], alpha[i], bound);
        /*
         * The MSE helper against a direct evaluation at the training points: each f_i within
         * δ_i = 2γ_n Σ_j|K_ij w_j| + Σ_j gap_ij|w_j| (two sums of n terms, two kernel paths),
         * so Σ(f − y)²/n within Σ(2|f_i − y_i|δ_i + δ_i²)/n, and each mean's own γ_{n+3}.
         */
        double mse = 0.0, direct = 0.0, spread = 0.0;
        CHECK_OK(polka_krr_mse(model, x, y, N, &mse));
        for (size_t i = 0; i < N; i++) {
            double f = 0.0, fa = 0.0, g = 0.0;
            for (size_t j = 0; j < N; j++) {
                f += k[i * N + j] * w[j];
                fa += fabs(k[i * N + j] * w[j]);
                g += gap[i * N + j] * fabs(w[j]);
            }
            double delta = 2 * test_gamma(N) * fa + g;
            direct += (f - y[i]) * (f - y[i]) / N;
            spread += (2 * fabs(f - y[i]) * delta + delta * delta) / N;
        }
        assert_true(fabs(mse - direct) <= spread + test_gamma(N + 3) * (mse + direct));
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
    free(gap);
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
    /* dsyev's eigenvalues are within p(n)·ε·‖A‖₂ [LAPACK Users' Guide §4.7.1]; p(n) = n */
    const double eig_err = N * DBL_EPSILON;
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
                    /* the same three kernel values; a product and a quotient in any order:
                     * each within γ_2 of the exact a·b/c, the two within γ_4 */
                    assert_true(fabs(v - expect) <= test_gamma(4) * fabs(expect));
                    g[i * N + j] = v;
                    sum[i * N + j] += (double)(m + 1) * v; /* a conic combination (eq. 3) */
                }
            /* PSD of rank 1: one eigenvalue ‖c‖², the others 0; the entries are within γ_2 of
             * ccᵀ's (nonnegative): Ĝ = ccᵀ + E, ‖E‖₂ ≤ γ_2‖ccᵀ‖₂ (Weyl) */
            assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', N, g, N, eig), 0);
            double top = eig[N - 1];
            assert_true(top > 0);
            for (size_t i = 0; i + 1 < N; i++)
                assert_true(fabs(eig[i]) <= (test_gamma(2) + eig_err) * top);
        }
        /* Σ(m + 1)·G_m: five nonnegative terms of γ_3 each, summed: within γ_7 entrywise */
        assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', N, sum, N, eig), 0);
        for (size_t i = 0; i < N; i++)
            assert_true(eig[i] >= -(test_gamma(7) + eig_err) * eig[N - 1]);
        memset(sum, 0, N * N * sizeof *sum);
    }
    free(x);
    free(g);
    free(sum);
}

/* ------------------------------------------------------------------------ SLKL updates */

/*
 * Every update lowers F (or keeps it; a refresh of G may move F by rounding: rise_bound),
 * μ ≥ 0, and the tracked F equals the dense oracle to the oracle's noise and drift_bound.
 */
static void check_monotone(polka_slkl_step_rule rule, size_t refresh, double sigma, double nu) {
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
    slkl_bounds bd = bounds_create(slkl, &params, &data);
    drift_state ds = {.refresh = refresh, .kappa = 1.0};
    double f0 = 0.0;
    for (size_t i = 0; i < N; i++) f0 += data.y[i] * data.y[i];
    /* ‖y‖² by ddot and by this loop: two sums of N nonnegative terms, γ_N each */
    assert_true(fabs(polka_slkl_objective(slkl) - f0) <= 2 * test_gamma(N) * f0);
    for (size_t it = 0; it < 4000; it++) {
        polka_slkl_update u;
        CHECK_OK(polka_slkl_iterate(slkl, &u));
        double allowed = drift_follow(&ds, &bd, slkl, &u, it);
        if (u.f_new > u.f_old + allowed)
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
            double tol = noise_at(&bd, mu, big_m, 0.0) +
                         drift_bound(ds.kappa, active, ds.changes, bd.yy, ds.steps);
            if (!(fabs(ref - polka_slkl_objective(slkl)) <= tol))
                fail_msg("iteration %zu: tracked F %.17g, oracle %.17g (bound %g)", it,
                         polka_slkl_objective(slkl), ref, tol);
        }
    }
    assert_true(changes > 50);
    assert_true(polka_slkl_active(slkl) > 5);
    assert_true(polka_slkl_objective(slkl) < 0.5 * f0);
    bounds_free(&bd);
    polka_slkl_free(&slkl);
    assert_null(slkl);
    polka_dataset_free(&data);
}

static void test_slkl_monotone(void **state) {
    (void)state;
    check_monotone(POLKA_SLKL_NEWTON, 0, 1.0, 0.01); /* eqs. 24–27 only */
    check_monotone(POLKA_SLKL_NEWTON, 7, 1.0, 0.01); /* frequent rebuilds */
    check_monotone(POLKA_SLKL_EXACT, 500, 1.0, 0.01);
    /* wide kernels, weak penalty: nearly collinear columns and μ in the thousands; the
     * rank-1 updates of G then lose digits (1e-7 to 1.2e-6 in F without rebuilds, with the
     * kernel entries' last bits: the exponential's fmas moved it from one to the other),
     * rebuilds help; κ(H) reaches 4e6, and drift_bound with it */
    check_monotone(POLKA_SLKL_NEWTON, 0, 4.0, 1e-5);
    check_monotone(POLKA_SLKL_NEWTON, 1, 4.0, 1e-5);
    check_monotone(POLKA_SLKL_NEWTON, 500, 2.8, 1e-4);
}

/*
 * The quadratic model of eq. 18 bounds F from above only when μ_m grows (∂³F/∂μ_m³ ≤ 0):
 * a Newton step that lowers μ_m can raise F. Those steps are caught (F along the coordinate
 * is known in closed form) and replaced by the exact coordinate minimiser. By the dense
 * oracle (to twice its noise): no caught step would have lowered F, some would have raised it,
 * and the minimiser taken instead does not raise it.
 */
static void test_slkl_safeguard(void **state) {
    (void)state;
    enum { N = 150 };
    polka_dataset data = sinc_data(POLKA_STREAM_TRAIN, N, 21);
    polka_slkl_params params = small_params(N, 100);
    params.nu = 1e-5;
    polka_slkl *slkl = NULL;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &slkl));
    size_t big_m = polka_slkl_candidates(slkl), caught = 0, certified = 0;
    slkl_bounds bd = bounds_create(slkl, &params, &data);
    drift_state ds = {.refresh = params.refresh, .kappa = 1.0};
    double *before = malloc(big_m * sizeof *before);
    for (size_t it = 0; it < 3000; it++) {
        memcpy(before, polka_slkl_mu(slkl), big_m * sizeof *before);
        polka_slkl_update u;
        CHECK_OK(polka_slkl_iterate(slkl, &u));
        assert_true(u.f_new <= u.f_old + drift_follow(&ds, &bd, slkl, &u, it));
        if (!u.safeguarded) continue;
        caught++;
        assert_true(u.d1 > 0); /* only steps that lower μ_m */
        double f_before, f_newton, f_after, newton = fmax(0.0, u.mu_old - u.d1 / u.d2);
        double noise = noise_at(&bd, before, u.coord, fabs(newton - u.mu_old));
        CHECK_OK(polka_slkl_objective_ref(slkl, before, &f_before));
        before[u.coord] = newton;
        CHECK_OK(polka_slkl_objective_ref(slkl, before, &f_newton));
        CHECK_OK(polka_slkl_objective_ref(slkl, polka_slkl_mu(slkl), &f_after));
        if (!(f_newton - f_before > -2 * noise))
            fail_msg("iteration %zu: the Newton step was caught but F %.17g -> %.17g", it, f_before,
                     f_newton);
        certified += f_newton - f_before > 2 * noise;
        assert_true(f_after <= f_before + 2 * noise);
    }
    assert_true(caught > 0);
    assert_true(certified > 0);
    free(before);
    bounds_free(&bd);
    polka_slkl_free(&slkl);
    polka_dataset_free(&data);
}

/*
 * ∂F/∂μ_m and 2Λa²b (eq. 21) against central differences of the dense objective.
 * Along coordinate m, F(μ + t e_m) = F(μ) + νt − Λa²t/(1 + tb) (slkl.h), so for |t| ≤ h
 * |∂³F| ≤ 3·d2·b/(1 − bh)⁴ and |∂⁴F| ≤ 12·d2·b²/(1 − bh)⁵ (d2 = 2Λa²b). Each oracle value is
 * within objective_noise; μ_m ± h round to within u(|μ_m| + h), which moves F by
 * |∂F| ≤ ν + Λa²/(1 − bh)² times that; the differences' sums and quotients round too. Each
 * difference's step balances truncation and rounding (h³ = 3η/∂³F, h⁴ = 48η/∂⁴F), at most
 * 0.1/b. The library's d1, d2 come from a = yᵀRc_m, b = c_mᵀRc_m with R from G: a relative
 * perturbation ε = κ(H)γ_N of R (drift_bound) moves them by 2ε√(‖y‖²bΛa²) and
 * ε(1 + 2√(‖y‖²b/Λa²))·d2 (‖Rc_m‖² ≤ b/Λ, ‖Ry‖² ≤ ‖y‖²/Λ²). A coordinate counts when the
 * curvature's bound is below a tenth of the 0.4·d2 that tells 2Λa²b from the printed Λa²b.
 */
static void test_slkl_curvature(void **state) {
    (void)state;
    enum { N = 120 };
    polka_dataset data = sinc_data(POLKA_STREAM_TRAIN, N, 31);
    polka_slkl_params params = small_params(N, 60);
    polka_slkl *slkl = NULL;
    CHECK_OK(polka_slkl_create(&params, data.x, data.y, N, 2, &slkl));
    size_t updates = 0;
    for (size_t it = 0; it < 300; it++) {
        polka_slkl_update u;
        CHECK_OK(polka_slkl_iterate(slkl, &u));
        updates += u.mu_new != u.mu_old;
    }
    assert_true(updates < params.refresh); /* G was never refreshed: every update counts */
    size_t big_m = polka_slkl_candidates(slkl), checked = 0, active_checked = 0;
    slkl_bounds bd = bounds_create(slkl, &params, &data);
    double eps = drift_bound(h_kappa(bd.q, big_m, polka_slkl_mu(slkl), bd.lam, NULL),
                             polka_slkl_active(slkl), updates, 0.0, 1.0);
    double nu = params.nu, *mu = malloc(big_m * sizeof *mu);
    for (size_t m = 0; m < big_m; m++) {
        memcpy(mu, polka_slkl_mu(slkl), big_m * sizeof *mu);
        double d1, d2, fm, f0, fp;
        CHECK_OK(polka_slkl_derivatives(slkl, m, &d1, &d2));
        double la2 = nu - d1; /* Λa² */
        if (!(la2 > 0 && d2 > 0)) continue;
        double b = d2 / (2.0 * la2), mu0 = mu[m];
        /* the first difference */
        double eta = noise_at(&bd, mu, m, 0.1 / b);
        double h = fmin(cbrt(eta / (d2 * b)), 0.1 / b);
        eta = noise_at(&bd, mu, m, h) + (nu + la2 / pow(1 - b * h, 2)) * TEST_UNIT * (mu0 + h);
        mu[m] = mu0 - h;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &fm));
        mu[m] = mu0 + h;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &fp));
        double fd1 = (fp - fm) / (2.0 * h);
        double tol1 = test_fd1_bound(h, 3 * d2 * b / pow(1 - b * h, 4),
                                     eta + TEST_UNIT * (fabs(fp) + fabs(fm)) / 2) +
                      test_gamma(2) * fabs(fd1) + 2 * eps * sqrt(bd.yy * b * la2);
        if (!(fabs(fd1 - d1) <= tol1))
            fail_msg("coordinate %zu: d1 %.12g, finite difference %.12g (bound %g)", m, d1, fd1,
                     tol1);
        /* the second difference */
        eta = noise_at(&bd, mu, m, 0.1 / b);
        h = fmin(pow(4 * eta / (d2 * b * b), 0.25), 0.1 / b);
        eta = noise_at(&bd, mu, m, h) + (nu + la2 / pow(1 - b * h, 2)) * TEST_UNIT * (mu0 + h);
        mu[m] = mu0 - h;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &fm));
        mu[m] = mu0;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &f0));
        mu[m] = mu0 + h;
        CHECK_OK(polka_slkl_objective_ref(slkl, mu, &fp));
        double fd2 = (fp - 2.0 * f0 + fm) / (h * h);
        double sums = test_gamma(2) * (fabs(fp) + 2 * fabs(f0) + fabs(fm)) / 4;
        double tol2 = test_fd2_bound(h, 12 * d2 * b * b / pow(1 - b * h, 5), eta + sums) +
                      test_gamma(2) * fabs(fd2) + eps * (1 + 2 * sqrt(bd.yy * b / la2)) * d2;
        if (tol2 > 0.04 * d2) continue; /* the check could not tell d2 from d2/2 */
        if (fabs(fd2 - d2) > tol2)
            fail_msg("coordinate %zu: d2 = 2*Lambda*a^2*b = %.12g, finite difference %.12g "
                     "(bound %g)",
                     m, d2, fd2, tol2);
        /* the curvature Algorithm 2 prints, Λa²b, is half of it */
        assert_true(fabs(fd2 - 0.5 * d2) > 0.4 * d2);
        checked++;
        active_checked += mu0 > 0;
    }
    assert_true(checked > 20);
    assert_true(active_checked > 2);
    free(mu);
    bounds_free(&bd);
    polka_slkl_free(&slkl);
    polka_dataset_free(&data);
}

/*
 * The model of eqs. 16–17 against dense KRR with K̃(μ) built from polka_nystrom_rank1, each
 * to the exact f(x) = k̃(x)ᵀ(K̃ + ΛI)⁻¹y; every kernel value is within e relative
 * (test_gauss_rel). SLKL: f(x) = c_A(x)ᵀu/Λ with Hu = z by dposv, H = D⁻¹ + C_AᵀC_A/Λ; with
 * S² = diag H, H is formed within m0(γ_{n+2} + 2e_c) and factored within m0·γ_{4m0+2} in the
 * scaled norm ‖S⁻¹·S⁻¹‖₂ [Higham02 Thm 10.4, |R̂ᵀ||R̂| ≤ √(H_ii H_jj)], z = Cᵀy within
 * (γ_n + e_c)‖c_j‖‖y‖, so f moves by ‖S⁻¹c_A‖(ε_H‖Su‖ + √m0(γ_n + e_c)‖y‖√Λ)/(Λλ_min(S⁻¹HS⁻¹));
 * the weights' three roundings and the evaluation add (γ_{m0+3} + e)Σ_j|β_j k_j(x)|. Dense:
 * α̂ solves (K̃ + ΛI)α̂ = y + v, ‖v‖ ≤ its residual + ‖ΔK̃‖‖α̂‖ (entries within 3e + γ_{m0+5}),
 * and ‖(K̃ + ΛI)⁻¹k̃(x)‖ ≤ √K̃(x,x)/(2√Λ) (K̃ = CDCᵀ: σ/(Λ + σ²) ≤ 1/(2√Λ)); the prediction's
 * sum (3e + γ_{m0·n+4}) of Σ|terms|.
 */
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
    const polka_kernel *kernel = &params.kernel;
    size_t big_m = polka_slkl_candidates(slkl), m0 = polka_model_order(model);
    const double *beta = polka_model_weights(model), *dict = polka_model_dictionary(model);
    double lam = N * params.lambda, sigma = kernel->sigma;
    double *kt = calloc(N * N, sizeof *kt), *kt0 = malloc(N * N * sizeof *kt0);
    double *alpha = malloc(N * sizeof *alpha), f[T];
    double *cols = malloc(N * big_m * sizeof *cols), *q = malloc(big_m * big_m * sizeof *q);
    candidate_columns(kernel, data.x, N, P, cand, big_m, cols, q);
    /* the largest relative error of a kernel value this test or the library computes */
    double e = 0.0;
    for (size_t m = 0; m < big_m; m++) {
        const double *xm = data.x + cand[m] * P;
        for (size_t i = 0; i < N; i++) e = fmax(e, test_gauss_rel(sigma, data.x + i * P, xm, P));
        for (size_t t = 0; t < T; t++) e = fmax(e, test_gauss_rel(sigma, test.x + t * P, xm, P));
    }
    for (size_t i = 0; i < N; i++)
        for (size_t t = 0; t < T; t++)
            e = fmax(e, test_gauss_rel(sigma, test.x + t * P, data.x + i * P, P));
    double e_c = 2 * e + test_gamma(2); /* c = k/√k_mm */
    /* SLKL's side: the model's points among the candidates, S and u */
    double lmin_s = 0.0, su = 0.0, yn = 0.0, *s = malloc(m0 * sizeof *s);
    (void)h_kappa(q, big_m, mu, lam, &lmin_s);
    for (size_t j = 0; j < m0; j++) {
        size_t m = big_m;
        for (size_t c = 0; c < big_m && m == big_m; c++)
            if (mu[c] > 0 && memcmp(data.x + cand[c] * P, dict + j * P, P * sizeof *dict) == 0)
                m = c;
        assert_true(m < big_m);
        s[j] = sqrt(q[m * big_m + m] / lam + 1.0 / mu[m]);
        double u = beta[j] * lam * sqrt(polka_kernel_eval(kernel, dict + j * P, dict + j * P, P));
        su += s[j] * s[j] * u * u;
    }
    su = sqrt(su);
    for (size_t i = 0; i < N; i++) yn += data.y[i] * data.y[i];
    yn = sqrt(yn);
    double eps_h = (double)m0 * (test_gamma(N + 2) + 2 * e_c + test_gamma(4.0 * m0 + 2));
    double dz = sqrt((double)m0) * (test_gamma(N) + e_c) * yn * sqrt(lam);
    /* the dense side */
    for (size_t m = 0; m < big_m; m++) {
        if (mu[m] == 0.0) continue;
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++)
                kt[i * N + j] += mu[m] * polka_nystrom_rank1(kernel, data.x + i * P, data.x + j * P,
                                                             data.x + cand[m] * P, P);
    }
    double ktrace = 0.0;
    for (size_t i = 0; i < N; i++) {
        ktrace += kt[i * N + i];
        kt[i * N + i] += N * params.lambda;
    }
    memcpy(kt0, kt, N * N * sizeof *kt0);
    memcpy(alpha, data.y, N * sizeof *alpha);
    gauss_solve(kt, alpha, N);
    double res = test_residual_bound(kt0, 0.0, alpha, data.y, N), an = 0.0;
    for (size_t i = 0; i < N; i++) an += alpha[i] * alpha[i];
    double v = res + (3 * e + test_gamma(m0 + 5.0)) * (ktrace + lam) * sqrt(an);
    CHECK_OK(polka_model_eval(model, test.x, T, f));
    for (size_t t = 0; t < T; t++) {
        const double *xt = test.x + t * P;
        double expect = 0.0, terms = 0.0, kxx = 0.0, sc = 0.0, eval = 0.0;
        for (size_t m = 0; m < big_m; m++) {
            if (mu[m] == 0.0) continue;
            const double *xm = data.x + cand[m] * P;
            kxx += mu[m] * polka_nystrom_rank1(kernel, xt, xt, xm, P);
            for (size_t i = 0; i < N; i++) {
                double term =
                    alpha[i] * mu[m] * polka_nystrom_rank1(kernel, xt, data.x + i * P, xm, P);
                expect += term;
                terms += fabs(term);
            }
        }
        for (size_t j = 0; j < m0; j++) {
            double k = polka_kernel_eval(kernel, dict + j * P, xt, P);
            double c = k / sqrt(polka_kernel_eval(kernel, dict + j * P, dict + j * P, P));
            sc += c * c / (s[j] * s[j]);
            eval += fabs(beta[j]) * k;
        }
        double tol = sqrt(sc) * (eps_h * su + dz) / (lam * lmin_s) +
                     (test_gamma(m0 + 3.0) + e) * eval + v * sqrt(kxx) / (2 * sqrt(lam)) +
                     (3 * e + test_gamma((double)m0 * N + 4)) * terms;
        if (fabs(f[t] - expect) > tol)
            fail_msg("test point %zu: SLKL model %.15g, dense KRR with K(mu) %.15g (bound %g)", t,
                     f[t], expect, tol);
    }
    free(kt);
    free(kt0);
    free(alpha);
    free(cols);
    free(q);
    free(s);
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
    /* the same updates in the same order: the same bits */
    assert_true(polka_slkl_objective(a) == polka_slkl_objective(b));
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
    /* the same sine (π·0.5·0.5 = π·0.25 exactly); each other term within three roundings of
     * its exact value on either side, and four additions each: within γ_10·Σ|terms| */
    double sine = 10 * sin(3.14159265358979323846 * 0.25);
    assert_true(fabs(polka_regression_clean(gen, x) - (sine + 20 * 0.09 + 3.0 + 4.5)) <=
                test_gamma(10) * (sine + 1.8 + 3.0 + 4.5));
    polka_regression_free(&gen);
    params = polka_regression_defaults(POLKA_REGRESSION_SINC);
    CHECK_OK(polka_regression_create(&params, &gen));
    double origin[2] = {0, 0}, point[2] = {3, 4};
    assert_true(polka_regression_clean(gen, origin) == 1.0);
    /* r = √25 = 5 exactly; a sine within 1 ulp (2u) and a quotient on either side: γ_6 */
    assert_true(fabs(polka_regression_clean(gen, point) - sin(5.0) / 5.0) <=
                test_gamma(6) * fabs(sin(5.0) / 5.0));
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
        /* the same N squares (the same draws) summed in the same order over the same N: the
         * same bits (regression.c, measure_power) */
        assert_true(signal / N == polka_regression_signal_power(gen));
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
