/*
 * rf-diffusion: adapt-then-combine diffusion on random features (rff_methods.h; Sayed 2014,
 * Richards et al. 2020). A round: ψ_i = θ_i − η G_i(θ_i) on the batch, sent to the
 * neighbours; θ_i = a_ii ψ_i + Σ_j a_ij ψ_j with the graph's weights (net.weights), where a
 * neighbour not heard this round (a lost message, an offline agent) counts with its last ψ_j.
 *
 * With a sparsifier (top-k, random-k) the neighbours hold copies ψ̂_j that lag ψ_j. The
 * combination above mixes ψ_i with them at full speed but does not keep the network's
 * average; with net.codec_gamma = γ > 0, CHOCO-gossip's step (Koloskova et al. 2019,
 * Algorithm 1) θ_i = ψ_i + γ Σ_j a_ij (ψ̂_j − ψ̂_i) does (its sum over i is Σ ψ_i for
 * symmetric weights), mixing γ times as fast.
 */
#include "sim/method/rf_impl.h"

#include <string.h>

/* The combination is an average: every agent's neighbour weights sum to at most 1. */
static polka_status diffusion_check_graph(const polka_plan *plan, const polka_graph *graph) {
    double most = polka_graph_max_row_sum(graph);
    POLKA_CHECK(most <= 1.0 + 1e-12, POLKA_ERR_ARG,
                "net.method = rf-diffusion combines with the graph's weights as an average, but "
                "an agent's neighbour weights sum to %.3g > 1 (net.weights = %s); use metropolis",
                most, plan->settings.weights);
    return POLKA_OK;
}

static polka_status diffusion_prepare(polka_agent *agent, const polka_stream *stream) {
    polka_rf *rf = polka_rf_of(agent);
    POLKA_CALL(polka_rf_draw_batch(agent, stream));
    double start = polka_now();
    polka_rff_batch batch = polka_rf_batch(agent);
    polka_status status =
        polka_rf_diffusion_adapt(&rf->problem, &batch, rf->eta, rf->theta, rf->next);
    memcpy(agent->sent, rf->next, rf->len * sizeof *agent->sent);
    polka_agent_encode(agent);
    agent->counters.time_update += polka_now() - start;
    return status;
}

static polka_status diffusion_update(polka_agent *agent) {
    polka_rf *rf = polka_rf_of(agent);
    polka_rff_neighbours nb = polka_rf_neighbours(agent);
    if (!agent->this_round.online) return POLKA_OK;
    double start = polka_now(), self = 0.0;
    POLKA_CALL(polka_rf_diffusion_self_weight(agent->weights, agent->degree, &self));
    if (agent->wire.sparse && rf->consensus_step > 0) /* sent: ψ̂_i, the neighbours' copy */
        polka_rf_choco_combine(rf->len, rf->consensus_step, rf->next, agent->sent, &nb, rf->theta);
    else
        polka_rf_diffusion_combine(rf->len, self, rf->next, &nb, rf->theta);
    agent->counters.time_update += polka_now() - start;
    return POLKA_OK;
}

const polka_method_ops polka_method_rf_diffusion = {
    .name = "rf-diffusion",
    .help = "random-feature diffusion: adapt (an SGD step on the batch), send the variable, "
            "combine the neighbours' with the graph's weights",
    POLKA_RF_OPS,
    .init = polka_rf_init,
    .check = polka_rf_check,
    .check_graph = diffusion_check_graph,
    .prepare = diffusion_prepare,
    .update = diffusion_update,
};
