/* polka report: summarises run files (HDF5) in one table. Serial, no MPI. */
#include "cmd_report_impl.h"

#include "app_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/runfile.h"
#include "polka/loss.h"

enum {
    COL_FILE,
    COL_MODE,
    COL_AGENTS,
    COL_ROWS,
    COL_ROUNDS,
    COL_SCORE,
    COL_MEAN,
    COL_MIN,
    COL_MAX,
    COL_DISAGREEMENT,
    COL_ORDER,
    COL_ORDER_MAX,
    COL_RATE,
    COL_BYTES,
    COL_LOST,
    COL_OFFLINE,
    COL_AGE,
    COL_SAMPLES_OUT,
    COL_RECEIVERS,
    COL_CLOCK,
    COL_UPDATES,
    COL_INFO_AGE,
    COL_EPSILON,
    COLUMNS
};

#define CELL_LEN 64

static const char *const headers[COLUMNS] = {
    "file",      "mode",        "agents",     "rows",         "rounds",    "score",
    "mean",      "min",         "max",        "disagreement", "order",     "max_order",
    "samples/s", "bytes/round", "lost/round", "offline",      "value_age", "samples_out",
    "receivers", "clock",       "updates",    "info_age",     "epsilon"};

typedef struct {
    char cell[COLUMNS][CELL_LEN];
} report_row;

static void print_usage(FILE *out) {
    fprintf(out,
            "Usage: polka report [--read-timeout S] RUN.h5 [RUN2.h5 ...]\n"
            "\n"
            "One row per run file, from the last log row:\n"
            "  agents, rows (log rows), rounds (the last round),\n"
            "  score: accuracy (classification losses), mse (regression) or flagged (novelty),\n"
            "         from test_score, with its mean, min and max over the agents,\n"
            "  disagreement: mean over the agents; order: mean and max model order,\n"
            "  samples/s: samples seen / the largest wall time of an agent,\n"
            "  bytes/round: bytes sent by all agents / rounds,\n"
            "  lost/round: messages lost by all agents / rounds (fault.link_loss),\n"
            "  offline: the fraction of agent-rounds sat out (fault.offline, fault.leave),\n"
            "  value_age: mean over the agents of the mean age of the values used in the last\n"
            "             log interval (fault.delay),\n"
            "  samples_out, receivers: privacy, means over the agents: own samples sent to\n"
            "             neighbours and the distinct agents they reached (the penalty method\n"
            "             sends its points one hop; a random-feature method sends none).\n"
            "  clock: the virtual time of the last row (async.engine = events, or the lockstep\n"
            "         rounds' under the same async.* laws); updates: mean steps per agent;\n"
            "  info_age: mean virtual age of the neighbours' information used (events),\n"
            "  epsilon: the largest over the agents of privacy_epsilon, the epsilon (at\n"
            "             privacy.sample_delta) of the releases of one training row composed;\n"
            "             inf when points left without privacy.clip, '-' when none left.\n"
            "A metric the file does not hold shows as '-'.\n"
            "Reading one file fails after S seconds (default %d, 0: never), as a damaged\n"
            "HDF5 file can make libhdf5 loop.\n",
            POLKA_READ_TIMEOUT_DEFAULT);
}

/* ---- reading one run ---------------------------------------------------------------------- */

/* The last row of a metric into values; *found = 0 when the file does not hold it or it has
 * no rows yet (a run killed before its first log step). A metric of the wrong shape is an
 * error. */
static polka_status last_row(const polka_runfile_reader *run, const char *name, double *values,
                             int *found) {
    *found = 0;
    if (!polka_runfile_reader_has_metric(run, name) || polka_runfile_reader_rows(run) == 0)
        return POLKA_OK;
    POLKA_CALL(polka_runfile_reader_metric_row(run, name, POLKA_H5RUN_LAST, values));
    *found = 1;
    return POLKA_OK;
}

typedef struct {
    double mean, min, max, sum;
    size_t count; /* finite values */
} stats;

static stats summarize(const double *values, size_t n) {
    stats s = {0, INFINITY, -INFINITY, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(values[i])) continue;
        s.sum += values[i];
        s.min = values[i] < s.min ? values[i] : s.min;
        s.max = values[i] > s.max ? values[i] : s.max;
        s.count++;
    }
    s.mean = s.count ? s.sum / (double)s.count : NAN;
    return s;
}

static void put_number(report_row *row, int col, double value) {
    if (isfinite(value))
        snprintf(row->cell[col], CELL_LEN, "%.6g", value);
    else
        snprintf(row->cell[col], CELL_LEN, "-");
}

