/* Reading a kernel model back (runfile.h): from the concatenated datasets of /models (kind
 * "kernel-expansions", runfile_models.c) or from the group /models/agent_NNNN of the files of
 * polka before them. Serial; every size is checked against the attributes and the storage
 * before anything is allocated, every value is finite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_impl.h"

#define WHERE    "/models"
#define ALL_ROWS UINT64_MAX

static polka_status read_kernel(hid_t group, const char *where, const char *path,
                                polka_kernel *kernel) {
    char name[POLKA_NAME_LEN];
    int64_t degree = 0;
    POLKA_CALL(polka_h5_read_text(group, "kernel", where, name, sizeof name, path));
    POLKA_CHECK(polka_kernel_kind_parse(name, &kernel->kind) == POLKA_OK, POLKA_ERR_FORMAT,
                "run file '%s': %s: %s", path, where, polka_error_message());
    POLKA_CALL(
        polka_h5_read_number(group, "sigma", where, H5T_NATIVE_DOUBLE, &kernel->sigma, path));
    POLKA_CALL(
        polka_h5_read_integer(group, "degree", where, 1, POLKA_H5RUN_MAX_DEGREE, &degree, path));
    POLKA_CALL(
        polka_h5_read_number(group, "coef0", where, H5T_NATIVE_DOUBLE, &kernel->coef0, path));
    kernel->degree = (int)degree;
    return POLKA_OK;
}

/* rows × cols doubles of a model dataset, bounded before anything is allocated: the product
 * must not wrap and the dataset must store at least 1/POLKA_H5RUN_MAX_EXPANSION of it. */
static polka_status check_matrix_size(hid_t dataset, const hsize_t *dims, const char *name,
                                      const char *path) {
    hsize_t elements = dims[0] * dims[1];
    POLKA_CHECK(dims[1] == 0 || elements / dims[1] == dims[0], POLKA_ERR_FORMAT,
                "run file '%s': model '%s' declares %llu × %llu values", path, name,
                (unsigned long long)dims[0], (unsigned long long)dims[1]);
    POLKA_CHECK(elements <= SIZE_MAX / sizeof(double) - 1, POLKA_ERR_FORMAT,
                "run file '%s': model '%s' declares %llu × %llu values", path, name,
                (unsigned long long)dims[0], (unsigned long long)dims[1]);
    hsize_t bytes = elements * sizeof(double), stored = H5Dget_storage_size(dataset);
    POLKA_CHECK(bytes / POLKA_H5RUN_MAX_EXPANSION <= stored, POLKA_ERR_FORMAT,
                "run file '%s': model '%s' declares %llu × %llu values (%llu bytes) but the file "
                "stores %llu bytes of it",
                path, name, (unsigned long long)dims[0], (unsigned long long)dims[1],
                (unsigned long long)bytes, (unsigned long long)stored);
    return POLKA_OK;
}

/* A NaN or an infinity in a saved model: the file was damaged or changed after the run. */
static polka_status check_finite(const double *data, size_t rows, size_t cols, const char *where,
                                 const char *name, const char *path) {
    for (size_t e = 0; e < rows * cols; e++)
        POLKA_CHECK(isfinite(data[e]), POLKA_ERR_FORMAT,
                    "run file '%s': the model is corrupt: %s/%s[%zu, %zu] = %g is not finite", path,
                    where, name, e / cols, e % cols, data[e]);
    return POLKA_OK;
}

/* Element index of the 1-D dataset /models/name of one value per agent, as mem_type (the
 * layout's order and offset of an agent, its margins). */
