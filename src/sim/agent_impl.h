/*
 * One agent of the greedy projected penalty method (paper 003, DESIGN.md), written so that
 * the MPI loop and the serial network reference run the very same arithmetic.
 * Per round: prepare (draw the batch, evaluate f_i there, pack the payload), evaluate f_i at
 * the neighbours' points, receive the neighbours' values at mine, update.
 */
#ifndef POLKA_SIM_AGENT_H
#define POLKA_SIM_AGENT_H

#include "polka/graph.h"
#include "polka/learner.h"
#include "sim_impl.h"
#include "stream_impl.h"

typedef struct {
    size_t id, degree, batch, dim, outputs;
    size_t payload; /* doubles per point sent: the point, then (symmetric) f_i at it */
    int symmetric;
    int learns; /* quantity skew: 0 when the agent has no batch to learn from this round */
    double c;
    const size_t *neighbors;
    const double *weights;
    polka_learner *learner;
    double *y;          /* batch */
    double *f_own;      /* batch × C: f_i at the own points */
    double *sent;       /* batch × payload */
    double *received;   /* degree × batch × payload */
    double *nbr_eval;   /* degree × batch × C: f_i at the neighbours' points */
    double *nbr_values; /* degree × batch × C: f_j at the own points */
    double *cand_x;     /* (1 + degree) × batch × dim: own points, then the neighbours' */
    double *cand_g;     /* (1 + degree) × batch × C: the gradient coefficients */
    polka_online_error online;
    double train_loss; /* summed since the last log step */
    size_t train_count;
    double time_compute, time_exchange, time_update;
    double start; /* when the learning loop started (polka_now) */
} polka_agent;

/** Sets up agent `id` of graph (weights already set) for the data of facts; the agent owns its
 * learner. */
polka_status polka_agent_init(polka_agent *agent, const polka_plan *plan,
                              const polka_data_facts *facts, const polka_graph *graph, size_t id);
void polka_agent_free(polka_agent *agent);

/** Draws round t's batch, evaluates f_i at it and packs the payload. */
polka_status polka_agent_prepare(polka_agent *agent, const polka_stream *stream, uint64_t round);

/** f_i at the neighbours' points (agent->received) into agent->nbr_eval. */
polka_status polka_agent_eval_received(polka_agent *agent);

/**
 * The penalty step: g = ∇ℓ(f_i(x), y) + c Σ_j w_ij (f_i(x) − f_j(x)) at the own points
 * (and, symmetric, c·w_ij·(f_i(x_j) − f_j(x_j)) at the neighbours' points), then KOMP.
 */
polka_status polka_agent_update(polka_agent *agent);

#endif
