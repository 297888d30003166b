/* The table of the decentralized methods (method.c): every method's ops (method_ops_impl.h,
 * the contract with the agent's fabric) by name. */
#ifndef POLKA_SIM_METHOD_H
#define POLKA_SIM_METHOD_H

#include "sim/agent/agent_impl.h"
#include "sim/agent/method_ops_impl.h"

/** The method named `name`, or NULL. */
const polka_method_ops *polka_method_find(const char *name);
/** The run's method (the plan names one that exists: polka_plan_build checks it). */
const polka_method_ops *polka_method_of(const polka_plan *plan);
/** "penalty | rf-diffusion | ...": the names, for messages and help. */
const char *polka_method_names(void);
/** The rounds the run plays (run.passes over the training set, every agent of the graph
 * drawing its batch a round), as an agent's init sees them: the horizon of its schedule. */
size_t polka_method_run_rounds(const polka_agent *agent, const polka_plan *plan,
                               const polka_data_facts *facts);

#endif
