#!/usr/bin/env python3
"""dkla and coke converge to the centralized random-feature solution, in the simulator.

A convex problem with a fixed data set per agent: sinc regression, squared loss on D random
features, 16 agents on a connected ER graph, each agent's whole share as its one batch
(learner.batch = n_train / agents) and the exact primal step (net.rf_solve = exact). The
centralized solution θ* is the same method on one agent holding all the data (one exact
step: ridge regression on the union, rff.h). For a growing number of rounds, the relative
distance max_i ‖θ_i − θ*‖ / ‖θ*‖ of the run file's models, and the messages each method sent
(coke censors: fewer). Prints the curve and writes it as a figure.

    experiments/dkla_convergence_sim.py [--polka build/polka] [--out out/dkla_convergence]
"""
import argparse
import os
import sys

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # polka_runs
from polka_runs import run, save_figure, set_args  # noqa: E402

AGENTS, N_TRAIN, FEATURES = 16, 1600, 32
COMMON = ["data.source=sinc", "learner.loss=square", "net.rf_solve=exact",
          f"net.features={FEATURES}", "learner.sigma=1", f"data.n_train={N_TRAIN}",
          "learner.lambda=1e-3", "net.admm_rho=0.003", "run.log_every=100000000"]
ROUNDS = [25, 50, 100, 200, 300, 400, 600, 800, 1000]


def theta_and_messages(polka, settings, out):
    """The run's final θ of every agent, and the variables sent by all agents."""
    run(polka, set_args(COMMON + settings), out)
    with h5py.File(out, "r") as f:
        theta = f["models/theta"][...]
        sent = f["metrics/bytes_sent"][-1].sum() / (FEATURES * 8.0)
    return theta, sent


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--polka", default=os.path.join(ROOT, "build/polka"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out/dkla_convergence"))
    parser.add_argument("--rounds", default=",".join(map(str, ROUNDS)),
                        help="the numbers of rounds to run (comma-separated)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    star, _ = theta_and_messages(args.polka, ["net.method=dkla", "net.agents=1", "net.graph=ring",
                               f"learner.batch={N_TRAIN}"], os.path.join(args.out, "central.h5"))
    star = star[0]
    net = ["net.agents=16", "net.graph=er", "net.p=0.3", f"learner.batch={N_TRAIN // AGENTS}"]
    curves = {"dkla": [], "coke": []}
    print(f"{'rounds':>6s} {'dkla distance':>14s} {'coke distance':>14s} "
          f"{'dkla messages':>14s} {'coke messages':>14s}")
    for rounds in [int(r) for r in args.rounds.split(",")]:
        row = []
        for method, extra in (("dkla", []), ("coke", ["net.censor_alpha=0.5",
                                                       "net.censor_mu=0.97"])):
            theta, sent = theta_and_messages(args.polka, net + [f"net.method={method}", f"run.passes={rounds}"]
                              + extra, os.path.join(args.out, f"{method}_{rounds}.h5"))
            distance = max(np.linalg.norm(t - star) / np.linalg.norm(star) for t in theta)
            curves[method].append((rounds, distance, sent))
            row.append((distance, sent))
        print(f"{rounds:6d} {row[0][0]:14.3e} {row[1][0]:14.3e} {row[0][1]:14.0f} "
              f"{row[1][1]:14.0f}", flush=True)
    for method, curve in curves.items():
        final = curve[-1]
        print(f"{method}: relative distance {final[1]:.2e} after {final[0]} rounds, "
              f"{final[2]:.0f} messages ({'reached' if final[1] <= 1e-6 else 'NOT reached'} 1e-6)")
    if len(curves["dkla"]) > 1:
        figure(curves, os.path.join(args.out, "dkla_convergence.png"))
    return 0 if all(c[-1][1] <= 1e-6 for c in curves.values()) else 1


def figure(curves, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for method, curve in curves.items():
        r, d, s = zip(*curve)
        a.semilogy(r, d, marker="o", label=method)
        b.semilogy(s, d, marker="o", label=method)
    a.axhline(1e-6, ls="--", color="gray")
    b.axhline(1e-6, ls="--", color="gray")
    a.set_xlabel("rounds")
    b.set_xlabel("messages sent (all agents)")
    a.set_ylabel("max_i ||theta_i - theta*|| / ||theta*||")
    a.legend()
    fig.suptitle("16 agents, ER p = 0.3, sinc, squared loss, D = 32: to the centralized solution")
    fig.tight_layout()
    save_figure(fig, path)


if __name__ == "__main__":
    sys.exit(main())
