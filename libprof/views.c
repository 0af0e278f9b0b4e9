/* SPDX-License-Identifier: MIT */
#include "views.h"
#include "ixmap.h"

#include <stdlib.h>
#include <string.h>

/* Where each arc is in its list (an ix_map), so that adding to an arc is
 * O(1) however many arcs a cycle has.  Keys are (list, other): a list is
 * a cycle's parents (2c) or its children (2c + 1); other may be
 * UINT32_MAX (the root).  An arc is appended on first sight: a list keeps
 * the order its arcs were first met in. */
static int add_arc(struct ix_map *m, uint32_t list, struct arc **v, uint32_t *n, uint32_t *cap, uint32_t other,
		   uint64_t calls, uint64_t rec_calls, uint64_t self, uint64_t incl)
{
	uint32_t at = ix_map_get(m, list, other);
	if (at != UINT32_MAX) {
		struct arc *a = &(*v)[at];
		a->calls += calls;
		a->rec_calls += rec_calls;
		a->self += self;
		a->incl += incl;
		return 0;
	}
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 4;
		void *np = realloc(*v, nc * sizeof(**v));
		if (!np)
			return -1;
		*v = np;
		*cap = nc;
	}
	if (ix_map_put(m, list, other, *n))
		return -1;
	(*v)[(*n)++] = (struct arc){other, calls, rec_calls, self, incl};
	return 0;
}

/* A call of the calling-context trees, callee's time on it: the arcs of
 * both its ends, once calls of the same pair are summed. */
struct edge {
	uint32_t caller, callee; /* caller: UINT32_MAX for the root */
	uint64_t calls, rec_calls, self, incl;
};

struct edges {
	struct edge *v;
	size_t n, cap;
};

