/**
 * @file slkl.h
 * @brief SLKL, stochastic low-rank kernel learning for regression ([MPARG11]), and
 *        exact kernel ridge regression (KRR).
 *
 * Both learners solve the ridge problem min_f (1/n) Σ_i (y_i − f(x_i))² + λ‖f‖², so with the
 * Gram matrix K their weights are α = (K + nλI)⁻¹ y and f(x) = Σ_i α_i k(x_i, x). The
 * paper's λ (on the unnormalised sum of squares) is Λ = nλ here.
 *
 * SLKL replaces K by a conic combination of rank-1 Nyström kernels, one per candidate point
 * x_m of a random subset S of the training set (|S| = M, eqs. 1–3):
 *   k̃_m(x, x') = k(x, x_m) k(x_m, x') / k(x_m, x_m),   K̃(μ) = Σ_m μ_m c_m c_mᵀ,  μ ≥ 0,
 * with c_m = K[:, m] / √k(x_m, x_m), and learns μ by minimising the convex (eq. 14)
 *   F(μ) = Λ yᵀ (ΛI + K̃(μ))⁻¹ y + ν Σ_m μ_m
 * with stochastic coordinate Newton descent (Algorithm 2): a coordinate m drawn uniformly
 * from S, a = yᵀR c_m, b = c_mᵀR c_m with R = (ΛI + K̃(μ))⁻¹, then
 *   ∂F/∂μ_m = −Λa² + ν (eq. 20),   ∂²F/∂μ_m² = 2Λa²b (eq. 21; Algorithm 2 prints Λa²b),
 *   μ_m ← max(0, μ_m − ∂F/∂μ_m / ∂²F/∂μ_m²)  (eq. 19).
 * R is kept through G = (D⁻¹ + CᵀC/Λ)⁻¹ over the active kernels (μ_m > 0; eqs. 22–27).
 * The run stops at the first k ≥ W with a relative decrease below ε over the last W steps:
 *   F(μ^{k−W}) − F(μ^k) < ε F(μ^{k−W})
 * (the paper prints F(μ^k) − F(μ^{k−W}) < ε F(μ^{k−W}), which is always true).
 *
 * Along a coordinate F is known in closed form, F(μ + t e_m) − F(μ) = −Λa²t/(1 + tb) + νt,
 * so every step's decrease is exact and cheap. The quadratic model of eq. 18 is an upper
 * bound of F only for t ≥ 0 (∂³F/∂μ_m³ ≤ 0): a Newton step that lowers μ_m can overshoot
 * and raise F. Such a step is replaced by the exact minimiser along the coordinate,
 * t* = (√(Λa²/ν) − 1)/b clipped to t ≥ −μ_m, so F never increases (counted in the stats).
 *
 * The prediction is KRR with K̃(μ): f(x) = Σ_{m active} β_m k(x_m, x), one term per active
 * kernel (eqs. 16–17), β_m = μ_m c_mᵀα / √k(x_m, x_m) = (G z)_m / (Λ √k(x_m, x_m)), z = Cᵀy.
 *
 * Cost: building the state computes the n×M columns and the M×M cross Gram CᵀC once
 * (O(nM(M + p))); each iteration then costs O(m0²), m0 the number of active kernels.
 * None of these functions is collective; the library never prints. After a call on a
 * polka_slkl fails, the state is undefined: only polka_slkl_free it.
 */
#ifndef POLKA_SLKL_H
#define POLKA_SLKL_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"
#include "polka/kernel.h"
#include "polka/model.h"

/* ---------------------------------------------------------------- kernel ridge regression */

/**
 * Solves (K + nλI) α = y for a given n×n Gram matrix (row-major, unchanged) with
 * LAPACKE_dposv, into alpha (n).
 */
polka_status polka_krr_solve(const double *gram, const double *y, size_t n, double lambda,
                             double *alpha);

/**
 * Exact KRR on n points x (n×p) with targets y: a model with all n points as dictionary and
 * α as weights (one output). O(n²p + n³/3). The caller owns *out.
 */
polka_status polka_krr_fit(const polka_kernel *kernel, const double *x, const double *y, size_t n,
                           size_t p, double lambda, polka_model **out);

/** Mean squared error (1/n) Σ (f(x_i) − y_i)² of a one-output model on n points. */
polka_status polka_krr_mse(const polka_model *model, const double *x, const double *y, size_t n,
                           double *mse);

/* ------------------------------------------------------------------------------------ SLKL */

/** The rank-1 Nyström kernel k̃_i(x, x') = k(x, x_i) k(x_i, x') / k(x_i, x_i) (eq. 1). Pure. */
double polka_nystrom_rank1(const polka_kernel *kernel, const double *x, const double *xprime,
                           const double *xi, size_t p);

