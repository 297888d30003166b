#include "sim/metrics/metrics_impl.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "polka/net.h"
#include "polka/paths.h"
#include "sim/plan/plan_impl.h"

void polka_metrics_counters_collect(polka_agent_counters *c, polka_agent_metrics *out) {
#define COLLECT_TOTAL(field, metric) out->metric = c->field;
#define COLLECT_MEAN(name, metric, reset)                                                          \
    out->metric = c->name##_count > 0 ? c->name##_sum / c->name##_count : 0.0;                     \
    if (reset) c->name##_sum = c->name##_count = 0.0;
    POLKA_AGENT_COUNTERS(COLLECT_TOTAL, COLLECT_MEAN)
#undef COLLECT_TOTAL
#undef COLLECT_MEAN
}

static polka_status learner_rows(const void *learner, const double *x, size_t n, double *f) {
    return polka_learner_predict_output(learner, x, n, f);
}

static polka_status model_rows(const void *model, const double *x, size_t n, double *f) {
    return polka_model_eval(model, x, n, f);
}

static polka_status agent_rows(const void *agent, const double *x, size_t n, double *f) {
    return ((const polka_agent *)agent)->method->predict(agent, x, n, f);
}

polka_status polka_metrics_learner_values(const polka_learner *learner, const polka_dataset *data,
                                          double *f) {
    return polka_dataset_eval(data, polka_learner_outputs(learner), learner_rows, learner, f);
}

polka_status polka_metrics_model_values(const polka_model *model, const polka_dataset *data,
                                        double *f) {
    return polka_dataset_eval(data, polka_model_outputs(model), model_rows, model, f);
}

polka_status polka_metrics_test_values(const polka_agent *agent, const polka_dataset *test,
                                       double *f) {
    if (agent->method->test_values) return agent->method->test_values(agent, test, f);
    return polka_dataset_eval(test, agent->outputs, agent_rows, agent, f);
}

double polka_disagreement(const double *f, const double *fbar, size_t points, size_t outputs) {
    double sq = 0.0;
    for (size_t e = 0; e < points * outputs; e++) sq += (f[e] - fbar[e]) * (f[e] - fbar[e]);
    return points > 0 ? sq / (double)points : 0.0;
}

void polka_metrics_agent_collect(polka_agent *agent, const polka_dataset *test, const double *f,
                                 polka_agent_metrics *out) {
    double loss = 0.0;
    double score = agent->method->score(agent, f, test->y, test->n, &loss);
    *out = (polka_agent_metrics){
        .score = score,
        .loss = loss,
        .order = (double)agent->method->order(agent),
        .wall_time = polka_now() - agent->start,
    };
    polka_metrics_counters_collect(&agent->counters, out);
}

/* The columns of the run file's /metrics and of the CSV file, from the one list (metrics_impl.h).
 */
typedef struct {
    const char *name, *csv, *format, *description;
    size_t offset;
} metric_column;

#define METRIC_COLUMN(field, name, csv, format, description)                                       \
    {name, csv, format, description, offsetof(polka_agent_metrics, field)},

static const metric_column metric_columns[] = {POLKA_AGENT_METRICS(METRIC_COLUMN)};
#define METRIC_COUNT POLKA_COUNT(metric_columns)

static double metric_value(const polka_agent_metrics *m, size_t k) {
    return *(const double *)((const char *)m + metric_columns[k].offset);
}

/* run.log_agents = K: the agents 0, S, 2S, ... have metric columns, S = ceil(agents / K). */
static void set_logged(polka_netlog *log, const polka_plan *plan, size_t agents) {
    log->stride = polka_plan_log_stride(plan, agents);
    log->logged = (agents + log->stride - 1) / log->stride;
}

static size_t stride_of(const polka_netlog *log) {
    return log->stride ? log->stride : 1;
}

