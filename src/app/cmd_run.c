/* polka run: one run of the configuration; prints a summary on rank 0. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_impl.h"
#include "polka/net.h"
#include "polka/loss.h"
#include "polka/sim.h"
#include "polka/stop.h"

typedef enum { PROGRESS_AUTO, PROGRESS_TTY, PROGRESS_PLAIN, PROGRESS_OFF } progress_mode;

typedef struct {
    int quiet;
    progress_mode progress;
    int expect_resume;           /* the previous argument was --resume */
    char resume[POLKA_PATH_LEN]; /* --resume FILE */
} run_options;

/* --resume FILE (or --resume=FILE): the checkpoint to go on from. */
static int resume_extra(const char *arg, run_options *options) {
    const char *file = options->expect_resume ? arg : arg + 9;
    options->expect_resume = 0;
    if (strlen(file) >= sizeof options->resume || file[0] == '\0') {
        polka_error_set(POLKA_ERR_ARG, "--resume needs a checkpoint file name");
        return -1;
    }
    snprintf(options->resume, sizeof options->resume, "%s", file);
    return 1;
}

static int run_extra(const char *arg, void *context) {
    run_options *options = context;
    if (options->expect_resume || strncmp(arg, "--resume=", 9) == 0)
        return resume_extra(arg, options);
    if (strcmp(arg, "--resume") == 0) {
        options->expect_resume = 1;
        return 1;
    }
    if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
        options->quiet = 1;
        return 1;
    }
    if (strncmp(arg, "--progress=", 11) != 0) return 0;
    static const char *const modes[] = {"auto", "tty", "plain", "off"};
    int mode;
    if (polka_name_find(arg + 11, modes, POLKA_COUNT(modes), "--progress mode", &mode) != POLKA_OK)
        return -1;
    options->progress = (progress_mode)mode;
    return 1;
}

/* The progress display: one updating line on a terminal, a plain line every
 * PLAIN_PERIOD seconds otherwise (a log file, a batch job). */
#define TTY_PERIOD   0.2
#define PLAIN_PERIOD 10.0

typedef struct {
    int tty;
    int line_open; /* an updating line is on the terminal */
    double last;   /* seconds into the run of the last report */
} progress_state;

/* Under mpirun, stdout is always a pseudo-terminal (even when mpirun's output goes to a
 * file), so "auto" only trusts isatty() when not launched by mpirun. */
static int is_terminal(progress_mode mode) {
    if (mode != PROGRESS_AUTO) return mode == PROGRESS_TTY;
    if (getenv("OMPI_COMM_WORLD_SIZE") != NULL) return 0;
    return isatty(fileno(stdout));
}

static void print_line(void *context, const char *line) {
    progress_state *state = context;
    if (state->line_open) printf("\r\033[K");
    state->line_open = 0;
    printf("%s\n", line);
    fflush(stdout);
}

/* Warnings go to stderr on rank 0, --quiet or not. */
static void print_warning(void *context, const char *line) {
    progress_state *state = context;
    if (state->line_open) printf("\n");
    state->line_open = 0;
    fflush(stdout);
    fprintf(stderr, "polka run: %s\n", line);
}

static void print_progress(void *context, const polka_sim_progress *p) {
    progress_state *state = context;
    int last = p->round == p->rounds;
    double period = state->tty ? TTY_PERIOD : PLAIN_PERIOD;
    if (!last && p->seconds - state->last < period) return;
    state->last = p->seconds;
    char text[240];
    if (p->horizon > 0) { /* the event engine: the ETA from the virtual time played */
        double eta = p->clock > 0 ? p->seconds * (p->horizon - p->clock) / p->clock : 0.0;
        snprintf(text, sizeof text,
                 "row %zu/%zu  virtual time %.6g/%.6g  ETA %.0f s  mean score %.4f  order %.1f",
                 p->round, p->rounds, p->clock, p->horizon, eta, p->mean_score, p->mean_order);
    } else {
        double rate = p->seconds > 0 ? p->samples / p->seconds : 0.0;
        double eta =
            p->round ? p->seconds * (double)(p->rounds - p->round) / (double)p->round : 0.0;
        snprintf(text, sizeof text,
                 "round %zu/%zu  %.0f samples/s  ETA %.0f s  mean score %.4f  order %.1f", p->round,
                 p->rounds, rate, eta, p->mean_score, p->mean_order);
    }
    if (state->tty) {
        printf("\r\033[K%s%s", text, last ? "\n" : "");
        state->line_open = !last;
    } else if (!last) {
        printf("progress: %s\n", text);
    }
    fflush(stdout);
}

/* The lowest loss of the log steps, on the whole test set or on run.log_test's points. */
static double lowest_of(const polka_sim_summary *s) {
    return s->sample_logged && s->lowest_sample_loss < s->lowest_loss ? s->lowest_sample_loss
                                                                      : s->lowest_loss;
}

/* The keys whose steps a diverged run most likely took too large, most likely first. */
static const char *step_keys(const polka_plan *plan) {
    const polka_config *s = &plan->settings;
    int penalty = strcmp(s->method, "penalty") == 0,
        admm = !penalty && strcmp(s->method, "rf-diffusion") != 0;
    if (plan->run.mode == POLKA_MODE_CENTRALIZED) return "learner.eta";
    if (s->codec_gamma > 0)
        return "net.codec_gamma, CHOCO-gossip's consensus step, then learner.eta";
    if (penalty) return "learner.eta or net.c, the consensus penalty";
    return admm ? "learner.eta or net.admm_rho" : "learner.eta";
}

