/* SPDX-License-Identifier: MIT */
/*
 * --counts: the blocks whose count another block's gives, so that they
 * need no counter of their own.
 *
 * Block C counts as block A when every way into C comes from A through a
 * region R of A's function that nothing else enters, which A enters only
 * once per run of A (no way back to A) and which leaves only to C: no
 * return, jump out, trap or unknown jump, and no call or system call,
 * which might not return (exit, longjmp, an exception), but a call of a
 * C library function the model costs, which returns and calls nothing
 * back (ext_transparent: the block after it takes its block's count).  Then every run
 * of A is followed by exactly one run of C, before A runs again, in the
 * same frame (the node does not change without a call): the diamond of
 * an if-else, the join after a switch.  A is C's immediate dominator,
 * the only candidate.
 * (A program ended or a frame left by a signal inside R, between A and
 * C, counts C once more than it ran.)
 *
 * And an arm S of a two-way branch that ends block P (a conditional
 * jump; P holds no call), entered only from P, whose other arm T is
 * entered only from P too, runs as often as P less T: every run of P
 * goes on to one of them.  Knuth's spanning tree would leave more
 * blocks without counters; this takes the else of an if-else, the one
 * it finds most often in compiled code, and keeps the rest simple (one
 * level: P's count is its own or its block.same's, T's its own).
 *
 * And a block J entered only from blocks each of which goes on only to
 * J, by a jump or by falling into it (no call, system call or trap, no
 * other way out), runs as often as they do together: the head of a loop
 * that its body jumps back to, an interpreter's dispatch that each of
 * its cases goes back to.  Each of them keeps a count of its own (one
 * level again), and J is not one another block's count is taken from.
 *
 * And where the other arm T is entered from other blocks too (a loop's
 * exit, a function's return that several tests jump to), S's counter
 * counts the edge from P to T instead (the layout puts it on that way
 * alone: layout.c), and S runs as often as P less that: one increment
 * as a loop is left, or as a chain of tests returns, instead of one a
 * turn or a test.  Only an edge that is likely the rarer way: one that
 * leaves a loop S stays in, or goes to a return.  P's count may be such
 * a difference itself (a chain of tests, each the one before's arm), to
 * PI_MAP_DIFF_DEPTH of them.
 *
 * And, last, a block J that still keeps a counter, that no other count
 * reads, runs as often as what flows into it: each way in is its
 * source's count where the source goes only to J, the counter of an arm
 * that counts the edge, the count of a block entered only by it, or,
 * a level or two down, its source's count less its other way out, or
 * the count of the block it enters less that block's other ways in
 * (PI_MAP_LIN: a signed sum of counts and counters, none of them such a
 * sum).  zlib's longest_match keeps its chain loop's top counted and its
 * other test's join takes the top's count less the loop's exits plus its
 * way in from before the loop: one counter a turn, not two.  Where what
 * flows in cannot be had so (more ways in than a flow's terms, or an
 * edge no count gives), and J goes on only to a block K whose count
 * another table reads already (so that it stays what it is), J runs as
 * often as the flow out: K's count less K's other ways in.
 */
#include "derive.h"

#include <stdlib.h>
#include <string.h>

#include "fgraph.h"
#include "stepcount.h"
#include "util.h"

/* A region larger than this is not followed (the search is per block) */
#define REGION_MAX 64

/* Whether C's count is A's (the region between them as the file's
 * comment says); mark: scratch per block, stamp: this search's mark. */
