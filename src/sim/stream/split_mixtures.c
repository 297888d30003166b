/* data.split = mixtures: each agent draws from its own variant of the generator (multidist: its
 * own component means), and the test set mixes all of them. */
#include "sim/stream/source_impl.h"

static const char *mixtures_fits(const polka_source_ops *source) {
    return source->variants ? NULL : "it has no per-agent variants";
}

static polka_status mixtures_sample(const polka_draw *draw, size_t agent, uint64_t g,
                                    uint64_t index, double *x, double *y) {
    (void)g;
    return draw->source->sample(draw->state, agent, index, x, y);
}

const polka_split_ops polka_split_mixtures = {
    .name = "mixtures",
    .fits = mixtures_fits,
    .per_agent_variants = 1,
    .sample = mixtures_sample,
};
