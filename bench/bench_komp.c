/*
 * Benchmark: fast KOMP (K⁻¹ kept across calls, O(M²) per removal) against the brute-force
 * oracle (a pseudo-inverse per candidate, O(M⁴) per removal) at several model orders.
 *
 * For each M: a random model of M points; the fast state is built (untimed: in a run it is
 * carried over from the previous step), then R points with small weights are appended and
 * both versions compress the same f̃ to the same budget. Reported: time per removal and
 * the speed-up, plus a check that both kept the same points.
 *
 * Usage: bench_komp [M ...]   (default 50 100 200 400)
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/komp.h"
#include "polka/model.h"
#include "polka/rng.h"

#include "bench_util.h"

enum { P = 5, C = 5, APPENDED = 4 };

static void fill(double *out, size_t n, double scale, uint64_t seed) {
    polka_rng rng = polka_rng_start(seed, 1, 0);
    for (size_t k = 0; k < n; k++) out[k] = scale * (2.0 * polka_rng_uniform(&rng) - 1.0);
}

static int fail(const char *what) {
    fprintf(stderr, "bench_komp: %s: %s\n", what, polka_error_message());
    return 1;
}

static int bench(size_t m) {
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 1.0};
    double *d = malloc((m + APPENDED) * P * sizeof *d), *w = malloc((m + APPENDED) * C * sizeof *w);
    fill(d, (m + APPENDED) * P, 2.0, m);
    fill(w, (m + APPENDED) * C, 1.0, m + 1);
    for (size_t k = m * C; k < (m + APPENDED) * C; k++) w[k] *= 1e-3; /* cheap to remove */
    polka_model *fast = NULL, *oracle = NULL;
    polka_komp *komp = NULL;
    if (polka_model_create(&kernel, P, C, &fast) || polka_model_append(fast, d, m, w) ||
        polka_komp_create(0, &komp))
        return fail("setup");
    double t0 = bench_now();
    if (polka_komp_compress(komp, fast, 0.0, NULL))
        return fail("building K^-1"); /* untimed in runs */
    double build = bench_now() - t0;
    if (polka_model_append(fast, d + m * P, APPENDED, w + m * C) ||
        polka_model_clone(fast, &oracle))
        return fail("append");
    double eps = 2e-3;
    polka_komp_stats fs, os;
    t0 = bench_now();
    if (polka_komp_compress(komp, fast, eps, &fs)) return fail("fast compress");
    double fast_time = bench_now() - t0;
    t0 = bench_now();
    if (polka_komp_compress_bruteforce(oracle, eps, 0, &os)) return fail("oracle compress");
    double oracle_time = bench_now() - t0;
    int same = polka_model_order(fast) == polka_model_order(oracle) &&
               memcmp(polka_model_dictionary(fast), polka_model_dictionary(oracle),
                      polka_model_order(fast) * P * sizeof(double)) == 0;
    double per_fast = fast_time / (double)(fs.removed ? fs.removed : 1);
    double per_oracle = oracle_time / (double)(os.removed ? os.removed : 1);
    printf("%5zu %8zu %14.3e %14.3e %10.0fx %12.3e %6s\n", m, fs.removed, per_fast, per_oracle,
           per_oracle / per_fast, build, same ? "yes" : "NO");
    polka_model_free(&fast);
    polka_model_free(&oracle);
    polka_komp_free(&komp);
    free(d);
    free(w);
    return same ? 0 : 1;
}

int main(int argc, char **argv) {
#ifdef POLKA_HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
    size_t defaults[] = {50, 100, 200, 400};
    printf("KOMP per removal, fast (K^-1 kept, O(M^2)) vs brute force (pinv per candidate)\n");
    printf("%5s %8s %14s %14s %11s %12s %6s\n", "M", "removed", "fast s/rm", "brute s/rm",
           "speed-up", "build K^-1 s", "same");
    int status = 0;
    if (argc > 1)
        for (int k = 1; k < argc; k++) status |= bench((size_t)strtoul(argv[k], NULL, 10));
    else
        for (size_t k = 0; k < sizeof defaults / sizeof *defaults; k++)
            status |= bench(defaults[k]);
    return status;
}
