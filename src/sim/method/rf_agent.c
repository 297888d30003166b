/* What the random-feature methods share (rf_impl.h). */
#include "sim/method/rf_impl.h"

#include <stdlib.h>
#include <string.h>

#include "polka/loss.h"
#include "sim/plan/plan_impl.h"

/* The features, drawn once per process for the run's (seed, D, p, σ) and shared by its agents:
 * Ω is D×p doubles, too many to keep one per agent. */
static struct {
    polka_rff rff;
    size_t users;
} features_cache;

static polka_status features_take(const polka_plan *plan, size_t dim, const polka_rff **out) {
    polka_rff *rff = &features_cache.rff;
    size_t features = plan->settings.features;
    double sigma = plan->learner.params.kernel.sigma;
    int same = rff->omega && rff->features == features && rff->dim == dim && rff->sigma == sigma &&
               rff->seed == plan->run.seed;
    if (!same) {
        POLKA_CHECK(features_cache.users == 0, POLKA_ERR_ARG,
                    "random features of two settings at once in one process");
        polka_rff_free(rff);
        POLKA_CALL(polka_rff_draw(features, dim, sigma, plan->run.seed, rff));
    }
    features_cache.users++;
    *out = rff;
    return POLKA_OK;
}

/* The features of the data set a log step scores, mapped once for all the process's agents
 * (each agent's values are then one product Zθ): the key is the data set, its rows, its size
 * and the round (a drifting test set changes between log steps, never within one). */
static struct {
    const polka_dataset *data;
    const double *x;
    size_t n;
    uint64_t round;
    double *z;
} test_cache;

/* Scored sets larger than this many features (doubles) are mapped agent by agent. */
#define TEST_CACHE_LIMIT ((size_t)1 << 25)

static void test_cache_clear(void) {
    free(test_cache.z);
    memset(&test_cache, 0, sizeof test_cache);
}

static void features_give_back(void) {
    if (features_cache.users > 0 && --features_cache.users == 0) {
        polka_rff_free(&features_cache.rff);
        test_cache_clear();
    }
}

void polka_rf_layout(const polka_plan *plan, const polka_data_facts *facts, size_t outputs,
                     polka_block_layout layout[2]) {
    (void)facts;
    layout[0] = (polka_block_layout){.rows = 1, .parts = 1};
    layout[0].part[0].kind = POLKA_MSG_VECTORS;
    layout[0].part[0].len = plan->settings.features * outputs;
    layout[1] = (polka_block_layout){0}; /* one phase */
}

polka_status polka_rf_check(const polka_plan *plan) {
    const char *name = plan->settings.method;
    POLKA_CHECK(plan->fault.delay == 0, POLKA_ERR_ARG,
                "fault.delay applies to the penalty method's values; net.method = %s uses each "
                "neighbour's last variable heard, late or lost",
                name);
    POLKA_CHECK(!plan->fault.renormalise, POLKA_ERR_ARG,
                "fault.renormalise applies to the penalty method; net.method = %s keeps each "
                "neighbour's last variable heard",
                name);
    POLKA_CHECK(plan->learner.params.kernel.kind == POLKA_KERNEL_GAUSSIAN, POLKA_ERR_ARG,
                "net.method = %s: random Fourier features need learner.kernel = gaussian", name);
    POLKA_CHECK(plan->settings.features * plan->settings.features <= ((size_t)1 << 34),
                POLKA_ERR_ARG, "net.features = %zu: at most 131072", plan->settings.features);
    POLKA_CHECK(strcmp(plan->settings.rf_solve, "linear") == 0 ||
                    strcmp(plan->settings.rf_solve, "exact") == 0,
                POLKA_ERR_ARG, "net.rf_solve = %s: linear | exact", plan->settings.rf_solve);
    POLKA_CHECK(plan->learner.params.eta > 0, POLKA_ERR_ARG,
                "net.method = %s: learner.eta must be positive", name);
    return POLKA_OK;
}

static polka_status alloc_neighbours(polka_agent *agent) {
    polka_rf *rf = polka_rf_of(agent);
    size_t slots = agent->degree ? agent->degree : 1;
    rf->nbr = calloc(slots * rf->len, sizeof *rf->nbr);
    rf->nbr_vars = malloc(slots * sizeof *rf->nbr_vars);
    POLKA_CHECK(rf->nbr && rf->nbr_vars, POLKA_ERR_MEM, "out of memory for agent %zu", agent->id);
    for (size_t k = 0; k < agent->degree; k++) rf->nbr_vars[k] = rf->nbr + k * rf->len;
    return POLKA_OK;
}

