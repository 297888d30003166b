/* Private to the graph module (src/graph/graph*.c): the layout of polka_graph. */
#ifndef POLKA_GRAPH_IMPL_H
#define POLKA_GRAPH_IMPL_H

#include "polka/graph.h"

struct polka_graph_s {
    size_t n;             /* nodes */
    size_t m;             /* undirected edges */
    size_t *offsets;      /* n + 1: node i's arcs are [offsets[i], offsets[i+1]) */
    size_t *adj;          /* 2m neighbour ids, increasing within each node */
    double *weights;      /* 2m current weights w_ij */
    double *file_weights; /* 2m weights as given (1 where none was) */
    char *comment;        /* free text for the file header, or NULL */
};

/*
 * Builds a graph from m edges {u[e], v[e]} (weights w[e], NULL = 1) that the caller has
 * checked for range, self loops and weights. Duplicate edges are an error
 * (POLKA_ERR_ARG, "duplicate edge U-V (edges E1 and E2)", E counted from 0); when
 * dup_first/dup_second are not NULL they receive the two edge indices (else SIZE_MAX).
 * Current weights start as the given ones.
 */
polka_status polka_graph_build_csr(size_t n, const size_t *u, const size_t *v, const double *w,
                                   size_t m, polka_graph **out, size_t *dup_first,
                                   size_t *dup_second);

/* Each node's component into label (n entries): 0, 1, … in the order of their smallest
 * node, by BFS; *count receives how many. */
polka_status polka_graph_label_components(const polka_graph *g, size_t *label, size_t *count);

/* The number of connected components; when unreached is not NULL it receives the
 * smallest node that node 0 cannot reach (SIZE_MAX if none). */
polka_status polka_graph_count_components(const polka_graph *g, size_t *components,
                                          size_t *unreached);

/* Joins the components of *graph (polka_graph_spec.join): one edge from each component's
 * smallest node to a node of the largest drawn from seed; *added receives how many (0 when
 * connected, *graph then unchanged). The new graph replaces *graph (uniform weights). */
polka_status polka_graph_join_components(polka_graph **graph, uint64_t seed, size_t *added);

#endif
