#!/usr/bin/env python3
"""Lockstep rounds against the asynchronous event engine in virtual time.

For each network (multidist, the penalty method, 200 samples per agent; an Erdős–Rényi or a
random geometric graph of mean degree about 8 at 64 agents and 12 at 1 024): lockstep and
asynchronous runs with 10 % of the agents 10x slower, and with log-normal speeds (sigma 0.5
and 1), one line each of test error and disagreement against virtual time (the run file's
`clock`), beside centralized POLK on the same stream. The lockstep network's virtual time is
its rounds' (each round waits for the slowest update, then the slowest message of each
phase); the asynchronous one runs as long.

Printed per setting: the final test error and disagreement, the virtual time at the end, the
first virtual time at which the network's mean test error is within 0.1 points of the
lockstep network's final error (and how many times sooner that is than the lockstep run's
end), the mean age of the information used at the last log step, and CPU seconds.
"Staleness" compares the asynchronous run with the lockstep run at the same number of
updates of the median agent: what learning from older values costs.

Cost (--cost N): the event engine's loop against the lockstep loop at equal work (equal
speeds, the same rounds: the same samples and the same models), N agents, loop samples/s of
each from the summary, on 1 and 2 ranks.

  experiments/async_stragglers.py [--agents 64,1024] [--graphs er,rgg] [--settings a,b,...]
                                  [--ranks 2] [--cost N] [--polka PATH] [--out DIR]
"""
import argparse
import math
import os
import sys

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # polka_runs
from polka_runs import run, save_figure, set_args  # noqa: E402

ROUNDS = 200  # samples per agent (batch 1): the lockstep run's rounds


def graph_settings(kind, agents):
    degree = 8 if agents <= 256 else 12
    if kind == "er":
        return [f"net.graph=er", f"net.p={degree / (agents - 1):.6g}"]
    return [f"net.graph=rgg", f"net.radius={math.sqrt(degree / (math.pi * agents)):.6g}"]


SETTINGS = [  # name, engine, speed laws
    ("lockstep, equal speeds", "lockstep", []),
    ("lockstep, 10% stragglers x10", "lockstep", ["async.slow_fraction=0.1"]),
    ("async, 10% stragglers x10", "events", ["async.slow_fraction=0.1"]),
    ("async, stragglers, staleness 4", "events", ["async.slow_fraction=0.1", "async.staleness=4"]),
    ("lockstep, log-normal 0.5", "lockstep", ["async.compute_sigma=0.5"]),
    ("async, log-normal 0.5", "events", ["async.compute_sigma=0.5"]),
    ("lockstep, log-normal 1", "lockstep", ["async.compute_sigma=1"]),
    ("async, log-normal 1", "events", ["async.compute_sigma=1"]),
]


def curve(path):
    with h5py.File(path, "r") as f:
        m = f["metrics"]
        return {"clock": m["clock"][:, 0], "error": 100 * (1 - m["test_score"][()].mean(axis=1)),
                "disagreement": m["disagreement"][()].mean(axis=1),
                "updates": np.median(m["updates"][()], axis=1),
                "age": m["info_age"][-1].mean(), "samples": m["samples"][()]}


def reach(c, target):
    """The first virtual time at which the curve's error is within 0.1 points of target."""
    hit = np.nonzero(c["error"] <= target + 0.1)[0]
    return c["clock"][hit[0]] if len(hit) else math.nan


def error_at_updates(c, updates):
    """The curve's error at the first row where the median agent made `updates` updates."""
    hit = np.nonzero(c["updates"] >= updates)[0]
    return c["error"][hit[0]] if len(hit) else math.nan


def network(args, agents, kind, out):
    # a stream of fresh samples for the fast agents: the lockstep runs learn from the first
    # tenth of it (ROUNDS rounds), an asynchronous agent from as many as its speed allows
    base = [f"net.agents={agents}", f"data.n_train={10 * ROUNDS * agents}", "data.n_test=1000",
            "run.log_test=400", f"run.log_every={ROUNDS * agents // 20}"] + graph_settings(kind, agents)
    ranks = ["mpirun", "--oversubscribe", "-n", str(args.ranks)]
    results = {}
    lock_time = {}
    for k, (name, engine, laws) in enumerate(SETTINGS):
        if args.settings and str(k) not in args.settings.split(","):
            continue
        settings = base + laws + [f"async.engine={engine}", "run.passes=0.1"]
        if engine == "events":  # as long as the lockstep run with the same laws, 40 rows
            horizon = lock_time[tuple(laws[:1])]
            settings += [f"async.horizon={horizon!r}", f"async.log_interval={horizon / 40!r}"]
        path = f"{out}/{agents}_{kind}_{len(results)}.h5"
        cpu = run(args.polka, set_args(settings), path, log=path + ".log", prefix=ranks)
        c = curve(path)
        c["cpu"] = cpu
        results[name] = c
        if engine == "lockstep":
            lock_time[tuple(laws[:1])] = c["clock"][-1]
    central = f"{out}/{agents}_{kind}_central.h5"
    cpu = run(args.polka, set_args(base + ["run.mode=centralized", "run.passes=0.1"]), central,
              log=central + ".log")
    with h5py.File(central, "r") as f:
        central_error = 100 * (1 - f["metrics"]["test_score"][-1].mean())
    return results, central_error


