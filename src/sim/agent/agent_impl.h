/*
 * One agent of the greedy projected penalty method (paper 003, DESIGN.md), written so that
 * the MPI loop and the serial network reference run the very same arithmetic.
 * Per round: prepare (draw the batch, evaluate f_i there, pack the payload), evaluate f_i at
 * the neighbours' points, receive the neighbours' values at mine, update.
 */
#ifndef POLKA_SIM_AGENT_H
#define POLKA_SIM_AGENT_H

#include "sim/exchange/fault_impl.h"
#include "polka/graph.h"
#include "polka/learner.h"
#include "polka/state.h"
#include "sim/driver/sim_impl.h"
#include "sim/metrics/counters_impl.h"
#include "sim/stream/stream_impl.h"

/* Late values (fault.delay > 0): the own points of the last rounds and, per neighbour, the
 * values in flight and the newest arrived (agent_stale.c). */
typedef struct polka_agent_stale polka_agent_stale;

typedef struct {
    size_t id, degree, batch, dim, outputs;
    size_t payload; /* doubles per point sent: the point, (symmetric) f_i at it, (samples) y */
    int symmetric;
    int shares_samples; /* net.share = samples: the neighbours' samples enter the loss */
    double c;
    const size_t *neighbors;
    const double *weights;
    const polka_graph *graph;     /* the current one (net.resample_every: it changes) */
    const polka_faults *faults;   /* the run's */
    uint64_t round;               /* the round being played */
    polka_agent_round this_round; /* what the agent does in it (polka_fault_agent_state) */
    /* this round's messages per neighbour slot k (fault.c): */
    unsigned char *in_point;  /* neighbour k's points reached me (in agent->received) */
    unsigned char *out_point; /* my points reach neighbour k */
    unsigned char *in_value;  /* neighbour k's values at my points come (in nbr_values) */
    unsigned char *out_value; /* my values at neighbour k's points go back to it */
    size_t *in_delay;         /* rounds until slot k's values arrive */
    unsigned char *fresh;     /* slot k's values are of this round and enter the update */
    size_t points_in;         /* slots with in_point */
    polka_agent_stale *stale; /* fault.delay > 0, else NULL */
    polka_learner *learner;
    double *y;          /* batch */
    double *f_own;      /* batch × C: f_i at the own points */
    double *shared_g;   /* C: ∇ℓ at one neighbour's sample (net.share = samples) */
    double *sent;       /* batch × payload */
    double *received;   /* degree × batch × payload */
    double *nbr_eval;   /* degree × batch × C: f_i at the neighbours' points */
    double *nbr_values; /* degree × batch × C: f_j at the own points */
    double *cand_x;     /* (1 + degree + delay) × batch × dim: own points, the neighbours' heard
                           from (compact), then the own points of late values (agent_stale.c) */
    double *cand_g;     /* the same rows × C: the gradient coefficients */
    int classification; /* the online error counts mistakes */
    polka_agent_counters counters; /* what the log steps report, and the checkpoints keep */
    double start;                  /* when the learning loop started (polka_now) */
} polka_agent;

/** Doubles sent per point: the point, then f_i at it (net.penalty = symmetric), then its
 * label (net.share = samples; NaN when its agent does not learn from it this round). */
size_t polka_agent_payload(const polka_plan *plan, size_t dim, size_t outputs);

/** Sets up agent `id` of graph (weights already set) for the data of facts, with the run's
 * faults (which outlive it); the agent owns its learner. */
polka_status polka_agent_init(polka_agent *agent, const polka_plan *plan,
                              const polka_data_facts *facts, const polka_graph *graph,
                              const polka_faults *faults, size_t id);
void polka_agent_free(polka_agent *agent);

/** The agent's neighbours become those of graph (a new epoch); values in flight from a
 * neighbour that stays are kept, others are dropped. */
polka_status polka_agent_rewire(polka_agent *agent, const polka_graph *graph);

/** Starts round t: which of the agent's messages exist, both ways (fault.c), what they cost
 * and what was lost. Never fails: every agent of a rank knows its messages, whatever else
 * failed, so the exchange's counts always match. */
void polka_agent_links(polka_agent *agent, uint64_t t);

/** When the agent is online: draws the round's batch, evaluates f_i at it, packs the
 * payload. */
polka_status polka_agent_prepare(polka_agent *agent, const polka_stream *stream);

/** f_i at the points of the neighbours heard from (agent->received) into agent->nbr_eval. */
polka_status polka_agent_eval_received(polka_agent *agent);

/**
 * The penalty step: g = ∇ℓ(f_i(x), y) + c Σ_j w_ij (f_i(x) − f_j(x)) at the own points
 * (and, symmetric, c·w_ij·(f_i(x_j) − f_j(x_j)) at the neighbours' points; with shared
 * samples, ∇ℓ(f_i(x_j), y_j) there as well), then KOMP; the
 * sums run over the neighbours heard from (late values: at the points they were computed at).
 */
polka_status polka_agent_update(polka_agent *agent);

/* agent_stale.c: late values */
/* POLKA_ERR_MEM when the late values of fault.delay for `count` agents (ids, or 0..count-1 when
 * NULL) on graph would take more than the memory limit (data.memory, as the data's). */
polka_status polka_agents_stale_fit(const polka_plan *plan, const polka_graph *graph,
                                    const size_t *ids, size_t count, size_t dim, size_t outputs);
polka_status polka_agent_stale_create(polka_agent *agent, size_t delay);
void polka_agent_stale_free(polka_agent *agent);
/** Keeps round t's own points (the agent is online). */
void polka_agent_stale_remember(polka_agent *agent);
/** Files the values that came this round (nbr_values) by arrival, takes the newest arrived,
 * and marks in `fresh` the slots whose values are of this round. */
void polka_agent_stale_receive(polka_agent *agent, unsigned char *fresh);
/** Slots of the old neighbour list (ids) keep their values in flight under the new list. */
polka_status polka_agent_stale_rewire(polka_agent *agent, const size_t *old_neighbors,
                                      size_t old_degree);
/** Appends the rows of late values after `rows` rows of cand_x/cand_g: per round s of
 * the own points they were computed at, c·Σ_k w'_k (f_i(x_s) − f_k(x_s)), w' = scale·w.
 * Returns the rows added (0 when no late value is used). */
polka_status polka_agent_stale_rows(polka_agent *agent, size_t rows, double scale, size_t *added);
/** The late values' state into / from a checkpoint (entries "stale.*"); the agent's
 * neighbours must be those it had when it was saved. */
polka_status polka_agent_stale_save(const polka_agent *agent, polka_state *state);
polka_status polka_agent_stale_restore(polka_agent *agent, const polka_state *state);
/** The weights of the slots whose values (fresh or late) enter this round's update. */
double polka_agent_stale_weight(const polka_agent *agent);

#endif
