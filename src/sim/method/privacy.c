/* The Gaussian mechanism on the penalty method's points and its accounting (privacy_impl.h). */
#include "sim/method/privacy_impl.h"

#include <math.h>
#include <string.h>

#include "polka/rng.h"
#include "sim/method/method_impl.h"

#define SQRT2       1.4142135623730951
#define LOG_SQRT2PI 0.91893853320467274 /* log √(2π) */

/* log Φ(t); below −30 (erfc underflows) the tail's asymptotic series
 * Φ(t) = φ(t)/|t| · (1 − 1/t² + 3/t⁴ − …), whose next term is below 1e-7 there. */
static double log_phi(double t) {
    if (t > -30.0) return log(0.5 * erfc(-t / SQRT2));
    double u = 1.0 / (t * t);
    return -0.5 * t * t - log(-t) - LOG_SQRT2PI + log1p(-u + 3.0 * u * u);
}

double polka_gdp_delta(double epsilon, double mu) {
    if (!(mu > 0)) return 0.0;
    /* e^ε Φ(b) in logs: e^ε alone overflows past ε = 709 */
    double a = -epsilon / mu + mu / 2, b = -epsilon / mu - mu / 2;
    double delta = exp(log_phi(a)) - exp(epsilon + log_phi(b));
    return delta > 0 ? delta : 0.0;
}

/* What a bisection solves: δ(ε) at μ against delta, for μ (ε given) or for ε (μ given). */
typedef struct {
    double epsilon, mu, delta;
} gdp_question;

static int mu_allowed(const gdp_question *q, double mu) {
    return polka_gdp_delta(q->epsilon, mu) <= q->delta; /* δ grows with μ */
}

static int epsilon_short(const gdp_question *q, double epsilon) {
    return polka_gdp_delta(epsilon, q->mu) > q->delta; /* δ falls as ε grows */
}

/* [lo, hi] closed on the switch of `below` (1 up to some x*, 0 above) to adjacent doubles:
 * lo is then the last x known below, hi the first known above. */
static void bisect(const gdp_question *q, int (*below)(const gdp_question *, double), double *lo,
                   double *hi) {
    while (below(q, *hi) && *hi < 1e300) { /* bracket: [lo, hi] holds the switch */
        *lo = *hi;
        *hi *= 2;
    }
    for (int step = 0; step < 2200; step++) {
        double mid = *lo + (*hi - *lo) / 2;
        if (mid <= *lo || mid >= *hi) break;
        if (below(q, mid))
            *lo = mid;
        else
            *hi = mid;
    }
}

double polka_gdp_mu(double epsilon, double delta) {
    gdp_question q = {.epsilon = epsilon, .delta = delta};
    double lo = 0.0, hi = 1.0;
    bisect(&q, mu_allowed, &lo, &hi);
    return lo; /* δ(ε) ≤ delta there: the guarantee holds */
}

double polka_gdp_epsilon(double mu, double delta) {
    gdp_question q = {.mu = mu, .delta = delta};
    if (!epsilon_short(&q, 0.0)) return 0.0;
    double lo = 0.0, hi = 1.0;
    bisect(&q, epsilon_short, &lo, &hi);
    return hi; /* δ(ε) ≤ delta there */
}

void polka_privacy_clip(double *x, size_t dim, double clip) {
    double norm = 0.0;
    for (size_t e = 0; e < dim; e++) norm += x[e] * x[e];
    norm = sqrt(norm);
    if (!(norm > clip)) return;
    double scale = clip / norm;
    for (size_t e = 0; e < dim; e++) x[e] *= scale;
}

double polka_privacy_sigma(const polka_plan *plan) {
    const polka_config *s = &plan->settings;
    if (!(s->clip > 0)) return 0.0;
    return 2.0 * s->clip / polka_gdp_mu(s->sample_epsilon, s->sample_delta);
}

