/* polka: decentralized online kernel learning over MPI. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cmd_graph.h"
#include "cmd_predict.h"
#include "cmd_report.h"
#include "polka/net.h"

static void print_usage(void) {
    printf(
        "polka %s: decentralized online learning with kernels (every MPI rank is an agent)\n\n"
        "Usage:\n"
        "  mpirun -n N polka run --config FILE [--set section.key=value ...] [--centralized]\n"
        "                        [--quiet] [--progress=auto|tty|plain|off]\n"
        "  polka data multidist -o FILE [--config FILE] [--set ...]   LIBSVM files FILE, FILE.t\n"
        "  polka data split [-o FIG.png|FILE.csv] [--config FILE] [--set ...]\n"
        "                                  per-agent class histogram of the run's training stream\n"
        "  polka graph generate --kind KIND --n N [--seed S ...] -o FILE | polka graph info FILE\n"
        "  polka predict --model RUN.h5[:AGENT] --data FILE [--labels FILE] [--format FORMAT]\n"
        "                [--output FILE]\n"
        "  polka report RUN.h5 [RUN2.h5 ...]                          summary table of run files\n"
        "  polka --help | --version\n\n"
        "With one rank (or run.mode = centralized) `polka run` is centralized POLK.\n\n",
        POLKA_VERSION);
    polka_app_print_keys();
}

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
    return NULL;
}

static int dispatch(int argc, char **argv, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (rank == 0) print_usage();
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        if (rank == 0) printf("polka %s\n", POLKA_VERSION);
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
    if (getenv("OPENBLAS_NUM_THREADS") == NULL) openblas_set_num_threads(1);
    MPI_Init(&argc, &argv);
    int code = polka_net_errors_return(MPI_COMM_WORLD) == POLKA_OK ? 0 : 1;
    if (code == 0) code = dispatch(argc, argv, MPI_COMM_WORLD);
    MPI_Finalize();
    return code;
}
