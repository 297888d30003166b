/* The neighbour exchange: two neighbourhood collectives per round (DESIGN.md). */
#include <stdlib.h>
#include <string.h>

#include "polka/net.h"

struct polka_exchange_s {
    MPI_Comm comm; /* the run's: the watchdog reports there */
    MPI_Comm graph_comm;
    int degree;
    double bytes;
};

polka_status polka_exchange_create(MPI_Comm comm, const int *neighbors, int degree,
                                   polka_exchange **out) {
    polka_exchange *exchange = calloc(1, sizeof *exchange);
    POLKA_CHECK_ALLOC(exchange);
    exchange->degree = degree;
    exchange->comm = comm;
    /* Same sources and destinations, all of weight 1 (the penalty weights live in the agents;
     * an explicit array rather than MPI_UNWEIGHTED, which is a sentinel pointer), no
     * reordering: rank i stays agent i. */
    int *ones = malloc((size_t)(degree > 0 ? degree : 1) * sizeof *ones);
    if (ones == NULL) {
        free(exchange);
        return polka_error_set(POLKA_ERR_MEM, "out of memory");
    }
    for (int k = 0; k < degree; k++) ones[k] = 1;
    int code = MPI_Dist_graph_create_adjacent(comm, degree, neighbors, ones, degree, neighbors,
                                              ones, MPI_INFO_NULL, 0, &exchange->graph_comm);
    free(ones);
    polka_status status = polka_net_check(code, "MPI_Dist_graph_create_adjacent");
    if (status != POLKA_OK) {
        free(exchange);
        return status;
    }
    *out = exchange;
    return POLKA_OK;
}

void polka_exchange_free(polka_exchange **exchange) {
    if (exchange == NULL || *exchange == NULL) return;
    MPI_Comm_free(&(*exchange)->graph_comm);
    free(*exchange);
    *exchange = NULL;
}

double polka_exchange_bytes_sent(const polka_exchange *exchange) {
    return exchange->bytes;
}

/* The points to every neighbour, theirs into received: blocking, or polled against the
 * watchdog's deadline when it is on (every rank has the same setting, so the calls match). */
static polka_status exchange_points(polka_exchange *exchange, const double *payload, int count,
                                    double *received) {
    if (!polka_net_watchdog_on())
        return polka_net_check(MPI_Neighbor_allgather(payload, count, MPI_DOUBLE, received, count,
                                                      MPI_DOUBLE, exchange->graph_comm),
                               "MPI_Neighbor_allgather");
    MPI_Request request;
    POLKA_CALL(polka_net_check(MPI_Ineighbor_allgather(payload, count, MPI_DOUBLE, received, count,
                                                       MPI_DOUBLE, exchange->graph_comm, &request),
                               "MPI_Ineighbor_allgather"));
    return polka_net_wait(&request, exchange->comm, "the exchange of points");
}

/* A block of values to each neighbour and one from each (as exchange_points). */
static polka_status exchange_values(polka_exchange *exchange, const double *out, int block,
                                    double *in) {
    if (!polka_net_watchdog_on())
        return polka_net_check(MPI_Neighbor_alltoall(out, block, MPI_DOUBLE, in, block, MPI_DOUBLE,
                                                     exchange->graph_comm),
                               "MPI_Neighbor_alltoall");
    MPI_Request request;
    POLKA_CALL(polka_net_check(MPI_Ineighbor_alltoall(out, block, MPI_DOUBLE, in, block, MPI_DOUBLE,
                                                      exchange->graph_comm, &request),
                               "MPI_Ineighbor_alltoall"));
    return polka_net_wait(&request, exchange->comm, "the exchange of values");
}

polka_status polka_exchange_round(polka_exchange *exchange, const double *payload,
                                  size_t payload_len, size_t points, double *received,
                                  polka_eval_fn eval, void *context, size_t width,
                                  double *values_out, double *values_in) {
    int degree = exchange->degree;
    POLKA_CALL(exchange_points(exchange, payload, (int)payload_len, received));
    size_t stride = points ? payload_len / points : 0;
    size_t block = points * width;
    polka_status status = POLKA_OK;
    if (eval != NULL && degree > 0)
        status = eval(context, received, (size_t)degree * points, stride, values_out);
    if (eval == NULL || status != POLKA_OK)
        memset(values_out, 0, (size_t)degree * block * sizeof *values_out);
    POLKA_CALL(exchange_values(exchange, values_out, (int)block, values_in));
    exchange->bytes += (double)degree * (double)(payload_len + block) * sizeof(double);
    return status;
}
