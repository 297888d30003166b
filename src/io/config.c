#include "polka/config.h"

#include "io/config_file_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row of keys.h as an entry of the key table. */
#define KEY_TYPE_SIZE   POLKA_KEY_SIZE
#define KEY_TYPE_U64    POLKA_KEY_U64
#define KEY_TYPE_DOUBLE POLKA_KEY_DOUBLE
#define KEY_TYPE_NAME   POLKA_KEY_STRING
#define KEY_TYPE_PATH   POLKA_KEY_STRING
#define ANY                                                                                        \
    { POLKA_RANGE_ANY, 0, 0 }
#define GT(lo)                                                                                     \
    { POLKA_RANGE_GT, (lo), 0 }
#define GE(lo)                                                                                     \
    { POLKA_RANGE_GE, (lo), 0 }
#define UPTO(hi)                                                                                   \
    { POLKA_RANGE_UPTO, 0, (double)(hi) }
#define IN(lo, hi)                                                                                 \
    { POLKA_RANGE_IN, (lo), (hi) }
#define FROM_BELOW(lo, hi)                                                                         \
    { POLKA_RANGE_FROM_BELOW, (lo), (hi) }
#define FLAG                                                                                       \
    { POLKA_RANGE_IN, 0, 1 }
#define FIXED      POLKA_RESUME_FIXED
#define MAY_CHANGE POLKA_RESUME_MAY_CHANGE
#define KEY_ROW(sec, field, type, fallback, range, resume, plan, owner, help)                      \
    {#sec "." #field,                                                                              \
     KEY_TYPE_##type,                                                                              \
     offsetof(polka_config, field),                                                                \
     sizeof(((polka_config *)0)->field),                                                           \
     fallback,                                                                                     \
     help,                                                                                         \
     range,                                                                                        \
     resume,                                                                                       \
     owner},

static const polka_config_key config_keys[] = {POLKA_KEYS(KEY_ROW)};

#undef ANY
#undef GT
#undef GE
#undef UPTO
#undef IN
#undef FROM_BELOW
#undef FLAG
#undef FIXED
#undef MAY_CHANGE

const polka_config_key *polka_config_keys(size_t *count) {
    *count = sizeof config_keys / sizeof *config_keys;
    return config_keys;
}

const polka_config_key *polka_config_find(const char *name) {
    for (size_t k = 0; k < sizeof config_keys / sizeof *config_keys; k++)
        if (strcmp(config_keys[k].name, name) == 0) return &config_keys[k];
    return NULL;
}

static double numeric_value(const polka_config *config, const polka_config_key *key) {
    const char *field = (const char *)config + key->offset;
    switch (key->type) {
    case POLKA_KEY_SIZE:
        return (double)*(const size_t *)field;
    case POLKA_KEY_U64:
        return (double)*(const uint64_t *)field;
    case POLKA_KEY_DOUBLE:
        return *(const double *)field;
    case POLKA_KEY_STRING:
        break;
    }
    return 0.0;
}

/* Why value is outside the range, or NULL. Integers say "at most" (their bound is a size),
 * numbers with two bounds name the interval. */
static const char *range_why(const polka_key_range *r, double value, int integer, char *buf,
                             size_t size) {
    int low = (r->kind == POLKA_RANGE_GT && !(value > r->lo)) ||
              ((r->kind == POLKA_RANGE_GE || r->kind == POLKA_RANGE_IN ||
                r->kind == POLKA_RANGE_FROM_BELOW) &&
               !(value >= r->lo));
    int high = ((r->kind == POLKA_RANGE_UPTO || r->kind == POLKA_RANGE_IN) && !(value <= r->hi)) ||
               (r->kind == POLKA_RANGE_FROM_BELOW && !(value < r->hi));
    if (!low && !high) return NULL;
    if (r->kind == POLKA_RANGE_GT)
        snprintf(buf, size, "> %.17g", r->lo);
    else if (r->kind == POLKA_RANGE_GE || (integer && low))
        snprintf(buf, size, ">= %.17g", r->lo);
    else if (integer && r->kind == POLKA_RANGE_IN && r->lo == 0 && r->hi == 1)
        snprintf(buf, size, "0 or 1");
    else if (r->kind == POLKA_RANGE_UPTO || integer)
        snprintf(buf, size, "at most %.17g", r->hi);
    else
        snprintf(buf, size, "in [%.17g, %.17g%c", r->lo, r->hi,
                 r->kind == POLKA_RANGE_IN ? ']' : ')');
    return buf;
}

polka_status polka_config_check_ranges(const polka_config *config) {
    for (size_t k = 0; k < sizeof config_keys / sizeof *config_keys; k++) {
        const polka_config_key *key = &config_keys[k];
        if (key->type == POLKA_KEY_STRING || key->range.kind == POLKA_RANGE_ANY) continue;
        char bound[96];
        const char *why = range_why(&key->range, numeric_value(config, key),
                                    key->type != POLKA_KEY_DOUBLE, bound, sizeof bound);
        POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s must be %s", key->name, why);
    }
    return POLKA_OK;
}