static bool same_count(const struct fgraph *g, uint32_t a, uint32_t cb, uint32_t *mark, uint32_t stamp)
{
	if (g->stops[a] || g->special[cb])
		return false;
	uint32_t queue[REGION_MAX], nq = 0, head = 0;
	for (size_t e = 0; e < g->outn[a]; e++) {
		uint32_t s = g->out[a][e];
		if (s == cb || mark[s] == stamp)
			continue;
		if (nq == REGION_MAX)
			return false;
		mark[s] = stamp;
		queue[nq++] = s;
	}
	while (head < nq) {
		uint32_t x = queue[head++];
		if (x == a || g->stops[x] || g->special[x])
			return false;
		for (size_t e = 0; e < g->outn[x]; e++) {
			uint32_t s = g->out[x][e];
			if (s == cb || mark[s] == stamp)
				continue;
			if (s == a || nq == REGION_MAX)
				return false;
			mark[s] = stamp;
			queue[nq++] = s;
		}
	}
	/* one way in: from A, or from the region */
	for (uint32_t i = 0; i < nq; i++)
		for (size_t e = 0; e < g->inn[queue[i]]; e++) {
			uint32_t p = g->in[queue[i]][e];
			if (p != a && mark[p] != stamp && g->live[p])
				return false;
		}
	for (size_t e = 0; e < g->inn[cb]; e++) {
		uint32_t p = g->in[cb][e];
		if (p != a && mark[p] != stamp && g->live[p])
			return false;
	}
	return true;
}

/* Whether block s of f may take its count from its branch less the
 * other arm t: each is entered from the branch p only. */
static bool arm_ok(const struct code *c, const struct func *f, const struct fgraph *g, const bool *pinned,
		   uint32_t s, uint32_t *pp, uint32_t *tp)
{
	const struct block *sb = &c->blocks[f->first_block + s];
	if (sb->same || sb->minus || pinned[s] || g->special[s] || !g->live[s])
		return false;
	uint32_t p = fgraph_only_pred(g, s);
	if (p == UINT32_MAX || p == s || g->stops[p] || g->outn[p] != 2)
		return false;
	uint32_t t = g->out[p][0] == s ? g->out[p][1] : g->out[p][0];
	const struct block *tb = &c->blocks[f->first_block + t];
	if (t == s || fgraph_only_pred(g, t) != p || g->special[t] || tb->same || tb->minus)
		return false;
	*pp = p, *tp = t;
	return true;
}

/* The arms of two-way branches that take their counts as differences
 * (the file's comment), after the same counts: an arm that is a same
 * count's root stays one (the same table points at it).  Of two arms
 * that could, the one the status flags are live into takes it: its
 * counter would have to keep them (lahf, sahf). */
static void derive_arms(struct code *c, const struct func *f, const struct fgraph *g)
{
	uint32_t fb = f->first_block;
	bool *pinned = xcalloc(g->n, sizeof(bool)); /* counted: a difference reads it */
	for (uint32_t i = 0; i < g->n; i++)
		if (c->blocks[fb + i].same)
			pinned[c->blocks[fb + i].same - 1 - fb] = true;
	for (uint32_t s = 1; s < g->n; s++) {
		uint32_t p, t, p2, t2;
		if (!arm_ok(c, f, g, pinned, s, &p, &t))
			continue;
		uint32_t pr = c->blocks[fb + p].same ? c->blocks[fb + p].same - 1 - fb : p;
		if (c->blocks[fb + pr].minus || pr == s)
			continue;
		if (t > s && !(c->blocks[fb + s].live_in & FLAGS_STATUS) && (c->blocks[fb + t].live_in & FLAGS_STATUS) &&
		    pr != t && arm_ok(c, f, g, pinned, t, &p2, &t2))
			continue; /* t's turn comes */
		struct block *sb = &c->blocks[fb + s];
		sb->plus = fb + pr + 1;
		sb->minus = fb + t + 1;
		pinned[pr] = pinned[t] = true;
	}
	free(pinned);
}

/* Whether the edge from p to t leaves a loop that p and s are in */
static bool leaves_loop(const struct loops_of *l, uint32_t p, uint32_t s, uint32_t t)
{
	for (uint32_t i = 0; i < l->n; i++) {
		const uint64_t *row = l->bits + (size_t)i * l->words;
		if (fgraph_in_loop(row, p) && fgraph_in_loop(row, s) && !fgraph_in_loop(row, t))
			return true;
	}
	return false;
}

