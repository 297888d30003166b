/* A run's outputs under temporary names, locked while it runs, renamed at its end
 * (run_outputs.h). Rank 0 does the file work; the others learn the names and the status. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polka/net.h"
#include "polka/run_outputs.h"
#include "sim/checkpoint/checkpoint_impl.h"

enum { LOCK_OUTPUT, LOCK_CSV, LOCK_CHECKPOINT };

/* The default checkpoint (polka.ckpt: neither run.output nor run.checkpoint set) is not
 * locked: runs side by side in one folder are common, and each writes it whole by a rename. */
static polka_status take_locks(polka_run_outputs *files) {
    const polka_run_spec *run = &files->plan->run;
    const char *checkpoint = files->working->run.checkpoint;
    if (run->output[0])
        POLKA_CALL(polka_lock_take(&files->locks[LOCK_OUTPUT], run->output, "run.output"));
    if (run->csv[0]) POLKA_CALL(polka_lock_take(&files->locks[LOCK_CSV], run->csv, "run.csv"));
    if (run->checkpoint[0] || run->output[0])
        POLKA_CALL(polka_lock_take(&files->locks[LOCK_CHECKPOINT], checkpoint, "run.checkpoint"));
    return POLKA_OK;
}

/* Rank 0: the locks, then the temporary files, named in the working plan. */
static polka_status prepare(polka_run_outputs *files) {
    const polka_run_spec *run = &files->plan->run;
    polka_run_spec *working = &files->working->run;
    polka_plan_checkpoint_path(files->plan, working->checkpoint, sizeof working->checkpoint);
    working->output[0] = working->csv[0] = '\0'; /* no temporary file yet: none to remove */
    POLKA_CALL(take_locks(files));
    if (run->output[0])
        POLKA_CALL(polka_temp_create(run->output, working->output, sizeof working->output));
    if (run->csv[0]) POLKA_CALL(polka_temp_create(run->csv, working->csv, sizeof working->csv));
    return POLKA_OK;
}

/* Rank 0: the temporary files removed, the locks released. */
static void discard(polka_run_outputs *files) {
    const polka_run_spec *working = &files->working->run;
    if (working->output[0]) unlink(working->output);
    if (working->csv[0]) unlink(working->csv);
}

static void drop_locks(polka_run_outputs *files) {
    for (size_t k = 0; k < POLKA_COUNT(files->locks); k++) polka_lock_drop(&files->locks[k]);
}

polka_status polka_run_outputs_open(const polka_plan *plan, MPI_Comm comm,
                                    polka_run_outputs *files) {
    *files = (polka_run_outputs){.plan = plan};
    for (size_t k = 0; k < POLKA_COUNT(files->locks); k++) files->locks[k].fd = -1;
    MPI_Comm_rank(comm, &files->rank);
    files->working = malloc(sizeof *files->working);
    polka_status status =
        files->working ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK) *files->working = *plan;
    if (status == POLKA_OK && files->rank == 0) status = prepare(files);
    if (status != POLKA_OK && files->rank == 0 && files->working) {
        discard(files);
        drop_locks(files);
    }
    status = polka_net_agree(comm, status);
    if (status == POLKA_OK)
        status = polka_net_check(
            MPI_Bcast(&files->working->run, (int)sizeof files->working->run, MPI_BYTE, 0, comm),
            "MPI_Bcast");
    if (status != POLKA_OK) {
        free(files->working);
        files->working = NULL;
    }
    return status;
}

/* Rank 0, after a success: every temporary file over its real name. */
static polka_status commit(polka_run_outputs *files) {
    const polka_run_spec *run = &files->plan->run, *working = &files->working->run;
    if (run->output[0]) POLKA_CALL(polka_temp_commit(working->output, run->output));
    if (run->csv[0]) POLKA_CALL(polka_temp_commit(working->csv, run->csv));
    return POLKA_OK;
}

/* Rank 0, after a failure in the loop: the rows logged before it stay, under the temporary
 * name, and the message says where. */
static polka_status keep_rows(polka_run_outputs *files, polka_status status) {
    const polka_run_spec *working = &files->working->run;
    const char *kept = working->output[0] ? working->output : working->csv;
    if (kept[0] == '\0') return status;
    char message[1024];
    snprintf(message, sizeof message, "%s", polka_error_message());
    return polka_error_set(status, "%s (the rows logged before it are in '%s')", message, kept);
}

polka_status polka_run_outputs_close(polka_run_outputs *files, MPI_Comm comm, polka_status status,
                                     int started) {
    if (files->working == NULL) return status;
    polka_status renamed = POLKA_OK;
    if (files->rank == 0) {
        if (status == POLKA_OK) renamed = commit(files);
        if (status == POLKA_OK && renamed != POLKA_OK) discard(files);
        if (status != POLKA_OK && started && status != POLKA_STOPPED)
            status = keep_rows(files, status);
        else if (status != POLKA_OK)
            discard(files);
        drop_locks(files);
    }
    free(files->working);
    files->working = NULL;
    /* a failed run may have lost a rank: no collective then; a run that ended well agrees on
     * rank 0's renames */
    if (status != POLKA_OK) return status;
    return polka_net_agree(comm, renamed);
}
