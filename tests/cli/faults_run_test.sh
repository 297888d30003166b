#!/usr/bin/env bash
# faults_run_test.sh POLKA WORK: a run with every kind of fault on 2 ranks, read back with
# h5py: /config records the fault keys; /metrics holds messages_lost, rounds_offline and
# value_age with the right shapes and values (the leaving agents sat out their window, the
# ages stay within fault.delay, nothing is lost in a fault-free run); the faulty run sent
# fewer bytes; its final models are those of the same run on 1 rank, bit for bit;
# `polka report` prints the fault columns.
set -euo pipefail
polka=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
common=(--set net.agents=12 --set net.graph=er --set net.p=0.4 --set data.n_train=1200
        --set data.n_test=300 --set run.log_every=300 --set learner.eta=0.2)
faults=(--set fault.link_loss=0.3 --set fault.offline=0.1 --set fault.delay=3
        --set fault.leave=2,5 --set fault.leave_at=11 --set fault.return_at=41
        --set net.resample_every=9 --set net.penalty=symmetric)
mpirun --oversubscribe -n 2 "$polka" run --quiet "${common[@]}" "${faults[@]}" \
    --set run.output="$work/faulty.h5"
mpirun --oversubscribe -n 1 "$polka" run --quiet "${common[@]}" "${faults[@]}" \
    --set run.output="$work/faulty_np1.h5"
mpirun --oversubscribe -n 2 "$polka" run --quiet "${common[@]}" --set net.penalty=symmetric \
    --set run.output="$work/free.h5"
/usr/bin/python3 - "$work" "$(cd "$(dirname "$0")/../python" && pwd)" <<'PY'
import sys
import h5py
import numpy as np
sys.path.insert(0, sys.argv[2])  # tests/python: run_models
import run_models  # noqa: E402

work = sys.argv[1]


def fail(message):
    print(f"faults_run_test: {message}")
    sys.exit(1)


with h5py.File(f"{work}/faulty.h5", "r") as f, h5py.File(f"{work}/free.h5", "r") as g, \
        h5py.File(f"{work}/faulty_np1.h5", "r") as one:
    config = f["config"].attrs
    for key, want in (("fault.link_loss", 0.3), ("fault.offline", 0.1), ("fault.delay", 3),
                      ("net.resample_every", 9)):
        if key not in config or float(config[key]) != want:
            fail(f"/config {key} = {config.get(key)}, expected {want}")
    if (config["fault.leave"].decode() if isinstance(config["fault.leave"], bytes) else config["fault.leave"]) != "2,5":
        fail("/config fault.leave is not '2,5'")
    m, free = f["metrics"], g["metrics"]
    rows = m["round"].shape[0]
    for name in ("messages_lost", "rounds_offline", "value_age"):
        if m[name].shape != (rows, 12):
            fail(f"/metrics/{name} has shape {m[name].shape}")
        if not np.all(np.isfinite(m[name][...])) or np.any(m[name][...] < 0):
            fail(f"/metrics/{name} has values that are not finite and >= 0")
    lost, offline, age = m["messages_lost"][...], m["rounds_offline"][...], m["value_age"][...]
    if lost[-1].sum() <= 0 or np.any(np.diff(lost, axis=0) < 0):
        fail("messages_lost is not cumulative and positive")
    rounds = int(m["round"][-1])
    # agents 2 and 5 sit out rounds 11..40 (30 rounds) and about 10 % of the others
    for a in (2, 5):
        if offline[-1, a] < 30:
            fail(f"agent {a} sat out {offline[-1, a]} rounds, fewer than its 30")
    others = np.delete(offline[-1], [2, 5]).mean() / rounds
    if not 0.04 < others < 0.2:
        fail(f"the other agents sat out {others:.3f} of the rounds, not about 0.1")
    if np.any(age > 3) or age[1:].mean() <= 0:
        fail(f"value ages {age.min()}..{age.max()} not within (0, fault.delay = 3]")
    for name in ("messages_lost", "rounds_offline", "value_age"):
        if np.any(free[name][...] != 0):
            fail(f"the fault-free run has non-zero {name}")
    if m["bytes_sent"][-1].sum() >= free["bytes_sent"][-1].sum():
        fail("the faulty run did not send fewer bytes")
    models, models_one = run_models.kernel_models(f), run_models.kernel_models(one)
    if sorted(models) != list(range(12)) or sorted(models_one) != list(range(12)):
        fail(f"not 12 models: {sorted(models)}, {sorted(models_one)}")
    for a in range(12):
        for part in (0, 1):
            if not np.array_equal(models[a][part], models_one[a][part]):
                fail(f"agent {a}'s model differs between 2 ranks and 1 rank")
    print(f"ok: {rows} rows; lost {lost[-1].sum():.0f} messages, agents 2 and 5 offline "
          f"{offline[-1, 2]:.0f} and {offline[-1, 5]:.0f} rounds, mean value age "
          f"{age[1:].mean():.2f}; bytes {m['bytes_sent'][-1].sum():.0f} vs "
          f"{free['bytes_sent'][-1].sum():.0f} fault-free; models equal on 1 and 2 ranks")
PY
"$polka" report "$work/faulty.h5" "$work/free.h5" | tee "$work/report.txt"
# the faulty run's lost/round is a positive number, the fault-free run's is 0
awk 'NR == 1 { for (k = 1; k <= NF; k++) col[$k] = k; next }
     /faulty/ { if (!($col["lost/round"] > 0) || !($col["offline"] > 0)) exit 1 }
     /free/ { if ($col["lost/round"] != 0) exit 1 }' "$work/report.txt" ||
    { echo "FAIL: polka report's fault columns"; exit 1; }
echo "ok: polka report prints the fault columns"
