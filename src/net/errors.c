/* MPI errors as return codes, so that polka_net_check() can report them (as PETSc does). */
#include "polka/net.h"

polka_status polka_net_errors_return(MPI_Comm comm) {
    return polka_net_check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN),
                           "MPI_Comm_set_errhandler");
}
