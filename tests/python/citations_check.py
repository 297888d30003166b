#!/usr/bin/env python3
"""Fail when a file cites a paper by its number, an issue by its number, or an undefined key.

The tree's files: `git ls-files` when the root is a git work tree's top, else every file under
it but hidden folders and build trees (a folder holding CMakeCache.txt). Binary files (a NUL in
the first 8 KB) are skipped. Two rules:
  - numbers: no file outside NUMBERS_EXEMPT cites a paper as "paper 00N" or an issue by its
    number (the word issue and a number, "#" or not): neither means anything to a reader. A
    paper is cited by its key; an issue by what it stood for.
  - keys: every key of the reference form used in any file, NUMBERS_EXEMPT included, is
    defined in docs/references.md, which defines one by a line "- **[KEY]** citation". A key
    is 2-6 capitals and 2 digits ([KPRR18], [KSW04]) or a capital, 2-6 lowercase letters and 2
    digits ([Say14], [Higham02]), closed by "]", "," or a space ("[Higham02, §3.1]"), so that
    C subscripts ([i], [M], [u64 + 1]) are not keys. A key defined twice is an error too.

Exit status: 0 both rules hold, 1 violations (one line each), 2 docs/references.md missing.
  citations_check.py [--root DIR] [--exempt PATTERN ...]
  citations_check.py --self-test      (builds a small tree in a temporary folder and checks it)
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from checker_selftest import report_results, run_checker, write_tree

# Files the numbers rule does not cover (patterns on the path from the root; "*" stays inside a
# folder; --exempt replaces the list). None: every file cites papers by key.
NUMBERS_EXEMPT = []

ROOT = Path(__file__).resolve().parents[2]  # tests/python/ -> the repository
REFERENCES = "docs/references.md"
NUMBERED = re.compile(r"\bpapers?\s+0\d\d\b|\bissues?\s*#?\s*\d+", re.I)
KEY = re.compile(r"\[([A-Z]{2,6}\d{2}|[A-Z][a-z]{2,6}\d{2})(?=[\],\s])")
DEFINITION = re.compile(r"^- \*\*\[([^\]]+)\]\*\*", re.M)


def exempt(path, patterns):
    return any(re.fullmatch(re.escape(p).replace(r"\*", "[^/]*"), path) for p in patterns)


def tracked(root):
    """The tree's files, as paths from the root."""
    top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    if top.returncode == 0 and Path(top.stdout.strip()).resolve() == root.resolve():
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                                check=True)
        return sorted(p for p in listed.stdout.decode().split("\0") if p and (root / p).is_file())
    builds = {p.parent for p in root.rglob("CMakeCache.txt")} - {root}  # in-source: not all
    files = (p.relative_to(root) for p in root.rglob("*") if p.is_file()
             and not any(b in p.parents for b in builds))
    return sorted(p.as_posix() for p in files if not any(s.startswith(".") for s in p.parts))


def text_of(path):
    data = path.read_bytes()
    return None if b"\0" in data[:8192] else data.decode("utf-8", errors="replace")


def defined_keys(text):
    """The keys docs/references.md defines, and the lines of any defined twice."""
    keys, twice = set(), []
    for found in DEFINITION.finditer(text):
        key = found.group(1)
        if key in keys:
            line = text.count("\n", 0, found.start()) + 1
            twice.append(f"{REFERENCES}:{line}: [{key}] is defined twice")
        keys.add(key)
    return keys, twice


def violations(root, keys, patterns):
    found = []
    for rel in tracked(root):
        text = text_of(root / rel)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if not exempt(rel, patterns):
                for cited in NUMBERED.finditer(line):
                    found.append(f"{rel}:{number}: cites '{cited.group()}' by its number: "
                                 f"cite a paper by its key in {REFERENCES}, an issue by what it "
                                 "stood for")
            for key in KEY.findall(line):
                if key not in keys:
                    found.append(f"{rel}:{number}: [{key}] is not defined in {REFERENCES}")
    return found


def check(root, patterns):
    references = root / REFERENCES
    if not references.is_file():
        print(f"citations_check: no {references}", file=sys.stderr)
        return 2
    keys, twice = defined_keys(references.read_text())
    found = twice + violations(root, keys, patterns)
    for line in found:
        print(line)
    return 1 if found else 0


# ---- the self-test: a small tree the checker must refuse, then accept

PAPER, ISSUE = "paper " + "003", "issue " + "#12"  # split: this file cites neither itself
UNDEFINED, DEFINED = "[QQ" + "99]", "[AB" + "12]"  # neither a key of the real tree
TREE = {
    REFERENCES: f"# References\n\n- **{DEFINED}** A. Author, B. Author. \"A Title\". 2012.\n",
    "src/a.c": f"/* the method of {PAPER}, as {DEFINED} §2 has it; also {UNDEFINED} */\n"
               "int a(int *x, int M) { return x[0] + x[M - 1]; } /* x[i], [M], [u64 + 1] */\n",
    "README.md": f"The method of {DEFINED}.\n",
    "docs/design.md": f"The method of {PAPER}; before issue " + "34 it was slow.\n",
    "docs/data/notes.md": f"See {ISSUE}.\n",
    "data.bin": f"\0{PAPER}\n",
}
REFUSED = [f"docs/data/notes.md:1: cites '{ISSUE}' by its number: cite a paper by its key in "
           f"{REFERENCES}, an issue by what it stood for",
           f"src/a.c:1: cites '{PAPER}' by its number: cite a paper by its key in {REFERENCES}, "
           "an issue by what it stood for",
           f"src/a.c:1: {UNDEFINED} is not defined in {REFERENCES}"]


SELF_EXEMPT = ("--exempt", "docs/design.md")  # the tree's one exempt file, whatever the real list


def self_test():
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        write_tree(root, TREE)
        results = [("a paper's number, an issue's in a subfolder of docs/, an undefined key",
                    run_checker(__file__, root, *SELF_EXEMPT), (1, REFUSED))]
        a, notes = root / "src/a.c", root / "docs/data/notes.md"
        a.write_text(a.read_text().replace(PAPER, DEFINED).replace(UNDEFINED, ""))
        notes.write_text("See the old slow start-up.\n")
        results.append(("cited by key, the tree holds", run_checker(__file__, root, *SELF_EXEMPT), (0, [])))
        refs = root / REFERENCES
        refs.write_text(refs.read_text() * 2)
        results.append(("a key defined twice", run_checker(__file__, root, *SELF_EXEMPT),
                        (1, [f"{REFERENCES}:6: {DEFINED} is defined twice"])))
        refs.unlink()
        results.append(("no docs/references.md", run_checker(__file__, root, *SELF_EXEMPT), (2, [])))
    return report_results(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the repository (default: %(default)s)")
    parser.add_argument("--exempt", action="append", metavar="PATTERN",
                        help="a file the numbers rule skips (repeatable; default: NUMBERS_EXEMPT)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on a small tree")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    return check(args.root.resolve(), NUMBERS_EXEMPT if args.exempt is None else args.exempt)


if __name__ == "__main__":
    sys.exit(main())
