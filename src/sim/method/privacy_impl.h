/*
 * The Gaussian mechanism on the penalty method's points (privacy.*): each point an
 * agent sends is clipped to the L2 norm C (privacy.clip) and perturbed with N(0, σ² I); the
 * agent's own learner and its neighbours all learn from that noisy point.
 *
 * One release is μ-GDP with μ = Δ/σ, Δ = 2C the L2 sensitivity of a clipped point when one
 * sample's features are replaced (Dong, Roth & Su 2019, "Gaussian differential privacy",
 * Thm 2.7). μ-GDP is (ε, δ(ε))-DP for every ε ≥ 0 with
 *     δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)
 * (ibid. Cor 2.13; the analytic Gaussian mechanism of Balle & Wang 2018, Thm 8): σ is the
 * smallest noise whose δ(privacy.sample_epsilon) ≤ privacy.sample_delta. The classic
 * σ = Δ √(2 ln(1.25/δ)) / ε is proved only for ε ≤ 1, hence the analytic one.
 * k releases of one training row (later passes draw it again, with fresh noise) compose
 * exactly into √k μ-GDP (ibid. Cor 3.3): the composed ε is the ε whose δ(ε) at √k μ is
 * privacy.sample_delta. docs/design.md says what the guarantee covers.
 *
 * The noise is counter-based (rng.h): sample g of the network stream (its agent, round and
 * slot) draws its dim normals from (run.seed, PRIVACY, g), so a run is the same on any number
 * of ranks. Pseudorandom noise protects only against whoever does not know run.seed.
 */
#ifndef POLKA_SIM_PRIVACY_H
#define POLKA_SIM_PRIVACY_H

#include <stddef.h>
#include <stdint.h>

#include "polka/plan.h"
#include "sim/agent/counters_impl.h"

#define POLKA_PRIVACY_STREAM 0x50524956u /* "PRIV": the noise of the points */

/* The run's mechanism, the same on every agent. */
typedef struct {
    double clip;  /* C (0: off, nothing below is used) */
    double sigma; /* the noise's standard deviation per coordinate */
    double mu;    /* one release is mu-GDP: mu = 2C / sigma */
    double delta; /* privacy.sample_delta: of one release and of the composed epsilon */
    uint64_t seed, agents, batch, n_train;
} polka_privacy;

/** A clear error for privacy.* settings that make no sense or that the run cannot honour. */
polka_status polka_privacy_check(const polka_plan *plan);

/** The run's mechanism for `agents` agents and n_train training rows (clip 0: off). */
polka_status polka_privacy_setup(polka_privacy *privacy, const polka_plan *plan, size_t agents,
                                 uint64_t n_train);

/** The noise's sigma of the plan (0 when privacy.clip = 0). */
double polka_privacy_sigma(const polka_plan *plan);

/** Agent `agent`'s batch of round `round` (batch × dim at x) clipped and noised in place; the
 * counters count the releases (noisy_points, row_releases, privacy_epsilon). */
void polka_privacy_protect(const polka_privacy *privacy, size_t agent, uint64_t round, double *x,
                           size_t dim, polka_agent_counters *counters);

/** x scaled to the L2 norm clip when it is longer. */
void polka_privacy_clip(double *x, size_t dim, double clip);

/** δ(ε) of a μ-GDP mechanism (above). */
double polka_gdp_delta(double epsilon, double mu);
/** The largest μ with δ(ε) ≤ delta (0 < delta < 1, epsilon > 0). */
double polka_gdp_mu(double epsilon, double delta);
/** The smallest ε ≥ 0 with δ(ε) ≤ delta at mu. */
double polka_gdp_epsilon(double mu, double delta);

#endif
