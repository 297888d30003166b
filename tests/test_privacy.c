/* The Gaussian mechanism on the points (privacy_impl.h): the clip bound, the noise's scale and
 * keys, the releases counted, and the Gaussian-DP numbers against values computed apart
 * (scipy: brentq on δ(ε) with log_ndtr; Balle & Wang 2018 give σ/Δ = 3.7306 at ε 1, δ 1e-5). */
#include <math.h>
#include <string.h>

#include "sim/method/privacy_impl.h"
#include "test_util.h"

static double norm_of(const double *x, size_t n) {
    double s = 0.0;
    for (size_t e = 0; e < n; e++) s += x[e] * x[e];
    return sqrt(s);
}

/* Longer points end at the norm C, in their direction; shorter ones are untouched. */
static void clip_bound_holds(void **state) {
    (void)state;
    enum { DIM = 7 };
    for (uint64_t seed = 1; seed <= 200; seed++) {
        double x[DIM], kept[DIM];
        fill_uniform(x, DIM, -5.0, 5.0, seed);
        memcpy(kept, x, sizeof x);
        double before = norm_of(x, DIM), clip = 0.05 * (double)seed;
        polka_privacy_clip(x, DIM, clip);
        if (before <= clip) {
            assert_memory_equal(x, kept, sizeof x);
            continue;
        }
        assert_true(norm_of(x, DIM) <= clip * (1 + 1e-14));
        assert_true(close_rel(norm_of(x, DIM), clip, 1e-14));
        for (int e = 0; e < DIM; e++) assert_true(close_rel(x[e] * before / clip, kept[e], 1e-12));
    }
}

static polka_privacy mechanism(double sigma, uint64_t n_train, size_t batch) {
    polka_privacy p = {.clip = 1.0, .sigma = sigma, .mu = 2.0 / sigma, .delta = 1e-5};
    p.seed = 42, p.agents = 4, p.batch = batch, p.n_train = n_train;
    return p;
}

/* A point at the origin (clipping leaves it) gets N(0, σ²) in each coordinate: the sample
 * mean and variance of 40 000 coordinates within 5 and 4 standard errors. */
static void noise_has_its_scale(void **state) {
    (void)state;
    enum { DIM = 40000 };
    static double x[DIM], again[DIM], other[DIM];
    polka_privacy p = mechanism(0.7, 1000000, 1);
    polka_agent_counters c = {0};
    polka_privacy_protect(&p, 2, 5, x, DIM, &c);
    double mean = 0.0, var = 0.0;
    for (int e = 0; e < DIM; e++) mean += x[e] / DIM;
    for (int e = 0; e < DIM; e++) var += (x[e] - mean) * (x[e] - mean) / (DIM - 1);
    assert_true(fabs(mean) < 5 * 0.7 / sqrt(DIM));
    assert_true(fabs(var / (0.7 * 0.7) - 1.0) < 4 * sqrt(2.0 / DIM));
    polka_privacy_protect(&p, 2, 5, again, DIM, &c); /* the same key: the same noise */
    assert_memory_equal(x, again, sizeof x);
    polka_privacy_protect(&p, 3, 5, other, DIM, &c); /* another agent: other noise */
    assert_true(memcmp(x, other, sizeof x) != 0);
}

/* Each point of a batch counts one release; row_releases is the pass of the newest draw, and
 * the epsilon is that many releases composed: √k μ-GDP. */
static void releases_are_counted(void **state) {
    (void)state;
    polka_privacy p = mechanism(2.0 / 0.9249308976669363, 10, 2); /* ε 4 at δ 1e-5 */
    polka_agent_counters c = {0};
    double x[2 * 3] = {3, 0, 0, 0, 0.5, 0};
    polka_privacy_protect(&p, 0, 0, x, 3, &c); /* samples 0, 1: pass 1 */
    assert_true(c.noisy_points == 2 && c.row_releases == 1);
    assert_true(fabs(c.privacy_epsilon - 4.0) < 1e-9);
    polka_privacy_protect(&p, 1, 1, x, 3, &c); /* samples 10, 11 (4 agents × 2 + 2): pass 2 */
    assert_true(c.noisy_points == 4 && c.row_releases == 2);
    assert_true(fabs(c.privacy_epsilon - 5.992007617164094) < 1e-9);
    polka_privacy_protect(&p, 0, 0, x, 3, &c); /* an older pass: the count stays */
    assert_true(c.row_releases == 2 && c.noisy_points == 6);
}

/* σ/Δ for (ε, 1e-5) and the composed ε of k releases, from scipy apart. */
static void gaussian_dp_numbers(void **state) {
    (void)state;
    static const struct {
        double epsilon, mu, composed[3]; /* k = 2, 3, 10 */
    } known[] = {
        {1, 0.26805112321129404, {1.465169960355421, 1.8349654335037504, 3.6185915743259587}},
        {4, 0.9249308976669363, {5.992007617164094, 7.630813030365737, 16.137964384986017}},
        {16, 2.905478155173323, {25.28284494346396, 33.403577655686895, 80.57448527080855}},
    };
    static const double k[3] = {2, 3, 10};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        double mu = polka_gdp_mu(known[i].epsilon, 1e-5);
        assert_true(fabs(mu / known[i].mu - 1) < 1e-9);
        assert_true(polka_gdp_delta(known[i].epsilon, mu) <= 1e-5); /* the safe side */
        assert_true(fabs(polka_gdp_epsilon(mu, 1e-5) - known[i].epsilon) < 1e-9);
        for (int j = 0; j < 3; j++) {
            double e = polka_gdp_epsilon(sqrt(k[j]) * mu, 1e-5);
            assert_true(fabs(e / known[i].composed[j] - 1) < 1e-9);
            assert_true(e < k[j] * known[i].epsilon); /* tighter than adding them up */
        }
    }
    assert_true(fabs(1 / polka_gdp_mu(1, 1e-5) - 3.7306) < 1e-4);
    /* below ε = 1 the classic σ = Δ √(2 ln(1.25/δ)) / ε is valid and never smaller */
    for (double e = 0.1; e < 1; e += 0.2)
        assert_true(1 / polka_gdp_mu(e, 1e-5) <= sqrt(2 * log(1.25 / 1e-5)) / e);
    /* far tails (e^ε alone overflows): still a number, still monotone */
    double big = polka_gdp_epsilon(60.0, 1e-10);
    assert_true(isfinite(big) && big > polka_gdp_epsilon(30.0, 1e-10));
    assert_true(polka_gdp_delta(800.0, 30.0) >= 0 && polka_gdp_delta(800.0, 30.0) < 1e-10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clip_bound_holds),
        cmocka_unit_test(noise_has_its_scale),
        cmocka_unit_test(releases_are_counted),
        cmocka_unit_test(gaussian_dp_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
