/* Centralized POLK: one agent learning from the whole training stream ([KWSR19]). */
#include <stdlib.h>

#include "sim/metrics/metrics_impl.h"
#include "sim/checkpoint/resume_impl.h"
#include "sim/driver/sim_impl.h"
#include "sim/stream/stream_impl.h"

typedef struct {
    const polka_plan *plan;
    const polka_stream *stream;
    size_t dim;
    polka_dataset *test;
    polka_learner *learner;
    polka_dataset batch;
    polka_netlog log;
    double *f; /* n_test × C */
    double start;
    double *fg;                    /* batch × C values, then batch × C gradients */
    int classification;            /* the online error counts mistakes */
    polka_agent_counters counters; /* an agent's (no neighbours: no exchange, no faults) */
    uint64_t rounds;               /* of the whole run: the last one refits (learner.refit) */
} central_run;

/* The refit's training rows: the stream's first pass, samples first .. first + count − 1. */
static polka_status central_rows(void *context, size_t first, size_t count, double *x, double *y) {
    const central_run *run = context;
    for (size_t i = 0; i < count; i++)
        POLKA_CALL(polka_stream_sample(run->stream, first + i, x + i * run->dim, y + i));
    return POLKA_OK;
}

/* learner.refit > 0: after the last round's step, the weights refitted on one pass. */
static polka_status central_refit(central_run *run, uint64_t t) {
    const polka_learner_spec *spec = &run->plan->learner;
    if (spec->refit == 0 || t + 1 != run->rounds) return POLKA_OK;
    double start = polka_now();
    size_t n = polka_stream_facts(run->stream)->n_train;
    polka_refit_settings settings = {spec->refit, spec->refit_iterations, spec->refit_memory << 20};
    POLKA_CALL(polka_learner_refit(run->learner, n, central_rows, run, &settings));
    run->counters.time_update += polka_now() - start;
    return POLKA_OK;
}

static polka_status central_round(void *context, uint64_t t, int *wish) {
    (void)wish; /* one process: its own wish is the agreed one */
    central_run *run = context;
    size_t batch = run->batch.n, dim = run->dim;
    double start = polka_now();
    size_t kept = 0; /* quantity skew: only the samples their agents learn from this round */
    for (size_t b = 0; b < batch; b++) {
        POLKA_CALL(polka_stream_sample(run->stream, t * batch + b, run->batch.x + kept * dim,
                                       run->batch.y + kept));
        kept += (size_t)polka_stream_sample_learned(run->stream, t * batch + b);
    }
    batch = kept;
    double drawn = polka_now();
    if (batch == 0) return central_refit(run, t);
    size_t c = polka_learner_outputs(run->learner);
    double *f = run->fg, *g = run->fg + batch * c;
    POLKA_CALL(polka_learner_predict(run->learner, run->batch.x, batch, f));
    double loss = polka_learner_loss_grad(run->learner, f, run->batch.y, batch, g) / (double)batch;
    polka_online_error_add(&run->counters, run->classification, run->learner, f, run->batch.y,
                           batch);
    POLKA_CALL(polka_learner_update(run->learner, run->batch.x, batch, g));
    run->counters.time_compute += drawn - start;
    run->counters.time_update += polka_now() - drawn;
    run->counters.train_loss_sum += loss;
    run->counters.train_loss_count += 1.0;
    return central_refit(run, t);
}

/* The same metrics as an agent's (no neighbours: no disagreement, no traffic). */
static polka_status central_log(void *context, size_t round, double samples,
                                polka_sim_summary *summary) {
    central_run *run = context;
    polka_stream_test_now(run->stream, samples, run->test); /* drift: the present distribution */
    polka_dataset scored = polka_metrics_log_test(run->plan, run->test, round, summary);
    POLKA_CALL(polka_metrics_learner_values(run->learner, &scored, run->f));
    double loss = 0.0;
    double score = polka_learner_score(run->learner, run->f, scored.y, scored.n, &loss);
    polka_agent_metrics metrics = {
        .score = score,
        .loss = loss,
        .order = (double)polka_model_order(polka_learner_model(run->learner)),
    };
    polka_metrics_counters_collect(&run->counters, &metrics);
    metrics.wall_time = polka_now() - run->start;
    POLKA_CALL(
        polka_netlog_step(&run->log, round, samples, &metrics, scored.n == run->test->n, summary));
    return polka_netlog_append_h5(&run->log, round, samples, 0, 1, &metrics);
}

/* The one learner's state for a checkpoint, with its counters (an agent's layout). */
static polka_status central_save(void *context, size_t k, polka_state *state) {
    const central_run *run = context;
    (void)k;
    POLKA_CALL(polka_learner_save(run->learner, state));
    return polka_counters_save(&run->counters, state);
}

static polka_status central_restore(void *context, size_t k, const polka_state *state) {
    central_run *run = context;
    (void)k;
    POLKA_CALL(polka_learner_restore(run->learner, state));
    return polka_counters_restore(&run->counters, state);
}

