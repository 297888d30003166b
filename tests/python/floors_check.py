#!/usr/bin/env python3
"""Fail when a source file includes a header of a higher floor.

The floors: the fenced block ```floors of docs/design.md (or --floors FILE: a markdown file
with that block, or just the block's lines), top floor first, a folder a line ("src/sim/  the
simulation"); lines indented two spaces are the floors inside the folder above them, top first;
lines indented six or more go on with the description above.

Whose floor is a file:
  - a file under src/ belongs to the deepest listed folder that contains it (src/app/man/x.c
    to src/app/). Every folder under src/ must lie in a listed one, and a folder with
    sub-floors may hold no unlisted folder: else the floors block itself is wrong (exit 2).
    A file lying directly in a folder with sub-floors (src/sim/x.c) ranks above all of them.
  - a public header include/**/h.h belongs to the folder that defines most of the functions it
    declares: declarations are the `name(` of the header's file-level statements (outside
    braces, parentheses, comments and preprocessor lines; typedefs and initialisers skipped),
    definitions the non-static `name(...) {` at file level of src/**/*.c. A tie goes to the
    higher floor: the header is as much the higher floor's interface, and the tie is a sign
    that it wants splitting.
  - a header declaring no function defined in src/ (types, macros, inline functions) belongs
    to the lowest floor that includes it: it has no code to place it, so it sits where all its
    includers may reach it, and what it includes itself is checked from that floor. A header
    nobody includes has no floor (--verbose names it).

An `#include "X"` (quoted only: <...> are system headers) resolves as the compiler finds it:
the including file's folder, then src/X, then include/X; anything else is generated or
external and ignored (--verbose notes it). It is lawful iff the target's floor is the file's
or lower: the top-level folders are compared first; the sub-floors only when both files lie in
the same top-level folder. A public header counts at the top-level folder of its owner: it is
that folder's interface to the floors above (polka/sim.h declares the drivers' entry points and
the summary and hooks every floor of src/sim fills), so inside the folder only the private
headers ("sim/agent/agent_impl.h") are floored.

Exit status: 0 no violation, 1 violations (one line each), 2 floors block missing or wrong.
  floors_check.py [--root DIR] [--floors FILE] [--report] [--verbose]
  floors_check.py --self-test      (builds a small tree in a temporary folder and checks it)
"""

import argparse
import os
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from checker_selftest import report_results, run_checker, write_tree

ROOT = Path(__file__).resolve().parents[2]  # tests/python/ -> the repository
FENCE = re.compile(r"^```floors[ \t]*\n(.*?)^```", re.S | re.M)
FLOOR_LINE = re.compile(r"( *)(\S+/)(\s.*)?")
CONTINUED = re.compile(r" {6,}\S")  # floors are indented 0 or 2; a description goes on deeper
INCLUDE = re.compile(r'\s*#\s*include\s*"([^"]+)"')
NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
INNERMOST = re.compile(r"\([^()]*\)")
CALLED = re.compile(r"([A-Za-z_]\w*)\s*@")
NOT_FUNCTIONS = {"__attribute__", "__declspec", "_Alignas", "alignas", "_Static_assert",
                 "static_assert", "sizeof", "typeof", "__typeof__", "asm", "__asm__"}


class FloorsError(Exception):
    """The floors block is missing or wrong."""


@dataclass
class Floors:
    order: list  # the listed folders, as in the block
    rank: dict   # folder -> (its top-level floor's height, its sub-floor's height)
    top: dict    # folder -> its top-level folder
    subs: dict   # top-level folder -> its sub-floors

    def of(self, path):
        """The deepest listed folder containing path, or None."""
        return max((f for f in self.order if path.startswith(f)), key=len, default=None)


# ---- the floors block

def block_lines(text):
    found = FENCE.search(text)
    if found:
        return found.group(1).splitlines()
    if "```" in text:
        raise FloorsError("no ```floors block")
    return text.splitlines()


