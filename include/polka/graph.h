/**
 * @file graph.h
 * @brief The communication topology: read, generate, check, weigh and describe graphs.
 *
 * A polka_graph is undirected and simple (no self loops, no multiple edges), with nodes
 * 0..N−1 (node i is MPI rank i) and a positive weight w_ij on every edge. It is stored as
 * compressed adjacency lists, each sorted by increasing node id, so that everything built
 * from it (the distributed-graph communicator) is deterministic. No MPI here.
 *
 * A graph is an opaque handle: the polka_graph_* constructors allocate it, the caller owns
 * it and releases it with polka_graph_free(&g). Nothing here prints.
 *
 * ## File format
 * Plain text, one undirected edge per line:
 *
 *     # a comment (a '#' also starts a trailing comment)
 *     # nodes: 6
 *     0 1
 *     1 2 0.5
 *     2 3 {'weight': 0.25}
 *     3 4 {}
 *
 * - `u v` or `u v w`: node ids are non-negative decimal integers, w a positive finite
 *   number. An edge without a weight has weight 1.
 * - `u v {dict}`: what networkx's `write_edgelist(G, path)` writes (a Python dict literal):
 *   the value of the key 'weight' is used when present, other keys are ignored.
 *   `write_edgelist(G, path, data=False)` and `write_weighted_edgelist` give the forms above.
 * - Blank lines are ignored; fields are separated by spaces or tabs.
 * - N is the largest node id + 1, unless a full-line header comment `# nodes: N` gives it
 *   (this allows isolated nodes; ids ≥ N are then an error).
 * Errors (POLKA_ERR_FORMAT, the message is `NAME:LINE: what`): a malformed line, a node id
 * out of range, a self loop, a duplicate edge (in either direction), a weight that is not
 * positive and finite, a graph without edges. A file that cannot be read is POLKA_ERR_IO.
 * Connectivity is checked separately (polka_graph_check_connected).
 */
#ifndef POLKA_GRAPH_H
#define POLKA_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "polka/error.h"

/** The largest number of nodes a graph may have (node ids must be below it). */
#define POLKA_GRAPH_MAX_NODES ((size_t)1 << 24)

/** Above this many BFS steps (nodes × (nodes + 2·edges)) polka_graph_describe() bounds the
 *  diameter by a double sweep instead of a BFS from every node (2^30: a few seconds). */
#define POLKA_GRAPH_MAX_DIAMETER_WORK ((double)(1 << 30))

/** Above this many nodes polka_graph_describe() leaves algebraic_connectivity as NAN. */
#define POLKA_GRAPH_MAX_DENSE_NODES ((size_t)4096)

typedef struct polka_graph_s polka_graph;

/** How the edge weights w_ij are set (polka_graph_set_weights). */
typedef enum {
    POLKA_WEIGHTS_UNIFORM,    /**< w_ij = 1 */
    POLKA_WEIGHTS_METROPOLIS, /**< w_ij = 1 / (1 + max(d_i, d_j)) */
    POLKA_WEIGHTS_FILE,       /**< as read from the file (1 where none was given) */
} polka_weight_kind;

/*
 * The graph families polka_graph_generate() knows: one line each, X(ENUM, entry), in the order
 * of polka_graph_kind. Each entry is a table (polka_graph_generator, src/net/generator_impl.h:
 * name, help, the parameters it reads, check, expected edges, make) in a generate_*.c file;
 * adding a generator is its entry and one line here.
 */
#define POLKA_GRAPH_LIST(X)                                                                        \
    X(RING, ring)             /* cycle C_n (n >= 3) */                                             \
    X(LINE, line)             /* path P_n */                                                       \
    X(STAR, star)             /* star with centre 0 */                                             \
    X(COMPLETE, complete)     /* complete graph K_n */                                             \
    X(GRID, grid)             /* rows x cols grid, node r*cols + c */                              \
    X(TORUS, torus)           /* rows x cols grid with wrap-around (rows, cols >= 3) */            \
    X(ER, er)                 /* Erdos-Renyi G(n, p) (random) */                                   \
    X(RGG, rgg)               /* random geometric graph in the unit square, radius (random) */     \
    X(SMALLWORLD, smallworld) /* Watts-Strogatz: ring with k neighbours each side, rewired */      \
    X(BA, ba)                 /* Barabasi-Albert, k edges per new node (random) */

