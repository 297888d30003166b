/*
 * The other learners of the papers as model-order controls: NORMA ([KSW04]), BSGD
 * ([WCV12]) and NBSGD ([LNNP16]), checked against their papers' claims and
 * against brute-force references, through the same update_batch the agents use.
 */
#include <stdlib.h>
#include <string.h>

#include "polka/checkerboard.h"
#include "polka/komp.h"
#include "polka/learner.h"
#include "test_util.h"

/* Σ_j k(x, d_j)|w_jc| + |b_c| at each of n points x and c outputs (out: n × c), and the largest
 * test_gauss_rel of those kernel values in *e: the scale of a prediction's rounding. */
static void abs_terms(const polka_model *model, const double *b, const double *x, size_t n,
                      double *out, double *e) {
    size_t m = polka_model_order(model), c = polka_model_outputs(model), p = polka_model_dim(model);
    const double *d = polka_model_dictionary(model), *w = polka_model_weights(model);
    const polka_kernel *kernel = polka_model_kernel(model);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < c; k++) {
            double sum = b ? fabs(b[k]) : 0.0;
            for (size_t j = 0; j < m; j++) {
                sum += polka_kernel_eval(kernel, x + i * p, d + j * p, p) * fabs(w[j * c + k]);
                if (k == 0) *e = fmax(*e, test_gauss_rel(kernel->sigma, x + i * p, d + j * p, p));
            }
            out[i * c + k] = sum;
        }
}

static polka_learner_params gaussian_params(double sigma, polka_loss_kind loss,
                                            polka_control_kind control) {
    polka_learner_params params;
    params = polka_learner_defaults();
    params.kernel.sigma = sigma;
    params.loss.kind = loss;
    params.control = control;
    return params;
}

static polka_dataset checkerboard_data(size_t board, size_t n, uint64_t stream) {
    polka_checkerboard_params cp = {.board = board, .seed = 11};
    polka_checkerboard *gen = NULL;
    CHECK_OK(polka_checkerboard_create(&cp, &gen));
    polka_dataset data = {0};
    CHECK_OK(polka_dataset_alloc(&data, n, 2, 2));
    polka_checkerboard_fill(gen, stream, 0, &data);
    polka_checkerboard_free(&gen);
    return data;
}

static void train(polka_learner *learner, const polka_dataset *data) {
    for (size_t i = 0; i < data->n; i++)
        CHECK_OK(polka_learner_step(learner, data->x + i * data->p, data->y + i, 1, NULL));
}

static double accuracy(const polka_learner *learner, const polka_dataset *test) {
    double score = 0.0;
    CHECK_OK(polka_learner_evaluate(learner, test->x, test->y, test->n, &score, NULL));
    return score;
}

static void test_names_and_checks(void **state) {
    (void)state;
    for (int k = 0; k < POLKA_CONTROL_COUNT; k++) { /* every entry of the control table */
        polka_control_kind kind;
        CHECK_OK(polka_control_kind_parse(polka_control_kind_name((polka_control_kind)k), &kind));
        assert_int_equal(kind, k);
        assert_true(strlen(polka_control_help(kind)) > 10);
        polka_learner_params params = gaussian_params(1.0, POLKA_LOSS_SQUARE, kind);
        /* the learner runs the online controls; the batch learners are polka_batch_fit's */
        assert_int_equal(polka_learner_check(&params) == NULL, !polka_control_is_batch(kind));
        polka_batch_settings settings = {.tol = 1e-4};
        params.nu = 0.01;
        assert_int_equal(polka_batch_check(&params, &settings) == NULL,
                         polka_control_is_batch(kind));
    }
    assert_true(polka_control_is_batch(POLKA_CONTROL_SLKL) &&
                polka_control_is_batch(POLKA_CONTROL_KRR));
    assert_false(polka_control_is_batch(POLKA_CONTROL_COUNT));
    polka_learner_params budgeted =
        gaussian_params(1.0, POLKA_LOSS_HINGE, POLKA_CONTROL_NBSGD_REMOVE);
    budgeted.budget = 40;
    assert_int_equal(polka_control_rows_held(&budgeted, 8), 40);  /* the budget */
    assert_int_equal(polka_control_rows_held(&budgeted, 64), 64); /* at least one batch */
    budgeted.control = POLKA_CONTROL_KOMP;
    assert_int_equal(polka_control_rows_held(&budgeted, 8), 8);
    for (int k = 0; k <= POLKA_SCHEDULE_PEGASOS; k++) {
        polka_schedule_kind kind;
        CHECK_OK(
            polka_schedule_kind_parse(polka_schedule_kind_name((polka_schedule_kind)k), &kind));
        assert_int_equal(kind, k);
    }
    polka_control_kind control;
    assert_int_equal(polka_control_kind_parse("forgetron", &control), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "forgetron"));
    assert_non_null(strstr(polka_error_message(), "), or a batch regression learner (slkl, krr)"));
    polka_learner_params params = gaussian_params(1.0, POLKA_LOSS_HINGE, POLKA_CONTROL_BSGD_MERGE);
    assert_null(polka_learner_check(&params));
    params.kernel.kind = POLKA_KERNEL_LAPLACIAN;
    assert_non_null(polka_learner_check(&params)); /* merging needs the Gaussian kernel */
    params = gaussian_params(1.0, POLKA_LOSS_HINGE, POLKA_CONTROL_NORMA);
    params.tau = 0;
    assert_non_null(polka_learner_check(&params));
    params = gaussian_params(1.0, POLKA_LOSS_HINGE, POLKA_CONTROL_BSGD_REMOVE);
    params.schedule = POLKA_SCHEDULE_PEGASOS;
    params.lambda = 0.0;
    assert_non_null(polka_learner_check(&params));
    params.lambda = 10.0; /* η λ ≥ 1 is fine under Pegasos, η is not used */
    assert_null(polka_learner_check(&params));
    params.suffix = 0.5;
    assert_non_null(polka_learner_check(&params)); /* needs the horizon */
    params.horizon = 100;
    assert_null(polka_learner_check(&params));
    params.budget = 0;
    assert_non_null(polka_learner_check(&params));
    /* the zero-initialised new fields of an old caller keep komp valid */
    polka_learner_params old = {.kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 1},
                                .loss = {.kind = POLKA_LOSS_MULTI_HINGE},
                                .eta = 0.5,
                                .lambda = 1e-4,
                                .kp = 0.04,
                                .epsilon = -1};
    assert_null(polka_learner_check(&old));
    assert_true(close_rel(polka_learner_step_size(&old, 7), 0.5, 0));
    old.schedule = POLKA_SCHEDULE_INVSQRT;
    /* η/√4: a square root and a quotient, correctly rounded, of exact results: exact */
    assert_true(polka_learner_step_size(&old, 4) == 0.25);
    old.schedule = POLKA_SCHEDULE_PEGASOS;
    /* 1/(λ·10) with λ = fl(1e-4): three roundings */
    assert_true(close_rel(polka_learner_step_size(&old, 10), 1e3, test_gamma(3)));
}

