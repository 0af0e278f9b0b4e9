/* SPDX-License-Identifier: MIT */
/*
 * Writing the profile when the program ends: the maps of the instrumented
 * objects, where their functions landed, and per thread the block counters
 * and the calling-context tree (libprof/format.h).  Written to a temporary
 * file and renamed, so a reader never sees half a profile (safefile.h:
 * nothing an attacker planted at the name is followed or replaced), while
 * every other thread is stopped, so that nothing changes while it is read.
 * Every process image writes its own: a fork's child under its own pid,
 * an exec'd image under its pid and ".xN" (choose_path).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buildid.h"
#include "rt.h"
#include "safefile.h"
#include "writer.h"

static struct pw w;

/* Preorder walk without recursion: the tree may be deep. */
static struct rt_node *next_node(struct rt_node *n, struct rt_node *root)
{
	if (n->first_child)
		return n->first_child;
	while (n != root) {
		if (n->next_sibling)
			return n->next_sibling;
		n = n->parent;
	}
	return NULL;
}

static void fn_ids(const struct pi_funcrec *fn, uint32_t *obj, uint32_t *func)
{
	if (!fn) {
		*obj = *func = UINT32_MAX;
		return;
	}
	*obj = rt_obj_index(pi_rec_obj(fn));
	*func = fn->index;
}

/* Under --counts, th's tree as the stubs left it (the reader costs it,
 * and makes its block counters) */
static void write_cthread(struct rt_thread *th)
{
	struct pi_prof_cthread ct = {.index = th->index, .tid = th->tid};
	uint64_t len;
	const uint8_t *nodes = rt_counting_tree(th, &len, &ct.nnodes);
	pw_rec(&w, PI_REC_CTHREAD, sizeof(ct) + len);
	pw_put(&w, &ct, sizeof(ct));
	if (nodes)
		pw_put(&w, nodes, len);
	pw_pad(&w, sizeof(ct) + len);
}

/* Whether FUNCREC holds f's record: not a target's (TARGETS names
 * them); under --counts, only a function some node is of */
static bool record_written(const struct pi_funcrec *f)
{
	return !rt_is_target(f) && (!rt_counts_in_nodes || rt_counting_needs(f));
}

static void write_thread(struct rt_thread *th)
{
	uint32_t nnodes = 0, nrec = 0;
	for (struct rt_node *n = &th->root; n; n = next_node(n, &th->root)) {
		if (n->alias)
			nrec++;
		else
			n->index = nnodes++;
	}
	struct pi_prof_thread pt = {
		.index = th->index,
		.tid = th->tid,
		.nnodes = nnodes,
		.nrec = nrec,
		.clock = th->final_clock,
	};
	uint64_t size = sizeof(pt) + (uint64_t)nnodes * sizeof(struct pi_prof_node) +
			(uint64_t)nrec * sizeof(struct pi_prof_recedge);
	pw_rec(&w, PI_REC_THREAD, size);
	pw_put(&w, &pt, sizeof(pt));
	for (struct rt_node *n = &th->root; n; n = next_node(n, &th->root)) {
		if (n->alias)
			continue;
		struct pi_prof_node pn = {
			.parent = n->parent ? n->parent->index : UINT32_MAX,
			.ret_addr = n->ra,
			.calls = n->calls,
			.rec_calls = n->rec_calls,
			.self = n->self,
			.incl = n->incl,
			.min_self = n->calls ? n->min_self : 0,
			.max_self = n->max_self,
			.os = n->os,
			.os_left = n->os_left,
			.faults = n->faults,
		};
		fn_ids(n->fn, &pn.obj, &pn.func);
		pw_put(&w, &pn, sizeof(pn));
	}
	for (struct rt_node *n = &th->root; n; n = next_node(n, &th->root)) {
		if (!n->alias)
			continue;
		struct pi_prof_recedge re = {
			.node = n->alias->index,
			.ret_addr = n->ra,
			.calls = n->calls,
			.incl = n->incl,
		};
		fn_ids(n->parent->fn, &re.caller_obj, &re.caller_func);
		re.caller_node = n->parent->index;
		pw_put(&w, &re, sizeof(re));
	}
	pw_pad(&w, size);
	/* block counters of every object, for this thread */
	uint64_t i = 0;
	RT_EACH_OBJ(d) {
		uint64_t at = i;
		i += pi_counters(pi_obj_map(d));
		uint32_t hdr[2] = {rt_obj_index(d), th->index};
		const uint64_t *c = th->saved_counts ? th->saved_counts + at
						     : (const uint64_t *)(th->tp + (int64_t)d->counts_tpoff);
		pw_rec(&w, PI_REC_COUNTS, 8 + 8ull * d->nblocks);
		pw_put(&w, hdr, sizeof(hdr));
		pw_put(&w, c, 8ull * d->nblocks);
		if (d->map_flags & PI_MAP_SIMS) { /* the simulations' counters follow */
			pw_rec(&w, PI_REC_SIMCOUNTS, 8 + 16ull * d->nblocks);
			pw_put(&w, hdr, sizeof(hdr));
			pw_put(&w, c + d->nblocks, 16ull * d->nblocks);
		}
	}
}

