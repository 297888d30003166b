#include "sim/agent/agent_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/driver/sim_impl.h"

/* The buffers sized by the degree (and the rows of late values). */
static void free_slots(polka_agent *agent) {
    free(agent->received);
    free(agent->nbr_eval);
    free(agent->nbr_values);
    free(agent->cand_x);
    free(agent->cand_g);
    free(agent->in_point);
    free(agent->out_point);
    free(agent->in_value);
    free(agent->out_value);
    free(agent->in_delay);
    free(agent->fresh);
}

static polka_status alloc_slots(polka_agent *agent) {
    size_t b = agent->batch, c = agent->outputs, d = agent->degree, slots = d ? d : 1;
    size_t late = agent->faults ? agent->faults->spec.delay : 0;
    agent->received = malloc(slots * b * agent->payload * sizeof *agent->received);
    agent->nbr_eval = calloc(slots * b * c, sizeof *agent->nbr_eval);
    agent->nbr_values = malloc(slots * b * c * sizeof *agent->nbr_values);
    agent->cand_x = malloc((1 + d + late) * b * agent->dim * sizeof *agent->cand_x);
    agent->cand_g = malloc((1 + d + late) * b * c * sizeof *agent->cand_g);
    agent->in_point = calloc(slots, 1);
    agent->out_point = calloc(slots, 1);
    agent->in_value = calloc(slots, 1);
    agent->out_value = calloc(slots, 1);
    agent->in_delay = calloc(slots, sizeof *agent->in_delay);
    agent->fresh = calloc(slots, 1);
    POLKA_CHECK(agent->received && agent->nbr_eval && agent->nbr_values && agent->cand_x &&
                    agent->cand_g && agent->in_point && agent->out_point && agent->in_value &&
                    agent->out_value && agent->in_delay && agent->fresh,
                POLKA_ERR_MEM, "out of memory for agent %zu's buffers", agent->id);
    return POLKA_OK;
}

size_t polka_agent_payload(const polka_plan *plan, size_t dim, size_t outputs) {
    return dim + (plan->net.penalty == POLKA_PENALTY_SYMMETRIC ? outputs : 0) +
           (plan->net.share == POLKA_SHARE_SAMPLES);
}

static void take_graph(polka_agent *agent, const polka_graph *graph) {
    agent->graph = graph;
    agent->degree = polka_graph_degree(graph, agent->id);
    agent->neighbors = polka_graph_neighbors(graph, agent->id);
    agent->weights = polka_graph_neighbor_weights(graph, agent->id);
}

static polka_status init_buffers(polka_agent *agent) {
    size_t b = agent->batch, c = agent->outputs;
    agent->y = malloc(b * sizeof *agent->y);
    agent->f_own = malloc(b * c * sizeof *agent->f_own);
    agent->shared_g = malloc(c * sizeof *agent->shared_g);
    agent->sent = calloc(b * agent->payload, sizeof *agent->sent); /* sent even after an error */
    POLKA_CHECK(agent->y && agent->f_own && agent->shared_g && agent->sent, POLKA_ERR_MEM,
                "out of memory for agent %zu's buffers", agent->id);
    POLKA_CALL(alloc_slots(agent));
    return agent->faults && agent->faults->spec.delay > 0
               ? polka_agent_stale_create(agent, agent->faults->spec.delay)
               : POLKA_OK;
}

polka_status polka_agent_init(polka_agent *agent, const polka_plan *plan,
                              const polka_data_facts *facts, const polka_graph *graph,
                              const polka_faults *faults, size_t id) {
    memset(agent, 0, sizeof *agent);
    polka_learner_params params = plan->learner.params;
    params.seed = plan->run.seed * 1000003u + id; /* the agent's own NBSGD draws */
    params.horizon = polka_sim_rounds(plan->run.passes, facts->n_train,
                                      polka_graph_nodes(graph) * plan->learner.batch);
    POLKA_CALL(polka_learner_create(&params, facts->dim, facts->classes, &agent->learner));
    agent->id = id;
    agent->faults = faults;
    take_graph(agent, graph);
    agent->batch = plan->learner.batch;
    agent->dim = facts->dim;
    agent->outputs = polka_learner_outputs(agent->learner);
    agent->symmetric = plan->net.penalty == POLKA_PENALTY_SYMMETRIC;
    agent->classification = polka_loss_is_classification(params.loss.kind);
    agent->shares_samples = plan->net.share == POLKA_SHARE_SAMPLES;
    agent->c = plan->net.c;
    agent->payload = polka_agent_payload(plan, agent->dim, agent->outputs);
    polka_status status = init_buffers(agent);
    if (status != POLKA_OK) {
        polka_agent_free(agent);
        return status;
    }
    agent->start = polka_now();
    return POLKA_OK;
}

