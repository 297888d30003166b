/* The polka command: shared pieces of its sub-commands. */
#ifndef POLKA_APP_H
#define POLKA_APP_H

#include <mpi.h>
#include <stdio.h>

#include "polka/config.h"
#include "polka/error.h"

/**
 * Collective: rank 0 reads `--config FILE`, `--set key=value` and `--centralized` from argv
 * (other arguments are left to the caller through `extra`, NULL to reject them) and checks
 * the result; the configuration is broadcast and every rank returns the same status.
 */
polka_status polka_app_read_config(int argc, char **argv, MPI_Comm comm, polka_config *config,
                                   int (*extra)(const char *arg, void *context), void *context);

/** Prints the key table with defaults and help (polka --help). */
void polka_app_print_keys(void);

/** Prints the usage and the key table (polka --help). */
void polka_app_print_usage(void);

/** polka help [KEY|SECTION ...] | help --man: serial; 0, or 2 for a name that is no key. */
int polka_app_help(int argc, char **argv);

/** Writes the manual page polka(1), in roff, from the usage text and the key table. */
void polka_app_print_man(FILE *out);

/** Prints polka's version and those of the MPI, HDF5 and BLAS it runs with (--version). */
void polka_app_print_version(void);

int polka_cmd_run(int argc, char **argv, MPI_Comm comm);
int polka_cmd_data(int argc, char **argv, MPI_Comm comm);

#endif
