#!/usr/bin/env bash
# N = 100 000 agents on P = 2 ranks of one machine, beside centralized POLK on the
# same stream (the union of the N streams, its default mini-batch: one round up to 32
# samples), in one script. Multidist, SAMPLES per agent, BATCH per round (learner.batch).
# Metrics on run.log_test = 200 test points until the last log step (the whole 2 500 at the
# end, the disagreement on the 200 at every step), one log step at the end.
#
# The graph: an Erdős–Rényi graph of mean degree DEGREE (default 8),
# its components joined (net.join = 1): at N = 10⁵ an ER or a random geometric graph of mean
# degree 8 is never connected (below the threshold ln N ≈ 11.5: about N e⁻⁸ ≈ 34 isolated
# nodes; seed 1 has 23 components), and joining adds one edge per component but the largest
# (mean degree 8.0097 instead of 8.0000). GRAPH=rgg: a random geometric graph of that mean
# degree (radius √(DEGREE / (π N)), a little less at the square's edges), joined alike;
# GRAPH=smallworld: Watts–Strogatz of mean degree 8 (net.k = 4), connected as drawn;
# GRAPH=er DEGREE=auto: ER of mean degree max(4, 1.25 ln N) ≈ 14.4 (tools/er_p.sh),
# connected without joining (what stop 38 measured).
#
# Per run: the wall time, the start-up and loop samples/s of the summary (also without the log
# steps: the last one scores the whole test set with every agent's model, at 10⁵ agents as much
# kernel work as learning), and the peak RSS of
# each rank (/usr/bin/time) summed over the ranks; then the run file's size and the time of
# `polka report` and `polka predict` (one agent) on it.
#
# CHECKPOINT=1 adds the checkpoint: the decentralized run again with a checkpoint after round
# 150 of 200 (run.checkpoint_every), resumed from it on P ranks; the checkpoint's size, the
# time polka took to write it (its "checkpoint:" line), the wall time and peak memory of both
# runs (in all, and rank 0's), and the resumed run file against the uninterrupted one
# (tests/python/compare_runs.py: every metric row but the timers and every final model, bit for bit).
# Every rank writes its own agents' part of the checkpoint (parallel HDF5); the polka of before
# (main 56390d8) gathered every state on rank 0 and built the file in memory: at 16 384 agents
# rank 0's peak was 6.6 GB for a 1.25 GB checkpoint (POLKA=that build's polka compares them;
# docs/results.md quotes both).
# CHECKPOINT=only does just that (the run with its checkpoint is then the uninterrupted one),
# without the centralized run and the reading times.
#
#   experiments/hundred_thousand.sh     Environment: N [100000], P [2], GRAPH [er, rgg,
#                                       smallworld], DEGREE [8; auto: 1.25 ln N], OUTPUT
#                                       [1: write run files; 0: none],
#                                       CHECKPOINT [0, 1, only], RESUME_P [P], SAMPLES
#                                       [200 per agent], BATCH [1], CUT [3/4 of SAMPLES:
#                                       CHECKPOINT=only],
#                                       OUT [out/hundred_thousand], POLKA
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
n=${N:-100000}
p=${P:-2}
samples=${SAMPLES:-200}        # per agent: the rounds
cut=${CUT:-$((samples * 3 / 4))} # CHECKPOINT=only: the round of the checkpoint
out=${OUT:-$outdir/hundred_thousand}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1

graph() { # the net.* settings
    local degree=${DEGREE:-8}
    case ${GRAPH:-er} in
    er)
        local prob
        if [ "$degree" = auto ]; then
            prob=$("$root/tools/er_p.sh" "$n")
        else
            prob=$(awk -v n="$n" -v d="$degree" 'BEGIN { printf "%.6g", d / (n - 1) }')
        fi
        echo "--set net.graph=er --set net.p=$prob --set net.join=1" ;;
    rgg)
        echo "--set net.graph=rgg --set net.join=1 --set net.radius=$(awk -v n="$n" -v d="$degree" \
            'BEGIN { printf "%.6g", sqrt(d / (3.141592653589793 * (n - 1))) }')" ;;
    smallworld) echo "--set net.graph=smallworld --set net.k=4" ;;
    *) echo "GRAPH: er, rgg or smallworld" >&2; exit 2 ;;
    esac
}

