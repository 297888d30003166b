"""What the tree checkers' self-tests share (floors_check.py, citations_check.py): a small tree
written into a folder, the checker run on it, and a line per expectation met or not."""

import subprocess
import sys


def write_tree(root, tree):
    """Writes each {path from root: text} of tree under root."""
    for name, text in tree.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def run_checker(script, root, *options):
    """The checker script's exit status and output lines on the tree at root."""
    done = subprocess.run([sys.executable, str(script), "--root", str(root), *options],
                          capture_output=True, text=True)
    return done.returncode, done.stdout.splitlines()


def report_results(results):
    """Prints ok or FAIL per (what, got, want); 0 when every one was met, else 1."""
    for what, got, want in results:
        print(f"ok   {what}" if got == want else f"FAIL {what}: got {got}, want {want}")
    return 0 if all(got == want for _, got, want in results) else 1
