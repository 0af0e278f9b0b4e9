/* SPDX-License-Identifier: MIT */
#include "views.h"

#include <stdlib.h>
#include <string.h>

static int add_caller(struct func_view *v, uint32_t caller, uint64_t calls, uint64_t incl)
{
	for (uint32_t i = 0; i < v->ncallers; i++)
		if (v->callers[i].caller == caller) {
			v->callers[i].calls += calls;
			v->callers[i].incl += incl;
			return 0;
		}
	if (v->ncallers == v->callercap) {
		uint32_t nc = v->callercap ? v->callercap * 2 : 4;
		void *np = realloc(v->callers, nc * sizeof(*v->callers));
		if (!np)
			return -1;
		v->callers = np;
		v->callercap = nc;
	}
	v->callers[v->ncallers++] = (struct caller_rec){caller, calls, incl};
	return 0;
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
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			uint32_t g = prof_gfunc(p, nd->obj, nd->func);
			gof[n] = g;
			struct func_view *v = &t->f[g];
			v->calls += nd->calls;
			v->rec_calls += nd->rec_calls;
			v->self += nd->self;
			/* nodes of one function never nest: their incl add up */
			v->incl += nd->incl;
			if (nd->calls && nd->min_self < v->min_self)
				v->min_self = nd->min_self;
			if (nd->max_self > v->max_self)
				v->max_self = nd->max_self;
			t->total_self += nd->self;
			if (add_caller(v, gof[nd->parent], nd->calls - nd->rec_calls, nd->incl)) {
				free(gof);
				return -1;
			}
		}
		for (uint32_t k = 0; k < th->hdr->nrec; k++) {
			const struct pi_prof_recedge *re = &th->recs[k];
			struct func_view *v = &t->f[gof[re->node]];
			if (add_caller(v, prof_gfunc(p, re->caller_obj, re->caller_func), re->calls, re->incl)) {
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
		for (uint32_t b = mf->first_block; b < mf->first_block + mf->nblocks; b++) {
			v->block_cycles += o->counts[b] * o->blocks[b].cost;
			v->block_execs += o->counts[b];
		}
	}
	return 0;
}

void func_table_free(struct func_table *t)
{
	for (uint32_t g = 0; g < t->n; g++)
		free(t->f[g].callers);
	free(t->f);
	memset(t, 0, sizeof(*t));
}
