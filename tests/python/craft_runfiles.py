#!/usr/bin/env python3
"""craft_runfiles.py DIR: run files damaged as an audit (mutation fuzzer) found them, each
built from scratch with h5py (and, where h5py cannot express the damage, a few bytes patched
where HDF5 keeps them), plus data.svm, a two-feature regression set to predict on.

  agents_overflow.h5  /metrics agents = 2^61 and a 1-D test_score: (agents + 1) * 8 wrapped
  metrics_1d.h5       agents = 1000 and 1-D metrics: read as 1000 values per row
  model_huge.h5       a dictionary declaring 2^31 x 2^33 doubles in a file of a few KB
  kernel_type.h5      the `kernel` string type's base patched (bit offset 0x207f)
  heap_loop.h5        a global-heap object size that sends libhdf5's heap parser back to the
                      same object forever (h5py hangs on it too)
  degree_wrap.h5      a polynomial model whose `degree` is 2^32 + 3
  zero_rows.h5        a valid model without dictionary rows (predicts 0 everywhere)
  chunk_huge.h5       the chunk record of an extendible metric (as polka writes them) whose
                      stored size says 0xFC000000 bytes (the fuzz campaign's damage)
"""
import os
import struct
import sys

import h5py
import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
CONFIG = {"data.source": "file", "data.format": "libsvm", "data.train": "data.svm", "data.test": "data.svm",
          "learner.loss": "square", "learner.kernel": "gaussian", "run.mode": "centralized"}


def run_file(name, agents=1, metrics_2d=True, dict_rows=3, kernel="gaussian", degree=3):
    """A small valid run file; returns its path (the callers then damage it)."""
    path = os.path.join(out, name)
    with h5py.File(path, "w") as f:
        config = f.create_group("config")
        for key, value in CONFIG.items():
            config.attrs[key] = value
        metrics = f.create_group("metrics")
        metrics.attrs.create("agents", agents, dtype="u8")
        metrics["round"] = np.array([10.0, 20.0])
        metrics["samples"] = np.array([10.0, 20.0])
        for metric in ("test_score", "disagreement", "model_order", "wall_time", "bytes_sent"):
            metrics[metric] = np.ones((2, agents)) if metrics_2d else np.ones(2)
        model = f.create_group("models/agent_0000")
        model.attrs["kernel"] = kernel
        model.attrs["sigma"] = 0.6
        model.attrs.create("degree", degree, dtype="i8")
        model.attrs["coef0"] = 1.0
        model["dictionary"] = np.arange(dict_rows * 2, dtype=float).reshape(dict_rows, 2) / 10
        model["weights"] = np.ones((dict_rows, 1))
    return path


def patch(path, old, new, after=b"", count=1):
    """Replaces the first `count` occurrences of old (searched after the bytes `after`)."""
    data = bytearray(open(path, "rb").read())
    at = data.index(after) if after else 0
    for _ in range(count):
        at = data.index(old, at)
        data[at:at + len(new)] = new
    open(path, "wb").write(bytes(data))


with open(os.path.join(out, "data.svm"), "w") as f:
    f.write("0.5 1:0.1 2:0.2\n-0.5 1:0.3 2:0.1\n1.5 1:0.2 2:0.4\n")

# 1 and 2: the number of agents is not what the metrics hold
with h5py.File(run_file("agents_overflow.h5", metrics_2d=False), "r+") as f:
    f["metrics"].attrs.create("agents", 2 ** 61, dtype="u8")
with h5py.File(run_file("metrics_1d.h5", metrics_2d=False), "r+") as f:
    f["metrics"].attrs.create("agents", 1000, dtype="u8")

# 3: a chunked dataset of fill values declares any size for free
with h5py.File(run_file("model_huge.h5"), "r+") as f:
    model = f["models/agent_0000"]
    del model["dictionary"]
    model.create_dataset("dictionary", shape=(2 ** 31, 2 ** 32), dtype="f8", chunks=(1, 1024))
    del model["weights"]
    model.create_dataset("weights", shape=(2 ** 31, 1), dtype="f8", chunks=(1024, 1))
# HDF5 refuses 2^64 elements, so the second dimension becomes 2^33 in the file's bytes, where a
# damaged file has it (the dataspace message holds both dimensions, then both maxima)
dims = struct.pack("<QQ", 2 ** 31, 2 ** 32)
patch(os.path.join(out, "model_huge.h5"), dims + dims, struct.pack("<QQ", 2 ** 31, 2 ** 33) * 2)

# 4a: the `kernel` attribute's string type as a fuzzer left it. The datatype message of a
# variable-length string: class 9 version 1, flags, size 16, then its base type: an integer
# (0x10: class 0 version 1), flags, size 1, bit offset 0, precision 8. The bit offset becomes
# 0x207f: libhdf5 then converts the 8 characters in a buffer of gigabytes, for minutes.
base = b"\x10\x00\x00\x00\x01\x00\x00\x00\x00\x00\x08\x00"
patch(run_file("kernel_type.h5"), base, base[:8] + b"\x7f\x20\x08\x00", after=b"\x00kernel\x00")

# 4b: a global heap object whose size is 2^64 - 16: the parser's next object starts at
# begin + 16 + size, which wraps back to the same object, forever.
marker = "heap-loop-marker"
with h5py.File(run_file("heap_loop.h5"), "r+") as f:
    f["config"].attrs["run.mode"] = marker
size = struct.pack("<Q", len(marker))
data = bytearray(open(os.path.join(out, "heap_loop.h5"), "rb").read())
at = data.index(size + marker.encode())
data[at:at + 8] = struct.pack("<Q", 2 ** 64 - 16)
open(os.path.join(out, "heap_loop.h5"), "wb").write(bytes(data))

# 10b: an integer attribute beyond int
with h5py.File(run_file("degree_wrap.h5", kernel="polynomial"), "r+") as f:
    f["models/agent_0000"].attrs.create("degree", 2 ** 32 + 3, dtype="i8")

# 10a: no dictionary rows
run_file("zero_rows.h5", dict_rows=0)
# The fuzz campaign's: a chunk record's size field (v1 B-tree key: size, filter mask, then the
# chunk's offsets and the element offset, each 8 bytes; then the chunk's address) made large.
with h5py.File(run_file("chunk_huge.h5"), "r+") as f:
    del f["metrics/wall_time"]
    wall = f["metrics"].create_dataset("wall_time", data=np.ones((2, 1)), maxshape=(None, 1),
                                       chunks=(64, 1))
    chunk = wall.id.get_chunk_info(0)
key = struct.pack("<II", chunk.size, chunk.filter_mask) + bytes(24)
patch(os.path.join(out, "chunk_huge.h5"), key + struct.pack("<Q", chunk.byte_offset),
      struct.pack("<I", 0xFC000000))
print("crafted run files in", out)
