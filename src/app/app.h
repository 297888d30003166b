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

/** The default of --read-timeout (polka predict, polka report), in seconds. */
#define POLKA_READ_TIMEOUT_DEFAULT 60

/** Parses --read-timeout: whole seconds in [0, 86400], 0 for none. */
polka_status polka_app_read_timeout_parse(const char *text, unsigned *seconds);

/**
 * Arms a deadline (SIGALRM) on reading the run file `path`: if polka_app_read_done has not
 * been called within `seconds` (0: no deadline), the process prints "polka COMMAND: run file
 * 'PATH' not read within N s: ..." and exits 1. Serial commands only.
 */
void polka_app_read_deadline(const char *command, const char *path, unsigned seconds);

/** Disarms the deadline. */
void polka_app_read_done(void);

int polka_cmd_run(int argc, char **argv, MPI_Comm comm);
int polka_cmd_data(int argc, char **argv, MPI_Comm comm);

#endif
