/**
 * @file runfile.h
 * @brief The HDF5 run file: written collectively during a run, read back serially.
 *
 * Layout of a run file (docs/design.md, "What a run writes"):
 *
 *     /metrics                 attribute "agents"; "agent_stride" S when only the agents
 *                              0, S, 2S, ... have columns (run.log_agents)
 *         round, samples       1-D, one value per log row
 *         NAME                 2-D (rows × columns: agents, or ceil(agents / S)) doubles, one
 *                              per metric name; attribute "description" when given. Cells
 *                              never written hold NaN.
 *     /config                  one attribute per key of the config table ("run.mode", ...:
 *                              string, uint64 or double), "polka_version", "mpi_size", "mode"
 *         graph                attribute "nodes"; datasets edges (E×2 uint64, u < v, sorted)
 *                              and weights (E doubles)
 *     /models/agent_NNNN       dictionary (M×p), weights (M×C); attributes "order", "kernel",
 *                              "sigma", "degree", "coef0"
 *   or, for the random-feature methods (rff.h):
 *     /models                  attributes "kind" = "random-features", "features" (D), "dim"
 *                              (p), "outputs" (C), "sigma", "seed"
 *         omega, phase         the shared features: Ω (D×p) and b (D)
 *         theta                every agent's θ (agents × D × C)
 *     /timing/STAGE            3 doubles: min, mean, max of the ranks' seconds; attribute
 *                              "ranks" on /timing
 *
 * The writer (polka_runfile) uses parallel HDF5 over the communicator given at creation:
 * every polka_runfile_* function is collective over it, and every rank returns the same
 * status (but polka_runfile_append_agents, whose caller agrees it) (an error on one rank becomes
 * that error on all ranks: nothing hangs on a rank-local failure). Each append ends with a flush,
 * so a run killed between two appends leaves a readable file holding every row appended so far.
 *
 * The reader (polka_runfile_reader) is serial and needs no MPI. Nothing here prints.
 */
#ifndef POLKA_RUNFILE_H
#define POLKA_RUNFILE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "polka/config.h"
#include "polka/error.h"
#include "polka/graph.h"
#include "polka/model.h"
#include "polka/rff.h"

/** The "kind" attribute of /models holding random-feature models. */
#define POLKA_H5_MODELS_RFF "random-features"
/** The "kind" attribute of /models holding kernel expansions, concatenated: agent a's
 *  dictionary and weights are rows offset[a] .. offset[a] + order[a] of /models/dictionary and
 *  /models/weights (/models/offset, /models/order). No kind: one group /models/agent_NNNN per
 *  agent (the files of polka before that layout; still read). */
#define POLKA_H5_MODELS_KERNEL "kernel-expansions"

/** An open run file being written. */
typedef struct polka_runfile_s polka_runfile;

/**
 * Collective over comm: creates (truncates) the run file at path with the MPI-IO driver and
 * the /metrics datasets: one (0 × agents) extendible dataset per name, plus /metrics/round
 * and /metrics/samples. Names must be non-empty, distinct, without '/' and not "round" or
 * "samples". descriptions (metric_count strings) may be NULL.
 * A path that cannot be created (missing directory, no permission) is POLKA_ERR_IO with a
 * message naming it. comm must stay valid until polka_runfile_close. The caller owns *out
 * (polka_runfile_close); untouched on error.
 */
polka_status polka_runfile_create(const char *path, MPI_Comm comm, size_t agents,
                                  size_t metric_count, const char *const *metric_names,
                                  const char *const *descriptions, polka_runfile **out);

/**
 * polka_runfile_create whose /metrics columns are the agents 0, stride, 2 stride, ... only
 * (ceil(agents / stride) of them; attribute "agent_stride" of /metrics when stride > 1): the
 * appends take every agent's values and keep those. stride 1 is polka_runfile_create.
 */
polka_status polka_runfile_create_strided(const char *path, MPI_Comm comm, size_t agents,
                                          size_t stride, size_t metric_count,
                                          const char *const *metric_names,
                                          const char *const *descriptions, polka_runfile **out);

/**
 * Collective: writes /config from rank 0's config (broadcast here, so the other ranks' copies
 * are not read) with "polka_version", "mpi_size" and "mode" (config->mode), and, when rank 0's
 * graph is not NULL, /config/graph (other ranks may pass NULL).
 */
polka_status polka_runfile_write_config(polka_runfile *log, const polka_config *config,
                                        const polka_graph *graph, int mpi_size);

