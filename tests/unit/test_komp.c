/* KOMP: the O(M²) version against the pseudo-inverse oracle, and the error budget. */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "polka/komp.h"
#include "polka/model.h"
#include "test_util.h"

enum { P = 3, C = 3 };

/* The library's jitter of a Gram diagonal, k(x, x)·(1 + JITTER) (komp.c's DEFAULT_JITTER). */
#define JITTER 1e-10

static polka_model *random_model(size_t m, uint64_t seed, double sigma) {
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = sigma};
    double *d = malloc(m * P * sizeof *d), *w = malloc(m * C * sizeof *w);
    fill_uniform(d, m * P, -1.5, 1.5, seed);
    fill_uniform(w, m * C, -1, 1, seed + 1000);
    polka_model *model = NULL;
    CHECK_OK(polka_model_create(&kernel, P, C, &model));
    CHECK_OK(polka_model_append(model, d, m, w));
    free(d);
    free(w);
    return model;
}

/*
 * What the bounds need of a model's jittered Gram matrix K + J (J = jitter·diag k(x, x)):
 * λ_min from below and λ_max by dsyev (within m·ε·λ_max [LAPACK Users' Guide §4.7.1, p(n) =
 * n], and the library's values within e·K, ‖e∘K‖₂ ≤ e·tr K, of this test's), its trace, the
 * largest e, ‖W‖_F, and ‖K|W|‖_F.
 */
typedef struct {
    double lam_lo, lam_max, trace, e, w_norm, kw_norm;
} gram_facts;

static gram_facts gram_of(const polka_model *model) {
    size_t m = polka_model_order(model);
    const double *d = polka_model_dictionary(model), *w = polka_model_weights(model);
    const polka_kernel *kernel = polka_model_kernel(model);
    gram_facts g = {0};
    if (m == 0) return g;
    double *k = malloc(m * m * sizeof *k), *eig = malloc(m * sizeof *eig);
    for (size_t r = 0; r < m; r++)
        for (size_t s = 0; s < m; s++) {
            k[r * m + s] = polka_kernel_eval(kernel, d + r * P, d + s * P, P);
            g.e = fmax(g.e, test_gauss_rel(kernel->sigma, d + r * P, d + s * P, P));
        }
    for (size_t r = 0; r < m; r++) {
        k[r * m + r] *= 1 + JITTER;
        g.trace += k[r * m + r];
        for (size_t c = 0; c < C; c++) {
            double kw = 0.0;
            for (size_t s = 0; s < m; s++) kw += k[r * m + s] * fabs(w[s * C + c]);
            g.kw_norm += kw * kw;
            g.w_norm += w[r * C + c] * w[r * C + c];
        }
    }
    g.kw_norm = sqrt(g.kw_norm);
    g.w_norm = sqrt(g.w_norm);
    assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', m, k, m, eig), 0);
    g.lam_max = eig[m - 1];
    g.lam_lo = eig[0] - m * DBL_EPSILON * g.lam_max - g.e * g.trace;
    assert_true(g.lam_lo > 0);
    free(k);
    free(eig);
    return g;
}

/*
 * The error of polka_model_sqdistance(f, g): wᵀK̂w over the M' = m_f + m_g points of both
 * (g's weights negated, exactly) by dgemm and ddot, within γ_{M'(C+1)} of Σ_c|w_c|ᵀK̂|w_c|
 * [Higham02 §3.5], on values within e of k: (γ_{M'(C+1)} + e)(1 + e)·Σ_c|w_c|ᵀK|w_c|.
 */
static double sqdistance_error(const polka_model *f, const polka_model *g) {
    const polka_model *models[2] = {f, g};
    const polka_kernel *kernel = polka_model_kernel(f);
    double form = 0.0, e = 0.0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            const polka_model *ma = models[a], *mb = models[b];
            const double *da = polka_model_dictionary(ma), *db = polka_model_dictionary(mb);
            const double *wa = polka_model_weights(ma), *wb = polka_model_weights(mb);
            for (size_t r = 0; r < polka_model_order(ma); r++)
                for (size_t s = 0; s < polka_model_order(mb); s++) {
                    double k = polka_kernel_eval(kernel, da + r * P, db + s * P, P);
                    e = fmax(e, test_gauss_rel(kernel->sigma, da + r * P, db + s * P, P));
                    for (size_t c = 0; c < C; c++) form += fabs(wa[r * C + c] * wb[s * C + c]) * k;
                }
        }
    double mm = (double)(polka_model_order(f) + polka_model_order(g));
    return (test_gamma(mm * (C + 1)) + e) * (1 + e) * form;
}

