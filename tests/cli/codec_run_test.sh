#!/usr/bin/env bash
# codec_run_test.sh POLKA WORK: the codecs through the built binary on 2 ranks, read back with
# h5py: /config records them; bytes_sent counts the encoded bytes (float16: a quarter of
# float64's; int8: d + 1 bytes a point and C + 1 a value message; top-k: the kept entries
# 2-byte indices (a vector of at most 65 536) or a bitmap of its entries, whichever is smaller,
# and 4 bytes a value (2 with net.codec_kept = float16, 1 and an exponent byte a message with
# int8); random-k: no index, 12 bytes a message for the agent and round);
# float64 and 1-rank runs give the same models as 2 ranks; the codecs change the models; the
# privacy counts (samples_out, receivers) and `polka report`'s columns of them.
set -euo pipefail
polka=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
common=(--set net.agents=8 --set net.graph=er --set net.p=0.5 --set data.n_train=800
        --set data.n_test=200 --set run.log_every=400 --set learner.eta=0.2)
run() { # ranks name settings...
    local ranks=$1 name=$2
    shift 2
    mpirun --oversubscribe -n "$ranks" "$polka" run --quiet "${common[@]}" "$@" \
        --set run.output="$work/$name.h5"
}
run 2 f64
run 2 f16 --set net.codec_points=float16 --set net.codec_values=float16
run 2 int8 --set net.codec_points=int8 --set net.codec_values=int8
run 1 int8_np1 --set net.codec_points=int8 --set net.codec_values=int8
u8=(--set net.codec_points=uint8 --set net.codec_values=int8)
# not --quiet: the summary says how many coordinates were clamped
mpirun --oversubscribe -n 2 "$polka" run "${common[@]}" "${u8[@]}" --set net.codec_low=-1 \
    --set net.codec_high=1 --set run.output="$work/u8.h5" >"$work/u8.out"
run 1 u8_np1 "${u8[@]}" --set net.codec_low=-1 --set net.codec_high=1
run 2 u8_wide "${u8[@]}" --set net.codec_low=-50 --set net.codec_high=50
grep -q "coordinates of the points sent lay outside net.codec_points = uint8's range \[-1, 1\]" \
    "$work/u8.out" || { echo "uint8: the summary does not say points were clamped"; exit 1; }
rf=(--set net.method=dkla --set net.features=32)
run 2 rf64 "${rf[@]}"
run 2 topk "${rf[@]}" --set net.codec_vectors=top-k --set net.codec_k=0.25
run 2 topk16 "${rf[@]}" --set net.codec_vectors=top-k --set net.codec_k=0.25 \
    --set net.codec_kept=float16
run 2 topk8 "${rf[@]}" --set net.codec_vectors=top-k --set net.codec_k=0.25 \
    --set net.codec_kept=int8
run 1 topk8_np1 "${rf[@]}" --set net.codec_vectors=top-k --set net.codec_k=0.25 \
    --set net.codec_kept=int8
run 2 randk "${rf[@]}" --set net.codec_vectors=random-k --set net.codec_k=0.25
run 1 randk_np1 "${rf[@]}" --set net.codec_vectors=random-k --set net.codec_k=0.25
"$polka" report "$work/f64.h5" "$work/topk.h5" > "$work/report.txt"
grep -q "samples_out *receivers" "$work/report.txt" || { echo "report: no privacy columns"; exit 1; }
/usr/bin/python3 - "$work" "$(cd "$(dirname "$0")/../python" && pwd)" <<'PY'
import sys
import h5py
import numpy as np
sys.path.insert(0, sys.argv[2])  # tests/python: run_models
import run_models  # noqa: E402

work = sys.argv[1]


def fail(message):
    print(f"codec_run_test: {message}")
    sys.exit(1)


def load(name):
    with h5py.File(f"{work}/{name}.h5", "r") as f:
        config = dict(f["config"].attrs)
        sent = f["metrics/bytes_sent"][-1].sum()
        kind = f["models"].attrs.get("kind", b"")
        if (kind.decode() if isinstance(kind, bytes) else kind) == "random-features":
            weights = []
        else:
            weights = [w for _, (_, w, _) in sorted(run_models.kernel_models(f).items())]
    return config, sent, weights


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


c64, b64, w64 = load("f64")
c16, b16, w16 = load("f16")
c8, b8, w8 = load("int8")
_, b8_1, w8_1 = load("int8_np1")
if text(c16["net.codec_points"]) != "float16" or text(c8["net.codec_values"]) != "int8":
    fail(f"/config does not record the codecs: {c16['net.codec_points']}, {c8['net.codec_values']}")
if text(c64["net.codec_points"]) != "float64":
    fail("/config does not record the default float64")
if b16 * 4 != b64:
    fail(f"float16 sent {b16} bytes, float64 {b64}: not a quarter")
d, classes = int(c64["data.dim"]), int(c64["data.classes"])
messages = b64 / (8 * (d + classes))  # no faults: each point message is answered once
if b8 != messages * (d + 1 + classes + 1):
    fail(f"int8 sent {b8} bytes, not {messages:.0f} x (d + 1 + C + 1)")
if b8_1 != b8 or len(w8) != len(w8_1) or any(a.tobytes() != b.tobytes() for a, b in zip(w8, w8_1)):
    fail("int8 on 1 rank differs from 2 ranks")
