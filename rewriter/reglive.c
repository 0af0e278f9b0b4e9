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
 * (a variadic call's vector count), %r10 (a nested function's chain) */
#define ARGS (B(RDI) | B(RSI) | B(RDX) | B(RCX) | B(R8) | B(R9) | B(RAX) | B(R10))
/* what a function's caller reads after it returns */
#define AT_RET (B(RBX) | B(RBP) | B(R12) | B(R13) | B(R14) | B(R15) | B(RAX) | B(RDX) | B(RSP))

/* The registers instruction k reads and writes whole. */
static void effect(const struct code *c, const struct text *t, uint32_t k, uint16_t *use, uint16_t *def)
{
	const struct insn *in = &t->insns[k];
	struct insn_detail d;
	if (in->kind == INSN_SYSCALL) {
		*use = B(RAX) | B(RDI) | B(RSI) | B(RDX) | B(R10) | B(R8) | B(R9);
		*def = B(RAX) | B(RCX) | B(R11);
		return;
	}
	if (!insn_describe(&c->dx, c->o->secs[t->sec].data + in->off, in->len, &d)) {
		*use = ALL, *def = 0;
		return;
	}
	*use = (uint16_t)((d.rd | d.addr | d.merge) & ALL);
	*def = (uint16_t)(d.wr & ~(d.merge | d.rd) & ALL);
}

static void or_regs(void *ctx, const struct block *succ)
{
	*(uint16_t *)ctx |= succ->gpr_live;
}

/* Registers live at the end of block b of f; keep: what f must keep for
 * its callers beyond the ABI. */
static uint16_t live_out(struct code *c, const struct func *f, const struct block *b, uint16_t keep)
{
	uint16_t out = 0;
	unsigned ends = code_block_flow(c, f, b, or_regs, &out);
	if (ends & FLOW_RET)
		out |= AT_RET | keep;
	if (ends & FLOW_TAIL)
		out |= AT_RET | ARGS | keep; /* its callee returns to f's caller */
	if (ends & (FLOW_OUT | FLOW_OUT_AFTER_CALL | FLOW_UNSEEN))
		out = ALL;
	return out;
}

struct regs_run {
	uint16_t *keep; /* per function: what it must keep beyond the ABI */
	uint16_t **use, **def; /* per text, per instruction (described once) */
	bool again;     /* a keep grew: every function again */
	size_t fi;      /* the function visited */
};

static bool regs_visit(struct code *c, const struct func *f, struct block *bl, void *ctx)
{
	struct regs_run *r = ctx;
	struct text *t = &c->texts[bl->ts];
	uint16_t *use = r->use[bl->ts], *def = r->def[bl->ts];
	uint16_t live = live_out(c, f, bl, r->keep[r->fi]);
	t->r11_after[bl->first + bl->n - 1] = live & B(R11); /* (a jump's: at it) */
	for (uint32_t k = bl->first + bl->n; k-- > bl->first;) {
		const struct insn *in = &t->insns[k];
		if (in->kind == INSN_CALL || in->kind == INSN_CALL_IND) {
			t->r11_after[k] = live & B(R11);
			int32_t g = in->kind == INSN_CALL && !(t->mark[k] & MARK_EXT) ? local_callee(c, t, k) : -1;
			if (g >= 0) {
				/* all live through it, which must keep them */
				uint16_t need = live & SCRATCH;
				if (need & ~r->keep[g]) {
					r->keep[g] |= need;
					r->again = true;
				}
			} else
				live &= (uint16_t)~SCRATCH; /* clobbered by the ABI */
			live |= ARGS;
		}
		live = (uint16_t)((live & ~def[k]) | use[k]);
	}
	if (live & B(R11))
		bl->live_in |= LIVE_R11;
	if (!(live & ~bl->gpr_live))
		return false;
	bl->gpr_live |= live;
	return true;
}

void reg_liveness(struct code *c)
{
	struct regs_run r = {.keep = xcalloc(c->nfuncs + 1, sizeof(uint16_t)),
			     .use = xcalloc((size_t)c->ntexts + 1, sizeof(uint16_t *)),
			     .def = xcalloc((size_t)c->ntexts + 1, sizeof(uint16_t *))};
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		t->r11_after = xcalloc(t->ninsns + 1, sizeof(bool));
		r.use[ti] = xcalloc(t->ninsns + 1, sizeof(uint16_t));
		r.def[ti] = xcalloc(t->ninsns + 1, sizeof(uint16_t));
		for (uint32_t k = 0; k < t->ninsns; k++)
			if (t->fn[k] >= 0 && c->funcs[t->fn[k]].instrument)
				effect(c, t, k, &r.use[ti][k], &r.def[ti][k]);
	}
	r.again = true;
	while (r.again) {
		r.again = false;
		for (r.fi = 0; r.fi < c->nfuncs; r.fi++)
			if (c->funcs[r.fi].instrument)
				code_backward_fixpoint(c, &c->funcs[r.fi], regs_visit, &r);
	}
	for (int ti = 0; ti < c->ntexts; ti++)
		free(r.use[ti]), free(r.def[ti]);
	free(r.use), free(r.def), free(r.keep);
}
