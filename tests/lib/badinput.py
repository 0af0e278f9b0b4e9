"""Inputs profinst must refuse: one line on stderr naming the file and the
reason (and the section, where one is at fault), a non-zero exit status,
and nothing left behind: no output, no temporary file or directory.

Also what profinst must not do wherever it runs: follow a link planted
where it writes, leave its temporaries after a failed link or a signal,
instrument an object twice, or link a fat LTO object's IR instead of the
instrumented code."""
import json
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time

SRC = "int f(int x) { return x + 1; }\nint main(void) { return f(0) - 1; }\n"
# C++ with a COMDAT group (the template's instance) and relocations
CXX = ("#include <cstdio>\n"
       "template <class T> __attribute__((noinline)) T twice(T x) { return x * 2; }\n"
       "int main() { std::printf(\"%d\\n\", twice(21)); return 0; }\n")

SHT_RELA, SHT_SYMTAB, SHT_GROUP = 4, 2, 17


def sections(data):
    """The section headers of an ELF64 object: dicts with the header's own
    offset ('at') and its fields."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", data, 0x3c)
    out = []
    for i in range(shnum):
        at = shoff + 64 * i
        name, typ, flags, _addr, off, size, link, info, _al, ent = struct.unpack_from("<IIQQQQIIQQ", data, at)
        out.append(dict(i=i, at=at, name_off=name, type=typ, off=off, size=size, link=link, info=info))
    strtab = out[shstrndx]
    for s in out:
        n = data[strtab["off"] + s["name_off"]:]
        s["name"] = n[:n.index(b"\0")].decode()
    return out


def one(secs, **kw):
    for s in secs:
        if all(s[k] == v for k, v in kw.items()):
            return s
    raise KeyError(kw)


# Each corruption of a valid C++ object: (name, the section the message
# must name, a function patching the bytes given its sections).
def _group_sig(d, ss):
    struct.pack_into("<I", d, one(ss, type=SHT_GROUP)["at"] + 44, 0x7fffffff)


def _group_member(d, ss):
    struct.pack_into("<I", d, one(ss, type=SHT_GROUP)["off"] + 4, 0xfff0)


def _group_self(d, ss):
    g = one(ss, type=SHT_GROUP)
    struct.pack_into("<I", d, g["off"] + 4, g["i"])


def _group_link(d, ss):
    struct.pack_into("<I", d, one(ss, type=SHT_GROUP)["at"] + 40, 999)


def _rela_target(d, ss):
    struct.pack_into("<I", d, one(ss, name=".rela.text")["at"] + 44, 999)


def _rela_link(d, ss):
    struct.pack_into("<I", d, one(ss, name=".rela.text")["at"] + 40, 0)


def _rela_sym(d, ss):
    r = one(ss, name=".rela.text")
    info, = struct.unpack_from("<Q", d, r["off"] + 8)
    struct.pack_into("<Q", d, r["off"] + 8, (0xfffff << 32) | (info & 0xffffffff))


def _rela_offset(d, ss):
    struct.pack_into("<Q", d, one(ss, name=".rela.text")["off"], 0x7ffffffffff0)


def _rela_offset_end(d, ss):
    # the field's last bytes past the section's end
    r, t = one(ss, name=".rela.text"), one(ss, name=".text")
    struct.pack_into("<Q", d, r["off"], t["size"] - 2)


def _rela_on_nobits(d, ss):
    struct.pack_into("<I", d, one(ss, name=".rela.text")["at"] + 44, one(ss, name=".bss")["i"])


def _last_symbol(d, ss):
    st = one(ss, type=SHT_SYMTAB)
    return st["off"] + st["size"] - 24


def _sym_shndx(d, ss):
    struct.pack_into("<H", d, _last_symbol(d, ss) + 6, 0x7ff0)


def _sym_xindex(d, ss):
    struct.pack_into("<H", d, _last_symbol(d, ss) + 6, 0xffff)


def _sym_name(d, ss):
    struct.pack_into("<I", d, _last_symbol(d, ss), 0x7ffffff0)


def _symtab_link(d, ss):
    struct.pack_into("<I", d, one(ss, type=SHT_SYMTAB)["at"] + 40, 999)


def _symtab_link_not_strtab(d, ss):
    struct.pack_into("<I", d, one(ss, type=SHT_SYMTAB)["at"] + 40, one(ss, name=".text")["i"])


def _section_name(d, ss):
    struct.pack_into("<I", d, one(ss, name=".text")["at"], 0x7ffffff0)


def _section_past_end(d, ss):
    struct.pack_into("<Q", d, one(ss, name=".text")["at"] + 24, len(d) + 4096)


def _section_size(d, ss):
    struct.pack_into("<Q", d, one(ss, name=".text")["at"] + 32, 1 << 40)


def _shstrndx(d, ss):
    struct.pack_into("<H", d, 0x3e, 999)


CORRUPT = [
    ("group_signature", ".group", _group_sig),
    ("group_member", ".group", _group_member),
    ("group_member_self", ".group", _group_self),
    ("group_symtab", ".group", _group_link),
    ("rela_target", ".rela.text", _rela_target),
    ("rela_symtab", ".rela.text", _rela_link),
    ("rela_symbol", ".rela.text", _rela_sym),
    ("rela_offset", ".rela.text", _rela_offset),
    ("rela_offset_end", ".rela.text", _rela_offset_end),
    ("rela_on_nobits", ".rela.text", _rela_on_nobits),
    ("symbol_section", ".symtab", _sym_shndx),
    ("symbol_xindex", ".symtab", _sym_xindex),
    ("symbol_name", ".symtab", _sym_name),
    ("symtab_strtab", ".symtab", _symtab_link),
    ("symtab_strtab_type", ".symtab", _symtab_link_not_strtab),
    ("section_name", "name", _section_name),
    ("section_past_end", ".text", _section_past_end),
    ("section_size", ".text", _section_size),
    ("shstrndx", "section header", _shstrndx),
]


def compile_c(tmp, src, name, cc="gcc", flags=()):
    c = os.path.join(tmp, name + (".cc" if cc in ("g++", "c++") else ".c"))
    with open(c, "w") as f:
        f.write(src)
    o = os.path.join(tmp, name + ".o")
    subprocess.run([cc, "-O1"] + list(flags) + ["-c", c, "-o", o], check=True)
    return o


def w(tmp, name, b):
    p = os.path.join(tmp, name)
    with open(p, "wb") as f:
        f.write(b)
    return p


def make_input(tmp, name):
    """name -> (path, expected words in the message)"""
    if name == "missing_file":
        return os.path.join(tmp, "no-such-file.o"), ["no-such-file.o"]
    if name == "not_elf":
        return w(tmp, "text.o", b"this is not an object file\n" * 4), ["not an ELF"]
    if name == "empty":
        return w(tmp, "empty.o", b""), ["not an ELF"]
    if name == "directory":
        os.mkdir(os.path.join(tmp, "dir.o"))
        return os.path.join(tmp, "dir.o"), ["directory"]
    if name == "fifo":
        os.mkfifo(os.path.join(tmp, "fifo.o"))
        return os.path.join(tmp, "fifo.o"), ["FIFO"]
    if name == "char_device":
        return "/dev/zero", ["character device"]
    if name == "slim_lto":
        lto = os.path.join(tmp, "lto.o")
        c = os.path.join(tmp, "ok.c")
        with open(c, "w") as f:
            f.write(SRC)
        subprocess.run(["gcc", "-flto", "-c", c, "-o", lto], check=True)
        return lto, ["LTO"]
    if name == "clang_lto":
        lto = os.path.join(tmp, "bitcode.o")
        c = os.path.join(tmp, "ok.c")
        with open(c, "w") as f:
            f.write(SRC)
        subprocess.run(["clang", "-flto", "-c", c, "-o", lto], check=True)
        return lto, ["LTO"]
    if name == "clang_lto_archive":
        path, words = make_input(tmp, "clang_lto")
        ar = os.path.join(tmp, "bitcode.a")
        subprocess.run(["ar", "rcs", ar, path], check=True)
        return ar, ["bitcode.a(bitcode.o)", "LTO"]
    if name == "twice":
        ok = compile_c(tmp, SRC, "ok")
        once = os.path.join(tmp, "once.o")
        return once, ["already instrumented"]  # made by the caller (needs profinst)
    ok = compile_c(tmp, SRC, "ok")
    data = open(ok, "rb").read()
    if name == "not_x86_64":
        x = bytearray(data)
        x[18:20] = b"\x03\x00"  # e_machine = EM_386
        return w(tmp, "i386.o", bytes(x)), ["not an x86-64"]
    if name == "truncated":
        return w(tmp, "trunc.o", data[: len(data) // 3]), ["trunc.o"]
    if name == "corrupt_section_table":
        x = bytearray(data)
        x[0x28:0x30] = (len(data) + 4096).to_bytes(8, "little")  # e_shoff past the end
        return w(tmp, "badsh.o", bytes(x)), ["section header"]
    if name == "damaged_archive_member":
        ar = os.path.join(tmp, "good.a")
        subprocess.run(["ar", "rcs", ar, ok], check=True)
        a = open(ar, "rb").read()
        return w(tmp, "damaged.a", a[: len(a) - 200]), ["damaged.a"]
    for cname, where, patch in CORRUPT:
        if name == cname:
            cxx = compile_c(tmp, CXX, "cxx", "g++")
            x = bytearray(open(cxx, "rb").read())
            patch(x, sections(bytes(x)))
            return w(tmp, cname + ".o", bytes(x)), [where]
    raise KeyError(name)


def listing(d):
    out = set()
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(root, n), d))
    return out


def tests(ctx, Fail, sh):
    out = []

    def env_in(tmp):
        # anything profinst puts in the temporary directory shows in tmp
        return dict(os.environ, TMPDIR=tmp)

    def refused(name, mode):
        tmp = tempfile.mkdtemp(prefix="pi-bad-")
        try:
            path, words = make_input(tmp, name)
            if name == "twice":
                sh([ctx.profinst, "-c", os.path.join(tmp, "ok.o"), "-o", path], check=True)
            before = listing(tmp)
            dest = os.path.join(tmp, "result")
            cmd = [ctx.profinst] + (["-c"] if mode == "-c" else []) + [path, "-o", dest]
            p = sh(cmd, env=env_in(tmp), timeout=120)
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            if p.returncode == 0:
                raise Fail("accepted: exit status 0")
            if p.returncode != 1:
                raise Fail("exit status %d, want 1:\n%s" % (p.returncode, p.stderr[-2000:]))
            if len(lines) != 1:
                raise Fail("expected one line on stderr, got:\n" + p.stderr[-2000:])
            for word in words + [os.path.basename(path)]:
                if word.lower() not in lines[0].lower():
                    raise Fail("message does not say %r: %s" % (word, lines[0]))
            left = listing(tmp) - before
            if left:
                raise Fail("left behind: %r" % sorted(left))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    names = ["not_elf", "empty", "directory", "fifo", "not_x86_64", "truncated", "corrupt_section_table",
             "slim_lto", "clang_lto", "clang_lto_archive", "damaged_archive_member", "missing_file", "twice"]
    names += [c[0] for c in CORRUPT]
    for name in names:
        for mode in ("link", "-c"):
            out.append(("badinput/%s[%s]" % (name, mode), lambda name=name, mode=mode: refused(name, mode)))
    out.append(("badinput/char_device[-c]", lambda: refused("char_device", "-c")))
    out += safety_tests(ctx, Fail, sh)
    return out


def safety_tests(ctx, Fail, sh):
    out = []

    def planted_temporary(mode):
        """A link planted where profinst once put its temporary
        (OUTPUT.profinst-tmp.PID) and at the output itself, to a victim:
        the victim is never written; a link at the output is refused."""
        tmp = tempfile.mkdtemp(prefix="pi-plant-")
        try:
            ok = compile_c(tmp, SRC, "ok")
            victim = w(tmp, "victim", b"precious\n")
            dest = os.path.join(tmp, "result")
            cmd = [ctx.profinst] + (["-c"] if mode == "-c" else []) + [ok, "-o", dest]

            def plant():  # in the child, before exec: its pid is profinst's
                os.symlink(victim, "%s.profinst-tmp.%d" % (dest, os.getpid()))
            p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=plant, env=dict(os.environ, TMPDIR=tmp))
            if p.returncode != 0:
                raise Fail("profinst failed: %s" % p.stderr[-2000:])
            if open(victim, "rb").read() != b"precious\n":
                raise Fail("the file a planted link pointed to was written")
            if os.path.islink(dest) or not os.path.isfile(dest):
                raise Fail("the output is not a regular file")
            # a link at the output itself: refused, the victim untouched
            os.unlink(dest)
            os.symlink(victim, dest)
            before = listing(tmp)
            p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TMPDIR=tmp))
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            if p.returncode != 1 or len(lines) != 1 or "symbolic link" not in lines[0] or "result" not in lines[0]:
                raise Fail("an output that is a symbolic link: status %d, %r" % (p.returncode, p.stderr))
            if open(victim, "rb").read() != b"precious\n" or not os.path.islink(dest):
                raise Fail("a symbolic link at the output was followed or replaced")
            if listing(tmp) != before:
                raise Fail("left behind: %r" % sorted(listing(tmp) - before))
            # a directory at the output: refused
            os.unlink(dest)
            os.mkdir(dest)
            p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TMPDIR=tmp))
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            if p.returncode != 1 or len(lines) != 1 or "directory" not in lines[0]:
                raise Fail("an output that is a directory: status %d, %r" % (p.returncode, p.stderr))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    for mode in ("link", "-c"):
        out.append(("badinput/planted_link[%s]" % mode, lambda mode=mode: planted_temporary(mode)))

    def failed_link():
        """A link that fails leaves nothing: no output, no temporary, no
        directory (profinst's own, or the compiler stand-in's)."""
        tmp = tempfile.mkdtemp(prefix="pi-faillink-")
        try:
            ok = compile_c(tmp, SRC, "ok")
            before = listing(tmp)
            env = dict(os.environ, TMPDIR=tmp)
            for cmd in ([ctx.profinst, ok, "-o", os.path.join(tmp, "result"), "-lno-such-library"],
                        [ctx.profinst, "cc", os.path.join(tmp, "ok.c"), "-o", os.path.join(tmp, "result"),
                         "-lno-such-library"]):
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if p.returncode == 0:
                    raise Fail("%s: the link succeeded" % " ".join(cmd))
                if listing(tmp) != before:
                    raise Fail("%s left behind: %r" % (" ".join(cmd), sorted(listing(tmp) - before)))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    out.append(("badinput/failed_link_leaves_nothing", failed_link))

    def signalled(sig):
        """profinst ended by a signal while the linker runs: the linker is
        stopped and profinst's directory removed."""
        tmp = tempfile.mkdtemp(prefix="pi-sig-")
        try:
            ok = compile_c(tmp, SRC, "ok")
            started = os.path.join(tmp, "started")
            # a driver that writes part of its output and then hangs
            drv = w(tmp, "slowcc", b"#!/bin/sh\n"
                    b"while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                    b"echo partial > \"$out\"\necho $$ > " + started.encode() + b"\nexec sleep 60\n")
            os.chmod(drv, 0o755)
            before = listing(tmp) | {"started"}
            # (a shell's background job starts with SIGINT ignored, and a
            # program keeps an ignored signal ignored: the default, as a
            # terminal's user has it)
            p = subprocess.Popen([ctx.profinst, "--cc=" + drv, ok, "-o", os.path.join(tmp, "result")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, TMPDIR=tmp),
                                 preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
            for _ in range(600):
                if os.path.exists(started) and open(started).read().strip():
                    break
                time.sleep(0.05)
            else:
                p.kill()
                raise Fail("the driver never started: %r" % (p.communicate(),))
            child = int(open(started).read())
            p.send_signal(sig)
            try:
                p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                raise Fail("profinst did not end on signal %d" % sig)
            if p.returncode != -sig:
                raise Fail("profinst ended with status %d on signal %d" % (p.returncode, sig))
            try:
                os.kill(child, 0)
                alive = open("/proc/%d/stat" % child).read().split()[2] != "Z"
            except (ProcessLookupError, FileNotFoundError):
                alive = False
            if alive:
                os.kill(child, signal.SIGKILL)
                raise Fail("the driver still runs after profinst ended")
            if listing(tmp) != before:
                raise Fail("left behind: %r" % sorted(listing(tmp) - before))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def fat_lto():
        """A fat LTO object (machine code and GCC's IR): the instrumented
        code is what gets linked, not a program the linker plugin rebuilds
        from the IR, so the profile has its functions."""
        tmp = tempfile.mkdtemp(prefix="pi-fatlto-")
        try:
            src = ("#include <stdio.h>\n__attribute__((noinline)) int sq(int x) { return x * x; }\n"
                   "int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += sq(i);"
                   " printf(\"%d\\n\", s); return 0; }\n")
            o = compile_c(tmp, src, "fat", flags=["-O2", "-flto", "-ffat-lto-objects"])
            exe = os.path.join(tmp, "fat")
            p = sh([ctx.profinst, o, "-o", exe])
            if p.returncode != 0 or p.stderr.strip():
                raise Fail("profinst: status %d: %s" % (p.returncode, p.stderr[-2000:]))
            pf = os.path.join(tmp, "p.pf")
            p = sh([exe], env=dict(os.environ, PROFINST_OUTPUT=pf), cwd=tmp)
            if p.returncode != 0 or p.stdout != "285\n":
                raise Fail("the program printed %r, status %d" % (p.stdout, p.returncode))
            if not os.path.exists(pf):
                raise Fail("no profile: the linker linked the LTO IR, not the instrumented code")
            r = sh([ctx.profview, "report", pf, "--format=json"])

            calls = {f["name"]: f["calls"] for f in json.loads(r.stdout)["functions"]}
            if calls.get("sq") != 10 or calls.get("main") != 1:
                raise Fail("the profile's calls: %r" % calls)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    out.append(("badinput/fat_lto_instrumented", fat_lto))

    for sig in (signal.SIGTERM, signal.SIGINT):
        out.append(("badinput/signal_%s_leaves_nothing" % signal.Signals(sig).name,
                    lambda sig=sig: signalled(sig)))
    return out
