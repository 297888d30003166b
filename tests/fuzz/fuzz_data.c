#include "fuzz_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void require(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_data: %s\n", what);
    abort();
}

/* Every value finite and every ‖x‖² finite (what the kernels need). */
static void check_finite(const polka_dataset *data) {
    for (size_t i = 0; i < data->n; i++) {
        double norm = 0.0;
        for (size_t j = 0; j < data->p; j++) {
            double x = data->x[i * data->p + j];
            require(isfinite(x), "a non-finite feature was accepted");
            norm += x * x;
        }
        require(isfinite(norm), "a sample whose squared norm overflows was accepted");
        require(isfinite(data->y[i]), "a non-finite target was accepted");
    }
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
        require(data.x == NULL && index == NULL, "a failed read left data behind");
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
    polka_data_info_free(&info);
}
