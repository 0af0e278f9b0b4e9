/* SPDX-License-Identifier: MIT */
/*
 * Counting trees (PI_REC_CTHREAD) to calling-context trees.
 *
 * Under --counts the program writes each thread's nodes as its stubs kept
 * them: a node per (caller's node, call site, callee), raw counters of
 * the callee's blocks, and the few figures only the runtime knows.  Here
 * they become what the timed runtime would have written for the same
 * run (PI_REC_THREAD's nodes and recursive edges, and the thread's
 * COUNTS), which everything else reads:
 *
 * - every block's count, from its own counter or, through the map's
 *   tables, from others' (a block counted as another, an arm as its
 *   branch's count less the other way out, a join as the sum of its
 *   ways in, or as the flow into it, a signed sum);
 * - a call's count, where its site does not count it, from the count of
 *   the caller's block that holds it;
 * - self = the counts times the map's block costs, plus what the runtime
 *   added (an external's cost is per call, plus the rest);
 * - nodes merged as the timed runtime keys them (function, return
 *   address): a recursive call is an edge back to its function's node up
 *   the path, which takes its figures, and a node's incl is its
 *   function's outermost activations' time.
 *
 * The tree comes from outside: every index, block and number is checked
 * before it is used.
 */
#include "ctree.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* a node as written */
struct cn {
	uint32_t parent;
	uint32_t g;     /* global function; NONE: a call through a pointer's node */
	uint32_t slot;  /* NONE: entered from outside */
	uint32_t flags; /* PI_CN_* */
	uint64_t calls, add, per_call, os, os_left;
	uint64_t first, n; /* its counters: pairs first .. first + n - 1 */
};

struct pair {
	uint64_t block; /* in its function */
	uint64_t count;
};

/* a node of the tree made (the timed runtime's rt_node) */
struct on {
	uint32_t g;
	uint32_t parent, first_child, next_sibling;
	uint32_t alias; /* a recursive edge's ancestor, or NONE */
	uint32_t index; /* as written */
	uint64_t ra;
	uint64_t calls, rec_calls, self, incl, os, os_left;
};

/* a level of the walk down the written tree */
struct lvl {
	uint32_t n;         /* its node */
	bool spliced;       /* a call through a pointer's: its children are its parent's */
	bool outermost;     /* the first activation of its function on the path */
	uint32_t to;        /* the node its children go under */
	uint32_t own;       /* the node its figures went to */
	uint32_t edge;      /* a recursive call's edge, or NONE */
	uint64_t sub;       /* its figures and its descendants' */
	uint64_t cnt, ncnt; /* its blocks' counts: the walk's counts[cnt ..] */
};

struct conv {
	const struct profile *p;
	uint32_t tindex;
	struct cn *cn;
	uint64_t ncn;
	struct pair *pairs;
	uint64_t npairs;
	struct on *on;
	uint64_t non, oncap;
	uint32_t *onpath;   /* per global function: its outermost node on the path, or NONE */
	uint8_t *fstate;    /* per global function: its tables checked (tables_ok): 1 good, 2 bad */
	struct lvl *lv;
	uint64_t depth, lvcap;
	uint64_t *counts;   /* the path's blocks' counts, by level */
	uint64_t ncounts, countcap;
	uint64_t **objcounts; /* per object: the thread's block counts (NULL: none counted) */
	char *err;
	size_t errsz;
};

static int fail(struct conv *c, const char *what)
{
	snprintf(c->err, c->errsz, "bad counting tree: %s", what);
	return -1;
}

static int oom(struct conv *c)
{
	snprintf(c->err, c->errsz, "out of memory");
	return -1;
}

