#!/usr/bin/env python3
"""What protecting the penalty method's points costs: test error against epsilon.

Each point an agent sends is clipped to the L2 norm C (privacy.clip) and perturbed with the
Gaussian noise of the analytic Gaussian mechanism for (epsilon, delta) per release
(privacy.sample_epsilon, privacy.sample_delta = 1e-5); the agent and its neighbours learn from
the noisy point. epsilon = inf is the run without protection (no clipping, no noise); "clip
only" sets epsilon = 1e6 (sigma near 0) to show what the clipping alone costs. C is about the
97th percentile of the training points' norms (multidist 3, Fashion-MNIST scaled to [0, 1]
18), so that clipping changes few points: the test points are not clipped.

Per setting and epsilon: the mean test error over the agents (mean over the seeds), its change
from the unprotected run, the noise's sigma (the run file's /config noise_sigma), the mean
model order, and each agent's accounting from its run file: privacy_epsilon (the epsilon of
the releases of one of its training rows composed, at the same delta) as min / mean / max over
the agents, and row_releases (the most releases of one row: the stream's last round wraps
around into the first rows, so some agents release a row twice even in one pass).
Writes the run files, table.csv and a figure of error against epsilon per setting.

    /usr/bin/python3 experiments/privacy_table.py [--polka build/polka] [--out out/privacy_table]
        [--parts multidist16,multidist16_2passes,fashion16] [--seeds 1,2]
        [--epsilons 1,4,16,64,256,1024,inf,clip] [--fashion-passes 0.25]
"""
import argparse
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # polka_runs
import h5py  # noqa: E402
import numpy as np  # noqa: E402

from polka_runs import last_step, run, save_figure, save_table, set_args  # noqa: E402

FASHION = "/usr/share/datasets/fashion-mnist"
DELTA = 1e-5
CLIP_ONLY = 1e6  # epsilon whose sigma is near 0: the clipping alone


def setting_parts(fashion_passes):
    multidist = ["--config", os.path.join(ROOT, "experiments/configs/decentralized_multidist.ini"),
                 "--set", "net.agents=16", "--set", "net.graph=er", "--set", "net.p=0.2"]
    fashion = ["--config", os.path.join(ROOT, "experiments/configs/fashion_mnist.ini"),
               "--set", "run.mode=decentralized", "--set", "net.agents=16", "--set", "net.graph=er",
               "--set", "net.p=0.5", "--set", "data.split=iid",
               "--set", f"run.passes={fashion_passes}", "--set", "run.log_every=60000"]
    return {  # name: (label, settings, C)
        "multidist16": ("16 agents ER, multidist iid, 1 pass", multidist, 3.0),
        "multidist16_2passes": ("16 agents ER, multidist iid, 2 passes",
                                multidist + ["--set", "run.passes=2"], 3.0),
        "fashion16": (f"16 agents ER, Fashion-MNIST iid, {fashion_passes} pass", fashion, 18.0),
    }


def privacy_settings(epsilon, clip):
    if epsilon == "inf":
        return []
    value = CLIP_ONLY if epsilon == "clip" else float(epsilon)
    return [f"privacy.clip={clip}", f"privacy.sample_epsilon={value:g}",
            f"privacy.sample_delta={DELTA:g}"]


def accounting(path):
    """The run's sigma and, over the agents, the composed epsilons and the releases per row."""
    with h5py.File(path, "r") as f:
        m = f["metrics"]
        eps, releases = m["privacy_epsilon"][-1], m["row_releases"][-1]
        sigma = float(f["config"].attrs["noise_sigma"])
    return {"sigma": sigma, "eps_min": float(eps.min()), "eps_mean": float(eps.mean()),
            "eps_max": float(eps.max()), "releases": float(releases.max())}