static void print_summary(const polka_plan *plan, const polka_sim_summary *s) {
    polka_loss_kind loss = plan->learner.params.loss.kind;
    printf("summary: mode %s, agents %zu, rounds %zu, samples %.0f\n",
           polka_run_mode_name(plan->run.mode), s->agents, s->rounds, s->samples);
    if (loss == POLKA_LOSS_NOVELTY)
        printf("summary: novelty: %.2f %% of the test points flagged (f < rho), %.2f %% of the "
               "training samples flagged online, nu = %g (mean over agents)\n",
               100.0 * s->mean_score, 100.0 * s->online_error, plan->learner.params.nu);
    else if (polka_loss_is_classification(loss))
        printf("summary: test error %.2f %% (mean over agents; min acc %.4f, max acc %.4f), "
               "test loss %.4f, online error %.2f %%\n",
               100.0 * (1.0 - s->mean_score), s->min_score, s->max_score, s->mean_loss,
               100.0 * s->online_error);
    else
        printf("summary: test mse %.6g (mean over agents; min %.6g, max %.6g), test loss %.6g\n",
               s->mean_score, s->min_score, s->max_score, s->mean_loss);
    printf("summary: model order %.1f (max %zu), %.0f samples/s, %.2f s\n", s->mean_order,
           s->max_order, s->samples_per_second, s->seconds);
    printf("summary: learning %.0f samples/s in %.2f s; log steps %.2f s (scoring the test set)\n",
           s->learn_samples_per_second, s->seconds - s->log_seconds, s->log_seconds);
    if (s->agents > 1)
        printf("summary: disagreement %.3g, %.0f bytes/round\n", s->disagreement,
               s->bytes_per_round);
    if (plan->run.mode == POLKA_MODE_DECENTRALIZED) {
        printf("summary: across ranks %.0f bytes/round per rank (mean; largest %.0f)\n",
               s->rank_bytes_per_round, s->rank_bytes_per_round_max);
        printf("summary: placement %s: %zu of %zu edges cross ranks\n",
               polka_placement_kind_name(plan->net.placement), s->edges_cut, s->edges);
    }
    if (s->points_clamped > 0)
        printf("summary: %.0f coordinates of the points sent lay outside net.codec_points = "
               "uint8's range [%g, %g] and travelled clamped (the metric points_clamped)\n",
               s->points_clamped, plan->settings.codec_low, plan->settings.codec_high);
    printf("summary: start-up %.2f s, peak memory %.0f MB per rank (largest), %.0f MB in all\n",
           s->setup_seconds, s->peak_rss_mb, s->peak_rss_total_mb);
}

/* 1, or 128 + the signal when a signal stopped the run without a checkpoint (the shells'
 * convention; POLKA_EXIT_STOPPED is the exit with one). */
static int failure_code(polka_status status) {
    int signal = polka_stop_signal();
    if (status == POLKA_INTERRUPTED) return 128 + (signal ? signal : SIGTERM);
    return signal ? 128 + signal : 1;
}

int polka_cmd_run(int argc, char **argv, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    polka_plan plan;
    run_options options = {0};
    polka_status status = polka_app_read_plan(argc, argv, comm, &plan, run_extra, &options);
    if (status == POLKA_OK && options.expect_resume)
        status = polka_error_set(POLKA_ERR_ARG, "--resume needs a checkpoint file name");
    if (status == POLKA_OK) memcpy(plan.run.resume, options.resume, sizeof plan.run.resume);
    if (status == POLKA_OK) status = polka_app_check_files(argc, argv, comm, &plan, 1, NULL, 0);
    polka_sim_summary summary;
    int talk = rank == 0 && !options.quiet;
    progress_state progress = {.tty = is_terminal(options.progress)};
    polka_sim_hooks hooks = {.log = talk ? print_line : NULL,
                             .warn = rank == 0 ? print_warning : NULL,
                             .progress =
                                 talk && options.progress != PROGRESS_OFF ? print_progress : NULL,
                             .context = &progress};
    if (status == POLKA_OK) polka_net_set_watchdog(plan.run.watchdog);
    if (status == POLKA_OK) polka_ckpt_catch_signals();
    if (status == POLKA_OK) status = polka_sim_run(&plan, comm, &hooks, &summary);
    if (status == POLKA_STOPPED) {
        if (rank == 0) printf("polka run: %s\n", polka_error_message());
        fflush(stdout);
        MPI_Barrier(comm); /* the line is out before a launcher sees a rank end with 75 */
        return POLKA_EXIT_STOPPED;
    }
    if (status != POLKA_OK) {
        /* a rank that gave up waiting prints: rank 0 may be the one that stopped */
        if ((rank == 0 && polka_net_stalled() != 2) || polka_net_stalled() == 1)
            fprintf(stderr, "polka run: %s\n", polka_error_message());
        return failure_code(status);
    }
    if (rank == 0) print_summary(&plan, &summary);
    fflush(stdout); /* the warning after the summary it is about */
    if (rank == 0 && polka_metrics_diverged(&summary))
        fprintf(stderr,
                "polka run: warning: the models diverged: the mean test loss grew from %.4g, the "
                "lowest of the log steps, to %.4g at the last (lower %s)\n",
                lowest_of(&summary), summary.mean_loss, step_keys(&plan));
    return 0;
}
