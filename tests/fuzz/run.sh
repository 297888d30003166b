#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, -DPOLKA_FUZZ=ON, into FUZZ_BUILD_DIR, default
# build-fuzz) and runs each target for a time or a number of executions, one after the other,
# from a working copy of its seed corpus (tests/fuzz/corpus/<target>). Prints one line per
# target: executions, executions/s, crashes, hangs (timeouts), out-of-memory, leaks, corpus
# files, coverage (edges covered / instrumented, libFuzzer's "cov") and features ("ft").
# Exits 1 when a target left a crash, hang, OOM or leak (artifacts: FUZZ_BUILD_DIR/artifacts).
#
# Usage: run.sh [-t SECONDS | -n RUNS] [-j NICE] [TARGET ...]
#   targets: graph config libsvm csv idx runfile (default: all)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
limit=(-max_total_time=60)
nice_level=10
while getopts "t:n:j:" opt; do
    case $opt in
    t) limit=(-max_total_time="$OPTARG") ;;
    n) limit=(-runs="$OPTARG") ;;
    j) nice_level=$OPTARG ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(graph config libsvm csv idx runfile)

"$root/experiments/install_deps.sh" clang libclang-rt-14-dev
CC=clang cmake -S "$root" -B "$build" -DPOLKA_FUZZ=ON -DPOLKA_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null

status=0
printf '%-8s %12s %9s %7s %5s %4s %5s %7s %16s %7s\n' target executions exec/s crashes hangs oom \
    leaks corpus coverage features
for t in "${targets[@]}"; do
    corpus=$build/corpus/$t artifacts=$build/artifacts/$t log=$build/fuzz_$t.log
    mkdir -p "$corpus" "$artifacts"
    cp -n "$here/corpus/$t/"* "$corpus/" 2>/dev/null || true
    rm -f "$artifacts"/*
    # -timeout: a hang (generous: the machine may be shared and every input is instrumented);
    # -rss_limit_mb/-malloc_limit_mb: an out-of-memory (also a single allocation)
    nice -n "$nice_level" "$build/tests/fuzz/fuzz_$t" "${limit[@]}" -timeout=30 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || true
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    edges=$(sed -n 's/.*Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" |
        head -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    count() { find "$artifacts" -name "$1-*" | wc -l; }
    crashes=$(count crash) hangs=$(count timeout) ooms=$(count oom) leaks=$(count leak)
    files=$(find "$corpus" -type f | wc -l)
    printf '%-8s %12s %9s %7s %5s %4s %5s %7s %16s %7s\n' "$t" "${execs:-?}" "${rate:-?}" \
        "$crashes" "$hangs" "$ooms" "$leaks" "$files" "${cov:-?}/${edges:-?}" "${ft:-?}"
    if [ $((crashes + hangs + ooms + leaks)) -gt 0 ] || [ -z "$execs" ]; then
        status=1
        echo "  $t: see $log and $artifacts" >&2
    fi
done
exit $status
