"""profinst as a compiler (rewriter/wrapper.h): `make CC="profinst cc"`,
CMake's CMAKE_C_LINKER_LAUNCHER, a compile-and-link in one command, C++,
and the commands it must leave as they are."""
import os
import shutil
import tempfile

LIB_C = "int twice(int x) { return 2 * x; }\nint thrice(int x) { return 3 * x; }\n"
MAIN_C = ("#include <stdio.h>\nint twice(int); int thrice(int);\n"
          "int main(void) { int s = 0; for (int i = 0; i < 7; i++) s += twice(i) + thrice(i);"
          " printf(\"%d\\n\", s); return 0; }\n")
MAKEFILE = """app: main.o libx.a
\t$(CC) $(CFLAGS) main.o -L. -lx -o app
libx.a: lib.o
\tar rcs $@ $^
%.o: %.c
\t$(CC) $(CFLAGS) -c $< -o $@
"""
# an autotools project: configure runs instrumented probes of the compiler
CONFIGURE_AC = """AC_INIT([probe], [1.0])
AC_PROG_CC
AC_CHECK_FUNCS([memmem strlcpy])
AC_CHECK_SIZEOF([long])
AC_RUN_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>]], [[puts("probe"); return 0;]])], [],
  [AC_MSG_ERROR([cannot run a test program])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
"""
MAKEFILE_IN = """CC = @CC@
CFLAGS = @CFLAGS@
app: main.o libx.a
\t$(CC) $(CFLAGS) main.o -L. -lx -o app
libx.a: lib.o
\tar rcs $@ $^
%.o: %.c
\t$(CC) $(CFLAGS) -c $< -o $@
"""
CMAKE = """cmake_minimum_required(VERSION 3.21)
project(demo C)
add_library(x STATIC lib.c)
add_executable(app main.c)
target_link_libraries(app x)
"""
CXX = """#include <iostream>
#include <map>
static int sq(int x) { return x * x; }
int main() {
  std::map<int, int> m;
  for (int i = 0; i < 50; i++) m[i] = sq(i);
  long s = 0;
  for (auto &kv : m) s += kv.second;
  std::cout << s << "\\n";
  return 0;
}
"""


