/* SPDX-License-Identifier: MIT */
#include "fgraph.h"

#include <stdlib.h>
#include <string.h>

#include "external.h"
#include "util.h"

/* code_block_flow's visit of one block's successors */
struct collect {
	struct fgraph *g;
	uint32_t from;
	bool outside;
};

static void push_edge(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	uint32_t *p = VEC_PUSH(*v, *n, *cap);
	*p = x;
}

static void add_succ(void *ctx, const struct block *succ)
{
	struct collect *k = ctx;
	struct fgraph *g = k->g;
	uint32_t b = (uint32_t)(succ - g->c->blocks);
	if (b < g->f->first_block || b >= g->f->first_block + g->n) {
		k->outside = true;
		return;
	}
	uint32_t i = b - g->f->first_block;
	push_edge(&g->out[k->from], &g->outn[k->from], &g->outcap[k->from], i);
	push_edge(&g->in[i], &g->inn[i], &g->incap[i], k->from);
}

/* Whether the block holds a call, a system call, a trap, or anything
 * that leaves instrumented code (calls end their blocks; the others may
 * not), but for a transparent external's call */
static bool has_call(const struct code *c, const struct block *bl)
{
	const struct text *t = &c->texts[bl->ts];
	for (uint32_t k = bl->first; k < bl->first + bl->n; k++) {
		const struct insn *in = &t->insns[k];
		if ((in->kind == INSN_CALL || in->kind == INSN_CALL_IND) && (t->mark[k] & MARK_EXT) &&
		    !(t->mark[k] & MARK_FLUSH) && t->ext && ext_transparent(&c->exts[t->ext[k]]))
			continue;
		if (in->kind == INSN_CALL || in->kind == INSN_CALL_IND || in->kind == INSN_SYSCALL ||
		    in->kind == INSN_TRAP || (t->mark[k] & (MARK_EXT | MARK_FLUSH)))
			return true;
	}
	return false;
}

void fgraph_build(struct fgraph *g)
{
	const struct code *c = g->c;
	uint32_t n = g->n;
	g->out = xcalloc(n, sizeof(*g->out));
	g->outn = xcalloc(n, sizeof(size_t));
	g->outcap = xcalloc(n, sizeof(size_t));
	g->in = xcalloc(n, sizeof(*g->in));
	g->inn = xcalloc(n, sizeof(size_t));
	g->incap = xcalloc(n, sizeof(size_t));
	g->stops = xcalloc(n, sizeof(bool));
	g->special = xcalloc(n, sizeof(bool));
	g->live = xcalloc(n, sizeof(bool));
	for (uint32_t i = 0; i < n; i++) {
		const struct block *bl = &c->blocks[g->f->first_block + i];
		struct collect k = {g, i, false};
		unsigned ends = code_block_flow(c, g->f, bl, add_succ, &k);
		g->stops[i] = ends || k.outside || has_call(c, bl);
		uint16_t m = c->texts[bl->ts].mark[bl->first];
		g->special[i] = i == 0 || (m & (MARK_RESYNC | MARK_ADDR | MARK_FSTART | MARK_PSTART | MARK_ENTERED));
	}
	uint32_t *stack = xmalloc(n * sizeof(uint32_t)), depth = 0;
	for (uint32_t i = 0; i < n; i++)
		if (g->special[i] && !g->live[i])
			for (g->live[i] = true, stack[depth++] = i; depth;) {
				uint32_t b = stack[--depth];
				for (size_t e = 0; e < g->outn[b]; e++)
					if (!g->live[g->out[b][e]]) {
						g->live[g->out[b][e]] = true;
						stack[depth++] = g->out[b][e];
					}
			}
	free(stack);
}

void fgraph_free(struct fgraph *g)
{
	for (uint32_t i = 0; i < g->n; i++)
		free(g->out[i]), free(g->in[i]);
	free(g->out), free(g->outn), free(g->outcap), free(g->in), free(g->inn), free(g->incap);
	free(g->stops), free(g->special), free(g->live);
}

/* Reverse postorder from the entry (rpo[0..*count)), and each block's
 * place in it (UINT32_MAX: not reached). */
