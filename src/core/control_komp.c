/*
 * The komp control (POLK, [KWSR19]): after each update, destructive KOMP removes points while
 * the error stays within ε = K_p η_t^{3/2} (or learner.epsilon). Its part is the KOMP inverse,
 * saved in a checkpoint as it stands (G_base and the pending rank-one terms), not rebuilt: a
 * fresh factorisation would round differently.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "komp_impl.h"
#include "learner_impl.h"
#include "polka/memory.h"

/* What komp keeps beside the model. */
typedef struct {
    polka_komp *komp;
    double epsilon; /* ε at the constant step */
} komp_part;

static double epsilon_at(const polka_learner_params *params, double eta) {
    return params->epsilon >= 0 ? params->epsilon : params->kp * pow(eta, 1.5);
}

double polka_learner_epsilon(const polka_learner_params *params) {
    return epsilon_at(params, params->eta);
}

static polka_status komp_create(polka_learner *learner, size_t p) {
    (void)p;
    komp_part *part = calloc(1, sizeof *part);
    POLKA_CHECK_ALLOC(part);
    learner->part = part;
    part->epsilon = polka_learner_epsilon(&learner->params);
    return polka_komp_create(learner->params.jitter, &part->komp);
}

static void komp_free(void *part) {
    if (part == NULL) return;
    polka_komp_free(&((komp_part *)part)->komp);
    free(part);
}

static polka_status komp_order(polka_learner *learner, uint64_t t, double eta, size_t first,
                               size_t added) {
    (void)t, (void)added;
    komp_part *part = learner->part;
    const polka_learner_params *params = &learner->params;
    polka_learner_offer_rows(learner, part->komp, first);
    double eps =
        params->schedule == POLKA_SCHEDULE_CONSTANT ? part->epsilon : epsilon_at(params, eta);
    return polka_komp_compress(part->komp, learner->model, eps, &learner->last);
}

/* G_base (base × base), the diagonal, positions, removal marks and the pending terms (the
 * first n entries of each; the rest are zero). */
static polka_status save_komp(const polka_komp *k, polka_state *s) {
    size_t sizes[7] = {k->known, k->base, k->n, k->span, k->nterms, k->updates, k->pending_max};
    POLKA_CALL(polka_learner_put_sizes(s, "komp.sizes", sizes, 7));
    POLKA_CALL(polka_state_put_f64(s, "komp.jitter", k->jitter));
    POLKA_CALL(polka_learner_put_f64s(s, "komp.g_base", k->g, k->base * k->base));
    double *terms = malloc((k->nterms * k->n + 1) * sizeof *terms);
    POLKA_CHECK(terms != NULL, POLKA_ERR_MEM, "out of memory for a checkpoint of KOMP");
    for (size_t t = 0; t < k->nterms; t++)
        memcpy(terms + t * k->n, k->terms + t * k->room, k->n * sizeof *terms);
    POLKA_CALL(polka_state_put_owned(s, "komp.terms", POLKA_STATE_F64, terms, k->nterms * k->n));
    POLKA_CALL(polka_learner_put_f64s(s, "komp.diag", k->diag, k->n));
    POLKA_CALL(polka_learner_put_f64s(s, "komp.sigma", k->sigma, k->nterms));
    POLKA_CALL(polka_learner_put_sizes(s, "komp.pos", k->pos, k->known));
    return polka_state_put_ref(s, "komp.gone", POLKA_STATE_U8, k->gone, k->known);
}

static polka_status restore_komp_arrays(polka_komp *k, const polka_state *s) {
    size_t n = k->n, room = k->room;
    POLKA_CALL(polka_learner_get_f64s(s, "komp.g_base", k->g, k->base * k->base));
    double *packed = malloc((k->nterms * n + 1) * sizeof *packed);
    POLKA_CHECK_ALLOC(packed);
    polka_status status = polka_learner_get_f64s(s, "komp.terms", packed, k->nterms * n);
    for (size_t t = 0; t < k->nterms && status == POLKA_OK; t++) {
        memcpy(k->terms + t * room, packed + t * n, n * sizeof *packed);
        memset(k->terms + t * room + n, 0, (room - n) * sizeof *packed);
    }
    free(packed);
    POLKA_CALL(status);
    POLKA_CALL(polka_learner_get_f64s(s, "komp.diag", k->diag, n));
    POLKA_CALL(polka_learner_get_f64s(s, "komp.sigma", k->sigma, k->nterms));
    POLKA_CALL(polka_learner_get_sizes(s, "komp.pos", k->pos, k->known));
    return polka_state_get(s, "komp.gone", POLKA_STATE_U8, k->gone, k->known);
}

