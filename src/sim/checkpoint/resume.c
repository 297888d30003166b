/* Saving a run's agents into a checkpoint and going on from one (resume_impl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/net.h"
#include "sim/checkpoint/resume_impl.h"

/* The method saves the agent's model and state and its counters, which include what the network
 * did to the agent so far (the faults themselves are drawn anew). */
polka_status polka_ckpt_agent_save(const polka_agent *agent, polka_state *state) {
    POLKA_CALL(agent->method->save(agent, state));
    return polka_agent_codec_save(agent, state);
}

polka_status polka_ckpt_agent_restore(polka_agent *agent, const polka_state *state) {
    POLKA_CALL(agent->method->restore(agent, state));
    return polka_agent_codec_restore(agent, state);
}

polka_status polka_ckpt_save(const polka_plan *plan, const polka_driver *driver,
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

/* One "key = value" line of the checkpoint's settings into config. */
static polka_status set_line(const char *path, char *line, polka_config *config) {
    char *equals = strstr(line, " = ");
    POLKA_CHECK(equals != NULL, POLKA_ERR_FORMAT,
                "cannot resume from '%s': its settings line '%.80s' is not 'key = value'", path,
                line);
    *equals = '\0';
    if (polka_config_set(config, line, equals + 3) == POLKA_OK) return POLKA_OK;
    char message[1024];
    snprintf(message, sizeof message, "%s", polka_error_message());
    return polka_error_set(POLKA_ERR_FORMAT, "cannot resume from '%s': its settings: %s", path,
                           message);
}

polka_status polka_ckpt_apply_settings(const polka_ckpt *ckpt, polka_config *config) {
    char *text = NULL;
    polka_status status = polka_ckpt_settings(ckpt, &text);
    for (char *line = text; status == POLKA_OK && line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        status = set_line(polka_ckpt_name(ckpt), line, config);
        line = end ? end + 1 : NULL;
    }
    free(text);
    return status;
}

polka_status polka_ckpt_resume_settings(const char *path, polka_config *config) {
    polka_ckpt *ckpt = NULL;
    POLKA_CALL(polka_ckpt_open_file(path, 1, &ckpt));
    polka_status status = polka_ckpt_apply_settings(ckpt, config);
    polka_ckpt_close(&ckpt);
    return status;
}

polka_status polka_ckpt_resume_round(const polka_plan *plan, size_t agents, uint64_t *round) {
    *round = 0;
    if (plan->run.resume[0] == '\0') return POLKA_OK;
    polka_ckpt *ckpt = NULL;
    POLKA_CALL(polka_ckpt_open(plan, agents, &ckpt));
    *round = polka_ckpt_point(ckpt)->round;
    polka_ckpt_close(&ckpt);
    return POLKA_OK;
}

/* A restore's error with the file and the agent it is about. */
static polka_status in_agent(const polka_ckpt *ckpt, size_t id, polka_status status) {
    char message[1024];
    snprintf(message, sizeof message, "%s", polka_error_message());
    return polka_error_set(status, "cannot resume from '%s': agent %zu: %s", polka_ckpt_name(ckpt),
                           id, message);
}

/* This rank's agents from the checkpoint, and its metric rows. */
static polka_status restore_agents(polka_ckpt *ckpt, const polka_driver *driver,
                                   const polka_history **rows) {
    for (size_t k = 0; k < driver->count; k++) {
        polka_state *state = NULL;
        POLKA_CALL(polka_ckpt_agent(ckpt, driver->ids ? driver->ids[k] : k, &state));
        polka_status status = driver->ops->restore_agent(driver->context, k, state);
        polka_state_free(&state);
        if (status != POLKA_OK) return in_agent(ckpt, driver->ids ? driver->ids[k] : k, status);
    }
    return polka_ckpt_history(ckpt, rows);
}

polka_status polka_ckpt_resume(const polka_plan *plan, const polka_driver *driver,
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
