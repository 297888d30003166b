#include "polka/rng.h"

#include <Random123/philox.h>
#include <math.h>

polka_rng polka_rng_start(uint64_t seed, uint64_t stream, uint64_t index) {
    return (polka_rng){.seed = seed, .stream = stream, .index = index};
}

polka_rng polka_rng_start_sub(uint64_t seed, uint64_t stream, uint64_t index, uint64_t sub) {
    return (polka_rng){.seed = seed, .stream = stream, .index = index, .sub = sub};
}

static void refill(polka_rng *rng) {
    philox4x64_ctr_t ctr = {{rng->index, rng->block, rng->sub, 0}};
    philox4x64_key_t key = {{rng->seed, rng->stream}};
    philox4x64_ctr_t out = philox4x64(ctr, key);
    for (int k = 0; k < 4; k++) /* 53 random bits, centred in their interval: never 0 or 1 */
        rng->buffer[k] = ((double)(out.v[k] >> 11) + 0.5) * 0x1.0p-53;
    rng->block++;
    rng->left = 4;
}

double polka_rng_uniform(polka_rng *rng) {
    if (rng->left == 0) refill(rng);
    return rng->buffer[4 - rng->left--];
}

double polka_rng_normal(polka_rng *rng) {
    double u1 = polka_rng_uniform(rng), u2 = polka_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

uint64_t polka_rng_below(polka_rng *rng, uint64_t n) {
    uint64_t k = (uint64_t)(polka_rng_uniform(rng) * (double)n);
    return k < n ? k : n - 1;
}

/* Marsaglia & Tsang (2000), "A simple method for generating gamma variables", shape >= 1:
 * d = shape − 1/3, c = 1/√(9d); accept v = (1 + c·x)³ (x normal) when
 * log u < x²/2 + d − d·v + d·log v; the draw is d·v. */
static double log_gamma_large(polka_rng *rng, double shape) {
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = polka_rng_normal(rng), v = 1.0 + c * x;
        if (v <= 0.0) continue;
        v = v * v * v;
        if (log(polka_rng_uniform(rng)) < 0.5 * x * x + d - d * v + d * log(v))
            return log(d) + log(v);
    }
}

double polka_rng_log_gamma(polka_rng *rng, double shape) {
    if (shape >= 1.0) return log_gamma_large(rng, shape);
    return log_gamma_large(rng, shape + 1.0) + log(polka_rng_uniform(rng)) / shape;
}
