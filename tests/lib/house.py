"""How the rewriter's files depend on each other: no call cycle among them
(scripts/call_cycles.py, over the objects the build compiled), so that each
can be read, tested and linked with only the files below it; and the
script that says so finds a cycle where there is one.  The viewer's side
(display/, libprof/) includes nothing of the rewriter's: what both need is
in x86/ and libprof/.  The README is a user's short guide, its two
commands first."""
import glob
import os
import re
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

    def layers():
        own = {os.path.basename(f) for f in glob.glob(os.path.join(ROOT, "rewriter", "**", "*.h"), recursive=True)}
        shared = {os.path.basename(f) for d in ("display", "libprof", "x86", "runtime")
                  for f in glob.glob(os.path.join(ROOT, d, "*.h"))}
        bad = []
        for d in ("display", "libprof", "x86"):
            for f in sorted(glob.glob(os.path.join(ROOT, d, "*.[ch]"))):
                with open(f) as fh:
                    for n, line in enumerate(fh, 1):
                        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                        if m and ("rewriter" in m.group(1) or
                                  (os.path.basename(m.group(1)) in own - shared)):
                            bad.append("%s:%d: %s" % (os.path.relpath(f, ROOT), n, line.strip()))
            with open(os.path.join(ROOT, d, "meson.build")) as fh:
                for n, line in enumerate(fh, 1):
                    if "rewriter" in line and not line.lstrip().startswith("#"):
                        bad.append("%s/meson.build:%d: %s" % (d, n, line.strip()))
        if bad:
            raise Fail("the viewer's side uses the rewriter's files:\n" + "\n".join(bad))

    def readme():
        with open(os.path.join(ROOT, "README.md")) as f:
            text = f.read()
        lines = text.splitlines()
        if len(lines) >= 150:
            raise Fail("README.md has %d lines: a user's guide of under 150 (the detail is docs/GUIDE.md)"
                       % len(lines))
        m = re.search(r"```sh\n(.*?)```", text, re.S)
        first = [l.split("#")[0].strip() for l in m.group(1).splitlines()] if m else []
        if first != ["bash scripts/demo.sh", "bash scripts/test.sh"] or text.index("```") > 20:
            raise Fail("README.md does not open with its two commands: %r" % first)
        with open(os.path.join(ROOT, ".ci", "run")) as f:
            if "scripts/test.sh" not in f.read():
                raise Fail(".ci/run does not run the README's test command (scripts/test.sh)")

    def unit_cases():
        # `meson test` runs the unit tier case by case (TAP): at least 40
        # cases, every one passing
        p = sh(["meson", "test", "-C", ctx.build, "--suite", "unit", "--no-rebuild", "--print-errorlogs"])
        counts = [int(n) for n in re.findall(r"(\d+) subtests passed", p.stdout)]
        if p.returncode != 0 or sum(counts) < 40:
            raise Fail("meson test: status %d, %d cases passed (want 40 or more):\n%s"
                       % (p.returncode, sum(counts), p.stdout[-3000:]))

    return [("house/no_call_cycles", rewriter), ("house/call_cycles_found", finds_cycle),
            ("house/layers", layers), ("house/readme", readme), ("house/unit_cases", unit_cases)]
