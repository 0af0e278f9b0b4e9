#!/usr/bin/env python3
"""Run-time overhead of instrumented programs against native ones.

  bench/overhead.py [--build DIR] [--runs N] [--cpu MODEL]
                    [--baseline DIR] [--only NAME,...]

Builds the real-archive drivers of tests/real natively and with profinst,
runs native and instrumented alternately (the machines are shared and
noisy: only ratios measured side by side in one run mean anything), and
prints the best-of-N wall time of each and their ratio, then the geometric
mean of the ratios.  --baseline DIR also instruments with another build's
profinst (another tree's build/, say) and runs it in the same rotation:
its ratio and the new over the old are printed beside (CPU time, user and
system, of each run: less moved by the machine's other work than wall
time).  --only runs the drivers named (zlib, bzip2, crypto, sqlite3,
lua5.4)."""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import real  # noqa: E402


def build(tmp, profinst, cpu, name, driver, archive, cflags, libs):
    obj = os.path.join(tmp, name + ".o")
    subprocess.run(["gcc", "-O2", "-c", os.path.join(ROOT, "tests", "real", driver), "-o", obj] + cflags,
                   check=True)
    ar = os.path.join(real.LIBDIR, archive)
    nat = os.path.join(tmp, name + ".native")
    subprocess.run(["gcc", obj, ar] + libs + ["-o", nat], check=True)
    prof = os.path.join(tmp, name + ".prof")
    subprocess.run([profinst, "-q", "--cpu=" + cpu, obj, ar] + libs + ["-o", prof], check=True)
    return nat, prof


# repetitions passed to each driver: about a second of native work
SCALE = {"zlib": "12", "sqlite3": "400", "lua5.4": "150", "bzip2": "8", "crypto": "30"}


def timed(exe, arg, env, cwd, cpu=False):  # noqa: D103
    t = time.perf_counter()
    p = subprocess.Popen([exe, arg], env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise SystemExit("%s %s: status %d" % (exe, arg, status))
    return ru.ru_utime + ru.ru_stime if cpu else time.perf_counter() - t


def workloads(a):
    """The drivers to run: tests/real's cases that are workloads (not the
    libstdc++ correctness case), those --only names."""
    return [c for c in real.CASES if c[0] in SCALE and (not a.only or c[0] in a.only.split(","))]


def best_times(exes, case, a, env, tmp, cpu):
    """Each program's least time over --runs rounds, the programs in turn."""
    cenv = dict(env, **real.ENV.get(case[0], {}))
    t = {exe: [] for exe in exes}
    for _ in range(a.runs):
        for exe in exes:
            t[exe].append(timed(exe, SCALE[case[0]], cenv, tmp, cpu))
    return [min(t[exe]) for exe in exes]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--cpu", default="host")
    ap.add_argument("--baseline", help="another build directory whose profinst runs beside")
    ap.add_argument("--only", help="the drivers to run, comma-separated")
    a = ap.parse_args()
    profinst = os.path.join(a.build, "rewriter", "profinst")
    baseline = a.baseline and os.path.join(a.baseline, "rewriter", "profinst")
    tmp = tempfile.mkdtemp(prefix="pi-bench-")
    env = dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "bench.prof"))
    try:
        if baseline:
            print("%-10s %12s %10s %10s %8s   (CPU time, best of %d)" % ("workload", "native s", "baseline",
                                                                        "this", "this/base", a.runs))
        else:
            print("%-10s %12s %12s %8s" % ("workload", "native s", "profinst s", "ratio"))
        ratios = []
        for case in workloads(a):
            if baseline:
                base = os.path.join(tmp, case[0] + ".base")
                shutil.copy(build(tmp, baseline, a.cpu, *case)[1], base)  # (the same path as this one's)
                nat, prof = build(tmp, profinst, a.cpu, *case)
                n, b, p = best_times([nat, base, prof], case, a, env, tmp, cpu=True)
                print("%-10s %12.4f %9.2fx %9.2fx %8.3f" % (case[0], n, b / n, p / n, p / b), flush=True)
                continue
            nat, prof = build(tmp, profinst, a.cpu, *case)
            n, p = best_times([nat, prof], case, a, env, tmp, cpu=False)
            ratios.append(p / n)
            print("%-10s %12.4f %12.4f %7.2fx" % (case[0], n, p, p / n), flush=True)
        if ratios:
            print("%-10s %12s %12s %7.2fx" % ("geomean", "", "", math.exp(sum(map(math.log, ratios)) / len(ratios))))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
