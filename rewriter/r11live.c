/* SPDX-License-Identifier: MIT */
#include "r11live.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "external.h"
#include "reloc.h"
#include "util.h"

#define R11 (1ull << 11)

/* The function of this object a direct call or jump k goes to, or -1. */
static int32_t local_callee(const struct code *c, const struct text *t, uint32_t k)
{
	const struct insn *in = &t->insns[k];
	const struct rela *r = reloc_find(c->o, t->sec, in->off + in->rel_off);
	uint64_t off;
	if (!r)
		off = in->target;
	else if (r->sym < c->o->nsyms && ELF64_ST_TYPE(c->o->syms[r->sym].info) == STT_SECTION &&
		 (int)c->o->syms[r->sym].shndx == t->sec && r->addend >= -4)
		off = (uint64_t)(r->addend + 4);
	else if (r->sym < c->o->nsyms && c->o->syms[r->sym].shndx != SHN_UNDEF && c->func_of_sym)
		return c->func_of_sym[r->sym];
	else
		return -1;
	if (off >= c->o->secs[t->sec].size || t->at[off] == NO_INSN)
		return -1;
	return t->fn[t->at[off]];
}

/* What k does to %r11: *use, *def. */
static void r11_effect(const struct code *c, const struct text *t, uint32_t k, bool *use, bool *def)
{
	const struct insn *in = &t->insns[k];
	struct insn_detail d;
	if (!insn_describe(&c->dx, c->o->secs[t->sec].data + in->off, in->len, &d)) {
		*use = true, *def = false;
		return;
	}
	*use = (d.rd | d.addr) & R11;
	*def = (d.wr & R11) && !((d.merge | d.rd) & R11);
}

/* %r11 live at the end of block b of f, from its successors' live_in;
 * keep: f must keep %r11 for its callers. */
static bool live_out(struct code *c, const struct func *f, const struct block *b, bool keep)
{
	struct text *t = &c->texts[b->ts];
	uint32_t k = b->first + b->n - 1;
	const struct insn *last = &t->insns[k];
	bool out = false, falls = true;
	int tsec;
	uint64_t toff;
	switch (last->kind) {
	case INSN_RET:
		return keep;
	case INSN_TRAP:
		return false;
	case INSN_JMP_IND:
		if (t->mark[k] & MARK_TAIL)
			return keep || !(t->mark[k] & MARK_EXT);
		for (uint32_t i = f->first_block; i < f->first_block + f->nblocks; i++) {
			const struct block *x = &c->blocks[i];
			if (c->texts[x->ts].mark[x->first] & MARK_ADDR)
				out |= (x->live_in & LIVE_R11) != 0;
		}
		return out;
	case INSN_JMP:
		falls = false;
		/* fallthrough */
	case INSN_JCC: case INSN_LOOP:
		if (t->mark[k] & MARK_TAIL)
			out |= keep; /* its callee returns to f's caller */
		else if (code_branch_target(c, t, k, &tsec, &toff) && is_text(c, tsec)) {
			struct text *tt = &c->texts[text_index(c, tsec)];
			uint32_t ti = toff <= c->o->secs[tsec].size ? tt->at[toff] : NO_INSN;
			if (ti != NO_INSN && tt->fn[ti] >= 0 && c->funcs[tt->fn[ti]].instrument)
				out |= (c->blocks[tt->block[ti]].live_in & LIVE_R11) != 0;
			else
				out = true;
		} else
			out = true;
		break;
	default:
		break;
	}
	if (falls) {
		uint32_t nk = k + 1;
		if (nk < t->ninsns && t->fn[nk] == t->fn[k] && t->fn[nk] >= 0 &&
		    t->insns[nk].off == last->off + last->len)
			out |= (c->blocks[t->block[nk]].live_in & LIVE_R11) != 0;
		else
			out = true; /* falls out of the function: be safe */
	}
	return out;
}

void r11_liveness(struct code *c)
{
	bool *keep = xcalloc(c->nfuncs + 1, sizeof(*keep));
	for (int ti = 0; ti < c->ntexts; ti++)
		c->texts[ti].r11_after = xcalloc(c->texts[ti].ninsns + 1, sizeof(bool));
	/* a function of the object whose address is taken may be called by
	 * anything; only direct calls from its unit rely on it keeping %r11 */
	bool again = true;
	while (again) {
		again = false;
		for (size_t fi = 0; fi < c->nfuncs; fi++) {
			struct func *f = &c->funcs[fi];
			if (!f->instrument)
				continue;
			bool changed = true;
			while (changed) {
				changed = false;
				for (uint32_t b = f->first_block + f->nblocks; b-- > f->first_block;) {
					struct block *bl = &c->blocks[b];
					struct text *t = &c->texts[bl->ts];
					bool live = live_out(c, f, bl, keep[fi]);
					t->r11_after[bl->first + bl->n - 1] = live; /* (a jump's: at it) */
					for (uint32_t k = bl->first + bl->n; k-- > bl->first;) {
						const struct insn *in = &t->insns[k];
						if (in->kind == INSN_CALL || in->kind == INSN_CALL_IND) {
							t->r11_after[k] = live;
							int32_t g = in->kind == INSN_CALL && !(t->mark[k] & MARK_EXT)
									    ? local_callee(c, t, k) : -1;
							if (g >= 0) {
								/* lives through it, which must keep it */
								if (live && !keep[g]) {
									keep[g] = true;
									again = true;
								}
							} else
								live = false; /* clobbered by the ABI */
						}
						bool use, def;
						r11_effect(c, t, k, &use, &def);
						if (def)
							live = false;
						if (use)
							live = true;
					}
					if (live && !(bl->live_in & LIVE_R11)) {
						bl->live_in |= LIVE_R11;
						changed = true;
					}
				}
			}
		}
	}
	free(keep);
}