static const struct insn *last_insn(const struct code *c, const struct block *b)
{
	return &c->texts[b->ts].insns[b->first + b->n - 1];
}

/* Whether the edge from block p to t (blocks of f) can have a counter of
 * its own where t starts (layout.c): p ends in a conditional jump of
 * this text, to t or falling into it, and every other way into t is
 * a jump or a fall too (no address taken, no entry). */
static bool edge_ok(const struct code *c, const struct func *f, const struct fgraph *g, uint32_t p, uint32_t s,
		    uint32_t t)
{
	const struct block *pb = &c->blocks[f->first_block + p], *sb = &c->blocks[f->first_block + s];
	const struct block *tb = &c->blocks[f->first_block + t];
	if (g->special[t] || !g->live[t] || pb->ts != tb->ts || sb->ts != tb->ts)
		return false;
	const struct text *tx = &c->texts[tb->ts];
	const struct insn *j = last_insn(c, pb), *first = &tx->insns[tb->first];
	uint32_t k = pb->first + pb->n - 1;
	if (j->kind != INSN_JCC || (tx->mark[k] & (MARK_TAIL | MARK_EXT)) || first->endbr ||
	    (tx->mark[tb->first] & (MARK_ADDR | MARK_ENTERED | MARK_RESYNC | MARK_PSTART | MARK_FSTART)) ||
	    reloc_find(c->o, tx->sec, j->off + j->rel_off))
		return false;
	/* the jump goes to one of them, and falls into the other */
	uint64_t s_at = tx->insns[sb->first].off, t_at = first->off;
	return (j->target == t_at && j->off + j->len == s_at) || (j->target == s_at && j->off + j->len == t_at);
}

/* The arms that take their counts as their branch's block's less an
 * edge's (the file's comment), after the rest: an arm whose own counter
 * no difference or sum reads, whose branch's block is no sum.  Blocks
 * counted as it take the difference too, and so do arms after it that
 * take their counts from its (one difference more, each). */
static void derive_edges(struct code *c, const struct func *f, const struct fgraph *g, const uint32_t *idom)
{
	uint32_t fb = f->first_block;
	bool *pinned = xcalloc(g->n, sizeof(bool)); /* its own counter is read */
	uint8_t *depth = xcalloc(g->n, 1); /* a difference's: how many one after the other */
	/* the arms that take their counts from a block's, by that block: the
	 * first's index + 1, then each one's next's */
	uint32_t *reader = xcalloc(g->n, sizeof(uint32_t)), *next_reader = xcalloc(g->n, sizeof(uint32_t));
	for (uint32_t i = g->n; i-- > 0;) {
		const struct block *b = &c->blocks[fb + i];
		if (b->minus) {
			uint32_t x = b->plus - 1 - fb;
			pinned[b->minus - 1 - fb] = true;
			next_reader[i] = reader[x];
			reader[x] = i + 1;
			depth[i] = 1;
		}
		if (b->sum) {
			const uint32_t *k = c->sums + b->sum - 1;
			for (uint32_t j = 1; j <= k[0]; j++)
				pinned[k[j] - 1 - fb] = true;
		}
	}
	struct loops_of l = {0, 0, NULL};
	bool looked = false;
	for (uint32_t s = 1; s < g->n; s++) {
		struct block *sb = &c->blocks[fb + s];
		if (block_derived(sb) || pinned[s] || g->special[s] || !g->live[s] || (reader[s] && reader[s] - 1 < s))
			continue;
		uint32_t p = fgraph_only_pred(g, s);
		if (p == UINT32_MAX || p == s || g->stops[p] || g->outn[p] != 2)
			continue;
		uint32_t t = g->out[p][0] == s ? g->out[p][1] : g->out[p][0];
		if (t == s || fgraph_only_pred(g, t) == p || !edge_ok(c, f, g, p, s, t))
			continue;
		const struct block *pb = &c->blocks[fb + p];
		uint32_t pr = pb->same ? pb->same - 1 - fb : p;
		const struct block *rb = &c->blocks[fb + pr];
		uint8_t d = (uint8_t)(rb->minus ? depth[pr] + 1 : 1);
		if (pr == s || rb->sum || (rb->minus && pr > s) || d + (reader[s] ? 1 : 0) > PI_MAP_DIFF_DEPTH)
			continue;
		bool ret = last_insn(c, &c->blocks[fb + t])->kind == INSN_RET;
		if (!ret && !looked) {
			fgraph_loops(g, idom, &l);
			looked = true;
		}
		if (!ret && !leaves_loop(&l, p, s, t))
			continue;
		sb->plus = fb + pr + 1;
		sb->minus = fb + s + 1;
		sb->efrom = fb + p + 1;
		sb->eto = fb + t + 1;
		depth[s] = d;
		for (uint32_t r = reader[s]; r; r = next_reader[r - 1])
			depth[r - 1] = (uint8_t)(d + 1);
		/* s reads pr now: a pr after s (a jump back to p) keeps its
		 * count, since a difference goes on from a block before it only */
		next_reader[s] = reader[pr];
		reader[pr] = s + 1;
	}
	free(l.bits);
	free(reader);
	free(next_reader);
	free(depth);
	free(pinned);
}

