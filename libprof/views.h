/* SPDX-License-Identifier: MIT */
/*
 * Views derived from a profile's calling-context trees: per-function
 * accumulators and caller records, summed over threads.
 */
#ifndef PI_VIEWS_H
#define PI_VIEWS_H

#include "reader.h"

/*
 * One arithmetic for every view.  Every time figure is an exact integer in
 * the profile's unit (1/p->units of a cycle), derived from the nodes' self
 * times only:
 *   - a node's self+descendants is its subtree's self (prof_subtree);
 *   - a function's, the sum of its nodes' subtrees (its nodes never nest:
 *     a recursive call joins the ancestor already running the function);
 *   - the total, a thread's total and the root's self+descendants, the sum
 *     of the nodes' self.
 * So a total always equals the sum of its rows' self, a caller's arcs add
 * up to its self+descendants minus its self (mutual recursion included),
 * and nothing exceeds the total.  Views round once, when they print
 * (prof_cycles, or prof_round where whole-cycle figures must add up).
 */

/* An arc of the call graph, seen from one end.  For the caller's arcs,
 * `other` is the callee; for the callee's, the caller (UINT32_MAX: the
 * thread's root, or outside the function a table is rooted at).  self and
 * incl are the callee's time on those calls (its nodes under the caller's
 * nodes).  A recursive call (to a function already running) carries its
 * calls (rec_calls of them) but no time: its time is inside the activation
 * it recursed into, which keeps gprof's invariants (callers' calls, self
 * and incl add up to the function's; callees' incl add up to its incl
 * minus its self). */
struct arc {
	uint32_t other;
	uint64_t calls;
	uint64_t rec_calls; /* of calls: recursive */
	uint64_t self;
	uint64_t incl;
};

struct func_view {
	uint32_t g;          /* global function index */
	uint64_t calls;
	uint64_t rec_calls;
	/* in 1/units of a cycle (func_table.units) */
	uint64_t self, incl, min_self, max_self;
	uint64_t os;           /* of self: external code and system calls */
	uint64_t os_left;      /* measured there, not charged (waits) */
	uint64_t faults;       /* page faults taken, charged in self */
	uint64_t block_cycles; /* sum of its blocks' prof_block_cycles */
	uint64_t block_execs;
	/* under the simulations (0 without): its blocks' mispredicted jumps,
	 * what they cost, and what its loads waited for memory; all in self */
	uint64_t mispredicts, mispredict_cycles, mem_wait_cycles;
	struct arc *callers;
	uint32_t ncallers, callercap;
	struct arc *callees;
	uint32_t ncallees, calleecap;
};

struct func_table {
	struct func_view *f; /* indexed by global function */
	uint32_t n;
	uint32_t units;      /* figures are in 1/units of a cycle (p->units) */
	uint32_t root;       /* built under this function only, or UINT32_MAX */
	uint64_t total_self; /* sum of self over all functions: the 100% */
	uint64_t total_os, total_os_left;
	uint64_t total_faults; /* page faults, the roots' included */
	uint64_t *thread_self; /* per thread (p->threads order): its nodes' self */
	uint32_t nthreads;
};

int func_table_build(struct func_table *t, const struct profile *p);
/* The same, of the time under function root only (its nodes' subtrees):
 * every figure, the total included, is a part of root's self+descendants
 * (the block counts excepted: they are the whole run's). */
int func_table_build_under(struct func_table *t, const struct profile *p, uint32_t root);
void func_table_free(struct func_table *t);

/* cum[n] = the self of node n's subtree, for each node of th (cum[0]: the
 * thread's total, its nodes' self). */
void prof_subtree(const struct prof_thread *th, uint64_t *cum);

/* A figure of object o's map (block costs, mispredictions' and memory
 * waits' cycles: 1/o->map->units of a cycle) in the profile's unit. */
uint64_t prof_map_units(const struct profile *p, const struct prof_obj *o, uint64_t x);
/* Block b of o: its executions times its fixed cost, in the profile's unit. */
uint64_t prof_block_cycles(const struct profile *p, const struct prof_obj *o, uint32_t b);

/* A walk over one function's basic blocks, in the map's order:
 *
 *	struct prof_blocks w;
 *	for (prof_blocks_init(&w, p, g); prof_blocks_next(&w);)
 *		... w.bl, w.count, w.cycles ...
 *
 * Each step fills in the block at hand and its figures, in the profile's
 * unit, so that every view shows the same numbers for a block. */
struct prof_blocks {
	const struct prof_obj *o;       /* the function's object */
	const struct pi_map_func *f;    /* the function in its map */
	/* the block at hand */
	uint32_t b;                     /* its index in o->blocks */
	const struct pi_map_block *bl;
	uint64_t count;                 /* executions */
	uint64_t cycles;                /* fixed cost (prof_block_cycles) */
	uint64_t mispredicts;           /* of its jump (--branch-sim; else 0) */
	uint64_t mispredict_cycles;     /* what they cost */
	uint64_t mem_wait_cycles;       /* its loads' waits for memory (--cache-sim) */
	/* the walk's own */
	const struct profile *p;
	uint32_t next;
};
/* A walk over global function g's blocks, before the first. */
void prof_blocks_init(struct prof_blocks *w, const struct profile *p, uint32_t g);
/* Steps to the next block: false after the last. */
bool prof_blocks_next(struct prof_blocks *w);

/* A figure in the profile's unit as whole cycles, rounded to nearest
 * (halves up): the one rounding a view makes. */
static inline uint64_t prof_cycles(uint32_t units, uint64_t u)
{
	return units > 1 ? (u + units / 2) / units : u;
}

/* Whole cycles that add up: figures given in turn are rounded as their
 * running sum is, so that the whole cycles handed out always add up to the
 * rounded sum of the figures (each off by less than one from its own
 * rounding).  For formats that hold whole numbers only (exports). */
struct prof_round {
	uint32_t units;
	uint64_t sum, given;
};
static inline void prof_round_init(struct prof_round *r, uint32_t units)
{
	r->units = units;
	r->sum = r->given = 0;
}
static inline uint64_t prof_round(struct prof_round *r, uint64_t u)
{
	r->sum += u;
	uint64_t upto = prof_cycles(r->units, r->sum), d = upto - r->given;
	r->given = upto;
	return d;
}

/* Cycles of the call graph (gprof): functions calling each other
 * recursively, shown as a whole.  Computed exactly from the calling-context
 * trees: the cycle's self+descendants time is that of its entry nodes'
 * subtrees (nodes of a member whose parent is not a member), which never
 * nest. */
struct cycle {
	uint32_t *members;
	uint32_t nmembers;
	uint64_t calls;       /* from outside */
	uint64_t internal;    /* calls between members */
	uint64_t self, incl;
	struct arc *parents;  /* callers outside the cycle: time of its entries */
	uint32_t nparents, parentcap;
	struct arc *children; /* callees outside the cycle */
	uint32_t nchildren, childcap;
};

struct cycle_table {
	uint32_t *cycle_of;   /* per global function: 0, or 1 + cycle index */
	struct cycle *c;
	uint32_t n;
};

int cycles_build(struct cycle_table *ct, const struct profile *p, const struct func_table *t);
void cycles_free(struct cycle_table *ct);

#endif
