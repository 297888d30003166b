#!/usr/bin/env bash
# rf_window_run_test.sh POLKA WORK: a random-feature agent maps a window of rounds at once
# (sim/method/rf_agent.c), and the window must stop at the run's last round: a file source on
# several ranks holds only the rows its agents draw in the run's rounds, so a window reaching
# past them asked for a row no rank read ("was not read by this rank"). Runs of a fraction of a
# pass of a LIBSVM file, 8 agents on 2 ranks, rf-diffusion and dkla, batch 2 and 3; each must
# end and give θ bit for bit equal to the same run on 1 rank (h5py).
set -euo pipefail
polka=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
# 403 rows, 3 features, 3 classes, deterministic
awk 'BEGIN { for (i = 0; i < 403; i++) {
    c = i % 3; printf "%d 1:%.4f 2:%.4f 3:%.4f\n", c, c + sin(i), cos(3 * i), (i * 7 % 11) / 11 } }' \
    >"$work/rows.svm"
common=(--set data.source=file --set data.train="$work/rows.svm" --set data.test="$work/rows.svm"
        --set net.agents=8 --set net.graph=ring --set net.features=16 --set run.log_every=100)
run() { # ranks name settings...
    local ranks=$1 name=$2
    shift 2
    mpirun --oversubscribe -n "$ranks" "$polka" run --quiet "${common[@]}" "$@" \
        --set run.output="$work/$name.h5"
}
cases=("diffusion_half --set net.method=rf-diffusion --set run.passes=0.5"
       "dkla_third_b3 --set net.method=dkla --set run.passes=0.3 --set learner.batch=3")
for c in "${cases[@]}"; do
    read -r -a words <<<"$c"
    name=${words[0]}
    run 2 "${name}_np2" "${words[@]:1}"
    run 1 "${name}_np1" "${words[@]:1}"
done
/usr/bin/python3 - "$work" diffusion_half dkla_third_b3 <<'PY'
import sys
import h5py
import numpy as np

work = sys.argv[1]
for name in sys.argv[2:]:
    thetas = []
    for ranks in (2, 1):
        with h5py.File(f"{work}/{name}_np{ranks}.h5", "r") as f:
            thetas.append(f["models/theta"][...])
    if not np.array_equal(thetas[0], thetas[1]):
        print(f"rf_window_run_test: {name}: θ on 2 ranks differs from 1 rank")
        sys.exit(1)
    print(f"{name}: θ {thetas[0].shape} equal on 1 and 2 ranks")
PY