uint32_t *fgraph_rpo(const struct fgraph *g, uint32_t *place, uint32_t *count)
{
	uint32_t n = g->n, *order = xmalloc(n * sizeof(uint32_t));
	uint32_t *stack = xmalloc(n * sizeof(uint32_t));
	size_t *next = xcalloc(n, sizeof(size_t));
	bool *seen = xcalloc(n, sizeof(bool));
	uint32_t depth = 0, done = 0;
	stack[depth++] = 0;
	seen[0] = true;
	while (depth) {
		uint32_t b = stack[depth - 1];
		if (next[b] < g->outn[b]) {
			uint32_t s = g->out[b][next[b]++];
			if (!seen[s]) {
				seen[s] = true;
				stack[depth++] = s;
			}
			continue;
		}
		order[done++] = b;
		depth--;
	}
	for (uint32_t i = 0; i < n; i++)
		place[i] = UINT32_MAX;
	for (uint32_t i = 0; i < done / 2; i++) {
		uint32_t x = order[i];
		order[i] = order[done - 1 - i];
		order[done - 1 - i] = x;
	}
	for (uint32_t i = 0; i < done; i++)
		place[order[i]] = i;
	free(stack), free(next), free(seen);
	*count = done;
	return order;
}

/* Immediate dominators (Cooper, Harvey and Kennedy's iteration), by
 * places in reverse postorder; idom[entry] = entry, UINT32_MAX where not
 * reached. */
uint32_t *fgraph_idom(const struct fgraph *g, const uint32_t *rpo, const uint32_t *place, uint32_t count)
{
	uint32_t *idom = xmalloc(g->n * sizeof(uint32_t));
	for (uint32_t i = 0; i < g->n; i++)
		idom[i] = UINT32_MAX;
	idom[0] = 0;
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t r = 1; r < count; r++) {
			uint32_t b = rpo[r], best = UINT32_MAX;
			for (size_t e = 0; e < g->inn[b]; e++) {
				uint32_t p = g->in[b][e];
				if (idom[p] == UINT32_MAX)
					continue;
				if (best == UINT32_MAX) {
					best = p;
					continue;
				}
				uint32_t x = p, y = best;
				while (x != y) {
					while (place[x] > place[y])
						x = idom[x];
					while (place[y] > place[x])
						y = idom[y];
				}
				best = x;
			}
			if (best != UINT32_MAX && idom[b] != best) {
				idom[b] = best;
				changed = true;
			}
		}
	}
	return idom;
}

/* The one live block that goes to block b, or UINT32_MAX where none or
 * more do: a block nothing reaches (the padding a compiler aligns a loop
 * with, after a jump) falls into the next block, but never runs. */
uint32_t fgraph_only_pred(const struct fgraph *g, uint32_t b)
{
	uint32_t p = UINT32_MAX;
	for (size_t e = 0; e < g->inn[b]; e++) {
		if (!g->live[g->in[b][e]])
			continue;
		if (p != UINT32_MAX)
			return UINT32_MAX;
		p = g->in[b][e];
	}
	return p;
}


static bool dominates(const uint32_t *idom, uint32_t a, uint32_t b)
{
	for (uint32_t x = b; x != UINT32_MAX; x = idom[x]) {
		if (x == a)
			return true;
		if (idom[x] == x)
			return false;
	}
	return false;
}

bool fgraph_in_loop(const uint64_t *row, uint32_t b)
{
	return row[b / 64] >> (b % 64) & 1;
}

/* Puts b in the row; false if it was there */
static bool row_add(uint64_t *row, uint32_t b)
{
	if (fgraph_in_loop(row, b))
		return false;
	row[b / 64] |= 1ull << (b % 64);
	return true;
}

void fgraph_loops(const struct fgraph *g, const uint32_t *idom, struct loops_of *l)
{
	l->n = 0;
	l->words = (g->n + 63) / 64;
	l->bits = NULL;
	uint32_t *stack = xmalloc(g->n * sizeof(uint32_t));
	for (uint32_t h = 0; h < g->n; h++) {
		uint64_t *row = NULL;
		for (size_t e = 0; e < g->inn[h]; e++) {
			uint32_t x = g->in[h][e];
			if (idom[h] == UINT32_MAX || !dominates(idom, h, x))
				continue;
			if (!row) {
				l->bits = xrealloc(l->bits, (size_t)(l->n + 1) * l->words * sizeof(uint64_t));
				row = l->bits + (size_t)l->n++ * l->words;
				memset(row, 0, l->words * sizeof(uint64_t));
				row_add(row, h);
			}
			/* the blocks that reach x without passing h */
			uint32_t depth = 0;
			if (row_add(row, x))
				stack[depth++] = x;
			while (depth) {
				uint32_t b = stack[--depth];
				for (size_t i = 0; i < g->inn[b]; i++)
					if (row_add(row, g->in[b][i]))
						stack[depth++] = g->in[b][i];
			}
		}
	}
	free(stack);
}

