#!/usr/bin/env python3
"""Fail when docs/design.md's map of the tree is not the tree.

The map: the fenced block ```map of docs/design.md (or --design FILE), an entry a line, lines
indented six or more going on with the entry above:
  src/FOLDER/                 what it holds (file names, globs allowed: runfile_*.c)
  include/polka/H.h  FLOOR/   what it declares
Checked, one line per finding:
  - every folder under src/ is an entry, and every folder entry is a folder of the tree;
  - every file name a folder entry's text names (x.c, x_impl.h, glob patterns) is in that folder;
  - every header of include/ is an entry, every header entry is in the tree, and its FLOOR is
    the floor tests/python/floors_check.py gives the header (the folder defining most of its
    functions; for a header of types and macros only, its lowest includer).

Exit status: 0 the map is the tree, 1 findings (one line each), 2 no map or a malformed one.
  design_map_check.py [--root DIR] [--design FILE]
  design_map_check.py --self-test   (builds a small tree in a temporary folder and checks it)
"""

import argparse
import fnmatch
import re
import sys
import tempfile
from pathlib import Path

import floors_check
from checker_selftest import report_results, run_checker, write_tree

ROOT = Path(__file__).resolve().parents[2]  # tests/python/ -> the repository
FENCE = re.compile(r"^```map[ \t]*\n(.*?)^```", re.S | re.M)
CONTINUED = re.compile(r" {6,}\S")
FOLDER_ENTRY = re.compile(r"(src/(?:[\w.-]+/)*)(?:\s+(.*))?")
HEADER_ENTRY = re.compile(r"(include/(?:[\w.-]+/)*[\w.-]+\.h)\s+(src/(?:[\w.-]+/)+)(?:\s+(.*))?")
FILE_NAME = re.compile(r"(?<![\w/.*])([\w*]+\.[ch])\b")


class MapError(Exception):
    """The map block is missing or malformed."""


def parse_map(text):
    """(folders: {folder: its text}, headers: {header: its floor})."""
    found = FENCE.search(text)
    if not found:
        raise MapError("no ```map block")
    folders, headers, last = {}, {}, None
    for line in filter(str.strip, found.group(1).splitlines()):
        line = line.expandtabs()
        if CONTINUED.match(line):
            if last is None:
                raise MapError(f"a continued line with no entry above it: {line!r}")
            if last in folders:  # a header's text is not checked: nothing to add it to
                folders[last] += " " + line.strip()
            continue
        header, folder = HEADER_ENTRY.fullmatch(line), FOLDER_ENTRY.fullmatch(line)
        name = header.group(1) if header else folder.group(1) if folder else None
        if name is None:
            raise MapError(f"neither 'src/FOLDER/  text' nor 'include/H.h  src/FLOOR/  text': {line!r}")
        if name in folders or name in headers:
            raise MapError(f"{name} is listed twice")
        if header:
            headers[name] = header.group(2)
        else:
            folders[name] = folder.group(2) or ""
        last = name
    return folders, headers


def tree_folders(root):
    return {p.relative_to(root).as_posix() + "/" for p in (root / "src").rglob("*") if p.is_dir()}


def tree_headers(root):
    return {p.relative_to(root).as_posix() for p in (root / "include").rglob("*.h") if p.is_file()}


def folder_findings(root, where, folders):
    tree = tree_folders(root)
    for folder in sorted(tree - set(folders)):
        yield f"{where}: the folder {folder} is not in the map"
    for folder in sorted(set(folders) - tree):
        yield f"{where}: the map lists {folder}, which is not in the tree"
    for folder in sorted(set(folders) & tree):
        present = [p.name for p in (root / folder).iterdir() if p.is_file()]
        for name in FILE_NAME.findall(folders[folder] or ""):
            if not fnmatch.filter(present, name):
                yield f"{where}: the map names {name} in {folder}, which holds no such file"