static int push_edge(struct edges *es, uint32_t caller, uint32_t callee, uint64_t calls, uint64_t rec_calls,
		     uint64_t self, uint64_t incl)
{
	if (es->n == es->cap) {
		size_t nc = es->cap ? 2 * es->cap : 1024;
		struct edge *nv = realloc(es->v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		es->v = nv;
		es->cap = nc;
	}
	es->v[es->n++] = (struct edge){caller, callee, calls, rec_calls, self, incl};
	return 0;
}

/* Every function's callers (or callees) from the edges: its edges in
 * their order (a stable counting sort by function), summed by the other
 * end through a table indexed by function, so that each list keeps the
 * order its arcs were first met in.  No search, no hashing: O(edges +
 * functions). */
static int group_arcs(struct func_table *t, const struct edges *es, bool callers)
{
	uint32_t n = t->n;
	uint32_t *first = calloc((size_t)n + 2, sizeof(uint32_t)), *order = malloc((es->n ? es->n : 1) * sizeof(uint32_t));
	/* per other end (0: the root, g + 1: function g): its arc's index in
	 * the list of owner, the function whose list is being made */
	uint32_t *slot = malloc(((size_t)n + 1) * sizeof(uint32_t)), *owner = malloc(((size_t)n + 1) * sizeof(uint32_t));
	int rc = -1;
	if (!first || !order || !slot || !owner)
		goto out;
	for (size_t i = 0; i < es->n; i++) {
		uint32_t k = callers ? es->v[i].callee : es->v[i].caller;
		if (k != UINT32_MAX)
			first[k + 2]++;
	}
	for (uint32_t g = 0; g < n; g++)
		first[g + 2] += first[g + 1];
	for (size_t i = 0; i < es->n; i++) {
		uint32_t k = callers ? es->v[i].callee : es->v[i].caller;
		if (k != UINT32_MAX)
			order[first[k + 1]++] = (uint32_t)i;
	}
	/* now first[g] .. first[g + 1]: g's edges */
	memset(owner, 0xff, ((size_t)n + 1) * sizeof(uint32_t));
	for (uint32_t g = 0; g < n; g++) {
		struct func_view *v = &t->f[g];
		struct arc **list = callers ? &v->callers : &v->callees;
		uint32_t *len = callers ? &v->ncallers : &v->ncallees, *cap = callers ? &v->callercap : &v->calleecap;
		for (uint32_t j = first[g]; j < first[g + 1]; j++) {
			const struct edge *e = &es->v[order[j]];
			uint32_t other = callers ? e->caller : e->callee, o = other + 1; /* (the root: 0) */
			if (owner[o] == g) {
				struct arc *a = &(*list)[slot[o]];
				a->calls += e->calls;
				a->rec_calls += e->rec_calls;
				a->self += e->self;
				a->incl += e->incl;
				continue;
			}
			if (*len == *cap) {
				uint32_t nc = *cap ? *cap * 2 : 4;
				struct arc *na = realloc(*list, nc * sizeof(*na));
				if (!na)
					goto out;
				*list = na;
				*cap = nc;
			}
			owner[o] = g;
			slot[o] = *len;
			(*list)[(*len)++] = (struct arc){other, e->calls, e->rec_calls, e->self, e->incl};
		}
	}
	rc = 0;
out:
	free(first), free(order), free(slot), free(owner);
	return rc;
}

void prof_subtree(const struct prof_thread *th, uint64_t *cum)
{
	uint32_t nn = th->hdr->nnodes;
	cum[0] = 0;
	for (uint32_t n = 1; n < nn; n++)
		cum[n] = th->nodes[n].self;
	/* parents come first: children are summed into them from the end */
	for (uint32_t n = nn; n-- > 1;)
		cum[th->nodes[n].parent] += cum[n];
}

uint64_t prof_map_units(const struct profile *p, const struct prof_obj *o, uint64_t x)
{
	uint32_t mu = o->map->units ? o->map->units : 1;
	if (mu == p->units)
		return x;
	/* a profile in whole cycles (or objects of different models) */
	return (uint64_t)(((unsigned __int128)x * p->units + mu / 2) / mu);
}

uint64_t prof_block_cycles(const struct profile *p, const struct prof_obj *o, uint32_t b)
{
	return prof_map_units(p, o, o->counts[b] * o->blocks[b].cost);
}

void prof_blocks_init(struct prof_blocks *w, const struct profile *p, uint32_t g)
{
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->o = &p->objs[p->funcs[g].obj];
	w->f = &w->o->funcs[p->funcs[g].func];
	w->next = w->f->first_block;
}

bool prof_blocks_next(struct prof_blocks *w)
{
	const struct prof_obj *o = w->o;
	if (w->next >= w->f->first_block + w->f->nblocks)
		return false;
	uint32_t b = w->b = w->next++;
	w->bl = &o->blocks[b];
	w->count = o->counts[b];
	w->cycles = prof_block_cycles(w->p, o, b);
	w->mispredicts = o->mispredicts ? o->mispredicts[b] : 0;
	w->mispredict_cycles = prof_map_units(w->p, o, w->mispredicts * o->map->mispredict);
	w->mem_wait_cycles = o->mem_waits ? prof_map_units(w->p, o, o->mem_waits[b]) : 0;
	return true;
}

int func_table_build(struct func_table *t, const struct profile *p)
{
	return func_table_build_under(t, p, UINT32_MAX);
}

static int build_table(struct func_table *t, const struct profile *p, uint32_t root, struct edges *es)
{
	t->n = p->nfuncs;
	t->units = p->units ? p->units : 1;
	t->root = root;
	t->nthreads = p->nthreads;
	t->f = calloc(t->n ? t->n : 1, sizeof(*t->f));
	t->thread_self = calloc(p->nthreads ? p->nthreads : 1, sizeof(uint64_t));
	if (!t->f || !t->thread_self)
		return -1;
	for (uint32_t g = 0; g < t->n; g++) {
		t->f[g].g = g;
		t->f[g].min_self = UINT64_MAX;
	}
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		uint32_t nn = th->hdr->nnodes;
		uint32_t *gof = malloc(nn * sizeof(uint32_t));
		uint64_t *cum = malloc(nn * sizeof(uint64_t));
		bool *in = malloc(nn * sizeof(bool));
		if (!gof || !cum || !in) {
			free(gof), free(cum), free(in);
			return -1;
		}
		prof_subtree(th, cum);
		gof[0] = UINT32_MAX;
		in[0] = root == UINT32_MAX;
		if (in[0])
			t->total_faults += th->nodes[0].faults;
		for (uint32_t n = 1; n < nn; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			uint32_t g = prof_gfunc(p, nd->obj, nd->func);
			gof[n] = g;
			in[n] = in[nd->parent] || g == root;
			if (!in[n])
				continue;
			struct func_view *v = &t->f[g];
			v->calls += nd->calls;
			v->rec_calls += nd->rec_calls;
			v->self += nd->self;
			v->os += nd->os;
			v->os_left += nd->os_left;
			v->faults += nd->faults;
			t->total_faults += nd->faults;
			t->total_os += nd->os;
			t->total_os_left += nd->os_left;
			/* nodes of one function never nest: their subtrees add up */
			v->incl += cum[n];
			if (nd->calls && nd->min_self < v->min_self)
				v->min_self = nd->min_self;
			if (nd->max_self > v->max_self)
				v->max_self = nd->max_self;
			t->total_self += nd->self;
			t->thread_self[ti] += nd->self;
			uint32_t caller = g == root ? UINT32_MAX : gof[nd->parent];
			if (push_edge(es, caller, g, nd->calls - nd->rec_calls, 0, nd->self, cum[n])) {
				free(gof), free(cum), free(in);
				return -1;
			}
		}
		for (uint32_t k = 0; k < th->hdr->nrec; k++) {
			const struct pi_prof_recedge *re = &th->recs[k];
			if (!in[re->node] || !in[re->caller_node])
				continue;
			if (push_edge(es, prof_gfunc(p, re->caller_obj, re->caller_func), gof[re->node], re->calls,
				      re->calls, 0, 0)) {
				free(gof), free(cum), free(in);
				return -1;
			}
		}
		free(gof), free(cum), free(in);
	}
	for (uint32_t g = 0; g < t->n; g++) {
		struct func_view *v = &t->f[g];
		if (v->min_self == UINT64_MAX)
			v->min_self = 0;
		/* the sums of its blocks' figures as the block views show them */
		struct prof_blocks w;
		for (prof_blocks_init(&w, p, g); prof_blocks_next(&w);) {
			v->block_cycles += w.cycles;
			v->block_execs += w.count;
			v->mispredicts += w.mispredicts;
			v->mispredict_cycles += w.mispredict_cycles;
			v->mem_wait_cycles += w.mem_wait_cycles;
		}
	}
	return 0;
}

