/**
 * @file learner.h
 * @brief Online kernel learners: functional SGD plus a swappable model-order control.
 *
 * A step is split in the three operations the decentralized penalty step needs
 * (docs/design.md): evaluate f, take a gradient step with given coefficients, control the
 * model order. polka_learner_step() does all three for one agent on its own loss.
 *
 * The controls (polka_control_kind, one line each of POLKA_CONTROL_LIST):
 * - komp: POLK, destructive KOMP to the error bound ε ([KWSR19]).
 * - none: plain functional SGD, every point is kept.
 * - norma: NORMA truncation ([KSW04]): the newest `tau` terms are kept. The weights decay
 *   by (1 − η_t λ) per step through one global scale s (true weights = s · stored), an O(1)
 *   decay; s is folded into the stored weights when it falls below 1e-100 and whenever the
 *   model is read (polka_learner_model), so readers always see the true weights.
 * - bsgd-remove, bsgd-project, bsgd-merge: budgeted SGD (Wang, Crammer, Vucetic 2012): at
 *   most `budget` points; while there are more, the point with the smallest
 *   ‖w_m‖²k(x_m,x_m) is removed, or removed after projecting its term onto the other points
 *   (all of them, or the `neighbours` most correlated), or merged with the partner that
 *   loses least into one Gaussian point (Gaussian kernel only).
 * - nbsgd-remove, nbsgd-project: nonparametric BSGD ([LNNP16]): like BSGD, but each new
 *   point beyond `budget` triggers the maintenance only with probability min(β/t, 1),
 *   so the model grows with the data; the draws are counter-based (seed, t).
 * With the square loss and 0 < λ ≤ 1, bsgd-* and nbsgd-* project the iterate onto the ball
 * ‖w‖_H ≤ y_max/√λ after the maintenance ([LNNP16], Alg. 2–3; y_max: the largest |y| seen).
 * none appends every point of an update; the other controls only the points whose
 * coefficient row is not all zero (a zero row does not change f; KOMP would drop it first).
 * - slkl, krr: batch regression learners, not run by polka_learner: polka_batch_fit.
 *
 * Step sizes (polka_schedule_kind): η_t = η (constant), η/√t (invsqrt), 1/(λ t) (pegasos,
 * BSGD/NBSGD) or η (1 − (t − 1)/T) (linear, down to η/T at the run's last update T =
 * horizon), with t the number of update calls so far (t = 1 at the first).
 *
 * NORMA's adaptive parameters ([KSW04] §III): with nu > 0 the ν-trick moves the margin ρ
 * (soft-margin, novelty) or the tube ε (eps-insensitive) after each update; with offset set,
 * f(x) + b is learned with the unregularised offset b moved by the same gradient.
 */
#ifndef POLKA_LEARNER_H
#define POLKA_LEARNER_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"
#include "polka/kernel.h"
#include "polka/komp.h"
#include "polka/loss.h"
#include "polka/model.h"
#include "polka/state.h"

/*
 * The model-order controls and the batch learners: one line each, X(ENUM, entry), in the order
 * of polka_control_kind. Each entry is a table of operations (polka_control_ops, in
 * src/core/control_impl.h) defined in its own file (control_*.c, norma.c); adding one is that
 * file and one line here.
 */
#define POLKA_CONTROL_LIST(X)                                                                      \
    X(KOMP, komp)                   /* POLK: destructive KOMP to the error bound */                \
    X(NONE, none)                   /* plain functional SGD: every point is kept */                \
    X(NORMA, norma)                 /* NORMA: keep the newest tau terms */                         \
    X(BSGD_REMOVE, bsgd_remove)     /* BSGD budget: remove the smallest term */                    \
    X(BSGD_PROJECT, bsgd_project)   /* BSGD budget: project the smallest term onto the others */   \
    X(BSGD_MERGE, bsgd_merge)       /* BSGD budget: merge the smallest term with a partner */      \
    X(NBSGD_REMOVE, nbsgd_remove)   /* NBSGD: removal with probability min(beta/t, 1) */           \
    X(NBSGD_PROJECT, nbsgd_project) /* NBSGD: projection with probability min(beta/t, 1) */        \
    X(SLKL, slkl)                   /* batch: SLKL ([MPARG11]), centralized, square loss */        \
    X(KRR, krr)                     /* batch: exact kernel ridge regression */

