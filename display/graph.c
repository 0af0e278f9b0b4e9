/* SPDX-License-Identifier: MIT */
/*
 * profview graph: the call graph as Graphviz DOT (or SVG through dot).
 * Seed 003's display: arc width none, linear or logarithmic in the arc's
 * self+descendants share T (log: W = MIN(9, MAX(1, LOG2(1000*T + .0001)))),
 * a time filter of 0-20% in 1% steps (0.1% steps below 2%), by default the
 * share of the 30th function of the most time, so that 30 show (and those
 * tied with the 30th),
 * functions under the filter folded into their callers, a function as
 * virtual root (every figure then of the time under it), recursion marked.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "graph.h"

static const char graph_usage[] =
	"Usage: profview graph PROFILE [--format=dot|svg] [--width=none|linear|log]\n"
	"                      [--filter=PCT] [--root=FUNCTION] [-o FILE]\n"
	"\n"
	"Nodes are functions (self and self+descendants cycles), arcs are calls\n"
	"(count, and the callee's self+descendants cycles on them).\n"
	"  --width=MODE   arc width in the arc's share T of the time: none, linear\n"
	"                 (1 + 8T) or log (MIN(9, MAX(1, LOG2(1000T + .0001))),\n"
	"                 the default)\n"
	"  --filter=PCT   hide functions under PCT%% of the time (0-20, in steps of\n"
	"                 1, or 0.1 below 2); by default the share of the 30th\n"
	"                 function of the most time: 30 show, and any tied with the\n"
	"                 30th (none without time). Hidden callees are folded into\n"
	"                 their caller, which is drawn as a box with a \"+N\".\n"
	"  --root=FUNC    FUNCTION as the virtual root: only the time under it,\n"
	"                 every share of its self+descendants\n"
	"  --format=svg   run Graphviz's dot to draw it\n";

/* The filter's steps, in percent. */
static double step_up(double pct)
{
	if (pct <= 0)
		return 0;
	double s = pct < 2 ? ceil(pct * 10 - 1e-9) / 10 : ceil(pct - 1e-9);
	return s > 20 ? 20 : s;
}

/* Is v at least filter percent of base?  (exactly: filter in tenths) */
static bool at_least(uint64_t v, uint64_t base, double filter)
{
	uint64_t tenths = (uint64_t)(filter * 10 + 0.5);
	return (unsigned __int128)v * 1000 >= (unsigned __int128)tenths * base;
}

/* The default filter: the share of the 30th function of the most time (of
 * those that have any), so that 30 show, and those tied with the 30th.
 * (The steps are too coarse for it: a program's 30th function is often
 * under 0.1 %, and 0 shows every function.) */
static double default_filter(const struct func_table *t, const uint32_t *order, uint32_t n, uint64_t base,
			     uint64_t *min_incl)
{
	uint32_t k = 0;
	*min_incl = 0;
	for (uint32_t i = 0; i < n && k < 30; i++)
		if (t->f[order[i]].incl) {
			*min_incl = t->f[order[i]].incl;
			k++;
		}
	if (n <= 30)
		*min_incl = 0; /* every function */
	return pv_pct(*min_incl, base);
}

struct gctx {
	const struct profile *p;
	const struct func_table *t;
	struct cycle_table ct;
	uint64_t base;       /* 100%: the total, or the root's self+descendants */
	bool *reach;         /* under the root */
	bool *shown;
	const uint32_t *url; /* per function: a link to #f/N, or NULL for none */
};

static double arc_width(const char *mode, double T)
{
	if (!strcmp(mode, "none"))
		return 1;
	if (!strcmp(mode, "linear"))
		return 1 + 8 * T;
	double w = log2(1000 * T + .0001);
	return w > 9 ? 9 : w < 1 ? 1 : w;
}

static int by_incl_desc(const void *a, const void *b, void *arg)
{
	const struct func_table *t = arg;
	uint64_t x = t->f[*(const uint32_t *)a].incl, y = t->f[*(const uint32_t *)b].incl;
	return x > y ? -1 : x < y;
}

static void dot_escape(FILE *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', o);
		fputc(*s, o);
	}
}

