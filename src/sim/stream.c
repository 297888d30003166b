#include "stream.h"

#include <stdlib.h>
#include <string.h>

#include "polka/rng.h"
#include "sim_impl.h"

typedef enum { SPLIT_IID, SPLIT_SKEWED, SPLIT_MIXTURES } split_kind;

/* Per-agent mixtures draw agent a's means from means_seed + MIXTURE_SEED_STEP·(a + 1). */
#define MIXTURE_SEED_STEP 7919

struct polka_stream_s {
    polka_config config;
    split_kind split;
    size_t agents, batch;
    polka_multidist **gens; /* one per agent for mixtures, else one */
    size_t gen_count;
};

static split_kind parse_split(const char *name) {
    if (strcmp(name, "skewed") == 0) return SPLIT_SKEWED;
    if (strcmp(name, "mixtures") == 0) return SPLIT_MIXTURES;
    return SPLIT_IID;
}

polka_status polka_stream_create(const polka_config *config, size_t agents, size_t batch,
                                 polka_stream **out) {
    POLKA_CHECK(agents >= 1 && batch >= 1, POLKA_ERR_ARG, "a stream needs agents and batch >= 1");
    polka_stream *stream = calloc(1, sizeof *stream);
    POLKA_CHECK_ALLOC(stream);
    stream->config = *config;
    stream->split = parse_split(config->split);
    stream->agents = agents;
    stream->batch = batch;
    stream->gen_count = stream->split == SPLIT_MIXTURES ? agents : 1;
    stream->gens = calloc(stream->gen_count, sizeof *stream->gens);
    polka_status status = stream->gens ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    for (size_t a = 0; a < stream->gen_count && status == POLKA_OK; a++) {
        polka_multidist_params params = polka_sim_multidist_params(config);
        if (stream->split == SPLIT_MIXTURES) params.means_seed += MIXTURE_SEED_STEP * (a + 1);
        status = polka_multidist_create(&params, &stream->gens[a]);
    }
    if (status != POLKA_OK) {
        polka_stream_free(&stream);
        return status;
    }
    *out = stream;
    return POLKA_OK;
}

void polka_stream_free(polka_stream **stream) {
    if (stream == NULL || *stream == NULL) return;
    for (size_t a = 0; a < (*stream)->gen_count && (*stream)->gens; a++)
        polka_multidist_free(&(*stream)->gens[a]);
    free((*stream)->gens);
    free(*stream);
    *stream = NULL;
}

/*
 * Skewed split: with probability skew_fraction the class is one of the agent's own
 * skew_classes classes {(a·k + j) mod C : j < k}, else any class uniformly.
 */
static size_t skewed_class(const polka_stream *stream, size_t agent, uint64_t g) {
    const polka_config *config = &stream->config;
    polka_rng rng = polka_rng_start(config->seed, POLKA_STREAM_SPLIT, g);
    if (polka_rng_uniform(&rng) < config->skew_fraction) {
        size_t j = (size_t)polka_rng_below(&rng, config->skew_classes);
        return (agent * config->skew_classes + j) % config->classes;
    }
    return (size_t)polka_rng_below(&rng, config->classes);
}

void polka_stream_sample(const polka_stream *stream, uint64_t g, double *x, double *y) {
    size_t agent = (size_t)((g / stream->batch) % stream->agents);
    uint64_t index = polka_sim_train_index(&stream->config, g);
    switch (stream->split) {
    case SPLIT_IID:
        polka_multidist_sample(stream->gens[0], POLKA_STREAM_TRAIN, index, x, y);
        break;
    case SPLIT_SKEWED: {
        size_t c = skewed_class(stream, agent, g);
        polka_multidist_sample_class(stream->gens[0], POLKA_STREAM_TRAIN, index, c, x);
        *y = (double)c;
        break;
    }
    case SPLIT_MIXTURES:
        polka_multidist_sample(stream->gens[agent], POLKA_STREAM_TRAIN, index, x, y);
        break;
    }
}

void polka_stream_agent_batch(const polka_stream *stream, size_t agent, uint64_t round, double *x,
                              double *y) {
    size_t dim = stream->config.dim;
    uint64_t first = (round * stream->agents + agent) * stream->batch;
    for (size_t b = 0; b < stream->batch; b++)
        polka_stream_sample(stream, first + b, x + b * dim, y + b);
}

polka_status polka_stream_test_set(const polka_stream *stream, polka_dataset *test) {
    const polka_config *config = &stream->config;
    POLKA_CALL(polka_dataset_alloc(test, config->n_test, config->dim, config->classes));
    /* The test distribution is the network's: for mixtures, test point i comes from agent
     * i mod N's mixture; otherwise the one generator. */
    for (size_t i = 0; i < test->n; i++)
        polka_multidist_sample(stream->gens[i % stream->gen_count], POLKA_STREAM_TEST, i,
                               test->x + i * test->p, test->y + i);
    return POLKA_OK;
}
