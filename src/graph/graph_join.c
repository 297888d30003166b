/*
 * Joining the components of a generated graph (polka_graph_spec.join, net.join, polka graph
 * generate --join): below the connectivity threshold (ER or RGG of mean degree < ln n) a
 * random graph always has a few small components, and retrying seeds never ends. Instead each
 * component but the largest gets one edge, from its smallest node to a node of the largest
 * drawn from the seed: a graph of N nodes gains components − 1 edges, so its mean degree and
 * degree distribution barely move (10⁵ nodes, ER of mean degree 8, seed 1: 22 edges added to
 * 400 462).
 */
#include <stdint.h>
#include <stdlib.h>

#include "graph/graph_impl.h"
#include "polka/data.h"
#include "polka/rng.h"

/* The largest component (the first of the largest), and its nodes in increasing order. */
static polka_status largest_component(const size_t *label, size_t n, size_t count, size_t *largest,
                                      size_t **nodes, size_t *size) {
    size_t *sizes = calloc(count, sizeof *sizes);
    POLKA_CHECK_ALLOC(sizes);
    for (size_t i = 0; i < n; i++) sizes[label[i]]++;
    size_t best = 0;
    for (size_t c = 1; c < count; c++)
        if (sizes[c] > sizes[best]) best = c;
    *largest = best;
    *size = sizes[best];
    free(sizes);
    *nodes = malloc(*size * sizeof **nodes);
    POLKA_CHECK_ALLOC(*nodes);
    for (size_t i = 0, k = 0; i < n; i++)
        if (label[i] == best) (*nodes)[k++] = i;
    return POLKA_OK;
}

/* The edges of g (u < v) and, for every component c but the largest, {first node of c, a
 * node of the largest drawn from (seed, c)}. */
static polka_status edges_joined(const polka_graph *g, const size_t *label, size_t count,
                                 uint64_t seed, size_t **u, size_t **v, size_t *m) {
    size_t largest = 0, size = 0, *nodes = NULL;
    POLKA_CALL(largest_component(label, g->n, count, &largest, &nodes, &size));
    size_t total = g->m + count - 1;
    *u = malloc(total * sizeof **u);
    *v = malloc(total * sizeof **v);
    if (*u == NULL || *v == NULL) {
        free(nodes);
        return polka_error_set(POLKA_ERR_MEM, "out of memory joining %zu components", count);
    }
    size_t e = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++)
            if (i < g->adj[a]) {
                (*u)[e] = i;
                (*v)[e++] = g->adj[a];
            }
    size_t next = 0; /* components appear in the order of their first node */
    for (size_t i = 0; i < g->n; i++) {
        if (label[i] != next) continue;
        if (next != largest) {
            polka_rng rng = polka_rng_start(seed, POLKA_STREAM_JOIN, next);
            (*u)[e] = i;
            (*v)[e++] = nodes[polka_rng_below(&rng, size)];
        }
        next++;
    }
    free(nodes);
    *m = e;
    return POLKA_OK;
}

polka_status polka_graph_join_components(polka_graph **graph, uint64_t seed, size_t *added) {
    polka_graph *g = *graph;
    size_t *label = malloc((g->n ? g->n : 1) * sizeof *label), count = 0;
    POLKA_CHECK_ALLOC(label);
    polka_status status = polka_graph_label_components(g, label, &count);
    *added = 0;
    if (status != POLKA_OK || count <= 1) {
        free(label);
        return status;
    }
    size_t *u = NULL, *v = NULL, m = 0;
    status = edges_joined(g, label, count, seed, &u, &v, &m);
    free(label);
    polka_graph *joined = NULL;
    if (status == POLKA_OK)
        status = polka_graph_build_csr(g->n, u, v, NULL, m, &joined, NULL, NULL);
    free(u);
    free(v);
    if (status != POLKA_OK) return status;
    polka_graph_free(graph);
    *graph = joined;
    *added = count - 1;
    return POLKA_OK;
}
