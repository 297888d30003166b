/* The simulation's shared services: the clock, the hooks, round arithmetic, finite checks. */
#include "sim/plan/plan_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "polka/config.h"
#include "polka/format.h"
#include "polka/paths.h"

double polka_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void polka_plan_log(const polka_sim_hooks *hooks, const char *fmt, ...) {
    if (hooks == NULL || hooks->log == NULL) return;
    char line[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    hooks->log(hooks->context, line);
}

void polka_plan_warn(const polka_sim_hooks *hooks, const char *fmt, ...) {
    polka_log_fn hook = hooks ? (hooks->warn ? hooks->warn : hooks->log) : NULL;
    if (hook == NULL) return;
    char line[1536];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    hook(hooks->context, line);
}

/* A key's value as text, a number in the fewest digits that read back the same. */
static void value_text(const polka_config *config, const polka_config_key *key, char *out,
                       size_t size) {
    if (key->type == POLKA_KEY_DOUBLE)
        polka_format_double(out, size, *(const double *)((const char *)config + key->offset));
    else
        polka_config_get(config, key, out, size);
}

/* One warning per key set for a kind this run did not choose (polka_config_idle_keys), once the
 * run's start-up has succeeded: a refused run says only why it was refused. */
void polka_plan_warn_idle(const polka_plan *plan, const polka_sim_hooks *hooks) {
    enum { SHOWN = 16 };
    polka_config_idle idle[SHOWN];
    size_t count = polka_config_idle_keys(&plan->settings, idle, SHOWN);
    for (size_t k = 0; k < count && k < SHOWN; k++) {
        char value[POLKA_PATH_LEN], chosen[POLKA_PATH_LEN];
        const char *owner = idle[k].key->owner, *kinds = owner + strcspn(owner, " ") + 1;
        value_text(&plan->settings, idle[k].key, value, sizeof value);
        polka_config_get(&plan->settings, idle[k].chooser, chosen, sizeof chosen);
        polka_plan_warn(
            hooks, "warning: %s = %s has no effect: it is a knob of %s = %s (this run's is %s)",
            idle[k].key->name, value, idle[k].chooser->name, kinds, chosen);
    }
    if (count > SHOWN)
        polka_plan_warn(hooks, "warning: and %zu more keys without effect", count - SHOWN);
}

void polka_plan_report_clock(const polka_sim_hooks *hooks, size_t round, size_t rounds,
                             double samples, double start, const polka_sim_summary *summary,
                             double clock, double horizon) {
    if (hooks == NULL || hooks->progress == NULL) return;
    polka_sim_progress progress = {
        .round = round,
        .rounds = rounds,
        .samples = samples,
        .seconds = polka_now() - start,
        .mean_score = summary->mean_score,
        .mean_order = summary->mean_order,
        .clock = clock,
        .horizon = horizon,
    };
    hooks->progress(hooks->context, &progress);
}

void polka_plan_report(const polka_sim_hooks *hooks, size_t round, size_t rounds, double samples,
                       double start, const polka_sim_summary *summary) {
    polka_plan_report_clock(hooks, round, rounds, samples, start, summary, 0.0, 0.0);
}

void polka_plan_rates(polka_sim_summary *summary) {
    double learning = summary->seconds - summary->log_seconds;
    summary->samples_per_second = summary->seconds > 0 ? summary->samples / summary->seconds : 0.0;
    summary->learn_samples_per_second = learning > 0 ? summary->samples / learning : 0.0;
}

static int all_finite(const double *values, size_t n) {
    for (size_t e = 0; e < n; e++)
        if (!isfinite(values[e])) return 0;
    return 1;
}

polka_status polka_plan_check_finite(const polka_model *model, size_t agent) {
    size_t m = polka_model_order(model);
    int finite = all_finite(polka_model_weights(model), m * polka_model_outputs(model)) &&
                 all_finite(polka_model_dictionary(model), m * polka_model_dim(model));
    POLKA_CHECK(finite, POLKA_ERR_NUMERIC,
                "the run diverged: agent %zu's model has a non-finite number (lower learner.eta "
                "or net.c, or rescale the data)",
                agent);
    return POLKA_OK;
}

size_t polka_plan_rounds(double passes, size_t n_train, size_t per_round) {
    double total = ceil(passes * (double)n_train);
    size_t rounds = (size_t)ceil(total / (double)per_round);
    return rounds > 0 ? rounds : 1;
}
