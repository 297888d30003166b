/* polka report: one summary line per run file. */
#ifndef POLKA_CMD_REPORT_H
#define POLKA_CMD_REPORT_H

/**
 * `polka report RUN.h5 [RUN2.h5 ...]` (argv[0] is "report"). Serial: no MPI call, the caller
 * runs it on one rank. Prints a table with one row per run file; returns the exit code:
 * 0 ok, 1 when a file cannot be read (one line `polka report: <message>` on stderr),
 * 2 on a usage error.
 */
int polka_cmd_report(int argc, char **argv);

#endif
