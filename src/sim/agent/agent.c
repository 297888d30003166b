/* An agent's common part: its neighbours, this round's messages, the fabric's blocks; the
 * method does the rest (method_impl.h). */
#include "sim/agent/agent_impl.h"

#include <math.h>
#include <stdint.h>
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
    free(agent->answers_wire);
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
    agent->answers_wire = calloc(slots * agent->wire.doubles[1], sizeof *agent->answers_wire);
    POLKA_CHECK(agent->received && agent->answers && (agent->answered || answer == 0) &&
                    agent->in_point && agent->out_point && agent->in_value && agent->out_value &&
                    agent->in_delay && agent->fresh && (agent->answers_wire || answer == 0),
                POLKA_ERR_MEM, "out of memory for agent %zu's buffers", agent->id);
    return POLKA_OK;
}

static void take_graph(polka_agent *agent, const polka_graph *graph) {
    agent->graph = graph;
    agent->degree = polka_graph_degree(graph, agent->id);
    agent->neighbors = polka_graph_neighbors(graph, agent->id);
    agent->weights = polka_graph_neighbor_weights(graph, agent->id);
}

static polka_status init_common(polka_agent *agent, const polka_method_ops *method,
                                const polka_plan *plan, const polka_data_facts *facts) {
    agent->method = method;
    agent->batch = plan->learner.batch;
    agent->dim = facts->dim;
    agent->outputs = polka_loss_outputs(plan->learner.params.loss.kind, facts->classes);
    agent->classification = polka_loss_is_classification(plan->learner.params.loss.kind);
    polka_block_layout layout[2];
    agent->method->layout(plan, facts, agent->outputs, layout);
    POLKA_CALL(polka_wire_init(&agent->wire, plan, layout));
    agent->send_block = agent->wire.block[0];
    agent->samples_per_block = polka_wire_points(&agent->wire);
    agent->answer_block = agent->wire.block[1];
    agent->sent = calloc(agent->send_block ? agent->send_block : 1, sizeof *agent->sent);
    agent->sent_wire = calloc(agent->wire.doubles[0] + 1, sizeof *agent->sent_wire);
    POLKA_CHECK(agent->sent && agent->sent_wire, POLKA_ERR_MEM,
                "out of memory for agent %zu's buffers", agent->id);
    return alloc_slots(agent); /* the sent block is sent even after an error: zeros */
}

polka_status polka_agent_init(polka_agent *agent, const polka_method_ops *method,
                              const polka_plan *plan, const polka_data_facts *facts,
                              const polka_graph *graph, const polka_faults *faults, size_t id) {
    memset(agent, 0, sizeof *agent);
    agent->id = id;
    agent->faults = faults;
    take_graph(agent, graph);
    polka_status status = init_common(agent, method, plan, facts);
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
    free(agent->sent_wire);
    free(agent->reached);
    free_slots(agent);
    polka_wire_free(&agent->wire);
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
    double value_bytes = (double)agent->wire.bytes[1]; /* encoded */
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

void polka_agent_links_async(polka_agent *agent, uint64_t k) {
    const polka_faults *faults = agent->faults;
    agent->round = k;
    agent->this_round = polka_fault_agent_state(faults, k, agent->id);
    agent->counters.rounds_offline += !agent->this_round.online;
    size_t peer = faults && faults->gossip && agent->degree > 0
                      ? polka_faults_gossip_slot(faults, k, agent->id, agent->degree)
                      : SIZE_MAX; /* one-peer gossip: the one neighbour update k sends to */
    for (size_t s = 0; s < agent->degree; s++) {
        size_t j = agent->neighbors[s];
        int block = agent->this_round.online && (peer == SIZE_MAX || s == peer), answer = block;
        if (faults && block && polka_faults_lost(faults, k, agent->id, j, 0)) {
            block = answer = 0;
            agent->counters.messages_lost += 1.0;
        } else if (faults && block && agent->answer_block > 0 &&
                   polka_faults_lost(faults, k, agent->id, j, 1)) {
            answer = 0;
            agent->counters.messages_lost += 1.0;
        }
        agent->out_point[s] = (unsigned char)block;
        agent->in_value[s] = (unsigned char)answer;
    }
}

polka_status polka_agent_prepare(polka_agent *agent, const polka_stream *stream) {
    agent->sends = 1;
    if (!agent->this_round.online) return POLKA_OK;
    return agent->method->prepare(agent, stream);
}

/* Agent j has now received own samples of this agent: counted once (ids kept in order). */
static polka_status note_receiver(polka_agent *agent, uint64_t j) {
    size_t lo = 0, hi = agent->reached_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (agent->reached[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < agent->reached_count && agent->reached[lo] == j) return POLKA_OK;
    if (agent->reached_count == agent->reached_room) {
        size_t room = agent->reached_room ? 2 * agent->reached_room : 8;
        uint64_t *grown = realloc(agent->reached, room * sizeof *grown);
        POLKA_CHECK_ALLOC(grown);
        agent->reached = grown;
        agent->reached_room = room;
    }
    memmove(agent->reached + lo + 1, agent->reached + lo,
            (agent->reached_count - lo) * sizeof *agent->reached);
    agent->reached[lo] = j;
    agent->reached_count++;
    agent->counters.receivers = (double)agent->reached_count;
    return POLKA_OK;
}

polka_status polka_agent_settle_sends(polka_agent *agent) {
    double block_bytes = (double)agent->wire.bytes[0]; /* encoded */
    polka_status status = POLKA_OK;
    int goes_out = 0;
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->sends) { /* censored: the messages it would have sent do not exist */
            agent->counters.messages_censored += agent->out_point[k];
            agent->out_point[k] = 0;
            agent->in_value[k] = 0;
        }
        agent->counters.bytes_sent += agent->out_point[k] * block_bytes;
        goes_out |= agent->out_point[k];
        if (!agent->out_point[k] || agent->samples_per_block == 0) continue;
        agent->counters.samples_out += (double)agent->samples_per_block;
        if (status == POLKA_OK) status = note_receiver(agent, agent->neighbors[k]);
    }
    /* the block's clamped coordinates count once, when it reaches a neighbour at all */
    if (goes_out) agent->counters.points_clamped += (double)agent->clamped;
    agent->clamped = 0;
    return status;
}

