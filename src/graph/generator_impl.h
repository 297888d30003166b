/*
 * Private to the graph generators (src/graph/graph_generate.c and generate_*.c): the table of
 * generators behind polka_graph_generate, one entry per line of POLKA_GRAPH_LIST (graph.h).
 */
#ifndef POLKA_GENERATOR_IMPL_H
#define POLKA_GENERATOR_IMPL_H

#include <igraph.h>

#include "polka/graph.h"

typedef struct {
    const char *name; /* as net.graph and `polka graph generate --kind` spell it */
    const char *help; /* one line for the help: what it draws, the parameters it reads */
    unsigned uses;    /* POLKA_GRAPH_USES_*: the spec's parameters it reads */
    int random;       /* 1: drawn with igraph's RNG, seeded with spec.seed before make */
    /* Optional: POLKA_OK when the spec's own parameters fit (n is in range), else the error
     * naming the bad value. */
    polka_status (*check)(const polka_graph_spec *spec);
    /* Optional: an upper estimate of the edges, to refuse absurd sizes; NULL: 2n. */
    double (*edges)(const polka_graph_spec *spec);
    /* The graph of a checked spec into ig (igraph's RNG already seeded when random). */
    polka_status (*make)(const polka_graph_spec *spec, igraph_t *ig);
} polka_graph_generator;

/* The entries: polka_generator_ring, … */
#define POLKA_GRAPH_EXTERN(id, entry) extern const polka_graph_generator polka_generator_##entry;
POLKA_GRAPH_LIST(POLKA_GRAPH_EXTERN)
#undef POLKA_GRAPH_EXTERN

/* An igraph error code as a polka status naming the call `what`. */
polka_status polka_ig_check(igraph_error_t err, const char *what);

/* rows × cols for a grid or torus: given, derived from one of them, or as square as possible. */
polka_status polka_graph_grid_dims(const polka_graph_spec *spec, size_t *rows, size_t *cols);

#endif
