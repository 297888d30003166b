/*
 * SLKL against kernel ridge regression on the sinc set of [MPARG11] (§5.1, Table 2).
 *
 * Data: x ~ U[−5, 5]², y = sin‖x‖/‖x‖, 10 dB white noise on the 1000 training targets, 1000
 * noise-free test points; one data set per seed. Methods (polka's Gaussian kernel is
 * exp(−‖x − x'‖²/(2σ²)); polka's λ is the paper's λ divided by n):
 *   - the paper's settings: σ = 1, paper λ = 1 (nλ = 1), ν = 0.01, ε = 1e-4, W = M;
 *     KRR on all n points (KRRn), KRR on the first M points (KRRM), SLKL with M candidates;
 *   - cross-validated: σ and λ (KRR) or σ and ν (SLKL, nλ = 1: only λν matters, Prop. 3)
 *     chosen on a grid by 5-fold cross-validation on the training set (fit on 800 points,
 *     MSE on the other 200, noisy targets, averaged over the folds); then refit on all 1000.
 * Reported per seed and averaged: test MSE on the clean targets, and on the same test points
 * with fresh 10 dB noise on the targets (the paper's MSEs sit at the noise level), the
 * number of active kernels, SLKL iterations, wall time of the fit.
 *
 * Usage: slkl_sinc [seeds]   (default 5)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/regression.h"
#include "polka/slkl.h"

#include "bench_util.h"

enum { N_TRAIN = 1000, N_TEST = 1000, FOLDS = 5, N_FIT = N_TRAIN - N_TRAIN / FOLDS, DIM = 2 };
enum { MAX_SEEDS = 20 };

static const double sigma_grid[] = {0.7, 1.0, 1.4, 2.0, 2.8, 4.0};
static const double lambda_grid[] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2};  /* polka's λ (KRR) */
static const double nu_grid[] = {1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0}; /* SLKL, nλ = 1 */
#define GRID(g) (sizeof(g) / sizeof *(g))

typedef struct {
    polka_dataset train, test, test_noisy;
    double noise_sd;
} sinc_set;

typedef struct {
    double mse, mse_noisy, seconds;
    size_t active, iterations;
} result;

typedef struct {
    const char *name, *setting;
    double paper_mse; /* Table 2, or NAN */
    double paper_m0;  /* Table 2's active kernels, or NAN */
    result runs[MAX_SEEDS];
} method;

static int fail(const char *what) {
    fprintf(stderr, "slkl_sinc: %s: %s\n", what, polka_error_message());
    return 1;
}

/* Train (noisy), test (clean) and the same test points with noisy targets. */
static polka_status make_set(uint64_t seed, sinc_set *set) {
    polka_regression_params params = polka_regression_defaults(POLKA_REGRESSION_SINC);
    params.seed = seed;
    params.power_samples = N_TRAIN;
    polka_regression *gen = NULL, *noisy = NULL;
    POLKA_CALL(polka_regression_create(&params, &gen));
    params.noisy_test = 1;
    set->noise_sd = polka_regression_noise_std(gen);
    polka_status status = polka_regression_create(&params, &noisy);
    if (status == POLKA_OK) status = polka_dataset_alloc(&set->train, N_TRAIN, DIM, 0);
    if (status == POLKA_OK) status = polka_dataset_alloc(&set->test, N_TEST, DIM, 0);
    if (status == POLKA_OK) status = polka_dataset_alloc(&set->test_noisy, N_TEST, DIM, 0);
    if (status == POLKA_OK) {
        polka_regression_fill(gen, POLKA_STREAM_TRAIN, 0, &set->train);
        polka_regression_fill(gen, POLKA_STREAM_TEST, 0, &set->test);
        polka_regression_fill(noisy, POLKA_STREAM_TEST, 0, &set->test_noisy);
    }
    polka_regression_free(&gen);
    polka_regression_free(&noisy);
    return status;
}

static void free_set(sinc_set *set) {
    polka_dataset_free(&set->train);
    polka_dataset_free(&set->test);
    polka_dataset_free(&set->test_noisy);
}

