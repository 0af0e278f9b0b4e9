#!/usr/bin/env python3
"""How profview's time grows with a profile's size: programs of N
generated functions (4 000, 40 000, 200 000 by default), each instrumented
and run once, then every view and export of their profiles timed, with
`diff` of two runs and `merge` of 500 runs of one small program.

  bench/large_profiles.py [--build DIR] [--sizes 4000,40000,200000]
                          [--profview PATH] [--cache DIR] [--merge N]

The programs are a tree of functions f_0 ... f_{N-1} (f_i calls
f_{16i+1} ... f_{16i+16}, each once per call of f_i) and a helper that
f_i calls i % 3 times, and rand_r from every fifth: 2N CCT nodes or so,
N + 2 functions, and two (the helper and <external:rand_r>) with N * 2/3
and N / 5 callers.  Sources are split into files of 2 000
functions, compiled with gcc -O2 (so that each function's last call is a
tail call: a jump), instrumented with --cpu=instructions and
cached under --cache (the 200 000-function program takes minutes to build
once).  --profview times another profview binary on the same profiles
(a build of an older tree, say), so that two can be compared side by side.

Prints each command's wall and CPU time (user + system; the least of
--runs runs) per size, and the ratio of each larger size's CPU time to the
smallest's against the ratio of their function counts (linear growth: the
two are equal)."""
import argparse
import concurrent.futures as cf
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FANOUT = 16
PER_FILE = 2000


def children(i, n):
    return [c for c in range(FANOUT * i + 1, FANOUT * i + FANOUT + 1) if c < n]


