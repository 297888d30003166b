/* Pieces the drivers share (the centralized, decentralized and reference runs): the lockstep
 * loop (lockstep.c), the batch learners, the scan split. */
#ifndef POLKA_SIM_IMPL_H
#define POLKA_SIM_IMPL_H

#include <stdarg.h>

#include "polka/dataio.h"
#include "polka/graph.h"
#include "polka/sim.h"
#include "sim/checkpoint/checkpoint_impl.h"
#include "sim/network/topology_impl.h"
#include "sim/plan/driver_impl.h"
#include "sim/plan/plan_impl.h"

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

/** The online (prequential) error: each training sample predicted before it is learned. */

/**
 * A centralized run of a batch regression learner (learner.control = slkl | krr) on the
 * first data.n_train samples of the union of `agents` streams (batch.c). Not collective.
 */
polka_status polka_sim_run_batch(const polka_plan *plan, size_t agents,
                                 const polka_sim_hooks *hooks, polka_sim_summary *summary);

/**
 * The test points a log step scores: the first run.log_test of test before the last round
 * (summary->rounds, set by polka_sim_loop), the whole set at the last (a view, no copy).
 */

/**
 * A training file's scan split among the ranks of *(MPI_Comm *)comm (scan_split.c): each reads
 * its run of the file's chunks, and every rank gets the info polka_data_scan gives. Collective;
 * an error is agreed (every rank returns the first in file order). A polka_scan_hook's scan.
 */
polka_status polka_sim_scan_split(void *comm, const char *path, const polka_read_options *options,
                                  polka_data_info *info);

#endif
