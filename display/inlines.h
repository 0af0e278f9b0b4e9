/* SPDX-License-Identifier: MIT */
/*
 * Inline frames: code the compiler inlined into a function, as the map's
 * inline tables (DWARF's DW_TAG_inlined_subroutine) say, for annotate,
 * detail and the pprof export.
 */
#ifndef PV_INLINES_H
#define PV_INLINES_H

#include <stddef.h>
#include <stdint.h>

#include "reader.h"

struct x86_decoder; /* decode.h */

/* f's name as views show it (demangled).  It lives as long as the
 * profile (kept in o->inline_shown). */
const char *pv_inline_name(const struct prof_obj *o, const struct pi_map_inline *f);

/* "mix (t.c:14) in step (t.c:21)": f and the inlined calls it is in,
 * innermost first, each with its call's file (base name) and line. */
const char *pv_inline_chain(const struct prof_obj *o, const struct pi_map_inline *f, char *buf, size_t n);

/* The cycles of function g's code in one inlined call (with the calls
 * inlined into it), in the profile's unit, and the most times one of its
 * instructions ran.  Calls of one function at one place (in one caller)
 * that the compiler copied are one. */
struct pv_inline_cost {
	const struct pi_map_inline *f;
	uint64_t cycles, runs;
};
struct pv_inlines {
	const struct prof_obj *o;
	struct pv_inline_cost *v; /* by cycles, most first */
	size_t n, cap;
	int oom;
};

/* Function g's inlined calls, its code decoded with dx.  0, or -1 out of
 * memory; free is->v. */
int pv_inline_costs(const struct profile *p, const struct x86_decoder *dx, uint32_t g, struct pv_inlines *is);

#endif
