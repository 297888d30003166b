#!/usr/bin/env python3
"""The quickstart's comparison figure from Python: 16 agents on the Erdős–Rényi graph of
experiments/quickstart.sh (on 2 ranks: the models are the same on any number) against
centralized POLK on the union of their streams, then plot_cli.py run's figure, the final rows
and, when experiments/quickstart.sh has run, whether every test score is the same as there.
    PYTHONPATH=build/python /usr/bin/python3 experiments/quickstart_figure.py [OUT]"""
import os
import sys

import polka

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
config = f"{root}/experiments/configs/decentralized_multidist.ini"
out = sys.argv[1] if len(sys.argv) > 1 else "out/quickstart_py"
os.makedirs(out, exist_ok=True)
agents = polka.run({"net.graph": f"{root}/graphs/er_16_p0.2.txt", "run.output": f"{out}/decentralized.h5"},
                   config=config, ranks=2)
central = polka.run({"run.mode": "centralized", "net.agents": 16, "run.output": f"{out}/centralized.h5"},
                    config=config)
polka.plot.run(agents, central=central).savefig(f"{out}/decentralized_vs_centralized.png", dpi=110)
table = polka.open_many([agents.path, central.path])
print(table[["topology", "agents", "rounds", "score_mean", "score_min", "order", "disagreement"]].to_string(index=False))
shell = f"{root}/out/quickstart/decentralized.h5"  # experiments/quickstart.sh's run, on 16 ranks
if os.path.exists(shell):
    same = (polka.open(shell).metrics.test_score == agents.metrics.test_score).all().item()
    print(f"every agent's test score as in {shell}: {same}")
