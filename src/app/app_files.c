/* The rule of polka/paths.h for a sub-command: the files it reads (--config files, the plan's
 * data and graph files, --resume) and those it writes, checked on rank 0 before anything is
 * opened for writing. */
#include <stdlib.h>
#include <string.h>

#include "app_impl.h"
#include "polka/net.h"
#include "polka/run_outputs.h"

static polka_status check_on_root(int argc, char **argv, const polka_plan *plan, int run,
                                  const polka_file_use *extra, size_t extra_count) {
    polka_plan_files listed;
    polka_plan_files_list(plan, &listed);
    polka_file_use *uses = malloc(((size_t)argc + POLKA_PLAN_FILES + extra_count) * sizeof *uses);
    POLKA_CHECK_ALLOC(uses);
    size_t count = 0;
    for (int k = 1; k + 1 < argc; k++)
        if (strcmp(argv[k], "--set") == 0)
            k++;
        else if (strcmp(argv[k], "--config") == 0)
            uses[count++] = (polka_file_use){.what = "--config", .path = argv[++k]};
    /* the command's own files before the plan's: a clash names its option first (predict's
     * --data before the run's data.test, when they are one file) */
    for (size_t k = 0; k < extra_count; k++) uses[count++] = extra[k];
    for (size_t k = 0; k < listed.count; k++)
        if (run || listed.uses[k].role == POLKA_FILE_INPUT) uses[count++] = listed.uses[k];
    polka_status status = polka_files_check(uses, count);
    free(uses);
    return status;
}

polka_status polka_app_check_files(int argc, char **argv, MPI_Comm comm, const polka_plan *plan,
                                   int run, const polka_file_use *extra, size_t extra_count) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    polka_status status =
        rank == 0 ? check_on_root(argc, argv, plan, run, extra, extra_count) : POLKA_OK;
    return polka_net_agree(comm, status);
}
