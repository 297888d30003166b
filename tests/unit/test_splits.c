/* The label-skew splits (dirichlet, shards), quantity skew and drift: realised proportions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polka/config.h"
#include "polka/regression.h"
#include "polka/sim.h"
#include "sim/stream/stream_impl.h"
#include "test_util.h"

enum { AGENTS = 8, CLASSES = 5, PER_AGENT = 2000 };

static polka_config split_config(const char *split) {
    polka_config config;
    polka_config_defaults(&config);
    polka_config_set(&config, "data.split", split);
    return config;
}

static const polka_plan *plan_of(const polka_config *config) {
    static polka_plan plan;
    CHECK_OK(polka_plan_build(config, &plan));
    return &plan;
}

/* counts (AGENTS × CLASSES) of PER_AGENT samples per agent, batch 1. */
static void histogram(const polka_config *config, size_t *counts) {
    polka_stream *stream = NULL;
    CHECK_OK(polka_stream_create(plan_of(config), AGENTS, 1, &stream));
    CHECK_OK(polka_stream_class_histogram(stream, (uint64_t)AGENTS * PER_AGENT, counts));
    polka_stream_free(&stream);
}

static size_t row_total(const size_t *row) {
    size_t total = 0;
    for (size_t c = 0; c < CLASSES; c++) total += row[c];
    return total;
}

/* Gamma(k, 1) has mean k and variance k: the sampler behind the Dirichlet split. */
static void test_gamma_sampler_moments(void **state) {
    (void)state;
    const double shapes[] = {0.05, 0.5, 1.0, 3.0, 40.0};
    for (size_t s = 0; s < 5; s++) {
        double k = shapes[s], sum = 0.0, sq = 0.0;
        enum { N = 200000 };
        for (uint64_t i = 0; i < N; i++) {
            polka_rng rng = polka_rng_start(11, 7, i);
            double g = exp(polka_rng_log_gamma(&rng, k));
            sum += g;
            sq += g * g;
        }
        double mean = sum / N, var = sq / N - mean * mean;
        print_message("shape %g: mean %.4f var %.4f\n", k, mean, var);
        assert_true(fabs(mean - k) < 0.02 * fmax(k, 1));
        assert_true(fabs(var - k) < 0.08 * fmax(k, 1));
    }
}

/* α = 1e6: every agent's classes nearly uniform (1/5 each, within sampling noise). */
static void test_dirichlet_large_alpha_is_iid(void **state) {
    (void)state;
    polka_config config = split_config("dirichlet");
    CHECK_OK(polka_config_set(&config, "data.alpha", "1e6"));
    size_t counts[AGENTS * CLASSES];
    histogram(&config, counts);
    for (size_t a = 0; a < AGENTS; a++) {
        assert_int_equal(row_total(counts + a * CLASSES), PER_AGENT);
        for (size_t c = 0; c < CLASSES; c++) /* sd of a share: √(0.16/2000) ≈ 0.009 */
            assert_true(fabs((double)counts[a * CLASSES + c] / PER_AGENT - 0.2) < 0.04);
    }
}

/* α = 0.01: nearly one class per agent; α = 1 lies between. */
static void test_dirichlet_small_alpha_is_one_class(void **state) {
    (void)state;
    polka_config config = split_config("dirichlet");
    const char *alphas[] = {"0.01", "1"};
    double mean_top[2];
    for (size_t k = 0; k < 2; k++) {
        CHECK_OK(polka_config_set(&config, "data.alpha", alphas[k]));
        size_t counts[AGENTS * CLASSES];
        histogram(&config, counts);
        mean_top[k] = 0.0;
        for (size_t a = 0; a < AGENTS; a++) {
            size_t top = 0;
            for (size_t c = 0; c < CLASSES; c++)
                top = counts[a * CLASSES + c] > top ? counts[a * CLASSES + c] : top;
            mean_top[k] += (double)top / PER_AGENT / AGENTS;
        }
        print_message("alpha %s: mean share of an agent's top class %.3f\n", alphas[k],
                      mean_top[k]);
    }
    assert_true(mean_top[0] > 0.85); /* E[max share] of Dir(0.01·1_5) ≈ 0.97 */
    assert_true(mean_top[1] > 0.3 && mean_top[1] < 0.9);
}

