/* The greedy projected penalty method (penalty_impl.h, [KPRR18]) as a method of the fabric. */
#include "sim/method/penalty_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/loss.h"
#include "sim/plan/plan_impl.h"

/* Doubles sent per point: the point, then f_i at it (net.penalty = symmetric), then its
 * label (net.share = samples; NaN when its agent does not learn from it this round). */
static size_t payload_doubles(const polka_plan *plan, size_t dim, size_t outputs) {
    return dim + (plan->net.penalty == POLKA_PENALTY_SYMMETRIC ? outputs : 0) +
           (plan->net.share == POLKA_SHARE_SAMPLES);
}

/* Phase 1: per point of the batch the point, (symmetric) f_i there, (samples) its label; phase
 * 2: f_j at the batch's points. */
static void penalty_layout(const polka_plan *plan, const polka_data_facts *facts, size_t outputs,
                           polka_block_layout layout[2]) {
    polka_block_layout *out = &layout[0];
    *out = (polka_block_layout){.rows = plan->learner.batch};
    out->part[out->parts].kind = POLKA_MSG_POINTS;
    out->part[out->parts++].len = facts->dim;
    if (plan->net.penalty == POLKA_PENALTY_SYMMETRIC) {
        out->part[out->parts].kind = POLKA_MSG_VALUES;
        out->part[out->parts++].len = outputs;
    }
    if (plan->net.share == POLKA_SHARE_SAMPLES) {
        out->part[out->parts].kind = POLKA_MSG_EXACT;
        out->part[out->parts++].len = 1;
    }
    layout[1] = (polka_block_layout){.rows = plan->learner.batch, .parts = 1};
    layout[1].part[0].kind = POLKA_MSG_VALUES;
    layout[1].part[0].len = outputs;
}

static polka_status penalty_check(const polka_plan *plan) {
    (void)plan;
    return POLKA_OK;
}

static polka_status penalty_check_graph(const polka_plan *plan, const polka_graph *graph) {
    /* The penalty part of the step is a gossip step of size η_t·c·Σ_j w_ij: past about 1 the
     * iterates oscillate and blow up (docs/design.md, "Stability"). The largest step is η, or
     * 1/λ for the pegasos schedule η_t = 1/(λt). */
    const polka_learner_params *params = &plan->learner.params;
    int pegasos = params->schedule == POLKA_SCHEDULE_PEGASOS;
    double eta_max = pegasos ? (params->lambda > 0 ? 1.0 / params->lambda : INFINITY) : params->eta;
    double c = plan->net.c, gossip = eta_max * c * polka_graph_max_row_sum(graph);
    POLKA_CHECK(gossip <= 1.0, POLKA_ERR_ARG,
                "unstable penalty step: %s * c * max_i sum_j w_ij = %.3g > 1 (%s %g, c %g, max "
                "weight row sum %.3g); lower %s or net.c, or use net.weights = metropolis",
                pegasos ? "1/lambda (the first pegasos step)" : "eta", gossip,
                pegasos ? "1/lambda" : "eta", eta_max, c, polka_graph_max_row_sum(graph),
                pegasos ? "the step (learner.schedule = constant or invsqrt)" : "learner.eta");
    return POLKA_OK;
}

/* The candidate rows, sized by the degree (and the rows of late values). */
static polka_status alloc_rows(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    size_t b = agent->batch, d = agent->degree;
    size_t late = pen->late;
    free(pen->cand_x);
    free(pen->cand_g);
    pen->cand_x = malloc((1 + d + late) * b * agent->dim * sizeof *pen->cand_x);
    pen->cand_g = malloc((1 + d + late) * b * agent->outputs * sizeof *pen->cand_g);
    POLKA_CHECK(pen->cand_x && pen->cand_g, POLKA_ERR_MEM, "out of memory for agent %zu's buffers",
                agent->id);
    return POLKA_OK;
}

static polka_status penalty_buffers(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    size_t b = agent->batch, c = agent->outputs;
    pen->y = malloc(b * sizeof *pen->y);
    pen->f_own = malloc(b * c * sizeof *pen->f_own);
    pen->shared_g = malloc(c * sizeof *pen->shared_g);
    pen->shared_sent = malloc(b * c * sizeof *pen->shared_sent);
    POLKA_CHECK(pen->y && pen->f_own && pen->shared_g && pen->shared_sent, POLKA_ERR_MEM,
                "out of memory for agent %zu's buffers", agent->id);
    POLKA_CALL(alloc_rows(agent));
    return pen->late > 0 ? polka_stale_create(agent, pen->late) : POLKA_OK;
}

