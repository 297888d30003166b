/* The run file's reader: serial, default file access (no MPI). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_impl.h"
#include "polka/format.h"

struct polka_runfile_reader_s {
    hid_t file;
    char *path;
    size_t agents, rows;
    size_t columns; /* of the metrics: the agents 0, stride, 2 stride, ... */
};

/* ---- attributes ---------------------------------------------------------------------------- */

/* Every attribute polka reads holds one value. A damaged dataspace that declares many makes
 * H5Aread write them all (past the caller's one value) and, for strings, convert each: a
 * fuzzed file spent minutes there. */
static polka_status check_single(hid_t attr, const char *name, const char *where,
                                 const char *path) {
    hid_t space = H5Aget_space(attr);
    if (space < 0) return polka_h5_fail("get the dataspace of attribute", name, path);
    hssize_t points = H5Sget_simple_extent_npoints(space);
    polka_status status = polka_h5_close(&space, path);
    if (status != POLKA_OK) return status;
    POLKA_CHECK(points == 1, POLKA_ERR_FORMAT,
                "run file '%s': attribute '%s' on %s holds %lld values, not one", path, name, where,
                (long long)points);
    return POLKA_OK;
}

static polka_status attr_open(hid_t obj, const char *name, const char *where, const char *path,
                              hid_t *out) {
    htri_t exists = H5Aexists(obj, name);
    if (exists < 0) return polka_h5_fail("look up attribute", name, path);
    POLKA_CHECK(exists > 0, POLKA_ERR_FORMAT, "run file '%s' has no attribute '%s' on %s", path,
                name, where);
    *out = H5Aopen(obj, name, H5P_DEFAULT);
    if (*out < 0) return polka_h5_fail("open attribute", name, path);
    polka_status status = check_single(*out, name, where, path);
    if (status != POLKA_OK) (void)polka_h5_close(out, path);
    return status;
}

/* A numeric attribute converted to mem_type (HDF5 converts integers and floats). */
static polka_status attr_number(hid_t obj, const char *name, const char *where, hid_t mem_type,
                                void *value, const char *path) {
    hid_t attr = H5I_INVALID_HID;
    POLKA_CALL(attr_open(obj, name, where, path, &attr));
    polka_status status = POLKA_OK;
    if (H5Aread(attr, mem_type, value) < 0) status = polka_h5_fail("read attribute", name, path);
    return polka_h5_first(status, polka_h5_close(&attr, path));
}

/* An integer attribute in [low, high]. HDF5 clips a value its conversion cannot hold (2^64 - 1
 * read as int64), and a plain (int) cast would wrap 2^32 + 3 to 3: the range check catches
 * both. A float attribute is refused rather than truncated. */
static polka_status attr_integer(hid_t obj, const char *name, const char *where, int64_t low,
                                 int64_t high, int64_t *value, const char *path) {
    hid_t attr = H5I_INVALID_HID;
    POLKA_CALL(attr_open(obj, name, where, path, &attr));
    hid_t type = H5Aget_type(attr);
    polka_status status = POLKA_OK;
    if (type < 0)
        status = polka_h5_fail("get the type of attribute", name, path);
    else if (H5Tget_class(type) != H5T_INTEGER)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "run file '%s': attribute '%s' on %s is not an integer", path,
                                 name, where);
    else if (H5Aread(attr, H5T_NATIVE_INT64, value) < 0)
        status = polka_h5_fail("read attribute", name, path);
    else if (*value < low || *value > high)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "run file '%s': attribute '%s' on %s is %" PRId64
                                 ", outside [%" PRId64 ", %" PRId64 "]",
                                 path, name, where, *value, low, high);
    status = polka_h5_first(status, polka_h5_close(&type, path));
    return polka_h5_first(status, polka_h5_close(&attr, path));
}

static polka_status copy_text(const char *text, char *out, size_t size, const char *name) {
    POLKA_CHECK(strlen(text) < size, POLKA_ERR_ARG, "attribute '%s' longer than %zu characters",
                name, size - 1);
    strcpy(out, text);
    return POLKA_OK;
}

/* Null padding a fixed-length string attribute may carry beyond its text. */
#define STRING_PADDING 4096

