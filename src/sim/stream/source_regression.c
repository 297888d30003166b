/* data.source = sinc | friedman: generated regression streams (classes = 0). */
#include <math.h>

#include "polka/regression.h"
#include "sim/stream/source_impl.h"

static const char *regression_check(const polka_plan *plan) {
    const polka_data_spec *d = &plan->data;
    if (d->n_train < 1 || d->n_test < 1) return "data.n_train and data.n_test must be >= 1";
    if (d->source == POLKA_SOURCE_FRIEDMAN && d->dim < 5) return "friedman needs data.dim >= 5";
    if (d->source == POLKA_SOURCE_FRIEDMAN && d->drift > 0 && d->dim < 10)
        return "friedman with data.drift > 0 needs data.dim >= 10 (x1..x5 drift into x6..x10)";
    if (d->dim < 1) return "data.dim must be >= 1";
    if (!(d->noise_std >= 0)) return "data.noise_std must be >= 0";
    return NULL;
}

static int regression_facts(const polka_plan *plan, polka_data_facts *facts) {
    *facts = (polka_data_facts){plan->data.dim, 0, plan->data.n_train, plan->data.n_test};
    return 1;
}

static polka_status regression_open(const polka_plan *plan, const polka_source_layout *layout,
                                    void **state, polka_data_facts *facts) {
    (void)layout;
    regression_facts(plan, facts);
    int sinc = plan->data.source == POLKA_SOURCE_SINC;
    polka_regression_params params =
        polka_regression_defaults(sinc ? POLKA_REGRESSION_SINC : POLKA_REGRESSION_FRIEDMAN1);
    params.dim = plan->data.dim;
    params.seed = plan->run.seed;
    if (sinc)
        params.snr_db = plan->data.snr_db;
    else
        params.noise_std = plan->data.noise_std;
    polka_regression *gen = NULL;
    POLKA_CALL(polka_regression_create(&params, &gen));
    *state = gen;
    return POLKA_OK;
}

static void regression_close(void *state) {
    polka_regression *gen = state;
    polka_regression_free(&gen);
}

static polka_status regression_sample(const void *state, size_t variant, uint64_t index, double *x,
                                      double *y) {
    (void)variant;
    polka_regression_sample(state, POLKA_STREAM_TRAIN, index, x, y, NULL);
    return POLKA_OK;
}

static double regression_clean(const void *state, const double *x) {
    return polka_regression_clean(state, x);
}

static void regression_slab(const void *state, double *lo, double *hi) {
    polka_regression_range(state, lo, hi);
}

/* Drift (sinc): the peak moves from 0 along the circle c(φ) = (h/2)(1 − cos φ, sin φ); the
 * target becomes sinc‖x − c(φ)‖ with the sample's noise kept. */
static void sinc_drift(const void *state, double phase, double *x, double *y) {
    double lo, hi;
    polka_regression_range(state, &lo, &hi);
    double r = (hi - lo) / 4.0, shift[2] = {r * (1.0 - cos(phase)), r * sin(phase)}, saved[2];
    size_t n = polka_regression_dim(state) < 2 ? 1 : 2;
    double before = polka_regression_clean(state, x);
    for (size_t k = 0; k < n; k++) saved[k] = x[k], x[k] -= shift[k];
    double after = polka_regression_clean(state, x);
    for (size_t k = 0; k < n; k++) x[k] = saved[k];
    *y += after - before;
}

/* Drift (Friedman #1): the target's relevant inputs move from x1..x5 to x6..x10 and back, as
 * the "global drift" of Ikonomovska et al.'s Fried stream done gradually: at phase φ the clean
 * target is f(x') with x'_k = (1 − w) x_k + w x_{k+5}, w = (1 − cos φ)/2 (x' stays in [0, 1]^5;
 * w = 1 at φ = π, where x6..x10 are the relevant inputs), the sample's noise kept. */
static void friedman_drift(const void *state, double phase, double *x, double *y) {
    double w = 0.5 * (1.0 - cos(phase)), moved[10];
    for (size_t k = 0; k < 5; k++) moved[k] = (1.0 - w) * x[k] + w * x[k + 5];
    for (size_t k = 5; k < 10; k++) moved[k] = x[k];
    *y += polka_regression_clean(state, moved) - polka_regression_clean(state, x);
}

static polka_status regression_test_set(void *state, polka_dataset *test) {
    polka_regression_fill(state, POLKA_STREAM_TEST, 0, test);
    return POLKA_OK;
}

#define REGRESSION_SOURCE(source_name, drift_op)                                                   \
    {                                                                                              \
        .name = source_name, .targets = POLKA_TARGETS_VALUES, .check = regression_check,           \
        .planned_facts = regression_facts, .open = regression_open, .close = regression_close,     \
        .sample = regression_sample, .slab = regression_slab, .clean = regression_clean,           \
        .test_set = regression_test_set, .drift = drift_op,                                        \
    }

const polka_source_ops polka_source_sinc = REGRESSION_SOURCE("sinc", sinc_drift);
const polka_source_ops polka_source_friedman = REGRESSION_SOURCE("friedman", friedman_drift);
