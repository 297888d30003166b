#!/usr/bin/env bash
# Start-up at 10^5 and 10^6 nodes. For N in NS and an Erdős–Rényi and a random
# geometric graph of mean degree 1.25 ln N (tools/er_p.sh; radius sqrt(d / (π N)): both
# connected, which a run needs), `polka graph generate` and `polka graph info` (wall and CPU
# seconds, peak memory), then build/bench_startup: the run's own graph (generation, retried
# until connected, and its checks), block placement and METIS placement on P ranks, each with
# wall and CPU seconds and the peak memory (every rank does all of it, the same way).
# CPU seconds are what a loaded machine does not inflate.
#
#   experiments/startup_scale.sh      Environment: NS ["100000 1000000"], PS ["2 1024"],
#                                     GRAPHS ["er rgg"], OUT [out/startup_scale], POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
out=${OUT:-$outdir/startup_scale}
bench=$(dirname "$polka")/bench_startup
[ -x "$bench" ] || { echo "startup_scale.sh needs $bench (cmake --build build)" >&2; exit 2; }
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1

params() { # GRAPH N -> "OPTION VALUE" for polka graph generate
    local d
    d=$(awk -v n="$2" 'BEGIN { d = 1.25 * log(n); if (d < 4) d = 4; print d }')
    case $1 in
        er) echo "p $(awk -v n="$2" -v d="$d" 'BEGIN { printf "%.6g", d / (n - 1) }')" ;;
        rgg) echo "radius $(awk -v n="$2" -v d="$d" 'BEGIN { printf "%.6g", sqrt(d / (3.14159265 * n)) }')" ;;
    esac
}

timed() { # LABEL command... -> "LABEL: W s wall, C s CPU, peak M MB"
    local label=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" >"$out/last.log" 2>&1 ||
        { cat "$out/last.log" >&2; exit 1; }
    awk -v l="$label" '{ printf "%-34s %7.2f s wall %7.2f s CPU, peak %6.0f MB\n", l, $1, $2 + $3, $4 / 1024 }' \
        "$out/time.txt"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in ${NS:-100000 1000000}; do
    for g in ${GRAPHS:-er rgg}; do
        read -r key value <<<"$(params "$g" "$n")"
        echo "## $g, N = $n, $key = $value"
        timed "polka graph generate --connected" "$polka" graph generate --kind "$g" --n "$n" \
            --"$key" "$value" --connected -o "$out/$g-$n.txt"
        grep -o 'seed [0-9]*, connected' "$out/last.log" || true
        timed "polka graph info" "$polka" graph info "$out/$g-$n.txt"
        ps=${PS:-2 1024}
        echo "bench_startup $n ${ps// /,}:"
        "$bench" "$n" "${ps// /,}" --set net.graph="$g" --set net."$key"="$value" | sed 's/^/  /'
    done
done
