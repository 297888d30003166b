/* The decentralized method without MPI: streams, c = 0, and the effect of the penalty. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "polka/config.h"
#include "polka/sim.h"
#include "sim/driver/sim_impl.h"
#include "sim/stream/stream_impl.h"
#include "test_util.h"

static polka_config small_config(void) {
    polka_config config;
    polka_config_defaults(&config);
    polka_config_set(&config, "data.n_train", "1600");
    polka_config_set(&config, "data.n_test", "400");
    polka_config_set(&config, "run.log_every", "100000");
    polka_config_set(&config, "learner.eta", "0.3");
    return config;
}

/* The plan of config (one at a time: the streams of a test keep a pointer to it). */
static const polka_plan *plan_of(const polka_config *config) {
    static polka_plan plan;
    CHECK_OK(polka_plan_build(config, &plan));
    return &plan;
}

/* One round of all agents is the contiguous block of the network stream. */
static void test_agent_batches_tile_the_network_stream(void **state) {
    (void)state;
    polka_config config = small_config();
    const char *splits[] = {"iid", "skewed", "mixtures", "dirichlet", "shards"};
    for (size_t s = 0; s < 5; s++) {
        CHECK_OK(polka_config_set(&config, "data.split", splits[s]));
        polka_stream *stream = NULL;
        CHECK_OK(polka_stream_create(plan_of(&config), 4, 3, &stream));
        double x[3 * 2], y[3], xs[2], ys;
        for (uint64_t t = 0; t < 5; t++)
            for (size_t a = 0; a < 4; a++) {
                CHECK_OK(polka_stream_agent_batch(stream, a, t, x, y));
                for (size_t b = 0; b < 3; b++) {
                    CHECK_OK(polka_stream_sample(stream, (t * 4 + a) * 3 + b, xs, &ys));
                    assert_true(xs[0] == x[2 * b] && xs[1] == x[2 * b + 1] && ys == y[b]);
                }
            }
        polka_stream_free(&stream);
    }
}

/* Skewed: agent a sees mostly its own classes {2a, 2a+1} mod 5. */
static void test_skewed_split_favours_own_classes(void **state) {
    (void)state;
    polka_config config = small_config();
    CHECK_OK(polka_config_set(&config, "data.split", "skewed"));
    polka_stream *stream = NULL;
    CHECK_OK(polka_stream_create(plan_of(&config), 4, 1, &stream));
    size_t own = 0, total = 0;
    for (uint64_t t = 0; t < 400; t++) {
        double x[2], y;
        CHECK_OK(polka_stream_agent_batch(stream, 1, t, x, &y));
        own += y == 2.0 || y == 3.0;
        total++;
    }
    /* 0.9 from its own two classes + 0.1 × 2/5 by chance = 0.94 */
    assert_true((double)own / (double)total > 0.88);
    polka_stream_free(&stream);
}

/* The two models have the same points and weights, bit for bit (dim p, C outputs). */
static void assert_same_model(const polka_model *mine, const polka_model *theirs, size_t p,
                              size_t c) {
    size_t m = polka_model_order(mine);
    assert_int_equal(m, polka_model_order(theirs));
    assert_memory_equal(polka_model_dictionary(mine), polka_model_dictionary(theirs),
                        m * p * sizeof(double));
    assert_memory_equal(polka_model_weights(mine), polka_model_weights(theirs),
                        m * c * sizeof(double));
}

/* The serial network run of config with `agents` agents (their models), and beside it the
 * network stream and a fresh learner of the same parameters (2-D multidist, 5 classes). */
static void run_beside_lone_learner(const polka_config *config, size_t agents, polka_model **models,
                                    polka_sim_summary *summary, polka_stream **stream,
                                    polka_learner **alone) {
    const polka_plan *plan = plan_of(config);
    CHECK_OK(polka_sim_run_reference(plan, agents, NULL, summary, models));
    polka_learner_params params = plan->learner.params;
    CHECK_OK(polka_stream_create(plan, agents, plan->learner.batch, stream));
    CHECK_OK(polka_learner_create(&params, 2, 5, alone));
}

static void free_beside(polka_model **models, size_t agents, polka_stream **stream,
                        polka_learner **alone) {
    polka_learner_free(alone);
    polka_stream_free(stream);
    for (size_t a = 0; a < agents; a++) polka_model_free(&models[a]);
}

/* c = 0: agent a's model is exactly that of a lone learner on agent a's batches. */
static void test_no_penalty_means_agents_learn_alone(void **state) {
    (void)state;
    polka_config config = small_config();
    CHECK_OK(polka_config_set(&config, "net.c", "0"));
    CHECK_OK(polka_config_set(&config, "learner.batch", "2"));
    enum { AGENTS = 4 };
    polka_model *models[AGENTS];
    polka_sim_summary summary;
    polka_stream *stream = NULL;
    polka_learner *alone = NULL;
    run_beside_lone_learner(&config, AGENTS, models, &summary, &stream, &alone);
    for (uint64_t t = 0; t < summary.rounds; t++) {
        double x[4], y[2];
        CHECK_OK(polka_stream_agent_batch(stream, 2, t, x, y));
        CHECK_OK(polka_learner_step(alone, x, y, 2, NULL));
    }
    assert_same_model(polka_learner_model(alone), models[2], 2, 5);
    free_beside(models, AGENTS, &stream, &alone);
}

