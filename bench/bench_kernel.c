/*
 * Benchmark: the kernel-block evaluation at p = 784 (Fashion-MNIST) against the machine's
 * dgemm rate. The Gaussian block K(X, D) costs one dgemm (2·n·m·p flops) plus O(n·m) exps;
 * we report its flop rate (counting the dgemm's flops) beside a plain dgemm of the same
 * shape and a large square dgemm (the machine's rate), one BLAS thread.
 *
 * Usage: bench_kernel [M]   (dictionary size, default 2000)
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

#include "polka/kernel.h"
#include "polka/rng.h"

#include "bench_util.h"

int main(int argc, char **argv) {
#ifdef POLKA_HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
    size_t m = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000, p = 784;
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 5.0};
    double *d = bench_random_matrix(m, p, 1), *dn = malloc(m * sizeof *dn);
    double peak = bench_dgemm_rate();
    if (!d || !dn || peak <= 0.0) return 1;
    polka_sqnorms(d, m, p, dn);
    printf("machine dgemm rate (1500^3, 1 thread): %.2f GFLOP/s\n", peak);
    printf("%6s %6s %6s | %12s %12s | %10s %10s\n", "n", "M", "p", "block GF/s", "dgemm GF/s",
           "block/peak", "dgemm/peak");
    size_t ns[] = {1, 4, 16, 64, 256, 2500};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        size_t n = ns[k];
        double *x = bench_random_matrix(n, p, 10 + n), *out = malloc(n * m * sizeof *out);
        if (!x || !out) return 1;
        double tb = 0.0, tg = 0.0;
        BENCH_TIME_IT(tb, polka_kernel_block(&kernel, x, n, d, dn, m, p, out));
        BENCH_TIME_IT(tg, cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)m,
                                      (int)p, 1.0, x, (int)p, d, (int)p, 0.0, out, (int)m));
        double flops = 2.0 * (double)n * (double)m * (double)p;
        printf("%6zu %6zu %6zu | %12.2f %12.2f | %9.0f%% %9.0f%%\n", n, m, p, flops / tb / 1e9,
               flops / tg / 1e9, 100 * flops / tb / 1e9 / peak, 100 * flops / tg / 1e9 / peak);
        free(x);
        free(out);
    }
    free(d);
    free(dn);
    return 0;
}
