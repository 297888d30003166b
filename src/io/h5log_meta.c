/* The run file's description of itself: /config (with the graph), /models and /timing.
 * Metadata (groups, datasets, attributes) is created by every rank with the same values;
 * the data of a dataset is written by the rank that owns it (independent transfer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5log_impl.h"
#include "polka/net.h"

/* ---- /config ----------------------------------------------------------------------------- */

/* What rank 0 describes: its configuration, the MPI size and the size of its graph. */
typedef struct {
    polka_config config;
    uint64_t mpi_size, has_graph, nodes, edges;
} config_header;

static polka_status config_attrs(const polka_h5log *log, hid_t group, const config_header *h) {
    size_t count = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    polka_status status = POLKA_OK;
    for (size_t k = 0; k < count && status == POLKA_OK; k++) {
        const char *field = (const char *)&h->config + keys[k].offset;
        switch (keys[k].type) {
        case POLKA_KEY_SIZE:
            status = polka_h5_attr_u64(group, keys[k].name, *(const size_t *)field, log->path);
            break;
        case POLKA_KEY_U64:
            status = polka_h5_attr_u64(group, keys[k].name, *(const uint64_t *)field, log->path);
            break;
        case POLKA_KEY_DOUBLE:
            status = polka_h5_attr_double(group, keys[k].name, *(const double *)field, log->path);
            break;
        case POLKA_KEY_STRING:
            status = polka_h5_attr_string(group, keys[k].name, field, log->path);
            break;
        }
    }
    if (status == POLKA_OK)
        status = polka_h5_attr_string(group, "polka_version", POLKA_VERSION, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_u64(group, "mpi_size", h->mpi_size, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_string(group, "mode", h->config.mode, log->path);
    return status;
}

/* Rank 0: the edges u < v in increasing order, and their weights. */
static polka_status pack_edges(const polka_graph *graph, uint64_t **edges, double **weights) {
    size_t count = polka_graph_edges(graph), e = 0;
    *edges = malloc((2 * count + 1) * sizeof **edges);
    *weights = malloc((count + 1) * sizeof **weights);
    POLKA_CHECK_ALLOC(*edges);
    POLKA_CHECK_ALLOC(*weights);
    for (size_t u = 0; u < polka_graph_nodes(graph); u++) {
        const size_t *nb = polka_graph_neighbors(graph, u);
        const double *w = polka_graph_neighbor_weights(graph, u);
        for (size_t k = 0; k < polka_graph_degree(graph, u); k++) {
            if (nb[k] <= u) continue;
            POLKA_CHECK(e < count, POLKA_ERR_ARG, "graph: more edges than it says");
            (*edges)[2 * e] = u;
            (*edges)[2 * e + 1] = nb[k];
            (*weights)[e++] = w[k];
        }
    }
    POLKA_CHECK(e == count, POLKA_ERR_ARG, "graph: %zu edges listed of %zu", e, count);
    return POLKA_OK;
}

static polka_status write_graph(const polka_h5log *log, hid_t config, const config_header *h,
                                const polka_graph *graph) {
    uint64_t *edges = NULL;
    double *weights = NULL;
    polka_status status = log->rank == 0 ? pack_edges(graph, &edges, &weights) : POLKA_OK;
    status = polka_h5log_agree(log, status);
    hid_t group = H5I_INVALID_HID;
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, polka_h5_group(config, "graph", log->path, &group));
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, polka_h5_attr_u64(group, "nodes", h->nodes, log->path));
    int write = log->rank == 0 && h->edges > 0;
    hsize_t dims[2] = {h->edges, 2};
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, polka_h5_dataset(group, "edges", H5T_NATIVE_UINT64, 2, dims,
                                                         write ? edges : NULL, log->path));
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, polka_h5_dataset(group, "weights", H5T_NATIVE_DOUBLE, 1,
                                                         dims, write ? weights : NULL, log->path));
    free(edges);
    free(weights);
    return polka_h5_first(status, polka_h5_close(&group, log->path));
}

static polka_status share_header(const polka_h5log *log, const polka_config *config,
                                 const polka_graph *graph, int mpi_size, config_header *h) {
    polka_status status = POLKA_OK;
    memset(h, 0, sizeof *h);
    if (log->rank == 0 && config == NULL)
        status = polka_error_set(POLKA_ERR_ARG, "run file '%s': no configuration", log->path);
    if (log->rank == 0 && config != NULL) {
        h->config = *config;
        h->mpi_size = mpi_size > 0 ? (uint64_t)mpi_size : 0;
        h->has_graph = graph != NULL;
        h->nodes = graph ? polka_graph_nodes(graph) : 0;
        h->edges = graph ? polka_graph_edges(graph) : 0;
    }
    POLKA_CALL(polka_h5log_agree(log, status));
    return polka_net_check(MPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, log->comm), "MPI_Bcast");
}

