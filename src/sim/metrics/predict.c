/* Using a trained model: read data the way its run read its test set, predict, score. */
#include <stdlib.h>
#include <string.h>

#include "polka/dataio.h"
#include "polka/loss.h"
#include "polka/rff.h"
#include "sim/metrics/metrics_impl.h"
#include "sim/plan/plan_impl.h"
#include "sim/stream/source_impl.h"

/*
 * The training facts a run on a generator had: its dimension, no scaling, and classes
 * 0..C−1 when its loss classifies (novelty and regression losses read labels as values).
 */
static polka_status generated_info(const polka_plan *plan, int classification,
                                   polka_data_info *info) {
    polka_data_facts facts;
    (void)polka_source_of(plan->data.source)->planned_facts(plan, &facts);
    size_t classes = classification ? facts.classes : 0;
    *info = (polka_data_info){.p = facts.dim, .classes = classes};
    if (classes == 0) return POLKA_OK;
    info->labels = malloc(classes * sizeof *info->labels);
    POLKA_CHECK_ALLOC(info->labels);
    for (size_t c = 0; c < classes; c++) info->labels[c] = (double)c;
    return POLKA_OK;
}

/* The class labels of info, copied for the caller (at least one entry). */
static polka_status copy_class_labels(const polka_data_info *info, double **class_labels) {
    *class_labels = malloc((info->classes ? info->classes : 1) * sizeof **class_labels);
    POLKA_CHECK_ALLOC(*class_labels);
    if (info->classes) memcpy(*class_labels, info->labels, info->classes * sizeof **class_labels);
    return POLKA_OK;
}

polka_status polka_metrics_read_like_run(const polka_plan *plan, const char *path,
                                         const char *labels_path, const char *format,
                                         polka_dataset *out, double **class_labels) {
    const polka_data_spec *d = &plan->data;
    int from_file = d->source == POLKA_SOURCE_FILE;
    polka_read_options train_options = {
        .format = from_file ? d->format : POLKA_FORMAT_AUTO,
        .labels_path = d->train_labels[0] ? d->train_labels : NULL,
        .label_column = d->label_column,
        .regression = !polka_plan_classifies(plan),
        .storage = from_file ? d->storage : POLKA_STORAGE_AUTO,
        .scan_chunk = d->scan_chunk,
    };
    polka_read_options options = train_options;
    options.labels_path = labels_path;
    if (format) POLKA_CALL(polka_file_format_parse(format, &options.format));
    polka_scale_kind scale = from_file ? d->scale : POLKA_SCALE_NONE;
    polka_data_info info;
    /* a file run: the label map and scaling come from its training file, as in the run */
    POLKA_CALL(from_file ? polka_data_scan(d->train, &train_options, &info)
                         : generated_info(plan, !options.regression, &info));
    polka_status status = polka_data_read(path, &options, &info, NULL, NULL, out, NULL);
    if (status == POLKA_OK) status = polka_data_scale(out, &info, scale);
    if (status == POLKA_OK && d->unit_norm) status = polka_dataset_unit_norm(out, path);
    if (status == POLKA_OK && class_labels) status = copy_class_labels(&info, class_labels);
    polka_data_info_free(&info);
    return status;
}

/* The run's loss fits the data, and a model of dimension dim with `outputs` outputs has the
 * inputs of the data and the outputs the loss and the classes give. */
static polka_status check_model_fits(size_t dim, size_t outputs, const polka_loss *loss,
                                     const polka_dataset *data) {
    const char *why = polka_loss_check(loss, data->classes);
    POLKA_CHECK(why == NULL, POLKA_ERR_ARG, "%s", why);
    size_t wanted = polka_loss_outputs(loss->kind, data->classes);
    POLKA_CHECK(dim == data->p, POLKA_ERR_ARG, "the model has dimension %zu but the data %zu", dim,
                data->p);
    if (outputs == wanted) return POLKA_OK;
    if (wanted == data->classes)
        return polka_error_set(POLKA_ERR_FORMAT,
                               "the model has %zu outputs but the run has %zu classes", outputs,
                               data->classes);
    return polka_error_set(POLKA_ERR_FORMAT, "the model has %zu outputs but a %s model has %zu",
                           outputs, polka_loss_kind_name(loss->kind), wanted);
}

/* Fills f (n × outputs) with a model's values at the data's points. */
typedef polka_status (*data_values_fn)(const void *model, const polka_dataset *data, double *f);

/* The values f (n × outputs) of the data's points, scored as the run scores its test set. */
static polka_status score_values(const polka_plan *plan, const polka_dataset *data, size_t outputs,
                                 data_values_fn values, const void *model, double *predictions,
                                 double *score, double *mean_loss) {
    const polka_loss loss = plan->learner.params.loss;
    double *f = malloc((data->n ? data->n : 1) * outputs * sizeof *f);
    POLKA_CHECK_ALLOC(f);
    polka_status status = values(model, data, f);
    if (status == POLKA_OK)
        *score =
            polka_loss_score(&loss, data->classes, f, data->y, data->n, predictions, mean_loss);
    free(f);
    return status;
}

static polka_status kernel_values(const void *model, const polka_dataset *data, double *f) {
    return polka_metrics_model_values(model, data, f);
}

polka_status polka_metrics_predict(const polka_plan *plan, const polka_model *model,
                                   const polka_dataset *data, double *predictions, double *score,
                                   double *mean_loss) {
    size_t outputs = polka_model_outputs(model);
    POLKA_CALL(check_model_fits(polka_model_dim(model), outputs, &plan->learner.params.loss, data));
    return score_values(plan, data, outputs, kernel_values, model, predictions, score, mean_loss);
}

static polka_status rff_values(const void *model, const polka_dataset *data, double *f) {
    const polka_rff_model *m = model;
    return polka_dataset_eval(data, m->outputs, polka_rff_model_rows, m, f);
}

polka_status polka_metrics_predict_rff(const polka_plan *plan, const polka_rff *rff,
                                       const double *theta, size_t outputs,
                                       const polka_dataset *data, double *predictions,
                                       double *score, double *mean_loss) {
    POLKA_CALL(check_model_fits(rff->dim, outputs, &plan->learner.params.loss, data));
    polka_rff_model m = {rff, theta, outputs};
    return score_values(plan, data, outputs, rff_values, &m, predictions, score, mean_loss);
}
