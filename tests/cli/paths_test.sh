#!/usr/bin/env bash
# paths_test.sh POLKA PYTHON DIR: nothing written is ever lost, against the built
# binary. Every case below is run: an output naming an input or another output
# however spelled is refused with one message naming both, and the input's bytes stay the same
# (sha256 before and after); outputs go through temporary names; a second run on a busy output
# is refused and a killed run leaves no stale lock; config lines of any length; non-regular
# inputs refused without hanging; the messages of item 13. Prints "N passed, M failed".
set -u
polka=$1 python=$2 dir=$3
tests=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
passed=0 failed=0
small=(--set data.n_train=200 --set data.n_test=50 --set run.log_every=50)

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $1"; }
sum() { [ $# -eq 0 ] || sha256sum "$@" 2>/dev/null | cut -d' ' -f1 | tr '\n' ' '; }

# refuse NAME REGEX FILES -- COMMAND...: COMMAND exits 1 within 30 s (no hang, no abort) with
# one polka line on stderr matching REGEX, and FILES (space-separated) keep their bytes.
refuse() {
    local name=$1 regex=$2 files=$3
    shift 4
    local before after code
    before=$(sum $files)
    timeout -k 5 30 "$@" >out.txt 2>err.txt
    code=$?
    after=$(sum $files)
    if [ "$code" -ne 1 ]; then bad "$name: exit $code, expected 1"; cat err.txt; return; fi
    if [ "$(grep -c '^polka' err.txt)" -ne 1 ]; then bad "$name: not one message"; cat err.txt; return; fi
    if ! grep -Eq -- "$regex" err.txt; then bad "$name: message: $(cat err.txt)"; return; fi
    if [ "$before" != "$after" ]; then bad "$name: $files changed"; return; fi
    ok "$name: $(grep '^polka' err.txt | cut -c1-150)"
}

# runs NAME COMMAND...: exits 0.
runs() {
    local name=$1
    shift
    if timeout -k 5 60 "$@" >out.txt 2>err.txt; then ok "$name"; else bad "$name: exit $?: $(cat err.txt)"; fi
}

# --- inputs: a checkpoint, data files, a graph file, a config file
"$polka" data multidist -o tr.svm --set data.n_train=200 --set data.n_test=50 >/dev/null
"$polka" graph generate --kind ring --n 4 -o ring.txt >/dev/null
printf '[learner]\neta = 0.5\n' >c.ini
"$polka" run --quiet "${small[@]}" --set run.checkpoint=ck.h5 --set run.checkpoint_every=100 \
    >/dev/null
cp ck.h5 r.h5
same="are the same file"

# 1. a failed resume destroys its input
refuse "1 output = the resumed checkpoint" "run.output 'r.h5' and --resume 'r.h5' $same" r.h5 -- \
    "$polka" run "${small[@]}" --set run.output=r.h5 --resume r.h5
refuse "1 csv = the resumed checkpoint" "run.csv '\./r.h5' and --resume 'r.h5' $same" r.h5 -- \
    "$polka" run "${small[@]}" --set run.csv=./r.h5 --resume r.h5
file_run=(--set data.source=file --set data.train=tr.svm --set data.test=tr.svm.t)
# 2. outputs overwrite inputs
refuse "2 checkpoint = training file" "run.checkpoint 'tr.svm' and data.train 'tr.svm' $same" \
    tr.svm -- "$polka" run "${file_run[@]}" --set run.checkpoint=tr.svm
for key in output csv checkpoint; do
    refuse "2 run.$key = graph file" "run.$key '\./ring.txt' and net.graph 'ring.txt' $same" \
        ring.txt -- "$polka" run "${small[@]}" --set net.graph=ring.txt --set run.$key=./ring.txt
    refuse "2 run.$key = config file" "run.$key 'c.ini' and --config 'c.ini' $same" c.ini -- \
        "$polka" run "${small[@]}" --config c.ini --set run.$key=c.ini
done
cp "$tests/data/x1_x2.csv" tr.csv
refuse "2 data split -o = training file" "-o '\./tr.csv' and data.train 'tr.csv' $same" tr.csv -- \
    "$polka" data split -o ./tr.csv --set data.source=file --set data.train=tr.csv \
    --set data.test=tr.csv
# polka predict --output: the rule, then the predictions through a temporary name
"$polka" run --quiet "${file_run[@]}" --set run.log_every=100 --set run.output=m.h5 >/dev/null
refuse "2 predict --output = the run file" "--output '\./m.h5' and --model 'm.h5' $same" m.h5 -- \
    "$polka" predict --model m.h5 --data tr.svm.t --output ./m.h5
refuse "2 predict --output = the run's training file" "--output '\./tr.svm' and data.train 'tr.svm' $same" \
    tr.svm -- "$polka" predict --model m.h5 --data tr.svm.t --output ./tr.svm
echo "earlier predictions" >pred.txt
runs "2 predict --output replaces an earlier file" "$polka" predict --model m.h5 --data tr.svm.t \
    --output pred.txt
[ "$(wc -l <pred.txt)" = 50 ] && ! ls pred.txt.*.tmp >/dev/null 2>&1 &&
    ok "2 predict wrote 50 lines, no temporary file left" || bad "2 predict: $(head -2 pred.txt)"
# 3. two spellings of one file (neither existing yet), and the checkpoint's temporary file
refuse "3 output o2.h5, csv ./o2.h5" "run.output 'o2.h5' and run.csv '\./o2.h5' $same" "" -- \
    "$polka" run "${small[@]}" --set run.output=o2.h5 --set run.csv=./o2.h5
[ -e o2.h5 ] && bad "3 o2.h5 was written"
refuse "3 checkpoint ./same.h5, output same.h5" "run.output 'same.h5' and run.checkpoint '\./same.h5' $same" \
    "" -- "$polka" run "${small[@]}" --set run.output=same.h5 --set run.checkpoint=./same.h5
mkdir -p sub && ln -sf sub link
refuse "3 a symbolic link and ../" "run.output 'link/x.h5' and run.csv 'sub/\.\./sub//x.h5' $same" \
    "" -- "$polka" run "${small[@]}" --set run.output=link/x.h5 --set run.csv=sub/../sub//x.h5
runs "3 run.output = the checkpoint's old temporary name" "$polka" run "${small[@]}" \
    --set run.output=c.ckpt.tmp --set run.checkpoint=c.ckpt --set run.checkpoint_every=20
if "$python" -c "import h5py; assert h5py.File('c.ckpt.tmp')['metrics/round'].shape[0] == 4" 2>/dev/null; then
    ok "3 c.ckpt.tmp is the run file, whole"
else bad "3 c.ckpt.tmp is not the run file"; fi
ls ./*.tmp 2>/dev/null | grep -v '^./c.ckpt.tmp$' && bad "3 temporary files left behind"

# 8. two runs on one output: the second is refused while the first holds it
echo "an earlier run file" >busy.h5
before=$(sum busy.h5)
"$polka" run --quiet --set data.n_train=2000000 --set run.output=busy.h5 >/dev/null 2>&1 &
first=$! # polka itself (killed below)
for _ in $(seq 1 100); do [ -s busy.h5.lock ] && break; sleep 0.1; done
refuse "8 a second run on a busy output" "run.output 'busy.h5' is being written by another run \(polka lock: pid $first on " \
    busy.h5 -- "$polka" run "${small[@]}" --set run.output=busy.h5
kill -KILL "$first"
wait "$first" 2>/dev/null
[ "$(sum busy.h5)" = "$before" ] && ok "8 a killed run leaves the earlier file whole" ||
    bad "8 the killed run changed busy.h5"
runs "8 no stale lock after a kill" "$polka" run "${small[@]}" --set run.output=busy.h5
"$python" -c "import h5py; h5py.File('busy.h5')['metrics/round']" 2>/dev/null &&
    ok "8 busy.h5 is the new run's" || bad "8 busy.h5 is not a run file"
# 800 samples: 3 s each, checkpointing every round, so the two overlap (3 000 took 13 s)
mkdir -p both && (
    cd both || exit 1
    for k in 1 2; do
        "$polka" run --quiet --set data.n_train=800 --set run.checkpoint_every=1 >run$k.txt 2>&1 &
    done
    wait
) && [ ! -e both/polka.ckpt.tmp ] && grep -q "summary: model order" both/run1.txt &&
    grep -q "summary: model order" both/run2.txt && ok "8 two runs in one folder, both checkpointing" ||
    bad "8 two runs in one folder: $(cat both/run*.txt | grep polka)"

# 9. config lines of any length; path limits
# inih read 199 characters at a time: the rest of these lines was a line of its own
printf '[learner]\n;%0198deta = 0.05\n#%0198deta = 0.05\n' 0 0 >comment.ini
"$polka" run "${small[@]}" >plain.txt 2>&1
"$polka" run "${small[@]}" --config comment.ini >commented.txt 2>&1
grep summary plain.txt | grep -v "samples/s\|start-up" >a.txt
grep summary commented.txt | grep -v "samples/s\|start-up" >b.txt
if [ -s a.txt ] && cmp -s a.txt b.txt; then ok "9 a 200-character comment is never applied"; else
    bad "9 the long comment changed the run: $(head -2 commented.txt)"; fi
base=$(mktemp -d /tmp/polka_paths.XXXXXX)
trap 'rm -rf "$base"' EXIT
long=$base/$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 60))/$(printf 'f%.0s' $(seq 1 60))
mkdir -p "$long"
printf '[run]\ncsv = %s/%0*d.csv\n' "$long" $((250 - ${#long} - 5)) 0 >longpath.ini
runs "9 a 250-character path in a config file" "$polka" run "${small[@]}" --config longpath.ini
ls "$long"/*.csv >/dev/null 2>&1 && ok "9 the long CSV path was written" || bad "9 no CSV at the long path"
for n in 250 275; do
    name=$long/$(printf 'x%.0s' $(seq 1 $((n - ${#long} - 4)))).h5
    refuse "9 a $n-character run.output (Open MPI aborts)" "run.output '.*': $n characters, at most 233" \
        "" -- "$polka" run "${small[@]}" --set run.output="$name"
done
name=$long/$(printf 'x%.0s' $(seq 1 $((240 - ${#long} - 6)))).ckpt
refuse "9 a 240-character run.checkpoint (every rank writes it with MPI-IO)" \
    "run.checkpoint '.*': 240 characters, at most 233" "" -- \
    "$polka" run "${small[@]}" --set run.checkpoint="$name"

# 10. non-regular inputs
refuse "10 --config /dev/zero" "cannot read config file '/dev/zero': it is a character device" "" -- \
    "$polka" run --config /dev/zero
mkfifo fifo
refuse "10 --resume on a FIFO" "--resume 'fifo' is a FIFO: polka reads only regular files" "" -- \
    "$polka" run --resume fifo
refuse "10 run.csv on a device" "run.csv '/dev/null' is a character device" "" -- \
    "$polka" run "${small[@]}" --set run.csv=/dev/null

# 13. messages
refuse "13 data.memory=1" "over the memory limit of 1 byte$" "" -- "$polka" run "${file_run[@]}" \
    --set data.memory=1
runs "13 1e-320 is a finite number" "$polka" run "${small[@]}" --set learner.jitter=1e-320
refuse "13 data.drift=1e308" "data.drift must be in \[0, 6.28318" "" -- "$polka" run --set data.drift=1e308
refuse "13 data.storage=sparse on multidist" "data.storage \(dense, sparse\) applies to LIBSVM files" "" -- \
    "$polka" run --set data.storage=sparse
refuse "13 data.scan_chunk on multidist" "data.scan_chunk applies to a training file's scan" "" -- \
    "$polka" run --set data.scan_chunk=4096
refuse "13 data.scan_chunk below 1024" "data.scan_chunk must be >= 1024" "" -- \
    "$polka" run "${file_run[@]}" --set data.scan_chunk=100
refuse "13 data split -o s.txt" "-o 's.txt': the table is FILE.csv, a figure FILE.png, .pdf or .svg" "" -- \
    "$polka" data split -o s.txt
grep -q Traceback err.txt && bad "13 a traceback"
"$polka" run --centralized --set learner.control=slkl --set data.source=sinc --set learner.loss=square \
    --set learner.nu=0.01 --set data.n_train=200 >slkl.txt 2>&1
grep -Eq "start-up [0-9]" slkl.txt && ok "13 slkl's start-up time: $(grep -o 'start-up [^,]*' slkl.txt)" ||
    bad "13 slkl's start-up: $(grep start-up slkl.txt)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
