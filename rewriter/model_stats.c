/* SPDX-License-Identifier: MIT */
/* What --model-stats counts: the instructions costed, and the forms a
 * model's tables lack.  Apart from model.c, so that the models that count
 * here (model/uarch_model.c) do not call back into what calls them. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_stats_missing(struct model_stats *st, const char *form)
{
	for (size_t i = 0; i < st->nmissing; i++)
		if (!strcmp(st->missing[i].form, form)) {
			st->missing[i].n++;
			return;
		}
	if (st->nmissing == st->cap) {
		size_t nc = st->cap ? 2 * st->cap : 16;
		struct form_count *m = realloc(st->missing, nc * sizeof(*m));
		if (!m)
			return;
		st->missing = m;
		st->cap = nc;
	}
	snprintf(st->missing[st->nmissing].form, sizeof(st->missing[0].form), "%s", form);
	st->missing[st->nmissing++].n = 1;
}

static int by_n(const void *a, const void *b)
{
	const struct form_count *x = a, *y = b;
	return x->n == y->n ? strcmp(x->form, y->form) : x->n < y->n ? 1 : -1;
}

void model_stats_print(const struct model_stats *st, const struct cpu_model *m, FILE *out)
{
	fprintf(out, "profinst: model %s: %llu instructions costed, %llu (%.2f%%) fell back to their category\n",
		m->name, (unsigned long long)st->insns, (unsigned long long)st->fallback,
		st->insns ? 100.0 * (double)st->fallback / (double)st->insns : 0.0);
	if (!st->nmissing)
		return;
	struct form_count *v = malloc(st->nmissing * sizeof(*v));
	if (!v)
		return;
	memcpy(v, st->missing, st->nmissing * sizeof(*v));
	qsort(v, st->nmissing, sizeof(*v), by_n);
	size_t show = st->nmissing < 20 ? st->nmissing : 20;
	fprintf(out, "profinst: forms not in the model's tables (%zu; the %zu most frequent):\n",
		st->nmissing, show);
	for (size_t i = 0; i < show; i++)
		fprintf(out, "  %8llu  %s\n", (unsigned long long)v[i].n, v[i].form);
	free(v);
}

void model_stats_free(struct model_stats *st)
{
	free(st->missing);
	st->missing = NULL;
	st->nmissing = st->cap = 0;
}
