/* SPDX-License-Identifier: MIT */
#include "reglive.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "external.h"
#include "reloc.h"
#include "util.h"

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
#define B(r) (1u << (r))
#define ALL 0xffffu
/* what no call keeps, by the ABI */
#define SCRATCH (B(RAX) | B(RCX) | B(RDX) | B(RSI) | B(RDI) | B(R8) | B(R9) | B(R10) | B(R11))
/* what a call or a jump to a function may read: its arguments, %rax
 * (a variadic call's vector count), %r10 (a nested function's chain, or
 * a closure's in gccgo's calls through a pointer) */
#define ARGS (B(RDI) | B(RSI) | B(RDX) | B(RCX) | B(R8) | B(R9) | B(RAX) | B(R10))
/* what a direct call to another object's function may read: no chain
 * (a nested function is local to its unit) */
#define ARGS_DIRECT (ARGS & ~B(R10))
/* what a function's caller reads after it returns */
#define AT_RET (B(RBX) | B(RBP) | B(R12) | B(R13) | B(R14) | B(R15) | B(RAX) | B(RDX) | B(RSP))

/* The registers instruction k reads and writes whole; and that it
 * writes at all (wr; ALL where it cannot be described). */
static void effect(const struct code *c, const struct text *t, uint32_t k, uint16_t *use, uint16_t *def,
		   uint16_t *wr)
{
	const struct insn *in = &t->insns[k];
	struct insn_detail d;
	if (in->kind == INSN_SYSCALL) {
		*use = B(RAX) | B(RDI) | B(RSI) | B(RDX) | B(R10) | B(R8) | B(R9);
		*wr = *def = B(RAX) | B(RCX) | B(R11);
		return;
	}
	if (!insn_describe(&c->dx, c->o->secs[t->sec].data + in->off, in->len, &d)) {
		*use = ALL, *def = 0, *wr = ALL;
		return;
	}
	*use = (uint16_t)((d.rd | d.addr | d.merge) & ALL);
	*def = (uint16_t)(d.wr & ~(d.merge | d.rd) & ALL);
	*wr = (uint16_t)(d.wr & ALL);
}

/* Which of %r10 and %rax a call's callee may read as set up for it
 * (text.set_up, CHAIN_R10, CHAIN_RAX): written since the function's entry
 * or since the last call, which clobbers them, on some way to the call.
 * %r10 is a nested function's chain or, in gccgo's calls through a
 * pointer, a closure's; %rax a variadic call's count of vector
 * registers.  Each is set up for the call it goes with: a function's own
 * at entry is none for its calls (a pointer to a nested function is a
 * trampoline that sets its own chain; a variadic call sets %al each
 * time).  A block entered some other way than by its function's edges
 * (an address taken, another function's jump, a resync, another piece's
 * start) may have both. */
struct chain_run {
	const struct code *c;
	const struct func *f;
	uint8_t *in;  /* per block of the function */
	uint8_t out;
	bool changed;
};

static void chain_to(void *ctx, const struct block *succ)
{
	struct chain_run *r = ctx;
	size_t i = (size_t)(succ - r->c->blocks);
	if (i < r->f->first_block || i >= (size_t)r->f->first_block + r->f->nblocks)
		return;
	uint8_t *at = &r->in[i - r->f->first_block];
	if (r->out & ~*at) {
		*at |= r->out;
		r->changed = true;
	}
}