/* Gradients of the new losses against finite differences, and the soft margin's kink. */
static void test_new_losses(void **state) {
    (void)state;
    polka_loss huber = {.kind = POLKA_LOSS_HUBER, .delta = 0.7};
    polka_loss margin = {.kind = POLKA_LOSS_SOFT_MARGIN, .rho = 0.5};
    polka_loss novelty = {.kind = POLKA_LOSS_NOVELTY, .rho = 0.3};
    const double points[] = {-2.1, -0.9, -0.2, 0.1, 0.45, 1.3, 2.4}, y = 0.25, h = 0x1p-10;
    for (size_t k = 0; k < sizeof points / sizeof *points; k++) {
        double f = points[k], g = 0.0, r = fabs(f - y) + h;
        /* no kink of ∂²ℓ (|f − y| = δ) within h: the pieces are quadratic or linear, where a
         * central difference has no truncation error */
        assert_true(fabs(fabs(f - y) - huber.delta) > 2 * h);
        polka_loss_eval(&huber, &f, 1, y, &g);
        double fp = f + h, fm = f - h;
        double lp = polka_loss_eval(&huber, &fp, 1, y, NULL);
        double lm = polka_loss_eval(&huber, &fm, 1, y, NULL);
        double numeric = (lp - lm) / (2 * h);
        /* each value within γ_4(|r| + δ/2 + r²/2δ) (r = f − y, then r·r/δ/2 or |r| − δ/2), the
         * steps f ± h within u(|f| + h) (|∂ℓ| ≤ 1), the difference and the gradient round too */
        double eta = test_gamma(4) * (r + huber.delta / 2 + r * r / (2 * huber.delta)) +
                     TEST_UNIT * (fabs(f) + h) + TEST_UNIT * (fabs(lp) + fabs(lm)) / 2;
        assert_true(fabs(g - numeric) <=
                    test_fd1_bound(h, 0.0, eta) + test_gamma(2) * (fabs(numeric) + fabs(g)));
        polka_loss_eval(&margin, &f, 1, 1.0, &g); /* y = +1 */
        assert_true(g == (f <= 0.5 ? -1.0 : 0.0));
        polka_loss_eval(&novelty, &f, 1, 0.0, &g);
        assert_true(g == (f < 0.3 ? -1.0 : 0.0));
        assert_true(polka_loss_predict(&novelty, &f, 1) == (f < 0.3 ? 1.0 : 0.0));
    }
    double at_kink = 0.5, g = 0.0;
    assert_true(polka_loss_eval(&margin, &at_kink, 1, 0.0, &g) > 0); /* y = −1: 0.5 + 0.5 */
    double zero = 0.0;
    polka_loss perceptron = {.kind = POLKA_LOSS_SOFT_MARGIN, .rho = 0.0};
    assert_true(polka_loss_eval(&perceptron, &zero, 1, 1.0, &g) == 0.0);
    assert_true(g == -1.0); /* y f = 0 ≤ ρ: a mistake, the perceptron updates */
    assert_null(polka_loss_check(&margin, 2));
    assert_non_null(polka_loss_check(&margin, 3));
    assert_null(polka_loss_check(&novelty, 0));
    assert_null(polka_loss_check(&novelty, 5));
    polka_loss bad = {.kind = POLKA_LOSS_HUBER};
    assert_non_null(polka_loss_check(&bad, 0));
}

static void test_checkerboard_stream(void **state) {
    (void)state;
    polka_checkerboard_params cp = {.board = 4, .seed = 3};
    polka_checkerboard *gen = NULL, *scaled = NULL;
    CHECK_OK(polka_checkerboard_create(&cp, &gen));
    cp.side = 1.0;
    CHECK_OK(polka_checkerboard_create(&cp, &scaled));
    size_t ones = 0, n = 4000;
    for (uint64_t i = 0; i < n; i++) {
        double x[2], y, again[2], ya, s[2], ys;
        polka_checkerboard_sample(gen, POLKA_STREAM_TRAIN, i, x, &y);
        polka_checkerboard_sample(gen, POLKA_STREAM_TRAIN, i, again, &ya);
        polka_checkerboard_sample(scaled, POLKA_STREAM_TRAIN, i, s, &ys);
        assert_true(x[0] == again[0] && x[1] == again[1] && y == ya);
        assert_true(x[0] >= 0 && x[0] < 4 && x[1] >= 0 && x[1] < 4);
        assert_true(y == (double)(((int)x[0] + (int)x[1]) % 2));
        /* cells 4/4 and 1/4 are exact, and so is scaling by a power of two: the same bits */
        assert_true(ys == y && s[0] == x[0] / 4);
        ones += y == 1.0;
    }
    assert_true(fabs((double)ones / (double)n - 0.5) < 0.04);
    cp.board = 0;
    polka_checkerboard *bad = NULL;
    assert_int_equal(polka_checkerboard_create(&cp, &bad), POLKA_ERR_ARG);
    polka_checkerboard_free(&gen);
    polka_checkerboard_free(&scaled);
    assert_null(gen);
}

/*
 * NORMA with ρ = λ = 0 and constant η is the kernel perceptron ([KSW04] §III-A): the
 * reference updates a plain expansion by ±η on every mistake y f ≤ 0.
 */
