/**
 * @file rff.h
 * @brief Random Fourier features of the Gaussian kernel and the linear model on them: the
 * core of the random-feature learners (rf-diffusion, DKLA, COKE; rff_methods.h).
 *
 * Features (Rahimi & Recht, "Random features for large-scale kernel machines", NIPS 2007):
 *     z(x) = √(2/D) cos(Ωx + b),  ω_d ~ N(0, σ⁻² I),  b_d ~ U[0, 2π),
 * so that E[z(x)ᵀz(y)] = exp(−‖x − y‖² / (2σ²)), polka's Gaussian kernel (kernel.h) with
 * σ = learner.sigma. Feature d is drawn from the counter-based stream
 * (seed, POLKA_RFF_STREAM, d): first b_d (one uniform), then the p normals of ω_d. So every
 * agent on every rank draws the same features from one seed, whatever the placement, and
 * the first D features of a larger draw are those of a smaller one.
 *
 * The model is linear in the features: θ is D×C, row-major (as polka's weights), and the
 * values of n points with features Z (n×D) are F = Zθ (n×C). Agent i's local objective on
 * its n_i samples (Z_i, y_i) is
 *     f_i(θ) = (1/n_i) Σ_k ℓ(θᵀz_k, y_k) + (λ/2)‖θ‖²_F        (ℓ: loss.h, λ: learner.lambda)
 * and the network's problem is min_θ Σ_i f_i(θ) (Xu et al., COKE, JMLR 2021, the problem
 * DKLA and COKE solve with one θ per agent and consensus constraints).
 *
 * Everything here is a pure function of its arguments (no MPI, no global state); sums run in
 * a fixed order, so the same inputs give the same bits on any rank.
 */
#ifndef POLKA_RFF_H
#define POLKA_RFF_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"
#include "polka/loss.h"

/** The counter-based stream of the features (rng.h): distinct from the data's streams. */
#define POLKA_RFF_STREAM 0x52464600u /* "RFF\0" */

/** The largest number of features (2^24: Ω is D×p doubles). */
#define POLKA_RFF_MAX_FEATURES ((size_t)1 << 24)

/** D random Fourier features in p dimensions. Owns omega and phase (polka_rff_free). */
typedef struct {
    size_t features; /**< D */
    size_t dim;      /**< p */
    double sigma;    /**< the Gaussian kernel's bandwidth σ */
    uint64_t seed;   /**< the seed they were drawn from (0 and meaningless when adopted) */
    double *omega;   /**< Ω, D×p row-major: ω_d ~ N(0, σ⁻² I) */
    double *phase;   /**< b, D: b_d ~ U[0, 2π) */
} polka_rff;

/** The samples an objective or a step sees: n rows of features and their labels. */
typedef struct {
    const double *z; /**< n×D features (polka_rff_map) */
    const double *y; /**< n labels (class indices or targets, as loss.h) */
    size_t n;
} polka_rff_batch;

/** The shape of the model and the objective f_i above. */
typedef struct {
    size_t features; /**< D */
    size_t outputs;  /**< C (polka_loss_outputs) */
    polka_loss loss;
    double lambda; /**< λ ≥ 0 */
} polka_rff_problem;

/**
 * Draws D features in p dimensions for the Gaussian kernel of bandwidth sigma from seed
 * (the description above). POLKA_ERR_ARG for D = 0 or > POLKA_RFF_MAX_FEATURES, p = 0, or
 * sigma not positive and finite. On success *out owns two arrays; untouched on error.
 */
polka_status polka_rff_draw(size_t features, size_t dim, double sigma, uint64_t seed,
                            polka_rff *out);

/**
 * Features from stored arrays (a run file's): copies omega (D×p) and phase (D). Checks the
 * sizes and sigma as polka_rff_draw does, and that every number is finite.
 */
polka_status polka_rff_adopt(size_t features, size_t dim, double sigma, uint64_t seed,
                             const double *omega, const double *phase, polka_rff *out);

/** Frees the arrays and zeroes *rff. NULL-safe, and safe on a zeroed struct. */
void polka_rff_free(polka_rff *rff);

/** Z = √(2/D) cos(XΩᵀ + b) for n points x (n×p) into z (n×D): one dgemm and the cosines. */
void polka_rff_map(const polka_rff *rff, const double *x, size_t n, double *z);