static polka_status penalty_init(polka_agent *agent, const polka_plan *plan,
                                 const polka_data_facts *facts) {
    polka_penalty *pen = calloc(1, sizeof *pen);
    POLKA_CHECK(pen, POLKA_ERR_MEM, "out of memory for agent %zu", agent->id);
    agent->state = pen;
    polka_learner_params params = plan->learner.params;
    params.seed = plan->run.seed * 1000003u + agent->id; /* the agent's own NBSGD draws */
    params.horizon = polka_method_run_rounds(agent, plan, facts);
    POLKA_CALL(polka_learner_create(&params, facts->dim, facts->classes, &pen->learner));
    pen->symmetric = plan->net.penalty == POLKA_PENALTY_SYMMETRIC;
    pen->shares_samples = plan->net.share == POLKA_SHARE_SAMPLES;
    pen->c = plan->net.c;
    pen->late = polka_penalty_late_rounds(plan);
    pen->payload = payload_doubles(plan, agent->dim, agent->outputs);
    POLKA_CALL(
        polka_privacy_setup(&pen->privacy, plan, polka_graph_nodes(agent->graph), facts->n_train));
    return penalty_buffers(agent);
}

static void penalty_free(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    if (pen == NULL) return;
    polka_learner_free(&pen->learner);
    polka_stale_free(agent);
    free(pen->y);
    free(pen->f_own);
    free(pen->shared_g);
    free(pen->shared_sent);
    free(pen->cand_x);
    free(pen->cand_g);
    free(pen);
    agent->state = NULL;
}

static polka_status penalty_rewire(polka_agent *agent, const size_t *old_neighbors,
                                   size_t old_degree) {
    POLKA_CALL(alloc_rows(agent));
    return polka_penalty_of(agent)->stale ? polka_stale_rewire(agent, old_neighbors, old_degree)
                                          : POLKA_OK;
}

static polka_status penalty_prepare(polka_agent *agent, const polka_stream *stream) {
    polka_penalty *pen = polka_penalty_of(agent);
    if (!agent->this_round.online) return POLKA_OK;
    double start = polka_now();
    uint64_t round = agent->round;
    size_t b = agent->batch, p = agent->dim, c = agent->outputs;
    POLKA_CALL(polka_stream_agent_batch(stream, agent->id, round, pen->cand_x, pen->y));
    if (pen->privacy.clip > 0) /* the noisy points are what everyone learns from, itself too */
        polka_privacy_protect(&pen->privacy, agent->id, round, pen->cand_x, p, &agent->counters);
    int learns = agent->this_round.learns;
    POLKA_CALL(polka_learner_predict(pen->learner, pen->cand_x, b, pen->f_own));
    for (size_t r = 0; r < b; r++) {
        double *row = agent->sent + r * pen->payload;
        memcpy(row, pen->cand_x + r * p, p * sizeof *row);
        if (pen->symmetric) memcpy(row + p, pen->f_own + r * c, c * sizeof *row);
        if (pen->shares_samples) row[pen->payload - 1] = learns ? pen->y[r] : NAN;
    }
    polka_agent_encode(agent); /* sent: what the neighbours decode */
    if (pen->stale) polka_stale_remember(agent);
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
            memmove(agent->answers + k * block, agent->answers + compact * block,
                    block * sizeof *agent->answers);
    }
}

static polka_status penalty_answer(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    if (!agent->this_round.online || agent->points_in == 0) return POLKA_OK;
    double start = polka_now();
    size_t b = agent->batch, p = agent->dim, n = 0;
    double *points = pen->cand_x + b * p; /* the heard neighbours' points, contiguous */
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->in_point[k]) continue;
        for (size_t r = 0; r < b; r++, n++)
            memcpy(points + n * p, agent->received + (k * b + r) * pen->payload,
                   p * sizeof *points);
    }
    /* the update learns from these points only with the symmetric penalty or shared samples */
    polka_status status =
        pen->symmetric || pen->shares_samples
            ? polka_learner_predict(pen->learner, points, n, agent->answers)
            : polka_learner_predict_transient(pen->learner, points, n, agent->answers);
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
    polka_penalty *pen = polka_penalty_of(agent);
    size_t b = agent->batch, c = agent->outputs, p = agent->dim, row = 0;
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->in_point[k]) continue;
        double cw = pen->c * agent->weights[k];
        if (scale != 1.0) cw *= scale;
        for (size_t r = 0; r < b; r++, row++) {
            const double *f_j = agent->received + (k * b + r) * pen->payload + p;
            const double *f_i = agent->answers + (k * b + r) * c;
            double *g = pen->cand_g + (b + row) * c;
            for (size_t o = 0; o < c; o++) g[o] = cw * (f_i[o] - f_j[o]);
        }
    }
}