static void test_norma_is_the_perceptron(void **state) {
    (void)state;
    polka_dataset data = checkerboard_data(2, 600, POLKA_STREAM_TRAIN);
    polka_learner_params params = gaussian_params(0.5, POLKA_LOSS_SOFT_MARGIN, POLKA_CONTROL_NORMA);
    params.loss.rho = 0.0;
    params.lambda = 0.0;
    params.eta = 0.3;
    params.tau = 100000;
    polka_learner *norma = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &norma));
    polka_model *perceptron = NULL;
    CHECK_OK(polka_model_create(&params.kernel, 2, 1, &perceptron));
    size_t mistakes = 0;
    for (size_t i = 0; i < data.n; i++) {
        const double *x = data.x + 2 * i;
        double y = data.y[i] > 0.5 ? 1.0 : -1.0, f_ref = 0.0, f = 0.0;
        CHECK_OK(polka_model_eval(perceptron, x, 1, &f_ref));
        CHECK_OK(polka_learner_predict(norma, x, 1, &f));
        assert_true(f == f_ref); /* bitwise */
        if (y * f_ref <= 0) {
            double w = params.eta * y;
            CHECK_OK(polka_model_append(perceptron, x, 1, &w));
            mistakes++;
        }
        CHECK_OK(polka_learner_step(norma, x, data.y + i, 1, NULL));
    }
    const polka_model *model = polka_learner_model(norma);
    assert_int_equal(polka_model_order(model), mistakes);
    assert_true(mistakes > 10 && mistakes < data.n / 2);
    assert_memory_equal(polka_model_dictionary(model), polka_model_dictionary(perceptron),
                        2 * mistakes * sizeof(double));
    assert_memory_equal(polka_model_weights(model), polka_model_weights(perceptron),
                        mistakes * sizeof(double));
    polka_model_free(&perceptron);
    polka_learner_free(&norma);
    polka_dataset_free(&data);
}

/*
 * Proposition 1 of [KSW04]: with |ℓ'| ≤ C and ‖k(x,·)‖ ≤ X, dropping the terms older than
 * τ steps costs ‖f − f_trunc‖_H ≤ Σ_{a≥τ} η(1 − ηλ)^a C X = (1 − ηλ)^τ C X / λ. Two NORMA
 * learners get the same coefficient rows (from the untruncated one's soft-margin loss):
 * the truncated one must stay within the bound of the untruncated one at every step.
 */
static void test_norma_truncation_bound(void **state) {
    (void)state;
    polka_dataset data = checkerboard_data(2, 400, POLKA_STREAM_TRAIN);
    polka_learner_params params = gaussian_params(0.4, POLKA_LOSS_SOFT_MARGIN, POLKA_CONTROL_NORMA);
    params.eta = 0.5;
    params.lambda = 0.1;
    params.tau = 100000;
    polka_learner *full = NULL, *truncated = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &full));
    params.tau = 40;
    CHECK_OK(polka_learner_create(&params, 2, 2, &truncated));
    double bound = pow(1.0 - params.eta * params.lambda, (double)params.tau) / params.lambda;
    double worst = 0.0, e = 0.0;
    for (size_t i = 0; i < data.n; i++)
        for (size_t j = 0; j < data.n; j++)
            e = fmax(e, test_gauss_rel(params.kernel.sigma, data.x + 2 * i, data.x + 2 * j, 2));
    for (size_t i = 0; i < data.n; i++) {
        const double *x = data.x + 2 * i;
        double f = 0.0, g = 0.0;
        CHECK_OK(polka_learner_predict(full, x, 1, &f));
        polka_learner_loss_grad(full, &f, data.y + i, 1, &g);
        if (g == 0.0) g = 0.5 * (i % 2 ? 1.0 : -1.0); /* keep every term: the tail is longest */
        CHECK_OK(polka_learner_update(full, x, 1, &g));
        CHECK_OK(polka_learner_update(truncated, x, 1, &g));
        double sqdist = 0.0, sum = 0.0;
        const polka_model *fm = polka_learner_model(full), *tm = polka_learner_model(truncated);
        CHECK_OK(polka_model_sqdistance(fm, tm, &sqdist));
        double distance = sqrt(fmax(sqdist, 0.0)); /* rounding: ~−1e-16 when equal */
        worst = fmax(worst, distance);
        /*
         * The shared terms are the same bits (below), so the difference is the dropped terms:
         * their computed weights are within γ_{3i+4} of η|g|(1 − ηλ)^a (each step's factor
         * 1 − ηλ two roundings, the fold one), |g| ≤ C = 1, and the bound's own rounding
         * γ_{2τ+4} (the factor to the τ). polka_model_sqdistance is wᵀK̂w of the M' = m + τ
         * terms of both within γ_{2M'} (dgemm, ddot [Higham02 §3.5]) of Σ|w_i||w_j|K̂_ij
         * ≤ (Σ|w|)²(1 + e), on values within e of k: squared, within
         * (bound·(1 + γ_{2τ+3i+8}))² + (γ_{2M'} + e)(1 + e)(Σ|w|)².
         */
        for (size_t j = 0; j < polka_model_order(fm); j++) sum += fabs(polka_model_weights(fm)[j]);
        for (size_t j = 0; j < polka_model_order(tm); j++) sum += fabs(polka_model_weights(tm)[j]);
        double mm = (double)(polka_model_order(fm) + polka_model_order(tm));
        double b = bound * (1 + test_gamma(2.0 * params.tau + 3.0 * i + 8));
        double slack = (test_gamma(2 * mm) + e) * (1 + e) * sum * sum;
        if (!(sqdist <= b * b * (1 + test_gamma(2)) + slack))
            fail_msg("step %zu: distance %.6g > bound %.6g", i, distance, bound);
        assert_true(polka_model_order(polka_learner_model(truncated)) <= params.tau);
    }
    /* the truncated expansion is exactly the newest τ terms of the full one */
    const polka_model *a = polka_learner_model(full), *b = polka_learner_model(truncated);
    size_t skip = polka_model_order(a) - params.tau;
    assert_memory_equal(polka_model_dictionary(b), polka_model_dictionary(a) + 2 * skip,
                        2 * params.tau * sizeof(double));
    /* and its weights the same bits: the same rows through the same scale and folds */
    assert_memory_equal(polka_model_weights(b), polka_model_weights(a) + skip,
                        params.tau * sizeof(double));
    print_message("truncation: worst ‖f − f_trunc‖ = %.4g, bound %.4g\n", worst, bound);
    assert_true(worst > 0.01 * bound); /* the test is not vacuous */
    polka_learner_free(&full);
    polka_learner_free(&truncated);
    polka_dataset_free(&data);
}

/* rows × C coefficients uniform in [−1, 1] from stream seed. */
static void random_rows(double *x, double *g, size_t rows, size_t c, uint64_t seed) {
    fill_uniform(x, 2 * rows, -1.5, 1.5, seed);
    fill_uniform(g, c * rows, -1.0, 1.0, seed + 7777);
}

