/*
 * Late values (fault.delay = D > 0). Neighbour j's values at my points of round s may arrive
 * in any round s .. s + D. Each round an agent keeps, per neighbour, the newest values that
 * have arrived (the largest s) and uses them while they are at most D rounds old: this
 * round's at the own points as usual, older ones at the own points of round s, which it
 * keeps for D rounds, with the penalty gradient c·w_ij·(f_i(x_s) − f_j^s(x_s)): its model of
 * now against the neighbour's model of then.
 */
#include <stdlib.h>
#include <string.h>

#include "polka/memory.h"
#include "sim/method/penalty_impl.h"

#define NONE UINT64_MAX

struct polka_agent_stale {
    size_t depth;        /* D + 1: rounds of own points kept, arrival slots per neighbour */
    double *own_x;       /* depth × b × dim: the own points of round s at s mod depth */
    uint64_t *own_round; /* depth: the round each holds (NONE: none) */
    /* per neighbour slot k: */
    uint64_t *pend_arrival, *pend_sent; /* degree × depth: values in flight, by arrival */
    double *pend_values;                /* degree × depth × b × C */
    uint64_t *newest_sent;              /* degree: the round of the newest arrived (NONE) */
    double *newest_values;              /* degree × b × C */
    unsigned char *late;                /* degree: the newest are older and enter the update */
    double *f_late;                     /* b × C: f_i at the own points of a late round */
};

static void free_slots(polka_agent_stale *s) {
    free(s->pend_arrival);
    free(s->pend_sent);
    free(s->pend_values);
    free(s->newest_sent);
    free(s->newest_values);
    free(s->late);
}

/* The per-neighbour state for `degree` slots, all empty. */
static polka_status alloc_slots(polka_agent_stale *s, size_t degree, size_t block) {
    size_t slots = degree ? degree : 1, pend = slots * s->depth;
    s->pend_arrival = malloc(pend * sizeof *s->pend_arrival);
    s->pend_sent = malloc(pend * sizeof *s->pend_sent);
    s->pend_values = malloc(pend * block * sizeof *s->pend_values);
    s->newest_sent = malloc(slots * sizeof *s->newest_sent);
    s->newest_values = malloc(slots * block * sizeof *s->newest_values);
    s->late = calloc(slots, 1);
    POLKA_CHECK(s->pend_arrival && s->pend_sent && s->pend_values && s->newest_sent &&
                    s->newest_values && s->late,
                POLKA_ERR_MEM, "out of memory for the values in flight");
    for (size_t e = 0; e < pend; e++) s->pend_arrival[e] = s->pend_sent[e] = NONE;
    for (size_t k = 0; k < slots; k++) s->newest_sent[k] = NONE;
    return POLKA_OK;
}

/* Bytes of one agent's late values: the own points of D + 1 rounds, and per neighbour D + 1
 * slots in flight (values, arrival and sending round) and the newest arrived. */
static double stale_bytes(size_t delay, size_t batch, size_t dim, size_t outputs, size_t degree) {
    double depth = (double)delay + 1.0, block = (double)(batch * outputs);
    double own = depth * ((double)(batch * dim) * 8.0 + 8.0) + block * 8.0;
    double per_neighbour = depth * (8.0 * block + 16.0) + 8.0 * block + 9.0;
    return own + (double)degree * per_neighbour;
}

polka_status polka_stale_fit(const polka_plan *plan, const polka_graph *graph, const size_t *ids,
                             size_t count, size_t dim, size_t outputs) {
    size_t delay = polka_penalty_late_rounds(plan), batch = plan->learner.batch;
    if (delay == 0) return POLKA_OK;
    double bytes = 0.0;
    for (size_t a = 0; a < count; a++) {
        size_t id = ids ? ids[a] : a;
        bytes += stale_bytes(delay, batch, dim, outputs, polka_graph_degree(graph, id));
    }
    size_t limit = polka_data_memory_limit();
    if (bytes <= (double)limit) return POLKA_OK;
    const double mb = 1024.0 * 1024.0;
    const char *key = plan->fault.delay ? "fault.delay" : "async.max_age";
    return polka_error_set(POLKA_ERR_MEM,
                           "%s = %zu keeps %zu rounds of values in flight per edge: the "
                           "%zu agents of this process would take %.1f MB for them, over the "
                           "memory limit of %.1f MB%s (lower %s, or raise data.memory)",
                           key, delay, delay + 1, count, bytes / mb, (double)limit / mb,
                           polka_data_memory_origin(limit), key);
}

