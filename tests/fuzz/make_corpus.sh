#!/usr/bin/env bash
# Writes the seed corpus of the fuzz targets into tests/fuzz/corpus/<target>/ (small valid
# files; the committed corpus is this script's output). Usage: make_corpus.sh POLKA_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
polka=${1:?usage: make_corpus.sh PATH/TO/polka}
out=$here/corpus
rm -rf "$out"
mkdir -p "$out"/{graph,config,libsvm,csv,idx,runfile,checkpoint}

# checkpoint_corpus POLKA OUT WORK: checkpoints of short runs (KOMP on one agent, three NBSGD
# agents with the suffix average, centralized BSGD, late values), each after a flags byte
# (fuzz_checkpoint.c: bit 0 checks the digest; 0 skips it, so the fuzzer reaches the checks
# behind it); the KOMP one also with the digest checked.
checkpoint_corpus() {
    local polka=$1 out=$2 work=$3
    local small=(--set data.n_train=60 --set data.n_test=20 --set data.classes=2 --set data.dim=2
        --set run.log_every=20 --set learner.budget=8 --set run.checkpoint_every=10)
    seed() { # NAME SETTINGS...: NAME-00 (digest skipped)
        local name=$1
        shift
        "$polka" run --quiet "${small[@]}" "$@" --set run.checkpoint="$work/$name.ckpt" >/dev/null
        { printf '\x00'; cat "$work/$name.ckpt"; } >"$out/$name-00"
    }
    seed komp --set net.agents=1
    { printf '\x01'; cat "$work/komp.ckpt"; } >"$out/komp-01"
    seed nbsgd_suffix --set net.agents=3 --set learner.control=nbsgd-remove --set learner.suffix=0.5
    seed central --set run.mode=centralized --set net.agents=2 --set learner.control=bsgd-merge
    seed delay --set net.agents=3 --set fault.delay=2 --set fault.link_loss=0.2
}

cp "$root"/graphs/{line_4,ring_8,complete_4,grid_4x4}.txt "$root"/tests/data/disconnected_4.txt \
   "$out/graph/"
printf '# weighted, networkx style\n0 1\n1 2 0.5\n2 3 {'"'"'weight'"'"': 0.25}\n3 4 {}\n4 5 {'"'"'color'"'"': '"'"'red'"'"'}\n' \
    >"$out/graph/networkx.txt"

cp "$root"/tests/data/indented_keys.ini "$out/config/"
cp "$root"/experiments/configs/multidist_hinge.ini "$out/config/"
printf '[run]\nseed = 3\n[learner]\nkernel = polynomial\ndegree = 3\n\0learner.eta=0.5\nnet.graph=ring\ndata.scale=unit\n' \
    >"$out/config/file_and_set.ini"

cp "$root"/tests/data/two_dim.svm "$root"/tests/data/comments_only.svm "$out/libsvm/"
printf '+1 1:0.5 3:-2e3 # comment\n-1 2:1.25\n\n3 1:1 2:2 3:3\n' >"$out/libsvm/mixed.svm"

cp "$root"/tests/data/x1_x2.csv "$out/csv/"
printf '"a", label ,"b"\n1.5,0,2\n-3,1,4e2\n\n7,0,8\n' >"$out/csv/quoted.csv"

# idx: flags byte (bit 0 gzip images, bit 1 gzip labels), labels length (2 bytes, little
# endian), the labels file, the images file (see fuzz_idx.c)
python3 - "$out/idx" <<'PY'
import struct, sys
out = sys.argv[1]
def pair(name, flags, n, dims):
    labels = struct.pack('>I', 0x801) + struct.pack('>I', n) + bytes(k % 3 for k in range(n))
    p = 1
    for d in dims: p *= d
    images = struct.pack('>I', 0x800 + 1 + len(dims)) + struct.pack('>I', n)
    images += b''.join(struct.pack('>I', d) for d in dims)
    images += bytes((7 * k) % 256 for k in range(n * p))
    with open(f'{out}/{name}', 'wb') as f:
        f.write(bytes([flags]) + struct.pack('<H', len(labels)) + labels + images)
pair('images_3x2x2', 0, 3, [2, 2])
pair('vectors_4x5_gz', 3, 4, [5])
pair('one_gz_images', 1, 2, [3, 1, 2])
PY

# a run file of a short run, with its models (both layouts)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$polka" run --set run.mode=centralized --set data.n_train=60 --set data.n_test=20 \
    --set data.classes=2 --set data.dim=2 --set run.log_every=20 --set learner.budget=8 \
    --set run.output="$work/run.h5" >/dev/null
cp "$work/run.h5" "$out/runfile/centralized.h5"
# the same models in the older layout (a group per agent: polka before the concatenated /models)
cp "$work/run.h5" "$out/runfile/centralized_groups.h5"
/usr/bin/python3 - "$out/runfile/centralized_groups.h5" "$root/tests" <<'PY'
import sys
import h5py
sys.path.insert(0, sys.argv[2])
import run_models  # noqa: E402
with h5py.File(sys.argv[1], "r+") as f:
    run_models.to_agent_groups(f)
PY

checkpoint_corpus "$polka" "$out/checkpoint" "$work"
du -sh "$out"/*