static polka_status window_alloc(polka_agent *agent, const polka_plan *plan,
                                 const polka_data_facts *facts);

static polka_status alloc_arrays(polka_agent *agent) {
    polka_rf *rf = polka_rf_of(agent);
    size_t len = rf->len, b = agent->batch;
    rf->theta = calloc(len, sizeof *rf->theta);
    rf->shared = calloc(len, sizeof *rf->shared);
    rf->gamma = calloc(len, sizeof *rf->gamma);
    rf->next = calloc(len, sizeof *rf->next);
    rf->f = malloc(b * agent->outputs * sizeof *rf->f);
    POLKA_CHECK(rf->theta && rf->shared && rf->gamma && rf->next && rf->f, POLKA_ERR_MEM,
                "out of memory for agent %zu's random-feature model", agent->id);
    return alloc_neighbours(agent);
}

polka_status polka_rf_init(polka_agent *agent, const polka_plan *plan,
                           const polka_data_facts *facts) {
    polka_rf *rf = calloc(1, sizeof *rf);
    POLKA_CHECK(rf, POLKA_ERR_MEM, "out of memory for agent %zu", agent->id);
    agent->state = rf;
    POLKA_CALL(features_take(plan, facts->dim, &rf->features));
    rf->problem = (polka_rff_problem){.features = plan->settings.features,
                                      .outputs = agent->outputs,
                                      .loss = plan->learner.params.loss,
                                      .lambda = plan->learner.params.lambda};
    rf->len = rf->problem.features * agent->outputs;
    rf->classes = facts->classes;
    rf->eta = plan->learner.params.eta;
    rf->rho = plan->settings.admm_rho;
    rf->consensus_step = plan->settings.codec_gamma;
    /* net.rf_solve is dkla's and coke's primal step (its owner); rf-diffusion has none (the
     * idle-key warning says so) */
    rf->exact = strcmp(plan->settings.rf_solve, "exact") == 0 &&
                strcmp(agent->method->name, "rf-diffusion") != 0;
    if (rf->exact) POLKA_CALL(polka_rff_check_square(&rf->problem, "net.rf_solve = exact"));
    POLKA_CALL(alloc_arrays(agent));
    return window_alloc(agent, plan, facts);
}

void polka_rf_free(polka_agent *agent) {
    polka_rf *rf = polka_rf_of(agent);
    if (rf == NULL) return;
    if (rf->features) features_give_back();
    free(rf->theta);
    free(rf->shared);
    free(rf->gamma);
    free(rf->next);
    free(rf->nbr);
    free(rf->nbr_vars);
    free(rf->x);
    free(rf->y);
    free(rf->z);
    free(rf->f);
    polka_dkla_exact_free(&rf->solver);
    free(rf);
    agent->state = NULL;
}

/* A neighbour that stays keeps its last variable; a new one starts from 0 (never heard). */
polka_status polka_rf_rewire(polka_agent *agent, const size_t *old_neighbors, size_t old_degree) {
    polka_rf *rf = polka_rf_of(agent);
    double *old = rf->nbr;
    free(rf->nbr_vars);
    rf->nbr = NULL, rf->nbr_vars = NULL;
    polka_status status = alloc_neighbours(agent);
    for (size_t k = 0; k < agent->degree && status == POLKA_OK; k++)
        for (size_t o = 0; o < old_degree; o++)
            if (old_neighbors[o] == agent->neighbors[k])
                memcpy(rf->nbr + k * rf->len, old + o * rf->len, rf->len * sizeof *old);
    free(old);
    return status;
}

polka_status polka_rf_predict(const polka_agent *agent, const double *x, size_t n, double *f) {
    const polka_rf *rf = polka_rf_of(agent);
    return polka_rff_predict(rf->features, rf->theta, agent->outputs, x, n, f);
}

double polka_rf_score(const polka_agent *agent, const double *f, const double *y, size_t n,
                      double *loss) {
    const polka_rf *rf = polka_rf_of(agent);
    return polka_loss_score(&rf->problem.loss, rf->classes, f, y, n, NULL, loss);
}

static polka_status map_rows(const void *rff, const double *x, size_t n, double *z) {
    polka_rff_map(rff, x, n, z);
    return POLKA_OK;
}

static polka_status agent_rows(const void *agent, const double *x, size_t n, double *f) {
    return polka_rf_predict(agent, x, n, f);
}

