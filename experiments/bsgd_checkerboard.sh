#!/usr/bin/env bash
# BSGD with merging at budget B = 100 on the 4×4 checkerboard (the BSGD paper's benchmark,
# Wang, Crammer & Vucetic 2012), one pass over a long stream through `polka run`: the test
# accuracy (10 000 test points) after 100 000, 300 000, 1 M, 3 M and N samples, from one
# run logged every 100 000 samples. Pegasos steps 1/(λt), Gaussian σ = 0.25 (γ = 8), hinge.
# Writes OUT/merge_B100.h5 and OUT/merge_B100.png.
#
#   experiments/bsgd_checkerboard.sh         Environment: OUT [out/bsgd_checkerboard],
#                                            N [10000000], LAMBDA [1e-5], POLKA [build/polka]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
out=${OUT:-$outdir/bsgd_checkerboard}
n=${N:-10000000}
lambda=${LAMBDA:-1e-5}
export OPENBLAS_NUM_THREADS=1
mkdir -p "$out"
run=$out/merge_B100.h5
"$polka" run --quiet --centralized --set data.source=checkerboard --set data.n_train="$n" \
    --set data.n_test=10000 --set learner.loss=hinge --set learner.sigma=0.25 \
    --set learner.control=bsgd-merge --set learner.budget=100 --set learner.schedule=pegasos \
    --set learner.lambda="$lambda" --set run.log_every=100000 --set run.output="$run" |
    grep summary
/usr/bin/python3 - "$run" <<'PY'
import sys
import h5py
f = h5py.File(sys.argv[1], "r")
samples = f["metrics/samples"][:]
accuracy = f["metrics/test_score"][:, 0]
order = f["metrics/model_order"][:, 0]
print(f"{'samples':>10} {'accuracy%':>10} {'order':>6}")
for want in (100_000, 300_000, 1_000_000, 3_000_000, samples[-1]):
    rows = [i for i, s in enumerate(samples) if s >= want]
    if rows:
        i = rows[0]
        print(f"{samples[i]:>10.0f} {100 * accuracy[i]:>10.2f} {order[i]:>6.0f}")
PY
/usr/bin/python3 "$polka_plot" run "$run" -o "$out/merge_B100.png" \
    --label "BSGD merge, B = 100, checkerboard"
