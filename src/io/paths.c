/* Which file a path names, and the rule that no output clobbers an input or another output
 * (paths.h). */
/* realpath() is an X/Open interface, beyond the build's _POSIX_C_SOURCE */
#define _XOPEN_SOURCE 700

#include "polka/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Symbolic links followed by hand (dangling ones) before giving up, as the kernel's 40. */
#define LINK_DEPTH 40

/* The last component of path (after the trailing slashes) and the folder before it. */
static void split_path(const char *path, char *dir, size_t dir_size, char *base, size_t base_size) {
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/') start--;
    snprintf(base, base_size, "%.*s", (int)(end - start), path + start);
    size_t dir_end = start;
    while (dir_end > 1 && path[dir_end - 1] == '/') dir_end--;
    if (start == 0)
        snprintf(dir, dir_size, ".");
    else
        snprintf(dir, dir_size, "%.*s", (int)dir_end, path);
}

/* The absolute path with "//", "/." and "/x/.." taken out, by the text alone. */
static polka_status lexical_normal(const char *path, char *out, size_t size) {
    char joined[2 * PATH_MAX + 2];
    char cwd[PATH_MAX] = "";
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) == NULL)
        return polka_error_set(POLKA_ERR_IO, "cannot tell the current folder: %s", strerror(errno));
    snprintf(joined, sizeof joined, "%s/%s", cwd, path);
    size_t used = 0;
    out[0] = '\0';
    for (char *part = strtok(joined, "/"); part != NULL; part = strtok(NULL, "/")) {
        if (strcmp(part, ".") == 0) continue;
        if (strcmp(part, "..") == 0) {
            while (used > 0 && out[used - 1] != '/') used--;
            if (used > 0) used--;
            out[used] = '\0';
            continue;
        }
        size_t len = strlen(part);
        POLKA_CHECK(used + 1 + len < size, POLKA_ERR_ARG, "path too long: '%s'", path);
        out[used++] = '/';
        memcpy(out + used, part, len + 1);
        used += len;
    }
    if (used == 0) snprintf(out, size, "/");
    return POLKA_OK;
}

/* The target of the dangling link path, relative to the link's folder. */
static int link_target(const char *path, char *out, size_t size) {
    char target[PATH_MAX], dir[PATH_MAX], base[PATH_MAX];
    ssize_t len = readlink(path, target, sizeof target - 1);
    if (len <= 0) return 0;
    target[len] = '\0';
    split_path(path, dir, sizeof dir, base, sizeof base);
    int written = target[0] == '/' ? snprintf(out, size, "%s", target)
                                   : snprintf(out, size, "%s/%s", dir, target);
    return written > 0 && (size_t)written < size;
}