polka_status polka_netlog_open(polka_netlog *log, const polka_plan *plan,
                               const polka_sim_hooks *hooks, size_t agents) {
    *log = (polka_netlog){.hooks = hooks, .agents = agents};
    set_logged(log, plan, agents);
    log->history.width = log->logged * POLKA_METRICS_DOUBLES;
    char checkpoint[POLKA_PATH_LEN + 16], dir[POLKA_PATH_LEN + 16];
    polka_plan_checkpoint_path(
        plan, checkpoint, sizeof checkpoint); /* the rows wait beside the checkpoint, on disk */
    polka_path_dir(checkpoint, dir, sizeof dir);
    polka_history_spill(&log->history, dir);
    log->picked = log->stride > 1 ? malloc(log->logged * sizeof *log->picked) : NULL;
    POLKA_CHECK(log->stride == 1 || log->picked != NULL, POLKA_ERR_MEM,
                "out of memory for the metrics of %zu agents", log->logged);
    const char *path = plan->run.csv;
    if (path[0] == '\0') return POLKA_OK;
    log->csv = fopen(path, "w");
    log->csv_path = path;
    POLKA_CHECK(log->csv != NULL, POLKA_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    fprintf(log->csv, "round,samples,agent");
    for (size_t k = 0; k < METRIC_COUNT; k++)
        if (metric_columns[k].csv) fprintf(log->csv, ",%s", metric_columns[k].csv);
    fprintf(log->csv, "\n");
    return POLKA_OK;
}

polka_status polka_netlog_close(polka_netlog *log) {
    polka_history_free(&log->history);
    free(log->picked);
    log->picked = NULL;
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
    s->points_clamped = 0.0;
    s->min_score = INFINITY;
    s->max_score = -INFINITY;
    s->max_order = 0;
    for (size_t a = 0; a < n; a++) {
        s->mean_score += m[a].score / (double)n;
        s->mean_loss += m[a].loss / (double)n;
        s->mean_order += m[a].order / (double)n;
        s->disagreement += m[a].disagreement / (double)n;
        s->online_error += m[a].online_error / (double)n;
        s->points_clamped += m[a].points_clamped;
        s->min_score = fmin(s->min_score, m[a].score);
        s->max_score = fmax(s->max_score, m[a].score);
        if ((size_t)m[a].order > s->max_order) s->max_order = (size_t)m[a].order;
    }
}

/* How much more than the lowest loss on run.log_test's points the last must be to count as
 * diverged: a lucky point or two may score 100 times below the set (0.11 against 14 in a
 * slowly learning run), a diverged run ends 1e15 and more above it. */
#define SAMPLE_DIVERGENCE 1e6

int polka_metrics_diverged(const polka_sim_summary *s) {
    if (!s->loss_logged) return 0;
    if (!isfinite(s->mean_loss)) return 1;
    if (!(s->mean_loss > 10.0)) return 0;
    return s->mean_loss > 100.0 * s->lowest_loss ||
           (s->sample_logged && s->mean_loss > SAMPLE_DIVERGENCE * s->lowest_sample_loss);
}

/* One log step's rows of the CSV file (if any). */
static polka_status write_csv(polka_netlog *log, size_t round, double samples,
                              const polka_agent_metrics *metrics) {
    if (log->csv == NULL) return POLKA_OK;
    for (size_t a = 0; a < log->logged; a++) {
        fprintf(log->csv, "%zu,%.0f,%zu", round, samples, a * stride_of(log));
        for (size_t k = 0; k < METRIC_COUNT; k++) {
            if (metric_columns[k].csv == NULL) continue;
            fputc(',', log->csv);
            fprintf(log->csv, metric_columns[k].format, metric_value(&metrics[a], k));
        }
        fputc('\n', log->csv);
    }
    POLKA_CHECK(fflush(log->csv) == 0 && !ferror(log->csv), POLKA_ERR_IO,
                "cannot write CSV file '%s': %s", log->csv_path, strerror(errno));
    return POLKA_OK;
}

polka_status polka_netlog_step(polka_netlog *log, size_t round, double samples,
                               const polka_agent_metrics *metrics, int whole_test,
                               polka_sim_summary *summary) {
    summarize(metrics, log->agents, summary);
    /* the divergence check compares losses on the whole test set, and (far more leniently:
     * a few points are a noisy sample of it) with those on run.log_test's points */
    if (whole_test && (!summary->loss_logged || summary->mean_loss < summary->lowest_loss))
        summary->lowest_loss = summary->mean_loss;
    summary->loss_logged |= whole_test;
    if (!whole_test &&
        (!summary->sample_logged || summary->mean_loss < summary->lowest_sample_loss))
        summary->lowest_sample_loss = summary->mean_loss;
    summary->sample_logged |= !whole_test;
    double bytes = 0.0;
    for (size_t a = 0; a < log->agents; a++) bytes += metrics[a].bytes;
    summary->bytes_per_round = round ? bytes / (double)round : 0.0;
    polka_plan_log(log->hooks,
                   "round %zu  samples %.0f  test score %.4f [%.4f, %.4f]  order %.1f (max %zu)  "
                   "disagreement %.3g  bytes/round %.0f",
                   round, samples, summary->mean_score, summary->min_score, summary->max_score,
                   summary->mean_order, summary->max_order, summary->disagreement,
                   summary->bytes_per_round);
    const polka_agent_metrics *logged = metrics;
    if (log->stride > 1) { /* the agents with columns only */
        for (size_t k = 0; k < log->logged; k++) log->picked[k] = metrics[k * log->stride];
        logged = log->picked;
    }
    POLKA_CALL(polka_history_add(&log->history, (double)round, samples, (const double *)logged));
    return write_csv(log, round, samples, logged);
}

/* Row r of a resumed run in rank 0's history and CSV (a rank without history keeps nothing). */
static polka_status replay_own(polka_netlog *log, const polka_history *rows, size_t r,
                               const double *row) {
    if (log->history.width == 0) return POLKA_OK;
    POLKA_CALL(polka_history_add(&log->history, rows->round[r], rows->samples[r], row));
    return write_csv(log, (size_t)rows->round[r], rows->samples[r],
                     (const polka_agent_metrics *)row);
}

/* This rank's agents' cells of a row, for the run file: an agent without a column has no row of
 * its own (polka_runfile drops its cells). */
static void pick_cells(const polka_netlog *log, const double *row, const size_t *agents,
                       size_t count, polka_agent_metrics *mine) {
    const polka_agent_metrics *cells = (const polka_agent_metrics *)row;
    size_t stride = stride_of(log);
    for (size_t k = 0; k < count; k++)
        mine[k] = agents[k] % stride == 0 ? cells[agents[k] / stride] : (polka_agent_metrics){0};
}

/* The rows of a resumed run, each read once from the checkpoint: rank 0's history and CSV, and
 * with a run file every rank's agents' cells of it (collective: each row's status agreed). */
static polka_status replay_rows(polka_netlog *log, const polka_history *rows, const size_t *ids,
                                size_t count) {
    int h5 = log->h5 != NULL;
    if (rows->rows == 0 || (!h5 && log->history.width == 0)) return POLKA_OK;
    size_t *agents = malloc((count ? count : 1) * sizeof *agents);
    polka_agent_metrics *mine = malloc((count ? count : 1) * sizeof *mine);
    double *row = malloc((rows->width ? rows->width : 1) * sizeof *row);
    polka_status status =
        agents && mine && row ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK && log->history.width != 0 && rows->width != log->history.width)
        status = polka_error_set(POLKA_ERR_FORMAT,
                                 "the checkpoint's metric rows do not fit this run's agents");
    for (size_t k = 0; agents && k < count; k++) agents[k] = ids ? ids[k] : k;
    if (h5) status = polka_net_agree(log->comm, status);
    for (size_t r = 0; r < rows->rows && status == POLKA_OK; r++) {
        status = polka_history_row(rows, r, row);
        if (status == POLKA_OK) status = replay_own(log, rows, r, row);
        if (!h5) continue;
        if (status == POLKA_OK) pick_cells(log, row, agents, count, mine);
        status = polka_net_agree(log->comm, status != POLKA_OK
                                                ? status
                                                : polka_netlog_write_h5(log, (size_t)rows->round[r],
                                                                        rows->samples[r], agents,
                                                                        count, mine));
    }
    free(agents);
    free(mine);
    free(row);
    return status;
}

