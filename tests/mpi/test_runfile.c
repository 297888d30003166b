/* The HDF5 run file, under mpiexec -n K (any K):
 *   test_runfile [DIR]               writes DIR/split.h5 (each rank its agents), DIR/root.h5
 *                                  (rank 0 writes every agent) and DIR/partial.h5 (one
 *                                  metric, no models), reads them back and checks
 *                                  every value; without DIR, a temporary directory is used
 *                                  and removed. tests/python/check_h5.py DIR K checks the files.
 *   test_runfile --slow FILE SECONDS [PERIOD_MS]
 *                                  appends a row every PERIOD_MS (50) ms for SECONDS (the
 *                                  SIGKILL test); each rank writes its pid into FILE.pid.RANK,
 *                                  and rank 0 creates FILE.started after the first row.
 * Prints "FAIL ..." lines and exits 1 on any failure. */
#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "polka/runfile.h"
#include "polka/net.h"
#include "expect_util.h"

#define AGENTS  7
#define ROWS    5
#define DIM     2
#define OUTPUTS 3
#define POINTS  5
#define STAGES  3

static const char *const metric_names[] = {
    "test_score", "test_loss", "train_loss",   "model_order",   "disagreement",
    "bytes_sent", "wall_time", "time_compute", "time_exchange", "time_update"};
#define METRICS (sizeof metric_names / sizeof *metric_names)

static const char *const descriptions[METRICS] = {"accuracy on the test set",
                                                  "mean test loss",
                                                  "mean training loss",
                                                  "dictionary size",
                                                  "disagreement",
                                                  "bytes sent so far",
                                                  "wall time (s)",
                                                  "compute time (s)",
                                                  "exchange time (s)",
                                                  "update time (s)"};

static const char *const stage_names[STAGES] = {"compute", "exchange", "io"};

/* ---- the known contents ----------------------------------------------------------------- */

static double cell(size_t row, size_t agent, size_t metric) {
    return (double)row * 1000 + (double)agent * 10 + (double)metric + 0.25;
}

static double round_of(size_t row) {
    return (double)(row + 1) * 10;
}

static double samples_of(size_t row) {
    return (double)(row + 1) * 70;
}

static double timing_of(int rank, size_t stage) {
    return (double)(rank + 1) * (double)(stage + 1) + 0.5;
}

/* The kernel of every agent of a file (a run has one; /models keeps it once): each parameter
 * away from its default. mixed: the kernel of agent a of a file the writer must refuse. */
static polka_kernel kernel_of(size_t agent, int mixed) {
    if (mixed && agent % 2 == 1) return (polka_kernel){POLKA_KERNEL_LAPLACIAN, 1.25, 1, 0};
    return (polka_kernel){POLKA_KERNEL_POLYNOMIAL, 2, 2, 1.5};
}

/* Agent a: M = a % 4 points d[m][j] = a + m/2 + j/8, weights w[m][c] = (a+1)(m+1)/8 − c. */
static polka_status model_with(size_t agent, int mixed, polka_model **out) {
    polka_kernel kernel = kernel_of(agent, mixed);
    size_t order = agent % 4;
    double d[4 * DIM], w[4 * OUTPUTS];
    for (size_t m = 0; m < order; m++) {
        for (size_t j = 0; j < DIM; j++) d[m * DIM + j] = (double)agent + 0.5 * m + 0.125 * j;
        for (size_t c = 0; c < OUTPUTS; c++)
            w[m * OUTPUTS + c] = (double)((agent + 1) * (m + 1)) / 8 - (double)c;
    }
    POLKA_CALL(polka_model_create(&kernel, DIM, OUTPUTS, out));
    if (order > 0) POLKA_CALL(polka_model_append(*out, d, order, w));
    return POLKA_OK;
}

static polka_status model_of(size_t agent, polka_model **out) {
    return model_with(agent, 0, out);
}

static polka_status ring_graph(polka_graph **out) {
    size_t u[AGENTS], v[AGENTS];
    double w[AGENTS];
    for (size_t e = 0; e < AGENTS; e++) {
        u[e] = e;
        v[e] = (e + 1) % AGENTS;
        w[e] = 0.5 + (double)e / 8;
    }
    return polka_graph_from_edges(AGENTS, u, v, w, AGENTS, out);
}

/* ---- writing ---------------------------------------------------------------------------- */

