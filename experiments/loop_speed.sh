#!/usr/bin/env bash
# The loop's speed: experiments/hundred_thousand.sh's runs (N agents on P ranks
# beside centralized POLK on the same stream, no run files) for two polka builds, side by
# side: loop and learning samples/s (learning: without the log steps), their ratio to
# centralized POLK's, and the test error. BEFORE is a polka built from an earlier commit,
# e.g. git worktree add /tmp/before 72fc8f7 && SOURCE_DIR=/tmp/before
# BUILD_DIR=/tmp/before/build tools/build.sh (72fc8f7: glibc's exp per kernel entry, KOMP's
# stage clocks on every call, messages gathered kind by kind); AFTER defaults to the source
# tree's build.
#
#   BEFORE=/tmp/before/build/polka experiments/loop_speed.sh
#                                   Environment: BEFORE (required), AFTER, N [16384], P [2],
#                                   GRAPH [er], OUT [out/loop_speed]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/locate.sh"
: "${BEFORE:?set BEFORE to the polka binary to compare with}"
after=${AFTER:-$polka}
out=${OUT:-$outdir/loop_speed}
export N=${N:-16384} P=${P:-2} OUTPUT=0
for side in before after; do
    binary=$BEFORE
    [ "$side" = after ] && binary=$after
    echo "== $side: $binary"
    POLKA=$binary OUT=$out/$side "$root/experiments/hundred_thousand.sh" | sed -n '/^run /,/^decentralized over/p'
done
