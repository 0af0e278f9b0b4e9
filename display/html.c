/* SPDX-License-Identifier: MIT */
/*
 * profview html: the profile as one self-contained HTML file, to open in a
 * browser without a server or a network: the function list (sorted by any
 * column, filtered by name), each function's callers, callees and
 * annotated source, and the calling-context tree of each thread, as rows
 * that open and as a flame graph.  The data
 * is a JSON object in the page (its schema is at the top of
 * display/html/report.js, which draws it); the page's script and style are
 * display/html/report.{js,css}, built into profview (html_assets.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "decode.h"
#include "graph.h"
#include "insncost.h"

extern const char pv_html_js[], pv_html_css[];

static const char html_usage[] =
	"Usage: profview html PROFILE -o FILE.html\n"
	"\n"
	"Write the profile as one HTML file that any browser opens, without a\n"
	"server or a network: the function list (sorted by any column, filtered\n"
	"by name), each function's callers, callees, annotated source (the\n"
	"source files read now, where they are) and, for the functions with 0.1%\n"
	"of the cycles or more, annotated disassembly, each thread's calling-\n"
	"context tree and its flame graph, and the call graph as profview graph\n"
	"draws it (where Graphviz's dot is installed).  -o - writes to standard\n"
	"output.\n";

/* The source files the page quotes, each read once. */
struct src_file {
	const char *path;
	char *text;      /* NULL: not readable */
	char **line;     /* line[k]: line k + 1 */
	uint32_t nlines;
	bool *want;      /* [nlines]: quoted */
};

struct html {
	FILE *o;
	const struct profile *p;
	struct x86_decoder dx; /* the functions' instructions */
	const struct func_table *t;
	uint32_t *index;   /* global function -> index in the page's list, or UINT32_MAX */
	struct src_file *files;
	size_t nfiles, filecap;
	struct pv_strmap file_ix; /* path -> index in files */
	struct pv_lines ls;
	/* for one function's lines (ls): ran, and of their cycles, the
	 * simulations' (--branch-sim, --cache-sim) */
	bool *ran_line;
	uint64_t *mispredicted, *waited;
	bool oom; /* something was left out for want of memory: the page fails */
};

