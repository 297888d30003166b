/* data.source = multidist: the POLK Gaussian mixture ([KWSR19] §5.2), one generator, or one
 * per agent (mixtures: agent a's means from means_seed + MIXTURE_SEED_STEP·(a + 1)). */
#include <math.h>
#include <stdlib.h>

#include "sim/stream/source_impl.h"
#include "polka/sim.h"

#define MIXTURE_SEED_STEP 7919

typedef struct {
    size_t count;
    polka_multidist **gens;
} multidist_state;

static const char *multidist_check(const polka_plan *plan) {
    const polka_data_spec *d = &plan->data;
    if (d->n_train < 1) return "data.n_train must be >= 1";
    if (d->n_test < 1) return "data.n_test must be >= 1";
    if (d->classes < 2) return "data.classes must be >= 2";
    if (d->classes > POLKA_MAX_CLASSES) return "data.classes must be <= " POLKA_MAX_CLASSES_TEXT;
    if (d->components < 1) return "data.components must be >= 1";
    if (d->dim < 2) return "data.dim must be >= 2";
    if (!(d->mean_var >= 0)) return "data.mean_var must be >= 0";
    if (!(d->sample_var > 0)) return "data.sample_var must be > 0";
    return NULL;
}

static int multidist_facts(const polka_plan *plan, polka_data_facts *facts) {
    const polka_data_spec *d = &plan->data;
    *facts = (polka_data_facts){d->dim, d->classes, d->n_train, d->n_test};
    return 1;
}

static void multidist_close(void *state) {
    multidist_state *s = state;
    if (s == NULL) return;
    for (size_t v = 0; v < s->count && s->gens; v++) polka_multidist_free(&s->gens[v]);
    free(s->gens);
    free(s);
}

static polka_status create_variants(const polka_plan *plan, multidist_state *s) {
    for (size_t v = 0; v < s->count; v++) {
        polka_multidist_params params = polka_stream_multidist_params(plan);
        if (s->count > 1) params.means_seed += MIXTURE_SEED_STEP * (v + 1);
        POLKA_CALL(polka_multidist_create(&params, &s->gens[v]));
    }
    return POLKA_OK;
}

static polka_status multidist_open(const polka_plan *plan, const polka_source_layout *layout,
                                   void **state, polka_data_facts *facts) {
    multidist_facts(plan, facts);
    multidist_state *s = calloc(1, sizeof *s);
    POLKA_CHECK_ALLOC(s);
    s->count = layout->variants;
    s->gens = calloc(s->count, sizeof *s->gens);
    polka_status status =
        s->gens ? create_variants(plan, s) : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status != POLKA_OK) {
        multidist_close(s);
        return status;
    }
    *state = s;
    return POLKA_OK;
}

static polka_status multidist_sample(const void *state, size_t variant, uint64_t index, double *x,
                                     double *y) {
    const multidist_state *s = state;
    polka_multidist_sample(s->gens[variant % s->count], POLKA_STREAM_TRAIN, index, x, y);
    return POLKA_OK;
}

static polka_status multidist_sample_class(const void *state, size_t c, uint64_t g, uint64_t index,
                                           double *x, double *y) {
    (void)g;
    const multidist_state *s = state;
    polka_multidist_sample_class(s->gens[0], POLKA_STREAM_TRAIN, index, c, x);
    *y = (double)c;
    return POLKA_OK;
}

/* Drift: the whole distribution turns by `phase` about the origin in the plane of the first two
 * coordinates (class centres, component means and, the noise being isotropic, the samples). */
static void multidist_drift(const void *state, double phase, double *x, double *y) {
    (void)state, (void)y;
    double c = cos(phase), s = sin(phase), x0 = x[0], x1 = x[1];
    x[0] = c * x0 - s * x1;
    x[1] = s * x0 + c * x1;
}

/* The test distribution is the network's: test point i comes from variant i mod variants. */
static polka_status multidist_test_set(void *state, polka_dataset *test) {
    const multidist_state *s = state;
    for (size_t i = 0; i < test->n; i++)
        polka_multidist_sample(s->gens[i % s->count], POLKA_STREAM_TEST, i, test->x + i * test->p,
                               test->y + i);
    return POLKA_OK;
}

const polka_source_ops polka_source_multidist = {
    .name = "multidist",
    .targets = POLKA_TARGETS_CLASSES,
    .check = multidist_check,
    .planned_facts = multidist_facts,
    .open = multidist_open,
    .close = multidist_close,
    .sample = multidist_sample,
    .sample_class = multidist_sample_class,
    .drift = multidist_drift,
    .variants = 1,
    .test_set = multidist_test_set,
};

polka_multidist_params polka_stream_multidist_params(const polka_plan *plan) {
    const polka_data_spec *data = &plan->data;
    return (polka_multidist_params){
        .classes = data->classes,
        .components = data->components,
        .dim = data->dim,
        .mean_var = data->mean_var,
        .sample_var = data->sample_var,
        .seed = plan->run.seed,
        .means_seed = data->means_seed,
    };
}
