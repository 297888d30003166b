"""Model.values and Model.predict against `polka predict` on the same points: every kernel to
the rounding of its evaluation (regression, where polka predict writes f itself, with 17
digits), and the classes of a multi-class run."""
import sys

import numpy as np
import pytest

import polka
from conftest import gamma, make_run, polka_cli

KERNELS = {"gaussian": {"learner.sigma": 0.8}, "laplacian": {"learner.sigma": 1.5},
           "polynomial": {"learner.sigma": 2.0, "learner.degree": 3, "learner.coef0": 1.0, "learner.eta": 0.01},
           "linear": {"learner.eta": 0.02}}


def write_libsvm(path, x, y):
    with open(path, "w") as f:
        for point, label in zip(x, y):
            f.write(f"{label!r} " + " ".join(f"{k + 1}:{v!r}" for k, v in enumerate(point)) + "\n")


@pytest.fixture(scope="module")
def regression_data(runs):
    """A 3-feature regression set: training and test files, the test points and targets."""
    rng = np.random.default_rng(31)
    x = rng.uniform(-2, 2, size=(500, 3))
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] * x[:, 2] + 0.1 * rng.standard_normal(500)
    write_libsvm(runs / "train.svm", x[:300], y[:300])
    write_libsvm(runs / "test.svm", x[300:], y[300:])
    return runs / "train.svm", runs / "test.svm", x[300:], y[300:]


def values_bound(model, x):
    """|f − f'| for f = Σ_m w_m k(d_m, x) by numpy (polka.model) and by polka (kernel.c, thin.c),
    per point: x·d to γ_p·Σ|x_k d_k| on each side, ‖x‖², ‖d‖² and their sum with −2x·d to
    γ_{p+2}·(‖x‖² + ‖d‖² + 2Σ|x_k d_k|) [Higham02, §3.1]; the kernel's argument a few roundings
    more; exp within 2 ulp (polka_exp) and 4 ulp (numpy's SIMD exp), pow within 1 ulp; then
    K·W a dot product of M terms, γ_M·Σ|w_m k_m| on each side."""
    u = sys.float_info.epsilon / 2
    d, w, p = model.dictionary, np.abs(model.weights[:, 0]), model.dim
    dot = x @ d.T
    size = np.abs(x) @ np.abs(d).T  # Σ_k |x_k d_k|
    ddot = 2 * gamma(p) * size
    sigma2 = model.sigma * model.sigma
    k = polka.model.kernel_matrix(model.kernel, x, d, model.sigma, model.degree, model.coef0)
    if model.kernel == "linear":
        dk = ddot
    elif model.kernel == "polynomial":  # (x·d/σ² + c₀)^q: three roundings of the base each side
        base = dot / sigma2 + model.coef0
        dbase = ddot / sigma2 + 2 * gamma(3) * (np.abs(dot) / sigma2 + abs(model.coef0))
        q = model.degree
        dk = q * (np.abs(base) + dbase) ** (q - 1) * dbase + 4 * u * np.abs(k)
    else:
        sq = np.maximum((x * x).sum(axis=1)[:, None] + (d * d).sum(axis=1)[None, :] - 2 * dot, 0)
        dsq = 2 * gamma(p + 2) * ((x * x).sum(axis=1)[:, None] + (d * d).sum(axis=1)[None, :] + 2 * size)
        if model.kernel == "gaussian":  # sq·fl(−1/(2σ²)) there, −sq/(2σ²) here: γ_5 of it
            darg = dsq / (2 * sigma2) + gamma(5) * sq / (2 * sigma2)
        else:  # √sq to min(Δ/√sq, √Δ) and sqrt's rounding each side, /σ or ·fl(−1/σ): γ_4
            r = np.sqrt(sq)
            with np.errstate(divide="ignore"):
                dr = np.minimum(np.where(r > 0, dsq / r, np.inf), np.sqrt(dsq))
            darg = dr / model.sigma + gamma(4) * r / model.sigma
        dk = k * (darg + 12 * u)
    return dk @ w + 2 * gamma(model.order) * (np.abs(k) @ w)


def predicted(model_spec, data, output):
    """`polka predict` on data: its predictions, one per line."""
    polka_cli("predict", "--model", model_spec, "--data", data, "--output", output)
    return np.loadtxt(output)