/* Model point i sits at extended index pos[i] < n, strictly increasing; gone is 0 or 1. */
static polka_status check_komp_positions(const polka_komp *k) {
    for (size_t i = 0; i < k->known; i++) {
        POLKA_CHECK(k->pos[i] < k->n && (i == 0 || k->pos[i] > k->pos[i - 1]), POLKA_ERR_FORMAT,
                    "the checkpoint's KOMP position %zu (%zu) is outside its %zu entries or out of "
                    "order",
                    i, k->pos[i], k->n);
        POLKA_CHECK(k->gone[i] <= 1, POLKA_ERR_FORMAT,
                    "the checkpoint's KOMP removal mark %zu is %u, not 0 or 1", i,
                    (unsigned)k->gone[i]);
    }
    return POLKA_OK;
}

/* sizes: known, base, n, span, nterms, updates, pending_max. The span is what reserve made
 * (0 or 32 doubled), the inverse (base × base) and the terms (nterms × n) must fit the memory
 * limit, and nterms is the count of the saved coefficients (an entry the file holds). */
static polka_status check_komp_sizes(const size_t z[7], size_t order, const polka_state *s) {
    size_t span = z[3], terms = 0;
    int doubled = span == 0 || span >= 32;
    for (size_t d = span; doubled && d > 32; d /= 2) doubled = d % 2 == 0;
    POLKA_CHECK(z[0] <= order && z[1] <= z[2] && z[2] <= span && z[0] <= z[2] &&
                    span < (1u << 26) && doubled,
                POLKA_ERR_FORMAT,
                "the checkpoint's KOMP sizes are inconsistent (known %zu of order %zu, base %zu, "
                "n %zu, span %zu)",
                z[0], order, z[1], z[2], span);
    POLKA_CALL(polka_state_size(s, "komp.sigma", &terms));
    POLKA_CHECK(terms == z[4], POLKA_ERR_FORMAT,
                "the checkpoint's KOMP has %zu terms and %zu coefficients", z[4], terms);
    double limit = (double)polka_data_memory_limit();
    double bytes = 8.0 * ((double)z[1] * (double)z[1] + (double)terms * (double)z[2]);
    POLKA_CHECK(bytes <= limit, POLKA_ERR_FORMAT,
                "the checkpoint's KOMP inverse needs %.0f MB, more than this process may take "
                "(%.0f MB)",
                bytes / 1e6, limit / 1e6);
    /* A span beyond 32 says the index space once passed span / 2 entries, which G_base and
     * the terms held in at least ¾ (span / 2)² doubles: a span no run within this memory
     * could have reached is damage. */
    double half = span > 32 ? (double)span / 2.0 : 0.0, once = 6.0 * half * half;
    POLKA_CHECK(once <= limit, POLKA_ERR_FORMAT,
                "the checkpoint's KOMP span %zu says its inverse once took %.0f MB, more than "
                "this process may take (%.0f MB)",
                span, once / 1e6, limit / 1e6);
    return POLKA_OK;
}

static polka_status restore_komp(polka_komp *k, const polka_state *s, size_t order) {
    size_t z[7];
    POLKA_CALL(polka_learner_get_sizes(s, "komp.sizes", z, 7));
    POLKA_CALL(check_komp_sizes(z, order, s));
    /* the same span: the same pending limit, the same arithmetic */
    POLKA_CALL(polka_komp_shape(k, z[1], z[2], z[3], z[4]));
    k->known = z[0], k->base = z[1], k->n = z[2], k->nterms = z[4];
    k->updates = z[5], k->pending_max = z[6];
    POLKA_CALL(polka_state_get_f64(s, "komp.jitter", &k->jitter));
    POLKA_CALL(restore_komp_arrays(k, s));
    return check_komp_positions(k);
}

static polka_status komp_save(const polka_learner *learner, polka_state *s) {
    return save_komp(((const komp_part *)learner->part)->komp, s);
}

static polka_status komp_restore(polka_learner *learner, const polka_state *s) {
    return restore_komp(((komp_part *)learner->part)->komp, s, learner->model->m);
}

const polka_control_ops polka_control_komp = {
    .name = "komp",
    .help = "POLK: destructive KOMP to the error bound (learner.epsilon, learner.kp)",
    .create = komp_create,
    .free = komp_free,
    .append = POLKA_APPEND_NONZERO,
    .keeps_rows = 1,
    .drops_steps = 1,
    .order = komp_order,
    .save = komp_save,
    .restore = komp_restore,
};
