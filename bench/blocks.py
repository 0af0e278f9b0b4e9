#!/usr/bin/env python3
"""Block-level validation of profinst's timing model against this machine.

  bench/blocks.py measure [--profinst P] [--per-archive N] [--seed S] ...
  bench/blocks.py compare [--profinst P] [--cpu NAME] [--mcpu NAME] [--worst N]

measure
  Samples basic blocks (profinst --dump-blocks, at least 2 instructions,
  distinct bytes, a fixed seed, the same number from each archive) from
  Debian's static archives of zlib, SQLite, Lua 5.4 and OpenSSL's libcrypto,
  measures each block's steady-state cost in core cycles on this machine and
  writes bench/data's sample for the machine's model (--cpu=host):
  blocks-measured.tsv on Golden Cove, blocks-measured-zen5.tsv on Zen 5,
  blocks-measured-MODEL.tsv on others (--seed 777 --out ...: the held-out
  samples blocks-heldout.tsv and blocks-heldout-zen5.tsv).
compare
  Joins the measurements with what profinst --dump-blocks --cpu=NAME prints
  now (on object, function+offset and bytes) and with llvm-mca-14's estimate
  (cached in bench/data/blocks-mca-MCPU.tsv), and prints the mean absolute
  percentage error, Kendall's tau-b and the count of each, overall and per
  archive, then the blocks profinst is most wrong about, disassembled.

Method (like BHive: the cost of a block is its throughput when it runs over
and over, with its data in L1 and its branches predicted)
  * Decoding: objdump gives instruction boundaries and mnemonics of the
    block's bytes; llvm-mc-14 gives the text handed to llvm-mca.
  * The terminator: a conditional jump (jcc, loop, jrcxz) keeps its opcode
    (so macro-fusion with a cmp/test before it happens as in the program) and
    gets displacement 0, so it goes on at the next instruction either way.
    But a jcc *taken* to the next instruction costs 2 (rel32) to 6 (rel8)
    cycles here, against 0.5 not taken; so a jcc is measured as it is and
    with its condition inverted (the low bit of its opcode: the same fusion
    rules), briefly, and the faster is kept (terminator `jcc-inverted` when
    it is the inverse).  loop/jrcxz are kept as they are.  An unconditional
    jmp, call or ret, direct or indirect, is dropped (it cannot run in
    isolation), so the measurement of such a block is that of the rest of
    it, while profinst costs the whole block (compare prints the share of
    such blocks, and its figures without them).
  * RIP-relative operands (their displacements are relocations, 0 in an
    object file, which would point into the code itself) are redirected, copy
    by copy, to a slot of their own in a data area near the code.
  * bench/blockrun.c (compiled with gcc into a temporary directory) unrolls
    the body U and 4U times (U from 100 down, so that 4U copies hold at most
    1600 instructions and 24 KiB: they fit the decoded-uop cache and L1i),
    each in a loop of K iterations that begins by resetting rsp to a private
    stack and every other general register to a pointer (with `and $0; or
    $v`, which keeps dependency chains through registers serial across
    iterations, as in an endless unrolling); the block's cost is
    (t(4U) - t(U)) / (3*U*K) TSC ticks, which cancels the loop, the resets
    and the call.
  * Noise: the machine is shared, and throughput-bound code runs up to 2x
    slower in most runs while a chain of dependent adds does not (another
    hardware thread on the physical core, presumably; the VM's other vCPU is
    not it).  So a pass takes the minimum of each kind of run over 3000
    short rounds (a run of the 4U copies lasts about 3 us), which catches
    moments when the core is ours alone.  Every round also runs a
    contention probe (nop; nop: 0.35 cycles when the core is ours), and each
    block's two functions are placed at fresh random addresses, so that no
    predictor state an earlier block left at the same addresses decides its
    cost.
  * Ticks to cycles: each round also runs a chain of dependent
    `add %rdx,%rax` (1 cycle each; register operands, as an add of an
    immediate is folded at rename on this core) measured the same way, so
    that every block has its own calibration, taken while it is measured
    (the core's clock moves between about 2.2 and 2.5 GHz in 100 MHz steps).
  * Stability: within a sweep, passes are repeated (up to 4) until two agree
    within 4% (or 0.04 cycles).  Every block is measured in two sweeps (the
    second in reverse order, each batch of blocks in a new process), and
    blocks not settled then in up to 3 more; a sweep counts if its passes
    agreed and its probe was within 4% of the quietest probes (5th
    percentile).  The result (status ok) is the mean of the lowest two
    counted sweeps that agree within 5% (or 0.04 cycles); `unstable`: two or
    more counted sweeps, none agreeing (the lowest is kept); `contended`:
    fewer than two counted sweeps (the lowest is kept).  compare uses only
    the blocks that are ok.  The sweeps column keeps cycles@probe of each.
  * Memory: every qword the block can reach holds 0x0000001234567840 and
    every register a pointer of its own (0x34567840 + r * 0x11080: different
    cache lines and 4 KiB offsets, as a program's different objects are, so
    that accesses through different registers neither share a line nor
    alias; rdx 0x01234540 so that a division does not overflow), vector
    registers are 0, mask registers all-ones, MXCSR
    has FTZ and DAZ (no denormal assists from the pattern read as floats).  A
    page the block touches that is not mapped is mapped on the fault (private,
    filled with the pattern; at most 1024 pages) and the instruction retried;
    before each run, its pages, the stack around its top and the RIP slots
    are refilled, so that every run starts from the same memory.  Stores
    cannot reach the code (mapped read+execute).
  * Faults (SIGSEGV on an address that cannot be mapped, e.g. non-canonical;
    SIGFPE; SIGILL; SIGBUS) and runs longer than 10 s give the block that
    status; the harness runs in a child process, restarted after the block
    if it dies, pinned to one core.

Skipped, with their status in the table:
  trap/syscall/privileged (int*, ud*, hlt, syscall, in/out, cli/sti, ...),
  timing/serializing/random (rdtsc*, rdpmc, rdpid, cpuid, rdrand, rdseed,
  xgetbv, lfence, mfence, sfence, serialize, pause, mwait family: their cost
  is the machine's state, or they stop the pipeline), transactional (xbegin,
  xend, xabort, xtest), state save/restore (xsave*, xrstor*, fxsave, fxrstor,
  need prepared memory), CET and fs/gs base (rdssp, incssp, wr/rdfsbase, ...),
  AMX, `rep` string instructions whose count is not set by an immediate in
  the block (it would be the pointer-sized register value), stores to
  %fs:/%gs: (they would overwrite the harness's own thread block), writes
  to rsp other than push/pop, add/sub/and of an immediate and lea from rsp
  (leave, enter, mov to rsp: the stack would walk away), blocks whose
  decoding disagrees with profinst's instruction count.
"""
import argparse
import collections
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data")
# The samples in bench/data by the model of the machine they were measured
# on (the first and the held-out one), and the llvm-mca CPU nearest it; a
# machine of another kind writes blocks-measured-MODEL.tsv.
SAMPLES = {
    "goldencove": ("blocks-measured.tsv", "blocks-heldout.tsv", "sapphirerapids"),
    "zen5": ("blocks-measured-zen5.tsv", "blocks-heldout-zen5.tsv", "znver3"),
}
MCPU = {"skylake": "skylake", "icelake": "icelake-server", "zen3": "znver3"}