/* The blocks of f whose own counts the tables read so far (pinned): a
 * same count's root, a difference's two, a sum's or a flow's terms. */
static bool *counts_read(const struct code *c, const struct func *f, const struct fgraph *g)
{
	uint32_t fb = f->first_block;
	bool *pinned = xcalloc(g->n, sizeof(bool));
	for (uint32_t i = 0; i < g->n; i++) {
		const struct block *b = &c->blocks[fb + i];
		if (b->same)
			pinned[b->same - 1 - fb] = true;
		if (b->minus)
			pinned[b->plus - 1 - fb] = pinned[b->minus - 1 - fb] = true;
		if (b->sum) {
			const uint32_t *k = c->sums + b->sum - 1;
			for (uint32_t j = 1; j <= (k[0] & ~PI_LIN_GROUP); j++)
				pinned[(k[j] & PI_LIN_BLOCK) - 1 - fb] = true;
		}
	}
	return pinned;
}

/* The joins whose counts are their predecessors' sum (the file's
 * comment), after the same counts and the arms: a block another's count
 * reads stays counted (pinned), and so does each block a sum reads. */
static void derive_sums(struct code *c, const struct func *f, const struct fgraph *g)
{
	uint32_t fb = f->first_block;
	bool *pinned = counts_read(c, f, g);
	for (uint32_t j = 1; j < g->n; j++) {
		struct block *jb = &c->blocks[fb + j];
		if (block_derived(jb) || pinned[j] || g->special[j] || !g->live[j])
			continue;
		bool ok = true;
		uint32_t nin = 0;
		for (size_t e = 0; e < g->inn[j] && ok; e++) {
			uint32_t p = g->in[j][e];
			if (!g->live[p])
				continue; /* padding: never runs */
			nin++;
			ok = p != j && !g->stops[p] && g->outn[p] == 1 && !block_derived(&c->blocks[fb + p]);
		}
		if (!ok || nin < 2)
			continue;
		jb->sum = (uint32_t)c->nsums + 1;
		uint32_t *k = VEC_PUSH(c->sums, c->nsums, c->sumcap);
		*k = nin;
		for (size_t e = 0; e < g->inn[j]; e++) {
			uint32_t p = g->in[j][e];
			if (!g->live[p])
				continue;
			pinned[p] = true;
			uint32_t *x = VEC_PUSH(c->sums, c->nsums, c->sumcap);
			*x = fb + p + 1;
		}
	}
	free(pinned);
}

