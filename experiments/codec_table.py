#!/usr/bin/env python3
"""Bytes versus accuracy of the codecs on what travels.

Every method with every codec of its messages on the same streams and graph: the penalty
method (paper, symmetric; its points and values both with the codec) and the random-feature
methods rf-diffusion and dkla (their weight vectors: the dense codecs, then top-k and random-k
with CHOCO error feedback). Columns: mean test error over the agents (mean over the seeds),
its change from the same method's float64, bytes each agent sent in all (the encoded bytes:
the run file's bytes_sent) and their fraction of float64's. The targets (TARGETS: the most
error change and fraction of float64's bytes per codec) are checked where they apply. Writes
the run files, table.csv and, per setting, two figures with a panel
per method: mean accuracy against cumulative bytes per agent (a line per codec, the first
seed), and the trade-off at the end (error change against the fraction of float64's bytes, a
point per codec, the targets shaded).
The Fashion-MNIST parts (fashion16, fashion256) run --fashion-passes passes (the random-feature
methods at D = 1000, rho 0.01, as methods_table.py, but a row's own rho, "dkla rho 0.005", stays);
int8's target there is 1 point. A run file already in --out is reused when its .args file
names the same arguments, else refused by name (an older codec_table.py's files have none).

    /usr/bin/python3 experiments/codec_table.py [--polka build/polka] [--out out/codec_table]
                  [--parts multidist16,multidist256,fashion16,fashion256] [--seeds 1,2]
                  [--methods "penalty paper,dkla"] [--codecs int8] [--fashion-passes 0.5]
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # polka_runs
import numpy as np  # noqa: E402

import polka_runs  # noqa: E402
from polka_runs import last_step, run, save_figure, save_table, set_args  # noqa: E402


def both(codec):
    return [f"net.codec_points={codec}", f"net.codec_values={codec}"]


DENSE = ["float64", "float32", "float16", "int8"]
# int8's exponent byte is 1 of the 3 bytes of a 2-D point at batch 1: uint8 points have none,
# on a grid fixed for the run (its range is the part's, POINTS_RANGE, added in one_method)
UINT8_POINTS = ("int8 (uint8 points)", ["net.codec_points=uint8", "net.codec_values=int8"])
PENALTY_CODECS = [(c, both(c)) for c in DENSE] + [UINT8_POINTS]
VECTOR_CODECS = [(c, [f"net.codec_vectors={c}"]) for c in DENSE] + [
    ("top-k 0.1", ["net.codec_vectors=top-k", "net.codec_k=0.1"]),
    ("top-k 0.05", ["net.codec_vectors=top-k", "net.codec_k=0.05"]),
    ("random-k 0.1", ["net.codec_vectors=random-k", "net.codec_k=0.1"]),
    # top-k says where its values go with k 2-byte indices (up to 65 536 entries) or, above
    # about n/16 entries, a bitmap of n/8 bytes (1/64 of float64's): 0.13 of the entries in
    # float32 is 8.1 % of float64's bytes (it was 9.8 % with 6 bytes an entry, before the bitmap)
    ("top-k 0.13", ["net.codec_vectors=top-k", "net.codec_k=0.13"]),
    # the kept values as float16 (2 bytes) or int8 (1, and one exponent byte a message,
    # net.codec_kept): more entries in the same bytes (0.19 float16 6.3 %, 0.26 int8 4.8 %)
    ("top-k 0.19 float16",
     ["net.codec_vectors=top-k", "net.codec_k=0.19", "net.codec_kept=float16"]),
    ("top-k 0.26 int8", ["net.codec_vectors=top-k", "net.codec_k=0.26", "net.codec_kept=int8"]),
    ("top-k 0.15 int8", ["net.codec_vectors=top-k", "net.codec_k=0.15", "net.codec_kept=int8"]),
    ("top-k 0.1 int8", ["net.codec_vectors=top-k", "net.codec_k=0.1", "net.codec_kept=int8"]),
    ("top-k 0.07 int8", ["net.codec_vectors=top-k", "net.codec_k=0.07", "net.codec_kept=int8"]),
    ("top-k 0.09 int8", ["net.codec_vectors=top-k", "net.codec_k=0.09", "net.codec_kept=int8"]),
    # with the bitmap (1/64 of float64's bytes) int8 values keep up to 0.67 of the entries
    # under 10 %, float16 values 0.33
    ("top-k 0.6 int8", ["net.codec_vectors=top-k", "net.codec_k=0.6", "net.codec_kept=int8"]),
    ("top-k 0.4 int8", ["net.codec_vectors=top-k", "net.codec_k=0.4", "net.codec_kept=int8"]),
    ("top-k 0.3 float16",
     ["net.codec_vectors=top-k", "net.codec_k=0.3", "net.codec_kept=float16"]),
    # random-k sends no index (12 bytes a message say whose draws): 4 bytes an entry, or 1
    ("random-k 0.19", ["net.codec_vectors=random-k", "net.codec_k=0.19"]),
    ("random-k 0.75 int8",
     ["net.codec_vectors=random-k", "net.codec_k=0.75", "net.codec_kept=int8"]),
    ("random-k 0.5 int8",
     ["net.codec_vectors=random-k", "net.codec_k=0.5", "net.codec_kept=int8"]),
]
SPARSE_CODECS = [VECTOR_CODECS[0]] + VECTOR_CODECS[4:]


def vector_codecs(*labels):
    """The VECTOR_CODECS of these labels, in the order given."""
    by_label = dict(VECTOR_CODECS)
    return [(label, by_label[label]) for label in labels]


# rf-diffusion can mix the sparsified copies with CHOCO's step net.codec_gamma (0: dense)
DIFFUSION_CODECS = VECTOR_CODECS[:5] + [
    (f"top-k 0.1 choco {g}", ["net.codec_vectors=top-k", "net.codec_k=0.1", f"net.codec_gamma={g}"])
    for g in (0.1, 0.2)
] + VECTOR_CODECS[5:]
RF_MD = ["net.features=256", "net.admm_rho=0.05"]  # as methods_table.py
METHODS = [  # (label, settings, codecs[, own]): own comes after a part's settings (a row's rho)
    ("penalty paper", ["net.method=penalty", "net.penalty=paper"], PENALTY_CODECS),
    # int8's exponent byte (one a message) weighs less when a message carries 2 points
    ("penalty paper b2", ["net.method=penalty", "net.penalty=paper", "learner.batch=2"],
     [PENALTY_CODECS[0]] + PENALTY_CODECS[2:4]),
    ("penalty symmetric", ["net.method=penalty", "net.penalty=symmetric"], PENALTY_CODECS),
    ("rf-diffusion", ["net.method=rf-diffusion"] + RF_MD, DIFFUSION_CODECS),
    ("dkla", ["net.method=dkla"] + RF_MD, VECTOR_CODECS),
    # ADMM's duals add up the lag of the sparsified copies: a smaller rho tolerates it
    ("dkla rho 0.01", ["net.method=dkla"] + RF_MD, SPARSE_CODECS, ["net.admm_rho=0.01"]),
    # at 256 agents rho 0.01 still misses with top-k 0.13 (+1.26); 0.005 meets, its float64 weaker
    ("dkla rho 0.005", ["net.method=dkla"] + RF_MD, SPARSE_CODECS, ["net.admm_rho=0.005"]),
    # coke's float64 censors (its sparsified copies lag, so it censors less): its top-k
    # messages must be smaller than dkla's; with the bitmap, top-k 0.26 / 0.4 int8 are 8 %
    ("coke", ["net.method=coke"] + RF_MD,
     VECTOR_CODECS[:5] + vector_codecs("top-k 0.13", "top-k 0.19 float16", "top-k 0.26 int8",
                                       "top-k 0.15 int8", "top-k 0.1 int8", "top-k 0.07 int8",
                                       "top-k 0.4 int8")),
    ("coke rho 0.005", ["net.method=coke"] + RF_MD, SPARSE_CODECS, ["net.admm_rho=0.005"]),
]
# (codec prefix, largest error change in points, largest fraction of float64's bytes)
TARGETS = [("float16", 0.2, 0.30), ("int8", 0.5, 0.15), ("top-k", 1.0, 0.10)]


FASHION = "/usr/share/datasets/fashion-mnist"


# uint8's range for the points of each data set: multidist's 2-D mixture (means on the unit
# circle, spread 1, sample variance 0.2) lies within ±4 (no coordinate clamped in these runs;
# a run says how many were in its summary and points_clamped); data.scale = unit is [0, 1],
# uint8's default
POINTS_RANGE = {"multidist": ["net.codec_low=-4", "net.codec_high=4"], "fashion": []}


def setting_parts(fashion_passes):
    """name: (label, base arguments, settings the random-feature methods take after theirs)."""
    config = ["--config", os.path.join(ROOT, "experiments/configs/decentralized_multidist.ini")]
    # as methods_table.py's Fashion-MNIST part: ER p 0.5, D = 1000, rho 0.01
    fashion = ["--config", os.path.join(ROOT, "experiments/configs/fashion_mnist.ini"),
               "--set", "run.mode=decentralized", "--set", "data.split=iid",
               "--set", f"run.passes={fashion_passes}", "--set", "run.log_every=20000"]
    rf_fashion = ["net.features=1000", "net.admm_rho=0.01"]
    return {
        "multidist16": ("16 agents ER, multidist iid",
                        config + ["--set", "net.agents=16", "--set", "net.graph=er",
                                  "--set", "net.p=0.2"], []),
        "multidist256": ("256 agents RGG, multidist iid",
                         config + ["--set", "net.agents=256", "--set", "net.graph=rgg",
                                   "--set", "net.radius=0.12", "--set", "data.n_train=51200",
                                   "--set", "run.log_every=12800"], []),
        "fashion16": (f"16 agents ER, Fashion-MNIST iid, {fashion_passes} pass",
                      fashion + ["--set", "net.agents=16", "--set", "net.graph=er",
                                 "--set", "net.p=0.5"], rf_fashion),
        "fashion256": (f"256 agents RGG, Fashion-MNIST iid, {fashion_passes} pass",
                       fashion + ["--set", "net.agents=256", "--set", "net.graph=rgg",
                                  "--set", "net.radius=0.12"], rf_fashion),
    }


def targets_of(setting):
    """TARGETS as they apply to a setting: int8's is 1 point on Fashion-MNIST."""
    return [(prefix, 1.0 if prefix == "int8" and "Fashion" in setting else most_delta,
             most_fraction) for prefix, most_delta, most_fraction in TARGETS]


