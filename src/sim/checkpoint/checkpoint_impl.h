/*
 * Checkpoints (checkpoint.c: when and the signals; checkpoint_file.c: the file).
 *
 * A checkpoint is an HDF5 file: attributes at the root (format, format_version, polka_version,
 * round, next_log, rows, agents, signal, digest), /settings (the run's key = value lines),
 * /inputs, /history (the metric rows written so far: round, samples, metrics rows × agents × D)
 * and /agents: every agent's state (polka_state: named entries "learner.*", "model.*",
 * "komp.*", "budget.*", "average.*", "agent.*") packed (polka_state_pack) into one byte array
 * /agents/states, found by agent id through /agents/offset and /agents/length, each agent's
 * bytes with its own FNV-1a in /agents/digest. Every rank writes its own agents' bytes
 * (checkpoint_states.c, parallel HDF5) and reads its own on resume. New state is new named
 * entries (and a new format_version when an old reader must refuse it).
 */
#ifndef POLKA_SIM_CHECKPOINT_H
#define POLKA_SIM_CHECKPOINT_H

#include <mpi.h>
#include <stdint.h>

#include "polka/plan.h"
#include "polka/state.h"
#include "sim/metrics/history_impl.h"
#include "sim/plan/plan_impl.h"

/* Format 3 had a group per agent (/agents/BBBBBB/NNNNNN), written by rank 0 alone; format 4
 * packs them into /agents/states, written by every rank. */
#define POLKA_CKPT_FORMAT_VERSION 4
/* How the int8 codec sends its scale (root attribute int8_scale). A checkpoint without it is
 * from a polka whose int8 sent a float32 scale: an int8 run resumed from it would go on with
 * other bytes than it started with, so only such runs refuse it. */
#define POLKA_CKPT_INT8_SCALE  "exponent byte 2^(e/4)"
#define POLKA_CKPT_FORMAT_NAME "polka checkpoint" /* the root attribute "format" */

/* What a rank wants at the end of a round; the ranks agree on the largest. */
enum { POLKA_CKPT_NONE = 0, POLKA_CKPT_SAVE = 1, POLKA_CKPT_STOP = 2 };

/* Where a run stands after `round` rounds: what the loop needs to go on. */
typedef struct {
    uint64_t round;
    double next_log; /* samples at which the next log step falls */
    uint64_t rows;   /* log steps done: rows of the run file */
} polka_sim_point;

/* The signal that asked the run to stop (SIGTERM, SIGINT, SIGUSR1), 0 when none. */
int polka_ckpt_signal(void);

/* The checkpoint of a stop is being written: disarms the last resort of the signal handler
 * (a process still running 30 s after the signal ends). */
void polka_ckpt_saving(void);

/* This rank's wish after round `round` (1-based) of `rounds`: stop on a signal, save when
 * run.checkpoint_seconds passed since `last_save` (polka_now) or run.checkpoint_every divides
 * the round; never after the last round. */
int polka_ckpt_wish(const polka_plan *plan, uint64_t round, uint64_t rounds, double last_save);

/* Before the run: the checkpoint file can be written where it goes (its directory exists and
 * is writable, it is not a directory), when the run saves at all (run.checkpoint set, or
 * periodic saves), so that this is not found out at the first save. */
polka_status polka_ckpt_check_path(const polka_plan *plan);

/* The run's input files (data files, a graph file) as lines "key<TAB>bytes<TAB>mtime<TAB>
 * digest" (checkpoint_inputs.c; the caller frees the text), and the files checked on resume
 * against such lines `saved` from checkpoint `ckpt`: one message when one is not the same. */
polka_status polka_ckpt_inputs_text(const polka_plan *plan, char **text);
polka_status polka_ckpt_check_inputs(const char *ckpt, const char *saved, const polka_plan *plan);

/* The settings as "key = value" lines, for the checkpoint and its comparison. */
polka_status polka_ckpt_settings_text(const polka_plan *plan, char **out);

/*
 * Collective over comm: writes the checkpoint of plan at point (this rank's count agents with
 * their states; history on rank 0) to a temporary file renamed over the checkpoint (a kill
 * while writing leaves the previous one whole). The agents are named by id: order lists
 * every rank's agent ids, rank by rank (NULL: 0 .. agents − 1), so that a run on other ranks
 * or with another placement finds its agents.
 */
polka_status polka_ckpt_write(const polka_plan *plan, MPI_Comm comm, const polka_sim_point *point,
                              size_t agents, const size_t *order, size_t count,
                              polka_state *const *states, const polka_history *history, int signal);

/* A checkpoint opened for a resumed run (not collective: each rank opens it). */
typedef struct polka_ckpt_s polka_ckpt;

/*
 * Opens the checkpoint the plan resumes from (plan->run.resume) and checks it: its format
 * and polka version, the settings (those that may change aside), the agents. One message
 * naming the file and what does not fit.
 */
polka_status polka_ckpt_open(const polka_plan *plan, size_t agents, polka_ckpt **out);

/* The checks of polka_ckpt_open that need no plan: the file, its format, its digest (unless
 * verify is 0: the fuzz harness's way past it), its polka version and its point. */
polka_status polka_ckpt_open_file(const char *path, int verify, polka_ckpt **out);
/* polka_ckpt_open without the digest's check when verify is 0 (the fuzz harness). */
polka_status polka_ckpt_open_checked(const polka_plan *plan, size_t agents, int verify,
                                     polka_ckpt **out);
/* The settings the checkpoint was written with, "key = value" lines (the caller frees). */
polka_status polka_ckpt_settings(const polka_ckpt *ckpt, char **text);
/* The agents it holds. */
size_t polka_ckpt_agents(const polka_ckpt *ckpt);
void polka_ckpt_close(polka_ckpt **ckpt);
const polka_sim_point *polka_ckpt_point(const polka_ckpt *ckpt);
/* The file's name, for messages. */
const char *polka_ckpt_name(const polka_ckpt *ckpt);

/* Agent a's state (the caller frees it). */
polka_status polka_ckpt_agent(const polka_ckpt *ckpt, size_t agent, polka_state **out);

/* The metric rows written before the checkpoint (read on first use). */
polka_status polka_ckpt_history(polka_ckpt *ckpt, const polka_history **out);

#endif
