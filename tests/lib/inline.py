"""Inline frames (issue 26, item 3): code the compiler inlined, as DWARF's
DW_TAG_inlined_subroutine says, shown as the inlined function's in
annotate, detail and the pprof export, for gcc and clang, DWARF 5 and 4,
one section or a section per function.  tests/annotate/inline.c at -O2:
step inlined into run, mix (1000 of its 3000 steps) and rot (2000) into
step.  The figures are checked against what the profile's block counts
and binutils' own reading of the DWARF (addr2line -i) give; a profile
whose maps predate inline frames still reads; malformed DWARF costs the
inline frames and one warning, nothing else."""
import bisect
import os
import re
import shutil
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(HERE, "annotate", "inline.c")

# larger code with many inlined calls: the rewriter's own
BIG_SOURCES = ["cfg.c", "layout.c", "dwarfinfo.c"]
BIG_VARIANTS = [("gcc", ["-g"], "addr2line"), ("gcc", ["-gdwarf-4", "-ffunction-sections"], "addr2line"),
                ("clang", ["-gdwarf-4"], "addr2line"),
                # binutils 2.40 misses ranges of clang's DWARF 5 (DW_FORM_rnglistx); LLVM's own reader does not
                ("clang", ["-g"], "llvm-addr2line-14")]

VARIANTS = [("gcc", ["-g"]), ("gcc", ["-gdwarf-4"]), ("clang", ["-g"]), ("clang", ["-gdwarf-4"]),
            ("gcc", ["-g", "-ffunction-sections"]), ("clang", ["-g", "-ffunction-sections"]),
            ("clang", ["-gdwarf-4", "-ffunction-sections"])]

PI_MAP_RELOCS, PI_MAP_INLINES = 0x10, 0x20
REC_OBJECT = 1


def marker_lines():
    """The source's line of each marker comment."""
    at = {}
    for n, text in enumerate(open(SRC), 1):
        m = re.search(r"/\* ([A-Z ]+) \*/", text)
        if m:
            at[m.group(1)] = n
    return at


def annotate_notes(text):
    """annotate's source lines: {line: [the inlined notes under it]}."""
    notes, last = {}, None
    for line in text.splitlines():
        m = re.match(r"^[|+# ]\s+(?:[\d.]+%)?\s+(\d+)  ", line)
        if m:
            last = int(m.group(1))
            continue
        m = re.match(r"^\*\s+inlined (.*): ran (\d+) times?, [\d.]+%$", line)
        if m and last is not None:
            notes.setdefault(last, []).append((m.group(1), int(m.group(2))))
    return notes


def detail_inlined(text):
    """detail's inlined table: {chain: figure}."""
    rows, on = {}, False
    for line in text.splitlines():
        if re.match(r"^\s+inlined\s+\S+\s+share$", line):
            on = True
            continue
        m = re.match(r"^\s+(.*\S)\s+(\d+)\s+[\d.]+%$", line)
        if on and m:
            rows[m.group(1)] = int(m.group(2))
        elif on and not line.strip():
            break
    return rows


def map_rows(obj):
    """The inline rows of the map profinst -c wrote into obj: {section:
    [(offset, innermost inlined function or None)]}."""
    blob = obj + ".map"
    subprocess.run(["objcopy", "--dump-section", "profinst_map=" + blob, obj], check=True)
    m = open(blob, "rb").read()
    h = struct.unpack_from("<26I", m, 0)
    if not h[17] & PI_MAP_INLINES:
        return None
    strs = m[h[10]:h[10] + h[11]]

    def string(o):
        return strs[o:strs.index(b"\0", o)].decode()
    frames = [struct.unpack_from("<4I", m, h[23] + 16 * i) for i in range(h[22])]
    rows = {}
    for i in range(h[24]):
        sec, off, frame = struct.unpack_from("<3I", m, h[25] + 12 * i)
        rows.setdefault(string(sec), []).append((off, string(frames[frame - 1][0]) if frame else None))
    return rows


