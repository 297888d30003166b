/* The final refit (src/core/refit.c) against a brute-force oracle: the least-squares weights
 * on the kept dictionary, the squared-hinge steps that never raise their objective, and the
 * settings it refuses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/kernel.h"
#include "polka/learner.h"
#include "polka/model.h"
#include "test_util.h"

#define N      300 /* training rows */
#define P      2   /* features */
#define C      3   /* classes */
#define PI     3.14159265358979323846
#define LAMBDA 1e-2

/* Three classes: the label is the angular sector of a point uniform on [-1, 1]². */
typedef struct {
    double x[N * P], y[N];
} rows_data;

static void make_rows(rows_data *data) {
    fill_uniform(data->x, N * P, -1.0, 1.0, 7);
    for (size_t i = 0; i < N; i++) {
        double angle = atan2(data->x[i * P + 1], data->x[i * P]) + PI;
        data->y[i] = floor(angle / (2.0 * PI / C));
        if (data->y[i] >= C) data->y[i] = C - 1;
    }
}

static polka_status give_rows(void *context, size_t first, size_t count, double *x, double *y) {
    const rows_data *data = context;
    memcpy(x, data->x + first * P, count * P * sizeof *x);
    memcpy(y, data->y + first, count * sizeof *y);
    return POLKA_OK;
}

/* A POLK learner after one pass over the rows (its dictionary is what the refit keeps). */
static polka_learner *trained(const rows_data *data, polka_loss_kind loss) {
    polka_learner_params params = polka_learner_defaults();
    params.kernel.sigma = 0.5;
    params.loss.kind = loss;
    params.kp = 0.1;
    polka_learner *learner = NULL;
    CHECK_OK(polka_learner_create(&params, P, C, &learner));
    for (size_t i = 0; i < N; i++)
        CHECK_OK(polka_learner_step(learner, data->x + i * P, data->y + i, 1, NULL));
    return learner;
}

static double target(double y, size_t k) {
    return (size_t)y == k ? 1.0 : -1.0;
}

/* K_nD (N × m) by polka_kernel_eval. */
static double *kernel_rows(const polka_model *model, const rows_data *data) {
    size_t m = polka_model_order(model);
    double *k = malloc(N * m * sizeof *k);
    assert_non_null(k);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < m; j++)
            k[i * m + j] = polka_kernel_eval(polka_model_kernel(model), data->x + i * P,
                                             polka_model_dictionary(model) + j * P, P);
    return k;
}

/* Σ_i Σ_k max(0, 1 − t f)² + nλ Σ_k w_kᵀ K_DD w_k: the squared hinge the steps descend. */
static double hinge_objective(const polka_model *model, const rows_data *data, const double *k,
                              double lambda) {
    size_t m = polka_model_order(model);
    const double *w = polka_model_weights(model), *d = polka_model_dictionary(model);
    double sum = 0.0;
    for (size_t i = 0; i < N; i++)
        for (size_t c = 0; c < C; c++) {
            double f = 0.0;
            for (size_t j = 0; j < m; j++) f += k[i * m + j] * w[j * C + c];
            double slack = fmax(0.0, 1.0 - target(data->y[i], c) * f);
            sum += slack * slack;
        }
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++) {
            double kab = polka_kernel_eval(polka_model_kernel(model), d + a * P, d + b * P, P);
            for (size_t c = 0; c < C; c++) sum += N * lambda * w[a * C + c] * kab * w[b * C + c];
        }
    return sum;
}

/* Class c's least-squares weights (K_nDᵀ K_nD + nλ K_DD) w = K_nDᵀ t, by plain loops. */
static void oracle_weights(const polka_model *model, const rows_data *data, const double *k,
                           size_t c, double *w) {
    size_t m = polka_model_order(model);
    const double *d = polka_model_dictionary(model);
    double *a = malloc(m * m * sizeof *a);
    assert_non_null(a);
    for (size_t r = 0; r < m; r++) {
        w[r] = 0.0;
        for (size_t i = 0; i < N; i++) w[r] += k[i * m + r] * target(data->y[i], c);
        for (size_t s = 0; s < m; s++) {
            double sum =
                N * LAMBDA * polka_kernel_eval(polka_model_kernel(model), d + r * P, d + s * P, P);
            for (size_t i = 0; i < N; i++) sum += k[i * m + r] * k[i * m + s];
            a[r * m + s] = sum;
        }
    }
    gauss_solve(a, w, m);
    free(a);
}