def parse_floors(text):
    tops = []  # (folder, [its sub-floors])
    for line in filter(str.strip, block_lines(text)):
        if CONTINUED.match(line.expandtabs()):
            continue  # the description of the floor above, continued
        parsed = FLOOR_LINE.fullmatch(line.expandtabs())
        if not parsed:
            raise FloorsError(f"not 'folder/  description': {line!r}")
        if not parsed.group(1):
            tops.append((parsed.group(2), []))
        elif tops:
            tops[-1][1].append(tops[-1][0] + parsed.group(2))
        else:
            raise FloorsError(f"an indented floor with no folder above it: {line!r}")
    if not tops:
        raise FloorsError("the floors block is empty")
    return rank_floors(tops)


def rank_floors(tops):
    floors = Floors([], {}, {}, {})
    for i, (top, subs) in enumerate(tops):
        floors.subs[top] = subs
        heights = [(top, len(subs) + 1 if subs else 0)] + [(s, len(subs) - j) for j, s in enumerate(subs)]
        for folder, height in heights:
            if folder in floors.rank:
                raise FloorsError(f"{folder} is listed twice")
            floors.order.append(folder)
            floors.rank[folder] = (len(tops) - i, height)
            floors.top[folder] = top
    return floors


def check_listed(floors, root):
    """Every folder and file under src/ lies in a listed floor."""
    if not (root / "src").is_dir():
        raise FloorsError(f"no src/ under {root}")
    for path in sorted((root / "src").rglob("*")):
        rel = path.relative_to(root).as_posix() + ("/" if path.is_dir() else "")
        owner = floors.of(rel)
        if owner is None and (path.is_dir() or path.suffix in (".c", ".h")):
            raise FloorsError(f"{rel} lies in no listed floor: add it to the floors block")
        if path.is_dir() and floors.subs.get(owner) and rel != owner:
            raise FloorsError(f"{rel} is not among the floors of {owner}: add it to the block")


# ---- C, as far as the check needs it

def file_level(text):
    """The file-level statements of C text: (text, '{' if a body follows else ';')."""
    code = NOISE.sub(lambda m: " " if m.group().startswith("/") else '""', text.replace("\\\n", " "))
    code = re.sub(r"^\s*#.*$", "", code, flags=re.M)
    statements, current, depth = [], "", 0
    for piece in re.split(r"([{};])", code):
        if piece in ("{", ";") and depth == 0:
            statements.append((current, piece))
            current = ""
        if piece in ("{", "}"):
            depth = max(0, depth + (1 if piece == "{" else -1))
        elif depth == 0 and piece != ";":
            current += piece
    return statements


def function_name(statement):
    """The function a file-level statement declares or defines, or None."""
    if re.match(r"\s*typedef\b", statement) or "=" in statement:
        return None
    while INNERMOST.search(statement):
        statement = INNERMOST.sub("@", statement)
    names = [n for n in CALLED.findall(statement) if n not in NOT_FUNCTIONS]
    return names[0] if names else None


def declared(text):
    return {function_name(s) for s, end in file_level(text) if end == ";"} - {None}


def defined(text):
    return {function_name(s) for s, end in file_level(text)
            if end == "{" and not re.search(r"\bstatic\b", s)} - {None}


# ---- the tree: files, their includes, the headers' owners

def sources(root):
    return sorted(p for d in ("src", "include") for p in (root / d).rglob("*")
                  if p.suffix in (".c", ".h") and p.is_file())


def resolve(root, path, name):
    for base in (path.parent, root / "src", root / "include"):
        if (base / name).is_file():
            return Path(os.path.normpath(base / name)).relative_to(root).as_posix()
    return None


def arrows_of(root, files, notes):
    """Every quoted include that resolves: (file, line, name, target)."""
    arrows = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            include = INCLUDE.match(line)
            target = include and resolve(root, path, include.group(1))
            if target:
                arrows.append((rel, number, include.group(1), target))
            elif include:
                notes.append(f'note: {rel}:{number}: "{include.group(1)}" is not in the tree: ignored')
    return arrows


def definers(root, floors, files):
    """function name -> the folder of the .c that defines it."""
    return {name: floors.of(p.relative_to(root).as_posix()) for p in files
            if p.suffix == ".c" and p.parts[len(root.parts)] == "src"
            for name in defined(p.read_text(errors="replace"))}


