/*
 * The network's faults (src/sim/network/fault.c, method/penalty.c, method/penalty_stale.c): the
 * draws keep their rates and are pure functions of (seed, round, edge or agent); the penalty sums
 * over the neighbours heard from, renormalised or not; late values are used at the points they were
 * computed at, and dropped once older than fault.delay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/config.h"
#include "sim/method/penalty_impl.h"
#include "sim/network/fault_impl.h"
#include "test_util.h"

static polka_plan plan; /* one at a time: the faults read it once */

static const polka_plan *plan_with(const char *const *settings) {
    return test_plan_with(&plan, settings);
}

/* A ring of n agents. */
static polka_graph *ring(size_t n) {
    size_t u[64], v[64];
    for (size_t i = 0; i < n; i++) u[i] = i, v[i] = (i + 1) % n;
    polka_graph *graph = NULL;
    CHECK_OK(polka_graph_from_edges(n, u, v, NULL, n, &graph));
    CHECK_OK(polka_graph_set_weights(graph, POLKA_WEIGHTS_METROPOLIS));
    return graph;
}

/* The faults of settings on a ring of n agents. */
typedef struct {
    polka_faults faults;
    polka_graph *graph;
} network;

static network network_of(const char *const *settings, size_t n) {
    network net = {.graph = ring(n)};
    CHECK_OK(polka_faults_create(plan_with(settings), n, NULL, &net.faults));
    return net;
}

static void network_free(network *net) {
    polka_graph_free(&net->graph);
    polka_faults_free(&net->faults);
}

/* |count − n·p| within 5 binomial standard deviations. */
static void assert_rate(double count, double n, double p) {
    double sd = sqrt(n * p * (1 - p));
    if (fabs(count - n * p) > 5 * sd)
        fail_msg("%g of %g, expected %g ± %g", count, n, n * p, 5 * sd);
}

static void test_draws_keep_their_rates(void **state) {
    (void)state;
    static const char *const settings[] = {"fault.link_loss=0.2", "fault.offline=0.1", NULL};
    network net = network_of(settings, 40);
    const polka_faults *faults = &net.faults;
    const polka_graph *graph = net.graph;
    double offline = 0, due = 0, lost = 0, values_due = 0, values_lost = 0;
    for (uint64_t t = 0; t < 500; t++)
        for (size_t i = 0; i < 40; i++) {
            offline += !polka_faults_online(faults, t, i);
            polka_link link = polka_faults_link(faults, graph, t, i, (i + 1) % 40);
            polka_link again = polka_faults_link(faults, graph, t, i, (i + 1) % 40);
            assert_memory_equal(&link, &again, sizeof link); /* a pure function */
            assert_true(!link.value || link.point);
            due += link.point || link.point_lost;
            lost += link.point_lost;
            values_due += link.value || link.value_lost;
            values_lost += link.value_lost;
        }
    assert_rate(offline, 500 * 40, 0.1);
    assert_rate(due, 500 * 40, 0.9 * 0.9); /* both ends online */
    assert_rate(lost, due, 0.2);
    assert_rate(values_lost, values_due, 0.2);
    network_free(&net);
}

static void test_delays_are_uniform_up_to_the_bound(void **state) {
    (void)state;
    static const char *const settings[] = {"fault.delay=3", NULL};
    network net = network_of(settings, 10);
    const polka_faults *faults = &net.faults;
    const polka_graph *graph = net.graph;
    double seen[4] = {0};
    for (uint64_t t = 0; t < 2000; t++) {
        polka_link link = polka_faults_link(faults, graph, t, 3, 4);
        assert_true(link.point && link.value && link.delay <= 3);
        seen[link.delay]++;
    }
    for (int d = 0; d < 4; d++) assert_rate(seen[d], 2000, 0.25);
    network_free(&net);
}

