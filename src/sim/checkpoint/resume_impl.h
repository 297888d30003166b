/* The runs' side of checkpoints (resume.c): saving their agents' states at a point of the
 * loop, and going on from a checkpoint. */
#ifndef POLKA_SIM_RESUME_H
#define POLKA_SIM_RESUME_H

#include "sim/checkpoint/checkpoint_impl.h"
#include "sim/metrics/metrics_impl.h"

/* Local agent k's state into / from state. */
typedef polka_status (*polka_agent_save_fn)(void *context, size_t k, polka_state *state);
typedef polka_status (*polka_agent_restore_fn)(void *context, size_t k, const polka_state *state);

/* Collective over comm: the checkpoint of the run at point, with the states of this rank's
 * count agents and (where it is kept) the log's history. order: every rank's agent ids, rank
 * by rank, as the placement lists them (NULL: 0 .. agents − 1, one rank or blocks). */
polka_status polka_sim_save(const polka_plan *plan, MPI_Comm comm, size_t agents,
                            const size_t *order, size_t count, polka_agent_save_fn save,
                            void *context, const polka_netlog *log, const polka_sim_point *point,
                            int signal);

/*
 * Collective over comm, when plan->run.resume is set (else nothing): restores this rank's
 * agents (ids[0 .. count), increasing; NULL: 0 .. count − 1) from the checkpoint, whatever
 * the placement and the ranks it was written with (its agents are named by id), writes the metric
 * rows it holds into the (new) run file and CSV file, and sets *from to where the loop goes on. The
 * status is agreed.
 */
polka_status polka_sim_resume(const polka_plan *plan, MPI_Comm comm, size_t agents,
                              const size_t *ids, size_t count, polka_agent_restore_fn restore,
                              void *context, polka_netlog *log, polka_sim_point *from);

/* The rounds the checkpoint plan->run.resume was written after (0 when the run does not
 * resume); not collective. The graph of a time-varying network is the one of that round,
 * set before the agents' states (whose late values are per neighbour) are restored. */
polka_status polka_sim_resume_round(const polka_plan *plan, size_t agents, uint64_t *round);

/* The checkpoint's settings set in config (polka_sim_resume_settings on an open checkpoint). */
polka_status polka_ckpt_apply_settings(const polka_ckpt *ckpt, polka_config *config);

/* A polka_agent's own state beside its learner's: online error, training-loss sums, timers,
 * what the network's faults did to it so far and (fault.delay) its values in flight. */
polka_status polka_agent_save(const polka_agent *agent, polka_state *state);
polka_status polka_agent_restore(polka_agent *agent, const polka_state *state);

/* The save/restore callbacks for an array of polka_agent (context: the array). */
polka_status polka_agents_save(void *context, size_t k, polka_state *state);
polka_status polka_agents_restore(void *context, size_t k, const polka_state *state);

#endif
