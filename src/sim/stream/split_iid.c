/* data.split = iid: every agent draws from the whole stream (sample g is training row g mod n). */
#include "sim/stream/source_impl.h"

static const char *iid_fits(const polka_source_ops *source) {
    (void)source;
    return NULL;
}

static polka_status iid_sample(const polka_draw *draw, size_t agent, uint64_t g, uint64_t index,
                               double *x, double *y) {
    (void)agent, (void)g;
    return draw->source->sample(draw->state, 0, index, x, y);
}

const polka_split_ops polka_split_iid = {
    .name = "iid",
    .fits = iid_fits,
    .sample = iid_sample,
};
