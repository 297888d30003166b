#include "sim/agent/halo_impl.h"

#include <stdlib.h>
#include <string.h>

static int owner_of(const polka_halo *h, size_t i) {
    return h->placement->owner[i];
}

/* The local index of agent j, or −1 when it is on another rank. */
static long local_of(const polka_halo *h, size_t j) {
    return owner_of(h, j) == h->rank ? (long)h->placement->index[j] : -1;
}

/* Where agent a sits in agent j's neighbour list. */
static size_t slot_of(const polka_graph *graph, size_t j, size_t a) {
    const size_t *list = polka_graph_neighbors(graph, j);
    size_t k = 0, degree = polka_graph_degree(graph, j);
    while (k < degree && list[k] != a) k++;
    return k;
}

/* 1 when agent i has a neighbour on rank r. */
static int touches(const polka_halo *h, const polka_graph *graph, size_t i, int r) {
    const size_t *list = polka_graph_neighbors(graph, i);
    for (size_t k = 0; k < polka_graph_degree(graph, i); k++)
        if (owner_of(h, list[k]) == r) return 1;
    return 0;
}

static polka_status alloc_lists(polka_halo *h, const polka_graph *graph) {
    size_t slots = 0;
    h->slot_start = malloc((h->count + 1) * sizeof *h->slot_start);
    POLKA_CHECK_ALLOC(h->slot_start);
    for (size_t a = 0; a < h->count; a++) {
        h->slot_start[a] = slots;
        slots += polka_graph_degree(graph, h->ids[a]);
    }
    h->slot_start[h->count] = slots;
    size_t s = slots ? slots : 1, q = (size_t)h->size;
    h->ranks = malloc(q * sizeof *h->ranks);
    h->point_send_counts = calloc(q, sizeof(int));
    h->point_recv_counts = calloc(q, sizeof(int));
    h->value_send_counts = calloc(q, sizeof(int));
    h->value_recv_counts = calloc(q, sizeof(int));
    /* every block sent or received is for at least one slot: `s` bounds each list */
    h->point_send = malloc(s * sizeof *h->point_send);
    h->point_send_rank = malloc(s * sizeof *h->point_send_rank);
    h->point_block_rank = malloc(s * sizeof *h->point_block_rank);
    h->point_block_due = malloc(s);
    h->point_block_at = malloc(s * sizeof *h->point_block_at);
    h->value_send_agent = malloc(s * sizeof *h->value_send_agent);
    h->value_send_slot = malloc(s * sizeof *h->value_send_slot);
    h->value_send_rank = malloc(s * sizeof *h->value_send_rank);
    h->value_block_slot = malloc(s * sizeof *h->value_block_slot);
    h->value_block_rank = malloc(s * sizeof *h->value_block_rank);
    h->value_block_at = malloc(s * sizeof *h->value_block_at);
    h->slot_agent = malloc(s * sizeof *h->slot_agent);
    h->slot_rank = malloc(s * sizeof *h->slot_rank);
    h->point_from = malloc(s * sizeof *h->point_from);
    h->value_from = malloc(s * sizeof *h->value_from);
    h->local_slot = malloc(s * sizeof *h->local_slot);
    POLKA_CHECK(
        h->ranks && h->point_send_counts && h->point_recv_counts && h->value_send_counts &&
            h->value_recv_counts && h->point_send && h->point_send_rank && h->point_block_rank &&
            h->point_block_due && h->point_block_at && h->value_send_agent && h->value_send_slot &&
            h->value_send_rank && h->value_block_slot && h->value_block_rank && h->value_block_at &&
            h->slot_agent && h->slot_rank && h->point_from && h->value_from && h->local_slot,
        POLKA_ERR_MEM, "out of memory for the neighbour lists of %zu agents", h->count);
    return POLKA_OK;
}

/* The neighbouring ranks: those that own a neighbour of a local agent. */
static void find_ranks(polka_halo *h, const polka_graph *graph) {
    h->degree = 0;
    for (int r = 0; r < h->size; r++) {
        int near = 0;
        for (size_t a = 0; a < h->count && !near && r != h->rank; a++)
            near = touches(h, graph, h->ids[a], r);
        if (near) h->ranks[h->degree++] = r;
    }
}

/* Phase 1 with neighbouring rank number q: the local agents whose points go to it, and the
 * blocks of the received points its agents' points land in (both by increasing agent id). */
