/* SPDX-License-Identifier: MIT */
/*
 * A function's cycles, instruction by instruction: what annotate and the
 * line-level exports put on each source line.
 */
#ifndef PV_INSNCOST_H
#define PV_INSNCOST_H

#include <stdbool.h>
#include <stdint.h>

#include "reader.h"

/* One instruction of a function's blocks and the whole cycles that fall
 * on it.  A block's fixed cycles (executions x cost) are spread over its
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

/* Calls fn(ctx, c) for each instruction of function g's blocks, in order. */
void pv_insn_costs(const struct profile *p, uint32_t g, void (*fn)(void *ctx, const struct insn_cost *c),
		   void *ctx);

#endif
