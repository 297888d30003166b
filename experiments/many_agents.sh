#!/usr/bin/env bash
# Many agents per rank: N agents on P MPI ranks, beside centralized POLK on the union of the
# same streams (batch 1, the same data). Multidist with 200·N training samples, an
# Erdős–Rényi graph of mean degree max(4, 1.25 ln N) (mean degree 4 is connected only up to
# N ≈ 100: an ER graph is connected when its mean degree passes ln N), metrics on
# run.log_test = 200 test points until the last log step (the whole 2 500 at the end).
# Prints one line per (N, P) and writes OUT/many_agents.tsv.
#
#   experiments/many_agents.sh            Environment: NS ["16 64 256 1024 4096 16384"],
#                                         PS ["1 2"], CENTRAL_MAX [4096] (the largest N
#                                         centralized POLK runs for), ONE_PER_RANK [""] (sizes
#                                         also run the old way, one rank per agent: P = N,
#                                         oversubscribed), OUT [out/many_agents], POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
ns=${NS:-"16 64 256 1024 4096 16384"}
ps=${PS:-"1 2"}
out=${OUT:-$outdir/many_agents}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1

settings() { # N -> the settings every run of that size shares
    local n=$1 p
    p=$("$root/tools/er_p.sh" "$n")
    echo "--set net.agents=$n --set net.graph=er --set net.p=$p --set data.n_train=$((200 * n))
          --set run.log_every=1000000000000 --set run.log_test=200"
}

field() { # summary text, awk program -> value
    awk "$2" <<< "$1"
}

wall() { # command... -> its wall seconds on stdout, its output in $out/last.log
    local start end
    start=$(date +%s.%N)
    "$@" > "$out/last.log" 2>&1 || { echo "FAILED: $*" >&2; cat "$out/last.log" >&2; exit 1; }
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }'
}

echo "machine: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '%6s %2s | %7s %8s %10s %9s %8s %12s %8s | %10s %8s %6s\n' N P wall_s start_s \
    "loop_smp/s" "peak_MB" "all_MB" "B/round/rank" "error%" "central_s/s" "cent_err" ratio |
    tee "$out/many_agents.tsv"
for n in $ns; do
    # shellcheck disable=SC2046
    c_rate=- c_err=-
    if [ "$n" -le "${CENTRAL_MAX:-4096}" ]; then
        wall "$polka" run --quiet --centralized --set run.central_batch=1 $(settings "$n") > /dev/null
        central=$(cat "$out/last.log")
        c_rate=$(field "$central" '/samples\/s/ { for (i = 1; i <= NF; i++) if ($i == "samples/s,") print $(i - 1) }')
        c_err=$(field "$central" '/test error/ { print $4 }')
    fi
    extra=""
    for m in ${ONE_PER_RANK:-}; do [ "$m" = "$n" ] && extra=$n; done
    for p in $ps $extra; do
        [ "$p" -le "$n" ] || continue
        # shellcheck disable=SC2046
        secs=$(wall mpirun --oversubscribe -n "$p" "$polka" run --quiet $(settings "$n"))
        log=$(cat "$out/last.log")
        rate=$(field "$log" '/samples\/s/ { for (i = 1; i <= NF; i++) if ($i == "samples/s,") print $(i - 1) }')
        err=$(field "$log" '/test error/ { print $4 }')
        start=$(field "$log" '/start-up/ { print $3 }')
        peak=$(field "$log" '/peak memory/ { print $7 }')
        all=$(field "$log" '/peak memory/ { print $12 }')
        bytes=$(field "$log" '/across ranks/ { print $4 }')
        printf '%6s %2s | %7s %8s %10s %9s %8s %12s %8s | %10s %8s %6s\n' "$n" "$p" "$secs" \
            "$start" "$rate" "$peak" "$all" "$bytes" "$err" "$c_rate" "$c_err" \
            "$(awk -v a="$rate" -v b="$c_rate" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }')" |
            tee -a "$out/many_agents.tsv"
    done
done
echo "ratio: the decentralized loop's samples/s over centralized POLK's (batch 1, same data);"
echo "peak_MB: the largest rank's peak resident memory, all_MB: the sum over the ranks (MiB)"