def owners(root, floors, files, arrows, notes):
    """Public header -> its floor (see the docstring)."""
    where, owner = definers(root, floors, files), {}
    headers = [p for p in files if p.parts[len(root.parts)] == "include"]
    for header in headers:
        votes = Counter(where[n] for n in declared(header.read_text(errors="replace")) if n in where)
        if votes:
            rel = header.relative_to(root).as_posix()
            owner[rel] = max(votes, key=lambda f: (votes[f], floors.rank[f]))
            notes.append(f"owner: {rel} -> {owner[rel]} (defines {dict(votes)})")
    types_only = {h.relative_to(root).as_posix() for h in headers} - set(owner)
    owner.update(lowest_includers(floors, types_only, owner, arrows))
    for header in sorted(types_only):
        floor = owner.get(header, "no floor (included by no file that has one)")
        notes.append(f"owner: {header} -> {floor} (declares no function of src/: its lowest includer)")
    return owner


def lowest_includers(floors, headers, owner, arrows):
    """Each header of headers -> the lowest floor of the files including it (to a fixed point)."""
    found = {}
    while True:
        floor = lambda f: owner.get(f) or found.get(f) or floors.of(f)
        including = defaultdict(set)
        for source, _, _, target in arrows:
            if target in headers and floor(source):
                including[target].add(floor(source))
        new = {h: min(fs, key=floors.rank.get) for h, fs in including.items()}
        if new == found:
            return found
        found = new


# ---- the verdict and the report

def floor_of(floors, owner, path):
    """A source's listed folder; a public header's top-level folder (see above)."""
    if path.startswith("include/"):
        return floors.top.get(owner.get(path))
    return floors.of(path)


def above(floors, theirs, mine):
    """theirs is a higher floor than mine: the top-level folders first, then their sub-floors
    (a public header, at its top-level folder, is no higher than that folder's sub-floors)."""
    (their_top, their_sub), (my_top, my_sub) = floors.rank[theirs], floors.rank[mine]
    if their_top != my_top:
        return their_top > my_top
    return theirs != floors.top[theirs] and their_sub > my_sub


def violations(floors, owner, arrows):
    for source, number, name, target in arrows:
        mine, theirs = floor_of(floors, owner, source), floor_of(floors, owner, target)
        if mine and theirs and above(floors, theirs, mine):
            yield f'{source}:{number}: includes "{name}" (floor {theirs}) above its own floor ({mine})'


def folder_graph(floors, owner, arrows):
    """(from folder, to folder) -> the number of include arrows, between distinct folders."""
    pairs = Counter((floor_of(floors, owner, s), floor_of(floors, owner, t)) for s, _, _, t in arrows)
    return {(a, b): n for (a, b), n in pairs.items() if a and b and a != b}


def circles(graph):
    """The strongly connected components (Tarjan) of more than one folder."""
    index, low, stack, found = {}, {}, [], []
    successors = defaultdict(list)
    for a, b in graph:
        successors[a].append(b)

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in successors[node]:
            if nxt not in index:
                visit(nxt)
            if nxt in stack:
                low[node] = min(low[node], low[nxt])
        if low[node] == index[node]:
            component = stack[stack.index(node):]
            del stack[stack.index(node):]
            found.extend([component] if len(component) > 1 else [])

    for node in sorted({n for pair in graph for n in pair}):
        if node not in index:
            visit(node)
    return found


def report(floors, graph):
    up = lambda a, b: above(floors, b, a)
    print("include arrows between folders (file -> header; ^ marks those running upward):")
    for a, b in sorted(graph, key=lambda p: (floors.order.index(p[0]), floors.order.index(p[1]))):
        print(f"  {'^' if up(a, b) else ' '} {a:<22} -> {b:<22} {graph[a, b]:4}")
    for top, subs in floors.subs.items():
        if subs:
            inside = sum(n for (a, b), n in graph.items() if floors.top[a] == floors.top[b] == top and up(a, b))
            print(f"upward arrows inside {top}: {inside}")
    across = sum(n for (a, b), n in graph.items() if floors.top[a] != floors.top[b] and up(a, b))
    print(f"upward arrows at the top level: {across}")
    found = sorted(sorted(c, key=floors.order.index) for c in circles(graph))
    print(f"include circles between folders: {len(found)}")
    for component in found:
        print("  " + " <-> ".join(component))


