/**
 * @file rff_methods.h
 * @brief The local steps of the decentralized random-feature learners, as pure functions of
 * an agent's arrays and its neighbours' received arrays: rf-diffusion (adapt-then-combine),
 * DKLA (decentralized ADMM; linearized/online primal and, for the squared loss on a fixed
 * data set, the exact primal) and COKE (DKLA with communication censoring).
 *
 * Notation (rff.h): θ_i is agent i's D×C variable, f_i its local objective, G_i = ∇f_i on
 * its batch, N_i its neighbours, d_i = |N_i|. A variable is an array of len = D·C doubles.
 * Neighbours are summed in the order given (the caller gives increasing ids), so the result
 * is the same on every rank.
 *
 * One round of DKLA / COKE at agent i (round k = 1, 2, …; θ_i⁰ = θ̂_i⁰ = γ_i⁰ = 0):
 *   1. primal: θ_i^k from θ_i^{k−1}, γ_i^{k−1} and the shared θ̂_i^{k−1}, θ̂_j^{k−1}
 *      (polka_dkla_primal_linearized or polka_dkla_exact_primal);
 *   2. COKE only: polka_coke_censor(θ_i^k, θ̂_i, h(k)) decides whether θ_i^k is sent;
 *      DKLA always sends (θ̂ = θ);
 *   3. exchange: neighbours receive the θ̂_i^k that were sent; a censored agent's
 *      neighbours keep its last received θ̂;
 *   4. dual: γ_i^k = γ_i^{k−1} + ρ Σ_{j∈N_i} (θ̂_i^k − θ̂_j^k) (polka_dkla_dual).
 * With α = 0 every COKE agent always transmits and COKE is DKLA bit for bit.
 */
#ifndef POLKA_RFF_METHODS_H
#define POLKA_RFF_METHODS_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"
#include "polka/rff.h"

/** An agent's neighbours' received variables (and, for diffusion, the weights a_ij). */
typedef struct {
    size_t count;              /**< d_i */
    const double *const *vars; /**< count pointers to the neighbours' len-arrays */
    const double *weight;      /**< a_ij in the same order (diffusion), else NULL */
} polka_rff_neighbours;

/* ------------------------------------------------------------------ rf-diffusion */

/**
 * The self weight a_ii = 1 − Σ_j a_ij of the combination matrix whose off-diagonal entries
 * are the graph's weights (net.weights: Metropolis gives a doubly stochastic matrix).
 * POLKA_ERR_ARG when Σ_j a_ij > 1 (uniform weights on a node of degree > 1, say): the
 * combination would not be a convex average.
 */
polka_status polka_rf_diffusion_self_weight(const double *weight, size_t count,
                                            double *self_weight);

/**
 * Adapt (adapt-then-combine diffusion, Sayed, "Adaptation, learning, and optimization over
 * networks", 2014, the ATC diffusion strategy; with random features as in Richards et al.,
 * "Decentralised learning with random features and distributed gradient descent", ICML
 * 2020, which combines before adapting):
 *     ψ_i = θ_i − η G_i(θ_i)  on the agent's batch. psi gets len numbers.
 */
polka_status polka_rf_diffusion_adapt(const polka_rff_problem *problem,
                                      const polka_rff_batch *batch, double eta, const double *theta,
                                      double *psi);

/** Combine: θ_i = a_ii ψ_i + Σ_{j∈N_i} a_ij ψ_j, the neighbours' ψ_j in nb->vars. */
void polka_rf_diffusion_combine(size_t len, double self_weight, const double *psi,
                                const polka_rff_neighbours *nb, double *theta);

/**
 * CHOCO-gossip's combine (Koloskova et al. 2019): θ_i = ψ_i + γ Σ_j a_ij (ψ̂_j − ψ̂_i), with
 * ψ̂ the copies the neighbours hold of each variable (a sparsifier's, with error feedback):
 * own_copy is ψ̂_i, nb->vars the ψ̂_j.
 */
void polka_rf_choco_combine(size_t len, double step, const double *psi, const double *own_copy,
                            const polka_rff_neighbours *nb, double *theta);

/* ------------------------------------------------------------------ DKLA and COKE */

