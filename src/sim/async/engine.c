/*
 * The event engine's windows (async_impl.h): every rank plays its agents through a window of at
 * most async.latency of virtual time, then the ranks swap the messages that cross, agree on
 * how it went, and log a row when the window ends on a log time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/async/snapshot_impl.h"
#include "sim/checkpoint/resume_impl.h"
#include "polka/stop.h"
#include "sim/checkpoint/checkpoint_impl.h"
#include "sim/plan/plan_impl.h"

/* Header doubles of a message crossing ranks: arrival, sent, to, from, seq, phase, want,
 * version. */
#define HEADER 8

static polka_status reserve(double **buffer, size_t *room, size_t need) {
    if (need <= *room) return POLKA_OK;
    size_t grown = *room ? *room : 256;
    while (grown < need) grown *= 2;
    double *p = realloc(*buffer, grown * sizeof *p);
    POLKA_CHECK(p, POLKA_ERR_MEM, "out of memory for the messages between ranks");
    *buffer = p;
    *room = grown;
    return POLKA_OK;
}

polka_status polka_async_deliver(polka_async_engine *engine, size_t to, const polka_message *m,
                                 const double *payload) {
    const polka_async_world *w = engine->world;
    size_t doubles = engine->doubles[m->phase];
    int owner = w->placement->owner[to];
    if (owner == w->rank)
        return polka_inbox_push_copy(&engine->agents[w->placement->index[to]].inbox, m, payload,
                                     doubles);
    int q = engine->rank_at[owner];
    POLKA_CALL(
        reserve(&engine->out[q], &engine->out_room[q], engine->out_len[q] + HEADER + doubles));
    double *at = engine->out[q] + engine->out_len[q];
    double header[HEADER] = {m->arrival,     m->sent,          (double)to,      (double)m->from,
                             (double)m->seq, (double)m->phase, (double)m->want, (double)m->version};
    memcpy(at, header, sizeof header);
    memcpy(at + HEADER, payload, doubles * sizeof *at);
    engine->out_len[q] += HEADER + doubles;
    return POLKA_OK;
}

/* The messages that came from other ranks into their agents' inboxes. */
static polka_status file_received(polka_async_engine *engine, size_t total) {
    const polka_async_world *w = engine->world;
    for (size_t at = 0; at < total;) {
        const double *h = engine->recv + at;
        polka_message m = {.arrival = h[0],
                           .sent = h[1],
                           .from = (uint64_t)h[3],
                           .seq = (uint64_t)h[4],
                           .phase = (int)h[5],
                           .want = (int)h[6],
                           .version = (uint64_t)h[7]};
        size_t to = (size_t)h[2], doubles = engine->doubles[m.phase];
        POLKA_CALL(polka_inbox_push_copy(&engine->agents[w->placement->index[to]].inbox, &m,
                                         h + HEADER, doubles));
        at += HEADER + doubles;
    }
    return POLKA_OK;
}

/* Collective: the window's messages to the neighbouring ranks, their counts first. */
static polka_status swap_messages(polka_async_engine *engine, double *crossed) {
    const polka_async_world *w = engine->world;
    int q_count = w->degree;
    if (q_count == 0) return POLKA_OK;
    double *counts = malloc(2 * (size_t)q_count * sizeof *counts);
    int *ones = malloc(3 * (size_t)q_count * sizeof *ones);
    POLKA_CHECK(counts && ones, POLKA_ERR_MEM, "out of memory for the exchange");
    int *send_counts = ones + q_count, *recv_counts = ones + 2 * q_count;
    size_t total_out = 0, total_in = 0;
    for (int q = 0; q < q_count; q++) {
        ones[q] = 1;
        counts[q] = (double)engine->out_len[q];
        total_out += engine->out_len[q];
    }
    polka_status status =
        polka_exchange_alltoallv(w->exchange, counts, ones, counts + q_count, ones);
    for (int q = 0; q < q_count && status == POLKA_OK; q++) {
        send_counts[q] = (int)engine->out_len[q];
        recv_counts[q] = (int)counts[q_count + q];
        total_in += (size_t)counts[q_count + q];
    }
    double *send = NULL;
    size_t send_room = 0;
    if (status == POLKA_OK) status = reserve(&send, &send_room, total_out + 1);
    if (status == POLKA_OK) status = reserve(&engine->recv, &engine->recv_room, total_in + 1);
    for (int q = 0, at = 0; q < q_count && status == POLKA_OK; at += send_counts[q], q++)
        if (engine->out_len[q] > 0) /* out[q] is NULL until a message goes to rank q */
            memcpy(send + at, engine->out[q], engine->out_len[q] * sizeof *send);
    if (status == POLKA_OK)
        status =
            polka_exchange_alltoallv(w->exchange, send, send_counts, engine->recv, recv_counts);
    if (status == POLKA_OK) status = file_received(engine, total_in);
    *crossed += (double)total_out;
    for (int q = 0; q < q_count; q++) engine->out_len[q] = 0;
    free(send);
    free(counts);
    free(ones);
    return status;
}

