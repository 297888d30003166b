/* Exact kernel ridge regression: the reference beside SLKL ([MPARG11], eqs. 6–10). */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "polka/loss.h"
#include "polka/slkl.h"
#include "polka/stop.h"

polka_status polka_krr_solve(const double *gram, const double *y, size_t n, double lambda,
                             double *alpha) {
    POLKA_CHECK(n > 0, POLKA_ERR_ARG, "KRR: no data");
    POLKA_CHECK(lambda > 0, POLKA_ERR_ARG, "KRR: lambda must be > 0 (got %g)", lambda);
    double *a = malloc(n * n * sizeof *a);
    POLKA_CHECK_ALLOC(a);
    memcpy(a, gram, n * n * sizeof *a);
    double shift = (double)n * lambda;
    for (size_t i = 0; i < n; i++) a[i * n + i] += shift;
    memcpy(alpha, y, n * sizeof *alpha);
    /* (K + nλI) α = y by Cholesky (eq. 8 with the paper's λ = nλ). */
    lapack_int info =
        LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, 1, a, (lapack_int)n, alpha, 1);
    free(a);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC,
                "KRR: Cholesky of K + n*lambda*I failed (dposv info %d, n = %zu, lambda = %g)",
                (int)info, n, lambda);
    return POLKA_OK;
}

polka_status polka_krr_fit(const polka_kernel *kernel, const double *x, const double *y, size_t n,
                           size_t p, double lambda, polka_model **out) {
    const char *why = polka_kernel_check(kernel);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "KRR: %s", why);
    POLKA_CHECK(n > 0 && p > 0, POLKA_ERR_ARG, "KRR: empty data (n = %zu, p = %zu)", n, p);
    double *gram = malloc(n * n * sizeof *gram), *alpha = malloc(n * sizeof *alpha);
    polka_status status = POLKA_OK;
    if (gram == NULL || alpha == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "KRR: out of memory for the %zu×%zu Gram", n, n);
    if (status == POLKA_OK) status = polka_kernel_block(kernel, x, n, x, NULL, n, p, gram);
    if (status == POLKA_OK) status = polka_stop_check("KRR, after its Gram matrix");
    if (status == POLKA_OK) status = polka_krr_solve(gram, y, n, lambda, alpha);
    polka_model *model = NULL;
    if (status == POLKA_OK) status = polka_model_create(kernel, p, 1, &model);
    if (status == POLKA_OK) status = polka_model_append(model, x, n, alpha);
    free(gram);
    free(alpha);
    if (status != POLKA_OK) {
        polka_model_free(&model);
        return status;
    }
    *out = model;
    return POLKA_OK;
}

/* Rows per block of the evaluation, to bound the scratch. */
#define MSE_BLOCK 1024

polka_status polka_krr_mse(const polka_model *model, const double *x, const double *y, size_t n,
                           double *mse) {
    POLKA_CHECK(polka_model_outputs(model) == 1, POLKA_ERR_ARG,
                "MSE: the model has %zu outputs, not 1", polka_model_outputs(model));
    POLKA_CHECK(n > 0, POLKA_ERR_ARG, "MSE: no data");
    size_t p = polka_model_dim(model), rows = n < MSE_BLOCK ? n : MSE_BLOCK;
    double *f = malloc(rows * sizeof *f);
    POLKA_CHECK_ALLOC(f);
    double sum = 0.0;
    for (size_t first = 0; first < n; first += rows) {
        size_t count = n - first < rows ? n - first : rows;
        polka_status status = polka_model_eval(model, x + first * p, count, f);
        if (status != POLKA_OK) {
            free(f);
            return status;
        }
        sum += polka_squared_error(f, y + first, count);
    }
    free(f);
    *mse = sum / (double)n;
    return POLKA_OK;
}
