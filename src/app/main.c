/* polka: decentralized online kernel learning over MPI. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_impl.h"
#include "cmd_graph_impl.h"
#include "cmd_predict_impl.h"
#include "cmd_report_impl.h"
#include "polka/net.h"

/* The serial commands (graph, predict, report): rank 0 does the work, every rank returns
 * its exit code. */
typedef int (*serial_command)(int argc, char **argv);

static int serial_on_root(serial_command command, int argc, char **argv, MPI_Comm comm) {
    int rank = 0, code = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) code = command(argc, argv);
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    return code;
}

static serial_command find_serial(const char *name) {
    if (strcmp(name, "graph") == 0) return polka_cmd_graph;
    if (strcmp(name, "predict") == 0) return polka_cmd_predict;
    if (strcmp(name, "report") == 0) return polka_cmd_report;
    if (strcmp(name, "help") == 0) return polka_app_help;
    return NULL;
}

static int dispatch(int argc, char **argv, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (rank == 0) polka_app_print_usage();
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        if (rank == 0) polka_app_print_version();
        return 0;
    }
    if (strcmp(argv[1], "run") == 0) return polka_cmd_run(argc - 1, argv + 1, comm);
    if (strcmp(argv[1], "data") == 0) return polka_cmd_data(argc - 1, argv + 1, comm);
    serial_command command = find_serial(argv[1]);
    if (command) return serial_on_root(command, argc - 1, argv + 1, comm);
    if (rank == 0) fprintf(stderr, "polka: unknown command '%s' (see polka --help)\n", argv[1]);
    return 2;
}

int main(int argc, char **argv) {
    /* One BLAS thread per rank: agents are ranks, and their blocks are small. */
#ifdef POLKA_HAVE_OPENBLAS
    if (getenv("OPENBLAS_NUM_THREADS") == NULL) openblas_set_num_threads(1);
#endif
    MPI_Init(&argc, &argv);
    int code = polka_net_errors_return(MPI_COMM_WORLD) == POLKA_OK ? 0 : 1;
    if (code == 0) code = dispatch(argc, argv, MPI_COMM_WORLD);
    /* a wait gave up on other ranks (watchdog, or a failed rank whose peers are stuck in a
     * collective): its message is out, and only an abort ends the stuck ranks */
    if (polka_net_stalled()) MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
    MPI_Finalize();
    return code;
}
