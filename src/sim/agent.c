#include "agent_impl.h"

#include <stdlib.h>
#include <string.h>

#include "sim_impl.h"

polka_status polka_agent_init(polka_agent *agent, const polka_plan *plan,
                              const polka_data_facts *facts, const polka_graph *graph, size_t id) {
    memset(agent, 0, sizeof *agent);
    polka_learner_params params = plan->learner.params;
    params.seed = plan->run.seed * 1000003u + id; /* the agent's own NBSGD draws */
    params.horizon = polka_sim_rounds(plan->run.passes, facts->n_train,
                                      polka_graph_nodes(graph) * plan->learner.batch);
    POLKA_CALL(polka_learner_create(&params, facts->dim, facts->classes, &agent->learner));
    agent->id = id;
    agent->degree = polka_graph_degree(graph, id);
    agent->neighbors = polka_graph_neighbors(graph, id);
    agent->weights = polka_graph_neighbor_weights(graph, id);
    agent->batch = plan->learner.batch;
    agent->dim = facts->dim;
    agent->outputs = polka_learner_outputs(agent->learner);
    agent->symmetric = plan->net.penalty == POLKA_PENALTY_SYMMETRIC;
    agent->online.classification = polka_loss_is_classification(params.loss.kind);
    agent->c = plan->net.c;
    agent->payload = agent->dim + (agent->symmetric ? agent->outputs : 0);
    size_t b = agent->batch, c = agent->outputs, d = agent->degree;
    agent->y = malloc(b * sizeof *agent->y);
    agent->f_own = malloc(b * c * sizeof *agent->f_own);
    agent->sent = calloc(b * agent->payload, sizeof *agent->sent); /* sent even after an error */
    agent->received = malloc((d ? d : 1) * b * agent->payload * sizeof *agent->received);
    agent->nbr_eval = calloc((d ? d : 1) * b * c, sizeof *agent->nbr_eval);
    agent->nbr_values = malloc((d ? d : 1) * b * c * sizeof *agent->nbr_values);
    agent->cand_x = malloc((1 + d) * b * agent->dim * sizeof *agent->cand_x);
    agent->cand_g = malloc((1 + d) * b * c * sizeof *agent->cand_g);
    if (!agent->y || !agent->f_own || !agent->sent || !agent->received || !agent->nbr_eval ||
        !agent->nbr_values || !agent->cand_x || !agent->cand_g) {
        polka_agent_free(agent);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for agent %zu's buffers", id);
    }
    agent->start = polka_now();
    return POLKA_OK;
}

void polka_agent_free(polka_agent *agent) {
    polka_learner_free(&agent->learner);
    free(agent->y);
    free(agent->f_own);
    free(agent->sent);
    free(agent->received);
    free(agent->nbr_eval);
    free(agent->nbr_values);
    free(agent->cand_x);
    free(agent->cand_g);
    memset(agent, 0, sizeof *agent);
}

polka_status polka_agent_prepare(polka_agent *agent, const polka_stream *stream, uint64_t round) {
    double start = polka_now();
    size_t b = agent->batch, p = agent->dim, c = agent->outputs;
    POLKA_CALL(polka_stream_agent_batch(stream, agent->id, round, agent->cand_x, agent->y));
    agent->learns = polka_stream_agent_learns(stream, agent->id, round);
    POLKA_CALL(polka_learner_predict(agent->learner, agent->cand_x, b, agent->f_own));
    for (size_t r = 0; r < b; r++) {
        double *row = agent->sent + r * agent->payload;
        memcpy(row, agent->cand_x + r * p, p * sizeof *row);
        if (agent->symmetric) memcpy(row + p, agent->f_own + r * c, c * sizeof *row);
    }
    agent->time_compute += polka_now() - start;
    return POLKA_OK;
}

polka_status polka_agent_eval_received(polka_agent *agent) {
    double start = polka_now();
    size_t b = agent->batch, p = agent->dim, n = agent->degree * b;
    double *points = agent->cand_x + b * p; /* the neighbours' points, contiguous */
    for (size_t r = 0; r < n; r++)
        memcpy(points + r * p, agent->received + r * agent->payload, p * sizeof *points);
    polka_status status = polka_learner_predict(agent->learner, points, n, agent->nbr_eval);
    agent->time_compute += polka_now() - start;
    return status;
}

/* Rows of the neighbours' points (symmetric): c·w_ij·(f_i(x_j) − f_j(x_j)). */
static void neighbor_rows(polka_agent *agent) {
    size_t b = agent->batch, c = agent->outputs, p = agent->dim;
    for (size_t k = 0; k < agent->degree; k++) {
        double cw = agent->c * agent->weights[k];
        for (size_t r = 0; r < b; r++) {
            size_t row = k * b + r;
            const double *f_j = agent->received + row * agent->payload + p;
            const double *f_i = agent->nbr_eval + row * c;
            double *g = agent->cand_g + (b + row) * c;
            for (size_t o = 0; o < c; o++) g[o] = cw * (f_i[o] - f_j[o]);
        }
    }
}

polka_status polka_agent_update(polka_agent *agent) {
    if (!agent->learns) return POLKA_OK; /* quantity skew: no batch this round, no step */
    double start = polka_now();
    size_t b = agent->batch, c = agent->outputs;
    double *g = agent->cand_g;
    agent->train_loss +=
        polka_learner_loss_grad(agent->learner, agent->f_own, agent->y, b, g) / (double)b;
    agent->train_count++;
    polka_online_error_add(&agent->online, agent->learner, agent->f_own, agent->y, b);
    /* g += c Σ_j w_ij (f_i(x) − f_j(x)) at the own points (the paper's penalty gradient) */
    for (size_t k = 0; k < agent->degree; k++) {
        double cw = agent->c * agent->weights[k];
        const double *f_j = agent->nbr_values + k * b * c;
        for (size_t e = 0; e < b * c; e++) g[e] += cw * (agent->f_own[e] - f_j[e]);
    }
    size_t rows = b;
    if (agent->symmetric && agent->degree > 0) {
        neighbor_rows(agent);
        rows += agent->degree * b;
    }
    polka_status status =
        polka_learner_update_batch(agent->learner, agent->cand_x, rows, g, (double)b);
    agent->time_update += polka_now() - start;
    return status;
}
