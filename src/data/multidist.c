#include <math.h>
#include <stdlib.h>

#include "polka/data.h"
#include "polka/rng.h"

/* The means get their own stream so that they depend on means_seed only. */
#define MEANS_STREAM 0

struct polka_multidist_s {
    polka_multidist_params params;
    double *means; /* (classes·components) × dim */
};

const char *polka_multidist_check(const polka_multidist_params *params) {
    if (params->classes < 2) return "data.classes must be >= 2";
    if (params->components < 1) return "data.components must be >= 1";
    if (params->dim < 2) return "data.dim must be >= 2";
    if (!(params->mean_var >= 0)) return "data.mean_var must be >= 0";
    if (!(params->sample_var > 0)) return "data.sample_var must be > 0";
    return NULL;
}

polka_status polka_multidist_create(const polka_multidist_params *params, polka_multidist **out) {
    const char *why = polka_multidist_check(params);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    polka_multidist *gen = calloc(1, sizeof *gen);
    POLKA_CHECK_ALLOC(gen);
    size_t count = params->classes * params->components, dim = params->dim;
    gen->params = *params;
    gen->means = malloc(count * dim * sizeof *gen->means);
    if (gen->means == NULL) {
        free(gen);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for the mixture means");
    }
    double spread = sqrt(params->mean_var);
    for (size_t c = 0; c < params->classes; c++) {
        double angle = 6.283185307179586 * (double)c / (double)params->classes;
        for (size_t m = 0; m < params->components; m++) {
            size_t row = c * params->components + m;
            polka_rng rng = polka_rng_start(params->means_seed, MEANS_STREAM, row);
            for (size_t k = 0; k < dim; k++) {
                double centre = k == 0 ? cos(angle) : (k == 1 ? sin(angle) : 0.0);
                gen->means[row * dim + k] = centre + spread * polka_rng_normal(&rng);
            }
        }
    }
    *out = gen;
    return POLKA_OK;
}

void polka_multidist_free(polka_multidist **gen) {
    if (gen == NULL || *gen == NULL) return;
    free((*gen)->means);
    free(*gen);
    *gen = NULL;
}

/* x ~ N(μ_{c,m}, sample_var·I) with the component m drawn from rng. */
static void sample_from_class(const polka_multidist *gen, polka_rng *rng, size_t c, double *x) {
    const polka_multidist_params *params = &gen->params;
    size_t m = (size_t)polka_rng_below(rng, params->components);
    const double *mean = gen->means + (c * params->components + m) * params->dim;
    double spread = sqrt(params->sample_var);
    for (size_t k = 0; k < params->dim; k++) x[k] = mean[k] + spread * polka_rng_normal(rng);
}

void polka_multidist_sample(const polka_multidist *gen, uint64_t stream, uint64_t index, double *x,
                            double *y) {
    polka_rng rng = polka_rng_start(gen->params.seed, stream, index);
    size_t c = (size_t)polka_rng_below(&rng, gen->params.classes);
    sample_from_class(gen, &rng, c, x);
    *y = (double)c;
}

void polka_multidist_sample_class(const polka_multidist *gen, uint64_t stream, uint64_t index,
                                  size_t c, double *x) {
    polka_rng rng = polka_rng_start(gen->params.seed, stream, index);
    (void)polka_rng_below(&rng, gen->params.classes); /* keep the draws aligned with _sample */
    sample_from_class(gen, &rng, c, x);
}

void polka_multidist_fill(const polka_multidist *gen, uint64_t stream, uint64_t first,
                          polka_dataset *data) {
    for (size_t i = 0; i < data->n; i++)
        polka_multidist_sample(gen, stream, first + i, data->x + i * data->p, data->y + i);
}
