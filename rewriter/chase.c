/* SPDX-License-Identifier: MIT */
#include "chase.h"

#include <stdlib.h>
#include <string.h>

#include "stub_abi.h"

#define NGPR 16
#define REG_RSP 4
/* rax, rcx, rdx, rsi, rdi, r8-r11: what a call may change */
#define CALLER_SAVED 0x0fc7u
/* A function's data flow settles in a few rounds; past this many it is
 * left as it stands (some waits missed, never wrong ones added). */
#define MAX_ROUNDS 64

/* What the data flow needs of one instruction. */
struct step {
	uint16_t in;   /* registers its results are computed from */
	uint16_t out;  /* registers it writes */
	uint16_t addr; /* a followed load's address registers */
	int32_t load;  /* its index among the function's followed accesses, or -1 */
	bool store_only; /* that access writes memory without reading it */
	bool call;
	bool looped;   /* it is on a cycle of the control flow */
};

struct flow {
	int32_t *parent;  /* union-find over the loads */
	int32_t *cons;    /* per load: the class it waits for, or -1 */
	bool *looped;     /* per load: whether it is on a cycle of the control
			     flow; per class (at its root): whether one of its
			     loads is */
	uint32_t nloads;
	uint64_t unions;  /* classes joined so far: the flow changed */
};

static int32_t find(struct flow *w, int32_t x)
{
	while (w->parent[x] != x) {
		w->parent[x] = w->parent[w->parent[x]];
		x = w->parent[x];
	}
	return x;
}

/* The class of a value computed from values of classes a and b (-1: not
 * from a followed load). */
static int32_t merge(struct flow *w, int32_t a, int32_t b)
{
	if (a < 0)
		return b < 0 ? -1 : find(w, b);
	if (b < 0)
		return find(w, a);
	a = find(w, a), b = find(w, b);
	if (a == b)
		return a;
	/* the lower index stays the root: the result does not depend on the
	 * order the blocks are visited in */
	if (a > b) {
		int32_t t = a;
		a = b, b = t;
	}
	w->parent[b] = a;
	w->looped[a] |= w->looped[b];
	w->unions++;
	return a;
}

/* cyc[i] = whether block i of f lies on a cycle of its control flow
 * (Tarjan's strongly connected components, iteratively). */
