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
    POLKA_LOSS_MULTI_HINGE,    /**< max(0, 1 + f_r − f_y), r = argmax_{c≠y} f_c */
    POLKA_LOSS_MULTI_LOGISTIC, /**< log Σ_c e^{f_c} − f_y */
    POLKA_LOSS_HINGE,          /**< max(0, 1 − y f) */
    POLKA_LOSS_LOGISTIC,       /**< log(1 + e^{−y f}) */
    POLKA_LOSS_SQUARE,         /**< ½ (f − y)² */
    POLKA_LOSS_ABSOLUTE,       /**< |f − y| */
    POLKA_LOSS_EPS_INSENSITIVE /**< max(0, |f − y| − ε) */
} polka_loss_kind;

typedef struct {
    polka_loss_kind kind;
    double epsilon; /**< width of the ε-insensitive tube */
} polka_loss;

/** Parses a loss name (multi-hinge, multi-logistic, hinge, logistic, square, absolute,
 * eps-insensitive). */
polka_status polka_loss_kind_parse(const char *name, polka_loss_kind *kind);
const char *polka_loss_kind_name(polka_loss_kind kind);

/** 1 for classification losses, 0 for regression. Pure. */
int polka_loss_is_classification(polka_loss_kind kind);

/** Outputs C of the model for a loss and a number of classes (ignored for regression). */
size_t polka_loss_outputs(polka_loss_kind kind, size_t classes);

/** Checks that a loss fits a task with the given number of classes (0 = regression). */
const char *polka_loss_check(const polka_loss *loss, size_t classes);

/**
 * ℓ(f, y) for the C-vector f; writes ∂ℓ/∂f into grad (C numbers) when grad is not NULL.
 * At kinks (hinge at the margin, |·| at 0) the subgradient 0 is taken.
 */
double polka_loss_eval(const polka_loss *loss, const double *f, size_t c, double y, double *grad);

/** The predicted class (classification) or value (regression) for the C-vector f. Pure. */
double polka_loss_predict(const polka_loss *loss, const double *f, size_t c);

#endif
