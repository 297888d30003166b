/* Partial reads (polka/dataio.h, Partial reads): a scan records where each sample's line
 * starts; a read that keeps some samples then reads only their bytes, with pread(). */
#include "data/dataio_impl.h"
#include "polka/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most a partial read asks for at once (a longer line is read whole), and the gaps between
 * kept samples it reads through rather than seeking over (data sieving, as MPI-IO does: a
 * read per run of a few short lines would cost more than the bytes it saves). */
enum { SEEK_BLOCK_BYTES = 1 << 20, SEEK_GAP_BYTES = 1 << 16 };

static polka_status offsets_grow(dataio_stats *stats, uint64_t **array, size_t *capacity,
                                 size_t count) {
    if (count < *capacity) return POLKA_OK;
    size_t cap = *capacity ? 2 * *capacity : 1024;
    POLKA_CHECK((double)cap * sizeof **array <= (double)stats->memory_limit, POLKA_ERR_MEM,
                "the line offsets of %zu samples take %s, over the memory limit of %s%s", cap,
                dataio_size_text((double)cap * sizeof **array),
                dataio_size_text((double)stats->memory_limit),
                dataio_memory_origin(stats->memory_limit));
    POLKA_CALL(dataio_grow((void **)array, cap, sizeof **array));
    *capacity = cap;
    return POLKA_OK;
}

polka_status dataio_offsets_note(dataio_stats *stats, gzFile file, uint64_t offset, int is_sample,
                                 uint64_t index) {
    if (!stats->offsets) return POLKA_OK;
    if (!gzdirect(file)) { /* a gzipped file cannot be read in part: it is read whole */
        stats->offsets = 0;
        return POLKA_OK;
    }
    if (!is_sample) {
        POLKA_CALL(offsets_grow(stats, &stats->bare, &stats->bare_capacity, stats->bares));
        stats->bare[stats->bares++] = index;
        return POLKA_OK;
    }
    POLKA_CALL(offsets_grow(stats, &stats->offset, &stats->offset_capacity, (size_t)index));
    stats->offset[index] = offset;
    return POLKA_OK;
}

int dataio_pass_seeks(const dataio_pass *pass, const char *path) {
    const polka_data_info *info = pass->info;
    return pass->stats == NULL && pass->keep != NULL && info != NULL &&
           info->sample_offset != NULL && info->path != NULL && strcmp(info->path, path) == 0;
}

polka_status dataio_kept_flags(const dataio_pass *pass, size_t n, unsigned char **kept) {
    *kept = malloc(n ? n : 1);
    POLKA_CHECK(*kept, POLKA_ERR_MEM, "out of memory for the flags of %zu samples", n);
    for (size_t i = 0; i < n; i++) (*kept)[i] = pass->keep(pass->context, i) != 0;
    return POLKA_OK;
}

polka_status dataio_fd_open(const char *path, int *fd, uint64_t *size) {
    errno = 0;
    *fd = open(path, O_RDONLY);
    POLKA_CHECK(*fd >= 0, POLKA_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(*fd, &st) != 0) {
        int code = errno;
        close(*fd);
        *fd = -1;
        return polka_error_set(POLKA_ERR_IO, "cannot read '%s': %s", path, strerror(code));
    }
    *size = (uint64_t)st.st_size;
    return POLKA_OK;
}

