#include <stdio.h>
#include <string.h>

#include "polka/net.h"

polka_status polka_net_check(int mpi_code, const char *call) {
    if (mpi_code == MPI_SUCCESS) return POLKA_OK;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(mpi_code, text, &len);
    return polka_error_set(POLKA_ERR_MPI, "%s failed: %s", call, text);
}

polka_status polka_net_agree(MPI_Comm comm, polka_status local) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = local != POLKA_OK ? rank : size, first = size;
    POLKA_CALL(
        polka_net_check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce"));
    if (first == size) return POLKA_OK;
    int code = (int)local;
    char message[1024] = {0};
    if (rank == first) snprintf(message, sizeof message, "%s", polka_error_message());
    MPI_Bcast(&code, 1, MPI_INT, first, comm);
    MPI_Bcast(message, (int)sizeof message, MPI_CHAR, first, comm);
    if (rank != first) polka_error_set((polka_status)code, "%s", message);
    return (polka_status)code;
}
