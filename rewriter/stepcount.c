/* SPDX-License-Identifier: MIT */
#include "stepcount.h"

#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "reglive.h"
#include "util.h"

/* What a loop's candidate register is: its one writer in the loop */
struct stepper {
	uint32_t block;  /* the block the step is in */
	uint8_t bits, shift;
	bool down;
};

struct loop_ctx {
	struct code *c;
	const struct func *f;
	const struct fgraph *g;
	const uint64_t *row;  /* the loop's blocks */
	uint32_t head;        /* where every way in enters */
	bool *slot_free;      /* per block of f: its counter slot no count reads */
	int32_t *pot;         /* scratch per block: the potential */
	bool *seen;
};

static bool in_loop(const struct loop_ctx *x, uint32_t b)
{
	return fgraph_in_loop(x->row, b) && x->g->live[b];
}

/* Whether a stub can go on the edge from block u to v of f: before u's
 * jump where u ends in a direct jump of its text to v, else where v's
 * label is (layout.c's landings): u ends in a conditional jump to v, or
 * in that or anything else that falls into v; v is entered by its
 * function's edges only, and the jump, if it goes to v, has no
 * relocation (it can be aimed at the stub).  *jumped: the stub is where
 * v's label is and reached by the jump, so that what falls into v has to
 * jump over it. */
static bool edge_placeable(const struct code *c, const struct func *f, uint32_t u, uint32_t v, bool *jumped)
{
	*jumped = false;
	const struct block *ub = &c->blocks[f->first_block + u], *vb = &c->blocks[f->first_block + v];
	if (ub->ts != vb->ts)
		return false;
	const struct text *t = &c->texts[vb->ts];
	uint32_t kp = ub->first + ub->n - 1;
	const struct insn *j = &t->insns[kp], *first = &t->insns[vb->first];
	if ((t->mark[kp] & (MARK_TAIL | MARK_EXT | MARK_FLUSH)) || first->endbr ||
	    (t->mark[vb->first] & (MARK_ADDR | MARK_ENTERED | MARK_RESYNC | MARK_PSTART | MARK_FSTART)))
		return false;
	bool falls = j->off + j->len == first->off;
	switch (j->kind) {
	case INSN_JMP:
		return j->target == first->off && !reloc_find(c->o, t->sec, j->off + j->rel_off);
	case INSN_JCC:
		if (j->target == first->off)
			return (*jumped = true) && !falls && !reloc_find(c->o, t->sec, j->off + j->rel_off);
		return falls;
	case INSN_OTHER:
		return falls;
	default:
		return false;
	}
}

/* Whether an edge from u to v already has a stub of a loop's register */
static bool edge_taken(const struct code *c, uint32_t u, uint32_t v)
{
	for (size_t i = 0; i < c->nstepped_edges; i++)
		if (c->stepped_edges[i].from == u && c->stepped_edges[i].to == v)
			return true;
	return false;
}

/* Whether a block of the loop falls into block v (the instruction before
 * v's first, of the same function, goes on to it) */
static bool fallen_into(const struct loop_ctx *x, uint32_t v)
{
	const struct code *c = x->c;
	const struct block *vb = &c->blocks[x->f->first_block + v];
	const struct text *t = &c->texts[vb->ts];
	uint32_t k = vb->first;
	if (!k || t->fn[k - 1] != t->fn[k] || t->insns[k - 1].off + t->insns[k - 1].len != t->insns[k].off)
		return false;
	enum insn_kind pk = t->insns[k - 1].kind;
	if (pk == INSN_JMP || pk == INSN_JMP_IND || pk == INSN_RET || pk == INSN_TRAP)
		return false;
	return in_loop(x, t->block[k - 1] - x->f->first_block);
}

static int popcount16(uint16_t m)
{
	return __builtin_popcount(m);
}

/* The loop's blocks may run between a way in and a way out with nothing
 * else running in the frame: no call, system call, trap or way out of
 * the function, no block entered but by the loop's edges */
static bool loop_closed(const struct loop_ctx *x)
{
	const struct code *c = x->c;
	for (uint32_t b = 0; b < x->g->n; b++) {
		if (!in_loop(x, b))
			continue;
		if (b == 0 || x->g->stops[b] || x->g->special[b])
			return false;
		const struct block *bl = &c->blocks[x->f->first_block + b];
		const struct text *t = &c->texts[bl->ts];
		for (uint32_t k = bl->first; k < bl->first + bl->n; k++) {
			enum insn_kind kind = t->insns[k].kind;
			if (kind == INSN_CALL || kind == INSN_CALL_IND || kind == INSN_SYSCALL || kind == INSN_TRAP ||
			    kind == INSN_JMP_IND || (t->mark[k] & (MARK_EXT | MARK_FLUSH | MARK_TAIL)))
				return false;
		}
	}
	return true;
}