static struct src_file *src_of(struct html *h, const char *path)
{
	static struct src_file none = {.path = ""};
	uint32_t known = pv_strmap_get(&h->file_ix, path);
	if (known != UINT32_MAX)
		return &h->files[known];
	if (h->nfiles == h->filecap) {
		size_t cap = h->filecap ? 2 * h->filecap : 16;
		void *nf = realloc(h->files, cap * sizeof(*h->files));
		if (!nf) {
			h->oom = true;
			return &none;
		}
		h->files = nf;
		h->filecap = cap;
	}
	if (pv_strmap_put(&h->file_ix, path, (uint32_t)h->nfiles)) {
		h->oom = true;
		return &none;
	}
	struct src_file *f = &h->files[h->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	FILE *in = path[0] == '/' ? fopen(path, "rb") : NULL;
	if (!in)
		return f;
	size_t len = 0, cap = 1 << 16;
	f->text = malloc(cap + 1);
	size_t got;
	while (f->text && (got = fread(f->text + len, 1, cap - len, in)) > 0) {
		len += got;
		if (len == cap) {
			char *nt = realloc(f->text, (cap *= 2) + 1);
			if (!nt) {
				free(f->text);
				f->text = NULL;
				break;
			}
			f->text = nt;
		}
	}
	fclose(in);
	if (!f->text)
		return f;
	f->text[len] = 0;
	uint32_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += f->text[i] == '\n';
	f->line = malloc(n * sizeof(char *));
	f->want = calloc(n, sizeof(bool));
	if (!f->line || !f->want) {
		free(f->line);
		free(f->want);
		free(f->text);
		f->text = NULL;
		return f;
	}
	char *s = f->text;
	for (uint32_t k = 0; k < n; k++) {
		f->line[k] = s;
		char *nl = strchr(s, '\n');
		if (!nl)
			break;
		*nl = 0;
		s = nl + 1;
	}
	f->nlines = n;
	return f;
}

/* Quote lines lo..hi (1-based, clipped) of f. */
static void want_lines(struct src_file *f, uint32_t lo, uint32_t hi)
{
	if (!f->text || !f->nlines)
		return;
	if (lo < 1)
		lo = 1;
	if (hi > f->nlines)
		hi = f->nlines;
	for (uint32_t k = lo; k <= hi; k++)
		f->want[k - 1] = true;
}

/* The index in h->ls of instruction c's line, or -1. */
static long line_index(const struct html *h, const struct insn_cost *c)
{
	const char *file = prof_str(h->ls.o, c->line->file);
	for (size_t i = 0; i < h->ls.n; i++)
		if (h->ls.v[i].line == c->line->line && !strcmp(h->ls.v[i].file, file))
			return (long)i;
	return -1;
}

static void note_ran(void *ctx, const struct insn_cost *c)
{
	struct html *h = ctx;
	long i = c->line && c->executions ? line_index(h, c) : -1;
	if (i >= 0) {
		h->ran_line[i] = true;
		h->mispredicted[i] += c->mispredicted;
		h->waited[i] += c->waited;
	}
}

/* A line of code that never ran has no cycles: list it too (#). */
static void code_lines(void *ctx, const struct insn_cost *c)
{
	struct html *h = ctx;
	if (c->line && line_index(h, c) < 0 &&
	    pv_lines_push(&h->ls, prof_str(h->ls.o, c->line->file), c->line->line, 0))
		h->oom = true;
}

/* Function g's lines: [file index, line, cycles, ran, of the cycles
 * mispredicted jumps', of them waits for memory], and the source lines
 * around them marked to quote. */
static void function_lines(struct html *h, uint32_t g, uint64_t self)
{
	if (h->p->funcs[g].external || pv_function_lines(h->p, &h->dx, g, self, &h->ls)) {
		fprintf(h->o, "[]");
		return;
	}
	pv_insn_costs(h->p, &h->dx, g, code_lines, h);
	size_t n = h->ls.n ? h->ls.n : 1;
	h->ran_line = calloc(n, sizeof(bool));
	h->mispredicted = calloc(n, sizeof(uint64_t));
	h->waited = calloc(n, sizeof(uint64_t));
	bool known = h->ran_line && h->mispredicted && h->waited;
	h->oom |= !known;
	if (known)
		pv_insn_costs(h->p, &h->dx, g, note_ran, h);
	fputc('[', h->o);
	uint32_t lo = UINT32_MAX, hi = 0, entry;
	const char *main_file = pv_entry_line(h->p, g, &entry);
	for (size_t i = 0; i < h->ls.n; i++) {
		const struct pv_line_cost *l = &h->ls.v[i];
		struct src_file *f = src_of(h, l->file);
		want_lines(f, l->line > 2 ? l->line - 2 : 1, l->line + 2);
		if (!strcmp(l->file, main_file) && l->line) {
			lo = l->line < lo ? l->line : lo;
			hi = l->line > hi ? l->line : hi;
		}
		fprintf(h->o, "%s[%zu,%u,", i ? "," : "", (size_t)(f - h->files), l->line);
		pv_json_cycles(h->o, h->p->units, l->cycles);
		fprintf(h->o, ",%d,", known && h->ran_line[i] ? 1 : 0);
		pv_json_cycles(h->o, h->p->units, known ? h->mispredicted[i] : 0);
		fputc(',', h->o);
		pv_json_cycles(h->o, h->p->units, known ? h->waited[i] : 0);
		fputc(']', h->o);
	}
	fputc(']', h->o);
	/* the whole function, where it is not long */
	if (lo <= hi && hi - lo < 400)
		want_lines(src_of(h, main_file), lo, hi);
	free(h->ran_line);
	free(h->mispredicted);
	free(h->waited);
	h->ran_line = NULL;
	h->mispredicted = h->waited = NULL;
}

/* Function g's blocks: [offset in the function, executions, cycles (its
 * fixed cost's), mispredicted jumps, cycles waiting for memory,
 * [[offset in the function, instruction, line]]]. */
static void function_disasm(struct html *h, uint32_t g)
{
	const struct profile *p = h->p;
	fputc('[', h->o);
	struct prof_blocks w;
	for (prof_blocks_init(&w, p, g); prof_blocks_next(&w);) {
		const struct prof_obj *o = w.o;
		const struct pi_map_func *f = w.f;
		const struct pi_map_block *bl = w.bl;
		fprintf(h->o, "%s[%ld,%llu,", w.b > f->first_block ? "," : "", (long)bl->offset - (long)f->offset,
			(unsigned long long)w.count);
		pv_json_cycles(h->o, p->units, w.cycles);
		fprintf(h->o, ",%llu,", (unsigned long long)w.mispredicts);
		pv_json_cycles(h->o, p->units, w.mem_wait_cycles);
		fprintf(h->o, ",[");
		for (uint32_t off = 0; off < bl->size;) {
			struct insn in;
			char text[128];
			if (!insn_decode(&h->dx, o->code + bl->code + off, bl->size - off, bl->offset + off, &in))
				break;
			insn_format(&h->dx, o->code + bl->code + off, in.len, bl->offset + off, text, sizeof(text));
			const struct pi_map_line *l = prof_line(o, bl->section, bl->offset + off);
			fprintf(h->o, "%s[%ld,", off ? "," : "", (long)(bl->offset + off) - (long)f->offset);
			pv_json_str_html(h->o, text);
			fprintf(h->o, ",%u]", l ? l->line : 0);
			off += in.len;
		}
		fprintf(h->o, "]]");
	}
	fputc(']', h->o);
}

static void write_functions(struct html *h)
{
	const struct profile *p = h->p;
	const struct func_table *t = h->t;
	fprintf(h->o, ",\"functions\":[");
	bool first = true;
	for (uint32_t g = 0; g < t->n; g++) {
		const struct func_view *v = &t->f[g];
		if (h->index[g] == UINT32_MAX)
			continue;
		fprintf(h->o, "%s\n{\"name\":", first ? "" : ",");
		first = false;
		pv_json_str_html(h->o, pv_name(p, g));
		fprintf(h->o, ",\"object\":");
		pv_json_str_html(h->o, p->funcs[g].object);
		uint32_t line;
		const char *file = pv_entry_line(p, g, &line);
		fprintf(h->o, ",\"file\":");
		pv_json_str_html(h->o, file);
		/* time figures exact (views.h); the page rounds them */
		fprintf(h->o, ",\"line\":%u,\"calls\":%llu", line, (unsigned long long)v->calls);
		const char *names[] = {"self", "incl", "min", "max", "os"};
		const uint64_t vals[] = {v->self, v->incl, v->min_self, v->max_self, v->os};
		for (int k = 0; k < 5; k++) {
			fprintf(h->o, ",\"%s\":", names[k]);
			if ((k == 2 || k == 3) && !pv_has_minmax(p))
				fputs("null", h->o); /* counted: not known */
			else
				pv_json_cycles(h->o, p->units, vals[k]);
		}
		fprintf(h->o, ",\"faults\":%llu,\"mispredicts\":%llu,\"mispredict_cycles\":",
			(unsigned long long)v->faults, (unsigned long long)v->mispredicts);
		pv_json_cycles(h->o, p->units, v->mispredict_cycles);
		fprintf(h->o, ",\"mem_wait\":");
		pv_json_cycles(h->o, p->units, v->mem_wait_cycles);
		fprintf(h->o, ",\"external\":%s,\"callers\":[", p->funcs[g].external ? "true" : "false");
		for (uint32_t k = 0; k < v->ncallers; k++) {
			const struct arc *a = &v->callers[k];
			long other = a->other == UINT32_MAX ? -1 : (long)h->index[a->other];
			fprintf(h->o, "%s[%ld,%llu,", k ? "," : "", other, (unsigned long long)a->calls);
			pv_json_cycles(h->o, p->units, a->incl);
			fputc(']', h->o);
		}
		fprintf(h->o, "],\"callees\":[");
		for (uint32_t k = 0; k < v->ncallees; k++) {
			const struct arc *a = &v->callees[k];
			fprintf(h->o, "%s[%ld,%llu,", k ? "," : "", (long)h->index[a->other], (unsigned long long)a->calls);
			pv_json_cycles(h->o, p->units, a->incl);
			fputc(']', h->o);
		}
		fprintf(h->o, "],\"lines\":");
		function_lines(h, g, v->self);
		/* the disassembly of the functions that matter (the page of a
		 * large program stays a few megabytes) */
		if (!p->funcs[g].external && v->self * 1000 >= t->total_self) {
			fprintf(h->o, ",\"disasm\":");
			function_disasm(h, g);
		}
		fputc('}', h->o);
	}
	fputc(']', h->o);
}

static void write_trees(struct html *h)
{
	const struct profile *p = h->p;
	fprintf(h->o, ",\n\"threads\":[");
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		fprintf(h->o, "%s\n{\"index\":%u,\"tid\":%u,\"nodes\":[", ti ? "," : "", th->hdr->index,
			th->hdr->tid);
		uint64_t *cum = malloc(th->hdr->nnodes * sizeof(uint64_t));
		if (!cum) {
			h->oom = true;
			fprintf(h->o, "],\"recursive\":[]}");
			continue;
		}
		prof_subtree(th, cum);
		/* [parent, function (-1: the root), calls, self, incl (its
		 * subtree's self)] */
		for (uint32_t n = 0; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			uint32_t g = n ? prof_gfunc(p, nd->obj, nd->func) : UINT32_MAX;
			long f = g == UINT32_MAX ? -1 : (long)h->index[g];
			fprintf(h->o, "%s[%ld,%ld,%llu,", n ? "," : "", n ? (long)nd->parent : -1L, f,
				(unsigned long long)nd->calls);
			pv_json_cycles(h->o, p->units, n ? nd->self : 0);
			fputc(',', h->o);
			pv_json_cycles(h->o, p->units, cum[n]);
			fputc(']', h->o);
		}
		free(cum);
		/* recursive calls, whose time is the ancestor's running the
		 * callee: [caller node, callee's (ancestor) node, calls, 0] */
		fprintf(h->o, "],\"recursive\":[");
		for (uint32_t k = 0; k < th->hdr->nrec; k++) {
			const struct pi_prof_recedge *re = &th->recs[k];
			fprintf(h->o, "%s[%u,%u,%llu,0]", k ? "," : "", re->caller_node, re->node,
				(unsigned long long)re->calls);
		}
		fprintf(h->o, "]}");
	}
	fputc(']', h->o);
}