settings() {
    echo "--set net.agents=$n $(graph) --set data.n_train=$((samples * n))
          --set run.log_every=1000000000000 --set run.log_test=200 --set learner.batch=${BATCH:-1}"
}

output() { # NAME -> the run.output setting, or nothing with OUTPUT=0
    [ "${OUTPUT:-1}" = 0 ] || echo "--set run.output=$out/$1.h5"
}

# NAME RANKS polka-arguments...: the run under /usr/bin/time on each rank; its log in
# OUT/NAME.log, "wall_s peak_all_MiB peak_largest_MiB" in OUT/NAME.cost
measure() {
    local name=$1 ranks=$2 start end
    shift 2
    rm -f "$out/$name".time.* "$out/$name.h5"
    start=$(date +%s.%N)
    # shellcheck disable=SC2016 # $0, $@ are the rank's sh's
    mpirun --oversubscribe -n "$ranks" sh -c \
        '/usr/bin/time -f "%M" -o "$0.time.${OMPI_COMM_WORLD_RANK:-0}" "$@"' "$out/$name" \
        "$polka" "$@" >"$out/$name.log" 2>&1 || { cat "$out/$name.log" >&2; exit 1; }
    end=$(date +%s.%N)
    cat "$out/$name".time.* | awk -v a="$start" -v b="$end" '{ kb += $1; if ($1 > top) top = $1 }
        END { printf "%.1f %.0f %.0f\n", b - a, kb / 1024, top / 1024 }' >"$out/$name.cost"
    awk '{ printf "%.0f\n", $1 / 1024 }' "$out/$name.time.0" >"$out/$name.rank0"
}

ckpt_line() { # NAME -> "MB seconds" of the run's (last) checkpoint line
    awk '/^checkpoint: round/ { mb = $4; s = $7 } END { print mb, s }' "$out/$1.log"
}

field() { # NAME awk-program -> a value of the run's summary
    awk "$2" "$out/$1.log"
}

rate() { # NAME -> the loop's samples/s
    field "$1" '/samples\/s,/ { for (i = 1; i <= NF; i++) if ($i == "samples/s,") print $(i - 1) }'
}

learn_rate() { # NAME -> the loop's samples/s without its log steps (scoring the test set)
    field "$1" '/^summary: learning/ { print $3 }'
}

seconds() { # command... -> its wall seconds
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }'
}

reading() { # NAME: the run file's size and the time polka report and polka predict take
    [ "${OUTPUT:-1}" = 0 ] && return 0
    local file=$out/$1.h5 agent=$((n / 2))
    [ "$1" = central ] && agent=0
    "$polka" data multidist -o "$out/probe.svm" --set data.n_train=10 --set data.n_test=1000 >/dev/null
    printf '  run file %s: %s MB; polka report %s s, polka predict (agent %s, 1 000 points) %s s\n' \
        "$1.h5" "$(du -m "$file" | cut -f1)" "$(seconds "$polka" report "$file")" "$agent" \
        "$(seconds "$polka" predict --model "$file:$agent" --data "$out/probe.svm.t")"
}