/* net.share = samples, c = 0, complete graph of 3: each round agent 1 learns, at its own
 * model, from its own batch and then its neighbours' (0, then 2) as one batch of 6 rows with
 * the weight η/2 of its own batch size — exactly a lone learner fed those rows. */
static void test_shared_samples_enter_the_loss(void **state) {
    (void)state;
    polka_config config = small_config();
    static const char *const settings[][2] = {{"net.c", "0"},
                                              {"net.graph", "complete"},
                                              {"net.share", "samples"},
                                              {"learner.batch", "2"}};
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++)
        CHECK_OK(polka_config_set(&config, settings[k][0], settings[k][1]));
    enum { AGENTS = 3, B = 2, ROWS = AGENTS * B, C = 5 };
    polka_model *models[AGENTS];
    polka_sim_summary summary;
    polka_stream *stream = NULL;
    polka_learner *alone = NULL;
    run_beside_lone_learner(&config, AGENTS, models, &summary, &stream, &alone);
    const size_t order[AGENTS] = {1, 0, 2}; /* own batch first, then the neighbour list */
    for (uint64_t t = 0; t < summary.rounds; t++) {
        double x[ROWS * 2], y[ROWS], f[ROWS * C], g[ROWS * C];
        for (size_t k = 0; k < AGENTS; k++)
            CHECK_OK(polka_stream_agent_batch(stream, order[k], t, x + k * B * 2, y + k * B));
        CHECK_OK(polka_learner_predict(alone, x, ROWS, f));
        polka_learner_loss_grad(alone, f, y, ROWS, g);
        CHECK_OK(polka_learner_update_batch(alone, x, ROWS, g, (double)B));
    }
    assert_true(polka_model_order(models[1]) > 0);
    assert_same_model(polka_learner_model(alone), models[1], 2, C);
    free_beside(models, AGENTS, &stream, &alone);
}

/* Raising c lowers the disagreement, monotonically over a few values. */
static void test_penalty_lowers_disagreement(void **state) {
    (void)state;
    polka_config config = small_config();
    const char *cs[] = {"0", "0.5", "1", "2", "3"};
    double previous = INFINITY;
    for (size_t k = 0; k < 5; k++) {
        CHECK_OK(polka_config_set(&config, "net.c", cs[k]));
        polka_sim_summary summary;
        CHECK_OK(polka_sim_run_reference(plan_of(&config), 8, NULL, &summary, NULL));
        print_message("c = %s: disagreement %.4g, mean accuracy %.4f\n", cs[k],
                      summary.disagreement, summary.mean_score);
        assert_true(summary.disagreement < previous);
        previous = summary.disagreement;
    }
}

/* The stability bound is checked before anything runs. */
static void test_unstable_penalty_is_refused(void **state) {
    (void)state;
    polka_config config = small_config();
    CHECK_OK(polka_config_set(&config, "net.graph", "complete"));
    CHECK_OK(polka_config_set(&config, "net.weights", "uniform"));
    CHECK_OK(polka_config_set(&config, "net.c", "1"));
    polka_sim_summary summary;
    /* η c Σ_j w_ij = 0.3 · 1 · 5 */
    assert_int_equal(polka_sim_run_reference(plan_of(&config), 6, NULL, &summary, NULL),
                     POLKA_ERR_ARG);
    assert_non_null(strstr(polka_error_message(), "unstable penalty step"));
    assert_non_null(strstr(polka_error_message(), "1.5"));
}

/* A multidist sample of 1000 rows (5 classes) as a LIBSVM file at path, the training and test
 * files of config. */
static void use_file_source(polka_config *config, char *path) {
    polka_multidist_params params = polka_stream_multidist_params(plan_of(config));
    polka_multidist *gen = NULL;
    CHECK_OK(polka_multidist_create(&params, &gen));
    polka_dataset data;
    CHECK_OK(polka_dataset_alloc(&data, 1000, 2, 5));
    polka_multidist_fill(gen, POLKA_STREAM_TRAIN, 0, &data);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    CHECK_OK(polka_dataset_write_libsvm(&data, path));
    polka_dataset_free(&data);
    polka_multidist_free(&gen);
    CHECK_OK(polka_config_set(config, "data.source", "file"));
    CHECK_OK(polka_config_set(config, "data.train", path));
    CHECK_OK(polka_config_set(config, "data.test", path));
    CHECK_OK(polka_config_set(config, "data.format", "libsvm"));
}

