/* SPDX-License-Identifier: MIT */
/*
 * profview export --format=callgrind: the profile in callgrind's format
 * (valgrind's docs/callgrind-format), for KCachegrind and
 * callgrind_annotate, with "positions: line": each function's self cycles
 * on its source lines, each call on the line of its call site.
 *
 * A line's cycles are its instructions' (insncost.h: the blocks' fixed
 * costs, and the simulations' charges).  What a function's self holds
 * beyond its blocks: its time in external code and system calls (its OS
 * part) on the lines of the calls and system calls that spent it, by how
 * many times each ran; calls' and returns' bubbles and page faults on
 * its first line, so that every
 * function's lines add up to its self cycles and the file's total to the
 * profile's.  Where a function's blocks come to more than its self (a
 * function a tail call reached, whose time is its caller's), its lines
 * are scaled down to its self.  A call is on its call site's line, a
 * tail call (which has none) on its caller's first line.  Code without
 * line information is at line 0 of "???", as valgrind writes it.
 *
 * The lines' cycles are exact in the profile's unit until they are
 * written: whole cycles are handed out over the file's lines in turn
 * (prof_round), so that they add up to the total the report prints.
 */
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"
#include "common.h"
#include "insncost.h"

/* A call: (caller, call site, callee), from the calling-context trees. */
struct cg_call {
	uint32_t caller, callee;
	uint64_t ra;
	uint64_t calls, incl;
};

static int by_call(const void *x, const void *y)
{
	const struct cg_call *a = x, *b = y;
	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	if (a->ra != b->ra)
		return a->ra < b->ra ? -1 : 1;
	return (a->callee > b->callee) - (a->callee < b->callee);
}

/* Every call of every thread, merged by (caller, site, callee), sorted. */
static struct cg_call *collect_calls(const struct profile *p, size_t *out)
{
	size_t n = 0, cap = 0;
	struct cg_call *v = NULL;
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		uint32_t nn = th->hdr->nnodes;
		size_t more = (size_t)nn + th->hdr->nrec;
		uint64_t *cum = malloc(nn * sizeof(uint64_t));
		if (!cum) {
			free(v);
			return NULL;
		}
		prof_subtree(th, cum);
		if (n + more > cap) {
			cap = 2 * (n + more);
			void *nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				free(cum);
				return NULL;
			}
			v = nv;
		}
		/* as the function table counts them (views.c): a node's calls
		 * less its recursive ones, which its recursive edges hold */
		for (uint32_t k = 1; k < nn; k++) {
			const struct pi_prof_node *nd = &th->nodes[k];
			if (!nd->parent)
				continue; /* called from the root: no caller's line */
			const struct pi_prof_node *pa = &th->nodes[nd->parent];
			v[n++] = (struct cg_call){prof_gfunc(p, pa->obj, pa->func), prof_gfunc(p, nd->obj, nd->func),
						  nd->ret_addr, nd->calls - nd->rec_calls, cum[k]};
		}
		for (uint32_t k = 0; k < th->hdr->nrec; k++) {
			const struct pi_prof_recedge *re = &th->recs[k];
			const struct pi_prof_node *nd = &th->nodes[re->node];
			v[n++] = (struct cg_call){prof_gfunc(p, re->caller_obj, re->caller_func),
						  prof_gfunc(p, nd->obj, nd->func), re->ret_addr, re->calls, 0};
		}
		free(cum);
	}
	if (n)
		qsort(v, n, sizeof(*v), by_call);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !by_call(&v[m - 1], &v[i])) {
			v[m - 1].calls += v[i].calls;
			v[m - 1].incl += v[i].incl;
		} else {
			v[m++] = v[i];
		}
	}
	*out = m;
	return v ? v : calloc(1, sizeof(*v));
}

/* fi= when the lines that follow are of another file than the last. */
static void switch_file(FILE *o, const char **cur, const char *file)
{
	if (strcmp(*cur, file)) {
		fprintf(o, "fi=%s\n", file);
		*cur = file;
	}
}