def one_setting(polka, out, part, label, base, clip, epsilons, seeds):
    rows = []
    for epsilon in epsilons:
        results, books = [], []
        for seed in seeds:
            stem = os.path.join(out, f"{part}__eps_{epsilon}__seed_{seed}")
            if not os.path.exists(stem + ".h5"):
                run(polka, base + set_args(privacy_settings(epsilon, clip) + [f"run.seed={seed}"]),
                    stem + ".h5", stem + ".log")
            results.append(last_step(stem + ".h5"))
            books.append(accounting(stem + ".h5"))
        row = {"setting": label, "epsilon": epsilon, "clip": clip if epsilon != "inf" else 0,
               "error": float(np.mean([r["error"] for r in results])),
               "errors": [r["error"] for r in results],
               "order": float(np.mean([r["order"] for r in results]))}
        row.update(books[0])  # the accounting is the same for every seed
        rows.append(row)
    reference = next((r for r in rows if r["epsilon"] == "inf"), None)
    for r in rows:
        r["delta"] = r["error"] - reference["error"] if reference else math.nan
        print(format_row(r), flush=True)
    return rows


HEADER = (f"{'eps/sample':>10s} {'C':>5s} {'sigma':>8s} {'error %':>8s} {'vs inf':>7s} "
          f"{'order':>7s}   {'eps composed min / mean / max':>31s} {'releases':>8s}")


def format_row(r):
    shown = {"inf": "inf", "clip": "clip only"}.get(r["epsilon"], r["epsilon"])
    if r["epsilon"] == "inf":
        book = f"{'inf (points sent as drawn)':>31s} {'-':>8s}"
    else:
        book = (f"{r['eps_min']:9.4g} / {r['eps_mean']:9.4g} / {r['eps_max']:9.4g} "
                f"{r['releases']:8.0f}")
    return (f"{shown:>10s} {r['clip']:5g} {r['sigma']:8.4g} {r['error']:8.2f} {r['delta']:+7.2f} "
            f"{r['order']:7.1f}   {book}")


def figure(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, setting in enumerate(dict.fromkeys(r["setting"] for r in rows)):
        mine = [r for r in rows if r["setting"] == setting and r["epsilon"] not in ("inf", "clip")]
        plain = [r for r in rows if r["setting"] == setting and r["epsilon"] == "inf"]
        ax.plot([float(r["epsilon"]) for r in mine], [r["error"] for r in mine], "o-",
                color=f"C{k}", label=setting)
        for r in plain:
            ax.axhline(r["error"], color=f"C{k}", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("epsilon per sample (delta 1e-5); dotted: no protection")
    ax.set_ylabel("mean test error %")
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--polka", default=os.path.join(ROOT, "build/polka"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out/privacy_table"))
    parser.add_argument("--parts", default="multidist16,multidist16_2passes,fashion16")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--epsilons", default="1,4,16,64,256,1024,inf,clip")
    parser.add_argument("--fashion-passes", default="0.25")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    parts = setting_parts(args.fashion_passes)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for part in args.parts.split(","):
        label, base, clip = parts[part]
        if part.startswith("fashion") and not os.path.exists(FASHION):
            print(f"\n== {label}: skipped, no {FASHION}")
            continue
        print(f"\n== {label}, seeds {args.seeds}, delta {DELTA:g}\n{HEADER}", flush=True)
        rows += one_setting(args.polka, args.out, part, label, base, clip,
                            args.epsilons.split(","), seeds)
    figure(rows, os.path.join(args.out, "error_vs_epsilon.png"))
    save_table(os.path.join(args.out, "table.csv"),
               ["setting", "epsilon_per_sample", "clip", "sigma", "error_pct", "error_pct_per_seed",
                "error_change_pt", "model_order", "epsilon_composed_min", "epsilon_composed_mean",
                "epsilon_composed_max", "row_releases_max"],
               [[r["setting"], r["epsilon"], r["clip"], f"{r['sigma']:.6g}", f"{r['error']:.3f}",
                 " ".join(f"{e:.2f}" for e in r["errors"]), f"{r['delta']:+.3f}",
                 f"{r['order']:.1f}", f"{r['eps_min']:.6g}", f"{r['eps_mean']:.6g}",
                 f"{r['eps_max']:.6g}", f"{r['releases']:.0f}"] for r in rows])
    print(f"\nrun files, table.csv and error_vs_epsilon.png in {args.out}")


if __name__ == "__main__":
    main()
