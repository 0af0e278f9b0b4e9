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
import subprocess
import tempfile

import maps
import oracle

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(HERE, "shlib")

BUILDS = [("gcc", "-O0"), ("gcc", "-O2"), ("clang", "-O0"), ("clang", "-O2")]


def tests(ctx, Fail, sh, must, profile_json, compare_counts, object_functions):
    def build(tmp, cc, opt, dlopen, plain=False):
        """(native program, instrumented program, args, objects, native .so);
        plain: the second program is the native one's link, with the
        instrumented shared object (which brings the shared runtime)"""
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
        link = [cc] if plain else [ctx.profinst, "--cpu=instructions"]
        if dlopen:
            must([cc, main, "-o", native, "-no-pie", "-rdynamic", "-ldl", "-lpthread"], "native link")
            must(link + [main, "-o", prof, "-rdynamic", "-ldl", "-lpthread"], "program's link")
            return native, prof, [nso], [pso], objs + ([] if plain else [main]), nso
        for exe, d in ((native, "native"), (prof, "prof")):
            lib = ["-L" + os.path.join(tmp, d), "-lshl", "-Wl,-rpath," + os.path.join(tmp, d), "-lpthread"]
            if d == "native":
                must([cc, main, "-o", exe, "-no-pie"] + lib, "native link")
            else:
                must(link + [main, "-o", exe] + lib, "program's link")
        return native, prof, [], [], objs + ([] if plain else [main]), nso

    def one(cc, opt, dlopen, plain=False):
        tmp = tempfile.mkdtemp(prefix="pi-shlib-")
        try:
            native, prof, nargs, pargs, objs, nso = build(tmp, cc, opt, dlopen, plain)
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
                if plain and name == "prog_helper":
                    # the program's, not instrumented: outside, measured
                    ext = [f for f in pj["functions"] if f["name"] == "<external:prog_helper>"]
                    if not ext or ext[0]["calls"] != 40:
                        raise Fail("<external:prog_helper>: %r" % ext)
                elif objects.get(name) != obj:
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

    def by_reference():
        """The shared object's maps stay in it (a SHLIB record: its build
        id and path), as the program's stay in the program: the profile
        reads as a self-contained one does, in a fraction of its size;
        the object built again is refused, naming it; gone, the message
        says what to do, and a packed copy reads as before."""
        tmp = tempfile.mkdtemp(prefix="pi-shlib-")
        try:
            native, prof, _, _, objs, _ = build(tmp, "gcc", "-O2", False)
            ref, full = os.path.join(tmp, "ref.pf"), os.path.join(tmp, "full.pf")
            for out, extra in ((ref, {}), (full, {"PROFINST_SELF_CONTAINED": "1"})):
                must([prof], "run", cwd=tmp, env=dict(os.environ, PROFINST_OUTPUT=out, **extra))
            tags = [t for t, _ in maps.records(ref)]
            if tags.count(maps.TAG_SHLIB) != 1 or tags.count(maps.TAG_IMAGE) != 1 or maps.TAG_OBJECT in tags:
                raise Fail("a profile by reference holds records %r" % tags)
            tf = [t for t, _ in maps.records(full)]
            if maps.TAG_SHLIB in tf or tf.count(maps.TAG_OBJECT) != 3:
                raise Fail("a self-contained profile holds records %r" % tf)
            want = maps.figures(profile_json(ctx, full))
            if maps.figures(profile_json(ctx, ref)) != want:
                raise Fail("the figures differ by reference")
            if not os.path.getsize(ref) * 2 < os.path.getsize(full):
                raise Fail("by reference %d bytes, self-contained %d" % (os.path.getsize(ref), os.path.getsize(full)))
            for cmd in (["annotate", "{}", "shl_work"], ["annotate", "{}", "shl_b_twice", "--disasm"]):
                a, b = (must([ctx.profview] + [p if x == "{}" else x for x in cmd], "profview").stdout
                        for p in (ref, full))
                if a != b or cmd[2] not in a:
                    raise Fail("%s differs between the two profiles" % " ".join(cmd))
            packed = os.path.join(tmp, "packed.pf")
            must([ctx.profview, "pack", ref, "-o", packed], "profview pack")
            so = os.path.join(tmp, "prof", "libshl.so")

            def fails_with(words):
                p = subprocess.run([ctx.profview, "report", ref], capture_output=True, text=True)
                lines = [line for line in p.stderr.splitlines() if line.strip()]
                if p.returncode != 1 or p.stdout or len(lines) != 1 or not all(w in lines[0] for w in words):
                    raise Fail("expected one line naming %r, exit 1; got rc %d, %r" % (words, p.returncode, p.stderr))
            os.rename(so, so + ".old")
            must([ctx.profinst, "--cpu=instructions", "-shared", objs[1], "-o", so], "profinst -shared")
            fails_with([so, "shared object", "build id", "built again"])
            os.unlink(so)
            fails_with([so, "shared object", "cannot be opened", "pack"])
            if maps.figures(profile_json(ctx, packed)) != want:
                raise Fail("the packed profile reads otherwise once the shared object is gone")
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    def exceptions(cxx, plain):
        """C++ exceptions out of the shared object into the program, and
        through it from the program's callback: the program, instrumented
        or not, catches them as natively, and the counts are callgrind's
        (where nothing instrumented catches, the next call from the
        program finds the frames the exception left)."""
        tmp = tempfile.mkdtemp(prefix="pi-shlib-")
        try:
            lib = os.path.join(tmp, "shl_cxx.o")
            main = os.path.join(tmp, "main_cxx.o")
            must([cxx, "-O2", "-fPIC", "-c", os.path.join(SRC, "shl_cxx.cc"), "-o", lib], "compile")
            must([cxx, "-O2", "-c", os.path.join(SRC, "main_cxx.cc"), "-o", main], "compile")
            for d in ("native", "prof"):
                os.mkdir(os.path.join(tmp, d))
            nso, pso = os.path.join(tmp, "native", "libshl.so"), os.path.join(tmp, "prof", "libshl.so")
            must([cxx, "-shared", "-o", nso, lib], "native shared link")
            must([ctx.profinst, "--cpu=instructions", "-shared", lib, "-o", pso], "profinst -shared")
            native, prof = os.path.join(tmp, "main.native"), os.path.join(tmp, "main.prof")
            for exe, d in ((native, "native"), (prof, "prof")):
                args = [main, "-o", exe, "-L" + os.path.join(tmp, d), "-lshl", "-Wl,-rpath," + os.path.join(tmp, d)]
                if d == "native" or plain:
                    must([cxx, "-no-pie"] + args, "link")
                else:
                    must([ctx.profinst, "--cpu=instructions"] + args, "profinst")
            a = sh([native], cwd=tmp)
            b = sh([prof], cwd=tmp, env=dict(os.environ, PROFINST_OUTPUT=os.path.join(tmp, "out.prof")))
            if a.returncode or b.returncode or a.stdout != b.stdout:
                raise Fail("output differs: native %d %r, instrumented %d %r\n%s" % (
                    a.returncode, a.stdout, b.returncode, b.stdout, b.stderr[-1500:]))
            pj = profile_json(ctx, os.path.join(tmp, "out.prof"))
            cgout = os.path.join(tmp, "cg.out")
            oracle.run_callgrind(native, [], cgout, cwd=tmp)
            cg = oracle.attribute(native, cgout)
            cg.update(oracle.attribute_shared(nso, cgout))
            compare_counts(pj, cg, object_functions([lib] + ([] if plain else [main])),
                           canon=oracle.aliases(native))
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    t = [("shlib/by_reference", by_reference)]
    for cxx in ("g++", "clang++"):
        t.append(("shlib/exceptions[%s -O2]" % cxx, lambda cxx=cxx: exceptions(cxx, False)))
        t.append(("shlib/plain_program_exceptions[%s -O2]" % cxx, lambda cxx=cxx: exceptions(cxx, True)))
    for cc, opt in BUILDS:
        for dl in (False, True):
            t.append(("shlib/%s[%s %s]" % ("dlopen" if dl else "linked", cc, opt),
                      lambda cc=cc, opt=opt, dl=dl: one(cc, opt, dl)))
    for cc in ("gcc", "clang"):
        for dl in (False, True):
            t.append(("shlib/plain_program_%s[%s -O2]" % ("dlopen" if dl else "linked", cc),
                      lambda cc=cc, dl=dl: one(cc, "-O2", dl, plain=True)))
    t.append(("shlib/refusals", refusals))
    return t
