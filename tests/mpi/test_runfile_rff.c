/* Random-feature models in the run file, under mpiexec -n K (any K):
 *   test_runfile_rff DIR   writes DIR/rff.h5 (7 agents dealt round-robin to the ranks, so a
 *                        rank's agents are not contiguous; D = 16 features in 2 dimensions,
 *                        square loss, sinc source; θ_a[d] = a + d/100), reads every agent
 *                        back on rank 0 and compares bit for bit, checks the refusals, and
 *                        writes DIR/points.svm and DIR/values.txt (agent 3's f at the points,
 *                        %.17g) for tests/python/check_rff_h5.py, polka predict and the Python
 * Model. Prints "FAIL ..." lines and exits 1 on any failure, else prints "PASS: 0 failures". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "polka/runfile.h"
#include "polka/net.h"
#include "polka/rff.h"
#include "expect_util.h"

enum { AGENTS = 7, FEATURES = 16, DIM = 2, POINTS = 20, SHOWN = 3 };

static double theta_of(size_t agent, size_t d) {
    return (double)agent + (double)d / 100.0;
}

/* This rank's agents, dealt round-robin, and their θ (AGENTS × FEATURES numbers). */
static size_t my_agents(int rank, int size, size_t *agents, double *theta, const double **ptrs) {
    size_t count = 0;
    for (size_t a = (size_t)rank; a < AGENTS; a += (size_t)size) {
        agents[count] = a;
        for (size_t d = 0; d < FEATURES; d++) theta[count * FEATURES + d] = theta_of(a, d);
        ptrs[count] = theta + count * FEATURES;
        count++;
    }
    return count;
}

static polka_status open_log(const char *path, MPI_Comm comm, polka_runfile **log) {
    const char *const names[] = {"test_score", "model_order"};
    POLKA_CALL(polka_runfile_create(path, comm, AGENTS, 2, names, NULL, log));
    polka_config config;
    polka_config_defaults(&config);
    POLKA_CALL(polka_config_set(&config, "learner.loss", "square"));
    POLKA_CALL(polka_config_set(&config, "data.source", "sinc"));
    POLKA_CALL(polka_config_set(&config, "learner.sigma", "1.5"));
    int size = 1;
    MPI_Comm_size(comm, &size);
    POLKA_CALL(polka_runfile_write_config(*log, &config, NULL, size));
    double row[2 * AGENTS];
    for (size_t k = 0; k < 2 * AGENTS; k++) row[k] = k % 2 ? (double)FEATURES : 0.5;
    return polka_runfile_append(*log, 1, AGENTS, 0, 0, row);
}

/* A wrong call fails with the same error on every rank, and leaves the file usable. */
static void check_bad_calls(polka_runfile *log, const polka_rff *rff, int rank, int size) {
    size_t agents[AGENTS], shifted[AGENTS];
    double theta[AGENTS * FEATURES];
    const double *ptrs[AGENTS];
    size_t count = my_agents(rank, size, agents, theta, ptrs);
    /* rank 0 drops its first agent (agent 0): it is missing */
    size_t drop = rank == 0 ? 1 : 0;
    polka_status status =
        polka_runfile_write_rff_models(log, rff, 1, agents + drop, count - drop, ptrs + drop);
    EXPECT(status == POLKA_ERR_ARG && strstr(polka_error_message(), "not one"),
           "a missing agent: %d %s", (int)status, polka_error_message());
    /* rank 0 passes the agents twice over in another order: refused by rank 0's check */
    for (size_t a = 0; a < count; a++) shifted[a] = agents[count - 1 - a];
    status = polka_runfile_write_rff_models(log, rff, 1, rank == 0 ? shifted : agents, count, ptrs);
    EXPECT(count < 2 || status == POLKA_ERR_ARG, "agents out of order were taken");
}

static void write_file(const char *path, const polka_rff *rff, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    polka_runfile *log = NULL;
    polka_status status = open_log(path, comm, &log);
    EXPECT(status == POLKA_OK, "create %s: %s", path, polka_error_message());
    if (status == POLKA_OK) check_bad_calls(log, rff, rank, size);
    size_t agents[AGENTS];
    double theta[AGENTS * FEATURES];
    const double *ptrs[AGENTS];
    size_t count = my_agents(rank, size, agents, theta, ptrs);
    if (status == POLKA_OK)
        EXPECT_OK(polka_runfile_write_rff_models(log, rff, 1, agents, count, ptrs));
    EXPECT_OK(polka_runfile_close(&log));
}

