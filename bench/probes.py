#!/usr/bin/env python3
"""Probes of the core: hand-written blocks measured on this machine beside
profinst's cost for them.

  bench/probes.py [--cpu NAME] [--profinst PATH] [--rounds N] [FILE]

FILE (default bench/probes/CPU.s for the model's CPU, goldencove.s or
zen5.s, else goldencove.s) holds blocks in AT&T syntax, each
after a `## name` line.  Each is assembled with `as`, measured by
bench/blockrun.c exactly as bench/blocks.py measures the archives' blocks
(its header gives the method: steady state, unrolled, TSC converted to core
cycles by a chain of dependent adds, registers pointing to different lines),
twice, and costed by `profinst --cpu=NAME --dump-blocks` (default host:
the model of this machine).  Then bench/probes/callret.c measures calls and
returns, which a block measurement drops, and bench/probes/libc.c short C
library functions (the costs the goldencove and zen5 models fix for them),
and bench/probes/heap.c the paths through glibc's allocator (what zen5
charges malloc, free and realloc), and bench/probes/branch.c what a mispredicted branch costs (the penalty
--branch-sim charges) and which patterns the predictor learns, and
bench/probes/chase.c and bench/probes/bzip2.c what a load that waits for a
load costs from each level of the caches (what --cache-sim charges), and
bench/probes/gather.c what it costs where the core overlaps such loads (a
gather through a streamed index), natively and as --cache-sim models it,
and bench/probes/scatter.c what misses that nothing waits for cost (a
histogram's counts and a scatter's stores at random places), the same way,
and bench/probes/pagefault.c the user time a minor page fault costs (what
the runtime charges each fault, runtime/faults.c).  The measured forms and rules of the Golden Cove and Zen 5 models
(rewriter/model.c) come from these probes, each run on such a machine.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import blocks  # noqa: E402

BZ2 = "/usr/lib/x86_64-linux-gnu/libbz2.a"


def read_probes(path):
    probes, name, body = [], None, []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("## "):
            if name:
                probes.append((name, body))
            name, body = line[3:], []
        elif name and line.strip() and not line.startswith("#"):
            body.append(line.strip())
    if name:
        probes.append((name, body))
    return probes


def assemble(tmp, probes):
    """One object: probe i is function p<i>, its block followed by ret."""
    src = ".text\n"
    for i, (_, body) in enumerate(probes):
        src += ".globl p%d\n.type p%d,@function\np%d:\n%s\nret\n.size p%d,.-p%d\n" % (
            i, i, i, "\n".join(body), i, i)
    s, o = os.path.join(tmp, "probes.s"), os.path.join(tmp, "probes.o")
    with open(s, "w") as f:
        f.write(src)
    subprocess.run(["as", "-o", o, s], check=True)
    return o


def profview_beside(profinst):
    """The profview of the build profinst is from (build/display/)."""
    return os.path.join(os.path.dirname(os.path.dirname(profinst)), "display", "profview")


GATHER_KIB = (32, 256, 2048, 16384, 131072)
SCATTER_KIB = (256, 1024, 4096, 32768, 131072)


def memory_probe(a, tmp, name, sizes, modes):
    """bench/probes/NAME.c (gather.c, scatter.c) natively, and as profinst
    --cache-sim models it: each of modes (the first is the default, the
    others an argument) at each of sizes (KiB)."""
    src = os.path.join(HERE, "probes", name + ".c")
    obj, native, prof = (os.path.join(tmp, name + x) for x in (".o", "", ".prof"))
    subprocess.run(["gcc", "-O2", "-I" + os.path.join(HERE, "probes"), "-c", src, "-o", obj], check=True)
    subprocess.run(["gcc", obj, "-o", native], check=True)
    p = subprocess.run([a.profinst, "--cpu=" + a.cpu, "--cache-sim", obj, "-o", prof], capture_output=True, text=True)
    if p.returncode:
        prof = None  # a model without caches
    profview = profview_beside(a.profinst)
    steps = 4 << 20
    out = "%10s %-7s %8s %8s\n" % ("size", "", "native", "model")
    for kib in sizes:
        for mode in modes:
            args = [str(kib), str(steps)] + ([mode] if mode != modes[0] else [])
            m = subprocess.run([native] + args, capture_output=True, text=True, check=True).stdout.split()
            model = "-"
            if prof:
                pf = os.path.join(tmp, name + ".pf")
                subprocess.run([prof] + args, env=dict(os.environ, PROFINST_OUTPUT=pf), capture_output=True,
                               check=True)
                rep = json.loads(subprocess.run([profview, "report", pf, "--format=json"], capture_output=True,
                                                text=True, check=True).stdout)
                cyc = sum(f["self_cycles"] for f in rep["functions"] if f["symbol"].split(" ")[0] == mode)
                model = "%.2f" % (cyc / 3 / steps)
            out += "%6d KiB %-7s %8s %8s\n" % (kib, mode, m[3], model)
    return out


CALLRET_SHARES = ("lea", "nest", "nest2", "deep", "mix", "hash", "add8", "imul3", "load3", "div")


def calls_attribution(a, tmp, exe):
    """Each function's share of a callret test's time: perf's cpu-clock
    samples of the native probe against the profile of the instrumented
    one (profinst --cpu=a.cpu), for the tests of CALLRET_SHARES."""
    if shutil.which("perf") is None:
        return "(perf is not installed)\n"
    profview = profview_beside(a.profinst)
    src = os.path.join(HERE, "probes", "callret.c")
    obj, prof = os.path.join(tmp, "callret.o"), os.path.join(tmp, "callret.prof")
    subprocess.run(["gcc", "-O2", "-c", "-o", obj, src], check=True)
    subprocess.run([a.profinst, "--cpu=" + a.cpu, obj, "-o", prof], check=True)
    out = ""
    for key in CALLRET_SHARES:
        data = os.path.join(tmp, "callret-%s.perf" % key)
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", data, exe, key],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "sym", "-F", "sample,sym"],
                             capture_output=True, text=True, check=True).stdout
        perf = {}
        for ln in rep.splitlines():
            f = ln.split()
            if len(f) >= 3 and f[0].isdigit() and f[1] == "[.]" and (f[2].startswith("t_") or f[2].startswith("f_")):
                perf[f[2]] = perf.get(f[2], 0) + int(f[0])
        pf = os.path.join(tmp, "callret-%s.pf" % key)
        subprocess.run([prof, key, "300"], env=dict(os.environ, PROFINST_OUTPUT=pf), check=True)
        j = json.loads(subprocess.run([profview, "report", pf, "--format=json"], capture_output=True, text=True,
                                      check=True).stdout)
        model = {f["name"]: f["self_cycles"] for f in j["functions"]
                 if f["name"].startswith("t_") or f["name"].startswith("f_")}
        tp, tm = sum(perf.values()) or 1, sum(model.values()) or 1
        names = sorted(set(perf) | set(model), key=lambda n: -perf.get(n, 0))
        out += "%-6s %s\n" % (key, "  ".join("%s %.2f / %.2f" % (n, perf.get(n, 0) / tp, model.get(n, 0) / tm)
                                              for n in names))
    return out


def main():
    ap = argparse.ArgumentParser(description="measure hand-written blocks beside profinst's cost")
    ap.add_argument("file", nargs="?", default=None)
    ap.add_argument("--cpu", default="host")
    ap.add_argument("--profinst", default=os.path.join(ROOT, "build", "rewriter", "profinst"))
    ap.add_argument("--rounds", type=int, default=3000)
    a = ap.parse_args()
    if a.file is None:
        cpu = blocks.host_model(a.profinst) if a.cpu == "host" else a.cpu
        a.file = os.path.join(HERE, "probes", cpu + ".s")
        if not os.path.exists(a.file):
            a.file = os.path.join(HERE, "probes", "goldencove.s")
    probes = read_probes(a.file)
    with tempfile.TemporaryDirectory() as tmp:
        obj = assemble(tmp, probes)
        out = subprocess.run([a.profinst, "--cpu=" + a.cpu, "--dump-blocks", obj], capture_output=True,
                             text=True, check=True).stdout
        model, body = {}, {}
        for line in out.splitlines():
            f = line.split("\t")
            fn, off = f[1].split("+")
            if off != "0x0":
                continue
            i = int(fn[1:])
            body[i] = bytes.fromhex(f[4])
            # the block without its ret (the 6th column) is what is measured
            model[i] = float(f[5]) if len(f) > 5 and f[5] not in ("", "-") else float(f[3])
        exe = blocks.build_harness(tmp)
        jobs = []
        for i, (_, lines) in enumerate(probes):
            b = body[i][:-1] if body[i].endswith(b"\xc3") else body[i]  # the ret, where it is in the block
            jobs.append("%d %s %d -1 0" % (i, b.hex(), blocks.unroll_for(len(lines), len(b))))
        runs = []
        for _ in range(2):
            p = subprocess.run([exe, "--rounds=%d" % a.rounds, "--target=6000"], input="\n".join(jobs) + "\n",
                               capture_output=True, text=True)
            runs.append({ln.split()[0]: ln.split() for ln in p.stdout.splitlines() if len(ln.split()) >= 3})
        # calls and returns: a program of their own (blocks.py drops them)
        cr = os.path.join(tmp, "callret")
        subprocess.run(["gcc", "-O2", "-no-pie", "-o", cr, os.path.join(HERE, "probes", "callret.c")], check=True)
        callret = subprocess.run([cr], capture_output=True, text=True, check=True).stdout
        callret_shares = calls_attribution(a, tmp, cr)
        lc = os.path.join(tmp, "libc")
        subprocess.run(["gcc", "-O2", "-o", lc, os.path.join(HERE, "probes", "libc.c")], check=True)
        libc = subprocess.run([lc], capture_output=True, text=True, check=True).stdout
        hp = os.path.join(tmp, "heap")
        subprocess.run(["gcc", "-O2", "-I" + os.path.join(HERE, "probes"), "-o", hp,
                        os.path.join(HERE, "probes", "heap.c")], check=True)
        heap = subprocess.run([hp], capture_output=True, text=True, check=True).stdout
        br = os.path.join(tmp, "branch")
        subprocess.run(["gcc", "-O2", "-no-pie", "-o", br, os.path.join(HERE, "probes", "branch.c")], check=True)
        branch = subprocess.run([br], capture_output=True, text=True, check=True).stdout
        ch = os.path.join(tmp, "chase")
        subprocess.run(["gcc", "-O2", "-o", ch, os.path.join(HERE, "probes", "chase.c")], check=True)
        chase = subprocess.run([ch], capture_output=True, text=True, check=True).stdout
        bz = os.path.join(tmp, "bzip2")
        bzip2 = "(Debian's libbz2.a is not installed)\n"
        if os.path.exists(BZ2):
            subprocess.run(["gcc", "-O2", "-o", bz, os.path.join(HERE, "probes", "bzip2.c"), BZ2], check=True)
            bzip2 = subprocess.run([bz], capture_output=True, text=True, check=True).stdout
        gather = memory_probe(a, tmp, "gather", GATHER_KIB, ("gather", "walk"))
        scatter = memory_probe(a, tmp, "scatter", SCATTER_KIB, ("count", "scatter"))
        pfp = os.path.join(tmp, "pagefault")
        subprocess.run(["gcc", "-O2", "-I" + os.path.join(HERE, "probes"), "-o", pfp,
                        os.path.join(HERE, "probes", "pagefault.c")], check=True)
        pagefault = subprocess.run([pfp], capture_output=True, text=True, check=True).stdout
    print("%-72s %8s %8s %8s" % ("probe", "run 1", "run 2", "profinst"))
    for i, (name, lines) in enumerate(probes):
        m = ["%.2f" % float(r[str(i)][2]) if str(i) in r and r[str(i)][1] == "ok" else
             (r[str(i)][1] if str(i) in r else "-") for r in runs]
        print("%-72s %8s %8s %8.2f" % (name[:72], m[0], m[1], model[i]))
        for ln in lines:
            print("    " + ln)
    print()
    print("calls and returns (bench/probes/callret.c):")
    print(callret, end="")
    print()
    print("where perf's samples find the time of calls and returns, and where profinst puts it (shares):")
    print(callret_shares, end="")
    print()
    print("short C library functions (bench/probes/libc.c), the costs the goldencove and zen5 models fix:")
    print(libc, end="")
    print()
    print("the allocator's paths (bench/probes/heap.c), the costs of runtime/heap.c under zen5:")
    print(heap, end="")
    print()
    print("conditional branches (bench/probes/branch.c), the mispredict cost of --branch-sim:")
    print(branch, end="")
    print()
    print("loads that wait for loads (bench/probes/chase.c), the levels of --cache-sim:")
    print(chase, end="")
    print()
    print("bzip2's decompression (bench/probes/bzip2.c):")
    print(bzip2, end="")
    print()
    print("loads that wait for loads the core overlaps (bench/probes/gather.c), cycles a step, and --cache-sim's:")
    print(gather, end="")
    print()
    print("misses nothing waits for (bench/probes/scatter.c), cycles a step, and --cache-sim's:")
    print(scatter, end="")
    print()
    print("first touches of fresh pages (bench/probes/pagefault.c), the page_fault cost the runtime charges:")
    print(pagefault, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
