/**
 * @file learner.h
 * @brief Online kernel learners: functional SGD plus a model-order control (POLK = KOMP).
 *
 * A step is split in the three operations the decentralized penalty step needs
 * (DESIGN.md): evaluate f, take a gradient step with given coefficients, control the
 * model order. polka_learner_step() does all three for one agent on its own loss.
 */
#ifndef POLKA_LEARNER_H
#define POLKA_LEARNER_H

#include <stddef.h>

#include "polka/error.h"
#include "polka/kernel.h"
#include "polka/komp.h"
#include "polka/loss.h"
#include "polka/model.h"

typedef enum {
    POLKA_CONTROL_KOMP, /**< POLK: destructive KOMP to budget ε */
    POLKA_CONTROL_NONE, /**< plain functional SGD: every point is kept */
} polka_control_kind;

typedef struct {
    polka_kernel kernel;
    polka_loss loss;
    polka_control_kind control;
    double eta;     /**< constant step size η > 0 */
    double lambda;  /**< regulariser λ ≥ 0, with ηλ < 1 */
    double kp;      /**< parsimony constant K_p: ε = K_p η^{3/2} when epsilon < 0 */
    double epsilon; /**< the KOMP budget ε; < 0 to derive it from K_p */
    double jitter;  /**< relative jitter on K's diagonal in KOMP; 0 = default */
} polka_learner_params;

typedef struct polka_learner_s polka_learner;

/** Returns NULL when the parameters are valid, else a message. Pure. */
const char *polka_learner_check(const polka_learner_params *params);

/** The KOMP budget ε the parameters give. Pure. */
double polka_learner_budget(const polka_learner_params *params);

/** Parses "komp" or "none". */
polka_status polka_control_kind_parse(const char *name, polka_control_kind *kind);
const char *polka_control_kind_name(polka_control_kind kind);

/**
 * Creates a learner with an empty model for inputs of dimension p and the given number of
 * classes (0 for regression); the caller owns it.
 */
polka_status polka_learner_create(const polka_learner_params *params, size_t p, size_t classes,
                                  polka_learner **out);
void polka_learner_free(polka_learner **learner);

const polka_model *polka_learner_model(const polka_learner *learner);
size_t polka_learner_outputs(const polka_learner *learner);

/** f at n points (n×p) into f_out (n×C). */
polka_status polka_learner_predict(const polka_learner *learner, const double *x, size_t n,
                                   double *f_out);

/**
 * Loss gradients ∂ℓ/∂f at n points with model values f (n×C) into grad (n×C);
 * returns the summed loss.
 */
double polka_learner_loss_grad(const polka_learner *learner, const double *f, const double *y,
                               size_t n, double *grad);

/**
 * The functional SGD step f ← (1 − ηλ) f − (η/n) Σ_b g_b k(x_b, ·) with coefficient rows
 * g (n×C), followed by the model-order control.
 */
polka_status polka_learner_update(polka_learner *learner, const double *x, size_t n,
                                  const double *g);

/**
 * The same step with the divisor B given apart from the number n of appended points:
 * f ← (1 − ηλ) f − (η/B) Σ_{r<n} g_r k(x_r, ·). The symmetric penalty appends the
 * neighbours' points too while the step stays scaled by the agent's own batch.
 */
polka_status polka_learner_update_batch(polka_learner *learner, const double *x, size_t n,
                                        const double *g, double batch);

/** One POLK step on a mini-batch: predict, loss gradients, update. *loss_out = mean loss. */
polka_status polka_learner_step(polka_learner *learner, const double *x, const double *y, size_t n,
                                double *loss_out);

/** Statistics of the last control call. */
polka_komp_stats polka_learner_last_stats(const polka_learner *learner);

/**
 * Test metrics on n points: *score is the accuracy (classification) or the mean squared
 * error (regression), *mean_loss the mean loss. f_work, if not NULL, holds n×C numbers.
 */
polka_status polka_learner_evaluate(const polka_learner *learner, const double *x, const double *y,
                                    size_t n, double *score, double *mean_loss);

/** The score of model values f (n×C) against targets y: accuracy or MSE. Pure. */
double polka_learner_score(const polka_learner *learner, const double *f, const double *y, size_t n,
                           double *mean_loss);

#endif