typedef enum {
    POLKA_SLKL_NEWTON, /**< the paper's coordinate Newton step (eq. 19), safeguarded */
    POLKA_SLKL_EXACT,  /**< the exact minimiser of F along the coordinate */
} polka_slkl_step_rule;

typedef struct {
    polka_kernel kernel;
    double lambda;     /**< ridge λ (the paper's λ is nλ; paper: nλ = 1) */
    double nu;         /**< ν, the ℓ1 penalty on μ (eq. 14); only λν matters (Prop. 3) */
    size_t candidates; /**< M = |S|, drawn without replacement from the data; 0: all n */
    size_t window;     /**< W of the stopping test; 0: W = M, as in the paper */
    double tol;        /**< ε of the stopping test (paper: 1e-4); 0: never stop early */
    size_t max_iter;   /**< iteration cap of one polka_slkl_run; 0: 1000·M */
    size_t refresh;    /**< rebuild G by Cholesky every so many μ changes; 0: never */
    polka_slkl_step_rule step;
    uint64_t seed; /**< candidate subset and coordinate draws (polka_rng streams) */
} polka_slkl_params;

/** What one coordinate update did. */
typedef struct {
    size_t coord;          /**< m, an index into the candidates */
    double mu_old, mu_new; /**< μ_m before and after */
    double d1, d2;         /**< ∂F/∂μ_m and ∂²F/∂μ_m² before the step */
    double f_old, f_new;   /**< F before and after */
    int safeguarded;       /**< 1 when a Newton step was replaced by the exact minimiser */
} polka_slkl_update;

typedef struct {
    size_t iterations;  /**< coordinate updates done by this call */
    size_t active;      /**< m0 = ‖μ‖₀ at the end */
    double objective;   /**< F at the end */
    int converged;      /**< 1: stopped by the relative-decrease test, 0: by max_iter */
    size_t safeguarded; /**< Newton steps replaced by the exact minimiser */
    size_t refreshes;   /**< fresh Cholesky rebuilds of G */
} polka_slkl_stats;

typedef struct polka_slkl_s polka_slkl;

/** The paper's settings: Gaussian σ = 1, λ = 1e-3 (nλ = 1 at n = 1000), ν = 0.01, ε = 1e-4. */
polka_slkl_params polka_slkl_defaults(void);

/** Returns NULL when the parameters are valid, else a message. Pure. */
const char *polka_slkl_check(const polka_slkl_params *params);

/**
 * The stopping test: 1 when the relative decrease (f_old − f_new) / f_old is below tol. Pure.
 */
int polka_slkl_converged(double f_old, double f_new, double tol);

/**
 * Draws the candidates and precomputes their columns, CᵀC and Cᵀy; starts at μ = 0
 * (F = ‖y‖²). x (n×p) and y are copied as needed. The caller owns *out.
 */
polka_status polka_slkl_create(const polka_slkl_params *params, const double *x, const double *y,
                               size_t n, size_t p, polka_slkl **out);

/** Frees the state and sets the handle to NULL; NULL-safe. */
void polka_slkl_free(polka_slkl **slkl);

/** One stochastic coordinate update (Algorithm 2's loop body); update may be NULL. */
polka_status polka_slkl_iterate(polka_slkl *slkl, polka_slkl_update *update);

/** Iterates until the stopping test or max_iter; stats may be NULL. */
polka_status polka_slkl_run(polka_slkl *slkl, polka_slkl_stats *stats);

/** polka_slkl_run with its own cap of max_iter updates (the test window carries over). */
polka_status polka_slkl_run_for(polka_slkl *slkl, size_t max_iter, polka_slkl_stats *stats);

/** The learned predictor: one term per active kernel (eq. 16). The caller owns *out. */
polka_status polka_slkl_model(const polka_slkl *slkl, polka_model **out);

/** F(μ) at the current μ (tracked exactly along each step, refreshed with G). */
double polka_slkl_objective(const polka_slkl *slkl);

/** m0, the number of active kernels (μ_m > 0). */
size_t polka_slkl_active(const polka_slkl *slkl);

/** M, the number of candidates. */
size_t polka_slkl_candidates(const polka_slkl *slkl);

/** μ (M numbers, in the order of the candidates); valid until the next update. */
const double *polka_slkl_mu(const polka_slkl *slkl);

/** The training-set index of each candidate (M numbers). */
const size_t *polka_slkl_candidate_index(const polka_slkl *slkl);

/** ∂F/∂μ_m and ∂²F/∂μ_m² at the current μ (eqs. 20–21), m a candidate index. */
polka_status polka_slkl_derivatives(const polka_slkl *slkl, size_t m, double *d1, double *d2);

/**
 * The test oracle: F(mu) for any M-vector mu (entries may be slightly negative) from a dense
 * Cholesky of ΛI + Σ_m mu_m c_m c_mᵀ (O(n²M + n³)).
 */
polka_status polka_slkl_objective_ref(const polka_slkl *slkl, const double *mu, double *out);

#endif
