"""Safe to run anywhere: what an instrumented program does where people who
did not build it run it (as root, setuid, in shared directories, under
limits, with threads and signals).  Programs in tests/safety; each case
checks what the program shows (output, status) against the native build
and what the profile says, or that nothing it must not touch was touched."""
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(HERE, "safety")


def tests(ctx, Fail, sh, must, profile_json):
    def build(tmp, name, model="instructions", cflags=("-O2",), args=()):
        obj = os.path.join(tmp, name + ".o")
        must(["gcc"] + list(cflags) + ["-g", "-c", os.path.join(SRC, name + ".c"), "-o", obj], "compile")
        native = os.path.join(tmp, name + ".native")
        must(["gcc", obj, "-o", native, "-lpthread"], "link native")
        exe = os.path.join(tmp, name + ".prof")
        must([ctx.profinst, "--cpu=" + model, obj, "-o", exe, "-lpthread"] + list(args), "profinst")
        return native, exe

    def case(fn):
        def run():
            tmp = tempfile.mkdtemp(prefix="pi-safety-")
            os.chmod(tmp, 0o755)
            try:
                fn(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return run

    def one_line(stderr, words):
        lines = [l for l in stderr.splitlines() if l.strip()]
        if len(lines) != 1 or not all(w in lines[0] for w in words):
            raise Fail("expected one line on stderr with %r, got:\n%s" % (words, stderr))

    def same_as_native(native, exe, args=(), env=None, cwd=None):
        a = sh([native] + list(args), cwd=cwd)
        b = sh([exe] + list(args), env=dict(os.environ, **(env or {})), cwd=cwd)
        if (a.returncode, a.stdout) != (b.returncode, b.stdout):
            raise Fail("native %r %r, instrumented %r %r\n%s" % (
                a.returncode, a.stdout[-300:], b.returncode, b.stdout[-300:], b.stderr[-1500:]))
        return b

    def leftovers(d):
        return [f for f in os.listdir(d) if ".tmp." in f]

    # ----- where the profile goes

    @case
    def setuid(tmp):
        """A setuid-root copy run by nobody: PROFINST_OUTPUT is ignored, a
        root-only file is left alone, and the profile lands only where
        nobody could write, owned by nobody."""
        if os.geteuid() != 0:
            raise Fail("needs root (to make a setuid-root copy and run it as nobody)")
        native, exe = build(tmp, "exit_race")
        prog = os.path.join(tmp, "prog")
        shutil.copy(exe, prog)
        os.chown(prog, 0, 0)
        os.chmod(prog, 0o4755)
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("secret\n")
        os.chmod(victim, 0o600)
        pub = os.path.join(tmp, "pub")
        os.mkdir(pub)
        os.chmod(pub, 0o1777)
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                     "env", "PROFINST_OUTPUT=" + victim, prog, "exit", "0"]
        # from a directory nobody cannot write: nothing written, one line
        p = sh(as_nobody, cwd=tmp)
        if p.returncode != 4 or p.stdout != "started\n":
            raise Fail("setuid run: status %d, output %r\n%s" % (p.returncode, p.stdout, p.stderr))
        one_line(p.stderr, ["PROFINST_OUTPUT ignored", "no profile written", "Permission denied"])
        if open(victim).read() != "secret\n" or os.stat(victim).st_uid != 0:
            raise Fail("the root-only file was changed")
        if [f for f in os.listdir(tmp) if f.startswith("profinst.out")]:
            raise Fail("a profile was written where the real user cannot write")
        # from a directory nobody can write: the profile, nobody's
        p = sh(as_nobody, cwd=pub)
        one_line(p.stderr, ["PROFINST_OUTPUT ignored", "profile written"])
        profs = [f for f in os.listdir(pub) if f.startswith("profinst.out.")]
        if len(profs) != 1:
            raise Fail("expected one profile in the public directory, found %r" % profs)
        st = os.stat(os.path.join(pub, profs[0]))
        if (st.st_uid, st.st_gid) != (65534, 65534):
            raise Fail("the profile belongs to %d:%d, not to the real user" % (st.st_uid, st.st_gid))
        if open(victim).read() != "secret\n":
            raise Fail("the root-only file was changed")
        profile_json(ctx, os.path.join(pub, profs[0]))

    @case
    def planted_links(tmp):
        """A symbolic link at the output's name, to a victim or to nowhere:
        refused with one line, the victim untouched, nothing created."""
        native, exe = build(tmp, "exec_fail")
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        os.symlink(victim, os.path.join(tmp, "out.prof"))
        p = same_as_native(native, exe, env={"PROFINST_OUTPUT": os.path.join(tmp, "out.prof")}, cwd=tmp)
        one_line(p.stderr, ["out.prof", "symbolic link"])
        if open(victim).read() != "precious\n":
            raise Fail("the link's target was written")
        os.symlink(os.path.join(tmp, "created"), os.path.join(tmp, "dangling.prof"))
        p = same_as_native(native, exe, env={"PROFINST_OUTPUT": os.path.join(tmp, "dangling.prof")}, cwd=tmp)
        one_line(p.stderr, ["dangling.prof", "symbolic link"])
        if os.path.lexists(os.path.join(tmp, "created")):
            raise Fail("a dangling link's target was created")
        if leftovers(tmp):
            raise Fail("temporary files left: %r" % leftovers(tmp))

    @case
    def replaced(tmp):
        """A profile written where one is already: the name holds the new
        one, a reader who opened the old one reads all of it still, a file
        the old name was a hard link to is left as it was, and no
        temporary stays (the runtime exchanges the two names where the file
        system can, so that ext4 does not write the file to disk at once)."""
        native, exe = build(tmp, "deep")
        out = os.path.join(tmp, "out.prof")
        env = {"PROFINST_OUTPUT": out}

        def down_calls(prof):
            return {f["name"]: f["calls"] for f in profile_json(ctx, prof)["functions"]}.get("down")

        same_as_native(native, exe, ["100"], env=env, cwd=tmp)
        old = open(out, "rb")
        size = os.fstat(old.fileno()).st_size
        same_as_native(native, exe, ["200"], env=env, cwd=tmp)
        if down_calls(out) != 201:
            raise Fail("the second run's profile has down() %r times, want 201" % down_calls(out))
        data = old.read()
        old.close()
        if len(data) != size:
            raise Fail("the first profile, open while the second replaced it, reads %d bytes of %d" % (len(data), size))
        keep = os.path.join(tmp, "keep.prof")
        with open(keep, "wb") as f:
            f.write(data)
        if down_calls(keep) != 101:
            raise Fail("the first profile, read through its open file, has down() %r times" % down_calls(keep))
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        os.unlink(out)
        os.link(victim, out)
        same_as_native(native, exe, ["300"], env=env, cwd=tmp)
        if open(victim).read() != "precious\n" or os.stat(victim).st_nlink != 1:
            raise Fail("the file the output was a hard link to was changed")
        if down_calls(out) != 301:
            raise Fail("the profile over a hard link has down() %r times, want 301" % down_calls(out))
        if leftovers(tmp):
            raise Fail("temporary files left: %r" % leftovers(tmp))

    @case
    def special_files(tmp):
        """A device is written in place, never replaced (a private copy of
        /dev/null, as root); a FIFO with a reader gets the profile; one with
        none, and a directory, are refused with one line and never hold the
        program.  A FIFO gets what was written at an exec (a checkpoint): what
        is written in place stays."""
        native, exe = build(tmp, "deep")
        args = ["1000"]
        if os.geteuid() == 0:
            null = os.path.join(tmp, "null")
            os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            p = same_as_native(native, exe, args, env={"PROFINST_OUTPUT": null}, cwd=tmp)
            if p.stderr.strip():
                raise Fail("writing to a null device said: %s" % p.stderr)
            if not stat.S_ISCHR(os.lstat(null).st_mode):
                raise Fail("the device node was replaced")
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)

        def through_fifo(native, exe, args):
            """The program's output, its profile read from the FIFO as it
            is written (the reader opened first, so the program finds it)."""
            rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            data = b""
            try:
                a = sh([native] + list(args), cwd=tmp)
                b = subprocess.Popen([exe] + list(args), env=dict(os.environ, PROFINST_OUTPUT=fifo), cwd=tmp,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                while True:
                    done = b.poll() is not None
                    try:
                        chunk = os.read(rfd, 1 << 16)
                    except BlockingIOError:
                        chunk = None
                    if chunk:
                        data += chunk
                    elif done:
                        break
                    else:
                        time.sleep(0.001)
                out, err = b.communicate(timeout=60)
            finally:
                os.close(rfd)
            if (a.returncode, a.stdout) != (b.returncode, out.decode()):
                raise Fail("native %r %r, instrumented %r %r" % (a.returncode, a.stdout, b.returncode, out))
            if err.strip():
                raise Fail("writing to a FIFO said: %s" % err)
            copy = os.path.join(tmp, "copy.prof")
            with open(copy, "wb") as f:
                f.write(data)
            return profile_json(ctx, copy)
        pj = through_fifo(native, exe, args)
        if not any(f["name"] == "down" and f["calls"] == 1001 for f in pj["functions"]):
            raise Fail("the profile read from the FIFO lacks down(): %r" % pj["functions"][:5])
        if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
            raise Fail("the FIFO was replaced")
        en, ee = build(tmp, "exec_fail")
        pj = through_fifo(en, ee, [])
        calls = {f["name"]: f["calls"] for f in pj["functions"]}
        if not pj["checkpoint"] or calls.get("before") != 1000 or "after" in calls:
            raise Fail("at an exec, the FIFO should get the checkpoint: %r %r" % (pj["checkpoint"], calls))
        p = same_as_native(native, exe, args, env={"PROFINST_OUTPUT": fifo}, cwd=tmp)
        one_line(p.stderr, ["fifo", "nobody reads"])
        d = os.path.join(tmp, "dir")
        os.mkdir(d)
        p = same_as_native(native, exe, args, env={"PROFINST_OUTPUT": d}, cwd=tmp)
        one_line(p.stderr, ["dir", "directory"])
        if leftovers(tmp):
            raise Fail("temporary files left: %r" % leftovers(tmp))

    @case
    def profview_outputs(tmp):
        """profview's writers take the same care: a link at the output is
        refused, its target untouched."""
        native, exe = build(tmp, "exec_fail")
        prof, prof2 = os.path.join(tmp, "p.prof"), os.path.join(tmp, "p2.prof")
        sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof2), cwd=tmp)  # (merge refuses one profile twice)
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        for args in (["export", "--format=callgrind", prof], ["merge", prof, prof2], ["graph", prof]):
            link = os.path.join(tmp, "out." + args[0])
            os.symlink(victim, link)
            p = sh([ctx.profview] + args + ["-o", link])
            if p.returncode == 0 or "symbolic link" not in p.stderr:
                raise Fail("profview %s -o LINK: status %d, %s" % (args[0], p.returncode, p.stderr))
            if open(victim).read() != "precious\n":
                raise Fail("profview %s wrote through a link" % args[0])
        if leftovers(tmp):
            raise Fail("temporary files left: %r" % leftovers(tmp))

    # ----- how the program ends

    def exit_race(how, status):
        @case
        def run(tmp):
            """exit or _exit while 16 threads start and call: 200 runs, none
            may crash (one in thirty did when frames were published before
            they were complete and the threads were not stopped while the
            profile was written), each writes a profile that reads."""
            native, exe = build(tmp, "exit_race")
            bad = []
            for i in range(200):
                out = os.path.join(tmp, "p%d.prof" % i)
                p = sh([exe, how, "16"], env=dict(os.environ, PROFINST_OUTPUT=out), cwd=tmp, timeout=120)
                if p.returncode != status or p.stdout != "started\n" or p.stderr:
                    bad.append("run %d: status %d, %r %r" % (i, p.returncode, p.stdout, p.stderr[-300:]))
                elif not os.path.exists(out):
                    bad.append("run %d: no profile" % i)
                elif i % 20 == 0:
                    profile_json(ctx, out)
            if bad:
                raise Fail("%d of 200 runs went wrong:\n%s" % (len(bad), "\n".join(bad[:10])))
            if leftovers(tmp):
                raise Fail("temporary files left: %r" % leftovers(tmp)[:5])
        return run

    @case
    def exec_fails(tmp):
        """A failed exec: the program goes on, and the profile holds what
        it did after (it was cut at the exec)."""
        native, exe = build(tmp, "exec_fail")
        prof = os.path.join(tmp, "p.prof")
        same_as_native(native, exe, env={"PROFINST_OUTPUT": prof}, cwd=tmp)
        pj = profile_json(ctx, prof)
        calls = {f["name"]: f["calls"] for f in pj["functions"]}
        if calls.get("before") != 1000 or calls.get("after") != 2000:
            raise Fail("before/after calls %r/%r, want 1000/2000" % (calls.get("before"), calls.get("after")))
        if pj["checkpoint"]:
            raise Fail("the profile of a program that ended normally says it is a checkpoint")

    @case
    def deep_recursion(tmp):
        """Recursion 4.5 million deep (past any fixed shadow stack of 2^22
        frames): every call counted, nothing lost."""
        native, exe = build(tmp, "deep")
        prof = os.path.join(tmp, "p.prof")
        same_as_native(native, exe, env={"PROFINST_OUTPUT": prof}, cwd=tmp)
        pj = profile_json(ctx, prof)
        calls = {f["name"]: f["calls"] for f in pj["functions"]}
        if calls.get("down") != 4500001:
            raise Fail("down: %r calls, want 4500001" % calls.get("down"))
        if any(pj["lost"].values()):
            raise Fail("lost: %r" % pj["lost"])

    # ----- what the program can observe

    @case
    def short_threads(tmp):
        """20 000 short threads one after another: the runtime reuses an
        ended thread's memory; what stays (the threads' trees and counts,
        for the profile) is small, and mappings do not pile up."""
        native, exe = build(tmp, "short_threads", model="zen5")
        prof = os.path.join(tmp, "p.prof")
        a = sh([native, "20000"], cwd=tmp)
        b = sh([exe, "20000"], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        if (a.returncode, a.stdout) != (b.returncode, b.stdout):
            raise Fail("native %r %r, instrumented %r %r" % (a.returncode, a.stdout, b.returncode, b.stdout))

        def figures(err):
            w = [l.split() for l in err.splitlines() if l.startswith("rss_kb")][0]
            return int(w[1]), int(w[3])
        (rss0, maps0), (rss1, maps1) = figures(a.stderr), figures(b.stderr)
        if maps1 > maps0 + 40:
            raise Fail("mappings: native %d, instrumented %d" % (maps0, maps1))
        if rss1 > rss0 + 48 * 1024:
            raise Fail("resident: native %d KiB, instrumented %d KiB" % (rss0, rss1))
        pj = profile_json(ctx, prof)
        calls = {f["name"]: f["calls"] for f in pj["functions"]}
        if pj["threads"] != 20001 or calls.get("work") != 200000:
            raise Fail("threads %d, work() calls %r" % (pj["threads"], calls.get("work")))

    @case
    def address_space_limit(tmp):
        """Under ulimit -v 300000 the program runs as natively and writes
        its profile (a thread used to reserve 369 MB)."""
        native, exe = build(tmp, "exit_race")
        prof = os.path.join(tmp, "p.prof")
        lim = ["prlimit", "--as=%d" % (300000 * 1024), "--"]
        a = sh(lim + [native, "exit", "2"], cwd=tmp)
        b = sh(lim + [exe, "exit", "2"], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        if (a.returncode, a.stdout) != (b.returncode, b.stdout) or b.stderr:
            raise Fail("native %r %r, instrumented %r %r %r" % (a.returncode, a.stdout, b.returncode, b.stdout,
                                                               b.stderr))
        pj = profile_json(ctx, prof)
        if pj["threads"] < 1 or not any(f["name"] == "main" for f in pj["functions"]):
            raise Fail("the profile under the limit lacks main")

    @case
    def signal_storm(tmp):
        """A 10 kHz SIGALRM storm: a handler call that lands while the
        runtime is busy cannot be recorded, but it is counted as not
        recorded: calls + not recorded = the handler's own count."""
        native, exe = build(tmp, "storm")
        prof = os.path.join(tmp, "p.prof")
        b = sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        if b.returncode != 0 or b.stdout != "done\n":
            raise Fail("status %d, %r %r" % (b.returncode, b.stdout, b.stderr))
        ticks = int(b.stderr.split()[1])
        pj = profile_json(ctx, prof)
        calls = {f["name"]: f["calls"] for f in pj["functions"]}
        got = calls.get("on_alarm", 0) + pj["lost"]["nested_calls"]
        if got != ticks:
            raise Fail("on_alarm: %d calls + %d not recorded != %d ticks" % (
                calls.get("on_alarm", 0), pj["lost"]["nested_calls"], ticks))
        if pj["lost"]["nested_calls"]:
            rep = must([ctx.profview, "report", prof], "report").stdout
            if "Not recorded: %d call" % pj["lost"]["nested_calls"] not in rep:
                raise Fail("the report does not say what was not recorded:\n" + rep[:600])

    def storm_callbacks(args):
        @case
        def run(tmp):
            """The storm where most entries come from outside (a
            comparator called by qsort): a handler that lands in the
            middle of an entry or a return must leave the runtime's
            records whole, 20 runs in a row (the counting runtime's
            trampoline table was overwritten, and its program crashed)."""
            native, exe = build(tmp, "storm_callbacks", args=args)
            for i in range(20):
                prof = os.path.join(tmp, "p%d.prof" % i)
                b = sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
                if b.returncode != 0 or b.stdout != "done\n":
                    raise Fail("run %d: status %d, %r %r" % (i, b.returncode, b.stdout, b.stderr))
                ticks = int(b.stderr.split()[1])
                pj = profile_json(ctx, prof)
                calls = {f["name"].split(".")[0]: f["calls"] for f in pj["functions"]}
                # a handler call not recorded leaves its call of deep
                # not recorded either
                on, deep, nested = calls.get("on_alarm", 0), calls.get("deep", 0), pj["lost"]["nested_calls"]
                if on + nested // 2 != ticks or nested % 2 or deep != on or not calls.get("cmp"):
                    raise Fail("run %d: on_alarm %d calls, deep %d, %d not recorded, %d ticks; cmp %r calls" % (
                        i, on, deep, nested, ticks, calls.get("cmp")))
        return run

    def storm_pointers(args):
        @case
        def run(tmp):
            """Calls through pointers in a loop under a storm of signals
            whose handler calls through pointers too: the loop's sum is the
            native one, 3 runs in a row, and every handler call is counted
            (the counting runtime kept a pointer call's target in a word
            the handler's calls overwrote, and the loop called the
            handler's targets: 3 wrong sums in 3 runs)."""
            native, exe = build(tmp, "storm_pointers", args=args)
            want = sh([native, "5000000"], cwd=tmp).stdout
            for i in range(3):
                prof = os.path.join(tmp, "p%d.prof" % i)
                b = sh([exe, "5000000"], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
                if b.returncode != 0 or b.stdout != want:
                    raise Fail("run %d: status %d, %r (native %r) %r" % (i, b.returncode, b.stdout, want, b.stderr))
                signals = int(b.stderr.split()[1])
                pj = profile_json(ctx, prof)
                calls = {f["name"]: f["calls"] for f in pj["functions"]}
                got = calls.get("on_alarm", 0) + pj["lost"]["nested_calls"] // 3
                if not signals or got != signals or calls.get("add3") != 2500000 or calls.get("mul5") != 2500000:
                    raise Fail("run %d: %d signals, on_alarm %r calls, add3 %r, mul5 %r, %d not recorded" % (
                        i, signals, calls.get("on_alarm"), calls.get("add3"), calls.get("mul5"),
                        pj["lost"]["nested_calls"]))
        return run

    @case
    def term_during_write(tmp):
        """SIGTERM after SIGTERM while the profile is written at exit (a
        profile of 20 000 ended threads): the write finishes, the profile is
        whole, no temporary is left; the program ends on the signal or on
        its exit, as it may natively.  (A signal used to cut the write,
        leaving a temporary and no profile.)"""
        native, exe = build(tmp, "term_at_exit")
        for i, delay in enumerate((0, 300, 600, 1000, 2000, 4000)):
            prof = os.path.join(tmp, "p%d.prof" % i)
            b = sh([exe, str(delay), "20000"], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            if b.returncode not in (0, -15):
                raise Fail("delay %d: status %d %s" % (delay, b.returncode, b.stderr[-500:]))
            if not os.path.exists(prof):
                raise Fail("delay %d: no profile (status %d)" % (delay, b.returncode))
            pj = profile_json(ctx, prof)
            if pj["threads"] < 20001:  # (and the killer, if it started in time)
                raise Fail("delay %d: %d threads in the profile" % (delay, pj["threads"]))
        if leftovers(tmp):
            raise Fail("temporary files left: %r" % leftovers(tmp))

    @case
    def async_cancel(tmp):
        """Threads cancelled asynchronously, often inside a stub: the thread
        still finishes (its figures sane and kept: it used to leave them in
        its freed TLS, and a later thread read them as 2^59 cycles), and the
        cleanup calls it could not record are marked, not silently lost."""
        native, exe = build(tmp, "cancel", model="zen5")
        for i in range(3):
            prof = os.path.join(tmp, "p%d.prof" % i)
            b = sh([exe, "50"], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            if b.returncode != 0 or b.stdout != "cancelled 50\n":
                raise Fail("status %d, %r %r" % (b.returncode, b.stdout, b.stderr))
            cleanups = int(b.stderr.split()[1])
            pj = profile_json(ctx, prof)
            f = {x["name"]: x for x in pj["functions"]}
            if f["run"]["calls"] != 50 or pj["threads"] != 51:
                raise Fail("run() %d calls, %d threads" % (f["run"]["calls"], pj["threads"]))
            if max(x["self_cycles"] for x in pj["functions"]) > pj["total_cycles"] or pj["total_cycles"] > 1 << 40:
                raise Fail("absurd figures: total %d" % pj["total_cycles"])
            got = f.get("cleanup", {"calls": 0})["calls"]
            if got > cleanups or (got < cleanups and pj["lost"]["nested_calls"] < cleanups - got):
                raise Fail("cleanup: %d calls, %d not recorded, %d made" % (
                    got, pj["lost"]["nested_calls"], cleanups))

    @case
    def malloc_under_limit(tmp):
        """malloc until it fails under ulimit -v 500000: the program gets
        within 16 MiB of what it gets natively (it got 132 MiB of 485)."""
        native, exe = build(tmp, "malloc_limit")
        lim = ["prlimit", "--as=%d" % (500000 * 1024), "--"]
        a = sh(lim + [native], cwd=tmp)
        b = sh(lim + [exe], env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.prof")), cwd=tmp)
        got0, got1 = int(a.stderr.split()[1]), int(b.stderr.split()[-1])
        if b.returncode != 0 or got1 < got0 - 16:
            raise Fail("native got %d MiB, instrumented %d MiB (status %d, %s)" % (got0, got1, b.returncode,
                                                                               b.stderr[-300:]))

    @case
    def many_threads_under_limit(tmp):
        """1000 threads alive at once under ulimit -v 4000000 start as they
        do natively (they failed to start), and all are in the profile."""
        native, exe = build(tmp, "many_threads", model="zen5")
        prof = os.path.join(tmp, "p.prof")
        lim = ["prlimit", "--as=%d" % (4000000 * 1024), "--"]
        a = sh(lim + [native, "1000"], cwd=tmp)
        b = sh(lim + [exe, "1000"], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        if (a.returncode, a.stdout) != (b.returncode, b.stdout) or a.returncode:
            raise Fail("native %r %r, instrumented %r %r %s" % (a.returncode, a.stdout, b.returncode, b.stdout,
                                                              b.stderr[-300:]))
        pj = profile_json(ctx, prof)
        calls = {f["name"]: f["calls"] for f in pj["functions"]}
        if pj["threads"] != 1001 or calls.get("work") != 100000:
            raise Fail("threads %d, work() calls %r" % (pj["threads"], calls.get("work")))

    @case
    def low_stack(tmp):
        """A context on a stack low in the address space, where the counting
        runtime keeps no frame nodes (framenodes.c): its thread finds its
        nodes the other way, and the tree is the same as with the stack
        where Linux puts stacks, call for call and instruction for
        instruction."""
        native, exe = build(tmp, "low_stack")
        trees = []
        for addr in ("0x30000000", "0x7e0000000000"):
            prof = os.path.join(tmp, addr + ".prof")
            a = sh([native, addr], cwd=tmp)
            b = sh([exe, addr], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            if a.returncode or (a.returncode, a.stdout) != (b.returncode, b.stdout):
                raise Fail("%s: native %r %r, instrumented %r %r %s" % (addr, a.returncode, a.stdout, b.returncode,
                                                                      b.stdout, b.stderr[-300:]))
            tree = must([ctx.profview, "tree", prof], "profview tree").stdout
            trees.append(re.sub(r"\(tid \d+\)", "", tree))
        if trees[0] != trees[1]:
            raise Fail("the trees differ:\n%s\n%s" % (trees[0], trees[1]))
        if not re.search(r"\s3\s+\d+\s+\d+\s+work\s+\[on_low", trees[0]):
            raise Fail("no 3 calls of work() under on_low():\n" + trees[0])

    @case
    def vector_args(tmp):
        """Floating-point arguments through entries that make nodes (each
        thread's first calls, a thread reusing an ended one's tables),
        under valgrind, whose CPU has no AVX-512: the runtime must not call
        the C library's memset or memcpy there (they used %xmm0, and the
        program printed 0.00 -800 for -1.00 4648)."""
        native, exe = build(tmp, "vector_args", model="zen5")
        a = sh([native], cwd=tmp)
        b = sh(["valgrind", "-q", "--tool=none", exe], env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.prof")),
               cwd=tmp)
        if a.returncode or (a.returncode, a.stdout) != (b.returncode, b.stdout):
            raise Fail("native %r %r, instrumented under valgrind %r %r %s" % (a.returncode, a.stdout, b.returncode,
                                                                             b.stdout, b.stderr[-300:]))

    return [("safety/setuid", setuid), ("safety/planted_links", planted_links), ("safety/replaced", replaced),
            ("safety/special_files", special_files), ("safety/profview_outputs", profview_outputs),
            ("safety/exit_race_exit", exit_race("exit", 4)), ("safety/exit_race__exit", exit_race("_exit", 3)),
            ("safety/exec_fails", exec_fails), ("safety/deep_recursion", deep_recursion),
            ("safety/short_threads", short_threads), ("safety/address_space_limit", address_space_limit),
            ("safety/signal_storm", signal_storm), ("safety/term_during_write", term_during_write),
            ("safety/signal_storm_callbacks", storm_callbacks(("--timed",))),
            ("safety/signal_storm_callbacks_counts", storm_callbacks(("--counts",))),
            ("safety/signal_storm_pointers", storm_pointers(("--timed",))),
            ("safety/signal_storm_pointers_counts", storm_pointers(("--counts",))),
            ("safety/async_cancel", async_cancel), ("safety/low_stack", low_stack), ("safety/vector_args", vector_args), ("safety/malloc_under_limit", malloc_under_limit),
            ("safety/many_threads_under_limit", many_threads_under_limit)]