polka_status polka_netlog_replay(polka_netlog *log, const polka_history *rows, const size_t *ids,
                                 size_t count) {
    size_t width = POLKA_METRICS_DOUBLES;
    size_t last = count == 0 ? 0 : (ids ? ids[count - 1] : count - 1) + 1; /* ids increase */
    size_t columns = last == 0 ? 0 : (last - 1) / stride_of(log) + 1; /* those up to the last */
    POLKA_CHECK(rows->rows == 0 || rows->width >= columns * width, POLKA_ERR_FORMAT,
                "the checkpoint's metric rows do not fit this run's agents");
    return replay_rows(log, rows, ids, count);
}

polka_status polka_netlog_open_h5(polka_netlog *log, const polka_plan *plan,
                                  const polka_data_facts *facts, MPI_Comm comm, size_t agents,
                                  const polka_graph *graph) {
    set_logged(log, plan, agents);
    if (plan->run.output[0] == '\0') return POLKA_OK;
    log->comm = comm;
    int size = 1;
    MPI_Comm_size(comm, &size);
    const char *names[METRIC_COUNT], *descriptions[METRIC_COUNT];
    for (size_t k = 0; k < METRIC_COUNT; k++) {
        names[k] = metric_columns[k].name;
        descriptions[k] = metric_columns[k].description;
    }
    POLKA_CALL(polka_runfile_create_strided(plan->run.output, comm, agents, log->stride,
                                            METRIC_COUNT, names, descriptions, &log->h5));
    polka_config settings; /* what ran: the settings with the data's facts */
    polka_plan_settings_with(plan, facts, &settings);
    polka_status status = polka_runfile_write_config(log->h5, &settings, graph, size);
    if (status != POLKA_OK) polka_netlog_abandon_h5(log);
    return status;
}

