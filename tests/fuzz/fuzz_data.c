#include "fuzz_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_data: %s\n", what);
    abort();
}

/* Every value finite and every ‖x‖² finite (what the kernels need), dense or sparse. */
static void check_finite(const polka_dataset *data) {
    double *row = malloc((data->p ? data->p : 1) * sizeof *row);
    require(row != NULL, "out of memory");
    for (size_t i = 0; i < data->n; i++) {
        double norm = 0.0;
        polka_dataset_row(data, i, row);
        for (size_t j = 0; j < data->p; j++) {
            double x = row[j];
            require(isfinite(x), "a non-finite feature was accepted");
            norm += x * x;
        }
        require(isfinite(norm), "a sample whose squared norm overflows was accepted");
        require(isfinite(data->y[i]), "a non-finite target was accepted");
    }
    free(row);
}

static int keep_odd(void *context, uint64_t index) {
    (void)context;
    return index % 2 == 1;
}

static void read_and_scale(const char *path, const polka_read_options *options,
                           const polka_data_info *info, polka_keep_fn keep) {
    polka_dataset data;
    uint64_t *index = NULL;
    if (polka_data_read(path, options, info, keep, NULL, &data, &index) != POLKA_OK) {
        require(data.x == NULL && data.sparse == NULL && index == NULL,
                "a failed read left data behind");
        polka_error_clear();
        return;
    }
    require(data.p == info->p && data.classes == info->classes, "the read disagrees with the scan");
    require(keep != NULL || data.n == info->n, "the read kept another number of samples");
    check_finite(&data);
    for (int kind = POLKA_SCALE_UNIT; kind <= POLKA_SCALE_STANDARD; kind++) {
        if (polka_data_scale(&data, info, (polka_scale_kind)kind) == POLKA_OK)
            check_finite(&data);
        else
            polka_error_clear();
    }
    polka_dataset_free(&data);
    free(index);
}

/* The file read with storage, scaled by kind; 0 when the read or the scaling failed. */
static int read_stored(const char *path, const polka_read_options *options,
                       const polka_data_info *info, polka_storage storage, polka_scale_kind kind,
                       polka_dataset *data) {
    polka_read_options stored = *options;
    stored.storage = storage;
    if (polka_data_read(path, &stored, info, keep_odd, NULL, data, NULL) != POLKA_OK) {
        polka_error_clear();
        return 0;
    }
    if (polka_data_scale(data, info, kind) == POLKA_OK) return 1;
    polka_error_clear();
    polka_dataset_free(data);
    return 0;
}

/* LIBSVM: stored sparse, the samples expand to the very doubles of the dense storage, scaled
 * each way (when both reads fit the memory limit). */
static void compare_storage(const char *path, const polka_read_options *options,
                            const polka_data_info *info) {
    for (int kind = POLKA_SCALE_NONE; kind <= POLKA_SCALE_STANDARD; kind++) {
        polka_dataset dense, sparse;
        if (!read_stored(path, options, info, POLKA_STORAGE_DENSE, kind, &dense)) continue;
        if (read_stored(path, options, info, POLKA_STORAGE_SPARSE, kind, &sparse)) {
            require(sparse.sparse != NULL && sparse.n == dense.n, "the sparse read differs");
            double *row = malloc((sparse.p ? sparse.p : 1) * sizeof *row);
            require(row != NULL, "out of memory");
            for (size_t i = 0; i < sparse.n; i++) {
                polka_dataset_row(&sparse, i, row);
                require(memcmp(row, dense.x + i * dense.p, dense.p * sizeof *row) == 0 &&
                            sparse.y[i] == dense.y[i],
                        "a sparse sample differs from the dense one");
            }
            free(row);
            polka_dataset_free(&sparse);
        }
        polka_dataset_free(&dense);
    }
}

void fuzz_data_run(const char *path, const polka_read_options *options) {
    polka_read_options resolved = *options;
    resolved.memory_limit = FUZZ_DATA_MEMORY_LIMIT;
    polka_data_info info;
    if (polka_data_scan(path, &resolved, &info) != POLKA_OK) {
        polka_error_clear();
        return;
    }
    read_and_scale(path, &resolved, &info, NULL);
    read_and_scale(path, &resolved, &info, keep_odd);
    if (info.format == POLKA_FORMAT_LIBSVM) compare_storage(path, &resolved, &info);
    polka_data_info_free(&info);
}