static polka_status read_element_as(hid_t models, const char *name, size_t index, size_t agents,
                                    const char *path, hid_t mem_type, void *value) {
    hid_t set = H5I_INVALID_HID;
    POLKA_CALL(polka_h5_open_dataset(models, name, "model dataset", path, &set));
    int rank = 0;
    hsize_t dims[2] = {0, 0};
    polka_status status = polka_h5_dataset_dims(set, &rank, dims, name, path);
    if (status == POLKA_OK && (rank != 1 || dims[0] != agents))
        status = polka_error_set(
            POLKA_ERR_FORMAT, "run file '%s': /models/%s does not hold one value per agent (%zu)",
            path, name, agents);
    if (status == POLKA_OK) status = polka_h5_check_storage(set, "model", name, path);
    hsize_t start[1] = {index}, one[1] = {1};
    hid_t space = status == POLKA_OK ? H5Dget_space(set) : H5I_INVALID_HID;
    hid_t memory = status == POLKA_OK ? H5Screate_simple(1, one, NULL) : H5I_INVALID_HID;
    if (status == POLKA_OK &&
        (space < 0 || memory < 0 ||
         H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, one, NULL) < 0 ||
         H5Dread(set, mem_type, memory, space, H5P_DEFAULT, value) < 0))
        status = polka_h5_fail("read model dataset", name, path);
    status = polka_h5_first(status, polka_h5_close(&memory, path));
    status = polka_h5_first(status, polka_h5_close(&space, path));
    return polka_h5_first(status, polka_h5_close(&set, path));
}

static polka_status read_element(hid_t models, const char *name, size_t index, size_t agents,
                                 const char *path, uint64_t *value) {
    return read_element_as(models, name, index, agents, path, H5T_NATIVE_UINT64, value);
}

/* rows [first, first + count) of a 2-D model dataset (count ALL_ROWS: all from first; its rows
 * into *total, its columns into *cols), allocated. */
static polka_status read_rows(hid_t models, const char *name, uint64_t first, uint64_t count,
                              const char *path, double **data, hsize_t *total, size_t *cols) {
    hid_t set = H5I_INVALID_HID;
    POLKA_CALL(polka_h5_open_dataset(models, name, "model dataset", path, &set));
    int rank = 0;
    hsize_t dims[2] = {0, 0};
    polka_status status = polka_h5_dataset_dims(set, &rank, dims, name, path);
    if (status == POLKA_OK && rank != 2)
        status =
            polka_error_set(POLKA_ERR_FORMAT, "run file '%s': model '%s' is not 2-D", path, name);
    if (status == POLKA_OK) status = polka_h5_check_storage(set, "model", name, path);
    if (status == POLKA_OK) status = check_matrix_size(set, dims, name, path);
    if (status == POLKA_OK && count == ALL_ROWS && first <= dims[0]) count = dims[0] - first;
    if (status == POLKA_OK && (first > dims[0] || count > dims[0] - first))
        status =
            polka_error_set(POLKA_ERR_FORMAT,
                            "run file '%s': an agent's rows %llu .. %llu are not rows of "
                            "/models/%s (%llu)",
                            path, (unsigned long long)first, (unsigned long long)(first + count),
                            name, (unsigned long long)dims[0]);
    if (status == POLKA_OK) {
        *total = dims[0];
        *cols = (size_t)dims[1];
        *data = malloc(((size_t)count * *cols + 1) * sizeof **data);
        if (*data == NULL) status = polka_error_set(POLKA_ERR_MEM, "out of memory");
    }
    hsize_t start[2] = {first, 0}, block[2] = {count, dims[1]};
    if (status == POLKA_OK && count * dims[1] > 0) {
        hid_t space = H5Dget_space(set), memory = H5Screate_simple(2, block, NULL);
        if (space < 0 || memory < 0 ||
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, block, NULL) < 0 ||
            H5Dread(set, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, *data) < 0)
            status = polka_h5_fail("read model dataset", name, path);
        status = polka_h5_first(status, polka_h5_close(&memory, path));
        status = polka_h5_first(status, polka_h5_close(&space, path));
    }
    return polka_h5_first(status, polka_h5_close(&set, path));
}

