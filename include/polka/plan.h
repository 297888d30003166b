/**
 * @file plan.h
 * @brief The run plan: the settings of a run, typed and checked once.
 *
 * polka_plan_build() turns a polka_config (the key table's text: defaults < file < `--set`)
 * into a plan: enums instead of names, the learner's parameters, a graph spec, a data-source
 * spec and the run's sizes, every setting checked. `polka run` builds it on rank 0 and
 * broadcasts it (it holds no pointer); every layer below reads only the plan. The plan is
 * never changed after it is built: facts that come from the data files (dimension, classes,
 * sizes) live in the data stream that read them (polka_data_facts), not in the plan.
 */
#ifndef POLKA_PLAN_H
#define POLKA_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "polka/config.h"
#include "polka/dataio.h"
#include "polka/error.h"
#include "polka/graph.h"
#include "polka/learner.h"

typedef enum {
    POLKA_MODE_DECENTRALIZED, /**< a network of agents, one or many per rank */
    POLKA_MODE_CENTRALIZED,   /**< one agent learning from the union of the streams */
} polka_run_mode;

/** The data sources (one entry each of the source table, src/sim/stream/source.c). */
typedef enum {
    POLKA_SOURCE_MULTIDIST,
    POLKA_SOURCE_CHECKERBOARD,
    POLKA_SOURCE_SINC,
    POLKA_SOURCE_FRIEDMAN,
    POLKA_SOURCE_FILE,
    POLKA_SOURCE_COUNT
} polka_source_kind;

/** How the training stream reaches the agents (one entry each of the split table). */
typedef enum {
    POLKA_SPLIT_IID,
    POLKA_SPLIT_SKEWED,
    POLKA_SPLIT_MIXTURES,
    POLKA_SPLIT_REGIONS,
    POLKA_SPLIT_DIRICHLET,
    POLKA_SPLIT_SHARDS,
    POLKA_SPLIT_COUNT
} polka_split_kind;

/** How a decentralized run places its agents on the ranks (net.placement). */
typedef enum {
    POLKA_PLACEMENT_BLOCK,     /**< contiguous blocks of ids */
    POLKA_PLACEMENT_PARTITION, /**< METIS parts of the graph: few edges across ranks */
} polka_placement_kind;

typedef enum {
    POLKA_PENALTY_PAPER,     /**< [KPRR18]: the penalty at the agent's own points */
    POLKA_PENALTY_SYMMETRIC, /**< polka's own: also at the neighbours' points */
} polka_penalty_kind;

/** What a decentralized round sends with each point (net.share). */
typedef enum {
    POLKA_SHARE_POINTS,  /**< [KPRR18]: the point; the neighbour answers with its value there */
    POLKA_SHARE_SAMPLES, /**< the point and its label, which also enters the neighbour's loss */
} polka_share_kind;

typedef struct {
    polka_run_mode mode;
    uint64_t seed;
    double passes;
    size_t log_every;     /**< training samples (all agents) between log steps */
    size_t log_test;      /**< test points scored before the last log step; 0 = all */
    size_t log_agents;    /**< per-agent metric columns: about this many agents; 0 = all */
    double watchdog;      /**< seconds a wait on the other ranks may last; 0 = no limit */
    size_t central_batch; /**< 0: polka_plan_central_batch's default */
    char output[POLKA_PATH_LEN], csv[POLKA_PATH_LEN];
    char checkpoint[POLKA_PATH_LEN]; /**< as set (empty: the default, polka_plan_checkpoint_path) */
    size_t checkpoint_every;         /**< rounds between checkpoints; 0 = none */
    double checkpoint_seconds;       /**< seconds between checkpoints; 0 = none */
    char resume[POLKA_PATH_LEN];     /**< `polka run --resume FILE`: the checkpoint; empty = none */
} polka_run_spec;

/** The knobs of the splits: keys whose owner (keys.h) is a split; only that split reads them. */
typedef struct {
    size_t skew_classes;  /**< skewed: classes each agent mostly sees */
    double skew_fraction; /**< skewed: fraction of an agent's samples from its own classes */
    double alpha;         /**< dirichlet: agent a's class proportions ~ Dir(alpha·1) */
    size_t shards;        /**< shards: classes per agent */
} polka_split_knobs;

typedef struct {
    polka_source_kind source;
    polka_split_kind split;
    size_t classes, components, dim; /**< generated sources (a file source: from the file) */
    size_t n_train, n_test;          /**< generated sources (a file source: from the files) */
    size_t board;                    /**< checkerboard: cells per side */
    double mean_var, sample_var;
    uint64_t means_seed;
    polka_split_knobs split_knobs; /**< the split's own keys */
    double quantity_sigma;         /**< quantity skew: log-normal spread of the rates; 0 = off */
    double drift;                  /**< drifting stream: radians per training sample; 0 = off */
    int unit_norm;                 /**< 1: every sample divided by its Euclidean norm */
    double snr_db, noise_std;
    char train[POLKA_PATH_LEN], train_labels[POLKA_PATH_LEN];
    char test[POLKA_PATH_LEN], test_labels[POLKA_PATH_LEN];
    polka_file_format format;
    char label_column[POLKA_NAME_LEN];
    polka_scale_kind scale;
    polka_storage storage; /**< LIBSVM files: dense, sparse or auto (polka/dataio.h) */
    size_t memory;         /**< bytes a rank's data may take; 0: its share of the node's */
    size_t scan_chunk;     /**< bytes per chunk of a training file's scan (polka/dataio.h) */
} polka_data_spec;