int callgrind_write(FILE *o, const struct profile *p, const struct x86_decoder *dx, const struct func_table *t)
{
	size_t ncalls;
	struct cg_call *calls = collect_calls(p, &ncalls);
	if (!calls)
		return -1;
	struct pv_lines ls = {0}, outside = {0};
	struct pv_call *ext = malloc((ncalls ? ncalls : 1) * sizeof(*ext));
	if (!ext) {
		free(calls);
		return -1;
	}
	fprintf(o, "# callgrind format\nversion: 1\ncreator: profview\n");
	fprintf(o, "cmd: %s\npid: %u\n", p->hdr->exe, p->hdr->pid);
	/* valgrind's own name for instructions executed: Ir */
	fprintf(o, "positions: line\nevents: %s\n", pv_counts_instructions(p) ? "Ir" : "Cycles");
	fprintf(o, "summary: %llu\n\n", pv_cyc(p, t->total_self));
	struct prof_round r;
	prof_round_init(&r, p->units);
	size_t c = 0;
	int bad = 0;
	for (uint32_t g = 0; g < t->n && !bad; g++) {
		const struct func_view *v = &t->f[g];
		while (c < ncalls && calls[c].caller < g)
			c++;
		if (!v->calls && !v->self && !(c < ncalls && calls[c].caller == g))
			continue;
		/* its calls to external code: where its time outside its code went */
		size_t next = 0;
		for (size_t k = c; k < ncalls && calls[k].caller == g; k++)
			if (calls[k].callee != UINT32_MAX && p->funcs[calls[k].callee].external)
				ext[next++] = (struct pv_call){calls[k].ra, calls[k].calls};
		if (pv_outside_lines(p, dx, g, ext, next, &outside) ||
		    pv_function_lines_os(p, dx, g, v->self, v->os, &outside, &ls)) {
			bad = 1;
			break;
		}
		uint32_t line;
		const char *fl = pv_entry_line(p, g, &line), *cur = fl;
		fprintf(o, "ob=%s\nfl=%s\nfn=%s\n", p->funcs[g].object, fl, pv_name(p, g));
		if (!ls.n)
			fprintf(o, "%u 0\n", line); /* a function that costs nothing has a line too */
		for (size_t i = 0; i < ls.n; i++) {
			switch_file(o, &cur, ls.v[i].file);
			fprintf(o, "%u %llu\n", ls.v[i].line, (unsigned long long)prof_round(&r, ls.v[i].cycles));
		}
		for (; c < ncalls && calls[c].caller == g; c++) {
			const struct cg_call *k = &calls[c];
			if (k->callee == UINT32_MAX || !k->calls)
				continue;
			/* the call's line; a tail call's return address is
			 * the call site that reached its caller, in another
			 * function: the caller's first line then */
			uint32_t site_line = line, target_line, sg;
			const char *site_file = fl;
			const struct pi_map_site *site;
			if (prof_find_site(p, k->ra, &sg, &site) && sg == g) {
				const struct prof_obj *so = &p->objs[p->funcs[sg].obj];
				const struct pi_map_line *l = prof_line(so, site->section, site->offset);
				site_file = l ? prof_str(so, l->file) : pv_unknown_file;
				site_line = l ? l->line : 0;
			}
			const char *target = pv_entry_line(p, k->callee, &target_line);
			switch_file(o, &cur, site_file);
			fprintf(o, "cob=%s\ncfi=%s\ncfn=%s\ncalls=%llu %u\n%u %llu\n", p->funcs[k->callee].object,
				target, pv_name(p, k->callee), (unsigned long long)k->calls, target_line, site_line,
				pv_cyc(p, k->incl));
		}
		fputc('\n', o);
	}
	fprintf(o, "totals: %llu\n", pv_cyc(p, t->total_self));
	free(ls.v);
	free(outside.v);
	free(ext);
	free(calls);
	return bad ? -1 : 0;
}