def target_of(codec, delta, fraction, setting):
    for prefix, most_delta, most_fraction in targets_of(setting):
        if codec.startswith(prefix):
            met = delta <= most_delta and fraction <= most_fraction
            return f"{'met' if met else 'missed'} (<= {most_delta} pt, <= {most_fraction:.0%})"
    return ""


def reuse_or_run(polka, args, stem):
    """Runs polka into stem.h5 unless an earlier run of the same arguments is there (stem.args,
    written before the run, names them); refuses a run file of other arguments."""
    if os.path.exists(stem + ".h5"):
        try:
            with open(stem + ".args") as f:
                same = json.load(f) == args
        except (OSError, ValueError):
            same = False
        if not same:
            raise SystemExit(f"{stem}.h5 was run with other settings, or its {stem}.args is "
                             "missing or damaged: remove it or choose another --out")
        return
    with open(stem + ".args", "w") as f:
        json.dump(args, f)
    run(polka, args, stem + ".h5", stem + ".log")


def one_method(polka, out, name, base, label, settings, codecs, seeds, rf_extra, own, points_range):
    if "net.method=penalty" not in settings:
        settings = settings + rf_extra
    settings = settings + own  # the row's own (its label's rho), whatever the part sets
    rows = []
    for codec, codec_settings in codecs:
        if "net.codec_points=uint8" in codec_settings:
            codec_settings = codec_settings + points_range
        results = []
        for seed in seeds:
            tag = f"{name}|{label}|{codec}|seed {seed}"
            stem = os.path.join(out, tag.replace(" ", "_").replace("|", "__").replace(",", ""))
            args = base + set_args(settings + codec_settings + [f"run.seed={seed}"])
            reuse_or_run(polka, args, stem)
            results.append(last_step(stem + ".h5"))
        rows.append({"setting": name, "method": label, "codec": codec,
                     "error": float(np.mean([r["error"] for r in results])),
                     "errors": [r["error"] for r in results],
                     "bytes": float(np.mean([r["bytes"] for r in results])),
                     "curve": results[0]["curve"]})
    reference = rows[0]  # float64
    for r in rows:
        r["delta"] = r["error"] - reference["error"]
        r["fraction"] = r["bytes"] / reference["bytes"]
        r["target"] = target_of(r["codec"], r["delta"], r["fraction"], r["setting"])
        print(format_row(r), flush=True)
    return rows


