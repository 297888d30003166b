#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, -DPOLKA_FUZZ=ON, into FUZZ_BUILD_DIR, default
# build-fuzz) and runs each target for a time or a number of executions, one after the other,
# from a working copy of its seed corpus (tests/fuzz/corpus/<target>). Prints one line per
# target: executions, executions/s, crashes, hangs (timeouts), out-of-memory, leaks, corpus
# files, coverage (edges covered / instrumented, libFuzzer's "cov") and features ("ft").
# Exits 1 when a target left a crash, hang, OOM or leak (artifacts: FUZZ_BUILD_DIR/artifacts).
#
# The HDF5 targets (runfile, checkpoint) reach faults inside libhdf5 itself (a loop in
# H5HG_read, a heap overflow under H5Aexists, memory H5Dopen2 leaks when it fails, a 4 GB malloc in H5C_protect for an
# object header whose size is damaged), which polka cannot check for before calling
# it. Each of its crashes, hangs, out-of-memory stops and leaks is classified by
# its stack: the innermost frame outside the sanitizer, libFuzzer and libc is in libhdf5
# (upstream: counted in the "upstream" column, the input kept in artifacts/<target>/upstream,
# and the fuzzing goes on for the rest of the time or count) or in polka (counted as a crash,
# hang or leak: the run stops and fails).
#
# Usage: run.sh [-t SECONDS | -n RUNS] [-j NICE] [TARGET ...]
#   targets: graph config libsvm csv idx runfile checkpoint (default: all)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=60 runs=""
nice_level=10
while getopts "t:n:j:" opt; do
    case $opt in
    t) seconds=$OPTARG ;;
    n) runs=$OPTARG ;;
    j) nice_level=$OPTARG ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(graph config libsvm csv idx runfile checkpoint)

"$root/tools/install_deps.sh" clang libclang-rt-14-dev
CC=clang cmake -S "$root" -B "$build" -DPOLKA_FUZZ=ON -DPOLKA_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null

# upstream KIND: 0 when the crash, hang or leak (KIND) the last run of an HDF5 target
# stopped on is libhdf5's, by the stacks of its report ($log.part, upstream.awk). libhdf5 leaks
# memory when some calls fail (H5Dopen2 on a damaged layout message), where polka has no handle
# to close; a leak may not show on a replay of its input alone, so the report decides.
upstream() {
    awk -v all="$([ "$1" = leak ] && echo 1 || echo 0)" -f "$here/upstream.awk" "$log.part"
}

# fuzz TARGET SECONDS RUNS: one libFuzzer run into $log (appended); RUNS empty: SECONDS.
fuzz() {
    local limit=(-max_total_time="$2")
    [ -n "$3" ] && limit=(-runs="$3")
    # -timeout: a hang (generous: the machine may be shared and every input is instrumented);
    # -rss_limit_mb/-malloc_limit_mb: an out-of-memory (also a single allocation)
    nice -n "$nice_level" "$build/tests/fuzz/fuzz_$1" "${limit[@]}" -timeout=30 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$corpus" >"$log.part" 2>&1 || true
    cat "$log.part" >>"$log"
}

# Sets execs: the executions of the runs logged in $log.
executions() {
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{ s += $1 } END { print s + 0 }')
}

# An HDF5 target (runfile, checkpoint): fuzzes on past faults and leaks in libhdf5 (moved to
# $artifacts/upstream) until the time or count is spent or polka's own code fails.
fuzz_hdf5() { # TARGET
    local start=$SECONDS left=$seconds new kind
    mkdir -p "$artifacts/upstream"
    while :; do
        fuzz "$1" "$left" "${runs:+$((runs - execs))}"
        executions
        new=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' \
            -o -name 'leak-*' -o -name 'oom-*' \))
        [ -n "$new" ] || break
        for f in $new; do # one: libFuzzer stops at the first
            kind=$(basename "$f")
            upstream "${kind%%-*}" || return 0 # polka's own: left in $artifacts, counted, fails
            mv "$f" "$artifacts/upstream/"
        done
        left=$((seconds - (SECONDS - start)))
        if [ -n "$runs" ]; then [ "$execs" -lt "$runs" ] || break; else [ "$left" -gt 0 ] || break; fi
    done
}

status=0
printf '%-8s %12s %9s %7s %5s %4s %5s %8s %7s %16s %7s\n' target executions exec/s crashes hangs \
    oom leaks upstream corpus coverage features
for t in "${targets[@]}"; do
    corpus=$build/corpus/$t artifacts=$build/artifacts/$t log=$build/fuzz_$t.log
    mkdir -p "$corpus" "$artifacts"
    cp -n "$here/corpus/$t/"* "$corpus/" 2>/dev/null || true
    rm -rf "$artifacts"/*
    : >"$log"
    execs=0 start=$SECONDS
    case $t in
    runfile | checkpoint) fuzz_hdf5 "$t" ;;
    *) fuzz "$t" "$seconds" "$runs" ;;
    esac
    executions
    elapsed=$((SECONDS - start))
    rate=$((execs / (elapsed > 0 ? elapsed : 1)))
    edges=$(sed -n 's/.*Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" |
        head -1)
    # (a run stopped by an upstream fault before libFuzzer's first status line has neither)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
    count() { find "$artifacts" -maxdepth 1 -name "$1-*" | wc -l; }
    crashes=$(count crash) hangs=$(count timeout) ooms=$(count oom) leaks=$(count leak)
    upstream=0
    [ -d "$artifacts/upstream" ] && upstream=$(find "$artifacts/upstream" -type f | wc -l)
    files=$(find "$corpus" -type f | wc -l)
    printf '%-8s %12s %9s %7s %5s %4s %5s %8s %7s %16s %7s\n' "$t" "$execs" "$rate" "$crashes" \
        "$hangs" "$ooms" "$leaks" "$upstream" "$files" "${cov:-?}/${edges:-?}" "${ft:-?}"
    if [ $((crashes + hangs + ooms + leaks)) -gt 0 ] || [ "$execs" -eq 0 ]; then
        status=1
        echo "  $t: see $log and $artifacts" >&2
    fi
done
exit $status