static void write_dot(FILE *o, struct gctx *g, const char *width, double filter, uint32_t root)
{
	const struct profile *p = g->p;
	const struct func_table *t = g->t;
	fprintf(o, "digraph profile {\n  graph [label=\"");
	dot_escape(o, p->hdr->exe);
	fprintf(o, ": %llu %s%s%s, filter %.3g%%\", labelloc=t, fontname=\"Helvetica\"];\n",
		pv_cyc(p, g->base), pv_unit(p), root != UINT32_MAX ? ", root " : "",
		root != UINT32_MAX ? pv_name(p, root) : "", filter);
	fprintf(o, "  node [shape=ellipse, fontname=\"Helvetica\", fontsize=10];\n");
	fprintf(o, "  edge [fontname=\"Helvetica\", fontsize=9];\n");
	if (root == UINT32_MAX)
		fprintf(o, "  root [label=\"<root>\", shape=point];\n");
	for (uint32_t f = 0; f < t->n; f++) {
		if (!g->shown[f])
			continue;
		const struct func_view *v = &t->f[f];
		uint32_t hidden = 0;
		uint64_t hidden_time = 0;
		for (uint32_t k = 0; k < v->ncallees; k++)
			if (!g->shown[v->callees[k].other] && v->callees[k].other != f) {
				hidden++;
				hidden_time += v->callees[k].incl;
			}
		bool rec = g->ct.cycle_of[f] || v->rec_calls;
		fprintf(o, "  f%u [label=\"", f);
		dot_escape(o, pv_name(p, f));
		fprintf(o, "\\nself %.1f%%  total %.1f%%\\n%llu calls", pv_pct(v->self, g->base), pv_pct(v->incl, g->base),
			(unsigned long long)v->calls);
		if (hidden)
			fprintf(o, "\\n+%u hidden (%.1f%%)", hidden, pv_pct(hidden_time, g->base));
		if (g->ct.cycle_of[f])
			fprintf(o, "\\n<cycle %u>", g->ct.cycle_of[f]);
		fprintf(o, "\"%s%s", hidden ? ", shape=box" : "", rec ? ", peripheries=2" : "");
		if (g->url && g->url[f] != UINT32_MAX)
			fprintf(o, ", URL=\"#f/%u\"", g->url[f]);
		fprintf(o, "];\n");
	}
	for (uint32_t f = 0; f < t->n; f++) {
		if (!g->shown[f])
			continue;
		const struct func_view *v = &t->f[f];
		for (uint32_t k = 0; k < v->ncallers; k++) {
			const struct arc *a = &v->callers[k];
			bool from_root = a->other == UINT32_MAX || (root != UINT32_MAX && f == root);
			if (from_root && root != UINT32_MAX)
				continue;
			if (!from_root && !g->shown[a->other])
				continue;
			/* the callee's time on those calls, within both ends'
			 * (a recursive call's is inside the activation it
			 * recursed into: it adds nothing) */
			double T = g->base ? (double)a->incl / (double)g->base : 0;
			bool recursive = a->rec_calls || (!from_root && g->ct.cycle_of[f] &&
							  g->ct.cycle_of[f] == g->ct.cycle_of[a->other]);
			if (from_root)
				fprintf(o, "  root -> f%u", f);
			else
				fprintf(o, "  f%u -> f%u", a->other, f);
			fprintf(o, " [label=\"%llu\", penwidth=%.3f%s];\n", (unsigned long long)a->calls,
				arc_width(width, T), recursive ? ", style=dashed" : "");
		}
	}
	fprintf(o, "}\n");
}

