/*
 * Destructive KOMP with pre-fitting, O(M²) per removal (POLK Algorithm 1; docs/design.md).
 *
 * G = (K + jitter)⁻¹ is kept as G_base + Σ_t σ_t u_t u_tᵀ: every bordering and every removal is
 * a rank-one term (komp_lazy.c), and G_base is rewritten only when `pending_max` terms have
 * piled up. One pass over G_base then serves many updates instead of one, which is what sets
 * the pace at M in the thousands (bench/bench_fashion.c). The greedy choices and the
 * weights are those of the sequential algorithm: each step sees the exact current G.
 */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/scratch_impl.h"
#include "komp_impl.h"
#include "polka/stop.h"

#define DEFAULT_JITTER 1e-10
/* Rank-one terms kept before G_base is rewritten (polka_komp_set_pending). */
#define DEFAULT_PENDING 64
/* Bordering and downdating accumulate rounding: refactorise K after this many updates, or
 * after M of them when the model is larger (a rebuild costs O(M²p + M³), so this keeps its
 * share per update at O(Mp + M²), the order of an update itself). */
#define REBUILD_PERIOD 200

static int time_stages; /* polka_komp_time_stages */

void polka_komp_time_stages(int on) {
    time_stages = on;
}

double polka_komp_clock(void) {
    if (!time_stages) return 0.0;
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

polka_status polka_komp_create(double jitter, polka_komp **out) {
    POLKA_CHECK(jitter >= 0 && jitter < 1, POLKA_ERR_ARG, "KOMP jitter must be in [0, 1)");
    polka_komp *komp = calloc(1, sizeof *komp);
    POLKA_CHECK_ALLOC(komp);
    komp->jitter = jitter > 0 ? jitter : DEFAULT_JITTER;
    komp->pending_max = DEFAULT_PENDING;
    polka_scratch_hold();
    *out = komp;
    return POLKA_OK;
}

polka_status polka_komp_set_pending(polka_komp *komp, size_t pending) {
    POLKA_CHECK(pending >= 1, POLKA_ERR_ARG, "KOMP pending updates must be >= 1");
    komp->pending_max = pending;
    return POLKA_OK;
}

void polka_komp_free(polka_komp **komp) {
    if (komp == NULL || *komp == NULL) return;
    polka_komp_release(*komp);
    free(*komp);
    polka_scratch_release();
    *komp = NULL;
}

void polka_komp_reset(polka_komp *komp) {
    komp->known = komp->base = komp->n = 0;
    komp->updates = 0;
    polka_komp_settled(komp); /* no term pending, their pages and G_base's given back */
}

/*
 * Terms kept before a flush: pending_max, and at most an eighth of the span (at least 8).
 * Each term is a row of G's length, so a small inverse (many agents per rank, M near 100)
 * would otherwise spend half its memory on them; its flush is cheap anyway.
 */
/* Terms kept before G_base is rewritten: pending_max, at most span / 8 (at least 8). */
static size_t pending_limit(const polka_komp *komp) {
    size_t share = komp->span / 8 > 8 ? komp->span / 8 : 8;
    return komp->pending_max < share ? komp->pending_max : share;
}

/* G ← (K + jitter)⁻¹ for the whole dictionary from a fresh Cholesky factorisation. */
static polka_status rebuild_inverse(polka_komp *komp, const polka_model *model,
                                    polka_komp_stats *stats) {
    double t0 = polka_komp_clock();
    size_t m = model->m;
    polka_komp_reset(komp);
    if (m == 0) return POLKA_OK;
    POLKA_CALL(polka_komp_reserve(komp, m));
    POLKA_CALL(polka_komp_size_base(komp, m));
    double *g = komp->g;
    POLKA_CALL(polka_kernel_block(&model->kernel, model->dict, m, model->dict, model->sqnorm, m,
                                  model->p, g));
    for (size_t r = 0; r < m; r++) g[r * m + r] *= 1.0 + komp->jitter;
    /* G is symmetric: its row-major lower triangle is the column-major upper one, so LAPACK
     * works in place without the row-major transposes. */
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', (lapack_int)m, g, (lapack_int)m);
    if (info == 0) info = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'U', (lapack_int)m, g, (lapack_int)m);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC,
                "KOMP: the kernel matrix of %zu points is not positive definite (LAPACK info %d); "
                "raise the jitter or check the kernel parameters",
                m, (int)info);
    for (size_t r = 0; r < m; r++) {
        for (size_t s = r + 1; s < m; s++) g[r * m + s] = g[s * m + r];
        komp->diag[r] = g[r * m + r];
        komp->pos[r] = r;
    }
    komp->known = komp->base = komp->n = m;
    polka_komp_settled(komp);
    if (stats) {
        stats->rebuilds++;
        stats->rebuild_seconds += polka_komp_clock() - t0;
    }
    return POLKA_OK;
}

