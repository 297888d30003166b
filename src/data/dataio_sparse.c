/* Sparse storage of LIBSVM samples: the storage setting, when sparse pays, the rows a read
 * hands over, and their scaling (the rules are described in polka/dataio.h). */
#include "data/dataio_impl.h"

#include <stdlib.h>
#include <string.h>

static const char *const storage_names[] = {"dense", "sparse", "auto"};

polka_status polka_storage_parse(const char *name, polka_storage *storage) {
    int index;
    POLKA_CALL(
        polka_name_find(name, storage_names, POLKA_COUNT(storage_names), "data storage", &index));
    *storage = (polka_storage)index;
    return POLKA_OK;
}

const char *polka_storage_name(polka_storage storage) {
    return polka_name_at(storage_names, POLKA_COUNT(storage_names), (int)storage);
}

int polka_data_sparse_pays(const polka_data_info *info) {
    if (info->format != POLKA_FORMAT_LIBSVM) return 0;
    double n = (double)info->n;
    /* sparse: 8 bytes a value, 4 a feature index, 8 a row offset; dense: 8·p a row */
    return 12.0 * (double)info->values + 8.0 * n < 8.0 * n * (double)info->p;
}

polka_status dataio_rows_finish_sparse(dataio_rows *rows, polka_dataset *out) {
    size_t nnz = rows->nnz;
    polka_sparse_rows *sparse = calloc(1, sizeof *sparse);
    POLKA_CHECK_ALLOC(sparse);
    if (rows->value == NULL) { /* no value listed: still hand out arrays */
        rows->value = malloc(sizeof *rows->value);
        rows->feature = malloc(sizeof *rows->feature);
        if (rows->value == NULL || rows->feature == NULL) free(sparse);
        POLKA_CHECK_ALLOC(rows->value && rows->feature ? rows->value : NULL);
    }
    *sparse = (polka_sparse_rows){
        .value = dataio_shrink(rows->value, (nnz ? nnz : 1) * sizeof *rows->value),
        .index = dataio_shrink(rows->feature, (nnz ? nnz : 1) * sizeof *rows->feature),
        .start = dataio_shrink(rows->start, (rows->n + 1) * sizeof *rows->start),
        .nnz = rows->nnz,
    };
    rows->value = NULL;
    rows->feature = NULL;
    rows->start = NULL;
    out->sparse = sparse;
    return POLKA_OK;
}

/* The per-feature terms of the scaling into sparse (shift, factor, and base: where 0 goes). */
static polka_status scale_terms(polka_sparse_rows *sparse, const polka_data_info *info,
                                polka_scale_kind kind, size_t p) {
    sparse->shift = malloc(p * sizeof *sparse->shift);
    sparse->factor = malloc(p * sizeof *sparse->factor);
    sparse->base = malloc(p * sizeof *sparse->base);
    POLKA_CHECK(sparse->shift && sparse->factor && sparse->base, POLKA_ERR_MEM,
                "out of memory for the scaling of %zu features", p);
    for (size_t j = 0; j < p; j++) {
        dataio_scale_terms(info, kind, j, &sparse->shift[j], &sparse->factor[j]);
        /* what a dense 0 becomes: the same arithmetic as for a listed value */
        sparse->base[j] = (0.0 - sparse->shift[j]) * sparse->factor[j];
    }
    return POLKA_OK;
}

polka_status dataio_scale_sparse(polka_dataset *data, const polka_data_info *info,
                                 polka_scale_kind kind) {
    polka_sparse_rows *sparse = data->sparse;
    size_t p = data->p;
    POLKA_CHECK(sparse->shift == NULL, POLKA_ERR_ARG, "the data are scaled already");
    POLKA_CALL(scale_terms(sparse, info, kind, p));
    /* every scaled row must keep a finite ‖x‖², as for dense storage: expanded one by one */
    double *row = malloc(p * sizeof *row);
    POLKA_CHECK_ALLOC(row);
    polka_status status = POLKA_OK;
    for (size_t i = 0; i < data->n && status == POLKA_OK; i++) {
        polka_dataset_row(data, i, row);
        if (!dataio_norm_finite(row, p)) status = dataio_scale_error(row, p, info, kind, i);
    }
    free(row);
    return status;
}