#define POLKA_CONTROL_ENUM(id, entry) POLKA_CONTROL_##id,
typedef enum { POLKA_CONTROL_LIST(POLKA_CONTROL_ENUM) POLKA_CONTROL_COUNT } polka_control_kind;
#undef POLKA_CONTROL_ENUM

typedef enum {
    POLKA_SCHEDULE_CONSTANT, /**< η_t = η */
    POLKA_SCHEDULE_INVSQRT,  /**< η_t = η / √t */
    POLKA_SCHEDULE_PEGASOS,  /**< η_t = 1 / (λ t) (needs λ > 0; η is not used) */
    POLKA_SCHEDULE_LINEAR,   /**< η_t = η (1 − (t − 1)/T), T = horizon, at least η/T */
} polka_schedule_kind;

/**
 * The learner's parameters. Zero is a valid value of every field added after `jitter`
 * except tau (norma) and budget (bsgd-*, nbsgd-*), which the controls that use them
 * require ≥ 1. polka_learner_defaults() gives the documented defaults.
 */
typedef struct {
    polka_kernel kernel;
    polka_loss loss; /**< loss.rho / loss.delta: soft-margin ρ, novelty ρ, Huber δ */
    polka_control_kind control;
    double eta;     /**< step size η > 0 (the constant, or the scale of η/√t) */
    double lambda;  /**< regulariser λ ≥ 0, with ηλ < 1 (pegasos: λ > 0) */
    double kp;      /**< parsimony constant K_p: ε = K_p η_t^{3/2} when epsilon < 0 */
    double epsilon; /**< the KOMP error bound ε; < 0 to derive it from K_p */
    double jitter;  /**< relative jitter on K's diagonal in KOMP and projections; 0 = default */
    polka_schedule_kind schedule; /**< step sizes; default constant */
    size_t tau;                   /**< norma: terms kept; default 1000 */
    size_t budget;                /**< bsgd-*, nbsgd-*: the budget B; default 100 */
    double beta;       /**< nbsgd-*: maintenance probability min(β/t, 1); default 1000 */
    size_t neighbours; /**< *-project: project onto the k most correlated points
                            (the k nearest for radial kernels); 0 = all; default 0 */
    double nu;         /**< ν-trick: adapt ρ or ε so that about a fraction ν of the
                            points are margin errors / novel / outside the tube;
                            0 = off (ρ, ε fixed); default 0 */
    int offset;        /**< 1 = learn an offset b (f(x) + b); default 0 */
    double suffix;     /**< bsgd-*, nbsgd-*: output the average of the iterates of
                            the last fraction γ ∈ (0, 1] of `horizon` updates;
                            0 = the last iterate; default 0 */
    uint64_t horizon;  /**< number of updates T of the run (for suffix > 0) */
    uint64_t seed;     /**< nbsgd-*: seed of the Bernoulli draws; default 0 */
} polka_learner_params;

typedef struct polka_learner_s polka_learner;

/**
 * The defaults: gaussian σ = 0.6, multi-hinge (ε 0.1, ρ 1, δ 1), komp, η = 0.5, λ = 1e-4,
 * K_p = 0.04, ε from K_p, jitter 0 (1e-10), constant steps, τ = 1000, B = 100, β = 1000,
 * all neighbours, ν = 0, no offset, last iterate, seed 0. Pure.
 */
polka_learner_params polka_learner_defaults(void);

/** Returns NULL when the parameters are valid, else a message. Pure. */
const char *polka_learner_check(const polka_learner_params *params);

/** The KOMP error bound ε the parameters give at the constant step η. Pure. */
double polka_learner_epsilon(const polka_learner_params *params);

/** Parses a control's name ("komp", "none", "norma", "bsgd-remove", …, "slkl", "krr"). */
polka_status polka_control_kind_parse(const char *name, polka_control_kind *kind);
const char *polka_control_kind_name(polka_control_kind kind);

/** What the control does and the keys it reads, one line (polka --help). Pure. */
const char *polka_control_help(polka_control_kind kind);

/** 1 for a batch learner (slkl, krr: polka_batch_fit), 0 for an online control. Pure. */
int polka_control_is_batch(polka_control_kind kind);

/** 1 when the control's error bound may remove a step whole (KOMP), so that a run can end
 * with the zero function having learned nothing; 0 otherwise. Pure. */
