#!/bin/sh
# polka data split: the histogram of shards k=1 over 6 agents has one class per agent, equal
# totals, every class used; the CSV matches the printed table and the figure is a real PNG.
set -eu
polka=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$polka" data split --set data.split=shards --set data.shards=1 --set net.agents=6 \
    --set data.n_train=1200 -o "$dir/h.csv" > "$dir/table.txt"
"$polka" data split --set data.split=dirichlet --set data.alpha=0.1 --set net.agents=6 \
    -o "$dir/fig.png" > "$dir/fig.txt"
/usr/bin/python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
lines = open(f"{d}/h.csv").read().split("\n")
assert lines[0].startswith("# split=shards k=1"), lines[0]
rows = [list(map(int, l.split(","))) for l in lines[2:] if l]
assert len(rows) == 6, rows
used = set()
for r in rows:
    nonzero = [c for c, n in enumerate(r[1:]) if n > 0]
    assert len(nonzero) == 1, r
    used.update(nonzero)
    assert sum(r[1:]) == 200, r
assert used == set(range(5)), used
table = open(f"{d}/table.txt").read().split("\n")
assert table[0].startswith("data.split = shards, 6 agents, 1200 training samples"), table[0]
for r, line in zip(rows, table[2:]):
    assert list(map(int, line.split()))[:-1] == r, (r, line)
assert open(f"{d}/fig.png", "rb").read(8) == b"\x89PNG\r\n\x1a\n"
assert open(f"{d}/fig.png.csv").readline().startswith("# split=dirichlet alpha=0.1")
assert "wrote" in open(f"{d}/fig.txt").read().split("\n")[-2]
print("ok")
PY