polka_status polka_stale_create(polka_agent *agent, size_t delay) {
    polka_agent_stale *s = calloc(1, sizeof *s);
    POLKA_CHECK_ALLOC(s);
    polka_penalty_of(agent)->stale = s;
    size_t b = agent->batch, block = b * agent->outputs;
    s->depth = delay + 1;
    s->own_x = malloc(s->depth * b * agent->dim * sizeof *s->own_x);
    s->own_round = malloc(s->depth * sizeof *s->own_round);
    s->f_late = malloc(block * sizeof *s->f_late);
    POLKA_CHECK(s->own_x && s->own_round && s->f_late, POLKA_ERR_MEM,
                "out of memory for agent %zu's late values", agent->id);
    for (size_t e = 0; e < s->depth; e++) s->own_round[e] = NONE;
    return alloc_slots(s, agent->degree, block);
}

void polka_stale_free(polka_agent *agent) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    if (s == NULL) return;
    free_slots(s);
    free(s->own_x);
    free(s->own_round);
    free(s->f_late);
    free(s);
    polka_penalty_of(agent)->stale = NULL;
}

void polka_stale_remember(polka_agent *agent) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    size_t e = agent->round % s->depth, len = agent->batch * agent->dim;
    memcpy(s->own_x + e * len, polka_penalty_of(agent)->cand_x, len * sizeof *s->own_x);
    s->own_round[e] = agent->round;
}

/* Slot k's values of this round go in flight until round t + delay (a newer one wins). */
static void file_in_flight(polka_agent *agent, size_t k, size_t block) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    uint64_t t = agent->round, arrival = t + agent->in_delay[k];
    size_t e = k * s->depth + arrival % s->depth;
    if (s->pend_arrival[e] == arrival && s->pend_sent[e] != NONE && s->pend_sent[e] >= t) return;
    s->pend_arrival[e] = arrival;
    s->pend_sent[e] = t;
    memcpy(s->pend_values + e * block, agent->answered + k * block, block * sizeof *s->pend_values);
}

/* The values in flight that arrive now replace slot k's newest when they are newer. */
static void take_arrivals(polka_agent *agent, size_t k, size_t block) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    uint64_t t = agent->round;
    size_t e = k * s->depth + t % s->depth;
    if (s->pend_arrival[e] != t) return;
    if (s->newest_sent[k] == NONE || s->pend_sent[e] > s->newest_sent[k]) {
        s->newest_sent[k] = s->pend_sent[e];
        memcpy(s->newest_values + k * block, s->pend_values + e * block,
               block * sizeof *s->newest_values);
    }
    s->pend_arrival[e] = s->pend_sent[e] = NONE;
}

/* Slot k's newest values: used while young enough and their own points are kept. */
static void classify_slot(polka_agent *agent, size_t k, unsigned char *fresh) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    uint64_t t = agent->round, oldest = s->depth - 1, sent = s->newest_sent[k];
    fresh[k] = s->late[k] = 0;
    if (sent == NONE) return;
    if (t - sent > oldest || s->own_round[sent % s->depth] != sent) {
        s->newest_sent[k] = NONE; /* too old to use: dropped */
        return;
    }
    fresh[k] = sent == t;
    s->late[k] = sent < t;
}

void polka_stale_receive(polka_agent *agent, unsigned char *fresh) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    uint64_t t = agent->round;
    size_t block = agent->batch * agent->outputs;
    for (size_t k = 0; k < agent->degree; k++) {
        if (agent->in_value[k] && agent->in_delay[k] == 0) {
            s->newest_sent[k] = t;
            memcpy(s->newest_values + k * block, agent->answered + k * block,
                   block * sizeof *s->newest_values);
        } else if (agent->in_value[k]) {
            file_in_flight(agent, k, block);
        }
        take_arrivals(agent, k, block);
        classify_slot(agent, k, fresh);
    }
}

size_t polka_penalty_late_rounds(const polka_plan *plan) {
    if (strcmp(plan->settings.engine, "events") == 0) return plan->settings.max_age;
    return plan->fault.delay;
}

void polka_stale_arrive(polka_agent *agent, size_t k, uint64_t sent, const double *values) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    if (s->newest_sent[k] != NONE && sent <= s->newest_sent[k]) return; /* overtaken */
    size_t block = agent->batch * agent->outputs;
    s->newest_sent[k] = sent;
    memcpy(s->newest_values + k * block, values, block * sizeof *s->newest_values);
}

void polka_stale_classify(polka_agent *agent, unsigned char *fresh) {
    for (size_t k = 0; k < agent->degree; k++) classify_slot(agent, k, fresh);
}

double polka_stale_weight(const polka_agent *agent) {
    double sum = 0.0;
    for (size_t k = 0; k < agent->degree; k++)
        if (agent->fresh[k] || polka_penalty_of(agent)->stale->late[k]) sum += agent->weights[k];
    return sum;
}

