"""How the rewriter's files depend on each other: no call cycle among them
(scripts/call_cycles.py, over the objects the build compiled), so that each
can be read, tested and linked with only the files below it; and the
script that says so finds a cycle where there is one."""
import glob
import os
import shutil
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "call_cycles.py")

# a.c and b.c call each other; c.c calls a.c; d.c calls nothing
CYCLE = {
    "a.c": "int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n",
    "b.c": "int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n",
    "c.c": "int a(int);\nint c(void) { return a(3); }\n",
    "d.c": "int d(void) { return 4; }\n",
}


def tests(ctx, Fail, sh, must):
    def rewriter():
        objs = sorted(glob.glob(os.path.join(ctx.build, "rewriter", "librewriter.a.p", "*.o")) +
                      glob.glob(os.path.join(ctx.build, "rewriter", "profinst.p", "*.o")))
        names = {os.path.basename(o) for o in objs}
        for want in ("cfg.c.o", "layout.c.o", "ehframe.c.o", "instrument.c.o", "main.c.o"):
            if want not in names:
                raise Fail("no %s among the build's objects (%s)" % (want, sorted(names)))
        p = sh(["python3", SCRIPT] + objs)
        if p.returncode != 0:
            raise Fail("call cycles among the rewriter's files (status %d):\n%s%s" % (
                p.returncode, p.stdout[-3000:], p.stderr[-1000:]))

    def finds_cycle():
        tmp = tempfile.mkdtemp(prefix="pi-cycles-")
        try:
            objs = {}
            for name, src in CYCLE.items():
                c = os.path.join(tmp, name)
                with open(c, "w") as f:
                    f.write(src)
                objs[name] = c + ".o"
                must(["gcc", "-O2", "-c", c, "-o", objs[name]], "compile")
            p = sh(["python3", SCRIPT, "--edges"] + sorted(objs.values()))
            if p.returncode != 1:
                raise Fail("a.c and b.c call each other: status %d, want 1\n%s%s" % (
                    p.returncode, p.stdout, p.stderr))
            cycles = [l for l in p.stdout.splitlines() if l.startswith("cycle:")]
            if cycles != ["cycle: a.c b.c"]:
                raise Fail("want one cycle, of a.c and b.c; got %r" % cycles)
            for edge in ("a.c -> b.c (b)", "b.c -> a.c (a)", "c.c -> a.c (a)"):
                if edge not in p.stdout.splitlines():
                    raise Fail("edge %r not printed:\n%s" % (edge, p.stdout))
            p = sh(["python3", SCRIPT, objs["a.c"], objs["c.c"], objs["d.c"]])
            if p.returncode != 0 or "cycle" in p.stdout:
                raise Fail("no cycle among a.c, c.c, d.c: status %d\n%s" % (p.returncode, p.stdout))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("house/no_call_cycles", rewriter), ("house/call_cycles_found", finds_cycle)]
