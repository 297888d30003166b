#!/usr/bin/env bash
# central_batch_test.sh POLKA PYTHON DIR: the default centralized mini-batch is the union of
# one round up to 32 samples, and 32 beyond (300 agents: the same run as central_batch = 32,
# not as 300), so that centralized POLK on 10^5 agents' stream is no batch of 10^5.
set -euo pipefail
polka=$1 python=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
small="--set data.n_train=3000 --set data.n_test=200 --set run.log_every=1000"
run() { # NAME SETTINGS...: a centralized run into DIR/NAME.h5
    local name=$1
    shift
    # shellcheck disable=SC2086
    "$polka" run --quiet --centralized $small "$@" --set run.output="$dir/$name.h5" >/dev/null
}
run default300 --set net.agents=300
run batch32 --set net.agents=300 --set run.central_batch=32
run batch300 --set net.agents=300 --set run.central_batch=300
run default10 --set net.agents=10 --set learner.batch=2
run batch20 --set net.agents=10 --set learner.batch=2 --set run.central_batch=20
# 1: the final models and the rows are the same bit for bit; 0: they differ
same() {
    "$python" - "$dir/$1.h5" "$dir/$2.h5" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:])
keys = ["models/dictionary", "models/weights", "metrics/test_score",
        "metrics/model_order", "metrics/samples"]
print(int(all(np.array_equal(a[k][()], b[k][()]) for k in keys)))
PY
}
[ "$(same default300 batch32)" = 1 ] || { echo "300 agents: the default is not a batch of 32"; exit 1; }
[ "$(same default300 batch300)" = 0 ] || { echo "300 agents: the default is still the whole round"; exit 1; }
[ "$(same default10 batch20)" = 1 ] || { echo "10 agents x batch 2: the default is not one round"; exit 1; }
echo "central_batch_test: default = one round up to 32 samples"
