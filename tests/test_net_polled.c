/*
 * The log step's collectives poll (polka_net_allreduce, polka_net_gatherv): under mpiexec
 * -n 2, rank 1 enters each one 6 s late while rank 0 has the watchdog at 1 s. Rank 0 must
 * give up on its own, naming rank 1 and the wait, long before rank 1 arrives (a blocking
 * MPI_Allreduce would have waited the 6 s and returned success). Then both complete the
 * collective and agree on the outcome. Exit 0 when every check held.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "polka/net.h"

#define LATE_SECONDS 6

/* Rank 0: the call returned POLKA_ERR_MPI within 4 s, naming rank 1 and `what`. */
static int gave_up(polka_status status, double took, const char *what) {
    char expected[256];
    snprintf(expected, sizeof expected, "watchdog: rank 1 did not reach %s within 1 s", what);
    int ok = status == POLKA_ERR_MPI && took < LATE_SECONDS - 2 &&
             strstr(polka_error_message(), expected) != NULL;
    printf("%s: rank 0 gave up on '%s' after %.2f s: %s\n", ok ? "ok" : "FAIL", what, took,
           polka_error_message());
    return ok;
}

/* The buffers outlive the calls: rank 0 abandons its requests, which complete later (at the
 * barriers) and write into them. */
static double mine, sum, all[2];

static int late_reduction(int rank) {
    mine = rank + 1.0;
    sum = 0.0;
    if (rank == 1) sleep(LATE_SECONDS);
    double start = MPI_Wtime();
    polka_status status = polka_net_allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                                              "the test's reduction");
    if (rank == 0) return gave_up(status, MPI_Wtime() - start, "the test's reduction");
    return status == POLKA_OK && sum == 3.0;
}

static int late_gather(int rank) {
    mine = rank + 1.0;
    static const int counts[2] = {1, 1}, displacements[2] = {0, 1};
    if (rank == 1) sleep(LATE_SECONDS);
    double start = MPI_Wtime();
    polka_status status = polka_net_gatherv(&mine, 1, MPI_DOUBLE, all, counts, displacements,
                                            MPI_COMM_WORLD, "the test's gather");
    if (rank == 0) return gave_up(status, MPI_Wtime() - start, "the test's gather");
    return status == POLKA_OK;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "test_net_polled: run it on 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) polka_net_set_watchdog(1.0); /* rank 1 waits as long as it takes */
    int ok = late_reduction(rank);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0's abandoned request completes here */
    ok = late_gather(rank) && ok;
    MPI_Barrier(MPI_COMM_WORLD);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s\n", all ? "PASS" : "FAIL");
    MPI_Finalize();
    return all ? 0 : 1;
}
