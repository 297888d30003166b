#!/usr/bin/env python3
"""ckpt_digest.py FILE [--write]: the digest of a polka checkpoint as polka computes it
(src/sim/checkpoint/checkpoint_digest.c), printed beside the one the file holds; --write
stores it (tests/python/craft_checkpoints.py uses this to make crafted checkpoints that pass the
digest, so that the checks behind it are what refuses them).

The digest: 64-bit FNV-1a over every root attribute but "digest" (strcmp order of names),
then every dataset (strcmp order of the paths H5Ovisit names), each as its name, a NUL byte,
a type code (datasets 0 float64, 1 uint64, 2 uint8; attributes 3 fixed string, 4 uint64,
5 float64, 6 int64), its element count as 8 little-endian bytes and its bytes as stored; but
agents/states adds no bytes: each agent's packed state has its own FNV-1a in agents/digest
(agent_digest below), which polka checks when it reads the agent.

An agent's state (agents/states[offset : offset + length], agents/offset and agents/length by
agent id) is packed as [u64 entries] then per entry [u64 name length][name][u64 type 0 float64,
1 uint64, 2 uint8][u64 count][values], little endian: agent_entries lists them."""
import struct
import sys

import h5py
import numpy as np

FNV_OFFSET, FNV_PRIME, MASK = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1
DATASET_CODES = {"<f8": 0, "<u8": 1, "|u1": 2}
ATTRIBUTE_CODES = {"<u8": 4, "<f8": 5, "<i8": 6}


def fnv1a(h, data):
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & MASK
    return h


def item(h, name, code, count, data):
    h = fnv1a(h, name.encode() + b"\0" + bytes([code]) + struct.pack("<Q", count))
    return fnv1a(h, data)


def attribute_bytes(f, name):
    """(code, raw bytes) of a root attribute, read with its own stored type."""
    aid = h5py.h5a.open(f.id, name.encode())
    dtype = aid.dtype
    buf = np.zeros(aid.shape, dtype=dtype)
    aid.read(buf, mtype=aid.get_type())
    code = 3 if dtype.kind == "S" else ATTRIBUTE_CODES[dtype.str]
    return code, buf.tobytes()


STATES = "agents/states"
ENTRY_TYPES = {0: "<f8", 1: "<u8", 2: "|u1"}


def agent_span(f, agent):
    """(offset, length) of agent's packed state in agents/states."""
    return int(f["agents/offset"][agent]), int(f["agents/length"][agent])


def agent_entries(block):
    """{name: (type code, count, offset of its type word, offset of its values)} of a packed
    state (bytes)."""
    (n,), at, entries = struct.unpack_from("<Q", block), 8, {}
    for _ in range(n):
        (length,) = struct.unpack_from("<Q", block, at)
        name = bytes(block[at + 8:at + 8 + length]).decode()
        at += 8 + length
        code, count = struct.unpack_from("<QQ", block, at)
        entries[name] = (code, count, at, at + 16)
        at += 16 + count * (1 if code == 2 else 8)
    return entries


def agent_digest(block):
    return fnv1a(FNV_OFFSET, bytes(block))


def digest(f):
    h = FNV_OFFSET
    for name in sorted((n for n in f.attrs if n != "digest"), key=lambda n: n.encode()):
        code, data = attribute_bytes(f, name)
        h = item(h, name, code, 1, data)
    paths = []
    f.visititems(lambda name, obj: paths.append(name) if isinstance(obj, h5py.Dataset) else None)
    for path in sorted(paths, key=lambda n: n.encode()):
        if path == STATES:
            dataset = f[path]
            h = item(h, path, DATASET_CODES[dataset.dtype.str], dataset.size, b"")
            continue
        values = f[path][()]
        h = item(h, path, DATASET_CODES[values.dtype.str], values.size, values.tobytes())
    return h


def write(f):
    f.attrs.create("digest", digest(f), dtype="<u8")


if __name__ == "__main__":
    with h5py.File(sys.argv[1], "r+" if "--write" in sys.argv else "r") as f:
        if "--write" in sys.argv:
            write(f)
        print(f"computed {digest(f)}, stored {f.attrs.get('digest')}")
