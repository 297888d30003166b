/* data.source = file: the training rows an agent needs, read once, and the test set. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/rng.h"
#include "source_impl.h"

typedef struct {
    const polka_plan *plan;
    polka_read_options options;
    polka_data_info info;
    polka_dataset rows;  /* the kept training rows, scaled */
    int64_t *row_of;     /* n: index into rows, or −1 when not kept */
    size_t *by_class;    /* rows grouped by class (class-skewed splits) */
    size_t *class_start; /* classes + 1 offsets into by_class */
    size_t agents, batch;
    uint64_t total;       /* training samples the run draws: whole rounds covering run.passes */
    unsigned char *owned; /* agents: 1 for the agents whose rows are kept; NULL: all rows */
} file_state;

static const char *file_check(const polka_plan *plan) {
    if (plan->data.train[0] == '\0' || plan->data.test[0] == '\0')
        return "data.source = file needs data.train and data.test";
    return NULL;
}

static int file_facts(const polka_plan *plan, polka_data_facts *facts) {
    (void)plan, (void)facts;
    return 0; /* the files say */
}

static polka_read_options read_options(const polka_plan *plan, const char *labels) {
    return (polka_read_options){
        .format = plan->data.format,
        .labels_path = labels[0] ? labels : NULL,
        .label_column = plan->data.label_column,
        .regression = !polka_plan_classifies(plan),
        .storage = plan->data.storage,
    };
}

/* Row i is drawn as network samples g = i + k·n < total, by agent (g / batch) mod agents. */
static int keep_row(void *context, uint64_t i) {
    const file_state *s = context;
    if (s->owned == NULL) return 1;
    for (uint64_t g = i; g < s->total; g += s->info.n)
        if (s->owned[(g / s->batch) % s->agents]) return 1;
    return 0;
}

static polka_status index_rows(file_state *s, const uint64_t *index) {
    size_t n = s->info.n, kept = s->rows.n, classes = s->info.classes;
    s->row_of = malloc((n ? n : 1) * sizeof *s->row_of);
    s->class_start = calloc(classes + 2, sizeof *s->class_start);
    s->by_class = malloc((kept ? kept : 1) * sizeof *s->by_class);
    POLKA_CHECK(s->row_of && s->class_start && s->by_class, POLKA_ERR_MEM,
                "out of memory for the row index");
    for (size_t i = 0; i < n; i++) s->row_of[i] = -1;
    for (size_t r = 0; r < kept; r++) s->row_of[index[r]] = (int64_t)r;
    if (classes == 0) return POLKA_OK;
    for (size_t r = 0; r < kept; r++) s->class_start[(size_t)s->rows.y[r] + 1]++;
    for (size_t c = 0; c < classes; c++) s->class_start[c + 1] += s->class_start[c];
    size_t *fill = calloc(classes, sizeof *fill);
    POLKA_CHECK_ALLOC(fill);
    for (size_t r = 0; r < kept; r++) {
        size_t c = (size_t)s->rows.y[r];
        s->by_class[s->class_start[c] + fill[c]++] = r;
    }
    free(fill);
    return POLKA_OK;
}

static polka_status load(file_state *s) {
    const polka_data_spec *d = &s->plan->data;
    POLKA_CALL(polka_data_scan(d->train, &s->options, &s->info));
    POLKA_CHECK(s->info.n > 0, POLKA_ERR_FORMAT, "%s: no training samples", d->train);
    const char *too_long = polka_plan_check_length(s->plan->run.passes, s->info.n);
    POLKA_CHECK(too_long == NULL, POLKA_ERR_ARG, "%s (%s has %zu samples)", too_long, d->train,
                s->info.n);
    uint64_t per_round = (uint64_t)s->agents * s->batch;
    uint64_t wanted = (uint64_t)ceil(s->plan->run.passes * (double)s->info.n);
    s->total = (wanted + per_round - 1) / per_round * per_round;
    uint64_t *index = NULL;
    POLKA_CALL(polka_data_read(d->train, &s->options, &s->info, keep_row, s, &s->rows, &index));
    polka_status status = polka_data_scale(&s->rows, &s->info, d->scale);
    if (status == POLKA_OK) status = index_rows(s, index);
    free(index);
    return status;
}

static void file_close(void *state) {
    file_state *s = state;
    if (s == NULL) return;
    polka_data_info_free(&s->info);
    polka_dataset_free(&s->rows);
    free(s->row_of);
    free(s->by_class);
    free(s->class_start);
    free(s->owned);
    free(s);
}

