/* Random-feature models in the run file (runfile.h, "/models" of kind random-features): the
 * features the agents share, once, and every agent's θ in one agents × D × C dataset that
 * each rank writes its agents' slabs of, collectively. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_impl.h"
#include "polka/net.h"

/* This rank's arguments: agents increasing and in range, a θ for each. */
static polka_status check_local(const polka_runfile *log, const polka_rff *rff, size_t outputs,
                                const size_t *agents, size_t count, const double *const *theta) {
    POLKA_CHECK(rff != NULL && rff->omega != NULL && rff->phase != NULL && outputs >= 1,
                POLKA_ERR_ARG, "run file '%s': no random features or no outputs", log->path);
    for (size_t a = 0; a < count; a++) {
        POLKA_CHECK(agents[a] < log->agents && (a == 0 || agents[a] > agents[a - 1]), POLKA_ERR_ARG,
                    "run file '%s': rank %d writes the models of agents %zu..%zu of %zu", log->path,
                    log->rank, agents[0], agents[count - 1] + 1, log->agents);
        POLKA_CHECK(theta[a] != NULL, POLKA_ERR_ARG, "run file '%s': no model for agent %zu",
                    log->path, agents[a]);
    }
    return POLKA_OK;
}

/* Every rank passes the same features (shape, seed, σ) and outputs: rank 0's are written. */
static polka_status check_same_features(const polka_runfile *log, const polka_rff *rff,
                                        size_t outputs) {
    uint64_t sigma_bits;
    memcpy(&sigma_bits, &rff->sigma, sizeof sigma_bits);
    uint64_t mine[5] = {rff->features, rff->dim, outputs, rff->seed, sigma_bits}, low[5], high[5];
    polka_status status = polka_net_check(
        MPI_Allreduce(mine, low, 5, MPI_UINT64_T, MPI_MIN, log->comm), "MPI_Allreduce");
    if (status == POLKA_OK)
        status = polka_net_check(MPI_Allreduce(mine, high, 5, MPI_UINT64_T, MPI_MAX, log->comm),
                                 "MPI_Allreduce");
    POLKA_CALL(status);
    POLKA_CHECK(memcmp(low, high, sizeof low) == 0, POLKA_ERR_ARG,
                "run file '%s': the ranks pass different random features or outputs", log->path);
    return POLKA_OK;
}