/* stats of the last row of a metric (count 0 when missing or not finite). */
static polka_status metric_stats(const polka_runfile_reader *run, const char *name, double *values,
                                 stats *out) {
    int found = 0;
    POLKA_CALL(last_row(run, name, values, &found));
    *out = found ? summarize(values, polka_runfile_reader_columns(run)) : summarize(values, 0);
    return POLKA_OK;
}

/* A single value (round, samples); NAN when missing. */
static polka_status scalar(const polka_runfile_reader *run, const char *name, double *value) {
    int found = 0;
    POLKA_CALL(last_row(run, name, value, &found));
    if (!found) *value = NAN;
    return POLKA_OK;
}

static polka_status config_text(const polka_runfile_reader *run, const char *key, char *out,
                                size_t size) {
    polka_status status = polka_runfile_reader_config_string(run, key, out, size);
    if (status == POLKA_ERR_FORMAT || status == POLKA_ERR_ARG) {
        polka_error_clear();
        snprintf(out, size, "-");
        return POLKA_OK;
    }
    return status;
}

static polka_status describe_run(const polka_runfile_reader *run, report_row *row) {
    POLKA_CALL(config_text(run, "mode", row->cell[COL_MODE], CELL_LEN));
    if (strcmp(row->cell[COL_MODE], "-") == 0)
        POLKA_CALL(config_text(run, "run.mode", row->cell[COL_MODE], CELL_LEN));
    char loss_name[CELL_LEN];
    POLKA_CALL(config_text(run, "learner.loss", loss_name, sizeof loss_name));
    polka_loss_kind loss;
    const char *score = "score";
    if (polka_loss_kind_parse(loss_name, &loss) == POLKA_OK) score = polka_loss_score_name(loss);
    polka_error_clear();
    snprintf(row->cell[COL_SCORE], CELL_LEN, "%s", score);
    snprintf(row->cell[COL_AGENTS], CELL_LEN, "%zu", polka_runfile_reader_agents(run));
    snprintf(row->cell[COL_ROWS], CELL_LEN, "%zu", polka_runfile_reader_rows(run));
    return POLKA_OK;
}

/* The largest composed epsilon; inf when own points left unprotected (privacy.clip = 0 or a
 * file written before it), '-' when none left (`samples_out`: the most any agent sent). */
static polka_status fill_privacy(const polka_runfile_reader *run, report_row *row, double *values,
                                 double samples_out) {
    char clip[CELL_LEN];
    stats epsilon;
    POLKA_CALL(config_text(run, "privacy.clip", clip, sizeof clip));
    POLKA_CALL(metric_stats(run, "privacy_epsilon", values, &epsilon));
    int protected = strcmp(clip, "-") != 0 && strtod(clip, NULL) > 0;
    if (!(samples_out > 0))
        put_number(row, COL_EPSILON, NAN);
    else if (!protected)
        snprintf(row->cell[COL_EPSILON], CELL_LEN, "inf");
    else
        put_number(row, COL_EPSILON, epsilon.count ? epsilon.max : NAN);
    return POLKA_OK;
}

static polka_status fill_metrics(const polka_runfile_reader *run, report_row *row, double *values) {
    stats score, disagreement, order, wall, bytes, lost, offline, age, out, receivers, clock,
        updates, info_age;
    double round = NAN, samples = NAN;
    POLKA_CALL(scalar(run, "round", &round));
    POLKA_CALL(scalar(run, "samples", &samples));
    POLKA_CALL(metric_stats(run, "test_score", values, &score));
    POLKA_CALL(metric_stats(run, "disagreement", values, &disagreement));
    POLKA_CALL(metric_stats(run, "model_order", values, &order));
    POLKA_CALL(metric_stats(run, "wall_time", values, &wall));
    POLKA_CALL(metric_stats(run, "bytes_sent", values, &bytes));
    POLKA_CALL(metric_stats(run, "messages_lost", values, &lost));
    POLKA_CALL(metric_stats(run, "rounds_offline", values, &offline));
    POLKA_CALL(metric_stats(run, "value_age", values, &age));
    POLKA_CALL(metric_stats(run, "samples_out", values, &out));
    POLKA_CALL(metric_stats(run, "receivers", values, &receivers));
    POLKA_CALL(metric_stats(run, "clock", values, &clock));
    POLKA_CALL(metric_stats(run, "updates", values, &updates));
    POLKA_CALL(metric_stats(run, "info_age", values, &info_age));
    put_number(row, COL_ROUNDS, round);
    put_number(row, COL_MEAN, score.mean);
    put_number(row, COL_MIN, score.count ? score.min : NAN);
    put_number(row, COL_MAX, score.count ? score.max : NAN);
    put_number(row, COL_DISAGREEMENT, disagreement.mean);
    put_number(row, COL_ORDER, order.mean);
    put_number(row, COL_ORDER_MAX, order.count ? order.max : NAN);
    put_number(row, COL_RATE, wall.count && wall.max > 0 ? samples / wall.max : NAN);
    put_number(row, COL_BYTES, bytes.count && round > 0 ? bytes.sum / round : NAN);
    put_number(row, COL_LOST, lost.count && round > 0 ? lost.sum / round : NAN);
    put_number(row, COL_OFFLINE,
               offline.count && round > 0 ? offline.sum / ((double)offline.count * round) : NAN);
    put_number(row, COL_AGE, age.mean);
    put_number(row, COL_SAMPLES_OUT, out.mean);
    put_number(row, COL_RECEIVERS, receivers.mean);
    put_number(row, COL_CLOCK, clock.count ? clock.max : NAN);
    put_number(row, COL_UPDATES, updates.mean);
    put_number(row, COL_INFO_AGE, info_age.mean);
    return fill_privacy(run, row, values, out.count ? out.max : NAN);
}

