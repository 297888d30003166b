/*
 * Where KOMP's inverse lives (komp_impl.h): G_base (base × base, leading dimension base) and
 * behind it the pending terms (`room` entries apart), in pages of their own (pages.c), with
 * the diagonal, positions and removal marks of the extended space in `room` entries. An
 * agent with a model of order M holds M² doubles of G_base and the terms written since the
 * last flush, whose pages the flush gives back: the memory its model needs, not a doubled
 * capacity.
 */
#include <stdlib.h>
#include <string.h>

#include "komp_impl.h"

/* Entries the extended space gets to spare when it grows (a few borderings), and twice that
 * is kept at most after a flush. */
#define ROOM_SPARE 8

/* g and terms into the store, after it moved or base changed. */
static void point(polka_komp *komp) {
    komp->g = komp->store.data;
    komp->terms = komp->g ? komp->g + komp->base * komp->base : NULL;
}

/* Doubles of the store in use with `terms` terms of `room` entries. */
static size_t store_size(const polka_komp *komp, size_t terms, size_t room) {
    return komp->base * komp->base + terms * room;
}

void polka_komp_release(polka_komp *komp) {
    polka_pages_free(&komp->store);
    free(komp->diag);
    free(komp->pos);
    free(komp->gone);
    free(komp->sigma);
    komp->diag = komp->sigma = komp->g = komp->terms = NULL;
    komp->pos = NULL;
    komp->gone = NULL;
    komp->room = komp->sigma_cap = 0;
}

/* Resizes *array to count elements of `size` bytes; when `shrinks`, a failure keeps the old
 * (larger) array, so a shrink never fails. */
static polka_status resize(void **array, size_t count, size_t size, int shrinks) {
    void *next = realloc(*array, (count ? count : 1) * size);
    if (next == NULL && !shrinks) return polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (next != NULL) *array = next;
    return POLKA_OK;
}

/* The pending terms from `old` entries apart to `room` (> old) apart, in place: the last
 * first, as each moves towards the end. */
static void spread_terms(polka_komp *komp, size_t old, size_t room) {
    size_t n = komp->n;
    for (size_t t = komp->nterms; t-- > 0;) {
        memmove(komp->terms + t * room, komp->terms + t * old, n * sizeof *komp->terms);
        memset(komp->terms + t * room + n, 0, (room - n) * sizeof *komp->terms);
    }
}

/* diag, pos and gone with `room` entries, the pending terms moved to that stride (only a
 * grown space has terms pending: a shrink comes after a flush). */
static polka_status set_room(polka_komp *komp, size_t room) {
    size_t old = komp->room;
    int shrinks = room < old;
    POLKA_CALL(resize((void **)&komp->diag, room, sizeof *komp->diag, shrinks));
    POLKA_CALL(resize((void **)&komp->pos, room, sizeof *komp->pos, shrinks));
    POLKA_CALL(resize((void **)&komp->gone, room, 1, shrinks));
    if (room > old) memset(komp->gone + old, 0, room - old);
    if (komp->nterms > 0 && room > old) {
        size_t count = komp->nterms;
        POLKA_CALL(polka_pages_reserve(&komp->store, store_size(komp, count, room),
                                       store_size(komp, count, old)));
        point(komp);
        spread_terms(komp, old, room);
    }
    komp->room = room;
    return POLKA_OK;
}

/* Room for an extended index space of n entries; span grows as the doubled arrays did. */
polka_status polka_komp_reserve(polka_komp *komp, size_t n) {
    if (n > komp->span) {
        size_t span = komp->span ? komp->span : 32;
        while (span < n) span *= 2;
        komp->span = span;
    }
    return n <= komp->room ? POLKA_OK : set_room(komp, n + ROOM_SPARE);
}

polka_status polka_komp_reserve_term(polka_komp *komp) {
    size_t count = komp->nterms + 1, room = komp->room;
    POLKA_CALL(polka_pages_reserve(&komp->store, store_size(komp, count, room),
                                   store_size(komp, komp->nterms, room)));
    point(komp);
    if (count > komp->sigma_cap) {
        size_t cap = count + 8;
        POLKA_CALL(resize((void **)&komp->sigma, cap, sizeof *komp->sigma, 0));
        komp->sigma_cap = cap;
    }
    return POLKA_OK;
}

polka_status polka_komp_size_base(polka_komp *komp, size_t r) {
    komp->base = 0; /* nothing of the store is kept */
    POLKA_CALL(polka_pages_reserve(&komp->store, r * r, 0));
    komp->base = r;
    point(komp);
    return POLKA_OK;
}

polka_status polka_komp_place_base(polka_komp *komp, size_t r, const double *gathered) {
    size_t terms = komp->nterms * komp->room, used = store_size(komp, komp->nterms, komp->room);
    size_t need = r * r + terms;
    POLKA_CALL(polka_pages_reserve(&komp->store, need > used ? need : used, used));
    point(komp);
    if (terms > 0) memmove(komp->store.data + r * r, komp->terms, terms * sizeof *komp->terms);
    if (r > 0) memcpy(komp->store.data, gathered, r * r * sizeof *gathered);
    komp->base = r;
    point(komp);
    return POLKA_OK;
}

void polka_komp_settled(polka_komp *komp) {
    komp->nterms = 0;
    polka_pages_trim(&komp->store, komp->base * komp->base);
    point(komp); /* base may have changed (polka_komp_reset) */
    if (komp->room > komp->n + 2 * ROOM_SPARE) set_room(komp, komp->n + ROOM_SPARE); /* shrink */
}

polka_status polka_komp_shape(polka_komp *komp, size_t base, size_t n, size_t span, size_t nterms) {
    polka_komp_reset(komp);
    komp->span = span;
    if (n + ROOM_SPARE > komp->room) POLKA_CALL(set_room(komp, n + ROOM_SPARE));
    POLKA_CALL(polka_komp_size_base(komp, base));
    for (komp->nterms = 0; komp->nterms < nterms; komp->nterms++)
        POLKA_CALL(polka_komp_reserve_term(komp));
    return POLKA_OK;
}
