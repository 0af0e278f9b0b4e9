"""Process lineage: every process image writes its own profile.  An image
an exec puts in a process writes under the process's pid and ".xN" (the
N-th exec'd image), the same suffix after %p in PROFINST_OUTPUT (or at
the end of a name without %p); a fork's child under its own pid.  Each
profile carries a process record (pid, parent, start time, exec and fork
generations, lineage name) that `profview report` shows."""
import os
import re
import shutil
import tempfile

CHAIN = r"""
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int in_a(int x) { return x * 3 + 1; }
__attribute__((noinline)) int after_exec(int x) { return x * 7 + 3; }
/* a: in_a 7 times, then exec argv[1] with the rest of the arguments
 * ("fork" first: in a child, the parent waiting) */
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 7; i++)
		s += in_a(i);
	printf("a %d\n", s);
	fflush(stdout);
	if (argc < 2)
		return 0;
	if (!strcmp(argv[1], "fork")) {
		pid_t pid = fork();
		if (pid > 0) {
			int st;
			waitpid(pid, &st, 0);
			return WEXITSTATUS(st);
		}
		argv++;
	}
	execv(argv[1], argv + 1);
	for (int i = 0; i < 5; i++)
		s += after_exec(i);
	printf("exec failed %d\n", s);
	return 0;
}
"""

LEAF = r"""
#include <stdio.h>
__attribute__((noinline)) int in_b(int x) { return x * 5 + 2; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 11; i++)
		s += in_b(i);
	printf("b %d\n", s);
	return 0;
}
"""