/* The agents of a rank: a block of AGENTS split over the ranks, or all on rank 0. */
static void my_agents(int rank, int size, int all_on_root, size_t *first, size_t *count) {
    if (all_on_root) {
        *first = 0;
        *count = rank == 0 ? AGENTS : 0;
        return;
    }
    *first = (size_t)rank * AGENTS / (size_t)size;
    *count = (size_t)(rank + 1) * AGENTS / (size_t)size - *first;
}

static void fill_row(size_t row, size_t first, size_t count, double *values) {
    for (size_t a = 0; a < count; a++)
        for (size_t m = 0; m < METRICS; m++) values[a * METRICS + m] = cell(row, first + a, m);
}

/* A rank-local bad argument (the last rank only) fails on every rank, without a hang. */
static void check_bad_append(polka_runfile *log, int rank, int size) {
    double values[METRICS] = {0};
    size_t first = rank == size - 1 ? AGENTS : 0, count = rank == size - 1 ? 1 : 0;
    polka_status status = polka_runfile_append(log, 0, 0, first, count, values);
    EXPECT(status == POLKA_ERR_ARG, "bad append on one rank: status %d", (int)status);
    EXPECT(strstr(polka_error_message(), "appends agents 7..8 of 7") != NULL,
           "bad append message: %s", polka_error_message());
}

static void write_models(polka_runfile *log, size_t first, size_t count) {
    polka_model *models[AGENTS] = {NULL};
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < count && status == POLKA_OK; a++)
        status = model_of(first + a, &models[a]);
    EXPECT_OK(status);
    EXPECT_OK(polka_runfile_write_models(log, first, count, (const polka_model *const *)models));
    for (size_t a = 0; a < count; a++) polka_model_free(&models[a]);
}

/* Agents of two kernels (on one rank or two): refused on every rank, no hang. */
static void check_mixed_kernels(const char *path, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t first = 0, count = 0;
    my_agents(rank, size, 0, &first, &count);
    polka_runfile *log = NULL;
    EXPECT_OK(polka_runfile_create(path, comm, AGENTS, METRICS, metric_names, descriptions, &log));
    if (log == NULL) return;
    polka_model *models[AGENTS] = {NULL};
    for (size_t a = 0; a < count; a++) EXPECT_OK(model_with(first + a, 1, &models[a]));
    polka_status status =
        polka_runfile_write_models(log, first, count, (const polka_model *const *)models);
    EXPECT(status == POLKA_ERR_ARG && strstr(polka_error_message(), "another kernel or shape"),
           "mixed kernels: status %d, %s", (int)status, polka_error_message());
    for (size_t a = 0; a < count; a++) polka_model_free(&models[a]);
    (void)polka_runfile_close(&log);
}

static void write_file(const char *path, MPI_Comm comm, int all_on_root) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t first = 0, count = 0;
    my_agents(rank, size, all_on_root, &first, &count);
    polka_runfile *log = NULL;
    polka_status status =
        polka_runfile_create(path, comm, AGENTS, METRICS, metric_names, descriptions, &log);
    EXPECT(status == POLKA_OK, "create %s: %s", path, polka_error_message());
    if (status != POLKA_OK) return;
    polka_config config;
    polka_config_defaults(&config);
    polka_graph *graph = NULL;
    EXPECT_OK(ring_graph(&graph));
    EXPECT_OK(polka_runfile_write_config(log, &config, rank == 0 ? graph : NULL, size));
    polka_graph_free(&graph);
    double values[AGENTS * METRICS];
    for (size_t row = 0; row < ROWS; row++) {
        fill_row(row, first, count, values);
        EXPECT_OK(polka_runfile_append(log, round_of(row), samples_of(row), first, count, values));
        if (row == 2 && !all_on_root) check_bad_append(log, rank, size);
    }
    write_models(log, first, count);
    double seconds[STAGES];
    for (size_t s = 0; s < STAGES; s++) seconds[s] = timing_of(rank, s);
    EXPECT_OK(polka_runfile_write_timing(log, STAGES, stage_names, seconds));
    EXPECT_OK(polka_runfile_close(&log));
    EXPECT(log == NULL, "close does not null the handle");
}

