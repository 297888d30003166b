#include "sim/async/clock_impl.h"

#include <math.h>
#include <stdlib.h>

#include "polka/data.h"
#include "polka/rng.h"
#include "sim/network/fault_impl.h"

static void mark(void *context, size_t id) {
    ((unsigned char *)context)[id] = 1;
}

polka_status polka_clock_create(const polka_plan *plan, size_t agents, polka_clock *clock) {
    const polka_config *s = &plan->settings;
    *clock = (polka_clock){.seed = plan->run.seed,
                           .agents = agents,
                           .compute = s->compute,
                           .sigma = s->compute_sigma,
                           .jitter = s->compute_jitter,
                           .slow_factor = s->slow_factor,
                           .slow_fraction = s->slow_fraction,
                           .latency = s->latency,
                           .latency_jitter = s->latency_jitter,
                           .bandwidth = s->bandwidth};
    if (s->slow[0] == '\0') return POLKA_OK;
    clock->slow = calloc(agents ? agents : 1, 1);
    POLKA_CHECK_ALLOC(clock->slow);
    const char *why = polka_faults_parse_agents(s->slow, agents, mark, clock->slow);
    if (why == NULL) return POLKA_OK;
    polka_clock_free(clock);
    return polka_error_set(POLKA_ERR_ARG,
                           "async.slow = '%s': %s (the network has %zu agents, 0 .. %zu)", s->slow,
                           why, agents, agents ? agents - 1 : 0);
}

void polka_clock_free(polka_clock *clock) {
    free(clock->slow);
    clock->slow = NULL;
}

int polka_clock_is_slow(const polka_clock *clock, size_t i) {
    if (clock->slow && clock->slow[i]) return 1;
    if (clock->slow_fraction <= 0) return 0;
    polka_rng rng = polka_rng_start_sub(clock->seed, POLKA_STREAM_SPEED, i, 1);
    return polka_rng_uniform(&rng) < clock->slow_fraction;
}

double polka_clock_median(const polka_clock *clock, size_t i) {
    double median = clock->compute;
    if (clock->sigma > 0) {
        polka_rng rng = polka_rng_start_sub(clock->seed, POLKA_STREAM_SPEED, i, 0);
        median *= exp(clock->sigma * polka_rng_normal(&rng));
    }
    return polka_clock_is_slow(clock, i) ? median * clock->slow_factor : median;
}

double polka_clock_update_time(const polka_clock *clock, size_t i, double median, uint64_t k) {
    if (clock->jitter <= 0) return median;
    polka_rng rng = polka_rng_start_sub(clock->seed, POLKA_STREAM_COMPUTE, k, i);
    return median * exp(clock->jitter * polka_rng_normal(&rng));
}

double polka_clock_latency(const polka_clock *clock, size_t i, size_t j, uint64_t seq, int phase,
                           double bytes) {
    double delay = clock->latency;
    if (clock->latency_jitter > 0) {
        uint64_t edge = (uint64_t)i * clock->agents + j;
        polka_rng rng =
            polka_rng_start_sub(clock->seed, POLKA_STREAM_LATENCY, seq, 2 * edge + (uint64_t)phase);
        delay += -clock->latency_jitter * log(polka_rng_uniform(&rng)); /* exponential */
    }
    if (clock->bandwidth > 0) delay += bytes / clock->bandwidth;
    return delay;
}

/* The slowest message of a phase in round t: every directed edge's when latencies are drawn. */
static double slowest_message(const polka_clock *clock, const polka_graph *graph, uint64_t t,
                              int phase, double bytes) {
    if (clock->latency_jitter <= 0) return polka_clock_latency(clock, 0, 0, t, phase, bytes);
    double most = 0.0;
    for (size_t i = 0; i < polka_graph_nodes(graph); i++) {
        const size_t *list = polka_graph_neighbors(graph, i);
        for (size_t k = 0; k < polka_graph_degree(graph, i); k++) {
            double d = polka_clock_latency(clock, i, list[k], t, phase, bytes);
            if (d > most) most = d;
        }
    }
    return most;
}

double polka_lockstep_round_time(const polka_lockstep_clock *lc, const polka_graph *graph,
                                 uint64_t t) {
    if (lc->constant >= 0) return lc->constant;
    const polka_clock *clock = &lc->clock;
    double slowest = lc->slowest;
    if (clock->jitter > 0) {
        slowest = 0.0;
        for (size_t i = 0; i < clock->agents; i++) {
            double c = polka_clock_update_time(clock, i, lc->medians[i], t);
            if (c > slowest) slowest = c;
        }
    }
    double wire = 0.0;
    for (int phase = 0; phase < lc->phases; phase++)
        wire += slowest_message(clock, graph, t, phase, lc->bytes[phase]);
    return slowest + wire;
}

polka_status polka_lockstep_clock_create(const polka_plan *plan, size_t agents,
                                         const double bytes[2], polka_lockstep_clock *out) {
    *out = (polka_lockstep_clock){
        .phases = bytes[1] > 0 ? 2 : 1, .bytes = {bytes[0], bytes[1]}, .constant = -1.0};
    POLKA_CALL(polka_clock_create(plan, agents, &out->clock));
    out->medians = malloc((agents ? agents : 1) * sizeof *out->medians);
    POLKA_CHECK(out->medians, POLKA_ERR_MEM, "out of memory for the agents' speeds");
    for (size_t i = 0; i < agents; i++) {
        out->medians[i] = polka_clock_median(&out->clock, i);
        if (out->medians[i] > out->slowest) out->slowest = out->medians[i];
    }
    if (out->clock.jitter <= 0 && out->clock.latency_jitter <= 0)
        out->constant = polka_lockstep_round_time(out, NULL, 0);
    return POLKA_OK;
}

void polka_lockstep_clock_free(polka_lockstep_clock *lc) {
    polka_clock_free(&lc->clock);
    free(lc->medians);
    lc->medians = NULL;
}
