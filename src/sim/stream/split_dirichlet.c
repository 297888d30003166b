/*
 * data.split = dirichlet: agent a's class proportions p_a ~ Dir(α·1_C) (data.alpha), drawn once
 * from (run.seed, AGENT, a) as normalised Gamma(α) draws; α → ∞ is iid, α = 0.1 is severe
 * label skew. Sample g of agent a is of class c with probability p_a(c) (split_classes.c).
 */
#include <math.h>

#include "polka/rng.h"
#include "sim/stream/source_impl.h"

static const char *dirichlet_check(const polka_plan *plan, const polka_data_facts *facts) {
    (void)facts;
    double alpha = plan->data.split_knobs.alpha;
    if (!(alpha >= 1e-3 && alpha <= 1e9)) return "data.alpha must be in [1e-3, 1e9]";
    return NULL;
}

/* p_a(c) = G_c / Σ G (G_c ~ Gamma(α)), from the logs of the draws (tiny α never underflows). */
static void draw_proportions(polka_class_table *t, double alpha, uint64_t seed, size_t agent) {
    double *row = t->cumulative + agent * t->classes, top = -INFINITY;
    polka_rng rng = polka_rng_start(seed, POLKA_STREAM_AGENT, agent);
    for (size_t c = 0; c < t->classes; c++) {
        row[c] = polka_rng_log_gamma(&rng, alpha);
        top = fmax(top, row[c]);
    }
    for (size_t c = 0; c < t->classes; c++) row[c] = exp(row[c] - top);
    polka_class_table_normalise(t, agent);
}

static polka_status dirichlet_open(const polka_draw *draw, void **state) {
    polka_class_table *t = NULL;
    POLKA_CALL(polka_class_table_open(draw, &t));
    for (size_t a = 0; a < t->agents; a++)
        draw_proportions(t, draw->plan->data.split_knobs.alpha, draw->plan->run.seed, a);
    *state = t;
    return POLKA_OK;
}

const polka_split_ops polka_split_dirichlet = {
    .name = "dirichlet",
    .fits = polka_class_split_fits,
    .check = dirichlet_check,
    .open = dirichlet_open,
    .close = polka_class_table_close,
    .class_of = polka_class_table_class_of,
    .sample = polka_class_split_sample,
};
