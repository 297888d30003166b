/**
 * @file run_outputs.h
 * @brief The files a run reads and writes (for the rule of polka/paths.h), and its outputs
 * written under temporary names, locked, and renamed at the end.
 */
#ifndef POLKA_RUN_OUTPUTS_H
#define POLKA_RUN_OUTPUTS_H

#include <mpi.h>

#include "polka/paths.h"
#include "polka/plan.h"

/** At most this many files in a plan's list. */
#define POLKA_PLAN_FILES 10

/** The files of a plan: data files, graph file and --resume read; run file, CSV and
 * checkpoint written. */
typedef struct {
    polka_file_use uses[POLKA_PLAN_FILES];
    size_t count;
    char checkpoint[POLKA_PATH_LEN]; /**< the checkpoint's path (run.checkpoint or its default) */
} polka_plan_files;

/** Lists plan's files in *files (which the uses point into, with plan's strings). */
void polka_plan_files_list(const polka_plan *plan, polka_plan_files *files);

/** A run's outputs while it runs (rank 0 holds the locks and renames). */
typedef struct {
    polka_plan *working; /**< the plan with the temporary names in run.output and run.csv */
    const polka_plan *plan;
    polka_lock locks[3]; /**< run file, CSV, checkpoint (rank 0) */
    int rank;
} polka_run_outputs;

/**
 * Collective, before anything is written: rank 0 takes the locks of run.output, run.csv and
 * a named run.checkpoint, and creates the temporary files of run.output and run.csv; every
 * rank gets files->working, the plan to run with (run.checkpoint resolved).
 */
polka_status polka_run_outputs_open(const polka_plan *plan, MPI_Comm comm,
                                    polka_run_outputs *files);

/**
 * Collective, after the run with its status: on POLKA_OK the temporary files are renamed
 * over the real names; on a stop (POLKA_STOPPED: the checkpoint holds the rows) or a failure
 * before the run's loop they are removed; after a failure in the loop (started) they are
 * kept and the message says where the rows logged before it are. The locks are released.
 * Returns the run's status, or the renaming's failure, on every rank.
 */
polka_status polka_run_outputs_close(polka_run_outputs *files, MPI_Comm comm, polka_status status,
                                     int started);

#endif