def tests(ctx, Fail, sh, must, profile_json):
    def project(tmp):
        for name, text in (("lib.c", LIB_C), ("main.c", MAIN_C), ("Makefile", MAKEFILE),
                           ("CMakeLists.txt", CMAKE)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)

    def run_and_check(tmp, exe, want):
        pf = os.path.join(tmp, "p.pf")
        p = must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=pf), cwd=tmp)
        if p.stdout != "105\n":  # 5 * (0 + 1 + ... + 6)
            raise Fail("%s printed %r" % (exe, p.stdout))
        calls = {f["name"]: (f["calls"], f["object"]) for f in profile_json(ctx, pf)["functions"]}
        if calls != want:
            raise Fail("profile functions %r, expected %r" % (calls, want))

    def plain_object(path):
        """A compile step's object is the compiler's, not instrumented."""
        out = must(["readelf", "-S", path], "readelf").stdout
        if "profinst" in out:
            raise Fail("%s was instrumented by a compile step" % path)

    def make(tmp):
        project(tmp)
        must(["make", "-C", tmp, "CC=%s --cpu=instructions cc" % ctx.profinst, "CFLAGS=-O1"], "make")
        plain_object(os.path.join(tmp, "main.o"))
        run_and_check(tmp, os.path.join(tmp, "app"),
                      {"main": (1, "main.o"), "twice": (7, "libx.a(lib.o)"), "thrice": (7, "libx.a(lib.o)"),
                       "<external:printf>": (1, "main.o")})

    def configure(tmp):
        """./configure with CC="profinst cc": its probes run instrumented
        and leave no profile in the tree; the program it builds writes its
        own."""
        project(tmp)
        os.remove(os.path.join(tmp, "Makefile"))
        for name, text in (("configure.ac", CONFIGURE_AC), ("Makefile.in", MAKEFILE_IN)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        must(["autoconf"], "autoconf", cwd=tmp)
        must(["./configure", "CC=%s --cpu=instructions cc" % ctx.profinst, "CFLAGS=-O1"], "configure", cwd=tmp)
        # its probes ran, and were instrumented
        log = open(os.path.join(tmp, "config.log")).read()
        if "./conftest" not in log:
            raise Fail("configure ran no test program:\n" + log[-1500:])
        left = [f for f in os.listdir(tmp) if f.startswith("profinst.out")]
        if left:
            raise Fail("configure left profiles in the build tree: %r" % left)
        must(["make", "-C", tmp], "make")
        p = must([os.path.join(tmp, "app")], "run app", cwd=tmp)
        made = [f for f in os.listdir(tmp) if f.startswith("profinst.out")]
        if p.stdout != "105\n" or len(made) != 1:
            raise Fail("the configured program printed %r and left %r" % (p.stdout, made))

    def cmake(tmp):
        project(tmp)
        b = os.path.join(tmp, "build")
        must(["cmake", "-S", tmp, "-B", b, "-DCMAKE_BUILD_TYPE=Release",
              "-DCMAKE_C_LINKER_LAUNCHER=%s;--cpu=instructions" % ctx.profinst], "cmake configure")
        must(["cmake", "--build", b], "cmake --build")
        run_and_check(tmp, os.path.join(b, "app"),
                      {"main": (1, "main.c.o"), "twice": (7, "libx.a(lib.c.o)"),
                       "thrice": (7, "libx.a(lib.c.o)"), "<external:printf>": (1, "main.c.o")})

    def one_step(tmp):
        """Sources on the link's command line, with compile flags that take
        an operand (-D X, -I DIR) and link flags (-l m, -Wl,...)."""
        project(tmp)
        exe = os.path.join(tmp, "app")
        must([ctx.profinst, "--cpu=instructions", "gcc", "-O1", "-D", "UNUSED=1", "-I", tmp,
              os.path.join(tmp, "main.c"), os.path.join(tmp, "lib.c"), "-o", exe, "-l", "m",
              "-Wl,--as-needed"], "profinst gcc sources -o app")
        run_and_check(tmp, exe, {"main": (1, "main.o"), "twice": (7, "lib.o"), "thrice": (7, "lib.o"),
                                 "<external:printf>": (1, "main.o")})
        # a compile error is the compiler's: its message, its status
        with open(os.path.join(tmp, "bad.c"), "w") as f:
            f.write("int main(void) { return undeclared; }\n")
        p = sh([ctx.profinst, "cc", os.path.join(tmp, "bad.c"), "-o", os.path.join(tmp, "bad")])
        if p.returncode == 0 or "undeclared" not in p.stderr or os.path.exists(os.path.join(tmp, "bad")):
            raise Fail("profinst cc on a bad source: status %d, stderr %r" % (p.returncode, p.stderr))

    def cxx(tmp):
        src = os.path.join(tmp, "m.cc")
        with open(src, "w") as f:
            f.write(CXX)
        exe = os.path.join(tmp, "m")
        must([ctx.profinst, "--cpu=instructions", "g++", "-O1", src, "-o", exe], "profinst g++")
        pf = os.path.join(tmp, "p.pf")
        p = must([exe], "run", env=dict(os.environ, PROFINST_OUTPUT=pf), cwd=tmp)
        if p.stdout != "40425\n":  # 0^2 + ... + 49^2
            raise Fail("the C++ program printed %r" % p.stdout)
        fs = {f["name"]: f["calls"] for f in profile_json(ctx, pf)["functions"]}
        if fs.get("main") != 1 or not any(n.startswith("std::") and c for n, c in fs.items()):
            raise Fail("C++ profile: %r" % fs)

    def as_is(tmp):
        """Commands that do not link an executable are the compiler's own."""
        project(tmp)
        lib = os.path.join(tmp, "lib.c")
        for args in (["--version"], ["-dumpmachine"], ["-E", lib], ["-S", lib, "-o", os.path.join(tmp, "l.s")]):
            a, b = sh(["cc"] + args, cwd=tmp), sh([ctx.profinst, "cc"] + args, cwd=tmp)
            if (a.returncode, a.stdout) != (b.returncode, b.stdout):
                raise Fail("profinst cc %s: status %d, %r; cc: %d, %r" % (
                    " ".join(args), b.returncode, b.stdout[:200], a.returncode, a.stdout[:200]))
        obj = os.path.join(tmp, "lib.o")
        must([ctx.profinst, "cc", "-O2", "-c", lib, "-o", obj], "profinst cc -c")
        plain_object(obj)
        # a shared object for a timed build: the counting runtime's only
        so = os.path.join(tmp, "libx.so")
        p = must([ctx.profinst, "--timed", "cc", "-shared", "-fPIC", lib, "-o", so], "profinst --timed cc -shared")
        if "counting runtime only" not in p.stderr:
            raise Fail("profinst --timed cc -shared: no warning: %r" % p.stderr)
        plain_object(so)
        # profinst's own -o before the compiler: refused, with a reason
        p = sh([ctx.profinst, "-o", "x", "cc", lib])
        if p.returncode != 2 or "before a compiler" not in p.stderr:
            raise Fail("profinst -o x cc: status %d, %r" % (p.returncode, p.stderr))

    def shared(tmp):
        """A build's shared object is instrumented too (-shared), and a
        program linked with it (-L. -lx) has its functions, called
        through the PLT, in its profile."""
        project(tmp)
        lib = os.path.join(tmp, "lib.c")
        must([ctx.profinst, "--cpu=instructions", "cc", "-O1", "-shared", "-fPIC", lib, "-o",
              os.path.join(tmp, "libx.so")], "profinst cc -shared")
        if "profinst_map" not in must(["readelf", "-S", os.path.join(tmp, "libx.so")], "readelf").stdout:
            raise Fail("profinst cc -shared left the shared object as it was")
        must([ctx.profinst, "--cpu=instructions", "cc", "-O1", os.path.join(tmp, "main.c"), "-L" + tmp, "-lx",
              "-Wl,-rpath," + tmp, "-o", os.path.join(tmp, "app")], "profinst cc (with -lx)")
        run_and_check(tmp, os.path.join(tmp, "app"),
                      {"main": (1, "main.o"), "twice": (7, "lib.o"), "thrice": (7, "lib.o"),
                       "<external:printf>": (1, "main.o")})

    def in_tmp(fn):
        def run():
            tmp = tempfile.mkdtemp(prefix="pi-wrap-")
            try:
                fn(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return run

    return [("wrapper/make", in_tmp(make)), ("wrapper/configure", in_tmp(configure)), ("wrapper/cmake_linker_launcher", in_tmp(cmake)),
            ("wrapper/one_step", in_tmp(one_step)), ("wrapper/cxx", in_tmp(cxx)), ("wrapper/as_is", in_tmp(as_is)),
            ("wrapper/shared", in_tmp(shared))]
