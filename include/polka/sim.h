/**
 * @file sim.h
 * @brief A run: data streams, learners, the agent loop and its metrics.
 */
#ifndef POLKA_SIM_H
#define POLKA_SIM_H

#include <mpi.h>
#include <stddef.h>

#include "polka/data.h"
#include "polka/error.h"
#include "polka/learner.h"
#include "polka/model.h"
#include "polka/plan.h"
#include "polka/rff.h"

/** Where the library's progress lines go (rank 0 by default); NULL to stay quiet. */
typedef void (*polka_log_fn)(void *context, const char *line);

/** Where a run is, for a progress display (rank 0, every round). */
typedef struct {
    size_t round, rounds;
    double samples, seconds;
    double mean_score, mean_order; /**< as of the last log step */
    double clock, horizon; /**< the event engine's virtual time and where it ends (0: lockstep) */
} polka_sim_progress;

typedef void (*polka_progress_fn)(void *context, const polka_sim_progress *progress);

typedef struct {
    polka_log_fn log;
    polka_log_fn warn;          /**< a warning (the run goes on); NULL: to log */
    polka_progress_fn progress; /**< NULL: no progress reports */
    void *context;
} polka_sim_hooks;

/** What a run ends with (valid on every rank). */
typedef struct {
    size_t agents, rounds;
    double samples; /**< training samples seen by all agents together */
    double
        mean_score; /**< mean over agents: test accuracy, MSE (regression) or flagged (novelty) */
    double min_score, max_score;
    double mean_loss;   /**< mean test loss over agents */
    double lowest_loss; /**< the lowest mean_loss of the run's log steps (when loss_logged) */
    int loss_logged;    /**< a log step has set lowest_loss */
    double lowest_sample_loss; /**< the lowest of the steps that scored run.log_test's points */
    int sample_logged;         /**< such a step has set lowest_sample_loss */
    double online_error; /**< mean over agents of the online error (novelty: flagged online) */
    double mean_order;   /**< mean model order over agents */
    size_t max_order;
    double disagreement; /**< mean over test points of ‖f_i − f̄‖², averaged over agents */
    double points_clamped; /**< coordinates sent clamped to uint8's range, all agents
                              (net.codec_points) */
    double seconds;        /**< wall time of the learning loop */
    double log_seconds;    /**< of which the log steps (scoring the test set, metric rows) */
    double loop_start;     /**< when the loop started (rank 0's monotonic clock, polka_sim_loop) */
    double setup_seconds;  /**< polka_sim_run: from its start to the first round */
    double peak_rss_mb;    /**< polka_sim_run: the largest peak resident memory of a rank, MB */
    double peak_rss_total_mb;        /**< ... and the sum over the ranks of their peaks, MB */
    double samples_per_second;       /**< samples / seconds */
    double learn_samples_per_second; /**< samples / (seconds − log_seconds) */
    double bytes_per_round;          /**< bytes sent by all agents per round */
    double rank_bytes_per_round;     /**< bytes that crossed ranks per round, mean over ranks */
    double rank_bytes_per_round_max; /**< the same, the largest rank */
    size_t edges, edges_cut; /**< decentralized: the first graph's edges, those across ranks */
} polka_sim_summary;

/**
 * Whether the models diverged: the mean test loss at the last log step is non-finite, or
 * above 10 and 100 times the lowest of the log steps that scored the whole test set (all of
 * them without run.log_test; since the start or the resume), or 10^6 times the lowest of the
 * steps that scored run.log_test's points only (a noisy sample of the set: under run.log_test
 * only the last step scores all of it). Learning lowers the loss; a drifting stream raises it
 * by less than 100 times. Pure.
 */
int polka_metrics_diverged(const polka_sim_summary *summary);

/**
 * The settings checkpoint `path` was written with, set in config (after its defaults, before a
 * configuration file and --set: `polka run --resume FILE` alone resumes as written). The file
 * is checked as a resume checks it (format, digest, version). Not collective.
 */
polka_status polka_ckpt_resume_settings(const char *path, polka_config *config);

/** The multidist parameters of a plan. */
polka_multidist_params polka_stream_multidist_params(const polka_plan *plan);

/**
 * Runs centralized POLK on the calling process: one agent learning from the union of the
 * streams of `agents` agents, in mini-batches of run.central_batch samples (0: one round
 * of all agents, agents × learner.batch, at most POLKA_CENTRAL_BATCH_MAX). Not collective.
 */