/* shards: every agent sees exactly k classes, about equally; all classes are used. */
static void test_shards_exactly_k_classes(void **state) {
    (void)state;
    const char *ks[] = {"1", "2", "3"};
    for (size_t k = 1; k <= 3; k++) {
        polka_config config = split_config("shards");
        CHECK_OK(polka_config_set(&config, "data.shards", ks[k - 1]));
        size_t counts[AGENTS * CLASSES], used[CLASSES] = {0};
        histogram(&config, counts);
        for (size_t a = 0; a < AGENTS; a++) {
            size_t seen = 0;
            for (size_t c = 0; c < CLASSES; c++) {
                size_t n = counts[a * CLASSES + c];
                seen += n > 0;
                used[c] += n;
                if (n > 0) assert_true(fabs((double)n / PER_AGENT - 1.0 / (double)k) < 0.05);
            }
            assert_int_equal(seen, k);
        }
        for (size_t c = 0; c < CLASSES; c++) assert_true(used[c] > 0); /* 8 agents · k >= 5 */
    }
}

/* The splits check their settings with one clear message. */
static void test_split_settings_are_checked(void **state) {
    (void)state;
    polka_plan plan;
    polka_config config = split_config("shards");
    CHECK_OK(polka_config_set(&config, "data.shards", "6"));
    assert_int_equal(polka_plan_build(&config, &plan), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "data.shards must be between 1"));
    config = split_config("dirichlet");
    CHECK_OK(polka_config_set(&config, "data.alpha", "0"));
    assert_int_equal(polka_plan_build(&config, &plan), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "data.alpha must be in"));
    config = split_config("dirichlet");
    CHECK_OK(polka_config_set(&config, "data.source", "sinc"));
    CHECK_OK(polka_config_set(&config, "learner.loss", "square"));
    assert_int_equal(polka_plan_build(&config, &plan), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "data.split = dirichlet does not fit"));
    config = split_config("iid");
    CHECK_OK(polka_config_set(&config, "data.source", "checkerboard"));
    CHECK_OK(polka_config_set(&config, "data.drift", "0.01"));
    assert_int_equal(polka_plan_build(&config, &plan), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "data.drift > 0 needs a source that drifts"));
    config = split_config("iid");
    CHECK_OK(polka_config_set(&config, "data.quantity_sigma", "-1"));
    assert_int_equal(polka_plan_build(&config, &plan), POLKA_ERR_ARG);
}

/* Quantity skew: agent a learns a fraction r_a / max r of its rounds, from a log-normal law. */
static void test_quantity_skew_rates(void **state) {
    (void)state;
    polka_config config = split_config("iid");
    CHECK_OK(polka_config_set(&config, "data.quantity_sigma", "1"));
    polka_stream *stream = NULL;
    CHECK_OK(polka_stream_create(plan_of(&config), AGENTS, 1, &stream));
    double fraction[AGENTS], top = 0, low = 1;
    for (size_t a = 0; a < AGENTS; a++) {
        size_t learned = 0;
        for (uint64_t t = 0; t < 4000; t++)
            learned += (size_t)polka_stream_agent_learns(stream, a, t);
        fraction[a] = learned / 4000.0;
        top = fmax(top, fraction[a]);
        low = fmin(low, fraction[a]);
        /* the same answer by network sample (the centralized run's view) */
        assert_int_equal(polka_stream_agent_learns(stream, a, 17),
                         polka_stream_sample_learned(stream, 17 * AGENTS + a));
    }
    print_message("learned fractions: max %.3f min %.3f\n", top, low);
    assert_true(top > 0.97);      /* the fastest agent learns every round */
    assert_true(top / low > 2.0); /* σ = 1 over 8 agents: a spread of rates */
    polka_stream_free(&stream);
    CHECK_OK(polka_config_set(&config, "data.quantity_sigma", "0"));
    CHECK_OK(polka_stream_create(plan_of(&config), AGENTS, 1, &stream));
    for (uint64_t t = 0; t < 100; t++) assert_true(polka_stream_agent_learns(stream, 3, t));
    polka_stream_free(&stream);
}