static polka_status read_run(const char *path, report_row *row, unsigned timeout) {
    polka_app_read_deadline("report", path, timeout);
    polka_runfile_reader *run = NULL;
    polka_status opened = polka_runfile_reader_open(path, &run);
    if (opened != POLKA_OK) {
        polka_app_read_done();
        return opened;
    }
    snprintf(row->cell[COL_FILE], CELL_LEN, "%s", path);
    double *values = malloc((polka_runfile_reader_agents(run) + 1) * sizeof *values);
    polka_status status =
        values != NULL ? describe_run(run, row) : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK) status = fill_metrics(run, row, values);
    free(values);
    polka_runfile_reader_close(&run);
    polka_app_read_done();
    return status;
}

/* ---- the table ---------------------------------------------------------------------------- */

static void print_line(const char *const *cells, const size_t *width) {
    for (int c = 0; c < COLUMNS; c++) {
        int left = c == COL_FILE || c == COL_MODE || c == COL_SCORE;
        const char *sep = c + 1 < COLUMNS ? "  " : "\n";
        if (left)
            printf("%-*s%s", (int)width[c], cells[c], sep);
        else
            printf("%*s%s", (int)width[c], cells[c], sep);
    }
}

static void print_table(const report_row *rows, size_t count, const char *const *paths) {
    size_t width[COLUMNS];
    for (int c = 0; c < COLUMNS; c++) {
        width[c] = strlen(headers[c]);
        for (size_t r = 0; r < count; r++) {
            size_t len = c == COL_FILE ? strlen(paths[r]) : strlen(rows[r].cell[c]);
            width[c] = len > width[c] ? len : width[c];
        }
    }
    print_line(headers, width);
    for (size_t r = 0; r < count; r++) {
        const char *cells[COLUMNS];
        for (int c = 0; c < COLUMNS; c++) cells[c] = rows[r].cell[c];
        cells[COL_FILE] = paths[r]; /* whole, even when longer than a cell */
        print_line(cells, width);
    }
}

/* Splits argv into --read-timeout and the run files (moved to the front of argv). */
static int parse_args(int argc, char **argv, unsigned *timeout, size_t *count) {
    *timeout = POLKA_READ_TIMEOUT_DEFAULT;
    *count = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--read-timeout") == 0 && a + 1 < argc) {
            if (polka_app_read_timeout_parse(argv[++a], timeout) == POLKA_OK) continue;
            fprintf(stderr, "polka report: %s\n\n", polka_error_message());
        } else if (argv[a][0] != '-') {
            argv[1 + (*count)++] = argv[a];
            continue;
        } else {
            fprintf(stderr, "polka report: unknown option '%s'\n\n", argv[a]);
        }
        print_usage(stderr);
        return 2;
    }
    if (*count > 0) return 0;
    fprintf(stderr, "polka report: no run file given\n\n");
    print_usage(stderr);
    return 2;
}

int polka_cmd_report(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_usage(stdout);
        return 0;
    }
    unsigned timeout = 0;
    size_t count = 0;
    int code = parse_args(argc, argv, &timeout, &count);
    if (code != 0) return code;
    report_row *rows = calloc(count, sizeof *rows);
    if (rows == NULL) {
        fprintf(stderr, "polka report: out of memory\n");
        return 1;
    }
    for (size_t r = 0; r < count; r++) {
        if (read_run(argv[r + 1], &rows[r], timeout) != POLKA_OK) {
            fprintf(stderr, "polka report: %s\n", polka_error_message());
            free(rows);
            return 1;
        }
    }
    print_table(rows, count, (const char *const *)argv + 1);
    free(rows);
    return 0;
}
