/*
 * Where one POLK pass over Fashion-MNIST spends its time, stage by stage, beside the machine's
 * bound for each stage: its memory traffic at the measured copy bandwidth (STREAM-like copy)
 * and its flops at the measured dgemm rate, whichever is larger.
 *
 *   bench_fashion TRAIN TRAIN_LABELS TEST TEST_LABELS [n_train [sigma eta lambda kp batch]]
 *
 * Files are IDX (the Debian package dataset-fashion-mnist), scaled to [0, 1] by the training
 * min/max as `polka run` does; the samples are taken in file order, mini-batches of `batch`.
 * Times are CPU seconds of this single thread (the machine may be shared).
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polka/dataio.h"
#include "polka/learner.h"

enum { PREDICT, BORDER, REMOVE, FLUSH, REBUILD, OTHER, TEST, STAGES };
static const char *const stage_names[STAGES] = {
    "kernel eval (predict)", "KOMP bordering", "KOMP removals",  "KOMP flush of G",
    "KOMP rebuilds",         "decay/append",   "test evaluation"};

typedef struct {
    double seconds[STAGES], bytes[STAGES], flops[STAGES];
} profile;

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Copy bandwidth in bytes/s (read + write), best of 5 copies of 128 MB. */
static double measure_bandwidth(void) {
    size_t n = (size_t)16 << 20;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), best = 1e30;
    for (size_t k = 0; k < n; k++) a[k] = (double)k, b[k] = 0.0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = cpu_now();
        memcpy(b, a, n * sizeof *a);
        double t = cpu_now() - t0;
        if (t < best) best = t;
    }
    double rate = 2.0 * (double)n * sizeof *a / best + 0.0 * b[n - 1];
    free(a);
    free(b);
    return rate;
}

/* dgemm flop rate at a kernel-block shape (1024 rows × 2048 points × 784 pixels), best of 3. */
static double measure_dgemm(void) {
    int m = 1024, n = 2048, k = 784;
    double *a = calloc((size_t)m * k, sizeof *a), *b = calloc((size_t)n * k, sizeof *b);
    double *c = calloc((size_t)m * n, sizeof *c), best = 1e30;
    for (size_t i = 0; i < (size_t)m * k; i++) a[i] = 1e-3 * (double)(i % 255);
    for (size_t i = 0; i < (size_t)n * k; i++) b[i] = 1e-3 * (double)(i % 253);
    for (int rep = 0; rep < 3; rep++) {
        double t0 = cpu_now();
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, a, k, b, k, 0.0, c, n);
        double t = cpu_now() - t0;
        if (t < best) best = t;
    }
    free(a), free(b), free(c);
    return 2.0 * m * n * (double)k / best;
}

static int fail(const char *what) {
    fprintf(stderr, "bench_fashion: %s: %s\n", what, polka_error_message());
    return 1;
}

static polka_status load(char **argv, polka_dataset *train, polka_dataset *test) {
    polka_read_options train_opts = {.labels_path = argv[2]}, test_opts = {.labels_path = argv[4]};
    polka_data_info info = {0};
    POLKA_CALL(polka_data_scan(argv[1], &train_opts, &info));
    polka_status status = polka_data_read(argv[1], &train_opts, &info, NULL, NULL, train, NULL);
    if (status == POLKA_OK)
        status = polka_data_read(argv[3], &test_opts, &info, NULL, NULL, test, NULL);
    if (status == POLKA_OK) {
        polka_data_scale(train, &info, POLKA_SCALE_UNIT);
        polka_data_scale(test, &info, POLKA_SCALE_UNIT);
    }
    polka_data_info_free(&info);
    return status;
}

/* The traffic and flops of one step's KOMP stages at model order m (p pixels, B new points). */
static void account_komp(profile *prof, const polka_komp_stats *s, double m, double p,
                         double appended) {
    double row = 8.0 * m;
    /* bordering: G's lower half once per point (one dsymv each) and the pending terms; the
     * kernel rows against the dictionary are those the prediction computed */
    prof->bytes[BORDER] += appended * (0.5 * row * m + 64.0 * row);
    prof->flops[BORDER] += 2.0 * appended * m * m;
    /* a removal scans the weights and G's diagonal for the cheapest point, reads one row of
     * G and on average half of the 64 pending terms, writes its term, updates diagonal and
     * weights */
    prof->bytes[REMOVE] += (double)s->removed * row * (2.0 + 32.0 + 1.0 + 2.0 + 3.0 * 10.0);
    /* a flush gathers G (read + write) and adds the rank-64 product (read + write) */
    prof->bytes[FLUSH] += (double)s->flushes * 4.0 * row * m;
    prof->flops[FLUSH] += (double)s->flushes * 2.0 * 64.0 * m * m;
    prof->flops[REBUILD] += (double)s->rebuilds * (2.0 * m * m * p + m * m * m);
    prof->seconds[BORDER] += s->border_seconds;
    prof->seconds[REMOVE] += s->remove_seconds;
    prof->seconds[FLUSH] += s->flush_seconds;
    prof->seconds[REBUILD] += s->rebuild_seconds;
}

