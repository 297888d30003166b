/**
 * @file data.h
 * @brief Data sets, the synthetic stream generators and the LIBSVM text writer.
 *
 * A data set holds n points (n×p, row-major) and their targets: class indices 0..K−1
 * stored as doubles (classification, classes = K) or real values (regression, classes = 0).
 */
#ifndef POLKA_DATA_H
#define POLKA_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"

typedef struct {
    size_t n, p;
    size_t classes; /**< number of classes; 0 for regression */
    double *x;      /**< n×p */
    double *y;      /**< n */
} polka_dataset;

/** Allocates x and y for n points; the caller frees them with polka_dataset_free. */
polka_status polka_dataset_alloc(polka_dataset *data, size_t n, size_t p, size_t classes);

/** Frees x and y and zeroes the struct; NULL-safe. */
void polka_dataset_free(polka_dataset *data);

/** Writes a data set in LIBSVM text format ("label i:v ..." with 1-based indices). */
polka_status polka_dataset_write_libsvm(const polka_dataset *data, const char *path);

/**
 * Streams of a generator: each is an independent counter-based sequence. SPLIT: the split's
 * draw for network sample g (index g); AGENT: a split's per-agent draws (index: the agent);
 * SHUFFLE: a split's one-off draws (index 0); ACTIVE: quantity skew (index a: agent a's rate;
 * agents + t·agents + a: whether agent a learns in round t); LINK, OFFLINE, DELAY, GOSSIP:
 * the network's faults (index: the round; sub: the agent or the directed edge, fault.c).
 */
enum {
    POLKA_STREAM_TRAIN = 1,
    POLKA_STREAM_TEST = 2,
    POLKA_STREAM_SPLIT = 3,
    POLKA_STREAM_AGENT = 4,
    POLKA_STREAM_SHUFFLE = 5,
    POLKA_STREAM_ACTIVE = 6,
    POLKA_STREAM_LINK = 7,
    POLKA_STREAM_OFFLINE = 8,
    POLKA_STREAM_DELAY = 9,
    POLKA_STREAM_GOSSIP = 10
};

/**
 * The POLK "multidist" Gaussian mixture (paper 000 §5.2, DESIGN.md): K classes with centres
 * θ_c = (cos 2πc/K, sin 2πc/K) (zero beyond the first two coordinates), `components`
 * means per class μ_{c,m} ~ N(θ_c, mean_var·I) drawn from means_seed; a sample draws y and m
 * uniformly and x ~ N(μ_{y,m}, sample_var·I).
 */
typedef struct {
    size_t classes, components, dim;
    double mean_var, sample_var;
    uint64_t seed, means_seed;
} polka_multidist_params;

typedef struct polka_multidist_s polka_multidist;

/** Returns NULL when the parameters are valid, else a message. Pure. */
const char *polka_multidist_check(const polka_multidist_params *params);

/** Draws the component means; the caller owns the generator. */
polka_status polka_multidist_create(const polka_multidist_params *params, polka_multidist **out);
void polka_multidist_free(polka_multidist **gen);

/** Sample `index` of `stream` into x (dim numbers) and *y. Pure given the generator. */
void polka_multidist_sample(const polka_multidist *gen, uint64_t stream, uint64_t index, double *x,
                            double *y);

/** Sample `index` of `stream` conditioned on class c (the component is still drawn). */
void polka_multidist_sample_class(const polka_multidist *gen, uint64_t stream, uint64_t index,
                                  size_t c, double *x);

/** Fills data (already allocated for n points) with samples first..first+n−1 of stream. */
void polka_multidist_fill(const polka_multidist *gen, uint64_t stream, uint64_t first,
                          polka_dataset *data);

#endif
