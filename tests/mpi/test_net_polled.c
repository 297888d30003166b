/*
 * The log step's collectives poll (polka_net_allreduce, polka_net_gatherv): under mpiexec
 * -n 2, rank 0 has the watchdog at 1 s and rank 1 enters each collective only once rank 0 has
 * said it gave up (a message of its own). Rank 0 must give up on its own, naming rank 1 and
 * the wait: a blocking MPI_Allreduce would wait for rank 1, which waits for rank 0's word up
 * to LATE_SECONDS and then enters, so the call returns success and the check fails. Then both
 * complete the collective and agree on the outcome. No fixed sleep and no upper bound on the
 * wall clock: a loaded machine delays both ranks alike. Exit 0 when every check held.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "polka/net.h"

#define WATCHDOG_SECONDS 1.0
#define LATE_SECONDS     30.0

/* Rank 0: the call returned POLKA_ERR_MPI, after the watchdog's second, naming rank 1 and
 * `what`; then it tells rank 1 (tag). */
static int gave_up(polka_status status, double took, const char *what, int tag) {
    char expected[256];
    snprintf(expected, sizeof expected, "watchdog: rank 1 did not reach %s within 1 s", what);
    int ok = status == POLKA_ERR_MPI && took >= WATCHDOG_SECONDS &&
             strstr(polka_error_message(), expected) != NULL;
    printf("%s: rank 0 gave up on '%s' after %.2f s: %s\n", ok ? "ok" : "FAIL", what, took,
           polka_error_message());
    int word = 1;
    MPI_Send(&word, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
    return ok;
}

/* Rank 1: waits for rank 0's word (tag), at most LATE_SECONDS (past them, a word that comes
 * late is left unread: the test has failed). */
static void arrive_late(int tag) {
    int word = 0, done = 0;
    MPI_Request request;
    MPI_Irecv(&word, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &request);
    for (double start = MPI_Wtime(); !done && MPI_Wtime() - start < LATE_SECONDS;) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    if (done) return;
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

/* The buffers outlive the calls: rank 0 abandons its requests, which complete later (at the
 * barriers) and write into them. */
static double mine, sum, all[2];

static int late_reduction(int rank) {
    mine = rank + 1.0;
    sum = 0.0;
    if (rank == 1) arrive_late(1);
    double start = MPI_Wtime();
    polka_status status = polka_net_allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                                              "the test's reduction");
    if (rank == 0) return gave_up(status, MPI_Wtime() - start, "the test's reduction", 1);
    return status == POLKA_OK && sum == 3.0;
}

static int late_gather(int rank) {
    mine = rank + 1.0;
    static const int counts[2] = {1, 1}, displacements[2] = {0, 1};
    if (rank == 1) arrive_late(2);
    double start = MPI_Wtime();
    polka_status status = polka_net_gatherv(&mine, 1, MPI_DOUBLE, all, counts, displacements,
                                            MPI_COMM_WORLD, "the test's gather");
    if (rank == 0) return gave_up(status, MPI_Wtime() - start, "the test's gather", 2);
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
    if (rank == 0) polka_net_set_watchdog(WATCHDOG_SECONDS); /* rank 1 waits as long as it takes */
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
