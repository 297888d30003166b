#!/usr/bin/env python3
"""How long polka.open takes to give the metrics of a large run: 4 096 agents on an
Erdős–Rényi graph (mean degree 1.25 ln N, tools/er_p.sh) on 2 ranks, one log row per
round for 200 rounds (multidist, 200 samples per agent; the run takes about a minute on 2
cores and is kept in OUT for the next time). Prints the file's size and, per repetition,
the seconds of polka.open (which reads /metrics whole), of its xarray Dataset and of its
tidy DataFrame; last, a fresh python's import of polka, open and Dataset, all in one.
    PYTHONPATH=build/python /usr/bin/python3 experiments/open_timing.py [OUT] [REPEATS]"""
import math
import os
import subprocess
import sys
import time

import polka

AGENTS, ROWS = 4096, 200
out = sys.argv[1] if len(sys.argv) > 1 else "out/open_timing"
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
path = f"{out}/agents{AGENTS}_rows{ROWS}.h5"
if not os.path.exists(path):
    os.makedirs(out, exist_ok=True)
    degree = 1.25 * math.log(AGENTS)
    polka.run({"net.graph": "er", "net.p": degree / (AGENTS - 1), "data.n_train": ROWS * AGENTS,
               "data.n_test": 100, "run.log_every": AGENTS, "run.log_test": 20, "run.output": path},
              ranks=2, agents=AGENTS)
print(f"{path}: {os.path.getsize(path) / 2**20:.0f} MiB")
for repeat in range(repeats):
    start = time.perf_counter()
    run = polka.open(path)
    opened = time.perf_counter()
    metrics = run.metrics
    dataset = time.perf_counter()
    table = run.table
    done = time.perf_counter()
    print(f"open {opened - start:.3f} s + Dataset {dataset - opened:.3f} s = {dataset - start:.3f} s; "
          f"DataFrame {done - dataset:.3f} s more: {dict(metrics.sizes)}, {len(metrics.data_vars)} "
          f"metrics, {len(table)} table rows")
fresh = "import time; t = time.perf_counter(); import polka; polka.open(%r).metrics; print(time.perf_counter() - t)"
seconds = float(subprocess.run([sys.executable, "-c", fresh % path], check=True, capture_output=True, text=True).stdout)
print(f"a fresh python: import polka, open, Dataset: {seconds:.3f} s")