/* This image's place in its process's lineage (format.h struct
 * pi_prof_process): written first in every profile, and read back from
 * the profiles already at the names it could take. */
static struct pi_prof_process self_proc;
static int gen_chosen; /* exec_gen is known: every profile of this image
			  goes to one name (a failed exec's checkpoint is
			  replaced by the image's last profile) */

/* /proc/self/stat's 22nd field, the process's start in clock ticks after
 * boot: the same in every image an exec puts in the process, and a
 * process of the same pid before or after has another.  0 if unreadable. */
static uint64_t read_start_time(void)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* the command name (field 2) may hold anything: fields 3 on follow
	 * its last ')' */
	char *p = NULL;
	for (char *q = buf; *q; q++)
		if (*q == ')')
			p = q;
	if (!p)
		return 0;
	for (int field = 2; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return 0;
	}
	uint64_t v = 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

void rt_lineage_init(int forked)
{
	/* (in a fork's child, inside fork: errno is the program's) */
	int saved = errno;
	self_proc.pid = (uint32_t)rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	self_proc.start_time = read_start_time();
	errno = saved;
	self_proc.exec_gen = 0;
	if (forked)
		self_proc.fork_gen++;
	gen_chosen = 0;
}

/* The objects' maps stay in the executable (its profinst_map section,
 * found again by its build id: struct pi_prof_image) unless the executable
 * has no build id or PROFINST_SELF_CONTAINED=1 asks for them in the
 * profile: a profile is then its counts and its tree, and a short run of
 * a large program writes kilobytes, not the megabytes of its maps. */

/* The GNU build id of the image whose ELF header is at ehdr, from its
 * program headers: its size, or 0. */
static uint32_t build_id_of(const char *ehdr, uint8_t *out, uint32_t cap)
{
	if (!ehdr)
		return 0;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)ehdr;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(ehdr + eh->e_phoff);
	/* the image's load bias: where its first PT_LOAD's page landed */
	uint64_t bias = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			bias = (uint64_t)ehdr - (ph[i].p_vaddr - ph[i].p_offset);
			break;
		}
	for (int i = 0; i < eh->e_phnum; i++) {
		uint32_t got = ph[i].p_type != PT_NOTE ? 0
			       : pi_note_build_id((const uint8_t *)(bias + ph[i].p_vaddr), ph[i].p_memsz, out, cap);
		if (got)
			return got;
	}
	return 0;
}

static int maps_in_profile(void)
{
	static int in = -1;
	if (in < 0) {
		in = rt_env_on("PROFINST_SELF_CONTAINED");
	}
	return in;
}

static void write_maps(struct pw *w, const struct rt_image *im)
{
	for (const struct pi_objdesc *d = im->desc.objs; d < im->desc.objs_end; d++) {
		uint32_t hdr[2] = {rt_obj_index(d), 0};
		pw_rec(w, PI_REC_OBJECT, 8 + pi_obj_map(d)->size);
		pw_put(w, hdr, sizeof(hdr));
		pw_put(w, pi_obj_map(d), pi_obj_map(d)->size);
		pw_pad(w, 8 + pi_obj_map(d)->size);
	}
}

