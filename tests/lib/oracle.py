"""Exact per-function instruction and call counts from callgrind.

callgrind is run with --dump-instr=yes so that every cost line carries the
address of its instruction; costs are attributed by address to the symbols
of the executable (not to callgrind's own function names), so that:
  - foo.cold pieces fold into foo, and recursion levels (fib'2) into fib;
  - PLT stubs (with --skip-plt=no callgrind puts them at their own
    addresses, not at the call site) are left out, as the
    instrumented program does not count them either.
"""
import subprocess


def symbols(exe):
    """[(start, end, name, is_cold)] of the code symbols of exe, .cold folded."""
    out = subprocess.run(["nm", "-S", "--defined-only", exe], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in "tTwWiI":
            continue
        start, size = int(parts[0], 16), int(parts[1], 16)
        if size == 0:
            continue
        syms.append((start, start + size, fold(parts[3]), fold(parts[3]) != parts[3]))
    syms.sort()
    return syms


def aliases(exe):
    """{name: canonical name} for symbols that share an address (C1/C2
    constructors, weak aliases): the profile and callgrind may each pick
    another of them."""
    groups = {}
    for start, end, name, cold in symbols(exe):
        groups.setdefault((start, cold), set()).add(name)
    canon = {}
    for names in groups.values():
        first = min(names)
        for n in names:
            canon[n] = first
    return canon


def fold(name):
    i = name.find(".cold")
    if i > 0:
        rest = name[i + 5:]
        if rest == "" or (rest.startswith(".") and rest[1:].isdigit()):
            return name[:i]
    return name


def parse(path):
    """(self cost by instruction address, call count by target address)."""
    self_ir, calls = {}, {}
    skip_next = False
    npos = 1
    with open(path) as f:
        for line in f:
            if line.startswith("positions:"):
                npos = len(line.split()) - 1
                continue
            if not line or not (line[0] == "0" or line.startswith("calls=")):
                skip_next = False if line.startswith(("fn=", "fl=", "ob=")) else skip_next
                continue
            if line.startswith("calls="):
                parts = line[6:].split()
                n, target = int(parts[0]), int(parts[1], 16)
                calls[target] = calls.get(target, 0) + n
                skip_next = True
                continue
            if skip_next:  # the inclusive cost of the call just named
                skip_next = False
                continue
            parts = line.split()
            addr, cost = int(parts[0], 16), int(parts[npos])
            self_ir[addr] = self_ir.get(addr, 0) + cost
    return self_ir, calls


def attribute(exe, outfile):
    """{name: {"self": Ir, "calls": n}} for the functions of exe."""
    return by_symbol(exe, *parse(outfile))


def by_symbol(path, self_ir, calls):
    """The costs and calls parse() gives, by the symbols of path."""
    syms = symbols(path)
    starts = [s[0] for s in syms]
    import bisect

    def owner(addr):
        i = bisect.bisect_right(starts, addr) - 1
        if i >= 0 and syms[i][0] <= addr < syms[i][1]:
            return syms[i]
        return None

    canon = aliases(path)
    res = {}
    for addr, cost in self_ir.items():
        s = owner(addr)
        if s:
            res.setdefault(canon[s[2]], {"self": 0, "calls": 0})["self"] += cost
    for addr, n in calls.items():
        s = owner(addr)
        # a jump from foo into foo.cold is no call of foo
        if s and s[0] == addr and not s[3]:
            res.setdefault(canon[s[2]], {"self": 0, "calls": 0})["calls"] += n
    return res


def run_callgrind(exe, args, outfile, env=None, stdin=None, cwd=None):
    cmd = ["valgrind", "--tool=callgrind", "--skip-plt=no", "--dump-instr=yes", "--compress-strings=no",
           "--compress-pos=no", "--callgrind-out-file=" + outfile, exe] + list(args)
    p = subprocess.run(cmd, capture_output=True, env=env, stdin=stdin, cwd=cwd, timeout=600)
    return p



def parse_object(path, obj):
    """parse() for the code of one object of the run (callgrind gives a
    shared object's instructions at their addresses in its file, which
    another object's may share)."""
    import os
    real = os.path.realpath(obj)
    self_ir, calls = {}, {}
    npos = 1
    ob = cob = None
    skip_next = False
    with open(path) as f:
        for line in f:
            if line.startswith("positions:"):
                npos = len(line.split()) - 1
            elif line.startswith("ob="):
                ob = os.path.realpath(line[3:].strip())
            elif line.startswith("cob="):
                cob = os.path.realpath(line[4:].strip())
            elif line.startswith("calls="):
                parts = line[6:].split()
                if (cob or ob) == real:
                    t = int(parts[1], 16)
                    calls[t] = calls.get(t, 0) + int(parts[0])
                cob = None
                skip_next = True
            elif line[:1] == "0":
                if skip_next:  # the inclusive cost of the call just named
                    skip_next = False
                    continue
                if ob == real:
                    parts = line.split()
                    addr = int(parts[0], 16)
                    self_ir[addr] = self_ir.get(addr, 0) + int(parts[npos])
            elif line.startswith(("fn=", "fl=", "fi=", "fe=")):
                skip_next = False
    return self_ir, calls


def attribute_shared(so, outfile):
    """attribute() for the functions of a shared object the run loaded."""
    return by_symbol(so, *parse_object(outfile, so))
