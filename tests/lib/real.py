"""Real archives from Debian's packages, each linked whole (every member,
with --whole-archive) with a small driver from tests/real, instrumented
and compared with the native program and with callgrind.

Some libraries are not deterministic natively (Lua seeds its string hash
from the time and from addresses; OpenSSL's AES picks a path by the stack's
address): callgrind runs twice, the instrumented program runs again with
other addresses and environment sizes, and the counts are compared exactly
on the functions whose counts agree across all those runs."""
import os
import shutil
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBDIR = "/usr/lib/x86_64-linux-gnu"

# Instrumented reruns (ASLR gives each a new hash seed) to find the
# functions whose counts vary natively; a rare variation needs many.
RERUNS = 12

CASES = [
    # name, driver, archive, cflags, extra libs
    ("zlib", "zlib_driver.c", "libz.a", [], []),
    ("sqlite3", "sqlite_driver.c", "libsqlite3.a", [], ["-lm", "-ldl", "-lpthread"]),
    ("lua5.4", "lua_driver.c", "liblua5.4.a", ["-I/usr/include/lua5.4"], ["-lm", "-ldl"]),
    ("bzip2", "bzip2_driver.c", "libbz2.a", [], []),
    ("crypto", "crypto_driver.c", "libcrypto.a", [], ["-lpthread", "-ldl"]),
    # C++: the standard library itself, statically (members as needed:
    # linked whole it would clash with the shared one the driver adds)
    ("libstdc++", "cxx_driver.cc", "/usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.a", [], []),
]
NOT_WHOLE = {"libstdc++"}

# OpenSSL chooses its code by CPUID, which valgrind answers differently:
# pin the choice (no extensions) for both sides.
ENV = {"crypto": {"OPENSSL_ia32cap": "0:0"}}
# Functions whose path depends on where things are in memory, which under
# valgrind (its own malloc) differs from any native run: OpenSSL's AES
# (aes-x86_64) picks its stack frame by the key schedule's address.
LAYOUT_DEPENDENT = {"crypto": {"AES_cbc_encrypt", "AES_encrypt", "AES_decrypt"},
                    # Lua's cache of C strings is indexed by the string's
                    # address (lstring.c, luaS_new): which literals share a
                    # slot, and so how often luaS_newlstr runs, is the
                    # binary's layout, another in the instrumented program;
                    # and a table's traversal (luaH_next) skips the empty
                    # slots its keys' hashes leave, whose seed mixes the
                    # addresses of a local and of a function with the time
                    # (lstate.c, luai_makeseed): the reruns below miss its
                    # rare variation now and then (2 instructions of 619)
                    "lua5.4": {"luaS_new", "luaS_newlstr", "luaH_next"},
                    # the unwinder decodes the LSDA's call-site table, whose
                    # ULEB128 offsets are the new code's: the larger code
                    # of --counts takes more bytes, so more turns of the
                    # decoding loop than natively
                    "libstdc++": {"_ZL28read_encoded_value_with_basehmPKhPm"}}
# the same, only where the code's layout is --counts's
LAYOUT_DEPENDENT_COUNTS = {"libstdc++"}
# Warnings profinst is expected to give (a VIA PadLock instruction Zydis
# does not know, in a function never run here; RC4_options returns the
# address of a string kept inside its own code).
WARNINGS = {"crypto": ["padlock_sha512_blocks", "RC4_options"]}


def by_symbol(pj):
    return {f["symbol"]: (f["self_cycles"], f["calls"]) for f in pj["functions"]}


