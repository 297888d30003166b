#!/usr/bin/env python3
"""The figures of docs/figures/ from the run files make.sh (beside this file) leaves in RUNS:
    /usr/bin/python3 docs/figures/draw.py RUNS OUT
Each figure is small (704 × 396 px) and shows one thing; the numbers each shows are printed
with it. The curves and bars are polka.plot's where it has them (drift, the split histogram,
the error and samples per agent), written whole or not at all (plot_cli.py's write_whole) as
PNGs of 128 colours: a third of the bytes, no visible change."""
import io
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import polka  # noqa: E402
import polka.plot as plot  # noqa: E402
from polka.plot_cli import write_whole  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402

SIZE = (6.4, 3.6)  # inches, at save's 110 dpi
SPLITS = (("iid", "i.i.d. streams (penalty: the paper's)", "tab:blue"),
          ("dir", "Dirichlet α = 0.1 (penalty: symmetric)", "tab:orange"))
CENTRAL = "centralized POLK"


def save(figure, path):
    """The figure as a PNG of 128 colours at 110 dpi (704 × 396 px at SIZE)."""
    def write(file):
        png = io.BytesIO()
        figure.savefig(png, dpi=110, format="png")
        png.seek(0)
        small = Image.open(png).convert("RGB").quantize(128, method=Image.Quantize.MEDIANCUT)
        small.save(file, format="PNG", optimize=True)
    write_whole(path, write)


def error(run):
    """Test error in % per log row and agent."""
    return 100.0 * (1.0 - run.values("test_score"))


def bytes_per_agent(run):
    """Cumulative bytes each agent sent, mean over the agents, per log row."""
    return run.values("bytes_sent").mean(axis=1)


def panels(columns, sharey=True):
    figure = Figure(figsize=SIZE)
    axes = figure.subplots(1, columns, sharey=sharey, squeeze=False)[0]
    return figure, axes


def finish(figure, axes, path):
    for ax in axes:
        ax.grid(alpha=0.3)
    figure.tight_layout()
    save(figure, path)


def central_level(ax, runs, split, label=CENTRAL):
    ax.axhline(plot.final_error(runs[f"central_{split}"]), color="k", ls="--", lw=1, label=label)


def decentralized_vs_centralized(runs, out):
    agents, central = runs["er_iid"], runs["central_iid"]
    figure, (ax,) = panels(1)
    x, accuracy = plot.samples_per_agent(agents), 100.0 * agents.values("test_score")
    ax.fill_between(x, accuracy.min(1), accuracy.max(1), color="tab:blue", alpha=0.2,
                    label="16 agents: worst..best")
    ax.plot(x, accuracy.mean(1), color="tab:blue", lw=2, label="16 agents: mean")
    ax.plot(plot.samples_per_agent(central, agents.agents), 100.0 * central.values("test_score")[:, 0],
            "k--", lw=1.5, label=f"{CENTRAL} on the union of the streams")
    ax.set_xlabel("training samples per agent (centralized: its samples / 16)")
    ax.set_ylabel("test accuracy (%)")
    ax.set_ylim(40, None)
    ax.set_title("16 agents on an Erdős–Rényi graph learn as one learner would", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    finish(figure, [ax], f"{out}/decentralized_vs_centralized.png")
    print(f"  16 agents: mean {accuracy[-1].mean():.2f} % (worst {accuracy[-1].min():.2f}, best "
          f"{accuracy[-1].max():.2f}); centralized {100 * central.values('test_score')[-1, 0]:.2f} %")


def read_lambda2(folder):
    with open(f"{folder}/lambda2.tsv") as f:
        pairs = [line.split() for line in f if line.strip()]
    return sorted(((name, float(value)) for name, value in pairs), key=lambda p: p[1])


def topologies(runs, folder, out):
    graphs = read_lambda2(folder)
    figure, axes = panels(2, sharey=False)
    x, width = np.arange(len(graphs)), 0.4
    for k, (split, label, colour) in enumerate(SPLITS):
        final = [runs[f"graph_{split}_{name}"] for name, _ in graphs]
        axes[0].bar(x + (k - 0.5) * width, [plot.final_error(r) for r in final], width, color=colour, label=label)
        axes[1].bar(x + (k - 0.5) * width, [r.values("disagreement")[-1].mean() for r in final], width,
                    color=colour)
        print(f"  {split}: " + ", ".join(f"{name} (λ₂ {l2:.3g}) {plot.final_error(r):.1f} % / "
                                         f"{r.values('disagreement')[-1].mean():.3f}"
                                         for (name, l2), r in zip(graphs, final)))
    central_level(axes[0], runs, "iid", label=f"{CENTRAL} (i.i.d.)")
    axes[0].set_ylim(30, None)
    axes[0].set_ylabel("final mean test error (%)")
    axes[1].set_ylabel("final disagreement")
    for ax in axes:
        ax.set_xticks(x)
        ax.set_xticklabels([f"{name} ({l2:.2g})" for name, l2 in graphs], fontsize=7, rotation=40,
                           ha="right", rotation_mode="anchor")
        ax.set_xlabel("graph (its λ₂, polka graph info)", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, 0.95))
    figure.suptitle("The graph matters when the agents' data differ (16 agents)", fontsize=10)
    for ax in axes:
        ax.grid(alpha=0.3, axis="y")
    figure.tight_layout(rect=(0, 0, 1, 0.94))
    save(figure, f"{out}/topologies.png")