/*
 * NORMA's rescaled weights (one global scale, folded below 1e-100) against the exact
 * iterate: plain SGD (eager scaling) fed the same rows, with ηλ = 0.4 so that the scale
 * underflows several times. Batches of 1–3 rows, divisor 2, as the penalty step uses them.
 * Both use the same factors (the same bits): a weight from step j at step t is the row times
 * Π f_l, eagerly within γ_{t+2} (one rounding a step), scaled within γ_{2t+F+6} (the row over
 * the scale of step j, times that of step t, each a product since the last of F ≤ t folds):
 * the two within γ_{5T+10} of each other. The predictions add two sums of the same kernel
 * values, γ_{2m+2} of Σ_j K̂_j|w_j| ≤ (1 + e)·Σ_j k_j|w_j|.
 */
static void check_scaled_norma(polka_schedule_kind schedule) {
    enum { C = 3, T = 700, TESTS = 25 };
    polka_learner_params params = gaussian_params(0.7, POLKA_LOSS_MULTI_HINGE, POLKA_CONTROL_NORMA);
    params.eta = 0.8;
    params.lambda = 0.5;
    params.tau = 100000;
    params.schedule = schedule;
    polka_learner *norma = NULL, *exact = NULL;
    CHECK_OK(polka_learner_create(&params, 2, C, &norma));
    params.control = POLKA_CONTROL_NONE;
    CHECK_OK(polka_learner_create(&params, 2, C, &exact));
    double test_x[TESTS * 2], fa[TESTS * C], fb[TESTS * C];
    fill_uniform(test_x, TESTS * 2, -1.5, 1.5, 4242);
    for (uint64_t t = 0; t < T; t++) {
        double x[3 * 2], g[3 * C];
        size_t rows = 1 + t % 3;
        random_rows(x, g, rows, C, 100 + t);
        CHECK_OK(polka_learner_update_batch(norma, x, rows, g, 2.0));
        CHECK_OK(polka_learner_update_batch(exact, x, rows, g, 2.0));
        if (t % 50 != 49) continue;
        CHECK_OK(polka_learner_predict(norma, test_x, TESTS, fa));
        CHECK_OK(polka_learner_predict(exact, test_x, TESTS, fb));
        double terms[TESTS * C], e = 0.0;
        const polka_model *eager = polka_learner_model(exact); /* eager: nothing to fold */
        abs_terms(eager, NULL, test_x, TESTS, terms, &e);
        double gamma = test_gamma(5.0 * T + 2.0 * polka_model_order(eager) + 12);
        for (size_t k = 0; k < TESTS * C; k++)
            if (fabs(fa[k] - fb[k]) > gamma * (1 + e) * terms[k])
                fail_msg("t %llu: scaled %.17g, exact %.17g", (unsigned long long)t, fa[k], fb[k]);
    }
    /* the model readers see holds the true weights */
    const polka_model *a = polka_learner_model(norma), *b = polka_learner_model(exact);
    assert_int_equal(polka_model_order(a), polka_model_order(b));
    const double *wa = polka_model_weights(a), *wb = polka_model_weights(b);
    size_t m = polka_model_order(a);
    for (size_t k = m * C - 50 * C; k < m * C; k++) /* one more rounding: the fold */
        assert_true(fabs(wa[k] - wb[k]) <= test_gamma(5.0 * T + 11) * fabs(wb[k]));
    polka_learner_free(&norma);
    polka_learner_free(&exact);
}

static void test_norma_scaled_weights_are_exact(void **state) {
    (void)state;
    check_scaled_norma(POLKA_SCHEDULE_CONSTANT);
    check_scaled_norma(POLKA_SCHEDULE_INVSQRT);
}

/* Novelty detection with the ν-trick flags and stores about a fraction ν of the points. */
static void test_novelty_stores_fraction_nu(void **state) {
    (void)state;
    enum { T = 3000 };
    polka_learner_params params = gaussian_params(0.5, POLKA_LOSS_NOVELTY, POLKA_CONTROL_NORMA);
    params.eta = 0.1;
    params.lambda = 0.1;
    params.lambda = 0.01;
    params.tau = 100000;
    params.nu = 0.1;
    params.loss.rho = 0.0;
    polka_learner *learner = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 0, &learner));
    polka_rng rng = polka_rng_start(5, 1, 0);
    size_t flagged = 0;
    for (size_t t = 0; t < T; t++) {
        double x[2] = {polka_rng_normal(&rng), polka_rng_normal(&rng)}, y = 0.0, f = 0.0;
        CHECK_OK(polka_learner_predict(learner, x, 1, &f));
        flagged += f < polka_learner_rho(learner);
        CHECK_OK(polka_learner_step(learner, x, &y, 1, NULL));
    }
    double stored = (double)polka_model_order(polka_learner_model(learner)) / T;
    print_message("novelty: flagged %.4f, stored %.4f, rho %.4f\n", (double)flagged / T, stored,
                  polka_learner_rho(learner));
    assert_int_equal(polka_model_order(polka_learner_model(learner)), flagged);
    assert_true(fabs(stored - params.nu) <= 0.03);
    /* the novel points are the outlying ones: far from the blob is novel, its centre not */
    double centre[2] = {0, 0}, far[2] = {4, 4}, fc = 0, ff = 0;
    CHECK_OK(polka_learner_predict(learner, centre, 1, &fc));
    CHECK_OK(polka_learner_predict(learner, far, 1, &ff));
    assert_true(fc > polka_learner_rho(learner) && ff < polka_learner_rho(learner));
    polka_learner_free(&learner);
}

/*
 * ν-classification and ν-regression: at equilibrium of the ρ (ε) steps the fraction of
 * margin errors (points outside the tube) is ν; the offset b is learned alongside.
 */
