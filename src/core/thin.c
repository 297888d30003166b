/*
 * Inner products of a few rows (a step's points) with each row of a large matrix (the
 * dictionary). OpenBLAS's dgemm packs the large operand on every call, which costs more than the
 * product itself when the thin side has 1–8 rows, so a POLK step ran at 3–5× its memory-traffic
 * bound (bench/bench_fashion.c). This loop reads the large operand once, in storage order.
 *
 * Each sum is split over LANES independent partial sums combined in a fixed tree, so the
 * compiler vectorises it at any vector width with the same rounding: the results depend on
 * neither the instruction set nor the number of thin rows (a point's kernel row is the same
 * whether it was evaluated alone or with others). This file is compiled with -O3 (CMake).
 */
#include "thin_impl.h"

#include "exp_impl.h"

#define LANES 8

/* One copy of each loop per instruction set (POLKA_EXP_CLONES, exp_impl.h); the lanes fix the
 * order of the sums, so all round alike. */
#define POLKA_THIN_CLONES POLKA_EXP_CLONES

/* Σ_k a_k b_k over p entries, in LANES partial sums. */
static inline double dot_lanes(const double *a, const double *b, size_t p) {
    double s[LANES] = {0};
    size_t k = 0;
    for (; k + LANES <= p; k += LANES)
        for (size_t l = 0; l < LANES; l++) s[l] += a[k + l] * b[k + l];
    double tail = 0.0;
    for (; k < p; k++) tail += a[k] * b[k];
    for (size_t w = LANES / 2; w > 0; w /= 2)
        for (size_t l = 0; l < w; l++) s[l] += s[l + w];
    return s[0] + tail;
}

POLKA_THIN_CLONES
void polka_thin_dots(const double *x, size_t n, const double *d, size_t m, size_t p, double *out) {
    for (size_t j = 0; j < m; j++) {
        const double *dj = d + j * p;
        for (size_t i = 0; i < n; i++) out[i * m + j] = dot_lanes(x + i * p, dj, p);
    }
}

/* The loops below vectorise polka_exp (exp_impl.h) and sqrt; CMake compiles this file with
 * -fno-math-errno -fno-trapping-math, which let GCC if-convert the range checks and call no
 * library sqrt, and change no result. */
POLKA_THIN_CLONES
void polka_thin_radial(double *row, size_t m, double xn, const double *dn, int laplacian,
                       double sigma) {
    for (size_t j = 0; j < m; j++) { /* the squared distances */
        double s = xn + dn[j] - 2.0 * row[j];
        row[j] = s < 0.0 ? 0.0 : s;
    }
    if (laplacian) {
        double scale = polka_laplacian_scale(sigma);
        for (size_t j = 0; j < m; j++) row[j] = polka_exp(sqrt(row[j]) * scale);
        return;
    }
    double scale = polka_gaussian_scale(sigma);
    for (size_t j = 0; j < m; j++) row[j] = polka_exp(row[j] * scale);
}