static void write_sources(struct html *h)
{
	fprintf(h->o, ",\n\"files\":[");
	for (size_t i = 0; i < h->nfiles; i++) {
		const struct src_file *f = &h->files[i];
		fprintf(h->o, "%s\n{\"path\":", i ? "," : "");
		pv_json_str_html(h->o, f->path);
		fprintf(h->o, ",\"found\":%s,\"text\":{", f->text ? "true" : "false");
		bool first = true;
		for (uint32_t k = 0; k < f->nlines; k++) {
			if (!f->want[k])
				continue;
			fprintf(h->o, "%s\"%u\":", first ? "" : ",", k + 1);
			pv_json_str_html(h->o, f->line[k]);
			first = false;
		}
		fprintf(h->o, "}}");
	}
	fputc(']', h->o);
}

/* The call graph, drawn by Graphviz's dot as profview graph draws it, its
 * nodes linking to the functions' views; nothing where dot is missing. */
static void write_callgraph(struct html *h)
{
	FILE *svg = tmpfile();
	if (!svg)
		return;
	struct graph_opts go = {.filter = -1, .root = UINT32_MAX, .url = h->index};
	if (!graph_write(svg, h->p, h->t, &go, true)) {
		/* dot's own header (XML declaration, doctype) stays out */
		rewind(svg);
		char buf[1 << 14];
		size_t n;
		bool on = false;
		while ((n = fread(buf, 1, sizeof(buf) - 1, svg)) > 0) {
			buf[n] = 0;
			const char *from = buf;
			if (!on) {
				from = strstr(buf, "<svg");
				if (!from)
					continue; /* (dot's header is far shorter than a buffer) */
				on = true;
				fprintf(h->o, "<div id=\"callgraph-svg\" hidden>\n");
			}
			fwrite(from, 1, n - (size_t)(from - buf), h->o);
		}
		if (on)
			fprintf(h->o, "</div>\n");
	}
	fclose(svg);
}