/*
 * To first order each KOMP version gives the exact projection for a Gram matrix perturbed by
 * E. The oracle: dsyev's p(n)ε‖K‖ and the pseudo-inverse's products, (mε + γ_{2m+2})λ_max.
 * The fast version: the Cholesky rebuild's γ_{3m+1} tr K [Higham02 Thm 10.4] and three
 * roundings per rank-one update of G since (borderings, removals), each a perturbation of
 * K's order amplified by κ of the matrix bordered (its Schur complement's cancellation):
 * γ_{3m+1+3U}·κ·tr K. Both read the kernel values within e·K: e·tr K. The weights move by
 * ‖δv‖ ≤ (‖E‖‖v‖ + ‖δc‖)/λ_min with ‖δc‖ = (γ_m + e)‖K|W̃|‖_F the oracle's K W̃.
 */
static double fast_perturbation(size_t m, size_t updates, double kappa, double trace, double e) {
    return test_gamma(3.0 * (double)(m + updates) + 1) * kappa * trace + e * trace;
}

static double oracle_perturbation(size_t m, double lam_max, double trace, double e) {
    return (m * DBL_EPSILON + test_gamma(2.0 * m + 2)) * lam_max + e * trace;
}

/* Same points in the same order, weights within tol (absolute: a 2-norm bound). */
static void assert_same_model(const polka_model *a, const polka_model *b, double tol) {
    size_t m = polka_model_order(a);
    assert_int_equal(m, polka_model_order(b));
    assert_memory_equal(polka_model_dictionary(a), polka_model_dictionary(b),
                        m * P * sizeof(double));
    const double *wa = polka_model_weights(a), *wb = polka_model_weights(b);
    for (size_t k = 0; k < m * C; k++)
        if (fabs(wa[k] - wb[k]) > tol)
            fail_msg("weight %zu: fast %.17g, oracle %.17g (bound %g)", k, wa[k], wb[k], tol);
}

/* jitter·Σ_i k(x_i, x_i)‖W̃_i − W_i‖² (W extended by 0 on the points compressed away): the
 * jittered squared error less the plain one, for the same weights. */
static double jitter_term(const polka_model *original, const polka_model *kept) {
    size_t m = polka_model_order(original), n = polka_model_order(kept), j = 0;
    const double *d = polka_model_dictionary(original), *dk = polka_model_dictionary(kept);
    const double *w = polka_model_weights(original), *wk = polka_model_weights(kept);
    double sum = 0.0;
    for (size_t i = 0; i < m; i++) {
        int here = j < n && memcmp(d + i * P, dk + j * P, P * sizeof *d) == 0;
        double kii = polka_kernel_eval(polka_model_kernel(original), d + i * P, d + i * P, P);
        for (size_t c = 0; c < C; c++) {
            double diff = w[i * C + c] - (here ? wk[j * C + c] : 0.0);
            sum += kii * diff * diff;
        }
        j += (size_t)here;
    }
    assert_int_equal(j, n); /* the kept points are a subsequence */
    return JITTER * sum;
}

/*
 * The fast version against the oracle (weights and squared error within both's first-order
 * perturbation: Q = W̃ᵀKW̃ − cᵀK_SS⁻¹c moves by ‖E‖‖v‖² + 2‖δc‖‖v‖, its total by
 * (γ_{m(C+1)+1} + e)Σ|W̃|ᵀK|W̃|, the fast's sum of r costs by γ_r), and the true (unjittered)
 * RKHS error against the budget and the tracked one: it is the jittered error of the fast
 * weights less jitter_term, ≤ the exact projection's + λ_max‖δv‖², computed within
 * sqdistance_error.
 */
typedef struct {
    double dv, dq; /* the fast weights' and tracked squared error's bounds */
} komp_bounds;

