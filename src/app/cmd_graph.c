/* polka graph: generate topology files and describe them. Serial, no MPI. */
#include "cmd_graph_impl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/graph.h"
#include "polka/paths.h"

/* How many seeds `--connected` tries for a random kind. */
#define CMD_GRAPH_TRIES 100

/* The options that only some kinds read, with the spec parameter behind each. */
enum {
    OPT_N = 1,
    OPT_P = 2,
    OPT_RADIUS = 4,
    OPT_K = 8,
    OPT_REWIRE = 16,
    OPT_ROWS = 32,
    OPT_COLS = 64
};

static const struct {
    unsigned flag;
    const char *name;
    unsigned uses; /* POLKA_GRAPH_USES_* */
} kind_options[] = {
    {OPT_P, "--p", POLKA_GRAPH_USES_P},           {OPT_RADIUS, "--radius", POLKA_GRAPH_USES_RADIUS},
    {OPT_K, "--k", POLKA_GRAPH_USES_K},           {OPT_REWIRE, "--rewire", POLKA_GRAPH_USES_REWIRE},
    {OPT_ROWS, "--rows", POLKA_GRAPH_USES_SHAPE}, {OPT_COLS, "--cols", POLKA_GRAPH_USES_SHAPE},
};

/* The kinds that read a parameter (POLKA_GRAPH_USES_* bit), ", " between, from the table. */
static const char *kinds_using(unsigned uses) {
    static char text[256];
    size_t used = 0;
    text[0] = '\0';
    for (int k = 0; k < POLKA_GRAPH_KIND_COUNT && used < sizeof text; k++)
        if (polka_graph_kind_uses((polka_graph_kind)k) & uses)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", used ? ", " : "",
                                     polka_graph_kind_name((polka_graph_kind)k));
    return text;
}

static void print_kinds(FILE *out) {
    fprintf(out, "kinds (the random ones draw from --seed):\n");
    for (int k = 0; k < POLKA_GRAPH_KIND_COUNT; k++)
        fprintf(out, "  %-11s %s%s\n", polka_graph_kind_name((polka_graph_kind)k),
                polka_graph_kind_help((polka_graph_kind)k),
                polka_graph_kind_is_random((polka_graph_kind)k) ? " (random)" : "");
}

/* The options only some kinds read, each with the kinds that read it (from the table). */
static void print_kind_options(FILE *out) {
    fprintf(out, "  --p P            %s: edge probability, in (0, 1] [0.2]\n",
            kinds_using(POLKA_GRAPH_USES_P));
    fprintf(out, "  --radius R       %s: connection radius in the unit square [0.5]\n",
            kinds_using(POLKA_GRAPH_USES_RADIUS));
    fprintf(out, "  --k K            %s: k as the kind says [2]\n",
            kinds_using(POLKA_GRAPH_USES_K));
    fprintf(out, "  --rewire B       %s: rewiring probability, in [0, 1] [0.1]\n",
            kinds_using(POLKA_GRAPH_USES_REWIRE));
    fprintf(out,
            "  --rows R, --cols C\n"
            "                   %s: the shape, R*C = N [as square as possible]\n",
            kinds_using(POLKA_GRAPH_USES_SHAPE));
}

static void print_usage(FILE *out) {
    fprintf(out, "Usage:\n"
                 "  polka graph generate --kind KIND --n N [options] -o FILE\n"
                 "  polka graph info FILE\n"
                 "  polka graph --help\n"
                 "\n"
                 "generate options (defaults in brackets):\n"
                 "  --kind KIND      one of the kinds below\n"
                 "  --n N            number of nodes (>= 2)\n"
                 "  --seed S         random kinds: seed of igraph's RNG [1]\n");
    print_kind_options(out);
    fprintf(out,
            "  --connected      random kinds: try seeds S, S+1, ... (up to %d) until the\n"
            "                   graph is connected, and note the seed used in the file;\n"
            "                   other kinds: fail if the graph is not connected\n"
            "  --join           random kinds: join the components instead, one edge from each\n"
            "                   to a node of the largest drawn from the seed (ER or RGG below\n"
            "                   the connectivity threshold)\n"
            "  -o, --output FILE  the graph file to write ('-' for standard output)\n"
            "\n",
            CMD_GRAPH_TRIES);
    print_kinds(out);
    fputs("\n"
          "info prints nodes, edges, degrees, connectivity, diameter, the algebraic\n"
          "connectivity (lambda2 of L = D - A), the largest Metropolis row sum and degree.\n"
          "The diameter is exact up to 2^30 BFS steps (nodes x (nodes + 2 edges)) and on\n"
          "trees; above, it shows bounds from two BFS: 'between LOW and HIGH'.\n"
          "\n"
          "File format: one edge 'u v' or 'u v w' per line, node ids 0..N-1, '#' comments,\n"
          "an optional '# nodes: N' header; networkx write_edgelist output is accepted.\n"
          "See graphs/README.md.\n",
          out);
}

