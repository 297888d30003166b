/*
 * Many agents per rank: where each agent's neighbours are. The agents are placed on the ranks
 * by a placement (placement_impl.h: blocks or graph parts); a neighbour on the same rank is read in
 * memory, a neighbour on another rank through the exchange's two phases (the points out, the values
 * back), one message per neighbouring rank and phase. Every list here is in a canonical order that
 * both ends of an edge compute alike from the graph, so no index travels.
 */
#ifndef POLKA_SIM_HALO_H
#define POLKA_SIM_HALO_H

#include "sim/agent/agent_impl.h"
#include "polka/graph.h"
#include "sim/network/placement_impl.h"
#include "polka/net.h"

typedef struct {
    size_t agents, count;             /* all agents; this rank's */
    const polka_placement *placement; /* where every agent is (not owned) */
    const size_t *ids;                /* this rank's agents: count ids, increasing */
    int rank, size;                   /* this rank, and the ranks the agents are placed on */
    int degree;                       /* neighbouring ranks */
    int *ranks;                       /* degree, increasing */
    size_t point_block, value_block;  /* doubles per message, encoded (agent->wire.doubles) */
    /* The blocks that may cross, in canonical order; a round sends those whose message
     * exists (polka_agent_links), and each end knows which, so no index travels. */
    /* phase 1, the points: counts in doubles per neighbouring rank (this round's) */
    int *point_send_counts, *point_recv_counts;
    size_t *point_send;   /* local indices of the agents whose points may go out, rank by rank */
    int *point_send_rank; /* each one's neighbouring rank number */
    size_t point_sends;
    int *point_block_rank;          /* per received block (remote agent): its rank number */
    unsigned char *point_block_due; /* this round: the block comes */
    long *point_block_at;           /* this round: where it is in the received blocks */
    size_t point_blocks;
    /* phase 2, the values: (local agent j, its slot of the receiver) per block sent */
    int *value_send_counts, *value_recv_counts;
    size_t *value_send_agent, *value_send_slot;
    int *value_send_rank;
    size_t value_sends;
    size_t *value_block_slot; /* per received block: the slot (local agent, k) it is for */
    int *value_block_rank;
    long *value_block_at; /* this round: where it is in the received blocks (−1: not sent) */
    size_t value_blocks;
    /* per (local agent a, neighbour slot k), slots of agent a from slot_start[a]: */
    size_t *slot_start;  /* count + 1 */
    size_t *slot_agent;  /* the local agent of each slot */
    int *slot_rank;      /* the neighbour's rank number; −1: on this rank */
    long *point_from;    /* ≥ 0: block in the received points; < 0: −1 − local index */
    long *value_from;    /* ≥ 0: block in the received values; < 0: −1 − local index */
    size_t *local_slot;  /* a local neighbour j: the slot of a in j's list */
    double *send, *recv; /* the larger phase's blocks */
    double crossed;      /* doubles sent to other ranks, all rounds so far */
} polka_halo;

/**
 * Builds the halo of rank `rank` for its agents of the placement (which must outlive the
 * halo) on graph, each sending point_block doubles and answering value_block doubles per
 * neighbour.
 */
polka_status polka_halo_create(const polka_graph *graph, const polka_placement *placement, int rank,
                               size_t point_block, size_t value_block, polka_halo *halo);
void polka_halo_free(polka_halo *halo);

/**
 * Collective: one round's exchanges for the local agents (their links set, prepared): with
 * `censors` (the method may withhold its block), first which blocks come; the neighbours'
 * blocks into agent->received; for a two-phase method (value_block > 0) the local agents'
 * answers to them (polka_agent_answer) and the neighbours' answers to the own block into
 * agent->answered. Only the messages of the round (agent->in_point, in_value, out_point,
 * out_value) are sent. Every exchange always runs, so a local error never leaves a
 * neighbouring rank waiting; the local status is returned.
 */
polka_status polka_halo_round(polka_halo *halo, polka_exchange *exchange, polka_agent *agents,
                              polka_status local, int censors);

#endif
