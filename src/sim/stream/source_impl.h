/*
 * Data sources and splits behind tables of operations (as PETSc's `ops` tables): a source
 * produces training samples by index and the common test set; a split decides which sample
 * an agent draws in each slot of a round. Adding a source or a split is one new file with
 * its table entry (source_*.c, split_*.c) and one line in the table (source.c).
 */
#ifndef POLKA_SIM_SOURCE_H
#define POLKA_SIM_SOURCE_H

#include <stdint.h>

#include "polka/data.h"
#include "polka/plan.h"
#include "sim/stream/stream_impl.h"

/* What kind of targets a source gives. */
typedef enum {
    POLKA_TARGETS_CLASSES, /* class indices 0..C−1 */
    POLKA_TARGETS_VALUES,  /* real values (regression) */
    POLKA_TARGETS_FILE,    /* as the loss reads the file: classes or values */
} polka_targets;

typedef struct polka_draw_s polka_draw;

/* The network a source serves, as the stream opens it. */
typedef struct {
    size_t agents, batch; /* agents drawing batch samples per round */
    const size_t *ids;    /* a file source keeps only the rows these agents draw (count of */
    size_t count;         /* them, increasing; valid during open and load); count 0: all rows */
    size_t variants;      /* generator variants (one per agent for mixtures, else 1) */
    const polka_scan_hook *scan; /* how a file source scans its training file (NULL: alone) */
} polka_source_layout;

typedef struct {
    const char *name; /* as data.source spells it */
    polka_targets targets;
    /* NULL when the data settings of the plan fit this source, else why not. */
    const char *(*check)(const polka_plan *plan);
    /* 1 and the facts when they follow from the settings alone (generated), else 0. */
    int (*planned_facts)(const polka_plan *plan, polka_data_facts *facts);
    polka_status (*open)(const polka_plan *plan, const polka_source_layout *layout, void **state,
                         polka_data_facts *facts);
    /* Optional second step of open, once the split's tables are open (a file source: open
     * scans the file, load reads the rows the layout's agents draw, asking draw->split). */
    polka_status (*load)(void *state, const polka_draw *draw);
    void (*close)(void *state);
    /* Training sample `index` (< n_train) of generator variant v into x (dim) and *y. */
    polka_status (*sample)(const void *state, size_t variant, uint64_t index, double *x, double *y);
    /* Optional (class-skewed splits): a training sample of class c for network sample g. */
    polka_status (*sample_class)(const void *state, size_t c, uint64_t g, uint64_t index, double *x,
                                 double *y);
    /* Optional (region splits): the range [lo, hi) the first coordinate is drawn from, and the
     * noise-free target at x. */
    void (*slab)(const void *state, double *lo, double *hi);
    double (*clean)(const void *state, const double *x);
    /* Optional (drifting streams): moves a sample drawn at phase 0 to the distribution at
     * `phase` (radians: data.drift × training samples so far); x and *y in place. */
    void (*drift)(const void *state, double phase, double *x, double *y);
    /* 1 when the source has per-agent variants (mixtures). */
    int variants;
    /* Optional: the training rows the source holds in memory (a file source). */
    size_t (*rows_held)(const void *state);
    /* The common test set; with variants, test point i comes from variant i mod variants. */
    polka_status (*test_set)(void *state, polka_dataset *test);
} polka_source_ops;

typedef struct polka_split_ops_s polka_split_ops;

/* What a split draws from: the open source and the run. */
struct polka_draw_s {
    const polka_source_ops *source;
    const void *state;
    const polka_plan *plan;
    const polka_data_facts *facts;
    size_t agents;
    const polka_split_ops *split;
    const void *split_state; /* the split's tables (open), or NULL */
};

/* What class_of returns for a sample that is not drawn by class. */
#define POLKA_NO_CLASS SIZE_MAX

struct polka_split_ops_s {
    const char *name; /* as data.split spells it */
    /* NULL when the split can draw from this source, else what the source lacks. */
    const char *(*fits)(const polka_source_ops *source);
    /* NULL when the split's settings fit the data's facts, else why not (may be NULL). */
    const char *(*check)(const polka_plan *plan, const polka_data_facts *facts);
    /* Optional (class-skewed splits): the class of agent a's network sample g, drawn by the
     * seed; the sample is then the source's sample of that class (sample_class, for g). NULL
     * or POLKA_NO_CLASS: it is training row g mod n_train. A file source keeps only the rows
     * its agents draw by this rule, so a split's sample must follow it. */
    size_t (*class_of)(const polka_draw *draw, size_t agent, uint64_t g);
    /* 1: one generator variant per agent. */
    int per_agent_variants;
    /* Optional: the split's own tables, built once when the stream opens; freed by close. */
    polka_status (*open)(const polka_draw *draw, void **state);
    void (*close)(void *state);
    /* Network sample g (training index `index`) of agent `agent` into x and *y. */
    polka_status (*sample)(const polka_draw *draw, size_t agent, uint64_t g, uint64_t index,
                           double *x, double *y);
};

/* The table entries (source_*.c, split_*.c). */
extern const polka_source_ops polka_source_multidist, polka_source_checkerboard, polka_source_sinc,
    polka_source_friedman, polka_source_file;
extern const polka_split_ops polka_split_iid, polka_split_skewed, polka_split_mixtures,
    polka_split_regions, polka_split_dirichlet, polka_split_shards;

/*
 * Label-skew splits by per-agent class proportions (split_classes.c): agent a's sample g is of
 * class c with probability p_a(c), drawn by the uniform of (run.seed, SPLIT, g), and is then
 * the source's sample of class c. The table holds agents × classes cumulative proportions.
 */
typedef struct {
    size_t agents, classes;
    double *cumulative; /* agents × classes; row a ends at 1 */
} polka_class_table;

/* A table of agents × classes zeros (close frees it); the split fills in weights per row. */
polka_status polka_class_table_open(const polka_draw *draw, polka_class_table **table);
void polka_class_table_close(void *table);
/* Turns row a's weights into cumulative proportions (weights are >= 0, not all 0). */
void polka_class_table_normalise(polka_class_table *table, size_t agent);
/* Needs a source that draws a sample of a given class (the split's fits). */
const char *polka_class_split_fits(const polka_source_ops *source);
/* The class_of op of a class-table split. */
size_t polka_class_table_class_of(const polka_draw *draw, size_t agent, uint64_t g);
/* The sample op of a split with class_of: the source's sample of the class, or row `index`
 * when class_of gives POLKA_NO_CLASS. */
polka_status polka_class_split_sample(const polka_draw *draw, size_t agent, uint64_t g,
                                      uint64_t index, double *x, double *y);

/* The entry of a source or split kind (the tables, in the order of the enums). */
const polka_source_ops *polka_source_of(polka_source_kind kind);
const polka_split_ops *polka_split_of(polka_split_kind kind);

/* Parses data.source / data.split by the tables' names; POLKA_ERR_ARG naming the choices. */
polka_status polka_source_parse(const char *name, polka_source_kind *kind);
polka_status polka_split_parse(const char *name, polka_split_kind *kind);

/* NULL when the split can draw from the source; else a message naming the sources it can. */
const char *polka_split_check_source(polka_split_kind split, polka_source_kind source);

#endif
