/* SPDX-License-Identifier: MIT */
/*
 * A rewriter unit test's whole rewrite of one source: made into an
 * object (unit_obj.h), analysed and rewritten as profinst would, each
 * step counted in the test's TAP report (tap.h, whose state is each
 * program's own: hence inline here).
 */
#ifndef PI_UNIT_REWRITE_H
#define PI_UNIT_REWRITE_H

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"
#include "cfg.h"
#include "instrument.h"
#include "tap.h"
#include "unit_obj.h"

/* src rewritten with opts, a case that fails if any step does; then
 * check(c, map) on the result.  Frees it all. */
static inline void unit_rewrite(const char *src, const struct rewrite_opts *opts,
				void (*check)(const struct code *c, const struct addrmap *map))
{
	struct object o;
	struct code c;
	tap_case("%s: assembled, read, analysed and rewritten", src);
	if (unit_object(src, &o)) {
		tap_fail("cannot make the object");
		obj_free(&o);
		return;
	}
	if (code_analyse(&c, &o, opts)) {
		tap_fail("the analysis failed");
	} else {
		struct addrmap map;
		if (code_rewrite(&c, &map))
			tap_fail("%s: the rewrite failed", src);
		else
			check(&c, &map);
		addrmap_free(&map);
	}
	code_free(&c);
	obj_free(&o);
}

/* Whether sym is a function of the source (not NAME.pi_inner, which the
 * rewrite adds) whose name ends with n numbers, NAME_A_B...: then they
 * are in want[0..n). */
static inline bool unit_func_numbers(const struct object *o, const struct symbol *sym, int *want, int n)
{
	if (ELF64_ST_TYPE(sym->info) != STT_FUNC || !sym->shndx || sym->shndx >= o->nsecs || strchr(sym->name, '.'))
		return false;
	const char *p = sym->name + strlen(sym->name);
	for (int i = n; i-- > 0;) {
		while (p > sym->name && p[-1] != '_')
			p--;
		if (p == sym->name || !*p)
			return false;
		want[i] = atoi(p);
		p--;
	}
	return true;
}

/* The main of a test that rewrites the one source its command line names
 * under --counts (the instructions model) and checks the result. */
static inline int unit_counting_main(int argc, char **argv, const char *name,
				     void (*check)(const struct code *c, const struct addrmap *map))
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.s\n", name);
		return 2;
	}
	struct rewrite_opts ro = {.model = model_find("instructions"), .counting = true};
	unit_rewrite(argv[1], &ro, check);
	return tap_done();
}

#endif
