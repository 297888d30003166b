#!/usr/bin/env bash
# async_run_test.sh POLKA WORK COMPARE: the event engine through the built binary, read back
# with h5py.
# - With equal speeds and messages faster than an update (round trip below async.compute), it
#   reduces to the lockstep rounds: the same final models, for every method.
# - With stragglers, log-normal speeds, latency jitter, bandwidth, link loss and offline agents,
#   1 rank and 3 ranks (both placements) write the same run file (every metric row but the
#   timers and the disagreement's last bits, every model); with fault.renormalise too, which
#   changes the models; with net.gossip, which sends far fewer bytes (and reduces to lockstep's
#   gossip for the one-phase methods).
# - A checkpoint within the run (run.checkpoint_every = 3 rows: every agent within an update,
#   messages in flight) resumed on 3 ranks, other placement, ends as the uninterrupted run
#   (penalty with link loss, dkla with bounded staleness).
# - The rows are at virtual times (clock), a slow agent makes fewer updates, ages are > 0.
set -euo pipefail
polka=$1 work=$2 compare=$3
rm -rf "$work"
mkdir -p "$work"
common=(--set net.agents=12 --set net.graph=er --set net.p=0.4 --set data.n_train=1200
        --set data.n_test=200 --set run.log_every=300 --set learner.eta=0.2)
run() { # ranks name settings...
    local ranks=$1 name=$2
    shift 2
    mpirun --oversubscribe -n "$ranks" "$polka" run --quiet "${common[@]}" "$@" \
        --set run.output="$work/$name.h5"
}
equal=(--set async.compute=2 --set async.latency=0.3)
for method in penalty rf-diffusion dkla coke; do
    m=(--set net.method=$method --set net.features=32)
    run 2 "lock_$method" "${m[@]}" "${equal[@]}"
    run 2 "events_$method" "${m[@]}" "${equal[@]}" --set async.engine=events
    /usr/bin/python3 "$compare" --models "$work/lock_$method.h5" "$work/events_$method.h5"
done
# net.gossip: update k sends to the neighbour lockstep's round k draws; the one-phase methods
# then reduce to lockstep (the penalty method does not: the event engine's late values,
# async.max_age, fill in for the neighbours not asked)
for method in rf-diffusion dkla; do
    m=(--set net.method=$method --set net.features=32 --set net.gossip=1)
    run 2 "lock_gossip_$method" "${m[@]}" "${equal[@]}"
    run 2 "events_gossip_$method" "${m[@]}" "${equal[@]}" --set async.engine=events
    /usr/bin/python3 "$compare" --models "$work/lock_gossip_$method.h5" \
        "$work/events_gossip_$method.h5"
done
laws=(--set async.engine=events --set async.slow=0 --set async.slow_fraction=0.2
      --set async.compute_sigma=0.5 --set async.compute_jitter=0.2 --set async.latency_jitter=0.2
      --set async.bandwidth=2000 --set fault.link_loss=0.1 --set fault.offline=0.05)