/**
 * Collective: appends one log row and flushes the file. Each rank passes the values of its
 * agents first_agent .. first_agent+count−1, row-major count × metric_count (in the order of
 * the names given at creation); count may be 0 (values may then be NULL). round and samples
 * are taken from rank 0.
 */
polka_status polka_runfile_append(polka_runfile *log, double round, double samples,
                                  size_t first_agent, size_t count, const double *values);

/**
 * polka_runfile_append without its agreements, for a caller that agrees once per log step:
 * this rank's agents are agents[0 .. count) (increasing ids, any placement). Returns this
 * rank's status, which the caller must agree (polka_net_agree) before the log's next call:
 * a bad argument joins the collective calls with no cells and is returned; after an HDF5
 * error a rank makes no further HDF5 call (the others may then wait in one: the agreement's
 * POLKA_NET_FAILED_WAIT ends the job).
 */
polka_status polka_runfile_append_agents(polka_runfile *log, double round, double samples,
                                         const size_t *agents, size_t count, const double *values);

/**
 * Collective: writes /models (kind POLKA_H5_MODELS_KERNEL) with the models of the agents
 * first_agent .. first_agent+count−1 of each rank (count may be 0), replacing an earlier
 * /models. Every agent of the file must be passed by exactly one rank, all with the same
 * kernel, dimension and outputs. Flushes the file.
 */
polka_status polka_runfile_write_models(polka_runfile *log, size_t first_agent, size_t count,
                                        const polka_model *const *models);

/** polka_runfile_write_models for the agents agents[0 .. count) of each rank (increasing ids,
 *  any placement); models[k] is agent agents[k]'s. */
polka_status polka_runfile_write_models_agents(polka_runfile *log, const size_t *agents,
                                               size_t count, const polka_model *const *models);

/**
 * Collective, after polka_runfile_write_models(_agents): /models/rho and /models/tube, one
 * double per agent, the margins of its loss as its run ended (learner.rho and learner.epsilon,
 * which learner.nu > 0 adapts per agent: what a prediction needs beside the model), each rank
 * passing those of its agents agents[0 .. count) (rho[k], tube[k]: agent agents[k]'s; agents
 * NULL: the agents 0 .. count − 1). Flushes.
 */
polka_status polka_runfile_write_margins(polka_runfile *log, const size_t *agents, size_t count,
                                         const double *rho, const double *tube);

/**
 * Collective: writes /models as random-feature models, replacing whatever /models held: the
 * features rff once (rank 0's; every rank must pass the same shape, seed, σ and outputs C) and
 * /models/theta (agents × D × C), to which each rank writes its agents agents[0 .. count)
 * (increasing ids, any placement), theta[k] being agent agents[k]'s D×C array. Every agent of
 * the file must be passed by exactly one rank. Flushes the file.
 */
polka_status polka_runfile_write_rff_models(polka_runfile *log, const polka_rff *rff,
                                            size_t outputs, const size_t *agents, size_t count,
                                            const double *const *theta);

/**
 * Collective: the attribute /config/NAME = value (the same on every rank): facts of the run
 * known once it started, such as the edges its placement cuts.
 */
polka_status polka_runfile_config_u64(polka_runfile *log, const char *name, uint64_t value);
polka_status polka_runfile_config_double(polka_runfile *log, const char *name, double value);

/**
 * Collective: writes /timing/NAME = [min, mean, max] over the ranks of my_seconds[s] for each
 * of the stage_count stages (the same names and count on every rank).
 */
polka_status polka_runfile_write_timing(polka_runfile *log, size_t stage_count,
                                        const char *const *stage_names, const double *my_seconds);

/** Collective: closes the file and frees the log; NULL-safe, sets *log to NULL. Returns the
 *  first error (the same on every rank). */
polka_status polka_runfile_close(polka_runfile **log);

/** An open run file being read. */
typedef struct polka_runfile_reader_s polka_runfile_reader;

/** Pass as `row` to polka_runfile_reader_metric_row for the last row. */
#define POLKA_H5RUN_LAST ((size_t)-1)

/** The reader refuses a run file whose /metrics `agents` is above this (2^24: a row of one
 *  metric is then at most 128 MiB), and a model whose `degree` is outside [1, 64] (as
 *  learner.degree). */
#define POLKA_H5RUN_MAX_AGENTS ((int64_t)1 << 24)
#define POLKA_H5RUN_MAX_DEGREE 64

