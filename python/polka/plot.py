"""Figures of run files (matplotlib Figures, drawn without pyplot: save them with savefig or
show them in a notebook). plot_cli.py, beside this file, is their command line.

  run(agents, central=None)            score per agent and mean, disagreement, model order
  compare(runs, central=None)          mean score and disagreement of several runs
  sweep(runs)                          final score and disagreement per topology and c
  lambda2(runs)                        final error and disagreement against λ₂ of the graph
  drift(agents, central, frozen, x, y) test error on a drifting stream, and a frozen learner
  faults(runs, key, centrals)          final error and disagreement against a fault setting
  split(histogram_csv)                 each agent's samples by class (`polka data split`);
                                       split_bars(ax, csv) draws them on one axes
"""
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .errors import PolkaError
from .runfile import Run


def _as_run(run):
    return run if isinstance(run, Run) else Run(run)


def _axes(columns, size):
    figure = Figure(figsize=size)
    return figure, figure.subplots(1, columns)


def _finish(figure):
    figure.tight_layout()
    return figure


def samples_per_agent(run, agents=None):
    """Training samples per agent at each log row (a centralized run: per agent of agents)."""
    return run.samples / float(agents or run.agents)


def final_error(run):
    """Final mean test error in % (classification), else the final mean score (MSE, flagged)."""
    score = run.values("test_score")[-1].mean()
    return 100.0 * (1.0 - score) if run.classification else score


def score_label(run):
    return {"accuracy": "test accuracy", "flagged": "fraction flagged", "mse": "test MSE"}[run.score_name]


# ---- run --------------------------------------------------------------------------------------

def had_faults(run):
    return any(name in run.metric_names and np.any(run.values(name) != 0)
               for name in ("messages_lost", "rounds_offline", "value_age"))


def _single_agent_errors(ax, run, x):
    """One learner has no disagreement: its training-side error takes that panel."""
    if run.batch:
        ax.semilogy(x, run.values("train_loss")[:, 0], color="tab:red", lw=2)
        ax.set_ylabel("training MSE")
        ax.set_xlabel("updates (whole training set)")
    else:
        ax.semilogy(x, np.maximum(run.values("online_error")[:, 0], 1e-16), color="tab:red", lw=2)
        ax.set_ylabel("online error (each sample before it is learned)")
        ax.set_xlabel("training samples")
    ax.set_title("training error")
    ax.grid(alpha=0.3, which="both")


def _disagreement_panel(ax, run):
    ax.semilogy(run.rounds, np.maximum(run.values("disagreement").mean(axis=1), 1e-16), color="tab:red", lw=2)
    ax.set_xlabel("round")
    ax.set_ylabel("disagreement  mean ||f_i - f_bar||^2")
    ax.set_title("disagreement")
    ax.grid(alpha=0.3, which="both")


def _faults_panel(ax, run):
    """Per log interval: messages lost per agent and round, fraction offline, mean value age."""
    rounds = run.rounds.astype(float)
    span = np.diff(np.concatenate([[0.0], rounds]))
    span[span == 0] = 1.0

    def per_round(name):
        total = run.values(name).sum(axis=1)
        return np.diff(np.concatenate([[0.0], total])) / span / len(run.logged_agents)

    ax.plot(rounds, per_round("messages_lost"), color="tab:red", lw=2, label="messages lost / agent / round")
    ax.plot(rounds, per_round("rounds_offline"), color="tab:gray", lw=2, label="fraction offline")
    ax.set_xlabel("round")
    ax.set_ylabel("per agent and round")
    ax.grid(alpha=0.3)
    twin = ax.twinx()
    twin.plot(rounds, run.values("value_age").mean(axis=1), color="tab:purple", lw=1.5, ls="--",
              label="mean age of values used")
    twin.set_ylabel("value age (rounds)")
    lines, more = ax.get_legend_handles_labels(), twin.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=8)
    s = run.settings
    ax.set_title(f"faults: loss {s.get('fault.link_loss', 0)}, offline {s.get('fault.offline', 0)}, "
                 f"delay {s.get('fault.delay', 0)}")


