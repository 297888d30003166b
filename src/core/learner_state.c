/*
 * A learner's state for a checkpoint: everything its future updates read, so that a learner
 * restored into a fresh polka_learner_create of the same parameters takes bit for bit the
 * steps the saved one would have taken. KOMP's inverse is saved as it stands (G_base and the
 * pending rank-one terms), not rebuilt: a fresh factorisation would round differently.
 */
#include <stdlib.h>
#include <string.h>

#include "komp_impl.h"
#include "learner_impl.h"
#include "polka/state.h"

/* The learner's arrays by reference: a checkpoint is written before the learner moves on. */
static polka_status put_f64s(polka_state *s, const char *name, const double *v, size_t n) {
    return polka_state_put_ref(s, name, POLKA_STATE_F64, v, n);
}

static polka_status get_f64s(const polka_state *s, const char *name, double *v, size_t n) {
    return polka_state_get(s, name, POLKA_STATE_F64, v, n);
}

/* size_t arrays travel as uint64 */
static polka_status put_sizes(polka_state *s, const char *name, const size_t *v, size_t n) {
    uint64_t *words = malloc((n ? n : 1) * sizeof *words);
    POLKA_CHECK_ALLOC(words);
    for (size_t k = 0; k < n; k++) words[k] = v[k];
    polka_status status = polka_state_put(s, name, POLKA_STATE_U64, words, n);
    free(words);
    return status;
}

static polka_status get_sizes(const polka_state *s, const char *name, size_t *v, size_t n) {
    uint64_t *words = malloc((n ? n : 1) * sizeof *words);
    POLKA_CHECK_ALLOC(words);
    polka_status status = polka_state_get(s, name, POLKA_STATE_U64, words, n);
    for (size_t k = 0; k < n && status == POLKA_OK; k++) v[k] = (size_t)words[k];
    free(words);
    return status;
}

static polka_status get_size(const polka_state *s, const char *name, size_t *value) {
    return get_sizes(s, name, value, 1);
}

static polka_status save_model(const polka_model *model, polka_state *s) {
    POLKA_CALL(polka_state_put_u64(s, "model.order", model->m));
    POLKA_CALL(put_f64s(s, "model.dictionary", model->dict, model->m * model->p));
    POLKA_CALL(put_f64s(s, "model.weights", model->weights, model->m * model->c));
    return put_f64s(s, "model.sqnorm", model->sqnorm, model->m);
}

static polka_status restore_model(polka_model *model, const polka_state *s) {
    size_t m = 0;
    POLKA_CALL(get_size(s, "model.order", &m));
    POLKA_CALL(polka_model_reserve(model, m));
    POLKA_CALL(get_f64s(s, "model.dictionary", model->dict, m * model->p));
    POLKA_CALL(get_f64s(s, "model.weights", model->weights, m * model->c));
    POLKA_CALL(get_f64s(s, "model.sqnorm", model->sqnorm, m));
    model->m = m;
    model->version++;
    return POLKA_OK;
}

/* G_base (base × base), the diagonal, positions, removal marks and the pending terms (the
 * first n entries of each; the rest are zero). */
static polka_status save_komp(const polka_komp *k, polka_state *s) {
    size_t sizes[7] = {k->known, k->base, k->n, k->span, k->nterms, k->updates, k->pending_max};
    POLKA_CALL(put_sizes(s, "komp.sizes", sizes, 7));
    POLKA_CALL(polka_state_put_f64(s, "komp.jitter", k->jitter));
    POLKA_CALL(put_f64s(s, "komp.g_base", k->g, k->base * k->base));
    double *terms = malloc((k->nterms * k->n + 1) * sizeof *terms);
    POLKA_CHECK(terms != NULL, POLKA_ERR_MEM, "out of memory for a checkpoint of KOMP");
    for (size_t t = 0; t < k->nterms; t++)
        memcpy(terms + t * k->n, k->terms + t * k->room, k->n * sizeof *terms);
    POLKA_CALL(polka_state_put_owned(s, "komp.terms", POLKA_STATE_F64, terms, k->nterms * k->n));
    POLKA_CALL(put_f64s(s, "komp.diag", k->diag, k->n));
    POLKA_CALL(put_f64s(s, "komp.sigma", k->sigma, k->nterms));
    POLKA_CALL(put_sizes(s, "komp.pos", k->pos, k->known));
    return polka_state_put_ref(s, "komp.gone", POLKA_STATE_U8, k->gone, k->known);
}

static polka_status restore_komp_arrays(polka_komp *k, const polka_state *s) {
    size_t n = k->n, room = k->room;
    POLKA_CALL(get_f64s(s, "komp.g_base", k->g, k->base * k->base));
    double *packed = malloc((k->nterms * n + 1) * sizeof *packed);
    POLKA_CHECK_ALLOC(packed);
    polka_status status = get_f64s(s, "komp.terms", packed, k->nterms * n);
    for (size_t t = 0; t < k->nterms && status == POLKA_OK; t++) {
        memcpy(k->terms + t * room, packed + t * n, n * sizeof *packed);
        memset(k->terms + t * room + n, 0, (room - n) * sizeof *packed);
    }
    free(packed);
    POLKA_CALL(status);
    POLKA_CALL(get_f64s(s, "komp.diag", k->diag, n));
    POLKA_CALL(get_f64s(s, "komp.sigma", k->sigma, k->nterms));
    POLKA_CALL(get_sizes(s, "komp.pos", k->pos, k->known));
    return polka_state_get(s, "komp.gone", POLKA_STATE_U8, k->gone, k->known);
}

/* 0 or 32·2^j: the spans polka_komp_reserve gives */
static int is_span(size_t span) {
    size_t doubling = 32;
    while (doubling < span) doubling *= 2;
    return span == 0 || span == doubling;
}

