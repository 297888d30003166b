#!/usr/bin/env bash
# What checkpoints cost on the Fashion-MNIST run (experiments/configs/fashion_mnist.ini,
# centralized POLK, Debian's dataset-fashion-mnist): the size of a checkpoint and the time to
# write it as the model grows, and the slow-down of the whole run when it checkpoints every
# minute (run.checkpoint_seconds = 60) against the same run without checkpoints. The two runs
# alternate REPEAT times (default 2) on the same machine; the loop time is polka's own
# ("summary: ... N s"), the start-up (reading the data) aside.
#
# Between two runs the loop time varies by several per cent on a shared machine, more than the
# checkpoints cost: the time the checkpointing run spends writing (its "checkpoint:" lines) as
# a share of its loop is the precise measure of the slow-down, the difference of the means a
# check of it.
#
#   experiments/checkpoint_cost.sh [--set key=value ...]   Environment: OUT, REPEAT, EVERY (s)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/need_fashion_mnist.sh"
export OPENBLAS_NUM_THREADS=1
. "$root/tools/locate.sh"
out=${OUT:-$outdir/checkpoint_cost}
repeat=${REPEAT:-2}
every=${EVERY:-60}
config=$root/experiments/configs/fashion_mnist.ini
mkdir -p "$out"
loop_seconds() { sed -nE 's/^summary: model order .* samples\/s, ([0-9.]+) s$/\1/p' "$1"; }
plain=() saving=()
for ((k = 1; k <= repeat; k++)); do
    "$polka" run --config "$config" --progress=off --set run.output="$out/plain.h5" "$@" \
        >"$out/plain_$k.log"
    plain+=("$(loop_seconds "$out/plain_$k.log")")
    rm -f "$out/saving.ckpt"
    "$polka" run --config "$config" --progress=off --set run.output="$out/saving.h5" \
        --set run.checkpoint_seconds="$every" --set run.checkpoint="$out/saving.ckpt" "$@" \
        >"$out/saving_$k.log"
    saving+=("$(loop_seconds "$out/saving_$k.log")")
    awk -v k="$k" -v plain="${plain[-1]}" -v loop="${saving[-1]}" -v every="$every" '
        /^checkpoint: / { for (i = 1; i <= NF; i++) if ($i == "in") writing += $(i + 1) }
        END { printf "pass %d: loop without checkpoints %.2f s, with a checkpoint every %s s %.2f s, " \
                     "of which writing checkpoints %.3f s (%.2f %% of its loop)\n",
                     k, plain, every, loop, writing, 100 * writing / loop }' "$out/saving_$k.log"
done
echo
echo "checkpoints of the runs that saved every $every s (round, size, time to write):"
grep -h '^checkpoint:' "$out"/saving_*.log | sort | uniq -c | sed 's/^ */  /'
/usr/bin/python3 - "$out/saving.ckpt" "$out/saving.h5" "$out/plain.h5" "$root/tests" <<'PY'
import sys
import h5py
ckpt, saving, plain, tests = sys.argv[1:]
sys.path.insert(0, tests)
import ckpt_digest  # noqa: E402
with h5py.File(ckpt) as f:
    offset, length = ckpt_digest.agent_span(f, 0)
    entries = ckpt_digest.agent_entries(f["agents/states"][offset:offset + length].tobytes())
    sizes = sorted(((count * (1 if code == 2 else 8), k) for k, (code, count, _, _) in
                    entries.items()), reverse=True)
    print(f"last checkpoint: round {f.attrs['round']} of the run, its largest entries:",
          ", ".join(f"{k} {b / 1e6:.1f} MB" for b, k in sizes[:4]))
import run_models  # noqa: E402
with h5py.File(saving) as a, h5py.File(plain) as b:
    ma, mb = run_models.kernel_models(a), run_models.kernel_models(b)
    same = sorted(ma) == sorted(mb) and all(
        ma[m][k].tobytes() == mb[m][k].tobytes() for m in ma for k in (0, 1))
    print("final models of the two runs byte-identical:", same)
PY
/usr/bin/python3 - "$every" "${plain[@]}" -- "${saving[@]}" <<'PY'
import sys
every = sys.argv[1]
args = sys.argv[2:]
cut = args.index("--")
plain = [float(x) for x in args[:cut]]
saving = [float(x) for x in args[cut + 1:]]
p, s = sum(plain) / len(plain), sum(saving) / len(saving)
print(f"mean loop time: {p:.2f} s without checkpoints, {s:.2f} s with one every {every} s: "
      f"slow-down {100 * (s - p) / p:+.2f} % (target <= 2 %)")
print(f"spread of the plain runs alone: {min(plain):.2f} .. {max(plain):.2f} s")
PY
