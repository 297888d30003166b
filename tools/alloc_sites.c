/*
 * Heap bytes by allocation site, for experiments/agent_memory.sh: an LD_PRELOAD library that
 * wraps malloc, calloc, realloc, free, the aligned allocators and the program's own anonymous
 * mmap and munmap (polka's pages.c; at a snapshot a mapping counts its resident pages),
 * records the call stack of
 * every allocation (glibc's backtrace) and keeps the live bytes per distinct stack. When the
 * live total reaches a new high (by 0.5 % or more) it snapshots the bytes per stack, so the
 * file it writes at exit holds each stack's bytes at (within 0.5 % of) the process's heap
 * peak. It measures any build the same way: no source change is needed to compare two.
 *
 * Only a process whose program name is $ALLOC_SITES_PROGRAM (default polka) writes, to
 * $ALLOC_SITES_OUT.<pid>: a line "peak <bytes> heap <obtained by malloc from the system, brk>
 * mmapped <its mmapped chunks> in_use <bytes in chunks in use> free <bytes in free chunks>"
 * (glibc's mallinfo2 at the snapshot), then per stack
 * "<bytes at peak> <bytes at exit> <module>+0x<offset> ..." innermost frame first.
 *
 *   cc -O2 -shared -fPIC -o alloc_sites.so tools/alloc_sites.c -ldl -pthread
 *   LD_PRELOAD=$PWD/alloc_sites.so ALLOC_SITES_OUT=out/sites polka run ...
 *
 * Costs a backtrace per allocation and 2 × 64 MB of tables: a measuring tool, not for timing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

#define DEPTH      12         /* frames kept per stack (the wrapper's own is dropped) */
#define LIVE_SLOTS (1u << 22) /* live allocations: open addressing, linear probing */
#define SITE_SLOTS (1u << 16) /* distinct stacks */

typedef struct {
    uintptr_t ptr; /* 0: empty */
    size_t size;
    uint32_t site;
} live_entry;

typedef struct {
    uint64_t hash; /* 0: empty */
    int depth;
    void *frames[DEPTH];
    size_t live, at_peak;
    size_t mapped; /* of live, the program's mappings (virtual bytes) */
} site_entry;

/* The program's live mappings: a page of one costs memory once written, so a snapshot counts
 * their resident pages (mincore), not their size. */
typedef struct {
    uintptr_t ptr; /* 0: empty; a tombstone is 1 */
    size_t size;
    uint32_t site;
} map_entry;
#define MAP_SLOTS (1u << 17)
static map_entry *maps;
static unsigned char residency[1u << 16]; /* mincore's answer, a byte per page */

static live_entry *live;
static site_entry *sites;
static size_t live_total, peak_total, snapshot_total;
static struct mallinfo2 heap_at_snapshot; /* glibc's view then: obtained, in use, free */
static volatile int lock_word;
static __thread int inside __attribute__((tls_model("initial-exec"))); /* the wrapper's own allocations (backtrace's) go untracked */
static int disabled;

static void lock(void) {
    while (__atomic_test_and_set(&lock_word, __ATOMIC_ACQUIRE)) {
    }
}

static void unlock(void) {
    __atomic_clear(&lock_word, __ATOMIC_RELEASE);
}

static void *map_zeroed(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Called under the lock. */
static int ready(void) {
    if (live != NULL) return 1;
    if (disabled) return 0;
    live = map_zeroed(LIVE_SLOTS * sizeof *live);
    sites = map_zeroed(SITE_SLOTS * sizeof *sites);
    if (live == NULL || sites == NULL) disabled = 1;
    return !disabled;
}

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h | 1; /* never 0: 0 marks an empty slot */
}

static uint32_t site_of(void *const *frames, int depth) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int k = 0; k < depth; k++) h = mix(h ^ (uint64_t)(uintptr_t)frames[k]);
    for (uint32_t s = (uint32_t)h & (SITE_SLOTS - 1);; s = (s + 1) & (SITE_SLOTS - 1)) {
        site_entry *e = &sites[s];
        if (e->hash == h) return s;
        if (e->hash == 0) {
            e->hash = h;
            e->depth = depth;
            memcpy(e->frames, frames, (size_t)depth * sizeof *frames);
            return s;
        }
    }
}

