/*
 * Nonparametric budgeted SGD ([LNNP16]): the Bernoulli
 * gate of the budget maintenance, and the γ-suffix average of the iterates (Alg. 3's
 * output w̄ = (w_{(1−γ)T+1} + … + w_T)/(γT)).
 *
 * The suffix average is a second expansion over every point that was ever in the model
 * during the suffix: each point has an id (polka_maintenance), and after each update t in the
 * suffix its current weight row is added to its sum. A point removed, projected or merged
 * away keeps the weight it had accumulated, so the average's order exceeds the budget
 * ([LNNP16] Remark 13).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "control_impl.h"
#include "polka/rng.h"

/* The counter-based stream of the Bernoulli draws, under the learner's seed. */
#define NBSGD_STREAM 0x4e425347u

int polka_nbsgd_fires(const polka_maintenance *state, uint64_t t, uint64_t r) {
    double probability = fmin(state->beta / (double)t, 1.0);
    polka_rng rng = polka_rng_start(state->seed, NBSGD_STREAM, t);
    double u = polka_rng_uniform(&rng);
    for (uint64_t k = 0; k < r; k++) u = polka_rng_uniform(&rng);
    return u < probability;
}

polka_status polka_average_create(size_t p, size_t c, double suffix, uint64_t horizon,
                                  polka_average **out) {
    POLKA_CHECK(suffix > 0 && suffix <= 1, POLKA_ERR_ARG, "suffix fraction must be in (0, 1]");
    polka_average *average = calloc(1, sizeof *average);
    POLKA_CHECK_ALLOC(average);
    average->p = p;
    average->c = c;
    average->start = (uint64_t)floor((1.0 - suffix) * (double)horizon);
    average->bsum = calloc(c, sizeof *average->bsum);
    if (average->bsum == NULL) {
        free(average);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for the suffix average");
    }
    *out = average;
    return POLKA_OK;
}

void polka_average_free(polka_average **average) {
    if (average == NULL || *average == NULL) return;
    free((*average)->x);
    free((*average)->wsum);
    free((*average)->bsum);
    polka_model_free(&(*average)->view);
    free(*average);
    *average = NULL;
}

polka_status polka_average_add_point(polka_average *average, const double *x) {
    if (average->n == average->cap) {
        size_t cap = average->cap ? 2 * average->cap : 256;
        double *xs = realloc(average->x, cap * average->p * sizeof *xs);
        POLKA_CHECK_ALLOC(xs);
        average->x = xs;
        double *wsum = realloc(average->wsum, cap * average->c * sizeof *wsum);
        POLKA_CHECK_ALLOC(wsum);
        average->wsum = wsum;
        average->cap = cap;
    }
    memcpy(average->x + average->n * average->p, x, average->p * sizeof *x);
    memset(average->wsum + average->n * average->c, 0, average->c * sizeof *average->wsum);
    average->n++;
    return POLKA_OK;
}

void polka_average_accumulate(polka_average *average, const polka_model *model, const size_t *ids,
                              const double *offset, uint64_t t) {
    if (t <= average->start) return;
    size_t c = average->c;
    for (size_t j = 0; j < model->m; j++)
        for (size_t k = 0; k < c; k++) average->wsum[ids[j] * c + k] += model->weights[j * c + k];
    for (size_t k = 0; k < c; k++) average->bsum[k] += offset[k];
    average->count++;
    average->stale = 1;
}

/* The view: the ids with a non-zero sum, weights sum / count. */
static polka_status materialise(polka_average *average, const polka_model *like) {
    size_t p = average->p, c = average->c;
    if (average->view == NULL) POLKA_CALL(polka_model_create(&like->kernel, p, c, &average->view));
    polka_model *view = average->view;
    view->m = 0;
    double inverse = 1.0 / (double)average->count;
    for (size_t id = 0; id < average->n; id++) {
        const double *w = average->wsum + id * c;
        int nonzero = 0;
        for (size_t k = 0; k < c; k++) nonzero |= w[k] != 0.0;
        if (!nonzero) continue;
        POLKA_CALL(polka_model_append(view, average->x + id * p, 1, w));
        for (size_t k = 0; k < c; k++) view->weights[(view->m - 1) * c + k] *= inverse;
    }
    average->stale = 0;
    return POLKA_OK;
}

polka_status polka_average_model(polka_average *average, const polka_model *like,
                                 const polka_model **out, double *offset) {
    if (average->count == 0) {
        *out = NULL;
        return POLKA_OK;
    }
    if (average->stale || average->view == NULL) POLKA_CALL(materialise(average, like));
    for (size_t k = 0; k < average->c; k++) offset[k] = average->bsum[k] / (double)average->count;
    *out = average->view;
    return POLKA_OK;
}
