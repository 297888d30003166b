#!/usr/bin/env bash
# Memory per agent: the bytes an agent holds by part, and the peak resident memory
# of N agents on P ranks, for the build before the per-agent memory work and this one, side
# by side, and the final models of the two compared bit for bit (tests/python/compare_runs.py).
# The run is experiments/many_agents.sh's (multidist, 200 samples per agent, ER graph of mean
# degree 1.25 ln N, batch 1, KOMP).
#
# Per build: one run as many_agents.sh runs it (no run file) under /usr/bin/time on each rank:
# its peak RSS and CPU seconds; and one under tools/alloc_sites.c (LD_PRELOAD) that
# writes the run file: the bytes at the heap's peak by allocation stack, which
# tools/alloc_parts.py sorts into parts and divides by N. Those are the bytes asked of
# malloc (an array allocated but never written counts in full, though not in the RSS), and
# of polka's own mappings (pages.c) the pages resident.
#
#   experiments/agent_memory.sh      Environment: N [16384], P [2], BEFORE (a polka binary;
#                                    default: build BEFORE_REF into OUT/before), BEFORE_REF
#                                    [main; once this work is in main, a commit before it,
#                                    e.g. 8849063], AFTER
#                                    [build/polka], OUT [out/agent_memory]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${N:-16384}
p=${P:-2}
out=${OUT:-$root/out/agent_memory}
after=$(realpath "${AFTER:-$root/build/polka}")
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1

build_before() { # -> the before build's polka on stdout
    local ref=${BEFORE_REF:-main} src=$out/before/src
    if [ ! -x "$out/before/build/polka" ] ||
        [ "$(cat "$out/before/ref" 2>/dev/null)" != "$(git -C "$root" rev-parse "$ref")" ]; then
        rm -rf "$src" && mkdir -p "$src"
        git -C "$root" archive "$ref" | tar -x -C "$src"
        SOURCE_DIR=$src BUILD_DIR=$out/before/build "$root/tools/build.sh" >/dev/null
        git -C "$root" rev-parse "$ref" >"$out/before/ref"
    fi
    echo "$out/before/build/polka"
}

settings() {
    echo "--set net.agents=$n --set net.graph=er --set net.p=$("$root/tools/er_p.sh" "$n")
          --set data.n_train=$((200 * n)) --set run.log_every=1000000000000 --set run.log_test=200"
}

measure() { # NAME POLKA: peak RSS and CPU of each rank into OUT/NAME.time.RANK
    local name=$1 polka=$2
    rm -f "$out/$name".time.*
    # shellcheck disable=SC2046,SC2016 # the settings split; $0, $@ are the rank's sh's
    mpirun --oversubscribe -n "$p" sh -c '/usr/bin/time -f "%M %U %S" -o "$0.time.$OMPI_COMM_WORLD_RANK" "$@"' \
        "$out/$name" "$polka" run --quiet $(settings) >"$out/$name.log" 2>&1 ||
        { cat "$out/$name.log" >&2; exit 1; }
}

parts() { # NAME POLKA: bytes per agent by part into OUT/NAME.parts, the run file OUT/NAME.h5
    local name=$1 polka=$2
    rm -f "$out/$name".sites.* "$out/$name.h5"
    # shellcheck disable=SC2046
    mpirun --oversubscribe -n "$p" -x LD_PRELOAD="$out/alloc_sites.so" \
        -x ALLOC_SITES_PROGRAM="$(basename "$polka")" \
        -x ALLOC_SITES_OUT="$out/$name.sites" "$polka" run --quiet $(settings) \
        --set run.output="$out/$name.h5" >"$out/$name.parts.log" 2>&1 ||
        { cat "$out/$name.parts.log" >&2; exit 1; }
    /usr/bin/python3 "$root/tools/alloc_parts.py" "$n" "$out/$name".sites.* >"$out/$name.parts"
}

rss() { # NAME -> "largest_MB all_MB cpu_s" over the ranks
    cat "$out/$1".time.* | awk '{ kb += $1; if ($1 > top) top = $1; cpu += $2 + $3 }
        END { printf "%.0f %.0f %.1f", top / 1024, kb / 1024, cpu }'
}

before=$(realpath "${BEFORE:-$(build_before)}")
cc -O2 -shared -fPIC -o "$out/alloc_sites.so" "$root/tools/alloc_sites.c" -ldl -pthread
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "N = $n agents on P = $p ranks; before: $before; after: $after"
for side in before after; do
    polka=$before
    [ "$side" = after ] && polka=$after
    measure "$side" "$polka"
    parts "$side" "$polka"
done
echo
printf "%-44s %12s %12s\n" "bytes per agent at the heap's peak, by part" before after
paste "$out/before.parts" "$out/after.parts" |
    awk -F'\t' '{ printf "%-44s %12s %12s\n", $1, $2, $4 }'

echo
printf "%-44s %12s %12s\n" "" before after
read -r b_top b_all b_cpu <<<"$(rss before)"
read -r a_top a_all a_cpu <<<"$(rss after)"
printf "%-44s %12s %12s\n" "peak RSS of the largest rank, MiB" "$b_top" "$a_top" \
    "peak RSS of all ranks, MiB" "$b_all" "$a_all" "CPU seconds, all ranks" "$b_cpu" "$a_cpu"
grep -h "test error" "$out/before.log" "$out/after.log" | sed 's/^summary: /  /'
echo "final models (run files of the by-part runs):"
/usr/bin/python3 "$root/tests/python/compare_runs.py" --new-keys "$out/before.h5" "$out/after.h5"
