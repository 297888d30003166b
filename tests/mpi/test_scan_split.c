/*
 * A training file's scan split among the ranks (polka_sim_scan_split) against one process's
 * scan (polka_data_scan): the same info, bit for bit, on any number of ranks, for LIBSVM (with
 * comment and blank lines, and a line longer than several chunks), CSV (a header, blank lines)
 * and IDX files, at chunks of 1 KiB, of 3000 bytes and of the default 16 MiB (one chunk). A
 * gzipped twin (scanned whole) has the plain file's statistics. A malformed line gives every
 * rank the serial scan's message (its global line number). argv[1]: a directory rank 0 writes.
 * Exit 0 when every check held.
 */
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "polka/dataio.h"
#include "polka/net.h"
#include "polka/rng.h"
#include "rounding.h"
#include "sim/driver/sim_impl.h"

static int failures;

static void check(int ok, const char *what, const char *file, unsigned long long chunk) {
    if (!ok) {
        failures++;
        printf("FAIL: %s (%s, chunk %llu)\n", what, file, chunk);
    }
}

static int same_bytes(const void *a, const void *b, size_t bytes) {
    return bytes == 0 || (a && b && memcmp(a, b, bytes) == 0);
}

/* Every field of two infos, bit for bit; `stats_only`: the statistics and labels alone. */
static int same_info(const polka_data_info *a, const polka_data_info *b, int stats_only) {
    size_t e = a->features;
    int same = a->n == b->n && a->p == b->p && a->classes == b->classes &&
               a->features == b->features && a->values == b->values && a->columns == b->columns &&
               same_bytes(a->labels, b->labels, a->classes * 8) &&
               same_bytes(a->min, b->min, e * 8) && same_bytes(a->max, b->max, e * 8) &&
               same_bytes(a->mean, b->mean, e * 8) && same_bytes(a->stddev, b->stddev, e * 8) &&
               (a->feature == NULL) == (b->feature == NULL) &&
               (a->feature == NULL || same_bytes(a->feature, b->feature, e * 4));
    for (size_t k = 0; same && k < a->columns; k++)
        same = strcmp(a->column_names[k], b->column_names[k]) == 0;
    if (stats_only || !same) return same;
    return a->row_class_bytes == b->row_class_bytes &&
           same_bytes(a->row_class, b->row_class, a->n * a->row_class_bytes) &&
           (a->sample_offset == NULL) == (b->sample_offset == NULL) &&
           same_bytes(a->sample_offset, b->sample_offset, a->sample_offset ? a->n * 8 : 0) &&
           a->bare_lines == b->bare_lines &&
           same_bytes(a->bare_line, b->bare_line, a->bare_lines * 8) &&
           a->file_size == b->file_size;
}

/* The statistics of two scans of the same file agree to rounding (chunks fold in another
 * order than one running sum). Each scan sums x − shift (shift a value of the feature, so
 * |x − shift| ≤ R = max − min) and its square over chunks, then folds them (Chan's update:
 * b·δ and δ·(2·s1 + b·δ), |δ| ≤ R): every term passes through at most n + 5 roundings, the
 * terms' absolute sums are ≤ 2nR and ≤ 4nR² [Higham02, §4.2]. So the mean (shift + s1/n) is
 * within 2γ_{n+5}·R + u·(R + |mean|) and var = (s2 − s1²/n)/n within 4γ_{n+5}·R² (s2) +
 * 4γ_{n+5}·R² (2|s1|·Δs1/n²) + γ_2·R² + 2u·var ≤ 9γ_{n+5}·R² + 2u·var of the exact ones, on
 * either scan; σ's difference is var's over σ_a + σ_b (at most its √), and sqrt's u·σ each. */