/* Keeps each site's bytes at the newest high of the live total (to 0.5 %). */
static size_t resident_bytes(const map_entry *m) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (m->size + page - 1) / page, count = 0;
    for (size_t first = 0; first < pages; first += sizeof residency) {
        size_t chunk = pages - first < sizeof residency ? pages - first : sizeof residency;
        if (mincore((char *)m->ptr + first * page, chunk * page, residency) != 0) return m->size;
        for (size_t k = 0; k < chunk; k++) count += residency[k] & 1;
    }
    return count * page;
}

static void maybe_snapshot(void) {
    if (live_total > peak_total) peak_total = live_total;
    if (live_total < snapshot_total + snapshot_total / 200 + (1u << 20)) return;
    for (uint32_t s = 0; s < SITE_SLOTS; s++) sites[s].at_peak = sites[s].live - sites[s].mapped;
    for (uint32_t k = 0; maps != NULL && k < MAP_SLOTS; k++)
        if (maps[k].ptr > 1) sites[maps[k].site].at_peak += resident_bytes(&maps[k]);
    snapshot_total = live_total;
    heap_at_snapshot = mallinfo2();
}

static void record(void *ptr, size_t size, void *const *frames, int depth, int mapped) {
    if (ptr == NULL || !ready()) return;
    uint32_t site = site_of(frames, depth);
    if (mapped) {
        if (maps == NULL) maps = map_zeroed(MAP_SLOTS * sizeof *maps);
        for (uint32_t k = (uint32_t)mix((uintptr_t)ptr) & (MAP_SLOTS - 1); maps != NULL;
             k = (k + 1) & (MAP_SLOTS - 1)) {
            if (maps[k].ptr > 1) continue;
            maps[k] = (map_entry){(uintptr_t)ptr, size, site};
            sites[site].mapped += size;
            break;
        }
    }
    uintptr_t key = (uintptr_t)ptr;
    for (uint32_t i = (uint32_t)mix(key) & (LIVE_SLOTS - 1);; i = (i + 1) & (LIVE_SLOTS - 1)) {
        if (live[i].ptr == 0) {
            live[i] = (live_entry){key, size, site};
            break;
        }
    }
    sites[site].live += size;
    live_total += size;
    maybe_snapshot();
}

/* Removes ptr (backward-shift deletion keeps the probe chains whole). */
/* Forgets a mapping of the program (a tombstone keeps the probe chains whole). */
static void forget_map(void *ptr) {
    if (maps == NULL) return;
    for (uint32_t k = (uint32_t)mix((uintptr_t)ptr) & (MAP_SLOTS - 1); maps[k].ptr != 0;
         k = (k + 1) & (MAP_SLOTS - 1)) {
        if (maps[k].ptr != (uintptr_t)ptr) continue;
        sites[maps[k].site].mapped -= maps[k].size;
        maps[k].ptr = 1;
        return;
    }
}

static void forget(void *ptr) {
    if (ptr == NULL || live == NULL) return;
    uintptr_t key = (uintptr_t)ptr;
    uint32_t i = (uint32_t)mix(key) & (LIVE_SLOTS - 1);
    while (live[i].ptr != key) {
        if (live[i].ptr == 0) return; /* not ours (allocated before the first call) */
        i = (i + 1) & (LIVE_SLOTS - 1);
    }
    sites[live[i].site].live -= live[i].size;
    live_total -= live[i].size;
    for (uint32_t j = (i + 1) & (LIVE_SLOTS - 1); live[j].ptr != 0; j = (j + 1) & (LIVE_SLOTS - 1)) {
        uint32_t home = (uint32_t)mix(live[j].ptr) & (LIVE_SLOTS - 1);
        /* move j back to i unless its home lies cyclically in (i, j] */
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays) continue;
        live[i] = live[j];
        i = j;
    }
    live[i].ptr = 0;
}

/* The stack of the caller (the wrapper's frame dropped). */
static int stack(void **frames) {
    void *all[DEPTH + 1];
    int depth = backtrace(all, DEPTH + 1);
    if (depth <= 1) return 0;
    memcpy(frames, all + 1, (size_t)(depth - 1) * sizeof *frames);
    return depth - 1;
}