static polka_status restore_komp(polka_komp *k, const polka_state *s, size_t order) {
    size_t z[7];
    POLKA_CALL(get_sizes(s, "komp.sizes", z, 7));
    POLKA_CHECK(z[0] <= order && z[1] <= z[2] && z[2] <= z[3] && z[0] <= z[2] && z[3] < (1u << 26),
                POLKA_ERR_FORMAT, "the checkpoint's KOMP sizes are inconsistent");
    /* the same span: the same pending limit, the same arithmetic */
    POLKA_CHECK(is_span(z[3]), POLKA_ERR_FORMAT, "the checkpoint's KOMP inverse is damaged");
    POLKA_CALL(polka_komp_shape(k, z[1], z[2], z[3], z[4]));
    k->known = z[0], k->base = z[1], k->n = z[2], k->nterms = z[4];
    k->updates = z[5], k->pending_max = z[6];
    POLKA_CALL(polka_state_get_f64(s, "komp.jitter", &k->jitter));
    return restore_komp_arrays(k, s);
}

static polka_status save_bounded(const polka_maintenance *b, size_t order, polka_state *s) {
    POLKA_CALL(put_sizes(s, "budget.ids", b->ids, order));
    POLKA_CALL(polka_state_put_u64(s, "budget.next_id", b->next_id));
    const polka_average *a = b->average;
    if (a == NULL) return POLKA_OK;
    POLKA_CALL(polka_state_put_u64(s, "average.start", a->start));
    POLKA_CALL(polka_state_put_u64(s, "average.count", a->count));
    POLKA_CALL(put_f64s(s, "average.points", a->x, a->n * a->p));
    POLKA_CALL(put_f64s(s, "average.weight_sums", a->wsum, a->n * a->c));
    return put_f64s(s, "average.offset_sums", a->bsum, a->c);
}

static polka_status restore_bounded(polka_maintenance *b, size_t order, const polka_state *s) {
    if (order > b->ids_cap) {
        size_t *ids = realloc(b->ids, order * sizeof *ids);
        POLKA_CHECK_ALLOC(ids);
        b->ids = ids;
        b->ids_cap = order;
    }
    POLKA_CALL(get_sizes(s, "budget.ids", b->ids, order));
    POLKA_CALL(get_size(s, "budget.next_id", &b->next_id));
    polka_average *a = b->average;
    if (a == NULL) return POLKA_OK;
    POLKA_CALL(polka_state_get_u64(s, "average.start", &a->start));
    POLKA_CALL(polka_state_get_u64(s, "average.count", &a->count));
    size_t values = 0;
    POLKA_CALL(polka_state_size(s, "average.points", &values));
    POLKA_CHECK(a->p > 0 && values % a->p == 0, POLKA_ERR_FORMAT,
                "the checkpoint's average points do not fit the data's dimension");
    double *points = malloc((values ? values : 1) * sizeof *points);
    POLKA_CHECK_ALLOC(points);
    polka_status status = get_f64s(s, "average.points", points, values);
    a->n = 0;
    for (size_t i = 0; i < values / a->p && status == POLKA_OK; i++)
        status = polka_average_add_point(a, points + i * a->p);
    free(points);
    POLKA_CALL(status);
    POLKA_CALL(get_f64s(s, "average.weight_sums", a->wsum, a->n * a->c));
    POLKA_CALL(get_f64s(s, "average.offset_sums", a->bsum, a->c));
    a->stale = 1;
    return POLKA_OK;
}

polka_status polka_learner_save(const polka_learner *learner, polka_state *s) {
    const learner_cache *cache = learner->cache;
    double scalars[6] = {learner->loss.rho,   learner->loss.epsilon, cache->scale,
                         cache->pending_hits, cache->pending_points, cache->y_max};
    POLKA_CALL(polka_state_put_u64(s, "learner.steps", learner->steps));
    POLKA_CALL(polka_state_put(s, "learner.scalars", POLKA_STATE_F64, scalars, 6));
    POLKA_CALL(put_f64s(s, "learner.offset", learner->offset, learner->outputs));
    POLKA_CALL(put_f64s(s, "learner.output_offset", learner->output_offset, learner->outputs));
    POLKA_CALL(save_model(learner->model, s));
    if (learner->params.control == POLKA_CONTROL_KOMP) POLKA_CALL(save_komp(learner->komp, s));
    if (learner->bounded) POLKA_CALL(save_bounded(learner->bounded, learner->model->m, s));
    return POLKA_OK;
}

polka_status polka_learner_restore(polka_learner *learner, const polka_state *s) {
    double scalars[6];
    POLKA_CALL(polka_state_get_u64(s, "learner.steps", &learner->steps));
    POLKA_CALL(get_f64s(s, "learner.scalars", scalars, 6));
    learner->loss.rho = scalars[0], learner->loss.epsilon = scalars[1];
    learner_cache *cache = learner->cache;
    cache->scale = scalars[2], cache->pending_hits = scalars[3];
    cache->pending_points = scalars[4], cache->y_max = scalars[5];
    POLKA_CALL(get_f64s(s, "learner.offset", learner->offset, learner->outputs));
    POLKA_CALL(get_f64s(s, "learner.output_offset", learner->output_offset, learner->outputs));
    POLKA_CALL(restore_model(learner->model, s));
    if (learner->params.control == POLKA_CONTROL_KOMP)
        POLKA_CALL(restore_komp(learner->komp, s, learner->model->m));
    if (learner->bounded) POLKA_CALL(restore_bounded(learner->bounded, learner->model->m, s));
    return POLKA_OK;
}
