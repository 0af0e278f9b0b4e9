/* SPDX-License-Identifier: MIT */
/*
 * Views derived from a profile's calling-context trees: per-function
 * accumulators and caller records (seed 003), summed over threads.
 */
#ifndef PI_VIEWS_H
#define PI_VIEWS_H

#include "reader.h"

/* An arc of the call graph, seen from one end.  For the caller's arcs,
 * `other` is the callee; for the callee's, the caller (UINT32_MAX: the
 * thread's root).  self and incl are the callee's time on those calls.
 * A recursive call (to a function already running) carries its calls but
 * no time: its time is inside the activation it recursed into, which keeps
 * gprof's invariants (callers' calls, self and incl add up to the
 * function's; callees' incl add up to its incl minus its self). */
struct arc {
	uint32_t other;
	uint64_t calls;
	uint64_t self;
	uint64_t incl;
	uint64_t rec_incl; /* the recursive calls' own self+descendants time */
};
#define caller_rec arc

struct func_view {
	uint32_t g;          /* global function index */
	uint64_t calls;
	uint64_t rec_calls;
	uint64_t self, incl, min_self, max_self;
	uint64_t os;           /* of self: external code and system calls */
	uint64_t os_left;      /* measured there, not charged (waits) */
	uint64_t faults;       /* page faults taken, charged in self */
	uint64_t block_cycles; /* sum over its blocks of count x cost */
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
	uint64_t total_self; /* sum of self over all functions */
	uint64_t total_os, total_os_left;
	uint64_t total_faults; /* page faults, the roots' included */
};

int func_table_build(struct func_table *t, const struct profile *p);
void func_table_free(struct func_table *t);

/* Cycles of the call graph (gprof): functions calling each other
 * recursively, shown as a whole.  Computed exactly from the calling-context
 * trees: the cycle's self+descendants time is that of its entry nodes
 * (nodes of a member whose parent is not a member), which never nest. */
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
