"""The manual pages meson installs: both there, both well-formed roff, and
every option each tool's --help lists described in its page."""
import os
import re
import shutil
import tempfile


def tests(ctx, Fail, sh, must):
    def installed():
        tmp = tempfile.mkdtemp(prefix="pi-man-")
        try:
            must(["meson", "install", "-C", ctx.build, "--no-rebuild", "--destdir", tmp], "meson install")
            pages = {}
            for root, _, files in os.walk(tmp):
                for f in files:
                    if f.endswith(".1") and os.path.basename(root) == "man1":
                        pages[f] = os.path.join(root, f)
            for want in ("profinst.1", "profview.1"):
                if want not in pages:
                    raise Fail("meson install wrote no %s (installed: %s)" % (want, sorted(pages)))
            for tool, page in (("profinst", pages["profinst.1"]), ("profview", pages["profview.1"])):
                p = sh(["groff", "-man", "-ww", "-z", page])
                if p.returncode != 0 or p.stderr.strip():
                    raise Fail("%s: groff complains:\n%s" % (page, p.stderr[-1500:]))
                text = must(["groff", "-man", "-Tutf8", "-P-cbou", page], "groff").stdout
                # groff typesets hyphens as U+2010 and may hyphenate: compare unbroken text
                text = re.sub(r"\u2010\n\s*|-\n\s*", "", text).replace("\u2010", "-").replace("\u2212", "-")
                exe = ctx.profinst if tool == "profinst" else ctx.profview
                helps = [sh([exe, "--help"]).stdout]
                if tool == "profview":
                    cmds = re.findall(r"^  (\w+)\s{2,}", helps[0], re.M)
                    if len(cmds) < 5:
                        raise Fail("profview --help lists %d commands" % len(cmds))
                    for c in cmds:
                        helps.append(sh([exe, c, "--help"]).stdout)
                        if ("\n   " + c + "\n") not in text and ("\n   " + c + " ") not in text:
                            raise Fail("profview.1 has no section for the command %s" % c)
                for h in helps:
                    for opt in set(re.findall(r"^\s+(--[a-z][a-z-]*)", h, re.M)):
                        if opt not in text:
                            raise Fail("%s.1 does not describe %s" % (tool, opt))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return [("manpages", installed)]