/* net.share = samples: a heard neighbour's sample (x_j, y_j) enters the agent's loss as one of
 * its own, with the same weight η/B: its row gains ∇ℓ(f_i(x_j), y_j) (f_i(x_j) was evaluated
 * to answer the neighbour). A NaN label (its agent did not learn from it) adds nothing. */
static void shared_sample_rows(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    size_t b = agent->batch, c = agent->outputs, label_at = pen->payload - 1, row = 0;
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->in_point[k]) continue;
        for (size_t r = 0; r < b; r++, row++) {
            double *g = pen->cand_g + (b + row) * c;
            if (!pen->symmetric) memset(g, 0, c * sizeof *g);
            double y = agent->received[(k * b + r) * pen->payload + label_at];
            if (isnan(y)) continue;
            polka_learner_loss_grad(pen->learner, agent->answers + (k * b + r) * c, &y, 1,
                                    pen->shared_g);
            for (size_t o = 0; o < c; o++) g[o] += pen->shared_g[o];
        }
    }
}

/* f_i at the own points as the penalty uses them: (symmetric) as sent, decoded, so that both
 * ends of an edge use the same f_i(x_i) (net.codec_values); else as computed. */
static const double *own_values(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    if (!pen->symmetric) return pen->f_own;
    size_t b = agent->batch, c = agent->outputs, p = agent->dim;
    double *f = pen->shared_sent;
    for (size_t r = 0; r < b; r++)
        memcpy(f + r * c, agent->sent + r * pen->payload + p, c * sizeof *f);
    return f;
}

/* g += c Σ_j w_ij (f_i(x) − f_j(x)) at the own points, over the fresh values. */
static void own_point_penalty(polka_agent *agent, double scale) {
    polka_penalty *pen = polka_penalty_of(agent);
    size_t b = agent->batch, c = agent->outputs;
    const double *f_i = own_values(agent);
    for (size_t k = 0; k < agent->degree; k++) {
        if (!agent->fresh[k]) continue;
        double cw = pen->c * agent->weights[k];
        if (scale != 1.0) cw *= scale;
        const double *f_j = agent->answered + k * b * c;
        for (size_t e = 0; e < b * c; e++) pen->cand_g[e] += cw * (f_i[e] - f_j[e]);
        agent->counters.value_age_count += 1.0; /* age 0 */
    }
}

/* Which values enter the update: this round's, and (fault.delay) the newest late ones. */
static void mark_values(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    if (agent->async) /* the event engine filed the answers as they arrived */
        polka_stale_classify(agent, agent->fresh);
    else if (pen->stale)
        polka_stale_receive(agent, agent->fresh);
    else
        memcpy(agent->fresh, agent->in_value, agent->degree);
}

/* fault.renormalise: the factors for the values' and the points' terms (1 when it is off). */
static void penalty_scales(const polka_agent *agent, double *values, double *points) {
    polka_penalty *pen = polka_penalty_of(agent);
    *values = *points = 1.0;
    if (!agent->faults || !agent->faults->spec.renormalise) return;
    *values =
        to_row_sum(agent, pen->stale ? polka_stale_weight(agent) : weight_of(agent, agent->fresh));
    *points = to_row_sum(agent, weight_of(agent, agent->in_point));
}

static polka_status penalty_update(polka_agent *agent) {
    polka_penalty *pen = polka_penalty_of(agent);
    mark_values(agent); /* even offline: values in flight keep arriving */
    if (!agent->this_round.learns) return POLKA_OK; /* offline, or no batch: no step */
    double start = polka_now();
    size_t b = agent->batch;
    double *g = pen->cand_g;
    agent->counters.train_loss_sum +=
        polka_learner_loss_grad(pen->learner, pen->f_own, pen->y, b, g) / (double)b;
    agent->counters.train_loss_count += 1.0;
    polka_online_error_add(&agent->counters, agent->classification, pen->learner, pen->f_own,
                           pen->y, b);
    double scale = 1.0, point_scale = 1.0;
    penalty_scales(agent, &scale, &point_scale);
    own_point_penalty(agent, scale);
    size_t rows = b;
    if (pen->symmetric && agent->points_in > 0) neighbor_rows(agent, point_scale);
    if (pen->shares_samples && agent->points_in > 0) shared_sample_rows(agent);
    if (pen->symmetric || pen->shares_samples) rows += agent->points_in * b;
    size_t late = 0;
    polka_status status = pen->stale ? polka_stale_rows(agent, rows, scale, &late) : POLKA_OK;
    if (status == POLKA_OK)
        status = polka_learner_update_batch(pen->learner, pen->cand_x, rows + late, g, (double)b);
    agent->counters.time_update += polka_now() - start;
    return status;
}

static polka_status penalty_predict(const polka_agent *agent, const double *x, size_t n,
                                    double *f) {
    return polka_learner_predict_output(polka_penalty_of(agent)->learner, x, n, f);
}