/* A whole 2-D dataset of the group, allocated into *data (rows × cols). */
static polka_status read_matrix(hid_t group, const char *name, const char *path, double **data,
                                size_t *rows, size_t *cols) {
    hsize_t total = 0;
    POLKA_CALL(read_rows(group, name, 0, ALL_ROWS, path, data, &total, cols));
    *rows = (size_t)total;
    return POLKA_OK;
}

static polka_status build_model(hid_t group, const char *where, const char *path,
                                polka_model **out) {
    polka_kernel kernel;
    POLKA_CALL(read_kernel(group, where, path, &kernel));
    double *dict = NULL, *weights = NULL;
    size_t m = 0, p = 0, mw = 0, c = 0;
    polka_status status = read_matrix(group, "dictionary", path, &dict, &m, &p);
    if (status == POLKA_OK) status = read_matrix(group, "weights", path, &weights, &mw, &c);
    if (status == POLKA_OK) status = check_finite(dict, m, p, where, "dictionary", path);
    if (status == POLKA_OK) status = check_finite(weights, mw, c, where, "weights", path);
    if (status == POLKA_OK && mw != m)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "run file '%s': %s has %zu dictionary rows but %zu weight rows",
                                 path, where, m, mw);
    polka_model *model = NULL;
    if (status == POLKA_OK) status = polka_model_create(&kernel, p, c, &model);
    if (status == POLKA_OK) status = polka_model_assign(model, dict, weights, m);
    free(dict);
    free(weights);
    if (status != POLKA_OK) polka_model_free(&model);
    if (status == POLKA_OK) *out = model;
    return status;
}

/* The layout of polka before the concatenated models: /models/agent_NNNN. */
static polka_status load_group_model(const polka_runfile_reader *run, size_t agent,
                                     polka_model **out) {
    char where[64];
    snprintf(where, sizeof where, "/models/agent_%04zu", agent);
    htri_t exists = H5Lexists(polka_runfile_reader_file_id(run), "models", H5P_DEFAULT);
    if (exists > 0) exists = H5Lexists(polka_runfile_reader_file_id(run), where, H5P_DEFAULT);
    POLKA_CHECK(exists > 0, POLKA_ERR_FORMAT, "run file '%s' has no model for agent %zu (%s)",
                polka_runfile_reader_path(run), agent, where);
    hid_t group = H5Gopen2(polka_runfile_reader_file_id(run), where, H5P_DEFAULT);
    if (group < 0) return polka_h5_fail("open group", where, polka_runfile_reader_path(run));
    polka_status status = build_model(group, where, polka_runfile_reader_path(run), out);
    return polka_h5_first(status, polka_h5_close(&group, polka_runfile_reader_path(run)));
}

/* Agent agent's rows of the concatenated layout. */
static polka_status build_packed_model(hid_t models, size_t agent, size_t agents, const char *path,
                                       polka_model **out) {
    polka_kernel kernel;
    POLKA_CALL(read_kernel(models, WHERE, path, &kernel));
    uint64_t order = 0, offset = 0;
    POLKA_CALL(read_element(models, "order", agent, agents, path, &order));
    POLKA_CALL(read_element(models, "offset", agent, agents, path, &offset));
    char where[64];
    snprintf(where, sizeof where, "/models (agent %zu)", agent);
    double *dict = NULL, *weights = NULL;
    size_t p = 0, c = 0;
    hsize_t rows = 0, weight_rows = 0;
    polka_status status = read_rows(models, "dictionary", offset, order, path, &dict, &rows, &p);
    if (status == POLKA_OK)
        status = read_rows(models, "weights", offset, order, path, &weights, &weight_rows, &c);
    if (status == POLKA_OK && rows != weight_rows)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "run file '%s': /models has %llu dictionary rows but %llu weight "
                                 "rows",
                                 path, (unsigned long long)rows, (unsigned long long)weight_rows);
    if (status == POLKA_OK)
        status = check_finite(dict, (size_t)order, p, where, "dictionary", path);
    if (status == POLKA_OK)
        status = check_finite(weights, (size_t)order, c, where, "weights", path);
    polka_model *model = NULL;
    if (status == POLKA_OK) status = polka_model_create(&kernel, p, c, &model);
    if (status == POLKA_OK) status = polka_model_assign(model, dict, weights, (size_t)order);
    free(dict);
    free(weights);
    if (status != POLKA_OK) polka_model_free(&model);
    if (status == POLKA_OK) *out = model;
    return status;
}