def gen_sources(n, d):
    """Writes the program's .c files into d; returns their paths.  Each
    declares only what it calls, so that a file compiles as fast at any N."""
    paths = []
    for lo in range(0, n, PER_FILE):
        p = os.path.join(d, "part%d.c" % (lo // PER_FILE))
        with open(p, "w") as f:
            f.write("#include <stdlib.h>\nvoid helper(unsigned *acc);\n")
            for i in range(lo, min(n, lo + PER_FILE)):
                for c in children(i, n):
                    f.write("void f_%d(unsigned *acc);\n" % c)
                f.write("__attribute__((noipa)) void f_%d(unsigned *acc)\n{\n" % i)
                f.write("\t*acc = *acc * 31u + %du;\n" % i)
                for c in children(i, n):
                    f.write("\tf_%d(acc);\n" % c)
                for _ in range(i % 3):
                    f.write("\thelper(acc);\n")
                if i % 5 == 0:
                    f.write("\t*acc += (unsigned)rand_r(acc);\n")
                f.write("}\n")
        paths.append(p)
    main = os.path.join(d, "main.c")
    with open(main, "w") as f:
        f.write("#include <stdlib.h>\nvoid f_0(unsigned *acc);\n"
                "__attribute__((noipa)) void helper(unsigned *acc) { *acc ^= *acc >> 3; }\n"
                "int main(int argc, char **argv)\n{\n\tunsigned acc = 1;\n"
                "\tint rounds = argc > 1 ? atoi(argv[1]) : 1;\n"
                "\tfor (int r = 0; r < rounds; r++)\n\t\tf_0(&acc);\n"
                "\treturn (int)(acc & 0);\n}\n")
    paths.append(main)
    return paths


def build_program(n, cache, profinst):
    """The instrumented program of n functions, built once into cache."""
    d = os.path.join(cache, "v3-n%d" % n)
    exe = os.path.join(d, "prog.prof")
    if os.path.exists(exe):
        return exe
    os.makedirs(d, exist_ok=True)
    srcs = gen_sources(n, d)
    objs = [s[:-2] + ".o" for s in srcs]
    with cf.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        for r in ex.map(lambda so: subprocess.run(["gcc", "-O2", "-g", "-c", so[0], "-o", so[1]]),
                        zip(srcs, objs)):
            r.check_returncode()
    subprocess.run([profinst, "-q", "--cpu=instructions"] + objs + ["-o", exe + ".tmp"], check=True)
    os.rename(exe + ".tmp", exe)
    return exe


def run_profile(exe, out, *args):
    if not os.path.exists(out):
        subprocess.run([exe] + list(args), env=dict(os.environ, PROFINST_OUTPUT=out), check=True)
    return out


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, runs):
    """The least (wall, CPU) seconds of runs runs: on a shared machine the
    CPU time (user + system) is the steadier of the two."""
    wall = cpus = None
    for _ in range(runs):
        t, c = time.perf_counter(), cpu()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        dt, dc = time.perf_counter() - t, cpu() - c
        wall = dt if wall is None or dt < wall else wall
        cpus = dc if cpus is None or dc < cpus else cpus
    return wall, cpus


def commands(pv, pf, pf2, tmp):
    o = os.path.join(tmp, "out")
    cmds = [("report", [pv, "report", pf]),
            ("report json", [pv, "report", pf, "--format=json"]),
            ("tree", [pv, "tree", pf]),
            ("callgraph", [pv, "callgraph", pf]),
            ("detail helper", [pv, "detail", pf, "helper"]),
            ("detail f_0", [pv, "detail", pf, "f_0"])]
    for fmt in ("callgrind", "pprof", "folded", "speedscope", "chrome"):
        cmds.append(("export " + fmt, [pv, "export", pf, "--format=" + fmt, "-o", o]))
    cmds += [("graph", [pv, "graph", pf]),
             ("html", [pv, "html", pf, "-o", o + ".html"]),
             ("diff", [pv, "diff", pf, pf2])]
    return cmds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--profview", help="the profview to time (default: the build's)")
    ap.add_argument("--sizes", default="4000,40000,200000")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "profinst-large-bench"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--merge", type=int, default=500, help="profiles merged (0: none)")
    ap.add_argument("--skip", default="", help="comma-separated commands not to time")
    args = ap.parse_args()
    profinst = os.path.join(args.build, "rewriter", "profinst")
    pv = args.profview or os.path.join(args.build, "display", "profview")
    sizes = [int(s) for s in args.sizes.split(",")]
    skip = set(s for s in args.skip.split(",") if s)
    os.makedirs(args.cache, exist_ok=True)
    times = {}
    with tempfile.TemporaryDirectory(prefix="pi-large-") as tmp:
        for n in sizes:
            exe = build_program(n, args.cache, profinst)
            d = os.path.dirname(exe)
            pf = run_profile(exe, os.path.join(d, "run1.pf"), "1")
            pf2 = run_profile(exe, os.path.join(d, "run2.pf"), "2")
            print("%d functions (%d bytes of profile)" % (n, os.path.getsize(pf)), flush=True)
            for name, cmd in commands(pv, pf, pf2, tmp):
                if name in skip:
                    continue
                w, c = timed(cmd, args.runs)
                times.setdefault(name, {})[n] = c
                print("  %-18s %8.3f s wall %8.3f s CPU" % (name, w, c), flush=True)
        if args.merge:
            exe = build_program(200, args.cache, profinst)
            d = os.path.join(args.cache, "merge")
            os.makedirs(d, exist_ok=True)
            pfs = [run_profile(exe, os.path.join(d, "m%d.pf" % i), str(1 + i % 7)) for i in range(args.merge)]
            w, c = timed([pv, "merge"] + pfs + ["-o", os.path.join(tmp, "merged.pf")], args.runs)
            print("merge of %d profiles of a 200-function program: %8.3f s wall %8.3f s CPU" % (args.merge, w, c))
            w, c = timed([pv, "report", os.path.join(tmp, "merged.pf")], args.runs)
            print("report of the merged profile:                  %8.3f s wall %8.3f s CPU" % (w, c))
    lo = sizes[0]
    for hi in sizes[1:]:
        print("\nCPU time(%d) / CPU time(%d), against %.1fx the functions:" % (hi, lo, hi / lo))
        for name, by in times.items():
            if lo in by and hi in by and by[lo] > 0:
                print("  %-18s %8.1fx" % (name, by[hi] / by[lo]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
