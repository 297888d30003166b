/*
 * The learners of the papers side by side, one pass, batch 1, on two data sets:
 * - multidist ([KWSR19] §5.2; experiments/configs/multidist_hinge.ini: 5 classes, 5000
 *   train / 2500 test, Gaussian σ = 0.6), multi-class hinge;
 * - the 4×4 checkerboard on [0,4)² (BSGD paper), 100 000 train / 10 000 test, binary.
 * For POLK (komp), NORMA, BSGD remove/project/merge, NBSGD remove/project and plain SGD:
 * test error %, model order (of the output model), training samples per second, and the
 * parameters used. Plain SGD keeps every point, so its cost per step grows with t: on the
 * checkerboard it trains on the first 20 000 samples only (marked *). One more BSGD-merge
 * row trains on the first 1 000 000 samples of the same stream, to show where the BSGD
 * paper's accuracy comes from (a long stream).
 *
 * Usage: learners_table [multidist|checkerboard]   (default: both)
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polka/checkerboard.h"
#include "polka/data.h"
#include "polka/learner.h"

#include "bench_util.h"

#define CHECKERBOARD_TRAIN 100000
#define SGD_SUBSET         20000   /* plain SGD keeps every point: O(t) per step */
#define LONG_STREAM        1000000 /* one extra BSGD-merge run on a 10× longer stream */

typedef struct {
    const char *name;
    polka_learner_params params;
    size_t limit; /* training samples used; 0 = all */
} entry;

static int fail(const char *what) {
    fprintf(stderr, "learners_table: %s: %s\n", what, polka_error_message());
    return 1;
}

/* The parameters that matter for this learner, in one line. */
static void describe(const polka_learner_params *pr, char *out, size_t size) {
    int used = snprintf(out, size, "%s sigma=%g %s", polka_loss_kind_name(pr->loss.kind),
                        pr->kernel.sigma, polka_schedule_kind_name(pr->schedule));
    if (pr->schedule != POLKA_SCHEDULE_PEGASOS)
        used += snprintf(out + used, size - used, " eta=%g", pr->eta);
    used += snprintf(out + used, size - used, " lambda=%g", pr->lambda);
    if (pr->loss.kind == POLKA_LOSS_SOFT_MARGIN)
        used += snprintf(out + used, size - used, " rho=%g", pr->loss.rho);
    switch (pr->control) {
    case POLKA_CONTROL_KOMP:
        snprintf(out + used, size - used, " kp=%g (eps=%.3g)", pr->kp, polka_learner_epsilon(pr));
        break;
    case POLKA_CONTROL_NORMA:
        snprintf(out + used, size - used, " tau=%zu", pr->tau);
        break;
    case POLKA_CONTROL_NONE:
        break;
    case POLKA_CONTROL_NBSGD_REMOVE:
    case POLKA_CONTROL_NBSGD_PROJECT:
        used += snprintf(out + used, size - used, " B=%zu beta=%g", pr->budget, pr->beta);
        if (pr->control == POLKA_CONTROL_NBSGD_PROJECT)
            snprintf(out + used, size - used, " k=%zu", pr->neighbours);
        break;
    default:
        used += snprintf(out + used, size - used, " B=%zu", pr->budget);
        if (pr->control == POLKA_CONTROL_BSGD_PROJECT)
            snprintf(out + used, size - used, " k=%s", pr->neighbours ? "some" : "all");
        break;
    }
}

