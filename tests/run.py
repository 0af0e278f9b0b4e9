#!/usr/bin/env python3
"""profinst's test runner.

  tests/run.py [--build DIR] [--full | -k PATTERN] [-j N]

With no --full and no -k, a quick selection (QUICK below, about a
minute): the unit, feature and golden tiers, bad inputs, and a dozen e2e
cases at -O2.  --full runs everything; -k PATTERN the tests of the full
set whose names it matches.  The tiers:
  unit      unit test programs built by meson (tests/unit), as `meson test`
            runs them
  feature   programs of tests/feature built, instrumented and run: what
            each feature's profile must say
  e2e       tests/e2e/NNN_*.c, each built with gcc and clang at -O0, -O2 and
            -O3: the instrumented program's output and exit status must equal
            the native one's, and with --cpu=instructions every function's
            self count and call count must equal callgrind's exactly
  badinput  inputs profinst must refuse with one line and no output
  safety    instrumented programs run as root, setuid, under limits, with
            threads and signals: nothing clobbered, nothing lost unmarked
  real      Debian's libz.a, libsqlite3.a and liblua5.4.a linked whole with
            drivers from tests/real, checked the same way

Ends with the line "N passed, N failed".
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "lib"))
import oracle  # noqa: E402

COMPILERS = ["gcc", "clang"]
OPTS = ["-O0", "-O2", "-O3"]
# code-generation variants, each tried at -O2: (name, cflags, ldflags)
VARIANTS = [
    ("nopic", ["-fno-pic"], ["-no-pie"]),
    ("funcsec", ["-ffunction-sections", "-fdata-sections"], ["-Wl,--gc-sections"]),
    ("cet", ["-fcf-protection=full"], []),
]


class Fail(Exception):
    pass


def sh(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 900)
    return subprocess.run(cmd, **kw)


def must(cmd, what, **kw):
    p = sh(cmd, **kw)
    if p.returncode != 0:
        raise Fail("%s failed (%d): %s\n%s" % (what, p.returncode, " ".join(cmd),
                                                (p.stderr or "")[-2000:]))
    return p


def directives(path):
    """// key: value lines at the top of a test program."""
    d = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*(\w+):\s*(.*)", line)
            if m:
                d.setdefault(m.group(1), []).append(m.group(2).strip())
    return d


class Ctx:
    def __init__(self, build, keep, fuzz_build=None):
        self.build = os.path.abspath(build)
        self.fuzz_build = os.path.abspath(fuzz_build or os.path.join(ROOT, "build-fuzz"))
        self.profinst = os.path.join(self.build, "rewriter", "profinst")
        self.profview = os.path.join(self.build, "display", "profview")
        self.keep = keep


def profile_json(ctx, prof):
    p = must([ctx.profview, "report", prof, "--format=json"], "profview report")
    return json.loads(p.stdout)


def compare_counts(prof, cg, ours, ignore=(), canon=None):
    """Every function of ours: profile's self and calls == callgrind's.
    canon maps alias names to the one callgrind's side uses."""
    canon = canon or {}
    ours = {canon.get(n, n) for n in ours}
    got = {}
    errs = []
    for f in prof["functions"]:
        if f.get("external"):
            # code outside the inputs: callgrind counts it as its own; under
            # the instructions model its measured time is never charged
            if f["self_cycles"] and not prof.get("os_charged"):
                errs.append("%s: self=%d, but nothing outside the inputs is charged" % (
                    f["name"], f["self_cycles"]))
            continue
        e = got.setdefault(canon.get(f["symbol"], f["symbol"]), {"self": 0, "calls": 0})
        e["self"] += f["self_cycles"]
        e["calls"] += f["calls"]
    for name in sorted(ours):
        if name in ignore:
            continue
        want = cg.get(name, {"self": 0, "calls": 0})
        have = got.get(name, {"self": 0, "calls": 0})
        if want != have:
            errs.append("%s: profile self=%d calls=%d, callgrind self=%d calls=%d" % (
                name, have["self"], have["calls"], want["self"], want["calls"]))
    for name in sorted(got):
        if name not in ours and got[name]["calls"]:
            errs.append("%s: in the profile but not one of the inputs' functions" % name)
    if errs:
        raise Fail("counts differ from callgrind:\n  " + "\n  ".join(errs[:40]) +
                   ("\n  ... %d more" % (len(errs) - 40) if len(errs) > 40 else ""))


def object_functions(paths):
    names = set()
    for p in paths:
        out = sh(["nm", "--defined-only", p]).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwWiI":
                names.add(oracle.fold(parts[2]))
    return names


def run_pair(ctx, tmp, native, prof_exe, args, stdin_data=None, env_extra=None, nprofiles=1):
    env = dict(os.environ)
    env.update(env_extra or {})
    a = sh([native] + args, input=stdin_data, env=env, cwd=tmp)
    penv = dict(env, PROFINST_OUTPUT=os.path.join(tmp, "out.%p.prof"))
    for f in os.listdir(tmp):
        if f.startswith("out.") and f.endswith(".prof"):
            os.unlink(os.path.join(tmp, f))
    b = sh([prof_exe] + args, input=stdin_data, env=penv, cwd=tmp)
    if a.stdout != b.stdout:
        raise Fail("output differs:\n--- native\n%s\n--- instrumented\n%s" % (a.stdout[-1500:], b.stdout[-1500:]))
    if a.returncode != b.returncode:
        raise Fail("exit status differs: native %d, instrumented %d\n%s" % (a.returncode, b.returncode, b.stderr[-1500:]))
    profs = sorted(f for f in os.listdir(tmp) if f.startswith("out.") and f.endswith(".prof"))
    if len(profs) != nprofiles:
        raise Fail("expected %d profile(s), found %r; stderr: %s" % (nprofiles, profs, b.stderr[-800:]))
    if nprofiles != 1:
        return [os.path.join(tmp, f) for f in profs], a
    return os.path.join(tmp, profs[0]), a


def e2e_case(ctx, src, cc, opt, vflags=(), vldflags=()):
    d = directives(src)
    name = os.path.splitext(os.path.basename(src))[0]
    if src.endswith(".cc"):
        cc = {"gcc": "g++", "clang": "clang++"}[cc]
    tmp = tempfile.mkdtemp(prefix="pi-%s-%s%s%s-" % (name, cc, opt, "".join(vflags)))
    try:
        cflags = " ".join(d.get("cflags", [])).split() + list(vflags)
        ldflags = " ".join(d.get("ldflags", [])).split() + list(vldflags)
        args = " ".join(d.get("args", [])).split()
        obj = os.path.join(tmp, name + ".o")
        must([cc, opt, "-c", src, "-o", obj] + cflags, "compile")
        native = os.path.join(tmp, name + ".native")
        must([cc, obj, "-o", native, "-no-pie"] + ldflags, "native link")
        prof_exe = os.path.join(tmp, name + ".prof")
        p = must([ctx.profinst, "--cpu=instructions", obj, "-o", prof_exe] + ldflags, "profinst")
        warns = [l for l in p.stderr.splitlines() if "warning" in l]
        for w in d.get("warn", []):
            if not any(re.search(w, l) for l in warns):
                raise Fail("expected a warning matching %r, got:\n%s" % (w, p.stderr))
        if len(warns) != len(d.get("warn", [])):
            raise Fail("unexpected warnings:\n" + p.stderr)
        nprof = int(d.get("profiles", ["1"])[0])
        prof, _ = run_pair(ctx, tmp, native, prof_exe, args, nprofiles=nprof)
        if nprof != 1:
            pjs = [profile_json(ctx, p) for p in prof]
            for p in prof:
                check_callgraph(ctx, p)
            for exp in d.get("expect", []):
                errs = []
                for pj in pjs:
                    try:
                        check_expect(pj, exp)
                        break
                    except Fail as e:
                        errs.append(str(e))
                else:
                    raise Fail("no profile satisfies: " + "; ".join(errs))
            return
        pj = profile_json(ctx, prof)
        check_callgraph(ctx, prof)
        if "-fcf-protection=full" in cflags and cet_features(native) != cet_features(prof_exe):
            raise Fail("CET properties differ: native %r, instrumented %r" % (
                cet_features(native), cet_features(prof_exe)))
        if d.get("callgrind", ["yes"])[0] != "no":
            cgout = os.path.join(tmp, "cg.out")
            oracle.run_callgrind(native, args, cgout, cwd=tmp)
            cg = oracle.attribute(native, cgout)
            compare_counts(pj, cg, object_functions([obj]), canon=oracle.aliases(native),
                           ignore=set(" ".join(d.get("uncounted", [])).split()))
        for exp in d.get("expect", []):
            check_expect(pj, exp)
        for exp in d.get("expect-threads", []):
            th = json.loads(must([ctx.profview, "report", prof, "--threads", "--format=json"], "report --threads").stdout)
            if len(th["threads"]) != int(exp) or sum(t["cycles"] for t in th["threads"]) != pj["total_cycles"]:
                raise Fail("report --threads: %r (total %d)" % (th, pj["total_cycles"]))
        for exp in d.get("expect-incl-le", []):
            a, b = exp.split()
            fa = [f for f in pj["functions"] if f["name"] == a]
            fb = [f for f in pj["functions"] if f["name"] == b]
            if not fa or not fb or fa[0]["incl_cycles"] > fb[0]["incl_cycles"]:
                raise Fail("%s's self+descendants exceeds %s's: %r %r" % (a, b, fa, fb))
        for f in pj["functions"]:
            if f["incl_cycles"] > pj["total_cycles"]:
                raise Fail("%s's self+descendants %d exceeds the total %d" % (
                    f["name"], f["incl_cycles"], pj["total_cycles"]))
    finally:
        if not ctx.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def cet_features(exe):
    out = sh(["readelf", "-n", exe]).stdout
    return sorted(l.strip() for l in out.splitlines() if "x86 feature" in l)


