"""A profile without its maps (issue 24, item 4): the program writes its
counts and its tree and names its executable by build id; profview reads
the maps from the executable, says clearly when it cannot (gone, built
again), and `profview pack` or PROFINST_SELF_CONTAINED=1 make a profile
that needs nothing else."""
import json
import os
import shutil
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)
WORDFREQ = [os.path.join(ROOT, "examples", "wordfreq", f) for f in ("main.c", "hash.c")]

TAG_OBJECT, TAG_COUNTS, TAG_FUNCREC, TAG_THREAD, TAG_IMAGE, TAG_OBJREF, TAG_SHLIB, TAG_CTHREAD, TAG_END = \
    1, 2, 3, 4, 9, 10, 11, 12, 0xFFFF

# a program of three objects, one of which never runs, with a thread
UNRUN = {
    "main.c": "#include <pthread.h>\n#include <stdio.h>\n"
              "int work(int); int never(int);\n"
              "static void *th(void *p) { return (void *)(long)work((int)(long)p); }\n"
              "int main(int argc, char **argv) {\n"
              "  pthread_t t; long r; (void)argv;\n"
              "  pthread_create(&t, 0, th, (void *)(long)(argc + 40)); pthread_join(t, (void **)&r);\n"
              "  int s = work(argc + 30) + (int)r;\n"
              "  if (argc > 5) s += never(argc);\n"
              "  printf(\"%d\\n\", s); return 0; }\n",
    "work.c": "int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i & 3 ? i : -i; return s; }\n",
    "never.c": "int never(int n) { int s = 1; for (int i = 0; i < n; i++) s *= i | 1; return s; }\n",
}


# a call made in a node made before its caller's last sibling: leaf's
# node, under f's, comes after g's, so that the order in which the nodes
# were made is not the order of a walk
LATE = {
    "main.c": "#include <stdio.h>\nint f(int); int g(int);\n"
              "int main(int argc, char **argv) {\n"
              "  int s = 0; (void)argv;\n"
              "  for (int i = 0; i < 3 + argc; i++) s += f(i) + g(i);\n"
              "  printf(\"%d\\n\", s); return 0; }\n",
    "fg.c": "int leaf(int);\n"
            "int f(int i) { return i > 0 ? leaf(i) : i; }\n"
            "int g(int i) { return i * 3 + 1; }\n",
    "leaf.c": "int leaf(int x) { return x * x + (x & 1 ? x : 2); }\n",
}


# a loop whose head is entered from before it and from its body's end,
# and whose exit has two ways in (no arm's difference): the head counts as
# the sum of the two (tests/unit/cfg/counts.s, sum_loop)
SUMS = {
    "main.c": r"""#include <stdio.h>
#include <stdlib.h>
int sum_loop(const int *p, int n);
int main(int argc, char **argv)
{
	int x = 0x7fffffff, n = argc > 1 ? atoi(argv[1]) : 10;
	long s = 0;
	for (int i = 0; i < n; i++)
		s += sum_loop(&x, i % 50);
	printf("%ld\n", s);
	return 0;
}
""",
    "sum.s": """	.text
	.globl	sum_loop
	.type	sum_loop, @function
sum_loop:
	xorl	%eax, %eax
.Lhead:
	cmpl	%esi, %eax
	jge	.Ldone
	testl	%eax, (%rdi)
	js	.Ldone
	addl	$1, %eax
	jmp	.Lhead
.Ldone:
	ret
	.size	sum_loop, .-sum_loop
	.section	.note.GNU-stack,"",@progbits
""",
}


