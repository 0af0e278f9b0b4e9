/* SPDX-License-Identifier: MIT */
/*
 * The current node kept in a register across blocks under --counts
 * (rewriter/layout.c: keeps_cur, settle_cur), through a whole rewrite of
 * unit/layout/curreg.s: the loads of the node from the thread's word
 * (mov %fs:cur,%R, read back by their TPOFF32 relocations) in each
 * function's new code past its call must number what the function's
 * name ends with:
 * a loop's head and an if-else's join take the node from the register
 * every way in leaves it in, and a join one of whose ways in wrote that
 * register loads it; and where most ways in leave it there and the others
 * can load it as they leave, those do, and the loop loads it nowhere; a
 * switch's cases take it from the jump through the table, but not a block
 * whose address code takes.  A load too many is a register not followed; a load
 * too few, a register taken where a way in left something else.
 * A function named entry_... counts its loads from its start past its
 * entry stub (MAP_INNER) instead: its code takes the node from the
 * register every way in leaves it in (layout.c, entry_reg), %r11 or
 * another scratch register, where one is free.
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

/* Loads of the current node in [lo, hi) of text section s:
 * mov %fs:cur,%R is 64 REX 8b modrm 25 disp32, the disp32 relocated. */
static int node_loads(const struct code *c, const struct section *s, uint64_t lo, uint64_t hi)
{
	const struct object *o = c->o;
	if (!s->rela)
		return 0;
	const struct section *rs = &o->secs[s->rela];
	int n = 0;
	for (size_t i = 0; i < rs->nrelas; i++) {
		const struct rela *r = &rs->relas[i];
		if (r->type != R_X86_64_TPOFF32 || r->addend != STUB_TLS_CUR || r->off < lo + 5 || r->off >= hi)
			continue;
		const uint8_t *p = s->data + r->off - 5;
		if (p[0] == 0x64 && (p[1] & 0xf0) == 0x40 && p[2] == 0x8b && p[4] == 0x25)
			n++;
	}
	return n;
}

/* The text and instruction of the first call in the function named
 * name (of the original code), or -1. */
static int first_call(const struct code *c, const char *name, uint32_t *k)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		if (strcmp(c->funcs[fi].name, name))
			continue;
		for (int ti = 0; ti < c->ntexts; ti++) {
			const struct text *t = &c->texts[ti];
			for (*k = 0; *k + 1 < t->ninsns; (*k)++)
				if (t->fn[*k] == (int)fi && t->insns[*k].kind == INSN_CALL)
					return ti;
		}
	}
	return -1;
}

static void check(const struct code *c, const struct addrmap *m)
{
	const struct object *o = c->o;
	int funcs = 0;
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct symbol *sym = &o->syms[i];
		int want;
		if (!unit_func_numbers(o, sym, &want, 1))
			continue;
		funcs++;
		if (!strncmp(sym->name, "entry_", 6)) {
			tap_case("%s: %d loads of the current node past its entry stub", sym->name, want);
			uint64_t lo = UINT64_MAX;
			for (size_t fi = 0; fi < c->nfuncs; fi++)
				if (!strcmp(c->funcs[fi].name, sym->name) && c->funcs[fi].npieces)
					lo = addrmap_lookup(m, c->funcs[fi].pieces[0].ts, c->funcs[fi].pieces[0].start,
							    MAP_INNER);
			if (lo == UINT64_MAX) {
				FAIL("%s: not found", sym->name);
				continue;
			}
			int got = node_loads(c, &o->secs[sym->shndx], lo, sym->value + sym->size);
			if (got != want)
				FAIL("%s: %d loads of the current node past its entry stub, want %d", sym->name, got,
				     want);
			continue;
		}
		tap_case("%s: %d loads of the current node after its call", sym->name, want);
		uint32_t k;
		int ti = first_call(c, sym->name, &k);
		if (ti < 0) {
			FAIL("%s: no call found", sym->name);
			continue;
		}
		/* from the code of the instruction after the call: the blocks'
		 * (what the code after the call does is the call's) */
		uint64_t lo = m->texts[ti].pre[k + 1], hi = sym->value + sym->size;
		int got = node_loads(c, &o->secs[sym->shndx], lo, hi);
		if (got != want)
			FAIL("%s: %d loads of the current node after its call, want %d", sym->name, got, want);
		if (strncmp(sym->name, "fixed_", 6))
			continue;
		/* the loop: from its head, the target of the jump back, to that jump */
		const struct text *t = &c->texts[ti];
		uint32_t back = k + 1;
		while (back < t->ninsns && t->fn[back] == t->fn[k] &&
		       !(t->insns[back].kind == INSN_JMP && t->insns[back].target < t->insns[back].off))
			back++;
		tap_case("%s: no load of the current node inside its loop", sym->name);
		if (back >= t->ninsns || t->fn[back] != t->fn[k]) {
			FAIL("%s: no jump back found", sym->name);
			continue;
		}
		uint32_t head = back;
		while (head > k && t->insns[head].off != t->insns[back].target)
			head--;
		got = node_loads(c, &o->secs[sym->shndx], m->texts[ti].pre[head], m->texts[ti].pos[back]);
		if (got)
			FAIL("%s: %d loads of the current node inside its loop", sym->name, got);
	}
	tap_case("nine functions read back");
	if (funcs != 9)
		FAIL("%d functions found", funcs);
}

int main(int argc, char **argv)
{
	return unit_counting_main(argc, argv, "test_curreg", check);
}
