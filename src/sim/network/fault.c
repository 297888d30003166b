#include "sim/network/fault_impl.h"

#include <ctype.h>
#include <stdlib.h>

#include "polka/data.h"
#include "polka/rng.h"

static void mark(void *context, size_t id) {
    ((unsigned char *)context)[id] = 1;
}

polka_status polka_faults_create(const polka_plan *plan, size_t agents, const polka_stream *stream,
                                 polka_faults *faults) {
    const polka_fault_spec *spec = &plan->fault;
    *faults = (polka_faults){.spec = *spec,
                             .seed = plan->run.seed,
                             .agents = agents,
                             .stream = stream,
                             .gossip = plan->net.gossip,
                             .leave_at = spec->leave_at - 1,
                             .back_at = spec->return_at ? spec->return_at - 1 : UINT64_MAX};
    if (spec->leave[0] != '\0') {
        faults->leaving = calloc(agents ? agents : 1, 1);
        POLKA_CHECK_ALLOC(faults->leaving);
        const char *why = polka_faults_parse_agents(spec->leave, agents, mark, faults->leaving);
        if (why) {
            polka_faults_free(faults);
            return polka_error_set(POLKA_ERR_ARG,
                                   "fault.leave = '%s': %s (the network has %zu "
                                   "agents, 0 .. %zu)",
                                   spec->leave, why, agents, agents ? agents - 1 : 0);
        }
    }
    faults->any =
        spec->link_loss > 0 || spec->offline > 0 || faults->gossip || faults->leaving != NULL;
    return POLKA_OK;
}

void polka_faults_free(polka_faults *faults) {
    free(faults->leaving);
    faults->leaving = NULL;
}

/* A uniform draw of stream `kind` for round t and `sub` (an agent, or an edge and phase). */
static double draw(const polka_faults *f, uint64_t kind, uint64_t t, uint64_t sub) {
    polka_rng rng = polka_rng_start_sub(f->seed, kind, t, sub);
    return polka_rng_uniform(&rng);
}

int polka_faults_online(const polka_faults *f, uint64_t t, size_t i) {
    if (f->leaving && f->leaving[i] && t >= f->leave_at && t < f->back_at) return 0;
    return !(f->spec.offline > 0 && draw(f, POLKA_STREAM_OFFLINE, t, i) < f->spec.offline);
}

polka_agent_round polka_fault_agent_state(const polka_faults *f, uint64_t t, size_t i) {
    if (f == NULL) return (polka_agent_round){.online = 1, .learns = 1};
    polka_agent_round state = {.online = polka_faults_online(f, t, i)};
    state.learns =
        state.online && (f->stream == NULL || polka_stream_agent_learns(f->stream, i, t));
    return state;
}

size_t polka_faults_gossip_slot(const polka_faults *f, uint64_t t, size_t i, size_t degree) {
    polka_rng rng = polka_rng_start_sub(f->seed, POLKA_STREAM_GOSSIP, t, i);
    return (size_t)polka_rng_below(&rng, degree);
}

/* One-peer gossip: the neighbour agent i talks to in round t. */
static size_t gossip_peer(const polka_faults *f, const polka_graph *graph, uint64_t t, size_t i) {
    size_t degree = polka_graph_degree(graph, i);
    return degree ? polka_graph_neighbors(graph, i)[polka_faults_gossip_slot(f, t, i, degree)] : i;
}

/* The message of an edge and phase (0: the points i → j, 1: the values j → i) is lost. */
static int lost(const polka_faults *f, uint64_t t, size_t i, size_t j, int phase) {
    uint64_t edge = (uint64_t)i * f->agents + j;
    return f->spec.link_loss > 0 &&
           draw(f, POLKA_STREAM_LINK, t, 2 * edge + (uint64_t)phase) < f->spec.link_loss;
}

int polka_faults_lost(const polka_faults *f, uint64_t t, size_t i, size_t j, int phase) {
    return lost(f, t, i, j, phase);
}

polka_link polka_faults_link(const polka_faults *f, const polka_graph *graph, uint64_t t, size_t i,
                             size_t j) {
    polka_link link = {0};
    if (!f->any && f->spec.delay == 0) return (polka_link){.point = 1, .value = 1};
    if (!polka_faults_online(f, t, i) || !polka_faults_online(f, t, j)) return link;
    if (f->gossip && gossip_peer(f, graph, t, i) != j) return link;
    link.point_lost = lost(f, t, i, j, 0);
    link.point = !link.point_lost;
    link.value_lost = link.point && lost(f, t, i, j, 1);
    link.value = link.point && !link.value_lost;
    if (link.value && f->spec.delay > 0) {
        polka_rng rng =
            polka_rng_start_sub(f->seed, POLKA_STREAM_DELAY, t, (uint64_t)i * f->agents + j);
        link.delay = (size_t)polka_rng_below(&rng, f->spec.delay + 1);
    }
    return link;
}

/* Reads a decimal id at *p (after blanks) below limit. */
static const char *parse_id(const char **p, size_t limit, size_t *id) {
    while (isspace((unsigned char)**p)) (*p)++;
    if (!isdigit((unsigned char)**p)) return "expected an agent number";
    char *end = NULL;
    unsigned long long value = strtoull(*p, &end, 10);
    *p = end;
    while (isspace((unsigned char)**p)) (*p)++;
    if (value >= limit) return "an agent number is out of range";
    *id = (size_t)value;
    return NULL;
}

const char *polka_faults_parse_agents(const char *text, size_t limit,
                                      void (*add)(void *context, size_t id), void *context) {
    const char *p = text;
    for (;;) {
        size_t first = 0, last = 0;
        const char *why = parse_id(&p, limit, &first);
        if (why) return why;
        last = first;
        if (*p == '-') {
            p++;
            if ((why = parse_id(&p, limit, &last))) return why;
            if (last < first) return "a range a-b needs a <= b";
        }
        for (size_t id = first; add && id <= last; id++) add(context, id);
        if (*p == '\0') return NULL;
        if (*p != ',') return "expected ',' between agent numbers";
        p++;
    }
}

uint64_t polka_faults_epoch_seed(uint64_t seed, uint64_t epoch) {
    /* splitmix64 of (seed, epoch): epochs far apart, so that the connectivity retries of one
     * epoch (seed + 1, seed + 2, …) never meet the next epoch's seed */
    uint64_t z = seed + epoch * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