/* The metrics of count agents as rows of the run file's columns (free() them). */
static double *metric_rows(size_t count, const polka_agent_metrics *metrics) {
    double *rows = calloc((count ? count : 1) * METRIC_COUNT, sizeof *rows);
    if (rows == NULL) return NULL;
    for (size_t a = 0; a < count; a++)
        for (size_t k = 0; k < METRIC_COUNT; k++)
            rows[a * METRIC_COUNT + k] = metric_value(&metrics[a], k);
    return rows;
}

polka_status polka_netlog_append_h5(polka_netlog *log, size_t round, double samples,
                                    size_t first_agent, size_t count,
                                    const polka_agent_metrics *metrics) {
    if (log->h5 == NULL) return POLKA_OK;
    double *rows = metric_rows(count, metrics);
    POLKA_CHECK_ALLOC(rows);
    polka_status status =
        polka_runfile_append(log->h5, (double)round, samples, first_agent, count, rows);
    free(rows);
    return status;
}

polka_status polka_netlog_write_h5(polka_netlog *log, size_t round, double samples,
                                   const size_t *agents, size_t count,
                                   const polka_agent_metrics *metrics) {
    if (log->h5 == NULL) return POLKA_OK;
    double *rows = metric_rows(count, metrics);
    polka_status status = polka_runfile_append_agents(log->h5, (double)round, samples, agents,
                                                      rows ? count : 0, rows);
    free(rows);
    if (rows == NULL) return polka_error_set(POLKA_ERR_MEM, "out of memory for a log row");
    return status;
}

polka_status polka_netlog_finish_h5(polka_netlog *log, const size_t *agents, size_t count,
                                    const polka_model *const *models, const double *margins,
                                    const double *stage_seconds) {
    if (log->h5 == NULL) return POLKA_OK;
    static const char *const stages[] = {"compute", "exchange", "update", "loop"};
    polka_status status = POLKA_OK; /* models NULL: the caller wrote them */
    if (models)
        status = agents ? polka_runfile_write_models_agents(log->h5, agents, count, models)
                        : polka_runfile_write_models(log->h5, 0, count, models);
    if (status == POLKA_OK && models && margins)
        status = polka_runfile_write_margins(log->h5, agents, count, margins, margins + count);
    if (status == POLKA_OK) status = polka_runfile_write_timing(log->h5, 4, stages, stage_seconds);
    polka_status closed = polka_runfile_close(&log->h5);
    return status != POLKA_OK ? status : closed;
}

void polka_netlog_abandon_h5(polka_netlog *log) {
    if (log->h5 != NULL) (void)polka_runfile_close(&log->h5);
}