static void chain_pass(struct code *c, const struct func *f, uint16_t **wr)
{
	struct chain_run r = {c, f, xcalloc(f->nblocks + 1, 1), 0, true};
	for (uint32_t i = 1; i < f->nblocks; i++) {
		const struct block *b = &c->blocks[f->first_block + i];
		if (c->texts[b->ts].mark[b->first] & (MARK_ADDR | MARK_ENTERED | MARK_RESYNC | MARK_PSTART | MARK_FSTART))
			r.in[i] = CHAIN_R10 | CHAIN_RAX;
	}
	while (r.changed) {
		r.changed = false;
		for (uint32_t i = 0; i < f->nblocks; i++) {
			const struct block *b = &c->blocks[f->first_block + i];
			struct text *t = &c->texts[b->ts];
			uint8_t set = r.in[i];
			for (uint32_t k = b->first; k < b->first + b->n; k++) {
				enum insn_kind kind = t->insns[k].kind;
				if (kind == INSN_CALL || kind == INSN_CALL_IND) {
					t->set_up[k] |= set;
					set = 0; /* (the callee's: scratch) */
				} else if (kind == INSN_JMP_IND) {
					t->set_up[k] |= set; /* (a tail call's too: layout.c) */
				} else {
					set |= (wr[b->ts][k] & B(R10) ? CHAIN_R10 : 0) | (wr[b->ts][k] & B(RAX) ? CHAIN_RAX : 0);
				}
			}
			r.out = set;
			code_block_flow(c, f, b, chain_to, &r);
		}
	}
	free(r.in);
}

/* A liveness being found: into the blocks' gpr_live (where a function's
 * callers keep registers through it: the stubs' scratch registers), or,
 * keep-free, into reads (per block; what the function itself reads: its
 * entry's is the func's reads, what a call to it reads). */
struct regs_run {
	uint16_t *keep; /* per function: what it must keep beyond the ABI */
	uint16_t *clobbers; /* per function: what no caller keeps through it */
	uint16_t *reads; /* per block, in the keep-free pass; else NULL */
	uint16_t **use, **def; /* per text, per instruction (described once) */
	bool again;     /* a keep or an entry grew: every function again */
	size_t fi;      /* the function visited */
};

static uint16_t *live_of(struct code *c, struct regs_run *r, struct block *b)
{
	return r->reads ? &r->reads[b - c->blocks] : &b->gpr_live;
}

struct succ_regs {
	struct code *c;
	struct regs_run *r;
	uint16_t out;
};

static void or_regs(void *ctx, const struct block *succ)
{
	struct succ_regs *s = ctx;
	s->out |= *live_of(s->c, s->r, (struct block *)succ);
}

/* Registers live at the end of block b of f, beyond the ABI what f must
 * keep for its callers (none in the keep-free pass). */
static uint16_t live_out(struct code *c, struct regs_run *r, const struct func *f, const struct block *b)
{
	struct succ_regs s = {c, r, 0};
	uint16_t keep = r->reads ? 0 : r->keep[r->fi];
	unsigned ends = code_block_flow(c, f, b, or_regs, &s);
	if (ends & FLOW_RET)
		s.out |= AT_RET | keep;
	if (ends & FLOW_TAIL)
		s.out |= AT_RET | ARGS | keep; /* its callee returns to f's caller */
	if (ends & (FLOW_OUT | FLOW_OUT_AFTER_CALL | FLOW_UNSEEN))
		s.out = ALL;
	return s.out;
}

uint16_t pointer_target_rax(const struct code *c, const struct text *t, uint32_t k)
{
	const struct insn *in = &t->insns[k];
	if (in->ind_reg)
		return in->ind_reg == 1 + RAX ? B(RAX) : 0;
	return in->desc && (code_detail(c, in)->addr & B(RAX)) ? B(RAX) : 0;
}

uint16_t call_reads(const struct code *c, const struct text *t, uint32_t k)
{
	const struct insn *in = &t->insns[k];
	/* (chain_pass) */
	uint16_t unset = !t->set_up ? 0
				    : (uint16_t)((t->set_up[k] & CHAIN_R10 ? 0 : B(R10)) |
						 (t->set_up[k] & CHAIN_RAX ? 0 : B(RAX)));
	if (in->kind != INSN_CALL)
		return in->kind == INSN_CALL_IND ? ARGS & (uint16_t)~unset & (uint16_t)~pointer_target_rax(c, t, k) : ARGS;
	int32_t g = t->mark[k] & MARK_EXT ? -1 : local_entry_callee(c, t, k);
	if (g >= 0 && c->funcs[g].instrument)
		return c->funcs[g].reads & (uint16_t)~B(R11); /* (which no call reads, by the ABI) */
	/* (a function of the unit may be a nested one that takes its
	 * caller's own chain on: a sibling's) */
	if (g >= 0 || local_callee(c, t, k) >= 0)
		return ARGS & (uint16_t)~(unset & B(RAX));
	return ARGS_DIRECT & (uint16_t)~unset;
}

