/* Centralized POLK: one agent learning from the whole training stream (paper 000). */
#include <stdlib.h>

#include "sim_impl.h"
#include "stream.h"

typedef struct {
    const polka_config *config;
    const polka_stream *stream;
    const polka_dataset *test;
    polka_learner *learner;
    polka_dataset batch;
    double loss_sum; /* training loss since the last log step */
    size_t loss_count;
} central_run;

static polka_status central_log(const central_run *run, const polka_sim_hooks *hooks, size_t round,
                                double samples, polka_sim_summary *summary) {
    double score = 0.0, loss = 0.0;
    POLKA_CALL(polka_learner_evaluate(run->learner, run->test->x, run->test->y, run->test->n,
                                      &score, &loss));
    size_t order = polka_model_order(polka_learner_model(run->learner));
    summary->mean_score = summary->min_score = summary->max_score = score;
    summary->mean_loss = loss;
    summary->mean_order = (double)order;
    summary->max_order = order;
    double train_loss = run->loss_count ? run->loss_sum / (double)run->loss_count : 0.0;
    polka_sim_log(
        hooks, "round %zu  samples %.0f  train loss %.4f  test %s %.4f  test loss %.4f  order %zu",
        round, samples, train_loss, run->test->classes ? "accuracy" : "mse", score, loss, order);
    return POLKA_OK;
}

static polka_status central_loop(central_run *run, size_t batch, const polka_sim_hooks *hooks,
                                 polka_sim_summary *summary) {
    const polka_config *config = run->config;
    size_t rounds = polka_sim_rounds(config, batch);
    size_t next_log = config->log_every;
    double start = polka_now();
    uint64_t g = 0;
    for (size_t t = 0; t < rounds; t++) {
        for (size_t b = 0; b < batch; b++, g++)
            polka_stream_sample(run->stream, g, run->batch.x + b * config->dim, run->batch.y + b);
        double loss = 0.0;
        POLKA_CALL(polka_learner_step(run->learner, run->batch.x, run->batch.y, batch, &loss));
        run->loss_sum += loss;
        run->loss_count++;
        if (g >= next_log || t + 1 == rounds) {
            POLKA_CALL(central_log(run, hooks, t + 1, (double)g, summary));
            run->loss_sum = 0.0;
            run->loss_count = 0;
            while (next_log <= g) next_log += config->log_every;
        }
    }
    summary->rounds = rounds;
    summary->samples = (double)g;
    summary->seconds = polka_now() - start;
    summary->samples_per_second = summary->seconds > 0 ? (double)g / summary->seconds : 0.0;
    return POLKA_OK;
}

polka_status polka_sim_run_centralized(const polka_config *config, size_t agents,
                                       const polka_sim_hooks *hooks, polka_sim_summary *summary) {
    *summary = (polka_sim_summary){.agents = 1};
    polka_learner_params params;
    POLKA_CALL(polka_sim_learner_params(config, &params));
    POLKA_CHECK(agents >= 1, POLKA_ERR_ARG, "a centralized run needs agents >= 1");
    size_t batch = config->central_batch ? config->central_batch : agents * config->batch;
    central_run run = {.config = config};
    polka_stream *stream = NULL;
    polka_dataset test = {0};
    POLKA_CALL(polka_stream_create(config, agents, config->batch, &stream));
    run.stream = stream;
    run.test = &test;
    polka_status status = polka_stream_test_set(stream, &test);
    if (status == POLKA_OK)
        status = polka_dataset_alloc(&run.batch, batch, config->dim, config->classes);
    if (status == POLKA_OK)
        status = polka_learner_create(&params, config->dim, config->classes, &run.learner);
    if (status == POLKA_OK) status = central_loop(&run, batch, hooks, summary);
    polka_learner_free(&run.learner);
    polka_dataset_free(&run.batch);
    polka_dataset_free(&test);
    polka_stream_free(&stream);
    return status;
}
