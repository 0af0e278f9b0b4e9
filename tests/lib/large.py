"""A program of a few thousand functions, seen whole by every view
(issue 26, item 4: large profiles): every function listed with its exact
calls, callers and callees as the program makes them, and the same
figures wherever a view shows them (report, CSV, tree, callgraph,
detail, folded, diff and merge).  The program is bench/large_profiles.py's
tree of functions at a size a test builds in seconds; the bench times the
same views on 200,000."""
import json
import os
import re
import atexit
import shutil
import sys
import tempfile
import threading
from fractions import Fraction

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import large_profiles as gen  # noqa: E402

N = 3000


def tests(ctx, Fail, sh, must, profile_json):
    def pv(*args):
        return must([ctx.profview] + list(args), "profview " + args[0]).stdout

    built, lock = {}, threading.Lock()

    def program():
        """The instrumented program, built once for both cases."""
        with lock:
            if "exe" not in built:
                tmp = tempfile.mkdtemp(prefix="pi-large-prog-")
                atexit.register(shutil.rmtree, tmp, True)
                built["exe"] = build(tmp)
        return built["exe"]

    def build(tmp):
        srcs = gen.gen_sources(N, tmp)
        objs = []
        for s in srcs:
            objs.append(s[:-2] + ".o")
            must(["gcc", "-O2", "-g", "-c", s, "-o", objs[-1]], "compile")
        exe = os.path.join(tmp, "prog.prof")
        must([ctx.profinst, "-q", "--cpu=instructions"] + objs + ["-o", exe], "profinst")
        return exe

    def run(tmp, exe, rounds):
        prof = os.path.join(tmp, "r%d.pf" % rounds)
        must([exe, str(rounds)], "run", env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        return prof

    def expected(rounds):
        """Each function's calls and its callers' (name -> calls), as the
        program makes them."""
        calls, callers = {}, {}
        parent = {c: i for i in range(N) for c in gen.children(i, N)}
        for i in range(N):
            f = "f_%d" % i
            calls[f] = rounds
            callers[f] = {"main" if i == 0 else "f_%d" % parent[i]: rounds}
            if i % 3:
                callers.setdefault("helper", {})[f] = rounds * (i % 3)
            if i % 5 == 0:
                callers.setdefault("<external:rand_r>", {})[f] = rounds
        for h in ("helper", "<external:rand_r>"):
            calls[h] = sum(callers[h].values())
        calls["main"] = 1
        calls["<external:strtol>"] = 1  # main's atoi of its argument
        callers["<external:strtol>"] = {"main": 1}
        return calls, callers

    def check_report(pj, rounds):
        calls, callers = expected(rounds)
        rows = {f["name"]: f for f in pj["functions"]}
        if set(rows) != set(calls):
            raise Fail("report lists %d functions, want %d: missing %s, extra %s" % (
                len(rows), len(calls), sorted(set(calls) - set(rows))[:5], sorted(set(rows) - set(calls))[:5]))
        for name, want in calls.items():
            if rows[name]["calls"] != want:
                raise Fail("%s: %d calls, want %d" % (name, rows[name]["calls"], want))
        for name, want in callers.items():
            got = {c["name"]: c["calls"] for c in rows[name]["callers"]}
            if got != want:
                raise Fail("%s's callers %s, want %s" % (name, sorted(got.items())[:5], sorted(want.items())[:5]))
        # self+descendants: its self, its children's, and the helper's and
        # rand_r's time under it (their caller arcs), exactly
        X = lambda v: Fraction(str(v))  # noqa: E731
        arc = {h: {c["name"]: X(c["incl_cycles"]) for c in rows[h]["callers"]}
               for h in ("helper", "<external:rand_r>")}
        for i in range(N):
            f = "f_%d" % i
            want = X(rows[f]["self_cycles"]) + sum(X(rows["f_%d" % c]["incl_cycles"]) for c in gen.children(i, N)) \
                + arc["helper"].get(f, 0) + arc["<external:rand_r>"].get(f, 0)
            if X(rows[f]["incl_cycles"]) != want:
                raise Fail("%s: self+descendants %s, want %s" % (f, rows[f]["incl_cycles"], want))
        total = X(pj["total_cycles"])
        if sum(X(f["self_cycles"]) for f in pj["functions"]) != total or X(rows["main"]["incl_cycles"]) != total:
            raise Fail("the rows' self do not add up to the total %s" % total)
        return rows

    def check_text_views(tmp, prof, pj, rows):
        total = int(Fraction(str(pj["total_cycles"])))
        # the text report and the CSV: one row a function, the same calls
        text = pv("report", prof)
        got = {}
        for line in text.splitlines():
            # (MinSelf and MaxSelf: "-" in a counted profile)
            m = re.match(r"^\s+(\d+)\s+\d+\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(?:\d+|-)\s+(?:\d+|-)\s+(\S+)", line)
            if m:
                got[m.group(2)] = int(m.group(1))
        want = {n: r["calls"] for n, r in rows.items()}
        if got != want:
            raise Fail("text report's calls differ from the JSON's on %s" %
                       sorted(set(got.items()) ^ set(want.items()))[:6])
        csv = pv("report", prof, "--format=csv").splitlines()
        if len(csv) != len(rows) + 1:
            raise Fail("CSV has %d rows, want %d" % (len(csv) - 1, len(rows)))
        # the tree: every function's nodes' calls add up to its calls
        tree = {}
        for line in pv("tree", prof).splitlines():
            m = re.match(r"^\s*\d+\s+\d+\s+(\d+)\s+\d+\s+\d+\s+(\S+)  \[", line)
            if m:
                tree[m.group(2)] = tree.get(m.group(2), 0) + int(m.group(1))
        if tree != want:
            raise Fail("tree's calls differ from the report's on %s" %
                       sorted(set(tree.items()) ^ set(want.items()))[:6])
        # callgraph: each function's parents and children, as the report's
        cg = json.loads(pv("callgraph", prof, "--format=json"))
        if len(cg["functions"]) != len(rows):
            raise Fail("callgraph has %d functions, want %d" % (len(cg["functions"]), len(rows)))
        for f in cg["functions"]:
            parents = {a["name"]: a["calls"] for a in f["parents"]}
            if f["name"] != "main" and parents != {c["name"]: c["calls"] for c in rows[f["name"]]["callers"]}:
                raise Fail("callgraph's parents of %s: %s" % (f["name"], parents))
            kids = {a["name"]: a["calls"] for a in f["children"]}
            m = re.match(r"^f_(\d+)$", f["name"])
            if m:
                i = int(m.group(1))
                want_kids = {"f_%d" % c: rows[f["name"]]["calls"] for c in gen.children(i, N)}
                if i % 3:
                    want_kids["helper"] = rows[f["name"]]["calls"] * (i % 3)
                if i % 5 == 0:
                    want_kids["<external:rand_r>"] = rows[f["name"]]["calls"]
                if kids != want_kids:
                    raise Fail("callgraph's children of %s: %s, want %s" % (f["name"], kids, want_kids))
        # detail: the helper's callers, each once with its calls
        det = pv("detail", prof, "helper")
        listed = dict((m.group(1), int(m.group(2)))
                      for m in re.finditer(r"^  (f_\d+)\s+(\d+)\s+[\d.]+%$", det, re.M))
        want_callers = {c["name"]: c["calls"] for c in rows["helper"]["callers"]}
        if listed != want_callers:
            raise Fail("detail helper lists %d callers, want %d" % (len(listed), len(want_callers)))
        # folded stacks: every function, adding up to the total
        out = os.path.join(tmp, "f.folded")
        pv("export", prof, "--format=folded", "-o", out)
        folded, seen = 0, set()
        with open(out) as f:
            for line in f:
                stack, n = line.rsplit(" ", 1)
                folded += int(n)
                seen.add(stack.rsplit(";", 1)[-1])
        if folded != total:
            raise Fail("folded stacks add up to %d, want %d" % (folded, total))
        if not {n for n, r in rows.items() if Fraction(str(r["self_cycles"]))} <= seen:
            raise Fail("folded stacks leave out functions with self time")

    def case(f):
        def run_case():
            tmp = tempfile.mkdtemp(prefix="pi-large-")
            try:
                f(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return run_case

    @case
    def views(tmp):
        exe = program()
        prof = run(tmp, exe, 2)
        pj = profile_json(ctx, prof)
        rows = check_report(pj, 2)
        check_text_views(tmp, prof, pj, rows)

    @case
    def diff_merge(tmp):
        exe = program()
        one, two = run(tmp, exe, 1), run(tmp, exe, 2)
        d = json.loads(pv("diff", one, two, "--format=json"))
        calls1, _ = expected(1)
        calls2, _ = expected(2)
        # (diff names an external by its symbol)
        got = {r["name"]: r["calls"] for r in d["functions"]}
        want = {re.sub(r"^<external:(.*)>$", r"\1", n): [calls1[n], calls2[n]] for n in calls1}
        if got != want:
            raise Fail("diff's calls differ on %s" % sorted(set(map(str, got.items())) ^
                                                                set(map(str, want.items())))[:6])
        merged = os.path.join(tmp, "m.pf")
        pv("merge", one, two, "-o", merged)
        calls3, callers3 = expected(3)
        pj = profile_json(ctx, merged)
        rows = {f["name"]: f for f in pj["functions"]}
        for name, want in calls3.items():
            w = want if name not in ("main", "<external:strtol>") else 2
            if name not in rows or rows[name]["calls"] != w:
                raise Fail("merged %s: %s calls, want %d" % (name, rows.get(name, {}).get("calls"), w))
        got = {c["name"]: c["calls"] for c in rows["helper"]["callers"]}
        if got != callers3["helper"]:
            raise Fail("merged helper's callers differ")

    return [("large/views", views), ("large/diff_merge", diff_merge)]
