#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim_impl.h"

polka_status polka_agent_test_values(const polka_agent *agent, const polka_dataset *test,
                                     double *f) {
    return polka_learner_predict_output(agent->learner, test->x, test->n, f);
}

void polka_agent_collect(polka_agent *agent, const polka_dataset *test, const double *f,
                         const double *fbar, double bytes, polka_agent_metrics *out) {
    size_t c = agent->outputs;
    double sq = 0.0;
    for (size_t e = 0; e < test->n * c; e++) sq += (f[e] - fbar[e]) * (f[e] - fbar[e]);
    double loss = 0.0;
    double score = polka_learner_score(agent->learner, f, test->y, test->n, &loss);
    *out = (polka_agent_metrics){
        .score = score,
        .loss = loss,
        .order = (double)polka_model_order(polka_learner_model(agent->learner)),
        .disagreement = sq / (double)test->n,
        .bytes = bytes,
        .train_loss = agent->train_count ? agent->train_loss / (double)agent->train_count : 0.0,
        .online_error = polka_online_error_value(&agent->online),
        .wall_time = polka_now() - agent->start,
        .time_compute = agent->time_compute,
        .time_exchange = agent->time_exchange,
        .time_update = agent->time_update,
    };
    agent->train_loss = 0.0;
    agent->train_count = 0;
}

polka_status polka_netlog_open(polka_netlog *log, const polka_config *config,
                               const polka_sim_hooks *hooks, size_t agents) {
    *log = (polka_netlog){.hooks = hooks, .agents = agents};
    if (config->csv[0] == '\0') return POLKA_OK;
    log->csv = fopen(config->csv, "w");
    log->csv_path = config->csv;
    POLKA_CHECK(log->csv != NULL, POLKA_ERR_IO, "cannot write '%s': %s", config->csv,
                strerror(errno));
    fprintf(log->csv,
            "round,samples,agent,score,test_loss,train_loss,order,disagreement,bytes_sent,"
            "time_compute,time_exchange,time_update,online_error\n");
    return POLKA_OK;
}

polka_status polka_netlog_close(polka_netlog *log) {
    if (log->csv == NULL) return POLKA_OK;
    int earlier = ferror(log->csv); /* a log step failed and said why: keep its message */
    errno = 0;
    int failed = fflush(log->csv) != 0;
    int code = errno;
    failed |= fclose(log->csv) != 0;
    code = code ? code : errno;
    log->csv = NULL;
    if (earlier) return POLKA_ERR_IO;
    POLKA_CHECK(!failed, POLKA_ERR_IO, "cannot write CSV file '%s': %s", log->csv_path,
                code ? strerror(code) : "write error");
    return POLKA_OK;
}

static void summarize(const polka_agent_metrics *m, size_t n, polka_sim_summary *s) {
    s->mean_score = s->mean_loss = s->mean_order = s->disagreement = s->online_error = 0.0;
    s->min_score = INFINITY;
    s->max_score = -INFINITY;
    s->max_order = 0;
    for (size_t a = 0; a < n; a++) {
        s->mean_score += m[a].score / (double)n;
        s->mean_loss += m[a].loss / (double)n;
        s->mean_order += m[a].order / (double)n;
        s->disagreement += m[a].disagreement / (double)n;
        s->online_error += m[a].online_error / (double)n;
        s->min_score = fmin(s->min_score, m[a].score);
        s->max_score = fmax(s->max_score, m[a].score);
        if ((size_t)m[a].order > s->max_order) s->max_order = (size_t)m[a].order;
    }
}