def check_callgraph(ctx, prof):
    """Seed 004's invariants, exactly, on every function of a profile."""
    p = must([ctx.profview, "callgraph", prof, "--format=json"], "profview callgraph")
    cg = json.loads(p.stdout)
    errs = []
    # members of a cycle: their calls add up; their time is the cycle's
    for f in cg["functions"] + cg["cycles"]:
        ps, cs = f["parents"], f["children"]
        name = f.get("name") or "<cycle %d>" % f["cycle"]
        if sum(a["calls"] for a in ps) != f["calls"]:
            errs.append("%s: parents' calls %d != calls %d" % (name, sum(a["calls"] for a in ps), f["calls"]))
        if f.get("name") and f["cycle"]:
            continue
        if sum(a["self_cycles"] for a in ps) != f["self_cycles"]:
            errs.append("%s: parents' self != self" % name)
        if sum(a["incl_cycles"] for a in ps) != f["incl_cycles"]:
            errs.append("%s: parents' cum != cum" % name)
        if sum(a["incl_cycles"] for a in cs) != f["incl_cycles"] - f["self_cycles"]:
            errs.append("%s: children's cum %d != cum - self %d" % (
                name, sum(a["incl_cycles"] for a in cs), f["incl_cycles"] - f["self_cycles"]))
    if errs:
        raise Fail("call graph invariants:\n  " + "\n  ".join(errs[:20]))


def check_expect(pj, exp):
    """expect: FUNC field=N ...  (or: @ key=N ... for the profile's own fields)"""
    parts = exp.split()
    if parts[0] == "@":
        for kv in parts[1:]:
            k, v = kv.split("=")
            if str(pj[k]) != v:
                raise Fail("expect: %s=%s, profile says %s" % (k, v, pj[k]))
        return
    fn = [f for f in pj["functions"] if f["name"] == parts[0]]
    if not fn:
        raise Fail("expect: no function %s in the profile" % parts[0])
    for kv in parts[1:]:
        k, v = kv.split("=")
        have = fn[0][k]
        if k == "callers":  # callers=a,b: their names, in the profile's order
            have = ",".join(c["name"] for c in have)
        if str(have) != v:
            raise Fail("expect: %s %s=%s, profile says %s" % (parts[0], k, v, have))


def unit_tests(ctx):
    """The C unit programs `meson test` runs (suite 'unit'), each as meson
    registered it: one list of them, in tests/meson.build."""
    p = must(["meson", "introspect", ctx.build, "--tests"], "meson introspect")
    tests = []
    for t in json.loads(p.stdout):
        if not any(s.split(":")[-1] == "unit" for s in t["suite"]):
            continue
        tests.append(("unit/" + t["name"],
                      lambda t=t: must(t["cmd"], "unit test " + t["name"], cwd=t["workdir"] or ctx.build,
                                       env=dict(os.environ, **t["env"]))))
    if not tests:
        raise Fail("meson registered no unit tests in %s" % ctx.build)
    return tests


def feature_loops(ctx):
    """Blocks on small loops are costed as repeated (a loop of several
    blocks as one body), others in flow (tests/feature/loops.s says which, by
    the cost of following a pointer)."""
    src = os.path.join(HERE, "feature", "loops.s")
    tmp = tempfile.mkdtemp(prefix="pi-loops-")
    try:
        obj = os.path.join(tmp, "loops.o")
        must(["as", src, "-o", obj], "as")
        out = must([ctx.profinst, "--cpu=goldencove", "--dump-blocks", obj], "profinst").stdout
        cost = {f[1]: float(f[3]) for f in (l.split("\t") for l in out.splitlines()) if len(f) > 3}
        checked = 0
        for line in open(src):
            parts = line.split()
            if parts[:2] != ["#", "expect"]:
                continue
            where, op, want = parts[2], parts[3], float(parts[4])
            for w in where.split(","):
                if w not in cost:
                    raise Fail("loops.s: no block %s in --dump-blocks" % w)
            got = sum(cost[w] for w in where.split(","))
            ok = got >= want if op == ">=" else got < want
            if not ok:
                raise Fail("loops.s: %s costs %g, expected %s %g" % (where, got, op, want))
            checked += 1
        if checked < 8:
            raise Fail("loops.s: only %d expectations" % checked)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def profile_of(ctx, tmp, src, profinst_args=(), cflags=("-O2",), env=None):
    """Compile src (gcc -O2), instrument it, run it once in tmp (more
    environment: env): (its output, the profile's path)."""
    obj = os.path.join(tmp, "a.o")
    must(["gcc"] + list(cflags) + ["-c", src, "-o", obj], "compile")
    exe = os.path.join(tmp, "a.prof")
    must([ctx.profinst] + list(profinst_args) + [obj, "-o", exe], "profinst")
    pf = os.path.join(tmp, "p.pf")
    out = must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=pf, **(env or {})), cwd=tmp).stdout
    return out, pf


