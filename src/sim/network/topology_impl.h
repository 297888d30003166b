/* The run's graph over its agents (topology.c): a topology file or a generated graph,
 * weighted, connected, checked; the graphs of a time-varying network; the number of agents. */
#ifndef POLKA_SIM_TOPOLOGY_IMPL_H
#define POLKA_SIM_TOPOLOGY_IMPL_H

#include <stdint.h>

#include "polka/graph.h"
#include "polka/plan.h"

/** What the run's method says of a graph (its check_graph, method_ops_impl.h): POLKA_OK or a
 * clear error; NULL: the method runs on any graph. */
typedef polka_status (*polka_graph_check)(const polka_plan *plan, const polka_graph *graph);

/** The run's graph over `agents` agents: a file, or a generated one; weighted, connected. */
polka_status polka_network_graph(const polka_plan *plan, size_t agents, polka_graph **out);

/**
 * A time-varying graph (net.resample_every = T): at a round t > 0 with t mod T = 0, the
 * graph of epoch t/T (generated from the seed polka_faults_epoch_seed(run.seed, t/T),
 * weighted, connected and checked like the first); NULL at the other rounds.
 */
polka_status polka_network_epoch_graph(const polka_plan *plan, size_t agents, uint64_t round,
                                       polka_graph_check check, polka_graph **out);

/** 1 when the epoch graph of round `round` failed (polka_network_epoch_graph): a round that
 * starts with it changed nothing yet, its checkpoint keeps the rounds before. */
int polka_network_epoch_failed(uint64_t round);

/**
 * Every epoch graph of rounds first+1 .. rounds of a random graph generated and checked now,
 * when that is cheap (epochs × agents² up to 1e8); the error names the first epoch that
 * fails. Not collective; pure.
 */
polka_status polka_network_check_epochs(const polka_plan *plan, size_t agents, uint64_t first,
                                        uint64_t rounds, polka_graph_check check);

/** The round whose epoch graph is in force after `rounds` rounds have been played (a resumed
 * run's graph); 0: the first graph. Pure. */
uint64_t polka_network_epoch_drawn(const polka_plan *plan, uint64_t rounds);

/** The graph has one node per agent and the method can run on it (check; the penalty
 * method: its step is stable, η·c·max Σ_j w_ij ≤ 1). */
polka_status polka_network_check(const polka_plan *plan, const polka_graph *graph, size_t agents,
                                 polka_graph_check check);

/** The agents of a run: net.agents, else the graph file's nodes, else `ranks`. A decentralized
 * run refuses fewer agents than ranks. */
polka_status polka_network_agents(const polka_plan *plan, size_t ranks, size_t *agents);

#endif