static void test_nu_trick_classification_and_regression(void **state) {
    (void)state;
    enum { T = 4000 };
    polka_dataset data = checkerboard_data(2, T, POLKA_STREAM_TRAIN);
    polka_learner_params params = gaussian_params(0.5, POLKA_LOSS_SOFT_MARGIN, POLKA_CONTROL_NORMA);
    params.eta = 0.2;
    params.lambda = 0.05;
    params.tau = 400;
    params.nu = 0.4;
    params.offset = 1;
    polka_learner *learner = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &learner));
    size_t errors = 0;
    double largest_offset = 0.0;
    for (size_t i = 0; i < T; i++) {
        double f = 0.0, y = data.y[i] > 0.5 ? 1.0 : -1.0, rho = polka_learner_rho(learner);
        largest_offset = fmax(largest_offset, fabs(polka_learner_offset(learner)[0]));
        CHECK_OK(polka_learner_predict(learner, data.x + 2 * i, 1, &f));
        errors += y * f <= rho;
        CHECK_OK(polka_learner_step(learner, data.x + 2 * i, data.y + i, 1, NULL));
    }
    print_message("nu-classification: margin errors %.3f, rho %.3f, max |b| %.3f\n",
                  (double)errors / T, polka_learner_rho(learner), largest_offset);
    assert_true(fabs((double)errors / T - params.nu) < 0.04);
    assert_true(polka_learner_rho(learner) > 0);
    assert_true(largest_offset > 0.1); /* b moves by η σ y ([KSW04] §III-A) */
    polka_learner_free(&learner);

    params = gaussian_params(0.5, POLKA_LOSS_EPS_INSENSITIVE, POLKA_CONTROL_NORMA);
    params.eta = 0.1;
    params.lambda = 0.01;
    params.tau = 500;
    params.nu = 0.2;
    params.loss.epsilon = 0.5;
    CHECK_OK(polka_learner_create(&params, 1, 0, &learner));
    polka_rng rng = polka_rng_start(8, 1, 0);
    size_t outside = 0;
    for (size_t i = 0; i < T; i++) {
        double x = 3.0 * polka_rng_uniform(&rng), f = 0.0;
        double y = sin(2.0 * x) + 0.2 * polka_rng_normal(&rng), tube = polka_learner_tube(learner);
        CHECK_OK(polka_learner_predict(learner, &x, 1, &f));
        outside += fabs(y - f) > tube;
        CHECK_OK(polka_learner_step(learner, &x, &y, 1, NULL));
    }
    print_message("nu-regression: outside %.3f, eps %.3f\n", (double)outside / T,
                  polka_learner_tube(learner));
    assert_true(fabs((double)outside / T - params.nu) < 0.04);
    assert_true(polka_learner_tube(learner) > 0.05 && polka_learner_tube(learner) < 0.5);
    polka_learner_free(&learner);
    polka_dataset_free(&data);
}

static polka_learner_params bsgd_params(polka_control_kind control, size_t budget) {
    polka_learner_params params = gaussian_params(0.3, POLKA_LOSS_HINGE, control);
    params.schedule = POLKA_SCHEDULE_PEGASOS;
    params.lambda = 1e-3;
    params.budget = budget;
    return params;
}

/* BSGD never holds more than B points, whatever the maintenance and the rows per update. */
static void test_bsgd_never_exceeds_budget(void **state) {
    (void)state;
    enum { B = 25 };
    polka_dataset data = checkerboard_data(2, 1500, POLKA_STREAM_TRAIN);
    const polka_control_kind kinds[] = {POLKA_CONTROL_BSGD_REMOVE, POLKA_CONTROL_BSGD_PROJECT,
                                        POLKA_CONTROL_BSGD_PROJECT, POLKA_CONTROL_BSGD_MERGE};
    for (size_t k = 0; k < 4; k++) {
        polka_learner_params params = bsgd_params(kinds[k], B);
        params.neighbours = k == 2 ? 4 : 0;
        polka_learner *learner = NULL;
        CHECK_OK(polka_learner_create(&params, 2, 2, &learner));
        size_t maintained = 0;
        for (size_t i = 0; i < data.n; i++) {
            CHECK_OK(polka_learner_step(learner, data.x + 2 * i, data.y + i, 1, NULL));
            assert_true(polka_model_order(polka_learner_model(learner)) <= B);
            maintained += polka_learner_last_stats(learner).removed;
        }
        for (uint64_t t = 0; t < 100; t++) { /* several rows at once, as the penalty step */
            double x[7 * 2], g[7];
            random_rows(x, g, 7, 1, 300 + t);
            CHECK_OK(polka_learner_update_batch(learner, x, 7, g, 1.0));
            assert_true(polka_model_order(polka_learner_model(learner)) <= B);
        }
        assert_int_equal(polka_model_order(polka_learner_model(learner)), B);
        assert_true(maintained > 100);
        polka_learner_free(&learner);
    }
    polka_dataset_free(&data);
}

/* Merging keeps the accuracy of unbudgeted Pegasos on a small XOR board; removal does not. */
static void test_bsgd_merge_keeps_accuracy(void **state) {
    (void)state;
    polka_dataset data = checkerboard_data(2, 5000, POLKA_STREAM_TRAIN);
    polka_dataset test = checkerboard_data(2, 2000, POLKA_STREAM_TEST);
    polka_learner_params params = bsgd_params(POLKA_CONTROL_NBSGD_REMOVE, 1);
    params.beta = 0.0; /* never maintained: plain kernel Pegasos */
    polka_learner *full = NULL, *merge = NULL, *removal = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &full));
    params = bsgd_params(POLKA_CONTROL_BSGD_MERGE, 12);
    CHECK_OK(polka_learner_create(&params, 2, 2, &merge));
    params.control = POLKA_CONTROL_BSGD_REMOVE;
    CHECK_OK(polka_learner_create(&params, 2, 2, &removal));
    train(full, &data);
    train(merge, &data);
    train(removal, &data);
    double a_full = accuracy(full, &test), a_merge = accuracy(merge, &test);
    double a_removal = accuracy(removal, &test);
    print_message("XOR: pegasos %.4f (%zu points), merge %.4f, removal %.4f (B = 12)\n", a_full,
                  polka_model_order(polka_learner_model(full)), a_merge, a_removal);
    assert_true(a_full > 0.93);
    assert_true(a_merge > a_full - 0.02);
    assert_true(a_removal < a_merge); /* BSGD paper: merging beats removal */
    assert_true(polka_model_order(polka_learner_model(full)) > 10 * 12);
    polka_learner_free(&full);
    polka_learner_free(&merge);
    polka_learner_free(&removal);
    polka_dataset_free(&data);
    polka_dataset_free(&test);
}

static size_t nbsgd_order(double beta, uint64_t seed, const polka_dataset *data,
                          polka_model **copy) {
    polka_learner_params params = bsgd_params(POLKA_CONTROL_NBSGD_REMOVE, 10);
    params.beta = beta;
    params.seed = seed;
    polka_learner *learner = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &learner));
    train(learner, data);
    size_t order = polka_model_order(polka_learner_model(learner));
    if (copy) CHECK_OK(polka_model_clone(polka_learner_model(learner), copy));
    polka_learner_free(&learner);
    return order;
}

