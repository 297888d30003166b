/**
 * @file config.h
 * @brief The run configuration: one table of typed keys, INI files and overrides.
 *
 * Keys are `section.key`. Precedence: defaults < file < `--set` overrides. Unknown keys
 * and values that do not parse are errors. This is the text of the settings: a run reads
 * them only through the plan that polka_plan_build() checks and types (plan.h).
 */
#ifndef POLKA_CONFIG_H
#define POLKA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "polka/error.h"
#include "polka/keys.h"

#define POLKA_NAME_LEN 32
#define POLKA_PATH_LEN 512
/** The most classes a generated data set may have (data.classes): bounds what a run allocates. */
#define POLKA_MAX_CLASSES      100000
#define POLKA_STRINGIFY_(x)    #x
#define POLKA_STRINGIFY(x)     POLKA_STRINGIFY_(x)
#define POLKA_MAX_CLASSES_TEXT POLKA_STRINGIFY(POLKA_MAX_CLASSES)

/* A key's field in polka_config, by its type (keys.h). */
#define POLKA_CONFIG_FIELD_SIZE(field)   size_t field;
#define POLKA_CONFIG_FIELD_U64(field)    uint64_t field;
#define POLKA_CONFIG_FIELD_DOUBLE(field) double field;
#define POLKA_CONFIG_FIELD_NAME(field)   char field[POLKA_NAME_LEN];
#define POLKA_CONFIG_FIELD_PATH(field)   char field[POLKA_PATH_LEN];
#define POLKA_CONFIG_FIELD(section, field, type, fallback, range, resume, plan, owner, help)       \
    POLKA_CONFIG_FIELD_##type(field)

/** The settings as text parses them: one field per key of keys.h, named as the key. */
typedef struct {
    POLKA_KEYS(POLKA_CONFIG_FIELD)
} polka_config;

typedef enum { POLKA_KEY_SIZE, POLKA_KEY_U64, POLKA_KEY_DOUBLE, POLKA_KEY_STRING } polka_key_type;

/** The values a numeric key may take (keys.h: the range column). */
typedef enum {
    POLKA_RANGE_ANY,
    POLKA_RANGE_GT,         /**< > lo */
    POLKA_RANGE_GE,         /**< >= lo */
    POLKA_RANGE_UPTO,       /**< <= hi */
    POLKA_RANGE_IN,         /**< [lo, hi] */
    POLKA_RANGE_FROM_BELOW, /**< [lo, hi) */
} polka_range_kind;

typedef struct {
    polka_range_kind kind;
    double lo, hi;
} polka_key_range;

/** Whether a resumed run may give a key another value than its checkpoint's. */
typedef enum { POLKA_RESUME_FIXED, POLKA_RESUME_MAY_CHANGE } polka_resume_rule;

/** One entry of the key table (a row of keys.h). */
typedef struct {
    const char *name; /**< "section.key" */
    polka_key_type type;
    size_t offset, size;  /**< where the value lives in polka_config, and its size */
    const char *fallback; /**< the default, as text */
    const char *help;
    polka_key_range range;
    polka_resume_rule resume;
    const char *owner; /**< the kind whose knob it is ("split dirichlet"); "" for the run's */
} polka_config_key;

/** The key table and its length. Pure. */
const polka_config_key *polka_config_keys(size_t *count);

/** Fills every key with its default. */
void polka_config_defaults(polka_config *config);

/** Sets "section.key" from text; an unknown key or an unparsable value is an error. */
polka_status polka_config_set(polka_config *config, const char *name, const char *value);

/** Applies an override "section.key=value". */
polka_status polka_config_override(polka_config *config, const char *assignment);

/**
 * Reads an INI file on top of the current values. Errors name the file and line. Blanks that
 * start a line are ignored: an indented line is a key of its own, never more of a value.
 */
polka_status polka_config_load(polka_config *config, const char *path);

/**
 * Checks every numeric key against its range (keys.h); the message names the first key out
 * of range ("run.passes must be > 0").
 */
polka_status polka_config_check_ranges(const polka_config *config);

/** The key named "section.key", or NULL. */
const polka_config_key *polka_config_find(const char *name);

/** The value of a key as text. */
void polka_config_get(const polka_config *config, const polka_config_key *key, char *out,
                      size_t size);

/** A key away from its default that the run does not read, and the key that says so. */
typedef struct {
    const polka_config_key *key;     /**< e.g. net.admm_rho, a knob of "method dkla, coke" */
    const polka_config_key *chooser; /**< the key choosing its kind: net.method */
} polka_config_idle;

/**
 * The keys set away from their default whose owner (keys.h) is a kind this run did not choose
 * (net.admm_rho with net.method = rf-diffusion): up to max into idle; returns how many there
 * are. Pure.
 */
size_t polka_config_idle_keys(const polka_config *config, polka_config_idle *idle, size_t max);

/** The largest value an integer (size) key takes: 2^40. */
#define POLKA_CONFIG_SIZE_MAX ((size_t)1 << 40)

#endif
