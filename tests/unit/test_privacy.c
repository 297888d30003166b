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

/*
 * δ(ε, μ) = Φ(a) − e^ε Φ(b), a, b = −ε/μ ± μ/2, near (ε, μ): its slopes ∂δ/∂μ = φ(a) and
 * −∂δ/∂ε = e^ε Φ(b) (as e^ε φ(b) = φ(a)), and `noise`, a bound on the error of its computed
 * value, polka's or scipy's (the same formula, log Φ by erfc): each term e^L, L = log Φ(t) (+ ε),
 * to (|t| + 1)·Δt (φ/Φ ≤ |t| + 1; t's three roundings and t/√2's two, Δt ≤ 4u(ε/μ + μ/2)),
 * erfc's 5 ulp (glibc's; cephes', under scipy, loses the x²u of exp(−x²) inside the Δt term),
 * log's 1 ulp absolute (2u|L|) and exp's 1 ulp, with ε + L's rounding; the difference's u.
 * A root of the computed δ is within noise / slope of the exact one (a simple root's condition
 * number is 1/|slope|).
 */
typedef struct {
    double noise, dmu, deps;
} gdp_local;

static gdp_local gdp_at(double epsilon, double mu) {
    double u = TEST_UNIT, t[2] = {-epsilon / mu + mu / 2, -epsilon / mu - mu / 2};
    double dt = 4 * u * (epsilon / mu + mu / 2), term[2], noise = 0;
    for (int k = 0; k < 2; k++) {
        double log_phi = log(0.5 * erfc(-t[k] / sqrt(2.0))), l = log_phi + (k ? epsilon : 0);
        term[k] = exp(l);
        if (term[k] == 0) continue; /* underflowed: a zero on both sides */
        double rel = (fabs(t[k]) + 1) * dt + 10 * u + 2 * u * fabs(log_phi) + 2 * u;
        if (k) rel += u * fabs(l);
        noise += rel * term[k];
    }
    noise += u * fabs(term[0] - term[1]);
    double phi_a = exp(-t[0] * t[0] / 2) / sqrt(2 * 3.14159265358979323846);
    return (gdp_local){.noise = noise, .dmu = phi_a, .deps = term[1]};
}

/* |μ − μ*| for a root of the computed δ(ε, ·) = 1e-5 (noise/φ(a) from the exact root μ*) that
 * a finder leaves within xtol + rtol·μ of that one: polka_gdp_mu's bisection ends on adjacent
 * doubles (rtol 2u), scipy's brentq at its xtol and rtol. */
static double mu_error(double epsilon, double mu, double xtol, double rtol) {
    gdp_local g = gdp_at(epsilon, mu);
    return g.noise / g.dmu + xtol + rtol * mu;
}

/* |ε − ε'| for polka_gdp_epsilon(μ) and ε', exact (roots 1) or scipy's (roots 2, brentq's xtol
 * and rtol), at a μ' within mu_diff of μ: noise/e^εΦ(b) a root of the computed δ, polka's
 * bisection's 2u·ε, and the slope ∂ε/∂μ = φ(a)/e^εΦ(b) over the μs' difference. */
static double epsilon_error(double epsilon, double mu, double mu_diff, int roots, double xtol,
                            double rtol) {
    gdp_local g = gdp_at(epsilon, mu);
    return (roots * g.noise + g.dmu * mu_diff) / g.deps + xtol + (rtol + DBL_EPSILON) * epsilon;
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
        /* ‖x‖ to γ_DIM/2 + u (the sum of squares, sqrt) in the clip and again here; clip/‖x‖ and
         * each product a rounding: γ_{DIM+4} [Higham02, §3.1] */
        double tol = test_gamma(DIM + 4);
        assert_true(norm_of(x, DIM) <= clip * (1 + tol));
        assert_true(fabs(norm_of(x, DIM) - clip) <= clip * tol);
        /* x·‖x‖/clip: the clip's scale (‖x‖'s γ_DIM/2 + u, the quotient, the product) and 2 here */
        for (int e = 0; e < DIM; e++)
            assert_true(fabs(x[e] * before / clip - kept[e]) <=
                        test_gamma(DIM + 6) * fabs(kept[e]));
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
    const double mu4 = 0.9249308976669363; /* scipy's μ of ε 4 at δ 1e-5 (gaussian_dp_numbers) */
    polka_privacy p = mechanism(2.0 / mu4, 10, 2);
    polka_agent_counters c = {0};
    double x[2 * 3] = {3, 0, 0, 0, 0.5, 0};
    polka_privacy_protect(&p, 0, 0, x, 3, &c); /* samples 0, 1: pass 1 */
    assert_true(c.noisy_points == 2 && c.row_releases == 1);
    /* p.mu = 2/(2/μ): μ to γ_2, and μ scipy's root of ε = 4 (brentq, xtol = rtol = 1e-15) */
    double mu_diff = mu_error(4, mu4, 1e-15, 1e-15) + test_gamma(2) * mu4;
    assert_true(fabs(c.privacy_epsilon - 4.0) <= epsilon_error(4, p.mu, mu_diff, 1, 0, 0));
    polka_privacy_protect(&p, 1, 1, x, 3, &c); /* samples 10, 11 (4 agents × 2 + 2): pass 2 */
    assert_true(c.noisy_points == 4 && c.row_releases == 2);
    /* scipy's composed ε of 2 releases (brentq, xtol 1e-13, rtol 1e-14) at √2·μ: here √2·p.mu,
     * γ_2 of p.mu and a rounding each of √2 and the product on both sides */
    double e2 = 5.992007617164094, mu2 = sqrt(2.0) * p.mu;
    assert_true(fabs(c.privacy_epsilon - e2) <=
                epsilon_error(e2, mu2, test_gamma(6) * mu2, 2, 1e-13, 1e-14));
    polka_privacy_protect(&p, 0, 0, x, 3, &c); /* an older pass: the count stays */
    assert_true(c.row_releases == 2 && c.noisy_points == 6);
}