HEADER = (f"{'method':18s} {'codec':19s} {'error %':>8s} {'vs f64':>7s} {'bytes/agent':>12s} "
          f"{'of f64':>7s}  target")


def format_row(r):
    return (f"{r['method']:18s} {r['codec']:19s} {r['error']:8.2f} {r['delta']:+7.2f} "
            f"{r['bytes']:12.0f} {r['fraction']:7.1%}  {r['target']}")


def panels(rows, setting, xlabel, ylabel):
    """A figure of a setting's rows with one labelled panel per method, three to a row (the
    unused panels hidden): (pyplot, figure, [(panel, the method's rows)]), or None without
    rows."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in rows if r["setting"] == setting]
    methods = list(dict.fromkeys(r["method"] for r in rows))
    if not methods:
        return None
    cols = min(3, len(methods))
    lines = -(-len(methods) // cols)
    fig, axes = plt.subplots(lines, cols, figsize=(5.2 * cols, 3.8 * lines), squeeze=False)
    for ax in axes.flat[len(methods):]:
        ax.set_visible(False)
    for method, ax in zip(methods, axes.flat):
        ax.set_title(method, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=7)
        ax.set_ylabel(ylabel, fontsize=7)
        ax.tick_params(labelsize=7)
    return plt, fig, [(ax, [r for r in rows if r["method"] == method])
                      for method, ax in zip(methods, axes.flat)]


def figure(rows, setting, path):
    """Accuracy against cumulative bytes per agent (first seed): a panel per method, a line
    per codec."""
    drawn = panels(rows, setting, "cumulative bytes sent per agent (encoded)",
                   "mean test accuracy")
    if drawn is None:
        return
    plt, fig, methods = drawn
    styles = ["-", "--", ":", "-."]
    for ax, mine in methods:
        for k, r in enumerate(mine):
            b, s = r["curve"]
            ax.plot(polka_runs.log_x(b), s, color=plt.cm.tab20(k % 20), ls=styles[k // 20 % 4],
                    lw=1.6 if r["codec"] == "float64" else 1.0, label=r["codec"])
        ax.set_xscale("log")
        ax.legend(fontsize=5, ncol=2, loc="lower right")
    fig.suptitle(setting)
    fig.tight_layout()
    save_figure(fig, path)


def tradeoff_figure(rows, setting, path):
    """The end of each run: error change from float64 against the fraction of its bytes
    (mean over the seeds), a panel per method, each codec a labelled point; the target
    boxes (TARGETS) shaded (float16: 0.2 pt at 30 %, int8: 0.5 at 15 %, top-k: 1 at 10 %)."""
    drawn = panels(rows, setting, "bytes sent, fraction of float64's",
                   "error change from float64 (points)")
    if drawn is None:
        return
    _, fig, methods = drawn
    family = {"top-k": ("^", "C1"), "random-k": ("s", "C2")}
    for ax, mine in methods:
        for _, most_delta, most_fraction in targets_of(setting):
            ax.fill_between([0.005, most_fraction], -100, most_delta, color="C2", alpha=0.06)
        deltas = [r["delta"] for r in mine]
        top = max(1.5, min(max(deltas), 5) + 0.3)  # a codec far off is drawn at the top
        for k, r in enumerate(mine):  # labels right and left by turns: near codecs sit close
            marker, colour = family.get(r["codec"].split(" ")[0], ("o", "C0"))
            off = r["delta"] > top
            y = top - 0.1 if off else r["delta"]
            ax.plot(r["fraction"], y, "^" if off else marker, color="C3" if off else colour, ms=4)
            # the bytes in the label: which point a label names is plain however close they sit
            label = f"{r['codec']}, {r['fraction']:.1%}" + (f" ({r['delta']:+.1f})" if off else "")
            left = k % 2 == 1
            ax.annotate(label, (r["fraction"], y), fontsize=5, xytext=(-3 if left else 3,
                        -8 if left else 2), ha="right" if left else "left",
                        textcoords="offset points")
        ax.set_ylim(min(-0.5, min(deltas) - 0.2), top)
        ax.set_xscale("log")
        ax.set_xlim(0.015, 1.5)
        ax.axhline(0, color="k", lw=0.5)
    fig.suptitle(f"{setting}: shaded, the targets (float16 / int8 / top-k)")
    fig.tight_layout()
    save_figure(fig, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--polka", default=os.path.join(ROOT, "build/polka"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out/codec_table"))
    parser.add_argument("--parts", default="multidist16")
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--methods", default=",".join(m[0] for m in METHODS))
    parser.add_argument("--codecs", default="", help="only these codecs (labels, comma-separated)")
    parser.add_argument("--fashion-passes", default="0.5", help="passes of the Fashion-MNIST parts")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    parts = setting_parts(args.fashion_passes)
    seeds = [int(s) for s in args.seeds.split(",")]
    wanted = args.methods.split(",")
    rows = []
    for part in args.parts.split(","):
        name, base, rf_extra = parts[part]
        if part.startswith("fashion") and not os.path.exists(FASHION):
            print(f"\n== {name}: skipped, no {FASHION}")
            continue
        print(f"\n== {name}, seeds {args.seeds}\n{HEADER}", flush=True)
        for label, settings, codecs, *own in METHODS:
            if args.codecs:  # float64 stays: the reference
                codecs = [c for c in codecs if c[0] == "float64" or c[0] in args.codecs.split(",")]
            if label in wanted:
                rows += one_method(args.polka, args.out, name, base, label, settings, codecs,
                                   seeds, rf_extra, own[0] if own else [],
                                   POINTS_RANGE[part.rstrip("0123456789")])
        slug = name.replace(" ", "_").replace(",", "")
        figure(rows, name, os.path.join(args.out, f"accuracy_vs_bytes_{slug}.png"))
        tradeoff_figure(rows, name, os.path.join(args.out, f"tradeoff_{slug}.png"))
    save_table(os.path.join(args.out, "table.csv"),
               ["setting", "method", "codec", "error_pct", "error_pct_per_seed", "error_change_pt",
                "bytes_per_agent", "bytes_fraction_of_float64", "target"],
               [[r["setting"], r["method"], r["codec"], f"{r['error']:.3f}",
                 " ".join(f"{e:.2f}" for e in r["errors"]), f"{r['delta']:+.3f}",
                 f"{r['bytes']:.0f}", f"{r['fraction']:.4f}", r["target"]] for r in rows])
    print(f"\nrun files, table.csv and figures in {args.out}")


if __name__ == "__main__":
    main()
