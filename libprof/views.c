/* SPDX-License-Identifier: MIT */
#include "views.h"

#include <stdlib.h>
#include <string.h>

static int add_arc(struct arc **v, uint32_t *n, uint32_t *cap, uint32_t other, uint64_t calls,
		   uint64_t self, uint64_t incl, uint64_t rec_incl)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*v)[i].other == other) {
			(*v)[i].calls += calls;
			(*v)[i].self += self;
			(*v)[i].incl += incl;
			(*v)[i].rec_incl += rec_incl;
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
	(*v)[(*n)++] = (struct arc){other, calls, self, incl, rec_incl};
	return 0;
}

/* caller -> callee; caller may be UINT32_MAX (the root) */
static int add_edge(struct func_table *t, uint32_t caller, uint32_t callee, uint64_t calls, uint64_t self,
		    uint64_t incl, uint64_t rec_incl)
{
	struct func_view *e = &t->f[callee];
	if (add_arc(&e->callers, &e->ncallers, &e->callercap, caller, calls, self, incl, rec_incl))
		return -1;
	if (caller == UINT32_MAX)
		return 0;
	struct func_view *r = &t->f[caller];
	return add_arc(&r->callees, &r->ncallees, &r->calleecap, callee, calls, self, incl, rec_incl);
}

int func_table_build(struct func_table *t, const struct profile *p)
{
	memset(t, 0, sizeof(*t));
	t->n = p->nfuncs;
	t->f = calloc(t->n ? t->n : 1, sizeof(*t->f));
	if (!t->f)
		return -1;
	for (uint32_t g = 0; g < t->n; g++) {
		t->f[g].g = g;
		t->f[g].min_self = UINT64_MAX;
	}
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		uint32_t *gof = malloc(th->hdr->nnodes * sizeof(uint32_t));
		if (!gof)
			return -1;
		gof[0] = UINT32_MAX;
		if (th->hdr->nnodes)
			t->total_faults += th->nodes[0].faults;
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			uint32_t g = prof_gfunc(p, nd->obj, nd->func);
			gof[n] = g;
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
			/* nodes of one function never nest: their incl add up */
			v->incl += nd->incl;
			if (nd->calls && nd->min_self < v->min_self)
				v->min_self = nd->min_self;
			if (nd->max_self > v->max_self)
				v->max_self = nd->max_self;
			t->total_self += nd->self;
			if (add_edge(t, gof[nd->parent], g, nd->calls - nd->rec_calls, nd->self, nd->incl, 0)) {
				free(gof);
				return -1;
			}
		}
		for (uint32_t k = 0; k < th->hdr->nrec; k++) {
			const struct pi_prof_recedge *re = &th->recs[k];
			if (add_edge(t, prof_gfunc(p, re->caller_obj, re->caller_func), gof[re->node], re->calls, 0, 0,
				     re->incl)) {
				free(gof);
				return -1;
			}
		}
		free(gof);
	}
	for (uint32_t g = 0; g < t->n; g++) {
		struct func_view *v = &t->f[g];
		if (v->min_self == UINT64_MAX)
			v->min_self = 0;
		const struct prof_gfunc *gf = &p->funcs[g];
		const struct prof_obj *o = &p->objs[gf->obj];
		const struct pi_map_func *mf = &o->funcs[gf->func];
		uint64_t waits = 0;
		for (uint32_t b = mf->first_block; b < mf->first_block + mf->nblocks; b++) {
			v->block_cycles += o->counts[b] * o->blocks[b].cost / o->map->units;
			v->block_execs += o->counts[b];
			if (o->mispredicts) {
				v->mispredicts += o->mispredicts[b];
				waits += o->mem_waits[b];
			}
		}
		v->mispredict_cycles = v->mispredicts * o->map->mispredict / o->map->units;
		v->mem_wait_cycles = waits / o->map->units;
	}
	return 0;
}

void func_table_free(struct func_table *t)
{
	for (uint32_t g = 0; g < t->n; g++) {
		free(t->f[g].callers);
		free(t->f[g].callees);
	}
	free(t->f);
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

static int cycle_arc(struct arc **v, uint32_t *n, uint32_t *cap, uint32_t other, uint64_t calls, uint64_t self,
		     uint64_t incl)
{
	return add_arc(v, n, cap, other, calls, self, incl, 0);
}

int cycles_build(struct cycle_table *ct, const struct profile *p, const struct func_table *t)
{
	memset(ct, 0, sizeof(*ct));
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
		uint32_t *m = realloc(cy->members, (cy->nmembers + 1) * sizeof(uint32_t));
		if (!m) {
			free(cyc);
			goto fail;
		}
		cy->members = m;
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
		uint64_t *under = calloc(nn, sizeof(uint64_t));
		if (!gof || !entry || !under) {
			free(gof), free(entry), free(under);
			goto fail;
		}
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
				struct cycle *cy = &ct->c[ct->cycle_of[pg] - 1];
				if (cycle_arc(&cy->children, &cy->nchildren, &cy->childcap, g,
					      nd->calls - nd->rec_calls, nd->self, nd->incl))
					goto fail_thread;
			}
			if (c && pg != UINT32_MAX && ct->cycle_of[pg] == c)
				ct->c[c - 1].internal += nd->calls - nd->rec_calls;
			continue;
fail_thread:
			free(gof), free(entry), free(under);
			goto fail;
		}
		for (uint32_t k = 1; k < nn; k++) {
			if (entry[k] != k)
				continue;
			const struct pi_prof_node *nd = &th->nodes[k];
			struct cycle *cy = &ct->c[ct->cycle_of[gof[k]] - 1];
			cy->calls += nd->calls - nd->rec_calls;
			cy->incl += nd->incl;
			if (cycle_arc(&cy->parents, &cy->nparents, &cy->parentcap, gof[nd->parent],
				      nd->calls - nd->rec_calls, under[k], nd->incl)) {
				free(gof), free(entry), free(under);
				goto fail;
			}
		}
		for (uint32_t r = 0; r < th->hdr->nrec; r++) {
			const struct pi_prof_recedge *re = &th->recs[r];
			uint32_t g = gof[re->node], c = ct->cycle_of[g];
			if (c && ct->cycle_of[prof_gfunc(p, re->caller_obj, re->caller_func)] == c)
				ct->c[c - 1].internal += re->calls;
		}
		free(gof), free(entry), free(under);
	}
	free(comp);
	free(size);
	return 0;
fail:
	free(comp);
	free(size);
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