/* The test MSEs of a model into r, then frees the model. */
static polka_status score(polka_model **model, const sinc_set *set, result *r) {
    polka_status status = polka_krr_mse(*model, set->test.x, set->test.y, N_TEST, &r->mse);
    if (status == POLKA_OK)
        status = polka_krr_mse(*model, set->test_noisy.x, set->test_noisy.y, N_TEST, &r->mse_noisy);
    polka_model_free(model);
    return status;
}

/* KRR on n points. */
static polka_status fit_krr(const double *x, const double *y, size_t n, double sigma, double lambda,
                            polka_model **model, result *r) {
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = sigma};
    double t0 = bench_now();
    POLKA_CALL(polka_krr_fit(&kernel, x, y, n, DIM, lambda, model));
    r->seconds = bench_now() - t0;
    r->active = n;
    r->iterations = 0;
    return POLKA_OK;
}

/* SLKL on n points with nλ = 1 (the paper's λ = 1). */
static polka_status fit_slkl(const double *x, const double *y, size_t n, size_t candidates,
                             double sigma, double nu, uint64_t seed, polka_model **model,
                             result *r) {
    polka_slkl_params params = polka_slkl_defaults();
    params.kernel.sigma = sigma;
    params.lambda = 1.0 / (double)n;
    params.nu = nu;
    params.candidates = candidates;
    params.seed = seed;
    polka_slkl *slkl = NULL;
    polka_slkl_stats stats;
    double t0 = bench_now();
    POLKA_CALL(polka_slkl_create(&params, x, y, n, DIM, &slkl));
    polka_status status = polka_slkl_run(slkl, &stats);
    if (status == POLKA_OK) status = polka_slkl_model(slkl, model);
    r->seconds = bench_now() - t0;
    polka_slkl_free(&slkl);
    POLKA_CHECK(status != POLKA_OK || stats.converged, POLKA_ERR_NUMERIC,
                "SLKL hit max_iter (%zu iterations)", stats.iterations);
    r->active = stats.active;
    r->iterations = stats.iterations;
    return status;
}

/* Fold f of the training set: the other folds into fit (N_FIT points), fold f into val. */
static void make_fold(const polka_dataset *train, size_t f, polka_dataset *fit,
                      polka_dataset *val) {
    size_t size = N_TRAIN / FOLDS, kept = 0;
    for (size_t i = 0; i < N_TRAIN; i++) {
        polka_dataset *to = i / size == f ? val : fit;
        size_t row = i / size == f ? i - f * size : kept++;
        memcpy(to->x + row * DIM, train->x + i * DIM, DIM * sizeof *to->x);
        to->y[row] = train->y[i];
    }
}

/* The mean held-out MSE over the folds of one grid point (KRR: λ, SLKL: ν). */
static polka_status cv_score(const polka_dataset *fit, const polka_dataset *val, int slkl,
                             double sigma, double param, uint64_t seed, double *score) {
    *score = 0.0;
    for (size_t f = 0; f < FOLDS; f++) {
        polka_model *model = NULL;
        result r;
        double mse;
        if (slkl)
            POLKA_CALL(fit_slkl(fit[f].x, fit[f].y, N_FIT, 0, sigma, param, seed, &model, &r));
        else
            POLKA_CALL(fit_krr(fit[f].x, fit[f].y, N_FIT, sigma, param, &model, &r));
        polka_status status = polka_krr_mse(model, val[f].x, val[f].y, val[f].n, &mse);
        polka_model_free(&model);
        POLKA_CALL(status);
        *score += mse / FOLDS;
    }
    return POLKA_OK;
}

/* Grid search by FOLDS-fold cross-validation: KRR over (σ, λ), SLKL over (σ, ν). */
static polka_status select_params(const polka_dataset *fit, const polka_dataset *val, int slkl,
                                  uint64_t seed, double *sigma, double *second) {
    const double *grid = slkl ? nu_grid : lambda_grid;
    size_t count = slkl ? GRID(nu_grid) : GRID(lambda_grid);
    double best = INFINITY;
    for (size_t i = 0; i < GRID(sigma_grid); i++)
        for (size_t j = 0; j < count; j++) {
            double score;
            POLKA_CALL(cv_score(fit, val, slkl, sigma_grid[i], grid[j], seed, &score));
            if (score < best) {
                best = score;
                *sigma = sigma_grid[i];
                *second = grid[j];
            }
        }
    return POLKA_OK;
}

