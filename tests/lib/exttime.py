"""Library and OS time (os/050-052): an external's measured time is its own
row's self, callbacks left out, so that qsort's row comes near native
qsort's own time; C library functions every model costs give the same
profile run after run; waits are left out unless --charge-waits."""
import os
import re
import shutil
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CPUS = ("skylake", "icelake", "goldencove", "zen3", "zen5")


def tests(ctx, Fail, sh, must, profile_json):
    def compile_(tmp, name, libs=()):
        obj = os.path.join(tmp, name + ".o")
        must(["gcc", "-O2", "-c", os.path.join(HERE, "os", name + ".c"), "-o", obj], "compile")
        native = os.path.join(tmp, name)
        must(["gcc", obj, "-o", native] + list(libs), "link native")
        return obj, native

    def instrument(tmp, obj, out, args, libs=()):
        exe = os.path.join(tmp, out)
        must([ctx.profinst] + list(args) + [obj, "-o", exe] + list(libs), "profinst")
        return exe

    def run_prof(exe, pf, argv=()):
        r = sh([exe] + list(argv), env=dict(os.environ, PROFINST_OUTPUT=pf))
        if r.returncode:
            raise Fail("%s exited with %d: %s" % (exe, r.returncode, r.stderr[-500:]))
        pj = profile_json(ctx, pf)
        return r.stdout, pj, {f["name"]: f for f in pj["functions"]}

    def qsort_time(extra):
        # qsort of 20,000 ints: its row's self (its measured time,
        # callbacks and the stubs' cost left out) near native
        # qsort's own (qsort timed, less as many comparator calls timed
        # alone); the least of runs taken side by side, in rdtsc ticks, each
        # run's figure the least of its five sorts (the row's min_self;
        # a counted profile's, extra --counts, keeps none: the mean)
        return lambda: qsort_time_in(extra)

    def qsort_time_in(extra):
        tmp = tempfile.mkdtemp(prefix="pi-ext-")
        try:
            obj, native = compile_(tmp, "050_qsort_time")
            exe = instrument(tmp, obj, "q.prof", ["--cpu=zen5"] + list(extra))
            # (a busy machine preempts either side within what it times:
            # up to six rounds of nine pairs, the first within bounds
            # passes; the comparator's checks hold in every run.  With a
            # second job of the suite running beside it, a third of the
            # rounds came out above the bound, with --counts and --timed,
            # fenced clocks or not, and once all three of a run's; callbacks
            # counted in qsort's row put every round above it)
            for rnd in range(6):
                if qsort_round(tmp, native, exe, rnd == 5, extra):
                    break
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def qsort_round(tmp, native, exe, last, extra):
        if True:
            nat, ins, cmp_self = [], [], set()
            measured_runs = 0
            # a counted profile keeps no per-call least: one sort a run
            rounds = 1 if "--counts" in extra else 5
            for i in range(9):
                out = sh([native, "count"]).stdout.split()
                sort, loop, calls = int(out[0]), int(out[1]), int(out[2])
                nat.append(sort - loop)
                _, pj, fn = run_prof(exe, os.path.join(tmp, "p%d.pf" % i), [str(calls), str(rounds)])
                q, c = fn["<external:qsort>"], fn["cmp"]
                # (a run whose start-up probe of the stubs' cost a callback
                # came out high takes more off its quarter of a million
                # callbacks than qsort ran, and its row is 0: seen once in
                # eight runs of the sanitizers' build; most runs measure)
                measured_runs += bool(q["measured"])
                if q["os_cycles"] != q["self_cycles"] or not pj["tsc_per_kcycle"]:
                    raise Fail("<external:qsort>: %r" % q)
                if q["calls"] != rounds:
                    raise Fail("<external:qsort>: %d calls, want %d" % (q["calls"], rounds))
                counted = q["min_self_cycles"] is None
                if counted != ("--counts" in extra):
                    raise Fail("<external:qsort>: min self %r in a profile %s" % (
                        q["min_self_cycles"], "counted" if "--counts" in extra else "timed"))
                least = q["self_cycles"] / q["calls"] if counted else q["min_self_cycles"]
                ins.append(least * pj["tsc_per_kcycle"] / 1000.0)
                # the comparator's modelled cycles: the same every run,
                # and the same a call under qsort as called in a loop
                by = {a["name"]: a for a in c["callers"]}
                under, looped = by["<external:qsort>"], by["cmp_loop"]
                if under["calls"] != rounds * calls or looped["calls"] != rounds * calls or c["measured"]:
                    raise Fail("cmp's callers %r, want %d calls from each" % (c["callers"], rounds * calls))
                if abs(under["incl_cycles"] - looped["incl_cycles"]) > 1:
                    raise Fail("cmp: %d cycles under qsort, %d in a loop, for as many calls"
                               % (under["incl_cycles"], looped["incl_cycles"]))
                cmp_self.add(c["self_cycles"])
            if len(cmp_self) != 1:
                raise Fail("cmp's self differs from run to run: %r" % sorted(cmp_self))
            if measured_runs < 5:
                raise Fail("<external:qsort> measured in %d runs of 9" % measured_runs)
            # Within a factor of three: callbacks' time (a quarter of a
            # million) is out of qsort's row, which without that is 4 to
            # 10 times native qsort's own (a factor of two failed once in
            # nine rounds on a quiet machine: the nine runs' least 2.0
            # times native, their median 2.2).  How close it comes is timing,
            # measured by bench/qsort_external.py: the stubs' own cost,
            # calibrated out, is several times qsort's per-call work, so
            # a few ticks of error per callback move the figure by tens
            # of per cent from one machine (and load) to another.
            # The least of the nine on either side: a busy machine
            # preempts the instrumented run (26 ms a sort, a quarter of a
            # million measured pieces) far more often than the native one
            # (2 ms), and the native loop subtracted from the native sort.
            # Or the instrumented runs' median: each run calibrates the
            # stubs' cost a callback at its own start, and a few ticks too
            # many there, taken off a quarter of a million callbacks, put
            # that run's figure far below the others' (seen: 1.4 M ticks
            # among 2.8 to 6.8 M, native 3.0 M): the least is that run.
            n, m, mid = min(nat), min(ins), sorted(ins)[len(ins) // 2]
            if n / 3.0 <= m <= 3.0 * n or n / 3.0 <= mid <= 3.0 * n:
                return True
            if last:
                raise Fail("<external:qsort>'s self is %.0f ticks (least of %r; median %.0f), native qsort's own "
                           "%.0f (least of %r): not within a factor of three"
                           % (m, [int(x) for x in ins], mid, n, nat))
            return False

    def modelled_libc():
        # only modelled C library functions: the same profile three runs in
        # a row on every model without page faults; with them (zen5), the
        # same but for the faults' own charge
        tmp = tempfile.mkdtemp(prefix="pi-ext-")
        try:
            obj, _ = compile_(tmp, "051_modelled_libc")

            def rows(pj):
                return sorted((f["name"], f["calls"], f["self_cycles"], f["incl_cycles"], f["min_self_cycles"],
                               f["max_self_cycles"], f["os_cycles"], f["measured"]) for f in pj["functions"])
            for cpu in CPUS:
                exe = instrument(tmp, obj, cpu + ".prof", ["--cpu=" + cpu, "--no-page-faults"])
                got = []
                for i in range(3):
                    _, pj, fn = run_prof(exe, os.path.join(tmp, "%s%d.pf" % (cpu, i)))
                    if pj["os_cycles"] or pj["page_faults"]:
                        raise Fail("%s: %d cycles measured, %d faults: %r" % (
                            cpu, pj["os_cycles"], pj["page_faults"],
                            [f["name"] for f in pj["functions"] if f["measured"]]))
                    for name in ("<external:calloc>", "<external:strdup>", "<external:stpcpy>",
                                 "<external:memchr>", "<external:strncpy>", "<external:__ctype_b_loc>",
                                 "<external:strcoll>", "<external:strspn>", "<external:strcspn>",
                                 "<external:strpbrk>",
                                 "<external:__ctype_tolower_loc>", "<external:__errno_location>"):
                        if not fn.get(name, {}).get("self_cycles"):
                            raise Fail("%s: %s costs nothing" % (cpu, name))
                    got.append((pj["total_cycles"], rows(pj)))
                if got[0] != got[1] or got[1] != got[2]:
                    raise Fail("%s: three runs, three profiles: totals %r" % (cpu, [g[0] for g in got]))
            exe = instrument(tmp, obj, "pf.prof", ["--cpu=zen5"])
            cost = 16000  # zen5's page_fault (profinst --describe-cpu)
            net = set()
            for i in range(3):
                _, pj, _ = run_prof(exe, os.path.join(tmp, "pf%d.pf" % i))
                net.add(pj["total_cycles"] - pj["page_faults"] * cost)
            if len(net) != 1:
                raise Fail("with page faults: totals less the faults' charge %r" % sorted(net))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def waits():
        # a contended mutex, a condition, a pipe read, a barrier, a sleep,
        # joins: waited, not charged; charged with --charge-waits; a regular
        # file's read charged either way
        tmp = tempfile.mkdtemp(prefix="pi-ext-")
        try:
            obj, native = compile_(tmp, "052_waits", ["-lpthread"])
            want = sh([native]).stdout
            names = ("<external:pthread_mutex_lock>", "<external:pthread_cond_wait>",
                     "<external:pthread_barrier_wait>", "<external:usleep>")
            for charge in (False, True):
                exe = instrument(tmp, obj, "w%d.prof" % charge, ["--cpu=zen5"] + (["--charge-waits"] if charge else []),
                                 ["-lpthread"])
                out, pj, fn = run_prof(exe, os.path.join(tmp, "w%d.pf" % charge))
                if out != want:
                    raise Fail("printed %r, natively %r" % (out, want))
                rd = fn["<external:read>"]
                for name in names + ("<external:read>",):
                    f = fn[name]
                    big = 10 ** 7  # cycles: 20 ms is some 5 * 10^7
                    if charge and not (f["os_cycles"] >= big and not f["os_left_cycles"] and f["measured"]):
                        raise Fail("--charge-waits: %s %r" % (name, f))
                    if not charge and not (f["os_left_cycles"] >= big and f["wait_cycles"] == f["os_left_cycles"]):
                        raise Fail("%s waited %d cycles: %r" % (name, f["os_left_cycles"], f))
                    if not charge and name != "<external:read>" and (f["self_cycles"] or f["os_cycles"]):
                        raise Fail("%s: a wait charged %r" % (name, f))
                # the file's read is work: charged (the pipe's is not)
                if not rd["os_cycles"] or (not charge and rd["os_cycles"] >= 10 ** 7):
                    raise Fail("read: %r" % rd)
                for w in ("lock_waiter", "cond_waiter", "pipe_reader", "barrier_waiter", "sleeper"):
                    d = fn[w]["incl_cycles"] - fn[w]["self_cycles"]
                    if (d >= 10 ** 7) != charge:
                        raise Fail("%s: %d cycles in what it called%s" % (
                            w, d, " with --charge-waits" if charge else ": a wait charged"))
                if not charge and pj["wait_cycles"] < 6 * 10 ** 7:
                    raise Fail("wait_cycles %d" % pj["wait_cycles"])
                text = must([ctx.profview, "report", os.path.join(tmp, "w%d.pf" % charge)], "report").stdout
                if ("Wait" in text) == charge:
                    raise Fail("the report's Wait column:\n" + text)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def strcoll_locale():
        # strcoll costs the model's C-locale figure (--describe-cpu) a call
        # until the program sets a locale, then is measured; asking which
        # locale is set changes nothing
        tmp = tempfile.mkdtemp(prefix="pi-ext-")
        try:
            obj, native = compile_(tmp, "054_strcoll_locale")
            for cpu in CPUS:
                desc = must([ctx.profinst, "--describe-cpu", "--cpu=" + cpu], "--describe-cpu").stdout
                m = re.search(r"^libc\.strcoll (\d+) a call in the C locale", desc, re.M)
                if not m:
                    raise Fail("%s: --describe-cpu gives no C-locale cost of strcoll:\n%s" % (cpu, desc))
                unit = int(m.group(1))
                exe = instrument(tmp, obj, cpu + ".prof", ["--cpu=" + cpu, "--no-page-faults"])
                for how in ("none", "ask", "set"):
                    want = sh([native, how]).stdout
                    out, pj, fn = run_prof(exe, os.path.join(tmp, "%s-%s.pf" % (cpu, how)), [how])
                    if out != want or out != ("2001\n" if how == "ask" else "2000\n"):
                        raise Fail("%s %s: printed %r, natively %r" % (cpu, how, out, want))
                    by = {c["name"]: c for c in fn["<external:strcoll>"]["callers"]}
                    if by["before"]["calls"] != 1000 or by["after"]["calls"] != 1000:
                        raise Fail("%s %s: strcoll's callers %r" % (cpu, how, by))
                    if by["before"]["incl_cycles"] != 1000 * unit:
                        raise Fail("%s %s: strcoll before any setlocale: %r cycles, want 1000 x %d"
                                   % (cpu, how, by["before"]["incl_cycles"], unit))
                    measured = fn["<external:strcoll>"]["os_cycles"]
                    if how == "set" and not (measured and fn["<external:strcoll>"]["measured"]):
                        raise Fail("%s: strcoll after setlocale not measured: %r" % (cpu, fn["<external:strcoll>"]))
                    if how != "set" and (measured or by["after"]["incl_cycles"] != 1000 * unit):
                        raise Fail("%s %s: strcoll measured (%r), or not the model's after: %r"
                                   % (cpu, how, measured, by["after"]))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def solo(prog, ops, calls, fixed_in, printed):
        # a lock's and unlock's calls cost the model's figure a call while
        # the process has one thread and the lock is a plain one of its
        # own, and are measured otherwise: shared with other processes, or
        # after a thread ran (a lock as a wait, left out); a model without
        # their cost measures them all; in either runtime.  ops: the
        # functions (name, --describe-cpu's words after its cost); calls:
        # by function, its callers' calls; fixed_in: the callers whose
        # calls are costed
        def check():
            tmp = tempfile.mkdtemp(prefix="pi-ext-")
            try:
                obj, native = compile_(tmp, prog, ["-lpthread"])
                want = sh([native]).stdout
                for cpu, mode in (("goldencove", "--counts"), ("goldencove", "--timed"), ("zen3", "--counts"),
                                  ("zen5", "--counts")):
                    desc = must([ctx.profinst, "--describe-cpu", "--cpu=" + cpu], "--describe-cpu").stdout
                    unit = {}
                    for op, words in ops:
                        m = re.search(r"^libc\.%s (\d+) a call %s" % (op, re.escape(words)), desc, re.M)
                        unit[op] = int(m.group(1)) if m else None
                        if (unit[op] is None) != (cpu == "zen5"):
                            raise Fail("%s: --describe-cpu's %s cost %r:\n%s" % (cpu, op, unit[op], desc))
                    exe = instrument(tmp, obj, "%s%s.prof" % (cpu, mode),
                                     ["--cpu=" + cpu, mode, "--no-page-faults"], ["-lpthread"])
                    out, pj, fn = run_prof(exe, os.path.join(tmp, "%s%s.pf" % (cpu, mode)))
                    if out != want or out != printed:
                        raise Fail("%s %s: printed %r, natively %r" % (cpu, mode, out, want))
                    for op, _ in ops:
                        f = fn["<external:%s>" % op]
                        by = {c["name"]: c for c in f["callers"]}
                        got_calls = {n: by[n]["calls"] for n in by}
                        if got_calls != calls[op]:
                            raise Fail("%s %s: %s's callers %r" % (cpu, mode, op, by))
                        lock = not op.endswith("unlock")
                        for n in calls[op]:
                            got = by[n]["incl_cycles"]
                            fixed = unit[op] is not None and n in fixed_in
                            # measured: a lock is a wait (none charged), an
                            # unlock's time is charged
                            if fixed and got != calls[op][n] * unit[op]:
                                raise Fail("%s %s: %s under %s: %r cycles, want %d x %d"
                                           % (cpu, mode, op, n, got, calls[op][n], unit[op]))
                            if not fixed and (got != 0 if lock else got <= 0 or got == calls[op][n] * (unit[op] or 0)):
                                raise Fail("%s %s: %s under %s not measured: %r" % (cpu, mode, op, n, by[n]))
                        if not f["measured"] or not (f["os_left_cycles"] if lock else f["os_cycles"]):
                            raise Fail("%s %s: %s measured nothing: %r" % (cpu, mode, op, f))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return check

    # a recursive mutex too (nested: taken twice, it stays plain)
    mutex_calls = {"solo": 1000, "shared": 1000, "nested": 1001, "after": 1000}
    mutex_solo = solo("055_mutex_solo", [("pthread_mutex_lock", "of a plain mutex"),
                                         ("pthread_mutex_unlock", "of a plain mutex")],
                      {"pthread_mutex_lock": mutex_calls, "pthread_mutex_unlock": mutex_calls},
                      ("solo", "nested"), "4001\n")
    rwlock_solo = solo("057_rwlock_solo", [("pthread_rwlock_rdlock", "of a read-write lock of the process's own"),
                                           ("pthread_rwlock_wrlock", "of a read-write lock of the process's own"),
                                           ("pthread_rwlock_unlock", "of a read-write lock of the process's own")],
                       {"pthread_rwlock_rdlock": {"reading": 1000, "shared": 1000},
                        "pthread_rwlock_wrlock": {"writing": 1000, "after": 1000},
                        "pthread_rwlock_unlock": {"reading": 1000, "writing": 1000, "shared": 1000, "after": 1000}},
                      ("reading", "writing"), "4001\n")

    def once():
        # pthread_once costs the model's figure a call once its initializer
        # has run, and is measured before (the call that runs it, its
        # callback counted under it); a model without its cost measures
        # every call; in either runtime
        tmp = tempfile.mkdtemp(prefix="pi-ext-")
        try:
            obj, native = compile_(tmp, "056_once")
            want = sh([native]).stdout
            for cpu, mode in (("goldencove", "--counts"), ("goldencove", "--timed"), ("zen3", "--counts"),
                              ("zen5", "--counts")):
                desc = must([ctx.profinst, "--describe-cpu", "--cpu=" + cpu], "--describe-cpu").stdout
                m = re.search(r"^libc\.pthread_once (\d+) a call once its initializer has run", desc, re.M)
                if bool(m) != (cpu != "zen5"):
                    raise Fail("%s: --describe-cpu's pthread_once:\n%s" % (cpu, desc))
                unit = int(m.group(1)) if m else None
                exe = instrument(tmp, obj, "%s%s.prof" % (cpu, mode), ["--cpu=" + cpu, mode, "--no-page-faults"])
                out, pj, fn = run_prof(exe, os.path.join(tmp, "%s%s.pf" % (cpu, mode)))
                if out != want or out != "4950\n":
                    raise Fail("%s %s: printed %r, natively %r" % (cpu, mode, out, want))
                f = fn["<external:pthread_once>"]
                by = {c["name"]: c for c in f["callers"]}
                if by["first"]["calls"] != 1 or by["again"]["calls"] != 1000 or fn["init"]["calls"] != 1:
                    raise Fail("%s %s: pthread_once's callers %r, init %r" % (cpu, mode, by, fn["init"]))
                if unit is not None and by["again"]["incl_cycles"] != 1000 * unit:
                    raise Fail("%s %s: pthread_once once done: %r cycles, want 1000 x %d"
                               % (cpu, mode, by["again"]["incl_cycles"], unit))
                # the first call measured: more than its callback, and not
                # the model's figure
                if not f["measured"] or not f["os_cycles"] or by["first"]["incl_cycles"] <= fn["init"]["incl_cycles"] \
                        or (unit is not None and by["first"]["incl_cycles"] == unit):
                    raise Fail("%s %s: the initializing call not measured: %r" % (cpu, mode, f))
                if unit is None and by["again"]["incl_cycles"] == 0:
                    raise Fail("%s %s: no time measured for the calls once done: %r" % (cpu, mode, by["again"]))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("os/qsort_time", qsort_time(("--timed",))), ("os/qsort_time_counts", qsort_time(("--counts",))), ("os/modelled_libc", modelled_libc), ("os/waits", waits),
            ("os/strcoll_locale", strcoll_locale), ("os/mutex_solo", mutex_solo),
            ("os/rwlock_solo", rwlock_solo), ("os/once", once)]