static void mark_cycles(const struct code *c, const struct func *f, bool *cyc)
{
	uint32_t nb = f->nblocks, counter = 0, sp = 0, csp = 0;
	uint32_t *index = xcalloc(nb, sizeof(uint32_t)), *low = xcalloc(nb, sizeof(uint32_t));
	uint32_t *stack = xcalloc(nb, sizeof(uint32_t)), *call = xcalloc(nb, sizeof(uint32_t));
	uint8_t *edge = xcalloc(nb, 1);
	bool *on = xcalloc(nb, sizeof(bool));
	for (uint32_t root = 0; root < nb; root++) {
		if (index[root])
			continue;
		call[csp++] = root;
		index[root] = low[root] = ++counter;
		stack[sp++] = root;
		on[root] = true;
		while (csp) {
			uint32_t v = call[csp - 1], succ[2];
			unsigned ns = code_block_succs(c, f->first_block + v, succ);
			if (edge[v] < ns) {
				uint32_t w = succ[edge[v]++] - f->first_block;
				if (w >= nb)
					continue;
				if (w == v)
					cyc[v] = true;
				if (!index[w]) {
					index[w] = low[w] = ++counter;
					stack[sp++] = w;
					on[w] = true;
					call[csp++] = w;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			csp--;
			if (csp && low[v] < low[call[csp - 1]])
				low[call[csp - 1]] = low[v];
			if (low[v] == index[v]) {
				uint32_t n = 0, w;
				do {
					w = stack[--sp];
					on[w] = false;
					n++;
				} while (w != v);
				if (n > 1)
					for (uint32_t k = sp; k < sp + n; k++)
						cyc[stack[k]] = true;
			}
		}
	}
	free(index), free(low), free(stack), free(call), free(edge), free(on);
}

static uint16_t gprs(uint64_t mask)
{
	return (uint16_t)(mask & 0xffffu);
}

/* An access whose address the flow follows: a memory read or write
 * through general-purpose registers, neither the stack nor RIP-relative,
 * nor another address space; string instructions, the stack's own
 * instructions (push, pop, leave), and what reads no data are left out.
 * A store is followed for its own miss only (nothing waits for it). */
static bool followed(const struct insn *in, const struct insn_detail *d)
{
	if (in->kind != INSN_OTHER || in->cls == ICLS_STRING || in->cls == ICLS_NOP || in->rep ||
	    !(d->load || d->store))
		return false;
	/* nothing waits for a prefetch or a flush (nor for a long nop's
	 * operand, which is not read) */
	if (!strncmp(d->form, "prefetch", 8) || !strncmp(d->form, "clflush", 7) || !strncmp(d->form, "cldemote", 8) ||
	    !strncmp(d->form, "nop", 3))
		return false;
	if (d->mem.rip || d->mem.other_seg || d->mem.addr32 || (d->wr >> REG_RSP & 1) || d->rsp_move)
		return false;
	int b = d->mem.base, x = d->mem.index;
	if (b < 0 && x < 0)
		return false;
	if (b >= NGPR || x >= NGPR || b == REG_RSP || x == REG_RSP)
		return false;
	return true;
}

/* The class of a value computed, by an instruction on a cycle of the
 * control flow if looped, from values of classes a and b.  Such a value
 * waits for the loads of the loop it comes from, not for those read
 * before the loop as well: they are long done, and one class of both
 * would make every step wait for the step before (j = ptr[i] - 1 +
 * (j < 0 ? nblock : 0) would join ptr[i]'s class to nblock's, read before
 * the loop, and with it every load through s: a chain around the loop). */
static int32_t combine(struct flow *w, int32_t a, int32_t b, bool looped)
{
	if (looped && a >= 0 && b >= 0) {
		bool la = w->looped[find(w, a)], lb = w->looped[find(w, b)];
		if (la != lb)
			return find(w, la ? a : b);
	}
	return merge(w, a, b);
}

static void transfer(struct flow *w, const struct step *s, int32_t *cls)
{
	if (s->call) {
		for (int r = 0; r < NGPR; r++)
			if (CALLER_SAVED >> r & 1)
				cls[r] = -1;
		return;
	}
	int32_t v = -1;
	if (s->load >= 0) {
		for (int r = 0; r < NGPR; r++)
			if (s->addr >> r & 1)
				v = combine(w, v, cls[r], s->looped);
		w->cons[s->load] = combine(w, w->cons[s->load], v, s->looped);
	}
	if (s->load >= 0 && !s->store_only) {
		v = s->load;
	} else { /* a store's results, if any, are no load's */
		v = -1;
		for (int r = 0; r < NGPR; r++)
			if (s->in >> r & 1)
				v = combine(w, v, cls[r], s->looped);
	}
	/* %rsp is never a load's value (push and pop move it) */
	for (int r = 0; r < NGPR; r++)
		if (s->out >> r & 1 && r != REG_RSP)
			cls[r] = v < 0 ? -1 : find(w, v);
}

/* The runtime's slot for the class whose root is load l (by l's place,
 * so that it does not depend on where the linker puts the code; 0 is no
 * slot). */
static uint16_t slot_of(const struct code *c, const struct func *f, const uint32_t *load_b,
			const uint32_t *load_k, const uint32_t *first, uint32_t l)
{
	const struct block *bl = &c->blocks[f->first_block + load_b[l]];
	const struct insn *in = &c->texts[bl->ts].insns[bl->first + (load_k[l] - first[load_b[l]])];
	uint64_t h = ((uint64_t)str_hash(f->name) << 32 | (uint32_t)bl->ts) ^ in->off * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (uint16_t)(h % STUB_LOAD_SLOT_MASK + 1);
}

static void chase_func(struct code *c, const struct func *f)
{
	uint32_t nb = f->nblocks, *first = xcalloc(nb + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < nb; i++)
		first[i + 1] = first[i] + c->blocks[f->first_block + i].n;
	struct step *steps = xcalloc(first[nb] + 1, sizeof(*steps));
	/* per followed load: its step, and its block (from f's first) */
	uint32_t *load_k = xcalloc(first[nb] + 1, sizeof(uint32_t)), nloads = 0;
	uint32_t *load_b = xcalloc(first[nb] + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < nb; i++) {
		const struct block *bl = &c->blocks[f->first_block + i];
		const struct text *t = &c->texts[bl->ts];
		for (uint32_t j = 0; j < bl->n; j++) {
			const struct insn *in = &t->insns[bl->first + j];
			struct step *s = &steps[first[i] + j];
			s->load = -1;
			s->call = in->kind == INSN_CALL || in->kind == INSN_CALL_IND;
			const struct insn_detail d = *code_detail(c, in);
			s->out = gprs(d.wr);
			if (d.zero_idiom)
				continue;
			if (followed(in, &d)) {
				s->load = (int32_t)nloads;
				load_b[nloads] = i;
				load_k[nloads++] = first[i] + j;
				s->addr = gprs(d.addr);
				s->store_only = !d.load;
				if (s->store_only)
					s->in = gprs(d.rd);
			} else {
				s->in = gprs(d.rd) | (d.load || d.store ? 0 : gprs(d.addr));
			}
		}
	}
	if (nloads) {
		struct flow w = {
			.parent = xmalloc(nloads * sizeof(int32_t)),
			.cons = xmalloc(nloads * sizeof(int32_t)),
			.looped = xcalloc(nloads, sizeof(bool)),
			.nloads = nloads,
		};
		bool *cyc = xcalloc(nb, sizeof(bool));
		mark_cycles(c, f, cyc);
		for (uint32_t l = 0; l < nloads; l++)
			w.parent[l] = (int32_t)l, w.cons[l] = -1, w.looped[l] = cyc[load_b[l]];
		for (uint32_t i = 0; i < nb; i++)
			for (uint32_t j = first[i]; j < first[i + 1]; j++)
				steps[j].looped = cyc[i];
		int32_t *in = xmalloc((size_t)nb * NGPR * sizeof(int32_t));
		for (size_t i = 0; i < (size_t)nb * NGPR; i++)
			in[i] = -1;
		bool changed = true;
		for (int round = 0; changed && round < MAX_ROUNDS; round++) {
			changed = false;
			uint64_t unions = w.unions;
			for (uint32_t i = 0; i < nb; i++) {
				int32_t cls[NGPR];
				memcpy(cls, &in[(size_t)i * NGPR], sizeof cls);
				for (uint32_t j = first[i]; j < first[i + 1]; j++)
					transfer(&w, &steps[j], cls);
				uint32_t succ[2];
				unsigned ns = code_block_succs(c, f->first_block + i, succ);
				for (unsigned e = 0; e < ns; e++) {
					int32_t *to = &in[(size_t)(succ[e] - f->first_block) * NGPR];
					bool looped = cyc[succ[e] - f->first_block];
					for (int r = 0; r < NGPR; r++) {
						int32_t v = combine(&w, to[r], cls[r], looped);
						if (v != to[r])
							changed = true;
						to[r] = v;
					}
				}
			}
			if (w.unions != unions)
				changed = true;
		}
		bool *waited = xcalloc(nloads, sizeof(bool));
		for (uint32_t l = 0; l < nloads; l++)
			if (w.cons[l] >= 0)
				waited[find(&w, w.cons[l])] = true;
		for (uint32_t l = 0; l < nloads; l++) {
			int32_t root = find(&w, (int32_t)l);
			int32_t wait = w.cons[l] >= 0 ? find(&w, w.cons[l]) : -1;
			if (wait < 0 && !waited[root])
				continue;
			const struct block *bl = &c->blocks[f->first_block + load_b[l]];
			struct text *t = &c->texts[bl->ts];
			if (!t->chase)
				t->chase = xcalloc(t->ninsns + 1, sizeof(uint32_t));
			/* a class is named by its root load */
			uint32_t word = 0;
			if (wait >= 0)
				word |= (uint32_t)slot_of(c, f, load_b, load_k, first, (uint32_t)wait) << STUB_LOAD_WAIT_SHIFT;
			if (waited[root])
				word |= slot_of(c, f, load_b, load_k, first, (uint32_t)root);
			t->chase[bl->first + (load_k[l] - first[load_b[l]])] = word;
		}
		free(waited), free(in), free(w.parent), free(w.cons), free(w.looped), free(cyc);
	}
	free(first), free(steps), free(load_k), free(load_b);
}

void chase_find(struct code *c)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++)
		if (c->funcs[fi].instrument && c->funcs[fi].nblocks)
			chase_func(c, &c->funcs[fi]);
}