int polka_control_may_learn_nothing(polka_control_kind kind);

/**
 * The dense rows of the data's dimension a learner of these parameters holds at least beside
 * a batch of `batch` points: its dictionary (a budget, or at least one batch). Pure.
 */
size_t polka_control_rows_held(const polka_learner_params *params, size_t batch);

/** Parses "constant", "invsqrt", "pegasos" or "linear". */
polka_status polka_schedule_kind_parse(const char *name, polka_schedule_kind *kind);
const char *polka_schedule_kind_name(polka_schedule_kind kind);

/** The step size η_t of update t ≥ 1. Pure. */
double polka_learner_step_size(const polka_learner_params *params, uint64_t t);

/**
 * Creates a learner with an empty model for inputs of dimension p and the given number of
 * classes (0 for regression); the caller owns it.
 */
polka_status polka_learner_create(const polka_learner_params *params, size_t p, size_t classes,
                                  polka_learner **out);
void polka_learner_free(polka_learner **learner);

/**
 * The current iterate's kernel expansion, with its true weights (valid until the learner
 * changes). Not thread-safe: under norma it folds the pending scale into the weights.
 * The offset b, when learned, is apart: polka_learner_offset().
 */
const polka_model *polka_learner_model(const polka_learner *learner);

/**
 * The model the learner outputs: the suffix average of the iterates once it has started
 * (suffix > 0), else the current iterate. Valid until the learner changes; not thread-safe.
 */
polka_status polka_learner_output_model(const polka_learner *learner, const polka_model **out);

size_t polka_learner_outputs(const polka_learner *learner);

/** Updates taken so far (t of the last update). */
uint64_t polka_learner_steps(const polka_learner *learner);

/** The current margin/threshold ρ (soft-margin, novelty; adapted when ν > 0). */
double polka_learner_rho(const polka_learner *learner);

/** The current tube width ε of the eps-insensitive loss (adapted when ν > 0). */
double polka_learner_tube(const polka_learner *learner);

/** The offset b (C numbers; zeros unless params.offset). */
const double *polka_learner_offset(const polka_learner *learner);

/** f at n points (n×p) into f_out (n×C): the current iterate, plus the offset. */
polka_status polka_learner_predict(const polka_learner *learner, const double *x, size_t n,
                                   double *f_out);

/**
 * polka_learner_predict at points the next update does not learn from (e.g. a neighbour's,
 * when only the own points enter the update): the same values, but under KOMP the kernel
 * rows are not kept for the update (it recomputes them should it need them), so that the
 * learners of a rank do not all hold them between predictions and updates.
 */
polka_status polka_learner_predict_transient(const polka_learner *learner, const double *x,
                                             size_t n, double *f_out);

/** The output model (see polka_learner_output_model) at n points, plus its offset. */
polka_status polka_learner_predict_output(const polka_learner *learner, const double *x, size_t n,
                                          double *f_out);

/**
 * Loss gradients ∂ℓ/∂f at n points with model values f (n×C) into grad (n×C);
 * returns the summed loss. With ν > 0 it also records, for the next update, how many of
 * the points were margin errors / novel / outside the tube (the ν-trick's gradient).
 */
double polka_learner_loss_grad(const polka_learner *learner, const double *f, const double *y,
                               size_t n, double *grad);

/**
 * The functional SGD step f ← (1 − η_t λ) f − (η_t/n) Σ_b g_b k(x_b, ·) with coefficient rows
 * g (n×C), followed by the model-order control.
 */
polka_status polka_learner_update(polka_learner *learner, const double *x, size_t n,
                                  const double *g);

/** Training rows first .. first + count − 1 into x (count × p) and y (count), for the refit. */
typedef polka_status (*polka_rows_fn)(void *context, size_t first, size_t count, double *x,
                                      double *y);

/** The final refit's settings (learner.refit, learner.refit_iterations). */
typedef struct {
    double lambda;     /**< ridge λ > 0 */
    size_t iterations; /**< squared-hinge steps after the least squares (classification) */
    size_t memory;     /**< bytes the n × m kernel rows may take to be kept between passes
                            (the same result, faster); smaller: recomputed each pass */
} polka_refit_settings;

/** Why these parameters cannot be refitted (novelty loss, an offset, a suffix average, hinge
 * iterations on a regression loss), or NULL. Pure. */
