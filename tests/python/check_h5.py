#!/usr/bin/python3
"""Reads run files written by tests/mpi/test_runfile.c with h5py and checks them.

  check_h5.py DIR K        DIR/split.h5 and DIR/root.h5, written under K MPI ranks
  check_h5.py --killed F   F, whose writer (test_runfile --slow) was killed: every metric
                           must read, with the same number (>= 1) of complete rows

Exits 1 with a message on the first failed check. Needs h5py and numpy.
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_models  # noqa: E402

AGENTS, ROWS, DIM, OUTPUTS = 7, 5, 2, 3
METRICS = ["test_score", "test_loss", "train_loss", "model_order", "disagreement",
           "bytes_sent", "wall_time", "time_compute", "time_exchange", "time_update"]
STAGES = ["compute", "exchange", "io"]
KERNEL = "polynomial"  # every agent's (tests/mpi/test_runfile.c: kernel_of)


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def expect(cond, message):
    if not cond:
        fail(message)


def cells(rows, metric):
    """The values test_runfile writes: row * 1000 + agent * 10 + metric + 0.25."""
    row = np.arange(rows, dtype=float)[:, None]
    agent = np.arange(AGENTS, dtype=float)[None, :]
    return row * 1000 + agent * 10 + metric + 0.25


def check_metrics(f, rows, name):
    group = f["metrics"]
    expect(group.attrs["agents"] == AGENTS, f"{name}: /metrics agents = {group.attrs['agents']}")
    expect(set(group.keys()) == set(METRICS) | {"round", "samples"},
           f"{name}: metrics {sorted(group.keys())}")
    for m, metric in enumerate(METRICS):
        data = group[metric]
        expect(data.shape == (rows, AGENTS), f"{name}: {metric} shape {data.shape}")
        expect(data.maxshape == (None, AGENTS), f"{name}: {metric} maxshape {data.maxshape}")
        expect(data.dtype == np.float64, f"{name}: {metric} dtype {data.dtype}")
        expect(data.chunks is not None, f"{name}: {metric} is not chunked")
        expect(np.array_equal(data[()], cells(rows, m)), f"{name}: {metric} values\n{data[()]}")
    for metric, step in (("round", 10), ("samples", 70)):
        data = group[metric]
        expect(data.shape == (rows,) and data.maxshape == (None,), f"{name}: {metric} shape")
        expect(np.array_equal(data[()], step * np.arange(1, rows + 1)),
               f"{name}: {metric} = {data[()]}")


def check_config(f, ranks, name):
    attrs = f["config"].attrs
    wants = {"mpi_size": ranks, "mode": "decentralized", "run.mode": "decentralized",
             "learner.sigma": 0.6, "learner.kp": 0.04, "data.n_train": 5000,
             "learner.loss": "multi-hinge", "net.graph": "ring", "run.output": ""}
    for key, want in wants.items():
        expect(key in attrs and attrs[key] == want, f"{name}: /config {key} = {attrs.get(key)}")
    expect(isinstance(attrs["polka_version"], str), f"{name}: polka_version")
    expect(len(attrs) >= 40, f"{name}: only {len(attrs)} /config attributes")
    graph = f["config/graph"]
    expect(graph.attrs["nodes"] == AGENTS, f"{name}: graph nodes")
    edges = graph["edges"][()]
    want = sorted((min(e, (e + 1) % AGENTS), max(e, (e + 1) % AGENTS)) for e in range(AGENTS))
    expect(edges.dtype == np.uint64 and [tuple(e) for e in edges] == want,
           f"{name}: edges {edges}")
    weight = {(min(e, (e + 1) % AGENTS), max(e, (e + 1) % AGENTS)): 0.5 + e / 8
              for e in range(AGENTS)}
    expect(np.array_equal(graph["weights"][()], [weight[e] for e in want]),
           f"{name}: weights {graph['weights'][()]}")


def check_models(f, name):
    expect(run_models.packed(f), f"{name}: /models is not of kind {run_models.KERNEL_KIND}")
    models = run_models.kernel_models(f)
    expect(len(models) == AGENTS, f"{name}: {len(models)} models")
    for a in range(AGENTS):
        d, w, attrs = models[a]
        order = a % 4
        expect(attrs["order"] == order, f"{name}: agent {a} order")
        expect(run_models._text(attrs["kernel"]) == KERNEL, f"{name}: agent {a} kernel")
        expect((attrs["sigma"], attrs["degree"], attrs["coef0"]) == (2, 2, 1.5),
               f"{name}: agent {a} kernel parameters")
        expect(d.shape == (order, DIM) and w.shape == (order, OUTPUTS),
               f"{name}: agent {a} shapes {d.shape} {w.shape}")
        m, j = np.meshgrid(np.arange(order), np.arange(DIM), indexing="ij")
        expect(np.array_equal(d, a + 0.5 * m + 0.125 * j), f"{name}: agent {a} dictionary")
        m, c = np.meshgrid(np.arange(order), np.arange(OUTPUTS), indexing="ij")
        expect(np.array_equal(w, (a + 1) * (m + 1) / 8 - c), f"{name}: agent {a} weights")


def check_timing(f, ranks, name):
    expect(f["timing"].attrs["ranks"] == ranks, f"{name}: /timing ranks")
    r = np.arange(1, ranks + 1)
    for s, stage in enumerate(STAGES):
        t = r * (s + 1) + 0.5
        got = f["timing"][stage][()]
        # halves of small integers: MPI_SUM's partial sums are exact in any order, and the mean
        # is one rounding of the same quotient here and in runfile_meta.c: equal, not close
        expect(np.array_equal(got, [t.min(), t.mean(), t.max()]), f"{name}: timing {stage} = {got}")


def check_dir(directory, ranks):
    for name in ("split.h5", "root.h5"):
        path = f"{directory}/{name}"
        with h5py.File(path, "r") as f:
            check_metrics(f, ROWS, path)
            check_config(f, ranks, path)
            check_models(f, path)
            check_timing(f, ranks, path)
    path = f"{directory}/partial.h5"
    with h5py.File(path, "r") as f:
        score = f["metrics/test_score"][()]
        want = 0.5 * (np.arange(AGENTS)[None, :] + np.arange(2)[:, None])
        expect(np.array_equal(score, want), f"{path}: test_score {score}")
        expect(set(f["metrics"].keys()) == {"test_score", "round", "samples"}, f"{path}: metrics")
        expect("description" not in f["metrics/test_score"].attrs, f"{path}: description")
        expect(f["config"].attrs["learner.loss"] == "square", f"{path}: learner.loss")
        expect("graph" not in f["config"] and "models" not in f and "timing" not in f,
               f"{path}: holds more than metrics and config")
    print(f"PASS: {directory}/split.h5, root.h5 and partial.h5 ({ranks} ranks)")


def check_killed(path):
    with h5py.File(path, "r") as f:
        rows = f["metrics/round"].shape[0]
        expect(rows >= 1, f"{path}: no rows")
        check_metrics(f, rows, path)
        expect(f["config"].attrs["mpi_size"] == 2, f"{path}: mpi_size")
    print(f"PASS: {path} holds {rows} complete rows")


def main(argv):
    if len(argv) == 3 and argv[1] == "--killed":
        check_killed(argv[2])
    elif len(argv) == 3:
        check_dir(argv[1], int(argv[2]))
    else:
        fail("usage: check_h5.py DIR RANKS | --killed FILE")


if __name__ == "__main__":
    main(sys.argv)