# a chain of compares that return through one return as soon as one
# differs: each next compare's count is the one before's less the edge to
# the return, which its own counter counts (PI_MAP_EDGES;
# tests/unit/cfg/counts.s, chain)
EDGES = {
    "main.c": r"""#include <stdio.h>
#include <stdlib.h>
int chain(const unsigned char *a, const unsigned char *b);
int main(int argc, char **argv)
{
	static const unsigned char s[] = "aaabaacaaaabba";
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long r = 0;
	for (int i = 0; i < n; i++)
		r += chain(s + i % 7, s + (i * 3) % 7);
	printf("%ld\n", r);
	return 0;
}
""",
    "chain.s": """	.text
	.globl	chain
	.type	chain, @function
chain:
	movzbl	(%rdi), %eax
	cmpb	(%rsi), %al
	jne	.Lret
	movzbl	1(%rdi), %eax
	cmpb	1(%rsi), %al
	je	.L3
.Lret:
	setb	%al
	ret
.L3:
	movzbl	2(%rdi), %eax
	cmpb	2(%rsi), %al
	jne	.Lret
	xorl	%eax, %eax
	ret
	.size	chain, .-chain
	.section	.note.GNU-stack,"",@progbits
""",
}


def tls_size(exe):
    """The memory size of the executable's TLS segment, 0 if none."""
    out = subprocess.run(["readelf", "-lW", exe], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "TLS":
            return int(f[5], 16)
    return 0


def records(path):
    """The profile's records: [(tag, size)]."""
    with open(path, "rb") as f:
        d = f.read()
    off = struct.unpack_from("<I", d, 12)[0]
    out = []
    while off + 16 <= len(d):
        tag, _, size = struct.unpack_from("<IIQ", d, off)
        out.append((tag, size))
        off += 16 + ((size + 7) & ~7)
        if tag == TAG_END:
            break
    return out


def leb(d, at):
    """An unsigned LEB128 number at d[at:]: (value, where the next starts)."""
    v, shift = 0, 0
    while True:
        b = d[at]
        at += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, at


def to_leb(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def counting_tree(payload):
    """A CTHREAD record's payload as FORMAT.md ("Counting trees") describes
    it: (header words, nodes), each node a list of its numbers, an
    instrumented function's ending in its counters' (gap, count) pairs;
    ValueError if its bytes are not exactly that."""
    head = struct.unpack_from("<IIII", payload, 0)
    at, nodes = 16, []
    for _ in range(head[2]):
        up, at = leb(payload, at)
        obj1, at = leb(payload, at)
        node = [up, obj1]
        if obj1 == 0:  # a call through a pointer's node: its slot only
            slot1, at = leb(payload, at)
            nodes.append(node + [slot1])
            continue
        for _ in range(8):  # func, slot + 1, flags, calls, add, per_call, os, os_left
            v, at = leb(payload, at)
            node.append(v)
        if not node[4] & 1:  # (not PI_CN_EXTERNAL) its counters, then 0
            while True:
                gap, at = leb(payload, at)
                node.append(gap)
                if not gap:
                    break
                count, at = leb(payload, at)
                node.append(count)
        nodes.append(node)
    if at != len(payload):
        raise ValueError("%d bytes after the nodes" % (len(payload) - at))
    return head, nodes


def encode_tree(head, nodes):
    return struct.pack("<IIII", head[0], head[1], len(nodes), head[3]) + b"".join(
        b"".join(to_leb(v) for v in n) for n in nodes)


def replace_record(d, tag, payload):
    """The profile d with its (first) record of tag's payload replaced."""
    off = struct.unpack_from("<I", d, 12)[0]
    while off + 16 <= len(d):
        t, _, size = struct.unpack_from("<IIQ", d, off)
        end = off + 16 + ((size + 7) & ~7)
        if t == tag:
            pad = b"\0" * (-len(payload) % 8)
            return d[:off] + struct.pack("<IIQ", tag, 0, len(payload)) + payload + pad + d[end:]
        off = end
    raise ValueError("no record of tag %d" % tag)


def payloads(d, tag):
    """Every record of tag's payload, in order."""
    off, out = struct.unpack_from("<I", d, 12)[0], []
    while off + 16 <= len(d):
        t, _, size = struct.unpack_from("<IIQ", d, off)
        if t == tag:
            out.append(d[off + 16:off + 16 + size])
        off += 16 + ((size + 7) & ~7)
    return out


def record_payload(d, tag):
    off = struct.unpack_from("<I", d, 12)[0]
    while off + 16 <= len(d):
        t, _, size = struct.unpack_from("<IIQ", d, off)
        if t == tag:
            return d[off + 16:off + 16 + size]
        off += 16 + ((size + 7) & ~7)
    raise ValueError("no record of tag %d" % tag)


def figures(pj):
    """What two runs of one deterministic program agree on."""
    return sorted((f["name"], f["calls"], f["self_cycles"], f["incl_cycles"]) for f in pj["functions"])


def tests(ctx, Fail, sh, must, profile_json):
    def build(tmp, name="wordfreq", defines=()):
        objs = []
        for src in WORDFREQ:
            o = os.path.join(tmp, os.path.basename(src)[:-2] + ".o")
            must(["gcc", "-O2", "-g", "-c", src, "-o", o] + list(defines), "compile")
            objs.append(o)
        exe = os.path.join(tmp, name)
        must([ctx.profinst, "-q", "--cpu=instructions"] + objs + ["-o", exe], "profinst")
        return exe

    def compile_sources(tmp, sources):
        """Each source of {name: text} written to tmp and compiled (gcc -O2):
        the objects, in the names' order."""
        objs = []
        for name, text in sorted(sources.items()):
            src = os.path.join(tmp, name)
            with open(src, "w") as f:
                f.write(text)
            objs.append(src[:-2] + ".o")
            must(["gcc", "-O2", "-c", src, "-o", objs[-1]], "compile")
        return objs

    def run(tmp, exe, out, env=None):
        e = dict(os.environ, PROFINST_OUTPUT=out)
        e.pop("PROFINST_SELF_CONTAINED", None)
        e.update(env or {})
        p = subprocess.run([exe, "20000"], env=e, cwd=tmp, capture_output=True, text=True)
        if p.returncode or not os.path.exists(out):
            raise Fail("run: rc %d, %s" % (p.returncode, p.stderr[-400:]))
        return out

    def fails_with(ctx_prof, words):
        p = subprocess.run([ctx.profview, "report", ctx_prof], capture_output=True, text=True)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if p.returncode != 1 or p.stdout or len(lines) != 1 or not all(w in lines[0] for w in words):
            raise Fail("expected one line naming %r, exit 1; got rc %d, stderr %r, stdout %r"
                       % (words, p.returncode, p.stderr, p.stdout[:200]))

    def in_executable():
        """The default: maps by reference, the same figures as with them
        in the profile, a tenth of the size or less."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            exe = build(tmp)
            ref = run(tmp, exe, os.path.join(tmp, "ref.pf"))
            full = run(tmp, exe, os.path.join(tmp, "full.pf"), {"PROFINST_SELF_CONTAINED": "1"})
            tags = [t for t, _ in records(ref)]
            if tags.count(TAG_IMAGE) != 1 or tags.count(TAG_OBJREF) != 2 or TAG_OBJECT in tags:
                raise Fail("a profile by reference holds records %r" % tags)
            tf = [t for t, _ in records(full)]
            if tf.count(TAG_OBJECT) != 2 or TAG_OBJREF in tf or TAG_IMAGE in tf:
                raise Fail("a self-contained profile holds records %r" % tf)
            a, b = profile_json(ctx, ref), profile_json(ctx, full)
            if figures(a) != figures(b) or not a["functions"]:
                raise Fail("the figures differ:\n%r\n%r" % (figures(a)[:5], figures(b)[:5]))
            sa, sb = os.path.getsize(ref), os.path.getsize(full)
            if not sa * 2 < sb or sa > 100 * 1024:
                raise Fail("by reference %d bytes, self-contained %d" % (sa, sb))
            # the views that read code and lines read them from the executable
            for cmd in (["annotate", ref, "table_add"], ["annotate", ref, "table_add", "--disasm"]):
                a1 = must([ctx.profview] + cmd, "profview " + cmd[0]).stdout
                a2 = must([ctx.profview] + [full if x == ref else x for x in cmd], "profview").stdout
                if a1 != a2 or "table_add" not in a1:
                    raise Fail("%s differs between the two profiles" % " ".join(cmd))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def executable_gone():
        """Removed: one line naming it and what to do; a packed copy and a
        self-contained profile read as before."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            exe = build(tmp)
            ref = run(tmp, exe, os.path.join(tmp, "ref.pf"))
            full = run(tmp, exe, os.path.join(tmp, "full.pf"), {"PROFINST_SELF_CONTAINED": "1"})
            packed = os.path.join(tmp, "packed.pf")
            must([ctx.profview, "pack", ref, "-o", packed], "profview pack")
            if TAG_OBJREF in [t for t, _ in records(packed)]:
                raise Fail("a packed profile still refers to its executable")
            want = figures(profile_json(ctx, ref))
            os.unlink(exe)
            fails_with(ref, [exe, "cannot be opened", "pack"])
            for p in (packed, full):
                if figures(profile_json(ctx, p)) != want:
                    raise Fail("%s: other figures once the executable is gone" % os.path.basename(p))
            # pack needs what it packs
            q = subprocess.run([ctx.profview, "pack", ref, "-o", os.path.join(tmp, "x.pf")],
                               capture_output=True, text=True)
            if q.returncode == 0 or os.path.exists(os.path.join(tmp, "x.pf")):
                raise Fail("pack of a profile whose executable is gone succeeded")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def executable_rebuilt():
        """Built again (another build id) at the same path: refused, both
        ids named, never read as if it were the same program."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            exe = build(tmp)
            ref = run(tmp, exe, os.path.join(tmp, "ref.pf"))
            os.unlink(exe)
            build(tmp, defines=["-DPROFINST_TEST_REBUILT=1", "-O1"])
            fails_with(ref, [exe, "build id", "built again"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def counts_where_run():
        """Under --counts the block counts are in the tree's nodes: no
        counters in TLS (which the C library clears for every thread); the
        profile holds each thread's tree as it was (no block counter
        records), whose reading (profview pack writes it) has the counters
        of the objects that ran only, with the figures --timed gives."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            objs = compile_sources(tmp, UNRUN)
            native = os.path.join(tmp, "native")
            must(["gcc"] + objs + ["-o", native, "-lpthread"], "link")
            expect = subprocess.run([native], capture_output=True, text=True).stdout
            figs, sizes = {}, {}
            for mode in ("--counts", "--timed"):
                exe = os.path.join(tmp, "prog" + mode)
                must([ctx.profinst, "-q", "--cpu=instructions", mode] + objs + ["-o", exe, "-lpthread"], "profinst")
                sizes[mode] = tls_size(exe)
                out = os.path.join(tmp, mode + ".pf")
                p = subprocess.run([exe], env=dict(os.environ, PROFINST_OUTPUT=out), cwd=tmp,
                                   capture_output=True, text=True)
                if p.returncode or p.stdout != expect:
                    raise Fail("%s: rc %d, printed %r" % (mode, p.returncode, p.stdout))
                tags = [t for t, _ in records(out)]
                want = (0, 2, 0) if mode == "--counts" else (6, 0, 2)
                got = (tags.count(TAG_COUNTS), tags.count(TAG_CTHREAD), tags.count(TAG_THREAD))
                if got != want:
                    raise Fail("%s: %d block counter, %d counting tree and %d thread records, want %r" %
                               ((mode,) + got + (want,)))
                if mode == "--counts":
                    # the function records are those of the functions the
                    # trees' nodes are of: the ended thread's (th) too
                    with open(out, "rb") as f:
                        d = f.read()
                    named = {(n[1] - 1, n[2]) for p in payloads(d, TAG_CTHREAD) for n in counting_tree(p)[1] if n[1]}
                    recs = payloads(d, TAG_FUNCREC)[0]
                    recorded = {struct.unpack_from("<II", recs, k) for k in range(0, len(recs), 64)}
                    if named != recorded or len(named) < 5:
                        raise Fail("--counts: function records of %r, the trees' functions %r" %
                                   (sorted(recorded), sorted(named)))
                    packed = os.path.join(tmp, "packed.pf")
                    must([ctx.profview, "pack", out, "-o", packed], "profview pack")
                    tags = [t for t, _ in records(packed)]
                    # main.o and work.o, in each of the two threads; never.o in none
                    if (tags.count(TAG_COUNTS), tags.count(TAG_THREAD)) != (4, 2):
                        raise Fail("--counts, packed: %d block counter and %d thread records, want 4 and 2" %
                                   (tags.count(TAG_COUNTS), tags.count(TAG_THREAD)))
                figs[mode] = figures(profile_json(ctx, out))
            # (the runtime's own words are the same in both; the three
            # objects' counters, one word each under --counts)
            if sizes["--timed"] - sizes["--counts"] < 8 * 10:
                raise Fail("TLS segments of %r bytes: the counters are in TLS under --timed only" % sizes)
            if figs["--counts"] != figs["--timed"]:
                raise Fail("--counts and --timed disagree: %r against %r" % (figs["--counts"], figs["--timed"]))
            ann = subprocess.run([ctx.profview, "annotate", os.path.join(tmp, "--counts.pf"), "work"],
                                 capture_output=True, text=True)
            if ann.returncode or "work" not in ann.stdout:
                raise Fail("annotate work: rc %d, %s" % (ann.returncode, ann.stderr[-300:]))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def both_runtimes(tmp, sources, func):
        """The program of sources, run 20000 times round under --counts and
        --timed (self-contained profiles), which must agree, func called
        20000 times: the --counts profile."""
        objs = compile_sources(tmp, sources)
        outs = {}
        for mode in ("--counts", "--timed"):
            exe = os.path.join(tmp, "prog" + mode)
            must([ctx.profinst, "-q", "--cpu=instructions", mode] + objs + ["-o", exe], "profinst")
            outs[mode] = run(tmp, exe, os.path.join(tmp, mode + ".pf"), {"PROFINST_SELF_CONTAINED": "1"})
        a, b = (figures(profile_json(ctx, outs[m])) for m in ("--counts", "--timed"))
        if a != b or not any(f[0] == func and f[1] == 20000 for f in a):
            raise Fail("--counts and --timed disagree: %r against %r" % (a, b))
        return outs["--counts"]

    def corrupt_pairs(tmp, prof, flag, damage):
        """A copy of the self-contained profile prof in which damage(d,
        pairs, nsame) changed the difference pairs of the first map with
        the header flag flag that it could (it says so), or None."""
        with open(prof, "rb") as f:
            d = bytearray(f.read())
        off = struct.unpack_from("<I", d, 12)[0]
        while off + 16 <= len(d):
            tag, _, size = struct.unpack_from("<IIQ", d, off)
            if tag == TAG_OBJECT:
                m = off + 16 + 8  # (the object's index, a word of 0, then its map)
                reserved = struct.unpack_from("<I", d, m + 68)[0]
                nsame, same_off = struct.unpack_from("<II", d, m + 104)
                if reserved & flag and damage(d, m + same_off + 4 * nsame, nsame):
                    corrupt = os.path.join(tmp, "corrupt.pf")
                    with open(corrupt, "wb") as f:
                        f.write(d)
                    return corrupt
            if tag == TAG_END:
                break
            off += 16 + ((size + 7) & ~7)
        return None

    def join_refused(sources, func, flag, flow, words, what):
        """The program of sources counts what --timed counts (both_runtimes);
        a copy of its profile whose first sum (flow False) or flow
        (PI_LIN_GROUP) names the join itself as its first term is refused
        with words, in one line."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            counted = both_runtimes(tmp, sources, func)

            def join_itself(d, pairs, nsame):
                sums = pairs + 8 * nsame + 4
                for i in range(nsame):
                    plus, k = struct.unpack_from("<II", d, pairs + 8 * i)
                    if not plus and k and bool(struct.unpack_from("<I", d, sums + 4 * (k - 1))[0] >> 31) == flow:
                        term = struct.unpack_from("<I", d, sums + 4 * k)[0]
                        struct.pack_into("<I", d, sums + 4 * k, (term & 0xC0000000) | (i + 1))
                        return True
                return False

            corrupt = corrupt_pairs(tmp, counted, flag, join_itself)
            if not corrupt:
                raise Fail("no block of the program's maps counts as %s" % what)
            fails_with(corrupt, words)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def sums_checked():
        """A join whose count is its predecessors' sum (PI_MAP_SUM): a
        loop's head entered from before the loop and from its body's end
        (tests/unit/cfg/counts.s has the shape) counts what --timed
        counts; a map whose sum names a block without a count of its own
        (the join itself) is refused, in one line."""
        join_refused(SUMS, "sum_loop", 0x200, False, ["bad block count sum"], "a sum")

    def flow_checked():
        """A join whose count is the flow into it (PI_MAP_LIN): the exit of
        a loop left from two tests, each the arm of the one before
        (tests/unit/cfg/counts.s, sum_loop) counts what --timed counts; a
        map whose flow names the join itself is refused, in one line."""
        join_refused(SUMS, "sum_loop", 0x800, True, ["bad block count flow"], "the flow into it")

    def edges_checked():
        """Counts taken from edges' counters, one difference after another
        (PI_MAP_EDGES): the chain of compares counts what --timed counts;
        a map whose difference goes on from a block after it (itself) is
        refused, in one line."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            counted = both_runtimes(tmp, EDGES, "chain")

            def from_itself(d, pairs, nsame):
                for i in range(nsame):
                    plus, minus = struct.unpack_from("<II", d, pairs + 8 * i)
                    first = struct.unpack_from("<I", d, pairs + 8 * (plus - 1))[0] if plus else 0
                    if minus == i + 1 and first:
                        # from a difference: from itself instead
                        struct.pack_into("<I", d, pairs + 8 * i, i + 1)
                        return True
                return False

            corrupt = corrupt_pairs(tmp, counted, 0x400, from_itself)  # PI_MAP_EDGES
            if not corrupt:
                raise Fail("no block of the program's maps counts an edge after another difference")
            fails_with(corrupt, ["bad block count difference"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def counting_tree_checked():
        """Under --counts a thread's tree is written as its stubs left it
        (CTHREAD): its bytes are exactly the nodes FORMAT.md describes, in
        the order the runtime made them (a parent before its children, but
        not the order of a walk: a node whose parent the walk has left,
        LATE's leaf under f after g); written back, or in the order of a walk, either
        way round, they read the same; and a tree that does not fit (a
        node whose parent is not before it, a counter past its function's
        blocks, more nodes than its bytes, bytes after its nodes) is
        refused, in one line."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            exe = os.path.join(tmp, "late")
            must([ctx.profinst, "-q", "--cpu=instructions"] + compile_sources(tmp, LATE) + ["-o", exe], "profinst")
            prof = run(tmp, exe, os.path.join(tmp, "p.pf"))
            with open(prof, "rb") as f:
                d = f.read()
            head, nodes = counting_tree(record_payload(d, TAG_CTHREAD))
            if not nodes or encode_tree(head, nodes) != record_payload(d, TAG_CTHREAD):
                raise Fail("the counting tree does not decode as FORMAT.md has it (%d nodes)" % len(nodes))
            want = figures(profile_json(ctx, prof))

            def reads(name, payload):
                path = os.path.join(tmp, name + ".pf")
                with open(path, "wb") as f:
                    f.write(replace_record(d, TAG_CTHREAD, payload))
                return figures(profile_json(ctx, path))

            if reads("again", encode_tree(head, nodes)) != want:
                raise Fail("the tree written back reads otherwise")
            parent = [None] + [i + 1 - n[0] for i, n in enumerate(nodes)]  # (node i + 1's)
            off_path = []
            for k in range(2, len(nodes) + 1):
                path, x = set(), k - 1
                while x:
                    path.add(x)
                    x = parent[x]
                if parent[k] not in path and parent[k] != 0:
                    off_path.append(k)
            if not off_path:
                raise Fail("the tree is written in the order of a walk, not in the order its nodes were made")

            def walked(reverse):
                """the nodes in the order of a walk from the root, each
                node's children in the order written, or reversed"""
                children = [[] for _ in range(len(nodes) + 1)]
                for k in range(1, len(nodes) + 1):
                    children[parent[k]].append(k)
                order, stack = [], [0]
                while stack:
                    k = stack.pop()
                    order.append(k)
                    stack.extend(children[k] if reverse else reversed(children[k]))
                index = {k: i for i, k in enumerate(order)}
                out = []
                for k in order[1:]:
                    n = list(nodes[k - 1])
                    n[0] = index[k] - index[parent[k]]
                    out.append(n)
                return encode_tree(head, out)

            for reverse in (False, True):
                if reads("walked%d" % reverse, walked(reverse)) != want:
                    raise Fail("the tree in the order of a walk (children %s) reads otherwise" %
                               ("reversed" if reverse else "in order"))
            counted = [i for i, n in enumerate(nodes) if n[1] and not n[4] & 1 and len(n) > 10]
            if not counted:
                raise Fail("no node of an instrumented function counted a block")

            def damaged(name, change):
                path = os.path.join(tmp, name + ".pf")
                with open(path, "wb") as f:
                    f.write(replace_record(d, TAG_CTHREAD, change([list(n) for n in nodes])))
                return path

            def parent_after(bad):
                bad[1][0] = 3  # node 2's parent "node -1"
                return encode_tree(head, bad)

            def no_parent(bad):
                bad[1][0] = 0
                return encode_tree(head, bad)

            def past_blocks(bad):
                bad[counted[0]][10] += 1 << 20
                return encode_tree(head, bad)

            cases = [("parent_after", parent_after, "not before it"), ("no_parent", no_parent, "not before it"),
                     ("past_blocks", past_blocks, "past its function"),
                     ("more_nodes", lambda bad: encode_tree(head, bad)[:8] + struct.pack("<I", 10 ** 6) +
                      encode_tree(head, bad)[12:], "more nodes"),
                     ("after", lambda bad: encode_tree(head, bad) + b"\x01", "after its nodes")]
            for name, change, words in cases:
                fails_with(damaged(name, change), ["bad counting tree", words])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def section(tmp, exe, name):
        """The bytes of the executable's section name, as the file holds them."""
        out = os.path.join(tmp, name + ".bin")
        must(["objcopy", "-O", "binary", "--only-section=" + name, exe, out], "objcopy " + name)
        with open(out, "rb") as f:
            return f.read()

    def objdesc_mirrors_map():
        """Each object's descriptor says what the runtime needs of its map,
        which it then reads nowhere else at start and exit: the map's size,
        flags and units as its header has them, and the most words a node
        of its functions holds (its blocks and call slots); the
        externals' names, which the runtime merges by, are in one section
        the linker merged: each name once; each function's blocks and
        sites, which the runtime reads at every node it makes, in a dense
        table of their own; and the descriptors and the records point by
        distances the static link settled, so that the loader relocates
        nothing in them."""
        tmp = tempfile.mkdtemp(prefix="pi-maps-")
        try:
            exe = build(tmp)
            maps, at = [], 0
            blob = section(tmp, exe, "profinst_map")
            while at + 80 <= len(blob):
                size = struct.unpack_from("<I", blob, at + 8)[0]
                if not size:
                    break
                maps.append(blob[at:at + size])
                at = (at + size + 7) & ~7
            descs = section(tmp, exe, "profinst_objs")
            if len(maps) != 2 or len(descs) % len(maps):
                raise Fail("%d maps, %d bytes of descriptors" % (len(maps), len(descs)))
            dsize = len(descs) // len(maps)
            recs = section(tmp, exe, "profinst_funcs")
            # the records by their object's descriptor, from the record's
            # word; the runtime's own records name none
            secs = {l.split()[l.split().index(n)]: (int(l.split()[l.split().index(n) + 2], 16),
                                                   int(l.split()[l.split().index(n) + 4], 16))
                    for l in must(["readelf", "-SW", exe], "readelf").stdout.splitlines()
                    for n in ("profinst_objs", "profinst_funcs", "profinst_shapes") if n in l.split()}
            objs_at, funcs_at = secs["profinst_objs"][0], secs["profinst_funcs"][0]
            relocated = [l for l in must(["readelf", "-rW", exe], "readelf").stdout.splitlines()
                         if l[:1].isdigit() and
                         any(a <= int(l.split()[0], 16) < a + size for a, size in secs.values())]
            shapes_at, shapes = secs["profinst_shapes"][0], section(tmp, exe, "profinst_shapes")
            if relocated:
                raise Fail("%d dynamic relocations in the descriptors and records: %s"
                           % (len(relocated), relocated[0]))
            objrecs = [[] for _ in maps]
            for r in range(0, len(recs) - 63, 64):
                obj, index, npieces, nslots = struct.unpack_from("<qIHH", recs, r)
                if obj:
                    objrecs[(funcs_at + r + obj - objs_at) // dsize].append((index, npieces, nslots))
            names = []
            for i, m in enumerate(maps):
                d = descs[i * dsize:(i + 1) * dsize]
                if d[:8] != b"PRINPDE3":
                    raise Fail("descriptor %d: magic %r" % (i, d[:8]))
                size, flags, units, words = struct.unpack_from("<IIII", d, 32)  # (after index)
                nfuncs, funcs_off, str_off = (struct.unpack_from("<I", m, o)[0] for o in (16, 28, 40))
                hflags, hunits = struct.unpack_from("<II", m, 68)
                if (size, flags, units) != (len(m), hflags, hunits):
                    raise Fail("descriptor %d: map size %d, flags %#x, units %d; its header %d, %#x, %d"
                               % (i, size, flags, units, len(m), hflags, hunits))
                funcs = [struct.unpack_from("<10I", m, funcs_off + 40 * k) for k in range(nfuncs)]
                # each function's blocks and sites, as the map has them
                # (an external's none), by the descriptor's last word
                at = objs_at + i * dsize + dsize - 8 + struct.unpack_from("<q", d, dsize - 8)[0] - shapes_at
                got = [struct.unpack_from("<II", shapes, at + 8 * k) for k in range(nfuncs)]
                if got != [(f[5], f[7]) for f in funcs]:
                    raise Fail("descriptor %d: shapes %r, its map's blocks and sites %r"
                               % (i, got, [(f[5], f[7]) for f in funcs]))
                most = max([funcs[x][5] + slots for x, npieces, slots in objrecs[i] if npieces] + [0])
                if words != most or not most:
                    raise Fail("descriptor %d: nodes of %d words, its functions' most %d" % (i, words, most))
                for f in funcs:
                    if f[8] & 0x8:  # PI_FUNC_EXTERNAL
                        names.append(m[str_off + f[0]:m.index(b"\0", str_off + f[0])])
            merged = section(tmp, exe, "profinst_extnames").split(b"\0")[:-1]
            if len(names) == len(set(names)) or sorted(merged) != sorted(set(names)):
                raise Fail("externals %r, their names' section %r" % (sorted(names), merged))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("maps/in_executable", in_executable),
            ("maps/objdesc_mirrors_map", objdesc_mirrors_map),
            ("maps/counting_tree_checked", counting_tree_checked),
            ("maps/sums_checked", sums_checked),
            ("maps/flow_checked", flow_checked),
            ("maps/edges_checked", edges_checked),
            ("maps/counts_where_run", counts_where_run),
            ("maps/executable_gone", executable_gone),
            ("maps/executable_rebuilt", executable_rebuilt)]
