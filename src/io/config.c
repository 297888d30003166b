#include "polka/config.h"

#include "io/config_file_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY(sec, field, type, def, help)                                                           \
    {                                                                                              \
        sec "." #field, type, offsetof(polka_config, field), sizeof(((polka_config *)0)->field),   \
            def, help                                                                              \
    }

static const polka_config_key config_keys[] = {
    KEY("run", mode, POLKA_KEY_STRING, "decentralized",
        "decentralized (net.agents agents on the ranks) | centralized (one agent, the union of "
        "the streams)"),
    KEY("run", seed, POLKA_KEY_U64, "1", "seed of every random stream of the run"),
    KEY("run", passes, POLKA_KEY_DOUBLE, "1", "passes over the training set"),
    KEY("run", log_every, POLKA_KEY_SIZE, "250", "training samples (all agents) between log steps"),
    KEY("run", log_test, POLKA_KEY_SIZE, "0",
        "test points scored at the log steps before the last (the first ones of the test set); "
        "0: all. The last log step scores the whole test set"),
    KEY("run", output, POLKA_KEY_STRING, "", "run file to write (HDF5); empty: none"),
    KEY("run", csv, POLKA_KEY_STRING, "", "per-agent metrics as CSV (rank 0 writes); empty: none"),
    KEY("run", watchdog, POLKA_KEY_DOUBLE, "0",
        "seconds a rank waits in a round's collectives before the run ends naming the ranks "
        "that stopped; 0: forever"),
    KEY("run", central_batch, POLKA_KEY_SIZE, "0",
        "centralized mini-batch; 0: the union of one round (agents x learner.batch)"),
    KEY("run", checkpoint, POLKA_KEY_STRING, "",
        "checkpoint file (written on SIGTERM, SIGINT, SIGUSR1 and periodically; polka run --resume "
        "FILE goes on from it); empty: run.output + .ckpt, or polka.ckpt without run.output"),
    KEY("run", checkpoint_every, POLKA_KEY_SIZE, "0",
        "rounds between periodic checkpoints; 0: none"),
    KEY("run", checkpoint_seconds, POLKA_KEY_DOUBLE, "0",
        "seconds (wall clock) between periodic checkpoints; 0: none"),
    KEY("data", source, POLKA_KEY_STRING, "multidist",
        "data source, generated or file (data.train, data.test); the sources are listed below"),
    KEY("data", board, POLKA_KEY_SIZE, "4",
        "checkerboard: cells per side of the board [0, board)^2 (labels alternate by cell)"),
    KEY("data", snr_db, POLKA_KEY_DOUBLE, "10",
        "sinc: signal-to-noise ratio of the training targets (dB)"),
    KEY("data", noise_std, POLKA_KEY_DOUBLE, "1", "friedman: noise standard deviation"),
    KEY("data", train, POLKA_KEY_STRING, "",
        "file source: training file (IDX images, LIBSVM or CSV)"),
    KEY("data", train_labels, POLKA_KEY_STRING, "", "file source, IDX: training labels file"),
    KEY("data", test, POLKA_KEY_STRING, "", "file source: test file"),
    KEY("data", test_labels, POLKA_KEY_STRING, "", "file source, IDX: test labels file"),
    KEY("data", format, POLKA_KEY_STRING, "auto",
        "file source: auto (by name: *idx*-ubyte[.gz] idx, *.csv csv, else libsvm) | idx | libsvm "
        "| csv"),
    KEY("data", label_column, POLKA_KEY_STRING, "label", "file source, CSV: the label column"),
    KEY("data", scale, POLKA_KEY_STRING, "none",
        "file source: none | unit ([0,1] by training min/max) | standard (training mean/std)"),
    KEY("data", storage, POLKA_KEY_STRING, "auto",
        "file source, LIBSVM: dense | sparse | auto (sparse when smaller: about a third of the "
        "values absent or more)"),
    KEY("data", memory, POLKA_KEY_STRING, "auto",
        "file source: the memory a rank's data may take (e.g. 2G, 512M, bytes), or auto: the "
        "node's available memory (MemAvailable, the cgroup's and the Slurm job's limits) shared "
        "by the ranks on the node"),
    KEY("data", classes, POLKA_KEY_SIZE, "5", "multidist: classes"),
    KEY("data", components, POLKA_KEY_SIZE, "3", "multidist: mixture components per class"),
    KEY("data", dim, POLKA_KEY_SIZE, "2", "multidist: input dimension"),
    KEY("data", mean_var, POLKA_KEY_DOUBLE, "1.0", "multidist: variance of the component means"),
    KEY("data", sample_var, POLKA_KEY_DOUBLE, "0.2", "multidist: variance of a sample"),
    KEY("data", means_seed, POLKA_KEY_U64, "7", "multidist: seed of the component means"),
    KEY("data", n_train, POLKA_KEY_SIZE, "5000", "training samples (all agents together)"),
    KEY("data", n_test, POLKA_KEY_SIZE, "2500", "test samples"),
    KEY("data", split, POLKA_KEY_STRING, "iid",
        "how the stream reaches the agents; the splits each source takes are listed below"),
    KEY("data", skew_classes, POLKA_KEY_SIZE, "2", "skewed split: classes each agent mostly sees"),
    KEY("data", skew_fraction, POLKA_KEY_DOUBLE, "0.9",
        "skewed split: fraction of an agent's samples from its own classes"),
    KEY("data", alpha, POLKA_KEY_DOUBLE, "1",
        "dirichlet split: concentration; agent a's class proportions ~ Dir(alpha) (large: iid, "
        "0.1: severe)"),
    KEY("data", shards, POLKA_KEY_SIZE, "2",
        "shards split: classes per agent (a seeded shuffle of the classes dealt round-robin)"),
    KEY("data", quantity_sigma, POLKA_KEY_DOUBLE, "0",
        "quantity skew (any split): agent a's rate r_a ~ lognormal(0, sigma^2), mean 1; it "
        "learns its batch in a round with probability r_a / max r; 0 = off"),
    KEY("data", drift, POLKA_KEY_DOUBLE, "0",
        "drifting stream (multidist, sinc): radians per training sample by which the classes "
        "rotate (multidist) or the peak circles (sinc); the test set follows; 0 = off"),
    KEY("learner", kernel, POLKA_KEY_STRING, "gaussian",
        "gaussian | laplacian | polynomial | linear"),
    KEY("learner", sigma, POLKA_KEY_DOUBLE, "0.6", "kernel bandwidth (polynomial: scale)"),
    KEY("learner", degree, POLKA_KEY_SIZE, "3", "polynomial kernel degree"),
    KEY("learner", coef0, POLKA_KEY_DOUBLE, "1", "polynomial kernel offset"),
    KEY("learner", loss, POLKA_KEY_STRING, "multi-hinge",
        "multi-hinge | multi-logistic | hinge | logistic | square | absolute | eps-insensitive | "
        "soft-margin | novelty | huber"),
    KEY("learner", loss_epsilon, POLKA_KEY_DOUBLE, "0.1", "eps-insensitive loss: tube width"),
    KEY("learner", control, POLKA_KEY_STRING, "komp",
        "model-order control: komp (POLK) | none (plain SGD) | norma | bsgd-remove | bsgd-project "
        "| bsgd-merge | nbsgd-remove | nbsgd-project; batch regression learners (centralized, "
        "square loss): slkl (paper 002) | krr (exact kernel ridge regression)"),
    KEY("learner", eta, POLKA_KEY_DOUBLE, "0.5", "constant step size"),
    KEY("learner", lambda, POLKA_KEY_DOUBLE, "1e-4", "regulariser"),
    KEY("learner", kp, POLKA_KEY_DOUBLE, "0.04", "parsimony constant: budget = kp * eta^1.5"),
    KEY("learner", epsilon, POLKA_KEY_DOUBLE, "-1", "KOMP budget; < 0: from kp"),
    KEY("learner", jitter, POLKA_KEY_DOUBLE, "1e-10", "relative jitter on the kernel diagonal"),
    KEY("learner", batch, POLKA_KEY_SIZE, "1", "mini-batch per agent and round"),
    KEY("learner", schedule, POLKA_KEY_STRING, "constant",
        "step sizes: constant (eta) | invsqrt (eta/sqrt(t)) | pegasos (1/(lambda t)) | linear "
        "(eta (1 - t/T) over the run's T updates)"),
    KEY("learner", tau, POLKA_KEY_SIZE, "1000", "control norma: the newest terms kept"),
    KEY("learner", budget, POLKA_KEY_SIZE, "100",
        "controls bsgd-*, nbsgd-*: at most this many points"),
    KEY("learner", beta, POLKA_KEY_DOUBLE, "1000",
        "controls nbsgd-*: maintenance with probability min(beta/t, 1)"),
    KEY("learner", neighbours, POLKA_KEY_SIZE, "0",
        "controls *-project: project onto the k nearest points; 0 = all"),
    KEY("learner", nu, POLKA_KEY_DOUBLE, "0",
        "nu-trick: adapt rho / the tube so about a fraction nu are margin errors; 0 = off"),
    KEY("learner", offset, POLKA_KEY_SIZE, "0", "1 = learn an unregularised offset b"),
    KEY("learner", suffix, POLKA_KEY_DOUBLE, "0",
        "controls bsgd-*, nbsgd-*: average the last fraction of the iterates; 0 = last iterate"),
    KEY("learner", rho, POLKA_KEY_DOUBLE, "1",
        "soft-margin loss: margin rho (0 = perceptron); novelty: threshold"),
    KEY("learner", delta, POLKA_KEY_DOUBLE, "1", "huber loss: delta"),
    KEY("learner", candidates, POLKA_KEY_SIZE, "0",
        "slkl: M, the training points that carry a rank-1 kernel; 0 = all"),
    KEY("learner", tol, POLKA_KEY_DOUBLE, "1e-4",
        "slkl: stop when F fell by less than this fraction over the last M updates"),
    KEY("learner", max_iter, POLKA_KEY_SIZE, "0", "slkl: at most this many updates; 0 = 1000 M"),
    KEY("net", graph, POLKA_KEY_STRING, "ring",
        "topology file, or a generator over the agents: ring | line | star | complete | grid | "
        "torus | er | rgg | smallworld | ba (seeded by run.seed, retried until connected)"),
    KEY("net", agents, POLKA_KEY_SIZE, "0",
        "agents of the network (decentralized: placed on the ranks by net.placement, at "
        "least one per rank), or whose union a centralized run learns from; 0: the graph "
        "file's nodes, else one per rank"),
    KEY("net", placement, POLKA_KEY_STRING, "block",
        "decentralized: how the agents are placed on the ranks: block (contiguous blocks of "
        "ids) | partition (METIS parts of the graph, few edges across ranks); the run is the "
        "same either way"),
    KEY("net", p, POLKA_KEY_DOUBLE, "0.2", "generated er graph: edge probability"),
    KEY("net", radius, POLKA_KEY_DOUBLE, "0.5", "generated rgg graph: radius"),
    KEY("net", k, POLKA_KEY_SIZE, "2",
        "generated smallworld: neighbours each side; ba: edges per node"),
    KEY("net", rewire, POLKA_KEY_DOUBLE, "0.1", "generated smallworld: rewiring probability"),
    KEY("net", weights, POLKA_KEY_STRING, "metropolis",
        "edge weights: uniform | metropolis | file"),
    KEY("net", penalty, POLKA_KEY_STRING, "paper", "consensus penalty: paper | symmetric"),
    KEY("net", c, POLKA_KEY_DOUBLE, "1", "consensus penalty coefficient"),
    KEY("net", share, POLKA_KEY_STRING, "points",
        "what a round sends with each point: points (paper 003: the point alone, the neighbour "
        "answers with its value there) | samples (the point and its label, which also enters "
        "the neighbour's loss as one of its own samples)"),
    KEY("net", resample_every, POLKA_KEY_SIZE, "0",
        "time-varying graph: a new graph from the generator every this many rounds (epoch e "
        "seeded by run.seed and e, retried until connected); 0: never"),
    KEY("net", gossip, POLKA_KEY_SIZE, "0",
        "1: one-peer gossip, each round each agent sends its points to one random neighbour "
        "(which answers); 0: to all"),
    KEY("fault", link_loss, POLKA_KEY_DOUBLE, "0",
        "probability that a directed message is lost in a round (a point going out and the values "
        "coming back are separate messages); a lost message is not sent"),
    KEY("fault", offline, POLKA_KEY_DOUBLE, "0",
        "probability that an agent sits out a round (no learning, sends and answers nothing)"),
    KEY("fault", leave, POLKA_KEY_STRING, "",
        "agents offline from round fault.leave_at until fault.return_at, e.g. 0,3,8-11"),
    KEY("fault", leave_at, POLKA_KEY_SIZE, "1",
        "the first round (1-based, as the run file counts) the fault.leave agents are offline"),
    KEY("fault", return_at, POLKA_KEY_SIZE, "0",
        "the first round the fault.leave agents are back; 0: never"),
    KEY("fault", delay, POLKA_KEY_SIZE, "0",
        "stale values: a neighbour's values arrive up to this many rounds late (uniform); an "
        "agent uses the newest it has, at most this old, at the points they were computed at"),
    KEY("fault", renormalise, POLKA_KEY_SIZE, "0",
        "1: scale the weights of the neighbours heard from in a round to the full row sum; 0: "
        "the missing terms are dropped"),
};

