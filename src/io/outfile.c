/* Writing an output safely: a temporary name of its own, renamed over the real one when the
 * file is complete, and a lock that keeps a second writer off it (paths.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "polka/paths.h"

/* Tries at a fresh temporary name before giving up (36^6 names: a clash is rare). */
#define TEMP_TRIES 64

/* The signature that starts a lock file's text: another file of that name is not polka's. */
#define LOCK_SIGNATURE "polka lock"

/* A 64-bit mix of pid, clock and a counter (splitmix64's finaliser): unlike the run's
 * numbers, a temporary name need not be reproducible, only unlikely to be taken. */
static uint64_t fresh_bits(void) {
    static uint64_t counter;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t z = ((uint64_t)getpid() << 32) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 20) ^
                 (++counter * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

polka_status polka_temp_create(const char *final, char *tmp, size_t size) {
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    int code = 0;
    for (int attempt = 0; attempt < TEMP_TRIES; attempt++) {
        char suffix[7];
        uint64_t bits = fresh_bits();
        for (int k = 0; k < 6; k++, bits /= 36) suffix[k] = digits[bits % 36];
        suffix[6] = '\0';
        int written = snprintf(tmp, size, "%s.%s.tmp", final, suffix);
        POLKA_CHECK(written > 0 && (size_t)written < size, POLKA_ERR_ARG,
                    "path too long for a temporary name: '%s'", final);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            close(fd);
            return POLKA_OK;
        }
        code = errno;
        if (code != EEXIST) break;
    }
    polka_status status =
        polka_error_set(POLKA_ERR_IO, "cannot write '%s': %s (creating its temporary file '%s')",
                        final, strerror(code), tmp);
    tmp[0] = '\0'; /* no file of ours under it: nothing for the caller to remove */
    return status;
}

/* fsync of a file or folder; 1 on success. */
static int sync_path(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int synced = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0) close(fd);
    return synced;
}

polka_status polka_temp_commit(const char *tmp, const char *final) {
    POLKA_CHECK(sync_path(tmp), POLKA_ERR_IO, "cannot flush '%s' to the disk: %s", tmp,
                strerror(errno));
    POLKA_CHECK(rename(tmp, final) == 0, POLKA_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, final,
                strerror(errno));
    char dir[512];
    polka_path_dir(final, dir, sizeof dir);
    (void)sync_path(dir); /* the rename on the disk: best effort */
    return POLKA_OK;
}

polka_status polka_write_through_temp(const char *final, polka_write_fn write, void *context) {
    char tmp[4096];
    POLKA_CALL(polka_temp_create(final, tmp, sizeof tmp));
    polka_status status = write(tmp, context);
    if (status == POLKA_OK) status = polka_temp_commit(tmp, final);
    if (status != POLKA_OK) unlink(tmp);
    return status;
}

/* The holder's line of a lock file ("polka lock: pid N on HOST"), or "" when unreadable. */
static void lock_text(int fd, char *out, size_t size) {
    ssize_t got = pread(fd, out, size - 1, 0);
    out[got > 0 ? (size_t)got : 0] = '\0';
    out[strcspn(out, "\n")] = '\0';
}

/* Whether errno of a failed F_SETLK says that this file system keeps no locks. */
static int locks_unsupported(int code) {
    return code == ENOLCK || code == ENOSYS || code == EOPNOTSUPP || code == EINVAL;
}

/* Locks fd (the lock file, as opened); 1 when taken, 0 when held by another, −1 no locks. */
static int lock_fd(int fd, int *code) {
    struct flock range = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &range) == 0) return 1;
    *code = errno;
    return locks_unsupported(*code) ? -1 : 0;
}

/* The locked file is still the one under the name (its last holder may have removed it
 * between our open and our lock), is polka's, and now says who holds it. */
static polka_status claim(polka_lock *lock, int fd, const char *what, int *stale) {
    struct stat held, named;
    *stale = fstat(fd, &held) != 0 || stat(lock->path, &named) != 0 ||
             held.st_dev != named.st_dev || held.st_ino != named.st_ino;
    if (*stale) return POLKA_OK;
    char text[128];
    lock_text(fd, text, sizeof text);
    POLKA_CHECK(held.st_size == 0 || strncmp(text, LOCK_SIGNATURE, strlen(LOCK_SIGNATURE)) == 0,
                POLKA_ERR_IO,
                "'%s' exists and is not polka's lock file: remove it or choose another %s",
                lock->path, what);
    char host[64] = "?";
    gethostname(host, sizeof host - 1);
    int len = snprintf(text, sizeof text, LOCK_SIGNATURE ": pid %ld on %s\n", (long)getpid(), host);
    int labelled = ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)len, 0) == len;
    (void)labelled; /* the label only names the holder in another run's message */
    lock->fd = fd;
    return POLKA_OK;
}

/* One try at the lock; *again when the file under the name changed meanwhile. */
static polka_status try_lock(polka_lock *lock, const char *output, const char *what, int *again) {
    *again = 0;
    polka_status status = POLKA_OK;
    int fd = open(lock->path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
    POLKA_CHECK(fd >= 0, POLKA_ERR_IO, "cannot create %s '%s': %s (its lock file '%s')", what,
                output, strerror(errno), lock->path);
    struct stat info;
    int code = 0, taken = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) ? lock_fd(fd, &code) : 2;
    if (taken == 1) status = claim(lock, fd, what, again);
    if (taken == 0) {
        char holder[128];
        lock_text(fd, holder, sizeof holder);
        status = polka_error_set(POLKA_ERR_IO,
                                 "%s '%s' is being written by another run (%s): wait for it to "
                                 "end, or choose another file",
                                 what, output, holder[0] ? holder : strerror(code));
    }
    if (taken == -1 && info.st_size == 0) unlink(lock->path); /* no locks here: no lock file */
    if (taken == 2)
        status = polka_error_set(POLKA_ERR_IO, "the lock file '%s' of %s is not a regular file",
                                 lock->path, what);
    if (lock->fd != fd) close(fd); /* not ours: closing also drops a lock taken on it */
    return status;
}

polka_status polka_lock_take(polka_lock *lock, const char *output, const char *what) {
    lock->fd = -1;
    int written = snprintf(lock->path, sizeof lock->path, "%s.lock", output);
    POLKA_CHECK(written > 0 && (size_t)written < sizeof lock->path, POLKA_ERR_ARG,
                "%s '%s': path too long for its lock file", what, output);
    for (int attempt = 0; attempt < TEMP_TRIES; attempt++) {
        int again = 0;
        POLKA_CALL(try_lock(lock, output, what, &again));
        if (!again) return POLKA_OK; /* taken, or no locks on this file system */
    }
    return polka_error_set(POLKA_ERR_IO, "cannot lock '%s': it keeps being replaced", lock->path);
}

void polka_lock_drop(polka_lock *lock) {
    if (lock->fd < 0) return;
    unlink(lock->path); /* while still held: a run waiting on this file then tries anew */
    close(lock->fd);
    lock->fd = -1;
}