int polka_async_enabled(const polka_plan *plan) {
    return strcmp(plan->settings.engine, "events") == 0;
}

/* The virtual time the run lasts. */
static double horizon_of(const polka_plan *plan, size_t n_train, size_t agents) {
    if (plan->settings.horizon > 0) return plan->settings.horizon;
    size_t rounds = polka_plan_rounds(plan->run.passes, n_train, agents * plan->learner.batch);
    return (double)rounds * plan->settings.compute;
}

/* The virtual time between log rows. */
static double log_interval_of(const polka_plan *plan, size_t agents) {
    if (plan->settings.log_interval > 0) return plan->settings.log_interval;
    double per_round = (double)(agents * plan->learner.batch);
    return (double)plan->run.log_every / per_round * plan->settings.compute;
}

/* The rank's agents in virtual time, and the buffers to the neighbouring ranks. */
static polka_status engine_create(polka_async_engine *engine, const polka_async_world *w) {
    const polka_plan *plan = w->plan;
    *engine = (polka_async_engine){.world = w,
                                   .staleness = plan->settings.staleness,
                                   .two_phase = w->doubles[1] > 0,
                                   .doubles = {w->doubles[0], w->doubles[1]}};
    POLKA_CALL(polka_clock_create(plan, w->agents, &engine->clock));
    engine->agents = calloc(w->count ? w->count : 1, sizeof *engine->agents);
    engine->out = calloc(w->degree ? (size_t)w->degree : 1, sizeof *engine->out);
    engine->out_len = calloc(w->degree ? (size_t)w->degree : 1, sizeof *engine->out_len);
    engine->out_room = calloc(w->degree ? (size_t)w->degree : 1, sizeof *engine->out_room);
    engine->rank_at = malloc((size_t)w->placement->ranks * sizeof *engine->rank_at);
    POLKA_CHECK(engine->agents && engine->out && engine->out_len && engine->out_room &&
                    engine->rank_at,
                POLKA_ERR_MEM, "out of memory for the event engine");
    for (int r = 0; r < w->placement->ranks; r++) engine->rank_at[r] = -1;
    for (int q = 0; q < w->degree; q++) engine->rank_at[w->ranks[q]] = q;
    size_t most = 1;
    for (size_t a = 0; a < w->count; a++) {
        polka_async_agent *aa = &engine->agents[a];
        polka_agent *agent = &w->local[a];
        size_t slots = agent->degree ? agent->degree : 1;
        aa->agent = agent;
        agent->async = 1;
        aa->median = polka_clock_median(&engine->clock, agent->id);
        aa->heard = calloc(slots, sizeof *aa->heard);
        aa->version = calloc(slots, sizeof *aa->version);
        aa->heard_at = calloc(slots, sizeof *aa->heard_at);
        aa->scratch = malloc((agent->answer_block ? agent->answer_block : 1) * sizeof *aa->scratch);
        POLKA_CHECK(aa->heard && aa->version && aa->heard_at && aa->scratch, POLKA_ERR_MEM,
                    "out of memory for agent %zu's clock", agent->id);
        if (agent->degree > most) most = agent->degree;
        engine->bytes[0] = (double)agent->wire.bytes[0];
        engine->bytes[1] = (double)agent->wire.bytes[1];
    }
    engine->batch_room = most;
    engine->batch = malloc(most * sizeof *engine->batch);
    engine->batch_slots = malloc(most * sizeof *engine->batch_slots);
    POLKA_CHECK(engine->batch && engine->batch_slots, POLKA_ERR_MEM,
                "out of memory for the event engine");
    return POLKA_OK;
}