/* A variable-length string type must equal the one HDF5 itself builds (characters of one
 * byte): a damaged base type of 2^31 bytes per character made H5Aread allocate and clear
 * gigabytes for an 8-character string, for minutes. */
static polka_status check_variable_string(hid_t type, const char *name, const char *path) {
    hid_t expected = H5Tcopy(H5T_C_S1);
    H5T_cset_t cset = H5Tget_cset(type);
    H5T_str_t pad = H5Tget_strpad(type);
    htri_t equal = -1;
    if (expected >= 0 && cset >= 0 && pad >= 0 && H5Tset_size(expected, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(expected, cset) >= 0 && H5Tset_strpad(expected, pad) >= 0)
        equal = H5Tequal(type, expected);
    (void)H5Eclear2(H5E_DEFAULT);
    polka_status status = polka_h5_close(&expected, path);
    if (status != POLKA_OK) return status;
    POLKA_CHECK(equal > 0, POLKA_ERR_FORMAT,
                "run file '%s': attribute '%s' has a damaged string type", path, name);
    return POLKA_OK;
}

/* A string attribute (variable or fixed length) into out. */
static polka_status read_string(hid_t attr, hid_t type, char *out, size_t size, const char *name,
                                const char *path) {
    htri_t variable = H5Tis_variable_str(type);
    if (variable < 0) return polka_h5_fail("inspect attribute", name, path);
    size_t fixed = variable ? 0 : H5Tget_size(type);
    if (!variable && fixed == 0) return polka_h5_fail("get the size of attribute", name, path);
    if (variable) POLKA_CALL(check_variable_string(type, name, path));
    /* a fixed-length string longer than out cannot be copied anyway: refuse it before the
     * buffer is allocated (a damaged type can declare gigabytes) */
    POLKA_CHECK(fixed <= size + STRING_PADDING, POLKA_ERR_ARG,
                "attribute '%s' longer than %zu characters", name, size - 1);
    hid_t mem = H5Tcopy(H5T_C_S1);
    char *text = NULL, *buffer = variable ? NULL : calloc(fixed + 1, 1);
    polka_status status = POLKA_OK;
    H5T_cset_t cset = H5Tget_cset(type);
    if (mem < 0 || cset < 0 || H5Tset_size(mem, variable ? H5T_VARIABLE : fixed + 1) < 0 ||
        H5Tset_cset(mem, cset) < 0)
        status = polka_h5_fail("set up a string type for", name, path);
    else if (!variable && buffer == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory reading '%s'", name);
    else if (H5Aread(attr, mem, variable ? (void *)&text : buffer) < 0)
        status = polka_h5_fail("read attribute", name, path);
    else
        status = copy_text(variable ? (text ? text : "") : buffer, out, size, name);
    if (text != NULL && H5free_memory(text) < 0)
        status = polka_h5_first(status, polka_h5_fail("free attribute", name, path));
    free(buffer);
    return polka_h5_first(status, polka_h5_close(&mem, path));
}

static polka_status read_text(hid_t attr, hid_t type, char *out, size_t size, const char *name,
                              const char *path) {
    char text[64];
    switch (H5Tget_class(type)) {
    case H5T_STRING:
        return read_string(attr, type, out, size, name, path);
    case H5T_INTEGER: {
        H5T_sign_t sign = H5Tget_sign(type);
        if (sign == H5T_SGN_ERROR) return polka_h5_fail("get the sign of attribute", name, path);
        int is_signed = sign == H5T_SGN_2;
        int64_t i = 0;
        uint64_t u = 0;
        if (H5Aread(attr, is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64,
                    is_signed ? (void *)&i : (void *)&u) < 0)
            return polka_h5_fail("read attribute", name, path);
        if (is_signed)
            snprintf(text, sizeof text, "%" PRId64, i);
        else
            snprintf(text, sizeof text, "%" PRIu64, u);
        return copy_text(text, out, size, name);
    }
    case H5T_FLOAT: {
        double value = 0;
        if (H5Aread(attr, H5T_NATIVE_DOUBLE, &value) < 0)
            return polka_h5_fail("read attribute", name, path);
        polka_format_double(text, sizeof text, value);
        return copy_text(text, out, size, name);
    }
    default:
        return polka_error_set(POLKA_ERR_FORMAT,
                               "run file '%s': attribute '%s' is not text or a "
                               "number",
                               path, name);
    }
}

static polka_status attr_text(hid_t obj, const char *name, const char *where, char *out,
                              size_t size, const char *path) {
    hid_t attr = H5I_INVALID_HID;
    POLKA_CALL(attr_open(obj, name, where, path, &attr));
    hid_t type = H5Aget_type(attr);
    polka_status status = type < 0 ? polka_h5_fail("get the type of attribute", name, path)
                                   : read_text(attr, type, out, size, name, path);
    status = polka_h5_first(status, polka_h5_close(&type, path));
    return polka_h5_first(status, polka_h5_close(&attr, path));
}

/* ---- opening ------------------------------------------------------------------------------- */

/* The length of a dataset's first dimension and its rank (dims: up to 2). */
static polka_status dataset_dims(hid_t dataset, int *rank, hsize_t *dims, const char *name,
                                 const char *path) {
    hid_t space = H5Dget_space(dataset);
    if (space < 0) return polka_h5_fail("get the dataspace of", name, path);
    polka_status status = POLKA_OK;
    *rank = H5Sget_simple_extent_ndims(space);
    if (*rank < 0)
        status = polka_h5_fail("get the dimensions of", name, path);
    else if (*rank > 2)
        status = polka_error_set(POLKA_ERR_FORMAT, "run file '%s': '%s' has %d dimensions", path,
                                 name, *rank);
    else if (H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        status = polka_h5_fail("get the dimensions of", name, path);
    return polka_h5_first(status, polka_h5_close(&space, path));
}

static polka_status open_dataset(hid_t loc, const char *name, const char *what, const char *path,
                                 hid_t *out) {
    htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
    if (exists < 0) return polka_h5_fail("look up", name, path);
    POLKA_CHECK(exists > 0, POLKA_ERR_FORMAT, "run file '%s' has no %s '%s'", path, what, name);
    *out = H5Dopen2(loc, name, H5P_DEFAULT);
    if (*out < 0) return polka_h5_fail("open dataset", name, path);
    return POLKA_OK;
}

/* Checks /metrics and reads the number of agents and rows. */
static polka_status read_layout(polka_runfile_reader *run) {
    htri_t exists = H5Lexists(run->file, "metrics", H5P_DEFAULT);
    POLKA_CHECK(exists > 0, POLKA_ERR_FORMAT, "'%s' is not a polka run file (no /metrics)",
                run->path);
    hid_t metrics = H5Gopen2(run->file, "metrics", H5P_DEFAULT);
    if (metrics < 0) return polka_h5_fail("open group", "/metrics", run->path);
    int64_t agents = 0;
    hid_t round = H5I_INVALID_HID;
    int rank = 0;
    hsize_t dims[2] = {0, 0};
    polka_status status =
        attr_integer(metrics, "agents", "/metrics", 1, POLKA_H5RUN_MAX_AGENTS, &agents, run->path);
    if (status == POLKA_OK) status = open_dataset(metrics, "round", "metric", run->path, &round);
    if (status == POLKA_OK) status = dataset_dims(round, &rank, dims, "/metrics/round", run->path);
    int64_t stride = 1;
    if (status == POLKA_OK && H5Aexists(metrics, "agent_stride") > 0)
        status = attr_integer(metrics, "agent_stride", "/metrics", 1, POLKA_H5RUN_MAX_AGENTS,
                              &stride, run->path);
    run->agents = (size_t)agents;
    run->columns = ((size_t)agents + (size_t)stride - 1) / (size_t)stride;
    run->rows = (size_t)dims[0];
    status = polka_h5_first(status, polka_h5_close(&round, run->path));
    return polka_h5_first(status, polka_h5_close(&metrics, run->path));
}

/* POLKA_ERR_IO when the file cannot be read, POLKA_ERR_FORMAT when it is not HDF5. */
static polka_status check_readable(const char *path) {
    FILE *file = fopen(path, "rb");
    POLKA_CHECK(file != NULL, POLKA_ERR_IO, "cannot open run file '%s': %s", path, strerror(errno));
    fclose(file);
    htri_t is_hdf5 = H5Fis_hdf5(path);
    (void)H5Eclear2(H5E_DEFAULT);
    POLKA_CHECK(is_hdf5 > 0, POLKA_ERR_FORMAT, "'%s' is not an HDF5 file", path);
    return POLKA_OK;
}

polka_status polka_runfile_reader_open(const char *path, polka_runfile_reader **out) {
    POLKA_CHECK(path != NULL, POLKA_ERR_ARG, "run file: no path");
    polka_h5_quiet();
    POLKA_CALL(check_readable(path));
    polka_runfile_reader *run = calloc(1, sizeof *run);
    POLKA_CHECK_ALLOC(run);
    run->file = H5I_INVALID_HID;
    run->path = malloc(strlen(path) + 1);
    polka_status status = POLKA_OK;
    if (run->path == NULL) status = polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK) {
        strcpy(run->path, path);
        run->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (run->file < 0) { /* HDF5, but damaged: a truncated file, say */
            (void)polka_h5_fail("open run file", NULL, path);
            status = polka_error_set(POLKA_ERR_FORMAT, "%s", polka_error_message());
        }
    }
    if (status == POLKA_OK) status = read_layout(run);
    if (status != POLKA_OK) {
        char message[1024];
        snprintf(message, sizeof message, "%s", polka_error_message());
        polka_runfile_reader_close(&run);
        return polka_error_set(status, "%s", message);
    }
    *out = run;
    return POLKA_OK;
}

void polka_runfile_reader_close(polka_runfile_reader **run) {
    if (run == NULL || *run == NULL) return;
    (void)polka_h5_close(&(*run)->file, "");
    free((*run)->path);
    free(*run);
    *run = NULL;
}

size_t polka_runfile_reader_agents(const polka_runfile_reader *run) {
    return run->agents;
}

size_t polka_runfile_reader_columns(const polka_runfile_reader *run) {
    return run->columns;
}

size_t polka_runfile_reader_rows(const polka_runfile_reader *run) {
    return run->rows;
}

/* ---- metrics and configuration ------------------------------------------------------------ */

/* A dataset whose chunk records declare more storage than the whole file holds is damaged:
 * refused before libhdf5 sizes a read buffer by such a record (a fuzzed chunk size of 4 GB). */
static polka_status check_storage(hid_t dataset, const char *what, const char *name,
                                  const char *path) {
    hsize_t stored = H5Dget_storage_size(dataset), file_bytes = 0;
    hid_t file = H5Iget_file_id(dataset);
    if (file < 0) return polka_h5_fail("find the file of", name, path);
    herr_t got = H5Fget_filesize(file, &file_bytes);
    POLKA_CALL(polka_h5_close(&file, path));
    if (got < 0) return polka_h5_fail("get the size of", NULL, path);
    POLKA_CHECK(stored <= file_bytes, POLKA_ERR_FORMAT,
                "run file '%s': %s '%s' declares %llu bytes of storage, more than the whole file "
                "(%llu bytes)",
                path, what, name, (unsigned long long)stored, (unsigned long long)file_bytes);
    return POLKA_OK;
}

static polka_status read_row(const polka_runfile_reader *run, hid_t dataset, const char *name,
                             size_t row, double *values) {
    int rank = 0;
    hsize_t dims[2] = {0, 0};
    POLKA_CALL(dataset_dims(dataset, &rank, dims, name, run->path));
    POLKA_CALL(check_storage(dataset, "metric", name, run->path));
    /* values has room for one value per agent, or one for "round" and "samples" */
    if (strcmp(name, "round") == 0 || strcmp(name, "samples") == 0)
        POLKA_CHECK(rank == 1, POLKA_ERR_FORMAT, "run file '%s': metric '%s' is not 1-D", run->path,
                    name);
    else
        POLKA_CHECK(rank == 2 && dims[1] == run->columns, POLKA_ERR_FORMAT,
                    "run file '%s': metric '%s' is not rows × %zu agents", run->path, name,
                    run->columns);
    POLKA_CHECK(dims[0] > 0, POLKA_ERR_FORMAT, "run file '%s': metric '%s' has no rows", run->path,
                name);
    if (row == POLKA_H5RUN_LAST) row = (size_t)dims[0] - 1;
    POLKA_CHECK(row < dims[0], POLKA_ERR_ARG, "run file '%s': metric '%s' has no row %zu",
                run->path, name, row);
    hsize_t start[2] = {row, 0}, count[2] = {1, rank == 2 ? dims[1] : 1};
    hsize_t n = count[1];
    hid_t file_space = H5Dget_space(dataset), mem = H5Screate_simple(1, &n, NULL);
    polka_status status = POLKA_OK;
    if (file_space < 0 || mem < 0 ||
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
        status = polka_h5_fail("select a row of metric", name, run->path);
    else if (H5Dread(dataset, H5T_NATIVE_DOUBLE, mem, file_space, H5P_DEFAULT, values) < 0)
        status = polka_h5_fail("read a row of metric", name, run->path);
    status = polka_h5_first(status, polka_h5_close(&mem, run->path));
    return polka_h5_first(status, polka_h5_close(&file_space, run->path));
}

int polka_runfile_reader_has_metric(const polka_runfile_reader *run, const char *name) {
    if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL) return 0;
    char where[256];
    snprintf(where, sizeof where, "metrics/%s", name);
    htri_t exists = H5Lexists(run->file, "metrics", H5P_DEFAULT);
    if (exists > 0) exists = H5Lexists(run->file, where, H5P_DEFAULT);
    (void)H5Eclear2(H5E_DEFAULT);
    return exists > 0;
}

polka_status polka_runfile_reader_metric_row(const polka_runfile_reader *run, const char *name,
                                             size_t row, double *values) {
    POLKA_CHECK(name != NULL && name[0] != '\0' && strchr(name, '/') == NULL, POLKA_ERR_ARG,
                "bad metric name");
    hid_t metrics = H5Gopen2(run->file, "metrics", H5P_DEFAULT), dataset = H5I_INVALID_HID;
    if (metrics < 0) return polka_h5_fail("open group", "/metrics", run->path);
    polka_status status = open_dataset(metrics, name, "metric", run->path, &dataset);
    if (status == POLKA_OK) status = read_row(run, dataset, name, row, values);
    status = polka_h5_first(status, polka_h5_close(&dataset, run->path));
    return polka_h5_first(status, polka_h5_close(&metrics, run->path));
}

polka_status polka_runfile_reader_config_string(const polka_runfile_reader *run, const char *key,
                                                char *out, size_t size) {
    POLKA_CHECK(key != NULL && out != NULL && size > 0, POLKA_ERR_ARG, "bad config query");
    htri_t exists = H5Lexists(run->file, "config", H5P_DEFAULT);
    POLKA_CHECK(exists > 0, POLKA_ERR_FORMAT, "run file '%s' has no /config", run->path);
    hid_t config = H5Gopen2(run->file, "config", H5P_DEFAULT);
    if (config < 0) return polka_h5_fail("open group", "/config", run->path);
    polka_status status = attr_text(config, key, "/config", out, size, run->path);
    return polka_h5_first(status, polka_h5_close(&config, run->path));
}

/* ---- models ------------------------------------------------------------------------------- */

/* The models: runfile_read_kernel.c. */

/* ---- the helpers, for the readers of other files (runfile_read_rff.c) --------------------------
 */

hid_t polka_runfile_reader_file_id(const polka_runfile_reader *run) {
    return run->file;
}

const char *polka_runfile_reader_path(const polka_runfile_reader *run) {
    return run->path;
}

polka_status polka_h5_read_number(hid_t obj, const char *name, const char *where, hid_t mem_type,
                                  void *value, const char *path) {
    return attr_number(obj, name, where, mem_type, value, path);
}

polka_status polka_h5_read_integer(hid_t obj, const char *name, const char *where, int64_t low,
                                   int64_t high, int64_t *value, const char *path) {
    return attr_integer(obj, name, where, low, high, value, path);
}

polka_status polka_h5_read_text(hid_t obj, const char *name, const char *where, char *out,
                                size_t size, const char *path) {
    return attr_text(obj, name, where, out, size, path);
}

polka_status polka_h5_open_dataset(hid_t loc, const char *name, const char *what, const char *path,
                                   hid_t *out) {
    return open_dataset(loc, name, what, path, out);
}

polka_status polka_h5_check_storage(hid_t dataset, const char *what, const char *name,
                                    const char *path) {
    return check_storage(dataset, what, name, path);
}

polka_status polka_h5_dataset_dims(hid_t dataset, int *rank, hsize_t *dims, const char *name,
                                   const char *path) {
    return dataset_dims(dataset, rank, dims, name, path);
}
