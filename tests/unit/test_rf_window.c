/*
 * A random-feature agent's batches (sim/method/rf_agent.c): it maps a window of rounds of its
 * stream in one product, so the batch of round t must be its stream's batch of round t, mapped,
 * in any order of rounds (a resume starts inside a window); a window stops at the run's last
 * round; and the window's length follows the rule its comment states.
 */
#include <string.h>

#include "sim/network/fault_impl.h"
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

/* One rf-diffusion agent of 4 on a ring (16 features, batch 3) and its stream. */
typedef struct {
    polka_plan plan;
    polka_stream *stream;
    polka_graph *graph;
    polka_faults faults;
    polka_agent agent;
} fixture;

static void fixture_open(fixture *fx, const char *n_train, size_t id) {
    const char *settings[] = {"net.method=rf-diffusion", "net.features=16", "net.agents=4",
                              "learner.batch=3",         n_train,           NULL};
    const polka_plan *p = test_plan_with(&fx->plan, settings);
    CHECK_OK(polka_stream_create(p, 4, 3, &fx->stream));
    size_t u[] = {0, 1, 2, 3}, v[] = {1, 2, 3, 0};
    CHECK_OK(polka_graph_from_edges(4, u, v, NULL, 4, &fx->graph));
    CHECK_OK(polka_graph_set_weights(fx->graph, POLKA_WEIGHTS_METROPOLIS));
    CHECK_OK(polka_faults_create(p, 4, fx->stream, &fx->faults));
    polka_data_facts facts = *polka_stream_facts(fx->stream);
    assert_true(facts.dim <= 64);
    CHECK_OK(
        polka_agent_init(&fx->agent, polka_method_of(p), p, &facts, fx->graph, &fx->faults, id));
}

static void fixture_close(fixture *fx) {
    polka_agent_free(&fx->agent);
    polka_faults_free(&fx->faults);
    polka_graph_free(&fx->graph);
    polka_stream_free(&fx->stream);
}

/*
 * The agent's batch of round t against its stream's (agent, t) batch mapped alone: the labels
 * exactly, the features to rounding. The same polka_rff_map on more rows: each product
 * ω_d·x (dgemm, any blocking) and its phase b_d within γ_{p+1}A_d of their exact sum,
 * A_d = |b_d| + Σ_k|ω_dk x_k| [Higham02 §3.1]; cos is 1-Lipschitz and within 1 ulp (2u) of
 * its argument's; z = fl(√(2/D)·cos): within √(2/D)(2γ_{p+1}A_d + 4u) + 2u|z| of each other.
 */
static void check_batch(fixture *fx, uint64_t t) {
    enum { B = 3, D = 16 };
    polka_agent *agent = &fx->agent;
    agent->round = t;
    agent->this_round.learns = 1;
    CHECK_OK(polka_rf_draw_batch(agent, fx->stream));
    polka_rff_batch batch = polka_rf_batch(agent);
    assert_int_equal(batch.n, B);
    double x[B * 64], y[B], z[B * D];
    CHECK_OK(polka_stream_agent_batch(fx->stream, agent->id, t, x, y));
    polka_rff_map(polka_rf_of(agent)->features, x, B, z);
    assert_memory_equal(batch.y, y, sizeof y);
    const polka_rff *rff = polka_rf_of(agent)->features;
    size_t p = rff->dim;
    double scale = sqrt(2.0 / (double)D);
    assert_int_equal(rff->features, D);
    for (size_t k = 0; k < B * D; k++) {
        size_t row = k / D, d = k % D;
        double a = fabs(rff->phase[d]);
        for (size_t j = 0; j < p; j++) a += fabs(rff->omega[d * p + j] * x[row * p + j]);
        double tol = scale * (2 * test_gamma((double)p + 1) * a + 2 * DBL_EPSILON) +
                     DBL_EPSILON * fabs(z[k]);
        assert_true(fabs(batch.z[k] - z[k]) <= tol);
    }
}

/* Windows of 11 rounds, rounds out of order, and a round it does not learn in. */
static void batches_are_the_rounds_own(void **state) {
    (void)state;
    static fixture fx;
    fixture_open(&fx, "data.n_train=20000", 2);
    assert_int_equal(polka_rf_of(&fx.agent)->window_rounds, 11);
    const uint64_t rounds[] = {0, 1, 10, 11, 12, 40, 5, 21, 22};
    for (size_t r = 0; r < sizeof rounds / sizeof *rounds; r++) check_batch(&fx, rounds[r]);
    fx.agent.this_round.learns = 0; /* no batch */
    CHECK_OK(polka_rf_draw_batch(&fx.agent, fx.stream));
    assert_int_equal(polka_rf_batch(&fx.agent).n, 0);
    fixture_close(&fx);
}

/* A run of 10 rounds (120 samples, 4 agents, batch 3, one pass): the window of rounds 0–9 is
 * cut at 10, and a round past the run's (an events-engine agent running ahead) is mapped
 * alone. */
static void windows_stop_at_the_run_end(void **state) {
    (void)state;
    static fixture fx;
    fixture_open(&fx, "data.n_train=120", 1);
    const polka_rf *rf = polka_rf_of(&fx.agent);
    assert_int_equal(rf->run_rounds, 10);
    const uint64_t rounds[] = {3, 9, 12, 0, 13};
    const uint64_t firsts[] = {0, 0, 12, 0, 13}, ends[] = {10, 10, 13, 10, 14};
    for (size_t r = 0; r < sizeof rounds / sizeof *rounds; r++) {
        check_batch(&fx, rounds[r]);
        assert_int_equal(rf->window_first, firsts[r]);
        assert_int_equal(rf->window_end, ends[r]);
    }
    fixture_close(&fx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_length),
        cmocka_unit_test(batches_are_the_rounds_own),
        cmocka_unit_test(windows_stop_at_the_run_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
