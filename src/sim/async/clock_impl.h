/*
 * The virtual clock of the asynchronous engine: how long an agent's update takes and
 * how long a message is on its link. Every draw is a pure function of (run.seed, agent or
 * directed edge, update), on the counter-based generator, so that every rank knows alike when
 * anything happens, whatever the placement.
 *
 * An update of agent i takes m_i · exp(jitter · Z) with its median m_i = async.compute ·
 * exp(compute_sigma · Z_i) (× async.slow_factor for a slow agent): log-normal speeds drawn
 * once per agent, log-normal noise per update. A message of B bytes on i → j takes
 * async.latency + E + B / async.bandwidth, E exponential of mean async.latency_jitter, so no
 * message is faster than async.latency: the engine's lookahead.
 */
#ifndef POLKA_SIM_CLOCK_H
#define POLKA_SIM_CLOCK_H

#include <stdint.h>

#include "polka/plan.h"

typedef struct {
    uint64_t seed;
    size_t agents;
    double compute, sigma, jitter, slow_factor, slow_fraction;
    double latency, latency_jitter, bandwidth;
    unsigned char *slow; /* agents: 1 for the async.slow list (NULL: none listed) */
} polka_clock;

/** The run's laws (checks async.slow's ids against `agents`). */
polka_status polka_clock_create(const polka_plan *plan, size_t agents, polka_clock *clock);
void polka_clock_free(polka_clock *clock);

/** 1 when agent i is one of the slow ones (listed, or drawn with async.slow_fraction). */
int polka_clock_is_slow(const polka_clock *clock, size_t i);

/** Agent i's median update time m_i. */
double polka_clock_median(const polka_clock *clock, size_t i);

/** How long agent i's update k takes, given its median m_i. */
double polka_clock_update_time(const polka_clock *clock, size_t i, double median, uint64_t k);

/** How long the message of `bytes` bytes on i → j takes: phase 0, i's block of its update
 * `seq`; phase 1, i's answer to j's block of j's update `seq`. */
double polka_clock_latency(const polka_clock *clock, size_t i, size_t j, uint64_t seq, int phase,
                           double bytes);

/* The lockstep engine's rounds in the same virtual time: a barrier round takes the slowest
 * update, then the slowest message of each phase. */
typedef struct {
    polka_clock clock;
    double *medians; /* every agent's */
    double slowest;  /* the largest median */
    int phases;      /* messages per round: 1 or 2 */
    double bytes[2]; /* of a message of each phase */
    double constant; /* a round's time when nothing is drawn per round (else < 0) */
} polka_lockstep_clock;

/** The lockstep clock of `agents` agents with messages of bytes[0] (and bytes[1] > 0 : a
 * second phase). */
polka_status polka_lockstep_clock_create(const polka_plan *plan, size_t agents,
                                         const double bytes[2], polka_lockstep_clock *out);
void polka_lockstep_clock_free(polka_lockstep_clock *lc);

/** The virtual time round t takes on graph. */
double polka_lockstep_round_time(const polka_lockstep_clock *lc, const polka_graph *graph,
                                 uint64_t t);

#endif
