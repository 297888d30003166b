/* Data files for the data reader tests (test_dataio, test_dataio_limits): a temporary
 * directory, files written into it, keep functions, and the expected errors. */
#ifndef POLKA_TEST_DATAIO_FILES_H
#define POLKA_TEST_DATAIO_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "polka/dataio.h"

/* The temporary directory. */
extern char tmp_dir[64];

/* cmocka group setup and teardown: a fresh temporary directory, removed with its files. */
int make_tmp_dir(void **state);
int remove_tmp_dir(void **state);

/* The path of name in the temporary directory (valid until the group ends). */
const char *tmp_path(const char *name);

/* Writes len bytes to the temporary file name, gzip-compressed when gz; returns its path. */
const char *write_bytes(const char *name, const void *bytes, size_t len, int gz);
const char *write_text(const char *name, const char *text);

/* Keep functions: every third sample (counting calls in *context when not NULL), none. */
int keep_every_third(void *context, uint64_t index);
int keep_none(void *context, uint64_t index);

/* Scans path and expects failure with code and a message holding the file's name and want. */
void expect_scan_error(const char *path, const polka_read_options *options, polka_status code,
                       const char *want);

/* Reads path with train's info and expects a format error holding the file's name and want. */
void expect_read_error(const char *path, const polka_read_options *options,
                       const polka_data_info *train, const char *want);

#endif
