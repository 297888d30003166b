/* What the micro-benchmarks share: a monotonic clock, a reproducible random matrix and a timer
 * that repeats a statement for at least half a second. */
#ifndef POLKA_BENCH_UTIL_H
#define POLKA_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

#include "polka/rng.h"

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* rows×cols uniform numbers of Philox stream (seed, 7, 0); NULL when out of memory. */
static inline double *bench_random_matrix(size_t rows, size_t cols, uint64_t seed) {
    double *a = malloc(rows * cols * sizeof *a);
    polka_rng rng = polka_rng_start(seed, 7, 0);
    for (size_t k = 0; a && k < rows * cols; k++) a[k] = polka_rng_uniform(&rng);
    return a;
}

/* Seconds per execution of stmt, repeated for at least 0.5 s. */
#define BENCH_TIME_IT(result, stmt)                                                                \
    do {                                                                                           \
        size_t reps_ = 0;                                                                          \
        double start_ = bench_now();                                                               \
        do {                                                                                       \
            stmt;                                                                                  \
            reps_++;                                                                               \
        } while (bench_now() - start_ < 0.5);                                                      \
        (result) = (bench_now() - start_) / (double)reps_;                                         \
    } while (0)

#endif