static int write_page(FILE *o, const struct profile *p, const struct func_table *t, int how)
{
	(void)how;
	struct html h = {.o = o, .p = p, .t = t};
	x86_decoder_init(&h.dx);
	h.index = malloc((t->n ? t->n : 1) * sizeof(uint32_t));
	if (!h.index)
		return -1;
	uint32_t nf = 0;
	for (uint32_t g = 0; g < t->n; g++)
		h.index[g] = t->f[g].calls || t->f[g].self ? nf++ : UINT32_MAX;
	const char *cpu = p->nobjs ? prof_str(&p->objs[0], p->objs[0].map->cpu) : "";
	fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>profinst: ");
	for (const char *s = p->hdr->exe; *s; s++) /* the title: text, escaped */
		fputs(*s == '<' ? "&lt;" : *s == '&' ? "&amp;" : (char[]){*s, 0}, o);
	fprintf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<noscript>This report needs JavaScript.</noscript>\n",
		pv_html_css);
	fprintf(o, "<script type=\"application/json\" id=\"profile-data\">\n{\"exe\":");
	pv_json_str_html(o, p->hdr->exe);
	fprintf(o, ",\"pid\":%u,\"unit\":\"%s\",\"cpu\":", p->hdr->pid, pv_unit(p));
	pv_json_str_html(o, cpu);
	fprintf(o, ",\"total\":");
	pv_json_cycles(o, p->units, t->total_self);
	fprintf(o, ",\"os\":");
	pv_json_cycles(o, p->units, t->total_os);
	fprintf(o, ",\"os_charged\":%s,\"counted\":%s,\"faults\":%llu,\"branch_sim\":%s,\"cache_sim\":%s,"
		   "\"signal\":%u",
		prof_charges_os(p) ? "true" : "false", prof_counted(p) ? "true" : "false",
		(unsigned long long)t->total_faults, prof_branch_sim(p) ? "true" : "false",
		prof_cache_sim(p) ? "true" : "false",
		(p->hdr->flags & PI_PROF_ENDED_BY_SIGNAL) ? p->hdr->signal : 0);
	write_functions(&h);
	write_trees(&h);
	write_sources(&h);
	fprintf(o, "}\n</script>\n");
	write_callgraph(&h);
	fprintf(o, "<script>\n%s</script>\n</body>\n</html>\n", pv_html_js);
	for (size_t i = 0; i < h.nfiles; i++) {
		free(h.files[i].text);
		free(h.files[i].line);
		free(h.files[i].want);
	}
	free(h.files);
	pv_strmap_free(&h.file_ix);
	free(h.ls.v);
	free(h.index);
	return h.oom ? -1 : 0;
}

int cmd_html(int argc, char **argv)
{
	const char *path = NULL, *out = NULL;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(html_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (pv_positional("html", argv[i], &path)) {
			return 2;
		}
	}
	if (!path || !out) {
		fputs(html_usage, stderr);
		return 2;
	}
	return pv_write(path, out, write_page, 0);
}
