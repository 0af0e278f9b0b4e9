/* SPDX-License-Identifier: MIT */
/*
 * --counts: blocks whose count is another block's (block.same), which
 * need no counter of their own (derive.c says when).
 */
#ifndef PI_DERIVE_H
#define PI_DERIVE_H

#include "cfg.h"

/* Set block.same for every block of c's instrumented functions whose
 * count another block's gives: that block's index + 1, itself one with a
 * count of its own (or the entry's, PI_FUNC_ENTRY_CALLS); 0 for the
 * others.  And block.plus, block.minus for an arm of a two-way branch
 * whose count is its branch's block's less the other arm's: those
 * blocks' indices + 1, each with a count of its own or, the first, its
 * block.same's (which has); and for which no block.same is the arm.
 * And block.sum for a block whose count is the sum of its predecessors',
 * each of which goes only to it and has a count of its own: where
 * code.sums lists them (+ 1).  No block whose count another's gives is
 * one of those others but as said.
 * After the blocks and their ways in (code_count_preds). */
void code_derive_counts(struct code *c);

/* Whether block b's count is other blocks' (no counter of its own) */
static inline bool block_derived(const struct block *b)
{
	return b->same || b->minus || b->sum;
}

#endif
