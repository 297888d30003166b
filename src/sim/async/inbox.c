/* An agent's messages still to come: a binary min-heap by (arrival, from, phase, seq), a total
 * order (one block per sender and update, one answer per sender and block). */
#include <stdlib.h>
#include <string.h>

#include "sim/async/async_impl.h"

static int before(const polka_message *a, const polka_message *b) {
    if (a->arrival != b->arrival) return a->arrival < b->arrival;
    if (a->from != b->from) return a->from < b->from;
    if (a->phase != b->phase) return a->phase < b->phase;
    return a->seq < b->seq;
}

static void swap(polka_message *a, polka_message *b) {
    polka_message t = *a;
    *a = *b;
    *b = t;
}

polka_status polka_inbox_push(polka_inbox *inbox, const polka_message *message) {
    if (inbox->count == inbox->room) {
        size_t room = inbox->room ? 2 * inbox->room : 8;
        polka_message *grown = realloc(inbox->items, room * sizeof *grown);
        POLKA_CHECK(grown, POLKA_ERR_MEM, "out of memory for the messages in flight");
        inbox->items = grown;
        inbox->room = room;
    }
    size_t at = inbox->count++;
    inbox->items[at] = *message;
    while (at > 0 && before(&inbox->items[at], &inbox->items[(at - 1) / 2])) {
        swap(&inbox->items[at], &inbox->items[(at - 1) / 2]);
        at = (at - 1) / 2;
    }
    return POLKA_OK;
}

polka_status polka_inbox_push_copy(polka_inbox *inbox, const polka_message *message,
                                   const double *payload, size_t doubles) {
    polka_message copy = *message;
    copy.payload = malloc((doubles ? doubles : 1) * sizeof *copy.payload);
    POLKA_CHECK(copy.payload, POLKA_ERR_MEM, "out of memory for the messages in flight");
    memcpy(copy.payload, payload, doubles * sizeof *copy.payload);
    polka_status status = polka_inbox_push(inbox, &copy);
    if (status != POLKA_OK) free(copy.payload);
    return status;
}

const polka_message *polka_inbox_top(const polka_inbox *inbox) {
    return inbox->count ? &inbox->items[0] : NULL;
}

void polka_inbox_pop(polka_inbox *inbox, polka_message *out) {
    polka_message *h = inbox->items;
    *out = h[0];
    h[0] = h[--inbox->count];
    for (size_t at = 0;;) {
        size_t least = at, left = 2 * at + 1, right = left + 1;
        if (left < inbox->count && before(&h[left], &h[least])) least = left;
        if (right < inbox->count && before(&h[right], &h[least])) least = right;
        if (least == at) return;
        swap(&h[at], &h[least]);
        at = least;
    }
}

void polka_inbox_free(polka_inbox *inbox) {
    for (size_t m = 0; m < inbox->count; m++) free(inbox->items[m].payload);
    free(inbox->items);
    *inbox = (polka_inbox){0};
}
