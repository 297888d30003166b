#!/usr/bin/env bash
# privacy_run_test.sh POLKA WORK: the Gaussian mechanism on the points through the built binary,
# read back with h5py. 1 rank and 2 ranks give the same models and counts; the noise changes
# the models; /config records sigma, and each agent's noisy_points, row_releases and
# privacy_epsilon are those of an accounting written here apart (scipy: the analytic Gaussian
# mechanism's delta(eps) of mu-GDP, brentq for sigma and for the composed epsilon; a row's
# releases counted from the stream's order: sample g is row g mod n_train, by agent
# (g / batch) mod agents). 605 rows, 2 passes of 6 agents x 2 samples: the last round starts the
# third pass for agent 5 only, so the agents' epsilons differ. `polka report` shows the largest.
set -euo pipefail
polka=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
common=(--set net.agents=6 --set learner.batch=2 --set data.n_train=605 --set data.n_test=200
        --set run.passes=2 --set run.log_every=300 --set net.penalty=symmetric)
noisy=(--set privacy.clip=2 --set privacy.sample_epsilon=4 --set privacy.sample_delta=1e-6)
run() { # ranks name settings...
    local ranks=$1 name=$2
    shift 2
    mpirun --oversubscribe -n "$ranks" "$polka" run --quiet "${common[@]}" "$@" \
        --set run.output="$work/$name.h5"
}
run 2 noisy "${noisy[@]}"
run 1 noisy_np1 "${noisy[@]}"
run 2 plain
"$polka" report "$work/noisy.h5" "$work/plain.h5" > "$work/report.txt"
cat "$work/report.txt"
/usr/bin/python3 - "$work" "$(cd "$(dirname "$0")" && pwd)" <<'PY'
import math
import sys

import h5py
import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

work = sys.argv[1]
sys.path.insert(0, sys.argv[2])  # tests/: run_models
import run_models  # noqa: E402


def fail(message):
    print(f"privacy_run_test: {message}")
    sys.exit(1)


def delta(eps, mu):  # mu-GDP as (eps, delta(eps))-DP (Dong, Roth & Su 2019, Cor 2.13)
    return math.exp(log_ndtr(-eps / mu + mu / 2)) - math.exp(eps + log_ndtr(-eps / mu - mu / 2))


def composed(k, mu, target):
    return brentq(lambda e: delta(e, math.sqrt(k) * mu) - target, 0, 1e3, xtol=1e-13, rtol=1e-14)


def models(path):
    with h5py.File(path) as f:
        return [(d, w) for _, (d, w, _) in sorted(run_models.kernel_models(f).items())]


def same(a, b):
    return all(np.array_equal(x, y) and np.array_equal(v, w) for (x, v), (y, w) in zip(a, b))


noisy, np1, plain = (models(f"{work}/{n}.h5") for n in ("noisy", "noisy_np1", "plain"))
if not same(noisy, np1):
    fail("1 rank and 2 ranks give other models with noisy points")
if same(noisy, plain):
    fail("the noisy points' models equal the plain ones: no noise")

clip, eps, target, agents, batch, n = 2.0, 4.0, 1e-6, 6, 2, 605
mu = brentq(lambda m: delta(eps, m) - target, 1e-6, 100, xtol=1e-15, rtol=1e-15)
with h5py.File(f"{work}/noisy.h5") as f:
    sigma = float(f["config"].attrs["noise_sigma"])
    rounds = int(f["metrics/round"][-1])
    got = {k: f[f"metrics/{k}"][-1] for k in ("noisy_points", "row_releases", "privacy_epsilon")}
with h5py.File(f"{work}/plain.h5") as f:
    if float(f["config"].attrs["noise_sigma"]) != 0 or f["metrics/privacy_epsilon"][-1].any():
        fail("a run without privacy.clip records noise or an epsilon")
if abs(sigma / (2 * clip / mu) - 1) > 1e-9:
    fail(f"noise_sigma {sigma} is not 2C/mu = {2 * clip / mu}")
for a in range(agents):
    draws = [(t * agents + a) * batch + b for t in range(rounds) for b in range(batch)]
    k = max(g // n + 1 for g in draws)
    want = (len(draws), k, composed(k, mu, target))
    have = tuple(float(got[m][a]) for m in ("noisy_points", "row_releases", "privacy_epsilon"))
    if have[:2] != want[:2] or abs(have[2] / want[2] - 1) > 1e-9:
        fail(f"agent {a}: (points, releases, epsilon) {have}, expected {want}")
if len(set(got["row_releases"])) < 2:
    fail(f"every agent has {got['row_releases'][0]} releases: the test meant them to differ")
lines = open(f"{work}/report.txt").read().splitlines()
cells = [dict(zip(lines[0].split(), line.split())) for line in lines[1:]]
if abs(float(cells[0]["epsilon"]) / max(got["privacy_epsilon"]) - 1) > 1e-5:
    fail(f"polka report's epsilon {cells[0]['epsilon']} is not the largest agent's")
if cells[1]["epsilon"] != "inf":
    fail(f"polka report's epsilon for points sent without noise: {cells[1]['epsilon']}, not inf")
print(f"privacy_run_test: ok (sigma {sigma:.6g}, releases {sorted(set(got['row_releases']))}, "
      f"epsilon {min(got['privacy_epsilon']):.6g}..{max(got['privacy_epsilon']):.6g})")
PY
