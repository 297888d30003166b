/* Sparse storage of LIBSVM samples: the storage setting, when sparse pays, the rows a read
 * hands over, and their scaling (the rules are described in polka/dataio.h). */
#include "data/dataio_impl.h"

#include <math.h>
#include <stdint.h>
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

/* 1 when x is not +0 (a NaN, −0 or any other value): a base a row must read. */
static int not_plus_zero(double x) {
    return x != 0.0 || signbit(x);
}

/* The bases of the scaling, (0 − shift)·factor, of the features that have training statistics
 * where that is not +0; every other feature has shift 0 and factor 0, hence the base +0. */
static polka_status scale_bases(polka_sparse_rows *sparse, const polka_data_info *info,
                                polka_scale_kind kind) {
    size_t bases = 0;
    for (int fill = 0; fill < 2; fill++) { /* count, then fill */
        bases = 0;
        for (size_t e = 0; e < info->features; e++) {
            size_t j = info->feature ? info->feature[e] : e;
            double shift, factor;
            dataio_scale_terms(info, kind, j, &shift, &factor);
            /* what a dense 0 becomes: the same arithmetic as for a listed value */
            double base = (0.0 - shift) * factor;
            if (!not_plus_zero(base)) continue;
            if (fill) sparse->base_index[bases] = (uint32_t)j, sparse->base[bases] = base;
            bases++;
        }
        if (fill || bases == 0) break;
        sparse->base_index = malloc(bases * sizeof *sparse->base_index);
        sparse->base = malloc(bases * sizeof *sparse->base);
        POLKA_CHECK(sparse->base_index && sparse->base, POLKA_ERR_MEM,
                    "out of memory for the scaling of %zu features", bases);
    }
    sparse->bases = bases;
    return POLKA_OK;
}

/* Every listed value v of feature j becomes (v − shift_j)·factor_j, the arithmetic of scaling
 * a dense value; each row walks the entries by increasing features. */
static void scale_values(polka_sparse_rows *sparse, size_t n, const polka_data_info *info,
                         polka_scale_kind kind) {
    static const polka_feature_stats zero_column = {0.0, 0.0, 0.0, 0.0};
    for (size_t i = 0; i < n; i++) {
        size_t e = 0;
        for (size_t k = sparse->start[i]; k < sparse->start[i + 1]; k++) {
            int found = dataio_info_entry(info, sparse->index[k], e, &e);
            polka_feature_stats f = found ? (polka_feature_stats){info->min[e], info->max[e],
                                                                  info->mean[e], info->stddev[e]}
                                          : zero_column;
            double shift, factor;
            dataio_terms_of(f, kind, &shift, &factor);
            sparse->value[k] = (sparse->value[k] - shift) * factor;
        }
    }
}

/* The values of row i as polka_dataset_row expands it, features increasing, without the
 * features that read +0: the row's listed values merged with the bases. */
typedef struct {
    const polka_sparse_rows *rows;
    size_t k, end, b;
} merged_row;

static merged_row merged_begin(const polka_sparse_rows *rows, size_t i) {
    return (merged_row){.rows = rows, .k = rows->start[i], .end = rows->start[i + 1]};
}

/* The next feature *j and its value *x; 0 at the end of the row. */
static int merged_next(merged_row *m, size_t *j, double *x) {
    const polka_sparse_rows *r = m->rows;
    size_t listed = m->k < m->end ? r->index[m->k] : SIZE_MAX;
    size_t based = m->b < r->bases ? r->base_index[m->b] : SIZE_MAX;
    if (listed == SIZE_MAX && based == SIZE_MAX) return 0;
    if (listed <= based) {
        *j = listed, *x = r->value[m->k++];
        m->b += listed == based; /* a listed value overrides the base */
    } else {
        *j = based, *x = r->base[m->b++];
    }
    return 1;
}

/* ‖x‖² of row i summed in the order of the features, as over the expanded row (the features
 * left out add +0), so it is the very double dense storage gives. */
static double row_norm(const polka_sparse_rows *rows, size_t i) {
    merged_row m = merged_begin(rows, i);
    size_t j;
    double x, sum = 0.0;
    while (merged_next(&m, &j, &x)) sum += x * x;
    return sum;
}

/* The error for row i of p features, naming the feature the dense storage's error names. */
static polka_status row_error(const polka_sparse_rows *rows, size_t i, size_t p,
                              const polka_data_info *info, polka_scale_kind kind) {
    merged_row m = merged_begin(rows, i);
    size_t j;
    double x, last = 0.0;
    while (merged_next(&m, &j, &x)) {
        if (j + 1 < p && dataio_scaled_too_large(x)) return dataio_scale_error(info, kind, i, j, x);
        if (j + 1 == p) last = x;
    }
    return dataio_scale_error(info, kind, i, p - 1, last);
}

polka_status dataio_scale_sparse(polka_dataset *data, const polka_data_info *info,
                                 polka_scale_kind kind) {
    polka_sparse_rows *sparse = data->sparse;
    POLKA_CHECK(!sparse->scaled, POLKA_ERR_ARG, "the data are scaled already");
    POLKA_CALL(scale_bases(sparse, info, kind));
    scale_values(sparse, data->n, info, kind);
    sparse->scaled = 1;
    /* every scaled row must keep a finite ‖x‖², as for dense storage */
    for (size_t i = 0; i < data->n; i++)
        if (!isfinite(row_norm(sparse, i))) return row_error(sparse, i, data->p, info, kind);
    return POLKA_OK;
}
