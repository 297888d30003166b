/* The polka command: shared pieces of its sub-commands. */
#ifndef POLKA_APP_H
#define POLKA_APP_H

#include <mpi.h>
#include <stdio.h>

#include "polka/config.h"
#include "polka/paths.h"
#include "polka/plan.h"
#include "polka/error.h"

/**
 * An argument of a sub-command beyond the settings: returns 1 when it used arg, 0 when it does
 * not know it, −1 (with the error set) when arg is its but wrong. Called on every rank.
 */
/** `polka run`'s exit status after a signal stopped it with a checkpoint written (the
 * sysexits EX_TEMPFAIL: "try again later", here with --resume). */
#define POLKA_EXIT_STOPPED 75

typedef int (*polka_extra_fn)(const char *arg, void *context);

/**
 * Collective: every rank reads the sub-command's own arguments through `extra` (NULL to reject
 * any), rank 0 reads `--config FILE`, `--set key=value` and `--centralized` and builds the plan,
 * which is broadcast; every rank returns the same status.
 */
polka_status polka_app_read_plan(int argc, char **argv, MPI_Comm comm, polka_plan *plan,
                                 polka_extra_fn extra, void *context);

/**
 * Collective: rank 0 applies the rule of polka/paths.h to the files of the command: the
 * --config files of argv, extra (the command's own: a clash names them before the plan's),
 * the plan's input files, and its run's outputs and --resume when run is 1; every rank
 * returns the same status (a serial command passes MPI_COMM_SELF).
 */
polka_status polka_app_check_files(int argc, char **argv, MPI_Comm comm, const polka_plan *plan,
                                   int run, const polka_file_use *extra, size_t extra_count);

/** Prints the usage and the key table (polka --help). */
void polka_app_print_usage(void);

/** polka help [KEY|SECTION ...] | help --man: serial; 0, or 2 for a name that is no key. */
int polka_app_help(int argc, char **argv);

/** Writes the manual page polka(1), in roff, from the usage text and the key table. */
void polka_app_print_man(FILE *out);

/** Prints polka's version and those of the MPI, HDF5 and BLAS it runs with (--version). */
void polka_app_print_version(void);

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

/** polka data split: prints the per-agent class histogram; output (may be NULL): FILE.csv, or a
 * figure (FILE.png, .pdf, .svg: drawn by python/polka/plot_cli.py, its numbers in FILE.csv). */
polka_status polka_data_split(const polka_plan *plan, int ranks, const char *output);

/** The CSV file polka data split -o OUTPUT writes in csv[size] ("" without -o: output NULL):
 * OUTPUT.csv itself, or FIGURE.csv beside a figure (.png, .pdf, .svg); another name is an
 * error. */
polka_status polka_data_split_outputs(const char *output, char *csv, size_t size);

#endif
