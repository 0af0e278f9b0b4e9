#!/usr/bin/env python3
"""What inline frames cost profinst: its time and the map's size for
objects compiled with -O2 -g, side by side with the same objects without
.debug_info (so without inline frames; the line tables stay).

  bench/inline_cost.py [--build DIR] [--runs N] [--cc CC]

Compiles the rewriter's own sources (the larger ones hold hundreds of
inlined calls each), then runs `profinst -c` on each object with and
without .debug_info alternately N times and prints the best CPU time
(user + system) of each, their ratio, and the sizes of the maps written.
Timing, so not a test: the machines are shared, only the ratio of runs
taken side by side means anything."""
import argparse
import os
import resource
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["cfg.c", "layout.c", "model.c", "dwarfinfo.c", "meta.c", "external.c"]


def cpu_time(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def map_of(obj, tmp):
    """The size of the map profinst -c wrote, and how many inlined calls it holds."""
    blob = os.path.join(tmp, "map.bin")
    subprocess.run(["objcopy", "--dump-section", "profinst_map=" + blob, obj], check=True)
    m = open(blob, "rb").read()
    h = struct.unpack_from("<26I", m, 0)
    return len(m), h[22] if h[17] & 0x20 else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cc", default="gcc")
    args = ap.parse_args()
    profinst = os.path.join(args.build, "rewriter", "profinst")
    inc = ["-I" + os.path.join(ROOT, d) for d in ("rewriter", "libprof", "runtime", "x86")]
    print("%-12s %7s %9s %9s %7s %9s %9s" % ("object", "inlined", "with", "without", "ratio", "map with",
                                             "without"))
    print("%-12s %7s %19s %7s %19s" % ("", "calls", "best CPU time (s)", "", "map bytes"))
    with tempfile.TemporaryDirectory(prefix="pi-inline-bench-") as tmp:
        tot = [0.0, 0.0]
        for src in SOURCES:
            obj = os.path.join(tmp, src + ".o")
            bare = os.path.join(tmp, src + ".bare.o")
            subprocess.run([args.cc, "-O2", "-g"] + inc + ["-c", os.path.join(ROOT, "rewriter", src), "-o", obj],
                           check=True)
            # (and what names .debug_info: gcc's address ranges, its locations' entry values)
            subprocess.run(["objcopy"] + ["--remove-section=" + s for s in (
                ".debug_info", ".rela.debug_info", ".debug_aranges", ".rela.debug_aranges", ".debug_loclists",
                ".rela.debug_loclists", ".debug_loc", ".rela.debug_loc")] + [obj, bare], check=True)
            best = [1e9, 1e9]
            for _ in range(args.runs):
                for k, o in enumerate((obj, bare)):
                    best[k] = min(best[k], cpu_time([profinst, "-q", "-c", o, "-o", os.path.join(tmp, "out.o")]))
            sizes = []
            for o in (obj, bare):
                subprocess.run([profinst, "-q", "-c", o, "-o", os.path.join(tmp, "out.o")], check=True)
                sizes.append(map_of(os.path.join(tmp, "out.o"), tmp))
            tot = [tot[0] + best[0], tot[1] + best[1]]
            print("%-12s %7d %9.3f %9.3f %6.3fx %9d %9d" % (src, sizes[0][1], best[0], best[1], best[0] / best[1],
                                                          sizes[0][0], sizes[1][0]))
        print("%-12s %7s %9.3f %9.3f %6.3fx" % ("all", "", tot[0], tot[1], tot[0] / tot[1]))


if __name__ == "__main__":
    main()
