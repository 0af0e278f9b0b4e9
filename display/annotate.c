/* SPDX-License-Identifier: MIT */
/*
 * profview annotate: source lines with the cycles spent on them (an annotated
 * source listing) or annotated disassembly.  Lines come from the original
 * objects' line tables, carried in the profile's maps; instructions from
 * the original bytes carried there too.
 *   |  the line's code is one basic block, and it ran
 *   +  the line holds several blocks (their counts follow as * lines)
 *   #  the line has code that never ran
 *   *  summary comment lines
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "decode.h"
#include "inlines.h"
#include "insncost.h"

static const char annotate_usage[] =
	"Usage: profview annotate PROFILE FUNCTION|FILE [--disasm] [--blocks]\n"
	"\n"
	"Source lines of FUNCTION (or of every profiled function of the source\n"
	"FILE, matched by its end) with their cycles as a share of the\n"
	"function's self cycles, and markers: | a block that ran, + a line of\n"
	"several blocks, # code that never ran, * summary lines. Code without\n"
	"line information is listed at the end.\n"
	"  --disasm   annotated disassembly instead: every block, its executions\n"
	"             and cycles, every instruction at its original offset\n"
	"  --blocks   after a + line, the count of each of its blocks\n"
	"\n"
	"A line of code the compiler inlined (where the objects were compiled\n"
	"with -g) says into what, under it: \"* inlined mix (t.c:14) in step\n"
	"(t.c:21): ran 500 times, 5.88%\" is the line's code of mix inlined at\n"
	"t.c:14 into step, itself inlined at t.c:21 into FUNCTION, the most times\n"
	"one of its instructions ran there, and its share of the cycles.\n"
	"\n"
	"Under profinst --branch-sim or --cache-sim, a line's cycles include what\n"
	"its mispredicted jumps and its loads' misses cost, and a * line under a\n"
	"line where they come to 1% of the function or more says how much.\n";

struct lineinfo {
	const char *file;
	uint32_t line;
	double cycles;
	double mispredicted, waited; /* of cycles: the simulations' */
	uint64_t mispredicts, jumps;  /* the line's jumps: mispredicted, executed */
	uint32_t nblocks, ran;
	uint32_t blocks[8];
	uint64_t counts[8];
	double os;            /* of cycles: time in external code and system calls */
	/* the calls made from the line: callee, calls, the callee's
	 * self+descendants time on them (recursive calls: none) */
	uint32_t ncalls;
	struct { uint32_t callee; uint64_t calls, incl; } calls[8];
	/* the inlined calls its code is in (the innermost of each):
	 * cycles, and the most times one of its instructions ran */
	uint32_t ninl;
	struct { const struct pi_map_inline *f; double cycles; uint64_t runs; } inl[8];
};

struct ann {
	const struct profile *p;
	const struct x86_decoder *dx;
	const struct prof_obj *o; /* the function's, while it is added */
	struct lineinfo *li;
	size_t n, cap;
	double noline_cycles;
	uint64_t noline_insns;
};

static struct lineinfo *line_of(struct ann *a, const char *file, uint32_t line)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->li[i].line == line && !strcmp(a->li[i].file, file))
			return &a->li[i];
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->li = realloc(a->li, a->cap * sizeof(*a->li));
	}
	struct lineinfo *l = &a->li[a->n++];
	memset(l, 0, sizeof(*l));
	l->file = file;
	l->line = line;
	return l;
}

static void add_insn(void *ctx, const struct insn_cost *c)
{
	struct ann *a = ctx;
	double cycles = (double)(c->fixed + c->mispredicted + c->waited);
	if (!c->line) {
		a->noline_cycles += cycles;
		a->noline_insns++;
		return;
	}
	struct lineinfo *l = line_of(a, prof_str(a->o, c->line->file), c->line->line);
	l->cycles += cycles;
	const struct pi_map_inline *f = prof_inline(a->o, a->o->blocks[c->block].section, c->offset);
	uint32_t i;
	for (i = 0; f && i < l->ninl && l->inl[i].f != f; i++)
		;
	if (f && i < 8) {
		if (i == l->ninl)
			l->inl[l->ninl++].f = f;
		l->inl[i].cycles += cycles;
		if (c->executions > l->inl[i].runs)
			l->inl[i].runs = c->executions;
	}
	l->mispredicted += (double)c->mispredicted;
	l->waited += (double)c->waited;
	if (c->jcc) {
		l->jumps += c->executions;
		l->mispredicts += c->mispredicts;
	}
	uint32_t k;
	for (k = 0; k < l->nblocks && l->blocks[k] != c->block; k++)
		;
	if (k == l->nblocks && k < 8) {
		l->blocks[l->nblocks] = c->block;
		l->counts[l->nblocks++] = c->executions;
		l->ran += c->executions > 0;
	}
}

