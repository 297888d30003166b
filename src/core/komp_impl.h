/* Private state of the fast KOMP (komp.c, komp_lazy.c). */
#ifndef POLKA_KOMP_IMPL_H
#define POLKA_KOMP_IMPL_H

#include "model_impl.h"
#include "polka/komp.h"

/*
 * The inverse G = (K_DD + jitter)⁻¹ of the active points lives in an extended index space of
 * n entries: G = [[G_base, 0], [0, 0]] + Σ_t sigma_t u_t u_tᵀ, where G_base is base × base and
 * the terms are the bordering ([−a; 1]/s) and removal (−G_{:,j} G_{j,:}/G_jj) updates made
 * since G_base was last written. Active model point i sits at extended index pos[i] (strictly
 * increasing in i); removed points keep their index until the next flush.
 */
struct polka_komp_s {
    double jitter;
    size_t pending_max;  /* terms kept before G_base is rewritten */
    size_t known;        /* the model's first `known` points are described */
    size_t base, n;      /* rows of G_base; size of the extended index space */
    size_t ld;           /* allocated rows of g, length of diag, pos, gone and of each term */
    double *g;           /* G_base, full symmetric, ld × ld */
    double *diag;        /* diagonal of G in the extended space */
    size_t *pos;         /* extended index of model point i, i < known */
    unsigned char *gone; /* model point i removed, its row not yet dropped from the model */
    double *terms;       /* nterms × ld: u_t, zero beyond the n of its creation */
    size_t tcap;         /* doubles allocated in terms */
    double *sigma;       /* nterms coefficients */
    size_t sigma_cap, nterms;
    double *work; /* scratch for border, remove and flush */
    size_t work_cap;
    size_t updates; /* updates since the last factorisation */
    /* kernel rows offered for the next bordering (polka_komp_offer_rows) */
    const double *offer_x, *offer_k;
    size_t offer_count, offer_m;
};

double polka_komp_clock(void);
polka_status polka_komp_grow(double **buf, size_t *cap, size_t count);
polka_status polka_komp_reserve(polka_komp *komp, size_t n);

/** Borders in the points appended since the last call (one pass over G_base for all). */
polka_status polka_komp_border(polka_komp *komp, polka_model *model, polka_komp_stats *stats);

/** Removes active model point j: its weight goes to the others, G gains a rank-one term. */
polka_status polka_komp_remove(polka_komp *komp, polka_model *model, size_t j);

/** Drops the removed points' rows from the model and from pos. */
void polka_komp_drop_gone(polka_komp *komp, polka_model *model);

/** G_base ← G on the active points (after polka_komp_drop_gone): one gather, one rank-T
 * update. */
void polka_komp_flush(polka_komp *komp, polka_komp_stats *stats);

#endif
