"""The counting runtime (profinst --counts) against the timed one: every
end-to-end program it handles, instrumented both ways under the
instructions model, must print the same output and give every
instrumented function the same calls and the same instructions (self
and self+descendants), per function and in total.

The programs --counts does not handle yet are listed with what it does
instead: refuse with a reason, or run with a visible difference."""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile

import cpaths

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def stub_abi(name):
    """A constant of runtime/stub_abi.h."""
    with open(os.path.join(ROOT, "runtime", "stub_abi.h")) as f:
        m = re.search(r"#define %s (\d+)" % name, f.read())
    return int(m.group(1))


STUB_CN_CALLS = stub_abi("STUB_CN_CALLS")

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E2E = os.path.join(HERE, "e2e")

# what the counting runtime does not do yet, and what it does instead
NOT_YET = {}


ODD_S = """\t.text
\t.globl\todd_one
\t.type\todd_one, @function
odd_one:
\tleaq\tdata(%rip), %rax
\tret
data:
\t.byte 0x0f, 0x0b, 0xff, 0xff
\t.size\todd_one, .-odd_one
\t.section .note.GNU-stack,"",@progbits
"""
ODD_MAIN = """#include <stdio.h>
extern void *odd_one(void);
__attribute__((noinline)) long work(int i) { return (long)odd_one() + i; }
int main(void) { long s = 0; for (int i = 0; i < 1000; i++) s += work(i) & 1; printf("%ld\\n", s); return 0; }
"""


TWO_A = """#include <stdio.h>
long b_leaf(long x);
long b_down(long n);
__attribute__((noinline)) long a_up(long n) { return n <= 0 ? 0 : 1 + b_down(n - 1); }
__attribute__((noinline)) long a_tail(long x) { return b_leaf(x + 1); }
int main(void)
{
	long s = 0;
	for (long i = 0; i < 3000; i++)
		s += b_leaf(i) + a_tail(i) + (i % 100 == 0 ? a_up(20) : 0);
	printf("%ld\\n", s);
	return 0;
}
"""
TWO_B = """long a_up(long n);
__attribute__((noinline)) long b_leaf(long x) { return x * 3 ^ (x >> 2); }
__attribute__((noinline)) long b_down(long n) { return n <= 0 ? 0 : 1 + a_up(n - 1); }
"""


PTR_A = """#include <stdio.h>
#include <string.h>
typedef long (*op_t)(long);
long b_sq(long x);
long b_neg(long x);
__attribute__((noinline)) long a_inc(long x) { return x + 1; }
op_t ops[3] = {a_inc, b_sq, b_neg};
/* a tail jump through a pointer, to either object */
__attribute__((noinline)) long via(op_t f, long x) { return f(x ^ 1); }
/* a call through a pointer with one target, and with three */
__attribute__((noinline)) long mono(op_t f, long x) { return f(x) + 1; }
__attribute__((noinline)) long poly(long i) { return ops[i % 3](i) * 2; }
/* a tail jump through a pointer to the C library */
__attribute__((noinline)) size_t ext(size_t (*g)(const char *), const char *s) { return g(s); }
int main(void)
{
	long s = 0;
	for (long i = 0; i < 3000; i++)
		s += via(ops[i % 3], i) + mono(b_sq, i) + poly(i) + (long)ext(strlen, "abc" + i % 3);
	printf("%ld\\n", s);
	return 0;
}
"""
PTR_B = """typedef long (*op_t)(long);
extern op_t ops[3];
long b_sq(long x) { return x * x; }
/* a tail jump through a pointer from the other object, back to it */
long b_neg(long x) { return x > 0 ? ops[0](-x) : -x; }
"""


FORK_C = """#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
__attribute__((noinline)) long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ (i >> 3); return s; }
int main(void)
{
	long s = work(100000);
	pid_t p = fork();
	if (p == 0) {
		s += work(1000);
		printf("child %ld\\n", s);
		return 0;
	}
	waitpid(p, 0, 0);
	printf("parent %ld\\n", s + work(10));
	return 0;
}
"""


def rows(ctx, must, pf):
    pj = json.loads(must([ctx.profview, "report", pf, "--format=json"], "report").stdout)
    out = {}
    for f in pj["functions"]:
        if f["name"].startswith("<"):
            continue  # externals: how they are timed differs
        out[(f["name"], f.get("object", ""))] = (f["calls"], f["self_cycles"], f["incl_cycles"])
    return out


