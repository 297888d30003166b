/* polka data: write a generated data set in LIBSVM format (train FILE, test FILE.t). */
#include <stdio.h>
#include <string.h>

#include "app_impl.h"
#include "polka/paths.h"
#include "polka/data.h"
#include "polka/net.h"
#include "polka/sim.h"

typedef struct {
    const char *output;
    int expect_output;
} data_options;

static int data_extra(const char *arg, void *context) {
    data_options *options = context;
    if (options->expect_output) {
        options->output = arg;
        options->expect_output = 0;
        return 1;
    }
    if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
        options->expect_output = 1;
        return 1;
    }
    return 0;
}

static polka_status write_set(const char *path, void *set) {
    return polka_dataset_write_libsvm(set, path);
}

static polka_status write_multidist(const polka_plan *plan, const char *output) {
    const polka_data_spec *data = &plan->data;
    polka_multidist_params params = polka_stream_multidist_params(plan);
    polka_multidist *gen = NULL;
    POLKA_CALL(polka_multidist_create(&params, &gen));
    polka_dataset train = {0}, test = {0};
    polka_status status = polka_dataset_alloc(&train, data->n_train, data->dim, data->classes);
    if (status == POLKA_OK)
        status = polka_dataset_alloc(&test, data->n_test, data->dim, data->classes);
    if (status == POLKA_OK) {
        polka_multidist_fill(gen, POLKA_STREAM_TRAIN, 0, &train);
        polka_multidist_fill(gen, POLKA_STREAM_TEST, 0, &test);
        if (data->unit_norm) /* the samples a run with these settings learns from (dense) */
            status = polka_dataset_unit_norm(&train, output);
        if (status == POLKA_OK && data->unit_norm) status = polka_dataset_unit_norm(&test, output);
        if (status == POLKA_OK) status = polka_write_through_temp(output, write_set, &train);
    }
    char test_path[POLKA_PATH_LEN + 3];
    snprintf(test_path, sizeof test_path, "%s.t", output);
    if (status == POLKA_OK) status = polka_write_through_temp(test_path, write_set, &test);
    polka_dataset_free(&train);
    polka_dataset_free(&test);
    polka_multidist_free(&gen);
    return status;
}

/* The one line naming the bad or missing data set, then the usage; on rank 0 only. */
static void usage_error(const char *name) {
    if (name == NULL)
        fprintf(stderr, "polka data: missing the data set (multidist) or split\n\n");
    else
        fprintf(stderr, "polka data: unknown data set '%s' (multidist, split)\n\n", name);
    fprintf(stderr,
            "usage: polka data multidist -o FILE [--config FILE] [--set ...]\n"
            "       polka data split [-o FIG.png | FILE.csv] [--config FILE] [--set ...]\n");
}

/* Collective: the outputs of -o against the inputs and each other (polka/paths.h). */
static polka_status check_outputs(int argc, char **argv, MPI_Comm comm, const polka_plan *plan,
                                  int split, const char *output) {
    char second[POLKA_PATH_LEN + 8] = "";
    polka_status status = POLKA_OK;
    if (split)
        status = polka_data_split_outputs(output, second, sizeof second);
    else if (output != NULL)
        snprintf(second, sizeof second, "%s.t", output);
    if (status != POLKA_OK) return status; /* the same on every rank: argv is */
    polka_file_use uses[] = {{.what = "-o", .path = output, .role = POLKA_FILE_OUTPUT},
                             {.what = split ? "-o (its CSV)" : "-o (its test set)",
                              .path = strcmp(second, output ? output : "") ? second : "",
                              .role = POLKA_FILE_OUTPUT}};
    return polka_app_check_files(argc, argv, comm, plan, 0, uses, POLKA_COUNT(uses));
}

int polka_cmd_data(int argc, char **argv, MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int split = argc >= 2 && strcmp(argv[1], "split") == 0;
    if (argc < 2 || (!split && strcmp(argv[1], "multidist") != 0)) {
        if (rank == 0) usage_error(argc < 2 ? NULL : argv[1]);
        return 2;
    }
    polka_plan plan;
    data_options options = {0};
    polka_status status =
        polka_app_read_plan(argc - 1, argv + 1, comm, &plan, data_extra, &options);
    if (status == POLKA_OK && options.output && strlen(options.output) >= POLKA_PATH_LEN)
        status = polka_error_set(POLKA_ERR_ARG, "-o: path too long");
    if (status == POLKA_OK)
        status = check_outputs(argc - 1, argv + 1, comm, &plan, split, options.output);
    if (status == POLKA_OK && rank == 0 && split) {
        status = polka_data_split(&plan, size, options.output);
    } else if (status == POLKA_OK && rank == 0) {
        if (options.output == NULL)
            status = polka_error_set(POLKA_ERR_ARG, "polka data multidist needs -o FILE");
        else if (plan.data.source != POLKA_SOURCE_MULTIDIST)
            status = polka_error_set(POLKA_ERR_ARG,
                                     "polka data multidist writes multidist points, but "
                                     "data.source = %s",
                                     polka_source_kind_name(plan.data.source));
        else
            status = write_multidist(&plan, options.output);
    }
    status = polka_net_agree(comm, status);
    if (status != POLKA_OK) {
        if (rank == 0) fprintf(stderr, "polka data: %s\n", polka_error_message());
        return 1;
    }
    if (rank == 0 && !split)
        printf("wrote %s (%zu training points) and %s.t (%zu test points)\n", options.output,
               plan.data.n_train, options.output, plan.data.n_test);
    return 0;
}