polka_status polka_rf_test_values(const polka_agent *agent, const polka_dataset *data, double *f) {
    const polka_rf *rf = polka_rf_of(agent);
    size_t d = rf->problem.features;
    if (data->n * d > TEST_CACHE_LIMIT)
        return polka_dataset_eval(data, agent->outputs, agent_rows, agent, f);
    int same = test_cache.z && test_cache.data == data && test_cache.x == data->x &&
               test_cache.n == data->n && test_cache.round == agent->round;
    if (!same) {
        test_cache_clear();
        test_cache.z = malloc((data->n ? data->n : 1) * d * sizeof *test_cache.z);
        POLKA_CHECK(test_cache.z, POLKA_ERR_MEM, "out of memory for the test set's features");
        POLKA_CALL(polka_dataset_eval(data, d, map_rows, rf->features, test_cache.z));
        test_cache.data = data;
        test_cache.x = data->x;
        test_cache.n = data->n;
        test_cache.round = agent->round;
    }
    polka_rff_values(test_cache.z, data->n, d, rf->theta, agent->outputs, f);
    return POLKA_OK;
}

size_t polka_rf_order(const polka_agent *agent) {
    return polka_rf_of(agent)->problem.features;
}

/* θ as the linear model on the features (p = D): C points θ_{·c}, weights I, so that
 * f_c(z) = θ_{·c}ᵀ z — the agent's model bit for bit, for the finiteness check and the
 * drivers' copies (the run file holds the features and θ: runfile_rff.c). */
polka_status polka_rf_model(const polka_agent *agent, polka_model **out) {
    const polka_rf *rf = polka_rf_of(agent);
    size_t d = rf->problem.features, c = agent->outputs;
    polka_kernel linear = {.kind = POLKA_KERNEL_LINEAR, .sigma = 1.0};
    double *points = malloc(c * d * sizeof *points), *weights = calloc(c * c, sizeof *weights);
    polka_status status = points && weights ? polka_model_create(&linear, d, c, out)
                                            : polka_error_set(POLKA_ERR_MEM, "out of memory");
    for (size_t o = 0; o < c && status == POLKA_OK; o++) {
        for (size_t k = 0; k < d; k++) points[o * d + k] = rf->theta[k * c + o];
        weights[o * c + o] = 1.0;
    }
    if (status == POLKA_OK) status = polka_model_assign(*out, points, weights, c);
    free(points);
    free(weights);
    return status;
}

/* An agent maps the batches of several rounds in one product. polka_rff_map reads all of Ω
 * (D×p) whatever its rows, and OpenBLAS packs it whole for every product: with D = 4 000 and
 * p = 784 a row costs about 1 000 µs in a product of 2 rows and 205 µs in one of 32
 * (build/bench_rff_map). The window of round t is the rounds [t − t mod W, t − t mod W + W) of
 * the agent's stream, cut at the last round the run plays (a file source holds only the rows
 * of those rounds): a function of (agent, round) and the settings alone, so the same products
 * on any number of ranks and after a resume. Rounds it does not learn in are mapped too; a
 * round past the run's (an agent of the events engine that runs ahead) is mapped alone. */
#define WINDOW_ROWS 32
/* The windows of all the run's agents take at most this many bytes (x, y and z); beyond it
 * W shrinks, to 1 (a round at a time) for the largest networks. */
#define WINDOW_BUDGET ((size_t)256 << 20)

size_t polka_rf_window_rounds(size_t agents, size_t batch, size_t features, size_t dim) {
    size_t rounds = (WINDOW_ROWS + batch - 1) / batch;
    size_t per_round = agents * batch * (features + dim + 1) * sizeof(double);
    size_t fit = WINDOW_BUDGET / per_round;
    if (fit < rounds) rounds = fit;
    return rounds > 0 ? rounds : 1;
}

/* The window's rounds and the arrays it is drawn and mapped into. */
static polka_status window_alloc(polka_agent *agent, const polka_plan *plan,
                                 const polka_data_facts *facts) {
    polka_rf *rf = polka_rf_of(agent);
    size_t b = agent->batch, d = rf->problem.features, p = agent->dim;
    size_t agents = polka_graph_nodes(agent->graph), w;
    rf->window_rounds = w = polka_rf_window_rounds(agents, b, d, p);
    rf->run_rounds = polka_method_run_rounds(agent, plan, facts);
    rf->x = malloc(w * b * p * sizeof *rf->x);
    rf->y = malloc(w * b * sizeof *rf->y);
    rf->z = malloc(w * b * d * sizeof *rf->z);
    POLKA_CHECK(rf->x && rf->y && rf->z, POLKA_ERR_MEM,
                "out of memory for agent %zu's batches (%zu rounds of %zu features)", agent->id, w,
                d);
    return POLKA_OK;
}