#define POLKA_GRAPH_ENUM(id, entry) POLKA_GRAPH_##id,
typedef enum { POLKA_GRAPH_LIST(POLKA_GRAPH_ENUM) POLKA_GRAPH_KIND_COUNT } polka_graph_kind;
#undef POLKA_GRAPH_ENUM

/** The parameters of a polka_graph_spec a generator reads (polka_graph_kind_uses). */
enum {
    POLKA_GRAPH_USES_P = 1,      /**< p (net.p, --p) */
    POLKA_GRAPH_USES_RADIUS = 2, /**< radius (net.radius, --radius) */
    POLKA_GRAPH_USES_K = 4,      /**< k (net.k, --k) */
    POLKA_GRAPH_USES_REWIRE = 8, /**< rewire (net.rewire, --rewire) */
    POLKA_GRAPH_USES_SHAPE = 16, /**< rows and cols (--rows, --cols; a run's is square) */
};

/** What to generate. Start from polka_graph_spec_defaults() and change what you need. */
typedef struct {
    polka_graph_kind kind;
    size_t n;      /**< number of nodes (≥ 2) */
    uint64_t seed; /**< random kinds: the igraph RNG seed */
    double p;      /**< ER edge probability, in (0, 1] */
    double radius; /**< RGG connection radius, > 0 */
    size_t k;      /**< smallworld: ring neighbours on each side; BA: edges per new node */
    double rewire; /**< smallworld rewiring probability, in [0, 1] */
    size_t rows;   /**< grid/torus; 0 = as square as possible with rows·cols = n */
    size_t cols;   /**< grid/torus; 0 = derived from rows, or as square as possible */
    size_t join;   /**< random kinds, 1: join the components (one edge each to the largest,
                        net.join) instead of retrying seeds until connected */
} polka_graph_spec;

/** Summary numbers of a graph (polka_graph_describe). */
typedef struct {
    size_t nodes, edges, min_degree, max_degree;
    double mean_degree;
    int connected;
    size_t components;
    /** In hops; SIZE_MAX if disconnected. Exact when diameter_exact; else, on a graph too
     *  large for POLKA_GRAPH_MAX_DIAMETER_WORK, a lower bound from a double sweep (the
     *  eccentricity of the node farthest from node 0; exact, and diameter_exact set, on a
     *  tree such as a path) and diameter_upper an upper bound (twice the eccentricity of
     *  node 0). */
    size_t diameter, diameter_upper;
    int diameter_exact;
    /** λ₂ of the combinatorial Laplacian L = D − A (unweighted), via LAPACKE_dsyev; 0 when
     *  disconnected; NAN when nodes < 2 or nodes > POLKA_GRAPH_MAX_DENSE_NODES. */
    double algebraic_connectivity;
    /** max_i Σ_j w_ij with Metropolis weights (whatever the graph's current weights). */
    double max_metropolis_row_sum;
    /** max_i Σ_j w_ij with the graph's current weights. */
    double max_row_sum;
} polka_graph_info;

/** Parses a generator's name (ring|line|star|complete|grid|torus|er|rgg|smallworld|ba). */
polka_status polka_graph_kind_parse(const char *name, polka_graph_kind *kind);

/** The name of a graph kind ("ring", ...). Pure. */
const char *polka_graph_kind_name(polka_graph_kind kind);

/** What the generator draws, one line, naming the parameters it reads (polka --help). Pure. */
const char *polka_graph_kind_help(polka_graph_kind kind);

/** The parameters the generator reads: POLKA_GRAPH_USES_* bits. Pure. */
unsigned polka_graph_kind_uses(polka_graph_kind kind);

/** 1 for the kinds drawn at random from the seed (er, rgg, smallworld, ba), else 0. Pure. */
int polka_graph_kind_is_random(polka_graph_kind kind);

/** Parses uniform|metropolis|file. */
polka_status polka_weight_kind_parse(const char *name, polka_weight_kind *kind);

/** The name of a weight kind ("uniform", ...). Pure. */
const char *polka_weight_kind_name(polka_weight_kind kind);

/** A spec of the given kind and size with the defaults: seed 1, p 0.2, radius 0.5, k 2,
 *  rewire 0.1, rows = cols = 0. Pure. */
polka_graph_spec polka_graph_spec_defaults(polka_graph_kind kind, size_t n);

