"""What the experiment scripts share: running `polka run`, reading a run file's last log step
and its accuracy-against-bytes curve, and writing a figure or a table whole (temporary name +
rename)."""
import csv
import os
import subprocess

import h5py
import numpy as np


def set_args(settings):
    """["a.b=1", ...] -> ["--set", "a.b=1", ...]"""
    return [a for s in settings for a in ("--set", s)]


def run(polka, args, out, log=None, prefix=()):
    """`polka run --quiet ARGS --set run.output=OUT` (its output in LOG, else discarded), after
    PREFIX (a launcher: ["mpirun", "-n", "2"]); exits naming the command when it fails; returns
    its CPU seconds (user + system, all its processes)."""
    start = os.times()
    cmd = list(prefix) + [polka, "run", "--quiet"] + args + ["--set", f"run.output={out}"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with open(log if log else os.devnull, "w") as f:
        result = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    end = os.times()
    if result.returncode != 0:
        raise SystemExit(f"failed ({result.returncode}): {' '.join(cmd)}"
                         + (f"; see {log}" if log else ""))
    return (end.children_user - start.children_user) + (end.children_system - start.children_system)


def last_step(path):
    """The last log step's means over the agents, and the curve of mean accuracy against the
    mean cumulative bytes sent per agent."""
    with h5py.File(path, "r") as f:
        m = f["metrics"]
        score, order = m["test_score"][...], m["model_order"][...]
        bytes_sent, disagreement = m["bytes_sent"][...], m["disagreement"][...]
    return {"error": 100 * (1 - score[-1].mean()), "disagreement": disagreement[-1].mean(),
            "bytes": bytes_sent[-1].mean(), "order": order[-1].mean(),
            "curve": (bytes_sent.mean(axis=1), score.mean(axis=1))}


def save_figure(fig, path):
    """fig into path through a temporary name, so an interrupted save leaves an earlier file."""
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, path)


def save_table(path, header, rows):
    """A CSV file of header and rows into path through a temporary name, so an interrupted
    write leaves an earlier table whole."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    os.replace(tmp, path)


def log_x(values):
    """Bytes for a log axis (a run's first rows may have sent nothing)."""
    return np.maximum(values, 1)