def check(root, floors_text, want_report, verbose):
    floors = parse_floors(floors_text)
    check_listed(floors, root)
    notes, files = [], sources(root)
    notes += [f"note: {f} is listed but not in the tree" for f in floors.order if not (root / f).is_dir()]
    arrows = arrows_of(root, files, notes)
    owner = owners(root, floors, files, arrows, notes)
    found = list(violations(floors, owner, arrows))
    for line in (notes if verbose else []) + found:
        print(line)
    if want_report:
        report(floors, folder_graph(floors, owner, arrows))
    return 1 if found else 0


# ---- the self-test: a small tree with one lawful and one unlawful include

TREE = {
    "docs/design.md": "# t\n\n```floors\nsrc/app/   the command\nsrc/sim/   the simulation\n"
                      "  run/     the drivers\n  plan/    the plan\nsrc/core/  the maths\n```\n",
    "include/polka/sim.h": "int sim_run(void);\nint sim_step(int n);\nint sim_plan(void);\n",
    "include/polka/types.h": "typedef struct { double x; } polka_point;\n",
    "src/app/main.c": '#include "polka/sim.h"\n#include "sim/run/run_impl.h"\n'
                      "int main(void) { return sim_run(); }\n",
    "src/sim/run/run_impl.h": "int run_helper(void);\n",
    "src/sim/run/run.c": '#include "sim/plan/plan_impl.h"\n#include "polka/sim.h"\n'
                         "int sim_run(void) { return sim_plan(); }\nint sim_step(int n) { return n; }\n",
    "src/sim/plan/plan_impl.h": "#include \"polka/types.h\"\n",
    "src/sim/plan/plan.c": '#include "plan_impl.h"\nint sim_plan(void) { return 0; }\n',
    "src/core/core.c": '#include <math.h>\n#include "polka/types.h"\n#include "polka/sim.h"\n'
                       "double core_one(void) { return 1.0; }\n",
}
UNLAWFUL = 'src/core/core.c:3: includes "polka/sim.h" (floor src/sim/) above its own floor (src/core/)'


def self_test():
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        write_tree(root, TREE)
        results = [("the unlawful include is named", run_checker(__file__, root), (1, [UNLAWFUL]))]
        core = root / "src/core/core.c"
        core.write_text(core.read_text().replace('#include "polka/sim.h"\n', ""))
        results.append(("without it the tree holds", run_checker(__file__, root), (0, [])))
        (root / "lines").write_text("src/app/ a\nsrc/sim/ b\n  plan/ c\n  run/ d\nsrc/core/ e\n")
        results.append(("--floors of plain lines, run/ now below plan/: run.c's include runs upward",
                        run_checker(__file__, root, "--floors", str(root / "lines")),
                        (1, ['src/sim/run/run.c:1: includes "sim/plan/plan_impl.h" (floor src/sim/plan/)'
                             ' above its own floor (src/sim/run/)'])))
        (root / "src/extra").mkdir()
        results.append(("an unlisted folder is refused", run_checker(__file__, root), (2, [])))
    return report_results(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: %(default)s)")
    parser.add_argument("--floors", type=Path, help="read the floors block from FILE, not docs/design.md")
    parser.add_argument("--report", action="store_true", help="arrows between folders, upward ones, circles")
    parser.add_argument("--verbose", action="store_true", help="the headers' owners, the ignored includes")
    parser.add_argument("--self-test", action="store_true", help="check the checker on a small tree")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    try:
        text = (args.floors or args.root / "docs/design.md").read_text()
        return check(args.root.resolve(), text, args.report, args.verbose)
    except (FloorsError, OSError) as error:
        print(f"floors_check: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