/** A model dataset may declare at most this many times the bytes it stores in the file
 *  (deflate, the HDF5 filter with the highest ratio, stays under 1032:1), so that a damaged
 *  header cannot make the reader allocate and fill gigabytes of fill values. */
#define POLKA_H5RUN_MAX_EXPANSION 1032

/**
 * Opens a run file for reading (serial, no MPI). A missing or unreadable file is
 * POLKA_ERR_IO; a file that is not HDF5, or not a polka run file, is POLKA_ERR_FORMAT.
 * The caller owns *out (polka_runfile_reader_close).
 */
polka_status polka_runfile_reader_open(const char *path, polka_runfile_reader **out);

/** Closes a run file; NULL-safe, sets *run to NULL. */
void polka_runfile_reader_close(polka_runfile_reader **run);

/** The number of agents. */
size_t polka_runfile_reader_agents(const polka_runfile_reader *run);

/** The columns of the metrics: the agents, or (attribute "agent_stride" S of /metrics) the
 *  agents 0, S, 2S, ... of them, ceil(agents / S). */
size_t polka_runfile_reader_columns(const polka_runfile_reader *run);

/** The number of log rows (the length of /metrics/round). */
size_t polka_runfile_reader_rows(const polka_runfile_reader *run);

/** 1 when /metrics holds a dataset `name`, else 0 (also when the lookup fails). */
int polka_runfile_reader_has_metric(const polka_runfile_reader *run, const char *name);

/**
 * Row `row` (POLKA_H5RUN_LAST: the last one) of metric `name` into values: one value per
 * agent, or a single value for the 1-D "round" and "samples". A missing metric, one without
 * rows or of another shape (a 1-D metric other than those two, a 2-D one whose columns are not
 * the agents) is POLKA_ERR_FORMAT; a row out of range is POLKA_ERR_ARG.
 */
polka_status polka_runfile_reader_metric_row(const polka_runfile_reader *run, const char *name,
                                             size_t row, double *values);

/** The attribute `key` of /config as text, whatever its type (POLKA_ERR_FORMAT if missing,
 *  POLKA_ERR_ARG if it does not fit in size bytes). */
polka_status polka_runfile_reader_config_string(const polka_runfile_reader *run, const char *key,
                                                char *out, size_t size);

/** Rebuilds the model of an agent from /models (either layout: POLKA_H5_MODELS_KERNEL, or the
 *  older /models/agent_NNNN; the kernel from the attributes). The caller owns *out.
 *  POLKA_ERR_FORMAT when it is missing or inconsistent. */
polka_status polka_runfile_reader_load_model(const polka_runfile_reader *run, size_t agent,
                                             polka_model **out);

/**
 * Agent agent's loss margins as its run ended (polka_runfile_write_margins) into *rho and
 * *tube; *found = 0 (and the outputs untouched) for a file without them (written by polka
 * before them, or by a method that does not adapt them: the settings' values hold).
 * POLKA_ERR_FORMAT when they are damaged: not one value per agent, or not finite.
 */
polka_status polka_runfile_reader_margins(const polka_runfile_reader *run, size_t agent,
                                          double *rho, double *tube, int *found);

/** What a run file's /models holds. */
typedef enum {
    POLKA_H5RUN_MODELS_NONE,   /**< no /models (a run killed before its end, a batch run) */
    POLKA_H5RUN_MODELS_KERNEL, /**< kernel expansions (either layout) */
    POLKA_H5RUN_MODELS_RFF,    /**< random features and every agent's θ */
} polka_runfile_reader_models;

/** What /models holds; POLKA_ERR_FORMAT when its "kind" attribute names no kind polka writes. */
polka_status polka_runfile_reader_models_kind(const polka_runfile_reader *run,
                                              polka_runfile_reader_models *kind);

/**
 * Agent agent's random-feature model: the shared features into *rff (owned by the caller:
 * polka_rff_free), its θ (D×C) into *theta (malloc'ed) and C into *outputs. POLKA_ERR_ARG for
 * an agent the file does not have; POLKA_ERR_FORMAT when /models is not of this kind, or
 * damaged: an attribute or a shape that does not fit, a number that is not finite.
 */
polka_status polka_runfile_reader_load_rff(const polka_runfile_reader *run, size_t agent,
                                           polka_rff *rff, double **theta, size_t *outputs);

/**
 * Writes the HDF5 library polka runs with into text (at most size bytes, NUL-terminated):
 * its version (H5get_libversion) and whether it was built parallel. Pure; needs no MPI.
 */
void polka_h5_library_version(char *text, size_t size);

#endif
