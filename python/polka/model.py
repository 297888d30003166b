"""An agent's saved model, evaluated in numpy as `polka predict` evaluates it: a kernel
expansion f(x) = Σ_m w_m k(d_m, x) (src/core/kernel.c: the squared distance as
‖x‖² + ‖d‖² − 2 x·d, clipped at 0), or a linear model on random Fourier features
f(x) = θᵀ z(x), z(x) = √(2/D) cos(Ωx + b) (src/core/rff.c)."""
import numpy as np

from .errors import PolkaError

# Rows of points per kernel block: bounds the memory of a block (rows × order doubles).
BLOCK_ROWS = 4096

CLASSIFICATION_LOSSES = {"multi-hinge", "multi-logistic", "hinge", "logistic", "soft-margin"}
MULTI_CLASS_LOSSES = {"multi-hinge", "multi-logistic"}
BINARY_LOSSES = {"hinge", "logistic", "soft-margin"}


def kernel_matrix(kernel, x, dictionary, sigma, degree, coef0):
    """k(x_i, d_j) for the points x (n × p) and the dictionary (m × p), as polka computes it."""
    dot = x @ dictionary.T
    if kernel == "linear":
        return dot
    if kernel == "polynomial":
        return (dot / (sigma * sigma) + coef0) ** degree
    sqdist = (x * x).sum(axis=1)[:, None] + (dictionary * dictionary).sum(axis=1)[None, :] - 2.0 * dot
    np.maximum(sqdist, 0.0, out=sqdist)  # the expansion's cancellation can go below 0
    if kernel == "gaussian":
        return np.exp(-sqdist / (2.0 * sigma * sigma))
    if kernel == "laplacian":
        return np.exp(-np.sqrt(sqdist) / sigma)
    raise PolkaError(f"unknown kernel '{kernel}' (gaussian, laplacian, polynomial, linear)")


class _SavedModel:
    """What both kinds of model share: the run's loss, the data's scaling, predict."""

    def __init__(self, agent, settings, margins=None):
        self.agent = agent
        self.loss = settings.get("learner.loss", "multi-hinge")
        self.rho = float(settings.get("learner.rho", 1.0))
        self.tube = float(settings.get("learner.loss_epsilon", 0.1))
        if margins is not None:  # the agent's own, as its run ended (learner.nu > 0 adapts them)
            self.rho, self.tube = margins
        self.scale = settings.get("data.scale", "none") if settings.get("data.source") == "file" else "none"
        self.unit_norm = int(settings.get("data.unit_norm", 0)) == 1

    def predict(self, x, scaled=False):
        """What `polka predict` writes per point: the class index (0..C−1; binary losses 1 when
        f > 0), the novelty flag (1 when f < rho), or f itself (regression losses)."""
        f = self.values(x, scaled)
        if self.loss in MULTI_CLASS_LOSSES:
            return f.argmax(axis=1)
        if self.loss in BINARY_LOSSES:
            return (f[:, 0] > 0).astype(int)
        if self.loss == "novelty":
            return (f[:, 0] < self.rho).astype(int)
        return f[:, 0]

    def _points(self, x, scaled):
        """x as an n × dim float array, after checking it fits the model, each row divided by its
        Euclidean norm when the run had data.unit_norm = 1 (and the points are not given as the
        model saw them: scaled=True)."""
        if self.scale != "none" and not scaled:
            raise PolkaError(
                f"the run scaled its data (data.scale = {self.scale}) with statistics of its "
                "training file that the run file does not keep: scale the points the same way "
                "and pass scaled=True")
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            x = x.reshape(1, -1)
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise PolkaError(f"the model has dimension {self.dim} but the points have shape {x.shape}")
        bad = ~np.isfinite(x)
        if bad.any():  # as polka's readers refuse them: a NaN would predict a class, silently
            row, column = (int(i) for i in np.argwhere(bad)[0])
            raise PolkaError(f"point {row} has the value {x[row, column]} (feature {column}), which "
                             "is not finite")
        return _unit_rows(x) if self.unit_norm and not scaled else x


