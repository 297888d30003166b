#!/usr/bin/env bash
# batch_learners_test.sh POLKA PYTHON DIR: SLKL and exact kernel ridge regression as
# `polka run` learners on the sinc of [MPARG11] written as LIBSVM regression files (noisy
# training targets at 10 dB, clean test targets): SLKL's test MSE is close to KRR's with a
# fraction of the kernels, both log a regression run file, and `polka predict` on each
# saved model gives exactly the MSE the run logged.
set -euo pipefail
polka=$1 python=$2 dir=$3
mkdir -p "$dir"
"$python" - "$dir" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(3)
def write(path, n, noisy):
    x = rng.uniform(-5, 5, (n, 2))
    r = np.linalg.norm(x, axis=1)
    y = np.sin(r) / r
    if noisy:
        y = y + rng.normal(0, np.sqrt(np.mean(y ** 2) / 10), n)
    with open(path, "w") as f:
        for xi, yi in zip(x, y):
            f.write(f"{yi:.17g} 1:{xi[0]:.17g} 2:{xi[1]:.17g}\n")
write(sys.argv[1] + "/sinc.svm", 600, True)
write(sys.argv[1] + "/sinc.svm.t", 400, False)
PY
common=(--centralized --set data.source=file --set data.train="$dir/sinc.svm"
        --set data.test="$dir/sinc.svm.t" --set learner.loss=square --set learner.sigma=1
        --set learner.lambda=1.6e-3 --set learner.nu=0.01)
logged() { # logged RUN METRIC
    "$python" -c "import h5py; print(repr(float(h5py.File('$1','r')['metrics/$2'][-1, 0])))"
}
for learner in slkl krr; do
    "$polka" run --quiet "${common[@]}" --set learner.control=$learner \
        --set run.output="$dir/$learner.h5" >"$dir/$learner.out"
    # the start-up is measured up to the fit (it once printed minus the clock's reading)
    grep -Eq '^summary: start-up [0-9]+\.[0-9]+ s' "$dir/$learner.out" ||
        { echo "FAIL: $learner: $(grep start-up "$dir/$learner.out")"; exit 1; }
    mse=$(logged "$dir/$learner.h5" test_score)
    predicted=$("$polka" predict --model "$dir/$learner.h5" --data "$dir/sinc.svm.t" | awk '{print $2}')
    if ! "$python" -c "import sys; sys.exit(float('$mse') != float('$predicted'))"; then
        echo "FAIL: $learner: logged $mse, predicted $predicted"; exit 1
    fi
    echo "ok: $learner: predict gives the logged test MSE $predicted"
done
"$polka" run --quiet "${common[@]}" --set learner.control=slkl --set learner.max_iter=1100 \
    --set run.output="$dir/capped.h5" >/dev/null
rounds=$("$python" -c "import h5py; print(int(h5py.File('$dir/capped.h5','r')['metrics/round'][-1]))")
[ "$rounds" -eq 1100 ] || { echo "FAIL: learner.max_iter = 1100 but the run did $rounds updates"; exit 1; }
echo "ok: slkl stops at learner.max_iter (1100 updates)"
read -r slkl_mse slkl_order <<<"$(logged "$dir/slkl.h5" test_score) $(logged "$dir/slkl.h5" model_order)"
read -r krr_mse krr_order <<<"$(logged "$dir/krr.h5" test_score) $(logged "$dir/krr.h5" model_order)"
echo "slkl: mse $slkl_mse with $slkl_order kernels; krr: mse $krr_mse with $krr_order"
"$python" - "$slkl_mse" "$slkl_order" "$krr_mse" "$krr_order" <<'PY'
import sys
slkl_mse, slkl_order, krr_mse, krr_order = map(float, sys.argv[1:])
if not (krr_order == 600 and 0 < slkl_order < 0.5 * krr_order):
    sys.exit(f"FAIL: model orders slkl {slkl_order}, krr {krr_order}")
if not (slkl_mse < 0.005 and krr_mse < 0.005 and slkl_mse < 2 * krr_mse):
    sys.exit(f"FAIL: test MSE slkl {slkl_mse}, krr {krr_mse}")
print("ok: slkl is within 2x of krr's test MSE with under half the kernels")
PY