/* Cross-validated (σ, λ) for KRR and (σ, ν) for SLKL. */
static polka_status cross_validate(const polka_dataset *train, uint64_t seed, double chosen[4]) {
    polka_dataset fit[FOLDS] = {{0}}, val[FOLDS] = {{0}};
    polka_status status = POLKA_OK;
    for (size_t f = 0; f < FOLDS && status == POLKA_OK; f++) {
        status = polka_dataset_alloc(&fit[f], N_FIT, DIM, 0);
        if (status == POLKA_OK) status = polka_dataset_alloc(&val[f], N_TRAIN - N_FIT, DIM, 0);
        if (status == POLKA_OK) make_fold(train, f, &fit[f], &val[f]);
    }
    if (status == POLKA_OK) status = select_params(fit, val, 0, seed, &chosen[0], &chosen[1]);
    if (status == POLKA_OK) status = select_params(fit, val, 1, seed, &chosen[2], &chosen[3]);
    for (size_t f = 0; f < FOLDS; f++) {
        polka_dataset_free(&fit[f]);
        polka_dataset_free(&val[f]);
    }
    return status;
}

enum { KRR_PAPER, KRR_VAL, KRRM_256, KRRM_512, SLKL_256, SLKL_512, SLKL_1000, SLKL_VAL, METHODS };

static method methods[METHODS] = {
    [KRR_PAPER] = {"KRRn", "paper: sigma=1, n*lambda=1", 0.009, NAN, {{0}}},
    [KRR_VAL] = {"KRRn", "CV sigma, lambda", NAN, NAN, {{0}}},
    [KRRM_256] = {"KRRM M=256", "paper settings", 0.0146, NAN, {{0}}},
    [KRRM_512] = {"KRRM M=512", "paper settings", 0.0124, NAN, {{0}}},
    [SLKL_256] = {"SLKL M=256", "paper: sigma=1, nu=0.01", 0.0106, 83, {{0}}},
    [SLKL_512] = {"SLKL M=512", "paper: sigma=1, nu=0.01", 0.0103, 108, {{0}}},
    [SLKL_1000] = {"SLKL M=1000", "paper: sigma=1, nu=0.01", 0.0104, 139, {{0}}},
    [SLKL_VAL] = {"SLKL M=1000", "CV sigma, nu", NAN, NAN, {{0}}},
};

static void print_row(const char *label, const method *m, const result *r) {
    printf("  %-5s %-12s %-28s %9.5f %9.5f %6zu %7zu %7.3f\n", label, m->name, m->setting, r->mse,
           r->mse_noisy, r->active, r->iterations, r->seconds);
}

/* All the methods on one seed's data set. */
static polka_status run_seed(uint64_t seed, size_t s) {
    static const size_t cands[METHODS] = {[SLKL_256] = 256, [SLKL_512] = 512};
    sinc_set set = {0};
    polka_status status = make_set(seed, &set);
    double chosen[4] = {0}; /* KRR σ, λ; SLKL σ, ν */
    if (status == POLKA_OK) status = cross_validate(&set.train, seed, chosen);
    const double *x = set.train.x, *y = set.train.y;
    for (int k = 0; k < METHODS && status == POLKA_OK; k++) {
        polka_model *model = NULL;
        result *r = &methods[k].runs[s];
        if (k == KRR_PAPER) status = fit_krr(x, y, N_TRAIN, 1.0, 1.0 / N_TRAIN, &model, r);
        if (k == KRR_VAL) status = fit_krr(x, y, N_TRAIN, chosen[0], chosen[1], &model, r);
        if (k == KRRM_256 || k == KRRM_512) {
            size_t m = k == KRRM_256 ? 256 : 512;
            status = fit_krr(x, y, m, 1.0, 1.0 / (double)m, &model, r);
        }
        if (k == SLKL_256 || k == SLKL_512 || k == SLKL_1000)
            status = fit_slkl(x, y, N_TRAIN, cands[k], 1.0, 0.01, seed, &model, r);
        if (k == SLKL_VAL)
            status = fit_slkl(x, y, N_TRAIN, 0, chosen[2], chosen[3], seed, &model, r);
        if (status == POLKA_OK) status = score(&model, &set, r);
    }
    if (status == POLKA_OK) {
        printf("seed %llu: noise sd %.4f; CV chose KRR sigma=%g lambda=%g (n*lambda=%g), "
               "SLKL sigma=%g nu=%g\n",
               (unsigned long long)seed, set.noise_sd, chosen[0], chosen[1], chosen[1] * N_TRAIN,
               chosen[2], chosen[3]);
        for (int k = 0; k < METHODS; k++) print_row("", &methods[k], &methods[k].runs[s]);
    }
    free_set(&set);
    return status;
}

