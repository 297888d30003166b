#!/usr/bin/env python3
"""Plots of polka run files (HDF5). Needs h5py and matplotlib (Debian: python3-h5py,
python3-matplotlib); run it with the system python: /usr/bin/python3 experiments/plot.py.

  plot.py run DECENTRALIZED.h5 [--centralized CENTRAL.h5] [--label TEXT] -o OUT.png
      test score vs samples per agent (each agent faint, mean bold, centralized dashed),
      disagreement vs round (log scale) and model order vs round, side by side.
  plot.py compare A.h5 B.h5 ... [--centralized CENTRAL.h5] [--labels a,b,...] -o OUT.png
      mean test score and disagreement of several decentralized runs in one figure.
  plot.py sweep RUN.h5 ... -o OUT.png
      final mean score and disagreement per topology, one line per penalty c.
  plot.py lambda2 RUN.h5 ... -o OUT.png
      final mean error (or MSE) and disagreement against the graph's algebraic connectivity
      λ₂ (from /config/graph), one marker per topology and size, one colour per penalty c;
      centralized runs as horizontal lines.
  plot.py drift AGENTS.h5 --centralized CENTRAL.h5 --frozen FROZEN.h5 --test TEST.svm -o OUT.png
      a drifting multidist stream: test error against the present distribution over time of the
      agents (mean, band = best..worst), centralized POLK, and the model of FROZEN.h5 (a
      learner that stopped learning at its last sample), evaluated here on TEST.svm (the test
      set at phase 0, `polka data multidist`) turned by data.drift x samples, as polka does.
  plot.py faults RUN.h5 ... [--centralized C.h5 ...] [--key fault.link_loss] -o OUT.png
      final mean error (or MSE) and disagreement against one fault setting (--key), one line
      per data split and network size; centralized runs as horizontal lines. Prints the table.
  plot.py split HIST.csv -o OUT.png
      the per-agent class histogram written by `polka data split` (stacked bars, one per agent).

`plot.py run` adds a fourth panel when the run had faults: messages lost per agent and round,
the fraction of agents offline and the mean age of the values used, per log interval.

Reads only the run files: /metrics/<name> (rows = log steps, columns = agents),
/metrics/round, /metrics/samples and the attributes of /config.
"""
import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

CLASSIFICATION = {"multi-hinge", "multi-logistic", "hinge", "logistic", "soft-margin"}


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


class Run:
    """The parts of a run file the plots need."""

    def __init__(self, path):
        self.path = path
        with h5py.File(path, "r") as f:
            if "metrics" not in f or "config" not in f:
                raise SystemExit(f"plot.py: {path} is not a polka run file (no /metrics or /config)")
            m = f["metrics"]
            self.metrics = {name: np.asarray(m[name]) for name in m}
            self.config = {k: text(v) for k, v in f["config"].attrs.items()}
        self.agents = self.metrics["test_score"].shape[1]
        self.rows = self.metrics["test_score"].shape[0]
        loss = self.config.get("learner.loss", "multi-hinge")
        self.classification = loss in CLASSIFICATION
        self.score_name = ("test accuracy" if self.classification else
                           "fraction flagged" if loss == "novelty" else "test MSE")
        self.mode = self.config.get("run.mode", "decentralized")
        self.control = self.config.get("learner.control", "komp")
        # slkl and krr learn from the whole training set: their rows are updates, not samples
        self.batch = self.control in ("slkl", "krr")

    def samples_per_agent(self, agents=None):
        return self.metrics["samples"] / float(agents or self.agents)

    def split(self):
        """The data split as a paper states it: 'dirichlet α=0.1', 'shards k=2', ... (+ skew, drift)."""
        c = self.config
        split = c.get("data.split", "iid")
        text = {"dirichlet": f"dirichlet α={c.get('data.alpha', '?')}",
                "shards": f"shards k={c.get('data.shards', '?')}",
                "skewed": f"skewed {c.get('data.skew_classes', '?')} classes, {c.get('data.skew_fraction', '?')}",
                }.get(split, split)
        if float(c.get("data.quantity_sigma", 0)) > 0:
            text += f", quantity σ={c['data.quantity_sigma']}"
        if float(c.get("data.drift", 0)) > 0:
            text += f", drift {c['data.drift']} rad/sample"
        return text

    def label(self):
        graph = os.path.splitext(os.path.basename(self.config.get("net.graph", "?")))[0]
        if self.mode == "centralized":
            return "centralized " + ("POLK" if self.control == "komp" else self.control)
        return f"{graph}, c={self.config.get('net.c', '?')}, {self.config.get('net.penalty', 'paper')}"