def tests(ctx, Fail, sh, must, run_pair, profile_json, compare_counts, object_functions, check_callgraph):
    import oracle

    def case(name, driver, archive, cflags, libs):
        ar = os.path.join(LIBDIR, archive)  # (or the absolute path given)
        if not os.path.exists(ar):
            raise Fail("%s is not installed (scripts/bootstrap.sh installs it)" % ar)
        tmp = tempfile.mkdtemp(prefix="pi-real-%s-" % name)
        try:
            obj = os.path.join(tmp, "driver.o")
            cc = "g++" if driver.endswith(".cc") else "gcc"
            must([cc, "-O2", "-c", os.path.join(HERE, "real", driver), "-o", obj] + cflags, "compile driver")
            whole = [ar] if name in NOT_WHOLE else ["-Wl,--whole-archive", ar, "-Wl,--no-whole-archive"]
            native = os.path.join(tmp, "native")
            # no PIE: callgrind reports run-time addresses, nm link-time ones
            must([cc, obj] + whole + libs + ["-o", native, "-no-pie"], "native link")
            prof_exe = os.path.join(tmp, "prof")
            p = must([ctx.profinst, "--cpu=instructions", obj] + whole + libs + ["-o", prof_exe], "profinst")
            warns = [l for l in p.stderr.splitlines() if l.strip()]
            expected = WARNINGS.get(name, [])
            if len(warns) != len(expected) or not all(any(e in l for l in warns) for e in expected):
                raise Fail("profinst warned:\n" + p.stderr[-2000:])
            env = dict(os.environ, **ENV.get(name, {}))
            prof, _ = run_pair(ctx, tmp, native, prof_exe, [], env_extra=ENV.get(name))
            pj = profile_json(ctx, prof)
            check_callgraph(ctx, prof)
            # Under valgrind the address layout is fixed, so its runs differ
            # only by the clock: space them out, and also run the (ASLR)
            # instrumented program again, to find what varies natively.
            runs = []
            for i in range(2):
                if i:
                    time.sleep(1.1)
                out = os.path.join(tmp, "cg.%d" % i)
                oracle.run_callgrind(native, [], out, cwd=tmp, env=env)
                runs.append(oracle.attribute(native, out))
            ours = object_functions([obj, ar])
            ignore = set(LAYOUT_DEPENDENT.get(name, ()))
            for w in expected:  # functions left uninstrumented are not counted
                ignore |= {f for f in ours if f == w}
            unstable = {f for f in set(runs[0]) | set(runs[1]) if runs[0].get(f) != runs[1].get(f)}
            prof_runs = [by_symbol(pj)]
            for i in range(RERUNS):
                # a different environment size moves the stack: some code
                # (OpenSSL's AES) picks its path by stack address
                extra = dict(ENV.get(name, {}), PROFINST_TEST_PAD="x" * (i * 24))
                prof2, _ = run_pair(ctx, tmp, native, prof_exe, [], env_extra=extra)
                prof_runs.append(by_symbol(profile_json(ctx, prof2)))
            for r in prof_runs[1:]:
                unstable |= {f for f in set(r) | set(prof_runs[0]) if r.get(f) != prof_runs[0].get(f)}
            if len(unstable) > len(ours) // 10:
                raise Fail("%d functions differ between two native runs" % len(unstable))
            canon = oracle.aliases(native)
            compare_counts(pj, runs[0], ours, ignore={canon.get(n, n) for n in unstable | ignore}, canon=canon)
            # the timed runtime (--timed) gives the same exact counts
            counts_only = set(LAYOUT_DEPENDENT.get(name, ())) if name in LAYOUT_DEPENDENT_COUNTS else set()
            tm_exe = os.path.join(tmp, "timed")
            must([ctx.profinst, "--cpu=instructions", "--timed", obj] + whole + libs + ["-o", tm_exe],
                 "profinst --timed")
            tm, _ = run_pair(ctx, tmp, native, tm_exe, [], env_extra=ENV.get(name))
            compare_counts(profile_json(ctx, tm), runs[0], ours,
                           ignore={canon.get(n, n) for n in (unstable | ignore) - counts_only}, canon=canon)
            # the simulations' stubs (a stub before every conditional
            # jump, and before the loads that wait for loads) change
            # nothing the program sees: the same output, the same calls
            sim_exe = os.path.join(tmp, "sim")
            must([ctx.profinst, "--cpu=zen5", "--branch-sim", "--cache-sim", obj] + whole + libs + ["-o", sim_exe],
                 "profinst --branch-sim --cache-sim")
            sim, _ = run_pair(ctx, tmp, native, sim_exe, [], env_extra=ENV.get(name))
            sim_calls = {f["symbol"]: f["calls"] for f in profile_json(ctx, sim)["functions"]}
            for f, (_, calls) in prof_runs[0].items():
                if f not in unstable and f not in ignore and sim_calls.get(f) != calls:
                    raise Fail("under --branch-sim --cache-sim %s is called %r times, %d without"
                               % (f, sim_calls.get(f), calls))
            if name == "bzip2":
                # generateMTFValues' steps are independent: j = ptr[i] - 1
                # (+ nblock, read before the loop) must not join the loop's
                # loads into one class, each step waiting for the one
                # before through block[j] (rewriter/chase.c): it waited
                # 2.7 times its blocks' cycles so, 0.3 times since
                cs_exe = os.path.join(tmp, "csim")
                must([ctx.profinst, "--cpu=zen5", "--cache-sim", obj] + whole + libs + ["-o", cs_exe],
                     "profinst --cache-sim")
                cs, _ = run_pair(ctx, tmp, native, cs_exe, [], env_extra=ENV.get(name))
                mtf = [f for f in profile_json(ctx, cs)["functions"] if f["symbol"] == "generateMTFValues"]
                if not mtf or mtf[0]["self_cycles"] - mtf[0]["block_cycles"] > mtf[0]["block_cycles"]:
                    raise Fail("under --cache-sim generateMTFValues waited %s cycles beyond its blocks' %s"
                               % (mtf and mtf[0]["self_cycles"] - mtf[0]["block_cycles"],
                                  mtf and mtf[0]["block_cycles"]))
        finally:
            if not ctx.keep:
                shutil.rmtree(tmp, ignore_errors=True)

    return [("real/%s" % c[0], lambda c=c: case(*c)) for c in CASES]
