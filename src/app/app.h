/* The polka command: shared pieces of its sub-commands. */
#ifndef POLKA_APP_H
#define POLKA_APP_H

#include <mpi.h>

#include "polka/config.h"
#include "polka/plan.h"
#include "polka/error.h"

/**
 * An argument of a sub-command beyond the settings: returns 1 when it used arg, 0 when it does
 * not know it, −1 (with the error set) when arg is its but wrong. Called on every rank.
 */
typedef int (*polka_extra_fn)(const char *arg, void *context);

/**
 * Collective: every rank reads the sub-command's own arguments through `extra` (NULL to reject
 * any), rank 0 reads `--config FILE`, `--set key=value` and `--centralized` and builds the plan,
 * which is broadcast; every rank returns the same status.
 */
polka_status polka_app_read_plan(int argc, char **argv, MPI_Comm comm, polka_plan *plan,
                                 polka_extra_fn extra, void *context);

/** Prints the key table with defaults and help (polka --help). */
void polka_app_print_keys(void);

int polka_cmd_run(int argc, char **argv, MPI_Comm comm);
int polka_cmd_data(int argc, char **argv, MPI_Comm comm);

/** polka data split: prints the per-agent class histogram; output (may be NULL): FILE.csv, or a
 * figure (FILE.png, .pdf, .svg: drawn by experiments/plot.py, its numbers in FILE.csv). */
polka_status polka_data_split(const polka_plan *plan, int ranks, const char *output);

#endif