/* σ/Δ for (ε, 1e-5) and the composed ε of k releases, from scipy apart: brentq with xtol =
 * rtol = 1e-15 for μ (the 17 digits are scipy's double: they give it back bit for bit) and
 * xtol 1e-13, rtol 1e-14 for ε (as privacy_run_test.sh). */
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
        double mu = polka_gdp_mu(known[i].epsilon, 1e-5), epsilon = known[i].epsilon;
        /* polka's root and scipy's, each against the exact one */
        double mu_tol = mu_error(epsilon, mu, 0, DBL_EPSILON) + mu_error(epsilon, mu, 1e-15, 1e-15);
        assert_true(fabs(mu - known[i].mu) <= mu_tol);
        assert_true(polka_gdp_delta(known[i].epsilon, mu) <= 1e-5); /* the safe side */
        /* the way back: polka's μ to mu_error of the exact root of ε */
        double back = epsilon_error(epsilon, mu, mu_error(epsilon, mu, 0, DBL_EPSILON), 1, 0, 0);
        assert_true(fabs(polka_gdp_epsilon(mu, 1e-5) - epsilon) <= back);
        for (int j = 0; j < 3; j++) {
            double e = polka_gdp_epsilon(sqrt(k[j]) * mu, 1e-5), composed = known[i].composed[j];
            /* √k·μ here and in scipy: the μs' difference and a rounding each of √k and √k·μ */
            double mu_k = sqrt(k[j]) * mu, mu_k_tol = sqrt(k[j]) * mu_tol + test_gamma(4) * mu_k;
            assert_true(fabs(e - composed) <=
                        epsilon_error(composed, mu_k, mu_k_tol, 2, 1e-13, 1e-14));
            assert_true(e < k[j] * known[i].epsilon); /* tighter than adding them up */
        }
    }
    /* Balle & Wang's 4 decimals: 0.5e-4, and our μ's error through 1/μ */
    double mu1 = polka_gdp_mu(1, 1e-5);
    assert_true(fabs(1 / mu1 - 3.7306) <= 0.5e-4 + mu_error(1, mu1, 0, DBL_EPSILON) / (mu1 * mu1));
    /* below ε = 1 the classic σ = Δ √(2 ln(1.25/δ)) / ε is valid and never smaller */
    for (double e = 0.1; e < 1; e += 0.2)
        assert_true(1 / polka_gdp_mu(e, 1e-5) <= sqrt(2 * log(1.25 / 1e-5)) / e);
    /* far tails (e^ε alone overflows): still a number, still monotone */
    double big = polka_gdp_epsilon(60.0, 1e-10);
    assert_true(isfinite(big) && big > polka_gdp_epsilon(30.0, 1e-10));
    /* δ ≤ Φ(a) = Φ(−800/30 + 15), computed to its noise (e^ε Φ(b) underflows) */
    gdp_local tail = gdp_at(800.0, 30.0);
    double phi_a = 0.5 * erfc((800.0 / 30.0 - 15) / sqrt(2.0));
    assert_true(polka_gdp_delta(800.0, 30.0) >= 0 &&
                polka_gdp_delta(800.0, 30.0) <= phi_a + tail.noise);
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
