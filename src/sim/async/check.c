/* What the event engine runs with, checked with the plan (every rank alike). */
#include <string.h>

#include "sim/async/async_impl.h"
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

polka_status polka_async_check(const polka_plan *plan) {
    const char *engine = plan->settings.engine;
    POLKA_CHECK(strcmp(engine, "lockstep") == 0 || strcmp(engine, "events") == 0, POLKA_ERR_ARG,
                "async.engine = %s: lockstep | events", engine);
    if (!polka_async_enabled(plan) || plan->run.mode == POLKA_MODE_CENTRALIZED) return POLKA_OK;
    POLKA_CALL(check_faults(plan));
    if (plan->net.penalty == POLKA_PENALTY_SYMMETRIC || plan->net.share == POLKA_SHARE_SAMPLES)
        return refuse("net.penalty = symmetric or net.share = samples",
                      "their step learns at the neighbours' points of the same round");
    const char *vectors = plan->settings.codec_vectors;
    if (strcmp(vectors, "top-k") == 0 || strcmp(vectors, "random-k") == 0)
        return refuse("net.codec_vectors = top-k or random-k",
                      "their increments need every message, in order");
    return POLKA_OK;
}