def error_panels(runs, curves, x, title):
    """Mean test error against x(run), a panel per split: curves is [(label, run name of the
    split)], the centralized level dashed; each run's end printed."""
    figure, axes = panels(2)
    for ax, (split, label, _) in zip(axes, SPLITS):
        for name, stem in curves:
            r = runs[stem(split)]
            ax.plot(x(r), error(r).mean(1), lw=1.8, label=name)
            print(f"  {split} {name}: {plot.final_error(r):.2f} % after {bytes_per_agent(r)[-1] / 1e3:.1f} kB per agent")
        central_level(ax, runs, split)
        ax.set_title(label, fontsize=8)
    axes[0].set_ylabel("mean test error (%)")
    axes[0].set_ylim(30, 80)
    axes[1].legend(fontsize=7)
    figure.suptitle(title, fontsize=10)
    return figure, axes


def methods(runs, out):
    curves = [("penalty", lambda split: f"er_{split}")] + [
        (method, lambda split, m=method: f"method_{split}_{m}") for method in ("rf-diffusion", "dkla", "coke")]
    figure, axes = error_panels(runs, curves, bytes_per_agent,
                                "Error against bytes: penalty method and random-feature methods (D = 256)")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("bytes sent per agent")
    finish(figure, axes, f"{out}/methods.png")


def splits(folder, out):
    figure, axes = panels(2)
    for ax, (split, title) in zip(axes, (("iid", "data.split = iid"),
                                         ("dir", "data.split = dirichlet, data.alpha = 0.1"))):
        plot.split_bars(ax, f"{folder}/split_{split}.csv")
        ax.set_title(title, fontsize=9)
        ax.tick_params(axis="x", labelsize=6)
        ax.set_xlabel("agent", fontsize=9)
    axes[1].set_ylabel("")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=7, ncol=len(labels), loc="lower center")
    figure.suptitle("What each of 16 agents learns from (polka data split), multidist", fontsize=10)
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    save(figure, f"{out}/splits.png")


def faults(runs, out):
    curves = [("fault.link_loss = 0", lambda split: f"er_{split}")] + [
        (f"fault.link_loss = {q}", lambda split, q=q: f"loss_{split}_{q}") for q in ("0.2", "0.5")]
    figure, axes = error_panels(runs, curves, plot.samples_per_agent,
                                "Lost messages: 16 agents, Erdős–Rényi graph")
    for ax in axes:
        ax.set_xlabel("training samples per agent")
    finish(figure, axes, f"{out}/faults.png")


def codecs(runs, out):
    figure, (ax,) = panels(1)
    for split, label, colour in SPLITS:
        points = [(codec, runs[f"er_{split}" if codec == "float64" else f"codec_{split}_{codec}"])
                  for codec in ("float64", "float32", "float16", "int8")]
        kb = [bytes_per_agent(r)[-1] / 1e3 for _, r in points]
        err = [plot.final_error(r) for _, r in points]
        ax.plot(kb, err, "o-", color=colour, label=label)
        for (codec, _), b, e in zip(points, kb, err):
            ax.annotate(codec, (b, e), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
        print(f"  {split}: " + ", ".join(f"{c} {e:.2f} % at {b:.1f} kB" for (c, _), b, e in zip(points, kb, err)))
    ax.set_xscale("log")
    ax.set_xticks([5, 10, 20, 50, 100], ["5", "10", "20", "50", "100"])
    ax.set_xlabel("bytes sent per agent over the run (kB)")
    ax.set_ylabel("final mean test error (%)")
    ax.set_ylim(30, 50)
    ax.set_title("Codecs of the penalty method's points and values (16 agents)", fontsize=10)
    ax.legend(fontsize=8, loc="center right")
    finish(figure, [ax], f"{out}/codecs.png")


def drift(runs, folder, out):
    agents = runs["drift_agents"]
    test_x, test_y = plot.read_libsvm(f"{folder}/multidist.svm.t", int(agents.settings["data.dim"]))
    figure = plot.drift(agents, runs["drift_central"], runs["drift_frozen"], test_x, test_y)
    figure.set_size_inches(*SIZE)
    ax = figure.axes[0]
    ax.set_title("")
    ax.set_ylabel("test error now (%)")
    figure.suptitle("A drifting stream: the classes turn once over two passes", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    figure.tight_layout()
    save(figure, f"{out}/drift.png")
    _, n = plot.drift_curves(agents, runs["drift_central"], runs["drift_frozen"], test_x, test_y)
    print(f"  tracking error over the second half: agents {n['agents']:.1f} %, centralized "
          f"{n['centralized']:.1f} %, stopped learner {n['stopped']:.1f} %")


def main(folder, out):
    runs = {os.path.splitext(name)[0]: polka.open(os.path.join(folder, name))
            for name in sorted(os.listdir(folder)) if name.endswith(".h5")}
    decentralized_vs_centralized(runs, out)
    topologies(runs, folder, out)
    methods(runs, out)
    splits(folder, out)
    faults(runs, out)
    codecs(runs, out)
    drift(runs, folder, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