/**
 * DKLA's online (linearized) primal step (Xu et al., COKE, JMLR 2021: the DKLA primal
 * update of decentralized consensus ADMM, Shi et al., IEEE TSP 2014, with f_i replaced by
 * its linearization plus a proximal term 1/(2η)‖θ − θ_i‖² as in the online variant):
 *     θ_i ← [ θ_i/η + ρ Σ_{j∈N_i} (θ̂_i + θ̂_j) − G_i(θ_i) − γ_i ] / (1/η + 2ρ d_i),
 * the minimiser of ⟨G_i, θ⟩ + ‖θ − θ_i‖²/(2η) + ⟨γ_i, θ⟩ + ρ Σ_j ‖θ − (θ̂_i + θ̂_j)/2‖².
 * theta: θ_i (the linearization point); shared: θ̂_i, the value the neighbours hold of it
 * (DKLA: θ_i itself; COKE: its last transmitted value); nb->vars: the θ̂_j. theta_new may
 * not alias the inputs.
 */
polka_status polka_dkla_primal_linearized(const polka_rff_problem *problem,
                                          const polka_rff_batch *batch, double rho, double eta,
                                          const double *theta, const double *shared,
                                          const double *gamma, const polka_rff_neighbours *nb,
                                          double *theta_new);

/** DKLA's dual ascent: γ_i ← γ_i + ρ Σ_{j∈N_i} (θ̂_i − θ̂_j) (shared: θ̂_i, nb->vars: θ̂_j). */
void polka_dkla_dual(size_t len, double rho, const double *shared, const polka_rff_neighbours *nb,
                     double *gamma);

/**
 * The exact primal of DKLA for the squared loss on a fixed local data set: the
 * eigendecomposition H_i = Z_iᵀZ_i / n_i = QΛQᵀ (LAPACKE_dsyevd, once per agent) and
 * b_i = Z_iᵀy_i / n_i. Kept as eigenvectors rather than a Cholesky factor so that the
 * shift λ + 2ρd_i may change between rounds (a resampled graph changes d_i) without a new
 * factorisation.
 */
typedef struct {
    size_t features;
    double *vectors; /**< Q, D×D row-major (column k: the k-th eigenvector) */
    double *values;  /**< Λ, D */
    double *rhs;     /**< b_i, D */
} polka_dkla_exact;

/** Builds the decomposition from the agent's data set. POLKA_ERR_ARG unless the loss is
 * square with one output and n > 0; *out untouched on error. */
polka_status polka_dkla_exact_init(const polka_rff_problem *problem, const polka_rff_batch *data,
                                   polka_dkla_exact *out);

/** Frees and zeroes. NULL-safe, and safe on a zeroed struct. */
void polka_dkla_exact_free(polka_dkla_exact *exact);

/**
 * The exact primal (the ADMM update of Shi et al. / DKLA with f_i itself):
 *     (H_i + (λ + 2ρ d_i) I) θ_i = b_i − γ_i + ρ Σ_{j∈N_i} (θ̂_i + θ̂_j),
 * solved as θ_i = Q (Λ + (λ + 2ρd_i) I)⁻¹ Qᵀ r. λ from problem, d_i = nb->count.
 * shared: θ̂_i; theta_new may not alias shared or gamma.
 */
polka_status polka_dkla_exact_primal(const polka_dkla_exact *exact,
                                     const polka_rff_problem *problem, double rho,
                                     const double *shared, const double *gamma,
                                     const polka_rff_neighbours *nb, double *theta_new);

/** COKE's censoring threshold at round k: h(k) = α μ^k (α ≥ 0, μ ∈ (0, 1)). */
double polka_coke_threshold(double alpha, double mu, uint64_t round);

/**
 * COKE's censoring rule (Xu et al., COKE, JMLR 2021, after COCA, Liu et al., IEEE TSP
 * 2019): with ξ_i = θ̂_i − θ_i^k, agent i transmits θ_i^k when ‖ξ_i‖ ≥ h(k), and then
 * θ̂_i ← θ_i^k; otherwise it sends nothing and θ̂_i stays. Returns 1 when it transmits.
 * ‖·‖ is the Euclidean norm over the len numbers.
 */
int polka_coke_censor(size_t len, const double *theta, double threshold, double *shared);

#endif
