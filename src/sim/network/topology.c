/* The run's graph: a topology file or a generated graph over the agents, checked. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/network/topology_impl.h"

#include "sim/network/fault_impl.h"

static polka_status generate(const polka_plan *plan, size_t agents, uint64_t seed,
                             polka_graph **out) {
    if (agents == 1) return polka_graph_from_edges(1, NULL, NULL, NULL, 0, out);
    polka_graph_spec spec = plan->net.spec;
    spec.n = agents;
    spec.seed = seed;
    POLKA_CALL(polka_graph_spec_check(&spec));
    if (!polka_graph_kind_is_random(spec.kind)) return polka_graph_generate(&spec, out);
    uint64_t used = 0;
    return polka_graph_generate_connected(&spec, 100, out, &used);
}

/* The graph of epoch `epoch` (0: the run's own; later ones from the generator). */
static polka_status epoch_graph(const polka_plan *plan, size_t agents, uint64_t epoch,
                                polka_graph **out) {
    polka_graph *graph = NULL;
    uint64_t seed =
        epoch ? polka_faults_epoch_seed(plan->net.spec.seed, epoch) : plan->net.spec.seed;
    if (plan->net.generated)
        POLKA_CALL(generate(plan, agents, seed, &graph));
    else
        POLKA_CALL(polka_graph_read(plan->net.graph, &graph));
    polka_status status = polka_graph_set_weights(graph, plan->net.weights);
    if (status == POLKA_OK) status = polka_graph_check_connected(graph, plan->net.graph);
    if (status != POLKA_OK) {
        polka_graph_free(&graph);
        return status;
    }
    *out = graph;
    return POLKA_OK;
}

polka_status polka_network_graph(const polka_plan *plan, size_t agents, polka_graph **out) {
    return epoch_graph(plan, agents, 0, out);
}

/* The round whose epoch graph failed (polka_network_epoch_failed), UINT64_MAX when none. */
static uint64_t failed_round = UINT64_MAX;

polka_status polka_network_epoch_graph(const polka_plan *plan, size_t agents, uint64_t round,
                                       polka_graph_check check, polka_graph **out) {
    *out = NULL;
    size_t every = plan->net.resample_every;
    if (every == 0 || round == 0 || round % every != 0) return POLKA_OK;
    polka_graph *graph = NULL;
    polka_status status = epoch_graph(plan, agents, round / every, &graph);
    if (status == POLKA_OK) status = polka_network_check(plan, graph, agents, check);
    if (status != POLKA_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", polka_error_message());
        polka_graph_free(&graph);
        failed_round = round;
        return polka_error_set(status,
                               "the graph of epoch %llu (rounds %llu to %llu, net.resample_every "
                               "= %zu): %s",
                               (unsigned long long)(round / every), (unsigned long long)round + 1,
                               (unsigned long long)(round + every), every, why);
    }
    *out = graph;
    return POLKA_OK;
}

int polka_network_epoch_failed(uint64_t round) {
    return failed_round == round;
}

/* Epochs × agents² at most (node pairs a generator draws) for the check up front: about a
 * second of generation. */
#define EPOCH_CHECK_BUDGET 1e8

polka_status polka_network_check_epochs(const polka_plan *plan, size_t agents, uint64_t first,
                                        uint64_t rounds, polka_graph_check check) {
    size_t every = plan->net.resample_every;
    if (every == 0 || !plan->net.generated || !polka_graph_kind_is_random(plan->net.spec.kind))
        return POLKA_OK; /* every epoch has the first graph, checked at the start */
    double epochs = (double)(rounds - first) / (double)every;
    if (epochs * (double)agents * (double)agents > EPOCH_CHECK_BUDGET) return POLKA_OK;
    for (uint64_t t = (first / every + 1) * every; t < rounds; t += every) {
        polka_graph *graph = NULL;
        POLKA_CALL(polka_network_epoch_graph(plan, agents, t, check, &graph));
        polka_graph_free(&graph);
    }
    return POLKA_OK;
}

uint64_t polka_network_epoch_drawn(const polka_plan *plan, uint64_t rounds) {
    size_t every = plan->net.resample_every;
    if (every == 0 || rounds <= every) return 0;
    return (rounds - 1) / every * every;
}

static polka_status count_agents(const polka_plan *plan, size_t ranks, size_t *agents) {
    *agents = plan->net.agents;
    if (*agents > 0) return POLKA_OK;
    if (plan->net.generated) {
        *agents = ranks;
        return POLKA_OK;
    }
    polka_graph *graph = NULL;
    POLKA_CALL(polka_graph_read(plan->net.graph, &graph));
    *agents = polka_graph_nodes(graph);
    polka_graph_free(&graph);
    return POLKA_OK;
}

polka_status polka_network_agents(const polka_plan *plan, size_t ranks, size_t *agents) {
    POLKA_CALL(count_agents(plan, ranks, agents));
    POLKA_CHECK(plan->run.mode == POLKA_MODE_CENTRALIZED || *agents >= ranks, POLKA_ERR_ARG,
                "the network has %zu agents but the run %zu ranks: every rank needs at least one "
                "agent (net.agents >= ranks)",
                *agents, ranks);
    return POLKA_OK;
}

polka_status polka_network_check(const polka_plan *plan, const polka_graph *graph, size_t agents,
                                 polka_graph_check check) {
    size_t nodes = polka_graph_nodes(graph);
    POLKA_CHECK(nodes == agents, POLKA_ERR_ARG,
                "graph '%s' has %zu nodes but the run has %zu agents (net.agents = %zu, or leave "
                "net.agents = 0 to take the graph's)",
                plan->net.graph, nodes, agents, nodes);
    return check ? check(plan, graph) : POLKA_OK;
}
