/* The graph object: construction from edges, accessors, weights, names. */
#include "graph/graph_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const weight_kind_names[] = {"uniform", "metropolis", "file"};

polka_status polka_weight_kind_parse(const char *name, polka_weight_kind *kind) {
    int index;
    POLKA_CALL(polka_name_find(name, weight_kind_names, POLKA_COUNT(weight_kind_names),
                               "edge weights", &index));
    *kind = (polka_weight_kind)index;
    return POLKA_OK;
}

const char *polka_weight_kind_name(polka_weight_kind kind) {
    return polka_name_at(weight_kind_names, POLKA_COUNT(weight_kind_names), (int)kind);
}

/* One direction of an edge; idx is the edge's index in the input. */
typedef struct {
    size_t src, dst, idx;
} graph_arc;

/* Moves the count arcs of from into to, ordered by their key (src when by_src, else dst) and,
 * for equal keys, as they were (a stable counting sort; start: n + 1 zeroed counters). */
static void arcs_by_node(const graph_arc *from, graph_arc *to, size_t count, size_t n, int by_src,
                         size_t *start) {
    for (size_t a = 0; a < count; a++) start[(by_src ? from[a].src : from[a].dst) + 1]++;
    for (size_t i = 0; i < n; i++) start[i + 1] += start[i];
    for (size_t a = 0; a < count; a++) to[start[by_src ? from[a].src : from[a].dst]++] = from[a];
}

/* The arcs ordered by (src, dst, idx): by dst, then stably by src (the arcs come in idx order,
 * so equal (src, dst) stay in it). O(n + arcs), where a comparison sort of 10^7 arcs took
 * seconds. */
static polka_status sort_arcs(graph_arc *arcs, size_t count, size_t n) {
    graph_arc *by_dst = malloc((count ? count : 1) * sizeof *by_dst);
    size_t *start = calloc(n + 1, sizeof *start);
    if (by_dst == NULL || start == NULL) {
        free(by_dst);
        free(start);
        POLKA_CHECK_ALLOC(NULL);
    }
    arcs_by_node(arcs, by_dst, count, n, 0, start);
    memset(start, 0, (n + 1) * sizeof *start);
    arcs_by_node(by_dst, arcs, count, n, 1, start);
    free(by_dst);
    free(start);
    return POLKA_OK;
}

static polka_status graph_alloc(size_t n, size_t m, polka_graph **out) {
    polka_graph *g = calloc(1, sizeof *g);
    POLKA_CHECK_ALLOC(g);
    g->n = n;
    g->m = m;
    /* At least one slot, so that neighbour pointers are never NULL. */
    size_t arcs = 2 * m > 0 ? 2 * m : 1;
    g->offsets = calloc(n + 1, sizeof *g->offsets);
    g->adj = calloc(arcs, sizeof *g->adj);
    g->weights = calloc(arcs, sizeof *g->weights);
    g->file_weights = calloc(arcs, sizeof *g->file_weights);
    if (!g->offsets || !g->adj || !g->weights || !g->file_weights) {
        polka_graph_free(&g);
        POLKA_CHECK_ALLOC(NULL);
    }
    *out = g;
    return POLKA_OK;
}

/* Finds a duplicate among the sorted arcs: returns 1 and the two edge indices if any. */
static int find_duplicate(const graph_arc *arcs, size_t count, size_t *first, size_t *second) {
    int found = 0;
    for (size_t a = 1; a < count; a++) {
        if (arcs[a].src != arcs[a - 1].src || arcs[a].dst != arcs[a - 1].dst) continue;
        /* Report the pair whose later edge comes first in the input. */
        if (!found || arcs[a].idx < *second) {
            *first = arcs[a - 1].idx;
            *second = arcs[a].idx;
            found = 1;
        }
    }
    return found;
}

static void fill_csr(polka_graph *g, const graph_arc *arcs, const double *w) {
    for (size_t a = 0; a < 2 * g->m; a++) g->offsets[arcs[a].src + 1]++;
    for (size_t i = 0; i < g->n; i++) g->offsets[i + 1] += g->offsets[i];
    for (size_t a = 0; a < 2 * g->m; a++) {
        g->adj[a] = arcs[a].dst;
        g->file_weights[a] = w ? w[arcs[a].idx] : 1.0;
        g->weights[a] = g->file_weights[a];
    }
}

