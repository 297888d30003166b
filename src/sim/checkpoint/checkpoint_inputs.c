/*
 * The input files a checkpoint was written with (checkpoint_impl.h): the data files and a graph
 * file, each recorded as "key<TAB>bytes<TAB>mtime<TAB>digest" (a 64-bit FNV-1a of the whole
 * file) in the dataset "inputs", and compared on resume, so that a resumed run never goes on
 * silently with other data under the same name. The same size and mtime are
 * taken as the same file; another mtime makes the digests decide (a copied file resumes, a
 * regenerated one with other bytes does not). A digest is computed once per file and process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/checkpoint/checkpoint_h5_impl.h"
#include "sim/checkpoint/checkpoint_impl.h"

enum { MAX_INPUTS = 5, CACHED = 16 };

typedef struct {
    const char *key, *path;
} input_file;

typedef struct {
    unsigned long long bytes;
    long long seconds;
    long nanoseconds;
    uint64_t digest;
    int regular;
} file_identity;

/* The run's input files (the keys that are set). */
static size_t input_files(const polka_plan *plan, input_file *out) {
    const input_file all[MAX_INPUTS] = {
        {"data.train", plan->data.train},
        {"data.train_labels", plan->data.train_labels},
        {"data.test", plan->data.test},
        {"data.test_labels", plan->data.test_labels},
        {"net.graph", plan->net.generated ? "" : plan->net.graph},
    };
    size_t n = 0;
    for (size_t k = 0; k < MAX_INPUTS; k++)
        if (all[k].path[0] != '\0') out[n++] = all[k];
    return n;
}

static polka_status stat_file(const input_file *input, file_identity *id) {
    struct stat info;
    POLKA_CHECK(stat(input->path, &info) == 0, POLKA_ERR_IO, "cannot read %s '%s': %s", input->key,
                input->path, strerror(errno));
    *id = (file_identity){0}; /* not a regular file (a FIFO, a device): never read, all 0 */
    if (!S_ISREG(info.st_mode)) return POLKA_OK;
    *id = (file_identity){.bytes = (unsigned long long)info.st_size,
                          .seconds = (long long)info.st_mtim.tv_sec,
                          .nanoseconds = info.st_mtim.tv_nsec,
                          .regular = 1};
    return POLKA_OK;
}

/* The digest of the whole file, from the cache when the same path, size and mtime were read. */
static polka_status digest_file(const input_file *input, file_identity *id) {
    if (!id->regular) return POLKA_OK;
    static struct {
        char path[POLKA_PATH_LEN];
        file_identity id;
    } cache[CACHED];
    static size_t used;
    for (size_t k = 0; k < used; k++)
        if (strcmp(cache[k].path, input->path) == 0 && cache[k].id.bytes == id->bytes &&
            cache[k].id.seconds == id->seconds && cache[k].id.nanoseconds == id->nanoseconds) {
            id->digest = cache[k].id.digest;
            return POLKA_OK;
        }
    FILE *f = fopen(input->path, "rb");
    POLKA_CHECK(f != NULL, POLKA_ERR_IO, "cannot read %s '%s': %s", input->key, input->path,
                strerror(errno));
    unsigned char *buffer = malloc(1 << 20);
    uint64_t hash = 0xcbf29ce484222325ull;
    size_t got = 0;
    while (buffer && (got = fread(buffer, 1, 1 << 20, f)) > 0) polka_fnv1a(&hash, buffer, got);
    int failed = buffer == NULL || ferror(f);
    fclose(f);
    free(buffer);
    POLKA_CHECK(!failed, POLKA_ERR_IO, "cannot read %s '%s'", input->key, input->path);
    id->digest = hash;
    size_t slot = used < CACHED ? used++ : CACHED - 1;
    snprintf(cache[slot].path, sizeof cache[slot].path, "%s", input->path);
    cache[slot].id = *id;
    return POLKA_OK;
}

polka_status polka_ckpt_inputs_text(const polka_plan *plan, char **text) {
    input_file inputs[MAX_INPUTS];
    size_t n = input_files(plan, inputs), cap = 128 * (n + 1), used = 0;
    *text = malloc(cap);
    POLKA_CHECK_ALLOC(*text);
    (*text)[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        file_identity id;
        polka_status status = stat_file(&inputs[k], &id);
        if (status == POLKA_OK) status = digest_file(&inputs[k], &id);
        if (status != POLKA_OK) {
            free(*text);
            *text = NULL;
            return status;
        }
        used += (size_t)snprintf(*text + used, cap - used, "%s\t%llu\t%lld.%09ld\t%016llx\n",
                                 inputs[k].key, id.bytes, id.seconds, id.nanoseconds,
                                 (unsigned long long)id.digest);
    }
    return POLKA_OK;
}

static const char *next_line(const char *line) {
    const char *end = strchr(line, '\n');
    return end ? end + 1 : NULL;
}

/* The saved line of key parsed into *id (0: there is none). */
static int saved_identity(const char *saved, const char *key, file_identity *id) {
    size_t length = strlen(key);
    for (const char *line = saved; line && *line; line = next_line(line))
        if (strncmp(line, key, length) == 0 && line[length] == '\t')
            return sscanf(line + length, "\t%llu\t%lld.%ld\t%llx", &id->bytes, &id->seconds,
                          &id->nanoseconds, (unsigned long long *)&id->digest) == 4;
    return 0;
}

static polka_status compare_input(const char *ckpt, const char *saved, const input_file *input) {
    file_identity then = {0}, now = {0};
    POLKA_CHECK(saved_identity(saved, input->key, &then), POLKA_ERR_FORMAT,
                "cannot resume from '%s': it does not record its %s (damaged)", ckpt, input->key);
    POLKA_CALL(stat_file(input, &now));
    int same_time = now.seconds == then.seconds && now.nanoseconds == then.nanoseconds;
    if (now.bytes == then.bytes && !same_time) POLKA_CALL(digest_file(input, &now));
    POLKA_CHECK(now.bytes == then.bytes && (same_time || now.digest == then.digest), POLKA_ERR_ARG,
                "cannot resume from '%s': %s '%s' is not the file it was written with (%llu bytes "
                "then, %llu now%s): a resumed run must read the same data",
                ckpt, input->key, input->path, then.bytes, now.bytes,
                now.bytes == then.bytes ? ", other contents" : "");
    return POLKA_OK;
}

polka_status polka_ckpt_check_inputs(const char *ckpt, const char *saved, const polka_plan *plan) {
    input_file inputs[MAX_INPUTS];
    size_t n = input_files(plan, inputs);
    for (size_t k = 0; k < n; k++) POLKA_CALL(compare_input(ckpt, saved, &inputs[k]));
    return POLKA_OK;
}
