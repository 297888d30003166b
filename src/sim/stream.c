#include "stream.h"

#include <stdlib.h>
#include <string.h>

#include "polka/checkerboard.h"
#include "polka/regression.h"
#include "polka/rng.h"
#include "sim_impl.h"
#include "stream_file.h"

typedef enum { SPLIT_IID, SPLIT_SKEWED, SPLIT_MIXTURES, SPLIT_REGIONS } split_kind;

/* Per-agent mixtures draw agent a's means from means_seed + MIXTURE_SEED_STEP·(a + 1). */
#define MIXTURE_SEED_STEP 7919

struct polka_stream_s {
    polka_config config;
    split_kind split;
    size_t agents, batch;
    polka_multidist **gens; /* one per agent for mixtures, else one */
    size_t gen_count;
    polka_filedata *file;         /* data.source = file */
    polka_regression *regression; /* data.source = sinc | friedman */
    polka_checkerboard *board;    /* data.source = checkerboard */
};

static split_kind parse_split(const char *name) {
    if (strcmp(name, "skewed") == 0) return SPLIT_SKEWED;
    if (strcmp(name, "mixtures") == 0) return SPLIT_MIXTURES;
    if (strcmp(name, "regions") == 0) return SPLIT_REGIONS;
    return SPLIT_IID;
}

/* data.source = file: the data's facts come from the training file. */
static polka_status open_file(polka_stream *stream, long agent) {
    polka_config *config = &stream->config;
    POLKA_CALL(polka_filedata_load(config, stream->agents, stream->batch, agent, &stream->file));
    const polka_data_info *info = polka_filedata_info(stream->file);
    config->dim = info->p;
    config->classes = info->classes;
    config->n_train = info->n; /* data.n_test follows when the test set is read */
    const char *too_long = polka_config_check_length(config);
    POLKA_CHECK(too_long == NULL, POLKA_ERR_ARG, "%s (%s has %zu samples)", too_long, config->train,
                info->n);
    if (stream->split == SPLIT_SKEWED && info->classes > 0)
        POLKA_CHECK(config->skew_classes <= info->classes, POLKA_ERR_ARG,
                    "data.skew_classes = %zu but %s has %zu classes", config->skew_classes,
                    config->train, info->classes);
    return POLKA_OK;
}

static polka_status open_generators(polka_stream *stream) {
    const polka_config *config = &stream->config;
    stream->gen_count = stream->split == SPLIT_MIXTURES ? stream->agents : 1;
    stream->gens = calloc(stream->gen_count, sizeof *stream->gens);
    POLKA_CHECK_ALLOC(stream->gens);
    for (size_t a = 0; a < stream->gen_count; a++) {
        polka_multidist_params params = polka_sim_multidist_params(config);
        if (stream->split == SPLIT_MIXTURES) params.means_seed += MIXTURE_SEED_STEP * (a + 1);
        POLKA_CALL(polka_multidist_create(&params, &stream->gens[a]));
    }
    return POLKA_OK;
}

/* data.source = sinc | friedman: a regression stream (classes = 0). */
static polka_status open_regression(polka_stream *stream) {
    polka_config *config = &stream->config;
    int sinc = strcmp(config->source, "sinc") == 0;
    polka_regression_params params =
        polka_regression_defaults(sinc ? POLKA_REGRESSION_SINC : POLKA_REGRESSION_FRIEDMAN1);
    params.dim = config->dim;
    params.seed = config->seed;
    if (sinc)
        params.snr_db = config->snr_db;
    else
        params.noise_std = config->noise_std;
    config->classes = 0;
    return polka_regression_create(&params, &stream->regression);
}

/* data.source = checkerboard: 2-D, 2 classes, i.i.d. only. */
static polka_status open_checkerboard(polka_stream *stream) {
    polka_config *config = &stream->config;
    polka_checkerboard_params params = {.board = config->board, .side = 0, .seed = config->seed};
    config->dim = POLKA_CHECKERBOARD_DIM;
    config->classes = 2;
    return polka_checkerboard_create(&params, &stream->board);
}

static polka_status open_source(polka_stream *stream, long agent) {
    const char *source = stream->config.source;
    if (strcmp(source, "file") == 0) return open_file(stream, agent);
    if (strcmp(source, "multidist") == 0) return open_generators(stream);
    if (strcmp(source, "checkerboard") == 0) return open_checkerboard(stream);
    return open_regression(stream);
}

static polka_status create(const polka_config *config, size_t agents, size_t batch, long agent,
                           polka_stream **out) {
    POLKA_CHECK(agents >= 1 && batch >= 1, POLKA_ERR_ARG, "a stream needs agents and batch >= 1");
    polka_stream *stream = calloc(1, sizeof *stream);
    POLKA_CHECK_ALLOC(stream);
    stream->config = *config;
    stream->split = parse_split(config->split);
    stream->agents = agents;
    stream->batch = batch;
    polka_status status = open_source(stream, agent);
    if (status != POLKA_OK) {
        polka_stream_free(&stream);
        return status;
    }
    *out = stream;
    return POLKA_OK;
}

