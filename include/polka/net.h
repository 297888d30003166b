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

#endif
