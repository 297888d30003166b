#!/usr/bin/env python3
"""check_run.py RUN.h5 AGENTS [--partial]: a polka run file read with h5py is complete and
consistent: /config describes the run, every /metrics dataset has one column per agent and
the same rows, the values are in range; unless --partial (a killed run), /models holds every
agent's final model, of the final logged order, and /timing the stages."""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_models  # noqa: E402


def fail(message):
    print(f"check_run.py: {message}")
    sys.exit(1)


def main():
    path, agents, partial = sys.argv[1], int(sys.argv[2]), "--partial" in sys.argv
    with h5py.File(path, "r") as f:
        config = f["config"].attrs
        for key in ("learner.eta", "learner.loss", "net.graph", "run.seed", "polka_version", "mpi_size"):
            if key not in config:
                fail(f"/config has no attribute {key}")
        m = f["metrics"]
        rows = m["round"].shape[0]
        if rows < 1:
            fail("no rows in /metrics")
        for name in ("test_score", "test_loss", "train_loss", "model_order", "disagreement",
                     "bytes_sent", "wall_time", "time_compute", "time_exchange", "time_update",
                     "online_error"):
            if m[name].shape != (rows, agents):
                fail(f"/metrics/{name} has shape {m[name].shape}, expected {(rows, agents)}")
            if not np.all(np.isfinite(m[name][...])):
                fail(f"/metrics/{name} has non-finite values")
        rounds = m["round"][...]
        if not np.all(np.diff(rounds) > 0):
            fail("rounds do not increase")
        score = m["test_score"][...]
        if not np.all((score >= 0) & (score <= 1)):
            fail("accuracy outside [0, 1]")
        if not np.all(np.diff(m["samples"][...]) > 0):
            fail("samples do not increase")
        if partial:
            print(f"ok: {path}: {rows} complete rows of {agents} agents (killed run)")
            return
        order = m["model_order"][-1]
        models = run_models.kernel_models(f)
        for a in range(agents):
            d, w, _ = models[a]
            if d.shape[0] != order[a] or w.shape[0] != order[a]:
                fail(f"agent {a}: model of order {d.shape[0]}, last logged order {order[a]}")
        if "timing" not in f:
            fail("no /timing")
        print(f"ok: {path}: {rows} rows, {agents} agents, final mean accuracy {score[-1].mean():.4f}")


if __name__ == "__main__":
    main()
