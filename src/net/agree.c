/* Agreeing on a status, and the deadlines on waiting for the other ranks.
 *
 * Every wait on a collective polls its request (MPI_Test, then a short sleep) against a
 * deadline instead of blocking in MPI:
 * - a rank whose own step failed waits at most POLKA_NET_FAILED_WAIT seconds for the others:
 *   they may be stuck in a collective call of a library (libhdf5 flushing a run file that
 *   rank 0 could not write), which nothing but an abort ends;
 * - with the watchdog on (polka_net_set_watchdog, run.watchdog), every wait has a deadline:
 *   a rank stopped (SIGSTOP, a hung node) no longer stalls the others forever. The ranks that
 *   time out report to rank 0, which names the ranks that did not report.
 * - after a stop request (a signal, polka/stop.h) every wait ends POLKA_NET_STOP_WAIT seconds
 *   after the signal: long enough for the other ranks to finish their round and write the
 *   checkpoint, short enough that a rank waiting for a hung one leaves.
 * Either way polka_net_stalled() is then true and main ends the job with MPI_Abort after
 * printing the message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polka/net.h"
#include "polka/stop.h"

/* Tags of the watchdog's reports on the run's communicator (nothing else sends there). */
#define TAG_WAITING 7301

static double watchdog_seconds; /* 0: off */
static int stalled;

void polka_net_set_watchdog(double seconds) {
    watchdog_seconds = seconds > 0 ? seconds : 0;
}

int polka_net_watchdog_on(void) {
    return watchdog_seconds > 0;
}

int polka_net_stalled(void) {
    return stalled;
}

polka_status polka_net_check(int mpi_code, const char *call) {
    if (mpi_code == MPI_SUCCESS) return POLKA_OK;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(mpi_code, text, &len);
    return polka_error_set(POLKA_ERR_MPI, "%s failed: %s", call, text);
}

static void pause_briefly(double waited) {
    /* spin for the first millisecond (a round is often shorter), then sleep 1 ms per poll */
    if (waited < 1e-3) return;
    struct timespec nap = {0, 1000000};
    nanosleep(&nap, NULL);
}

enum { TIMED_OUT, DONE, STOP_TIMED_OUT };

/* Polls request until it completes (DONE) or seconds pass (TIMED_OUT; seconds <= 0: no
 * deadline), or until POLKA_NET_STOP_WAIT seconds after a stop request (STOP_TIMED_OUT). */
static int poll_request(MPI_Request *request, double seconds) {
    double start = MPI_Wtime();
    for (;;) {
        int done = 0;
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (done) return DONE;
        double waited = MPI_Wtime() - start;
        if (seconds > 0 && waited > seconds) return TIMED_OUT;
        if (polka_stop_seconds() > POLKA_NET_STOP_WAIT) return STOP_TIMED_OUT;
        pause_briefly(waited);
    }
}

/* A wait that outlived a stop request: the other ranks are stuck (a rank hung, or blocked
 * where nothing polls): the job is aborted. */
static polka_status stop_timed_out(const char *what) {
    stalled = 1;
    return polka_error_set(POLKA_INTERRUPTED,
                           "stopped by %s while waiting for the other ranks at %s: they did not "
                           "reach it within %g s of the signal; the run is aborted",
                           polka_stop_signal_name(polka_stop_signal()), what, POLKA_NET_STOP_WAIT);
}

/* Rank 0, timed out: the ranks that report waiting within another deadline are alive; the
 * others are named. */
static polka_status name_silent_ranks(MPI_Comm comm, int size, const char *what) {
    char alive[4096] = {0};
    int count = size < (int)sizeof alive ? size : (int)sizeof alive;
    alive[0] = 1;
    double start = MPI_Wtime();
    while (MPI_Wtime() - start < watchdog_seconds) {
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_WAITING, comm, &flag, &status);
        if (!flag) {
            pause_briefly(1.0);
            continue;
        }
        int from = 0;
        MPI_Recv(&from, 1, MPI_INT, status.MPI_SOURCE, TAG_WAITING, comm, MPI_STATUS_IGNORE);
        if (status.MPI_SOURCE < count) alive[status.MPI_SOURCE] = 1;
    }
    char names[256] = "";
    size_t used = 0;
    int silent = 0;
    for (int r = 0; r < count && used + 16 < sizeof names; r++) {
        if (alive[r]) continue;
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%d", silent ? ", " : "", r);
        silent++;
    }
    return polka_error_set(POLKA_ERR_MPI,
                           "watchdog: rank%s %s did not reach %s within %g s (stopped or stalled); "
                           "the run is aborted",
                           silent == 1 ? "" : "s", silent ? names : "?", what, watchdog_seconds);
}

