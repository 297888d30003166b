#include "polka/loss.h"

#include <math.h>
#include <string.h>

static const char *const loss_names[] = {
    "multi-hinge", "multi-logistic",  "hinge",       "logistic", "square",
    "absolute",    "eps-insensitive", "soft-margin", "novelty",  "huber"};

polka_status polka_loss_kind_parse(const char *name, polka_loss_kind *kind) {
    int index;
    POLKA_CALL(polka_name_find(name, loss_names, POLKA_COUNT(loss_names), "loss", &index));
    *kind = (polka_loss_kind)index;
    return POLKA_OK;
}

const char *polka_loss_kind_name(polka_loss_kind kind) {
    return polka_name_at(loss_names, POLKA_COUNT(loss_names), (int)kind);
}

int polka_loss_is_classification(polka_loss_kind kind) {
    return kind <= POLKA_LOSS_LOGISTIC || kind == POLKA_LOSS_SOFT_MARGIN;
}

const char *polka_loss_score_name(polka_loss_kind kind) {
    if (kind == POLKA_LOSS_NOVELTY) return "flagged";
    return polka_loss_is_classification(kind) ? "accuracy" : "mse";
}

size_t polka_loss_outputs(polka_loss_kind kind, size_t classes) {
    return kind == POLKA_LOSS_MULTI_HINGE || kind == POLKA_LOSS_MULTI_LOGISTIC ? classes : 1;
}

const char *polka_loss_check(const polka_loss *loss, size_t classes) {
    if (loss->kind == POLKA_LOSS_NOVELTY)
        return isfinite(loss->rho) ? NULL : "novelty threshold rho must be finite";
    if (loss->kind == POLKA_LOSS_SOFT_MARGIN && !(loss->rho >= 0 && isfinite(loss->rho)))
        return "soft-margin rho must be >= 0";
    if (loss->kind == POLKA_LOSS_HUBER && !(loss->delta > 0 && isfinite(loss->delta)))
        return "huber delta must be > 0";
    int binary = loss->kind == POLKA_LOSS_HINGE || loss->kind == POLKA_LOSS_LOGISTIC ||
                 loss->kind == POLKA_LOSS_SOFT_MARGIN;
    if (polka_loss_is_classification(loss->kind) && classes < 2)
        return "a classification loss needs a data set with at least 2 classes";
    if (binary && classes != 2)
        return "binary hinge/logistic/soft-margin losses need exactly 2 classes";
    if (!polka_loss_is_classification(loss->kind) && classes != 0)
        return "a regression loss needs a regression data set";
    if (loss->kind == POLKA_LOSS_EPS_INSENSITIVE && !(loss->epsilon >= 0))
        return "loss epsilon must be >= 0";
    return NULL;
}

static size_t argmax_except(const double *f, size_t c, size_t skip) {
    size_t best = skip == 0 ? 1 : 0;
    for (size_t k = 0; k < c; k++)
        if (k != skip && f[k] > f[best]) best = k;
    return best;
}

static double multi_hinge(const double *f, size_t c, size_t y, double *grad) {
    size_t r = argmax_except(f, c, y);
    double margin = 1.0 + f[r] - f[y];
    if (grad) {
        memset(grad, 0, c * sizeof *grad);
        if (margin > 0) {
            grad[r] = 1.0;
            grad[y] = -1.0;
        }
    }
    return margin > 0 ? margin : 0.0;
}

static double multi_logistic(const double *f, size_t c, size_t y, double *grad) {
    double top = f[0];
    for (size_t k = 1; k < c; k++) top = f[k] > top ? f[k] : top;
    double sum = 0.0;
    for (size_t k = 0; k < c; k++) sum += exp(f[k] - top);
    if (grad) {
        for (size_t k = 0; k < c; k++) grad[k] = exp(f[k] - top) / sum;
        grad[y] -= 1.0;
    }
    return top + log(sum) - f[y]; /* log Σ e^{f_c} − f_y, shifted for stability */
}

