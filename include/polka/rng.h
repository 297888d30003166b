/**
 * @file rng.h
 * @brief Counter-based random numbers (Random123 Philox-4×64).
 *
 * A draw is a pure function of (seed, stream, index): the same seed gives the same run
 * whatever the number of ranks. A polka_rng is a cursor over one (seed, stream, index)
 * sequence; creating one allocates nothing.
 */
#ifndef POLKA_RNG_H
#define POLKA_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t seed, stream, index; /* the key and the first counter word */
    uint64_t sub;                 /* the third counter word (polka_rng_start_sub) */
    uint64_t block;               /* the next counter block */
    double buffer[4];
    int left; /* unused numbers in buffer */
} polka_rng;

/** A cursor over the numbers of sample `index` of `stream` under `seed`. */
polka_rng polka_rng_start(uint64_t seed, uint64_t stream, uint64_t index);

/** A cursor over the numbers of (index, sub) of `stream` under `seed`: draws keyed by two
 * counters (a round and an edge, say). sub = 0 is polka_rng_start's sequence. */
polka_rng polka_rng_start_sub(uint64_t seed, uint64_t stream, uint64_t index, uint64_t sub);

/** Uniform on (0, 1), never 0 or 1. */
double polka_rng_uniform(polka_rng *rng);

/** Standard normal (Box–Muller on two uniforms). */
double polka_rng_normal(polka_rng *rng);

/** Uniform integer in [0, n). */
uint64_t polka_rng_below(polka_rng *rng, uint64_t n);

/**
 * The logarithm of a Gamma(shape, 1) draw, shape > 0 (Marsaglia–Tsang 2000 on the normals and
 * uniforms of rng; shape < 1 by G(shape) = G(shape + 1)·U^(1/shape)). In logs so that a tiny
 * shape (a Dirichlet α of 0.01) never underflows to 0.
 */
double polka_rng_log_gamma(polka_rng *rng, double shape);

#endif
