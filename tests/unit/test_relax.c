/* SPDX-License-Identifier: MIT */
/*
 * Branch relaxation (rewriter/layout.c), through a whole rewrite of
 * unit/layout/relax.s: every direct branch of the new code is read back
 * (by its opcode: jmp and jcc rel8 or rel32, a loop short or as `loop +2;
 * jmp +5; jmp rel32`) and must land where the layout put its target (past
 * the entry stub, for a branch of its own function), and be as short as
 * its function's name says: short_* keep every branch rel8, grows' first
 * jcc is pushed out of rel8 by the stubs and grows while its last stays
 * short, loop_far's loop is out of reach.  One case per function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "addrmap.h"
#include "instrument.h"
#include "tap.h"
#include "unit_rewrite.h"

#define FAIL(...) tap_fail(__VA_ARGS__)

static int32_t rd32s(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The branch at p (n bytes to the section's end), at new offset at: its
 * target, and whether it is the long form; false if it is no branch. */
static bool read_branch(const uint8_t *p, uint64_t n, uint64_t at, uint64_t *target, bool *wide)
{
	size_t i = 0;
	if (n > 1 && p[0] == 0x67)
		i = 1; /* a loop's address size */
	if (n >= i + 9 && p[i] >= 0xe0 && p[i] <= 0xe3 && p[i + 1] == 0x02 && p[i + 2] == 0xeb &&
	    p[i + 3] == 0x05 && p[i + 4] == 0xe9) {
		*wide = true;
		*target = at + i + 9 + (uint64_t)(int64_t)rd32s(p + i + 5);
		return true;
	}
	if (n >= i + 2 && ((p[i] >= 0xe0 && p[i] <= 0xe3) || p[i] == 0xeb || (p[i] & 0xf0) == 0x70)) {
		*wide = false;
		*target = at + i + 2 + (uint64_t)(int64_t)(int8_t)p[i + 1];
		return true;
	}
	if (n >= 5 && p[0] == 0xe9) {
		*wide = true;
		*target = at + 5 + (uint64_t)(int64_t)rd32s(p + 1);
		return true;
	}
	if (n >= 6 && p[0] == 0x0f && (p[1] & 0xf0) == 0x80) {
		*wide = true;
		*target = at + 6 + (uint64_t)(int64_t)rd32s(p + 2);
		return true;
	}
	return false;
}

static void check(const struct code *c, const struct addrmap *m)
{
	size_t seen = 0;
	for (int ti = 0; ti < c->ntexts; ti++) {
		const struct text *t = &c->texts[ti];
		const struct section *s = &c->o->secs[t->sec];
		/* per function, its branches in order: the first and the last */
		for (size_t fi = 0; fi < c->nfuncs; fi++) {
			const struct func *f = &c->funcs[fi];
			tap_case("%s: its branches land on their targets, in the forms wanted", f->name);
			int nb = 0;
			bool first_wide = false, last_wide = false;
			for (uint32_t k = 0; k < t->ninsns; k++) {
				const struct insn *in = &t->insns[k];
				if (t->fn[k] != (int)fi ||
				    (in->kind != INSN_JMP && in->kind != INSN_JCC && in->kind != INSN_LOOP))
					continue;
				uint64_t at = m->texts[ti].pos[k], target;
				bool wide;
				if (at >= s->size || !read_branch(s->data + at, s->size - at, at, &target, &wide)) {
					FAIL("%s+%#llx: no branch at %#llx of the new code", f->name,
					     (unsigned long long)in->off, (unsigned long long)at);
					continue;
				}
				uint64_t want = addrmap_lookup(m, ti, in->target, MAP_BRANCH);
				if (target != want)
					FAIL("%s+%#llx: the branch lands at %#llx, its target is at %#llx", f->name,
					     (unsigned long long)in->off, (unsigned long long)target,
					     (unsigned long long)want);
				if (!strncmp(f->name, "short_", 6) && wide)
					FAIL("%s+%#llx: widened, its target %lld bytes away", f->name,
					     (unsigned long long)in->off, (long long)(want - at));
				if (!nb++)
					first_wide = wide;
				last_wide = wide;
				seen++;
			}
			if (!strcmp(f->name, "grows") && (!first_wide || last_wide))
				FAIL("grows: its first jcc %s, its last %s (want rel32, rel8)",
				     first_wide ? "rel32" : "rel8", last_wide ? "rel32" : "rel8");
			if (!strcmp(f->name, "loop_far") && !last_wide)
				FAIL("loop_far: its loop out of reach still short");
		}
	}
	tap_case("at least 20 branches read back");
	if (seen < 20)
		FAIL("only %zu branches found", seen);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_relax FILE.s\n");
		return 2;
	}
	struct rewrite_opts ro = {.model = model_find("instructions")};
	unit_rewrite(argv[1], &ro, check);
	return tap_done();
}