/* d's map, at its place in the section at maps */
static void put_ref(struct pw *w, const struct pi_objdesc *d, const char *maps)
{
	struct pi_prof_objref r = {
		.index = rt_obj_index(d),
		.offset = (uint64_t)((const char *)pi_obj_map(d) - maps),
		.size = d->map_size,
	};
	pw_put(w, &r, sizeof(r));
}

/* Each image's objects: their maps named in the image (the program's by
 * the header's path and an IMAGE record, a shared object's by a SHLIB
 * record with its path), unless asked for in the profile, or the image
 * has no build id, or its file is gone (replaced since it was loaded). */
static void write_objects(struct pw *w)
{
	const struct rt_image *prog = &rt_images[0];
	struct pi_prof_image im;
	memset(&im, 0, sizeof(im));
	int refs = !maps_in_profile() && prog->desc.map &&
		   (im.build_id_size = build_id_of(prog->desc.ehdr, im.build_id, sizeof(im.build_id)));
	if (refs) {
		pw_rec(w, PI_REC_IMAGE, sizeof(im));
		pw_put(w, &im, sizeof(im));
		pw_pad(w, sizeof(im));
		for (const struct pi_objdesc *d = prog->desc.objs; d < prog->desc.objs_end; d++) {
			pw_rec(w, PI_REC_OBJREF, sizeof(struct pi_prof_objref));
			put_ref(w, d, prog->desc.map);
			pw_pad(w, sizeof(struct pi_prof_objref));
		}
	} else {
		write_maps(w, prog);
	}
	for (uint32_t i = 1, n = rt_image_count(); i < n; i++) {
		const struct rt_image *so = &rt_images[i];
		struct pi_prof_shlib sl;
		memset(&sl, 0, sizeof(sl));
		static char path[256];
		uint64_t plen = 0;
		if (!maps_in_profile() && so->desc.map && so->desc.ehdr &&
		    (sl.build_id_size = build_id_of(so->desc.ehdr, sl.build_id, sizeof(sl.build_id))))
			plen = rt_mapping_path((uint64_t)so->desc.ehdr, path, sizeof(path));
		if (!plen || (plen >= 10 && rt_streq(path + plen - 10, " (deleted)"))) {
			write_maps(w, so);
			continue;
		}
		sl.nrefs = (uint32_t)(so->desc.objs_end - so->desc.objs);
		uint64_t size = sizeof(sl) + (uint64_t)sl.nrefs * sizeof(struct pi_prof_objref) + plen + 1;
		pw_rec(w, PI_REC_SHLIB, size);
		pw_put(w, &sl, sizeof(sl));
		for (const struct pi_objdesc *d = so->desc.objs; d < so->desc.objs_end; d++)
			put_ref(w, d, so->desc.map);
		pw_put(w, path, plen + 1);
		pw_pad(w, size);
	}
}

/* pattern with %p as the image's lineage (its pid, then ".xN" for the
 * N-th image exec'd after the first) and %% as %, into out[n] (truncated
 * to fit).  A pattern without %p takes ".xN" at its end. */
static void expand_path(char *out, size_t n, const char *pattern, uint32_t pid, uint32_t gen)
{
	size_t o = 0;
	int had_pid = 0;
	for (const char *p = pattern; *p && o + 1 < n; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(out + o, n - o, gen ? "%u.x%u" : "%u", pid, gen);
			had_pid = 1;
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			out[o++] = '%';
			p++;
		} else {
			out[o++] = *p;
		}
		if (o >= n)
			o = n - 1;
	}
	if (gen && !had_pid && o + 1 < n) {
		o += (size_t)snprintf(out + o, n - o, ".x%u", gen);
		if (o >= n)
			o = n - 1;
	}
	out[o] = 0;
}

/* What lies at path: 0 nothing, or what this image may take (a file of
 * another process, a FIFO or a device written in place, something
 * pi_out_open will refuse); 1 a profile of an earlier image of this very
 * process (same pid, same start), its record in *pr. */
