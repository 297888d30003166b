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
 * status of the lowest failing rank and holds its message; otherwise POLKA_OK.
 */
polka_status polka_net_agree(MPI_Comm comm, polka_status local);

/** Converts an MPI return code into a polka_status with a message naming the call. */
polka_status polka_net_check(int mpi_code, const char *call);

/**
 * Makes MPI calls on comm return their error codes instead of aborting (MPI's default), so
 * that the checks after them (polka_net_check) report the error as one message. main() sets
 * it on MPI_COMM_WORLD; the communicators polka creates set it too.
 */
polka_status polka_net_errors_return(MPI_Comm comm);

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