def _per_agent_lines(ax, x, values, colour, label, central=None):
    """Each agent faint, the mean bold; central: (x, values, label) of a centralized run, dashed."""
    for a in range(values.shape[1]):
        ax.plot(x, values[:, a], color=colour, alpha=0.18, lw=0.8)
    ax.plot(x, values.mean(axis=1), color=colour, lw=2.4, label=label)
    if central is not None:
        ax.plot(central[0], central[1], "k--", lw=2, label=central[2])
    ax.grid(alpha=0.3)
    ax.legend()


def run(agents, central=None, label=None):
    """Test score per agent (faint) and mean (bold) against samples per agent, centralized
    dashed; disagreement (or, for one learner, its training error); model order; a fourth
    panel of what the faults did when the run had any."""
    agents = _as_run(agents)
    central = _as_run(central) if central is not None else None
    faults = had_faults(agents)
    figure, axes = _axes(4 if faults else 3, (21 if faults else 16, 4.6))
    x = agents.rounds if agents.batch else samples_per_agent(agents)
    mean_label = f"mean of {agents.agents} agents" if agents.agents > 1 else "one learner"
    # the centralized learner saw the union of the agents' streams: per agent, samples / N
    _per_agent_lines(axes[0], x, agents.values("test_score"), "tab:blue", mean_label, central and (
        samples_per_agent(central, agents.agents), central.values("test_score")[:, 0], "centralized POLK"))
    axes[0].set_xlabel("updates (whole training set)" if agents.batch else "training samples per agent")
    axes[0].set_ylabel(score_label(agents))
    axes[0].set_title(f"{label or agents.label()}\n{agents.split()}")
    if agents.agents == 1:
        _single_agent_errors(axes[1], agents, x)
    else:
        _disagreement_panel(axes[1], agents)
    _per_agent_lines(axes[2], agents.rounds, agents.values("model_order"), "tab:green", "mean over agents",
                     central and (central.rounds, central.values("model_order")[:, 0],
                                  "centralized (its own rounds)"))
    axes[2].set_xlabel("round")
    axes[2].set_ylabel("model order")
    axes[2].set_title("model order")
    if faults:
        _faults_panel(axes[3], agents)
    return _finish(figure)


# ---- compare and sweep -------------------------------------------------------------------------

def _virtual_time(run):
    """The rows' virtual time (the metric `clock`): an error naming the file when it has none."""
    if "clock" not in run.metric_names:
        raise ValueError(f"'{run.path}' has no virtual time (metric 'clock'): written by an "
                         "older polka")
    return run.values("clock")[:, 0]


def compare(runs, central=None, labels=None, x="samples"):
    """Mean test score (dotted: the worst agent) and disagreement of several runs, against the
    training samples per agent and the round (x = "samples") or both against the rows' virtual
    time (x = "clock": lockstep and asynchronous engines on one axis)."""
    runs = [_as_run(r) for r in runs]
    labels = labels or [r.label() for r in runs]
    figure, axes = _axes(2, (12, 4.6))
    for r, label in zip(runs, labels):
        score = r.values("test_score")
        at, rounds = (_virtual_time(r), _virtual_time(r)) if x == "clock" else (samples_per_agent(r), r.rounds)
        line, = axes[0].plot(at, score.mean(axis=1), lw=2, label=f"{label} (mean)")
        axes[0].plot(at, score.min(axis=1), lw=1, ls=":", color=line.get_color())
        axes[1].semilogy(rounds, np.maximum(r.values("disagreement").mean(axis=1), 1e-16), lw=2, label=label)
    if central is not None:
        central = _as_run(central)
        if x == "clock":  # the centralized learner's end, as a level
            axes[0].axhline(central.values("test_score")[-1, 0], color="k", ls="--", lw=2,
                            label="centralized POLK (end)")
        else:
            axes[0].plot(samples_per_agent(central, runs[0].agents), central.values("test_score")[:, 0],
                         "k--", lw=2, label="centralized POLK")
    axes[0].set_xlabel("virtual time" if x == "clock" else "training samples per agent")
    axes[0].set_ylabel(score_label(runs[0]) + " (dotted: worst agent)")
    axes[1].set_xlabel("virtual time" if x == "clock" else "round")
    axes[1].set_ylabel("disagreement")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    figure.suptitle(f"data split: {runs[0].split()}", fontsize=10)
    return _finish(figure)


