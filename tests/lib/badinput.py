"""Inputs profinst must refuse: one line on stderr naming the file and the
reason, a non-zero exit status, and no output file left behind."""
import os
import shutil
import subprocess
import tempfile

SRC = "int f(int x) { return x + 1; }\nint main(void) { return f(0) - 1; }\n"


def make_inputs(tmp, sh):
    """name -> (path, expected words in the message)"""
    c = os.path.join(tmp, "ok.c")
    with open(c, "w") as f:
        f.write(SRC)
    ok = os.path.join(tmp, "ok.o")
    subprocess.run(["gcc", "-c", c, "-o", ok], check=True)
    data = open(ok, "rb").read()
    cases = {}

    def w(name, b):
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(b)
        return p

    cases["not_elf"] = (w("text.o", b"this is not an object file\n" * 4), "not an ELF")
    x = bytearray(data)
    x[18] = 3  # e_machine = EM_386
    x[19] = 0
    cases["not_x86_64"] = (w("i386.o", bytes(x)), "not an x86-64")
    cases["truncated"] = (w("trunc.o", data[: len(data) // 3]), "trunc.o")
    x = bytearray(data)
    x[0x28:0x30] = (len(data) + 4096).to_bytes(8, "little")  # e_shoff past the end
    cases["corrupt_section_table"] = (w("badsh.o", bytes(x)), "section header")
    lto = os.path.join(tmp, "lto.o")
    subprocess.run(["gcc", "-flto", "-c", c, "-o", lto], check=True)
    cases["slim_lto"] = (lto, "LTO")
    ar = os.path.join(tmp, "good.a")
    subprocess.run(["ar", "rcs", ar, ok], check=True)
    a = open(ar, "rb").read()
    cases["damaged_archive_member"] = (w("damaged.a", a[: len(a) - 200]), "damaged.a")
    cases["missing_file"] = (os.path.join(tmp, "no-such-file.o"), "no-such-file.o")
    return cases


def tests(ctx, Fail, sh):
    names = ["not_elf", "not_x86_64", "truncated", "corrupt_section_table", "slim_lto",
             "damaged_archive_member", "missing_file"]
    out = []
    for name in names:
        for mode in ("link", "-c"):
            def t(name=name, mode=mode):
                tmp = tempfile.mkdtemp(prefix="pi-bad-")
                try:
                    path, word = make_inputs(tmp, sh)[name]
                    dest = os.path.join(tmp, "result")
                    cmd = [ctx.profinst] + (["-c"] if mode == "-c" else []) + [path, "-o", dest]
                    p = sh(cmd)
                    lines = [l for l in p.stderr.splitlines() if l.strip()]
                    if p.returncode == 0:
                        raise Fail("accepted: exit status 0")
                    if len(lines) != 1:
                        raise Fail("expected one line on stderr, got:\n" + p.stderr)
                    if word.lower() not in lines[0].lower() or os.path.basename(path) not in lines[0]:
                        raise Fail("message does not name the file and the reason (%r): %s" % (word, lines[0]))
                    left = [f for f in os.listdir(tmp) if f.startswith("result")]
                    if left:
                        raise Fail("output left behind: %r" % left)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
            out.append(("badinput/%s[%s]" % (name, mode), t))
    return out