/* Drift: sample g is the undrifted sample turned by drift·g; the test set follows. */
static void test_drift_turns_samples_and_test_set(void **state) {
    (void)state;
    polka_config config = split_config("iid");
    polka_stream *still = NULL, *moving = NULL;
    CHECK_OK(polka_stream_create(plan_of(&config), 4, 1, &still));
    polka_config drift = config;
    CHECK_OK(polka_config_set(&drift, "data.drift", "0.001"));
    static polka_plan drift_plan;
    CHECK_OK(polka_plan_build(&drift, &drift_plan));
    CHECK_OK(polka_stream_create(&drift_plan, 4, 1, &moving));
    for (uint64_t g = 0; g < 3000; g += 500) {
        double a[2], b[2], ya, yb, phase = 0.001 * (double)g;
        CHECK_OK(polka_stream_sample(still, g, a, &ya));
        CHECK_OK(polka_stream_sample(moving, g, b, &yb));
        assert_true(ya == yb);
        /* the same phase and c, s bits as the stream's; c·x − s·y rounded there and here, a
         * dot product of 2 each: 2γ_2·(|c·x| + |s·y|) [Higham02, §3.1] */
        double c = cos(phase), s = sin(phase), most = fabs(c * a[0]) + fabs(s * a[1]);
        double least = fabs(s * a[0]) + fabs(c * a[1]);
        assert_true(fabs(b[0] - (c * a[0] - s * a[1])) <= 2 * test_gamma(2) * most);
        assert_true(fabs(b[1] - (s * a[0] + c * a[1])) <= 2 * test_gamma(2) * least);
    }
    polka_dataset base = {0}, test = {0};
    CHECK_OK(polka_stream_test_set(still, &base));
    CHECK_OK(polka_stream_test_set(moving, &test));
    assert_memory_equal(base.x, test.x, base.n * 2 * sizeof(double));
    polka_stream_test_now(moving, 1570.796, &test); /* a quarter turn: (x, y) -> (−y, x) */
    /* the phase 0.001·1570.796 is off π/2 by θ = 3.3e-7: |cos| ≤ θ + u and 1 − sin ≤ θ²/2, with
     * the products' and sum's γ_2 [Higham02, §3.1] */
    double off = fabs(2 * atan(1.0) - 0.001 * 1570.796) + test_gamma(2);
    for (size_t i = 0; i < base.n; i += 97) {
        double size = fabs(base.x[2 * i]) + fabs(base.x[2 * i + 1]);
        assert_true(fabs(test.x[2 * i] + base.x[2 * i + 1]) <= (off + test_gamma(2)) * size);
        assert_true(fabs(test.x[2 * i + 1] - base.x[2 * i]) <= (off + test_gamma(2)) * size);
    }
    polka_stream_test_now(moving, 0, &test); /* back from the base, not drifting further */
    assert_memory_equal(base.x, test.x, base.n * 2 * sizeof(double));
    polka_dataset_free(&base);
    polka_dataset_free(&test);
    polka_stream_free(&still);
    polka_stream_free(&moving);
}

/* Sinc's drift moves the peak: the clean target at the moved peak is 1. */
static void test_sinc_drift_moves_the_peak(void **state) {
    (void)state;
    polka_config config = split_config("iid");
    CHECK_OK(polka_config_set(&config, "data.source", "sinc"));
    CHECK_OK(polka_config_set(&config, "learner.loss", "square"));
    CHECK_OK(polka_config_set(&config, "data.drift", "0.01"));
    CHECK_OK(polka_config_set(&config, "data.n_test", "4000"));
    polka_stream *stream = NULL;
    CHECK_OK(polka_stream_create(plan_of(&config), 2, 1, &stream));
    polka_dataset test = {0};
    CHECK_OK(polka_stream_test_set(stream, &test));
    /* at phase π/2 (157.08 samples) the peak is at (h/2)(1, 1) = (2.5, 2.5) */
    polka_stream_test_now(stream, 157.0796, &test);
    double best = -1, at[2] = {0, 0};
    for (size_t i = 0; i < test.n; i++)
        if (test.y[i] > best) best = test.y[i], at[0] = test.x[2 * i], at[1] = test.x[2 * i + 1];
    print_message("highest test target %.3f at (%.2f, %.2f)\n", best, at[0], at[1]);
    assert_true(fabs(at[0] - 2.5) < 0.5 && fabs(at[1] - 2.5) < 0.5);
    polka_dataset_free(&test);
    polka_stream_free(&stream);
}

