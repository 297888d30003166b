/* Per-agent metrics at a log step, and their reduction into log lines, CSV rows and a summary. */
#ifndef POLKA_SIM_METRICS_H
#define POLKA_SIM_METRICS_H

#include <stdio.h>

#include "agent.h"
#include "polka/h5log.h"
#include "polka/sim.h"

/* One agent's numbers at a log step; plain doubles so that MPI can gather them. */
typedef struct {
    double score, loss, order, disagreement, bytes, train_loss;
    double online_error; /* mistakes (or squared errors) on samples before learning them */
    double wall_time;    /* seconds since the learning loop started */
    double time_compute, time_exchange, time_update;
} polka_agent_metrics;

#define POLKA_METRICS_DOUBLES (sizeof(polka_agent_metrics) / sizeof(double))

/** f_i on the test set into f (n_test × C). */
polka_status polka_agent_test_values(const polka_agent *agent, const polka_dataset *test,
                                     double *f);

/**
 * The agent's metrics from its test values f and the network average fbar (both n×C):
 * disagreement = mean over test points of ‖f_i(x) − f̄(x)‖². Resets the training-loss sum.
 */
void polka_agent_collect(polka_agent *agent, const polka_dataset *test, const double *f,
                         const double *fbar, double bytes, polka_agent_metrics *out);

/** Where log steps go: the log hook and a CSV file (rank 0 / the serial reference), and the
 * HDF5 run file (every rank of the run). */
typedef struct {
    const polka_sim_hooks *hooks;
    FILE *csv;
    const char *csv_path; /* config->csv, for messages */
    size_t agents;
    polka_h5log *h5;
} polka_netlog;

/** Opens the CSV file named in the config (if any) and writes its header. */
polka_status polka_netlog_open(polka_netlog *log, const polka_config *config,
                               const polka_sim_hooks *hooks, size_t agents);
polka_status polka_netlog_close(polka_netlog *log);

/** Writes one log step of all agents, and folds it into the summary. */
polka_status polka_netlog_step(polka_netlog *log, size_t round, double samples,
                               const polka_agent_metrics *metrics, polka_sim_summary *summary);

/**
 * Collective over comm when run.output is set: creates the run file for `agents` agents and
 * writes /config (rank 0's graph, may be NULL). An unwritable path fails here, before the run.
 */
polka_status polka_netlog_open_h5(polka_netlog *log, const polka_config *config, MPI_Comm comm,
                                  size_t agents, const polka_graph *graph);

/** Collective: this rank's agents' metrics (count rows from first_agent) as one row. */
polka_status polka_netlog_append_h5(polka_netlog *log, size_t round, double samples,
                                    size_t first_agent, size_t count,
                                    const polka_agent_metrics *metrics);

/** Collective: the final models of this rank's agents and the timing stages; closes the file. */
polka_status polka_netlog_finish_h5(polka_netlog *log, size_t first_agent, size_t count,
                                    const polka_model *const *models, const double *stage_seconds);

/** Collective: closes the run file after an error (NULL-safe). */
void polka_netlog_abandon_h5(polka_netlog *log);

#endif
