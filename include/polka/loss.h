/**
 * @file loss.h
 * @brief Losses ℓ(f(x), y) and their gradients with respect to the C-vector f(x).
 *
 * Classification labels are class indices 0..K−1 (stored as doubles). Multi-class losses
 * use C = K outputs; binary losses use one output and map class 0 → −1, class 1 → +1.
 * Regression losses use one output and a real target.
 */
#ifndef POLKA_LOSS_H
#define POLKA_LOSS_H

#include <stddef.h>

#include "polka/error.h"

typedef enum {
    POLKA_LOSS_MULTI_HINGE,     /**< max(0, 1 + f_r − f_y), r = argmax_{c≠y} f_c */
    POLKA_LOSS_MULTI_LOGISTIC,  /**< log Σ_c e^{f_c} − f_y */
    POLKA_LOSS_HINGE,           /**< max(0, 1 − y f) */
    POLKA_LOSS_LOGISTIC,        /**< log(1 + e^{−y f}) */
    POLKA_LOSS_SQUARE,          /**< ½ (f − y)² */
    POLKA_LOSS_ABSOLUTE,        /**< |f − y| */
    POLKA_LOSS_EPS_INSENSITIVE, /**< max(0, |f − y| − ε) */
    POLKA_LOSS_SOFT_MARGIN,     /**< NORMA: max(0, ρ − y f), margin error when y f ≤ ρ */
    POLKA_LOSS_NOVELTY,         /**< NORMA novelty: max(0, ρ − f), labels ignored */
    POLKA_LOSS_HUBER /**< |f − y| − δ/2 when |f − y| > δ, else (f − y)²/(2δ) */
} polka_loss_kind;

typedef struct {
    polka_loss_kind kind;
    double epsilon; /**< width of the ε-insensitive tube */
    double rho;     /**< margin ρ ≥ 0 (soft-margin; 0 = the perceptron) or threshold (novelty) */
    double delta;   /**< Huber's δ > 0 */
} polka_loss;

/** Parses a loss name (multi-hinge, multi-logistic, hinge, logistic, square, absolute,
 * eps-insensitive, soft-margin, novelty, huber). */
polka_status polka_loss_kind_parse(const char *name, polka_loss_kind *kind);
const char *polka_loss_kind_name(polka_loss_kind kind);

/**
 * What a run's score means for a loss: "accuracy" (classification), "flagged" (novelty: the
 * fraction of points with f < ρ) or "mse" (regression). Pure.
 */
const char *polka_loss_score_name(polka_loss_kind kind);

/** 1 for classification losses, 0 for regression and novelty. Pure. */
int polka_loss_is_classification(polka_loss_kind kind);

/** Outputs C of the model for a loss and a number of classes (ignored for regression). */
size_t polka_loss_outputs(polka_loss_kind kind, size_t classes);

/**
 * Checks that a loss fits a task with the given number of classes (0 = regression).
 * Novelty detection ignores the labels and fits any task.
 */
const char *polka_loss_check(const polka_loss *loss, size_t classes);

/**
 * ℓ(f, y) for the C-vector f; writes ∂ℓ/∂f into grad (C numbers) when grad is not NULL.
 * At kinks (hinge at the margin, |·| at 0) the subgradient 0 is taken, except for the
 * soft margin, which counts y f = ρ as a margin error (NORMA §III-A: with ρ = 0 it updates
 * on every mistake y f ≤ 0, as the kernel perceptron does).
 */
double polka_loss_eval(const polka_loss *loss, const double *f, size_t c, double y, double *grad);

/**
 * The predicted class (classification), value (regression) or novelty flag (1 when f < ρ)
 * for the C-vector f. Pure.
 */
double polka_loss_predict(const polka_loss *loss, const double *f, size_t c);

/**
 * The score a run reports for the outputs f (n×C) of n points with labels y, `classes`
 * classes (0: regression): the fraction flagged (novelty), the accuracy (classes > 0) or
 * the mean squared error of the predictions. The mean loss goes into *mean_loss and each
 * point's polka_loss_predict into predictions (n), each when not NULL. Pure.
 */
double polka_loss_score(const polka_loss *loss, size_t classes, const double *f, const double *y,
                        size_t n, double *predictions, double *mean_loss);

/** The sum of squared errors Σ_i (f_i − y_i)² of n one-output values: the one place an MSE
 * is summed. Pure. */
double polka_squared_error(const double *f, const double *y, size_t n);

#endif
