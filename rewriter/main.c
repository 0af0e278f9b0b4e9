/* SPDX-License-Identifier: MIT */
/*
 * profinst: instrument relocatable objects and archives, and link them with
 * the runtime into a profiling executable.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ar.h>

#include "archive.h"
#include "cleanup.h"
#include "insndesc.h"
#include "inspect.h"
#include "instrument.h"
#include "model.h"
#include "util.h"
#include "wrapper.h"
#include "safefile.h"
#include "stub_abi.h"

#ifndef PROFINST_VERSION
#define PROFINST_VERSION "0.1"
#endif

static const char usage_text[] =
	"Usage: profinst [OPTION]... INPUT... -o OUTPUT [LINKER-ARG]...\n"
	"       profinst -c INPUT -o OUTPUT\n"
	"       profinst [OPTION]... COMPILER ARG...\n"
	"\n"
	"Instrument every function of the relocatable objects (.o) and static\n"
	"archives (.a) given as INPUT, and link them with the profinst runtime into\n"
	"OUTPUT. Running OUTPUT writes an exact, deterministic profile (every call\n"
	"and every basic block counted, costed in cycles of a CPU timing model) to\n"
	"$PROFINST_OUTPUT, or to profinst.out.PID; read it with profview.\n"
	"\n"
	"Arguments that are not objects or archives (-lm, -L..., -Wl,..., shared\n"
	"libraries) are passed to the compiler driver that links, in their order.\n"
	"\n"
	"In a compiler's place (COMPILER: cc, gcc, clang, c++, g++, clang++, a path\n"
	"to one or a versioned name), profinst runs the command as it is, unless it\n"
	"links an executable or (-shared) a shared object: then it compiles the\n"
	"command's sources, instruments its objects and archives, and the archives\n"
	"its -lNAME find in its own -L directories (not the system's libraries),\n"
	"and links them with the runtime (or for it) by the same compiler. So\n"
	"make CC=\"profinst cc\" and CMake's -DCMAKE_C_LINKER_LAUNCHER=profinst\n"
	"build an instrumented program and its shared objects; options go before\n"
	"the compiler (CC=\"profinst --cpu=zen5 cc\").\n"
	"\n"
	"Options:\n"
	"  -o FILE           write the executable (or, with -c, the object) to FILE\n"
	"  -c                instrument one object or archive and write it, do not link\n"
	"  -shared           link a shared object (its objects compiled -fPIC) for a\n"
	"                    program to load, linked with it or by dlopen; its\n"
	"                    functions are in the program's profile (a program not\n"
	"                    instrumented writes one of them when it exits)\n"
	"  --cpu=NAME        timing model (default: host); see --list-cpus\n"
	"  --list-cpus       list the timing models and exit\n"
	"  --describe-cpu    print what the model of --cpu fixes (latencies, penalties,\n"
	"                    caches, C library and allocator costs, in cycles) and exit\n"
	"  --model-stats     say how many instructions the model found in its tables\n"
	"                    and which forms fell back to their category (without -o:\n"
	"                    analyse the inputs only)\n"
	"  --dump-blocks     analyse only: print each basic block (object, function+off,\n"
	"                    instructions, modelled cycles as instrumented: repeated\n"
	"                    on a small loop, else in flow, a return's cost beyond a\n"
	"                    taken jump left to the caller; bytes in hex; and cycles\n"
	"                    as the block runs alone in a loop: without a final jump,\n"
	"                    call or ret, with a final jcc not taken), tab-separated\n"
	"  --dump-forms      analyse only: print the instruction forms of the inputs\n"
	"                    (form, count, an example, its bytes), most frequent first\n"
	"  --counts          the default: the stubs keep the calling-context tree and\n"
	"                    count every block per context; the profile holds the\n"
	"                    counts, costed when it is read, so a call or a return\n"
	"                    costs a few loads and stores, and no helper call\n"
	"  --timed           a helper at every call and return keeps the frames and a\n"
	"                    clock the blocks add to: per-call min/max self time, page\n"
	"                    faults charged as they come, the front end's call and\n"
	"                    return bubbles, the allocator's model and the simulations\n"
	"                    below; the program runs about twice as slowly again\n"
	"  --branch-sim      (--timed, which it implies) simulate the core's branch\n"
	"                    predictor as the program runs and charge each mispredicted\n"
	"                    conditional jump the model's penalty (deterministic, like\n"
	"                    the block costs; the program runs tens of times slower)\n"
	"  --cache-sim       (--timed, which it implies) simulate the core's data caches\n"
	"                    on the loads whose address comes from another load (a\n"
	"                    pointer followed, an index read from a table) and charge\n"
	"                    each the time it waits for that load's miss, which the\n"
	"                    core cannot hide; models with caches only (--list-cpus)\n"
	"  --no-page-faults  (--timed) do not charge page faults (by default a model\n"
	"                    that costs them, see --describe-cpu, charges each minor\n"
	"                    fault the kernel reports to the function that took it)\n"
	"  --charge-waits    charge the time of calls that wait on the outside world\n"
	"                    (sleeps, poll/select, waits for children and threads,\n"
	"                    reads from a terminal); by default it is measured and\n"
	"                    reported but left out of the cycles\n"
	"  --cc=DRIVER       compiler driver used to link (default: cc, or c++ when an\n"
	"                    input holds C++ code; also $PROFINST_CC)\n"
	"  --runtime=FILE    the runtime archive (default: found next to profinst;\n"
	"                    also $PROFINST_RUNTIME)\n"
	"  --keep-temps      keep the instrumented objects (their directory is printed)\n"
	"  -v, --verbose     print the link command and a summary\n"
	"  -q, --quiet       no warnings\n"
	"  -h, --help        show this help and exit\n"
	"  --version         show the version and exit\n"
	"\n"
	"Exit status: 0 on success, 1 if an input cannot be processed or the link\n"
	"fails (no output is left behind), 2 on a usage error.\n"
	"\n"
	"Examples:\n"
	"  profinst main.o util.o /usr/lib/x86_64-linux-gnu/libz.a -o app.prof -lm\n"
	"  PROFINST_OUTPUT=app.%p.prof ./app.prof\n"
	"  profview report app.<pid>.prof\n"
	"  make CC=\"profinst cc\"          (a build's link steps, instrumented)\n";

struct opts {
	const char *out;
	const char *cc;
	const char *runtime;
	const struct cpu_model *model;
	bool compile_only;
	bool shared; /* -shared: a shared object, not a program */
	bool keep;
	bool verbose;
	bool model_stats, dump_blocks, dump_forms, describe_cpu;
	struct rewrite_opts ro;
	char **inputs; /* all non-option arguments and linker args, in order */
	size_t ninputs, incap;
};

