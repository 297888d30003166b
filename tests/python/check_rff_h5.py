"""Checks the random-feature run file test_runfile_rff wrote, with the real readers:
    check_rff_h5.py DIR POLKA
h5py reads the layout (runfile.h) and the known θ; the Python package's RandomFeatureModel
and `polka predict` give agent 3's values the C code computed (DIR/values.txt); `polka report`
reads the file; damaged copies are refused by name by both readers. Exits 1 with a message
on the first difference."""
import shutil
import subprocess
import sys

import h5py
import numpy as np

from rounding import U as u, gamma  # tests/, this script's folder

AGENTS, FEATURES, DIM, SHOWN = 7, 16, 2, 3


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check_layout(path):
    with h5py.File(path, "r") as f:
        models = f["models"]
        attrs = {k: models.attrs[k] for k in models.attrs}
        want = {"kind": "random-features", "features": FEATURES, "dim": DIM, "outputs": 1,
                "sigma": 1.5, "seed": 77}
        for key, value in want.items():
            got = attrs.get(key)
            got = got.decode() if isinstance(got, bytes) else got
            if got != value:
                fail(f"/models attribute {key} is {got!r}, not {value!r}")
        shapes = {n: models[n].shape for n in ("omega", "phase", "theta")}
        if shapes != {"omega": (FEATURES, DIM), "phase": (FEATURES,), "theta": (AGENTS, FEATURES, 1)}:
            fail(f"shapes {shapes}")
        theta = models["theta"][...]
        known = np.arange(AGENTS)[:, None] + np.arange(FEATURES)[None, :] / 100.0
        if not np.array_equal(theta[:, :, 0], known):
            fail("theta is not what the ranks wrote")
        if sorted(models) != ["omega", "phase", "theta"]:
            fail(f"/models holds {sorted(models)}")


def read_points(directory):
    points = []
    with open(f"{directory}/points.svm") as f:
        for line in f:
            fields = line.split()
            points.append([float(v.split(":")[1]) for v in fields[1:]])
    return np.array(points), np.loadtxt(f"{directory}/values.txt")


def values_bound(model, points):
    """|f − f'| for f = θᵀ√(2/D)cos(Ωx + b) computed by numpy and by polka (rff.c) on the same
    doubles: the argument Ωx + b to γ_{dim+1}·Σ|terms| on each side [Higham02, §3.1]; cos to 4
    ulp (numpy's SIMD cos under AVX-512; glibc's 1 ulp), ≤ 8u absolute, 10u for the two; the
    product by √(2/D) u each; then θᵀz a dot product of D terms, γ_D·Σ|θ_d z_d| on each side."""
    scale = np.sqrt(2.0 / model.features)
    size = np.abs(points) @ np.abs(model.omega).T + np.abs(model.phase)  # Σ|terms| of Ωx + b
    dz = scale * (2 * gamma(model.dim + 1) * size + 10 * u + 2 * u)
    theta = np.abs(model.theta[:, 0])
    return dz @ theta + 2 * gamma(model.features) * scale * theta.sum()


def check_package(path, points, values):
    import polka
    run = polka.open(path)
    if len(run.models) != AGENTS or sorted(run.models) != list(range(AGENTS)):
        fail(f"run.models has {len(run.models)} models")
    model = run.model(SHOWN)
    if not isinstance(model, polka.RandomFeatureModel) or model.features != FEATURES:
        fail(f"run.model({SHOWN}) is {model!r}")
    got = model.values(points)[:, 0]
    if not np.all(np.abs(got - values) <= values_bound(model, points)):  # values.txt: %.17g
        fail(f"the package's values differ from polka's by {np.max(np.abs(got - values))}")
    if not np.array_equal(model.predict(points), got):
        fail("a regression model's predictions are not its values")
    try:
        run.model(AGENTS)
        fail(f"run.model({AGENTS}) of {AGENTS} agents did not fail")
    except polka.RunFileError as error:
        if "no model for agent 7" not in str(error):
            fail(f"run.model({AGENTS}): {error}")


def check_commands(polka_bin, directory, values):
    path = f"{directory}/rff.h5"
    out = f"{directory}/predictions.txt"
    done = subprocess.run([polka_bin, "predict", "--model", f"{path}:{SHOWN}", "--data",
                           f"{directory}/points.svm", "--output", out],
                          capture_output=True, text=True)
    if done.returncode != 0 or "16 random features" not in done.stdout:
        fail(f"polka predict: {done.returncode} {done.stdout} {done.stderr}")
    if not np.array_equal(np.loadtxt(out), values):
        fail("polka predict's values differ from the writer's")
    done = subprocess.run([polka_bin, "predict", "--model", f"{path}:{AGENTS}", "--data",
                           f"{directory}/points.svm"], capture_output=True, text=True)
    if done.returncode == 0 or "has 7 agents, no agent 7" not in done.stderr:
        fail(f"polka predict of agent 7: {done.returncode} {done.stderr}")
    done = subprocess.run([polka_bin, "report", path], capture_output=True, text=True)
    if done.returncode != 0 or "rff.h5" not in done.stdout:
        fail(f"polka report: {done.returncode} {done.stdout} {done.stderr}")


def set_nan(models):
    models["theta"][3, 5, 0] = np.nan


def wrong_shape(models):
    del models["omega"]
    models["omega"] = np.zeros((FEATURES, DIM + 1))


def unknown_kind(models):
    models.attrs["kind"] = "sparse-features"


def zero_sigma(models):
    models.attrs["sigma"] = 0.0


def no_phase(models):
    del models["phase"]


# damage → what polka predict's message and the package's RunFileError say
DAMAGES = [(set_nan, "theta[3, 5, 0] = nan is not finite", "not finite"),
           (wrong_shape, "/models/omega does not have the shape", "do not fit"),
           (unknown_kind, "/models is of kind 'sparse-features'", "of kind 'sparse-features'"),
           (zero_sigma, "learner.sigma must be > 0", "sigma 0.0 is not > 0"),
           (no_phase, "has no model dataset 'phase'", "damaged")]


def check_damaged(polka_bin, directory):
    import polka
    for damage, c_message, py_message in DAMAGES:
        path = f"{directory}/damaged_{damage.__name__}.h5"
        shutil.copyfile(f"{directory}/rff.h5", path)
        with h5py.File(path, "r+") as f:
            damage(f["models"])
        done = subprocess.run([polka_bin, "predict", "--model", f"{path}:{SHOWN}", "--data",
                               f"{directory}/points.svm"], capture_output=True, text=True)
        lines = done.stderr.splitlines()
        if done.returncode != 1 or len(lines) != 1 or path not in lines[0] or c_message not in lines[0]:
            fail(f"polka predict on {damage.__name__}: {done.returncode} {done.stderr!r}")
        try:
            polka.open(path).model(SHOWN)
            fail(f"the package read {damage.__name__}")
        except polka.RunFileError as error:
            if path not in str(error) or py_message not in str(error):
                fail(f"the package on {damage.__name__}: {error}")


def main():
    directory, polka_bin = sys.argv[1], sys.argv[2]
    check_layout(f"{directory}/rff.h5")
    points, values = read_points(directory)
    check_package(f"{directory}/rff.h5", points, values)
    check_commands(polka_bin, directory, values)
    check_damaged(polka_bin, directory)
    print("PASS")


if __name__ == "__main__":
    main()