/* one unsigned LEB128 number */
static bool get(const uint8_t **at, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*at == end)
			return false;
		uint8_t b = *(*at)++;
		if (shift == 63 && b > 1)
			return false;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static bool get32(const uint8_t **at, const uint8_t *end, uint32_t *v)
{
	uint64_t x;
	if (!get(at, end, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static const struct pi_map_func *map_func(const struct profile *p, uint32_t g)
{
	const struct prof_gfunc *f = &p->funcs[g];
	return &p->objs[f->obj].funcs[f->func];
}

/* The nodes, checked: parents before, functions known, blocks in them */
static int decode(struct conv *c, const uint8_t *at, const uint8_t *end, uint32_t nnodes)
{
	const struct profile *p = c->p;
	/* (each node takes 3 bytes or more) */
	if (nnodes > (uint64_t)(end - at) / 3 + 1)
		return fail(c, "more nodes than its bytes hold");
	c->ncn = (uint64_t)nnodes + 1;
	c->cn = calloc(c->ncn, sizeof(*c->cn));
	if (!c->cn)
		return oom(c);
	c->cn[0] = (struct cn){.parent = NONE, .g = NONE, .slot = NONE};
	uint64_t paircap = 0;
	for (uint64_t k = 1; k < c->ncn; k++) {
		struct cn *n = &c->cn[k];
		uint64_t up, obj1, slot1;
		if (!get(&at, end, &up))
			return fail(c, "truncated node");
		if (up == 0 || up > k)
			return fail(c, "a node whose parent is not before it");
		if (!get(&at, end, &obj1))
			return fail(c, "truncated node");
		n->parent = (uint32_t)(k - up);
		n->g = NONE;
		if (obj1 == 0) {
			if (!get(&at, end, &slot1) || slot1 > UINT32_MAX)
				return fail(c, "truncated node");
			n->slot = slot1 ? (uint32_t)(slot1 - 1) : NONE;
			continue;
		}
		uint32_t func;
		if (!get32(&at, end, &func) || !get(&at, end, &slot1) || slot1 > UINT32_MAX ||
		    !get32(&at, end, &n->flags) || !get(&at, end, &n->calls) || !get(&at, end, &n->add) ||
		    !get(&at, end, &n->per_call) || !get(&at, end, &n->os) || !get(&at, end, &n->os_left))
			return fail(c, "truncated node");
		n->slot = slot1 ? (uint32_t)(slot1 - 1) : NONE;
		if (obj1 > UINT32_MAX || (n->g = prof_gfunc(p, (uint32_t)(obj1 - 1), func)) == NONE)
			return fail(c, "a node names an unknown function");
		if (n->flags & ~(uint32_t)(PI_CN_EXTERNAL | PI_CN_UNTRACKED))
			return fail(c, "unknown node flags");
		if (n->flags & PI_CN_EXTERNAL)
			continue;
		uint64_t nb = map_func(p, n->g)->nblocks, b = 0, gap;
		n->first = c->npairs;
		while (get(&at, end, &gap) && gap) {
			if (gap > nb - b)
				return fail(c, "a counter past its function's blocks");
			b += gap;
			if (c->npairs == paircap) {
				paircap = paircap ? 2 * paircap : 1024;
				struct pair *np = realloc(c->pairs, paircap * sizeof(*np));
				if (!np)
					return oom(c);
				c->pairs = np;
			}
			struct pair *pr = &c->pairs[c->npairs++];
			pr->block = b - 1;
			if (!get(&at, end, &pr->count))
				return fail(c, "truncated counters");
		}
		if (at > end || (at == end && gap))
			return fail(c, "truncated counters");
		n->n = c->npairs - n->first;
	}
	if (at != end)
		return fail(c, "bytes after its nodes");
	return 0;
}

/* The nodes in the order of a walk from the root, each node's children
 * in the order they came: a runtime writes them in the order it made
 * them, a parent before its children, and walk() takes a node's
 * children right after it.  (A walk's order comes back as it was.) */
static int walk_order(struct conv *c)
{
	uint64_t n = c->ncn;
	uint32_t *first = malloc(n * sizeof(*first)), *next = malloc(n * sizeof(*next));
	uint32_t *order = malloc(n * sizeof(*order)), *stack = malloc(n * sizeof(*stack));
	struct cn *cn = malloc(n * sizeof(*cn));
	int r = 0;
	if (!first || !next || !order || !stack || !cn) {
		r = oom(c);
		goto out;
	}
	for (uint64_t k = 0; k < n; k++)
		first[k] = next[k] = NONE;
	for (uint64_t k = n - 1; k >= 1; k--) { /* (pushed in front: ascending) */
		next[k] = first[c->cn[k].parent];
		first[c->cn[k].parent] = (uint32_t)k;
	}
	/* (each node once: its parent comes before it) */
	uint64_t depth = 0, at = 0;
	stack[depth++] = 0;
	while (depth) {
		uint32_t k = stack[--depth];
		order[k] = (uint32_t)at;
		cn[at++] = c->cn[k];
		uint64_t from = depth;
		for (uint32_t x = first[k]; x != NONE; x = next[x])
			stack[depth++] = x;
		for (uint64_t i = from, j = depth; i + 1 < j; i++, j--) { /* the first on top */
			uint32_t t = stack[i];
			stack[i] = stack[j - 1];
			stack[j - 1] = t;
		}
	}
	for (uint64_t k = 1; k < n; k++)
		cn[k].parent = order[cn[k].parent];
	free(c->cn);
	c->cn = cn;
	cn = NULL;
out:
	free(first);
	free(next);
	free(order);
	free(stack);
	free(cn);
	return r;
}

/* the node made under parent for (g, ra, alias), or the one there */
static uint32_t child(struct conv *c, uint32_t parent, uint32_t g, uint64_t ra, uint32_t alias)
{
	for (uint32_t x = c->on[parent].first_child; x != NONE; x = c->on[x].next_sibling)
		if (c->on[x].g == g && c->on[x].ra == ra && c->on[x].alias == alias)
			return x;
	if (c->non == c->oncap) {
		uint64_t cap = c->oncap ? 2 * c->oncap : 1024;
		struct on *n = realloc(c->on, cap * sizeof(*n));
		if (!n)
			return NONE;
		c->on = n;
		c->oncap = cap;
	}
	uint32_t x = (uint32_t)c->non++;
	c->on[x] = (struct on){.g = g, .parent = parent, .first_child = NONE, .alias = alias, .ra = ra};
	c->on[x].next_sibling = c->on[parent].first_child;
	c->on[parent].first_child = x;
	return x;
}

/* Where the call of node k returns: its site's return address (a tail
 * jump's: its jumping caller's), 0 if it came from outside. */
static uint64_t node_ra(const struct conv *c, uint32_t k)
{
	for (;;) {
		const struct cn *n = &c->cn[k];
		if (n->slot == NONE && n->parent && c->cn[n->parent].g == NONE)
			n = &c->cn[k = n->parent]; /* through a pointer: that site's */
		if (n->slot == NONE || !k || c->cn[n->parent].g == NONE)
			return 0;
		const struct cn *pn = &c->cn[n->parent];
		if (pn->flags & PI_CN_EXTERNAL)
			return 0;
		const struct pi_map_func *mf = map_func(c->p, pn->g);
		if (n->slot >= mf->nsites) {
			/* a tail jump's callee returns where its caller would */
			k = n->parent;
			continue;
		}
		const struct prof_gfunc *pf = &c->p->funcs[pn->g];
		const struct pi_map_site *s = &c->p->objs[pf->obj].sites[mf->first_site + n->slot];
		return pf->rec && s->piece < PI_MAX_PIECES ? pf->rec->addr[s->piece] + s->ret_off : 0;
	}
}

/* A block's count in node n, from its counters (own: dense, by block)
 * and the map's tables; calls: the node's. */
static uint64_t own_count(const struct pi_map_func *mf, const uint64_t *own, uint64_t calls, uint32_t i)
{
	return i == 0 && (mf->flags & PI_FUNC_ENTRY_CALLS) ? calls : own[i];
}

static uint64_t derived_count(const struct pi_map_hdr *m, const struct pi_map_func *mf, const uint64_t *own,
			      uint64_t calls, uint32_t i)
{
	if (!(m->reserved & PI_MAP_SAME) || !m->nsame)
		return own_count(mf, own, calls, i);
	const uint32_t *same = (const uint32_t *)((const char *)m + m->same_off);
	const uint32_t *diff = (m->reserved & PI_MAP_DIFF) ? same + m->nsame + 2 * (uint64_t)mf->first_block : NULL;
	const uint32_t *sums = diff && (m->reserved & PI_MAP_SUM) ? same + 3 * (uint64_t)m->nsame + 1 : NULL;
	same += mf->first_block;
	/* (the reader checked that each names a block of the function) */
	if (same[i])
		i = same[i] - 1 - mf->first_block;
	if (sums && !diff[2 * i] && diff[2 * i + 1] && (sums[diff[2 * i + 1] - 1] & PI_LIN_GROUP)) {
		/* a join: the flow into it, each term a block's count (no such
		 * sum: it ends) or its counter (an edge's), 0 rather than less */
		const uint32_t *grp = sums + diff[2 * i + 1] - 1;
		uint64_t plus = 0, minus = 0;
		for (uint32_t j = 1; j <= (grp[0] & ~PI_LIN_GROUP); j++) {
			uint32_t x = (grp[j] & PI_LIN_BLOCK) - 1 - mf->first_block;
			uint64_t v = grp[j] & PI_LIN_RAW ? own[x] : derived_count(m, mf, own, calls, x);
			if (grp[j] & PI_LIN_MINUS)
				minus += v;
			else
				plus += v;
		}
		return plus > minus ? plus - minus : 0;
	}
	if (sums && !diff[2 * i] && diff[2 * i + 1]) {
		/* a join: the sum of its predecessors' counts */
		const uint32_t *grp = sums + diff[2 * i + 1] - 1;
		uint64_t k = 0;
		for (uint32_t j = 1; j <= grp[0]; j++)
			k += own_count(mf, own, calls, grp[j] - 1 - mf->first_block);
		return k;
	}
	if (!diff || !diff[2 * i])
		return own_count(mf, own, calls, i);
	/* an arm: its branch's block's count less the other arm's, or less
	 * the other way out's, which its own counter keeps (PI_MAP_EDGES);
	 * the branch's count may be such a difference again, each from the
	 * count before it, 0 rather than less */
	uint32_t chain[PI_MAP_DIFF_DEPTH], depth = 0;
	do {
		chain[depth++] = i;
		i = diff[2 * i] - 1 - mf->first_block;
	} while (diff[2 * i] && depth < PI_MAP_DIFF_DEPTH);
	uint64_t k = own_count(mf, own, calls, i);
	while (depth--) {
		uint64_t b = own_count(mf, own, calls, diff[2 * chain[depth] + 1] - 1 - mf->first_block);
		k = k > b ? k - b : 0;
	}
	return k;
}

/* Whether the map's tables of derived counts keep, for function g, to
 * g's blocks (the reader checked them against the blocks' functions; a
 * function's range of blocks is another field): checked once a function */
static bool tables_ok(struct conv *c, uint32_t g)
{
	if (c->fstate[g])
		return c->fstate[g] == 1;
	const struct prof_gfunc *f = &c->p->funcs[g];
	const struct pi_map_hdr *m = c->p->objs[f->obj].map;
	const struct pi_map_func *mf = &c->p->objs[f->obj].funcs[f->func];
	bool ok = true;
	if ((m->reserved & PI_MAP_SAME) && m->nsame) {
		const uint32_t *same = (const uint32_t *)((const char *)m + m->same_off);
		const uint32_t *diff = (m->reserved & PI_MAP_DIFF) ? same + m->nsame : NULL;
		const uint32_t *sums = diff && (m->reserved & PI_MAP_SUM) ? same + 3 * (uint64_t)m->nsame + 1 : NULL;
		uint64_t lo = (uint64_t)mf->first_block + 1, hi = lo + mf->nblocks; /* (blocks + 1) */
#define IN(x) ((x) >= lo && (x) < hi)
		for (uint64_t b = lo - 1; ok && b < hi - 1; b++) {
			ok = !same[b] || IN(same[b]);
			if (!ok || !diff)
				continue;
			if (sums && !diff[2 * b] && diff[2 * b + 1]) {
				const uint32_t *grp = sums + diff[2 * b + 1] - 1;
				for (uint32_t j = 1; ok && j <= (grp[0] & ~PI_LIN_GROUP); j++)
					ok = IN(grp[j] & PI_LIN_BLOCK);
			} else if (diff[2 * b]) {
				ok = IN(diff[2 * b]) && IN(diff[2 * b + 1]);
			}
		}
#undef IN
	}
	c->fstate[g] = ok ? 1 : 2;
	return ok;
}

/* Room for n more counts of the walk's path */
static uint64_t *counts_room(struct conv *c, uint64_t n)
{
	if (!c->counts || c->ncounts + n > c->countcap) { /* (none yet: a node of no blocks too) */
		uint64_t cap = c->countcap ? c->countcap : 4096;
		while (cap < c->ncounts + n)
			cap *= 2;
		uint64_t *x = realloc(c->counts, cap * sizeof(*x));
		if (!x)
			return NULL;
		c->counts = x;
		c->countcap = cap;
	}
	return c->counts + c->ncounts;
}

/* Node k's calls, blocks' counts (into the walk's, its level's) and
 * self; its blocks' counts added to the thread's. */
static int cost(struct conv *c, uint32_t k, struct lvl *it, struct lvl *nx, uint64_t *self)
{
	struct cn *n = &c->cn[k];
	const struct profile *p = c->p;
	/* the calls: in its parent's slot of a call site (not a tail
	 * jump's) of an instrumented function, the count of the block
	 * holding the call, whose every run ends in it; else its own */
	const struct cn *pn = &c->cn[n->parent];
	if (n->parent && pn->g != NONE && !(pn->flags & PI_CN_EXTERNAL) && n->slot != NONE) {
		const struct pi_map_func *mf = map_func(p, pn->g);
		if (n->slot < mf->nsites) {
			const struct pi_map_site *s = &p->objs[p->funcs[pn->g].obj].sites[mf->first_site + n->slot];
			if (s->block < mf->first_block || s->block - mf->first_block >= it->ncnt)
				return fail(c, "a call site outside its function");
			n->calls = c->counts[it->cnt + s->block - mf->first_block];
		}
	}
	nx->cnt = c->ncounts;
	nx->ncnt = 0;
	if (n->flags & PI_CN_EXTERNAL) {
		*self = n->calls * n->per_call + n->add;
		return 0;
	}
	const struct prof_gfunc *f = &p->funcs[n->g];
	const struct prof_obj *o = &p->objs[f->obj];
	const struct pi_map_func *mf = &o->funcs[f->func];
	uint32_t nb = mf->nblocks;
	if (!tables_ok(c, n->g))
		return fail(c, "a function's counts are taken from another's blocks");
	/* its own counters, dense, then the counts, in the walk's room */
	uint64_t *own = counts_room(c, 2 * (uint64_t)nb);
	if (!own)
		return oom(c);
	memset(own, 0, nb * sizeof(*own));
	for (uint64_t j = 0; j < n->n; j++)
		own[c->pairs[n->first + j].block] = c->pairs[n->first + j].count;
	uint64_t *cnt = own + nb;
	if (!c->objcounts[f->obj] && !(c->objcounts[f->obj] = calloc(o->map->nblocks ? o->map->nblocks : 1, 8)))
		return oom(c);
	uint64_t *tc = c->objcounts[f->obj] + mf->first_block;
	const struct pi_map_block *b = o->blocks + mf->first_block;
	uint64_t s = n->add;
	for (uint32_t i = 0; i < nb; i++) {
		cnt[i] = derived_count(o->map, mf, own, n->calls, i);
		s += cnt[i] * b[i].cost;
		tc[i] += cnt[i];
	}
	/* (the dense counters are not needed again: the counts move down) */
	memmove(own, cnt, nb * sizeof(*own));
	c->ncounts += nb;
	nx->ncnt = nb;
	*self = s;
	return 0;
}

/* Leave the walk's last level: its time where the timed runtime puts it */
static void leave(struct conv *c)
{
	struct lvl *it = &c->lv[c->depth - 1];
	if (it->edge != NONE)
		c->on[it->edge].incl += it->sub;
	else if (it->outermost)
		c->on[it->own].incl += it->sub;
	const struct cn *n = &c->cn[it->n];
	if (it->outermost && n->g != NONE && !(n->flags & PI_CN_UNTRACKED))
		c->onpath[n->g] = NONE;
	if (c->depth > 1)
		c->lv[c->depth - 2].sub += it->sub;
	c->ncounts = it->cnt;
	c->depth--;
}

static int walk(struct conv *c)
{
	c->oncap = 1024;
	c->on = malloc(c->oncap * sizeof(*c->on));
	if (!c->on)
		return oom(c);
	c->non = 1;
	c->on[0] = (struct on){.g = NONE, .parent = NONE, .first_child = NONE, .next_sibling = NONE, .alias = NONE};
	c->lvcap = 64;
	c->lv = malloc(c->lvcap * sizeof(*c->lv));
	if (!c->lv)
		return oom(c);
	c->lv[0] = (struct lvl){.n = 0, .to = 0, .own = 0, .edge = NONE};
	c->depth = 1;
	for (uint64_t kk = 1; kk < c->ncn; kk++) {
		uint32_t k = (uint32_t)kk;
		const struct cn *n = &c->cn[k];
		while (c->depth > 1 && c->lv[c->depth - 1].n != n->parent)
			leave(c);
		if (c->lv[c->depth - 1].n != n->parent)
			return fail(c, "a node whose parent is not on its path");
		if (c->depth == c->lvcap) {
			struct lvl *l = realloc(c->lv, 2 * c->lvcap * sizeof(*l));
			if (!l)
				return oom(c);
			c->lv = l;
			c->lvcap *= 2;
		}
		struct lvl *it = &c->lv[c->depth - 1], *nx = &c->lv[c->depth];
		if (n->g == NONE) {
			*nx = (struct lvl){.n = k, .spliced = true, .to = it->to, .own = it->own, .edge = NONE,
					   .cnt = c->ncounts};
			c->depth++;
			continue;
		}
		uint64_t self;
		if (cost(c, k, it, nx, &self))
			return -1;
		uint32_t anc = n->flags & PI_CN_UNTRACKED ? NONE : c->onpath[n->g];
		uint64_t ra = node_ra(c, k);
		nx->n = k;
		nx->spliced = nx->outermost = false;
		nx->edge = NONE;
		nx->sub = self;
		if (anc != NONE && c->on[anc].parent == it->to && c->on[anc].ra == ra && c->on[anc].alias == NONE) {
			/* under a recursive call, which went on from its
			 * ancestor's node, a call that node made before: that
			 * node again, as the timed runtime finds it */
			nx->own = nx->to = anc;
		} else if (anc != NONE) {
			/* a recursive call: an edge to the ancestor, which takes it */
			uint32_t e = child(c, it->to, n->g, ra, anc);
			if (e == NONE)
				return oom(c);
			nx->edge = e;
			c->on[e].calls += n->calls;
			c->on[anc].rec_calls += n->calls;
			nx->own = nx->to = anc;
		} else {
			uint32_t x = child(c, it->to, n->g, ra, NONE);
			if (x == NONE)
				return oom(c);
			nx->own = nx->to = x;
			nx->outermost = true;
			if (!(n->flags & PI_CN_UNTRACKED))
				c->onpath[n->g] = x;
		}
		struct on *o = &c->on[nx->own];
		o->calls += n->calls;
		o->self += self;
		o->os += n->os;
		o->os_left += n->os_left;
		c->depth++;
	}
	while (c->depth > 1)
		leave(c);
	c->on[0].incl = c->lv[0].sub;
	return 0;
}

/* Preorder, as the timed runtime writes its tree */
static uint32_t next_on(const struct conv *c, uint32_t n)
{
	if (c->on[n].first_child != NONE)
		return c->on[n].first_child;
	while (n != 0) {
		if (c->on[n].next_sibling != NONE)
			return c->on[n].next_sibling;
		n = c->on[n].parent;
	}
	return NONE;
}

static void ids(const struct profile *p, uint32_t g, uint32_t *obj, uint32_t *func)
{
	*obj = g == NONE ? NONE : p->funcs[g].obj;
	*func = g == NONE ? NONE : p->funcs[g].func;
}

/* The THREAD record's payload and the COUNTS records, in memory owned */
static int emit(struct conv *c, const struct pi_prof_cthread *h, struct prof_thread *pt, struct ctree_out *out)
{
	const struct profile *p = c->p;
	uint64_t nnodes = 0, nrec = 0;
	for (uint32_t n = 0; n != NONE; n = next_on(c, n)) {
		if (c->on[n].alias != NONE)
			nrec++;
		else
			c->on[n].index = (uint32_t)nnodes++;
	}
	uint64_t size = sizeof(struct pi_prof_thread) + nnodes * sizeof(struct pi_prof_node) +
			nrec * sizeof(struct pi_prof_recedge);
	uint8_t *buf = calloc(1, size);
	if (!buf)
		return oom(c);
	out->thread = buf;
	struct pi_prof_thread *t = (void *)buf;
	*t = (struct pi_prof_thread){.index = h->index, .tid = h->tid, .nnodes = (uint32_t)nnodes,
				     .nrec = (uint32_t)nrec, .clock = c->on[0].incl};
	struct pi_prof_node *nd = (void *)(buf + sizeof(*t));
	struct pi_prof_recedge *re = (void *)(nd + nnodes);
	for (uint32_t n = 0; n != NONE; n = next_on(c, n)) {
		const struct on *o = &c->on[n];
		if (o->alias != NONE) {
			*re = (struct pi_prof_recedge){.node = c->on[o->alias].index, .ret_addr = o->ra,
						       .calls = o->calls, .incl = o->incl,
						       .caller_node = c->on[o->parent].index};
			ids(p, c->on[o->parent].g, &re->caller_obj, &re->caller_func);
			re++;
			continue;
		}
		*nd = (struct pi_prof_node){.parent = n ? c->on[o->parent].index : NONE, .ret_addr = o->ra,
					    .calls = o->calls, .rec_calls = o->rec_calls, .self = o->self,
					    .incl = o->incl, .os = o->os, .os_left = o->os_left};
		ids(p, o->g, &nd->obj, &nd->func);
		nd++;
	}
	pt->hdr = t;
	pt->nodes = (const void *)(buf + sizeof(*t));
	pt->recs = (const void *)((const uint8_t *)pt->nodes + nnodes * sizeof(struct pi_prof_node));
	/* the objects counted in, each a COUNTS record as the runtime writes them */
	out->ncounts = 0;
	for (uint32_t i = 0; i < p->nobjs; i++)
		out->ncounts += c->objcounts[i] != NULL;
	out->counts = calloc(out->ncounts ? out->ncounts : 1, sizeof(*out->counts));
	if (!out->counts)
		return oom(c);
	uint64_t k = 0;
	for (uint32_t i = 0; i < p->nobjs; i++) {
		if (!c->objcounts[i])
			continue;
		uint64_t nb = p->objs[i].map->nblocks;
		uint8_t *r = malloc(sizeof(struct pi_prof_rec) + 8 + 8 * nb);
		if (!r)
			return oom(c);
		out->counts[k++] = r;
		struct pi_prof_rec rec = {.tag = PI_REC_COUNTS, .size = 8 + 8 * nb};
		uint32_t hdr[2] = {i, h->index};
		memcpy(r, &rec, sizeof(rec));
		memcpy(r + sizeof(rec), hdr, sizeof(hdr));
		memcpy(r + sizeof(rec) + 8, c->objcounts[i], 8 * nb);
	}
	return 0;
}

int ctree_convert(const struct profile *p, const uint8_t *pl, uint64_t size, struct prof_thread *pt,
		  struct ctree_out *out, char *err, size_t errsz)
{
	memset(out, 0, sizeof(*out));
	struct pi_prof_cthread h;
	if (size < sizeof(h)) {
		snprintf(err, errsz, "bad counting tree record");
		return -1;
	}
	memcpy(&h, pl, sizeof(h));
	struct conv c = {.p = p, .err = err, .errsz = errsz};
	int r = -1;
	c.onpath = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*c.onpath));
	c.objcounts = calloc(p->nobjs ? p->nobjs : 1, sizeof(*c.objcounts));
	c.fstate = calloc(p->nfuncs ? p->nfuncs : 1, 1);
	if (!c.onpath || !c.objcounts || !c.fstate) {
		oom(&c);
		goto out;
	}
	memset(c.onpath, 0xff, (p->nfuncs ? p->nfuncs : 1) * sizeof(*c.onpath));
	if (h.reserved)
		fail(&c, "unknown flags");
	else if (!decode(&c, pl + sizeof(h), pl + size, h.nnodes) && !walk_order(&c) && !walk(&c) && !emit(&c, &h, pt, out))
		r = 0;
out:
	if (r) {
		ctree_free(out);
		memset(pt, 0, sizeof(*pt));
	}
	for (uint32_t i = 0; c.objcounts && i < p->nobjs; i++)
		free(c.objcounts[i]);
	free(c.objcounts);
	free(c.onpath);
	free(c.fstate);
	free(c.cn);
	free(c.pairs);
	free(c.on);
	free(c.lv);
	free(c.counts);
	return r;
}

void ctree_free(struct ctree_out *out)
{
	for (uint64_t i = 0; out->counts && i < out->ncounts; i++)
		free(out->counts[i]);
	free(out->counts);
	free(out->thread);
	memset(out, 0, sizeof(*out));
}
