#!/usr/bin/python3
"""Heap bytes per agent by part from tools/alloc_sites.c's files.

  alloc_parts.py AGENTS SITES_FILE...   (one file per rank of one run)

Each allocation stack is resolved with addr2line (functions, inlined ones too, and the
source line of the allocating call) and given to the first part whose rule matches, walking
from the innermost polka frame outwards; allocation helpers are passed over, so a buffer
counts where it is used. Prints one line per part: name, bytes per agent at the heap's peak
(summed over the ranks, divided by AGENTS), then the total. Works on any build with debug
information (RelWithDebInfo): both sides of experiments/agent_memory.sh use the same rules.
"""
import collections
import os
import subprocess
import sys

# Helpers that allocate for their caller: the caller decides the part.
HELPERS = {
    "polka_komp_grow", "resize", "reserve_doubles", "reserve_block", "grow", "reserve_work",
    "polka_dataset_alloc",
}

INVERSE = "KOMP inverse: G_base, terms, diag, indices"
TERMS = "  of which pending terms, on their own"
KOMP_SCRATCH = "KOMP scratch (per agent)"
STRUCTS = "learner, KOMP and model structs"
EXCHANGE = "exchange buffers (by degree)"
LATE = "late-value buffers"
LEARNER_SCRATCH = "learner scratch (per agent)"
RULE = {
    "polka_scratch": "scratch shared by a rank",
    # the page store of komp_store.c holds G_base and the terms together
    "polka_pages_reserve": INVERSE,
    "add_term": TERMS, "polka_komp_remove": TERMS, "restore_komp": TERMS,
    "border_scratch": KOMP_SCRATCH, "add_terms": KOMP_SCRATCH,
    "polka_komp_flush": INVERSE, "set_room": INVERSE, "rebuild_inverse": INVERSE,
    "polka_komp_reserve": INVERSE, "polka_komp_shape": INVERSE,
    "eval_keeping_rows": "kernel rows kept for the update",
    "polka_model_reserve": "model: dictionary and norms",
    "shrink_to_fit": "model: dictionary and norms",
    "reserve_scratch": LEARNER_SCRATCH, "project_smallest": LEARNER_SCRATCH,
    "merge_smallest": LEARNER_SCRATCH,
    "polka_model_eval": "transient (a prediction's kernel block)",
    "polka_learner_create": STRUCTS, "polka_agent_init": STRUCTS,
    "polka_stale_create": LATE, "polka_stale_rewire": LATE,
    "alloc_slots": EXCHANGE, "init_buffers": EXCHANGE,
}
# Functions that allocate several parts: a word of the allocating source line decides, the
# same words in both builds (before: the terms grown in polka_komp_reserve and the flush's
# work array).
LINE_RULES = {
    "polka_komp_reserve": [("terms", TERMS)],
    "polka_komp_flush": [("work", KOMP_SCRATCH)],
    "polka_model_reserve": [("weights", "model: weights")],
    "shrink_to_fit": [("weights", "model: weights")],
    "mpi_setup": [("local", "agent structs")],
}
# Parts of the rank rather than of an agent (by the file of the outermost matching frame).
RANK_FILES = {
    "metrics.c": "metrics (rank)", "decentral.c": "metrics (rank)", "checkpoint.c": "metrics (rank)",
}
ORDER = [
    INVERSE, TERMS, KOMP_SCRATCH,
    "model: dictionary and norms", "model: weights", "kernel rows kept for the update",
    "learner scratch (per agent)", "learner, KOMP and model structs",
    "exchange buffers (by degree)", "late-value buffers", "agent structs",
    "scratch shared by a rank", "transient (a prediction's kernel block)", "metrics (rank)",
    "rest of the rank (data, graph, halo, MPI, HDF5)",
]


def read_sites(paths):
    sites = []
    for path in paths:
        with open(path) as f:
            for line in f:
                fields = line.split()
                if fields[0] == "peak":
                    continue
                frames = [fr.rsplit("+", 1) for fr in fields[2:]]
                sites.append((int(fields[0]), frames))
    return sites


def resolve(binary, offsets):
    """offset -> [(function, file, line)], innermost (inlined) first."""
    # a return address: the call is the instruction before it
    args = ["0x%x" % (int(o, 16) - 1) for o in offsets]
    out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", binary] + args,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    table, key, k = {}, None, 0
    while k < len(out):
        if out[k].startswith("0x"):
            key = "0x%x" % (int(out[k], 16) + 1)
            table[key] = []
            k += 1
            continue
        where = out[k + 1].split(" ")[0]
        path, _, line = where.rpartition(":")
        table[key].append((out[k], path, int(line) if line.isdigit() else 0))
        k += 2
    return table


def source_line(path, line, cache={}):
    if path not in cache:
        try:
            with open(path) as f:
                cache[path] = f.read().splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    return lines[line - 1] if 0 < line <= len(lines) else ""


def classify(chain):
    """chain: [(function, file, line)] innermost first, polka frames only."""
    for function, path, line in chain:
        if function in HELPERS:
            continue
        text = source_line(path, line) if function in LINE_RULES else ""
        for word, part in LINE_RULES.get(function, []):
            if word in text:
                return part
        if function in RULE:
            return RULE[function]
    for function, path, line in chain:
        part = RANK_FILES.get(os.path.basename(path))
        if part:
            return part
    return "rest of the rank (data, graph, halo, MPI, HDF5)"


def main():
    agents = int(sys.argv[1])
    sites = read_sites(sys.argv[2:])
    binaries = collections.defaultdict(set)
    for _, frames in sites:
        for module, offset in frames:
            if os.path.basename(module) == "polka":
                binaries[module].add(offset)
    tables = {b: resolve(b, sorted(o)) for b, o in binaries.items()}
    parts = collections.Counter()
    for peak, frames in sites:
        chain = []
        for module, offset in frames:
            if module in tables:
                chain.extend(tables[module].get(offset, []))
        parts[classify(chain)] += peak
    parts[INVERSE] += parts[TERMS]  # the terms are part of the inverse; shown beside it too
    for name in ORDER:
        print("%s\t%.0f" % (name, parts[name] / agents))
    print("total\t%.0f" % ((sum(parts.values()) - parts[TERMS]) / agents))


if __name__ == "__main__":
    main()