static komp_bounds check_against_oracle(const polka_model *original, const polka_model *fast,
                                        const polka_model *oracle, const polka_komp_stats *fs,
                                        const polka_komp_stats *os, size_t updates, double kappa) {
    size_t m = polka_model_order(original);
    gram_facts g0 = gram_of(original), gs = gram_of(oracle);
    double form = 0.0;
    const double *d = polka_model_dictionary(original), *w = polka_model_weights(original);
    for (size_t r = 0; r < m; r++)
        for (size_t s = 0; s < m; s++)
            for (size_t c = 0; c < C; c++)
                form += fabs(w[r * C + c] * w[s * C + c]) *
                        polka_kernel_eval(polka_model_kernel(original), d + r * P, d + s * P, P);
    double ef = fast_perturbation(m, updates, kappa, g0.trace, g0.e);
    double eo = oracle_perturbation(m, g0.lam_max, g0.trace, g0.e);
    double dc = (test_gamma((double)m) + g0.e) * g0.kw_norm, v = gs.w_norm;
    double lam_lo = polka_model_order(oracle) > 0 ? gs.lam_lo : 1.0;
    double dv_f = (ef * v + dc) / lam_lo, dv_o = (eo * v + dc) / lam_lo;
    assert_same_model(fast, oracle, dv_f + dv_o);
    double total = (test_gamma(m * (C + 1.0) + 1) + g0.e) * form;
    double dq_f = ef * v * v + 2 * dc * v + total + test_gamma((double)fs->removed) * fs->sqerror;
    double dq_o = eo * v * v + 2 * dc * v + total;
    assert_true(fabs(fs->sqerror - os->sqerror) <= dq_f + dq_o);
    return (komp_bounds){dv_f, dq_f + gs.lam_max * dv_f * dv_f};
}

static void test_fast_matches_oracle_one_shot(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        size_t m = 10 + 5 * (seed % 5);
        polka_model *fast = random_model(m, seed, 0.8), *oracle = NULL, *original = NULL;
        CHECK_OK(polka_model_clone(fast, &oracle));
        CHECK_OK(polka_model_clone(fast, &original));
        double norm2 = 0.0;
        CHECK_OK(polka_model_sqnorm(original, &norm2));
        double eps = (0.05 + 0.05 * (double)(seed % 4)) * sqrt(norm2);
        polka_komp *komp = NULL;
        CHECK_OK(polka_komp_create(0, &komp));
        polka_komp_stats fs, os;
        CHECK_OK(polka_komp_compress(komp, fast, eps, &fs));
        CHECK_OK(polka_komp_compress_bruteforce(oracle, eps, 0, &os));
        assert_true(fs.removed > 0);
        assert_int_equal(fs.removed, os.removed);
        /* a fresh state borders every point, then removes */
        gram_facts g0 = gram_of(original);
        komp_bounds kb = check_against_oracle(original, fast, oracle, &fs, &os, m + fs.removed,
                                              g0.lam_max / g0.lam_lo);
        /* the true RKHS error (no jitter) stays within the budget */
        double err2 = 0.0;
        CHECK_OK(polka_model_sqdistance(original, fast, &err2));
        double slack = kb.dq + sqdistance_error(original, fast);
        assert_true(err2 <= eps * eps * (1 + TEST_UNIT) + slack);
        assert_true(fabs(err2 - (fs.sqerror - jitter_term(original, fast))) <= slack);
        polka_komp_free(&komp);
        polka_model_free(&fast);
        polka_model_free(&oracle);
        polka_model_free(&original);
    }
}

/*
 * The online use: every step scales the weights, appends a few points and compresses;
 * the fast state (K⁻¹ kept across calls, bordered, downdated, rebuilt) must give the
 * oracle's answer at every step: its updates since the last rebuild count (κ: the largest
 * of the matrices bordered since).
 */