static int close_stats(const polka_data_info *a, const polka_data_info *b) {
    if (a->features != b->features || a->n != b->n) return 0;
    double u = TEST_UNIT, g = test_gamma((double)a->n + 5);
    for (size_t e = 0; e < a->features; e++) {
        double range = a->max[e] - a->min[e], var = a->stddev[e] * a->stddev[e];
        double mean_tol = 2 * (2 * g * range + u * (range + fabs(a->mean[e])));
        double var_tol = 2 * (9 * g * range * range + 2 * u * var);
        double sum = a->stddev[e] + b->stddev[e];
        double sigma_tol = (sum > 0 ? fmin(var_tol / sum, sqrt(var_tol)) : 0) + u * sum;
        if (fabs(a->mean[e] - b->mean[e]) > mean_tol ||
            fabs(a->stddev[e] - b->stddev[e]) > sigma_tol || a->min[e] != b->min[e] ||
            a->max[e] != b->max[e])
            return 0;
    }
    return 1;
}

static char *path_in(const char *dir, const char *name) {
    char *path = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    return path;
}

/* LIBSVM: labels 1..3, sparse values around 1000 (the shift matters), comment and blank lines,
 * and at line 1500 a sample of 3000 features (longer than several 1 KiB chunks). `bad`: line
 * 2500 holds "3:x". */
static void write_libsvm(const char *path, int bad, int gzip) {
    gzFile f = gzopen(path, gzip ? "wb" : "wbT");
    polka_rng rng = polka_rng_start(5, 1, 0);
    for (int line = 1; line <= 3000; line++) {
        if (line % 97 == 0) {
            gzprintf(f, line % 2 ? "# a comment\n" : "\n");
            continue;
        }
        gzprintf(f, "%d", 1 + (int)(3 * polka_rng_uniform(&rng)));
        int features = line == 1500 ? 3000 : 40;
        for (int j = 1; j <= features; j++)
            if (line == 1500 || polka_rng_uniform(&rng) < 0.3)
                gzprintf(f, " %d:%.17g", j, 1000.0 + polka_rng_normal(&rng));
        if (bad && line == 2500) gzprintf(f, " 3001:x");
        gzprintf(f, "\n");
    }
    gzclose(f);
}

/* CSV: a header after two blank lines, blank lines among the samples; `bad`: line 1200 has a
 * field too few. */
static void write_csv(const char *path, int bad) {
    FILE *f = fopen(path, "w");
    polka_rng rng = polka_rng_start(6, 1, 0);
    fprintf(f, "\n\na,b,label,c,d,e\n");
    for (int line = 4; line < 2200; line++) {
        if (line % 113 == 0) {
            fprintf(f, "\n");
            continue;
        }
        double v[5];
        for (int j = 0; j < 5; j++) v[j] = j * 100.0 + polka_rng_normal(&rng);
        fprintf(f, "%.17g,%.17g,%d,%.17g,%.17g", v[0], v[1], (int)(4 * polka_rng_uniform(&rng)),
                v[2], v[3]);
        fprintf(f, bad && line == 1200 ? "\n" : ",%.17g\n", v[4]);
    }
    fclose(f);
}

static void put_be32(FILE *f, unsigned v) {
    unsigned char b[4] = {v >> 24, v >> 16, v >> 8, v};
    fwrite(b, 1, 4, f);
}

/* IDX: 700 records of 5×7 bytes (a record never starts at a chunk's first byte alone). */
static void write_idx(const char *images, const char *labels) {
    FILE *f = fopen(images, "wb"), *g = fopen(labels, "wb");
    put_be32(f, 0x00000803), put_be32(f, 700), put_be32(f, 5), put_be32(f, 7);
    put_be32(g, 0x00000801), put_be32(g, 700);
    polka_rng rng = polka_rng_start(7, 1, 0);
    for (int i = 0; i < 700; i++) {
        for (int j = 0; j < 35; j++) fputc((int)(256 * polka_rng_uniform(&rng)), f);
        fputc(i % 10, g);
    }
    fclose(f);
    fclose(g);
}

