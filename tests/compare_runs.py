#!/usr/bin/env python3
"""compare_runs.py A.h5 B.h5 [--except NAME ...] [--models]: two polka run files read with h5py hold the same run, field by
field: every /metrics dataset but the timers (wall_time, time_*) equal bit for bit with the
same rows, every agent's final model (dictionary, weights) byte-identical, and /config equal
but for the keys a resumed run may change (run.output, run.csv, run.checkpoint*, run.passes,
run.watchdog, net.placement and the edges it cuts). --except skips metrics: the disagreement
sums the network average over the ranks (MPI_Allreduce), so its last bits depend on the
number of ranks and the placement. --models compares the final models alone (two engines
that must end with the same models, whatever rows they logged). Prints the first difference
and exits 1."""
import sys

import h5py
import numpy as np

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


def main():
    args = sys.argv[1:]
    skip = {args[k + 1] for k in range(len(args) - 1) if args[k] == "--except"}
    models_only = "--models" in args
    args = [x for x in args if x != "--models"]
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
        if sorted(a["models"]) != sorted(b["models"]):
            fail("the files hold different agents' models")
        for key in set(a["models"].attrs) | set(b["models"].attrs):  # random features: kind, D, ...
            if not np.array_equal(np.asarray(a["models"].attrs.get(key)),
                                  np.asarray(b["models"].attrs.get(key))):
                fail(f"/models attribute {key} differs")
        for agent in a["models"]:
            if isinstance(a["models"][agent], h5py.Dataset):  # random features: omega, phase, theta
                same(f"/models/{agent}", a["models"][agent][()], b["models"][agent][()])
                continue
            for field in ("dictionary", "weights"):
                same(f"/models/{agent}/{field}", a["models"][agent][field][()],
                     b["models"][agent][field][()])
        if models_only:
            print(f"compare_runs.py: {len(a['models'])} models identical")
            return
        for key in set(a["config"].attrs) | set(b["config"].attrs):
            if key in MAY_DIFFER:
                continue
            va, vb = a["config"].attrs.get(key), b["config"].attrs.get(key)
            if not np.array_equal(np.asarray(va), np.asarray(vb)):
                fail(f"/config {key}: {va!r} vs {vb!r}")
        rows = a["metrics"]["round"].shape[0]
        print(f"compare_runs.py: same run: {checked} metric datasets x {rows} rows, "
              f"{len(a['models'])} models identical")


if __name__ == "__main__":
    main()
