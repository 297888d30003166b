/* Private layout of polka_model, shared by the core's model-order controls. */
#ifndef POLKA_MODEL_IMPL_H
#define POLKA_MODEL_IMPL_H

#include <stdint.h>

#include "polka/model.h"

struct polka_model_s {
    polka_kernel kernel;
    size_t p, c;     /* input dimension, outputs */
    size_t m, cap;   /* model order, allocated rows */
    double *dict;    /* cap × p */
    double *weights; /* cap × c */
    double *sqnorm;  /* cap: ‖d_m‖², cached for the kernel blocks */
    /* Bumped whenever a stored point changes or goes (appending leaves it): kernel rows
     * computed against the first m points stay valid while it and m hold. */
    uint64_t version;
};

/** Makes room for at least m points. */
polka_status polka_model_reserve(polka_model *model, size_t m);

/** Removes point j (dictionary row, weight row, cached norm), keeping the order of the rest. */
void polka_model_remove(polka_model *model, size_t j);

/** polka_model_eval that also leaves the n × m kernel block K(X, D) in k_out. */
polka_status polka_model_eval_keep(const polka_model *model, const double *x, size_t n,
                                   double *f_out, double *k_out);

/** Keeps the points whose drop flag is 0, in order (one pass over the rows). */
void polka_model_keep(polka_model *model, const unsigned char *drop);

#endif
