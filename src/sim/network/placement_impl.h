/*
 * Where a decentralized run's agents live (net.placement): in contiguous blocks of ids, or in
 * the parts of a METIS partition of the graph, so that few edges cross ranks. Either way each
 * rank's agents are an increasing list of ids, and an agent keeps its id (its data stream,
 * seeds and run-file column) whatever its rank: the run is the same function of the settings.
 */
#ifndef POLKA_SIM_PLACEMENT_H
#define POLKA_SIM_PLACEMENT_H

#include <mpi.h>

#include "polka/graph.h"
#include "polka/plan.h"

typedef struct {
    size_t agents;
    int ranks;
    int *owner;    /* per agent: its rank */
    size_t *index; /* per agent: its place in its rank's list */
    size_t *start; /* ranks + 1: rank r's agents are ids[start[r] .. start[r + 1]) */
    size_t *ids;   /* every agent, rank by rank, increasing within a rank */
    size_t cut;    /* edges of the graph placed for whose ends are on two ranks */
    size_t edges;  /* edges of that graph */
} polka_placement;

/** The first agent of rank r when n agents are placed on p ranks in contiguous blocks. */
size_t polka_block_first(size_t n, int p, int r);

/**
 * Every rank's agents of graph on `ranks` ranks as plan->net.placement says. Not collective
 * and deterministic (METIS with fixed options and seed): the same on every rank.
 */
polka_status polka_placement_create(const polka_plan *plan, const polka_graph *graph, int ranks,
                                    polka_placement *out);

/** Rank `rank`'s agents (ids, increasing) and their number. */
const size_t *polka_placement_agents(const polka_placement *p, int rank, size_t *count);

void polka_placement_free(polka_placement *p);

#endif
