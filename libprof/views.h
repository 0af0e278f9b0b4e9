/* SPDX-License-Identifier: MIT */
/*
 * Views derived from a profile's calling-context trees: per-function
 * accumulators and caller records (seed 003), summed over threads.
 */
#ifndef PI_VIEWS_H
#define PI_VIEWS_H

#include "reader.h"

struct caller_rec {
	uint32_t caller; /* global function, or UINT32_MAX for the thread root */
	uint64_t calls;
	uint64_t incl;   /* the callee's self+descendants time on calls from it */
};

struct func_view {
	uint32_t g;          /* global function index */
	uint64_t calls;
	uint64_t rec_calls;
	uint64_t self, incl, min_self, max_self;
	uint64_t block_cycles; /* sum over its blocks of count x cost */
	uint64_t block_execs;
	struct caller_rec *callers;
	uint32_t ncallers, callercap;
};

struct func_table {
	struct func_view *f; /* indexed by global function */
	uint32_t n;
	uint64_t total_self; /* sum of self over all functions */
};

int func_table_build(struct func_table *t, const struct profile *p);
void func_table_free(struct func_table *t);

#endif
