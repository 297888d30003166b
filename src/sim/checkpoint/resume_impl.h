/* The runs' side of checkpoints (resume.c): saving their agents' states at a point of the
 * loop, and going on from a checkpoint. */
#ifndef POLKA_SIM_RESUME_H
#define POLKA_SIM_RESUME_H

#include "sim/checkpoint/checkpoint_impl.h"
#include "sim/plan/driver_impl.h"
#include "sim/metrics/metrics_impl.h"

/* Collective over the driver's ranks (signal: the one that stops the run, or 0): the
 * checkpoint of the run at point, with the states of this rank's agents (the driver's
 * save_agent) and (where it is kept) the log's history. */
polka_status polka_ckpt_save(const polka_plan *plan, const polka_driver *driver,
                             const polka_sim_point *point, int signal);

/*
 * Collective over the driver's ranks, when plan->run.resume is set (else nothing): restores
 * this rank's agents (the driver's restore_agent) from the checkpoint, whatever the placement
 * and the ranks it was written with (its agents are named by id), writes the metric rows it
 * holds into the (new) run file and CSV file, and sets *from to where the loop goes on. The
 * status is agreed.
 */
polka_status polka_ckpt_resume(const polka_plan *plan, const polka_driver *driver,
                               polka_sim_point *from);

/* The rounds the checkpoint plan->run.resume was written after (0 when the run does not
 * resume); not collective. The graph of a time-varying network is the one of that round,
 * set before the agents' states (whose late values are per neighbour) are restored. */
polka_status polka_ckpt_resume_round(const polka_plan *plan, size_t agents, uint64_t *round);

/* The checkpoint's settings set in config (polka_ckpt_resume_settings on an open checkpoint). */
polka_status polka_ckpt_apply_settings(const polka_ckpt *ckpt, polka_config *config);

/* A polka_agent's own state beside its learner's: online error, training-loss sums, timers,
 * what the network's faults did to it so far and (fault.delay) its values in flight. */
polka_status polka_ckpt_agent_save(const polka_agent *agent, polka_state *state);
polka_status polka_ckpt_agent_restore(polka_agent *agent, const polka_state *state);

#endif
