/*
 * The class-proportion splits (dirichlet, shards): each agent has its own distribution over the
 * classes, held as cumulative proportions; sample g of agent a is of class c with probability
 * p_a(c) (the uniform of (run.seed, SPLIT, g)), then the source's sample of class c. The sample
 * op serves every split with a class_of (skewed too).
 */
#include <stdlib.h>

#include "polka/rng.h"
#include "sim/stream/source_impl.h"

polka_status polka_class_table_open(const polka_draw *draw, polka_class_table **table) {
    size_t agents = draw->agents, classes = draw->facts->classes;
    POLKA_CHECK(classes >= 1, POLKA_ERR_ARG,
                "data.split = %s needs class labels (the data has none)",
                polka_split_kind_name(draw->plan->data.split));
    polka_class_table *t = calloc(1, sizeof *t);
    POLKA_CHECK_ALLOC(t);
    t->agents = agents;
    t->classes = classes;
    t->cumulative = calloc(agents * classes, sizeof *t->cumulative);
    if (t->cumulative == NULL) {
        free(t);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for %zu agents' class proportions",
                               agents);
    }
    *table = t;
    return POLKA_OK;
}

void polka_class_table_close(void *table) {
    polka_class_table *t = table;
    if (t == NULL) return;
    free(t->cumulative);
    free(t);
}

void polka_class_table_normalise(polka_class_table *table, size_t agent) {
    double *row = table->cumulative + agent * table->classes, total = 0.0;
    for (size_t c = 0; c < table->classes; c++) total += row[c];
    double sum = 0.0;
    for (size_t c = 0; c < table->classes; c++) {
        sum += row[c];
        row[c] = sum / total;
    }
    row[table->classes - 1] = 1.0; /* exactly: a uniform below 1 always finds a class */
}

const char *polka_class_split_fits(const polka_source_ops *source) {
    return source->sample_class ? NULL : "it cannot draw a sample of a given class";
}

/* The first class whose cumulative proportion passes u (a binary search). */
static size_t class_of(const double *row, size_t classes, double u) {
    size_t lo = 0, hi = classes - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u < row[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

size_t polka_class_table_class_of(const polka_draw *draw, size_t agent, uint64_t g) {
    const polka_class_table *t = draw->split_state;
    polka_rng rng = polka_rng_start(draw->plan->run.seed, POLKA_STREAM_SPLIT, g);
    return class_of(t->cumulative + agent * t->classes, t->classes, polka_rng_uniform(&rng));
}

polka_status polka_class_split_sample(const polka_draw *draw, size_t agent, uint64_t g,
                                      uint64_t index, double *x, double *y) {
    size_t c = draw->split->class_of(draw, agent, g);
    if (c == POLKA_NO_CLASS) return draw->source->sample(draw->state, 0, index, x, y);
    return draw->source->sample_class(draw->state, c, g, index, x, y);
}
