/* SPDX-License-Identifier: MIT */
/*
 * Frames' nodes under --counts (rewriter/layout.c), through a whole
 * rewrite of unit/layout/frames.s: in each function's new code, the
 * stores of its own frame's word by its entry stub (cmp len(%rip), a
 * relocation against __profinst_frames) and the stores of callees' words
 * by its sites (add delta(%rip),%r followed by mov %r11,(%r) or pop
 * (%r11)) must number what its name ends with, NAME_ENTRY_SITES.  A
 * store too many is a word no code reads; one too few, a word the code
 * after a call would read unset.
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
 * *sites the sites' */
static void stores(const struct code *c, const struct section *s, uint64_t lo, uint64_t hi, int *entry,
		   int *sites)
{
	const struct object *o = c->o;
	*entry = *sites = 0;
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
		if (mov || pop)
			(*sites)++;
	}
}

static void check(const struct code *c, const struct addrmap *m)
{
	(void)m;
	const struct object *o = c->o;
	int funcs = 0;
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct symbol *sym = &o->syms[i];
		if (ELF64_ST_TYPE(sym->info) != STT_FUNC || !sym->shndx || sym->shndx >= o->nsecs ||
		    strchr(sym->name, '.'))
			continue; /* (NAME.pi_inner: inside NAME) */
		const char *us = strrchr(sym->name, '_');
		if (!us || us == sym->name)
			continue;
		const char *us2 = us - 1;
		while (us2 > sym->name && *us2 != '_')
			us2--;
		int want_entry = atoi(us2 + 1), want_sites = atoi(us + 1);
		tap_case("%s: %d words stored by its entry stub, %d by its sites", sym->name, want_entry, want_sites);
		funcs++;
		int entry, sites;
		stores(c, &o->secs[sym->shndx], sym->value, sym->value + sym->size, &entry, &sites);
		if (entry != want_entry || sites != want_sites)
			FAIL("%s: %d by its entry stub, %d by its sites", sym->name, entry, sites);
	}
	tap_case("three functions read back");
	if (funcs != 3)
		FAIL("%d functions found", funcs);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_frames FILE.s\n");
		return 2;
	}
	struct rewrite_opts ro = {.model = model_find("instructions"), .counting = true};
	unit_rewrite(argv[1], &ro, check);
	return tap_done();
}
