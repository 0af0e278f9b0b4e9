/* SPDX-License-Identifier: MIT */
/*
 * profview annotate: source lines with the cycles spent on them (seed 003's
 * annotated source) or annotated disassembly.  Lines come from the original
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
};

struct ann {
	const struct profile *p;
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

static void add_function(struct ann *a, uint32_t g)
{
	a->o = &a->p->objs[a->p->funcs[g].obj];
	pv_insn_costs(a->p, g, add_insn, a);
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
					snprintf(pct, sizeof(pct), "%6.2f%%", self > 0 ? 100.0 * l->cycles / self : 0.0);
			}
			printf("%c %7s %5u  %s\n", mark, pct, ln, text ? text : "");
			if (l && self > 0 && l->mispredicted >= 0.01 * self)
				printf("*         its jumps mispredicted %llu times in %llu (%.1f%%): %.2f%%\n",
				       (unsigned long long)l->mispredicts, (unsigned long long)l->jumps,
				       l->jumps ? 100.0 * (double)l->mispredicts / (double)l->jumps : 0.0,
				       100.0 * l->mispredicted / self);
			if (l && self > 0 && l->waited >= 0.01 * self)
				printf("*         its loads waited for memory: %.2f%%\n", 100.0 * l->waited / self);
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
		       (unsigned long long)a->noline_insns, self > 0 ? 100.0 * a->noline_cycles / self : 0.0);
}

static void print_header(const struct profile *p, const struct func_table *t, uint32_t g)
{
	const struct func_view *v = &t->f[g];
	printf("* %s [%s]: %llu calls, %llu self cycles (%.2f%%), %llu with descendants\n", pv_name(p, g),
	       p->funcs[g].object, (unsigned long long)v->calls, pv_cyc(p, v->self), pv_pct(v->self, t->total_self),
	       pv_cyc(p, v->incl));
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

static void print_disasm(const struct profile *p, uint32_t g)
{
	const struct prof_obj *o = &p->objs[p->funcs[g].obj];
	const struct pi_map_func *f = &o->funcs[p->funcs[g].func];
	for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
		const struct pi_map_block *bl = &o->blocks[b];
		uint64_t count = o->counts[b];
		printf("%c block %s+0x%x: %llu executions, %llu cycles", count ? '|' : '#', prof_str(o, bl->section),
		       bl->offset, (unsigned long long)count, pv_cyc(p, prof_block_cycles(p, o, b)));
		if (o->mispredicts && o->mispredicts[b])
			printf(", its jump mispredicted %llu times (%.1f%%): %llu cycles",
			       (unsigned long long)o->mispredicts[b], pv_pct(o->mispredicts[b], count),
			       pv_cyc(p, prof_map_units(p, o, o->mispredicts[b] * o->map->mispredict)));
		if (o->mem_waits && o->mem_waits[b])
			printf(", waiting for memory %llu cycles", pv_cyc(p, prof_map_units(p, o, o->mem_waits[b])));
		putchar('\n');
		for (uint32_t off = 0; off < bl->size;) {
			struct insn in;
			char text[128], where[256] = "";
			if (!insn_decode(o->code + bl->code + off, bl->size - off, bl->offset + off, &in))
				break;
			insn_format(o->code + bl->code + off, in.len, bl->offset + off, text, sizeof(text));
			const struct pi_map_line *r = prof_line(o, bl->section, bl->offset + off);
			if (r) {
				const char *file = prof_str(o, r->file), *base = strrchr(file, '/');
				snprintf(where, sizeof(where), "%s:%u", base ? base + 1 : file, r->line);
			}
			int32_t rel = (int32_t)(bl->offset + off - f->offset);
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
	uint32_t found[64];
	uint32_t n = pv_lookup(&p, &t, target, found, 64);
	if (!n) {
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
	if (!n)
		pv_error("%s: no function or source file '%s' in the profile", path, target);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		print_header(&p, &t, found[i]);
		if (disasm) {
			print_disasm(&p, found[i]);
			continue;
		}
		struct ann a = {.p = &p};
		add_function(&a, found[i]);
		print_source(&a, (double)t.f[found[i]].self, blocks);
		free(a.li);
	}
	pv_close(&p, &t);
	return n ? 0 : 1;
}
