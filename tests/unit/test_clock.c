/* The event engine's virtual clock (clock_impl.h) and its inbox order (inbox.c): the speed laws,
 * the slow agents, the latencies' floor, jitter and bandwidth, the lockstep round's time, and
 * the heap's total order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/async/async_impl.h"
#include "test_util.h"

static const polka_plan *plan_with(const char *const *settings) {
    static polka_plan plan;
    return test_plan_with(&plan, settings);
}

/* Equal speeds: every update takes async.compute; a slow agent async.slow_factor times it. */
static void equal_speeds_and_slow_list(void **state) {
    (void)state;
    const char *settings[] = {"async.compute=2", "async.slow=3,5-6", "async.slow_factor=7", NULL};
    polka_clock clock;
    CHECK_OK(polka_clock_create(plan_with(settings), 8, &clock));
    for (size_t i = 0; i < 8; i++) {
        int slow = i == 3 || i == 5 || i == 6;
        assert_int_equal(polka_clock_is_slow(&clock, i), slow);
        double m = polka_clock_median(&clock, i);
        assert_true(m == (slow ? 14.0 : 2.0));
        assert_true(polka_clock_update_time(&clock, i, m, 17) == m);
    }
    polka_clock_free(&clock);
}

/* Log-normal speeds: the log-medians have the spread asked; slow_fraction picks about that
 * share; the draws are the same every time they are asked (counter-based). */
static void lognormal_speeds(void **state) {
    (void)state;
    const char *settings[] = {"async.compute_sigma=0.5", "async.slow_fraction=0.1",
                              "async.compute_jitter=0.3", NULL};
    polka_clock clock;
    size_t n = 20000, slow = 0;
    CHECK_OK(polka_clock_create(plan_with(settings), n, &clock));
    double sum = 0.0, squares = 0.0;
    for (size_t i = 0; i < n; i++) {
        double m = polka_clock_median(&clock, i);
        assert_true(m == polka_clock_median(&clock, i));
        int is_slow = polka_clock_is_slow(&clock, i);
        slow += (size_t)is_slow;
        double z = log(m / (is_slow ? 10.0 : 1.0));
        sum += z;
        squares += z * z;
        double t = polka_clock_update_time(&clock, i, m, 3);
        assert_true(t == polka_clock_update_time(&clock, i, m, 3) && t != m);
    }
    double mean = sum / (double)n, sd = sqrt(squares / (double)n - mean * mean);
    assert_true(fabs(mean) < 0.02 && fabs(sd - 0.5) < 0.02);
    assert_true(fabs((double)slow / (double)n - 0.1) < 0.01);
    polka_clock_free(&clock);
}

/* No message is faster than async.latency (the lookahead); the jitter is exponential with the
 * mean asked; bandwidth adds bytes / bandwidth. */
static void latencies(void **state) {
    (void)state;
    const char *settings[] = {"async.latency=0.25", "async.latency_jitter=0.5",
                              "async.bandwidth=1000", NULL};
    polka_clock clock;
    CHECK_OK(polka_clock_create(plan_with(settings), 100, &clock));
    double sum = 0.0;
    size_t n = 0;
    for (uint64_t seq = 0; seq < 200; seq++)
        for (size_t i = 0; i < 10; i++, n++) {
            double d = polka_clock_latency(&clock, i, i + 1, seq, (int)(seq % 2), 500.0);
            assert_true(d >= 0.25 + 0.5);
            sum += d - 0.75;
        }
    assert_true(fabs(sum / (double)n - 0.5) < 0.05);
    polka_clock_free(&clock);
}

/* A lockstep round: the slowest update, then the slowest message of each phase. */
static void lockstep_round(void **state) {
    (void)state;
    const char *settings[] = {"async.slow=1", "async.slow_factor=4", "async.latency=0.5",
                              "async.bandwidth=100", NULL};
    polka_lockstep_clock lc;
    double bytes[2] = {50.0, 100.0};
    CHECK_OK(polka_lockstep_clock_create(plan_with(settings), 4, bytes, &lc));
    assert_true(polka_lockstep_round_time(&lc, NULL, 9) == 4.0 + (0.5 + 0.5) + (0.5 + 1.0));
    polka_lockstep_clock_free(&lc);
}

/* The inbox gives its messages by (arrival, sender, phase, update), whatever the order in. */
static void inbox_order(void **state) {
    (void)state;
    polka_inbox inbox = {0};
    polka_message in[] = {{.arrival = 2, .from = 1},
                          {.arrival = 1, .from = 5},
                          {.arrival = 1, .from = 2, .phase = 1},
                          {.arrival = 1, .from = 2},
                          {.arrival = 1, .from = 2, .phase = 1, .seq = 0},
                          {.arrival = 0.5, .from = 9}};
    in[2].seq = 4;
    for (size_t k = 0; k < 6; k++) {
        in[k].payload = malloc(sizeof(double));
        CHECK_OK(polka_inbox_push(&inbox, &in[k]));
    }
    double arrival[] = {0.5, 1, 1, 1, 1, 2};
    uint64_t from[] = {9, 2, 2, 2, 5, 1}, seq[] = {0, 0, 0, 4, 0, 0};
    int phase[] = {0, 0, 1, 1, 0, 0};
    for (size_t k = 0; k < 6; k++) {
        polka_message m;
        polka_inbox_pop(&inbox, &m);
        assert_true(m.arrival == arrival[k]);
        assert_int_equal(m.from, from[k]);
        assert_int_equal(m.phase, phase[k]);
        assert_int_equal(m.seq, seq[k]);
        free(m.payload);
    }
    assert_null(polka_inbox_top(&inbox));
    polka_inbox_free(&inbox);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_speeds_and_slow_list), cmocka_unit_test(lognormal_speeds),
        cmocka_unit_test(latencies), cmocka_unit_test(lockstep_round),
        cmocka_unit_test(inbox_order)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
