/* Using a trained model: read data the way its run read its test set, predict, score. */
#include <stdlib.h>
#include <string.h>

#include "polka/dataio.h"
#include "polka/loss.h"
#include "sim_impl.h"

/* The training facts a multidist run had: classes 0..C−1, its dimension, no scaling. */
static polka_status multidist_info(const polka_config *config, polka_data_info *info) {
    *info = (polka_data_info){.p = config->dim, .classes = config->classes};
    info->labels = malloc(config->classes * sizeof *info->labels);
    POLKA_CHECK_ALLOC(info->labels);
    for (size_t c = 0; c < config->classes; c++) info->labels[c] = (double)c;
    return POLKA_OK;
}

polka_status polka_sim_read_like_run(const polka_config *config, const char *path,
                                     const char *labels_path, polka_dataset *out,
                                     double **class_labels) {
    polka_loss_kind loss;
    POLKA_CALL(polka_loss_kind_parse(config->loss, &loss));
    int from_file = strcmp(config->source, "file") == 0;
    polka_read_options train_options = {
        .labels_path = config->train_labels[0] ? config->train_labels : NULL,
        .label_column = config->label_column,
        .regression = !polka_loss_is_classification(loss),
    };
    polka_read_options options = train_options;
    options.labels_path = labels_path;
    POLKA_CALL(polka_file_format_parse(from_file ? config->format : "auto", &train_options.format));
    POLKA_CALL(polka_file_format_parse("auto", &options.format));
    polka_scale_kind scale = POLKA_SCALE_NONE;
    if (from_file) POLKA_CALL(polka_scale_kind_parse(config->scale, &scale));
    polka_data_info info;
    /* a file run: the label map and scaling come from its training file, as in the run */
    POLKA_CALL(from_file ? polka_data_scan(config->train, &train_options, &info)
                         : multidist_info(config, &info));
    polka_status status = polka_data_read(path, &options, &info, NULL, NULL, out, NULL);
    if (status == POLKA_OK) polka_data_scale(out, &info, scale);
    if (status == POLKA_OK && class_labels) {
        *class_labels = malloc((info.classes ? info.classes : 1) * sizeof **class_labels);
        if (*class_labels == NULL)
            status = polka_error_set(POLKA_ERR_MEM, "out of memory");
        else
            memcpy(*class_labels, info.labels, info.classes * sizeof **class_labels);
    }
    polka_data_info_free(&info);
    return status;
}

polka_status polka_sim_predict(const polka_config *config, const polka_model *model,
                               const polka_dataset *data, double *predictions, double *score,
                               double *mean_loss) {
    polka_loss loss = {.epsilon = config->loss_epsilon};
    POLKA_CALL(polka_loss_kind_parse(config->loss, &loss.kind));
    size_t c = polka_model_outputs(model);
    POLKA_CHECK(polka_model_dim(model) == data->p, POLKA_ERR_ARG,
                "the model has dimension %zu but the data %zu", polka_model_dim(model), data->p);
    double *f = malloc((data->n ? data->n : 1) * c * sizeof *f);
    POLKA_CHECK_ALLOC(f);
    polka_status status = polka_model_eval(model, data->x, data->n, f);
    double hits = 0.0, sqerr = 0.0, total = 0.0;
    for (size_t i = 0; status == POLKA_OK && i < data->n; i++) {
        predictions[i] = polka_loss_predict(&loss, f + i * c, c);
        total += polka_loss_eval(&loss, f + i * c, c, data->y[i], NULL);
        hits += predictions[i] == data->y[i];
        sqerr += (predictions[i] - data->y[i]) * (predictions[i] - data->y[i]);
    }
    free(f);
    double n = data->n ? (double)data->n : 1.0;
    *score = polka_loss_is_classification(loss.kind) ? hits / n : sqerr / n;
    *mean_loss = total / n;
    return status;
}
