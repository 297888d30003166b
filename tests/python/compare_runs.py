#!/usr/bin/env python3
"""compare_runs.py A.h5 B.h5 [--except NAME ...] [--models] [--new-keys]: two polka run files read with h5py hold the same run, field by
field: every /metrics dataset but the timers (wall_time, time_*) equal bit for bit with the
same rows, every agent's final model (dictionary, weights) byte-identical, and /config equal
but for the keys a resumed run may change (run.output, run.csv, run.checkpoint*, run.passes,
run.watchdog, net.placement and the edges it cuts). --except skips metrics: the disagreement
sums the network average over the ranks (MPI_Allreduce), so its last bits depend on the
number of ranks and the placement. --models compares the final models alone (two engines
that must end with the same models, whatever rows they logged). --new-keys passes over /config
keys that one file has and the other lacks (two builds, the newer knowing more keys). Prints
the first difference and exits 1."""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_models  # noqa: E402

MAY_DIFFER = {"run.output", "run.csv", "run.checkpoint", "run.checkpoint_every",
              "run.checkpoint_seconds", "run.watchdog", "mpi_size", "net.placement",
              "edges_cut", "learner.refit_memory"}


def fail(message):
    print(f"compare_runs.py: {message}")
    sys.exit(1)


def same(name, a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        fail(f"{name}: shapes {a.shape} and {b.shape}")
    if a.tobytes() != b.tobytes():
        where = np.argwhere(a != b)
        fail(f"{name}: differ first at {tuple(where[0]) if len(where) else '?'} "
             f"({a[tuple(where[0])] if len(where) else ''} vs {b[tuple(where[0])] if len(where) else ''})")


def random_features(f):
    kind = f["models"].attrs.get("kind", b"")
    return (kind.decode() if isinstance(kind, bytes) else str(kind)) == "random-features"


def compare_models(a, b):
    """The models of the two files (kernel expansions in either layout, or random features):
    the number of agents' models compared."""
    if random_features(a) or random_features(b):
        if sorted(a["models"]) != sorted(b["models"]):
            fail("the files hold different models")
        for key in set(a["models"].attrs) | set(b["models"].attrs):  # kind, D, ...
            if not np.array_equal(np.asarray(a["models"].attrs.get(key)),
                                  np.asarray(b["models"].attrs.get(key))):
                fail(f"/models attribute {key} differs")
        for name in a["models"]:  # omega, phase, theta
            same(f"/models/{name}", a["models"][name][()], b["models"][name][()])
        return a["models"]["theta"].shape[0]
    ma, mb = run_models.kernel_models(a), run_models.kernel_models(b)
    if sorted(ma) != sorted(mb):
        fail("the files hold different agents' models")
    for agent in sorted(ma):
        (da, wa, attrs_a), (db, wb, attrs_b) = ma[agent], mb[agent]
        same(f"/models agent {agent} dictionary", da, db)
        same(f"/models agent {agent} weights", wa, wb)
        for key in ("kernel", "sigma", "degree", "coef0", "order"):
            if not np.array_equal(np.asarray(attrs_a.get(key)), np.asarray(attrs_b.get(key))):
                fail(f"/models agent {agent}: {key} differs")
    return len(ma)


def main():
    args = sys.argv[1:]
    skip = {args[k + 1] for k in range(len(args) - 1) if args[k] == "--except"}
    models_only, new_keys = "--models" in args, "--new-keys" in args
    args = [x for x in args if x not in ("--models", "--new-keys")]
    files = [x for k, x in enumerate(args) if x != "--except" and (k == 0 or args[k - 1] != "--except")]
    if len(files) != 2:
        fail("usage: compare_runs.py A.h5 B.h5 [--except NAME ...]")
    with h5py.File(files[0], "r") as a, h5py.File(files[1], "r") as b:
        names = sorted(set(a["metrics"]) | set(b["metrics"]))
        checked = 0
        for name in [] if models_only else names:
            if name == "wall_time" or name.startswith("time_") or name in skip:
                continue
            if name not in a["metrics"] or name not in b["metrics"]:
                fail(f"/metrics/{name} is in one file only")
            same(f"/metrics/{name}", a["metrics"][name][()], b["metrics"][name][()])
            checked += 1
        if "models" not in a or "models" not in b:
            fail("a file has no /models (an unfinished run)")
        models = compare_models(a, b)
        if models_only:
            print(f"compare_runs.py: {models} models identical")
            return
        for key in set(a["config"].attrs) | set(b["config"].attrs):
            one_only = (key in a["config"].attrs) != (key in b["config"].attrs)
            if key in MAY_DIFFER or (new_keys and one_only):
                continue
            va, vb = a["config"].attrs.get(key), b["config"].attrs.get(key)
            if not np.array_equal(np.asarray(va), np.asarray(vb)):
                fail(f"/config {key}: {va!r} vs {vb!r}")
        rows = a["metrics"]["round"].shape[0]
        print(f"compare_runs.py: same run: {checked} metric datasets x {rows} rows, "
              f"{models} models identical")


if __name__ == "__main__":
    main()
