/* SPDX-License-Identifier: MIT */
#include "cost.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"

/* The instructions of bl the model costs (not MARK_NOCOST), into out (room
 * for bl->n); how many. */
static uint32_t costed_insns(const struct code *c, const struct block *bl, struct insn *out)
{
	const struct text *t = &c->texts[bl->ts];
	uint32_t n = 0;
	for (uint32_t k = bl->first; k < bl->first + bl->n; k++)
		if (!(t->mark[k] & MARK_NOCOST))
			out[n++] = t->insns[k];
	return n;
}

uint32_t cost_block(const struct code *c, const struct block *bl, unsigned ctx, struct model_stats *st)
{
	const struct text *t = &c->texts[bl->ts];
	struct insn tmp[64], *v = tmp;
	if (bl->n > 64)
		v = xmalloc(bl->n * sizeof(*v));
	uint32_t n = costed_insns(c, bl, v);
	uint32_t cost = c->model->block_cost(c->model, c->descs, &c->dx, c->o->secs[t->sec].data, v, n, ctx, st);
	if (v != tmp)
		free(v);
	return cost;
}

/* What one pass of the cycle of blocks cyc[0..n) costs, run over and over:
 * its instructions as one body (the chains it carries, wherever they run
 * in it), but no less than its blocks cost in flow one after the other
 * (their issue, ports and taken jumps, which the body's cost sees only at
 * its end).  0 where the cycle cannot be costed so: through a call (whose
 * callee's work the body would leave out) or across sections.  flow_of[b] is
 * block b's cost in flow once known (UINT32_MAX before): a block is in the
 * cycle found from each of its members. */
static uint64_t cycle_cost(const struct code *c, const uint32_t *cyc, unsigned n, uint32_t *flow_of)
{
	const struct text *t0 = &c->texts[c->blocks[cyc[0]].ts];
	uint32_t total = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct block *bl = &c->blocks[cyc[i]];
		const struct text *t = &c->texts[bl->ts];
		enum insn_kind last = (enum insn_kind)t->insns[bl->first + bl->n - 1].kind;
		if (t->sec != t0->sec || last == INSN_CALL || last == INSN_CALL_IND)
			return 0;
		total += bl->n;
	}
	struct insn *v = xmalloc(total * sizeof(*v));
	uint32_t nv = 0;
	uint64_t flow = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct block *bl = &c->blocks[cyc[i]];
		nv += costed_insns(c, bl, v + nv);
		if (flow_of[cyc[i]] == UINT32_MAX)
			flow_of[cyc[i]] = cost_block(c, bl, BLOCK_IN_FLOW, NULL);
		flow += flow_of[cyc[i]];
	}
	const uint8_t *code = c->o->secs[t0->sec].data;
	uint64_t body = nv ? c->model->block_cost(c->model, c->descs, &c->dx, code, v, nv, BLOCK_REPEATED, NULL) : 0;
	free(v);
	return body > flow ? body : flow;
}

/* Each block's cost where it runs: in a small loop (loops.h), its share of
 * what a pass of the loop costs (cycle_cost; shared as the blocks cost
 * repeated alone, or that cost where the loop cannot be costed whole);
 * else in flow between other blocks. */
void cost_blocks(struct code *c)
{
	bool *looped = xcalloc(c->nblocks + 1, sizeof(bool));
	struct loops l;
	loops_init(&l, c);
	loops_mark_small(c, &l, looped);
	for (size_t b = 0; b < c->nblocks; b++) {
		struct block *bl = &c->blocks[b];
		unsigned ctx = looped[b] ? BLOCK_REPEATED : BLOCK_IN_FLOW;
		bl->cost = cost_block(c, bl, ctx, c->mstats);
		const struct text *t = &c->texts[bl->ts];
		if (t->insns[bl->first + bl->n - 1].kind == INSN_RET) {
			uint32_t here = cost_block(c, bl, ctx | BLOCK_RET_AT_CALLER, NULL);
			if (here < bl->cost)
				bl->ret_excess = bl->cost - here, bl->cost = here;
		}
	}
	/* a block of a loop of several: its share of a pass, by what it
	 * costs repeated alone (the blocks' own costs, all computed first) */
	uint32_t *share = xcalloc(c->nblocks + 1, sizeof(uint32_t));
	uint32_t *flow_of = xmalloc((c->nblocks + 1) * sizeof(uint32_t));
	memset(flow_of, 0xff, (c->nblocks + 1) * sizeof(uint32_t));
	for (size_t b = 0; b < c->nblocks; b++) {
		share[b] = c->blocks[b].cost;
		uint32_t cyc[LOOP_SMALL_BLOCKS];
		unsigned n = looped[b] ? loops_small_cycle(&l, (uint32_t)b, cyc) : 0;
		if (n < 2)
			continue;
		uint64_t whole = cycle_cost(c, cyc, n, flow_of), alone = 0;
		for (unsigned i = 0; i < n; i++)
			alone += c->blocks[cyc[i]].cost;
		if (whole && alone)
			share[b] = (uint32_t)((c->blocks[b].cost * whole + alone / 2) / alone);
	}
	for (size_t b = 0; b < c->nblocks; b++)
		c->blocks[b].cost = share[b] ? share[b] : 1;
	loops_free(&l);
	free(flow_of);
	free(share);
	free(looped);
}