static void plan_points(polka_halo *h, const polka_graph *graph, int q, long *remote_block,
                        long *received) {
    int r = h->ranks[q];
    for (size_t a = 0; a < h->count; a++) {
        if (!touches(h, graph, h->ids[a], r)) continue;
        h->point_send_rank[h->point_sends] = q;
        h->point_send[h->point_sends++] = a;
    }
    size_t theirs = 0;
    const size_t *ids = polka_placement_agents(h->placement, r, &theirs);
    for (size_t b = 0; b < theirs; b++) {
        size_t i = ids[b];
        if (!touches(h, graph, i, h->rank)) continue;
        h->point_block_rank[*received] = q;
        remote_block[i] = (*received)++;
    }
}

/* Phase 2 with neighbouring rank number q, in the order (receiver, its neighbour slot): what
 * comes back (f_j at my agents' points) and what goes out (f_j at rank q's agents' points). */
static void plan_values(polka_halo *h, const polka_graph *graph, int q, long *received) {
    int r = h->ranks[q];
    for (size_t a = 0; a < h->count; a++) {
        const size_t *list = polka_graph_neighbors(graph, h->ids[a]);
        for (size_t k = 0; k < polka_graph_degree(graph, h->ids[a]); k++) {
            if (owner_of(h, list[k]) != r) continue;
            h->value_block_slot[*received] = h->slot_start[a] + k;
            h->value_block_rank[*received] = q;
            h->value_from[h->slot_start[a] + k] = (*received)++;
            h->slot_rank[h->slot_start[a] + k] = q;
        }
    }
    size_t theirs = 0;
    const size_t *ids = polka_placement_agents(h->placement, r, &theirs);
    for (size_t b = 0; b < theirs; b++) {
        size_t i = ids[b];
        const size_t *list = polka_graph_neighbors(graph, i);
        for (size_t k = 0; k < polka_graph_degree(graph, i); k++) {
            size_t j = list[k];
            long mine = local_of(h, j);
            if (mine < 0) continue;
            h->value_send_agent[h->value_sends] = (size_t)mine;
            h->value_send_rank[h->value_sends] = q;
            h->value_send_slot[h->value_sends++] = slot_of(graph, j, i);
        }
    }
}

/* The slots whose neighbour is on this rank read it in memory. */
static void plan_local(polka_halo *h, const polka_graph *graph, const long *remote_block) {
    for (size_t a = 0; a < h->count; a++) {
        const size_t *list = polka_graph_neighbors(graph, h->ids[a]);
        for (size_t k = 0; k < polka_graph_degree(graph, h->ids[a]); k++) {
            size_t j = list[k], slot = h->slot_start[a] + k;
            long mine = local_of(h, j);
            h->slot_agent[slot] = a;
            if (mine >= 0) h->slot_rank[slot] = -1;
            h->point_from[slot] = mine >= 0 ? -1 - mine : remote_block[j];
            h->local_slot[slot] = mine >= 0 ? slot_of(graph, j, h->ids[a]) : 0;
            if (mine >= 0) h->value_from[slot] = -1 - mine;
        }
    }
}

static polka_status plan(polka_halo *h, const polka_graph *graph) {
    POLKA_CALL(alloc_lists(h, graph));
    find_ranks(h, graph);
    long *remote_block = malloc(h->agents * sizeof *remote_block);
    POLKA_CHECK_ALLOC(remote_block);
    long points = 0, values = 0;
    for (int q = 0; q < h->degree; q++) plan_points(h, graph, q, remote_block, &points);
    for (int q = 0; q < h->degree; q++) plan_values(h, graph, q, &values);
    plan_local(h, graph, remote_block);
    free(remote_block);
    h->point_blocks = (size_t)points;
    h->value_blocks = (size_t)values;
    size_t largest = 1, sent_points = h->point_sends * h->point_block,
           sent_values = h->value_sends * h->value_block;
    size_t got_points = (size_t)points * h->point_block,
           got_values = (size_t)values * h->value_block;
    if (sent_points > largest) largest = sent_points;
    if (sent_values > largest) largest = sent_values;
    if (got_points > largest) largest = got_points;
    if (got_values > largest) largest = got_values;
    h->send = malloc(largest * sizeof *h->send);
    h->recv = malloc(largest * sizeof *h->recv);
    POLKA_CHECK(h->send && h->recv, POLKA_ERR_MEM, "out of memory for the exchange buffers");
    return POLKA_OK;
}