def sweep_table(runs):
    """Final mean score and disagreement per decentralized run (topology, c), and the
    centralized runs' final scores."""
    runs = [_as_run(r) for r in runs]
    rows = [{"topology": r.topology, "c": float(r.settings.get("net.c", np.nan)),
             "score": r.values("test_score")[-1].mean(),
             "disagreement": r.values("disagreement")[-1].mean()}
            for r in runs if r.mode != "centralized"]
    central = [r.values("test_score")[-1, 0] for r in runs if r.mode == "centralized"]
    if not rows:
        raise PolkaError("no decentralized runs to summarize")
    return pd.DataFrame(rows), central


def sweep(runs):
    """Final mean score and disagreement per topology, one bar per penalty c (means over the
    runs of a point); centralized runs as a dashed line."""
    table, central = sweep_table(runs)
    means = table.groupby(["c", "topology"])[["score", "disagreement"]].mean()
    topologies = sorted(table["topology"].unique())
    cs = sorted(table["c"].unique())
    x = np.arange(len(topologies))
    figure, axes = _axes(2, (13, 4.6))
    width = 0.8 / len(cs)
    for k, c in enumerate(cs):
        point = means.loc[c].reindex(topologies)
        axes[0].bar(x + k * width, point["score"], width, label=f"c = {c:g}")
        axes[1].bar(x + k * width, point["disagreement"], width, label=f"c = {c:g}")
    for ax, name in zip(axes, ["final mean test score", "final disagreement"]):
        ax.set_xticks(x + 0.4 - width / 2)
        ax.set_xticklabels(topologies, rotation=20)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3, axis="y")
    if central:
        axes[0].axhline(np.mean(central), color="k", ls="--", lw=1.5, label="centralized POLK")
    for ax in axes:
        ax.legend(fontsize=8)
    axes[1].set_yscale("log")
    axes[0].set_ylim(max(0.0, np.nanmin(means["score"]) - 0.1), None)
    return _finish(figure)


# ---- λ₂ -----------------------------------------------------------------------------------------

def algebraic_connectivity(run):
    """λ₂ of the unweighted Laplacian of the run's graph (/config/graph)."""
    graph = run.graph
    n = graph.number_of_nodes()
    edges = np.array(list(graph.edges()), dtype=np.int64).reshape(-1, 2)
    laplacian = np.zeros((n, n))
    laplacian[edges[:, 0], edges[:, 1]] = laplacian[edges[:, 1], edges[:, 0]] = -1.0
    laplacian[np.diag_indices(n)] = -laplacian.sum(axis=1)
    return np.linalg.eigvalsh(laplacian)[1] if n > 1 else 0.0


def lambda2_table(runs):
    """One row per decentralized run (lambda2, error, disagreement, topology, agents, c) and
    one per centralized run (its agents and error; lambda2 NaN)."""
    rows = []
    for r in map(_as_run, runs):
        central = r.mode == "centralized"
        rows.append({"topology": "centralized" if central else r.topology,
                     "agents": r.settings.get("net.agents", "?") if central else r.agents,
                     "c": np.nan if central else float(r.settings.get("net.c", np.nan)),
                     "lambda2": np.nan if central else algebraic_connectivity(r),
                     "error": final_error(r),
                     "disagreement": np.nan if central else r.values("disagreement")[-1].mean(),
                     "classification": r.classification})
    table = pd.DataFrame(rows)
    if not (table["topology"] != "centralized").any():
        raise PolkaError("no decentralized runs to plot")
    return table


