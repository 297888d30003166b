/* polka predict: a trained model from a run file, applied to a data file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_impl.h"
#include "cmd_predict_impl.h"
#include "polka/dataio.h"
#include "polka/runfile.h"
#include "polka/loss.h"
#include "polka/paths.h"
#include "polka/sim.h"

typedef struct {
    const char *model, *data, *labels, *output, *format, *read_timeout;
    unsigned timeout; /* seconds, from read_timeout */
} predict_args;

static void print_usage(void) {
    fprintf(stderr,
            "usage: polka predict --model RUN.h5[:AGENT] --data FILE [--labels FILE] "
            "[--format FORMAT] [--output FILE] [--read-timeout S]\n"
            "  applies agent AGENT's model (default 0) of a run file to FILE (read like the\n"
            "  run's test set: its data.format unless --format, label map and scaling), prints\n"
            "  the score the run logs (accuracy, mse or flagged) and the mean loss, and writes\n"
            "  one prediction per line to --output (labels as in the data file); reading the\n"
            "  run file fails after S seconds (default %d, 0: never), as a damaged HDF5 file\n"
            "  can make libhdf5 loop\n",
            POLKA_READ_TIMEOUT_DEFAULT);
}

/* The option's slot in args, or NULL for an unknown option. */
static const char **option_slot(const char *name, predict_args *args) {
    return strcmp(name, "--model") == 0          ? &args->model
           : strcmp(name, "--data") == 0         ? &args->data
           : strcmp(name, "--labels") == 0       ? &args->labels
           : strcmp(name, "--output") == 0       ? &args->output
           : strcmp(name, "--format") == 0       ? &args->format
           : strcmp(name, "--read-timeout") == 0 ? &args->read_timeout
                                                 : NULL;
}

static polka_status parse(int argc, char **argv, predict_args *args) {
    for (int k = 1; k < argc; k++) {
        const char **slot = option_slot(argv[k], args);
        POLKA_CHECK(slot != NULL, POLKA_ERR_ARG, "unknown argument '%s' (see polka --help)",
                    argv[k]);
        POLKA_CHECK(k + 1 < argc, POLKA_ERR_ARG, "option %s needs a value", argv[k]);
        *slot = argv[++k];
    }
    POLKA_CHECK(args->model != NULL && args->data != NULL, POLKA_ERR_ARG,
                "needs --model RUN.h5 and --data FILE");
    polka_file_format format;
    if (args->format) POLKA_CALL(polka_file_format_parse(args->format, &format));
    args->timeout = POLKA_READ_TIMEOUT_DEFAULT;
    if (args->read_timeout)
        POLKA_CALL(polka_app_read_timeout_parse(args->read_timeout, &args->timeout));
    return POLKA_OK;
}

/* The run's configuration, key by key from /config (keys a file lacks keep their defaults),
 * checked as `polka run` checks it. */
static polka_status run_plan(const polka_runfile_reader *run, const char *path, polka_plan *plan) {
    polka_config settings, *config = &settings;
    polka_config_defaults(config);
    size_t count = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    for (size_t k = 0; k < count; k++) {
        char value[POLKA_PATH_LEN];
        if (polka_runfile_reader_config_string(run, keys[k].name, value, sizeof value) != POLKA_OK)
            continue;
        if (polka_config_set(config, keys[k].name, value) != POLKA_OK)
            return polka_error_set(POLKA_ERR_FORMAT, "run file '%s': /config: %s", path,
                                   polka_error_message());
    }
    if (polka_plan_build(config, plan) != POLKA_OK)
        return polka_error_set(POLKA_ERR_FORMAT, "run file '%s': /config: %s", path,
                               polka_error_message());
    return POLKA_OK;
}

/* "RUN.h5:3" → path "RUN.h5", agent 3. */
static polka_status split_model(const char *spec, char *path, size_t size, size_t *agent) {
    const char *colon = strrchr(spec, ':');
    *agent = 0;
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (colon) {
        char *end = NULL;
        unsigned long value = strtoul(colon + 1, &end, 10);
        POLKA_CHECK(colon[1] != '\0' && *end == '\0', POLKA_ERR_ARG,
                    "--model: '%s' after ':' is not an agent number", colon + 1);
        *agent = value;
    }
    POLKA_CHECK(len < size, POLKA_ERR_ARG, "--model: path too long");
    memcpy(path, spec, len);
    path[len] = '\0';
    return POLKA_OK;
}

/* The rule of polka/paths.h before anything is written: --output names none of the files
 * read (the run file, --data, --labels, the run's data and graph files), however spelled. */
static polka_status check_files(const predict_args *args, const char *model,
                                const polka_plan *plan) {
    const polka_file_use uses[] = {
        {.what = "--model", .path = model, .role = POLKA_FILE_INPUT},
        {.what = "--data", .path = args->data, .role = POLKA_FILE_INPUT},
        {.what = "--labels", .path = args->labels, .role = POLKA_FILE_INPUT},
        {.what = "--output", .path = args->output, .role = POLKA_FILE_OUTPUT},
    };
    return polka_app_check_files(0, NULL, MPI_COMM_SELF, plan, 0, uses, POLKA_COUNT(uses));
}

typedef struct {
    const double *predictions, *class_labels;
    size_t n, classes;
} prediction_list;

