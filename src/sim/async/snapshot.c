/*
 * Checkpoints of the event engine: every agent is saved within its current update, with its
 * messages still to come, so a resumed run (on any number of ranks: the messages go with the
 * agent they are for) plays the same events. Taken only where the ranks agree, after a
 * window's swap, when no message is between ranks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polka/stop.h"
#include "sim/async/snapshot_impl.h"
#include "sim/checkpoint/resume_impl.h"

/* Doubles of a saved message's header: arrival, sent, from, seq, phase, want, version. */
#define SAVED_HEADER 7

static polka_status save_inbox(const polka_async_engine *engine, const polka_async_agent *aa,
                               polka_state *state) {
    const polka_inbox *inbox = &aa->inbox;
    size_t payload = 0;
    for (size_t m = 0; m < inbox->count; m++) payload += engine->doubles[inbox->items[m].phase];
    double *head = malloc((inbox->count * SAVED_HEADER + 1) * sizeof *head);
    double *body = malloc((payload + 1) * sizeof *body);
    POLKA_CHECK(head && body, POLKA_ERR_MEM, "out of memory for agent %zu's messages",
                aa->agent->id);
    for (size_t m = 0, at = 0; m < inbox->count; m++) {
        const polka_message *e = &inbox->items[m];
        double h[SAVED_HEADER] = {e->arrival,        e->sent,          (double)e->from,
                                  (double)e->seq,    (double)e->phase, (double)e->want,
                                  (double)e->version};
        memcpy(head + m * SAVED_HEADER, h, sizeof h);
        memcpy(body + at, e->payload, engine->doubles[e->phase] * sizeof *body);
        at += engine->doubles[e->phase];
    }
    POLKA_CALL(polka_state_put_owned(state, "async.inbox", POLKA_STATE_F64, head,
                                     inbox->count * SAVED_HEADER));
    return polka_state_put_owned(state, "async.inbox_payload", POLKA_STATE_F64, body, payload);
}

/* The fabric's blocks of the current update: what arrived and is not used yet. */
static polka_status save_fabric(const polka_agent *agent, polka_state *state) {
    size_t slots = agent->degree ? agent->degree : 1;
    double *heard = malloc(slots * sizeof *heard);
    POLKA_CHECK_ALLOC(heard);
    for (size_t s = 0; s < slots; s++) heard[s] = s < agent->degree ? agent->in_point[s] : 0;
    POLKA_CALL(polka_state_put_owned(state, "async.in_point", POLKA_STATE_F64, heard, slots));
    POLKA_CALL(polka_state_put_ref(state, "async.received", POLKA_STATE_F64, agent->received,
                                   slots * agent->send_block));
    if (agent->answer_block == 0) return POLKA_OK;
    return polka_state_put_ref(state, "async.answered", POLKA_STATE_F64, agent->answered,
                               slots * agent->answer_block);
}

polka_status polka_async_save_agent(const polka_async_engine *engine, const polka_async_agent *aa,
                                    polka_state *state) {
    const polka_agent *agent = aa->agent;
    size_t slots = agent->degree ? agent->degree : 1;
    POLKA_CALL(polka_ckpt_agent_save(agent, state));
    POLKA_CALL(polka_state_put_u64(state, "async.update", aa->update));
    POLKA_CALL(polka_state_put_f64(state, "async.commit", aa->commit));
    POLKA_CALL(polka_state_put_u64(state, "async.waiting", (uint64_t)aa->waiting));
    POLKA_CALL(polka_state_put_ref(state, "async.heard", POLKA_STATE_U64, aa->heard, slots));
    POLKA_CALL(polka_state_put_ref(state, "async.version", POLKA_STATE_U64, aa->version, slots));
    POLKA_CALL(polka_state_put_ref(state, "async.heard_at", POLKA_STATE_F64, aa->heard_at, slots));
    POLKA_CALL(save_fabric(agent, state));
    return save_inbox(engine, aa, state);
}

static polka_status bad(const polka_agent *agent, const char *what) {
    return polka_error_set(POLKA_ERR_FORMAT, "agent %zu's %s (damaged)", agent->id, what);
}

/* A saved message: its sender a neighbour, its phase one there is, its times finite. */
static polka_status check_message(const polka_agent *agent, const double *h) {
    int ok = isfinite(h[0]) && isfinite(h[1]) && h[1] <= h[0] && (h[4] == 0 || h[4] == 1) &&
             (h[5] == 0 || h[5] == 1) && h[2] >= 0 && h[3] >= 0 && h[6] >= 0 &&
             h[3] == floor(h[3]) && h[6] == floor(h[6]) && h[2] < (double)((uint64_t)1 << 53) &&
             polka_agent_slot_of(agent, (size_t)h[2]) < agent->degree;
    return ok ? POLKA_OK : bad(agent, "messages in flight are not messages from its neighbours");
}