static void test_fast_matches_oracle_online(void **state) {
    (void)state;
    polka_model *fast = random_model(1, 77, 1.0), *oracle = NULL;
    CHECK_OK(polka_model_clone(fast, &oracle));
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    double eps = 0.05, kappa = 1.0;
    size_t total_removed = 0, since = 0;
    for (uint64_t step = 0; step < 250; step++) {
        size_t batch = 1 + step % 3;
        double x[3 * P], w[3 * C];
        fill_uniform(x, batch * P, -1.5, 1.5, 5000 + step);
        fill_uniform(w, batch * C, -0.2, 0.2, 9000 + step);
        polka_model *before = NULL;
        polka_model_scale(fast, 0.99);
        polka_model_scale(oracle, 0.99);
        CHECK_OK(polka_model_append(fast, x, batch, w));
        CHECK_OK(polka_model_append(oracle, x, batch, w));
        CHECK_OK(polka_model_clone(fast, &before));
        gram_facts gb = gram_of(before);
        kappa = fmax(kappa, gb.lam_max / gb.lam_lo);
        polka_komp_stats fs, os;
        CHECK_OK(polka_komp_compress(komp, fast, eps, &fs));
        CHECK_OK(polka_komp_compress_bruteforce(oracle, eps, 0, &os));
        assert_int_equal(fs.folded, 0);
        size_t updates = since + batch + fs.removed;
        komp_bounds kb = check_against_oracle(before, fast, oracle, &fs, &os, updates, kappa);
        double err2 = 0.0;
        CHECK_OK(polka_model_sqdistance(before, fast, &err2));
        assert_true(err2 <= eps * eps * (1 + TEST_UNIT) + kb.dq + sqdistance_error(before, fast));
        total_removed += fs.removed;
        polka_model_free(&before);
        if (fs.rebuilds >
            0) { /* a rebuild of the kept points' inverse (at most its removals after) */
            gram_facts gf = gram_of(fast);
            since = fs.removed;
            kappa = polka_model_order(fast) > 0 ? gf.lam_max / gf.lam_lo : 1.0;
        } else {
            since = updates;
        }
        /* keep the reference weights exactly the fast ones so rounding does not drift */
        CHECK_OK(polka_model_assign(oracle, polka_model_dictionary(fast), polka_model_weights(fast),
                                    polka_model_order(fast)));
    }
    print_message("online: %zu removed, final order %zu\n", total_removed, polka_model_order(fast));
    assert_true(total_removed > 200);
    assert_true(polka_model_order(fast) < 100);
    polka_komp_free(&komp);
    polka_model_free(&fast);
    polka_model_free(&oracle);
}

/*
 * The fold threshold: next to a lone point x, y = x + δ e₁ has Schur complement
 * s = k(y,y) − k(x,y)²/k(x,x) ≈ δ²/σ² (Gaussian). At s ≈ 1e-7 k(y,y) it folds (bordering it
 * would put 1/s = 1e7 into the inverse, whose rounding then grows as cond²); at 1e-5 it is
 * bordered and kept.
 */
static void test_nearly_dependent_point_folds(void **state) {
    (void)state;
    const double sigma = 0.7, ratios[2] = {1e-7, 1e-5};
    for (int i = 0; i < 2; i++) {
        polka_model *model = random_model(1, 9, sigma);
        polka_komp *komp = NULL;
        CHECK_OK(polka_komp_create(0, &komp));
        polka_komp_stats stats;
        CHECK_OK(polka_komp_compress(komp, model, 0.0, &stats));
        double y[P], w[C] = {0.3, -0.2, 0.1};
        memcpy(y, polka_model_dictionary(model), sizeof y);
        y[0] += sigma * sqrt(ratios[i]);
        CHECK_OK(polka_model_append(model, y, 1, w));
        CHECK_OK(polka_komp_compress(komp, model, 0.0, &stats));
        assert_int_equal(stats.folded, i == 0 ? 1 : 0);
        assert_int_equal(polka_model_order(model), i == 0 ? 1 : 2);
        polka_komp_free(&komp);
        polka_model_free(&model);
    }
}

/*
 * What folding appended duplicates of kept points may move the function by: in exact
 * arithmetic the jittered projection of k(x_j, ·) misses it by jitter·k_jj·Σ_i G_ij k(x_i, ·),
 * of squared norm ≤ (jitter·k_jj)²G_jj‖w‖² ≤ (jitter·k_jj)²‖w‖²/λ_min; the folded weights
 * are within ‖δv‖ (fast_perturbation, κ of the points kept), λ_max‖δv‖² in the norm; and
 * polka_model_sqdistance's own sqdistance_error.
 */
static double fold_bound(const polka_model *original, const polka_model *folded,
                         const double *w_dups, size_t dups, size_t updates) {
    gram_facts g = gram_of(folded);
    double dup2 = 0.0;
    for (size_t k = 0; k < dups * C; k++) dup2 += w_dups[k] * w_dups[k];
    double ef =
        fast_perturbation(polka_model_order(folded), updates, g.lam_max / g.lam_lo, g.trace, g.e);
    double dv = ef * g.w_norm / g.lam_lo;
    return JITTER * JITTER * (1 + g.e) * (1 + g.e) * dup2 / g.lam_lo + g.lam_max * dv * dv +
           sqdistance_error(original, folded);
}

