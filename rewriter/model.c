/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <stdlib.h>
#include <string.h>

/* --cpu=instructions: every instruction costs one cycle, so a profile
 * counts instructions exactly as callgrind's Ir does. */
static uint32_t instructions_cost(const struct cpu_model *m, const uint8_t *code,
				  const struct insn *insns, size_t n, struct model_stats *st)
{
	(void)m, (void)insns, (void)code;
	if (st)
		st->insns += n;
	return (uint32_t)n;
}

static const struct cpu_model models[] = {
	{
		.name = "instructions",
		.description = "every instruction costs 1 cycle (counts match callgrind's Ir)",
		.block_cost = instructions_cost,
		.rep_iter_cost = 1,
		.rep_counts_passes = 1,
	},
};

const struct cpu_model *model_find(const char *name)
{
	/* Until per-CPU models exist (see the timing-model issue), the host's
	 * closest model is the instruction count. */
	if (!strcmp(name, "host"))
		name = "instructions";
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

void model_list(FILE *out)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		fprintf(out, "%-14s %s\n", models[i].name, models[i].description);
	fprintf(out, "%-14s the model closest to this machine's CPU (default)\n", "host");
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