static void *track(void *ptr, size_t size, void *old, int mapped) {
    void *frames[DEPTH];
    int depth = stack(frames);
    lock();
    if (old != NULL) forget(old);
    record(ptr, size, frames, depth, mapped);
    unlock();
    return ptr;
}

void *malloc(size_t size) {
    if (inside) return __libc_malloc(size);
    inside = 1;
    void *p = track(__libc_malloc(size), size, NULL, 0);
    inside = 0;
    return p;
}

void *calloc(size_t count, size_t size) {
    if (inside) return __libc_calloc(count, size);
    inside = 1;
    void *p = track(__libc_calloc(count, size), count * size, NULL, 0);
    inside = 0;
    return p;
}

void *realloc(void *old, size_t size) {
    if (inside) return __libc_realloc(old, size);
    inside = 1;
    void *p = __libc_realloc(old, size);
    if (p != NULL || size == 0) {
        track(p, size, old, 0);
    }
    inside = 0;
    return p;
}

void free(void *ptr) {
    if (ptr != NULL && !inside) {
        lock();
        forget(ptr);
        unlock();
    }
    __libc_free(ptr);
}

void *memalign(size_t align, size_t size) {
    if (inside) return __libc_memalign(align, size);
    inside = 1;
    void *p = track(__libc_memalign(align, size), size, NULL, 0);
    inside = 0;
    return p;
}

void *aligned_alloc(size_t align, size_t size) {
    return memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size) {
    void *p = memalign(align, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t size) {
    return memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

static const char *program(void) {
    const char *want = getenv("ALLOC_SITES_PROGRAM");
    return want ? want : "polka";
}

/* 1 when addr lies in the program itself (not in a library: malloc's, OpenBLAS's and MPI's
 * own mappings are not the program's arrays). */
static int in_program(void *addr) {
    Dl_info info;
    if (!dladdr(addr, &info) || info.dli_fname == NULL) return 0;
    const char *slash = strrchr(info.dli_fname, '/');
    return strcmp(slash ? slash + 1 : info.dli_fname, program()) == 0;
}

/* Anonymous mappings the program makes itself (polka's pages.c) count as allocations. */
void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    void *p = (void *)syscall(SYS_mmap, addr, length, prot, flags, fd, offset);
    if (p == MAP_FAILED || !(flags & MAP_ANONYMOUS) || inside) return p;
    inside = 1;
    if (in_program(__builtin_return_address(0))) track(p, length, NULL, 1);
    inside = 0;
    return p;
}

int munmap(void *addr, size_t length) {
    if (!inside) {
        lock();
        forget_map(addr);
        forget(addr);
        unlock();
    }
    return (int)syscall(SYS_munmap, addr, length);
}

static void print_frame(FILE *f, void *addr) {
    Dl_info info;
    if (dladdr(addr, &info) && info.dli_fname != NULL)
        fprintf(f, " %s+0x%zx", info.dli_fname, (size_t)((char *)addr - (char *)info.dli_fbase));
    else
        fprintf(f, " ?+%p", addr);
}

__attribute__((destructor)) static void write_sites(void) {
    const char *out = getenv("ALLOC_SITES_OUT");
    extern char *program_invocation_short_name;
    if (out == NULL || sites == NULL) return;
    if (strcmp(program_invocation_short_name, program()) != 0) return;
    inside = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", out, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f == NULL) return;
    lock();
    const struct mallinfo2 *h = &heap_at_snapshot;
    fprintf(f, "peak %zu heap %zu mmapped %zu in_use %zu free %zu\n", peak_total, h->arena,
            h->hblkhd, h->uordblks, h->fordblks);
    for (uint32_t s = 0; s < SITE_SLOTS; s++) {
        const site_entry *e = &sites[s];
        if (e->hash == 0 || (e->at_peak == 0 && e->live == 0)) continue;
        fprintf(f, "%zu %zu", e->at_peak, e->live);
        for (int k = 0; k < e->depth; k++) print_frame(f, e->frames[k]);
        fputc('\n', f);
    }
    unlock();
    fclose(f);
}
