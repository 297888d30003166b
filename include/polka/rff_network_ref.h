/**
 * @file rff_network_ref.h
 * @brief A reference implementation (the _ref: simple, checked against, never run by a polka
 * run): a serial, in-memory network of agents running the random-feature methods
 * (rff_methods.h) in synchronous rounds on a fixed graph without faults, the math-level
 * reference of the unit tests and of experiments/dkla_convergence.c. The simulator's
 * methods (src/sim/method/) run the same local steps with real messages.
 */
#ifndef POLKA_RFF_NETWORK_REF_H
#define POLKA_RFF_NETWORK_REF_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"
#include "polka/rff_methods.h"

/** The graph as adjacency lists: agent i's neighbours are adj[offsets[i] .. offsets[i+1]),
 * in increasing id order, with the weights a_ij in weight (NULL when no method needs them). */
typedef struct {
    size_t agents;
    const size_t *offsets; /**< agents + 1 */
    const size_t *adj;
    const double *weight;
} polka_rff_graph;

/** Every agent's variables, agents × len each, agent i's at i·len. */
typedef struct {
    size_t agents, len;
    double *theta;          /**< θ_i */
    double *shared;         /**< θ̂_i: what the neighbours hold (DKLA: θ_i) */
    double *gamma;          /**< γ_i (ADMM duals) */
    double *next;           /**< the round's new θ_i (rf-diffusion: ψ_i) */
    const double **vars;    /**< scratch: one agent's neighbour pointers */
    uint64_t round;         /**< rounds done */
    uint64_t transmissions; /**< variables sent by all agents so far (one per sending agent
                                and round, whatever its degree) */
} polka_rff_net_ref;

/** Zeroed variables (θ⁰ = θ̂⁰ = γ⁰ = 0) for the graph's agents and len = D·C. */
polka_status polka_rff_net_ref_create(const polka_rff_graph *graph, size_t len,
                                      polka_rff_net_ref *out);

/** Frees and zeroes. NULL-safe. */
void polka_rff_net_ref_free(polka_rff_net_ref *net);

/** One ADMM round's knobs. exact: one decomposition per agent for the exact primal (square
 * loss, fixed data), or NULL for the linearized primal with step eta. alpha = 0: DKLA;
 * alpha > 0: COKE with the threshold h(k) = alpha·mu^k. */
typedef struct {
    double rho, eta, alpha, mu;
    const polka_dkla_exact *exact;
} polka_rff_admm;

/**
 * One synchronous DKLA / COKE round (the four steps of rff_methods.h) over all agents, each
 * on its batch data[i]. Counts the agents that transmitted into net->transmissions and
 * returns them in *sent (may be NULL).
 */
polka_status polka_rff_net_ref_admm_round(polka_rff_net_ref *net, const polka_rff_graph *graph,
                                          const polka_rff_problem *problem,
                                          const polka_rff_batch *data, const polka_rff_admm *admm,
                                          size_t *sent);

/** One synchronous rf-diffusion round: every agent adapts on data[i], then combines the ψ_j
 * with the graph's weights (graph->weight is required). Every agent transmits. */
polka_status polka_rff_net_ref_diffusion_round(polka_rff_net_ref *net, const polka_rff_graph *graph,
                                               const polka_rff_problem *problem,
                                               const polka_rff_batch *data, double eta);

/** max_i ‖θ_i − target‖ / ‖target‖ (‖target‖ > 0). */
double polka_rff_net_ref_max_distance(const polka_rff_net_ref *net, const double *target);

#endif