const polka_config_key *polka_config_keys(size_t *count) {
    *count = sizeof config_keys / sizeof *config_keys;
    return config_keys;
}

static const polka_config_key *find_key(const char *name) {
    for (size_t k = 0; k < sizeof config_keys / sizeof *config_keys; k++)
        if (strcmp(config_keys[k].name, name) == 0) return &config_keys[k];
    return NULL;
}

static polka_status parse_value(const polka_config_key *key, const char *value, void *field) {
    char *end = NULL;
    errno = 0;
    switch (key->type) {
    case POLKA_KEY_SIZE:
    case POLKA_KEY_U64: {
        /* strtoull would take " -5" as 2^64 - 5: only digits are an integer here */
        unsigned long long v = strtoull(value, &end, 10);
        POLKA_CHECK(isdigit((unsigned char)value[0]) && *end == '\0' && errno == 0, POLKA_ERR_ARG,
                    "%s: '%s' is not a non-negative integer", key->name, value);
        POLKA_CHECK(key->type == POLKA_KEY_U64 || v <= POLKA_CONFIG_SIZE_MAX, POLKA_ERR_ARG,
                    "%s: %s is too large (at most %llu)", key->name, value,
                    (unsigned long long)POLKA_CONFIG_SIZE_MAX);
        if (key->type == POLKA_KEY_SIZE)
            *(size_t *)field = (size_t)v;
        else
            *(uint64_t *)field = (uint64_t)v;
        return POLKA_OK;
    }
    case POLKA_KEY_DOUBLE: {
        /* decimal only, as for the integers: strtod would also take " 1", "0x10" and "1p3" */
        int decimal = value[0] != '\0' && strspn(value, "0123456789+-.eE") == strlen(value);
        double v = decimal ? strtod(value, &end) : NAN;
        /* an underflow (ERANGE, |v| tiny: 1e-320 is a subnormal) is still a finite number */
        int range = errno == 0 || (errno == ERANGE && fabs(v) < 1.0);
        POLKA_CHECK(decimal && end != value && *end == '\0' && range && isfinite(v), POLKA_ERR_ARG,
                    "%s: '%s' is not a finite number", key->name, value);
        *(double *)field = v;
        return POLKA_OK;
    }
    case POLKA_KEY_STRING:
        POLKA_CHECK(strlen(value) < key->size, POLKA_ERR_ARG,
                    "%s: value longer than %zu characters", key->name, key->size - 1);
        strcpy((char *)field, value);
        return POLKA_OK;
    }
    return polka_error_set(POLKA_ERR_ARG, "%s: unknown key type", key->name);
}