/* A run with one metric, no graph, models or timing, and a regression loss (2 rows). */
static void write_partial(const char *path, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const char *const names[] = {"test_score"};
    polka_runfile *log = NULL;
    polka_status status = polka_runfile_create(path, comm, AGENTS, 1, names, NULL, &log);
    EXPECT(status == POLKA_OK, "create %s: %s", path, polka_error_message());
    if (status != POLKA_OK) return;
    polka_config config;
    polka_config_defaults(&config);
    EXPECT_OK(polka_config_set(&config, "learner.loss", "square"));
    EXPECT_OK(polka_config_set(&config, "run.mode", "centralized"));
    EXPECT_OK(polka_runfile_write_config(log, &config, NULL, 1));
    double values[AGENTS];
    for (size_t row = 0; row < 2; row++) {
        for (size_t a = 0; a < AGENTS; a++) values[a] = 0.5 * (double)(a + row);
        EXPECT_OK(polka_runfile_append(log, round_of(row), samples_of(row), 0,
                                       rank == 0 ? AGENTS : 0, values));
    }
    EXPECT_OK(polka_runfile_close(&log));
}

static void check_partial(const char *path) {
    polka_runfile_reader *run = NULL;
    EXPECT_OK(polka_runfile_reader_open(path, &run));
    if (run == NULL) return;
    double values[AGENTS];
    EXPECT(polka_runfile_reader_rows(run) == 2, "partial: rows %zu",
           polka_runfile_reader_rows(run));
    EXPECT_OK(polka_runfile_reader_metric_row(run, "test_score", POLKA_H5RUN_LAST, values));
    EXPECT(values[6] == 3.5, "partial: test_score %g", values[6]);
    EXPECT(polka_runfile_reader_metric_row(run, "disagreement", 0, values) == POLKA_ERR_FORMAT,
           "partial: disagreement found");
    polka_model *none = NULL;
    EXPECT(polka_runfile_reader_load_model(run, 0, &none) == POLKA_ERR_FORMAT, "partial: a model");
    polka_runfile_reader_close(&run);
}

/* ---- reading back (rank 0) --------------------------------------------------------------- */

static void check_metrics(const polka_runfile_reader *run) {
    double values[AGENTS];
    for (size_t row = 0; row < ROWS; row++) {
        for (size_t m = 0; m < METRICS; m++) {
            EXPECT_OK(polka_runfile_reader_metric_row(run, metric_names[m], row, values));
            for (size_t a = 0; a < AGENTS; a++)
                EXPECT(values[a] == cell(row, a, m), "%s[%zu][%zu] = %g", metric_names[m], row, a,
                       values[a]);
        }
        EXPECT_OK(polka_runfile_reader_metric_row(run, "round", row, values));
        EXPECT(values[0] == round_of(row), "round[%zu] = %g", row, values[0]);
        EXPECT_OK(polka_runfile_reader_metric_row(run, "samples", row, values));
        EXPECT(values[0] == samples_of(row), "samples[%zu] = %g", row, values[0]);
    }
    EXPECT_OK(polka_runfile_reader_metric_row(run, "wall_time", POLKA_H5RUN_LAST, values));
    EXPECT(values[3] == cell(ROWS - 1, 3, 6), "last wall_time = %g", values[3]);
    EXPECT(polka_runfile_reader_metric_row(run, "no_such_metric", 0, values) == POLKA_ERR_FORMAT,
           "a missing metric is not a format error");
    EXPECT(strstr(polka_error_message(), "no_such_metric") != NULL, "message: %s",
           polka_error_message());
    EXPECT(polka_runfile_reader_metric_row(run, "test_loss", ROWS, values) == POLKA_ERR_ARG,
           "row out of range accepted");
}

static void expect_config(const polka_runfile_reader *run, const char *key, const char *want) {
    char text[128] = "";
    EXPECT_OK(polka_runfile_reader_config_string(run, key, text, sizeof text));
    EXPECT(strcmp(text, want) == 0, "config %s = '%s', want '%s'", key, text, want);
}

static void check_config(const polka_runfile_reader *run, int size) {
    char text[32];
    snprintf(text, sizeof text, "%d", size);
    expect_config(run, "mpi_size", text);
    expect_config(run, "polka_version", POLKA_VERSION);
    expect_config(run, "mode", "decentralized");
    expect_config(run, "run.mode", "decentralized");
    expect_config(run, "run.output", "");
    expect_config(run, "learner.sigma", "0.6");
    expect_config(run, "learner.lambda", "0.0001");
    expect_config(run, "data.n_train", "5000");
    expect_config(run, "run.seed", "1");
    expect_config(run, "learner.loss", "multi-hinge");
    EXPECT(polka_runfile_reader_config_string(run, "learner.nope", text, sizeof text) ==
               POLKA_ERR_FORMAT,
           "missing config key");
    EXPECT(polka_runfile_reader_config_string(run, "net.graph", text, 3) == POLKA_ERR_ARG,
           "too small a buffer");
}

