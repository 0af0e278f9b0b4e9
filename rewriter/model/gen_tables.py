#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the per-instruction-form cost tables (tables/<cpu>.inc) of the
analytical timing models from llvm-mca-14's scheduling models.

Steps:
 1. collect the instruction forms of real code: profinst --dump-forms over
    Debian's static archives (libz, libsqlite3, liblua5.4, libcrypto, libbz2,
    libc, libm, libstdc++), merging the counts;
 2. for each form, take one representative instruction (its bytes), turn it
    into LLVM's own AT&T text with llvm-mc --disassemble, make it analysable
    (a local label for a branch target, distinct registers where the example
    repeated one, so that no zero idiom is costed), and check that llvm-mc
    assembles it;
 3. per CPU, run llvm-mca --json over batches of one-instruction regions and
    read each instruction's latency, micro-ops, reciprocal throughput and
    resource pressure, folding LLVM's resources onto a fixed list of ports;
 4. write tables/<cpu>.inc, sorted by form in strcmp order.

Python 3 standard library only; no network; the output depends only on the
archives, profinst and llvm-mca-14.
"""

import argparse
import concurrent.futures
import glob
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

LIBDIR = "/usr/lib/x86_64-linux-gnu"
ARCHIVES = [
    LIBDIR + "/libz.a",
    LIBDIR + "/libsqlite3.a",
    LIBDIR + "/liblua5.4.a",
    LIBDIR + "/libcrypto.a",
    LIBDIR + "/libbz2.a",
    LIBDIR + "/libc.a",
    LIBDIR + "/libm.a",        # a GNU ld script naming libm-<ver>.a and libmvec.a
    "/usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.a",   # else the newest gcc's
]
APT_HINT = ("apt-get install zlib1g-dev libsqlite3-dev liblua5.4-dev libssl-dev libbz2-dev "
            "libc6-dev libstdc++-12-dev")

MAX_PORTS = 16  # UARCH_MAX_PORTS in uarch.h

# Per CPU: the -mcpu, the C name (file tables/<ident>.inc, <ident>_ports, ...),
# the LLVM scheduling model expected (checked through its resource names), and
# the ports: (our name, [LLVM resources folded into it]).  A resource with
# several units (llvm-mca lists Zn3Store.0, Zn3Store.1) is folded into one
# port whose pressure is the mean over its units, so that every port, like a
# real one, can take one cycle of pressure per cycle.  `drop` lists the
# resources deliberately left out; any other resource is an error, so that a
# changed LLVM model is noticed.
#
# `placeholder` is (Latency, NumMicroOpcodes, RThroughput) of the model's
# WriteMicrocoded/WriteSystem class, which LLVM gives the instructions it has
# no data for (endbr64, rep movs, fprem, rdrand, xend...): 100 cycles, a guess
# that would swamp any block.  Such forms are left out (the profiler's model
# falls back to their category) unless --keep-placeholders.
#
# Intel (SKL, ICX): the numbered ports, and the dividers as pseudo-ports DIV
# and FPDIV: the FP divider is the only resource that makes divps, sqrtsd...
# slow in throughput (they put 1 cycle on port 0), and the integer divider the
# only one for div/idiv with a memory operand (the register forms are instead
# microcoded over ports 0, 1, 5, 6 in these models).
# Zen 3: ALU0-3, BRU1, AGU0-2, the load/store pipes (LSU, 3 units), the store
# queue's 2 stores per cycle (ST), FP0-3, FP45 (2 units) and FPST.  Zn3Load
# (3 units) is left out: every load also uses Zn3LSU, which has as many units,
# so its pressure never exceeds LSU's.
CPUS = [
    {
        "mcpu": "skylake",
        "ident": "skylake",
        "model": "SkylakeClientModel",
        "prefix": "SKL",
        "ports": [("P0", ["SKLPort0"]), ("P1", ["SKLPort1"]), ("P2", ["SKLPort2"]),
                  ("P3", ["SKLPort3"]), ("P4", ["SKLPort4"]), ("P5", ["SKLPort5"]),
                  ("P6", ["SKLPort6"]), ("P7", ["SKLPort7"]),
                  ("DIV", ["SKLDivider"]), ("FPDIV", ["SKLFPDivider"])],
        "drop": [],
        "placeholder": (100, 1, 0.25),
    },
    {
        "mcpu": "icelake-server",
        "ident": "icelake_server",
        "model": "IceLakeModel",
        "prefix": "ICX",
        "ports": [("P0", ["ICXPort0"]), ("P1", ["ICXPort1"]), ("P2", ["ICXPort2"]),
                  ("P3", ["ICXPort3"]), ("P4", ["ICXPort4"]), ("P5", ["ICXPort5"]),
                  ("P6", ["ICXPort6"]), ("P7", ["ICXPort7"]), ("P8", ["ICXPort8"]),
                  ("P9", ["ICXPort9"]),
                  ("DIV", ["ICXDivider"]), ("FPDIV", ["ICXFPDivider"])],
        "drop": [],
        "placeholder": (100, 1, 0.25),
    },
    {
        "mcpu": "znver3",
        "ident": "znver3",
        "model": "Znver3Model",
        "prefix": "Zn3",
        "ports": [("ALU0", ["Zn3ALU0"]), ("ALU1", ["Zn3ALU1"]), ("ALU2", ["Zn3ALU2"]),
                  ("ALU3", ["Zn3ALU3"]), ("BRU1", ["Zn3BRU1"]),
                  ("AGU0", ["Zn3AGU0"]), ("AGU1", ["Zn3AGU1"]), ("AGU2", ["Zn3AGU2"]),
                  ("LSU", ["Zn3LSU"]), ("ST", ["Zn3Store"]),
                  ("FP0", ["Zn3FPP0"]), ("FP1", ["Zn3FPP1"]), ("FP2", ["Zn3FPP2"]),
                  ("FP3", ["Zn3FPP3"]), ("FP45", ["Zn3FPP45"]), ("FPST", ["Zn3FPSt"])],
        "drop": ["Zn3Load"],
        "placeholder": (100, 100, 25.0),
    },
]

# llvm-mc prints this separator between the instructions of one batch
# (movabsq $0x1122334455667788, %r15: no real code has it)
SEP_BYTES = "0x49 0xbf 0x88 0x77 0x66 0x55 0x44 0x33 0x22 0x11"
SEP_TEXT = "movabsq $1234605616436508552, %r15"
LABEL = ".Lpi_target"

# registers to substitute for a repeated one, by class (rsp, rbp last)
REG_CLASSES = [
    ["rax", "rcx", "rdx", "rbx", "rsi", "rdi"] + ["r%d" % i for i in range(8, 16)] + ["rsp", "rbp"],
    ["eax", "ecx", "edx", "ebx", "esi", "edi"] + ["r%dd" % i for i in range(8, 16)] +
    ["esp", "ebp"],
    ["ax", "cx", "dx", "bx", "si", "di"] + ["r%dw" % i for i in range(8, 16)] + ["sp", "bp"],
    ["al", "cl", "dl", "bl", "sil", "dil"] + ["r%db" % i for i in range(8, 16)] +
    ["spl", "bpl", "ah", "ch", "dh", "bh"],
    ["xmm%d" % i for i in range(32)],
    ["ymm%d" % i for i in range(32)],
    ["zmm%d" % i for i in range(32)],
    ["k%d" % i for i in range(1, 8)] + ["k0"],
    ["mm%d" % i for i in range(8)],
]
REG_CLASS_OF = {r: c for c in REG_CLASSES for r in c}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, inp=None):
    return subprocess.run(cmd, input=inp, capture_output=True, text=True)


# ---------------------------------------------------------------- step 1

def archive_members(path):
    """The archives behind path: itself, or those a GNU ld script names."""
    with open(path, "rb") as f:
        head = f.read(8)
    if head == b"!<arch>\n":
        return [path]
    with open(path, "r", errors="replace") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    out = []
    for m in re.finditer(r"\b(?:GROUP|INPUT)\s*\(([^)]*)\)", text):
        for tok in m.group(1).split():
            if tok.endswith(".a"):
                p = tok if os.path.isabs(tok) else os.path.join(os.path.dirname(path), tok)
                if os.path.exists(p):
                    out += archive_members(p)
    return out


def collect_forms(profinst, archives, jobs):
    """form -> {'count': total, 'cands': [hex of an example, best first]}, and
    the archives read."""
    forms = {}
    used = []
    for a in archives:
        if not os.path.exists(a) and a.endswith("/libstdc++.a"):
            other = sorted(glob.glob("/usr/lib/gcc/x86_64-linux-gnu/*/libstdc++.a"),
                           key=lambda p: [int(x) for x in re.findall(r"\d+", p)])
            a = other[-1] if other else a
        if not os.path.exists(a):
            log("gen_tables: warning: %s missing (%s)" % (a, APT_HINT))
            continue
        for real in archive_members(a):
            used.append(real)
    if not used:
        sys.exit("gen_tables: no archives found")
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        outs = list(ex.map(lambda a: run([profinst, "--dump-forms", a]), used))
    for ai, (a, p) in enumerate(zip(used, outs)):
        if p.returncode != 0:
            sys.exit("gen_tables: %s --dump-forms %s failed:\n%s" % (profinst, a, p.stderr[-2000:]))
        n = 0
        for line in p.stdout.splitlines():
            f = line.split("\t")
            if len(f) != 4:
                continue
            form, cnt, _zydis, hexb = f[0], int(f[1]), f[2], f[3]
            e = forms.setdefault(form, {"count": 0, "cands": []})
            e["count"] += cnt
            e["cands"].append((cnt, ai, hexb))
            n += 1
        log("gen_tables: %-50s %4d forms" % (a, n))
    for e in forms.values():
        # most frequent archive's example first; distinct byte strings only
        seen, cands = set(), []
        for cnt, ai, hexb in sorted(e["cands"], key=lambda c: (-c[0], c[1], c[2])):
            if hexb not in seen:
                seen.add(hexb)
                cands.append(hexb)
        e["cands"] = cands
    return forms, used


# ---------------------------------------------------------------- step 2

def hex_to_mc(hexb):
    return " ".join("0x" + hexb[i:i + 2] for i in range(0, len(hexb), 2))


def disassemble(llvm_mc, hexes):
    """hex strings -> LLVM AT&T text (None where llvm-mc cannot decode)."""
    res = [None] * len(hexes)
    todo = list(range(len(hexes)))
    for _ in range(50):
        if not todo:
            break
        lines = []
        for i in todo:
            lines += [hex_to_mc(hexes[i]), SEP_BYTES]
        p = run([llvm_mc, "--disassemble", "-triple=x86_64"], "\n".join(lines) + "\n")
        bad = set()
        for m in re.finditer(r"^<stdin>:(\d+):\d+: (?:warning|error)", p.stderr, re.M):
            ln = int(m.group(1)) - 1           # 0-based input line
            bad.add(todo[ln // 2])             # an instruction or the separator after it
        if bad:
            todo = [i for i in todo if i not in bad]
            continue
        segs, cur = [], []
        for line in p.stdout.splitlines():
            t = line.split("#", 1)[0].strip()     # drop "# imm = 0x..." comments
            if not t or t.startswith("."):
                continue
            if " ".join(t.split()) == SEP_TEXT:
                segs.append(cur)
                cur = []
            else:
                cur.append(" ".join(t.split()))
        if len(segs) != len(todo):
            sys.exit("gen_tables: llvm-mc output out of step (%d segments for %d instructions)"
                     % (len(segs), len(todo)))
        for i, seg in zip(todo, segs):
            if seg:
                res[i] = " ".join(seg)
        break
    return res


def split_operands(s):
    ops, depth, cur = [], 0, ""
    for ch in s:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


PREFIXES = {"lock", "rep", "repe", "repz", "repne", "repnz", "data16", "data32", "notrack", "bnd",
            "xacquire", "xrelease", "addr32", "cs", "ds", "es", "fs", "gs", "ss", "rex64", "{vex}",
            "{vex3}", "{evex}"}


def split_insn(text):
    """'lock cmpxchgq %rdx, (%rdi)' -> (['lock', 'cmpxchgq'], ['%rdx', '(%rdi)'])"""
    words = text.split(" ")
    head = []
    while words and (words[0] in PREFIXES or not head):
        head.append(words.pop(0))
        if head[-1] not in PREFIXES:
            break
    return head, split_operands(" ".join(words))


def make_analysable(text, form):
    """The text llvm-mca is given for llvm-mc's text of an example of form."""
    head, ops = split_insn(text)
    if "rel" in form.split(" ", 1)[-1].split(","):
        for k, o in enumerate(ops):
            if re.fullmatch(r"-?(?:0x[0-9a-fA-F]+|\d+)", o):
                ops[k] = LABEL
    # xor %eax,%eax, vpxor %xmm0,%xmm0,%xmm1, sbb %eax,%eax...: the first two
    # operands after any immediate (sources, in AT&T order) are one register,
    # which LLVM may cost as a zero or dependency-breaking idiom.  The model
    # knows the idioms itself (insn_detail.zero_idiom) and wants the cost of
    # the general case: replace the first by another register of its class.
    srck = [k for k, o in enumerate(ops) if not o.startswith("$") and not o.startswith("{")]
    if (len(srck) >= 2 and ops[srck[0]] == ops[srck[1]] and ops[srck[0]].startswith("%")
            and ops[srck[0]][1:] in REG_CLASS_OF):
        r = ops[srck[0]][1:]
        used = set(re.findall(r"%([a-z0-9]+)", " ".join(ops)))
        alt = next((c for c in REG_CLASS_OF[r] if c not in used), None)
        if alt is not None:
            ops[srck[0]] = "%" + alt
    out = " ".join(head)
    if ops:
        out += " " + ", ".join(ops)
    return out