/* NBSGD's model grows as β falls ([LNNP16] Remark 9, Fig. 2), reproducibly from its seed. */
static void test_nbsgd_order_grows_as_beta_falls(void **state) {
    (void)state;
    polka_dataset data = checkerboard_data(4, 3000, POLKA_STREAM_TRAIN);
    const double betas[] = {30000, 3000, 300, 30, 3, 0};
    size_t previous = 0;
    for (size_t k = 0; k < sizeof betas / sizeof *betas; k++) {
        size_t order = nbsgd_order(betas[k], 1, &data, NULL);
        print_message("beta %g: order %zu\n", betas[k], order);
        if (k == 0) assert_int_equal(order, 10); /* β ≥ T: always maintained, BSGD */
        assert_true(order >= previous);
        previous = order;
    }
    assert_true(previous > 100);
    polka_model *a = NULL, *b = NULL;
    nbsgd_order(100, 9, &data, &a);
    nbsgd_order(100, 9, &data, &b);
    assert_int_equal(polka_model_order(a), polka_model_order(b));
    assert_memory_equal(polka_model_weights(a), polka_model_weights(b),
                        polka_model_order(a) * sizeof(double));
    polka_model_free(&a);
    polka_model_free(&b);
    polka_dataset_free(&data);
}

/*
 * NBSGD and BSGD with the square loss and λ ≤ 1 keep the iterate in the ball of radius
 * y_max/√λ ([LNNP16], Alg. 2–3): the first Pegasos steps (η_t = 1/(λt)) would leave it,
 * so the projection is active, and after every step ‖w‖_H ≤ y_max/√λ. The norm is
 * ŝ = wᵀK̂w by polka_model_sqnorm, within γ_{2m} of A = Σ|w_i||w_j|K̂_ij (dgemm, ddot
 * [Higham02 §3.5]) on the same K̂ each time; an iterate left alone gives this test the
 * library's bits, and the same radius. A projection scales w by R/√ŝ (three roundings a
 * weight, γ_6 of A in the form), so the next ŝ is within R²(1 ± γ_{4m+13}·A/ŝ) of R², with
 * A ≤ (1 + e)·Σ|w_i||w_j|k_ij: √ŝ within R(1 ± γ_{4m+13}·ρ/2) and the quotient's, γ_3.
 */
static void test_square_loss_iterate_stays_in_ball(void **state) {
    (void)state;
    const polka_control_kind kinds[] = {POLKA_CONTROL_NBSGD_REMOVE, POLKA_CONTROL_BSGD_MERGE};
    for (size_t k = 0; k < 2; k++) {
        polka_learner_params params = gaussian_params(0.5, POLKA_LOSS_SQUARE, kinds[k]);
        params.schedule = POLKA_SCHEDULE_PEGASOS;
        params.lambda = 0.05;
        params.budget = 20;
        params.beta = 50;
        polka_learner *learner = NULL;
        CHECK_OK(polka_learner_create(&params, 1, 0, &learner));
        polka_rng rng = polka_rng_start(21, 1, 0);
        double y_max = 0.0, largest_ratio = 0.0;
        int reached = 0;
        for (size_t i = 0; i < 400; i++) {
            double x = 3.0 * polka_rng_uniform(&rng);
            double y = sin(2.0 * x) + 0.3 * polka_rng_normal(&rng);
            y_max = fmax(y_max, fabs(y));
            CHECK_OK(polka_learner_step(learner, &x, &y, 1, NULL));
            double sqnorm = 0.0, radius = y_max / sqrt(params.lambda);
            const polka_model *model = polka_learner_model(learner);
            CHECK_OK(polka_model_sqnorm(model, &sqnorm));
            size_t m = polka_model_order(model);
            const double *d = polka_model_dictionary(model), *w = polka_model_weights(model);
            double form = 0.0, e = 0.0;
            for (size_t a = 0; a < m; a++)
                for (size_t b = 0; b < m; b++) {
                    form += fabs(w[a] * w[b]) * polka_kernel_eval(&params.kernel, d + a, d + b, 1);
                    e = fmax(e, test_gauss_rel(params.kernel.sigma, d + a, d + b, 1));
                }
            double slack = test_gamma(4.0 * m + 13) * (1 + e) * form / sqnorm / 2 + test_gamma(3);
            assert_true(sqrt(sqnorm) <= radius * (1 + slack));
            largest_ratio = fmax(largest_ratio, sqrt(sqnorm) / radius);
            reached |= sqrt(sqnorm) >= radius * (1 - slack);
        }
        print_message("control %d: largest ||w|| / (y_max / sqrt(lambda)) = %.12f\n", (int)kinds[k],
                      largest_ratio);
        assert_true(reached); /* the ball was reached: the projection acted */
        polka_learner_free(&learner);
    }
}

/*
 * The γ-suffix average equals the mean of the iterates of the suffix, point by point. Over A
 * iterates of at most M terms: the mean of the predictions rounds each (dgemm and the
 * offset, γ_{M+1}), their sum (γ_A) and the quotient; the average sums each weight and the
 * offset (γ_A), scales them by fl(1/A) (γ_2) and evaluates (γ_M'); the kernel values are
 * within e on either side: within (2γ_{A+M+3} + 2e)·S with S the mean over the iterates of
 * Σ_j k_j|w_j| + |b| (≥ the average's own Σ_j k_j|w̄_j| + |b̄|).
 */