int func_table_build_under(struct func_table *t, const struct profile *p, uint32_t root)
{
	memset(t, 0, sizeof(*t));
	struct edges es = {0};
	int rc = build_table(t, p, root, &es);
	if (!rc)
		rc = group_arcs(t, &es, true) || group_arcs(t, &es, false) ? -1 : 0;
	free(es.v);
	return rc;
}

void func_table_free(struct func_table *t)
{
	for (uint32_t g = 0; g < t->n; g++) {
		free(t->f[g].callers);
		free(t->f[g].callees);
	}
	free(t->f);
	free(t->thread_self);
	memset(t, 0, sizeof(*t));
}

/* Strongly connected components of the call graph (Tarjan, iterative). */
static int find_sccs(const struct func_table *t, uint32_t *comp, uint32_t *ncomp)
{
	uint32_t n = t->n;
	uint32_t *index = malloc((n ? n : 1) * sizeof(uint32_t)), *low = malloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(uint32_t)), *cs = malloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t *ci = malloc((n ? n : 1) * sizeof(uint32_t));
	bool *on = calloc(n ? n : 1, sizeof(bool));
	if (!index || !low || !stack || !cs || !ci || !on) {
		free(index), free(low), free(stack), free(cs), free(ci), free(on);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		index[i] = UINT32_MAX;
	uint32_t next = 0, sp = 0, nc = 0;
	*ncomp = 0;
	for (uint32_t root = 0; root < n; root++) {
		if (index[root] != UINT32_MAX || !t->f[root].calls)
			continue;
		uint32_t depth = 0;
		cs[depth] = root, ci[depth] = 0, depth++;
		index[root] = low[root] = next++;
		stack[sp++] = root, on[root] = true;
		while (depth) {
			uint32_t v = cs[depth - 1];
			const struct func_view *fv = &t->f[v];
			if (ci[depth - 1] < fv->ncallees) {
				uint32_t w = fv->callees[ci[depth - 1]++].other;
				if (index[w] == UINT32_MAX) {
					index[w] = low[w] = next++;
					stack[sp++] = w, on[w] = true;
					cs[depth] = w, ci[depth] = 0, depth++;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				uint32_t w;
				do {
					w = stack[--sp];
					on[w] = false;
					comp[w] = nc;
				} while (w != v);
				nc++;
			}
			depth--;
			if (depth && low[v] < low[cs[depth - 1]])
				low[cs[depth - 1]] = low[v];
		}
	}
	*ncomp = nc;
	free(index), free(low), free(stack), free(cs), free(ci), free(on);
	return 0;
}

/* An arc of cycle c (its index in ct->c): to a parent, or else a child. */
static int cycle_arc(struct ix_map *m, struct cycle *cy, uint32_t c, bool parent, uint32_t other, uint64_t calls,
		     uint64_t self, uint64_t incl)
{
	if (parent)
		return add_arc(m, 2 * c, &cy->parents, &cy->nparents, &cy->parentcap, other, calls, 0, self, incl);
	return add_arc(m, 2 * c + 1, &cy->children, &cy->nchildren, &cy->childcap, other, calls, 0, self, incl);
}

int cycles_build(struct cycle_table *ct, const struct profile *p, const struct func_table *t)
{
	memset(ct, 0, sizeof(*ct));
	struct ix_map m = {0};
	uint32_t n = t->n, ncomp;
	uint32_t *comp = malloc((n ? n : 1) * sizeof(uint32_t)), *size = NULL;
	ct->cycle_of = calloc(n ? n : 1, sizeof(uint32_t));
	if (!comp || !ct->cycle_of || find_sccs(t, comp, &ncomp))
		goto fail;
	size = calloc(ncomp ? ncomp : 1, sizeof(uint32_t));
	uint32_t *cyc = malloc((ncomp ? ncomp : 1) * sizeof(uint32_t));
	if (!size || !cyc) {
		free(cyc);
		goto fail;
	}
	for (uint32_t g = 0; g < n; g++)
		if (t->f[g].calls)
			size[comp[g]]++;
	for (uint32_t k = 0; k < ncomp; k++)
		cyc[k] = size[k] > 1 ? ++ct->n : 0;
	ct->c = calloc(ct->n ? ct->n : 1, sizeof(struct cycle));
	if (!ct->c) {
		free(cyc);
		goto fail;
	}
	for (uint32_t g = 0; g < n; g++) {
		if (!t->f[g].calls || !cyc[comp[g]])
			continue;
		uint32_t c = cyc[comp[g]];
		ct->cycle_of[g] = c;
		struct cycle *cy = &ct->c[c - 1];
		/* sized at once: a cycle may hold most of a program */
		if (!cy->members && !(cy->members = malloc(size[comp[g]] * sizeof(uint32_t)))) {
			free(cyc);
			goto fail;
		}
		cy->members[cy->nmembers++] = g;
		cy->self += t->f[g].self;
	}
	free(cyc);
	/* entries, their parents and the members' selves under them; the
	 * arcs out of the cycle */
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		uint32_t nn = th->hdr->nnodes;
		uint32_t *gof = malloc(nn * sizeof(uint32_t)), *entry = malloc(nn * sizeof(uint32_t));
		uint64_t *under = calloc(nn, sizeof(uint64_t)), *cum = malloc(nn * sizeof(uint64_t));
		if (!gof || !entry || !under || !cum) {
			free(gof), free(entry), free(under), free(cum);
			goto fail;
		}
		prof_subtree(th, cum);
		gof[0] = UINT32_MAX;
		entry[0] = UINT32_MAX;
		for (uint32_t k = 1; k < nn; k++) {
			const struct pi_prof_node *nd = &th->nodes[k];
			uint32_t g = gof[k] = prof_gfunc(p, nd->obj, nd->func);
			uint32_t par = nd->parent, pg = gof[par];
			uint32_t c = ct->cycle_of[g];
			entry[k] = UINT32_MAX;
			if (c) {
				if (pg != UINT32_MAX && ct->cycle_of[pg] == c)
					entry[k] = entry[par];
				else
					entry[k] = k; /* enters the cycle */
				under[entry[k]] += nd->self;
			}
			if (pg != UINT32_MAX && ct->cycle_of[pg] && ct->cycle_of[pg] != c) {
				uint32_t pc = ct->cycle_of[pg] - 1;
				if (cycle_arc(&m, &ct->c[pc], pc, false, g,
					      nd->calls - nd->rec_calls, nd->self, cum[k]))
					goto fail_thread;
			}
			if (c && pg != UINT32_MAX && ct->cycle_of[pg] == c)
				ct->c[c - 1].internal += nd->calls - nd->rec_calls;
			continue;
fail_thread:
			free(gof), free(entry), free(under), free(cum);
			goto fail;
		}
		for (uint32_t k = 1; k < nn; k++) {
			if (entry[k] != k)
				continue;
			const struct pi_prof_node *nd = &th->nodes[k];
			uint32_t c = ct->cycle_of[gof[k]] - 1;
			struct cycle *cy = &ct->c[c];
			cy->calls += nd->calls - nd->rec_calls;
			cy->incl += cum[k];
			if (cycle_arc(&m, cy, c, true, gof[nd->parent],
				      nd->calls - nd->rec_calls, under[k], cum[k])) {
				free(gof), free(entry), free(under), free(cum);
				goto fail;
			}
		}
		for (uint32_t r = 0; r < th->hdr->nrec; r++) {
			const struct pi_prof_recedge *re = &th->recs[r];
			uint32_t g = gof[re->node], c = ct->cycle_of[g];
			if (c && ct->cycle_of[prof_gfunc(p, re->caller_obj, re->caller_func)] == c)
				ct->c[c - 1].internal += re->calls;
		}
		free(gof), free(entry), free(under), free(cum);
	}
	free(comp);
	free(size);
	ix_map_free(&m);
	return 0;
fail:
	free(comp);
	free(size);
	ix_map_free(&m);
	cycles_free(ct);
	return -1;
}

void cycles_free(struct cycle_table *ct)
{
	for (uint32_t i = 0; i < ct->n && ct->c; i++) {
		free(ct->c[i].members);
		free(ct->c[i].parents);
		free(ct->c[i].children);
	}
	free(ct->c);
	free(ct->cycle_of);
	memset(ct, 0, sizeof(*ct));
}
