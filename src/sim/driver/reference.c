/*
 * The serial network reference: all agents in one process, round by round, with the very
 * same agent arithmetic as the MPI loop; the MPI run must reproduce its models.
 */
#include <stdlib.h>
#include <string.h>

#include "polka/loss.h"
#include "sim/agent/agent_impl.h"
#include "sim/async/async_impl.h"
#include "sim/metrics/metrics_impl.h"
#include "sim/checkpoint/resume_impl.h"
#include "sim/driver/sim_impl.h"
#include "sim/method/method_impl.h"

typedef struct {
    const polka_plan *plan;
    size_t n;
    polka_agent *agents;
    polka_graph *graph; /* the current epoch's */
    polka_faults faults;
    polka_stream *stream;
    polka_dataset test;
    double *f; /* n agents × n_test × C */
    double *fbar;
    polka_agent_metrics *metrics;
    polka_netlog log;
} reference_run;

/* net.resample_every: a new epoch's graph, and the agents' neighbours from it. */
static polka_status next_epoch(reference_run *run, uint64_t t) {
    polka_graph *graph = NULL;
    POLKA_CALL(polka_network_epoch_graph(run->plan, run->n, t,
                                         polka_method_of(run->plan)->check_graph, &graph));
    if (graph == NULL) return POLKA_OK;
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < run->n && status == POLKA_OK; a++)
        status = polka_agent_rewire(&run->agents[a], graph);
    polka_graph_free(&run->graph);
    run->graph = graph;
    return status;
}

/* A resumed run of a time-varying network: the graph of the checkpoint's last round. */
static polka_status resume_epoch(reference_run *run) {
    uint64_t round = 0;
    POLKA_CALL(polka_ckpt_resume_round(run->plan, run->n, &round));
    uint64_t drawn = polka_network_epoch_drawn(run->plan, round);
    return drawn ? next_epoch(run, drawn) : POLKA_OK; /* 0: the first graph */
}

/* A censoring method: the blocks withheld do not come; then every agent settles its sends. */
static polka_status settle_sends(reference_run *run) {
    for (size_t a = 0; a < run->n; a++) {
        polka_agent *agent = &run->agents[a];
        for (size_t k = 0; k < agent->degree; k++)
            if (!run->agents[agent->neighbors[k]].sends) polka_agent_unheard(agent, k);
    }
    for (size_t a = 0; a < run->n; a++) POLKA_CALL(polka_agent_settle_sends(&run->agents[a]));
    return POLKA_OK;
}

/* Phase 1: each agent's message to the neighbours it reaches, decoded there. */
static void copy_blocks(reference_run *run) {
    for (size_t a = 0; a < run->n; a++) {
        polka_agent *agent = &run->agents[a];
        for (size_t k = 0; k < agent->degree; k++)
            if (agent->in_point[k])
                polka_agent_take_block(agent, k, run->agents[agent->neighbors[k]].sent_wire);
    }
}

/* Phase 2: the answers to each agent's block back to it. */
static void copy_answers(reference_run *run) {
    for (size_t a = 0; a < run->n; a++) {
        polka_agent *agent = &run->agents[a];
        for (size_t k = 0; k < agent->degree; k++) {
            if (!agent->in_value[k]) continue;
            const polka_agent *j = &run->agents[agent->neighbors[k]];
            size_t doubles = j->wire.doubles[1];
            polka_agent_take_answer(agent, k,
                                    j->answers_wire + polka_agent_slot_of(j, a) * doubles);
        }
    }
}

/* The round's exchanges, by copies (the messages of the round only, as the MPI loop). */
static polka_status reference_round(reference_run *run, uint64_t t) {
    POLKA_CALL(next_epoch(run, t));
    for (size_t a = 0; a < run->n; a++) polka_agent_links(&run->agents[a], t);
    for (size_t a = 0; a < run->n; a++)
        POLKA_CALL(polka_agent_prepare(&run->agents[a], run->stream));
    POLKA_CALL(settle_sends(run));
    copy_blocks(run);
    if (run->agents[0].answer_block > 0) {
        for (size_t a = 0; a < run->n; a++) POLKA_CALL(polka_agent_answer(&run->agents[a]));
        copy_answers(run);
    }
    for (size_t a = 0; a < run->n; a++) POLKA_CALL(polka_agent_update(&run->agents[a]));
    return POLKA_OK;
}

static polka_status reference_log_step(reference_run *run, size_t round, double samples,
                                       polka_sim_summary *summary) {
    polka_stream_test_now(run->stream, samples, &run->test); /* drift: the present distribution */
    polka_dataset scored = polka_metrics_log_test(run->plan, &run->test, round, summary);
    size_t outputs = run->agents[0].outputs, len = scored.n * outputs;
    size_t points = polka_metrics_disagreement_points(run->plan, &scored);
    memset(run->fbar, 0, points * outputs * sizeof *run->fbar);
    for (size_t a = 0; a < run->n; a++) {
        POLKA_CALL(polka_metrics_test_values(&run->agents[a], &scored, run->f + a * len));
        polka_metrics_agent_collect(&run->agents[a], &scored, run->f + a * len, &run->metrics[a]);
        for (size_t e = 0; e < points * outputs; e++) run->fbar[e] += run->f[a * len + e];
    }
    for (size_t e = 0; e < points * outputs; e++) run->fbar[e] /= (double)run->n;
    for (size_t a = 0; a < run->n; a++)
        run->metrics[a].disagreement =
            polka_disagreement(run->f + a * len, run->fbar, points, outputs);
    return polka_netlog_step(&run->log, round, samples, run->metrics, scored.n == run->test.n,
                             summary);
}

