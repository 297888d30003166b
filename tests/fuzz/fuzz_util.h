/* What the harnesses share: the input as a file in memory (tmpfs) for the readers that take
 * a path, and zlib compression for the gzipped variants. */
#ifndef POLKA_FUZZ_UTIL_H
#define POLKA_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Writes size bytes to a file of this process named after tag (in /dev/shm when it exists,
 * else $TMPDIR or /tmp), gzip-compressed when gzip is 1; returns its path (a static buffer
 * per tag slot 0..3), or aborts when the file cannot be written. */
const char *fuzz_file(int slot, const char *tag, const uint8_t *data, size_t size, int gzip);

/* Reads a little-endian 16-bit number at data (2 bytes). */
size_t fuzz_u16(const uint8_t *data);

#endif