polka_status polka_halo_create(const polka_graph *graph, const polka_placement *placement, int rank,
                               size_t point_block, size_t value_block, polka_halo *halo) {
    *halo = (polka_halo){.agents = polka_graph_nodes(graph),
                         .placement = placement,
                         .rank = rank,
                         .size = placement->ranks,
                         .point_block = point_block,
                         .value_block = value_block};
    halo->ids = polka_placement_agents(placement, rank, &halo->count);
    polka_status status = plan(halo, graph);
    if (status != POLKA_OK) polka_halo_free(halo);
    return status;
}

void polka_halo_free(polka_halo *h) {
    free(h->ranks);
    free(h->point_send_counts);
    free(h->point_recv_counts);
    free(h->value_send_counts);
    free(h->value_recv_counts);
    free(h->point_send);
    free(h->point_send_rank);
    free(h->point_block_rank);
    free(h->point_block_due);
    free(h->point_block_at);
    free(h->value_send_agent);
    free(h->value_send_slot);
    free(h->value_send_rank);
    free(h->value_block_slot);
    free(h->value_block_rank);
    free(h->value_block_at);
    free(h->slot_start);
    free(h->slot_agent);
    free(h->slot_rank);
    free(h->point_from);
    free(h->value_from);
    free(h->local_slot);
    free(h->send);
    free(h->recv);
    memset(h, 0, sizeof *h);
}

/* Whether local agent a's block may go to some agent of neighbouring rank q this round. */
static int block_due(const polka_halo *h, const polka_agent *agent, size_t a, int q) {
    for (size_t k = 0; k < agent->degree; k++)
        if (agent->out_point[k] && h->slot_rank[h->slot_start[a] + k] == q) return 1;
    return 0;
}

/* Phase 1 out: the blocks of the local agents with a message to some agent of the rank; with
 * `flags`, instead of each block one double: whether it comes (a censoring method). */
static void pack_points(polka_halo *h, const polka_agent *agents, int flags) {
    size_t pb = flags ? 1 : h->point_block, packed = 0;
    memset(h->point_send_counts, 0, (size_t)h->degree * sizeof *h->point_send_counts);
    for (size_t s = 0; s < h->point_sends; s++) {
        size_t a = h->point_send[s];
        int q = h->point_send_rank[s];
        if (!block_due(h, &agents[a], a, q)) continue;
        if (flags)
            h->send[packed++] = agents[a].sends;
        else
            memcpy(h->send + packed++ * pb, agents[a].sent_wire, pb * sizeof *h->send);
        h->point_send_counts[q] += (int)pb;
    }
    h->crossed += (double)(packed * pb);
}

/* Phase 1 in: a remote agent's block (or flag: width 1) comes when it reaches some local
 * agent. */
static void expect_points(polka_halo *h, const polka_agent *agents, size_t width) {
    memset(h->point_recv_counts, 0, (size_t)h->degree * sizeof *h->point_recv_counts);
    memset(h->point_block_due, 0, h->point_blocks);
    for (size_t a = 0; a < h->count; a++)
        for (size_t k = 0; k < agents[a].degree; k++) {
            long from = h->point_from[h->slot_start[a] + k];
            if (from >= 0 && agents[a].in_point[k]) h->point_block_due[from] = 1;
        }
    long at = 0;
    for (size_t b = 0; b < h->point_blocks; b++) {
        h->point_block_at[b] = h->point_block_due[b] ? at++ : -1;
        if (h->point_block_due[b]) h->point_recv_counts[h->point_block_rank[b]] += (int)width;
    }
}

/* Each local agent's heard neighbours' points into agent->received: from memory or the
 * exchange. */
static void unpack_points(const polka_halo *h, polka_agent *agents) {
    size_t block = h->point_block;
    for (size_t a = 0; a < h->count; a++) {
        for (size_t k = 0; k < agents[a].degree; k++) {
            if (!agents[a].in_point[k]) continue;
            long from = h->point_from[h->slot_start[a] + k];
            const double *src = from >= 0 ? h->recv + (size_t)h->point_block_at[from] * block
                                          : agents[-1 - from].sent_wire;
            polka_agent_take_block(&agents[a], k, src);
        }
    }
}

