/*
 * data.split = shards: every agent sees exactly k = data.shards classes, uniformly. The classes
 * are shuffled once by (run.seed, SHUFFLE, 0) (Fisher–Yates) into π, and dealt round-robin:
 * agent a gets π[(a·k + j) mod C] for j < k. With agents·k >= C every class is some agent's.
 * (McMahan et al.'s shards cut the label-sorted data into pieces; here an agent draws its
 * classes' samples from the stream, the same label skew for a stream.)
 */
#include <stdlib.h>

#include "polka/rng.h"
#include "sim/stream/source_impl.h"

static const char *shards_check(const polka_plan *plan, const polka_data_facts *facts) {
    size_t k = plan->data.split_knobs.shards;
    if (k < 1) return "data.shards must be >= 1";
    if (facts->classes > 0 && k > facts->classes)
        return "data.shards must be between 1 and the data's classes";
    return NULL;
}

static polka_status shards_open(const polka_draw *draw, void **state) {
    polka_class_table *t = NULL;
    POLKA_CALL(polka_class_table_open(draw, &t));
    size_t classes = t->classes, k = draw->plan->data.split_knobs.shards;
    size_t *order = malloc(classes * sizeof *order);
    if (order == NULL) {
        polka_class_table_close(t);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for the class shuffle");
    }
    polka_rng rng = polka_rng_start(draw->plan->run.seed, POLKA_STREAM_SHUFFLE, 0);
    for (size_t c = 0; c < classes; c++) order[c] = c;
    for (size_t c = classes; c > 1; c--) { /* Fisher–Yates */
        size_t j = (size_t)polka_rng_below(&rng, c), swap = order[c - 1];
        order[c - 1] = order[j];
        order[j] = swap;
    }
    for (size_t a = 0; a < t->agents; a++) {
        for (size_t j = 0; j < k; j++)
            t->cumulative[a * classes + order[(a * k + j) % classes]] = 1;
        polka_class_table_normalise(t, a);
    }
    free(order);
    *state = t;
    return POLKA_OK;
}

const polka_split_ops polka_split_shards = {
    .name = "shards",
    .fits = polka_class_split_fits,
    .check = shards_check,
    .open = shards_open,
    .close = polka_class_table_close,
    .class_of = polka_class_table_class_of,
    .sample = polka_class_split_sample,
};
