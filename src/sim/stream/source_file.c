/* data.source = file: the training rows an agent needs, read once, and the test set. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/rng.h"
#include "sim/stream/source_impl.h"

typedef struct {
    const polka_plan *plan;
    polka_read_options options;
    polka_data_info info; /* the scan (with every row's class until the rows are read) */
    polka_dataset rows;   /* the kept training rows, scaled */
    int64_t *row_of;      /* n: index into rows, or −1 when not kept */
    /* Classes: the j-th row of class c (file order) is class_row[class_start[c] + j], a file
     * position until the rows are read, then an index into rows or −1 when not kept. */
    int64_t *class_row;
    size_t *class_start; /* classes + 1 offsets into class_row */
    size_t agents, batch;
    uint64_t total;        /* training samples the run draws: whole rounds covering run.passes */
    unsigned char *owned;  /* agents: 1 for the agents whose rows are kept; NULL: all rows */
    unsigned char *wanted; /* n, while the rows are read: 1 for the rows the agents draw */
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
        .scan_chunk = plan->data.scan_chunk,
    };
}

/* Which of the n_c rows of class c network sample g draws: j = ⌊u·n_c⌋, u of (seed, TRAIN, g). */
static size_t class_pick(const file_state *s, size_t c, uint64_t g) {
    size_t count = s->class_start[c + 1] - s->class_start[c];
    polka_rng rng = polka_rng_start(s->plan->run.seed, POLKA_STREAM_TRAIN, g);
    size_t j = (size_t)(polka_rng_uniform(&rng) * (double)count);
    return j < count ? j : count - 1;
}

/* The rows of each class in file order (class_row holds file positions), from the scan's row
 * classes (none unless the split draws by class). */
static polka_status index_classes(file_state *s) {
    size_t n = s->info.n, classes = s->info.classes;
    if (classes == 0 || s->info.row_class == NULL) return POLKA_OK;
    s->class_start = calloc(classes + 1, sizeof *s->class_start);
    s->class_row = malloc(n * sizeof *s->class_row);
    size_t *fill = calloc(classes, sizeof *fill);
    polka_status status = POLKA_OK;
    if (s->class_start && s->class_row && fill) {
        for (size_t i = 0; i < n; i++) s->class_start[polka_data_row_class(&s->info, i) + 1]++;
        for (size_t c = 0; c < classes; c++) s->class_start[c + 1] += s->class_start[c];
        for (size_t i = 0; i < n; i++) {
            size_t c = polka_data_row_class(&s->info, i);
            s->class_row[s->class_start[c] + fill[c]++] = (int64_t)i;
        }
    } else {
        status = polka_error_set(POLKA_ERR_MEM, "out of memory for the classes of %zu rows", n);
    }
    free(fill);
    return status;
}

/* The file position of the row agent a's network sample g draws (class_row as positions). */
static uint64_t drawn_row(const file_state *s, const polka_draw *draw, size_t agent, uint64_t g) {
    size_t c = draw->split->class_of ? draw->split->class_of(draw, agent, g) : POLKA_NO_CLASS;
    if (c == POLKA_NO_CLASS) return g % s->info.n;
    if (s->class_start[c + 1] == s->class_start[c]) return UINT64_MAX; /* an error when drawn */
    return (uint64_t)s->class_row[s->class_start[c] + class_pick(s, c, g)];
}

/* Marks the rows the owned agents draw in their samples g < total. */
static polka_status mark_wanted(file_state *s, const polka_draw *draw) {
    s->wanted = calloc(s->info.n, 1);
    POLKA_CHECK(s->wanted, POLKA_ERR_MEM, "out of memory for %zu row flags", s->info.n);
    uint64_t rounds = s->total / ((uint64_t)s->agents * s->batch);
    for (uint64_t t = 0; t < rounds; t++)
        for (size_t a = 0; a < s->agents; a++) {
            if (!s->owned[a]) continue;
            uint64_t first = (t * s->agents + a) * s->batch;
            for (uint64_t g = first; g < first + s->batch; g++) {
                uint64_t i = drawn_row(s, draw, a, g);
                if (i < s->info.n) s->wanted[i] = 1;
            }
        }
    return POLKA_OK;
}

static int keep_row(void *context, uint64_t i) {
    const file_state *s = context;
    return s->wanted == NULL || s->wanted[i];
}

/* row_of from the kept rows' file positions; class_row's positions become kept rows. */
static polka_status index_rows(file_state *s, const uint64_t *index) {
    size_t n = s->info.n, kept = s->rows.n;
    s->row_of = malloc(n * sizeof *s->row_of);
    POLKA_CHECK(s->row_of, POLKA_ERR_MEM, "out of memory for the index of %zu rows", n);
    for (size_t i = 0; i < n; i++) s->row_of[i] = -1;
    for (size_t r = 0; r < kept; r++) s->row_of[index[r]] = (int64_t)r;
    if (s->class_row)
        for (size_t k = 0; k < n; k++) s->class_row[k] = s->row_of[s->class_row[k]];
    return POLKA_OK;
}

