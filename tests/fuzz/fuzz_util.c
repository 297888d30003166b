#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <zlib.h>

static const char *directory(void) {
    if (access("/dev/shm", W_OK) == 0) return "/dev/shm";
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

static void write_plain(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* gzip with a small window and little memory: the fuzzer does this for every input. */
static void write_gzip(const char *path, const uint8_t *data, size_t size) {
    static unsigned char out[1 << 17];
    z_stream z = {0};
    if (deflateInit2(&z, 1, Z_DEFLATED, 9 + 16, 1, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    z.next_in = (unsigned char *)data;
    z.avail_in = (unsigned)size;
    z.next_out = out;
    z.avail_out = sizeof out;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort(); /* inputs are far below 64 KB */
    write_plain(path, out, sizeof out - z.avail_out);
    deflateEnd(&z);
}

static char paths[4][256];

static void remove_files(void) {
    for (int k = 0; k < 4; k++)
        if (paths[k][0] != '\0') unlink(paths[k]);
}

const char *fuzz_file(int slot, const char *tag, const uint8_t *data, size_t size, int gzip) {
    static int registered;
    if (!registered) registered = atexit(remove_files) == 0;
    char *path = paths[slot & 3];
    snprintf(path, sizeof paths[0], "%s/polka-fuzz-%ld-%s", directory(), (long)getpid(), tag);
    if (gzip)
        write_gzip(path, data, size);
    else
        write_plain(path, data, size);
    return path;
}

size_t fuzz_u16(const uint8_t *data) {
    return (size_t)data[0] | (size_t)data[1] << 8;
}