static void test_refit_least_squares(void **state) {
    (void)state;
    static rows_data data;
    make_rows(&data);
    polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
    const polka_model *model = polka_learner_model(learner);
    size_t m = polka_model_order(model);
    assert_true(m > 10 && m < N);
    double *before = malloc(m * P * sizeof *before), *k = kernel_rows(model, &data);
    double *w = malloc(m * sizeof *w);
    assert_non_null(before);
    assert_non_null(w);
    memcpy(before, polka_model_dictionary(model), m * P * sizeof *before);
    polka_refit_settings settings = {LAMBDA, 0, 0};
    CHECK_OK(polka_learner_refit(learner, N, give_rows, &data, &settings));
    model = polka_learner_model(learner);
    assert_int_equal(polka_model_order(model), m); /* the dictionary stays, point for point */
    assert_memory_equal(polka_model_dictionary(model), before, m * P * sizeof *before);
    /* the fitted values (the weights themselves are as ill-conditioned as K_DD) */
    const double *fitted = polka_model_weights(model);
    for (size_t c = 0; c < C; c++) {
        oracle_weights(model, &data, k, c, w);
        for (size_t i = 0; i < N; i++) {
            double f = 0.0, f_oracle = 0.0;
            for (size_t j = 0; j < m; j++) {
                f += k[i * m + j] * fitted[j * C + c];
                f_oracle += k[i * m + j] * w[j];
            }
            if (!close_rel(f, f_oracle, 1e-7))
                fail_msg("class %zu, row %zu: f %.12g, oracle %.12g", c, i, f, f_oracle);
        }
    }
    free(before);
    free(k);
    free(w);
    polka_learner_free(&learner);
}

/* Each squared-hinge step lowers (never raises) the objective, and several lower it clearly. */
static void test_refit_hinge_descends(void **state) {
    (void)state;
    static rows_data data;
    make_rows(&data);
    polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
    double *k = kernel_rows(polka_learner_model(learner), &data), previous = INFINITY, first = 0;
    for (size_t iterations = 0; iterations <= 6; iterations++) {
        polka_refit_settings settings = {LAMBDA / 10, iterations, 0};
        CHECK_OK(polka_learner_refit(learner, N, give_rows, &data, &settings));
        double objective = hinge_objective(polka_learner_model(learner), &data, k, LAMBDA / 10);
        if (iterations == 0) first = objective;
        if (objective > previous * (1 + 1e-12))
            fail_msg("step %zu raised the squared hinge: %.12g after %.12g", iterations, objective,
                     previous);
        previous = objective;
    }
    assert_true(previous < 0.95 * first);
    free(k);
    polka_learner_free(&learner);
}

/* The rows, counting the calls (the cached refit reads them in its first pass only). */
typedef struct {
    rows_data *data;
    size_t calls;
} counted_rows;

static polka_status give_counted_rows(void *context, size_t first, size_t count, double *x,
                                      double *y) {
    counted_rows *counted = context;
    counted->calls++;
    return give_rows(counted->data, first, count, x, y);
}

/* The squared-hinge passes on the kept kernel rows (learner.refit_memory) give the weights of
 * the recomputing passes bit for bit, reading the training rows once; too little memory
 * recomputes. */
static void test_refit_cache_same_weights(void **state) {
    (void)state;
    static rows_data data;
    make_rows(&data);
    double *weights[3] = {0};
    size_t calls[3], m = 0, memories[3] = {0, (size_t)1 << 30, 8 * N};
    for (size_t run = 0; run < 3; run++) {
        polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
        counted_rows counted = {&data, 0};
        polka_refit_settings settings = {LAMBDA / 10, 4, memories[run]};
        CHECK_OK(polka_learner_refit(learner, N, give_counted_rows, &counted, &settings));
        const polka_model *model = polka_learner_model(learner);
        m = polka_model_order(model);
        weights[run] = malloc(m * C * sizeof *weights[run]);
        assert_non_null(weights[run]);
        memcpy(weights[run], polka_model_weights(model), m * C * sizeof *weights[run]);
        calls[run] = counted.calls;
        polka_learner_free(&learner);
    }
    assert_int_equal(calls[0], 5); /* N < one block: a call per pass, 1 + 4 */
    assert_int_equal(calls[1], 1);
    assert_int_equal(calls[2], 5); /* 8N bytes hold one row of m > 1 points: no cache */
    assert_memory_equal(weights[0], weights[1], m * C * sizeof *weights[0]);
    assert_memory_equal(weights[0], weights[2], m * C * sizeof *weights[0]);
    for (size_t run = 0; run < 3; run++) free(weights[run]);
}

static void test_refit_refusals(void **state) {
    (void)state;
    polka_learner_params params = polka_learner_defaults();
    assert_null(polka_learner_refit_check(&params, 3));
    params.loss.kind = POLKA_LOSS_SQUARE;
    assert_null(polka_learner_refit_check(&params, 0));
    assert_non_null(strstr(polka_learner_refit_check(&params, 1), "classification loss only"));
    params.loss.kind = POLKA_LOSS_NOVELTY;
    assert_non_null(strstr(polka_learner_refit_check(&params, 0), "novelty"));
    params = polka_learner_defaults();
    params.offset = 1;
    assert_non_null(strstr(polka_learner_refit_check(&params, 0), "learner.offset = 0"));
    static rows_data data;
    make_rows(&data);
    polka_learner *learner = trained(&data, POLKA_LOSS_MULTI_HINGE);
    polka_refit_settings settings = {0.0, 0, 0};
    assert_int_equal(polka_learner_refit(learner, N, give_rows, &data, &settings), POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "lambda > 0"));
    polka_learner_free(&learner);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refit_least_squares),
        cmocka_unit_test(test_refit_hinge_descends),
        cmocka_unit_test(test_refit_cache_same_weights),
        cmocka_unit_test(test_refit_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