def plot_single_agent_errors(ax, run, x):
    """One learner has no disagreement: its training-side error takes that panel."""
    if run.batch:
        ax.semilogy(x, run.metrics["train_loss"][:, 0], color="tab:red", lw=2)
        ax.set_ylabel("training MSE")
        ax.set_xlabel("updates (whole training set)")
    else:
        ax.semilogy(x, np.maximum(run.metrics["online_error"][:, 0], 1e-16), color="tab:red", lw=2)
        ax.set_ylabel("online error (each sample before it is learned)")
        ax.set_xlabel("training samples")
    ax.set_title("training error")
    ax.grid(alpha=0.3, which="both")


def had_faults(run):
    return any(name in run.metrics and np.any(run.metrics[name] != 0)
               for name in ("messages_lost", "rounds_offline", "value_age"))


def plot_faults_panel(ax, run):
    """Per log interval: messages lost per agent and round, fraction offline, mean value age."""
    rounds = run.metrics["round"].astype(float)
    span = np.diff(np.concatenate([[0.0], rounds]))
    span[span == 0] = 1.0

    def per_round(name):
        total = run.metrics[name].sum(axis=1)
        return np.diff(np.concatenate([[0.0], total])) / span / run.agents

    ax.plot(rounds, per_round("messages_lost"), color="tab:red", lw=2, label="messages lost / agent / round")
    ax.plot(rounds, per_round("rounds_offline"), color="tab:gray", lw=2, label="fraction offline")
    ax.set_xlabel("round")
    ax.set_ylabel("per agent and round")
    ax.grid(alpha=0.3)
    twin = ax.twinx()
    twin.plot(rounds, run.metrics["value_age"].mean(axis=1), color="tab:purple", lw=1.5, ls="--",
              label="mean age of values used")
    twin.set_ylabel("value age (rounds)")
    lines = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=8)
    c = run.config
    ax.set_title(f"faults: loss {c.get('fault.link_loss', '0')}, offline {c.get('fault.offline', '0')}, "
                 f"delay {c.get('fault.delay', '0')}")


