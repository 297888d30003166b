/**
 * @file config.h
 * @brief The run configuration: one table of typed keys, INI files and overrides.
 *
 * Keys are `section.key`. Precedence: defaults < file < `--set` overrides. Unknown keys
 * and values that do not parse are errors. This is the text of the settings: a run reads
 * them only through the plan that polka_plan_build() checks and types (plan.h).
 */
#ifndef POLKA_CONFIG_H
#define POLKA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"

#define POLKA_NAME_LEN 32
#define POLKA_PATH_LEN 512
/** The most classes a generated data set may have (data.classes): bounds what a run allocates. */
#define POLKA_MAX_CLASSES      100000
#define POLKA_STRINGIFY_(x)    #x
#define POLKA_STRINGIFY(x)     POLKA_STRINGIFY_(x)
#define POLKA_MAX_CLASSES_TEXT POLKA_STRINGIFY(POLKA_MAX_CLASSES)

typedef struct {
    /* [run] */
    char mode[POLKA_NAME_LEN]; /* decentralized | centralized */
    uint64_t seed;
    double passes;
    size_t log_every; /* training samples (in total over agents) between log steps */
    size_t log_test;  /* test points scored before the last log step; 0 = all */
    char output[POLKA_PATH_LEN];
    char csv[POLKA_PATH_LEN];
    double watchdog;      /* seconds before a stalled round ends the run; 0: never */
    size_t central_batch; /* centralized batch; 0 = the union of a round (agents × batch) */
    char checkpoint[POLKA_PATH_LEN]; /* checkpoint file; empty: run.output + ".ckpt" */
    size_t checkpoint_every;         /* rounds between checkpoints; 0: none */
    double checkpoint_seconds;       /* seconds between checkpoints; 0: none */
    /* [data] */
    char source[POLKA_NAME_LEN]; /* multidist | checkerboard | sinc | friedman | file */
    size_t classes, components, dim, n_train, n_test;
    size_t board; /* checkerboard: cells per side */
    double mean_var, sample_var;
    uint64_t means_seed;
    char split[POLKA_NAME_LEN]; /* iid | skewed | mixtures | regions | dirichlet | shards */
    char train[POLKA_PATH_LEN], train_labels[POLKA_PATH_LEN];
    char test[POLKA_PATH_LEN], test_labels[POLKA_PATH_LEN];
    char format[POLKA_NAME_LEN], label_column[POLKA_NAME_LEN], scale[POLKA_NAME_LEN];
    char storage[POLKA_NAME_LEN]; /* file source: dense | sparse | auto (LIBSVM) */
    char memory[POLKA_NAME_LEN];  /* file source: auto | bytes (K, M, G, T) per rank */
    size_t skew_classes;
    double snr_db, noise_std;
    double skew_fraction;
    double alpha;          /* dirichlet split */
    size_t shards;         /* shards split: classes per agent */
    double quantity_sigma; /* quantity skew: log-normal spread of the agents' rates */
    double drift;          /* drifting stream: radians per training sample */
    /* [learner] */
    char kernel[POLKA_NAME_LEN];
    double sigma, coef0;
    size_t degree;
    char loss[POLKA_NAME_LEN];
    double loss_epsilon;
    char control[POLKA_NAME_LEN];
    double eta, lambda, kp, epsilon, jitter;
    size_t batch;
    char schedule[POLKA_NAME_LEN];
    size_t tau, budget, neighbours, offset;
    double beta, nu, suffix, rho, delta;
    size_t candidates, max_iter; /* slkl */
    double tol;                  /* slkl */
    /* [net] */
    char graph[POLKA_PATH_LEN];
    size_t agents; /* agents of a centralized run's union; 0 = from the graph or the ranks */
    char placement[POLKA_NAME_LEN]; /* block | partition */
    double p, radius, rewire;
    size_t k;
    char weights[POLKA_NAME_LEN];
    char penalty[POLKA_NAME_LEN];
    char share[POLKA_NAME_LEN]; /* points | samples */
    double c;
    size_t resample_every; /* a new graph every this many rounds; 0: never */
    size_t gossip;         /* 1: each agent talks to one random neighbour per round */
    /* [fault] */
    double link_loss;           /* probability that a directed message is lost */
    double offline;             /* probability that an agent sits out a round */
    char leave[POLKA_PATH_LEN]; /* agents that leave at leave_at and return at return_at */
    size_t leave_at, return_at;
    size_t delay;       /* values arrive up to this many rounds late */
    size_t renormalise; /* 1: the heard neighbours' weights carry the whole row sum */
} polka_config;

typedef enum { POLKA_KEY_SIZE, POLKA_KEY_U64, POLKA_KEY_DOUBLE, POLKA_KEY_STRING } polka_key_type;

/** One entry of the key table. */
typedef struct {
    const char *name; /**< "section.key" */
    polka_key_type type;
    size_t offset, size;  /**< where the value lives in polka_config, and its size */
    const char *fallback; /**< the default, as text */
    const char *help;
} polka_config_key;

/** The key table and its length. Pure. */
const polka_config_key *polka_config_keys(size_t *count);

/** Fills every key with its default. */
void polka_config_defaults(polka_config *config);

/** Sets "section.key" from text; an unknown key or an unparsable value is an error. */
polka_status polka_config_set(polka_config *config, const char *name, const char *value);

/** Applies an override "section.key=value". */
polka_status polka_config_override(polka_config *config, const char *assignment);

/**
 * Reads an INI file on top of the current values. Errors name the file and line. Blanks that
 * start a line are ignored: an indented line is a key of its own, never more of a value.
 */
polka_status polka_config_load(polka_config *config, const char *path);

/** The value of a key as text. */
void polka_config_get(const polka_config *config, const polka_config_key *key, char *out,
                      size_t size);

/** The largest value an integer (size) key takes: 2^40. */
#define POLKA_CONFIG_SIZE_MAX ((size_t)1 << 40)

#endif