/* A join's count as the flow into it (PI_MAP_LIN): the terms so far */
struct lin {
	struct code *c;
	const struct func *f;
	const struct fgraph *g;
	uint32_t j;           /* the join */
	const bool *no_term;  /* blocks no term may name as a count: sums of this kind */
	uint32_t t[PI_LIN_MAX];
	uint32_t n;
};

static bool lin_put(struct lin *l, uint32_t b, uint32_t flags)
{
	if (l->n == PI_LIN_MAX)
		return false;
	l->t[l->n++] = (l->f->first_block + b + 1) | flags;
	return true;
}

/* b's count, own or derived (not the join's, nor another such sum's) */
static bool lin_count(struct lin *l, uint32_t b, bool minus)
{
	return b != l->j && !l->no_term[b] && lin_put(l, b, minus ? PI_LIN_MINUS : 0);
}

static uint32_t live_outs(const struct fgraph *g, uint32_t p)
{
	uint32_t n = 0;
	for (size_t e = 0; e < g->outn[p]; e++)
		n += g->live[g->out[p][e]];
	return n;
}

static bool lin_in_less(struct lin *l, uint32_t p, uint32_t q, bool minus, int depth);

/* The count of the edge from p to q (blocks of f), as terms: p's count
 * where p goes only to q, q's where q is entered from p only, the
 * counter of an arm that counts the edge (PI_MAP_EDGES); with depth
 * left, p's count less its other way out's, or q's less its other ways
 * in.  Blocks that call, return or trap (stops) end no edge whose count
 * is theirs. */
static bool lin_edge(struct lin *l, uint32_t p, uint32_t q, bool minus, int depth)
{
	const struct fgraph *g = l->g;
	uint32_t fb = l->f->first_block, n0 = l->n;
	if (!g->stops[p] && g->outn[p] == 1 && g->out[p][0] == q)
		return lin_count(l, p, minus);
	if (fgraph_only_pred(g, q) == p && q != l->j && !g->special[q])
		return lin_count(l, q, minus);
	for (uint32_t s = 0; s < g->n; s++) {
		const struct block *sb = &l->c->blocks[fb + s];
		if (sb->eto == fb + q + 1 && sb->efrom == fb + p + 1)
			return lin_put(l, s, PI_LIN_RAW | (minus ? PI_LIN_MINUS : 0));
	}
	if (depth <= 0)
		return false;
	if (!g->stops[p] && g->outn[p] == 2 && live_outs(g, p) == 2 && g->out[p][0] != g->out[p][1]) {
		uint32_t r = g->out[p][0] == q ? g->out[p][1] : g->out[p][0];
		if (lin_count(l, p, minus) && lin_edge(l, p, r, !minus, depth - 1))
			return true;
		l->n = n0;
	}
	return lin_in_less(l, p, q, minus, depth);
}

/* The count of the edge from p to q as q's count less its other ways in
 * (lin_edge's, each with depth - 1) */
static bool lin_in_less(struct lin *l, uint32_t p, uint32_t q, bool minus, int depth)
{
	const struct fgraph *g = l->g;
	uint32_t n0 = l->n;
	if (q != l->j && q != 0 && !g->special[q] && lin_count(l, q, minus)) {
		bool ok = true, from_p = false;
		for (size_t e = 0; e < g->inn[q] && ok; e++) {
			uint32_t x = g->in[q][e];
			if (!g->live[x])
				continue;
			if (x == p && !from_p) {
				from_p = true; /* (the edge itself) */
				continue;
			}
			ok = lin_edge(l, x, q, !minus, depth - 1);
		}
		if (ok && from_p)
			return true;
		l->n = n0;
	}
	return false;
}