struct file {
	uint8_t *data;
	size_t size;
};

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Read a whole input. Only a regular file: a device such as /dev/zero
 * never ends, and a FIFO could hold the run until someone writes. */
static int read_file(const char *path, struct file *f)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		pi_error("%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st)) {
		pi_error("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		pi_error("%s: not an object file or archive (it is %s)", path, file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	struct buf b = {0};
	/* the size it has now, and what it may have grown by */
	buf_zero(&b, (size_t)st.st_size + 1);
	size_t got = 0;
	for (;;) {
		if (got == b.len)
			buf_zero(&b, b.len);
		ssize_t n = read(fd, b.p + got, b.len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			pi_error("%s: %s", path, strerror(errno));
			buf_free(&b);
			close(fd);
			return -1;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	close(fd);
	f->data = b.p;
	f->size = got;
	return 0;
}

/* Write the bytes of parts[0..nparts), one after the other, to the output
 * path: through a temporary next to it, renamed over it
 * (libprof/safefile.h), which no planted link redirects. */
static int write_output(const char *path, const struct iovec *parts, size_t nparts)
{
	struct pi_out out;
	const char *why;
	cleanup_hold();
	int rc = pi_out_open(&out, path, 0666, &why);
	int slot = !rc && !out.direct ? cleanup_add(out.tmp, 0) : -1;
	cleanup_release();
	if (rc) {
		pi_error("%s: cannot write the output: %s", path, why);
		return -1;
	}
	bool ok = true;
	for (size_t i = 0; i < nparts && ok; i++)
		for (size_t at = 0; at < parts[i].iov_len && ok;) {
			ssize_t n = write(out.fd, (const char *)parts[i].iov_base + at, parts[i].iov_len - at);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				why = strerror(n < 0 ? errno : EIO);
				ok = false;
			}
			else
				at += (size_t)n;
		}
	const char *cwhy;
	if (!ok) {
		pi_out_abort(&out);
		cleanup_forget(slot);
		pi_error("%s: %s", path, why);
		return -1;
	}
	rc = pi_out_commit(&out, 1, &cwhy);
	cleanup_forget(slot);
	if (rc)
		pi_error("%s: %s", path, cwhy);
	return rc;
}

static bool has_cxx(const struct object *o)
{
	for (size_t i = 0; i < o->nsyms; i++)
		if (!strncmp(o->syms[i].name, "_Z", 2) || !strcmp(o->syms[i].name, "__gxx_personality_v0"))
			return true;
	return false;
}

static bool tty_progress;

static void progress(const char *what, size_t i, size_t n)
{
	if (!tty_progress)
		return;
	fprintf(stderr, "\rprofinst: instrumenting %s: %zu/%zu", what, i, n);
	if (i == n)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* Instrument one ELF image into out (the new object's bytes). */
static int instrument_image(const char *name, const uint8_t *img, size_t size, const struct opts *op,
			    struct istats *st, bool *cxx, struct buf *out)
{
	struct object o;
	if (obj_read(&o, name, img, size)) {
		obj_free(&o);
		return -1;
	}
	if (cxx && has_cxx(&o))
		*cxx = true;
	int rc = instrument_object(&o, &op->ro, st);
	if (!rc)
		rc = obj_write_image(&o, out);
	obj_free(&o);
	return rc;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/*
 * Call fn on every object of path: the object itself, or each ELF member of
 * an archive (named "lib.a(member.o)"; other members are kept as they are).
 * fn may replace an object's bytes; with out_path, the file as it is then
 * (the archive rebuilt) is written there (write_output).  0, or -1 after a
 * message.
 */
typedef int (*object_fn)(const char *name, bool member, uint8_t **data, size_t *size, void *arg);

static int each_object(const char *path, object_fn fn, void *arg, const char *out_path)
{
	struct file f;
	if (read_file(path, &f))
		return -1;
	int rc = 0;
	if (is_archive(f.data, f.size)) {
		struct archive a;
		if (archive_read(&a, path, f.data, f.size)) {
			free(f.data);
			archive_free(&a);
			return -1;
		}
		for (size_t i = 0; i < a.n && !rc; i++) {
			progress(base_name(path), i, a.n);
			struct ar_member *m = &a.m[i];
			/* bitcode would be linked by the plugin, not instrumented:
			 * obj_read says so */
			if ((m->size < 4 || memcmp(m->data, "\177ELF", 4)) && !obj_is_bitcode(m->data, m->size))
				continue; /* not an object: keep as it is */
			char *name = xasprintf("%s(%s)", base_name(path), m->name);
			rc = fn(name, true, &m->data, &m->size, arg);
			free(name);
		}
		progress(base_name(path), a.n, a.n);
		if (!rc && out_path) {
			struct buf head = {0};
			struct iovec *parts;
			size_t nparts;
			rc = archive_image(&a, path, &head, &parts, &nparts);
			if (!rc)
				rc = write_output(out_path, parts, nparts);
			free(parts);
			buf_free(&head);
		}
		archive_free(&a);
	} else if (f.size >= 4 && !memcmp(f.data, "\177ELF", 4)) {
		rc = fn(base_name(path), false, &f.data, &f.size, arg);
		if (!rc && out_path)
			rc = write_output(out_path, &(struct iovec){f.data, f.size}, 1);
	} else {
		/* let obj_read say what it is */
		struct object o;
		rc = obj_read(&o, path, f.data, f.size);
		obj_free(&o);
		if (!rc) {
			pi_error("%s: not an object file or archive", path);
			rc = -1;
		}
	}
	free(f.data);
	return rc;
}

struct instrument_job {
	const struct opts *op;
	struct istats *st;
	bool *cxx;
};

static int instrument_one(const char *name, bool member, uint8_t **data, size_t *size, void *arg)
{
	(void)member;
	struct instrument_job *j = arg;
	struct buf out = {0};
	int rc = instrument_image(name, *data, *size, j->op, j->st, j->cxx, &out);
	if (!rc) {
		free(*data);
		*data = out.p;
		*size = out.len;
	} else {
		buf_free(&out);
	}
	return rc;
}

/* Instrument input path (an object or an archive) into out_path. */
static int instrument_file(const char *path, const char *out_path, const struct opts *op,
			   struct istats *st, bool *cxx)
{
	struct instrument_job j = {op, st, cxx};
	return each_object(path, instrument_one, &j, out_path);
}

static int inspect_one(const char *name, bool member, uint8_t **data, size_t *size, void *arg)
{
	(void)member;
	struct object o;
	int rc = obj_read(&o, name, *data, *size);
	if (!rc)
		rc = inspect_object(arg, &o);
	obj_free(&o);
	return rc;
}

/* Analyse every object of path (an object or an archive) without writing. */
static int inspect_file(const char *path, struct inspect *in)
{
	return each_object(path, inspect_one, in, NULL);
}

static int do_inspect(struct opts *op)
{
	struct inspect in = {.model = op->model, .blocks = op->dump_blocks ? stdout : NULL,
			     .forms = op->dump_forms};
	int rc = 0;
	for (size_t i = 0; i < op->ninputs && !rc; i++) {
		if (op->inputs[i][0] == '-') {
			pi_error("unexpected argument %s (analysis takes objects and archives only)",
				 op->inputs[i]);
			rc = 2;
			break;
		}
		if (inspect_file(op->inputs[i], &in))
			rc = 1;
	}
	inspect_finish(&in, stdout);
	if (op->model_stats && !rc)
		model_stats_print(&in.ms, op->model, op->dump_blocks || op->dump_forms ? stderr : stdout);
	model_stats_free(&in.ms);
	return rc;
}

static bool is_input_file(const char *arg)
{
	if (arg[0] == '-')
		return false;
	size_t n = strlen(arg);
	if (n > 2 && (!strcmp(arg + n - 2, ".o") || !strcmp(arg + n - 2, ".a")))
		return true;
	/* other existing regular files: objects or archives by their magic
	 * (a FIFO is not opened: that could wait for a writer forever) */
	struct stat st;
	if (stat(arg, &st) || !S_ISREG(st.st_mode))
		return false;
	int fd = open(arg, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	unsigned char h[18] = {0};
	ssize_t got = read(fd, h, sizeof(h));
	close(fd);
	if (got >= 8 && !memcmp(h, ARMAG, 8))
		return true;
	/* clang's LTO objects: an input, to be refused (the linker's plugin
	 * would link them uninstrumented) */
	if (got > 0 && obj_is_bitcode(h, (size_t)got))
		return true;
	/* ELF: ET_REL only; shared libraries pass through */
	return got == (ssize_t)sizeof(h) && !memcmp(h, "\177ELF", 4) && h[16] == 1 && h[17] == 0;
}

static char *find_runtime(const struct opts *op)
{
	if (op->runtime)
		return xstrdup(op->runtime);
	const char *env = getenv("PROFINST_RUNTIME");
	if (env && *env)
		return xstrdup(env);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *dir = dirname(exe);
		static const char *rel[] = {"/../runtime/libprofinst_rt.a", "/../lib/profinst/libprofinst_rt.a",
					    "/libprofinst_rt.a"};
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			char *p = xasprintf("%s%s", dir, rel[i]);
			if (!access(p, R_OK))
				return p;
			free(p);
		}
	}
#ifdef PROFINST_RUNTIME_PATH
	if (!access(PROFINST_RUNTIME_PATH, R_OK))
		return xstrdup(PROFINST_RUNTIME_PATH);
#endif
	pi_error("cannot find the runtime library libprofinst_rt.a (use --runtime=FILE)");
	return NULL;
}

static int run(char **argv, bool verbose)
{
	if (verbose) {
		fprintf(stderr, "profinst:");
		for (char **a = argv; *a; a++)
			fprintf(stderr, " %s", *a);
		fputc('\n', stderr);
	}
	fflush(stderr);
	/* the child known as soon as it exists: a signal that ends profinst
	 * stops it before removing what it may be writing */
	cleanup_hold();
	pid_t pid = fork();
	if (pid == 0) {
		cleanup_release();
		execvp(argv[0], argv);
		fprintf(stderr, "profinst: error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		cleanup_child = pid;
	cleanup_release();
	if (pid < 0) {
		pi_error("fork: %s", strerror(errno));
		return -1;
	}
	int status;
	int rc = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			rc = -1;
			break;
		}
	cleanup_child = 0;
	if (rc)
		return rc;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A directory of profinst's own, registered for removal: 0, or -1 after a
 * message. template ends in XXXXXX. */
static int private_dir(char *template, int *slot)
{
	cleanup_hold();
	char *dir = mkdtemp(template);
	*slot = dir ? cleanup_add(dir, 1) : -1;
	cleanup_release();
	if (!dir) {
		pi_error("%s: cannot create a directory: %s", template, strerror(errno));
		return -1;
	}
	if (*slot < 0) {
		remove_tree(dir);
		pi_error("%s: too many temporary files", dir);
		return -1;
	}
	return 0;
}

static void add_name(const char *name, void *arg)
{
	nameset_add(arg, name);
}

static int defined_in(const char *name, bool member, uint8_t **data, size_t *size, void *arg)
{
	(void)name, (void)member;
	elf_defined_globals(*data, *size, add_name, arg);
	return 0;
}

/* The global symbols every input defines: a call to any other function
 * leaves instrumented code. */
static int collect_defined(struct opts *op, struct nameset *defined)
{
	bool tty = tty_progress;
	tty_progress = false;
	int rc = 0;
	for (size_t i = 0; i < op->ninputs && !rc; i++)
		if (is_input_file(op->inputs[i]))
			rc = each_object(op->inputs[i], defined_in, defined, NULL);
	tty_progress = tty;
	return rc;
}

/* The functions that the instrumented shared objects the link names
 * define (a path, or -lNAME found in the link's own -L directories as
 * libNAME.so): the program's calls to them leave its code for theirs,
 * which the runtime looks up by name. */
static int collect_shared(struct opts *op, struct nameset *shared)
{
	size_t nl = 0;
	const char **dirs = xcalloc(op->ninputs + 1, sizeof(char *));
	for (size_t i = 0; i < op->ninputs; i++) {
		const char *a = op->inputs[i];
		if (!strcmp(a, "-L") && i + 1 < op->ninputs)
			dirs[nl++] = op->inputs[++i];
		else if (!strncmp(a, "-L", 2) && a[2])
			dirs[nl++] = a + 2;
	}
	int rc = 0;
	for (size_t i = 0; i < op->ninputs && !rc; i++) {
		const char *a = op->inputs[i];
		const char *lib = !strcmp(a, "-l") && i + 1 < op->ninputs ? op->inputs[++i]
				  : !strncmp(a, "-l", 2) && a[2] ? a + 2 : NULL;
		if (lib && lib[0] != ':') {
			for (size_t d = 0; d < nl; d++) {
				char *p = xasprintf("%s/lib%s.so", dirs[d], lib);
				bool there = !access(p, R_OK);
				if (there && obj_shared_functions(p, add_name, shared) < 0)
					rc = 1;
				free(p);
				if (there)
					break;
			}
		} else if (a[0] != '-' && !is_input_file(a) && !access(a, R_OK)) {
			struct stat st;
			if (!stat(a, &st) && S_ISREG(st.st_mode) && obj_shared_functions(a, add_name, shared) < 0)
				rc = 1;
		}
	}
	free(dirs);
	return rc;
}

/* What a program's runtime gives the instrumented shared objects it
 * loads (their stubs' helpers and thread block, and where they register):
 * in its dynamic symbol table, for one loaded by dlopen too. */
static const char *const runtime_exports[] = {
	STUB_TLS_SYMBOL, STUB_ENTER_SYMBOL, STUB_ENTER_FLAGS_SYMBOL, STUB_EXIT_SYMBOL, STUB_TAILEXIT_SYMBOL,
	STUB_REP_SYMBOL, STUB_RESYNC_SYMBOL, STUB_FLUSH_SYMBOL, STUB_BRANCH_SYMBOL, STUB_LOAD_SYMBOL,
	STUB_EXT_ENTER_SYMBOL, STUB_EXT_EXIT_SYMBOL, STUB_EXT_EXIT_FIXED_SYMBOL, STUB_SYS_ENTER_SYMBOL,
	STUB_SYS_EXIT_SYMBOL, STUB_ICALL_SYMBOL, STUB_FRAMES_SYMBOL, STUB_CFRAME_SYMBOL, STUB_CENTRY_SYMBOL,
	STUB_CENTRY_FLAGS_SYMBOL, STUB_PENTRY_SYMBOL, STUB_CEXTNEW_SYMBOL, STUB_CPTR_SYMBOL, STUB_CPTR_TAIL_SYMBOL,
	STUB_LOCALE_SET_SYMBOL, STUB_SOLO_WORD_SYMBOL, STUB_CRESYNC_SYMBOL, STUB_CPARK_SYMBOL,
	STUB_CUNPARK_SYMBOL, STUB_CMEAS_START_SYMBOL, STUB_CMEAS_STOP_SYMBOL, "__profinst_image_add", NULL,
};

/* name (libprofinst_so.a, libprofinst_rt_shared.so), next to the runtime
 * archive */
static char *find_beside(const char *runtime, const char *name)
{
	const char *slash = strrchr(runtime, '/');
	char *p = xasprintf("%.*s%s", slash ? (int)(slash - runtime + 1) : 0, runtime, name);
	char *real = realpath(p, NULL); /* (a shared object's run path: absolute) */
	if (real) {
		free(p);
		return real;
	}
	pi_error("cannot find %s, which a shared object's link needs (next to the runtime archive %s)", p,
		 runtime);
	free(p);
	return NULL;
}

static int do_link(struct opts *op)
{
	/* An output that is not a regular file is never replaced: said before
	 * any work, and checked again just before the rename. */
	const char *why;
	if (pi_out_replaceable(op->out, &why)) {
		pi_error("%s: cannot write the output: %s", op->out, why);
		return 1;
	}
	/* Everything goes into a directory of profinst's own next to the
	 * output: the instrumented objects, and the linked program (the
	 * driver creates its output itself, at a name it is given), renamed
	 * onto the output at the end. */
	char *dir = xasprintf("%s.profinst-XXXXXX", op->out);
	int dslot;
	if (private_dir(dir, &dslot)) {
		free(dir);
		return 1;
	}
	struct istats st = {0};
	bool cxx = false;
	int rc = 0;
	struct nameset defined = {0};
	if (collect_defined(op, &defined))
		rc = 1;
	op->ro.defined = &defined;
	struct nameset shared = {0};
	if (!op->shared && collect_shared(op, &shared))
		rc = 1;
	op->ro.shared = shared.n ? &shared : NULL;
	char **argv = xcalloc(op->ninputs + 64, sizeof(char *));
	char **owned = xcalloc(op->ninputs + 2, sizeof(char *));
	size_t na = 0, nown = 0;
	char *runtime = find_runtime(op);
	char *so_archive = NULL, *shared_rt = NULL, *rpath = NULL;
	if (!runtime || (op->shared && (!(so_archive = find_beside(runtime, "libprofinst_so.a")) ||
					!(shared_rt = find_beside(runtime, "libprofinst_rt_shared.so")))))
		rc = 1;
	const char *cc = op->cc ? op->cc : getenv("PROFINST_CC");
	char *linked = xasprintf("%s/%s", dir, base_name(op->out));
	argv[na++] = NULL; /* driver, below */
	argv[na++] = "-o";
	argv[na++] = linked;
	size_t nobj = 0;
	/* --counts: a global function some object leaves as it was must be
	 * external to its callers in the others (its caller's node would
	 * stay current in it): a second pass, if any was */
	struct nameset left = {0};
	if (op->ro.counting)
		st.left = &left;
	size_t na0 = na;
	bool quiet = pi_quiet;
pass:
	for (size_t i = 0; i < op->ninputs && !rc; i++) {
		const char *in = op->inputs[i];
		if (!is_input_file(in)) {
			if (in[0] != '-' && access(in, F_OK)) {
				pi_error("%s: %s", in, strerror(errno));
				rc = 1;
				break;
			}
			argv[na++] = (char *)in;
			continue;
		}
		/* a distinct name per input; the linker goes by content, not by
		 * suffix, so the base name is kept as it is */
		char *p = xasprintf("%s/%zu-%s", dir, nobj++, base_name(in));
		owned[nown++] = p;
		if (instrument_file(in, p, op, &st, &cxx))
			rc = 1;
		argv[na++] = p;
	}
	if (!rc && st.left && left.n && !op->ro.left) {
		/* again, every input, with those names external (its warnings
		 * were given) */
		op->ro.left = &left;
		pi_quiet = true;
		st.left = NULL;
		model_stats_free(&st.model);
		st = (struct istats){0};
		cxx = false;
		for (size_t i = 0; i < nown; i++)
			free(owned[i]);
		nown = 0, nobj = 0, na = na0;
		goto pass;
	}
	pi_quiet = quiet;
	op->ro.left = NULL;
	nameset_free(&left);
	if (!rc && !nobj) {
		pi_error("no object or archive to instrument");
		rc = 2;
	}
	char **exports = xcalloc(sizeof(runtime_exports) / sizeof(runtime_exports[0]), sizeof(char *));
	if (!rc) {
		argv[0] = (char *)(cc ? cc : cxx ? "c++" : "cc");
		if (op->shared) {
			/* the runtime is the program's, or (a program
			 * profinst did not instrument) the shared runtime,
			 * which the object names; the object stays loaded
			 * (its records are the profile's) */
			argv[na++] = "-shared";
			argv[na++] = "-Wl,--whole-archive";
			argv[na++] = so_archive;
			argv[na++] = "-Wl,--no-whole-archive";
			argv[na++] = "-Wl,--no-as-needed";
			argv[na++] = shared_rt;
			const char *slash = strrchr(shared_rt, '/');
			argv[na++] = rpath = xasprintf("-Wl,-rpath,%.*s", (int)(slash - shared_rt), shared_rt);
			argv[na++] = "-Wl,-z,nodelete";
		} else {
			argv[na++] = runtime;
			argv[na++] = "-lpthread";
			for (size_t i = 0; runtime_exports[i]; i++)
				argv[na++] = exports[i] = xasprintf("-Wl,--export-dynamic-symbol=%s", runtime_exports[i]);
		}
		argv[na] = NULL;
		int lr = run(argv, op->verbose);
		if (lr) {
			pi_error("link failed (%s exited with status %d)", argv[0], lr);
			rc = 1;
		} else if (pi_out_replaceable(op->out, &why)) {
			pi_error("%s: cannot write the output: %s", op->out, why);
			rc = 1;
		} else if (rename(linked, op->out)) {
			pi_error("%s: %s", op->out, strerror(errno));
			rc = 1;
		}
	}
	if (op->model_stats && !rc)
		model_stats_print(&st.model, op->model, stderr);
	model_stats_free(&st.model);
	if (op->verbose && !rc)
		fprintf(stderr, "profinst: %zu objects, %zu functions (%zu left uninstrumented), %zu blocks, %zu instructions, %zu external functions called\n",
			st.objects, st.functions, st.uninstrumented, st.blocks, st.insns, st.externals);
	if (op->keep) {
		fprintf(stderr, "profinst: instrumented objects kept in %s\n", dir);
		cleanup_forget(dslot);
	} else {
		cleanup_remove(dslot);
	}
	for (size_t i = 0; i < nown; i++)
		free(owned[i]);
	free(owned);
	free(linked);
	free(dir);
	free(runtime);
	free(so_archive);
	free(shared_rt);
	free(rpath);
	for (size_t i = 0; runtime_exports[i]; i++)
		free(exports[i]);
	free(exports);
	free(argv);
	nameset_free(&defined);
	nameset_free(&shared);
	op->ro.shared = NULL;
	op->ro.defined = NULL;
	return rc;
}

/* profinst [OPTION]... COMPILER ARG... (wrapper.h): the command as it
 * is, unless it links an executable or a shared object; then its sources
 * are compiled, and its objects and archives instrumented and linked
 * (with the runtime, or for it). */
static int do_wrap(struct opts *op, char **args, size_t n)
{
	struct wrap w;
	wrap_plan(args, n, &w);
	if (w.links && w.shared && !op->ro.counting) {
		/* (a build's shared objects as they are, its programs timed) */
		pi_warn("%s: a shared object is instrumented for the counting runtime only: linked as it is "
			"(--timed, --branch-sim, --cache-sim)", w.out);
		w.links = false;
	}
	if (!w.links) {
		wrap_free(&w);
		fflush(NULL);
		execvp(args[0], args);
		pi_error("cannot run %s: %s", args[0], strerror(errno));
		return 127;
	}
	const char *tmpdir = getenv("TMPDIR");
	char *dir = xasprintf("%s/profinst-cc.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int dslot;
	if (private_dir(dir, &dslot)) {
		free(dir);
		wrap_free(&w);
		return 1;
	}
	char **inputs = xcalloc(w.nlink + 1, sizeof(char *));
	char **cmd = xcalloc(w.ncompile + 6, sizeof(char *));
	memcpy(cmd, w.compile, w.ncompile * sizeof(char *));
	int rc = 0;
	for (size_t i = 0; i < w.nlink && !rc; i++) {
		if (!w.source[i]) {
			inputs[i] = w.link[i];
			continue;
		}
		/* a source on the link's command line: compiled as the
		 * compiler would, into an object to instrument, named as
		 * -c would name it (the profile shows that name) */
		char *sub = xasprintf("%s/%zu", dir, i);
		const char *base = base_name(w.link[i]), *dot = strrchr(base, '.');
		inputs[i] = xasprintf("%s/%.*s.o", sub, (int)(dot ? dot - base : (long)strlen(base)), base);
		if (mkdir(sub, 0700)) {
			pi_error("%s: %s", sub, strerror(errno));
			free(sub);
			rc = 1;
			break;
		}
		free(sub);
		size_t k = w.ncompile;
		cmd[k++] = "-c";
		cmd[k++] = w.link[i];
		cmd[k++] = "-o";
		cmd[k++] = inputs[i];
		cmd[k] = NULL;
		rc = run(cmd, op->verbose); /* the compiler says what is wrong */
	}
	if (!rc) {
		op->inputs = inputs;
		op->ninputs = w.nlink;
		op->out = w.out;
		op->shared = w.shared;
		op->ro.pic = w.shared;
		if (!op->cc)
			op->cc = args[0];
		rc = do_link(op);
		op->inputs = NULL;
		op->ninputs = 0;
	}
	for (size_t i = 0; i < w.nlink; i++)
		if (w.source[i])
			free(inputs[i]);
	free(inputs);
	free(cmd);
	cleanup_remove(dslot);
	free(dir);
	wrap_free(&w);
	return rc;
}

static int do_compile(struct opts *op)
{
	size_t nin = 0;
	const char *in = NULL;
	for (size_t i = 0; i < op->ninputs; i++) {
		if (op->inputs[i][0] == '-') {
			pi_error("-c: unexpected argument %s", op->inputs[i]);
			return 2;
		}
		in = op->inputs[i];
		nin++;
	}
	if (nin != 1) {
		pi_error("-c takes exactly one input (object or archive)");
		return 2;
	}
	struct istats st = {0};
	int rc = instrument_file(in, op->out, op, &st, NULL);
	if (op->model_stats && !rc)
		model_stats_print(&st.model, op->model, stderr);
	model_stats_free(&st.model);
	return rc ? 1 : 0;
}

/* HEAP_RESERVE bytes of heap at the start, in huge pages where the kernel
 * gives them on request (transparent huge pages in madvise mode): an
 * archive's instrumentation touches tens of megabytes (its images, the
 * instructions' descriptions, each object's analysis), and a fault of a
 * 4 KiB page each was a fifth of profinst's time (libsqlite3.a: 9,100
 * faults; in huge pages, 800).  Untouched, the reserve is address space
 * alone. */
#define HEAP_RESERVE (256u << 20)

static void heap_setup(void)
{
	/* the objects of an archive are instrumented one after the other,
	 * each in memory the one before freed: kept by malloc for the next
	 * (not handed back to the kernel, a large block at each free, and
	 * faulted in again, zeroed, at the next object's first touch) */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	/* the heap grown by the reserve at once, and advised */
	mallopt(M_TOP_PAD, HEAP_RESERVE);
	void *p = malloc(1 << 20);
	uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, end = (uintptr_t)sbrk(0);
	if (p && end > start && end - start <= 2 * (size_t)HEAP_RESERVE)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
	free(p);
	mallopt(M_TOP_PAD, 128 << 10); /* (its default) */
}

int main(int argc, char **argv)
{
	heap_setup();
	struct opts op = {0};
	bool counts = false, timed = false; /* (--counts, --timed as given) */
	const char *cpu = "host";
	char **wrap = NULL;
	size_t nwrap = 0;
	tty_progress = isatty(2);
	cleanup_init();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("profinst %s\n", PROFINST_VERSION);
			return 0;
		} else if (!strcmp(a, "--list-cpus")) {
			model_list(stdout);
			return 0;
		} else if (!strcmp(a, "--describe-cpu")) {
			op.describe_cpu = true;
		} else if (!strncmp(a, "--cpu=", 6)) {
			cpu = a + 6;
		} else if (!strcmp(a, "--cpu") && i + 1 < argc) {
			cpu = argv[++i];
		} else if (!strncmp(a, "--cc=", 5)) {
			op.cc = a + 5;
		} else if (!strncmp(a, "--runtime=", 10)) {
			op.runtime = a + 10;
		} else if (!strcmp(a, "--charge-waits")) {
			op.ro.charge_waits = true;
		} else if (!strcmp(a, "--branch-sim")) {
			op.ro.branch_sim = true;
		} else if (!strcmp(a, "--cache-sim")) {
			op.ro.cache_sim = true;
		} else if (!strcmp(a, "--no-page-faults")) {
			op.ro.no_page_faults = true;
		} else if (!strcmp(a, "--counts")) {
			counts = true;
		} else if (!strcmp(a, "--timed")) {
			timed = true;
		} else if (!strcmp(a, "--model-stats")) {
			op.model_stats = true;
		} else if (!strcmp(a, "--dump-blocks")) {
			op.dump_blocks = true;
		} else if (!strcmp(a, "--dump-forms")) {
			op.dump_forms = true;
		} else if (!strcmp(a, "--keep-temps")) {
			op.keep = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			op.verbose = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			pi_quiet = true;
		} else if (!strcmp(a, "-c")) {
			op.compile_only = true;
		} else if (!strcmp(a, "-shared")) {
			op.shared = true;
		} else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc) {
				pi_error("-o needs a file name");
				return 2;
			}
			op.out = argv[++i];
		} else if (!strncmp(a, "-o", 2)) {
			op.out = a + 2;
		} else if (!op.ninputs && wrap_is_compiler(a)) {
			wrap = argv + i; /* the rest is the compiler's */
			nwrap = (size_t)(argc - i);
			break;
		} else {
			*VEC_PUSH(op.inputs, op.ninputs, op.incap) = argv[i];
		}
	}
	op.model = model_find(cpu);
	if (!op.model) {
		pi_error("unknown CPU model '%s' (see profinst --list-cpus)", cpu);
		free(op.inputs);
		return 2;
	}
	if (op.describe_cpu) {
		model_describe(op.model, stdout);
		free(op.inputs);
		return 0;
	}
	if (wrap && (op.out || op.compile_only || op.dump_blocks || op.dump_forms)) {
		pi_error("%s: profinst's -o, -c and analyses do not go before a compiler; its options do",
			 wrap[0]);
		return 2;
	}
	if (!op.ninputs && !wrap) {
		fputs("profinst: no input files\nTry 'profinst --help' for more information.\n", stderr);
		return 2;
	}
	if (op.ro.branch_sim && !op.model->mispredict) {
		pi_error("--branch-sim needs a cycle model; '%s' has no mispredict cost (see profinst --list-cpus)",
			 op.model->name);
		free(op.inputs);
		return 2;
	}
	if (op.ro.cache_sim && !op.model->cache) {
		pi_error("--cache-sim needs a model of the core's caches; '%s' has none (see profinst --list-cpus)",
			 op.model->name);
		free(op.inputs);
		return 2;
	}
	if (counts && timed) {
		pi_error("--counts and --timed: one runtime or the other");
		free(op.inputs);
		return 2;
	}
	if (counts && (op.ro.branch_sim || op.ro.cache_sim)) {
		pi_error("--%s runs with the timed runtime only: leave out --counts",
			 op.ro.branch_sim ? "branch-sim" : "cache-sim");
		free(op.inputs);
		return 2;
	}
	/* the counting runtime unless the timed one is asked for, or what
	 * only it has */
	op.ro.counting = !timed && !op.ro.branch_sim && !op.ro.cache_sim;
	if (op.shared && !op.ro.counting) {
		pi_error("-shared: a shared object is instrumented for the counting runtime (the default) only, "
			 "not with --timed, --branch-sim or --cache-sim");
		free(op.inputs);
		return 2;
	}
	if (op.shared && op.compile_only) {
		pi_error("-shared and -c: -c writes an object for a program's link");
		free(op.inputs);
		return 2;
	}
	op.ro.pic = op.shared;
	op.ro.model = op.model;
	if (!wrap && !op.out && !op.dump_blocks && !op.dump_forms && !op.model_stats) {
		pi_error("no output file (-o FILE)");
		return 2;
	}
	/* one table of the instructions described for all the objects */
	struct insn_descs descs = {0};
	op.ro.descs = &descs;
	int rc;
	if (wrap)
		rc = do_wrap(&op, wrap, nwrap);
	else if (op.dump_blocks || op.dump_forms || (op.model_stats && !op.out))
		rc = do_inspect(&op);
	else
		rc = op.compile_only ? do_compile(&op) : do_link(&op);
	insn_descs_free(&descs);
	free(op.inputs);
	return rc;
}
