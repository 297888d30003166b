/*
 * The MPI run against the serial network reference: for several configurations, every
 * rank's final model must equal the reference's model of that agent bit for bit (the largest
 * relative weight difference is printed too, 0 when they agree).
 * Run with mpiexec -n K (K = 1, 2, 4). Exit 0 when every case matches on every rank.
 * With the argument "partition", every case places its agents with net.placement = partition
 * (METIS parts, not blocks of ids) and runs with 16 and 17 agents.
 */
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "polka/data.h"

#include "polka/config.h"
#include "polka/model.h"
#include "polka/sim.h"
#include "rounding.h"

static int compare(const polka_model *mpi, const polka_model *ref, double *worst) {
    size_t m = polka_model_order(mpi);
    if (m != polka_model_order(ref)) return 0;
    size_t p = polka_model_dim(mpi), c = polka_model_outputs(mpi);
    const double *dm = polka_model_dictionary(mpi), *dr = polka_model_dictionary(ref);
    if (m > 0 && memcmp(dm, dr, m * p * sizeof *dm) != 0) return 0;
    const double *wm = polka_model_weights(mpi), *wr = polka_model_weights(ref);
    double scale = 0.0;
    for (size_t k = 0; k < m * c; k++) scale = fmax(scale, fabs(wr[k]));
    for (size_t k = 0; k < m * c; k++)
        *worst = fmax(*worst, fabs(wm[k] - wr[k]) / (scale > 0 ? scale : 1));
    /* the same arithmetic in the same order: the weights are equal bit for bit */
    return m == 0 || memcmp(wm, wr, m * c * sizeof *wm) == 0;
}

#define MAX_AGENTS  17
#define TEST_POINTS 200 /* data.n_test, and the test file's samples */

/* A bound on |f_c(x)| at any x, the largest over the outputs c: Σ_m |w_mc|·|k(d_m, x)| with
 * k ≤ 1 for the radial kernels; the random-feature methods' model is θ as a linear model on
 * z(x), |z_j| ≤ √(2/D) (rff.c), so |d_m·z| ≤ ‖d_m‖₁·√(2/D). NaN for the others (no case uses
 * them: one that did would fail until given its bound). */
static double value_bound(const polka_model *model) {
    size_t m = polka_model_order(model), p = polka_model_dim(model);
    size_t c = polka_model_outputs(model);
    polka_kernel_kind kind = polka_model_kernel(model)->kind;
    if (kind == POLKA_KERNEL_POLYNOMIAL) return NAN;
    const double *d = polka_model_dictionary(model), *w = polka_model_weights(model);
    double most = 0.0;
    for (size_t o = 0; o < c; o++) {
        double sum = 0.0;
        for (size_t k = 0; k < m; k++) {
            double size = 1.0;
            if (kind == POLKA_KERNEL_LINEAR) {
                size = 0.0;
                for (size_t j = 0; j < p; j++) size += fabs(d[k * p + j]);
                size *= sqrt(2.0 / (double)p);
            }
            sum += fabs(w[k * c + o]) * size;
        }
        most = fmax(most, sum);
    }
    return most;
}

/*
 * How far the MPI run's disagreement may be from the reference's. The models and so every
 * f_a are the same bits (compare), but f̄ is summed in another order (each rank's agents, then
 * MPI_Allreduce, against agent order): each f̄ within γ_n·B̄ of the exact one (B̄ the mean of
 * the agents' value_bound), so Δ = 2γ_n·B̄ apart [Higham02, §4.2]. Over the P·C values (f_a −
 * f̄)² of agent a, Cauchy–Schwarz moves D_a = Σ(f_a − f̄)²/P by ≤ 2√(C·D_a)·Δ + C·Δ², and
 * the mean over agents of √D_a is ≤ √D̄; each D_a is computed to γ_{PC+2} and D̄ to γ_{n+1},
 * on either side.
 */
static double disagreement_tol(polka_model **ref, size_t n, double disagreement) {
    double mean_bound = 0.0;
    for (size_t a = 0; a < n; a++) mean_bound += value_bound(ref[a]) / (double)n;
    double c = (double)polka_model_outputs(ref[0]), delta = 2 * test_gamma((double)n) * mean_bound;
    return 2 * sqrt(c * disagreement) * delta + c * delta * delta +
           2 * (test_gamma(TEST_POINTS * c + 2) + test_gamma((double)n + 1)) * disagreement;
}