/* The active point whose removal costs least, Σ_c U_jc² / G_jj; returns 0 on a bad pivot. */
static int cheapest_point(const polka_komp *komp, const polka_model *model, size_t *best,
                          double *best_cost) {
    size_t c = model->c;
    *best_cost = INFINITY;
    for (size_t j = 0; j < komp->known; j++) {
        if (komp->gone[j]) continue;
        double gjj = komp->diag[komp->pos[j]];
        if (!(gjj > 0) || !isfinite(gjj)) return 0;
        const double *u = model->weights + j * c;
        double cost = 0.0;
        for (size_t k = 0; k < c; k++) cost += u[k] * u[k];
        cost /= gjj;
        if (cost < *best_cost) {
            *best_cost = cost;
            *best = j;
        }
    }
    return 1;
}

/* Applies the pending removals and terms: G_base ← G on the active points, then a rebuild if
 * the rounding budget of updates is spent. */
static polka_status settle(polka_komp *komp, polka_model *model, polka_komp_stats *stats) {
    polka_komp_drop_gone(komp, model);
    size_t period = komp->known > REBUILD_PERIOD ? komp->known : REBUILD_PERIOD;
    if (komp->updates >= period) return rebuild_inverse(komp, model, stats);
    if (komp->nterms >= pending_limit(komp)) POLKA_CALL(polka_komp_flush(komp, stats));
    return POLKA_OK;
}

void polka_komp_offer_rows(polka_komp *komp, const double *x, const double *k, size_t count,
                           size_t m) {
    komp->offer_x = x;
    komp->offer_k = k;
    komp->offer_count = count;
    komp->offer_m = m;
    komp->offer_fetch = NULL;
}

void polka_komp_offer_fetch(polka_komp *komp, const double *x, size_t count, size_t m,
                            polka_komp_fetch fetch, void *context) {
    polka_komp_offer_rows(komp, x, NULL, count, m);
    komp->offer_fetch = fetch;
    komp->offer_context = context;
}

polka_status polka_komp_compress(polka_komp *komp, polka_model *model, double eps,
                                 polka_komp_stats *stats) {
    POLKA_CHECK(eps >= 0 && isfinite(eps), POLKA_ERR_ARG, "KOMP budget must be >= 0 (got %g)", eps);
    polka_komp_stats local = {0};
    if (stats == NULL) stats = &local;
    *stats = (polka_komp_stats){0};
    if (komp->known > model->m) polka_komp_reset(komp);
    if (komp->known == 0 && komp->n > 0) polka_komp_reset(komp);
    polka_status bordered = polka_komp_border(komp, model, stats);
    komp->offer_count = 0;
    POLKA_CALL(bordered);
    double budget = eps * eps, t0 = polka_komp_clock();
    size_t active = komp->known;
    while (active > 0) {
        POLKA_CALL(polka_stop_check_overdue("a KOMP step (its removals)"));
        size_t j = 0;
        double cost = 0.0;
        if (!cheapest_point(komp, model, &j, &cost)) {
            stats->remove_seconds += polka_komp_clock() - t0;
            polka_komp_drop_gone(komp, model);
            POLKA_CALL(rebuild_inverse(komp, model, stats));
            t0 = polka_komp_clock();
            POLKA_CHECK(cheapest_point(komp, model, &j, &cost), POLKA_ERR_NUMERIC,
                        "KOMP: non-positive pivot after refactorising K");
        }
        if (stats->sqerror + cost > budget) break;
        POLKA_CALL(polka_komp_remove(komp, model, j));
        stats->sqerror += cost;
        stats->removed++;
        active--;
        if (komp->nterms >= pending_limit(komp)) {
            double flushed = stats->flush_seconds;
            polka_komp_drop_gone(komp, model);
            POLKA_CALL(polka_komp_flush(komp, stats));
            t0 += stats->flush_seconds - flushed; /* counted once, as the flush's */
        }
    }
    stats->remove_seconds += polka_komp_clock() - t0;
    return settle(komp, model, stats);
}
