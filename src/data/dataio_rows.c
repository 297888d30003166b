/* The samples a read keeps, dense rows or sparse ones, grown within the memory limit. */
#include "data/dataio_impl.h"

#include <stdlib.h>

/* The capacity after cap rows: doubled, within the memory limit (each row takes p features, its
 * target and its index; a sparse row its target, index and offset, beside the values already
 * held); POLKA_ERR_MEM when not even one more row fits. */
static polka_status rows_capacity(const dataio_rows *rows, size_t *cap) {
    size_t p = rows->p ? rows->p : 1;
    double row_bytes = (double)(rows->sparse ? 3 : p + 2) * sizeof(double);
    double values = 12.0 * (double)rows->nnz_capacity;
    double fit = ((double)rows->memory_limit - values) / row_bytes;
    if (fit < 0) fit = 0;
    size_t wanted = rows->capacity ? 2 * rows->capacity : 64;
    *cap = (double)wanted <= fit ? wanted : (size_t)fit;
    POLKA_CHECK(*cap > rows->n, POLKA_ERR_MEM,
                "%zu samples of %zu features take %s, over the memory limit of %s%s", rows->n + 1,
                rows->p, dataio_size_text((double)(rows->n + 1) * row_bytes),
                dataio_size_text((double)rows->memory_limit),
                dataio_memory_origin(rows->memory_limit));
    return POLKA_OK;
}

polka_status dataio_rows_grow(dataio_rows *rows, size_t cap) {
    if (rows->sparse) {
        POLKA_CALL(dataio_grow((void **)&rows->start, cap + 1, sizeof(size_t)));
        rows->start[0] = 0;
    } else {
        POLKA_CALL(dataio_grow((void **)&rows->x, cap * (rows->p ? rows->p : 1), sizeof(double)));
    }
    POLKA_CALL(dataio_grow((void **)&rows->y, cap, sizeof(double)));
    POLKA_CALL(dataio_grow((void **)&rows->index, cap, sizeof(uint64_t)));
    rows->capacity = cap;
    return POLKA_OK;
}

/* Room for one more row (n < capacity afterwards). */
static polka_status rows_room(dataio_rows *rows) {
    if (rows->n < rows->capacity) return POLKA_OK;
    size_t cap = 0;
    POLKA_CALL(rows_capacity(rows, &cap));
    return dataio_rows_grow(rows, cap);
}

polka_status dataio_rows_push(dataio_rows *rows, uint64_t index, double target, double **row) {
    POLKA_CALL(rows_room(rows));
    rows->y[rows->n] = target;
    rows->index[rows->n] = index;
    *row = rows->x + rows->n * rows->p;
    rows->n++;
    return POLKA_OK;
}

/* Room for nnz more sparse values: doubled, within the memory limit (12 bytes a value). */
static polka_status values_room(dataio_rows *rows, size_t nnz) {
    size_t wanted = rows->nnz + nnz;
    if (wanted <= rows->nnz_capacity) return POLKA_OK;
    size_t cap = rows->nnz_capacity ? 2 * rows->nnz_capacity : 1024;
    if (cap < wanted) cap = wanted;
    double held = 24.0 * (double)(rows->capacity + 1);
    double fit = ((double)rows->memory_limit - held) / 12.0;
    if ((double)cap > fit) cap = fit > (double)wanted ? (size_t)fit : wanted;
    POLKA_CHECK((double)cap <= fit, POLKA_ERR_MEM,
                "%zu samples listing %zu values take %s, over the memory limit of %s%s",
                rows->n + 1, wanted, dataio_size_text(held + 12.0 * (double)wanted),
                dataio_size_text((double)rows->memory_limit),
                dataio_memory_origin(rows->memory_limit));
    POLKA_CALL(dataio_grow((void **)&rows->value, cap, sizeof(double)));
    POLKA_CALL(dataio_grow((void **)&rows->feature, cap, sizeof(uint32_t)));
    rows->nnz_capacity = cap;
    return POLKA_OK;
}

polka_status dataio_rows_push_sparse(dataio_rows *rows, uint64_t index, double target,
                                     const size_t *feature, const double *value, size_t nnz) {
    POLKA_CALL(rows_room(rows));
    POLKA_CALL(values_room(rows, nnz));
    for (size_t k = 0; k < nnz; k++) {
        rows->value[rows->nnz + k] = value[k];
        rows->feature[rows->nnz + k] = (uint32_t)feature[k]; /* < 2^24 */
    }
    rows->nnz += nnz;
    rows->y[rows->n] = target;
    rows->index[rows->n] = index;
    rows->n++;
    rows->start[rows->n] = rows->nnz;
    return POLKA_OK;
}

void dataio_rows_free(dataio_rows *rows) {
    free(rows->x);
    free(rows->y);
    free(rows->index);
    free(rows->value);
    free(rows->feature);
    free(rows->start);
    *rows = (dataio_rows){0};
}

void *dataio_shrink(void *array, size_t size) {
    void *smaller = realloc(array, size);
    return smaller ? smaller : array;
}
