#!/usr/bin/env python3
"""The field's decentralized kernel learners side by side.

Every method on the same streams, graph and faults: the penalty method (paper, symmetric,
shared samples), rf-diffusion, dkla and coke, beside centralized POLK and centralized random
features (one agent on the union of the streams: net.agents = 1, a batch of all agents' one
round). Columns: mean test error over the agents, disagreement, bytes each agent sent in all,
CPU seconds of the whole run (all agents; one process, so user + system time), model size
(points for kernel models, features for random-feature ones). Writes the run files, a CSV
and, per setting, the figure of mean accuracy against cumulative bytes per agent.

    experiments/methods_table.py [--polka build/polka] [--out out/methods_table]
                                 [--parts multidist,rgg,fashion]
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # polka_runs
import polka_runs  # noqa: E402
from polka_runs import last_step, run, save_figure, save_table, set_args  # noqa: E402

METHODS = [  # (label, settings)
    ("penalty paper", ["net.method=penalty", "net.penalty=paper"]),
    ("penalty symmetric", ["net.method=penalty", "net.penalty=symmetric"]),
    ("penalty shared samples", ["net.method=penalty", "net.share=samples"]),
    ("rf-diffusion", ["net.method=rf-diffusion"]),
    ("dkla", ["net.method=dkla"]),
    ("coke", ["net.method=coke"]),
]


def setting_parts(fashion_ok):
    multidist = ["--config", os.path.join(ROOT, "experiments/configs/decentralized_multidist.ini"),
                 "--set", "net.agents=16", "--set", "net.graph=er", "--set", "net.p=0.2"]
    rf_md = ["net.features=256", "net.admm_rho=0.05"]  # coke: the defaults alpha 0.3, mu 0.999
    parts = {
        "multidist": [
            ("16 agents ER, multidist iid", multidist + ["--set", "data.split=iid"], rf_md, 16, 1),
            ("16 agents ER, multidist Dirichlet 0.1",
             multidist + ["--set", "data.split=dirichlet", "--set", "data.alpha=0.1"], rf_md, 16, 1),
        ],
        "rgg": [
            ("256 agents RGG, multidist iid",
             ["--config", os.path.join(ROOT, "experiments/configs/decentralized_multidist.ini"),
              "--set", "net.agents=256", "--set", "net.graph=rgg", "--set", "net.radius=0.12",
              "--set", "data.n_train=51200", "--set", "run.log_every=12800"], rf_md, 256, 1),
        ],
    }
    if fashion_ok:
        fashion = ["--config", os.path.join(ROOT, "experiments/configs/fashion_mnist.ini"),
                   "--set", "run.mode=decentralized", "--set", "net.agents=16",
                   "--set", "net.graph=er", "--set", "net.p=0.5", "--set", "data.split=iid"]
        rf_fm = ["net.features=1000", "net.admm_rho=0.01"]
        parts["fashion"] = [("16 agents ER, Fashion-MNIST iid", fashion, rf_fm, 16, 2)]
    return parts


def one_setting(polka, out, name, base, rf, agents, batch, losses, skip):
    rows = []
    for loss in losses:
        fault = ["--set", f"fault.link_loss={loss}"]
        for label, settings in METHODS:
            if label in skip:
                continue
            extra = settings + (rf if "net.method=penalty" not in settings else [])
            tag = f"{name}|{label}|loss {loss}"
            stem = os.path.join(out, tag.replace(" ", "_").replace("|", "__").replace(",", ""))
            cpu = run(polka, base + fault + set_args(extra), stem + ".h5", stem + ".log")
            rows.append(dict(last_step(stem + ".h5"), setting=name, method=label, loss=loss, cpu=cpu))
            print(format_row(rows[-1]), flush=True)
    central = [("centralized POLK", ["run.mode=centralized"]),
               ("centralized RF", ["net.method=rf-diffusion", "net.agents=1", "data.split=iid",
                                   f"learner.batch={agents * batch}"] + rf)]
    for label, settings in central:
        stem = os.path.join(out, f"{name}__{label}".replace(" ", "_").replace(",", ""))
        cpu = run(polka, base + set_args(settings), stem + ".h5", stem + ".log")
        rows.append(dict(last_step(stem + ".h5"), setting=name, method=label, loss="-", cpu=cpu))
        print(format_row(rows[-1]), flush=True)
    return rows


HEADER = f"{'method':24s} {'loss':>5s} {'error %':>8s} {'disagr.':>9s} {'bytes/agent':>12s} " \
         f"{'CPU s':>8s} {'size':>7s}"


def format_row(r):
    return (f"{r['method']:24s} {str(r['loss']):>5s} {r['error']:8.2f} {r['disagreement']:9.4f} "
            f"{r['bytes']:12.0f} {r['cpu']:8.1f} {r['order']:7.0f}")


def figure(rows, setting, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in rows:
        if r["setting"] != setting or r["loss"] not in (0, "0"):
            continue
        b, s = r["curve"]
        ax.plot(polka_runs.log_x(b), s, marker=".", label=r["method"])
    ax.set_xscale("log")
    for r in rows:
        if r["setting"] == setting and r["method"].startswith("centralized"):
            ax.axhline(r["curve"][1][-1], ls="--", lw=1, color="gray")
            ax.annotate(r["method"], (ax.get_xlim()[0], r["curve"][1][-1]), fontsize=7,
                        color="gray", va="bottom")
    ax.set_xlabel("cumulative bytes sent per agent")
    ax.set_ylabel("mean test accuracy")
    ax.set_title(setting)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--polka", default=os.path.join(ROOT, "build/polka"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out/methods_table"))
    parser.add_argument("--parts", default="multidist,rgg,fashion")
    parser.add_argument("--losses", default="0,0.2")
    parser.add_argument("--skip", default="",
                        help="methods to leave out, comma-separated (e.g. 'penalty shared samples')")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    fashion_ok = os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
    parts = setting_parts(fashion_ok)
    losses = [float(x) if "." in x else int(x) for x in args.losses.split(",")]
    rows = []
    for part in args.parts.split(","):
        if part not in parts:
            print(f"(skipping {part}: not available)")
            continue
        for name, base, rf, agents, batch in parts[part]:
            print(f"\n== {name}\n{HEADER}", flush=True)
            rows += one_setting(args.polka, args.out, name, base, rf, agents, batch, losses,
                                args.skip.split(","))
            slug = name.replace(" ", "_").replace(",", "")
            figure(rows, name, os.path.join(args.out, f"accuracy_vs_bytes_{slug}.png"))
    save_table(os.path.join(args.out, "table.csv"),
               ["setting", "method", "link_loss", "error_pct", "disagreement", "bytes_per_agent",
                "cpu_s", "model_size"],
               [[r["setting"], r["method"], r["loss"], f"{r['error']:.3f}",
                 f"{r['disagreement']:.5f}", f"{r['bytes']:.0f}", f"{r['cpu']:.2f}",
                 f"{r['order']:.0f}"] for r in rows])
    print(f"\nrun files, table.csv and figures in {args.out}")


if __name__ == "__main__":
    main()
