#include <math.h>
#include <stdio.h>
#include <time.h>

#include "sim_impl.h"

double polka_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void polka_sim_log(const polka_sim_hooks *hooks, const char *fmt, ...) {
    if (hooks == NULL || hooks->log == NULL) return;
    char line[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    hooks->log(hooks->context, line);
}

void polka_sim_report(const polka_sim_hooks *hooks, size_t round, size_t rounds, double samples,
                      double start, const polka_sim_summary *summary) {
    if (hooks == NULL || hooks->progress == NULL) return;
    polka_sim_progress progress = {
        .round = round,
        .rounds = rounds,
        .samples = samples,
        .seconds = polka_now() - start,
        .mean_score = summary->mean_score,
        .mean_order = summary->mean_order,
    };
    hooks->progress(hooks->context, &progress);
}

polka_status polka_sim_loop(const polka_config *config, size_t per_round, polka_round_fn round,
                            polka_log_step_fn log_step, void *context, const polka_sim_hooks *hooks,
                            polka_sim_summary *summary) {
    size_t rounds = polka_sim_rounds(config, per_round);
    double next_log = (double)config->log_every, start = polka_now();
    for (size_t t = 0; t < rounds; t++) {
        POLKA_CALL(round(context, t));
        double samples = (double)((t + 1) * per_round);
        if (samples >= next_log || t + 1 == rounds) {
            POLKA_CALL(log_step(context, t + 1, samples, summary));
            while (next_log <= samples) next_log += (double)config->log_every;
        }
        polka_sim_report(hooks, t + 1, rounds, samples, start, summary);
    }
    summary->rounds = rounds;
    summary->samples = (double)(rounds * per_round);
    summary->seconds = polka_now() - start;
    summary->samples_per_second = summary->seconds > 0 ? summary->samples / summary->seconds : 0.0;
    return POLKA_OK;
}

void polka_online_error_add(polka_online_error *error, const polka_learner *learner,
                            const double *f, const double *y, size_t n) {
    double score = polka_learner_score(learner, f, y, n, NULL); /* accuracy, MSE or flagged */
    error->sum += (double)n * (error->classification ? 1.0 - score : score);
    error->count += (double)n;
}

double polka_online_error_value(const polka_online_error *error) {
    return error->count > 0 ? error->sum / error->count : 0.0;
}

polka_status polka_sim_kernel(const polka_config *config, polka_kernel *kernel) {
    *kernel = (polka_kernel){
        .sigma = config->sigma, .degree = (int)config->degree, .coef0 = config->coef0};
    return polka_kernel_kind_parse(config->kernel, &kernel->kind);
}

polka_status polka_sim_loss(const polka_config *config, polka_loss *loss) {
    *loss =
        (polka_loss){.epsilon = config->loss_epsilon, .rho = config->rho, .delta = config->delta};
    return polka_loss_kind_parse(config->loss, &loss->kind);
}

polka_status polka_sim_learner_params(const polka_config *config, polka_learner_params *params) {
    const char *why = polka_config_check(config);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    polka_learner_params_defaults(params);
    POLKA_CALL(polka_sim_kernel(config, &params->kernel));
    POLKA_CALL(polka_sim_loss(config, &params->loss));
    params->eta = config->eta;
    params->lambda = config->lambda;
    params->kp = config->kp;
    params->epsilon = config->epsilon;
    params->jitter = config->jitter;
    params->tau = config->tau;
    params->max_points = config->budget;
    params->beta = config->beta;
    params->neighbours = config->neighbours;
    params->nu = config->nu;
    params->offset = (int)config->offset;
    params->suffix = config->suffix;
    params->seed = config->seed;
    POLKA_CALL(polka_control_kind_parse(config->control, &params->control));
    return polka_schedule_kind_parse(config->schedule, &params->schedule);
}

polka_multidist_params polka_sim_multidist_params(const polka_config *config) {
    return (polka_multidist_params){
        .classes = config->classes,
        .components = config->components,
        .dim = config->dim,
        .mean_var = config->mean_var,
        .sample_var = config->sample_var,
        .seed = config->seed,
        .means_seed = config->means_seed,
    };
}

size_t polka_sim_rounds(const polka_config *config, size_t per_round) {
    double total = ceil(config->passes * (double)config->n_train);
    size_t rounds = (size_t)ceil(total / (double)per_round);
    return rounds > 0 ? rounds : 1;
}

uint64_t polka_sim_train_index(const polka_config *config, uint64_t g) {
    return g % config->n_train;
}
