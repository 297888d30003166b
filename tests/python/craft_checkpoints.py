#!/usr/bin/env python3
"""craft_checkpoints.py GOOD DIR: checkpoints crafted from GOOD (a checkpoint of a KOMP run of
one agent, tests/checkpoint_crafted.cmake makes it) as a robustness audit crafted them, each
in DIR. Where the damage is behind the digest, the digest is written anew (ckpt_digest.py), so
that what refuses the file is the check behind it.

Agent 0's entries are values inside its packed state (agents/states); its own digest
(agents/digest) is written anew with the file's.

  order_huge.ckpt     model.order = 2^63 + 1 (polka_model_reserve looped forever)
  next_log.ckpt       root next_log = -1e300 (the loop's next log step never came)
  komp_pos.ckpt       komp.pos[5] = 10^12 (used as an index: a segfault)
  komp_ld.ckpt        KOMP's span 2^25 (an inverse that once took 1.7 PB)
  nan_weights.ckpt    a NaN model weight (was reported as the resumed run diverging)
  counter.ckpt        agent.value_age_count = -1
  type.ckpt           agent.time_compute stored as uint64
  history.ckpt        the first metric row of round 1e300
  declared_huge.ckpt  history/metrics declaring 2^27 doubles with no storage (a 1 GB
                      allocation from a file of a few hundred KB), digest not rewritten
  gzip.ckpt           agents/states stored gzip-compressed (same values, a filter)
  flipped.ckpt        one bit of agent 0's model.weights flipped, digests not rewritten
  span.ckpt           agent 0's length past the end of agents/states
  unpack.ckpt         agent 0's state says 2^40 entries (its digest rewritten)
  no_digest.ckpt      the digest attribute removed
  format_1.ckpt       format_version = 1 (an older polka's checkpoint)
  version.ckpt        polka_version = 0.0.1
"""
import os
import shutil
import struct
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ckpt_digest  # noqa: E402

good, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def craft(name, damage, digest=True):
    path = os.path.join(out, name)
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        damage(f)
        if digest:
            ckpt_digest.write(f)


def replace(f, name, values, **options):
    del f[name]
    f.create_dataset(name, data=values, **options)


def agent_block(f, agent=0):
    offset, length = ckpt_digest.agent_span(f, agent)
    return offset, bytearray(f[ckpt_digest.STATES][offset:offset + length].tobytes())


def put_block(f, offset, block, agent=0, digest=True):
    f[ckpt_digest.STATES][offset:offset + len(block)] = np.frombuffer(bytes(block), dtype="u1")
    if digest:
        f["agents/digest"][agent] = np.uint64(ckpt_digest.agent_digest(block))


def set_entry(entry, index, value, code=None):
    """Agent 0's entry[index] = value (and its type code), its digest written anew."""
    def damage(f):
        offset, block = agent_block(f)
        old_code, _, type_at, values_at = ckpt_digest.agent_entries(block)[entry]
        code_ = old_code if code is None else code
        data = np.array([value], dtype=ckpt_digest.ENTRY_TYPES[code_]).tobytes()
        block[type_at:type_at + 8] = struct.pack("<Q", code_)
        at = values_at + index * len(data)
        block[at:at + len(data)] = data
        put_block(f, offset, block)
    return damage


def set_value(name, index, value):
    def damage(f):
        f[name][index] = value
    return damage


def set_attr(name, value, dtype=None):
    def damage(f):
        f.attrs.create(name, value, dtype=dtype)
    return damage


def declared_huge(f):
    del f["history/metrics"]
    f.create_dataset("history/metrics", shape=(1 << 27,), dtype="<f8", chunks=(1 << 16,))


def flip(f):
    offset, block = agent_block(f)
    at = ckpt_digest.agent_entries(block)["model.weights"][3] + 3
    block[at] ^= 0x10
    put_block(f, offset, block, digest=False)


def unpack(f):
    offset, block = agent_block(f)
    block[0:8] = struct.pack("<Q", 1 << 40)
    put_block(f, offset, block)


def span(f):
    f["agents/length"][0] = np.uint64(f[ckpt_digest.STATES].size + 1)


craft("order_huge.ckpt", set_entry("model.order", 0, np.uint64(2**63 + 1)))
craft("next_log.ckpt", set_attr("next_log", -1e300, "<f8"))
craft("komp_pos.ckpt", set_entry("komp.pos", 5, np.uint64(10**12)))
craft("komp_ld.ckpt", set_entry("komp.sizes", 3, np.uint64(1 << 25)))
craft("nan_weights.ckpt", set_entry("model.weights", 3, np.nan))
craft("counter.ckpt", set_entry("agent.value_age_count", 0, -1.0))
craft("type.ckpt", set_entry("agent.time_compute", 0, np.uint64(1), code=1))
craft("history.ckpt", set_value("history/round", 0, 1e300))
craft("declared_huge.ckpt", declared_huge, digest=False)
craft("gzip.ckpt", lambda f: replace(f, ckpt_digest.STATES, f[ckpt_digest.STATES][()],
                                     chunks=True, compression="gzip"))
craft("flipped.ckpt", flip, digest=False)
craft("span.ckpt", span)
craft("unpack.ckpt", unpack)
craft("no_digest.ckpt", lambda f: f.attrs.__delitem__("digest"), digest=False)
craft("format_1.ckpt", set_attr("format_version", 1, "<u8"), digest=False)
craft("version.ckpt", set_attr("polka_version", np.bytes_("0.0.1")))
print(f"crafted {len(os.listdir(out))} checkpoints in {out}")
