/**
 * @file paths.h
 * @brief The files a command reads and writes: one rule that no output clobbers an input or
 * another output however the paths are spelled, temporary names, and locks.
 *
 * Every command lists the files it will read and write (polka_file_use) and calls
 * polka_files_check before it opens anything for writing. Two paths name one file when both
 * exist and are the same inode (st_dev, st_ino: hard links, symbolic links), or else when
 * their normal forms (polka_path_normal) are equal. An output is then written under a
 * temporary name unique to the writer (polka_temp_create) and renamed over its real name
 * when complete (polka_temp_commit): a failed or concurrent writer never leaves half a file
 * under the real name. polka_lock_take keeps a second run off an output while the first
 * holds it; the lock dies with its process.
 */
#ifndef POLKA_PATHS_H
#define POLKA_PATHS_H

#include <stddef.h>

#include "polka/error.h"

/** What a command does with a file. */
typedef enum {
    POLKA_FILE_INPUT,      /**< read */
    POLKA_FILE_RESUME,     /**< read: the checkpoint a run goes on from */
    POLKA_FILE_OUTPUT,     /**< written */
    POLKA_FILE_CHECKPOINT, /**< written: the run's checkpoint (it may replace the RESUME one) */
} polka_file_role;

/** One file a command reads or writes. */
typedef struct {
    const char *what; /**< how the user named it: "run.output", "--config", "-o" */
    const char *path; /**< "" or NULL: none */
    polka_file_role role;
    size_t longest; /**< an output's longest path (characters); 0: POLKA_PATH_OUTPUT_MAX */
} polka_file_use;

/** The characters a temporary name adds to its real name: ".XXXXXX.tmp". */
#define POLKA_TEMP_SUFFIX_LEN 11

/** The longest output path: room for the temporary name and the lock (".lock") within the
 * settings' POLKA_PATH_LEN (512) bytes. */
#define POLKA_PATH_OUTPUT_MAX (512 - 1 - POLKA_TEMP_SUFFIX_LEN)

/** The longest run file path: Open MPI 4.1's shared-file-pointer component (sharedfp/sm),
 * which HDF5's MPI-IO driver opens, aborts the process ("buffer overflow detected") on a file
 * name of 245 characters or more, and the run file is created under its temporary name. */
#define POLKA_PATH_MPIIO_MAX (244 - POLKA_TEMP_SUFFIX_LEN)

/**
 * The absolute normal form of path in out[size]: realpath() of the file when it exists; of a
 * dangling symbolic link, that of its target; else realpath() of its folder and its last
 * component; else (no such folder) the absolute path with "//", "." and ".." taken out.
 */
polka_status polka_path_normal(const char *path, char *out, size_t size);

/** The folder of path as written, in out[size]: "." without a '/', "/" for a file in the root. */
void polka_path_dir(const char *path, char *out, size_t size);

/** 1 when a and b name one file (see the file comment); 0 when either is empty or NULL. */
int polka_path_same(const char *a, const char *b);

/**
 * The rule, before anything is opened for writing: every path that exists is a regular file;
 * an output fits its longest length; no output names an input or another output (a
 * CHECKPOINT may name the RESUME file: it replaces it by a rename once read). One message
 * naming both files otherwise (POLKA_ERR_ARG).
 */
polka_status polka_files_check(const polka_file_use *uses, size_t count);

/**
 * Opens path for reading (fd), refusing what is not a regular file (a FIFO, a device, a
 * folder) without blocking on it: "cannot read WHAT 'PATH': ...".
 */
polka_status polka_open_regular(const char *path, const char *what, int *fd);

/**
 * Creates a new, empty file "FINAL.XXXXXX.tmp" (O_EXCL: never an existing file) beside final
 * and stores its name in tmp[size].
 */
polka_status polka_temp_create(const char *final, char *tmp, size_t size);

/** Flushes tmp to the disk and renames it over final (and flushes the folder). */
polka_status polka_temp_commit(const char *tmp, const char *final);

/** Writes one output: the whole file under path (a temporary name). */
typedef polka_status (*polka_write_fn)(const char *path, void *context);

/** write() into a temporary file (polka_temp_create) renamed over final when it succeeded,
 * removed when it failed: final is replaced whole or not at all. */
polka_status polka_write_through_temp(const char *final, polka_write_fn write, void *context);

/** A lock on an output: the file "OUTPUT.lock", locked with fcntl while fd is open. */
typedef struct {
    int fd; /**< -1: none held */
    char path[512];
} polka_lock;

/**
 * Takes the lock of output (what: its key, for the message) without waiting: POLKA_ERR_IO
 * naming the process that holds it. A file system without locks (some parallel file systems
 * mounted without them) leaves the lock untaken (fd −1) and returns POLKA_OK.
 */
polka_status polka_lock_take(polka_lock *lock, const char *output, const char *what);

/** Removes the lock file and releases the lock (nothing when none is held). */
void polka_lock_drop(polka_lock *lock);

#endif