def tests(ctx, Fail, sh, must, directives):
    def case(src, how):
        d = directives(src)
        name = os.path.splitext(os.path.basename(src))[0]
        tmp = tempfile.mkdtemp(prefix="pi-counting-%s-" % name)
        try:
            cflags = " ".join(d.get("cflags", [])).split()
            ldflags = " ".join(d.get("ldflags", [])).split()
            args = " ".join(d.get("args", [])).split()
            obj = os.path.join(tmp, name + ".o")
            cc = "g++" if src.endswith(".cc") else "gcc"
            must([cc, "-O2", "-c", src, "-o", obj] + cflags, "compile")
            got = {}
            if how == "refused":
                p = subprocess.run([ctx.profinst, "-q", "--counts", obj, "-o", os.path.join(tmp, "x")] + ldflags,
                                   capture_output=True, text=True)
                if p.returncode == 0 or "--counts does not handle" not in p.stderr or \
                   os.path.exists(os.path.join(tmp, "x")):
                    raise Fail("--counts was not refused with a reason: status %d, %r"
                               % (p.returncode, p.stderr))
                return
            for mode in ("timed", "counts"):
                exe = os.path.join(tmp, mode)
                must([ctx.profinst, "-q", "--cpu=instructions", obj, "-o", exe] + ldflags
                     + (["--counts"] if mode == "counts" else ["--timed"]), "profinst")
                pf = os.path.join(tmp, mode + ".pf")
                env = dict(os.environ, PROFINST_OUTPUT=pf)
                p = subprocess.run([exe] + args, env=env, cwd=tmp, capture_output=True, timeout=300)
                got[mode] = (p.returncode, p.stdout, pf)
            (ra, oa, pa), (rb, ob, pb) = got["timed"], got["counts"]
            if how == "runs":
                if rb != ra or not os.path.exists(pb):
                    raise Fail("status %d against %d, or no profile" % (rb, ra))
                return
            if (ra, oa) != (rb, ob):
                raise Fail("the program ran differently: status %d against %d, output %s"
                           % (rb, ra, "the same" if oa == ob else "not the same"))
            a, b = rows(ctx, must, pa), rows(ctx, must, pb)
            if not a or not any(v[0] for v in a.values()):
                raise Fail("an empty profile proves nothing")
            diffs = ["%s: timed %r, counts %r" % (k[0], a.get(k), b.get(k))
                     for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            if diffs:
                raise Fail("calls or instructions differ:\n" + "\n".join(diffs[:8]))
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    def left_as_it_was():
        """A global function profinst leaves as it was (data in its code),
        called from another object: external to its caller there, so that
        the caller's node does not stay current in it."""
        tmp = tempfile.mkdtemp(prefix="pi-counting-left-")
        try:
            with open(os.path.join(tmp, "odd.s"), "w") as f:
                f.write(ODD_S)
            with open(os.path.join(tmp, "main.c"), "w") as f:
                f.write(ODD_MAIN)
            must(["as", os.path.join(tmp, "odd.s"), "-o", os.path.join(tmp, "odd.o")], "as")
            must(["gcc", "-O2", "-c", os.path.join(tmp, "main.c"), "-o", os.path.join(tmp, "main.o")], "compile")
            exe, pf = os.path.join(tmp, "c"), os.path.join(tmp, "c.pf")
            must([ctx.profinst, "-q", "--counts", "--cpu=instructions", os.path.join(tmp, "main.o"),
                  os.path.join(tmp, "odd.o"), "-o", exe, "-Wl,-z,noexecstack"], "profinst")
            p = subprocess.run([exe], env=dict(os.environ, PROFINST_OUTPUT=pf), capture_output=True, text=True)
            if p.returncode or p.stdout != "500\n":
                raise Fail("status %d, output %r" % (p.returncode, p.stdout))
            pj = json.loads(must([ctx.profview, "report", pf, "--format=json"], "report").stdout)
            got = {f["name"]: f["calls"] for f in pj["functions"]}
            if got.get("<external:odd_one>") != 1000 or got.get("work") != 1000 or got.get("main") != 1:
                raise Fail("calls: %r" % got)
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    def same_as_timed(sources):
        """Two objects built from sources (name: text), instrumented both
        ways: the same output, calls and instructions."""
        tmp = tempfile.mkdtemp(prefix="pi-counting-two-")
        try:
            objs = []
            for name, text in sources:
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(text)
                objs.append(os.path.join(tmp, name[0] + ".o"))
                must(["gcc", "-O2", "-c", os.path.join(tmp, name), "-o", objs[-1]], "compile")
            got = {}
            for mode in ("timed", "counts"):
                exe, pf = os.path.join(tmp, mode), os.path.join(tmp, mode + ".pf")
                must([ctx.profinst, "-q", "--cpu=instructions"] + objs + ["-o", exe]
                     + (["--counts"] if mode == "counts" else ["--timed"]), "profinst")
                p = subprocess.run([exe], env=dict(os.environ, PROFINST_OUTPUT=pf), capture_output=True)
                got[mode] = (p.returncode, p.stdout, rows(ctx, must, pf))
            if got["timed"][:2] != got["counts"][:2]:
                raise Fail("the program ran differently")
            a, b = got["timed"][2], got["counts"][2]
            if a != b or not a:
                raise Fail("timed %r\ncounts %r" % (a, b))
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    def two_objects():
        """Calls between two objects (past the callee's entry stub, by its
        NAME.pi_inner symbol), tail calls and a recursion across them."""
        same_as_timed((("a.c", TWO_A), ("b.c", TWO_B)))

    def pointers():
        """Calls and tail jumps through pointers, to one target and to
        several, across two objects and to the C library."""
        same_as_timed((("a.c", PTR_A), ("b.c", PTR_B)))

    def lean_stubs():
        """The counting stubs' shape (what the speed rests on, which a
        change could lose with every count still right): blocks that count
        through the register a counter before them left the current node
        in, with no load of it between; calls past the entry stub that
        do not count (the block's count is theirs); the same figures as
        --timed."""
        tmp = tempfile.mkdtemp(prefix="pi-counting-lean-")
        try:
            objs = []
            for name in ("main", "hash"):
                objs.append(os.path.join(tmp, name + ".o"))
                must(["gcc", "-O2", "-c", os.path.join(ROOT, "examples", "wordfreq", name + ".c"), "-o",
                      objs[-1]], "compile")
            exe = os.path.join(tmp, "wf")
            must([ctx.profinst, "-q", "--counts", "--cpu=instructions"] + objs + ["-o", exe], "profinst")
            dis = must(["objdump", "-d", "--no-show-raw-insn", exe], "objdump").stdout
            ours = set()
            for o in objs:
                for line in must(["nm", "--defined-only", o], "nm").stdout.splitlines():
                    f = line.split()
                    if len(f) == 3 and f[1] in "tT":
                        ours.add(f[2])
            # the instructions of the program's functions (not the runtime's)
            ins, inside = [], False
            for l in dis.splitlines():
                h = re.match(r"^[0-9a-f]+ <([^>]+)>:$", l)
                if h:
                    inside = h.group(1).split(".pi_inner")[0] in ours
                elif inside and re.match(r"^\s+[0-9a-f]+:\t", l):
                    ins.append(l.split("\t", 1)[1].strip())
            calls_off = "0x%x" % STUB_CN_CALLS
            counters = kept = inner = counted = 0
            for i, l in enumerate(ins):
                m = re.match(r"incq\s+(0x[0-9a-f]+)\((%r\w+)\)$", l)
                if m and m.group(1) != calls_off:
                    counters += 1
                    # (not just loaded, nor just made current by the code after a call)
                    kept += not re.search(r",%s$|^mov\s+%s,%%fs:" % (re.escape(m.group(2)), re.escape(m.group(2))),
                                          ins[i - 1])
                if re.match(r"call\s+[0-9a-f]+ <[^>]*\.pi_inner>$", l):
                    inner += 1
                    counted += any(re.match(r"incq\s+%s\(%%r11\)$" % calls_off, x) for x in ins[max(0, i - 6):i])
            if not counters or not kept or not inner or counted:
                raise Fail("%d block counters, %d through a kept register; %d calls past an entry stub, %d "
                           "counting the call" % (counters, kept, inner, counted))
            got = {}
            for mode in ("--counts", "--timed"):
                if mode == "--timed":
                    exe = os.path.join(tmp, "wf-timed")
                    must([ctx.profinst, "-q", mode, "--cpu=instructions"] + objs + ["-o", exe], "profinst")
                pf = os.path.join(tmp, mode + ".pf")
                p = subprocess.run([exe, "20000"], env=dict(os.environ, PROFINST_OUTPUT=pf), cwd=tmp,
                                   capture_output=True)
                got[mode] = (p.returncode, p.stdout, rows(ctx, must, pf))
            if got["--counts"] != got["--timed"] or not got["--timed"][2]:
                raise Fail("--counts and --timed disagree")
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    def fork():
        """A fork's child counts its own calls only; the parent keeps its."""
        tmp = tempfile.mkdtemp(prefix="pi-counting-fork-")
        try:
            with open(os.path.join(tmp, "fk.c"), "w") as f:
                f.write(FORK_C)
            obj, exe = os.path.join(tmp, "fk.o"), os.path.join(tmp, "fk")
            must(["gcc", "-O2", "-c", os.path.join(tmp, "fk.c"), "-o", obj], "compile")
            must([ctx.profinst, "-q", "--counts", "--cpu=instructions", obj, "-o", exe], "profinst")
            p = subprocess.run([exe], env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "p.%p")),
                               capture_output=True, text=True)
            if p.returncode:
                raise Fail("status %d" % p.returncode)
            calls = {}
            for pf in glob.glob(os.path.join(tmp, "p.*")):
                pj = json.loads(must([ctx.profview, "report", pf, "--format=json"], "report").stdout)
                who = "child" if pj["process"]["fork_gen"] else "parent"
                calls[who] = {f["name"]: f["calls"] for f in pj["functions"] if f["name"] == "work"}
            if calls != {"parent": {"work": 2}, "child": {"work": 1}}:
                raise Fail("work's calls: %r" % calls)
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    out = [("counting/left_as_it_was", left_as_it_was), ("counting/two_objects", two_objects),
           ("counting/lean_stubs", lean_stubs),
           ("counting/pointers", pointers), ("counting/fork", fork)]
    for f in cpaths.comparable_programs(directives):
        base = f.rsplit(".", 1)[0]
        out.append(("counting/%s" % base,
                    lambda f=f, base=base: case(os.path.join(E2E, f), NOT_YET.get(base, "same"))))
    return out
