/* Connectivity, diameter, spectrum and the other summary numbers of a graph. */
#include "graph/graph_impl.h"

#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Breadth-first search from source: dist[v] = hops (SIZE_MAX when unreached). Returns the
 * largest finite distance. queue has room for n nodes. */
static size_t bfs(const polka_graph *g, size_t source, size_t *dist, size_t *queue) {
    for (size_t i = 0; i < g->n; i++) dist[i] = SIZE_MAX;
    size_t head = 0, tail = 0, far = 0;
    dist[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        size_t i = queue[head++];
        for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++) {
            size_t j = g->adj[a];
            if (dist[j] != SIZE_MAX) continue;
            dist[j] = dist[i] + 1;
            if (dist[j] > far) far = dist[j];
            queue[tail++] = j;
        }
    }
    return far;
}

/* Two work arrays of n entries each. */
static polka_status work_alloc(size_t n, size_t **a, size_t **b) {
    *a = malloc((n ? n : 1) * sizeof **a);
    *b = malloc((n ? n : 1) * sizeof **b);
    if (!*a || !*b) {
        free(*a);
        free(*b);
        *a = *b = NULL;
        POLKA_CHECK_ALLOC(NULL);
    }
    return POLKA_OK;
}

polka_status polka_graph_label_components(const polka_graph *g, size_t *label, size_t *count) {
    size_t *queue = malloc((g->n ? g->n : 1) * sizeof *queue);
    POLKA_CHECK_ALLOC(queue);
    for (size_t i = 0; i < g->n; i++) label[i] = SIZE_MAX;
    size_t components = 0;
    for (size_t s = 0; s < g->n; s++) {
        if (label[s] != SIZE_MAX) continue;
        size_t head = 0, tail = 0;
        label[s] = components;
        queue[tail++] = s;
        while (head < tail) {
            size_t i = queue[head++];
            for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++) {
                if (label[g->adj[a]] != SIZE_MAX) continue;
                label[g->adj[a]] = components;
                queue[tail++] = g->adj[a];
            }
        }
        components++;
    }
    free(queue);
    *count = components;
    return POLKA_OK;
}

polka_status polka_graph_count_components(const polka_graph *g, size_t *components,
                                          size_t *unreached) {
    size_t *label = malloc((g->n ? g->n : 1) * sizeof *label), count = 0;
    POLKA_CHECK_ALLOC(label);
    polka_status status = polka_graph_label_components(g, label, &count);
    size_t first_out = SIZE_MAX; /* the first node of component 1 */
    for (size_t i = 0; i < g->n && first_out == SIZE_MAX; i++)
        if (label[i] == 1) first_out = i;
    free(label);
    if (components) *components = count;
    if (unreached) *unreached = first_out;
    return status;
}

polka_status polka_graph_check_connected(const polka_graph *g, const char *name) {
    size_t components = 0, unreached = SIZE_MAX;
    POLKA_CALL(polka_graph_count_components(g, &components, &unreached));
    POLKA_CHECK(components == 1, POLKA_ERR_ARG,
                "graph '%s' is not connected (%zu components; node %zu cannot reach node 0)",
                name ? name : "<graph>", components, unreached);
    return POLKA_OK;
}

/* The largest eccentricity, by a BFS from every node (the graph must be connected); on a
 * graph above POLKA_GRAPH_MAX_DIAMETER_WORK, bounds from two BFS: ecc(far) <= diameter <=
 * 2 ecc(0), where far is the node farthest from node 0 (the lower bound is exact on trees). */
static polka_status graph_diameter(const polka_graph *g, polka_graph_info *info) {
    size_t *dist = NULL, *queue = NULL;
    POLKA_CALL(work_alloc(g->n, &dist, &queue));
    double work = (double)g->n * ((double)g->n + 2.0 * (double)g->m);
    info->diameter_exact = work <= POLKA_GRAPH_MAX_DIAMETER_WORK;
    size_t best = 0;
    if (info->diameter_exact) {
        for (size_t s = 0; s < g->n; s++) {
            size_t ecc = bfs(g, s, dist, queue);
            if (ecc > best) best = ecc;
        }
        info->diameter_upper = best;
    } else {
        size_t ecc0 = bfs(g, 0, dist, queue);
        info->diameter_upper = 2 * ecc0;
        best = bfs(g, queue[g->n - 1], dist, queue); /* the last node queued is the farthest */
        /* on a tree (connected, n - 1 edges) the double sweep is exact: far is an end of a
         * longest path */
        info->diameter_exact = g->m + 1 == g->n;
        if (info->diameter_exact) info->diameter_upper = best;
    }
    free(dist);
    free(queue);
    info->diameter = best;
    return POLKA_OK;
}

/* λ₂ of L = D − A (unweighted) from all eigenvalues of the dense L (LAPACKE_dsyev). */
static polka_status algebraic_connectivity(const polka_graph *g, double *lambda2) {
    size_t n = g->n;
    double *lap = calloc(n * n, sizeof *lap);
    double *eig = malloc(n * sizeof *eig);
    if (!lap || !eig) {
        free(lap);
        free(eig);
        POLKA_CHECK_ALLOC(NULL);
    }
    for (size_t i = 0; i < n; i++) {
        lap[i * n + i] = (double)polka_graph_degree(g, i);
        for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++) lap[i * n + g->adj[a]] = -1.0;
    }
    lapack_int info =
        LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n, lap, (lapack_int)n, eig);
    double value = eig[1]; /* eigenvalues come in ascending order */
    free(lap);
    free(eig);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC,
                "graph: LAPACKE_dsyev failed on the %zu-node Laplacian (info %d)", n, (int)info);
    *lambda2 = value;
    return POLKA_OK;
}

static void degree_stats(const polka_graph *g, polka_graph_info *info) {
    info->min_degree = g->n ? SIZE_MAX : 0;
    info->max_degree = 0;
    double metropolis = 0.0;
    for (size_t i = 0; i < g->n; i++) {
        size_t di = polka_graph_degree(g, i);
        if (di < info->min_degree) info->min_degree = di;
        if (di > info->max_degree) info->max_degree = di;
        double sum = 0.0;
        for (size_t a = g->offsets[i]; a < g->offsets[i + 1]; a++) {
            size_t dj = polka_graph_degree(g, g->adj[a]);
            sum += 1.0 / (1.0 + (double)(di > dj ? di : dj));
        }
        if (sum > metropolis) metropolis = sum;
    }
    info->mean_degree = g->n ? 2.0 * (double)g->m / (double)g->n : 0.0;
    info->max_metropolis_row_sum = metropolis;
    info->max_row_sum = polka_graph_max_row_sum(g);
}

polka_status polka_graph_describe(const polka_graph *g, polka_graph_info *info) {
    POLKA_CHECK(g && info, POLKA_ERR_ARG, "graph: describe given NULL");
    info->nodes = g->n;
    info->edges = g->m;
    degree_stats(g, info);
    POLKA_CALL(polka_graph_count_components(g, &info->components, NULL));
    info->connected = info->components == 1;
    info->diameter = info->diameter_upper = SIZE_MAX;
    info->diameter_exact = 1;
    if (info->connected) POLKA_CALL(graph_diameter(g, info));
    info->algebraic_connectivity = NAN;
    if (g->n >= 2 && g->n <= POLKA_GRAPH_MAX_DENSE_NODES) {
        if (info->connected) {
            POLKA_CALL(algebraic_connectivity(g, &info->algebraic_connectivity));
        } else {
            info->algebraic_connectivity = 0.0;
        }
    }
    return POLKA_OK;
}
