#!/usr/bin/env bash
# suite_time.sh BEFORE AFTER: the test suite's wall time at two revisions, side by side, each
# from a fresh clone (so with no ctest cost data and no build): the full suite
# (tests/run_all.sh, what CI runs) and the quick tier (tests/quick.sh; at a revision without
# it, the same tests by name, as that revision's run_all.sh ran them: ctest -j2). Deps must be
# installed already (run_all.sh installs them), so apt-get is not timed. WORK (default a
# temporary directory) keeps the clones and each run's log. Prints one table.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BEFORE AFTER" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_pml=ob1

clone() { # clone REV DIR
    rm -rf "$2"
    git clone -q "$root" "$2"
    git -C "$2" checkout -q "$1"
}

seconds() { # seconds LOG COMMAND...: the command's wall time; its output goes to LOG.log
    local log=$1 start status=0
    shift
    start=$(date +%s.%N)
    "$@" >"$log.log" 2>&1 || status=$?
    echo "$(date +%s.%N) - $start" | bc | xargs printf '%.0f'
    [ $status -eq 0 ] || echo " (FAILED $status, see $log.log)"
}

# quick_names DIR: the regex of the quick tier's test names, from AFTER's build
quick_regex() { (cd "$1/build-test" && ctest -N -L quick) | sed -n 's/^ *Test *#[0-9]*: //p' |
    paste -sd'|' | sed 's/^/^(/; s/$/)$/'; }

declare -A full quick
for rev in "$2" "$1"; do # AFTER first: its quick tier names the tests
    dir=$work/$rev
    clone "$rev" "$dir"
    full[$rev]=$(seconds "$work/$rev-full" bash "$dir/tests/run_all.sh")
    # the quick tier from a fresh build directory
    rm -rf "$dir/build-test"
    if [ -f "$dir/tests/quick.sh" ]; then
        quick[$rev]=$(seconds "$work/$rev-quick" bash "$dir/tests/quick.sh")
        regex=$(quick_regex "$dir")
    else
        quick[$rev]=$(seconds "$work/$rev-quick" bash -c "BUILD_DIR=$dir/build-test \
            SOURCE_DIR=$dir $root/tools/build.sh -DPOLKA_WERROR=ON -DPOLKA_TESTS=ON &&
            cd $dir/build-test && ctest -j2 -R '$regex'")
    fi
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-12s %14s %16s\n' revision "full suite (s)" "quick tier (s)"
for rev in "$1" "$2"; do printf '%-12s %14s %16s\n' "$rev" "${full[$rev]}" "${quick[$rev]}"; done
echo "logs in $work"
