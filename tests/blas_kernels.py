#!/usr/bin/env python3
"""blas_kernels.py BUILD_DIR [CORE ...]: the numerical tests again under other BLAS kernels.

The tests labelled `numeric` (tests/CMakeLists.txt: the maths' unit tests and the MPI run
against the serial reference) run once per OpenBLAS kernel family named (OPENBLAS_CORETYPE;
default: every family of FAMILIES that this CPU can run but the one OpenBLAS picks for it, which
the plain pass ran: Prescott's SSE3 on any x86-64, Sandybridge, Haswell and SkylakeX where the
CPU has AVX, AVX2, AVX-512; Nehalem's SSE4.2 is left out, one SSE family beside the AVX ones
being enough to show a tolerance that is not tuned, at 11 tests a pass), and once, first, with
OPENBLAS_NUM_THREADS unset (OpenBLAS's own thread count, where ctest pins 1). A kernel family
rounds differently from the machine's own (other blocking, FMA or not), so a tolerance tuned on
one machine fails here; a derived one holds. Every test that loads OpenBLAS prints the core it
chose (OPENBLAS_VERBOSE=2; the codec and privacy tests load none), and a core other than the
one named fails, as does a pass in which no test named it: a DYNAMIC_ARCH-less OpenBLAS
ignores OPENBLAS_CORETYPE, and the check would then prove nothing.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

# OpenBLAS's x86-64 kernel families and the CPU flag (/proc/cpuinfo) each needs.
FAMILIES = [("Prescott", "sse3"), ("Sandybridge", "avx"), ("Haswell", "avx2"), ("SkylakeX", "avx512f")]
# Cores whose double-precision kernels are another family's (OpenBLAS's kernel/x86_64 KERNEL
# files): the plain pass ran that family already.
SAME_KERNELS = {"Cooperlake": "SkylakeX", "SapphireRapids": "SkylakeX", "Zen": "Haswell"}


def runnable_families():
    try:
        with open("/proc/cpuinfo") as info:
            flags = set(re.search(r"^flags\s*:(.*)$", info.read(), re.M).group(1).split())
    except (OSError, AttributeError):
        flags = set()
    if "pni" in flags:  # the kernel calls SSE3 "pni"
        flags.add("sse3")
    return [family for family, flag in FAMILIES if flag in flags]


def numeric_tests(build):
    shown = subprocess.run(["ctest", "--show-only=json-v1", "-L", "numeric"], cwd=build,
                           check=True, capture_output=True, text=True).stdout
    tests = json.loads(shown)["tests"]
    if not tests:
        sys.exit(f"blas_kernels: no test labelled numeric in {build}")
    return tests


def properties(test):
    return {p["name"]: p["value"] for p in test.get("properties", [])}


def run_one(test, core):
    """(name, ok, seconds, output) of one test with OPENBLAS_CORETYPE = core (None: unset threads)."""
    props = properties(test)
    env = dict(os.environ)
    for assignment in props.get("ENVIRONMENT", []):
        key, _, value = assignment.partition("=")
        env[key] = value
    env["OPENBLAS_VERBOSE"] = "2"
    if core is None:  # the plain pass's kernel (the machine's, or OPENBLAS_CORETYPE's)
        env.pop("OPENBLAS_NUM_THREADS", None)
    else:
        env["OPENBLAS_CORETYPE"] = core
    start = time.monotonic()
    done = subprocess.run(test["command"], cwd=props.get("WORKING_DIRECTORY", "."), env=env,
                          capture_output=True, text=True, timeout=props.get("TIMEOUT", 300))
    seconds = time.monotonic() - start
    output = done.stdout + done.stderr
    cores = set(re.findall(r"^Core: (\S+)", output, re.M))
    ok = done.returncode == 0
    if core is not None and cores and cores != {core}:
        ok = False
        output += f"\nblas_kernels: OpenBLAS chose core {sorted(cores)}, not {core}\n"
    return test["name"], ok, seconds, output, cores


def run_pass(tests, core, failed):
    """Runs every test under core (None: OpenBLAS's own choice and thread count); returns
    the cores OpenBLAS named."""
    label = f"OPENBLAS_CORETYPE={core}" if core else "OPENBLAS_NUM_THREADS unset"
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda t: run_one(t, core), tests))
    named = set()
    for name, ok, seconds, output, cores in results:
        print(f"{label}: {name} {'passed' if ok else 'FAILED'} in {seconds:.1f} s"
              + ("" if cores else " (loads no OpenBLAS)"))
        named |= cores
        if not ok:
            failed.append(f"{name} ({label})")
            print(output[-4000:])
    if core is not None and not named:
        failed.append(f"every test ({label}: OpenBLAS named no core; is it built DYNAMIC_ARCH?)")
    print(f"blas_kernels: {label}: {len(tests)} tests in {time.monotonic() - start:.0f} s")
    return named


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: blas_kernels.py BUILD_DIR [CORE ...]")
    build = sys.argv[1]
    tests = numeric_tests(build)
    failed = []
    own = run_pass(tests, None, failed)  # the plain pass's core, which it ran already
    own |= {SAME_KERNELS[c] for c in own if c in SAME_KERNELS}
    cores = sys.argv[2:] or [f for f in runnable_families() if f not in own]
    if not cores:
        sys.exit("blas_kernels: no other OpenBLAS kernel family found for this CPU (/proc/cpuinfo)")
    for core in cores:
        run_pass(tests, core, failed)
    if failed:
        sys.exit("blas_kernels: failed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