/* The registers the loop steps by a constant in one place and writes
 * nowhere else: each one's step, by register (block UINT32_MAX: none) */
static void find_steppers(const struct loop_ctx *x, struct stepper st[16])
{
	const struct code *c = x->c;
	uint32_t writes[16] = {0};
	for (int r = 0; r < 16; r++)
		st[r].block = UINT32_MAX;
	for (uint32_t b = 0; b < x->g->n; b++) {
		if (!in_loop(x, b))
			continue;
		const struct block *bl = &c->blocks[x->f->first_block + b];
		const struct text *t = &c->texts[bl->ts];
		for (uint32_t k = bl->first; k < bl->first + bl->n; k++) {
			const struct insn_detail *d = code_detail(c, &t->insns[k]);
			for (int r = 0; r < 16; r++)
				if (d->wr >> r & 1)
					writes[r]++;
			if (d->step_reg < 0 || d->step_reg == 4)
				continue;
			uint32_t a = (uint32_t)(d->step < 0 ? -(int64_t)d->step : d->step);
			if (a & (a - 1))
				continue; /* not a power of two */
			if (d->step_bits == 32 && a != 1)
				continue; /* (its turns modulo 2^32 / a only) */
			struct stepper *s = &st[d->step_reg];
			s->block = b;
			s->bits = d->step_bits;
			s->shift = (uint8_t)__builtin_ctz(a);
			s->down = d->step < 0;
		}
	}
	for (int r = 0; r < 16; r++)
		if (writes[r] != 1)
			st[r].block = UINT32_MAX;
}

/* The potential over the loop for counted block cb and the step's block
 * sb: for each block, cb's runs less sb's from the way in to its end,
 * the same on every way there (else false) */
static bool potential(const struct loop_ctx *x, uint32_t cb, uint32_t sb)
{
	const struct fgraph *g = x->g;
	memset(x->seen, 0, g->n * sizeof(bool));
	uint32_t *stack = xmalloc(g->n * sizeof(uint32_t)), depth = 0;
	bool ok = true;
	x->pot[x->head] = (x->head == cb) - (x->head == sb);
	x->seen[x->head] = true;
	stack[depth++] = x->head;
	while (depth && ok) {
		uint32_t u = stack[--depth];
		for (size_t e = 0; e < g->outn[u] && ok; e++) {
			uint32_t v = g->out[u][e];
			if (!in_loop(x, v))
				continue;
			int32_t p = x->pot[u] + (v == cb) - (v == sb);
			if (!x->seen[v]) {
				x->seen[v] = true;
				x->pot[v] = p;
				stack[depth++] = v;
			} else
				ok = x->pot[v] == p;
		}
	}
	free(stack);
	return ok;
}

/* The loop's ways in and out, each once: whether they can take their
 * stubs, for register r (ways in each from outside to the head, a
 * register free for the node's address; ways out with the status flags
 * dead and three registers free: the node's, the turns', and one the
 * code before may hold the node in for the block, layout.c's
 * emit_cstep); or, step not UINT32_MAX, their stubs recorded for it */
static bool loop_edges(struct loop_ctx *x, int r, uint32_t step)
{
	struct code *c = x->c;
	const struct fgraph *g = x->g;
	uint32_t fb = x->f->first_block;
	for (uint32_t u = 0; u < g->n; u++) {
		if (!g->live[u])
			continue;
		bool inside = in_loop(x, u);
		for (size_t e = 0; e < g->outn[u]; e++) {
			uint32_t v = g->out[u][e];
			if (inside == in_loop(x, v))
				continue;
			if (step != UINT32_MAX) {
				struct stepped_edge *se = VEC_PUSH(c->stepped_edges, c->nstepped_edges, c->stepped_edgecap);
				*se = (struct stepped_edge){fb + u, fb + v, step, !inside, inside ? x->pot[u] : 0};
				continue;
			}
			bool jumped;
			if (!edge_placeable(c, x->f, u, v, &jumped) || edge_taken(c, fb + u, fb + v))
				return false;
			if (jumped && !inside && fallen_into(x, v))
				return false; /* (a jump over it every turn) */
			const struct block *vb = &c->blocks[fb + v];
			uint16_t free_regs = (uint16_t)(stub_free_regs(vb) & ~(1u << r));
			if (!inside && popcount16(free_regs) < 1)
				return false;
			if (inside && ((vb->live_in & FLAGS_STATUS) || popcount16(free_regs) < 3))
				return false;
		}
	}
	return true;
}

