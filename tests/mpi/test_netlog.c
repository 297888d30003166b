/*
 * The run-file appends of sim/metrics/metrics.c with many agents on one rank (there was a limit of
 * 4): rank 0 writes AGENTS agents' metrics in one append per row, the file reads back every value.
 * Run with mpiexec -n K; exit 0 when every value matches.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "polka/runfile.h"
#include "sim/metrics/metrics_impl.h"

#define AGENTS 37
#define ROWS   3

static double value_of(size_t row, size_t agent) {
    return 1000.0 * (double)row + (double)agent + 0.25;
}

static polka_status write_run(const polka_plan *plan, int rank) {
    polka_data_facts facts = {2, 5, 100, 10};
    polka_netlog log = {0};
    POLKA_CALL(polka_netlog_open_h5(&log, plan, &facts, MPI_COMM_WORLD, AGENTS, NULL));
    static polka_agent_metrics metrics[AGENTS];
    polka_status status = POLKA_OK;
    for (size_t row = 0; row < ROWS && status == POLKA_OK; row++) {
        for (size_t a = 0; a < AGENTS; a++)
            metrics[a] = (polka_agent_metrics){.score = value_of(row, a)};
        status = polka_netlog_append_h5(&log, row + 1, 10.0 * (double)(row + 1), 0,
                                        rank == 0 ? AGENTS : 0, metrics);
    }
    polka_netlog_abandon_h5(&log);
    return status;
}

static int check_run(const char *path) {
    polka_runfile_reader *run = NULL;
    if (polka_runfile_reader_open(path, &run) != POLKA_OK) return 0;
    double values[AGENTS];
    int ok = polka_runfile_reader_agents(run) == AGENTS && polka_runfile_reader_rows(run) == ROWS;
    for (size_t row = 0; ok && row < ROWS; row++) {
        ok = polka_runfile_reader_metric_row(run, "test_score", row, values) == POLKA_OK;
        for (size_t a = 0; ok && a < AGENTS; a++) ok = values[a] == value_of(row, a);
    }
    polka_runfile_reader_close(&run);
    return ok;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[64];
    int id = rank == 0 ? (int)getpid() : 0;
    MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/polka_netlog_%d.h5", id);
    polka_config config;
    polka_config_defaults(&config);
    snprintf(config.output, sizeof config.output, "%s", path);
    static polka_plan plan;
    int ok = polka_plan_build(&config, &plan) == POLKA_OK && write_run(&plan, rank) == POLKA_OK;
    if (!ok) fprintf(stderr, "rank %d: %s\n", rank, polka_error_message());
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        ok = ok && check_run(path);
        printf("%s: %d agents appended by one rank, %d rows\n", ok ? "ok" : "FAIL", AGENTS, ROWS);
        remove(path);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