static const char *placement = "block"; /* net.placement of every case (argv[1]) */

/* The settings of a case for `agents` agents (net.agents). */
static int configure(polka_config *config, const char *name, const char *const *settings,
                     size_t agents) {
    polka_config_defaults(config);
    polka_config_set(config, "data.n_train", "800");
    char text[32];
    snprintf(text, sizeof text, "%d", TEST_POINTS);
    polka_config_set(config, "data.n_test", text);
    polka_config_set(config, "run.log_every", "400");
    polka_config_set(config, "learner.eta", "0.2");
    polka_config_set(config, "net.graph", agents == 1 ? "ring" : (agents == 2 ? "line" : "er"));
    polka_config_set(config, "net.p", agents > 8 ? "0.3" : "0.6");
    snprintf(text, sizeof text, "%zu", agents);
    polka_config_set(config, "net.agents", text);
    polka_config_set(config, "net.placement", placement);
    for (; *settings; settings++)
        if (polka_config_override(config, *settings) != POLKA_OK) {
            fprintf(stderr, "%s: %s\n", name, polka_error_message());
            return 0;
        }
    return 1;
}

/* This rank's agents' models (those it returned, wherever the placement put them) equal the
 * reference's, bit for bit, and the ranks returned each agent's model exactly once. */
static int compare_mine(polka_model **mine, polka_model **ref, size_t agents, double *worst) {
    int ok = 1, held[MAX_AGENTS] = {0}, all[MAX_AGENTS] = {0};
    if (agents > MAX_AGENTS) return 0; /* on every rank alike */
    for (size_t a = 0; a < agents; a++) {
        held[a] = mine[a] != NULL;
        if (mine[a]) ok = ok && compare(mine[a], ref[a], worst);
    }
    MPI_Allreduce(held, all, (int)agents, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (size_t a = 0; a < agents; a++) ok = ok && all[a] == 1;
    return ok;
}

/* Runs the case on every rank with `agents` agents (0: one per rank) against the reference. */
static int run_case(const char *name, const char *const *settings, size_t agents, int size,
                    int rank) {
    size_t n = agents ? agents : (size_t)size;
    polka_config config;
    static polka_plan plan;
    if (!configure(&config, name, settings, n)) return 0;
    if (polka_plan_build(&config, &plan) != POLKA_OK) {
        fprintf(stderr, "%s: %s\n", name, polka_error_message());
        return 0;
    }
    polka_sim_summary summary, ref_summary;
    polka_model *mine[MAX_AGENTS] = {0}, *ref[MAX_AGENTS] = {0};
    int ok = n <= MAX_AGENTS &&
             polka_sim_run_decentralized(&plan, MPI_COMM_WORLD, NULL, &summary, mine) == POLKA_OK;
    if (!ok)
        fprintf(stderr, "rank %d, %s: MPI run failed: %s\n", rank, name, polka_error_message());
    ok = ok && polka_sim_run_reference(&plan, n, NULL, &ref_summary, ref) == POLKA_OK;
    double worst = 0.0;
    int same = compare_mine(mine, ref, n, &worst); /* collective: every rank calls it */
    ok = ok && same;
    /* the same scores in the same order: equal; the disagreement's f̄ is not (disagreement_tol) */
    double tol =
        ok ? disagreement_tol(ref, n, fmax(summary.disagreement, ref_summary.disagreement)) : 0.0;
    ok = ok && summary.mean_score == ref_summary.mean_score &&
         fabs(summary.disagreement - ref_summary.disagreement) <= tol &&
         summary.bytes_per_round == ref_summary.bytes_per_round;
    if (!ok)
        fprintf(stderr,
                "rank %d, %s: score %.17g vs %.17g, disagreement %.17g vs %.17g (within %.3g), "
                "bytes %g vs %g, rounds %zu vs %zu, samples %g vs %g\n",
                rank, name, summary.mean_score, ref_summary.mean_score, summary.disagreement,
                ref_summary.disagreement, tol, summary.bytes_per_round, ref_summary.bytes_per_round,
                summary.rounds, ref_summary.rounds, summary.samples, ref_summary.samples);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-40s ranks %d  agents %2zu  cut %2zu  order %3zu  worst rel. weight diff %.2e  "
               "mean acc %.4f  %s\n",
               name, size, n, summary.edges_cut, ref[0] ? polka_model_order(ref[0]) : 0, worst,
               summary.mean_score, all ? "ok" : "MISMATCH");
    for (size_t a = 0; a < MAX_AGENTS; a++) {
        polka_model_free(&mine[a]);
        polka_model_free(&ref[a]);
    }
    return all;
}