static void test_suffix_average_is_mean_of_iterates(void **state) {
    (void)state;
    enum { T = 400, TESTS = 30 };
    polka_dataset data = checkerboard_data(2, T, POLKA_STREAM_TRAIN);
    polka_learner_params params = bsgd_params(POLKA_CONTROL_NBSGD_PROJECT, 15);
    params.beta = 100;
    params.neighbours = 3;
    params.suffix = 0.25;
    params.horizon = T;
    params.offset = 1;
    polka_learner *learner = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &learner));
    double test_x[TESTS * 2], f[TESTS], mean[TESTS] = {0}, average[TESTS];
    double terms[TESTS], scale[TESTS] = {0}, e = 0.0;
    fill_uniform(test_x, TESTS * 2, 0, 2, 17);
    size_t averaged = 0, most = 0;
    for (size_t t = 1; t <= T; t++) {
        CHECK_OK(polka_learner_step(learner, data.x + 2 * (t - 1), data.y + t - 1, 1, NULL));
        if (t <= T - T / 4) continue;
        CHECK_OK(polka_learner_predict(learner, test_x, TESTS, f));
        for (size_t i = 0; i < TESTS; i++) mean[i] += f[i];
        averaged++;
        const polka_model *model = polka_learner_model(learner); /* eager: nothing to fold */
        abs_terms(model, polka_learner_offset(learner), test_x, TESTS, terms, &e);
        for (size_t i = 0; i < TESTS; i++) scale[i] += terms[i];
        most = polka_model_order(model) > most ? polka_model_order(model) : most;
    }
    CHECK_OK(polka_learner_predict_output(learner, test_x, TESTS, average));
    const polka_model *output = NULL;
    CHECK_OK(polka_learner_output_model(learner, &output));
    for (size_t j = 0; j < polka_model_order(output); j++)
        for (size_t i = 0; i < TESTS; i++)
            e = fmax(e, test_gauss_rel(params.kernel.sigma, test_x + 2 * i,
                                       polka_model_dictionary(output) + 2 * j, 2));
    most = polka_model_order(output) > most ? polka_model_order(output) : most;
    double gamma = 2 * test_gamma((double)(averaged + most) + 3) + 2 * e;
    for (size_t i = 0; i < TESTS; i++)
        assert_true(fabs(average[i] - mean[i] / (double)averaged) <=
                    gamma * scale[i] / (double)averaged);
    assert_true(polka_model_order(output) > polka_model_order(polka_learner_model(learner)));
    polka_learner_free(&learner);
    polka_dataset_free(&data);
}

/*
 * Every control through update_batch with several arbitrary rows and a divisor apart from
 * their number (the decentralized step): the bounds hold, the model readers see predicts
 * what the learner predicts, and the symmetric case of zero rows stores nothing.
 */
static void test_every_control_through_update_batch(void **state) {
    (void)state;
    enum { C = 3, TESTS = 20 };
    double test_x[TESTS * 2], fa[TESTS * C], fb[TESTS * C];
    fill_uniform(test_x, TESTS * 2, -1.5, 1.5, 99);
    for (int k = 0; k < POLKA_CONTROL_COUNT; k++) { /* every online control of the table */
        if (polka_control_is_batch((polka_control_kind)k)) continue;
        polka_learner_params params =
            gaussian_params(0.6, POLKA_LOSS_MULTI_HINGE, (polka_control_kind)k);
        params.tau = 30;
        params.budget = 30;
        params.beta = 50;
        params.neighbours = k == POLKA_CONTROL_NBSGD_PROJECT ? 5 : 0;
        params.lambda = 0.01;
        params.offset = k % 2; /* every other control also learns an offset */
        polka_learner *learner = NULL;
        CHECK_OK(polka_learner_create(&params, 2, C, &learner));
        for (uint64_t t = 0; t < 150; t++) {
            double x[4 * 2], g[4 * C];
            size_t rows = 1 + t % 4;
            random_rows(x, g, rows, C, 1000 + t);
            CHECK_OK(polka_learner_update_batch(learner, x, rows, g, 2.0));
            size_t order = polka_model_order(polka_learner_model(learner));
            if (k == POLKA_CONTROL_NORMA) assert_true(order <= params.tau);
            if (k >= POLKA_CONTROL_BSGD_REMOVE && k <= POLKA_CONTROL_BSGD_MERGE)
                assert_true(order <= params.budget);
        }
        CHECK_OK(polka_learner_predict(learner, test_x, TESTS, fa));
        CHECK_OK(polka_model_eval(polka_learner_model(learner), test_x, TESTS, fb));
        const double *b = polka_learner_offset(learner);
        /* two sums of the m terms (and the offset; NORMA's scale: a product each side), kernel
         * values within e each: within (2γ_{m+3} + 2e)(Σ_j k_j|w_j| + |b|) */
        double terms[TESTS * C], e = 0.0;
        abs_terms(polka_learner_model(learner), b, test_x, TESTS, terms, &e);
        double gamma =
            2 * test_gamma(polka_model_order(polka_learner_model(learner)) + 3.0) + 2 * e;
        for (size_t r = 0; r < TESTS * C; r++) {
            assert_true(isfinite(fa[r]));
            assert_true(fabs(fa[r] - (fb[r] + b[r % C])) <= gamma * terms[r]);
            if (params.offset == 0) assert_true(b[r % C] == 0.0);
        }
        if (k != POLKA_CONTROL_KOMP && k != POLKA_CONTROL_NONE) {
            size_t before = polka_model_order(polka_learner_model(learner));
            double x[2 * 2] = {0.1, 0.2, 0.3, 0.4}, zero[2 * C] = {0};
            CHECK_OK(polka_learner_update_batch(learner, x, 2, zero, 1.0));
            assert_true(polka_model_order(polka_learner_model(learner)) <= before);
        }
        assert_int_equal(polka_learner_steps(learner),
                         150 + (k != POLKA_CONTROL_KOMP && k != POLKA_CONTROL_NONE));
        polka_learner_free(&learner);
    }
}

/* The linear schedule falls from η to η/T over the run's T updates and stays there. */
static void test_linear_schedule(void **state) {
    (void)state;
    polka_learner_params params = polka_learner_defaults();
    params.schedule = POLKA_SCHEDULE_LINEAR;
    params.eta = 0.8;
    params.horizon = 10;
    assert_true(polka_learner_step_size(&params, 1) == 0.8);
    /* 0.8·(1 − 5/10): 5/10 and 1 − 0.5 exact, fl(0.8)/2 = fl(0.4): exact */
    assert_true(polka_learner_step_size(&params, 6) == 0.4);
    /* 0.8·fl(1/10) (the floor η/T): fl(0.8), fl(0.1), the product and fl(0.08), γ_4 */
    assert_true(close_rel(polka_learner_step_size(&params, 10), 0.08, test_gamma(4)));
    assert_true(close_rel(polka_learner_step_size(&params, 25), 0.08, test_gamma(4)));
    polka_schedule_kind kind;
    CHECK_OK(polka_schedule_kind_parse("linear", &kind));
    assert_int_equal(kind, POLKA_SCHEDULE_LINEAR);
}

/* Asserts that two learners' models (p inputs, c outputs) are bit for bit the same; their
 * order. */
