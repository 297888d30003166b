/* Data files for the data reader tests, written into a temporary directory, and the
 * expectations on their errors (dataio_files.h). */
#include "dataio_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "test_util.h"

char tmp_dir[64];
static char path_buf[256][512]; /* the paths handed out by tmp_path */
static size_t path_next;

int make_tmp_dir(void **state) {
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/polka-dataio-XXXXXX");
    return mkdtemp(tmp_dir) == NULL ? -1 : 0;
}

int remove_tmp_dir(void **state) {
    (void)state;
    DIR *dir = opendir(tmp_dir);
    if (dir == NULL) return -1;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
        unlink(path);
    }
    closedir(dir);
    return rmdir(tmp_dir);
}

const char *tmp_path(const char *name) {
    assert_true(path_next < sizeof path_buf / sizeof *path_buf);
    char *path = path_buf[path_next++];
    snprintf(path, sizeof path_buf[0], "%s/%s", tmp_dir, name);
    return path;
}

const char *write_bytes(const char *name, const void *bytes, size_t len, int gz) {
    const char *path = tmp_path(name);
    if (gz) {
        gzFile file = gzopen(path, "wb");
        assert_non_null(file);
        if (len > 0) assert_int_equal(gzwrite(file, bytes, (unsigned)len), (int)len);
        assert_int_equal(gzclose(file), Z_OK);
    } else {
        FILE *file = fopen(path, "wb");
        assert_non_null(file);
        assert_int_equal(fwrite(bytes, 1, len, file), len);
        assert_int_equal(fclose(file), 0);
    }
    return path;
}

const char *write_text(const char *name, const char *text) {
    return write_bytes(name, text, strlen(text), 0);
}

int keep_every_third(void *context, uint64_t index) {
    size_t *calls = context;
    if (calls) (*calls)++;
    return index % 3 == 0;
}

int keep_none(void *context, uint64_t index) {
    (void)context;
    (void)index;
    return 0;
}

void expect_scan_error(const char *path, const polka_read_options *options, polka_status code,
                       const char *want) {
    polka_data_info info;
    polka_status status = polka_data_scan(path, options, &info);
    const char *message = polka_error_message();
    if (status != code || strstr(message, want) == NULL || strstr(message, path) == NULL)
        fail_msg("%s: status %d (want %d), message '%s' (want '%s')", path, (int)status, (int)code,
                 message, want);
    assert_null(info.min);
    assert_int_equal(info.n, 0);
}

void expect_read_error(const char *path, const polka_read_options *options,
                       const polka_data_info *train, const char *want) {
    polka_dataset data;
    uint64_t *index = (uint64_t *)&data; /* must be reset to NULL */
    polka_status status = polka_data_read(path, options, train, NULL, NULL, &data, &index);
    const char *message = polka_error_message();
    if (status != POLKA_ERR_FORMAT || strstr(message, want) == NULL ||
        strstr(message, path) == NULL)
        fail_msg("%s: status %d, message '%s' (want '%s')", path, (int)status, message, want);
    assert_null(index);
    assert_null(data.x);
}