/* Agent 1's batches of every round (125 of 4 agents × batch 2) equal in both streams. */
static void assert_same_batches(const polka_stream *one, const polka_stream *all) {
    for (uint64_t t = 0; t < 125; t++) {
        double x1[4], y1[2], x2[4], y2[2];
        CHECK_OK(polka_stream_agent_batch(one, 1, t, x1, y1));
        CHECK_OK(polka_stream_agent_batch(all, 1, t, x2, y2));
        assert_memory_equal(x1, x2, sizeof x1);
        assert_memory_equal(y1, y2, sizeof y1);
    }
}

/* A file source read for one agent holds only that agent's share of the training rows. */
static void test_file_stream_holds_only_its_share(void **state) {
    (void)state;
    polka_config config = small_config();
    char path[] = "/tmp/polka_share_XXXXXX";
    use_file_source(&config, path);
    polka_stream *one = NULL, *all = NULL;
    const polka_plan *plan = plan_of(&config);
    const size_t agent_one = 1;
    CHECK_OK(polka_stream_create_for(plan, 4, 2, &agent_one, 1, NULL, &one));
    CHECK_OK(polka_stream_create(plan, 4, 2, &all));
    assert_int_equal(polka_stream_rows_held(one), 250);
    assert_int_equal(polka_stream_rows_held(all), 1000);
    assert_int_equal(polka_stream_facts(one)->n_train, 1000);
    /* the share is exactly what agent 1 draws, identical to the full stream's samples */
    assert_same_batches(one, all);
    double x[4], y[2];
    assert_int_equal(polka_stream_agent_batch(one, 2, 0, x, y), POLKA_ERR_ARG); /* not its rows */
    polka_stream_free(&one);
    polka_stream_free(&all);
    remove(path);
}

/* With a class split, one agent's file stream holds at most the rows it draws (250 samples
 * of its classes' rows, drawn with replacement), and draws them as the full stream does. */
static void test_file_class_split_holds_only_its_draws(void **state) {
    (void)state;
    polka_config config = small_config();
    char path[] = "/tmp/polka_class_share_XXXXXX";
    use_file_source(&config, path);
    const char *splits[][2] = {{"data.split", "dirichlet"}, {"data.alpha", "0.1"},
                               {"data.split", "shards"},    {"data.shards", "2"},
                               {"data.split", "skewed"},    {"data.skew_fraction", "0.8"}};
    for (size_t k = 0; k < 3; k++) {
        CHECK_OK(polka_config_set(&config, splits[2 * k][0], splits[2 * k][1]));
        CHECK_OK(polka_config_set(&config, splits[2 * k + 1][0], splits[2 * k + 1][1]));
        const polka_plan *plan = plan_of(&config);
        polka_stream *one = NULL, *all = NULL;
        const size_t agent_one = 1;
        CHECK_OK(polka_stream_create_for(plan, 4, 2, &agent_one, 1, NULL, &one));
        CHECK_OK(polka_stream_create(plan, 4, 2, &all));
        assert_int_equal(polka_stream_rows_held(all), 1000);
        assert_true(polka_stream_rows_held(one) > 0 && polka_stream_rows_held(one) <= 250);
        assert_same_batches(one, all);
        /* the other agents draw rows this stream never read */
        polka_status status = POLKA_OK;
        double x[4], y[2];
        for (uint64_t t = 0; t < 125 && status == POLKA_OK; t++)
            status = polka_stream_agent_batch(one, 2, t, x, y);
        assert_int_equal(status, POLKA_ERR_ARG);
        assert_non_null(strstr(polka_error_message(), "was not read by this rank"));
        polka_stream_free(&one);
        polka_stream_free(&all);
    }
    remove(path);
}

/* A model with a non-finite number ends the run with an error naming the agent, never exit 0. */
static void test_non_finite_model_is_an_error(void **state) {
    (void)state;
    polka_kernel kernel = {.kind = POLKA_KERNEL_GAUSSIAN, .sigma = 1.0};
    polka_model *model = NULL;
    CHECK_OK(polka_model_create(&kernel, 2, 1, &model));
    double x[4] = {0.0, 1.0, 2.0, 3.0}, w[2] = {0.5, -0.25};
    CHECK_OK(polka_model_append(model, x, 2, w));
    CHECK_OK(polka_plan_check_finite(model, 3));
    double bad_x[2] = {1.0, 1.0}, bad_w[1] = {NAN};
    CHECK_OK(polka_model_append(model, bad_x, 1, bad_w));
    assert_int_equal(polka_plan_check_finite(model, 3), POLKA_ERR_NUMERIC);
    assert_non_null(strstr(polka_error_message(), "agent 3's model has a non-finite number"));
    polka_model_free(&model);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agent_batches_tile_the_network_stream),
        cmocka_unit_test(test_skewed_split_favours_own_classes),
        cmocka_unit_test(test_no_penalty_means_agents_learn_alone),
        cmocka_unit_test(test_shared_samples_enter_the_loss),
        cmocka_unit_test(test_penalty_lowers_disagreement),
        cmocka_unit_test(test_unstable_penalty_is_refused),
        cmocka_unit_test(test_file_stream_holds_only_its_share),
        cmocka_unit_test(test_file_class_split_holds_only_its_draws),
        cmocka_unit_test(test_non_finite_model_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