static size_t same_models(const polka_learner *a, const polka_learner *b, size_t p, size_t c) {
    const polka_model *ma = polka_learner_model(a), *mb = polka_learner_model(b);
    size_t m = polka_model_order(ma);
    assert_int_equal(polka_model_order(mb), m);
    assert_memory_equal(polka_model_dictionary(ma), polka_model_dictionary(mb), m * p * 8);
    assert_memory_equal(polka_model_weights(ma), polka_model_weights(mb), m * c * 8);
    return m;
}

/* One step of a learner that predicts through itself (a) and one that never does (b). */
static void predicted_step(polka_learner *a, polka_learner *b, const double *x, size_t rows,
                           uint64_t t) {
    enum { C = 3 };
    double y[4], fa[4 * C], fb[4 * C], ga[4 * C], gb[4 * C], decoy[3 * 2], fd[3 * C];
    for (size_t r = 0; r < rows; r++) y[r] = (double)((t + r) % C);
    if (t % 4 == 0) { /* unrelated points predicted first: their rows must not be used */
        fill_uniform(decoy, 3 * 2, -1.5, 1.5, 5000 + t);
        CHECK_OK(polka_learner_predict(a, decoy, 3, fd));
    }
    CHECK_OK(polka_learner_predict(a, x, rows, fa));
    if (t % 5 == 0) CHECK_OK(polka_learner_predict(a, x, rows, fa)); /* twice: kept twice */
    CHECK_OK(polka_model_eval(polka_learner_model(b), x, rows, fb));
    assert_memory_equal(fa, fb, rows * C * sizeof *fa);
    polka_learner_loss_grad(a, fa, y, rows, ga);
    polka_learner_loss_grad(b, fb, y, rows, gb);
    if (t % 7 == 0) /* a zero row is not appended: the bordered points are a subset */
        for (size_t k = 0; k < C; k++) ga[k] = gb[k] = 0.0;
    CHECK_OK(polka_learner_update_batch(a, x, rows, ga, (double)rows));
    CHECK_OK(polka_learner_update_batch(b, x, rows, gb, (double)rows));
}

/*
 * KOMP borders a step's points with the kernel rows the learner computed when it predicted
 * at them (learner_rows). A learner that predicts through itself, with decoys, repeats and
 * skipped rows, ends with the very model of one whose rows are all computed afresh.
 */
static void test_komp_reuses_predicted_rows_exactly(void **state) {
    (void)state;
    enum { C = 3, STEPS = 300 };
    polka_learner_params params = gaussian_params(0.6, POLKA_LOSS_MULTI_HINGE, POLKA_CONTROL_KOMP);
    params.kp = 0.02;
    polka_learner *a = NULL, *b = NULL;
    CHECK_OK(polka_learner_create(&params, 2, C, &a));
    CHECK_OK(polka_learner_create(&params, 2, C, &b));
    for (uint64_t t = 0; t < STEPS; t++) {
        double x[4 * 2], unused[4 * C];
        size_t rows = 1 + t % 4;
        random_rows(x, unused, rows, C, 2000 + t);
        predicted_step(a, b, x, rows, t);
    }
    /* KOMP removed points and kept many */
    assert_true(same_models(a, b, 2, C) > 20 && polka_model_order(polka_learner_model(a)) < STEPS);
    polka_learner_free(&a);
    polka_learner_free(&b);
}

/*
 * Points predicted with polka_learner_predict_transient keep no kernel rows; when the update
 * learns from them anyway, KOMP recomputes them, each block of points as it was predicted:
 * 12 points (beyond the thin loop's 8: one dgemm) give the bits they gave then. The learner
 * ends with the very model of one that kept every row.
 */
static void test_transient_rows_are_recomputed_exactly(void **state) {
    (void)state;
    enum { C = 3, OTHERS = 12, ROWS = 1 + OTHERS, STEPS = 200 };
    polka_learner_params params = gaussian_params(0.6, POLKA_LOSS_MULTI_HINGE, POLKA_CONTROL_KOMP);
    params.kp = 0.02;
    polka_learner *kept = NULL, *transient = NULL;
    CHECK_OK(polka_learner_create(&params, 2, C, &kept));
    CHECK_OK(polka_learner_create(&params, 2, C, &transient));
    for (uint64_t t = 0; t < STEPS; t++) {
        double x[ROWS * 2], g[ROWS * C], fa[ROWS * C], fb[ROWS * C], y[ROWS];
        random_rows(x, g, ROWS, C, 7000 + t);
        for (size_t r = 0; r < ROWS; r++) y[r] = (double)((t + r) % C);
        CHECK_OK(polka_learner_predict(kept, x, 1, fa));
        CHECK_OK(polka_learner_predict(transient, x, 1, fb));
        CHECK_OK(polka_learner_predict(kept, x + 2, OTHERS, fa + C));
        CHECK_OK(polka_learner_predict_transient(transient, x + 2, OTHERS, fb + C));
        assert_memory_equal(fa, fb, sizeof fa);
        polka_learner_loss_grad(kept, fa, y, ROWS, g);
        if (t % 7 == 0) memset(g + 5 * C, 0, C * sizeof *g); /* one point not appended */
        CHECK_OK(polka_learner_update_batch(kept, x, ROWS, g, 1.0));
        CHECK_OK(polka_learner_update_batch(transient, x, ROWS, g, 1.0));
    }
    assert_true(same_models(kept, transient, 2, C) > 20);
    polka_learner_free(&kept);
    polka_learner_free(&transient);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_checks),
        cmocka_unit_test(test_new_losses),
        cmocka_unit_test(test_checkerboard_stream),
        cmocka_unit_test(test_norma_is_the_perceptron),
        cmocka_unit_test(test_norma_truncation_bound),
        cmocka_unit_test(test_norma_scaled_weights_are_exact),
        cmocka_unit_test(test_novelty_stores_fraction_nu),
        cmocka_unit_test(test_nu_trick_classification_and_regression),
        cmocka_unit_test(test_bsgd_never_exceeds_budget),
        cmocka_unit_test(test_bsgd_merge_keeps_accuracy),
        cmocka_unit_test(test_nbsgd_order_grows_as_beta_falls),
        cmocka_unit_test(test_square_loss_iterate_stays_in_ball),
        cmocka_unit_test(test_suffix_average_is_mean_of_iterates),
        cmocka_unit_test(test_every_control_through_update_batch),
        cmocka_unit_test(test_komp_reuses_predicted_rows_exactly),
        cmocka_unit_test(test_transient_rows_are_recomputed_exactly),
        cmocka_unit_test(test_linear_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