def host_model(profinst):
    """The model profinst --cpu=host picks on this machine."""
    out = subprocess.run([profinst, "--list-cpus"], capture_output=True, text=True).stdout
    return out.rsplit("here: ", 1)[-1].split(")")[0] if "here: " in out else "goldencove"


def sample_path(model):
    name = SAMPLES[model][0] if model in SAMPLES else "blocks-measured-%s.tsv" % model
    return os.path.join(DATA, name)
LIBDIR = "/usr/lib/x86_64-linux-gnu"
ARCHIVES = [("zlib", "libz.a"), ("sqlite3", "libsqlite3.a"), ("lua5.4", "liblua5.4.a"),
            ("crypto", "libcrypto.a")]
DEBS = "zlib1g-dev libsqlite3-dev liblua5.4-dev libssl-dev"
LLVM_MC = "llvm-mc-14"
LLVM_MCA = "llvm-mca-14"
COLUMNS = ["archive", "object", "func_off", "ninsns", "hexbytes", "status", "cycles", "sweeps",
           "unroll", "k", "cyc_per_tick", "terminator", "note"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- blocks

def dump_blocks(profinst, cpu, archive):
    """[(object, func_off, ninsns, cycles, hexbytes, cycles without a final
    jmp/call/ret or None)] of one archive (that last column is printed by
    newer profinst builds)."""
    path = os.path.join(LIBDIR, archive)
    if not os.path.exists(path):
        sys.exit("blocks.py: %s is missing (apt-get install %s)" % (path, DEBS))
    r = subprocess.run([profinst, "-q", "--dump-blocks", "--cpu=" + cpu, path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("blocks.py: %s --dump-blocks --cpu=%s %s failed:\n%s" % (profinst, cpu, path, r.stderr))
    out = []
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if len(f) >= 5:
            out.append((f[0], f[1], int(f[2]), float(f[3]), f[4], float(f[5]) if len(f) > 5 else None))
    return out


def sample(profinst, per_archive, seed, min_insns):
    rng = random.Random(seed)
    chosen = []
    for name, archive in ARCHIVES:
        seen = set()
        pool = []
        for obj, fo, n, _, hx, _ in dump_blocks(profinst, "instructions", archive):
            if n >= min_insns and hx not in seen:
                seen.add(hx)
                pool.append((name, obj, fo, n, hx))
        pick = rng.sample(pool, min(per_archive, len(pool)))
        log("%-8s %6d distinct blocks of >= %d instructions, %d sampled" % (name, len(pool), min_insns,
                                                                           len(pick)))
        chosen += pick
    rng.shuffle(chosen)  # archives interleaved: drift of the machine spreads over all
    return chosen


# ---------------------------------------------------------------- decoding

OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")


def objdump_decode(hexes):
    """For each hex string: [(offset, bytes, text, full text)], or None if
    objdump's boundaries do not fall on the block's ends."""
    if not hexes:
        return []
    with tempfile.TemporaryDirectory(prefix="pi-blocks-") as tmp:
        path = os.path.join(tmp, "b.bin")
        starts = []
        with open(path, "wb") as f:
            pos = 0
            for h in hexes:
                starts.append(pos)
                b = bytes.fromhex(h)
                f.write(b)
                pos += len(b)
        r = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "-w", "-z", path],
                           capture_output=True, text=True, check=True)
    insns = {}
    for line in r.stdout.splitlines():
        m = OBJDUMP_LINE.match(line)
        if m:
            insns[int(m.group(1), 16)] = (bytes.fromhex(m.group(2).replace(" ", "")),
                                          m.group(3).split("#")[0].strip(), m.group(3))
    out = []
    for s, h in zip(starts, hexes):
        end = s + len(h) // 2
        blk, p = [], s
        while p < end and p in insns:
            b, text, full = insns[p]
            blk.append((p - s, b, text, full))
            p += len(b)
        out.append(blk if p == end else None)
    return out


def llvm_mc_text(insn_bytes):
    """llvm-mc-14's text of each instruction (a list of bytes objects), a
    prefix printed on a line of its own joined to its instruction."""
    sep = "0x0f 0x0b"  # ud2 between instructions
    src = "".join(" ".join("0x%02x" % c for c in b) + "\n" + sep + "\n" for b in insn_bytes)
    r = subprocess.run([LLVM_MC, "--disassemble", "-triple=x86_64"], input=src, capture_output=True,
                       text=True)
    groups, cur = [], []
    for line in r.stdout.splitlines():
        t = line.strip()
        if not t or t.startswith(".") or t.startswith("#"):
            continue
        if t == "ud2":
            groups.append(cur)
            cur = []
        else:
            cur.append(re.sub(r"\s+", " ", t))
    out = []
    for g in groups:
        text, pre = [], ""
        for t in g:
            if t in ("lock", "rep", "repne", "repe", "data16", "xacquire", "xrelease", "notrack"):
                pre += t + " "
            else:
                text.append(pre + t)
                pre = ""
        out.append("; ".join(text) if text else None)
    if len(out) != len(insn_bytes):
        return [None] * len(insn_bytes)
    return out


PREFIXES = {"lock", "rep", "repz", "repnz", "repe", "repne", "notrack", "bnd", "data16", "data32",
            "addr32", "addr16", "cs", "ds", "es", "ss", "fs", "gs", "xacquire", "xrelease", "{vex}",
            "{vex3}", "{evex}", "{disp32}"}
JCC = {"jo", "jno", "jb", "jae", "je", "jne", "jbe", "ja", "js", "jns", "jp", "jnp", "jl", "jge", "jle",
       "jg", "jc", "jnc", "jnae", "jnb", "jz", "jnz", "jna", "jnbe", "jpe", "jpo", "jnge", "jnl", "jng",
       "jnle", "jrcxz", "jecxz", "loop", "loope", "loopne", "loopz", "loopnz"}
JMP = {"jmp", "jmpq", "ljmp", "ljmpq"}
CALL = {"call", "callq", "lcall", "lcallq"}
RET = {"ret", "retq", "retw", "lret", "lretq", "lretw"}
SKIP = {}
for _reason, _names in [
        ("trap", "int int1 int3 into icebp ud0 ud1 ud2 hlt syscall sysenter sysexit sysret sysretq iret iretq "
                 "iretw iretd in inb inw inl out outb outw outl ins insb insw insl insd outs outsb outsw outsl "
                 "outsd cli sti clts lgdt lidt lldt ltr lmsw invd wbinvd wbnoinvd invlpg invpcid swapgs rdmsr "
                 "wrmsr sgdt sidt sldt str smsw lar lsl verr verw vmcall vmmcall vmlaunch vmresume vmxoff vmxon "
                 "vmread vmwrite vmptrld vmptrst vmclear vmfunc encls enclu enclv"),
        ("timing", "rdtsc rdtscp rdpmc rdpid cpuid rdrand rdseed xgetbv xsetbv lfence mfence sfence serialize "
                   "pause monitor mwait umonitor umwait tpause enqcmd enqcmds hreset"),
        ("tsx", "xbegin xend xabort xtest"),
        ("state", "xsave xsave64 xsavec xsavec64 xsaveopt xsaveopt64 xsaves xsaves64 xrstor xrstor64 xrstors "
                  "xrstors64 fxsave fxsave64 fxrstor fxrstor64 fsave fnsave frstor fldenv fstenv fnstenv"),
        ("cet-fsbase", "rdsspd rdsspq incsspd incsspq saveprevssp rstorssp wrssd wrssq wrussd wrussq setssbsy "
                       "clrssbsy rdfsbase rdgsbase wrfsbase wrgsbase rdpkru wrpkru"),
        ("amx", "ldtilecfg sttilecfg tilerelease tilezero tileloadd tileloaddt1 tilestored tdpbssd tdpbsud "
                "tdpbusd tdpbuud tdpbf16ps"),
        ("frame", "leave leaveq enter enterq")]:
    for _n in _names.split():
        SKIP[_n] = _reason
STRING_OPS = re.compile(r"^(movs|stos|lods|scas|cmps)[bwlqd]?$")
RSP_NAMES = {"%rsp", "%esp", "%sp", "%spl"}


def split_insn(text):
    """(prefixes, mnemonic, [operands]) of objdump's text."""
    toks = text.split()
    pre = []
    while toks and (toks[0] in PREFIXES or toks[0].startswith("rex")):
        pre.append(toks.pop(0))
    if not toks:
        return pre, "", []
    mn = toks[0].split(",")[0]  # jne,pn: a branch hint
    rest = " ".join(toks[1:])
    ops, depth, cur = [], 0, ""
    for c in rest:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        ops.append(cur.strip())
    return pre, mn, ops


def opcode_pos(b):
    """(index of the opcode byte after legacy prefixes and REX, map): map 0
    (one byte), 1 (0f), 2 (0f38 or 0f3a), 'vex' or 'evex'."""
    i = 0
    while i < len(b) and b[i] in (0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65):
        i += 1
    if i < len(b) and 0x40 <= b[i] <= 0x4f:
        i += 1
    if b[i] == 0xc5:
        return i + 2, "vex"
    if b[i] == 0xc4:
        return i + 3, "vex"
    if b[i] == 0x62:
        return i + 4, "evex"
    if b[i] == 0x0f:
        if b[i + 1] in (0x38, 0x3a):
            return i + 2, 2
        return i + 1, 1
    return i, 0


def rip_disp_offset(b):
    """Offset of the disp32 of an instruction whose ModRM is RIP-relative."""
    op, _ = opcode_pos(b)
    m = op + 1
    if m < len(b) and (b[m] & 0xC7) == 0x05 and m + 5 <= len(b):
        return m + 1
    return None


def writes_last(mn, ops):
    """Whether the instruction writes its last (AT&T destination) operand."""
    if mn.startswith("cmp") and not re.match(r"^cmpxchg|^cmp[a-z]*p[sd]$|^cmp[a-z]*s[sd]$", mn):
        return False
    if re.match(r"^(test|push|prefetch|v?u?comis|v?ptest|nop|bt[wlq]?$|vtestp)", mn):
        return False
    if len(ops) == 1 and re.match(r"^(mul|div|idiv|imul)", mn):
        return False
    return True


def analyse(insns, ninsns):
    """Turn a decoded block into what runs: (status, body bytes, rips,
    terminator action, indices of the instructions kept, offset in the body
    of the opcode byte of a final jcc whose low bit inverts it, or -1)."""
    if insns is None:
        return "decode", None, None, "", None, -1
    if len(insns) != ninsns:
        return "decode-count", None, None, "", None, -1
    keep = list(range(len(insns)))
    body = []
    rips = []
    term = "none"
    pos = 0
    mov_ecx_imm = False
    jccoff = -1
    for i, (off, b, text, full) in enumerate(insns):
        pre, mn, ops = split_insn(text)
        last = i == len(insns) - 1
        if mn in ("(bad)", "") or text.startswith("(bad)"):
            return "decode", None, None, "", None, -1
        if mn in SKIP:
            return "skip-" + SKIP[mn], None, None, "", None, -1
        if mn in JMP or mn in CALL or mn in RET or mn.startswith("iret") or mn.startswith("sysret"):
            if not last:
                return "branch-inside", None, None, "", None, -1
            term = "dropped-" + ("jmp" if mn in JMP else "call" if mn in CALL else "ret")
            keep.pop()
            break
        if mn in JCC:
            if not last:
                return "branch-inside", None, None, "", None, -1
            p, mp = opcode_pos(b)
            bb = bytearray(b)
            if mp == 0 and (0x70 <= b[p] <= 0x7f or 0xe0 <= b[p] <= 0xe3) and p + 2 == len(b):
                bb[p + 1] = 0
                if b[p] <= 0x7f:
                    jccoff = pos + p
            elif mp == 1 and 0x80 <= b[p] <= 0x8f and p + 5 == len(b):
                bb[p + 1:p + 5] = b"\0\0\0\0"
                jccoff = pos + p
            else:
                return "decode-jcc", None, None, "", None, -1
            b = bytes(bb)
            term = "jcc-fallthrough"
        if STRING_OPS.match(mn) and any(x.startswith("rep") for x in pre):
            if not mov_ecx_imm:
                return "skip-rep-count", None, None, "", None, -1
        if mn.startswith("mov") and len(ops) == 2 and ops[0].startswith("$") and ops[1] in ("%ecx", "%rcx"):
            try:
                mov_ecx_imm = int(ops[0][1:], 16) <= 65536
            except ValueError:
                mov_ecx_imm = False
        elif ops and ops[-1] in ("%ecx", "%rcx", "%cx", "%cl"):
            mov_ecx_imm = False
        if ops and re.search(r"%[fg]s:", ops[-1]) and writes_last(mn, ops):
            return "skip-tls-store", None, None, "", None, -1
        if any(o in RSP_NAMES for o in ops):
            writes = ops[-1] in RSP_NAMES and writes_last(mn, ops)
            if re.match(r"^(xchg|xadd|cmpxchg)", mn):
                writes = True
            if writes:
                ok = (re.match(r"^(add|sub|and)[qlw]?$", mn) and ops[0].startswith("$")) or (
                    mn.startswith("lea") and re.search(r"\(%rsp\)$", ops[0]))
                if not ok:
                    return "skip-rsp-write", None, None, "", None, -1
        if "(%rip)" in text:
            d = rip_disp_offset(b)
            m = re.search(r"#\s*0x([0-9a-f]+)", full)
            if d is None or m is None:
                return "decode-rip", None, None, "", None, -1
            rips.append((pos + d, pos + len(b)))
        body.append(b)
        pos += len(b)
    return "ready", b"".join(body), rips, term, keep, jccoff


def prepare(rows):
    """rows: dicts with hexbytes, ninsns. Adds status/body/rips/term/keep/insns."""
    dec = objdump_decode([r["hexbytes"] for r in rows])
    base = 0
    for r, insns in zip(rows, dec):
        st, body, rips, term, keep, jccoff = analyse(insns, r["ninsns"])
        if st == "ready":  # objdump's target comment vs our displacement offset
            for off, b, text, full in insns:
                if "(%rip)" in text:
                    d = rip_disp_offset(b)
                    m = re.search(r"#\s*0x([0-9a-f]+)", full)
                    if d is None or m is None or (base + off + len(b) + int.from_bytes(
                            b[d:d + 4], "little", signed=True)) % (1 << 64) != int(m.group(1), 16):
                        st = "decode-rip"
        r.update(status=st, body=body, rips=rips, term=term, keep=keep, insns=insns, jccoff=jccoff)
        base += len(r["hexbytes"]) // 2
    return rows


def unroll_for(nbody, blen):
    """U: the second function's 4U copies hold at most 1600 instructions
    and 24 KiB (they fit the decoded-uop cache and L1i)."""
    return max(1, min(100, 1600 // (4 * nbody), 24576 // (4 * max(blen, 1))))


# ---------------------------------------------------------------- measure

def build_harness(tmp):
    exe = os.path.join(tmp, "blockrun")
    subprocess.run(["gcc", "-O2", "-fno-stack-protector", "-o", exe, os.path.join(HERE, "blockrun.c")],
                   check=True)
    return exe


def run_batches(exe, jobs, core, args, what):
    """jobs: [(id, line)]; returns {id: fields of blockrun's answer}."""
    results = {}
    todo = list(jobs)
    done_n = 0
    t0 = time.time()
    while todo:
        batch, todo = todo[:args.batch], todo[args.batch:]
        while batch:
            inp = "".join(line + "\n" for _, line in batch)
            p = subprocess.Popen([exe, "--rounds=%d" % args.rounds, "--target=%d" % args.target],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 preexec_fn=(lambda: os.sched_setaffinity(0, {core})) if core is not None
                                 else None)
            try:
                out, _ = p.communicate(inp, timeout=60 + 15 * len(batch))
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
            got = set()
            for line in out.splitlines():
                f = line.split()
                if len(f) == 10:
                    results[f[0]] = f
                    got.add(f[0])
            rest = [j for j in batch if j[0] not in got]
            if rest:
                # the first block not answered killed the harness (or, if it
                # exited, there is nothing more to learn)
                bad = rest if p.returncode == 0 else rest[:1]
                for j in bad:
                    results[j[0]] = [j[0], "crash" if p.returncode else "noresult", "nan", "-", "0", "0", "0",
                                     "0", "0", "exit=%d" % p.returncode]
                rest = rest[len(bad):]
            done_n += len(batch) - len(rest)
            batch = rest
        log("  %s: %d/%d blocks, %.0f s" % (what, done_n, len(jobs), time.time() - t0))
    return results


def decide(rows, qlimit):
    """A block's cycles from its sweeps: the mean of the lowest two sweeps
    that ran quiet (contention probe <= qlimit) and agree within 5%.  (Some
    blocks are bimodal from one sweep to the next, by up to 40%, without the
    probe or the calibration moving: the lower mode, seen twice, is taken as
    the block's cost, the higher one as a disturbance.)"""
    for r in rows:
        sw = r.get("sweeps")
        if not sw:
            continue
        faults = [s for s in sw if s["status"] not in ("ok", "unstable")]
        if faults:
            r.update(status=faults[0]["status"], cycles="nan", note=faults[0]["note"])
            continue
        quiet = sorted((s for s in sw if s["status"] == "ok" and s["probe"] <= qlimit), key=lambda s: s["cycles"])
        best = None
        for i in range(len(quiet) - 1):  # the lowest pair that agrees
            x, y = quiet[i]["cycles"], quiet[i + 1]["cycles"]
            if abs(x - y) <= 0.05 * min(x, y) or abs(x - y) <= 0.04:
                best = (x, y)
                break
        if best:
            r.update(status="ok", cycles="%.4f" % ((best[0] + best[1]) / 2))
        elif len(quiet) >= 2:
            r.update(status="unstable", cycles="%.4f" % quiet[0]["cycles"])
        else:  # fewer than two quiet sweeps: the lowest, which is the least disturbed
            r.update(status="contended" if quiet or any(s["status"] == "ok" for s in sw) else "unstable",
                     cycles="%.4f" % min(s["cycles"] for s in sw))
        r["note"] = sw[0]["note"]


def write_measured(path, rows, meta):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for m in meta:
            f.write("# " + m + "\n")
        f.write("#" + "\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")) for c in COLUMNS) + "\n")
    os.replace(tmp, path)


