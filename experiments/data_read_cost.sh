#!/usr/bin/env bash
# What each rank reads of the training file, before and after partial reads
# (polka/dataio.h, Partial reads) and the split scan (polka/dataio.h, Chunks). A run on a plain
# LIBSVM file (multidist, N samples, comment lines between them), on the same samples as CSV
# (blank lines between them) and on Fashion-MNIST's IDX files (gunzipped into OUT), on P ranks,
# one pass (every row drawn by some agent), with 2 048·P agents (LIBSVM, CSV) or 128·P (IDX): then
# a rank's agents draw runs of about 90 kB (2 048 lines of about 46 bytes, 128 records of 784),
# longer than the 64 kB gaps a partial read reads through (with 4 agents a rank, every gap
# would be read through, and the bytes would be the file's). The run of this tree scans in
# chunks of CHUNK bytes, each rank its run of them. Under strace: per rank, the bytes that
# read/pread returned on the training files (LIBSVM, CSV: the file; IDX: images and labels) and
# the seconds from their first open to their last close (the scan and the read; strace's own cost
# included). The run's start-up (collective, largest rank) comes from a run without strace.
# Each binary is run on the same files; the runs' test errors are printed to show they agree.
#
#   experiments/data_read_cost.sh      Environment: BEFORE [none: this tree only] (a polka
#                                      binary of the tree before, e.g. built from f9e554e),
#                                      PS ["1 2 4"], N [400000], CHUNK [1048576],
#                                      OUT [out/data_read_cost], POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
out=${OUT:-$outdir/data_read_cost}
ps=${PS:-"1 2 4"}
n=${N:-400000}
chunk=${CHUNK:-1048576}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$out" # a run stopped by a signal leaves its checkpoint here, not in the caller's folder
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
command -v strace >/dev/null || { echo "data_read_cost.sh needs strace" >&2; exit 2; }

# The files: a LIBSVM file with a comment every 50 lines, Fashion-MNIST's IDX files unzipped.
if [ ! -s "$out/train.svm" ]; then
    "$polka" data multidist -o "$out/m" --set data.n_train="$n" --set data.n_test=2000 >/dev/null
    awk 'NR % 50 == 0 { print "# comment" } { print }' "$out/m" >"$out/train.svm"
    mv "$out/m.t" "$out/test.svm"
    rm -f "$out/m"
fi
# the same samples as CSV (x1,x2,label; a blank line where the LIBSVM file has a comment)
to_csv() {
    awk 'BEGIN { print "x1,x2,label" }
         /^#/ { print ""; next }
         { x[1] = 0; x[2] = 0
           for (k = 2; k <= NF; k++) { split($k, f, ":"); x[f[1]] = f[2] }
           print x[1] "," x[2] "," $1 }' "$1" >"$2"
}
[ -s "$out/train.csv" ] || to_csv "$out/train.svm" "$out/train.csv"
[ -s "$out/test.csv" ] || to_csv "$out/test.svm" "$out/test.csv"
fashion=/usr/share/datasets/fashion-mnist
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte \
    t10k-labels-idx1-ubyte; do
    [ -s "$out/$f" ] || gunzip -c "$fashion/$f.gz" >"$out/$f"
done

libsvm="--set data.source=file --set data.train=$out/train.svm --set data.test=$out/test.svm"
csv="--set data.source=file --set data.train=$out/train.csv --set data.test=$out/test.csv"
idx="--set data.source=file --set data.train=$out/train-images-idx3-ubyte
     --set data.train_labels=$out/train-labels-idx1-ubyte
     --set data.test=$out/t10k-images-idx3-ubyte --set data.test_labels=$out/t10k-labels-idx1-ubyte
     --set data.scale=unit --set learner.sigma=5 --set learner.kp=1"

# TRACE BIN RANKS settings...: the run under strace, one trace per rank (TRACE.RANK)
traced() {
    local trace=$1 bin=$2 ranks=$3
    shift 3
    rm -f "$trace".*
    # shellcheck disable=SC2016 # $0, $@ are the rank's sh's
    mpirun --oversubscribe -n "$ranks" sh -c 'exec strace -f -qq -ttt -o "$0.${OMPI_COMM_WORLD_RANK:-0}" \
        -e trace=openat,read,pread64,close "$@"' "$trace" "$bin" run --quiet "$@" >/dev/null
}

# TRACE PATH-PREFIX -> per rank "bytes seconds" of the files whose path starts with the prefix
per_rank() {
    local trace=$1 prefix=$2 f
    for f in "$trace".*; do
        awk -v prefix="$prefix" '
            function ret(line) { sub(/.*= /, "", line); return line + 0 }
            $3 ~ /^openat\(/ && index($0, "\"" prefix) && / = [0-9]+$/ {
                fd = ret($0); open[$1 " " fd] = 1; if (first == "") first = $2 }
            $3 ~ /^(read|pread64)\(/ {
                split($3, a, /[(,]/); if (($1 " " a[2]) in open) bytes += ret($0) }
            $3 ~ /^close\(/ {
                split($3, a, /[(,)]/); if (($1 " " a[2]) in open) { delete open[$1 " " a[2]]; last = $2 } }
            END { printf "%d %.2f\n", bytes, last - first }' "$f"
    done
}

wall_run() { # BIN RANKS settings... -> "start-up_s error%" of an untraced run
    local bin=$1 ranks=$2 text
    shift 2
    text=$(mpirun --oversubscribe -n "$ranks" "$bin" run --quiet "$@")
    awk '/start-up/ { s = $3 } /test error/ { e = $4 } END { printf "%s %s", s, e }' <<<"$text"
}

printf '%-6s %-6s %2s | %-34s | %8s %7s\n' data binary P "bytes read per rank (MB), s per rank" \
    start_s error%
for data in libsvm csv idx; do
    eval "settings=\$$data"
    prefix=$out/train
    size=$(wc -c <"$out"/train.svm)
    [ "$data" = csv ] && size=$(wc -c <"$out"/train.csv)
    [ "$data" = idx ] && size=$(cat "$out"/train-*-ubyte | wc -c)
    echo "# $data: training files $(awk -v b="$size" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
    for p in $ps; do
        for which in before after; do
            bin=$polka
            if [ "$which" = before ]; then
                [ -n "${BEFORE:-}" ] || continue
                bin=$BEFORE
            fi
            per_rank=2048
            [ "$data" = idx ] && per_rank=128
            common="$settings --set net.agents=$((per_rank * p)) --set net.graph=ring
                    --set run.log_every=1000000000000 --set run.log_test=200"
            # the scan split among the ranks, in chunks that divide these small files evenly
            [ "$which" = after ] && common="$common --set data.scan_chunk=$chunk"
            # shellcheck disable=SC2086
            traced "$out/trace-$data-$which-$p" "$bin" "$p" $common
            ranks=$(per_rank "$out/trace-$data-$which-$p" "$prefix" |
                awk '{ printf "%s%.1f MB %.2f s", (NR > 1 ? ", " : ""), $1 / 1e6, $2 }')
            # shellcheck disable=SC2086
            printf '%-6s %-6s %2s | %-34s | %8s %7s\n' "$data" "$which" "$p" "$ranks" \
                $(wall_run "$bin" "$p" $common)
        done
    done
done
