/* Reading random-feature models back (runfile.h): serial, every size checked against the
 * attributes and the storage before anything is allocated, as the kernel models are. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_impl.h"
#include "polka/config.h"

#define WHERE "/models"

/* The largest C a file may declare (2^20 classes). */
#define MAX_OUTPUTS ((int64_t)1 << 20)

polka_status polka_runfile_reader_models_kind(const polka_runfile_reader *run,
                                              polka_runfile_reader_models *kind) {
    hid_t file = polka_runfile_reader_file_id(run);
    const char *path = polka_runfile_reader_path(run);
    htri_t exists = H5Lexists(file, "models", H5P_DEFAULT);
    if (exists < 0) return polka_h5_fail("look up", WHERE, path);
    *kind = POLKA_H5RUN_MODELS_NONE;
    if (exists == 0) return POLKA_OK;
    hid_t models = H5Gopen2(file, "models", H5P_DEFAULT);
    if (models < 0) return polka_h5_fail("open group", WHERE, path);
    htri_t has_kind = H5Aexists(models, "kind");
    char text[POLKA_NAME_LEN] = "";
    polka_status status = has_kind < 0 ? polka_h5_fail("look up attribute", "kind", path)
                          : has_kind
                              ? polka_h5_read_text(models, "kind", WHERE, text, sizeof text, path)
                              : POLKA_OK;
    *kind = POLKA_H5RUN_MODELS_KERNEL;
    if (status == POLKA_OK && has_kind > 0 && strcmp(text, POLKA_H5_MODELS_KERNEL) != 0) {
        if (strcmp(text, POLKA_H5_MODELS_RFF) == 0)
            *kind = POLKA_H5RUN_MODELS_RFF;
        else
            status =
                polka_error_set(POLKA_ERR_FORMAT,
                                "run file '%s': /models is of kind '%s', which this polka "
                                "does not know (" POLKA_H5_MODELS_KERNEL ", " POLKA_H5_MODELS_RFF
                                ", or none: kernel expansions by agent)",
                                path, text);
    }
    return polka_h5_first(status, polka_h5_close(&models, path));
}

/* The attributes of /models: D, p, C, σ and the seed. */
typedef struct {
    int64_t features, dim, outputs;
    double sigma;
    uint64_t seed;
} rff_attrs;

static polka_status read_attrs(hid_t models, const char *path, rff_attrs *a) {
    int64_t most = (int64_t)POLKA_RFF_MAX_FEATURES;
    POLKA_CALL(polka_h5_read_integer(models, "features", WHERE, 1, most, &a->features, path));
    POLKA_CALL(polka_h5_read_integer(models, "dim", WHERE, 1, most, &a->dim, path));
    POLKA_CALL(polka_h5_read_integer(models, "outputs", WHERE, 1, MAX_OUTPUTS, &a->outputs, path));
    POLKA_CALL(polka_h5_read_number(models, "sigma", WHERE, H5T_NATIVE_DOUBLE, &a->sigma, path));
    POLKA_CALL(polka_h5_read_number(models, "seed", WHERE, H5T_NATIVE_UINT64, &a->seed, path));
    POLKA_CHECK(a->features * a->dim <= most, POLKA_ERR_FORMAT,
                "run file '%s': /models declares %lld features in %lld dimensions", path,
                (long long)a->features, (long long)a->dim);
    return POLKA_OK;
}

/* The dataset's dimensions are `want` (rank dimensions), and the file stores at least
 * 1/POLKA_H5RUN_MAX_EXPANSION of the bytes they declare. */
static polka_status check_shape(hid_t dataset, const char *name, int rank, const hsize_t *want,
                                const char *path) {
    hid_t space = H5Dget_space(dataset);
    if (space < 0) return polka_h5_fail("get the dataspace of", name, path);
    hsize_t dims[3] = {0, 0, 0}, bytes = sizeof(double);
    int got = H5Sget_simple_extent_ndims(space);
    int same = got == rank && H5Sget_simple_extent_dims(space, dims, NULL) == rank;
    for (int k = 0; k < rank && same; k++) {
        same = dims[k] == want[k];
        bytes *= dims[k];
    }
    POLKA_CALL(polka_h5_close(&space, path));
    POLKA_CHECK(same, POLKA_ERR_FORMAT,
                "run file '%s': /models/%s does not have the shape /models's attributes give", path,
                name);
    POLKA_CALL(polka_h5_check_storage(dataset, "model", name, path));
    hsize_t stored = H5Dget_storage_size(dataset);
    POLKA_CHECK(bytes / POLKA_H5RUN_MAX_EXPANSION <= stored, POLKA_ERR_FORMAT,
                "run file '%s': /models/%s declares %llu bytes but the file stores %llu of them",
                path, name, (unsigned long long)bytes, (unsigned long long)stored);
    return POLKA_OK;
}

