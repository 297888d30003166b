#!/usr/bin/env python3
"""The longest C functions of a tree (lines from the signature to the closing brace).

  longest_functions.py [ROOT] [-n 10]

A function is a definition whose body opens with '{' at the end of a line and closes with '}'
alone at column 0 (the repository's clang-format layout); the signature may span lines.
"""
import argparse
import os
import re

SIGNATURE_END = re.compile(r"\)\s*\{\s*$")
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    """Yields (name, first line, length) of every function defined in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if start is None and SIGNATURE_END.search(line):
            first = i  # back to the signature's first line (it may span lines)
            while first > 0 and lines[first - 1].strip() and not lines[first - 1].rstrip().endswith(
                    (";", "}", "*/", "{")) and not lines[first - 1].startswith(("#", "/")):
                first -= 1
            if not lines[first].startswith((" ", "\t", "#")):
                start = first
        elif start is not None and line == "}":
            match = NAME.search(" ".join(lines[start:i]))
            yield (match.group(1) if match else "?"), start + 1, i - start + 1
            start = None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".")
    parser.add_argument("-n", type=int, default=10)
    args = parser.parse_args()
    found = []
    for folder in ("src", "include"):
        for dirpath, _, names in os.walk(os.path.join(args.root, folder)):
            for name in sorted(names):
                if name.endswith(".c"):
                    path = os.path.join(dirpath, name)
                    for fn, line, length in functions(path):
                        found.append((length, os.path.relpath(path, args.root), line, fn))
    found.sort(key=lambda r: (-r[0], r[1], r[2]))
    for length, path, line, fn in found[:args.n]:
        print(f"{length:5d}  {fn}  ({path}:{line})")
    print(f"{len(found)} functions, mean {sum(r[0] for r in found) / max(len(found), 1):.1f} lines")


if __name__ == "__main__":
    main()