void polka_agent_free(polka_agent *agent) {
    polka_learner_free(&agent->learner);
    polka_agent_stale_free(agent);
    free(agent->y);
    free(agent->f_own);
    free(agent->shared_g);
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
    return agent->stale ? polka_agent_stale_rewire(agent, old_neighbors, old_degree) : POLKA_OK;
}

void polka_agent_links(polka_agent *agent, uint64_t t) {
    const polka_faults *faults = agent->faults;
    agent->round = t;
    double point_bytes = (double)(agent->batch * agent->payload * sizeof(double)),
           value_bytes = (double)(agent->batch * agent->outputs * sizeof(double));
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
        agent->counters.bytes_sent += out.point * point_bytes + in.value * value_bytes;
    }
}

polka_status polka_agent_prepare(polka_agent *agent, const polka_stream *stream) {
    if (!agent->this_round.online) return POLKA_OK;
    double start = polka_now();
    uint64_t round = agent->round;
    size_t b = agent->batch, p = agent->dim, c = agent->outputs;
    POLKA_CALL(polka_stream_agent_batch(stream, agent->id, round, agent->cand_x, agent->y));
    int learns = agent->this_round.learns;
    POLKA_CALL(polka_learner_predict(agent->learner, agent->cand_x, b, agent->f_own));
    for (size_t r = 0; r < b; r++) {
        double *row = agent->sent + r * agent->payload;
        memcpy(row, agent->cand_x + r * p, p * sizeof *row);
        if (agent->symmetric) memcpy(row + p, agent->f_own + r * c, c * sizeof *row);
        if (agent->shares_samples) row[agent->payload - 1] = learns ? agent->y[r] : NAN;
    }
    if (agent->stale) polka_agent_stale_remember(agent);
    agent->counters.time_compute += polka_now() - start;
    return POLKA_OK;
}

/* The heard neighbours' values, evaluated compactly, moved to their slots (the last first:
 * a slot's block never lies before its compact block). */
static void spread_evaluations(polka_agent *agent) {
    size_t block = agent->batch * agent->outputs, compact = agent->points_in;
    for (size_t k = agent->degree; k-- > 0;) {
        if (!agent->in_point[k]) continue;
        compact--;
        if (compact != k)
            memmove(agent->nbr_eval + k * block, agent->nbr_eval + compact * block,
                    block * sizeof *agent->nbr_eval);
    }
}

polka_status polka_agent_eval_received(polka_agent *agent) {
    if (!agent->this_round.online || agent->points_in == 0) return POLKA_OK;
    double start = polka_now();
    size_t b = agent->batch, p = agent->dim, n = 0;
    double *points = agent->cand_x + b * p; /* the heard neighbours' points, contiguous */
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->in_point[k]) continue;
        for (size_t r = 0; r < b; r++, n++)
            memcpy(points + n * p, agent->received + (k * b + r) * agent->payload,
                   p * sizeof *points);
    }
    /* the update learns from these points only with the symmetric penalty or shared samples */
    polka_status status =
        agent->symmetric || agent->shares_samples
            ? polka_learner_predict(agent->learner, points, n, agent->nbr_eval)
            : polka_learner_predict_transient(agent->learner, points, n, agent->nbr_eval);
    if (agent->points_in < agent->degree) spread_evaluations(agent);
    agent->counters.time_compute += polka_now() - start;
    return status;
}

/* Σ_k w_k over the slots marked in `heard`; the full row sum when heard is NULL. */
static double weight_of(const polka_agent *agent, const unsigned char *heard) {
    double sum = 0.0;
    for (size_t k = 0; k < agent->degree; k++)
        if (!heard || heard[k]) sum += agent->weights[k];
    return sum;
}

/* The factor that gives neighbours of weight `heard` the whole row sum (fault.renormalise). */
static double to_row_sum(const polka_agent *agent, double heard) {
    return heard > 0 ? weight_of(agent, NULL) / heard : 1.0;
}

