/* SPDX-License-Identifier: MIT */
/*
 * Small loops: the blocks whose dependency chains bind from one run to the
 * next.  A block of a loop of a few blocks runs again within a few dozen
 * instructions, so a chain it carries (a pointer followed, a sum kept)
 * holds the loop up as it holds up the block repeated alone; a block
 * anywhere else runs between unrelated work, which the core overlaps with
 * its chains.  The timing model costs the first kind as repeated, the
 * second in flow (model.h).
 */
#ifndef PI_LOOPS_H
#define PI_LOOPS_H

#include <stdbool.h>

#include "cfg.h"

/* The most blocks a loop may have to count as small. */
#define LOOP_SMALL_BLOCKS 8

/* Sets looped[b] for every block b of c that lies on a cycle of at most
 * LOOP_SMALL_BLOCKS blocks of its function's control flow (direct branches
 * and fall-throughs; an indirect jump's targets are not followed, so an
 * interpreter's handlers are not a loop through its dispatch, nor is a
 * switch's bounds check's way around its table, its default case), clears
 * it for the others.  looped has c->nblocks entries. */
void loops_mark_small(const struct code *c, bool *looped);

#endif