/*
 * Dense rows of the data's dimension the run holds at least, besides the data (counted in the
 * scan's memory check, polka_read_options.feature_bytes): each learner on this rank has its
 * batch and a dictionary of its budget (bsgd-*, nbsgd-*) or of at least one round's points.
 */
static double run_rows(const polka_plan *plan, const polka_source_layout *layout) {
    const polka_learner_spec *l = &plan->learner;
    size_t batch = l->batch, learners = layout->count ? layout->count : layout->agents;
    if (plan->run.mode == POLKA_MODE_CENTRALIZED || l->fit != POLKA_FIT_ONLINE) {
        batch = plan->run.central_batch ? plan->run.central_batch : layout->agents * l->batch;
        learners = 1;
    }
    polka_control_kind c = l->params.control;
    int budgeted = c != POLKA_CONTROL_KOMP && c != POLKA_CONTROL_NONE && c != POLKA_CONTROL_NORMA;
    size_t dictionary = budgeted && l->params.budget > batch ? l->params.budget : batch;
    return (double)learners * ((double)batch + (double)dictionary);
}

static polka_status file_open(const polka_plan *plan, const polka_source_layout *layout,
                              void **state, polka_data_facts *facts) {
    file_state *s = calloc(1, sizeof *s);
    POLKA_CHECK_ALLOC(s);
    *s = (file_state){.plan = plan, .agents = layout->agents, .batch = layout->batch};
    if (layout->count > 0) {
        s->owned = calloc(layout->agents, 1);
        if (s->owned == NULL) {
            file_close(s);
            return polka_error_set(POLKA_ERR_MEM, "out of memory for %zu agents", layout->agents);
        }
        for (size_t a = 0; a < layout->count; a++) s->owned[layout->ids[a]] = 1;
    }
    s->options = read_options(plan, plan->data.train_labels);
    double bytes = run_rows(plan, layout) * sizeof(double);
    s->options.feature_bytes = bytes < (double)SIZE_MAX ? (size_t)bytes : SIZE_MAX;
    polka_status status = load(s);
    if (status != POLKA_OK) {
        file_close(s);
        return status;
    }
    /* data.n_test follows when the test set is read */
    *facts = (polka_data_facts){s->info.p, s->info.classes, s->info.n, 0};
    *state = s;
    return POLKA_OK;
}

/* Row r of the kept rows into x (expanded when they are stored sparse) and *y. */
static void copy_row(const file_state *s, size_t r, double *x, double *y) {
    polka_dataset_row(&s->rows, r, x);
    *y = s->rows.y[r];
}

static polka_status file_sample(const void *state, size_t variant, uint64_t index, double *x,
                                double *y) {
    (void)variant;
    const file_state *s = state;
    POLKA_CHECK(index < s->info.n && s->row_of[index] >= 0, POLKA_ERR_ARG,
                "training row %llu was not read by this rank (split mismatch)",
                (unsigned long long)index);
    copy_row(s, (size_t)s->row_of[index], x, y);
    return POLKA_OK;
}

/* A uniformly drawn training row of class c, by the uniform of network sample g. */
static polka_status file_sample_class(const void *state, size_t c, uint64_t g, uint64_t index,
                                      double *x, double *y) {
    (void)index;
    const file_state *s = state;
    size_t count = s->class_start[c + 1] - s->class_start[c];
    POLKA_CHECK(count > 0, POLKA_ERR_ARG, "class %zu has no training samples", c);
    polka_rng rng = polka_rng_start(s->plan->run.seed, POLKA_STREAM_TRAIN, g);
    size_t j = (size_t)(polka_rng_uniform(&rng) * (double)count);
    copy_row(s, s->by_class[s->class_start[c] + (j < count ? j : count - 1)], x, y);
    return POLKA_OK;
}

static size_t file_rows_held(const void *state) {
    return ((const file_state *)state)->rows.n;
}

/* The whole test file, read and scaled with the training label map and statistics. */
static polka_status file_test_set(void *state, polka_dataset *test) {
    const file_state *s = state;
    const polka_data_spec *d = &s->plan->data;
    polka_read_options options = read_options(s->plan, d->test_labels);
    POLKA_CALL(polka_data_read(d->test, &options, &s->info, NULL, NULL, test, NULL));
    return polka_data_scale(test, &s->info, d->scale);
}

const polka_source_ops polka_source_file = {
    .name = "file",
    .targets = POLKA_TARGETS_FILE,
    .check = file_check,
    .planned_facts = file_facts,
    .open = file_open,
    .close = file_close,
    .sample = file_sample,
    .sample_class = file_sample_class,
    .rows_held = file_rows_held,
    .test_set = file_test_set,
};
