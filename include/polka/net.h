/**
 * @file net.h
 * @brief MPI plumbing: agreeing on errors, the neighbour exchange between agents.
 *
 * net moves points and numbers; it knows nothing of kernels (docs/design.md).
 */
#ifndef POLKA_NET_H
#define POLKA_NET_H

#include <mpi.h>

#include "polka/error.h"

/**
 * Collective: combines every rank's status. When any rank failed, every rank returns the
 * status of the lowest failing rank and holds its message; otherwise POLKA_OK. A failed
 * rank waits at most POLKA_NET_FAILED_WAIT, the others as long as the watchdog allows.
 */
polka_status polka_net_agree(MPI_Comm comm, polka_status local);

/**
 * The same agreement, carrying in the same allreduce each rank's wish (a small integer ≥ 0,
 * e.g. "checkpoint now"): on return *wish is the largest over the ranks. Collective.
 */
polka_status polka_net_agree_wish(MPI_Comm comm, polka_status local, int *wish);

/** Seconds a rank whose own step failed waits in polka_net_agree for the others before it
 *  gives up (they may be stuck in a library's collective call, e.g. libhdf5 flushing a run
 *  file another rank could not write); polka_net_stalled() is then true. */
#define POLKA_NET_FAILED_WAIT 15.0

/** Seconds after a stop request (a signal, polka/stop.h) that a wait on other ranks gives up
 *  (POLKA_INTERRUPTED, polka_net_stalled() true): they had that long to finish their round
 *  (at most POLKA_STOP_GRACE) and write their checkpoint, and are stuck. Every wait polls. */
#define POLKA_NET_STOP_WAIT 25.0

/**
 * Sets the watchdog (run.watchdog): every wait on a collective of a round (the exchange, the
 * status agreement) then ends after `seconds`; 0 (the default) waits forever. When it fires,
 * rank 0 names the ranks that did not report waiting within another `seconds` (rank 1 names
 * rank 0 when it is rank 0 that stopped) and polka_net_stalled() is true. Not collective.
 */
void polka_net_set_watchdog(double seconds);

/** 1 when the watchdog is on. */
int polka_net_watchdog_on(void);

/** Non-zero once a wait gave up on the other ranks (watchdog or POLKA_NET_FAILED_WAIT): the
 *  caller ends the job with MPI_Abort after printing its message, from whatever rank it is
 *  on, when this is 1 (2: another rank reports). */
int polka_net_stalled(void);

/**
 * Completes a request of a collective over (a communicator derived from) comm, with the
 * watchdog's deadline when it is on; `what` names the wait in the message. On a timeout the
 * status is POLKA_ERR_MPI and polka_net_stalled() is true; the request is abandoned.
 */
polka_status polka_net_wait(MPI_Request *request, MPI_Comm comm, const char *what);

/**
 * MPI_Allreduce and MPI_Gatherv (root 0), polled through polka_net_wait: a rank stopped or
 * hung while the others wait in a log step's reduction no longer holds them in a call that
 * polls nothing (a stop request then ends the wait after POLKA_NET_STOP_WAIT). Collective.
 * They work in a heap block of their own (the caller's buffers may go before an abandoned
 * request does; at 10⁵ agents the gather's copy is 20 MB, once a log step). No MPI_IN_PLACE;
 * counts and displacements are read on every rank (size entries each).
 */
polka_status polka_net_allreduce(const void *send, void *receive, int count, MPI_Datatype type,
                                 MPI_Op op, MPI_Comm comm, const char *what);
polka_status polka_net_gatherv(const void *send, int count, MPI_Datatype type, void *receive,
                               const int *counts, const int *displacements, MPI_Comm comm,
                               const char *what);

/** MPI_Allgatherv, polled and in a heap block of its own as polka_net_gatherv. Collective. */
polka_status polka_net_allgatherv(const void *send, int count, MPI_Datatype type, void *receive,
                                  const int *counts, const int *displacements, MPI_Comm comm,
                                  const char *what);

/** Converts an MPI return code into a polka_status with a message naming the call. */
polka_status polka_net_check(int mpi_code, const char *call);

/**
 * Makes MPI calls on comm return their error codes instead of aborting (MPI's default), so
 * that the checks after them (polka_net_check) report the error as one message. main() sets
 * it on MPI_COMM_WORLD; the communicators polka creates set it too.
 */
polka_status polka_net_errors_return(MPI_Comm comm);

/**
 * The exchange between neighbouring ranks: a distributed-graph communicator over the ranks
 * whose agents share an edge, and one MPI_Neighbor_alltoallv per phase of a round (the
 * points out, the values back). The caller packs one block per neighbouring rank.
 */
typedef struct polka_exchange_s polka_exchange;

/**
 * Collective over comm: builds the distributed-graph communicator in which this rank's
 * sources and destinations are both `ranks` (degree ranks, increasing; the relation must be
 * symmetric). The caller owns the exchange.
 */
polka_status polka_exchange_create(MPI_Comm comm, const int *ranks, int degree,
                                   polka_exchange **out);

/** Collective: frees the communicator and the exchange; NULL-safe. */
void polka_exchange_free(polka_exchange **exchange);

/**
 * Collective over the neighbourhood: sends send_counts[k] doubles to neighbour k (the blocks
 * one after the other in send, in the order of `ranks`) and receives recv_counts[k] doubles
 * from neighbour k into recv, in the same order.
 */
polka_status polka_exchange_alltoallv(polka_exchange *exchange, const double *send,
                                      const int *send_counts, double *recv, const int *recv_counts);

#endif
