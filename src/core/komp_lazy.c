/*
 * The fast KOMP's updates as rank-one terms on G (komp_impl.h): bordering a batch of points
 * with one pass over G_base, removing a point with one row of it, and the flush that writes
 * the pending terms into G_base with one rank-T matrix product.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "base/scratch_impl.h"
#include "komp_impl.h"
#include "polka/stop.h"

/* A stop request is polled every STOP_ROWS rows of a batch's O(batch²) buffers: a batch of
 * 16384 points fills 2 GB per buffer, seconds each. */
#define STOP_ROWS 256
#define BORDERING "a KOMP step (bordering the new points)"

/* An appended point whose Schur complement is below this fraction of k(x,x) is already in
 * the span (to working precision): its weight is folded into the others. Bordering it would
 * put 1/s into G, and the rounding of G's later updates and downdates grows with cond(K)²:
 * at 1e-8, centralized POLK on 10^5 agents' 2-D streams (near-duplicate points arrive every
 * few steps) blew up after a few thousand steps (cli_central_komp_stays_stable); 1e-6 keeps
 * ε·cond² ≤ 1e-4. */
#define FOLD_TOLERANCE 1e-6
/* Up to this many points per bordering, one dsymv each reads G_base faster than one dsymm,
 * which packs it first (2.5× at M = 2000, k = 2 on the 2-core EPYC of experiments/). */
#define SYMV_ROWS 4

/* Appends the term sigma·u (u has n entries; zero beyond). */
static polka_status add_term(polka_komp *komp, const double *u, size_t n, double sigma) {
    size_t t = komp->nterms, room = komp->room;
    POLKA_CALL(polka_komp_reserve_term(komp));
    double *slot = komp->terms + t * room;
    if (slot != u) memcpy(slot, u, n * sizeof *slot);
    memset(slot + n, 0, (room - n) * sizeof *slot);
    komp->sigma[t] = sigma;
    komp->nterms = t + 1;
    komp->updates++;
    return POLKA_OK;
}

/* y += Σ_{t ≥ first} sigma_t u_t (u_tᵀ x) over the first n entries. */
static void apply_terms(const polka_komp *komp, size_t first, const double *x, size_t n,
                        double *y) {
    for (size_t t = first; t < komp->nterms; t++) {
        const double *u = komp->terms + t * komp->room;
        double coef = komp->sigma[t] * cblas_ddot((int)n, u, 1, x, 1);
        if (coef != 0.0) cblas_daxpy((int)n, coef, u, 1, y, 1);
    }
}

/*
 * Y = B̂ G for the k rows of B̂ (k × n, extended space): G_base's part with one symmetric
 * product, the pending terms with two thin ones.
 */
static polka_status times_inverse(const polka_komp *komp, const double *bhat, size_t k, size_t n,
                                  double *p, double *y) {
    size_t base = komp->base, t = komp->nterms;
    if (base > 0 && k <= SYMV_ROWS) {
        for (size_t i = 0; i < k; i++)
            cblas_dsymv(CblasRowMajor, CblasLower, (int)base, 1.0, komp->g, (int)base, bhat + i * n,
                        1, 0.0, y + i * n, 1);
    } else if (base > 0) {
        cblas_dsymm(CblasRowMajor, CblasRight, CblasLower, (int)k, (int)base, 1.0, komp->g,
                    (int)base, bhat, (int)n, 0.0, y, (int)n);
    }
    for (size_t i = 0; i < k; i++) {
        if (i % STOP_ROWS == 0) POLKA_CALL(polka_stop_check_overdue(BORDERING));
        memset(y + i * n + base, 0, (n - base) * sizeof *y);
    }
    if (t == 0) return POLKA_OK;
    /* P = B̂ Uᵀ diag(σ), Y += P U */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)k, (int)t, (int)komp->n, 1.0, bhat,
                (int)n, komp->terms, (int)komp->room, 0.0, p, (int)t);
    for (size_t i = 0; i < k; i++)
        for (size_t s = 0; s < t; s++) p[i * t + s] *= komp->sigma[s];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k, (int)komp->n, (int)t, 1.0, p,
                (int)t, komp->terms, (int)komp->room, 1.0, y, (int)n);
    return POLKA_OK;
}

/* Folds the weight row w of a point already in the span into the active rows (U += a wᵀ). */
static void fold_weights(const polka_komp *komp, polka_model *model, size_t rows, const double *a,
                         const double *w) {
    size_t c = model->c;
    for (size_t r = 0; r < rows; r++) {
        if (komp->gone[r]) continue;
        double f = a[komp->pos[r]];
        for (size_t k = 0; k < c; k++) model->weights[r * c + k] += f * w[k];
    }
}

/*
 * Borders new point i (model row q + i) given b (its kernel vector in the extended space, zero
 * off the active points) and a = G b from before this batch's terms (first_term on): with
 * s = k_qq − bᵀa, G gains [−a; 1][−a; 1]ᵀ/s, or the point folds when s ~ 0.
 */