/* Every agent of the file is written by exactly one rank (a missing θ would read as zeros). */
static polka_status check_each_agent_once(const polka_runfile *log, const size_t *agents,
                                          size_t count) {
    int *claims = calloc(log->agents, sizeof *claims);
    POLKA_CALL(polka_net_agree(
        log->comm, claims ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory")));
    for (size_t a = 0; a < count; a++) claims[agents[a]] = 1;
    polka_status status = polka_net_check(
        MPI_Allreduce(MPI_IN_PLACE, claims, (int)log->agents, MPI_INT, MPI_SUM, log->comm),
        "MPI_Allreduce");
    for (size_t a = 0; a < log->agents && status == POLKA_OK; a++)
        if (claims[a] != 1)
            status = polka_error_set(POLKA_ERR_ARG,
                                     "run file '%s': agent %zu's random-feature model is passed "
                                     "by %d ranks, not one",
                                     log->path, a, claims[a]);
    free(claims);
    return status;
}

/* /models afresh with its attributes, omega and phase (rank 0 writes their data). */
static polka_status write_features(const polka_runfile *log, const polka_rff *rff, size_t outputs,
                                   hid_t *models) {
    polka_status status = polka_h5_unlink(log->file, "models", log->path);
    if (status == POLKA_OK) status = polka_h5_group(log->file, "models", log->path, models);
    if (status == POLKA_OK)
        status = polka_h5_attr_string(*models, "kind", POLKA_H5_MODELS_RFF, log->path);
    if (status == POLKA_OK)
        status = polka_h5_attr_u64(*models, "features", rff->features, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_u64(*models, "dim", rff->dim, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_u64(*models, "outputs", outputs, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_double(*models, "sigma", rff->sigma, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_u64(*models, "seed", rff->seed, log->path);
    hsize_t omega[2] = {rff->features, rff->dim}, phase = rff->features;
    int writer = log->rank == 0;
    if (status == POLKA_OK)
        status = polka_h5_dataset(*models, "omega", H5T_NATIVE_DOUBLE, 2, omega,
                                  writer ? rff->omega : NULL, log->path);
    if (status == POLKA_OK)
        status = polka_h5_dataset(*models, "phase", H5T_NATIVE_DOUBLE, 1, &phase,
                                  writer ? rff->phase : NULL, log->path);
    return status;
}

/* This rank's slabs of theta: one hyperslab per run of consecutive agents. */
static int select_slabs(hid_t space, const size_t *agents, size_t count, hsize_t features,
                        hsize_t outputs) {
    if (count == 0) return H5Sselect_none(space) < 0;
    int failed = 0;
    H5S_seloper_t op = H5S_SELECT_SET;
    for (size_t a = 0; a < count && !failed;) {
        size_t end = a + 1;
        while (end < count && agents[end] == agents[end - 1] + 1) end++;
        hsize_t start[3] = {agents[a], 0, 0}, block[3] = {end - a, features, outputs};
        failed = H5Sselect_hyperslab(space, op, start, NULL, block, NULL) < 0;
        op = H5S_SELECT_OR;
        a = end;
    }
    return failed;
}

/* Creates /models/theta and writes this rank's slabs (collective; not agreed). */
static polka_status write_theta(const polka_runfile *log, hid_t models, size_t outputs, size_t D,
                                const size_t *agents, size_t count, const double *const *theta) {
    size_t len = D * outputs;
    hsize_t dims[3] = {log->agents, D, outputs}, mine = count ? count * len : 1;
    double *packed = malloc(mine * sizeof *packed);
    hid_t file = H5Screate_simple(3, dims, NULL), mem = H5Screate_simple(1, &mine, NULL);
    hid_t dataset = file < 0 ? H5I_INVALID_HID
                             : H5Dcreate2(models, "theta", H5T_IEEE_F64LE, file, H5P_DEFAULT,
                                          H5P_DEFAULT, H5P_DEFAULT);
    polka_status status = packed ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK && (mem < 0 || dataset < 0))
        status = polka_h5_fail("create dataset", "/models/theta", log->path);
    for (size_t a = 0; status == POLKA_OK && a < count; a++)
        memcpy(packed + a * len, theta[a], len * sizeof *packed);
    if (status == POLKA_OK &&
        (select_slabs(file, agents, count, D, outputs) || (count == 0 && H5Sselect_none(mem) < 0)))
        status = polka_h5_fail("select the agents of", "/models/theta", log->path);
    if (status == POLKA_OK &&
        H5Dwrite(dataset, H5T_NATIVE_DOUBLE, mem, file, log->xfer, packed) < 0)
        status = polka_h5_fail("write dataset", "/models/theta", log->path);
    free(packed);
    status = polka_h5_first(status, polka_h5_close(&dataset, log->path));
    status = polka_h5_first(status, polka_h5_close(&mem, log->path));
    return polka_h5_first(status, polka_h5_close(&file, log->path));
}

polka_status polka_runfile_write_rff_models(polka_runfile *log, const polka_rff *rff,
                                            size_t outputs, const size_t *agents, size_t count,
                                            const double *const *theta) {
    polka_status status =
        polka_runfile_agree(log, check_local(log, rff, outputs, agents, count, theta));
    if (status == POLKA_OK) status = check_same_features(log, rff, outputs);
    if (status == POLKA_OK) status = check_each_agent_once(log, agents, count);
    if (status != POLKA_OK) return status; /* the same on every rank */
    hid_t models = H5I_INVALID_HID;
    status = polka_runfile_agree(log, write_features(log, rff, outputs, &models));
    if (status == POLKA_OK)
        status = polka_runfile_agree(
            log, write_theta(log, models, outputs, rff->features, agents, count, theta));
    status = polka_h5_first(status, polka_runfile_agree(log, polka_h5_close(&models, log->path)));
    if (status == POLKA_OK) status = polka_runfile_agree(log, polka_runfile_flush(log));
    return status;
}
