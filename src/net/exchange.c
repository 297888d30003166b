/* The exchange between neighbouring ranks: one neighbourhood alltoallv per phase. */
#include <stdlib.h>
#include <string.h>

#include "polka/net.h"

struct polka_exchange_s {
    MPI_Comm comm;       /* the run's: the watchdog reports there */
    MPI_Comm graph_comm; /* the ranks' neighbourhood */
    int degree;
    int *send_displs, *recv_displs; /* degree each: prefix sums of the counts */
};

static polka_status create_comm(MPI_Comm comm, const int *ranks, int degree,
                                polka_exchange *exchange) {
    /* Same sources and destinations, all of weight 1 (an explicit array rather than
     * MPI_UNWEIGHTED, which is a sentinel pointer), no reordering: ranks keep their agents. */
    int *ones = malloc((size_t)(degree > 0 ? degree : 1) * sizeof *ones);
    POLKA_CHECK_ALLOC(ones);
    for (int k = 0; k < degree; k++) ones[k] = 1;
    int code = MPI_Dist_graph_create_adjacent(comm, degree, ranks, ones, degree, ranks, ones,
                                              MPI_INFO_NULL, 0, &exchange->graph_comm);
    free(ones);
    POLKA_CALL(polka_net_check(code, "MPI_Dist_graph_create_adjacent"));
    polka_status status = polka_net_errors_return(exchange->graph_comm);
    if (status != POLKA_OK) MPI_Comm_free(&exchange->graph_comm);
    return status;
}

polka_status polka_exchange_create(MPI_Comm comm, const int *ranks, int degree,
                                   polka_exchange **out) {
    polka_exchange *exchange = calloc(1, sizeof *exchange);
    POLKA_CHECK_ALLOC(exchange);
    exchange->degree = degree;
    exchange->comm = comm;
    exchange->graph_comm = MPI_COMM_NULL;
    size_t slots = (size_t)(degree > 0 ? degree : 1);
    exchange->send_displs = malloc(slots * sizeof *exchange->send_displs);
    exchange->recv_displs = malloc(slots * sizeof *exchange->recv_displs);
    polka_status status = exchange->send_displs && exchange->recv_displs
                              ? create_comm(comm, ranks, degree, exchange)
                              : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status != POLKA_OK) {
        polka_exchange_free(&exchange);
        return status;
    }
    *out = exchange;
    return POLKA_OK;
}

void polka_exchange_free(polka_exchange **exchange) {
    if (exchange == NULL || *exchange == NULL) return;
    if ((*exchange)->graph_comm != MPI_COMM_NULL) MPI_Comm_free(&(*exchange)->graph_comm);
    free((*exchange)->send_displs);
    free((*exchange)->recv_displs);
    free(*exchange);
    *exchange = NULL;
}

polka_status polka_exchange_alltoallv(polka_exchange *exchange, const double *send,
                                      const int *send_counts, double *recv,
                                      const int *recv_counts) {
    int sent = 0, received = 0;
    for (int k = 0; k < exchange->degree; k++) {
        exchange->send_displs[k] = sent;
        exchange->recv_displs[k] = received;
        sent += send_counts[k];
        received += recv_counts[k];
    }
    /* polled (polka_net_wait), never blocking: the watchdog's deadline and a stop request end
     * the wait; on a busy machine the polling, which naps, is also the faster */
    MPI_Request request;
    POLKA_CALL(polka_net_check(MPI_Ineighbor_alltoallv(send, send_counts, exchange->send_displs,
                                                       MPI_DOUBLE, recv, recv_counts,
                                                       exchange->recv_displs, MPI_DOUBLE,
                                                       exchange->graph_comm, &request),
                               "MPI_Ineighbor_alltoallv"));
    return polka_net_wait(&request, exchange->comm, "the exchange with the neighbouring ranks");
}
