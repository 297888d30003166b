/**
 * @file regression.h
 * @brief Synthetic regression streams: the noisy sinc of [MPARG11] §5.1 and Friedman #1.
 *
 * Same shape as the multidist generator (data.h): a params struct, a generator created
 * once, and sample `index` of `stream` a pure function of (generator, stream, index).
 * Targets are real values (data sets with classes = 0).
 *
 * - sinc: x ~ U[−h, h]^p, y = sin‖x‖ / ‖x‖ (1 at 0). The paper's set is p = 2, h = 5,
 *   10 dB white Gaussian noise on the training targets, 1000 train / 1000 test points. The
 *   noise variance is the signal power / 10^(snr_db/10), the power being the mean of y² over
 *   the clean targets of training samples 0..power_samples−1 (computed at creation).
 * - Friedman #1: x ~ U[0, 1]^p (p ≥ 5), y = 10 sin(π x1 x2) + 20 (x3 − 0.5)² + 10 x4 + 5 x5
 *   + N(0, σ²); the coordinates beyond the fifth are irrelevant.
 *
 * Noise goes on every stream but POLKA_STREAM_TEST, which is noise-free unless noisy_test.
 */
#ifndef POLKA_REGRESSION_H
#define POLKA_REGRESSION_H

#include <stddef.h>
#include <stdint.h>

#include "polka/data.h"
#include "polka/error.h"

typedef enum {
    POLKA_REGRESSION_SINC,      /**< sin‖x‖/‖x‖ on U[−h, h]^p */
    POLKA_REGRESSION_FRIEDMAN1, /**< Friedman #1 on U[0, 1]^p */
} polka_regression_kind;

typedef struct {
    polka_regression_kind kind;
    size_t dim;           /**< p (sinc: 2 in the paper; Friedman #1: >= 5) */
    double half_width;    /**< sinc: h (5) */
    double snr_db;        /**< sinc: signal-to-noise ratio in dB (10), when noise_std <= 0 */
    size_t power_samples; /**< sinc: training samples whose clean power sets the noise (1000) */
    double noise_std;     /**< the noise's standard deviation; sinc: > 0 overrides snr_db */
    int noisy_test;       /**< 1: noise on the TEST stream too */
    uint64_t seed;
} polka_regression_params;

typedef struct polka_regression_s polka_regression;

/** The defaults of a kind: sinc p = 2, h = 5, 10 dB over 1000 samples; Friedman p = 10, σ = 1. */
polka_regression_params polka_regression_defaults(polka_regression_kind kind);

/** Returns NULL when the parameters are valid, else a message. Pure. */
const char *polka_regression_check(const polka_regression_params *params);

/** Creates the generator (measures the sinc signal power); the caller owns it. */
polka_status polka_regression_create(const polka_regression_params *params, polka_regression **out);

/** Frees the generator and sets the handle to NULL; NULL-safe. */
void polka_regression_free(polka_regression **gen);

/** The noise's standard deviation on the noisy streams. */
double polka_regression_noise_std(const polka_regression *gen);

/** The signal power measured at creation (sinc), or NaN when not measured (noise_std given). */
double polka_regression_signal_power(const polka_regression *gen);

/** The input dimension p. Pure. */
size_t polka_regression_dim(const polka_regression *gen);

/** The range [lo, hi) every coordinate of x is drawn from. Pure. */
void polka_regression_range(const polka_regression *gen, double *lo, double *hi);

/** The noise-free target at x (dim numbers). Pure. */
double polka_regression_clean(const polka_regression *gen, const double *x);

/**
 * Sample `index` of `stream` into x (dim numbers) and *y; *clean (may be NULL) gets the
 * noise-free target. Pure given the generator.
 */
void polka_regression_sample(const polka_regression *gen, uint64_t stream, uint64_t index,
                             double *x, double *y, double *clean);

/**
 * Fills data (already allocated for n points of dimension dim, classes = 0) with samples
 * first..first+n−1 of stream.
 */
void polka_regression_fill(const polka_regression *gen, uint64_t stream, uint64_t first,
                           polka_dataset *data);

#endif
