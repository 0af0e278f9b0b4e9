"""OS-call timing (issue: the hard programs): a program doing reads, writes,
sleeps, polls, raw system calls and a qsort callback, instrumented with a
cycle model, run and compared with the native program; its profile must
give reads and writes their own rows' self, measured (OS column), leave
the waits out unless --charge-waits (the Wait column), and nest the
comparator under <external:qsort>.
Time measured is real, so the checks are bounds, not exact figures; the
call counts are exact.  Short C library functions the goldencove model
costs itself (os/fixed_libc) are exact and the same in every run."""
import json
from fractions import Fraction
import os
import shutil
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def X(v):
    """A figure of the JSON, exactly."""
    return Fraction(str(v))


def tests(ctx, Fail, sh, must, profile_json):
    src = os.path.join(HERE, "os", "036_os_calls.c")

    def build(tmp, extra):
        obj = os.path.join(tmp, "os.o")
        must(["gcc", "-O2", "-g", "-c", src, "-o", obj], "compile")
        native = os.path.join(tmp, "native")
        must(["gcc", obj, "-o", native], "link native")
        exe = os.path.join(tmp, "os.prof")
        must([ctx.profinst, "--cpu=goldencove"] + extra + [obj, "-o", exe], "profinst")
        return native, exe

    def run(tmp, native, exe):
        a = sh([native, "x"], cwd=tmp)
        prof = os.path.join(tmp, "p.prof")
        b = sh([exe, "x"], cwd=tmp, env=dict(os.environ, PROFINST_OUTPUT=prof))
        if (a.returncode, a.stdout) != (b.returncode, b.stdout) or a.returncode != 3:
            raise Fail("native %r %r, instrumented %r %r" % (a.returncode, a.stdout, b.returncode, b.stdout))
        pj = profile_json(ctx, prof)
        return prof, pj, {f["name"]: f for f in pj["functions"]}

    def default_policy():
        tmp = tempfile.mkdtemp(prefix="pi-os-")
        try:
            native, exe = build(tmp, [])
            prof, pj, fn = run(tmp, native, exe)
            if not pj["os_charged"]:
                raise Fail("a cycle model's profile says OS time is not charged")
            for name, calls in (("<external:qsort>", 1), ("<external:read>", None), ("<external:write>", None),
                                ("<external:nanosleep>", 1), ("<external:poll>", 1), ("cmp", None)):
                if name not in fn:
                    raise Fail("no %s in the profile" % name)
                if calls is not None and fn[name]["calls"] != calls:
                    raise Fail("%s calls=%d, want %d" % (name, fn[name]["calls"], calls))
            # 20 rounds over the executable, one read more per round than
            # its size in 4 KiB blocks (the one that returns 0)
            size = os.path.getsize(exe)
            reads = 20 * ((size + 4095) // 4096 + 1)
            if fn["<external:read>"]["calls"] != reads:
                raise Fail("read calls=%d, want %d" % (fn["<external:read>"]["calls"], reads))
            if fn["<external:write>"]["calls"] != reads - 20:
                raise Fail("write calls=%d, want %d" % (fn["<external:write>"]["calls"], reads - 20))
            # the comparator is called by qsort, called by sorter
            callers = [c["name"] for c in fn["cmp"]["callers"]]
            if callers != ["<external:qsort>"]:
                raise Fail("cmp's callers %r" % callers)
            if [c["name"] for c in fn["<external:qsort>"]["callers"]] != ["sorter"]:
                raise Fail("qsort's callers %r" % fn["<external:qsort>"]["callers"])
            # an external's measured time is its own row's self, all of it
            # measured (OS); its callers' self is their own code, and a raw
            # system call's time is in the function that makes it
            for name in ("<external:read>", "<external:write>", "<external:qsort>"):
                f = fn[name]
                if not 0 < f["os_cycles"] == f["self_cycles"] or not f["measured"] or f["os_left_cycles"]:
                    raise Fail("%s: self=%d os=%d left out=%d measured=%r" % (
                        name, f["self_cycles"], f["os_cycles"], f["os_left_cycles"], f["measured"]))
            for name in ("copier", "sorter"):
                f = fn[name]
                if f["os_cycles"] or f["os_left_cycles"] or f["measured"]:
                    raise Fail("%s: os=%d, left out=%d: an external's time in its caller's row" % (
                        name, f["os_cycles"], f["os_left_cycles"]))
            if fn["copier"]["incl_cycles"] < fn["copier"]["self_cycles"] + fn["<external:read>"]["self_cycles"]:
                raise Fail("copier's self+descendants leave out read's time")
            f = fn["raw_getpid"]
            if not 0 < f["os_cycles"] <= f["self_cycles"] or not f["measured"]:
                raise Fail("raw_getpid: os=%d self=%d" % (f["os_cycles"], f["self_cycles"]))
            if fn["cmp"]["measured"] or fn["cmp"]["os_cycles"]:
                raise Fail("cmp, a callback, has measured time")
            # 50 ms of sleeping and polling: measured, not charged, in the
            # waits' own rows
            waited = fn["<external:nanosleep>"]["os_left_cycles"] + fn["<external:poll>"]["os_left_cycles"]
            charged = sum(fn[n]["os_cycles"] + fn[n]["self_cycles"] for n in ("<external:nanosleep>", "<external:poll>"))
            if waited < 10 ** 7 or charged or fn["sleeper"]["os_left_cycles"] or fn["sleeper"]["os_cycles"]:
                raise Fail("sleeper: waited %d, charged %d, in sleeper's row os=%d, left out=%d" % (
                    waited, charged, fn["sleeper"]["os_cycles"], fn["sleeper"]["os_left_cycles"]))
            if pj["wait_cycles"] != pj["os_left_cycles"] or pj["wait_cycles"] < waited:
                raise Fail("wait_cycles %d, os_left_cycles %d" % (pj["wait_cycles"], pj["os_left_cycles"]))
            # (exact figures, fractions of a cycle: added up as fractions)
            total_self = sum(X(f["self_cycles"]) for f in pj["functions"])
            if total_self != X(pj["total_cycles"]) or X(pj["os_cycles"]) != sum(X(f["os_cycles"]) for f in pj["functions"]):
                raise Fail("totals do not add up")
            # the header's measured share: the measured externals' and
            # system calls' time
            if X(pj["os_cycles"]) != sum(X(f["self_cycles"]) for f in pj["functions"] if f["external"]) + \
                    X(fn["raw_getpid"]["os_cycles"]):
                raise Fail("os_cycles %d is not the externals' and system calls' time" % pj["os_cycles"])
            text = must([ctx.profview, "report", prof], "report").stdout
            header = [ln for ln in text.splitlines() if ln.lstrip().startswith("Calls ")]
            share = "%d cycles (%.1f%%)" % (int(X(pj["os_cycles"]) + Fraction(1, 2)),
                                            100.0 * pj["os_cycles"] / pj["total_cycles"])
            if "Left out:" not in text or not header or " OS " not in header[0] or " Wait " not in header[0] or \
                    share not in text:
                raise Fail("the report does not show the OS and Wait columns, the measured share (%s) and "
                           "what was left out:\n%s" % (share, text))
            det = must([ctx.profview, "detail", prof, "copier"], "detail").stdout
            if "OS " not in det:
                raise Fail("detail shows no OS cycles:\n" + det)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def charge_waits():
        tmp = tempfile.mkdtemp(prefix="pi-os-")
        try:
            native, exe = build(tmp, ["--charge-waits"])
            prof, pj, fn = run(tmp, native, exe)
            w = [fn[n] for n in ("<external:nanosleep>", "<external:poll>")]
            if sum(f["os_cycles"] for f in w) < 10 ** 7 or sum(f["os_left_cycles"] for f in w) or \
                    any(f["self_cycles"] != f["os_cycles"] for f in w):
                raise Fail("--charge-waits: the waits' rows %r" % w)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def fixed_libc():
        # malloc, free, strlen and memcpy: costed by the goldencove model
        # (rewriter/model.c, goldencove_libc), not timed
        tmp = tempfile.mkdtemp(prefix="pi-os-")
        try:
            src = os.path.join(HERE, "os", "037_fixed_libc.c")
            obj = os.path.join(tmp, "f.o")
            must(["gcc", "-O2", "-c", src, "-o", obj], "compile")
            native = os.path.join(tmp, "native")
            must(["gcc", obj, "-o", native], "link native")
            want = sh([native]).stdout
            runs = []
            for cpu, name in (("goldencove", "g"), ("goldencove", "g2"), ("skylake", "s")):
                exe = os.path.join(tmp, name + ".prof")
                must([ctx.profinst, "--cpu=" + cpu, obj, "-o", exe], "profinst")
                prof = os.path.join(tmp, name + ".pf")
                r = sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof))
                if r.returncode or r.stdout != want:
                    raise Fail("%s: %r, native %r" % (cpu, r.stdout, want))
                runs.append({f["name"]: f for f in profile_json(ctx, prof)["functions"]})
            g, g2, sk = runs
            for name, calls in (("<external:malloc>", 1000), ("<external:free>", 2000),
                                ("<external:realloc>", 2000),
                                ("<external:strlen>", 1000), ("<external:memcpy>", 2000)):
                if g.get(name, {}).get("calls") != calls:
                    raise Fail("%s calls=%r, want %d" % (name, g.get(name, {}).get("calls"), calls))
            # the model's costs are the externals' own self, not measured;
            # their callers' descendants, the same every run
            def ext(run, f):
                return run[f]["incl_cycles"] - run[f]["self_cycles"]
            for f in ("allocs", "reallocs", "small_copies", "large_copies"):
                if not ext(g, f) or ext(g, f) != ext(g2, f) or g[f]["self_cycles"] != g2[f]["self_cycles"]:
                    raise Fail("%s: externals' cycles %d and %d in two runs: not the model's" %
                               (f, ext(g, f), ext(g2, f)))
                if g[f]["os_cycles"] or sk[f]["os_cycles"] or g[f]["measured"]:
                    raise Fail("%s: measured time in a function calling only modelled ones" % f)
            for run in (g, sk):
                for name in ("<external:malloc>", "<external:free>", "<external:strlen>", "<external:memcpy>"):
                    if run[name]["os_cycles"] or run[name]["measured"] or not run[name]["self_cycles"]:
                        raise Fail("%s: %r: measured, or no cost of the model's" % (name, run[name]))
            # realloc(NULL) 15 cycles (a malloc), realloc 50, free 11
            if ext(g, "reallocs") != 1000 * (15 + 50 + 11):
                raise Fail("reallocs: %d cycles in externals, want %d" % (ext(g, "reallocs"), 1000 * (15 + 50 + 11)))
            # 16 cycles a KiB: 8128 bytes more, 1000 times
            d = ext(g, "large_copies") - ext(g, "small_copies")
            if d != 127000:
                raise Fail("large - small copies: %d cycles in memcpy, want 127000" % d)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("os/charged_and_waits", default_policy), ("os/charge_waits", charge_waits),
            ("os/fixed_libc", fixed_libc)]


def longrun_tests(ctx, Fail, sh, must):
    """Memory does not grow with the number of calls: the calling-context
    tree has a node per context, not per call."""
    src = os.path.join(HERE, "e2e", "033_many_calls.c")

    def maxrss(argv, env):
        pid = os.fork()
        if pid == 0:
            try:
                fd = os.open(os.devnull, os.O_WRONLY)
                os.dup2(fd, 1)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        _, status, ru = os.wait4(pid, 0)
        if status:
            raise Fail("%s exited with status %d" % (argv, status))
        return ru.ru_maxrss  # KiB

    def bounded():
        tmp = tempfile.mkdtemp(prefix="pi-long-")
        try:
            obj = os.path.join(tmp, "l.o")
            must(["gcc", "-O2", "-c", src, "-o", obj], "compile")
            exe = os.path.join(tmp, "l.prof")
            must([ctx.profinst, obj, "-o", exe], "profinst")
            env = dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.prof"))
            small = maxrss([exe, "1000000"], env)
            big = maxrss([exe, "200000000"], env)
            if big > small + 1024:
                raise Fail("max RSS %d KiB after 2x10^8 calls, %d KiB after 10^6" % (big, small))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("longrun/bounded_memory", bounded)]