def tests(ctx, Fail, sh, must, profile_json):
    def build(tmp):
        for name, src in (("a", CHAIN), ("b", LEAF)):
            with open(os.path.join(tmp, name + ".c"), "w") as f:
                f.write(src)
            must(["gcc", "-O2", "-c", os.path.join(tmp, name + ".c"), "-o", os.path.join(tmp, name + ".o")],
                 "compile")
            must([ctx.profinst, "--cpu=instructions", os.path.join(tmp, name + ".o"), "-o",
                  os.path.join(tmp, name + ".prof")], "profinst")
        return os.path.join(tmp, "a.prof"), os.path.join(tmp, "b.prof")

    def case(fn):
        def run():
            tmp = tempfile.mkdtemp(prefix="pi-lineage-")
            try:
                fn(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return run

    def calls(pj):
        return {f["name"]: f["calls"] for f in pj["functions"] if not f.get("external")}

    def profiles(d, prefix):
        return sorted(f for f in os.listdir(d) if f.startswith(prefix) and ".tmp." not in f)

    def run(exe, args, tmp, env=None):
        p = sh([exe] + args, cwd=tmp, env=dict(os.environ, **(env or {})))
        if p.returncode != 0:
            raise Fail("%s %r: status %d\n%s" % (exe, args, p.returncode, p.stderr[-1500:]))
        return p

    @case
    def exec_chain(tmp):
        """a execs a, which execs b (same pid): three profiles, named
        profinst.out.PID, .x1, .x2, each with its own image's functions and
        a process record saying where it stands."""
        a, b = build(tmp)
        p = run(a, [a, b], tmp)
        if p.stdout != "a 70\na 70\nb 297\n":
            raise Fail("output %r" % p.stdout)
        names = profiles(tmp, "profinst.out.")
        m = re.fullmatch(r"profinst\.out\.(\d+)", names[0]) if names else None
        pid = m and m.group(1)
        want = ["profinst.out.%s" % pid, "profinst.out.%s.x1" % pid, "profinst.out.%s.x2" % pid]
        if names != want:
            raise Fail("profiles %r, want %r" % (names, want))
        pjs = [profile_json(ctx, os.path.join(tmp, n)) for n in names]
        wants = [{"main": 1, "in_a": 7}, {"main": 1, "in_a": 7}, {"main": 1, "in_b": 11}]
        for n, pj, w in zip(names, pjs, wants):
            have = calls(pj)
            if have != w:
                raise Fail("%s: calls %r, want %r" % (n, have, w))
        starts = set()
        for gen, (n, pj) in enumerate(zip(names, pjs)):
            pr = pj.get("process")
            if not pr:
                raise Fail("%s: no process record" % n)
            lineage = pid + (".x%d" % gen if gen else "")
            if (str(pr["pid"]), pr["exec_gen"], pr["fork_gen"], pr["lineage"]) != (pid, gen, 0, lineage):
                raise Fail("%s: process record %r" % (n, pr))
            if pj["checkpoint"] != (gen < 2):
                raise Fail("%s: checkpoint %r" % (n, pj["checkpoint"]))
            starts.add(pr["start_time"])
        if len(starts) != 1 or 0 in starts:
            raise Fail("start times %r: one process, one start" % starts)
        text = must([ctx.profview, "report", os.path.join(tmp, names[2])], "report").stdout
        if "Process: pid %s, image 3 of its process (exec'd), parent " % pid not in text:
            raise Fail("report header:\n%s" % text[:600])

    @case
    def pattern_and_rerun(tmp):
        """The suffix follows %p in PROFINST_OUTPUT, and ends a name without
        %p; a profile left by another process at the name (a run before)
        is replaced, not taken for an earlier image."""
        a, b = build(tmp)
        run(a, [b], tmp, {"PROFINST_OUTPUT": os.path.join(tmp, "run.%p.pf")})
        names = profiles(tmp, "run.")
        if len(names) != 2 or not re.fullmatch(r"run\.(\d+)\.pf", names[0]) or \
                names[1] != names[0][:-3] + ".x1.pf":
            raise Fail("profiles %r" % names)
        for _ in range(2):
            run(a, [b], tmp, {"PROFINST_OUTPUT": os.path.join(tmp, "fixed.pf")})
            names = profiles(tmp, "fixed.")
            if names != ["fixed.pf", "fixed.pf.x1"]:
                raise Fail("profiles %r, want fixed.pf and fixed.pf.x1 (a second run replaces them)" % names)
            if calls(profile_json(ctx, os.path.join(tmp, "fixed.pf.x1"))) != {"main": 1, "in_b": 11}:
                raise Fail("fixed.pf.x1 is not b's")

    @case
    def exec_fails(tmp):
        """An exec that fails: one profile, the continuing image's (not a
        checkpoint, with what it did after), no .x1."""
        a, b = build(tmp)
        p = run(a, ["/nonexistent/program"], tmp)
        if "exec failed" not in p.stdout:
            raise Fail("output %r" % p.stdout)
        names = profiles(tmp, "profinst.out.")
        if len(names) != 1 or ".x" in names[0]:
            raise Fail("profiles %r" % names)
        pj = profile_json(ctx, os.path.join(tmp, names[0]))
        if calls(pj) != {"main": 1, "in_a": 7, "after_exec": 5} or pj["checkpoint"]:
            raise Fail("calls %r, checkpoint %r" % (calls(pj), pj["checkpoint"]))
        if pj["process"]["exec_gen"] != 0:
            raise Fail("process record %r" % pj["process"])

    @case
    def fork_then_exec(tmp):
        """a forks; the child execs b: the parent's profile under its pid,
        the child's under its own pid (fork generation 1, its parent the
        first), b's under the child's pid and .x1, fork generation 1 too."""
        a, b = build(tmp)
        run(a, ["fork", b], tmp)
        names = profiles(tmp, "profinst.out.")
        if len(names) != 3:
            raise Fail("profiles %r" % names)
        recs = {}
        for n in names:
            pj = profile_json(ctx, os.path.join(tmp, n))
            recs[n] = (pj["process"], calls(pj))
        parent = [n for n in names if recs[n][0]["fork_gen"] == 0]
        if len(parent) != 1:
            raise Fail("records %r" % recs)
        ppid = recs[parent[0]][0]["pid"]
        child = [n for n in names if n not in parent and ".x" not in n]
        image = [n for n in names if n.endswith(".x1")]
        if len(child) != 1 or len(image) != 1 or image[0] != child[0] + ".x1":
            raise Fail("profiles %r" % names)
        c, i = recs[child[0]][0], recs[image[0]][0]
        if (c["fork_gen"], c["ppid"], c["exec_gen"]) != (1, ppid, 0) or \
                (i["fork_gen"], i["ppid"], i["exec_gen"], i["pid"]) != (1, ppid, 1, c["pid"]):
            raise Fail("child %r, exec'd image %r, parent pid %d" % (c, i, ppid))
        if recs[image[0]][1] != {"main": 1, "in_b": 11} or recs[parent[0]][1] != {"main": 1, "in_a": 7}:
            raise Fail("calls %r" % {n: r[1] for n, r in recs.items()})

    return [("lineage/exec_chain", exec_chain), ("lineage/pattern_and_rerun", pattern_and_rerun),
            ("lineage/exec_fails", exec_fails), ("lineage/fork_then_exec", fork_then_exec)]
