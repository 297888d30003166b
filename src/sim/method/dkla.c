/*
 * dkla: decentralized kernel learning via ADMM on random features (Xu et al., JMLR 2021;
 * rff_methods.h). A round: the primal step from θ_i, γ_i and the neighbours' last θ_j
 * (linearized with step learner.eta on the batch, or exact on a fixed data set:
 * net.rf_solve), the new θ_i sent to every neighbour, then the dual ascent
 * γ_i += ρ Σ_j (θ_i − θ_j) with the θ_j heard (a neighbour not heard counts with its last).
 */
#include "sim/method/rf_impl.h"

#include <string.h>

/* The sending side of an ADMM round (dkla; coke, whose α > 0 censors): the primal step, then
 * θ_i goes out — always for dkla, for coke when it moved by h(k) since it was last sent — and
 * θ̂_i becomes what the neighbours decode (net.codec_vectors). */
polka_status polka_rf_admm_prepare(polka_agent *agent, const polka_stream *stream) {
    polka_rf *rf = polka_rf_of(agent);
    POLKA_CALL(polka_rf_draw_batch(agent, stream));
    double start = polka_now();
    polka_status status = polka_rf_admm_primal(agent);
    memcpy(rf->theta, rf->next, rf->len * sizeof *rf->theta);
    if (rf->alpha > 0) { /* round k = t + 1 (rff_methods.h counts from 1) */
        double h = polka_coke_threshold(rf->alpha, rf->mu, agent->round + 1);
        agent->sends = polka_coke_censor(rf->len, rf->theta, h, rf->shared);
    } else {
        memcpy(rf->shared, rf->theta, rf->len * sizeof *rf->shared);
    }
    memcpy(agent->sent, rf->shared, rf->len * sizeof *agent->sent);
    if (agent->sends) {
        polka_agent_encode(agent);
        memcpy(rf->shared, agent->sent, rf->len * sizeof *rf->shared);
    }
    agent->counters.time_update += polka_now() - start;
    return status;
}

/* The dual ascent with the variables heard (shared by coke, whose θ̂ is its last sent). */
polka_status polka_rf_admm_dual(polka_agent *agent) {
    polka_rf *rf = polka_rf_of(agent);
    polka_rff_neighbours nb = polka_rf_neighbours(agent);
    if (!agent->this_round.online) return POLKA_OK;
    double start = polka_now();
    polka_dkla_dual(rf->len, rf->rho, rf->shared, &nb, rf->gamma);
    agent->counters.time_update += polka_now() - start;
    return POLKA_OK;
}

const polka_method_ops polka_method_dkla = {
    .name = "dkla",
    .help =
        "decentralized kernel learning via ADMM on random features (Xu et al. 2021): a "
        "primal step (net.rf_solve), the variable to every neighbour, a dual ascent (net.admm_rho)",
    .synchronous = 1,
    POLKA_RF_OPS,
    .init = polka_rf_init,
    .check = polka_rf_check,
    .prepare = polka_rf_admm_prepare,
    .update = polka_rf_admm_dual,
};
