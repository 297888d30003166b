#!/usr/bin/env bash
# 1 024 agents on 2 ranks, multidist (the default source and learner), an Erdős–Rényi graph of
# mean degree 10, 200 training samples per agent, one pass: each decentralized
# setting beside centralized POLK on the same stream (the union of the agents' streams, batch
# 1: the same samples). One line per setting: the agents' mean test error, its gap to
# centralized in points, the spread over agents, the disagreement, the mean model order,
# bytes per round and CPU seconds (user + sys, every rank). Output: OUT/agents1024.txt.
#
#   experiments/agents1024.sh        Environment: SETTINGS (one setting a line, "label:
#                                    --set key=value ..."; default below), N [1024], RANKS [2],
#                                    DEGREE [10], PER_AGENT [200], OUT [out/agents1024], POLKA,
#                                    CONFIG [none: the default settings; e.g.
#                                    configs/decentralized_multidist.ini, η 0.1]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
n=${N:-1024} ranks=${RANKS:-2} degree=${DEGREE:-10} per_agent=${PER_AGENT:-200}
out=${OUT:-$outdir/agents1024}
mkdir -p "$out"
p=$(awk -v n="$n" -v d="$degree" 'BEGIN { printf "%.6g", d / (n - 1) }')
common=(${CONFIG:+--config "$CONFIG"} --set net.agents="$n" --set net.graph=er --set net.p="$p"
    --set data.n_train=$((per_agent * n)) --set run.log_every=1000000000000)
settings=${SETTINGS:-"paper c=1 (the issue's setting): --set net.c=1
paper c=0 (each agent alone): --set net.c=0
paper c=2: --set net.c=2
paper c=4 (refused at eta 0.5): --set net.c=4
paper eta 0.25 c=4: --set learner.eta=0.25 --set net.c=4
symmetric c=1: --set net.penalty=symmetric --set net.c=1
shared samples c=1: --set net.share=samples --set net.c=1"}

field() { # log awk-program -> value
    awk "$2" "$1"
}

cpu() { # name -> user + sys seconds of its run
    local user sys wall
    read -r user sys wall <"$out/$1.time"
    printf '%.1f' "$(echo "$user + $sys" | bc)"
}

run() { # name command...: the run's output in OUT/name.log, its times in OUT/name.time (no
    # stdin: mpirun would read the settings' lines)
    local name=$1
    shift
    /usr/bin/time -f "%U %S %e" -o "$out/$name.time" "$@" >"$out/$name.log" 2>&1 </dev/null ||
        { cat "$out/$name.log" >&2; exit 1; }
}

{
    echo "N = $n agents on $ranks ranks, ER p = $p (mean degree $degree), $per_agent samples each," \
        "settings: ${CONFIG:-the defaults}"
    run central "$polka" run --quiet --centralized --set run.central_batch=1 "${common[@]}"
    central=$(field "$out/central.log" '/test error/ { print $4 }')
    printf 'centralized POLK (batch 1, same stream): test error %s %%, model order %s, %s s CPU\n' \
        "$central" "$(field "$out/central.log" '/model order/ { print $4 }')" "$(cpu central)"
    printf '%-36s %7s %6s %15s %8s %7s %11s %7s\n' setting error% gap "min-max acc" disagr \
        order bytes/round cpu_s
    i=0
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        label=${line%%:*} i=$((i + 1))
        log=$out/s$i.log
        # shellcheck disable=SC2086
        if ! /usr/bin/time -f "%U %S %e" -o "$out/s$i.time" mpirun --oversubscribe -n "$ranks" \
            "$polka" run --quiet "${common[@]}" ${line#*:} >"$log" 2>&1 </dev/null; then
            printf '%-36s refused: %s\n' "$label" "$(grep -m1 '^polka' "$log")"
            continue
        fi
        error=$(field "$log" '/test error/ { print $4 }')
        printf '%-36s %7s %6.2f %15s %8s %7s %11s %7s\n' "$label" "$error" \
            "$(echo "$error - $central" | bc -l)" \
            "$(field "$log" '/test error/ { gsub(/[;,)]/, ""); for (i = 1; i < NF; i++)
                if ($i == "acc") v = v (v ? "-" : "") $(i + 1); print v }')" \
            "$(field "$log" '/disagreement/ && /bytes/ { gsub(/,/, ""); print $3 }')" \
            "$(field "$log" '/model order/ { print $4 }')" \
            "$(field "$log" '/bytes\/round$/ { print $(NF - 1) }')" "$(cpu "s$i")"
    done <<<"$settings"
} | tee "$out/agents1024.txt"
