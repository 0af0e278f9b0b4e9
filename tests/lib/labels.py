"""What profview's labels say is what happened (issue 23, item 5): call
sites reached by a jump and signal handlers named as such; an instruction
profile saying instructions everywhere (a counted one, profinst --counts,
too); disassembly naming its targets; time outside a function's code on the
source line of the call that spent it (annotate, callgrind); pprof
locations with source lines; merge listing its inputs' processes, refusing
one twice, taking a lineage (one with a counted image: no per-call min and
max then); diff matching renamed objects; names up to a compiler's
suffix."""
import json
from fractions import Fraction
import os
import re
import shutil
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# qsort as the only external call: where its time shows
QSORT_C = r"""
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
int main(void)
{
	static int v[20000];
	unsigned s = 1;
	for (int i = 0; i < 20000; i++) {
		s = s * 1103515245 + 12345;
		v[i] = (int)(s >> 8);
	}
	qsort(v, 20000, sizeof(int), cmp); /* THE CALL */
	return v[0] & 1;
}
"""

# functions named as a compiler's clones are
SUFFIX_C = r"""
__attribute__((noinline)) int m1(int x) __asm__("match.constprop.0");
__attribute__((noinline)) int m1(int x) { return x + 1; }
__attribute__((noinline)) int d1(int x) __asm__("dup.isra.0");
__attribute__((noinline)) int d1(int x) { return x + 2; }
__attribute__((noinline)) int d2(int x) __asm__("dup.part.1");
__attribute__((noinline)) int d2(int x) { return x + 3; }
int main(void) { return m1(1) + d1(2) + d2(3) - 12; }
"""

# an image that execs another (the same pid): a lineage of two programs
EXEC_A_C = r"""
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int first_image(int x) { return x * 3; }
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += first_image(i);
	char *env[] = {argv[2], 0};
	fflush(stdout);
	execle(argv[1], argv[1], (char *)0, env);
	return s;
}
"""
EXEC_B_C = r"""
__attribute__((noinline)) int second_image(int x) { return x + 7; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 20; i++)
		s += second_image(i);
	return s == 330 ? 0 : 1;
}
"""


