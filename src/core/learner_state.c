/*
 * A learner's state for a checkpoint: everything its future updates read, so that a learner
 * restored into a fresh polka_learner_create of the same parameters takes bit for bit the
 * steps the saved one would have taken: the learner's own numbers and the model here, then
 * what its control keeps (the control's save and restore: control_komp.c, control_budget.c).
 * A checkpoint is input: every count that sizes an allocation is checked first against an
 * entry the file really holds (whose size the reader checked against the file) or against the
 * memory limit, and every index against what it indexes, before anything uses it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learner_impl.h"
#include "polka/state.h"

/* The learner's arrays by reference: a checkpoint is written before the learner moves on. */
polka_status polka_learner_put_f64s(polka_state *s, const char *name, const double *v, size_t n) {
    return polka_state_put_ref(s, name, POLKA_STATE_F64, v, n);
}

polka_status polka_learner_get_f64s(const polka_state *s, const char *name, double *v, size_t n) {
    return polka_state_get(s, name, POLKA_STATE_F64, v, n);
}

/* size_t arrays travel as uint64 */
polka_status polka_learner_put_sizes(polka_state *s, const char *name, const size_t *v, size_t n) {
    uint64_t *words = malloc((n ? n : 1) * sizeof *words);
    POLKA_CHECK_ALLOC(words);
    for (size_t k = 0; k < n; k++) words[k] = v[k];
    polka_status status = polka_state_put(s, name, POLKA_STATE_U64, words, n);
    free(words);
    return status;
}

polka_status polka_learner_get_sizes(const polka_state *s, const char *name, size_t *v, size_t n) {
    uint64_t *words = malloc((n ? n : 1) * sizeof *words);
    POLKA_CHECK_ALLOC(words);
    polka_status status = polka_state_get(s, name, POLKA_STATE_U64, words, n);
    for (size_t k = 0; k < n && status == POLKA_OK; k++) v[k] = (size_t)words[k];
    free(words);
    return status;
}

static polka_status save_model(const polka_model *model, polka_state *s) {
    POLKA_CALL(polka_state_put_u64(s, "model.order", model->m));
    POLKA_CALL(polka_learner_put_f64s(s, "model.dictionary", model->dict, model->m * model->p));
    POLKA_CALL(polka_learner_put_f64s(s, "model.weights", model->weights, model->m * model->c));
    return polka_learner_put_f64s(s, "model.sqnorm", model->sqnorm, model->m);
}

static int all_finite(const double *values, size_t n) {
    for (size_t e = 0; e < n; e++)
        if (!isfinite(values[e])) return 0;
    return 1;
}

/* The order sizes every array: it must be the count of the stored norms (an entry whose size
 * the reader checked against the file) before anything is allocated for it. */
static polka_status restore_model(polka_model *model, const polka_state *s) {
    size_t m = 0, norms = 0;
    POLKA_CALL(polka_learner_get_sizes(s, "model.order", &m, 1));
    POLKA_CALL(polka_state_size(s, "model.sqnorm", &norms));
    POLKA_CHECK(m == norms, POLKA_ERR_FORMAT,
                "the checkpoint's model order %zu is not the count of its squared norms (%zu)", m,
                norms);
    POLKA_CALL(polka_model_reserve(model, m));
    POLKA_CALL(polka_learner_get_f64s(s, "model.dictionary", model->dict, m * model->p));
    POLKA_CALL(polka_learner_get_f64s(s, "model.weights", model->weights, m * model->c));
    POLKA_CALL(polka_learner_get_f64s(s, "model.sqnorm", model->sqnorm, m));
    POLKA_CHECK(all_finite(model->dict, m * model->p) && all_finite(model->weights, m * model->c) &&
                    all_finite(model->sqnorm, m),
                POLKA_ERR_FORMAT,
                "the checkpoint's model holds a non-finite number (its run had diverged before "
                "the checkpoint was written)");
    model->m = m;
    model->version++;
    return POLKA_OK;
}

polka_status polka_learner_save(const polka_learner *learner, polka_state *s) {
    const learner_cache *cache = learner->cache;
    double scalars[6] = {learner->loss.rho,   learner->loss.epsilon, cache->scale,
                         cache->pending_hits, cache->pending_points, cache->y_max};
    POLKA_CALL(polka_state_put_u64(s, "learner.steps", learner->steps));
    POLKA_CALL(polka_state_put(s, "learner.scalars", POLKA_STATE_F64, scalars, 6));
    POLKA_CALL(polka_learner_put_f64s(s, "learner.offset", learner->offset, learner->outputs));
    POLKA_CALL(polka_learner_put_f64s(s, "learner.output_offset", learner->output_offset,
                                      learner->outputs));
    POLKA_CALL(save_model(learner->model, s));
    return learner->control->save ? learner->control->save(learner, s) : POLKA_OK;
}

polka_status polka_learner_restore(polka_learner *learner, const polka_state *s) {
    double scalars[6];
    POLKA_CALL(polka_state_get_u64(s, "learner.steps", &learner->steps));
    POLKA_CALL(polka_learner_get_f64s(s, "learner.scalars", scalars, 6));
    learner->loss.rho = scalars[0], learner->loss.epsilon = scalars[1];
    learner_cache *cache = learner->cache;
    cache->scale = scalars[2], cache->pending_hits = scalars[3];
    cache->pending_points = scalars[4], cache->y_max = scalars[5];
    POLKA_CALL(polka_learner_get_f64s(s, "learner.offset", learner->offset, learner->outputs));
    POLKA_CALL(polka_learner_get_f64s(s, "learner.output_offset", learner->output_offset,
                                      learner->outputs));
    POLKA_CALL(restore_model(learner->model, s));
    return learner->control->restore ? learner->control->restore(learner, s) : POLKA_OK;
}