static void test_gossip_talks_to_one_neighbour(void **state) {
    (void)state;
    static const char *const settings[] = {"net.gossip=1", NULL};
    network net = network_of(settings, 12);
    const polka_faults *faults = &net.faults;
    const polka_graph *graph = net.graph;
    double first = 0;
    for (uint64_t t = 0; t < 400; t++)
        for (size_t i = 0; i < 12; i++) {
            const size_t *list = polka_graph_neighbors(graph, i);
            int chosen = 0;
            for (size_t k = 0; k < 2; k++)
                chosen += polka_faults_link(faults, graph, t, i, list[k]).point;
            assert_int_equal(chosen, 1);
            first += polka_faults_link(faults, graph, t, i, list[0]).point;
        }
    assert_rate(first, 400 * 12, 0.5);
    network_free(&net);
}

static void test_agents_leave_and_return(void **state) {
    (void)state;
    static const char *const settings[] = {"fault.leave=2, 5-6", "fault.leave_at=10",
                                           "fault.return_at=20", NULL};
    polka_faults faults;
    CHECK_OK(polka_faults_create(plan_with(settings), 8, NULL, &faults));
    for (uint64_t t = 0; t < 30; t++) /* rounds 10 .. 19 (1-based) are t = 9 .. 18 */
        for (size_t i = 0; i < 8; i++) {
            int away = (i == 2 || i == 5 || i == 6) && t >= 9 && t < 19;
            assert_int_equal(polka_faults_online(&faults, t, i), !away);
        }
    polka_faults_free(&faults);
    /* an id beyond the network is refused by name */
    static const char *const beyond[] = {"fault.leave=3,8", NULL};
    assert_int_not_equal(polka_faults_create(plan_with(beyond), 8, NULL, &faults), POLKA_OK);
    assert_non_null(strstr(polka_error_message(), "fault.leave = '3,8'"));
}

/* polka_fault_agent_state gathers the per-agent faults: an offline agent (fault.offline,
 * fault.leave) neither takes part nor learns; an online one learns in the rounds the stream's
 * quantity skew gives it a batch; without faults every agent is online and learns. */
static void test_agent_state_gathers_the_faults(void **state) {
    (void)state;
    static const char *const settings[] = {"fault.offline=0.3", "fault.leave=4", "fault.leave_at=5",
                                           "data.quantity_sigma=1", NULL};
    const polka_plan *p = plan_with(settings);
    polka_stream *stream = NULL;
    CHECK_OK(polka_stream_create(p, 8, 1, &stream));
    polka_faults faults, unskewed;
    CHECK_OK(polka_faults_create(p, 8, stream, &faults));
    CHECK_OK(polka_faults_create(p, 8, NULL, &unskewed));
    double online = 0, learns = 0, skipped = 0;
    for (uint64_t t = 0; t < 400; t++)
        for (size_t i = 0; i < 8; i++) {
            polka_agent_round now = polka_fault_agent_state(&faults, t, i);
            assert_int_equal(now.online, polka_faults_online(&faults, t, i));
            assert_int_equal(now.learns, now.online && polka_stream_agent_learns(stream, i, t));
            polka_agent_round plain = polka_fault_agent_state(&unskewed, t, i);
            assert_int_equal(plain.online, now.online);
            assert_int_equal(plain.learns, plain.online);
            if (i == 4 && t >= 4) assert_false(now.online);
            online += now.online;
            learns += now.learns;
            skipped += now.online && !now.learns;
        }
    assert_rate(online, 400 * 7 + 4, 0.7);
    assert_true(skipped > 0 && learns > 0); /* the skew keeps some online agents from learning */
    polka_agent_round none = polka_fault_agent_state(NULL, 3, 2);
    assert_true(none.online && none.learns);
    polka_faults_free(&faults);
    polka_faults_free(&unskewed);
    polka_stream_free(&stream);
}