static polka_status restore_inbox(const polka_async_engine *engine, polka_async_agent *aa,
                                  const polka_state *state) {
    size_t heads = 0, payload = 0, used = 0;
    POLKA_CALL(polka_state_size(state, "async.inbox", &heads));
    POLKA_CALL(polka_state_size(state, "async.inbox_payload", &payload));
    if (heads % SAVED_HEADER != 0) return bad(aa->agent, "messages in flight");
    double *head = malloc((heads + 1) * sizeof *head), *body = malloc((payload + 1) * sizeof *body);
    polka_status status = head && body ? POLKA_OK : polka_error_set(POLKA_ERR_MEM, "out of memory");
    if (status == POLKA_OK)
        status = polka_state_get(state, "async.inbox", POLKA_STATE_F64, head, heads);
    if (status == POLKA_OK)
        status = polka_state_get(state, "async.inbox_payload", POLKA_STATE_F64, body, payload);
    for (size_t m = 0; m < heads / SAVED_HEADER && status == POLKA_OK; m++) {
        const double *h = head + m * SAVED_HEADER;
        status = check_message(aa->agent, h);
        size_t doubles = status == POLKA_OK ? engine->doubles[(int)h[4]] : 0;
        if (status == POLKA_OK && used + doubles > payload)
            status = bad(aa->agent, "messages in flight");
        polka_message e = {.arrival = h[0],
                           .sent = h[1],
                           .from = (uint64_t)h[2],
                           .seq = (uint64_t)h[3],
                           .phase = (int)h[4],
                           .want = (int)h[5],
                           .version = (uint64_t)h[6]};
        if (status != POLKA_OK) break;
        status = polka_inbox_push_copy(&aa->inbox, &e, body + used, doubles);
        used += doubles;
    }
    if (status == POLKA_OK && used != payload) status = bad(aa->agent, "messages in flight");
    free(head);
    free(body);
    return status;
}

static polka_status restore_fabric(polka_agent *agent, const polka_state *state) {
    size_t slots = agent->degree ? agent->degree : 1;
    double *heard = malloc(slots * sizeof *heard);
    POLKA_CHECK_ALLOC(heard);
    polka_status status = polka_state_get(state, "async.in_point", POLKA_STATE_F64, heard, slots);
    for (size_t s = 0; s < agent->degree && status == POLKA_OK; s++) {
        if (heard[s] != 0 && heard[s] != 1) status = bad(agent, "blocks heard");
        agent->in_point[s] = (unsigned char)(heard[s] == 1);
    }
    free(heard);
    POLKA_CALL(status);
    POLKA_CALL(polka_state_get(state, "async.received", POLKA_STATE_F64, agent->received,
                               slots * agent->send_block));
    if (agent->answer_block == 0) return POLKA_OK;
    return polka_state_get(state, "async.answered", POLKA_STATE_F64, agent->answered,
                           slots * agent->answer_block);
}

polka_status polka_async_restore_agent(polka_async_engine *engine, polka_async_agent *aa,
                                       const polka_state *state) {
    polka_agent *agent = aa->agent;
    size_t slots = agent->degree ? agent->degree : 1;
    uint64_t update = 0, waiting = 0;
    POLKA_CALL(polka_state_get_u64(state, "async.update", &update));
    POLKA_CALL(polka_state_get_f64(state, "async.commit", &aa->commit));
    POLKA_CALL(polka_state_get_u64(state, "async.waiting", &waiting));
    if (waiting > 1 || !(aa->commit >= 0) || isnan(aa->commit)) return bad(agent, "clock");
    aa->update = update;
    aa->waiting = (int)waiting;
    agent->round = update; /* the update's links: what the method's restore needs of them */
    agent->this_round = polka_fault_agent_state(agent->faults, update, agent->id);
    POLKA_CALL(polka_ckpt_agent_restore(agent, state));
    POLKA_CALL(polka_state_get(state, "async.heard", POLKA_STATE_U64, aa->heard, slots));
    POLKA_CALL(polka_state_get(state, "async.version", POLKA_STATE_U64, aa->version, slots));
    POLKA_CALL(polka_state_get(state, "async.heard_at", POLKA_STATE_F64, aa->heard_at, slots));
    POLKA_CALL(restore_fabric(agent, state));
    return restore_inbox(engine, aa, state);
}

int polka_async_wish(const polka_plan *plan, int at_row, size_t row, size_t rows,
                     double last_save) {
    if (row >= rows) return POLKA_CKPT_NONE; /* the run ends anyway */
    if (polka_stop_signal()) return POLKA_CKPT_STOP;
    size_t every = plan->run.checkpoint_every;
    if (at_row && every > 0 && row % every == 0) return POLKA_CKPT_SAVE;
    double seconds = plan->run.checkpoint_seconds;
    if (seconds > 0 && polka_now() - last_save >= seconds) return POLKA_CKPT_SAVE;
    return POLKA_CKPT_NONE;
}