/* The window holding agent->round, drawn and mapped unless it already is. */
static polka_status window_map(polka_agent *agent, const polka_stream *stream) {
    polka_rf *rf = polka_rf_of(agent);
    size_t b = agent->batch, p = agent->dim;
    uint64_t t = agent->round, first = t - t % rf->window_rounds;
    uint64_t end = first + rf->window_rounds;
    if (end > rf->run_rounds) end = rf->run_rounds;
    if (t >= end) first = t, end = t + 1; /* past the run's rounds */
    if (!(rf->window_end > 0 && rf->window_first <= t && t < rf->window_end)) {
        rf->window_end = 0; /* nothing mapped until the whole window is */
        for (uint64_t r = first; r < end; r++)
            POLKA_CALL(polka_stream_agent_batch(stream, agent->id, r, rf->x + (r - first) * b * p,
                                                rf->y + (r - first) * b));
        polka_rff_map(rf->features, rf->x, (size_t)(end - first) * b, rf->z);
        rf->window_first = first;
        rf->window_end = end;
    }
    rf->batch_at = (size_t)(t - rf->window_first) * b;
    return POLKA_OK;
}

polka_status polka_rf_draw_batch(polka_agent *agent, const polka_stream *stream) {
    polka_rf *rf = polka_rf_of(agent);
    rf->batch_n = 0;
    if (!agent->this_round.learns) return POLKA_OK;
    double start = polka_now();
    size_t b = agent->batch, c = agent->outputs;
    POLKA_CALL(window_map(agent, stream));
    rf->batch_n = b;
    polka_rff_batch batch = polka_rf_batch(agent);
    /* the online error and loss of θ_i on the batch before it learns from it */
    double *f = rf->f;
    polka_rff_values(batch.z, b, rf->problem.features, rf->theta, c, f);
    double loss = 0.0;
    for (size_t r = 0; r < b; r++)
        loss += polka_loss_eval(&rf->problem.loss, f + r * c, c, batch.y[r], NULL);
    agent->counters.train_loss_sum += loss / (double)b;
    agent->counters.train_loss_count += 1.0;
    polka_online_error_add_values(&agent->counters, agent->classification, &rf->problem.loss,
                                  rf->classes, f, batch.y, b);
    agent->counters.time_compute += polka_now() - start;
    return POLKA_OK;
}

polka_rff_batch polka_rf_batch(const polka_agent *agent) {
    const polka_rf *rf = polka_rf_of(agent);
    if (rf->batch_n == 0) return (polka_rff_batch){0};
    return (polka_rff_batch){.z = rf->z + rf->batch_at * rf->problem.features,
                             .y = rf->y + rf->batch_at,
                             .n = rf->batch_n};
}

polka_rff_neighbours polka_rf_neighbours(polka_agent *agent) {
    polka_rf *rf = polka_rf_of(agent);
    for (size_t k = 0; k < agent->degree; k++)
        if (agent->in_point[k])
            memcpy(rf->nbr + k * rf->len, agent->received + k * agent->send_block,
                   rf->len * sizeof *rf->nbr);
    return (polka_rff_neighbours){
        .count = agent->degree, .vars = rf->nbr_vars, .weight = agent->weights};
}

polka_status polka_rf_admm_primal(polka_agent *agent) {
    polka_rf *rf = polka_rf_of(agent);
    polka_rff_batch batch = polka_rf_batch(agent);
    polka_rff_neighbours nb = {.count = agent->degree, .vars = rf->nbr_vars};
    if (!rf->exact)
        return polka_dkla_primal_linearized(&rf->problem, &batch, rf->rho, rf->eta, rf->theta,
                                            rf->shared, rf->gamma, &nb, rf->next);
    if (rf->solver.vectors == NULL && batch.n > 0) /* the agent's fixed data: its first batch */
        POLKA_CALL(polka_dkla_exact_init(&rf->problem, &batch, &rf->solver));
    if (rf->solver.vectors == NULL) { /* no data yet: θ stays */
        memcpy(rf->next, rf->theta, rf->len * sizeof *rf->next);
        return POLKA_OK;
    }
    return polka_dkla_exact_primal(&rf->solver, &rf->problem, rf->rho, rf->shared, rf->gamma, &nb,
                                   rf->next);
}