static int run(const char *data_name, const entry *e, const polka_dataset *train,
               const polka_dataset *test) {
    polka_learner *learner = NULL;
    if (polka_learner_create(&e->params, train->p, train->classes, &learner) != POLKA_OK)
        return fail(e->name);
    size_t n = e->limit && e->limit < train->n ? e->limit : train->n;
    double start = bench_now();
    for (size_t i = 0; i < n; i++)
        if (polka_learner_step(learner, train->x + i * train->p, train->y + i, 1, NULL) !=
            POLKA_OK) {
            polka_learner_free(&learner);
            return fail(e->name);
        }
    double seconds = bench_now() - start, accuracy = 0.0;
    const polka_model *model = NULL;
    if (polka_learner_evaluate(learner, test->x, test->y, test->n, &accuracy, NULL) != POLKA_OK ||
        polka_learner_output_model(learner, &model) != POLKA_OK) {
        polka_learner_free(&learner);
        return fail(e->name);
    }
    char described[256];
    describe(&e->params, described, sizeof described);
    char trained[32];
    int subset = e->params.control == POLKA_CONTROL_NONE && n < train->n;
    snprintf(trained, sizeof trained, "%zu%s", n, subset ? "*" : "");
    printf("%-12s %-14s %8s %7.2f %7zu %10.0f  %s\n", data_name, e->name, trained,
           100.0 * (1.0 - accuracy), polka_model_order(model), (double)n / seconds, described);
    fflush(stdout);
    polka_learner_free(&learner);
    return 0;
}

static polka_learner_params base(double sigma, polka_loss_kind loss, polka_control_kind control) {
    polka_learner_params params;
    params = polka_learner_defaults();
    params.kernel.sigma = sigma;
    params.loss.kind = loss;
    params.control = control;
    return params;
}

/* BSGD as its users run it: Pegasos steps 1/(λt), budget B, the hinge loss. */
static polka_learner_params bsgd(double sigma, polka_loss_kind loss, polka_control_kind control,
                                 double lambda, size_t budget) {
    polka_learner_params params = base(sigma, loss, control);
    params.schedule = POLKA_SCHEDULE_PEGASOS;
    params.lambda = lambda;
    params.budget = budget;
    return params;
}

static polka_learner_params with_beta(polka_learner_params params, double beta, size_t k) {
    params.beta = beta;
    params.neighbours = k;
    return params;
}

static int table_multidist(void) {
    polka_multidist_params mp = {.classes = 5,
                                 .components = 3,
                                 .dim = 2,
                                 .mean_var = 1.0,
                                 .sample_var = 0.2,
                                 .seed = 1,
                                 .means_seed = 7};
    polka_multidist *gen = NULL;
    polka_dataset train = {0}, test = {0};
    if (polka_multidist_create(&mp, &gen) || polka_dataset_alloc(&train, 5000, 2, 5) ||
        polka_dataset_alloc(&test, 2500, 2, 5))
        return fail("multidist");
    polka_multidist_fill(gen, POLKA_STREAM_TRAIN, 0, &train);
    polka_multidist_fill(gen, POLKA_STREAM_TEST, 0, &test);
    const double sigma = 0.6;
    const polka_loss_kind hinge = POLKA_LOSS_MULTI_HINGE;
    entry entries[] = {
        {"POLK", base(sigma, hinge, POLKA_CONTROL_KOMP), 0},
        {"NORMA", base(sigma, hinge, POLKA_CONTROL_NORMA), 0},
        {"BSGD-remove", bsgd(sigma, hinge, POLKA_CONTROL_BSGD_REMOVE, 1e-3, 100), 0},
        {"BSGD-project", bsgd(sigma, hinge, POLKA_CONTROL_BSGD_PROJECT, 1e-3, 100), 0},
        {"BSGD-merge", bsgd(sigma, hinge, POLKA_CONTROL_BSGD_MERGE, 1e-3, 100), 0},
        {"NBSGD-remove",
         with_beta(bsgd(sigma, hinge, POLKA_CONTROL_NBSGD_REMOVE, 1e-3, 100), 3000, 0), 0},
        {"NBSGD-project",
         with_beta(bsgd(sigma, hinge, POLKA_CONTROL_NBSGD_PROJECT, 1e-3, 100), 3000, 4), 0},
        {"SGD", base(sigma, hinge, POLKA_CONTROL_NONE), 0},
    };
    entries[0].params.eta = 0.1; /* multidist_hinge.ini */
    entries[1].params.eta = 0.1;
    entries[1].params.lambda = 1e-2;
    entries[1].params.tau = 300;
    entries[7].params.eta = 0.1;
    int status = 0;
    for (size_t k = 0; k < sizeof entries / sizeof *entries && status == 0; k++)
        status = run("multidist", &entries[k], &train, &test);
    polka_dataset_free(&train);
    polka_dataset_free(&test);
    polka_multidist_free(&gen);
    return status;
}

