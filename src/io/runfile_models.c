/* The kernel models of a run file (runfile.h): /models of kind "kernel-expansions", every
 * agent's dictionary and weights rows concatenated by agent id into /models/dictionary
 * (rows × p) and /models/weights (rows × C), agent a's rows offset[a] .. offset[a] + order[a]
 * (/models/offset, /models/order), the kernel once in /models' attributes. The datasets are
 * created by every rank; each rank writes its own agents' rows (a write per run of
 * consecutive agent ids, independent transfer) and rank 0 the order and the offsets. Files of
 * polka before this layout have a group /models/agent_NNNN per agent (runfile_read.c reads
 * both): at 10^5 agents creating those groups dominated writing the run file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_impl.h"
#include "polka/net.h"

/* Rows a rank copies into one write (at least one agent's). */
#define WRITE_ROWS_BYTES ((size_t)32 << 20)

/* What every rank must know to create /models: the kernel and the shapes (the same for every
 * agent of a run; a rank without agents takes another's). */
typedef struct {
    int64_t has, kind, degree;
    double sigma, coef0;
    uint64_t dim, outputs;
} models_shape;

static polka_status local_shape(const polka_runfile *log, const size_t *agents, size_t count,
                                const polka_model *const *models, models_shape *shape) {
    for (size_t a = 0; a < count; a++)
        POLKA_CHECK(agents[a] < log->agents && (a == 0 || agents[a] > agents[a - 1]), POLKA_ERR_ARG,
                    "run file '%s': rank %d writes the models of agents %zu..%zu of %zu", log->path,
                    log->rank, agents[0], agents[count - 1] + 1, log->agents);
    POLKA_CHECK(count == 0 || models != NULL, POLKA_ERR_ARG, "run file '%s': no models", log->path);
    *shape = (models_shape){.has = 0};
    for (size_t a = 0; a < count; a++) {
        POLKA_CHECK(models[a] != NULL, POLKA_ERR_ARG, "run file '%s': no model for agent %zu",
                    log->path, agents[a]);
        const polka_kernel *k = polka_model_kernel(models[a]);
        models_shape mine = {1,
                             k->kind,
                             k->degree,
                             k->sigma,
                             k->coef0,
                             polka_model_dim(models[a]),
                             polka_model_outputs(models[a])};
        POLKA_CHECK(a == 0 || memcmp(&mine, shape, sizeof mine) == 0, POLKA_ERR_ARG,
                    "run file '%s': agent %zu's model has another kernel or shape than agent %zu's",
                    log->path, agents[a], agents[0]);
        *shape = mine;
    }
    return POLKA_OK;
}

/* The shape of the lowest rank with agents, on every rank; another shape on a rank is refused
 * (agreed by the caller). */
static polka_status share_shape(const polka_runfile *log, models_shape *shape) {
    int mine = shape->has ? log->rank : log->size, first = 0;
    models_shape own = *shape;
    POLKA_CALL(polka_net_check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, log->comm),
                               "MPI_Allreduce"));
    if (first == log->size) return POLKA_OK; /* no rank has a model */
    POLKA_CALL(
        polka_net_check(MPI_Bcast(shape, sizeof *shape, MPI_BYTE, first, log->comm), "MPI_Bcast"));
    POLKA_CHECK(!own.has || memcmp(&own, shape, sizeof own) == 0, POLKA_ERR_ARG,
                "run file '%s': rank %d's models have another kernel or shape than rank %d's",
                log->path, log->rank, first);
    return POLKA_OK;
}

/* Every agent's order (a sum over the ranks of each one's own, claims counted alike) and the
 * offsets of their rows, by agent id, on every rank. */
static polka_status orders_and_offsets(const polka_runfile *log, const size_t *agents, size_t count,
                                       const polka_model *const *models, uint64_t *orders,
                                       uint64_t *offsets) {
    size_t n = log->agents;
    uint64_t *mine = calloc(2 * n + 1, sizeof *mine), *sums = calloc(2 * n + 1, sizeof *sums);
    polka_status status = mine && sums ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    status = polka_net_agree(log->comm, status);
    for (size_t a = 0; a < count && status == POLKA_OK; a++)
        mine[agents[a]] = polka_model_order(models[a]), mine[n + agents[a]] = 1;
    if (status == POLKA_OK)
        status = polka_net_check(
            MPI_Allreduce(mine, sums, (int)(2 * n), MPI_UINT64_T, MPI_SUM, log->comm),
            "MPI_Allreduce");
    uint64_t rows = 0;
    for (size_t a = 0; a < n && status == POLKA_OK; a++) {
        if (sums[n + a] != 1)
            status = polka_error_set(POLKA_ERR_ARG,
                                     "run file '%s': agent %zu's model is passed by %llu ranks, "
                                     "not one",
                                     log->path, a, (unsigned long long)sums[n + a]);
        orders[a] = sums[a], offsets[a] = rows;
        rows += sums[a];
    }
    free(mine);
    free(sums);
    return status;
}