static int earlier_image_at(const char *path, struct pi_prof_process *pr)
{
	struct stat st;
	if (lstat(path, &st))
		return 0;
	if (!S_ISREG(st.st_mode))
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct pi_prof_hdr h;
	struct pi_prof_rec r;
	int found = 0;
	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, PI_PROF_MAGIC, 8) &&
	    h.hdr_size >= sizeof(h) && h.hdr_size < (1u << 20) &&
	    pread(fd, &r, sizeof(r), h.hdr_size) == (ssize_t)sizeof(r) && r.tag == PI_REC_PROCESS &&
	    r.size >= sizeof(*pr) &&
	    pread(fd, pr, sizeof(*pr), h.hdr_size + sizeof(r)) == (ssize_t)sizeof(*pr))
		found = pr->pid == self_proc.pid && pr->start_time == self_proc.start_time && self_proc.start_time;
	close(fd);
	return found;
}

/* The name this image writes to: the first of the pattern's lineage names
 * (pid, pid.x1, pid.x2, ...) that no earlier image of this process holds.
 * Chosen once: the image's later profiles replace its own. */
static void choose_path(char *path, size_t n, const char *pattern)
{
	uint32_t pid = self_proc.pid;
	if (!gen_chosen) {
		uint32_t gen = 0;
		struct pi_prof_process pr;
		for (; gen < 10000; gen++) {
			expand_path(path, n, pattern, pid, gen);
			if (!earlier_image_at(path, &pr))
				break;
			self_proc.fork_gen = pr.fork_gen; /* an exec keeps the process's place */
		}
		self_proc.exec_gen = gen;
		gen_chosen = 1;
	}
	expand_path(path, n, pattern, pid, self_proc.exec_gen);
	snprintf(self_proc.lineage, sizeof(self_proc.lineage), self_proc.exec_gen ? "%u.x%u" : "%u", pid,
		 self_proc.exec_gen);
	self_proc.ppid = (uint32_t)rt_syscall6(SYS_getppid, 0, 0, 0, 0, 0, 0);
	ssize_t k = readlink("/proc/self/exe", self_proc.exe, sizeof(self_proc.exe) - 1);
	self_proc.exe[k > 0 ? k : 0] = 0;
}

static void say(const char *fmt, const char *a, const char *b)
{
	char msg[PI_OUT_PATH_MAX + 256];
	int n = snprintf(msg, sizeof(msg), fmt, a, b);
	if (n > (int)sizeof(msg) - 1)
		n = (int)sizeof(msg) - 1;
	if (n > 0 && write(2, msg, (size_t)n) < 0) {
	}
}

/* Who writes: the tid of the thread writing a profile (a checkpoint or
 * the last), or 0.  The last one written, nothing more is. */
static uint32_t writer;
static int final_written;
/* the output being written, for a fatal fault inside the writer itself */
static struct pi_out out;
static int quiet;   /* a checkpoint said why it could not write */
static int in_place; /* a checkpoint was written in place */

void rt_profile_reset(void)
{
	writer = 0;
	final_written = 0;
	quiet = in_place = 0;
}

