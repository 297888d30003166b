#!/bin/sh
# partial_read_test.sh POLKA MPIEXEC: each rank reads only its agents' samples of a plain
# LIBSVM or IDX training file (polka/dataio.h, Partial reads), and the run is the one a whole
# read gives. For each file, split and placement, runs on P = 1, 2 and 3 ranks are compared with
# tests/python/compare_runs.py (every metric row but the timers and the disagreement, whose last bits
# depend on the ranks, and every model, bit for bit) against the same run on a gzipped copy
# under the same name (a gzipped file cannot be read in part: every rank reads it whole, as
# every file was read before partial reads). The LIBSVM file has comment and blank lines
# between its samples, so a sample's line is not its index. Samples of 100 features (LIBSVM,
# about 2 kB a line) and 40x40 bytes (IDX) in batches of 30 make each agent's run of samples in
# a round longer than the 64 kB gaps a partial read reads through: ranks seek over the others'.
set -eu
polka=$1
mpiexec=$2
tests=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mkdir "$dir/plain" "$dir/gz"

# LIBSVM: 1 800 multidist samples, a comment every 7 lines and a blank line every 11.
"$polka" data multidist -o "$dir/m" --set data.n_train=1800 --set data.n_test=120 \
    --set data.dim=100 >/dev/null
awk 'NR % 7 == 0 { print "# comment" } NR % 11 == 0 { print "" } { print }' "$dir/m" \
    >"$dir/plain/train.svm"
cp "$dir/m.t" "$dir/plain/test.svm"
# IDX: 1 800 records of 40x40 bytes, 3 classes (written by Python, no numpy).
/usr/bin/python3 - "$dir/plain" <<'PY'
import random, struct, sys
d = sys.argv[1]
rng = random.Random(7)
def write(name, n):
    labels = [rng.randrange(3) for _ in range(n)]
    pixels = bytes(min(255, max(0, int(rng.gauss(60 * c + 40, 30)))) for c in labels for _ in range(1600))
    open(f"{d}/{name}-images-idx3-ubyte", "wb").write(struct.pack(">IIII", 0x803, n, 40, 40) + pixels)
    open(f"{d}/{name}-labels-idx1-ubyte", "wb").write(struct.pack(">II", 0x801, n) + bytes(labels))
write("train", 1800)
write("test", 90)
PY
for f in "$dir"/plain/*; do gzip -c "$f" >"$dir/gz/$(basename "$f")"; done

libsvm="--set data.source=file --set data.train=train.svm --set data.test=test.svm
        --set data.scale=standard"
idx="--set data.source=file --set data.train=train-images-idx3-ubyte
     --set data.train_labels=train-labels-idx1-ubyte --set data.test=test-images-idx3-ubyte
     --set data.test_labels=test-labels-idx1-ubyte --set data.scale=unit"
common="--quiet --set net.agents=6 --set net.graph=ring --set run.passes=1.5 --set run.log_every=4
        --set learner.batch=30"

# NAME RANKS DIR settings...: a run in DIR (relative data paths: the same /config for both)
run() {
    name=$1 ranks=$2 where=$3
    shift 3
    # shellcheck disable=SC2086 # the settings are words
    (cd "$dir/$where" && "$mpiexec" --oversubscribe -n "$ranks" "$polka" run $common "$@" \
        --set run.output="$dir/$name.h5") >"$dir/$name.log" 2>&1 || {
        cat "$dir/$name.log" >&2
        exit 1
    }
}

compare() {
    /usr/bin/python3 "$tests/python/compare_runs.py" "$dir/$1.h5" "$dir/$2.h5" --except disagreement \
        >"$dir/compare.log" || { cat "$dir/compare.log" >&2; echo "$1 != $2" >&2; exit 1; }
}

# Every P and both placements with the iid split; dirichlet (which draws by class) on 2 and 3.
for data in libsvm idx; do
    eval "settings=\$$data"
    for split in iid dirichlet; do
        # shellcheck disable=SC2086
        run "$data-$split-whole" 1 gz $settings --set data.split=$split
        cases="1:block 2:block 3:partition"
        [ "$split" = dirichlet ] && cases="2:partition 3:block"
        for c in $cases; do
            ranks=${c%:*} placement=${c#*:}
            name=$data-$split-$ranks-$placement
            # shellcheck disable=SC2086
            run "$name" "$ranks" plain $settings --set data.split=$split \
                --set net.placement=$placement
            compare "$data-$split-whole" "$name"
        done
    done
done
echo "ok: partial reads of LIBSVM and IDX files equal whole reads on 1, 2 and 3 ranks"