static int table_checkerboard(void) {
    polka_checkerboard_params cp = {.board = 4, .side = 0, .seed = 1};
    polka_checkerboard *gen = NULL;
    polka_dataset train = {0}, test = {0};
    if (polka_checkerboard_create(&cp, &gen) || polka_dataset_alloc(&train, LONG_STREAM, 2, 2) ||
        polka_dataset_alloc(&test, 10000, 2, 2))
        return fail("checkerboard");
    polka_checkerboard_fill(gen, POLKA_STREAM_TRAIN, 0, &train);
    polka_checkerboard_fill(gen, POLKA_STREAM_TEST, 0, &test);
    const double sigma = 0.25, lambda = 1e-4; /* γ = 1/(2σ²) = 8 on the [0,4)² board */
    const polka_loss_kind hinge = POLKA_LOSS_HINGE;
    entry entries[] = {
        {"POLK", base(sigma, hinge, POLKA_CONTROL_KOMP), CHECKERBOARD_TRAIN},
        {"NORMA", base(sigma, POLKA_LOSS_SOFT_MARGIN, POLKA_CONTROL_NORMA), CHECKERBOARD_TRAIN},
        {"BSGD-remove", bsgd(sigma, hinge, POLKA_CONTROL_BSGD_REMOVE, lambda, 100),
         CHECKERBOARD_TRAIN},
        {"BSGD-project", bsgd(sigma, hinge, POLKA_CONTROL_BSGD_PROJECT, lambda, 100),
         CHECKERBOARD_TRAIN},
        {"BSGD-merge", bsgd(sigma, hinge, POLKA_CONTROL_BSGD_MERGE, lambda, 100),
         CHECKERBOARD_TRAIN},
        {"NBSGD-remove",
         with_beta(bsgd(sigma, hinge, POLKA_CONTROL_NBSGD_REMOVE, lambda, 100), 60000, 0),
         CHECKERBOARD_TRAIN},
        {"NBSGD-project",
         with_beta(bsgd(sigma, hinge, POLKA_CONTROL_NBSGD_PROJECT, lambda, 100), 60000, 4),
         CHECKERBOARD_TRAIN},
        {"SGD", base(sigma, hinge, POLKA_CONTROL_NONE), SGD_SUBSET},
        {"BSGD-merge", bsgd(sigma, hinge, POLKA_CONTROL_BSGD_MERGE, 1e-5, 100), LONG_STREAM},
    };
    entries[1].params.eta = 0.1; /* NORMA: ηλ = 1e-4, the newest 1000 margin errors */
    entries[1].params.lambda = 1e-3;
    entries[1].params.tau = 1000;
    int status = 0;
    for (size_t k = 0; k < sizeof entries / sizeof *entries && status == 0; k++)
        status = run("checkerboard", &entries[k], &train, &test);
    polka_dataset_free(&train);
    polka_dataset_free(&test);
    polka_checkerboard_free(&gen);
    return status;
}

int main(int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "both";
    /* one thread: the per-sample BLAS calls are tiny, threads only cost (as in main.c) */
#ifdef POLKA_HAVE_OPENBLAS
    if (getenv("OPENBLAS_NUM_THREADS") == NULL) openblas_set_num_threads(1);
#endif
    printf("%-12s %-14s %8s %7s %7s %10s  %s\n", "data", "learner", "trained", "err%", "order",
           "samples/s", "parameters (one pass, batch 1)");
    int status = 0;
    if (strcmp(which, "checkerboard") != 0) status = table_multidist();
    if (status == 0 && strcmp(which, "multidist") != 0) status = table_checkerboard();
    if (status == 0) printf("* trained on the first samples only (plain SGD keeps every point)\n");
    return status;
}
