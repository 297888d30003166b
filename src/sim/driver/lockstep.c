/* The lockstep loop every driver shares (polka_sim_loop): rounds, log steps, progress, and
 * when the ranks agree to checkpoint or stop. */
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "polka/net.h"
#include "polka/stop.h"
#include "sim/checkpoint/resume_impl.h"
#include "sim/driver/sim_impl.h"
#include "sim/method/method_impl.h"

/* After a signal: the checkpoint is written, the run stops with one line saying where. */
static polka_status stopped(const polka_plan *plan, uint64_t round, size_t rounds, int signal) {
    char path[POLKA_PATH_LEN];
    polka_plan_checkpoint_path(plan, path, sizeof path);
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
    polka_plan_checkpoint_path(plan, path, sizeof path);
    if (wish == POLKA_CKPT_STOP)
        return polka_error_set(code,
                               "stopped by a signal after round %llu, but its checkpoint was not "
                               "written: %s",
                               (unsigned long long)round, message);
    if (code != POLKA_ERR_IO && code != POLKA_ERR_HDF5) return polka_error_set(code, "%s", message);
    polka_error_clear();
    if (saved)
        polka_plan_warn(
            hooks,
            "warning: the checkpoint after round %llu was not written (%s); the run goes on, "
            "and '%s' keeps the one of round %llu",
            (unsigned long long)round, message, path, (unsigned long long)saved);
    else
        polka_plan_warn(
            hooks, "warning: the checkpoint after round %llu was not written (%s); the run goes on",
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
    polka_plan_checkpoint_path(plan, path, sizeof path);
    struct stat info;
    double mb = stat(path, &info) == 0 ? (double)info.st_size / 1e6 : 0.0;
    polka_plan_log(hooks, "checkpoint: round %llu, %.1f MB in %.3f s -> %s",
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
    polka_plan_checkpoint_path(plan, path, sizeof path);
    return plan->run.resume[0] != '\0' && strcmp(path, plan->run.resume) == 0;
}

/* Collective: a time-varying graph's epochs checked before the first round (rank 0's
 * verdict), so that a run does not fail late on one of them. */
static polka_status check_epochs(const polka_plan *plan, const polka_driver *driver, uint64_t first,
                                 size_t rounds) {
    if (plan->run.mode == POLKA_MODE_CENTRALIZED || driver->agents < 2) return POLKA_OK;
    polka_graph_check check = polka_method_of(plan)->check_graph;
    if (driver->comm == MPI_COMM_SELF) /* the serial reference (also without MPI) */
        return polka_network_check_epochs(plan, driver->agents, first, rounds, check);
    int rank = 0;
    MPI_Comm_rank(driver->comm, &rank);
    polka_status status =
        rank == 0 ? polka_network_check_epochs(plan, driver->agents, first, rounds, check)
                  : POLKA_OK;
    return polka_net_agree(driver->comm, status);
}

/* Collective: an epoch graph failed at the start of a round (every rank's generation fails
 * alike), before it changed anything: the rounds before it go into the checkpoint. */
static polka_status keep_before_epoch(const polka_plan *plan, const polka_driver *driver,
                                      const polka_sim_point *at, polka_status status) {
    char why[768], path[POLKA_PATH_LEN];
    snprintf(why, sizeof why, "%s", polka_error_message());
    polka_plan_checkpoint_path(plan, path, sizeof path);
    POLKA_CALL(polka_ckpt_save(plan, driver, at, 0));
    return polka_error_set(status, "%s; the %llu rounds before it are in the checkpoint '%s'", why,
                           (unsigned long long)at->round, path);
}

polka_status polka_sim_loop(const polka_plan *plan, const polka_driver *driver, size_t n_train,
                            size_t per_round, const polka_sim_point *from,
                            const polka_sim_hooks *hooks, polka_sim_summary *summary) {
    const polka_driver_ops *ops = driver->ops;
    int saves = ops->save_agent != NULL;
    size_t rounds = polka_plan_rounds(plan->run.passes, n_train, per_round);
    double every = (double)plan->run.log_every, start = polka_now();
    polka_sim_point at = from ? *from : (polka_sim_point){.next_log = every};
    double last_save = start;
    uint64_t saved = resumed_here(plan) ? at.round : 0; /* the round of the checkpoint on disk */
    if (from) POLKA_CALL(check_point(plan, &at, rounds, per_round, every));
    summary->rounds = rounds; /* the log steps know the last one */
    summary->loop_start = start;
    POLKA_CALL(check_epochs(plan, driver, at.round, rounds));
    polka_plan_warn_idle(plan, hooks);
    for (size_t t = (size_t)at.round; t < rounds; t++) {
        int wish = saves ? polka_ckpt_wish(plan, t + 1, rounds, last_save) : POLKA_CKPT_NONE;
        polka_status status = ops->round(driver->context, t, &wish);
        if (status != POLKA_OK && saves && polka_network_epoch_failed(t)) {
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
        polka_plan_report(hooks, t + 1, rounds, samples, start, summary);
        if (wish == POLKA_CKPT_NONE || !saves) continue;
        at.round = t + 1;
        int signal = wish == POLKA_CKPT_STOP ? polka_ckpt_signal() : 0;
        if (signal) polka_ckpt_saving();
        double began = polka_now();
        status = polka_ckpt_save(plan, driver, &at, signal);
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
    polka_plan_rates(summary);
    return POLKA_OK;
}
