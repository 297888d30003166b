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
/usr/bin/python3 - "$work" "$(cd "$(dirname "$0")/../python" && pwd)" <<'PY'
import math
import sys

import h5py
import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

work = sys.argv[1]
sys.path.insert(0, sys.argv[2])  # tests/python: run_models
import run_models  # noqa: E402


def fail(message):
    print(f"privacy_run_test: {message}")
    sys.exit(1)


def delta(eps, mu):  # mu-GDP as (eps, delta(eps))-DP (Dong, Roth & Su 2019, Cor 2.13)
    return math.exp(log_ndtr(-eps / mu + mu / 2)) - math.exp(eps + log_ndtr(-eps / mu - mu / 2))


def composed(k, mu, target):
    return brentq(lambda e: delta(e, math.sqrt(k) * mu) - target, 0, 1e3, xtol=1e-13, rtol=1e-14)


U = sys.float_info.epsilon / 2


def local(eps, mu):
    """At (eps, mu): a bound on the error of delta's computed value, polka's or this one (each
    term e^L, L = log Phi(t) (+ eps): t to 4u(eps/mu + mu/2), which moves log Phi by
    (|t| + 1) times that; erfc's 5 ulp, log's 1 ulp absolute, exp's 1 ulp, eps + L's rounding;
    the difference's u), and the slopes d delta/d mu = phi(a), -d delta/d eps = e^eps Phi(b)
    (tests/unit/test_privacy.c, gdp_at). A root of the computed delta is noise/slope from the exact one."""
    t = (-eps / mu + mu / 2, -eps / mu - mu / 2)
    dt = 4 * U * (eps / mu + mu / 2)
    noise, terms = 0.0, []
    for k in (0, 1):
        log_phi = math.log(0.5 * math.erfc(-t[k] / math.sqrt(2)))
        log_term = log_phi + (eps if k else 0)
        terms.append(math.exp(log_term))
        rel = (abs(t[k]) + 1) * dt + 10 * U + 2 * U * abs(log_phi) + 2 * U + (U * abs(log_term) if k else 0)
        noise += rel * terms[k]
    noise += U * abs(terms[0] - terms[1])
    return noise, math.exp(-t[0] * t[0] / 2) / math.sqrt(2 * math.pi), terms[1]


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
# polka's mu (bisection to adjacent doubles, 2u) and this one (brentq's xtol and rtol), each a
# root of a computed delta; 2C/mu twice and the quotient: gamma_5
noise, slope_mu, slope_eps = local(eps, mu)
mu_diff = 2 * noise / slope_mu + 1e-15 + (1e-15 + 2 * U) * mu
if abs(sigma / (2 * clip / mu) - 1) > mu_diff / mu + 5 * U / (1 - 5 * U):
    fail(f"noise_sigma {sigma} is not 2C/mu = {2 * clip / mu}")
for a in range(agents):
    draws = [(t * agents + a) * batch + b for t in range(rounds) for b in range(batch)]
    k = max(g // n + 1 for g in draws)
    want = (len(draws), k, composed(k, mu, target))
    have = tuple(float(got[m][a]) for m in ("noisy_points", "row_releases", "privacy_epsilon"))
    # both roots of a computed delta at sqrt(k)·mu (mu_diff apart, and sqrt(k)·mu rounded twice
    # on each side), polka's 2u, brentq's xtol and rtol; the quotient's u
    mu_k = math.sqrt(k) * mu
    noise, slope_mu, slope_eps = local(want[2], mu_k)
    eps_diff = ((2 * noise + slope_mu * (math.sqrt(k) * mu_diff + 4 * U * mu_k)) / slope_eps
                + 1e-13 + (1e-14 + 2 * U) * want[2])
    if have[:2] != want[:2] or abs(have[2] / want[2] - 1) > eps_diff / want[2] + U:
        fail(f"agent {a}: (points, releases, epsilon) {have}, expected {want}")
if len(set(got["row_releases"])) < 2:
    fail(f"every agent has {got['row_releases'][0]} releases: the test meant them to differ")
lines = open(f"{work}/report.txt").read().splitlines()
cells = [dict(zip(lines[0].split(), line.split())) for line in lines[1:]]
# polka report's %.6g: 6 digits, within 0.5e-5 relative; the parse and the quotient 2u
if abs(float(cells[0]["epsilon"]) / max(got["privacy_epsilon"]) - 1) > 0.5e-5 + 2 * U:
    fail(f"polka report's epsilon {cells[0]['epsilon']} is not the largest agent's")
if cells[1]["epsilon"] != "inf":
    fail(f"polka report's epsilon for points sent without noise: {cells[1]['epsilon']}, not inf")
print(f"privacy_run_test: ok (sigma {sigma:.6g}, releases {sorted(set(got['row_releases']))}, "
      f"epsilon {min(got['privacy_epsilon']):.6g}..{max(got['privacy_epsilon']):.6g})")
PY
