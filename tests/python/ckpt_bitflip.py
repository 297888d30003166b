#!/usr/bin/env python3
"""ckpt_bitflip.py POLKA DIR [--flips N] [--seed S]: the bit-flip campaign.

A checkpoint of a small decentralized run (3 agents, KOMP, metric rows) is resumed once
undamaged (the reference) and then N times with one random bit flipped (a uniform byte of
the file, a uniform bit of it; seeded). Each damaged resume must be either
  refused    exit 1 with one line "polka run: cannot resume from 'FILE'..." naming the file, or
  identical  exit 0 and the same run file as the reference (compare_runs.py: every metric but
             the timers bit for bit, every model byte for byte): the flip hit bytes that HDF5
             never reads.
Anything else is counted and fails the campaign: a silent difference (exit 0, another run), a
refusal that does not name the file, a crash (a signal), a hang (no end within 60 s). Prints
one line per class and exits 1 when a failure class is not 0. tests/checkpoint_crafted.cmake
runs 30 flips; the figures quoted for 1000 come from `ckpt_bitflip.py build/polka DIR --flips
1000`."""
import argparse
import contextlib
import io
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_runs  # noqa: E402

SETTINGS = ["--set", "data.n_train=600", "--set", "data.n_test=300", "--set", "run.log_every=150",
            "--set", "net.agents=3", "--set", "learner.budget=40"]
FAILURES = ("silent difference", "unnamed refusal", "crash", "hang")


def run(polka, args, cwd, timeout=60):
    """(exit code or 'hang', stderr) of polka run ARGS."""
    try:
        done = subprocess.run([polka, "run", "--quiet", *args], cwd=cwd, capture_output=True,
                              text=True, timeout=timeout)
        return done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        return "hang", ""


def same_run(a, b):
    sys.argv = ["compare_runs.py", a, b]
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            compare_runs.main()
        except SystemExit as exit_:
            return exit_.code in (0, None)
    return True


def resume(polka, ckpt, out, cwd):
    # the checkpoint's own settings (--resume alone), no checkpoints of its own
    return run(polka, ["--resume", ckpt, "--set", f"run.output={out}", "--set",
                       "run.checkpoint_every=0", "--set", "run.checkpoint=scratch.ckpt"], cwd)


def classify(code, err, name, same):
    if code == "hang":
        return "hang"
    if code < 0 or code > 1:
        return "crash"
    if code == 0:
        return "identical" if same() else "silent difference"
    lines = [line for line in err.splitlines() if line.startswith("polka")]
    named = len(lines) == 1 and lines[0].startswith(f"polka run: cannot resume from '{name}'")
    return "refused" if named else "unnamed refusal"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("polka")
    parser.add_argument("dir")
    parser.add_argument("--flips", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    polka, work = os.path.abspath(args.polka), args.dir
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    code, err = run(polka, SETTINGS + ["--set", "run.checkpoint_every=130", "--set",
                                       "run.checkpoint=good.ckpt", "--set", "run.output=full.h5"],
                    work)
    if code != 0:
        sys.exit(f"ckpt_bitflip.py: the run failed: {err}")
    code, err = resume(polka, "good.ckpt", "reference.h5", work)
    if code != 0 or not same_run(f"{work}/full.h5", f"{work}/reference.h5"):
        sys.exit(f"ckpt_bitflip.py: the undamaged resume failed or differs: {err}")
    good = open(f"{work}/good.ckpt", "rb").read()
    rng = random.Random(args.seed)
    counts = {}
    for flip in range(args.flips):
        offset, bit = rng.randrange(len(good)), rng.randrange(8)
        damaged = bytearray(good)
        damaged[offset] ^= 1 << bit
        with open(f"{work}/flipped.ckpt", "wb") as f:
            f.write(damaged)
        code, err = resume(polka, "flipped.ckpt", "flipped.h5", work)
        kind = classify(code, err, "flipped.ckpt",
                        lambda: same_run(f"{work}/reference.h5", f"{work}/flipped.h5"))
        counts[kind] = counts.get(kind, 0) + 1
        if kind in FAILURES:
            keep = f"{work}/{kind.replace(' ', '_')}-{offset}-{bit}.ckpt"
            shutil.copy(f"{work}/flipped.ckpt", keep)
            print(f"flip {flip}: byte {offset} bit {bit}: {kind} (exit {code}) {err.strip()[:300]}"
                  f" -> {keep}")
    print(f"{args.flips} single-bit flips of a {len(good)}-byte checkpoint (seed {args.seed}):")
    for kind in ("refused", "identical") + FAILURES:
        print(f"  {kind:18s} {counts.get(kind, 0)}")
    sys.exit(1 if any(counts.get(kind, 0) for kind in FAILURES) else 0)


if __name__ == "__main__":
    main()