uint16_t call_clobbers(const struct code *c, const struct text *t, uint32_t k)
{
	bool local = t->insns[k].kind == INSN_CALL && !(t->mark[k] & MARK_EXT) && local_callee(c, t, k) >= 0;
	if (!local)
		return SCRATCH;
	int32_t g = local_entry_callee(c, t, k);
	return g >= 0 && c->funcs[g].instrument ? c->funcs[g].writes : 0;
}

/* func.writes: the scratch registers f's entry block writes whole before
 * any instruction reads them (every way through f runs the whole block:
 * a call or a jump ends it).  Not those a function entered another way
 * than at its start may see (a resync, an address taken inside the entry
 * block is past its start: a block of its own). */
static void entry_writes(struct code *c, struct func *f, uint16_t **use, uint16_t **def)
{
	const struct block *b = &c->blocks[f->first_block];
	const struct text *t = &c->texts[b->ts];
	uint16_t read = 0, written = 0;
	for (uint32_t k = b->first; k < b->first + b->n; k++) {
		enum insn_kind kind = t->insns[k].kind;
		if (kind != INSN_OTHER)
			break; /* (its last: a jump, a call, a return) */
		read |= use[b->ts][k] & (uint16_t)~written;
		written |= def[b->ts][k] & (uint16_t)~read;
	}
	f->writes = written & SCRATCH & (uint16_t)~B(R11);
}

static bool regs_visit(struct code *c, const struct func *f, struct block *bl, void *ctx)
{
	struct regs_run *r = ctx;
	struct text *t = &c->texts[bl->ts];
	uint16_t *use = r->use[bl->ts], *def = r->def[bl->ts];
	uint16_t live = live_out(c, r, f, bl);
	if (!r->reads)
		t->live_after[bl->first + bl->n - 1] = live; /* (a jump's: at it) */
	for (uint32_t k = bl->first + bl->n; k-- > bl->first;) {
		const struct insn *in = &t->insns[k];
		if (in->kind == INSN_CALL || in->kind == INSN_CALL_IND) {
			int32_t g = in->kind == INSN_CALL && !(t->mark[k] & MARK_EXT) ? local_callee(c, t, k) : -1;
			if (!r->reads) {
				t->live_after[k] = live;
				/* all live through it, which must keep them */
				uint16_t need = live & SCRATCH & (g >= 0 ? (uint16_t)~r->clobbers[g] : 0);
				if (g >= 0 && (need & ~r->keep[g])) {
					r->keep[g] |= need;
					r->again = true;
				}
			}
			live &= (uint16_t)~call_clobbers(c, t, k);
			live |= call_reads(c, t, k);
		}
		live = (uint16_t)((live & ~def[k]) | use[k]);
	}
	if (!r->reads && (live & B(R11)))
		bl->live_in |= LIVE_R11;
	uint16_t *at = live_of(c, r, bl);
	if (!(live & ~*at))
		return false;
	*at |= live;
	return true;
}

/* What gcc's interprocedural allocation knows each function clobbers
 * (regs_run.clobbers), so that none of its callers keeps a value there
 * through it, however our liveness of the caller finds it (a register an
 * argument of a tail call may be, or one the code after the call cannot
 * be followed to): the scratch registers it writes anywhere, or that a
 * call anywhere in it clobbers (all of them for a call to a function of
 * another unit, or through a pointer), to a fixed point.  Less what it
 * reads from its entry before it writes it, which a function that keeps
 * a register for its callers (a push and a pop of its own, as
 * no_caller_saved_registers or hand-written code keeps it) reads; and
 * nothing for an instruction that cannot be described or a tail jump:
 * too little is a register kept that need not be, too much one
 * clobbered that a caller keeps. */