/* One prediction per line: the file's label of a class index (classes > 0), else the value. */
static polka_status write_predictions(const char *path, void *context) {
    const prediction_list *list = context;
    FILE *file = fopen(path, "w");
    POLKA_CHECK(file != NULL, POLKA_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    for (size_t i = 0; i < list->n; i++) {
        double value = list->predictions[i];
        fprintf(file, "%.17g\n", list->classes ? list->class_labels[(size_t)value] : value);
    }
    int failed = ferror(file) | (fclose(file) != 0);
    POLKA_CHECK(!failed, POLKA_ERR_IO, "error while writing '%s'", path);
    return POLKA_OK;
}

/* --output, written under a temporary name renamed over it when whole (polka/paths.h). */
static polka_status save_predictions(const char *path, const prediction_list *list) {
    for (size_t i = 0; i < list->n; i++)
        POLKA_CHECK(list->classes == 0 || list->predictions[i] < (double)list->classes,
                    POLKA_ERR_ARG, "prediction %zu is class %g of %zu", i, list->predictions[i],
                    list->classes);
    return polka_write_through_temp(path, write_predictions, (void *)list);
}

/* An agent's saved model, of either kind (runfile.h). */
typedef struct {
    polka_model *kernel; /* a kernel expansion, or NULL */
    polka_rff rff;       /* else random features and θ (D × outputs) */
    double *theta;
    size_t outputs;
} saved_model;

static polka_status load_model(const polka_runfile_reader *run, const char *path, size_t agent,
                               saved_model *m) {
    POLKA_CHECK(agent < polka_runfile_reader_agents(run), POLKA_ERR_ARG,
                "%s has %zu agents, no agent %zu", path, polka_runfile_reader_agents(run), agent);
    polka_runfile_reader_models kind;
    POLKA_CALL(polka_runfile_reader_models_kind(run, &kind));
    if (kind == POLKA_H5RUN_MODELS_RFF)
        return polka_runfile_reader_load_rff(run, agent, &m->rff, &m->theta, &m->outputs);
    return polka_runfile_reader_load_model(run, agent, &m->kernel);
}

/* The agent's own loss margins as its run ended, where the file has them (learner.nu > 0
 * adapts them per agent; the settings hold the values they started from). */
static polka_status use_margins(const polka_runfile_reader *run, size_t agent, polka_plan *plan) {
    double rho = 0.0, tube = 0.0;
    int found = 0;
    POLKA_CALL(polka_runfile_reader_margins(run, agent, &rho, &tube, &found));
    if (found) plan->learner.params.loss.rho = rho, plan->learner.params.loss.epsilon = tube;
    return POLKA_OK;
}

static void free_model(saved_model *m) {
    polka_model_free(&m->kernel);
    polka_rff_free(&m->rff);
    free(m->theta);
}

static polka_status predict_with(const polka_plan *plan, const saved_model *m,
                                 const polka_dataset *data, double *predictions, double *score,
                                 double *loss) {
    if (m->kernel) return polka_metrics_predict(plan, m->kernel, data, predictions, score, loss);
    return polka_metrics_predict_rff(plan, &m->rff, m->theta, m->outputs, data, predictions, score,
                                     loss);
}

/* "model order M" or "D random features". */
static void describe_model(const saved_model *m, char *text, size_t size) {
    if (m->kernel)
        snprintf(text, size, "model order %zu", polka_model_order(m->kernel));
    else
        snprintf(text, size, "%zu random features", m->rff.features);
}

static polka_status predict(const predict_args *args) {
    char path[POLKA_PATH_LEN];
    size_t agent = 0;
    POLKA_CALL(split_model(args->model, path, sizeof path, &agent));
    polka_runfile_reader *run = NULL;
    polka_plan plan;
    saved_model model = {0};
    polka_dataset data = {0};
    double *labels = NULL, *predictions = NULL;
    polka_app_read_deadline("predict", path, args->timeout);
    polka_status status = polka_runfile_reader_open(path, &run);
    if (status == POLKA_OK) status = run_plan(run, path, &plan);
    if (status == POLKA_OK) status = load_model(run, path, agent, &model);
    if (status == POLKA_OK) status = use_margins(run, agent, &plan);
    polka_app_read_done();
    if (status == POLKA_OK) status = check_files(args, path, &plan);
    if (status == POLKA_OK)
        status = polka_metrics_read_like_run(&plan, args->data, args->labels, args->format, &data,
                                             &labels);
    if (status == POLKA_OK &&
        (predictions = malloc((data.n ? data.n : 1) * sizeof *predictions)) == NULL)
        status = polka_error_set(POLKA_ERR_MEM, "out of memory");
    double score = 0.0, loss = 0.0;
    if (status == POLKA_OK) status = predict_with(&plan, &model, &data, predictions, &score, &loss);
    if (status == POLKA_OK) {
        char what[64];
        describe_model(&model, what, sizeof what);
        printf("%s %.17g on %zu samples of %s (agent %zu of %s, %s), mean loss %.6g\n",
               polka_loss_score_name(plan.learner.params.loss.kind), score, data.n, args->data,
               agent, path, what, loss);
        prediction_list list = {predictions, labels, data.n, data.classes};
        if (args->output) status = save_predictions(args->output, &list);
    }
    free(predictions);
    free(labels);
    polka_dataset_free(&data);
    free_model(&model);
    polka_runfile_reader_close(&run);
    return status;
}

int polka_cmd_predict(int argc, char **argv) {
    predict_args args = {0};
    if (parse(argc, argv, &args) != POLKA_OK) {
        fprintf(stderr, "polka predict: %s\n\n", polka_error_message());
        print_usage();
        return 2;
    }
    if (predict(&args) != POLKA_OK) {
        fprintf(stderr, "polka predict: %s\n", polka_error_message());
        return 1;
    }
    return 0;
}
