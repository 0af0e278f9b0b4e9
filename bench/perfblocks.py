#!/usr/bin/env python3
"""Where, within one function, the model's cycles and perf's samples differ.

  bench/perfblocks.py PROFILE FUNCTION NATIVE PERF_DATA [--top N]
                      [--profview PATH]

PROFILE is an instrumented run's profile, NATIVE the same program built
without profinst (as bench/programs.py builds it: from the same objects,
-no-pie, so that perf's addresses are link-time ones), PERF_DATA a `perf
record` of NATIVE (bench/programs.py --keep leaves all four in its
directory).  Each of FUNCTION's blocks, by its offset in the function: its
share of the function's block cycles (`profview annotate --disasm`, with
its mispredictions and memory waits under --branch-sim and --cache-sim)
against its share of the function's perf samples (`perf annotate`),
largest differences first, and the total variation distance between the
two distributions.  perf's samples land after the instruction that held
retirement up (skid), often in the next block: a block the model charges
and perf does not, followed by one perf charges and the model does not, is
usually one cost in two places.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model_blocks(profview, profile, func):
    """[(offset in function, executions, cycles, [instruction text])]"""
    out = subprocess.run([profview, "annotate", profile, func, "--disasm"], capture_output=True, text=True,
                         check=True).stdout
    blocks, cur = [], None
    for ln in out.splitlines():
        m = re.match(r"[|#] block \S+: (\d+) executions, (\d+) cycles", ln)
        if m:
            # with what the simulations charged the block (--branch-sim,
            # --cache-sim), as annotate says it
            sim = sum(int(x) for x in re.findall(r"mispredicted \d+ times \([\d.]+%\): (\d+) cycles", ln))
            sim += sum(int(x) for x in re.findall(r"waiting for memory (\d+) cycles", ln))
            cur = [None, int(m.group(1)), int(m.group(2)) + sim, []]
            blocks.append(cur)
            continue
        m = re.match(r"\s+[A-Za-z_][\w.]*?\s*\+(\d+)\s+(.*)", ln)
        if m and cur is not None:
            if cur[0] is None:
                cur[0] = int(m.group(1))
            cur[3].append(m.group(2).strip())
    return sorted(b for b in blocks if b[0] is not None)


def perf_shares(native, perf_data, func):
    """{offset in function: percent of the function's samples}"""
    start = None
    for ln in subprocess.run(["nm", native], capture_output=True, text=True, check=True).stdout.splitlines():
        f = ln.split()
        if len(f) == 3 and f[2] == func:
            start = int(f[0], 16)
    if start is None:
        sys.exit("perfblocks: %s is not in %s" % (func, native))
    out = subprocess.run(["perf", "annotate", "-i", perf_data, "--stdio", "-s", func], capture_output=True,
                         text=True).stdout
    pct = {}
    for ln in out.splitlines():
        m = re.match(r"\s+([0-9.]+) :\s+([0-9a-f]+):", ln)
        if m:
            pct[int(m.group(2), 16) - start] = float(m.group(1))
    return pct


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("function")
    ap.add_argument("native")
    ap.add_argument("perf_data")
    ap.add_argument("--top", type=int, default=25, help="blocks to list (default 25)")
    ap.add_argument("--profview", default=os.path.join(ROOT, "build", "display", "profview"))
    a = ap.parse_args()
    blocks = model_blocks(a.profview, a.profile, a.function)
    if not blocks:
        sys.exit("perfblocks: profview has no blocks of %s" % a.function)
    pct = perf_shares(a.native, a.perf_data, a.function)
    starts = [b[0] for b in blocks]
    per = [0.0] * len(blocks)
    for off, p in pct.items():
        i = bisect.bisect_right(starts, off) - 1
        if i >= 0:
            per[i] += p
    tot_c, tot_p = sum(b[2] for b in blocks), sum(per)
    if not tot_c or not tot_p:
        sys.exit("perfblocks: no cycles (%d) or no samples (%.1f%%) in %s" % (tot_c, tot_p, a.function))
    rows = [(100.0 * b[2] / tot_c, 100.0 * p / tot_p, b) for b, p in zip(blocks, per)]
    print("%s: %d block cycles in %d blocks; total variation distance %.3f" %
          (a.function, tot_c, len(blocks), sum(abs(m - p) for m, p, _ in rows) / 200))
    print("%7s %7s %7s %8s %10s %9s  %s" % ("model%", "perf%", "diff", "offset", "runs", "cyc/run", "instructions"))
    rows.sort(key=lambda r: -abs(r[0] - r[1]))
    for m, p, b in rows[:a.top]:
        print("%7.2f %7.2f %+7.2f %8s %10d %9.2f  %s" % (m, p, m - p, "+%d" % b[0], b[1], b[2] / max(b[1], 1),
                                                         " ; ".join(b[3][:5]) + (" ..." if len(b[3]) > 5 else "")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
