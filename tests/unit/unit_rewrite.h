/* SPDX-License-Identifier: MIT */
/*
 * A rewriter unit test's whole rewrite of one source: made into an
 * object (unit_obj.h), analysed and rewritten as profinst would, each
 * step counted in the test's TAP report (tap.h, whose state is each
 * program's own: hence inline here).
 */
#ifndef PI_UNIT_REWRITE_H
#define PI_UNIT_REWRITE_H

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

#endif