/** Checks a spec (POLKA_ERR_ARG with a message naming the bad value). */
polka_status polka_graph_spec_check(const polka_graph_spec *spec);

/**
 * Reads a graph file (format above). Weights are those of the file (POLKA_WEIGHTS_FILE).
 * @param out receives a new graph, owned by the caller; untouched on error.
 */
polka_status polka_graph_read(const char *path, polka_graph **out);

/** The same as polka_graph_read, from the text of a file; name is used in messages. */
polka_status polka_graph_parse(const char *text, const char *name, polka_graph **out);

/**
 * Generates a graph with igraph; the random kinds seed igraph's default RNG with
 * spec->seed right before drawing, so the same spec gives the same graph. The graph
 * carries a comment describing the spec (written by polka_graph_write). Uniform weights.
 * Not thread-safe (igraph's default RNG and error handler are process-wide).
 */
polka_status polka_graph_generate(const polka_graph_spec *spec, polka_graph **out);

/**
 * Like polka_graph_generate, but for the random kinds retries with seed+1, seed+2, …
 * (at most max_tries seeds in all) until the graph is connected.
 * @param seed_used receives the seed of the returned graph (may be NULL).
 * Fails with POLKA_ERR_ARG when no seed gave a connected graph.
 */
polka_status polka_graph_generate_connected(const polka_graph_spec *spec, size_t max_tries,
                                            polka_graph **out, uint64_t *seed_used);

/**
 * A graph on nodes 0..n−1 from m edges {u[e], v[e]} with weights w[e] (w NULL: all 1).
 * Checks ids < n, no self loops, no duplicate edges, weights positive and finite
 * (POLKA_ERR_ARG). m may be 0 (isolated nodes). The arrays are copied.
 */
polka_status polka_graph_from_edges(size_t n, const size_t *u, const size_t *v, const double *w,
                                    size_t m, polka_graph **out);

/** Frees a graph and sets *g to NULL. NULL-safe. */
void polka_graph_free(polka_graph **g);

/**
 * Writes the graph in the file format: a header comment (the graph's comment, then
 * `# nodes: N` and `# edges: M`), then one line `u v` per edge with u < v in increasing
 * order, with a third column w when some current weight is not 1 (round-trips exactly).
 */
polka_status polka_graph_write(const polka_graph *g, const char *path);

/** The same as polka_graph_write, to an open stream; name is used in messages. */
polka_status polka_graph_write_stream(const polka_graph *g, FILE *stream, const char *name);

/** Sets the free-text comment written at the top of the file (copied; NULL clears).
 *  Several lines are allowed; each is written as a `#` comment. */
polka_status polka_graph_set_comment(polka_graph *g, const char *comment);

/** The graph's comment, or "" (owned by the graph). */
const char *polka_graph_comment(const polka_graph *g);

size_t polka_graph_nodes(const polka_graph *g);
size_t polka_graph_edges(const polka_graph *g);
size_t polka_graph_degree(const polka_graph *g, size_t node);

/** The neighbours of node in increasing id order (degree entries; owned by the graph). */
const size_t *polka_graph_neighbors(const polka_graph *g, size_t node);

/** The current weight w_ij of each edge, in the order of polka_graph_neighbors. */
const double *polka_graph_neighbor_weights(const polka_graph *g, size_t node);

/** Sets every w_ij: uniform 1, Metropolis 1/(1+max(d_i,d_j)), or the file's weights.
 *  The result is symmetric (w_ij = w_ji). */
polka_status polka_graph_set_weights(polka_graph *g, polka_weight_kind kind);

/** max_i Σ_j w_ij with the current weights (the gossip step-size bound is η·c times it). */
double polka_graph_max_row_sum(const polka_graph *g);

/** POLKA_OK when connected, else POLKA_ERR_ARG with
 *  "graph 'NAME' is not connected (K components; node X cannot reach node 0)". */
polka_status polka_graph_check_connected(const polka_graph *g, const char *name);

/** Fills info: degrees, components, the diameter (a BFS from every node: O(N·(N+M)) time,
 *  bounded by two BFS above POLKA_GRAPH_MAX_DIAMETER_WORK)
 *  and λ₂ (LAPACKE_dsyev on the dense Laplacian: O(N³) time, N² doubles). */
polka_status polka_graph_describe(const polka_graph *g, polka_graph_info *info);

#endif
