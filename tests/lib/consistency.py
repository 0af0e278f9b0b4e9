"""One arithmetic: every view and export of one profile computes from the
same exact sums.  For a mutual recursion (e2e 002), threads (022), tail calls
(003) and a program of many functions, built with gcc and clang at -O2 under
a cycle model (figures in fractions of a cycle): the totals of report (JSON,
text, --threads), callgraph, tree, detail, diff and every export (folded,
speedscope, chrome, callgrind, pprof) are identical, exactly where the
output is exact (JSON) and as the report's total rounded once where it
holds whole cycles; and the invariants hold: total == sum of the rows' self
== the root's self+descendants, mean within min..max, no self+descendants
over the total, a caller's arcs adding up to its self+descendants minus its
self (cycle members included) and each within both ends', graph --root's
shares of the root's time, the default graph showing the 30 functions of
the most time (and any tied with the 30th).  The three programs again under
profinst --counts: the same, except that a counted profile has no per-call
min and max, which every view must show as absent (report's MinSelf and
MaxSelf "-" in their columns, JSON null, CSV empty, detail the mean
alone), not as 0."""
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
from fractions import Fraction

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# a program of many functions of different weights: more than the graph's 30
MANY = r"""
#include <stdio.h>
#define F(i) __attribute__((noinline)) long f##i(long n) { long s = 0; \
	for (long k = 0; k < n * (i + 1); k++) s += k ^ (s >> 3); return s; }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17) F(18) F(19)
F(20) F(21) F(22) F(23) F(24) F(25) F(26) F(27) F(28) F(29) F(30) F(31) F(32) F(33) F(34) F(35) F(36) F(37)
F(38) F(39) F(40) F(41) F(42) F(43) F(44) F(45) F(46) F(47) F(48) F(49)
typedef long (*fn)(long);
static fn all[] = {f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
	f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37, f38, f39,
	f40, f41, f42, f43, f44, f45, f46, f47, f48, f49};
__attribute__((noinline)) long top_a(int r) { long s = 0; for (int i = 0; i < 50; i += 2) s += all[i](r); return s; }
__attribute__((noinline)) long top_b(int r) { long s = 0; for (int i = 1; i < 50; i += 2) s += all[i](r); return s; }
int main(void)
{
	long s = 0;
	for (int r = 1; r < 4; r++)
		s += top_a(r) + top_b(r) + f7(r);
	printf("%ld\n", s);
	return 0;
}
"""


def exact(text):
    """JSON with its numbers exact."""
    return json.loads(text, parse_float=Fraction, parse_int=Fraction)


def rounded(x):
    """The views' one rounding: to nearest, halves up."""
    return int(Fraction(x) + Fraction(1, 2))


def pb_fields(buf):
    """(field, wire type, value) of a protobuf message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(buf, i)
        elif w == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif w == 1:
            v, i = buf[i:i + 8], i + 8
        elif w == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def varint(buf, i):
    v = s = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << s
        s += 7
        if b < 0x80:
            return v, i


def pprof_cycles(path):
    """The sum of the samples' first value (cycles), read from the file."""
    total = 0
    for f, w, v in pb_fields(gzip.open(path).read()):
        if f != 2:
            continue
        for sf, sw, sv in pb_fields(v):
            if sf == 2 and sw == 2:  # packed values
                total += varint(sv, 0)[0]
            elif sf == 2 and sw == 0:
                total += sv
                break
    return total


