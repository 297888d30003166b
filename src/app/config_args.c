#include <stdio.h>
#include <string.h>

#include "app_impl.h"
#include "polka/net.h"
#include "polka/sim.h"

/*
 * The arguments that are not settings, on every rank: argv is the same on every rank, so
 * every rank finds the same options and the same errors without a message going round.
 */
static polka_status parse_options(int argc, char **argv, polka_extra_fn extra, void *context) {
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--config") == 0 || strcmp(argv[k], "--set") == 0) {
            POLKA_CHECK(k + 1 < argc, POLKA_ERR_ARG, "%s needs %s", argv[k],
                        argv[k][2] == 'c' ? "a file name" : "section.key=value");
            k++;
            continue;
        }
        if (strcmp(argv[k], "--centralized") == 0) continue;
        int used = extra ? extra(argv[k], context) : 0;
        if (used < 0) return POLKA_ERR_ARG; /* extra set the message */
        POLKA_CHECK(used > 0, POLKA_ERR_ARG, "unknown argument '%s' (see polka --help)", argv[k]);
    }
    return POLKA_OK;
}

/* The checkpoint of --resume FILE (or --resume=FILE), NULL when none (polka run only: the
 * other commands refuse the argument in parse_options). */
static const char *resume_path(int argc, char **argv) {
    const char *path = NULL;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--config") == 0 || strcmp(argv[k], "--set") == 0)
            k++;
        else if (strcmp(argv[k], "--resume") == 0 && k + 1 < argc)
            path = argv[++k];
        else if (strncmp(argv[k], "--resume=", 9) == 0)
            path = argv[k] + 9;
    }
    return path;
}

/* The settings on rank 0: defaults < a resumed checkpoint's < file < --set (the file first,
 * whatever its position). */
static polka_status parse_settings(int argc, char **argv, polka_plan *plan) {
    polka_config config;
    polka_config_defaults(&config);
    const char *resume = resume_path(argc, argv);
    if (resume) POLKA_CALL(polka_ckpt_resume_settings(resume, &config));
    for (int k = 1; k + 1 < argc; k++) {
        if (strcmp(argv[k], "--set") == 0)
            k++;
        else if (strcmp(argv[k], "--config") == 0)
            POLKA_CALL(polka_config_load(&config, argv[++k]));
    }
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--config") == 0)
            k++;
        else if (strcmp(argv[k], "--set") == 0)
            POLKA_CALL(polka_config_override(&config, argv[++k]));
        else if (strcmp(argv[k], "--centralized") == 0)
            POLKA_CALL(polka_config_set(&config, "run.mode", "centralized"));
    }
    return polka_plan_build(&config, plan);
}

polka_status polka_app_read_plan(int argc, char **argv, MPI_Comm comm, polka_plan *plan,
                                 polka_extra_fn extra, void *context) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    POLKA_CALL(parse_options(argc, argv, extra, context));
    polka_status status = rank == 0 ? parse_settings(argc, argv, plan) : POLKA_OK;
    POLKA_CALL(polka_net_agree(comm, status));
    /* the plan holds no pointer: it travels as bytes */
    return polka_net_check(MPI_Bcast(plan, (int)sizeof *plan, MPI_BYTE, 0, comm), "MPI_Bcast");
}