def assembles(llvm_mc, texts):
    """Which texts llvm-mc assembles (one per line, errors carry the line)."""
    ok = [True] * len(texts)
    src = "\n".join(texts) + "\n" + LABEL + ":\n"
    p = run([llvm_mc, "-triple=x86_64", "-filetype=null"], src)
    for m in re.finditer(r"^<stdin>:(\d+):\d+: error", p.stderr, re.M):
        ln = int(m.group(1)) - 1
        if ln < len(texts):
            ok[ln] = False
    return ok


def representatives(llvm_mc, forms):
    """form -> (llvm text, original llvm-mc text, hex); and the forms dropped, with why."""
    names = sorted(forms, key=lambda f: f.encode())
    chosen, why = {}, {}
    pending = {f: list(forms[f]["cands"]) for f in names}
    while pending:
        order = [f for f in names if f in pending]
        hexes = [pending[f][0] for f in order]
        texts = disassemble(llvm_mc, hexes)
        cand = []
        for f, h, t in zip(order, hexes, texts):
            if t is None:
                why[f] = "that llvm-mc cannot disassemble: %s" % h
                continue
            a = make_analysable(t, f)
            cand.append((f, h, t, a))
        ok_a = assembles(llvm_mc, [c[3] for c in cand])
        ok_t = assembles(llvm_mc, [c[2] for c in cand])
        for (f, h, t, a), oa, ot in zip(cand, ok_a, ok_t):
            if oa:
                chosen[f] = (a, t, h)
            elif ot and "rel" not in f.split(" ", 1)[-1].split(","):
                chosen[f] = (t, t, h)
            else:
                why[f] = "that llvm-mc does not reassemble from its disassembly: %s -> %s" % (h, t)
        nxt = {}
        for f in order:
            if f in chosen:
                why.pop(f, None)
                continue
            rest = pending[f][1:]
            if rest:
                nxt[f] = rest
        pending = nxt
    return chosen, why


