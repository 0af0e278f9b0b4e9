"""A program's own shared object, instrumented (profinst -shared): linked
with the program, and loaded by dlopen.  The program's output is the
native one's; the profile has the functions of both images, each with
the self count and the calls callgrind gives for the native program and
shared object (--skip-plt=no: a call through the PLT is the callee's);
calls go both ways (the program's to the object's, the object's to a
function the program defines), through pointers (a callback into the
program, dlsym's addresses), and from the C library (qsort's comparison,
the object's).  And what -shared refuses."""
import os
import shutil
import tempfile

import oracle

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(HERE, "shlib")

BUILDS = [("gcc", "-O0"), ("gcc", "-O2"), ("clang", "-O0"), ("clang", "-O2")]


def tests(ctx, Fail, sh, must, profile_json, compare_counts, object_functions):
    def build(tmp, cc, opt, dlopen):
        """(native program, instrumented program, args, objects, native .so)"""
        objs = []
        for name in ("shl_a", "shl_b"):
            o = os.path.join(tmp, name + ".o")
            must([cc, opt, "-fPIC", "-c", os.path.join(SRC, name + ".c"), "-o", o], "compile")
            objs.append(o)
        for d in ("native", "prof"):
            os.mkdir(os.path.join(tmp, d))
        nso = os.path.join(tmp, "native", "libshl.so")
        pso = os.path.join(tmp, "prof", "libshl.so")
        must([cc, "-shared", "-o", nso] + objs, "native shared link")
        p = must([ctx.profinst, "--cpu=instructions", "-shared"] + objs + ["-o", pso], "profinst -shared")
        if p.stderr.strip():
            raise Fail("profinst -shared said:\n" + p.stderr)
        main = os.path.join(tmp, "main.o")
        must([cc, opt, "-c", os.path.join(SRC, "main.c"), "-o", main] + (["-DDLOPEN"] if dlopen else []),
             "compile")
        native = os.path.join(tmp, "main.native")
        prof = os.path.join(tmp, "main.prof")
        if dlopen:
            must([cc, main, "-o", native, "-no-pie", "-rdynamic", "-ldl", "-lpthread"], "native link")
            must([ctx.profinst, "--cpu=instructions", main, "-o", prof, "-rdynamic", "-ldl", "-lpthread"], "profinst")
            return native, prof, [nso], [pso], objs + [main], nso
        for exe, d in ((native, "native"), (prof, "prof")):
            lib = ["-L" + os.path.join(tmp, d), "-lshl", "-Wl,-rpath," + os.path.join(tmp, d), "-lpthread"]
            if d == "native":
                must([cc, main, "-o", exe, "-no-pie"] + lib, "native link")
            else:
                must([ctx.profinst, "--cpu=instructions", main, "-o", exe] + lib, "profinst")
        return native, prof, [], [], objs + [main], nso

    def one(cc, opt, dlopen):
        tmp = tempfile.mkdtemp(prefix="pi-shlib-")
        try:
            native, prof, nargs, pargs, objs, nso = build(tmp, cc, opt, dlopen)
            a = sh([native] + nargs, cwd=tmp)
            penv = dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "out.prof"))
            b = sh([prof] + pargs, cwd=tmp, env=penv)
            if a.returncode or b.returncode or a.stdout != b.stdout:
                raise Fail("output differs: native %d %r, instrumented %d %r\n%s" % (
                    a.returncode, a.stdout, b.returncode, b.stdout, b.stderr[-1500:]))
            if b.stderr.strip():
                raise Fail("the instrumented program said:\n" + b.stderr[-1500:])
            pj = profile_json(ctx, os.path.join(tmp, "out.prof"))
            cgout = os.path.join(tmp, "cg.out")
            oracle.run_callgrind(native, nargs, cgout, cwd=tmp)
            cg = oracle.attribute(native, cgout)
            cg.update(oracle.attribute_shared(nso, cgout))
            ours = object_functions(objs)
            compare_counts(pj, cg, ours, canon=oracle.aliases(native))
            # each image's functions are there, under the object that has them
            objects = {f["name"]: f.get("object") for f in pj["functions"]}
            for name, obj in (("shl_work", "shl_a.o"), ("shl_b_mix", "shl_b.o"), ("prog_helper", "main.o")):
                if objects.get(name) != obj:
                    raise Fail("%s: object %r, not %s" % (name, objects.get(name), obj))
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    def refusals():
        tmp = tempfile.mkdtemp(prefix="pi-shlib-")
        try:
            o = os.path.join(tmp, "shl_b.o")
            must(["cc", "-O2", "-fPIC", "-c", os.path.join(SRC, "shl_b.c"), "-o", o], "compile")
            for extra, want in ((["--timed"], "counting runtime"), (["-c"], "-shared and -c")):
                p = sh([ctx.profinst, "-shared", o, "-o", os.path.join(tmp, "x.so")] + extra)
                if p.returncode != 2 or want not in p.stderr:
                    raise Fail("profinst -shared %s: status %d, %r" % (" ".join(extra), p.returncode, p.stderr))
                if os.path.exists(os.path.join(tmp, "x.so")):
                    raise Fail("a refused -shared left its output")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    t = []
    for cc, opt in BUILDS:
        for dl in (False, True):
            t.append(("shlib/%s[%s %s]" % ("dlopen" if dl else "linked", cc, opt),
                      lambda cc=cc, opt=opt, dl=dl: one(cc, opt, dl)))
    t.append(("shlib/refusals", refusals))
    return t