polka_status polka_privacy_check(const polka_plan *plan) {
    const polka_config *s = &plan->settings;
    POLKA_CHECK(s->sample_epsilon > 0, POLKA_ERR_ARG,
                "privacy.sample_epsilon = %g: the privacy loss of one release must be > 0",
                s->sample_epsilon);
    POLKA_CHECK(s->sample_delta > 0 && s->sample_delta < 1, POLKA_ERR_ARG,
                "privacy.sample_delta = %g: a probability in (0, 1)", s->sample_delta);
    if (s->clip == 0) return POLKA_OK;
    POLKA_CHECK(plan->run.mode == POLKA_MODE_DECENTRALIZED, POLKA_ERR_ARG,
                "privacy.clip = %g protects the points the penalty method sends; a centralized "
                "run sends none (set privacy.clip = 0)",
                s->clip);
    const polka_method_ops *method = polka_method_find(s->method);
    POLKA_CHECK(method != NULL && method->sends_points, POLKA_ERR_ARG,
                "privacy.clip = %g protects the points the penalty method sends; net.method = %s "
                "sends no points (set net.method = penalty, or privacy.clip = 0)",
                s->clip, s->method);
    /* a class split of a file picks each sample's row at random within its class: a row may
     * be released any number of times, and the accounting counts releases per row by pass */
    int by_class = plan->data.split == POLKA_SPLIT_SKEWED ||
                   plan->data.split == POLKA_SPLIT_DIRICHLET ||
                   plan->data.split == POLKA_SPLIT_SHARDS;
    POLKA_CHECK(plan->data.source != POLKA_SOURCE_FILE || !by_class, POLKA_ERR_ARG,
                "privacy.clip with data.split = %s of a file: the split draws rows at random "
                "within a class, so no count bounds a row's releases and no epsilon covers it "
                "(use data.split = iid)",
                s->split);
    /* a noisy point's squared distances (the kernel's ‖x − d‖²) must stay finite: a sigma up to
     * 1e100, as a scaled feature up to 1e150 (dataio_scaled_too_large) */
    double sigma = polka_privacy_sigma(plan);
    POLKA_CHECK(sigma > 0 && sigma <= 1e100, POLKA_ERR_ARG,
                "privacy.clip = %g, privacy.sample_epsilon = %g, privacy.sample_delta = %g: the "
                "noise's sigma 2 clip / mu = %g is not a number a point can carry (at most 1e100); "
                "lower privacy.clip, or raise privacy.sample_epsilon",
                s->clip, s->sample_epsilon, s->sample_delta, sigma);
    return POLKA_OK;
}

polka_status polka_privacy_setup(polka_privacy *privacy, const polka_plan *plan, size_t agents,
                                 uint64_t n_train) {
    const polka_config *s = &plan->settings;
    memset(privacy, 0, sizeof *privacy);
    if (!(s->clip > 0)) return POLKA_OK;
    POLKA_CHECK(n_train > 0, POLKA_ERR_ARG, "privacy.clip: no training samples");
    privacy->clip = s->clip;
    privacy->mu = polka_gdp_mu(s->sample_epsilon, s->sample_delta);
    privacy->sigma = 2.0 * s->clip / privacy->mu;
    privacy->delta = s->sample_delta;
    privacy->seed = plan->run.seed;
    privacy->agents = agents;
    privacy->batch = plan->learner.batch;
    privacy->n_train = n_train;
    return POLKA_OK;
}

/* Network sample g was released: its row (g mod n_train, by pass) has now been released at
 * most g / n_train + 1 times, by whichever agents drew it. */
static void count_release(const polka_privacy *privacy, uint64_t g, polka_agent_counters *c) {
    c->noisy_points += 1.0;
    double releases = (double)(g / privacy->n_train + 1);
    if (releases <= c->row_releases) return;
    c->row_releases = releases;
    c->privacy_epsilon = polka_gdp_epsilon(sqrt(releases) * privacy->mu, privacy->delta);
}

void polka_privacy_protect(const polka_privacy *privacy, size_t agent, uint64_t round, double *x,
                           size_t dim, polka_agent_counters *counters) {
    uint64_t first = (round * privacy->agents + agent) * privacy->batch; /* as the stream's */
    for (size_t r = 0; r < privacy->batch; r++) {
        double *point = x + r * dim;
        polka_privacy_clip(point, dim, privacy->clip);
        polka_rng rng = polka_rng_start(privacy->seed, POLKA_PRIVACY_STREAM, first + r);
        for (size_t e = 0; e < dim; e++) point[e] += privacy->sigma * polka_rng_normal(&rng);
        count_release(privacy, first + r, counters);
    }
}
