#include "model_impl.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* Rows of x evaluated per kernel block: bounds the scratch to ROWS × M doubles. */
#define EVAL_BLOCK_ROWS 256

polka_status polka_model_create(const polka_kernel *kernel, size_t p, size_t c, polka_model **out) {
    POLKA_CHECK(p > 0 && c > 0, POLKA_ERR_ARG, "model needs p > 0 and c > 0 (got %zu, %zu)", p, c);
    const char *why = polka_kernel_check(kernel);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    polka_model *model = calloc(1, sizeof *model);
    POLKA_CHECK_ALLOC(model);
    model->kernel = *kernel;
    model->p = p;
    model->c = c;
    *out = model;
    return POLKA_OK;
}

void polka_model_free(polka_model **model) {
    if (model == NULL || *model == NULL) return;
    free((*model)->dict);
    free((*model)->weights);
    free((*model)->sqnorm);
    free(*model);
    *model = NULL;
}

polka_status polka_model_clone(const polka_model *model, polka_model **out) {
    polka_model *copy = NULL;
    POLKA_CALL(polka_model_create(&model->kernel, model->p, model->c, &copy));
    polka_status status = polka_model_assign(copy, model->dict, model->weights, model->m);
    if (status != POLKA_OK) {
        polka_model_free(&copy);
        return status;
    }
    *out = copy;
    return POLKA_OK;
}

size_t polka_model_order(const polka_model *model) {
    return model->m;
}
size_t polka_model_dim(const polka_model *model) {
    return model->p;
}
size_t polka_model_outputs(const polka_model *model) {
    return model->c;
}
const polka_kernel *polka_model_kernel(const polka_model *model) {
    return &model->kernel;
}
const double *polka_model_dictionary(const polka_model *model) {
    return model->dict;
}
const double *polka_model_weights(const polka_model *model) {
    return model->weights;
}

/* Rows allocated for m points: at least 16 (a small model never moves: with a million
 * features a point is 8 MB, and a move holds the old arrays and the new), beyond that a
 * sixteenth to spare (at least 4), so that a model that grows and shrinks by a few points an
 * update rarely moves, and stays near its size (many agents per rank: the model, not a
 * doubled capacity). */
static size_t rows_for(size_t m) {
    size_t rows = m + (m / 16 > 4 ? m / 16 : 4);
    return rows > 16 ? rows : 16;
}

polka_status polka_model_reserve(polka_model *model, size_t m) {
    if (m <= model->cap) return POLKA_OK;
    size_t cap = rows_for(m);
    double *dict = realloc(model->dict, cap * model->p * sizeof *dict);
    POLKA_CHECK(dict != NULL, POLKA_ERR_MEM,
                "out of memory for a model of %zu points of %zu features (%.0f MB; a point is "
                "%.1f MB)",
                cap, model->p, (double)cap * (double)model->p * 8.0 / 1e6,
                (double)model->p * 8.0 / 1e6);
    model->dict = dict;
    double *weights = realloc(model->weights, cap * model->c * sizeof *weights);
    POLKA_CHECK_ALLOC(weights);
    model->weights = weights;
    double *sqnorm = realloc(model->sqnorm, cap * sizeof *sqnorm);
    POLKA_CHECK_ALLOC(sqnorm);
    model->sqnorm = sqnorm;
    model->cap = cap;
    return POLKA_OK;
}

polka_status polka_model_eval(const polka_model *model, const double *x, size_t n, double *f_out) {
    if (model->m == 0) {
        memset(f_out, 0, n * model->c * sizeof *f_out);
        return POLKA_OK;
    }
    size_t rows = n < EVAL_BLOCK_ROWS ? n : EVAL_BLOCK_ROWS;
    double *block = malloc(rows * model->m * sizeof *block);
    POLKA_CHECK_ALLOC(block);
    for (size_t start = 0; start < n; start += rows) {
        size_t count = n - start < rows ? n - start : rows;
        polka_status status =
            polka_kernel_block(&model->kernel, x + start * model->p, count, model->dict,
                               model->sqnorm, model->m, model->p, block);
        if (status != POLKA_OK) {
            free(block);
            return status;
        }
        /* F = K(X, D) W */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)count, (int)model->c,
                    (int)model->m, 1.0, block, (int)model->m, model->weights, (int)model->c, 0.0,
                    f_out + start * model->c, (int)model->c);
    }
    free(block);
    return POLKA_OK;
}