polka_status polka_sim_run_centralized(const polka_plan *plan, size_t agents,
                                       const polka_sim_hooks *hooks, polka_sim_summary *summary);

/**
 * Collective: the greedy projected penalty method on the configured graph, its agents
 * (net.agents; 0: the graph file's nodes, else one per rank) placed on the ranks of comm in
 * contiguous blocks. models, when not NULL, has an entry per agent and receives a copy of
 * the final model of each of this rank's agents (the caller owns them; others are untouched).
 */
polka_status polka_sim_run_decentralized(const polka_plan *plan, MPI_Comm comm,
                                         const polka_sim_hooks *hooks, polka_sim_summary *summary,
                                         polka_model **models);

/**
 * The serial network reference: the same method for `agents` agents simulated in one process
 * (no MPI call), round by round. models, when not NULL, receives a copy of every agent's final
 * model (agents entries; the caller owns them).
 */
polka_status polka_sim_run_reference(const polka_plan *plan, size_t agents,
                                     const polka_sim_hooks *hooks, polka_sim_summary *summary,
                                     polka_model **models);

/**
 * Runs the plan on comm (collective; every rank holds the same plan). mode = centralized runs on
 * rank 0 and shares the summary; mode = decentralized makes every rank an agent. On an error on any
 * rank, every rank returns an error and rank 0 holds the message.
 */
polka_status polka_sim_run(const polka_plan *plan, MPI_Comm comm, const polka_sim_hooks *hooks,
                           polka_sim_summary *summary);

/**
 * Reads a data file the way the run of `plan` read its test set: in `format` (NULL: the
 * run's data.format, by the name for auto or a generated source), IDX labels from
 * labels_path, with the training file's label map and scaling (a file run) or classes
 * 0..C−1 (a generated source; none when the loss is novelty or regression). *class_labels
 * (classes entries, caller frees) maps a class index back to the file's label value. Not
 * collective.
 */
polka_status polka_metrics_read_like_run(const polka_plan *plan, const char *path,
                                         const char *labels_path, const char *format,
                                         polka_dataset *out, double **class_labels);

/**
 * Predictions of a model on data read by polka_metrics_read_like_run (class indices, novelty
 * flags or values) into predictions (data->n), and what the run reports for its test set:
 * the score (accuracy, flagged fraction or MSE, see polka_loss_score_name) and the mean
 * loss, with the run's loss and its parameters. Refuses a model whose inputs or outputs do
 * not fit the data and the run's loss.
 */
polka_status polka_metrics_predict(const polka_plan *plan, const polka_model *model,
                                   const polka_dataset *data, double *predictions, double *score,
                                   double *mean_loss);

/** polka_metrics_predict for a random-feature model: the features rff and θ (D × outputs). */
polka_status polka_metrics_predict_rff(const polka_plan *plan, const polka_rff *rff,
                                       const double *theta, size_t outputs,
                                       const polka_dataset *data, double *predictions,
                                       double *score, double *mean_loss);

/** The realised per-agent class histogram of a configuration (`polka data split`). */
typedef struct {
    size_t agents, classes;
    uint64_t samples; /**< the run's training samples (all agents), whole rounds */
    size_t *counts;   /**< agents × classes: the samples of each class each agent learns from */
} polka_class_histogram;

/**
 * Draws the run's training stream for the agents of the plan (net.agents, else the graph
 * file's nodes, else `ranks`) and counts each agent's samples by class, as the run would
 * learn them (splits and quantity skew included). Not collective.
 */
polka_status polka_sim_class_histogram(const polka_plan *plan, size_t ranks,
                                       polka_class_histogram *out);
void polka_class_histogram_free(polka_class_histogram *histogram);

/**
 * Installs the handlers of SIGTERM, SIGINT and SIGUSR1 (`polka run`): a run that gets one
 * finishes its round, writes a checkpoint (run.checkpoint) on every rank's agreement and
 * returns POLKA_STOPPED. The handlers only set a flag. Not collective.
 */
void polka_ckpt_catch_signals(void);

/** The decentralized methods (polka/methods.h) in list order: their count, and method k's name
 * and one-line help. */
size_t polka_method_count(void);
const char *polka_method_name_at(size_t k);
const char *polka_method_help_at(size_t k);

#endif