def tests(ctx, Fail, sh, must, profile_json):
    def view(args, what):
        return must([ctx.profview] + args, what).stdout

    def check_report(prof, errs, counted):
        pj = exact(view(["report", prof, "--format=json"], "report"))
        T = pj["total_cycles"]
        fs = pj["functions"]
        if sum(f["self_cycles"] for f in fs) != T:
            errs.append("report: the rows' self add up to %s, the total is %s" % (
                sum(f["self_cycles"] for f in fs), T))
        root = sum(c["incl_cycles"] for f in fs for c in f["callers"] if c["name"] == "<root>")
        if root != T:
            errs.append("report: the root's self+descendants %s != total %s" % (root, T))
        if sum(f["os_cycles"] for f in fs) != pj["os_cycles"]:
            errs.append("report: the rows' OS cycles do not add up to the total's")
        for f in fs:
            if f["incl_cycles"] > T:
                errs.append("%s: self+descendants %s over the total %s" % (f["name"], f["incl_cycles"], T))
            if f["self_cycles"] > f["incl_cycles"]:
                errs.append("%s: self %s over self+descendants %s" % (f["name"], f["self_cycles"], f["incl_cycles"]))
            if counted:
                # counted: no per-call min and max, and none made up
                if f["min_self_cycles"] is not None or f["max_self_cycles"] is not None:
                    errs.append("%s: a counted profile's min %r, max %r, want null" % (
                        f["name"], f["min_self_cycles"], f["max_self_cycles"]))
            elif f["calls"] and not f["min_self_cycles"] <= f["self_cycles"] / f["calls"] <= f["max_self_cycles"]:
                errs.append("%s: mean %s outside min %s, max %s" % (
                    f["name"], f["self_cycles"] / f["calls"], f["min_self_cycles"], f["max_self_cycles"]))
            if sum(c["incl_cycles"] for c in f["callers"]) != f["incl_cycles"]:
                errs.append("%s: callers' self+descendants add up to %s, not %s" % (
                    f["name"], sum(c["incl_cycles"] for c in f["callers"]), f["incl_cycles"]))
        # the text: every total the report's, rounded once
        text = view(["report", prof], "report")
        m = re.search(r"^Total: (\d+) cycles$", text, re.M)
        tot_row = [l for l in text.splitlines() if l.endswith("<Total>")]
        if not m or int(m.group(1)) != rounded(T) or not tot_row or int(tot_row[0].split()[0]) != rounded(T):
            errs.append("report text: total %r / %r, want %d" % (m and m.group(1), tot_row, rounded(T)))
        check_minmax_text(text, pj, errs, counted)
        csv = view(["report", prof, "--format=csv"], "report --format=csv").splitlines()
        cols = csv[0].split(",")
        lo, hi = cols.index("min_self_cycles"), cols.index("max_self_cycles")
        for l in csv[1:]:
            c = l.rsplit('"', 1)[1].split(",")  # after the object's name: the figures
            c = [""] * (len(cols) - len(c)) + c
            if counted != (c[lo] == "" and c[hi] == ""):
                errs.append("report CSV: min %r, max %r in %r" % (c[lo], c[hi], l))
        th = exact(view(["report", prof, "--threads", "--format=json"], "report --threads"))
        if th["total_cycles"] != T or sum(t["cycles"] for t in th["threads"]) != T:
            errs.append("report --threads: %s in all, threads add up to %s, total %s" % (
                th["total_cycles"], sum(t["cycles"] for t in th["threads"]), T))
        tree = view(["tree", prof], "tree")
        heads = [int(x) for x in re.findall(r"^Thread \d+ \(tid \d+\): (\d+) cycles$", tree, re.M)]
        if heads != [rounded(t["cycles"]) for t in th["threads"]]:
            errs.append("tree: threads %r, report --threads %r" % (heads, [t["cycles"] for t in th["threads"]]))
        thtext = view(["report", prof, "--threads"], "report --threads")
        rows = [int(l.split()[3]) for l in thtext.splitlines()[1:] if l.strip()]
        if sorted(rows) != sorted(heads):
            errs.append("report --threads text %r, tree %r" % (rows, heads))
        check_tree(tree, errs)
        return pj, T, th

    def check_minmax_text(text, pj, errs, counted):
        """The text's MinSelf and MaxSelf: "-" in a counted profile's
        rows, right under their headings, and their figures otherwise."""
        lines = text.splitlines()
        head = [l for l in lines if l.split()[:1] == ["Calls"] and "MinSelf" in l and "MaxSelf" in l]
        if len(head) != 1:
            errs.append("report text: no MinSelf and MaxSelf heading")
            return
        ends = [head[0].index(h) + len(h) for h in ("MinSelf", "MaxSelf")]
        rows = {l.split("  ")[-1].split(" [")[0].strip(): l for l in lines[lines.index(head[0]) + 2:] if l.strip()}
        for f in pj["functions"]:
            l = rows.get(f["name"])
            if l is None:
                errs.append("report text: no row for %s" % f["name"])
                continue
            cells = [l[:e].rsplit(" ", 1)[-1] for e in ends]
            want = ["-", "-"] if counted else [str(rounded(f["min_self_cycles"])), str(rounded(f["max_self_cycles"]))]
            if cells != want or any(l[e:e + 1] != " " for e in ends):
                errs.append("report text: %s's MinSelf, MaxSelf %r, want %r under the headings:\n%s\n%s" % (
                    f["name"], cells, want, head[0], l))
        said = "no per-call minimum and maximum" in text
        if said != counted:
            errs.append("report text: %s the header line of a counted profile" % ("has" if said else "lacks"))

    def check_tree(tree, errs):
        """Each row's Cum is its Base plus its children's Cum (whole
        cycles, each rounded once: off by half a cycle a row at most)."""
        rows = []
        for l in tree.splitlines():
            p = l.split()
            if len(p) > 5 and p[0].isdigit() and p[3].isdigit():
                rows.append((int(p[0]), int(p[3]), int(p[4]), l))
        for i, (lv, base, cum, line) in enumerate(rows):
            kids = 0
            n = 0
            for lv2, _, cum2, _ in rows[i + 1:]:
                if lv2 <= lv:
                    break
                if lv2 == lv + 1:
                    kids += cum2
                    n += 1
            if abs(base + kids - cum) > (n + 2) // 2:
                errs.append("tree: %r: Base %d + children %d != Cum %d" % (line.strip(), base, kids, cum))

    def check_callgraph(prof, T, errs):
        cg = exact(view(["callgraph", prof, "--format=json"], "callgraph"))
        if cg["total_cycles"] != T:
            errs.append("callgraph: total %s != %s" % (cg["total_cycles"], T))
        byname = {f["name"]: f for f in cg["functions"]}
        for f in cg["functions"] + cg["cycles"]:
            ps, cs = f["parents"], f["children"]
            name = f.get("name") or "<cycle %d>" % f["cycle"]
            if sum(a["calls"] for a in ps) != f["calls"]:
                errs.append("%s: parents' calls %s != calls %s" % (name, sum(a["calls"] for a in ps), f["calls"]))
            if f.get("name"):  # members of a cycle too
                if sum(a["self_cycles"] for a in ps) != f["self_cycles"]:
                    errs.append("%s: parents' self != self" % name)
                if sum(a["incl_cycles"] for a in ps) != f["incl_cycles"]:
                    errs.append("%s: parents' self+descendants != its" % name)
            if sum(a["incl_cycles"] for a in cs) != f["incl_cycles"] - f["self_cycles"]:
                errs.append("%s: children's self+descendants %s != incl - self %s" % (
                    name, sum(a["incl_cycles"] for a in cs), f["incl_cycles"] - f["self_cycles"]))
            for a in cs:
                callee = byname.get(a["name"])
                if callee and (a["incl_cycles"] > callee["incl_cycles"] or a["self_cycles"] > callee["self_cycles"]):
                    errs.append("%s -> %s: the arc's %s/%s exceed the callee's row %s/%s" % (
                        name, a["name"], a["self_cycles"], a["incl_cycles"], callee["self_cycles"],
                        callee["incl_cycles"]))
        return cg

    def check_detail(prof, pj, errs, counted):
        for f in pj["functions"]:
            if f["external"] or not f["calls"]:
                continue
            d = view(["detail", prof, f["symbol"]], "detail")
            if counted:
                # the mean alone: no min or max it could lie outside
                m = re.search(r"^  self per call +mean ([\d.]+) cycles \(counted: no per-call min and max\)$", d, re.M)
                if not m or abs(float(m.group(1)) - float(f["self_cycles"] / f["calls"])) > 0.05 or \
                        re.search(r"\b(min|max) [\d.]+", d):
                    errs.append("detail %s of a counted profile: %r" % (f["name"], m and m.group(0)))
            else:
                m = re.search(r"min ([\d.]+), max ([\d.]+), mean ([\d.]+) cycles", d)
                if not m or not float(m.group(1)) <= float(m.group(3)) <= float(m.group(2)):
                    errs.append("detail %s: %r" % (f["name"], m and m.group(0)))
            m = re.search(r"self +(\d+) cycles \([\d.]+% of (\d+)\)", d)
            if not m or int(m.group(1)) != rounded(f["self_cycles"]) or int(m.group(2)) != rounded(pj["total_cycles"]):
                errs.append("detail %s: %r, want self %d of %d" % (f["name"], m and m.group(0),
                                                                  rounded(f["self_cycles"]), rounded(pj["total_cycles"])))

    def check_exports(tmp, prof, T, threads, errs):
        R = rounded(T)

        def export(fmt):
            out = os.path.join(tmp, "out." + fmt)
            must([ctx.profview, "export", prof, "--format=" + fmt, "-o", out], "export " + fmt)
            return out

        folded = sum(int(l.rsplit(" ", 1)[1]) for l in open(export("folded")) if l.strip())
        if folded != R:
            errs.append("folded: %d cycles, the report %d" % (folded, R))
        ss = json.load(open(export("speedscope")))
        sw = 0
        for pr in ss["profiles"]:
            if sum(pr["weights"]) != pr["endValue"]:
                errs.append("speedscope %s: weights %d, endValue %d" % (pr["name"], sum(pr["weights"]), pr["endValue"]))
            sw += sum(pr["weights"])
        if sw != R:
            errs.append("speedscope: %d cycles, the report %d" % (sw, R))
        ev = json.load(open(export("chrome")))["traceEvents"]
        ends = {}
        for e in ev:
            if e.get("ph") != "X":
                continue  # metadata: the process's and threads' names
            ends[e["tid"]] = max(ends.get(e["tid"], 0), e["ts"] + e["dur"])
        want = {t["tid"]: rounded(t["cycles"]) for t in threads["threads"] if t["cycles"]}
        if {k: v for k, v in ends.items() if v} != want:
            errs.append("chrome: threads end at %r, report --threads %r" % (ends, want))
        cg = open(export("callgrind")).read()
        summ = re.search(r"^summary: (\d+)$", cg, re.M)
        tots = re.search(r"^totals: (\d+)$", cg, re.M)
        lines = 0
        after_calls = False
        for l in cg.splitlines():
            if l.startswith("calls="):
                after_calls = True
                continue
            if re.match(r"^\d+ \d+$", l):
                if not after_calls:
                    lines += int(l.split()[1])
                after_calls = False
        if not summ or not tots or int(summ.group(1)) != R or int(tots.group(1)) != R or lines != R:
            errs.append("callgrind: summary %s, totals %s, lines add up to %d; the report %d" % (
                summ and summ.group(1), tots and tots.group(1), lines, R))
        pp = export("pprof")
        got = pprof_cycles(pp)
        if got != R:
            errs.append("pprof: samples add up to %d cycles, the report %d" % (got, R))
        if shutil.which("go"):
            raw = sh(["go", "tool", "pprof", "-raw", pp], env=dict(os.environ, HOME=tmp, GOCACHE=tmp))
            if raw.returncode == 0:
                samples = raw.stdout.split("Samples:", 1)[-1].split("Locations", 1)[0]
                vals = [int(m.group(1)) for m in re.finditer(r"^\s+(\d+)\s+\d+:", samples, re.M)]
                if sum(vals) != R:
                    errs.append("go tool pprof -raw: %d cycles, the report %d" % (sum(vals), R))
        d = exact(view(["diff", prof, prof, "--format=json"], "diff"))
        if d["total_cycles"] != [T, T]:
            errs.append("diff: totals %r, the report %s" % (d["total_cycles"], T))

    def check_graph(prof, pj, errs):
        dot = view(["graph", prof, "--width=linear"], "graph")
        nodes = re.findall(r'^  f(\d+) \[label="[^"]*\\nself ([\d.]+)%  total ([\d.]+)%', dot, re.M)
        # about 30: the 30 of the most time, and any tied with the 30th
        ran = sorted((f["incl_cycles"] for f in pj["functions"] if f["calls"]), reverse=True)
        timed = [x for x in ran if x]
        want = len(ran) if len(ran) <= 30 else len([x for x in timed if x >= timed[min(29, len(timed) - 1)]])
        if len(nodes) != want or (len(ran) > 30 and not min(30, len(timed)) <= len(nodes) <= 30 + ran.count(timed[min(29, len(timed) - 1)])):
            errs.append("graph: %d functions drawn of %d, want %d (30 and the ties of the 30th)" % (
                len(nodes), len(ran), want))
        share = {n: float(t) for n, s, t in nodes}
        for n, s, t in nodes:
            if float(s) > float(t) or float(t) > 100.0:
                errs.append("graph: f%s self %s%% total %s%%" % (n, s, t))
        for a, b, w in re.findall(r"^  f(\d+) -> f(\d+) \[label=\"\d+\", penwidth=([\d.]+)", dot, re.M):
            T = (float(w) - 1) / 8 * 100
            if T > share[a] + 0.1 or T > share[b] + 0.1:
                errs.append("graph: arc f%s -> f%s at %.1f%%, its ends at %.1f%% and %.1f%%" % (
                    a, b, T, share[a], share[b]))
        # a function as the root: shares of its time
        top = max((f for f in pj["functions"] if f["calls"] and f["name"] != "main" and not f["external"]),
                  key=lambda f: f["incl_cycles"], default=None)
        if top:
            dot = view(["graph", prof, "--root=" + top["symbol"]], "graph --root")
            m = re.search(r': (\d+) cycles, root ', dot)
            if not m or int(m.group(1)) != rounded(top["incl_cycles"]):
                errs.append("graph --root=%s: base %r, its self+descendants %s" % (
                    top["name"], m and m.group(1), top["incl_cycles"]))
            for s, t in re.findall(r"\\nself ([\d.]+)%  total ([\d.]+)%", dot):
                if float(s) > 100.0 or float(t) > 100.0 or float(s) > float(t):
                    errs.append("graph --root=%s: a node at self %s%%, total %s%%" % (top["name"], s, t))

    def case(src, cc, inline=None, counted=False):
        tmp = tempfile.mkdtemp(prefix="pi-consistency-")
        try:
            if inline:
                src = os.path.join(tmp, src)
                with open(src, "w") as f:
                    f.write(inline)
            obj = os.path.join(tmp, "a.o")
            must([cc, "-O2", "-g", "-c", src, "-o", obj], "compile")
            exe = os.path.join(tmp, "a.prof")
            must([ctx.profinst, "--cpu=zen5"] + (["--counts"] if counted else ["--timed"]) + [obj, "-o", exe, "-lpthread"],
                 "profinst")
            prof = os.path.join(tmp, "p.pf")
            sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            errs = []
            pj, T, th = check_report(prof, errs, counted)
            if pj.get("cycle_units", 1) <= 1:
                errs.append("a cycle model's profile in whole cycles: nothing exercises the rounding")
            check_callgraph(prof, T, errs)
            check_detail(prof, pj, errs, counted)
            check_exports(tmp, prof, T, th, errs)
            check_graph(prof, pj, errs)
            if errs:
                raise Fail("views disagree:\n  " + "\n  ".join(errs[:30]))
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    out = []
    for name in ("002_mutual_recursion", "022_threads", "003_tail_calls"):
        for cc in ("gcc", "clang"):
            out.append(("consistency/%s[%s -O2]" % (name, cc),
                        lambda name=name, cc=cc: case(os.path.join(HERE, "e2e", name + ".c"), cc)))
    for cc in ("gcc", "clang"):
        out.append(("consistency/many_functions[%s -O2]" % cc, lambda cc=cc: case("many.c", cc, MANY)))
    for name in ("002_mutual_recursion", "022_threads", "003_tail_calls"):
        for cc in ("gcc", "clang"):
            out.append(("consistency/%s[%s -O2 --counts]" % (name, cc),
                        lambda name=name, cc=cc: case(os.path.join(HERE, "e2e", name + ".c"), cc, counted=True)))
    return out
