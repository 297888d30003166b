#include <stdio.h>
#include <string.h>

#include "app.h"
#include "polka/net.h"

static polka_status parse_args(int argc, char **argv, polka_config *config,
                               int (*extra)(const char *arg, void *context), void *context) {
    polka_config_defaults(config);
    /* The file first, whatever its position: overrides always win over it. */
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--config") == 0) {
            POLKA_CHECK(k + 1 < argc, POLKA_ERR_ARG, "--config needs a file name");
            POLKA_CALL(polka_config_load(config, argv[++k]));
        }
    }
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--config") == 0) {
            k++;
        } else if (strcmp(argv[k], "--set") == 0) {
            POLKA_CHECK(k + 1 < argc, POLKA_ERR_ARG, "--set needs section.key=value");
            POLKA_CALL(polka_config_override(config, argv[++k]));
        } else if (strcmp(argv[k], "--centralized") == 0) {
            POLKA_CALL(polka_config_set(config, "run.mode", "centralized"));
        } else if (extra == NULL || !extra(argv[k], context)) {
            return polka_error_set(POLKA_ERR_ARG, "unknown argument '%s' (see polka --help)",
                                   argv[k]);
        }
    }
    const char *why = polka_config_check(config);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    return POLKA_OK;
}

polka_status polka_app_read_config(int argc, char **argv, MPI_Comm comm, polka_config *config,
                                   int (*extra)(const char *arg, void *context), void *context) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    polka_status status = POLKA_OK;
    if (rank == 0) status = parse_args(argc, argv, config, extra, context);
    POLKA_CALL(polka_net_agree(comm, status));
    return polka_net_check(MPI_Bcast(config, (int)sizeof *config, MPI_BYTE, 0, comm), "MPI_Bcast");
}
