#include "stream_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/loss.h"

struct polka_filedata_s {
    polka_read_options options;
    polka_scale_kind scale;
    polka_data_info info;
    polka_dataset rows;  /* the kept training rows, scaled */
    int64_t *row_of;     /* n: index into rows, or −1 when not kept */
    size_t *by_class;    /* rows grouped by class (skewed split) */
    size_t *class_start; /* classes + 1 offsets into by_class */
    size_t agents, batch;
    uint64_t total; /* training samples the run draws: whole rounds covering run.passes */
    long agent;
};

static polka_status read_options(const polka_config *config, const char *labels,
                                 polka_read_options *options) {
    polka_loss_kind loss;
    POLKA_CALL(polka_loss_kind_parse(config->loss, &loss));
    *options = (polka_read_options){
        .labels_path = labels[0] ? labels : NULL,
        .label_column = config->label_column,
        .regression = !polka_loss_is_classification(loss),
    };
    return polka_file_format_parse(config->format, &options->format);
}

/* Row i is drawn as network samples g = i + k·n < total, by agent (g / batch) mod agents. */
static int keep_row(void *context, uint64_t i) {
    const polka_filedata *data = context;
    if (data->agent < 0) return 1;
    for (uint64_t g = i; g < data->total; g += data->info.n)
        if ((g / data->batch) % data->agents == (uint64_t)data->agent) return 1;
    return 0;
}

static polka_status index_rows(polka_filedata *data, const uint64_t *index) {
    size_t n = data->info.n, kept = data->rows.n, classes = data->info.classes;
    data->row_of = malloc((n ? n : 1) * sizeof *data->row_of);
    data->class_start = calloc(classes + 2, sizeof *data->class_start);
    data->by_class = malloc((kept ? kept : 1) * sizeof *data->by_class);
    POLKA_CHECK(data->row_of && data->class_start && data->by_class, POLKA_ERR_MEM,
                "out of memory for the row index");
    for (size_t i = 0; i < n; i++) data->row_of[i] = -1;
    for (size_t r = 0; r < kept; r++) data->row_of[index[r]] = (int64_t)r;
    if (classes == 0) return POLKA_OK;
    for (size_t r = 0; r < kept; r++) data->class_start[(size_t)data->rows.y[r] + 1]++;
    for (size_t c = 0; c < classes; c++) data->class_start[c + 1] += data->class_start[c];
    size_t *fill = calloc(classes, sizeof *fill);
    POLKA_CHECK_ALLOC(fill);
    for (size_t r = 0; r < kept; r++) {
        size_t c = (size_t)data->rows.y[r];
        data->by_class[data->class_start[c] + fill[c]++] = r;
    }
    free(fill);
    return POLKA_OK;
}

static polka_status load(polka_filedata *data, const polka_config *config) {
    POLKA_CALL(read_options(config, config->train_labels, &data->options));
    POLKA_CALL(polka_scale_kind_parse(config->scale, &data->scale));
    POLKA_CALL(polka_data_scan(config->train, &data->options, &data->info));
    POLKA_CHECK(data->info.n > 0, POLKA_ERR_FORMAT, "%s: no training samples", config->train);
    uint64_t per_round = (uint64_t)data->agents * data->batch;
    uint64_t wanted = (uint64_t)ceil(config->passes * (double)data->info.n);
    data->total = (wanted + per_round - 1) / per_round * per_round;
    uint64_t *index = NULL;
    POLKA_CALL(polka_data_read(config->train, &data->options, &data->info, keep_row, data,
                               &data->rows, &index));
    polka_status status = polka_data_scale(&data->rows, &data->info, data->scale);
    if (status == POLKA_OK) status = index_rows(data, index);
    free(index);
    return status;
}

polka_status polka_filedata_load(const polka_config *config, size_t agents, size_t batch,
                                 long agent, polka_filedata **out) {
    polka_filedata *data = calloc(1, sizeof *data);
    POLKA_CHECK_ALLOC(data);
    data->agents = agents;
    data->batch = batch;
    data->agent = strcmp(config->split, "iid") == 0 ? agent : -1;
    polka_status status = load(data, config);
    if (status != POLKA_OK) {
        polka_filedata_free(&data);
        return status;
    }
    *out = data;
    return POLKA_OK;
}

void polka_filedata_free(polka_filedata **data) {
    if (data == NULL || *data == NULL) return;
    polka_data_info_free(&(*data)->info);
    polka_dataset_free(&(*data)->rows);
    free((*data)->row_of);
    free((*data)->by_class);
    free((*data)->class_start);
    free(*data);
    *data = NULL;
}

const polka_data_info *polka_filedata_info(const polka_filedata *data) {
    return &data->info;
}

size_t polka_filedata_rows(const polka_filedata *data) {
    return data->rows.n;
}

static void copy_row(const polka_filedata *data, size_t r, double *x, double *y) {
    memcpy(x, data->rows.x + r * data->rows.p, data->rows.p * sizeof *x);
    *y = data->rows.y[r];
}

polka_status polka_filedata_row(const polka_filedata *data, uint64_t i, double *x, double *y) {
    POLKA_CHECK(i < data->info.n && data->row_of[i] >= 0, POLKA_ERR_ARG,
                "training row %llu was not read by this rank (split mismatch)",
                (unsigned long long)i);
    copy_row(data, (size_t)data->row_of[i], x, y);
    return POLKA_OK;
}

polka_status polka_filedata_row_of_class(const polka_filedata *data, size_t c, double u, double *x,
                                         double *y) {
    size_t count = data->class_start[c + 1] - data->class_start[c];
    POLKA_CHECK(count > 0, POLKA_ERR_ARG, "class %zu has no training samples", c);
    size_t j = (size_t)(u * (double)count);
    copy_row(data, data->by_class[data->class_start[c] + (j < count ? j : count - 1)], x, y);
    return POLKA_OK;
}

polka_status polka_filedata_test(const polka_filedata *data, const polka_config *config,
                                 polka_dataset *test) {
    polka_read_options options;
    POLKA_CALL(read_options(config, config->test_labels, &options));
    POLKA_CALL(polka_data_read(config->test, &options, &data->info, NULL, NULL, test, NULL));
    return polka_data_scale(test, &data->info, data->scale);
}