checkpoint_only() { # CHECKPOINT=only: the run with its checkpoint, and the resume
    local ckpt=$out/run.ckpt rp=${RESUME_P:-$p}
    rm -f "$ckpt"
    # shellcheck disable=SC2046
    measure ckpt_cut "$p" run --progress=off $(settings) --set run.checkpoint="$ckpt" \
        --set run.checkpoint_every="$cut" --set run.output="$out/ckpt_cut.h5"
    # shellcheck disable=SC2046
    measure ckpt_resumed "$rp" run --progress=off --resume "$ckpt" \
        --set run.output="$out/ckpt_resumed.h5"
    read -r wall_cut cut_all _ <"$out/ckpt_cut.cost"
    read -r resumed res_all _ <"$out/ckpt_resumed.cost"
    read -r _ seconds <<<"$(ckpt_line ckpt_cut)"
    echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
    printf '\ncheckpoint after round %s of %s: %s bytes (%s bytes per agent), written in %s s\n' "$cut" "$samples" \
        "$(stat -c %s "$ckpt")" "$(($(stat -c %s "$ckpt") / n))" "$seconds"
    printf '  run with it (P = %s): %s s, peak %s MiB in all, rank 0 %s MiB\n' "$p" "$wall_cut" \
        "$cut_all" "$(cat "$out/ckpt_cut.rank0")"
    printf '  resumed on P = %s (rounds %s-%s): %s s (start-up %s s), peak %s MiB in all, rank 0 %s MiB\n' \
        "$rp" "$((cut + 1))" "$samples" "$resumed" "$(field ckpt_resumed '/start-up/ { print $3 }')" "$res_all" \
        "$(cat "$out/ckpt_resumed.rank0")"
    printf '  resumed against uninterrupted: %s\n' "$(/usr/bin/python3 "$root/tests/python/compare_runs.py" \
        "$out/ckpt_cut.h5" "$out/ckpt_resumed.h5" || true)"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "N = $n agents, P = $p ranks; $(settings | tr -s ' \n' ' '); polka $polka"
if [ "${CHECKPOINT:-0}" = only ]; then
    checkpoint_only
    exit 0
fi
# shellcheck disable=SC2046 # the settings split
measure decentralized "$p" run --quiet $(settings) $(output decentralized)
# shellcheck disable=SC2046
measure central 1 run --quiet --centralized $(settings) $(output central)
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
printf '\n%-14s %8s %9s %11s %12s %7s %12s %14s %7s\n' run wall_s start_s loop_smp/s \
    learn_smp/s log_s peak_all_MiB peak_largest_MiB error%
for name in decentralized central; do
    read -r wall all top <"$out/$name.cost"
    printf '%-14s %8s %9s %11s %12s %7s %12s %14s %7s\n' "$name" "$wall" \
        "$(field "$name" '/start-up/ { print $3 }')" "$(rate "$name")" "$(learn_rate "$name")" \
        "$(field "$name" '/^summary: learning/ { print $10 }')" "$all" "$top" \
        "$(field "$name" '/test error/ { print $4 }')"
done
awk -v a="$(rate decentralized)" -v b="$(rate central)" -v c="$(learn_rate decentralized)" \
    -v d="$(learn_rate central)" 'BEGIN { printf "decentralized over centralized: loop samples/s %.2f, learning samples/s (without the log steps) %s\n", a / b, (d > 0 ? sprintf("%.2f", c / d) : "n/a (a polka without the learning line)") }'
grep -h "placement\|across ranks" "$out/decentralized.log" | sed 's/^summary: /  /'
field decentralized '/placement .* edges cross ranks/ { for (i = 1; i <= NF; i++) if ($i == "edges")
    printf "  graph: %s edges, mean degree %.4f\n", $(i - 1), 2 * $(i - 1) / '"$n"' }'
reading decentralized
reading central

checkpoint() { # the checkpoint after round 150 of 200, the run resumed from it
    local ckpt=$out/run.ckpt
    rm -f "$ckpt"
    # shellcheck disable=SC2046
    measure ckpt_cut "$p" run --quiet $(settings) --set run.checkpoint="$ckpt" \
        --set run.checkpoint_every=150 --set run.output="$out/ckpt_cut.h5"
    # shellcheck disable=SC2046
    measure ckpt_resumed "$p" run --quiet --resume "$ckpt" --set run.output="$out/ckpt_resumed.h5"
    read -r plain _ _ <"$out/decentralized.cost"
    read -r cut cut_all cut_top <"$out/ckpt_cut.cost"
    read -r resumed res_all res_top <"$out/ckpt_resumed.cost"
    printf '\ncheckpoint after round 150 of 200: %s MB (%s bytes per agent)\n' \
        "$(du -m "$ckpt" | cut -f1)" "$(($(stat -c %s "$ckpt") / n))"
    printf '  run with it: %s s (without: %s s), peak %s MiB in all, %s MiB the largest rank\n' \
        "$cut" "$plain" "$cut_all" "$cut_top"
    printf '  resumed (rounds 151-200): %s s, peak %s MiB in all, %s MiB the largest rank\n' \
        "$resumed" "$res_all" "$res_top"
    printf '  resumed against uninterrupted: %s\n' "$(/usr/bin/python3 "$root/tests/python/compare_runs.py" \
        "$out/decentralized.h5" "$out/ckpt_resumed.h5" || true)"
}
[ "${CHECKPOINT:-0}" = 0 ] || [ "${OUTPUT:-1}" = 0 ] || checkpoint