@pytest.mark.parametrize("kernel", KERNELS)
def test_values_are_polka_predicts(kernel, regression_data, runs):
    train, test, test_x, test_y = regression_data
    settings = {"run.mode": "centralized", "net.agents": 1, "data.source": "file", "data.train": train,
                "data.test": test, "learner.loss": "square", "learner.kernel": kernel, **KERNELS[kernel]}
    run = polka.open(make_run(runs / f"{kernel}.h5", settings))
    model = run.model(0)
    assert model.kernel == kernel and model.order >= 3  # the linear kernel: its 3 dimensions
    theirs = predicted(run.path, test, runs / f"{kernel}.txt")
    ours = model.values(test_x)[:, 0]
    bound = values_bound(model, test_x)
    assert np.all(np.abs(ours - theirs) <= bound)
    np.testing.assert_array_equal(model.predict(test_x), ours)
    # the run's last log step scored the test set: its MSE, of polka's values, summed in index
    # order there and pairwise here (γ_{n+2} of it each side), and 2|r|·bound + bound² apart
    r = theirs - test_y
    mse = np.mean((ours - test_y) ** 2)
    tol = 2 * gamma(len(r) + 2) * np.mean(r * r) + np.mean(2 * np.abs(r) * bound + bound * bound)
    assert abs(mse - run.values("test_score")[-1, 0]) <= tol


def test_classes_are_polka_predicts(decentralized, runs):
    polka_cli("data", "multidist", "-o", runs / "md.svm", "--set", "data.n_train=800", "--set", "data.n_test=200")
    test_x, test_y = polka.plot.read_libsvm(runs / "md.svm.t", 2)
    run = polka.open(decentralized)
    for agent in (3, 12):
        classes = run.model(agent).predict(test_x)
        np.testing.assert_array_equal(classes, predicted(f"{decentralized}:{agent}", runs / "md.svm.t",
                                                         runs / f"classes{agent}.txt"))
        # the run's last log step scored the whole test set: the same accuracy
        assert np.mean(classes == test_y) == run.values("test_score")[-1, agent]


def test_points_of_another_dimension_are_refused(decentralized):
    with pytest.raises(polka.PolkaError, match=r"the model has dimension 2 but the points have shape \(4, 3\)"):
        polka.open(decentralized).model(0).values(np.zeros((4, 3)))


def test_one_point_is_a_row(decentralized):
    model = polka.open(decentralized).model(0)
    np.testing.assert_array_equal(model.values([0.5, -0.25]), model.values([[0.5, -0.25]]))


def test_scaled_run_wants_scaled_points(regression_data, runs):
    train, test, test_x, _ = regression_data
    settings = {"run.mode": "centralized", "data.source": "file", "data.train": train, "data.test": test,
                "learner.loss": "square", "data.scale": "standard"}
    model = polka.open(make_run(runs / "scaled.h5", settings)).model(0)
    with pytest.raises(polka.PolkaError, match=r"data.scale = standard.*pass scaled=True"):
        model.values(test_x)
    assert model.values(test_x, scaled=True).shape == (len(test_x), 1)


def test_unit_norm_run_divides_points(runs):
    """data.unit_norm = 1: the model saw each point over its norm; Model.predict divides the
    points as the run did, so its classes are polka predict's and score the run's accuracy."""
    polka_cli("data", "multidist", "-o", runs / "un.svm", "--set", "data.n_train=800", "--set", "data.n_test=200")
    test_x, test_y = polka.plot.read_libsvm(runs / "un.svm.t", 2)
    settings = {"run.mode": "centralized", "data.unit_norm": 1}
    run = polka.open(make_run(runs / "un.h5", settings))
    model = run.model(0)
    classes = model.predict(test_x)
    np.testing.assert_array_equal(classes, predicted(run.path, runs / "un.svm.t", runs / "un.txt"))
    assert np.mean(classes == test_y) == run.values("test_score")[-1, 0]


def test_adapted_margins_are_the_agents(runs):
    """learner.nu > 0 adapts each agent's novelty threshold rho: the run file keeps it
    (/models/rho), so Model.predict flags what polka predict flags and the run logged."""
    polka_cli("data", "multidist", "-o", runs / "nu.svm", "--set", "data.n_train=800", "--set", "data.n_test=200")
    test_x, _ = polka.plot.read_libsvm(runs / "nu.svm.t", 2)
    settings = {"net.agents": 4, "learner.loss": "novelty", "learner.nu": 0.05}
    run = polka.open(make_run(runs / "nu.h5", settings, ranks=2))
    for agent in range(4):
        model = run.model(agent)
        assert model.rho != 1.0  # adapted from learner.rho's default
        flags = model.predict(test_x)
        np.testing.assert_array_equal(flags, predicted(f"{run.path}:{agent}", runs / "nu.svm.t",
                                                       runs / f"nu{agent}.txt"))
        assert np.mean(flags) == run.values("test_score")[-1, agent]
