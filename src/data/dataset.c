#include <errno.h>
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

void polka_dataset_free(polka_dataset *data) {
    if (data == NULL) return;
    free(data->x);
    free(data->y);
    *data = (polka_dataset){0};
}

polka_status polka_dataset_write_libsvm(const polka_dataset *data, const char *path) {
    FILE *file = fopen(path, "w");
    POLKA_CHECK(file != NULL, POLKA_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    for (size_t i = 0; i < data->n; i++) {
        if (data->classes > 0)
            fprintf(file, "%d", (int)data->y[i]);
        else
            fprintf(file, "%.17g", data->y[i]);
        for (size_t k = 0; k < data->p; k++) {
            double v = data->x[i * data->p + k];
            if (v != 0.0) fprintf(file, " %zu:%.17g", k + 1, v);
        }
        fputc('\n', file);
    }
    int failed = ferror(file);
    failed |= fclose(file) != 0;
    POLKA_CHECK(!failed, POLKA_ERR_IO, "error while writing '%s'", path);
    return POLKA_OK;
}
