/* Inner products of a few rows with the rows of a large matrix, and radial kernels from them
 * (thin.c). */
#ifndef POLKA_THIN_IMPL_H
#define POLKA_THIN_IMPL_H

#include <stddef.h>

/* Up to this many thin rows, thin.c beats OpenBLAS's dgemm (it packs the large side). */
#define POLKA_THIN_ROWS 8

/** out[i·m + j] = x_i · d_j for n rows x (n × p) and m rows d (m × p), both row-major. */
void polka_thin_dots(const double *x, size_t n, const double *d, size_t m, size_t p, double *out);

/**
 * A row of a radial kernel from inner products, in place: row[j] = x·d_j on entry and
 * k(x, d_j) on return, with ‖x − d_j‖² = xn + dn[j] − 2 x·d_j (clamped at 0: cancellation
 * can make it slightly negative). Gaussian exp(−s/2σ²), or Laplacian exp(−√s/σ).
 */
void polka_thin_radial(double *row, size_t m, double xn, const double *dn, int laplacian,
                       double sigma);

#endif