static void test_agent_lists_parse_or_say_why(void **state) {
    (void)state;
    static const char *const bad[] = {"", "a", "3-1", "5,", "1;2", "-3", "4,,5", "99"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        assert_non_null(polka_faults_parse_agents(bad[k], 50, NULL, NULL));
    assert_null(polka_faults_parse_agents(" 0 , 3-4,49 ", 50, NULL, NULL));
    polka_config config;
    polka_config_defaults(&config);
    CHECK_OK(polka_config_override(&config, "fault.leave=1-x"));
    assert_int_not_equal(polka_plan_build(&config, &plan), POLKA_OK);
    assert_non_null(strstr(polka_error_message(), "fault.leave"));
}

/* Agent 0 of a star (neighbours 1 and 2) after one update with the values of the slots in
 * `heard` (f_1 = 1, f_2 = 3 at its one point, f_0 = 0: a new model): the own point's g. */
static void own_gradient(const char *const *settings, const unsigned char heard[2], double *g,
                         double *weights) {
    size_t u[] = {0, 0}, v[] = {1, 2};
    polka_graph *graph = NULL;
    CHECK_OK(polka_graph_from_edges(3, u, v, NULL, 2, &graph));
    CHECK_OK(polka_graph_set_weights(graph, POLKA_WEIGHTS_METROPOLIS));
    const polka_plan *p = plan_with(settings);
    polka_faults faults;
    CHECK_OK(polka_faults_create(p, 3, NULL, &faults));
    polka_data_facts facts = {.dim = 2, .classes = 2, .n_train = 100, .n_test = 10};
    polka_agent agent;
    CHECK_OK(polka_agent_init(&agent, polka_method_of(p), p, &facts, graph, &faults, 0));
    polka_agent_links(&agent, 0); /* no stream: the agent learns */
    polka_penalty_of(&agent)->cand_x[0] = 0.5, polka_penalty_of(&agent)->cand_x[1] = -0.5;
    polka_penalty_of(&agent)->y[0] = 1;
    memset(polka_penalty_of(&agent)->f_own, 0,
           agent.outputs * sizeof *polka_penalty_of(&agent)->f_own);
    for (size_t k = 0; k < 2; k++) {
        agent.in_value[k] = heard[k];
        for (size_t o = 0; o < agent.outputs; o++)
            agent.answered[k * agent.outputs + o] = k == 0 ? 1.0 : 3.0;
    }
    CHECK_OK(polka_agent_update(&agent));
    memcpy(g, polka_penalty_of(&agent)->cand_g, agent.outputs * sizeof *g);
    memcpy(weights, agent.weights, 2 * sizeof *weights);
    polka_agent_free(&agent);
    polka_faults_free(&faults);
    polka_graph_free(&graph);
}

static void test_penalty_sums_over_the_neighbours_heard(void **state) {
    (void)state;
    static const char *const plain[] = {"net.c=0.5", NULL};
    static const char *const renormalised[] = {"net.c=0.5", "fault.renormalise=1", NULL};
    double both[8], one[8], scaled[8], w[2];
    const unsigned char all[2] = {1, 1}, first[2] = {1, 0};
    own_gradient(plain, all, both, w);
    own_gradient(plain, first, one, w);
    own_gradient(renormalised, first, scaled, w);
    for (size_t o = 0; o < 2; o++) { /* g = ∇ℓ + c Σ_heard w_k (f_0 − f_k), f_0 = 0 */
        /* the agent's c·w_2·(0 − 3) has these bits; both = one + it rounded, and the
         * difference here: u·|both| and u·|it| [Higham02, §2.2] */
        double term = 0.5 * w[1] * (0.0 - 3.0);
        assert_true(fabs(both[o] - one[o] - term) <= test_gamma(2) * (fabs(both[o]) + fabs(term)));
        /* renormalised: neighbour 1 carries w_1 + w_2: c·w_1·fl(fl(w_1 + w_2)/w_1) to γ_3 of
         * c(w_1 + w_2), then the roundings of scaled, one and the difference */
        double carried = 0.5 * (w[0] + w[1]);
        assert_true(fabs(scaled[o] - one[o] - 0.5 * w[1] * (0.0 - 1.0)) <=
                    test_gamma(3) * (carried + fabs(scaled[o]) + fabs(one[o])));
    }
    double again[8];
    own_gradient(renormalised, all, again, w); /* everyone heard: the factor is exactly 1 */
    assert_memory_equal(again, both, 2 * sizeof *both);
}

/* Agent 0 of a ring of 3 with fault.delay = 2: its round-t points are (t, −t). */
static void late_round(polka_agent *agent, uint64_t t, int value_in, size_t delay) {
    polka_agent_links(agent, t);
    polka_penalty_of(agent)->cand_x[0] = (double)t, polka_penalty_of(agent)->cand_x[1] = -(double)t;
    polka_stale_remember(agent);
    memset(agent->in_value, 0, agent->degree);
    agent->in_value[0] = (unsigned char)value_in;
    agent->in_delay[0] = delay;
    for (size_t o = 0; o < agent->outputs; o++) agent->answered[o] = 10.0 + (double)t;
}

static void test_late_values_are_used_at_their_points(void **state) {
    (void)state;
    static const char *const settings[] = {"fault.delay=2", NULL};
    polka_graph *graph = ring(3);
    const polka_plan *p = plan_with(settings);
    polka_faults faults;
    CHECK_OK(polka_faults_create(p, 3, NULL, &faults));
    polka_data_facts facts = {.dim = 2, .classes = 2, .n_train = 100, .n_test = 10};
    polka_agent agent;
    CHECK_OK(polka_agent_init(&agent, polka_method_of(p), p, &facts, graph, &faults, 0));
    size_t added = 0;
    late_round(&agent, 0, 1, 2); /* round 0's values arrive in round 2 */
    polka_stale_receive(&agent, agent.fresh);
    assert_int_equal(agent.fresh[0], 0);
    CHECK_OK(polka_stale_rows(&agent, 1, 1.0, &added));
    assert_int_equal(added, 0); /* nothing has arrived */
    late_round(&agent, 1, 0, 0);
    polka_stale_receive(&agent, agent.fresh);
    CHECK_OK(polka_stale_rows(&agent, 1, 1.0, &added));
    assert_int_equal(added, 0);
    late_round(&agent, 2, 0, 0);
    polka_stale_receive(&agent, agent.fresh);
    CHECK_OK(polka_stale_rows(&agent, 1, 1.0, &added));
    assert_int_equal(added, 1); /* one row: at round 0's point (0, −0), age 2 */
    assert_true(polka_penalty_of(&agent)->cand_x[2] == 0.0 &&
                polka_penalty_of(&agent)->cand_x[3] == 0.0);
    double cw =
        polka_penalty_of(&agent)->c * agent.weights[0]; /* f_0 = 0 (a new model) against f_1 = 10 */
    /* the late row is 0 + c·w·(f_0 − f_1) (f_0 = 0: a new model): this very product */
    assert_true(polka_penalty_of(&agent)->cand_g[agent.outputs] == cw * (0.0 - 10.0));
    assert_true(agent.counters.value_age_sum == 2.0 && agent.counters.value_age_count == 1.0);
    late_round(&agent, 3, 1, 0); /* fresh values win over the late ones */
    polka_stale_receive(&agent, agent.fresh);
    assert_int_equal(agent.fresh[0], 1);
    CHECK_OK(polka_stale_rows(&agent, 1, 1.0, &added));
    assert_int_equal(added, 0);
    for (uint64_t t = 4; t < 7; t++) { /* round 3's values age: used at 4 and 5, dropped at 6 */
        late_round(&agent, t, 0, 0);
        polka_stale_receive(&agent, agent.fresh);
        CHECK_OK(polka_stale_rows(&agent, 1, 1.0, &added));
        assert_int_equal(added, t < 6 ? 1 : 0);
    }
    polka_agent_free(&agent);
    polka_faults_free(&faults);
    polka_graph_free(&graph);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draws_keep_their_rates),
        cmocka_unit_test(test_delays_are_uniform_up_to_the_bound),
        cmocka_unit_test(test_gossip_talks_to_one_neighbour),
        cmocka_unit_test(test_agents_leave_and_return),
        cmocka_unit_test(test_agent_state_gathers_the_faults),
        cmocka_unit_test(test_agent_lists_parse_or_say_why),
        cmocka_unit_test(test_penalty_sums_over_the_neighbours_heard),
        cmocka_unit_test(test_late_values_are_used_at_their_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