static polka_status border_one(polka_komp *komp, polka_model *model, size_t row, double *b,
                               double *a, size_t first_term, polka_komp_stats *stats) {
    size_t n = komp->n, c = model->c;
    const double *x = model->dict + row * model->p;
    double kqq = polka_kernel_eval(&model->kernel, x, x, model->p) * (1.0 + komp->jitter);
    apply_terms(komp, first_term, b, n, a);
    double s = kqq - cblas_ddot((int)n, b, 1, a, 1);
    POLKA_CHECK(isfinite(s), POLKA_ERR_NUMERIC, "KOMP: non-finite Schur complement");
    if (s <= FOLD_TOLERANCE * kqq) {
        const double *w = model->weights + row * c;
        fold_weights(komp, model, row, a, w);
        stats->sqerror += (s > 0 ? s : 0.0) * cblas_ddot((int)c, w, 1, w, 1);
        stats->folded++;
        komp->gone[row] = 1;
        return POLKA_OK;
    }
    for (size_t e = 0; e < n; e++) {
        komp->diag[e] += a[e] * a[e] / s;
        a[e] = -a[e];
    }
    a[n] = 1.0;
    komp->diag[n] = 1.0 / s;
    komp->pos[row] = n;
    komp->gone[row] = 0;
    komp->n = n + 1;
    return add_term(komp, a, n + 1, 1.0 / s);
}

/* Carves the border's scratch: B (k×q), B̂ and Y (k×n), P (k×T), Knn (k×k). */
static polka_status border_scratch(polka_komp *komp, size_t k, size_t q, size_t n, double **bt,
                                   double **bhat, double **y, double **p, double **knn) {
    size_t t = komp->nterms;
    *bt = polka_scratch(POLKA_SCRATCH_KOMP, (k * (q + 2 * n + t + k) + 1) * sizeof **bt);
    if (*bt == NULL) return POLKA_ERR_MEM;
    *bhat = *bt + k * q;
    *y = *bhat + k * n;
    *p = *y + k * n;
    *knn = *p + k * t;
    return POLKA_OK;
}

/*
 * The offered kernel rows of the k new points (model rows q…q+k−1) against the q described
 * ones, into bt (k × q); 0 when the offer does not cover them all. The offer lists the points
 * in the order they were predicted, the new points are a subsequence of it (those with a
 * non-zero gradient), so the search usually moves one step.
 */
static polka_status offered_rows(const polka_komp *komp, const polka_model *model, size_t q,
                                 size_t k, double *bt, int *covered) {
    size_t count = komp->offer_count, p = model->p, j = 0;
    *covered = 0;
    if (count == 0 || komp->offer_m != q) return POLKA_OK;
    const double *xnew = model->dict + q * p;
    for (size_t i = 0; i < k; i++) {
        size_t tries = 0;
        while (memcmp(komp->offer_x + j * p, xnew + i * p, p * sizeof *xnew) != 0) {
            if (++tries == count) return POLKA_OK;
            j = (j + 1) % count;
        }
        if (q > 0 && komp->offer_fetch)
            POLKA_CALL(komp->offer_fetch(komp->offer_context, j, bt + i * q));
        else if (q > 0)
            memcpy(bt + i * q, komp->offer_k + j * q, q * sizeof *bt);
        j = (j + 1) % count;
    }
    *covered = 1;
    return POLKA_OK;
}

polka_status polka_komp_border(polka_komp *komp, polka_model *model, polka_komp_stats *stats) {
    size_t q = komp->known, m = model->m, k = m - q, p = model->p;
    if (k == 0) return POLKA_OK;
    double t0 = polka_komp_clock();
    size_t n = komp->n + k; /* the extended space once all are bordered */
    POLKA_CALL(polka_komp_reserve(komp, n));
    double *bt, *bhat, *y, *pt, *knn;
    POLKA_CALL(border_scratch(komp, k, q, n, &bt, &bhat, &y, &pt, &knn));
    const double *xnew = model->dict + q * p;
    int covered = 0;
    POLKA_CALL(offered_rows(komp, model, q, k, bt, &covered));
    if (!covered)
        POLKA_CALL(
            polka_kernel_block(&model->kernel, xnew, k, model->dict, model->sqnorm, q, p, bt));
    POLKA_CALL(polka_stop_check_overdue(BORDERING));
    POLKA_CALL(polka_kernel_block(&model->kernel, xnew, k, xnew, model->sqnorm + q, k, p, knn));
    POLKA_CALL(polka_stop_check_overdue(BORDERING)); /* a large batch: each stage takes seconds */
    for (size_t i = 0; i < k; i++) {
        if (i % STOP_ROWS == 0) POLKA_CALL(polka_stop_check_overdue(BORDERING));
        memset(bhat + i * n, 0, n * sizeof *bhat);
        for (size_t r = 0; r < q; r++) bhat[i * n + komp->pos[r]] = bt[i * q + r];
    }
    POLKA_CALL(times_inverse(komp, bhat, k, n, pt, y));
    size_t first_term = komp->nterms;
    for (size_t i = 0; i < k; i++) {
        double *b = bhat + i * n, *a = y + i * n;
        for (size_t j = 0; j < i; j++)
            if (!komp->gone[q + j]) b[komp->pos[q + j]] = knn[i * k + j];
        POLKA_CALL(polka_stop_check_overdue(BORDERING));
        POLKA_CALL(border_one(komp, model, q + i, b, a, first_term, stats));
    }
    komp->known = m;
    stats->border_seconds += polka_komp_clock() - t0;
    return POLKA_OK;
}