void polka_agent_unheard(polka_agent *agent, size_t k) {
    if (!agent->in_point[k]) return;
    agent->in_point[k] = 0;
    agent->points_in--;
}

void polka_agent_encode(polka_agent *agent) {
    polka_codec_draw draw = {agent->wire.seed, agent->id, agent->round}; /* random-k's */
    agent->clamped = polka_wire_encode(&agent->wire, 0, agent->sent, agent->sent_wire, &draw);
}

void polka_agent_take_block(polka_agent *agent, size_t k, const double *message) {
    polka_wire_decode(&agent->wire, 0, message, agent->received + k * agent->send_block);
}

void polka_agent_take_answer(polka_agent *agent, size_t k, const double *message) {
    polka_wire_decode(&agent->wire, 1, message, agent->answered + k * agent->answer_block);
}

/* The answers to the blocks heard this round, encoded; each then reads as decoded. */
static void encode_answers(polka_agent *agent) {
    size_t block = agent->answer_block, doubles = agent->wire.doubles[1];
    for (size_t k = 0; k < agent->degree; k++)
        if (agent->in_point[k])
            polka_wire_encode(&agent->wire, 1, agent->answers + k * block,
                              agent->answers_wire + k * doubles, NULL);
}

polka_status polka_agent_answer(polka_agent *agent) {
    if (!agent->method->answer) return POLKA_OK;
    polka_status status = agent->method->answer(agent);
    if (status == POLKA_OK && agent->this_round.online) encode_answers(agent);
    return status;
}

polka_status polka_agent_wire_doubles(const polka_method_ops *method, const polka_plan *plan,
                                      const polka_data_facts *facts, size_t outputs,
                                      size_t doubles[2]) {
    polka_block_layout layout[2];
    polka_wire wire;
    method->layout(plan, facts, outputs, layout);
    polka_status status = polka_wire_init(&wire, plan, layout);
    doubles[0] = wire.doubles[0];
    doubles[1] = wire.doubles[1];
    polka_wire_free(&wire);
    return status;
}

/* The receivers of the agent's samples, and a sparsifier's copies: what the agent's neighbours
 * hold of its vector and what it holds of theirs (only the increments travel, so a resumed run
 * needs both). */
polka_status polka_agent_codec_save(const polka_agent *agent, polka_state *state) {
    if (agent->reached_count > 0)
        POLKA_CALL(polka_state_put_ref(state, "privacy.receivers", POLKA_STATE_U64, agent->reached,
                                       agent->reached_count));
    if (!agent->wire.sparse) return POLKA_OK;
    size_t slots = agent->degree ? agent->degree : 1;
    POLKA_CALL(polka_state_put_ref(state, "codec.held", POLKA_STATE_F64, agent->wire.held,
                                   agent->send_block));
    return polka_state_put_ref(state, "codec.received", POLKA_STATE_F64, agent->received,
                               slots * agent->send_block);
}

/* The receivers of its samples so far: as many as the counter says, agents of the graph. */
static polka_status restore_receivers(polka_agent *agent, const polka_state *state) {
    double counted = agent->counters.receivers;
    size_t nodes = polka_graph_nodes(agent->graph);
    POLKA_CHECK(counted >= 0 && counted <= (double)nodes && counted == floor(counted),
                POLKA_ERR_FORMAT, "checkpoint: agent %zu's receivers = %g is not a count of agents",
                agent->id, counted);
    size_t count = (size_t)counted;
    agent->reached_count = 0;
    if (count == 0) return POLKA_OK;
    uint64_t *ids = malloc(count * sizeof *ids);
    POLKA_CHECK_ALLOC(ids);
    polka_status status = polka_state_get(state, "privacy.receivers", POLKA_STATE_U64, ids, count);
    for (size_t r = 0; r < count && status == POLKA_OK; r++)
        if (ids[r] >= nodes || (r > 0 && ids[r] <= ids[r - 1]))
            status = polka_error_set(
                POLKA_ERR_FORMAT,
                "checkpoint: agent %zu's privacy.receivers are not agent ids in order", agent->id);
    if (status != POLKA_OK) {
        free(ids);
        return status;
    }
    free(agent->reached);
    agent->reached = ids;
    agent->reached_count = agent->reached_room = count;
    return POLKA_OK;
}

polka_status polka_agent_codec_restore(polka_agent *agent, const polka_state *state) {
    POLKA_CALL(restore_receivers(agent, state));
    if (!agent->wire.sparse) return POLKA_OK;
    size_t slots = agent->degree ? agent->degree : 1;
    POLKA_CALL(
        polka_state_get(state, "codec.held", POLKA_STATE_F64, agent->wire.held, agent->send_block));
    return polka_state_get(state, "codec.received", POLKA_STATE_F64, agent->received,
                           slots * agent->send_block);
}

polka_status polka_agent_update(polka_agent *agent) {
    agent->counters.updates += agent->this_round.learns;
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
    if (status == POLKA_OK) status = polka_plan_check_finite(model, agent->id);
    polka_model_free(&model);
    return status;
}
