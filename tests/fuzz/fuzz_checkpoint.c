/* libFuzzer: the checkpoint reader (src/sim/checkpoint/checkpoint_read.c and the restore of
 * src/core/learner_state.c), as a resume uses it. The input is a flags byte, then the file: bit
 * 0 set checks the digest first (what polka run does); clear, the digest is skipped, so that
 * the fuzzer, which cannot forge a 64-bit hash, reaches the checks behind it. The harness opens
 * the file, takes its settings into a plan, opens it as a resume of that plan (settings, input
 * files, agents), reads its metric rows and restores its first agents into learners and
 * counters, and aborts when an HDF5 id is left open. No MPI: a checkpoint is read by each rank
 * alone. */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "polka/memory.h"
#include "sim/checkpoint/resume_impl.h"

enum { AGENTS = 4, MAX_DIM = 64, MAX_CLASSES = 32, MAX_BUDGET = 100000 };

/* A learner of the plan's, as a multidist run of it would create (bounded: the learner's own
 * allocations are the configuration's concern, not the checkpoint's). */
static polka_learner *plan_learner(const polka_plan *plan) {
    const polka_data_spec *data = &plan->data;
    polka_learner_params params = plan->learner.params;
    if (data->dim == 0 || data->dim > MAX_DIM || data->classes > MAX_CLASSES ||
        params.budget > MAX_BUDGET)
        return NULL;
    params.horizon = 1000;
    polka_learner *learner = NULL;
    if (polka_learner_create(&params, data->dim, data->classes, &learner) != POLKA_OK) {
        polka_error_clear();
        return NULL;
    }
    return learner;
}

static void restore_agent(const polka_ckpt *ckpt, const polka_plan *plan, size_t agent) {
    polka_state *state = NULL;
    if (polka_ckpt_agent(ckpt, agent, &state) != POLKA_OK) {
        polka_error_clear();
        return;
    }
    polka_learner *learner = plan_learner(plan);
    polka_agent_counters counters;
    if (learner && polka_learner_restore(learner, state) != POLKA_OK) polka_error_clear();
    if (polka_counters_restore(&counters, state) != POLKA_OK) polka_error_clear();
    polka_learner_free(&learner);
    polka_state_free(&state);
}

/* The checkpoint opened as a resume of the plan its settings make. */
static void resume(const char *path, const polka_config *config, size_t agents, int verify) {
    static polka_plan plan;
    if (polka_plan_build(config, &plan) != POLKA_OK) {
        polka_error_clear();
        return;
    }
    snprintf(plan.run.resume, sizeof plan.run.resume, "%s", path);
    polka_ckpt *ckpt = NULL;
    if (polka_ckpt_open_checked(&plan, agents, verify, &ckpt) != POLKA_OK) {
        polka_error_clear();
        return;
    }
    const polka_history *rows = NULL;
    if (polka_ckpt_history(ckpt, &rows) != POLKA_OK)
        polka_error_clear();
    else if (rows->rows > 0 && rows->width > 0 && rows->width <= ((size_t)1 << 16)) {
        double *row = malloc(rows->width * sizeof *row); /* rows are read when replayed */
        for (size_t r = 0; row && r < rows->rows && r < 4; r++)
            if (polka_history_row(rows, r, row) != POLKA_OK) polka_error_clear();
        free(row);
    }
    for (size_t a = 0; a < agents && a < AGENTS; a++) restore_agent(ckpt, &plan, a);
    polka_ckpt_close(&ckpt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int limited;
    if (!limited) polka_data_memory_share((size_t)1 << 30, 1); /* below -malloc_limit_mb */
    limited = 1;
    if (size < 1) return 0;
    int verify = data[0] & 1;
    const char *path = fuzz_file(0, "checkpoint.h5", data + 1, size - 1, 0);
    polka_ckpt *ckpt = NULL;
    if (polka_ckpt_open_file(path, verify, &ckpt) != POLKA_OK) {
        polka_error_clear();
        return 0;
    }
    polka_config config;
    polka_config_defaults(&config);
    polka_status status = polka_ckpt_apply_settings(ckpt, &config);
    size_t agents = polka_ckpt_agents(ckpt);
    polka_ckpt_close(&ckpt);
    if (status == POLKA_OK)
        resume(path, &config, agents, verify);
    else
        polka_error_clear();
    /* every HDF5 id polka opened is closed (one left open keeps the file's memory: a leak that
     * would look like libhdf5's own) */
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) abort();
    return 0;
}
