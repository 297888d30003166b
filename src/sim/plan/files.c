/* The files a run reads and writes, for the rule of polka/paths.h (run_outputs.h). */
#include <stdio.h>

#include "polka/run_outputs.h"
#include "sim/plan/plan_impl.h"

static void add(polka_plan_files *files, const char *what, const char *path, polka_file_role role,
                size_t longest) {
    if (files->count < POLKA_PLAN_FILES)
        files->uses[files->count++] =
            (polka_file_use){.what = what, .path = path, .role = role, .longest = longest};
}

void polka_plan_files_list(const polka_plan *plan, polka_plan_files *files) {
    files->count = 0;
    const polka_data_spec *d = &plan->data;
    if (d->source == POLKA_SOURCE_FILE) {
        add(files, "data.train", d->train, POLKA_FILE_INPUT, 0);
        add(files, "data.train_labels", d->train_labels, POLKA_FILE_INPUT, 0);
        add(files, "data.test", d->test, POLKA_FILE_INPUT, 0);
        add(files, "data.test_labels", d->test_labels, POLKA_FILE_INPUT, 0);
    }
    if (!plan->net.generated) add(files, "net.graph", plan->net.graph, POLKA_FILE_INPUT, 0);
    add(files, "--resume", plan->run.resume, POLKA_FILE_RESUME, 0);
    /* the run file is created with MPI-IO, under its temporary name */
    add(files, "run.output", plan->run.output, POLKA_FILE_OUTPUT, POLKA_PATH_MPIIO_MAX);
    add(files, "run.csv", plan->run.csv, POLKA_FILE_OUTPUT, 0);
    polka_plan_checkpoint_path(plan, files->checkpoint, sizeof files->checkpoint);
    /* so is the checkpoint (every rank writes its part of it) */
    add(files, "run.checkpoint", files->checkpoint, POLKA_FILE_CHECKPOINT, POLKA_PATH_MPIIO_MAX);
}

void polka_plan_checkpoint_path(const polka_plan *plan, char *out, size_t size) {
    if (plan->run.checkpoint[0] != '\0')
        snprintf(out, size, "%s", plan->run.checkpoint);
    else if (plan->run.output[0] != '\0') {
        /* run.output is refused past POLKA_PATH_MPIIO_MAX (the list above): this fits; a
         * name that did not would be no name, never another file's (a cut one) */
        int length = snprintf(out, size, "%s.ckpt", plan->run.output);
        if (length < 0 || (size_t)length >= size) out[0] = '\0';
    } else
        snprintf(out, size, "polka.ckpt");
}