run 1 laws_1 "${laws[@]}"
run 3 laws_3 "${laws[@]}"
run 3 laws_3p "${laws[@]}" --set net.placement=partition
/usr/bin/python3 "$compare" --except disagreement "$work/laws_1.h5" "$work/laws_3.h5"
/usr/bin/python3 "$compare" --except disagreement "$work/laws_1.h5" "$work/laws_3p.h5"
# fault.renormalise: the neighbours whose values enter an update carry the whole row sum
run 1 renorm_1 "${laws[@]}" --set fault.renormalise=1
run 3 renorm_3p "${laws[@]}" --set fault.renormalise=1 --set net.placement=partition
/usr/bin/python3 "$compare" --except disagreement "$work/renorm_1.h5" "$work/renorm_3p.h5"
run 1 gossip_1 "${laws[@]}" --set net.gossip=1
run 3 gossip_3p "${laws[@]}" --set net.gossip=1 --set net.placement=partition
/usr/bin/python3 "$compare" --except disagreement "$work/gossip_1.h5" "$work/gossip_3p.h5"
# (dkla at equal speeds: the event engine refuses the ADMM methods at unequal ones)
for method in penalty dkla; do
    m=(--set net.method=$method --set net.features=32 --set async.latency=0.05)
    speeds=("${laws[@]:0:10}")
    [ $method = dkla ] && m+=(--set async.staleness=3) || m+=(--set fault.link_loss=0.2)
    [ $method = dkla ] && speeds=(--set async.engine=events --set async.bandwidth=2000)
    run 2 "ck_full_$method" "${speeds[@]}" "${m[@]}"
    run 2 "ck_part_$method" "${speeds[@]}" "${m[@]}" --set run.checkpoint_every=3
    run 3 "ck_resumed_$method" "${speeds[@]}" "${m[@]}" --set net.placement=partition \
        --resume "$work/ck_part_$method.h5.ckpt"
    /usr/bin/python3 "$compare" --except disagreement "$work/ck_full_$method.h5" \
        "$work/ck_resumed_$method.h5"
done
/usr/bin/python3 - "$work" <<'PY'
import sys
import h5py
import numpy as np

work = sys.argv[1]


def fail(message):
    print(f"async_run_test: {message}")
    sys.exit(1)


with h5py.File(f"{work}/laws_1.h5", "r") as f:
    m = f["metrics"]
    clock = m["clock"][:, 0]
    if not np.all(np.diff(clock) > 0) or not np.all(m["clock"][()] == clock[:, None]):
        fail(f"the rows' clock is not one increasing virtual time: {clock}")
    horizon = 1200 / 12  # rounds of the lockstep run times async.compute (1)
    if clock[-1] != horizon:
        fail(f"the last row is at {clock[-1]}, not the horizon {horizon}")
    updates = m["updates"][-1]
    if not updates[0] < 0.2 * np.median(updates):
        fail(f"agent 0 (async.slow, 10x slower) made {updates[0]} updates, median {np.median(updates)}")
    if not np.all(m["info_age"][-1] > 0.3):  # at least a latency old
        fail(f"information ages {m['info_age'][-1]} below the latency")
    if f["config"].attrs["async.engine"] != b"events" and f["config"].attrs["async.engine"] != "events":
        fail("/config does not record async.engine")
with h5py.File(f"{work}/laws_1.h5", "r") as plain, h5py.File(f"{work}/renorm_1.h5", "r") as renorm:
    if np.array_equal(plain["models"]["weights"][()], renorm["models"]["weights"][()]):
        fail("fault.renormalise = 1 left the models of the lossy event run unchanged")
with h5py.File(f"{work}/laws_1.h5", "r") as plain, h5py.File(f"{work}/gossip_1.h5", "r") as gossip:
    every, one = plain["metrics"]["bytes_sent"][-1], gossip["metrics"]["bytes_sent"][-1]
    if not one.sum() < 0.6 * every.sum():  # one neighbour an update of about 4.4
        fail(f"net.gossip = 1 sent {one.sum()} bytes, all neighbours {every.sum()}")
with h5py.File(f"{work}/lock_penalty.h5", "r") as f:
    clock = f["metrics"]["clock"][:, 0]
    rounds = f["metrics"]["round"][()]
    # a lockstep round: the update (2), then the points out and the values back (0.3 each):
    # fl(2 + fl(0.3 + 0.3)) within γ_3 of 2.6, R of them summed (γ_{R−1}), R·2.6 here (γ_2)
    u = np.finfo(float).eps / 2
    gamma = (rounds + 4) * u / (1 - (rounds + 4) * u)  # γ_{R+4} [Higham02, §3.1]
    if not np.all(np.abs(clock - rounds * 2.6) <= gamma * rounds * 2.6):
        fail(f"lockstep clock {clock} is not 2.6 per round {rounds}")
print("async_run_test: lockstep reduction, 1 = 3 ranks (+ renormalise, gossip), clock, ages: ok")
PY
