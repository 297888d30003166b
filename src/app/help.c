/* polka --help, polka help [KEY|SECTION ...] and the manual page, all printed from the one key
 * table (polka_config_keys), the one usage text and the lists of kinds, so that they cannot
 * drift apart; docs/keys.md renders the same pieces (help_impl.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "app_impl.h"
#include "help_impl.h"
#include "polka/methods.h"
#include "polka/sim.h"
#include "polka/plan.h"

static const char *const usage_lines[] = {
    "mpirun -n N polka run --config FILE [--set section.key=value ...] [--centralized]",
    "                      [--quiet] [--progress=auto|tty|plain|off] [--resume CHECKPOINT]",
    "polka data multidist -o FILE [--config FILE] [--set ...]   LIBSVM files FILE, FILE.t",
    "polka data split [-o FIG.png|FILE.csv] [--config FILE] [--set ...]   per-agent class "
    "histogram",
    "polka graph generate --kind KIND --n N [--seed S ...] -o FILE | polka graph info FILE",
    "polka predict --model RUN.h5[:AGENT] --data FILE [--labels FILE] [--format FORMAT]",
    "              [--output FILE]",
    "polka report RUN.h5 [RUN2.h5 ...]                          summary table of run files",
    "polka help [KEY|SECTION ...]                               keys with defaults and help",
    "polka --help | --version",
};

const char polka_help_summary[] =
    "decentralized online learning with kernels (agents on MPI ranks, "
    "one or many per rank)";
static const char centralized_note[] =
    "With one agent (or run.mode = centralized) `polka run` is centralized POLK.\n"
    "SIGTERM, SIGINT or SIGUSR1: the ranks finish the round, write the checkpoint (run.checkpoint) "
    "and exit with status 75; `polka run --resume CHECKPOINT` goes on with the checkpoint's "
    "settings to the run an uninterrupted one would have given (settings given beside it must "
    "agree, but run.passes, run.output, run.csv, run.watchdog and run.checkpoint* may change). "
    "Where no round ends soon (data scan, SLKL, "
    "KRR, a round still running 5 s later) the stop is prompt, without a checkpoint; a second "
    "SIGINT ends at once. Exit status: 0 done, 1 error, 75 stopped with a checkpoint, 128 + "
    "the signal stopped without one.";

static const char *const type_names[] = {
    [POLKA_KEY_SIZE] = "integer",
    [POLKA_KEY_U64] = "integer",
    [POLKA_KEY_DOUBLE] = "number",
    [POLKA_KEY_STRING] = "text",
};

/* The run's keys behind a generator's parameters (a run's grid is as square as possible). */
static const struct {
    unsigned uses;
    const char *key;
} graph_keys[] = {
    {POLKA_GRAPH_USES_P, "net.p"},
    {POLKA_GRAPH_USES_RADIUS, "net.radius"},
    {POLKA_GRAPH_USES_K, "net.k"},
    {POLKA_GRAPH_USES_REWIRE, "net.rewire"},
};

/* "net.k, net.rewire": the keys generator `kind` reads; empty when none. */
static const char *graph_kind_keys(polka_graph_kind kind, char *text, size_t size) {
    size_t used = 0;
    text[0] = '\0';
    for (size_t b = 0; b < sizeof graph_keys / sizeof *graph_keys && used < size; b++)
        if (polka_graph_kind_uses(kind) & graph_keys[b].uses)
            used += (size_t)snprintf(text + used, size - used, "%s%s", used ? ", " : "",
                                     graph_keys[b].key);
    return text;
}

/* One line of a generator for the help: what it draws, the keys it reads, random or not. */
static const char *graph_kind_line(polka_graph_kind kind, char *text, size_t size) {
    char keys[128];
    graph_kind_keys(kind, keys, sizeof keys);
    int random = polka_graph_kind_is_random(kind);
    snprintf(text, size, "%s%s%s%s%s", polka_graph_kind_help(kind), keys[0] || random ? " (" : "",
             keys, keys[0] && random ? "; " : "",
             random    ? "random)"
             : keys[0] ? ")"
                       : "");
    return text;
}

