/* The registry of decentralized methods (include/polka/methods.h). */
#include "sim/method/method_impl.h"

#include <string.h>

#include "polka/methods.h"
#include "polka/sim.h"
#include "sim/agent/agent_impl.h"
#include "sim/plan/plan_impl.h"

#define METHOD_DECLARE(symbol, name) extern const polka_method_ops polka_method_##symbol;
POLKA_METHOD_LIST(METHOD_DECLARE)
#undef METHOD_DECLARE

#define METHOD_ENTRY(symbol, name) &polka_method_##symbol,
static const polka_method_ops *const methods[] = {POLKA_METHOD_LIST(METHOD_ENTRY)};
#undef METHOD_ENTRY

#define METHOD_NAME(symbol, name) " | " name
static const char method_names[] = POLKA_METHOD_LIST(METHOD_NAME);
#undef METHOD_NAME

const polka_method_ops *polka_method_find(const char *name) {
    for (size_t m = 0; m < polka_method_count(); m++)
        if (strcmp(methods[m]->name, name) == 0) return methods[m];
    return NULL;
}

const polka_method_ops *polka_method_of(const polka_plan *plan) {
    return polka_method_find(plan->settings.method);
}

const char *polka_method_names(void) {
    return method_names + 3; /* without the first " | " */
}

size_t polka_method_count(void) {
    return sizeof methods / sizeof *methods;
}

const char *polka_method_name_at(size_t k) {
    return methods[k]->name;
}

const char *polka_method_help_at(size_t k) {
    return methods[k]->help;
}

size_t polka_method_run_rounds(const polka_agent *agent, const polka_plan *plan,
                               const polka_data_facts *facts) {
    return polka_plan_rounds(plan->run.passes, facts->n_train,
                             polka_graph_nodes(agent->graph) * agent->batch);
}