def read_tsv(path):
    rows, cols = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# ") or not line:
                continue
            if line.startswith("#"):
                cols = line[1:].split("\t")
                continue
            rows.append(dict(zip(cols, line.split("\t"))))
    return rows


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def cmd_measure(a):
    t0 = time.time()
    os.makedirs(DATA, exist_ok=True)
    picked = sample(a.profinst, a.per_archive, a.seed, a.min_insns)
    rows = [dict(archive=n, object=o, func_off=fo, ninsns=k, hexbytes=h) for n, o, fo, k, h in picked]
    prepare(rows)
    jobs = []
    for i, r in enumerate(rows):
        r["id"] = "b%d" % i
        if r["status"] != "ready":
            r.update(cycles="nan", unroll=0, k=0, note="-")
            continue
        nb = len(r["keep"])
        u = unroll_for(nb, len(r["body"]))
        r["unroll"] = u
        line = "%s %s %d %d %d" % (r["id"], r["body"].hex(), u, r["jccoff"], len(r["rips"]))
        line += "".join(" %d:%d" % x for x in r["rips"])
        jobs.append((r["id"], line))
    cnt = collections.Counter(r["status"] for r in rows)
    log("to measure: %d; not measured: %s" % (len(jobs), {k: v for k, v in cnt.items() if k != "ready"}))
    core = a.core
    if core is None:
        core = max(os.sched_getaffinity(0))
    byid = {r["id"]: r for r in rows if "id" in r}
    probes = []
    qlimit = 0
    with tempfile.TemporaryDirectory(prefix="pi-blockrun-") as tmp:
        exe = build_harness(tmp)
        tsc_ghz = tsc_rate_ghz(exe)
        for sweep in range(a.sweeps):
            if sweep >= 1:  # every block twice, then only the blocks not settled yet
                keep = ("ok", "unstable", "contended") if sweep == 1 else ("unstable", "contended")
                jobs = [j for j in jobs if byid[j[0]]["status"] in keep]
            if not jobs:
                break
            res = run_batches(exe, jobs if sweep % 2 == 0 else jobs[::-1], core, a,
                              "sweep %d" % (sweep + 1))
            for i, f in res.items():
                r = byid[i]
                s = dict(status=f[1], cycles=float(f[2]), passes=f[3], probe=float(f[8]), ratio=float(f[6]),
                         note="pages=%s" % f[7] + ("" if f[9] in ("-", "jcc=kept", "jcc=inverted") else " " + f[9]),
                         jcc=f[9] if f[9].startswith("jcc=") else None)
                r.setdefault("sweeps", []).append(s)
                r.update(unroll=f[4], k=f[5])
                if s["status"] == "ok":
                    probes.append(s["probe"])
            probes.sort()
            qlimit = 1.04 * probes[len(probes) // 20] if probes else 0  # 4% above the quietest
            decide(rows, qlimit)
            cnt = collections.Counter(r["status"] for r in rows)
            log("after sweep %d (quiet: probe <= %.3f cycles): %s" % (
                sweep + 1, qlimit, ", ".join("%s %d" % kv for kv in cnt.most_common())))
    for r in rows:
        sw = r.get("sweeps", [])
        r["sweeps"] = ",".join("%.4f@%.3f" % (s["cycles"], s["probe"]) for s in sw) or "-"
        r["cyc_per_tick"] = "%.4f" % (sum(s["ratio"] for s in sw) / len(sw)) if sw else 0
        r["terminator"] = r["term"]
        inv = [s["jcc"] == "jcc=inverted" for s in sw if s.get("jcc")]
        if inv and sum(inv) * 2 >= len(inv):
            r["terminator"] = "jcc-inverted"
    ratios = sorted(float(r["cyc_per_tick"]) for r in rows if r["status"] in ("ok", "unstable", "contended"))
    med = ratios[len(ratios) // 2] if ratios else 0
    el = time.time() - t0
    meta = ["blocks.py measure: seed=%d per-archive=%d min-insns=%d rounds=%d target=%d sweeps<=%d core=%d" % (
                a.seed, a.per_archive, a.min_insns, a.rounds, a.target, a.sweeps, core),
            "cpu: %s; core cycles per TSC tick: median %.4f (min %.4f, max %.4f); TSC %.3f GHz -> core %.3f GHz"
            % (cpu_model(), med, ratios[0] if ratios else 0, ratios[-1] if ratios else 0, tsc_ghz,
               med * tsc_ghz),
            "quiet sweep: contention probe (nop;nop) <= %.3f cycles; date: %s; took %.0f s" % (
                qlimit, time.strftime("%Y-%m-%d %H:%M:%S"), el),
            "cycles: core cycles of one steady-state execution of the block as run (see terminator); "
            "sweeps: cycles@probe of each sweep"]
    rows.sort(key=lambda r: ([n for n, _ in ARCHIVES].index(r["archive"]), r["object"], r["func_off"]))
    write_measured(a.out, rows, meta)
    cnt = collections.Counter(r["status"] for r in rows)
    log("wrote %s: %d blocks; %s" % (os.path.relpath(a.out), len(rows),
                                      ", ".join("%s %d" % kv for kv in cnt.most_common())))
    log("core cycles per TSC tick: median %.4f (%.3f GHz core at %.3f GHz TSC); %.0f s" % (
        med, med * tsc_ghz, tsc_ghz, el))


def tsc_rate_ghz(exe):
    """The TSC's rate in GHz, measured by the harness against CLOCK_MONOTONIC."""
    r = subprocess.run([exe, "--tsc-rate"], capture_output=True, text=True)
    try:
        return float(r.stdout.split()[0])
    except (IndexError, ValueError):
        return float("nan")


# ---------------------------------------------------------------- llvm-mca

def mca_text(rows):
    """The llvm-mc text of each row's body, or None."""
    allb = []
    idx = []
    for r in rows:
        if r.get("keep") is None:
            idx.append(None)
            continue
        lo = len(allb)
        for k in r["keep"]:
            b = r["insns"][k][1]
            allb.append(b)
        idx.append((lo, len(allb)))
    texts = []
    for i in range(0, len(allb), 20000):
        texts += llvm_mc_text(allb[i:i + 20000])
    out = []
    for ix in idx:
        if ix is None:
            out.append(None)
            continue
        t = texts[ix[0]:ix[1]]
        out.append(None if any(x is None for x in t) else [y for x in t for y in x.split("; ")])
    return out


def run_mca(mcpu, named, iterations=100):
    """named: [(name, [asm lines])]; returns {name: cycles per iteration}."""
    src = []
    for n, lines in named:
        src.append("# LLVM-MCA-BEGIN %s\n" % n)
        src += ["\t%s\n" % l for l in lines]
        src.append("# LLVM-MCA-END\n")
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("".join(src))
        path = f.name
    try:
        r = subprocess.run([LLVM_MCA, "-mcpu=" + mcpu, "-iterations=%d" % iterations, "-resource-pressure=0",
                            "-instruction-info=0", path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        return None
    res, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^\[\d+\] Code Region - (\S+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"^Total Cycles:\s+(\d+)", line)
        if m:
            key = cur if cur is not None else (named[0][0] if len(named) == 1 else None)
            if key is not None:
                res[key] = int(m.group(1)) / iterations
    return res


def mca_model(mcpu):
    """The name of the scheduling model llvm-mca uses for mcpu (its
    resources' prefix: SKX, ICX, SKL...)."""
    r = subprocess.run([LLVM_MCA, "-mcpu=" + mcpu, "-iterations=1", "-instruction-info=0"],
                       input="\taddq %rax, %rbx\n", capture_output=True, text=True)
    m = re.search(r"^\[0\]\s+-\s+([A-Z][A-Za-z]*?)(Divider|Port)", r.stdout, re.M)
    if not m:  # Zen: Zn3AGU0, Zn3ALU0...
        m = re.search(r"^\[0\]\s+-\s+([A-Z][a-z]+[0-9]+)[A-Z]", r.stdout, re.M)
    return m.group(1) if m else "?"


def mca_batch(mcpu, named):
    if not named:
        return {}
    r = run_mca(mcpu, named)
    if r is not None and len(r) == len(named):
        return r
    if len(named) == 1:
        return {named[0][0]: None}
    h = len(named) // 2
    out = mca_batch(mcpu, named[:h])
    out.update(mca_batch(mcpu, named[h:]))
    return out


# ---------------------------------------------------------------- statistics

def kendall_tau_b(x, y):
    """Kendall's tau-b, O(n log n) (Knight's algorithm)."""
    n = len(x)
    if n < 2:
        return float("nan")
    pairs = sorted(zip(x, y))

    def tied(seq):
        t, run = 0, 1
        for i in range(1, len(seq) + 1):
            if i < len(seq) and seq[i] == seq[i - 1]:
                run += 1
            else:
                t += run * (run - 1) // 2
                run = 1
        return t

    n1 = tied([p[0] for p in pairs])
    n3 = tied(pairs)
    ys = [p[1] for p in pairs]
    swaps = 0
    # bottom-up merge sort of ys counting inversions (strict)
    width = 1
    buf = ys[:]
    while width < n:
        out = []
        for lo in range(0, n, 2 * width):
            a = buf[lo:lo + width]
            b = buf[lo + width:lo + 2 * width]
            i = j = 0
            while i < len(a) and j < len(b):
                if b[j] < a[i]:
                    out.append(b[j])
                    swaps += len(a) - i
                    j += 1
                else:
                    out.append(a[i])
                    i += 1
            out += a[i:]
            out += b[j:]
        buf = out
        width *= 2
    n2 = tied(buf)
    n0 = n * (n - 1) // 2
    den = math.sqrt((n0 - n1) * (n0 - n2))
    if den == 0:
        return float("nan")
    return (n0 - n1 - n2 + n3 - 2 * swaps) / den


def mape(pred, meas):
    return 100.0 * sum(abs(p - m) / m for p, m in zip(pred, meas)) / len(meas) if meas else float("nan")


# ---------------------------------------------------------------- compare

def cmd_compare(a):
    t0 = time.time()
    if not os.path.exists(a.measured):
        sys.exit("blocks.py: %s missing: run `blocks.py measure` first" % a.measured)
    rows = read_tsv(a.measured)
    for r in rows:
        r["ninsns"] = int(r["ninsns"])
    key = lambda r: (r["object"], r["func_off"], r["hexbytes"])  # noqa: E731
    # profinst, as it models now
    pred = {}
    noterm = 0
    for name, archive in ARCHIVES:
        for obj, fo, n, cyc, hx, cyc_nt in dump_blocks(a.profinst, a.cpu, archive):
            pred.setdefault((obj, fo, hx), (cyc, cyc_nt))
            noterm += cyc_nt is not None
    # llvm-mca, cached
    cache_path = os.path.join(DATA, "blocks-mca-%s.tsv" % a.mcpu)
    cache = {}
    if os.path.exists(cache_path):
        for c in read_tsv(cache_path):
            cache[(c["object"], c["func_off"], c["hexbytes"])] = c
    missing = [r for r in rows if key(r) not in cache]
    if missing:
        log("llvm-mca -mcpu=%s on %d blocks" % (a.mcpu, len(missing)))
        missing = prepare([dict(r) for r in missing])  # (copies: their status is the analysis')
        texts = mca_text(missing)
        named = []
        for i, (r, t) in enumerate(zip(missing, texts)):
            if r["status"] == "ready" and t:
                named.append(("m%d" % i, t))
        res = {}
        for i in range(0, len(named), 400):
            res.update(mca_batch(a.mcpu, named[i:i + 400]))
        for i, (r, t) in enumerate(zip(missing, texts)):
            v = res.get("m%d" % i)
            st = "ok" if v is not None else ("mca-error" if r["status"] == "ready" and t else
                                             "not-run:" + r["status"])
            cache[key(r)] = dict(object=r["object"], func_off=r["func_off"], hexbytes=r["hexbytes"],
                                 mca_cycles="%.2f" % v if v is not None else "nan", status=st)
        ver = subprocess.run([LLVM_MCA, "--version"], capture_output=True, text=True).stdout
        ver = " ".join(ver.split()[:8])
        os.makedirs(DATA, exist_ok=True)
        with open(cache_path + ".tmp", "w") as f:
            f.write("# llvm-mca -mcpu=%s -iterations=100: cycles per iteration (Total Cycles / 100) of the "
                    "block as measured (terminator as in blocks-measured.tsv); %s\n" % (a.mcpu, ver))
            f.write("#object\tfunc_off\thexbytes\tmca_cycles\tstatus\n")
            for c in sorted(cache.values(), key=lambda c: (c["object"], c["func_off"], c["hexbytes"])):
                f.write("\t".join([c["object"], c["func_off"], c["hexbytes"], c["mca_cycles"],
                                   c["status"]]) + "\n")
        os.replace(cache_path + ".tmp", cache_path)

    ok = [r for r in rows if r["status"] == "ok"]
    joined = []
    nopred = nomca = 0
    for r in ok:
        p = pred.get(key(r))
        if p is not None:  # the cost of what was measured: without a dropped jmp/call/ret if profinst says it
            p = p[1] if p[1] is not None else p[0]
        c = cache.get(key(r))
        m = float(c["mca_cycles"]) if c and c["status"] == "ok" else None
        if p is None:
            nopred += 1
            continue
        if m is None:
            nomca += 1
            continue
        joined.append(dict(r, meas=float(r["cycles"]), pi=p, mca=m))
    cnt = collections.Counter(r["status"] for r in rows)
    print("blocks in %s: %d (%s)" % (os.path.relpath(a.measured), len(rows),
                                     ", ".join("%s %d" % kv for kv in cnt.most_common())))
    print("compared: %d measured ok, with a profinst --cpu=%s cost and an llvm-mca -mcpu=%s estimate "
          "(%d not in profinst's dump, %d without llvm-mca)" % (len(joined), a.cpu, a.mcpu, nopred, nomca))
    print("llvm-mca-14 -mcpu=%s schedules with LLVM 14's %s model" % (a.mcpu, mca_model(a.mcpu)))
    dropped = sum(1 for r in joined if r["terminator"].startswith("dropped"))
    print("%d of them (%.0f%%) had an unconditional jmp/call/ret dropped from the measurement; %s" % (
        dropped, 100.0 * dropped / max(1, len(joined)),
        "profinst's cost without it (its 6th column, which also has a final jcc not taken, as measured) "
        "is used for every block" if noterm else
        "this profinst prints only the cost of the whole block, with it"))
    print()
    hdr = "%-10s %6s  %10s %8s  %10s %8s" % ("archive", "n", "profinst", "", "llvm-mca", "")
    print(hdr)
    print("%-10s %6s  %10s %8s  %10s %8s" % ("", "", "MAPE %", "tau-b", "MAPE %", "tau-b"))
    groups = [(n, [j for j in joined if j["archive"] == n]) for n, _ in ARCHIVES]
    groups.append(("all", joined))
    for sub in (None, "kept whole"):
        for n, g in groups:
            if sub:
                g = [j for j in g if not j["terminator"].startswith("dropped")]
            if not g:
                continue
            meas = [j["meas"] for j in g]
            pi = [j["pi"] for j in g]
            mc = [j["mca"] for j in g]
            print("%-10s %6d  %10.1f %8.3f  %10.1f %8.3f" % (
                n if not sub else n + "*", len(g), mape(pi, meas), kendall_tau_b(pi, meas), mape(mc, meas),
                kendall_tau_b(mc, meas)))
        if not sub:
            print("(* below: only blocks measured whole, i.e. without a dropped jmp/call/ret)")
    if a.worst and joined:
        print()
        print("the %d blocks measured whole that profinst is most wrong about (|profinst - measured| / "
              "measured):" % a.worst)
        whole = [j for j in joined if not j["terminator"].startswith("dropped")]
        worst = sorted(whole, key=lambda j: -abs(j["pi"] - j["meas"]) / j["meas"])[:a.worst]
        dec = objdump_decode([w["hexbytes"] for w in worst])
        for w, insns in zip(worst, dec):
            print("%s %s  measured %.2f  profinst %.2f  llvm-mca %.2f  (%s)" % (
                w["object"], w["func_off"], w["meas"], w["pi"], w["mca"], w["terminator"]))
            if insns:
                texts = llvm_mc_text([x[1] for x in insns])
                for x, t in zip(insns, texts):
                    print("    %-28s %s" % (x[1].hex(), t if t else x[2]))
    log("compare took %.1f s" % (time.time() - t0))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--profinst", default=os.path.join(ROOT, "build", "rewriter", "profinst"),
                        help="profinst binary (default: %(default)s)")
    sp = ap.add_subparsers(dest="cmd", required=True)
    m = sp.add_parser("measure", parents=[common], help="sample blocks and measure them on this machine")
    m.add_argument("--per-archive", type=int, default=400, help="blocks sampled per archive (%(default)s)")
    m.add_argument("--seed", type=int, default=20240601, help="sampling seed (%(default)s)")
    m.add_argument("--min-insns", type=int, default=2, help="smallest block sampled (%(default)s)")
    m.add_argument("--rounds", type=int, default=3000, help="rounds per pass (%(default)s)")
    m.add_argument("--target", type=int, default=6000, help="TSC ticks of a 4U run (%(default)s)")
    m.add_argument("--sweeps", type=int, default=5, help="most sweeps over the blocks (%(default)s)")
    m.add_argument("--batch", type=int, default=100, help="blocks per harness process (%(default)s)")
    m.add_argument("--core", type=int, default=None, help="CPU to pin to (default: the last allowed)")
    m.add_argument("--out", default=None,
                   help="output table (default: bench/data's sample for this machine's model)")
    c = sp.add_parser("compare", parents=[common], help="compare profinst and llvm-mca with the measurements")
    c.add_argument("--cpu", default="host", help="profinst timing model (%(default)s)")
    c.add_argument("--mcpu", default=None,
                   help="llvm-mca CPU (default: the nearest to the model: sapphirerapids for goldencove, "
                        "which LLVM 14 models with its Skylake-server model, znver3 for zen5)")
    c.add_argument("--measured", default=None,
                   help="measurements (default: bench/data's sample for the model, measured on such a machine)")
    c.add_argument("--worst", type=int, default=20,
                   help="print the N blocks measured whole that profinst is most wrong about (%(default)s)")
    a = ap.parse_args()
    for tool in ("objdump", LLVM_MC) + ((LLVM_MCA,) if a.cmd == "compare" else ("gcc",)):
        if not shutil.which(tool):
            sys.exit("blocks.py: %s not found" % tool)
    if not os.path.exists(a.profinst):
        sys.exit("blocks.py: no profinst at %s (--profinst)" % a.profinst)
    if a.cmd == "measure":
        if a.out is None:
            a.out = sample_path(host_model(a.profinst))
        return cmd_measure(a)
    model = host_model(a.profinst) if a.cpu == "host" else a.cpu
    if a.measured is None:
        a.measured = sample_path(model)
    if a.mcpu is None:
        a.mcpu = SAMPLES[model][2] if model in SAMPLES else MCPU.get(model, "sapphirerapids")
    return cmd_compare(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
