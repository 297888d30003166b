/* A serial in-memory network running the random-feature methods (rff_network_ref.h). */
#include "polka/rff_network_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

polka_status polka_rff_net_ref_create(const polka_rff_graph *graph, size_t len,
                                      polka_rff_net_ref *out) {
    size_t agents = graph->agents, most = 0;
    POLKA_CHECK(agents > 0 && len > 0, POLKA_ERR_ARG, "random-feature network: no agents");
    for (size_t i = 0; i < agents; i++) {
        size_t degree = graph->offsets[i + 1] - graph->offsets[i];
        most = degree > most ? degree : most;
    }
    polka_rff_net_ref net = {.agents = agents, .len = len};
    net.theta = calloc(4 * agents * len, sizeof *net.theta);
    net.vars = calloc(most + 1, sizeof *net.vars);
    if (net.theta == NULL || net.vars == NULL) {
        polka_rff_net_ref_free(&net);
        return polka_error_set(POLKA_ERR_MEM, "random-feature network: out of memory");
    }
    net.shared = net.theta + agents * len;
    net.gamma = net.shared + agents * len;
    net.next = net.gamma + agents * len;
    *out = net;
    return POLKA_OK;
}

void polka_rff_net_ref_free(polka_rff_net_ref *net) {
    if (net == NULL) return;
    free(net->theta);
    free((void *)net->vars);
    *net = (polka_rff_net_ref){0};
}

/* Agent i's neighbours' arrays within `all` (agents × len). */
static polka_rff_neighbours neighbours_of(polka_rff_net_ref *net, const polka_rff_graph *graph,
                                          size_t i, const double *all) {
    size_t first = graph->offsets[i], count = graph->offsets[i + 1] - first;
    for (size_t j = 0; j < count; j++) net->vars[j] = all + graph->adj[first + j] * net->len;
    return (polka_rff_neighbours){
        .count = count, .vars = net->vars, .weight = graph->weight ? graph->weight + first : NULL};
}

static polka_status admm_primal(polka_rff_net_ref *net, const polka_rff_graph *graph,
                                const polka_rff_problem *problem, const polka_rff_batch *data,
                                const polka_rff_admm *admm, size_t i) {
    size_t len = net->len;
    polka_rff_neighbours nb = neighbours_of(net, graph, i, net->shared);
    const double *shared = net->shared + i * len, *gamma = net->gamma + i * len;
    if (admm->exact)
        return polka_dkla_exact_primal(&admm->exact[i], problem, admm->rho, shared, gamma, &nb,
                                       net->next + i * len);
    return polka_dkla_primal_linearized(problem, &data[i], admm->rho, admm->eta,
                                        net->theta + i * len, shared, gamma, &nb,
                                        net->next + i * len);
}

polka_status polka_rff_net_ref_admm_round(polka_rff_net_ref *net, const polka_rff_graph *graph,
                                          const polka_rff_problem *problem,
                                          const polka_rff_batch *data, const polka_rff_admm *admm,
                                          size_t *sent) {
    size_t len = net->len, count = 0;
    uint64_t k = net->round + 1;
    /* 1. every primal from the round-(k−1) shared values */
    for (size_t i = 0; i < net->agents; i++)
        POLKA_CALL(admm_primal(net, graph, problem, data, admm, i));
    /* 2.–3. censoring (DKLA: α = 0, every agent sends) and the exchange */
    double threshold = admm->alpha > 0 ? polka_coke_threshold(admm->alpha, admm->mu, k) : 0.0;
    memcpy(net->theta, net->next, net->agents * len * sizeof *net->theta);
    for (size_t i = 0; i < net->agents; i++)
        count +=
            (size_t)polka_coke_censor(len, net->theta + i * len, threshold, net->shared + i * len);
    /* 4. the duals from the round-k shared values */
    for (size_t i = 0; i < net->agents; i++) {
        polka_rff_neighbours nb = neighbours_of(net, graph, i, net->shared);
        polka_dkla_dual(len, admm->rho, net->shared + i * len, &nb, net->gamma + i * len);
    }
    net->round = k;
    net->transmissions += count;
    if (sent) *sent = count;
    return POLKA_OK;
}

polka_status polka_rff_net_ref_diffusion_round(polka_rff_net_ref *net, const polka_rff_graph *graph,
                                               const polka_rff_problem *problem,
                                               const polka_rff_batch *data, double eta) {
    POLKA_CHECK(graph->weight != NULL, POLKA_ERR_ARG, "rf-diffusion: the graph has no weights");
    size_t len = net->len;
    for (size_t i = 0; i < net->agents; i++)
        POLKA_CALL(polka_rf_diffusion_adapt(problem, &data[i], eta, net->theta + i * len,
                                            net->next + i * len));
    for (size_t i = 0; i < net->agents; i++) {
        polka_rff_neighbours nb = neighbours_of(net, graph, i, net->next);
        double self;
        POLKA_CALL(polka_rf_diffusion_self_weight(nb.weight, nb.count, &self));
        polka_rf_diffusion_combine(len, self, net->next + i * len, &nb, net->theta + i * len);
    }
    memcpy(net->shared, net->theta, net->agents * len * sizeof *net->shared);
    net->round++;
    net->transmissions += net->agents;
    return POLKA_OK;
}

double polka_rff_net_ref_max_distance(const polka_rff_net_ref *net, const double *target) {
    double target_sq = 0.0, worst = 0.0;
    for (size_t k = 0; k < net->len; k++) target_sq += target[k] * target[k];
    for (size_t i = 0; i < net->agents; i++) {
        const double *theta = net->theta + i * net->len;
        double sq = 0.0;
        for (size_t k = 0; k < net->len; k++) sq += (theta[k] - target[k]) * (theta[k] - target[k]);
        worst = sq > worst ? sq : worst;
    }
    return sqrt(worst / target_sq);
}