def plot_run(args):
    run = Run(args.decentralized)
    central = Run(args.centralized) if args.centralized else None
    faults = had_faults(run)
    fig, axes = plt.subplots(1, 4 if faults else 3, figsize=(21 if faults else 16, 4.6))
    ax = axes[0]
    x = run.metrics["round"] if run.batch else run.samples_per_agent()
    score = run.metrics["test_score"]
    for a in range(run.agents):
        ax.plot(x, score[:, a], color="tab:blue", alpha=0.18, lw=0.8)
    ax.plot(x, score.mean(axis=1), color="tab:blue", lw=2.4, label=f"mean of {run.agents} agents" if run.agents > 1 else "one learner")
    if central is not None:
        # the centralized learner saw the union of the agents' streams: per agent, samples / N
        ax.plot(central.samples_per_agent(run.agents), central.metrics["test_score"][:, 0], "k--",
                lw=2, label="centralized POLK")
    ax.set_xlabel("updates (whole training set)" if run.batch else "training samples per agent")
    ax.set_ylabel(run.score_name)
    ax.set_title(f"{args.label or run.label()}\n{run.split()}")
    ax.grid(alpha=0.3)
    ax.legend()
    rounds = run.metrics["round"]
    if run.agents == 1:
        plot_single_agent_errors(axes[1], run, x)
    else:
        ax = axes[1]
        dis = np.maximum(run.metrics["disagreement"].mean(axis=1), 1e-16)
        ax.semilogy(rounds, dis, color="tab:red", lw=2)
        ax.set_xlabel("round")
        ax.set_ylabel("disagreement  mean ||f_i - f_bar||^2")
        ax.set_title("disagreement")
        ax.grid(alpha=0.3, which="both")
    ax = axes[2]
    order = run.metrics["model_order"]
    for a in range(run.agents):
        ax.plot(rounds, order[:, a], color="tab:green", alpha=0.18, lw=0.8)
    ax.plot(rounds, order.mean(axis=1), color="tab:green", lw=2.4, label="mean over agents")
    if central is not None:
        ax.plot(central.metrics["round"], central.metrics["model_order"][:, 0], "k--", lw=2,
                label="centralized (its own rounds)")
    ax.set_xlabel("round")
    ax.set_ylabel("model order")
    ax.set_title("model order")
    ax.grid(alpha=0.3)
    ax.legend()
    if faults:
        plot_faults_panel(axes[3], run)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


def plot_compare(args):
    runs = [Run(p) for p in args.runs]
    labels = args.labels.split(",") if args.labels else [r.label() for r in runs]
    central = Run(args.centralized) if args.centralized else None
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    for run, label in zip(runs, labels):
        score = run.metrics["test_score"]
        line, = axes[0].plot(run.samples_per_agent(), score.mean(axis=1), lw=2, label=f"{label} (mean)")
        axes[0].plot(run.samples_per_agent(), score.min(axis=1), lw=1, ls=":", color=line.get_color())
        dis = np.maximum(run.metrics["disagreement"].mean(axis=1), 1e-16)
        axes[1].semilogy(run.metrics["round"], dis, lw=2, label=label)
    if central is not None:
        axes[0].plot(central.samples_per_agent(runs[0].agents), central.metrics["test_score"][:, 0],
                     "k--", lw=2, label="centralized POLK")
    axes[0].set_xlabel("training samples per agent")
    axes[0].set_ylabel(runs[0].score_name + " (dotted: worst agent)")
    axes[1].set_xlabel("round")
    axes[1].set_ylabel("disagreement")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"data split: {runs[0].split()}", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


def plot_sweep(args):
    points, central = {}, []
    for path in args.runs:
        run = Run(path)
        if run.mode == "centralized":
            central.append(run.metrics["test_score"][-1, 0])
            continue
        topo = os.path.splitext(os.path.basename(run.config.get("net.graph", "?")))[0]
        c = float(run.config.get("net.c", "nan"))
        score = run.metrics["test_score"][-1].mean()
        dis = run.metrics["disagreement"][-1].mean()
        points.setdefault(c, {}).setdefault(topo, []).append((score, dis))
    if not points:
        raise SystemExit("plot.py: no decentralized runs to summarize")
    topologies = sorted({t for per_c in points.values() for t in per_c})
    x = np.arange(len(topologies))
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.6))
    width = 0.8 / len(points)
    for k, c in enumerate(sorted(points)):
        means = [np.mean([s for s, _ in points[c].get(t, [(np.nan, np.nan)])]) for t in topologies]
        dis = [np.mean([d for _, d in points[c].get(t, [(np.nan, np.nan)])]) for t in topologies]
        axes[0].bar(x + k * width, means, width, label=f"c = {c:g}")
        axes[1].bar(x + k * width, dis, width, label=f"c = {c:g}")
    for ax, name in zip(axes, ["final mean test score", "final disagreement"]):
        ax.set_xticks(x + 0.4 - width / 2)
        ax.set_xticklabels(topologies, rotation=20)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    if central:
        axes[0].axhline(np.mean(central), color="k", ls="--", lw=1.5, label="centralized POLK")
        axes[0].legend(fontsize=8)
    axes[1].set_yscale("log")
    lo = np.nanmin([np.mean([s for s, _ in v]) for per_c in points.values() for v in per_c.values()])
    axes[0].set_ylim(max(0.0, lo - 0.1), None)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


