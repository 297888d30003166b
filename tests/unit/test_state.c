/*
 * Checkpoint state (state.h, learner_state.c): a learner saved after some steps and restored
 * into a fresh learner takes bit for bit the steps the saved one takes, for every control (the
 * end-to-end runs are tests/checkpoint.cmake); a packed state survives the trip through bytes,
 * and every damaged or truncated block is refused, never read past its end.
 */
#include <stdlib.h>
#include <string.h>

#include "polka/checkerboard.h"
#include "polka/learner.h"
#include "polka/state.h"
#include "test_util.h"

static polka_dataset board_data(size_t n) {
    polka_checkerboard_params cp = {.board = 4, .seed = 3};
    polka_checkerboard *gen = NULL;
    CHECK_OK(polka_checkerboard_create(&cp, &gen));
    polka_dataset data = {0};
    CHECK_OK(polka_dataset_alloc(&data, n, 2, 2));
    polka_checkerboard_fill(gen, 1, 0, &data);
    polka_checkerboard_free(&gen);
    return data;
}

static void steps(polka_learner *learner, const polka_dataset *data, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        CHECK_OK(polka_learner_step(learner, data->x + 2 * i, data->y + i, 1, NULL));
}

static void assert_same_model(const polka_learner *a, const polka_learner *b) {
    const polka_model *ma = polka_learner_model(a), *mb = polka_learner_model(b);
    size_t m = polka_model_order(ma);
    assert_int_equal(m, polka_model_order(mb));
    assert_memory_equal(polka_model_dictionary(ma), polka_model_dictionary(mb),
                        m * polka_model_dim(ma) * sizeof(double));
    assert_memory_equal(polka_model_weights(ma), polka_model_weights(mb),
                        m * polka_model_outputs(ma) * sizeof(double));
    assert_int_equal(polka_learner_steps(a), polka_learner_steps(b));
    assert_true(polka_learner_rho(a) == polka_learner_rho(b));
}

/* Saved after 300 steps and restored: the next 300 steps are the saved learner's. */
static void check_control(polka_learner_params params) {
    polka_dataset data = board_data(600);
    polka_learner *original = NULL, *copy = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &original));
    CHECK_OK(polka_learner_create(&params, 2, 2, &copy));
    steps(original, &data, 0, 300);
    polka_state *state = NULL, *back = NULL;
    CHECK_OK(polka_state_create(&state));
    CHECK_OK(polka_learner_save(original, state));
    unsigned char *bytes = NULL;
    size_t size = 0;
    CHECK_OK(polka_state_pack(state, &bytes, &size));
    CHECK_OK(polka_state_unpack(bytes, size, &back));
    CHECK_OK(polka_learner_restore(copy, back));
    assert_same_model(original, copy);
    steps(original, &data, 300, 600);
    steps(copy, &data, 300, 600);
    assert_same_model(original, copy);
    free(bytes);
    polka_state_free(&state);
    polka_state_free(&back);
    polka_learner_free(&original);
    polka_learner_free(&copy);
    polka_dataset_free(&data);
}

static void test_every_control(void **unused) {
    (void)unused;
    for (int k = 0; k < POLKA_CONTROL_COUNT; k++) { /* every online control of the table */
        if (polka_control_is_batch((polka_control_kind)k)) continue;
        polka_learner_params params = polka_learner_defaults();
        params.loss.kind = POLKA_LOSS_HINGE;
        params.kernel.sigma = 0.5;
        params.control = (polka_control_kind)k;
        params.budget = 25;
        params.tau = 30;
        params.beta = 20;
        params.seed = 9;
        params.suffix = 0.5;  /* the suffix average and an offset too, where the control */
        params.horizon = 600; /* averages (bsgd-*, nbsgd-*) */
        params.offset = 1;
        if (polka_learner_check(&params) != NULL) params.suffix = 0, params.offset = 0;
        check_control(params);
    }
}

static void test_nu_trick_and_schedule(void **unused) {
    (void)unused;
    polka_learner_params params = polka_learner_defaults();
    params.loss.kind = POLKA_LOSS_SOFT_MARGIN;
    params.control = POLKA_CONTROL_NORMA;
    params.nu = 0.3;
    params.tau = 40;
    check_control(params);
    params = polka_learner_defaults();
    params.loss.kind = POLKA_LOSS_HINGE;
    params.schedule = POLKA_SCHEDULE_INVSQRT; /* KOMP with a varying budget */
    check_control(params);
}

/* A restored learner of other sizes is refused with the entry's name. */
static void test_mismatch(void **unused) {
    (void)unused;
    polka_learner_params params = polka_learner_defaults();
    polka_dataset data = board_data(50);
    polka_learner *two = NULL, *three = NULL;
    CHECK_OK(polka_learner_create(&params, 2, 2, &two));
    CHECK_OK(polka_learner_create(&params, 3, 2, &three));
    steps(two, &data, 0, 50);
    polka_state *state = NULL;
    CHECK_OK(polka_state_create(&state));
    CHECK_OK(polka_learner_save(two, state));
    assert_int_equal(polka_learner_restore(three, state), POLKA_ERR_FORMAT);
    assert_non_null(strstr(polka_error_message(), "model.dictionary"));
    polka_state_free(&state);
    polka_learner_free(&two);
    polka_learner_free(&three);
    polka_dataset_free(&data);
}

/* Every truncation and every flipped byte of a packed state: refused or read in bounds. */
static void test_damaged_blocks(void **unused) {
    (void)unused;
    polka_state *state = NULL, *back = NULL;
    CHECK_OK(polka_state_create(&state));
    double values[5] = {1, 2, 3, 4, 5};
    CHECK_OK(polka_state_put(state, "a", POLKA_STATE_F64, values, 5));
    CHECK_OK(polka_state_put_u64(state, "b.count", 7));
    CHECK_OK(polka_state_put(state, "c", POLKA_STATE_U8, "xyz", 3));
    assert_int_equal(polka_state_put_u64(state, "b.count", 8), POLKA_ERR_ARG);
    unsigned char *bytes = NULL;
    size_t size = 0;
    CHECK_OK(polka_state_pack(state, &bytes, &size));
    for (size_t cut = 0; cut < size; cut++) {
        assert_int_equal(polka_state_unpack(bytes, cut, &back), POLKA_ERR_FORMAT);
        assert_null(back);
    }
    for (size_t at = 0; at < size; at++) {
        unsigned char *copy = malloc(size);
        memcpy(copy, bytes, size);
        copy[at] ^= 0xA5;
        if (polka_state_unpack(copy, size, &back) == POLKA_OK) polka_state_free(&back);
        free(copy);
    }
    CHECK_OK(polka_state_unpack(bytes, size, &back));
    uint64_t count = 0;
    CHECK_OK(polka_state_get_u64(back, "b.count", &count));
    assert_int_equal(count, 7);
    double got[5];
    CHECK_OK(polka_state_get(back, "a", POLKA_STATE_F64, got, 5));
    assert_memory_equal(got, values, sizeof values);
    assert_int_equal(polka_state_get(back, "a", POLKA_STATE_F64, got, 4), POLKA_ERR_FORMAT);
    assert_int_equal(polka_state_get(back, "missing", POLKA_STATE_F64, got, 1), POLKA_ERR_FORMAT);
    free(bytes);
    polka_state_free(&state);
    polka_state_free(&back);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_control),
        cmocka_unit_test(test_nu_trick_and_schedule),
        cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_damaged_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