static double penalty_score(const polka_agent *agent, const double *f, const double *y, size_t n,
                            double *loss) {
    return polka_learner_score(polka_penalty_of(agent)->learner, f, y, n, loss);
}

static size_t penalty_order(const polka_agent *agent) {
    return polka_model_order(polka_learner_model(polka_penalty_of(agent)->learner));
}

static polka_status penalty_model(const polka_agent *agent, polka_model **out) {
    return polka_model_clone(polka_learner_model(polka_penalty_of(agent)->learner), out);
}

/* Collective: the agents' kernel expansions, read in place (no copies), and their margins
 * (learner.nu > 0 adapts each agent's own). */
static polka_status penalty_write_models(polka_runfile *h5, const polka_agent *agents,
                                         const size_t *ids, size_t count) {
    const polka_model **models = malloc((count ? count : 1) * sizeof *models);
    double *margins = malloc((2 * count + 1) * sizeof *margins);
    if (models == NULL || margins == NULL) {
        free(models);
        free(margins);
        return polka_error_set(POLKA_ERR_MEM, "out of memory");
    }
    for (size_t a = 0; a < count; a++) {
        const polka_learner *learner = polka_penalty_of(&agents[a])->learner;
        models[a] = polka_learner_model(learner);
        margins[a] = polka_learner_rho(learner), margins[count + a] = polka_learner_tube(learner);
    }
    polka_status status = polka_runfile_write_models_agents(h5, ids, count, models);
    if (status == POLKA_OK)
        status = polka_runfile_write_margins(h5, ids, count, margins, margins + count);
    free(models);
    free(margins);
    return status;
}

/* The event engine saves an agent within an update: its batch, drawn at the update's start
 * (the update's step needs it, and the model's values there, which restore_batch evaluates
 * again: the model has not changed since, and KOMP keeps their kernel rows for the step). */
static polka_status save_batch(const polka_agent *agent, polka_state *state) {
    polka_penalty *pen = polka_penalty_of(agent);
    size_t b = agent->batch;
    POLKA_CALL(
        polka_state_put_ref(state, "penalty.x", POLKA_STATE_F64, pen->cand_x, b * agent->dim));
    return polka_state_put_ref(state, "penalty.y", POLKA_STATE_F64, pen->y, b);
}

static polka_status restore_batch(polka_agent *agent, const polka_state *state) {
    polka_penalty *pen = polka_penalty_of(agent);
    size_t b = agent->batch;
    POLKA_CALL(polka_state_get(state, "penalty.x", POLKA_STATE_F64, pen->cand_x, b * agent->dim));
    POLKA_CALL(polka_state_get(state, "penalty.y", POLKA_STATE_F64, pen->y, b));
    if (!agent->this_round.online) return POLKA_OK; /* no batch drawn */
    return polka_learner_predict(pen->learner, pen->cand_x, b, pen->f_own);
}

static polka_status penalty_save(const polka_agent *agent, polka_state *state) {
    polka_penalty *pen = polka_penalty_of(agent);
    if (agent->async) POLKA_CALL(save_batch(agent, state));
    POLKA_CALL(polka_learner_save(pen->learner, state));
    POLKA_CALL(polka_counters_save(&agent->counters, state));
    return pen->stale ? polka_stale_save(agent, state) : POLKA_OK;
}

static polka_status penalty_restore(polka_agent *agent, const polka_state *state) {
    polka_penalty *pen = polka_penalty_of(agent);
    POLKA_CALL(polka_learner_restore(pen->learner, state));
    POLKA_CALL(polka_counters_restore(&agent->counters, state));
    if (agent->async) POLKA_CALL(restore_batch(agent, state)); /* this_round set: engine.c */
    return pen->stale ? polka_stale_restore(agent, state) : POLKA_OK;
}

const polka_method_ops polka_method_penalty = {
    .name = "penalty",
    .help = "the greedy projected penalty method ([KPRR18]; net.penalty, net.share): points "
            "out, the neighbours' values there back, functional SGD plus KOMP",
    .sends_points = 1,
    .central_kernel = 1,
    .layout = penalty_layout,
    .check = penalty_check,
    .check_graph = penalty_check_graph,
    .fit = polka_stale_fit,
    .init = penalty_init,
    .free = penalty_free,
    .rewire = penalty_rewire,
    .prepare = penalty_prepare,
    .answer = penalty_answer,
    .answer_arrived = polka_stale_arrive,
    .update = penalty_update,
    .predict = penalty_predict,
    .score = penalty_score,
    .order = penalty_order,
    .model = penalty_model,
    .write_models = penalty_write_models,
    .save = penalty_save,
    .restore = penalty_restore,
};
