/* Saving a run's agents into a checkpoint and going on from one (resume_impl.h). */
#include <stdlib.h>

#include "polka/net.h"
#include "sim/checkpoint/resume_impl.h"

polka_status polka_agent_save(const polka_agent *agent, polka_state *state) {
    double sums[7] = {agent->online_error.sum,    agent->online_error.count, agent->train_loss,
                      (double)agent->train_count, agent->time_compute,       agent->time_exchange,
                      agent->time_update};
    /* what the network did to the agent so far (the faults themselves are drawn anew) */
    double faults[5] = {agent->bytes_sent, agent->messages_lost, agent->rounds_offline,
                        agent->age_sum, agent->age_count};
    POLKA_CALL(polka_learner_save(agent->learner, state));
    POLKA_CALL(polka_state_put(state, "agent.sums", POLKA_STATE_F64, sums, 7));
    POLKA_CALL(polka_state_put(state, "agent.faults", POLKA_STATE_F64, faults, 5));
    return agent->stale ? polka_agent_stale_save(agent, state) : POLKA_OK;
}

polka_status polka_agent_restore(polka_agent *agent, const polka_state *state) {
    double sums[7], faults[5];
    POLKA_CALL(polka_learner_restore(agent->learner, state));
    POLKA_CALL(polka_state_get(state, "agent.sums", POLKA_STATE_F64, sums, 7));
    POLKA_CALL(polka_state_get(state, "agent.faults", POLKA_STATE_F64, faults, 5));
    agent->online_error.sum = sums[0], agent->online_error.count = sums[1];
    agent->train_loss = sums[2], agent->train_count = (size_t)sums[3];
    agent->time_compute = sums[4], agent->time_exchange = sums[5], agent->time_update = sums[6];
    agent->bytes_sent = faults[0], agent->messages_lost = faults[1];
    agent->rounds_offline = faults[2], agent->age_sum = faults[3], agent->age_count = faults[4];
    return agent->stale ? polka_agent_stale_restore(agent, state) : POLKA_OK;
}

polka_status polka_sim_save(const polka_plan *plan, const polka_driver *driver,
                            const polka_sim_point *point, int signal) {
    size_t count = driver->count;
    polka_state **states = calloc(count ? count : 1, sizeof *states);
    polka_status status = states ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    for (size_t k = 0; k < count && status == POLKA_OK; k++) {
        status = polka_state_create(&states[k]);
        if (status == POLKA_OK) status = driver->ops->save_agent(driver->context, k, states[k]);
    }
    status = polka_net_agree(driver->comm, status);
    if (status == POLKA_OK)
        status = polka_ckpt_write(plan, driver->comm, point, driver->agents, driver->order, count,
                                  states, &driver->log->history, signal);
    for (size_t k = 0; states && k < count; k++) polka_state_free(&states[k]);
    free(states);
    return status;
}

polka_status polka_sim_resume_round(const polka_plan *plan, size_t agents, uint64_t *round) {
    *round = 0;
    if (plan->run.resume[0] == '\0') return POLKA_OK;
    polka_ckpt *ckpt = NULL;
    POLKA_CALL(polka_ckpt_open(plan, agents, &ckpt));
    *round = polka_ckpt_point(ckpt)->round;
    polka_ckpt_close(&ckpt);
    return POLKA_OK;
}

/* This rank's agents from the checkpoint, and its metric rows. */
static polka_status restore_agents(polka_ckpt *ckpt, const polka_driver *driver,
                                   const polka_history **rows) {
    for (size_t k = 0; k < driver->count; k++) {
        polka_state *state = NULL;
        POLKA_CALL(polka_ckpt_agent(ckpt, driver->ids ? driver->ids[k] : k, &state));
        polka_status status = driver->ops->restore_agent(driver->context, k, state);
        polka_state_free(&state);
        POLKA_CALL(status);
    }
    return polka_ckpt_history(ckpt, rows);
}

polka_status polka_sim_resume(const polka_plan *plan, const polka_driver *driver,
                              polka_sim_point *from) {
    if (plan->run.resume[0] == '\0') return POLKA_OK;
    polka_ckpt *ckpt = NULL;
    const polka_history *rows = NULL;
    polka_status status = polka_ckpt_open(plan, driver->agents, &ckpt);
    if (status == POLKA_OK) status = restore_agents(ckpt, driver, &rows);
    status = polka_net_agree(driver->comm, status);
    if (status == POLKA_OK)
        status = polka_netlog_replay(driver->log, rows, driver->ids, driver->count);
    if (status == POLKA_OK) *from = *polka_ckpt_point(ckpt);
    polka_ckpt_close(&ckpt);
    return polka_net_agree(driver->comm, status);
}
