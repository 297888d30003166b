/* The run file's description of itself: /config (with the graph) and /timing.
 * Metadata (groups, datasets, attributes) is created by every rank with the same values;
 * the data of a dataset is written by the rank that owns it (independent transfer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_impl.h"
#include "polka/net.h"

/* ---- /config ----------------------------------------------------------------------------- */

/* What rank 0 describes: its configuration, the MPI size and the size of its graph. */
typedef struct {
    polka_config config;
    uint64_t mpi_size, has_graph, nodes, edges;
} config_header;

static polka_status config_attrs(const polka_runfile *log, hid_t group, const config_header *h) {
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

static polka_status write_graph(const polka_runfile *log, hid_t config, const config_header *h,
                                const polka_graph *graph) {
    uint64_t *edges = NULL;
    double *weights = NULL;
    polka_status status = log->rank == 0 ? pack_edges(graph, &edges, &weights) : POLKA_OK;
    status = polka_runfile_agree(log, status);
    hid_t group = H5I_INVALID_HID;
    if (status == POLKA_OK)
        status = polka_runfile_agree(log, polka_h5_group(config, "graph", log->path, &group));
    if (status == POLKA_OK)
        status = polka_runfile_agree(log, polka_h5_attr_u64(group, "nodes", h->nodes, log->path));
    int write = log->rank == 0 && h->edges > 0;
    hsize_t dims[2] = {h->edges, 2};
    if (status == POLKA_OK)
        status = polka_runfile_agree(log, polka_h5_dataset(group, "edges", H5T_NATIVE_UINT64, 2,
                                                           dims, write ? edges : NULL, log->path));
    if (status == POLKA_OK)
        status =
            polka_runfile_agree(log, polka_h5_dataset(group, "weights", H5T_NATIVE_DOUBLE, 1, dims,
                                                      write ? weights : NULL, log->path));
    free(edges);
    free(weights);
    return polka_h5_first(status, polka_h5_close(&group, log->path));
}

static polka_status share_header(const polka_runfile *log, const polka_config *config,
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
    POLKA_CALL(polka_runfile_agree(log, status));
    return polka_net_check(MPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, log->comm), "MPI_Bcast");
}

polka_status polka_runfile_write_config(polka_runfile *log, const polka_config *config,
                                        const polka_graph *graph, int mpi_size) {
    config_header *h = malloc(sizeof *h);
    polka_status status = polka_runfile_agree(
        log, h != NULL ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory"));
    if (status != POLKA_OK) {
        free(h);
        return status;
    }
    status = polka_runfile_agree(log, share_header(log, config, graph, mpi_size, h));
    hid_t group = H5I_INVALID_HID;
    if (status == POLKA_OK)
        status = polka_runfile_agree(log, polka_h5_unlink(log->file, "config", log->path));
    if (status == POLKA_OK)
        status = polka_runfile_agree(log, polka_h5_group(log->file, "config", log->path, &group));
    if (status == POLKA_OK) status = polka_runfile_agree(log, config_attrs(log, group, h));
    if (status == POLKA_OK && h->has_graph) status = write_graph(log, group, h, graph);
    status = polka_h5_first(status, polka_h5_close(&group, log->path));
    free(h);
    status = polka_runfile_agree(log, status);
    if (status == POLKA_OK) status = polka_runfile_agree(log, polka_runfile_flush(log));
    return status;
}

/* Collective: /config/NAME = the value (a u64 when integer, else a double). */
static polka_status config_fact(polka_runfile *log, const char *name, uint64_t integer,
                                const double *real) {
    hid_t group = H5I_INVALID_HID;
    polka_status status =
        polka_runfile_agree(log, polka_h5_group(log->file, "config", log->path, &group));
    if (status == POLKA_OK)
        status =
            polka_runfile_agree(log, real ? polka_h5_attr_double(group, name, *real, log->path)
                                          : polka_h5_attr_u64(group, name, integer, log->path));
    status = polka_runfile_agree(log, polka_h5_first(status, polka_h5_close(&group, log->path)));
    if (status == POLKA_OK) status = polka_runfile_agree(log, polka_runfile_flush(log));
    return status;
}

polka_status polka_runfile_config_u64(polka_runfile *log, const char *name, uint64_t value) {
    return config_fact(log, name, value, NULL);
}

polka_status polka_runfile_config_double(polka_runfile *log, const char *name, double value) {
    return config_fact(log, name, 0, &value);
}

/* ---- /models: runfile_models.c (kernel expansions), runfile_rff.c (random features) --------- */

/* ---- /timing ----------------------------------------------------------------------------- */

/* [min, mean, max] over the ranks, per stage, into stats (3 × count). */
static polka_status reduce_timing(const polka_runfile *log, size_t count, const double *mine,
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
static polka_status check_stages(const polka_runfile *log, size_t count, const char *const *names,
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
static polka_status ranks_attr(const polka_runfile *log, hid_t group) {
    htri_t exists = H5Aexists(group, "ranks");
    if (exists < 0 || (exists > 0 && H5Adelete(group, "ranks") < 0))
        return polka_h5_fail("replace attribute", "/timing/ranks", log->path);
    return polka_h5_attr_u64(group, "ranks", (uint64_t)log->size, log->path);
}

static polka_status write_stages(const polka_runfile *log, size_t count, const char *const *names,
                                 const double *stats) {
    hid_t group = H5I_INVALID_HID;
    polka_status status =
        polka_runfile_agree(log, polka_h5_group(log->file, "timing", log->path, &group));
    if (status == POLKA_OK) status = polka_runfile_agree(log, ranks_attr(log, group));
    hsize_t three = 3;
    for (size_t s = 0; s < count && status == POLKA_OK; s++) {
        status = polka_runfile_agree(log, polka_h5_unlink(group, names[s], log->path));
        if (status == POLKA_OK)
            status = polka_runfile_agree(
                log, polka_h5_dataset(group, names[s], H5T_NATIVE_DOUBLE, 1, &three,
                                      log->rank == 0 ? stats + 3 * s : NULL, log->path));
    }
    return polka_h5_first(status, polka_h5_close(&group, log->path));
}

polka_status polka_runfile_write_timing(polka_runfile *log, size_t stage_count,
                                        const char *const *stage_names, const double *my_seconds) {
    POLKA_CALL(polka_runfile_agree(log, check_stages(log, stage_count, stage_names, my_seconds)));
    double *stats = malloc(3 * stage_count * sizeof *stats + 1);
    polka_status status = polka_runfile_agree(
        log, stats != NULL ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory"));
    if (status == POLKA_OK)
        status = polka_runfile_agree(log, reduce_timing(log, stage_count, my_seconds, stats));
    if (status == POLKA_OK) status = write_stages(log, stage_count, stage_names, stats);
    free(stats);
    if (status == POLKA_OK) status = polka_runfile_agree(log, polka_runfile_flush(log));
    return status;
}
