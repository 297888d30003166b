/*
 * Benchmark: the random Fourier feature map (polka_rff_map) by the number of rows mapped in one
 * product, at Fashion-MNIST's shape (D = 4 000 features, p = 784). One product reads all of Ω
 * (D×p doubles, 25 MB) whatever its rows, so a product of a round's batch (2 rows) pays the read
 * and OpenBLAS's packing of Ω for 2 rows; an agent of a random-feature method now maps a window
 * of 16 rounds (32 rows) at once (rf_agent.c). Printed per row: the map (the product, then a
 * cosine per feature) and its bare product, beside the machine's dgemm rate (a large square
 * product, one BLAS thread). Ω stays in this machine's cache (L3 480 MiB), so the bound is the
 * dgemm rate, not memory bandwidth.
 *
 * Usage: bench_rff_map [D]   (features, default 4000)
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

#include "polka/rff.h"
#include "polka/rng.h"

#include "bench_util.h"

int main(int argc, char **argv) {
#ifdef POLKA_HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
    size_t D = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000, p = 784, most = 128;
    polka_rff rff;
    double *x = bench_random_matrix(most, p, 10), *z = malloc(most * D * sizeof *z);
    double peak = bench_dgemm_rate();
    if (!x || !z || peak <= 0.0 || polka_rff_draw(D, p, 5.0, 1, &rff) != POLKA_OK) return 1;
    printf("machine: dgemm %.1f GFLOP/s (1500^3, 1 thread): %.0f µs a row of %zu×%zu; Ω is %.1f "
           "MB\n",
           peak, 2.0 * (double)D * (double)p / peak / 1e3, D, p, (double)D * p * 8 / 1e6);
    printf("%5s | %10s %10s %10s | %9s %9s\n", "rows", "µs/product", "µs/row", "dgemm/row",
           "GFLOP/s", "of dgemm");
    size_t rows[] = {1, 2, 4, 8, 16, 32, 64, 128};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        size_t n = rows[k];
        double t = 0.0, bare = 0.0;
        BENCH_TIME_IT(t, polka_rff_map(&rff, x, n, z));
        BENCH_TIME_IT(bare, cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)D,
                                        (int)p, 1.0, x, (int)p, rff.omega, (int)p, 0.0, z, (int)D));
        double rate = 2.0 * (double)n * (double)D * (double)p / t / 1e9;
        printf("%5zu | %10.0f %10.0f %10.0f | %9.1f %8.0f%%%s\n", n, 1e6 * t, 1e6 * t / (double)n,
               1e6 * bare / (double)n, rate, 100 * rate / peak,
               n == 2 ? "  (a round's batch at b = 2: before)"
                      : (n == 32 ? "  (a window of 16 rounds at b = 2: now)" : ""));
    }
    polka_rff_free(&rff);
    free(x);
    free(z);
    return 0;
}