static void check_agent(const polka_runfile_reader *run, const polka_rff *rff, size_t agent) {
    polka_rff back = {0};
    double *theta = NULL;
    size_t outputs = 0;
    EXPECT_OK(polka_runfile_reader_load_rff(run, agent, &back, &theta, &outputs));
    if (theta == NULL) return;
    EXPECT(outputs == 1 && back.features == FEATURES && back.dim == DIM && back.sigma == 1.5 &&
               back.seed == rff->seed,
           "agent %zu: the shape or the attributes differ", agent);
    EXPECT(memcmp(back.omega, rff->omega, FEATURES * DIM * sizeof(double)) == 0 &&
               memcmp(back.phase, rff->phase, FEATURES * sizeof(double)) == 0,
           "agent %zu: the features differ", agent);
    for (size_t d = 0; d < FEATURES; d++)
        EXPECT(theta[d] == theta_of(agent, d), "agent %zu: theta[%zu] = %g", agent, d, theta[d]);
    polka_rff_free(&back);
    free(theta);
}

/* The points (sinc's range) and agent SHOWN's values there, for the checks outside. */
static void write_points(const char *dir, const polka_rff *rff) {
    double x[POINTS * DIM], theta[FEATURES], f[POINTS];
    for (size_t k = 0; k < POINTS * DIM; k++) x[k] = -5.0 + 10.0 * (double)((k * 37) % 101) / 100;
    for (size_t d = 0; d < FEATURES; d++) theta[d] = theta_of(SHOWN, d);
    EXPECT_OK(polka_rff_predict(rff, theta, 1, x, POINTS, f));
    char path[1100];
    snprintf(path, sizeof path, "%s/points.svm", dir);
    FILE *points = fopen(path, "w");
    snprintf(path, sizeof path, "%s/values.txt", dir);
    FILE *values = fopen(path, "w");
    EXPECT(points && values, "cannot write the points or values in %s", dir);
    for (size_t i = 0; points && values && i < POINTS; i++) {
        fprintf(points, "0 1:%.17g 2:%.17g\n", x[i * DIM], x[i * DIM + 1]);
        fprintf(values, "%.17g\n", f[i]);
    }
    if (points) fclose(points);
    if (values) fclose(values);
}

static void read_back(const char *path, const polka_rff *rff) {
    polka_runfile_reader *run = NULL;
    EXPECT_OK(polka_runfile_reader_open(path, &run));
    if (run == NULL) return;
    polka_runfile_reader_models kind = POLKA_H5RUN_MODELS_NONE;
    EXPECT_OK(polka_runfile_reader_models_kind(run, &kind));
    EXPECT(kind == POLKA_H5RUN_MODELS_RFF, "the kind of /models is %d", (int)kind);
    for (size_t a = 0; a < AGENTS; a++) check_agent(run, rff, a);
    polka_rff back = {0};
    double *theta = NULL;
    size_t outputs = 0;
    polka_status status = polka_runfile_reader_load_rff(run, AGENTS, &back, &theta, &outputs);
    EXPECT(status == POLKA_ERR_ARG && strstr(polka_error_message(), "no agent 7"),
           "agent 7 of 7: %d %s", (int)status, polka_error_message());
    polka_model *model = NULL;
    status = polka_runfile_reader_load_model(run, 0, &model);
    EXPECT(status == POLKA_ERR_FORMAT, "a kernel model read from random features");
    polka_runfile_reader_close(&run);
}

/* mkdir -p: every missing directory of path (existing ones are fine). */
static void make_directories(const char *path) {
    char partial[1100];
    snprintf(partial, sizeof partial, "%s", path);
    for (char *slash = strchr(partial + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(partial, 0777);
        *slash = '/';
    }
    mkdir(partial, 0777);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: test_runfile_rff DIR\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) make_directories(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    char path[1100];
    snprintf(path, sizeof path, "%s/rff.h5", argv[1]);
    polka_rff rff = {0};
    EXPECT_OK(polka_rff_draw(FEATURES, DIM, 1.5, 77, &rff));
    write_file(path, &rff, MPI_COMM_WORLD);
    if (rank == 0 && failures == 0) {
        read_back(path, &rff);
        write_points(argv[1], &rff);
    }
    polka_rff_free(&rff);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("PASS: %d failures\n", total);
    MPI_Finalize();
    return total != 0;
}
