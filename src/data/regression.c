/* Synthetic regression streams: noisy sinc ([MPARG11] §5.1) and Friedman #1. */
#include "polka/regression.h"

#include <math.h>
#include <stdlib.h>

#include "polka/rng.h"

#define PI 3.14159265358979323846

struct polka_regression_s {
    polka_regression_params params;
    double noise_std;
    double power; /* measured clean signal power, or NaN */
};

polka_regression_params polka_regression_defaults(polka_regression_kind kind) {
    if (kind == POLKA_REGRESSION_FRIEDMAN1)
        return (polka_regression_params){.kind = kind, .dim = 10, .noise_std = 1.0, .seed = 1};
    return (polka_regression_params){.kind = POLKA_REGRESSION_SINC,
                                     .dim = 2,
                                     .half_width = 5.0,
                                     .snr_db = 10.0,
                                     .power_samples = 1000,
                                     .seed = 1};
}

const char *polka_regression_check(const polka_regression_params *params) {
    switch (params->kind) {
    case POLKA_REGRESSION_SINC:
        if (params->dim < 1) return "sinc: dim must be >= 1";
        if (!(params->half_width > 0)) return "sinc: half_width must be > 0";
        if (params->noise_std > 0) return NULL;
        if (!isfinite(params->snr_db)) return "sinc: snr_db must be finite";
        if (params->power_samples < 1) return "sinc: power_samples must be >= 1";
        return NULL;
    case POLKA_REGRESSION_FRIEDMAN1:
        if (params->dim < 5) return "friedman1: dim must be >= 5";
        if (!(params->noise_std >= 0)) return "friedman1: noise_std must be >= 0";
        return NULL;
    }
    return "unknown regression kind";
}

double polka_regression_clean(const polka_regression *gen, const double *x) {
    const polka_regression_params *params = &gen->params;
    if (params->kind == POLKA_REGRESSION_FRIEDMAN1)
        return 10.0 * sin(PI * x[0] * x[1]) + 20.0 * (x[2] - 0.5) * (x[2] - 0.5) + 10.0 * x[3] +
               5.0 * x[4];
    double r2 = 0.0;
    for (size_t k = 0; k < params->dim; k++) r2 += x[k] * x[k];
    double r = sqrt(r2);
    return r < 1e-8 ? 1.0 - r2 / 6.0 : sin(r) / r;
}

size_t polka_regression_dim(const polka_regression *gen) {
    return gen->params.dim;
}

void polka_regression_range(const polka_regression *gen, double *lo, double *hi) {
    const polka_regression_params *params = &gen->params;
    *lo = params->kind == POLKA_REGRESSION_SINC ? -params->half_width : 0.0;
    *hi = params->kind == POLKA_REGRESSION_SINC ? params->half_width : 1.0;
}

/* x from the first dim uniforms of the sample's stream: the noise is drawn after it. */
static void draw_x(const polka_regression *gen, polka_rng *rng, double *x) {
    double lo, hi;
    polka_regression_range(gen, &lo, &hi);
    for (size_t k = 0; k < gen->params.dim; k++) x[k] = lo + (hi - lo) * polka_rng_uniform(rng);
}

/* The mean of y² over the clean targets of training samples 0..power_samples−1. */
static polka_status measure_power(polka_regression *gen) {
    double *x = malloc(gen->params.dim * sizeof *x);
    POLKA_CHECK_ALLOC(x);
    double sum = 0.0;
    for (size_t i = 0; i < gen->params.power_samples; i++) {
        polka_rng rng = polka_rng_start(gen->params.seed, POLKA_STREAM_TRAIN, i);
        draw_x(gen, &rng, x);
        double y = polka_regression_clean(gen, x);
        sum += y * y;
    }
    free(x);
    gen->power = sum / (double)gen->params.power_samples;
    return POLKA_OK;
}

polka_status polka_regression_create(const polka_regression_params *params,
                                     polka_regression **out) {
    const char *why = polka_regression_check(params);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    polka_regression *gen = calloc(1, sizeof *gen);
    POLKA_CHECK_ALLOC(gen);
    gen->params = *params;
    gen->power = NAN;
    gen->noise_std = params->noise_std;
    if (params->kind == POLKA_REGRESSION_SINC && !(params->noise_std > 0)) {
        polka_status status = measure_power(gen);
        if (status != POLKA_OK) {
            free(gen);
            return status;
        }
        /* SNR = 10 log10(power / σ²) */
        gen->noise_std = sqrt(gen->power / pow(10.0, params->snr_db / 10.0));
    }
    *out = gen;
    return POLKA_OK;
}

void polka_regression_free(polka_regression **gen) {
    if (gen == NULL || *gen == NULL) return;
    free(*gen);
    *gen = NULL;
}

double polka_regression_noise_std(const polka_regression *gen) {
    return gen->noise_std;
}

double polka_regression_signal_power(const polka_regression *gen) {
    return gen->power;
}

void polka_regression_sample(const polka_regression *gen, uint64_t stream, uint64_t index,
                             double *x, double *y, double *clean) {
    polka_rng rng = polka_rng_start(gen->params.seed, stream, index);
    draw_x(gen, &rng, x);
    double f = polka_regression_clean(gen, x);
    int noisy = stream != POLKA_STREAM_TEST || gen->params.noisy_test;
    *y = noisy && gen->noise_std > 0 ? f + gen->noise_std * polka_rng_normal(&rng) : f;
    if (clean != NULL) *clean = f;
}

void polka_regression_fill(const polka_regression *gen, uint64_t stream, uint64_t first,
                           polka_dataset *data) {
    for (size_t i = 0; i < data->n; i++)
        polka_regression_sample(gen, stream, first + i, data->x + i * data->p, data->y + i, NULL);
}
