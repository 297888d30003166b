/*
 * A random-feature agent's batches (sim/method/rf_agent.c): it maps a window of rounds of its
 * stream in one product, so the batch of round t must be its stream's batch of round t, mapped,
 * in any order of rounds (a resume starts inside a window); and the window's length follows the
 * rule its comment states.
 */
#include <string.h>

#include "sim/exchange/fault_impl.h"
#include "sim/method/rf_impl.h"
#include "test_util.h"

/* ⌈32/b⌉ rounds while the run's windows fit 256 MiB, fewer beyond, never fewer than 1. */
static void window_length(void **state) {
    (void)state;
    assert_int_equal(polka_rf_window_rounds(16, 2, 4000, 784), 16);
    assert_int_equal(polka_rf_window_rounds(16, 3, 16, 2), 11);
    assert_int_equal(polka_rf_window_rounds(16, 64, 16, 2), 1);
    /* 300 agents × 2 rows × 4 785 numbers × 8 bytes = 22.97 MB a round: 11 rounds fit */
    assert_int_equal(polka_rf_window_rounds(300, 2, 4000, 784), 11);
    assert_int_equal(polka_rf_window_rounds(100000, 2, 4000, 784), 1);
}

/* Agent 2 of 4 on a ring, batch 3 (windows of 11 rounds), rounds out of order: each batch is
 * the stream's (agent 2, round t) batch, its labels exactly and its features as polka_rff_map
 * gives them for those rows alone. */
static void batches_are_the_rounds_own(void **state) {
    (void)state;
    static const char *const settings[] = {"net.method=rf-diffusion", "net.features=16",
                                           "net.agents=4", "learner.batch=3", NULL};
    static polka_plan plan;
    const polka_plan *p = test_plan_with(&plan, settings);
    polka_stream *stream = NULL;
    CHECK_OK(polka_stream_create(p, 4, 3, &stream));
    size_t u[] = {0, 1, 2, 3}, v[] = {1, 2, 3, 0};
    polka_graph *graph = NULL;
    CHECK_OK(polka_graph_from_edges(4, u, v, NULL, 4, &graph));
    CHECK_OK(polka_graph_set_weights(graph, POLKA_WEIGHTS_METROPOLIS));
    polka_faults faults;
    CHECK_OK(polka_faults_create(p, 4, stream, &faults));
    polka_data_facts facts = *polka_stream_facts(stream);
    polka_agent agent;
    CHECK_OK(polka_agent_init(&agent, p, &facts, graph, &faults, 2));
    const polka_rf *rf = polka_rf_of(&agent);
    enum { B = 3, D = 16, DIM_MAX = 64 };
    assert_true(facts.dim <= DIM_MAX);
    const uint64_t rounds[] = {0, 1, 10, 11, 12, 40, 5, 21, 22};
    for (size_t r = 0; r < sizeof rounds / sizeof *rounds; r++) {
        agent.round = rounds[r];
        agent.this_round.learns = 1;
        CHECK_OK(polka_rf_draw_batch(&agent, stream));
        polka_rff_batch batch = polka_rf_batch(&agent);
        assert_int_equal(batch.n, B);
        assert_int_equal(rf->window_rounds, 11);
        double x[B * DIM_MAX], y[B], z[B * D];
        CHECK_OK(polka_stream_agent_batch(stream, 2, rounds[r], x, y));
        polka_rff_map(rf->features, x, B, z);
        assert_memory_equal(batch.y, y, sizeof y);
        for (size_t k = 0; k < B * D; k++) assert_true(fabs(batch.z[k] - z[k]) <= 1e-12);
    }
    agent.this_round.learns = 0; /* a round it does not learn in: no batch */
    CHECK_OK(polka_rf_draw_batch(&agent, stream));
    assert_int_equal(polka_rf_batch(&agent).n, 0);
    polka_agent_free(&agent);
    polka_faults_free(&faults);
    polka_graph_free(&graph);
    polka_stream_free(&stream);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_length),
        cmocka_unit_test(batches_are_the_rounds_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
