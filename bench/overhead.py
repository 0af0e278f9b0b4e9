#!/usr/bin/env python3
"""Run-time overhead of instrumented programs against native ones.

  bench/overhead.py [--build DIR] [--runs N] [--cpu MODEL]
                    [--baseline DIR] [--only NAME,...] [--cache DIR] [--wall]
                    [--args 'PROFINST OPTIONS'] [--baseline-args 'PROFINST OPTIONS']

Builds each workload natively (gcc -O2) and with profinst, runs native and
instrumented alternately (the machines are shared and noisy: only ratios
measured side by side in one run mean anything), and prints the CPU it ran
on, the best-of-N CPU time (user and system: less moved by the machine's
other work than wall time; --wall for wall time) of each and their ratio,
with, in brackets, the median over the rounds of each round's ratio (the
programs of a round ran one after the other, so a slow spell of the
machine moves both: the steadier figure where rounds disagree), then the
geometric means of the ratios.  The workloads (--only names them,
comma-separated):

  zlib, bzip2, crypto, sqlite3, lua5.4
      the drivers of tests/real linked with Debian's archives, built with
      `profinst -q --cpu=MODEL DRIVER.o ARCHIVE.a ... -o PROG`
  tinycalls
      bench/programs/tinycalls.c and tinycalls_ext.c: very small functions
      (leaf calls in one object and across two, a short chain, a recursive
      one), built the same way from their two objects
  polycalls
      bench/programs/polycalls.c: one call site through a pointer reaching
      256 functions in turn; not in the default list (--only polycalls)
  jq, xz
      two projects built from Debian's source packages (`apt-get source jq
      xz-utils`; their build needs autoconf, automake, libtool and
      libonig-dev) with ./configure --disable-shared and `make`, natively
      with CC=gcc CFLAGS=-O2 and with CC="profinst -q --cpu=MODEL cc": jq
      runs a filter over a generated 6 MB JSON file; xz compresses a
      generated 1.5 MiB file (`xz -c -6 -T1`, the row "xz -6") and
      decompresses 32 copies of its compressed stream (`xz -dc`, "xz -d").
      The sources and both builds are kept in --cache (default
      $XDG_CACHE_HOME/profinst-bench, else /tmp/profinst-bench) and reused;
      the instrumented programs are linked again each run, by the profinst
      measured.  A project that cannot be fetched or built is skipped, with
      the reason and the log to read.
  xz-shared
      xz built as its configure builds it by default: liblzma a shared
      library, which `profinst cc -shared` instruments, and xz linked with
      it; the rows "xz -6 .so" and "xz -d .so" run xz through libtool's
      wrapper script, which finds the tree's liblzma.so (the script's start,
      the same in both, is in both times).  Built again for each profinst
      measured.  Not in the default list (--only xz-shared).

Every instrumented program must print what its native one prints (checked
on the first round); their profiles go to a temporary directory, removed
at the end.  --baseline DIR also instruments with another build's profinst
(another tree's build/, say) and runs it in the same rotation: its ratio
and the new over the old are printed beside.  Timing, so not part of the
tests."""
import argparse
import glob
import hashlib
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

PROGRAMS = os.path.join(ROOT, "bench", "programs")
# repetitions passed to each driver: about a second of native work
SCALE = {"zlib": "12", "sqlite3": "400", "lua5.4": "150", "bzip2": "8", "crypto": "30", "tinycalls": "800",
         "polycalls": "20000"}
# tinycalls' sources, cflags, link arguments
TINYCALLS = ([os.path.join(PROGRAMS, "tinycalls.c"), os.path.join(PROGRAMS, "tinycalls_ext.c")], [], [])
JQ_FILTER = ("[.[] | select(.score > 30) | {id, name: (.name | ascii_upcase), tag,"
             " total: (((.values | add) // 0) * .ratio)}]"
             " | group_by(.tag) | map({tag: .[0].tag, n: length, total: (map(.total) | add),"
             " names: (map(.name) | sort | .[:3])})")
# Debian source package, configure's options, the program (made by its
# name in its directory)
PROJECTS = {
    "jq": ("jq", ["--disable-docs", "--disable-valgrind", "--disable-maintainer-mode"], "jq"),
    "xz": ("xz-utils", ["--disable-nls", "--disable-doc", "--disable-scripts", "--disable-xzdec",
                        "--disable-lzmadec", "--disable-lzmainfo", "--disable-lzma-links"], "src/xz/xz"),
}
PROJECTS["xz-shared"] = PROJECTS["xz"]
SHARED = {"xz-shared"}  # built with their shared libraries (run in their trees)
ORDER = ["zlib", "bzip2", "crypto", "sqlite3", "lua5.4", "tinycalls", "jq", "xz"]
EXTRA = ["polycalls", "xz-shared"]  # run only when --only names them