static polka_status reference_round_fn(void *context, uint64_t t, int *wish) {
    (void)wish; /* one process: its own wish is the agreed one */
    return reference_round(context, t);
}

static polka_status reference_log_fn(void *context, size_t round, double samples,
                                     polka_sim_summary *summary) {
    return reference_log_step(context, round, samples, summary);
}

static polka_status reference_save_agent(void *context, size_t k, polka_state *state) {
    return polka_ckpt_agent_save(&((reference_run *)context)->agents[k], state);
}

static polka_status reference_restore_agent(void *context, size_t k, const polka_state *state) {
    return polka_ckpt_agent_restore(&((reference_run *)context)->agents[k], state);
}

static const polka_driver_ops reference_ops = {.round = reference_round_fn,
                                               .log_step = reference_log_fn,
                                               .save_agent = reference_save_agent,
                                               .restore_agent = reference_restore_agent};

static polka_status reference_setup(reference_run *run, const polka_sim_hooks *hooks) {
    const polka_plan *plan = run->plan;
    POLKA_CALL(polka_stream_create(plan, run->n, plan->learner.batch, &run->stream));
    const polka_data_facts *facts = polka_stream_facts(run->stream);
    run->agents = calloc(run->n, sizeof *run->agents);
    run->metrics = calloc(run->n, sizeof *run->metrics);
    POLKA_CHECK(run->agents && run->metrics, POLKA_ERR_MEM, "out of memory for %zu agents", run->n);
    POLKA_CALL(polka_faults_create(plan, run->n, run->stream, &run->faults));
    size_t outputs = polka_loss_outputs(plan->learner.params.loss.kind, facts->classes);
    const polka_method_ops *method = polka_method_of(plan);
    if (method->fit) POLKA_CALL(method->fit(plan, run->graph, NULL, run->n, facts->dim, outputs));
    for (size_t a = 0; a < run->n; a++)
        POLKA_CALL(
            polka_agent_init(&run->agents[a], method, plan, facts, run->graph, &run->faults, a));
    POLKA_CALL(polka_stream_test_set(run->stream, &run->test));
    size_t len = run->test.n * run->agents[0].outputs;
    run->f = malloc(run->n * len * sizeof *run->f);
    run->fbar = malloc(len * sizeof *run->fbar);
    POLKA_CHECK(run->f && run->fbar, POLKA_ERR_MEM, "out of memory for the test values");
    return polka_netlog_open(&run->log, plan, hooks, run->n);
}

static polka_status copy_models(const reference_run *run, polka_model **models) {
    for (size_t a = 0; a < run->n; a++) models[a] = NULL;
    for (size_t a = 0; a < run->n; a++) {
        polka_status status = run->agents[a].method->model(&run->agents[a], &models[a]);
        if (status != POLKA_OK) {
            for (size_t b = 0; b < a; b++) polka_model_free(&models[b]);
            return status;
        }
    }
    return POLKA_OK;
}

polka_status polka_sim_run_reference(const polka_plan *plan, size_t agents,
                                     const polka_sim_hooks *hooks, polka_sim_summary *summary,
                                     polka_model **models) {
    reference_run run = {.plan = plan, .n = agents};
    *summary = (polka_sim_summary){0};
    if (polka_async_enabled(plan)) /* one process plays every agent's events (async_impl.h) */
        return polka_sim_run_decentralized(plan, MPI_COMM_SELF, hooks, summary, models);
    POLKA_CALL(polka_network_graph(plan, agents, &run.graph));
    polka_status status =
        polka_network_check(plan, run.graph, agents, polka_method_of(plan)->check_graph);
    if (status == POLKA_OK) status = reference_setup(&run, hooks);
    polka_sim_point from = {.next_log = (double)plan->run.log_every};
    if (status == POLKA_OK) status = resume_epoch(&run);
    polka_driver driver = {.ops = &reference_ops,
                           .context = &run,
                           .comm = MPI_COMM_SELF,
                           .agents = agents,
                           .count = agents,
                           .log = &run.log};
    if (status == POLKA_OK) status = polka_ckpt_resume(plan, &driver, &from);
    if (status == POLKA_OK)
        status = polka_sim_loop(plan, &driver, polka_stream_facts(run.stream)->n_train,
                                agents * plan->learner.batch, &from, hooks, summary);
    summary->agents = agents;
    polka_status closed = polka_netlog_close(&run.log);
    if (status == POLKA_OK) status = closed;
    for (size_t a = 0; a < agents && status == POLKA_OK; a++)
        status = polka_agent_check_finite(&run.agents[a]);
    if (status == POLKA_OK) status = polka_sim_check_learned(plan, summary);
    if (status == POLKA_OK && models) status = copy_models(&run, models);
    for (size_t a = 0; run.agents && a < agents; a++) polka_agent_free(&run.agents[a]);
    free(run.agents);
    free(run.metrics);
    free(run.f);
    free(run.fbar);
    polka_stream_free(&run.stream);
    polka_dataset_free(&run.test);
    polka_faults_free(&run.faults);
    polka_graph_free(&run.graph);
    return status;
}
