#!/usr/bin/env python3
"""A sweep driven from Python: 16 agents on four topologies × penalty c ∈ {0, 1, 2} (12 runs
of experiments/configs/decentralized_multidist.ini, 2 ranks each), gathered by polka.open_many
into one DataFrame (the settings that differ as columns) and grouped by topology.
    PYTHONPATH=build/python /usr/bin/python3 experiments/sweep_frame.py [OUT]"""
import os
import sys

import pandas as pd

import polka

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
config = f"{root}/experiments/configs/decentralized_multidist.ini"
out = sys.argv[1] if len(sys.argv) > 1 else "out/sweep_frame"
os.makedirs(out, exist_ok=True)
for graph in ("er_16_p0.2", "ring_16", "torus_4x4", "star_16"):
    for c in (0, 1, 2):
        polka.run({"net.graph": f"{root}/graphs/{graph}.txt", "net.c": c,
                   "run.output": f"{out}/{graph}_c{c}.h5"}, config=config, ranks=2)

sweep = polka.open_many(f"{out}/*.h5")
pd.set_option("display.width", 200)
print(f"{len(sweep)} runs; the settings that differ: {[k for k in sweep.columns if '.' in k]}\n")
print(sweep[["topology", "net.c", "score_mean", "score_min", "disagreement", "order", "bytes_per_round"]]
      .to_string(index=False), "\n")
by_topology = sweep.groupby("topology")[["score_mean", "score_min", "disagreement", "bytes_per_round"]].mean()
by_topology.insert(0, "runs", sweep.groupby("topology").size())
print(by_topology.sort_values("score_mean", ascending=False).to_string(), "\n")
print("mean accuracy by topology and c:")
print(sweep.pivot_table(index="topology", columns="net.c", values="score_mean").to_string())
