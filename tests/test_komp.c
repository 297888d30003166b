/* KOMP: the O(M²) version against the pseudo-inverse oracle, and the error budget. */
#include <stdlib.h>
#include <string.h>

#include "polka/komp.h"
#include "polka/model.h"
#include "test_util.h"

enum { P = 3, C = 3 };

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

/* Same points in the same order, weights equal to 1e-8 relative. */
static void assert_same_model(const polka_model *a, const polka_model *b) {
    size_t m = polka_model_order(a);
    assert_int_equal(m, polka_model_order(b));
    assert_memory_equal(polka_model_dictionary(a), polka_model_dictionary(b),
                        m * P * sizeof(double));
    const double *wa = polka_model_weights(a), *wb = polka_model_weights(b);
    double scale = 0.0;
    for (size_t k = 0; k < m * C; k++) scale = fmax(scale, fabs(wb[k]));
    for (size_t k = 0; k < m * C; k++)
        if (fabs(wa[k] - wb[k]) > 1e-8 * scale)
            fail_msg("weight %zu: fast %.17g, oracle %.17g", k, wa[k], wb[k]);
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
        assert_same_model(fast, oracle);
        assert_true(close_rel(fs.sqerror, os.sqerror, 1e-8));
        /* the true RKHS error (no jitter) stays within the budget */
        double err2 = 0.0;
        CHECK_OK(polka_model_sqdistance(original, fast, &err2));
        assert_true(err2 <= eps * eps * (1 + 1e-9));
        assert_true(close_rel(err2, fs.sqerror, 1e-6));
        polka_komp_free(&komp);
        polka_model_free(&fast);
        polka_model_free(&oracle);
        polka_model_free(&original);
    }
}

/*
 * The online use: every step scales the weights, appends a few points and compresses;
 * the fast state (K⁻¹ kept across calls, bordered, downdated, rebuilt) must give the
 * oracle's answer at every step.
 */
static void test_fast_matches_oracle_online(void **state) {
    (void)state;
    polka_model *fast = random_model(1, 77, 1.0), *oracle = NULL;
    CHECK_OK(polka_model_clone(fast, &oracle));
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    double eps = 0.05;
    size_t total_removed = 0;
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
        polka_komp_stats fs, os;
        CHECK_OK(polka_komp_compress(komp, fast, eps, &fs));
        CHECK_OK(polka_komp_compress_bruteforce(oracle, eps, 0, &os));
        assert_int_equal(fs.folded, 0);
        assert_same_model(fast, oracle);
        double err2 = 0.0;
        CHECK_OK(polka_model_sqdistance(before, fast, &err2));
        assert_true(err2 <= eps * eps * (1 + 1e-9));
        total_removed += fs.removed;
        polka_model_free(&before);
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
    double err2 = 1.0;
    CHECK_OK(polka_model_sqdistance(original, model, &err2));
    assert_true(err2 < 1e-12);
    polka_komp_free(&komp);
    polka_model_free(&model);
    polka_model_free(&original);
}

/* One online run of 300 steps with the given number of pending updates; returns the model. */
static polka_model *online_run(size_t pending, size_t *rebuilds) {
    polka_model *model = random_model(1, 31, 0.9);
    polka_komp *komp = NULL;
    CHECK_OK(polka_komp_create(0, &komp));
    CHECK_OK(polka_komp_set_pending(komp, pending));
    *rebuilds = 0;
    for (uint64_t step = 0; step < 300; step++) {
        size_t batch = 1 + step % 4;
        double x[4 * P], w[4 * C];
        fill_uniform(x, batch * P, -1.5, 1.5, 7000 + step);
        fill_uniform(w, batch * C, -0.2, 0.2, 8000 + step);
        polka_model_scale(model, 0.99);
        CHECK_OK(polka_model_append(model, x, batch, w));
        polka_komp_stats stats;
        CHECK_OK(polka_komp_compress(komp, model, 0.04, &stats));
        *rebuilds += stats.rebuilds;
    }
    polka_komp_free(&komp);
    return model;
}

/* Keeping 64 updates beside G (one rewrite of G for many removals and borderings) gives the
 * points and weights of rewriting G after every single update. */
static void test_pending_updates_equal_sequential(void **state) {
    (void)state;
    size_t rebuilds_one = 0, rebuilds_many = 0;
    polka_model *one = online_run(1, &rebuilds_one), *many = online_run(64, &rebuilds_many);
    print_message("order %zu, rebuilds %zu / %zu\n", polka_model_order(one), rebuilds_one,
                  rebuilds_many);
    assert_true(polka_model_order(one) > 20);
    assert_same_model(many, one);
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
    double err2 = 1.0;
    CHECK_OK(polka_model_sqdistance(original, model, &err2));
    assert_true(err2 < 1e-12);
    /* then compressing to a budget agrees with the oracle on the folded model */
    CHECK_OK(polka_model_assign(oracle, polka_model_dictionary(model), polka_model_weights(model),
                                polka_model_order(model)));
    CHECK_OK(polka_komp_compress(komp, model, 0.3, &stats));
    CHECK_OK(polka_komp_compress_bruteforce(oracle, 0.3, 0, &os));
    assert_true(stats.removed > 0);
    assert_same_model(model, oracle);
    polka_komp_free(&komp);
    polka_model_free(&model);
    polka_model_free(&original);
    polka_model_free(&oracle);
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