/* The k-th entry of each list (polka_help_list.entry). */
static const char *method_entry(size_t k, const char **name, char *text, size_t size) {
    (void)text, (void)size;
    if (k >= polka_method_count()) return NULL;
    *name = polka_method_name_at(k);
    return polka_method_help_at(k);
}

static const char *control_entry(size_t k, const char **name, char *text, size_t size) {
    (void)text, (void)size;
    if (k >= POLKA_CONTROL_COUNT) return NULL;
    *name = polka_control_kind_name((polka_control_kind)k);
    return polka_control_help((polka_control_kind)k);
}

static const char *graph_entry(size_t k, const char **name, char *text, size_t size) {
    if (k >= POLKA_GRAPH_KIND_COUNT) return NULL;
    *name = polka_graph_kind_name((polka_graph_kind)k);
    return graph_kind_line((polka_graph_kind)k, text, size);
}

static const char *source_entry(size_t k, const char **name, char *text, size_t size) {
    if (k >= POLKA_SOURCE_COUNT) return NULL;
    *name = polka_source_kind_name((polka_source_kind)k);
    return polka_source_splits((polka_source_kind)k, " | ", text, size);
}

static const polka_help_list lists[] = {
    {"Decentralized methods", "Decentralized methods (net.method):", method_entry},
    {"Model-order controls",
     "Model-order controls and batch learners (learner.control):", control_entry},
    {"Graph generators",
     "Graph generators (net.graph; a random one is seeded by run.seed and retried until "
     "connected):",
     graph_entry},
    {"Data sources",
     "Data sources (data.source) and the splits (data.split) each one takes:", source_entry},
};

const polka_help_list *polka_help_lists(size_t *count) {
    *count = sizeof lists / sizeof *lists;
    return lists;
}

int polka_help_in_section(const char *key, const char *section) {
    size_t length = strlen(section);
    return strncmp(key, section, length) == 0 && key[length] == '.';
}

size_t polka_help_sections(char names[][POLKA_HELP_SECTION_SIZE], size_t max) {
    size_t count = 0, found = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    for (size_t k = 0; k < count; k++) {
        size_t s = 0;
        while (s < found && !polka_help_in_section(keys[k].name, names[s])) s++;
        if (s < found || found == max) continue;
        int length = (int)strcspn(keys[k].name, ".");
        snprintf(names[found++], POLKA_HELP_SECTION_SIZE, "%.*s", length, keys[k].name);
    }
    return found;
}

/* The sections, each between open and close, joined by sep: "[run] [data]", "run, data". */
static const char *sections_text(const char *open, const char *close, const char *sep, char *text,
                                 size_t size) {
    char names[POLKA_HELP_SECTIONS_MAX][POLKA_HELP_SECTION_SIZE];
    size_t count = polka_help_sections(names, POLKA_HELP_SECTIONS_MAX), used = 0;
    text[0] = '\0';
    for (size_t s = 0; s < count && used < size; s++)
        used += (size_t)snprintf(text + used, size - used, "%s%s%s%s", s ? sep : "", open, names[s],
                                 close);
    return text;
}

const char *polka_help_settings(char *text, size_t size) {
    char sections[160];
    snprintf(text, size,
             "Settings come from an INI file (sections %s) and `--set section.key=value` "
             "overrides: defaults < file < command line. Unknown keys are an error. `polka "
             "help KEY` prints a key with its default, range and help; `polka help SECTION` "
             "every key of a section.",
             sections_text("[", "]", " ", sections, sizeof sections));
    return text;
}

const char *polka_help_type(const polka_config_key *key) {
    return type_names[key->type];
}

