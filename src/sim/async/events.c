/*
 * One agent's events in virtual time (async_impl.h): the end of its update (the method's step,
 * then the next update's start: links, batch, block out) and the messages that reach it (a
 * block: kept, or answered at once by a two-phase method; an answer: handed to the method).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/async/events_impl.h"

/* A message from agent `from` to agent `to` leaves at `now` (the engine delivers it). */
static polka_status send(polka_async_engine *engine, const polka_async_agent *aa, size_t to,
                         uint64_t seq, int phase, int want, const double *payload, double now) {
    size_t from = aa->agent->id;
    double latency =
        polka_clock_latency(&engine->clock, from, to, seq, phase, engine->bytes[phase]);
    polka_message message = {.arrival = now + latency,
                             .sent = now,
                             .from = from,
                             .seq = seq,
                             .phase = phase,
                             .want = want,
                             .version = aa->update};
    return polka_async_deliver(engine, to, &message, payload);
}

polka_status polka_async_start_update(polka_async_engine *engine, polka_async_agent *aa, double now,
                                      uint64_t k) {
    polka_agent *agent = aa->agent;
    aa->update = k;
    aa->commit = now + polka_clock_update_time(&engine->clock, agent->id, aa->median, k);
    polka_agent_links_async(agent, k);
    POLKA_CALL(polka_agent_prepare(agent, engine->world->stream));
    POLKA_CALL(polka_agent_settle_sends(agent));
    for (size_t s = 0; s < agent->degree; s++)
        if (agent->out_point[s])
            POLKA_CALL(send(engine, aa, agent->neighbors[s], k, 0, agent->in_value[s],
                            agent->sent_wire, now));
    return POLKA_OK;
}

/* async.staleness = S (bounded staleness, as a stale synchronous parallel clock): update k ends
 * only when every neighbour is known to have made k + 1 − S updates (its block of that update,
 * or an answer from that model, arrived). The agent furthest behind never waits, so nobody
 * waits forever. */
static int ready(const polka_async_engine *engine, const polka_async_agent *aa) {
    size_t staleness = engine->staleness;
    if (staleness == 0 || aa->update + 2 <= staleness) return 1;
    uint64_t need = aa->update + 2 - staleness; /* version = 1 + the updates made */
    for (size_t s = 0; s < aa->agent->degree; s++)
        if (aa->version[s] < need) return 0;
    return 1;
}

/* The ages in virtual time of the newest information of each neighbour heard from. */
static void count_ages(polka_async_agent *aa, double now) {
    polka_agent_counters *counters = &aa->agent->counters;
    for (size_t s = 0; s < aa->agent->degree; s++) {
        if (aa->heard[s] == 0) continue;
        counters->info_age_sum += now - aa->heard_at[s];
        counters->info_age_count += 1.0;
    }
}

/* Update k ends at `now`: the method's step, then update k + 1 starts. */
static polka_status finish_update(polka_async_engine *engine, polka_async_agent *aa, double now) {
    polka_agent *agent = aa->agent;
    aa->waiting = 0;
    POLKA_CALL(polka_agent_update(agent));
    if (agent->this_round.learns) count_ages(aa, now);
    memset(agent->in_point, 0, agent->degree ? agent->degree : 1);
    agent->points_in = 0;
    if (now >= engine->horizon) { /* the run ends: no update starts (its prepare may step) */
        aa->commit = INFINITY;
        return POLKA_OK;
    }
    return polka_async_start_update(engine, aa, now, aa->update + 1);
}

/* One-phase methods: a neighbour's block, kept when it is newer than the one held. */
static void take_block(polka_async_agent *aa, size_t s, const polka_message *m) {
    if (m->seq + 1 <= aa->heard[s]) return; /* overtaken on the way */
    polka_agent_take_block(aa->agent, s, m->payload);
    aa->agent->in_point[s] = 1;
    aa->heard[s] = m->seq + 1;
    aa->heard_at[s] = m->sent;
}

/* How many updates the message's sender had made: the most known of it. */
static void note_version(polka_async_agent *aa, size_t slot, const polka_message *m) {
    if (m->version + 1 > aa->version[slot]) aa->version[slot] = m->version + 1;
}