polka_status polka_config_set(polka_config *config, const char *name, const char *value) {
    const polka_config_key *key = find_key(name);
    POLKA_CHECK(key != NULL, POLKA_ERR_ARG, "unknown key '%s' (polka --help lists every key)",
                name);
    return parse_value(key, value, (char *)config + key->offset);
}

void polka_config_defaults(polka_config *config) {
    memset(config, 0, sizeof *config);
    for (size_t k = 0; k < sizeof config_keys / sizeof *config_keys; k++)
        (void)parse_value(&config_keys[k], config_keys[k].fallback,
                          (char *)config + config_keys[k].offset);
}

polka_status polka_config_override(polka_config *config, const char *assignment) {
    const char *eq = strchr(assignment, '=');
    POLKA_CHECK(eq != NULL && eq != assignment, POLKA_ERR_ARG,
                "--set expects section.key=value, got '%s'", assignment);
    char name[128];
    size_t len = (size_t)(eq - assignment);
    POLKA_CHECK(len < sizeof name, POLKA_ERR_ARG, "key too long in '%s'", assignment);
    memcpy(name, assignment, len);
    name[len] = '\0';
    return polka_config_set(config, name, eq + 1);
}

typedef struct {
    polka_config *config;
    polka_status status;
    char message[768];
} load_state;

