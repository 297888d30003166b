/**
 * @file memory.h
 * @brief The process's memory policy: the limit that allocations sized by the settings or the
 * data are checked against.
 *
 * By default the limit is this process's share of the memory its node has available: the least
 * of MemAvailable, the headroom of its cgroup (v2 memory.max − memory.current) and the Slurm
 * job's --mem (SLURM_MEM_PER_NODE, or SLURM_MEM_PER_CPU × SLURM_CPUS_ON_NODE), divided among the
 * processes that share the node (polka_data_memory_share), and less under `ulimit -v`/`-d`.
 */
#ifndef POLKA_MEMORY_H
#define POLKA_MEMORY_H

#include <stddef.h>

/**
 * The default memory limit of this process's reads (options without memory_limit): `limit`
 * bytes when not 0, else the node's available memory divided by `sharers` (the processes on
 * the node: an MPI run's ranks there). Process-wide; set once before reading (polka run).
 */
void polka_data_memory_share(size_t limit, unsigned sharers);

/** The default memory limit of this process's reads in bytes (as polka_data_memory_share
 *  sets it): also what other allocations sized by the settings are checked against. */
size_t polka_data_memory_limit(void);

/** What limit came from, as " (data.memory = auto: ...)", or "" for a limit given. */
const char *polka_data_memory_origin(size_t limit);

#endif