int cmd_graph(int argc, char **argv)
{
	const char *path = NULL, *format = "dot", *width = "log", *rootname = NULL, *out = "-";
	double filter = -1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(graph_usage, stdout);
			return 0;
		} else if (!strncmp(a, "--format=", 9)) {
			format = a + 9;
		} else if (!strncmp(a, "--width=", 8)) {
			width = a + 8;
		} else if (!strncmp(a, "--filter=", 9)) {
			char *end;
			filter = strtod(a + 9, &end);
			if (*end || filter < 0 || filter > 20) {
				pv_error("--filter wants a percentage from 0 to 20");
				return 2;
			}
			filter = step_up(filter);
		} else if (!strncmp(a, "--root=", 7)) {
			rootname = a + 7;
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (pv_positional("graph", a, &path)) {
			return 2;
		}
	}
	if (pv_format(format, "dot,svg", &format))
		return 2;
	if (strcmp(width, "none") && strcmp(width, "linear") && strcmp(width, "log")) {
		pv_error("unknown width '%s' (none, linear, log)", width);
		return 2;
	}
	if (!path) {
		fputs(graph_usage, stderr);
		return 2;
	}
	struct profile p;
	struct func_table t;
	if (pv_open(&p, &t, path))
		return 1;
	uint32_t root = UINT32_MAX;
	if (rootname) {
		uint32_t found[2];
		uint32_t n = pv_find_functions(&p, &t, path, rootname, found, 2);
		if (n != 1) {
			if (n != PV_AMBIGUOUS)
				pv_error("%s: --root: no single function '%s' ran", path, rootname);
			pv_close(&p, &t);
			return 1;
		}
		root = found[0];
	}
	int rc = 1;
	struct pi_out *tmp;
	FILE *o = pv_out_open(out, &tmp);
	if (o) {
		struct graph_opts go = {.width = width, .filter = filter, .root = root};
		rc = graph_write(o, &p, &t, &go, !strcmp(format, "svg"));
		rc = pv_out_close(o, tmp, out, rc == 0);
	}
	pv_close(&p, &t);
	return rc;
}

int graph_write(FILE *o, const struct profile *p, const struct func_table *t, const struct graph_opts *go, bool svg)
{
	const char *width = go->width ? go->width : "log";
	double filter = go->filter;
	uint32_t root = go->root;
	struct func_table under;
	bool rooted = root != UINT32_MAX;
	if (rooted) {
		/* every figure of the time under the root */
		if (func_table_build_under(&under, p, root)) {
			func_table_free(&under);
			pv_error("out of memory");
			return 1;
		}
		t = &under;
	}
	struct gctx g = {.p = p, .t = t, .base = t->total_self, .url = go->url};
	int rc = 1;
	g.reach = calloc(t->n ? t->n : 1, sizeof(bool));
	g.shown = calloc(t->n ? t->n : 1, sizeof(bool));
	uint32_t *order = malloc((t->n ? t->n : 1) * sizeof(uint32_t)), n = 0;
	if (!g.reach || !g.shown || !order || cycles_build(&g.ct, p, t)) {
		pv_error("out of memory");
		goto out;
	}
	for (uint32_t f = 0; f < t->n; f++) {
		g.reach[f] = t->f[f].calls > 0 || f == root;
		if (g.reach[f])
			order[n++] = f;
	}
	qsort_r(order, n, sizeof(*order), by_incl_desc, (void *)t);
	uint64_t min_incl = 0;
	bool by_default = filter < 0;
	if (by_default)
		filter = default_filter(t, order, n, g.base, &min_incl);
	for (uint32_t i = 0; i < n; i++)
		g.shown[order[i]] = (by_default ? t->f[order[i]].incl >= min_incl
						: at_least(t->f[order[i]].incl, g.base, filter)) ||
				    order[i] == root;
	if (!svg) {
		write_dot(o, &g, width, filter, root);
		rc = 0;
	} else {
		/* through dot: a pipe to it, its output to ours */
		fflush(o);
		int fds[2];
		if (pipe(fds)) {
			pv_error("pipe failed");
		} else {
			pid_t pid = fork();
			if (pid == 0) {
				dup2(fds[0], 0);
				dup2(fileno(o), 1);
				close(fds[0]);
				close(fds[1]);
				execlp("dot", "dot", "-Tsvg", (char *)NULL);
				fprintf(stderr, "profview: cannot run dot (Graphviz): %s\n", strerror(errno));
				_exit(127);
			}
			close(fds[0]);
			FILE *w = fdopen(fds[1], "w");
			write_dot(w, &g, width, filter, root);
			fclose(w);
			int st = 0;
			waitpid(pid, &st, 0);
			rc = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
			if (rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 127))
				pv_error("dot failed");
		}
	}
out:
	if (rooted)
		func_table_free(&under);
	cycles_free(&g.ct);
	free(g.reach);
	free(g.shown);
	free(order);
	return rc;
}
