/* Random Fourier features of the Gaussian kernel and the linear model on them (rff.h). */
#include "polka/rff.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/rng.h"

#define TWO_PI 6.283185307179586

/* Rows mapped at once by polka_rff_predict (bounds its n×D scratch). */
#define PREDICT_BLOCK 256

static polka_status check_shape(size_t features, size_t dim, double sigma) {
    POLKA_CHECK(features >= 1 && features <= POLKA_RFF_MAX_FEATURES, POLKA_ERR_ARG,
                "random features: the number of features must be in [1, %zu] (got %zu)",
                POLKA_RFF_MAX_FEATURES, features);
    POLKA_CHECK(dim >= 1 && dim <= POLKA_RFF_MAX_FEATURES / features, POLKA_ERR_ARG,
                "random features: %zu features in %zu dimensions is too many numbers", features,
                dim);
    POLKA_CHECK(sigma > 0 && isfinite(sigma), POLKA_ERR_ARG,
                "random features: learner.sigma must be > 0 and finite (got %g)", sigma);
    return POLKA_OK;
}

static polka_status alloc_arrays(size_t features, size_t dim, double sigma, uint64_t seed,
                                 polka_rff *out) {
    polka_rff rff = {.features = features, .dim = dim, .sigma = sigma, .seed = seed};
    rff.omega = malloc(features * dim * sizeof *rff.omega);
    rff.phase = malloc(features * sizeof *rff.phase);
    if (rff.omega == NULL || rff.phase == NULL) {
        polka_rff_free(&rff);
        return polka_error_set(POLKA_ERR_MEM, "random features: out of memory for %zu×%zu",
                               features, dim);
    }
    *out = rff;
    return POLKA_OK;
}

polka_status polka_rff_draw(size_t features, size_t dim, double sigma, uint64_t seed,
                            polka_rff *out) {
    POLKA_CALL(check_shape(features, dim, sigma));
    polka_rff rff;
    POLKA_CALL(alloc_arrays(features, dim, sigma, seed, &rff));
    for (size_t d = 0; d < features; d++) {
        /* feature d is its own stream position: b_d first, so it does not depend on p */
        polka_rng rng = polka_rng_start(seed, POLKA_RFF_STREAM, d);
        rff.phase[d] = TWO_PI * polka_rng_uniform(&rng);
        for (size_t k = 0; k < dim; k++) rff.omega[d * dim + k] = polka_rng_normal(&rng) / sigma;
    }
    *out = rff;
    return POLKA_OK;
}

static int all_finite(const double *v, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (!isfinite(v[k])) return 0;
    return 1;
}

polka_status polka_rff_adopt(size_t features, size_t dim, double sigma, uint64_t seed,
                             const double *omega, const double *phase, polka_rff *out) {
    POLKA_CALL(check_shape(features, dim, sigma));
    POLKA_CHECK(all_finite(omega, features * dim) && all_finite(phase, features), POLKA_ERR_ARG,
                "random features: a frequency or phase is not finite");
    polka_rff rff;
    POLKA_CALL(alloc_arrays(features, dim, sigma, seed, &rff));
    memcpy(rff.omega, omega, features * dim * sizeof *omega);
    memcpy(rff.phase, phase, features * sizeof *phase);
    *out = rff;
    return POLKA_OK;
}

void polka_rff_free(polka_rff *rff) {
    if (rff == NULL) return;
    free(rff->omega);
    free(rff->phase);
    *rff = (polka_rff){0};
}

void polka_rff_map(const polka_rff *rff, const double *x, size_t n, double *z) {
    size_t D = rff->features, p = rff->dim;
    if (n == 0) return;
    /* z <- X Ωᵀ (n×D) */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)D, (int)p, 1.0, x, (int)p,
                rff->omega, (int)p, 0.0, z, (int)D);
    double scale = sqrt(2.0 / (double)D);
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < D; d++) z[i * D + d] = scale * cos(z[i * D + d] + rff->phase[d]);
}

double polka_rff_kernel_ref(const polka_rff *rff, const double *x, const double *y) {
    size_t D = rff->features, p = rff->dim;
    double sum = 0.0;
    for (size_t d = 0; d < D; d++) {
        double wx = rff->phase[d], wy = rff->phase[d];
        for (size_t k = 0; k < p; k++) {
            wx += rff->omega[d * p + k] * x[k];
            wy += rff->omega[d * p + k] * y[k];
        }
        sum += cos(wx) * cos(wy);
    }
    return 2.0 * sum / (double)D;
}

void polka_rff_values(const double *z, size_t n, size_t features, const double *theta,
                      size_t outputs, double *f) {
    if (n == 0) return;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)outputs, (int)features, 1.0,
                z, (int)features, theta, (int)outputs, 0.0, f, (int)outputs);
}

polka_status polka_rff_predict(const polka_rff *rff, const double *theta, size_t outputs,
                               const double *x, size_t n, double *f) {
    size_t rows = n < PREDICT_BLOCK ? n : PREDICT_BLOCK, D = rff->features;
    if (n == 0) return POLKA_OK;
    double *z = malloc(rows * D * sizeof *z);
    POLKA_CHECK_ALLOC(z);
    for (size_t first = 0; first < n; first += rows) {
        size_t count = n - first < rows ? n - first : rows;
        polka_rff_map(rff, x + first * rff->dim, count, z);
        polka_rff_values(z, count, D, theta, outputs, f + first * outputs);
    }
    free(z);
    return POLKA_OK;
}