const char *polka_learner_refit_check(const polka_learner_params *params, size_t iterations);

/**
 * The final refit (learner.refit, src/core/refit.c): the weights of the kept dictionary D
 * become the regularised least-squares fit to the n training rows, one ±1 output per class
 * (one output: the target itself): (K_nDᵀ K_nD + nλ K_DD) W = K_nDᵀ T, then `iterations`
 * majorise-minimise steps towards the squared hinge. D is unchanged. Deterministic.
 */
polka_status polka_learner_refit(polka_learner *learner, size_t n, polka_rows_fn rows,
                                 void *context, const polka_refit_settings *settings);

/**
 * The same step with the divisor B given apart from the number n of appended points:
 * f ← (1 − η_t λ) f − (η_t/B) Σ_{r<n} g_r k(x_r, ·). The symmetric penalty appends the
 * neighbours' points too while the step stays scaled by the agent's own batch. With an
 * offset, b ← b − (η_t/B) Σ_r g_r; with ν > 0, ρ or ε moves by the recorded indicators.
 */
polka_status polka_learner_update_batch(polka_learner *learner, const double *x, size_t n,
                                        const double *g, double batch);

/** One step on a mini-batch: predict, loss gradients, update. *loss_out = mean loss. */
polka_status polka_learner_step(polka_learner *learner, const double *x, const double *y, size_t n,
                                double *loss_out);

/**
 * Statistics of the last control call: points removed (KOMP, truncation, maintenance; a
 * merge counts one), points folded (KOMP) or projected, and the squared RKHS norm of
 * what the control changed (for NORMA and the budgets: Σ of the single changes).
 */
polka_komp_stats polka_learner_last_stats(const polka_learner *learner);

/**
 * Test metrics of the output model on n points: *score is the accuracy (classification),
 * the mean squared error (regression) or the fraction of points flagged, f < ρ (novelty;
 * labels ignored), *mean_loss the mean loss.
 */
polka_status polka_learner_evaluate(const polka_learner *learner, const double *x, const double *y,
                                    size_t n, double *score, double *mean_loss);

/** The score of model values f (n×C) against targets y: accuracy, MSE or flagged. Pure. */
double polka_learner_score(const polka_learner *learner, const double *f, const double *y, size_t n,
                           double *mean_loss);

/**
 * Saves everything the learner's future steps depend on into state (entries "learner.*",
 * "model.*", and "komp.*" or "budget.*"/"average.*" by control), for a checkpoint.
 */
polka_status polka_learner_save(const polka_learner *learner, polka_state *state);

/**
 * Restores a state saved by polka_learner_save into a learner just created with the same
 * parameters, dimension and classes: its next steps are bit for bit those the saved learner
 * would have taken. A state that does not fit is a format error naming the entry.
 */
polka_status polka_learner_restore(polka_learner *learner, const polka_state *state);

/** A batch learner's settings beside its polka_learner_params (slkl: the candidates M, the
 * update cap, the stopping tolerance). */
typedef struct {
    size_t candidates, max_iter;
    double tol;
} polka_batch_settings;

/** A batch fit (learner.control = slkl, krr): the whole training set at once. */
typedef struct {
    const polka_learner_params *params;
    polka_batch_settings settings;
    uint64_t seed;       /**< slkl: the draw of the candidates */
    const double *x, *y; /**< n × p training points and their n targets */
    size_t n, p;
    size_t log_every; /**< updates between two log calls of an iterative learner */
    /** Called with the model after `done` updates (krr: once, done = 1). */
    polka_status (*log)(void *context, const polka_model *model, size_t done);
    /** Optional: called after each log of an iterative learner, done of at most cap updates. */
    void (*progress)(void *context, size_t done, size_t cap);
    void *context;
    char note[256]; /**< the fit's closing line for the run's log (empty: none) */
} polka_batch_job;

/** NULL when the parameters and settings fit the batch learner params->control, else why
 * not. Pure. */
const char *polka_batch_check(const polka_learner_params *params,
                              const polka_batch_settings *settings);

/** Runs the batch learner params->control on the job's training set: *out its model (the
 * caller owns it), *rounds the updates it took. */
polka_status polka_batch_fit(polka_batch_job *job, polka_model **out, size_t *rounds);

#endif