/* The text help's lists: a title line, then a line per entry. */
static void print_tables(void) {
    char text[512];
    const char *name = NULL, *line;
    for (size_t t = 0; t < sizeof lists / sizeof *lists; t++) {
        printf("%s%s\n", t ? "\n" : "", lists[t].title);
        for (size_t k = 0; (line = lists[t].entry(k, &name, text, sizeof text)) != NULL; k++)
            printf("  %-14s %s\n", name, line);
    }
}

/* A range's bound: a whole number in full (16777216, where %g says 1.67772e+07). */
static const char *bound(double value, char *text, size_t size) {
    int whole = value > -1e15 && value < 1e15 && value == (double)(long long)value;
    snprintf(text, size, whole ? "%.0f" : "%g", value);
    return text;
}

/* A key's range as text ("> 0", "in [0, 1)"); "" for any value. */
static void range_text(const polka_key_range *r, char *out, size_t size) {
    char lo[32], hi[32];
    bound(r->lo, lo, sizeof lo);
    bound(r->hi, hi, sizeof hi);
    out[0] = '\0';
    if (r->kind == POLKA_RANGE_GT) snprintf(out, size, "> %s", lo);
    if (r->kind == POLKA_RANGE_GE) snprintf(out, size, ">= %s", lo);
    if (r->kind == POLKA_RANGE_UPTO) snprintf(out, size, "<= %s", hi);
    if (r->kind == POLKA_RANGE_IN) snprintf(out, size, "in [%s, %s]", lo, hi);
    if (r->kind == POLKA_RANGE_FROM_BELOW) snprintf(out, size, "in [%s, %s)", lo, hi);
}

void polka_help_key_facts(const polka_config_key *key, char *out, size_t size) {
    char range[80];
    range_text(&key->range, range, sizeof range);
    const char *facts[] = {key->owner, range,
                           key->resume == POLKA_RESUME_MAY_CHANGE ? "may change on resume" : ""};
    size_t used = 0;
    out[0] = '\0';
    for (size_t f = 0; f < sizeof facts / sizeof *facts && used < size; f++)
        if (facts[f][0] != '\0')
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "; " : "", facts[f]);
}

static void print_key(const polka_config_key *key) {
    char facts[160];
    polka_help_key_facts(key, facts, sizeof facts);
    printf("  %-20s [%s]\n      %s\n", key->name, key->fallback, key->help);
    if (facts[0] != '\0') printf("      (%s)\n", facts);
}

/* Prints the key table with defaults and help (polka --help). */
static void print_keys(void) {
    size_t count = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    char sections[160];
    printf("Configuration keys (INI sections %s; default in brackets):\n",
           sections_text("[", "]", " ", sections, sizeof sections));
    for (size_t k = 0; k < count; k++) print_key(&keys[k]);
}

void polka_app_print_usage(void) {
    printf("polka %s: %s\n\nUsage:\n", POLKA_VERSION, polka_help_summary);
    for (size_t k = 0; k < sizeof usage_lines / sizeof *usage_lines; k++)
        printf("  %s\n", usage_lines[k]);
    printf("\n%s\n\n", centralized_note);
    print_keys();
    printf("\n");
    print_tables();
}

/* Prints the keys that name is (section.key) or holds (a section); 0 when there is none. */
static size_t print_matching(const char *name) {
    size_t count = 0, found = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    for (size_t k = 0; k < count; k++) {
        int section = polka_help_in_section(keys[k].name, name);
        if (!section && strcmp(keys[k].name, name) != 0) continue;
        if (found++ == 0 && section) printf("[%s]\n", name);
        print_key(&keys[k]);
        if (!section) printf("      type %s\n", type_names[keys[k].type]);
    }
    return found;
}