polka_status polka_stream_create(const polka_config *config, size_t agents, size_t batch,
                                 polka_stream **out) {
    return create(config, agents, batch, -1, out);
}

polka_status polka_stream_create_for(const polka_config *config, size_t agents, size_t batch,
                                     size_t agent, polka_stream **out) {
    return create(config, agents, batch, (long)agent, out);
}

size_t polka_stream_rows_held(const polka_stream *stream) {
    return stream->file ? polka_filedata_rows(stream->file) : 0;
}

const polka_config *polka_stream_config(const polka_stream *stream) {
    return &stream->config;
}

void polka_stream_free(polka_stream **stream) {
    if (stream == NULL || *stream == NULL) return;
    for (size_t a = 0; a < (*stream)->gen_count && (*stream)->gens; a++)
        polka_multidist_free(&(*stream)->gens[a]);
    free((*stream)->gens);
    polka_filedata_free(&(*stream)->file);
    polka_regression_free(&(*stream)->regression);
    polka_checkerboard_free(&(*stream)->board);
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

static polka_status file_sample(const polka_stream *stream, size_t agent, uint64_t g, double *x,
                                double *y) {
    uint64_t index = polka_sim_train_index(&stream->config, g);
    if (stream->split != SPLIT_SKEWED || stream->config.classes == 0)
        return polka_filedata_row(stream->file, index, x, y);
    size_t c = skewed_class(stream, agent, g);
    polka_rng rng = polka_rng_start(stream->config.seed, POLKA_STREAM_TRAIN, g);
    return polka_filedata_row_of_class(stream->file, c, polka_rng_uniform(&rng), x, y);
}

/*
 * Regions split: agent a draws its first coordinate from its own slab, the a-th of N equal
 * slices of the range [lo, hi] the generator draws from; the target follows the moved
 * point (the same noise is kept).
 */
static void regression_sample(const polka_stream *stream, size_t agent, uint64_t index, double *x,
                              double *y) {
    double clean = 0.0;
    polka_regression_sample(stream->regression, POLKA_STREAM_TRAIN, index, x, y, &clean);
    if (stream->split != SPLIT_REGIONS) return;
    int sinc = strcmp(stream->config.source, "sinc") == 0;
    double lo = sinc ? -5.0 : 0.0, hi = sinc ? 5.0 : 1.0,
           width = (hi - lo) / (double)stream->agents;
    double u = (x[0] - lo) / (hi - lo); /* uniform on [0, 1) */
    x[0] = lo + width * ((double)agent + u);
    *y += polka_regression_clean(stream->regression, x) - clean;
}

polka_status polka_stream_sample(const polka_stream *stream, uint64_t g, double *x, double *y) {
    size_t agent = (size_t)((g / stream->batch) % stream->agents);
    uint64_t index = polka_sim_train_index(&stream->config, g);
    if (stream->file) return file_sample(stream, agent, g, x, y);
    if (stream->regression) {
        regression_sample(stream, agent, index, x, y);
        return POLKA_OK;
    }
    if (stream->board) {
        polka_checkerboard_sample(stream->board, POLKA_STREAM_TRAIN, index, x, y);
        return POLKA_OK;
    }
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
    case SPLIT_REGIONS: /* refused for multidist by the config check */
        polka_multidist_sample(stream->gens[agent % stream->gen_count], POLKA_STREAM_TRAIN, index,
                               x, y);
        break;
    }
    return POLKA_OK;
}

polka_status polka_stream_agent_batch(const polka_stream *stream, size_t agent, uint64_t round,
                                      double *x, double *y) {
    size_t dim = stream->config.dim;
    uint64_t first = (round * stream->agents + agent) * stream->batch;
    for (size_t b = 0; b < stream->batch; b++)
        POLKA_CALL(polka_stream_sample(stream, first + b, x + b * dim, y + b));
    return POLKA_OK;
}

polka_status polka_stream_test_set(polka_stream *stream, polka_dataset *test) {
    polka_config *config = &stream->config;
    if (stream->file) {
        POLKA_CALL(polka_filedata_test(stream->file, config, test));
        config->n_test = test->n;
        return POLKA_OK;
    }
    if (stream->regression) {
        POLKA_CALL(polka_dataset_alloc(test, config->n_test, config->dim, 0));
        polka_regression_fill(stream->regression, POLKA_STREAM_TEST, 0, test);
        return POLKA_OK;
    }
    if (stream->board) {
        POLKA_CALL(polka_dataset_alloc(test, config->n_test, config->dim, config->classes));
        polka_checkerboard_fill(stream->board, POLKA_STREAM_TEST, 0, test);
        return POLKA_OK;
    }
    POLKA_CALL(polka_dataset_alloc(test, config->n_test, config->dim, config->classes));
    /* The test distribution is the network's: for mixtures, test point i comes from agent
     * i mod N's mixture; otherwise the one generator. */
    for (size_t i = 0; i < test->n; i++)
        polka_multidist_sample(stream->gens[i % stream->gen_count], POLKA_STREAM_TEST, i,
                               test->x + i * test->p, test->y + i);
    return POLKA_OK;
}
