/* SPDX-License-Identifier: MIT */
#include "insncost.h"

#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "views.h"

const char pv_unknown_file[] = "???";

/* Share i (of n) of total, so that the n shares add up to total. */
static uint64_t share(uint64_t total, uint32_t i, uint32_t n)
{
	unsigned __int128 t = total;
	return (uint64_t)(t * (i + 1) / n - t * i / n);
}

void pv_insn_costs(const struct profile *p, const struct x86_decoder *dx, uint32_t g,
		   void (*fn)(void *ctx, const struct insn_cost *c), void *ctx)
{
	struct prof_blocks w;
	for (prof_blocks_init(&w, p, g); prof_blocks_next(&w);) {
		const struct prof_obj *o = w.o;
		const struct pi_map_block *bl = w.bl;
		const uint8_t *code = o->code + bl->code;
		/* the block's instructions, and those that access memory */
		uint32_t n = 0, nmem = 0;
		for (uint32_t off = 0; off < bl->size;) {
			struct insn in;
			if (!insn_decode(dx, code + off, bl->size - off, bl->offset + off, &in))
				break;
			n++;
			nmem += in.mem_read || in.mem_write;
			off += in.len;
		}
		uint32_t i = 0, imem = 0;
		for (uint32_t off = 0; i < n; i++) {
			struct insn in;
			insn_decode(dx, code + off, bl->size - off, bl->offset + off, &in);
			bool mem = in.mem_read || in.mem_write;
			struct insn_cost c = {
				.block = w.b,
				.offset = bl->offset + off,
				.line = prof_line(o, bl->section, bl->offset + off),
				.executions = w.count,
				.fixed = share(w.cycles, i, n),
				.jcc = in.kind == INSN_JCC,
				.first = i == 0,
			};
			if (c.jcc) {
				c.mispredicts = w.mispredicts;
				c.mispredicted = w.mispredict_cycles;
			}
			if (nmem ? mem : i == 0)
				c.waited = share(w.mem_wait_cycles, nmem ? imem : 0, nmem ? nmem : 1);
			imem += mem;
			fn(ctx, &c);
			off += in.len;
		}
	}
}

int pv_lines_push(struct pv_lines *ls, const char *file, uint32_t line, uint64_t cycles)
{
	if (ls->n == ls->cap) {
		size_t nc = ls->cap ? 2 * ls->cap : 64;
		void *nv = realloc(ls->v, nc * sizeof(*ls->v));
		if (!nv)
			return -1;
		ls->v = nv;
		ls->cap = nc;
	}
	ls->v[ls->n++] = (struct pv_line_cost){file, line, cycles, NULL};
	return 0;
}

static void add_insn(void *ctx, const struct insn_cost *c)
{
	struct pv_lines *ls = ctx;
	uint64_t cycles = c->fixed + c->mispredicted + c->waited;
	if (!cycles)
		return;
	if (pv_lines_push(ls, c->line ? prof_str(ls->o, c->line->file) : pv_unknown_file, c->line ? c->line->line : 0,
		      cycles))
		ls->oom = true;
	else if (ls->inlines)
		ls->v[ls->n - 1].inl = prof_inline(ls->o, ls->o->blocks[c->block].section, c->offset);
}

static int by_file_line(const void *x, const void *y)
{
	const struct pv_line_cost *a = x, *b = y;
	int c = strcmp(a->file, b->file);
	if (c)
		return c;
	if (a->line != b->line)
		return (a->line > b->line) - (a->line < b->line);
	return (a->inl > b->inl) - (a->inl < b->inl);
}

/* Where function g starts: its file and line, or "???" and 0. */
const char *pv_entry_line(const struct profile *p, uint32_t g, uint32_t *line)
{
	const struct prof_obj *o = &p->objs[p->funcs[g].obj];
	const struct pi_map_func *f = &o->funcs[p->funcs[g].func];
	const struct pi_map_line *l = p->funcs[g].external ? NULL : prof_line(o, f->section, f->offset);
	*line = l ? l->line : 0;
	return l ? prof_str(o, l->file) : pv_unknown_file;
}

int pv_function_lines(const struct profile *p, const struct x86_decoder *dx, uint32_t g, uint64_t self,
		      struct pv_lines *ls)
{
	return pv_function_lines_os(p, dx, g, self, 0, NULL, ls);
}

/* The function node n of th calls, if it is a call to external code
 * from a function (pv_outside_lines' walk), else UINT32_MAX. */
static uint32_t ext_caller(const struct profile *p, const struct prof_thread *th, uint32_t n)
{
	const struct pi_prof_node *nd = &th->nodes[n], *pa = &th->nodes[nd->parent];
	if (!nd->parent || !p->funcs[prof_gfunc(p, nd->obj, nd->func)].external)
		return UINT32_MAX;
	return prof_gfunc(p, pa->obj, pa->func);
}

static int add_outside(const struct profile *p, const struct prof_obj *o, uint32_t g, uint64_t ra, uint64_t calls,
		       struct pv_lines *w)
{
	uint32_t sg;
	const struct pi_map_site *s;
	if (!calls || !prof_find_site(p, ra, &sg, &s) || sg != g)
		return 0;
	const struct pi_map_line *l = prof_line(o, s->section, s->offset);
	return pv_lines_push(w, l ? prof_str(o, l->file) : pv_unknown_file, l ? l->line : 0, calls);
}