def tests(ctx, Fail, sh, must, profile_json):
    def build(tmp, name, src=None, text=None, cpu="instructions", opt="-O2", extra=()):
        c = os.path.join(tmp, name + ".c")
        if text is not None:
            with open(c, "w") as f:
                f.write(text)
        else:
            c = src
        obj = os.path.join(tmp, name + ".o")
        must(["gcc", opt, "-g", "-c", c, "-o", obj], "compile")
        exe = os.path.join(tmp, name)
        must([ctx.profinst, "--cpu=" + cpu, obj, "-o", exe] + list(extra), "profinst")
        return exe

    def run(tmp, exe, prof, args=()):
        sh([exe] + list(args), env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        if not os.path.exists(prof):
            raise Fail("%s wrote no profile" % exe)
        return prof

    def pv(*args):
        return must([ctx.profview] + list(args), "profview " + args[0]).stdout

    def tmpdir(f):
        def case():
            tmp = tempfile.mkdtemp(prefix="pi-labels-")
            try:
                f(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return case

    def tail_and_signal(extra):
        return tmpdir(lambda tmp: tail_and_signal_in(tmp, extra))

    def tail_and_signal_in(tmp, extra):
        # -O2: chooser and middle jump to leaf and middle, wrap_puts to
        # puts, on_signal to count (gcc); extra: profinst's options
        exe = build(tmp, "t", os.path.join(HERE, "e2e", "003_tail_calls.c"), cpu="zen5", extra=extra)
        tree = pv("tree", run(tmp, exe, os.path.join(tmp, "t.pf")))
        rows = {}
        for line in tree.splitlines():
            m = re.match(r"^\s*(\d+)\s.*\s(\S+)  \[(.*)\]$", line)
            if m:
                rows.setdefault(m.group(2), set()).add(m.group(3))
        want = {"leaf": r"^tail call from (chooser|middle)\+0x[0-9a-f]+ \(003_tail_calls\.c:\d+\)$",
                "<external:puts>": r"^tail call from wrap_puts\+0x0 ",
                "chooser": r"^main\+0x[0-9a-f]+ \(003_tail_calls\.c:22\)$"}
        for name, pat in want.items():
            if not rows.get(name) or not all(re.search(pat, s) for s in rows[name]):
                raise Fail("%s's call sites %r, want %s:\n%s" % (name, rows.get(name), pat, tree))
        if not any(s.startswith("tail call from chooser+") for s in rows["leaf"]):
            raise Fail("no leaf reached by chooser's jump:\n" + tree)
        det = pv("detail", os.path.join(tmp, "t.pf"), "leaf")
        if "tail call from middle+0x" not in det or re.search(r"^\s+main\+0x", det, re.M):
            raise Fail("detail leaf's call sites:\n" + det)
        exe = build(tmp, "s", os.path.join(HERE, "e2e", "032_signal_handlers.c"), cpu="zen5", extra=extra)
        tree = pv("tree", run(tmp, exe, os.path.join(tmp, "s.pf")))
        if not re.search(r" on_signal  \[signal handler \(signal sent by raise\)\]$", tree, re.M) or \
                not re.search(r" count  \[tail call from on_signal\+0x0 ", tree, re.M) or \
                any("uninstrumented" in l for l in tree.splitlines() if " main  [" not in l):
            raise Fail("signal handler and its tail call:\n" + tree)

    def minmax_cells(text):
        """{function: (MinSelf, MaxSelf)} as report's text prints them, each
        cell right under its heading."""
        lines = text.splitlines()
        head = [i for i, l in enumerate(lines) if l.split()[:1] == ["Calls"]][0]
        ends = [lines[head].index(h) + len(h) for h in ("MinSelf", "MaxSelf")]
        return {l.split("  ")[-1].split(" [")[0].strip(): tuple(l[:e].rsplit(" ", 1)[-1] for e in ends)
                for l in lines[head + 2:] if l.strip()}

    def instructions_unit(counted):
        # counted (profinst --counts): its header line too says instructions
        @tmpdir
        def case(tmp):
            instructions_unit_in(tmp, counted)
        return case

    def instructions_unit_in(tmp, counted):
        exe = build(tmp, "m", os.path.join(HERE, "e2e", "002_mutual_recursion.c"),
                    extra=["--counts"] if counted else ["--timed"])
        prof = run(tmp, exe, os.path.join(tmp, "m.pf"))
        pj = profile_json(ctx, prof)
        if pj.get("unit") != "instructions":
            raise Fail("report JSON's unit: %r" % pj.get("unit"))
        texts = {"report": pv("report", prof), "tree": pv("tree", prof), "detail": pv("detail", prof, "is_even"),
                 "annotate": pv("annotate", prof, "is_even"),
                 "disasm": pv("annotate", prof, "is_even", "--disasm"),
                 "threads": pv("report", prof, "--threads"),
                 "diff": pv("diff", prof, prof)}
        for k, t in texts.items():
            if re.search(r"\bcycles?\b", t, re.I):
                raise Fail("%s of an instruction profile says cycles:\n%s" % (k, t))
        if "Total: %d instructions" % pj["total_cycles"] not in texts["report"]:
            raise Fail("report header:\n" + texts["report"])
        said = re.search(r"^Counted per calling context: instructions are the blocks' counts",
                         texts["report"], re.M)
        if bool(said) != counted:
            raise Fail("report header of a%s profile:\n%s" % (" counted" if counted else " timed", texts["report"]))
        per_call = r"^  self per call +%s instructions%s$" % (
            (r"mean [\d.]+", r" \(counted: no per-call min and max\)") if counted else (r"min \d+, max \d+, mean [\d.]+", ""))
        if not re.search(per_call, texts["detail"], re.M):
            raise Fail("detail's self per call, want %s:\n%s" % (per_call, texts["detail"]))
        cg = os.path.join(tmp, "m.cg")
        must([ctx.profview, "export", prof, "--format=callgrind", "-o", cg], "export")
        if "\nevents: Ir\n" not in open(cg).read():
            raise Fail("callgrind export's events: not Ir")
        pb = os.path.join(tmp, "m.pb.gz")
        must([ctx.profview, "export", prof, "--format=pprof", "-o", pb], "export")
        top = must(["go", "tool", "pprof", "-top", pb], "go tool pprof").stdout
        if not re.search(r"^Type: instructions$", top, re.M):
            raise Fail("pprof's sample type:\n" + top[:500])
        ch = os.path.join(tmp, "m.json")
        must([ctx.profview, "export", prof, "--format=chrome", "-o", ch], "export")
        if json.load(open(ch))["otherData"]["unit"] != "instructions":
            raise Fail("chrome export's unit")

    @tmpdir
    def disasm_names(tmp):
        exe = build(tmp, "t", os.path.join(HERE, "e2e", "003_tail_calls.c"))
        prof = run(tmp, exe, os.path.join(tmp, "t.pf"))
        dis = pv("annotate", prof, "main", "--disasm") + pv("annotate", prof, "chooser", "--disasm")
        for want in ("call chooser", "call middle", "call counter", "call wrap_puts", "jmp middle", "jmp leaf"):
            if not re.search(r"\s%s$" % re.escape(want), dis, re.M):
                raise Fail("disassembly lacks %r:\n%s" % (want, dis))
        if re.search(r"\s(call|jmp|j[a-z]+) 0x", dis):
            raise Fail("a call or jump target left as a number:\n" + dis)

    @tmpdir
    def external_time_on_call_line(tmp):
        exe = build(tmp, "q", text=QSORT_C, cpu="zen5")
        prof = run(tmp, exe, os.path.join(tmp, "q.pf"))
        pj = profile_json(ctx, prof)
        main = [f for f in pj["functions"] if f["name"] == "main"][0]
        qs = [f for f in pj["functions"] if f["name"] == "<external:qsort>"][0]
        # what the call costs main: its OS time (where the runtime keeps
        # an external's time in its caller) and qsort's with callbacks
        want = main["os_cycles"] + qs["incl_cycles"]
        if want * 2 < main["incl_cycles"]:
            raise Fail("qsort's call is not most of main: %r %r" % (main, qs))
        ann = pv("annotate", prof, "main")
        lines = ann.splitlines()
        at = [i for i, l in enumerate(lines) if "THE CALL" in l]
        if len(at) != 1:
            raise Fail("no call line:\n" + ann)
        m = re.match(r"^[|+]\s+([\d.]+)%", lines[at[0]])
        pct = float(m.group(1)) if m else 0.0
        notes = []
        for l in lines[at[0] + 1:]:
            if not l.startswith("*  "):
                break
            notes.append(l)
        mm = [re.search(r"calls <external:qsort>: 1 time, (\d+) cycles with descendants", n) for n in notes]
        mm = [x for x in mm if x]
        if not mm or int(mm[0].group(1)) != int(Fraction(str(qs["incl_cycles"])) + Fraction(1, 2)):
            raise Fail("the call line does not show qsort's time:\n" + ann)
        on_line = pct / 100.0 * main["self_cycles"] + int(mm[0].group(1))
        if abs(on_line - want) > 0.01 * want + 2:
            raise Fail("the call line holds %.0f cycles, the call %d:\n%s" % (on_line, want, ann))
        # callgrind: the call's line holds main's OS time and the call
        cg = os.path.join(tmp, "q.cg")
        must([ctx.profview, "export", prof, "--format=callgrind", "-o", cg], "export")
        text = open(cg).read()
        blk = text.split("fn=main\n", 1)[1].split("\n\n", 1)[0]
        src = QSORT_C.splitlines()
        call_line = [i + 1 for i, l in enumerate(src) if "THE CALL" in l][0]
        own = sum(int(b) for a, b in re.findall(r"^(\d+) (\d+)$", blk, re.M) if int(a) == call_line)
        m = re.search(r"^cfn=<external:qsort>\ncalls=1 \d+\n(\d+) (\d+)$", blk, re.M)
        # (whole cycles, rounded once: within one of the exact figure)
        if not m or int(m.group(1)) != call_line or abs(int(m.group(2)) - float(qs["incl_cycles"])) > 1:
            raise Fail("callgrind: qsort's call not on line %d:\n%s" % (call_line, blk))
        if own < main["os_cycles"]:
            raise Fail("callgrind: line %d holds %d of main's, its OS time is %d:\n%s" % (
                call_line, own, main["os_cycles"], blk))

    @tmpdir
    def pprof_lines(tmp):
        exe = build(tmp, "q", text=QSORT_C, cpu="zen5")
        prof = run(tmp, exe, os.path.join(tmp, "q.pf"))
        pb = os.path.join(tmp, "q.pb.gz")
        must([ctx.profview, "export", prof, "--format=pprof", "-o", pb], "export")
        lst = must(["go", "tool", "pprof", "-list", "^(main|cmp)$", pb], "go tool pprof -list").stdout
        if "ROUTINE ======================== main in %s/q.c" % tmp not in lst or \
                "ROUTINE ======================== cmp in %s/q.c" % tmp not in lst:
            raise Fail("pprof -list does not find the source:\n" + lst[:1500])
        m = re.search(r"^\s+(\S+)\s+(\S+)\s+(\d+):.*THE CALL", lst, re.M)
        if not m or m.group(2) == ".":
            raise Fail("pprof -list puts nothing on the call's line:\n" + lst[:2000])
        pj = profile_json(ctx, prof)
        top = must(["go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", pb], "pprof").stdout
        tot = re.search(r"accounting for (\d+), 100% of (\d+) total", top)
        # the report's total, rounded once as the views round it
        want = int(Fraction(str(pj["total_cycles"])) + Fraction(1, 2))
        if not tot or int(tot.group(2)) != want:
            raise Fail("pprof's total differs from %d:\n%s" % (want, top))

    @tmpdir
    def merge_processes(tmp):
        exe = build(tmp, "f", os.path.join(HERE, "e2e", "005_function_pointers.c"))
        one = run(tmp, exe, os.path.join(tmp, "1.pf"))
        two = run(tmp, exe, os.path.join(tmp, "2.pf"))
        m = os.path.join(tmp, "m.pf")
        must([ctx.profview, "merge", one, two, "-o", m], "merge")
        pids = [profile_json(ctx, p)["pid"] for p in (one, two)]
        pj = profile_json(ctx, m)
        if [p["pid"] for p in pj.get("processes", [])] != pids:
            raise Fail("merged processes %r, inputs' pids %r" % (pj.get("processes"), pids))
        head = pv("report", m).split("Total:")[0]
        if "Profile of 2 processes" not in head or any("pid %d " % p not in head for p in pids):
            raise Fail("merged report's header:\n" + head)
        for args in ([one, one], [m, two], [one, two, one]):
            r = sh([ctx.profview, "merge"] + args + ["-o", os.path.join(tmp, "x.pf")])
            if r.returncode != 1 or len(r.stderr.splitlines()) != 1 or "twice" not in r.stderr or \
                    os.path.exists(os.path.join(tmp, "x.pf")):
                raise Fail("merge %r: status %d, %r" % (args, r.returncode, r.stderr))
        # a lineage: an image and the one it exec'd, same pid
        a = build(tmp, "a", text=EXEC_A_C)
        b = build(tmp, "b", text=EXEC_B_C)
        pa, pb_ = os.path.join(tmp, "a.pf"), os.path.join(tmp, "b.pf")
        for f in (pa, pb_):
            if os.path.exists(f):
                os.unlink(f)
        sh([a, b, "PROFINST_OUTPUT=" + pb_], env=dict(os.environ, PROFINST_OUTPUT=pa), cwd=tmp)
        if not os.path.exists(pa) or not os.path.exists(pb_):
            raise Fail("the exec chain left %r" % sorted(os.listdir(tmp)))
        ja, jb = profile_json(ctx, pa), profile_json(ctx, pb_)
        if ja["pid"] != jb["pid"]:
            raise Fail("exec changed the pid")
        ml = os.path.join(tmp, "lineage.pf")
        must([ctx.profview, "merge", pa, pb_, "-o", ml], "merge a lineage")
        jm = profile_json(ctx, ml)
        calls = {f["name"]: f["calls"] for f in jm["functions"]}
        if calls.get("first_image") != 10 or calls.get("second_image") != 20 or \
                jm["total_cycles"] != ja["total_cycles"] + jb["total_cycles"] or len(jm["processes"]) != 2:
            raise Fail("lineage merge: %r" % jm)
        objs = {f["name"]: f["object"] for f in jm["functions"]}
        if objs.get("first_image") != "a.o" or objs.get("second_image") != "b.o":
            raise Fail("lineage merge's objects %r" % objs)
        tree = pv("tree", ml)
        if not re.search(r"first_image  \[main\+0x[0-9a-f]+ \(a\.c:\d+\)\]", tree) or \
                not re.search(r"second_image  \[main\+0x[0-9a-f]+ \(b\.c:\d+\)\]", tree):
            raise Fail("lineage merge's call sites:\n" + tree)
        other = run(tmp, build(tmp, "o", os.path.join(HERE, "e2e", "001_recursion.c")), os.path.join(tmp, "o.pf"))
        r = sh([ctx.profview, "merge", one, other, "-o", os.path.join(tmp, "x.pf")])
        if r.returncode != 1 or len(r.stderr.splitlines()) != 1:
            raise Fail("merge of another program: %r" % r.stderr)

    @tmpdir
    def merge_counted(tmp):
        # a timed image that execs a counted one (profinst --counts): the
        # lineage's merge holds a counted profile, so no function of it has
        # a per-call min and max, whichever input comes first
        a = build(tmp, "a", text=EXEC_A_C, extra=["--timed"])
        b = build(tmp, "b", text=EXEC_B_C, extra=["--counts"])
        pa, pb_ = os.path.join(tmp, "a.pf"), os.path.join(tmp, "b.pf")
        sh([a, b, "PROFINST_OUTPUT=" + pb_], env=dict(os.environ, PROFINST_OUTPUT=pa), cwd=tmp)
        if not os.path.exists(pa) or not os.path.exists(pb_):
            raise Fail("the exec chain left %r" % sorted(os.listdir(tmp)))
        ja, jb = profile_json(ctx, pa), profile_json(ctx, pb_)
        fa = {f["name"]: f for f in ja["functions"]}
        if fa["first_image"]["min_self_cycles"] is None or \
                not fa["first_image"]["min_self_cycles"] <= fa["first_image"]["max_self_cycles"]:
            raise Fail("the timed image's first_image: %r" % fa["first_image"])
        if any(f["min_self_cycles"] is not None or f["max_self_cycles"] is not None for f in jb["functions"]):
            raise Fail("the counted image's min and max: %r" % jb["functions"])
        for order in ((pa, pb_), (pb_, pa)):
            ml = os.path.join(tmp, "m.pf")
            must([ctx.profview, "merge"] + list(order) + ["-o", ml], "merge a timed and a counted image")
            jm = profile_json(ctx, ml)
            calls = {f["name"]: f["calls"] for f in jm["functions"]}
            if calls.get("first_image") != 10 or calls.get("second_image") != 20 or \
                    jm["total_cycles"] != ja["total_cycles"] + jb["total_cycles"]:
                raise Fail("merge %r: %r" % (order, jm))
            if any(f["min_self_cycles"] is not None or f["max_self_cycles"] is not None for f in jm["functions"]):
                raise Fail("merge %r: min and max %r, want null" % (order, [
                    (f["name"], f["min_self_cycles"], f["max_self_cycles"]) for f in jm["functions"]]))
            text = pv("report", ml)
            cells = minmax_cells(text)
            if set(cells.values()) != {("-", "-")} or "first_image" not in cells or \
                    "no per-call minimum and maximum" not in text:
                raise Fail("merge %r's report:\n%s" % (order, text))
            det = pv("detail", ml, "first_image")
            if re.search(r"\b(min|max) \d", det) or not re.search(r"^  self per call +mean ", det, re.M):
                raise Fail("merge %r: detail first_image:\n%s" % (order, det))
        # one program built both ways is two programs: not merged
        src = os.path.join(HERE, "e2e", "005_function_pointers.c")
        t = run(tmp, build(tmp, "ft", src, extra=["--timed"]), os.path.join(tmp, "t.pf"))
        c = run(tmp, build(tmp, "fc", src, extra=["--counts"]), os.path.join(tmp, "c.pf"))
        r = sh([ctx.profview, "merge", t, c, "-o", os.path.join(tmp, "x.pf")])
        if r.returncode != 1 or len(r.stderr.splitlines()) != 1 or os.path.exists(os.path.join(tmp, "x.pf")):
            raise Fail("merge of a timed and a counted build of one program: status %d, %r" % (r.returncode, r.stderr))

    @tmpdir
    def diff_renamed(tmp):
        src = os.path.join(HERE, "e2e", "005_function_pointers.c")
        p1 = run(tmp, build(tmp, "before", src), os.path.join(tmp, "1.pf"))
        p2 = run(tmp, build(tmp, "after", src), os.path.join(tmp, "2.pf"))
        d = json.loads(pv("diff", p1, p2, "--format=json"))
        names = [f["name"] for f in d["functions"]]
        if any(f["self_change"] or f["calls"][0] != f["calls"][1] for f in d["functions"]) or \
                len(names) != len(set(names)) or "apply" not in names:
            raise Fail("diff of renamed objects: %r" % d["functions"])
        if any(f["objects"] != ["before.o", "after.o"] for f in d["functions"] if not f["name"].startswith("printf")
               and f["objects"][0] != "external"):
            raise Fail("diff's objects: %r" % d["functions"])
        text = pv("diff", p1, p2)
        if re.search(r"\bnew\b", text):
            raise Fail("diff marks functions new:\n" + text)

    @tmpdir
    def name_suffix(tmp):
        prof = run(tmp, build(tmp, "x", text=SUFFIX_C), os.path.join(tmp, "x.pf"))
        det = pv("detail", prof, "match")
        if not det.startswith("match.constprop.0\n"):
            raise Fail("detail match:\n" + det)
        if not pv("annotate", prof, "match").startswith("* match.constprop.0 ["):
            raise Fail("annotate match")
        for cmd in (["detail"], ["annotate"], ["annotate", "--disasm"]):
            r = sh([ctx.profview, cmd[0], prof, "dup"] + cmd[1:])
            lines = r.stderr.splitlines()
            if r.returncode == 0 or r.stdout or len(lines) != 3 or "several" not in lines[0] or \
                    sorted(l.split()[0] for l in lines[1:]) != ["dup.isra.0", "dup.part.1"]:
                raise Fail("%s dup: status %d\n%s%s" % (cmd, r.returncode, r.stdout, r.stderr))
        r = sh([ctx.profview, "detail", prof, "mat"])
        if r.returncode == 0:
            raise Fail("detail mat found %r" % r.stdout)

    return [("labels/tail_and_signal", tail_and_signal(("--timed",))),
            ("labels/tail_and_signal_counts", tail_and_signal(("--counts",))), ("labels/instructions_unit", instructions_unit(False)),
            ("labels/instructions_unit_counted", instructions_unit(True)), ("labels/merge_counted", merge_counted),
            ("labels/disasm_names", disasm_names), ("labels/external_time_on_call_line", external_time_on_call_line),
            ("labels/pprof_lines", pprof_lines), ("labels/merge_processes", merge_processes),
            ("labels/diff_renamed", diff_renamed), ("labels/name_suffix", name_suffix)]
