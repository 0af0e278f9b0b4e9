#!/usr/bin/env python3
"""Write profinst(1) or profview(1) from the tools' own --help.

  docs/man.py profinst|profview TOOL VERSION OUTPUT

The help text is the one description of the options; the manual page is
made from it at build time, so the two never disagree.  What --help has
no room for (the environment, the files, the profile's lineage) is
written here.
"""
import re
import subprocess
import sys

ENVIRONMENT = {
    "profinst": [
        ("PROFINST_CC", "the compiler driver that links, when --cc is not given"),
        ("PROFINST_RUNTIME", "the runtime archive, when --runtime is not given"),
        ("PROFINST_OUTPUT",
         "read by the instrumented program, not by profinst: where it writes its profile; "
         "%p stands for the process id, %% for %. Without it the profile is "
         "profinst.out.PID in the current directory (profinst.out.PID.xN for the N-th program a "
         "process exec'd), and a build's compiler probes (autoconf's conftest, CMake's cmTC_*) "
         "write none. Ignored by setuid and setgid programs, which write the default name as "
         "the user who ran them."),
        ("PROFINST_SELF_CONTAINED",
         "read by the instrumented program: 1 writes the objects' maps (names, blocks, lines, "
         "code) into the profile, which profview then reads without the executable. By default "
         "the profile names the executable and its build id, and profview reads the maps from "
         "it (profview pack makes a self-contained copy)."),
        ("PROFINST_C_PATHS",
         "read by the instrumented program: 1 makes the runtime take its C paths where it has "
         "assembly fast paths (entry, exit, tail exit, external calls). The profile is the same, "
         "the run slower: a check of the fast paths, not a mode to run in."),
    ],
    "profview": [],
}

SEE_ALSO = {
    "profinst": "profview(1), valgrind(1), perf-record(1), gprof(1)",
    "profview": "profinst(1), callgrind_annotate(1), dot(1)",
}

SUMMARY = {
    "profinst": "instrument object files and archives, and link a program that profiles itself",
    "profview": "show, export, merge and compare profinst profiles",
}


def esc(s):
    """roff-escape one line of text."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    if s.startswith((".", "'")):
        s = "\\&" + s
    return s


def help_of(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = p.stdout or p.stderr
    if not text.strip():
        sys.exit("man.py: %s printed no help" % " ".join(cmd))
    return text


def paragraphs(lines):
    """Blank-line separated blocks."""
    block = []
    for ln in lines:
        if ln.strip():
            block.append(ln)
        elif block:
            yield block
            block = []
    if block:
        yield block


def option_items(block):
    """'  -o FILE   text' lines and their continuations, as (term, text)."""
    items = []
    for ln in block:
        m = re.match(r"\s{1,4}(-\S.*?|[a-z]\w*)(?:\s{2,}(.*))?$", ln)
        if m and (m.group(2) or ln.lstrip().startswith("-")):
            items.append([m.group(1).strip(), (m.group(2) or "").strip()])
        elif items and ln.startswith(" "):
            items[-1][1] = (items[-1][1] + " " + ln.strip()).strip()
        else:
            return None
    return items


def body(lines, out):
    """Paragraphs of a help text, with option lists as tagged paragraphs."""
    for block in paragraphs(lines):
        head = block[0].rstrip()
        if re.match(r"^[A-Z][\w ]*:$", head):
            out.append(".SS " + esc(head[:-1]))
            block = block[1:]
            if not block:
                continue
        items = option_items(block)
        if items:
            for term, text in items:
                out.append(".TP")
                out.append(".B " + esc(term))
                out.append(esc(text))
            continue
        if all(ln.startswith("  ") for ln in block):
            out.append(".PP")
            out.append(".nf")
            out.extend(esc(ln.rstrip()) for ln in block)
            out.append(".fi")
            continue
        out.append(".PP")
        out.extend(esc(ln.strip()) for ln in block)


def split_usage(text):
    lines = text.rstrip("\n").split("\n")
    usage = []
    i = 0
    while i < len(lines) and (lines[i].startswith("Usage:") or (usage and lines[i].startswith(" "))):
        usage.append(re.sub(r"^Usage:\s*|^\s+", "", lines[i]))
        i += 1
    return usage, lines[i:]


def page(name, tool, version):
    out = ['.TH %s 1 "" "profinst %s" "User Commands"' % (name.upper(), version),
           ".SH NAME", "%s \\- %s" % (name, SUMMARY[name])]
    usage, rest = split_usage(help_of([tool, "--help"]))
    out.append(".SH SYNOPSIS")
    for u in usage:
        out.append(".B " + esc(u.split(" ", 1)[0]))
        if " " in u:
            out.append(esc(u.split(" ", 1)[1]))
        out.append(".br")
    out.append(".SH DESCRIPTION")
    body(rest, out)
    if name == "profview":
        commands = [m.group(1) for m in re.finditer(r"^  (\w+)\s{2,}", "\n".join(rest), re.M)]
        out.append(".SH COMMANDS")
        for c in commands:
            cu, crest = split_usage(help_of([tool, c, "--help"]))
            out.append(".SS " + c)
            for u in cu:
                out.append(".B " + esc(u))
                out.append(".br")
            body(crest, out)
    env = ENVIRONMENT[name]
    if env:
        out.append(".SH ENVIRONMENT")
        for var, text in env:
            out += [".TP", ".B " + var, esc(text)]
    out += [".SH SEE ALSO", SEE_ALSO[name]]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: man.py profinst|profview TOOL VERSION OUTPUT")
    name, tool, version, output = sys.argv[1:]
    if name not in SUMMARY:
        sys.exit("man.py: no page for %s" % name)
    text = page(name, tool, version)
    with open(output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
