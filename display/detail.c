/* SPDX-License-Identifier: MIT */
/* profview detail: one function, its callers and callees each with its
 * share of the function's time, and the call sites. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "decode.h"
#include "ixmap.h"
#include "inlines.h"

static const char detail_usage[] =
	"Usage: profview detail PROFILE FUNCTION\n"
	"\n"
	"Object, section, calls, self (cycles and share of the total),\n"
	"self+descendants, mean self per call (and min/max, where profinst\n"
	"--timed kept them); then its callers and callees\n"
	"with their calls and the share of FUNCTION's self+descendants time each\n"
	"accounts for, and every call site (caller+0xoffset) it was called from;\n"
	"then the calls the compiler inlined into it (where its objects were\n"
	"compiled with -g), each with the cycles of its code and their share of\n"
	"FUNCTION's self, innermost first: \"mix (t.c:14) in step (t.c:21)\" is\n"
	"mix inlined at t.c:14 into step, itself inlined at t.c:21.\n";

/* calls from one place: a return address, and the caller (a function
 * that jumped here shares its own caller's return address) */
struct site_count {
	uint64_t ra, calls, incl;
	uint32_t caller;
	uint64_t caller_ra;
};

static int by_calls(const void *a, const void *b)
{
	const struct site_count *x = a, *y = b;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return (x->ra > y->ra) - (x->ra < y->ra);
}

/* The index in s of the call site (ra, caller), added if new; SIZE_MAX
 * after a message, out of memory. */
static size_t site_of(struct site_count **s, size_t *ns, size_t *cap, struct ix_map *at, uint64_t ra,
		      uint32_t caller, uint64_t caller_ra)
{
	uint32_t i = ix_map_get(at, ra, caller);
	if (i != UINT32_MAX)
		return i;
	if (*ns == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct site_count *n = realloc(*s, nc * sizeof(**s));
		if (!n) {
			pv_error("out of memory");
			return SIZE_MAX;
		}
		*s = n;
		*cap = nc;
	}
	if (ix_map_put(at, ra, caller, (uint32_t)*ns)) {
		pv_error("out of memory");
		return SIZE_MAX;
	}
	(*s)[*ns] = (struct site_count){ra, 0, 0, caller, caller_ra};
	return (*ns)++;
}

/* The calls inlined into g: the cycles of their code (with what is
 * inlined into them), as a share of its self. */
static void show_inlined(const struct profile *p, const struct x86_decoder *dx, const struct func_view *v,
			 uint32_t g)
{
	struct pv_inlines is = {0};
	if (!pv_inline_costs(p, dx, g, &is) && is.n) {
		printf("\n  %-40s %12s %8s\n", "inlined", pv_unit(p), "share");
		for (size_t i = 0; i < is.n; i++) {
			char chain[1024];
			printf("  %-40s %12llu %7.1f%%\n", pv_inline_chain(is.o, is.v[i].f, chain, sizeof(chain)),
			       pv_cyc(p, is.v[i].cycles), pv_pct(is.v[i].cycles, v->self));
		}
	}
	free(is.v);
}