static uint32_t gettid_raw(void)
{
	return (uint32_t)rt_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

/* Threads still running: their open frames are charged up to now.  They
 * are stopped (rt_stop_threads) or gone, but for self's. */
static void close_threads(struct rt_thread *head, struct pi_tls *self)
{
	for (struct rt_thread *th = head; th; th = th->next) {
		if (th->finished || th->unstopped)
			continue;
		struct pi_tls *t = th == self->th ? self : rt_tls_of(th);
		rt_clock_fold(t);
		rt_dcache_settle(t);
		rt_close_all(th, t->clock);
		th->final_clock = t->clock;
		th->skipped += t->skipped;
		t->skipped = 0;
	}
}

/* What was not recorded, per thread: a mark the views show. */
static void write_losses(struct rt_thread *head)
{
	uint64_t n = 0;
	for (struct rt_thread *th = head; th; th = th->next)
		n += (th->skipped != 0) + (th->dropped != 0) + (th->unstopped != 0);
	if (!n)
		return;
	pw_rec(&w, PI_REC_LOSS, n * sizeof(struct pi_prof_loss));
	for (struct rt_thread *th = head; th; th = th->next) {
		struct pi_prof_loss l[3] = {
			{.kind = PI_LOSS_NESTED, .thread = th->index, .count = th->skipped},
			{.kind = PI_LOSS_DROPPED, .thread = th->index, .count = th->dropped},
			{.kind = PI_LOSS_RUNNING, .thread = th->index, .count = th->unstopped},
		};
		for (int i = 0; i < 3; i++)
			if (l[i].count)
				pw_put(&w, &l[i], sizeof(l[i]));
	}
}

/* In a secure-execution program (setuid, setgid, file capabilities: the
 * kernel's AT_SECURE), the environment is the caller's, and the caller
 * must not choose what the program's privileges write: PROFINST_OUTPUT is
 * ignored, and the file is opened with the real user's and group's
 * rights (the thread's filesystem ids), so it lands only where the caller
 * could have written it.  With no ids to fall back to (capabilities
 * alone), nothing is written. */
static int secure_begin(uint32_t *saved_uid, uint32_t *saved_gid)
{
	long ruid = rt_syscall6(SYS_getuid, 0, 0, 0, 0, 0, 0), euid = rt_syscall6(SYS_geteuid, 0, 0, 0, 0, 0, 0);
	long rgid = rt_syscall6(SYS_getgid, 0, 0, 0, 0, 0, 0), egid = rt_syscall6(SYS_getegid, 0, 0, 0, 0, 0, 0);
	if (ruid == euid && rgid == egid)
		return -1;
	/* setfsuid returns the previous id; the gid first, while still
	 * privileged enough to change it */
	*saved_gid = (uint32_t)rt_syscall6(SYS_setfsgid, rgid, 0, 0, 0, 0, 0);
	*saved_uid = (uint32_t)rt_syscall6(SYS_setfsuid, ruid, 0, 0, 0, 0, 0);
	if (rt_syscall6(SYS_setfsuid, -1, 0, 0, 0, 0, 0) != ruid || rt_syscall6(SYS_setfsgid, -1, 0, 0, 0, 0, 0) != rgid)
		return -1;
	return 0;
}

static void secure_end(uint32_t uid, uint32_t gid)
{
	rt_syscall6(SYS_setfsuid, uid, 0, 0, 0, 0, 0);
	rt_syscall6(SYS_setfsgid, gid, 0, 0, 0, 0, 0);
}

/* A checkpoint's outcome, which its copy of the process gives as its exit
 * status: written to a file the last profile will replace, written in
 * place (a FIFO or a device: what is written there stays, so the last
 * profile is not written again), or not written (it said why, once). */
enum { WROTE_FILE = 0, WROTE_NOTHING = 1, WROTE_IN_PLACE = 2 };

/* Where this image's profile goes, and with what rights. */
struct target {
	char path[PI_OUT_PATH_MAX];
	int secure;
	uint32_t fsuid, fsgid;
};

/* Choose the output and take the rights to write it: 0, or -1 if nothing
 * may be written (said once).  Run in the process itself, not in a
 * checkpoint's copy, which would forget the name chosen. */
/* Is this program a build tool's probe of the compiler: autoconf's
 * conftest, CMake's try_compile (cmTC_...)?  configure and cmake run
 * dozens of them in the build tree, each a program profinst cc
 * instrumented, whose profiles nobody asked for. */
static int build_probe(void)
{
	char exe[PI_OUT_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = 0;
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	return !strcmp(base, "conftest") || !strcmp(base, "conftest.exe") || !strncmp(base, "cmTC_", 5);
}

static int target_begin(struct target *tg)
{
	tg->secure = getauxval(AT_SECURE) != 0;
	const char *pat = tg->secure ? NULL : getenv("PROFINST_OUTPUT");
	if (!(pat && *pat) && build_probe()) {
		/* written only where PROFINST_OUTPUT asks: no files left in a
		 * build tree by its configuration */
		quiet = 1;
		return -1;
	}
	if (tg->secure && secure_begin(&tg->fsuid, &tg->fsgid)) {
		if (!quiet)
			say("profinst: no profile written: a program with privileges of its own "
			    "(setuid, setgid or capabilities)%s%s\n", "", "");
		quiet = 1;
		return -1;
	}
	choose_path(tg->path, sizeof(tg->path), pat && *pat ? pat : "profinst.out.%p");
	return 0;
}

static void target_end(const struct target *tg)
{
	if (tg->secure)
		secure_end(tg->fsuid, tg->fsgid);
}

/* Write the profile of the threads from head on to tg. */
static int write_file(const struct target *tg, int sig, struct rt_thread *head, int checkpoint)
{
	int rc = WROTE_NOTHING;
	int secure = tg->secure;
	const char *path = tg->path;
	/* one line on standard error, whatever happens */
	const char *fail = secure ? "profinst: a setuid or setgid program: PROFINST_OUTPUT ignored, and no "
				    "profile written with the real user's rights to %s: %s\n"
				  : "profinst: cannot write profile %s: %s\n";
	const char *why;
	if (pi_out_open(&out, path, 0644, &why)) {
		if (!quiet)
			say(fail, path, why);
		return rc;
	}
	pw_init(&w, out.fd);
	struct pi_prof_hdr h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PI_PROF_MAGIC, 8);
	h.version = PI_PROF_VERSION;
	h.hdr_size = sizeof(h);
	h.pid = self_proc.pid;
	h.tsc_per_kcycle = rt_tsc_per_kcycle();
	h.features = PI_PROF_FEAT_UNITS; /* figures in the clock's units, exact */
	if (sig) {
		h.flags |= PI_PROF_ENDED_BY_SIGNAL;
		h.signal = (uint32_t)sig;
	}
	if (checkpoint)
		h.flags |= PI_PROF_CHECKPOINT;
	memcpy(h.exe, self_proc.exe, sizeof(h.exe));
	pw_put(&w, &h, sizeof(h));
	/* first, where a later image of the process looks for it */
	struct pi_prof_process pr = self_proc;
	pr.flags = h.flags;
	pw_rec(&w, PI_REC_PROCESS, sizeof(pr));
	pw_put(&w, &pr, sizeof(pr));
	pw_pad(&w, sizeof(pr));
	write_objects(&w);
	/* the targets of calls through pointers: named before the nodes that
	 * name them are written */
	rt_targets_write(&w, (uint32_t)rt_nobjs());
	/* the threads, then the records of the functions they name: under
	 * --counts, only those some node is of (the trees mark them as they
	 * are encoded) */
	if (rt_counts_in_nodes)
		rt_counting_begin_writing(head);
	for (struct rt_thread *th = head; th; th = th->next) {
		if (rt_counts_in_nodes)
			write_cthread(th);
		else
			write_thread(th);
	}
	uint64_t nf = 0;
	RT_EACH_FUNC(f)
		nf += record_written(f);
	pw_rec(&w, PI_REC_FUNCREC, nf * sizeof(struct pi_prof_funcrec));
	RT_EACH_FUNC(f) {
		if (!record_written(f))
			continue;
		struct pi_prof_funcrec pf;
		memset(&pf, 0, sizeof(pf));
		pf.obj = rt_obj_index(pi_rec_obj(f));
		pf.func = f->index;
		pf.npieces = f->npieces;
		for (uint32_t i = 0; i < f->npieces && i < PI_MAX_PIECES; i++) {
			pf.addr[i] = pi_rec_addr(f, i);
			pf.size[i] = f->size[i];
		}
		pw_put(&w, &pf, sizeof(pf));
	}
	write_losses(head);
	pw_rec(&w, PI_REC_END, 0);
	int bad = pw_flush(&w);
	int direct = out.direct;
	if (pi_out_commit(&out, !bad, &why)) {
		if (!quiet)
			say(fail, path, why);
		return rc;
	}
	rc = direct ? WROTE_IN_PLACE : WROTE_FILE;
	if (secure && !quiet)
		say("profinst: a setuid or setgid program: PROFINST_OUTPUT ignored, profile written with "
		    "the real user's rights to %s%s\n", path, "");
	return rc;
}

/* Take the writer's place: 1, or 0 if this thread holds it already (a
 * fault inside the writer: what it was writing is removed) or another
 * thread kept it for a minute. */
static int take_writer(uint32_t tid)
{
	for (int i = 0; i < 600000; i++) {
		uint32_t none = 0;
		if (__atomic_compare_exchange_n(&writer, &none, tid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 1;
		if (none == tid) {
			pi_out_abort(&out);
			return 0;
		}
		rt_sleep_us(100);
	}
	return 0;
}

/* Signals that come from outside wait until the profile is written: a
 * SIGTERM during the write would otherwise leave half a file.  Those a
 * fault raises cannot wait. */
static void block_signals(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

/* What the writer changes on its own thread while it writes, and puts back. */
struct writing {
	int saved_errno;
	sigset_t mask;
	uint32_t busy;
	int images_locked;
	struct rt_thread *head; /* the threads stopped */
};

/* Become the writer and stop the other threads: 0, or -1 if there is
 * nothing more to write (the last profile is written, or a checkpoint went
 * where nothing replaces it) or no writer's place to be had. */
static int begin_writing(struct pi_tls *t, struct writing *wr)
{
	if (!take_writer(gettid_raw()))
		return -1;
	if (final_written || in_place) {
		__atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
		return -1;
	}
	wr->saved_errno = errno;
	block_signals(&wr->mask);
	wr->busy = t->busy;
	t->busy = 1;
	wr->images_locked = rt_images_lock();
	wr->head = rt_stop_threads(t);
	return 0;
}

/* final: the last profile is written, nothing more is recorded. */
static void end_writing(struct pi_tls *t, struct writing *wr, int final)
{
	t->busy = wr->busy;
	if (wr->images_locked)
		rt_images_unlock();
	if (final) {
		t->dead |= RT_DEAD;
		__atomic_store_n(&final_written, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &wr->mask, NULL);
	errno = wr->saved_errno;
}

void rt_write_profile(int sig)
{
	struct pi_tls *t = &__profinst_tls;
	struct writing wr;
	if (!rt_threads || __atomic_load_n(&final_written, __ATOMIC_ACQUIRE)) {
		/* Another thread writes it: a fatal signal here waits for
		 * that write before it ends the process. */
		for (int i = 0; i < 600000 && __atomic_load_n(&writer, __ATOMIC_ACQUIRE); i++)
			rt_sleep_us(100);
		return;
	}
	if (begin_writing(t, &wr))
		return;
	close_threads(wr.head, t);
	struct target tg;
	if (!target_begin(&tg)) {
		write_file(&tg, sig, wr.head, 0);
		target_end(&tg);
	}
	end_writing(t, &wr, 1);
}

/* A profile of the process as it is now, while it goes on: for exec, which
 * ends this image only if it succeeds, and _exit.  A copy of the process
 * (a clone without shared memory, and without the SIGCHLD a program's
 * handler would see) closes the open frames and writes; this process
 * waits for it and carries on as it was.  If the exec fails, this image's
 * last profile goes to the same name and replaces it; the image an exec
 * puts in its place finds it there and takes the next name of the
 * lineage (choose_path). */
void rt_write_checkpoint(void)
{
	struct pi_tls *t = &__profinst_tls;
	struct writing wr;
	if (!rt_threads || begin_writing(t, &wr))
		return;
	struct target tg;
	if (target_begin(&tg)) {
		rt_resume_threads(wr.head);
		end_writing(t, &wr, 0);
		return;
	}
	long child = rt_syscall6(SYS_clone, 0 /* no flags, no exit signal */, 0, 0, 0, 0, 0);
	if (child == 0) {
		close_threads(wr.head, t);
		rt_syscall6(SYS_exit_group, write_file(&tg, 0, wr.head, 1), 0, 0, 0, 0, 0);
	}
	target_end(&tg);
	rt_resume_threads(wr.head);
	if (child > 0) {
		int status = 0;
		while (rt_syscall6(SYS_wait4, child, (long)&status, __WALL, 0, 0, 0) == -EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == WROTE_NOTHING)
			quiet = 1;
		if (WIFEXITED(status) && WEXITSTATUS(status) == WROTE_IN_PLACE)
			in_place = 1;
	}
	end_writing(t, &wr, 0);
	if (child < 0)
		rt_write_profile(0); /* no copy to be had: the last profile, now */
}
