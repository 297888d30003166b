/* What the micro-benchmarks share: a monotonic clock, a reproducible random matrix, a timer
 * that repeats a statement for at least half a second, and the machine's dgemm rate. */
#ifndef POLKA_BENCH_UTIL_H
#define POLKA_BENCH_UTIL_H

#include <cblas.h>
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

/* The machine's dgemm rate (GFLOP/s): a 1500^3 product on however many BLAS threads the caller
 * set; 0 when out of memory. */
static inline double bench_dgemm_rate(void) {
    size_t big = 1500;
    double *a = bench_random_matrix(big, big, 3), *b = bench_random_matrix(big, big, 4),
           *c = malloc(big * big * sizeof *c), t = 0.0;
    if (a && b && c)
        BENCH_TIME_IT(t, cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)big, (int)big,
                                     (int)big, 1.0, a, (int)big, b, (int)big, 0.0, c, (int)big));
    free(a), free(b), free(c);
    return t > 0.0 ? 2.0 * big * big * big / t / 1e9 : 0.0;
}

#endif
