/* An agent's counters (counters_impl.h): the checkpoint's entries, the online error. */
#include "sim/agent/counters_impl.h"

#include <math.h>

polka_status polka_counters_save(const polka_agent_counters *c, polka_state *state) {
#define SAVE_ONE(field)                POLKA_CALL(polka_state_put_f64(state, "agent." #field, c->field));
#define SAVE_TOTAL(field, metric)      SAVE_ONE(field)
#define SAVE_MEAN(name, metric, reset) SAVE_ONE(name##_sum) SAVE_ONE(name##_count)
    POLKA_AGENT_COUNTERS(SAVE_TOTAL, SAVE_MEAN)
#undef SAVE_ONE
#undef SAVE_TOTAL
#undef SAVE_MEAN
    return POLKA_OK;
}

polka_status polka_counters_restore(polka_agent_counters *c, const polka_state *state) {
#define RESTORE_ONE(field)                                                                         \
    POLKA_CALL(polka_state_get_f64(state, "agent." #field, &c->field));                            \
    POLKA_CHECK(isfinite(c->field) && c->field >= 0.0, POLKA_ERR_FORMAT,                           \
                "the checkpoint's 'agent." #field "' is %g, not a finite count or sum >= 0",       \
                c->field);
#define RESTORE_TOTAL(field, metric)      RESTORE_ONE(field)
#define RESTORE_MEAN(name, metric, reset) RESTORE_ONE(name##_sum) RESTORE_ONE(name##_count)
    POLKA_AGENT_COUNTERS(RESTORE_TOTAL, RESTORE_MEAN)
#undef RESTORE_ONE
#undef RESTORE_TOTAL
#undef RESTORE_MEAN
    return POLKA_OK;
}

/* The online error from a score: accuracy, MSE or the fraction flagged. */
static void online_error_score(polka_agent_counters *counters, int classification, double score,
                               size_t n) {
    counters->online_error_sum += (double)n * (classification ? 1.0 - score : score);
    counters->online_error_count += (double)n;
}

void polka_online_error_add(polka_agent_counters *counters, int classification,
                            const polka_learner *learner, const double *f, const double *y,
                            size_t n) {
    online_error_score(counters, classification, polka_learner_score(learner, f, y, n, NULL), n);
}

void polka_online_error_add_values(polka_agent_counters *counters, int classification,
                                   const polka_loss *loss, size_t classes, const double *f,
                                   const double *y, size_t n) {
    online_error_score(counters, classification,
                       polka_loss_score(loss, classes, f, y, n, NULL, NULL), n);
}
