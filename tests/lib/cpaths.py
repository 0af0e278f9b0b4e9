"""The helpers' assembly fast paths against their C paths (issue 25, item
3): every end-to-end program, instrumented once, run as it is and with
PROFINST_C_PATHS=1 (which sends every entry, exit, tail-exit and
external-call helper to its C half), must give the same profile: the same
calling-context tree, counts and modelled cycles.  Only what is measured
(real time of external calls, the clock's rate) and the process's
identity may differ.

Two models: instructions (no bubbles, externals not charged) and zen5
with page faults off (call and return bubbles, C library calls costed by
the model, measured externals charged: compared where the model alone
decides)."""
import json
import os
import re
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E2E = os.path.join(HERE, "e2e")

# per profile: who ran it, and what the machine measured
DROP_TOP = {"pid", "exe", "processes", "process", "tsc_per_kcycle", "threads", "os_cycles",
            "os_left_cycles", "wait_cycles", "total_cycles"}
# per function, under a model that charges measured time: what it reaches
MEASURED_FIELDS = {"incl_cycles", "os_cycles", "os_left_cycles", "wait_cycles"}


def normalise(pj):
    """The profile's figures that the fast and C paths must agree on."""
    charged = pj.get("os_charged")
    out = {k: v for k, v in pj.items() if k not in DROP_TOP and k != "functions"}
    funcs = []
    for f in pj["functions"]:
        g = dict(f)
        # (an external measured at nothing, less the stubs' share, reads
        # as not measured: 0 cycles, none of them the model's)
        if f.get("measured") or (f.get("external") and not f["self_cycles"] and not f.get("block_cycles")):
            # its own time is measured: only how often it ran is the model's
            g = {"name": f["name"], "calls": f["calls"],
                 "callers": sorted((c["name"], c["calls"]) for c in f["callers"])}
        else:
            for k in MEASURED_FIELDS if charged else ("os_cycles", "os_left_cycles", "wait_cycles"):
                g.pop(k, None)
            g["callers"] = sorted((c["name"], c["calls"], c["recursive_calls"])
                                  + (() if charged else (c["incl_cycles"],)) for c in f["callers"])
        funcs.append(g)
    out["functions"] = sorted(funcs, key=lambda g: (g["name"], g.get("object", "")))
    return out


def tree_text(ctx, prof, sh):
    """`profview tree`, its threads in a fixed order: which thread the
    runtime met first (its number) and its tid are the scheduler's."""
    p = sh([ctx.profview, "tree", prof])
    blocks = []
    for line in p.stdout.splitlines():
        if line.startswith("Thread "):
            blocks.append([re.sub(r"^Thread \d+ \(tid \d+\)", "Thread", line)])
        elif blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return "\n".join(sorted("\n".join(b) for b in blocks))


def comparable_programs(directives):
    """The end-to-end programs whose one run gives one profile, the same
    figures every run: their file names, in order."""
    for f in sorted(os.listdir(E2E)):
        if not f.endswith((".c", ".cc")):
            continue
        d = directives(os.path.join(E2E, f))
        if int(d.get("profiles", ["1"])[0]) != 1:
            continue  # a fork or an exec: one process's figures against another's
        if d.get("deterministic", ["yes"])[0].split()[0] == "no":
            continue  # its figures differ from run to run (the file says why)
        yield f


def tests(ctx, Fail, sh, must, directives):
    def case(src, cpu):
        d = directives(src)
        name = os.path.splitext(os.path.basename(src))[0]
        cc = "g++" if src.endswith(".cc") else "gcc"
        tmp = tempfile.mkdtemp(prefix="pi-cpaths-%s-" % name)
        try:
            cflags = " ".join(d.get("cflags", [])).split()
            ldflags = " ".join(d.get("ldflags", [])).split()
            args = " ".join(d.get("args", [])).split()
            obj = os.path.join(tmp, name + ".o")
            must([cc, "-O2", "-c", src, "-o", obj] + cflags, "compile")
            exe = os.path.join(tmp, name + ".prof")
            must([ctx.profinst, "-q", "--timed", "--cpu=" + cpu, obj, "-o", exe] + ldflags
                 + (["--no-page-faults"] if cpu != "instructions" else []), "profinst")
            got = {}
            for mode in ("fast", "c"):
                pf = os.path.join(tmp, mode + ".pf")
                env = dict(os.environ, PROFINST_OUTPUT=pf)
                env.pop("PROFINST_C_PATHS", None)
                if mode == "c":
                    env["PROFINST_C_PATHS"] = "1"
                subprocess.run([exe] + args, env=env, cwd=tmp, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=300)
                if not os.path.exists(pf):
                    raise Fail("%s paths: no profile" % mode)
                pj = json.loads(must([ctx.profview, "report", pf, "--format=json"], "report").stdout)
                got[mode] = (normalise(pj), tree_text(ctx, pf, sh) if not pj.get("os_charged") else None, pj)
            (fa, ta, pa), (fc, tc, pc) = got["fast"], got["c"]
            if pa["lost"] != pc["lost"]:
                raise Fail("losses differ: fast %r, C %r" % (pa["lost"], pc["lost"]))
            if fa != fc:
                ga = {g["name"]: g for g in fa["functions"]}
                gc = {g["name"]: g for g in fc["functions"]}
                diffs = ["%s: fast %r\n      C %r" % (n, ga.get(n), gc.get(n))
                         for n in sorted(set(ga) | set(gc)) if ga.get(n) != gc.get(n)]
                top = {k: (fa[k], fc[k]) for k in fa if k != "functions" and fa[k] != fc.get(k)}
                raise Fail("fast and C paths disagree %s\n%s" % (top or "", "\n".join(diffs[:6])))
            if ta != tc:
                import difflib
                raise Fail("calling-context trees differ:\n" + "\n".join(
                    list(difflib.unified_diff(ta.splitlines(), tc.splitlines(), "fast", "C", lineterm=""))[:30]))
            if not pc["functions"] or not any(f["calls"] for f in pc["functions"]):
                raise Fail("an empty profile proves nothing")
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    out = []
    for f in comparable_programs(directives):
        for cpu in ("instructions", "zen5"):
            out.append(("cpaths/%s[%s]" % (f.rsplit(".", 1)[0], cpu),
                        lambda f=f, cpu=cpu: case(os.path.join(E2E, f), cpu)))
    return out
