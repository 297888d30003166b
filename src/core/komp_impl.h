/* Private state of the fast KOMP (komp.c, komp_lazy.c). */
#ifndef POLKA_KOMP_IMPL_H
#define POLKA_KOMP_IMPL_H

#include "base/pages_impl.h"
#include "model_impl.h"
#include "polka/komp.h"

/*
 * The inverse G = (K_DD + jitter)⁻¹ of the active points lives in an extended index space of
 * n entries: G = [[G_base, 0], [0, 0]] + Σ_t sigma_t u_t u_tᵀ, where G_base is base × base and
 * the terms are the bordering ([−a; 1]/s) and removal (−G_{:,j} G_{j,:}/G_jj) updates made
 * since G_base was last written. Active model point i sits at extended index pos[i] (strictly
 * increasing in i); removed points keep their index until the next flush.
 *
 * Memory follows the model (komp_store.c): G_base is stored base × base (leading dimension
 * base) and behind it the terms, `room` ≥ n entries apart, in pages of the agent's own; a
 * flush gives back the terms' pages. BLAS and LAPACK give the same bits whatever the
 * leading dimension, so this is the arithmetic of the doubled-capacity arrays it replaced
 * (experiments/agent_memory.sh). Both triangles of G_base are kept: a flush's rank-T product
 * rounds G_ij and G_ji apart, and a removal reads a whole row.
 */

/* Copies offered row j (its kernel values against the first m points) into out. */
typedef polka_status (*polka_komp_fetch)(void *context, size_t j, double *out);

struct polka_komp_s {
    double jitter;
    size_t pending_max;  /* terms kept before G_base is rewritten */
    size_t known;        /* the model's first `known` points are described */
    size_t base, n;      /* rows of G_base; size of the extended index space */
    size_t span;         /* the capacity the extended space had when it was allocated doubling
                            from 32 to cover every n so far: it sets the pending limit and is
                            saved, so it still grows that way, though no array has that size */
    size_t room;         /* entries allocated in diag, pos, gone and in each term (≥ n) */
    polka_pages store;   /* G_base, then the terms */
    double *g;           /* G_base, full, base × base (store.data) */
    double *terms;       /* nterms × room: u_t, zero beyond the n of its creation (after g) */
    double *diag;        /* diagonal of G in the extended space */
    size_t *pos;         /* extended index of model point i, i < known */
    unsigned char *gone; /* model point i removed, its row not yet dropped from the model */
    double *sigma;       /* nterms coefficients */
    size_t sigma_cap, nterms;
    size_t updates; /* updates since the last factorisation */
    /* kernel rows offered for the next bordering (polka_komp_offer_rows, _offer_fetch) */
    const double *offer_x, *offer_k;
    size_t offer_count, offer_m;
    polka_komp_fetch offer_fetch; /* NULL: the rows are offer_k */
    void *offer_context;
};

/* Thread CPU seconds when the stages are timed (polka_komp_time_stages), else 0. */
double polka_komp_clock(void);

/** polka_komp_offer_rows with each row the bordering takes fetched by fetch(context, j, ·)
 * (the learner keeps some rows and recomputes the others). */
void polka_komp_offer_fetch(polka_komp *komp, const double *x, size_t count, size_t m,
                            polka_komp_fetch fetch, void *context);

/* ---- storage (komp_store.c) ---- */

/** Room for an extended index space of n entries (diag, pos, gone, the terms), and span. */
polka_status polka_komp_reserve(polka_komp *komp, size_t n);

/** Room for one more term of `room` entries (and its coefficient). */
polka_status polka_komp_reserve_term(polka_komp *komp);

/** G_base's array for r × r, no term pending (its contents are the caller's). */
polka_status polka_komp_size_base(polka_komp *komp, size_t r);

/** A flush's G_base: the pending terms move behind r × r, which gathered (r × r) fills. */
polka_status polka_komp_place_base(polka_komp *komp, size_t r, const double *gathered);

/** After a flush or rebuild (no term pending): gives back the terms' pages and room kept for
 * a larger space. */
void polka_komp_settled(polka_komp *komp);

/** The arrays of a checkpoint's state: G_base base × base, room for n entries and nterms
 * terms; span as saved (a doubling of 32, at least n). The contents are the caller's. */
polka_status polka_komp_shape(polka_komp *komp, size_t base, size_t n, size_t span, size_t nterms);

/** Frees the arrays. */
void polka_komp_release(polka_komp *komp);

/** Borders in the points appended since the last call (one pass over G_base for all). */
polka_status polka_komp_border(polka_komp *komp, polka_model *model, polka_komp_stats *stats);

/** Removes active model point j: its weight goes to the others, G gains a rank-one term. */
polka_status polka_komp_remove(polka_komp *komp, polka_model *model, size_t j);

/** Drops the removed points' rows from the model and from pos. */
void polka_komp_drop_gone(polka_komp *komp, polka_model *model);

/** G_base ← G on the active points (after polka_komp_drop_gone): one gather into an array
 * sized to them, one rank-T update. */
polka_status polka_komp_flush(polka_komp *komp, polka_komp_stats *stats);

#endif
