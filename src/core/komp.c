/* Destructive KOMP with pre-fitting, O(M²) per removal (POLK Algorithm 1; DESIGN.md). */
#include "polka/komp.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"

#define DEFAULT_JITTER 1e-10
/* An appended point whose Schur complement is below this fraction of k(x,x) is already in
 * the span (to working precision): its weight is folded into the others. */
#define FOLD_TOLERANCE 1e-8
/* Bordering and downdating accumulate rounding: refactorise K after this many updates. */
#define REBUILD_PERIOD 200

struct polka_komp_s {
    double jitter;
    size_t known;    /* the model's first `known` points are described by g */
    size_t ld;       /* leading dimension (allocated rows) of g */
    double *g;       /* (K_DD with diagonal ×(1+jitter))⁻¹, full symmetric, ld × ld */
    double *scratch; /* 3 × ld: kernel column, G·b, and the removed row */
    size_t updates;  /* updates since the last factorisation */
};

polka_status polka_komp_create(double jitter, polka_komp **out) {
    POLKA_CHECK(jitter >= 0 && jitter < 1, POLKA_ERR_ARG, "KOMP jitter must be in [0, 1)");
    polka_komp *komp = calloc(1, sizeof *komp);
    POLKA_CHECK_ALLOC(komp);
    komp->jitter = jitter > 0 ? jitter : DEFAULT_JITTER;
    *out = komp;
    return POLKA_OK;
}

void polka_komp_free(polka_komp **komp) {
    if (komp == NULL || *komp == NULL) return;
    free((*komp)->g);
    free((*komp)->scratch);
    free(*komp);
    *komp = NULL;
}

void polka_komp_reset(polka_komp *komp) {
    komp->known = 0;
    komp->updates = 0;
}

static polka_status reserve_inverse(polka_komp *komp, size_t m) {
    if (m <= komp->ld) return POLKA_OK;
    size_t ld = komp->ld ? komp->ld : 32;
    while (ld < m) ld *= 2;
    double *g = malloc(ld * ld * sizeof *g);
    double *scratch = malloc(3 * ld * sizeof *scratch);
    if (g == NULL || scratch == NULL) {
        free(g);
        free(scratch);
        return polka_error_set(POLKA_ERR_MEM, "out of memory for a %zu×%zu KOMP inverse", ld, ld);
    }
    for (size_t r = 0; r < komp->known; r++)
        memcpy(g + r * ld, komp->g + r * komp->ld, komp->known * sizeof *g);
    free(komp->g);
    free(komp->scratch);
    komp->g = g;
    komp->scratch = scratch;
    komp->ld = ld;
    return POLKA_OK;
}

/* G ← (K + jitter)⁻¹ for the whole dictionary from a fresh Cholesky factorisation. */
static polka_status rebuild_inverse(polka_komp *komp, const polka_model *model,
                                    polka_komp_stats *stats) {
    size_t m = model->m, ld = komp->ld;
    komp->known = 0;
    komp->updates = 0;
    if (m == 0) return POLKA_OK;
    POLKA_CALL(polka_kernel_block(&model->kernel, model->dict, m, model->dict, model->sqnorm, m,
                                  model->p, komp->g));
    /* The block is m×m with leading dimension m: spread it to leading dimension ld. */
    for (size_t r = m; r-- > 1;) memmove(komp->g + r * ld, komp->g + r * m, m * sizeof *komp->g);
    for (size_t r = 0; r < m; r++) komp->g[r * ld + r] *= 1.0 + komp->jitter;
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)m, komp->g, (lapack_int)ld);
    if (info == 0)
        info = LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'L', (lapack_int)m, komp->g, (lapack_int)ld);
    POLKA_CHECK(info == 0, POLKA_ERR_NUMERIC,
                "KOMP: the kernel matrix of %zu points is not positive definite (LAPACK info %d); "
                "raise the jitter or check the kernel parameters",
                m, (int)info);
    for (size_t r = 0; r < m; r++)
        for (size_t s = r + 1; s < m; s++) komp->g[r * ld + s] = komp->g[s * ld + r];
    komp->known = m;
    if (stats) stats->rebuilds++;
    return POLKA_OK;
}

/* Removes row and column j of G (ld stays), after the rank-one downdate was applied. */
static void compact_inverse(polka_komp *komp, size_t j) {
    size_t m = komp->known, ld = komp->ld;
    for (size_t r = 0; r < m; r++) {
        if (r == j) continue;
        double *dst = komp->g + (r > j ? r - 1 : r) * ld;
        const double *src = komp->g + r * ld;
        memmove(dst, src, j * sizeof *dst);
        memmove(dst + j, src + j + 1, (m - j - 1) * sizeof *dst);
    }
    komp->known = m - 1;
}

/*
 * Removes point j: U' = U_{−j} − G_{−j,j} U_j / G_jj and G' = G_{−j,−j} − G_{−j,j} G_{j,−j} / G_jj.
 * The model's weights are U.
 */
