/*
 * An agent's counters: what its log steps report besides its model and its test set, and all a
 * checkpoint keeps of it besides its learner. The one list below generates the struct, the log
 * step's collect (metrics/metrics.c), and the checkpoint's save and restore: one named entry
 * "agent.FIELD" per field, the same for the decentralized agents and the centralized learner
 * (the checkpoints once had two positional layouts of them).
 *
 * TOTAL(field, metric): a cumulative double, reported as is as polka_agent_metrics.metric.
 * MEAN(name, metric, reset): two doubles name_sum and name_count, reported as their quotient
 * (0 before any count); reset at each log step when reset is 1, else cumulative.
 */
#ifndef POLKA_SIM_COUNTERS_H
#define POLKA_SIM_COUNTERS_H

#include "polka/learner.h"
#include "polka/loss.h"
#include "polka/state.h"

#define POLKA_AGENT_COUNTERS(TOTAL, MEAN)                                                          \
    /* mistakes (classification), squared errors (regression) or points flagged (novelty) of       \
     * the training samples, each predicted before it was learned */                               \
    MEAN(online_error, online_error, 0)                                                            \
    /* the rounds' mean training losses since the last log step */                                 \
    MEAN(train_loss, train_loss, 1)                                                                \
    /* the ages in rounds of the neighbours' values used since the last log step */                \
    MEAN(value_age, value_age, 1)                                                                  \
    TOTAL(time_compute, time_compute)           /* seconds drawing samples and evaluating f */     \
    TOTAL(time_exchange, time_exchange)         /* seconds in the neighbour exchange */            \
    TOTAL(time_update, time_update)             /* seconds in the gradient step and KOMP */        \
    TOTAL(bytes_sent, bytes)                    /* the messages really sent (a lost one is not) */ \
    TOTAL(messages_lost, messages_lost)         /* messages to this agent lost on the way */       \
    TOTAL(rounds_offline, rounds_offline)       /* rounds this agent sat out */                    \
    TOTAL(messages_censored, messages_censored) /* messages it withheld (censoring) */             \
    TOTAL(samples_out, samples_out) /* own samples sent to neighbours (the penalty's points) */    \
    TOTAL(receivers, receivers)     /* distinct agents that got one (privacy.receivers) */         \
    TOTAL(updates, updates)         /* the agent's steps so far (online, with a batch) */          \
    TOTAL(clock, clock)             /* the virtual time of the log step (async.engine) */          \
    /* the virtual ages of the neighbours' newest information at each step (async.engine) */       \
    MEAN(info_age, info_age, 1)                                                                    \
    /* privacy.clip > 0: own points released noisy; the most releases of one training row */       \
    TOTAL(noisy_points, noisy_points)                                                              \
    TOTAL(row_releases, row_releases)                                                              \
    /* and the epsilon of that many releases composed (privacy_impl.h) */                          \
    TOTAL(privacy_epsilon, privacy_epsilon)                                                        \
    /* net.codec_points = uint8: coordinates of its points sent clamped to the codec's range       \
     * (once a message that reached a neighbour) */                                                \
    TOTAL(points_clamped, points_clamped)

#define POLKA_COUNTER_TOTAL_FIELD(field, metric)       double field;
#define POLKA_COUNTER_MEAN_FIELDS(name, metric, reset) double name##_sum, name##_count;
typedef struct {
    POLKA_AGENT_COUNTERS(POLKA_COUNTER_TOTAL_FIELD, POLKA_COUNTER_MEAN_FIELDS)
} polka_agent_counters;
#undef POLKA_COUNTER_TOTAL_FIELD
#undef POLKA_COUNTER_MEAN_FIELDS

/* The checkpoint's entries "agent.FIELD" of counters (one double each). */
polka_status polka_counters_save(const polka_agent_counters *counters, polka_state *state);
polka_status polka_counters_restore(polka_agent_counters *counters, const polka_state *state);

/* The online error of n samples with model values f (n×C, before the update) and targets y:
 * mistakes when classification, else squared errors (or, novelty, points flagged). */
void polka_online_error_add(polka_agent_counters *counters, int classification,
                            const polka_learner *learner, const double *f, const double *y,
                            size_t n);
/* The same for a model that is no learner: the loss and the classes (0: regression). */
void polka_online_error_add_values(polka_agent_counters *counters, int classification,
                                   const polka_loss *loss, size_t classes, const double *f,
                                   const double *y, size_t n);

#endif
