#!/usr/bin/env python3
"""How close an external's measured time comes to its native time when it
calls back into instrumented code: qsort of 20,000 ints with an
instrumented comparator (tests/os/050_qsort_time.c).

  bench/qsort_external.py [--build DIR] [--runs N] [--cpu MODEL]
                          [--args 'PROFINST OPTIONS']

Native qsort's own time is qsort timed less as many comparator calls timed
alone through a pointer; the instrumented figure is the <external:qsort>
row's least self over its five sorts (--args=--timed), or its self over
one sort (the default, counted: no per-call least), back in rdtsc ticks.  Runs native
and instrumented alternately and prints both medians and their ratio (1.0:
the callbacks' time and the stubs' cost are left out exactly)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--cpu", default="zen5")
    ap.add_argument("--args", default="", help="more options for profinst (--timed)")
    args = ap.parse_args()
    profinst = os.path.join(args.build, "rewriter", "profinst")
    profview = os.path.join(args.build, "display", "profview")
    src = os.path.join(ROOT, "tests", "os", "050_qsort_time.c")
    with tempfile.TemporaryDirectory(prefix="pi-qsort-") as tmp:
        obj, nat = os.path.join(tmp, "q.o"), os.path.join(tmp, "q")
        subprocess.run(["gcc", "-O2", "-c", src, "-o", obj], check=True)
        subprocess.run(["gcc", obj, "-o", nat], check=True)
        exe = os.path.join(tmp, "q.prof")
        subprocess.run([profinst, "-q", "--cpu=" + args.cpu, obj, "-o", exe] + args.args.split(), check=True)
        native, inst = [], []
        # the timed runtime keeps each sort's time (min_self, the least of
        # five); a counted profile only their sum: one sort a run
        rounds = 5 if "--timed" in args.args.split() else 1
        for i in range(args.runs):
            sort, loop, calls = [int(x) for x in subprocess.run([nat, "count"], capture_output=True,
                                                                 text=True, check=True).stdout.split()[:3]]
            native.append(sort - loop)
            pf = os.path.join(tmp, "p%d.pf" % i)
            subprocess.run([exe, str(calls), str(rounds)], env=dict(os.environ, PROFINST_OUTPUT=pf), check=True,
                           stdout=subprocess.DEVNULL)
            pj = json.loads(subprocess.run([profview, "report", pf, "--format=json"], capture_output=True,
                                           text=True, check=True).stdout)
            q = [f for f in pj["functions"] if f["name"] == "<external:qsort>"][0]
            # a counted profile (profinst --counts) keeps no per-call least
            least = q["min_self_cycles"] if q["min_self_cycles"] is not None else q["self_cycles"] / q["calls"]
            inst.append(float(least) * pj["tsc_per_kcycle"] / 1000.0)
        n, m = statistics.median(native), statistics.median(inst)
        print("native qsort's own time      %12.0f ticks (median of %d)" % (n, len(native)))
        print("<external:qsort> row's self  %12.0f ticks (median of %d)" % (m, len(inst)))
        print("ratio                        %12.2f" % (m / n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