static void check_model(const polka_runfile_reader *run, size_t agent) {
    polka_model *want = NULL, *got = NULL;
    EXPECT_OK(model_of(agent, &want));
    polka_status status = polka_runfile_reader_load_model(run, agent, &got);
    EXPECT(status == POLKA_OK, "load model %zu: %s", agent, polka_error_message());
    if (status == POLKA_OK && want != NULL) {
        EXPECT(polka_model_order(got) == agent % 4, "model %zu: order %zu", agent,
               polka_model_order(got));
        const polka_kernel *kw = polka_model_kernel(want), *kg = polka_model_kernel(got);
        EXPECT(kw->kind == kg->kind && kw->sigma == kg->sigma && kw->degree == kg->degree &&
                   kw->coef0 == kg->coef0,
               "model %zu: kernel differs", agent);
        double x[POINTS * DIM], fw[POINTS * OUTPUTS], fg[POINTS * OUTPUTS];
        for (size_t i = 0; i < POINTS; i++) {
            x[i * DIM] = 0.1 * (double)i + (double)agent;
            x[i * DIM + 1] = 0.3 - 0.2 * (double)i;
        }
        EXPECT_OK(polka_model_eval(want, x, POINTS, fw));
        EXPECT_OK(polka_model_eval(got, x, POINTS, fg));
        EXPECT(memcmp(fw, fg, sizeof fw) == 0, "model %zu: evaluations differ", agent);
    }
    polka_model_free(&want);
    polka_model_free(&got);
}

static void check_file(const char *path, int size) {
    polka_runfile_reader *run = NULL;
    polka_status status = polka_runfile_reader_open(path, &run);
    EXPECT(status == POLKA_OK, "open %s: %s", path, polka_error_message());
    if (status != POLKA_OK) return;
    EXPECT(polka_runfile_reader_agents(run) == AGENTS, "agents %zu",
           polka_runfile_reader_agents(run));
    EXPECT(polka_runfile_reader_rows(run) == ROWS, "rows %zu", polka_runfile_reader_rows(run));
    check_metrics(run);
    check_config(run, size);
    for (size_t a = 0; a < AGENTS; a++) check_model(run, a);
    polka_model *none = NULL;
    EXPECT(polka_runfile_reader_load_model(run, AGENTS, &none) == POLKA_ERR_FORMAT,
           "model of no agent");
    polka_runfile_reader_close(&run);
    EXPECT(run == NULL, "polka_runfile_reader_close does not null the handle");
}

/* ---- errors ----------------------------------------------------------------------------- */

static void check_unwritable(const char *dir, MPI_Comm comm) {
    char path[1024];
    snprintf(path, sizeof path, "%s/missing/sub/run.h5", dir);
    polka_runfile *log = NULL;
    polka_status status =
        polka_runfile_create(path, comm, AGENTS, METRICS, metric_names, NULL, &log);
    EXPECT(status == POLKA_ERR_IO, "unwritable path: status %d", (int)status);
    EXPECT(strstr(polka_error_message(), path) != NULL, "message lacks the path: %s",
           polka_error_message());
    EXPECT(log == NULL, "handle set on error");
    const char *const twice[] = {"a", "a"};
    status = polka_runfile_create(path, comm, AGENTS, 2, twice, NULL, &log);
    EXPECT(status == POLKA_ERR_ARG, "duplicate names: status %d", (int)status);
}

static void write_text(const char *path, const char *text) {
    FILE *file = fopen(path, "w");
    EXPECT(file != NULL, "cannot write %s", path);
    if (file == NULL) return;
    fputs(text, file);
    fclose(file);
}

/* An HDF5 file that is not a run file: an empty one, written with plain HDF5. */
static void write_plain_hdf5(const char *path) {
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT(file >= 0, "cannot create %s", path);
    if (file >= 0) H5Fclose(file);
}

static void expect_open_fails(const char *path, polka_status want, const char *text) {
    polka_runfile_reader *run = NULL;
    polka_status status = polka_runfile_reader_open(path, &run);
    EXPECT(status == want, "open %s: status %d, want %d", path, (int)status, (int)want);
    EXPECT(strstr(polka_error_message(), text) != NULL, "open %s: message '%s' lacks '%s'", path,
           polka_error_message(), text);
    EXPECT(run == NULL, "handle set on error");
    polka_runfile_reader_close(&run);
}

