/* Per-agent metrics at a log step, and their reduction into log lines, CSV rows and a summary. */
#ifndef POLKA_SIM_METRICS_H
#define POLKA_SIM_METRICS_H

#include <stdio.h>

#include "sim/agent/agent_impl.h"
#include "sim/metrics/history_impl.h"
#include "sim/plan/plan_impl.h"
#include "polka/runfile.h"
#include "polka/sim.h"

/*
 * The per-agent metrics of a log step: the one list of them, in the order of the run file's
 * /metrics columns and of the CSV columns. X(field, run-file name, CSV column (NULL: not in
 * the CSV), CSV format, description).
 */
#define POLKA_AGENT_METRICS(X)                                                                     \
    X(score, "test_score", "score", "%.17g",                                                       \
      "test accuracy (classification), mean squared error (regression) or fraction of points "     \
      "flagged, f < rho (novelty) on the common test set")                                         \
    X(loss, "test_loss", "test_loss", "%.17g", "mean loss on the test set")                        \
    X(train_loss, "train_loss", "train_loss", "%.17g",                                             \
      "mean training loss of the rounds since the previous log step")                              \
    X(order, "model_order", "order", "%.0f", "model order M (dictionary size)")                    \
    X(disagreement, "disagreement", "disagreement", "%.17g",                                       \
      "mean over the test points (the first run.log_test when set) of ||f_i(x) - f_bar(x)||^2, "   \
      "f_bar the network average")                                                                 \
    X(bytes, "bytes_sent", "bytes_sent", "%.0f",                                                   \
      "bytes this agent has sent so far (a lost message is not sent)")                             \
    X(messages_lost, "messages_lost", "messages_lost", "%.0f",                                     \
      "messages to this agent lost on the way so far (points and values; fault.link_loss)")        \
    X(rounds_offline, "rounds_offline", "rounds_offline", "%.0f",                                  \
      "rounds this agent sat out so far (fault.offline, fault.leave)")                             \
    X(value_age, "value_age", "value_age", "%.17g",                                                \
      "mean age in rounds of the neighbours' values used since the previous log step "             \
      "(fault.delay)")                                                                             \
    X(wall_time, "wall_time", NULL, NULL, "seconds since the learning loop started")               \
    X(time_compute, "time_compute", "time_compute", "%.6f",                                        \
      "seconds in drawing samples and evaluating f (cumulative)")                                  \
    X(time_exchange, "time_exchange", "time_exchange", "%.6f",                                     \
      "seconds in the neighbour exchange, waiting included (cumulative)")                          \
    X(time_update, "time_update", "time_update", "%.6f",                                           \
      "seconds in the gradient step and KOMP (cumulative)")                                        \
    X(online_error, "online_error", "online_error", "%.17g",                                       \
      "online error: fraction of mistakes (classification), mean squared error (regression) or "   \
      "fraction flagged (novelty) on each training sample before it was learned, cumulative")      \
    X(messages_censored, "messages_censored", "messages_censored", "%.0f",                         \
      "messages this agent withheld so far (a censoring method: net.method = coke)")               \
    X(samples_out, "samples_out", "samples_out", "%.0f",                                           \
      "own samples this agent has sent to neighbours so far, one per point and neighbour "         \
      "message (the penalty method; none leaves a random-feature agent). One hop: a "              \
      "neighbour never forwards a point")                                                          \
    X(receivers, "receivers", "receivers", "%.0f",                                                 \
      "distinct agents that have received at least one of this agent's own samples so far")        \
    X(updates, "updates", "updates", "%.0f",                                                       \
      "the agent's learning steps so far (online, with a batch)")                                  \
    X(clock, "clock", "clock", "%.17g",                                                            \
      "virtual time of the row: the event engine's (async.engine = events), or the lockstep "      \
      "rounds' with the same laws (each round: the slowest update, then the slowest message of "   \
      "each phase)")                                                                               \
    X(info_age, "info_age", "info_age", "%.17g",                                                   \
      "mean virtual age of the neighbours' newest information at the agent's steps since the "     \
      "previous log step (async.engine = events; 0 in lockstep)")                                  \
    X(noisy_points, "noisy_points", "noisy_points", "%.0f",                                        \
      "privacy.clip > 0: own points this agent has released clipped and noised so far (one "       \
      "per sample drawn while online, whatever its messages' fate)")                               \
    X(row_releases, "row_releases", "row_releases", "%.0f",                                        \
      "privacy.clip > 0: the most releases of one of this agent's training rows so far (a row "    \
      "drawn again in a later pass is released again, with fresh noise)")                          \
    X(privacy_epsilon, "privacy_epsilon", "privacy_epsilon", "%.17g",                              \
      "privacy.clip > 0: the epsilon of row_releases releases composed (Gaussian DP, at "          \
      "privacy.sample_delta); 0 before any release. Without privacy.clip the points carry no "     \
      "guarantee")                                                                                 \
    X(points_clamped, "points_clamped", "points_clamped", "%.0f",                                  \
      "net.codec_points = uint8: coordinates of this agent's points so far that lay outside "      \
      "[net.codec_low, net.codec_high] and travelled clamped to its nearer end (once a message "   \
      "that reached a neighbour, whatever their number)")

/* One agent's numbers at a log step; plain doubles so that MPI can gather them. */
#define POLKA_METRIC_FIELD(field, ...) double field;
typedef struct {
    POLKA_AGENT_METRICS(POLKA_METRIC_FIELD)
} polka_agent_metrics;
#undef POLKA_METRIC_FIELD

