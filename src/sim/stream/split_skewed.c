/*
 * data.split = skewed: with probability skew_fraction an agent's sample is of one of its own
 * skew_classes classes {(a·k + j) mod C : j < k}, else of any class uniformly.
 */
#include "polka/rng.h"
#include "sim/stream/source_impl.h"

static const char *skewed_check(const polka_plan *plan, const polka_data_facts *facts) {
    const polka_data_spec *d = &plan->data;
    if (!(d->split_knobs.skew_fraction >= 0 && d->split_knobs.skew_fraction <= 1))
        return "data.skew_fraction must be in [0, 1]";
    if (d->split_knobs.skew_classes < 1) return "data.skew_classes must be >= 1";
    if (facts->classes > 0 && d->split_knobs.skew_classes > facts->classes)
        return "data.skew_classes must be between 1 and the data's classes";
    return NULL;
}

/* One of the agent's own classes w.p. skew_fraction, else any class (regression: none). */
static size_t skewed_class(const polka_draw *draw, size_t agent, uint64_t g) {
    const polka_data_spec *d = &draw->plan->data;
    size_t classes = draw->facts->classes;
    if (classes == 0) return POLKA_NO_CLASS; /* regression targets: nothing to skew */
    polka_rng rng = polka_rng_start(draw->plan->run.seed, POLKA_STREAM_SPLIT, g);
    if (polka_rng_uniform(&rng) < d->split_knobs.skew_fraction) {
        size_t j = (size_t)polka_rng_below(&rng, d->split_knobs.skew_classes);
        return (agent * d->split_knobs.skew_classes + j) % classes;
    }
    return (size_t)polka_rng_below(&rng, classes);
}

const polka_split_ops polka_split_skewed = {
    .name = "skewed",
    .fits = polka_class_split_fits,
    .check = skewed_check,
    .class_of = skewed_class,
    .sample = polka_class_split_sample,
};
