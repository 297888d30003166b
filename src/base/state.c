/* A named set of arrays (state.h): a growing list of entries, packed as
 * [u64 entries] then per entry [u64 name length][name][u64 type][u64 count][values]. */
#include "polka/state.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *name;
    polka_state_type type;
    size_t count;
    void *data;
    int borrowed; /* data belongs to the caller (polka_state_put_ref) */
} state_entry;

struct polka_state_s {
    state_entry *entries;
    size_t n, cap;
};

static size_t type_size(polka_state_type type) {
    return type == POLKA_STATE_U8 ? 1 : 8;
}

const char *polka_state_type_name(polka_state_type type) {
    return type == POLKA_STATE_F64   ? "float64"
           : type == POLKA_STATE_U64 ? "uint64"
           : type == POLKA_STATE_U8  ? "uint8"
                                     : "?";
}

polka_status polka_state_create(polka_state **out) {
    *out = calloc(1, sizeof **out);
    POLKA_CHECK_ALLOC(*out);
    return POLKA_OK;
}

void polka_state_free(polka_state **state) {
    if (state == NULL || *state == NULL) return;
    for (size_t k = 0; k < (*state)->n; k++) {
        free((*state)->entries[k].name);
        if (!(*state)->entries[k].borrowed) free((*state)->entries[k].data);
    }
    free((*state)->entries);
    free(*state);
    *state = NULL;
}

static const state_entry *find(const polka_state *state, const char *name) {
    for (size_t k = 0; k < state->n; k++)
        if (strcmp(state->entries[k].name, name) == 0) return &state->entries[k];
    return NULL;
}

/* Adds an entry whose data is `data` (taken when owned, else borrowed). */
static polka_status add_entry(polka_state *state, const char *name, polka_state_type type,
                              void *data, size_t count, int borrowed) {
    POLKA_CHECK(find(state, name) == NULL, POLKA_ERR_ARG, "state entry '%s' saved twice", name);
    POLKA_CHECK((unsigned)type <= POLKA_STATE_U8, POLKA_ERR_ARG, "state entry '%s': bad type",
                name);
    if (state->n == state->cap) {
        size_t cap = state->cap ? 2 * state->cap : 16;
        state_entry *entries = realloc(state->entries, cap * sizeof *entries);
        POLKA_CHECK_ALLOC(entries);
        state->entries = entries;
        state->cap = cap;
    }
    char *copy = malloc(strlen(name) + 1);
    POLKA_CHECK(copy != NULL, POLKA_ERR_MEM, "out of memory for state entry '%s'", name);
    strcpy(copy, name);
    state->entries[state->n++] = (state_entry){
        .name = copy, .type = type, .count = count, .data = data, .borrowed = borrowed};
    return POLKA_OK;
}

polka_status polka_state_put(polka_state *state, const char *name, polka_state_type type,
                             const void *data, size_t count) {
    size_t bytes = count * type_size(type);
    void *copy = malloc(bytes ? bytes : 1);
    POLKA_CHECK(copy != NULL, POLKA_ERR_MEM, "out of memory for state entry '%s'", name);
    if (bytes) memcpy(copy, data, bytes);
    polka_status status = add_entry(state, name, type, copy, count, 0);
    if (status != POLKA_OK) free(copy);
    return status;
}

polka_status polka_state_put_ref(polka_state *state, const char *name, polka_state_type type,
                                 const void *data, size_t count) {
    return add_entry(state, name, type, (void *)data, count, 1);
}

polka_status polka_state_put_owned(polka_state *state, const char *name, polka_state_type type,
                                   void *data, size_t count) {
    polka_status status = add_entry(state, name, type, data, count, 0);
    if (status != POLKA_OK) free(data);
    return status;
}

polka_status polka_state_put_f64(polka_state *state, const char *name, double value) {
    return polka_state_put(state, name, POLKA_STATE_F64, &value, 1);
}

polka_status polka_state_put_u64(polka_state *state, const char *name, uint64_t value) {
    return polka_state_put(state, name, POLKA_STATE_U64, &value, 1);
}

size_t polka_state_count(const polka_state *state) {
    return state->n;
}

void polka_state_entry(const polka_state *state, size_t k, const char **name,
                       polka_state_type *type, size_t *count, const void **data) {
    const state_entry *entry = &state->entries[k];
    *name = entry->name;
    *type = entry->type;
    *count = entry->count;
    *data = entry->data;
}