typedef struct {
    polka_learner_params params; /**< kernel, loss, control (or a batch learner: slkl, krr),
                                      steps (seed: run.seed) */
    size_t batch;                /**< samples per agent and round */
    size_t candidates, max_iter; /**< slkl */
    double tol;                  /**< slkl */
    double refit;                /**< > 0: the final refit's ridge λ (src/core/refit.c) */
    size_t refit_iterations;     /**< its squared-hinge steps */
    size_t refit_memory;         /**< MiB for the kernel rows kept between its passes */
} polka_learner_spec;

typedef struct {
    char graph[POLKA_PATH_LEN]; /**< net.graph as given: a topology file or a generator name */
    int generated;              /**< 1: net.graph names a generator (graph.kind), 0: a file */
    polka_graph_spec spec;      /**< the generator's parameters (spec.n: the agents, at the run) */
    polka_weight_kind weights;
    polka_penalty_kind penalty;
    polka_share_kind share;
    polka_placement_kind placement;
    double c;
    size_t agents;         /**< net.agents: 0 = from the graph file or the ranks */
    size_t resample_every; /**< a new generated graph every this many rounds; 0: never */
    int gossip;            /**< 1: one-peer gossip */
} polka_net_spec;

/** The network's faults (src/sim/network/fault.c draws them; all 0: a perfect network). */
typedef struct {
    double link_loss;           /**< a directed message is lost with this probability */
    double offline;             /**< an agent sits out a round with this probability */
    char leave[POLKA_PATH_LEN]; /**< agents offline in rounds [leave_at, return_at) */
    size_t leave_at, return_at; /**< 1-based rounds; return_at 0: never back */
    size_t delay;               /**< values arrive up to this many rounds late */
    int renormalise;            /**< 1: the heard neighbours carry the whole weight row sum */
} polka_fault_spec;

typedef struct {
    polka_run_spec run;
    polka_data_spec data;
    polka_learner_spec learner;
    polka_net_spec net;
    polka_fault_spec fault;
    polka_config settings; /**< the text the plan was built from, for the run file's /config */
} polka_plan;

/** The facts of the data a run learns from: from the settings, or read from the files. */
typedef struct {
    size_t dim, classes, n_train, n_test;
} polka_data_facts;

/**
 * Checks every setting of config and builds the plan from it. On an error the message
 * names the key (and the file where one is involved); plan is then unspecified.
 */
polka_status polka_plan_build(const polka_config *config, polka_plan *plan);

/** The settings with the data's facts in data.dim, classes, n_train, n_test: what ran. */
void polka_plan_settings_with(const polka_plan *plan, const polka_data_facts *facts,
                              polka_config *out);

/** The name of a run mode, source, split or penalty (as the configuration spells it). */
const char *polka_run_mode_name(polka_run_mode mode);
const char *polka_source_kind_name(polka_source_kind kind);
const char *polka_split_kind_name(polka_split_kind kind);
const char *polka_penalty_kind_name(polka_penalty_kind kind);
const char *polka_share_kind_name(polka_share_kind kind);
const char *polka_placement_kind_name(polka_placement_kind kind);
/** The kind a setting's text names (run.mode, net.penalty, net.share, net.placement), or
 * POLKA_ERR_ARG naming the key and the names it takes. */
polka_status polka_run_mode_parse(const char *text, polka_run_mode *out);
polka_status polka_penalty_kind_parse(const char *text, polka_penalty_kind *out);
polka_status polka_share_kind_parse(const char *text, polka_share_kind *out);
polka_status polka_placement_kind_parse(const char *text, polka_placement_kind *out);

/** The names of the splits data.source = kind takes, joined by sep ("iid | skewed"), into
 * text (polka --help, the manual page, docs/keys.md); returns text. */
const char *polka_source_splits(polka_source_kind kind, const char *sep, char *text, size_t size);

/** 1 when the learner's loss is a classification loss (targets are classes). Pure. */
int polka_plan_classifies(const polka_plan *plan);

/** The default centralized mini-batch (run.central_batch = 0) holds at most this many
 *  samples: a step's KOMP works on the dictionary grown by the batch, so its cost grows much
 *  faster than the batch (one round of 16 384 agents as one step ran for over 12 minutes),
 *  and batches of 64 and more lost the accuracy on multidist (README). */
#define POLKA_CENTRAL_BATCH_MAX 32

/** The centralized POLK mini-batch of a run on the union of `agents` agents' streams (the
 *  random-feature methods take the whole round, their step being linear in the batch):
 *  run.central_batch, or (0) the union of one round, agents × learner.batch, at most
 *  POLKA_CENTRAL_BATCH_MAX samples (or one agent's batch when that is larger). */
size_t polka_plan_central_batch(const polka_plan *plan, size_t agents);

/** run.log_agents = K of `agents`: the agents 0, S, 2S, ... have per-agent metric columns;
 *  returns S = ceil(agents / K) (1: every agent, also for K = 0). Their count is
 *  ceil(agents / S), at most K. */
size_t polka_plan_log_stride(const polka_plan *plan, size_t agents);

/**
 * NULL when passes × n_train training samples can be counted exactly (at most 2^53), else
 * why not. Pure.
 */
const char *polka_plan_check_length(double passes, size_t n_train);

#endif