static int in_batch(const polka_message *batch, size_t count, uint64_t from) {
    for (size_t m = 0; m < count; m++)
        if (batch[m].from == from) return 1;
    return 0;
}

/* Two-phase methods: the blocks arriving at the same instant, answered together (as a lockstep
 * round answers its neighbours' blocks) with the model of that instant. */
static polka_status answer_blocks(polka_async_engine *engine, polka_async_agent *aa,
                                  polka_message *first, size_t first_slot) {
    polka_agent *agent = aa->agent;
    size_t count = 0;
    polka_message *batch = engine->batch;
    size_t *slots = engine->batch_slots;
    slots[count] = first_slot;
    batch[count++] = *first;
    const polka_message *next = polka_inbox_top(&aa->inbox);
    while (next && next->arrival == first->arrival && next->phase == 0 &&
           count < engine->batch_room && !in_batch(batch, count, next->from)) {
        polka_inbox_pop(&aa->inbox, &batch[count]);
        slots[count] = polka_agent_slot_of(agent, batch[count].from);
        note_version(aa, slots[count], &batch[count]);
        count++;
        next = polka_inbox_top(&aa->inbox);
    }
    polka_status status = POLKA_OK;
    if (agent->this_round.online) { /* an offline agent answers nothing */
        for (size_t m = 0; m < count; m++) {
            size_t s = slots[m];
            polka_agent_take_block(agent, s, batch[m].payload);
            agent->in_point[s] = 1;
            agent->points_in++;
        }
        status = polka_agent_answer(agent);
        size_t doubles = agent->wire.doubles[1];
        for (size_t m = 0; m < count && status == POLKA_OK; m++) {
            size_t s = slots[m];
            agent->in_point[s] = 0;
            if (!batch[m].want) continue;
            agent->counters.bytes_sent += engine->bytes[1];
            status = send(engine, aa, batch[m].from, batch[m].seq, 1, 1,
                          agent->answers_wire + s * doubles, first->arrival);
        }
        agent->points_in = 0;
    }
    for (size_t m = 1; m < count; m++) free(batch[m].payload); /* the first is the caller's */
    return status;
}

/* Two-phase methods: a neighbour's answer to the agent's block of update m->seq. */
static void take_answer(polka_async_agent *aa, size_t s, const polka_message *m) {
    polka_agent *agent = aa->agent;
    int current = m->seq == aa->update;
    double *values = current ? agent->answered + s * agent->answer_block : aa->scratch;
    polka_wire_decode(&agent->wire, 1, m->payload, values);
    agent->method->answer_arrived(agent, s, m->seq, values);
    if (m->seq + 1 > aa->heard[s]) {
        aa->heard[s] = m->seq + 1;
        aa->heard_at[s] = m->sent;
    }
}

static polka_status take_message(polka_async_engine *engine, polka_async_agent *aa,
                                 polka_message *m) {
    size_t slot = polka_agent_slot_of(aa->agent, m->from);
    note_version(aa, slot, m);
    if (m->phase == 1) {
        take_answer(aa, slot, m);
        return POLKA_OK;
    }
    if (engine->two_phase) return answer_blocks(engine, aa, m, slot);
    take_block(aa, slot, m);
    return POLKA_OK;
}

/* An event at `time` belongs to the window that ends at `until`. */
static int due(double time, double until, int last) {
    return last ? time <= until : time < until;
}

polka_status polka_async_play(polka_async_engine *engine, polka_async_agent *aa, double until,
                              int last) {
    for (;;) {
        const polka_message *top = polka_inbox_top(&aa->inbox);
        if (top && due(top->arrival, until, last) && (aa->waiting || top->arrival <= aa->commit)) {
            polka_message m;
            polka_inbox_pop(&aa->inbox, &m);
            polka_status status = take_message(engine, aa, &m);
            free(m.payload);
            POLKA_CALL(status);
            if (aa->waiting && ready(engine, aa)) POLKA_CALL(finish_update(engine, aa, m.arrival));
            continue;
        }
        if (aa->waiting || !due(aa->commit, until, last)) return POLKA_OK;
        if (ready(engine, aa))
            POLKA_CALL(finish_update(engine, aa, aa->commit));
        else
            aa->waiting = 1;
    }
}
