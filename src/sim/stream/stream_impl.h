/* The network's training stream (a data source drawn through a split) and the test set. */
#ifndef POLKA_SIM_STREAM_H
#define POLKA_SIM_STREAM_H

#include "polka/data.h"
#include "polka/dataio.h"
#include "polka/plan.h"

typedef struct polka_stream_s polka_stream;

/**
 * The network's training stream for `agents` agents drawing `batch` samples per round.
 * Sample g of the network stream belongs to agent (g / batch) mod agents, so agent a's
 * slot b of round t is g = (t·agents + a)·batch + b and one round of all agents is the
 * contiguous block a centralized learner takes (docs/design.md: the union of the streams).
 * The stream keeps a pointer to plan, which must outlive it.
 */
polka_status polka_stream_create(const polka_plan *plan, size_t agents, size_t batch,
                                 polka_stream **out);

/** How a training file is scanned: by polka_data_scan (NULL hook), or by the ranks together
 *  (scan is then collective: polka_sim_scan_split). */
typedef struct {
    polka_status (*scan)(void *context, const char *path, const polka_read_options *options,
                         polka_data_info *info);
    void *context;
} polka_scan_hook;

/** The same for a rank's agents ids[0..count) (increasing): a file source keeps only the rows
 * those agents can draw (when the split lets it). */
polka_status polka_stream_create_for(const polka_plan *plan, size_t agents, size_t batch,
                                     const size_t *ids, size_t count, const polka_scan_hook *scan,
                                     polka_stream **out);

void polka_stream_free(polka_stream **stream);

/** The data's facts: dimension, classes, training samples and (once the test set is read) test
 * samples, from the settings or from the files. */
const polka_data_facts *polka_stream_facts(const polka_stream *stream);

/** Training rows this stream holds in memory (a file source; 0 for generators). */
size_t polka_stream_rows_held(const polka_stream *stream);

/** Training sample g of the network stream into x (dim numbers) and *y. */
polka_status polka_stream_sample(const polka_stream *stream, uint64_t g, double *x, double *y);

/** Agent a's batch of round t into x (batch × dim) and y. */
polka_status polka_stream_agent_batch(const polka_stream *stream, size_t agent, uint64_t round,
                                      double *x, double *y);

/**
 * The realised per-agent class histogram of network samples 0..samples−1 (those the agents
 * learn from): counts is agents × classes. POLKA_ERR_ARG without class labels.
 */
polka_status polka_stream_class_histogram(const polka_stream *stream, uint64_t samples,
                                          size_t *counts);

/** Allocates and fills the common test set; its size becomes the facts' n_test. */
polka_status polka_stream_test_set(polka_stream *stream, polka_dataset *test);

/**
 * Quantity skew (data.quantity_sigma > 0): 1 when agent a learns from its batch in round t, a
 * pure function of (run.seed, agent, round); always 1 without quantity skew. An agent that does
 * not learn in a round still takes part in the exchange (its neighbours still evaluate at its
 * points and use its values), but takes no step.
 */
int polka_stream_agent_learns(const polka_stream *stream, size_t agent, uint64_t round);

/** The same for network sample g (the agent and round it belongs to). */
int polka_stream_sample_learned(const polka_stream *stream, uint64_t g);

/**
 * Drifting stream (data.drift > 0): moves the test set (from polka_stream_test_set, of this
 * stream) to the distribution after `samples` training samples: metrics against the present.
 * Does nothing without drift.
 */
void polka_stream_test_now(const polka_stream *stream, double samples, polka_dataset *test);

#endif