/* Friedman's drift: the stream's inputs stay and its target is the clean target of
 * x'_k = (1 − w) x_k + w x_{k+5} (w = (1 − cos φ)/2, φ = drift·g) plus the same noise: at φ = π,
 * x6..x10 in x1..x5's places. dim < 10 is refused. */
static void test_friedman_drift_swaps_the_inputs(void **state) {
    (void)state;
    polka_config config = split_config("iid");
    CHECK_OK(polka_config_set(&config, "data.source", "friedman"));
    CHECK_OK(polka_config_set(&config, "learner.loss", "square"));
    CHECK_OK(polka_config_set(&config, "data.dim", "10"));
    polka_config still_config = config;
    CHECK_OK(polka_config_set(&config, "data.drift", "0.01"));
    polka_stream *moving = NULL, *still = NULL;
    CHECK_OK(polka_stream_create(plan_of(&config), 2, 1, &moving));
    static polka_plan still_plan;
    CHECK_OK(polka_plan_build(&still_config, &still_plan));
    CHECK_OK(polka_stream_create(&still_plan, 2, 1, &still));
    polka_regression_params params = polka_regression_defaults(POLKA_REGRESSION_FRIEDMAN1);
    polka_regression *f = NULL;
    CHECK_OK(polka_regression_create(&params, &f));
    double largest = 0.0;
    for (uint64_t g = 0; g <= 630; g += 9) { /* φ from 0 to 6.3: one turn */
        double x[10], y, x0[10], y0, moved[10], w = 0.5 * (1.0 - cos(0.01 * (double)g));
        CHECK_OK(polka_stream_sample(moving, g, x, &y));
        CHECK_OK(polka_stream_sample(still, g, x0, &y0));
        assert_memory_equal(x, x0, sizeof x); /* the inputs stay; the target moves */
        for (size_t k = 0; k < 10; k++) moved[k] = k < 5 ? (1 - w) * x[k] + w * x[k + 5] : x[k];
        double clean = polka_regression_clean(f, x), clean_moved = polka_regression_clean(f, moved);
        double expect = y0 - clean + clean_moved;
        /* w, moved and both clean targets the stream's bits (the same expressions); the stream's
         * y0 + (f' − f) and this (y0 − f) + f' are two sums of 3 [Higham02, §3.1] */
        assert_true(fabs(y - expect) <=
                    2 * test_gamma(2) * (fabs(y0) + fabs(clean) + fabs(clean_moved)));
        largest = fmax(largest, fabs(y - y0));
    }
    assert_true(largest > 1.0); /* it did move */
    polka_regression_free(&f);
    polka_stream_free(&moving);
    polka_stream_free(&still);
    CHECK_OK(polka_config_set(&config, "data.dim", "9"));
    static polka_plan plan;
    assert_int_equal(polka_plan_build(&config, &plan), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "needs data.dim >= 10"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gamma_sampler_moments),
        cmocka_unit_test(test_dirichlet_large_alpha_is_iid),
        cmocka_unit_test(test_dirichlet_small_alpha_is_one_class),
        cmocka_unit_test(test_shards_exactly_k_classes),
        cmocka_unit_test(test_split_settings_are_checked),
        cmocka_unit_test(test_quantity_skew_rates),
        cmocka_unit_test(test_drift_turns_samples_and_test_set),
        cmocka_unit_test(test_sinc_drift_moves_the_peak),
        cmocka_unit_test(test_friedman_drift_swaps_the_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
