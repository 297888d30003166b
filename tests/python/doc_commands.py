#!/usr/bin/env python3
"""Runs the commands of the documentation, so that a command that stops working turns CI red.

Every fenced block of a Markdown file whose info string starts with ``sh`` or ``python`` is
run, in the order of the file, in one scratch folder shared by the file's blocks (a block may
read what an earlier one wrote).  A block whose info string carries the word ``norun`` (a
command for a cluster, a run of many minutes, the two commands that start this very suite) is
counted and left alone; any other fenced block (``ini``, ``text``, output shown) is prose.

The scratch folder links the source tree's experiments/, graphs/, python/, slurm/ and tools/
so that the paths the documentation names resolve, and holds ``build/polka``: a wrapper of the
polka under test that appends ``--small`` settings (by default a smaller multidist stream) to
``polka run``, so that every run is small.  ``build/`` is first on PATH, so ``polka`` and
``build/polka`` both name it, and ``python3`` names ``--interpreter`` (the Python with
numpy and h5py that the suite uses); Open MPI may run as root and oversubscribe, as the suite's tests
do.  A block runs under ``bash -euo pipefail`` (or the Python interpreter) with a time limit;
the first that fails ends the check with exit 1 naming the file and line of the block and the
end of its output.  Exit 2: a file has no runnable block (the check would prove nothing).

--self-test builds a small guide whose one command uses a key polka does not have and checks
that it is refused, then that the same guide with the key spelled right passes.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

LINKED = ("experiments", "graphs", "python", "slurm", "tools")
SMALL = ("data.n_train=1000", "data.n_test=500")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`]*)$")


def blocks(path):
    """(line, language, words, text) of every fenced block of a Markdown file."""
    found, inside = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            match = FENCE.match(line.rstrip("\n"))
            if inside is None and match:
                words = match.group(3).split()
                inside = (number, match.group(2), words, [])
            elif inside is not None and match and match.group(2).startswith(inside[1]) \
                    and not match.group(3).strip():
                start, _, words, text = inside
                language = words[0] if words else ""
                found.append((start, language, words[1:], "".join(text)))
                inside = None
            elif inside is not None:
                inside[3].append(line)
    if inside is not None:
        sys.exit(f"{path}:{inside[0]}: a fenced block that never closes")
    return found


def commands(text):
    """The commands a block holds: its lines joined at trailing backslashes, without comments
    and blank lines."""
    joined = re.sub(r"\\\n", " ", text)
    return [line for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def write_wrapper(folder, polka, small):
    path = os.path.join(folder, "polka")
    extra = " ".join(f"--set {shlex.quote(s)}" for s in small)
    with open(path, "w") as f:
        f.write("#!/bin/bash\n# polka under test; every run made small (tests/python/doc_commands.py)\n"
                f'if [ "${{1-}}" = run ]; then exec {shlex.quote(polka)} "$@" {extra}; fi\n'
                f'exec {shlex.quote(polka)} "$@"\n')
    os.chmod(path, 0o755)


def scratch(source, polka, python_dir, small, interpreter):
    folder = tempfile.mkdtemp(prefix="polka-docs.")
    for name in LINKED:
        if os.path.isdir(os.path.join(source, name)):
            os.symlink(os.path.join(source, name), os.path.join(folder, name))
    os.mkdir(os.path.join(folder, "build"))
    write_wrapper(os.path.join(folder, "build"), polka, small)
    os.symlink(interpreter, os.path.join(folder, "build", "python3"))
    if python_dir:
        os.symlink(python_dir, os.path.join(folder, "build", "python"))
    return folder


def environment(folder, python_dir):
    env = dict(os.environ)
    env["PATH"] = os.path.join(folder, "build") + os.pathsep + env.get("PATH", "")
    if python_dir:
        env["PYTHONPATH"] = python_dir + os.pathsep + env.get("PYTHONPATH", "")
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    return env


def run_block(language, text, folder, env, timeout, interpreter):
    argv = ["bash", "-euo", "pipefail", "-c", text] if language == "sh" else [interpreter, "-c", text]
    process = subprocess.Popen(argv, cwd=folder, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True, text=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return f"still running after {timeout} s", output
    if process.returncode != 0:
        return f"exit {process.returncode}", output
    return None, output


def check_file(path, args):
    folder = scratch(args.source, args.polka, args.python, args.small, args.interpreter)
    env = environment(folder, args.python)
    ran = skipped = count = 0
    try:
        for line, language, words, text in blocks(path):
            if language not in ("sh", "python"):
                continue
            if "norun" in words:
                skipped += 1
                continue
            failure, output = run_block(language, text, folder, env, args.timeout, args.interpreter)
            if args.verbose:
                print(f"{path}:{line}: {language} block: {failure or 'ok'}")
            if failure:
                tail = "\n".join(output.splitlines()[-25:])
                print(f"{path}:{line}: the {language} block failed ({failure}):\n{text}--- its output:\n{tail}")
                return 1
            ran += 1
            count += len(commands(text)) if language == "sh" else 1
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"{path}: {count} commands in {ran} blocks ran, {skipped} blocks marked norun")
    if ran == 0:
        print(f"{path}: no runnable block: nothing was checked")
        return 2
    return 0


def self_test(args):
    """A guide with a renamed key is refused; the same guide spelled right passes."""
    folder = tempfile.mkdtemp(prefix="polka-docs-self.")
    try:
        guide = os.path.join(folder, "guide.md")
        results = {}
        for key in ("learner.eta", "learner.etta"):
            with open(guide, "w") as f:
                f.write(f"# A guide\n\n```sh\npolka run --set net.agents=4 --set {key}=0.2 \\\n"
                        "    --set run.output=r.h5\npolka report r.h5\n```\n\n```sh norun\nfalse\n```\n")
            results[key] = check_file(guide, args)
        if results != {"learner.eta": 0, "learner.etta": 1}:
            print(f"self-test: expected a pass and a refusal, got {results}")
            return 1
        print("self-test: the renamed key was refused, the right one passed")
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="Markdown files, each in its own scratch folder")
    parser.add_argument("--polka", required=True, help="the polka under test")
    parser.add_argument("--source", required=True, help="the source tree (its experiments/, graphs/, …)")
    parser.add_argument("--python", help="the build's python/ folder (the package, for PYTHONPATH)")
    parser.add_argument("--interpreter", default=sys.executable,
                        help="the python3 of the blocks (the one with numpy, h5py, …)")
    parser.add_argument("--small", nargs="*", default=list(SMALL), help="settings appended to polka run")
    parser.add_argument("--timeout", type=float, default=300, help="seconds a block may take")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folders")
    parser.add_argument("--verbose", action="store_true", help="a line per block")
    parser.add_argument("--self-test", action="store_true", help="check that the check can fail")
    args = parser.parse_args()
    args.polka = os.path.abspath(args.polka)
    args.source = os.path.abspath(args.source)
    args.python = os.path.abspath(args.python) if args.python else None
    if args.self_test:
        return self_test(args)
    status = 0
    for path in args.files:
        status = max(status, check_file(path, args))
    return status


if __name__ == "__main__":
    sys.exit(main())