def _unit_rows(x):
    """Each row of x over its Euclidean norm, as polka_unit_norm_row does (src/data/dataset.c):
    the squares summed in column order, so the norms are polka's to the last bit; a row of
    zeros (norm not > 0) stays as it is."""
    squares = np.zeros(x.shape[0])
    for column in x.T:
        squares += column * column
    norms = np.sqrt(squares)
    positive = norms > 0
    out = x.copy()
    out[positive] /= norms[positive, None]
    return out


class Model(_SavedModel):
    """One agent's final model from a run file (its rows of /models/dictionary and weights).

    Attributes: agent, kernel ('gaussian', 'laplacian', 'polynomial', 'linear'), sigma, degree,
    coef0, dictionary (order × dim), weights (order × outputs), loss, rho and tube (the run's
    learner.loss, and the agent's margins as its run ended: learner.rho and
    learner.loss_epsilon, adapted when learner.nu > 0; `predict` reads rho), scale (the run's
    data.scale: points must be given as the model saw them), unit_norm (the run's
    data.unit_norm: points are divided by their norm unless scaled=True says they are given as
    the model saw them)."""

    def __init__(self, agent, attrs, dictionary, weights, settings, margins=None):
        super().__init__(agent, settings, margins)
        self.kernel = attrs["kernel"]
        self.sigma, self.coef0 = float(attrs["sigma"]), float(attrs["coef0"])
        self.degree = int(attrs["degree"])
        self.dictionary = np.asarray(dictionary, dtype=float)
        self.weights = np.asarray(weights, dtype=float)

    @property
    def order(self):
        """Model order M: the dictionary's points."""
        return self.dictionary.shape[0]

    @property
    def dim(self):
        return self.dictionary.shape[1]

    @property
    def outputs(self):
        """Outputs per point: one per class for the multi-class losses, else 1."""
        return self.weights.shape[1]

    def values(self, x, scaled=False):
        """f at the points x (n × dim, or one point of dim values): an n × outputs array."""
        x = self._points(x, scaled)
        f = np.zeros((x.shape[0], self.outputs))
        if self.order == 0:
            return f
        for start in range(0, x.shape[0], BLOCK_ROWS):
            block = x[start:start + BLOCK_ROWS]
            k = kernel_matrix(self.kernel, block, self.dictionary, self.sigma, self.degree, self.coef0)
            f[start:start + BLOCK_ROWS] = k @ self.weights
        return f

    def __repr__(self):
        return (f"<polka.Model agent {self.agent}: {self.kernel} kernel, order {self.order}, "
                f"dim {self.dim}, {self.outputs} output(s)>")



class RandomFeatureModel(_SavedModel):
    """One agent's final model of a random-feature method (rf-diffusion, dkla, coke):
    f(x) = θᵀ z(x) with the features the agents share (/models/omega, phase) and the agent's
    θ (/models/theta[agent]).

    Attributes: agent, features (D), sigma, seed, omega (D × dim), phase (D), theta
    (D × outputs), loss, rho and scale (as Model)."""

    kernel = "gaussian"

    def __init__(self, agent, attrs, omega, phase, theta, settings):
        super().__init__(agent, settings)
        self.sigma, self.seed = float(attrs["sigma"]), int(attrs["seed"])
        self.omega = np.asarray(omega, dtype=float)
        self.phase = np.asarray(phase, dtype=float)
        self.theta = np.asarray(theta, dtype=float)

    @property
    def features(self):
        return self.omega.shape[0]

    @property
    def dim(self):
        return self.omega.shape[1]

    @property
    def outputs(self):
        return self.theta.shape[1]

    def transform(self, x, scaled=False):
        """z(x) = √(2/D) cos(Ωx + b) for the points x: an n × D array."""
        x = self._points(x, scaled)
        return np.sqrt(2.0 / self.features) * np.cos(x @ self.omega.T + self.phase)

    def values(self, x, scaled=False):
        """f at the points x (n × dim, or one point of dim values): an n × outputs array."""
        x = self._points(x, scaled)
        f = np.zeros((x.shape[0], self.outputs))
        for start in range(0, x.shape[0], BLOCK_ROWS):
            f[start:start + BLOCK_ROWS] = self.transform(x[start:start + BLOCK_ROWS], True) @ self.theta
        return f

    def __repr__(self):
        return (f"<polka.RandomFeatureModel agent {self.agent}: {self.features} random features "
                f"of the gaussian kernel (sigma {self.sigma}), dim {self.dim}, {self.outputs} output(s)>")