static void engine_free(polka_async_engine *engine) {
    for (size_t a = 0; engine->agents && a < engine->world->count; a++) {
        polka_async_agent *aa = &engine->agents[a];
        polka_inbox_free(&aa->inbox);
        free(aa->heard);
        free(aa->version);
        free(aa->heard_at);
        free(aa->scratch);
    }
    for (int q = 0; engine->out && q < engine->world->degree; q++) free(engine->out[q]);
    free(engine->agents);
    free(engine->out);
    free(engine->out_len);
    free(engine->out_room);
    free(engine->rank_at);
    free(engine->batch);
    free(engine->batch_slots);
    free(engine->recv);
    polka_clock_free(&engine->clock);
}

/* Collective: the samples every agent has learned from so far. */
static polka_status learned(const polka_async_engine *engine, double *samples) {
    const polka_async_world *w = engine->world;
    double mine = 0.0;
    for (size_t a = 0; a < w->count; a++) mine += w->local[a].counters.updates;
    mine *= (double)w->plan->learner.batch;
    return polka_net_allreduce(&mine, samples, 1, MPI_DOUBLE, MPI_SUM, w->comm,
                               "the count of the samples learned");
}

/* Collective: row `row` of the run, at virtual time `now`. */
static polka_status log_row(polka_async_engine *engine, size_t row, double now,
                            polka_sim_summary *summary, double *samples) {
    const polka_async_world *w = engine->world;
    for (size_t a = 0; a < w->count; a++) w->local[a].counters.clock = now;
    POLKA_CALL(learned(engine, samples));
    return w->log_step(w->context, row, *samples, summary);
}

static polka_status save_fn(void *context, size_t k, polka_state *state) {
    polka_async_engine *engine = context;
    return polka_async_save_agent(engine, &engine->agents[k], state);
}

static polka_status restore_fn(void *context, size_t k, const polka_state *state) {
    polka_async_engine *engine = context;
    return polka_async_restore_agent(engine, &engine->agents[k], state);
}

static const polka_driver_ops snapshot_ops = {.save_agent = save_fn, .restore_agent = restore_fn};

/* The run as the checkpoints see it: the driver's, with the engine's agents. */
static polka_driver snapshot_driver(polka_async_engine *engine) {
    polka_driver driver = *engine->world->driver;
    driver.ops = &snapshot_ops;
    driver.context = engine;
    return driver;
}

/* Collective, at an agreement point after the window ending at `now` and row `row`: the
 * checkpoint the ranks wished for; a stop's error says where it is. */
static polka_status keep(polka_async_engine *engine, int wish, double now, uint64_t windows,
                         size_t row, double horizon) {
    const polka_plan *plan = engine->world->plan;
    polka_driver driver = snapshot_driver(engine);
    polka_sim_point point = {.round = windows, .next_log = now, .rows = row};
    int signal = wish == POLKA_CKPT_STOP ? polka_ckpt_signal() : 0;
    if (signal) polka_ckpt_saving();
    POLKA_CALL(polka_ckpt_save(plan, &driver, &point, signal));
    if (wish != POLKA_CKPT_STOP) return POLKA_OK;
    char path[POLKA_PATH_LEN];
    polka_plan_checkpoint_path(plan, path, sizeof path);
    return polka_error_set(POLKA_STOPPED,
                           "stopped by %s at virtual time %g of %g; checkpoint in '%s' (go on with "
                           "polka run --resume %s)",
                           signal ? polka_stop_signal_name(signal) : "a signal (on another rank)",
                           now, horizon, path, path);
}

/* Collective, --resume: the agents within their updates, their messages, the rows so far;
 * where the loop goes on (the window's end, the windows and rows done). */
static polka_status resume(polka_async_engine *engine, double horizon, size_t rows, double *now,
                           uint64_t *windows, size_t *row) {
    polka_driver driver = snapshot_driver(engine);
    polka_sim_point from = {0};
    POLKA_CALL(polka_ckpt_resume(engine->world->plan, &driver, &from));
    POLKA_CHECK(isfinite(from.next_log) && from.next_log > 0 && from.next_log < horizon &&
                    from.rows < rows,
                POLKA_ERR_FORMAT,
                "cannot resume from '%s': its virtual time %g and rows %llu do not fall within "
                "this run's horizon %g and %zu rows (damaged, or other async.* settings)",
                engine->world->plan->run.resume, from.next_log, (unsigned long long)from.rows,
                horizon, rows);
    *now = from.next_log;
    *windows = from.round;
    *row = from.rows;
    return POLKA_OK;
}