/* Reads the block start[..] + count[..] of dataset name (rank dims, shape want) into out. */
static polka_status read_block(hid_t models, const char *name, int rank, const hsize_t *want,
                               const hsize_t *start, const hsize_t *count, double *out,
                               const char *path) {
    hid_t dataset = H5I_INVALID_HID, file = H5I_INVALID_HID, mem = H5I_INVALID_HID;
    POLKA_CALL(polka_h5_open_dataset(models, name, "model dataset", path, &dataset));
    polka_status status = check_shape(dataset, name, rank, want, path);
    hsize_t n = 1;
    for (int k = 0; k < rank; k++) n *= count[k];
    if (status == POLKA_OK) {
        file = H5Dget_space(dataset);
        mem = H5Screate_simple(1, &n, NULL);
        if (file < 0 || mem < 0 ||
            H5Sselect_hyperslab(file, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dread(dataset, H5T_NATIVE_DOUBLE, mem, file, H5P_DEFAULT, out) < 0)
            status = polka_h5_fail("read model dataset", name, path);
    }
    status = polka_h5_first(status, polka_h5_close(&mem, path));
    status = polka_h5_first(status, polka_h5_close(&file, path));
    return polka_h5_first(status, polka_h5_close(&dataset, path));
}

/* The features of /models (omega, phase) into *rff. */
static polka_status read_features(hid_t models, const rff_attrs *a, const char *path,
                                  polka_rff *rff) {
    size_t D = (size_t)a->features, p = (size_t)a->dim;
    double *omega = malloc(D * p * sizeof *omega), *phase = malloc(D * sizeof *phase);
    hsize_t zero[2] = {0, 0}, shape[2] = {D, p};
    polka_status status =
        omega && phase ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK)
        status = read_block(models, "omega", 2, shape, zero, shape, omega, path);
    if (status == POLKA_OK)
        status = read_block(models, "phase", 1, shape, zero, shape, phase, path);
    if (status == POLKA_OK &&
        polka_rff_adopt(D, p, a->sigma, a->seed, omega, phase, rff) != POLKA_OK)
        status = polka_error_set(POLKA_ERR_FORMAT, "run file '%s': /models is damaged: %s", path,
                                 polka_error_message());
    free(omega);
    free(phase);
    return status;
}

/* Agent agent's slab of /models/theta (D×C) into theta. */
static polka_status read_theta(hid_t models, const rff_attrs *a, size_t agents, size_t agent,
                               const char *path, double *theta) {
    hsize_t shape[3] = {agents, (hsize_t)a->features, (hsize_t)a->outputs};
    hsize_t start[3] = {agent, 0, 0}, count[3] = {1, shape[1], shape[2]};
    POLKA_CALL(read_block(models, "theta", 3, shape, start, count, theta, path));
    size_t len = (size_t)(a->features * a->outputs);
    for (size_t k = 0; k < len; k++)
        POLKA_CHECK(isfinite(theta[k]), POLKA_ERR_FORMAT,
                    "run file '%s': the model is corrupt: /models/theta[%zu, %zu, %zu] = %g is not "
                    "finite",
                    path, agent, k / (size_t)a->outputs, k % (size_t)a->outputs, theta[k]);
    return POLKA_OK;
}

static polka_status load(hid_t models, size_t agents, size_t agent, const char *path,
                         polka_rff *rff, double **theta, size_t *outputs) {
    rff_attrs a;
    POLKA_CALL(read_attrs(models, path, &a));
    double *mine = malloc((size_t)(a.features * a.outputs) * sizeof *mine);
    POLKA_CHECK_ALLOC(mine);
    polka_rff features = {0};
    polka_status status = read_features(models, &a, path, &features);
    if (status == POLKA_OK) status = read_theta(models, &a, agents, agent, path, mine);
    if (status != POLKA_OK) {
        free(mine);
        polka_rff_free(&features);
        return status;
    }
    *rff = features;
    *theta = mine;
    *outputs = (size_t)a.outputs;
    return POLKA_OK;
}

polka_status polka_runfile_reader_load_rff(const polka_runfile_reader *run, size_t agent,
                                           polka_rff *rff, double **theta, size_t *outputs) {
    const char *path = polka_runfile_reader_path(run);
    polka_runfile_reader_models kind;
    POLKA_CALL(polka_runfile_reader_models_kind(run, &kind));
    POLKA_CHECK(kind == POLKA_H5RUN_MODELS_RFF, POLKA_ERR_FORMAT,
                "run file '%s' has no random-feature models", path);
    POLKA_CHECK(agent < polka_runfile_reader_agents(run), POLKA_ERR_ARG,
                "%s has %zu agents, no agent %zu", path, polka_runfile_reader_agents(run), agent);
    hid_t models = H5Gopen2(polka_runfile_reader_file_id(run), "models", H5P_DEFAULT);
    if (models < 0) return polka_h5_fail("open group", WHERE, path);
    polka_status status =
        load(models, polka_runfile_reader_agents(run), agent, path, rff, theta, outputs);
    return polka_h5_first(status, polka_h5_close(&models, path));
}
