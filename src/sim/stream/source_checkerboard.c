/* data.source = checkerboard: the 2-D checkerboard of the BSGD paper, 2 classes. */
#include "polka/checkerboard.h"
#include "sim/stream/source_impl.h"

static const char *checkerboard_check(const polka_plan *plan) {
    const polka_data_spec *d = &plan->data;
    if (d->n_train < 1 || d->n_test < 1) return "data.n_train and data.n_test must be >= 1";
    if (d->board < 1) return "data.board must be >= 1";
    return NULL;
}

static int checkerboard_facts(const polka_plan *plan, polka_data_facts *facts) {
    *facts = (polka_data_facts){POLKA_CHECKERBOARD_DIM, 2, plan->data.n_train, plan->data.n_test};
    return 1;
}

static polka_status checkerboard_open(const polka_plan *plan, const polka_source_layout *layout,
                                      void **state, polka_data_facts *facts) {
    (void)layout;
    checkerboard_facts(plan, facts);
    polka_checkerboard_params params = {
        .board = plan->data.board, .side = 0, .seed = plan->run.seed};
    polka_checkerboard *board = NULL;
    POLKA_CALL(polka_checkerboard_create(&params, &board));
    *state = board;
    return POLKA_OK;
}

static void checkerboard_close(void *state) {
    polka_checkerboard *board = state;
    polka_checkerboard_free(&board);
}

static polka_status checkerboard_sample(const void *state, size_t variant, uint64_t index,
                                        double *x, double *y) {
    (void)variant;
    polka_checkerboard_sample(state, POLKA_STREAM_TRAIN, index, x, y);
    return POLKA_OK;
}

static polka_status checkerboard_test_set(void *state, polka_dataset *test) {
    polka_checkerboard_fill(state, POLKA_STREAM_TEST, 0, test);
    return POLKA_OK;
}

const polka_source_ops polka_source_checkerboard = {
    .name = "checkerboard",
    .targets = POLKA_TARGETS_CLASSES,
    .check = checkerboard_check,
    .planned_facts = checkerboard_facts,
    .open = checkerboard_open,
    .close = checkerboard_close,
    .sample = checkerboard_sample,
    .test_set = checkerboard_test_set,
};
