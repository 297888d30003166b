#include <string.h>
#include <unistd.h>

#include "polka/graph.h"

#include "polka/net.h"
#include "sim_impl.h"

/* The agents whose union a centralized run learns from: net.agents, else the graph file's
 * nodes, else the ranks. */
static polka_status central_agents(const polka_config *config, int size, size_t *agents) {
    *agents = config->agents;
    if (*agents > 0) return POLKA_OK;
    polka_graph_kind kind;
    if (access(config->graph, F_OK) != 0 &&
        polka_graph_kind_parse(config->graph, &kind) == POLKA_OK) {
        *agents = (size_t)size;
        return POLKA_OK;
    }
    polka_graph *graph = NULL;
    POLKA_CALL(polka_graph_read(config->graph, &graph));
    *agents = polka_graph_nodes(graph);
    polka_graph_free(&graph);
    return POLKA_OK;
}

/* Centralized mode: rank 0 learns, every rank gets the summary and the status. */
static polka_status run_centralized_on_root(const polka_config *config, MPI_Comm comm,
                                            const polka_sim_hooks *hooks,
                                            polka_sim_summary *summary) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    polka_status status = POLKA_OK;
    size_t agents = 1;
    if (rank == 0) status = central_agents(config, size, &agents);
    if (rank == 0 && status == POLKA_OK)
        status = polka_sim_run_centralized(config, agents, hooks, summary);
    POLKA_CALL(polka_net_agree(comm, status));
    return polka_net_check(MPI_Bcast(summary, (int)sizeof *summary, MPI_BYTE, 0, comm),
                           "MPI_Bcast");
}

polka_status polka_sim_run(const polka_config *config, MPI_Comm comm, const polka_sim_hooks *hooks,
                           polka_sim_summary *summary) {
    const char *why = polka_config_check(config);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    if (strcmp(config->mode, "centralized") == 0)
        return run_centralized_on_root(config, comm, hooks, summary);
    int size = 1;
    MPI_Comm_size(comm, &size);
    /* a decentralized run has one agent per rank: net.agents cannot ask for others */
    POLKA_CHECK(config->agents == 0 || config->agents == (size_t)size, POLKA_ERR_ARG,
                "net.agents = %zu but a decentralized run has one agent per rank (%d ranks); "
                "net.agents is for centralized runs",
                config->agents, size);
    return polka_sim_run_decentralized(config, comm, hooks, summary, NULL);
}