# ---------------------------------------------------------------- step 3

def mca_batch(llvm_mca, mcpu, items):
    """items: [(form, text)].  Returns ({form: raw}, {form: why}, resource names)."""
    def source(batch):
        lines = []
        for k, (f, t) in enumerate(batch):
            lines += ["# LLVM-MCA-BEGIN r%d" % k, t, "# LLVM-MCA-END r%d" % k]
        lines.append(LABEL + ":")
        return "\n".join(lines) + "\n"

    res, why, resources = {}, {}, None
    stack = [list(items)]
    while stack:
        batch = stack.pop()
        if not batch:
            continue
        p = run([llvm_mca, "-mtriple=x86_64", "-mcpu=" + mcpu, "--json", "-iterations=100"],
                source(batch))
        if p.returncode == 0:
            d = json.loads(p.stdout)
            resources = d["TargetInfo"]["Resources"]
            regions = d["CodeRegions"]
            if len(regions) != len(batch):
                sys.exit("gen_tables: llvm-mca returned %d regions for %d"
                         % (len(regions), len(batch)))
            for reg in regions:
                f, t = batch[int(reg["Name"][1:])]
                if len(reg["Instructions"]) != 1:
                    why[f] = ("where llvm-mca sees several instructions: %d in %r"
                              % (len(reg["Instructions"]), t))
                    continue
                ii = reg["InstructionInfoView"]["InstructionList"][0]
                press = {}
                for e in reg["ResourcePressureView"]["ResourcePressureInfo"]:
                    if e["InstructionIndex"] == 0:
                        press[resources[e["ResourceIndex"]]] = e["ResourceUsage"]
                res[f] = {"lat": ii["Latency"], "uops": ii["NumMicroOpcodes"],
                          "rthru": ii["RThroughput"], "press": press, "text": t}
            continue
        err = p.stderr.strip()
        # the instruction llvm-mca names, or the line of a parse error
        culprits = set()
        m = re.search(r"note: instruction:\s*(.*)", err)
        if m:
            want = " ".join(m.group(1).split())
            culprits = {k for k, (f, t) in enumerate(batch) if " ".join(t.split()) == want}
        for m in re.finditer(r"^<stdin>:(\d+):\d+: error", err, re.M):
            ln = int(m.group(1)) - 1
            if ln % 3 == 1 and ln // 3 < len(batch):
                culprits.add(ln // 3)
        first = (err.splitlines()[0] if err else "no output").replace("error: ", "")
        if "unsupported instruction" in first:
            reason = "unsupported by the -mcpu's scheduling model: llvm-mca says " + first
        else:
            reason = "llvm-mca fails: " + first
        if culprits:
            for k in culprits:
                why[batch[k][0]] = reason
            stack.append([b for k, b in enumerate(batch) if k not in culprits])
        elif len(batch) == 1:
            why[batch[0][0]] = reason
        else:
            h = len(batch) // 2
            stack += [batch[h:], batch[:h]]
    return res, why, resources


def run_mca(llvm_mca, mcpu, items, batch, jobs):
    chunks = [items[i:i + batch] for i in range(0, len(items), batch)]
    res, why, resources = {}, {}, None
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for r, w, rs in ex.map(lambda c: mca_batch(llvm_mca, mcpu, c), chunks):
            res.update(r)
            why.update(w)
            resources = resources or rs
    return res, why, resources


def hundredths(x):
    return int(math.floor(x * 100 + 0.5 + 1e-9))


def fold(cpu, resources, raw):
    """LLVM resource pressure -> our ports (exits on an unknown resource)."""
    base = lambda r: r.split(".", 1)[0]
    units = {}
    for r in resources:
        units[base(r)] = units.get(base(r), 0) + 1
    port_of = {}
    for i, (name, rs) in enumerate(cpu["ports"]):
        for r in rs:
            port_of[r] = i
    for r in units:
        if r not in port_of and r not in cpu["drop"]:
            sys.exit("gen_tables: %s: LLVM resource %s is neither a port nor dropped; update CPUS"
                     % (cpu["mcpu"], r))
    press = [0.0] * len(cpu["ports"])
    for r, v in raw.items():
        b = base(r)
        if b in port_of:
            press[port_of[b]] += v / units[b]
    return press


# ---------------------------------------------------------------- step 4

def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_table(path, cpu, version, entries, meta):
    ident = cpu["ident"]
    names = [p[0] for p in cpu["ports"]]
    L = []
    L.append("/* generated by gen_tables.py from llvm-mca-14 -mcpu=%s; do not edit */"
             % cpu["mcpu"])
    L.append("/*")
    L.append(" * %s, -mcpu=%s (scheduling model %s)" % (version, cpu["mcpu"], cpu["model"]))
    L.append(" * %d forms; of the %d forms found in the archives, %d are left out:"
             % (len(entries), meta["total"], meta["dropped"]))
    for line in meta["dropped_why"]:
        L.append(" *   %s" % line)
    L.append(" * lat: Latency, uops: NumMicroOpcodes, rthru: RThroughput (1/100 cycle),")
    L.append(" * press: resource pressure per iteration (1/100 cycle) on each port:")
    for name, rs in cpu["ports"]:
        L.append(" *   %-6s %s" % (name, " + ".join(rs)))
    L.append(" * (a resource with n units is folded into one port as the mean over its units)")
    idle = [n for k, n in enumerate(names) if not any(e[4][k] for e in entries)]
    if idle:
        L.append(" * no form puts pressure on %s in this LLVM model" % ", ".join(idle))
    L.append(" * LLVM resources left out: %s" % (", ".join(cpu["drop"]) or "none"))
    L.append(" * forms from: %s" % meta["archives"])
    L.append(" */")
    L.append("static const char *const %s_ports[] = {%s};"
             % (ident, ", ".join(c_string(n) for n in names)))
    L.append("static const size_t %s_nports = %d;" % (ident, len(names)))
    L.append("static const struct form_cost %s_forms[] = {" % ident)
    for form, lat, uops, rthru, press in entries:
        L.append("\t{%s, %d, %d, %d, {%s}}," % (c_string(form), lat, uops, rthru,
                                               ", ".join(str(v) for v in press)))
    L.append("};")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(L) + "\n")
    os.replace(tmp, path)


