/*
 * What every floor of the simulation shares (services.c, files.c): the clock, the log and
 * progress hooks, the round arithmetic, the finite check of a model, the checkpoint's path.
 * The floor under all of src/sim: it includes only public headers.
 */
#ifndef POLKA_SIM_PLAN_IMPL_H
#define POLKA_SIM_PLAN_IMPL_H

#include <stdarg.h>
#include <stddef.h>

#include "polka/model.h"
#include "polka/plan.h"
#include "polka/sim.h"

/** Monotonic wall-clock seconds. */
double polka_now(void);

/** Formats a line and hands it to the log hook (if any). */
void polka_plan_log(const polka_sim_hooks *hooks, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** Formats a warning and hands it to the warn hook (else the log hook; if any). */
void polka_plan_warn(const polka_sim_hooks *hooks, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** samples/s of the summary: over the loop, and over the loop without its log steps. */
void polka_plan_rates(polka_sim_summary *summary);

/** A warning (rank 0's warn hook) for each key set away from its default for a kind this run
 * did not choose (polka_config_idle_keys): called once the start-up has succeeded. */
void polka_plan_warn_idle(const polka_plan *plan, const polka_sim_hooks *hooks);

/** Reports progress through the hook (if any) after round `round` (1-based). */
void polka_plan_report(const polka_sim_hooks *hooks, size_t round, size_t rounds, double samples,
                       double start, const polka_sim_summary *summary);

/** polka_plan_report of the event engine: at log row `round` of `rounds`, virtual time `clock`
 *  of `horizon` (the display's ETA follows the virtual time, between the log rows too). */
void polka_plan_report_clock(const polka_sim_hooks *hooks, size_t round, size_t rounds,
                             double samples, double start, const polka_sim_summary *summary,
                             double clock, double horizon);

/**
 * POLKA_OK when every number of the model is finite; else the run diverged (or its data were
 * too large for the kernel) and the error names the agent. A run never ends with exit 0 and
 * a non-finite model.
 */
polka_status polka_plan_check_finite(const polka_model *model, size_t agent);

/** Rounds of a run: enough rounds of `per_round` samples to cover passes × n_train. */
size_t polka_plan_rounds(double passes, size_t n_train, size_t per_round);

/** The checkpoint file of a run: run.checkpoint, else run.output + ".ckpt", else polka.ckpt. */
void polka_plan_checkpoint_path(const polka_plan *plan, char *out, size_t size);

#endif
