/* SPDX-License-Identifier: MIT */
#include "loops.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The most blocks a search from one block keeps at one depth: past it the
 * code around the block branches too much for any one cycle through it to
 * run often. */
#define FRONTIER 64

/* The blocks a search has seen, as a set: open addressing over twice as
 * many places as the search can see blocks (each index into seen, plus
 * 1; 0 empty), a linear scan of up to hundreds of them being most of the
 * search. */
#define SEEN_BITS 10
_Static_assert((1u << SEEN_BITS) >= 2 * FRONTIER * LOOP_SMALL_BLOCKS, "seen set too small");

/* Whether x is in the set; adds it (as seen[idx]) if not. */
static bool seen_add(uint16_t *set, const uint32_t *seen, uint32_t x, unsigned idx)
{
	unsigned h = (x * 0x9e3779b1u) >> (32 - SEEN_BITS);
	for (; set[h]; h = (h + 1) & ((1u << SEEN_BITS) - 1))
		if (seen[set[h] - 1] == x)
			return true;
	set[h] = (uint16_t)(idx + 1);
	return false;
}

static bool ends_in_table_jump(const struct code *c, uint32_t b)
{
	const struct block *bl = &c->blocks[b];
	const struct text *t = &c->texts[bl->ts];
	uint32_t k = bl->first + bl->n - 1;
	return t->insns[k].kind == INSN_JMP_IND && !(t->mark[k] & MARK_TAIL);
}

/* The successors of block b a loop is looked for through.  Not the way
 * around a switch's jump table that its bounds check takes (a jcc one of
 * whose successors jumps through the table): the values the table does
 * not cover.  An interpreter's dispatch whose default case goes back to
 * it at once (sqlite3VdbeExec's) is not a two-block loop; its blocks run
 * between the handlers' work. */
static unsigned loop_succs(const struct code *c, uint32_t b, uint32_t out[2])
{
	unsigned n = code_block_succs(c, b, out);
	const struct block *bl = &c->blocks[b];
	const struct text *t = &c->texts[bl->ts];
	if (n != 2 || t->insns[bl->first + bl->n - 1].kind != INSN_JCC)
		return n;
	bool table0 = ends_in_table_jump(c, out[0]), table1 = ends_in_table_jump(c, out[1]);
	if (table0 == table1)
		return 2;
	if (table1)
		out[0] = out[1];
	return 1;
}

void loops_init(struct loops *l, const struct code *c)
{
	l->succ = xmalloc((c->nblocks + 1) * sizeof(*l->succ));
	l->nsucc = xmalloc(c->nblocks + 1);
	for (size_t b = 0; b < c->nblocks; b++)
		l->nsucc[b] = (uint8_t)loop_succs(c, (uint32_t)b, l->succ[b]);
}

void loops_free(struct loops *l)
{
	free(l->succ);
	free(l->nsucc);
}

unsigned loops_small_cycle(const struct loops *l, uint32_t b, uint32_t out[LOOP_SMALL_BLOCKS])
{
	/* a breadth-first search from b, depth by depth, for b, keeping each
	 * block's parent (an index into seen, -1: b) to walk the cycle back */
	uint32_t seen[FRONTIER * LOOP_SMALL_BLOCKS];
	int parent[FRONTIER * LOOP_SMALL_BLOCKS];
	unsigned cur[FRONTIER], next[FRONTIER]; /* indices into seen */
	unsigned ncur = 0, nseen = 0;
	uint16_t set[1u << SEEN_BITS];
	memset(set, 0, sizeof(set));
	for (unsigned depth = 0; depth < LOOP_SMALL_BLOCKS; depth++) {
		unsigned nnext = 0;
		for (unsigned i = 0; i < (depth ? ncur : 1); i++) {
			uint32_t from = depth ? seen[cur[i]] : b;
			const uint32_t *s = l->succ[from];
			unsigned ns = l->nsucc[from];
			for (unsigned j = 0; j < ns; j++) {
				if (s[j] == b) {
					/* b, then the path to from */
					unsigned n = depth + 1;
					int k = depth ? (int)cur[i] : -1;
					for (unsigned d = n - 1; d >= 1; d--, k = parent[k])
						out[d] = seen[k];
					out[0] = b;
					return n;
				}
				if (nnext == FRONTIER || seen_add(set, seen, s[j], nseen))
					continue;
				parent[nseen] = depth ? (int)cur[i] : -1;
				seen[nseen] = s[j];
				next[nnext++] = nseen++;
			}
		}
		memcpy(cur, next, nnext * sizeof(*cur));
		ncur = nnext;
		if (!ncur)
			break;
	}
	return 0;
}

void loops_mark_small(const struct code *c, const struct loops *l, bool *looped)
{
	uint32_t cyc[LOOP_SMALL_BLOCKS];
	for (size_t b = 0; b < c->nblocks; b++)
		looped[b] = c->funcs[c->blocks[b].fn].instrument && loops_small_cycle(l, (uint32_t)b, cyc);
}