static polka_status models_attrs(const polka_runfile *log, hid_t group, const models_shape *s) {
    polka_status status = polka_h5_attr_string(group, "kind", POLKA_H5_MODELS_KERNEL, log->path);
    if (status == POLKA_OK)
        status = polka_h5_attr_string(
            group, "kernel", polka_kernel_kind_name((polka_kernel_kind)s->kind), log->path);
    if (status == POLKA_OK) status = polka_h5_attr_double(group, "sigma", s->sigma, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_i64(group, "degree", s->degree, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_double(group, "coef0", s->coef0, log->path);
    return status;
}

/* Rows [row, row + rows) of a (· × cols) dataset from data, independently. */
static polka_status write_rows(const polka_runfile *log, hid_t set, const char *name, uint64_t row,
                               size_t rows, size_t cols, const double *data) {
    if (rows == 0 || cols == 0) return POLKA_OK;
    hsize_t start[2] = {row, 0}, block[2] = {rows, cols};
    hid_t space = H5Dget_space(set), memory = H5Screate_simple(2, block, NULL);
    int ok = space >= 0 && memory >= 0 &&
             H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, block, NULL) >= 0 &&
             H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, data) >= 0;
    if (memory >= 0) H5Sclose(memory);
    if (space >= 0) H5Sclose(space);
    return ok ? POLKA_OK : polka_h5_fail("write dataset /models", name, log->path);
}

/* A model's rows of one dataset: its dictionary (part 0) or its weights (1). */
static const double *model_rows(const polka_model *model, int part) {
    return part == 0 ? polka_model_dictionary(model) : polka_model_weights(model);
}

/* This rank's agents' rows of one dataset (dictionary: part 0; weights: 1): consecutive agents
 * copied together into one write of at most WRITE_ROWS_BYTES (an agent larger alone). */
static polka_status write_part(const polka_runfile *log, hid_t set, int part, size_t cols,
                               const size_t *agents, size_t count, const polka_model *const *models,
                               const uint64_t *orders, const uint64_t *offsets) {
    const char *name = part == 0 ? "dictionary" : "weights";
    size_t room = WRITE_ROWS_BYTES / (cols ? cols * sizeof(double) : 1);
    room = room ? room : 1;
    double *buffer = malloc(room * cols * sizeof *buffer + 1);
    POLKA_CHECK(buffer != NULL, POLKA_ERR_MEM, "out of memory writing the models");
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < count && status == POLKA_OK;) {
        size_t rows = 0, end = a;
        while (end < count && (end == a || (agents[end] == agents[end - 1] + 1 &&
                                            rows + orders[agents[end]] <= room))) {
            size_t order = (size_t)orders[agents[end]];
            if (end == a && order > room) break; /* alone, written from the model itself */
            if (order * cols > 0)
                memcpy(buffer + rows * cols, model_rows(models[end], part),
                       order * cols * sizeof *buffer);
            rows += order, end++;
        }
        if (end == a) { /* one agent larger than the buffer */
            status = write_rows(log, set, name, offsets[agents[a]], (size_t)orders[agents[a]], cols,
                                model_rows(models[a], part));
            a++;
            continue;
        }
        status = write_rows(log, set, name, offsets[agents[a]], rows, cols, buffer);
        a = end;
    }
    free(buffer);
    return status;
}

/* Collective: /models afresh; its datasets created by all, the data written by their owners. */
static polka_status write_layout(const polka_runfile *log, const models_shape *s,
                                 const size_t *agents, size_t count,
                                 const polka_model *const *models, const uint64_t *orders,
                                 const uint64_t *offsets, uint64_t rows) {
    hid_t group = H5I_INVALID_HID, sets[2] = {H5I_INVALID_HID, H5I_INVALID_HID};
    polka_status status = polka_h5_unlink(log->file, "models", log->path);
    if (status == POLKA_OK) status = polka_h5_group(log->file, "models", log->path, &group);
    if (status == POLKA_OK) status = models_attrs(log, group, s);
    hsize_t n = log->agents, dims[2][2] = {{rows, s->dim}, {rows, s->outputs}};
    int writer = log->rank == 0;
    if (status == POLKA_OK)
        status = polka_h5_dataset(group, "order", H5T_NATIVE_UINT64, 1, &n, writer ? orders : NULL,
                                  log->path);
    if (status == POLKA_OK)
        status = polka_h5_dataset(group, "offset", H5T_NATIVE_UINT64, 1, &n,
                                  writer ? offsets : NULL, log->path);
    static const char *const names[2] = {"dictionary", "weights"};
    for (int part = 0; part < 2 && status == POLKA_OK; part++) {
        hid_t space = H5Screate_simple(2, dims[part], NULL);
        sets[part] = space >= 0 ? H5Dcreate2(group, names[part], H5T_IEEE_F64LE, space, H5P_DEFAULT,
                                             H5P_DEFAULT, H5P_DEFAULT)
                                : H5I_INVALID_HID;
        if (space >= 0) H5Sclose(space);
        if (sets[part] < 0)
            status = polka_h5_fail("create dataset /models", names[part], log->path);
    }
    polka_status written = POLKA_OK; /* this rank's own writes: agreed once, below */
    for (int part = 0; part < 2 && status == POLKA_OK && written == POLKA_OK; part++)
        written = write_part(log, sets[part], part, (size_t)dims[part][1], agents, count, models,
                             orders, offsets);
    for (int part = 0; part < 2; part++)
        status = polka_h5_first(status, polka_h5_close(&sets[part], log->path));
    status = polka_h5_first(status, polka_h5_close(&group, log->path));
    return polka_h5_first(status, polka_runfile_agree(log, written));
}