/* The joins whose counts are the flow into them (the file's comment),
 * last: a counted block that no other count reads, each of whose ways in
 * is a count or a difference of counts the tables have already (its
 * source's, the edge's counter, or its source's count less its other way
 * out's); its terms' blocks keep what they have. */
static void derive_lin(struct code *c, const struct func *f, const struct fgraph *g)
{
	uint32_t fb = f->first_block;
	bool *pinned = counts_read(c, f, g), *lin = xcalloc(g->n, sizeof(bool));
	for (uint32_t j = 1; j < g->n; j++) {
		struct block *jb = &c->blocks[fb + j];
		if (block_derived(jb) || pinned[j] || g->special[j] || !g->live[j])
			continue;
		struct lin l = {.c = c, .f = f, .g = g, .j = j, .no_term = lin};
		bool ok = true;
		uint32_t nin = 0;
		for (size_t e = 0; e < g->inn[j] && ok; e++) {
			uint32_t p = g->in[j][e];
			if (!g->live[p])
				continue;
			nin++;
			ok = p != j && lin_edge(&l, p, j, false, 2);
		}
		bool out = false;
		if ((!ok || !l.n) && !g->stops[j] && g->outn[j] == 1 && g->out[j][0] != j && pinned[g->out[j][0]]) {
			/* or what flows out of it, where it goes on only to a
			 * block whose count stays what it is (another table
			 * reads it): that block's count less its other ways in */
			l.n = 0;
			ok = out = lin_in_less(&l, j, g->out[j][0], false, 2);
		}
		/* (a block's count added and taken away again: neither) */
		for (uint32_t a = 0; a < l.n; a++)
			for (uint32_t b = a + 1; b < l.n; b++)
				if ((l.t[a] ^ l.t[b]) == PI_LIN_MINUS) {
					l.t[b] = l.t[--l.n];
					l.t[a] = l.t[--l.n];
					a--;
					break;
				}
		if (!ok || (nin < 2 && !out) || !l.n)
			continue;
		jb->sum = (uint32_t)c->nsums + 1;
		uint32_t *k = VEC_PUSH(c->sums, c->nsums, c->sumcap);
		*k = l.n | PI_LIN_GROUP;
		for (uint32_t i = 0; i < l.n; i++) {
			pinned[(l.t[i] & PI_LIN_BLOCK) - 1 - fb] = true;
			uint32_t *x = VEC_PUSH(c->sums, c->nsums, c->sumcap);
			*x = l.t[i];
		}
		lin[j] = true;
	}
	free(lin);
	free(pinned);
}

void code_derive_counts(struct code *c)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		const struct func *f = &c->funcs[fi];
		if (!f->instrument || f->nblocks < 3)
			continue;
		struct fgraph g = {.c = c, .f = f, .n = f->nblocks};
		fgraph_build(&g);
		uint32_t *place = xmalloc(g.n * sizeof(uint32_t)), count;
		uint32_t *rpo = fgraph_rpo(&g, place, &count);
		uint32_t *idom = fgraph_idom(&g, rpo, place, count);
		uint32_t *mark = xcalloc(g.n, sizeof(uint32_t));
		/* in reverse postorder: a dominator is settled before the
		 * blocks it dominates, so that each takes its root's count */
		for (uint32_t r = 1; r < count; r++) {
			uint32_t cb = rpo[r], a = idom[cb];
			if (a == UINT32_MAX || !same_count(&g, a, cb, mark, r))
				continue;
			struct block *ab = &c->blocks[f->first_block + a];
			c->blocks[f->first_block + cb].same = ab->same ? ab->same : f->first_block + a + 1;
		}
		derive_arms(c, f, &g);
		derive_sums(c, f, &g);
		derive_edges(c, f, &g, idom);
		derive_lin(c, f, &g);
		bool *read = counts_read(c, f, &g);
		code_step_counters(c, f, &g, idom, read);
		free(read);
		free(mark), free(idom), free(rpo), free(place);
		fgraph_free(&g);
	}
}