polka_status polka_h5log_write_config(polka_h5log *log, const polka_config *config,
                                      const polka_graph *graph, int mpi_size) {
    config_header *h = malloc(sizeof *h);
    polka_status status = polka_h5log_agree(
        log, h != NULL ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory"));
    if (status != POLKA_OK) {
        free(h);
        return status;
    }
    status = polka_h5log_agree(log, share_header(log, config, graph, mpi_size, h));
    hid_t group = H5I_INVALID_HID;
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, polka_h5_unlink(log->file, "config", log->path));
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, polka_h5_group(log->file, "config", log->path, &group));
    if (status == POLKA_OK) status = polka_h5log_agree(log, config_attrs(log, group, h));
    if (status == POLKA_OK && h->has_graph) status = write_graph(log, group, h, graph);
    status = polka_h5_first(status, polka_h5_close(&group, log->path));
    free(h);
    status = polka_h5log_agree(log, status);
    if (status == POLKA_OK) status = polka_h5log_agree(log, polka_h5log_flush(log));
    return status;
}

/* Collective: /config/NAME = the value (a u64 when integer, else a double). */
static polka_status config_fact(polka_h5log *log, const char *name, uint64_t integer,
                                const double *real) {
    hid_t group = H5I_INVALID_HID;
    polka_status status =
        polka_h5log_agree(log, polka_h5_group(log->file, "config", log->path, &group));
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, real ? polka_h5_attr_double(group, name, *real, log->path)
                                             : polka_h5_attr_u64(group, name, integer, log->path));
    status = polka_h5log_agree(log, polka_h5_first(status, polka_h5_close(&group, log->path)));
    if (status == POLKA_OK) status = polka_h5log_agree(log, polka_h5log_flush(log));
    return status;
}

polka_status polka_h5log_config_u64(polka_h5log *log, const char *name, uint64_t value) {
    return config_fact(log, name, value, NULL);
}

polka_status polka_h5log_config_double(polka_h5log *log, const char *name, double value) {
    return config_fact(log, name, 0, &value);
}

/* ---- /models ----------------------------------------------------------------------------- */

/* What every rank must know of a model to create its group and datasets. */
typedef struct {
    uint64_t agent, order, dim, outputs;
    int64_t kind, degree;
    double sigma, coef0;
} model_shape;

static polka_status local_shapes(const polka_h5log *log, const size_t *agents, size_t count,
                                 const polka_model *const *models, model_shape *shapes) {
    for (size_t a = 0; a < count; a++)
        POLKA_CHECK(agents[a] < log->agents && (a == 0 || agents[a] > agents[a - 1]), POLKA_ERR_ARG,
                    "run file '%s': rank %d writes the models of agents %zu..%zu of %zu", log->path,
                    log->rank, agents[0], agents[count - 1] + 1, log->agents);
    POLKA_CHECK(count == 0 || models != NULL, POLKA_ERR_ARG, "run file '%s': no models", log->path);
    for (size_t a = 0; a < count; a++) {
        const polka_model *model = models[a];
        POLKA_CHECK(model != NULL, POLKA_ERR_ARG, "run file '%s': no model for agent %zu",
                    log->path, agents[a]);
        const polka_kernel *kernel = polka_model_kernel(model);
        shapes[a] = (model_shape){agents[a],
                                  polka_model_order(model),
                                  polka_model_dim(model),
                                  polka_model_outputs(model),
                                  kernel->kind,
                                  kernel->degree,
                                  kernel->sigma,
                                  kernel->coef0};
    }
    return POLKA_OK;
}