if len(w8) == 0 or all(a.shape == b.shape and a.tobytes() == b.tobytes() for a, b in zip(w8, w64)):
    fail("int8's models equal float64's: the codec did nothing")
# uint8 points: d bytes a point (no exponent byte: the range is the run's), int8 values
_, bu8, wu8 = load("u8")
_, bu8_1, wu8_1 = load("u8_np1")
_, bu8w, wu8w = load("u8_wide")
if bu8 != messages * (d + classes + 1) or bu8w != bu8:
    fail(f"uint8 points sent {bu8} / {bu8w} bytes, not {messages:.0f} x (d + C + 1)")
if bu8_1 != bu8 or len(wu8) == 0 or len(wu8) != len(wu8_1) or \
        any(a.tobytes() != b.tobytes() for a, b in zip(wu8, wu8_1)):
    fail("uint8 points on 1 rank differ from 2 ranks")
if all(a.shape == b.shape and a.tobytes() == b.tobytes() for a, b in zip(wu8, wu8w)):
    fail("uint8's range [-1, 1] gives the models of [-50, 50]: the range did nothing")


def clamped(name):
    with h5py.File(f"{work}/{name}.h5", "r") as f:
        return f["metrics/points_clamped"][-1], f["metrics/round"][-1]


narrow, rounds_u8 = clamped("u8")
narrow_1, _ = clamped("u8_np1")
wide, _ = clamped("u8_wide")
# multidist's points (means on the unit circle, spread 1) often leave [-1, 1], never [-50, 50];
# each agent sends d coordinates a round at most
if not (narrow > 0).all() or (narrow > rounds_u8 * d).any() or wide.any():
    fail(f"points_clamped {narrow} in [-1, 1] / {wide} in [-50, 50]: not > 0 (at most "
         f"{rounds_u8 * d:.0f}) / 0")
if (narrow != narrow_1).any():
    fail(f"points_clamped on 1 rank {narrow_1} differs from 2 ranks {narrow}")
cr, br, _ = load("rf64")
ct, bt, _ = load("topk")
length = 32 * classes
kept = int(np.ceil(0.25 * length))
where = min(2 * kept, (length + 7) // 8)  # k indices, or a bitmap when smaller
if bt * 8 * length != br * (where + 4 * kept):
    fail(f"top-k 0.25 sent {bt} bytes, float64 {br}: not {where} bytes of indices or bitmap "
         "and 4 a kept entry")
c16k, b16k, _ = load("topk16")
c8k, b8k, _ = load("topk8")
if text(c16k["net.codec_kept"]) != "float16" or text(ct["net.codec_kept"]) != "float32":
    fail(f"/config does not record net.codec_kept: {c16k['net.codec_kept']}, {ct['net.codec_kept']}")
if b16k * (where + 4 * kept) != bt * (where + 2 * kept):
    fail(f"top-k with float16 values sent {b16k} bytes, with float32 {bt}: not 2 a value "
         "against 4")
if b8k * (where + 4 * kept) != bt * (where + kept + 1):
    fail(f"top-k with int8 values sent {b8k} bytes, with float32 {bt}: not 1 a kept entry "
         "and 1 a message against 4")


def final_weights(name):
    with h5py.File(f"{work}/{name}.h5", "r") as f:
        return {k: f["models"][k][...] for k in f["models"] if "theta" in k or "weights" in k}


_, brk, _ = load("randk")
if brk * 8 * length != br * (12 + 4 * kept):
    fail(f"random-k 0.25 sent {brk} bytes, float64 {br}: not 12 (agent, round) + 4 per entry")
mr, mr_1 = final_weights("randk"), final_weights("randk_np1")
if not mr or any(mr[k].tobytes() != mr_1[k].tobytes() for k in mr):
    fail("random-k on 1 rank differs from 2 ranks (the receivers draw other indices)")
m8, m8_1, m32 = final_weights("topk8"), final_weights("topk8_np1"), final_weights("topk")
if not m8 or m8.keys() != m8_1.keys() or any(m8[k].tobytes() != m8_1[k].tobytes() for k in m8):
    fail("top-k with int8 values on 1 rank differs from 2 ranks")
if all(m8[k].tobytes() == m32[k].tobytes() for k in m8):
    fail("top-k's int8 values give float32's models: the kept codec did nothing")
# privacy: without faults every agent sent each round's point to every neighbour, and a
# random-feature agent sent no sample
with h5py.File(f"{work}/f64.h5", "r") as f:
    out, receivers = f["metrics/samples_out"][-1], f["metrics/receivers"][-1]
    rounds = f["metrics/round"][-1]
    degree = np.zeros(len(out))
    for u, v in f["config/graph/edges"][...]:
        degree[u] += 1
        degree[v] += 1
if not (out == rounds * degree).all() or not (receivers == degree).all():
    fail(f"samples_out {out} / receivers {receivers}: not rounds x degree / degree {degree}")
with h5py.File(f"{work}/topk.h5", "r") as f:
    if f["metrics/samples_out"][-1].any() or f["metrics/receivers"][-1].any():
        fail("a random-feature agent counts samples sent")
print(f"codec_run_test: ok (bytes float64 {b64:.0f}, float16 {b16:.0f}, int8 {b8:.0f}; "
      f"dkla {br:.0f}, top-k 0.25 {bt:.0f}, float16 values {b16k:.0f}, int8 values {b8k:.0f}, "
      f"random-k 0.25 {brk:.0f})")
PY
