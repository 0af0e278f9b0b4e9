/* SPDX-License-Identifier: MIT */
/*
 * Timing models: a basic block in, fixed cycles out.  A model also says
 * what one iteration of a repeated string instruction costs, which the
 * runtime multiplies by the iteration count it observes (seed 003's
 * "variably determinate" instructions).
 */
#ifndef PI_MODEL_H
#define PI_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "decode.h"

struct cpu_model {
	const char *name;
	const char *description;
	/* Fixed cost of a straight-line block, in cycles. */
	uint32_t (*block_cost)(const struct cpu_model *m, const struct insn *insns, size_t n);
	/* Cost of one iteration of a rep-prefixed string instruction. */
	uint32_t rep_iter_cost;
	/* Count executions as valgrind does: a rep instruction executes once
	 * per iteration plus once more when it stops on %rcx == 0. */
	int rep_counts_passes;
};

/* The model called name, "host" for the one closest to this machine, or
 * NULL. */
const struct cpu_model *model_find(const char *name);
void model_list(FILE *out);

#endif
