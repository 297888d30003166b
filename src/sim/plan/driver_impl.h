/*
 * A run as the shared loop and the checkpoints see it: the driver's operations (one round, a
 * log step, one agent's state out and back) and where its agents are. The three drivers —
 * decentralized over MPI (decentral.c), the serial reference (reference.c) and centralized
 * POLK (central.c) — each fill one polka_driver_ops table and one polka_driver; the loop
 * (polka_sim_loop), the checkpoint (polka_ckpt_save) and the resume (polka_ckpt_resume) take
 * nothing else from them.
 */
#ifndef POLKA_SIM_DRIVER_IMPL_H
#define POLKA_SIM_DRIVER_IMPL_H

#include <mpi.h>
#include <stdint.h>

#include "polka/sim.h"
#include "polka/state.h"

typedef struct polka_netlog polka_netlog;

typedef struct {
    /* Round t (0-based); *wish holds this rank's checkpoint wish (POLKA_CKPT_*) and, on
     * return, the ranks' agreed (largest) wish: a collective round folds it into its status
     * agreement. */
    polka_status (*round)(void *context, uint64_t round, int *wish);
    /* The log step after round `round` (1-based), `samples` learned in all. */
    polka_status (*log_step)(void *context, size_t round, double samples,
                             polka_sim_summary *summary);
    /* Local agent k's state into a checkpoint, and back from one (save_agent NULL: the run
     * never checkpoints). */
    polka_status (*save_agent)(void *context, size_t k, polka_state *state);
    polka_status (*restore_agent)(void *context, size_t k, const polka_state *state);
} polka_driver_ops;

typedef struct {
    const polka_driver_ops *ops;
    void *context;       /* the driver's run, handed to every operation */
    MPI_Comm comm;       /* the ranks of the run (MPI_COMM_SELF: one process) */
    size_t agents;       /* in the whole network */
    const size_t *ids;   /* this rank's `count` agents, increasing (NULL: 0 .. count − 1) */
    size_t count;        /* agents on this rank */
    const size_t *order; /* every rank's agents, rank by rank (NULL: 0 .. agents − 1) */
    polka_netlog *log;   /* the run's log (the metric rows a checkpoint carries) */
} polka_driver;

#endif
