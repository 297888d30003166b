/* The tables of data sources and splits: one line per entry. */
#include "sim/stream/source_impl.h"

#include <stdio.h>

static const polka_source_ops *const sources[POLKA_SOURCE_COUNT] = {
    [POLKA_SOURCE_MULTIDIST] = &polka_source_multidist,
    [POLKA_SOURCE_CHECKERBOARD] = &polka_source_checkerboard,
    [POLKA_SOURCE_SINC] = &polka_source_sinc,
    [POLKA_SOURCE_FRIEDMAN] = &polka_source_friedman,
    [POLKA_SOURCE_FILE] = &polka_source_file,
};

static const polka_split_ops *const splits[POLKA_SPLIT_COUNT] = {
    [POLKA_SPLIT_IID] = &polka_split_iid,
    [POLKA_SPLIT_SKEWED] = &polka_split_skewed,
    [POLKA_SPLIT_MIXTURES] = &polka_split_mixtures,
    [POLKA_SPLIT_REGIONS] = &polka_split_regions,
    [POLKA_SPLIT_DIRICHLET] = &polka_split_dirichlet,
    [POLKA_SPLIT_SHARDS] = &polka_split_shards,
};

const polka_source_ops *polka_source_of(polka_source_kind kind) {
    return (unsigned)kind < POLKA_SOURCE_COUNT ? sources[kind] : NULL;
}

const polka_split_ops *polka_split_of(polka_split_kind kind) {
    return (unsigned)kind < POLKA_SPLIT_COUNT ? splits[kind] : NULL;
}

const char *polka_source_kind_name(polka_source_kind kind) {
    return (unsigned)kind < POLKA_SOURCE_COUNT ? sources[kind]->name : "?";
}

const char *polka_split_kind_name(polka_split_kind kind) {
    return (unsigned)kind < POLKA_SPLIT_COUNT ? splits[kind]->name : "?";
}

polka_status polka_source_parse(const char *name, polka_source_kind *kind) {
    const char *names[POLKA_SOURCE_COUNT];
    for (int k = 0; k < POLKA_SOURCE_COUNT; k++) names[k] = sources[k]->name;
    int index;
    POLKA_CALL(polka_name_find(name, names, POLKA_SOURCE_COUNT, "data.source", &index));
    *kind = (polka_source_kind)index;
    return POLKA_OK;
}

polka_status polka_split_parse(const char *name, polka_split_kind *kind) {
    const char *names[POLKA_SPLIT_COUNT];
    for (int k = 0; k < POLKA_SPLIT_COUNT; k++) names[k] = splits[k]->name;
    int index;
    POLKA_CALL(polka_name_find(name, names, POLKA_SPLIT_COUNT, "data.split", &index));
    *kind = (polka_split_kind)index;
    return POLKA_OK;
}

const char *polka_split_check_source(polka_split_kind split, polka_source_kind source) {
    const polka_split_ops *ops = splits[split];
    const char *lacks = ops->fits(sources[source]);
    if (lacks == NULL) return NULL;
    static _Thread_local char message[320];
    int used = snprintf(message, sizeof message,
                        "data.split = %s does not fit data.source = %s (%s); it fits", ops->name,
                        sources[source]->name, lacks);
    const char *sep = " ";
    for (int k = 0; k < POLKA_SOURCE_COUNT && used > 0 && (size_t)used < sizeof message; k++) {
        if (ops->fits(sources[k]) != NULL) continue;
        used +=
            snprintf(message + used, sizeof message - (size_t)used, "%s%s", sep, sources[k]->name);
        sep = ", ";
    }
    return message;
}

const char *polka_source_splits(polka_source_kind kind, const char *sep, char *text, size_t size) {
    size_t used = 0;
    text[0] = '\0';
    for (int j = 0; j < POLKA_SPLIT_COUNT && used < size; j++) {
        if (splits[j]->fits(sources[kind]) != NULL) continue;
        used +=
            (size_t)snprintf(text + used, size - used, "%s%s", used ? sep : "", splits[j]->name);
    }
    return text;
}