polka_status polka_state_size(const polka_state *state, const char *name, size_t *count) {
    const state_entry *entry = find(state, name);
    POLKA_CHECK(entry != NULL, POLKA_ERR_FORMAT, "the checkpoint has no '%s'", name);
    *count = entry->count;
    return POLKA_OK;
}

polka_status polka_state_get(const polka_state *state, const char *name, polka_state_type type,
                             void *data, size_t count) {
    const state_entry *entry = find(state, name);
    POLKA_CHECK(entry != NULL, POLKA_ERR_FORMAT, "the checkpoint has no '%s'", name);
    POLKA_CHECK(entry->type == type, POLKA_ERR_FORMAT,
                "the checkpoint's '%s' holds %s values, this run needs %s", name,
                polka_state_type_name(entry->type), polka_state_type_name(type));
    POLKA_CHECK(entry->count == count, POLKA_ERR_FORMAT,
                "the checkpoint's '%s' has %zu values, this run needs %zu", name, entry->count,
                count);
    if (count) memcpy(data, entry->data, count * type_size(type));
    return POLKA_OK;
}

polka_status polka_state_get_f64(const polka_state *state, const char *name, double *value) {
    return polka_state_get(state, name, POLKA_STATE_F64, value, 1);
}

polka_status polka_state_get_u64(const polka_state *state, const char *name, uint64_t *value) {
    return polka_state_get(state, name, POLKA_STATE_U64, value, 1);
}

static void put_word(unsigned char **at, uint64_t word) {
    memcpy(*at, &word, 8);
    *at += 8;
}

size_t polka_state_packed_size(const polka_state *state) {
    size_t total = 8;
    for (size_t k = 0; k < state->n; k++)
        total += 24 + strlen(state->entries[k].name) +
                 state->entries[k].count * type_size(state->entries[k].type);
    return total;
}

void polka_state_pack_into(const polka_state *state, unsigned char *out) {
    unsigned char *at = out;
    put_word(&at, state->n);
    for (size_t k = 0; k < state->n; k++) {
        const state_entry *entry = &state->entries[k];
        size_t length = strlen(entry->name), data = entry->count * type_size(entry->type);
        put_word(&at, length);
        memcpy(at, entry->name, length);
        at += length;
        put_word(&at, entry->type);
        put_word(&at, entry->count);
        if (data) memcpy(at, entry->data, data);
        at += data;
    }
}

polka_status polka_state_pack(const polka_state *state, unsigned char **bytes, size_t *size) {
    size_t total = polka_state_packed_size(state);
    unsigned char *out = malloc(total);
    POLKA_CHECK(out != NULL, POLKA_ERR_MEM, "out of memory for a %zu-byte state", total);
    polka_state_pack_into(state, out);
    *bytes = out;
    *size = total;
    return POLKA_OK;
}

/* Reads a word at *at if it fits before end. */
static int get_word(const unsigned char **at, const unsigned char *end, uint64_t *word) {
    if ((size_t)(end - *at) < 8) return 0;
    memcpy(word, *at, 8);
    *at += 8;
    return 1;
}

static polka_status unpack_entry(polka_state *state, const unsigned char **at,
                                 const unsigned char *end) {
    uint64_t length = 0, type = 0, count = 0;
    char name[256];
    int ok = get_word(at, end, &length) && length < sizeof name && length <= (size_t)(end - *at);
    if (ok) {
        memcpy(name, *at, length);
        name[length] = '\0';
        *at += length;
    }
    ok = ok && get_word(at, end, &type) && type <= POLKA_STATE_U8 && get_word(at, end, &count) &&
         count <= (size_t)(end - *at) / type_size((polka_state_type)type);
    POLKA_CHECK(ok, POLKA_ERR_FORMAT, "a state block is damaged");
    POLKA_CALL(polka_state_put(state, name, (polka_state_type)type, *at, count));
    *at += count * type_size((polka_state_type)type);
    return POLKA_OK;
}

polka_status polka_state_unpack(const unsigned char *bytes, size_t size, polka_state **out) {
    const unsigned char *at = bytes, *end = bytes + size;
    uint64_t n = 0;
    POLKA_CHECK(get_word(&at, end, &n) && n <= size / 24, POLKA_ERR_FORMAT,
                "a state block is damaged");
    POLKA_CALL(polka_state_create(out));
    polka_status status = POLKA_OK;
    for (uint64_t k = 0; k < n && status == POLKA_OK; k++) status = unpack_entry(*out, &at, end);
    if (status == POLKA_OK && at != end)
        status = polka_error_set(POLKA_ERR_FORMAT, "a state block is damaged");
    if (status != POLKA_OK) polka_state_free(out);
    return status;
}
