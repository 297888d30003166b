/* polka --version: polka's version and the libraries it runs with, for bug reports. */
#include <cblas.h>
#include <stdio.h>
#include <string.h>

#include "app_impl.h"
#include "polka/runfile.h"

#ifndef POLKA_BLAS_DESCRIPTION
#define POLKA_BLAS_DESCRIPTION "unknown"
#endif

/* The first line of the MPI library's own description (MPICH's runs over several lines). */
static void print_mpi(void) {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0, version = 0, subversion = 0;
    MPI_Get_library_version(text, &length);
    MPI_Get_version(&version, &subversion);
    text[strcspn(text, "\n")] = '\0';
    printf("MPI:  %s (MPI standard %d.%d)\n", text, version, subversion);
}

void polka_app_print_version(void) {
    char hdf5[64];
    polka_h5_library_version(hdf5, sizeof hdf5);
    printf("polka %s\n", POLKA_VERSION);
    print_mpi();
    printf("HDF5: %s\n", hdf5);
#ifdef POLKA_HAVE_OPENBLAS
    printf("BLAS: %s\n", openblas_get_config());
#else
    printf("BLAS: %s (as found at configure time)\n", POLKA_BLAS_DESCRIPTION);
#endif
}