polka_status polka_model_eval_keep(const polka_model *model, const double *x, size_t n,
                                   double *f_out, double *k_out) {
    if (model->m == 0) {
        memset(f_out, 0, n * model->c * sizeof *f_out);
        return POLKA_OK;
    }
    POLKA_CALL(polka_kernel_block(&model->kernel, x, n, model->dict, model->sqnorm, model->m,
                                  model->p, k_out));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)model->c, (int)model->m,
                1.0, k_out, (int)model->m, model->weights, (int)model->c, 0.0, f_out,
                (int)model->c);
    return POLKA_OK;
}

void polka_model_scale(polka_model *model, double factor) {
    if (model->m > 0) cblas_dscal((int)(model->m * model->c), factor, model->weights, 1);
}

polka_status polka_model_append(polka_model *model, const double *x, size_t n, const double *w) {
    if (n == 0) return POLKA_OK; /* an empty model has no arrays: memcpy must not see NULL */
    POLKA_CALL(polka_model_reserve(model, model->m + n));
    memcpy(model->dict + model->m * model->p, x, n * model->p * sizeof *x);
    memcpy(model->weights + model->m * model->c, w, n * model->c * sizeof *w);
    polka_sqnorms(x, n, model->p, model->sqnorm + model->m);
    model->m += n;
    return POLKA_OK;
}

polka_status polka_model_assign(polka_model *model, const double *d, const double *w, size_t m) {
    model->m = 0;
    model->version++;
    return polka_model_append(model, d, m, w);
}

void polka_model_remove(polka_model *model, size_t j) {
    size_t tail = model->m - j - 1;
    memmove(model->dict + j * model->p, model->dict + (j + 1) * model->p,
            tail * model->p * sizeof *model->dict);
    memmove(model->weights + j * model->c, model->weights + (j + 1) * model->c,
            tail * model->c * sizeof *model->weights);
    memmove(model->sqnorm + j, model->sqnorm + j + 1, tail * sizeof *model->sqnorm);
    model->m--;
    model->version++;
}

/* Gives back the rows of a model that shrank well below its allocation (a failed shrink
 * keeps the larger arrays). */
static void shrink_to_fit(polka_model *model) {
    if (model->cap <= rows_for(rows_for(model->m))) return;
    size_t cap = rows_for(model->m);
    double *dict = realloc(model->dict, cap * model->p * sizeof *dict);
    if (dict != NULL) model->dict = dict;
    double *weights = realloc(model->weights, cap * model->c * sizeof *weights);
    if (weights != NULL) model->weights = weights;
    double *sqnorm = realloc(model->sqnorm, cap * sizeof *sqnorm);
    if (sqnorm != NULL) model->sqnorm = sqnorm;
    model->cap = cap; /* every array has at least cap rows, shrunk or not */
}

void polka_model_keep(polka_model *model, const unsigned char *drop) {
    size_t kept = 0, p = model->p, c = model->c;
    for (size_t r = 0; r < model->m; r++) {
        if (drop[r]) continue;
        if (kept != r) {
            memcpy(model->dict + kept * p, model->dict + r * p, p * sizeof *model->dict);
            memcpy(model->weights + kept * c, model->weights + r * c, c * sizeof *model->weights);
            model->sqnorm[kept] = model->sqnorm[r];
        }
        kept++;
    }
    if (kept != model->m) model->version++;
    model->m = kept;
    shrink_to_fit(model);
}

polka_status polka_model_sqnorm(const polka_model *model, double *out) {
    *out = 0.0;
    if (model->m == 0) return POLKA_OK;
    size_t m = model->m, c = model->c;
    double *gram = malloc(m * m * sizeof *gram);
    double *kw = malloc(m * c * sizeof *kw);
    polka_status status = POLKA_ERR_MEM;
    if (gram != NULL && kw != NULL)
        status = polka_kernel_block(&model->kernel, model->dict, m, model->dict, model->sqnorm, m,
                                    model->p, gram);
    if (status == POLKA_OK) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)c, (int)m, 1.0, gram,
                    (int)m, model->weights, (int)c, 0.0, kw, (int)c);
        *out = cblas_ddot((int)(m * c), model->weights, 1, kw, 1);
    } else if (status == POLKA_ERR_MEM) {
        polka_error_set(status, "out of memory for a %zu×%zu Gram matrix", m, m);
    }
    free(gram);
    free(kw);
    return status;
}