/* A usage error: the message, then the usage text, on stderr; exit code 2. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "polka graph: ");
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n\n");
    va_end(args);
    print_usage(stderr);
    return 2;
}

/* A run-time error: one line on stderr; exit code 1. */
static int fail(void) {
    fprintf(stderr, "polka graph: %s\n", polka_error_message());
    return 1;
}

/* ---- number parsing --------------------------------------------------------------------- */

static int parse_u64(const char *text, uint64_t *out) {
    if (text[0] < '0' || text[0] > '9') return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') return 0;
    *out = (uint64_t)value;
    return 1;
}

static int parse_size(const char *text, size_t *out) {
    uint64_t value = 0;
    if (!parse_u64(text, &value) || value > SIZE_MAX) return 0;
    *out = (size_t)value;
    return 1;
}

static int parse_double(const char *text, double *out) {
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(value)) return 0;
    *out = value;
    return 1;
}

/* ---- generate --------------------------------------------------------------------------- */

typedef struct {
    polka_graph_spec spec;
    int have_kind, connected;
    unsigned given;
    const char *output;
} generate_options;

/* Stores the value of a numeric option: 1 done, 0 bad value, -1 not a numeric option. */
static int set_numeric(generate_options *o, const char *name, const char *value) {
    polka_graph_spec *s = &o->spec;
    const struct {
        const char *name;
        unsigned flag;
        size_t *size;
        double *real;
        uint64_t *u64;
    } table[] = {
        {"--n", OPT_N, &s->n, NULL, NULL},
        {"--seed", 0, NULL, NULL, &s->seed},
        {"--p", OPT_P, NULL, &s->p, NULL},
        {"--radius", OPT_RADIUS, NULL, &s->radius, NULL},
        {"--k", OPT_K, &s->k, NULL, NULL},
        {"--rewire", OPT_REWIRE, NULL, &s->rewire, NULL},
        {"--rows", OPT_ROWS, &s->rows, NULL, NULL},
        {"--cols", OPT_COLS, &s->cols, NULL, NULL},
    };
    for (size_t t = 0; t < sizeof table / sizeof *table; t++) {
        if (strcmp(name, table[t].name) != 0) continue;
        o->given |= table[t].flag;
        if (table[t].size) return parse_size(value, table[t].size);
        if (table[t].real) return parse_double(value, table[t].real);
        return parse_u64(value, table[t].u64);
    }
    return -1;
}

/* Handles one option NAME with VALUE; returns an exit code, or -1 to go on. */
static int set_option(generate_options *o, const char *name, const char *value) {
    if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
        o->output = value;
        return -1;
    }
    if (strcmp(name, "--kind") == 0) {
        if (polka_graph_kind_parse(value, &o->spec.kind) != POLKA_OK)
            return usage_error("%s", polka_error_message());
        o->have_kind = 1;
        return -1;
    }
    int ok = set_numeric(o, name, value);
    if (ok < 0) return usage_error("unknown option '%s'", name);
    if (!ok) return usage_error("bad value '%s' for %s", value, name);
    return -1;
}

static int takes_value(const char *name) {
    static const char *const names[] = {"-o",       "--output", "--kind",   "--n",
                                        "--seed",   "--p",      "--radius", "--k",
                                        "--rewire", "--rows",   "--cols"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0) return 1;
    return 0;
}

