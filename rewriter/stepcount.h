/* SPDX-License-Identifier: MIT */
/*
 * --counts: counters that a loop's own register keeps.  A loop that calls
 * nothing and steps a register by a constant once per turn counts its
 * turns already: the register's change from the way in to the way out.
 * A block of such a loop whose counter would be incremented every turn
 * gets it from that change instead: where the loop is entered, a stub
 * keeps the register (in a counter slot of the node that no count reads);
 * where it is left, a stub adds the turns since, as the register tells
 * them, to the block's counter.  A loop turn then runs no stub at all.
 * (The store of one turn's increment, which the next turn's waits for,
 * was what a counted loop of a few cycles paid most: zlib's longest_match.)
 *
 * The loop's block B runs as often as the step's block S on every turn
 * (each cycle of the loop passes both as often), so that along any way
 * through the loop B's runs less S's depend on where the way left: the
 * stub of each way out adds that, found once as a potential over the
 * loop's blocks.  A 32-bit register's change is taken modulo 2^32, so a
 * visit of 2^32 turns or more would be counted short by a multiple of
 * it; a 64-bit register may step by any power of two.
 */
#ifndef PI_STEPCOUNT_H
#define PI_STEPCOUNT_H

#include "cfg.h"
#include "fgraph.h"

/* The loops of f that can count a block of theirs so (c->stepped,
 * c->stepped_edges, block.stepped), after the derived counts (derive.h), whose
 * blocks' counter slots no count reads are the kept registers' places.
 * g: f's graph, idom its dominators, read: the blocks whose own counts
 * the derived counts' tables read (by index in f). */
void code_step_counters(struct code *c, const struct func *f, const struct fgraph *g, const uint32_t *idom,
			const bool *read);

#endif