/* A point already in the span is folded into the others; the function is kept. */
static void test_duplicate_point_is_folded(void **state) {
    (void)state;
    polka_model *model = random_model(8, 3, 0.7), *original = NULL;
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    polka_komp_stats stats;
    CHECK_OK(polka_komp_compress(komp, model, 0.0, &stats));
    assert_int_equal(polka_model_order(model), 8);
    double w[C] = {0.3, -0.2, 0.1};
    CHECK_OK(polka_model_append(model, polka_model_dictionary(model) + 2 * P, 1, w));
    CHECK_OK(polka_model_clone(model, &original));
    CHECK_OK(polka_komp_compress(komp, model, 0.0, &stats));
    assert_int_equal(stats.folded, 1);
    assert_int_equal(polka_model_order(model), 8);
    double err2 = 1.0, bound = fold_bound(original, model, w, 1, 9);
    CHECK_OK(polka_model_sqdistance(original, model, &err2));
    assert_true(err2 <= bound);
    polka_komp_free(&komp);
    polka_model_free(&model);
    polka_model_free(&original);
}

/*
 * One online run of 300 steps with the given number of pending updates; returns the model, and
 * in *drift a bound on its RKHS distance to the exact run: each step's projection is, to first
 * order, exact for K + E (fast_perturbation, its updates since the last rebuild and the
 * largest κ bordered since), which moves the kept weights by K_SS⁻¹Ev: ‖E‖‖v‖/√λ_min in the
 * norm of H; the next steps scale the function by 0.99 and project it, which does not expand
 * a difference (both runs keep the same points): drift ← 0.99·drift + that.
 */
static polka_model *online_run(size_t pending, size_t *rebuilds, double *drift) {
    polka_model *model = random_model(1, 31, 0.9);
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    CHECK_OK(polka_komp_set_pending(komp, pending));
    *rebuilds = 0;
    *drift = 0.0;
    size_t since = 0;
    double kappa = 1.0;
    for (uint64_t step = 0; step < 300; step++) {
        size_t batch = 1 + step % 4;
        double x[4 * P], w[4 * C];
        fill_uniform(x, batch * P, -1.5, 1.5, 7000 + step);
        fill_uniform(w, batch * C, -0.2, 0.2, 8000 + step);
        polka_model_scale(model, 0.99);
        CHECK_OK(polka_model_append(model, x, batch, w));
        gram_facts g = gram_of(model);
        size_t m = polka_model_order(model);
        kappa = fmax(kappa, g.lam_max / g.lam_lo);
        polka_komp_stats stats;
        CHECK_OK(polka_komp_compress(komp, model, 0.04, &stats));
        *rebuilds += stats.rebuilds;
        size_t updates = since + batch + stats.removed;
        gram_facts kept = gram_of(model);
        double step_error = polka_model_order(model) == 0
                                ? 0.0
                                : fast_perturbation(m, updates, kappa, g.trace, g.e) * kept.w_norm /
                                      sqrt(kept.lam_lo);
        *drift = 0.99 * *drift + step_error;
        if (stats.rebuilds > 0) { /* the kept points' inverse afresh (its removals after) */
            since = stats.removed;
            kappa = polka_model_order(model) > 0 ? kept.lam_max / kept.lam_lo : 1.0;
        } else {
            since = updates;
        }
    }
    polka_komp_free(&komp);
    return model;
}

/*
 * Keeping 64 updates beside G (one rewrite of G for many removals and borderings) gives the
 * points of rewriting G after every single update, and its function to both runs' drift.
 */