/* Parses the arguments after "generate"; returns an exit code, or -1 to go on. */
static int parse_generate(int argc, char **argv, generate_options *o) {
    for (int i = 1; i < argc; i++) {
        char name[32];
        const char *arg = argv[i], *eq = strchr(arg, '='), *value = NULL;
        if (strcmp(arg, "--connected") == 0) {
            o->connected = 1;
            continue;
        }
        if (strcmp(arg, "--join") == 0) {
            o->spec.join = 1;
            continue;
        }
        size_t len = eq && arg[0] == '-' && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name) return usage_error("unknown option '%s'", arg);
        memcpy(name, arg, len);
        name[len] = '\0';
        if (!takes_value(name)) return usage_error("unknown option '%s'", arg);
        if (arg[len] == '=') {
            value = arg + len + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return usage_error("option %s needs a value", name);
        }
        int code = set_option(o, name, value);
        if (code >= 0) return code;
    }
    if (!o->have_kind) return usage_error("%s", "missing --kind");
    if (!(o->given & OPT_N)) return usage_error("%s", "missing --n");
    if (!o->output) return usage_error("%s", "missing -o FILE");
    return -1;
}

/* Refuses parameters that the kind does not read (they would be silently ignored). */
static int check_applicable(const generate_options *o) {
    unsigned uses = polka_graph_kind_uses(o->spec.kind);
    for (size_t r = 0; r < sizeof kind_options / sizeof *kind_options; r++) {
        if (!(o->given & kind_options[r].flag) || (uses & kind_options[r].uses)) continue;
        return usage_error("%s does not apply to --kind %s (only to %s)", kind_options[r].name,
                           polka_graph_kind_name(o->spec.kind), kinds_using(kind_options[r].uses));
    }
    return -1;
}

/* The file's header: igraph's parameters, the command line, and the seed search. */
static polka_status annotate(polka_graph *g, int argc, char **argv, const generate_options *o,
                             uint64_t seed_used) {
    size_t size = strlen(polka_graph_comment(g)) + 256;
    for (int i = 0; i < argc; i++) size += strlen(argv[i]) + 1;
    char *text = malloc(size);
    POLKA_CHECK_ALLOC(text);
    size_t at = (size_t)snprintf(text, size, "%s\ncommand: polka graph", polka_graph_comment(g));
    for (int i = 0; i < argc; i++) at += (size_t)snprintf(text + at, size - at, " %s", argv[i]);
    if (o->connected && polka_graph_kind_is_random(o->spec.kind))
        snprintf(text + at, size - at,
                 "\nconnected: seed %llu is the first of seeds %llu, %llu, ... that gives a "
                 "connected graph",
                 (unsigned long long)seed_used, (unsigned long long)o->spec.seed,
                 (unsigned long long)o->spec.seed + 1);
    polka_status status = polka_graph_set_comment(g, text);
    free(text);
    return status;
}

static polka_status make_graph(const generate_options *o, polka_graph **g, uint64_t *seed_used) {
    *seed_used = o->spec.seed;
    if (!o->connected) return polka_graph_generate(&o->spec, g);
    return polka_graph_generate_connected(&o->spec, CMD_GRAPH_TRIES, g, seed_used);
}

static polka_status write_graph_file(const char *path, void *graph) {
    return polka_graph_write(graph, path);
}

/* Standard output, or the file through a temporary name (polka/paths.h). */
static polka_status write_graph(const polka_graph *g, const char *output) {
    if (strcmp(output, "-") == 0) return polka_graph_write_stream(g, stdout, "<stdout>");
    polka_file_use use = {.what = "-o", .path = output, .role = POLKA_FILE_OUTPUT};
    POLKA_CALL(polka_files_check(&use, 1));
    return polka_write_through_temp(output, write_graph_file, (void *)g);
}

static void print_summary(const polka_graph *g, const generate_options *o, uint64_t seed_used) {
    if (strcmp(o->output, "-") == 0) return;
    size_t components = 0;
    polka_graph_info info;
    if (polka_graph_describe(g, &info) == POLKA_OK) components = info.components;
    size_t m = polka_graph_edges(g);
    printf("wrote %s: %s, %zu nodes, %zu edge%s", o->output, polka_graph_kind_name(o->spec.kind),
           polka_graph_nodes(g), m, m == 1 ? "" : "s");
    if (polka_graph_kind_is_random(o->spec.kind))
        printf(", seed %llu", (unsigned long long)seed_used);
    if (components == 1) printf(", connected\n");
    if (components > 1) printf(", NOT connected (%zu components)\n", components);
    if (components == 0) printf("\n");
}

