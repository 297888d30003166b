#include "stream.h"

#include <stdlib.h>

#include "source.h"

struct polka_stream_s {
    const polka_plan *plan;
    const polka_source_ops *source;
    const polka_split_ops *split;
    void *state; /* the source's */
    polka_data_facts facts;
    polka_draw draw;
    size_t agents, batch;
};

static polka_status open_source(polka_stream *stream, size_t first, size_t count) {
    const polka_plan *plan = stream->plan;
    polka_source_layout layout = {
        .agents = stream->agents,
        .batch = stream->batch,
        .first = first,
        .count = stream->split->local_rows ? count : 0,
        .variants = stream->split->per_agent_variants ? stream->agents : 1,
    };
    POLKA_CALL(stream->source->open(plan, &layout, &stream->state, &stream->facts));
    const char *why = stream->split->check ? stream->split->check(plan, &stream->facts) : NULL;
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s (%zu classes)", why, stream->facts.classes);
    stream->draw = (polka_draw){.source = stream->source,
                                .state = stream->state,
                                .plan = plan,
                                .facts = &stream->facts,
                                .agents = stream->agents};
    return POLKA_OK;
}

static polka_status create(const polka_plan *plan, size_t agents, size_t batch, size_t first,
                           size_t count, polka_stream **out) {
    POLKA_CHECK(agents >= 1 && batch >= 1, POLKA_ERR_ARG, "a stream needs agents and batch >= 1");
    polka_stream *stream = calloc(1, sizeof *stream);
    POLKA_CHECK_ALLOC(stream);
    *stream = (polka_stream){.plan = plan,
                             .source = polka_source_of(plan->data.source),
                             .split = polka_split_of(plan->data.split),
                             .agents = agents,
                             .batch = batch};
    polka_status status = open_source(stream, first, count);
    if (status != POLKA_OK) {
        polka_stream_free(&stream);
        return status;
    }
    *out = stream;
    return POLKA_OK;
}

polka_status polka_stream_create(const polka_plan *plan, size_t agents, size_t batch,
                                 polka_stream **out) {
    return create(plan, agents, batch, 0, 0, out);
}

polka_status polka_stream_create_for(const polka_plan *plan, size_t agents, size_t batch,
                                     size_t first, size_t count, polka_stream **out) {
    return create(plan, agents, batch, first, count, out);
}

const polka_data_facts *polka_stream_facts(const polka_stream *stream) {
    return &stream->facts;
}

size_t polka_stream_rows_held(const polka_stream *stream) {
    return stream->source->rows_held ? stream->source->rows_held(stream->state) : 0;
}

void polka_stream_free(polka_stream **stream) {
    if (stream == NULL || *stream == NULL) return;
    if ((*stream)->state) (*stream)->source->close((*stream)->state);
    free(*stream);
    *stream = NULL;
}

polka_status polka_stream_sample(const polka_stream *stream, uint64_t g, double *x, double *y) {
    size_t agent = (size_t)((g / stream->batch) % stream->agents);
    uint64_t index = g % stream->facts.n_train; /* the stream wraps around after n_train */
    return stream->split->sample(&stream->draw, agent, g, index, x, y);
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
    return POLKA_OK;
}
