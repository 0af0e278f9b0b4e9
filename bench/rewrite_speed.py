#!/usr/bin/env python3
"""How long profinst takes to instrument an archive, against objcopy
copying the same archive (the floor of reading and writing it).

  bench/rewrite_speed.py [--build DIR] [--runs N] [--cpu MODEL] [ARCHIVE...]

Runs `objcopy A copy.a` and `profinst -c A -o inst.a` alternately N times
(the machines are shared and noisy: only ratios measured side by side
mean anything) and prints the best CPU time (user + system) and wall time
of each and their ratios.  Default archives: Debian's libcrypto.a,
libsqlite3.a and liblua5.4.a."""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBDIR = "/usr/lib/x86_64-linux-gnu"
DEFAULT = ["libcrypto.a", "libsqlite3.a", "liblua5.4.a"]


def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cpu", default="zen5")
    ap.add_argument("archives", nargs="*")
    args = ap.parse_args()
    profinst = os.path.join(args.build, "rewriter", "profinst")
    archives = args.archives or [os.path.join(LIBDIR, a) for a in DEFAULT]
    print("%-14s %9s %9s %7s   %9s %9s %7s" % ("archive", "objcopy", "profinst", "ratio",
                                                 "objcopy", "profinst", "ratio"))
    print("%-14s %27s   %27s" % ("", "best CPU time (s)", "best wall time (s)"))
    with tempfile.TemporaryDirectory(prefix="pi-rwspeed-") as tmp:
        for ar in archives:
            if not os.path.exists(ar):
                print("%-14s (not installed)" % os.path.basename(ar))
                continue
            best = {"objcopy": [1e9, 1e9], "profinst": [1e9, 1e9]}
            for _ in range(args.runs):
                for name, cmd in (("objcopy", ["objcopy", ar, os.path.join(tmp, "copy.a")]),
                                  ("profinst", [profinst, "-q", "--cpu=" + args.cpu, "-c", ar, "-o",
                                                os.path.join(tmp, "inst.a")])):
                    cpu, wall = timed(cmd)
                    best[name] = [min(best[name][0], cpu), min(best[name][1], wall)]
            o, p = best["objcopy"], best["profinst"]
            print("%-14s %9.3f %9.3f %6.1fx   %9.3f %9.3f %6.1fx" % (
                os.path.basename(ar), o[0], p[0], p[0] / max(o[0], 1e-3), o[1], p[1], p[1] / max(o[1], 1e-3)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
