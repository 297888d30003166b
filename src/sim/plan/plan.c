/* The run plan's names and the questions every floor asks of it (plan.h); the plan is built
 * and checked by polka_plan_build (driver/plan_build.c). */
#include "polka/plan.h"

static const char *const mode_names[] = {"decentralized", "centralized"};
static const char *const penalty_names[] = {"paper", "symmetric"};
static const char *const placement_names[] = {"block", "partition"};
static const char *const share_names[] = {"points", "samples"};

const char *polka_run_mode_name(polka_run_mode mode) {
    return polka_name_at(mode_names, POLKA_COUNT(mode_names), (int)mode);
}

polka_status polka_run_mode_parse(const char *text, polka_run_mode *out) {
    int index = 0;
    POLKA_CALL(polka_name_find(text, mode_names, POLKA_COUNT(mode_names), "run.mode", &index));
    *out = (polka_run_mode)index;
    return POLKA_OK;
}

const char *polka_placement_kind_name(polka_placement_kind kind) {
    return polka_name_at(placement_names, POLKA_COUNT(placement_names), (int)kind);
}

polka_status polka_placement_kind_parse(const char *text, polka_placement_kind *out) {
    int index = 0;
    POLKA_CALL(polka_name_find(text, placement_names, POLKA_COUNT(placement_names), "net.placement",
                               &index));
    *out = (polka_placement_kind)index;
    return POLKA_OK;
}

const char *polka_penalty_kind_name(polka_penalty_kind kind) {
    return polka_name_at(penalty_names, POLKA_COUNT(penalty_names), (int)kind);
}

polka_status polka_penalty_kind_parse(const char *text, polka_penalty_kind *out) {
    int index = 0;
    POLKA_CALL(
        polka_name_find(text, penalty_names, POLKA_COUNT(penalty_names), "net.penalty", &index));
    *out = (polka_penalty_kind)index;
    return POLKA_OK;
}

const char *polka_share_kind_name(polka_share_kind kind) {
    return polka_name_at(share_names, POLKA_COUNT(share_names), (int)kind);
}

polka_status polka_share_kind_parse(const char *text, polka_share_kind *out) {
    int index = 0;
    POLKA_CALL(polka_name_find(text, share_names, POLKA_COUNT(share_names), "net.share", &index));
    *out = (polka_share_kind)index;
    return POLKA_OK;
}

int polka_plan_classifies(const polka_plan *plan) {
    return polka_loss_is_classification(plan->learner.params.loss.kind);
}

size_t polka_plan_central_batch(const polka_plan *plan, size_t agents) {
    size_t batch = plan->learner.batch;
    if (plan->run.central_batch) return plan->run.central_batch;
    size_t most = batch > POLKA_CENTRAL_BATCH_MAX ? batch : POLKA_CENTRAL_BATCH_MAX;
    return agents > most / batch ? most : agents * batch;
}

size_t polka_plan_log_stride(const polka_plan *plan, size_t agents) {
    size_t most = plan->run.log_agents;
    return most == 0 || most >= agents ? 1 : (agents + most - 1) / most;
}

const char *polka_plan_check_length(double passes, size_t n_train) {
    /* samples are counted in doubles and rounds in size_t: stay where both are exact */
    if (!(passes * (double)n_train <= 9007199254740992.0))
        return "run.passes * data.n_train is too large (at most 2^53 training samples)";
    return NULL;
}

void polka_plan_settings_with(const polka_plan *plan, const polka_data_facts *facts,
                              polka_config *out) {
    *out = plan->settings;
    out->dim = facts->dim;
    out->classes = facts->classes;
    out->n_train = facts->n_train;
    out->n_test = facts->n_test;
}
