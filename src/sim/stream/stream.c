#include "sim/stream/stream_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/rng.h"
#include "sim/stream/source_impl.h"

struct polka_stream_s {
    const polka_plan *plan;
    const polka_source_ops *source;
    const polka_split_ops *split;
    void *state;       /* the source's */
    void *split_state; /* the split's (open), or NULL */
    polka_data_facts facts;
    polka_draw draw;
    size_t agents, batch;
    double *learn_odds;       /* quantity skew: agent a learns a round w.p. r_a / max r; or NULL */
    polka_dataset drift_base; /* drifting stream: the test set at phase 0 */
};

/* The source (a file source: its scan), the split's tables, then the source's rows (a file
 * source reads only the rows the agents ids[0..count) draw, asking the split). */
static polka_status open_source(polka_stream *stream, const size_t *ids, size_t count,
                                const polka_scan_hook *scan) {
    const polka_plan *plan = stream->plan;
    polka_source_layout layout = {
        .agents = stream->agents,
        .batch = stream->batch,
        .ids = ids,
        .count = count,
        .variants = stream->split->per_agent_variants ? stream->agents : 1,
        .scan = scan,
    };
    POLKA_CALL(stream->source->open(plan, &layout, &stream->state, &stream->facts));
    const char *why = stream->split->check ? stream->split->check(plan, &stream->facts) : NULL;
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s (%zu classes)", why, stream->facts.classes);
    stream->draw = (polka_draw){.source = stream->source,
                                .state = stream->state,
                                .plan = plan,
                                .facts = &stream->facts,
                                .agents = stream->agents,
                                .split = stream->split};
    if (stream->split->open) {
        POLKA_CALL(stream->split->open(&stream->draw, &stream->split_state));
        stream->draw.split_state = stream->split_state;
    }
    return stream->source->load ? stream->source->load(stream->state, &stream->draw) : POLKA_OK;
}

/*
 * Quantity skew: agent a's rate r_a = exp(σ z_a) / mean_b exp(σ z_b), z_a ~ N(0, 1) from
 * (run.seed, ACTIVE, a) (mean rate 1); in each round it learns its batch with
 * probability r_a / max_b r_b, so the rates' ratios are the ratios of the data the agents see.
 */
static polka_status quantity_rates(polka_stream *stream) {
    double sigma = stream->plan->data.quantity_sigma, top = 0.0;
    if (!(sigma > 0)) return POLKA_OK;
    stream->learn_odds = malloc(stream->agents * sizeof *stream->learn_odds);
    POLKA_CHECK_ALLOC(stream->learn_odds);
    for (size_t a = 0; a < stream->agents; a++) {
        polka_rng rng = polka_rng_start(stream->plan->run.seed, POLKA_STREAM_ACTIVE, a);
        stream->learn_odds[a] = exp(sigma * polka_rng_normal(&rng));
        top = fmax(top, stream->learn_odds[a]);
    }
    for (size_t a = 0; a < stream->agents; a++) stream->learn_odds[a] /= top;
    return POLKA_OK;
}

static polka_status create(const polka_plan *plan, size_t agents, size_t batch, const size_t *ids,
                           size_t count, const polka_scan_hook *scan, polka_stream **out) {
    POLKA_CHECK(agents >= 1 && batch >= 1, POLKA_ERR_ARG, "a stream needs agents and batch >= 1");
    polka_stream *stream = calloc(1, sizeof *stream);
    POLKA_CHECK_ALLOC(stream);
    *stream = (polka_stream){.plan = plan,
                             .source = polka_source_of(plan->data.source),
                             .split = polka_split_of(plan->data.split),
                             .agents = agents,
                             .batch = batch};
    polka_status status = open_source(stream, ids, count, scan);
    if (status == POLKA_OK) status = quantity_rates(stream);
    if (status != POLKA_OK) {
        polka_stream_free(&stream);
        return status;
    }
    *out = stream;
    return POLKA_OK;
}

polka_status polka_stream_create(const polka_plan *plan, size_t agents, size_t batch,
                                 polka_stream **out) {
    return create(plan, agents, batch, NULL, 0, NULL, out);
}

polka_status polka_stream_create_for(const polka_plan *plan, size_t agents, size_t batch,
                                     const size_t *ids, size_t count, const polka_scan_hook *scan,
                                     polka_stream **out) {
    return create(plan, agents, batch, ids, count, scan, out);
}

const polka_data_facts *polka_stream_facts(const polka_stream *stream) {
    return &stream->facts;
}

size_t polka_stream_rows_held(const polka_stream *stream) {
    return stream->source->rows_held ? stream->source->rows_held(stream->state) : 0;
}

