/* An agent's common part: its neighbours, this round's messages, the fabric's blocks; the
 * method does the rest (method_impl.h). */
#include "sim/agent/agent_impl.h"

#include <stdlib.h>
#include <string.h>

/* The buffers sized by the degree. */
static void free_slots(polka_agent *agent) {
    free(agent->received);
    free(agent->answers);
    free(agent->answered);
    free(agent->in_point);
    free(agent->out_point);
    free(agent->in_value);
    free(agent->out_value);
    free(agent->in_delay);
    free(agent->fresh);
}

static polka_status alloc_slots(polka_agent *agent) {
    size_t slots = agent->degree ? agent->degree : 1, answer = agent->answer_block;
    agent->received = calloc(slots * agent->send_block, sizeof *agent->received);
    agent->answers = calloc(slots * answer, sizeof *agent->answers);
    agent->answered = malloc(slots * answer * sizeof *agent->answered);
    agent->in_point = calloc(slots, 1);
    agent->out_point = calloc(slots, 1);
    agent->in_value = calloc(slots, 1);
    agent->out_value = calloc(slots, 1);
    agent->in_delay = calloc(slots, sizeof *agent->in_delay);
    agent->fresh = calloc(slots, 1);
    POLKA_CHECK(agent->received && agent->answers && (agent->answered || answer == 0) &&
                    agent->in_point && agent->out_point && agent->in_value && agent->out_value &&
                    agent->in_delay && agent->fresh,
                POLKA_ERR_MEM, "out of memory for agent %zu's buffers", agent->id);
    return POLKA_OK;
}

static void take_graph(polka_agent *agent, const polka_graph *graph) {
    agent->graph = graph;
    agent->degree = polka_graph_degree(graph, agent->id);
    agent->neighbors = polka_graph_neighbors(graph, agent->id);
    agent->weights = polka_graph_neighbor_weights(graph, agent->id);
}

static polka_status init_common(polka_agent *agent, const polka_plan *plan,
                                const polka_data_facts *facts) {
    agent->method = polka_method_of(plan);
    agent->batch = plan->learner.batch;
    agent->dim = facts->dim;
    agent->outputs = polka_loss_outputs(plan->learner.params.loss.kind, facts->classes);
    agent->classification = polka_loss_is_classification(plan->learner.params.loss.kind);
    agent->send_block = agent->method->send_block(plan, facts, agent->outputs);
    agent->answer_block = agent->method->answer_block(plan, facts, agent->outputs);
    agent->sent = calloc(agent->send_block ? agent->send_block : 1, sizeof *agent->sent);
    POLKA_CHECK(agent->sent, POLKA_ERR_MEM, "out of memory for agent %zu's buffers", agent->id);
    return alloc_slots(agent); /* the sent block is sent even after an error: zeros */
}

polka_status polka_agent_init(polka_agent *agent, const polka_plan *plan,
                              const polka_data_facts *facts, const polka_graph *graph,
                              const polka_faults *faults, size_t id) {
    memset(agent, 0, sizeof *agent);
    agent->id = id;
    agent->faults = faults;
    take_graph(agent, graph);
    polka_status status = init_common(agent, plan, facts);
    if (status == POLKA_OK) status = agent->method->init(agent, plan, facts);
    if (status != POLKA_OK) {
        polka_agent_free(agent);
        return status;
    }
    agent->start = polka_now();
    return POLKA_OK;
}

void polka_agent_free(polka_agent *agent) {
    if (agent->method) agent->method->free(agent);
    free(agent->sent);
    free_slots(agent);
    memset(agent, 0, sizeof *agent);
}

polka_status polka_agent_rewire(polka_agent *agent, const polka_graph *graph) {
    const size_t *old_neighbors = agent->neighbors;
    size_t old_degree = agent->degree;
    free_slots(agent);
    take_graph(agent, graph);
    POLKA_CALL(alloc_slots(agent));
    return agent->method->rewire(agent, old_neighbors, old_degree);
}

void polka_agent_links(polka_agent *agent, uint64_t t) {
    const polka_faults *faults = agent->faults;
    agent->round = t;
    double value_bytes = (double)(agent->answer_block * sizeof(double));
    agent->this_round = polka_fault_agent_state(faults, t, agent->id);
    agent->counters.rounds_offline += !agent->this_round.online;
    agent->points_in = 0;
    for (size_t k = 0; k < agent->degree; k++) {
        size_t j = agent->neighbors[k];
        polka_link out = {.point = 1, .value = 1}, in = out;
        if (faults) {
            out = polka_faults_link(faults, agent->graph, t, agent->id, j); /* my points */
            in = polka_faults_link(faults, agent->graph, t, j, agent->id);  /* its points */
        }
        agent->out_point[k] = (unsigned char)out.point;
        agent->in_value[k] = (unsigned char)out.value;
        agent->in_delay[k] = out.delay;
        agent->in_point[k] = (unsigned char)in.point;
        agent->out_value[k] = (unsigned char)in.value;
        agent->points_in += (size_t)in.point;
        agent->counters.messages_lost += out.value_lost + in.point_lost;
        agent->counters.bytes_sent +=
            in.value * value_bytes; /* my blocks: polka_agent_settle_sends */
    }
}

polka_status polka_agent_prepare(polka_agent *agent, const polka_stream *stream) {
    agent->sends = 1;
    if (!agent->this_round.online) return POLKA_OK;
    return agent->method->prepare(agent, stream);
}

void polka_agent_settle_sends(polka_agent *agent) {
    double block_bytes = (double)(agent->send_block * sizeof(double));
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->sends) { /* censored: the messages it would have sent do not exist */
            agent->counters.messages_censored += agent->out_point[k];
            agent->out_point[k] = 0;
            agent->in_value[k] = 0;
        }
        agent->counters.bytes_sent += agent->out_point[k] * block_bytes;
    }
}

void polka_agent_unheard(polka_agent *agent, size_t k) {
    if (!agent->in_point[k]) return;
    agent->in_point[k] = 0;
    agent->points_in--;
}

polka_status polka_agent_answer(polka_agent *agent) {
    return agent->method->answer ? agent->method->answer(agent) : POLKA_OK;
}

polka_status polka_agent_update(polka_agent *agent) {
    return agent->method->update(agent);
}

size_t polka_agent_slot_of(const polka_agent *j, size_t a) {
    size_t k = 0;
    while (k < j->degree && j->neighbors[k] != a) k++;
    return k;
}

polka_status polka_agent_check_finite(const polka_agent *agent) {
    polka_model *model = NULL;
    polka_status status = agent->method->model(agent, &model);
    if (status == POLKA_OK) status = polka_sim_check_finite(model, agent->id);
    polka_model_free(&model);
    return status;
}