static int config_ini_entry(void *user, const char *section, const char *name, const char *value) {
    load_state *state = user;
    if (state->status != POLKA_OK) return 0;
    char full[160];
    snprintf(full, sizeof full, "%s.%s", section, name);
    state->status = polka_config_set(state->config, full, value);
    if (state->status != POLKA_OK) {
        snprintf(state->message, sizeof state->message, "%s", polka_error_message());
        return 0;
    }
    return 1;
}

polka_status polka_config_load(polka_config *config, const char *path) {
    load_state state = {.config = config, .status = POLKA_OK};
    int line = 0;
    POLKA_CALL(polka_ini_read(path, config_ini_entry, &state, &line));
    if (state.status != POLKA_OK)
        return polka_error_set(state.status, "%s:%d: %s", path, line, state.message);
    POLKA_CHECK(line == 0, POLKA_ERR_FORMAT, "%s:%d: line does not parse (expected key = value)",
                path, line);
    return POLKA_OK;
}

void polka_config_get(const polka_config *config, const polka_config_key *key, char *out,
                      size_t size) {
    const char *field = (const char *)config + key->offset;
    switch (key->type) {
    case POLKA_KEY_SIZE:
        snprintf(out, size, "%zu", *(const size_t *)field);
        break;
    case POLKA_KEY_U64:
        snprintf(out, size, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    case POLKA_KEY_DOUBLE:
        snprintf(out, size, "%.17g", *(const double *)field);
        break;
    case POLKA_KEY_STRING:
        snprintf(out, size, "%s", field);
        break;
    }
}
