"""Calls through a pointer out of instrumented code, under a cycle model:
a shared library's function (memset, through a pointer the compiler
cannot see through) and code made at run time (a JIT's stand-in in an
anonymous executable mapping) are rows of their own under their callers,
with their calls counted exactly and their time measured (charged, in
the row or in its caller's OS column)."""
import os
import shutil
import tempfile

SRC = r'''
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

void *(*volatile fill)(void *, int, size_t) = memset;
static char buf[1 << 16];

__attribute__((noinline)) long filler(void)
{
	long s = 0;
	for (int i = 0; i < 200; i++) {
		fill(buf, i, sizeof(buf));
		s += buf[i];
	}
	return s;
}

/* mov %edi,%eax; mov $10000,%ecx; 1: add $1,%eax; dec %ecx; jnz 1b; ret */
static const unsigned char code[] = {0x89, 0xf8, 0xb9, 0x10, 0x27, 0x00, 0x00, 0x83, 0xc0,
				     0x01, 0xff, 0xc9, 0x75, 0xf9, 0xc3};

__attribute__((noinline)) long jitted(int (*f)(int))
{
	long s = 0;
	for (int i = 0; i < 300; i++)
		s += f(i);
	return s;
}

int main(void)
{
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	memcpy(m, code, sizeof(code));
	if (mprotect(m, 4096, PROT_READ | PROT_EXEC))
		return 1;
	printf("%ld %ld\n", filler(), jitted((int (*)(int))m));
	return 0;
}
'''


def tests(ctx, Fail, sh, must, profile_json):
    def timed():
        tmp = tempfile.mkdtemp(prefix="pi-indirect-")
        try:
            src = os.path.join(tmp, "ind.c")
            with open(src, "w") as f:
                f.write(SRC)
            obj = os.path.join(tmp, "ind.o")
            must(["gcc", "-O2", "-c", src, "-o", obj], "compile")
            native = os.path.join(tmp, "native")
            must(["gcc", obj, "-o", native], "link native")
            exe = os.path.join(tmp, "ind.prof")
            must([ctx.profinst, "--cpu=goldencove", obj, "-o", exe], "profinst")
            prof = os.path.join(tmp, "p.prof")
            a = sh([native], cwd=tmp)
            b = sh([exe], cwd=tmp, env=dict(os.environ, PROFINST_OUTPUT=prof))
            if (a.returncode, a.stdout) != (b.returncode, b.stdout):
                raise Fail("native %r %r, instrumented %r %r" % (a.returncode, a.stdout, b.returncode, b.stdout))
            pj = profile_json(ctx, prof)
            fn = {f["name"]: f for f in pj["functions"]}
            for row, calls, caller in (("<external:memset>", 200, "filler"), ("<unknown>", 300, "jitted")):
                if row not in fn:
                    raise Fail("no %s in the profile: %r" % (row, sorted(fn)))
                f = fn[row]
                if not f["external"] or f["calls"] != calls:
                    raise Fail("%s: external=%r calls=%d, want %d" % (row, f["external"], f["calls"], calls))
                if [c["name"] for c in f["callers"]] != [caller]:
                    raise Fail("%s's callers %r" % (row, f["callers"]))
                # measured and charged: 200 fills of 64 KiB, 300 loops of
                # 10 000 iterations (3 M cycles at least)
                measured = f["self_cycles"] + fn[caller]["os_cycles"]
                least = 200 * 1000 if row != "<unknown>" else 300 * 10000
                if measured < least:
                    raise Fail("%s: %d cycles measured (row's self %d, %s's OS %d), want >= %d" % (
                        row, measured, f["self_cycles"], caller, fn[caller]["os_cycles"], least))
            if sum(f["self_cycles"] for f in pj["functions"]) != pj["total_cycles"]:
                raise Fail("the rows' self does not add up to the total")
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    return [("indirect/timed", timed)]