void polka_stream_free(polka_stream **stream) {
    if (stream == NULL || *stream == NULL) return;
    if ((*stream)->split_state) (*stream)->split->close((*stream)->split_state);
    if ((*stream)->state) (*stream)->source->close((*stream)->state);
    free((*stream)->learn_odds);
    polka_dataset_free(&(*stream)->drift_base);
    free(*stream);
    *stream = NULL;
}

polka_status polka_stream_sample(const polka_stream *stream, uint64_t g, double *x, double *y) {
    size_t agent = (size_t)((g / stream->batch) % stream->agents);
    uint64_t index = g % stream->facts.n_train; /* the stream wraps around after n_train */
    POLKA_CALL(stream->split->sample(&stream->draw, agent, g, index, x, y));
    double drift = stream->plan->data.drift;
    if (drift > 0) stream->source->drift(stream->state, drift * (double)g, x, y);
    if (stream->plan->data.unit_norm) polka_unit_norm_row(x, stream->facts.dim);
    return POLKA_OK;
}

int polka_stream_agent_learns(const polka_stream *stream, size_t agent, uint64_t round) {
    if (stream->learn_odds == NULL) return 1;
    /* (seed, ACTIVE, agents + t·agents + a): after the agents' rate draws */
    polka_rng rng = polka_rng_start(stream->plan->run.seed, POLKA_STREAM_ACTIVE,
                                    stream->agents + round * stream->agents + agent);
    return polka_rng_uniform(&rng) < stream->learn_odds[agent];
}

int polka_stream_sample_learned(const polka_stream *stream, uint64_t g) {
    uint64_t slot = g / stream->batch; /* round · agents + agent */
    return polka_stream_agent_learns(stream, (size_t)(slot % stream->agents),
                                     slot / stream->agents);
}

polka_status polka_stream_agent_batch(const polka_stream *stream, size_t agent, uint64_t round,
                                      double *x, double *y) {
    size_t dim = stream->facts.dim;
    uint64_t first = (round * stream->agents + agent) * stream->batch;
    for (size_t b = 0; b < stream->batch; b++)
        POLKA_CALL(polka_stream_sample(stream, first + b, x + b * dim, y + b));
    return POLKA_OK;
}

polka_status polka_stream_test_set(polka_stream *stream, polka_dataset *test) {
    polka_data_facts planned;
    /* a generated source's test set has the planned size; a file source reads its own */
    if (stream->source->planned_facts(stream->plan, &planned))
        POLKA_CALL(polka_dataset_alloc(test, planned.n_test, planned.dim, planned.classes));
    POLKA_CALL(stream->source->test_set(stream->state, test));
    stream->facts.n_test = test->n;
    if (stream->plan->data.drift > 0) { /* the test set turns from its base (test_now) */
        polka_dataset *base = &stream->drift_base;
        polka_dataset_free(base);
        POLKA_CALL(polka_dataset_alloc(base, test->n, test->p, test->classes));
        memcpy(base->x, test->x, test->n * test->p * sizeof *base->x);
        memcpy(base->y, test->y, test->n * sizeof *base->y);
    }
    if (!stream->plan->data.unit_norm) return POLKA_OK;
    return polka_dataset_unit_norm(test, stream->plan->data.test); /* sparse: a file's only */
}

void polka_stream_test_now(const polka_stream *stream, double samples, polka_dataset *test) {
    double drift = stream->plan->data.drift;
    if (!(drift > 0)) return;
    const polka_dataset *base = &stream->drift_base;
    memcpy(test->x, base->x, base->n * base->p * sizeof *test->x);
    memcpy(test->y, base->y, base->n * sizeof *test->y);
    for (size_t i = 0; i < test->n; i++) {
        stream->source->drift(stream->state, drift * samples, test->x + i * test->p, test->y + i);
        if (stream->plan->data.unit_norm) polka_unit_norm_row(test->x + i * test->p, test->p);
    }
}

polka_status polka_stream_class_histogram(const polka_stream *stream, uint64_t samples,
                                          size_t *counts) {
    size_t classes = stream->facts.classes;
    POLKA_CHECK(classes > 0, POLKA_ERR_ARG, "a class histogram needs class labels");
    memset(counts, 0, stream->agents * classes * sizeof *counts);
    double *x = malloc(stream->facts.dim * sizeof *x), y;
    POLKA_CHECK_ALLOC(x);
    polka_status status = POLKA_OK;
    for (uint64_t g = 0; g < samples && status == POLKA_OK; g++) {
        if (!polka_stream_sample_learned(stream, g)) continue;
        status = polka_stream_sample(stream, g, x, &y);
        size_t agent = (size_t)((g / stream->batch) % stream->agents);
        if (status == POLKA_OK) counts[agent * classes + (size_t)y]++;
    }
    free(x);
    return status;
}