class Skip(Exception):
    """A workload that cannot be built here: why."""


def cpu_name():
    """model name and cpu family of the first CPU in /proc/cpuinfo."""
    info = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            k, _, v = line.partition(":")
            info.setdefault(k.strip(), v.strip())
    return "%s (cpu family %s), %d CPUs" % (info.get("model name", "?"), info.get("cpu family", "?"),
                                             os.cpu_count())


def compile_link(tmp, profinsts, cpu, name, sources, cflags, libs):
    """gcc -O2 objects of the sources, linked natively and by each profinst."""
    objs = []
    for i, src in enumerate(sources):
        objs.append(os.path.join(tmp, "%s.%d.o" % (name, i)))
        subprocess.run(["gcc", "-O2", "-c", src, "-o", objs[-1]] + cflags, check=True)
    exes = [os.path.join(tmp, name + ".native")]
    subprocess.run(["gcc"] + objs + libs + ["-o", exes[0]], check=True)
    for i, profinst in enumerate(profinsts):
        exes.append(os.path.join(tmp, "%s.prof%d" % (name, i)))
        subprocess.run(profinst + ["-q", "--cpu=" + cpu] + objs + libs + ["-o", exes[-1]], check=True)
    return exes


def niced():
    os.nice(19)


def step(cmd, cwd, log, what, env=None):
    """Run a build step at the lowest priority, its output appended to log."""
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        try:
            status = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, preexec_fn=niced,
                                    env=env).returncode
        except OSError as e:
            raise Skip("%s: %s" % (what, e))
    if status:
        raise Skip("%s failed (status %d), see %s" % (what, status, log))


def fetch_source(cache, package):
    """The unpacked Debian source of package under cache/src, fetched with
    apt-get source the first time (the version apt picks, else the others
    apt-cache knows: a security update's files may not be on the mirror)."""
    srcdir = os.path.join(cache, "src")
    found = [d for d in glob.glob(os.path.join(srcdir, package + "-*")) if os.path.isdir(d)]
    if found:
        return found[0]
    os.makedirs(srcdir, exist_ok=True)
    log = os.path.join(cache, package + "-source.log")
    try:
        shown = subprocess.run(["apt-cache", "showsrc", package], capture_output=True, text=True).stdout
    except OSError:
        shown = ""
    versions = [""] + ["=" + l.split()[1] for l in shown.splitlines() if l.startswith("Version:")]
    for v in versions:
        try:
            step(["apt-get", "source", package + v], srcdir, log, "apt-get source " + package + v)
        except Skip:
            continue
        found = [d for d in glob.glob(os.path.join(srcdir, package + "-*")) if os.path.isdir(d)]
        if found:
            return found[0]
    raise Skip("apt-get source %s failed (deb-src configured? apt-get update?), see %s" % (package, log))