polka_status polka_runfile_write_models_agents(polka_runfile *log, const size_t *agents,
                                               size_t count, const polka_model *const *models) {
    models_shape shape = {0};
    polka_status status = polka_runfile_agree(log, local_shape(log, agents, count, models, &shape));
    if (status == POLKA_OK) status = polka_runfile_agree(log, share_shape(log, &shape));
    uint64_t *orders = malloc((log->agents + 1) * sizeof *orders);
    uint64_t *offsets = malloc((log->agents + 1) * sizeof *offsets);
    if (status == POLKA_OK)
        status = polka_runfile_agree(
            log, orders && offsets ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory"));
    if (status == POLKA_OK)
        status = orders_and_offsets(log, agents, count, models, orders, offsets);
    uint64_t rows = log->agents ? offsets[log->agents - 1] + orders[log->agents - 1] : 0;
    if (status == POLKA_OK)
        status = write_layout(log, &shape, agents, count, models, orders, offsets, rows);
    free(orders);
    free(offsets);
    status = polka_runfile_agree(log, status);
    if (status == POLKA_OK) status = polka_runfile_agree(log, polka_runfile_flush(log));
    return status;
}

polka_status polka_runfile_write_models(polka_runfile *log, size_t first_agent, size_t count,
                                        const polka_model *const *models) {
    size_t *agents = malloc((count ? count : 1) * sizeof *agents);
    for (size_t a = 0; agents && a < count; a++) agents[a] = first_agent + a;
    polka_status status =
        agents ? polka_runfile_write_models_agents(log, agents, count, models)
               : polka_runfile_agree(log, polka_error_set(POLKA_ERR_MEM, "out of memory"));
    free(agents);
    return status;
}

polka_status polka_runfile_write_margins(polka_runfile *log, const size_t *agents, size_t count,
                                         const double *rho, const double *tube) {
    size_t n = log->agents;
    double *mine = calloc(2 * n + 1, sizeof *mine), *all = calloc(2 * n + 1, sizeof *all);
    polka_status status = polka_runfile_agree(
        log, mine && all ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory"));
    for (size_t a = 0; a < count && status == POLKA_OK; a++) {
        size_t id = agents ? agents[a] : a;
        mine[id] = rho[a], mine[n + id] = tube[a];
    }
    /* one rank passes each agent (polka_runfile_write_models checked it): x + 0 is x exactly */
    if (status == POLKA_OK)
        status =
            polka_net_check(MPI_Allreduce(mine, all, (int)(2 * n), MPI_DOUBLE, MPI_SUM, log->comm),
                            "MPI_Allreduce");
    hid_t group = H5I_INVALID_HID;
    if (status == POLKA_OK && (group = H5Gopen2(log->file, "models", H5P_DEFAULT)) < 0)
        status = polka_h5_fail("open group", "/models", log->path);
    hsize_t agents_dim = n;
    int writer = log->rank == 0;
    if (status == POLKA_OK)
        status = polka_h5_dataset(group, "rho", H5T_NATIVE_DOUBLE, 1, &agents_dim,
                                  writer ? all : NULL, log->path);
    if (status == POLKA_OK)
        status = polka_h5_dataset(group, "tube", H5T_NATIVE_DOUBLE, 1, &agents_dim,
                                  writer ? all + n : NULL, log->path);
    status = polka_h5_first(status, polka_h5_close(&group, log->path));
    free(mine);
    free(all);
    status = polka_runfile_agree(log, status);
    if (status == POLKA_OK) status = polka_runfile_agree(log, polka_runfile_flush(log));
    return status;
}
