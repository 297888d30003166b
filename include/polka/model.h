/**
 * @file model.h
 * @brief The kernel expansion f(x) = Σ_m w_m k(d_m, x) with C outputs.
 *
 * Dictionary D is M×p, weights W are M×C, both row-major; M is the model order.
 */
#ifndef POLKA_MODEL_H
#define POLKA_MODEL_H

#include <stddef.h>

#include "polka/error.h"
#include "polka/kernel.h"

typedef struct polka_model_s polka_model;

/** Creates an empty model (M = 0) in p dimensions with c outputs; the caller owns it. */
polka_status polka_model_create(const polka_kernel *kernel, size_t p, size_t c, polka_model **out);

/** Frees a model and sets the handle to NULL; NULL-safe. */
void polka_model_free(polka_model **model);

/** A deep copy; the caller owns it. */
polka_status polka_model_clone(const polka_model *model, polka_model **out);

size_t polka_model_order(const polka_model *model);
size_t polka_model_dim(const polka_model *model);
size_t polka_model_outputs(const polka_model *model);
const polka_kernel *polka_model_kernel(const polka_model *model);
/** The M×p dictionary (valid until the model changes). */
const double *polka_model_dictionary(const polka_model *model);
/** The M×C weights (valid until the model changes). */
const double *polka_model_weights(const polka_model *model);

/** f at n points x (n×p) into f_out (n×C), with BLAS level 3 in row blocks. */
polka_status polka_model_eval(const polka_model *model, const double *x, size_t n, double *f_out);

/** W ← factor·W. */
void polka_model_scale(polka_model *model, double factor);

/** Appends n points x (n×p) with weight rows w (n×C). */
polka_status polka_model_append(polka_model *model, const double *x, size_t n, const double *w);

/** Replaces the whole expansion by m points and weights (e.g. when loading a model). */
polka_status polka_model_assign(polka_model *model, const double *d, const double *w, size_t m);

/** ‖f‖²_H = Σ_c w_cᵀ K w_c (O(M²p)); for tests and diagnostics. */
polka_status polka_model_sqnorm(const polka_model *model, double *out);

#endif