def table(agents, kind, results, central_error):
    print(f"\n{agents} agents, {kind} graph, multidist, penalty method; centralized POLK "
          f"{central_error:.2f} %")
    print(f"{'setting':34s} {'error %':>8s} {'disagr.':>8s} {'v.time':>8s} {'reaches':>8s} "
          f"{'sooner':>7s} {'age':>6s} {'staleness':>9s} {'CPU s':>7s}")
    pairs = {"async, 10% stragglers x10": "lockstep, 10% stragglers x10",
             "async, stragglers, staleness 4": "lockstep, 10% stragglers x10",
             "async, log-normal 0.5": "lockstep, log-normal 0.5",
             "async, log-normal 1": "lockstep, log-normal 1"}
    for name, c in results.items():
        lock = results.get(pairs.get(name, name))
        target = lock["error"][-1]
        at = reach(c, target)
        sooner = lock["clock"][-1] / at if at > 0 else math.nan
        cost = math.nan
        if name in pairs:  # what the stale values cost at the lockstep run's updates
            cost = error_at_updates(c, lock["updates"][-1]) - lock["error"][-1]
        print(f"{name:34s} {c['error'][-1]:8.2f} {c['disagreement'][-1]:8.4f} "
              f"{c['clock'][-1]:8.1f} {at:8.1f} {sooner:7.2f} {c['age']:6.2f} "
              f"{cost:+9.2f} {c['cpu']:7.1f}")


def figure(agents, kind, results, central_error, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name, c in results.items():
        style = "--" if name.startswith("lockstep") else "-"
        ax1.plot(c["clock"], c["error"], style, label=name)
        ax2.plot(c["clock"], np.maximum(c["disagreement"], 1e-12), style, label=name)
    ax1.axhline(central_error, color="k", lw=0.8, label="centralized POLK (end)")
    ax1.set_xscale("log")
    ax1.set_xlabel("virtual time")
    ax1.set_ylabel("mean test error (%)")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("virtual time")
    ax2.set_ylabel("disagreement")
    ax1.legend(fontsize=7)
    fig.suptitle(f"{agents} agents, {kind} graph: lockstep (dashed) and asynchronous (solid)")
    fig.tight_layout()
    path = f"{out}/async_{agents}_{kind}.png"
    save_figure(fig, path)
    print(f"figure: {path}")


def loop_rate(log):
    """The summary's loop samples/s."""
    with open(log) as f:
        for line in f:
            if "samples/s" in line and line.startswith("summary: model order"):
                return float(line.split("samples/s")[0].split(",")[-1])
    raise SystemExit(f"no samples/s in {log}")


def cost(args, agents):
    base = [f"net.agents={agents}", f"data.n_train={ROUNDS * agents}", "data.n_test=1000",
            "run.log_test=400", f"run.log_every={ROUNDS * agents // 10}"] + graph_settings("er", agents)
    print(f"\nloop cost, {agents} agents, ER, equal speeds, {ROUNDS} rounds (the same models)")
    print(f"{'ranks':>5s} {'lockstep samples/s':>19s} {'events samples/s':>17s} {'ratio':>6s}")
    for ranks in (1, 2):
        rate = {}
        for engine in ("lockstep", "events"):
            path = f"{args.out}/cost_{agents}_{ranks}_{engine}.h5"
            run(args.polka, set_args(base + [f"async.engine={engine}"]), path, log=path + ".log",
                prefix=["mpirun", "--oversubscribe", "-n", str(ranks)])
            rate[engine] = loop_rate(path + ".log")
        print(f"{ranks:5d} {rate['lockstep']:19.0f} {rate['events']:17.0f} "
              f"{rate['events'] / rate['lockstep']:6.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", default="64,1024")
    parser.add_argument("--graphs", default="er,rgg")
    parser.add_argument("--polka", default=os.environ.get("POLKA", "build/polka"))
    parser.add_argument("--out", default="out/async_stragglers")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--settings", help="numbers of the settings to run (0-7; a lockstep one "
                        "before its asynchronous one)")
    parser.add_argument("--cost", type=int, help="measure the loops' cost at this many agents")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.cost:
        cost(args, args.cost)
        return
    for agents in [int(a) for a in args.agents.split(",")]:
        for kind in args.graphs.split(","):
            results, central_error = network(args, agents, kind, args.out)
            table(agents, kind, results, central_error)
            figure(agents, kind, results, central_error, args.out)


if __name__ == "__main__":
    main()