polka_status polka_rff_model_rows(const void *model, const double *x, size_t count, double *f) {
    const polka_rff_model *m = model;
    return polka_rff_predict(m->rff, m->theta, m->outputs, x, count, f);
}

/* The n×C loss gradients ∇ℓ(f_k, y_k) in place of the values f; returns Σ_k ℓ. */
static double loss_gradients(const polka_loss *loss, double *f, const double *y, size_t n,
                             size_t outputs, double *row) {
    double total = 0.0;
    for (size_t k = 0; k < n; k++) {
        total += polka_loss_eval(loss, f + k * outputs, outputs, y[k], row);
        memcpy(f + k * outputs, row, outputs * sizeof *row);
    }
    return total;
}

polka_status polka_rff_gradient(const polka_rff_problem *problem, const polka_rff_batch *batch,
                                const double *theta, double *grad, double *mean_loss) {
    size_t D = problem->features, C = problem->outputs, n = batch->n;
    for (size_t k = 0; k < D * C; k++) grad[k] = problem->lambda * theta[k];
    if (mean_loss) *mean_loss = 0.0;
    if (n == 0) return POLKA_OK;
    double *f = malloc((n + 1) * C * sizeof *f);
    POLKA_CHECK_ALLOC(f);
    polka_rff_values(batch->z, n, D, theta, C, f);
    double total = loss_gradients(&problem->loss, f, batch->y, n, C, f + n * C);
    /* grad += Zᵀ ∇ℓ / n (D×C) */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)D, (int)C, (int)n, 1.0 / (double)n,
                batch->z, (int)D, f, (int)C, 1.0, grad, (int)C);
    free(f);
    if (mean_loss) *mean_loss = total / (double)n;
    return POLKA_OK;
}

polka_status polka_rff_objective(const polka_rff_problem *problem, const polka_rff_batch *batch,
                                 const double *theta, double *value) {
    size_t D = problem->features, C = problem->outputs, n = batch->n;
    double total = 0.0;
    if (n > 0) {
        double *f = malloc(n * C * sizeof *f);
        POLKA_CHECK_ALLOC(f);
        polka_rff_values(batch->z, n, D, theta, C, f);
        for (size_t k = 0; k < n; k++)
            total += polka_loss_eval(&problem->loss, f + k * C, C, batch->y[k], NULL);
        free(f);
        total /= (double)n;
    }
    double sq = cblas_ddot((int)(D * C), theta, 1, theta, 1);
    *value = total + 0.5 * problem->lambda * sq;
    return POLKA_OK;
}

polka_status polka_rff_sgd_step(const polka_rff_problem *problem, const polka_rff_batch *batch,
                                double eta, double *theta) {
    size_t len = problem->features * problem->outputs;
    double *grad = malloc(len * sizeof *grad);
    POLKA_CHECK_ALLOC(grad);
    polka_status status = polka_rff_gradient(problem, batch, theta, grad, NULL);
    if (status == POLKA_OK) cblas_daxpy((int)len, -eta, grad, 1, theta, 1);
    free(grad);
    return status;
}

void polka_rff_normal_add(const polka_rff_batch *batch, size_t features, double weight,
                          double *gram, double *rhs) {
    if (batch->n == 0) return;
    int D = (int)features, n = (int)batch->n;
    /* the full D×D product (dgemm rather than dsyrk: both triangles, for the solvers) */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, D, D, n, weight, batch->z, D, batch->z, D,
                1.0, gram, D);
    cblas_dgemv(CblasRowMajor, CblasTrans, n, D, weight, batch->z, D, batch->y, 1, 1.0, rhs, 1);
}

polka_status polka_rff_ridge_solve(double *gram, double *rhs, size_t features, size_t outputs,
                                   double shift) {
    for (size_t d = 0; d < features; d++) gram[d * features + d] += shift;
    lapack_int info =
        LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)features, (lapack_int)outputs, gram,
                      (lapack_int)features, rhs, (lapack_int)outputs);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC,
                "random features: the Cholesky factorisation of the %zu×%zu normal equations "
                "failed (dposv info %d; shift %g)",
                features, features, (int)info, shift);
    return POLKA_OK;
}

polka_status polka_rff_check_square(const polka_rff_problem *problem, const char *who) {
    POLKA_CHECK(problem->loss.kind == POLKA_LOSS_SQUARE && problem->outputs == 1, POLKA_ERR_ARG,
                "%s needs the square loss with one output (got %s, %zu outputs)", who,
                polka_loss_kind_name(problem->loss.kind), problem->outputs);
    return POLKA_OK;
}

polka_status polka_rff_central_ridge(const polka_rff_problem *problem,
                                     const polka_rff_batch *agents_data, size_t agents,
                                     double *theta) {
    POLKA_CALL(polka_rff_check_square(problem, "the exact random-feature ridge solution"));
    POLKA_CHECK(agents > 0, POLKA_ERR_ARG, "random-feature ridge: no agents");
    for (size_t i = 0; i < agents; i++)
        POLKA_CHECK(agents_data[i].n > 0, POLKA_ERR_ARG,
                    "random-feature ridge: agent %zu has no data", i);
    size_t D = problem->features;
    double *gram = calloc(D * D, sizeof *gram);
    POLKA_CHECK_ALLOC(gram);
    memset(theta, 0, D * sizeof *theta);
    for (size_t i = 0; i < agents; i++)
        polka_rff_normal_add(&agents_data[i], D, 1.0 / (double)agents_data[i].n, gram, theta);
    polka_status status =
        polka_rff_ridge_solve(gram, theta, D, 1, (double)agents * problem->lambda);
    free(gram);
    return status;
}