static void check_bad_files(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/not_hdf5.txt", dir);
    write_text(path, "this is not an HDF5 file\n");
    expect_open_fails(path, POLKA_ERR_FORMAT, "is not an HDF5 file");
    snprintf(path, sizeof path, "%s/plain.h5", dir);
    write_plain_hdf5(path);
    expect_open_fails(path, POLKA_ERR_FORMAT, "is not a polka run file");
    snprintf(path, sizeof path, "%s/missing.h5", dir);
    expect_open_fails(path, POLKA_ERR_IO, "No such file");
}

/* ---- modes ------------------------------------------------------------------------------ */

static void make_dirs(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(path, 0777);
        *p = '/';
    }
    EXPECT(mkdir(path, 0777) == 0 || errno == EEXIST, "cannot create %s", path);
}

static void remove_files(const char *dir) {
    const char *const files[] = {"split.h5",   "root.h5",      "mixed.h5",
                                 "partial.h5", "not_hdf5.txt", "plain.h5"};
    char path[1024];
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        remove(path);
    }
    rmdir(dir);
}

static int run_checks(const char *given_dir, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char dir[1024] = "/tmp/polka_runfile_XXXXXX", path[1100];
    if (rank == 0 && given_dir != NULL) snprintf(dir, sizeof dir, "%s", given_dir);
    if (rank == 0 && given_dir != NULL) make_dirs(dir);
    if (rank == 0 && given_dir == NULL) EXPECT(mkdtemp(dir) != NULL, "mkdtemp failed");
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, comm);
    snprintf(path, sizeof path, "%s/split.h5", dir);
    write_file(path, comm, 0);
    if (rank == 0) check_file(path, size);
    snprintf(path, sizeof path, "%s/root.h5", dir);
    write_file(path, comm, 1);
    if (rank == 0) check_file(path, size);
    snprintf(path, sizeof path, "%s/mixed.h5", dir);
    check_mixed_kernels(path, comm);
    snprintf(path, sizeof path, "%s/partial.h5", dir);
    write_partial(path, comm);
    if (rank == 0) check_partial(path);
    check_unwritable(dir, comm);
    if (rank == 0) check_bad_files(dir);
    if (rank == 0 && given_dir == NULL) remove_files(dir);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        printf("%s: %d failure(s) over %d rank(s) in %s\n", total ? "FAIL" : "PASS", total, size,
               dir);
    return total ? 1 : 0;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) continue;
}

/* Creates the file PATH.SUFFIX holding this process's id. */
static void write_marker(const char *path, const char *suffix) {
    char marker[1100];
    snprintf(marker, sizeof marker, "%s.%s", path, suffix);
    FILE *file = fopen(marker, "w");
    if (file != NULL) fprintf(file, "%ld\n", (long)getpid());
    if (file != NULL) fclose(file);
}

/* Appends a row every period_ms for `seconds` (until killed, in the SIGKILL test). */
static int run_slow(const char *path, double seconds, long period_ms, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char suffix[32];
    snprintf(suffix, sizeof suffix, "pid.%d", rank);
    write_marker(path, suffix);
    polka_runfile *log = NULL;
    if (polka_runfile_create(path, comm, AGENTS, METRICS, metric_names, descriptions, &log) !=
        POLKA_OK) {
        if (rank == 0) fprintf(stderr, "FAIL: %s\n", polka_error_message());
        return 1;
    }
    polka_config config;
    polka_config_defaults(&config);
    polka_status status = polka_runfile_write_config(log, &config, NULL, size);
    size_t first = 0, count = 0;
    my_agents(rank, size, 0, &first, &count);
    double values[AGENTS * METRICS];
    double start = MPI_Wtime();
    for (size_t row = 0; status == POLKA_OK && MPI_Wtime() - start < seconds; row++) {
        fill_row(row, first, count, values);
        status = polka_runfile_append(log, round_of(row), samples_of(row), first, count, values);
        if (row == 0 && rank == 0) write_marker(path, "started");
        sleep_ms(period_ms);
    }
    polka_status closed = polka_runfile_close(&log);
    if (status == POLKA_OK) status = closed;
    if (status != POLKA_OK && rank == 0) fprintf(stderr, "FAIL: %s\n", polka_error_message());
    return status != POLKA_OK;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int code = 0;
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--slow") == 0)
        code = run_slow(argv[2], atof(argv[3]), argc == 5 ? atol(argv[4]) : 50, MPI_COMM_WORLD);
    else if (argc <= 2)
        code = run_checks(argc == 2 ? argv[1] : NULL, MPI_COMM_WORLD);
    else {
        fprintf(stderr, "usage: test_runfile [DIR] | --slow FILE SECONDS [PERIOD_MS]\n");
        code = 2;
    }
    MPI_Finalize();
    return code;
}
