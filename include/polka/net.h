/**
 * @file net.h
 * @brief MPI plumbing: agreeing on errors, the neighbour exchange between agents.
 *
 * net moves points and numbers; it knows nothing of kernels (DESIGN.md).
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

/** Seconds a rank whose own step failed waits in polka_net_agree for the others before it
 *  gives up (they may be stuck in a library's collective call, e.g. libhdf5 flushing a run
 *  file another rank could not write); polka_net_stalled() is then true. */
#define POLKA_NET_FAILED_WAIT 15.0

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

/** Converts an MPI return code into a polka_status with a message naming the call. */
polka_status polka_net_check(int mpi_code, const char *call);

/** The neighbour exchange of one agent over a distributed-graph communicator. */
typedef struct polka_exchange_s polka_exchange;

/**
 * Collective over comm: builds the distributed-graph communicator in which this rank's
 * sources and destinations are both `neighbors` (degree ranks, in increasing order).
 * The caller owns the exchange.
 */
polka_status polka_exchange_create(MPI_Comm comm, const int *neighbors, int degree,
                                   polka_exchange **out);

/** Collective: frees the communicator and the exchange; NULL-safe. */
void polka_exchange_free(polka_exchange **exchange);

/**
 * Evaluates "my f" at count neighbour payloads (each `stride` doubles, the point first),
 * writing `width` values per payload into values. Supplied by the caller (net knows no kernels).
 */
typedef polka_status (*polka_eval_fn)(void *context, const double *payloads, size_t count,
                                      size_t stride, double *values);

/**
 * Collective over the neighbourhood: one round of the penalty step's exchange.
 * 1. MPI_Neighbor_allgather of my `payload_len` doubles: received[k] from neighbour k;
 * 2. eval(received) gives my values at the neighbours' points (degree × per_neighbor doubles);
 * 3. MPI_Neighbor_alltoall sends each neighbour its block and returns values_in[k], neighbour
 *    k's values at my points.
 * Both collectives always run, so a failed eval (or eval == NULL: zeros are sent) never
 * leaves a neighbour waiting; the eval's status is returned.
 */
polka_status polka_exchange_round(polka_exchange *exchange, const double *payload,
                                  size_t payload_len, size_t points, double *received,
                                  polka_eval_fn eval, void *context, size_t width,
                                  double *values_out, double *values_in);

/** Bytes this rank has sent through the exchange so far. */
double polka_exchange_bytes_sent(const polka_exchange *exchange);

#endif
