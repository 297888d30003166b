/* The test points a log step scores and measures the disagreement on. */
#include "sim/metrics/metrics_impl.h"

polka_dataset polka_metrics_log_test(const polka_plan *plan, const polka_dataset *test,
                                     size_t round, const polka_sim_summary *summary) {
    polka_dataset view = *test;
    size_t subset = plan->run.log_test;
    if (round < summary->rounds && subset > 0 && subset < test->n) view.n = subset;
    return view;
}

size_t polka_metrics_disagreement_points(const polka_plan *plan, const polka_dataset *scored) {
    size_t subset = plan->run.log_test;
    return subset > 0 && subset < scored->n ? subset : scored->n;
}