static polka_status normal_at_depth(const char *path, char *out, size_t size, int depth) {
    POLKA_CHECK(path != NULL && path[0] != '\0', POLKA_ERR_ARG, "empty path");
    char real[PATH_MAX], dir[PATH_MAX], base[PATH_MAX];
    struct stat info;
    if (realpath(path, real) != NULL) {
        POLKA_CHECK(strlen(real) < size, POLKA_ERR_ARG, "path too long: '%s'", path);
        snprintf(out, size, "%s", real);
        return POLKA_OK;
    }
    if (depth < LINK_DEPTH && lstat(path, &info) == 0 && S_ISLNK(info.st_mode) &&
        link_target(path, dir, sizeof dir))
        return normal_at_depth(dir, out, size, depth + 1); /* a dangling link: its target */
    split_path(path, dir, sizeof dir, base, sizeof base);
    int special = strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strcmp(base, "/") == 0;
    if (special || realpath(dir, real) == NULL) return lexical_normal(path, out, size);
    int written = snprintf(out, size, "%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
    POLKA_CHECK(written > 0 && (size_t)written < size, POLKA_ERR_ARG, "path too long: '%s'", path);
    return POLKA_OK;
}

polka_status polka_path_normal(const char *path, char *out, size_t size) {
    return normal_at_depth(path, out, size, 0);
}

void polka_path_dir(const char *path, char *out, size_t size) {
    snprintf(out, size, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash == NULL)
        snprintf(out, size, ".");
    else
        slash[slash == out] = '\0'; /* "/name": keep the root's '/' */
}

int polka_path_same(const char *a, const char *b) {
    if (a == NULL || b == NULL || a[0] == '\0' || b[0] == '\0') return 0;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char na[PATH_MAX], nb[PATH_MAX];
    if (polka_path_normal(a, na, sizeof na) != POLKA_OK ||
        polka_path_normal(b, nb, sizeof nb) != POLKA_OK)
        return strcmp(a, b) == 0;
    return strcmp(na, nb) == 0;
}

static const char *kind_name(mode_t mode) {
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

static int is_output(polka_file_role role) {
    return role == POLKA_FILE_OUTPUT || role == POLKA_FILE_CHECKPOINT;
}

static int present(const polka_file_use *use) {
    return use->path != NULL && use->path[0] != '\0';
}

/* An existing file is a regular one; an output's path fits its temporary name. */
static polka_status check_one(const polka_file_use *use) {
    struct stat info;
    POLKA_CHECK(stat(use->path, &info) != 0 || S_ISREG(info.st_mode), POLKA_ERR_ARG,
                "%s '%s' is %s: polka %s only regular files", use->what, use->path,
                kind_name(info.st_mode), is_output(use->role) ? "writes" : "reads");
    if (!is_output(use->role)) return POLKA_OK;
    size_t longest = use->longest ? use->longest : POLKA_PATH_OUTPUT_MAX;
    POLKA_CHECK(strlen(use->path) <= longest, POLKA_ERR_ARG,
                "%s '%s': %zu characters, at most %zu for %s", use->what, use->path,
                strlen(use->path), longest,
                longest == POLKA_PATH_MPIIO_MAX
                    ? "a file written with MPI-IO (Open MPI aborts on longer names)"
                    : "an output (room for its temporary name)");
    return POLKA_OK;
}

/* The message of two uses that name one file. */
static polka_status clash(const polka_file_use *out, const polka_file_use *other) {
    return polka_error_set(POLKA_ERR_ARG, "%s '%s' and %s '%s' are the same file: %s", out->what,
                           out->path, other->what, other->path,
                           is_output(other->role) ? "one output would overwrite the other"
                                                  : "the output would overwrite the input");
}

polka_status polka_files_check(const polka_file_use *uses, size_t count) {
    for (size_t k = 0; k < count; k++)
        if (present(&uses[k])) POLKA_CALL(check_one(&uses[k]));
    for (size_t k = 0; k < count; k++) {
        if (!present(&uses[k]) || !is_output(uses[k].role)) continue;
        for (size_t j = 0; j < count; j++) {
            if (j == k || !present(&uses[j]) || (is_output(uses[j].role) && j < k)) continue;
            if (uses[k].role == POLKA_FILE_CHECKPOINT && uses[j].role == POLKA_FILE_RESUME)
                continue; /* the checkpoint replaces the one it went on from, once read */
            if (polka_path_same(uses[k].path, uses[j].path)) return clash(&uses[k], &uses[j]);
        }
    }
    return POLKA_OK;
}

polka_status polka_open_regular(const char *path, const char *what, int *fd) {
    /* O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then refuses it */
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    POLKA_CHECK(*fd >= 0, POLKA_ERR_IO, "cannot open %s '%s': %s", what, path, strerror(errno));
    struct stat info = {0};
    int regular = fstat(*fd, &info) == 0 && S_ISREG(info.st_mode);
    if (!regular) {
        close(*fd);
        *fd = -1;
        return polka_error_set(POLKA_ERR_IO, "cannot read %s '%s': it is %s", what, path,
                               kind_name(info.st_mode));
    }
    int flags = fcntl(*fd, F_GETFL);
    if (flags >= 0) (void)fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK);
    return POLKA_OK;
}