/* A call from g's site ra to callee: on the site's line. */
static void add_call(struct ann *a, uint32_t g, uint64_t ra, uint32_t callee, uint64_t calls, uint64_t incl)
{
	uint32_t sg;
	const struct pi_map_site *s;
	if (!prof_find_site(a->p, ra, &sg, &s) || sg != g)
		return;
	const struct pi_map_line *r = prof_line(a->o, s->section, s->offset);
	if (!r)
		return;
	struct lineinfo *l = line_of(a, prof_str(a->o, r->file), r->line);
	uint32_t k;
	for (k = 0; k < l->ncalls && l->calls[k].callee != callee; k++)
		;
	if (k == 8)
		return;
	if (k == l->ncalls) {
		l->calls[k].callee = callee;
		l->ncalls++;
	}
	l->calls[k].calls += calls;
	l->calls[k].incl += incl;
}

static void add_function(struct ann *a, uint32_t g, uint64_t os)
{
	a->o = &a->p->objs[a->p->funcs[g].obj];
	pv_insn_costs(a->p, a->dx, g, add_insn, a);
	/* its time outside its code, on the lines of the calls and system
	 * calls that spent it (by how often each ran) */
	struct pv_lines w = {0};
	if (os && !pv_outside_lines(a->p, a->dx, g, NULL, 0, &w)) {
		uint64_t weight = 0, given = 0;
		for (size_t i = 0; i < w.n; i++)
			weight += w.v[i].cycles;
		unsigned __int128 cum = 0;
		for (size_t i = 0; weight && i < w.n; i++) {
			cum += w.v[i].cycles;
			uint64_t upto = (uint64_t)(cum * os / weight);
			if (w.v[i].line) {
				struct lineinfo *l = line_of(a, w.v[i].file, w.v[i].line);
				l->cycles += (double)(upto - given);
				l->os += (double)(upto - given);
			} else {
				a->noline_cycles += (double)(upto - given);
			}
			given = upto;
		}
	}
	free(w.v);
	/* the calls it made, on their sites' lines */
	const struct profile *p = a->p;
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n], *pa = &th->nodes[nd->parent];
			if (nd->parent && prof_gfunc(p, pa->obj, pa->func) == g)
				add_call(a, g, nd->ret_addr, prof_gfunc(p, nd->obj, nd->func), nd->calls - nd->rec_calls,
					 nd->incl);
		}
		for (uint32_t r = 0; r < th->hdr->nrec; r++) {
			const struct pi_prof_recedge *re = &th->recs[r];
			const struct pi_prof_node *tn = &th->nodes[re->node];
			if (prof_gfunc(p, re->caller_obj, re->caller_func) == g)
				add_call(a, g, re->ret_addr, prof_gfunc(p, tn->obj, tn->func), re->calls, 0);
		}
	}
}

