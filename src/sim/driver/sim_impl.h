/* Pieces shared by the centralized and decentralized loops. */
#ifndef POLKA_SIM_IMPL_H
#define POLKA_SIM_IMPL_H

#include <stdarg.h>

#include "sim/checkpoint/checkpoint_impl.h"
#include "sim/driver/driver_impl.h"
#include "polka/graph.h"
#include "polka/sim.h"

/** Monotonic wall-clock seconds. */
double polka_now(void);

/** Formats a line and hands it to the log hook (if any). */
void polka_sim_log(const polka_sim_hooks *hooks, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * The loop every run shares: enough rounds of per_round samples for run.passes passes over
 * n_train samples, a log step every run.log_every samples and after the last round, progress
 * after each round, each through the driver's operations. From `from` (a resumed run; NULL:
 * the start). Where the driver saves agents, checkpoints when the ranks agree on it
 * (run.checkpoint_every, run.checkpoint_seconds, a signal); after a signal's checkpoint it
 * returns POLKA_STOPPED. Fills rounds, samples, seconds and samples/s of the summary (agents:
 * the caller).
 */
polka_status polka_sim_loop(const polka_plan *plan, const polka_driver *driver, size_t n_train,
                            size_t per_round, const polka_sim_point *from,
                            const polka_sim_hooks *hooks, polka_sim_summary *summary);

/**
 * A network of KOMP learners whose every agent ends with the zero function learned nothing
 * (KOMP's error bound removed every step, as for centralized POLK: central.c): POLKA_ERR_ARG
 * saying so, instead of a run reported as learnt (90 % error on Fashion-MNIST at exit 0).
 * summary: the last log step's (max_order).
 */
polka_status polka_sim_check_learned(const polka_plan *plan, const polka_sim_summary *summary);

/** samples/s of the summary: over the loop, and over the loop without its log steps. */
void polka_sim_rates(polka_sim_summary *summary);

/** The online (prequential) error: each training sample predicted before it is learned. */

/**
 * A centralized run of a batch regression learner (learner.control = slkl | krr) on the
 * first data.n_train samples of the union of `agents` streams (batch.c). Not collective.
 */
polka_status polka_sim_run_batch(const polka_plan *plan, size_t agents,
                                 const polka_sim_hooks *hooks, polka_sim_summary *summary);

/** A warning (rank 0's warn hook) for each key set away from its default for a kind this run
 * did not choose (polka_config_idle_keys): called once the start-up has succeeded. */
void polka_sim_warn_idle(const polka_plan *plan, const polka_sim_hooks *hooks);

/** Reports progress through the hook (if any) after round `round` (1-based). */
void polka_sim_report(const polka_sim_hooks *hooks, size_t round, size_t rounds, double samples,
                      double start, const polka_sim_summary *summary);

/**
 * The test points a log step scores: the first run.log_test of test before the last round
 * (summary->rounds, set by polka_sim_loop), the whole set at the last (a view, no copy).
 */
/** The test points a log step measures the disagreement on: the first run.log_test of
 *  `scored` at every log step, the last included (one curve on the same points, and at the
 *  last step a second pass over 200 points instead of the whole set: issue 34); all when 0. */
size_t polka_sim_disagreement_points(const polka_plan *plan, const polka_dataset *scored);

polka_dataset polka_sim_log_test(const polka_plan *plan, const polka_dataset *test, size_t round,
                                 const polka_sim_summary *summary);

/**
 * POLKA_OK when every number of the model is finite; else the run diverged (or its data were
 * too large for the kernel) and the error names the agent. A run never ends with exit 0 and
 * a non-finite model.
 */
polka_status polka_sim_check_finite(const polka_model *model, size_t agent);

/** Rounds of a run: enough rounds of `per_round` samples to cover passes × n_train. */
size_t polka_sim_rounds(double passes, size_t n_train, size_t per_round);

/** The run's graph over `agents` agents: a file, or a generated one; weighted, connected. */
polka_status polka_sim_graph(const polka_plan *plan, size_t agents, polka_graph **out);

/**
 * A time-varying graph (net.resample_every = T): at a round t > 0 with t mod T = 0, the
 * graph of epoch t/T (generated from the seed polka_faults_epoch_seed(run.seed, t/T),
 * weighted, connected and checked like the first); NULL at the other rounds.
 */
polka_status polka_sim_epoch_graph(const polka_plan *plan, size_t agents, uint64_t round,
                                   polka_graph **out);

/** 1 when the epoch graph of round `round` failed (polka_sim_epoch_graph): a round that
 * starts with it changed nothing yet, its checkpoint keeps the rounds before. */
int polka_sim_epoch_failed(uint64_t round);

/**
 * Every epoch graph of rounds first+1 .. rounds of a random graph generated and checked now,
 * when that is cheap (epochs × agents² up to 1e8); the error names the first epoch that
 * fails. Not collective; pure.
 */
polka_status polka_sim_check_epochs(const polka_plan *plan, size_t agents, uint64_t first,
                                    uint64_t rounds);

/** The round whose epoch graph is in force after `rounds` rounds have been played (a resumed
 * run's graph); 0: the first graph. Pure. */
uint64_t polka_sim_epoch_drawn(const polka_plan *plan, uint64_t rounds);

/** The graph has one node per agent and the penalty step is stable (η·c·max Σ_j w_ij ≤ 1). */
polka_status polka_sim_check_network(const polka_plan *plan, const polka_graph *graph,
                                     size_t agents);

/** The agents of a run: net.agents, else the graph file's nodes, else `ranks`. A decentralized
 * run refuses fewer agents than ranks. */
polka_status polka_sim_network_agents(const polka_plan *plan, size_t ranks, size_t *agents);

#endif