def algebraic_connectivity(path):
    """λ₂ of the unweighted Laplacian of the run's graph (/config/graph/edges)."""
    with h5py.File(path, "r") as f:
        if "config/graph" not in f:
            raise SystemExit(f"plot.py: {path} has no /config/graph")
        edges = np.asarray(f["config/graph/edges"], dtype=np.int64).reshape(-1, 2)
        n = int(f["config/graph"].attrs["nodes"])
    laplacian = np.zeros((n, n))
    laplacian[edges[:, 0], edges[:, 1]] = laplacian[edges[:, 1], edges[:, 0]] = -1.0
    laplacian[np.diag_indices(n)] = -laplacian.sum(axis=1)
    return np.linalg.eigvalsh(laplacian)[1] if n > 1 else 0.0


def final_error(run):
    score = run.metrics["test_score"][-1].mean()
    return 100.0 * (1.0 - score) if run.classification else score


def plot_lambda2(args):
    points, central = [], []
    for path in args.runs:
        run = Run(path)
        if run.mode == "centralized":
            central.append((run.config.get("net.agents", "?"), final_error(run)))
            continue
        graph = run.config.get("net.graph", "?")
        topo = os.path.splitext(os.path.basename(graph))[0]
        points.append((algebraic_connectivity(path), final_error(run),
                       run.metrics["disagreement"][-1].mean(), topo, run.agents,
                       float(run.config.get("net.c", "nan")), run.classification))
    if not points:
        raise SystemExit("plot.py: no decentralized runs to plot")
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    markers = dict(zip(sorted({(p[3], p[4]) for p in points}), "osD^v<>phH*XP8d"))
    colours = dict(zip(sorted({p[5] for p in points}), plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for lam, err, dis, topo, n, c, _ in points:
        kw = dict(marker=markers[(topo, n)], color=colours[c], ls="none", ms=8)
        axes[0].plot(lam, err, **kw)
        axes[1].plot(lam, dis, **kw)
    for (topo, n), m in markers.items():
        axes[0].plot([], [], marker=m, color="grey", ls="none", label=f"{topo}, N={n}")
    for c, col in colours.items():
        axes[0].plot([], [], marker="s", color=col, ls="none", label=f"c = {c:g}")
    for agents, err in central:
        axes[0].axhline(err, color="k", ls="--", lw=1.2, label=f"centralized POLK (N={agents})")
    error_name = "final mean test error (%)" if points[0][6] else "final mean test MSE"
    for ax, name in zip(axes, [error_name, "final disagreement"]):
        ax.set_xscale("log")
        ax.set_xlabel("algebraic connectivity λ₂ of the graph")
        ax.set_ylabel(name)
        ax.grid(alpha=0.3, which="both")
    axes[1].set_yscale("log")
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")
    for lam, err, dis, topo, n, c, _ in sorted(points, key=lambda p: (p[5], p[0])):
        print(f"{topo:>12} N={n:<6} c={c:<4g} lambda2={lam:10.4g}  error={err:7.3f}  disagreement={dis:.4g}")
    for agents, err in central:
        print(f"{'centralized':>12} N={agents:<6} error={err:7.3f}")
def plot_split(args):
    """Stacked bars: each agent's samples by class, as `polka data split` counted them."""
    with open(args.histogram) as f:
        title = f.readline().lstrip("# ").strip()
        header = f.readline().strip().split(",")
        rows = [list(map(int, line.split(","))) for line in f if line.strip()]
    if not rows:
        raise SystemExit(f"plot.py: {args.histogram} has no agents")
    counts = np.array([r[1:] for r in rows], dtype=float)
    agents = np.arange(counts.shape[0])
    fig, ax = plt.subplots(figsize=(max(5, 0.35 * len(agents) + 2), 3.6))
    cmap = plt.get_cmap("tab10" if counts.shape[1] <= 10 else "tab20")
    bottom = np.zeros(len(agents))
    for c in range(counts.shape[1]):
        ax.bar(agents, counts[:, c], bottom=bottom, color=cmap(c % cmap.N),
               label=header[c + 1].replace("class_", "class "))
        bottom += counts[:, c]
    ax.set_xlabel("agent")
    ax.set_ylabel("training samples learned")
    ax.set_title(title, fontsize=9)
    ax.set_xticks(agents)
    ax.legend(fontsize=7, ncol=min(counts.shape[1], 5), loc="upper center",
              bbox_to_anchor=(0.5, -0.18))
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


def read_libsvm(path, dim):
    xs, ys = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            x = np.zeros(dim)
            for item in parts[1:]:
                k, v = item.split(":")
                x[int(k) - 1] = float(v)
            xs.append(x)
            ys.append(int(float(parts[0])))
    return np.array(xs), np.array(ys)


def frozen_errors(path, test_x, test_y, phases):
    """Test error of a Gaussian-kernel model (agent 0 of a run file) on the test set turned by
    each phase about the origin in the first two coordinates (the multidist drift)."""
    with h5py.File(path, "r") as f:
        dictionary = np.asarray(f["models/agent_0000/dictionary"])
        weights = np.asarray(f["models/agent_0000/weights"])
        config = {k: text(v) for k, v in f["config"].attrs.items()}
    if config.get("learner.kernel", "gaussian") != "gaussian":
        raise SystemExit("plot.py drift: the frozen model must use the Gaussian kernel")
    sigma = float(config["learner.sigma"])
    errors = []
    for phase in phases:
        c, s = np.cos(phase), np.sin(phase)
        x = test_x.copy()
        x[:, 0], x[:, 1] = c * test_x[:, 0] - s * test_x[:, 1], s * test_x[:, 0] + c * test_x[:, 1]
        sq = (x * x).sum(1)[:, None] + (dictionary * dictionary).sum(1)[None, :] - 2 * x @ dictionary.T
        f_x = np.exp(-np.maximum(sq, 0) / (2 * sigma * sigma)) @ weights
        errors.append(100.0 * np.mean(f_x.argmax(1) != test_y))
    return np.array(errors)


def plot_drift(args):
    run, central = Run(args.decentralized), Run(args.centralized)
    drift = float(run.config.get("data.drift", 0))
    samples = run.metrics["samples"]
    test_x, test_y = read_libsvm(args.test, int(run.config["data.dim"]))
    stopped = Run(args.frozen)
    stop = float(stopped.metrics["samples"][-1])
    # while it learns, its own run file; after it stops, its last model on the turned test set
    frozen = frozen_errors(args.frozen, test_x, test_y, drift * samples)
    learning = np.interp(samples, stopped.metrics["samples"], 100 * (1 - stopped.metrics["test_score"][:, 0]))
    frozen = np.where(samples <= stop, learning, frozen)
    err = 100.0 * (1.0 - run.metrics["test_score"])
    fig, ax = plt.subplots(figsize=(9, 4.4))
    ax.fill_between(samples, err.min(1), err.max(1), color="tab:blue", alpha=0.18,
                    label="16 agents: best..worst")
    ax.plot(samples, err.mean(1), color="tab:blue", lw=2, label=f"{run.agents} agents: mean ({run.label()})")
    ax.plot(central.metrics["samples"], 100.0 * (1.0 - central.metrics["test_score"][:, 0]), "k--",
            lw=2, label="centralized POLK")
    ax.plot(samples, frozen, color="tab:red", lw=2, label=f"stopped learning at {stop:.0f} samples")
    ax.axvline(stop, color="tab:red", ls=":", lw=1)
    top = ax.secondary_xaxis("top", functions=(lambda s: np.degrees(drift * s),
                                               lambda d: np.radians(d) / drift))
    top.set_xlabel("rotation of the classes (degrees)")
    ax.set_xlabel("training samples (all agents)")
    ax.set_ylabel("test error against the present distribution (%)")
    ax.set_title(f"drifting multidist: {run.split()}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")
    half = samples > samples[-1] / 2
    print("tracking error (mean test error over the second half): "
          f"{run.agents} agents {err.mean(1)[half].mean():.2f} %, centralized "
          f"{np.mean(100 * (1 - central.metrics['test_score'][:, 0])[central.metrics['samples'] > samples[-1] / 2]):.2f} %, "
          f"stopped learner {frozen[half].mean():.2f} %")
    # the check that this evaluation is polka's: the last model at the phase it stopped at
    at_stop = frozen_errors(args.frozen, test_x, test_y, [drift * stop])[0]
    print(f"stopped learner's last model at its last sample: {at_stop:.2f} % (plot.py), "
          f"{100 * (1 - stopped.metrics['test_score'][-1, 0]):.2f} % (its run file)")


def plot_faults(args):
    """Final mean error and disagreement against one fault setting, a line per split and size."""
    lines, classification = {}, None
    for path in args.runs:
        run = Run(path)
        if classification is None:  # the first run names the unit
            classification = run.classification
        key = (run.config.get("data.split", "iid"), run.agents)
        x = float(run.config.get(args.key, "0"))
        dis = run.metrics["disagreement"][-1].mean()
        lines.setdefault(key, []).append((x, final_error(run), dis, run.metrics["model_order"][-1].max()))
    centrals = [Run(path) for path in (args.centralized or [])]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    unit = "%" if classification else ""
    print(f"{'split':>10} {'agents':>6} {args.key:>18} {'error' + unit:>10} {'disagreement':>13} {'max order':>9}")
    for (split, agents), points in sorted(lines.items()):
        points.sort()
        xs, errs, dis, orders = (np.array(v) for v in zip(*points))
        label = f"{split}, {agents} agents"
        axes[0].plot(xs, errs, "o-", label=label)
        axes[1].semilogy(xs, np.maximum(dis, 1e-16), "o-", label=label)
        for x, e, d, o in points:
            print(f"{split:>10} {agents:>6} {x:>18g} {e:>10.3f} {d:>13.4g} {o:>9.0f}")
    for run in centrals:
        err = final_error(run)
        axes[0].axhline(err, ls="--", color="k", lw=1,
                        label=f"centralized POLK ({run.config.get('data.split', 'iid')} stream, "
                              f"N={run.config.get('net.agents', '?')})")
        print(f"{'central':>10} {'':>6} {'':>18} {err:>10.3f}  ({run.path})")
    axes[0].set_ylabel("final mean test error (%)" if unit else "final mean test MSE")
    axes[1].set_ylabel("final disagreement")
    for ax in axes:
        ax.set_xlabel(args.key)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("decentralized")
    p.add_argument("--centralized")
    p.add_argument("--label")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("compare")
    p.add_argument("runs", nargs="+")
    p.add_argument("--centralized")
    p.add_argument("--labels")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("sweep")
    p.add_argument("runs", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("lambda2")
    p.add_argument("runs", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("drift")
    p.add_argument("decentralized")
    p.add_argument("--centralized", required=True)
    p.add_argument("--frozen", required=True)
    p.add_argument("--test", required=True)
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("faults")
    p.add_argument("runs", nargs="+")
    p.add_argument("--centralized", action="append")
    p.add_argument("--key", default="fault.link_loss")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("split")
    p.add_argument("histogram")
    p.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    commands = {"run": plot_run, "compare": plot_compare, "sweep": plot_sweep, "split": plot_split,
                "drift": plot_drift, "lambda2": plot_lambda2, "faults": plot_faults}
    commands[args.command](args)


if __name__ == "__main__":
    main(sys.argv[1:])
