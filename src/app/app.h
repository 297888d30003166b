/* The polka command: shared pieces of its sub-commands. */
#ifndef POLKA_APP_H
#define POLKA_APP_H

#include <mpi.h>

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

int polka_cmd_run(int argc, char **argv, MPI_Comm comm);
int polka_cmd_data(int argc, char **argv, MPI_Comm comm);

#endif
