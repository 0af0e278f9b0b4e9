/* SPDX-License-Identifier: MIT */
/*
 * Block costing: what each basic block of an analysed object costs under
 * its timing model (model.h), where it runs.  A block of a small loop
 * (loops.h) runs again within a few dozen instructions, so the chains it
 * carries bind: it is costed repeated, and a loop of several blocks as one
 * body, each block getting its share of a pass.  A block anywhere else is
 * costed in flow, between other work the core overlaps with its chains.
 */
#ifndef PI_COST_H
#define PI_COST_H

#include <stdint.h>

#include "cfg.h"

/* Sets every block's cost (and a return's ret_excess) where it runs,
 * counting the instructions in c->mstats.  After the blocks are built,
 * before the layout reads their costs. */
void cost_blocks(struct code *c);

/* What block bl of c costs under c's model, run as ctx (BLOCK_* flags)
 * says (bl->cost is its cost where it is: repeated on a small loop,
 * loops.h, else in flow; a return's excess apart); st, when not NULL,
 * counts its instructions. */
uint32_t cost_block(const struct code *c, const struct block *bl, unsigned ctx, struct model_stats *st);

#endif