static void print_grid(const double *grid, size_t count) {
    for (size_t i = 0; i < count; i++) printf("%s%g", i ? "," : "{", grid[i]);
    printf("}");
}

static void mean_sd(const method *m, size_t seeds, size_t field, double *mean, double *sd) {
    double sum = 0.0, sq = 0.0;
    for (size_t s = 0; s < seeds; s++) {
        const result *r = &m->runs[s];
        double v = field == 0   ? r->mse
                   : field == 1 ? r->mse_noisy
                   : field == 2 ? (double)r->active
                                : r->seconds;
        sum += v;
        sq += v * v;
    }
    *mean = sum / (double)seeds;
    *sd = seeds > 1 ? sqrt(fmax(0.0, (sq - sum * sum / (double)seeds) / (double)(seeds - 1))) : 0;
}

static void print_summary(size_t seeds) {
    printf("\nmean ± sd over %zu seeds; [MPARG11] Table 2 (20 runs) beside it\n", seeds);
    printf("  %-12s %-28s %-20s %-20s %-13s %-7s | %-8s %s\n", "method", "setting",
           "test MSE (clean)", "MSE (noisy targets)", "active", "time s", "paper", "m0");
    for (int k = 0; k < METHODS; k++) {
        const method *m = &methods[k];
        double v[4][2];
        for (size_t f = 0; f < 4; f++) mean_sd(m, seeds, f, &v[f][0], &v[f][1]);
        printf("  %-12s %-28s %.5f ± %.5f    %.5f ± %.5f    %5.0f ± %-5.0f %7.3f | ", m->name,
               m->setting, v[0][0], v[0][1], v[1][0], v[1][1], v[2][0], v[2][1], v[3][0]);
        if (isnan(m->paper_mse))
            printf("%-8s", "-");
        else
            printf("%-8.4f", m->paper_mse);
        if (isnan(m->paper_m0))
            printf(" -\n");
        else
            printf(" %.0f\n", m->paper_m0);
    }
}

int main(int argc, char **argv) {
    long seeds = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
    if (argc > 2 || seeds < 1 || seeds > MAX_SEEDS) {
        fprintf(stderr, "usage: slkl_sinc [seeds]   (1..%d, default 5)\n", MAX_SEEDS);
        return 2;
    }
    printf("SLKL vs KRR on sinc ([MPARG11] §5.1): n = %d train (10 dB noise), %d test (clean)\n",
           N_TRAIN, N_TEST);
    printf("kernel exp(-|x-x'|^2/(2 sigma^2)); polka lambda = paper lambda / n; eps = 1e-4, "
           "W = M\n");
    printf("CV: %d-fold on the training set (fit on %d, MSE on %d noisy targets); grids sigma ",
           FOLDS, N_FIT, N_TRAIN - N_FIT);
    print_grid(sigma_grid, GRID(sigma_grid));
    printf(", KRR lambda ");
    print_grid(lambda_grid, GRID(lambda_grid));
    printf(", SLKL nu ");
    print_grid(nu_grid, GRID(nu_grid));
    printf(" with n*lambda = 1\n");
    printf("  %-5s %-12s %-28s %9s %9s %6s %7s %7s\n", "", "method", "setting", "MSE", "MSEnoisy",
           "active", "iters", "time s");
    for (long s = 0; s < seeds; s++)
        if (run_seed((uint64_t)s + 1, (size_t)s) != POLKA_OK) return fail("run");
    print_summary((size_t)seeds);
    return 0;
}
