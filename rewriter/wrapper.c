/* SPDX-License-Identifier: MIT */
#include "wrapper.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

bool wrap_is_compiler(const char *arg)
{
	const char *base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	/* gcc, x86_64-linux-gnu-gcc-12, clang++-14, cc, c++ */
	regex_t re;
	if (regcomp(&re, "^([A-Za-z0-9_.]+-)*(cc|c\\+\\+|gcc|g\\+\\+|clang|clang\\+\\+)(-[0-9][0-9.]*)?$",
		    REG_EXTENDED | REG_NOSUB))
		return false;
	bool yes = !regexec(&re, base, 0, NULL, 0);
	regfree(&re);
	return yes;
}

static bool in_list(const char *a, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(a, *list))
			return true;
	return false;
}

/* Options whose operand is the next argument. */
static const char *const separate[] = {
	"-o", "-x", "-MF", "-MT", "-MQ", "-include", "-imacros", "-idirafter", "-iprefix", "-iwithprefix",
	"-iwithprefixbefore", "-isystem", "-isysroot", "-iquote", "-I", "-L", "-l", "-D", "-U", "-A",
	"-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang", "-T", "-u", "-e", "-z", "--param",
	"-aux-info", "-dumpbase", "-dumpdir", "-target", "--sysroot", NULL,
};

/* Options that make the command do something other than link an
 * executable or a shared object (a relocatable link, no link at all). */
static const char *const no_link[] = {
	"-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "-r", "-###", "--version", "-dumpversion",
	"-dumpfullversion", "-dumpmachine", "-dumpspecs", "--help", "--target-help", NULL,
};

/* Options for the link only: left out where sources are compiled. */
static const char *const link_only[] = {
	"-static", "-static-libgcc", "-static-libstdc++", "-static-pie", "-pie", "-no-pie", "-rdynamic", "-s",
	"-nostdlib", "-nostartfiles", "-nodefaultlibs", "-shared-libgcc", NULL,
};
static const char *const link_only_prefix[] = {"-l", "-L", "-Wl,", "-fuse-ld=", NULL};

static bool has_prefix(const char *a, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(a, *list, strlen(*list)))
			return true;
	return false;
}

static bool source_name(const char *a)
{
	static const char *const ext[] = {".c", ".i", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C",
					  ".ii", ".s", ".S", ".sx", NULL};
	const char *dot = strrchr(a, '.');
	return dot && in_list(dot, ext);
}

static char *keep(struct wrap *w, char *s)
{
	w->owned[w->nowned++] = s;
	return s;
}

/* -lNAME that the command's own -L directories hold as a static archive
 * (a project's library, as make and CMake link them) is that archive, to
 * instrument; the linker's default directories (the system's libraries)
 * and shared libraries are left to the linker.  The linker searches every
 * -L directory, in order, before its defaults, and takes libNAME.so
 * before libNAME.a in each unless -static. */
static void find_archives(struct wrap *w, char **args, size_t n)
{
	bool stat = false;
	char **dirs = xcalloc(n + 1, sizeof(char *));
	size_t ndirs = 0;
	for (size_t i = 1; i < n; i++) {
		if (!strcmp(args[i], "-static"))
			stat = true;
		else if (!strcmp(args[i], "-L") && i + 1 < n)
			dirs[ndirs++] = args[++i];
		else if (!strncmp(args[i], "-L", 2))
			dirs[ndirs++] = args[i] + 2;
	}
	for (size_t k = 0; k < w->nlink; k++) {
		const char *a = w->link[k];
		if (strncmp(a, "-l", 2) || !a[2])
			continue;
		for (size_t d = 0; d < ndirs; d++) {
			char *so = a[2] == ':' ? NULL : xasprintf("%s/lib%s.so", dirs[d], a + 2);
			char *ar = a[2] == ':' ? xasprintf("%s/%s", dirs[d], a + 3) : xasprintf("%s/lib%s.a", dirs[d], a + 2);
			bool shared = so && !stat && !access(so, F_OK);
			bool archive = !shared && !access(ar, R_OK);
			size_t len = strlen(ar);
			free(so);
			if (archive && len > 2 && !strcmp(ar + len - 2, ".a")) {
				w->link[k] = keep(w, ar);
				break;
			}
			free(ar);
			if (shared || archive)
				break;
		}
	}
	free(dirs);
}

void wrap_plan(char **args, size_t n, struct wrap *w)
{
	memset(w, 0, sizeof(*w));
	w->out = "a.out";
	w->link = xcalloc(n + 1, sizeof(char *));
	w->source = xcalloc(n + 1, sizeof(bool));
	w->compile = xcalloc(n + 1, sizeof(char *));
	w->owned = xcalloc(n + 1, sizeof(char *));
	w->compile[w->ncompile++] = args[0];
	bool links = true, inputs = false, lang = false; /* lang: -x LANG other than none */
	for (size_t i = 1; i < n; i++) {
		const char *a = args[i];
		if (a[0] != '-' || !a[1]) {
			if (!a[1] && a[0] == '-')
				links = false; /* a source from standard input: left to the compiler */
			bool src = lang || source_name(a);
			w->source[w->nlink] = src;
			w->link[w->nlink++] = args[i];
			inputs = true;
			continue;
		}
		if (in_list(a, no_link) || !strncmp(a, "-print-", 7) || !strncmp(a, "--help=", 7))
			links = false;
		if (!strcmp(a, "-shared")) {
			w->shared = true; /* (profinst's link says it) */
			continue;
		}
		if (!strcmp(a, "-o") && i + 1 < n) {
			w->out = args[++i];
			continue;
		}
		if (!strncmp(a, "-o", 2) && a[2]) {
			w->out = a + 2;
			continue;
		}
		bool sep = in_list(a, separate) && i + 1 < n;
		if (!strcmp(a, "-x") && sep)
			lang = strcmp(args[i + 1], "none") != 0;
		else if (!strncmp(a, "-x", 2) && a[2])
			lang = strcmp(a + 2, "none") != 0;
		if (sep) {
			/* the link's take their operand joined (a word of its
			 * own would look like an input), the others stay with
			 * the compilation */
			const char *op = args[++i];
			if (!strcmp(a, "-L") || !strcmp(a, "-l") || !strcmp(a, "-T"))
				w->link[w->nlink++] = keep(w, xasprintf("%s%s", a, op));
			else if (!strcmp(a, "-Xlinker"))
				w->link[w->nlink++] = keep(w, xasprintf("-Wl,%s", op));
			else if (!strcmp(a, "-u") || !strcmp(a, "-e") || !strcmp(a, "-z"))
				w->link[w->nlink++] = keep(w, xasprintf("-Wl,%s,%s", a, op));
			else {
				w->compile[w->ncompile++] = args[i - 1];
				w->compile[w->ncompile++] = args[i];
			}
			continue;
		}
		if (!strncmp(a, "-x", 2))
			w->compile[w->ncompile++] = args[i]; /* for the sources only */
		else if (in_list(a, link_only) || has_prefix(a, link_only_prefix))
			w->link[w->nlink++] = args[i];
		else {
			w->link[w->nlink++] = args[i];
			w->compile[w->ncompile++] = args[i];
		}
	}
	w->links = links && inputs;
	if (w->links)
		find_archives(w, args, n);
}

void wrap_free(struct wrap *w)
{
	free(w->link);
	free(w->source);
	free(w->compile);
	for (size_t i = 0; i < w->nowned; i++)
		free(w->owned[i]);
	free(w->owned);
	memset(w, 0, sizeof(*w));
}