/* A counted block of the loop that its register can count, the first
 * found: its step recorded, its edges' stubs */
static bool step_one(struct loop_ctx *x)
{
	struct code *c = x->c;
	const struct fgraph *g = x->g;
	uint32_t fb = x->f->first_block;
	struct stepper st[16];
	find_steppers(x, st);
	uint32_t keep = UINT32_MAX;
	for (uint32_t b = 0; b < g->n && keep == UINT32_MAX; b++)
		if (x->slot_free[b])
			keep = b;
	if (keep == UINT32_MAX)
		return false;
	int8_t edges_ok[16]; /* (the loop's edges, by register: -1 not looked at yet) */
	memset(edges_ok, -1, sizeof(edges_ok));
	for (uint32_t b = 0; b < g->n; b++) {
		struct block *bl = &c->blocks[fb + b];
		if (!in_loop(x, b) || block_derived(bl) || bl->stepped)
			continue;
		for (int r = 0; r < 16; r++) {
			if (st[r].block == UINT32_MAX || !potential(x, b, st[r].block))
				continue;
			if (edges_ok[r] < 0)
				edges_ok[r] = loop_edges(x, r, UINT32_MAX);
			if (!edges_ok[r])
				continue;
			struct stepped *s = VEC_PUSH(c->stepped, c->nstepped, c->steppedcap);
			*s = (struct stepped){fb + b, fb + keep, (uint8_t)r, st[r].bits, st[r].shift, st[r].down};
			bl->stepped = (uint32_t)c->nstepped;
			x->slot_free[keep] = false;
			loop_edges(x, r, (uint32_t)c->nstepped - 1);
			return true;
		}
	}
	return false;
}

/* The loop's one block entered from outside it, or UINT32_MAX */
static uint32_t loop_head(const struct loop_ctx *x)
{
	const struct fgraph *g = x->g;
	uint32_t head = UINT32_MAX;
	for (uint32_t u = 0; u < g->n; u++) {
		if (!g->live[u] || in_loop(x, u))
			continue;
		for (size_t e = 0; e < g->outn[u]; e++) {
			uint32_t v = g->out[u][e];
			if (!in_loop(x, v))
				continue;
			if (head != UINT32_MAX && head != v)
				return UINT32_MAX;
			head = v;
		}
	}
	return head;
}

static uint32_t loop_size(const struct fgraph *g, const uint64_t *row)
{
	uint32_t n = 0;
	for (uint32_t b = 0; b < g->n; b++)
		n += fgraph_in_loop(row, b) && g->live[b];
	return n;
}

/* The blocks of f whose counter slots no count reads: derived, not an
 * edge's counter, not read by the tables (read); or the entry, counted
 * by calls */
static bool *free_slots(const struct code *c, const struct func *f, const struct fgraph *g, const bool *read)
{
	bool *slot_free = xmalloc(g->n * sizeof(bool));
	for (uint32_t i = 0; i < g->n; i++) {
		const struct block *b = &c->blocks[f->first_block + i];
		slot_free[i] = block_derived(b) && !b->efrom && !read[i];
	}
	/* the entry's, where its node's calls are its count (a count that
	 * is the entry's reads them too) */
	slot_free[0] = code_entry_by_calls(c, f);
	return slot_free;
}

void code_step_counters(struct code *c, const struct func *f, const struct fgraph *g, const uint32_t *idom,
			const bool *read)
{
	struct loops_of l;
	fgraph_loops(g, idom, &l);
	if (!l.n) {
		free(l.bits);
		return;
	}
	/* the largest loops first: the fewer times entered, the fewer stubs run */
	uint32_t *order = xmalloc(l.n * sizeof(uint32_t)), *size = xmalloc(l.n * sizeof(uint32_t));
	for (uint32_t i = 0; i < l.n; i++) {
		order[i] = i;
		size[i] = loop_size(g, l.bits + (size_t)i * l.words);
	}
	for (uint32_t i = 1; i < l.n; i++)
		for (uint32_t j = i; j > 0 && size[order[j - 1]] < size[order[j]]; j--) {
			uint32_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	struct loop_ctx x = {.c = c, .f = f, .g = g, .slot_free = free_slots(c, f, g, read),
			     .pot = xmalloc(g->n * sizeof(int32_t)), .seen = xmalloc(g->n * sizeof(bool))};
	for (uint32_t i = 0; i < l.n; i++) {
		x.row = l.bits + (size_t)order[i] * l.words;
		x.head = loop_head(&x);
		if (x.head != UINT32_MAX && loop_closed(&x))
			step_one(&x);
	}
	free(x.slot_free), free(x.pot), free(x.seen);
	free(order), free(size), free(l.bits);
}