static int by_file_line(const void *x, const void *y)
{
	const struct lineinfo *a = x, *b = y;
	int c = strcmp(a->file, b->file);
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

static void print_source(struct ann *a, double self, bool blocks)
{
	if (a->n)
		qsort(a->li, a->n, sizeof(*a->li), by_file_line);
	for (size_t i = 0; i < a->n;) {
		const char *file = a->li[i].file;
		size_t j = i;
		while (j < a->n && !strcmp(a->li[j].file, file))
			j++;
		uint32_t lo = a->li[i].line > 2 ? a->li[i].line - 2 : 1, hi = a->li[j - 1].line + 2;
		printf("* %s\n", file);
		FILE *src = fopen(file, "r");
		if (!src)
			printf("*   (source not found: lines only)\n");
		char buf[4096];
		uint32_t ln = 0;
		size_t k = i;
		while (ln < hi) {
			const char *text = NULL;
			if (src) {
				if (!fgets(buf, sizeof(buf), src))
					break;
				buf[strcspn(buf, "\n")] = 0;
				text = buf;
			}
			ln++;
			if (!src && (k >= j || a->li[k].line != ln)) {
				if (k >= j)
					break;
				continue; /* no source: only the lines with code */
			}
			if (ln < lo)
				continue;
			const struct lineinfo *l = k < j && a->li[k].line == ln ? &a->li[k++] : NULL;
			char mark = ' ';
			char pct[16] = "";
			if (l) {
				mark = !l->ran ? '#' : l->nblocks > 1 ? '+' : '|';
				if (l->ran)
					snprintf(pct, sizeof(pct), "%6.2f%%", pv_pct(l->cycles, self));
			}
			printf("%c %7s %5u  %s\n", mark, pct, ln, text ? text : "");
			for (uint32_t k = 0; l && k < l->ninl; k++) {
				char chain[1024];
				printf("*         inlined %s: ran %llu time%s, %.2f%%\n",
				       pv_inline_chain(a->o, l->inl[k].f, chain, sizeof(chain)),
				       (unsigned long long)l->inl[k].runs, l->inl[k].runs == 1 ? "" : "s",
				       pv_pct(l->inl[k].cycles, self));
			}
			if (l && self > 0 && l->mispredicted >= 0.01 * self)
				printf("*         its jumps mispredicted %llu times in %llu (%.1f%%): %.2f%%\n",
				       (unsigned long long)l->mispredicts, (unsigned long long)l->jumps,
				       pv_pct(l->mispredicts, l->jumps),
				       pv_pct(l->mispredicted, self));
			if (l && self > 0 && l->waited >= 0.01 * self)
				printf("*         its loads waited for memory: %.2f%%\n", pv_pct(l->waited, self));
			if (l && self > 0 && l->os >= 0.01 * self)
				printf("*         of which in external code and system calls: %.2f%%\n",
				       pv_pct(l->os, self));
			for (uint32_t c = 0; l && c < l->ncalls; c++)
				printf("*         calls %s: %llu time%s, %llu %s with descendants\n",
				       pv_name(a->p, l->calls[c].callee), (unsigned long long)l->calls[c].calls,
				       l->calls[c].calls == 1 ? "" : "s", pv_cyc(a->p, l->calls[c].incl),
				       pv_unit(a->p));
			if (l && blocks && l->nblocks > 1)
				for (uint32_t b = 0; b < l->nblocks; b++)
					printf("*                 block %u: %llu executions\n", l->blocks[b],
					       (unsigned long long)l->counts[b]);
		}
		if (src)
			fclose(src);
		i = j;
	}
	if (a->noline_insns)
		printf("* <instructions without line numbers>: %llu instructions, %.2f%%\n",
		       (unsigned long long)a->noline_insns, pv_pct(a->noline_cycles, self));
}

static void print_header(const struct profile *p, const struct func_table *t, uint32_t g)
{
	const struct func_view *v = &t->f[g];
	printf("* %s [%s]: %llu calls, %llu self %s (%.2f%%), %llu with descendants\n", pv_name(p, g),
	       p->funcs[g].object, (unsigned long long)v->calls, pv_cyc(p, v->self), pv_unit(p),
	       pv_pct(v->self, t->total_self), pv_cyc(p, v->incl));
	if (prof_branch_sim(p))
		printf("*   %llu jumps mispredicted, %llu cycles (%.2f%% of self)\n",
		       (unsigned long long)v->mispredicts, pv_cyc(p, v->mispredict_cycles),
		       pv_pct(v->mispredict_cycles, v->self));
	if (prof_cache_sim(p))
		printf("*   %llu cycles waiting for memory (%.2f%% of self)\n", pv_cyc(p, v->mem_wait_cycles),
		       pv_pct(v->mem_wait_cycles, v->self));
	for (uint32_t k = 0; k < v->ncallers; k++)
		printf("*   called %llu times by %s\n", (unsigned long long)v->callers[k].calls,
		       v->callers[k].other == UINT32_MAX ? "<root>" : pv_name(p, v->callers[k].other));
}

static void print_disasm(const struct profile *p, const struct x86_decoder *dx, uint32_t g)
{
	struct prof_blocks w;
	for (prof_blocks_init(&w, p, g); prof_blocks_next(&w);) {
		const struct prof_obj *o = w.o;
		const struct pi_map_block *bl = w.bl;
		printf("%c block %s+0x%x: %llu executions, %llu %s", w.count ? '|' : '#', prof_str(o, bl->section),
		       bl->offset, (unsigned long long)w.count, pv_cyc(p, w.cycles), pv_unit(p));
		if (w.mispredicts)
			printf(", its jump mispredicted %llu times (%.1f%%): %llu cycles",
			       (unsigned long long)w.mispredicts, pv_pct(w.mispredicts, w.count),
			       pv_cyc(p, w.mispredict_cycles));
		if (w.mem_wait_cycles)
			printf(", waiting for memory %llu cycles", pv_cyc(p, w.mem_wait_cycles));
		putchar('\n');
		for (uint32_t off = 0; off < bl->size;) {
			struct insn in;
			char text[512], where[256] = "";
			if (!insn_decode(dx, o->code + bl->code + off, bl->size - off, bl->offset + off, &in))
				break;
			insn_format(dx, o->code + bl->code + off, in.len, bl->offset + off, text, sizeof(text));
			/* call and jump targets, and the data relocated fields
			 * reach, by name (the original bytes hold 0 there) */
			struct pv_ref refs[4];
			uint32_t nr = pv_insn_refs(p, dx, p->funcs[g].obj, bl->section, bl->offset + off,
						   o->code + bl->code + off, bl->size - off, refs, 4);
			for (uint32_t k = 0; k < nr; k++) {
				size_t tl = strlen(text);
				char *last = strrchr(text, ' ');
				if (refs[k].branch && last)
					snprintf(last + 1, sizeof(text) - (size_t)(last + 1 - text), "%.200s", refs[k].text);
				else
					snprintf(text + tl, sizeof(text) - tl, "%s%.200s", k && !refs[k - 1].branch ? ", " : "  # ",
						 refs[k].text);
			}
			const struct pi_map_line *r = prof_line(o, bl->section, bl->offset + off);
			if (r) {
				const char *file = prof_str(o, r->file), *base = strrchr(file, '/');
				snprintf(where, sizeof(where), "%s:%u", base ? base + 1 : file, r->line);
			}
			int32_t rel = (int32_t)(bl->offset + off - w.f->offset);
			printf("  %s%+6d  %-20s %s\n", pv_name(p, g), rel, where, text);
			off += in.len;
		}
	}
}

int cmd_annotate(int argc, char **argv)
{
	const char *path = NULL, *target = NULL;
	bool disasm = false, blocks = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(annotate_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--disasm")) {
			disasm = true;
		} else if (!strcmp(argv[i], "--blocks")) {
			blocks = true;
		} else if (argv[i][0] == '-') {
			pv_error("annotate: unknown option %s", argv[i]);
			return 2;
		} else if (!path) {
			path = argv[i];
		} else if (!target) {
			target = argv[i];
		} else {
			pv_error("annotate: too many arguments");
			return 2;
		}
	}
	if (!path || !target) {
		fputs(annotate_usage, stderr);
		return 2;
	}
	struct profile p;
	struct func_table t;
	if (pv_open(&p, &t, path))
		return 1;
	struct x86_decoder dx; /* the functions' instructions */
	x86_decoder_init(&dx);
	uint32_t found[64];
	uint32_t n = pv_find_functions(&p, &t, path, target, found, 64);
	bool ambiguous = n == PV_AMBIGUOUS;
	if (ambiguous)
		n = 0;
	if (!n && !ambiguous) {
		/* a source file: every profiled function with a line in it */
		size_t tl = strlen(target);
		for (uint32_t g = 0; g < t.n && n < 64; g++) {
			if (!t.f[g].calls)
				continue;
			const struct prof_obj *o = &p.objs[p.funcs[g].obj];
			const struct pi_map_func *f = &o->funcs[p.funcs[g].func];
			const struct pi_map_line *r = prof_line(o, f->section, f->offset);
			if (!r)
				continue;
			const char *file = prof_str(o, r->file);
			size_t fl = strlen(file);
			if (fl >= tl && !strcmp(file + fl - tl, target) && (fl == tl || file[fl - tl - 1] == '/'))
				found[n++] = g;
		}
	}
	if (!n && !ambiguous)
		pv_error("%s: no function or source file '%s' in the profile", path, target);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		print_header(&p, &t, found[i]);
		if (disasm) {
			print_disasm(&p, &dx, found[i]);
			continue;
		}
		struct ann a = {.p = &p, .dx = &dx};
		add_function(&a, found[i], t.f[found[i]].os);
		print_source(&a, (double)t.f[found[i]].self, blocks);
		free(a.li);
	}
	pv_close(&p, &t);
	return n ? 0 : 1;
}
