/* Inner products of a few rows with the rows of a large matrix (thin.c). */
#ifndef POLKA_THIN_IMPL_H
#define POLKA_THIN_IMPL_H

#include <stddef.h>

/* Up to this many thin rows, thin.c beats OpenBLAS's dgemm (it packs the large side). */
#define POLKA_THIN_ROWS 8

/** out[i·m + j] = x_i · d_j for n rows x (n × p) and m rows d (m × p), both row-major. */
void polka_thin_dots(const double *x, size_t n, const double *d, size_t m, size_t p, double *out);

#endif
