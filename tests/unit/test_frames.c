/* SPDX-License-Identifier: MIT */
/*
 * Frames' nodes under --counts (rewriter/layout.c), through a whole
 * rewrite of unit/layout/frames.s: in each function's new code, the
 * stores of its own frame's word by its entry stub (cmp len(%rip), a
 * relocation against __profinst_frames), by its start for a call that
 * went past the stub (add delta(%rip),%r then mov %r11,(%r) or pop
 * (%r11), between the two entries) and by its sites for their callees
 * (the same, elsewhere) must number what its name ends with,
 * NAME_STUB_START_SITES.  A store too many is a word no code reads; one
 * too few, a word the code after a call would read unset.  None of these
 * functions lacks a scratch register where it stores a word (a tail jump
 * through a pointer takes %rax, which held its target), so none stores
 * one by a push and a pop of %r11 (the word's address in %r11).
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "addrmap.h"
#include "instrument.h"
#include "stub_abi.h"
#include "tap.h"
#include "unit_rewrite.h"

#define FAIL(...) tap_fail(__VA_ARGS__)

/* The stores in [lo, hi) of text section s: *entry the entry stubs',
 * *start those in [start, body), *sites the others */
static void stores(const struct code *c, const struct section *s, uint64_t lo, uint64_t hi, uint64_t start,
		   uint64_t body, int *entry, int *at_start, int *sites, int *pops)
{
	const struct object *o = c->o;
	*entry = *at_start = *sites = *pops = 0;
	if (!s->rela)
		return;
	const struct section *rs = &o->secs[s->rela];
	for (size_t i = 0; i < rs->nrelas; i++) {
		const struct rela *r = &rs->relas[i];
		if (r->type != R_X86_64_PC32 || (int)r->sym != c->sym_frames || r->off < lo || r->off >= hi)
			continue;
		if (r->addend == STUB_FRAMES_LEN - 4) {
			(*entry)++;
			continue;
		}
		if (r->addend != STUB_FRAMES_DELTA - 4 || r->off + 7 > s->size)
			continue;
		const uint8_t *p = s->data + r->off + 4; /* the instruction after the add */
		bool mov = (p[0] & 0xf0) == 0x40 && p[1] == 0x89 && (p[2] >> 6) == 0;
		bool pop = p[0] == 0x41 && p[1] == 0x8f && p[2] == 0x03;
		if ((mov || pop) && r->off >= start && r->off < body)
			(*at_start)++;
		else if (mov || pop)
			(*sites)++;
		if (pop)
			(*pops)++;
	}
}

/* The new offsets of function name's entry past its stub (MAP_INNER)
 * and of its first instruction (a call through a pointer goes in at
 * MAP_BRANCH, before or after the store at MAP_INNER: layout.c's
 * entry_reg); false if not found */
static bool entries(const struct code *c, const struct addrmap *m, const char *name, uint64_t *inner,
		    uint64_t *body)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		const struct func *f = &c->funcs[fi];
		if (strcmp(f->name, name) || !f->npieces)
			continue;
		const struct text *t = &c->texts[f->pieces[0].ts];
		uint32_t k = t->at[f->pieces[0].start];
		*inner = addrmap_lookup(m, f->pieces[0].ts, f->pieces[0].start, MAP_INNER);
		if (k == NO_INSN)
			return false;
		*body = m->texts[f->pieces[0].ts].pos[k];
		return true;
	}
	return false;
}

static void check(const struct code *c, const struct addrmap *m)
{
	const struct object *o = c->o;
	int funcs = 0;
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct symbol *sym = &o->syms[i];
		int want[3];
		if (!unit_func_numbers(o, sym, want, 3))
			continue;
		tap_case("%s: %d words stored by its entry stub, %d at its start, %d by its sites", sym->name, want[0],
			 want[1], want[2]);
		funcs++;
		uint64_t inner, body;
		if (!entries(c, m, sym->name, &inner, &body)) {
			FAIL("%s: not found", sym->name);
			continue;
		}
		int got[3], pops;
		stores(c, &o->secs[sym->shndx], sym->value, sym->value + sym->size, inner, body, &got[0], &got[1],
		       &got[2], &pops);
		if (memcmp(got, want, sizeof(got)))
			FAIL("%s: %d by its entry stub, %d at its start, %d by its sites", sym->name, got[0], got[1],
			     got[2]);
		if (pops)
			FAIL("%s: %d of them by a push and a pop of %%r11, where a register is free", sym->name, pops);
	}
	tap_case("five functions read back");
	if (funcs != 5)
		FAIL("%d functions found", funcs);
}

int main(int argc, char **argv)
{
	return unit_counting_main(argc, argv, "test_frames", check);
}