def header_floors(root, design_text):
    """Each public header -> its floor, as floors_check computes it."""
    floors = floors_check.parse_floors(design_text)
    files, notes = floors_check.sources(root), []
    arrows = floors_check.arrows_of(root, files, notes)
    return floors_check.owners(root, floors, files, arrows, notes)


def header_findings(root, where, headers, design_text):
    tree, owner = tree_headers(root), header_floors(root, design_text)
    for header in sorted(tree - set(headers)):
        yield f"{where}: the header {header} is not in the map"
    for header in sorted(set(headers) - tree):
        yield f"{where}: the map lists {header}, which is not in the tree"
    for header in sorted(set(headers) & tree):
        floor = owner.get(header)
        if floor != headers[header]:
            yield (f"{where}: the map puts {header} at {headers[header]}, floors_check at "
                   f"{floor or 'no floor'}")


def check(root, design):
    text = design.read_text()
    folders, headers = parse_map(text)
    where = design.relative_to(root).as_posix() if design.is_relative_to(root) else str(design)
    found = list(folder_findings(root, where, folders)) + list(header_findings(root, where, headers, text))
    for line in found:
        print(line)
    return 1 if found else 0


# ---- the self-test: a small tree whose map is right, then wrong in each way

DESIGN = ("# t\n\n```floors\nsrc/app/   the command\nsrc/core/  the maths\n```\n\n```map\n"
          "src/app/                main.c\n"
          "src/core/               core.c, core_*.c\n"
          "include/polka/core.h    src/core/   the maths\n"
          "include/polka/types.h   src/core/   types only:\n"
          "                        its lowest includer\n```\n")
TREE = {
    "docs/design.md": DESIGN,
    "include/polka/core.h": "double core_one(void);\n",
    "include/polka/types.h": "typedef struct { double x; } polka_point;\n",
    "src/app/main.c": '#include "polka/core.h"\nint main(void) { return (int)core_one(); }\n',
    "src/core/core.c": '#include "polka/core.h"\n#include "polka/types.h"\n'
                       "double core_one(void) { return 1.0; }\n",
    "src/core/core_two.c": "int core_two(void) { return 2; }\n",
}


def self_test():
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        write_tree(root, TREE)
        design = root / "docs/design.md"
        results = [("the map of the tree holds", run_checker(__file__, root), (0, []))]
        (root / "src/app/sub").mkdir()
        (root / "include/polka/extra.h").write_text("int extra(void);\n")
        results.append(("a folder and a header not in the map are named", run_checker(__file__, root),
                        (1, ["docs/design.md: the folder src/app/sub/ is not in the map",
                             "docs/design.md: the header include/polka/extra.h is not in the map"])))
        (root / "src/app/sub").rmdir()
        (root / "include/polka/extra.h").unlink()
        design.write_text(DESIGN.replace("include/polka/core.h    src/core/", "include/polka/core.h    src/app/")
                          .replace("main.c", "main.c, gone.c"))
        results.append(("a gone file and a wrong floor are named", run_checker(__file__, root),
                         (1, ["docs/design.md: the map names gone.c in src/app/, which holds no such file",
                              "docs/design.md: the map puts include/polka/core.h at src/app/, "
                              "floors_check at src/core/"])))
        design.write_text(DESIGN.replace("src/app/                main.c\n", "src/gone/  x\nsrc/app/ y\n"))
        results.append(("a folder gone from the tree is named", run_checker(__file__, root),
                        (1, ["docs/design.md: the map lists src/gone/, which is not in the tree"])))
        design.write_text(DESIGN.replace("```map", "```mapp"))
        results.append(("no map block: exit 2", run_checker(__file__, root)[0], 2))
    return report_results(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: %(default)s)")
    parser.add_argument("--design", type=Path, help="read the map from FILE, not ROOT/docs/design.md")
    parser.add_argument("--self-test", action="store_true", help="check the checker on a small tree")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    root = args.root.resolve()
    try:
        return check(root, (args.design or root / "docs/design.md").resolve())
    except (MapError, floors_check.FloorsError, OSError) as error:
        print(f"design_map_check: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
