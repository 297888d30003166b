#!/usr/bin/env python3
"""coke against dkla: bytes and test error as the censoring threshold grows.

16 agents on ER p = 0.5, i.i.d., the settings of experiments/methods_table.py (Fashion-MNIST
at D = 1000 when the dataset is installed, else multidist at D = 256): dkla once, then coke
for each net.censor_alpha (net.censor_mu 0.999). Prints coke's bytes per agent as a share of
dkla's and its error beside dkla's.

    experiments/coke_censoring.py [--polka build/polka] [--alphas 1,1.5,1.75,2,3] [--data fashion|multidist]
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # polka_runs
from polka_runs import last_step, run  # noqa: E402

FASHION = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


def settings(data):
    if data == "fashion":
        return ["--config", os.path.join(ROOT, "experiments/configs/fashion_mnist.ini"),
                "--set", "run.mode=decentralized", "--set", "net.agents=16", "--set", "net.graph=er",
                "--set", "net.p=0.5", "--set", "data.split=iid", "--set", "net.features=1000",
                "--set", "net.admm_rho=0.01"]
    return ["--config", os.path.join(ROOT, "experiments/configs/decentralized_multidist.ini"),
            "--set", "net.agents=16", "--set", "net.features=256", "--set", "net.admm_rho=0.05"]


def final(polka, args, out):
    """Bytes per agent and error % of a run's last log step."""
    run(polka, args, out)
    step = last_step(out)
    return step["bytes"], step["error"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--polka", default=os.path.join(ROOT, "build/polka"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out/coke_censoring"))
    parser.add_argument("--alphas", default="1,1.5,1.75,2,3")
    parser.add_argument("--data", default="fashion" if os.path.exists(FASHION) else "multidist")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    base = settings(args.data)
    dkla_bytes, dkla_error = final(args.polka, base + ["--set", "net.method=dkla"],
                                 os.path.join(args.out, "dkla.h5"))
    print(f"{args.data}: dkla {dkla_error:.2f} % error, {dkla_bytes:.0f} bytes per agent")
    print(f"{'alpha':>6s} {'bytes / dkla':>13s} {'error %':>8s} {'vs dkla':>8s}")
    for alpha in args.alphas.split(","):
        out = os.path.join(args.out, f"coke_{alpha}.h5")
        b, e = final(args.polka, base + ["--set", "net.method=coke", "--set",
                                       f"net.censor_alpha={alpha}"], out)
        print(f"{alpha:>6s} {100 * b / dkla_bytes:12.1f}% {e:8.2f} {e - dkla_error:+8.2f}",
              flush=True)


if __name__ == "__main__":
    main()