static const polka_driver_ops central_ops = {.round = central_round,
                                             .log_step = central_log,
                                             .save_agent = central_save,
                                             .restore_agent = central_restore};

/* The learner, the buffers and the log of a centralized run on an open stream. */
static polka_status central_setup(central_run *run, const polka_plan *plan, size_t batch,
                                  const polka_sim_hooks *hooks) {
    const polka_data_facts *facts = polka_stream_facts(run->stream);
    polka_learner_params params = plan->learner.params;
    params.horizon = polka_plan_rounds(plan->run.passes, facts->n_train, batch);
    run->rounds = params.horizon;
    run->dim = facts->dim;
    POLKA_CALL(polka_dataset_alloc(&run->batch, batch, facts->dim, facts->classes));
    POLKA_CALL(polka_learner_create(&params, facts->dim, facts->classes, &run->learner));
    size_t outputs = polka_learner_outputs(run->learner);
    run->f = malloc(run->test->n * outputs * sizeof *run->f);
    run->fg = malloc(2 * batch * outputs * sizeof *run->fg);
    run->classification = polka_plan_classifies(plan);
    POLKA_CHECK(run->f && run->fg, POLKA_ERR_MEM, "out of memory for test values");
    POLKA_CALL(polka_netlog_open(&run->log, plan, hooks, 1));
    return polka_netlog_open_h5(&run->log, plan, facts, MPI_COMM_SELF, 1, NULL);
}

/* KOMP's ε = K_p η^{3/2} does not shrink with the batch, while a step's change of the function
 * (η times the batch's mean gradient) does, roughly as 1/√B: past some batch every step is
 * within ε of the model before it, KOMP removes the step whole and the model stays the zero
 * function (Fashion-MNIST's settings at 16 agents' centralized batch of 32: 90 % error). A
 * run that ends so is refused, not reported as learnt. */
static polka_status central_check_learned(const central_run *run) {
    const polka_learner_params *params = &run->plan->learner.params;
    if (!polka_control_may_learn_nothing(params->control) || run->rounds == 0 ||
        polka_model_order(polka_learner_model(run->learner)) > 0)
        return POLKA_OK;
    return polka_error_set(
        POLKA_ERR_ARG,
        "centralized POLK learned nothing: KOMP's error bound (learner.kp * eta^1.5 = %g, or "
        "learner.epsilon) removed every point of all %llu steps, each smaller than the bound at a "
        "batch of %zu (by default one round of every agent's samples, at most %d); lower "
        "learner.kp or set run.central_batch",
        polka_learner_epsilon(params), (unsigned long long)run->rounds, run->batch.n,
        POLKA_CENTRAL_BATCH_MAX);
}

polka_status polka_sim_run_centralized(const polka_plan *plan, size_t agents,
                                       const polka_sim_hooks *hooks, polka_sim_summary *summary) {
    if (polka_control_is_batch(plan->learner.params.control))
        return polka_sim_run_batch(plan, agents, hooks, summary);
    *summary = (polka_sim_summary){.agents = 1};
    POLKA_CHECK(agents >= 1, POLKA_ERR_ARG, "a centralized run needs agents >= 1");
    polka_stream *stream = NULL;
    polka_dataset test = {0};
    POLKA_CALL(polka_stream_create(plan, agents, plan->learner.batch, &stream));
    size_t batch = polka_plan_central_batch(plan, agents);
    central_run run = {.plan = plan, .stream = stream, .test = &test};
    polka_status status = polka_stream_test_set(stream, &test);
    if (status == POLKA_OK) status = central_setup(&run, plan, batch, hooks);
    run.start = polka_now();
    polka_sim_point from = {.next_log = (double)plan->run.log_every};
    polka_driver driver = {.ops = &central_ops,
                           .context = &run,
                           .comm = MPI_COMM_SELF,
                           .agents = 1,
                           .count = 1,
                           .log = &run.log};
    if (status == POLKA_OK) status = polka_ckpt_resume(plan, &driver, &from);
    if (status == POLKA_OK)
        status = polka_sim_loop(plan, &driver, polka_stream_facts(stream)->n_train, batch, &from,
                                hooks, summary);
    if (status == POLKA_OK) status = polka_plan_check_finite(polka_learner_model(run.learner), 0);
    if (status == POLKA_OK) status = central_check_learned(&run);
    if (status == POLKA_OK) {
        const polka_model *model = polka_learner_model(run.learner);
        double stages[4] = {run.counters.time_compute, 0.0, run.counters.time_update,
                            summary->seconds};
        double margins[2] = {polka_learner_rho(run.learner), polka_learner_tube(run.learner)};
        status = polka_netlog_finish_h5(&run.log, NULL, 1, &model, margins, stages);
    }
    polka_netlog_abandon_h5(&run.log);
    polka_status closed = polka_netlog_close(&run.log);
    if (status == POLKA_OK) status = closed;
    summary->agents = 1;
    free(run.f);
    free(run.fg);
    polka_learner_free(&run.learner);
    polka_dataset_free(&run.batch);
    polka_dataset_free(&test);
    polka_stream_free(&stream);
    return status;
}