def summarise(why):
    """['n reason', ...] from {form: why}, grouped by the reason's gist."""
    groups = {}
    for w in why.values():
        g = re.sub(r": .*", "", w)
        groups[g] = groups.get(g, 0) + 1
    return ["%d %s" % (n, g) for g, n in sorted(groups.items(), key=lambda x: (-x[1], x[0]))]


def main():
    ap = argparse.ArgumentParser(
        description="Generate rewriter/model/tables/<cpu>.inc (per-instruction-form costs) "
                    "from llvm-mca-14's scheduling models, for the forms profinst --dump-forms "
                    "finds in Debian's static archives.")
    ap.add_argument("--profinst", default=os.path.join(REPO, "build", "rewriter", "profinst"),
                    help="the profinst binary (default: %(default)s)")
    ap.add_argument("--out", default=os.path.join(HERE, "tables"),
                    help="directory of the tables (default: %(default)s)")
    ap.add_argument("--cpu", action="append", choices=[c["mcpu"] for c in CPUS],
                    help="generate only this CPU's table (repeatable; default: all)")
    ap.add_argument("--archive", action="append",
                    help="collect forms from this archive instead of the default list (repeatable)")
    ap.add_argument("--llvm-mca", default="llvm-mca-14", help="default: %(default)s")
    ap.add_argument("--llvm-mc", default="llvm-mc-14", help="default: %(default)s")
    ap.add_argument("--batch", type=int, default=100,
                    help="regions per llvm-mca run (default: %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="parallel llvm-mca runs (default: %(default)s)")
    ap.add_argument("--keep-placeholders", action="store_true",
                    help="keep the forms LLVM gives only its 100-cycle placeholder cost")
    ap.add_argument("--list-dropped", action="store_true",
                    help="print every form left out, with the reason")
    ap.add_argument("--dump-raw", metavar="FILE",
                    help="also write llvm-mca's raw per-form data as JSON to FILE")
    args = ap.parse_args()

    t0 = time.time()
    if not os.access(args.profinst, os.X_OK):
        sys.exit("gen_tables: no profinst at %s (build it, or give --profinst)" % args.profinst)
    p = run([args.llvm_mca, "--version"])
    m = re.search(r"LLVM version (\S+)", p.stdout)
    if p.returncode != 0 or not m:
        sys.exit("gen_tables: cannot run %s" % args.llvm_mca)
    version = "llvm-mca " + m.group(1)
    if not m.group(1).startswith("14."):
        log("gen_tables: warning: %s is not LLVM 14; the port lists are for LLVM 14" % version)

    forms, used = collect_forms(args.profinst, args.archive or ARCHIVES, args.jobs)
    log("gen_tables: %d distinct forms" % len(forms))
    chosen, why_rep = representatives(args.llvm_mc, forms)
    log("gen_tables: %d forms have an instruction llvm-mc reassembles, %d left out"
        % (len(chosen), len(why_rep)))
    for f in sorted(why_rep, key=lambda f: f.encode()):
        if args.list_dropped:
            log("  %-30s %s" % (f, why_rep[f]))

    os.makedirs(args.out, exist_ok=True)
    raw_all = {}
    items = [(f, chosen[f][0]) for f in sorted(chosen, key=lambda f: f.encode())]
    archives = ", ".join(os.path.basename(a) for a in used)
    for cpu in CPUS:
        if args.cpu and cpu["mcpu"] not in args.cpu:
            continue
        assert len(cpu["ports"]) <= MAX_PORTS
        res, why, resources = run_mca(args.llvm_mca, cpu["mcpu"], items, args.batch, args.jobs)
        if resources is None:
            sys.exit("gen_tables: llvm-mca -mcpu=%s analysed nothing" % cpu["mcpu"])
        if not all(r.startswith(cpu["prefix"]) for r in resources):
            sys.exit("gen_tables: -mcpu=%s does not use %s (resources %s)"
                     % (cpu["mcpu"], cpu["model"], resources))
        entries, clamped = [], []
        for f in sorted(res, key=lambda f: f.encode()):
            r = res[f]
            if (not args.keep_placeholders and
                    (r["lat"], r["uops"], round(r["rthru"], 2)) == cpu["placeholder"]):
                why[f] = ("with only the model's placeholder cost "
                          "(WriteMicrocoded/WriteSystem, latency 100)")
                continue
            press = [hundredths(v) for v in fold(cpu, resources, r["press"])]
            lat, uops, rthru = r["lat"], r["uops"], hundredths(r["rthru"])
            if lat > 0xffff or uops > 0xff or rthru > 0xffff or max(press, default=0) > 0xffff:
                clamped.append(f)
                lat, uops, rthru = min(lat, 0xffff), min(uops, 0xff), min(rthru, 0xffff)
                press = [min(v, 0xffff) for v in press]
            entries.append((f, lat, uops, rthru, press))
        alldrop = dict(why_rep)
        alldrop.update(why)
        meta = {"total": len(forms), "dropped": len(alldrop), "dropped_why": summarise(alldrop),
                "archives": archives}
        path = os.path.join(args.out, cpu["ident"] + ".inc")
        write_table(path, cpu, version, entries, meta)
        log("gen_tables: %s: %d forms -> %s; %d more left out (%s)%s"
            % (cpu["mcpu"], len(entries), os.path.relpath(path), len(why),
               "; ".join(summarise(why)) or "none",
               "; clamped to the field widths: " + ", ".join(clamped) if clamped else ""))
        if args.list_dropped:
            for f in sorted(why, key=lambda f: f.encode()):
                log("  %-30s %s" % (f, why[f]))
        raw_all[cpu["mcpu"]] = {"resources": resources, "forms": res, "dropped": why}
    if args.dump_raw:
        with open(args.dump_raw, "w") as f:
            json.dump({"forms": {k: {"count": v["count"], "cands": v["cands"],
                                     "text": chosen.get(k)} for k, v in forms.items()},
                       "dropped": why_rep, "cpus": raw_all}, f, indent=1, sort_keys=True)
    log("gen_tables: done in %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
