/* The realised per-agent class histogram of a configuration: the stream the run would draw. */
#include <stdlib.h>

#include "sim/driver/sim_impl.h"
#include "sim/stream/stream_impl.h"

polka_status polka_sim_class_histogram(const polka_plan *plan, size_t ranks,
                                       polka_class_histogram *out) {
    *out = (polka_class_histogram){0};
    size_t agents = 1;
    POLKA_CALL(polka_network_agents(plan, ranks, &agents));
    polka_stream *stream = NULL;
    POLKA_CALL(polka_stream_create(plan, agents, plan->learner.batch, &stream));
    const polka_data_facts *facts = polka_stream_facts(stream);
    size_t per_round = agents * plan->learner.batch;
    *out = (polka_class_histogram){
        .agents = agents,
        .classes = facts->classes,
        .samples =
            (uint64_t)polka_plan_rounds(plan->run.passes, facts->n_train, per_round) * per_round,
    };
    polka_status status = POLKA_OK;
    if (facts->classes == 0)
        status = polka_error_set(POLKA_ERR_ARG, "data.source = %s has no classes to count",
                                 polka_source_kind_name(plan->data.source));
    if (status == POLKA_OK) {
        out->counts = calloc(agents * facts->classes, sizeof *out->counts);
        if (out->counts == NULL) status = polka_error_set(POLKA_ERR_MEM, "out of memory");
    }
    if (status == POLKA_OK)
        status = polka_stream_class_histogram(stream, out->samples, out->counts);
    polka_stream_free(&stream);
    if (status != POLKA_OK) polka_class_histogram_free(out);
    return status;
}

void polka_class_histogram_free(polka_class_histogram *histogram) {
    free(histogram->counts);
    *histogram = (polka_class_histogram){0};
}