/* The agent's variables, its neighbours' last ones (the neighbours must be those it had when
 * it was saved, as for late values) and, net.rf_solve = exact, its decomposition. */
polka_status polka_rf_save(const polka_agent *agent, polka_state *state) {
    const polka_rf *rf = polka_rf_of(agent);
    size_t len = rf->len, d = rf->problem.features, slots = agent->degree ? agent->degree : 1;
    POLKA_CALL(polka_state_put_ref(state, "rf.theta", POLKA_STATE_F64, rf->theta, len));
    POLKA_CALL(polka_state_put_ref(state, "rf.shared", POLKA_STATE_F64, rf->shared, len));
    POLKA_CALL(polka_state_put_ref(state, "rf.gamma", POLKA_STATE_F64, rf->gamma, len));
    POLKA_CALL(polka_state_put_ref(state, "rf.neighbours", POLKA_STATE_F64, rf->nbr, slots * len));
    if (rf->solver.vectors) {
        POLKA_CALL(polka_state_put_ref(state, "rf.exact.vectors", POLKA_STATE_F64,
                                       rf->solver.vectors, d * d));
        POLKA_CALL(
            polka_state_put_ref(state, "rf.exact.values", POLKA_STATE_F64, rf->solver.values, d));
        POLKA_CALL(polka_state_put_ref(state, "rf.exact.rhs", POLKA_STATE_F64, rf->solver.rhs, d));
    }
    if (agent->async) /* saved within an update: its new variable (rf-diffusion's psi) */
        POLKA_CALL(polka_state_put_ref(state, "rf.next", POLKA_STATE_F64, rf->next, len));
    return polka_counters_save(&agent->counters, state);
}

static polka_status restore_solver(polka_rf *rf, const polka_state *state) {
    size_t d = rf->problem.features, count = 0;
    if (polka_state_size(state, "rf.exact.vectors", &count) != POLKA_OK) {
        polka_error_clear();
        return POLKA_OK; /* saved before its first batch */
    }
    rf->solver.features = d;
    rf->solver.vectors = malloc(d * d * sizeof(double));
    rf->solver.values = malloc(d * sizeof(double));
    rf->solver.rhs = malloc(d * sizeof(double));
    POLKA_CHECK(rf->solver.vectors && rf->solver.values && rf->solver.rhs, POLKA_ERR_MEM,
                "out of memory for the exact solver");
    POLKA_CALL(
        polka_state_get(state, "rf.exact.vectors", POLKA_STATE_F64, rf->solver.vectors, d * d));
    POLKA_CALL(polka_state_get(state, "rf.exact.values", POLKA_STATE_F64, rf->solver.values, d));
    return polka_state_get(state, "rf.exact.rhs", POLKA_STATE_F64, rf->solver.rhs, d);
}

polka_status polka_rf_restore(polka_agent *agent, const polka_state *state) {
    polka_rf *rf = polka_rf_of(agent);
    size_t len = rf->len, slots = agent->degree ? agent->degree : 1;
    POLKA_CALL(polka_state_get(state, "rf.theta", POLKA_STATE_F64, rf->theta, len));
    POLKA_CALL(polka_state_get(state, "rf.shared", POLKA_STATE_F64, rf->shared, len));
    POLKA_CALL(polka_state_get(state, "rf.gamma", POLKA_STATE_F64, rf->gamma, len));
    POLKA_CALL(polka_state_get(state, "rf.neighbours", POLKA_STATE_F64, rf->nbr, slots * len));
    if (rf->exact) POLKA_CALL(restore_solver(rf, state));
    if (agent->async) POLKA_CALL(polka_state_get(state, "rf.next", POLKA_STATE_F64, rf->next, len));
    return polka_counters_restore(&agent->counters, state);
}

polka_status polka_rf_write_models(polka_runfile *h5, const polka_agent *agents, const size_t *ids,
                                   size_t count) {
    const double **theta = malloc((count ? count : 1) * sizeof *theta);
    POLKA_CHECK(theta, POLKA_ERR_MEM, "out of memory");
    for (size_t a = 0; a < count; a++) theta[a] = polka_rf_of(&agents[a])->theta;
    const polka_rf *rf = polka_rf_of(&agents[0]); /* every rank has an agent */
    polka_status status =
        polka_runfile_write_rff_models(h5, rf->features, agents[0].outputs, ids, count, theta);
    free(theta);
    return status;
}
