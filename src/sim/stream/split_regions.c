/*
 * data.split = regions: agent a draws its first coordinate from its own slab, the a-th of N
 * equal slices of the range [lo, hi) the generator draws from; the target follows the moved
 * point (the same noise is kept).
 */
#include "sim/stream/source_impl.h"

static const char *regions_fits(const polka_source_ops *source) {
    return source->slab && source->clean ? NULL : "it has no input range and noise-free target";
}

static polka_status regions_sample(const polka_draw *draw, size_t agent, uint64_t g, uint64_t index,
                                   double *x, double *y) {
    (void)g;
    POLKA_CALL(draw->source->sample(draw->state, 0, index, x, y));
    double lo, hi, clean = draw->source->clean(draw->state, x);
    draw->source->slab(draw->state, &lo, &hi);
    double width = (hi - lo) / (double)draw->agents;
    double u = (x[0] - lo) / (hi - lo); /* uniform on [0, 1) */
    x[0] = lo + width * ((double)agent + u);
    *y += draw->source->clean(draw->state, x) - clean;
    return POLKA_OK;
}

const polka_split_ops polka_split_regions = {
    .name = "regions",
    .fits = regions_fits,
    .sample = regions_sample,
};