/* Rank 0 writes a multidist sample as LIBSVM train/test files for the file-source cases. */
static int write_files(int rank, char *train, char *test, size_t size) {
    /* test has room for train's name and ".t" (the caller's test buffer is larger) */
    snprintf(train, size, "/tmp/polka_mpi_ref_%d.svm", (int)getpid());
    MPI_Bcast(train, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD); /* rank 0's name everywhere */
    snprintf(test, size + 8, "%s.t", train);
    int ok = 1;
    if (rank == 0) {
        polka_config config;
        polka_config_defaults(&config);
        static polka_plan plan;
        ok = polka_plan_build(&config, &plan) == POLKA_OK;
        polka_multidist_params params = polka_stream_multidist_params(&plan);
        polka_multidist *gen = NULL;
        polka_dataset train_set = {0}, test_set = {0};
        ok = ok && polka_multidist_create(&params, &gen) == POLKA_OK &&
             polka_dataset_alloc(&train_set, 900, 2, 5) == POLKA_OK &&
             polka_dataset_alloc(&test_set, TEST_POINTS, 2, 5) == POLKA_OK;
        if (ok) {
            polka_multidist_fill(gen, POLKA_STREAM_TRAIN, 0, &train_set);
            polka_multidist_fill(gen, POLKA_STREAM_TEST, 0, &test_set);
            ok = polka_dataset_write_libsvm(&train_set, train) == POLKA_OK &&
                 polka_dataset_write_libsvm(&test_set, test) == POLKA_OK;
        }
        polka_dataset_free(&train_set);
        polka_dataset_free(&test_set);
        polka_multidist_free(&gen);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) placement = argv[1];
    char train[256], test[264], train_set[300], test_set[300];
    if (!write_files(rank, train, test, sizeof train)) {
        fprintf(stderr, "could not write the LIBSVM files\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    snprintf(train_set, sizeof train_set, "data.train=%s", train);
    snprintf(test_set, sizeof test_set, "data.test=%s", test);
    const char *const file_iid[] = {"data.source=file", train_set, test_set, "learner.batch=2",
                                    NULL};
    const char *const file_skewed[] = {
        "data.source=file",      train_set,          test_set, "data.split=skewed",
        "net.penalty=symmetric", "data.unit_norm=1", NULL};
    static const char *const paper[] = {NULL};
    static const char *const batch[] = {"learner.batch=3", "net.c=2", "learner.loss=multi-logistic",
                                        NULL};
    static const char *const skewed[] = {"data.split=skewed", "net.weights=uniform",
                                         "learner.eta=0.1", NULL};
    static const char *const mixtures[] = {"data.split=mixtures", "learner.batch=2",
                                           "run.log_test=50", NULL};
    static const char *const symmetric[] = {"net.penalty=symmetric", "data.split=skewed", NULL};
    static const char *const symmetric_batch[] = {"net.penalty=symmetric", "learner.batch=2",
                                                  "net.c=0.5", NULL};
    static const char *const regions[] = {"data.source=sinc",    "data.split=regions",
                                          "learner.loss=square", "net.penalty=symmetric",
                                          "learner.sigma=1",     NULL};
    static const char *const dirichlet[] = {"data.split=dirichlet", "data.alpha=0.1", NULL};
    static const char *const shards[] = {"data.split=shards", "data.shards=2",
                                         "net.penalty=symmetric", "learner.batch=2", NULL};
    static const char *const quantity[] = {"data.quantity_sigma=1.5", "net.penalty=symmetric",
                                           NULL};
    static const char *const drift[] = {"data.drift=0.002", "data.split=dirichlet",
                                        "data.quantity_sigma=0.5", "data.unit_norm=1", NULL};
    /* net.share = samples: the labels travel with the points (NaN when not learned from) */
    static const char *const shared[] = {"net.share=samples", "learner.batch=2", NULL};
    static const char *const shared_skew[] = {"net.share=samples", "net.penalty=symmetric",
                                              "data.quantity_sigma=1.5", "fault.link_loss=0.2",
                                              NULL};
    static const char *const shared_late[] = {"net.share=samples", "fault.delay=2", "net.gossip=1",
                                              NULL};
    /* the network's faults (fault.c): every message drawn alike on every rank */
    static const char *const link_loss[] = {"fault.link_loss=0.3", "net.penalty=symmetric", NULL};
    static const char *const offline[] = {"fault.offline=0.2", "fault.leave=0", "fault.leave_at=20",
                                          "fault.return_at=90", NULL};
    static const char *const delay[] = {"fault.delay=3", "learner.batch=2", NULL};
    static const char *const delay_loss[] = {"fault.delay=4", "fault.link_loss=0.2",
                                             "net.penalty=symmetric", "fault.renormalise=1", NULL};
    static const char *const resample[] = {"net.resample_every=7", "fault.delay=2", NULL};
    static const char *const gossip[] = {"net.gossip=1", "net.penalty=symmetric", NULL};
    static const char *const everything[] = {"fault.link_loss=0.5",   "fault.offline=0.1",
                                             "fault.delay=2",         "net.resample_every=5",
                                             "net.gossip=1",          "fault.renormalise=1",
                                             "net.penalty=symmetric", NULL};
    /* the random-feature methods (one phase, D·C doubles per message, no sample travels) */
    static const char *const diffusion[] = {"net.method=rf-diffusion", "net.features=32",
                                            "fault.link_loss=0.2", "data.split=dirichlet", NULL};
    static const char *const dkla[] = {"net.method=dkla",   "net.features=32",
                                       "fault.offline=0.1", "net.resample_every=9",
                                       "learner.batch=2",   NULL};
    static const char *const dkla_exact[] = {"net.method=dkla",
                                             "net.features=16",
                                             "net.rf_solve=exact",
                                             "learner.loss=square",
                                             "data.source=sinc",
                                             "net.gossip=1",
                                             NULL};
    static const char *const coke[] = {"net.method=coke", "net.features=32",
                                       "net.censor_alpha=0.05", "fault.link_loss=0.1", NULL};
    /* codecs on what travels (net.codec_*): both ends learn from the decoded numbers */
    static const char *const half_int8[] = {"net.codec_points=float16", "net.codec_values=int8",
                                            "net.penalty=symmetric", "fault.link_loss=0.2", NULL};
    static const char *const int8_shared[] = {"net.codec_points=int8", "net.codec_values=float32",
                                              "net.share=samples", "fault.delay=2", NULL};
    /* uint8 points on [-2, 2]: multidist's points leave it now and then (clamped) */
    static const char *const uint8_gossip[] = {"net.codec_points=uint8", "net.codec_low=-2",
                                               "net.codec_high=2",       "net.codec_values=float16",
                                               "net.gossip=1",           "net.resample_every=7",
                                               "learner.batch=2",        NULL};
    static const char *const diffusion_half[] = {"net.method=rf-diffusion", "net.features=32",
                                                 "net.codec_vectors=float16", "fault.link_loss=0.2",
                                                 NULL};
    static const char *const dkla_int8[] = {"net.method=dkla", "net.features=32",
                                            "net.codec_vectors=int8", "fault.offline=0.1", NULL};
    static const char *const dkla_topk[] = {"net.method=dkla", "net.features=32",
                                            "net.codec_vectors=top-k", "net.codec_k=0.1", NULL};
    static const char *const dkla_topk_int8[] = {"net.method=dkla",
                                                 "net.features=32",
                                                 "net.codec_vectors=top-k",
                                                 "net.codec_k=0.2",
                                                 "net.codec_kept=int8",
                                                 "fault.link_loss=0.1",
                                                 NULL};
    static const char *const diffusion_randk[] = {"net.method=rf-diffusion",
                                                  "net.features=32",
                                                  "net.codec_vectors=random-k",
                                                  "net.codec_k=0.2",
                                                  "net.codec_kept=float16",
                                                  "fault.link_loss=0.2",
                                                  NULL};
    static const char *const diffusion_choco[] = {"net.method=rf-diffusion", "net.features=32",
                                                  "net.codec_vectors=top-k", "net.codec_k=0.1",
                                                  "net.codec_gamma=0.2",     NULL};
    static const char *const coke_topk[] = {"net.method=coke",       "net.features=32",
                                            "net.censor_alpha=0.05", "net.codec_vectors=top-k",
                                            "net.codec_k=0.25",      NULL};
    /* the event engine (async.engine = events): agents at their own speeds, links with latencies */
    static const char *const events_paper[] = {
        "async.engine=events",      "async.slow_fraction=0.2",  "async.compute_sigma=0.5",
        "async.compute_jitter=0.3", "async.latency_jitter=0.3", "fault.link_loss=0.1",
        "fault.offline=0.05",       "net.codec_values=int8",    NULL};
    static const char *const events_bandwidth[] = {
        "async.engine=events",  "async.bandwidth=300", "async.latency=0.05", "learner.batch=2",
        "data.split=dirichlet", "async.slow=0",        "async.max_age=2",    NULL};
    static const char *const events_stale[] = {"async.engine=events", "async.compute_sigma=1",
                                               "async.staleness=1", "async.latency_jitter=0.5",
                                               NULL};
    /* the ADMM methods at equal speeds and constant latencies (polka_async_check refuses
     * others): messages still overtake rounds, and links lose some */
    static const char *const events_dkla[] = {"async.engine=events", "net.method=dkla",
                                              "net.features=32",     "async.latency=0.7",
                                              "fault.link_loss=0.1", "net.codec_vectors=float16",
                                              "async.bandwidth=900", NULL};
    static const char *const events_diffusion[] = {"async.engine=events", "net.method=rf-diffusion",
                                                   "net.features=32",     "async.compute_sigma=1",
                                                   "async.staleness=2",   NULL};
    static const char *const events_coke[] = {"async.engine=events",
                                              "net.method=coke",
                                              "net.features=32",
                                              "net.censor_alpha=0.05",
                                              "async.latency=0.4",
                                              "fault.offline=0.1",
                                              NULL};
    /* the Gaussian mechanism on the points (privacy.clip): both ends learn from the noisy point */
    static const char *const noisy_symmetric[] = {"privacy.clip=1.5", "privacy.sample_epsilon=8",
                                                  "net.penalty=symmetric", "fault.link_loss=0.2",
                                                  NULL};
    static const char *const noisy_shared[] = {"privacy.clip=2",           "net.share=samples",
                                               "net.codec_points=float16", "learner.batch=2",
                                               "fault.offline=0.1",        NULL};
    static const char *const events_noisy[] = {"async.engine=events", "async.compute_sigma=0.5",
                                               "privacy.clip=2",      "privacy.sample_epsilon=16",
                                               "run.passes=1.5",      NULL};
    const char *const file_shards[] = {"data.source=file",  train_set,       test_set,
                                       "data.split=shards", "data.shards=1", NULL};
    /* class splits of a file: each rank reads only the rows its agents draw */
    const char *const file_dirichlet[] = {"data.source=file",     train_set,        test_set,
                                          "data.split=dirichlet", "data.alpha=0.1", NULL};
    const char *const file_shards_2[] = {"data.source=file",
                                         train_set,
                                         test_set,
                                         "data.split=shards",
                                         "data.shards=2",
                                         "learner.batch=2",
                                         "net.penalty=symmetric",
                                         NULL};
    const char *const file_skewed_batch[] = {"data.source=file",
                                             train_set,
                                             test_set,
                                             "data.split=skewed",
                                             "learner.batch=3",
                                             "run.passes=1.5",
                                             "data.quantity_sigma=0.5",
                                             NULL};
    struct {
        const char *name;
        const char *const *settings;
    } cases[] = {
        {"paper, iid", paper},
        {"paper, batch 3, c=2, logistic", batch},
        {"paper, skewed, uniform weights", skewed},
        {"paper, per-agent mixtures, batch 2", mixtures},
        {"symmetric, skewed", symmetric},
        {"symmetric, batch 2, c=0.5", symmetric_batch},
        {"file source (each rank its share), iid", file_iid},
        {"sinc regression, regions, symmetric", regions},
        {"file source, skewed, symmetric", file_skewed},
        {"paper, dirichlet alpha 0.1", dirichlet},
        {"symmetric, shards k=2, batch 2", shards},
        {"symmetric, quantity skew sigma 1.5", quantity},
        {"drift, dirichlet, quantity skew", drift},
        {"file source, shards k=1", file_shards},
        {"file source, dirichlet alpha 0.1", file_dirichlet},
        {"file source, shards k=2, symmetric, batch 2", file_shards_2},
        {"file source, skewed, batch 3, 1.5 passes", file_skewed_batch},
        {"shared samples, batch 2", shared},
        {"shared samples, symmetric, quantity skew, link loss", shared_skew},
        {"shared samples, late 2, one-peer gossip", shared_late},
        {"link loss 0.3, symmetric", link_loss},
        {"offline 0.2, agent 0 leaves and returns", offline},
        {"values up to 3 rounds late, batch 2", delay},
        {"late 4, loss 0.2, symmetric, renormalised", delay_loss},
        {"graph resampled every 7 rounds, late 2", resample},
        {"one-peer gossip, symmetric", gossip},
        {"every fault at once, renormalised", everything},
        {"rf-diffusion, dirichlet, link loss 0.2", diffusion},
        {"dkla, offline 0.1, resampled, batch 2", dkla},
        {"dkla exact, sinc, one-peer gossip", dkla_exact},
        {"coke, censoring 0.05, link loss 0.1", coke},
        {"float16 points, int8 values, symmetric, loss", half_int8},
        {"int8 points, float32 values, samples, late", int8_shared},
        {"uint8 points, float16 values, gossip, resampled, batch 2", uint8_gossip},
        {"rf-diffusion, float16 vectors, loss 0.2", diffusion_half},
        {"dkla, int8 vectors, offline 0.1", dkla_int8},
        {"dkla, top-k 0.1 vectors", dkla_topk},
        {"dkla, top-k 0.2 with int8 values, loss 0.1", dkla_topk_int8},
        {"rf-diffusion, random-k 0.2 float16, loss 0.2", diffusion_randk},
        {"rf-diffusion, top-k 0.1, CHOCO 0.2", diffusion_choco},
        {"coke, top-k 0.25, censoring 0.05", coke_topk},
        {"events: slow 0.2, speeds, loss, offline, int8", events_paper},
        {"events: bandwidth, batch 2, dirichlet, slow 0", events_bandwidth},
        {"events: speeds sigma 1, staleness 1", events_stale},
        {"events: dkla, slow 0.3, loss, float16", events_dkla},
        {"events: rf-diffusion, sigma 1, staleness 2", events_diffusion},
        {"events: coke, jitter, offline 0.1", events_coke},
        {"noisy points eps 8, symmetric, loss 0.2", noisy_symmetric},
        {"noisy points, samples, float16, offline 0.1", noisy_shared},
        {"events: noisy points eps 16, speeds, 1.5 passes", events_noisy},
    };
    static const char *const controls[] = {"none",         "norma",      "bsgd-remove",
                                           "bsgd-project", "bsgd-merge", "nbsgd-remove",
                                           "nbsgd-project"};
    int passed = 0, total = 0;
    static const size_t agent_counts[] = {0, 16, 17}; /* 0: one agent per rank */
    int partition = strcmp(placement, "partition") == 0;
    for (size_t n = partition; n < sizeof agent_counts / sizeof *agent_counts; n++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
            passed += run_case(cases[c].name, cases[c].settings, agent_counts[n], size, rank),
                total++;
    for (size_t c = 0; c < sizeof controls / sizeof *controls; c++) {
        char control[64], name[64];
        snprintf(control, sizeof control, "learner.control=%s", controls[c]);
        snprintf(name, sizeof name, "control %s", controls[c]);
        const char *const settings[] = {control, "learner.budget=30", "learner.tau=40",
                                        "net.penalty=symmetric", NULL};
        passed += run_case(name, settings, MAX_AGENTS, size, rank), total++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        remove(train);
        remove(test);
    }
    if (rank == 0) printf("%d passed, %d failed\n", passed, total - passed);
    MPI_Finalize();
    return passed == total ? 0 : 1;
}
