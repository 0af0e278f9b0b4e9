/* SPDX-License-Identifier: MIT */
/*
 * Small loops: the blocks whose dependency chains bind from one run to the
 * next.  A block of a loop of a few blocks runs again within a few dozen
 * instructions, so a chain it carries (a pointer followed, a sum kept)
 * holds the loop up as it holds up the block repeated alone; a block
 * anywhere else runs between unrelated work, which the core overlaps with
 * its chains.  The timing model costs the first kind as repeated, the
 * second in flow (model.h); a loop of several blocks as one body, each
 * block getting its share of a pass (cost.c), so that chains that run
 * through several blocks bind, and chains of different blocks that run
 * side by side are not added up.
 */
#ifndef PI_LOOPS_H
#define PI_LOOPS_H

#include <stdbool.h>

#include "cfg.h"

/* The most blocks a loop may have to count as small. */
#define LOOP_SMALL_BLOCKS 8

/* Each block's successors as the search for loops follows them (direct
 * branches and fall-throughs within its function, not a bounds check's way
 * around a jump table), found once: every block is searched from, and a
 * search visits up to hundreds of blocks. */
struct loops {
	uint32_t (*succ)[2];
	uint8_t *nsucc;
};

void loops_init(struct loops *l, const struct code *c);
void loops_free(struct loops *l);

/* Sets looped[b] for every block b of c that lies on a cycle of at most
 * LOOP_SMALL_BLOCKS blocks of its function's control flow (direct branches
 * and fall-throughs; an indirect jump's targets are not followed, so an
 * interpreter's handlers are not a loop through its dispatch, nor is a
 * switch's bounds check's way around its table, its default case), clears
 * it for the others.  looped has c->nblocks entries; l is c's (loops_init). */
void loops_mark_small(const struct code *c, const struct loops *l, bool *looped);

/* The blocks of a shortest cycle through block b of at most
 * LOOP_SMALL_BLOCKS blocks (as loops_mark_small finds them), b first and
 * the others in the order they run; their number, 0 if there is none. */
unsigned loops_small_cycle(const struct loops *l, uint32_t b, uint32_t out[LOOP_SMALL_BLOCKS]);

#endif
