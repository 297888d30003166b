#!/usr/bin/env bash
# What the models cost in the run file at N agents (default 16 384, P = 2 ranks,
# SAMPLES = 20 per agent: model order about 20): the same run without and with run.output
# (the difference of the wall times is writing the run file: /metrics' last row, /config,
# /models), then reading it: polka report, polka predict of agent N/2, the Python package's
# polka.open and one model, and every model with h5py (tests/python/run_models.py: either layout).
# POLKA=another build's polka (the one before the concatenated models wrote a group per agent)
# compares them on the same machine.
#
#   experiments/runfile_models.sh      Environment: N [16384], P [2], SAMPLES [20], OUT, POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
n=${N:-16384}
p=${P:-2}
samples=${SAMPLES:-20}
out=${OUT:-$outdir/runfile_models_$n}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
settings=(--set net.agents="$n" --set net.graph=er --set net.p="$("$root/tools/er_p.sh" "$n")"
    --set data.n_train=$((samples * n)) --set run.log_every=1000000000000 --set run.log_test=200)

seconds() { # command... -> its wall seconds (its output in OUT/last.out)
    local start end
    start=$(date +%s.%N)
    "$@" >"$out/last.out" 2>&1 || { cat "$out/last.out" >&2; exit 1; }
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the start; polka $polka"
echo "N = $n agents, P = $p, $samples samples per agent"
rm -f "$out/models.h5"
plain=$(seconds mpirun --oversubscribe -n "$p" "$polka" run --quiet "${settings[@]}")
with=$(seconds mpirun --oversubscribe -n "$p" "$polka" run --quiet "${settings[@]}" \
    --set run.output="$out/models.h5")
grep "model order" "$out/last.out" | sed 's/^/  /'
"$polka" data multidist -o "$out/probe.svm" --set data.n_train=10 --set data.n_test=1000 >/dev/null
agent=$((n / 2))
report=$(seconds "$polka" report "$out/models.h5")
predict=$(seconds "$polka" predict --model "$out/models.h5:$agent" --data "$out/probe.svm.t")
python=$(seconds env PYTHONPATH="$root/python" /usr/bin/python3 - "$out/models.h5" "$agent" "$root/tests" <<'PY'
import sys, time
path, agent, tests = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, tests)
import h5py
import polka
import run_models
start = time.time()
run = polka.open(path)
opened = time.time()
model = run.model(agent)
one = time.time()
with h5py.File(path, "r") as f:
    models = run_models.kernel_models(f)
every = time.time()
print(f"python: polka.open {opened - start:.2f} s, model({agent}) {one - opened:.2f} s (order "
      f"{model.order}), all {len(models)} models with h5py {every - one:.2f} s")
PY
)
printf '  run without a run file %s s, with one %s s: writing it about %.1f s; run file %s MB\n' \
    "$plain" "$with" "$(awk -v a="$plain" -v b="$with" 'BEGIN { print b - a }')" \
    "$(du -m "$out/models.h5" | cut -f1)"
printf '  polka report %s s, polka predict (agent %s) %s s\n' "$report" "$agent" "$predict"
sed 's/^/  /' "$out/last.out"
printf '  (the Python process in all: %s s)\n' "$python"
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