/* The second step of open: the rows the agents draw (all when no agents are named). */
static polka_status file_load(void *state, const polka_draw *draw) {
    file_state *s = state;
    POLKA_CALL(index_classes(s));
    if (s->owned) POLKA_CALL(mark_wanted(s, draw));
    free(s->info.row_class); /* the classes are in class_row now */
    s->info.row_class = NULL;
    uint64_t *index = NULL;
    const polka_data_spec *d = &s->plan->data;
    polka_status status =
        polka_data_read(d->train, &s->options, &s->info, keep_row, s, &s->rows, &index);
    free(s->wanted);
    s->wanted = NULL;
    if (status == POLKA_OK) status = polka_data_scale(&s->rows, &s->info, d->scale);
    if (status == POLKA_OK) status = index_rows(s, index);
    free(index);
    return status;
}

/* The scan: the facts, every row's class, and the samples the run draws. */
static polka_status scan(file_state *s, const polka_scan_hook *hook) {
    const polka_data_spec *d = &s->plan->data;
    POLKA_CALL(hook ? hook->scan(hook->context, d->train, &s->options, &s->info)
                    : polka_data_scan(d->train, &s->options, &s->info));
    POLKA_CHECK(s->info.n > 0, POLKA_ERR_FORMAT, "%s: no training samples", d->train);
    const char *too_long = polka_plan_check_length(s->plan->run.passes, s->info.n);
    POLKA_CHECK(too_long == NULL, POLKA_ERR_ARG, "%s (%s has %zu samples)", too_long, d->train,
                s->info.n);
    uint64_t per_round = (uint64_t)s->agents * s->batch;
    uint64_t wanted = (uint64_t)ceil(s->plan->run.passes * (double)s->info.n);
    s->total = (wanted + per_round - 1) / per_round * per_round;
    return POLKA_OK;
}

static void file_close(void *state) {
    file_state *s = state;
    if (s == NULL) return;
    polka_data_info_free(&s->info);
    polka_dataset_free(&s->rows);
    free(s->row_of);
    free(s->class_row);
    free(s->class_start);
    free(s->owned);
    free(s->wanted);
    free(s);
}

/*
 * Dense rows of the data's dimension the run holds at least, besides the data (counted in the
 * scan's memory check, polka_read_options.feature_bytes): each learner on this rank has its
 * batch and a dictionary of its budget (bsgd-*, nbsgd-*) or of at least one round's points
 * (polka_control_rows_held).
 */
static double run_rows(const polka_plan *plan, const polka_source_layout *layout) {
    const polka_learner_spec *l = &plan->learner;
    size_t batch = l->batch, learners = layout->count ? layout->count : layout->agents;
    if (plan->run.mode == POLKA_MODE_CENTRALIZED || polka_control_is_batch(l->params.control)) {
        batch = polka_plan_central_batch(plan, layout->agents);
        learners = 1;
    }
    size_t dictionary = polka_control_rows_held(&l->params, batch);
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
    /* a split that draws by class takes the j-th row of a class: the scan records every row's
     * class for it (an i.i.d. split reads row g mod n and needs none) */
    s->options.row_classes = polka_split_of(plan->data.split)->class_of != NULL;
    /* a rank reads only its agents' lines of a plain text file (IDX records need no offsets) */
    s->options.sample_offsets = s->owned != NULL;
    polka_status status = scan(s, layout->scan);
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

/* A uniformly drawn training row of class c (of all the file's), by the uniform of network
 * sample g. */
static polka_status file_sample_class(const void *state, size_t c, uint64_t g, uint64_t index,
                                      double *x, double *y) {
    (void)index;
    const file_state *s = state;
    POLKA_CHECK(s->class_start[c + 1] > s->class_start[c], POLKA_ERR_ARG,
                "class %zu has no training samples", c);
    size_t j = class_pick(s, c, g);
    int64_t r = s->class_row[s->class_start[c] + j];
    POLKA_CHECK(r >= 0, POLKA_ERR_ARG,
                "training row %zu of class %zu (label %g) was not read by this rank (split "
                "mismatch)",
                j, c, s->info.labels[c]);
    copy_row(s, (size_t)r, x, y);
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
    .load = file_load,
    .close = file_close,
    .sample = file_sample,
    .sample_class = file_sample_class,
    .rows_held = file_rows_held,
    .test_set = file_test_set,
};
