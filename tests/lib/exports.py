"""Each export read by its real consumer, with totals equal to the report's:
callgrind files by callgrind_annotate (valgrind), pprof files by go tool
pprof (Debian's golang-go), speedscope files validated
against the JSON schema speedscope's npm package ships (with ajv), folded
stacks and Chrome traces parsed and summed."""
from fractions import Fraction
import json
import os
import re
import shutil
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALIDATE = r"""
const Ajv = require(process.argv[2] + '/node_modules/ajv');
const schema = require(process.argv[2] + '/node_modules/speedscope/dist/release/file-format-schema.json');
const data = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
const validate = new Ajv({strict: false}).compile(schema);
if (!validate(data)) { console.error(JSON.stringify(validate.errors)); process.exit(1); }
"""


def tests(ctx, Fail, sh, must, profile_json):
    def make_profile(tmp, src, cc="gcc"):
        obj = os.path.join(tmp, "a.o")
        must([cc, "-O2", "-g", "-c", src, "-o", obj], "compile")
        exe = os.path.join(tmp, "a.prof")
        must([ctx.profinst, "--cpu=instructions", obj, "-o", exe, "-lpthread"], "profinst")
        sh([exe], env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.pf")), cwd=tmp)
        return os.path.join(tmp, "p.pf")

    def export(tmp, prof, fmt):
        out = os.path.join(tmp, "out." + fmt)
        must([ctx.profview, "export", prof, "--format=" + fmt, "-o", out], "profview export")
        return out

    def check(src, kind):
        tmp = tempfile.mkdtemp(prefix="pi-export-")
        try:
            prof = make_profile(tmp, os.path.join(HERE, "e2e", src))
            pj = profile_json(ctx, prof)
            total = pj["total_cycles"]
            if kind == "callgrind":
                out = export(tmp, prof, "callgrind")
                a = must(["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
                         "callgrind_annotate").stdout
                m = re.search(r"^([\d,]+)\s+\(100\.0%\)\s+PROGRAM TOTALS", a, re.M)
                if not m or int(m.group(1).replace(",", "")) != total:
                    raise Fail("callgrind_annotate's total differs from %d:\n%s" % (total, a[:2000]))
                selfs = {}
                for line in a.split("Auto-annotated source")[0].splitlines():
                    mm = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+([^:\s]*):(.*) \[(.*)\]$", line)
                    if mm:
                        selfs[mm.group(3)] = selfs.get(mm.group(3), 0) + int(mm.group(1).replace(",", ""))
                want = {}
                for f in pj["functions"]:
                    if f["self_cycles"]:
                        want[f["name"]] = want.get(f["name"], 0) + f["self_cycles"]
                # it lists functions until it has shown (about) the threshold
                if not selfs or any(want.get(n) != v for n, v in selfs.items()) or \
                        sum(selfs.values()) * 100 < 99 * total:
                    raise Fail("callgrind_annotate's functions %r, profile %r" % (selfs, want))
                # costs are on source lines: all of them, the program being
                # C built with -g, and each function's calls on its callers'
                # lines ("=> file:callee (Nx)")
                m = re.search(r"^([\d,]+)\s+\(100\.0+%\)\s+events annotated", a, re.M)
                if not m or int(m.group(1).replace(",", "")) != total:
                    raise Fail("callgrind_annotate annotates %s of %d cycles on source lines:\n%s" %
                               (m and m.group(1), total, a[-3000:]))
                called = {}
                for line in a.splitlines():
                    mm = re.match(r"^\s*[\d,]+(?:\s+\(\s*[\d.]+%\))?\s+=> [^:\s]*:(.*) \((\d+)x\)$", line)
                    if mm:
                        called[mm.group(1)] = called.get(mm.group(1), 0) + int(mm.group(2))
                # (less those from no caller: main, a thread's start)
                calls = {f["name"]: f["calls"] - sum(c["calls"] for c in f["callers"] if c["name"] == "<root>")
                         for f in pj["functions"] if f["calls"] and not f["external"]}
                calls = {n: c for n, c in calls.items() if c}
                if any(called.get(n) != c for n, c in calls.items()):
                    raise Fail("callgrind_annotate's calls on the callers' lines %r, the profile's %r" %
                               (called, calls))
            elif kind == "folded":
                out = export(tmp, prof, "folded")
                s = 0
                for line in open(out):
                    mm = re.match(r"^([^;\n]+(;[^;\n]+)*) (\d+)$", line.rstrip("\n"))
                    if not mm:
                        raise Fail("bad folded line %r" % line)
                    s += int(mm.group(3))
                if s != total:
                    raise Fail("folded weights add to %d, total %d" % (s, total))
            elif kind == "speedscope":
                out = export(tmp, prof, "speedscope")
                npm = os.path.join(ctx.build, "npm")
                if not os.path.exists(os.path.join(npm, "node_modules", "ajv")):
                    raise Fail("%s/node_modules lacks ajv and speedscope (scripts/bootstrap.sh installs them)" % npm)
                js = os.path.join(tmp, "validate.js")
                with open(js, "w") as f:
                    f.write(VALIDATE)
                must(["node", js, npm, out], "speedscope schema validation")
                d = json.load(open(out))
                if sum(sum(p["weights"]) for p in d["profiles"]) != total:
                    raise Fail("speedscope weights differ from the total")
            elif kind == "pprof":
                out = export(tmp, prof, "pprof")
                a = must(["go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", out],
                         "go tool pprof").stdout
                m = re.search(r"^Type: (\w+)$", a, re.M)
                tot = re.search(r"accounting for (\d+), 100% of (\d+) total", a)
                # the profiles here count instructions (--cpu=instructions)
                if not m or m.group(1) != "instructions" or not tot or int(tot.group(2)) != total:
                    raise Fail("go tool pprof does not see %d cycles:\n%s" % (total, a[:1500]))
                flat = {}
                for line in a.splitlines():
                    mm = re.match(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.*)$", line)
                    if mm:
                        flat[mm.group(2)] = int(mm.group(1))
                want = {}
                for f in pj["functions"]:
                    if f["self_cycles"]:
                        want[f["name"]] = want.get(f["name"], 0) + f["self_cycles"]
                if flat != want:
                    raise Fail("go tool pprof's flat %r, profile %r" % (flat, want))
            elif kind == "chrome":
                out = export(tmp, prof, "chrome")
                doc = json.load(open(out))
                # a call-tree layout, said where a viewer shows it
                if "not a timeline" not in doc["otherData"].get("layout", "") or not any(
                        e["ph"] == "M" and e["name"] == "process_name" and "not a timeline" in e["args"]["name"]
                        for e in doc["traceEvents"]):
                    raise Fail("the chrome trace does not say it is a call-tree layout")
                ev = [e for e in doc["traceEvents"] if e["ph"] != "M"]
                by_tid = {}
                for e in ev:
                    if e["ph"] != "X" or e["dur"] < 0:
                        raise Fail("bad event %r" % e)
                    by_tid.setdefault(e["tid"], []).append(e)
                # complete events nest: each inside the last one that encloses it
                top = 0
                for tid, es in by_tid.items():
                    stack = []
                    for e in es:
                        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
                            stack.pop()
                        if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"]:
                            raise Fail("event %r overflows its parent %r" % (e, stack[-1]))
                        if not stack:
                            top += e["dur"]
                        stack.append(e)
                if top != total:
                    raise Fail("top-level chrome events last %d, total %d" % (top, total))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    out = []
    for src in ("002_mutual_recursion.c", "022_threads.c"):
        for kind in ("callgrind", "folded", "speedscope", "chrome", "pprof"):
            out.append(("export/%s[%s]" % (kind, src[:-2]), lambda s=src, k=kind: check(s, k)))
    return out


def graph_tests(ctx, Fail, sh, must, profile_json):
    """profview graph on a real program (sqlite3): dot draws it, arc widths
    follow MIN(9, MAX(1, LOG2(1000*T + .0001))), the default filter shows about 30 functions,
    --root keeps what the root calls."""
    import math

    def case(width):
        tmp = tempfile.mkdtemp(prefix="pi-graph-")
        try:
            obj = os.path.join(tmp, "d.o")
            must(["gcc", "-O2", "-c", os.path.join(HERE, "real", "sqlite_driver.c"), "-o", obj], "compile")
            exe = os.path.join(tmp, "d.prof")
            must([ctx.profinst, obj, "/usr/lib/x86_64-linux-gnu/libsqlite3.a", "-lm", "-ldl", "-lpthread",
                  "-o", exe], "profinst")
            prof = os.path.join(tmp, "p.pf")
            must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            dot = must([ctx.profview, "graph", prof, "--width=" + width], "profview graph").stdout
            must(["dot", "-Tsvg", "-o", os.path.join(tmp, "g.svg")], "dot", input=dot)
            nodes = re.findall(r"^  f(\d+) \[label=\"([^\\\"]+)", dot, re.M)
            if not 15 <= len(nodes) <= 31:
                raise Fail("default filter shows %d functions" % len(nodes))
            total = int(re.search(r": (\d+) cycles", dot).group(1))
            cg = json.loads(must([ctx.profview, "callgraph", prof, "--format=json"], "callgraph").stdout)
            names = dict(nodes)
            incl = {}
            for f in cg["functions"]:
                for a in f["parents"]:
                    incl[(a["name"], f["name"])] = incl.get((a["name"], f["name"]), 0) + a["incl_cycles"]
            checked = 0
            for m in re.finditer(r"^  f(\d+) -> f(\d+) \[label=\"\d+\", penwidth=([\d.]+)", dot, re.M):
                caller, callee, w = names[m.group(1)], names[m.group(2)], float(m.group(3))
                T = incl.get((caller, callee), 0) / total
                want = {"none": 1.0, "linear": 1 + 8 * T,
                        "log": min(9, max(1, math.log2(1000 * T + .0001)))}[width]
                if abs(w - want) > 0.002 and incl.get((caller, callee)):
                    raise Fail("arc %s -> %s: width %.3f, formula %.3f" % (caller, callee, w, want))
                checked += 1
            if checked < 10:
                raise Fail("only %d arcs checked" % checked)
            root = must([ctx.profview, "graph", prof, "--root=sqlite3BtreeInsert", "--filter=0"], "graph --root").stdout
            got = set(re.findall(r"^  f\d+ \[label=\"([^\\\"]+)", root, re.M))
            if "main" in got or "sqlite3BtreeInsert" not in got:
                raise Fail("--root keeps %r" % sorted(got)[:10])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("graph/%s" % w, lambda w=w: case(w)) for w in ("log", "linear", "none")]


def merge_diff_tests(ctx, Fail, sh, must, profile_json):
    """merge: two runs make one profile with every count doubled and call
    sites still resolved; diff: a profile against itself changes nothing,
    against the merge everything doubles; report --format=csv agrees."""
    def case():
        tmp = tempfile.mkdtemp(prefix="pi-merge-")
        try:
            obj = os.path.join(tmp, "a.o")
            must(["gcc", "-O2", "-c", os.path.join(HERE, "e2e", "005_function_pointers.c"), "-o", obj], "compile")
            exe = os.path.join(tmp, "a.prof")
            must([ctx.profinst, "--cpu=instructions", obj, "-o", exe], "profinst")  # deterministic: runs add up exactly
            for i in (1, 2):
                must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "%d.pf" % i)), cwd=tmp)
            one, two, m = (os.path.join(tmp, n) for n in ("1.pf", "2.pf", "m.pf"))
            must([ctx.profview, "merge", one, two, "-o", m], "merge")
            a, b = profile_json(ctx, one), profile_json(ctx, m)
            if b["total_cycles"] != 2 * a["total_cycles"] or b["threads"] != 2:
                raise Fail("merged totals %r vs %r" % (b["total_cycles"], a["total_cycles"]))
            ca = {f["name"]: f["calls"] for f in a["functions"]}
            cb = {f["name"]: f["calls"] for f in b["functions"]}
            if cb != {k: 2 * v for k, v in ca.items()}:
                raise Fail("merged calls %r vs %r" % (cb, ca))
            tree = must([ctx.profview, "tree", m], "tree").stdout
            if tree.count("[main+0x") < 2:
                raise Fail("call sites of the second run do not resolve in the merge:\n" + tree)
            d = json.loads(must([ctx.profview, "diff", one, one, "--format=json"], "diff").stdout)
            if any(f["self_change"] for f in d["functions"]):
                raise Fail("a profile differs from itself")
            d = json.loads(must([ctx.profview, "diff", one, m, "--format=json"], "diff").stdout)
            for f in d["functions"]:
                if f["self_cycles"][1] != 2 * f["self_cycles"][0]:
                    raise Fail("diff: %r" % f)
            csv = must([ctx.profview, "report", one, "--format=csv"], "csv").stdout.splitlines()
            import csv as csvmod
            rows = list(csvmod.DictReader(csv))
            if {r["name"]: int(r["calls"]) for r in rows} != ca:
                raise Fail("csv disagrees with json")
            bad = sh([ctx.profview, "merge", one, os.path.join(HERE, "e2e", "001_recursion.c"), "-o", m])
            if bad.returncode != 1 or len(bad.stderr.splitlines()) != 1:
                raise Fail("merge of a non-profile: %r" % bad.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return [("merge_diff/runs", case)]


def annotate_tests(ctx, Fail, sh, must, profile_json):
    """profview annotate on tests/annotate/lines.c: the markers the comments
    name, shares adding up to the function's self, the disassembly's
    executions and cycles adding up too."""
    def case():
        tmp = tempfile.mkdtemp(prefix="pi-annotate-")
        try:
            src = os.path.join(HERE, "annotate", "lines.c")
            obj = os.path.join(tmp, "lines.o")
            must(["gcc", "-O0", "-g", "-c", src, "-o", obj], "compile")
            exe = os.path.join(tmp, "lines")
            must([ctx.profinst, "--cpu=instructions", obj, "-o", exe], "profinst")
            prof = os.path.join(tmp, "p.pf")
            must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            out = must([ctx.profview, "annotate", prof, "work"], "annotate").stdout
            total = 0.0
            seen = 0
            for line in out.splitlines():
                m = re.match(r"^(.) +([\d.]+%)? +(\d+)  (.*)$", line)
                if not m:
                    mm = re.search(r"without line numbers>: \d+ instructions, ([\d.]+)%", line)
                    if mm:
                        total += float(mm.group(1))
                    continue
                if m.group(2):
                    total += float(m.group(2)[:-1])
                want = re.search(r"MARK:(.)", m.group(4))
                if want:
                    seen += 1
                    if m.group(1) != want.group(1):
                        raise Fail("line %s marked %r, expected %r:\n%s" % (m.group(3), m.group(1), want.group(1), out))
            if seen != 4:
                raise Fail("found %d marked lines of 4:\n%s" % (seen, out))
            if abs(total - 100.0) > 0.05:
                raise Fail("line shares add to %.2f%%:\n%s" % (total, out))
            by_file = must([ctx.profview, "annotate", prof, "lines.c"], "annotate FILE").stdout
            if "* work [" not in by_file or "* main [" not in by_file:
                raise Fail("annotate by file misses functions:\n" + by_file)
            dis = must([ctx.profview, "annotate", prof, "work", "--disasm"], "annotate --disasm").stdout
            pj = profile_json(ctx, prof)
            self_ = [f for f in pj["functions"] if f["name"] == "work"][0]["self_cycles"]
            cyc = sum(int(m.group(1)) for m in re.finditer(r"executions, (\d+) (?:cycles|instructions)", dis))
            if cyc != self_ or "lines.c:" not in dis:
                raise Fail("disassembly's cycles %d, self %d:\n%s" % (cyc, self_, dis))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return [("annotate/lines", case)]


def html_tests(ctx, Fail, sh, must, profile_json):
    """profview html: the page, driven in jsdom (tests/lib/html_check.js),
    shows what profview report says: every function with its calls, self
    and self+descendants, sorted by any column and filtered by name; a
    function's callers and callees; its source with its lines' cycles; each
    thread's calling-context tree, whose closed rows open on a click; the
    flame graph, where a click on a box makes it the base; the call graph,
    whose nodes open their functions.  A page of a counted profile
    (profinst --counts) shows no per-call min and max: no such columns,
    the mean alone on a function's page."""
    def check(src, fname, filt, counted=False):
        tmp = tempfile.mkdtemp(prefix="pi-html-")
        try:
            obj = os.path.join(tmp, "a.o")
            path = os.path.join(HERE, "e2e", src)
            must(["gcc", "-O1", "-g", "-c", path, "-o", obj], "compile")
            exe = os.path.join(tmp, "a.prof")
            must([ctx.profinst, "--cpu=instructions"] + (["--counts"] if counted else ["--timed"]) + [obj, "-o", exe, "-lpthread"],
                 "profinst")
            prof = os.path.join(tmp, "p.pf")
            sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            page = os.path.join(tmp, "p.html")
            must([ctx.profview, "html", prof, "-o", page], "profview html")
            npm = os.path.join(ctx.build, "npm")
            if not os.path.exists(os.path.join(npm, "node_modules", "jsdom")):
                raise Fail("%s/node_modules lacks jsdom (scripts/bootstrap.sh installs it)" % npm)
            seen = json.loads(must(["node", os.path.join(HERE, "lib", "html_check.js"), npm, page, fname, filt],
                                   "html_check.js").stdout)
            pj = profile_json(ctx, prof)
            if seen["errors"]:
                raise Fail("the page's script failed: %r" % seen["errors"])
            fs = [f for f in pj["functions"] if f["calls"] or f["self_cycles"]]
            # (in the profile's unit: instructions here, --cpu=instructions)
            if "%s %s" % ("{:,}".format(pj["total_cycles"]), pj["unit"]) not in seen["meta"]:
                raise Fail("the page's head %r lacks the total, %d %s" % (seen["meta"], pj["total_cycles"],
                                                                          pj["unit"]))
            want = sorted((f["name"], f["calls"], f["self_cycles"], f["incl_cycles"]) for f in fs)
            got = sorted((r["name"], r["calls"], r["self"], r["incl"]) for r in seen["list"])
            if got != want:
                raise Fail("the page lists %r, profview report %r" % (got, want))
            selfs = [r["self"] for r in seen["list"]]
            if selfs != sorted(selfs, reverse=True):
                raise Fail("the list is not sorted by self cycles first: %r" % selfs)
            if seen["by_calls_desc"] != sorted(seen["by_calls_desc"], reverse=True) or \
                    seen["by_calls_asc"] != sorted(seen["by_calls_asc"]) or seen["by_name"] != sorted(seen["by_name"]):
                raise Fail("sorting by calls (twice) and by name: %r %r %r" % (
                    seen["by_calls_desc"], seen["by_calls_asc"], seen["by_name"]))
            if seen["shown_all"] != len(fs):
                raise Fail("the page shows %d rows once asked for all, of %d" % (seen["shown_all"], len(fs)))
            if sorted(seen["filtered"]) != sorted(f["name"] for f in fs if filt.lower() in f["name"].lower()):
                raise Fail("filtering by %r shows %r" % (filt, seen["filtered"]))
            f = [x for x in fs if x["name"] == fname][0]
            minmax = [c for c in seen["columns"] if c in ("Min self", "Max self")]
            per_call = seen["stats"].get("Self per call", "")
            mean = "{:,}".format(int(Fraction(f["self_cycles"]) / f["calls"] + Fraction(1, 2)))
            if counted and (minmax or per_call != "mean " + mean or "counted" not in seen["meta"]):
                raise Fail("a counted profile's page: columns %r, %s's self per call %r (want the mean %s), head %r" % (
                    seen["columns"], fname, per_call, mean, seen["meta"]))
            if not counted and (len(minmax) != 2 or not re.match(r"min [\d,]+, max [\d,]+, mean %s$" % mean, per_call)):
                raise Fail("the page's columns %r, %s's self per call %r" % (seen["columns"], fname, per_call))
            callers = sorted((c["name"], c["calls"]) for c in f["callers"])
            if seen["opened"] != fname or sorted((c["name"], c["calls"]) for c in seen["callers"]) != callers:
                raise Fail("%s's page: %r, callers %r; profview report: %r" % (
                    fname, seen["opened"], seen["callers"], callers))
            callees = sorted((x["name"], c["calls"]) for x in fs for c in x["callers"] if c["name"] == fname)
            if sorted((c["name"], c["calls"]) for c in seen["callees"]) != callees:
                raise Fail("%s's callees on the page %r, from profview report %r" % (fname, seen["callees"], callees))
            # its disassembly: annotate --disasm's blocks, executions and cycles
            ann = must([ctx.profview, "annotate", prof, fname, "--disasm"], "profview annotate").stdout
            def block(text):  # (mark, executions, cycles)
                m = re.match(r"([|#]) block \S+: ([\d,]+) executions, ([\d,]+) (?:cycles|instructions)", text)
                return m and (m.group(1), int(m.group(2).replace(",", "")), int(m.group(3).replace(",", "")))
            blocks = [block(ln) for ln in ann.splitlines() if re.match(r"[|#] block ", ln)]
            page = [block(b) for b in seen["disasm"]]
            if not blocks or page != blocks:
                raise Fail("%s's blocks on the page %r, in profview annotate --disasm %r" % (fname, page, blocks))
            lines = open(path).read().split("\n")
            ran = [s for s in seen["source"] if s["mark"] == "|"]
            if not ran or any(s["text"] != lines[s["line"] - 1] for s in seen["source"]):
                raise Fail("%s's source on the page differs from %s: %r" % (fname, src, seen["source"]))
            total = sum(float(s["pct"].rstrip("%")) for s in seen["source"] if s["pct"])
            if abs(total - 100) > 0.05 * len(ran):
                raise Fail("%s's lines hold %.2f%% of its self cycles" % (fname, total))
            if seen["tree_rows"] != seen["nodes"] + seen["recursive_edges"] or \
                    seen["tree_recursive_rows"] != seen["recursive_edges"]:
                raise Fail("the call tree, all open: %d rows (%d recursive) for %d nodes and %d recursive calls" % (
                    seen["tree_rows"], seen["tree_recursive_rows"], seen["nodes"], seen["recursive_edges"]))
            if not seen["flame_boxes"] or seen["flame_base"] != "all" or \
                    seen.get("flame_new_base") != seen.get("flame_clicked"):
                raise Fail("the flame graph: %d boxes on %r; a click on %r made %r the base" % (
                    seen["flame_boxes"], seen["flame_base"], seen.get("flame_clicked"), seen.get("flame_new_base")))
            if not seen["graph"] or not seen.get("graph_nodes") or \
                    seen.get("graph_opened") != seen.get("graph_node_name"):
                raise Fail("the call graph (Graphviz is installed): %r nodes; its node %r opened %r" % (
                    seen.get("graph_nodes"), seen.get("graph_node_name"), seen.get("graph_opened")))
            if len(seen["tree_threads"]) != pj["threads"] or not seen["tree_first"] or \
                    seen.get("tree_opened", 1) < 1:
                raise Fail("the call tree: threads %r, first rows %r, a click opened %r rows" % (
                    seen["tree_threads"], seen["tree_first"], seen.get("tree_opened")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("html/page[002_mutual_recursion]", lambda: check("002_mutual_recursion.c", "is_odd", "is_")),
            ("html/page[005_function_pointers]", lambda: check("005_function_pointers.c", "apply", "a")),
            ("html/page[022_threads]", lambda: check("022_threads.c", "work", "main")),
            ("html/page[002_mutual_recursion --counts]", lambda: check("002_mutual_recursion.c", "is_odd", "is_", True)),
            ("html/page[022_threads --counts]", lambda: check("022_threads.c", "work", "main", True))]
