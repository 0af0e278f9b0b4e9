/* SPDX-License-Identifier: MIT */
#include "loops.h"

#include <string.h>

/* The most blocks a search from one block keeps at one depth: past it the
 * code around the block branches too much for any one cycle through it to
 * run often. */
#define FRONTIER 64

static bool seen_in(const uint32_t *v, unsigned n, uint32_t x)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Whether some cycle through block b has at most LOOP_SMALL_BLOCKS blocks:
 * a breadth-first search from b, depth by depth, for b. */
static bool on_small_cycle(const struct code *c, uint32_t b)
{
	uint32_t cur[FRONTIER], next[FRONTIER], seen[FRONTIER * LOOP_SMALL_BLOCKS];
	unsigned ncur = 1, nseen = 0;
	cur[0] = b;
	for (unsigned depth = 0; depth < LOOP_SMALL_BLOCKS && ncur; depth++) {
		unsigned nnext = 0;
		for (unsigned i = 0; i < ncur; i++) {
			uint32_t s[2];
			unsigned ns = code_block_succs(c, cur[i], s);
			for (unsigned j = 0; j < ns; j++) {
				if (s[j] == b)
					return true;
				if (seen_in(seen, nseen, s[j]) || nnext == FRONTIER)
					continue;
				seen[nseen++] = s[j];
				next[nnext++] = s[j];
			}
		}
		memcpy(cur, next, nnext * sizeof(*cur));
		ncur = nnext;
	}
	return false;
}

void loops_mark_small(const struct code *c, bool *looped)
{
	for (size_t b = 0; b < c->nblocks; b++)
		looped[b] = c->funcs[c->blocks[b].fn].instrument && on_small_cycle(c, (uint32_t)b);
}