/* Every rank's shapes, in rank order, into *all (allocated; *total entries). */
static polka_status gather_shapes(const polka_h5log *log, const model_shape *mine, size_t count,
                                  model_shape **all, size_t *total) {
    int *counts = malloc(2 * (size_t)log->size * sizeof *counts);
    POLKA_CALL(polka_net_agree(
        log->comm, counts != NULL ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory")));
    int *displs = counts + log->size, my_bytes = (int)(count * sizeof *mine);
    polka_status status = polka_net_check(
        MPI_Allgather(&my_bytes, 1, MPI_INT, counts, 1, MPI_INT, log->comm), "MPI_Allgather");
    size_t bytes = 0;
    for (int r = 0; r < log->size; r++) {
        displs[r] = (int)bytes;
        bytes += (size_t)counts[r];
    }
    *total = bytes / sizeof *mine;
    *all = malloc(bytes + sizeof *mine);
    if (status == POLKA_OK && *all == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory gathering the models");
    status = polka_net_agree(log->comm, status);
    if (status == POLKA_OK)
        status = polka_net_check(
            MPI_Allgatherv(mine, my_bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, log->comm),
            "MPI_Allgatherv");
    free(counts);
    return status;
}

static polka_status check_unique(const polka_h5log *log, const model_shape *all, size_t total) {
    unsigned char *seen = calloc(log->agents, 1);
    POLKA_CHECK_ALLOC(seen);
    polka_status status = POLKA_OK;
    for (size_t i = 0; i < total && status == POLKA_OK; i++) {
        if (seen[all[i].agent])
            status = polka_error_set(POLKA_ERR_ARG, "run file '%s': two models for agent %llu",
                                     log->path, (unsigned long long)all[i].agent);
        seen[all[i].agent] = 1;
    }
    free(seen);
    return status;
}

static polka_status model_attrs(const polka_h5log *log, hid_t group, const model_shape *s) {
    polka_status status = polka_h5_attr_u64(group, "order", s->order, log->path);
    if (status == POLKA_OK)
        status = polka_h5_attr_string(
            group, "kernel", polka_kernel_kind_name((polka_kernel_kind)s->kind), log->path);
    if (status == POLKA_OK) status = polka_h5_attr_double(group, "sigma", s->sigma, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_i64(group, "degree", s->degree, log->path);
    if (status == POLKA_OK) status = polka_h5_attr_double(group, "coef0", s->coef0, log->path);
    return status;
}

/* Creates /models/agent_NNNN (all ranks); its owner (model != NULL) writes the data. */
static polka_status write_model(const polka_h5log *log, hid_t models, const model_shape *s,
                                const polka_model *model) {
    char name[32];
    snprintf(name, sizeof name, "agent_%04llu", (unsigned long long)s->agent);
    hid_t group = H5I_INVALID_HID;
    polka_status status = polka_h5_unlink(models, name, log->path);
    if (status == POLKA_OK) status = polka_h5_group(models, name, log->path, &group);
    if (status == POLKA_OK) status = model_attrs(log, group, s);
    int write = model != NULL && s->order > 0;
    hsize_t dict[2] = {s->order, s->dim}, weights[2] = {s->order, s->outputs};
    if (status == POLKA_OK)
        status = polka_h5_dataset(group, "dictionary", H5T_NATIVE_DOUBLE, 2, dict,
                                  write ? polka_model_dictionary(model) : NULL, log->path);
    if (status == POLKA_OK)
        status = polka_h5_dataset(group, "weights", H5T_NATIVE_DOUBLE, 2, weights,
                                  write ? polka_model_weights(model) : NULL, log->path);
    return polka_h5_first(status, polka_h5_close(&group, log->path));
}

/* The place of agent among this rank's agents (increasing), or count when it is not one. */
static size_t find_agent(const size_t *agents, size_t count, size_t agent) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (agents[mid] < agent)
            low = mid + 1;
        else
            high = mid;
    }
    return low < count && agents[low] == agent ? low : count;
}

/* The groups and datasets are created collectively, in the same order on every rank, whatever
 * happened to a write: only the owner writes a model's data, so the ranks agree once, at the
 * end, instead of after every model (thousands of agents would be thousands of agreements). */
static polka_status write_all_models(const polka_h5log *log, const model_shape *all, size_t total,
                                     const size_t *agents, size_t count,
                                     const polka_model *const *models) {
    hid_t group = H5I_INVALID_HID;
    polka_status status =
        polka_h5log_agree(log, polka_h5_group(log->file, "models", log->path, &group));
    polka_status written = POLKA_OK;
    for (size_t i = 0; i < total && status == POLKA_OK; i++) {
        size_t at = find_agent(agents, count, all[i].agent);
        int mine = at < count && written == POLKA_OK;
        written =
            polka_h5_first(written, write_model(log, group, &all[i], mine ? models[at] : NULL));
    }
    status = polka_h5_first(status, polka_h5log_agree(log, written));
    return polka_h5_first(status, polka_h5_close(&group, log->path));
}

polka_status polka_h5log_write_models(polka_h5log *log, size_t first_agent, size_t count,
                                      const polka_model *const *models) {
    size_t *agents = malloc((count ? count : 1) * sizeof *agents);
    for (size_t a = 0; agents && a < count; a++) agents[a] = first_agent + a;
    polka_status status =
        agents ? polka_h5log_write_models_agents(log, agents, count, models)
               : polka_h5log_agree(log, polka_error_set(POLKA_ERR_MEM, "out of memory"));
    free(agents);
    return status;
}

polka_status polka_h5log_write_models_agents(polka_h5log *log, const size_t *agents, size_t count,
                                             const polka_model *const *models) {
    model_shape *mine = malloc((count + 1) * sizeof *mine), *all = NULL;
    size_t total = 0;
    polka_status status = mine != NULL ? local_shapes(log, agents, count, models, mine)
                                       : polka_error_set(POLKA_ERR_MEM, "out of memory");
    status = polka_h5log_agree(log, status);
    if (status == POLKA_OK) status = gather_shapes(log, mine, count, &all, &total);
    if (status == POLKA_OK) status = check_unique(log, all, total); /* the same on all ranks */
    if (status == POLKA_OK) status = write_all_models(log, all, total, agents, count, models);
    free(mine);
    free(all);
    status = polka_h5log_agree(log, status);
    if (status == POLKA_OK) status = polka_h5log_agree(log, polka_h5log_flush(log));
    return status;
}

/* ---- /timing ----------------------------------------------------------------------------- */

/* [min, mean, max] over the ranks, per stage, into stats (3 × count). */
static polka_status reduce_timing(const polka_h5log *log, size_t count, const double *mine,
                                  double *stats) {
    double *work = malloc(3 * count * sizeof *work + 1);
    POLKA_CHECK_ALLOC(work);
    int n = (int)count;
    polka_status status = polka_net_check(
        MPI_Allreduce(mine, work, n, MPI_DOUBLE, MPI_MIN, log->comm), "MPI_Allreduce");
    if (status == POLKA_OK)
        status = polka_net_check(
            MPI_Allreduce(mine, work + count, n, MPI_DOUBLE, MPI_SUM, log->comm), "MPI_Allreduce");
    if (status == POLKA_OK)
        status = polka_net_check(
            MPI_Allreduce(mine, work + 2 * count, n, MPI_DOUBLE, MPI_MAX, log->comm),
            "MPI_Allreduce");
    for (size_t s = 0; s < count; s++) {
        stats[3 * s] = work[s];
        stats[3 * s + 1] = work[count + s] / log->size;
        stats[3 * s + 2] = work[2 * count + s];
    }
    free(work);
    return status;
}

/* The stage count must match on every rank before the reductions. */
static polka_status check_stages(const polka_h5log *log, size_t count, const char *const *names,
                                 const double *seconds) {
    unsigned long long mine[2] = {count, ~(unsigned long long)count}, all[2] = {0, 0};
    POLKA_CALL(polka_net_check(
        MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, log->comm), "MPI_Allreduce"));
    POLKA_CHECK(all[0] == ~all[1], POLKA_ERR_ARG,
                "run file '%s': the ranks time different numbers of stages", log->path);
    POLKA_CHECK(count == 0 || (names != NULL && seconds != NULL), POLKA_ERR_ARG,
                "run file '%s': no stage names or times", log->path);
    for (size_t s = 0; s < count; s++)
        POLKA_CHECK(names[s] != NULL && names[s][0] != '\0' && strchr(names[s], '/') == NULL,
                    POLKA_ERR_ARG, "run file '%s': bad name of timing stage %zu", log->path, s);
    return POLKA_OK;
}

/* The attribute "ranks" of /timing, replacing the one of an earlier call. */
static polka_status ranks_attr(const polka_h5log *log, hid_t group) {
    htri_t exists = H5Aexists(group, "ranks");
    if (exists < 0 || (exists > 0 && H5Adelete(group, "ranks") < 0))
        return polka_h5_fail("replace attribute", "/timing/ranks", log->path);
    return polka_h5_attr_u64(group, "ranks", (uint64_t)log->size, log->path);
}

static polka_status write_stages(const polka_h5log *log, size_t count, const char *const *names,
                                 const double *stats) {
    hid_t group = H5I_INVALID_HID;
    polka_status status =
        polka_h5log_agree(log, polka_h5_group(log->file, "timing", log->path, &group));
    if (status == POLKA_OK) status = polka_h5log_agree(log, ranks_attr(log, group));
    hsize_t three = 3;
    for (size_t s = 0; s < count && status == POLKA_OK; s++) {
        status = polka_h5log_agree(log, polka_h5_unlink(group, names[s], log->path));
        if (status == POLKA_OK)
            status = polka_h5log_agree(
                log, polka_h5_dataset(group, names[s], H5T_NATIVE_DOUBLE, 1, &three,
                                      log->rank == 0 ? stats + 3 * s : NULL, log->path));
    }
    return polka_h5_first(status, polka_h5_close(&group, log->path));
}

polka_status polka_h5log_write_timing(polka_h5log *log, size_t stage_count,
                                      const char *const *stage_names, const double *my_seconds) {
    POLKA_CALL(polka_h5log_agree(log, check_stages(log, stage_count, stage_names, my_seconds)));
    double *stats = malloc(3 * stage_count * sizeof *stats + 1);
    polka_status status = polka_h5log_agree(
        log, stats != NULL ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory"));
    if (status == POLKA_OK)
        status = polka_h5log_agree(log, reduce_timing(log, stage_count, my_seconds, stats));
    if (status == POLKA_OK) status = write_stages(log, stage_count, stage_names, stats);
    free(stats);
    if (status == POLKA_OK) status = polka_h5log_agree(log, polka_h5log_flush(log));
    return status;
}