static polka_status parse_value(const polka_config_key *key, const char *value, void *field) {
    char *end = NULL;
    errno = 0;
    switch (key->type) {
    case POLKA_KEY_SIZE:
    case POLKA_KEY_U64: {
        /* strtoull would take " -5" as 2^64 - 5: only digits are an integer here */
        unsigned long long v = strtoull(value, &end, 10);
        POLKA_CHECK(isdigit((unsigned char)value[0]) && *end == '\0' && errno == 0, POLKA_ERR_ARG,
                    "%s: '%s' is not a non-negative integer", key->name, value);
        POLKA_CHECK(key->type == POLKA_KEY_U64 || v <= POLKA_CONFIG_SIZE_MAX, POLKA_ERR_ARG,
                    "%s: %s is too large (at most %llu)", key->name, value,
                    (unsigned long long)POLKA_CONFIG_SIZE_MAX);
        if (key->type == POLKA_KEY_SIZE)
            *(size_t *)field = (size_t)v;
        else
            *(uint64_t *)field = (uint64_t)v;
        return POLKA_OK;
    }
    case POLKA_KEY_DOUBLE: {
        /* decimal only, as for the integers: strtod would also take " 1", "0x10" and "1p3" */
        int decimal = value[0] != '\0' && strspn(value, "0123456789+-.eE") == strlen(value);
        double v = decimal ? strtod(value, &end) : NAN;
        /* an underflow (ERANGE, |v| tiny: 1e-320 is a subnormal) is still a finite number */
        int range = errno == 0 || (errno == ERANGE && fabs(v) < 1.0);
        POLKA_CHECK(decimal && end != value && *end == '\0' && range && isfinite(v), POLKA_ERR_ARG,
                    "%s: '%s' is not a finite number", key->name, value);
        *(double *)field = v;
        return POLKA_OK;
    }
    case POLKA_KEY_STRING:
        POLKA_CHECK(strlen(value) < key->size, POLKA_ERR_ARG,
                    "%s: value longer than %zu characters", key->name, key->size - 1);
        strcpy((char *)field, value);
        return POLKA_OK;
    }
    return polka_error_set(POLKA_ERR_ARG, "%s: unknown key type", key->name);
}

polka_status polka_config_set(polka_config *config, const char *name, const char *value) {
    const polka_config_key *key = polka_config_find(name);
    POLKA_CHECK(key != NULL, POLKA_ERR_ARG, "unknown key '%s' (polka --help lists every key)",
                name);
    return parse_value(key, value, (char *)config + key->offset);
}

void polka_config_defaults(polka_config *config) {
    memset(config, 0, sizeof *config);
    for (size_t k = 0; k < sizeof config_keys / sizeof *config_keys; k++)
        (void)parse_value(&config_keys[k], config_keys[k].fallback,
                          (char *)config + config_keys[k].offset);
}

polka_status polka_config_override(polka_config *config, const char *assignment) {
    const char *eq = strchr(assignment, '=');
    POLKA_CHECK(eq != NULL && eq != assignment, POLKA_ERR_ARG,
                "--set expects section.key=value, got '%s'", assignment);
    char name[128];
    size_t len = (size_t)(eq - assignment);
    POLKA_CHECK(len < sizeof name, POLKA_ERR_ARG, "key too long in '%s'", assignment);
    memcpy(name, assignment, len);
    name[len] = '\0';
    return polka_config_set(config, name, eq + 1);
}

typedef struct {
    polka_config *config;
    polka_status status;
    char message[768];
} load_state;

static int config_ini_entry(void *user, const char *section, const char *name, const char *value) {
    load_state *state = user;
    if (state->status != POLKA_OK) return 0;
    char full[160];
    snprintf(full, sizeof full, "%s.%s", section, name);
    state->status = polka_config_set(state->config, full, value);
    if (state->status != POLKA_OK) {
        snprintf(state->message, sizeof state->message, "%s", polka_error_message());
        return 0;
    }
    return 1;
}

polka_status polka_config_load(polka_config *config, const char *path) {
    load_state state = {.config = config, .status = POLKA_OK};
    int line = 0;
    POLKA_CALL(polka_ini_read(path, config_ini_entry, &state, &line));
    if (state.status != POLKA_OK)
        return polka_error_set(state.status, "%s:%d: %s", path, line, state.message);
    POLKA_CHECK(line == 0, POLKA_ERR_FORMAT, "%s:%d: line does not parse (expected key = value)",
                path, line);
    return POLKA_OK;
}

void polka_config_get(const polka_config *config, const polka_config_key *key, char *out,
                      size_t size) {
    const char *field = (const char *)config + key->offset;
    switch (key->type) {
    case POLKA_KEY_SIZE:
        snprintf(out, size, "%zu", *(const size_t *)field);
        break;
    case POLKA_KEY_U64:
        snprintf(out, size, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    case POLKA_KEY_DOUBLE:
        snprintf(out, size, "%.17g", *(const double *)field);
        break;
    case POLKA_KEY_STRING:
        snprintf(out, size, "%s", field);
        break;
    }
}