polka_status polka_graph_build_csr(size_t n, const size_t *u, const size_t *v, const double *w,
                                   size_t m, polka_graph **out, size_t *dup_first,
                                   size_t *dup_second) {
    if (dup_first) *dup_first = SIZE_MAX;
    if (dup_second) *dup_second = SIZE_MAX;
    graph_arc *arcs = malloc((2 * m > 0 ? 2 * m : 1) * sizeof *arcs);
    POLKA_CHECK_ALLOC(arcs);
    for (size_t e = 0; e < m; e++) {
        if (u[e] >= n || v[e] >= n) { /* the callers check; the counting sort relies on it */
            free(arcs);
            return polka_error_set(POLKA_ERR_ARG,
                                   "graph: edge %zu (%zu-%zu) out of range (n = %zu)", e, u[e],
                                   v[e], n);
        }
        arcs[2 * e] = (graph_arc){u[e], v[e], e};
        arcs[2 * e + 1] = (graph_arc){v[e], u[e], e};
    }
    polka_status sorted = sort_arcs(arcs, 2 * m, n);
    if (sorted != POLKA_OK) {
        free(arcs);
        return sorted;
    }
    size_t first = 0, second = 0;
    if (find_duplicate(arcs, 2 * m, &first, &second)) {
        free(arcs);
        if (dup_first) *dup_first = first;
        if (dup_second) *dup_second = second;
        return polka_error_set(POLKA_ERR_ARG, "duplicate edge %zu-%zu (edges %zu and %zu)",
                               u[second], v[second], first, second);
    }
    polka_graph *g = NULL;
    polka_status status = graph_alloc(n, m, &g);
    if (status == POLKA_OK) {
        fill_csr(g, arcs, w);
        *out = g;
    }
    free(arcs);
    return status;
}

polka_status polka_graph_from_edges(size_t n, const size_t *u, const size_t *v, const double *w,
                                    size_t m, polka_graph **out) {
    POLKA_CHECK(n >= 1 && n <= POLKA_GRAPH_MAX_NODES, POLKA_ERR_ARG,
                "graph: number of nodes %zu is not in [1, %zu]", n, POLKA_GRAPH_MAX_NODES);
    POLKA_CHECK(m == 0 || (u && v), POLKA_ERR_ARG, "graph: edge arrays are NULL");
    for (size_t e = 0; e < m; e++) {
        POLKA_CHECK(u[e] < n && v[e] < n, POLKA_ERR_ARG,
                    "graph: edge %zu (%zu-%zu) has a node id out of range (n = %zu)", e, u[e], v[e],
                    n);
        POLKA_CHECK(u[e] != v[e], POLKA_ERR_ARG, "graph: edge %zu is a self loop %zu-%zu", e, u[e],
                    v[e]);
        POLKA_CHECK(!w || (isfinite(w[e]) && w[e] > 0), POLKA_ERR_ARG,
                    "graph: edge %zu (%zu-%zu) has weight %g, not positive and finite", e, u[e],
                    v[e], w ? w[e] : 0.0);
    }
    POLKA_CALL(polka_graph_build_csr(n, u, v, w, m, out, NULL, NULL));
    return POLKA_OK;
}

void polka_graph_free(polka_graph **g) {
    if (!g || !*g) return;
    free((*g)->offsets);
    free((*g)->adj);
    free((*g)->weights);
    free((*g)->file_weights);
    free((*g)->comment);
    free(*g);
    *g = NULL;
}

polka_status polka_graph_set_comment(polka_graph *g, const char *comment) {
    char *copy = NULL;
    if (comment) {
        copy = strdup(comment);
        POLKA_CHECK_ALLOC(copy);
    }
    free(g->comment);
    g->comment = copy;
    return POLKA_OK;
}

const char *polka_graph_comment(const polka_graph *g) {
    return g->comment ? g->comment : "";
}

size_t polka_graph_nodes(const polka_graph *g) {
    return g->n;
}

size_t polka_graph_edges(const polka_graph *g) {
    return g->m;
}

size_t polka_graph_degree(const polka_graph *g, size_t node) {
    return g->offsets[node + 1] - g->offsets[node];
}

const size_t *polka_graph_neighbors(const polka_graph *g, size_t node) {
    return g->adj + g->offsets[node];
}

const double *polka_graph_neighbor_weights(const polka_graph *g, size_t node) {
    return g->weights + g->offsets[node];
}

polka_status polka_graph_set_weights(polka_graph *g, polka_weight_kind kind) {
    POLKA_CHECK(kind == POLKA_WEIGHTS_UNIFORM || kind == POLKA_WEIGHTS_METROPOLIS ||
                    kind == POLKA_WEIGHTS_FILE,
                POLKA_ERR_ARG, "graph: unknown weight kind %d", (int)kind);
    for (size_t i = 0; i < g->n; i++) {
        size_t di = polka_graph_degree(g, i);
        for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++) {
            size_t dj = polka_graph_degree(g, g->adj[a]);
            switch (kind) {
            case POLKA_WEIGHTS_UNIFORM:
                g->weights[a] = 1.0;
                break;
            case POLKA_WEIGHTS_METROPOLIS:
                g->weights[a] = 1.0 / (1.0 + (double)(di > dj ? di : dj));
                break;
            case POLKA_WEIGHTS_FILE:
                g->weights[a] = g->file_weights[a];
                break;
            default:
                return polka_error_set(POLKA_ERR_ARG, "graph: unknown weight kind %d", (int)kind);
            }
        }
    }
    return POLKA_OK;
}

double polka_graph_max_row_sum(const polka_graph *g) {
    double best = 0.0;
    for (size_t i = 0; i < g->n; i++) {
        double sum = 0.0;
        for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++) sum += g->weights[a];
        if (sum > best) best = sum;
    }
    return best;
}
