/* polka graph: generate and inspect topology files. */
#ifndef POLKA_CMD_GRAPH_H
#define POLKA_CMD_GRAPH_H

/**
 * `polka graph generate|info|--help` (argv[0] is "graph"). Serial: no MPI call, the caller
 * runs it on one rank. Prints its own output and messages; returns the exit code: 0 ok,
 * 1 on an error (one line `polka graph: <message>` on stderr), 2 on a usage error.
 */
int polka_cmd_graph(int argc, char **argv);

#endif