polka_status dataio_pread(int fd, const char *path, void *buf, size_t bytes, uint64_t offset,
                          size_t *got) {
    *got = 0;
    while (*got < bytes) {
        ssize_t n = pread(fd, (char *)buf + *got, bytes - *got, (off_t)(offset + *got));
        if (n < 0 && errno == EINTR) continue;
        POLKA_CHECK(n >= 0, POLKA_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
        if (n == 0) break;
        *got += (size_t)n;
    }
    return POLKA_OK;
}

/* A window of the file in memory: bytes [start, start + len). */
typedef struct {
    int fd;
    uint64_t size; /* the file's */
    char *bytes;
    size_t capacity, len;
    uint64_t start;
} seek_window;

/* The line number of sample i: i + 1 + the lines without a sample before it. */
static size_t line_of_sample(const polka_data_info *info, uint64_t i) {
    size_t lo = 0, hi = info->bare_lines; /* the first bare line after sample i's place */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (info->bare_line[mid] <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (size_t)i + 1 + lo;
}

/* Where the run of kept samples from i on ends in the file, read through gaps of fewer than
 * SEEK_GAP_BYTES: the start of the first sample after it that is not kept, or the end of the
 * file. */
static uint64_t run_end(const polka_data_info *info, const unsigned char *kept, size_t i,
                        uint64_t size) {
    const uint64_t *offset = info->sample_offset;
    for (;;) {
        while (i < info->n && kept[i]) i++;
        if (i == info->n) return size;
        size_t next = i; /* the next kept sample */
        while (next < info->n && !kept[next]) next++;
        if (next == info->n || offset[next] - offset[i] >= SEEK_GAP_BYTES) return offset[i];
        i = next;
    }
}

/* Makes the window hold [begin, limit) and as much more of the run (to stop) as a block
 * takes. */
static polka_status window_fill(seek_window *w, const char *path, uint64_t begin, uint64_t limit,
                                uint64_t stop) {
    if (begin >= w->start && limit <= w->start + w->len) return POLKA_OK;
    uint64_t want = stop - begin < SEEK_BLOCK_BYTES ? stop - begin : SEEK_BLOCK_BYTES;
    if (want < limit - begin) want = limit - begin;
    if (w->capacity < want + 1) {
        char *grown = realloc(w->bytes, want + 1);
        POLKA_CHECK(grown, POLKA_ERR_MEM, "out of memory for a block of '%s'", path);
        w->bytes = grown;
        w->capacity = want + 1;
    }
    size_t got = 0;
    POLKA_CALL(dataio_pread(w->fd, path, w->bytes, (size_t)want, begin, &got));
    w->start = begin;
    w->len = got;
    POLKA_CHECK(begin + got >= limit, POLKA_ERR_FORMAT,
                "%s: truncated since it was scanned (read it again)", path);
    return POLKA_OK;
}

/* Sample i's line from the window into text->buf, as dataio_text_next leaves it. */
static polka_status window_line(const seek_window *w, dataio_text *text, uint64_t begin,
                                uint64_t limit, size_t *len) {
    const char *line = w->bytes + (begin - w->start);
    size_t max = (size_t)(limit - begin), have = 0;
    while (have < max && line[have] != '\n') have++;
    if (memchr(line, '\0', have))
        return dataio_line_error(text->path, text->line, "NUL byte (a binary file?)");
    while (text->capacity < have + 1) {
        char *grown = realloc(text->buf, 2 * text->capacity);
        POLKA_CHECK(grown, POLKA_ERR_MEM, "%s:%zu: out of memory for a line of %zu bytes",
                    text->path, text->line, have);
        text->buf = grown;
        text->capacity *= 2;
    }
    while (have > 0 && dataio_is_blank(line[have - 1])) have--;
    memcpy(text->buf, line, have);
    text->buf[have] = '\0';
    *len = have;
    return POLKA_OK;
}

/* The file must be the one scanned: same size and modification time. */
static polka_status check_unchanged(int fd, const polka_data_info *info) {
    struct stat st;
    POLKA_CHECK(fstat(fd, &st) == 0, POLKA_ERR_IO, "cannot read '%s': %s", info->path,
                strerror(errno));
    int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    POLKA_CHECK((uint64_t)st.st_size == info->file_size && mtime == info->file_mtime,
                POLKA_ERR_FORMAT, "%s: changed since it was scanned (read it again)", info->path);
    return POLKA_OK;
}

static polka_status seek_samples(seek_window *w, dataio_text *text, dataio_pass *pass,
                                 const unsigned char *kept, dataio_sample_start_fn start,
                                 dataio_sample_fn sample, void *reader) {
    const polka_data_info *info = pass->info;
    uint64_t stop = 0;
    for (size_t i = 0; i < info->n; i++) {
        if (!kept[i]) continue;
        uint64_t begin = info->sample_offset[i];
        uint64_t limit = i + 1 < info->n ? info->sample_offset[i + 1] : w->size;
        if (begin >= stop) stop = run_end(info, kept, i, w->size);
        POLKA_CALL(window_fill(w, text->path, begin, limit, stop));
        text->line = line_of_sample(info, i);
        size_t len = 0;
        POLKA_CALL(window_line(w, text, begin, limit, &len));
        POLKA_CALL(dataio_located(polka_stop_check("the data scan"), text->path, text->line));
        const char *at = start(text->buf, len);
        POLKA_CHECK(at != NULL, POLKA_ERR_FORMAT,
                    "%s:%zu: no sample where the scan found one (read it again)", text->path,
                    text->line);
        POLKA_CALL(sample(reader, at, pass, i));
    }
    pass->samples = info->n;
    return POLKA_OK;
}

polka_status dataio_text_seek_samples(dataio_text *text, dataio_pass *pass,
                                      dataio_sample_start_fn start, dataio_sample_fn sample,
                                      void *reader) {
    seek_window w = {.fd = -1};
    unsigned char *kept = NULL;
    polka_status status = dataio_fd_open(text->path, &w.fd, &w.size);
    if (status == POLKA_OK) status = check_unchanged(w.fd, pass->info);
    if (status == POLKA_OK) status = dataio_kept_flags(pass, pass->info->n, &kept);
    if (status == POLKA_OK) status = seek_samples(&w, text, pass, kept, start, sample, reader);
    if (w.fd >= 0) close(w.fd);
    free(w.bytes);
    free(kept);
    return status;
}
