/*
 * The komp control (POLK, paper 000): after each update, destructive KOMP removes points while
 * the error stays within ε = K_p η_t^{3/2} (or learner.epsilon). Its part is the KOMP inverse,
 * saved in a checkpoint as it stands (G_base and the pending rank-one terms), not rebuilt: a
 * fresh factorisation would round differently.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "komp_impl.h"
#include "learner_impl.h"
#include "polka/dataio.h"

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

/* Offers KOMP the rows predict kept if they were computed against the first `first` points as
 * they still are, then forgets them: the update changes the model. */
static void offer_kept_rows(polka_learner *learner, polka_komp *komp, size_t first) {
    learner_rows *rows = &learner->cache->rows;
    if (rows->count > 0 && rows->version == learner->model->version && rows->m == first)
        polka_komp_offer_rows(komp, rows->x, rows->k, rows->count, rows->m);
    rows->count = 0;
}

static polka_status komp_order(polka_learner *learner, uint64_t t, double eta, size_t first,
                               size_t added) {
    (void)t, (void)added;
    komp_part *part = learner->part;
    const polka_learner_params *params = &learner->params;
    offer_kept_rows(learner, part->komp, first);
    double eps =
        params->schedule == POLKA_SCHEDULE_CONSTANT ? part->epsilon : epsilon_at(params, eta);
    return polka_komp_compress(part->komp, learner->model, eps, &learner->last);
}

/* G_base (base × base of its ld × ld array), the diagonal, positions, removal marks and the
 * pending terms (the first n entries of each; the rest are zero). */
static polka_status save_komp(const polka_komp *k, polka_state *s) {
    size_t sizes[7] = {k->known, k->base, k->n, k->ld, k->nterms, k->updates, k->pending_max};
    POLKA_CALL(polka_learner_put_sizes(s, "komp.sizes", sizes, 7));
    POLKA_CALL(polka_state_put_f64(s, "komp.jitter", k->jitter));
    double *g = malloc((k->base * k->base + 1) * sizeof *g);
    double *terms = malloc((k->nterms * k->n + 1) * sizeof *terms);
    if (g == NULL || terms == NULL) free(g), free(terms);
    POLKA_CHECK(g && terms, POLKA_ERR_MEM, "out of memory for a checkpoint of KOMP");
    for (size_t r = 0; r < k->base; r++)
        memcpy(g + r * k->base, k->g + r * k->ld, k->base * sizeof *g);
    for (size_t t = 0; t < k->nterms; t++)
        memcpy(terms + t * k->n, k->terms + t * k->ld, k->n * sizeof *terms);
    polka_status status =
        polka_state_put_owned(s, "komp.g_base", POLKA_STATE_F64, g, k->base * k->base);
    if (status != POLKA_OK) {
        free(terms);
        return status;
    }
    POLKA_CALL(polka_state_put_owned(s, "komp.terms", POLKA_STATE_F64, terms, k->nterms * k->n));
    POLKA_CALL(polka_learner_put_f64s(s, "komp.diag", k->diag, k->n));
    POLKA_CALL(polka_learner_put_f64s(s, "komp.sigma", k->sigma, k->nterms));
    POLKA_CALL(polka_learner_put_sizes(s, "komp.pos", k->pos, k->known));
    return polka_state_put_ref(s, "komp.gone", POLKA_STATE_U8, k->gone, k->known);
}

static polka_status restore_komp_arrays(polka_komp *k, const polka_state *s) {
    size_t base = k->base, n = k->n, ld = k->ld;
    double *packed = malloc((base * base + k->nterms * n + 1) * sizeof *packed);
    POLKA_CHECK_ALLOC(packed);
    polka_status status = polka_learner_get_f64s(s, "komp.g_base", packed, base * base);
    for (size_t r = 0; r < base && status == POLKA_OK; r++)
        memcpy(k->g + r * ld, packed + r * base, base * sizeof *packed);
    if (status == POLKA_OK) status = polka_learner_get_f64s(s, "komp.terms", packed, k->nterms * n);
    for (size_t t = 0; t < k->nterms && status == POLKA_OK; t++) {
        memcpy(k->terms + t * ld, packed + t * n, n * sizeof *packed);
        memset(k->terms + t * ld + n, 0, (ld - n) * sizeof *packed);
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

/* sizes: known, base, n, ld, nterms, updates, pending_max. ld is what reserve made (0 or 32
 * doubled), the inverse (ld × ld) and the terms (nterms × ld) must fit the memory limit, and
 * nterms is the count of the saved coefficients (an entry the file holds). */
static polka_status check_komp_sizes(const size_t z[7], size_t order, const polka_state *s) {
    size_t ld = z[3], terms = 0;
    int doubled = ld == 0 || ld >= 32;
    for (size_t d = ld; doubled && d > 32; d /= 2) doubled = d % 2 == 0;
    POLKA_CHECK(z[0] <= order && z[1] <= z[2] && z[2] <= ld && z[0] <= z[2] && ld < (1u << 26) &&
                    doubled,
                POLKA_ERR_FORMAT,
                "the checkpoint's KOMP sizes are inconsistent (known %zu of order %zu, base %zu, "
                "n %zu, leading dimension %zu)",
                z[0], order, z[1], z[2], ld);
    POLKA_CALL(polka_state_size(s, "komp.sigma", &terms));
    POLKA_CHECK(terms == z[4], POLKA_ERR_FORMAT,
                "the checkpoint's KOMP has %zu terms and %zu coefficients", z[4], terms);
    double bytes = 8.0 * (double)ld * ((double)ld + (double)terms);
    POLKA_CHECK(bytes <= (double)polka_data_memory_limit(), POLKA_ERR_FORMAT,
                "the checkpoint's KOMP inverse needs %.0f MB, more than this process may take "
                "(%.0f MB)",
                bytes / 1e6, (double)polka_data_memory_limit() / 1e6);
    return POLKA_OK;
}

static polka_status restore_komp(polka_komp *k, const polka_state *s, size_t order) {
    size_t z[7];
    POLKA_CALL(polka_learner_get_sizes(s, "komp.sizes", z, 7));
    POLKA_CALL(check_komp_sizes(z, order, s));
    polka_komp_reset(k);
    /* the same leading dimension: the same arithmetic (reserve doubles from 32, as it did) */
    if (z[3] > 0) POLKA_CALL(polka_komp_reserve(k, z[3]));
    POLKA_CHECK(k->ld == z[3], POLKA_ERR_FORMAT, "the checkpoint's KOMP inverse is damaged");
    POLKA_CALL(polka_komp_grow(&k->terms, &k->tcap, z[4] * k->ld + 1));
    POLKA_CALL(polka_komp_grow(&k->sigma, &k->sigma_cap, z[4] + 1));
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
    .order = komp_order,
    .save = komp_save,
    .restore = komp_restore,
};