def build_project(cache, name, variant, cc):
    """The project configured with CC=cc and made in cache/NAME-VARIANT
    (once: a tree whose build finished is reused); its directory."""
    package, options, _ = PROJECTS[name]
    src = fetch_source(cache, package)
    if not os.path.exists(os.path.join(src, "configure")):
        step(["autoreconf", "-fi"], src, os.path.join(cache, name + "-autoreconf.log"), "autoreconf in " + src)
    tree = os.path.join(cache, "%s-%s" % (name, variant))
    if os.path.exists(os.path.join(tree, "built")):
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    log = os.path.join(cache, os.path.basename(tree) + ".log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ)
    env.pop("PROFINST_OUTPUT", None)  # configure's programs write no profile
    shared = [] if name in SHARED else ["--disable-shared"]
    step([os.path.join(src, "configure"), "CC=" + cc, "CFLAGS=-O2"] + shared + options, tree, log,
         "%s's configure" % name, env)
    step(["make", "-j%d" % os.cpu_count(), "CC=" + cc], tree, log, "make of " + name, env)
    open(os.path.join(tree, "built"), "w").close()
    return tree


def project_exes(tmp, cache, profinsts, cpu, name):
    """The project's native program and the one each profinst links (made
    again in the instrumented tree by make CC="PROFINST cc"), copied to tmp."""
    prog = PROJECTS[name][2]
    log = os.path.join(cache, name + "-link.log")
    if os.path.exists(log):
        os.remove(log)
    if name in SHARED:
        # (a tree each: the shared library is instrumented by the
        # profinst measured too; the programs stay in their trees)
        exes = [os.path.join(build_project(cache, name, "native", "gcc"), prog)]
        for i, profinst in enumerate(profinsts):
            tree = os.path.join(cache, "%s-prof%d" % (name, i))
            shutil.rmtree(tree, ignore_errors=True)
            exes.append(os.path.join(build_project(cache, name, "prof%d" % i, "%s --cpu=%s cc" % (
                " ".join(profinst), cpu)), prog))
        return exes
    exes = [os.path.join(tmp, name + ".native")]
    shutil.copy(os.path.join(build_project(cache, name, "native", "gcc"), prog), exes[0])
    for i, profinst in enumerate(profinsts):
        cc = "%s -q --cpu=%s cc" % (" ".join(profinst), cpu)
        tree = build_project(cache, name, "prof", cc)
        target = os.path.join(tree, prog)
        os.remove(target)
        step(["make", "CC=" + cc, os.path.basename(prog)], os.path.dirname(target), log,
             "linking %s with %s" % (name, profinst))
        exes.append(os.path.join(tmp, "%s.prof%d" % (name, i)))
        shutil.copy(target, exes[-1])
    return exes


def numbers(seed):
    """A deterministic stream of 31-bit numbers (a 64-bit LCG's high bits)."""
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
        yield x >> 33


WORDS = ["alpha", "beta", "gamma", "delta", "profile", "cycle", "block", "model", "stub", "clock", "x86", "call"]


def jq_input(path, records=55000):
    """A JSON array of records (about 6 MB)."""
    r = numbers(1)
    with open(path, "w") as f:
        f.write("[")
        for i in range(records):
            values = ",".join(str(next(r) % 1000) for _ in range(next(r) % 8))
            f.write('%s{"id":%d,"name":"%s-%s-%d","tag":"%s","score":%d,"values":[%s],"ok":%s,"ratio":%d.%02d}' % (
                "," if i else "", i, WORDS[next(r) % 12], WORDS[next(r) % 12], next(r) % 1000, WORDS[next(r) % 12],
                next(r) % 100, values, "true" if next(r) % 2 else "false", next(r) % 100, next(r) % 100))
        f.write("]\n")


def xz_input(path, size=3 << 19):
    """Words, a line break now and then, and a run of 8 random bytes in
    every 16 (compresses to about a quarter)."""
    r = numbers(2)
    out = bytearray()
    while len(out) < size:
        v = next(r)
        if v % 16 == 0:
            out += bytes(next(r) & 0xff for _ in range(8))
        else:
            out += (WORDS[v % 12] + ("\n" if v % 7 == 0 else " ")).encode()
    with open(path, "wb") as f:
        f.write(out[:size])


def rows(name, tmp, cache, profinsts, cpu):
    """The rows a workload gives: (label, programs, arguments, environment),
    the programs native first."""
    if name in real_cases():
        _, driver, archive, cflags, libs = real_cases()[name]
        exes = compile_link(tmp, profinsts, cpu, name, [os.path.join(ROOT, "tests", "real", driver)], cflags,
                            [os.path.join(real.LIBDIR, archive)] + libs)
        return [(name, exes, [SCALE[name]], real.ENV.get(name, {}))]
    if name == "tinycalls":
        return [(name, compile_link(tmp, profinsts, cpu, name, *TINYCALLS), [SCALE[name]], {})]
    if name == "polycalls":
        return [(name, compile_link(tmp, profinsts, cpu, name, [os.path.join(PROGRAMS, "polycalls.c")], [], []),
                 [SCALE[name]], {})]
    exes = project_exes(tmp, cache, profinsts, cpu, name)
    if name == "jq":
        data = os.path.join(tmp, "jq.json")
        jq_input(data)
        return [("jq", exes, [JQ_FILTER, data], {})]
    data = os.path.join(tmp, "xz.data")
    xz_input(data)
    packed = subprocess.run([exes[0], "-c", "-6", "-T1", data], stdout=subprocess.PIPE, check=True).stdout
    with open(data + ".xz", "wb") as f:
        f.write(packed * 32)  # concatenated streams: xz -d reads them all
    so = " .so" if name in SHARED else ""
    return [("xz -6" + so, exes, ["-c", "-6", "-T1", data], {}), ("xz -d" + so, exes, ["-dc", "-T1", data + ".xz"], {})]


def real_cases():
    """tests/real's cases that are workloads (not the libstdc++ correctness case)."""
    return {c[0]: c for c in real.CASES if c[0] in SCALE}


def timed(exe, args, env, cwd, wall, out):
    """One run's time (user + system CPU time, or wall), its output to out."""
    t = time.perf_counter()
    p = subprocess.Popen([exe] + args, env=env, cwd=cwd, stdout=out)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise SystemExit("%s %s: status %d" % (exe, " ".join(args), status))
    return time.perf_counter() - t if wall else ru.ru_utime + ru.ru_stime


def digest(f):
    """The SHA-256 of what was written to the file f."""
    f.seek(0)
    h = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
    return h.hexdigest()


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def best_times(row, a, env, tmp):
    """Each program's least time over --runs rounds, the programs in turn,
    and the median over the rounds of its time over the first program's in
    the same round (paired: a machine that slows down for a while slows
    both); the first round's output of each compared with the native
    program's."""
    label, exes, args, extra = row
    renv = dict(env, **extra)
    t = {exe: [] for exe in exes}
    for r in range(a.runs):
        digests = set()
        for exe in exes:
            out = tempfile.TemporaryFile(dir=tmp) if r == 0 else None
            t[exe].append(timed(exe, args, renv, tmp, a.wall, out or subprocess.DEVNULL))
            if out:
                digests.add(digest(out))
                out.close()
        if len(digests) > 1:
            raise SystemExit("%s: the instrumented program's output is not the native one's" % label)
    first = t[exes[0]]
    return [min(t[exe]) for exe in exes], [median(x / f for x, f in zip(t[exe], first)) for exe in exes]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--cpu", default="host")
    ap.add_argument("--baseline", help="another build directory whose profinst runs beside")
    ap.add_argument("--only", help="the workloads to run, comma-separated: " + ",".join(ORDER + EXTRA))
    ap.add_argument("--wall", action="store_true", help="wall time instead of CPU time")
    ap.add_argument("--args", default="", help="more profinst options for the build measured (e.g. --timed)")
    ap.add_argument("--baseline-args", default="", help="more profinst options for the baseline's")
    ap.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME") or tempfile.gettempdir(),
                                                    "profinst-bench"),
                    help="where jq and xz are fetched and built")
    a = ap.parse_args()
    names = a.only.split(",") if a.only else ORDER
    unknown = [n for n in names if n not in ORDER + EXTRA]
    if unknown:
        ap.error("no workload %s (%s)" % (", ".join(unknown), ", ".join(ORDER + EXTRA)))
    profinst = [os.path.join(os.path.abspath(a.build), "rewriter", "profinst")] + a.args.split()
    profinsts = [[os.path.join(os.path.abspath(a.baseline), "rewriter", "profinst")] + a.baseline_args.split(),
                 profinst] if a.baseline else [profinst]
    os.makedirs(a.cache, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="pi-bench-")
    env = dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "bench.prof"))
    try:
        print("CPU: %s; load average %.2f %.2f %.2f" % ((cpu_name(),) + os.getloadavg()))
        print("(%s time; ratios of each program's best of %d rounds, and in brackets the median of the"
              " rounds' ratios, each round's programs run in turn)" % ("wall" if a.wall else "CPU", a.runs))
        if a.baseline:
            print("%-10s %12s %18s %18s %18s" % ("workload", "native s", "baseline", "this", "this/base"))
        else:
            print("%-10s %12s %12s %18s" % ("workload", "native s", "profinst s", "ratio"))
        sys.stdout.flush()
        ratios, base_ratios, meds, base_meds, pair_meds = [], [], [], [], []
        for name in [n for n in ORDER + EXTRA if n in names]:
            try:
                todo = rows(name, tmp, a.cache, profinsts, a.cpu)
            except Skip as e:
                print("%-10s skipped: %s" % (name, e), flush=True)
                continue
            for row in todo:
                if a.baseline:
                    (n, b, p), (_, bm, pm) = best_times(row, a, env, tmp)
                    base_ratios.append(b / n)
                    ratios.append(p / n)
                    base_meds.append(bm)
                    meds.append(pm)
                    pair_meds.append(pm / bm)
                    print("%-10s %12.4f %8.2fx (%.2fx) %8.2fx (%.2fx) %8.3f (%.3f)"
                          % (row[0], n, b / n, bm, p / n, pm, p / b, pm / bm), flush=True)
                    continue
                (n, p), (_, pm) = best_times(row, a, env, tmp)
                ratios.append(p / n)
                meds.append(pm)
                print("%-10s %12.4f %12.4f %8.2fx (%.2fx)" % (row[0], n, p, p / n, pm), flush=True)
        geo = lambda r: math.exp(sum(map(math.log, r)) / len(r))  # noqa: E731
        if ratios and a.baseline:
            print("%-10s %12s %8.2fx (%.2fx) %8.2fx (%.2fx) %8.3f (%.3f)"
                  % ("geomean", "", geo(base_ratios), geo(base_meds), geo(ratios), geo(meds),
                     geo(ratios) / geo(base_ratios), geo(pair_meds)))
        elif ratios:
            print("%-10s %12s %12s %8.2fx (%.2fx)" % ("geomean", "", "", geo(ratios), geo(meds)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