polka_status polka_netlog_step(polka_netlog *log, size_t round, double samples,
                               const polka_agent_metrics *metrics, polka_sim_summary *summary) {
    summarize(metrics, log->agents, summary);
    double bytes = 0.0;
    for (size_t a = 0; a < log->agents; a++) bytes += metrics[a].bytes;
    summary->bytes_per_round = round ? bytes / (double)round : 0.0;
    polka_sim_log(log->hooks,
                  "round %zu  samples %.0f  test score %.4f [%.4f, %.4f]  order %.1f (max %zu)  "
                  "disagreement %.3g  bytes/round %.0f",
                  round, samples, summary->mean_score, summary->min_score, summary->max_score,
                  summary->mean_order, summary->max_order, summary->disagreement,
                  summary->bytes_per_round);
    if (log->csv == NULL) return POLKA_OK;
    for (size_t a = 0; a < log->agents; a++) {
        const polka_agent_metrics *m = &metrics[a];
        fprintf(log->csv, "%zu,%.0f,%zu,%.17g,%.17g,%.17g,%.0f,%.17g,%.0f,%.6f,%.6f,%.6f,%.17g\n",
                round, samples, a, m->score, m->loss, m->train_loss, m->order, m->disagreement,
                m->bytes, m->time_compute, m->time_exchange, m->time_update, m->online_error);
    }
    POLKA_CHECK(fflush(log->csv) == 0 && !ferror(log->csv), POLKA_ERR_IO,
                "cannot write CSV file '%s': %s", log->csv_path, strerror(errno));
    return POLKA_OK;
}

/* The per-agent metrics of the run file, in the order of polka_agent_metrics_row. */
static const char *const metric_names[] = {
    "test_score", "test_loss",    "train_loss",    "model_order", "disagreement", "bytes_sent",
    "wall_time",  "time_compute", "time_exchange", "time_update", "online_error",
};
static const char *const metric_descriptions[] = {
    "test accuracy (classification), mean squared error (regression) or fraction of points "
    "flagged, f < rho (novelty) on the common test set",
    "mean loss on the test set",
    "mean training loss of the rounds since the previous log step",
    "model order M (dictionary size)",
    "mean over test points of ||f_i(x) - f_bar(x)||^2, f_bar the network average",
    "bytes this agent has sent so far",
    "seconds since the learning loop started",
    "seconds in drawing samples and evaluating f (cumulative)",
    "seconds in the neighbour exchange, waiting included (cumulative)",
    "seconds in the gradient step and KOMP (cumulative)",
    "online error: fraction of mistakes (classification), mean squared error (regression) or "
    "fraction flagged (novelty) on each training sample before it was learned, cumulative",
};
#define METRIC_COUNT (sizeof metric_names / sizeof *metric_names)

static void metrics_row(const polka_agent_metrics *m, double *row) {
    const double values[METRIC_COUNT] = {
        m->score,     m->loss,         m->train_loss,    m->order,       m->disagreement, m->bytes,
        m->wall_time, m->time_compute, m->time_exchange, m->time_update, m->online_error};
    memcpy(row, values, sizeof values);
}

polka_status polka_netlog_open_h5(polka_netlog *log, const polka_config *config, MPI_Comm comm,
                                  size_t agents, const polka_graph *graph) {
    if (config->output[0] == '\0') return POLKA_OK;
    int size = 1;
    MPI_Comm_size(comm, &size);
    POLKA_CALL(polka_h5log_create(config->output, comm, agents, METRIC_COUNT, metric_names,
                                  metric_descriptions, &log->h5));
    polka_status status = polka_h5log_write_config(log->h5, config, graph, size);
    if (status != POLKA_OK) polka_netlog_abandon_h5(log);
    return status;
}

polka_status polka_netlog_append_h5(polka_netlog *log, size_t round, double samples,
                                    size_t first_agent, size_t count,
                                    const polka_agent_metrics *metrics) {
    if (log->h5 == NULL) return POLKA_OK;
    double rows[4 * METRIC_COUNT];
    POLKA_CHECK(count <= 4, POLKA_ERR_ARG, "at most 4 agents per rank in one append");
    for (size_t a = 0; a < count; a++) metrics_row(&metrics[a], rows + a * METRIC_COUNT);
    return polka_h5log_append(log->h5, (double)round, samples, first_agent, count, rows);
}

polka_status polka_netlog_finish_h5(polka_netlog *log, size_t first_agent, size_t count,
                                    const polka_model *const *models, const double *stage_seconds) {
    if (log->h5 == NULL) return POLKA_OK;
    static const char *const stages[] = {"compute", "exchange", "update", "loop"};
    polka_status status = polka_h5log_write_models(log->h5, first_agent, count, models);
    if (status == POLKA_OK) status = polka_h5log_write_timing(log->h5, 4, stages, stage_seconds);
    polka_status closed = polka_h5log_close(&log->h5);
    return status != POLKA_OK ? status : closed;
}

void polka_netlog_abandon_h5(polka_netlog *log) {
    if (log->h5 != NULL) (void)polka_h5log_close(&log->h5);
}
