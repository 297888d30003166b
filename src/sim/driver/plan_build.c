/* The run plan built from a configuration: every setting checked once and typed (plan.h), by
 * the checks of every floor (the stream, the faults, the codecs, the event engine, privacy,
 * the method), which is why it lives at the top. */
#include "polka/plan.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "sim/async/async_impl.h"
#include "sim/network/fault_impl.h"
#include "sim/method/method_impl.h"
#include "sim/method/privacy_impl.h"
#include "sim/stream/source_impl.h"

/* A message of polka_name_find or of a check, as the status of the build. */
static polka_status fail(const char *why) {
    return polka_error_set(POLKA_ERR_ARG, "%s", why);
}

#define PLAN_CHECK(why)                                                                            \
    do {                                                                                           \
        const char *plan_why_ = (why);                                                             \
        if (plan_why_ != NULL) return fail(plan_why_);                                             \
    } while (0)

/*
 * The keys whose row in keys.h says TO(member): copied into plan->member as they are (a number
 * by assignment, a name or path by its bytes, the plan's array as long as the setting's).
 */
#define COPY_SIZE(member, field)   plan->member = config->field;
#define COPY_U64(member, field)    plan->member = config->field;
#define COPY_DOUBLE(member, field) plan->member = config->field;
#define COPY_NAME(member, field)   COPY_TEXT(member, field)
#define COPY_PATH(member, field)   COPY_TEXT(member, field)
#define COPY_TEXT(member, field)                                                                   \
    _Static_assert(sizeof plan->member == sizeof config->field, "plan field " #member);            \
    memcpy(plan->member, config->field, sizeof plan->member);
/* The plan column: TO(member) becomes "COPY_MEMBER, member", PARSED "COPY_NOTHING, _". */
#define COPY_IF_TO(member)               COPY_MEMBER, member
#define COPY_IF_PARSED                   COPY_NOTHING, _
#define COPY_MEMBER(member, type, field) COPY_##type(member, field)
#define COPY_NOTHING(member, type, field)
#define COPY_DISPATCH(how_member, type, field)   COPY_DISPATCH_(how_member, type, field)
#define COPY_DISPATCH_(how, member, type, field) how(member, type, field)
#define COPY_KEY(sec, field, type, fallback, range, resume, plan_to, owner, help)                  \
    COPY_DISPATCH(COPY_IF_##plan_to, type, field)

static void copy_keys(const polka_config *config, polka_plan *plan) {
    POLKA_KEYS(COPY_KEY)
}

static polka_status plan_run(const polka_config *config, polka_run_spec *run) {
    POLKA_CALL(polka_run_mode_parse(config->mode, &run->mode));
    PLAN_CHECK(polka_plan_check_length(config->passes, config->n_train));
    return POLKA_OK;
}

static polka_status plan_data(const polka_config *config, polka_data_spec *data) {
    POLKA_CALL(polka_source_parse(config->source, &data->source));
    POLKA_CALL(polka_split_parse(config->split, &data->split));
    /* spelled right even where the source ignores them: a typo is never silently dropped */
    POLKA_CALL(polka_file_format_parse(config->format, &data->format));
    POLKA_CALL(polka_scale_kind_parse(config->scale, &data->scale));
    POLKA_CALL(polka_storage_parse(config->storage, &data->storage));
    return polka_memory_parse(config->memory, &data->memory);
}

/* The learner's kinds; its numbers came with the keys (copy_keys). */
static polka_status learner_params(const polka_config *config, polka_learner_spec *learner) {
    polka_learner_params *p = &learner->params;
    POLKA_CALL(polka_kernel_kind_parse(config->kernel, &p->kernel.kind));
    POLKA_CALL(polka_loss_kind_parse(config->loss, &p->loss.kind));
    POLKA_CALL(polka_control_kind_parse(config->control, &p->control)); /* the control table */
    POLKA_CALL(polka_schedule_kind_parse(config->schedule, &p->schedule));
    p->seed = config->seed;
    return POLKA_OK;
}

/* learner.control = slkl | krr: ridge regression on the whole training set at once. */
static const char *check_batch_learner(const polka_plan *plan) {
    const polka_learner_spec *l = &plan->learner;
    if (plan->run.mode != POLKA_MODE_CENTRALIZED)
        return "learner.control = slkl/krr learn from the whole training set: use run.mode = "
               "centralized (--centralized)";
    polka_batch_settings settings = {l->candidates, l->max_iter, l->tol};
    return polka_batch_check(&l->params, &settings);
}

/* learner.refit: the online POLK learner of a centralized run on a fixed distribution. */
static const char *check_refit(const polka_plan *plan, const polka_learner_params *params) {
    const polka_learner_spec *l = &plan->learner;
    if (l->refit == 0)
        return l->refit_iterations ? "learner.refit_iterations needs learner.refit > 0" : NULL;
    if (polka_control_is_batch(params->control))
        return "learner.refit refits an online learner's dictionary (slkl and krr fit in batch)";
    const polka_method_ops *method = polka_method_find(plan->settings.method);
    if (plan->run.mode != POLKA_MODE_CENTRALIZED || method == NULL || !method->central_kernel)
        return "learner.refit fits on the whole training set: use run.mode = centralized with "
               "net.method = penalty (centralized POLK)";
    if (plan->data.drift > 0) return "learner.refit needs a fixed distribution (data.drift = 0)";
    return polka_learner_refit_check(params, l->refit_iterations);
}

static const char *check_learner(const polka_plan *plan) {
    const polka_learner_spec *l = &plan->learner;
    const char *why = check_refit(plan, &l->params);
    if (why) return why;
    if (polka_control_is_batch(l->params.control)) return check_batch_learner(plan);
    polka_learner_params params = l->params;
    params.horizon = 1; /* the run sets the horizon from its rounds */
    return polka_learner_check(&params);
}

/* The loss fits the targets of the source (and, when the settings fix them, its classes). */
static polka_status check_targets(const polka_plan *plan) {
    const polka_source_ops *source = polka_source_of(plan->data.source);
    const polka_loss *loss = &plan->learner.params.loss;
    int classifies = polka_loss_is_classification(loss->kind);
    /* novelty detection ignores the labels, so it runs on any source */
    POLKA_CHECK(source->targets != POLKA_TARGETS_CLASSES || classifies ||
                    loss->kind == POLKA_LOSS_NOVELTY,
                POLKA_ERR_ARG,
                "learner.loss = %s: data.source = %s is a classification set (use a "
                "classification loss, or novelty)",
                polka_loss_kind_name(loss->kind), source->name);
    POLKA_CHECK(source->targets != POLKA_TARGETS_VALUES || !classifies, POLKA_ERR_ARG,
                "learner.loss = %s: data.source = %s is a regression set (use square, absolute, "
                "eps-insensitive or huber)",
                polka_loss_kind_name(loss->kind), source->name);
    polka_data_facts facts;
    if (!source->planned_facts(plan, &facts)) return POLKA_OK;
    const char *why = polka_loss_check(loss, facts.classes);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "learner.loss = %s: %s",
                polka_loss_kind_name(loss->kind), why);
    const polka_split_ops *split = polka_split_of(plan->data.split);
    PLAN_CHECK(split->check ? split->check(plan, &facts) : NULL);
    return POLKA_OK;
}

/* Quantity skew and drift apply to any split; drift needs a source that can move. */
static const char *check_stream(const polka_plan *plan) {
    const polka_data_spec *d = &plan->data;
    if (d->storage != POLKA_STORAGE_AUTO && d->source != POLKA_SOURCE_FILE)
        return "data.storage (dense, sparse) applies to LIBSVM files: set data.source = file, or "
               "leave data.storage = auto";
    if (d->scan_chunk != POLKA_SCAN_CHUNK && d->source != POLKA_SOURCE_FILE)
        return "data.scan_chunk applies to a training file's scan: set data.source = file, or "
               "leave data.scan_chunk at its default";
    if (d->drift > 0 && polka_source_of(d->source)->drift == NULL)
        return "data.drift > 0 needs a source that drifts (multidist, sinc, friedman)";
    return NULL;
}

static polka_status check_data(const polka_plan *plan) {
    PLAN_CHECK(polka_source_of(plan->data.source)->check(plan));
    PLAN_CHECK(check_stream(plan));
    PLAN_CHECK(polka_split_check_source(plan->data.split, plan->data.source));
    return check_targets(plan);
}

/* The defaults of what the keys do not set: the learner's, and the generator's (net.graph
 * names a generator unless a file of that name exists: decided here, once). */
static void plan_defaults(const polka_config *config, polka_plan *plan) {
    plan->learner.params = polka_learner_defaults();
    polka_graph_kind kind = POLKA_GRAPH_RING;
    plan->net.generated = access(config->graph, F_OK) != 0 &&
                          polka_graph_kind_parse(config->graph, &kind) == POLKA_OK;
    plan->net.spec = polka_graph_spec_defaults(kind, 0);
    plan->net.spec.seed = config->seed;
}

static polka_status plan_net(const polka_config *config, polka_net_spec *net) {
    POLKA_CHECK(config->resample_every == 0 || net->generated, POLKA_ERR_ARG,
                "net.resample_every = %zu draws new graphs from a generator, but net.graph = %s "
                "is a file (name a generator, or set net.resample_every = 0)",
                config->resample_every, config->graph);
    POLKA_CALL(polka_weight_kind_parse(config->weights, &net->weights));
    POLKA_CALL(polka_penalty_kind_parse(config->penalty, &net->penalty));
    POLKA_CALL(polka_share_kind_parse(config->share, &net->share));
    POLKA_CHECK(polka_method_find(config->method) != NULL, POLKA_ERR_ARG,
                "net.method = %s: no such method (%s)", config->method, polka_method_names());
    POLKA_CALL(polka_placement_kind_parse(config->placement, &net->placement));
    POLKA_CHECK(!net->generated || net->weights != POLKA_WEIGHTS_FILE, POLKA_ERR_ARG,
                "net.weights = file takes the weights from a topology file, but net.graph = %s "
                "is generated (use metropolis or uniform)",
                config->graph);
    return POLKA_OK;
}

static polka_status plan_fault(const polka_config *config) {
    PLAN_CHECK(config->return_at == 0 || config->return_at > config->leave_at
                   ? NULL
                   : "fault.return_at must be 0 (never) or after fault.leave_at");
    if (config->leave[0] != '\0') {
        const char *why = polka_faults_parse_agents(config->leave, (size_t)1 << 20, NULL, NULL);
        POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "fault.leave = '%s': %s", config->leave, why);
    }
    return POLKA_OK;
}

polka_status polka_plan_build(const polka_config *config, polka_plan *plan) {
    memset(plan, 0, sizeof *plan);
    plan->settings = *config;
    POLKA_CALL(polka_config_check_ranges(config));
    plan_defaults(config, plan);
    copy_keys(config, plan);
    POLKA_CALL(plan_run(config, &plan->run));
    POLKA_CALL(plan_data(config, &plan->data));
    POLKA_CALL(learner_params(config, &plan->learner));
    POLKA_CALL(check_data(plan));
    PLAN_CHECK(check_learner(plan));
    POLKA_CALL(plan_fault(config));
    POLKA_CALL(plan_net(config, &plan->net));
    POLKA_CALL(polka_codec_check(plan));
    POLKA_CALL(polka_async_check(plan));
    POLKA_CALL(polka_privacy_check(plan));
    return polka_method_of(plan)->check(plan);
}
