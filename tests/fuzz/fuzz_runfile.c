/* libFuzzer: the run-file reader (src/io/runfile_read.c), as polka report and predict use it:
 * open, the metrics' last rows, the /config attributes and the first agents' models. The
 * input is written to a file in memory (tmpfs) that HDF5 opens. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "polka/runfile.h"
#include "polka/model.h"

enum { MAX_AGENTS = 1 << 16, MODELS = 4 };

static void read_metrics(const polka_runfile_reader *run) {
    static const char *const names[] = {"round",       "samples",   "test_score", "disagreement",
                                        "model_order", "wall_time", "bytes_sent"};
    size_t agents = polka_runfile_reader_agents(run);
    if (agents > MAX_AGENTS) return; /* the caller's buffer: cmd_report's concern */
    double *values = malloc((agents + 1) * sizeof *values);
    if (values == NULL) return;
    (void)polka_runfile_reader_rows(run);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (polka_runfile_reader_metric_row(run, names[k], POLKA_H5RUN_LAST, values) != POLKA_OK)
            polka_error_clear();
    free(values);
}

static void read_config(const polka_runfile_reader *run) {
    static const char *const keys[] = {"mode", "learner.kernel", "kernel", "data.classes", "seed"};
    char value[512];
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        if (polka_runfile_reader_config_string(run, keys[k], value, sizeof value) != POLKA_OK)
            polka_error_clear();
}

static void read_models(const polka_runfile_reader *run) {
    size_t agents = polka_runfile_reader_agents(run);
    for (size_t a = 0; a < agents && a < MODELS; a++) {
        polka_model *model = NULL;
        if (polka_runfile_reader_load_model(run, a, &model) == POLKA_OK)
            polka_model_free(&model);
        else
            polka_error_clear();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    polka_runfile_reader *run = NULL;
    if (polka_runfile_reader_open(fuzz_file(0, "run.h5", data, size, 0), &run) != POLKA_OK) {
        polka_error_clear();
        return 0;
    }
    read_metrics(run);
    read_config(run);
    read_models(run);
    polka_runfile_reader_close(&run);
    return 0;
}