def feature_ret_at_caller(ctx):
    """tests/feature/ret_at_caller.c: a leaf's return is charged to its caller."""
    tmp = tempfile.mkdtemp(prefix="pi-ret-")
    try:
        out, pf = profile_of(ctx, tmp, os.path.join(HERE, "feature", "ret_at_caller.c"), ["--cpu=goldencove"])
        if out.strip() != "1000000":
            raise Fail("ret_at_caller printed %r" % out)
        pj = profile_json(ctx, pf)
        leaf = [f for f in pj["functions"] if f["name"] == "leaf"]
        if not leaf or leaf[0]["calls"] != 1000000:
            raise Fail("ret_at_caller: leaf's calls: %r" % leaf)
        # 1 cycle a call in leaf (a taken jump's); the rest of the
        # return's 1.75 in main
        if leaf[0]["self_cycles"] != 1000000:
            raise Fail("ret_at_caller: leaf's self is %d cycles, want 1000000" % leaf[0]["self_cycles"])
        main = [f for f in pj["functions"] if f["name"] == "main"][0]
        if main["self_cycles"] < 750000:
            raise Fail("ret_at_caller: main's self is %d cycles, want 750000 at least" % main["self_cycles"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def feature_frontend(ctx):
    """tests/feature/frontend.c under zen5: the bubbles of calls and returns,
    charged by the runtime, overlap with the blocks' work around them."""
    tmp = tempfile.mkdtemp(prefix="pi-fe-")
    try:
        out, pf = profile_of(ctx, tmp, os.path.join(HERE, "feature", "frontend.c"), ["--timed", "--cpu=zen5"])
        if out.strip() != "done":
            raise Fail("frontend printed %r" % out)
        fs = {f["name"]: f for f in profile_json(ctx, pf)["functions"]}
        # the report says what the cycles leave out without the simulations
        head = must([ctx.profview, "report", pf], "profview report").stdout.splitlines()[:5]
        if not any(ln.startswith("Not in the cycles: mispredicted branches") and "cache misses" in ln for ln in head):
            raise Fail("frontend: the report does not say what the cycles leave out: %r" % head)
        for name in ("t_call", "t_w24", "t_w48c2", "t_nest", "f_mid", "f_ret"):
            if name not in fs:
                raise Fail("frontend: no %s in the profile" % name)
        if fs["f_ret"]["calls"] != 500000:
            raise Fail("frontend: f_ret's calls %d, want 500000" % fs["f_ret"]["calls"])
        # what the runtime charged beyond the blocks, a loop iteration
        beyond = {n: (fs[n]["self_cycles"] - fs[n]["block_cycles"]) / 100000.0 for n in ("t_call", "t_w24", "t_w48c2")}
        # t_call: 4 cycles of bubbles (2 + 2) where the blocks take 2
        blocks = (fs["t_call"]["block_cycles"] + fs["f_ret"]["block_cycles"] / 5) / 100000.0
        if abs(blocks + beyond["t_call"] - 4.0) > 0.01:
            raise Fail("frontend: t_call takes %.3f + %.3f cycles an iteration, want 4" % (blocks, beyond["t_call"]))
        for n in ("t_w24", "t_w48c2"):
            if abs(beyond[n]) > 0.001:
                raise Fail("frontend: %s charged %.3f cycles an iteration beyond its blocks, want 0" % (n, beyond[n]))
        # a tail call: its jump has no bubble of its own
        tail = sum(fs[n]["self_cycles"] for n in ("t_tail", "f_tail", "f_ret2")) / 100000.0
        if abs(tail - 4.0) > 0.01:
            raise Fail("frontend: t_tail takes %.3f cycles an iteration, want 4" % tail)
        # a function that calls keeps the bubbles of its call and return:
        # t_nest has its blocks only, and with f_mid's takes 8 cycles
        if fs["t_nest"]["self_cycles"] - fs["t_nest"]["block_cycles"] > 100:
            raise Fail("frontend: t_nest charged %d cycles beyond its blocks, want none (f_mid's)" %
                       (fs["t_nest"]["self_cycles"] - fs["t_nest"]["block_cycles"]))
        nest = (fs["t_nest"]["self_cycles"] + fs["f_mid"]["self_cycles"] + fs["f_ret"]["self_cycles"] / 5) / 100000.0
        if abs(nest - 8.0) > 0.01:
            raise Fail("frontend: t_nest takes %.3f cycles an iteration, want 8" % nest)
        # a model with static floors (goldencove): no bubbles at run time,
        # only the return's floor beyond a taken jump's (1.75 - 1), which
        # the exit stub adds for the caller
        out, pf = profile_of(ctx, tmp, os.path.join(HERE, "feature", "frontend.c"), ["--timed", "--cpu=goldencove"])
        fs = {f["name"]: f for f in profile_json(ctx, pf)["functions"]}
        extra = (fs["t_w24"]["self_cycles"] - fs["t_w24"]["block_cycles"]) / 100000.0
        if abs(extra - 0.75) > 0.001:
            raise Fail("frontend: goldencove charged t_w24 %.3f cycles an iteration beyond its blocks, want 0.75" % extra)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def sim_threads_and_refusal(ctx, tmp, flags, bad_cpu, refusal):
    """A simulation's state per thread, freed as each ends: 022_threads under
    flags (zen5) has its 5 threads; and a model without what it needs
    (bad_cpu) is refused with the message refusal, status 2.  tmp/sim/a.o
    is an object to instrument."""
    os.mkdir(os.path.join(tmp, "threads"))
    _, pf = profile_of(ctx, os.path.join(tmp, "threads"), os.path.join(HERE, "e2e", "022_threads.c"),
                       ["--cpu=zen5"] + flags + ["-lpthread"])
    if profile_json(ctx, pf)["threads"] != 5:
        raise Fail("%s: 022_threads' profile has %r threads, want 5" % (" ".join(flags), profile_json(ctx, pf)["threads"]))
    r = subprocess.run([ctx.profinst, "--cpu=" + bad_cpu, flags[0], os.path.join(tmp, "sim", "a.o"),
                        "-o", os.path.join(tmp, "x")], capture_output=True, text=True)
    if r.returncode != 2 or refusal not in r.stderr:
        raise Fail("%s with --cpu=%s: status %d, %r" % (flags[0], bad_cpu, r.returncode, r.stderr))


def feature_cache_sim(ctx):
    """tests/feature/cache_sim.c under --cache-sim: a pointer chase waits for
    each miss; a chase in the first level, a stream, a gather through a
    streamed index and a local reached by pointer do not; independent steps
    overlap their misses, and so do a histogram's and a scatter's, which
    nothing waits for; registers and flags kept around the load stubs."""
    tmp = tempfile.mkdtemp(prefix="pi-csim-")
    try:
        src = os.path.join(HERE, "feature", "cache_sim.c")
        os.mkdir(os.path.join(tmp, "plain"))
        os.mkdir(os.path.join(tmp, "sim"))
        # (without the faults of first touches, which are not the subject)
        out0, pf0 = profile_of(ctx, os.path.join(tmp, "plain"), src, ["--timed", "--cpu=zen5", "--no-page-faults"])
        out1, pf1 = profile_of(ctx, os.path.join(tmp, "sim"), src, ["--cpu=zen5", "--cache-sim", "--no-page-faults"],
                              ("-O2", "-g"))
        if out0.strip() != "ok" or out1.strip() != "ok":
            raise Fail("cache_sim printed %r and, simulating, %r; want 'ok'" % (out0, out1))
        pj0, pj1 = profile_json(ctx, pf0), profile_json(ctx, pf1)
        if pj0["cache_sim"] or not pj1["cache_sim"]:
            raise Fail("cache_sim: the profiles say cache_sim %r and %r" % (pj0["cache_sim"], pj1["cache_sim"]))
        # and the report leaves only the branches out
        head = must([ctx.profview, "report", pf1], "profview report").stdout.splitlines()[:5]
        if "Not in the cycles: mispredicted branches (profinst --branch-sim)" not in head:
            raise Fail("cache_sim: the report's head says %r" % head)
        # what the runtime charged beyond the blocks
        beyond = {f["name"]: f["self_cycles"] - f["block_cycles"] for f in pj1["functions"]}
        plain = {f["name"]: f["self_cycles"] - f["block_cycles"] for f in pj0["functions"]}
        # zen5: memory 600 cycles, the third level 56; a hop's block 4
        # 4 MiB ring of 65536 lines, 200000 hops: the first pass from
        # memory, then from the third level (the second, 1 MiB, holds a
        # quarter of the ring, and an LRU over a cycle keeps none of it);
        # a few lines next to a recent miss count as a prefetched stream.
        # The ring's 1024 pages: a walk each the first time (186), and a
        # first-level TLB miss (7) on nine hops in ten (it holds 96)
        lines = 65536 * (600 - 4) + (200000 - 65536) * (56 - 4)
        tlb = 200000 * 7 * (1 - 96 / 1024.0) + 1024 * 186
        if not 0.99 * lines + 0.8 * tlb <= beyond["walk_big"] <= lines + 200000 * 7 + 1024 * 186:
            raise Fail("cache_sim: walk_big waited %d cycles, want about %d" % (beyond["walk_big"], lines + tlb))
        # 256 lines: misses on the first pass only, of 100000 hops (and
        # their 5 pages' first walks)
        if not 128 * 596 <= beyond["walk"] <= 256 * 596 + 5 * (7 + 186):
            raise Fail("cache_sim: walk waited %d cycles, want the first pass's misses only (%d at most)"
                       % (beyond["walk"], 256 * 596 + 5 * (7 + 186)))
        if beyond["stream"] != plain["stream"]:
            raise Fail("cache_sim: stream (no load waits for a load) charged %d beyond its blocks, %d without"
                       % (beyond["stream"], plain["stream"]))
        # a stream's lines and pages are fetched ahead: the index's first
        # line and page only, and the first misses of the 128 lines (8 KiB)
        # it gathers from, which nothing waits for: overlapped
        most = 600 + 7 + 186 + 10 + 128 * (600 + 7 + 186) / 48
        if beyond["gather"] > most:
            raise Fail("cache_sim: gather charged %d cycles, over %d: its index is a stream" %
                       (beyond["gather"], most))
        # the same misses as walk_big's, overlapped: zen5 keeps 12 in
        # flight; the ring's misses from memory (lines) are past by now,
        # so the third level's 56 cycles and the TLB's
        far = 200000 * (56 + 7 * (1 - 96 / 1024.0))
        if not far / 12 * 0.7 <= beyond["gather_far"] <= far / 12 * 1.5:
            raise Fail("cache_sim: gather_far waited %d cycles; its steps are independent, so about %d "
                       "(a twelfth of a chase's %d)" % (beyond["gather_far"], far / 12, far))
        # a histogram's counts and a scatter's stores through 4 MiB at
        # random, 2^20 each, twice: their misses, which nothing waits for,
        # cost their latency over how many the core keeps in flight
        # (zen5: 12 from the second level, 24 from the third, 48 from
        # memory).  count sees each of the 65536 lines first (memory);
        # then a quarter of the lines are in the second level and all in
        # the third, with a first-level TLB miss on nine in ten.
        tlb1 = 7 * (1 - 96 / 1024.0)
        steady = 0.25 * (15 + tlb1) / 12 + 0.75 * (56 + tlb1) / 24
        for name, want in (("count", 65536 * 600 / 48 + (2 * 2**20 - 65536) * steady),
                           ("scatter", 2 * 2**20 * steady)):
            if not 0.85 * want <= beyond[name] <= 1.15 * want:
                raise Fail("cache_sim: %s charged %d cycles for its misses, want about %d" %
                           (name, beyond[name], want))
        if beyond["f_flags"] != 0:
            raise Fail("cache_sim: f_flags charged %d cycles for a local reached by pointer" % beyond["f_flags"])
        # the profile keeps each block's waits: a function's are what the
        # simulation charged it beyond the plain run (whole cycles, rounded)
        fn1 = {f["name"]: f for f in pj1["functions"]}
        for name in ("walk", "walk_big", "gather", "gather_far", "count", "scatter", "stream"):
            if abs(fn1[name]["mem_wait_cycles"] - (beyond[name] - plain[name])) > 2:
                raise Fail("cache_sim: %s waited %d cycles for memory in the profile; the simulation charged "
                           "it %d" % (name, fn1[name]["mem_wait_cycles"], beyond[name] - plain[name]))
        det = must([ctx.profview, "detail", pf1, "walk_big"], "profview detail").stdout
        # (the JSON's figure exact, the text's rounded once)
        if "memory waits      %d cycles of self" % int(fn1["walk_big"]["mem_wait_cycles"] + 0.5) not in det:
            raise Fail("cache_sim: profview detail walk_big does not say its memory waits:\n%s" % det)
        ann = must([ctx.profview, "annotate", pf1, "walk_big"], "profview annotate").stdout.splitlines()
        at = [i for i, ln in enumerate(ann) if ln.rstrip().endswith("p = p->next;")]
        m = re.match(r"\*\s+its loads waited for memory: ([\d.]+)%", ann[at[0] + 1]) if at else None
        if not m or float(m.group(1)) < 90:
            raise Fail("cache_sim: annotate walk_big does not put the chase's waits on 'p = p->next;':\n%s"
                       % "\n".join(ann))
        # the same run gives the same profile, wherever ASLR puts the heap
        pf2 = os.path.join(tmp, "sim", "again.pf")
        must([os.path.join(tmp, "sim", "a.prof")], "run", env=dict(os.environ, PROFINST_OUTPUT=pf2))
        first = {f["name"]: f["self_cycles"] for f in pj1["functions"]}
        again = {f["name"]: f["self_cycles"] for f in profile_json(ctx, pf2)["functions"]}
        for name in ("walk", "walk_big", "gather", "gather_far", "count", "scatter"):
            if again[name] != first[name]:
                raise Fail("cache_sim: two runs gave %s %d and %d cycles" % (name, first[name], again[name]))
        # threads: caches each (and predictors), freed as each ends
        sim_threads_and_refusal(ctx, tmp, ["--cache-sim", "--branch-sim"], "goldencove",
                                "--cache-sim needs a model of the core's caches")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def describe_cpu(ctx, cpu, prefix):
    """{name: cycles} of the lines of `profinst --describe-cpu --cpu=CPU`
    whose name starts with prefix (the prefix taken off)."""
    out = must([ctx.profinst, "--describe-cpu", "--cpu=" + cpu], "profinst --describe-cpu").stdout
    vals = {}
    for ln in out.splitlines():
        f = ln.split()
        if len(f) >= 2 and f[0].startswith(prefix):
            vals[f[0][len(prefix):]] = float(f[1])
    if not vals:
        raise Fail("profinst --describe-cpu --cpu=%s names nothing starting with %r" % (cpu, prefix))
    return vals


def feature_describe_cpu(ctx):
    """profinst --describe-cpu: every model's lines are a name and a value
    in cycles; zen5 names its penalties, caches, C library and allocator
    costs, the instructions model nothing; an unknown model is refused."""
    for cpu in ("zen5", "goldencove", "skylake", "icelake", "zen3", "host", "instructions"):
        out = must([ctx.profinst, "--describe-cpu", "--cpu=" + cpu], "profinst --describe-cpu").stdout
        names = []
        for ln in out.splitlines():
            if ln.startswith("#"):
                continue
            f = ln.split()
            try:
                float(f[1])
            except (IndexError, ValueError):
                raise Fail("--describe-cpu --cpu=%s: %r is not a name and a value" % (cpu, ln))
            names.append(f[0])
        if len(set(names)) != len(names):
            raise Fail("--describe-cpu --cpu=%s names something twice: %s" % (cpu, names))
        if cpu == "zen5":
            for want in ("mispredict", "call_bubble", "cache_l3", "memory", "libc.memcmp", "heap.malloc_cached",
                         "heap.realloc_copy_kib"):
                if want not in names:
                    raise Fail("--describe-cpu --cpu=zen5 does not name %s" % want)
        if cpu == "instructions" and names:
            raise Fail("--describe-cpu --cpu=instructions names %s; it fixes nothing" % names)
    r = subprocess.run([ctx.profinst, "--describe-cpu", "--cpu=pentium"], capture_output=True, text=True)
    if r.returncode != 2 or "unknown CPU model 'pentium'" not in r.stderr:
        raise Fail("--describe-cpu --cpu=pentium: status %d, %r" % (r.returncode, r.stderr))


def feature_heap(ctx):
    """tests/feature/heap.c under zen5: malloc, free and realloc cost what
    their path through glibc's allocator costs (runtime/heap.c follows
    which), not a fixed cost; under goldencove (no such model) the same
    calls cost the fixed costs."""
    tmp = tempfile.mkdtemp(prefix="pi-heap-")
    try:
        src = os.path.join(HERE, "feature", "heap.c")
        costs = {}
        for cpu in ("zen5", "goldencove"):
            os.mkdir(os.path.join(tmp, cpu))
            # (a fault in malloc would add to its cost: not the subject here)
            out, pf = profile_of(ctx, os.path.join(tmp, cpu), src, ["--timed", "--cpu=" + cpu, "--no-page-faults"])
            if out.strip() != "ok":
                raise Fail("heap printed %r under %s; want 'ok'" % (out, cpu))
            # (the allocator's time: the externals' own rows, under these)
            costs[cpu] = {f["name"]: f["incl_cycles"] - f["self_cycles"] for f in profile_json(ctx, pf)["functions"]}
        z = costs["zen5"]
        # what zen5 charges each path (profinst --describe-cpu, cycles): a
        # malloc and a free the thread's cache serves, from or to a fast
        # bin, from the top
        hc = describe_cpu(ctx, "zen5", "heap.")
        mc, fc, mb, fb = hc["malloc_cached"], hc["free_cached"], hc["malloc_bin_fast"], hc["free_bin_fast"]
        top, top_small, top_large = hc["malloc_top_fast"], hc["malloc_top_small"], hc["malloc_top_large"]
        free_null, same, copy_kib = hc["free_null"], hc["realloc_same"], hc["realloc_copy_kib"]
        # the first malloc of all comes from the top
        want = 10000 * (mc + fc) + top - mc
        # 64 frees: 7 into the cache, 57 into a fast bin; then 64 mallocs:
        # 7 from the cache, and from the bin one in eight, the seven after
        # it from the cache it refilled; the first round's from the top
        per_round = 56 * mc + 8 * mb + 7 * fc + 57 * fb
        checks = [("pairs", want), ("batch", 1000 * per_round + 64 * (top - mc)),
                  ("free_null", 10000 * free_null),
                  # malloc(100) from the cache; realloc to 4000: a malloc of a
                  # large block, the old one freed into the cache, 104 bytes
                  # copied; realloc to 50 keeps the block, which glibc cuts
                  # to a 64-byte chunk, so the free is of that: into the
                  # cache the first 7 times, then into a fast bin; the first
                  # malloc comes from the top
                  ("grow", 1000 * (mc + top_large + fc + 104 * copy_kib / 1024.0 + same + fb) + top - mc
                   - 7 * (fb - fc))]
        for name, w in checks:
            if not 0.97 * w <= z[name] <= 1.03 * w + 100:
                raise Fail("heap: %s's calls cost %d cycles under zen5, want about %d (goldencove's fixed "
                           "costs: %d)" % (name, z[name], w, costs["goldencove"][name]))
        # another thread's cache: take7's mallocs come from the top (of a
        # small block), not from the cache give7 filled
        if not 0.97 * 7 * top_small <= z["take7"] <= 1.03 * 7 * top_small + 5:
            raise Fail("heap: take7's mallocs in a thread of its own cost %d cycles, want %d (from the top): "
                       "another thread's cache served them?" % (z["take7"], 7 * top_small))
        # without a model of the allocator, a call costs the same whatever
        # its path: 64 pairs a round as much as 64 of pairs' pairs
        g = costs["goldencove"]
        if abs(g["batch"] / 64000.0 - g["pairs"] / 10000.0) > 0.5:
            raise Fail("heap: goldencove's fixed costs differ by path: %d and %d" % (g["batch"], g["pairs"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def feature_page_faults(ctx):
    """tests/feature/page_faults.c under zen5: each minor fault the kernel
    reports costs the model's page_fault cycles, charged to the function
    that took it: its self for its own stores, its OS time through memset
    (an external the model costs), nothing through read(2) (the kernel's
    faults, in the call's measured time); a thread's to that thread;
    pages already there cost none.  Under goldencove (no fault cost)
    nothing is counted."""
    tmp = tempfile.mkdtemp(prefix="pi-faults-")
    try:
        src = os.path.join(HERE, "feature", "page_faults.c")
        pages = 256
        cost = describe_cpu(ctx, "zen5", "page_fault")[""]
        prof = {}
        for name, args in (("zen5", ["--cpu=zen5"]), ("goldencove", ["--cpu=goldencove"]),
                           ("off", ["--cpu=zen5", "--no-page-faults"])):
            os.mkdir(os.path.join(tmp, name))
            out, pf = profile_of(ctx, os.path.join(tmp, name), src, ["--timed"] + args)
            if out.strip() != "4 2":
                raise Fail("page_faults printed %r under %s; want '4 2'" % (out, " ".join(args)))
            prof[name] = profile_json(ctx, pf)
        for name, why in (("goldencove", "a model without a fault cost"), ("off", "--no-page-faults")):
            if prof[name]["page_faults"]:
                raise Fail("page_faults: %d faults counted with %s" % (prof[name]["page_faults"], why))
        pj = prof["zen5"]
        if not pj["page_faults"]:
            raise Fail("page_faults: no fault counted under zen5 (did the kernel refuse a perf event? "
                       "/proc/sys/kernel/perf_event_paranoid says %s)"
                       % open("/proc/sys/kernel/perf_event_paranoid").read().strip())
        fn = {f["name"]: f for f in pj["functions"]}

        def faults(name):
            return fn[name]["page_faults"] if name in fn else 0
        # a page each, and perhaps the first run of the function's code
        for name in ("touch", "in_thread", "<external:memset>"):
            if not pages <= faults(name) <= pages + 3:
                raise Fail("page_faults: %s took %d faults, want %d" % (name, faults(name), pages))
        # past the ring's 2048: the runtime's own faults among those dropped
        # are counted too
        if not 3000 <= faults("many") <= 3020:
            raise Fail("page_faults: many took %d faults, want 3000" % faults("many"))
        for name in ("reuse", "by_read", "<external:read>"):
            if faults(name) > 2:
                raise Fail("page_faults: %s took %d faults, want none (%s)" % (
                    name, faults(name), "the pages are there" if name == "reuse" else "the kernel's own"))
        # the faults' cost is the function's own; its stores cost little
        for name in ("touch", "in_thread"):
            extra = fn[name]["self_cycles"] - faults(name) * cost
            if not 0 <= extra < 4 * pages:
                raise Fail("page_faults: %s's self is %d cycles, %d faults of %d and %d more; want under %d more"
                           % (name, fn[name]["self_cycles"], faults(name), cost, extra, 4 * pages))
        # memset's: in memset's own self, besides what memset costs
        if fn["<external:memset>"]["self_cycles"] < faults("<external:memset>") * cost or \
                fn["<external:memset>"]["os_cycles"]:
            raise Fail("page_faults: memset's self is %d cycles (%d measured), under its %d faults of %d"
                       % (fn["<external:memset>"]["self_cycles"], fn["<external:memset>"]["os_cycles"],
                          faults("<external:memset>"), cost))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def feature_fd_limit(ctx):
    """tests/feature/fd_limit.c under zen5: 100 threads alive at once, each
    with a perf event counting its page faults, under an RLIMIT_NOFILE of
    64: the program opens as many files as natively (the runtime keeps no
    descriptor), and the events count on: each thread's faults in touch,
    and a child's, forked afterwards, in its own profile."""
    tmp = tempfile.mkdtemp(prefix="pi-fds-")
    try:
        src = os.path.join(HERE, "feature", "fd_limit.c")
        obj = os.path.join(tmp, "a.o")
        must(["gcc", "-O2", "-c", src, "-o", obj], "compile")
        native = os.path.join(tmp, "a.native")
        must(["gcc", obj, "-o", native, "-lpthread"], "native link")
        exe = os.path.join(tmp, "a.prof")
        must([ctx.profinst, "--timed", "--cpu=zen5", obj, "-o", exe, "-lpthread"], "profinst")
        want = must([native], "native run").stdout
        got = must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.%p.pf")), cwd=tmp).stdout
        if not want.startswith("opened ") or got != want:
            raise Fail("fd_limit printed %r natively, %r instrumented" % (want, got))
        pfs = sorted(f for f in os.listdir(tmp) if f.endswith(".pf"))
        if len(pfs) != 2:
            raise Fail("fd_limit: expected 2 profiles (the process and its child), found %r" % pfs)
        pjs = sorted((profile_json(ctx, os.path.join(tmp, f)) for f in pfs), key=lambda pj: -pj["threads"])
        for pj, threads, calls in ((pjs[0], 101, 100), (pjs[1], 1, 1)):
            fn = {f["name"]: f for f in pj["functions"]}
            if pj["threads"] != threads or "touch" not in fn or fn["touch"]["calls"] != calls:
                raise Fail("fd_limit: a profile of %d threads, touch %r; want %d threads, %d calls"
                           % (pj["threads"], fn.get("touch"), threads, calls))
            faults = fn["touch"]["page_faults"]
            if not 16 * calls - 2 <= faults <= 16 * calls + calls + 2:
                raise Fail("fd_limit: touch took %d faults in %d calls, want 16 a call (perf_event_paranoid %s)"
                           % (faults, calls, open("/proc/sys/kernel/perf_event_paranoid").read().strip()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def feature_branch_sim(ctx):
    """tests/feature/branch_sim.c under --branch-sim: mispredictions of a random
    and of a patterned branch, charged where they happen (a jump on memcmp's
    result: memcmp's); flags kept."""
    tmp = tempfile.mkdtemp(prefix="pi-bsim-")
    try:
        src = os.path.join(HERE, "feature", "branch_sim.c")
        os.mkdir(os.path.join(tmp, "plain"))
        os.mkdir(os.path.join(tmp, "sim"))
        out0, pf0 = profile_of(ctx, os.path.join(tmp, "plain"), src, ["--timed", "--cpu=zen5"])
        out1, pf1 = profile_of(ctx, os.path.join(tmp, "sim"), src, ["--cpu=zen5", "--branch-sim"], ("-O2", "-g"))
        want = "10 10 100 10 10"
        if out0.strip() != want or out1.strip() != want:
            raise Fail("branch_sim printed %r and, simulating, %r; want %r" % (out0, out1, want))
        pj0, pj1 = profile_json(ctx, pf0), profile_json(ctx, pf1)
        if pj0["branch_sim"] or not pj1["branch_sim"]:
            raise Fail("branch_sim: the profiles say branch_sim %r and %r" % (pj0["branch_sim"], pj1["branch_sim"]))
        self0 = {f["name"]: f["self_cycles"] for f in pj0["functions"]}
        self1 = {f["name"]: f["self_cycles"] for f in pj1["functions"]}
        n, penalty = 100000, 25  # the loops' trip count; zen5's mispredict cost
        # (each is charged a cycle or so more for the calls' own rounding)
        rnd = (self1["random_branch"] - self0["random_branch"]) / penalty
        pat = (self1["pattern_branch"] - self0["pattern_branch"]) / penalty
        if not 0.45 * n <= rnd <= 0.55 * n:
            raise Fail("branch_sim: %.0f mispredictions of %d random branches, want about half" % (rnd, n))
        if pat > 0.01 * n:
            raise Fail("branch_sim: %.0f mispredictions of %d branches of period 7, want under 1%%" % (pat, n))
        # a random sequence of period 16384, 48 times: the first pass is
        # half mispredicted, the others (Zen 5: 1 %) learnt
        nlong = 16384 * 48
        lng = (self1["long_period_branch"] - self0["long_period_branch"]) / penalty
        most = 0.5 * 16384 + 0.05 * nlong
        if lng > most:
            raise Fail("branch_sim: %.0f mispredictions of %d branches of period 16384 (48 passes), want under "
                       "%d: the predictor does not learn what Zen 5 does" % (lng, nlong, most))
        # a misprediction of a jump on memcmp's result is memcmp's time
        # (its own self, under the function's); of a jump on anything
        # else, the function's own
        incl0 = {f["name"]: f["incl_cycles"] for f in pj0["functions"]}
        incl1 = {f["name"]: f["incl_cycles"] for f in pj1["functions"]}
        for name, ext_share, calls in (("cmp_result", 1, 1), ("cmp_other", 0, 1), ("cmp_zeroed", 0, 1)):
            grew = (incl1[name] - incl0[name]) / penalty
            ext = grew - (self1[name] - self0[name]) / penalty
            if not 0.45 * n * calls <= grew <= 0.55 * n * calls + 10:
                raise Fail("branch_sim: %s's %d random branches: %.0f mispredictions, want about half" %
                           (name, n * calls, grew))
            if abs(ext - ext_share * grew) > 1:
                raise Fail("branch_sim: %s: %.0f of its %.0f mispredictions are memcmp's time, want %s" %
                           (name, ext, grew, "all" if ext_share else "none"))
        # the profile counts each block's mispredictions: a function's are
        # what the simulation charged it (memcmp's are memcmp's, not its
        # caller's jump's)
        fn1 = {f["name"]: f for f in pj1["functions"]}
        for name, slack in (("random_branch", 2), ("pattern_branch", 2), ("long_period_branch", 2),
                            ("cmp_result", 0.02 * n * penalty), ("cmp_other", 0.02 * n * penalty),
                            ("cmp_zeroed", 0.02 * n * penalty)):
            f = fn1[name]
            if f["mispredict_cycles"] != f["mispredicts"] * penalty or \
               abs(f["mispredict_cycles"] - (self1[name] - self0[name])) > slack:
                raise Fail("branch_sim: %s: %d mispredictions, %d cycles, in the profile; the simulation "
                           "charged it %d" % (name, f["mispredicts"], f["mispredict_cycles"],
                                              self1[name] - self0[name]))
        # and annotate shows them under the jump's line
        ann = must([ctx.profview, "annotate", pf1, "random_branch"], "profview annotate").stdout.splitlines()
        at = [i for i, ln in enumerate(ann) if ln.rstrip().endswith("if (x & 1)")]
        m = re.match(r"\*\s+its jumps mispredicted (\d+) times in (\d+) \(", ann[at[0] + 1]) if at else None
        if not m or int(m.group(2)) != n or not 0.45 * n <= int(m.group(1)) <= 0.55 * n:
            raise Fail("branch_sim: annotate random_branch does not say how often 'if (x & 1)' mispredicted:\n%s"
                       % "\n".join(ann))
        # profview detail says it
        det = must([ctx.profview, "detail", pf1, "random_branch"], "profview detail").stdout
        want = "mispredicted      %d jumps, %d cycles of self" % (fn1["random_branch"]["mispredicts"],
                                                               fn1["random_branch"]["mispredict_cycles"])
        if want not in det:
            raise Fail("branch_sim: profview detail random_branch lacks %r:\n%s" % (want, det))
        # and profview html on the lines: a function's lines' mispredicted
        # cycles add up to its own
        page = os.path.join(tmp, "p.html")
        must([ctx.profview, "html", pf1, "-o", page], "profview html")
        # whose function list has a column of them
        seen = json.loads(must(["node", os.path.join(HERE, "lib", "html_check.js"), os.path.join(ctx.build, "npm"),
                                page, "random_branch", "random"], "html_check.js").stdout)
        col = seen["columns"].index("Mispredicted") if "Mispredicted" in seen["columns"] else -1
        row = [c for c in seen["cells"] if c[0] == "random_branch"]
        if col < 0 or not row or int(row[0][col].replace(",", "")) != fn1["random_branch"]["mispredict_cycles"]:
            raise Fail("branch_sim: the page's list: columns %r, random_branch %r" % (seen["columns"], row))
        text = open(page).read()
        data = json.loads(text.split('id="profile-data">', 1)[1].split("</script>", 1)[0])
        for f in data["functions"]:
            if f["name"] in ("random_branch", "long_period_branch") and \
                    sum(l[4] for l in f["lines"]) != fn1[f["name"]]["mispredict_cycles"]:
                raise Fail("branch_sim: profview html puts %d mispredicted cycles on %s's lines, of %d" % (
                    sum(l[4] for l in f["lines"]), f["name"], fn1[f["name"]]["mispredict_cycles"]))
        # the same run gives the same profile
        pf2 = os.path.join(tmp, "sim", "again.pf")
        must([os.path.join(tmp, "sim", "a.prof")], "run", env=dict(os.environ, PROFINST_OUTPUT=pf2))
        self2 = {f["name"]: f["self_cycles"] for f in profile_json(ctx, pf2)["functions"]}
        if self2["random_branch"] != self1["random_branch"]:
            raise Fail("branch_sim: two runs gave %d and %d cycles" % (self1["random_branch"], self2["random_branch"]))
        # threads: a predictor each, freed as each ends
        sim_threads_and_refusal(ctx, tmp, ["--branch-sim"], "instructions", "--branch-sim needs a cycle model")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def unit_reader(ctx):
    """Every truncation and bit flip of a real profile: refused or usable."""
    tmp = tempfile.mkdtemp(prefix="pi-reader-")
    try:
        profile_of(ctx, tmp, os.path.join(HERE, "e2e", "005_function_pointers.c"))
        must([os.path.join(ctx.build, "tests", "test_reader"), os.path.join(tmp, "p.pf")], "test_reader")
        # with the simulations' counters (a record of their own)
        sim = os.path.join(tmp, "sim")
        os.mkdir(sim)
        profile_of(ctx, sim, os.path.join(HERE, "e2e", "005_function_pointers.c"),
                   ["--cpu=zen5", "--branch-sim", "--cache-sim"])
        must([os.path.join(ctx.build, "tests", "test_reader"), os.path.join(sim, "p.pf")], "test_reader")
        # holding its maps, whose tables count arms by their edges, one
        # difference after another (PI_MAP_EDGES)
        edges = os.path.join(tmp, "edges")
        os.mkdir(edges)
        profile_of(ctx, edges, os.path.join(HERE, "e2e", "062_exit_edges.c"), env={"PROFINST_SELF_CONTAINED": "1"})
        must([os.path.join(ctx.build, "tests", "test_reader"), os.path.join(edges, "p.pf")], "test_reader")
        # and profview on a truncated one: one line, status 1
        data = open(os.path.join(tmp, "p.pf"), "rb").read()
        with open(os.path.join(tmp, "t.pf"), "wb") as f:
            f.write(data[: len(data) // 2])
        p = sh([ctx.profview, "report", os.path.join(tmp, "t.pf")])
        if p.returncode != 1 or len(p.stderr.strip().splitlines()) != 1 or "t.pf" not in p.stderr:
            raise Fail("profview on a truncated profile: status %d, stderr %r" % (p.returncode, p.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compile_only_mode(ctx, args=()):
    """profinst -c on an object and on an archive, linked later by cc
    (args: profinst's options, --counts too)."""
    tmp = tempfile.mkdtemp(prefix="pi-cmode-")
    try:
        with open(os.path.join(tmp, "lib.c"), "w") as f:
            f.write("int twice(int x) { return 2 * x; }\nint thrice(int x) { return 3 * x; }\n")
        with open(os.path.join(tmp, "main.c"), "w") as f:
            f.write("#include <stdio.h>\nint twice(int); int thrice(int);\n"
                    "int main(void) { int s = 0; for (int i = 0; i < 7; i++) s += twice(i) + thrice(i);"
                    " printf(\"%d\\n\", s); return 0; }\n")
        for n in ("lib", "main"):
            must(["gcc", "-O1", "-c", os.path.join(tmp, n + ".c"), "-o", os.path.join(tmp, n + ".o")], "compile")
        must(["ar", "rcs", os.path.join(tmp, "libx.a"), os.path.join(tmp, "lib.o")], "ar")
        must([ctx.profinst, "-c", os.path.join(tmp, "main.o"), "-o", os.path.join(tmp, "main.i.o")] + list(args),
             "profinst -c .o")
        must([ctx.profinst, "-c", os.path.join(tmp, "libx.a"), "-o", os.path.join(tmp, "libx.i.a")] + list(args),
             "profinst -c .a")
        rt = os.path.join(ctx.build, "runtime", "libprofinst_rt.a")
        exe = os.path.join(tmp, "app")
        must(["cc", os.path.join(tmp, "main.i.o"), os.path.join(tmp, "libx.i.a"), rt, "-lpthread", "-o", exe], "link")
        p = must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.pf")), cwd=tmp)
        if p.stdout != "105\n":  # 5 * (0 + 1 + ... + 6)
            raise Fail("output %r" % p.stdout)
        pj = profile_json(ctx, os.path.join(tmp, "p.pf"))
        calls = {f["name"]: (f["calls"], f["object"]) for f in pj["functions"]}
        # twice and thrice are undefined in main.o: -c wraps its calls to them
        # as possibly external, and the runtime sees they are instrumented
        want = {"main": (1, "main.o"), "twice": (7, "libx.a(lib.o)"), "thrice": (7, "libx.a(lib.o)"),
                "<external:printf>": (1, "main.o")}
        if calls != want:
            raise Fail("profile functions %r, expected %r" % (calls, want))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# Text views checked against tests/golden/ (Debian 12's gcc, -O1,
# --cpu=instructions); `tests/run.py --rebase` rewrites them after a
# deliberate change: review the diff before committing it.
GOLDEN = [
    ("002_mutual_recursion", [["report"], ["tree"], ["callgraph"], ["detail", "is_even"]]),
    ("005_function_pointers", [["report"], ["tree"], ["callgraph"], ["detail", "apply"], ["annotate", "apply"],
                               ["annotate", "main", "--disasm"]]),
]


def normalize(text):
    text = text.replace(ROOT + "/", "")
    text = re.sub(r"\(pid \d+\)", "(pid N)", text)
    text = re.sub(r"\(tid \d+\)", "(tid N)", text)
    return re.sub(r"Profile of \S+", "Profile of PROGRAM", text)


def golden_case(ctx, name, views, rebase):
    tmp = tempfile.mkdtemp(prefix="pi-golden-")
    try:
        obj = os.path.join(tmp, name + ".o")
        must(["gcc", "-O1", "-g", "-c", os.path.join(HERE, "e2e", name + ".c"), "-o", obj], "compile")
        exe = os.path.join(tmp, name)
        must([ctx.profinst, "--cpu=instructions", obj, "-o", exe], "profinst")
        sh([exe], env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.pf")), cwd=tmp)  # any status
        diffs = []
        for view in views:
            out = normalize(must([ctx.profview, view[0], os.path.join(tmp, "p.pf")] + view[1:], "profview").stdout)
            gold = os.path.join(HERE, "golden", "%s.%s.txt" % (name, "-".join(view)))
            if rebase:
                os.makedirs(os.path.dirname(gold), exist_ok=True)
                with open(gold, "w") as f:
                    f.write(out)
                continue
            want = open(gold).read() if os.path.exists(gold) else "(missing %s)\n" % gold
            if out != want:
                import difflib
                diffs.append("".join(difflib.unified_diff(want.splitlines(True), out.splitlines(True),
                                                          gold, "profview " + " ".join(view))))
        if diffs:
            raise Fail("differs from the golden files (tests/run.py --rebase rewrites them):\n" + "".join(diffs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# A C++ object with a COMDAT group, small enough to mutate everywhere
FUZZ_GROUP_CC = ("template <class T> __attribute__((noinline)) T twice(T x) { return x * 2; }\n"
                 "int main() { return twice(21) - 42; }\n")
# Edges a target's seeds must reach at least: fewer, and the code under
# test was built without the fuzzer's coverage (it would mutate blind)
FUZZ_MIN_COVERAGE = {"object": 5000, "archive": 150, "profile": 500}


def fuzz_case(ctx, target, seconds):
    """A burst of a libFuzzer target (seed 1, at most `seconds`), from a
    corpus of real objects, archives or profiles made here; inputs as long
    as the longest seed, so that what lies at their end (the section
    headers) is mutated too."""
    exe = os.path.join(ctx.fuzz_build, "tests", "fuzz_" + target)
    if not os.access(exe, os.X_OK):
        raise Fail("%s not built (scripts/bootstrap.sh --sanitize builds build-fuzz with clang)" % exe)
    tmp = tempfile.mkdtemp(prefix="pi-fuzz-")
    try:
        corpus = os.path.join(tmp, "corpus")
        os.makedirs(corpus)
        objs = []
        # C and C++ with line tables, COMDAT groups (C++ templates and
        # inline functions), exceptions, hand-written assembly with data in
        # its functions and without .type/.size, a fat LTO object
        for src, cc, flags in (("001_recursion.c", "gcc", ["-O2", "-g"]), ("004_switch.c", "clang", ["-O2", "-g"]),
                               ("011_computed_goto.c", "gcc", ["-O2", "-g"]),
                               ("017_cxx_exceptions.cc", "g++", ["-O2", "-g"]),
                               ("018_cxx_templates.cc", "g++", ["-O1"]),
                               ("045_data_in_code.c", "gcc", ["-O2"]), ("046_asm_without_type.c", "gcc", ["-O2"]),
                               ("005_function_pointers.c", "gcc", ["-O2", "-flto", "-ffat-lto-objects"]),
                               # inlined calls: .debug_info's readers, DWARF 5 and 4
                               ("../annotate/inline.c", "gcc", ["-O2", "-g"]),
                               ("../annotate/inline.c", "clang", ["-O2", "-gdwarf-4"])):
            o = os.path.join(tmp, os.path.basename(src) + "-" + cc + ("-lto" if "-flto" in flags else "") + ".o")
            must([cc] + flags + ["-c", os.path.join(HERE, "e2e", src), "-o", o], "compile")
            objs.append(o)
        group = os.path.join(tmp, "group.cc")
        with open(group, "w") as f:
            f.write(FUZZ_GROUP_CC)
        must(["g++", "-O1", "-c", group, "-o", group + ".o"], "compile")
        objs.append(group + ".o")
        if target == "object":
            for o in objs:
                shutil.copy(o, corpus)
        elif target == "archive":
            must(["ar", "rcs", os.path.join(corpus, "x.a")] + objs[:3], "ar")
            must(["ar", "rcs", os.path.join(corpus, "groups.a"), objs[4], objs[-1]], "ar")
        else:
            exe2 = os.path.join(tmp, "p")
            env = dict(os.environ)
            for name, obj, flags in (("p", objs[0], []),
                                     # the simulations' counters
                                     ("s", objs[0], ["--cpu=zen5", "--branch-sim", "--cache-sim"]),
                                     # C++: demangled names, groups, exceptions
                                     ("x", objs[3], []), ("t", objs[4], []),
                                     # inlined calls' tables
                                     ("n", objs[8], [])):
                must([ctx.profinst] + flags + [obj, "-o", exe2], "profinst")
                sh([exe2], env=dict(env, PROFINST_OUTPUT=os.path.join(corpus, name + ".pf")), cwd=tmp)
            # threads
            thr = os.path.join(tmp, "thr.o")
            must(["gcc", "-O2", "-g", "-c", os.path.join(HERE, "e2e", "022_threads.c"), "-o", thr], "compile")
            must([ctx.profinst, thr, "-o", exe2, "-lpthread"], "profinst")
            must([exe2], "run", env=dict(env, PROFINST_OUTPUT=os.path.join(corpus, "th.pf")), cwd=tmp)
        longest = max(os.path.getsize(os.path.join(corpus, f)) for f in os.listdir(corpus))
        p = sh([exe, "-seed=1", "-runs=100000000", "-max_total_time=%d" % seconds,
                "-max_len=%d" % longest, "-print_final_stats=1", corpus], cwd=tmp, timeout=seconds + 900)
        if p.returncode != 0:
            raise Fail("fuzz_%s found a problem:\n%s" % (target, p.stderr[-3000:]))
        m = re.search(r"INITED cov: (\d+)", p.stderr)
        if not m or int(m.group(1)) < FUZZ_MIN_COVERAGE[target]:
            raise Fail("fuzz_%s: its seeds reach %s edges, want %d at least (built without coverage?)" % (
                target, m.group(1) if m else "no", FUZZ_MIN_COVERAGE[target]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def collect(ctx, args):
    tests = unit_tests(ctx)
    tests += [("unit/reader", lambda: unit_reader(ctx)), ("feature/heap", lambda: feature_heap(ctx)),
             ("feature/describe_cpu", lambda: feature_describe_cpu(ctx)),
             ("feature/page_faults", lambda: feature_page_faults(ctx)),
             ("feature/fd_limit", lambda: feature_fd_limit(ctx)),
             ("feature/loops", lambda: feature_loops(ctx)),
             ("feature/ret_at_caller", lambda: feature_ret_at_caller(ctx)),
             ("feature/frontend", lambda: feature_frontend(ctx)),
             ("feature/branch_sim", lambda: feature_branch_sim(ctx)),
             ("feature/cache_sim", lambda: feature_cache_sim(ctx)),
             ("cmode/object_and_archive", lambda: compile_only_mode(ctx, ("--timed",))),
             ("cmode/object_and_archive_counts", lambda: compile_only_mode(ctx, ("--counts",)))]
    tests += [("golden/%s" % n, lambda n=n, v=v: golden_case(ctx, n, v, args.rebase)) for n, v in GOLDEN]
    # seconds each: CI runs everything in 90 minutes, the rest taking ~10
    tests += [("fuzz/%s" % t, lambda t=t, r=r: fuzz_case(ctx, t, r))
              for t, r in (("object", 300), ("archive", 180), ("profile", 180))]
    e2e = sorted(f for f in os.listdir(os.path.join(HERE, "e2e")) if f.endswith((".c", ".cc")))
    for f in e2e:
        for cc in COMPILERS:
            for opt in OPTS:
                tests.append(("e2e/%s[%s %s]" % (f.rsplit(".", 1)[0], cc, opt),
                              lambda f=f, cc=cc, opt=opt: e2e_case(ctx, os.path.join(HERE, "e2e", f), cc, opt)))
    for f in e2e:
        for cc in COMPILERS:
            for vname, vc, vl in VARIANTS:
                tests.append(("e2e/%s[%s -O2 %s]" % (f.rsplit(".", 1)[0], cc, vname),
                              lambda f=f, cc=cc, vc=vc, vl=vl: e2e_case(
                                  ctx, os.path.join(HERE, "e2e", f), cc, "-O2", vc, vl)))
    import badinput
    import consistency
    import exports
    import real
    import ostiming
    import exttime
    import wrapper
    import safety
    import manpages
    import indirect
    tests += safety.tests(ctx, Fail, sh, must, profile_json)
    tests += wrapper.tests(ctx, Fail, sh, must, profile_json)
    import lineage
    tests += lineage.tests(ctx, Fail, sh, must, profile_json)
    import stripped
    tests += stripped.tests(ctx, Fail, sh, must, profile_json, compare_counts, object_functions)
    import shlib
    tests += shlib.tests(ctx, Fail, sh, must, profile_json, compare_counts, object_functions)
    tests += ostiming.tests(ctx, Fail, sh, must, profile_json)
    tests += indirect.tests(ctx, Fail, sh, must, profile_json)
    tests += exttime.tests(ctx, Fail, sh, must, profile_json)
    tests += ostiming.longrun_tests(ctx, Fail, sh, must)
    tests += exports.tests(ctx, Fail, sh, must, profile_json)
    tests += exports.graph_tests(ctx, Fail, sh, must, profile_json)
    tests += exports.merge_diff_tests(ctx, Fail, sh, must, profile_json)
    tests += exports.annotate_tests(ctx, Fail, sh, must, profile_json)
    tests += exports.html_tests(ctx, Fail, sh, must, profile_json)
    import labels
    tests += labels.tests(ctx, Fail, sh, must, profile_json)
    import large
    tests += large.tests(ctx, Fail, sh, must, profile_json)
    import cpaths
    tests += cpaths.tests(ctx, Fail, sh, must, directives)
    import counting
    tests += counting.tests(ctx, Fail, sh, must, directives)
    import maps
    tests += maps.tests(ctx, Fail, sh, must, profile_json)
    import house
    tests += house.tests(ctx, Fail, sh, must)
    tests += consistency.tests(ctx, Fail, sh, must, profile_json)
    tests += badinput.tests(ctx, Fail, sh)
    import inline
    tests += inline.tests(ctx, Fail, sh, must, profile_json)
    tests += manpages.tests(ctx, Fail, sh, must)
    tests += real.tests(ctx, Fail, sh, must, run_pair, profile_json, compare_counts, object_functions,
                        check_callgraph)
    return tests


# What `tests/run.py` runs without --full or -k, in about a minute: the
# unit and feature tiers, the golden files, bad inputs, and at -O2 the
# e2e cases that cover each kind of code the rewriter treats apart (tail
# calls, jump tables, pointers, setjmp, TLS, live flags, exceptions,
# threads, fork, data in code, code without a symbol), and a program with its
# own shared object, linked and loaded by dlopen.
QUICK_E2E = ["001_recursion", "003_tail_calls", "004_switch", "005_function_pointers", "008_setjmp", "010_tls",
             "015_flags_across_blocks", "017_cxx_exceptions", "022_threads", "027_fork", "045_data_in_code",
             "057_static_functions"]
QUICK = re.compile(r"^(unit|feature|golden|cmode|badinput)/|^e2e/(%s)\[(gcc|clang) -O2\]$"
                   r"|^shlib/(linked|dlopen)\[gcc -O2\]$" % "|".join(QUICK_E2E))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-k", dest="pattern", action="append", default=[],
                    help="run the tests whose name matches this regular expression (repeatable: any of them)")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--full", action="store_true", help="every test (the default is a quick selection)")
    ap.add_argument("--keep", action="store_true", help="keep temporary directories")
    ap.add_argument("--rebase", action="store_true", help="rewrite the golden files")
    ap.add_argument("--fuzz-build", default=None, help="the clang build with the fuzz targets [build-fuzz]")
    args = ap.parse_args()
    ctx = Ctx(args.build, args.keep, args.fuzz_build)
    for tool in (ctx.profinst, ctx.profview):
        if not os.access(tool, os.X_OK):
            sys.exit("tests/run.py: %s not built (meson compile -C %s)" % (tool, args.build))
    tests = collect(ctx, args)
    if args.pattern:
        tests = [t for t in tests if any(re.search(p, t[0]) for p in args.pattern)]
    elif not args.full:
        tests = [t for t in tests if QUICK.search(t[0])]
    passed = failed = 0

    def one(t):
        try:
            t[1]()
            return t[0], None
        except Fail as e:
            return t[0], str(e)
        except Exception:
            return t[0], traceback.format_exc()

    with cf.ThreadPoolExecutor(max_workers=args.j) as ex:
        for name, err in ex.map(one, tests):
            if err is None:
                passed += 1
                print("PASS %s" % name, flush=True)
            else:
                failed += 1
                print("FAIL %s\n  %s" % (name, err.replace("\n", "\n  ")), flush=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