/** z(x)ᵀz(y) for two p-vectors by plain loops: the test reference of polka_rff_map. */
double polka_rff_kernel_ref(const polka_rff *rff, const double *x, const double *y);

/** F = Zθ (n×C) for n feature rows z (n×D) and θ (D×C). */
void polka_rff_values(const double *z, size_t n, size_t features, const double *theta,
                      size_t outputs, double *f);

/**
 * The values f(x) = θᵀz(x) of n points x (n×p) into f (n×C), mapping them in blocks of
 * rows (bounded scratch): what predict and the test values use.
 */
polka_status polka_rff_predict(const polka_rff *rff, const double *theta, size_t outputs,
                               const double *x, size_t n, double *f);

/** A model on the features, for callers that evaluate rows through a callback
 * (polka_dataset_eval's polka_rows_eval_fn, sparse data sets). */
typedef struct {
    const polka_rff *rff;
    const double *theta; /**< D × outputs */
    size_t outputs;
} polka_rff_model;

/** polka_rff_predict of the polka_rff_model `model` at count rows x: the shape of
 * polka_rows_eval_fn (data.h), so polka_dataset_eval(data, C, polka_rff_model_rows, &m, f). */
polka_status polka_rff_model_rows(const void *model, const double *x, size_t count, double *f);

/**
 * The gradient of f_i at θ on a batch: G = Zᵀ ∇ℓ(Zθ, y) / n + λθ (D×C), with ∇ℓ row by
 * row from polka_loss_eval. *mean_loss (when not NULL) gets (1/n) Σ_k ℓ. A batch of n = 0
 * gives G = λθ and a mean loss of 0.
 */
polka_status polka_rff_gradient(const polka_rff_problem *problem, const polka_rff_batch *batch,
                                const double *theta, double *grad, double *mean_loss);

/** f_i(θ) = (1/n) Σ_k ℓ(θᵀz_k, y_k) + (λ/2)‖θ‖²_F on a batch. */
polka_status polka_rff_objective(const polka_rff_problem *problem, const polka_rff_batch *batch,
                                 const double *theta, double *value);

/**
 * One (stochastic) gradient step θ ← θ − η G(θ) on a batch: the centralized online learner
 * on the features (one mini-batch of the union per round), and rf-diffusion's adapt step.
 */
polka_status polka_rff_sgd_step(const polka_rff_problem *problem, const polka_rff_batch *batch,
                                double eta, double *theta);

/**
 * Adds weight·(ZᵀZ) to gram (D×D) and weight·(Zᵀy) to rhs (D): the normal equations of
 * the squared loss, accumulated block by block (one output).
 */
void polka_rff_normal_add(const polka_rff_batch *batch, size_t features, double weight,
                          double *gram, double *rhs);

/**
 * Solves (gram + shift·I) θ = rhs by Cholesky (LAPACKE_dposv); gram (D×D) is overwritten
 * by its factor and rhs (D×C) by θ. POLKA_ERR_NUMERIC when the matrix is not positive
 * definite.
 */
polka_status polka_rff_ridge_solve(double *gram, double *rhs, size_t features, size_t outputs,
                                   double shift);

/** POLKA_OK when the problem is the squared loss with one output (what the exact solvers
 * need), else POLKA_ERR_ARG: "WHO needs the square loss with one output (got …)". */
polka_status polka_rff_check_square(const polka_rff_problem *problem, const char *who);

/**
 * The minimiser of Σ_i f_i for the squared loss over `agents` local data sets: the
 * centralized random-feature solution DKLA converges to,
 *     (Σ_i Z_iᵀZ_i / n_i + N λ I) θ* = Σ_i Z_iᵀ y_i / n_i       (N = agents),
 * which for equal n_i is ridge regression on the union of the data, (ZᵀZ + nλI)θ* = Zᵀy
 * (n = Σ n_i). theta (D) gets θ*. POLKA_ERR_ARG unless the loss is square (one output) and
 * every agent has data.
 */
polka_status polka_rff_central_ridge(const polka_rff_problem *problem,
                                     const polka_rff_batch *agents_data, size_t agents,
                                     double *theta);

#endif