polka_status polka_runfile_reader_load_model(const polka_runfile_reader *run, size_t agent,
                                             polka_model **out) {
    hid_t file = polka_runfile_reader_file_id(run);
    const char *path = polka_runfile_reader_path(run);
    htri_t exists = H5Lexists(file, "models", H5P_DEFAULT);
    hid_t models = exists > 0 ? H5Gopen2(file, "models", H5P_DEFAULT) : H5I_INVALID_HID;
    htri_t packed = models >= 0 ? H5Aexists(models, "kind") : 0;
    polka_status status = POLKA_OK;
    if (packed > 0) { /* the kind is checked by polka_runfile_reader_models_kind */
        POLKA_CHECK(agent < polka_runfile_reader_agents(run), POLKA_ERR_FORMAT,
                    "run file '%s' has no model for agent %zu (%zu agents)", path, agent,
                    polka_runfile_reader_agents(run));
        status = build_packed_model(models, agent, polka_runfile_reader_agents(run), path, out);
    } else {
        status = load_group_model(run, agent, out);
    }
    return polka_h5_first(status, polka_h5_close(&models, path));
}

/* A margin of /models (rho or tube): one value per agent, finite (a novelty threshold may be
 * negative: polka_loss_check says which values the loss takes, after this). */
static polka_status read_margin(hid_t models, const char *name, size_t agent, size_t agents,
                                const char *path, double *value) {
    POLKA_CALL(read_element_as(models, name, agent, agents, path, H5T_NATIVE_DOUBLE, value));
    POLKA_CHECK(isfinite(*value), POLKA_ERR_FORMAT,
                "run file '%s': the model is corrupt: /models/%s[%zu] = %g is not finite", path,
                name, agent, *value);
    return POLKA_OK;
}

polka_status polka_runfile_reader_margins(const polka_runfile_reader *run, size_t agent,
                                          double *rho, double *tube, int *found) {
    hid_t file = polka_runfile_reader_file_id(run);
    const char *path = polka_runfile_reader_path(run);
    size_t agents = polka_runfile_reader_agents(run);
    *found = 0;
    htri_t exists = H5Lexists(file, "models", H5P_DEFAULT);
    hid_t models = exists > 0 ? H5Gopen2(file, "models", H5P_DEFAULT) : H5I_INVALID_HID;
    if (exists < 0 || (exists > 0 && models < 0)) return polka_h5_fail("open group", WHERE, path);
    htri_t has_rho = models >= 0 ? H5Lexists(models, "rho", H5P_DEFAULT) : 0;
    htri_t has_tube = models >= 0 ? H5Lexists(models, "tube", H5P_DEFAULT) : 0;
    polka_status status = POLKA_OK;
    if (has_rho < 0 || has_tube < 0)
        status = polka_h5_fail("look up the margins in", WHERE, path);
    else if (has_rho != has_tube)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "run file '%s': /models holds %s but not %s: the file is damaged",
                                 path, has_rho ? "rho" : "tube", has_rho ? "tube" : "rho");
    double r = 0.0, e = 0.0;
    if (status == POLKA_OK && has_rho > 0) {
        status = read_margin(models, "rho", agent, agents, path, &r);
        if (status == POLKA_OK) status = read_margin(models, "tube", agent, agents, path, &e);
        if (status == POLKA_OK) *rho = r, *tube = e, *found = 1;
    }
    return polka_h5_first(status, polka_h5_close(&models, path));
}
