/*
 * The batch regression learners in `polka run` (centralized only; the batch entries of the
 * control table, polka_batch_fit): SLKL ([MPARG11]) and exact kernel ridge regression, both on
 * the first data.n_train samples of the run's stream. They write the same log, CSV and HDF5 file as
 * the online learners, with these meanings: a round is one SLKL coordinate update (KRR: the one
 * solve), samples is the training-set size, test_score the test MSE, train_loss the training MSE,
 * model_order the active kernels (SLKL) or n (KRR); online_error is NaN (no sample is predicted
 * before it is learned).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/metrics/metrics_impl.h"
#include "polka/stop.h"
#include "sim/driver/sim_impl.h"
#include "sim/stream/stream_impl.h"

typedef struct {
    const polka_plan *plan;
    const polka_sim_hooks *hooks;
    polka_dataset train, test;
    polka_netlog log;
    double *f; /* max(n_train, n_test) values */
    double start;
    polka_sim_summary *summary; /* the run's, while it fits */
} batch_run;

/* Mean squared error of a one-output model on data, and its mean square loss. */
static polka_status model_mse(const polka_model *model, const polka_dataset *data, double *f,
                              double *mse, double *mean_loss) {
    POLKA_CALL(polka_metrics_model_values(model, data, f));
    polka_loss square = {.kind = POLKA_LOSS_SQUARE};
    *mse = polka_loss_score(&square, 0, f, data->y, data->n, NULL, mean_loss);
    return POLKA_OK;
}

static polka_status log_model(batch_run *run, const polka_model *model, size_t round,
                              polka_sim_summary *summary) {
    polka_agent_metrics metrics = {.order = (double)polka_model_order(model), .online_error = NAN};
    POLKA_CALL(model_mse(model, &run->test, run->f, &metrics.score, &metrics.loss));
    POLKA_CALL(model_mse(model, &run->train, run->f, &metrics.train_loss, NULL));
    metrics.wall_time = metrics.time_update = polka_now() - run->start;
    double samples = (double)run->train.n;
    POLKA_CALL(polka_netlog_step(&run->log, round, samples, &metrics, 1, summary));
    return polka_netlog_append_h5(&run->log, round, samples, 0, 1, &metrics);
}

/* The first n_train samples of the stream, and its test set. */
static polka_status read_sets(polka_stream *stream, batch_run *run) {
    const polka_data_facts *facts = polka_stream_facts(stream);
    POLKA_CHECK(facts->classes == 0, POLKA_ERR_ARG,
                "learner.control = %s is a regression learner, but the data have %zu classes",
                run->plan->settings.control, facts->classes);
    POLKA_CALL(polka_dataset_alloc(&run->train, facts->n_train, facts->dim, 0));
    for (size_t g = 0; g < facts->n_train; g++) {
        POLKA_CALL(polka_stop_check("the reading of the training set"));
        POLKA_CALL(polka_stream_sample(stream, g, run->train.x + g * facts->dim, run->train.y + g));
    }
    POLKA_CALL(polka_stream_test_set(stream, &run->test));
    size_t most = run->train.n > run->test.n ? run->train.n : run->test.n;
    run->f = malloc((most ? most : 1) * sizeof *run->f);
    POLKA_CHECK_ALLOC(run->f);
    return POLKA_OK;
}

/* The job's callbacks: a log step with the model, and the progress of an iterative fit. */
static polka_status log_fit(void *context, const polka_model *model, size_t done) {
    batch_run *run = context;
    return log_model(run, model, done, run->summary);
}

static void report_fit(void *context, size_t done, size_t cap) {
    batch_run *run = context;
    polka_plan_report(run->hooks, done, cap, (double)run->train.n, run->start, run->summary);
}

/* The table's batch learner of learner.control on the training set. */
static polka_status fit(batch_run *run, polka_model **model, polka_sim_summary *summary) {
    const polka_learner_spec *learner = &run->plan->learner;
    polka_batch_job job = {
        .params = &learner->params,
        .settings = {.candidates = learner->candidates,
                     .max_iter = learner->max_iter,
                     .tol = learner->tol},
        .seed = run->plan->run.seed,
        .x = run->train.x,
        .y = run->train.y,
        .n = run->train.n,
        .p = run->train.p,
        .log_every = run->plan->run.log_every,
        .log = log_fit,
        .progress = report_fit,
        .context = run,
    };
    run->summary = summary;
    size_t rounds = 0;
    polka_status status = polka_batch_fit(&job, model, &rounds);
    if (job.note[0] != '\0') polka_plan_log(run->hooks, "%s", job.note);
    if (status == POLKA_OK) summary->rounds = rounds;
    return status;
}

static polka_status learn(batch_run *run, const polka_data_facts *facts, polka_model **model,
                          polka_sim_summary *summary) {
    POLKA_CALL(polka_netlog_open(&run->log, run->plan, run->hooks, 1));
    POLKA_CALL(polka_netlog_open_h5(&run->log, run->plan, facts, MPI_COMM_SELF, 1, NULL));
    run->start = summary->loop_start = polka_now(); /* the start-up ends here, as in the loop */
    polka_plan_warn_idle(run->plan, run->hooks);
    POLKA_CALL(fit(run, model, summary));
    summary->seconds = polka_now() - run->start;
    summary->samples = (double)run->train.n;
    polka_plan_rates(summary);
    double stages[4] = {0.0, 0.0, summary->seconds, summary->seconds};
    const polka_model *saved = *model;
    POLKA_CALL(polka_plan_check_finite(saved, 0));
    return polka_netlog_finish_h5(&run->log, NULL, 1, &saved, NULL, stages);
}

polka_status polka_sim_run_batch(const polka_plan *plan, size_t agents,
                                 const polka_sim_hooks *hooks, polka_sim_summary *summary) {
    *summary = (polka_sim_summary){.agents = 1};
    polka_stream *stream = NULL;
    POLKA_CALL(polka_stream_create(plan, agents, plan->learner.batch, &stream));
    batch_run run = {.plan = plan, .hooks = hooks};
    polka_model *model = NULL;
    polka_status status = read_sets(stream, &run);
    if (status == POLKA_OK) status = learn(&run, polka_stream_facts(stream), &model, summary);
    polka_netlog_abandon_h5(&run.log);
    polka_status closed = polka_netlog_close(&run.log);
    if (status == POLKA_OK) status = closed;
    summary->agents = 1;
    polka_model_free(&model);
    free(run.f);
    polka_dataset_free(&run.train);
    polka_dataset_free(&run.test);
    polka_stream_free(&stream);
    return status;
}