def innermost_functions(tool, obj, section, addrs):
    """The innermost inlined function tool (addr2line, llvm-addr2line)
    finds at each address, or None where the code is not inlined."""
    cmd = [tool, "-a", "-i", "-f", "-e", obj] + (["-j", section] if tool == "addr2line" and section else [])
    out = subprocess.run(cmd + ["0x%x" % a for a in addrs], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    found, i = {}, 0
    while i < len(out):
        j = i + 1
        while j < len(out) and not out[j].startswith("0x"):
            j += 1
        names = out[i + 1:j:2]  # function, file:line, function, ...
        found[int(out[i], 16)] = names[0] if len(names) > 1 else None
        i = j
    return found


def linked_for_oracle(obj, out):
    """obj linked alone (its undefined symbols 0) into the executable
    out, and the address each of its sections got there.  In an object
    each of -ffunction-sections' sections starts at 0, so a range list
    whose first entry is empty at a function's start, [f+0, f+0), reads
    as the list's end (two zeros) to addr2line and llvm's readers there;
    linked, it is the empty range the compiler meant, and the entries
    after it count (gcc 12 emits such lists)."""
    subprocess.run(["gcc", "-nostdlib", "-static", "-Wl,--unresolved-symbols=ignore-all", "-Wl,-e,0",
                    "-o", out, obj], check=True, capture_output=True)
    addr = {}
    for line in subprocess.run(["nm", out], capture_output=True, text=True, check=True).stdout.splitlines():
        w = line.split()
        if len(w) == 3:
            addr.setdefault(w[2], int(w[0], 16))
    base = {}
    for line in subprocess.run(["objdump", "-t", obj], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        m = re.match(r"^([0-9a-f]{16}) .{7} (\S+)\s+[0-9a-f]+ (\S+)$", line)
        if m and m.group(3) in addr and m.group(2).startswith(".text"):
            base.setdefault(m.group(2), addr[m.group(3)] - int(m.group(1), 16))
    return base


def innermost_linked(tool, exe, base, addrs):
    """innermost_functions on the linked executable (linked_for_oracle),
    by the object's addresses of one section at base."""
    found = innermost_functions(tool, exe, None, [base + a for a in addrs])
    return {a - base: f for a, f in found.items()}


def pprof_flat(top):
    """go tool pprof -top's flat figure of each function."""
    flat = {}
    for line in top.splitlines():
        m = re.match(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.*)$", line)
        if m:
            flat[m.group(2)] = int(m.group(1))
    return flat


def strip_inlines(data):
    """The profile as a profinst without inline frames wrote it: each
    map's header without ninlines..inrows_off (88 bytes, not 104), the
    flag off, every offset after it 16 bytes less."""
    hdr_size = struct.unpack_from("<I", data, 12)[0]
    out, off = bytearray(data[:hdr_size]), hdr_size
    while off + 16 <= len(data):
        tag, res, size = struct.unpack_from("<IIQ", data, off)
        body = data[off + 16:off + 16 + size]
        off += 16 + size + (-size) % 8
        if tag == REC_OBJECT:
            m = body[8:]
            h = list(struct.unpack_from("<26I", m, 0))
            if h[17] & PI_MAP_INLINES:
                h[17] &= ~PI_MAP_INLINES
                h[2] -= 16  # size
                for i in (7, 8, 9, 10, 14, 15, 21):  # funcs, blocks, sites, str, lines, code, relocs
                    h[i] -= 16
                body = body[:8] + struct.pack("<22I", *h[:22]) + m[104:]
        out += struct.pack("<IIQ", tag, res, len(body)) + body + b"\0" * ((-len(body)) % 8)
    return bytes(out)


def tests(ctx, Fail, sh, must, profile_json):
    at = marker_lines()

    def build(tmp, cc, flags):
        obj = os.path.join(tmp, "inline.o")
        must([cc, "-O2"] + flags + ["-c", SRC, "-o", obj], "compile")
        exe = os.path.join(tmp, "inline")
        r = must([ctx.profinst, "--cpu=instructions", obj, "-o", exe], "profinst")
        if r.stderr.strip():
            raise Fail("profinst warned:\n" + r.stderr)
        native = os.path.join(tmp, "native")
        must([cc, obj, "-o", native], "link")
        want = must([native], "native").stdout
        prof = os.path.join(tmp, "p.pf")
        got = sh([exe], env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
        if got.returncode != 0 or got.stdout != want:
            raise Fail("instrumented output %r (status %d), native %r" % (got.stdout, got.returncode, want))
        return obj, prof

    def pv(*args):
        return must([ctx.profview] + list(args), "profview " + args[0]).stdout

    def innermost(obj, section, addrs):
        """binutils' inline frames: the innermost function at each address."""
        out = must(["addr2line", "-a", "-i", "-f", "-j", section, "-e", obj] + ["0x%x" % a for a in addrs],
                   "addr2line").stdout.splitlines()
        fn, i = {}, 0
        while i < len(out):
            if out[i].startswith("0x"):
                fn[int(out[i], 16)] = out[i + 1]
                i += 2
            else:
                i += 1
        return fn

    def executions_by_function(obj, prof):
        """run's instructions' executions added up by the innermost function
        binutils finds at each (--cpu=instructions: an instruction's cost
        is its executions)."""
        det = pv("detail", prof, "run")
        m = re.search(r"^\s+object\s+\S+, (\S+)\+0x([0-9a-f]+)$", det, re.M)
        section, base = m.group(1), int(m.group(2), 16)
        runs, count = {}, 0
        for line in pv("annotate", prof, "run", "--disasm").splitlines():
            mb = re.match(r"^[|#] block \S+: (\d+) executions", line)
            if mb:
                count = int(mb.group(1))
            mi = re.match(r"^\s+run\s+\+(\d+)\s", line)
            if mi:
                runs[base + int(mi.group(1))] = count
        by = {}
        for a, f in innermost(obj, section, sorted(runs)).items():
            by[f] = by.get(f, 0) + runs[a]
        return by

    def views(cc, flags):
        def case():
            tmp = tempfile.mkdtemp(prefix="pi-inline-")
            try:
                obj, prof = build(tmp, cc, flags)
                src = "inline.c"
                in_step = "step (%s:%d)" % (src, at["CALL STEP"])
                mix = "mix (%s:%d) in %s" % (src, at["CALL MIX"], in_step)
                rot = "rot (%s:%d) in %s" % (src, at["CALL ROT"], in_step)
                # annotate: the helpers' lines in their inlined calls, with
                # how often they ran there (1000 steps of 3000 take mix)
                notes = annotate_notes(pv("annotate", prof, "run"))
                want = {at["MIX SINK"]: [(mix, 1000)], at["ROT SINK"]: [(rot, 2000)],
                        at["STEP TEST"]: [(in_step, 3000)]}
                for line, w in want.items():
                    if notes.get(line) != w:
                        raise Fail("annotate run, line %d: %r, want %r (all: %r)" % (line, notes.get(line), w, notes))
                # detail: the calls inlined into run, each its code's
                # instructions run, as binutils' reading of the DWARF and the
                # block counts give them
                rows = detail_inlined(pv("detail", prof, "run"))
                by = executions_by_function(obj, prof)
                if set(rows) != {in_step, mix, rot}:
                    raise Fail("detail run lists %r" % rows)
                if rows[mix] != by.get("mix") or rows[rot] != by.get("rot"):
                    raise Fail("detail run: mix %d, rot %d; their instructions ran %r" % (rows[mix], rows[rot], by))
                if rows[mix] % 1000 or rows[rot] % 2000 or rows[in_step] < rows[mix] + rows[rot]:
                    raise Fail("detail run: %r" % rows)
                # pprof: inline frames, innermost first, and the inlined
                # functions' flat what detail says
                pj = profile_json(ctx, prof)
                pb = os.path.join(tmp, "p.pb.gz")
                must([ctx.profview, "export", prof, "--format=pprof", "-o", pb], "export")
                env = dict(os.environ, HOME=tmp, GOCACHE=tmp)
                traces = must(["go", "tool", "pprof", "-traces", pb], "go tool pprof -traces", env=env).stdout
                for leaf, helper in (("sink_a", "mix"), ("sink_b", "rot")):
                    stack = r"^\s+\d+\s+%s\n\s+%s \(inline\)\n\s+step \(inline\)\n\s+run\n\s+main\n" % (leaf, helper)
                    if not re.search(stack, traces, re.M):
                        raise Fail("pprof -traces: no %s < %s (inline) < step (inline) < run:\n%s" %
                                   (leaf, helper, traces[:3000]))
                top = must(["go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", pb],
                           "go tool pprof -top", env=env).stdout
                flat = pprof_flat(top)
                self_run = next(f["self_cycles"] for f in pj["functions"] if f["name"] == "run")
                want = {"mix (inline)": rows[mix], "rot (inline)": rows[rot],
                        "step (inline)": rows[in_step] - rows[mix] - rows[rot], "run": self_run - rows[in_step]}
                got = {k: flat.get(k) for k in want}
                if got != want or sum(flat.values()) != pj["total_cycles"]:
                    raise Fail("pprof -top: %r, want %r, total %d:\n%s" % (got, want, pj["total_cycles"], top))
                # and -noinlines folds them back into the functions' own
                top = must(["go", "tool", "pprof", "-top", "-noinlines", "-nodecount=100000", "-nodefraction=0", pb],
                           "go tool pprof -top -noinlines", env=env).stdout
                flat = pprof_flat(top)
                want = {f["name"]: f["self_cycles"] for f in pj["functions"] if f["self_cycles"]}
                if flat != want:
                    raise Fail("pprof -top -noinlines: %r, the profile's self %r" % (flat, want))
                lst = must(["go", "tool", "pprof", "-list", "^mix$", pb], "go tool pprof -list", env=env).stdout
                # (clang's DWARF 4 names the file relative to its unit's
                # directory, which pprof finds from here)
                if not re.search(r"^ROUTINE =+ mix in (\S*/)?annotate/inline\.c$", lst, re.M) or \
                        not re.search(r"^\s+\d+\s+\d+\s+%d:.*MIX SINK" % at["MIX SINK"], lst, re.M):
                    raise Fail("pprof -list mix:\n" + lst[:2000])
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return case

    def old_maps():
        """A profile whose maps end before the inline tables reads as it
        did: the same report, no inline frames."""
        tmp = tempfile.mkdtemp(prefix="pi-inline-")
        try:
            _, ran = build(tmp, "gcc", ["-g"])
            # the maps in the profile, where an older runtime wrote them
            prof = os.path.join(tmp, "packed.pf")
            must([ctx.profview, "pack", ran, "-o", prof], "profview pack")
            old = os.path.join(tmp, "old.pf")
            with open(old, "wb") as f:
                f.write(strip_inlines(open(prof, "rb").read()))
            if pv("report", old) != pv("report", prof):
                raise Fail("the report of the old layout differs")
            ann_old, ann = pv("annotate", old, "run"), pv("annotate", prof, "run")
            if "inlined" in ann_old or "inlined" not in ann:
                raise Fail("annotate, old layout:\n%s\nnew:\n%s" % (ann_old, ann))
            if [l for l in ann_old.splitlines()] != [l for l in ann.splitlines() if "inlined" not in l]:
                raise Fail("annotate's lines differ in the old layout:\n" + ann_old)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def malformed():
        """An object whose .debug_abbrev names an unknown form: one
        warning, no inline frames, the rest profiled as before."""
        tmp = tempfile.mkdtemp(prefix="pi-inline-")
        try:
            obj = os.path.join(tmp, "inline.o")
            must(["gcc", "-O2", "-g", "-c", SRC, "-o", obj], "compile")
            bad = os.path.join(tmp, "abbrev.bin")
            with open(bad, "wb") as f:  # abbrev 1: a compile unit whose first attribute has form 0x7f
                f.write(bytes([1, 0x11, 1, 0x03, 0x7f, 0, 0, 0]))
            must(["objcopy", "--update-section", ".debug_abbrev=" + bad, obj], "objcopy")
            exe = os.path.join(tmp, "inline")
            r = must([ctx.profinst, "--cpu=instructions", obj, "-o", exe], "profinst")
            warn = [l for l in r.stderr.splitlines() if l.strip()]
            if len(warn) != 1 or ".debug_info: malformed" not in warn[0]:
                raise Fail("profinst's warnings: %r" % warn)
            prof = os.path.join(tmp, "p.pf")
            must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=prof), cwd=tmp)
            ann = pv("annotate", prof, "run")
            if "inlined" in ann or not re.search(r"^\|\s+[\d.]+%%\s+%d  " % at["MIX SINK"], ann, re.M):
                raise Fail("annotate without inline frames:\n" + ann)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def map_agrees(cc, flags, tool):
        """Every instruction of larger objects: the innermost inlined call
        the map says it is in is the one binutils' or LLVM's reading of the
        DWARF finds."""
        def case():
            tmp = tempfile.mkdtemp(prefix="pi-inline-")
            try:
                root = os.path.dirname(HERE)
                inc = ["-I" + os.path.join(root, d) for d in ("rewriter", "libprof", "runtime", "x86")]
                frames = 0
                for src in BIG_SOURCES:
                    obj = os.path.join(tmp, src + ".o")
                    must([cc, "-O2"] + flags + inc + ["-c", os.path.join(root, "rewriter", src), "-o", obj], "compile")
                    out = os.path.join(tmp, src + ".pi.o")
                    r = must([ctx.profinst, "-c", obj, "-o", out], "profinst -c")
                    if r.stderr.strip():
                        raise Fail("profinst warned:\n" + r.stderr)
                    rows = map_rows(out)
                    if rows is None:
                        raise Fail("%s: no inline tables in the map" % src)
                    dis = must(["objdump", "-d", "--no-show-raw-insn", obj], "objdump").stdout
                    insns, sec = {}, None
                    for line in dis.splitlines():
                        m = re.match(r"^Disassembly of section (\S+):", line)
                        if m:
                            sec = m.group(1)
                        m = re.match(r"^\s+([0-9a-f]+):\s", line)
                        if m and sec:
                            insns.setdefault(sec, []).append(int(m.group(1), 16))
                    wrong = []
                    exe = os.path.join(tmp, src + ".exe")
                    bases = linked_for_oracle(obj, exe)
                    for sec, addrs in insns.items():
                        if sec not in bases:
                            raise Fail("%s: no symbol of %s found linked" % (src, sec))
                        theirs = innermost_linked(tool, exe, bases[sec], addrs)
                        r = rows.get(sec, [])
                        offs = [o for o, _ in r]
                        for a in addrs:
                            k = bisect.bisect_right(offs, a) - 1
                            mine = r[k][1] if k >= 0 else None
                            frames += mine is not None
                            if mine != theirs[a]:
                                wrong.append("%s+0x%x: %s, %s says %s" % (sec, a, mine, tool, theirs[a]))
                    if wrong:
                        raise Fail("%s: %d instructions of %d:\n%s" % (src, len(wrong), sum(map(len, insns.values())),
                                                                      "\n".join(wrong[:20])))
                if frames < 1000:
                    raise Fail("only %d instructions in inlined calls" % frames)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return case

    out = [("inline/views[%s %s]" % (cc, " ".join(flags)), views(cc, flags)) for cc, flags in VARIANTS]
    out += [("inline/map_agrees[%s %s]" % (cc, " ".join(flags)), map_agrees(cc, flags, tool))
            for cc, flags, tool in BIG_VARIANTS]
    out += [("inline/old_maps", old_maps), ("inline/malformed", malformed)]
    return out
