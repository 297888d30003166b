/**
 * @file komp.h
 * @brief Destructive kernel orthogonal matching pursuit with pre-fitting (POLK Alg. 1).
 *
 * Given f̃ with dictionary D̃ and weights W̃, finds D ⊆ D̃ and the weights W of the
 * orthogonal projection of f̃ onto span{k(d,·) : d ∈ D} with ‖f̃ − f‖_H ≤ ε, removing one
 * point at a time, always the one whose removal raises the error least.
 *
 * The fast version keeps G = (K_DD + jitter·I)⁻¹ across calls. With U the projection's
 * weights, removing point j raises the squared error by exactly Σ_c U_jc² / G_jj and
 *   G' = G_{−j,−j} − G_{−j,j} G_{j,−j} / G_jj,   U' = U_{−j} − G_{−j,j} U_j / G_jj,
 * so each removal costs O(M) to choose and O(M²) to downdate (docs/design.md).
 */
#ifndef POLKA_KOMP_H
#define POLKA_KOMP_H

#include "polka/error.h"
#include "polka/model.h"

typedef struct polka_komp_s polka_komp;

typedef struct {
    size_t removed;  /**< points removed by this call */
    size_t folded;   /**< appended points already in the span, folded into the others */
    size_t rebuilds; /**< fresh Cholesky factorisations of K done by this call */
    size_t flushes;  /**< pending terms written into G by this call */
    double sqerror;  /**< ‖f̃ − f‖²_H after the call */
    /* CPU time of the call's stages, when polka_komp_time_stages(1) asked for it (else 0;
     * bench/bench_fashion.c); not part of the result. */
    double border_seconds;  /**< bordering the appended points into G */
    double remove_seconds;  /**< choosing and removing points (rank-one terms on G) */
    double flush_seconds;   /**< writing the pending terms into G (rank-T update) */
    double rebuild_seconds; /**< fresh factorisations of K */
} polka_komp_stats;

/**
 * Whether KOMP times its stages (the *_seconds of polka_komp_stats), for every model of the
 * process; off by default. A thread CPU clock is a system call, 5 % of a decentralized run.
 */
void polka_komp_time_stages(int on);

/**
 * Creates the KOMP state for one model; the caller owns it.
 * @param jitter  added to K's diagonal (relative to k(x,x)); 0 for the default 1e-10
 */
polka_status polka_komp_create(double jitter, polka_komp **out);

/**
 * Sets how many rank-one updates (borderings, removals) are kept beside G before G is
 * rewritten with one rank-T product (default 64, and at most an eighth of the largest
 * index space the inverse has had, rounded up to 32·2^j, at least 8; 1 = rewrite after each
 * update). The result
 * is the same up to rounding; larger values read the M×M inverse fewer times.
 */
polka_status polka_komp_set_pending(polka_komp *komp, size_t pending);

/** Frees the state and sets the handle to NULL; NULL-safe. */
void polka_komp_free(polka_komp **komp);

/** Forgets the inverse, e.g. when the model was replaced; the next call rebuilds it. */
void polka_komp_reset(polka_komp *komp);

/**
 * Compresses model in place to budget eps. The state describes the model's first points
 * as of its previous call; the points appended since are bordered in first (O(M²) each).
 * Between calls, the model may only be scaled or appended to (else call polka_komp_reset).
 */
polka_status polka_komp_compress(polka_komp *komp, polka_model *model, double eps,
                                 polka_komp_stats *stats);

/**
 * Offers the kernel rows of `count` points x (count × p) against the model's first m points
 * (k: count × m), e.g. those the learner computed when it predicted at them. The next
 * polka_komp_compress borders the appended points it finds among x with these rows instead
 * of reading the dictionary again (when m is the number of points it describes). The arrays
 * must stay valid until that call, which drops the offer.
 */
void polka_komp_offer_rows(polka_komp *komp, const double *x, const double *k, size_t count,
                           size_t m);

/**
 * The test oracle: the same greedy removal, choosing each point by projecting f̃ onto every
 * candidate subset with a pseudo-inverse (O(M⁴) per removal). Same jitter convention.
 */
polka_status polka_komp_compress_bruteforce(polka_model *model, double eps, double jitter,
                                            polka_komp_stats *stats);

/** ‖f − g‖²_H of two models with the same kernel and outputs (O((M+N)²p)). */
polka_status polka_model_sqdistance(const polka_model *f, const polka_model *g, double *out);

#endif
