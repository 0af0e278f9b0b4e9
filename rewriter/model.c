/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <string.h>

/* --cpu=instructions: every instruction costs one cycle, so a profile
 * counts instructions exactly as callgrind's Ir does. */
static uint32_t instructions_cost(const struct cpu_model *m, const struct insn *insns, size_t n)
{
	(void)m, (void)insns;
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