/* The split scan of path against the serial one at each chunk size. */
static void compare_scans(const char *path, polka_read_options options, const char *name) {
    static const uint64_t chunks[] = {1024, 3000, 0};
    polka_data_info whole = {0};
    MPI_Comm comm = MPI_COMM_WORLD;
    for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
        options.scan_chunk = chunks[k];
        polka_data_info serial, split;
        polka_status a = polka_data_scan(path, &options, &serial);
        polka_status b = polka_sim_scan_split(&comm, path, &options, &split);
        check(a == POLKA_OK && b == POLKA_OK, polka_error_message(), name, chunks[k]);
        if (a != POLKA_OK || b != POLKA_OK) return;
        check(same_info(&serial, &split, 0), "the split scan's info differs from one process's",
              name, chunks[k]);
        if (chunks[k] == 0) check(close_stats(&whole, &serial), "chunked statistics", name, 0);
        if (k == 0)
            whole = serial;
        else
            polka_data_info_free(&serial);
        polka_data_info_free(&split);
    }
    polka_data_info_free(&whole);
}

/* The gzipped twin: scanned whole, with the plain file's statistics at the same chunks. */
static void compare_gzip(const char *plain, const char *gz) {
    polka_read_options options = {.row_classes = 1, .scan_chunk = 1024};
    polka_data_info a, b;
    MPI_Comm comm = MPI_COMM_WORLD;
    check(polka_data_scan(plain, &options, &a) == POLKA_OK, polka_error_message(), gz, 1024);
    check(polka_sim_scan_split(&comm, gz, &options, &b) == POLKA_OK, polka_error_message(), gz,
          1024);
    check(same_info(&a, &b, 1), "a gzipped twin's statistics differ", gz, 1024);
    polka_data_info_free(&a);
    polka_data_info_free(&b);
}

/* A malformed line: the split scan fails on every rank with the serial scan's message, which
 * names `line`. */
static void compare_error(const char *path, const char *line) {
    polka_read_options options = {.scan_chunk = 1024, .sample_offsets = 1};
    polka_data_info info;
    MPI_Comm comm = MPI_COMM_WORLD;
    polka_status a = polka_data_scan(path, &options, &info);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s", polka_error_message());
    polka_status b = polka_sim_scan_split(&comm, path, &options, &info);
    check(a == POLKA_ERR_FORMAT && strstr(expected, line) != NULL, expected, path, 1024);
    check(b == a && strcmp(polka_error_message(), expected) == 0, polka_error_message(), path,
          1024);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    polka_net_errors_return(MPI_COMM_WORLD);
    const char *dir = argc > 1 ? argv[1] : ".";
    char *svm = path_in(dir, "train.svm"), *gz = path_in(dir, "train.svm.gz");
    char *bad = path_in(dir, "bad.svm"), *csv = path_in(dir, "train.csv");
    char *bad_csv = path_in(dir, "bad.csv");
    char *images = path_in(dir, "train-images-idx3-ubyte"), *labels = path_in(dir, "labels-idx1");
    if (rank == 0) {
        write_libsvm(svm, 0, 0);
        write_libsvm(gz, 0, 1);
        write_libsvm(bad, 1, 0);
        write_csv(csv, 0);
        write_csv(bad_csv, 1);
        write_idx(images, labels);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    polka_read_options text = {.row_classes = 1, .sample_offsets = 1};
    compare_scans(svm, text, "train.svm");
    compare_scans(csv, text, "train.csv");
    text.regression = 1;
    compare_scans(csv, text, "train.csv (regression)");
    polka_read_options idx = {.labels_path = labels, .row_classes = 1};
    compare_scans(images, idx, "IDX");
    compare_gzip(svm, gz);
    compare_error(bad, ":2500: ");
    compare_error(bad_csv, ":1200: 5 fields, but the header (line 3) has 6 columns");
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: split scans on %d rank%s\n", all ? "FAIL" : "PASS", size, size == 1 ? "" : "s");
    free(svm), free(gz), free(bad), free(csv), free(bad_csv), free(images), free(labels);
    MPI_Finalize();
    return all ? 1 : 0;
}