/* The rows of the late values computed at the own points of round `sent`, after `row` rows. */
static polka_status late_round_rows(polka_agent *agent, uint64_t sent, size_t row, double scale) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    size_t b = agent->batch, c = agent->outputs, p = agent->dim;
    double *x = polka_penalty_of(agent)->cand_x + row * p,
           *g = polka_penalty_of(agent)->cand_g + row * c;
    memcpy(x, s->own_x + (sent % s->depth) * b * p, b * p * sizeof *x);
    POLKA_CALL(polka_learner_predict(polka_penalty_of(agent)->learner, x, b, s->f_late));
    memset(g, 0, b * c * sizeof *g);
    for (size_t k = 0; k < agent->degree; k++) {
        if (!s->late[k] || s->newest_sent[k] != sent) continue;
        double cw = polka_penalty_of(agent)->c * agent->weights[k];
        if (scale != 1.0) cw *= scale;
        const double *f_j = s->newest_values + k * b * c;
        for (size_t e = 0; e < b * c; e++) g[e] += cw * (s->f_late[e] - f_j[e]);
        agent->counters.value_age_sum += (double)(agent->round - sent);
        agent->counters.value_age_count += 1.0;
    }
    return POLKA_OK;
}

polka_status polka_stale_rows(polka_agent *agent, size_t rows, double scale, size_t *added) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    *added = 0;
    for (uint64_t age = 1; age < s->depth && age <= agent->round; age++) {
        uint64_t sent = agent->round - age;
        int used = 0;
        for (size_t k = 0; k < agent->degree && !used; k++)
            used = s->late[k] && s->newest_sent[k] == sent;
        if (!used) continue;
        POLKA_CALL(late_round_rows(agent, sent, rows + *added, scale));
        *added += agent->batch;
    }
    return POLKA_OK;
}

/* The arrays of the late values' state: name, type, where, how many. */
typedef struct {
    const char *name;
    polka_state_type type;
    void *data;
    size_t count;
} stale_entry;

static size_t stale_entries(const polka_agent *agent, stale_entry *out) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale;
    size_t slots = agent->degree ? agent->degree : 1, block = agent->batch * agent->outputs;
    stale_entry entries[] = {
        {"stale.own_x", POLKA_STATE_F64, s->own_x, s->depth * agent->batch * agent->dim},
        {"stale.own_round", POLKA_STATE_U64, s->own_round, s->depth},
        {"stale.pend_arrival", POLKA_STATE_U64, s->pend_arrival, slots * s->depth},
        {"stale.pend_sent", POLKA_STATE_U64, s->pend_sent, slots * s->depth},
        {"stale.pend_values", POLKA_STATE_F64, s->pend_values, slots * s->depth * block},
        {"stale.newest_sent", POLKA_STATE_U64, s->newest_sent, slots},
        {"stale.newest_values", POLKA_STATE_F64, s->newest_values, slots * block},
    };
    memcpy(out, entries, sizeof entries);
    return sizeof entries / sizeof *entries;
}

polka_status polka_stale_save(const polka_agent *agent, polka_state *state) {
    stale_entry entries[8];
    size_t n = stale_entries(agent, entries);
    for (size_t k = 0; k < n; k++)
        POLKA_CALL(polka_state_put(state, entries[k].name, entries[k].type, entries[k].data,
                                   entries[k].count));
    return POLKA_OK;
}

polka_status polka_stale_restore(polka_agent *agent, const polka_state *state) {
    stale_entry entries[8];
    size_t n = stale_entries(agent, entries);
    for (size_t k = 0; k < n; k++)
        POLKA_CALL(polka_state_get(state, entries[k].name, entries[k].type, entries[k].data,
                                   entries[k].count));
    return POLKA_OK;
}

/* Where neighbour `id` sat in the old list (old_degree when it did not). */
static size_t old_slot(const size_t *old_neighbors, size_t old_degree, size_t id) {
    size_t k = 0;
    while (k < old_degree && old_neighbors[k] != id) k++;
    return k;
}

polka_status polka_stale_rewire(polka_agent *agent, const size_t *old_neighbors,
                                size_t old_degree) {
    polka_agent_stale *s = polka_penalty_of(agent)->stale, old = *s;
    size_t block = agent->batch * agent->outputs, depth = s->depth;
    polka_status status = alloc_slots(s, agent->degree, block);
    if (status != POLKA_OK) {
        free_slots(&old);
        return status;
    }
    for (size_t k = 0; k < agent->degree; k++) {
        size_t was = old_slot(old_neighbors, old_degree, agent->neighbors[k]);
        if (was == old_degree) continue; /* a new neighbour: nothing in flight */
        memcpy(s->pend_arrival + k * depth, old.pend_arrival + was * depth,
               depth * sizeof *s->pend_arrival);
        memcpy(s->pend_sent + k * depth, old.pend_sent + was * depth, depth * sizeof *s->pend_sent);
        memcpy(s->pend_values + k * depth * block, old.pend_values + was * depth * block,
               depth * block * sizeof *s->pend_values);
        s->newest_sent[k] = old.newest_sent[was];
        memcpy(s->newest_values + k * block, old.newest_values + was * block,
               block * sizeof *s->newest_values);
    }
    free_slots(&old);
    return POLKA_OK;
}
