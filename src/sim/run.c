#include <string.h>

#include "polka/net.h"
#include "sim_impl.h"

/* Centralized mode: rank 0 learns, every rank gets the summary and the status. */
static polka_status run_centralized_on_root(const polka_config *config, MPI_Comm comm,
                                            const polka_sim_hooks *hooks,
                                            polka_sim_summary *summary) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    polka_status status = POLKA_OK;
    if (rank == 0) status = polka_sim_run_centralized(config, config->batch, hooks, summary);
    POLKA_CALL(polka_net_agree(comm, status));
    return polka_net_check(MPI_Bcast(summary, (int)sizeof *summary, MPI_BYTE, 0, comm),
                           "MPI_Bcast");
}

polka_status polka_sim_run(const polka_config *config, MPI_Comm comm, const polka_sim_hooks *hooks,
                           polka_sim_summary *summary) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    const char *why = polka_config_check(config);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    if (strcmp(config->mode, "centralized") == 0 || size == 1)
        return run_centralized_on_root(config, comm, hooks, summary);
    return polka_error_set(POLKA_ERR_ARG,
                           "decentralized runs over %d ranks are not available yet; "
                           "use one rank or run.mode = centralized",
                           size);
}