#define POLKA_METRICS_DOUBLES (sizeof(polka_agent_metrics) / sizeof(double))

/** The counters' metrics into out (the other fields untouched); resets the sums since the
 * previous log step. */
void polka_metrics_counters_collect(polka_agent_counters *counters, polka_agent_metrics *out);

/** f_i on the test set into f (n_test × C). */
polka_status polka_metrics_test_values(const polka_agent *agent, const polka_dataset *test,
                                       double *f);

/** A learner's outputs (polka_learner_predict_output) on data into f (n × C), dense or sparse
 *  storage (polka_dataset_eval). */
polka_status polka_metrics_learner_values(const polka_learner *learner, const polka_dataset *data,
                                          double *f);

/** A model's outputs (polka_model_eval) on data into f (n × C), dense or sparse storage. */
polka_status polka_metrics_model_values(const polka_model *model, const polka_dataset *data,
                                        double *f);

/**
 * The agent's metrics from its test values f (n×C): score, loss, order, bytes sent (the
 * messages it really sent); the disagreement is left 0 (polka_disagreement). Resets the sums
 * since the previous log step.
 */
void polka_metrics_agent_collect(polka_agent *agent, const polka_dataset *test, const double *f,
                                 polka_agent_metrics *out);

/** The disagreement of test values f with the network average fbar on their first `points`
 *  points (both row-major, C = outputs per point): mean over them of ‖f_i(x) − f̄(x)‖². */
double polka_disagreement(const double *f, const double *fbar, size_t points, size_t outputs);

/** Where log steps go: the log hook and a CSV file (rank 0 / the serial reference), and the
 * HDF5 run file (every rank of the run). */
typedef struct polka_netlog {
    const polka_sim_hooks *hooks;
    FILE *csv;
    const char *csv_path; /* config->csv, for messages */
    size_t agents;
    size_t stride, logged; /* the agents with metric columns: 0, stride, ...; logged of them */
    polka_agent_metrics *picked; /* their metrics at a log step (CSV, history) */
    polka_runfile *h5;
    MPI_Comm comm;         /* the run file's (set with h5) */
    polka_history history; /* the rows of the log steps so far (where netlog_step runs) */
} polka_netlog;

/** Opens the CSV file run.csv (if any) and writes its header. */
polka_status polka_netlog_open(polka_netlog *log, const polka_plan *plan,
                               const polka_sim_hooks *hooks, size_t agents);
polka_status polka_netlog_close(polka_netlog *log);

/** Writes one log step of all agents, and folds it into the summary. whole_test: the step
 * scored the whole test set (polka_metrics_log_test gave all of it); only such steps set the
 * lowest loss the divergence check compares the last with. */
polka_status polka_netlog_step(polka_netlog *log, size_t round, double samples,
                               const polka_agent_metrics *metrics, int whole_test,
                               polka_sim_summary *summary);

/**
 * Collective over comm when run.output is set: creates the run file for `agents` agents and
 * writes /config, the settings with the data's facts (rank 0's graph, may be NULL). An
 * unwritable path fails here, before the run.
 */
polka_status polka_netlog_open_h5(polka_netlog *log, const polka_plan *plan,
                                  const polka_data_facts *facts, MPI_Comm comm, size_t agents,
                                  const polka_graph *graph);

/** Collective: this rank's agents' metrics (count rows from first_agent) as one row. */
polka_status polka_netlog_append_h5(polka_netlog *log, size_t round, double samples,
                                    size_t first_agent, size_t count,
                                    const polka_agent_metrics *metrics);

/**
 * Collective, not agreed (polka_runfile_append_agents): this rank's agents' metrics (the agents
 * agents[0 .. count), increasing) as one row; the caller agrees the status once per log step.
 */
polka_status polka_netlog_write_h5(polka_netlog *log, size_t round, double samples,
                                   const size_t *agents, size_t count,
                                   const polka_agent_metrics *metrics);

/** Collective: the final models of this rank's agents (agents[0 .. count), increasing; NULL:
 *  0 .. count − 1; models NULL: the method wrote them), their loss margins (margins: count rho
 *  then count tube values; NULL: none, the settings' hold) and the timing stages; closes the
 *  file. */
polka_status polka_netlog_finish_h5(polka_netlog *log, const size_t *agents, size_t count,
                                    const polka_model *const *models, const double *margins,
                                    const double *stage_seconds);

/** Collective: closes the run file after an error (NULL-safe). */
void polka_netlog_abandon_h5(polka_netlog *log);

/**
 * A resumed run: the rows written before the checkpoint again, into the CSV file and the
 * history (where the log was opened, with rows of all agents) and into the run file (this
 * rank's agents ids[0 .. count), increasing, NULL: 0 .. count − 1; collective when the run
 * file is open).
 */
polka_status polka_netlog_replay(polka_netlog *log, const polka_history *rows, const size_t *ids,
                                 size_t count);

/**
 * The test points a log step scores: the first run.log_test of test before the last round
 * (summary->rounds, set by polka_sim_loop), the whole set at the last (a view, no copy).
 */
polka_dataset polka_metrics_log_test(const polka_plan *plan, const polka_dataset *test,
                                     size_t round, const polka_sim_summary *summary);

/** The test points a log step measures the disagreement on: the first run.log_test of
 *  `scored` at every log step, the last included (one curve on the same points, and at the
 *  last step a second pass over 200 points instead of the whole set); all when 0. */
size_t polka_metrics_disagreement_points(const polka_plan *plan, const polka_dataset *scored);

#endif
