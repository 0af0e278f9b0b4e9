#!/usr/bin/env python3
"""Call cycles between source files, from their object files.

  scripts/call_cycles.py OBJECT...
  scripts/call_cycles.py --dir DIR     (every *.o under DIR)

File A calls file B when A's object leaves a symbol undefined that B's
object defines (nm).  A cycle among files means none of them can be read,
tested or linked without the others; the rewriter keeps its files in
layers, each calling only the ones below.  Prints the edges with --edges;
prints each cycle found (its files, and a symbol along each edge) and
exits 1 if there is one, 0 if not.
"""
import argparse
import os
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) global symbol names of one object."""
    p = subprocess.run(["nm", "-g", obj], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("call_cycles.py: nm %s failed: %s" % (obj, p.stderr.strip()))
    defined, undefined = set(), set()
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("U", "w"):
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] not in ("U", "w", "v"):
            defined.add(parts[2])
    return defined, undefined


def name_of(obj):
    """meson's object name (rewriter/profinst.p/cfg.c.o) as its source's: cfg.c"""
    base = os.path.basename(obj)
    return base[:-2] if base.endswith(".c.o") else base


def graph(objs):
    """{file: {file it calls: a symbol it calls there}}"""
    owner = {}
    undef = {}
    for obj in objs:
        d, u = symbols(obj)
        f = name_of(obj)
        for s in d:
            owner.setdefault(s, f)
        undef[f] = u
    g = {f: {} for f in undef}
    for f, u in undef.items():
        for s in sorted(u):
            o = owner.get(s)
            if o and o != f:
                g[f].setdefault(o, s)
    return g


def cycles(g):
    """The strongly connected components of more than one file (Tarjan),
    each as a list of files in order."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("objects", nargs="*")
    ap.add_argument("--dir", help="take every *.o under DIR")
    ap.add_argument("--edges", action="store_true", help="print every edge: FILE -> FILE (SYMBOL)")
    args = ap.parse_args()
    objs = list(args.objects)
    if args.dir:
        for root, _, files in os.walk(args.dir):
            objs += [os.path.join(root, f) for f in sorted(files) if f.endswith(".o")]
    if not objs:
        sys.exit("call_cycles.py: no object files")
    g = graph(objs)
    if args.edges:
        for f in sorted(g):
            for o in sorted(g[f]):
                print("%s -> %s (%s)" % (f, o, g[f][o]))
    found = cycles(g)
    for comp in found:
        members = set(comp)
        print("cycle: %s" % " ".join(comp))
        for f in comp:
            for o in sorted(g[f]):
                if o in members:
                    print("  %s -> %s (%s)" % (f, o, g[f][o]))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
