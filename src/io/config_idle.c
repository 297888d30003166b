/* Keys set away from their default that this run does not read (config.h): a knob of a kind
 * (keys.h's owner, "method dkla, coke") when the key that chooses the kind names another. */
#include <string.h>

#include "polka/config.h"

/* The key that chooses each kind an owner names. */
static const struct {
    const char *kind, *key;
} kind_keys[] = {{"method", "net.method"},  {"graph", "net.graph"},
                 {"source", "data.source"}, {"split", "data.split"},
                 {"loss", "learner.loss"},  {"control", "learner.control"},
                 {"engine", "async.engine"}};

static const char *key_of_kind(const char *kind, size_t len) {
    for (size_t k = 0; k < sizeof kind_keys / sizeof *kind_keys; k++)
        if (strlen(kind_keys[k].kind) == len && strncmp(kind_keys[k].kind, kind, len) == 0)
            return kind_keys[k].key;
    return NULL;
}

/* Whether `value` matches one pattern of `len` characters: a last '*' stands for any end
 * ("nbsgd-*"), a first one for any start ("*-project"). */
static int matches(const char *pattern, size_t len, const char *value) {
    size_t n = strlen(value);
    if (len > 0 && pattern[len - 1] == '*') return strncmp(pattern, value, len - 1) == 0;
    if (len > 0 && pattern[0] == '*')
        return n >= len - 1 && strncmp(pattern + 1, value + n - (len - 1), len - 1) == 0;
    return n == len && strncmp(pattern, value, len) == 0;
}

/* Whether `value` is one of the owner's kinds: "v1, v2, ...". */
static int names_value(const char *list, const char *value) {
    while (*list) {
        size_t len = strcspn(list, ",");
        if (matches(list, len, value)) return 1;
        list += len;
        while (*list == ',' || *list == ' ') list++;
    }
    return 0;
}

static int is_default(const polka_config *config, const polka_config *defaults,
                      const polka_config_key *key) {
    const char *a = (const char *)config + key->offset, *b = (const char *)defaults + key->offset;
    if (key->type == POLKA_KEY_STRING) return strncmp(a, b, key->size) == 0;
    return memcmp(a, b, key->size) == 0;
}

size_t polka_config_idle_keys(const polka_config *config, polka_config_idle *idle, size_t max) {
    static polka_config defaults; /* 40 kB: not on the stack */
    polka_config_defaults(&defaults);
    size_t count = 0, keys = 0;
    const polka_config_key *table = polka_config_keys(&keys);
    for (size_t k = 0; k < keys; k++) {
        const polka_config_key *key = &table[k];
        size_t kind_len = strcspn(key->owner, " ");
        const char *chooser = key_of_kind(key->owner, kind_len);
        if (chooser == NULL || key->owner[kind_len] != ' ' || is_default(config, &defaults, key))
            continue;
        const polka_config_key *choice = polka_config_find(chooser);
        const char *value = (const char *)config + choice->offset;
        if (names_value(key->owner + kind_len + 1, value)) continue;
        if (count < max) idle[count] = (polka_config_idle){.key = key, .chooser = choice};
        count++;
    }
    return count;
}