/* Phase 2 out: f_j at the points of each remote neighbour whose values go back. */
static void pack_values(polka_halo *h, const polka_agent *agents) {
    size_t vb = h->value_block, packed = 0;
    memset(h->value_send_counts, 0, (size_t)h->degree * sizeof *h->value_send_counts);
    for (size_t s = 0; s < h->value_sends; s++) {
        const polka_agent *j = &agents[h->value_send_agent[s]];
        size_t slot = h->value_send_slot[s];
        if (!j->out_value[slot]) continue;
        memcpy(h->send + packed++ * vb, j->answers_wire + slot * vb, vb * sizeof *h->send);
        h->value_send_counts[h->value_send_rank[s]] += (int)vb;
    }
    h->crossed += (double)(packed * vb);
}

/* Phase 2 in: the values of slot (a, k) come when agent a's values message exists. */
static void expect_values(polka_halo *h, const polka_agent *agents) {
    memset(h->value_recv_counts, 0, (size_t)h->degree * sizeof *h->value_recv_counts);
    long at = 0;
    for (size_t b = 0; b < h->value_blocks; b++) {
        size_t slot = h->value_block_slot[b], a = h->slot_agent[slot];
        int due = agents[a].in_value[slot - h->slot_start[a]];
        h->value_block_at[b] = due ? at++ : -1;
        if (due) h->value_recv_counts[h->value_block_rank[b]] += (int)h->value_block;
    }
}

/* Each local agent's neighbours' answers to its block into agent->answered. */
static void unpack_values(const polka_halo *h, polka_agent *agents) {
    size_t block = h->value_block;
    for (size_t a = 0; a < h->count; a++) {
        for (size_t k = 0; k < agents[a].degree; k++) {
            if (!agents[a].in_value[k]) continue;
            size_t slot = h->slot_start[a] + k;
            long from = h->value_from[slot];
            const double *src = from >= 0
                                    ? h->recv + (size_t)h->value_block_at[from] * block
                                    : agents[-1 - from].answers_wire + h->local_slot[slot] * block;
            polka_agent_take_answer(&agents[a], k, src);
        }
    }
}

/* A censoring method, before phase 1: which heard blocks do not come (their agents censored
 * them), told by one double per block that may cross; then every agent settles its sends. */
static polka_status exchange_sends(polka_halo *h, polka_exchange *exchange, polka_agent *agents) {
    pack_points(h, agents, 1);
    expect_points(h, agents, 1);
    POLKA_CALL(polka_exchange_alltoallv(exchange, h->send, h->point_send_counts, h->recv,
                                        h->point_recv_counts));
    for (size_t a = 0; a < h->count; a++)
        for (size_t k = 0; k < agents[a].degree; k++) {
            if (!agents[a].in_point[k]) continue;
            long from = h->point_from[h->slot_start[a] + k];
            int comes =
                from >= 0 ? h->recv[h->point_block_at[from]] != 0.0 : agents[-1 - from].sends;
            if (!comes) polka_agent_unheard(&agents[a], k);
        }
    return POLKA_OK;
}

/* Phase 2: the answers to the blocks heard, back to their agents. */
static polka_status exchange_answers(polka_halo *h, polka_exchange *exchange, polka_agent *agents,
                                     polka_status local) {
    pack_values(h, agents);
    expect_values(h, agents);
    POLKA_CALL(polka_exchange_alltoallv(exchange, h->send, h->value_send_counts, h->recv,
                                        h->value_recv_counts));
    if (local == POLKA_OK) unpack_values(h, agents);
    return POLKA_OK;
}

polka_status polka_halo_round(polka_halo *h, polka_exchange *exchange, polka_agent *agents,
                              polka_status local, int censors) {
    if (censors) POLKA_CALL(exchange_sends(h, exchange, agents));
    for (size_t a = 0; a < h->count; a++) {
        polka_status settled = polka_agent_settle_sends(&agents[a]);
        if (local == POLKA_OK) local = settled; /* the exchange goes on: no neighbour waits */
    }
    pack_points(h, agents, 0);
    expect_points(h, agents, h->point_block);
    POLKA_CALL(polka_exchange_alltoallv(exchange, h->send, h->point_send_counts, h->recv,
                                        h->point_recv_counts));
    if (local == POLKA_OK) unpack_points(h, agents);
    if (h->value_block == 0) return local; /* a one-phase method */
    for (size_t a = 0; a < h->count && local == POLKA_OK; a++)
        local = polka_agent_answer(&agents[a]);
    /* after an error the answers sent are stale, but they are sent: no neighbour waits */
    POLKA_CALL(exchange_answers(h, exchange, agents, local));
    return local;
}