int polka_app_help(int argc, char **argv) {
    if (argc < 2) {
        polka_app_print_usage();
        return 0;
    }
    if (strcmp(argv[1], "--man") == 0) {
        polka_app_print_man(stdout);
        return 0;
    }
    char sections[160];
    for (int k = 1; k < argc; k++) {
        if (print_matching(argv[k]) == 0) {
            fprintf(stderr,
                    "polka help: '%s' is neither a key nor a section (%s); polka help lists "
                    "every key\n",
                    argv[k], sections_text("", "", ", ", sections, sizeof sections));
            return 2;
        }
    }
    return 0;
}

/* Text as roff: backslashes and hyphens escaped, a leading dot or quote made literal, `code`
 * spans in bold. */
static void roff(FILE *out, const char *text) {
    if (text[0] == '.' || text[0] == '\'') fputs("\\&", out);
    int code = 0;
    for (const char *c = text; *c; c++) {
        if (*c == '`')
            fputs((code = !code) ? "\\fB" : "\\fR", out);
        else if (*c == '\\')
            fputs("\\e", out);
        else if (*c == '-')
            fputs("\\-", out);
        else
            fputc(*c, out);
    }
    if (code) fputs("\\fR", out);
}

static void man_keys(FILE *out) {
    size_t count = 0;
    const polka_config_key *keys = polka_config_keys(&count);
    for (size_t k = 0; k < count; k++) {
        fputs(".TP\n.B ", out);
        roff(out, keys[k].name);
        fprintf(out, "\n%s, default \\(lq", type_names[keys[k].type]);
        roff(out, keys[k].fallback);
        fputs("\\(rq.\n", out);
        roff(out, keys[k].help);
        char facts[160];
        polka_help_key_facts(&keys[k], facts, sizeof facts);
        if (facts[0] != '\0') {
            fputs(" (", out);
            roff(out, facts);
            fputs(")", out);
        }
        fputs("\n", out);
    }
}

/* The lists as sections of tagged paragraphs, headed in capitals. */
static void man_tables(FILE *out) {
    char text[512];
    const char *name = NULL, *line;
    for (size_t t = 0; t < sizeof lists / sizeof *lists; t++) {
        fputs(".SH ", out);
        for (const char *c = lists[t].heading; *c; c++) fputc(toupper((unsigned char)*c), out);
        fputs("\n", out);
        roff(out, lists[t].title);
        for (size_t k = 0; (line = lists[t].entry(k, &name, text, sizeof text)) != NULL; k++) {
            fputs("\n.TP\n.B ", out);
            roff(out, name);
            fputs("\n", out);
            roff(out, line);
        }
        fputs("\n", out);
    }
}

void polka_app_print_man(FILE *out) {
    fprintf(out, ".TH POLKA 1 \"\" \"polka %s\" \"User Commands\"\n.SH NAME\npolka \\- ",
            POLKA_VERSION);
    roff(out, polka_help_summary);
    fputs("\n.SH SYNOPSIS\n.nf\n", out);
    for (size_t k = 0; k < sizeof usage_lines / sizeof *usage_lines; k++) {
        roff(out, usage_lines[k]);
        fputs("\n", out);
    }
    fputs(".fi\n.SH DESCRIPTION\nEvery MPI rank is an agent that learns a kernel model from its "
          "own data stream and exchanges only values with its neighbours in a graph; each run "
          "writes one HDF5 file.\n",
          out);
    roff(out, centralized_note);
    char settings[512];
    fputs("\n.PP\n", out);
    roff(out, polka_help_settings(settings, sizeof settings));
    fputs("\n.SH CONFIGURATION KEYS\n", out);
    man_keys(out);
    man_tables(out);
    fputs(".SH EXAMPLES\n.nf\nmpirun \\-n 16 polka run \\-\\-config "
          "decentralized_multidist.ini \\-\\-set run.output=run.h5\npolka report run.h5\n"
          "polka help learner.kp\n.fi\n.SH SEE ALSO\n\\fBmpirun\\fR(1); the experiment "
          "configurations and scripts in share/polka of the installation.\n",
          out);
}
