/*
 * coke: dkla with communication censoring (Xu et al., COKE, JMLR 2021; rff_methods.h). After
 * its primal step an agent sends θ_i only when it moved by at least h(k) = α μ^k from the
 * last value it sent (θ̂_i); otherwise it sends nothing that round and its neighbours keep
 * its last θ̂_i. Primal and dual use the θ̂'s. With net.censor_alpha = 0 it is dkla bit for bit.
 */
#include "sim/method/rf_impl.h"

static polka_status coke_init(polka_agent *agent, const polka_plan *plan,
                              const polka_data_facts *facts) {
    POLKA_CALL(polka_rf_init(agent, plan, facts));
    polka_rf_of(agent)->alpha = plan->settings.censor_alpha;
    polka_rf_of(agent)->mu = plan->settings.censor_mu;
    return POLKA_OK;
}

const polka_method_ops polka_method_coke = {
    .name = "coke",
    .help = "dkla with communication censoring (Xu et al. 2021): the variable is sent only when "
            "it moved by net.censor_alpha * net.censor_mu^k since it was last sent",
    .censors = 1,
    .synchronous = 1,
    POLKA_RF_OPS,
    .check = polka_rf_check,
    .init = coke_init,
    .prepare = polka_rf_admm_prepare,
    .update = polka_rf_admm_dual,
};
