#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim_impl.h"

polka_status polka_agent_test_values(const polka_agent *agent, const polka_dataset *test,
                                     double *f) {
    return polka_learner_predict(agent->learner, test->x, test->n, f);
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
    POLKA_CHECK(log->csv != NULL, POLKA_ERR_IO, "cannot write '%s': %s", config->csv,
                strerror(errno));
    fprintf(log->csv,
            "round,samples,agent,score,test_loss,train_loss,order,disagreement,bytes_sent,"
            "time_compute,time_exchange,time_update\n");
    return POLKA_OK;
}

polka_status polka_netlog_close(polka_netlog *log) {
    if (log->csv == NULL) return POLKA_OK;
    int failed = ferror(log->csv) | (fclose(log->csv) != 0);
    log->csv = NULL;
    POLKA_CHECK(!failed, POLKA_ERR_IO, "error while writing the CSV file");
    return POLKA_OK;
}

static void summarize(const polka_agent_metrics *m, size_t n, polka_sim_summary *s) {
    s->mean_score = s->mean_loss = s->mean_order = s->disagreement = 0.0;
    s->min_score = INFINITY;
    s->max_score = -INFINITY;
    s->max_order = 0;
    for (size_t a = 0; a < n; a++) {
        s->mean_score += m[a].score / (double)n;
        s->mean_loss += m[a].loss / (double)n;
        s->mean_order += m[a].order / (double)n;
        s->disagreement += m[a].disagreement / (double)n;
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
        fprintf(log->csv, "%zu,%.0f,%zu,%.17g,%.17g,%.17g,%.0f,%.17g,%.0f,%.6f,%.6f,%.6f\n", round,
                samples, a, m->score, m->loss, m->train_loss, m->order, m->disagreement, m->bytes,
                m->time_compute, m->time_exchange, m->time_update);
    }
    POLKA_CHECK(fflush(log->csv) == 0, POLKA_ERR_IO, "error while writing the CSV file");
    return POLKA_OK;
}
