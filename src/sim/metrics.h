/* Per-agent metrics at a log step, and their reduction into log lines, CSV rows and a summary. */
#ifndef POLKA_SIM_METRICS_H
#define POLKA_SIM_METRICS_H

#include <stdio.h>

#include "agent.h"
#include "polka/sim.h"

/* One agent's numbers at a log step; plain doubles so that MPI can gather them. */
typedef struct {
    double score, loss, order, disagreement, bytes, train_loss;
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

/** Where log steps go: the log hook, and a CSV file (rank 0 / the serial reference). */
typedef struct {
    const polka_sim_hooks *hooks;
    FILE *csv;
    size_t agents;
} polka_netlog;

/** Opens the CSV file named in the config (if any) and writes its header. */
polka_status polka_netlog_open(polka_netlog *log, const polka_config *config,
                               const polka_sim_hooks *hooks, size_t agents);
polka_status polka_netlog_close(polka_netlog *log);

/** Writes one log step of all agents, and folds it into the summary. */
polka_status polka_netlog_step(polka_netlog *log, size_t round, double samples,
                               const polka_agent_metrics *metrics, polka_sim_summary *summary);

#endif