static void remove_point(polka_komp *komp, polka_model *model, size_t j) {
    size_t m = komp->known, ld = komp->ld, c = model->c;
    double *gj = komp->scratch + 2 * ld;
    memcpy(gj, komp->g + j * ld, m * sizeof *gj);
    double gjj = gj[j];
    const double *uj = model->weights + j * c;
    for (size_t r = 0; r < m; r++) {
        if (r == j) continue;
        double factor = gj[r] / gjj;
        for (size_t k = 0; k < c; k++) model->weights[r * c + k] -= factor * uj[k];
    }
    gj[j] = 0.0; /* row and column j are dropped below; leave them untouched */
    cblas_dger(CblasRowMajor, (int)m, (int)m, -1.0 / gjj, gj, 1, gj, 1, komp->g, (int)ld);
    compact_inverse(komp, j);
    polka_model_remove(model, j);
    komp->updates++;
}

/*
 * Borders G with point q = known (the next appended one): with b = K_{D,q}, a = G b and the
 * Schur complement s = K_qq − bᵀa, G ← [[G + a aᵀ/s, −a/s], [−aᵀ/s, 1/s]]. When s is ~0 the
 * point is already in the span: its weight row w is folded in (U ← U + a wᵀ), at squared
 * error s‖w‖², and the point is dropped. Returns 1 when it folded.
 */
static polka_status border_point(polka_komp *komp, polka_model *model, int *folded,
                                 double *sqerror) {
    size_t q = komp->known, ld = komp->ld, c = model->c;
    double *b = komp->scratch, *a = komp->scratch + ld;
    const double *x = model->dict + q * model->p;
    double kqq = polka_kernel_eval(&model->kernel, x, x, model->p) * (1.0 + komp->jitter);
    POLKA_CALL(
        polka_kernel_block(&model->kernel, x, 1, model->dict, model->sqnorm, q, model->p, b));
    double s = kqq;
    if (q > 0) {
        cblas_dsymv(CblasRowMajor, CblasLower, (int)q, 1.0, komp->g, (int)ld, b, 1, 0.0, a, 1);
        s -= cblas_ddot((int)q, b, 1, a, 1);
    }
    POLKA_CHECK(isfinite(s), POLKA_ERR_NUMERIC, "KOMP: non-finite Schur complement");
    *folded = s <= FOLD_TOLERANCE * kqq;
    if (*folded) {
        const double *w = model->weights + q * c;
        for (size_t r = 0; r < q; r++)
            for (size_t k = 0; k < c; k++) model->weights[r * c + k] += a[r] * w[k];
        *sqerror += (s > 0 ? s : 0.0) * cblas_ddot((int)c, w, 1, w, 1);
        polka_model_remove(model, q);
        return POLKA_OK;
    }
    double *g = komp->g;
    cblas_dger(CblasRowMajor, (int)q, (int)q, 1.0 / s, a, 1, a, 1, g, (int)ld);
    for (size_t r = 0; r < q; r++) g[r * ld + q] = g[q * ld + r] = -a[r] / s;
    g[q * ld + q] = 1.0 / s;
    komp->known = q + 1;
    komp->updates++;
    return POLKA_OK;
}

/* The point whose removal costs least, Σ_c U_jc² / G_jj; returns 0 on a bad pivot. */
static int cheapest_point(const polka_komp *komp, const polka_model *model, size_t *best,
                          double *best_cost) {
    size_t c = model->c;
    *best_cost = INFINITY;
    for (size_t j = 0; j < komp->known; j++) {
        double gjj = komp->g[j * komp->ld + j];
        if (!(gjj > 0) || !isfinite(gjj)) return 0;
        const double *u = model->weights + j * c;
        double cost = cblas_ddot((int)c, u, 1, u, 1) / gjj;
        if (cost < *best_cost) {
            *best_cost = cost;
            *best = j;
        }
    }
    return 1;
}

static polka_status border_appended(polka_komp *komp, polka_model *model, polka_komp_stats *stats) {
    POLKA_CALL(reserve_inverse(komp, model->m));
    while (komp->known < model->m) {
        int folded = 0;
        POLKA_CALL(border_point(komp, model, &folded, &stats->sqerror));
        stats->folded += (size_t)folded;
    }
    return POLKA_OK;
}

polka_status polka_komp_compress(polka_komp *komp, polka_model *model, double eps,
                                 polka_komp_stats *stats) {
    POLKA_CHECK(eps >= 0 && isfinite(eps), POLKA_ERR_ARG, "KOMP budget must be >= 0 (got %g)", eps);
    polka_komp_stats local = {0};
    if (stats == NULL) stats = &local;
    *stats = (polka_komp_stats){0};
    if (komp->known > model->m) polka_komp_reset(komp);
    POLKA_CALL(border_appended(komp, model, stats));
    if (komp->updates >= REBUILD_PERIOD) POLKA_CALL(rebuild_inverse(komp, model, stats));
    double budget = eps * eps;
    while (model->m > 0) {
        size_t j = 0;
        double cost = 0.0;
        if (!cheapest_point(komp, model, &j, &cost)) {
            POLKA_CALL(rebuild_inverse(komp, model, stats));
            POLKA_CHECK(cheapest_point(komp, model, &j, &cost), POLKA_ERR_NUMERIC,
                        "KOMP: non-positive pivot after refactorising K");
        }
        if (stats->sqerror + cost > budget) break;
        remove_point(komp, model, j);
        stats->sqerror += cost;
        stats->removed++;
    }
    return POLKA_OK;
}