def lambda2(runs):
    """Final mean error (or MSE) and disagreement against the graph's λ₂: a marker per
    topology and size, a colour per c; centralized runs as horizontal lines."""
    table = lambda2_table(runs)
    points, central = table[table.topology != "centralized"], table[table.topology == "centralized"]
    figure, axes = _axes(2, (13, 4.8))
    markers = dict(zip(sorted(set(zip(points.topology, points.agents))), "osD^v<>phH*XP8d"))
    colours = dict(zip(sorted(points.c.unique()), _colour_cycle()))
    for p in points.itertuples():
        style = dict(marker=markers[(p.topology, p.agents)], color=colours[p.c], ls="none", ms=8)
        axes[0].plot(p.lambda2, p.error, **style)
        axes[1].plot(p.lambda2, p.disagreement, **style)
    for (topology, n), marker in markers.items():
        axes[0].plot([], [], marker=marker, color="grey", ls="none", label=f"{topology}, N={n}")
    for c, colour in colours.items():
        axes[0].plot([], [], marker="s", color=colour, ls="none", label=f"c = {c:g}")
    for p in central.itertuples():
        axes[0].axhline(p.error, color="k", ls="--", lw=1.2, label=f"centralized POLK (N={p.agents})")
    error_name = "final mean test error (%)" if points.classification.iloc[0] else "final mean test MSE"
    for ax, name in zip(axes, [error_name, "final disagreement"]):
        ax.set_xscale("log")
        ax.set_xlabel("algebraic connectivity λ₂ of the graph")
        ax.set_ylabel(name)
        ax.grid(alpha=0.3, which="both")
    axes[1].set_yscale("log")
    axes[0].legend(fontsize=7, ncol=2)
    return _finish(figure)


def _colour_cycle():
    import matplotlib
    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


# ---- drift --------------------------------------------------------------------------------------

def read_libsvm(path, dim):
    """A LIBSVM file as (points n × dim, integer labels)."""
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


def turned_errors(model, test_x, test_y, phases):
    """Test error (%) of a classification model on the test set turned by each phase about the
    origin in the first two coordinates (the multidist drift)."""
    errors = []
    for phase in phases:
        c, s = np.cos(phase), np.sin(phase)
        x = test_x.copy()
        x[:, 0], x[:, 1] = c * test_x[:, 0] - s * test_x[:, 1], s * test_x[:, 0] + c * test_x[:, 1]
        errors.append(100.0 * np.mean(model.predict(x) != test_y))
    return np.array(errors)


def drift_curves(agents, central, frozen, test_x, test_y):
    """The curves of `drift` (samples, agents' errors rows × agents, centralized samples and
    error, the frozen learner's error, where it stopped) and its numbers (tracking errors over
    the second half; the frozen learner's last model scored here and in its run file)."""
    agents, central, frozen = _as_run(agents), _as_run(central), _as_run(frozen)
    drift = float(agents.settings.get("data.drift", 0))
    samples = agents.samples.astype(float)
    stop = float(frozen.samples[-1])
    model = frozen.model(0)
    # while it learns, its own run file; after it stops, its last model on the turned test set
    learning = np.interp(samples, frozen.samples, 100 * (1 - frozen.values("test_score")[:, 0]))
    frozen_error = np.where(samples <= stop, learning, turned_errors(model, test_x, test_y, drift * samples))
    central_error = 100.0 * (1.0 - central.values("test_score")[:, 0])
    err = 100.0 * (1.0 - agents.values("test_score"))
    half = samples > samples[-1] / 2
    numbers = {"agents": err.mean(1)[half].mean(),
               "centralized": central_error[central.samples > samples[-1] / 2].mean(),
               "stopped": frozen_error[half].mean(),
               "stopped_last_here": turned_errors(model, test_x, test_y, [drift * stop])[0],
               "stopped_last_file": 100 * (1 - frozen.values("test_score")[-1, 0])}
    return dict(samples=samples, err=err, central_samples=central.samples, central=central_error,
                frozen=frozen_error, stop=stop, drift=drift), numbers