polka_status polka_net_wait(MPI_Request *request, MPI_Comm comm, const char *what) {
    int outcome = poll_request(request, watchdog_seconds);
    if (outcome == DONE) return POLKA_OK;
    if (outcome == STOP_TIMED_OUT) return stop_timed_out(what);
    stalled = 1;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) return name_silent_ranks(comm, size, what);
    /* report to rank 0, which names the silent ranks and aborts; if it does not within two
     * more deadlines, rank 0 is the one that stopped: rank 1 says so */
    MPI_Request report;
    MPI_Isend(&rank, 1, MPI_INT, 0, TAG_WAITING, comm, &report);
    double start = MPI_Wtime();
    while (MPI_Wtime() - start < 2 * watchdog_seconds) pause_briefly(1.0);
    if (rank != 1) {
        stalled = 2; /* rank 1 reports: give it time to, before this rank aborts the job */
        while (MPI_Wtime() - start < 3 * watchdog_seconds) pause_briefly(1.0);
        return polka_error_set(POLKA_ERR_MPI, "watchdog: rank 0 did not answer");
    }
    return polka_error_set(POLKA_ERR_MPI,
                           "watchdog: rank 0 did not reach %s within %g s (stopped or stalled); "
                           "the run is aborted",
                           what, watchdog_seconds);
}

/*
 * The polled collectives work in a heap block of their own: it is freed when the request
 * completed, and left allocated when the wait gave up, since MPI may still read and write an
 * abandoned request's buffers until the job ends (it is not cancelled), and the caller's may
 * be gone by then.
 */
static size_t type_bytes(MPI_Datatype type, size_t count) {
    int size = 0;
    MPI_Type_size(type, &size);
    return count * (size_t)size;
}

polka_status polka_net_allreduce(const void *send, void *receive, int count, MPI_Datatype type,
                                 MPI_Op op, MPI_Comm comm, const char *what) {
    size_t bytes = type_bytes(type, (size_t)count);
    char *block = malloc(2 * bytes + 1);
    POLKA_CHECK(block, POLKA_ERR_MEM, "out of memory for %s", what);
    memcpy(block, send, bytes);
    MPI_Request request;
    polka_status status = polka_net_check(
        MPI_Iallreduce(block, block + bytes, count, type, op, comm, &request), "MPI_Iallreduce");
    if (status == POLKA_OK) status = polka_net_wait(&request, comm, what);
    if (status == POLKA_OK) memcpy(receive, block + bytes, bytes);
    if (status == POLKA_OK || !polka_net_stalled()) free(block);
    return status;
}

/* A v-collective's heap block: the counts and displacements (size each), the own part (`mine`
 * bytes of send) and the receive buffer (the extent of the displacements and counts; none
 * when `receives` is 0). */
typedef struct {
    char *block;
    int *counts, *displacements;
    char *send, *receive;
    size_t received; /* bytes */
} vblock;

static polka_status vblock_make(vblock *v, const void *send, int count, MPI_Datatype type,
                                const int *counts, const int *displacements, int size, int receives,
                                const char *what) {
    size_t extent = 0; /* the receive buffer, in elements */
    for (int r = 0; receives && r < size; r++)
        if ((size_t)displacements[r] + (size_t)counts[r] > extent)
            extent = (size_t)displacements[r] + (size_t)counts[r];
    size_t mine = type_bytes(type, (size_t)count), layout = 2 * (size_t)size * sizeof(int);
    v->received = type_bytes(type, extent);
    v->block = malloc(layout + mine + v->received + 1);
    POLKA_CHECK(v->block, POLKA_ERR_MEM, "out of memory for %s", what);
    v->counts = (int *)v->block, v->displacements = v->counts + size;
    memcpy(v->counts, counts, (size_t)size * sizeof(int));
    memcpy(v->displacements, displacements, (size_t)size * sizeof(int));
    v->send = v->block + layout, v->receive = v->send + mine;
    if (mine) memcpy(v->send, send, mine);
    return POLKA_OK;
}

