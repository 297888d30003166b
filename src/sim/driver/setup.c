#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "polka/format.h"
#include "polka/net.h"
#include "polka/stop.h"
#include "sim/checkpoint/resume_impl.h"
#include "sim/driver/sim_impl.h"

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

/* A warning through the warn hook (else the log hook). */
static void warn(const polka_sim_hooks *hooks, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn(const polka_sim_hooks *hooks, const char *fmt, ...) {
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
void polka_sim_warn_idle(const polka_plan *plan, const polka_sim_hooks *hooks) {
    enum { SHOWN = 16 };
    polka_config_idle idle[SHOWN];
    size_t count = polka_config_idle_keys(&plan->settings, idle, SHOWN);
    for (size_t k = 0; k < count && k < SHOWN; k++) {
        char value[POLKA_PATH_LEN], chosen[POLKA_PATH_LEN];
        const char *owner = idle[k].key->owner, *kinds = owner + strcspn(owner, " ") + 1;
        value_text(&plan->settings, idle[k].key, value, sizeof value);
        polka_config_get(&plan->settings, idle[k].chooser, chosen, sizeof chosen);
        warn(hooks, "warning: %s = %s has no effect: it is a knob of %s = %s (this run's is %s)",
             idle[k].key->name, value, idle[k].chooser->name, kinds, chosen);
    }
    if (count > SHOWN) warn(hooks, "warning: and %zu more keys without effect", count - SHOWN);
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

/* After a signal: the checkpoint is written, the run stops with one line saying where. */
static polka_status stopped(const polka_plan *plan, uint64_t round, size_t rounds, int signal) {
    char path[POLKA_PATH_LEN];
    polka_ckpt_path(plan, path, sizeof path);
    const char *name = signal ? polka_stop_signal_name(signal) : "a signal (on another rank)";
    return polka_error_set(POLKA_STOPPED,
                           "stopped by %s after round %llu of %zu; checkpoint in '%s' (go on with "
                           "polka run --resume %s)",
                           name, (unsigned long long)round, rounds, path, path);
}

/* A checkpoint at `at` that could not be written (code: its status, the same on every rank).
 * Periodic: the file system failed it (a full disk, its directory gone), so the run goes on
 * with a warning and the previous checkpoint stays whole (polka_ckpt_write writes a temporary
 * file renamed over it); any other failure, or a signal's checkpoint, ends the run. */
static polka_status not_saved(const polka_plan *plan, const polka_sim_hooks *hooks,
                              polka_status code, int wish, uint64_t round, uint64_t saved) {
    char message[1024], path[POLKA_PATH_LEN];
    snprintf(message, sizeof message, "%s", polka_error_message());
    polka_ckpt_path(plan, path, sizeof path);
    if (wish == POLKA_CKPT_STOP)
        return polka_error_set(code,
                               "stopped by a signal after round %llu, but its checkpoint was not "
                               "written: %s",
                               (unsigned long long)round, message);
    if (code != POLKA_ERR_IO && code != POLKA_ERR_HDF5) return polka_error_set(code, "%s", message);
    polka_error_clear();
    if (saved)
        warn(hooks,
             "warning: the checkpoint after round %llu was not written (%s); the run goes on, "
             "and '%s' keeps the one of round %llu",
             (unsigned long long)round, message, path, (unsigned long long)saved);
    else
        warn(hooks,
             "warning: the checkpoint after round %llu was not written (%s); the run goes on",
             (unsigned long long)round, message);
    return POLKA_OK;
}

/* A round that a signal cut short (polka_stop_overdue) leaves no checkpoint: say so. */
static polka_status abandoned(polka_status status, size_t round, size_t rounds) {
    if (status != POLKA_INTERRUPTED || polka_net_stalled()) return status; /* a wait said why */
    char why[512];
    snprintf(why, sizeof why, "%s", polka_error_message());
    return polka_error_set(status,
                           "%s: round %zu of %zu was still running %.0f s after it and was "
                           "abandoned, no checkpoint written (the last one, if any, is kept)",
                           why, round, rounds, POLKA_STOP_GRACE);
}

/* One line per checkpoint: where, how large, how long it took (rank 0's hook). */
static void log_checkpoint(const polka_plan *plan, const polka_sim_hooks *hooks, uint64_t round,
                           double seconds) {
    char path[POLKA_PATH_LEN];
    polka_ckpt_path(plan, path, sizeof path);
    struct stat info;
    double mb = stat(path, &info) == 0 ? (double)info.st_size / 1e6 : 0.0;
    polka_sim_log(hooks, "checkpoint: round %llu, %.1f MB in %.3f s -> %s",
                  (unsigned long long)round, mb, seconds, path);
}

/* A resumed run's point: a round before the last, and the next log step the first multiple of
 * run.log_every after the samples of that round (as the loop below leaves it). */
static polka_status check_point(const polka_plan *plan, const polka_sim_point *at, size_t rounds,
                                size_t per_round, double every) {
    POLKA_CHECK(at->round < rounds, POLKA_ERR_ARG,
                "cannot resume: the checkpoint is at round %llu, and this run has %zu rounds "
                "(raise run.passes)",
                (unsigned long long)at->round, rounds);
    double done = (double)at->round * (double)per_round;
    POLKA_CHECK(isfinite(at->next_log) && at->next_log > done && at->next_log <= done + every &&
                    fmod(at->next_log, every) == 0.0,
                POLKA_ERR_FORMAT,
                "cannot resume from '%s': its next log step (%g samples) does not follow its "
                "round %llu (%g samples, a log step every %g; damaged)",
                plan->run.resume, at->next_log, (unsigned long long)at->round, done, every);
    return POLKA_OK;
}

/* The run resumed from the file its checkpoints go to. */
static int resumed_here(const polka_plan *plan) {
    char path[POLKA_PATH_LEN];
    polka_ckpt_path(plan, path, sizeof path);
    return plan->run.resume[0] != '\0' && strcmp(path, plan->run.resume) == 0;
}

/* Collective: a time-varying graph's epochs checked before the first round (rank 0's
 * verdict), so that a run does not fail late on one of them. */
static polka_status check_epochs(const polka_plan *plan, const polka_driver *driver, uint64_t first,
                                 size_t rounds) {
    if (plan->run.mode == POLKA_MODE_CENTRALIZED || driver->agents < 2) return POLKA_OK;
    if (driver->comm == MPI_COMM_SELF) /* the serial reference (also without MPI) */
        return polka_sim_check_epochs(plan, driver->agents, first, rounds);
    int rank = 0;
    MPI_Comm_rank(driver->comm, &rank);
    polka_status status =
        rank == 0 ? polka_sim_check_epochs(plan, driver->agents, first, rounds) : POLKA_OK;
    return polka_net_agree(driver->comm, status);
}

/* Collective: an epoch graph failed at the start of a round (every rank's generation fails
 * alike), before it changed anything: the rounds before it go into the checkpoint. */
static polka_status keep_before_epoch(const polka_plan *plan, const polka_driver *driver,
                                      const polka_sim_point *at, polka_status status) {
    char why[768], path[POLKA_PATH_LEN];
    snprintf(why, sizeof why, "%s", polka_error_message());
    polka_ckpt_path(plan, path, sizeof path);
    POLKA_CALL(polka_sim_save(plan, driver, at, 0));
    return polka_error_set(status, "%s; the %llu rounds before it are in the checkpoint '%s'", why,
                           (unsigned long long)at->round, path);
}

polka_status polka_sim_loop(const polka_plan *plan, const polka_driver *driver, size_t n_train,
                            size_t per_round, const polka_sim_point *from,
                            const polka_sim_hooks *hooks, polka_sim_summary *summary) {
    const polka_driver_ops *ops = driver->ops;
    int saves = ops->save_agent != NULL;
    size_t rounds = polka_sim_rounds(plan->run.passes, n_train, per_round);
    double every = (double)plan->run.log_every, start = polka_now();
    polka_sim_point at = from ? *from : (polka_sim_point){.next_log = every};
    double last_save = start;
    uint64_t saved = resumed_here(plan) ? at.round : 0; /* the round of the checkpoint on disk */
    if (from) POLKA_CALL(check_point(plan, &at, rounds, per_round, every));
    summary->rounds = rounds; /* the log steps know the last one */
    summary->loop_start = start;
    POLKA_CALL(check_epochs(plan, driver, at.round, rounds));
    polka_sim_warn_idle(plan, hooks);
    for (size_t t = (size_t)at.round; t < rounds; t++) {
        int wish = saves ? polka_ckpt_wish(plan, t + 1, rounds, last_save) : POLKA_CKPT_NONE;
        polka_status status = ops->round(driver->context, t, &wish);
        if (status != POLKA_OK && saves && polka_sim_epoch_failed(t)) {
            at.round = t;
            return keep_before_epoch(plan, driver, &at, status);
        }
        POLKA_CALL(abandoned(status, t + 1, rounds));
        double samples = (double)((t + 1) * per_round);
        if (samples >= at.next_log || t + 1 == rounds) {
            double log_began = polka_now();
            POLKA_CALL(ops->log_step(driver->context, t + 1, samples, summary));
            summary->log_seconds += polka_now() - log_began;
            while (at.next_log <= samples) at.next_log += every;
            at.rows++;
        }
        polka_sim_report(hooks, t + 1, rounds, samples, start, summary);
        if (wish == POLKA_CKPT_NONE || !saves) continue;
        at.round = t + 1;
        int signal = wish == POLKA_CKPT_STOP ? polka_ckpt_signal() : 0;
        if (signal) polka_ckpt_saving();
        double began = polka_now();
        status = polka_sim_save(plan, driver, &at, signal);
        last_save = polka_now();
        if (status != POLKA_OK) {
            POLKA_CALL(not_saved(plan, hooks, status, wish, at.round, saved));
            continue;
        }
        saved = at.round;
        log_checkpoint(plan, hooks, at.round, last_save - began);
        if (wish == POLKA_CKPT_STOP) return stopped(plan, at.round, rounds, signal);
    }
    summary->rounds = rounds;
    summary->samples = (double)(rounds * per_round);
    summary->seconds = polka_now() - start;
    polka_sim_rates(summary);
    return POLKA_OK;
}

void polka_sim_rates(polka_sim_summary *summary) {
    double learning = summary->seconds - summary->log_seconds;
    summary->samples_per_second = summary->seconds > 0 ? summary->samples / summary->seconds : 0.0;
    summary->learn_samples_per_second = learning > 0 ? summary->samples / learning : 0.0;
}

polka_multidist_params polka_sim_multidist_params(const polka_plan *plan) {
    const polka_data_spec *data = &plan->data;
    return (polka_multidist_params){
        .classes = data->classes,
        .components = data->components,
        .dim = data->dim,
        .mean_var = data->mean_var,
        .sample_var = data->sample_var,
        .seed = plan->run.seed,
        .means_seed = data->means_seed,
    };
}

polka_dataset polka_sim_log_test(const polka_plan *plan, const polka_dataset *test, size_t round,
                                 const polka_sim_summary *summary) {
    polka_dataset view = *test;
    size_t subset = plan->run.log_test;
    if (round < summary->rounds && subset > 0 && subset < test->n) view.n = subset;
    return view;
}

size_t polka_sim_disagreement_points(const polka_plan *plan, const polka_dataset *scored) {
    size_t subset = plan->run.log_test;
    return subset > 0 && subset < scored->n ? subset : scored->n;
}

static int all_finite(const double *values, size_t n) {
    for (size_t e = 0; e < n; e++)
        if (!isfinite(values[e])) return 0;
    return 1;
}

polka_status polka_sim_check_finite(const polka_model *model, size_t agent) {
    size_t m = polka_model_order(model);
    int finite = all_finite(polka_model_weights(model), m * polka_model_outputs(model)) &&
                 all_finite(polka_model_dictionary(model), m * polka_model_dim(model));
    POLKA_CHECK(finite, POLKA_ERR_NUMERIC,
                "the run diverged: agent %zu's model has a non-finite number (lower learner.eta "
                "or net.c, or rescale the data)",
                agent);
    return POLKA_OK;
}

size_t polka_sim_rounds(double passes, size_t n_train, size_t per_round) {
    double total = ceil(passes * (double)n_train);
    size_t rounds = (size_t)ceil(total / (double)per_round);
    return rounds > 0 ? rounds : 1;
}
