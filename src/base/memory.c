/* The process's memory policy (polka/memory.h): its share of the node's available memory, or
 * the limit it was given. */
#include "polka/memory.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const double MB = 1024.0 * 1024.0;

/* MemAvailable of /proc/meminfo in bytes, or 0 when it cannot be read. */
static size_t mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
}

static size_t below_limit(size_t bytes, int resource) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return bytes;
    return limit.rlim_cur < bytes ? (size_t)limit.rlim_cur : bytes;
}

/* The first number of a file (a cgroup's memory.max or memory.current), or 0 ("max", none). */
static double read_number(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0.0;
    double value = 0.0;
    if (fscanf(f, "%lf", &value) != 1) value = 0.0;
    fclose(f);
    return value;
}

/* The headroom of this process's cgroup (v2: memory.max − memory.current), or 0 unlimited. */
static double cgroup_headroom(void) {
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f == NULL) return 0.0;
    char line[512], dir[480] = "";
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "0::%479s", dir) == 1) break;
    fclose(f);
    if (dir[0] == '\0') return 0.0;
    if (strcmp(dir, "/") == 0) dir[0] = '\0';
    double max = read_number(dir, "memory.max"), used = read_number(dir, "memory.current");
    return max > 0 ? fmax(max - used, 1.0) : 0.0;
}

/* The Slurm job's memory on this node in bytes (--mem or --mem-per-cpu), or 0. */
static double slurm_memory(void) {
    const char *node = getenv("SLURM_MEM_PER_NODE"), *cpu = getenv("SLURM_MEM_PER_CPU");
    const char *cpus = getenv("SLURM_CPUS_ON_NODE");
    double mb = node ? atof(node) : cpu && cpus ? atof(cpu) * atof(cpus) : 0.0;
    return mb > 0 ? mb * MB : 0.0;
}

static struct {
    size_t limit;     /* polka_data_memory_share: bytes, or 0 (automatic) */
    unsigned sharers; /* processes sharing the node (0 read as 1) */
    size_t automatic; /* the last automatic limit, and what it came from */
    char origin[200];
} share;

void polka_data_memory_share(size_t limit, unsigned sharers) {
    share.limit = limit;
    share.sharers = sharers;
}

/* The node's available memory (the least of what the machine, the cgroup and Slurm allow),
 * divided among the processes sharing it; share.origin says so. */
static size_t node_share(void) {
    double bytes = (double)mem_available();
    if (bytes == 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        bytes = pages > 0 && size > 0 ? (double)pages * (double)size : (double)SIZE_MAX;
    }
    const char *from = "available on this node";
    double cgroup = cgroup_headroom(), slurm = slurm_memory();
    if (cgroup > 0 && cgroup < bytes) bytes = cgroup, from = "left in this job's cgroup";
    if (slurm > 0 && slurm < bytes) bytes = slurm, from = "of the Slurm job on this node";
    unsigned sharers = share.sharers ? share.sharers : 1;
    snprintf(share.origin, sizeof share.origin,
             " (data.memory = auto: %.0f MB %s, shared by %u process%s)", bytes / MB, from, sharers,
             sharers == 1 ? "" : "es");
    double mine = bytes / sharers;
    return mine < 0x1p63 ? (size_t)mine : SIZE_MAX;
}

size_t polka_data_memory_limit(void) {
    if (share.limit > 0) return share.limit;
    size_t node = node_share();
    share.automatic = below_limit(below_limit(node, RLIMIT_AS), RLIMIT_DATA);
    if (share.automatic < node) /* the process's own limit is the smaller */
        snprintf(share.origin, sizeof share.origin, " (ulimit -v or -d of this process)");
    return share.automatic;
}

const char *polka_data_memory_origin(size_t limit) {
    return share.limit == 0 && limit == share.automatic ? share.origin : "";
}
