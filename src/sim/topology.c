/* The run's graph: a topology file or a generated graph over the agents, checked. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "polka/graph.h"
#include "sim_impl.h"

static polka_status generate(const polka_config *config, polka_graph_kind kind, size_t agents,
                             polka_graph **out) {
    if (agents == 1) return polka_graph_from_edges(1, NULL, NULL, NULL, 0, out);
    polka_graph_spec spec = polka_graph_spec_default(kind, agents);
    spec.seed = config->seed;
    spec.p = config->p;
    spec.radius = config->radius;
    spec.k = config->k;
    spec.rewire = config->rewire;
    POLKA_CALL(polka_graph_spec_check(&spec));
    if (!polka_graph_kind_is_random(kind)) return polka_graph_generate(&spec, out);
    uint64_t used = 0;
    return polka_graph_generate_connected(&spec, 100, out, &used);
}

polka_status polka_sim_graph(const polka_config *config, size_t agents, polka_graph **out) {
    polka_graph_kind kind;
    polka_graph *graph = NULL;
    int is_kind = access(config->graph, F_OK) != 0 &&
                  polka_graph_kind_parse(config->graph, &kind) == POLKA_OK;
    POLKA_CHECK(!is_kind || strcmp(config->weights, "file") != 0, POLKA_ERR_ARG,
                "net.weights = file takes the weights from a topology file, but net.graph = %s "
                "is generated (use metropolis or uniform)",
                config->graph);
    if (is_kind)
        POLKA_CALL(generate(config, kind, agents, &graph));
    else
        POLKA_CALL(polka_graph_read(config->graph, &graph));
    polka_weight_kind weights;
    polka_status status = polka_weight_kind_parse(config->weights, &weights);
    if (status == POLKA_OK) status = polka_graph_set_weights(graph, weights);
    if (status == POLKA_OK) status = polka_graph_check_connected(graph, config->graph);
    if (status != POLKA_OK) {
        polka_graph_free(&graph);
        return status;
    }
    *out = graph;
    return POLKA_OK;
}

polka_status polka_sim_check_network(const polka_config *config, const polka_graph *graph,
                                     size_t agents) {
    size_t nodes = polka_graph_nodes(graph);
    POLKA_CHECK(nodes == agents, POLKA_ERR_ARG,
                "graph '%s' has %zu nodes but the run has %zu agents (start it with mpirun -n %zu)",
                config->graph, nodes, agents, nodes);
    /* The penalty part of the step is a gossip step of size η_t·c·Σ_j w_ij: past about 1 the
     * iterates oscillate and blow up (DESIGN.md, "Stability"). The largest step is η, or
     * 1/λ for the pegasos schedule η_t = 1/(λt). */
    int pegasos = strcmp(config->schedule, "pegasos") == 0;
    double eta_max = pegasos ? (config->lambda > 0 ? 1.0 / config->lambda : INFINITY) : config->eta;
    double gossip = eta_max * config->c * polka_graph_max_row_sum(graph);
    POLKA_CHECK(gossip <= 1.0, POLKA_ERR_ARG,
                "unstable penalty step: %s * c * max_i sum_j w_ij = %.3g > 1 (%s %g, c %g, max "
                "weight row sum %.3g); lower %s or net.c, or use net.weights = metropolis",
                pegasos ? "1/lambda (the first pegasos step)" : "eta", gossip,
                pegasos ? "1/lambda" : "eta", eta_max, config->c, polka_graph_max_row_sum(graph),
                pegasos ? "the step (learner.schedule = constant or invsqrt)" : "learner.eta");
    return POLKA_OK;
}
