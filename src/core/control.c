/*
 * The table of model-order controls and batch learners, built from POLKA_CONTROL_LIST
 * (learner.h): one line there and one entry file per control. Also the entry of `none`, the
 * control that does nothing.
 */
#include <stdio.h>
#include <string.h>

#include "control_impl.h"

static const polka_control_ops *const controls[POLKA_CONTROL_COUNT] = {
#define POLKA_CONTROL_ENTRY(id, entry) [POLKA_CONTROL_##id] = &polka_control_##entry,
    POLKA_CONTROL_LIST(POLKA_CONTROL_ENTRY)
#undef POLKA_CONTROL_ENTRY
};

const polka_control_ops polka_control_none = {
    .name = "none",
    .help = "plain functional SGD: every point is kept",
    .append = POLKA_APPEND_ALL,
};

const polka_control_ops *polka_control_of(polka_control_kind kind) {
    return (unsigned)kind < POLKA_CONTROL_COUNT ? controls[kind] : NULL;
}

const char *polka_control_kind_name(polka_control_kind kind) {
    return (unsigned)kind < POLKA_CONTROL_COUNT ? controls[kind]->name : "?";
}

const char *polka_control_help(polka_control_kind kind) {
    return (unsigned)kind < POLKA_CONTROL_COUNT ? controls[kind]->help : "?";
}

int polka_control_is_batch(polka_control_kind kind) {
    return (unsigned)kind < POLKA_CONTROL_COUNT && controls[kind]->batch;
}

int polka_control_may_learn_nothing(polka_control_kind kind) {
    return (unsigned)kind < POLKA_CONTROL_COUNT && controls[kind]->drops_steps;
}

/* The names of the online controls (batch = 0) or of the batch learners, ", " between. */
static void list_names(int batch, char *text, size_t size) {
    size_t used = 0;
    text[0] = '\0';
    for (int k = 0; k < POLKA_CONTROL_COUNT && used < size; k++) {
        if (controls[k]->batch != batch) continue;
        used +=
            (size_t)snprintf(text + used, size - used, "%s%s", used ? ", " : "", controls[k]->name);
    }
}

polka_status polka_control_kind_parse(const char *name, polka_control_kind *kind) {
    for (int k = 0; k < POLKA_CONTROL_COUNT; k++) {
        if (strcmp(name, controls[k]->name) != 0) continue;
        *kind = (polka_control_kind)k;
        return POLKA_OK;
    }
    char online[512], batch[128];
    list_names(0, online, sizeof online);
    list_names(1, batch, sizeof batch);
    return polka_error_set(POLKA_ERR_ARG,
                           "unknown model-order control '%s' (%s), or a batch regression "
                           "learner (%s)",
                           name, online, batch);
}

size_t polka_control_rows_held(const polka_learner_params *params, size_t batch) {
    const polka_control_ops *control = polka_control_of(params->control);
    return control && control->rows_held ? control->rows_held(params, batch) : batch;
}
