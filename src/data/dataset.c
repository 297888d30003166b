#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/data.h"

polka_status polka_dataset_alloc(polka_dataset *data, size_t n, size_t p, size_t classes) {
    *data = (polka_dataset){.n = n, .p = p, .classes = classes};
    data->x = malloc((n ? n : 1) * p * sizeof *data->x);
    data->y = malloc((n ? n : 1) * sizeof *data->y);
    if (data->x == NULL || data->y == NULL) {
        polka_dataset_free(data);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for a data set of %zu×%zu", n, p);
    }
    return POLKA_OK;
}

static void sparse_free(polka_sparse_rows *sparse) {
    if (sparse == NULL) return;
    free(sparse->value);
    free(sparse->index);
    free(sparse->start);
    free(sparse->base_index);
    free(sparse->base);
    free(sparse);
}

void polka_dataset_free(polka_dataset *data) {
    if (data == NULL) return;
    free(data->x);
    free(data->y);
    sparse_free(data->sparse);
    *data = (polka_dataset){0};
}

/* ‖x‖₂ by a plain sum in index order, no BLAS: the same bits whatever the library or rank. */
static double euclidean_norm(const double *x, size_t p) {
    double sum = 0.0;
    for (size_t j = 0; j < p; j++) sum += x[j] * x[j];
    return sqrt(sum);
}

void polka_unit_norm_row(double *x, size_t p) {
    double norm = euclidean_norm(x, p);
    if (!(norm > 0)) return;
    for (size_t j = 0; j < p; j++) x[j] /= norm;
}

polka_status polka_dataset_unit_norm(polka_dataset *data, const char *path) {
    polka_sparse_rows *s = data->sparse;
    if (s == NULL) {
        for (size_t i = 0; i < data->n; i++) polka_unit_norm_row(data->x + i * data->p, data->p);
        return POLKA_OK;
    }
    POLKA_CHECK(s->bases == 0, POLKA_ERR_ARG,
                "data.unit_norm = 1 cannot scale the sparse rows of '%s': %zu features read as "
                "non-zero where a row does not list them (their data.scale shift); set "
                "data.storage = dense",
                path, s->bases);
    for (size_t i = 0; i < data->n; i++) {
        size_t first = s->start[i], count = s->start[i + 1] - first;
        polka_unit_norm_row(s->value + first, count);
    }
    return POLKA_OK;
}

void polka_dataset_row(const polka_dataset *data, size_t i, double *row) {
    size_t p = data->p;
    const polka_sparse_rows *s = data->sparse;
    if (s == NULL) {
        memcpy(row, data->x + i * p, p * sizeof *row);
        return;
    }
    memset(row, 0, p * sizeof *row);
    for (size_t b = 0; b < s->bases; b++) row[s->base_index[b]] = s->base[b];
    for (size_t k = s->start[i]; k < s->start[i + 1]; k++) row[s->index[k]] = s->value[k];
}

const double *polka_dataset_rows(const polka_dataset *data, size_t first, size_t count,
                                 double *buffer) {
    if (data->sparse == NULL) return data->x + first * data->p;
    for (size_t i = 0; i < count; i++) polka_dataset_row(data, first + i, buffer + i * data->p);
    return buffer;
}

size_t polka_dataset_block_rows(size_t p) {
    const size_t model_rows = 256, bytes = (size_t)32 << 20;
    size_t row_bytes = (p ? p : 1) * sizeof(double);
    if (model_rows * row_bytes > bytes) return bytes / row_bytes ? bytes / row_bytes : 1;
    return bytes / (model_rows * row_bytes) * model_rows;
}

polka_status polka_dataset_eval(const polka_dataset *data, size_t outputs, polka_rows_eval_fn eval,
                                const void *context, double *f) {
    if (data->sparse == NULL) return eval(context, data->x, data->n, f);
    size_t block = polka_dataset_block_rows(data->p);
    if (block > data->n) block = data->n ? data->n : 1;
    double *buffer = malloc(block * data->p * sizeof *buffer);
    POLKA_CHECK(buffer != NULL, POLKA_ERR_MEM, "out of memory for %zu rows of %zu features", block,
                data->p);
    polka_status status = POLKA_OK;
    for (size_t first = 0; first < data->n && status == POLKA_OK; first += block) {
        size_t count = data->n - first < block ? data->n - first : block;
        status = eval(context, polka_dataset_rows(data, first, count, buffer), count,
                      f + first * outputs);
    }
    free(buffer);
    return status;
}

polka_status polka_dataset_write_libsvm(const polka_dataset *data, const char *path) {
    double *row = malloc((data->p ? data->p : 1) * sizeof *row);
    POLKA_CHECK_ALLOC(row);
    FILE *file = fopen(path, "w");
    if (file == NULL) free(row);
    POLKA_CHECK(file != NULL, POLKA_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    for (size_t i = 0; i < data->n; i++) {
        polka_dataset_row(data, i, row);
        if (data->classes > 0)
            fprintf(file, "%d", (int)data->y[i]);
        else
            fprintf(file, "%.17g", data->y[i]);
        for (size_t k = 0; k < data->p; k++) {
            double v = row[k];
            if (v != 0.0) fprintf(file, " %zu:%.17g", k + 1, v);
        }
        fputc('\n', file);
    }
    free(row);
    int failed = ferror(file);
    failed |= fclose(file) != 0;
    POLKA_CHECK(!failed, POLKA_ERR_IO, "error while writing '%s'", path);
    return POLKA_OK;
}