polka_status polka_komp_remove(polka_komp *komp, polka_model *model, size_t j) {
    size_t n = komp->n, e = komp->pos[j], c = model->c, t = komp->nterms, room = komp->room;
    POLKA_CALL(polka_komp_reserve_term(komp));
    /* The column G_{:,e}, written straight into the new term's slot. */
    double *col = komp->terms + t * room;
    memset(col, 0, n * sizeof *col);
    if (e < komp->base) memcpy(col, komp->g + e * komp->base, komp->base * sizeof *col);
    for (size_t s = 0; s < t; s++) {
        const double *u = komp->terms + s * room;
        if (u[e] != 0.0) cblas_daxpy((int)n, komp->sigma[s] * u[e], u, 1, col, 1);
    }
    double gjj = col[e];
    /* U' = U_{−j} − G_{−j,j} U_j / G_jj */
    const double *uj = model->weights + j * c;
    for (size_t r = 0; r < komp->known; r++) {
        if (r == j || komp->gone[r]) continue;
        double factor = col[komp->pos[r]] / gjj;
        for (size_t k = 0; k < c; k++) model->weights[r * c + k] -= factor * uj[k];
    }
    for (size_t x = 0; x < n; x++) komp->diag[x] -= col[x] * col[x] / gjj;
    komp->gone[j] = 1;
    return add_term(komp, col, n, -1.0 / gjj);
}

void polka_komp_drop_gone(polka_komp *komp, polka_model *model) {
    size_t kept = 0, m = model->m;
    int any = 0;
    for (size_t r = 0; r < m && !any; r++) any = komp->gone[r];
    if (!any) return;
    polka_model_keep(model, komp->gone);
    for (size_t r = 0; r < komp->known; r++)
        if (!komp->gone[r]) komp->pos[kept++] = komp->pos[r];
    komp->known = kept;
    memset(komp->gone, 0, m);
}

/* G_base's new array: the rows and columns of the active points (zero for those bordered
 * since the last flush, which G_base does not hold yet). */
static void gather_base(const polka_komp *komp, size_t r, double *g) {
    size_t base = komp->base;
    const size_t *pos = komp->pos;
    for (size_t i = 0; i < r; i++) {
        double *dst = g + i * r;
        if (pos[i] >= base) {
            memset(dst, 0, r * sizeof *dst);
            continue;
        }
        const double *src = komp->g + pos[i] * base;
        for (size_t s = 0; s < r; s++) dst[s] = pos[s] < base ? src[pos[s]] : 0.0;
    }
}

/* G_base += Uᵀ diag(σ) U over the first r entries of the t terms. */
static void add_terms(polka_komp *komp, size_t r, double *g) {
    size_t t = komp->nterms, room = komp->room;
    double *scaled =
        t > 0 && r > 0 ? polka_scratch(POLKA_SCRATCH_KOMP, t * r * sizeof *scaled) : NULL;
    if (scaled != NULL) {
        for (size_t s = 0; s < t; s++)
            for (size_t i = 0; i < r; i++)
                scaled[s * r + i] = komp->sigma[s] * komp->terms[s * room + i];
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)r, (int)r, (int)t, 1.0,
                    komp->terms, (int)room, scaled, (int)r, 1.0, g, (int)r);
    } else {
        for (size_t s = 0; s < t; s++)
            cblas_dger(CblasRowMajor, (int)r, (int)r, komp->sigma[s], komp->terms + s * room, 1,
                       komp->terms + s * room, 1, g, (int)r);
    }
}

polka_status polka_komp_flush(polka_komp *komp, polka_komp_stats *stats) {
    size_t r = komp->known, room = komp->room;
    double t0 = polka_komp_clock();
    /* gathered into the scratch, then into G_base's place (the terms move behind it) */
    double *gathered = polka_scratch(POLKA_SCRATCH_KOMP, (r * r + 1) * sizeof *gathered);
    if (gathered == NULL) return POLKA_ERR_MEM;
    gather_base(komp, r, gathered);
    POLKA_CALL(polka_komp_place_base(komp, r, gathered));
    double *g = komp->g;
    for (size_t s = 0; s < komp->nterms; s++) {
        double *u = komp->terms + s * room;
        for (size_t i = 0; i < r; i++) u[i] = u[komp->pos[i]];
    }
    add_terms(komp, r, g);
    for (size_t i = 0; i < r; i++) {
        komp->diag[i] = g[i * r + i];
        komp->pos[i] = i;
    }
    komp->n = r;
    polka_komp_settled(komp);
    if (stats) {
        stats->flushes++;
        stats->flush_seconds += polka_komp_clock() - t0;
    }
    return POLKA_OK;
}