int pv_outside_lines(const struct profile *p, const struct x86_decoder *dx, uint32_t g, const struct pv_call *ext,
		     size_t next, struct pv_lines *w)
{
	const struct prof_obj *o = &p->objs[p->funcs[g].obj];
	w->n = 0;
	w->oom = false;
	w->o = o;
	if (p->funcs[g].external)
		return 0;
	if (ext) {
		for (size_t i = 0; i < next; i++)
			if (add_outside(p, o, g, ext[i].ra, ext[i].calls, w))
				return -1;
	} else {
		for (uint32_t ti = 0; ti < p->nthreads; ti++) {
			const struct prof_thread *th = &p->threads[ti];
			for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
				const struct pi_prof_node *nd = &th->nodes[n];
				if (ext_caller(p, th, n) == g &&
				    add_outside(p, o, g, nd->ret_addr, nd->calls - nd->rec_calls, w))
					return -1;
			}
		}
	}
	/* system calls made by its own instructions */
	struct prof_blocks bw;
	for (prof_blocks_init(&bw, p, g); prof_blocks_next(&bw);) {
		const struct pi_map_block *bl = bw.bl;
		if (!bw.count)
			continue;
		for (uint32_t off = 0; off < bl->size;) {
			struct insn in;
			if (!insn_decode(dx, o->code + bl->code + off, bl->size - off, bl->offset + off, &in))
				break;
			if (in.kind == INSN_SYSCALL) {
				const struct pi_map_line *l = prof_line(o, bl->section, bl->offset + off);
				if (pv_lines_push(w, l ? prof_str(o, l->file) : pv_unknown_file, l ? l->line : 0,
						  bw.count))
					return -1;
			}
			off += in.len;
		}
	}
	return 0;
}

int pv_ext_calls_build(const struct profile *p, struct pv_ext_calls *ec)
{
	size_t total = 0;
	ec->v = NULL;
	ec->first = calloc((size_t)p->nfuncs + 1, sizeof(uint32_t));
	if (!ec->first)
		return -1;
	/* counted first, then placed: first[g + 1] counts g's, then sums */
	for (uint32_t ti = 0; ti < p->nthreads; ti++)
		for (uint32_t n = 1; n < p->threads[ti].hdr->nnodes; n++) {
			uint32_t g = ext_caller(p, &p->threads[ti], n);
			if (g != UINT32_MAX) {
				ec->first[g + 1]++;
				total++;
			}
		}
	for (uint32_t g = 0; g < p->nfuncs; g++)
		ec->first[g + 1] += ec->first[g];
	uint32_t *at = malloc(((size_t)p->nfuncs + 1) * sizeof(uint32_t));
	ec->v = malloc((total ? total : 1) * sizeof(*ec->v));
	if (!at || !ec->v) {
		free(at);
		pv_ext_calls_free(ec);
		return -1;
	}
	memcpy(at, ec->first, ((size_t)p->nfuncs + 1) * sizeof(uint32_t));
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			uint32_t g = ext_caller(p, th, n);
			if (g != UINT32_MAX)
				ec->v[at[g]++] = (struct pv_call){th->nodes[n].ret_addr,
								   th->nodes[n].calls - th->nodes[n].rec_calls};
		}
	}
	free(at);
	return 0;
}

void pv_ext_calls_free(struct pv_ext_calls *ec)
{
	free(ec->v);
	free(ec->first);
	ec->v = NULL;
	ec->first = NULL;
}

int pv_function_lines_os(const struct profile *p, const struct x86_decoder *dx, uint32_t g, uint64_t self,
			 uint64_t os, const struct pv_lines *outside, struct pv_lines *ls)
{
	ls->n = 0;
	ls->oom = false;
	ls->o = &p->objs[p->funcs[g].obj];
	if (!p->funcs[g].external)
		pv_insn_costs(p, dx, g, add_insn, ls);
	if (ls->oom)
		return -1;
	uint64_t sum = 0;
	for (size_t i = 0; i < ls->n; i++)
		sum += ls->v[i].cycles;
	if (sum > self) {
		/* scaled to self, each line's share rounded so that they add up */
		unsigned __int128 cum = 0;
		uint64_t given = 0;
		for (size_t i = 0; i < ls->n; i++) {
			cum += ls->v[i].cycles;
			uint64_t upto = (uint64_t)(cum * self / sum);
			ls->v[i].cycles = upto - given;
			given = upto;
		}
	} else if (sum < self) {
		/* beyond its blocks: its time outside its code on the lines
		 * that spent it, the rest (bubbles, page faults) on its first */
		uint64_t rest = self - sum, weight = 0;
		if (os > rest)
			os = rest;
		for (size_t i = 0; outside && os && i < outside->n; i++)
			weight += outside->v[i].cycles;
		if (weight) {
			unsigned __int128 cum = 0;
			uint64_t given = 0;
			for (size_t i = 0; i < outside->n; i++) {
				cum += outside->v[i].cycles;
				uint64_t upto = (uint64_t)(cum * os / weight);
				if (upto > given &&
				    pv_lines_push(ls, outside->v[i].file, outside->v[i].line, upto - given))
					return -1;
				given = upto;
			}
			rest -= os;
		}
		uint32_t line;
		const char *file = pv_entry_line(p, g, &line);
		if (rest && pv_lines_push(ls, file, line, rest))
			return -1;
	}
	if (ls->n)
		qsort(ls->v, ls->n, sizeof(*ls->v), by_file_line);
	size_t m = 0;
	for (size_t i = 0; i < ls->n; i++) {
		if (m && !by_file_line(&ls->v[m - 1], &ls->v[i]))
			ls->v[m - 1].cycles += ls->v[i].cycles;
		else
			ls->v[m++] = ls->v[i];
	}
	ls->n = m;
	return 0;
}

