/*
 * The greedy projected penalty method ([KPRR18], docs/design.md): an agent sends its new points
 * (phase 1) and its neighbours answer with their models' values there (phase 2); the step is
 * functional SGD on its loss plus the consensus penalty, then KOMP. net.penalty = symmetric
 * also sends f_i at the points, net.share = samples their labels.
 */
#ifndef POLKA_SIM_PENALTY_H
#define POLKA_SIM_PENALTY_H

#include "polka/learner.h"
#include "sim/method/method_impl.h"
#include "sim/method/privacy_impl.h"

/* Late values (fault.delay > 0): the own points of the last rounds and, per neighbour, the
 * values in flight and the newest arrived (penalty_stale.c). */
typedef struct polka_agent_stale polka_agent_stale;

typedef struct {
    size_t payload; /* doubles per point sent: the point, (symmetric) f_i at it, (samples) y */
    int symmetric;
    int shares_samples; /* net.share = samples: the neighbours' samples enter the loss */
    double c;
    size_t late; /* rounds (updates) a late value may be old: fault.delay, async.max_age */
    polka_learner *learner;
    polka_agent_stale *stale; /* fault.delay > 0, else NULL */
    polka_privacy privacy;    /* privacy.clip > 0: the own points are noised when drawn */
    double *y;                /* batch */
    double *f_own;            /* batch × C: f_i at the own points */
    double *shared_g;         /* C: ∇ℓ at one neighbour's sample (net.share = samples) */
    double *shared_sent;      /* batch × C: (symmetric) f_i at the own points as sent */
    double *cand_x; /* (1 + degree + delay) × batch × dim: own points, the neighbours' heard
                       from (compact), then the own points of late values (penalty_stale.c) */
    double *cand_g; /* the same rows × C: the gradient coefficients */
} polka_penalty;

static inline polka_penalty *polka_penalty_of(const polka_agent *agent) {
    return (polka_penalty *)agent->state;
}

/* penalty_stale.c: late values */
/** How many rounds old a value may be: fault.delay, or async.max_age with the event engine. */
size_t polka_penalty_late_rounds(const polka_plan *plan);
/** The event engine: slot k's answer to the own block of update `sent` arrived (values). */
void polka_stale_arrive(polka_agent *agent, size_t k, uint64_t sent, const double *values);
/** The event engine: which slots' newest values are of this update (fresh) and which are
 * late but young enough to use. */
void polka_stale_classify(polka_agent *agent, unsigned char *fresh);
/* POLKA_ERR_MEM when the late values of fault.delay for `count` agents (ids, or 0..count-1 when
 * NULL) on graph would take more than the memory limit (data.memory, as the data's). */
polka_status polka_stale_fit(const polka_plan *plan, const polka_graph *graph, const size_t *ids,
                             size_t count, size_t dim, size_t outputs);
polka_status polka_stale_create(polka_agent *agent, size_t delay);
void polka_stale_free(polka_agent *agent);
/** Keeps round t's own points (the agent is online). */
void polka_stale_remember(polka_agent *agent);
/** Files the values that came this round (answered) by arrival, takes the newest arrived,
 * and marks in `fresh` the slots whose values are of this round. */
void polka_stale_receive(polka_agent *agent, unsigned char *fresh);
/** Slots of the old neighbour list (ids) keep their values in flight under the new list. */
polka_status polka_stale_rewire(polka_agent *agent, const size_t *old_neighbors, size_t old_degree);
/** Appends the rows of late values after `rows` rows of cand_x/cand_g: per round s of
 * the own points they were computed at, c·Σ_k w'_k (f_i(x_s) − f_k(x_s)), w' = scale·w.
 * Returns the rows added (0 when no late value is used). */
polka_status polka_stale_rows(polka_agent *agent, size_t rows, double scale, size_t *added);
/** The late values' state into / from a checkpoint (entries "stale.*"); the agent's
 * neighbours must be those it had when it was saved. */
polka_status polka_stale_save(const polka_agent *agent, polka_state *state);
polka_status polka_stale_restore(polka_agent *agent, const polka_state *state);
/** The weights of the slots whose values (fresh or late) enter this round's update. */
double polka_stale_weight(const polka_agent *agent);

#endif