/* log(1 + e^z) without overflow. */
static double softplus(double z) {
    return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

static double scalar_loss(const polka_loss *loss, double f, double y, double *grad) {
    double g = 0.0, value = 0.0, r = f - y;
    switch (loss->kind) {
    case POLKA_LOSS_HINGE:
        value = 1.0 - y * f > 0 ? 1.0 - y * f : 0.0;
        g = value > 0 ? -y : 0.0;
        break;
    case POLKA_LOSS_LOGISTIC:
        value = softplus(-y * f);
        g = -y / (1.0 + exp(y * f)); /* −y σ(−y f) */
        break;
    case POLKA_LOSS_SQUARE:
        value = 0.5 * r * r;
        g = r;
        break;
    case POLKA_LOSS_ABSOLUTE:
        value = fabs(r);
        g = r > 0 ? 1.0 : (r < 0 ? -1.0 : 0.0);
        break;
    case POLKA_LOSS_EPS_INSENSITIVE:
        value = fabs(r) > loss->epsilon ? fabs(r) - loss->epsilon : 0.0;
        g = value > 0 ? (r > 0 ? 1.0 : -1.0) : 0.0;
        break;
    case POLKA_LOSS_SOFT_MARGIN: /* NORMA §III-A: σ = 1 when y f ≤ ρ, gradient −σ y */
        value = loss->rho - y * f > 0 ? loss->rho - y * f : 0.0;
        g = y * f <= loss->rho ? -y : 0.0;
        break;
    case POLKA_LOSS_NOVELTY: /* NORMA §III-B: an update (gradient −1) when f < ρ */
        value = loss->rho - f > 0 ? loss->rho - f : 0.0;
        g = f < loss->rho ? -1.0 : 0.0;
        break;
    case POLKA_LOSS_HUBER: /* NORMA §III-C: linear beyond δ, quadratic inside */
        value = fabs(r) > loss->delta ? fabs(r) - 0.5 * loss->delta : 0.5 * r * r / loss->delta;
        g = fabs(r) > loss->delta ? (r > 0 ? 1.0 : -1.0) : r / loss->delta;
        break;
    default:
        break;
    }
    if (grad) *grad = g;
    return value;
}

double polka_loss_eval(const polka_loss *loss, const double *f, size_t c, double y, double *grad) {
    switch (loss->kind) {
    case POLKA_LOSS_MULTI_HINGE:
        return multi_hinge(f, c, (size_t)y, grad);
    case POLKA_LOSS_MULTI_LOGISTIC:
        return multi_logistic(f, c, (size_t)y, grad);
    case POLKA_LOSS_HINGE:
    case POLKA_LOSS_LOGISTIC:
    case POLKA_LOSS_SOFT_MARGIN:
        return scalar_loss(loss, f[0], y > 0.5 ? 1.0 : -1.0, grad);
    default:
        return scalar_loss(loss, f[0], y, grad);
    }
}

double polka_loss_predict(const polka_loss *loss, const double *f, size_t c) {
    switch (loss->kind) {
    case POLKA_LOSS_MULTI_HINGE:
    case POLKA_LOSS_MULTI_LOGISTIC: {
        size_t best = 0;
        for (size_t k = 1; k < c; k++)
            if (f[k] > f[best]) best = k;
        return (double)best;
    }
    case POLKA_LOSS_HINGE:
    case POLKA_LOSS_LOGISTIC:
    case POLKA_LOSS_SOFT_MARGIN:
        return f[0] > 0 ? 1.0 : 0.0;
    case POLKA_LOSS_NOVELTY:
        return f[0] < loss->rho ? 1.0 : 0.0;
    default:
        return f[0];
    }
}

double polka_loss_score(const polka_loss *loss, size_t classes, const double *f, const double *y,
                        size_t n, double *predictions, double *mean_loss) {
    size_t c = polka_loss_outputs(loss->kind, classes);
    double hits = 0.0, total = 0.0, flagged = 0.0;
    for (size_t i = 0; i < n; i++) {
        double prediction = polka_loss_predict(loss, f + i * c, c);
        if (predictions) predictions[i] = prediction;
        flagged += prediction; /* novelty: the flag, 1 when f < ρ */
        total += polka_loss_eval(loss, f + i * c, c, y[i], NULL);
        hits += prediction == y[i];
    }
    if (mean_loss) *mean_loss = n ? total / (double)n : 0.0;
    if (n == 0) return 0.0;
    if (loss->kind == POLKA_LOSS_NOVELTY) return flagged / (double)n;
    /* a regression loss predicts f itself (one output): the MSE of f */
    return classes > 0 ? hits / (double)n : polka_squared_error(f, y, n) / (double)n;
}

double polka_squared_error(const double *f, const double *y, size_t n) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += (f[i] - y[i]) * (f[i] - y[i]);
    return sum;
}
