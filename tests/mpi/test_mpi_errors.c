/*
 * MPI errors come back as codes and become one polka message: with polka_net_errors_return
 * an invalid call returns MPI_ERR_* to polka_net_check instead of aborting every rank (MPI's
 * default handler). Run with mpiexec -n K; exit 0 when every rank got the message.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "polka/net.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, value = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ok = polka_net_errors_return(MPI_COMM_WORLD) == POLKA_OK;
    /* a root that is no rank: invalid on every rank alike */
    polka_status status =
        polka_net_check(MPI_Bcast(&value, 1, MPI_INT, size + 3, MPI_COMM_WORLD), "MPI_Bcast");
    ok = ok && status == POLKA_ERR_MPI && strstr(polka_error_message(), "MPI_Bcast failed");
    if (!ok) fprintf(stderr, "rank %d: status %d: %s\n", rank, (int)status, polka_error_message());
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %s\n", all ? "ok" : "FAIL", polka_error_message());
    MPI_Finalize();
    return all ? 0 : 1;
}