static void test_pending_updates_equal_sequential(void **state) {
    (void)state;
    size_t rebuilds_one = 0, rebuilds_many = 0;
    double drift_one, drift_many;
    polka_model *one = online_run(1, &rebuilds_one, &drift_one);
    polka_model *many = online_run(64, &rebuilds_many, &drift_many);
    print_message("order %zu, rebuilds %zu / %zu\n", polka_model_order(one), rebuilds_one,
                  rebuilds_many);
    assert_true(polka_model_order(one) > 20);
    assert_int_equal(polka_model_order(many), polka_model_order(one));
    assert_memory_equal(polka_model_dictionary(many), polka_model_dictionary(one),
                        polka_model_order(one) * P * sizeof(double));
    double sqdist = 0.0, drift = drift_one + drift_many;
    CHECK_OK(polka_model_sqdistance(many, one, &sqdist));
    assert_true(sqdist <= drift * drift + sqdistance_error(many, one));
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    assert_int_equal(polka_komp_set_pending(komp, 0), POLKA_ERR_ARG);
    polka_komp_free(&komp);
    polka_model_free(&one);
    polka_model_free(&many);
}

/* Points appended together are bordered together: one of them that duplicates another of
 * the same batch (or an old point) is folded, the others are kept, the function is unchanged. */
static void test_duplicates_within_one_batch_fold(void **state) {
    (void)state;
    polka_model *model = random_model(6, 5, 0.7), *original = NULL, *oracle = NULL;
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    CHECK_OK(polka_komp_compress(komp, model, 0.0, NULL));
    double x[4 * P], w[4 * C];
    fill_uniform(x, 4 * P, -1.5, 1.5, 99);
    fill_uniform(w, 4 * C, -0.3, 0.3, 98);
    memcpy(x + 2 * P, x, P * sizeof *x);                                 /* = new point 0 */
    memcpy(x + 3 * P, polka_model_dictionary(model) + P, P * sizeof *x); /* = old point 1 */
    CHECK_OK(polka_model_append(model, x, 4, w));
    CHECK_OK(polka_model_clone(model, &original));
    CHECK_OK(polka_model_clone(model, &oracle));
    polka_komp_stats stats, os;
    CHECK_OK(polka_komp_compress(komp, model, 0.0, &stats));
    assert_int_equal(stats.folded, 2);
    assert_int_equal(polka_model_order(model), 8);
    assert_memory_equal(polka_model_dictionary(model) + 6 * P, x, 2 * P * sizeof *x);
    double err2 = 1.0, bound = fold_bound(original, model, w + 2 * C, 2, 10);
    CHECK_OK(polka_model_sqdistance(original, model, &err2));
    assert_true(err2 <= bound);
    /* then compressing to a budget agrees with the oracle on the folded model */
    CHECK_OK(polka_model_assign(oracle, polka_model_dictionary(model), polka_model_weights(model),
                                polka_model_order(model)));
    polka_model *folded = NULL;
    CHECK_OK(polka_model_clone(model, &folded));
    CHECK_OK(polka_komp_compress(komp, model, 0.3, &stats));
    CHECK_OK(polka_komp_compress_bruteforce(oracle, 0.3, 0, &os));
    assert_true(stats.removed > 0);
    gram_facts g = gram_of(folded);
    (void)check_against_oracle(folded, model, oracle, &stats, &os, 10 + stats.removed,
                               g.lam_max / g.lam_lo);
    polka_komp_free(&komp);
    polka_model_free(&model);
    polka_model_free(&original);
    polka_model_free(&oracle);
    polka_model_free(&folded);
}

static void test_budget_zero_keeps_everything_and_large_budget_empties(void **state) {
    (void)state;
    polka_model *model = random_model(20, 9, 0.3);
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    CHECK_OK(polka_komp_compress(komp, model, 0.0, NULL));
    assert_int_equal(polka_model_order(model), 20);
    double norm2 = 0.0;
    CHECK_OK(polka_model_sqnorm(model, &norm2));
    CHECK_OK(polka_komp_compress(komp, model, 1.01 * sqrt(norm2), NULL));
    assert_int_equal(polka_model_order(model), 0);
    assert_int_equal(polka_komp_compress(komp, model, -1.0, NULL), POLKA_ERR_ARG);
    polka_komp_free(&komp);
    polka_model_free(&model);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_matches_oracle_one_shot),
        cmocka_unit_test(test_fast_matches_oracle_online),
        cmocka_unit_test(test_duplicate_point_is_folded),
        cmocka_unit_test(test_nearly_dependent_point_folds),
        cmocka_unit_test(test_budget_zero_keeps_everything_and_large_budget_empties),
        cmocka_unit_test(test_pending_updates_equal_sequential),
        cmocka_unit_test(test_duplicates_within_one_batch_fold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