static int cmd_generate(int argc, char **argv) {
    generate_options o = {.spec = polka_graph_spec_defaults(POLKA_GRAPH_RING, 0)};
    int code = parse_generate(argc, argv, &o);
    if (code < 0) code = check_applicable(&o);
    if (code >= 0) return code;
    polka_graph *g = NULL;
    uint64_t seed_used = 0;
    polka_status status = make_graph(&o, &g, &seed_used);
    if (status == POLKA_OK) status = annotate(g, argc, argv, &o, seed_used);
    if (status == POLKA_OK) status = write_graph(g, o.output);
    if (status == POLKA_OK) print_summary(g, &o, seed_used);
    polka_graph_free(&g);
    return status == POLKA_OK ? 0 : fail();
}

/* ---- info ------------------------------------------------------------------------------- */

static void print_weights(const polka_graph *g) {
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < polka_graph_nodes(g); i++) {
        const double *w = polka_graph_neighbor_weights(g, i);
        for (size_t a = 0; a < polka_graph_degree(g, i); a++) {
            if (w[a] < lo) lo = w[a];
            if (w[a] > hi) hi = w[a];
        }
    }
    if (lo == 1.0 && hi == 1.0) {
        printf("file weights:           none (all 1)\n");
    } else {
        printf("file weights:           min %.6g, max %.6g, max row sum %.6g\n", lo, hi,
               polka_graph_max_row_sum(g));
    }
}

static void print_info(const char *path, const polka_graph *g, const polka_graph_info *in) {
    printf("file:                   %s\n", path);
    printf("nodes:                  %zu\n", in->nodes);
    printf("edges:                  %zu\n", in->edges);
    printf("degree:                 min %zu, mean %.6g, max %zu\n", in->min_degree, in->mean_degree,
           in->max_degree);
    if (in->connected) {
        printf("connected:              yes\n");
        if (in->diameter_exact)
            printf("diameter:               %zu\n", in->diameter);
        else
            printf("diameter:               between %zu and %zu (two BFS; the exact value, a BFS "
                   "from every node, is skipped above %.0f steps)\n",
                   in->diameter, in->diameter_upper, POLKA_GRAPH_MAX_DIAMETER_WORK);
    } else {
        polka_graph_check_connected(g, path);
        printf("connected:              no (%zu components)\n", in->components);
        printf("diameter:               infinite\n");
    }
    if (isnan(in->algebraic_connectivity)) {
        printf("algebraic connectivity: n/a (more than %zu nodes)\n", POLKA_GRAPH_MAX_DENSE_NODES);
    } else {
        printf("algebraic connectivity: %.10g (lambda2 of L = D - A)\n",
               in->algebraic_connectivity);
    }
    printf("max Metropolis row sum: %.10g (max_i sum_j 1/(1+max(d_i,d_j)))\n",
           in->max_metropolis_row_sum);
    printf("max degree:             %zu\n", in->max_degree);
    print_weights(g);
    if (!in->connected) printf("warning: %s\n", polka_error_message());
}

static int cmd_info(int argc, char **argv) {
    if (argc != 2 || argv[1][0] == '-') {
        if (argc == 2) return usage_error("unknown option '%s' for info", argv[1]);
        return usage_error("%s", "info needs exactly one FILE");
    }
    polka_graph *g = NULL;
    polka_graph_info info;
    polka_status status = polka_graph_read(argv[1], &g);
    if (status == POLKA_OK) status = polka_graph_describe(g, &info);
    if (status == POLKA_OK) print_info(argv[1], g, &info);
    polka_graph_free(&g);
    return status == POLKA_OK ? 0 : fail();
}

int polka_cmd_graph(int argc, char **argv) {
    if (argc < 2) return usage_error("%s", "missing sub-command (generate or info)");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
        print_usage(stdout);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_usage(stdout);
            return 0;
        }
    }
    if (strcmp(sub, "generate") == 0) return cmd_generate(argc - 1, argv + 1);
    if (strcmp(sub, "info") == 0) return cmd_info(argc - 1, argv + 1);
    return usage_error("unknown sub-command '%s' (generate or info)", sub);
}
