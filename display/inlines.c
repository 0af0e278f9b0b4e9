/* SPDX-License-Identifier: MIT */
#include "inlines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "insncost.h"

const char *pv_inline_name(const struct prof_obj *o, const struct pi_map_inline *f)
{
	char **shown = &o->inline_shown[f - o->inlines];
	/* kept with the profile: a name lives as long as it does */
	if (!*shown)
		*shown = pv_demangle(prof_str(o, f->name));
	return *shown ? *shown : prof_str(o, f->name);
}

const char *pv_inline_chain(const struct prof_obj *o, const struct pi_map_inline *f, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (; f && len < n; f = prof_inline_parent(o, f)) {
		const char *file = prof_str(o, f->call_file), *base = strrchr(file, '/');
		/* at most 511 bytes of a name: room for the others of the chain */
		int k = snprintf(buf + len, n - len, "%s%.511s (%s:%u)", len ? " in " : "", pv_inline_name(o, f),
				 *file ? (base ? base + 1 : file) : "??", f->call_line);
		if (k < 0)
			break;
		len += (size_t)k;
	}
	return buf;
}

/* The same call: one function inlined at one place, in the same calls. */
static bool same_call(const struct prof_obj *o, const struct pi_map_inline *a, const struct pi_map_inline *b)
{
	for (; a && b; a = prof_inline_parent(o, a), b = prof_inline_parent(o, b))
		if (a != b && (a->name != b->name || a->call_file != b->call_file || a->call_line != b->call_line))
			return false;
	return a == b;
}

static void add(struct pv_inlines *is, const struct pi_map_inline *f, uint64_t cycles, uint64_t runs)
{
	size_t i;
	for (i = 0; i < is->n && !same_call(is->o, is->v[i].f, f); i++)
		;
	if (i == is->n) {
		if (is->n == is->cap) {
			size_t nc = is->cap ? 2 * is->cap : 16;
			void *nv = realloc(is->v, nc * sizeof(*is->v));
			if (!nv) {
				is->oom = 1;
				return;
			}
			is->v = nv;
			is->cap = nc;
		}
		is->v[is->n++] = (struct pv_inline_cost){f, 0, 0};
	}
	is->v[i].cycles += cycles;
	if (runs > is->v[i].runs)
		is->v[i].runs = runs;
}

static void add_insn(void *ctx, const struct insn_cost *c)
{
	struct pv_inlines *is = ctx;
	const struct pi_map_inline *f = prof_inline(is->o, is->o->blocks[c->block].section, c->offset);
	for (; f; f = prof_inline_parent(is->o, f))
		add(is, f, c->fixed + c->mispredicted + c->waited, c->executions);
}

static int by_cycles(const void *x, const void *y)
{
	const struct pv_inline_cost *a = x, *b = y;
	if (a->cycles != b->cycles)
		return a->cycles > b->cycles ? -1 : 1;
	return (a->f > b->f) - (a->f < b->f);
}

int pv_inline_costs(const struct profile *p, const struct x86_decoder *dx, uint32_t g, struct pv_inlines *is)
{
	is->o = &p->objs[p->funcs[g].obj];
	is->n = 0;
	is->oom = 0;
	if (p->funcs[g].external || !is->o->ninrows)
		return 0;
	pv_insn_costs(p, dx, g, add_insn, is);
	if (is->n)
		qsort(is->v, is->n, sizeof(*is->v), by_cycles);
	return is->oom ? -1 : 0;
}
