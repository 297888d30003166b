/* What the event engine runs with, checked with the plan (every rank alike). */
#include <math.h>
#include <string.h>

#include "sim/async/async_impl.h"
#include "sim/async/clock_impl.h"
#include "sim/method/method_impl.h"

/* A setting that has no meaning (or no implementation yet) in virtual time: one clear error. */
static polka_status refuse(const char *setting, const char *why) {
    return polka_error_set(POLKA_ERR_ARG, "async.engine = events cannot run with %s: %s", setting,
                           why);
}

static polka_status check_faults(const polka_plan *plan) {
    if (plan->fault.delay > 0)
        return refuse("fault.delay", "late values come from the links' latencies (async.latency, "
                                     "async.latency_jitter, async.bandwidth)");
    if (plan->net.resample_every > 0)
        return refuse("net.resample_every",
                      "time-varying graphs are rounds of the lockstep engine");
    int lossy = plan->fault.link_loss > 0 || plan->fault.offline > 0 || plan->fault.leave[0];
    if (plan->settings.staleness > 0 && (lossy || plan->net.gossip))
        return refuse("async.staleness with lost messages, offline agents or net.gossip",
                      "an agent could wait for a message that never comes");
    if (plan->settings.staleness > 0 && plan->settings.censor_alpha > 0 &&
        polka_method_of(plan)->censors)
        return refuse("async.staleness and net.method = coke",
                      "a censoring neighbour may never send again");
    return POLKA_OK;
}

/* The agents' updates or messages take times that differ (agent to agent, or update to update). */
static int times_differ(const polka_plan *plan) {
    const polka_config *s = &plan->settings;
    return s->compute_sigma > 0 || s->compute_jitter > 0 || s->slow_fraction > 0 || s->slow[0] ||
           s->latency_jitter > 0;
}

polka_status polka_async_check(const polka_plan *plan) {
    const char *engine = plan->settings.engine;
    POLKA_CHECK(strcmp(engine, "lockstep") == 0 || strcmp(engine, "events") == 0, POLKA_ERR_ARG,
                "async.engine = %s: lockstep | events", engine);
    if (!polka_async_enabled(plan) || plan->run.mode == POLKA_MODE_CENTRALIZED) return POLKA_OK;
    POLKA_CALL(check_faults(plan));
    const polka_method_ops *method = polka_method_of(plan);
    if (method->synchronous && times_differ(plan))
        return polka_error_set(
            POLKA_ERR_ARG,
            "async.engine = events cannot run net.method = %s with unequal speeds or latencies "
            "(async.compute_sigma, async.compute_jitter, async.slow, async.slow_fraction, "
            "async.latency_jitter): its ADMM iteration k combines every neighbour's iterate k "
            "[XWCT21], and agents at other speeds mix iterates of other ages, which diverges; run "
            "it with equal speeds and constant latencies, or with async.engine = lockstep",
            method->name);
    if (plan->net.penalty == POLKA_PENALTY_SYMMETRIC || plan->net.share == POLKA_SHARE_SAMPLES)
        return refuse("net.penalty = symmetric or net.share = samples",
                      "their step learns at the neighbours' points of the same round");
    const char *vectors = plan->settings.codec_vectors;
    if (strcmp(vectors, "top-k") == 0 || strcmp(vectors, "random-k") == 0)
        return refuse("net.codec_vectors = top-k or random-k",
                      "their increments need every message, in order");
    return POLKA_OK;
}

/* The updates the agents make in [0, horizon): agent i's take m_i · exp(jitter · Z) each, whose
 * mean is m_i · exp(jitter² / 2) (a log-normal's), so about horizon / that many of them. */
static polka_status expected_updates(const polka_plan *plan, size_t agents, double horizon,
                                     double *updates) {
    polka_clock clock;
    POLKA_CALL(polka_clock_create(plan, agents, &clock));
    double mean_factor = exp(clock.jitter * clock.jitter / 2), sum = 0.0;
    for (size_t i = 0; i < agents; i++)
        sum += horizon / (polka_clock_median(&clock, i) * mean_factor);
    polka_clock_free(&clock);
    *updates = sum;
    return POLKA_OK;
}

polka_status polka_async_check_work(const polka_plan *plan, size_t agents, double horizon,
                                    double interval) {
    const polka_config *s = &plan->settings;
    double windows = horizon / s->latency, rows = ceil(horizon / interval), updates = 0.0;
    POLKA_CALL(expected_updates(plan, agents, horizon, &updates));
    double work = windows + rows + updates;
    if (isfinite(work) && work <= s->max_work) return POLKA_OK;
    return polka_error_set(POLKA_ERR_ARG,
                           "async.engine = events: this run would play about %.3g windows "
                           "(horizon %.6g / async.latency %.6g), %.3g log rows (every %.6g) and "
                           "%.3g updates (the agents' speeds over the horizon): %.3g in all, above "
                           "async.max_work = %.6g; lower async.horizon or raise async.latency, "
                           "async.log_interval or async.compute (and check async.compute_sigma), "
                           "or raise async.max_work to run it",
                           windows, horizon, s->latency, rows, interval, updates, work,
                           s->max_work);
}