/* Every agent's first update starts at virtual time 0. */
static polka_status start(polka_async_engine *engine) {
    polka_status status = POLKA_OK;
    for (size_t a = 0; a < engine->world->count && status == POLKA_OK; a++)
        status = polka_async_start_update(engine, &engine->agents[a], 0.0, 0);
    return status;
}

/* Collective: one window [.., until) (the last: [.., until]): the agents' events, then the
 * messages across ranks. */
static polka_status window(polka_async_engine *engine, double until, int last, double *crossed,
                           polka_status status) {
    for (size_t a = 0; a < engine->world->count && status == POLKA_OK; a++)
        status = polka_async_play(engine, &engine->agents[a], until, last);
    polka_status swapped = swap_messages(engine, crossed);
    return status != POLKA_OK ? status : swapped;
}

/* Log rows: every `interval` of virtual time, the last at the horizon (none just before it). */
static size_t row_count(double horizon, double interval) {
    size_t rows = (size_t)ceil(horizon / interval);
    if (rows > 1 && (double)(rows - 1) * interval >= horizon * (1.0 - 1e-9)) rows--;
    return rows ? rows : 1;
}

/* Windows between agreements: a failed rank goes on swapping (sending nothing) until then. */
#define AGREE_EVERY 32

static polka_status loop(polka_async_engine *engine, size_t n_train, const polka_sim_hooks *hooks,
                         polka_sim_summary *summary, double *crossed) {
    const polka_async_world *w = engine->world;
    const polka_plan *plan = w->plan;
    double horizon = horizon_of(plan, n_train, w->agents);
    double interval = log_interval_of(plan, w->agents);
    double lookahead = plan->settings.latency, now = 0.0, samples = 0.0;
    POLKA_CALL(
        polka_async_check_work(plan, w->agents, horizon, interval)); /* alike on every rank */
    size_t rows = row_count(horizon, interval), row = 0;
    uint64_t windows = 0;
    double began = polka_now(), last_save = began;
    engine->horizon = horizon;
    summary->rounds = rows; /* the last row scores the whole test set */
    summary->loop_start = began;
    if (plan->run.resume[0])
        POLKA_CALL(polka_net_agree(w->comm, resume(engine, horizon, rows, &now, &windows, &row)));
    else
        POLKA_CALL(polka_net_agree(w->comm, start(engine)));
    polka_plan_warn_idle(plan, hooks);
    polka_status status = POLKA_OK;
    while (now < horizon) {
        double next_log = row + 1 < rows ? (double)(row + 1) * interval : horizon;
        double until = fmin(now + lookahead, next_log);
        polka_status played = window(engine, until, until >= horizon, crossed, status);
        if (status == POLKA_OK) status = played;
        now = until;
        int logs = now >= next_log;
        if (!logs && ++windows % AGREE_EVERY != 0) continue;
        windows += logs;
        if (!logs) /* between the rows: where the virtual time is (the display throttles it) */
            polka_plan_report_clock(hooks, row, rows, samples, began, summary, now, horizon);
        int wish = polka_async_wish(plan, logs, row + (size_t)logs, rows, last_save);
        POLKA_CALL(polka_net_agree_wish(w->comm, status, &wish));
        if (logs) {
            double log_began = polka_now();
            POLKA_CALL(log_row(engine, ++row, now, summary, &samples));
            summary->log_seconds += polka_now() - log_began;
            polka_plan_report_clock(hooks, row, rows, samples, began, summary, now, horizon);
        }
        if (wish == POLKA_CKPT_NONE) continue;
        POLKA_CALL(keep(engine, wish, now, windows, row, horizon));
        last_save = polka_now();
    }
    summary->samples = samples;
    summary->seconds = polka_now() - began;
    polka_plan_rates(summary);
    return POLKA_OK;
}

polka_status polka_async_run(const polka_async_world *world, size_t n_train,
                             const polka_sim_hooks *hooks, polka_sim_summary *summary) {
    polka_async_engine engine;
    double crossed = 0.0;
    polka_status status = polka_net_agree(world->comm, engine_create(&engine, world));
    if (status == POLKA_OK) status = loop(&engine, n_train, hooks, summary, &crossed);
    if (world->crossed) *world->crossed += crossed;
    engine_free(&engine);
    return status;
}