static void clobbers_pass(struct code *c, uint16_t **wr, uint16_t *clob)
{
	bool again = true;
	while (again) {
		again = false;
		for (size_t fi = 0; fi < c->nfuncs; fi++) {
			const struct func *f = &c->funcs[fi];
			if (!f->instrument)
				continue;
			uint16_t w = clob[fi];
			for (uint32_t i = 0; i < f->nblocks; i++) {
				const struct block *b = &c->blocks[f->first_block + i];
				const struct text *t = &c->texts[b->ts];
				for (uint32_t k = b->first; k < b->first + b->n; k++) {
					enum insn_kind kind = t->insns[k].kind;
					if (kind == INSN_CALL || kind == INSN_CALL_IND) {
						int32_t g = kind == INSN_CALL && !(t->mark[k] & MARK_EXT)
								    ? local_callee(c, t, k)
								    : -1;
						if (g < 0)
							w |= SCRATCH;
						else if (c->funcs[g].instrument)
							w |= clob[g];
					} else if (wr[b->ts][k] != ALL) {
						w |= wr[b->ts][k];
					}
				}
			}
			w &= SCRATCH & (uint16_t)~f->reads;
			if (w != clob[fi]) {
				clob[fi] = w;
				again = true;
			}
		}
	}
}

/* One liveness to a fixed point over every function: again while a
 * function's keep or its entry's reads grow. */
static void regs_fixpoint(struct code *c, struct regs_run *r)
{
	r->again = true;
	while (r->again) {
		r->again = false;
		for (r->fi = 0; r->fi < c->nfuncs; r->fi++) {
			struct func *f = &c->funcs[r->fi];
			if (!f->instrument)
				continue;
			code_backward_fixpoint(c, f, regs_visit, r);
			if (r->reads && (r->reads[f->first_block] & ~f->reads)) {
				f->reads |= r->reads[f->first_block];
				r->again = true;
			}
		}
	}
}

void reg_liveness(struct code *c)
{
	struct regs_run r = {.keep = xcalloc(c->nfuncs + 1, sizeof(uint16_t)),
			     .reads = xcalloc(c->nblocks + 1, sizeof(uint16_t)),
			     .use = xcalloc((size_t)c->ntexts + 1, sizeof(uint16_t *)),
			     .def = xcalloc((size_t)c->ntexts + 1, sizeof(uint16_t *))};
	uint16_t **wr = xcalloc((size_t)c->ntexts + 1, sizeof(uint16_t *));
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		t->live_after = xcalloc(t->ninsns + 1, sizeof(uint16_t));
		r.use[ti] = xcalloc(t->ninsns + 1, sizeof(uint16_t));
		r.def[ti] = xcalloc(t->ninsns + 1, sizeof(uint16_t));
		t->set_up = xcalloc(t->ninsns + 1, 1);
		wr[ti] = xcalloc(t->ninsns + 1, sizeof(uint16_t));
		for (uint32_t k = 0; k < t->ninsns; k++)
			if (t->fn[k] >= 0 && c->funcs[t->fn[k]].instrument)
				effect(c, t, k, &r.use[ti][k], &r.def[ti][k], &wr[ti][k]);
	}
	for (size_t fi = 0; fi < c->nfuncs; fi++)
		if (c->funcs[fi].instrument) {
			chain_pass(c, &c->funcs[fi], wr);
			if (c->funcs[fi].nblocks)
				entry_writes(c, &c->funcs[fi], r.use, r.def);
		}
	/* what each function reads, then what is live where, its callers'
	 * keeps included */
	regs_fixpoint(c, &r);
	free(r.reads);
	r.reads = NULL;
	r.clobbers = xcalloc(c->nfuncs + 1, sizeof(uint16_t));
	clobbers_pass(c, wr, r.clobbers);
	for (int ti = 0; ti < c->ntexts; ti++)
		free(wr[ti]);
	free(wr);
	regs_fixpoint(c, &r);
	free(r.clobbers);
	for (int ti = 0; ti < c->ntexts; ti++)
		free(r.use[ti]), free(r.def[ti]);
	free(r.use), free(r.def), free(r.keep);
}

uint16_t stub_free_regs(const struct block *b)
{
	return (uint16_t)(~b->gpr_live & ~(1u << 4) & ~(1u << 12));
}