static void show(const struct profile *p, const struct x86_decoder *dx, const struct func_table *t, uint32_t g)
{
	const struct func_view *v = &t->f[g];
	const struct prof_gfunc *gf = &p->funcs[g];
	const struct prof_obj *o = &p->objs[gf->obj];
	const struct pi_map_func *mf = &o->funcs[gf->func];
	printf("%s\n", pv_name(p, g));
	if (gf->external)
		printf("  object            none: external code, called from %s%s\n", gf->object,
		       (mf->flags & PI_FUNC_WAIT) ? " (it waits on the outside world)" : "");
	else
		printf("  object            %s, %s+0x%x\n", gf->object, prof_str(o, mf->section), mf->offset);
	const struct pi_map_line *l = prof_line(o, mf->section, mf->offset);
	if (l)
		printf("  source            %s:%u\n", prof_str(o, l->file), l->line);
	printf("  calls             %llu", (unsigned long long)v->calls);
	if (v->rec_calls)
		printf(" (%llu recursive)", (unsigned long long)v->rec_calls);
	const char *unit = pv_unit(p);
	printf("\n  self              %llu %s (%.2f%% of %llu)\n", pv_cyc(p, v->self), unit,
	       pv_pct(v->self, t->total_self), pv_cyc(p, t->total_self));
	printf("  self+descendants  %llu %s (%.2f%%)\n", pv_cyc(p, v->incl), unit, pv_pct(v->incl, t->total_self));
	/* the three of one precision, so that the mean shows between min and
	 * max: whole cycles when the profile is in whole cycles */
	double mean = v->calls ? pv_cyc_f(p, v->self) / (double)v->calls : 0.0;
	if (!pv_has_minmax(p)) /* counted (profinst's default): no min and max to show it between */
		printf("  self per call     mean %.1f %s (counted: no per-call min and max)\n", mean, unit);
	else if (p->units > 1)
		printf("  self per call     min %.1f, max %.1f, mean %.1f %s\n", pv_cyc_f(p, v->min_self),
		       pv_cyc_f(p, v->max_self), mean, unit);
	else
		printf("  self per call     min %llu, max %llu, mean %.1f %s\n", (unsigned long long)v->min_self,
		       (unsigned long long)v->max_self, mean, unit);
	/* external code's and system calls' time is the caller's, and counted apart */
	if (prof_charges_os(p)) {
		printf("  OS                %llu cycles of self in external code and system calls\n", pv_cyc(p, v->os));
		if (v->os_left)
			printf("  left out          %llu cycles waiting (not charged)\n", pv_cyc(p, v->os_left));
	}
	if (prof_branch_sim(p) && !gf->external)
		printf("  mispredicted      %llu jumps, %llu cycles of self (%.2f%%)\n",
		       (unsigned long long)v->mispredicts, pv_cyc(p, v->mispredict_cycles),
		       pv_pct(v->mispredict_cycles, v->self));
	if (prof_cache_sim(p) && !gf->external)
		printf("  memory waits      %llu cycles of self (%.2f%%)\n", pv_cyc(p, v->mem_wait_cycles),
		       pv_pct(v->mem_wait_cycles, v->self));
	if (v->faults)
		printf("  page faults       %llu, charged in self\n", (unsigned long long)v->faults);
	printf("\n  %-40s %12s %8s\n", "callers", "calls", "share");
	for (uint32_t k = 0; k < v->ncallers; k++) {
		const struct arc *a = &v->callers[k];
		char name[512];
		snprintf(name, sizeof(name), "%s%s", a->other == UINT32_MAX ? "<root>" : pv_name(p, a->other),
			 a->rec_calls ? " (recursive)" : "");
		printf("  %-40s %12llu %7.1f%%\n", name, (unsigned long long)a->calls, pv_pct(a->incl, v->incl));
	}
	printf("\n  %-40s %12s %8s\n", "callees", "calls", "share");
	for (uint32_t k = 0; k < v->ncallees; k++) {
		const struct arc *a = &v->callees[k];
		printf("  %-40s %12llu %7.1f%%\n", pv_name(p, a->other), (unsigned long long)a->calls,
		       pv_pct(a->incl, v->incl));
	}
	/* call sites, from the calling-context trees */
	struct site_count *s = NULL;
	size_t ns = 0, cap = 0;
	struct ix_map at = {0}; /* (ra, caller) -> index in s */
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		uint64_t *cum = malloc(th->hdr->nnodes * sizeof(uint64_t));
		if (!cum)
			break;
		prof_subtree(th, cum);
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			if (prof_gfunc(p, nd->obj, nd->func) != g)
				continue;
			const struct pi_prof_node *pa = &th->nodes[nd->parent];
			uint32_t caller = nd->parent ? prof_gfunc(p, pa->obj, pa->func) : UINT32_MAX;
			size_t i = site_of(&s, &ns, &cap, &at, nd->ret_addr, caller, pa->ret_addr);
			if (i == SIZE_MAX)
				break;
			s[i].calls += nd->calls - nd->rec_calls;
			s[i].incl += cum[n];
		}
		for (uint32_t r = 0; r < th->hdr->nrec; r++) {
			const struct pi_prof_recedge *re = &th->recs[r];
			const struct pi_prof_node *tn = &th->nodes[re->node];
			if (prof_gfunc(p, tn->obj, tn->func) != g)
				continue;
			uint32_t caller = prof_gfunc(p, re->caller_obj, re->caller_func);
			size_t i = site_of(&s, &ns, &cap, &at, re->ret_addr, caller, th->nodes[re->caller_node].ret_addr);
			if (i == SIZE_MAX)
				break;
			s[i].calls += re->calls;
		}
		free(cum);
	}
	ix_map_free(&at);
	if (ns)
		qsort(s, ns, sizeof(*s), by_calls);
	printf("\n  %-40s %12s %8s\n", "call sites", "calls", "share");
	for (size_t i = 0; i < ns; i++) {
		char lab[512];
		printf("  %-40s %12llu %7.1f%%\n",
		       pv_call_label(p, dx, s[i].ra, g, s[i].caller, s[i].caller == UINT32_MAX ? NULL : &s[i].caller_ra,
				     lab, sizeof(lab)),
		       (unsigned long long)s[i].calls, pv_pct(s[i].incl, v->incl));
	}
	free(s);
	show_inlined(p, dx, v, g);
}

int cmd_detail(int argc, char **argv)
{
	const char *path = NULL, *fn = NULL;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(detail_usage, stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			pv_error("detail: unknown option %s", argv[i]);
			return 2;
		} else if (!path) {
			path = argv[i];
		} else if (!fn) {
			fn = argv[i];
		} else {
			pv_error("detail: too many arguments");
			return 2;
		}
	}
	if (!path || !fn) {
		fputs(detail_usage, stderr);
		return 2;
	}
	struct profile p;
	struct func_table t;
	if (pv_open(&p, &t, path))
		return 1;
	struct x86_decoder dx; /* the call sites' and inlined code's instructions */
	x86_decoder_init(&dx);
	uint32_t found[16];
	uint32_t n = pv_find_functions(&p, &t, path, fn, found, 16);
	if (!n)
		pv_error("%s: no function '%s' ran", path, fn);
	if (n == PV_AMBIGUOUS)
		n = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		show(&p, &dx, &t, found[i]);
	}
	pv_close(&p, &t);
	return n ? 0 : 1;
}