static void print_table(const profile *prof, double bandwidth, double rate) {
    printf("measured: copy bandwidth %.1f GB/s, dgemm %.1f GFlop/s (one thread)\n",
           bandwidth * 1e-9, rate * 1e-9);
    printf("%-22s %9s %11s %11s %9s %8s\n", "stage", "cpu s", "traffic GB", "GFlop", "bound s",
           "x bound");
    double total = 0.0;
    for (int s = 0; s < STAGES; s++) {
        double tb = prof->bytes[s] / bandwidth, tf = prof->flops[s] / rate;
        double bound = tb > tf ? tb : tf;
        total += prof->seconds[s];
        printf("%-22s %9.2f %11.2f %11.2f %9.2f %8.1f\n", stage_names[s], prof->seconds[s],
               prof->bytes[s] * 1e-9, prof->flops[s] * 1e-9, bound,
               bound > 0 ? prof->seconds[s] / bound : 0.0);
    }
    printf("%-22s %9.2f\n", "total", total);
}

static polka_status run(polka_learner *learner, const polka_dataset *train, size_t n_train,
                        size_t batch, profile *prof) {
    size_t p = train->p, c = polka_learner_outputs(learner);
    double *f = malloc(batch * c * sizeof *f), *g = malloc(batch * c * sizeof *g);
    POLKA_CHECK(f && g, POLKA_ERR_MEM, "out of memory");
    for (size_t start = 0; start + batch <= n_train; start += batch) {
        const double *x = train->x + start * p, *y = train->y + start;
        double m = (double)polka_model_order(polka_learner_model(learner));
        double t0 = cpu_now();
        POLKA_CALL(polka_learner_predict(learner, x, batch, f));
        double t1 = cpu_now();
        polka_learner_loss_grad(learner, f, y, batch, g);
        double appended = 0.0;
        for (size_t r = 0; r < batch; r++) {
            int nonzero = 0;
            for (size_t k = 0; k < c; k++) nonzero |= g[r * c + k] != 0.0;
            appended += nonzero;
        }
        POLKA_CALL(polka_learner_update_batch(learner, x, batch, g, (double)batch));
        double t2 = cpu_now();
        polka_komp_stats s = polka_learner_last_stats(learner);
        prof->seconds[PREDICT] += t1 - t0;
        prof->bytes[PREDICT] += m > 0 ? 8.0 * m * (double)p : 0.0;
        prof->flops[PREDICT] += 2.0 * (double)batch * m * (double)p;
        account_komp(prof, &s, m, (double)p, appended);
        prof->seconds[OTHER] +=
            (t2 - t1) - s.border_seconds - s.remove_seconds - s.flush_seconds - s.rebuild_seconds;
        prof->bytes[OTHER] += 8.0 * m * (double)c;
    }
    free(f);
    free(g);
    return POLKA_OK;
}

int main(int argc, char **argv) {
    polka_komp_time_stages(1);
    if (argc < 5) {
        fprintf(stderr, "usage: bench_fashion TRAIN TRAIN_LABELS TEST TEST_LABELS "
                        "[n_train [sigma eta lambda kp batch]]\n");
        return 2;
    }
    openblas_set_num_threads(1);
    polka_dataset train = {0}, test = {0};
    if (load(argv, &train, &test)) return fail("reading the data");
    size_t n_train = argc > 5 ? strtoul(argv[5], NULL, 10) : train.n;
    if (n_train > train.n) n_train = train.n;
    polka_learner_params params;
    params = polka_learner_defaults();
    params.kernel.sigma = argc > 6 ? atof(argv[6]) : 5.0;
    params.eta = argc > 7 ? atof(argv[7]) : 0.5;
    params.lambda = argc > 8 ? atof(argv[8]) : 1e-5;
    params.kp = argc > 9 ? atof(argv[9]) : 0.73;
    size_t batch = argc > 10 ? strtoul(argv[10], NULL, 10) : 2;
    polka_learner *learner = NULL;
    if (polka_learner_create(&params, train.p, train.classes, &learner)) return fail("learner");
    printf("Fashion-MNIST, %zu training images, sigma %g eta %g lambda %g K_p %g batch %zu\n",
           n_train, params.kernel.sigma, params.eta, params.lambda, params.kp, batch);
    profile prof = {0};
    if (run(learner, &train, n_train, batch, &prof)) return fail("training");
    double m = (double)polka_model_order(polka_learner_model(learner)), acc = 0.0, loss = 0.0;
    double t0 = cpu_now();
    if (polka_learner_evaluate(learner, test.x, test.y, test.n, &acc, &loss)) return fail("test");
    prof.seconds[TEST] = cpu_now() - t0;
    prof.flops[TEST] = 2.0 * (double)test.n * m * (double)test.p;
    prof.bytes[TEST] = 8.0 * m * (double)test.p;
    printf("test accuracy %.4f, model order %.0f\n", acc, m);
    print_table(&prof, measure_bandwidth(), measure_dgemm());
    polka_learner_free(&learner);
    polka_dataset_free(&train);
    polka_dataset_free(&test);
    return 0;
}