/* Rows of the heard neighbours' points (symmetric): c·w_ij·(f_i(x_j) − f_j(x_j)). */
static void neighbor_rows(polka_agent *agent, double scale) {
    size_t b = agent->batch, c = agent->outputs, p = agent->dim, row = 0;
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->in_point[k]) continue;
        double cw = agent->c * agent->weights[k];
        if (scale != 1.0) cw *= scale;
        for (size_t r = 0; r < b; r++, row++) {
            const double *f_j = agent->received + (k * b + r) * agent->payload + p;
            const double *f_i = agent->nbr_eval + (k * b + r) * c;
            double *g = agent->cand_g + (b + row) * c;
            for (size_t o = 0; o < c; o++) g[o] = cw * (f_i[o] - f_j[o]);
        }
    }
}

/* net.share = samples: a heard neighbour's sample (x_j, y_j) enters the agent's loss as one of
 * its own, with the same weight η/B: its row gains ∇ℓ(f_i(x_j), y_j) (f_i(x_j) was evaluated
 * to answer the neighbour). A NaN label (its agent did not learn from it) adds nothing. */
static void shared_sample_rows(polka_agent *agent) {
    size_t b = agent->batch, c = agent->outputs, label_at = agent->payload - 1, row = 0;
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->in_point[k]) continue;
        for (size_t r = 0; r < b; r++, row++) {
            double *g = agent->cand_g + (b + row) * c;
            if (!agent->symmetric) memset(g, 0, c * sizeof *g);
            double y = agent->received[(k * b + r) * agent->payload + label_at];
            if (isnan(y)) continue;
            polka_learner_loss_grad(agent->learner, agent->nbr_eval + (k * b + r) * c, &y, 1,
                                    agent->shared_g);
            for (size_t o = 0; o < c; o++) g[o] += agent->shared_g[o];
        }
    }
}

/* g += c Σ_j w_ij (f_i(x) − f_j(x)) at the own points, over the fresh values. */
static void own_point_penalty(polka_agent *agent, double scale) {
    size_t b = agent->batch, c = agent->outputs;
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->fresh[k]) continue;
        double cw = agent->c * agent->weights[k];
        if (scale != 1.0) cw *= scale;
        const double *f_j = agent->nbr_values + k * b * c;
        for (size_t e = 0; e < b * c; e++) agent->cand_g[e] += cw * (agent->f_own[e] - f_j[e]);
        agent->counters.value_age_count += 1.0; /* age 0 */
    }
}

/* Which values enter the update: this round's, and (fault.delay) the newest late ones. */
static void mark_values(polka_agent *agent) {
    if (agent->stale)
        polka_agent_stale_receive(agent, agent->fresh);
    else
        memcpy(agent->fresh, agent->in_value, agent->degree);
}

/* fault.renormalise: the factors for the values' and the points' terms (1 when it is off). */
static void penalty_scales(const polka_agent *agent, double *values, double *points) {
    *values = *points = 1.0;
    if (!agent->faults || !agent->faults->spec.renormalise) return;
    *values = to_row_sum(agent, agent->stale ? polka_agent_stale_weight(agent)
                                             : weight_of(agent, agent->fresh));
    *points = to_row_sum(agent, weight_of(agent, agent->in_point));
}

polka_status polka_agent_update(polka_agent *agent) {
    mark_values(agent); /* even offline: values in flight keep arriving */
    if (!agent->this_round.learns) return POLKA_OK; /* offline, or no batch: no step */
    double start = polka_now();
    size_t b = agent->batch;
    double *g = agent->cand_g;
    agent->counters.train_loss_sum +=
        polka_learner_loss_grad(agent->learner, agent->f_own, agent->y, b, g) / (double)b;
    agent->counters.train_loss_count += 1.0;
    polka_online_error_add(&agent->counters, agent->classification, agent->learner, agent->f_own,
                           agent->y, b);
    double scale = 1.0, point_scale = 1.0;
    penalty_scales(agent, &scale, &point_scale);
    own_point_penalty(agent, scale);
    size_t rows = b;
    if (agent->symmetric && agent->points_in > 0) neighbor_rows(agent, point_scale);
    if (agent->shares_samples && agent->points_in > 0) shared_sample_rows(agent);
    if (agent->symmetric || agent->shares_samples) rows += agent->points_in * b;
    size_t late = 0;
    polka_status status =
        agent->stale ? polka_agent_stale_rows(agent, rows, scale, &late) : POLKA_OK;
    if (status == POLKA_OK)
        status =
            polka_learner_update_batch(agent->learner, agent->cand_x, rows + late, g, (double)b);
    agent->counters.time_update += polka_now() - start;
    return status;
}