def drift(agents, central, frozen, test_x, test_y):
    """A drifting multidist stream: test error against the present distribution of the agents
    (mean, band best..worst), centralized POLK, and frozen's last model (a learner that stopped
    at its last sample) on the test set (at phase 0) turned by data.drift × samples."""
    agents = _as_run(agents)
    c, _ = drift_curves(agents, central, frozen, test_x, test_y)
    figure, ax = _axes(1, (9, 4.4))
    ax.fill_between(c["samples"], c["err"].min(1), c["err"].max(1), color="tab:blue", alpha=0.18,
                    label=f"{agents.agents} agents: best..worst")
    ax.plot(c["samples"], c["err"].mean(1), color="tab:blue", lw=2,
            label=f"{agents.agents} agents: mean ({agents.label()})")
    ax.plot(c["central_samples"], c["central"], "k--", lw=2, label="centralized POLK")
    ax.plot(c["samples"], c["frozen"], color="tab:red", lw=2, label=f"stopped learning at {c['stop']:.0f} samples")
    ax.axvline(c["stop"], color="tab:red", ls=":", lw=1)
    rate = c["drift"]
    top = ax.secondary_xaxis("top", functions=(lambda s: np.degrees(rate * s), lambda d: np.radians(d) / rate))
    top.set_xlabel("rotation of the classes (degrees)")
    ax.set_xlabel("training samples (all agents)")
    ax.set_ylabel("test error against the present distribution (%)")
    ax.set_title(f"drifting multidist: {agents.split()}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _finish(figure)


# ---- faults -------------------------------------------------------------------------------------

def faults_table(runs, key="fault.link_loss"):
    """One row per run: its split, agents, the value of key, final error, disagreement and
    largest model order."""
    rows = []
    for r in map(_as_run, runs):
        rows.append({"split": r.settings.get("data.split", "iid"), "agents": r.agents,
                     key: float(r.settings.get(key, 0)), "error": final_error(r),
                     "disagreement": r.values("disagreement")[-1].mean(),
                     "max_order": r.values("model_order")[-1].max(), "classification": r.classification})
    return pd.DataFrame(rows).sort_values(["split", "agents", key], ignore_index=True)


def faults(runs, key="fault.link_loss", centrals=()):
    """Final mean error (or MSE) and disagreement against one fault setting (key), one line per
    data split and network size; centralized runs as horizontal lines."""
    table = faults_table(runs, key)
    figure, axes = _axes(2, (12, 4.6))
    for (split, agents), line in table.groupby(["split", "agents"]):
        label = f"{split}, {agents} agents"
        axes[0].plot(line[key], line["error"], "o-", label=label)
        axes[1].semilogy(line[key], np.maximum(line["disagreement"], 1e-16), "o-", label=label)
    for r in map(_as_run, centrals):
        axes[0].axhline(final_error(r), ls="--", color="k", lw=1,
                        label=f"centralized POLK ({r.settings.get('data.split', 'iid')} stream, "
                              f"N={r.settings.get('net.agents', '?')})")
    axes[0].set_ylabel("final mean test error (%)" if table.classification.iloc[0] else "final mean test MSE")
    axes[1].set_ylabel("final disagreement")
    for ax in axes:
        ax.set_xlabel(key)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    return _finish(figure)


# ---- split --------------------------------------------------------------------------------------

def read_split(histogram):
    """A `polka data split` CSV as (its title line, its class names, counts agents × classes)."""
    with open(histogram) as f:
        title = f.readline().lstrip("# ").strip()
        header = f.readline().strip().split(",")
        rows = [list(map(int, line.split(","))) for line in f if line.strip()]
    if not rows:
        raise PolkaError(f"{histogram} has no agents")
    classes = [name.replace("class_", "class ") for name in header[1:]]
    return title, classes, np.array([r[1:] for r in rows], dtype=float)


def split_bars(ax, histogram):
    """Each agent's samples by class (`polka data split`'s CSV) as stacked bars on ax; the
    CSV's title line."""
    title, classes, counts = read_split(histogram)
    _split_bars(ax, classes, counts)
    return title


def _split_bars(ax, classes, counts):
    agents = np.arange(counts.shape[0])
    import matplotlib
    cmap = matplotlib.colormaps["tab10" if counts.shape[1] <= 10 else "tab20"]
    bottom = np.zeros(len(agents))
    for c in range(counts.shape[1]):
        ax.bar(agents, counts[:, c], bottom=bottom, color=cmap(c % cmap.N), label=classes[c])
        bottom += counts[:, c]
    ax.set_xlabel("agent")
    ax.set_ylabel("training samples learned")
    ax.set_xticks(agents)


def split(histogram):
    """Stacked bars: each agent's samples by class, as `polka data split` counted them (CSV)."""
    title, classes, counts = read_split(histogram)
    figure, ax = _axes(1, (max(5, 0.35 * counts.shape[0] + 2), 3.6))
    _split_bars(ax, classes, counts)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, ncol=min(counts.shape[1], 5), loc="upper center", bbox_to_anchor=(0.5, -0.18))
    return _finish(figure)