/* Waits for the collective of v and hands its receive buffer over; frees v's block unless a
 * wait gave up (the request may still write into it). */
static polka_status vblock_finish(vblock *v, polka_status status, MPI_Request *request,
                                  MPI_Comm comm, void *receive, const char *what) {
    if (status == POLKA_OK) status = polka_net_wait(request, comm, what);
    if (status == POLKA_OK && v->received) memcpy(receive, v->receive, v->received);
    if (status == POLKA_OK || !polka_net_stalled()) free(v->block);
    return status;
}

polka_status polka_net_gatherv(const void *send, int count, MPI_Datatype type, void *receive,
                               const int *counts, const int *displacements, MPI_Comm comm,
                               const char *what) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    vblock v;
    POLKA_CALL(vblock_make(&v, send, count, type, counts, displacements, size, rank == 0, what));
    MPI_Request request;
    polka_status status = polka_net_check(MPI_Igatherv(v.send, count, type, v.receive, v.counts,
                                                       v.displacements, type, 0, comm, &request),
                                          "MPI_Igatherv");
    return vblock_finish(&v, status, &request, comm, receive, what);
}

polka_status polka_net_allgatherv(const void *send, int count, MPI_Datatype type, void *receive,
                                  const int *counts, const int *displacements, MPI_Comm comm,
                                  const char *what) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    vblock v;
    POLKA_CALL(vblock_make(&v, send, count, type, counts, displacements, size, 1, what));
    MPI_Request request;
    polka_status status = polka_net_check(MPI_Iallgatherv(v.send, count, type, v.receive, v.counts,
                                                          v.displacements, type, comm, &request),
                                          "MPI_Iallgatherv");
    return vblock_finish(&v, status, &request, comm, receive, what);
}

/* The allreduce of the agreement: a failed rank waits at most POLKA_NET_FAILED_WAIT. */
static polka_status agree_first(MPI_Comm comm, polka_status local, int *mine, int *first,
                                int count) {
    MPI_Request request;
    POLKA_CALL(polka_net_check(MPI_Iallreduce(mine, first, count, MPI_INT, MPI_MIN, comm, &request),
                               "MPI_Iallreduce"));
    if (local == POLKA_OK) return polka_net_wait(&request, comm, "the status agreement");
    double limit = watchdog_seconds > 0 && watchdog_seconds < POLKA_NET_FAILED_WAIT
                       ? watchdog_seconds
                       : POLKA_NET_FAILED_WAIT;
    int outcome = poll_request(&request, limit);
    if (outcome == DONE) return POLKA_OK;
    if (outcome == STOP_TIMED_OUT) return stop_timed_out("the status agreement");
    stalled = 1;
    char message[1024];
    snprintf(message, sizeof message, "%s", polka_error_message());
    return polka_error_set(local,
                           "%s (the other ranks did not reach the status agreement within %g s, "
                           "stuck in a collective call: the run is aborted)",
                           message, limit);
}

/* The status, and (wish not NULL) the largest wish, in one allreduce: MIN over
 * {failing rank or size, −wish}. */
static polka_status agree(MPI_Comm comm, polka_status local, int *wish) {
    if (stalled) return local != POLKA_OK ? local : POLKA_ERR_MPI; /* the job is ending */
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine[2] = {local != POLKA_OK ? rank : size, wish ? -*wish : 0}, first[2] = {size, 0};
    POLKA_CALL(agree_first(comm, local, mine, first, wish ? 2 : 1));
    if (wish) *wish = -first[1];
    if (first[0] == size) return POLKA_OK;
    int code = (int)local;
    char message[1024] = {0};
    if (rank == first[0]) snprintf(message, sizeof message, "%s", polka_error_message());
    MPI_Bcast(&code, 1, MPI_INT, first[0], comm);
    MPI_Bcast(message, (int)sizeof message, MPI_CHAR, first[0], comm);
    if (rank != first[0]) polka_error_set((polka_status)code, "%s", message);
    return (polka_status)code;
}

polka_status polka_net_agree(MPI_Comm comm, polka_status local) {
    return agree(comm, local, NULL);
}

polka_status polka_net_agree_wish(MPI_Comm comm, polka_status local, int *wish) {
    return agree(comm, local, wish);
}
