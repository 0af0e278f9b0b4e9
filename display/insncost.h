/* SPDX-License-Identifier: MIT */
/*
 * A function's cycles, instruction by instruction: what annotate and the
 * line-level exports put on each source line.
 */
#ifndef PV_INSNCOST_H
#define PV_INSNCOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reader.h"

struct x86_decoder; /* decode.h */

/* One instruction of a function's blocks and the cycles that fall on it,
 * in the profile's unit (1/p->units of a cycle, views.h), exact.  A block's fixed cycles (executions x cost) are spread over its
 * instructions, what its mispredictions cost (--branch-sim) goes to its
 * conditional jump, and its loads' waits for memory (--cache-sim) are
 * spread over its instructions that access memory (the profile keeps them
 * per block), or go to its first instruction if it has none.  Each part
 * is spread so that its instructions' shares add up to the block's. */
struct insn_cost {
	uint32_t block;                 /* index in the object's map */
	uint32_t offset;                /* original offset in its section */
	const struct pi_map_line *line; /* its source line, or NULL */
	uint64_t executions;            /* its block's */
	uint64_t fixed, mispredicted, waited;
	uint64_t mispredicts;           /* a conditional jump's: how many */
	bool jcc;                       /* a conditional jump */
	bool first;                     /* its block's first instruction */
};

/* Calls fn(ctx, c) for each instruction of function g's blocks, in order,
 * decoded with dx. */
void pv_insn_costs(const struct profile *p, const struct x86_decoder *dx, uint32_t g,
		   void (*fn)(void *ctx, const struct insn_cost *c), void *ctx);

/* "???": the file of code without line information, as valgrind names it. */
extern const char pv_unknown_file[];

/* Where function g starts: its file and line, or pv_unknown_file and 0. */
const char *pv_entry_line(const struct profile *p, uint32_t g, uint32_t *line);

/* A function's self cycles on its source lines (in the profile's unit). */
struct pv_line_cost {
	const char *file;
	uint32_t line;
	uint64_t cycles;
	/* with pv_lines.inlines: the innermost inlined call the code is in
	 * (NULL: the function's own), a line's cycles apart for each */
	const struct pi_map_inline *inl;
};
struct pv_lines {
	const struct prof_obj *o; /* (while they are collected) */
	struct pv_line_cost *v;
	size_t n, cap;
	bool oom;                 /* (a line was lost for want of memory) */
	bool inlines;             /* set by the caller: keep inl */
};

/* Append (file, line, cycles) to ls.  0, or -1 out of memory. */
int pv_lines_push(struct pv_lines *ls, const char *file, uint32_t line, uint64_t cycles);

/* Function g's self cycles on its lines, sorted by (file, line), adding up
 * to self: its instructions' cycles (pv_insn_costs), what self holds
 * beyond its blocks -- calls' and returns' bubbles, external code, page
 * faults -- on its first line, or, where its blocks come to more than its
 * self (a function a tail call reached, whose time is its caller's), its
 * lines scaled down to self.  ls is reused (free ls->v when done).  The
 * code is decoded with dx.  0, or -1 out of memory. */
int pv_function_lines(const struct profile *p, const struct x86_decoder *dx, uint32_t g, uint64_t self,
		      struct pv_lines *ls);

/* A call function g made to external code: its return address, calls. */
struct pv_call {
	uint64_t ra, calls;
};

/* The lines of function g where its time outside its own code is spent:
 * the call sites of its calls to external code (ext[next], or, when ext
 * is NULL, those the calling-context trees hold) and its system call
 * instructions (decoded with dx), each weighted by how many times it ran
 * (w->v[].cycles).  w is reused.  0, or -1 out of memory. */
int pv_outside_lines(const struct profile *p, const struct x86_decoder *dx, uint32_t g, const struct pv_call *ext,
		     size_t next, struct pv_lines *w);

/* Every function's calls to external code as the calling-context trees
 * hold them (what pv_outside_lines finds with ext NULL, in the same
 * order), found in one walk of the trees: function g's are
 * v[first[g]] up to v[first[g + 1]]. */
struct pv_ext_calls {
	struct pv_call *v;
	uint32_t *first; /* [p->nfuncs + 1] */
};
/* 0, or -1 out of memory. */
int pv_ext_calls_build(const struct profile *p, struct pv_ext_calls *ec);
void pv_ext_calls_free(struct pv_ext_calls *ec);

/* pv_function_lines, but os cycles of self, its time outside its own code
 * (external code and system calls), spread over the lines outside says
 * (pv_outside_lines, by their weights) instead of the first line; on the
 * first line where outside has none. */
int pv_function_lines_os(const struct profile *p, const struct x86_decoder *dx, uint32_t g, uint64_t self,
			 uint64_t os, const struct pv_lines *outside, struct pv_lines *ls);

#endif
